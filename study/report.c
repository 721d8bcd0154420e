/*
 * study/report.c - the report rules and the report transaction; see
 * report.h.
 */
#include "study/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtoa.h"
#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "store/report_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "store/measure_store.h"
#include "study/defcache.h"
#include "study/measure.h"
#include "study/multifidelity.h" /* multifidelity_enabled, multifidelity_decide */
#include "study/trials.h"

void
report_input_clear(struct report_input *in)
{
    if (!in)
        return;
    metric_set_clear(&in->values);
    json_decref(in->metadata);
    in->metadata = NULL;
    free(in->checkpoint);
    in->checkpoint = NULL;
    in->step = -1;
}

/* "checkpoint": a string of 1 to CHECKPOINT_MAX bytes, on a report with a
 * step only (a final report has nothing to resume from). */
static enum hpod_status
checkpoint_from_json(json_t *v, struct report_input *out, struct hpod_err *err)
{
    if (!v || json_is_null(v))
        return HPOD_OK;
    if (!json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, "checkpoint",
                         "checkpoint must be a string (the URI of the "
                         "checkpoint saved at this step)");
    if (json_string_length(v) == 0 || json_string_length(v) > CHECKPOINT_MAX)
        return hpod_fail(err, HPOD_EUNPROC, "checkpoint",
                         "checkpoint must be 1 to %d bytes", CHECKPOINT_MAX);
    if (out->step < 0)
        return hpod_fail(err, HPOD_EUNPROC, "checkpoint",
                         "only an intermediate report (with step) carries "
                         "a checkpoint");
    out->checkpoint = xstrdup(json_string_value(v));
    return HPOD_OK;
}

enum hpod_status
report_from_json(json_t *body, struct report_input *out, struct hpod_err *err)
{
    static const char *const keys[] = {"values", "step", "metadata",
                                       "checkpoint", NULL};
    enum hpod_status st = HPOD_OK;
    json_t *v, *val;
    const char *key;
    char f[96];

    memset(out, 0, sizeof *out);
    out->step = -1;
    if (!json_is_object(body))
        return hpod_fail(err, HPOD_EINVAL, "", "body must be a JSON object");
    if ((st = hj_check_keys(body, keys, "", err)) != HPOD_OK)
        return st;
    v = json_object_get(body, "values");
    if (!v)
        return hpod_fail(err, HPOD_EINVAL, "values", "values is required");
    if (!json_is_object(v))
        return hpod_fail(err, HPOD_EINVAL, "values",
                         "values must be an object of metric: number");
    if (json_object_size(v) == 0 || json_object_size(v) > REPORT_MAX_METRICS)
        return hpod_fail(err, HPOD_EUNPROC, "values",
                         "values must hold 1 to %d metrics",
                         REPORT_MAX_METRICS);
    json_object_foreach(v, key, val)
    {
        snprintf(f, sizeof f, "values.%.64s", key);
        if (!metric_name_ok(key)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "metric name must be 1 to %d letters, digits, "
                           "'_', '.' or '-'",
                           METRIC_NAME_MAX);
            goto out;
        }
        if (!json_is_number(val)) {
            st = hpod_fail(err, HPOD_EINVAL, f, "%s must be a number", f);
            goto out;
        }
        if (json_is_integer(val) &&
            (json_integer_value(val) > HJ_MAX_EXACT_INT ||
             json_integer_value(val) < -HJ_MAX_EXACT_INT)) {
            st = hpod_fail(err, HPOD_EUNPROC, f,
                           "%s is an integer beyond 2^53 in magnitude, which "
                           "a double cannot hold exactly: send it as a float",
                           f);
            goto out;
        }
        if (!isfinite(json_number_value(val))) {
            st = hpod_fail(err, HPOD_EUNPROC, f, "%s must be finite", f);
            goto out;
        }
        /* jansson keeps one value per key: no duplicate reaches here. */
        metric_set_add(&out->values, key, json_number_value(val));
    }
    v = json_object_get(body, "metadata");
    if (v && !json_is_null(v)) {
        char *text = NULL;
        if ((st = hj_object_text(v, "metadata", METADATA_MAX, &text, err)) !=
            HPOD_OK)
            goto out;
        free(text);
        out->metadata = json_incref(v);
    }
    v = json_object_get(body, "step");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v)) {
            st = hpod_fail(err, HPOD_EINVAL, "step", "step must be an integer");
            goto out;
        }
        out->step = json_integer_value(v);
        if (out->step < 0 || out->step > REPORT_MAX_STEP) {
            st = hpod_fail(err, HPOD_EUNPROC, "step",
                           "step must be between 0 and %lld", REPORT_MAX_STEP);
            goto out;
        }
    }
    st = checkpoint_from_json(json_object_get(body, "checkpoint"), out, err);
