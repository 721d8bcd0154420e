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
#include "core/status.h"

enum sampler_kind {
    SAMPLER_RANDOM = 0,
    SAMPLER_GP,
    SAMPLER_GRAPH,
    SAMPLER_GREEDY
};

struct sampler_input {
    const struct space *space;
    enum sampler_kind kind;
    unsigned long long seed;
    int seq;  /* issue number of the trial being chosen (0-based) */
    int init; /* random choices before a model is used */
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
};

/*
 * sampler_next - chooses one configuration: raw (n_params) receives it and,
 * for finite studies, *cand its candidate index. Returns HPOD_ENOTFOUND if
 * a finite study has no candidate left, HPOD_EINVAL on inconsistent input.
 */
enum hpod_status sampler_next(const struct sampler_input *in, double *raw,
                              size_t *cand);

#endif
