/*
 * study/report.h - what a trial's report may say and what it changes:
 * the report body validated on its own, its metrics checked against the
 * study, a final report merged into what the trial holds, and the whole
 * report applied to the database in one transaction (report_submit).
 */
#ifndef HPOD_STUDY_REPORT_H
#define HPOD_STUDY_REPORT_H

#include <jansson.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/def.h"

/* The body of POST /v1/trials/{id}/report, validated. */
struct report_input {
    struct metric_set values; /* 1 to REPORT_MAX_METRICS, finite */
    long long step;           /* -1: a final report */
    json_t *metadata;         /* NULL: none; else an object (own reference)
                                 merged into the trial's metadata */
    char *checkpoint;         /* NULL: none; intermediate reports only */
};
#define REPORT_MAX_METRICS 64
#define REPORT_MAX_STEP 1000000000LL

/*
 * report_from_json - validates a report body (borrowed) on its own:
 * {"values": {metric: number, ...}, "step": k?, "metadata": {...}?,
 * "checkpoint": "uri"?}; no other field (metadata: hj_object_text with
 * METADATA_MAX; checkpoint: 1 to CHECKPOINT_MAX bytes, with step only). A
 * metric value is a finite number; an integer beyond ±2^53 is refused (422), as
 * a double could not hold it exactly and the value read back would not be
 * the one sent. Fills out (cleanup with report_input_clear, also on
 * error). HPOD_EINVAL for shape and type errors, HPOD_EUNPROC for rules.
 */
enum hpod_status report_from_json(json_t *body, struct report_input *out,
                                  struct hpod_err *err);
void report_input_clear(struct report_input *in);

/*
 * report_check_metrics - every metric of the report must be one of d's
 * objectives or constrained metrics (HPOD_EUNPROC naming values.<metric>
 * otherwise): a report never writes a metric its study does not know.
 */
enum hpod_status report_check_metrics(const struct study_def *d,
                                      const struct report_input *in,
                                      struct hpod_err *err);

/*
 * report_merge - merges a final report in (validated) into what trial t
 * holds, deciding from its inputs only. A metric t already holds must
 * carry the same double (else *conflict is its index in in). A completed
 * trial takes no new metric either (*conflict = its index): its result is
 * what was acknowledged when it completed, so only the same report again
 * is accepted. Otherwise *conflict is (size_t)-1, add (caller's, empty on
 * entry) receives the metrics t does not hold yet, and *complete says
 * whether every objective of d is then in.
 */
void report_merge(const struct study_def *d, const struct trial *t,
                  const struct metric_set *in, struct metric_set *add,
                  int *complete, size_t *conflict);

/* What a report changed: the trial as stored after the commit. */
struct study_report_answer {
    struct trial trial; /* trial_clear (report_answer_clear) */
    const char *action; /* intermediate reports: "continue" or "stop"
                           (static); NULL for a final report */
};

/*
 * report_submit - applies report in (validated by report_from_json) to
 * trial trial_id in one transaction, and fills out from the committed
 * state. Every metric must belong to the trial's study (422). A final
 * report (step < 0) merges by report_merge: the trial completes when every
 * objective is in; a completed trial accepts only the same values again
 * (409 naming the metric). An intermediate report is answered with an
 * action: a step already recorded answers as before; otherwise asha and
 * multistage decide (under the study lock, taken before the trial's, the
 * order suggest uses too), "stop" pausing the trial (pruning it in ASHA's
 * stopping mode). Reporting on a trial that is not live is 409. Nothing
 * is written on failure.
 */
enum hpod_status report_submit(struct db *db, long long trial_id,
                               const struct report_input *in,
                               struct study_report_answer *out,
                               struct hpod_err *err);
void report_answer_clear(struct study_report_answer *a);

#endif