out:
    if (st != HPOD_OK)
        report_input_clear(out);
    return st;
}

enum hpod_status
report_check_metrics(const struct study_def *d, const struct report_input *in,
                     struct hpod_err *err)
{
    for (size_t i = 0; i < in->values.n; i++) {
        const char *m = in->values.v[i].name;
        int known = 0;
        char f[96];
        for (size_t j = 0; j < d->n_objectives && !known; j++)
            known = strcmp(m, d->obj_names[j]) == 0;
        for (size_t c = 0; c < d->n_constraints && !known; c++)
            known = strcmp(m, d->con_metric[c]) == 0;
        if (known)
            continue;
        snprintf(f, sizeof f, "values.%s", m);
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "metric \"%s\" is neither an objective nor a "
                         "constrained metric of the study",
                         m);
    }
    return HPOD_OK;
}

/* report_merge: contract in report.h. */
void
report_merge(const struct study_def *d, const struct trial *t,
             const struct metric_set *in, struct metric_set *add, int *complete,
             size_t *conflict)
{
    *conflict = (size_t)-1;
    *complete = 1;
    for (size_t i = 0; i < in->n; i++) {
        const double *old = metric_set_find(&t->values, in->v[i].name);
        /* Exactly the same double: every stored value reads back exactly
         * (double precision column), so a retry compares equal. */
        if (old ? *old != in->v[i].value : t->state == TRIAL_COMPLETED) {
            *conflict = i;
            return;
        }
        if (!old)
            metric_set_add(add, in->v[i].name, in->v[i].value);
    }
    for (size_t j = 0; j < d->n_objectives; j++)
        *complete &= metric_set_find(&t->values, d->obj_names[j]) != NULL ||
                     metric_set_find(add, d->obj_names[j]) != NULL;
}

/* ---- the report transaction ---- */

static int
by_name(const void *a, const void *b)
{
    return strcmp(((const struct metric_value *)a)->name,
                  ((const struct metric_value *)b)->name);
}

/*
 * The answer of a final report without a read after the commit: the row
 * as the UPDATE returned it, the values t had (locked, so current) and
 * those added, and t's steps (a final report adds none). t is emptied.
 */
static void
report_answer(struct trial *t, const struct metric_set *add,
              struct trial *after)
{
    for (size_t i = 0; i < t->values.n; i++)
        metric_set_add(&after->values, t->values.v[i].name,
                       t->values.v[i].value);
    for (size_t i = 0; i < add->n; i++)
        metric_set_add(&after->values, add->v[i].name, add->v[i].value);
    /* In name order, as a read orders them (ORDER BY metric). */
    if (after->values.n > 1)
        qsort(after->values.v, after->values.n, sizeof *after->values.v,
              by_name);
    after->steps = t->steps;
    after->n_steps = t->n_steps;
    t->steps = NULL;
    t->n_steps = 0;
}

/*
 * A final report merged into locked trial t and written. *after receives
 * the trial as it stands at the commit (t itself, moved, when nothing
 * changed).
 */
