/*
 * study/reaper.h - the lease reaper: a thread that recovers lapsed trial
 * leases every period without any client action (a suggest also recovers
 * its own study's). `hpod serve` and `hpod worker` each run one; any
 * number of processes may, since each recovery is one statement. It also
 * keeps the audit log to its retention (docs/audit.md): at most once a
 * minute, events older than audit_days days are deleted, in batches of
 * REAPER_AUDIT_BATCH.
 */
#ifndef HPOD_REAPER_H
#define HPOD_REAPER_H

#include <stdatomic.h>

#include "store/db.h"

struct reaper;

#define REAPER_AUDIT_BATCH 10000
#define REAPER_AUDIT_EVERY_MS 60000

/* Starts the thread on pool (borrowed, outlives the reaper); it adds what
 * it recovers to *expired_total (may be NULL) and logs it. audit_days:
 * the audit log's retention (HPOD_AUDIT_DAYS, >= 1). */
struct reaper *reaper_start(struct db_pool *pool, long period_ms,
                            long audit_days, atomic_llong *expired_total);
/* Stops and joins the thread and frees r. Accepts NULL. */
void reaper_stop(struct reaper *r);

#endif
