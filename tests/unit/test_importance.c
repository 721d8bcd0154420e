/*
 * tests/unit/test_importance.c - study/importance without a database: the
 * rows it fits on (trials that report the metric, params parsed with
 * categoricals as choice indices, trials without the metric or with
 * params outside the space left out), and the fit on them ranking a known
 * additive objective's parameters.
 */
#include "tests/support/check.h"
#include "tests/support/studydef.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/importance.h"

#define N 60

static void
def_from(struct study_def *d)
{
    const char *text =
        "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
        "\"low\":0,\"high\":1},{\"name\":\"opt\",\"type\":\"categorical\","
        "\"choices\":[\"adam\",\"sgd\"]},{\"name\":\"k\",\"type\":\"int\","
        "\"low\":1,\"high\":4}],\"objectives\":[{\"name\":\"loss\","
        "\"goal\":\"minimize\"}]}";
    def_parse(text, d);
}

static void
test_data_and_fit(void **state)
{
    (void)state;
    struct study_def d = {0};
    struct trial rows[N + 2];
    char params[N + 2][96];
    double *x, *y;
    size_t n;

    def_from(&d);
    memset(rows, 0, sizeof rows);
    for (size_t i = 0; i < N; i++) {
        double xv = (double)((i * 37) % N) / N;
        unsigned k = 1 + (unsigned)((i / 2) % 4);
        snprintf(params[i], sizeof params[i],
                 "{\"x\":%.17g,\"opt\":\"%s\",\"k\":%u}", xv,
                 i % 2 ? "sgd" : "adam", k);
        rows[i].params = params[i];
        rows[i].state = TRIAL_COMPLETED;
        /* loss = 5 x + (opt == sgd) · 1, k irrelevant. */
        metric_set_add(&rows[i].values, "loss", 5 * xv + (i % 2 ? 1.0 : 0.0));
    }
    /* One without the metric, one outside the space: not evidence. */
    rows[N].params = "{\"x\":0.5,\"opt\":\"adam\",\"k\":2}";
    metric_set_add(&rows[N].values, "other", 1);
    rows[N + 1].params = "{\"x\":7,\"opt\":\"adam\",\"k\":2}";
    metric_set_add(&rows[N + 1].values, "loss", 1);

    importance_data(&d, rows, N + 2, "loss", &x, &y, &n);
    assert_int_equal(n, N);
    assert_close(x[1 * 3 + 1], 1, 0, 0); /* row 1: sgd = choice 1 */
    assert_close(x[2 * 3 + 1], 0, 0, 0);
    assert_close(x[7 * 3 + 2], 4, 0, 0);
    assert_close(y[1], 5 * x[3] + 1, 0, 1e-12);

    struct ebm *m;
    unsigned char cat[3] = {0, 1, 0};
    assert_int_equal(ebm_fit(x, n, 3, cat, y, NULL, &m), HPOD_OK);
    assert_true(ebm_importance(m, 0) > ebm_importance(m, 1));
    assert_true(ebm_importance(m, 1) > 10 * ebm_importance(m, 2));
    assert_close(ebm_importance(m, 1), 0.5, 0, 0.05);
    ebm_free(m);
    free(x);
    free(y);
    for (size_t i = 0; i < N + 2; i++)
        metric_set_clear(&rows[i].values);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_and_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
