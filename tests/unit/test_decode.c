/* Decoders: WHT correctness, naive == blind fast exactly (integer for
 * integer), route-aware semantics, estimate arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TEST_RNG_SEED 7
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/hash.h"


static void test_wht_direct(void **state)
{
    (void)state;
    for (unsigned logn = 0; logn <= 12; logn++) {
        size_t n = (size_t)1 << logn;
        int64_t *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
        for (size_t i = 0; i < n; i++)
            v[i] = (int64_t)(rnd() % 2001) - 1000;
        memcpy(w, v, n * sizeof *v);
        hs_wht(w, logn);
        for (size_t d = 0; d < n; d++) {
            int64_t sum = 0;
            for (size_t a = 0; a < n; a++)
                sum += __builtin_parityll(a & d) ? -v[a] : v[a];
            assert_int_equal(w[d], sum);
        }
        hs_wht(w, logn); /* H H = n I */
        for (size_t i = 0; i < n; i++)
            assert_int_equal(w[i], (int64_t)n * v[i]);
        free(v);
        free(w);
    }
}

static void random_samples(const hs_scheme *s, hs_sample *smp, size_t n)
{
    uint32_t vmask = s->exact ? s->gf.mask : (1u << s->b) - 1;
    for (size_t i = 0; i < n; i++) {
        smp[i].pid = (uint32_t)rnd() & s->gf.mask;
        unsigned r = rnd() % 50;
        /* Mostly valid hops; some overflowed and unmarked records. */
        smp[i].f.hop = r == 0 ? (uint8_t)s->hop_ovf : r == 1 ? 0 : (uint8_t)(1 + rnd() % s->hop_max);
        smp[i].f.flag = (rnd() % 3) == 0;
        smp[i].f.bits = (uint32_t)rnd() & vmask;
        if (s->exact && smp[i].f.bits == 0)
            smp[i].f.bits = 1;
    }
}

static void wht_textbook(int64_t *v, unsigned logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t h = 1; h < n; h *= 2)
        for (size_t i = 0; i < n; i += 2 * h)
            for (size_t j = i; j < i + h; j++) {
                int64_t x = v[j], y = v[j + h];
                v[j] = x + y;
                v[j + h] = x - y;
            }
}

/* The blocked, recursive, vectorised transforms give the textbook's
 * integers at every size (leaf blocks are 2^11 / 2^12 entries, so 2^18
 * runs two levels of recursion), also on arrays that are only
 * element-aligned. */
static void test_wht_sizes_and_alignment(void **state)
{
    (void)state;
    for (unsigned logn = 0; logn <= 18; logn++) {
        size_t n = (size_t)1 << logn;
        int64_t *ref = malloc(n * sizeof *ref), *buf = malloc((n + 1) * sizeof *buf);
        int32_t *buf32 = malloc((n + 1) * sizeof *buf32);
        int64_t *v = buf + (logn & 1); /* odd sizes: 8 bytes off 16-byte alignment */
        int32_t *v32 = buf32 + (logn % 3 == 1);
        for (size_t i = 0; i < n; i++) {
            ref[i] = (int64_t)(rnd() % 201) - 100;
            v[i] = ref[i];
            v32[i] = (int32_t)ref[i];
        }
        wht_textbook(ref, logn);
        hs_wht(v, logn);
        hs_wht32(v32, logn);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(v[i], ref[i]);
            assert_int_equal(v32[i], ref[i]);
        }
        free(ref);
        free(buf);
        free(buf32);
    }
}

/* hs_decode_fast runs on 32-bit lanes when sum |counter| <= INT32_MAX and
 * on 64-bit lanes above: exact at both sides of the boundary. */
