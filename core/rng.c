/*
 * core/rng.c - xoshiro256** seeded by splitmix64.
 *
 * Reference: Blackman & Vigna, "Scrambled linear pseudorandom number
 * generators" (2018); the public-domain reference code at prng.di.unimi.it.
 */
#include "core/rng.h"

#include <math.h>

static uint64_t
splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t
rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void
rng_seed(struct rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

void
rng_seed2(struct rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed;
    uint64_t mixed = splitmix64(&x) ^ (stream * 0xd1b54a32d192ed03ULL);
    rng_seed(r, mixed);
}

uint64_t
rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double
rng_uniform(struct rng *r)
{
    /* 53 random bits into the mantissa: exactly representable, in [0,1). */
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t
rng_below(struct rng *r, uint64_t n)
{
    /* Reject the top partial block so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = rng_next(r);
    } while (x >= limit);
    return x % n;
}

double
rng_normal(struct rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void
rng_draw(struct rng *r, size_t *perm, size_t n, size_t k)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t j = 0; j < k && j < n; j++) {
        size_t pick = j + (size_t)rng_below(r, n - j);
        size_t t = perm[j];
        perm[j] = perm[pick];
        perm[pick] = t;
    }
}

void
rng_shuffle(struct rng *r, size_t *idx, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(r, i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}
