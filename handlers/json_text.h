/*
 * handlers/json_text.h - JSON values to and from text.
 *
 * Every JSON text hpod writes, HTTP answers and the JSON it stores, goes
 * through json_dump_text: jansson 2.14 prints every real of a document with
 * one global precision, so one value that needs 17 digits turned 14.2 into
 * 14.199999999999999 everywhere else. Here each real is printed on its own
 * in the shortest form that reads back as the same double (store/dtoa.h).
 */
#ifndef HPOD_JSON_TEXT_H
#define HPOD_JSON_TEXT_H

#include <jansson.h>

/*
 * json_dump_text - compact JSON text of v (a new string, free it): objects
 * in insertion order, or sorted by key bytes when flags has JSON_SORT_KEYS
 * (other jansson flags are ignored); strings escaped as RFC 8259 requires
 * ('"', '\\' and control characters; valid UTF-8 passes through); every
 * real in its shortest round-trip form, always with a '.' or an exponent
 * so that it reads back as a real ("3.0", "1e+19", "0.1"). Any value may be
 * the top level. NULL when v is NULL or holds what JSON cannot carry (a
 * string that is not UTF-8, a non-finite real, nesting beyond 2048).
 */
char *json_dump_text(const json_t *v, size_t flags);

/* Parses JSON text into a new reference (NULL on error or NULL text). */
json_t *json_from_text(const char *text);

#endif
