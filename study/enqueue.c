/*
 * study/enqueue.c - enqueued and added trials, metadata; see enqueue.h.
 */
#include "study/enqueue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/audit.h"
#include "study/def.h"
#include "study/history.h"
#include "study/trials.h"

void
enqueue_input_clear(struct enqueue_input *in)
{
    if (!in)
        return;
    json_decref(in->params);
    free(in->metadata);
    report_input_clear(&in->value);
    memset(in, 0, sizeof *in);
}

enum hpod_status
enqueue_from_json(json_t *body, struct enqueue_input *out, struct hpod_err *err)
{
    static const char *const keys[] = {"params", "values", "metadata", NULL};
    enum hpod_status st;
    json_t *v;

    memset(out, 0, sizeof *out);
    out->value.step = -1;
    if (!json_is_object(body))
        return hpod_fail(err, HPOD_EINVAL, "", "body must be a JSON object");
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "params");
    if (!v)
        return hpod_fail(err, HPOD_EINVAL, "params", "params is required");
    if (!json_is_object(v))
        return hpod_fail(err, HPOD_EINVAL, "params",
                         "params must be an object of parameter: value");
    out->params = json_incref(v);
    v = json_object_get(body, "metadata");
    if (v && !json_is_null(v) &&
        (st = hj_object_text(v, "metadata", METADATA_MAX, &out->metadata,
                             err)) != HPOD_OK)
        goto out;
    v = json_object_get(body, "values");
    if (v && !json_is_null(v)) {
        /* The same rules as a report's values, and the same field names. */
        json_t *report = json_pack("{s:O}", "values", v);
        st = report_from_json(report, &out->value, err);
        json_decref(report);
        if (st != HPOD_OK)
            goto out;
        out->has_values = 1;
    }
out:
    if (st != HPOD_OK)
        enqueue_input_clear(out);
    return st;
}

/* Every objective of d must be in the added trial's values. */
static enum hpod_status
check_complete(const struct study_def *d, const struct metric_set *values,
               struct hpod_err *err)
{
    for (size_t j = 0; j < d->n_objectives; j++) {
        char f[96];
        if (metric_set_find(values, d->obj_names[j]))
            continue;
        snprintf(f, sizeof f, "values.%s", d->obj_names[j]);
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "an added trial must carry every objective: %s is "
                         "missing",
                         d->obj_names[j]);
    }
    return HPOD_OK;
}

/*
 * A finite study: the candidate raw equals (422 if none), which must not
 * be held by a trial yet (409; the unique index trials_candidate_once is
 * the backstop under concurrency).
 */
static enum hpod_status
match_candidate(struct db *db, long long study_id, const struct study_def *d,
                const double *raw, long long *cand, struct hpod_err *err)
{
    size_t np = d->space.n_params, n_cand = 0, n_rows = 0, i;
    double *cand_raw = NULL;
    struct trial *rows = NULL;
    enum hpod_status st;

    *cand = -1;
    if ((st = history_candidates(db, study_id, d, &cand_raw, &n_cand, err)) !=
        HPOD_OK)
        return st;
    for (i = 0; i < n_cand; i++)
        if (memcmp(cand_raw + i * np, raw, np * sizeof *raw) == 0)
            break;
    free(cand_raw);
    if (i == n_cand)
        return hpod_fail(err, HPOD_EUNPROC, "params",
                         "params are not one of the study's candidates");
    if ((st = trial_store_history(db, study_id, &rows, &n_rows, err)) !=
        HPOD_OK)
        return st;
    for (size_t k = 0; k < n_rows && st == HPOD_OK; k++)
        if (rows[k].candidate == (long long)i)
            st = hpod_fail(err, HPOD_ECONFLICT, "params",
                           "candidate %zu is already taken by trial %lld", i,
                           rows[k].id);
    trials_free(rows, n_rows);
    *cand = (long long)i;
    return st;
}

/* The study's rules for in, decided under its lock (s, d as read then). */
static enum hpod_status
enqueue_check(struct db *db, const struct study *s, const struct study_def *d,
              const struct enqueue_input *in, double *raw, long long *cand,
              struct hpod_err *err)
{
    enum hpod_status st;

