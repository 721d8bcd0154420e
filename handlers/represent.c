/*
 * handlers/represent.c - rows as API JSON; see represent.h.
 */
#include "handlers/represent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"

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
    json_object_set_new(o, "state", json_string(state));
    json_object_set_new(o, "metadata", meta);
    json_object_set_new(o, "trial_counts", counts);
    json_object_set_new(o, "created_at",
                        json_string(s->created_at ? s->created_at : ""));
    return o;
}

json_t *
trial_to_json(const struct trial *t)
{
    json_t *params = hj_parse(t->params);
    if (!json_is_object(params)) {
        json_decref(params);
        return NULL;
    }
    json_t *o = json_object();
    json_t *steps = json_array();
    for (size_t i = 0; i < t->n_steps; i++)
        json_array_append_new(
            steps, json_pack("{s:i, s:o}", "step", t->steps[i].step, "values",
                             metric_set_to_json(&t->steps[i].values)));
    json_object_set_new(o, "id", json_integer(t->id));
    json_object_set_new(o, "study_id", json_integer(t->study_id));
    json_object_set_new(o, "state", json_string(trial_state_name(t->state)));
    json_object_set_new(o, "params", params);
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
