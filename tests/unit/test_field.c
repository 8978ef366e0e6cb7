/* The in-band field: parameters, codec, a_j rows, marking, counters. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TEST_RNG_SEED 42
#include "test_util.h"

#include <math.h>
#include <string.h>
#include "hopscope/hash.h"


static int make(hs_scheme *s, unsigned k, uint64_t nlinks, unsigned c, unsigned b, int exact)
{
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = k;
    cfg.nlinks = nlinks;
    cfg.hop_bits = c;
    cfg.hash_bits = b;
    cfg.exact = exact;
    return hs_scheme_init(s, &cfg, NULL);
}

static void test_params(void **state)
{
    (void)state;
    hs_scheme s;
    hs_error err;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    assert_int_equal(cfg.hop_bits, 4);
    assert_int_equal(cfg.hash_bits, 1);

    assert_int_equal(make(&s, 3, 0, 4, 1, 0), HS_EINVAL);
    assert_int_equal(make(&s, 33, 0, 4, 1, 0), HS_EINVAL);
    assert_int_equal(make(&s, 8, 0, 4, 0, 0), HS_EINVAL);
    assert_int_equal(make(&s, 8, 0, 4, 9, 0), HS_EINVAL);
    assert_int_equal(make(&s, 8, 0, 1, 1, 0), HS_EINVAL);
    assert_int_equal(make(&s, 8, 0, 9, 1, 0), HS_EINVAL);
    assert_int_equal(make(&s, 8, 256, 4, 1, 0), HS_ERANGE); /* IDs 1..255 only */
    cfg.k = 8;
    cfg.nlinks = 300;
    assert_int_equal(hs_scheme_init(&s, &cfg, &err), HS_ERANGE);
    assert_string_equal(err.msg, "k=8 gives link IDs 1..255, too few for 300 links (need k >= 9)");

    assert_int_equal(hs_link_bits(0), 4);
    assert_int_equal(hs_link_bits(15), 4);
    assert_int_equal(hs_link_bits(16), 5);
    assert_int_equal(hs_link_bits(255), 8);
    assert_int_equal(hs_link_bits(256), 9);
    assert_int_equal(hs_link_bits(0xfffffffeull), 32);
    assert_int_equal(hs_link_bits(0xffffffffull), 32); /* IDs 1..2^32-1 */
    assert_int_equal(hs_link_bits(0x100000000ull), 0);
    assert_int_equal(make(&s, 6, 0, 4, 7, 0), HS_EINVAL); /* b > k */

    assert_int_equal(make(&s, 0, 1000, 4, 1, 0), 0);
    assert_int_equal(s.k, 10);
    assert_int_equal(s.field_bits, 6); /* the default 6-bit field */
    assert_int_equal(s.hop_max, 14);
    hs_scheme_free(&s);
    assert_int_equal(make(&s, 0, 1000, 3, 1, 0), 0);
    assert_int_equal(s.field_bits, 5); /* c = 3 gives 5 bits */
    assert_int_equal(s.hop_max, 6);
    hs_scheme_free(&s);
    assert_int_equal(make(&s, 0, 1000, 4, 1, 1), 0);
    assert_int_equal(s.field_bits, 4 + 10 + 1);
    assert_int_equal(s.b, 0);
    hs_scheme_free(&s);
}

