/*
 * study/suggest_group.h - suggest calls queued per study and answered in
 * groups, each group's transaction admitted as one unit of its lab's
 * model work (study/labsched.h).
 *
 * Calls on one study in one process form a group: the first to find no
 * transaction of its study under way leads, and answers every call
 * queued behind it (up to GROUP_MAX) in one transaction under one study
 * lock and one commit. Every call is answered as if the calls had run
 * one after another in that order; only the waiting for the lock and the
 * commit are shared (64 workers used to queue on one lock, each paying
 * a lock handoff and a commit). Groups are per study: a live group exists
 * while calls of its study are queued or running, in a small hash map,
 * so no study ever waits behind another study's group. A group that
 * fails before its commit reruns each call alone, so one call's error is
 * never another call's answer.
 *
 * The leader borrows a pooled connection only for its transaction, after
 * its lab admitted it: a call that waits (for its study's group, for its
 * lab's slots) holds no connection, and at most `units` connections of
 * the process are held by suggests, so reports and reads always find
 * one. The transaction itself is the caller's (study/suggest.c passes
 * suggest_run); this file knows nothing of what it does.
 */
#ifndef HPOD_STUDY_SUGGEST_GROUP_H
#define HPOD_STUDY_SUGGEST_GROUP_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"

struct suggest_answer; /* study/suggest.h */

enum member_state { M_QUEUED, M_TAKEN, M_DONE, M_SOLO };

/* One suggest call of a group: its arguments, its answer, where it stands. */
struct member {
    long long study_id;
    const char *worker;
    long long count;
    struct suggest_answer *out;
    struct hpod_err *err;
    enum hpod_status st;
    enum member_state state;
    struct member *next;
};

#define GROUP_MAX 32

/*
 * The transaction of members m[0..k-1] (1 <= k <= GROUP_MAX) of study id
 * on db: sets each m[i]->st (and fills its answer); returns 1 when it
 * committed.
 */
typedef int (*suggest_group_fn)(struct db *db, long long id, struct member **m,
                                size_t k);

/* Where a group's transaction runs. */
struct suggest_group_conn {
    struct db *db;        /* the caller's connection, or NULL: one is */
    struct db_pool *pool; /* borrowed from pool for each transaction */
    size_t units;         /* the process's model units (labsched_enter) */
    const char *lab;      /* the study's lab */
};

/*
 * suggest_group_call - queues me (state M_QUEUED, its fields set) behind
 * the calls of its study, leads a group when its turn comes, and returns
 * me's status once it is answered. HPOD_ELIMIT when the lab's queue is
 * full (every call of that group gets it).
 */
enum hpod_status suggest_group_call(const struct suggest_group_conn *sc,
                                    struct member *me, suggest_group_fn run);

/* Live groups now (for tests): 0 once no call is in flight. */
size_t suggest_group_live(void);

#endif
