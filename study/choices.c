/*
 * study/choices.c - a categorical's choices; see choices.h.
 */
#include "study/choices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "common/mem.h"

const char *
choices_kind(const json_t *v)
{
    return json_is_string(v)    ? "string"
           : json_is_number(v)  ? "number"
           : json_is_boolean(v) ? "boolean"
                                : NULL;
}

int
choices_same(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal(a, b);
}

/* Order of two choices of one kind: strings by length, then bytes;
 * numbers by value; booleans false first. */
static int
choice_order(const json_t *x, const json_t *y)
{
    if (json_is_string(x)) {
        size_t lx = json_string_length(x), ly = json_string_length(y);
        return lx != ly
                   ? (lx < ly ? -1 : 1)
                   : memcmp(json_string_value(x), json_string_value(y), lx);
    }
    if (json_is_number(x)) {
        double a = json_number_value(x), b = json_number_value(y);
        return (a > b) - (a < b);
    }
    return json_is_true(x) - json_is_true(y);
}

/* qsort order of choice indices: by choice, then by index, so that equal
 * choices are adjacent, earliest first. */
static _Thread_local const json_t *cmp_choices;

static int
index_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = choice_order(json_array_get(cmp_choices, a),
                         json_array_get(cmp_choices, b));
    return c ? c : (a > b) - (a < b);
}

/* One sort, O(n log n): comparing every pair took 500,000 comparisons
 * for 1,000 choices on every parse of a definition. */
size_t
choices_first_duplicate(const json_t *choices, size_t n)
{
    size_t *idx = xmalloc((n ? n : 1) * sizeof *idx), first = n;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    cmp_choices = choices;
    qsort(idx, n, sizeof *idx, index_cmp);
    for (size_t i = 1; i < n; i++)
        if (choices_same(json_array_get(choices, idx[i - 1]),
                         json_array_get(choices, idx[i])) &&
            idx[i] < first)
            first = idx[i];
    free(idx);
    return first;
}

/* Choice c of those at path against the kind of choice 0 (its field is
 * printed only for an error). */
static enum hpod_status
check_one(const json_t *choices, size_t c, const char *path,
          struct hpod_err *err)
{
    const json_t *cv = json_array_get(choices, c);
    const char *kind = choices_kind(cv);
    const char *first = choices_kind(json_array_get(choices, 0));
    size_t len = json_string_length(cv);
    double x;
    char fc[160];

    if (kind && strcmp(kind, first) == 0 &&
        (!json_is_string(cv) || (len >= 1 && len <= 200)) &&
        (!json_is_number(cv) || hj_exact_number(cv, &x)))
        return HPOD_OK;
    snprintf(fc, sizeof fc, "%s[%zu]", path, c);
    if (!kind)
        return hpod_fail(err, HPOD_EINVAL, fc,
                         "%s must be a string, a number or a boolean", fc);
    if (strcmp(kind, first) != 0)
        return hpod_fail(err, HPOD_EUNPROC, fc,
                         "%s is a %s, the parameter's first choice a %s: the "
                         "choices of one parameter are all strings, all "
                         "numbers or all booleans",
                         fc, kind, first);
    if (json_is_string(cv))
        return hpod_fail(err, HPOD_EUNPROC, fc,
                         "%s must be 1 to 200 characters", fc);
    return hpod_fail(err, HPOD_EUNPROC, fc,
                     "%s is an integer beyond 2^53 in magnitude, which a "
                     "double cannot hold exactly",
                     fc);
}

enum hpod_status
choices_check(const json_t *choices, const char *path, struct hpod_err *err)
{
    size_t n = json_array_size(choices), dup;
    enum hpod_status st;
    char fc[160];

    for (size_t c = 0; c < n; c++)
        if ((st = check_one(choices, c, path, err)) != HPOD_OK)
            return st;
    if ((dup = choices_first_duplicate(choices, n)) == n)
        return HPOD_OK;
    snprintf(fc, sizeof fc, "%s[%zu]", path, dup);
    char *text = hj_dump(json_array_get(choices, dup), 0);
    hpod_fail(err, HPOD_EUNPROC, fc, "duplicate choice %.200s", text);
    free(text);
    return HPOD_EUNPROC;
}
