/*
 * study/importance.h - which parameters mattered in a study: the
 * explainable boosting machine of core/ebm fitted on the completed trials'
 * configurations (raw values: a categorical parameter by choice index)
 * against one metric as reported (an objective, by default the first, or
 * a constrained metric). Read only.
 *
 * A fit is model work: it is admitted per lab like a suggest
 * (study/labsched.h), and its result is kept in the process (under the
 * model-memory budget, study/modelcache.h) for the version it was fitted
 * on: the study row's version (its definition) and the version of its
 * completed trials (store/history_store.h), which every write of one of
 * them changes, whichever process wrote it. The version is the answer's
 * ETag: a read that names it in If-None-Match gets 304 without a fit or
 * a row read; a read of an unchanged study answers the kept fit. A small
 * study (trials × parameters up to IMPORTANCE_SYNC_CELLS) is fitted on
 * the request; a bigger one in the background (at most IMPORTANCE_JOBS
 * at once per process), while the request answers the last version's fit
 * marked stale, or 202 with Retry-After when there is none yet.
 */
#ifndef HPOD_STUDY_IMPORTANCE_H
#define HPOD_STUDY_IMPORTANCE_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "core/ebm.h"
#include "store/db.h"
#include "store/model.h"
#include "study/def.h"

/*
 * Fewest completed trials carrying the metric that importance is computed
 * on: with fewer, the shape functions' bins rest on one or two trials each
 * and the ranking is noise.
 */
#define STUDY_IMPORTANCE_MIN_TRIALS 10
/* Completed trials × parameters fitted on the request (about 0.2 s);
 * more are fitted in the background. */
#define IMPORTANCE_SYNC_CELLS 20000
/* Background fits at once per process; past it 503 with Retry-After. */
#define IMPORTANCE_JOBS 4
/* Retry-After of a 202 (a fit under way) or a stale answer. */
#define IMPORTANCE_RETRY_SECONDS 2
#define IMPORTANCE_ETAG_MAX 40

/* Where the fit runs and for whom (as for a suggest). */
struct importance_where {
    struct db_pool *pool; /* a connection is borrowed only to read */
    size_t units;         /* the process's model units (labsched_enter) */
    const char *lab;      /* the caller's lab ("" or NULL: every lab) */
};

struct importance_entry; /* a kept fit */

/* What GET /v1/studies/{id}/importance answers. */
struct importance_compute {
    int status; /* 200 (model below), 202 (a fit under way, nothing kept)
                   or 304 (If-None-Match named the current version) */
    char etag[IMPORTANCE_ETAG_MAX]; /* the answer's version, quoted, or "" */
    int stale;       /* 200 with the last version's fit, the current one
                        being fitted in the background */
    int retry_after; /* 202 and stale answers: seconds */
    /* 200: borrowed until importance_clear. */
    const struct ebm *model;
    const char *metric;
    const char *const *names; /* the parameters, in the space's order */
    json_t *const *choices;   /* each categorical's choices, else NULL */
    size_t n;                 /* completed trials used */
    struct importance_entry *entry;
};

/*
 * importance_data - the rows to fit on, without a database: of the
 * completed trials rows (borrowed, n_rows), those carrying metric with a
 * parameter object of d's space; *x (n × n_params) and *y (n) are new
 * allocations (also when n is 0).
 */
void importance_data(const struct study_def *d, const struct trial *rows,
                     size_t n_rows, const char *metric, double **x, double **y,
                     size_t *n);

/*
 * importance_compute - the model for study study_id on metric (NULL: its
 * first objective), or 304 when if_none_match (the request's header, or
 * NULL) lists the current version's ETag. out: importance_clear,
 * also on failure. HPOD_ENOTFOUND (no such study); HPOD_EUNPROC (field
 * "objective") when metric is neither an objective nor a constrained
 * metric of the study; HPOD_ECONFLICT when fewer than
 * STUDY_IMPORTANCE_MIN_TRIALS completed trials carry it; HPOD_ELIMIT when
 * the lab's model-work queue is full; HPOD_EBUSY when every background
 * slot is taken.
 */
enum hpod_status importance_compute(const struct importance_where *w,
                                    long long study_id, const char *metric,
                                    const char *if_none_match,
                                    struct importance_compute *out,
                                    struct hpod_err *err);
void importance_clear(struct importance_compute *a);

/* Fits computed since start (what the cache saved shows beside it). */
unsigned long long importance_fits(void);

/* Waits for the background fits in flight (at shutdown, before the pool
 * they borrow from goes away); none starts afterwards. */
void importance_stop(void);

#endif
