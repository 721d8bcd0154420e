/*
 * study/suggest.h - what a worker trains next.
 *
 * study_suggest runs the whole decision in one transaction holding the
 * study row lock (SELECT ... FOR UPDATE), so any number of hpod processes
 * on one database issue trials as one would: lapsed leases are recovered,
 * the worker's live trials are handed back first, then paused trials that
 * multi-fidelity rules resume (ASHA promotions, multistage seeds), then
 * new configurations chosen by core/sampler (or core/mobo for
 * multi-objective and constrained studies) from the history and
 * inserted. The unique index on (study, candidate) backs the lock: a
 * finite candidate can never be held twice. With a seed, the same history
 * gives the same configurations.
 */
#ifndef HPOD_STUDY_SUGGEST_H
#define HPOD_STUDY_SUGGEST_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/algo.h"

/* Most trials one suggest may hand out. */
#define SUGGEST_MAX_COUNT 100

struct suggest_answer {
    struct trial *trials; /* n: held, resumed, then new ones, in order */
    /* n entries, for a study with a decoupled constraint (else NULL):
     * what trials[i] is asked to measure now, as JSON array text
     * (study/measure.h). */
    char **measures;
    size_t n;
    int done;                 /* n == 0 and nothing will ever be issued again */
    long long n_new;          /* trials newly issued (inserted, or claimed from
                                 the waiting ones), once committed (else 0) */
    long long n_expired;      /* leases found lapsed, once the study and the
                                 worker's trials are read; kept even if the call
                                 fails later (what the lease metric counts) */
    int has_algorithm;        /* 1 once the study's definition is read: */
    enum algo_name algorithm; /* its algorithm (study/algometrics.h) */
};

/*
 * study_suggest - up to count (1..SUGGEST_MAX_COUNT) trials for worker
 * (1 to 128 characters) in study study_id, in out (suggest_answer_cleanup,
 * also on failure). One transaction: nothing is written on failure.
 * HPOD_ENOTFOUND when the study does not exist; HPOD_EINTERNAL when a
 * stored row cannot be read or the sampler fails.
 */
enum hpod_status study_suggest(struct db *db, long long study_id,
                               const char *worker, long long count,
                               struct suggest_answer *out,
                               struct hpod_err *err);
/*
 * study_suggest_pooled - the same, but the call borrows a connection of
 * pool only when it leads a group (or runs alone): a call answered by
 * another call's transaction holds none while it waits. At most
 * max_held connections of the process are held by suggest leaders at
 * once (the rest of the pool stays free for reports and reads, which
 * then never queue behind a suggest waiting for a study lock).
 */
enum hpod_status study_suggest_pooled(struct db_pool *pool, size_t max_held,
                                      long long study_id, const char *worker,
                                      long long count,
                                      struct suggest_answer *out,
                                      struct hpod_err *err);
void suggest_answer_cleanup(struct suggest_answer *a);

/* Frees the per-process cache of candidates and sampler state. */
void suggest_cache_clear(void);

/* Inside study/ only: the groups (study/suggest_group.c, which defines
 * study_suggest and study_suggest_pooled) and their transaction
 * (study/suggest.c). */
/*
 * One suggest call of a group: its arguments, its answer, and where it
 * stands. Calls on one study in one process form a group: the first to
 * find no transaction under way leads, and answers every call queued
 * behind it in one transaction under one study lock and one commit.
 * Every call is answered as if the calls had run one after another in
 * that order (the counts are kept current between them); only the
 * waiting for the lock and the commit are shared (issue 14: 64 workers
 * queued on one lock, each paying a lock handoff and a commit).
 */
enum member_state { M_QUEUED, M_TAKEN, M_DONE, M_SOLO };

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
 * The transaction of members m[0..k-1] (k <= GROUP_MAX) of one study;
 * sets each m[i]->st. Returns 1 when it committed.
 */
int suggest_run(struct db *db, long long id, struct member **m, size_t k);

#endif
