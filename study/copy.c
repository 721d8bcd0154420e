/*
 * study/copy.c - a study copied; see copy.h.
 */
#include "study/copy.h"

#include <stdlib.h>

#include "common/err.h"
#include "common/json.h"
#include "store/study_store.h"
#include "study/def.h"
#include "study/studies.h"
#include "study/trials.h"
#include "study/warmstart.h"

/* The body that creates the copy: s's definition, its candidates, name. */
static enum hpod_status
copy_body(struct db *db, const struct study *s, const char *name, json_t **out,
          struct hpod_err *err)
{
    json_t *body = hj_parse(s->definition);
    char **cand = NULL;
    size_t n = 0;
    enum hpod_status st = HPOD_OK;

    *out = NULL;
    if (!json_is_object(body)) {
        json_decref(body);
        return hpod_fail(err, HPOD_EINTERNAL, "", "stored data cannot be read");
    }
    json_object_set_new(body, "name", json_string(name));
    if (s->n_candidates >= 0 &&
        (st = study_store_candidates(db, s->id, &cand, &n, err)) == HPOD_OK) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, hj_parse(cand[i]));
        json_object_set_new(body, "candidates", arr);
    }
    for (size_t i = 0; i < n; i++)
        free(cand[i]);
    free(cand);
    if (st != HPOD_OK) {
        json_decref(body);
        return st;
    }
    *out = body;
    return HPOD_OK;
}

enum hpod_status
copy_study(struct db *db, const struct bench_db *bench,
           const struct principal *who, long long src, const char *name,
           const char *lab, long long *id, struct hpod_err *err)
{
    struct study s = {0};
    struct study_def d = {0};
    struct study_create_in in = {.lab = lab, .by = who, .copy_of = src};
    struct trial *rows = NULL;
    json_t *body = NULL;
    double *prior = NULL;
    size_t n = 0;
    long long total = 0;
    int existed = 0;
    enum hpod_status st;

    *id = 0;
    if ((st = studies_get(db, src, &s, err)) != HPOD_OK)
        goto out;
    if (!lab)
        in.lab = s.lab;
    if ((st = copy_body(db, &s, name, &body, err)) != HPOD_OK ||
        (st = def_from_json(body, &d, err)) != HPOD_OK)
        goto out;
    if (d.algo.name == ALGO_MULTISTAGE) {
        st = hpod_fail(err, HPOD_EUNPROC, "",
                       "a multistage study chooses the configurations of its "
                       "stages: it cannot take added trials, nor be copied");
        goto out;
    }
    if ((st = trials_list(db, src, TRIAL_COMPLETED, COPY_MAX_TRIALS + 1, 0,
                          &rows, &n, &total, err)) != HPOD_OK)
        goto out;
    if (total > COPY_MAX_TRIALS) {
        st = hpod_fail(err, HPOD_EUNPROC, "",
                       "study %lld has %lld completed trials: a copy takes at "
                       "most %d",
                       src, total, COPY_MAX_TRIALS);
        goto out;
    }
    trials_drop_excluded(rows, &n); /* out of the source's model */
    if ((st = warmstart_prior(db, bench, who, &d, &prior, &in.n_warm_prior,
                              err)) != HPOD_OK)
        goto out;
    in.warm_prior = prior;
    in.copy_rows = rows;
    in.n_copy_rows = n;
    st = studies_create(db, &d, &in, id, &existed, err);
out:
    trials_free(rows, n);
    free(prior);
    json_decref(body);
    def_clear(&d);
    study_clear(&s);
    return st;
}
