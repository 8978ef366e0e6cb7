/* common/rng.h — private: the model's random number generator, shared by
 * fabric/ (routing, synthetic traffic) and replay/ (mappings, background
 * placement, latency reservoirs, gen).  Header-only, no state of its own. */
#ifndef HOPSCOPE_COMMON_RNG_H
#define HOPSCOPE_COMMON_RNG_H

#include <stdint.h>

/* The model's random numbers: xoshiro256** seeded through splitmix64
 * (deterministic per seed; the network and the traffic driver each have
 * their own stream). */
static inline uint64_t hs__xoshiro(uint64_t s[4])
{
    uint64_t r = s[1] * 5, x = (r << 7 | r >> 57) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3] << 45 | s[3] >> 19;
    return x;
}
static inline void hs__seed(uint64_t s[4], uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        s[i] = z ^ (z >> 31);
    }
}
/* Uniform in [0, n) for n >= 1 (multiply-shift; the bias, below n / 2^64,
 * is far under anything a run could detect). */
static inline uint64_t hs__rand_below(uint64_t s[4], uint64_t n)
{
    return (uint64_t)(((unsigned __int128)hs__xoshiro(s) * n) >> 64);
}
#endif
