/*
 * tests/fuzz/check.c - the properties every harness checks; see fuzz.h.
 */
#include <jansson.h>
#include <stdlib.h>

#include "handlers/json_model.h"
#include "server/http.h"
#include "tests/fuzz/fuzz.h"

void
fuzz_check_failure(enum hpod_status st, const struct hpod_err *err)
{
    int code = http_status_code(st);
    FUZZ_CHECK(code >= 400 && code < 500, "status %s (%d): %s",
               hpod_status_str(st), code, err->msg);
    FUZZ_CHECK(err->msg[0] != '\0', "status %s without a message",
               hpod_status_str(st));
    json_t *body = http_error_json(st, err);
    char *text = body ? json_dump_text(body, 0) : NULL; /* as the server */
    FUZZ_CHECK(text != NULL,
               "error body cannot be encoded: field \"%s\" "
               "message \"%s\"",
               err->field, err->msg);
    free(text);
    json_decref(body);
}
