/*
 * tests/unit/test_auto.c - "algorithm": {"name": "auto"} in a study
 * definition (study/auto.c): what an omitted algorithm resolves to, the
 * recorded choice and sentence, the seed, closed keys, and a definition
 * as hpod wrote it (stored, or read back and sent again) kept as written
 * (the rule is not run again on it).
 */
#include "tests/support/check.h"

#include <stdio.h>
#include <string.h>

#include "core/autoalgo.h"
#include "study/auto.h"
#include "study/def.h"

/* A body: n candidates of one int parameter x, objectives, extra JSON. */
static json_t *
body(size_t n, int n_obj, const char *extra)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"int\","
             "\"low\":0,\"high\":100000},{\"name\":\"o\",\"type\":"
             "\"categorical\",\"choices\":[\"a\",\"b\"]}],\"objectives\":["
             "{\"name\":\"bleu\",\"goal\":\"maximize\"}%s]%s}",
             n_obj > 1 ? ",{\"name\":\"t\",\"goal\":\"minimize\"}" : "", extra);
    json_t *b = json_loads(text, 0, NULL);
    assert_non_null(b);
    if (n) {
        json_t *c = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(
                c, json_pack("{s:I, s:s}", "x", (json_int_t)i, "o", "a"));
        json_object_set_new(b, "candidates", c);
    }
    return b;
}

static const char *
chosen_name(const struct study_def *d)
{
    json_t *a = json_object_get(d->def, "algorithm");
    return json_string_value(
        json_object_get(json_object_get(a, "chosen"), "name"));
}

static void
test_omitted_is_auto(void **state)
{
    (void)state;
    struct study_def d;
    struct hpod_err err = {0};
    json_t *b = body(118, 1, "");
    assert_int_equal(def_from_json(b, &d, &err), HPOD_OK);
    json_t *a = json_object_get(d.def, "algorithm");
    assert_string_equal(json_string_value(json_object_get(a, "name")), "auto");
    assert_string_equal(chosen_name(&d), "gp");
    assert_int_equal(d.algo.name, ALGO_GP);
    assert_int_equal(d.algo.acquisition, 3); /* nei */
    assert_true(d.algo.ls_min == 0.01); /* gp.h's default: the prior rules */
    assert_int_equal(d.algo.gp_trust, 8);
    assert_true(d.algo.ls_prior == 1.0);
    assert_int_equal(d.algo.gp_hedge, 1);
    /* the GP judge, the only one: nothing written */
    assert_null(json_object_get(json_object_get(a, "chosen"), "hedge_judge"));
    assert_int_equal(d.algo.init, AUTO_INIT);
    assert_string_equal(json_string_value(json_object_get(a, "case")),
                        "so_finite");
    const char *r = json_string_value(json_object_get(a, "reason"));
    assert_non_null(strstr(r, "auto chose gp/matern52/nei with hedge "
                              "for 1 objective"));
    assert_non_null(strstr(r, "118 candidates (at most 1000) over 2 "
                              "parameters (1 categorical)"));
    /* Then why, in one sentence pointing at the figures in docs/. */
    assert_non_null(strstr(r, ". GP-Hedge, which lets the study's own "));
    assert_non_null(strstr(r, "(details: docs/auto.md, case so_finite)."));
    /* The seed is drawn once and is the chosen algorithm's. */
    json_t *seed = json_object_get(a, "seed");
    assert_true(json_is_integer(seed));
    assert_true(json_equal(
        seed, json_object_get(json_object_get(a, "chosen"), "seed")));
    assert_int_equal((long long)d.algo.seed, json_integer_value(seed));
    /* Stored and read back: the same definition and algorithm. */
    char *text = json_dumps(d.def, JSON_COMPACT);
    struct study_def d2;
    assert_int_equal(def_from_text(text, &d2, &err), HPOD_OK);
    assert_true(json_equal(d.def, d2.def));
    assert_int_equal(d2.algo.name, ALGO_GP);
    assert_true(d2.algo.ls_min == 0.01);
    assert_int_equal(d2.algo.gp_trust, 8);
    assert_true(d2.algo.ls_prior == 1.0);
    assert_int_equal(d2.algo.seed, d.algo.seed);
    free(text);
    def_clear(&d2);
    def_clear(&d);
    json_decref(b);
}

