/*
 * server/healthcheck.c - `hpod healthcheck`; see healthcheck.h.
 */
#include "server/healthcheck.h"
#include "common/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* /healthz answers a few dozen bytes; more than this is not hpod. */
#define ANSWER_MAX 16384

/* Waits for events on fd until deadline: 1 ready, 0 timeout, -1 error. */
static int
wait_fd(int fd, short events, long long deadline)
{
    struct pollfd p = {fd, events, 0};
    for (;;) {
        long long left = deadline - hpod_now_ms();
        if (left <= 0)
            return 0;
        int n = poll(&p, 1, (int)left);
        if (n > 0)
            return 1;
        if (n == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

static int fail(const char *where, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the one line that says why the check failed; returns 1. */
static int
fail(const char *where, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hpod healthcheck: %s: ", where);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* Connects fd to sa before deadline; 0, or 1 with the reason printed. */
static int
connect_by(int fd, const struct sockaddr_in *sa, long long deadline,
           const char *where)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return fail(where, "cannot connect: %s", strerror(errno));
    int w = wait_fd(fd, POLLOUT, deadline);
    if (w == 0)
        return fail(where, "cannot connect: %s", "no answer in time");
    if (w < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
        return fail(where, "cannot connect: %s", strerror(errno));
    if (soerr)
        return fail(where, "cannot connect: %s", strerror(soerr));
    return 0;
}

/* Sends req and reads the answer to EOF (we ask Connection: close) into
 * buf (NUL-terminated). 0, or 1 with the reason printed. */
static int
exchange(int fd, const char *req, char *buf, size_t cap, long long deadline,
         const char *where)
{
    size_t sent = 0, len = strlen(req), got = 0;
    while (sent < len) {
        if (wait_fd(fd, POLLOUT, deadline) != 1)
            return fail(where, "cannot send the request: %s",
                        "timed out or connection lost");
        ssize_t n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno != EINTR && errno != EAGAIN)
            return fail(where, "cannot send the request: %s", strerror(errno));
        sent += n > 0 ? (size_t)n : 0;
    }
    for (;;) {
        int w = wait_fd(fd, POLLIN, deadline);
        if (w == 0)
            return fail(where, "%s", "no complete answer in time");
        if (w < 0)
            return fail(where, "reading the answer: %s", strerror(errno));
        if (got + 1 >= cap)
            return fail(where, "%s", "answer too long: not hpod's /healthz");
        ssize_t n = recv(fd, buf + got, cap - 1 - got, 0);
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR && errno != EAGAIN)
            return fail(where, "reading the answer: %s", strerror(errno));
        got += n > 0 ? (size_t)n : 0;
    }
    buf[got] = '\0';
    return 0;
}

/* Checks "HTTP/1.x 200 ..." and a JSON body with "status": "ok". */
static int
judge(const char *ans, const char *where)
{
    int code = 0;
    const char *body = strstr(ans, "\r\n\r\n");
    char line[128];
    size_t n = strcspn(ans, "\r\n");
    snprintf(line, sizeof line, "%.*s", (int)(n < 100 ? n : 100), ans);
    if (sscanf(ans, "HTTP/1.%*1[01] %3d", &code) != 1 || !body)
        return fail(where, "not an HTTP answer: \"%s\"", line);
    body += 4;
    json_error_t jerr;
    json_t *doc = json_loads(body, JSON_DECODE_ANY, &jerr);
    const char *status = json_string_value(json_object_get(doc, "status"));
    int ok = code == 200 && status && strcmp(status, "ok") == 0;
    if (!ok) {
        char why[400];
        snprintf(why, sizeof why, "%s, body %.200s", line, body);
        for (char *p = why; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        fail(where, "unhealthy: %s", why);
    }
    json_decref(doc);
    return ok ? 0 : 1;
}

int
healthcheck_run(const struct config *cfg)
{
    struct sockaddr_in sa;
    char where[160], req[256];
    static char ans[ANSWER_MAX];
    long long deadline = hpod_now_ms() + HEALTHCHECK_TIMEOUT_MS;
    /* 0.0.0.0 listens on every interface, loopback included. */
    const char *addr = strcmp(cfg->listen_addr, "0.0.0.0") == 0
                           ? "127.0.0.1"
                           : cfg->listen_addr;
    int fd = -1, rc = 1;

    snprintf(where, sizeof where, "GET http://%s:%ld/healthz", addr, cfg->port);
    if (cfg->port == 0)
        return fail(where, "%s",
                    "HPOD_PORT is 0 (any free port): set the port serve "
                    "listens on");
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)cfg->port);
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
        return fail(where, "HPOD_LISTEN_ADDR \"%s\" is not an IPv4 address",
                    cfg->listen_addr);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(where, "socket: %s", strerror(errno));
    if (connect_by(fd, &sa, deadline, where) != 0)
        goto out;
    snprintf(req, sizeof req,
             "GET /healthz HTTP/1.1\r\nHost: %s:%ld\r\n"
             "User-Agent: hpod-healthcheck\r\nAccept: application/json\r\n"
             "Connection: close\r\n\r\n",
             addr, cfg->port);
    if (exchange(fd, req, ans, sizeof ans, deadline, where) != 0)
        goto out;
    rc = judge(ans, where);
out:
    close(fd);
    return rc;
}
