/*
 * store/model.h - plain row structs shared by handlers and store.
 *
 * JSON-valued columns (a study's definition, a trial's params) travel as
 * JSON text: store/ must not know jansson, and handlers parse what they
 * need. Reported metric values are typed (struct metric_set): they are
 * stored as double precision and never pass through JSON in the store.
 * Every pointer is owned by the struct; *_clear frees them and is safe
 * on a zeroed struct.
 */
#ifndef HPOD_MODEL_H
#define HPOD_MODEL_H

#include <stddef.h>

enum trial_state {
    TRIAL_PENDING = 0,
    TRIAL_RUNNING,
    TRIAL_COMPLETED,
    TRIAL_FAILED,
    TRIAL_PRUNED,
    TRIAL_PAUSED,
    TRIAL_WAITING, /* enqueued by a user: no worker, no lease yet; appended
                      so that the numbers above keep their values */
    TRIAL_NSTATES
};

/* Who chose a trial's configuration (trials.origin). */
enum trial_origin {
    ORIGIN_SUGGESTED = 0, /* hpod, by suggest */
    ORIGIN_ENQUEUED,      /* a user, run by the next suggest */
    ORIGIN_ADDED,         /* a user, with values obtained elsewhere: it
                             enters the model but costs no budget */
    ORIGIN_N
};

/* "suggested", ...; trial_origin_parse returns -1 for an unknown name. */
const char *trial_origin_name(enum trial_origin o);
int trial_origin_parse(const char *s);

/* Largest metadata object of a study or a trial, as compact JSON text
 * (bytes). */
#define METADATA_MAX 16384

/* "pending", ...; trial_state_parse returns -1 for an unknown name. */
const char *trial_state_name(enum trial_state s);
int trial_state_parse(const char *s);

/* Metric names: 1 to METRIC_NAME_MAX of [A-Za-z0-9_.-]. */
#define METRIC_NAME_MAX 64

/* One reported metric: a finite value. */
struct metric_value {
    char name[METRIC_NAME_MAX + 1];
    double value;
};

/* Reported metrics of a trial or of one of its steps, in name order. */
struct metric_set {
    struct metric_value *v;
    size_t n;
};

/* 1 if s is a valid metric (or parameter) name: the same rule for both. */
int metric_name_ok(const char *s);
/* Adds (name, value) in name order; name must be valid and not in s. */
void metric_set_add(struct metric_set *s, const char *name, double value);
/* The value of name in s, or NULL when s does not hold it (borrowed). */
const double *metric_set_find(const struct metric_set *s, const char *name);
/* The value of name in s, or NaN when s does not hold it. */
double metric_set_get(const struct metric_set *s, const char *name);
void metric_set_clear(struct metric_set *s);

/* One intermediate report of a trial: its step, its metrics and whether
 * it was answered "stop" (ASHA, multistage: the trial stopped, paused or
 * was pruned there; a later step means it was resumed). */
struct trial_step {
    int step;
    int stop;
    struct metric_set values;
    char *checkpoint; /* the URI the report named, NULL: none */
};

/* Longest checkpoint URI an intermediate report may carry (bytes). */
#define CHECKPOINT_MAX 2048

struct study {
    long long id;
    char *name;
    char *definition; /* JSON text: the normalized definition */
    long long budget; /* -1: none */
    int lease_seconds;
    long long n_candidates; /* -1: infinite space */
    char *benchmark;        /* NULL: none */
    char *created_at;
    char *last_activity; /* the latest change of it or a trial of it;
                            NULL when the query did not read it */
    long long counts[TRIAL_NSTATES];
    long long n_expired;   /* failed by lease expiry: not in the budget */
    long long n_added;     /* origin "added": not in the budget */
    char *lab;             /* the lab that owns it ("default") */
    char *state;           /* "active", "paused" or "finished" (set by users) */
    char *metadata;        /* JSON object text, free-form */
    long long created_by;  /* the token that created it; 0: none (or the
                              query did not read it) */
    char *created_by_note; /* that token's note */
};

struct trial {
    long long id, study_id;
    int seq; /* the trial's "number": 0-based issue order in its study */
    enum trial_state state;
    enum trial_origin origin;
    char *metadata;      /* JSON object text; NULL reads as {} */
    char *params;        /* JSON object text */
    long long candidate; /* -1: none */
    char *worker;
    struct metric_set values; /* final values reported so far */
    struct trial_step *steps; /* intermediate reports by step; filled by
                                 trial_store_get/list/held, not history */
    size_t n_steps;
    char *reason; /* NULL: none */
    int lease_expired;
    char *lease_expires_at;     /* NULL when not live */
    long long resume_from_step; /* -1: none */
    /* Excluded by a user (POST /v1/trials/{id}/exclude): excluded is 1 and
     * the strings say why, who (the token, "" on an open server) and when
     * (history rows carry the flag only). The trial keeps its values but
     * leaves the model, best, pareto and importance. */
    int excluded;
    char *excluded_reason, *excluded_by, *excluded_at;
    long long train_to; /* step to train to (multistage), -1: none */
    char *created_at, *updated_at;
};

void study_clear(struct study *s);
void trial_clear(struct trial *t);
/*
 * trials_drop_excluded - removes the excluded trials of t[0..*n) (freed),
 * keeping the others in order; *n becomes their number.
 */
void trials_drop_excluded(struct trial *t, size_t *n);
/* The checkpoint of t's highest step that has one (borrowed), or NULL. */
const char *trial_checkpoint(const struct trial *t);
void trials_free(struct trial *t, size_t n);

/* Trials issued and still counting against the budget (waiting ones
 * included; added ones and lease-expired ones not). */
long long study_issued(const struct study *s);
/* Trials holding a finite study's candidate: issued plus added. */
long long study_taken(const struct study *s);
/* 1 if no new configuration may start: budget or candidates spent. */
int study_exhausted(const struct study *s);
/* Trials pending or running. */
long long study_live(const struct study *s);
/* 1 if no trial will ever be issued again and none is live, waiting or
 * paused. */
int study_done(const struct study *s);

#endif
