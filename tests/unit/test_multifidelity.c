/*
 * tests/unit/test_multifidelity.c - the multi-fidelity answers of
 * study/multifidelity without a database: ASHA's continue/stop at rung
 * boundaries (promotion and stopping modes), its promotions, the pruning
 * of paused trials when nothing can start, and multistage's stop at a
 * stage's steps and its advance to the next stage.
 */
#include "tests/support/check.h"
#include "tests/support/studydef.h"

#include <stdlib.h>
#include <string.h>

#include "study/multifidelity.h"

/* A study definition from the text of its "algorithm" object. */
static void
def_with(const char *algo, struct study_def *d)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
             "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"bleu\","
             "\"goal\":\"maximize\"}],\"algorithm\":%s}",
             algo);
    def_parse(text, d);
}

/* Rows of up to 8 trials and 16 intermediate reports (test storage). */
struct rows {
    struct trial t[8];
    struct step_row s[16];
    struct mf_rows r;
};

static void
rows_init(struct rows *x)
{
    memset(x, 0, sizeof *x);
    x->r.trials = x->t;
    x->r.steps = x->s;
}

static void
add_trial(struct rows *x, long long id, enum trial_state st, long long train_to)
{
    struct trial *t = &x->t[x->r.n_trials++];
    t->id = id;
    t->state = st;
    t->candidate = -1;
    t->train_to = train_to;
    t->resume_from_step = -1;
}

static void
add_step(struct rows *x, long long id, int step, double bleu)
{
    struct step_row *s = &x->s[x->r.n_steps++];
    s->trial_id = id;
    s->step = step;
    metric_set_add(&s->values, "bleu", bleu);
}

static void
rows_clear(struct rows *x)
{
    for (size_t i = 0; i < x->r.n_steps; i++)
        metric_set_clear(&x->s[i].values);
    for (size_t i = 0; i < x->r.n_trials; i++)
        metric_set_clear(&x->t[i].values);
}

/* The answer to trial id's report of bleu at step, given x. */
static const char *
decide(const struct study_def *d, const struct study *s, struct rows *x,
       long long id, int step, double bleu, enum trial_state *stopped)
{
    struct trial t = {.id = id, .state = TRIAL_RUNNING, .train_to = -1};
    struct metric_set v = {0};
    const char *action = NULL;
    struct hpod_err err = {0};
    for (size_t i = 0; i < x->r.n_trials; i++)
        if (x->t[i].id == id)
            t.train_to = x->t[i].train_to;
    metric_set_add(&v, "bleu", bleu);
    assert_int_equal(multifidelity_decide_rows(d, s, &x->r, &t, step, &v,
                                               &action, stopped, &err),
                     HPOD_OK);
    metric_set_clear(&v);
    return action;
}

static const char *ASHA_PROMOTION = "{\"name\":\"asha\",\"r\":2,\"u\":2,"
                                    "\"R\":6,\"p\":2,\"keep\":1}";

/* Rungs 2, 4 (decisions) and 6 (end): answers at and between them. */
static void
test_asha_rung_boundaries(void **state)
{
    (void)state;
    struct study_def d;
    struct study s = {.id = 1, .budget = -1, .n_candidates = -1};
    struct rows x;
    enum trial_state stopped;

    def_with(ASHA_PROMOTION, &d);
    assert_true(multifidelity_enabled(&d));
    rows_init(&x);
    add_trial(&x, 1, TRIAL_RUNNING, -1);
    /* Between rungs: always continue. */
    assert_string_equal(decide(&d, &s, &x, 1, 1, 10, &stopped), "continue");
    /* First arrival at rung 2: ⌊1/2⌋ = 0 promotable, paused. */
    assert_string_equal(decide(&d, &s, &x, 1, 2, 10, &stopped), "stop");
    assert_int_equal(stopped, TRIAL_PAUSED);
    /* A second, better arrival continues; a third, worst, stops. */
    x.t[0].state = TRIAL_PAUSED;
    add_step(&x, 1, 2, 10);
    add_trial(&x, 2, TRIAL_RUNNING, -1);
    assert_string_equal(decide(&d, &s, &x, 2, 2, 20, &stopped), "continue");
    add_step(&x, 2, 2, 20);
    add_trial(&x, 3, TRIAL_RUNNING, -1);
    assert_string_equal(decide(&d, &s, &x, 3, 2, 5, &stopped), "stop");
    /* At R nothing is decided. */
    assert_string_equal(decide(&d, &s, &x, 2, 6, 1, &stopped), "continue");
    rows_clear(&x);
    def_clear(&d);
}

