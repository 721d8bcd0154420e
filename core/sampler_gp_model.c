/*
 * core/sampler_gp_model.c - a study's kept GP hyperparameters; see
 * sampler_gp_model.h.
 */
#include "core/sampler_gp_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

void
sampler_gp_model_clear(struct sampler_gp_model *m)
{
    if (!m)
        return;
    free(m->hyper);
    memset(m, 0, sizeof *m);
}

enum hpod_status
sampler_gp_model_set(struct sampler_gp_model *m, int kernel, size_t n_fit,
                     double lml_fit, const double *hyper, size_t n_hyper)
{
    if (!m || !hyper || n_hyper < 3 || !isfinite(lml_fit))
        return HPOD_EINVAL;
    for (size_t i = 0; i < n_hyper; i++)
        if (!(hyper[i] > 0.0) || !isfinite(hyper[i]))
            return HPOD_EINVAL;
    free(m->hyper);
    m->hyper = xmalloc(n_hyper * sizeof *m->hyper);
    memcpy(m->hyper, hyper, n_hyper * sizeof *m->hyper);
    m->n_hyper = n_hyper;
    m->valid = 1;
    m->kernel = kernel;
    m->n_fit = n_fit;
    m->lml_fit = lml_fit;
    return HPOD_OK;
}