static void
test_cases_from_definitions(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        int n_obj;
        const char *extra, *name, *code;
        int algo;
    } cases[] = {
        {767, 1, ",\"algorithm\":{\"name\":\"auto\"}", "gp", "so_finite",
         ALGO_GP},
        {1001, 1, "", "gp", "so_huge", ALGO_GP},
        {0, 1, "", "gp", "continuous", ALGO_GP},
        {150, 2, "", "ehvi", "mo_finite", ALGO_EHVI},
        {0, 2, ",\"algorithm\":null", "ehvi", "mo_continuous", ALGO_EHVI},
        {500, 2, "", "ehvi", "mo_finite", ALGO_EHVI},
        {1001, 2, "", "ehvi", "mo_huge", ALGO_EHVI},
        {150, 1, ",\"budget\":3", "random", "tiny_budget", ALGO_RANDOM},
        {150, 1, ",\"budget\":4", "gp", "so_finite", ALGO_GP},
        {150, 1, ",\"warm_start\":{\"benchmark\":\"t\"}", "gp", "warm_start",
         ALGO_GP},
        {150, 1, ",\"constraints\":[{\"metric\":\"t\",\"max\":1}]", "gp",
         "constrained", ALGO_GP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct study_def d;
        struct hpod_err err = {0};
        json_t *b = body(cases[i].n, cases[i].n_obj, cases[i].extra);
        assert_int_equal(def_from_json(b, &d, &err), HPOD_OK);
        json_t *a = json_object_get(d.def, "algorithm");
        assert_string_equal(chosen_name(&d), cases[i].name);
        assert_string_equal(json_string_value(json_object_get(a, "case")),
                            cases[i].code);
        assert_int_equal(d.algo.name, cases[i].algo);
        def_clear(&d);
        json_decref(b);
    }
}

