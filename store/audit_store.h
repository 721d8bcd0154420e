/*
 * store/audit_store.h - SQL about the audit log (table audit_events,
 * migration 0021; docs/audit.md): an event inserted inside the caller's
 * transaction, the events read back with filters, newest first, and the
 * old ones deleted.
 */
#ifndef HPOD_AUDIT_STORE_H
#define HPOD_AUDIT_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"

/* One event to record. */
struct audit_row_in {
    long long token_id; /* the caller's token; 0: none (open server, CLI) */
    const char *lab;    /* NULL: the lab of study_id, if given, else none */
    const char *action; /* "study.create", ... ([a-z]+.[a-z]+) */
    const char *target; /* "study/12", "trial/40", "token/3", ... */
    long long study_id; /* the study it is about; 0: none */
    const char *detail; /* JSON object text; NULL: {} */
};

/*
 * audit_store_insert - records in; the token's note is copied from
 * tokens. Call inside the transaction of the write it records.
 */
enum hpod_status audit_store_insert(struct db *db,
                                    const struct audit_row_in *in,
                                    struct hpod_err *err);

/* Which events to read; NULL or 0 fields match every event. */
struct audit_filter {
    const char *lab;
    long long study_id;
    long long token_id;
    const char *action;
    const char *since;   /* an RFC 3339 timestamp: events at or after it */
    long long before_id; /* the page cursor: ids below it only */
    long long limit;     /* rows to read (>= 1) */
};

/* One event as stored. */
struct audit_row {
    long long id;
    char *at; /* RFC 3339 UTC */
    long long token_id;
    char *token_note; /* NULL when token_id is 0 */
    char *lab;        /* NULL: none */
    char *action, *target;
    long long study_id; /* 0: none */
    char *detail;       /* JSON object text */
};

/* audit_store_list - the events f selects, newest first (*out: a new
 * array; audit_rows_free). */
enum hpod_status audit_store_list(struct db *db, const struct audit_filter *f,
                                  struct audit_row **out, size_t *n,
                                  struct hpod_err *err);
void audit_rows_free(struct audit_row *rows, size_t n);
/* Frees one row's fields and zeroes it. */
void audit_row_clear(struct audit_row *e);

/*
 * audit_store_prune - deletes at most max_rows events older than days
 * days (*deleted: how many), in one statement of its own.
 */
enum hpod_status audit_store_prune(struct db *db, long days, long max_rows,
                                   long long *deleted, struct hpod_err *err);

#endif
