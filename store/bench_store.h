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

/* A stored simulation. Strings are new; sequences NULL when not asked. */
struct sim_row {
    long long id;
    char *benchmark;
    char *summary;   /* JSON object text */
    char *sequences; /* JSON array text, or NULL */
    double seconds;
    char *created_at;
};
void sim_row_cleanup(struct sim_row *r);

/* A finished run; lab: the lab that ran it (NULL: a principal of every
 * lab, whose runs only such principals list). */
enum hpod_status sim_store_insert(struct db *db, const char *benchmark,
                                  const char *lab, const char *summary,
                                  const char *sequences, double seconds,
                                  long long *id, struct hpod_err *err);
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
