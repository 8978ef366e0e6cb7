/* GF(2^k): irreducibility of every polynomial, clmul == portable on millions
 * of random pairs, field axioms, inverses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TEST_RNG_SEED 0x1234567887654321ull
#include "test_util.h"

#include <stdio.h>
#include "hopscope/hash.h"


/* Independent polynomial arithmetic over GF(2), 128-bit, for the proof. */
typedef unsigned __int128 u128;
static int deg(u128 a)
{
    int d = -1;
    for (int i = 0; i < 128; i++)
        if ((a >> i) & 1)
            d = i;
    return d;
}
static u128 pmod(u128 a, u128 m)
{
    int dm = deg(m);
    for (int d = deg(a); d >= dm; d = deg(a))
        a ^= m << (d - dm);
    return a;
}
static u128 pmulmod(u128 a, u128 b, u128 m)
{
    u128 r = 0;
    a = pmod(a, m);
    while (b) {
        if (b & 1)
            r ^= a;
        b >>= 1;
        a = pmod(a << 1, m);
    }
    return r;
}
static u128 pgcd(u128 a, u128 b)
{
    while (b) {
        u128 t = pmod(a, b);
        a = b;
        b = t;
    }
    return a;
}
/* x^(2^i) mod f */
static u128 xpow2(unsigned i, u128 f)
{
    u128 x = 2;
    for (unsigned n = 0; n < i; n++)
        x = pmulmod(x, x, f);
    return x;
}

/* Rabin's test: f of degree k is irreducible iff x^(2^k) = x mod f and
 * gcd(x^(2^(k/p)) - x, f) = 1 for every prime p dividing k. */
static void test_polys_irreducible(void **state)
{
    (void)state;
    for (unsigned k = HS_GF_KMIN; k <= HS_GF_KMAX; k++) {
        u128 f = hs_gf_poly(k);
        assert_int_equal(deg(f), k);
        assert_true(f & 1); /* constant term, else x divides f */
        assert_true(xpow2(k, f) == 2);
        for (unsigned p = 2; p <= k; p++) {
            int prime = 1;
            for (unsigned q = 2; q * q <= p; q++)
                if (p % q == 0)
                    prime = 0;
            if (!prime || k % p)
                continue;
            assert_true(pgcd(f, xpow2(k / p, f) ^ 2) == 1);
        }
    }
    assert_int_equal(hs_gf_poly(3), 0);
    assert_int_equal(hs_gf_poly(33), 0);
}

static void test_init_range(void **state)
{
    (void)state;
    hs_gf gf;
    assert_int_equal(hs_gf_init(&gf, 3), HS_EINVAL);
    assert_int_equal(hs_gf_init(&gf, 33), HS_EINVAL);
    assert_int_equal(hs_gf_init(&gf, 4), 0);
    assert_int_equal(gf.mask, 15);
}

/* The reference: multiply in the independent 128-bit arithmetic. */
static uint32_t ref_mul(unsigned k, uint32_t a, uint32_t b)
{
    return (uint32_t)pmulmod(a, b, hs_gf_poly(k));
}

static void test_mul_reference(void **state)
{
    (void)state;
    for (unsigned k = HS_GF_KMIN; k <= HS_GF_KMAX; k++) {
        hs_gf gf;
        hs_gf_init(&gf, k);
        for (int i = 0; i < 2000; i++) {
            uint32_t a = (uint32_t)rnd() & gf.mask, b = (uint32_t)rnd() & gf.mask;
            assert_int_equal(hs_gf_mul_portable(&gf, a, b), ref_mul(k, a, b));
        }
    }
}

static void test_clmul_agrees(void **state)
{
    (void)state;
    if (!hs_cpu_has_clmul()) {
        print_message("no PCLMULQDQ on this CPU: only the portable multiplier is used\n");
        skip();
    }
    /* 29 widths x 100000 pairs = 2.9 million pairs, plus the corner values. */
    for (unsigned k = HS_GF_KMIN; k <= HS_GF_KMAX; k++) {
        hs_gf gf;
        hs_gf_init(&gf, k);
        assert_int_equal(gf.clmul, 1);
        uint32_t corners[] = {0, 1, 2, gf.mask, gf.mask - 1, 1u << (k - 1)};
        for (size_t i = 0; i < 6; i++)
            for (size_t j = 0; j < 6; j++)
                assert_int_equal(hs_gf_mul_clmul(&gf, corners[i], corners[j]),
                                 hs_gf_mul_portable(&gf, corners[i], corners[j]));
        uint64_t mismatches = 0;
        for (int i = 0; i < 100000; i++) {
            uint32_t a = (uint32_t)rnd() & gf.mask, b = (uint32_t)rnd() & gf.mask;
            mismatches += hs_gf_mul_clmul(&gf, a, b) != hs_gf_mul_portable(&gf, a, b);
        }
        assert_int_equal(mismatches, 0);
    }
}

static void test_axioms(void **state)
{
    (void)state;
    for (unsigned k = HS_GF_KMIN; k <= HS_GF_KMAX; k++) {
        hs_gf gf;
        hs_gf_init(&gf, k);
        for (int i = 0; i < 20000; i++) {
            uint32_t a = (uint32_t)rnd() & gf.mask, b = (uint32_t)rnd() & gf.mask,
                     c = (uint32_t)rnd() & gf.mask;
            assert_int_equal(hs_gf_mul(&gf, a, b), hs_gf_mul(&gf, b, a));
            assert_int_equal(hs_gf_mul(&gf, hs_gf_mul(&gf, a, b), c),
                             hs_gf_mul(&gf, a, hs_gf_mul(&gf, b, c)));
            assert_int_equal(hs_gf_mul(&gf, a, b ^ c),
                             hs_gf_mul(&gf, a, b) ^ hs_gf_mul(&gf, a, c));
            assert_int_equal(hs_gf_mul(&gf, a, 1), a);
            assert_int_equal(hs_gf_mul(&gf, a, 0), 0);
            if (a && b) /* no zero divisors */
                assert_int_not_equal(hs_gf_mul(&gf, a, b), 0);
        }
    }
}

static void test_inverses(void **state)
{
    (void)state;
    /* Exhaustive for k <= 16: every nonzero element has an inverse. */
    for (unsigned k = HS_GF_KMIN; k <= 16; k++) {
        hs_gf gf;
        hs_gf_init(&gf, k);
        for (uint32_t a = 1; a <= gf.mask; a++)
            assert_int_equal(hs_gf_mul(&gf, a, hs_gf_inv(&gf, a)), 1);
        assert_int_equal(hs_gf_inv(&gf, 0), 0);
    }
    for (unsigned k = 17; k <= HS_GF_KMAX; k++) {
        hs_gf gf;
        hs_gf_init(&gf, k);
        for (int i = 0; i < 2000; i++) {
            uint32_t a = ((uint32_t)rnd() & gf.mask) | 1;
            assert_int_equal(hs_gf_mul(&gf, a, hs_gf_inv(&gf, a)), 1);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polys_irreducible),
        cmocka_unit_test(test_init_range),
        cmocka_unit_test(test_mul_reference),
        cmocka_unit_test(test_clmul_agrees),
        cmocka_unit_test(test_axioms),
        cmocka_unit_test(test_inverses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
