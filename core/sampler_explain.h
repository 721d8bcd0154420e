/*
 * core/sampler_explain.h - what a sampler knew when it chose (optional
 * output of sampler_next and mobo_next, for GET /v1/trials/{id}/explain;
 * it cannot be recomputed later), and the ranking of scored points into a
 * pick and its runners-up that every chooser shares.
 *
 * The model's numbers are in its own units: the GP and graph EI model the
 * normal scores of the objective (core/normal_scores.h), graph EIF a
 * propagated {0,1} "is among the best" label. NAN: not defined for that
 * chooser (the caller writes null, never a made-up number).
 */
#ifndef HPOD_SAMPLER_EXPLAIN_H
#define HPOD_SAMPLER_EXPLAIN_H

#include <stddef.h>

#include "core/space.h"

enum sampler_chooser {
    SAMPLER_CHOSE_RANDOM = 0, /* a random study */
    SAMPLER_CHOSE_INIT,       /* random initial design of a model sampler */
    SAMPLER_CHOSE_FALLBACK,   /* random: the model could not be fitted */
    SAMPLER_CHOSE_MODEL,
    SAMPLER_CHOSE_GREEDY
};

#define SAMPLER_EXPLAIN_RUNNERS 4

struct sampler_explain_point {
    size_t cand;     /* finite: candidate index; else (size_t)-1 */
    double mean, sd; /* surrogate at the point (NAN: undefined) */
    double acq;      /* acquisition value (larger is better) */
};

struct sampler_explain {
    int chooser;          /* enum sampler_chooser */
    size_t n_obs, n_pend; /* what the model was given */
    double incumbent;     /* EI/PI incumbent in model units (NAN: none) */
    struct sampler_explain_point pick;
    size_t n_runners; /* next best distinct points, best first */
    struct sampler_explain_point runner[SAMPLER_EXPLAIN_RUNNERS];
    /* Continuous spaces: the runners-up's raw configurations,
     * n_runners × n_params, owned (sampler_explain_clear); else NULL. */
    double *runner_raw;
    /* SAMPLER_V_HEDGE: 1 when the hedge's graph-EI arm chose (pick and
     * runners-up are graph EI's), 0 otherwise. */
    int arm;
    /* 1 when the choice's work budget ended its search early (the pick is
     * the best found by then; core/compute_budget.h). */
    int budget_cut;
};

/* Frees e's array and zeroes it (chooser random); accepts NULL. */
void sampler_explain_clear(struct sampler_explain *e);

/*
 * sampler_explain_reset - forgets what a model wrote (e.g. a fallback
 * after a failed fit): chooser as given, no pick, runners or incumbent;
 * the observation counts are kept.
 */
void sampler_explain_reset(struct sampler_explain *e, int chooser);

/*
 * sampler_explain_rank - fills e->pick and e->runner from the n scores
 * (NaN and skip[i] excluded; ties to the lowest index, as acq_argmax):
 * pick = the argmax, runners the next SAMPLER_EXPLAIN_RUNNERS in
 * decreasing score. mean/var may be NULL (then NAN). Returns the pick's
 * index or n when none is eligible. O(n·R).
 */
size_t sampler_explain_rank(struct sampler_explain *e, const double *score,
                            const double *mean, const double *var, size_t n,
                            const unsigned char *skip);

/*
 * sampler_explain_rank_points - sampler_explain_rank over n encoded points
 * u (n × dim; may be NULL): a point equal to one already ranked is not a
 * runner-up again (random points and their refinements may coincide).
 */
size_t sampler_explain_rank_points(struct sampler_explain *e,
                                   const double *score, const double *mean,
                                   const double *var, size_t n,
                                   const unsigned char *skip, const double *u,
                                   size_t dim);

/*
 * sampler_explain_decode - for a choice among points that are not
 * candidates (continuous spaces): the runners-up's raw configurations,
 * decoded from the encoded points u (the indices sampler_explain_rank_points
 * wrote), into e->runner_raw; every cand then becomes (size_t)-1.
 */
void sampler_explain_decode(struct sampler_explain *e, const struct space *sp,
                            const double *u);

#endif
