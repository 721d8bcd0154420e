/*
 * study/warmstart.h - "warm_start" (docs/transfer.md): checks a new study's
 * source and computes the source's prior over the study's candidates
 * (core/transfer.c), which studies_create stores with the study (migration
 * 0013) and suggest hands to the GP sampler (sampler_input.prior_cand).
 */
#ifndef HPOD_STUDY_WARMSTART_H
#define HPOD_STUDY_WARMSTART_H

#include <stddef.h>

#include "bench/catalog.h"
#include "common/status.h"
#include "store/db.h"
#include "study/access.h"
#include "study/def.h"

/*
 * The rule for the prior's weight (core/transfer.h): RGPE's bootstrap of
 * ranking losses, the prior against the study's own leave-one-out model
 * on its observations. The only rule that lowered or kept ftb on every
 * nmthpo table (docs/transfer.md); Spearman and fixed weights each raised
 * one.
 */
#define WARM_RULE 5 /* TRANSFER_RANKLOSS */

/*
 * warmstart_prior - for a definition with warm_start: checks it and sets
 * *prior (xmalloc'd, n_candidates values) and *n; without warm_start
 * *prior is NULL. 404 (HPOD_ENOTFOUND) for a source study who cannot see;
 * 422 (HPOD_EUNPROC, field warm_start.*) for an unknown benchmark, an
 * algorithm other than gp, several objectives, constraints, a space
 * without candidates, a source without the objective or without a shared
 * parameter, or a source with no usable row.
 */
enum hpod_status warmstart_prior(struct db *db, const struct bench_db *bench,
                                 const struct principal *who,
                                 const struct study_def *d, double **prior,
                                 size_t *n, struct hpod_err *err);

/*
 * warmstart_auto - "warm_start": {"auto": true} (not resolved yet): the
 * first of the related studies of lab (study/related.h: here ranked by
 * parameter overlap, the study having no trials) with the objective and
 * a completed trial the study can hold becomes d's source (warm_study,
 * and "study" in the definition's warm_start); the definition's
 * warm_start gets a "reason" either way: which study and why, or that
 * none is related and the study starts cold. The target rules of
 * warmstart_prior apply (422). Call before warmstart_prior.
 */
enum hpod_status warmstart_auto(struct db *db, const struct principal *who,
                                const char *lab, struct study_def *d,
                                struct hpod_err *err);

#endif
