/*
 * common/strbuf.c - a growing NUL-terminated string; see strbuf.h.
 */
#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/mem.h"

void
strbuf_put(struct strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void
strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    strbuf_put(b, "", 0); /* room for the NUL at least */
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = 2 * (b->len + (size_t)n + 1);
        b->p = xrealloc(b->p, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
