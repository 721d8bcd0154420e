/*
 * common/mem.h - allocation that never returns NULL.
 *
 * Out of memory is not recoverable in a request handler without a great
 * deal of noise, so xmalloc & co. abort, as Redis, jq and kore do. This is
 * the only abort in core/, and it is never caused by input values.
 */
#ifndef HPOD_MEM_H
#define HPOD_MEM_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
