/*
 * study/pareto.c - a study's Pareto front; contracts in study/pareto.h.
 */
#include "study/pareto.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "core/pareto.h"
#include "store/study_store.h"
#include "store/trial_store.h"

void
study_pareto_reference(const struct study_def *d, const double *y, size_t k,
                       int oriented, double *ref)
{
    size_t m = d->n_objectives;
    int sense[MODEL_MAX_OBJECTIVES];
    json_t *given = json_object_get(d->def, "reference");

    for (size_t j = 0; j < m; j++)
        sense[j] = oriented ? 1 : d->obj_sense[j];
    pareto_reference(y, k, m, sense, PARETO_REF_MARGIN, ref);
    for (size_t j = 0; j < m; j++) {
        json_t *v = json_object_get(given, d->obj_names[j]);
        if (json_is_number(v))
            ref[j] = json_number_value(v) * (oriented ? d->obj_sense[j] : 1);
    }
}

/*
 * A hypervolume as JSON can carry it: one that overflows (values near
 * ±DBL_MAX) saturates at DBL_MAX, which it is at least, rather than
 * reading as nothing; NaN (no volume to speak of) is 0.
 */
static double
finite_volume(double v)
{
    if (isnan(v))
        return 0.0;
    return isinf(v) ? DBL_MAX : v;
}

/* A completed trial's place in completion order: the sort key is in the
 * element, so the comparison needs no shared state. */
struct completion {
    const char *at; /* updated_at */
    long long id;
    size_t pos; /* index among the completed trials */
};

static int
cmp_completion(const void *a, const void *b)
{
    const struct completion *x = a, *y = b;
    int c = strcmp(x->at, y->at);
    if (c)
        return c;
    return (x->id > y->id) - (x->id < y->id);
}

/* The scan of the completed trials that carry every objective. */
struct scan {
    double *y, *yf; /* k × m all, kf × m feasible (as reported) */
    size_t *which;  /* k: index in rows */
    size_t *fidx;   /* kf: index among the k */
    int *feasible;  /* k */
    size_t k, kf, m;
};

static void
scan_rows(const struct study_def *d, const struct trial *rows, size_t n,
          struct scan *sc)
{
    size_t m = d->n_objectives;

    sc->m = m;
    sc->y = xmalloc((n ? n : 1) * m * sizeof *sc->y);
    sc->yf = xmalloc((n ? n : 1) * m * sizeof *sc->yf);
    sc->which = xmalloc((n ? n : 1) * sizeof *sc->which);
    sc->fidx = xmalloc((n ? n : 1) * sizeof *sc->fidx);
    sc->feasible = xcalloc(n ? n : 1, sizeof *sc->feasible);
    for (size_t i = 0; i < n; i++) {
        const struct metric_set *vals = &rows[i].values;
        size_t j, k = sc->k;
        for (j = 0; j < m; j++) {
            const double *v = metric_set_find(vals, d->obj_names[j]);
            if (!v)
                break;
            sc->y[k * m + j] = *v;
        }
        if (j < m)
            continue;
        sc->feasible[k] = def_trial_feasible(d, vals);
        if (sc->feasible[k]) {
            memcpy(sc->yf + sc->kf * m, sc->y + k * m, m * sizeof *sc->y);
            sc->fidx[sc->kf++] = k;
        }
        sc->which[sc->k++] = i;
    }
}

static void
scan_clear(struct scan *sc)
{
    free(sc->y);
    free(sc->yf);
    free(sc->which);
    free(sc->fidx);
    free(sc->feasible);
}

/* Rank among the feasible trials; infeasible ones get -1. */
static void
build_ranks(const struct study_def *d, const struct trial *rows,
            const struct scan *sc, struct study_pareto_answer *out)
{
    int *frank = xcalloc(sc->kf ? sc->kf : 1, sizeof *frank);

    out->ranks = xcalloc(sc->k ? sc->k : 1, sizeof *out->ranks);
    pareto_rank(sc->yf, sc->kf, sc->m, d->obj_sense, frank);
    for (size_t i = 0; i < sc->k; i++) {
        out->ranks[i].trial = rows[sc->which[i]].id;
        out->ranks[i].feasible = sc->feasible[i];
        out->ranks[i].rank = -1;
    }
    for (size_t f = 0; f < sc->kf; f++)
        out->ranks[sc->fidx[f]].rank = frank[f];
    free(frank);
}

