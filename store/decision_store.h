/*
 * store/decision_store.h - the decisions recorded about a trial (table
 * trial_decisions, migration 0011): why it was suggested, and what the
 * multi-fidelity rules decided about it later. The caller runs the write
 * in the transaction of the decision itself.
 */
#ifndef HPOD_DECISION_STORE_H
#define HPOD_DECISION_STORE_H

#include <stddef.h>

#include "store/db.h"

struct decision {
    int seq;
    char *at;     /* ISO 8601 text, UTC */
    char *kind;   /* "suggest", "promote", "stop", "stage" */
    char *detail; /* JSON object text */
};

/*
 * decision_store_add - appends a decision (next seq of the trial) with
 * kind and detail (JSON object text).
 */
enum hpod_status decision_store_add(struct db *db, long long trial_id,
                                    const char *kind, const char *detail,
                                    struct hpod_err *err);

/* decision_store_list - the trial's decisions by seq (*out owned; free
 * with decision_list_free). */
enum hpod_status decision_store_list(struct db *db, long long trial_id,
                                     struct decision **out, size_t *n,
                                     struct hpod_err *err);

void decision_list_free(struct decision *d, size_t n);

#endif
