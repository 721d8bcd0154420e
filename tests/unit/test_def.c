/*
 * tests/unit/test_def.c - study definition validation (each error
 * path with its status and field), normalization, parameter mapping.
 */
#include "tests/support/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph.h"
#include "study/def.h"

static const char *BASE_SPACE =
    "[{\"name\":\"lr\",\"type\":\"float\",\"low\":0.0001,\"high\":0.01,"
    "\"log\":true},{\"name\":\"layers\",\"type\":\"int\",\"low\":1,"
    "\"high\":6},{\"name\":\"bpe\",\"type\":\"int\",\"values\":[30000,10000]},"
    "{\"name\":\"opt\",\"type\":\"categorical\",\"choices\":[\"adam\","
    "\"sgd\"]}]";

/* Parses text as a study body and returns the status; fills field. */
static enum hpod_status
try_def(const char *text, char *field)
{
    json_t *body = json_loads(text, 0, NULL);
    struct study_def d;
    struct hpod_err err = {0};
    assert_non_null(body);
    enum hpod_status st = def_from_json(body, &d, &err);
    strcpy(field, err.field);
    if (st == HPOD_OK)
        def_clear(&d);
    json_decref(body);
    return st;
}

static void
test_valid_and_normalized(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":%s,\"objectives\":[{\"name\":"
             "\"bleu\",\"goal\":\"maximize\"}],\"algorithm\":{\"name\":"
             "\"random\",\"seed\":5},\"candidates\":[{\"lr\":0.001,"
             "\"layers\":2,\"bpe\":10000,\"opt\":\"sgd\"}]}",
             BASE_SPACE);
    json_t *body = json_loads(text, 0, NULL);
    struct study_def d;
    struct hpod_err err = {0};
    assert_int_equal(def_from_json(body, &d, &err), HPOD_OK);
    json_decref(body);
    assert_int_equal(d.space.n_params, 4);
    assert_int_equal(d.space.dim, 4); /* one feature per parameter */
    assert_int_equal(d.algo.seed, 5);
    assert_int_equal(d.lease_seconds, 3600);
    assert_int_equal(d.budget, -1);
    /* values are stored sorted; defaults filled in */
    json_t *bpe = json_array_get(json_object_get(d.def, "space"), 2);
    assert_int_equal(
        json_integer_value(json_array_get(json_object_get(bpe, "values"), 0)),
        10000);
    assert_true(json_is_false(json_object_get(bpe, "log")));
    assert_int_equal(json_array_size(d.candidates), 1);
    /* round trip of the stored definition through the same parser */
    char *stored = json_dumps(d.def, JSON_COMPACT);
    struct study_def d2;
    assert_int_equal(def_from_text(stored, &d2, &err), HPOD_OK);
    assert_true(json_equal(d.def, d2.def));
    /* params mapping */
    double raw[4] = {0.001, 3, 30000, 1};
    json_t *p = params_to_json(&d, raw);
    assert_string_equal(json_string_value(json_object_get(p, "opt")), "sgd");
    assert_true(json_is_integer(json_object_get(p, "layers")));
    double back[4];
    assert_int_equal(params_from_json(&d, p, back, "params", &err), HPOD_OK);
    assert_memory_equal(raw, back, sizeof raw);
    json_object_set_new(p, "layers", json_integer(9));
    assert_int_equal(params_from_json(&d, p, back, "params", &err),
                     HPOD_EUNPROC);
    assert_string_equal(err.field, "params.layers");
    json_decref(p);
    free(stored);
    def_clear(&d2);
    def_clear(&d);
}