/*
 * A decoupled study's trial (study/measure.h): what locked trial t was
 * asked to measure (*measure, caller frees; NULL: everything), checked
 * against the report in.
 */
static enum hpod_status
report_measure_check(struct db *db, const struct study_def *d,
                     const struct trial *t, const struct report_input *in,
                     char **measure, struct hpod_err *err)
{
    enum hpod_status st;
    *measure = NULL;
    if (!measure_decoupled(d))
        return HPOD_OK;
    if ((st = measure_store_get(db, t->id, measure, err)) != HPOD_OK)
        return st;
    return measure_check_report(*measure, &t->values, &in->values, err);
}

/*
 * After a final report adding add to live trial t, asked for measure: a
 * probe that failed completes the trial (*complete = 1); one that passed
 * asks the trial for the rest (its stored measure rewritten).
 */
static enum hpod_status
report_measure_after(struct db *db, const struct study_def *d,
                     const struct trial *t, const char *measure,
                     const struct metric_set *add, int *complete,
                     struct hpod_err *err)
{
    struct metric_set all = {0};
    char *next = NULL;
    int done = 0;
    enum hpod_status st = HPOD_OK;

    if (!measure || t->state == TRIAL_COMPLETED)
        return HPOD_OK;
    for (size_t i = 0; i < t->values.n; i++)
        metric_set_add(&all, t->values.v[i].name, t->values.v[i].value);
    for (size_t i = 0; i < add->n; i++)
        metric_set_add(&all, add->v[i].name, add->v[i].value);
    measure_after_report(d, measure, &all, &done, &next);
    *complete |= done;
    if (next)
        st = measure_store_put(db, t->id, next, err);
    free(next);
    metric_set_clear(&all);
    return st;
}

/*
 * The values of final report in that t lacks (*add) and whether t is
 * complete with them; HPOD_ECONFLICT when the report changes a stored
 * value or adds one to a completed trial.
 */
static enum hpod_status
report_decide(const struct study_def *d, const struct trial *t,
              const struct report_input *in, struct metric_set *add,
              int *complete, struct hpod_err *err)
{
    size_t bad;
    report_merge(d, t, &in->values, add, complete, &bad);
    if (bad == (size_t)-1)
        return HPOD_OK;
    const struct metric_value *m = &in->values.v[bad];
    const double *old = metric_set_find(&t->values, m->name);
    char f[96], num[HPOD_DTOA_SIZE];
    snprintf(f, sizeof f, "values.%s", m->name);
    if (!old)
        return hpod_fail(err, HPOD_ECONFLICT, f,
                         "trial %lld is completed: its values cannot change",
                         t->id);
    hpod_dtoa(*old, num);
    return hpod_fail(err, HPOD_ECONFLICT, f, "trial %lld already has %s = %s",
                     t->id, m->name, num);
}

/* Whether a final report adding add to t changes anything (a repeat of
 * what is stored writes nothing: idempotent). */
static int
report_writes(const struct trial *t, const struct metric_set *add, int complete)
{
    return add->n > 0 || (complete && t->state != TRIAL_COMPLETED) ||
           t->state == TRIAL_PENDING;
}

static enum hpod_status
report_final(struct db *db, const struct study_def *d, const struct study *s,
             struct trial *t, const struct report_input *in,
             struct trial *after, struct hpod_err *err)
{
    struct metric_set add = {0};
    int complete;
    char *measure = NULL;
    enum hpod_status st = HPOD_OK;

