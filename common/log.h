/*
 * common/log.h - one JSON line per event on stderr.
 *
 * Lives in store/, the lowest layer that may do I/O, so that store/ can log
 * SQLSTATEs and server/ the access lines with the same function. The level
 * is checked before formatting (Redis serverLog). Thread-safe: each line is
 * written with a single write(2).
 *
 * Every line is a JSON object that starts with "ts" (RFC 3339, UTC, ms),
 * "level" and "msg"; an event may add fields after them (the access log's
 * method, path, status, ...). Every message passes through hpod_redact, so
 * a database URL or libpq conninfo logged anywhere never shows a password.
 */
#ifndef HPOD_LOG_H
#define HPOD_LOG_H

#include <stddef.h>

enum hpod_log_level {
    HPOD_LOG_DEBUG = 0,
    HPOD_LOG_INFO = 1,
    HPOD_LOG_WARN = 2,
    HPOD_LOG_ERROR = 3
};

void hpod_log_set_level(enum hpod_log_level level);
/*
 * hpod_log_set_request - every line the calling thread logs until the next
 * call carries "request_id":id after msg (the store's SQLSTATE lines too);
 * NULL stops it. id is borrowed: it must outlive the next call.
 */
void hpod_log_set_request(const char *id);
/* Nonzero if a line of this level would be written. */
int hpod_log_enabled(enum hpod_log_level level);
/* Logs {"ts":..,"level":..,"msg":"<formatted>"}. */
void hpod_log(enum hpod_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * hpod_log_event - logs {"ts":..,"level":..,"msg":msg, <fields>}: fields is
 * a compact JSON object ("{\"status\":200,...}") whose members follow msg,
 * or NULL. Used for the access log; the caller builds fields.
 */
void hpod_log_event(enum hpod_log_level level, const char *msg,
                    const char *fields);

/*
 * hpod_redact - copies in to out (at most cap bytes with the final NUL,
 * truncating) with every secret replaced by "***": the password of a URL's
 * user information ("postgresql://user:***@host/db"), and the value of
 * any key=value setting whose key ends in "password" (libpq conninfo
 * "password=x", "password = 'a b'", URL queries "?password=x&..." also
 * with percent-escaped keys, "sslpassword=..."). Returns strlen(out).
 */
size_t hpod_redact(char *out, size_t cap, const char *in);

#endif
