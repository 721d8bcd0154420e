/*
 * study/params.h - a study's parameters: the entries of "space" parsed,
 * checked (errors name the JSON path) and normalized into the study's
 * core/space, and configurations read from and written to JSON.
 *
 * Categorical choices are strings, numbers or booleans, one JSON type per
 * parameter; a configuration holds a choice's index, and its JSON gives
 * the choice back as the definition holds it (a number matches a numeric
 * choice of the same value: 32.0 is the choice 32).
 */
#ifndef HPOD_STUDY_PARAMS_H
#define HPOD_STUDY_PARAMS_H

#include <jansson.h>

#include "common/status.h"

struct study_def;

/*
 * params_parse_space - "space" (borrowed): 1 to 64 entries, each checked
 * and added to d->space, its normalized form appended to norm; fills
 * d->names and d->choices (borrowed from norm).
 */
enum hpod_status params_parse_space(json_t *space, struct study_def *d,
                                    json_t *norm, struct hpod_err *err);

/*
 * params_parse_dbr - "define_by_run" (a boolean; true for a study created
 * with an empty space) and "space_version" (1 or more, default 1) of a
 * definition body, into d (after params_parse_space).
 */
enum hpod_status params_parse_dbr(json_t *body, struct study_def *d,
                                  struct hpod_err *err);

/* params_dbr_to_def - the keys params_parse_dbr read, into the
 * normalized definition def (only when they say something). */
void params_dbr_to_def(const struct study_def *d, json_t *def);

/*
 * params_from_json - checks that obj gives every active parameter once,
 * with a legal value, and no inactive one (conditions), and fills raw
 * (n_params; NaN: inactive). A parameter that joined later ("added_in")
 * or any of a define-by-run study may be left out: inactive. path
 * prefixes the field of an error ("candidates[3]").
 */
enum hpod_status params_from_json(const struct study_def *d, json_t *obj,
                                  double *raw, const char *path,
                                  struct hpod_err *err);

/* Returns a new JSON object for a configuration, without its inactive
 * parameters (NaN, or whose conditions its values do not meet). */
json_t *params_to_json(const struct study_def *d, const double *raw);

/*
 * params_choice_index - the index of v among parameter i's choices (a
 * categorical parameter of d), or -1 when v is none of them.
 */
long params_choice_index(const struct study_def *d, size_t i, const json_t *v);

#endif
