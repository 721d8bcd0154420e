/*
 * study/dbr.c - define-by-run; see dbr.h.
 */
#include "study/dbr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"
#include "core/rng.h"
#include "store/dbr_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/def.h"
#include "study/trials.h"

/* The stream of a parameter drawn for a trial: the study's seed, the
 * trial's number and the parameter's index, so that a retry draws alike. */
#define DBR_STREAM(seq, i) (0x64627200ULL + ((uint64_t)(seq) << 8) + (i))

/* Removes every "space[0]." (and a bare "space[0]") from text: the
 * entry was checked as the first of a space, but the body is the entry. */
static void
unprefix(char *text)
{
    char *at;
    while ((at = strstr(text, "space[0]"))) {
        size_t k = 8 + (at[8] == '.');
        memmove(at, at + k, strlen(at + k) + 1);
    }
}

/*
 * The entry alone, checked by the definition parser as the only entry of
 * a space: *norm its normalized form (new reference). An error's field
 * is the entry's own ("low"), not the space's ("space[0].low").
 */
static enum hpod_status
entry_check(json_t *entry, json_t **norm, struct hpod_err *err)
{
    struct study_def d = {0};
    enum hpod_status st;

    *norm = NULL;
    if (!json_is_object(entry))
        return hpod_fail(err, HPOD_EINVAL, "", "body must be a space entry");
    if (json_object_get(entry, "condition"))
        return hpod_fail(err, HPOD_EUNPROC, "condition",
                         "a parameter asked for by a trial exists in the "
                         "trials that ask for it: leave condition out");
    if (json_object_get(entry, "added_in"))
        return hpod_fail(err, HPOD_EUNPROC, "added_in",
                         "added_in is set by hpod when a parameter joins");
    json_t *body =
        json_pack("{s:s, s:[O], s:[{s:s, s:s}]}", "name", "entry", "space",
                  entry, "objectives", "name", "y", "goal", "minimize");
    st = def_from_json(body, &d, err);
    json_decref(body);
    if (st == HPOD_OK) {
        *norm = json_incref(json_array_get(json_object_get(d.def, "space"), 0));
    } else {
        unprefix(err->field);
        unprefix(err->msg);
    }
    def_clear(&d);
    return st;
}

/* 1 if stored entry a defines what b does ("added_in" aside). */
static int
same_entry(json_t *a, json_t *b)
{
    json_t *x = json_deep_copy(a), *y = json_deep_copy(b);
    json_object_del(x, "added_in");
    json_object_del(y, "added_in");
    char *tx = hj_dump(x, JSON_SORT_KEYS), *ty = hj_dump(y, JSON_SORT_KEYS);
    int same = tx && ty && strcmp(tx, ty) == 0;
    free(tx);
    free(ty);
    json_decref(x);
    json_decref(y);
    return same;
}

/* The study's definition with entry joined (its new space version), as
 * the study *d then is (re-parsed) and stored. */
static enum hpod_status
join(struct db *db, long long study_id, struct study_def *d, json_t *entry,
     struct hpod_err *err)
{
    json_t *nd = json_deep_copy(d->def);
    json_t *e = json_deep_copy(entry);
    long long version = d->space_version + 1;
    struct study_def grown = {0};
    char *text = NULL;
    enum hpod_status st;

    json_object_set_new(e, "added_in", json_integer(version));
    json_array_append_new(json_object_get(nd, "space"), e);
    json_object_set_new(nd, "space_version", json_integer(version));
    if ((st = def_from_json(nd, &grown, err)) != HPOD_OK)
        goto out;
    text = hj_dump(grown.def, 0);
    if ((st = dbr_store_set_definition(db, study_id, text, err)) != HPOD_OK)
        goto out;
    def_clear(d);
    *d = grown;
    memset(&grown, 0, sizeof grown);
out:
    free(text);
    def_clear(&grown);
    json_decref(nd);
    return st;
}

/* Trial t's value of parameter i of d (new reference): its proposal's,
 * else a draw from the parameter's prior on the trial's stream. */
