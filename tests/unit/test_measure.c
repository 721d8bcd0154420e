/*
 * tests/unit/test_measure.c - study/measure without a database: the
 * measure lists, the check of a report against what a trial was asked,
 * what a report on a probe decides (a failing probe ends the trial, a
 * passing one asks for the rest), and the choice at suggest time (probe
 * while nothing is known; train where the constraint GP is sure).
 */
#include "tests/support/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "study/measure.h"
#include "tests/support/studydef.h"

/* gpu_time <= 200 decoupled, speed >= 2 decoupled, mem <= 8 coupled. */
static const char *THREE =
    "[{\"metric\":\"gpu_time\",\"max\":200,\"decoupled\":true},"
    "{\"metric\":\"speed\",\"min\":2,\"decoupled\":true,\"cost\":0.2},"
    "{\"metric\":\"mem\",\"max\":8}]";

static void
test_lists_and_check(void **state)
{
    (void)state;
    struct study_def d;
    struct hpod_err err = {0};
    struct metric_set held = {0}, in = {0};
    def_with_constraints(THREE, &d);
    assert_true(measure_decoupled(&d));
    assert_true(d.con_decoupled[0] && d.con_decoupled[1] &&
                !d.con_decoupled[2]);
    assert_float_equal(d.con_cost[0], 0.1, 0);
    assert_float_equal(d.con_cost[1], 0.2, 0);
    char *all = measure_all(&d);
    assert_string_equal(all, "[\"bleu\",\"gpu_time\",\"speed\",\"mem\"]");
    free(all);

    const char *probe = "[\"gpu_time\",\"speed\"]";
    metric_set_add(&in, "gpu_time", 100);
    assert_int_equal(measure_check_report(probe, &held, &in, &err), HPOD_OK);
    assert_int_equal(measure_check_report(NULL, &held, &in, &err), HPOD_OK);
    metric_set_add(&in, "bleu", 20);
    assert_int_equal(measure_check_report(probe, &held, &in, &err),
                     HPOD_EUNPROC);
    assert_string_equal(err.field, "values.bleu");
    /* A value the trial holds may be repeated. */
    metric_set_add(&held, "bleu", 20);
    assert_int_equal(measure_check_report(probe, &held, &in, &err), HPOD_OK);
    assert_int_equal(measure_check_report("{", &held, &in, &err),
                     HPOD_EINTERNAL);
    metric_set_clear(&held);
    metric_set_clear(&in);

    struct study_def plain;
    def_with_constraints("[{\"metric\":\"gpu_time\",\"max\":200}]", &plain);
    assert_false(measure_decoupled(&plain));
    def_clear(&plain);
    def_clear(&d);
}

static void
test_after_report(void **state)
{
    (void)state;
    struct study_def d;
    struct metric_set v = {0};
    int done = 7;
    char *next = NULL;
    const char *probe = "[\"gpu_time\",\"speed\"]";
    def_with_constraints(THREE, &d);

    /* Half a probe: nothing decided yet. */
    metric_set_add(&v, "gpu_time", 150);
    measure_after_report(&d, probe, &v, &done, &next);
    assert_int_equal(done, 0);
    assert_null(next);
    /* Both met: the rest is asked, in measure_all's order. */
    metric_set_add(&v, "speed", 2);
    measure_after_report(&d, probe, &v, &done, &next);
    assert_int_equal(done, 0);
    assert_non_null(next);
    assert_string_equal(next, "[\"bleu\",\"mem\"]");
    free(next);
    metric_set_clear(&v);
    /* One violated (a "min" bound): the trial ends. */
    metric_set_add(&v, "gpu_time", 150);
    metric_set_add(&v, "speed", 1.5);
    measure_after_report(&d, probe, &v, &done, &next);
    assert_int_equal(done, 1);
    assert_null(next);
    metric_set_clear(&v);
    /* A "max" bound violated alone decides too, at the boundary not. */
    metric_set_add(&v, "gpu_time", 200);
    metric_set_add(&v, "speed", 2);
    measure_after_report(&d, probe, &v, &done, &next);
    assert_int_equal(done, 0);
    free(next);
    metric_set_clear(&v);
    metric_set_add(&v, "gpu_time", 200.5);
    metric_set_add(&v, "speed", 9);
    measure_after_report(&d, probe, &v, &done, &next);
    assert_int_equal(done, 1);
    /* Not a probe (everything asked), or no measure: nothing to decide. */
    measure_after_report(&d, "[\"bleu\",\"gpu_time\",\"speed\",\"mem\"]", &v,
                         &done, &next);
    assert_int_equal(done, 0);
    assert_null(next);
    measure_after_report(&d, NULL, &v, &done, &next);
    assert_int_equal(done, 0);
    assert_null(next);
    metric_set_clear(&v);
    def_clear(&d);
}

/*
 * The choice: with fewer than CONSTRAINT_MIN_REPORTS reports q = 0, so
 * probe; with gpu_time = 100 + 400x well reported, a point deep inside
 * (x = 0.05, P ≈ 1) is trained, one past the bound (x = 0.9) probed.
 */
static void
test_choose(void **state)
{
    (void)state;
    struct study_def d;
    def_with_constraints(
        "[{\"metric\":\"gpu_time\",\"max\":200,\"decoupled\":true}]", &d);
    struct history h;
    memset(&h, 0, sizeof h);
    double raw[1] = {0.5};
    char *m = NULL;
    assert_int_equal(measure_choose(&d, &h, 0, raw, &m), HPOD_OK);
    assert_string_equal(m, "[\"gpu_time\"]");
    free(m);

    enum { N = 12 };
    double xr[N], yc[N], ym[N];
    for (int i = 0; i < N; i++) {
        xr[i] = (i + 0.5) / N;
        yc[i] = 100 + 400 * xr[i];
        ym[i] = NAN;
    }
    h.mo_raw = xr;
    h.mo_c = yc;
    h.mo_y = ym;
    h.n_mo = N;
    raw[0] = 0.02;
    assert_int_equal(measure_choose(&d, &h, 1, raw, &m), HPOD_OK);
    assert_string_equal(m, "[\"bleu\",\"gpu_time\"]");
    free(m);
    raw[0] = 0.9;
    assert_int_equal(measure_choose(&d, &h, 2, raw, &m), HPOD_OK);
    assert_string_equal(m, "[\"gpu_time\"]");
    free(m);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_and_check),
        cmocka_unit_test(test_after_report),
        cmocka_unit_test(test_choose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