/* Stopping mode: the best so far goes on; a stop prunes. */
static void
test_asha_stopping_mode(void **state)
{
    (void)state;
    struct study_def d;
    struct study s = {.id = 1, .budget = -1, .n_candidates = -1};
    struct rows x;
    enum trial_state stopped;

    def_with("{\"name\":\"asha\",\"r\":2,\"u\":2,\"R\":6,\"p\":2,"
             "\"keep\":1,\"mode\":\"stopping\"}",
             &d);
    rows_init(&x);
    add_trial(&x, 1, TRIAL_RUNNING, -1);
    assert_string_equal(decide(&d, &s, &x, 1, 2, 10, &stopped), "continue");
    add_step(&x, 1, 2, 10);
    add_trial(&x, 2, TRIAL_RUNNING, -1);
    assert_string_equal(decide(&d, &s, &x, 2, 2, 5, &stopped), "stop");
    assert_int_equal(stopped, TRIAL_PRUNED);
    rows_clear(&x);
    def_clear(&d);
}

/* A paused trial is promoted once it ranks in the top 1/p of its rung. */
static void
test_asha_promotion(void **state)
{
    (void)state;
    struct study_def d;
    struct study s = {.id = 1, .budget = -1, .n_candidates = -1};
    struct rows x;
    struct hpod_err err = {0};
    long long id = 0, from = 0;
    int found = 1;

    def_with(ASHA_PROMOTION, &d);
    rows_init(&x);
    add_trial(&x, 1, TRIAL_PAUSED, -1);
    add_step(&x, 1, 2, 10);
    add_trial(&x, 2, TRIAL_RUNNING, -1);
    add_step(&x, 2, 2, 20);
    /* The paused one ranks second of two: not promotable. */
    assert_int_equal(multifidelity_asha_promotion_rows(&d, &s, &x.r, &found,
                                                       &id, &from, &err),
                     HPOD_OK);
    assert_int_equal(found, 0);
    /* A third arrival, paused and best: promoted from its step 3. */
    add_trial(&x, 3, TRIAL_PAUSED, -1);
    add_step(&x, 3, 3, 30);
    assert_int_equal(multifidelity_asha_promotion_rows(&d, &s, &x.r, &found,
                                                       &id, &from, &err),
                     HPOD_OK);
    assert_int_equal(found, 1);
    assert_int_equal(id, 3);
    assert_int_equal(from, 3);
    rows_clear(&x);
    def_clear(&d);
}

/* Paused trials are pruned only when nothing can resume or start. */
static void
test_asha_prune_paused(void **state)
{
    (void)state;
    struct study_def d, r;
    struct study s = {.id = 1, .budget = 3, .n_candidates = -1};

    def_with(ASHA_PROMOTION, &d);
    def_with("{\"name\":\"random\"}", &r);
    s.counts[TRIAL_PAUSED] = 2;
    s.counts[TRIAL_COMPLETED] = 1;
    assert_true(multifidelity_prune_paused(&d, &s, 0));
    assert_false(
        multifidelity_prune_paused(&d, &s, 1)); /* something was answered */
    assert_false(multifidelity_prune_paused(&r, &s, 0)); /* not asha */
    s.counts[TRIAL_RUNNING] = 1; /* a live trial may still report */
    s.counts[TRIAL_COMPLETED] = 0;
    assert_false(multifidelity_prune_paused(&d, &s, 0));
    s.counts[TRIAL_RUNNING] = 0;
    s.budget = 4; /* a new configuration can still start */
    assert_false(multifidelity_prune_paused(&d, &s, 0));
    s.budget = -1;
    s.n_candidates = 2; /* finite candidates spent */
    assert_true(multifidelity_prune_paused(&d, &s, 0));
    def_clear(&d);
    def_clear(&r);
}

static const char *MS = "{\"name\":\"multistage\",\"k\":2,\"stages\":["
                        "{\"steps\":2,\"trials\":4},{\"steps\":5,"
                        "\"trials\":2}]}";

