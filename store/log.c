/*
 * store/log.c - JSON-lines logging to stderr; see log.h.
 */
#include "store/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int min_level = HPOD_LOG_INFO;

void
hpod_log_set_level(enum hpod_log_level level)
{
    min_level = (int)level;
}

static size_t
json_escape(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
    return o;
}

void
hpod_log(enum hpod_log_level level, const char *fmt, ...)
{
    static const char *names[] = {"debug", "info", "warn", "error"};
    char msg[1024], esc[2048], line[2304], ts[32];
    struct timespec now;
    struct tm tm;
    va_list ap;

    if ((int)level < min_level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_escape(esc, sizeof esc, msg);
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    int n = snprintf(line, sizeof line,
                     "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"msg\":\"%s\"}\n",
                     ts, now.tv_nsec / 1000000, names[level & 3], esc);
    if (n > 0) {
        ssize_t w =
            write(STDERR_FILENO, line,
                  (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

void
hpod_log_json_line(const char *json)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "%s\n", json);
    if (n > 0) {
        ssize_t w =
            write(STDERR_FILENO, line,
                  (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}
