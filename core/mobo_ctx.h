/*
 * core/mobo_ctx.h - what the mobo modules share: the models of one choice
 * (struct mobo_ctx: one surrogate per objective, one GP per constrained
 * metric, the incumbent front) built once, from which core/mobo_acq
 * scores the candidates, and the per-caller cache (struct mobo_state).
 * Contracts of the method: core/mobo.h.
 */
#ifndef HPOD_MOBO_CTX_H
#define HPOD_MOBO_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"
#include "core/graph_cache.h"
#include "core/mobo_input.h"
#include "core/rng.h"

struct gp;

/*
 * Random streams, all derived from (seed, seq): tag 0 (the trial's own
 * stream, as in core/sampler.h) draws the continuous candidates; the
 * others feed the GP fits (constraint c: two streams, 2c and 2c + 1 past
 * MOBO_TAG_CON) and the Monte Carlo draws, so that consuming more or fewer
 * numbers in one place never changes another.
 */
#define MOBO_TAG_MC 1u
#define MOBO_TAG_HVS 2u
#define MOBO_TAG_OBJ 0x100u
#define MOBO_TAG_CON 0x100000u

struct mobo_ctx {
    const struct mobo_input *in;
    size_t np, dim, m, n_con;
    struct gp **ogp;          /* m GPs (GP surrogate), else NULL */
    unsigned char *ogp_owned; /* 1: ogp[j] is ours (else the state's) */
    struct gp **cgp; /* n_con GPs; an entry is NULL if nobody reported */
    double *cbound;  /* n_con bounds, log-transformed under con_log */
    double *pend_mu; /* n_pend × m believed means of the pending trials */
    double *front;   /* n_front × m incumbent points */
    size_t n_front;
    double best; /* m = 1: the incumbent value, if has_best */
    int has_best;
    int *sense;  /* m entries of +1: everything is oriented */
    double *ref; /* m: in->ref, or the front's (mobo_input.front_ref) */
    struct rng mc;
    /* m > MOBO_EHVI_EXACT_MAX: MOBO_MC_SAMPLES scalarization directions
     * (MOBO_TAG_HVS), one per Monte Carlo draw, and the front's best
     * scalarized value under each (ehvi_hvs_mc). */
    double *lambda;
    double *hvs_best;
    /* 1 (mobo_next): P_c of a candidate is that of its observed value,
     * σ_c² plus the GP's noise variance (con_logpf). */
    int observed_pf;
};

/* The per-caller cache (core/mobo_input.h): the objective GPs (core/mobo_gp.c
 * owns the m entries of obj) and the graph over the candidates. */
struct mobo_obj_model;
struct mobo_state {
    size_t m;
    struct mobo_obj_model *obj;
    struct graph_cache graph;
};

/* x over in (borrowed for x's life): the objectives' reference, the Monte
 * Carlo stream; no model fitted yet. */
void mobo_ctx_init(struct mobo_ctx *x, const struct mobo_input *in);
/* Frees what x owns (its GPs, the state's excepted). */
void mobo_ctx_clear(struct mobo_ctx *x);

/*
 * mobo_ctx_check - the input checks every entry point shares: a space, a
 * known kernel, and the constraints' bounds and values (mobo_feasibility's
 * HPOD_EINVAL cases).
 */
enum hpod_status mobo_ctx_check(const struct mobo_input *in);

/* Fits one GP per constrained metric (mobo_feasibility's models) and sets
 * their bounds. HPOD_ENUMERIC if a GP cannot be fitted. */
enum hpod_status mobo_ctx_fit_constraints(struct mobo_ctx *x);

/* out[i] = Σ_c log P_c(u_i) for k encoded points: the latent P_c, or under
 * x->observed_pf that of the value a trial there would report. */
enum hpod_status mobo_ctx_con_logpf(const struct mobo_ctx *x, const double *u,
                                    size_t k, double *out);

/*
 * mobo_ctx_feasible_complete - indices (into the observations, n_obs room)
 * of the trials that reported every objective and count as feasible:
 * every constraint reported and met, or not reported and believed to hold
 * (P_c >= ½ at the trial; with no report of c at all, P_c is 1).
 */
enum hpod_status mobo_ctx_feasible_complete(const struct mobo_ctx *x,
                                            size_t *idx, size_t *count);

/*
 * mobo_ctx_incumbent - the incumbent: the feasible complete observations,
 * plus pending trials at their believed means (x->pend_mu, set by the
 * surrogates) when feasible with probability >= ½. m >= 2: the
 * non-dominated ones form x->front (and, past MOBO_EHVI_EXACT_MAX, the
 * scalarizations' directions); m = 1: x->best.
 */
enum hpod_status mobo_ctx_incumbent(struct mobo_ctx *x);

/* mobo_front (core/mobo.h), which mobo_greedy shares. */
enum hpod_status mobo_ctx_front(const struct mobo_input *in, size_t *idx,
                                size_t *n_front);

#endif
