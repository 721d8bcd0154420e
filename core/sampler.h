/*
 * core/sampler.h - picks the next configuration of a study.
 *
 * The handler gathers the study's history (completed trials with their
 * objective, oriented so that larger is better; pending trials) and, for
 * finite studies, the candidates with a flag for those already taken; the
 * sampler chooses. Every choice is a function of (seed, issue number,
 * history) only, so any process, cold or warm, gives the same answer.
 */
#ifndef HPOD_SAMPLER_H
#define HPOD_SAMPLER_H

#include <stddef.h>

#include "core/space.h"
#include "common/status.h"

enum sampler_kind {
    SAMPLER_RANDOM = 0,
    SAMPLER_GP,
    SAMPLER_GRAPH,
    SAMPLER_GREEDY
};

/*
 * Optional per-study state a caller may keep between calls (a per-process
 * cache): the graph over a finite study's candidates and its factor. The
 * answer never depends on it (a cold state gives the same choice up to
 * round-off at 1e-9); it only saves the O(n²) graph build and the O(u³)
 * factorization. Not thread-safe: one caller at a time.
 */
struct sampler_state;
struct sampler_state *sampler_state_create(void);
void sampler_state_destroy(struct sampler_state *s); /* accepts NULL */

struct sampler_input {
    const struct space *space;
    enum sampler_kind kind;
    unsigned long long seed;
    int seq;         /* issue number of the trial being chosen (0-based) */
    int init;        /* random choices before a model is used */
    int kernel;      /* enum kernel_kind */
    int acquisition; /* gp: 0 ei, 1 pi, 2 ucb; graph: 0 ei, 1 eif */
    /* Finite studies: n_cand candidates (raw, n_cand × n_params) and the
     * ones already held by a trial. n_cand == 0: continuous space. */
    const double *cand_raw;
    const unsigned char *cand_used;
    size_t n_cand;
    /* Observations: raw configurations and values (larger is better). For
     * finite studies obs_cand/pend_cand give the candidate index. */
    const double *obs_raw;
    const double *obs_y;
    const size_t *obs_cand;
    size_t n_obs;
    const double *pend_raw;
    const size_t *pend_cand;
    size_t n_pend;
    struct sampler_state *state; /* may be NULL */
};

/*
 * sampler_next - chooses one configuration: raw (n_params) receives it and,
 * for finite studies, *cand its candidate index. Returns HPOD_ENOTFOUND if
 * a finite study has no candidate left, HPOD_EINVAL on inconsistent input.
 * A model that cannot be fitted (numerically) falls back to a random
 * choice rather than failing the request.
 */
enum hpod_status sampler_next(const struct sampler_input *in, double *raw,
                              size_t *cand);

/*
 * sampler_normal_scores - the normal scores of y (n values, borrowed):
 * z[i] = Φ⁻¹(r_i / n), r_i = #{j: y_j < y_i} + #{j: y_j = y_i}/2 the
 * mid-rank (ties share a score; n = 1 gives 0). Monotone in y and
 * symmetric about 0; what graph EI and the GP model instead of the raw
 * values (core/sampler.c, ei_scores and gp_model). z (n, caller's) may
 * not alias y. O(n²).
 */
void sampler_normal_scores(const double *y, size_t n, double *z);

#endif
