/*
 * study/copy.h - POST /v1/studies/{id}/copy: a new study with another
 * study's definition (its candidates too) and every completed trial of
 * it, as added trials (docs/guide.md, "Studies that evolve").
 */
#ifndef HPOD_STUDY_COPY_H
#define HPOD_STUDY_COPY_H

#include "bench/catalog.h"
#include "common/status.h"
#include "store/db.h"
#include "study/access.h"

/* The most completed trials a copy takes (422 beyond). */
#define COPY_MAX_TRIALS 100000

/*
 * copy_study - study src (the caller sees it: checked before) copied as
 * study name of lab (checked by the caller; NULL: src's lab), by who: the
 * definition as stored but its name (a warm start's prior computed again for
 * the copy), and every completed trial that is not excluded, in number order,
 * as added trials numbered 0, 1, ... (params, values and metadata as they are;
 * intermediate reports are not copied). One transaction with one study.copy
 * event; *id the new study's. 409 for a taken name, 422 for a multistage study
 * (its stages choose its configurations) or more than COPY_MAX_TRIALS trials,
 * 404 for no such study.
 */
enum hpod_status copy_study(struct db *db, const struct bench_db *bench,
                            const struct principal *who, long long src,
                            const char *name, const char *lab, long long *id,
                            struct hpod_err *err);

#endif