    if (t->state != TRIAL_PENDING && t->state != TRIAL_RUNNING &&
        t->state != TRIAL_COMPLETED)
        return trials_not_live(t, "report on", err);
    if ((st = report_measure_check(db, d, t, in, &measure, err)) != HPOD_OK ||
        (st = report_decide(d, t, in, &add, &complete, err)) != HPOD_OK)
        goto out;
    if (add.n > 0 && (st = report_measure_after(db, d, t, measure, &add,
                                                &complete, err)) != HPOD_OK)
        goto out;
    if (report_writes(t, &add, complete)) {
        st = trial_store_report(db, t->id, &add, complete, s->lease_seconds,
                                after, err);
        if (st == HPOD_OK)
            report_answer(t, &add, after);
    } else {
        *after = *t;
        memset(t, 0, sizeof *t);
    }
out:
    free(measure);
    metric_set_clear(&add);
    return st;
}

/* An intermediate report on locked trial t: decided, written, answered. */
static enum hpod_status
report_step(struct db *db, const struct study_def *d, const struct study *s,
            const struct trial *t, const struct report_input *in,
            const char **action, struct hpod_err *err)
{
    /* A step already recorded answers as before, whatever happened since
     * (a retried report after a "stop" finds the trial paused). */
    int found = 0;
    int step = (int)in->step;
    enum trial_state stopped = TRIAL_PAUSED;
    enum hpod_status st;

    if ((st = trial_store_step_action(db, t->id, step, &found, action, err)) !=
            HPOD_OK ||
        found)
        return st;
    if (t->state != TRIAL_PENDING && t->state != TRIAL_RUNNING)
        return trials_not_live(t, "report on", err);
    *action = "continue";
    if (multifidelity_enabled(d) &&
        (st = multifidelity_decide(db, d, s, t, step, &in->values, action,
                                   &stopped, err)) != HPOD_OK)
        return st;
    if ((st = trial_store_intermediate(db, t->id, step, &in->values, *action,
                                       in->checkpoint, s->lease_seconds, action,
                                       err)) != HPOD_OK)
        return st;
    /* ASHA's promotion mode and multistage pause (a later suggest may
     * resume it); ASHA's stopping mode prunes. */
    if (strcmp(*action, "stop") == 0)
        st = trial_store_stop(db, t->id, stopped,
                              d->algo.name == ALGO_MULTISTAGE
                                  ? "reached its stage's steps"
                                  : "stopped at a rung",
                              err);
    return st;
}

/* Merges metadata (an object) shallowly into locked trial t's. */
static enum hpod_status
merge_metadata(struct db *db, const struct trial *t, json_t *metadata,
               struct hpod_err *err)
{
    json_t *old = t->metadata ? hj_parse(t->metadata) : json_object();
    char *text = NULL;
    enum hpod_status st;

    if (!json_is_object(old)) {
        json_decref(old);
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "stored metadata of trial %lld cannot be read", t->id);
    }
    json_object_update(old, metadata);
    if ((st = hj_object_text(old, "metadata", METADATA_MAX, &text, err)) ==
        HPOD_OK)
        st = trial_store_set_metadata(db, t->id, text, err);
    free(text);
    json_decref(old);
    return st;
}

/* ---- a final report without a transaction (store/report_store.h) ---- */

/* Reads before a report falls back to the transaction, when other writers
 * keep changing the trial between its read and its write. */
#define REPORT_TRIES 4

/*
 * What a report read before its transaction: the row of report_store_read
 * and the study's parsed definition (study/defcache.h, one per study
 * version in the process), which a fallback to the locked transaction
 * uses as they are: the study is not read and its definition not parsed
 * again, and the trial is read again only if it changed since (or its
 * steps are needed).
 */
struct report_read {
    int read; /* r and def hold a read */
    struct report_row r;
    struct defcache_ref def;
};

static void
report_read_clear(struct report_read *rd)
{
    report_row_clear(&rd->r);
    defcache_release(&rd->def);
    rd->read = 0;
}

/*
 * This thread's last study: its reports usually are on one study (with
 * HPOD_THREADS=0 a client's keep-alive connection has its own thread), so
 * the read sends the version held of it and the definition's text comes
 * back only when it changed or the trial is another study's.
 */