static void
test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        enum hpod_status st;
        const char *field;
    } cases[] = {
        {"[]", HPOD_EINVAL, ""},
        {"{\"space\":[],\"objectives\":[]}", HPOD_EINVAL, "name"},
        {"{\"name\":5}", HPOD_EINVAL, "name"},
        {"{\"name\":\"x\",\"bogus\":1}", HPOD_EINVAL, "bogus"},
        {"{\"name\":\"x\",\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}]}",
         HPOD_EINVAL, "space"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"float\","
         "\"low\":2,\"high\":1}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}]}",
         HPOD_EUNPROC, "space[0].low"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"float\","
         "\"low\":0,\"high\":1,\"log\":true}],\"objectives\":[{\"name\":"
         "\"b\",\"goal\":\"maximize\"}]}",
         HPOD_EUNPROC, "space[0].low"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":0.5,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}]}",
         HPOD_EINVAL, "space[0].low"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"categorical\","
         "\"choices\":[]}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}]}",
         HPOD_EUNPROC, "space[0].choices"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"categorical\","
         "\"choices\":[\"u\",\"u\"]}],\"objectives\":[{\"name\":\"b\","
         "\"goal\":\"maximize\"}]}",
         HPOD_EUNPROC, "space[0].choices[1]"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3},{\"name\":\"a\",\"type\":\"int\",\"low\":1,"
         "\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}]}",
         HPOD_EUNPROC, "space[1].name"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3,\"extra\":1}],\"objectives\":[{\"name\":\"b\","
         "\"goal\":\"maximize\"}]}",
         HPOD_EINVAL, "space[0].extra"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"up\"}]}",
         HPOD_EUNPROC, "objectives[0].goal"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}],\"algorithm\":{\"name\":\"magic\"}}",
         HPOD_EUNPROC, "algorithm.name"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}],\"budget\":0}",
         HPOD_EUNPROC, "budget"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}],\"candidates\":[{\"a\":1},{\"a\":1}]}",
         HPOD_EUNPROC, "candidates[1]"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}],\"candidates\":[{\"a\":7}]}",
         HPOD_EUNPROC, "candidates[0].a"},
        {"{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":\"int\","
         "\"low\":1,\"high\":3}],\"objectives\":[{\"name\":\"b\",\"goal\":"
         "\"maximize\"}],\"reference\":{\"zz\":1}}",
         HPOD_EUNPROC, "reference.zz"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char field[128];
        enum hpod_status st = try_def(cases[i].body, field);
        if (st != cases[i].st || strcmp(field, cases[i].field) != 0) {
            print_error("case %zu: status %d field \"%s\", expected %d "
                        "\"%s\"\n",
                        i, (int)st, field, (int)cases[i].st, cases[i].field);
            fail();
        }
    }
}

static void
test_dump_shortest(void **state)
{
    (void)state;
    json_t *v =
        json_pack("{s:f, s:f, s:f}", "a", 14.2, "b", 0.1 + 0.2, "c", 1e-300);
    char *t = hj_dump(v, JSON_SORT_KEYS);
    /* Each real on its own: 0.1+0.2 needs 17 digits, 14.2 still prints
     * as 14.2 in the same document. */
    assert_string_equal(t, "{\"a\":14.2,\"b\":0.30000000000000004,"
                           "\"c\":1e-300}");
    json_t *back = json_loads(t, 0, NULL);
    assert_true(json_equal(back, v));
    json_decref(back);
    free(t);
    json_decref(v);
    v = json_pack("{s:f, s:i}", "bleu", 14.2, "n", 3);
    t = hj_dump(v, 0);
    assert_string_equal(t, "{\"bleu\":14.2,\"n\":3}");
    free(t);
    json_decref(v);
}

