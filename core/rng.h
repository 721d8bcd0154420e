/*
 * core/rng.h - explicit, seeded pseudo-random numbers (xoshiro256**).
 *
 * Every sampler takes a struct rng * seeded by its caller; there is no
 * global state, so the same seed and history give the same suggestion in
 * any process. Seeding goes through splitmix64, as the xoshiro authors
 * recommend, so nearby seeds give unrelated streams.
 */
#ifndef HPOD_RNG_H
#define HPOD_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
    uint64_t s[4];
};

/* Seeds r from seed (any value, 0 included). */
void rng_seed(struct rng *r, uint64_t seed);
/* Seeds r from a seed and a stream number (e.g. the study's trial count). */
void rng_seed2(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform double in [0, 1). */
double rng_uniform(struct rng *r);
/* Uniform integer in [0, n); n > 0. Unbiased (rejection). */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Standard normal deviate (Box-Muller, no cached second value). */
double rng_normal(struct rng *r);
/* Fisher-Yates shuffle of idx[0..n). */
void rng_shuffle(struct rng *r, size_t *idx, size_t n);
/*
 * rng_draw - k of 0..n-1 uniformly without replacement, in draw order:
 * perm (n entries) is set to the identity, then draw j swaps position j
 * with j + rng_below(n - j) (partial Fisher-Yates); perm[0..k) is the
 * draw. The replays of successive halving, ASHA and multi-stage BO on the
 * learning curves all draw their configurations this way, so the same
 * seed gives them the same pool.
 */
void rng_draw(struct rng *r, size_t *perm, size_t n, size_t k);

#endif
