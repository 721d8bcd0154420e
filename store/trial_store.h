/*
 * store/trial_store.h - all SQL about trials and their reported values.
 *
 * State changes are single statements guarded by the expected state, or run
 * inside the caller's transaction after trial_store_get(..., for_update).
 */
#ifndef HPOD_TRIAL_STORE_H
#define HPOD_TRIAL_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"

/*
 * trial_store_held - renews the leases of the live trials that worker holds
 * in the study and returns them (new array, id order).
 */
enum hpod_status trial_store_held(struct db *db, long long study_id,
                                  const char *worker, int lease_seconds,
                                  struct trial **out, size_t *n,
                                  struct hpod_err *err);

/*
 * trial_store_row - row i of r (read with store/trial_cols.h's TRIAL_COLS)
 * as a trial, without values. trial_store_query - runs sql (rows:
 * TRIAL_COLS) with params and returns every row as trials (new array),
 * with their values and steps.
 */
void trial_store_row(const struct db_result *r, size_t i, struct trial *t);
enum hpod_status trial_store_query(struct db *db, const char *sql, int np,
                                   const char *const *p, struct trial **out,
                                   size_t *n, struct hpod_err *err);

/* Next 0-based issue number of the study (call with the study locked). */
enum hpod_status trial_store_next_seq(struct db *db, long long study_id,
                                      int *seq, struct hpod_err *err);

/*
 * Inserts a pending trial with a lease; candidate < 0: none; train_to < 1:
 * no fidelity to train to (only multistage sets one).
 */
enum hpod_status trial_store_insert(struct db *db, long long study_id, int seq,
                                    const char *params_json,
                                    long long candidate, const char *worker,
                                    int lease_seconds, long long train_to,
                                    struct trial *out, struct hpod_err *err);

/*
 * trial_store_insert, and when decision is not NULL the trial's "suggest"
 * decision (trial_decisions, seq 0, detail the JSON text decision) in the
 * same statement, as trial_store_insert then decision_store_add would.
 */
enum hpod_status
trial_store_insert_decided(struct db *db, long long study_id, int seq,
                           const char *params_json, long long candidate,
                           const char *worker, int lease_seconds,
                           long long train_to, const char *decision,
                           struct trial *out, struct hpod_err *err);

/*
 * trial_store_study_of - the study of trial id, in one light query (no
 * values, no steps): what a caller needs before it locks the trial.
 * HPOD_ENOTFOUND if the trial does not exist.
 */
enum hpod_status trial_store_study_of(struct db *db, long long id,
                                      long long *study_id,
                                      struct hpod_err *err);

/* One trial (FOR UPDATE when for_update, inside a transaction). */
enum hpod_status trial_store_get(struct db *db, long long id, int for_update,
                                 struct trial *out, struct hpod_err *err);

/*
 * A study's trials in id order; state < 0: all states. limit < 0: all.
 * *total (may be NULL) receives the count before paging.
 */
enum hpod_status trial_store_list(struct db *db, long long study_id, int state,
                                  long long limit, long long offset,
                                  struct trial **out, size_t *n,
                                  long long *total, struct hpod_err *err);

/* The text[] and float8[] literals of m's names and values (new strings),
 * for unnest($n::text[], $m::float8[]). */
void trial_store_array_literals(const struct metric_set *m, char **names,
                                char **values);

/*
 * trial_store_read_value - a stored double precision value as text
 * (PostgreSQL prints the shortest text that reads back to the same
 * double); HPOD_EINTERNAL when it does not read back.
 */
enum hpod_status trial_store_read_value(const char *text, long long trial_id,
                                        const char *metric, double *out,
                                        struct hpod_err *err);

/*
 * trial_store_history - what a sampler needs, in two light queries: every
 * trial of the study not failed by lease expiry, in id order, with only
 * id, state, candidate, train_to, params, excluded and values filled
 * (params NULL when the trial has a candidate: the caller knows it; no
 * steps).
 */
enum hpod_status trial_store_history(struct db *db, long long study_id,
                                     struct trial **out, size_t *n,
                                     struct hpod_err *err);

/*
 * trial_store_taken - the candidates held by the study's trials not
 * failed by lease expiry (what a model-free sampler on a finite space
 * needs): one index-only scan of trials_candidate_once, no params, no
 * values. *out is a new array of *n indices (unordered).
 */
enum hpod_status trial_store_taken(struct db *db, long long study_id,
                                   long long **out, size_t *n,
                                   struct hpod_err *err);

