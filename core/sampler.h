/*
 * core/sampler.h - picks the next configuration of a study.
 *
 * The handler gathers the study's history (completed trials with their
 * objective, oriented so that larger is better; pending trials) and, for
 * finite studies, the candidates with a flag for those already taken; the
 * sampler chooses. Every choice is a function of (seed, issue number,
 * history, and for the GP the study's kept model) only, so any process,
 * cold or warm, gives the same answer.
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

/*
 * The GP's hyperparameters, kept between the choices of one study (hpod
 * stores them in PostgreSQL, a simulation in a local) so that a choice
 * refits only when gp_refit_due (core/gp.h) says so and otherwise just
 * conditions with them. The choice is a function of (seed, issue number,
 * history, this record): any process holding the same record chooses the
 * same. sampler_next reads it and, when it refits, rewrites it and sets
 * changed (the caller clears changed once it stored the record).
 */
struct sampler_gp_model {
    int valid;      /* 0: no fit yet */
    int kernel;     /* enum kernel_kind of the fit */
    size_t n_fit;   /* observations the fit saw */
    double lml_fit; /* its log marginal likelihood per observation */
    size_t n_hyper; /* dim + 2 */
    double *hyper;  /* owned: ℓ_1..ℓ_dim, σ_f², σ_n² (standardized y) */
    int changed;    /* set when sampler_next refitted */
};

/* Frees m's array and zeroes it; accepts NULL. */
void sampler_gp_model_clear(struct sampler_gp_model *m);

/*
 * sampler_gp_model_set - copies n_hyper values into m (replacing its array)
 * with the other fields; returns HPOD_EINVAL if a value is not finite and
 * positive or n_hyper < 3.
 */
enum hpod_status sampler_gp_model_set(struct sampler_gp_model *m, int kernel,
                                      size_t n_fit, double lml_fit,
                                      const double *hyper, size_t n_hyper);

/*
 * What the sampler knew when it chose (optional output of sampler_next,
 * for GET /v1/trials/{id}/explain; it cannot be recomputed later). The
 * model's numbers are in its own units: the GP and graph EI model the
 * normal scores of the objective (sampler_normal_scores), graph EIF a
 * propagated {0,1} "is among the best" label. NAN: not defined for that
 * chooser (the caller writes null, never a made-up number).
 */
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
};

/* Frees e's array and zeroes it (chooser random); accepts NULL. */
void sampler_explain_clear(struct sampler_explain *e);

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
 * Variants of the GP sampler (flags of sampler_input.variant; 0 is the
 * method as it always was). Studies reach SAMPLER_V_FLOOR through the
 * acquisition "nei" (3); the others are hpod-bench's, kept so that the
 * variants that lost can be measured again (docs/sampler-nei.md).
 * SAMPLER_V_NOISY: EI on the predicted observation (latent variance plus
 *   the fitted noise), not on the latent function.
 * SAMPLER_V_FLOOR: the same with the noise at least SAMPLER_NEI_FLOOR
 *   (sampler.c) in standardized units: a row the model thinks equal to
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
 * only among the k candidates nearest (encoded space, ties to the lower
 * index; used ones count) the best observation (the first of the largest
 * value), k = n_cand / SAMPLER_TR_DIV doubled for every SAMPLER_TR_TAU
 * observations after that best one (in obs order: trials that did not
 * improve on it); over all candidates once k >= n_cand or when none of
 * the k is free. hpod-bench's BO_NEITR_M (docs/sampler-nei.md). */
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
 * (Hoffman, Brochu & de Freitas, UAI 2011) over two arms, arm 0 this GP
 * as configured and arm 1 graph EI (Matérn, acquisition ei). At each
 * model step t (init <= t <= n) both arms' nominees are those they would
 * choose from the first t observations (only they used, no pending; the GP arm
 * with its own kept-model chain, from the defaults at t = init, each step's fit
 * from rng_seed2(seed, t)); an arm's gain is the sum over its nominees at
 * t < n of the posterior mean there of that chain's GP conditioned on all
 * n observations (normal scores, standardized units), weighted by
 * SAMPLER_HEDGE_DISCOUNT^(n-1-t) (a discounted Hedge: which arm suits the
 * search changes as it moves from exploring to exploiting). The choice is arm
 * 1's nominee at n with probability 1/(1 + exp(η·(gain0 - gain1))),
 * η = SAMPLER_HEDGE_ETA, drawn from rng_seed2(seed ^ SAMPLER_HEDGE_STREAM,
 * seq), else arm 0's; the nominees at n are computed from the input as it
 * is (pending trials, every held candidate; graph EI labels only the
 * observations, so that its factor is the replay's). The nominees are cached in
 * the sampler state (checked against the observations, so never changing an
 * answer); a cold process replays them: n GP and n graph choices.
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
 * "hedge_judge": "observed"): the gains judge a nominee at t fully only if
 * it is the observation at t (obs_cand[t] == the nominee; both arms' when
 * they agree), a displaced one at SAMPLER_HEDGE_DISPLACED times its
 * posterior mean, and the discount is SAMPLER_HEDGE_DISCOUNT_OBS. The GP's
 * mean is high at the GP arm's displaced nominees by construction, so
 * judging them fully favours the GP arm over graph EI's neighbour walk
 * (docs/sampler-nei.md, session 25, second round); with mostly one full
 * nominee per step, the memory is longer. */
#define SAMPLER_V_HEDGEOBS 512u
#define SAMPLER_HEDGE_DISPLACED 0.25
#define SAMPLER_HEDGE_DISCOUNT_OBS 0.9
#define SAMPLER_HEDGE_ETA 1.0
#define SAMPLER_HEDGE_DISCOUNT 0.8
#define SAMPLER_HEDGE_STREAM 0x6865646765ULL
#define SAMPLER_LSP_MEDIAN 1.0
#define SAMPLER_LSP_SD 1.0

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
 * sampler_ard_scale - divides column k of u (n × dim, row-major, in place)
 * by ls[k] (> 0), so that the Euclidean distance between two rows becomes
 * the ARD distance d² = Σ_k ((x_k − y_k)/ℓ_k)² (SAMPLER_V_HEDGEARD's
 * graph metric). O(n·dim).
 */
void sampler_ard_scale(double *u, size_t n, size_t dim, const double *ls);

/*
 * sampler_normal_scores - the normal scores of y (n values, borrowed):
 * z[i] = Φ⁻¹(r_i / n), r_i = #{j: y_j < y_i} + #{j: y_j = y_i}/2 the
 * mid-rank (ties share a score; n = 1 gives 0). Monotone in y and
 * symmetric about 0; what graph EI and the GP model instead of the raw
 * values (core/sampler.c, ei_scores and gp_model). z (n, caller's) may
 * not alias y. O(n log n) (one sort).
 */
void sampler_normal_scores(const double *y, size_t n, double *z);

#endif
