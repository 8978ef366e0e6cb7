/* The public hash API at its edges: every shape checked, IDs >= 2^k and
 * invalid fields rejected with HS_EINVAL, counters near INT64_MAX giving
 * HS_EOVERFLOW, and outputs untouched on every error.  Then a fuzzer that
 * drives random shapes and values through every public function and checks
 * each answer against an oracle written here from the documented contract
 * (validity by the header's rules, sums in 128-bit arithmetic).
 *
 * The fuzzer runs HS_FUZZ_ITERS iterations (default 2000: a few seconds
 * under ASan+UBSan) from seed HS_FUZZ_SEED (default 1); tests/fuzz_hash.sh
 * runs it longer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TEST_RNG_SEED 20
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include "hopscope/hash.h"

static int make(hs_scheme *s, unsigned k, unsigned c, unsigned b, int exact)
{
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = k;
    cfg.hop_bits = c;
    cfg.hash_bits = b;
    cfg.exact = exact;
    return hs_scheme_init(s, &cfg, NULL);
}

/* A deep copy of counters, to prove a failed call changed nothing. */
typedef struct snap {
    hs_counters hdr;
    int64_t *arr[4];
    size_t len;
} snap;

static void snap_take(snap *sn, const hs_counters *ct)
{
    sn->hdr = *ct;
    sn->len = (size_t)ct->b * ct->n;
    const int64_t *src[4] = {ct->t, ct->c, ct->t2, ct->c2};
    for (int x = 0; x < 4; x++) {
        sn->arr[x] = NULL;
        if (src[x]) {
            sn->arr[x] = malloc(sn->len * sizeof(int64_t));
            memcpy(sn->arr[x], src[x], sn->len * sizeof(int64_t));
        }
    }
}

static int snap_same(const snap *sn, const hs_counters *ct)
{
    if (memcmp(&sn->hdr, ct, sizeof *ct) != 0)
        return 0;
    const int64_t *cur[4] = {ct->t, ct->c, ct->t2, ct->c2};
    for (int x = 0; x < 4; x++)
        if (sn->arr[x] && memcmp(sn->arr[x], cur[x], sn->len * sizeof(int64_t)) != 0)
            return 0;
    return 1;
}

static void snap_free(snap *sn)
{
    for (int x = 0; x < 4; x++)
        free(sn->arr[x]);
}

/* ---- shapes ---------------------------------------------------------------- */

/* Counters made for b=2 fed with a b=1 scheme used to read past the end of
 * the scheme's row tables. */
static void test_from_samples_checks_shape(void **state)
{
    (void)state;
    hs_scheme s1, s2, s9, sx;
    assert_int_equal(make(&s1, 8, 4, 1, 0), 0);
    assert_int_equal(make(&s2, 8, 4, 2, 0), 0);
    assert_int_equal(make(&s9, 9, 4, 1, 0), 0);
    assert_int_equal(make(&sx, 8, 4, 1, 1), 0);
    hs_counters c2, c1;
    assert_int_equal(hs_counters_init(&c2, &s2, NULL), 0);
    assert_int_equal(hs_counters_init(&c1, &s1, NULL), 0);
    hs_sample smp[3] = {{.pid = 7, .f = {.hop = 2, .flag = 1, .bits = 1}},
                        {.pid = 255, .f = {.hop = 1, .flag = 0, .bits = 0}},
                        {.pid = 0, .f = {.hop = 3, .flag = 1, .bits = 1}}};
    snap sn;
    snap_take(&sn, &c2);
    assert_int_equal(hs_counters_from_samples(&c2, &s1, smp, 3), HS_EINVAL);
    assert_int_equal(hs_counters_from_samples(&c1, &s2, smp, 3), HS_EINVAL);
    assert_int_equal(hs_counters_from_samples(&c2, &s9, smp, 3), HS_EINVAL);
    assert_int_equal(hs_counters_from_samples(&c1, &sx, smp, 3), HS_EINVAL);
    assert_true(snap_same(&sn, &c2));
    /* The same checks in the per-packet update and in add. */
    assert_int_equal(hs_counters_update(&c2, &s1, 7, &smp[0].f), HS_EINVAL);
    assert_int_equal(hs_counters_add(&c2, &c1), HS_EINVAL);
    assert_true(snap_same(&sn, &c2));
    /* And the matching scheme works: 3 packets, 2 flagged, h^2 = 4+1+9. */
    assert_int_equal(hs_counters_from_samples(&c2, &s2, smp, 3), 0);
    assert_int_equal(c2.packets, 3);
    assert_int_equal(c2.flagged, 2);
    assert_int_equal(c2.sum_h2, 14);
    assert_int_equal(c2.sum_h2_flag, 13);
    /* A counters struct that was never initialised (or was freed). */
    hs_counters zero;
    memset(&zero, 0, sizeof zero);
    hs_linksum out[4];
    assert_int_equal(hs_counters_from_samples(&zero, &s1, smp, 3), HS_EINVAL);
    assert_int_equal(hs_decode_fast(&zero, out, 4, NULL), HS_EINVAL);
    assert_int_equal(hs_decode_fast(&c2, out, 257, NULL), HS_EINVAL);
    snap_free(&sn);
    hs_counters_free(&c1);
    hs_counters_free(&c2);
    hs_scheme_free(&s1);
    hs_scheme_free(&s2);
    hs_scheme_free(&s9);
    hs_scheme_free(&sx);
}