static void test_pack(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 10, 0, 4, 3, 0), 0);
    hs_field f = {.hop = 5, .flag = 1, .bits = 6}, g;
    uint64_t v = hs_field_pack(&s, &f);
    assert_int_equal(v, 5 | (6 << 4) | (1 << 7));
    assert_int_equal(hs_field_unpack(&s, v, &g), 0);
    assert_int_equal(g.hop, 5);
    assert_int_equal(g.flag, 1);
    assert_int_equal(g.bits, 6);
    assert_int_equal(hs_field_unpack(&s, 1u << 8, &g), HS_EINVAL);
    /* Every value of the field round-trips. */
    for (uint64_t x = 0; x < (1u << s.field_bits); x++) {
        assert_int_equal(hs_field_unpack(&s, x, &g), 0);
        assert_int_equal(hs_field_pack(&s, &g), x);
    }
    hs_scheme_free(&s);

    assert_int_equal(make(&s, 10, 0, 4, 1, 1), 0);
    f = (hs_field){.hop = 3, .flag = 0, .bits = 1000};
    assert_int_equal(hs_field_unpack(&s, hs_field_pack(&s, &f), &g), 0);
    assert_int_equal(g.bits, 1000);
    f.bits = 0; /* link ID 0 is never a link */
    assert_int_equal(hs_field_unpack(&s, hs_field_pack(&s, &f), &g), HS_EINVAL);
    hs_scheme_free(&s);
}

static void test_rows_match_product(void **state)
{
    (void)state;
    unsigned ks[] = {4, 7, 8, 13, 16, 21, 32};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        hs_scheme s;
        unsigned b = ks[i] < 8 ? ks[i] : 8; /* b <= k */
        assert_int_equal(make(&s, ks[i], 0, 4, b, 0), 0);
        for (int n = 0; n < 20000; n++) {
            uint32_t pid = (uint32_t)rnd() & s.gf.mask, d = (uint32_t)rnd() & s.gf.mask;
            uint32_t prod = hs_gf_mul(&s.gf, pid, d);
            assert_int_equal(hs_hash_bits(&s, pid, d), prod & ((1u << b) - 1));
            for (unsigned j = 0; j < b; j++)
                assert_int_equal(__builtin_parity(hs_hash_row(&s, j, pid) & d), (prod >> j) & 1);
        }
        hs_scheme_free(&s);
    }
}

static void test_packet_key(void **state)
{
    (void)state;
    assert_true(hs_packet_key(0, 1, 2, 3) == hs_packet_key(0, 1, 2, 3));
    assert_true(hs_packet_key(0, 1, 2, 3) != hs_packet_key(0, 2, 1, 3));
    assert_true(hs_packet_key(0, 1, 2, 3) != hs_packet_key(1, 1, 2, 3));
    assert_true(hs_packet_key(0, 1, 2, 3) != hs_packet_key(0, 1, 2, 4));
    /* pid is uniform over all 16 values of GF(2^4), 0 included: chi-square
     * with 15 degrees of freedom below 37.7 (p = 0.001). */
    hs_scheme s;
    assert_int_equal(make(&s, 4, 0, 4, 1, 0), 0);
    unsigned hist[16] = {0};
    const unsigned n = 160000;
    for (unsigned i = 0; i < n; i++)
        hist[hs_pid(&s, hs_packet_key(7, i % 64, i / 64 % 64, i / 4096))]++;
    double chi2 = 0, e = n / 16.0;
    for (int v = 0; v < 16; v++)
        chi2 += (hist[v] - e) * (hist[v] - e) / e;
    assert_true(hist[0] > 0);
    assert_true(chi2 < 37.7);
    hs_scheme_free(&s);
}

static void test_mark_hops_and_overflow(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 8, 0, 3, 1, 0), 0);
    hs_field f;
    hs_field_init(&f);
    for (unsigned h = 1; h <= 6; h++) {
        hs_mark(&s, &f, 99, h, 0);
        assert_int_equal(f.hop, h);
    }
    assert_false(hs_field_overflowed(&s, &f));
    hs_mark(&s, &f, 99, 7, 0); /* 7th transmission does not fit in 3 bits */
    assert_true(hs_field_overflowed(&s, &f));
    assert_int_equal(f.hop, 7);
    hs_mark(&s, &f, 99, 8, 1);
    assert_true(hs_field_overflowed(&s, &f));

    /* Counters exclude overflowed and unmarked packets and count them. */
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    hs_counters_update(&ct, &s, 5, &f);
    hs_field z;
    hs_field_init(&z);
    hs_counters_update(&ct, &s, 5, &z);
    assert_int_equal(ct.overflow, 1);
    assert_int_equal(ct.unmarked, 1);
    assert_int_equal(ct.packets, 0);
    for (uint32_t a = 0; a < ct.n; a++)
        assert_int_equal(ct.t[a], 0);
    hs_counters_free(&ct);
    hs_scheme_free(&s);
}

