/*
 * handlers/represent.c - rows as API JSON; see represent.h.
 */
#include "handlers/represent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "common/strbuf.h"
#include "study/def.h"

json_t *
metric_set_to_json(const struct metric_set *m)
{
    json_t *o = json_object();
    for (size_t i = 0; m && i < m->n; i++)
        json_object_set_new(o, m->v[i].name, json_real(m->v[i].value));
    return o;
}

json_t *
study_to_json(const struct study *s)
{
    json_t *o = hj_parse(s->definition);
    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    json_t *counts = json_object();
    for (int k = 0; k < TRIAL_NSTATES; k++)
        json_object_set_new(counts, trial_state_name(k),
                            json_integer(s->counts[k]));
    json_object_set_new(o, "id", json_integer(s->id));
    json_object_set_new(o, "benchmark",
                        s->benchmark ? json_string(s->benchmark) : json_null());
    json_object_set_new(o, "n_candidates",
                        s->n_candidates >= 0 ? json_integer(s->n_candidates)
                                             : json_null());
    /* The state users set; "done" for an active study that will never
     * issue a trial again. */
    const char *state = s->state ? s->state : "active";
    if (strcmp(state, "active") == 0 && study_done(s))
        state = "done";
    json_t *meta = hj_parse(s->metadata ? s->metadata : "{}");
    if (!json_is_object(meta)) {
        json_decref(meta);
        json_decref(o);
        json_decref(counts);
        return NULL;
    }
    json_object_set_new(o, "lab", json_string(s->lab ? s->lab : ""));
    /* The token that created it (docs/audit.md); null on an open server. */
    json_object_set_new(
        o, "created_by",
        s->created_by
            ? json_pack("{s:I, s:s}", "id", (json_int_t)s->created_by, "note",
                        s->created_by_note ? s->created_by_note : "")
            : json_null());
    json_object_set_new(o, "state", json_string(state));
    json_object_set_new(o, "metadata", meta);
    json_object_set_new(o, "trial_counts", counts);
    json_object_set_new(o, "created_at",
                        json_string(s->created_at ? s->created_at : ""));
    json_object_set_new(
        o, "last_activity",
        json_string(s->last_activity ? s->last_activity
                                     : (s->created_at ? s->created_at : "")));
    return o;
}

json_t *
trial_to_json(const struct trial *t)
{
    return trial_to_json_params(t, hj_parse(t->params));
}

json_t *
trial_to_json_params(const struct trial *t, json_t *params)
{
    if (!json_is_object(params)) {
        json_decref(params);
        return NULL;
    }
    json_t *meta = t->metadata ? hj_parse(t->metadata) : json_object();
    if (!json_is_object(meta)) {
        json_decref(params);
        json_decref(meta);
        return NULL;
    }
    json_t *o = json_object();
    json_t *steps = json_array();
    for (size_t i = 0; i < t->n_steps; i++) {
        json_t *st =
            json_pack("{s:i, s:o, s:s}", "step", t->steps[i].step, "values",
                      metric_set_to_json(&t->steps[i].values), "action",
                      t->steps[i].stop ? "stop" : "continue");
        if (t->steps[i].checkpoint)
            json_object_set_new(st, "checkpoint",
                                json_string(t->steps[i].checkpoint));
        json_array_append_new(steps, st);
    }
    json_object_set_new(o, "id", json_integer(t->id));
    json_object_set_new(o, "number", json_integer(t->seq));
    json_object_set_new(o, "study_id", json_integer(t->study_id));
    json_object_set_new(o, "state", json_string(trial_state_name(t->state)));
    json_object_set_new(o, "origin", json_string(trial_origin_name(t->origin)));
    json_object_set_new(o, "params", params);
    json_object_set_new(o, "metadata", meta);
    json_object_set_new(o, "values", metric_set_to_json(&t->values));
    json_object_set_new(o, "intermediate", steps);
    json_object_set_new(o, "worker", json_string(t->worker ? t->worker : ""));
    json_object_set_new(o, "reason",
                        t->reason ? json_string(t->reason) : json_null());
    json_object_set_new(o, "created_at",
                        json_string(t->created_at ? t->created_at : ""));
    json_object_set_new(o, "updated_at",
                        json_string(t->updated_at ? t->updated_at : ""));
    json_object_set_new(o, "lease_expires_at",
                        t->lease_expires_at ? json_string(t->lease_expires_at)
                                            : json_null());
    if (t->resume_from_step >= 0)
        json_object_set_new(o, "resume_from_step",
                            json_integer(t->resume_from_step));
    if (t->excluded)
        json_object_set_new(
            o, "excluded",
            json_pack("{s:s, s:s, s:s}", "reason",
                      t->excluded_reason ? t->excluded_reason : "", "by",
                      t->excluded_by ? t->excluded_by : "", "at",
                      t->excluded_at ? t->excluded_at : ""));
    /* The checkpoint to resume from: the last one reported. */
    if (trial_checkpoint(t))
        json_object_set_new(o, "checkpoint", json_string(trial_checkpoint(t)));
    if (t->train_to >= 1)
        json_object_set_new(o, "train_to", json_integer(t->train_to));
    return o;
}

enum hpod_status
query_int(const char *text, const char *name, long long min, long long max,
          long long dflt, long long *out, struct hpod_err *err)
{
    char *end;
    long long v;
    if (!text) {
        *out = dflt;
        return HPOD_OK;
    }
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return hpod_fail(err, HPOD_EINVAL, name,
                         "%s must be an integer from %lld to %lld", name, min,
                         max);
    *out = v;
    return HPOD_OK;
}

