/*
 * study/labsched.h - model work admitted fairly between labs.
 *
 * Model work is what may compute for seconds: a suggest's transaction
 * (its fit and acquisition) and an importance fit. Each unit of it enters
 * here first and leaves when done. A process runs at most `units` at once
 * (the connections suggests may hold: server/http.c's suggest_conns), and
 * each lab at most `lab_slots` of them (HPOD_LAB_MODEL_SLOTS; 0, the
 * default, is half the units and half the CPUs, whichever is fewer, at
 * least 1), so one lab's heavy work never fills the process or the
 * machine: another lab's work finds a unit and a core free
 * (docs/model-latency.md, "A trainer beside another lab's model work"). When
 * units are short, a freed unit goes to the waiting lab with the fewest running
 * units, the earliest waiter first among equals (round-robin between
 * busy labs). A lab's waiters are bounded (HPOD_LAB_QUEUE): past it the
 * work is refused with HPOD_ELIMIT (429, Retry-After), never queued
 * without end. A study's lab is its owner ("" is a lab too); the work of
 * unrelated studies of one lab waits for nothing but the lab's slots.
 *
 * Process-local: it shares CPU fairly between the labs this process
 * serves; several processes each apply it to their own requests.
 */
#ifndef HPOD_STUDY_LABSCHED_H
#define HPOD_STUDY_LABSCHED_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "study/access.h"

/* Seconds a refused caller is told to wait (Retry-After). */
#define LABSCHED_RETRY_SECONDS 2

/* A unit of admitted work: labsched_enter fills it, labsched_leave ends
 * it (caller-owned; leave is a no-op on a ticket that holds nothing). */
struct labsched_ticket {
    char lab[ACCESS_LAB_MAX + 1];
    int held;
};

/*
 * labsched_configure - per-lab slots (0: half the units and half of cpus,
 * the processors the process may run on, whichever is fewer, at least 1)
 * and the most waiters a lab may have (0: none wait; past it 429). Called
 * once at start-up; the defaults are 0, 64 and cpus unknown (0: the units
 * alone decide).
 */
void labsched_configure(long lab_slots, long lab_queue, long cpus);

/*
 * labsched_enter - waits until a unit is free for lab (one of units per
 * process, units >= 1) and takes it. HPOD_ELIMIT (with retry_after) when
 * the lab already has its queue full of waiters; nothing is held then.
 */
enum hpod_status labsched_enter(size_t units, const char *lab,
                                struct labsched_ticket *t,
                                struct hpod_err *err);
void labsched_leave(struct labsched_ticket *t);

/* What the scheduler holds now (for /metrics and tests). */
struct labsched_stats {
    size_t running, waiting, labs;
    unsigned long long admitted, refused; /* since start */
};
void labsched_stats(struct labsched_stats *out);

/*
 * labsched_study_lab - the lab that owns study study_id (lab_size bytes)
 * through a per-process cache: a study's lab never changes and its id is
 * never reused, so a lab once read is kept (a bounded table). On a miss,
 * db is used (db NULL: a connection is borrowed from pool for the one
 * statement). HPOD_ENOTFOUND when the study does not exist.
 */
enum hpod_status labsched_study_lab(struct db *db, struct db_pool *pool,
                                    long long study_id, char *lab,
                                    size_t lab_size, struct hpod_err *err);

#endif