static _Thread_local long long last_study;

/* Reads trial trial_id with its study's definition, parsed, into rd. */
static enum hpod_status
report_read(struct db *db, long long trial_id, struct report_read *rd,
            struct hpod_err *err)
{
    enum hpod_status st;

    report_row_clear(&rd->r);
    rd->read = 0;
    if (!rd->def.d && last_study)
        defcache_find(last_study, &rd->def);
    if ((st = report_store_read(db, trial_id, rd->def.study_id, rd->def.version,
                                &rd->r, err)) != HPOD_OK)
        return st;
    if (rd->r.study_id != rd->def.study_id) {
        defcache_release(&rd->def);
        defcache_find(rd->r.study_id, &rd->def);
    }
    if ((st = defcache_resolve(rd->r.study_id, rd->r.def_version,
                               rd->r.definition, &rd->def, err)) != HPOD_OK)
        return st;
    last_study = rd->r.study_id;
    rd->read = 1;
    return HPOD_OK;
}

/*
 * A final report without metadata, in two round trips: read (trial,
 * values, definition, version), decide, and write only if the trial's
 * version is still the one read; read again when it moved on. Trials with
 * intermediate reports and studies with decoupled constraints (whose
 * rules read and write more) answer *done = 0, with what was read in rd:
 * the caller runs the transaction. The checks and their order are the
 * transaction's.
 */
static enum hpod_status
report_unlocked(struct db *db, long long trial_id,
                const struct report_input *in, struct study_report_answer *out,
                int *done, struct report_read *rd, struct hpod_err *err)
{
    struct report_row *r = &rd->r;
    struct metric_set add = {0};
    struct trial after = {0};
    const struct study_def *d;
    int complete, written = 0;
    enum hpod_status st = HPOD_OK;

    *done = 0;
    for (int i = 0; i < REPORT_TRIES && !*done; i++) {
        metric_set_clear(&add);
        if ((st = report_read(db, trial_id, rd, err)) != HPOD_OK ||
            (st = report_check_metrics(d = rd->def.d, in, err)) != HPOD_OK)
            goto out;
        if (r->has_steps || measure_decoupled(d))
            goto out;
        if (r->trial.state != TRIAL_PENDING &&
            r->trial.state != TRIAL_RUNNING &&
            r->trial.state != TRIAL_COMPLETED) {
            st = trials_not_live(&r->trial, "report on", err);
            goto out;
        }
        if ((st = report_decide(d, &r->trial, in, &add, &complete, err)) !=
            HPOD_OK)
            goto out;
        if (!report_writes(&r->trial, &add, complete)) {
            out->trial = r->trial;
            memset(&r->trial, 0, sizeof r->trial);
            *done = 1;
            break;
        }
        if ((st = report_store_write(db, trial_id, r->version, &add, complete,
                                     r->lease_seconds, &written, &after,
                                     err)) != HPOD_OK)
            goto out;
        if (written) {
            report_answer(&r->trial, &add, &after);
            out->trial = after;
            memset(&after, 0, sizeof after);
            *done = 1;
        }
    }
out:
    metric_set_clear(&add);
    trial_clear(&after);
    return st;
}

/*
 * The transaction's reads, under its locks: the study (its row, and its
 * counts for the multi-fidelity rules) and its definition into s and
 * rd->def, and trial t locked. After report_unlocked's read (rd->read),
 * neither the study nor the definition is read again, and the trial only
 * if it changed since or its steps are needed.
 */
static enum hpod_status
report_lock(struct db *db, long long trial_id, const struct report_input *in,
            struct report_read *rd, struct study *s, struct trial *t,
            struct hpod_err *err)
{
    char version[STUDY_VERSION_MAX];
    int same = 0;
    enum hpod_status st;

