/*
 * common/json.c - JSON text with shortest round-trip reals, exact numbers
 * and closed objects; see json.h.
 */
#include "common/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtoa.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/strbuf.h"

/* jansson's own parser stops at this depth, so no text we read is deeper;
 * the limit only guards against a value built with a cycle. */
#define MAX_DEPTH 2048

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (len > n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return len;
}

static int
put_string(struct strbuf *o, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0;
    strbuf_put(o, "\"", 1);
    while (i < n) {
        unsigned char c = s[i];
        char esc[8];
        size_t k = 0;
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0x80) {
            if ((k = utf8_len(s + i, n - i)) == 0)
                return -1;
            i += k;
            continue;
        }
        strbuf_put(o, str + run, i - run);
        switch (c) {
        case '"':
            strbuf_put(o, "\\\"", 2);
            break;
        case '\\':
            strbuf_put(o, "\\\\", 2);
            break;
        case '\b':
            strbuf_put(o, "\\b", 2);
            break;
        case '\f':
            strbuf_put(o, "\\f", 2);
            break;
        case '\n':
            strbuf_put(o, "\\n", 2);
            break;
        case '\r':
            strbuf_put(o, "\\r", 2);
            break;
        case '\t':
            strbuf_put(o, "\\t", 2);
            break;
        default:
            snprintf(esc, sizeof esc, "\\u%04X", c);
            strbuf_put(o, esc, 6);
        }
        run = ++i;
    }
    strbuf_put(o, str + run, n - run);
    strbuf_put(o, "\"", 1);
    return 0;
}

static int
put_real(struct strbuf *o, double x)
{
    char buf[HPOD_DTOA_SIZE + 2];
    size_t n;
    if (!isfinite(x))
        return -1;
    n = hpod_dtoa(x, buf);
    /* "3" would read back as an integer; "3.0" stays a real. */
    if (!strpbrk(buf, ".e")) {
        memcpy(buf + n, ".0", 3);
        n += 2;
    }
    strbuf_put(o, buf, n);
    return 0;
}

struct key {
    const char *s;
    size_t n;
    json_t *v;
};

static int
cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

static int put_value(struct strbuf *o, const json_t *v, size_t flags,
                     int depth);

static int
put_object(struct strbuf *o, const json_t *v, size_t flags, int depth)
{
    json_t *obj = (json_t *)v; /* jansson's iterators take no const */
    size_t n = json_object_size(obj), i = 0;
    struct key *keys = xmalloc((n ? n : 1) * sizeof *keys);
    int rc = 0;
    for (void *it = json_object_iter(obj); it && i < n;
         it = json_object_iter_next(obj, it), i++) {
        keys[i].s = json_object_iter_key(it);
        keys[i].n = json_object_iter_key_len(it);
        keys[i].v = json_object_iter_value(it);
    }
    if (flags & JSON_SORT_KEYS)
        qsort(keys, i, sizeof *keys, cmp_key);
    strbuf_put(o, "{", 1);
    for (size_t k = 0; k < i && rc == 0; k++) {
        if (k)
            strbuf_put(o, ",", 1);
        if ((rc = put_string(o, keys[k].s, keys[k].n)) == 0) {
            strbuf_put(o, ":", 1);
            rc = put_value(o, keys[k].v, flags, depth + 1);
        }
    }
    strbuf_put(o, "}", 1);
    free(keys);
    return rc;
}

static int
put_value(struct strbuf *o, const json_t *v, size_t flags, int depth)
{
    char buf[32];
    int rc = 0;
    if (!v || depth > MAX_DEPTH)
        return -1;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return put_object(o, v, flags, depth);
    case JSON_ARRAY:
        strbuf_put(o, "[", 1);
        for (size_t i = 0; i < json_array_size(v) && rc == 0; i++) {
            if (i)
                strbuf_put(o, ",", 1);
            rc = put_value(o, json_array_get(v, i), flags, depth + 1);
        }
        strbuf_put(o, "]", 1);
        return rc;
    case JSON_STRING:
        return put_string(o, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        strbuf_put(o, buf,
                   (size_t)snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT,
                                    json_integer_value(v)));
        return 0;
    case JSON_REAL:
        return put_real(o, json_real_value(v));
    case JSON_TRUE:
        strbuf_put(o, "true", 4);
        return 0;
    case JSON_FALSE:
        strbuf_put(o, "false", 5);
        return 0;
    case JSON_NULL:
        strbuf_put(o, "null", 4);
        return 0;
    }
    return -1;
}

char *
hj_dump(const json_t *v, size_t flags)
{
    struct strbuf o = {xmalloc(256), 0, 256};
    o.p[0] = '\0';
    if (put_value(&o, v, flags, 0) != 0) {
        free(o.p);
        return NULL;
    }
    return o.p;
}

