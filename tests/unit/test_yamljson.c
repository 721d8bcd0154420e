/*
 * tests/unit/test_yamljson.c - cli/yamljson.c: YAML's scalars as the JSON
 * values the API takes, positions by field path (and the enclosing value's
 * when a field has none), the errors with their line and column, the
 * bounds on nesting and on aliases, and JSON files read by jansson.
 */
#include "tests/support/check.h"

#include <string.h>

#include "cli/yamljson.h"
#include "common/json.h"

/* text parsed as YAML; its root as compact JSON text, sorted keys. */
static char *
as_json(const char *text)
{
    struct yamljson_doc d;
    char why[256];
    int line = 0, col = 0;
    assert_int_equal(
        yamljson_parse(text, strlen(text), 0, &d, why, sizeof why, &line, &col),
        0);
    char *out = hj_dump(d.root, JSON_COMPACT | JSON_SORT_KEYS);
    yamljson_clear(&d);
    return out;
}

static void
expect_json(const char *yaml, const char *json)
{
    char *got = as_json(yaml);
    if (strcmp(got, json) != 0)
        fail_msg("%s\n  -> %s\n  expected %s", yaml, got, json);
    free(got);
}

static void
test_scalars(void **state)
{
    (void)state;
    expect_json("a: 1\nb: -7\nc: +3\n", "{\"a\":1,\"b\":-7,\"c\":3}");
    expect_json("a: 1e-4\nb: 0.5\nc: .25\nd: 2.\ne: 1E3\n",
                "{\"a\":0.0001,\"b\":0.5,\"c\":0.25,\"d\":2.0,\"e\":1000.0}");
    expect_json("a: true\nb: False\nc: ~\nd: null\ne:\n",
                "{\"a\":true,\"b\":false,\"c\":null,\"d\":null,\"e\":null}");
    /* YAML 1.1's yes/no/on/off are strings, and so is anything quoted. */
    expect_json("a: yes\nb: \"true\"\nc: '12'\nd: 0x1A\ne: 1.2.3\n",
                "{\"a\":\"yes\",\"b\":\"true\",\"c\":\"12\",\"d\":\"0x1A\","
                "\"e\":\"1.2.3\"}");
    expect_json("a: |\n  two\n  lines\n", "{\"a\":\"two\\nlines\\n\"}");
    expect_json("{\"a\": [1, {\"b\": \"x\"}]}", "{\"a\":[1,{\"b\":\"x\"}]}");
    /* An alias is a copy of its anchor's value. */
    expect_json(
        "a: &o {g: max}\nb: [*o, *o]\n",
        "{\"a\":{\"g\":\"max\"},\"b\":[{\"g\":\"max\"},{\"g\":\"max\"}]}");
    /* 2^53 + 1 stays exact: an integer, not a double. */
    expect_json("a: 9007199254740993\n", "{\"a\":9007199254740993}");
}

static void
test_positions(void **state)
{
    static const char text[] = "name: x\n"
                               "space:\n"
                               "  - name: lr\n"
                               "    low: 0.5\n"
                               "  - {name: b, low: 1}\n";
    struct yamljson_doc d;
    char why[256];
    int line = 0, col = 0;
    (void)state;
    assert_int_equal(
        yamljson_parse(text, strlen(text), 0, &d, why, sizeof why, &line, &col),
        0);
    assert_true(yamljson_where(&d, "space[0].low", &line, &col));
    assert_int_equal(line, 4);
    assert_int_equal(col, 5);
    assert_true(yamljson_where(&d, "space[1].low", &line, &col));
    assert_int_equal(line, 5);
    assert_int_equal(col, 15);
    /* No such field: the enclosing value's place. */
    assert_true(yamljson_where(&d, "space[1].high", &line, &col));
    assert_int_equal(line, 5);
    assert_int_equal(col, 5);
    assert_true(yamljson_where(&d, "name", &line, &col));
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
    assert_false(yamljson_where(&d, "budget", &line, &col));
    assert_false(yamljson_where(&d, "", &line, &col));
    yamljson_clear(&d);
}

static void
expect_error(const char *text, int is_json, int line, int col,
             const char *words)
{
    struct yamljson_doc d;
    char why[256] = "";
    int l = -1, c = -1;
    assert_int_equal(yamljson_parse(text, strlen(text), is_json, &d, why,
                                    sizeof why, &l, &c),
                     -1);
    if (l != line || c != col || !strstr(why, words))
        fail_msg("%s\n  -> %d:%d %s\n  expected %d:%d %s", text, l, c, why,
                 line, col, words);
    assert_null(d.root);
}

static void
test_errors(void **state)
{
    char deep[512] = "";
    (void)state;
    expect_error("a: [1, 2\n", 0, 2, 1, "flow sequence");
    expect_error("a: 1\nb: 2\na: 3\n", 0, 3, 1, "given twice");
    expect_error("a: 1\n---\nb: 2\n", 0, 2, 1, "one document");
    expect_error("- 1\n- 2\n", 0, 1, 1, "one mapping");
    expect_error("", 0, 0, 0, "empty");
    expect_error("a: .inf\n", 0, 1, 4, "NaN");
    expect_error("a: 99999999999999999999\n", 0, 1, 4, "out of range");
    expect_error("? [1]\n: 2\n", 0, 1, 3, "plain name");
    /* Nesting past the bound. */
    for (int i = 0; i < YAMLJSON_MAX_DEPTH + 1; i++)
        strcat(deep, "[");
    char text[600];
    snprintf(text, sizeof text, "a: %s", deep);
    for (int i = 0; i < YAMLJSON_MAX_DEPTH + 1; i++)
        strcat(text, "]");
    expect_error(text, 0, 1, YAMLJSON_MAX_DEPTH + 4, "nested too deeply");
    /* A billion laughs: copies of aliases count against the bound. */
    expect_error("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                 "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                 "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                 "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                 "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                 "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                 "g: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
                 0, 1, 35,
                 "too many values"); /* an aliased value: where it is defined */
}

static void
test_json_files(void **state)
{
    static const char good[] = "{\"a\": 0.1,\n \"b\": [1, {\"c\": true}]}";
    struct yamljson_doc d;
    char why[256];
    int line = 0, col = 0;
    (void)state;
    assert_int_equal(
        yamljson_parse(good, strlen(good), 1, &d, why, sizeof why, &line, &col),
        0);
    assert_true(json_is_real(json_object_get(d.root, "a")));
    assert_true(yamljson_where(&d, "b[1].c", &line, &col));
    assert_int_equal(line, 2);
    assert_int_equal(col, 12);
    yamljson_clear(&d);
    /* jansson's rules and positions: duplicates, syntax, not an object. */
    expect_error("{\"a\": 1, \"a\": 2}", 1, 1, 12, "duplicate");
    expect_error("{\"a\": 1,\n \"b\": }", 1, 2, 7, "unexpected token");
    expect_error("[1, 2]", 1, 1, 1, "one JSON object");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_json_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