    if (s->state && strcmp(s->state, "finished") == 0)
        return hpod_fail(err, HPOD_ECONFLICT, "",
                         "study %lld is finished: it takes no new trial",
                         s->id);
    if (d->algo.name == ALGO_MULTISTAGE)
        return hpod_fail(err, HPOD_EUNPROC, "params",
                         "a multistage study chooses the configurations of "
                         "its stages: trials cannot be enqueued or added");
    if ((st = params_from_json(d, in->params, raw, "params", err)) != HPOD_OK)
        return st;
    if (in->has_values &&
        ((st = report_check_metrics(d, &in->value, err)) != HPOD_OK ||
         (st = check_complete(d, &in->value.values, err)) != HPOD_OK))
        return st;
    if (s->n_candidates >= 0 &&
        (st = match_candidate(db, s->id, d, raw, cand, err)) != HPOD_OK)
        return st;
    /* A waiting trial is issued: it counts in the budget from now on. */
    if (!in->has_values && s->budget >= 0 && study_issued(s) >= s->budget)
        return hpod_fail(err, HPOD_ECONFLICT, "",
                         "study %lld has issued its budget of %lld trials",
                         s->id, s->budget);
    return HPOD_OK;
}

/* The audit event of trial t, just inserted from in. */
static enum hpod_status
enqueue_audit(struct db *db, const struct principal *by,
              const struct enqueue_input *in, const struct trial *t,
              struct hpod_err *err)
{
    char target[48];
    json_t *detail = json_pack("{s:i, s:o}", "number", t->seq, "params",
                               hj_parse(t->params));
    if (in->has_values) {
        json_t *v = json_object();
        for (size_t i = 0; i < in->value.values.n; i++)
            json_object_set_new(v, in->value.values.v[i].name,
                                json_real(in->value.values.v[i].value));
        json_object_set_new(detail, "values", v);
    }
    return audit_record(db, access_token_of(by),
                        in->has_values ? "trial.add" : "trial.enqueue", NULL,
                        t->study_id, trials_target(t->id, target), detail, err);
}

enum hpod_status
enqueue_add(struct db *db, long long study_id, const struct enqueue_input *in,
            const struct principal *by, struct trial *out, struct hpod_err *err)
{
    struct study s = {0};
    struct study_def d = {0};
    double *raw = NULL;
    char *ptext = NULL;
    long long cand = -1;
    int seq = 0;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = db_begin(db, err)) != HPOD_OK ||
        (st = study_store_lock(db, study_id, err)) != HPOD_OK ||
        (st = study_store_get(db, study_id, &s, err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &d, err)) != HPOD_OK)
        goto out;
    raw = xmalloc((d.space.n_params ? d.space.n_params : 1) * sizeof *raw);
    if ((st = enqueue_check(db, &s, &d, in, raw, &cand, err)) != HPOD_OK ||
        (st = trial_store_next_seq(db, study_id, &seq, err)) != HPOD_OK)
        goto out;
    /* Stored as suggest stores a configuration: the space's own form. */
    json_t *pj = params_to_json(&d, raw);
    ptext = hj_dump(pj, 0);
    json_decref(pj);
    if ((st = trial_store_insert_user(
             db, study_id, seq, ptext, cand, in->metadata,
             in->has_values ? &in->value.values : NULL, out, err)) != HPOD_OK ||
        (st = enqueue_audit(db, by, in, out, err)) != HPOD_OK ||
        (st = db_commit(db, err)) != HPOD_OK)
        goto out;
out:
    if (st != HPOD_OK) {
        db_rollback(db);
        trial_clear(out);
    }
    free(ptext);
    free(raw);
    def_clear(&d);
    study_clear(&s);
    return st;
}

enum hpod_status
enqueue_set_metadata(struct db *db, long long id, const json_t *metadata,
                     const struct principal *by, struct trial *out,
                     struct hpod_err *err)
{
    struct trial t = {0};
    char *text = NULL, target[48];
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = hj_object_text(metadata, "metadata", METADATA_MAX, &text, err)) !=
            HPOD_OK ||
        (st = db_begin(db, err)) != HPOD_OK)
        goto out;
    if ((st = trial_store_get(db, id, 1, &t, err)) != HPOD_OK ||
        (st = trial_store_set_metadata(db, id, text, err)) != HPOD_OK ||
        (st = audit_record(db, access_token_of(by), "trial.patch", NULL,
                           t.study_id, trials_target(id, target),
                           json_pack("{s:i, s:o}", "number", t.seq, "metadata",
                                     hj_parse(text)),
                           err)) != HPOD_OK ||
        (st = db_commit(db, err)) != HPOD_OK) {
        db_rollback(db);
        goto out;
    }
    st = trial_store_get(db, id, 0, out, err);
out:
    trial_clear(&t);
    free(text);
    return st;
}
