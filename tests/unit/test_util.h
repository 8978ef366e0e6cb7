/* Helpers shared by unit tests (include after cmocka.h). */
#ifndef HOPSCOPE_TEST_UTIL_H
#define HOPSCOPE_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* splitmix64: a test's reproducible random numbers.  A test file defines
 * TEST_RNG_SEED before including this header to pick its sequence (tests
 * may also set rng_state directly). */
#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 0
#endif
static uint64_t rng_state = TEST_RNG_SEED;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The whole of DIR/NAME, NUL-terminated, its length in *n; fails the test
 * when it cannot be read.  The caller frees it. */
static inline unsigned char *slurp(const char *dir, const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    b[len] = 0;
    *n = (size_t)len;
    return b;
}

#endif