static void test_fast_narrow_and_wide(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 13;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    uint32_t n = ct.n;
    hs_linksum *out = calloc(n, sizeof *out);
    ct.t[0] = INT32_MAX; /* narrow: every output is INT32_MAX */
    assert_int_equal(hs_decode_fast(&ct, out, n, NULL), 0);
    for (uint32_t d = 0; d < n; d++)
        assert_int_equal(out[d].s, INT32_MAX);
    ct.t[1] = 1; /* wide: out[d] = INT32_MAX + (-1)^(d & 1) */
    assert_int_equal(hs_decode_fast(&ct, out, n, NULL), 0);
    for (uint32_t d = 0; d < n; d++)
        assert_int_equal(out[d].s, (d & 1) ? (int64_t)INT32_MAX - 1 : (int64_t)INT32_MAX + 1);

    /* Linearity across the boundary: counters of real records decoded on
     * 32-bit lanes, then scaled by 2^33 and decoded on 64-bit lanes. */
    hs_counters_reset(&ct);
    hs_sample *smp = malloc(20000 * sizeof *smp);
    random_samples(&s, smp, 20000);
    assert_int_equal(hs_counters_from_samples(&ct, &s, smp, 20000), 0);
    assert_int_equal(hs_decode_fast(&ct, out, n, NULL), 0);
    hs_linksum *wide = calloc(n, sizeof *wide);
    for (uint32_t a = 0; a < n; a++) {
        ct.t[a] *= (int64_t)1 << 33;
        ct.c[a] *= (int64_t)1 << 33;
    }
    assert_int_equal(hs_decode_fast(&ct, wide, n, NULL), 0);
    for (uint32_t d = 0; d < n; d++) {
        assert_int_equal(wide[d].s, out[d].s * ((int64_t)1 << 33));
        assert_int_equal(wide[d].c, out[d].c * ((int64_t)1 << 33));
    }
    free(smp);
    free(out);
    free(wide);
    hs_counters_free(&ct);
    hs_scheme_free(&s);
}

static void check_equal_sums(const hs_linksum *a, const hs_linksum *b)
{
    assert_int_equal(a->s, b->s);
    assert_int_equal(a->c, b->c);
    assert_int_equal(a->q, b->q);
    assert_int_equal(a->qc, b->qc);
    assert_int_equal(a->h2, b->h2);
    assert_int_equal(a->h2c, b->h2c);
}

