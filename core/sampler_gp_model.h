/*
 * core/sampler_gp_model.h - the GP's hyperparameters, kept between the
 * choices of one study (hpod stores them in PostgreSQL, a simulation in a
 * local) so that a choice refits only when gp_refit_due (core/gp.h) says
 * so and otherwise just conditions with them. The choice is a function of
 * (seed, issue number, history, this record): any process holding the
 * same record chooses the same. sampler_next reads it and, when it
 * refits, rewrites it and sets changed (the caller clears changed once it
 * stored the record).
 */
#ifndef HPOD_SAMPLER_GP_MODEL_H
#define HPOD_SAMPLER_GP_MODEL_H

#include <stddef.h>

#include "common/status.h"

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

#endif