static enum hpod_status
choose(struct db *db, const struct study_def *d, const struct trial *t,
       size_t i, json_t **value, struct hpod_err *err)
{
    char *text = NULL;
    enum hpod_status st = dbr_store_get_proposal(db, t->id, &text, err);
    json_t *prop = st == HPOD_OK && text ? hj_parse(text) : NULL;
    json_t *v = json_object_get(prop, d->names[i]);

    free(text);
    if (st != HPOD_OK) {
        json_decref(prop);
        return st;
    }
    if (v) {
        *value = json_incref(v);
        json_decref(prop);
        return HPOD_OK;
    }
    json_decref(prop);
    size_t np = d->space.n_params;
    double *raw = xmalloc(np * sizeof *raw);
    struct rng r;
    rng_seed2(&r, (uint64_t)d->algo.seed, DBR_STREAM(t->seq, i));
    space_sample(&d->space, &r, raw);
    for (size_t k = 0; k < np; k++)
        if (k != i)
            raw[k] = NAN;
    json_t *one = params_to_json(d, raw);
    *value = json_incref(json_object_get(one, d->names[i]));
    json_decref(one);
    free(raw);
    return HPOD_OK;
}

/* Trial t asks for entry (normalized) of study s: *value, written into
 * the trial's params unless it had it. */
static enum hpod_status
ask(struct db *db, const struct study *s, const struct trial *t, json_t *entry,
    json_t **value, struct hpod_err *err)
{
    struct study_def d = {0};
    const char *name = json_string_value(json_object_get(entry, "name"));
    json_t *params = NULL;
    char *text = NULL;
    size_t i;
    enum hpod_status st;

    if ((st = def_from_text(s->definition, &d, err)) != HPOD_OK)
        goto out;
    if (s->n_candidates >= 0 || d.benchmark) {
        st = hpod_fail(err, HPOD_ECONFLICT, "name",
                       "study %lld has a fixed space (its candidates or its "
                       "table): no parameter can join it",
                       s->id);
        goto out;
    }
    for (i = 0; i < d.space.n_params && strcmp(d.names[i], name); i++)
        ;
    if (i < d.space.n_params &&
        !same_entry(json_array_get(json_object_get(d.def, "space"), i),
                    entry)) {
        char *have =
            hj_dump(json_array_get(json_object_get(d.def, "space"), i), 0);
        hpod_fail(err, HPOD_ECONFLICT, "name",
                  "study %lld defines %s otherwise: %.400s", s->id, name,
                  have ? have : "?");
        free(have);
        st = HPOD_ECONFLICT;
        goto out;
    }
    if (i == d.space.n_params &&
        (st = join(db, s->id, &d, entry, err)) != HPOD_OK)
        goto out;
    params = hj_parse(t->params);
    if (!json_is_object(params)) {
        st = hpod_fail(err, HPOD_EINTERNAL, "", "a stored row cannot be read");
        goto out;
    }
    if ((*value = json_incref(json_object_get(params, name))))
        goto out; /* asked before: the same value */
    if ((st = choose(db, &d, t, i, value, err)) != HPOD_OK)
        goto out;
    json_object_set(params, name, *value);
    text = hj_dump(params, 0);
    st = dbr_store_set_params(db, t->id, text, err);
out:
    if (st != HPOD_OK) {
        json_decref(*value);
        *value = NULL;
    }
    free(text);
    json_decref(params);
    def_clear(&d);
    return st;
}

enum hpod_status
dbr_trial_param(struct db *db, long long id, json_t *entry, json_t **value,
                struct hpod_err *err)
{
    json_t *norm = NULL;
    struct study s = {0};
    struct trial t = {0};
    long long study_id = 0;
    enum hpod_status st;

    *value = NULL;
    if ((st = entry_check(entry, &norm, err)) != HPOD_OK ||
        (st = trial_store_study_of(db, id, &study_id, err)) != HPOD_OK ||
        (st = db_begin(db, err)) != HPOD_OK)
        goto done;
    /* The study lock first, as suggest takes it: the space grows under it. */
    if ((st = study_store_lock(db, study_id, err)) != HPOD_OK ||
        (st = study_store_get_row(db, study_id, &s, err)) != HPOD_OK ||
        (st = trial_store_get(db, id, 1, &t, err)) != HPOD_OK)
        goto out;
    if (t.state != TRIAL_PENDING && t.state != TRIAL_RUNNING) {
        st = trials_not_live(&t, "ask a parameter for", err);
        goto out;
    }
    if ((st = ask(db, &s, &t, norm, value, err)) != HPOD_OK ||
        (st = trial_store_heartbeat(db, id, s.lease_seconds, err)) != HPOD_OK)
        goto out;
    st = db_commit(db, err);
out:
    if (st != HPOD_OK) {
        db_rollback(db);
        json_decref(*value);
        *value = NULL;
    }
done:
    json_decref(norm);
    study_clear(&s);
    trial_clear(&t);
    return st;
}
