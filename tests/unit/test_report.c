/*
 * tests/unit/test_report.c - the report rules of study/report.h without
 * HTTP or a database: the body on its own (report_from_json), the metrics
 * a study knows (report_check_metrics), and the merge of a final report
 * into what a trial holds (report_merge).
 */
#include "tests/support/check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "study/def.h"
#include "study/report.h"

/* Parses text as a report body; returns the status, fills field. */
static enum hpod_status
try_report(const char *text, struct report_input *in, char *field)
{
    json_t *body = json_loads(text, JSON_DECODE_ANY, NULL);
    struct hpod_err err = {0};
    assert_non_null(body);
    enum hpod_status st = report_from_json(body, in, &err);
    strcpy(field, err.field);
    json_decref(body);
    return st;
}

static void
test_report_from_json(void **state)
{
    (void)state;
    struct report_input in;
    char f[96];
    /* Accepted: sorted by name, exact doubles, optional step. */
    assert_int_equal(try_report("{\"values\":{\"ppl\":1e19,\"bleu\":14.2,"
                                "\"a.b-c_d\":-1.7976931348623157e308,"
                                "\"z\":9007199254740992},\"step\":12}",
                                &in, f),
                     HPOD_OK);
    assert_int_equal(in.values.n, 4);
    assert_string_equal(in.values.v[0].name, "a.b-c_d");
    assert_string_equal(in.values.v[1].name, "bleu");
    assert_string_equal(in.values.v[2].name, "ppl");
    assert_string_equal(in.values.v[3].name, "z");
    assert_true(in.values.v[0].value == -1.7976931348623157e308);
    assert_true(in.values.v[1].value == 14.2);
    assert_true(in.values.v[2].value == 1e19);
    assert_true(in.values.v[3].value == 9007199254740992.0);
    assert_int_equal(in.step, 12);
    report_input_clear(&in);
    assert_int_equal(
        try_report("{\"values\":{\"m\":5e-324},\"step\":null}", &in, f),
        HPOD_OK);
    assert_true(in.values.v[0].value == 5e-324 && in.step == -1);
    report_input_clear(&in);

    /* Refused, each with its status and field; nothing is left to free. */
    static const struct {
        const char *body;
        enum hpod_status st;
        const char *field;
    } bad[] = {
        {"[1]", HPOD_EINVAL, ""},
        {"{}", HPOD_EINVAL, "values"},
        {"{\"values\":[1]}", HPOD_EINVAL, "values"},
        {"{\"values\":{}}", HPOD_EUNPROC, "values"},
        {"{\"values\":{\"m\":1},\"final\":true}", HPOD_EINVAL, "final"},
        {"{\"values\":{\"m\":\"1\"}}", HPOD_EINVAL, "values.m"},
        {"{\"values\":{\"m\":null}}", HPOD_EINVAL, "values.m"},
        {"{\"values\":{\"a\":1,\"m\":9007199254740993}}", HPOD_EUNPROC,
         "values.m"},
        {"{\"values\":{\"m\":-9007199254740993}}", HPOD_EUNPROC, "values.m"},
        {"{\"values\":{\"m\":9223372036854775807}}", HPOD_EUNPROC, "values.m"},
        {"{\"values\":{\"a b\":1}}", HPOD_EUNPROC, "values.a b"},
        {"{\"values\":{\"\":1}}", HPOD_EUNPROC, "values."},
        {"{\"values\":{\"m\":1},\"step\":-1}", HPOD_EUNPROC, "step"},
        {"{\"values\":{\"m\":1},\"step\":1000000001}", HPOD_EUNPROC, "step"},
        {"{\"values\":{\"m\":1},\"step\":1.5}", HPOD_EINVAL, "step"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(try_report(bad[i].body, &in, f), bad[i].st);
        assert_string_equal(f, bad[i].field);
        assert_int_equal(in.values.n, 0);
        assert_null(in.values.v);
    }
}

/* A study maximizing bleu, minimizing gpu_time, with a speed constraint. */
static void
two_objective_def(struct study_def *d)
{
    char field[96];
    json_t *body = json_loads(
        "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
        "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"bleu\","
        "\"goal\":\"maximize\"},{\"name\":\"gpu_time\",\"goal\":"
        "\"minimize\"}],\"constraints\":[{\"metric\":\"speed\",\"min\":"
        "2.5}],\"algorithm\":{\"name\":\"random\",\"seed\":1}}",
        0, NULL);
    struct hpod_err err = {0};
    assert_non_null(body);
    assert_int_equal(def_from_json(body, d, &err), HPOD_OK);
    strcpy(field, err.field);
    json_decref(body);
}

static void
test_report_metrics_and_merge(void **state)
{
    (void)state;
    struct study_def d;
    struct report_input in = {0};
    struct hpod_err err = {0};
    struct trial t = {0};
    struct metric_set add = {0};
    int complete;
    size_t bad;

    two_objective_def(&d);
    /* Only the study's objectives and constrained metrics. */
    metric_set_add(&in.values, "speed", 3.25);
    metric_set_add(&in.values, "bleu", 20.5);
    assert_int_equal(report_check_metrics(&d, &in, &err), HPOD_OK);
    metric_set_add(&in.values, "ppl", 7);
    assert_int_equal(report_check_metrics(&d, &in, &err), HPOD_EUNPROC);
    assert_string_equal(err.field, "values.ppl");
    report_input_clear(&in);

    /* A running trial holding bleu: the same bleu again adds nothing; a
     * different one conflicts; gpu_time completes it. */
    t.state = TRIAL_RUNNING;
    metric_set_add(&t.values, "bleu", 20.5);
    metric_set_add(&in.values, "bleu", 20.5);
    report_merge(&d, &t, &in.values, &add, &complete, &bad);
    assert_true(bad == (size_t)-1 && add.n == 0 && !complete);
    metric_set_add(&in.values, "gpu_time", 1e19);
    report_merge(&d, &t, &in.values, &add, &complete, &bad);
    assert_true(bad == (size_t)-1 && add.n == 1 && complete);
    assert_string_equal(add.v[0].name, "gpu_time");
    assert_true(add.v[0].value == 1e19);
    metric_set_clear(&add);
    report_input_clear(&in);
    metric_set_add(&in.values, "bleu", nextafter(20.5, 21));
    report_merge(&d, &t, &in.values, &add, &complete, &bad);
    assert_int_equal(bad, 0);
    report_input_clear(&in);
    metric_set_clear(&add);

    /* Completed: only what it holds, exactly; any new metric conflicts. */
    t.state = TRIAL_COMPLETED;
    metric_set_add(&t.values, "gpu_time", 210);
    metric_set_add(&in.values, "gpu_time", 210);
    report_merge(&d, &t, &in.values, &add, &complete, &bad);
    assert_true(bad == (size_t)-1 && add.n == 0 && complete);
    metric_set_add(&in.values, "speed", 3);
    report_merge(&d, &t, &in.values, &add, &complete, &bad);
    assert_int_equal(bad, 1); /* "speed" sorts after "gpu_time" */
    report_input_clear(&in);
    metric_set_clear(&add);
    trial_clear(&t);
    def_clear(&d);
}

/* Bounds of the body: metric count, step range, name length. */
static void
test_report_bounds(void **state)
{
    (void)state;
    struct report_input in;
    char f[96], body[8192];
    size_t off;

    for (int n = 64; n <= 65; n++) {
        off = (size_t)snprintf(body, sizeof body, "{\"values\":{");
        for (int i = 0; i < n; i++)
            off += (size_t)snprintf(body + off, sizeof body - off,
                                    "%s\"m%02d\":%d", i ? "," : "", i, i);
        snprintf(body + off, sizeof body - off, "}}");
        assert_int_equal(try_report(body, &in, f),
                         n == 64 ? HPOD_OK : HPOD_EUNPROC);
        if (n == 64) {
            assert_int_equal(in.values.n, 64);
            assert_int_equal(in.step, -1);
        } else {
            assert_string_equal(f, "values");
        }
        report_input_clear(&in);
    }
    assert_int_equal(try_report("{\"values\":{\"m\":1},\"step\":0}", &in, f),
                     HPOD_OK);
    assert_int_equal(in.step, 0);
    report_input_clear(&in);
    assert_int_equal(
        try_report("{\"values\":{\"m\":1},\"step\":1000000000}", &in, f),
        HPOD_OK);
    assert_int_equal(in.step, REPORT_MAX_STEP);
    report_input_clear(&in);
    /* Integers at ±2^53 are exact; a real beyond it is taken as sent. */
    assert_int_equal(try_report("{\"values\":{\"a\":-9007199254740992,"
                                "\"b\":9007199254740993.0}}",
                                &in, f),
                     HPOD_OK);
    assert_true(in.values.v[0].value == -9007199254740992.0);
    report_input_clear(&in);
    /* A metric name of 64 characters is the longest. */
    char name[70];
    memset(name, 'n', 65);
    name[65] = '\0';
    snprintf(body, sizeof body, "{\"values\":{\"%s\":1}}", name);
    assert_int_equal(try_report(body, &in, f), HPOD_EUNPROC);
    name[64] = '\0';
    snprintf(body, sizeof body, "{\"values\":{\"%s\":1}}", name);
    assert_int_equal(try_report(body, &in, f), HPOD_OK);
    report_input_clear(&in);
    report_input_clear(NULL); /* safe */
}

/* A pending trial holding nothing: the first final report takes all. */
static void
test_report_merge_pending(void **state)
{
    (void)state;
    struct study_def d;
    struct trial t = {0};
    struct metric_set in = {0}, add = {0};
    struct report_input ri = {0};
    struct hpod_err err = {0};
    int complete;
    size_t bad;

    two_objective_def(&d);
    t.state = TRIAL_PENDING;
    metric_set_add(&in, "speed", 1); /* a constrained metric, violated */
    report_merge(&d, &t, &in, &add, &complete, &bad);
    assert_true(bad == (size_t)-1 && add.n == 1 && !complete);
    metric_set_clear(&add);
    metric_set_add(&in, "bleu", 1);
    metric_set_add(&in, "gpu_time", 2);
    report_merge(&d, &t, &in, &add, &complete, &bad);
    assert_true(bad == (size_t)-1 && add.n == 3 && complete);
    metric_set_clear(&add);
    /* The constrained metric alone is a known metric too. */
    metric_set_add(&ri.values, "speed", 2);
    assert_int_equal(report_check_metrics(&d, &ri, &err), HPOD_OK);
    report_input_clear(&ri);
    /* A completed trial holding nothing of this report: first conflicts. */
    t.state = TRIAL_COMPLETED;
    report_merge(&d, &t, &in, &add, &complete, &bad);
    assert_int_equal(bad, 0);
    metric_set_clear(&add);
    metric_set_clear(&in);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_from_json),
        cmocka_unit_test(test_report_bounds),
        cmocka_unit_test(test_report_metrics_and_merge),
        cmocka_unit_test(test_report_merge_pending),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
