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
 * Variants of the GP sampler (flags of sampler_input.variant; 0 is the
 * method as it always was). Studies reach SAMPLER_V_FLOOR through the
 * acquisition "nei" (3); the others are hpod-bench's, kept so that the
 * variants that lost can be measured again (docs/sampler-nei.md).
 * SAMPLER_V_NOISY: EI on the predicted observation (latent variance plus
 *   the fitted noise), not on the latent function.
 * SAMPLER_V_FLOOR: the same with the noise at least SAMPLER_NEI_FLOOR
 *   in standardized units: a row the model thinks equal to
 *   the incumbent (a near-duplicate, which fits drive to noise ~1e-6)
 *   is still worth its noise.
 * SAMPLER_V_MIX (finite spaces): the GP's acquisition rank plus graph
 *   EI's rank among the free candidates, the lowest sum chosen.
 */
#define SAMPLER_V_NOISY 1u
#define SAMPLER_V_FLOOR 2u
#define SAMPLER_V_MIX 4u
/* SAMPLER_V_TR (finite spaces, a trust region in the manner of TuRBO,
 * Eriksson et al., NeurIPS 2019, on the candidate list): the GP's argmax
 * only among the k candidates nearest the best observation
 * (trust_region_best, core/trust_region.h), k = n_cand / SAMPLER_TR_DIV
 * doubled for every SAMPLER_TR_TAU observations after that best one.
 * hpod-bench's BO_NEITR_M (docs/sampler-nei.md). */
#define SAMPLER_V_TR 8u
#define SAMPLER_TR_DIV 8
#define SAMPLER_TR_TAU 4
/* SAMPLER_V_LSPRIOR: the GP's lengthscales fitted by MAP under a
 * log-normal prior (gp_fit_options.ls_prior_*), median SAMPLER_LSP_MEDIAN
 * (the unit cube's width: a parameter matters across its range unless the
 * data say otherwise) and log sd SAMPLER_LSP_SD. hpod-bench's
 * BO_NEILSP_M. */
#define SAMPLER_V_LSPRIOR 16u
/* SAMPLER_V_HEDGE (finite spaces, GP; the study option "hedge"): GP-Hedge
 * over this GP and graph EI (core/hedge.h has the method).
 * SAMPLER_V_HEDGEMAX: the arm of the larger gain (ties to the GP), no draw. */
#define SAMPLER_V_HEDGE 32u
#define SAMPLER_V_HEDGEMAX 64u
/* SAMPLER_V_HEDGEARD (with SAMPLER_V_HEDGE or SAMPLER_V_HEDGEMAX): the
 * graph arm's kNN graph and edge weights on the GP arm's learned metric,
 * d² = Σ_k ((x_k − y_k)/ℓ_k)² with ℓ the lengthscales of the GP arm's
 * kept model at that step (graph_ls below; the plain encoded distance
 * while the chain has no model). SAMPLER_V_ARDONLY (hpod-bench only):
 * always the graph arm, i.e. graph EI on the GP's metric alone. */
#define SAMPLER_V_HEDGEARD 128u
#define SAMPLER_V_ARDONLY 256u
/* SAMPLER_V_HEDGEOBS (with SAMPLER_V_HEDGE; the study option
 * "hedge_judge": "observed"): the hedge's gains judge a nominee fully only
 * if it was observed at its step (core/hedge.h). */
#define SAMPLER_V_HEDGEOBS 512u
#define SAMPLER_LSP_MEDIAN 1.0
#define SAMPLER_LSP_SD 1.0
/* "nei" (SAMPLER_V_FLOOR, and graph EI's acquisition 2): the noise
 * variance EI adds to the latent one is at least this, in the GP's
 * standardized units (a twentieth of the normal scores' variance). 0.01,
 * 0.05, 0.1 and 0.2 were measured on the NMT tables
 * (docs/sampler-nei.md); 0.05 was best on four of six. */
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
    /* GP on finite studies: the trust region's divisor (SAMPLER_V_TR with
     * n_cand / trust_div instead of n_cand / SAMPLER_TR_DIV; 0: only the
     * flag's) and the median of the lengthscales' log-normal prior
     * (SAMPLER_V_LSPRIOR with this median; 0: only the flag's). */
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
    /* Graph EI on finite studies: the metric's per-dimension lengthscales
     * (dim values > 0, encoded units; each encoded coordinate is divided
     * by its ℓ before the graph is built); NULL: the encoded distance. */
    const double *graph_ls;
    /* Optional output (NULL: nothing recorded, no cost); the caller
     * clears it (sampler_explain_clear) after use. */
    struct sampler_explain *explain;
};

#endif
