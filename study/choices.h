/*
 * study/choices.h - a categorical parameter's choices in a study
 * definition (study/def.c): each a string of 1 to 200 characters, no two
 * equal, checked in O(n log n) (a categorical has up to 1,000 choices).
 */
#ifndef HPOD_STUDY_CHOICES_H
#define HPOD_STUDY_CHOICES_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"

struct hpod_err;

/*
 * choices_first_duplicate - the index of the first string of the array
 * (n strings) equal to an earlier one, or n if they are distinct.
 */
size_t choices_first_duplicate(const json_t *strings, size_t n);

/*
 * choices_check - a categorical's choices (an array, at path): each a
 * string of 1 to 200 characters (else HPOD_EINVAL or HPOD_EUNPROC at
 * path[i], the first such i), no two equal (HPOD_EUNPROC at the first
 * repeated one, with the choice in the message).
 */
enum hpod_status choices_check(const json_t *choices, const char *path,
                               struct hpod_err *err);

#endif
