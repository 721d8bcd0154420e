/*
 * store/model.c - row structs: names, cleanup, derived study state.
 */
#include "store/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/name.h"

static const char *state_names[TRIAL_NSTATES] = {
    "pending", "running", "completed", "failed", "pruned", "paused", "waiting"};
static const char *origin_names[ORIGIN_N] = {"suggested", "enqueued", "added"};

const char *
trial_state_name(enum trial_state s)
{
    return (unsigned)s < TRIAL_NSTATES ? state_names[s] : "unknown";
}

int
trial_state_parse(const char *s)
{
    for (int i = 0; s && i < TRIAL_NSTATES; i++)
        if (strcmp(s, state_names[i]) == 0)
            return i;
    return -1;
}

const char *
trial_origin_name(enum trial_origin o)
{
    return (unsigned)o < ORIGIN_N ? origin_names[o] : "unknown";
}

int
trial_origin_parse(const char *s)
{
    for (int i = 0; s && i < ORIGIN_N; i++)
        if (strcmp(s, origin_names[i]) == 0)
            return i;
    return -1;
}

void
study_clear(struct study *s)
{
    if (!s)
        return;
    free(s->name);
    free(s->definition);
    free(s->benchmark);
    free(s->created_at);
    free(s->last_activity);
    free(s->lab);
    free(s->state);
    free(s->metadata);
    free(s->created_by_note);
    memset(s, 0, sizeof *s);
}

int
metric_name_ok(const char *s)
{
    return hpod_name_ok(s, METRIC_NAME_MAX);
}

void
metric_set_add(struct metric_set *s, const char *name, double value)
{
    size_t i = s->n;
    s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    while (i > 0 && strcmp(s->v[i - 1].name, name) > 0) {
        s->v[i] = s->v[i - 1];
        i--;
    }
    snprintf(s->v[i].name, sizeof s->v[i].name, "%s", name);
    s->v[i].value = value;
    s->n++;
}

const double *
metric_set_find(const struct metric_set *s, const char *name)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i].value;
    return NULL;
}

double
metric_set_get(const struct metric_set *s, const char *name)
{
    const double *v = metric_set_find(s, name);
    return v ? *v : NAN;
}

void
metric_set_clear(struct metric_set *s)
{
    if (!s)
        return;
    free(s->v);
    memset(s, 0, sizeof *s);
}

void
trial_clear(struct trial *t)
{
    if (!t)
        return;
    free(t->params);
    free(t->metadata);
    free(t->worker);
    metric_set_clear(&t->values);
    for (size_t i = 0; i < t->n_steps; i++) {
        metric_set_clear(&t->steps[i].values);
        free(t->steps[i].checkpoint);
    }
    free(t->steps);
    free(t->reason);
    free(t->excluded_reason);
    free(t->excluded_by);
    free(t->excluded_at);
    free(t->lease_expires_at);
    free(t->created_at);
    free(t->updated_at);
    memset(t, 0, sizeof *t);
}

void
trials_drop_excluded(struct trial *t, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (t[i].excluded) {
            trial_clear(&t[i]);
            continue;
        }
        if (k != i) {
            t[k] = t[i];
            memset(&t[i], 0, sizeof t[i]);
        }
        k++;
    }
    *n = k;
}

const char *
trial_checkpoint(const struct trial *t)
{
    for (size_t i = t->n_steps; i-- > 0;)
        if (t->steps[i].checkpoint)
            return t->steps[i].checkpoint;
    return NULL;
}

void
trials_free(struct trial *t, size_t n)
{
    if (!t)
        return;
    for (size_t i = 0; i < n; i++)
        trial_clear(&t[i]);
    free(t);
}

long long
study_issued(const struct study *s)
{
    long long all = 0;
    for (int i = 0; i < TRIAL_NSTATES; i++)
        all += s->counts[i];
    return all - s->n_expired - s->n_added;
}

long long
study_taken(const struct study *s)
{
    return study_issued(s) + s->n_added;
}

int
study_exhausted(const struct study *s)
{
    return (s->budget >= 0 && study_issued(s) >= s->budget) ||
           (s->n_candidates >= 0 && study_taken(s) >= s->n_candidates);
}

long long
study_live(const struct study *s)
{
    return s->counts[TRIAL_PENDING] + s->counts[TRIAL_RUNNING];
}

int
study_done(const struct study *s)
{
    return study_exhausted(s) && study_live(s) == 0 &&
           s->counts[TRIAL_PAUSED] == 0 && s->counts[TRIAL_WAITING] == 0;
}
