/*
 * study/fields.c - readers of one JSON field with its path; see fields.h.
 */
#include "study/fields.h"

#include <stdio.h>

#include "common/err.h"
#include "common/json.h"

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
