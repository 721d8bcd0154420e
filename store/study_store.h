/*
 * store/study_store.h - all SQL about studies and their candidates.
 */
#ifndef HPOD_STUDY_STORE_H
#define HPOD_STUDY_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"

/*
 * study_store_insert - inserts a study and (candidates_json != NULL, a JSON
 * array of parameter objects) its candidates; call it inside a transaction
 * (the caller begins and commits it).
 * budget < 0: none. benchmark may be NULL. *id receives the new id.
 */
enum hpod_status
study_store_insert(struct db *db, const char *name, const char *definition,
                   long long budget, int lease_seconds,
                   const char *candidates_json, long long n_candidates,
                   const char *benchmark, long long *id, struct hpod_err *err);

/* Fills *out (new strings); HPOD_ENOTFOUND if there is no such study. */
enum hpod_status study_store_get(struct db *db, long long id, struct study *out,
                                 struct hpod_err *err);

/*
 * study_store_lock - inside a transaction, locks the study row (FOR
 * UPDATE): every per-study decision (issuing trials, promotions) holds it.
 * HPOD_ENOTFOUND if the study does not exist.
 */
enum hpod_status study_store_lock(struct db *db, long long id,
                                  struct hpod_err *err);

/* Newest first. *out is a new array of *n studies (free each + array). */
enum hpod_status study_store_list(struct db *db, long long limit,
                                  long long offset, struct study **out,
                                  size_t *n, long long *total,
                                  struct hpod_err *err);

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