static void
test_seed_and_closed_keys(void **state)
{
    (void)state;
    struct study_def d;
    struct hpod_err err = {0};
    json_t *b = body(118, 2, ",\"algorithm\":{\"name\":\"auto\",\"seed\":7}");
    assert_int_equal(def_from_json(b, &d, &err), HPOD_OK);
    json_t *a = json_object_get(d.def, "algorithm");
    assert_int_equal(json_integer_value(json_object_get(a, "seed")), 7);
    assert_int_equal(d.algo.seed, 7);
    assert_int_equal(d.algo.surrogate, 1); /* graph */
    json_t *chosen = json_object_get(a, "chosen");
    assert_string_equal(json_string_value(json_object_get(chosen, "surrogate")),
                        "graph");
    assert_int_equal(json_integer_value(json_object_get(chosen, "seed")), 7);
    def_clear(&d);
    json_decref(b);
    /* Settings of the chosen method are hpod's: 400; chosen comes only
     * with case and reason (a definition as hpod wrote it). */
    static const struct {
        const char *extra, *field;
        enum hpod_status st;
    } bad[] = {
        {",\"algorithm\":{\"name\":\"auto\",\"kernel\":\"rbf\"}",
         "algorithm.kernel", HPOD_EINVAL},
        {",\"algorithm\":{\"name\":\"auto\",\"reason\":\"x\"}",
         "algorithm.reason", HPOD_EINVAL},
        {",\"algorithm\":{\"name\":\"auto\",\"chosen\":{\"name\":\"gp\"}}",
         "algorithm.case", HPOD_EINVAL},
        {",\"algorithm\":{\"name\":\"auto\",\"chosen\":{\"name\":\"gp\","
         "\"kernel\":\"x\"},\"case\":\"c\",\"reason\":\"r\"}",
         "algorithm.chosen.kernel", HPOD_EUNPROC},
        {",\"algorithm\":{\"name\":\"auto\",\"chosen\":{\"name\":\"auto\"},"
         "\"case\":\"c\",\"reason\":\"r\"}",
         "algorithm.chosen.name", HPOD_EUNPROC},
        {",\"algorithm\":{\"name\":\"auto\",\"seed\":1,\"chosen\":{\"name\":"
         "\"gp\",\"seed\":2},\"case\":\"c\",\"reason\":\"r\"}",
         "algorithm.chosen.seed", HPOD_EUNPROC},
        {",\"algorithm\":{\"name\":\"auto\",\"chosen\":[],\"case\":\"c\","
         "\"reason\":\"r\"}",
         "algorithm.chosen", HPOD_EINVAL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *bb = body(118, 1, bad[i].extra);
        assert_int_equal(def_from_json(bb, &d, &err), bad[i].st);
        assert_string_equal(err.field, bad[i].field);
        json_decref(bb);
    }
    json_t *bs = body(118, 1, ",\"algorithm\":{\"name\":\"auto\",\"seed\":-1}");
    assert_int_equal(def_from_json(bs, &d, &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "algorithm.seed");
    json_decref(bs);
}

/* A stored auto definition keeps its choice, even one the rule would not
 * make today. */
static void
test_stored_choice_stands(void **state)
{
    (void)state;
    struct study_def d;
    struct hpod_err err = {0};
    json_t *b = body(118, 1, "");
    json_object_set_new(
        b, "algorithm",
        json_pack("{s:s, s:i, s:{s:s, s:i, s:s, s:s, s:i}, s:s, s:s}", "name",
                  "auto", "seed", 9, "chosen", "name", "gp", "seed", 9,
                  "kernel", "rbf", "acquisition", "ucb", "init", 5, "case",
                  "so_small", "reason", "an older rule"));
    char *text = json_dumps(b, JSON_COMPACT);
    assert_int_equal(def_from_text(text, &d, &err), HPOD_OK);
    assert_int_equal(d.algo.name, ALGO_GP);
    assert_int_equal(d.algo.acquisition, 2);
    assert_int_equal(d.algo.init, 5);
    json_t *a = json_object_get(d.def, "algorithm");
    assert_string_equal(json_string_value(json_object_get(a, "reason")),
                        "an older rule");
    def_clear(&d);
    /* The same object sent again by a client (a read-back definition)
     * keeps it too, and a chosen without a seed takes auto's. */
    assert_int_equal(def_from_json(b, &d, &err), HPOD_OK);
    assert_int_equal(d.algo.name, ALGO_GP);
    def_clear(&d);
    json_object_del(json_object_get(json_object_get(b, "algorithm"), "chosen"),
                    "seed");
    assert_int_equal(def_from_json(b, &d, &err), HPOD_OK);
    assert_int_equal(d.algo.seed, 9);
    def_clear(&d);
    free(text);
    json_decref(b);
}

static void
test_reason_text(void **state)
{
    (void)state;
    struct autoalgo_features f = {.n_params = 1,
                                  .n_candidates = 0,
                                  .n_objectives = 1,
                                  .n_constraints = 2,
                                  .decoupled = 1,
                                  .budget = 50,
                                  .init = 3};
    char buf[1024];
    auto_reason(&f, AUTOALGO_DECOUPLED, "gp/matern52/ei", buf, sizeof buf);
    assert_non_null(strstr(buf, "auto chose gp/matern52/ei for 1 objective, "
                                "2 constraints (decoupled), a continuous "
                                "space (no candidates) over 1 parameter (0 "
                                "categorical) and a budget of 50 trials "
                                "(init 3). Constrained EI that measures the "
                                "decoupled constraints first"));
    assert_non_null(strstr(buf, " (details: docs/auto.md, case decoupled)."));
    assert_int_equal(buf[strlen(buf) - 1], '.');
    char small[16];
    auto_reason(&f, AUTOALGO_DECOUPLED, "gp", small, sizeof small);
    assert_int_equal(strlen(small), 15);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_omitted_is_auto),
        cmocka_unit_test(test_cases_from_definitions),
        cmocka_unit_test(test_seed_and_closed_keys),
        cmocka_unit_test(test_stored_choice_stands),
        cmocka_unit_test(test_reason_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
