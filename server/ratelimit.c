/*
 * server/ratelimit.c - token buckets per caller; see ratelimit.h.
 */
#include "server/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

#define PROBES 8

struct bucket {
    char key[RATELIMIT_KEY_MAX + 1]; /* "" : free */
    double tokens;
    double at; /* when tokens was last brought up to date */
};

struct ratelimit {
    pthread_mutex_t mu;
    double rate, burst;
    struct bucket slots[RATELIMIT_SLOTS];
};

struct ratelimit *
ratelimit_create(double rate, double burst)
{
    struct ratelimit *rl = xcalloc(1, sizeof *rl);
    pthread_mutex_init(&rl->mu, NULL);
    rl->rate = rate > 0 ? rate : 0;
    rl->burst = burst >= 1 ? burst : 1;
    return rl;
}

void
ratelimit_free(struct ratelimit *rl)
{
    if (!rl)
        return;
    pthread_mutex_destroy(&rl->mu);
    free(rl);
}

/* FNV-1a over the key's first RATELIMIT_KEY_MAX bytes. */
static uint32_t
hash(const char *key)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; key[i] && i < RATELIMIT_KEY_MAX; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h;
}

/* The bucket's tokens brought up to now. */
static double
refilled(const struct ratelimit *rl, const struct bucket *b, double now)
{
    double t = b->tokens + (now - b->at) * rl->rate;
    return t < rl->burst ? t : rl->burst;
}

/* The slot of key in its probe window: its own, else a free one, else
 * the one whose bucket is fullest (an idle key loses nothing by being
 * forgotten; a key being held back is forgotten last), the one brought up
 * to date longest ago among equals. */
static struct bucket *
find(struct ratelimit *rl, const char *key, double now, int *fresh)
{
    uint32_t h = hash(key);
    struct bucket *pick = NULL;
    double pick_tokens = -1;

    for (int p = 0; p < PROBES; p++) {
        struct bucket *b = &rl->slots[(h + (uint32_t)p) % RATELIMIT_SLOTS];
        double t;
        if (b->key[0] && strncmp(b->key, key, RATELIMIT_KEY_MAX) == 0) {
            *fresh = 0;
            return b;
        }
        t = b->key[0] ? refilled(rl, b, now) : rl->burst + 1;
        if (t > pick_tokens || (t == pick_tokens && b->at < pick->at)) {
            pick = b;
            pick_tokens = t;
        }
    }
    *fresh = 1;
    return pick;
}

int
ratelimit_take(struct ratelimit *rl, const char *key, double now)
{
    struct bucket *b;
    int fresh, wait = 0;

    if (!rl || rl->rate <= 0)
        return 0;
    if (!key[0])
        key = "-"; /* "" marks a free slot */
    pthread_mutex_lock(&rl->mu);
    b = find(rl, key, now, &fresh);
    if (fresh) {
        size_t n = strlen(key);
        n = n < RATELIMIT_KEY_MAX ? n : RATELIMIT_KEY_MAX;
        memcpy(b->key, key, n);
        b->key[n] = '\0';
        b->tokens = rl->burst;
    } else {
        b->tokens = refilled(rl, b, now);
    }
    b->at = now;
    if (b->tokens >= 1)
        b->tokens -= 1;
    else
        wait = (int)ceil((1 - b->tokens) / rl->rate);
    pthread_mutex_unlock(&rl->mu);
    return wait;
}