static void
test_exact_numbers(void **state)
{
    (void)state;
    double x = 0;
    struct hpod_err err = {0};
    json_t *v;
    static const struct {
        const char *text;
        int exact, int_ok; /* as any number; as an int parameter's value */
    } cases[] = {
        {"14.2", 1, 0},
        {"1e19", 1, 0},
        {"-1.7976931348623157e308", 1, 0},
        {"9007199254740992", 1, 1},
        {"-9007199254740992", 1, 1},
        {"9007199254740993", 0, 0},
        {"-9007199254740993", 0, 0},
        {"4611686018427387904", 1, 0}, /* 2^62: a double holds it */
        {"9223372036854775807", 0, 0}, /* rounds to 2^63 */
        {"-9223372036854775808", 1, 0},
        {"3", 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        v = json_loads(cases[i].text, JSON_DECODE_ANY, NULL);
        assert_non_null(v);
        if (hj_exact_number(v, &x) != cases[i].exact)
            fail_msg("hj_exact_number(%s) != %d", cases[i].text,
                     cases[i].exact);
        if (cases[i].exact)
            assert_true(x == json_number_value(v));
        enum hpod_status want = json_is_integer(v) && cases[i].int_ok ? HPOD_OK
                                : json_is_integer(v) ? HPOD_EUNPROC
                                                     : HPOD_EINVAL;
        if (hj_int_field(v, "f", &x, &err) != want)
            fail_msg("hj_int_field(%s) != %d", cases[i].text, (int)want);
        json_decref(v);
    }
    /* Through the definition: the field of the offending value. */
    char field[128];
    assert_int_equal(
        try_def("{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":"
                "\"int\",\"values\":[1,9223372036854775807]}],"
                "\"objectives\":[{\"name\":\"b\",\"goal\":\"maximize\"}]}",
                field),
        HPOD_EUNPROC);
    assert_string_equal(field, "space[0].values[1]");
    assert_int_equal(
        try_def("{\"name\":\"x\",\"space\":[{\"name\":\"a\",\"type\":"
                "\"float\",\"values\":[1e19,2e19]}],\"objectives\":[{"
                "\"name\":\"b\",\"goal\":\"maximize\"}],\"constraints\":"
                "[{\"metric\":\"b\",\"max\":9007199254740993}]}",
                field),
        HPOD_EUNPROC);
    assert_string_equal(field, "constraints[0].max");
}

static void
test_metric_set(void **state)
{
    (void)state;
    struct metric_set m = {0};
    static const char *names[] = {"m5", "m1", "m9", "m3", "m7", "m0"};
    for (size_t i = 0; i < 6; i++)
        metric_set_add(&m, names[i], 2.385 * (double)i);
    assert_int_equal(m.n, 6);
    for (size_t i = 1; i < m.n; i++)
        assert_true(strcmp(m.v[i - 1].name, m.v[i].name) < 0);
    for (size_t i = 0; i < 6; i++)
        assert_true(metric_set_get(&m, names[i]) == 2.385 * (double)i);
    assert_null(metric_set_find(&m, "m2"));
    assert_true(isnan(metric_set_get(&m, "m2")));
    assert_true(metric_name_ok("a.b-c_D9"));
    assert_false(metric_name_ok(""));
    assert_false(metric_name_ok("a b"));
    assert_false(metric_name_ok("x\"y"));
    char long_name[66];
    memset(long_name, 'x', 65);
    long_name[65] = '\0';
    assert_false(metric_name_ok(long_name));
    long_name[64] = '\0';
    assert_true(metric_name_ok(long_name));
    metric_set_clear(&m);
    assert_null(m.v);
    metric_set_clear(&m); /* safe twice */
}

/* warm_start: the two forms normalized and bound, and the shape errors
 * (400, naming warm_start or its field); absent: no key at all. */
/* A study body over BASE_SPACE with extra appended to its object. */
static void
warm_body(char *text, size_t size, const char *extra)
{
    snprintf(text, size,
             "{\"name\":\"s\",\"space\":%s,\"objectives\":[{\"name\":"
             "\"bleu\",\"goal\":\"maximize\"}]%s}",
             BASE_SPACE, extra);
}

static void
test_warm_start(void **state)
{
    (void)state;
    char text[2048], field[128];
    static const struct {
        const char *extra;
        enum hpod_status st;
        const char *field;
    } cases[] = {
        {",\"warm_start\":{\"study\":12}", HPOD_OK, ""},
        {",\"warm_start\":{\"benchmark\":\"nmthpo/ru-en\"}", HPOD_OK, ""},
        {",\"warm_start\":null", HPOD_OK, ""},
        {",\"warm_start\":[]", HPOD_EINVAL, "warm_start"},
        {",\"warm_start\":{}", HPOD_EINVAL, "warm_start"},
        {",\"warm_start\":{\"study\":1,\"benchmark\":\"x\"}", HPOD_EINVAL,
         "warm_start"},
        {",\"warm_start\":{\"study\":0}", HPOD_EUNPROC, "warm_start.study"},
        {",\"warm_start\":{\"study\":1.5}", HPOD_EINVAL, "warm_start.study"},
        {",\"warm_start\":{\"benchmark\":3}", HPOD_EINVAL,
         "warm_start.benchmark"},
        {",\"warm_start\":{\"study\":1,\"x\":1}", HPOD_EINVAL, "warm_start.x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        warm_body(text, sizeof text, cases[i].extra);
        field[0] = '\0';
        assert_int_equal(try_def(text, field), cases[i].st);
        if (cases[i].st != HPOD_OK)
            assert_string_equal(field, cases[i].field);
    }
    warm_body(text, sizeof text, ",\"warm_start\":{\"study\":12}");
    json_t *body = json_loads(text, 0, NULL);
    struct study_def d;
    struct hpod_err err = {0};
    assert_int_equal(def_from_json(body, &d, &err), HPOD_OK);
    assert_int_equal(d.warm_study, 12);
    assert_null(d.warm_benchmark);
    /* The stored text goes back through the same parser. */
    char *dump = hj_dump(d.def, 0);
    struct study_def d2;
    assert_int_equal(def_from_text(dump, &d2, &err), HPOD_OK);
    assert_int_equal(d2.warm_study, 12);
    assert_true(json_equal(json_object_get(d2.def, "warm_start"),
                           json_object_get(d.def, "warm_start")));
    free(dump);
    def_clear(&d2);
    def_clear(&d);
    json_decref(body);
    warm_body(text, sizeof text, "");
    body = json_loads(text, 0, NULL);
    assert_int_equal(def_from_json(body, &d, &err), HPOD_OK);
    assert_null(json_object_get(d.def, "warm_start"));
    assert_int_equal(d.warm_study, 0);
    def_clear(&d);
    json_decref(body);
}

/* A body of n candidates of one int parameter, n_obj objectives and the
 * algorithm object algo (JSON text). */
static json_t *
sized_body(size_t n, int n_obj, const char *algo)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"int\","
             "\"low\":0,\"high\":100000}],\"objectives\":[{\"name\":\"b\","
             "\"goal\":\"maximize\"}%s],\"algorithm\":%s}",
             n_obj > 1 ? ",{\"name\":\"t\",\"goal\":\"minimize\"}" : "", algo);
    json_t *b = json_loads(text, 0, NULL), *c = json_array();
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(c, json_pack("{s:I}", "x", (json_int_t)i));
    json_object_set_new(b, "candidates", c);
    return b;
}