    if (rd->read) {
        /* Only a final report falls back: no study lock, no counts. */
        s->id = rd->r.study_id;
        s->lease_seconds = rd->r.lease_seconds;
        if ((st = report_store_lock(db, trial_id, rd->r.version, &same, err)) !=
            HPOD_OK)
            return st;
        if (same && !rd->r.has_steps) {
            *t = rd->r.trial;
            memset(&rd->r.trial, 0, sizeof rd->r.trial);
            return HPOD_OK;
        }
        return trial_store_get(db, trial_id, 1, t, err);
    }
    if (!rd->def.d && last_study)
        defcache_find(last_study, &rd->def);
    if ((st = study_store_get_row_of_trial(db, trial_id, rd->def.study_id,
                                           rd->def.version, s, version, err)) !=
        HPOD_OK)
        return st;
    if (s->id != rd->def.study_id) {
        defcache_release(&rd->def);
        defcache_find(s->id, &rd->def);
    }
    if ((st = defcache_resolve(s->id, version, s->definition, &rd->def, err)) !=
            HPOD_OK ||
        (st = report_check_metrics(rd->def.d, in, err)) != HPOD_OK)
        return st;
    last_study = s->id;
    /* ASHA decisions compare the study's trials, so they are serialized
     * by the study lock, taken before the trial's (the order suggest uses
     * too). Only the multi-fidelity rules read the trial counts, a scan
     * of the study's trials (it was most of a report's time,
     * docs/report-p99.md). */
    if (multifidelity_enabled(rd->def.d)) {
        long long id = s->id;
        if (in->step >= 0 && (st = study_store_lock(db, id, err)) != HPOD_OK)
            return st;
        study_clear(s);
        if ((st = study_store_get(db, id, s, err)) != HPOD_OK)
            return st;
    }
    return trial_store_get(db, trial_id, 1, t, err);
}

/* report_submit: contract in report.h. */
enum hpod_status
report_submit(struct db *db, long long trial_id, const struct report_input *in,
              struct study_report_answer *out, struct hpod_err *err)
{
    struct trial t = {0}, after = {0};
    struct study s = {0};
    struct report_read rd = {0};
    const char *action = NULL;
    enum hpod_status st;

    memset(out, 0, sizeof *out);
    if (in->step < 0 && !in->metadata) {
        int done = 0;
        st = report_unlocked(db, trial_id, in, out, &done, &rd, err);
        if (st != HPOD_OK || done)
            goto out;
    }
    if ((st = db_begin(db, err)) != HPOD_OK ||
        (st = report_lock(db, trial_id, in, &rd, &s, &t, err)) != HPOD_OK)
        goto out;
    /* A final report moves t to after. Metadata merges into the stored
     * metadata: a report with metadata is answered by a read after the
     * commit. */
    st = in->step < 0 ? report_final(db, rd.def.d, &s, &t, in, &after, err)
                      : report_step(db, rd.def.d, &s, &t, in, &action, err);
    if (st == HPOD_OK && in->metadata)
        st = merge_metadata(db, in->step < 0 ? &after : &t, in->metadata, err);
    if (st != HPOD_OK || (st = db_commit(db, err)) != HPOD_OK)
        goto rollback;
    if (in->step < 0 && !in->metadata) {
        /* A final report knows the trial as committed (docs/report-p99.md: the
         * read after the commit was two of a cycle's twelve statements). */
        out->trial = after;
        memset(&after, 0, sizeof after);
    } else if ((st = trial_store_get(db, trial_id, 0, &out->trial, err)) ==
               HPOD_OK) {
        /* The trial as stored, read after the commit. */
        out->action = action;
    }
rollback:
    if (st != HPOD_OK)
        db_rollback(db);
out:
    report_read_clear(&rd);
    study_clear(&s);
    trial_clear(&t);
    trial_clear(&after);
    return st;
}

void
report_answer_clear(struct study_report_answer *a)
{
    if (!a)
        return;
    trial_clear(&a->trial);
    memset(a, 0, sizeof *a);
}