/* ---- IDs >= 2^k and invalid fields -------------------------------------------- */

static void test_ids_beyond_k_rejected(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 8, 4, 2, 0), 0);
    const uint32_t big = 256; /* 2^k */

    /* Marking: link 0 and links >= 2^k; f unchanged. */
    hs_field f = {.hop = 2, .flag = 0, .bits = 3}, g = f;
    assert_int_equal(hs_mark(&s, &f, 42, big, 1), HS_EINVAL);
    assert_int_equal(hs_mark(&s, &f, 42, 0xffffffffu, 1), HS_EINVAL);
    assert_int_equal(hs_mark(&s, &f, 42, 0, 1), HS_EINVAL);
    assert_true(f.hop == g.hop && f.flag == g.flag && f.bits == g.bits);
    assert_int_equal(hs_mark(&s, &f, 42, 255, 1), 0);
    assert_int_equal(f.hop, 3);

    /* Naive decoder: a link or a pid >= 2^k; out and tot unchanged. */
    hs_sample smp[2] = {{.pid = 9, .f = {.hop = 2, .flag = 1, .bits = 2}},
                        {.pid = 200, .f = {.hop = 1, .flag = 0, .bits = 1}}};
    uint32_t links[3] = {1, 255, big};
    hs_linksum out[3], before[3];
    hs_totals tot, tot0;
    memset(out, 0xab, sizeof out);
    memset(&tot, 0xcd, sizeof tot);
    memcpy(before, out, sizeof out);
    tot0 = tot;
    assert_int_equal(hs_decode_naive(&s, smp, 2, links, 3, out, &tot), HS_EINVAL);
    smp[1].pid = big;
    assert_int_equal(hs_decode_naive(&s, smp, 2, links, 2, out, &tot), HS_EINVAL);
    assert_memory_equal(out, before, sizeof out);
    assert_memory_equal(&tot, &tot0, sizeof tot);
    smp[1].pid = 200;
    assert_int_equal(hs_decode_naive(&s, smp, 2, links, 2, out, &tot), 0);
    assert_int_equal(tot.packets, 2);

    /* Route-aware decoder: a pid >= 2^k, a decreasing cand_off. */
    uint32_t off[3] = {0, 1, 2}, cand[2] = {5, 6};
    hs_linksum rout[8], rbefore[8];
    memset(rout, 0x5a, sizeof rout);
    memcpy(rbefore, rout, sizeof rout);
    smp[0].pid = big;
    assert_int_equal(hs_decode_route(&s, smp, 2, off, cand, 0, rout, 8, &tot), HS_EINVAL);
    smp[0].pid = 9;
    off[1] = 3; /* off[1] > off[2] */
    assert_int_equal(hs_decode_route(&s, smp, 2, off, cand, 0, rout, 8, &tot), HS_EINVAL);
    assert_memory_equal(rout, rbefore, sizeof rout);
    off[1] = 1;
    assert_int_equal(hs_decode_route(&s, smp, 2, off, cand, 0, rout, 8, &tot), 0);

    /* Counters: pid >= 2^k. */
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    assert_int_equal(hs_counters_update(&ct, &s, big, &smp[0].f), HS_EINVAL);
    smp[0].pid = 0x80000009u;
    assert_int_equal(hs_counters_from_samples(&ct, &s, smp, 2), HS_EINVAL);
    assert_int_equal(ct.packets + ct.overflow + ct.unmarked, 0);
    for (uint32_t a = 0; a < 2 * ct.n; a++)
        assert_int_equal(ct.t[a], 0);
    hs_counters_free(&ct);

    /* Value-returning functions cannot fail: they use the low k bits, and
     * the two multipliers agree on any operands. */
    assert_int_equal(hs_gf_mul_portable(&s.gf, 0x1ff, 0x302), hs_gf_mul_portable(&s.gf, 0xff, 0x02));
    if (hs_cpu_has_clmul())
        for (int i = 0; i < 1000; i++) {
            uint32_t a = (uint32_t)rnd(), b = (uint32_t)rnd();
            assert_int_equal(hs_gf_mul_clmul(&s.gf, a, b), hs_gf_mul_portable(&s.gf, a, b));
        }
    assert_int_equal(hs_hash_bits(&s, 9 | big, 7 | big), hs_hash_bits(&s, 9, 7));
    assert_int_equal(hs_hash_row(&s, 1, 9 | big), hs_hash_row(&s, 1, 9));
    assert_int_equal(hs_hash_row(&s, 2, 9), 0); /* j >= b: no such row */
    hs_scheme_free(&s);
}

/* Fields the codec cannot produce disagree between decoders (a flag of 2
 * counted as flagged by one and not by the other); they are rejected. */
