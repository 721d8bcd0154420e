/*
 * study/trials.c - a trial's lease, failure and reads; see trials.h.
 */
#include "study/trials.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/audit.h"

enum hpod_status
trials_not_live(const struct trial *t, const char *what, struct hpod_err *err)
{
    return hpod_fail(err, HPOD_ECONFLICT, "",
                     "cannot %s trial %lld: it is %s%s%.200s%s", what, t->id,
                     trial_state_name(t->state), t->reason ? " (" : "",
                     t->reason ? t->reason : "", t->reason ? ")" : "");
}

enum hpod_status
trials_get(struct db *db, long long id, struct trial *out, struct hpod_err *err)
{
    return trial_store_get(db, id, 0, out, err);
}

enum hpod_status
trials_list(struct db *db, long long study_id, int state, long long limit,
            long long offset, struct trial **rows, size_t *n, long long *total,
            struct hpod_err *err)
{
    struct study s = {0};
    enum hpod_status st;

    *rows = NULL;
    *n = 0;
    if ((st = study_store_get(db, study_id, &s, err)) == HPOD_OK)
        st = trial_store_list(db, study_id, state, limit, offset, rows, n,
                              total, err);
    study_clear(&s);
    return st;
}

enum hpod_status
trials_heartbeat(struct db *db, long long id, struct trial *out,
                 struct hpod_err *err)
{
    struct trial t = {0};
    struct study s = {0};
    enum hpod_status st;

    if ((st = db_begin(db, err)) != HPOD_OK ||
        (st = trial_store_get(db, id, 1, &t, err)) != HPOD_OK)
        goto out;
    if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING) {
        st = trials_not_live(&t, "renew the lease of", err);
        goto out;
    }
    if ((st = study_store_get(db, t.study_id, &s, err)) != HPOD_OK ||
        (st = trial_store_heartbeat(db, t.id, s.lease_seconds, err)) !=
            HPOD_OK ||
        (st = db_commit(db, err)) != HPOD_OK)
        goto out;
    st = trial_store_get(db, id, 0, out, err);
out:
    if (st != HPOD_OK)
        db_rollback(db);
    study_clear(&s);
    trial_clear(&t);
    return st;
}

const char *
trials_target(long long id, char buf[48])
{
    snprintf(buf, 48, "trial/%lld", id);
    return buf;
}

enum hpod_status
trials_fail(struct db *db, long long id, const char *reason,
            const struct principal *by, struct trial *out, struct hpod_err *err)
{
    struct trial t = {0};
    char target[48];
    enum hpod_status st;

    if ((st = db_begin(db, err)) != HPOD_OK ||
        (st = trial_store_get(db, id, 1, &t, err)) != HPOD_OK)
        goto out;
    if (t.state == TRIAL_COMPLETED || t.state == TRIAL_PRUNED) {
        st = trials_not_live(&t, "fail", err);
        goto out;
    }
    if (t.state != TRIAL_FAILED &&
        ((st = trial_store_fail(db, t.id, reason ? reason : "failed", err)) !=
             HPOD_OK ||
         (st = audit_record(db, access_token_of(by), "trial.fail", NULL,
                            t.study_id, trials_target(t.id, target),
                            json_pack("{s:s, s:i}", "reason",
                                      reason ? reason : "failed", "number",
                                      t.seq),
                            err)) != HPOD_OK))
        goto out;
    if ((st = db_commit(db, err)) != HPOD_OK)
        goto out;
    st = trial_store_get(db, id, 0, out, err);
out:
    if (st != HPOD_OK)
        db_rollback(db);
    trial_clear(&t);
    return st;
}
