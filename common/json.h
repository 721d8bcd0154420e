/*
 * common/json.h - jansson helpers every layer above core/ shares: JSON
 * text in and out, exact numbers, closed objects.
 *
 * Every JSON text hpod writes, HTTP answers and the JSON it stores, goes
 * through hj_dump: jansson 2.14 prints every real of a document with
 * one global precision, so one value that needs 17 digits turned 14.2 into
 * 14.199999999999999 everywhere else. Here each real is printed on its own
 * in the shortest form that reads back as the same double (common/dtoa.h).
 *
 * The prefix is hj_ (hpod JSON): json_* is jansson's namespace.
 */
#ifndef HPOD_JSON_H
#define HPOD_JSON_H

#include <stddef.h>

#include "common/status.h"

#include <jansson.h>

/*
 * hj_dump - compact JSON text of v (a new string, free it): objects
 * in insertion order, or sorted by key bytes when flags has JSON_SORT_KEYS
 * (other jansson flags are ignored); strings escaped as RFC 8259 requires
 * ('"', '\\' and control characters; valid UTF-8 passes through); every
 * real in its shortest round-trip form, always with a '.' or an exponent
 * so that it reads back as a real ("3.0", "1e+19", "0.1"). Any value may be
 * the top level. NULL when v is NULL or holds what JSON cannot carry (a
 * string that is not UTF-8, a non-finite real, nesting beyond 2048).
 */
char *hj_dump(const json_t *v, size_t flags);

/* Parses JSON text into a new reference (NULL on error or NULL text). */
json_t *hj_parse(const char *text);

/* 2^53: every integer up to it in magnitude is exactly a double. */
#define HJ_MAX_EXACT_INT 9007199254740992LL

/*
 * hj_exact_number - 1 and *out = v's value if v is a number that a
 * double holds exactly: any real (the parser rounded its text once; it is
 * printed back in the shortest form that reads back as that double), an
 * integer only if converting it loses nothing (2^53 + 1 would become
 * 2^53). 0 otherwise.
 */
int hj_exact_number(const json_t *v, double *out);
/*
 * hj_number_field - v (field names it) is a number held exactly (see
 * hj_exact_number) into *out: HPOD_EINVAL if not a number, HPOD_EUNPROC
 * if an integer would be rounded.
 */
enum hpod_status hj_number_field(const json_t *v, const char *field,
                                 double *out, struct hpod_err *err);
/*
 * hj_int_field - v is an integer within ±2^53 (an int parameter's
 * value: core/space holds them as doubles) into *out: HPOD_EINVAL if not
 * an integer, HPOD_EUNPROC naming field if beyond.
 */
enum hpod_status hj_int_field(const json_t *v, const char *field, double *out,
                              struct hpod_err *err);

/*
 * The one reader of a field of a JSON object, for every request and
 * definition parser. obj[key] (obj borrowed; the value, when a string, is
 * borrowed from it) is read into *out, and an error names the field by its
 * JSON path: hj_path's "path.key", or "key" when path is "" (top level).
 * A field that is absent (or null, for the integer and string readers)
 * leaves *out as it was, so a caller sets its default first; *present
 * (may be NULL) says whether it was given. HPOD_EINVAL (400) for a wrong
 * type or a missing required field, HPOD_EUNPROC (422) for a value out of
 * bounds.
 */
void hj_path(char *out, size_t n, const char *path, const char *key);
/* An integer within [min, max]. */
enum hpod_status hj_get_int(json_t *obj, const char *path, const char *key,
                            long long min, long long max, long long *out,
                            int *present, struct hpod_err *err);
/* A number held exactly (hj_number_field); null is not a number. */
enum hpod_status hj_get_number(json_t *obj, const char *path, const char *key,
                               double *out, int *present, struct hpod_err *err);
/* A string (*out NULL when absent, or HPOD_EINVAL when required). */
enum hpod_status hj_get_string(json_t *obj, const char *path, const char *key,
                               int required, const char **out,
                               struct hpod_err *err);

/*
 * hj_object_text - v (borrowed; field names it) as the compact JSON text to
 * store (new string in *out): HPOD_EINVAL unless an object, HPOD_EUNPROC
 * beyond max bytes. The text is hj_dump's, so every number reads back as
 * the same value (free-form metadata of studies and trials).
 */
enum hpod_status hj_object_text(const json_t *v, const char *field, size_t max,
                                char **out, struct hpod_err *err);

/*
 * hj_check_keys - every key of the object obj must be in allowed (a
 * NULL-terminated list); else HPOD_EINVAL naming path.key.
 */
enum hpod_status hj_check_keys(json_t *obj, const char *const *allowed,
                               const char *path, struct hpod_err *err);

/*
 * hj_append_row - appends row (a new reference from *_to_json, stolen) to
 * arr. A NULL row is a stored row that could not be read: HPOD_EINTERNAL,
 * so that a list never silently drops it.
 */
enum hpod_status hj_append_row(json_t *arr, json_t *row, struct hpod_err *err);

#endif
