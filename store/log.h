/*
 * store/log.h - one JSON line per event on stderr.
 *
 * Lives in store/, the lowest layer that may do I/O, so that store/ can log
 * SQLSTATEs and server/ the access lines with the same function. The level
 * is checked before formatting (Redis serverLog). Thread-safe: each line is
 * written with a single write(2).
 */
#ifndef HPOD_LOG_H
#define HPOD_LOG_H

enum hpod_log_level {
    HPOD_LOG_DEBUG = 0,
    HPOD_LOG_INFO = 1,
    HPOD_LOG_WARN = 2,
    HPOD_LOG_ERROR = 3
};

void hpod_log_set_level(enum hpod_log_level level);
/* Logs {"ts":..,"level":..,"msg":"<formatted>"}. */
void hpod_log(enum hpod_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes one preformatted JSON object line (the access log). */
void hpod_log_json_line(const char *json);

#endif