enum hpod_status
query_bool(const char *text, const char *name, int *out, struct hpod_err *err)
{
    *out = 0;
    if (!text || strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
        return HPOD_OK;
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0) {
        *out = 1;
        return HPOD_OK;
    }
    return hpod_fail(err, HPOD_EINVAL, name, "%s must be true or false", name);
}

/* One CSV field: quoted (quotes doubled) when it holds , " CR or LF. */
static void
sb_field(struct strbuf *b, int first, const char *s)
{
    if (!first)
        strbuf_put(b, ",", 1);
    if (!s || !strpbrk(s, ",\"\r\n")) {
        if (s)
            strbuf_put(b, s, strlen(s));
        return;
    }
    strbuf_put(b, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            strbuf_put(b, "\"\"", 2);
        else
            strbuf_put(b, p, 1);
    }
    strbuf_put(b, "\"", 1);
}

/*
 * A string a user chose as a CSV field. One that starts with =, +, -, @,
 * a tab or a CR is a formula to a spreadsheet (=HYPERLINK(...), @SUM(1)):
 * it is written with a ' before it, which the spreadsheet shows as text
 * (OWASP, "CSV Injection"). Numbers hpod writes itself are never text.
 */
static void
sb_text(struct strbuf *b, const char *s)
{
    char *quoted;
    if (!s || !strchr("=+-@\t\r", s[0]) || s[0] == '\0') {
        sb_field(b, 0, s);
        return;
    }
    quoted = xmalloc(strlen(s) + 2);
    quoted[0] = '\'';
    strcpy(quoted + 1, s);
    sb_field(b, 0, quoted);
    free(quoted);
}

/* A JSON scalar as a CSV field: a string as text (sb_text), a number as
 * JSON has it. */
static void
sb_json(struct strbuf *b, const json_t *v)
{
    char *text;
    if (!v || json_is_null(v)) {
        sb_field(b, 0, NULL);
        return;
    }
    if (json_is_string(v)) {
        sb_text(b, json_string_value(v));
        return;
    }
    text = hj_dump(v, 0);
    sb_field(b, 0, text);
    free(text);
}

/* Metric columns: objectives, constrained metrics, then the rest sorted. */
static size_t
csv_metrics(const struct study_def *d, const struct trial *rows, size_t n,
            const char ***out)
{
    size_t k = 0, cap = d->n_objectives + d->n_constraints + 8;
    const char **m = xmalloc(cap * sizeof *m);
    size_t fixed;

    for (size_t j = 0; j < d->n_objectives; j++)
        m[k++] = d->obj_names[j];
    for (size_t c = 0; c < d->n_constraints; c++) {
        size_t j;
        for (j = 0; j < k && strcmp(m[j], d->con_metric[c]); j++)
            ;
        if (j == k)
            m[k++] = d->con_metric[c];
    }
    fixed = k;
    for (size_t i = 0; i < n; i++)
        for (size_t v = 0; v < rows[i].values.n; v++) {
            const char *name = rows[i].values.v[v].name;
            size_t j, at;
            for (j = 0; j < k && strcmp(m[j], name); j++)
                ;
            if (j < k)
                continue;
            if (k == cap)
                m = xrealloc(m, (cap *= 2) * sizeof *m);
            /* Insertion in name order after the study's own metrics. */
            for (at = k; at > fixed && strcmp(m[at - 1], name) > 0; at--)
                m[at] = m[at - 1];
            m[at] = name;
            k++;
        }
    *out = m;
    return k;
}

char *
trials_to_csv(const struct study_def *d, const struct trial *rows, size_t n)
{
    struct strbuf b = {0};
    const char **metrics = NULL;
    size_t nm = csv_metrics(d, rows, n, &metrics);
    char name[128], num[32];
    int ok = 1;

    strbuf_put(&b, "number,id,state,origin", strlen("number,id,state,origin"));
    for (size_t i = 0; i < d->space.n_params; i++) {
        snprintf(name, sizeof name, "params.%s", d->names[i]);
        sb_field(&b, 0, name);
    }
    for (size_t j = 0; j < nm; j++) {
        snprintf(name, sizeof name, "values.%s", metrics[j]);
        sb_field(&b, 0, name);
    }
    strbuf_put(&b, ",created_at,updated_at,reason,excluded\r\n", 40);
    for (size_t i = 0; i < n && ok; i++) {
        const struct trial *t = &rows[i];
        json_t *params = hj_parse(t->params);
        if (!json_is_object(params)) {
            json_decref(params);
            ok = 0;
            break;
        }
        snprintf(num, sizeof num, "%d", t->seq);
        sb_field(&b, 1, num);
        snprintf(num, sizeof num, "%lld", t->id);
        sb_field(&b, 0, num);
        sb_field(&b, 0, trial_state_name(t->state));
        sb_field(&b, 0, trial_origin_name(t->origin));
        for (size_t p = 0; p < d->space.n_params; p++)
            sb_json(&b, json_object_get(params, d->names[p]));
        json_decref(params);
        for (size_t j = 0; j < nm; j++) {
            const double *v = metric_set_find(&t->values, metrics[j]);
            json_t *r = v ? json_real(*v) : NULL;
            sb_json(&b, r);
            json_decref(r);
        }
        sb_field(&b, 0, t->created_at ? t->created_at : "");
        sb_field(&b, 0, t->updated_at ? t->updated_at : "");
        /* Why it failed or stopped (a user's text when it failed by
         * POST /v1/trials/{id}/fail); an excluded trial's reason. */
        sb_text(&b, t->reason);
        if (t->excluded)
            sb_text(&b, t->excluded_reason ? t->excluded_reason : "");
        else
            sb_field(&b, 0, "");
        strbuf_put(&b, "\r\n", 2);
    }
    free(metrics);
    if (!ok) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
