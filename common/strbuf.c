/*
 * common/strbuf.c - a growing NUL-terminated string; see strbuf.h.
 */
#include "common/strbuf.h"

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