static void test_invalid_fields_rejected(void **state)
{
    (void)state;
    hs_scheme s, x;
    assert_int_equal(make(&s, 6, 3, 1, 0), 0); /* hop_ovf 7 */
    assert_int_equal(make(&x, 6, 3, 1, 1), 0);
    hs_counters ct, cx;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    assert_int_equal(hs_counters_init(&cx, &x, NULL), 0);
    const hs_field bad[] = {{.hop = 8, .flag = 0, .bits = 0},   /* hop above 2^c - 1 */
                            {.hop = 1, .flag = 2, .bits = 0},   /* flag above 1 */
                            {.hop = 1, .flag = 0, .bits = 2}};  /* 2 bits for b=1 */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hs_sample r = {.pid = 3, .f = bad[i]};
        hs_field f = bad[i];
        hs_linksum out;
        uint32_t link = 1;
        assert_int_equal(hs_counters_update(&ct, &s, 3, &bad[i]), HS_EINVAL);
        assert_int_equal(hs_counters_from_samples(&ct, &s, &r, 1), HS_EINVAL);
        assert_int_equal(hs_decode_naive(&s, &r, 1, &link, 1, &out, NULL), HS_EINVAL);
        assert_int_equal(hs_mark(&s, &f, 1, 1, 0), HS_EINVAL);
    }
    /* Exact mode: a counted record must name a link (1..2^k-1). */
    const hs_field xbad[] = {{.hop = 2, .flag = 0, .bits = 0}, {.hop = 2, .flag = 0, .bits = 64}};
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(hs_counters_update(&cx, &x, 3, &xbad[i]), HS_EINVAL);
    hs_field unm = {.hop = 0, .flag = 0, .bits = 0}, ovf = {.hop = 7, .flag = 0, .bits = 0};
    assert_int_equal(hs_counters_update(&cx, &x, 3, &unm), 0);
    assert_int_equal(hs_counters_update(&cx, &x, 3, &ovf), 0);
    assert_int_equal(cx.unmarked, 1);
    assert_int_equal(cx.overflow, 1);
    assert_int_equal(ct.packets + ct.overflow + ct.unmarked, 0);
    /* hs_field_unpack leaves *f alone when it rejects. */
    hs_field f = {.hop = 5, .flag = 1, .bits = 9}, g = f;
    assert_int_equal(hs_field_unpack(&x, 2, &f), HS_EINVAL); /* hop 2, link 0 */
    assert_true(f.hop == g.hop && f.flag == g.flag && f.bits == g.bits);
    /* hs_field_pack truncates each part to its width. */
    hs_field wide = {.hop = 9, .flag = 1, .bits = 3};
    assert_int_equal(hs_field_pack(&s, &wide), 1u | (1u << 3) | (1u << 4));
    hs_counters_free(&ct);
    hs_counters_free(&cx);
    hs_scheme_free(&s);
    hs_scheme_free(&x);
}

/* ---- overflow ---------------------------------------------------------------- */

static void test_update_overflow(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 8, 4, 2, 0), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    const uint32_t pid = 77;
    size_t a0 = hs_hash_row(&s, 0, pid), a1 = ct.n + hs_hash_row(&s, 1, pid);
    hs_field f = {.hop = 3, .flag = 1, .bits = 2}; /* +h at a0, -h at a1 */

    ct.t[a0] = INT64_MAX - 2;
    snap sn;
    snap_take(&sn, &ct);
    assert_int_equal(hs_counters_update(&ct, &s, pid, &f), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &ct));
    snap_free(&sn);
    ct.t[a0] = INT64_MAX - 3;
    assert_int_equal(hs_counters_update(&ct, &s, pid, &f), 0);
    assert_int_equal(ct.t[a0], INT64_MAX);
    assert_int_equal(ct.t[a1], -3);
    assert_int_equal(ct.c2[a1], -9);

    /* The negative side, the h^2 twins and the totals. */
    hs_counters_reset(&ct);
    ct.c[a1] = INT64_MIN + 2;
    assert_int_equal(hs_counters_update(&ct, &s, pid, &f), HS_EOVERFLOW);
    ct.c[a1] = 0;
    ct.t2[a0] = INT64_MAX - 8;
    assert_int_equal(hs_counters_update(&ct, &s, pid, &f), HS_EOVERFLOW);
    ct.t2[a0] = 0;
    ct.sum_h2 = INT64_MAX - 8;
    assert_int_equal(hs_counters_update(&ct, &s, pid, &f), HS_EOVERFLOW);
    ct.sum_h2 = 0;
    ct.packets = UINT64_MAX;
    assert_int_equal(hs_counters_update(&ct, &s, pid, &f), HS_EOVERFLOW);
    ct.packets = 0;
    ct.unmarked = UINT64_MAX;
    hs_field z = {0};
    assert_int_equal(hs_counters_update(&ct, &s, pid, &z), HS_EOVERFLOW);
    ct.unmarked = 0;
    for (size_t i = 0; i < 2 * ct.n; i++)
        assert_true(ct.t[i] == 0 && ct.c[i] == 0 && ct.t2[i] == 0 && ct.c2[i] == 0);
    assert_int_equal(ct.packets, 0);

    /* from_samples: the third record overflows; the first two are undone. */
    hs_sample smp[3] = {{.pid = 1, .f = {.hop = 2, .flag = 1, .bits = 0}},
                        {.pid = 2, .f = {.hop = 1, .flag = 0, .bits = 3}},
                        {.pid = pid, .f = f}};
    assert_true(hs_hash_row(&s, 0, 1) != a0 && hs_hash_row(&s, 0, 2) != a0);
    ct.t[a0] = INT64_MAX - 2;
    snap_take(&sn, &ct);
    assert_int_equal(hs_counters_from_samples(&ct, &s, smp, 3), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &ct));
    snap_free(&sn);
    assert_int_equal(hs_counters_from_samples(&ct, &s, smp, 2), 0);
    assert_int_equal(ct.packets, 2);
    hs_counters_free(&ct);
    hs_scheme_free(&s);
}

