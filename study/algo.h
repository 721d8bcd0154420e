/*
 * study/algo.h - the "algorithm" section of a study definition: the
 * sampler that proposes configurations (random, gp, graph, greedy, ehvi,
 * asha, multistage) and its settings, parsed from JSON and normalized.
 */
#ifndef HPOD_STUDY_ALGO_H
#define HPOD_STUDY_ALGO_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"

/* Most trials a study (or a multistage stage) may ask for. */
#define STUDY_MAX_BUDGET 10000000
/* The largest ehvi "front_reference" (a margin in ranges of the values). */
#define ALGO_FRONT_REF_MAX 100.0

enum algo_name {
    ALGO_RANDOM = 0,
    ALGO_GP,
    ALGO_GRAPH,
    ALGO_GREEDY,
    ALGO_EHVI,
    ALGO_ASHA,
    ALGO_MULTISTAGE
};
#define ALGO_COUNT (ALGO_MULTISTAGE + 1)

/* Most stages of a multistage study. */
#define MODEL_MAX_STAGES 16

struct algo_def {
    enum algo_name name;
    unsigned long long seed;
    int kernel;      /* enum kernel_kind */
    int acquisition; /* gp: 0 ei, 1 pi, 2 ucb, 3 nei; graph: 0 ei, 1 eif */
    double ls_min;   /* gp: the lengthscales' lower bound (0: the default) */
    /* gp: trust_region, sampler_input.trust_div (0: off); and
     * lengthscale_prior, the median of the lengthscales' log-normal prior
     * (sampler_input.ls_prior; 0: none). */
    long long gp_trust;
    double ls_prior;
    /* gp, finite spaces: "hedge", GP-Hedge over this GP and graph EI
     * (sampler_input.variant SAMPLER_V_HEDGE); 0: off. */
    int gp_hedge;
    int init;      /* random points before the model takes over */
    int surrogate; /* ehvi: 0 gp, 1 graph */
    /* ehvi trust_region: core/mobo.h trust_k of finite studies (0: off). */
    long long ehvi_trust;
    /* ehvi front_reference: core/mobo.h front_ref (0: the study's
     * reference). */
    double ehvi_front_ref;
    /* ehvi gp_blend: core/mobo.h gp_blend (enum mobo_blend: 0 none,
     * 1 first; graph surrogate). */
    int ehvi_gp_blend;
    /* ehvi trust_shape: core/mobo.h trust_shape (enum mobo_trust_shape:
     * 0 nearest, 1 steps; needs trust_region > 0). */
    int ehvi_trust_shape;
    /* asha: rungs r, r+u, ... <= R steps, reduction p, keep to R; base
     * sampler for new configurations (ALGO_RANDOM/GP/GRAPH); mode 0
     * promotion (paused, may resume), 1 stopping (pruned). */
    long long asha_r, asha_u, asha_R, asha_p, asha_keep;
    int base, asha_mode;
    /* multistage: ms_n stages, stage i trains ms_trials[i] configurations
     * to ms_steps[i] steps (strictly increasing); the best ms_k of a stage
     * seed the next; base/kernel/acquisition/init as for asha. */
    size_t ms_n;
    long long ms_steps[MODEL_MAX_STAGES], ms_trials[MODEL_MAX_STAGES];
    long long ms_k;
};

/*
 * algo_from_json - validates an "algorithm" object (a borrowed; NULL means
 * random with a fresh seed) and fills algo; *norm receives a new reference
 * to the normalized object (defaults filled in). A study's omitted
 * algorithm is auto instead (study/auto.h), resolved by study/def.c.
 */
enum hpod_status algo_from_json(json_t *a, struct algo_def *algo, json_t **norm,
                                struct hpod_err *err);

/* The name of n as a study writes it ("gp"); "other" for none. */
const char *algo_label(enum algo_name n);

#endif
