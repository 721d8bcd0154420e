/*
 * common/mem.c - allocation wrappers; see mem.h for why they abort.
 */
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

static void
oom(void)
{
    abort();
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *
xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *
xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}
