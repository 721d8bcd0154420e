/*
 * store/exclude_store.h - a trial taken out of the model by a user, or
 * put back (trials.excluded_*, migration 0031).
 */
#ifndef HPOD_EXCLUDE_STORE_H
#define HPOD_EXCLUDE_STORE_H

#include "common/status.h"
#include "store/db.h"

/*
 * exclude_store_set - marks trial id excluded now with reason, by the
 * token token_id ("token <id> (<note>)"; "" when token_id is 0: an open
 * server), unless it is excluded already (*changed = 0: the first
 * exclusion stays).
 */
enum hpod_status exclude_store_set(struct db *db, long long id,
                                   const char *reason, long long token_id,
                                   int *changed, struct hpod_err *err);

/* exclude_store_clear - undoes it (*changed = 0: it was not excluded). */
enum hpod_status exclude_store_clear(struct db *db, long long id, int *changed,
                                     struct hpod_err *err);

#endif