/* Every algorithm that builds a graph over the candidates is refused
 * above GRAPH_MAX_NODES at creation, naming the key that asked for the
 * graph; gp over as many candidates is not. */
static void
test_graph_size(void **state)
{
    (void)state;
    static const struct {
        int n_obj;
        const char *algo, *field;
    } cases[] = {
        {1, "{\"name\":\"graph\"}", "algorithm.name"},
        {2, "{\"name\":\"ehvi\",\"surrogate\":\"graph\"}",
         "algorithm.surrogate"},
        {1, "{\"name\":\"gp\",\"hedge\":true}", "algorithm.hedge"},
        {1, "{\"name\":\"asha\",\"R\":9,\"base\":\"graph\"}", "algorithm.base"},
        {1, "{\"name\":\"gp\"}", NULL},
        {2, "{\"name\":\"ehvi\",\"surrogate\":\"gp\"}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t n = GRAPH_MAX_NODES; n <= GRAPH_MAX_NODES + 1; n++) {
            json_t *b = sized_body(n, cases[i].n_obj, cases[i].algo);
            struct study_def d;
            struct hpod_err err = {0};
            int refused = cases[i].field && n > GRAPH_MAX_NODES;
            enum hpod_status st = def_from_json(b, &d, &err);
            assert_int_equal(st, refused ? HPOD_EUNPROC : HPOD_OK);
            if (refused) {
                char want[64];
                snprintf(want, sizeof want,
                         "at most %d candidates, this "
                         "study has %zu",
                         GRAPH_MAX_NODES, n);
                assert_string_equal(err.field, cases[i].field);
                assert_non_null(strstr(err.msg, want));
            }
            def_clear(&d);
            json_decref(b);
        }
    }
}

