/*
 * store/gp_model_store.c - the study_gp_models row; see gp_model_store.h.
 */
#include "store/gp_model_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtoa.h"
#include "common/err.h"
#include "common/mem.h"

static const char *SQL_GET =
    "SELECT kernel, n_fit, lml_fit, hyper FROM study_gp_models"
    " WHERE study_id = $1";
static const char *SQL_PUT =
    "INSERT INTO study_gp_models (study_id, kernel, n_fit, lml_fit, hyper)"
    " VALUES ($1, $2, $3, $4, $5::double precision[])"
    " ON CONFLICT (study_id) DO UPDATE SET kernel = EXCLUDED.kernel,"
    " n_fit = EXCLUDED.n_fit, lml_fit = EXCLUDED.lml_fit,"
    " hyper = EXCLUDED.hyper, fitted_at = now()";
static const char *SQL_DROP = "DELETE FROM study_gp_models WHERE study_id = $1";

enum hpod_status
gp_model_store_get(struct db *db, long long study_id,
                   struct sampler_gp_model *m, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;
    double *hy = NULL, lml;
    const char *txt;
    size_t n = 0, cap;
    char *end;

    sampler_gp_model_clear(m);
    if ((st = db_exec_id(db, SQL_GET, study_id, &r, err)) != HPOD_OK)
        goto out;
    if (db_rows(r) == 0)
        goto out;
    txt = db_get(r, 0, "hyper");
    cap = txt ? strlen(txt) / 2 + 1 : 1;
    hy = xmalloc(cap * sizeof *hy);
    lml = strtod(db_get(r, 0, "lml_fit"), &end);
    if (!db_parse_float8_array(txt, hy, cap, &n) ||
        sampler_gp_model_set(m, (int)db_get_ll(r, 0, "kernel", -1),
                             (size_t)db_get_ll(r, 0, "n_fit", 0), lml, hy,
                             n) != HPOD_OK) {
        sampler_gp_model_clear(m);
        st =
            hpod_fail(err, HPOD_EINTERNAL, "",
                      "stored GP model of study %lld cannot be read", study_id);
    }
out:
    free(hy);
    db_result_free(r);
    return st;
}

enum hpod_status
gp_model_store_put(struct db *db, long long study_id,
                   const struct sampler_gp_model *m, struct hpod_err *err)
{
    char id[32], kernel[16], nfit[32], lml[40], *arr = NULL;
    const char *p[5] = {id, kernel, nfit, lml, NULL};
    enum hpod_status st;

    if (!m || !m->valid || !m->hyper)
        return hpod_fail(err, HPOD_EINTERNAL, "", "no GP model to store");
    snprintf(id, sizeof id, "%lld", study_id);
    snprintf(kernel, sizeof kernel, "%d", m->kernel);
    snprintf(nfit, sizeof nfit, "%zu", m->n_fit);
    hpod_dtoa(m->lml_fit, lml);
    arr = db_float8_array(m->hyper, m->n_hyper);
    p[4] = arr;
    st = db_exec(db, SQL_PUT, 5, p, NULL, err);
    free(arr);
    return st;
}

enum hpod_status
gp_model_store_drop(struct db *db, long long study_id, struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st = db_exec_id(db, SQL_DROP, study_id, &r, err);
    db_result_free(r);
    return st;
}
