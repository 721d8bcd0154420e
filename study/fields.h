/*
 * study/fields.h - readers of one field of a JSON object for the
 * definition parsers (study/def.c, study/algo.c). Each names the offending
 * field by its JSON path ("space[2].low") in err: HPOD_EINVAL (400) for a
 * wrong type or a missing required field, HPOD_EUNPROC (422) for a value
 * out of bounds.
 */
#ifndef HPOD_STUDY_FIELDS_H
#define HPOD_STUDY_FIELDS_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"

/* out = "path.key" ("key" at the top level). */
void sd_field(char *out, size_t n, const char *path, const char *key);

/* Optional integer field with bounds; *present says whether it was there. */
enum hpod_status sd_get_int(json_t *obj, const char *key, const char *path,
                            long long min, long long max, long long *out,
                            int *present, struct hpod_err *err);

/* String field (borrowed into *out; NULL when absent or null). */
enum hpod_status sd_get_string(json_t *obj, const char *key, const char *path,
                               int required, const char **out,
                               struct hpod_err *err);

/*
 * sd_first_duplicate - the index of the first string of the array (n
 * strings) equal to an earlier one, or n if they are distinct.
 */
size_t sd_first_duplicate(const json_t *strings, size_t n);

/*
 * sd_check_choices - a categorical's choices (an array, at path): each a
 * string of 1 to 200 characters (else HPOD_EINVAL or HPOD_EUNPROC at
 * path[i]), no two equal (HPOD_EUNPROC at the first repeated one).
 */
enum hpod_status sd_check_choices(const json_t *choices, const char *path,
                                  struct hpod_err *err);

/* Optional number held exactly (hj_number_field). */
enum hpod_status sd_get_number(json_t *obj, const char *key, const char *path,
                               double *out, int *present, struct hpod_err *err);

#endif
