/*
 * cli/remote.h - the command line's calls to a running hpod over HTTP
 * (cli/httpc.h): where (HPOD_URL), as whom (HPOD_TOKEN), one JSON request
 * and its answer, and an error answer said in one line.
 */
#ifndef HPOD_CLI_REMOTE_H
#define HPOD_CLI_REMOTE_H

#include <jansson.h>
#include <stddef.h>

#include "cli/httpc.h"
#include "server/config.h"

/* The longest a call may take, and the largest answer read (a CSV of a
 * big study). */
#define REMOTE_TIMEOUT_MS 60000
#define REMOTE_MAX_ANSWER (256UL << 20)

struct remote {
    char addr[64]; /* IPv4, dotted: the host resolved */
    long port;
    char prefix[256];  /* HPOD_URL's path, without a trailing slash */
    char url[300];     /* for messages: scheme, host and port as given */
    char headers[200]; /* the Authorization line, or "" */
};

/*
 * remote_init - r from cfg: HPOD_URL ("http://host[:port][/prefix]";
 * empty: http://127.0.0.1:HPOD_PORT) and HPOD_TOKEN (empty: none).
 * Returns 0, or -1 with why (one line).
 */
int remote_init(struct remote *r, const struct config *cfg, char *why,
                size_t whycap);

struct remote_answer {
    int status;
    json_t *json; /* the body parsed, when it is JSON; NULL otherwise */
    struct httpc_answer raw;
};

/*
 * remote_call - method path (under the prefix) with body (NULL: none),
 * asking for accept (NULL: JSON). Returns 0 with any status in *out
 * (remote_answer_clear), or -1 with why when no answer came.
 */
int remote_call(const struct remote *r, const char *method, const char *path,
                const json_t *body, const char *accept,
                struct remote_answer *out, char *why, size_t whycap);
void remote_answer_clear(struct remote_answer *a);

/* The error of an answer that is not 2xx: "404 not_found: study 9 does
 * not exist" into buf; its field (or "") into *field (borrowed). */
const char *remote_error(const struct remote_answer *a, char *buf, size_t cap,
                         const char **field);

/*
 * remote_json - method path, expecting a 2xx JSON answer: 0 with *out (a
 * new reference), or 1 after printing "hpod CMD: ..." on stderr.
 */
int remote_json(const struct remote *r, const char *cmd, const char *method,
                const char *path, const json_t *body, json_t **out);

/*
 * remote_list - every row of a paged list: GET path (its query kept) page
 * by page, limit rows a page, the arrays under key joined into *out (a
 * new array). 0, or 1 after printing the error as remote_json does (*out
 * NULL).
 */
int remote_list(const struct remote *r, const char *cmd, const char *path,
                const char *key, long long limit, json_t **out);

/* A study answer's algorithm as a user reads it, into buf: "gp", or
 * "auto: gp" for an auto study (its choice); "-" when it has none. */
const char *remote_algorithm(const json_t *study, char *buf, size_t cap);

#endif