json_t *
hj_parse(const char *text)
{
    return text ? json_loads(text, 0, NULL) : NULL;
}

int
hj_exact_number(const json_t *v, double *out)
{
    if (json_is_real(v)) {
        *out = json_real_value(v);
        return isfinite(*out);
    }
    if (!json_is_integer(v))
        return 0;
    json_int_t i = json_integer_value(v);
    double x = (double)i;
    /* 2^63, the rounding of the largest integers, is the one double that
     * cannot be converted back. */
    if (x >= 9223372036854775808.0 || (json_int_t)x != i)
        return 0;
    *out = x;
    return 1;
}

enum hpod_status
hj_number_field(const json_t *v, const char *field, double *out,
                struct hpod_err *err)
{
    if (!json_is_number(v))
        return hpod_fail(err, HPOD_EINVAL, field, "%s must be a number", field);
    if (!hj_exact_number(v, out))
        return hpod_fail(err, HPOD_EUNPROC, field,
                         "%s = %" JSON_INTEGER_FORMAT
                         " would be rounded: numbers are held as doubles, "
                         "which hold every integer within ±2^53",
                         field, json_integer_value(v));
    return HPOD_OK;
}

enum hpod_status
hj_int_field(const json_t *v, const char *field, double *out,
             struct hpod_err *err)
{
    if (!json_is_integer(v))
        return hpod_fail(err, HPOD_EINVAL, field, "%s must be an integer",
                         field);
    json_int_t i = json_integer_value(v);
    if (i < -HJ_MAX_EXACT_INT || i > HJ_MAX_EXACT_INT)
        return hpod_fail(err, HPOD_EUNPROC, field,
                         "%s must be within ±2^53 (9007199254740992): integer "
                         "parameters are held as doubles",
                         field);
    *out = (double)i;
    return HPOD_OK;
}

void
hj_path(char *out, size_t n, const char *path, const char *key)
{
    snprintf(out, n, "%s%s%s", path, *path && *key ? "." : "", key);
}

enum hpod_status
hj_get_int(json_t *obj, const char *path, const char *key, long long min,
           long long max, long long *out, int *present, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);
    int given = v != NULL && !json_is_null(v);

    if (present)
        *present = given;
    if (!given)
        return HPOD_OK;
    hj_path(f, sizeof f, path, key);
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
hj_get_number(json_t *obj, const char *path, const char *key, double *out,
              int *present, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);

    if (present)
        *present = v != NULL;
    if (!v)
        return HPOD_OK;
    hj_path(f, sizeof f, path, key);
    return hj_number_field(v, f, out, err);
}

enum hpod_status
hj_get_string(json_t *obj, const char *path, const char *key, int required,
              const char **out, struct hpod_err *err)
{
    char f[128];
    json_t *v = json_object_get(obj, key);

    if (!v || json_is_null(v)) {
        if (!required)
            return HPOD_OK;
        hj_path(f, sizeof f, path, key);
        return hpod_fail(err, HPOD_EINVAL, f, "%s is required", f);
    }
    if (!json_is_string(v)) {
        hj_path(f, sizeof f, path, key);
        return hpod_fail(err, HPOD_EINVAL, f, "%s must be a string", f);
    }
    *out = json_string_value(v);
    return HPOD_OK;
}

enum hpod_status
hj_check_keys(json_t *obj, const char *const *allowed, const char *path,
              struct hpod_err *err)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int ok = 0;
        for (size_t i = 0; allowed[i] && !ok; i++)
            ok = strcmp(key, allowed[i]) == 0;
        if (!ok) {
            char f[128];
            snprintf(f, sizeof f, "%s%s%.60s", path, *path ? "." : "", key);
            return hpod_fail(err, HPOD_EINVAL, f, "unknown field \"%.60s\"",
                             key);
        }
    }
    return HPOD_OK;
}

enum hpod_status
hj_append_row(json_t *arr, json_t *row, struct hpod_err *err)
{
    if (!row)
        return hpod_fail(err, HPOD_EINTERNAL, "",
                         "a stored row cannot be read");
    json_array_append_new(arr, row);
    return HPOD_OK;
}

enum hpod_status
hj_object_text(const json_t *v, const char *field, size_t max, char **out,
               struct hpod_err *err)
{
    char *text;

    *out = NULL;
    if (!json_is_object(v))
        return hpod_fail(err, HPOD_EINVAL, field, "%s must be an object",
                         field);
    text = hj_dump(v, 0);
    if (!text)
        return hpod_fail(err, HPOD_EUNPROC, field,
                         "%s cannot be stored as JSON (nesting too deep)",
                         field);
    if (strlen(text) > max) {
        free(text);
        return hpod_fail(err, HPOD_EUNPROC, field,
                         "%s must be at most %zu bytes as compact JSON", field,
                         max);
    }
    *out = text;
    return HPOD_OK;
}
