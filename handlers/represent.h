/*
 * handlers/represent.h - the HTTP representation of hpod's resources:
 * stored rows (store/model.h) as the JSON the API answers
 * (openapi/openapi.json), and query parameters read back.
 */
#ifndef HPOD_HANDLERS_REPRESENT_H
#define HPOD_HANDLERS_REPRESENT_H

#include <jansson.h>

#include "common/status.h"
#include "store/model.h"

/* New JSON object {metric: value} of a metric set (values are finite). */
json_t *metric_set_to_json(const struct metric_set *m);

/*
 * New JSON for a study row (definition fields + counts and state), or NULL
 * when its stored definition cannot be read.
 */
json_t *study_to_json(const struct study *s);

/*
 * New JSON for a trial row, or NULL when its stored params cannot be read
 * (the caller answers an internal error: a stored value that cannot be
 * read never turns into an empty object).
 */
json_t *trial_to_json(const struct trial *t);
/* The same with t's params already parsed (params: a new reference,
 * stolen; NULL or not an object gives NULL). */
json_t *trial_to_json_params(const struct trial *t, json_t *params);

/*
 * trials_to_csv - rows of study d as CSV text (new string; NULL when a
 * stored row cannot be read): the header number,id,state,origin,
 * params.<p>... (space order), values.<m>... (objectives, constrained
 * metrics, then any other reported metric, sorted), created_at,
 * updated_at, reason (why it failed or stopped), excluded (the reason of
 * an excluded trial, else empty); one
 * CRLF-ended line per trial. Fields are quoted as RFC 4180
 * says (a comma, quote, CR or LF: quoted, quotes doubled); numbers are
 * written exactly as the JSON answer writes them; a missing value is an
 * empty cell.
 */
struct study_def;
char *trials_to_csv(const struct study_def *d, const struct trial *rows,
                    size_t n);

/*
 * Query parameters: an integer in [min, max], dflt when absent.
 * HPOD_EINVAL naming the parameter otherwise.
 */
enum hpod_status query_int(const char *text, const char *name, long long min,
                           long long max, long long dflt, long long *out,
                           struct hpod_err *err);

/*
 * Query parameters: a flag, "true"/"1" (*out = 1) or "false"/"0" or absent
 * (*out = 0); HPOD_EINVAL naming the parameter otherwise.
 */
enum hpod_status query_bool(const char *text, const char *name, int *out,
                            struct hpod_err *err);

#endif