/*
 * trial_store_report - a final report: inserts the metrics of add (may be
 * NULL or empty; none of them may be stored yet: the caller checked under
 * the trial's row lock). complete: the trial becomes completed (its lease
 * ends); else it is running with its lease renewed by lease_seconds (a
 * decoupled report still waiting for some objective). row (may be NULL)
 * receives the trial's row as written, without values and steps.
 */
enum hpod_status trial_store_report(struct db *db, long long id,
                                    const struct metric_set *add, int complete,
                                    int lease_seconds, struct trial *row,
                                    struct hpod_err *err);

/*
 * trial_store_intermediate - records values for a step with the action the
 * server answers and the checkpoint the report named (NULL: none); if that
 * step was recorded before, nothing changes and *action_out receives the
 * stored action ("continue"/"stop", static string). The trial becomes
 * running and its lease is renewed.
 */
enum hpod_status
trial_store_intermediate(struct db *db, long long id, int step,
                         const struct metric_set *values, const char *action,
                         const char *checkpoint, int lease_seconds,
                         const char **action_out, struct hpod_err *err);

/*
 * trial_store_step_action - the action answered to the trial's report at
 * step, if that step was recorded (*found = 1; *action a static string).
 */
enum hpod_status trial_store_step_action(struct db *db, long long id, int step,
                                         int *found, const char **action,
                                         struct hpod_err *err);

/* One intermediate report of a study (trial_store_study_steps). */
struct step_row {
    long long trial_id;
    int step;
    struct metric_set values;
};
void step_rows_free(struct step_row *rows, size_t n);

/*
 * trial_store_study_steps - every intermediate report of the study's
 * trials (not failed by lease expiry, not excluded), by trial then step:
 * what ASHA rebuilds its rungs from on every decision.
 */
enum hpod_status trial_store_study_steps(struct db *db, long long study_id,
                                         struct step_row **out, size_t *n,
                                         struct hpod_err *err);

/*
 * trial_store_stop - ends a live trial's lease with state "paused" (may be
 * promoted later) or "pruned" (stopped for good), reason may be NULL.
 */
enum hpod_status trial_store_stop(struct db *db, long long id,
                                  enum trial_state state, const char *reason,
                                  struct hpod_err *err);

/*
 * trial_store_resume - a paused trial promoted to the next rung or stage:
 * running again under worker with a new lease, resuming from checkpoint
 * step; train_to >= 1 sets the step to train to, else it is kept.
 */
enum hpod_status trial_store_resume(struct db *db, long long id,
                                    const char *worker, int lease_seconds,
                                    long long resume_from_step,
                                    long long train_to, struct trial *out,
                                    struct hpod_err *err);

/* Sets the step a (paused) trial is to be trained to: its new stage. */
enum hpod_status trial_store_set_train_to(struct db *db, long long id,
                                          long long train_to,
                                          struct hpod_err *err);

/* Prunes every paused trial of a study (no promotion will come). */
enum hpod_status trial_store_prune_paused(struct db *db, long long study_id,
                                          struct hpod_err *err);

/* Renews the lease of a live trial; pending becomes running. */
enum hpod_status trial_store_heartbeat(struct db *db, long long id,
                                       int lease_seconds, struct hpod_err *err);

/* Marks a trial failed with reason (may be NULL). */
enum hpod_status trial_store_fail(struct db *db, long long id,
                                  const char *reason, struct hpod_err *err);

/*
 * trial_store_insert_user - a trial a user brings: values NULL: enqueued
 * (state "waiting", no worker, no lease); else added (state "completed",
 * origin "added", with those values). candidate < 0: none; metadata_json
 * NULL: {}. A candidate already held is the unique index's 409. *out is
 * the trial as stored.
 */
enum hpod_status trial_store_insert_user(
    struct db *db, long long study_id, int seq, const char *params_json,
    long long candidate, const char *metadata_json,
    const struct metric_set *values, struct trial *out, struct hpod_err *err);

/*
 * trial_store_claim_waiting - up to limit of the study's waiting trials,
 * oldest number first, become pending under worker with a lease; they are
 * returned in number order (new array). Call with the study locked.
 */
enum hpod_status trial_store_claim_waiting(struct db *db, long long study_id,
                                           const char *worker,
                                           int lease_seconds, long long limit,
                                           struct trial **out, size_t *n,
                                           struct hpod_err *err);

/* Replaces a trial's metadata (JSON object text). */
enum hpod_status trial_store_set_metadata(struct db *db, long long id,
                                          const char *metadata_json,
                                          struct hpod_err *err);

#endif