/* Hypervolume of the feasible trials completed so far, after each
 * completion; the same reference point throughout. */
static void
build_history(const struct study_def *d, const struct trial *rows,
              const struct scan *sc, const double *ref,
              struct study_pareto_answer *out)
{
    size_t k = sc->k, m = sc->m, na = 0;
    struct completion *ord = xmalloc((k ? k : 1) * sizeof *ord);
    double *acc = xmalloc((k ? k : 1) * m * sizeof *acc);

    out->history = xcalloc(k ? k : 1, sizeof *out->history);
    for (size_t i = 0; i < k; i++) {
        const struct trial *t = &rows[sc->which[i]];
        ord[i].at = t->updated_at ? t->updated_at : "";
        ord[i].id = t->id;
        ord[i].pos = i;
    }
    qsort(ord, k, sizeof *ord, cmp_completion);
    for (size_t i = 0; i < k; i++) {
        size_t pos = ord[i].pos;
        if (sc->feasible[pos]) {
            memcpy(acc + na * m, sc->y + pos * m, m * sizeof *acc);
            na++;
        }
        double h = pareto_hypervolume(acc, na, m, d->obj_sense, ref);
        out->history[i].n_completed = i + 1;
        out->history[i].trial = ord[i].id;
        out->history[i].hypervolume = finite_volume(h);
    }
    free(ord);
    free(acc);
}

void
study_pareto_build(const struct study_def *d, const struct trial *rows,
                   size_t n, int want_ranks, int want_history,
                   struct study_pareto_answer *out)
{
    struct scan sc = {0};

    scan_rows(d, rows, n, &sc);
    out->n_completed = sc.k;
    out->n_feasible = sc.kf;
    out->front = xmalloc((n ? n : 1) * sizeof *out->front);
    out->n_front = 0;
    out->hypervolume = 0.0;
    out->has_reference = 0;
    if (sc.k > 0) {
        size_t *front = xmalloc((n ? n : 1) * sizeof *front);
        study_pareto_reference(d, sc.y, sc.k, 0, out->reference);
        out->has_reference = 1;
        out->n_front = pareto_front(sc.yf, sc.kf, sc.m, d->obj_sense, front);
        for (size_t f = 0; f < out->n_front; f++)
            out->front[f] = sc.which[sc.fidx[front[f]]];
        free(front);
        out->hypervolume = finite_volume(pareto_hypervolume(
            sc.yf, sc.kf, sc.m, d->obj_sense, out->reference));
    }
    if (want_ranks)
        build_ranks(d, rows, &sc, out);
    if (want_history)
        build_history(d, rows, &sc, out->reference, out);
    scan_clear(&sc);
}

enum hpod_status
study_pareto(struct db *db, long long study_id, int want_ranks,
             int want_history, struct study_pareto_answer *out,
             struct hpod_err *err)
{
    struct study s = {0};
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if ((st = study_store_get(db, study_id, &s, err)) != HPOD_OK ||
        (st = def_from_text(s.definition, &out->def, err)) != HPOD_OK ||
        (st = trial_store_list(db, study_id, TRIAL_COMPLETED, -1, 0, &out->rows,
                               &out->n_rows, NULL, err)) != HPOD_OK)
        goto out;
    trials_drop_excluded(out->rows, &out->n_rows);
    study_pareto_build(&out->def, out->rows, out->n_rows, want_ranks,
                       want_history, out);
out:
    study_clear(&s);
    return st;
}

void
study_pareto_clear(struct study_pareto_answer *a)
{
    if (!a)
        return;
    def_clear(&a->def);
    trials_free(a->rows, a->n_rows);
    free(a->front);
    free(a->ranks);
    free(a->history);
    memset(a, 0, sizeof *a);
}
