/*
 * tests/fuzz/fuzz_simulate.c - POST /v1/benchmarks/{name}/simulate as far
 * as it goes without a table's rows: the body decoded as server/http.c
 * decodes it, then both validators, the lookup-table one
 * (simreq_table_parse with the study layer's algorithm parser) and the
 * learning-curve one (simcurves_parse, for a set of 148 curves like
 * nmtlc/ted-zh-en).
 *
 * Properties: a rejection is a 4xx with a message and an encodable error
 * body; an acceptance gives a normalized algorithm and values within the
 * documented ranges.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simcurves.h"
#include "bench/simreq.h"
#include "bench/tables.h"
#include "common/json.h"
#include "server/http.h"
#include "study/simalgo.h"
#include "tests/fuzz/fuzz.h"

static void
fuzz_table(json_t *body)
{
    struct hpod_err err = {0};
    struct bench_sim_table tr;
    /* The parse reads a table's size only (for auto): one like zh-en's. */
    struct bench_table table;
    enum hpod_status st;

    memset(&table, 0, sizeof table);
    table.n = 118;
    table.n_params = 6;
    st = simreq_table_parse(body, &table, 0, simalgo_parse, &tr, &err);
    if (st != HPOD_OK) {
        FUZZ_CHECK(tr.norm_algo == NULL, "algorithm returned on failure");
        fuzz_check_failure(st, &err);
        return;
    }
    FUZZ_CHECK(tr.norm_algo != NULL, "no normalized algorithm");
    FUZZ_CHECK(tr.repeats >= 1 && tr.repeats <= 1000 && tr.init >= 1 &&
                   tr.init <= 50 && tr.seed >= 0 && tr.budget >= 1,
               "out of range: repeats %lld init %lld seed %lld budget %lld",
               tr.repeats, tr.init, tr.seed, tr.budget);
    char *text = hj_dump(tr.norm_algo, 0);
    FUZZ_CHECK(text != NULL, "normalized algorithm cannot be encoded");
    free(text);
    json_decref(tr.norm_algo);
}

static void
fuzz_curves(json_t *body)
{
    struct req rq;
    struct bench_lc_set set;
    struct sim_curves_req cr;
    enum hpod_status st;

    memset(&rq, 0, sizeof rq);
    memset(&set, 0, sizeof set);
    rq.body = body;
    snprintf(rq.name, sizeof rq.name, "nmtlc/ted-zh-en");
    snprintf(set.name, sizeof set.name, "nmtlc/ted-zh-en");
    set.n = 148;
    st = simcurves_parse(rq.body, rq.name, &set, &cr, &rq.err);
    if (st != HPOD_OK) {
        FUZZ_CHECK(cr.norm == NULL, "algorithm returned on failure");
        fuzz_check_failure(st, &rq.err);
        return;
    }
    FUZZ_CHECK(cr.norm != NULL, "no normalized algorithm");
    FUZZ_CHECK(cr.configs >= 1 && (size_t)cr.configs <= set.n &&
                   cr.repeats >= 1 && cr.repeats <= 1000 && cr.seed >= 0 &&
                   cr.workers >= 1 && cr.workers <= 64,
               "out of range: configs %lld repeats %lld workers %lld",
               cr.configs, cr.repeats, cr.workers);
    if (cr.la.is_asha)
        FUZZ_CHECK(cr.la.asha.R >= cr.la.asha.r && cr.la.asha.r >= 1 &&
                       cr.la.asha.p >= 2,
                   "asha r %zu R %zu p %zu", cr.la.asha.r, cr.la.asha.R,
                   cr.la.asha.p);
    else
        FUZZ_CHECK(cr.la.sh.p >= 2 && cr.la.sh.c >= 1, "sh p %zu c %zu",
                   cr.la.sh.p, cr.la.sh.c);
    char *text = hj_dump(cr.norm, 0);
    FUZZ_CHECK(text != NULL, "normalized algorithm cannot be encoded");
    free(text);
    json_decref(cr.norm);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *body = fuzz_body(data, size);

    if (!body)
        return 0;
    fuzz_table(body);
    fuzz_curves(body);
    json_decref(body);
    return 0;
}
