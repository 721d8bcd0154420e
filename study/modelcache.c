/*
 * study/modelcache.c - the byte budget over the model caches; see
 * modelcache.h.
 *
 * One mutex guards the index (a hash of (kind, id, key)), the LRU list of
 * the entries in the index (least recently used at the head) and the
 * counts. Objects are freed outside the mutex: freeing a graph of 400 MB
 * must not hold up every other cache user. A thread that waits for room
 * sleeps on room_cv, which every put and drop broadcasts.
 */
#include "study/modelcache.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"

#define BUCKETS 1024
/* Freeing more than this at once gives the memory back to the system
 * (glibc keeps freed heap memory below its mmap threshold otherwise). */
#define TRIM_BYTES (16u << 20)

struct modelcache_entry {
    enum modelcache_kind kind;
    long long id;
    char key[MODELCACHE_KEY_MAX];
    void *obj;
    void (*free_obj)(void *);
    size_t bytes;
    unsigned pins;
    int attached; /* in the index and the LRU list */
    struct modelcache_entry *hnext, *prev, *next;
};

static const int shared_kind[MODELCACHE_KINDS] = {
    [MODELCACHE_DEF] = 1, [MODELCACHE_IMPORTANCE] = 1};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t room_cv = PTHREAD_COND_INITIALIZER;
static struct modelcache_entry *index_[BUCKETS];
static struct modelcache_entry *lru_head, *lru_tail;
static size_t budget = (size_t)1 << 30, used, n_entries;
static size_t kind_bytes[MODELCACHE_KINDS];
static unsigned long long n_evictions, n_refused;

void
modelcache_configure(size_t budget_bytes)
{
    pthread_mutex_lock(&mu);
    budget = budget_bytes;
    pthread_mutex_unlock(&mu);
}

static size_t
bucket_of(enum modelcache_kind kind, long long id, const char *key)
{
    unsigned long long h = (unsigned long long)id * 0x9e3779b97f4a7c15ULL;
    h ^= (unsigned long long)kind * 0xff51afd7ed558ccdULL;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return (size_t)(h % BUCKETS);
}

