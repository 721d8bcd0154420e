/*
 * common/log.c - JSON-lines logging to stderr, with secrets redacted; see
 * log.h.
 */
#include "common/log.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int min_level = HPOD_LOG_INFO;
static _Thread_local const char *request_id;

void
hpod_log_set_level(enum hpod_log_level level)
{
    min_level = (int)level;
}

void
hpod_log_set_request(const char *id)
{
    request_id = id;
}

int
hpod_log_enabled(enum hpod_log_level level)
{
    return (int)level >= min_level;
}

/* ---- redaction ---- */

/* Appends s[0..n) to out, keeping room for the NUL. */
static void
put(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
    while (n-- > 0 && *o + 1 < cap)
        out[(*o)++] = *s++;
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * If a URL's authority starts at s (just after "://") and holds
 * "user:password@", returns the length of "user:" and sets *pw_len to the
 * length of the password (everything up to the last '@' of the authority,
 * so a raw '@' in a password is covered too). Otherwise returns 0.
 */
static size_t
url_password(const char *s, size_t *pw_len)
{
    size_t end = 0, at = 0, colon = 0;
    int have_at = 0, have_colon = 0;
    for (;
         s[end] && !strchr("/?#\"'", s[end]) && !isspace((unsigned char)s[end]);
         end++)
        if (s[end] == '@') {
            at = end;
            have_at = 1;
        }
    if (!have_at)
        return 0;
    for (size_t i = 0; i < at; i++)
        if (s[i] == ':') {
            colon = i;
            have_colon = 1;
            break;
        }
    if (!have_colon)
        return 0;
    *pw_len = at - colon - 1;
    return colon + 1;
}

/*
 * If s starts a key=value setting whose key (percent-decoded, any case)
 * ends in "password", returns the length of everything up to the value
 * ("password = ") and sets *val_len to the value's length: a quoted
 * conninfo value up to its closing quote, else up to white space (and, in
 * a URL query, '&' or '#'). Otherwise returns 0.
 */
static size_t
keyword_password(const char *s, int in_query, size_t *val_len)
{
    static const char want[] = "password";
    char key[64];
    size_t i = 0, k = 0, v;

    while (s[i] && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
                    s[i] == '%' || s[i] == '-' || s[i] == '.')) {
        int c = (unsigned char)s[i];
        if (c == '%' && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            c = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            i += 2;
        }
        if (k + 1 < sizeof key)
            key[k++] = (char)tolower(c);
        i++;
    }
    key[k] = '\0';
    if (k < sizeof want - 1 || strcmp(key + k - (sizeof want - 1), want) != 0)
        return 0;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    if (s[i] != '=')
        return 0;
    i++;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    v = i;
    if (s[v] == '\'') {
        for (v++; s[v] && s[v] != '\''; v++)
            if (s[v] == '\\' && s[v + 1])
                v++;
        if (s[v] == '\'')
            v++;
    } else {
        while (s[v] && !isspace((unsigned char)s[v]) &&
               !(in_query && (s[v] == '&' || s[v] == '#')) && s[v] != '"')
            v++;
    }
    *val_len = v - i;
    return i;
}

size_t
hpod_redact(char *out, size_t cap, const char *in)
{
    size_t o = 0, i = 0;
    int in_query = 0;

    if (cap == 0)
        return 0;
    while (in[i] && o + 1 < cap) {
        size_t head, len;
        char prev = i ? in[i - 1] : ' ';
        if (isspace((unsigned char)in[i]))
            in_query = 0;
        else if (in[i] == '?')
            in_query = 1;
        if (strncmp(in + i, "://", 3) == 0 &&
            (head = url_password(in + i + 3, &len)) > 0) {
            put(out, cap, &o, in + i, 3 + head);
            put(out, cap, &o, "***", 3);
            i += 3 + head + len;
            continue;
        }
        if (!isalnum((unsigned char)prev) && !strchr("_%-.", prev) &&
            (head = keyword_password(in + i, in_query, &len)) > 0) {
            put(out, cap, &o, in + i, head);
            put(out, cap, &o, "***", 3);
            i += head + len;
            continue;
        }
        out[o++] = in[i++];
    }
    out[o] = '\0';
    return o;
}

/* ---- lines ---- */

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

/* Writes one line: ts, level, msg (redacted), then the members of fields. */
static void
emit(enum hpod_log_level level, const char *msg, const char *fields)
{
    static const char *names[] = {"debug", "info", "warn", "error"};
    char clean[1024], esc[2048], line[8192], ts[32], rid[160] = "";
    struct timespec now;
    struct tm tm;
    const char *more = "";

    hpod_redact(clean, sizeof clean, msg);
    json_escape(esc, sizeof esc, clean);
    /* fields is "{...}": splice its members in after msg. */
    if (fields && fields[0] == '{' && fields[1] && fields[1] != '}')
        more = fields + 1;
    if (request_id) {
        char e[128];
        json_escape(e, sizeof e, request_id);
        snprintf(rid, sizeof rid, ",\"request_id\":\"%s\"", e);
    }
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    int n =
        snprintf(line, sizeof line,
                 "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"msg\":\"%s\"%s%s%s"
                 "\n",
                 ts, now.tv_nsec / 1000000, names[level & 3], esc, rid,
                 *more ? "," : "}", more);
    if (n <= 0)
        return;
    if ((size_t)n >= sizeof line) {
        /* Over-long fields: keep the line a JSON object without them. */
        n = snprintf(line, sizeof line,
                     "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"msg\":\"%s\"%s,"
                     "\"truncated\":true}\n",
                     ts, now.tv_nsec / 1000000, names[level & 3], esc, rid);
        if (n <= 0 || (size_t)n >= sizeof line)
            return;
    }
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void
hpod_log(enum hpod_log_level level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (!hpod_log_enabled(level))
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    emit(level, msg, NULL);
}

void
hpod_log_event(enum hpod_log_level level, const char *msg, const char *fields)
{
    if (hpod_log_enabled(level))
        emit(level, msg, fields);
}
