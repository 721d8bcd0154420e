/*
 * tests/unit/test_suggest.c - what suggest learns from, without a
 * database: study/history turns stored trials into the sampler's evidence
 * (completed trials oriented larger-is-better, live ones pending, failed
 * ones and points outside the space ignored, finite candidates marked
 * taken) and, for constrained or multi-objective studies, core/mobo's
 * observations with NaN where a metric was not reported.
 */
#include "tests/support/check.h"
#include "tests/support/studydef.h"

#include <string.h>

#include "study/history.h"

static void
def_from(const char *algo, const char *extra, struct study_def *d)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
             "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"loss\","
             "\"goal\":\"minimize\"}],\"algorithm\":%s%s}",
             algo, extra);
    def_parse(text, d);
}

static void
trial_at(struct trial *t, long long id, enum trial_state st, const char *p,
         long long cand)
{
    memset(t, 0, sizeof *t);
    t->id = id;
    t->state = st;
    t->params = (char *)p;
    t->candidate = cand;
    t->train_to = -1;
    t->resume_from_step = -1;
}

/* The rows of the tests: 5 trials in every state that matters. */
static void
make_rows(struct trial *r)
{
    trial_at(&r[0], 1, TRIAL_COMPLETED, "{\"x\":0.25}", -1);
    metric_set_add(&r[0].values, "loss", 2);
    metric_set_add(&r[0].values, "mem", 1);
    trial_at(&r[1], 2, TRIAL_RUNNING, "{\"x\":0.5}", -1);
    trial_at(&r[2], 3, TRIAL_FAILED, "{\"x\":0.75}", -1);
    metric_set_add(&r[2].values, "mem", 9);
    trial_at(&r[3], 4, TRIAL_COMPLETED, "{\"y\":1}", -1); /* not a point */
    metric_set_add(&r[3].values, "loss", 1);
    trial_at(&r[4], 5, TRIAL_COMPLETED, "{\"x\":1}", -1);
    metric_set_add(&r[4].values, "mem", 3); /* decoupled: no loss yet */
}

static void
free_rows(struct trial *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        metric_set_clear(&r[i].values);
}

static void
test_single_objective(void **state)
{
    (void)state;
    struct study_def d;
    struct trial r[5];
    struct history h = {0};
    struct mf_work w = {.train_to = -1, .max_new = -1};

    def_from("{\"name\":\"gp\",\"seed\":1}", "", &d);
    assert_false(history_uses_mobo(&d));
    make_rows(r);
    history_build(&d, r, 5, NULL, 0, 0, &w, &h);
    /* Completed with the objective: trial 1 only (loss 2, minimized). */
    assert_int_equal(h.n_obs, 1);
    assert_close(h.obs_raw[0], 0.25, 0, 0);
    assert_close(h.obs_y[0], -2, 0, 0);
    assert_int_equal(h.obs_cand[0], (size_t)-1);
    /* Running: pending. */
    assert_int_equal(h.n_pend, 1);
    assert_close(h.pend_raw[0], 0.5, 0, 0);
    assert_int_equal(h.n_mo, 0);
    history_clear(&h);
    free_rows(r, 5);
    def_clear(&d);
}

static void
test_constrained_observations(void **state)
{
    (void)state;
    struct study_def d;
    struct trial r[5];
    struct history h = {0};
    struct mf_work w = {.train_to = -1, .max_new = -1};

    def_from("{\"name\":\"gp\",\"seed\":1}",
             ",\"constraints\":[{\"metric\":\"mem\",\"max\":4}]", &d);
    assert_true(history_uses_mobo(&d));
    make_rows(r);
    history_build(&d, r, 5, NULL, 0, 0, &w, &h);
    /* Trials 1 (complete) and 5 (mem only); the running one has nothing
     * reported, the failed one is not evidence. */
    assert_int_equal(h.n_mo, 2);
    assert_int_equal(h.n_mo_complete, 1);
    assert_close(h.mo_y[0], -2, 0, 0);
    assert_close(h.mo_c[0], 1, 0, 0);
    assert_true(isnan(h.mo_y[1]));
    assert_close(h.mo_c[1], 3, 0, 0);
    assert_close(h.mo_raw[1], 1, 0, 0);
    history_clear(&h);
    free_rows(r, 5);
    def_clear(&d);
}

static void
test_finite_candidates(void **state)
{
    (void)state;
    struct study_def d;
    struct trial r[3];
    struct history h = {0};
    struct mf_work w = {.train_to = -1, .max_new = -1};
    const double cand[4] = {0.1, 0.2, 0.3, 0.4};

    def_from("{\"name\":\"random\",\"seed\":1}", "", &d);
    trial_at(&r[0], 1, TRIAL_COMPLETED, "{\"x\":0.2}", 1);
    metric_set_add(&r[0].values, "loss", 1);
    trial_at(&r[1], 2, TRIAL_RUNNING, "{\"x\":0.4}", 3);
    trial_at(&r[2], 3, TRIAL_FAILED, "{\"x\":0.1}", 0);
    history_build(&d, r, 3, cand, 4, 1, &w, &h);
    /* Random search learns nothing, but every issued candidate is
     * taken, whatever became of it. */
    assert_int_equal(h.n_cand, 4);
    assert_true(h.cand_raw == cand);
    assert_int_equal(h.cand_used[0], 1);
    assert_int_equal(h.cand_used[1], 1);
    assert_int_equal(h.cand_used[2], 0);
    assert_int_equal(h.cand_used[3], 1);
    assert_int_equal(h.n_obs + h.n_pend, 0);
    /* A new choice adds itself to the pending ones. */
    history_add_pending(&h, 1, &cand[2], 2);
    assert_int_equal(h.n_pend, 1);
    assert_int_equal(h.pend_cand[0], 2);
    history_clear(&h);
    free_rows(r, 3);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_objective),
        cmocka_unit_test(test_constrained_observations),
        cmocka_unit_test(test_finite_candidates),
    };
    return cmocka_run_group_tests_name("suggest", tests, NULL, NULL);
}
