/*
 * study/choices.h - a categorical parameter's choices in a study
 * definition (study/params.c): all strings (1 to 200 characters), all
 * numbers (exact doubles) or all booleans, no two equal, checked in
 * O(n log n) (a categorical has up to 1,000 choices, and a definition up
 * to 64 of them).
 */
#ifndef HPOD_STUDY_CHOICES_H
#define HPOD_STUDY_CHOICES_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"

struct hpod_err;

/* The JSON type of a choice (its kind): "string", "number", "boolean",
 * or NULL for any other value. */
const char *choices_kind(const json_t *v);

/* 1 if a and b are the same choice: numbers by value (32 is 32.0). */
int choices_same(const json_t *a, const json_t *b);

/*
 * choices_first_duplicate - the index of the first of the n choices (all
 * of one kind) equal to an earlier one, or n if they are distinct.
 */
size_t choices_first_duplicate(const json_t *choices, size_t n);

/*
 * choices_check - a categorical's choices (an array, at path): each of
 * the first one's kind, a string of 1 to 200 characters or a number a
 * double holds exactly (else HPOD_EINVAL or HPOD_EUNPROC at path[i], the
 * first such i), no two equal (HPOD_EUNPROC at the first repeated one,
 * with the choice in the message).
 */
enum hpod_status choices_check(const json_t *choices, const char *path,
                               struct hpod_err *err);

#endif
