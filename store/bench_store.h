/*
 * store/bench_store.h - SQL about imported benchmark tables and stored
 * simulation runs. JSON travels as text (store/ knows no jansson).
 */
#ifndef HPOD_BENCH_STORE_H
#define HPOD_BENCH_STORE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"

/* Inserts an imported table; HPOD_ECONFLICT if the name exists. */
enum hpod_status bench_store_insert(struct db *db, const char *name,
                                    const char *definition, const char *rows,
                                    struct hpod_err *err);

/*
 * bench_store_get - an imported table: *definition and *rows receive new
 * JSON text. HPOD_ENOTFOUND if there is none by that name.
 */
enum hpod_status bench_store_get(struct db *db, const char *name,
                                 char **definition, char **rows,
                                 struct hpod_err *err);

/* Names of every imported table, sorted (new array of new strings). */
enum hpod_status bench_store_names(struct db *db, char ***names, size_t *n,
                                   struct hpod_err *err);

/*
 * A stored simulation (a job, migrations 0007 and 0014). Strings are new;
 * summary, sequences and seconds exist once state is "done" (sequences
 * NULL when not asked); error and error_field once it is "failed".
 */
struct sim_row {
    long long id;
    char *benchmark;
    char *summary;   /* JSON object text, or NULL */
    char *sequences; /* JSON array text, or NULL */
    double seconds;
    char *created_at;
    char state[12]; /* queued, running, done, failed, cancelled */
    long long runs_done, runs_total;
    char *error, *error_field; /* NULL unless failed */
};
void sim_row_clear(struct sim_row *r);

/*
 * sim_store_lab_lock - serializes, until the transaction ends, the
 * enqueues of lab (NULL: the jobs of every lab) across processes, so that
 * sim_store_enqueue's count of its jobs stays true (a transaction-scoped
 * advisory lock: PgBouncer-safe).
 */
enum hpod_status sim_store_lab_lock(struct db *db, const char *lab,
                                    struct hpod_err *err);

/*
 * sim_store_enqueue - a queued job, if lab has fewer than cap jobs queued
 * or running: request is the validated request body (JSON text) that a
 * worker parses again, runs_total its repeats; lab: the lab that asked
 * (NULL: a principal of every lab, whose jobs only such principals list).
 * *id is the new job's, or 0 when the lab is at its cap (nothing written).
 */
enum hpod_status sim_store_enqueue(struct db *db, const char *benchmark,
                                   const char *lab, const char *request,
                                   long long runs_total, long long cap,
                                   long long *id, struct hpod_err *err);

/* A claimed slice of a job (strings new). */
struct sim_claim {
    long long id, attempt, runs_total;
    long long runs_stored; /* runs already stored: the slice starts here */
    char *benchmark, *request;
};
void sim_claim_clear(struct sim_claim *c);
/*
 * sim_store_claim - takes a queued job, or a running one whose lease
 * lapsed, in one statement (FOR UPDATE SKIP LOCKED): the job of the lab
 * whose last slice started longest ago (never first), then that lab's
 * oldest; state running, a lease lease_ms from now, and the lab's turn
 * recorded. attempt grows when the claim takes a running job over (a
 * process died with it) or takes it the first time, so a late write of
 * an older owner is fenced off. *got is 0 when there is none.
 */
enum hpod_status sim_store_claim(struct db *db, long lease_ms,
                                 struct sim_claim *out, int *got,
                                 struct hpod_err *err);
/*
 * sim_store_progress - runs_done (never lowered) and a lease renewed to
 * lease_ms from now, if (id, attempt) still owns the running job; *owned 0
 * when it does not (taken over, or cancelled).
 */
enum hpod_status sim_store_progress(struct db *db, long long id,
                                    long long attempt, long long done,
                                    long lease_ms, int *owned,
                                    struct hpod_err *err);
/*
 * sim_store_slice - runs first .. first + runs - 1 computed (their
 * sequences, JSON text, and wall seconds), if (id, attempt) owns the job
 * and first is where its stored runs end: stored, and the job back in
 * the queue for the rest. *owned 0 when it was not.
 */
enum hpod_status sim_store_slice(struct db *db, long long id, long long attempt,
                                 long long first, long long runs,
                                 const char *sequences, double seconds,
                                 int *owned, struct hpod_err *err);

/* A stored slice (sequences new). */
struct sim_slice {
    long long first, runs;
    char *sequences;
    double seconds;
};
/* sim_store_slices - the stored slices of job id, by first run (a new
 * array; sim_slices_free). */
enum hpod_status sim_store_slices(struct db *db, long long id,
                                  struct sim_slice **out, size_t *n,
                                  struct hpod_err *err);
void sim_slices_free(struct sim_slice *s, size_t n);

/*
 * sim_store_finish - the result (state done; the slices deleted) if (id,
 * attempt) owns the job and its stored runs end at first (the last
 * slice's).
 */
enum hpod_status sim_store_finish(struct db *db, long long id,
                                  long long attempt, long long first,
                                  const char *summary, const char *sequences,
                                  double seconds, int *owned,
                                  struct hpod_err *err);
/* sim_store_fail - state failed with the client's error. */
enum hpod_status sim_store_fail(struct db *db, long long id, long long attempt,
                                const char *message, const char *field,
                                struct hpod_err *err);
/* sim_store_release - back to queued (shutdown, database trouble). */
enum hpod_status sim_store_release(struct db *db, long long id,
                                   long long attempt, struct hpod_err *err);
/*
 * sim_store_cancel - state cancelled (its slices deleted) if job id is
 * queued or running; *changed 0 when it was not (absent, or already
 * ended: the caller reads which).
 */
enum hpod_status sim_store_cancel(struct db *db, long long id, int *changed,
                                  struct hpod_err *err);
/* One lab's jobs queued and running (sim_store_queue_depth). */
struct sim_queue_row {
    char lab[80]; /* "" for jobs without a lab; SIM_QUEUE_OTHER for the
                     labs past max_labs */
    long long queued, running;
};
#define SIM_QUEUE_OTHER "(other)"

/*
 * sim_store_queue_depth - the jobs queued and running per lab, the
 * max_labs labs with the most of them first, every other lab summed in
 * one SIM_QUEUE_OTHER row; *out a new array of *n rows (free it), one
 * statement on the partial index the cap uses.
 */
enum hpod_status sim_store_queue_depth(struct db *db, long max_labs,
                                       struct sim_queue_row **out, size_t *n,
                                       struct hpod_err *err);
/* sim_store_state - a job's state ("" when absent; state has 12 bytes). */
enum hpod_status sim_store_state(struct db *db, long long id, char *state,
                                 struct hpod_err *err);
/* One run with its sequences; HPOD_ENOTFOUND if absent. */
enum hpod_status sim_store_get(struct db *db, long long id, struct sim_row *out,
                               struct hpod_err *err);
/* Newest first, without sequences; benchmark NULL: all; lab NULL: every
 * lab's, else that lab's only. */
enum hpod_status sim_store_list(struct db *db, const char *benchmark,
                                const char *lab, long long limit,
                                long long offset, struct sim_row **out,
                                size_t *n, long long *total,
                                struct hpod_err *err);

#endif
