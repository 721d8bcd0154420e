/*
 * study/enqueue.h - trials a user brings to a study: a configuration to
 * run next (enqueued: "waiting" until a suggest hands it to a worker) or
 * one that ran elsewhere, with its values (added: completed at once; it
 * enters the model but costs no budget). And a trial's metadata replaced.
 * Each call that writes is one transaction under the study row lock (the
 * trial's number is max + 1 there, as suggest's).
 */
#ifndef HPOD_STUDY_ENQUEUE_H
#define HPOD_STUDY_ENQUEUE_H

#include <jansson.h>

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/access.h"
#include "study/report.h"

/* The body of POST /v1/studies/{id}/trials, validated on its own. */
struct enqueue_input {
    json_t *params;            /* own reference: an object */
    char *metadata;            /* compact JSON text, NULL: {} */
    int has_values;            /* "values" given: an added trial */
    struct report_input value; /* its values (step -1) when has_values */
};

/*
 * enqueue_from_json - {"params": {...}, "values"?: {metric: number},
 * "metadata"?: {...}} (borrowed); no other field. values follow a report's
 * rules (report_from_json), metadata hj_object_text's. HPOD_EINVAL
 * for shape, HPOD_EUNPROC for rules. Cleanup with enqueue_input_clear,
 * also on error.
 */
enum hpod_status enqueue_from_json(json_t *body, struct enqueue_input *out,
                                   struct hpod_err *err);
void enqueue_input_clear(struct enqueue_input *in);

/*
 * enqueue_add - inserts in's trial into study study_id and fills
 * out with it as committed. The params must be a full point of the
 * study's space (422 naming params.<name>); a finite study's must equal
 * one of its candidates (422) that no trial holds yet (409). Values, when
 * given, must name objectives or constrained metrics and hold every
 * objective, as a final report that completes a trial (422). Refused: a
 * multistage study (422: its stages choose their configurations), a
 * finished study (409), an enqueue beyond the budget (409: a waiting
 * trial counts in it; an added one does not). 404 for no such study.
 * Recorded in the audit log as by's trial.enqueue or trial.add.
 */
enum hpod_status enqueue_add(struct db *db, long long study_id,
                             const struct enqueue_input *in,
                             const struct principal *by, struct trial *out,
                             struct hpod_err *err);

/*
 * enqueue_set_metadata - replaces trial id's metadata with metadata
 * (an object, hj_object_text's rules, METADATA_MAX), in any state; *out is the
 * trial as committed, recorded in the audit log as by's trial.patch.
 * 404 for no such trial.
 */
enum hpod_status enqueue_set_metadata(struct db *db, long long id,
                                      const json_t *metadata,
                                      const struct principal *by,
                                      struct trial *out, struct hpod_err *err);

#endif