static void
lru_unlink(struct modelcache_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        lru_head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void
lru_append(struct modelcache_entry *e)
{
    e->prev = lru_tail;
    e->next = NULL;
    if (lru_tail)
        lru_tail->next = e;
    else
        lru_head = e;
    lru_tail = e;
}

static struct modelcache_entry *
index_find(enum modelcache_kind kind, long long id, const char *key)
{
    struct modelcache_entry *e = index_[bucket_of(kind, id, key)];
    while (e && (e->kind != kind || e->id != id || strcmp(e->key, key) != 0))
        e = e->hnext;
    return e;
}

/* Takes e out of the index and the LRU list (it may still be pinned). */
static void
detach(struct modelcache_entry *e)
{
    struct modelcache_entry **pp = &index_[bucket_of(e->kind, e->id, e->key)];
    if (!e->attached)
        return;
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    lru_unlink(e);
    e->attached = 0;
}

/* Uncounts e and chains it on *dead, to be freed after the unlock. */
static void
retire(struct modelcache_entry *e, struct modelcache_entry **dead)
{
    detach(e);
    used -= e->bytes;
    kind_bytes[e->kind] -= e->bytes;
    n_entries--;
    e->hnext = *dead;
    *dead = e;
}

static void
free_dead(struct modelcache_entry *dead)
{
    size_t freed = 0;
    while (dead) {
        struct modelcache_entry *next = dead->hnext;
        freed += dead->bytes;
        if (dead->free_obj)
            dead->free_obj(dead->obj);
        free(dead);
        dead = next;
    }
    if (freed >= TRIM_BYTES)
        malloc_trim(0);
}

/*
 * Evicts unpinned entries, least recently used first, until need more
 * bytes fit; 1 when they do.
 */
static int
evict_for(size_t need, struct modelcache_entry **dead)
{
    struct modelcache_entry *e = lru_head;
    while (used + need > budget && e) {
        struct modelcache_entry *next = e->next;
        if (e->pins == 0) {
            retire(e, dead);
            n_evictions++;
        }
        e = next;
    }
    return used + need <= budget;
}

struct modelcache_entry *
modelcache_get(enum modelcache_kind kind, long long id, const char *key,
               void **obj)
{
    struct modelcache_entry *e;

    pthread_mutex_lock(&mu);
    e = index_find(kind, id, key);
    if (e && (shared_kind[kind] || e->pins == 0)) {
        e->pins++;
        lru_unlink(e);
        lru_append(e);
    } else {
        e = NULL;
    }
    pthread_mutex_unlock(&mu);
    *obj = e ? e->obj : NULL;
    return e;
}

struct modelcache_entry *
modelcache_add(enum modelcache_kind kind, long long id, const char *key,
               void *obj, size_t bytes, void (*free_obj)(void *))
{
    struct modelcache_entry *e = xcalloc(1, sizeof *e), *old, *dead = NULL;
    size_t b;

    e->kind = kind;
    e->id = id;
    snprintf(e->key, sizeof e->key, "%s", key);
    e->obj = obj;
    e->free_obj = free_obj;
    e->bytes = bytes;
    e->pins = 1;
    pthread_mutex_lock(&mu);
    if ((old = index_find(kind, id, e->key))) {
        if (old->pins == 0)
            retire(old, &dead);
        else
            detach(old); /* freed by its last put */
    }
    evict_for(bytes, &dead);
    b = bucket_of(kind, id, e->key);
    e->hnext = index_[b];
    index_[b] = e;
    e->attached = 1;
    lru_append(e);
    used += bytes;
    kind_bytes[kind] += bytes;
    n_entries++;
    pthread_mutex_unlock(&mu);
    free_dead(dead);
    return e;
}

struct modelcache_entry *
modelcache_take(enum modelcache_kind kind, long long id, const char *key,
                void *(*make)(long long id), size_t bytes,
                void (*free_obj)(void *), void **obj)
{
    struct modelcache_entry *e = modelcache_get(kind, id, key, obj);
    if (e)
        return e;
    *obj = make(id);
    return modelcache_add(kind, id, key, *obj, bytes, free_obj);
}

enum hpod_status
modelcache_reserve(struct modelcache_entry *e, size_t bytes,
                   struct hpod_err *err)
{
    struct modelcache_entry *dead = NULL;
    struct timespec until = hpod_deadline_in(MODELCACHE_WAIT_MS);
    size_t need, cap;
    int fits, timed_out = 0;

    pthread_mutex_lock(&mu);
    while (!timed_out && bytes > e->bytes && bytes <= budget) {
        need = bytes - e->bytes;
        fits = evict_for(need, &dead);
        if (fits)
            break;
        pthread_mutex_unlock(&mu);
        free_dead(dead); /* never while holding the mutex */
        dead = NULL;
        pthread_mutex_lock(&mu);
        if (used + need > budget)
            timed_out =
                pthread_cond_timedwait(&room_cv, &mu, &until) == ETIMEDOUT;
    }
    if (bytes <= e->bytes || used + (bytes - e->bytes) <= budget) {
        if (bytes > e->bytes) {
            used += bytes - e->bytes;
            kind_bytes[e->kind] += bytes - e->bytes;
            e->bytes = bytes;
        }
        pthread_mutex_unlock(&mu);
        free_dead(dead);
        return HPOD_OK;
    }
    n_refused++;
    cap = budget;
    pthread_mutex_unlock(&mu);
    free_dead(dead);
    if (bytes > cap)
        return hpod_fail_retry(
            err, HPOD_EBUSY, MODELCACHE_RETRY_NEVER_SECONDS, "",
            "this study's model needs about %zu MiB of memory, more than "
            "the server's model memory budget of %zu MiB "
            "(HPOD_MODEL_CACHE_MB)",
            (bytes + (1u << 20) - 1) >> 20, cap >> 20);
    return hpod_fail_retry(err, HPOD_EBUSY, MODELCACHE_RETRY_SECONDS, "",
                           "the server's model memory (HPOD_MODEL_CACHE_MB) "
                           "is in use by other requests: try again shortly");
}

void
modelcache_set_size(struct modelcache_entry *e, size_t bytes)
{
    struct modelcache_entry *dead = NULL;

    pthread_mutex_lock(&mu);
    used = used - e->bytes + bytes;
    kind_bytes[e->kind] = kind_bytes[e->kind] - e->bytes + bytes;
    e->bytes = bytes;
    evict_for(0, &dead);
    pthread_cond_broadcast(&room_cv);
    pthread_mutex_unlock(&mu);
    free_dead(dead);
}

void
modelcache_put(struct modelcache_entry *e, int keep)
{
    struct modelcache_entry *dead = NULL;

    if (!e)
        return;
    pthread_mutex_lock(&mu);
    e->pins--;
    if (e->pins == 0 && (!keep || !e->attached)) {
        retire(e, &dead);
    } else if (e->pins == 0) {
        /* Most recently used; evicted last, and only if it alone does
         * not fit. */
        lru_unlink(e);
        lru_append(e);
        evict_for(0, &dead);
    }
    pthread_cond_broadcast(&room_cv);
    pthread_mutex_unlock(&mu);
    free_dead(dead);
}

void
modelcache_clear(void)
{
    struct modelcache_entry *dead = NULL;

    pthread_mutex_lock(&mu);
    while (lru_head)
        retire(lru_head, &dead);
    pthread_mutex_unlock(&mu);
    free_dead(dead);
}

void
modelcache_stats(struct modelcache_stats *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&mu);
    out->budget = budget;
    out->used = used;
    out->entries = n_entries;
    for (struct modelcache_entry *e = lru_head; e; e = e->next)
        if (e->pins)
            out->pinned += e->bytes;
    memcpy(out->kind_bytes, kind_bytes, sizeof kind_bytes);
    out->evictions = n_evictions;
    out->refused = n_refused;
    pthread_mutex_unlock(&mu);
}
