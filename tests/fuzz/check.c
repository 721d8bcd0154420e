/*
 * tests/fuzz/check.c - the properties every harness checks; see fuzz.h.
 */
#include <jansson.h>
#include <stdlib.h>

#include "study/def.h"
#include "server/http.h"
#include "tests/fuzz/fuzz.h"

json_t *
fuzz_body(const uint8_t *data, size_t size)
{
    struct hpod_err err = {0};
    json_t *body = NULL;
    enum hpod_status st;

    if (size > FUZZ_MAX_BODY) /* the server answers 413 before parsing */
        return NULL;
    st = http_parse_body((const char *)data, size, &body, &err);
    if (st != HPOD_OK) {
        FUZZ_CHECK(body == NULL, "body returned on failure");
        fuzz_check_failure(st, &err);
        return NULL;
    }
    return body;
}

void
fuzz_check_failure(enum hpod_status st, const struct hpod_err *err)
{
    int code = http_status_code(st);
    FUZZ_CHECK(code >= 400 && code < 500, "status %s (%d): %s",
               hpod_status_str(st), code, err->msg);
    FUZZ_CHECK(err->msg[0] != '\0', "status %s without a message",
               hpod_status_str(st));
    json_t *body = http_error_json(st, err);
    char *text = body ? hj_dump(body, 0) : NULL; /* as the server */
    FUZZ_CHECK(text != NULL,
               "error body cannot be encoded: field \"%s\" "
               "message \"%s\"",
               err->field, err->msg);
    free(text);
    json_decref(body);
}
