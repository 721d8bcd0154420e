/*
 * core/autoalgo.h - the rule behind "algorithm": {"name": "auto"}: from
 * what a study definition says about itself (its space, objectives,
 * constraints and budget) to one of hpod's algorithm configurations, with
 * the case that decided it.
 *
 * The rule is two steps: autoalgo_case classifies the features into one
 * case; autoalgo_rows (autoalgo.c) holds, per case, the configuration and
 * the measured figure behind it (docs/benchmarks.md), one line each, so a
 * better method found later changes one line. study/auto.c writes the
 * sentence a study records. Pure: no I/O.
 */
#ifndef HPOD_CORE_AUTOALGO_H
#define HPOD_CORE_AUTOALGO_H

#include <stddef.h>

/* auto chooses a graph (GP-Hedge's graph arm, ehvi's graph surrogate) only
 * up to this many candidates: a graph holds n×n matrices and factorizes
 * over the unlabeled nodes (O(n³) once per process and study; graph.h
 * GRAPH_MAX_NODES is the hard limit), and both were measured on tables of
 * at most 767 rows. Above it the GP alone (so_huge) or ehvi/gp (mo_huge).
 * It is a bound on memory, not a performance key: the rule has no size
 * split below it, because none survived leave-one-table-out
 * (docs/auto.md). */
#define AUTOALGO_GRAPH_MAX 1000

/* What the rule reads of a study definition. */
struct autoalgo_features {
    size_t n_params;      /* >= 1 */
    size_t n_categorical; /* parameters with a list of choices */
    size_t n_candidates;  /* 0: continuous space (no candidates) */
    size_t n_objectives;  /* >= 1 */
    size_t n_constraints;
    int decoupled;    /* 1: a constraint is measured apart (decoupled) */
    int warm_start;   /* 1: the study starts from a source (warm_start) */
    long long budget; /* trials the study may ask for; < 0: none given */
    int init;         /* random trials before any model decides */
};

/* The cases, in the order autoalgo_case tests them. */
enum autoalgo_case {
    AUTOALGO_WARM_START = 0, /* 1 objective, no constraints, warm_start */
    AUTOALGO_TINY_BUDGET,    /* budget <= init: no model ever decides */
    AUTOALGO_MO_FINITE,      /* >= 2 objectives, finite <= GRAPH_MAX */
    AUTOALGO_MO_HUGE,        /* >= 2 objectives, finite > GRAPH_MAX */
    AUTOALGO_MO_CONTINUOUS,  /* >= 2 objectives, no candidates */
    AUTOALGO_DECOUPLED,      /* 1 objective, a decoupled constraint */
    AUTOALGO_CONSTRAINED,    /* 1 objective with constraints */
    AUTOALGO_SO_FINITE,      /* 1 objective, finite <= GRAPH_MAX */
    AUTOALGO_SO_HUGE,        /* 1 objective, finite > GRAPH_MAX */
    AUTOALGO_CONTINUOUS,     /* 1 objective, no candidates */
    AUTOALGO_N_CASES
};

/* The methods the rule may choose (each an algorithm name of a study). */
enum autoalgo_method {
    AUTOALGO_RANDOM = 0,
    AUTOALGO_GREEDY,
    AUTOALGO_GP,
    AUTOALGO_GRAPH,
    AUTOALGO_EHVI
};

/* A chosen configuration. kernel: enum kernel_kind; acquisition: gp 0 ei,
 * 1 pi, 2 ucb, 3 nei; graph 0 ei, 1 eif (as struct algo_def); surrogate
 * (ehvi): enum mobo_surrogate; lengthscale_min (gp): 0 for the default;
 * trust_region (ehvi): K of its trust region, (gp, finite spaces) the
 * divisor of its trust region (sampler_input.trust_div), 0 for none;
 * lengthscale_prior (gp): the median of the lengthscales' log-normal
 * prior, 0 for none; front_reference (ehvi): the margin of EHVI's
 * reference at the observed front (core/mobo.h front_ref), 0 for the
 * study's reference; hedge (gp, finite spaces): 1 for GP-Hedge over the
 * GP and graph EI (the study option "hedge", sampler.h SAMPLER_V_HEDGE).
 * Fields a method does not use are 0. */
struct autoalgo_config {
    enum autoalgo_method method;
    int kernel;
    int acquisition;
    int surrogate;
    double lengthscale_min;
    int trust_region;
    double lengthscale_prior;
    double front_reference;
    int gp_blend; /* ehvi/graph: core/mobo.h gp_blend (enum mobo_blend) */
    int hedge;
    int trust_shape; /* ehvi: core/mobo.h trust_shape (enum mobo_trust_shape) */
};

/* One case of the rule: its configuration and why (static text for the
 * study's reason: one clause a user understands; the figures behind it are
 * in docs/auto.md). */
struct autoalgo_row {
    struct autoalgo_config config;
    const char *evidence;
};

extern const struct autoalgo_row autoalgo_rows[AUTOALGO_N_CASES];

/* autoalgo_case - the case f falls in (f borrowed, never NULL). */
enum autoalgo_case autoalgo_case(const struct autoalgo_features *f);

/*
 * autoalgo_choose - the configuration for f: autoalgo_rows[autoalgo_case(f)]
 * into *out; returns the case.
 */
enum autoalgo_case autoalgo_choose(const struct autoalgo_features *f,
                                   struct autoalgo_config *out);

/* The short code of a case ("so_finite", ...), for the reason and logs. */
const char *autoalgo_case_code(enum autoalgo_case c);

#endif
