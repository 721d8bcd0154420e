/*
 * study/studies.h - studies as a whole: create, read, list, delete, and
 * the recommended best trial. Each call takes plain inputs and a borrowed
 * database connection; a call that writes is one transaction.
 */
#ifndef HPOD_STUDY_STUDIES_H
#define HPOD_STUDY_STUDIES_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "store/study_store.h"
#include "study/access.h"
#include "study/def.h"

/*
 * studies_check_rules - what a valid definition must also satisfy to become
 * a study: greedy needs candidates (a finite space); only random, ehvi
 * and asha over random optimize several objectives. HPOD_EUNPROC naming
 * algorithm.name otherwise.
 */
enum hpod_status studies_check_rules(const struct study_def *d,
                                     struct hpod_err *err);

/* What a create needs besides the definition. */
struct study_create_in {
    const char *lab;      /* the owning lab, already checked (non-NULL) */
    const char *metadata; /* JSON object text, NULL: {} */
    int load_if_exists;   /* an equal study (lab, name) is the answer */
    int seed_given;       /* the body named algorithm.seed: it must match */
    /* warm_start: the source's prior over the candidates
     * (warmstart_prior), stored with a new study; NULL: none. */
    const double *warm_prior;
    size_t n_warm_prior;
    /* Who creates it: recorded as its created_by and in the audit log
     * (study/audit.h); NULL: nobody (an open server). */
    const struct principal *by;
    /* A copy (study/copy.h): the source study's id (0: not a copy) and
     * its trials, inserted as added trials numbered 0, 1, ... in the
     * create's transaction, recorded as one study.copy event. */
    long long copy_of;
    const struct trial *copy_rows;
    size_t n_copy_rows;
};

/*
 * studies_create - checks d (studies_check_rules) and stores it with its
 * candidates in one transaction; *id is the new study's and *existed 0.
 * (lab, name) is unique: when it is taken, HPOD_ECONFLICT naming the
 * existing study, unless in->load_if_exists and the existing study has
 * the same normalized definition and candidates (the algorithm's seed is
 * compared only when in->seed_given: an omitted seed is drawn afresh):
 * then *id is the existing study's and *existed 1. A different definition
 * is HPOD_ECONFLICT naming the first top-level key that differs. Nothing
 * is written on failure. A new study is recorded in the audit log
 * (study.create) in its transaction. Race-free: of concurrent creates of one
 * (lab, name), one inserts and the others wait for it, then find its study.
 */
enum hpod_status studies_create(struct db *db, const struct study_def *d,
                                const struct study_create_in *in, long long *id,
                                int *existed, struct hpod_err *err);

/* What PATCH /v1/studies/{id} changes (NULL: unchanged). */
struct study_update_in {
    const char *state;    /* "active", "paused" or "finished" */
    const char *metadata; /* JSON object text */
    json_t *space;        /* borrowed: the new space (study/evolve.h) */
};

/*
 * studies_update - sets the study's state, metadata and/or space
 * (evolve_space's rules: a new space_version, the kept GP hyperparameters
 * dropped) in one transaction under the study row lock, recorded in the
 * audit log as by's study.patch (the space change as "space" and
 * "space_version" in its detail). Nothing is written on an error.
 * HPOD_ENOTFOUND if the study does not exist.
 */
enum hpod_status studies_update(struct db *db, long long id,
                                const struct study_update_in *in,
                                const struct principal *by,
                                struct hpod_err *err);

/* 1 if s names a study state a client may set. */
int studies_state_ok(const char *s);

/* studies_get - the study id (study_clear), HPOD_ENOTFOUND if none. */
enum hpod_status studies_get(struct db *db, long long id, struct study *out,
                             struct hpod_err *err);

/*
 * studies_list - a page of studies, newest first (free each, then *rows),
 * filtered by f (NULL: all); *total counts the filtered studies.
 */
enum hpod_status studies_list(struct db *db, const struct study_filter *f,
                              long long limit, long long offset,
                              struct study **rows, size_t *n, long long *total,
                              struct hpod_err *err);

/* studies_delete - the study and its trials, recorded in the audit log as
 * by's study.delete in the same transaction; HPOD_ENOTFOUND if none. */
enum hpod_status studies_delete(struct db *db, long long id,
                                const struct principal *by,
                                struct hpod_err *err);

/* The recommended trial of a single-objective study. */
struct studies_best {
    int found;          /* 0: no completed trial qualifies */
    struct trial trial; /* when found (studies_best_clear) */
    double p_feasible;  /* 1, or the constraint model's joint probability */
};

/*
 * studies_best - the qualifying completed trial with the best value of the
 * single objective (ties: the earliest). A completed trial qualifies when,
 * for every constraint, it reported the metric and the value meets the
 * bound, or it did not report it and the constraint GPs (core/mobo, one
 * per metric, fitted on the trials that reported it; study/constraints.h)
 * give a joint probability Π_c P_c over its unreported constraints of at
 * least the largest confidence among them (Beck et al. 2016). A metric
 * reported fewer than CONSTRAINT_MIN_REPORTS times vouches for nothing.
 * p_feasible is 1 when every constraint was reported and met (and for
 * unconstrained studies), else the model's product. The GPs are fitted
 * only when a trial that needs them would beat the best observed-feasible
 * one. HPOD_EUNPROC for a study with several objectives.
 */
enum hpod_status studies_best(struct db *db, long long id,
                              struct studies_best *out, struct hpod_err *err);
void studies_best_clear(struct studies_best *b);

#endif
