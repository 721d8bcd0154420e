/*
 * cli/httpc.h - the command line's HTTP/1.1 client: one request to an
 * `hpod serve` on a plain TCP socket (IPv4), `Connection: close`, one
 * deadline for the whole exchange (connect, send, read the answer to its
 * end). libmicrohttpd is a server library and the runtime image has no
 * curl, so `hpod healthcheck` and the subcommands that drive a server over
 * HTTP share this one.
 */
#ifndef HPOD_CLI_HTTPC_H
#define HPOD_CLI_HTTPC_H

#include <stddef.h>

struct httpc_request {
    const char *addr; /* IPv4 address, dotted */
    long port;
    const char *method;  /* "GET" */
    const char *path;    /* with its query, "/healthz" */
    const char *headers; /* more header lines, each ending "\r\n"; or NULL */
    const char *accept;  /* the Accept header's value; NULL: application/json */
    const char *body;    /* NULL: no body */
    size_t body_len;
    long timeout_ms;   /* the whole exchange */
    size_t max_answer; /* bytes of the whole answer, headers included */
};

struct httpc_answer {
    int status;            /* 200 */
    char status_line[128]; /* "HTTP/1.1 200 OK", cut at 100 bytes */
    char *text;            /* the whole answer as read (owned), NUL-ended */
    const char *body;      /* into text (a chunked body decoded in place) */
    size_t body_len;
};

/*
 * httpc_exchange - sends rq and reads its answer into *ans (cleared first).
 * Returns 0, or -1 with why holding one line: "cannot connect: ...",
 * "cannot send the request: ...", "no complete answer in time", "reading
 * the answer: ...", "answer longer than N bytes", "not an HTTP answer:
 * ...". The status may be anything: judging it is the caller's.
 */
int httpc_exchange(const struct httpc_request *rq, struct httpc_answer *ans,
                   char *why, size_t whycap);

/* Frees what httpc_exchange filled in; the struct may be reused. */
void httpc_answer_clear(struct httpc_answer *ans);

#endif
