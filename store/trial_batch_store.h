/*
 * store/trial_batch_store.h - the statements of a suggest group
 * (study/suggest.c), one round trip for all its calls instead of one per
 * call: the held trials of every worker of the group, and every new trial
 * of the group. Called inside the group's transaction, under the study
 * lock.
 */
#ifndef HPOD_TRIAL_BATCH_STORE_H
#define HPOD_TRIAL_BATCH_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"

/*
 * trial_batch_held - trial_store_held for the k workers at once: renews the
 * leases of the live trials any of them holds in the study and returns
 * them (new array, id order; each trial's worker says whose).
 */
enum hpod_status trial_batch_held(struct db *db, long long study_id,
                                  const char *const *workers, size_t k,
                                  int lease_seconds, struct trial **out,
                                  size_t *n, struct hpod_err *err);

/* One new trial of trial_batch_insert. */
struct trial_new {
    int seq;
    const char *params;  /* JSON text */
    long long candidate; /* < 0: none */
    const char *worker;
};

/*
 * trial_batch_insert - trial_store_insert for the k trials at once, each
 * pending with a lease of lease_seconds; train_to < 1: none. Returns the
 * k rows as stored (new array, seq order).
 */
enum hpod_status trial_batch_insert(struct db *db, long long study_id,
                                    const struct trial_new *t, size_t k,
                                    int lease_seconds, long long train_to,
                                    struct trial **out, size_t *n,
                                    struct hpod_err *err);

#endif