/*
 * A categorical's repeated choice is reported at its index within the
 * definition (study/choices.h, called by study/params.c; its other checks:
 * test_choices.c).
 */
static void
test_choice_errors(void **state)
{
    (void)state;
    char field[160];
    assert_int_equal(
        try_def("{\"name\":\"s\",\"space\":[{\"name\":\"c\",\"type\":"
                "\"categorical\",\"choices\":[\"a\",\"b\",\"ab\",\"b\","
                "\"a\"]}],\"objectives\":[{\"name\":\"y\",\"goal\":"
                "\"maximize\"}]}",
                field),
        HPOD_EUNPROC);
    assert_string_equal(field, "space[0].choices[3]");
}

/*
 * The removed options (docs/auto.md): 422 on the field, the message naming
 * what replaced them; what stays parses, and ehvi's "log_objectives":
 * false (in definitions stored before the removal) is accepted and no
 * longer written back.
 */
static void
test_removed_options(void **state)
{
    (void)state;
    static const struct {
        int n_obj;
        const char *algo, *field, *names; /* names: NULL when accepted */
    } cases[] = {
        {1, "{\"name\":\"gp\",\"hedge\":true,\"hedge_judge\":\"observed\"}",
         "algorithm.hedge_judge", "the GP judge"},
        {1, "{\"name\":\"gp\",\"hedge_judge\":\"observed\"}",
         "algorithm.hedge_judge", "the GP judge"},
        {2,
         "{\"name\":\"ehvi\",\"surrogate\":\"graph\",\"gp_blend\":"
         "\"all\"}",
         "algorithm.gp_blend", "use \"first\""},
        {2, "{\"name\":\"ehvi\",\"log_objectives\":true}",
         "algorithm.log_objectives", "omit it"},
        {1, "{\"name\":\"gp\",\"hedge\":true,\"hedge_judge\":\"gp\"}",
         "hedge_judge", NULL},
        {2,
         "{\"name\":\"ehvi\",\"surrogate\":\"graph\",\"gp_blend\":"
         "\"first\"}",
         "gp_blend", NULL},
        {2, "{\"name\":\"ehvi\",\"log_objectives\":false}", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *b = sized_body(8, cases[i].n_obj, cases[i].algo);
        struct study_def d;
        struct hpod_err err = {0};
        enum hpod_status st = def_from_json(b, &d, &err);
        if (cases[i].names) {
            assert_int_equal(st, HPOD_EUNPROC);
            assert_string_equal(err.field, cases[i].field);
            assert_non_null(strstr(err.msg, "was removed"));
            assert_non_null(strstr(err.msg, cases[i].names));
            assert_non_null(strstr(err.msg, "docs/auto.md"));
        } else {
            json_t *a = json_object_get(d.def, "algorithm");
            assert_int_equal(st, HPOD_OK);
            /* what stays is written back as sent; log_objectives never */
            if (cases[i].field)
                assert_non_null(json_object_get(a, cases[i].field));
            assert_null(json_object_get(a, "log_objectives"));
            def_clear(&d);
        }
        json_decref(b);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_and_normalized),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dump_shortest),
        cmocka_unit_test(test_exact_numbers),
        cmocka_unit_test(test_metric_set),
        cmocka_unit_test(test_warm_start),
        cmocka_unit_test(test_graph_size),
        cmocka_unit_test(test_choice_errors),
        cmocka_unit_test(test_removed_options),
    };
    return cmocka_run_group_tests_name("study_def", tests, NULL, NULL);
}
