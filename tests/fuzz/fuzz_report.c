/*
 * tests/fuzz/fuzz_report.c - POST /v1/trials/{id}/report without the
 * database: the body decoded as server/http.c decodes it, then what
 * handle_trial_report (handlers/trials.c) runs before and after it loads
 * the trial: report_from_json, report_check_metrics against a fixed study
 * (objectives bleu and gpu_time, a constraint on mem), and report_merge.
 *
 * Properties: a rejection is a 4xx with a message and an encodable error
 * body; an accepted report holds 1 to REPORT_MAX_METRICS finite values
 * under valid, distinct names in name order and a step of -1 or 0 to
 * REPORT_MAX_STEP; merged into a live trial that holds nothing it never
 * conflicts and takes every metric; merged into a trial that holds
 * exactly those values (a retry) it conflicts with nothing, adds nothing,
 * and completes iff every objective is in, even on a completed trial.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/def.h"
#include "study/report.h"
#include "server/http.h"
#include "tests/fuzz/fuzz.h"

static const char study_text[] =
    "{\"name\": \"fuzz\", \"space\": [{\"name\": \"lr\", \"type\": \"float\", "
    "\"low\": 0.001, \"high\": 0.1}], \"objectives\": [{\"name\": \"bleu\", "
    "\"goal\": \"maximize\"}, {\"name\": \"gpu_time\", \"goal\": "
    "\"minimize\"}], \"constraints\": [{\"metric\": \"mem\", \"max\": 16}], "
    "\"algorithm\": {\"name\": \"random\", \"seed\": 1}}";

static struct study_def *
study(void)
{
    static struct study_def d;
    static int ready;
    if (!ready) {
        struct hpod_err err = {0};
        FUZZ_CHECK(def_from_text(study_text, &d, &err) == HPOD_OK,
                   "the fixed study is rejected: %s", err.msg);
        ready = 1;
    }
    return &d;
}

static void
check_accepted(const struct report_input *in)
{
    const struct metric_set *s = &in->values;
    FUZZ_CHECK(s->n >= 1 && s->n <= REPORT_MAX_METRICS, "%zu metrics", s->n);
    FUZZ_CHECK(in->step == -1 || (in->step >= 0 && in->step <= REPORT_MAX_STEP),
               "step %lld", in->step);
    for (size_t i = 0; i < s->n; i++) {
        FUZZ_CHECK(metric_name_ok(s->v[i].name), "metric name \"%s\"",
                   s->v[i].name);
        FUZZ_CHECK(isfinite(s->v[i].value), "%s is not finite", s->v[i].name);
        FUZZ_CHECK(i == 0 || strcmp(s->v[i - 1].name, s->v[i].name) < 0,
                   "metrics not in strict name order: %s, %s", s->v[i - 1].name,
                   s->v[i].name);
    }
}

static void
check_merge(const struct study_def *d, const struct report_input *in)
{
    struct trial t;
    struct metric_set add = {0};
    int complete, want = 1;
    size_t conflict;

    for (size_t j = 0; j < d->n_objectives; j++)
        want &= metric_set_find(&in->values, d->obj_names[j]) != NULL;

    memset(&t, 0, sizeof t);
    t.state = TRIAL_RUNNING;
    report_merge(d, &t, &in->values, &add, &complete, &conflict);
    FUZZ_CHECK(conflict == (size_t)-1, "conflict with an empty trial");
    FUZZ_CHECK(add.n == in->values.n, "took %zu of %zu metrics", add.n,
               in->values.n);
    FUZZ_CHECK(complete == want, "complete %d, expected %d", complete, want);

    /* The same report again, on the trial that now holds it. */
    t.values = add;
    for (int state = TRIAL_RUNNING; state <= TRIAL_COMPLETED; state++) {
        struct metric_set again = {0};
        t.state = (enum trial_state)state;
        report_merge(d, &t, &in->values, &again, &complete, &conflict);
        FUZZ_CHECK(conflict == (size_t)-1, "a retry conflicts (metric %zu)",
                   conflict);
        FUZZ_CHECK(again.n == 0, "a retry adds %zu metrics", again.n);
        FUZZ_CHECK(complete == want, "retry: complete %d, expected %d",
                   complete, want);
        metric_set_clear(&again);
    }
    metric_set_clear(&add);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hpod_err err = {0};
    struct report_input in;
    json_t *body = NULL;
    enum hpod_status st;

    if (!(body = fuzz_body(data, size)))
        return 0;
    st = report_from_json(body, &in, &err);
    if (st == HPOD_OK) {
        check_accepted(&in);
        st = report_check_metrics(study(), &in, &err);
    }
    if (st != HPOD_OK)
        fuzz_check_failure(st, &err);
    else
        check_merge(study(), &in);
    report_input_clear(&in);
    json_decref(body);
    return 0;
}
