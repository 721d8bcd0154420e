/*
 * study/def.h - the study definition: its type and its parser.
 *
 * A study definition is parsed and
 * checked field by field (the error names the JSON path of the offending
 * value), normalized (defaults filled in, so the stored definition says
 * everything), and turned into a core/space. The stored definition goes
 * back through the same parser, so there is one set of rules.
 */
#ifndef HPOD_STUDY_DEF_H
#define HPOD_STUDY_DEF_H

#include <jansson.h>
#include <stddef.h>

#include "core/space.h"
#include "common/status.h"
#include "common/json.h" /* hj_dump, hj_parse */
#include "store/model.h"
#include "study/algo.h"
#include "study/def_types.h" /* struct study_def */
#include "study/params.h"    /* params_from_json, params_to_json */

/*
 * def_from_json - validates a study creation body (borrowed) and
 * fills d. HPOD_EINVAL (400) for shape and type errors, HPOD_EUNPROC (422)
 * for broken rules; err names the field.
 */
enum hpod_status def_from_json(json_t *body, struct study_def *d,
                               struct hpod_err *err);
/* Rebuilds d from a stored definition (JSON text). */
enum hpod_status def_from_text(const char *text, struct study_def *d,
                               struct hpod_err *err);
void def_clear(struct study_def *d);

/*
 * def_trial_feasible - 1 if the reported values meet every constraint of d; a
 * constraint whose metric was not reported counts as not met (feasibility
 * is only what was observed).
 */
int def_trial_feasible(const struct study_def *d,
                       const struct metric_set *values);

#endif
