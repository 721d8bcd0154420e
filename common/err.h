/*
 * common/err.h - recording an error for the client.
 *
 * hpod_fail() fills a struct hpod_err (common/status.h) and returns the
 * status it was given, like GSL_ERROR, so one breakpoint catches every
 * failure: `return hpod_fail(err, HPOD_EUNPROC, "space[1].low", "...")`.
 * It lives in store/ because store and handlers both report errors and
 * core must not format text.
 */
#ifndef HPOD_ERR_H
#define HPOD_ERR_H

#include "common/status.h"

enum hpod_status hpod_fail(struct hpod_err *err, enum hpod_status st,
                           const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * hpod_fail_retry - hpod_fail() for a limit or a busy resource (HPOD_ELIMIT,
 * HPOD_EBUSY, HPOD_EDB): also records after how many seconds (at least 1)
 * the client may try again, which server/http.c sends as Retry-After.
 */
enum hpod_status hpod_fail_retry(struct hpod_err *err, enum hpod_status st,
                                 int retry_after, const char *field,
                                 const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
