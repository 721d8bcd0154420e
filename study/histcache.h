/*
 * study/histcache.h - a per-process cache of each study's history (the
 * rows trial_store_history reads, with their params parsed), validated
 * against the database on every use and extended with what changed
 * (docs/suggest-p99.md). The correctness argument is in study/histcache.c.
 */
#ifndef HPOD_STUDY_HISTCACHE_H
#define HPOD_STUDY_HISTCACHE_H

#include <stddef.h>

#include "common/status.h"
#include "store/db.h"
#include "store/history_store.h"
#include "store/model.h"
#include "store/study_store.h"
#include "study/def.h"
#include "study/history.h"
#include "study/multifidelity.h"

struct modelcache_entry;

struct hcache {
    long long study_id;
    /* The version of the definition the rows were parsed for (its
     * stored row's, store/study_store.h), "" until the first read. */
    char def_version[STUDY_VERSION_MAX];
    int with_values;            /* rows carry values (model samplers) */
    char xmin[HISTORY_XID_MAX]; /* "" until the first read */
    struct trial *rows;         /* id order; none failed by lease expiry */
    size_t n, cap;              /* rows, raw and ok have room for cap rows */
    double *raw;       /* n × np: each row's params parsed (rows_ok) */
    unsigned char *ok; /* 1: raw holds the row's point */
    size_t np;
    struct modelcache_entry *entry; /* in study/modelcache.h's budget */
};

/*
 * histcache_merge - merges delta[0..nd) (id order, as history_store_changes
 * gives them; moved: delta's rows are owned by c afterwards, the array
 * itself is not) into c->rows: a row of delta replaces the row of the same
 * id, a new id is added, a row failed by lease expiry is dropped. Params
 * of non-candidate rows are parsed with d (NULL: none are parsed). Pure.
 */
void histcache_merge(struct hcache *c, struct trial *delta, size_t nd,
                     const struct study_def *d);

/* Empties c (keeps study_id): the next use reads everything. */
void histcache_reset(struct hcache *c);

/*
 * histcache_history - history_load through the cache: re-reads the trials
 * changed since c's last read (one statement, inside the caller's
 * transaction), merges them, and builds h from the cached rows. The
 * caller must hand c back with histcache_put(c, 0) when its transaction
 * does not commit (what was read may include its own undone writes).
 * def_version: the version of the study's definition (the key of the
 * parsed rows).
 */
enum hpod_status histcache_history(struct hcache *c, struct db *db,
                                   long long study_id, const char *def_version,
                                   const struct study_def *d,
                                   const double *cand_raw, size_t n_cand,
                                   int finite, const struct mf_work *w,
                                   struct history *h, struct hpod_err *err);

/*
 * The steps of histcache_history, for a caller that reads the changes itself
 * (study/suggest.c: with the lease expiry, in one statement):
 * histcache_with_values says whether the rows carry values (model samplers,
 * multistage); histcache_since keys c by (study, definition version,
 * with_values), emptying it when the key differs, and returns the xid8
 * text to read the changes since ("0": everything); histcache_apply merges
 * the changes read in one snapshot whose xmin is xmin (delta's rows are
 * moved, the array is not); histcache_build builds h from the rows.
 * histcache_enabled: 0 under histcache_set_enabled(0).
 */
int histcache_with_values(const struct study_def *d, const struct mf_work *w);
const char *histcache_since(struct hcache *c, long long study_id,
                            const char *def_version, int with_values);
void histcache_apply(struct hcache *c, struct trial *delta, size_t nd,
                     const struct study_def *d,
                     const char xmin[HISTORY_XID_MAX]);
void histcache_build(const struct hcache *c, const struct study_def *d,
                     const double *cand_raw, size_t n_cand, int finite,
                     const struct mf_work *w, struct history *h);
int histcache_enabled(void);

/*
 * The process's entries, keyed by study id, under the model-memory budget
 * (study/modelcache.h). histcache_take holds a study's entry (a new empty
 * one when none is cached or another thread holds it), so no two threads
 * share one; histcache_put hands it back, sized by histcache_bytes (keep = 0:
 * destroys it).
 */
struct hcache *histcache_take(long long study_id);
void histcache_put(struct hcache *c, int keep);
/* What c holds, in bytes: its rows, their strings and parsed points. */
size_t histcache_bytes(const struct hcache *c);

/*
 * histcache_set_enabled - 0: histcache_history reads the whole history every
 * time (HPOD_HISTORY_CACHE=0, for comparisons); the default is 1.
 */
void histcache_set_enabled(int on);

#endif