static void naive_vs_fast(unsigned k, unsigned c, unsigned b, int exact, size_t n, uint32_t nlinks)
{
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = k;
    cfg.hop_bits = c;
    cfg.hash_bits = b;
    cfg.exact = exact;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    hs_sample *smp = malloc(n * sizeof *smp);
    random_samples(&s, smp, n);
    uint32_t *links = malloc(nlinks * sizeof *links);
    for (uint32_t i = 0; i < nlinks; i++) /* spread over the whole ID space */
        links[i] = (uint32_t)(((uint64_t)i * s.gf.mask) / (nlinks - 1 ? nlinks - 1 : 1));
    hs_linksum *naive = calloc(nlinks, sizeof *naive);
    hs_linksum *fast = calloc((size_t)1 << k, sizeof *fast);
    hs_totals tn, tf;
    assert_int_equal(hs_decode_naive(&s, smp, n, links, nlinks, naive, &tn), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    assert_int_equal(hs_counters_from_samples(&ct, &s, smp, n), 0);
    assert_int_equal(hs_decode_fast(&ct, fast, 1u << k, &tf), 0);
    assert_memory_equal(&tn, &tf, sizeof tn);
    assert_true(tn.overflow > 0 && tn.unmarked > 0 && tn.flagged > 0);
    for (uint32_t i = 0; i < nlinks; i++)
        check_equal_sums(&naive[i], &fast[links[i]]);
    hs_counters_free(&ct);
    free(naive);
    free(fast);
    free(links);
    free(smp);
    hs_scheme_free(&s);
}

static void test_naive_equals_fast(void **state)
{
    (void)state;
    naive_vs_fast(4, 4, 1, 0, 3000, 16);    /* every ID */
    naive_vs_fast(8, 4, 1, 0, 5000, 256);
    naive_vs_fast(8, 3, 2, 0, 5000, 256);
    naive_vs_fast(11, 4, 3, 0, 4000, 2048);
    naive_vs_fast(10, 4, 8, 0, 2000, 1024);
    naive_vs_fast(16, 4, 1, 0, 20000, 300); /* 300 IDs spread over 2^16 */
    naive_vs_fast(12, 4, 1, 1, 5000, 4096); /* exact mode */
}

/* With every link as a candidate, the route-aware decoder is the naive one. */
static void test_route_all_candidates(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 6;
    cfg.hash_bits = 2;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    enum { N = 500, L = 63 };
    hs_sample smp[N];
    random_samples(&s, smp, N);
    uint32_t *off = malloc((N + 1) * sizeof *off), *cand = malloc((size_t)N * L * sizeof *cand);
    uint32_t links[L];
    for (uint32_t l = 0; l < L; l++)
        links[l] = l + 1;
    for (size_t r = 0; r <= N; r++)
        off[r] = (uint32_t)(r * L);
    for (size_t r = 0; r < N; r++)
        memcpy(cand + r * L, links, sizeof links);
    hs_linksum route[L + 1], naive[L];
    hs_totals tr, tn;
    assert_int_equal(hs_decode_route(&s, smp, N, off, cand, 0, route, L + 1, &tr), 0);
    assert_int_equal(hs_decode_naive(&s, smp, N, links, L, naive, &tn), 0);
    assert_memory_equal(&tr, &tn, sizeof tr);
    for (uint32_t l = 0; l < L; l++) {
        check_equal_sums(&route[l + 1], &naive[l]);
        assert_int_equal(route[l + 1].npath, 0);
    }
    /* Candidate IDs beyond out[] are out of range; IDs >= 2^k are not
     * link IDs at all.  Either way out[] is left as it was. */
    hs_linksum before[L + 1];
    memcpy(before, route, sizeof route);
    assert_int_equal(hs_decode_route(&s, smp, N, off, cand, 0, route, L, &tr), HS_ERANGE);
    assert_memory_equal(route, before, sizeof route);
    cand[5] = L + 1; /* 64 = 2^k */
    assert_int_equal(hs_decode_route(&s, smp, N, off, cand, 0, route, L + 1, &tr), HS_EINVAL);
    assert_memory_equal(route, before, sizeof route);
    free(off);
    free(cand);
    hs_scheme_free(&s);
}

/* One packet over path {1, 2}, h = 2, sampled link 2, flagged; exact paths.
 * By linearity H(p,1) + H(p,2) = H(p,3), so link 1 gets 2 (-1)^H(p,3). */
static void test_route_exact_path_and_estimates(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 4;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    for (uint32_t p = 0; p < 16; p++) {
        hs_sample smp = {.pid = p, .f = {.hop = 2, .flag = 1, .bits = hs_hash_bits(&s, p, 2)}};
        uint32_t off[2] = {0, 2}, cand[2] = {1, 2};
        hs_linksum out[4];
        hs_totals tot;
        assert_int_equal(hs_decode_route(&s, &smp, 1, off, cand, 1, out, 4, &tot), 0);
        assert_int_equal(out[2].s, 2);
        assert_int_equal(out[2].c, 2);
        assert_int_equal(out[1].s, 2 * (1 - 2 * (int)hs_hash_bits(&s, p, 3)));
        assert_int_equal(out[1].npath, 1);
        assert_int_equal(out[2].npath, 1);
        assert_int_equal(out[3].npath, 0);
        assert_int_equal(out[3].s, 0);
        assert_int_equal(out[2].h2c, 4);
        hs_estimate e;
        hs_estimate_from_sums(&s, &out[2], 1, &e);
        /* b = 1: Var C = H2c - C = 4 - 2; traffic exact: S = 1, Var S = 0. */
        assert_true(e.traffic == 1 && e.traffic_se == 0);
        assert_true(e.congested == 2);
        assert_true(fabs(e.congested_se - sqrt(2)) < 1e-12);
        assert_true(e.cf_valid && e.cf == 2);
        assert_true(fabs(e.cf_se - sqrt(2)) < 1e-12);
        hs_estimate_from_sums(&s, &out[3], 1, &e);
        assert_false(e.cf_valid);
    }
    hs_scheme_free(&s);
}

/* Blind estimate arithmetic for b = 2 on hand-made sums. */
static void test_estimate_formula(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 5;
    cfg.hash_bits = 2;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    hs_linksum ls = {.s = 200, .c = 60, .q = 600, .qc = 150, .h2 = 900, .h2c = 300};
    hs_estimate e;
    hs_estimate_from_sums(&s, &ls, 0, &e);
    /* S = 100, C = 30, Q = 300, QC = 75;  Var S = 900/2 + 300/2 - 100 = 500;
     * Var C = 150 + 37.5 - 30 = 157.5 = Cov;  cf = 0.3;
     * Var cf = (157.5 - 2*0.3*157.5 + 0.09*500) / 10000 = 0.010800 */
    assert_true(e.traffic == 100 && e.congested == 30);
    assert_true(fabs(e.traffic_se - sqrt(500)) < 1e-12);
    assert_true(fabs(e.congested_se - sqrt(157.5)) < 1e-12);
    assert_true(fabs(e.cf - 0.3) < 1e-15);
    assert_true(fabs(e.cf_se - sqrt(0.0108)) < 1e-12);
    hs_scheme_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wht_direct),
        cmocka_unit_test(test_wht_sizes_and_alignment),
        cmocka_unit_test(test_fast_narrow_and_wide),
        cmocka_unit_test(test_naive_equals_fast),
        cmocka_unit_test(test_route_all_candidates),
        cmocka_unit_test(test_route_exact_path_and_estimates),
        cmocka_unit_test(test_estimate_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
