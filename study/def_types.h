/*
 * study/def_types.h - the type of a parsed study definition, apart from
 * its parser (study/def.h), so that the parser's parts (study/params.h)
 * can fill it without a cycle of includes.
 */
#ifndef HPOD_STUDY_DEF_TYPES_H
#define HPOD_STUDY_DEF_TYPES_H

#include <jansson.h>
#include <stddef.h>

#include "core/space.h"
#include "study/algo.h"

#define MODEL_MAX_OBJECTIVES 8
#define MODEL_MAX_CONSTRAINTS 16

/*
 * The default cost of measuring a decoupled constraint, as a share of a
 * full training: a speed (GPU time per batch, memory) is stable after a
 * few hundred of a training's tens of thousands of updates (Beck et al.
 * 2016 measure it on a short run), so a tenth is generous; the
 * simulation (hpod-bench --decoupled) also shows 0.3.
 */
#define CONSTRAINT_PROBE_COST 0.1

struct study_def {
    json_t *def;        /* new reference: the normalized definition */
    json_t *candidates; /* new reference or NULL: normalized candidates */
    struct space space;
    const char **names; /* n_params, borrowed from def */
    json_t **choices;   /* n_params: the choices array, or NULL */
    /* optional[i]: parameter i joined the space after trials existed
     * ("added_in"): a configuration without it has it inactive. */
    unsigned char *optional;
    /* defaults[i]: the raw value a configuration without parameter i is
     * taken to have ("default", given when the parameter joined a study
     * with trials: PATCH /v1/studies/{id}); NaN: none. */
    double *defaults;
    /* Define-by-run (docs/trainer.md): a trial's params are only those it
     * asked for (POST /v1/trials/{id}/params), the others inactive. */
    int define_by_run;
    long long space_version; /* 1, then one more per change of the space */
    size_t n_objectives;
    const char *obj_names[MODEL_MAX_OBJECTIVES]; /* borrowed from def */
    int obj_sense[MODEL_MAX_OBJECTIVES];         /* +1 max, -1 min */
    /* Constraints: metric (borrowed from def) <= bound when is_max, else
     * metric >= bound; confidence for model recommendations. */
    size_t n_constraints;
    const char *con_metric[MODEL_MAX_CONSTRAINTS];
    double con_bound[MODEL_MAX_CONSTRAINTS];
    int con_is_max[MODEL_MAX_CONSTRAINTS];
    double con_confidence[MODEL_MAX_CONSTRAINTS];
    /* "decoupled": true: the metric may be measured apart from the
     * objectives, for con_cost (a share of a full training, in (0, 1];
     * 1 for a coupled constraint). core/decoupled.h. */
    int con_decoupled[MODEL_MAX_CONSTRAINTS];
    double con_cost[MODEL_MAX_CONSTRAINTS];
    struct algo_def algo;
    long long budget; /* -1: none */
    int lease_seconds;
    const char *name;      /* borrowed */
    const char *benchmark; /* borrowed or NULL */
    /* "warm_start": a source study id (0: none) or a benchmark name
     * (borrowed, NULL: none); at most one is set. */
    long long warm_study;
    const char *warm_benchmark;
    /* {"auto": true}: the study is chosen among the related ones
     * (warmstart_auto); warm_study is the one chosen, 0: none. */
    int warm_auto;
};

#endif
