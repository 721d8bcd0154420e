/*
 * common/strbuf.h - a growing NUL-terminated string. A zeroed struct is
 * the empty string; p has one owner, the caller, who frees it.
 */
#ifndef HPOD_COMMON_STRBUF_H
#define HPOD_COMMON_STRBUF_H

#include <stddef.h>

struct strbuf {
    char *p;    /* NULL until the first append, then NUL-terminated */
    size_t len; /* bytes before the NUL */
    size_t cap; /* bytes allocated */
};

/* strbuf_put - appends s[0..n) (which may hold NULs); grows by doubling. */
void strbuf_put(struct strbuf *b, const char *s, size_t n);

/* strbuf_printf - appends the text printf would write, whatever its
 * length. */
__attribute__((format(printf, 2, 3))) void strbuf_printf(struct strbuf *b,
                                                         const char *fmt, ...);

#endif
