/*
 * store/model.h - plain row structs shared by handlers and store.
 *
 * JSON-valued columns (a study's definition, a trial's params and values)
 * travel as JSON text: store/ must not know jansson, and handlers parse
 * what they need. Every pointer is owned by the struct; *_cleanup frees
 * them and is safe on a zeroed struct.
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
    TRIAL_NSTATES
};

/* "pending", ...; trial_state_parse returns -1 for an unknown name. */
const char *trial_state_name(enum trial_state s);
int trial_state_parse(const char *s);

struct study {
    long long id;
    char *name;
    char *definition; /* JSON text: the normalized definition */
    long long budget; /* -1: none */
    int lease_seconds;
    long long n_candidates; /* -1: infinite space */
    char *benchmark;        /* NULL: none */
    char *created_at;
    long long counts[TRIAL_NSTATES];
    long long n_expired; /* failed by lease expiry: not in the budget */
};

struct trial {
    long long id, study_id;
    int seq;
    enum trial_state state;
    char *params;        /* JSON object text */
    long long candidate; /* -1: none */
    char *worker;
    char *values;       /* JSON object text, "{}" until completed */
    char *intermediate; /* JSON array text [{"step":..,"values":..}] */
    char *reason;       /* NULL: none */
    int lease_expired;
    char *lease_expires_at;     /* NULL when not live */
    long long resume_from_step; /* -1: none */
    long long train_to;         /* step to train to (multistage), -1: none */
    char *created_at, *updated_at;
};

void study_cleanup(struct study *s);
void trial_cleanup(struct trial *t);
void trials_free(struct trial *t, size_t n);

/* Trials issued and still counting against budget/candidates. */
long long study_issued(const struct study *s);
/* Trials pending or running. */
long long study_live(const struct study *s);
/* 1 if no trial will ever be issued again and none is live. */
int study_done(const struct study *s);

#endif
