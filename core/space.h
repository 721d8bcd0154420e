/*
 * core/space.h - search spaces: parameter definitions, sampling, and the
 * encoding of configurations into the unit cube that every surrogate sees.
 *
 * A configuration is a vector of n_params doubles ("raw" values): a float
 * or int parameter holds its value, a categorical one the index of its
 * choice. Encoding maps raw values to one feature per parameter (dim ==
 * n_params), what every surrogate sees: ranges linearly or in log space
 * into [0,1], value lists by value between their smallest and largest (in
 * log space when log is set), a categorical as its choice index.
 *
 * Distances. A categorical's feature is compared by overlap (Hamming):
 * two configurations differ there by 0 if they hold the same choice, else
 * by 1, whatever the number of choices, so a model's cost and its
 * hyperparameters (one lengthscale per feature) grow with the number of
 * parameters, not of choices (64 categoricals of 1,000 choices are 64
 * features, not 64,000 one-hot ones). Every distance between encoded
 * configurations is built from space_diff, feature by feature: the GP's
 * kernels (core/kernels.h), the graph's kNN distances (core/graph.h), the
 * trust regions (core/trust_region.h), the greedy controls; the local
 * moves of the acquisition optimizer come from space_perturb. A space
 * without categoricals has kinds NULL, and its distances are the
 * Euclidean ones of the unit cube, as they always were.
 *
 * Inactive parameters (conditional ones whose condition does not hold;
 * NaN in a raw configuration) encode as a value no configuration has on
 * their feature's kind: a categorical as -1 (no choice), so it differs by
 * 1 from every choice and by 0 from another inactive one, like a
 * mismatch; a range or value list as 0, the low end of its feature, so
 * two inactive values agree. Decoding gives a legal value the study layer
 * deactivates again (space_deactivate).
 *
 * Pure: no I/O, no JSON; names are borrowed for the caller's use.
 */
#ifndef HPOD_SPACE_H
#define HPOD_SPACE_H

#include <stddef.h>

#include "common/status.h"
#include "core/rng.h"

enum param_type { PARAM_FLOAT = 0, PARAM_INT = 1, PARAM_CATEGORICAL = 2 };

struct param {
    enum param_type type;
    int log;          /* ranges and value lists: log scale */
    double low, high; /* ranges (n_values == 0 and not categorical) */
    double *values;   /* explicit values, ascending, owned by the space */
    size_t n_values;
    size_t n_choices; /* categorical */
    /* Conditional parameters (space_set_condition): the parameter exists
     * only where parameter `parent` is active and holds one of cond[0..
     * n_cond) (raw values, owned); conditional 0: always. */
    int conditional;
    size_t parent;
    double *cond;
    size_t n_cond;
};

/* How two encoded values of a feature differ (space.kinds). */
enum space_feature { SPACE_FEATURE_REAL = 0, SPACE_FEATURE_CATEGORY = 1 };

struct space {
    struct param *params; /* n_params entries, owned */
    size_t n_params;
    size_t dim; /* encoded width: n_params */
    /* dim entries (enum space_feature), owned; NULL while no parameter is
     * categorical (every feature real). */
    unsigned char *kinds;
};

/*
 * space_diff - the difference of two encoded values a, b of a feature of
 * the given kind, the one definition every distance is built from: a - b
 * for a real feature (squared and scaled by the caller as before); for a
 * categorical one 0 if the choices are equal, else 1. kinds (may be NULL:
 * all real) is space.kinds; d the feature.
 */
static inline double
space_diff(const unsigned char *kinds, size_t d, double a, double b)
{
    if (kinds && kinds[d] == SPACE_FEATURE_CATEGORY)
        return a != b ? 1.0 : 0.0;
    return a - b;
}

/* space_d2 - the squared distance of two encoded points (dim features):
 * Σ_d space_diff² (the Euclidean one for a space without categoricals). */
double space_d2(const unsigned char *kinds, const double *x, const double *y,
                size_t dim);

/* Zeroes sp; space_clear frees what space_add_* allocated (zero-safe). */
void space_init(struct space *sp);
void space_clear(struct space *sp);

