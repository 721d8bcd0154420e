/*
 * common/etag.c - If-None-Match against an entity tag; see etag.h.
 */
#include "common/etag.h"

#include <string.h>

int
etag_listed(const char *header, const char *etag)
{
    size_t n = strlen(etag);
    const char *p = header;
    while (p && *p) {
        p += strspn(p, " \t,");
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        size_t k = strcspn(p, " \t,");
        if ((k == n && strncmp(p, etag, n) == 0) || (k == 1 && *p == '*'))
            return 1;
        p += k;
    }
    return 0;
}
