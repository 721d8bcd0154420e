/*
 * tests/fuzz/fuzz_router.c - router_match on arbitrary method and path
 * bytes: the input is "METHOD PATH" (split at the first space; NUL ends
 * the path, as it does for the URL libmicrohttpd hands over).
 *
 * Properties: a match has a route of that method, a positive id exactly
 * when the pattern has {id}, and a NUL-terminated name that fits struct
 * req's buffer; a miss is 404 or 405 and the error the server then builds
 * from the path ("no such path: ...") encodes as JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "server/http.h"
#include "server/router.h"
#include "common/err.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf, *method, *path, *sp;
    const struct route *route = NULL;
    struct hpod_err err = {0};
    struct req rq;
    enum hpod_status st;

    if (size > 65536)
        return 0;
    buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    method = buf;
    sp = strchr(buf, ' ');
    path = sp ? sp + 1 : buf + strlen(buf);
    if (sp)
        *sp = '\0';
    memset(&rq, 0, sizeof rq);
    memset(rq.name, 'x', sizeof rq.name); /* must be overwritten */
    st = router_match(method, path, &route, &rq.id, rq.name, sizeof rq.name);
    FUZZ_CHECK(memchr(rq.name, '\0', sizeof rq.name) != NULL,
               "name not terminated");
    if (st == HPOD_OK) {
        FUZZ_CHECK(route != NULL && strcmp(route->method, method) == 0,
                   "matched a route of another method");
        FUZZ_CHECK((strstr(route->pattern, "{id}") != NULL) == (rq.id > 0),
                   "id %lld for pattern %s", rq.id, route->pattern);
        FUZZ_CHECK((strstr(route->pattern, "{name}") != NULL) ==
                       (rq.name[0] != '\0'),
                   "name \"%s\" for pattern %s", rq.name, route->pattern);
    } else {
        FUZZ_CHECK(route == NULL, "route returned on a miss");
        FUZZ_CHECK(st == HPOD_ENOTFOUND || st == HPOD_EMETHOD, "status %s",
                   hpod_status_str(st));
        /* What server/http.c's dispatch() says about a miss. */
        if (st == HPOD_ENOTFOUND)
            hpod_fail(&err, st, "", "no such path: %s", path);
        else
            hpod_fail(&err, st, "", "method %s is not allowed on %s", method,
                      path);
        fuzz_check_failure(st, &err);
    }
    free(buf);
    return 0;
}
