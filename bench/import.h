/*
 * bench/import.h - validation of an imported lookup table (the body of
 * POST /v1/benchmarks) and the value encoding imported rows share with the
 * catalog. Pure: no database, no request.
 */
#ifndef HPOD_BENCH_IMPORT_H
#define HPOD_BENCH_IMPORT_H

#include <jansson.h>

#include "common/status.h"

/*
 * import_validate - checks an import body (borrowed): name, params,
 * metrics and rows. On HPOD_OK *name is borrowed from body and *def a new
 * reference to the normalized definition {"params": [... with sorted
 * choices...], "metrics": [...]}; otherwise *def is NULL and err names the
 * field (HPOD_EINVAL for a shape error, HPOD_EUNPROC for a rule).
 */
enum hpod_status import_validate(json_t *body, const char **name, json_t **def,
                                 struct hpod_err *err);

/*
 * import_raw_value - a row's parameter value as the table holds it: the
 * number, or for a string the index of its choice in choices (-1 if none).
 */
double import_raw_value(json_t *v, json_t *choices);

#endif
