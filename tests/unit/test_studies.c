/*
 * tests/unit/test_studies.c - the rules a parsed definition must meet to
 * become a study (studies_check_rules), without HTTP or a database.
 */
#include "tests/support/check.h"
#include "tests/support/studydef.h"

#include <string.h>

#include "study/def.h"
#include "study/studies.h"

/* Parses a study with the given algorithm, objectives and candidates. */
static void
def_of(const char *algo, int two_objectives, int candidates,
       struct study_def *d)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
             "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"a\",\"goal\":"
             "\"maximize\"}%s],\"algorithm\":%s%s}",
             two_objectives ? ",{\"name\":\"b\",\"goal\":\"minimize\"}" : "",
             algo, candidates ? ",\"candidates\":[{\"x\":0.5}]" : "");
    def_parse(text, d);
}

static void
test_rules(void **state)
{
    (void)state;
    static const struct {
        const char *algo;
        int two, cand;
        enum hpod_status st;
    } cases[] = {
        {"{\"name\":\"random\"}", 1, 0, HPOD_OK},
        {"{\"name\":\"ehvi\"}", 1, 0, HPOD_OK},
        {"{\"name\":\"gp\"}", 0, 0, HPOD_OK},
        {"{\"name\":\"gp\"}", 1, 0, HPOD_EUNPROC},
        {"{\"name\":\"graph\"}", 1, 0, HPOD_EUNPROC},
        {"{\"name\":\"greedy\"}", 0, 0, HPOD_EUNPROC},
        {"{\"name\":\"greedy\"}", 0, 1, HPOD_OK},
        /* Greedy with two objectives: nearest the front (mobo_greedy). */
        {"{\"name\":\"greedy\"}", 1, 1, HPOD_OK},
        {"{\"name\":\"greedy\"}", 1, 0, HPOD_EUNPROC},
        {"{\"name\":\"asha\",\"R\":9}", 1, 0, HPOD_OK},
        {"{\"name\":\"asha\",\"R\":9,\"base\":\"gp\"}", 1, 0, HPOD_EUNPROC},
        {"{\"name\":\"asha\",\"R\":9,\"base\":\"gp\"}", 0, 0, HPOD_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct study_def d;
        struct hpod_err err = {0};
        def_of(cases[i].algo, cases[i].two, cases[i].cand, &d);
        assert_int_equal(studies_check_rules(&d, &err), cases[i].st);
        if (cases[i].st != HPOD_OK)
            assert_string_equal(err.field, "algorithm.name");
        def_clear(&d);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests_name("studies", tests, NULL, NULL);
}
