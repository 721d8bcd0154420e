/*
 * server/ratelimit.h - requests per second per caller, in this process.
 *
 * A token bucket per key (a token's id, or a client address on an open
 * server): it holds at most burst requests and refills at rate per
 * second. The buckets live in a fixed table (RATELIMIT_SLOTS, open
 * addressing over a short probe window), so a client inventing keys
 * cannot grow the process: a new key takes the slot of its window whose
 * bucket is fullest (an idle key loses nothing by being forgotten, and a
 * key being held back, whose bucket is empty, is forgotten last). Each
 * process counts its own
 * requests: behind a balancer over N replicas a caller may send up to N
 * times the rate.
 */
#ifndef HPOD_RATELIMIT_H
#define HPOD_RATELIMIT_H

#define RATELIMIT_SLOTS 4096
#define RATELIMIT_KEY_MAX 63

struct ratelimit; /* opaque */

/* ratelimit_create - rate requests per second, burst at once (>= 1);
 * rate 0 makes a limiter that allows everything. */
struct ratelimit *ratelimit_create(double rate, double burst);

/* ratelimit_free - accepts NULL. */
void ratelimit_free(struct ratelimit *rl);

/*
 * ratelimit_take - one request of key (at most RATELIMIT_KEY_MAX bytes
 * are told apart) at time now (seconds, monotonic). Returns 0 when it is
 * allowed (and counted), else the whole seconds (>= 1) until the next
 * one would be: the Retry-After of its 429.
 */
int ratelimit_take(struct ratelimit *rl, const char *key, double now);

#endif