/*
 * Adders. values (copied, then sorted) must be finite and distinct; for
 * ranges low < high (and low > 0 when log). Return HPOD_EUNPROC when a rule
 * is broken, so callers can validate through them.
 */
enum hpod_status space_add_range(struct space *sp, enum param_type type,
                                 double low, double high, int log);
enum hpod_status space_add_values(struct space *sp, enum param_type type,
                                  const double *values, size_t n, int log);
enum hpod_status space_add_categorical(struct space *sp, size_t n_choices);

/* 1 if raw value v is a legal value of parameter i, else 0. */
int space_contains(const struct space *sp, size_t i, double v);

/* Encodes one configuration (raw: n_params) into out (dim features). */
void space_encode(const struct space *sp, const double *raw, double *out);

/* Encodes n configurations (raw: n × n_params) into out (n × dim). */
void space_encode_rows(const struct space *sp, const double *raw, size_t n,
                       double *out);

/*
 * space_perturb - a legal neighbour of the encoded point center: each real
 * feature moved by step·N(0,1) (one normal drawn from r per real feature,
 * in feature order), then snapped to the nearest configuration by decode
 * and encode; each categorical switched, with probability step (at most
 * 1; one uniform drawn), to another choice drawn uniformly (one more
 * draw). out gets dim features; rawbuf is n_params doubles of scratch.
 * Used by the local refinement of the continuous samplers.
 */
void space_perturb(const struct space *sp, const double *center, double step,
                   struct rng *r, double *out, double *rawbuf);

/*
 * Decodes features u (dim entries, any reals; clamped to [0,1]) to the
 * nearest legal configuration: ints rounded, value lists snapped to the
 * nearest value in encoded space, a categorical's index rounded and
 * clamped to its choices.
 */
void space_decode(const struct space *sp, const double *u, double *raw);

/* Draws a uniformly random configuration (log-uniform where log is set). */
void space_sample(const struct space *sp, struct rng *r, double *raw);

/*
 * space_find_duplicate - looks for two equal rows among n configurations
 * (raw: n × width, row-major; NaN, an inactive parameter, equals NaN). Returns
 * 1 and sets *first < *later to the indices of such a pair (the pair whose rows
 * sort first), else 0. Sorts an index array with a merge sort: O(n log n), no
 * global state.
 */
int space_find_duplicate(const double *raw, size_t n, size_t width,
                         size_t *first, size_t *later);

/* 1 if the space has finitely many configurations (no float range). */
int space_is_finite(const struct space *sp);

/*
 * space_init_subset - sub (initialized here) becomes the space of the k
 * parameters idx[0..k) of sp, in that order (deep copies: space_clear
 * frees sub). Encoding a configuration of those parameters in sub gives
 * the features of sp's encoding at idx. sub's parameters are unconditional.
 */
void space_init_subset(struct space *sub, const struct space *sp,
                       const size_t *idx, size_t k);

/*
 * Conditional parameters. A configuration holds NaN for an inactive
 * parameter (one whose condition does not hold). Conditions form a forest:
 * the caller refuses cycles before it sets them (study/params.c names the
 * path); space_active stops at depth n_params whatever it is given.
 *
 * space_set_condition - parameter i exists only where parameter parent (a
 * categorical or a value list: discrete values) is active and holds one
 * of vals[0..n) (raw values: a choice index, a listed value; copied).
 * HPOD_EUNPROC when i == parent, parent is not discrete, n is 0 or a
 * value is not parent's.
 */
enum hpod_status space_set_condition(struct space *sp, size_t i, size_t parent,
                                     const double *vals, size_t n);

/* 1 if some parameter of sp is conditional. */
int space_has_conditions(const struct space *sp);

/*
 * space_active - active[i] (n_params entries) = 1 when parameter i exists
 * in configuration raw: unconditional, or its parent is active and holds
 * one of its condition's values.
 */
void space_active(const struct space *sp, const double *raw,
                  unsigned char *active);

/* space_deactivate - sets raw's inactive parameters to NaN. */
void space_deactivate(const struct space *sp, double *raw);

#endif
