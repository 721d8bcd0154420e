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

/* Most trials one suggest may hand out. */
#define SUGGEST_MAX_COUNT 100

struct suggest_answer {
    struct trial *trials; /* n: held, resumed, then new ones, in order */
    /* n entries, for a study with a decoupled constraint (else NULL):
     * what trials[i] is asked to measure now, as JSON array text
     * (study/measure.h). */
    char **measures;
    size_t n;
    int done;            /* n == 0 and nothing will ever be issued again */
    long long n_new;     /* trials newly issued (inserted, or claimed from
                            the waiting ones), once committed (else 0) */
    long long n_expired; /* leases found lapsed, once the study and the
                            worker's trials are read; kept even if the call
                            fails later (what the lease metric counts) */
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
void suggest_answer_cleanup(struct suggest_answer *a);

/* Frees the per-process cache of candidates and sampler state. */
void suggest_cache_clear(void);

#endif
