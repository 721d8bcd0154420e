/*
 * store/warm_store.c - the study_warm_priors row; see warm_store.h.
 */
#include "store/warm_store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtoa.h"
#include "common/err.h"
#include "common/mem.h"

static const char *SQL_GET =
    "SELECT prior FROM study_warm_priors WHERE study_id = $1";
static const char *SQL_PUT = "INSERT INTO study_warm_priors (study_id, prior)"
                             " VALUES ($1, $2::double precision[])";

/* Parses a float8[] literal "{a,b,...}" into at most cap values. */
static int
parse_array(const char *s, double *v, size_t cap, size_t *n)
{
    char *end;

    *n = 0;
    if (!s || *s != '{')
        return 0;
    s++;
    while (*s && *s != '}') {
        if (*n == cap)
            return 0;
        errno = 0;
        v[*n] = strtod(s, &end);
        if (end == s || errno != 0 || !isfinite(v[*n]))
            return 0;
        (*n)++;
        s = end;
        if (*s == ',')
            s++;
    }
    return *s == '}' && s[1] == '\0';
}

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
    if (!parse_array(txt, *prior, cap, n)) {
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
    size_t cap = 3 + n * 40, len = 0;
    char *arr = xmalloc(cap);
    const char *p[2] = {id, arr};

    snprintf(id, sizeof id, "%lld", study_id);
    arr[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        char num[40];
        hpod_dtoa(prior[i], num);
        len +=
            (size_t)snprintf(arr + len, cap - len, "%s%s", i ? "," : "", num);
    }
    snprintf(arr + len, cap - len, "}");
    enum hpod_status st = db_exec(db, SQL_PUT, 2, p, NULL, err);
    free(arr);
    return st;
}
