/*
 * study/auto.h - "algorithm": {"name": "auto"} (also what an omitted
 * algorithm means): core/autoalgo's rule applied to a study definition,
 * resolved once when the study is created and recorded in its normalized
 * definition as
 *   {"name": "auto", "seed": s, "chosen": {<the algorithm, normalized>},
 *    "case": "<autoalgo case code>", "reason": "<one sentence>"}
 * Everything downstream reads "chosen" (struct algo_def is filled from
 * it), so an auto study behaves exactly as if the chosen algorithm had
 * been sent.
 */
#ifndef HPOD_STUDY_AUTO_H
#define HPOD_STUDY_AUTO_H

#include <jansson.h>
#include <stddef.h>

#include "common/status.h"
#include "core/autoalgo.h"
#include "study/algo.h"

/* Random trials before a model decides, for an auto study (algo's default). */
#define AUTO_INIT 3

/* 1 when the "algorithm" value a (borrowed, may be NULL) asks for auto:
 * absent, null, or an object whose "name" is "auto". */
int auto_requested(const json_t *a);

/*
 * auto_choose - resolves auto for a definition with features f. a (borrowed):
 * NULL or the {"name": "auto", ...} object. {"name": "auto"} with an
 * optional "seed": the rule chooses and the reason is written from f. An
 * object that carries "chosen" (with "case" and "reason": a definition as
 * hpod wrote it, stored or read back and sent again) keeps its choice as
 * written, so a later change of the rule never changes an existing study
 * and a read-back definition normalizes to itself. Any other key: 400.
 * Fills al from the chosen algorithm and *norm (new reference) with the
 * normalized auto object.
 */
enum hpod_status auto_choose(json_t *a, const struct autoalgo_features *f,
                             struct algo_def *al, json_t **norm,
                             struct hpod_err *err);

/*
 * auto_reason - the two sentences a study records: the configuration
 * chosen (label, e.g. "graph/matern52/ei") for the features of f, then why
 * (case c's line of core/autoalgo.c) with a pointer to docs/auto.md, which
 * has the figures; into buf (always NUL-terminated).
 */
void auto_reason(const struct autoalgo_features *f, enum autoalgo_case c,
                 const char *label, char *buf, size_t size);

#endif
