/*
 * study/related.h - a lab's studies related to a study (GET
 * /v1/studies/{id}/related, "warm_start": {"auto": true}; docs/guide.md,
 * "Studies that evolve").
 *
 * Related: another study of the lab that has at least half of the
 * study's parameters (by name) and one of its objectives (the first of
 * the study's objectives it has is the one compared). Ranked by how well
 * its results predict the study's (core/related): Spearman's ρ of that
 * objective over the configurations both ran (completed, not excluded
 * trials; a configuration is the values of the shared parameters,
 * categoricals matched by choice), the largest first; the studies without
 * two shared configurations after them, by parameter overlap.
 */
#ifndef HPOD_STUDY_RELATED_H
#define HPOD_STUDY_RELATED_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "study/def.h"

/* The newest studies of a lab compared, and the trials read of each. */
#define RELATED_MAX_STUDIES 1000
#define RELATED_MAX_TRIALS 10000

struct related_study {
    long long id;
    char *name;
    char *objective; /* the objective compared */
    char **shared;   /* the shared parameters' names, n_shared */
    size_t n_shared;
    double overlap;   /* n_shared / the study's parameters */
    size_t n_configs; /* shared configurations */
    double rho;       /* NaN: fewer than 2, or a constant side */
};

struct related_list {
    struct related_study *v; /* ranked */
    size_t n;
};

/*
 * study_related_list - the studies of lab related to a study of definition d
 * (self: its id, whose trials are compared and which is left out; 0: a
 * study not created yet, ranked by overlap alone), ranked, into out
 * (study_related_list_clear).
 */
enum hpod_status study_related_list(struct db *db, const char *lab,
                                    const struct study_def *d, long long self,
                                    struct related_list *out,
                                    struct hpod_err *err);

void study_related_list_clear(struct related_list *l);

#endif
