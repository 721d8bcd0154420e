/*
 * cli/remote.c - calls to a running hpod over HTTP; see remote.h.
 */
#include "cli/remote.h"

#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/json.h"

/* host into r->addr: a dotted IPv4 address as it is, else the first IPv4
 * address the resolver gives. */
static int
resolve(struct remote *r, const char *host, char *why, size_t whycap)
{
    struct addrinfo hints = {0}, *res = NULL;
    struct in_addr a;
    int rc;

    if (inet_pton(AF_INET, host, &a) == 1) {
        snprintf(r->addr, sizeof r->addr, "%.63s", host);
        return 0;
    }
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if ((rc = getaddrinfo(host, NULL, &hints, &res)) != 0 || !res) {
        snprintf(why, whycap, "HPOD_URL: cannot resolve \"%s\": %s", host,
                 gai_strerror(rc));
        return -1;
    }
    inet_ntop(
        AF_INET,
        &((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr,
        r->addr, sizeof r->addr);
    freeaddrinfo(res);
    return 0;
}

int
remote_init(struct remote *r, const struct config *cfg, char *why,
            size_t whycap)
{
    char url[1024], host[256];
    const char *p, *slash, *colon;
    size_t hl;

    memset(r, 0, sizeof *r);
    if (cfg->url[0])
        snprintf(url, sizeof url, "%s", cfg->url);
    else
        snprintf(url, sizeof url, "http://127.0.0.1:%ld", cfg->port);
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(why, whycap,
                 "HPOD_URL must start with http:// (the command line speaks "
                 "plain HTTP): \"%.200s\"",
                 url);
        return -1;
    }
    p = url + 7;
    slash = strchr(p, '/');
    hl = slash ? (size_t)(slash - p) : strlen(p);
    if (hl == 0 || hl >= sizeof host) {
        snprintf(why, whycap, "HPOD_URL has no host: \"%.200s\"", url);
        return -1;
    }
    memcpy(host, p, hl);
    host[hl] = '\0';
    r->port = 80;
    if ((colon = strchr(host, ':'))) {
        char *end;
        r->port = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || r->port < 1 || r->port > 65535) {
            snprintf(why, whycap, "HPOD_URL has a bad port: \"%.200s\"", url);
            return -1;
        }
        host[colon - host] = '\0';
    }
    snprintf(r->prefix, sizeof r->prefix, "%s", slash ? slash : "");
    size_t n = strlen(r->prefix);
    while (n > 0 && r->prefix[n - 1] == '/')
        r->prefix[--n] = '\0';
    snprintf(r->url, sizeof r->url, "http://%.200s:%ld", host, r->port);
    if (cfg->token[0] &&
        snprintf(r->headers, sizeof r->headers, "Authorization: Bearer %s\r\n",
                 cfg->token) >= (int)sizeof r->headers) {
        snprintf(why, whycap, "HPOD_TOKEN is too long");
        return -1;
    }
    return resolve(r, host, why, whycap);
}

int
remote_call(const struct remote *r, const char *method, const char *path,
            const json_t *body, const char *accept, struct remote_answer *out,
            char *why, size_t whycap)
{
    char full[1024], headers[300];
    char *text = body ? hj_dump(body, 0) : NULL;
    struct httpc_request rq = {.addr = r->addr,
                               .port = r->port,
                               .method = method,
                               .path = full,
                               .headers = headers,
                               .accept = accept,
                               .body = text,
                               .body_len = text ? strlen(text) : 0,
                               .timeout_ms = REMOTE_TIMEOUT_MS,
                               .max_answer = REMOTE_MAX_ANSWER};
    int rc;

    memset(out, 0, sizeof *out);
    snprintf(full, sizeof full, "%s%s", r->prefix, path);
    snprintf(headers, sizeof headers, "%s%s", r->headers,
             text ? "Content-Type: application/json\r\n" : "");
    rc = httpc_exchange(&rq, &out->raw, why, whycap);
    free(text);
    if (rc != 0)
        return -1;
    out->status = out->raw.status;
    out->json = json_loadb(out->raw.body, out->raw.body_len, 0, NULL);
    return 0;
}

void
remote_answer_clear(struct remote_answer *a)
{
    json_decref(a->json);
    httpc_answer_clear(&a->raw);
    memset(a, 0, sizeof *a);
}

const char *
remote_error(const struct remote_answer *a, char *buf, size_t cap,
             const char **field)
{
    json_t *e = json_object_get(a->json, "error");
    const char *code = json_string_value(json_object_get(e, "code"));
    const char *msg = json_string_value(json_object_get(e, "message"));
    *field = json_string_value(json_object_get(e, "field"));
    if (!*field)
        *field = "";
    if (code && msg)
        snprintf(buf, cap, "%d %s: %s", a->status, code, msg);
    else
        snprintf(buf, cap, "%s", a->raw.status_line);
    return buf;
}

int
remote_json(const struct remote *r, const char *cmd, const char *method,
            const char *path, const json_t *body, json_t **out)
{
    struct remote_answer a;
    char why[512];
    const char *field;

    *out = NULL;
    if (remote_call(r, method, path, body, NULL, &a, why, sizeof why) != 0) {
        fprintf(stderr, "hpod %s: %s %s%s: %s\n", cmd, method, r->url, path,
                why);
        return 1;
    }
    if (a.status < 200 || a.status > 299 || !a.json) {
        fprintf(stderr, "hpod %s: %s %s: %s\n", cmd, method, path,
                a.status >= 200 && a.status <= 299
                    ? "the answer is not JSON"
                    : remote_error(&a, why, sizeof why, &field));
        remote_answer_clear(&a);
        return 1;
    }
    *out = json_incref(a.json);
    remote_answer_clear(&a);
    return 0;
}

const char *
remote_algorithm(const json_t *study, char *buf, size_t cap)
{
    json_t *a = json_object_get(study, "algorithm");
    const char *name = json_string_value(json_object_get(a, "name"));
    const char *chosen = json_string_value(
        json_object_get(json_object_get(a, "chosen"), "name"));
    if (name && chosen)
        snprintf(buf, cap, "%s: %s", name, chosen);
    else
        snprintf(buf, cap, "%s", name ? name : chosen ? chosen : "-");
    return buf;
}

int
remote_list(const struct remote *r, const char *cmd, const char *path,
            const char *key, long long limit, json_t **out)
{
    char page_path[1200];
    long long offset = 0, total = 0;
    size_t got;

    *out = json_array();
    do {
        json_t *page;
        snprintf(page_path, sizeof page_path, "%s%climit=%lld&offset=%lld",
                 path, strchr(path, '?') ? '&' : '?', limit, offset);
        if (remote_json(r, cmd, "GET", page_path, NULL, &page) != 0) {
            json_decref(*out);
            *out = NULL;
            return 1;
        }
        json_t *rows = json_object_get(page, key);
        got = json_array_size(rows);
        total = json_integer_value(json_object_get(page, "total"));
        json_array_extend(*out, rows);
        offset += (long long)got;
        json_decref(page);
    } while (got > 0 && offset < total);
    return 0;
}
