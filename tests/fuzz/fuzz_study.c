/*
 * tests/fuzz/fuzz_study.c - POST /v1/studies without the database: the
 * body decoded as server/http.c decodes it (http_parse_body), then the
 * study-definition parser (def_from_json).
 *
 * Properties: a rejection is a 4xx with a message and an encodable error
 * body; an acceptance yields a definition that encodes (hj_dump, as
 * studies_create stores it) and that, parsed again from that text with
 * its normalized candidates, is accepted and normalizes to itself (the
 * stored definition goes back through the same parser on every later
 * request, so it must stay valid and unchanged).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "study/def.h"
#include "server/http.h"
#include "tests/fuzz/fuzz.h"

static void
check_round_trip(const struct study_def *d)
{
    struct study_def d2;
    struct hpod_err err = {0};
    char *text = hj_dump(d->def, 0);
    json_t *body;
    enum hpod_status st;

    FUZZ_CHECK(text != NULL, "accepted definition cannot be encoded");
    body = hj_parse(text);
    FUZZ_CHECK(body != NULL, "encoded definition is not JSON: %s", text);
    if (d->candidates)
        json_object_set(body, "candidates", d->candidates);
    st = def_from_json(body, &d2, &err);
    FUZZ_CHECK(st == HPOD_OK, "normalized definition rejected (%s: %s): %s",
               err.field, err.msg, text);
    FUZZ_CHECK(json_equal(d2.def, d->def),
               "normalizing twice changed the definition: %s", text);
    FUZZ_CHECK(!d->candidates == !d2.candidates &&
                   (!d->candidates || json_equal(d->candidates, d2.candidates)),
               "normalizing twice changed the candidates: %s", text);
    FUZZ_CHECK(d2.space.n_params == d->space.n_params &&
                   d2.n_objectives == d->n_objectives &&
                   d2.n_constraints == d->n_constraints &&
                   d2.budget == d->budget && d2.algo.name == d->algo.name &&
                   d2.algo.seed == d->algo.seed,
               "normalizing twice changed the parsed study: %s", text);
    def_clear(&d2);
    json_decref(body);
    free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hpod_err err = {0};
    struct study_def d;
    json_t *body = NULL;
    enum hpod_status st;

    if (!(body = fuzz_body(data, size)))
        return 0;
    st = def_from_json(body, &d, &err);
    if (st != HPOD_OK) {
        fuzz_check_failure(st, &err);
    } else {
        FUZZ_CHECK(d.def && d.name && d.space.n_params > 0 &&
                       d.n_objectives > 0,
                   "accepted an incomplete study");
        check_round_trip(&d);
    }
    def_clear(&d);
    json_decref(body);
    return 0;
}
