/*
 * store/standby.h - reads that tolerate staleness on a streaming standby
 * (HPOD_READ_DATABASE_URL; docs/DEPLOY.md, "A standby for reads").
 *
 * A standby gets its own pool and becomes the stale reader of the primary
 * pool (db_pool_swap_stale): the routes that may read stale data swap
 * their primary connection for a standby one, while the standby is close
 * enough behind. A checker thread decides that every period: it reads the
 * primary's WAL position (pg_current_wal_lsn) and keeps the last ones with
 * their times; the standby is `lag` behind when the newest position it
 * has replayed (pg_last_wal_replay_lsn) is one the primary had `lag` ago.
 * Above max_lag_ms, or when the standby does not answer, reads go to the
 * primary; one line is logged when that starts and one when it ends. A
 * standby connection that fails when a request borrows it sends that
 * request to the primary and marks the standby down at once; one that
 * fails during the request's statement answers 503, as a primary would.
 */
#ifndef HPOD_STANDBY_H
#define HPOD_STANDBY_H

#include <stddef.h>

#include "store/db.h"

struct standby;

/*
 * standby_start - a pool of size connections to url (the standby) and the
 * checker, which also opens one connection of its own to each of url and
 * primary_url (the primary pool's URL); registers itself as primary's
 * stale reader. Reads go to the standby only after a first check found it
 * close enough.
 */
struct standby *standby_start(struct db_pool *primary, const char *primary_url,
                              const char *url, size_t size,
                              const struct db_opts *opts, long max_lag_ms);
/* Unregisters and stops the checker, closes everything. Accepts NULL.
 * No request may hold a standby connection. */
void standby_stop(struct standby *s);

/* The checker's period for a bound: a fifth of it, 20 to 250 ms. */
long standby_period_ms(long max_lag_ms);

/*
 * standby_lag_ms - how far behind a standby that has replayed up to lsn is,
 * given the primary's positions at[i] (ms) and lsn_at[i], i < n, oldest
 * first: now minus the newest time whose position it has. -1 when it has
 * none of them (at least now - at[0] behind).
 */
long long standby_lag_ms(const long long *at, const unsigned long long *lsn_at,
                         size_t n, unsigned long long lsn, long long now);

/* "16/B374D848" -> its 64-bit position; 0 on anything else. */
unsigned long long standby_parse_lsn(const char *text);

#endif
