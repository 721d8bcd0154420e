/*
 * tests/fuzz/fuzz_import.c - POST /v1/benchmarks without the database: the
 * body decoded as server/http.c decodes it, then the import validator
 * (import_validate).
 *
 * Properties: a rejection is a 4xx with a message and an encodable error
 * body; an acceptance names the table and gives a definition and rows that
 * encode as the handler stores them (hj_dump).
 */
#include <jansson.h>
#include <stdlib.h>

#include "bench/import.h"
#include "common/json.h"
#include "server/http.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hpod_err err = {0};
    const char *name = NULL;
    json_t *body = NULL, *def = NULL;
    enum hpod_status st;

    if (!(body = fuzz_body(data, size)))
        return 0;
    st = import_validate(body, &name, &def, &err);
    if (st != HPOD_OK) {
        FUZZ_CHECK(def == NULL, "definition returned on failure");
        fuzz_check_failure(st, &err);
    } else {
        char *d = hj_dump(def, 0);
        char *r = hj_dump(json_object_get(body, "rows"), 0);
        FUZZ_CHECK(name && def && d && r, "accepted import cannot be encoded");
        free(d);
        free(r);
    }
    json_decref(def);
    json_decref(body);
    return 0;
}
