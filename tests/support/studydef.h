/*
 * tests/support/studydef.h - study definitions for the unit tests:
 * def_parse (a definition's JSON text, parsed by def_from_json,
 * which must accept it) and def_with_constraints (a one-parameter gp study,
 * max bleu, with the given "constraints", for the constraint rules'
 * tests: test_constraints.c, test_measure.c).
 */
#ifndef HPOD_TEST_STUDYDEF_H
#define HPOD_TEST_STUDYDEF_H

#include <jansson.h>
#include <stdio.h>

#include "study/def.h"
#include "tests/support/check.h"

/* Fills d from the definition text (def_clear frees it). */
static inline void
def_parse(const char *text, struct study_def *d)
{
    struct hpod_err err = {0};
    json_t *body = json_loads(text, 0, NULL);
    assert_non_null(body);
    assert_int_equal(def_from_json(body, d, &err), HPOD_OK);
    json_decref(body);
}

/* Fills d (def_clear frees it); constraints: a JSON array text. */
static inline void
def_with_constraints(const char *constraints, struct study_def *d)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\":\"s\",\"space\":[{\"name\":\"x\",\"type\":\"float\","
             "\"low\":0,\"high\":1}],\"objectives\":[{\"name\":\"bleu\","
             "\"goal\":\"maximize\"}],\"algorithm\":{\"name\":\"gp\","
             "\"seed\":3},\"constraints\":%s}",
             constraints);
    def_parse(text, d);
}

#endif
