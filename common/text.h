/*
 * common/text.h - the rule for free-text names people choose: a study's
 * name, a token's note.
 *
 * Such a name is stored and compared in Unicode Normalization Form C, so
 * two names that differ only in how an accent is encoded ("é" as U+00E9,
 * or "e" and U+0301) are one name. Characters that make a name look like
 * another are refused: controls (Cc), format characters (Cf: zero-width
 * spaces and joiners, the direction overrides and isolates such as
 * U+202E), line and paragraph separators (Zl, Zp), private-use (Co) and
 * unassigned (Cn) code points, and every other default-ignorable code
 * point (Hangul fillers, the combining grapheme joiner, variation
 * selectors except U+FE0E and U+FE0F, which pick an emoji's style).
 * Normalization and categories come from utf8proc (Unicode 15).
 */
#ifndef HPOD_TEXT_H
#define HPOD_TEXT_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"

/*
 * hpod_text_name - s (NUL-terminated) in NFC as a new string (*out, free
 * it), or HPOD_EUNPROC naming field when s is not UTF-8 or holds a
 * refused character (the message names its code point). *out is NULL on
 * failure.
 */
enum hpod_status hpod_text_name(const char *s, const char *field, char **out,
                                struct hpod_err *err);

/*
 * hpod_text_member - obj's member key, when it is a string, replaced by
 * its NFC form (hpod_text_name); HPOD_EUNPROC naming field when it holds
 * a refused character (U+0000 included). Any other value is left for the
 * caller's own checks.
 */
enum hpod_status hpod_text_member(json_t *obj, const char *key,
                                  const char *field, struct hpod_err *err);

#endif