/* Reservoir sampling picks each hop of a path with probability 1/L, and the
 * flag speaks of the sampled link.  Exact mode stores the link itself. */
static void test_mark_uniform_sample(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 8, 0, 4, 1, 1), 0);
    enum { L = 7, N = 140000 };
    unsigned hist[L + 1] = {0};
    for (unsigned p = 0; p < N; p++) {
        uint64_t key = hs_packet_key(3, p % 97, p / 97, p);
        hs_field f;
        hs_field_init(&f);
        for (uint32_t link = 1; link <= L; link++)
            hs_mark(&s, &f, key, link, link == 3);
        assert_int_equal(f.hop, L);
        assert_int_equal(f.flag, f.bits == 3);
        hist[f.bits]++;
    }
    /* Binomial(N, 1/L): sd = 118; allow 5 sd. */
    double mean = (double)N / L, sd = sqrt(N * (1.0 / L) * (1 - 1.0 / L));
    for (unsigned l = 1; l <= L; l++)
        assert_true(fabs(hist[l] - mean) < 5 * sd);
    hs_scheme_free(&s);
}

static void test_counters_add(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 6, 0, 4, 2, 0), 0);
    hs_counters a, b, all;
    assert_int_equal(hs_counters_init(&a, &s, NULL), 0);
    assert_int_equal(hs_counters_init(&b, &s, NULL), 0);
    assert_int_equal(hs_counters_init(&all, &s, NULL), 0);
    assert_int_equal(hs_counters_bytes(&a), 4 * 2 * 64 * 8);
    for (int i = 0; i < 1000; i++) {
        hs_field f = {.hop = (uint8_t)(1 + rnd() % 6), .flag = rnd() & 1, .bits = rnd() & 3};
        uint32_t pid = rnd() & 63;
        hs_counters_update(i % 2 ? &a : &b, &s, pid, &f);
        hs_counters_update(&all, &s, pid, &f);
    }
    assert_int_equal(hs_counters_add(&a, &b), 0);
    assert_memory_equal(a.t, all.t, 2 * 64 * sizeof(int64_t));
    assert_memory_equal(a.c2, all.c2, 2 * 64 * sizeof(int64_t));
    assert_int_equal(a.packets, 1000);
    assert_int_equal(a.sum_h2, all.sum_h2);
    hs_scheme s1;
    assert_int_equal(make(&s1, 6, 0, 4, 1, 0), 0);
    hs_counters other;
    assert_int_equal(hs_counters_init(&other, &s1, NULL), 0);
    assert_int_equal(hs_counters_add(&a, &other), HS_EINVAL);
    hs_counters_free(&other);
    hs_counters_free(&a);
    hs_counters_free(&b);
    hs_counters_free(&all);
    hs_scheme_free(&s1);
    hs_scheme_free(&s);
}

static void test_counters_kmax(void **state)
{
    (void)state;
    hs_scheme s;
    hs_error err;
    assert_int_equal(make(&s, 27, 0, 4, 1, 0), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, &err), HS_ENOTSUP);
    assert_non_null(strstr(err.msg, "k=27"));
    hs_scheme_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_pack),
        cmocka_unit_test(test_rows_match_product),
        cmocka_unit_test(test_packet_key),
        cmocka_unit_test(test_mark_hops_and_overflow),
        cmocka_unit_test(test_mark_uniform_sample),
        cmocka_unit_test(test_counters_add),
        cmocka_unit_test(test_counters_kmax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
