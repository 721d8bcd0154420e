/*
 * study/measure.c - a decoupled study's measurements; contracts in
 * study/measure.h, the rule in core/decoupled.h.
 */
#include "study/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/mem.h"
#include "core/decoupled.h"
#include "study/constraints.h"

int
measure_decoupled(const struct study_def *d)
{
    for (size_t c = 0; c < d->n_constraints; c++)
        if (d->con_decoupled[c])
            return 1;
    return 0;
}

/* Appends name to arr unless it is there already. */
static void
add_name(json_t *arr, const char *name)
{
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (strcmp(json_string_value(json_array_get(arr, i)), name) == 0)
            return;
    json_array_append_new(arr, json_string(name));
}

static char *
text_of(json_t *arr)
{
    char *s = hj_dump(arr, 0);
    json_decref(arr);
    return s;
}

char *
measure_all(const struct study_def *d)
{
    json_t *a = json_array();
    for (size_t j = 0; j < d->n_objectives; j++)
        add_name(a, d->obj_names[j]);
    for (size_t c = 0; c < d->n_constraints; c++)
        add_name(a, d->con_metric[c]);
    return text_of(a);
}

/* The decoupled constraints' metrics alone. */
static char *
measure_probe(const struct study_def *d)
{
    json_t *a = json_array();
    for (size_t c = 0; c < d->n_constraints; c++)
        if (d->con_decoupled[c])
            add_name(a, d->con_metric[c]);
    return text_of(a);
}

enum hpod_status
measure_choose(const struct study_def *d, const struct history *h, int seq,
               const double *raw, char **out)
{
    double q = 1, cost = 0;
    *out = NULL;
    for (size_t c = 0; c < d->n_constraints; c++) {
        double p = 0;
        if (!d->con_decoupled[c])
            continue;
        enum hpod_status st = constraints_prob(d, c, h->mo_raw, h->mo_c,
                                               h->n_mo, raw, 1, seq, &p);
        if (st != HPOD_OK)
            return st;
        q *= p;
        cost += d->con_cost[c];
    }
    /* Several probes cost their sum; beyond a training, never probe. */
    if (cost > 1)
        cost = 1;
    *out = decoupled_probe_first(q, cost) ? measure_probe(d) : measure_all(d);
    return HPOD_OK;
}

/* 1 if name is an element of arr (an array of strings). */
static int
has_name(json_t *arr, const char *name)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        if (s && strcmp(s, name) == 0)
            return 1;
    }
    return 0;
}

enum hpod_status
measure_check_report(const char *measure, const struct metric_set *held,
                     const struct metric_set *values, struct hpod_err *err)
{
    enum hpod_status st = HPOD_OK;
    if (!measure)
        return HPOD_OK;
    json_t *a = hj_parse(measure);
    if (!json_is_array(a)) {
        st = hpod_fail(err, HPOD_EINTERNAL, "",
                       "a stored measure cannot be read");
        goto out;
    }
    for (size_t i = 0; i < values->n; i++) {
        if (has_name(a, values->v[i].name) ||
            metric_set_find(held, values->v[i].name))
            continue;
        char f[96];
        snprintf(f, sizeof f, "values.%s", values->v[i].name);
        st = hpod_fail(err, HPOD_EUNPROC, f,
                       "this trial was asked to measure %s only, not %s",
                       measure, values->v[i].name);
        goto out;
    }
out:
    json_decref(a);
    return st;
}

/* 1 if metric c's value in values violates its bound. */
static int
violated(const struct study_def *d, size_t c, double v)
{
    return d->con_is_max[c] ? !(v <= d->con_bound[c]) : !(v >= d->con_bound[c]);
}

void
measure_after_report(const struct study_def *d, const char *measure,
                     const struct metric_set *values, int *done, char **next)
{
    *done = 0;
    *next = NULL;
    json_t *a = measure ? hj_parse(measure) : NULL;
    size_t n = json_array_size(a);
    int probe = n > 0, complete = 1, bad = 0;
    for (size_t i = 0; i < n && probe; i++) {
        const char *name = json_string_value(json_array_get(a, i));
        int is_dec = 0;
        for (size_t c = 0; name && c < d->n_constraints; c++) {
            if (!d->con_decoupled[c] || strcmp(d->con_metric[c], name) != 0)
                continue;
            is_dec = 1;
            const double *v = metric_set_find(values, name);
            complete &= v != NULL;
            bad |= v && violated(d, c, *v);
        }
        probe = is_dec;
    }
    json_decref(a);
    if (!probe || !complete)
        return;
    if (bad) {
        *done = 1;
        return;
    }
    json_t *rest = json_array();
    for (size_t j = 0; j < d->n_objectives; j++)
        if (!metric_set_find(values, d->obj_names[j]))
            add_name(rest, d->obj_names[j]);
    for (size_t c = 0; c < d->n_constraints; c++)
        if (!metric_set_find(values, d->con_metric[c]))
            add_name(rest, d->con_metric[c]);
    *next = text_of(rest);
}