/* A member stops at its stage's steps; the last stage always continues. */
static void
test_multistage_stage_boundary(void **state)
{
    (void)state;
    struct study_def d;
    struct study s = {.id = 1, .budget = -1, .n_candidates = -1};
    struct rows x;
    enum trial_state stopped;

    def_with(MS, &d);
    assert_true(multifidelity_enabled(&d));
    rows_init(&x);
    add_trial(&x, 1, TRIAL_RUNNING, 2);
    add_trial(&x, 2, TRIAL_RUNNING, 5);
    assert_string_equal(decide(&d, &s, &x, 1, 1, 10, &stopped), "continue");
    assert_string_equal(decide(&d, &s, &x, 1, 2, 10, &stopped), "stop");
    assert_int_equal(stopped, TRIAL_PAUSED);
    assert_string_equal(decide(&d, &s, &x, 2, 2, 10, &stopped), "continue");
    assert_string_equal(decide(&d, &s, &x, 2, 5, 10, &stopped), "continue");
    rows_clear(&x);
    def_clear(&d);
}

/* A complete stage advances: the best k seed the next, the rest pruned. */
static void
test_multistage_advance(void **state)
{
    (void)state;
    struct study_def d;
    struct study s = {.id = 1, .budget = -1, .n_candidates = -1};
    struct rows x;
    struct mf_work w;
    struct mstage_plan plan;
    struct hpod_err err = {0};
    const double bleu[4] = {10, 30, 20, 5};

    def_with(MS, &d);
    rows_init(&x);
    /* Stage 0 under way: two of four members started. */
    add_trial(&x, 1, TRIAL_RUNNING, 2);
    add_trial(&x, 2, TRIAL_PAUSED, 2);
    add_step(&x, 2, 2, bleu[1]);
    assert_int_equal(multifidelity_prepare_rows(&d, &s, &x.r, &w, &plan, &err),
                     HPOD_OK);
    assert_int_equal(w.stage, 0);
    assert_int_equal(w.train_to, 2);
    assert_int_equal(w.max_new, 2);
    assert_int_equal(plan.n_seeds + plan.n_prune + w.n_resume, 0);
    mstage_plan_clear(&plan);
    multifidelity_work_clear(&w);
    /* All four paused at steps 2: trials 2 (30) and 3 (20) seed stage 1. */
    rows_clear(&x);
    rows_init(&x);
    for (int i = 0; i < 4; i++) {
        add_trial(&x, i + 1, TRIAL_PAUSED, 2);
        add_step(&x, i + 1, 2, bleu[i]);
    }
    assert_int_equal(multifidelity_prepare_rows(&d, &s, &x.r, &w, &plan, &err),
                     HPOD_OK);
    assert_int_equal(w.stage, 1);
    assert_int_equal(w.train_to, 5);
    assert_int_equal(w.max_new, 0);
    assert_false(w.finished);
    assert_int_equal(plan.n_seeds, 2);
    assert_int_equal(plan.n_prune, 2);
    assert_int_equal(w.n_resume, 2);
    assert_int_equal(w.resume[0], 2);
    assert_int_equal(w.resume[1], 3);
    assert_int_equal(w.resume_from[0], 2);
    /* Not multistage: no stage, no limit. */
    mstage_plan_clear(&plan);
    multifidelity_work_clear(&w);
    rows_clear(&x);
    def_clear(&d);
    def_with(ASHA_PROMOTION, &d);
    assert_int_equal(multifidelity_prepare_rows(&d, &s, &x.r, &w, &plan, &err),
                     HPOD_OK);
    assert_false(w.multistage);
    assert_int_equal(w.max_new, -1);
    assert_int_equal(w.train_to, -1);
    multifidelity_work_clear(&w);
    def_clear(&d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asha_rung_boundaries),
        cmocka_unit_test(test_asha_stopping_mode),
        cmocka_unit_test(test_asha_promotion),
        cmocka_unit_test(test_asha_prune_paused),
        cmocka_unit_test(test_multistage_stage_boundary),
        cmocka_unit_test(test_multistage_advance),
    };
    return cmocka_run_group_tests_name("multifidelity", tests, NULL, NULL);
}
