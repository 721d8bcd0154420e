/*
 * study/fields.c - readers of one JSON field with its path; see fields.h.
 */
#include "study/fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"

void
sd_field(char *out, size_t n, const char *path, const char *key)
{
    snprintf(out, n, "%s%s%s", path, *path && *key ? "." : "", key);
}

/* Optional integer field with bounds; *present says whether it was there. */
enum hpod_status
sd_get_int(json_t *obj, const char *key, const char *path, long long min,
           long long max, long long *out, int *present, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    sd_field(f, sizeof f, path, key);
    *present = v != NULL && !json_is_null(v);
    if (!*present)
        return HPOD_OK;
    if (!json_is_integer(v))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be an integer", f);
    long long x = json_integer_value(v);
    if (x < min || x > max)
        return hpod_fail(err, HPOD_EUNPROC, f,
                         "%s must be between %lld and %lld", f, min, max);
    *out = x;
    return HPOD_OK;
}

enum hpod_status
sd_get_string(json_t *obj, const char *key, const char *path, int required,
              const char **out, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    sd_field(f, sizeof f, path, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
        return HPOD_OK;
    }
    if (!json_is_string(v))
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be a string", f);
    *out = json_string_value(v);
    return HPOD_OK;
}

enum hpod_status
sd_get_number(json_t *obj, const char *key, const char *path, double *out,
              int *present, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    sd_field(f, sizeof f, path, key);
    *present = v != NULL;
    if (!v)
        return HPOD_OK;
    return hj_number_field(v, f, out, err);
}

/* qsort order of choice indices: by string (length, then bytes), then by
 * index, so that equal choices are adjacent, earliest first. */
static _Thread_local const json_t *cmp_choices;

static int
choice_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const json_t *x = json_array_get(cmp_choices, a);
    const json_t *y = json_array_get(cmp_choices, b);
    size_t lx = json_string_length(x), ly = json_string_length(y);
    int c = lx != ly ? (lx < ly ? -1 : 1)
                     : memcmp(json_string_value(x), json_string_value(y), lx);
    return c ? c : (a > b) - (a < b);
}

/* One sort, O(n log n): comparing every pair took 500,000 comparisons
 * for 1,000 choices on every parse of a definition. */
size_t
sd_first_duplicate(const json_t *choices, size_t n)
{
    size_t *idx = xmalloc(n * sizeof *idx), first = n;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    cmp_choices = choices;
    qsort(idx, n, sizeof *idx, choice_cmp);
    for (size_t i = 1; i < n; i++) {
        const json_t *x = json_array_get(choices, idx[i - 1]);
        const json_t *y = json_array_get(choices, idx[i]);
        if (json_string_length(x) == json_string_length(y) &&
            memcmp(json_string_value(x), json_string_value(y),
                   json_string_length(x)) == 0 &&
            idx[i] < first)
            first = idx[i];
    }
    free(idx);
    return first;
}

enum hpod_status
sd_check_choices(const json_t *choices, const char *path, struct hpod_err *err)
{
    size_t n = json_array_size(choices), dup;
    char fc[160];

    for (size_t c = 0; c < n; c++) {
        const json_t *cv = json_array_get(choices, c);
        size_t len = json_string_length(cv);
        if (json_is_string(cv) && len >= 1 && len <= 200)
            continue; /* the path is printed only for an error */
        snprintf(fc, sizeof fc, "%s[%zu]", path, c);
        if (!json_is_string(cv))
            return hpod_fail(err, HPOD_EINVAL, fc, "%s must be a string", fc);
        return hpod_fail(err, HPOD_EUNPROC, fc,
                         "%s must be 1 to 200 characters", fc);
    }
    if ((dup = sd_first_duplicate(choices, n)) == n)
        return HPOD_OK;
    snprintf(fc, sizeof fc, "%s[%zu]", path, dup);
    return hpod_fail(err, HPOD_EUNPROC, fc, "duplicate choice \"%s\"",
                     json_string_value(json_array_get(choices, dup)));
}
