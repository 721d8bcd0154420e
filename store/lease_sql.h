/*
 * store/lease_sql.h - the one lease-lapse statement (internal to store/:
 * lease_store.c and history_store.c run it, alone or before a read).
 *
 * A live trial whose lease lapsed is failed ("lease expired", its
 * candidate free again), unless it reported a checkpoint: then it goes
 * back to the queue as a preempted trial (docs/trainer.md): state
 * 'waiting', no worker, resume_from_step its last reported step, so that
 * the next suggest hands it out first. LEASE_LAPSE(filter) is two CTEs,
 * lapsed and e; e returns the rows it changed (id, state, candidate,
 * train_to, lease_expired: a failed one has lease_expired set, a requeued
 * one not; params as text when the trial has no candidate; excluded).
 * filter is
 * "t.study_id = $1 AND" or "".
 */
#ifndef HPOD_LEASE_SQL_H
#define HPOD_LEASE_SQL_H

/* One clause per line reads better than clang-format's packing. */
/* clang-format off */
#define LEASE_LAPSE(filter) \
    " lapsed AS (SELECT t.id, k.last_step, coalesce(k.has, false) AS ck" \
    "  FROM trials t LEFT JOIN LATERAL (SELECT max(i.step) AS last_step," \
    "   bool_or(i.checkpoint IS NOT NULL) AS has FROM intermediate_values i" \
    "   WHERE i.trial_id = t.id) k ON true" \
    "  WHERE " filter " t.state IN ('pending', 'running')" \
    "  AND t.lease_expires_at < now())," \
    " e AS (UPDATE trials t SET" \
    "  state = CASE WHEN l.ck THEN 'waiting' ELSE 'failed' END," \
    "  reason = CASE WHEN l.ck THEN 'preempted: lease expired'" \
    "   ELSE 'lease expired' END," \
    "  lease_expired = NOT l.ck, lease_expires_at = NULL," \
    "  worker = CASE WHEN l.ck THEN '' ELSE t.worker END," \
    "  resume_from_step = CASE WHEN l.ck THEN l.last_step" \
    "   ELSE t.resume_from_step END," \
    "  updated_at = now() FROM lapsed l WHERE t.id = l.id" \
    "  AND t.state IN ('pending', 'running') AND t.lease_expires_at < now()" \
    "  RETURNING t.id, t.state, t.candidate, t.train_to, t.lease_expired," \
    "  CASE WHEN t.candidate IS NULL THEN t.params::text END AS params," \
    "  t.excluded_at IS NOT NULL AS excluded)"
/* clang-format on */

#endif
