/*
 * study/audit.h - the audit log (docs/audit.md): who changed what.
 *
 * Every write a user makes is recorded by audit_record inside the
 * transaction of the write, so the write and its event commit or roll
 * back together. The actions are a closed list (audit_action_ok): study
 * create, patch, delete; trial enqueue, add, fail, patch, exclude,
 * restore; token create,
 * revoke; benchmark import; simulation create, cancel. Suggests, reports,
 * heartbeats, preemptions and define-by-run parameters are a trainer's
 * traffic and are not recorded (the
 * trials they write carry their own times and worker). Reads are never
 * recorded.
 */
#ifndef HPOD_STUDY_AUDIT_H
#define HPOD_STUDY_AUDIT_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "store/audit_store.h"
#include "store/db.h"

/* 1 when s is one of the recorded actions. */
int audit_action_ok(const char *s);

/* The recorded actions, comma-separated (for error messages). */
const char *audit_actions_text(void);

/*
 * audit_record - records action on target ("study/12") by token by_token
 * (0: none: an open server or the command line; access_token_of) in the
 * caller's transaction. lab NULL: the lab of study_id, when given.
 * detail: a JSON object (stolen; NULL: {}).
 */
enum hpod_status audit_record(struct db *db, long long by_token,
                              const char *action, const char *lab,
                              long long study_id, const char *target,
                              json_t *detail, struct hpod_err *err);

/*
 * audit_since_ok - s is an RFC 3339 timestamp PostgreSQL reads as one:
 * YYYY-MM-DDTHH:MM:SS, optional fraction, then Z or +HH:MM/-HH:MM, with
 * every field in range (a day that the month has).
 */
int audit_since_ok(const char *s);

/*
 * audit_list - the events of f for a caller of lab who_lab ("": an
 * admin of every lab, who sees every event; else the admin of that lab,
 * who sees its events only: a filter naming another lab is HPOD_EDENIED).
 * f->action must be audit_action_ok and f->since audit_since_ok
 * (HPOD_EINVAL naming the parameter otherwise). Reads f->limit + 1 rows:
 * *more is 1 when there is a next page (its cursor is the last row's id).
 */
enum hpod_status audit_list(struct db *db, const char *who_lab,
                            struct audit_filter *f, struct audit_row **rows,
                            size_t *n, int *more, struct hpod_err *err);

#endif
