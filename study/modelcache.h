/*
 * study/modelcache.h - one byte budget over every per-process model cache.
 *
 * What a process keeps between requests to answer the next one faster
 * (parsed definitions, study histories, sampler states with their GP
 * factors and graphs, importance answers) lives here as entries, each
 * with its size in bytes (an estimate from the object's dimensions),
 * under one budget (HPOD_MODEL_CACHE_MB). An entry is keyed by kind,
 * study id and a short key, and is pinned while a caller uses it: a
 * pinned entry is never evicted. Room is made by evicting unpinned
 * entries, least recently used first. A build that needs more than the
 * budget can give even after evicting everything unpinned waits (at most
 * MODELCACHE_WAIT_MS) for pinned entries to be put back, then is refused
 * with HPOD_EBUSY (503 with Retry-After): the process never holds more
 * than the budget plus what its pinned entries need.
 *
 * Two kinds of entries: shared ones (immutable objects any number of
 * callers may read at once: definitions, importance answers) and
 * exclusive ones (objects a caller changes while it uses them:
 * histories, sampler states), which a second caller cannot get while
 * the first holds them. Adding an entry whose key is taken replaces the
 * old one; a replaced entry still pinned is freed when its last user
 * puts it back, and counts until then.
 *
 * No entry changes an answer: each cache checks its entries against the
 * database's version on every use (study/defcache.c, study/histcache.c,
 * study/samplercache.c, study/importance.c say how).
 */
#ifndef HPOD_STUDY_MODELCACHE_H
#define HPOD_STUDY_MODELCACHE_H

#include <stddef.h>

#include "common/status.h"

enum modelcache_kind {
    MODELCACHE_DEF,        /* shared: a parsed study definition */
    MODELCACHE_HISTORY,    /* exclusive: a study's history rows */
    MODELCACHE_SAMPLER,    /* exclusive: candidates and sampler state */
    MODELCACHE_IMPORTANCE, /* shared: an importance answer */
    MODELCACHE_KINDS
};

/* The longest wait for pinned entries to make room. */
#define MODELCACHE_WAIT_MS 2000
/* Retry-After of a refused build: soon, or when it can never fit. */
#define MODELCACHE_RETRY_SECONDS 2
#define MODELCACHE_RETRY_NEVER_SECONDS 60
#define MODELCACHE_KEY_MAX 160

struct modelcache_entry; /* opaque */

/* modelcache_configure - the budget in bytes (default 1 GiB). */
void modelcache_configure(size_t budget_bytes);

/*
 * modelcache_get - the entry (kind, id, key) pinned for the caller and
 * *obj its object, or NULL (*obj NULL) when there is none or, for an
 * exclusive kind, another caller holds it. Marks it recently used.
 */
struct modelcache_entry *modelcache_get(enum modelcache_kind kind, long long id,
                                        const char *key, void **obj);

/*
 * modelcache_add - obj (owned by the cache from now on, freed with
 * free_obj) of bytes as the entry (kind, id, key), pinned for the caller;
 * it replaces an entry of the same key. Room is made by evicting unpinned
 * entries; an entry never fails to be added (its size counts while it is
 * pinned, and modelcache_put drops it if it does not fit then).
 */
struct modelcache_entry *modelcache_add(enum modelcache_kind kind, long long id,
                                        const char *key, void *obj,
                                        size_t bytes, void (*free_obj)(void *));

/*
 * modelcache_take - modelcache_get, or when it gives nothing, a new
 * object from make(id) added as modelcache_add does (bytes, free_obj):
 * what an exclusive cache's caller holds for a study either way.
 */
struct modelcache_entry *modelcache_take(enum modelcache_kind kind,
                                         long long id, const char *key,
                                         void *(*make)(long long id),
                                         size_t bytes, void (*free_obj)(void *),
                                         void **obj);

/*
 * modelcache_reserve - lets pinned entry e grow to bytes before a build:
 * evicts unpinned entries (least recently used first) until it fits,
 * waits up to MODELCACHE_WAIT_MS for pinned ones, and answers HPOD_EBUSY
 * (err: retry_after, the sizes in the message) when it still does not.
 * On success e counts bytes.
 */
enum hpod_status modelcache_reserve(struct modelcache_entry *e, size_t bytes,
                                    struct hpod_err *err);

/*
 * modelcache_set_size - pinned entry e now holds bytes (what it measured
 * after a build or an update): counted at once; room is made when it
 * grew, without waiting (modelcache_put drops it if it does not fit).
 */
void modelcache_set_size(struct modelcache_entry *e, size_t bytes);

/*
 * modelcache_put - unpins e. keep = 0 drops it (freed once no caller
 * holds it); so does an entry that does not fit in the budget once
 * everything else unpinned is evicted. NULL is a no-op.
 */
void modelcache_put(struct modelcache_entry *e, int keep);

/* Drops every entry (none may be pinned: at shutdown and in tests). */
void modelcache_clear(void);

struct modelcache_stats {
    size_t budget, used, pinned, entries;
    size_t kind_bytes[MODELCACHE_KINDS];
    unsigned long long evictions, refused; /* since start */
};
void modelcache_stats(struct modelcache_stats *out);

#endif
