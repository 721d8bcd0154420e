/*
 * study/suggest.h - what a worker trains next: POST
 * /v1/studies/{id}/suggest's decision (handlers/suggest.c calls
 * suggest_trials).
 *
 * suggest_trials runs the whole decision in one transaction holding the
 * study row lock (SELECT ... FOR UPDATE), so any number of hpod processes
 * on one database issue trials as one would: lapsed leases are recovered,
 * the worker's live trials are handed back first, then paused trials that
 * multi-fidelity rules resume (ASHA promotions, multistage seeds), then
 * new configurations chosen by core/sampler (or core/mobo for
 * multi-objective and constrained studies) from the history and
 * inserted. The unique index on (study, candidate) backs the lock: a
 * finite candidate can never be held twice. With a seed, the same history
 * gives the same configurations.
 *
 * Calls on one study in one process share a transaction
 * (study/suggest_group.h), admitted as one unit of the study's lab's
 * model work (study/labsched.h). The study row is read once per
 * transaction, its definition parsed once per version (study/defcache.h),
 * its history and sampler state kept between calls (study/histcache.h,
 * study/samplercache.h) under the model-memory budget
 * (study/modelcache.h).
 */
#ifndef HPOD_STUDY_SUGGEST_H
#define HPOD_STUDY_SUGGEST_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/algo.h"
#include "study/suggest_group.h"

/* Most trials one suggest may hand out. */
#define SUGGEST_MAX_COUNT 100

struct suggest_answer {
    struct trial *trials; /* n: held, resumed, then new ones, in order */
    json_t **params;      /* n: trials[i]'s params, parsed (owned) */
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
 * suggest_trials - up to count (1..SUGGEST_MAX_COUNT) trials for worker
 * (1 to 128 characters) in study study_id, in out (suggest_answer_clear,
 * also on failure). via says where the transaction runs (a connection,
 * or one borrowed from a pool only while the call leads its group), the
 * process's model units and the caller's lab ("" or NULL: every lab; the
 * study's own lab is then looked up). One transaction: nothing is
 * written on failure. HPOD_ENOTFOUND when the study does not exist;
 * HPOD_ELIMIT (429) when the lab's model-work queue is full; HPOD_EBUSY
 * (503) when the model-memory budget has no room for the study's model;
 * HPOD_EINTERNAL when a stored row cannot be read or the sampler fails.
 */
enum hpod_status suggest_trials(const struct suggest_group_conn *via,
                                long long study_id, const char *worker,
                                long long count, struct suggest_answer *out,
                                struct hpod_err *err);
void suggest_answer_clear(struct suggest_answer *a);

/* Frees every model cache of the process (at shutdown). */
void suggest_cache_clear(void);

#endif
