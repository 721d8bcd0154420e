/*
 * study/constraints.c - a study's constraints as core/mobo takes them;
 * contracts in study/constraints.h.
 */
#include "study/constraints.h"

#include <math.h>
#include <stdlib.h>

#include "core/kernels.h"
#include "common/mem.h"
#include "core/mobo.h"

double
constraints_value(const struct study_def *d, size_t c,
                  const struct metric_set *vals)
{
    const double *v = metric_set_find(vals, d->con_metric[c]);
    if (!v)
        return NAN;
    /* mobo takes "<= bound": a "min" constraint is negated. */
    return d->con_is_max[c] ? *v : -*v;
}

void
constraints_bounds(const struct study_def *d, const double *obs_c, size_t n_obs,
                   double *con_max, unsigned char *con_log)
{
    size_t nc = d->n_constraints;
    for (size_t c = 0; c < nc; c++) {
        con_max[c] = d->con_is_max[c] ? d->con_bound[c] : -d->con_bound[c];
        con_log[c] = d->con_is_max[c] && d->con_bound[c] > 0;
        for (size_t i = 0; i < n_obs && con_log[c]; i++) {
            double x = obs_c[i * nc + c];
            if (!isnan(x) && !(x > 0))
                con_log[c] = 0;
        }
    }
}

enum hpod_status
constraints_prob(const struct study_def *d, size_t c, const double *obs_raw,
                 const double *obs_c, size_t n_obs, const double *q_raw,
                 size_t k, int seq, double *p)
{
    size_t nc = d->n_constraints, np = d->space.n_params, dim = d->space.dim;
    size_t n = 0;
    double con_max[MODEL_MAX_CONSTRAINTS], *col, *u;
    unsigned char con_log[MODEL_MAX_CONSTRAINTS];
    enum hpod_status st;

    if (c >= nc)
        return HPOD_EINVAL;
    for (size_t i = 0; i < n_obs; i++)
        n += isfinite(obs_c[i * nc + c]) != 0;
    if (n < CONSTRAINT_MIN_REPORTS) {
        for (size_t i = 0; i < k; i++)
            p[i] = 0;
        return HPOD_OK;
    }
    /* One GP for this metric alone: a one-column mobo_input. */
    constraints_bounds(d, obs_c, n_obs, con_max, con_log);
    col = xmalloc(n_obs * sizeof *col);
    for (size_t i = 0; i < n_obs; i++)
        col[i] = obs_c[i * nc + c];
    u = xmalloc((k ? k : 1) * (dim ? dim : 1) * sizeof *u);
    for (size_t i = 0; i < k; i++)
        space_encode(&d->space, q_raw + i * np, u + i * dim);
    struct mobo_input in = {
        .space = &d->space,
        .surrogate = MOBO_SURROGATE_GP,
        .kernel = d->algo.kernel == KERNEL_RBF ? KERNEL_RBF : KERNEL_MATERN52,
        .seed = d->algo.seed,
        .seq = seq,
        .m = 1,
        .obs_raw = obs_raw,
        .n_obs = n_obs,
        .n_con = 1,
        .obs_c = col,
        .con_max = &con_max[c],
        .con_log = &con_log[c],
    };
    st = mobo_feasibility(&in, u, k, p);
    free(col);
    free(u);
    return st;
}
