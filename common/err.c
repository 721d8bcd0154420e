/*
 * common/err.c - hpod_fail(); see err.h.
 */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum hpod_status
hpod_fail(struct hpod_err *err, enum hpod_status st, const char *field,
          const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return st;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->retry_after = 0;
    return st;
}

enum hpod_status
hpod_fail_retry(struct hpod_err *err, enum hpod_status st, int retry_after,
                const char *field, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return st;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->retry_after = retry_after > 0 ? retry_after : 1;
    return st;
}
