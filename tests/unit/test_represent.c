/*
 * tests/unit/test_represent.c - rows as API JSON and query parameters
 * (handlers/represent.h), without HTTP.
 */
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "handlers/represent.h"
#include "study/def.h"

static void
test_query_int(void **state)
{
    (void)state;
    long long v;
    struct hpod_err err = {0};
    assert_int_equal(query_int(NULL, "limit", 1, 10, 5, &v, &err), HPOD_OK);
    assert_int_equal(v, 5);
    assert_int_equal(query_int("7", "limit", 1, 10, 5, &v, &err), HPOD_OK);
    assert_int_equal(v, 7);
    assert_int_equal(query_int("0", "limit", 1, 10, 5, &v, &err), HPOD_EINVAL);
    assert_int_equal(query_int("3x", "limit", 1, 10, 5, &v, &err), HPOD_EINVAL);
    assert_string_equal(err.field, "limit");
}

static void
test_study_to_json(void **state)
{
    (void)state;
    struct study s = {0};
    s.id = 7;
    s.definition = "{\"name\":\"s\",\"budget\":null}";
    s.n_candidates = -1;
    s.budget = -1;
    s.counts[TRIAL_COMPLETED] = 2;
    json_t *o = study_to_json(&s);
    assert_non_null(o);
    assert_int_equal(json_integer_value(json_object_get(o, "id")), 7);
    assert_true(json_is_null(json_object_get(o, "benchmark")));
    assert_true(json_is_null(json_object_get(o, "n_candidates")));
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(o, "trial_counts"), "completed")),
                     2);
    assert_string_equal(json_string_value(json_object_get(o, "name")), "s");
    assert_string_equal(json_string_value(json_object_get(o, "created_at")),
                        "");
    /* No state stored (a zeroed row): active; metadata {} and lab "". */
    assert_string_equal(json_string_value(json_object_get(o, "state")),
                        "active");
    assert_int_equal(json_object_size(json_object_get(o, "metadata")), 0);
    json_decref(o);
    /* The state users set, and the metadata object as stored. */
    s.state = "paused";
    s.lab = "mt";
    s.metadata = "{\"a\":[1,0.1]}";
    o = study_to_json(&s);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "state")),
                        "paused");
    assert_string_equal(json_string_value(json_object_get(o, "lab")), "mt");
    assert_int_equal(
        json_array_size(json_object_get(json_object_get(o, "metadata"), "a")),
        2);
    json_decref(o);
    /* An active study that will never issue a trial again reads done. */
    s.state = "active";
    s.budget = 2;
    o = study_to_json(&s);
    assert_string_equal(json_string_value(json_object_get(o, "state")), "done");
    json_decref(o);
    s.budget = -1;
    s.metadata = "[1]"; /* metadata that is not an object: unreadable */
    assert_null(study_to_json(&s));
    s.metadata = NULL;
    /* A stored definition that cannot be read is no study at all. */
    s.definition = "[1]";
    assert_null(study_to_json(&s));
    s.definition = "{";
    assert_null(study_to_json(&s));
}

static void
test_trial_to_json(void **state)
{
    (void)state;
    struct trial t = {0};
    t.id = 3;
    t.study_id = 1;
    t.state = TRIAL_RUNNING;
    t.params = strdup("{\"x\":0.5}");
    t.resume_from_step = -1;
    t.train_to = -1;
    metric_set_add(&t.values, "bleu", 20.5);
    json_t *o = trial_to_json(&t);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "state")),
                        "running");
    assert_true(json_real_value(json_object_get(json_object_get(o, "values"),
                                                "bleu")) == 20.5);
    assert_true(json_is_null(json_object_get(o, "reason")));
    assert_true(json_is_null(json_object_get(o, "lease_expires_at")));
    assert_null(json_object_get(o, "resume_from_step"));
    assert_null(json_object_get(o, "train_to"));
    assert_int_equal(json_array_size(json_object_get(o, "intermediate")), 0);
    json_decref(o);
    t.train_to = 9;
    o = trial_to_json(&t);
    assert_int_equal(json_integer_value(json_object_get(o, "train_to")), 9);
    json_decref(o);
    /* number, origin and metadata ({} when none stored). */
    t.seq = 4;
    t.origin = ORIGIN_ADDED;
    o = trial_to_json(&t);
    assert_int_equal(json_integer_value(json_object_get(o, "number")), 4);
    assert_string_equal(json_string_value(json_object_get(o, "origin")),
                        "added");
    assert_int_equal(json_object_size(json_object_get(o, "metadata")), 0);
    json_decref(o);
    t.metadata = strdup("[1]"); /* not an object: unreadable */
    assert_null(trial_to_json(&t));
    /* Unreadable stored params: NULL, never an empty object. */
    free(t.params);
    t.params = strdup("nope");
    assert_null(trial_to_json(&t));
    trial_clear(&t);
}

static void
test_trials_to_csv(void **state)
{
    (void)state;
    struct study_def d = {0};
    struct hpod_err err = {0};
    struct trial t[2] = {{0}, {0}};
    json_t *body = hj_parse(
        "{\"name\":\"c\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
        "\"low\":0,\"high\":1},{\"name\":\"o\",\"type\":\"categorical\","
        "\"choices\":[\"a,b\",\"q\\\"q\"]}],\"objectives\":[{\"name\":"
        "\"bleu\",\"goal\":\"maximize\"}]}");
    assert_int_equal(def_from_json(body, &d, &err), HPOD_OK);
    t[0].id = 10;
    t[0].state = TRIAL_COMPLETED;
    t[0].params = strdup("{\"x\":0.1,\"o\":\"a,b\"}");
    metric_set_add(&t[0].values, "bleu", 3.0);
    metric_set_add(&t[0].values, "zeta", 1e300);
    t[1].id = 11;
    t[1].seq = 1;
    t[1].state = TRIAL_WAITING;
    t[1].origin = ORIGIN_ENQUEUED;
    t[1].params = strdup("{\"x\":1.0,\"o\":\"q\\\"q\"}");
    /* A reason and an exclusion: user text, a formula escaped. */
    t[0].excluded = 1;
    t[0].excluded_reason = strdup("=leak, fold 3");
    t[1].reason = strdup("preempted: slurm");
    char *csv = trials_to_csv(&d, t, 2);
    assert_non_null(csv);
    assert_string_equal(csv,
                        "number,id,state,origin,params.x,params.o,values.bleu,"
                        "values.zeta,created_at,updated_at,reason,excluded\r\n"
                        "0,10,completed,suggested,0.1,\"a,b\",3.0,1e+300,,,,"
                        "\"'=leak, fold 3\"\r\n"
                        "1,11,waiting,enqueued,1.0,\"q\"\"q\",,,,,"
                        "preempted: slurm,\r\n");
    free(csv);
    trial_clear(&t[0]);
    trial_clear(&t[1]);
    def_clear(&d);
    json_decref(body);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_int),
        cmocka_unit_test(test_study_to_json),
        cmocka_unit_test(test_trial_to_json),
        cmocka_unit_test(test_trials_to_csv),
    };
    return cmocka_run_group_tests_name("represent", tests, NULL, NULL);
}
