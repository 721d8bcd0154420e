/*
 * cli/httpc.c - the command line's HTTP/1.1 client; see httpc.h.
 */
#include "cli/httpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/mem.h"

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

static int say(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes the reason into why; returns -1. */
static int
say(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* Connects fd to sa before deadline; 0, or -1 with why. */
static int
connect_by(int fd, const struct sockaddr_in *sa, long long deadline, char *why,
           size_t cap)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return say(why, cap, "cannot connect: %s", strerror(errno));
    int w = wait_fd(fd, POLLOUT, deadline);
    if (w == 0)
        return say(why, cap, "cannot connect: %s", "no answer in time");
    if (w < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
        return say(why, cap, "cannot connect: %s", strerror(errno));
    if (soerr)
        return say(why, cap, "cannot connect: %s", strerror(soerr));
    return 0;
}

/* Sends len bytes of buf before deadline; 0, or -1 with why. */
static int
send_all(int fd, const char *buf, size_t len, long long deadline, char *why,
         size_t cap)
{
    size_t sent = 0;
    while (sent < len) {
        if (wait_fd(fd, POLLOUT, deadline) != 1)
            return say(why, cap, "cannot send the request: %s",
                       "timed out or connection lost");
        ssize_t n = send(fd, buf + sent, len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno != EINTR && errno != EAGAIN)
            return say(why, cap, "cannot send the request: %s",
                       strerror(errno));
        sent += n > 0 ? (size_t)n : 0;
    }
    return 0;
}

/* Reads to EOF (we ask Connection: close) into a new NUL-ended *out of at
 * most max bytes. 0, or -1 with why. */
static int
read_all(int fd, size_t max, long long deadline, char **out, size_t *len,
         char *why, size_t cap)
{
    size_t got = 0, size = 4096 < max + 1 ? 4096 : max + 1;
    char *buf = xmalloc(size);
    for (;;) {
        int w = wait_fd(fd, POLLIN, deadline);
        if (w <= 0) {
            free(buf);
            return w == 0 ? say(why, cap, "%s", "no complete answer in time")
                          : say(why, cap, "reading the answer: %s",
                                strerror(errno));
        }
        if (got + 1 >= size) {
            if (size > max) {
                free(buf);
                return say(why, cap, "answer longer than %zu bytes", max);
            }
            size = size * 2 > max + 1 ? max + 1 : size * 2;
            buf = xrealloc(buf, size);
        }
        ssize_t n = recv(fd, buf + got, size - 1 - got, 0);
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR && errno != EAGAIN) {
            free(buf);
            return say(why, cap, "reading the answer: %s", strerror(errno));
        }
        got += n > 0 ? (size_t)n : 0;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return 0;
}

/* Decodes a chunked body in place (b[0..*len) -> the data alone); 0, or
 * -1 when it is not well formed. */
static int
dechunk(char *b, size_t *len)
{
    size_t in = 0, out = 0;
    for (;;) {
        char *end;
        unsigned long n = strtoul(b + in, &end, 16);
        char *eol = strstr(end, "\r\n");
        if (end == b + in || !eol)
            return -1;
        in = (size_t)(eol + 2 - b);
        if (n == 0)
            break;
        if (n > *len - in || *len - in - n < 2)
            return -1;
        memmove(b + out, b + in, n);
        out += n;
        in += n + 2;
    }
    b[out] = '\0';
    *len = out;
    return 0;
}

/* Fills status, status_line and body from ans->text (len bytes). */
static int
parse_answer(struct httpc_answer *ans, size_t len, char *why, size_t cap)
{
    char *t = ans->text, *sep = strstr(t, "\r\n\r\n");
    size_t n = strcspn(t, "\r\n");
    snprintf(ans->status_line, sizeof ans->status_line, "%.*s",
             (int)(n < 100 ? n : 100), t);
    if (sscanf(t, "HTTP/1.%*1[01] %3d", &ans->status) != 1 || !sep)
        return say(why, cap, "not an HTTP answer: \"%s\"", ans->status_line);
    char *body = sep + 4;
    size_t blen = len - (size_t)(body - t);
    /* Header names are case-insensitive; MHD writes "Transfer-Encoding". */
    for (char *h = strstr(t, "\r\n"); h && h < sep; h = strstr(h + 2, "\r\n"))
        if (strncasecmp(h + 2, "transfer-encoding:", 18) == 0 &&
            strstr(h + 2, "chunked") &&
            strstr(h + 2, "chunked") < strstr(h + 2, "\r\n") &&
            dechunk(body, &blen) != 0)
            return say(why, cap, "%s", "malformed chunked body");
    ans->body = body;
    ans->body_len = blen;
    return 0;
}

int
httpc_exchange(const struct httpc_request *rq, struct httpc_answer *ans,
               char *why, size_t whycap)
{
    struct sockaddr_in sa;
    long long deadline = hpod_now_ms() + rq->timeout_ms;
    char head[2048];
    size_t len = 0;
    int fd = -1, rc = -1;

    memset(ans, 0, sizeof *ans);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)rq->port);
    if (inet_pton(AF_INET, rq->addr, &sa.sin_addr) != 1)
        return say(why, whycap, "\"%s\" is not an IPv4 address", rq->addr);
    char clen[48] = "";
    if (rq->body)
        snprintf(clen, sizeof clen, "Content-Length: %zu\r\n", rq->body_len);
    int hl = snprintf(head, sizeof head,
                      "%s %s HTTP/1.1\r\nHost: %s:%ld\r\n"
                      "User-Agent: hpod-cli\r\nAccept: %s\r\n"
                      "%s%sConnection: close\r\n\r\n",
                      rq->method, rq->path, rq->addr, rq->port,
                      rq->accept ? rq->accept : "application/json",
                      rq->headers ? rq->headers : "", clen);
    if (hl < 0 || (size_t)hl >= sizeof head)
        return say(why, whycap, "%s", "request head too long");
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return say(why, whycap, "socket: %s", strerror(errno));
    if (connect_by(fd, &sa, deadline, why, whycap) != 0 ||
        send_all(fd, head, strlen(head), deadline, why, whycap) != 0 ||
        (rq->body &&
         send_all(fd, rq->body, rq->body_len, deadline, why, whycap) != 0) ||
        read_all(fd, rq->max_answer, deadline, &ans->text, &len, why, whycap) !=
            0)
        goto out;
    rc = parse_answer(ans, len, why, whycap);
out:
    close(fd);
    if (rc != 0)
        httpc_answer_clear(ans);
    return rc;
}

void
httpc_answer_clear(struct httpc_answer *ans)
{
    free(ans->text);
    memset(ans, 0, sizeof *ans);
}
