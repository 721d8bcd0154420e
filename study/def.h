/*
 * study/def.h - JSON <-> C for every resource, with validation.
 *
 * The one place jansson meets the domain: a study definition is parsed and
 * checked field by field (the error names the JSON path of the offending
 * value), normalized (defaults filled in, so the stored definition says
 * everything), and turned into a core/space. The stored definition goes
 * back through the same parser, so there is one set of rules.
 */
#ifndef HPOD_STUDY_DEF_H
#define HPOD_STUDY_DEF_H

#include <jansson.h>
#include <stddef.h>

#include "core/space.h"
#include "common/status.h"
#include "common/json.h" /* hj_dump, hj_parse */
#include "store/model.h"

#define MODEL_MAX_OBJECTIVES 8
#define MODEL_MAX_CONSTRAINTS 16

enum algo_name {
    ALGO_RANDOM = 0,
    ALGO_GP,
    ALGO_GRAPH,
    ALGO_GREEDY,
    ALGO_EHVI,
    ALGO_ASHA,
    ALGO_MULTISTAGE
};

/* Most stages of a multistage study. */
#define MODEL_MAX_STAGES 16

struct algo_def {
    enum algo_name name;
    unsigned long long seed;
    int kernel;      /* enum kernel_kind */
    int acquisition; /* gp: 0 ei, 1 pi, 2 ucb; graph: 0 ei, 1 eif */
    int init;        /* random points before the model takes over */
    int surrogate;   /* ehvi: 0 gp, 1 graph */
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

struct study_def {
    json_t *def;        /* new reference: the normalized definition */
    json_t *candidates; /* new reference or NULL: normalized candidates */
    struct space space;
    const char **names; /* n_params, borrowed from def */
    json_t **choices;   /* n_params: the choices array, or NULL */
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
    struct algo_def algo;
    long long budget; /* -1: none */
    int lease_seconds;
    const char *name;      /* borrowed */
    const char *benchmark; /* borrowed or NULL */
};

/*
 * study_def_from_json - validates a study creation body (borrowed) and
 * fills d. HPOD_EINVAL (400) for shape and type errors, HPOD_EUNPROC (422)
 * for broken rules; err names the field.
 */
enum hpod_status study_def_from_json(json_t *body, struct study_def *d,
                                     struct hpod_err *err);
/* Rebuilds d from a stored definition (JSON text). */
enum hpod_status study_def_from_text(const char *text, struct study_def *d,
                                     struct hpod_err *err);
void study_def_cleanup(struct study_def *d);

/*
 * algo_from_json - validates an "algorithm" object (a borrowed; NULL means
 * random with a fresh seed) and fills algo; *norm receives a new reference
 * to the normalized object (defaults filled in).
 */
enum hpod_status algo_from_json(json_t *a, struct algo_def *algo, json_t **norm,
                                struct hpod_err *err);

/*
 * params_from_json - checks that obj gives every parameter exactly once
 * with a legal value and fills raw (n_params). path prefixes the field of
 * an error ("candidates[3]").
 */
enum hpod_status params_from_json(const struct study_def *d, json_t *obj,
                                  double *raw, const char *path,
                                  struct hpod_err *err);
/* Returns a new JSON object for a configuration. */
json_t *params_to_json(const struct study_def *d, const double *raw);

/*
 * trial_feasible - 1 if the reported values meet every constraint of d; a
 * constraint whose metric was not reported counts as not met (feasibility
 * is only what was observed).
 */
int trial_feasible(const struct study_def *d, const struct metric_set *values);

/* New JSON object {metric: value} of a metric set (values are finite). */
json_t *metric_set_to_json(const struct metric_set *m);

/*
 * New JSON for a study row (definition fields + counts and state), or NULL
 * when its stored definition cannot be read.
 */
json_t *study_to_json(const struct study *s);

/*
 * New JSON for a trial row, or NULL when its stored params cannot be read
 * (the caller answers an internal error: a stored value that cannot be
 * read never turns into an empty object).
 */
json_t *trial_to_json(const struct trial *t);

/*
 * Query parameters: an integer in [min, max], dflt when absent.
 * HPOD_EINVAL naming the parameter otherwise.
 */
enum hpod_status query_int(const char *text, const char *name, long long min,
                           long long max, long long dflt, long long *out,
                           struct hpod_err *err);

/* The body of POST /v1/trials/{id}/report, validated. */
struct report_input {
    struct metric_set values; /* 1 to REPORT_MAX_METRICS, finite */
    long long step;           /* -1: a final report */
};
#define REPORT_MAX_METRICS 64
#define REPORT_MAX_STEP 1000000000LL

/*
 * report_from_json - validates a report body (borrowed) on its own:
 * {"values": {metric: number, ...}, "step": k?}; no other field. A metric
 * value is a finite number; an integer beyond ±2^53 is refused (422), as
 * a double could not hold it exactly and the value read back would not be
 * the one sent. Fills out (cleanup with report_input_cleanup, also on
 * error). HPOD_EINVAL for shape and type errors, HPOD_EUNPROC for rules.
 */
enum hpod_status report_from_json(json_t *body, struct report_input *out,
                                  struct hpod_err *err);
void report_input_cleanup(struct report_input *in);

/*
 * report_check_metrics - every metric of the report must be one of d's
 * objectives or constrained metrics (HPOD_EUNPROC naming values.<metric>
 * otherwise): a report never writes a metric its study does not know.
 */
enum hpod_status report_check_metrics(const struct study_def *d,
                                      const struct report_input *in,
                                      struct hpod_err *err);

/*
 * report_merge - merges a final report in (validated) into what trial t
 * holds, deciding from its inputs only. A metric t already holds must
 * carry the same double (else *conflict is its index in in). A completed
 * trial takes no new metric either (*conflict = its index): its result is
 * what was acknowledged when it completed, so only the same report again
 * is accepted. Otherwise *conflict is (size_t)-1, add (caller's, empty on
 * entry) receives the metrics t does not hold yet, and *complete says
 * whether every objective of d is then in.
 */
void report_merge(const struct study_def *d, const struct trial *t,
                  const struct metric_set *in, struct metric_set *add,
                  int *complete, size_t *conflict);

#endif
