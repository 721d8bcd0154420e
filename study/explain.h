/*
 * study/explain.h - why a trial was suggested and what the multi-fidelity
 * rules decided about it (GET /v1/trials/{id}/explain).
 *
 * A model sampler's explanation (core/sampler.h, struct sampler_explain)
 * is recorded in the transaction that inserts the trial; promotions,
 * stops and stage seeding in the transaction that makes them (table
 * trial_decisions, store/decision_store.h). Nothing is recorded for a
 * random study's choices: the answer derives them from the algorithm.
 */
#ifndef HPOD_STUDY_EXPLAIN_H
#define HPOD_STUDY_EXPLAIN_H

#include <jansson.h>

#include "core/sampler.h"
#include "store/db.h"
#include "study/def.h"

/*
 * explain_records - 1 when suggest records its choices for study d
 * (every algorithm whose new configurations come from a model sampler).
 */
int explain_records(const struct study_def *d);

/*
 * explain_mobo - completes ex for a study whose choices go through
 * core/mobo (history_uses_mobo): by_mobo when core/mobo chose cand, else
 * sampler_next's random choice filled ex; n_mo observations (n_mo_complete
 * with every objective) and n_pend pending ones.
 * A model choice keeps what core/mobo filled (the acquisition at the pick
 * and the runners-up; no mean/sd: one surrogate per objective) and adds
 * what the model was given; a random one says whether it was the initial
 * design or a fallback.
 */
void explain_mobo(struct sampler_explain *ex, const struct study_def *d,
                  size_t n_mo, size_t n_mo_complete, size_t n_pend, int by_mobo,
                  size_t cand);

/*
 * explain_suggest_text - the "suggest" decision's detail for e (the
 * sampler's explanation of a trial's configuration; borrowed), as JSON
 * text the caller frees, or NULL when out of memory; the suggest path
 * records it with the trial (trial_store_insert_decided).
 */
char *explain_suggest_text(const struct study_def *d,
                           const struct sampler_explain *e);

/*
 * explain_decision - records a multi-fidelity decision (kind
 * "promote", "stop" or "stage") with detail (an object, stolen).
 */
enum hpod_status explain_decision(struct db *db, long long trial_id,
                                  const char *kind, json_t *detail,
                                  struct hpod_err *err);

/* explain_trial - the answer of GET /v1/trials/{id}/explain (*out a
 * new reference); HPOD_ENOTFOUND for an unknown trial. */
enum hpod_status explain_trial(struct db *db, long long trial_id, json_t **out,
                               struct hpod_err *err);

#endif
