/*
 * tests/fuzz/fuzz.h - what every fuzz harness shares.
 *
 * A harness defines LLVMFuzzerTestOneInput and checks its properties with
 * FUZZ_CHECK, which aborts (a crash to libFuzzer, a failure to the replay
 * main) with the property that broke. The same harness links with
 * libFuzzer (make fuzz, clang) or with tests/fuzz/replay.c, which runs the
 * repository corpus once under make test.
 */
#ifndef HPOD_FUZZ_H
#define HPOD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                  \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__,          \
                    __LINE__, #cond);                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* The server's body limit (HPOD_MAX_BODY's default). */
#define FUZZ_MAX_BODY 1048576

/*
 * fuzz_check_failure - the contract (openapi/openapi.json, Error) for a
 * rejected request: a 4xx status, a message, and an error body the server can
 * encode (so the client gets JSON, not an empty reply).
 */
void fuzz_check_failure(enum hpod_status st, const struct hpod_err *err);

/*
 * fuzz_body - data decoded as the server decodes a request body: a new
 * reference, or NULL when the server would not get that far (over
 * FUZZ_MAX_BODY: 413 before parsing) or refuses it, after checking that
 * refusal with fuzz_check_failure.
 */
struct json_t;
struct json_t *fuzz_body(const uint8_t *data, size_t size);

#endif
