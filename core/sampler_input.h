/*
 * core/sampler_input.h - what a single-objective choice reads: the
 * sampler's kinds, its variant flags, the per-study cache and struct
 * sampler_input. Shared by core/sampler (the dispatch) and the modules it
 * dispatches to: core/sampler_gp, core/sampler_graph and core/hedge.
 *
 * The handler gathers the study's history (completed trials with their
 * objective, oriented so that larger is better; pending trials) and, for
 * finite studies, the candidates with a flag for those already taken; the
 * sampler chooses. Every choice is a function of (seed, issue number,
 * history, and for the GP the study's kept model) only, so any process,
 * cold or warm, gives the same answer.
 */
#ifndef HPOD_SAMPLER_INPUT_H
#define HPOD_SAMPLER_INPUT_H

#include <stddef.h>

#include "core/compute_budget.h"
#include "core/graph_cache.h"
#include "core/sampler_explain.h"
#include "core/sampler_gp_model.h"
#include "core/space.h"

enum sampler_kind {
    SAMPLER_RANDOM = 0,
    SAMPLER_GP,
    SAMPLER_GRAPH,
    SAMPLER_GREEDY
};

/*
 * Optional per-study state a caller may keep between calls (a per-process
 * cache; sampler_state_create in core/sampler.h): each chooser's part,
 * allocated by that chooser on first use. The answer never depends on it
 * (a cold state gives the same choice up to round-off at 1e-9); it only
 * saves the O(n²) graph build, the O(u³) factorization and the GP's
 * factor. Not thread-safe: one caller at a time.
 */
struct sampler_gp_cache; /* core/sampler_gp.c */
struct hedge_cache;      /* core/hedge.c */
struct sampler_state {
    struct sampler_gp_cache *gp; /* the GP of the last kept-model choice */
    struct graph_cache graph;    /* the graph over the candidates */
    struct hedge_cache *hedge;   /* the hedge's replayed nominees */
};

/*
 * Variants (flags of sampler_input.variant; 0 is the plain method), the
 * study option "hedge":
 * SAMPLER_V_HEDGE (finite spaces, GP): GP-Hedge over this GP and graph EI
 *   (core/hedge.h has the method).
 * Variants that lost on the NMT tables were deleted once their figures
 * were written up (docs/sampler-nei.md, "Variants removed from the code").
 */
#define SAMPLER_V_HEDGE 32u
/* The trust region's divisor of the configuration hpod-bench and auto use
 * (sampler_input.trust_div: k = n_cand / trust_div candidates nearest the
 * best observation, doubled for every SAMPLER_TR_TAU observations after
 * it; core/trust_region.h), and the lengthscales' log-normal prior
 * (sampler_input.ls_prior: its median; log sd SAMPLER_LSP_SD): the unit
 * cube's width, a parameter matters across its range unless the data say
 * otherwise. */
#define SAMPLER_TR_DIV 8
#define SAMPLER_TR_TAU 4
#define SAMPLER_LSP_MEDIAN 1.0
#define SAMPLER_LSP_SD 1.0
/* "nei" (the GP's acquisition 3, graph EI's acquisition 2): the noise
 * variance EI adds to the latent one is at least this, in the GP's
 * standardized units (a twentieth of the normal scores' variance): a row
 * the model thinks equal to the incumbent (a near-duplicate, which fits
 * drive to noise ~1e-6) is still worth its noise. 0.01, 0.05, 0.1 and 0.2
 * were measured on the NMT tables (docs/sampler-nei.md); 0.05 was best on
 * four of six. */
#define SAMPLER_NEI_FLOOR 0.05

struct sampler_input {
    const struct space *space;
    enum sampler_kind kind;
    unsigned long long seed;
    int seq;          /* issue number of the trial being chosen (0-based) */
    int init;         /* random choices before a model is used */
    int kernel;       /* enum kernel_kind */
    int acquisition;  /* gp: 0 ei, 1 pi, 2 ucb, 3 nei; graph: 0 ei, 1 eif */
    unsigned variant; /* SAMPLER_V_* flags; 0: the plain method */
    /* GP: the lower bound of the fitted lengthscales (encoded units);
     * 0: gp.h's default (0.01). */
    double ls_min;
    /* Finite studies: the trust region's divisor (> 0: the choice only
     * among the n_cand / trust_div candidates nearest the best observation,
     * core/trust_region.h; 0: off). GP: the median of the lengthscales'
     * log-normal prior (> 0: MAP with log sd SAMPLER_LSP_SD; 0: ML-II). */
    int trust_div;
    double ls_prior;
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
    /* GP only: the study's kept hyperparameters (in/out); NULL refits on
     * every choice. */
    struct sampler_gp_model *gp_model;
    /* Transfer (core/transfer.h), GP on finite studies only: the source's
     * prior at each candidate (n_cand values, normal-score units; NULL:
     * none) and the transfer_rule of its weight. With a prior the GP
     * models the residual of the observations' normal scores from w times
     * the prior and scores w·prior + its mean; the initial design takes
     * the free candidate of largest prior instead of a random one. */
    const double *prior_cand;
    int prior_rule;
    /* Optional output (NULL: nothing recorded, no cost); the caller
     * clears it (sampler_explain_clear) after use. */
    struct sampler_explain *explain;
    /* The choice's work budget (core/compute_budget.h; NULL: unbounded):
     * the GP fit, the acquisition optimizer and the hedge's replay yield
     * when it is spent, answering the best found. */
    struct compute_budget *budget;
};

#endif
