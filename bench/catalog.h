/*
 * bench/catalog.h - the benchmarks a name can refer to: the lookup tables
 * and learning-curve sets loaded from files at start-up (bench/tables.h)
 * and the tables users import, stored in PostgreSQL (store/bench_store.h)
 * so that every hpod process serves them. Imported tables are parsed once
 * per process and kept (see bench/catalog.c for why that is safe).
 */
#ifndef HPOD_BENCH_CATALOG_H
#define HPOD_BENCH_CATALOG_H

#include <jansson.h>
#include <stddef.h>

#include "bench/tables.h"
#include "common/status.h"
#include "store/db.h"

/* A resolved benchmark: exactly one of table and curves is set. */
struct bench_ref {
    const struct bench_table *table;
    const struct bench_lc_set *curves;
    json_t *choices; /* imported: array per param of choices or null */
    json_t *types;   /* imported: array per param of type names */
    int imported;    /* 0 built-in, 1 imported (cached), 2 owned by ref */
};

/*
 * catalog_resolve - name as a built-in table, a curve set of db or
 * a table imported into pg. Return: HPOD_OK (release ref with
 * catalog_ref_clear), HPOD_ENOTFOUND if none, or a store error (err).
 */
enum hpod_status catalog_resolve(const struct bench_db *db, struct db *pg,
                                 const char *name, struct bench_ref *ref,
                                 struct hpod_err *err);
void catalog_ref_clear(struct bench_ref *ref);

/*
 * catalog_import - stores a validated import (bench/import.h: name,
 * definition and rows as JSON text, n_rows rows) in one transaction that
 * records it in the audit log as token by_token's benchmark.import (lab:
 * the name's namespace). HPOD_ECONFLICT when the name is taken.
 */
enum hpod_status catalog_import(struct db *pg, const char *name,
                                const char *definition, const char *rows,
                                size_t n_rows, long long by_token,
                                struct hpod_err *err);

/* Frees the per-process cache of imported tables (at shutdown). */
void catalog_clear(void);

/* The choices of column k of a table (borrowed), NULL if not categorical. */
json_t *catalog_ref_choices(const struct bench_ref *ref, size_t k);

/* The study parameter of column k: a value list or a categorical (new
 * reference). */
json_t *catalog_ref_param_json(const struct bench_ref *ref, size_t k);

/* Row i's parameters as an object {name: value} (new reference). */
json_t *catalog_ref_row_params(const struct bench_ref *ref, size_t i);

/* qsort comparison of doubles, ascending. */
int catalog_cmp_double(const void *a, const void *b);

/* Are the w doubles at x and y bitwise equal? */
int catalog_same_row(const double *x, const double *y, size_t w);

#endif
