/*
 * study/evolve.h - a study's search space changed while it runs (PATCH
 * /v1/studies/{id} with "space"; docs/guide.md, "Studies that evolve").
 *
 * The new space is the whole list of entries. Against the stored one:
 * - a parameter keeps its type and cannot be removed (freeze it instead:
 *   "fixed": value, a parameter of that one value);
 * - its bounds, values or choices may widen or narrow;
 * - a new parameter gets "added_in" (the new space version) and, when the
 *   study has trials, needs "default": the value every configuration
 *   without it is taken to have (a new fixed parameter's default is its
 *   value);
 * - "added_in" and "default" of a parameter the study had are kept as
 *   stored (sending them back unchanged is allowed, changing them is 422).
 * Every change is one more "space_version". Earlier trials are kept as
 * they are: the model takes those whose params are a point of the new
 * space (history_build), so a trial outside a narrowed range, with a
 * removed choice or with another value than a fixed one is left out of
 * the model and stays listed.
 */
#ifndef HPOD_STUDY_EVOLVE_H
#define HPOD_STUDY_EVOLVE_H

#include <jansson.h>

#include "common/status.h"
#include "store/model.h"
#include "study/def.h"

/*
 * evolve_space - study s (its row, with its trial counts) whose parsed
 * definition is d, given space (borrowed) as its new space: checks every
 * rule above and the whole new definition (the definition parser's errors,
 * fields named "space[i]...": 400/422), without I/O. *def_text (new
 * string) is the new definition to store and *norm (new reference) its
 * normalized space, or both NULL when the space is the one it has. 409
 * for a study with candidates or a table (a fixed space).
 */
enum hpod_status evolve_space(const struct study *s, const struct study_def *d,
                              json_t *space, char **def_text, json_t **norm,
                              struct hpod_err *err);

#endif
