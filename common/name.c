/*
 * common/name.c - the name rule; see name.h.
 */
#include "common/name.h"

#include <string.h>

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789_.-";

size_t
hpod_name_span(const char *s)
{
    return s ? strspn(s, name_chars) : 0;
}

int
hpod_name_ok_n(const char *s, size_t n, size_t max)
{
    return s && n > 0 && n <= max && hpod_name_span(s) >= n;
}

int
hpod_name_ok(const char *s, size_t max)
{
    return s && hpod_name_ok_n(s, strlen(s), max);
}