/* The same through the short path for the default scheme (b = 1). */
static void test_update_overflow_b1(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 10, 4, 1, 0), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    const uint32_t pid = 1000;
    size_t a = hs_hash_row(&s, 0, pid);
    hs_field up = {.hop = 3, .flag = 0, .bits = 0}, down = {.hop = 3, .flag = 1, .bits = 1};
    ct.t[a] = INT64_MAX - 2;
    snap sn;
    snap_take(&sn, &ct);
    assert_int_equal(hs_counters_update(&ct, &s, pid, &up), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &ct));
    snap_free(&sn);
    ct.t[a] = 0;
    ct.c[a] = INT64_MIN + 2; /* flagged, sign -1: c would go below INT64_MIN */
    snap_take(&sn, &ct);
    assert_int_equal(hs_counters_update(&ct, &s, pid, &down), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &ct));
    snap_free(&sn);
    ct.c[a] = INT64_MIN + 3;
    assert_int_equal(hs_counters_update(&ct, &s, pid, &down), 0);
    assert_int_equal(ct.c[a], INT64_MIN);
    assert_int_equal(ct.t[a], -3);
    assert_int_equal(ct.packets, 1);
    assert_int_equal(ct.flagged, 1);
    assert_int_equal(ct.sum_h2_flag, 9);
    ct.flagged = UINT64_MAX;
    assert_int_equal(hs_counters_update(&ct, &s, 1, &down), HS_EOVERFLOW);
    assert_int_equal(hs_counters_update(&ct, &s, 1, &up), 0); /* not flagged: fine */
    ct.overflow = UINT64_MAX;
    hs_field ovf = {.hop = 15, .flag = 0, .bits = 0};
    assert_int_equal(hs_counters_update(&ct, &s, 1, &ovf), HS_EOVERFLOW);
    assert_int_equal(ct.packets, 2);
    /* Invalid packets still get HS_EINVAL on this path. */
    hs_field flag2 = {.hop = 1, .flag = 2, .bits = 0};
    assert_int_equal(hs_counters_update(&ct, &s, 1, &flag2), HS_EINVAL);
    assert_int_equal(hs_counters_update(&ct, &s, 1024, &up), HS_EINVAL);
    hs_counters_free(&ct);
    hs_scheme_free(&s);
}

static void test_add_overflow(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 6, 4, 2, 0), 0);
    hs_counters a, b;
    assert_int_equal(hs_counters_init(&a, &s, NULL), 0);
    assert_int_equal(hs_counters_init(&b, &s, NULL), 0);
    size_t len = 2 * a.n;
    for (size_t i = 0; i < len; i++) {
        a.t[i] = a.c[i] = a.t2[i] = a.c2[i] = (int64_t)i;
        b.t[i] = b.c[i] = b.t2[i] = b.c2[i] = 1000 + (int64_t)i;
    }
    /* The last cell of the last array overflows after everything else was
     * added: all of it must be undone. */
    a.c2[len - 1] = INT64_MAX - 1000;
    snap sn;
    snap_take(&sn, &a);
    assert_int_equal(hs_counters_add(&a, &b), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &a));
    snap_free(&sn);
    /* Negative overflow, and a to itself. */
    a.c2[len - 1] = 0;
    a.t[3] = INT64_MIN / 2 - 1;
    snap_take(&sn, &a);
    assert_int_equal(hs_counters_add(&a, &a), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &a));
    snap_free(&sn);
    a.t[3] = INT64_MIN / 2;
    assert_int_equal(hs_counters_add(&a, &a), 0);
    assert_int_equal(a.t[3], INT64_MIN);
    assert_int_equal(a.t[5], 10);
    /* Totals. */
    a.sum_h2_flag = INT64_MAX;
    b.sum_h2_flag = 1;
    snap_take(&sn, &a);
    assert_int_equal(hs_counters_add(&a, &b), HS_EOVERFLOW);
    assert_true(snap_same(&sn, &a));
    snap_free(&sn);
    hs_counters_free(&a);
    hs_counters_free(&b);
    hs_scheme_free(&s);
}

