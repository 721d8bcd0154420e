/*
 * study/report.c - the report rules; see report.h.
 */
#include "study/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"

void
report_input_cleanup(struct report_input *in)
{
    if (!in)
        return;
    metric_set_cleanup(&in->values);
    in->step = -1;
}

enum hpod_status
report_from_json(json_t *body, struct report_input *out, struct hpod_err *err)
{
    static const char *const keys[] = {"values", "step", NULL};
    enum hpod_status st = HPOD_OK;
    json_t *v, *val;
    const char *key;
    char f[96];

    memset(out, 0, sizeof *out);
    out->step = -1;
    if (!json_is_object(body))
        return hpod_fail(err, HPOD_EINVAL, "", "body must be a JSON object");
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "values");
    if (!v)
        return hpod_fail(err, HPOD_EINVAL, "values", "values is required");
    if (!json_is_object(v))
        return hpod_fail(err, HPOD_EINVAL, "values",
                         "values must be an object of metric: number");
    if (json_object_size(v) == 0 || json_object_size(v) > REPORT_MAX_METRICS)
        return hpod_fail(err, HPOD_EUNPROC, "values",
                         "values must hold 1 to %d metrics",
                         REPORT_MAX_METRICS);
    json_object_foreach(v, key, val)
    {
        snprintf(f, sizeof f, "values.%.64s", key);
        if (!metric_name_ok(key)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "metric name must be 1 to %d letters, digits, "
                           "'_', '.' or '-'",
                           METRIC_NAME_MAX);
            goto out;
        }
        if (!json_is_number(val)) {
            st = hpod_fail(err, HPOD_EINVAL, f, "%s must be a number", f);
            goto out;
        }
        if (json_is_integer(val) &&
            (json_integer_value(val) > HJ_MAX_EXACT_INT ||
             json_integer_value(val) < -HJ_MAX_EXACT_INT)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s is an integer beyond 2^53 in magnitude, which "
                           "a double cannot hold exactly: send it as a float",
                           f);
            goto out;
        }
        if (!isfinite(json_number_value(val))) {
            st = hpod_fail(err, HPOD_EUNPROC, f, "%s must be finite", f);
            goto out;
        }
        /* jansson keeps one value per key: no duplicate reaches here. */
        metric_set_add(&out->values, key, json_number_value(val));
    }
    v = json_object_get(body, "step");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v)) {
            st = hpod_fail(err, HPOD_EINVAL, "step", "step must be an integer");
            goto out;
        }
        out->step = json_integer_value(v);
        if (out->step < 0 || out->step > REPORT_MAX_STEP) {
            st = hpod_fail(err, HPOD_EUNPROC, "step",
                           "step must be between 0 and %lld", REPORT_MAX_STEP);
            goto out;
        }
    }
out:
    if (st != HPOD_OK)
        report_input_cleanup(out);
    return st;
}

enum hpod_status
report_check_metrics(const struct study_def *d, const struct report_input *in,
                     struct hpod_err *err)
{
    for (size_t i = 0; i < in->values.n; i++) {
        const char *m = in->values.v[i].name;
        int known = 0;
        char f[96];
        for (size_t j = 0; j < d->n_objectives && !known; j++)
            known = strcmp(m, d->obj_names[j]) == 0;
        for (size_t c = 0; c < d->n_constraints && !known; c++)
            known = strcmp(m, d->con_metric[c]) == 0;
        if (known)
            continue;
        snprintf(f, sizeof f, "values.%s", m);
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "metric \"%s\" is neither an objective nor a "
                         "constrained metric of the study",
                         m);
    }
    return HPOD_OK;
}

/* report_merge: contract in report.h. */
void
report_merge(const struct study_def *d, const struct trial *t,
             const struct metric_set *in, struct metric_set *add, int *complete,
             size_t *conflict)
{
    *conflict = (size_t)-1;
    *complete = 1;
    for (size_t i = 0; i < in->n; i++) {
        const double *old = metric_set_find(&t->values, in->v[i].name);
        /* Exactly the same double: every stored value reads back exactly
         * (double precision column), so a retry compares equal. */
        if (old ? *old != in->v[i].value : t->state == TRIAL_COMPLETED) {
            *conflict = i;
            return;
        }
        if (!old)
            metric_set_add(add, in->v[i].name, in->v[i].value);
    }
    for (size_t j = 0; j < d->n_objectives; j++)
        *complete &= metric_set_find(&t->values, d->obj_names[j]) != NULL ||
                     metric_set_find(add, d->obj_names[j]) != NULL;
}
