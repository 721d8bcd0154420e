/*
 * store/study_store.h - all SQL about studies and their candidates.
 */
#ifndef HPOD_STUDY_STORE_H
#define HPOD_STUDY_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"

/* A new study row: what study_store_insert writes. */
struct study_row_in {
    const char *lab, *name;
    const char *definition;      /* JSON text */
    const char *metadata;        /* JSON object text, NULL: {} */
    long long budget;            /* < 0: none */
    int lease_seconds;           /* */
    const char *candidates_json; /* JSON array of parameter objects, NULL */
    long long n_candidates;      /* < 0: infinite space */
    const char *benchmark;       /* NULL: none */
    long long created_by;        /* the creating token; 0: none */
};

/*
 * study_store_insert - inserts a study and its candidates; call it inside
 * a transaction (the caller begins and commits it). *id receives the new
 * id, or 0 when (lab, name) is taken (nothing is written then, and no
 * error: the unique index is not an error here).
 */
enum hpod_status study_store_insert(struct db *db,
                                    const struct study_row_in *in,
                                    long long *id, struct hpod_err *err);

/* study_store_find - *id of the study (lab, name), 0 if there is none. */
enum hpod_status study_store_find(struct db *db, const char *lab,
                                  const char *name, long long *id,
                                  struct hpod_err *err);

/*
 * study_store_update - sets the study's state and/or metadata (JSON object
 * text); NULL leaves the column as it is. HPOD_ENOTFOUND if none.
 */
enum hpod_status study_store_update(struct db *db, long long id,
                                    const char *state, const char *metadata,
                                    struct hpod_err *err);

/* Fills *out (new strings); HPOD_ENOTFOUND if there is no such study. */
enum hpod_status study_store_get(struct db *db, long long id, struct study *out,
                                 struct hpod_err *err);

/*
 * study_store_get_row - the study row alone: every count, n_expired and
 * n_added are 0. study_store_get counts the study's trials, a scan that
 * grows with the study: callers that read no count (a report on a study
 * without multi-fidelity rules) use this one.
 */
enum hpod_status study_store_get_row(struct db *db, long long id,
                                     struct study *out, struct hpod_err *err);
/*
 * A study row's version, as text: the transaction that last wrote the row
 * and the stored size of its definition ("xmin:size"). Any write of the
 * row (a PATCH, a new space) gives a new version, so a definition parsed
 * for one version (study/defcache.h) is valid exactly while the row
 * reads that version. Readers that take a version pass the one they hold
 * (known, "" for none) and get the definition's text only when the row's
 * is another: out->definition is NULL when it is still known.
 */
#define STUDY_VERSION_MAX 48
/* The version as SQL, of the row of studies aliased s; migration 0022
 * (a report's read) spells it too: a change changes both. */
#define STUDY_SQL_VERSION                                                      \
    "(s.xmin::text || ':' || pg_column_size(s.definition))"

/*
 * study_store_get_row_of_trial - study_store_get_row of the study trial
 * trial_id belongs to, in one round trip (a report's first read), with
 * its version (above; known: the version held of study known_study).
 * HPOD_ENOTFOUND when the trial does not exist.
 */
enum hpod_status study_store_get_row_of_trial(
    struct db *db, long long trial_id, long long known_study, const char *known,
    struct study *out, char version[STUDY_VERSION_MAX], struct hpod_err *err);

/*
 * study_store_get_issue - the study row with its version (above) and what
 * issuing reads, from indexes only (migration 0008): counts[TRIAL_WAITING],
 * n_expired and n_added exact, and every other trial counted in
 * counts[TRIAL_PENDING], so study_issued and study_taken are exact; the
 * split between live, finished and paused trials is not read (study_live,
 * study_done). full = 1 reads that split too, study_store_get's counts (a
 * scan of the study's trials, for the multi-fidelity rules), in the same
 * statement. *n_all: max(seq) + 1, the next trial's number. Call with
 * the study locked (or for a read that needs no lock, such as
 * importance's).
 */
enum hpod_status study_store_get_issue(struct db *db, long long id,
                                       const char *known, int full,
                                       struct study *out, long long *n_all,
                                       char version[STUDY_VERSION_MAX],
                                       struct hpod_err *err);

/*
 * study_store_lock - inside a transaction, locks the study row (FOR
 * UPDATE): every per-study decision (issuing trials, promotions) holds it.
 * HPOD_ENOTFOUND if the study does not exist.
 */
enum hpod_status study_store_lock(struct db *db, long long id,
                                  struct hpod_err *err);

/* Exact-match filters of a list; NULL matches everything. */
struct study_filter {
    const char *lab, *name;
};

/*
 * Newest first, filtered by f (NULL: none); *total counts the filtered
 * set. *out is a new array of *n studies (free each + array).
 */
enum hpod_status study_store_list(struct db *db, const struct study_filter *f,
                                  long long limit, long long offset,
                                  struct study **out, size_t *n,
                                  long long *total, struct hpod_err *err);

enum hpod_status study_store_delete(struct db *db, long long id,
                                    struct hpod_err *err);

/*
 * study_store_candidates - every candidate of a finite study, in index
 * order: params[i] is new JSON text (free each and the array). Candidates
 * never change after the study is created, so callers may cache them.
 */
enum hpod_status study_store_candidates(struct db *db, long long id,
                                        char ***params, size_t *n,
                                        struct hpod_err *err);

#endif
