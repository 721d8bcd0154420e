/*
 * store/warm_store.c - the study_warm_priors row; see warm_store.h.
 */
#include "store/warm_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

static const char *SQL_GET =
    "SELECT prior FROM study_warm_priors WHERE study_id = $1";
static const char *SQL_PUT = "INSERT INTO study_warm_priors (study_id, prior)"
                             " VALUES ($1, $2::double precision[])";

enum hpod_status
warm_store_get(struct db *db, long long study_id, double **prior, size_t *n,
               struct hpod_err *err)
{
    struct db_result *r = NULL;
    enum hpod_status st;

    *prior = NULL;
    *n = 0;
    if ((st = db_exec_id(db, SQL_GET, study_id, &r, err)) != HPOD_OK ||
        db_rows(r) == 0)
        goto out;
    const char *txt = db_get(r, 0, "prior");
    size_t cap = txt ? strlen(txt) / 2 + 1 : 1;
    *prior = xmalloc(cap * sizeof **prior);
    if (!db_parse_float8_array(txt, *prior, cap, n)) {
        free(*prior);
        *prior = NULL;
        *n = 0;
        st = hpod_fail(err, HPOD_EINTERNAL, "",
                       "stored prior of study %lld cannot be read", study_id);
    }
out:
    db_result_free(r);
    return st;
}

enum hpod_status
warm_store_put(struct db *db, long long study_id, const double *prior, size_t n,
               struct hpod_err *err)
{
    char id[32];
    char *arr = db_float8_array(prior, n);
    const char *p[2] = {id, arr};

    snprintf(id, sizeof id, "%lld", study_id);
    enum hpod_status st = db_exec(db, SQL_PUT, 2, p, NULL, err);
    free(arr);
    return st;
}