static void test_decode_fast_overflow(void **state)
{
    (void)state;
    hs_scheme s;
    assert_int_equal(make(&s, 5, 4, 1, 0), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    hs_linksum out[32], before[32];
    memset(out, 0x77, sizeof out);
    memcpy(before, out, sizeof out);
    /* A lone INT64_MAX transforms to INT64_MAX everywhere: exact. */
    ct.t[0] = INT64_MAX;
    assert_int_equal(hs_decode_fast(&ct, out, 32, NULL), 0);
    for (int d = 0; d < 32; d++)
        assert_int_equal(out[d].s, INT64_MAX);
    /* With one more unit somewhere, out[d] for some d would be 2^63. */
    memcpy(out, before, sizeof out);
    ct.t[17] = 1;
    assert_int_equal(hs_decode_fast(&ct, out, 32, NULL), HS_EOVERFLOW);
    assert_memory_equal(out, before, sizeof out);
    ct.t[17] = 0;
    ct.c[3] = INT64_MIN;
    assert_int_equal(hs_decode_fast(&ct, out, 32, NULL), HS_EOVERFLOW);
    assert_memory_equal(out, before, sizeof out);
    hs_counters_free(&ct);
    hs_scheme_free(&s);

    /* b = 2: the two arrays add into one output, so their sum counts. */
    assert_int_equal(make(&s, 5, 4, 2, 0), 0);
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    ct.t[0] = INT64_MAX / 2 + 1;
    ct.t[32] = INT64_MAX / 2 + 1;
    assert_int_equal(hs_decode_fast(&ct, out, 32, NULL), HS_EOVERFLOW);
    ct.t[32] = INT64_MAX / 2;
    assert_int_equal(hs_decode_fast(&ct, out, 32, NULL), 0);
    assert_int_equal(out[9].s, INT64_MAX);
    hs_counters_free(&ct);
    hs_scheme_free(&s);

    /* hs_wht itself wraps (defined) beyond the exact range. */
    int64_t v[2] = {INT64_MAX, INT64_MAX};
    hs_wht(v, 1);
    assert_int_equal(v[0], -2);
    assert_int_equal(v[1], 0);
}

/* ---- the fuzzer --------------------------------------------------------------- */

/* Validity by the header's rules, written independently of hash/internal.h. */
static int oracle_field_ok(unsigned k, unsigned c, unsigned b, int exact, const hs_field *f)
{
    unsigned ovf = (1u << c) - 1;
    if (f->hop > ovf || f->flag > 1)
        return 0;
    if (exact) {
        if ((uint64_t)f->bits >= (1ull << k))
            return 0;
        if (f->bits == 0 && f->hop != 0 && f->hop != ovf)
            return 0;
        return 1;
    }
    return f->bits < (1u << b);
}

static uint32_t pick_id(unsigned k)
{
    switch (rnd() % 16) {
    case 0: return (uint32_t)1 << k;             /* just beyond */
    case 1: return (uint32_t)rnd();              /* anything */
    case 2: return 0;
    case 3: return (uint32_t)((1ull << k) - 1);  /* largest */
    default: return (uint32_t)(rnd() & ((1ull << k) - 1));
    }
}

static hs_field pick_field(unsigned k, unsigned c, unsigned b, int exact)
{
    hs_field f;
    unsigned ovf = (1u << c) - 1;
    unsigned r = (unsigned)(rnd() % 64);
    f.hop = r == 0 ? (uint8_t)rnd() : r == 1 ? 0 : r == 2 ? (uint8_t)ovf
                                       : (uint8_t)(1 + rnd() % (ovf - 1));
    f.flag = rnd() % 40 == 0 ? (uint8_t)rnd() : (uint8_t)(rnd() & 1);
    uint64_t vmask = exact ? (1ull << k) - 1 : (1ull << b) - 1;
    f.bits = rnd() % 40 == 0 ? (uint32_t)rnd() : (uint32_t)(rnd() & vmask);
    if (exact && f.bits == 0 && rnd() % 4)
        f.bits = 1;
    return f;
}

static int64_t pick_big(void)
{
    switch (rnd() % 4) {
    case 0: return INT64_MAX - (int64_t)(rnd() % 64);
    case 1: return INT64_MIN + (int64_t)(rnd() % 64);
    case 2: return (int64_t)(rnd() >> 1) * ((rnd() & 1) ? 1 : -1);
    default: return (int64_t)(rnd() % 2001) - 1000;
    }
}

static int field_eq(const hs_field *a, const hs_field *b)
{
    return a->hop == b->hop && a->flag == b->flag && a->bits == b->bits;
}

static int fits64(__int128 v)
{
    return v >= INT64_MIN && v <= INT64_MAX;
}

typedef struct fz {
    hs_scheme s;
    unsigned k, c, b;
    int exact;
    uint64_t *stat; /* per-outcome counts, to show every branch ran */
} fz;

enum { ST_OK, ST_EINVAL, ST_EOVERFLOW, ST_ERANGE, ST_N };

static void count_rc(fz *z, int rc)
{
    z->stat[rc == 0 ? ST_OK : rc == HS_EINVAL ? ST_EINVAL : rc == HS_EOVERFLOW ? ST_EOVERFLOW
                                                                           : ST_ERANGE]++;
}

/* from_samples with planted counter values; the oracle replays the records
 * in 128-bit arithmetic, cell by cell, in the same order. */
static void fuzz_counters(fz *z, const hs_sample *smp, size_t n, int all_valid)
{
    hs_counters ct;
    if (z->k > 11) /* keep dense arrays small: this part is O(2^k) */
        return;
    assert_int_equal(hs_counters_init(&ct, &z->s, NULL), 0);
    size_t len = (size_t)ct.b * ct.n;
    int64_t *arr[4] = {ct.t, ct.c, ct.t2, ct.c2};
    int narr = ct.t2 ? 4 : 2;
    unsigned plants = (unsigned)(rnd() % 3);
    for (unsigned p = 0; p < plants; p++)
        arr[rnd() % (unsigned)narr][rnd() % len] = pick_big();
    if (rnd() % 8 == 0)
        ct.sum_h2 = pick_big();

    /* Oracle. */
    __int128 *ref[4];
    for (int x = 0; x < 4; x++) {
        ref[x] = NULL;
        if (x < narr) {
            ref[x] = malloc(len * sizeof(__int128));
            for (size_t i = 0; i < len; i++)
                ref[x][i] = arr[x][i];
        }
    }
    __int128 sh2 = ct.sum_h2, sh2f = ct.sum_h2_flag;
    int expect_ovf = 0;
    unsigned ovfv = (1u << z->c) - 1;
    for (size_t r = 0; r < n && all_valid && !expect_ovf; r++) {
        const hs_field *f = &smp[r].f;
        if (f->hop == 0 || f->hop == ovfv)
            continue;
        __int128 h = f->hop, h2 = h * h;
        sh2 += h2;
        expect_ovf |= !fits64(sh2);
        if (f->flag) {
            sh2f += h2;
            expect_ovf |= !fits64(sh2f);
        }
        unsigned nb = z->exact ? 1 : z->b;
        for (unsigned j = 0; j < nb; j++) {
            size_t at = z->exact ? f->bits : (size_t)j * ct.n + hs_hash_row(&z->s, j, smp[r].pid);
            __int128 sg = (!z->exact && ((f->bits >> j) & 1)) ? -1 : 1;
            ref[0][at] += sg * h;
            expect_ovf |= !fits64(ref[0][at]);
            if (f->flag) {
                ref[1][at] += sg * h;
                expect_ovf |= !fits64(ref[1][at]);
            }
            if (narr == 4) {
                ref[2][at] += sg * h2;
                expect_ovf |= !fits64(ref[2][at]);
                if (f->flag) {
                    ref[3][at] += sg * h2;
                    expect_ovf |= !fits64(ref[3][at]);
                }
            }
        }
    }
    snap sn;
    snap_take(&sn, &ct);
    int rc = hs_counters_from_samples(&ct, &z->s, smp, n);
    count_rc(z, rc);
    int want = !all_valid ? HS_EINVAL : expect_ovf ? HS_EOVERFLOW : 0;
    assert_int_equal(rc, want);
    if (rc) {
        assert_true(snap_same(&sn, &ct));
    } else {
        for (int x = 0; x < narr; x++)
            for (size_t i = 0; i < len; i++)
                assert_true(ref[x][i] == arr[x][i]);
        assert_true(sh2 == ct.sum_h2);
    }

    /* Single updates of valid and invalid packets. */
    for (int i = 0; i < 4; i++) {
        uint32_t pid = pick_id(z->k);
        hs_field f = pick_field(z->k, z->c, z->b, z->exact);
        int ok = (uint64_t)pid < (1ull << z->k) && oracle_field_ok(z->k, z->c, z->b, z->exact, &f);
        snap su;
        snap_take(&su, &ct);
        rc = hs_counters_update(&ct, &z->s, pid, &f);
        count_rc(z, rc);
        if (!ok)
            assert_int_equal(rc, HS_EINVAL);
        else
            assert_true(rc == 0 || rc == HS_EOVERFLOW);
        if (rc)
            assert_true(snap_same(&su, &ct));
        else if (f.hop != 0 && f.hop != (1u << z->c) - 1)
            assert_int_equal(ct.packets, su.hdr.packets + 1);
        snap_free(&su);
    }

    /* hs_decode_fast on whatever the counters now hold: EOVERFLOW exactly
     * when some kind's sum of |counter| exceeds INT64_MAX; else out[d]
     * matches a 128-bit transform at a few d. */
    uint32_t nout = (uint32_t)(rnd() % (ct.n + 1));
    hs_linksum *out = malloc((nout + 1) * sizeof *out);
    memset(out, 0x3c, (nout + 1) * sizeof *out);
    hs_linksum *before = malloc((nout + 1) * sizeof *out);
    memcpy(before, out, (nout + 1) * sizeof *out);
    int want_fast = 0;
    if (!z->exact)
        for (int x = 0; x < narr; x++) {
            __int128 l1 = 0;
            for (size_t i = 0; i < len; i++)
                l1 += arr[x][i] < 0 ? -(__int128)arr[x][i] : arr[x][i];
            if (l1 > INT64_MAX)
                want_fast = HS_EOVERFLOW;
        }
    rc = hs_decode_fast(&ct, out, nout, NULL);
    count_rc(z, rc);
    assert_int_equal(rc, want_fast);
    if (rc) {
        assert_memory_equal(out, before, (nout + 1) * sizeof *out);
    } else {
        for (int t = 0; t < 4 && nout > 0; t++) {
            uint32_t d = (uint32_t)(rnd() % nout);
            __int128 sum = 0;
            for (unsigned j = 0; j < ct.b; j++)
                for (uint32_t a = 0; a < ct.n; a++) {
                    int64_t v = ct.t[(size_t)j * ct.n + a];
                    if (z->exact)
                        sum += a == d ? v : 0;
                    else
                        sum += __builtin_parity(a & d) ? -(__int128)v : v;
                }
            assert_true(sum == out[d].s);
        }
        assert_memory_equal(&out[nout], &before[nout], sizeof *out); /* no write past nout */
    }
    free(out);
    free(before);

    /* hs_counters_add onto a copy with planted values. */
    hs_counters dst;
    assert_int_equal(hs_counters_init(&dst, &z->s, NULL), 0);
    int64_t *darr[4] = {dst.t, dst.c, dst.t2, dst.c2};
    for (unsigned p = 0; p < 2; p++)
        darr[rnd() % (unsigned)narr][rnd() % len] = pick_big();
    int want_add = 0;
    for (int x = 0; x < narr; x++)
        for (size_t i = 0; i < len; i++)
            if (!fits64((__int128)darr[x][i] + arr[x][i]))
                want_add = HS_EOVERFLOW;
    if (!fits64((__int128)dst.sum_h2 + ct.sum_h2) ||
        !fits64((__int128)dst.sum_h2_flag + ct.sum_h2_flag))
        want_add = HS_EOVERFLOW;
    snap sd;
    snap_take(&sd, &dst);
    rc = hs_counters_add(&dst, &ct);
    count_rc(z, rc);
    assert_int_equal(rc, want_add);
    if (rc) {
        assert_true(snap_same(&sd, &dst));
    } else {
        for (int x = 0; x < narr; x++)
            for (size_t i = 0; i < len; i++)
                assert_true((__int128)darr[x][i] == (__int128)sd.arr[x][i] + arr[x][i]);
    }
    snap_free(&sd);
    hs_counters_free(&dst);
    snap_free(&sn);
    for (int x = 0; x < 4; x++)
        free(ref[x]);
    hs_counters_free(&ct);
}

static void fuzz_one(fz *z)
{
    size_t n = (size_t)(rnd() % 120);
    hs_sample *smp = malloc((n + 1) * sizeof *smp);
    int all_valid = 1;
    int invalid_rate = (int)(rnd() % 3); /* 0: no invalid record planted */
    for (size_t r = 0; r < n; r++) {
        smp[r].pid = invalid_rate ? pick_id(z->k) : (uint32_t)(rnd() & z->s.gf.mask);
        smp[r].f = pick_field(z->k, z->c, z->b, z->exact);
        if (!invalid_rate) {
            hs_field g = smp[r].f;
            if (!oracle_field_ok(z->k, z->c, z->b, z->exact, &g))
                smp[r].f = (hs_field){.hop = 1, .flag = 0, .bits = z->exact ? 1 : 0};
        }
        all_valid &= (uint64_t)smp[r].pid < (1ull << z->k) &&
                     oracle_field_ok(z->k, z->c, z->b, z->exact, &smp[r].f);
    }

    /* hs_mark: valid iff 1 <= link < 2^k and the field is valid; on success
     * the result is a valid field that round-trips through pack/unpack. */
    for (int i = 0; i < 8; i++) {
        hs_field f = pick_field(z->k, z->c, z->b, z->exact), g = f;
        uint32_t link = pick_id(z->k);
        int ok = link != 0 && (uint64_t)link < (1ull << z->k) &&
                 oracle_field_ok(z->k, z->c, z->b, z->exact, &f);
        int rc = hs_mark(&z->s, &f, rnd(), link, (int)(rnd() & 1));
        count_rc(z, rc);
        assert_int_equal(rc, ok ? 0 : HS_EINVAL);
        if (rc) {
            assert_true(field_eq(&f, &g));
            continue;
        }
        assert_true(oracle_field_ok(z->k, z->c, z->b, z->exact, &f));
        hs_field u;
        assert_int_equal(hs_field_unpack(&z->s, hs_field_pack(&z->s, &f), &u), 0);
        assert_true(field_eq(&u, &f));
    }
    /* hs_field_unpack of any value: success only for valid fields. */
    for (int i = 0; i < 8; i++) {
        uint64_t v = rnd() >> (rnd() % 64);
        hs_field f = {.hop = 1, .flag = 1, .bits = 1}, g = f;
        int rc = hs_field_unpack(&z->s, v, &f);
        if (rc)
            assert_true(field_eq(&f, &g));
        else
            assert_int_equal(hs_field_pack(&z->s, &f), v);
    }
    /* Multipliers agree on any operands. */
    uint32_t a = (uint32_t)rnd(), b = (uint32_t)rnd();
    if (z->s.gf.clmul)
        assert_int_equal(hs_gf_mul_clmul(&z->s.gf, a, b), hs_gf_mul_portable(&z->s.gf, a, b));

    /* Naive decoder over random link IDs. */
    size_t nl = (size_t)(rnd() % 6);
    uint32_t links[6];
    int links_ok = 1;
    for (size_t i = 0; i < nl; i++) {
        links[i] = pick_id(z->k);
        links_ok &= (uint64_t)links[i] < (1ull << z->k);
    }
    hs_linksum naive[6], nbefore[6];
    memset(naive, 0x11, sizeof naive);
    memcpy(nbefore, naive, sizeof naive);
    int rc = hs_decode_naive(&z->s, smp, n, links, nl, naive, NULL);
    int naive_rc = rc;
    count_rc(z, rc);
    assert_int_equal(rc, all_valid && links_ok ? 0 : HS_EINVAL);
    if (rc)
        assert_memory_equal(naive, nbefore, sizeof naive);

    /* Route-aware decoder with every valid link of the list as a candidate
     * of every record: then it equals the naive decoder on those links. */
    uint32_t nout = (uint32_t)(rnd() % 70);
    uint32_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *cand = malloc((n * 6 + 1) * sizeof *cand);
    int want_route = all_valid ? 0 : HS_EINVAL, ranged = 0;
    size_t m = 0;
    for (size_t r = 0; r < n; r++) {
        off[r] = (uint32_t)m;
        for (size_t i = 0; i < nl; i++) {
            cand[m++] = links[i];
            if ((uint64_t)links[i] >= (1ull << z->k))
                want_route = HS_EINVAL;
            else if (links[i] == 0 || links[i] >= nout)
                ranged = 1;
        }
    }
    off[n] = (uint32_t)m;
    if (want_route == 0 && ranged)
        want_route = HS_ERANGE;
    hs_linksum *rout = malloc((nout + 1) * sizeof *rout);
    memset(rout, 0x22, (nout + 1) * sizeof *rout);
    hs_linksum *rbefore = malloc((nout + 1) * sizeof *rout);
    memcpy(rbefore, rout, (nout + 1) * sizeof *rout);
    rc = hs_decode_route(&z->s, smp, n, off, cand, 0, rout, nout, NULL);
    count_rc(z, rc);
    assert_int_equal(rc, want_route); /* HS_EINVAL wins over HS_ERANGE */
    if (rc) {
        assert_memory_equal(rout, rbefore, (nout + 1) * sizeof *rout);
    } else if (n && nl && all_valid && links_ok) {
        for (size_t i = 0; i < nl; i++) {
            /* the same ID twice in the list adds twice in route */
            int mult = 0;
            for (size_t x = 0; x < nl; x++)
                mult += links[x] == links[i];
            assert_true(rout[links[i]].s == mult * naive[i].s);
            assert_true(rout[links[i]].c == mult * naive[i].c);
        }
    }
    if (rc == 0)
        assert_memory_equal(&rout[nout], &rbefore[nout], sizeof *rout);
    free(rout);
    free(rbefore);
    free(off);
    free(cand);

    fuzz_counters(z, smp, n, all_valid);

    /* Estimates never fail and give finite numbers from valid sums. */
    if (nl && naive_rc == 0) {
        hs_estimate e;
        hs_estimate_from_sums(&z->s, &naive[0], 0, &e);
        assert_true(e.traffic_se >= 0 && e.congested_se >= 0);
    }
    free(smp);
}

/* hs_scheme_init on random parameters, against the documented ranges. */
static void fuzz_scheme_init(void)
{
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = (unsigned)(rnd() % 36);
    cfg.hop_bits = (unsigned)(rnd() % 11);
    cfg.hash_bits = (unsigned)(rnd() % 11);
    cfg.exact = rnd() % 4 == 0;
    cfg.nlinks = rnd() % 2 ? rnd() % 5000 : rnd() >> (rnd() % 64);
    unsigned k = cfg.k ? cfg.k : hs_link_bits(cfg.nlinks);
    int want = 0;
    if (cfg.hop_bits < 2 || cfg.hop_bits > 8)
        want = HS_EINVAL;
    else if (!cfg.exact && (cfg.hash_bits < 1 || cfg.hash_bits > 8))
        want = HS_EINVAL;
    else if (k == 0)
        want = HS_ERANGE;
    else if (k < 4 || k > 32 || (!cfg.exact && cfg.hash_bits > k))
        want = HS_EINVAL;
    else if (cfg.nlinks >= (1ull << k))
        want = HS_ERANGE;
    hs_scheme s;
    hs_error err;
    int rc = hs_scheme_init(&s, &cfg, &err);
    assert_int_equal(rc, want);
    if (rc == 0) {
        assert_int_equal(s.k, k);
        uint32_t a = (uint32_t)rnd() & s.gf.mask;
        if (a)
            assert_int_equal(hs_gf_mul(&s.gf, a, hs_gf_inv(&s.gf, a)), 1);
        assert_true(hs_pid(&s, hs_packet_key(rnd(), (uint32_t)rnd(), (uint32_t)rnd(), rnd())) <=
                    s.gf.mask);
        hs_scheme_free(&s);
    }
}

static void test_fuzz_api(void **state)
{
    (void)state;
    const char *it = getenv("HS_FUZZ_ITERS"), *sd = getenv("HS_FUZZ_SEED");
    long iters = it ? atol(it) : 2000;
    rng_state = sd ? strtoull(sd, NULL, 10) : 1;
    uint64_t stat[ST_N] = {0};
    for (long i = 0; i < iters; i++) {
        fz z = {.stat = stat};
        z.k = 4 + (unsigned)(rnd() % 11); /* 4..14 */
        z.c = 2 + (unsigned)(rnd() % 7);  /* 2..8 */
        z.exact = rnd() % 5 == 0;
        z.b = 1 + (unsigned)(rnd() % (z.k < 8 ? z.k : 8));
        assert_int_equal(make(&z.s, z.k, z.c, z.b, z.exact), 0);
        if (z.exact)
            z.b = 0;
        fuzz_one(&z);
        hs_scheme_free(&z.s);
        fuzz_scheme_init();
    }
    print_message("fuzz: %ld iterations: %llu ok, %llu EINVAL, %llu EOVERFLOW, %llu ERANGE\n",
                  iters, (unsigned long long)stat[ST_OK], (unsigned long long)stat[ST_EINVAL],
                  (unsigned long long)stat[ST_EOVERFLOW], (unsigned long long)stat[ST_ERANGE]);
    /* Every outcome was exercised (not just the happy path). */
    if (iters >= 100)
        for (int x = 0; x < ST_N; x++)
            assert_true(stat[x] > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_samples_checks_shape),
        cmocka_unit_test(test_ids_beyond_k_rejected),
        cmocka_unit_test(test_invalid_fields_rejected),
        cmocka_unit_test(test_update_overflow),
        cmocka_unit_test(test_update_overflow_b1),
        cmocka_unit_test(test_add_overflow),
        cmocka_unit_test(test_decode_fast_overflow),
        cmocka_unit_test(test_fuzz_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
