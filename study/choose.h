/*
 * study/choose.h - one new configuration from a study's history, by the
 * study's sampler: the call site of core/sampler (single objective) and
 * core/mobo (several objectives or constraints). Pure: no database; the
 * suggest transaction (study/suggest.c) reads the history and inserts
 * what is chosen.
 */
#ifndef HPOD_STUDY_CHOOSE_H
#define HPOD_STUDY_CHOOSE_H

#include <stddef.h>

#include "common/status.h"
#include "core/sampler.h"
#include "study/def.h"
#include "study/history.h"
#include "study/samplercache.h"

/* The sampler that chooses d's new configurations (ASHA and multistage:
 * their base sampler). */
enum sampler_kind choose_sampler(const struct study_def *d);

/*
 * choose_one - the configuration for issue number seq into raw
 * (n_params) and its candidate in *cand ((size_t)-1: none). entry: the
 * study's kept sampler state (NULL for a continuous space); gpm: the
 * GP's kept model (its refit is flagged in gpm->changed); ex: what the
 * sampler knew, when the study records explanations (else NULL); prior:
 * a warm start's prior per candidate, or NULL. A model that cannot
 * decide yet falls back to the random choice of the trial's own stream.
 * HPOD_ENOTFOUND when a finite study is used up; another status when the
 * sampler fails.
 */
enum hpod_status choose_one(const struct study_def *d, const struct history *h,
                            struct samplercache *entry,
                            struct sampler_gp_model *gpm, int seq, double *raw,
                            size_t *cand, struct sampler_explain *ex,
                            const double *prior);

#endif
