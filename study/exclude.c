/*
 * study/exclude.c - exclusions; see exclude.h.
 */
#include "study/exclude.h"

#include "store/exclude_store.h"
#include "store/gp_model_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/audit.h"
#include "study/trials.h"

/* Sets (exclude) or clears trial id's exclusion in one transaction under
 * the study lock, the order suggest takes, with its audit event. */
static enum hpod_status
exclusion(struct db *db, long long id, int exclude, const char *reason,
          const struct principal *by, struct trial *out, struct hpod_err *err)
{
    long long study_id = 0, token_id = access_token_of(by);
    int changed = 0;
    char target[48];
    enum hpod_status st;

    if ((st = trial_store_study_of(db, id, &study_id, err)) != HPOD_OK ||
        (st = db_begin(db, err)) != HPOD_OK)
        return st;
    if ((st = study_store_lock(db, study_id, err)) != HPOD_OK)
        goto out;
    st = exclude ? exclude_store_set(db, id, reason, token_id, &changed, err)
                 : exclude_store_clear(db, id, &changed, err);
    /* The kept hyperparameters were fitted with (or without) the trial. */
    if (st == HPOD_OK && changed)
        st = gp_model_store_drop(db, study_id, err);
    if (st == HPOD_OK)
        st = audit_record(
            db, token_id, exclude ? "trial.exclude" : "trial.restore", NULL,
            study_id, trials_target(id, target),
            json_pack("{s:s?, s:b}", "reason", reason, "changed", changed),
            err);
    if (st != HPOD_OK || (st = db_commit(db, err)) != HPOD_OK)
        goto out;
    return trial_store_get(db, id, 0, out, err);
out:
    db_rollback(db);
    return st;
}

enum hpod_status
exclude_trial(struct db *db, long long id, const char *reason,
              const struct principal *by, struct trial *out,
              struct hpod_err *err)
{
    return exclusion(db, id, 1, reason ? reason : "", by, out, err);
}

enum hpod_status
exclude_restore(struct db *db, long long id, const char *reason,
                const struct principal *by, struct trial *out,
                struct hpod_err *err)
{
    return exclusion(db, id, 0, reason, by, out, err);
}
