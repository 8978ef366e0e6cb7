/* Statistical properties of the in-band scheme.
 *
 * Exact: H balanced over link IDs; H for two different pids uncorrelated.
 * Simulated: packets over fixed paths with known per-link counts; over many
 * trials the decoded traffic and congested counts are unbiased and their
 * observed spread matches the reported standard error.  Thresholds come from
 * sampling theory, not from these particular numbers:
 *  - pooled bias: |mean| < 3 standard errors of the mean;
 *  - per-link bias: |z| below the Bonferroni bound for all links and both
 *    quantities at a family-wise error of 1%;
 *  - spread: observed SD / RMS reported SE within 10%. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TEST_RNG_SEED 0
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/hash.h"

static double unif(void) { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }

static void test_h_balanced(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 8;
    cfg.hash_bits = 8;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    /* For every link d != 0 and bit j, exactly half of all pids give 1. */
    for (uint32_t d = 1; d < 256; d++) {
        unsigned ones[8] = {0};
        for (uint32_t pid = 0; pid < 256; pid++) {
            uint32_t h = hs_hash_bits(&s, pid, d);
            for (unsigned j = 0; j < 8; j++)
                ones[j] += (h >> j) & 1;
        }
        for (unsigned j = 0; j < 8; j++)
            assert_int_equal(ones[j], 128);
    }
    hs_scheme_free(&s);
}

/* sum over all d in GF(2^k) of (-1)^(H_j(p,d) + H_j(q,d)) */
static long correlation(const hs_scheme *s, uint32_t p, uint32_t q, unsigned j)
{
    long sum = 0;
    for (uint32_t d = 0; d <= s->gf.mask; d++)
        sum += (((hs_hash_bits(s, p, d) ^ hs_hash_bits(s, q, d)) >> j) & 1) ? -1 : 1;
    return sum;
}

static void test_h_uncorrelated(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 6;
    cfg.hash_bits = 3;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    /* Exhaustive over all pairs of distinct pids: exactly zero. */
    for (uint32_t p = 0; p < 64; p++)
        for (uint32_t q = 0; q < 64; q++)
            for (unsigned j = 0; j < 3; j++)
                assert_int_equal(correlation(&s, p, q, j), p == q ? 64 : 0);
    hs_scheme_free(&s);
    cfg.k = 16;
    cfg.hash_bits = 1;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    rng_state = 11;
    for (int i = 0; i < 100; i++) {
        uint32_t p = rnd() & 0xffff, q = rnd() & 0xffff;
        if (p != q)
            assert_int_equal(correlation(&s, p, q, 0), 0);
    }
    hs_scheme_free(&s);
}

/* ---- simulated paths ------------------------------------------------------ */

enum { NLINKS = 60, NFLOWS = 40, MAXPATH = 6, TRIALS = 300, PACKETS = 3000 };

typedef struct net {
    uint32_t path[NFLOWS][MAXPATH];
    unsigned len[NFLOWS];
    double pcong[NLINKS + 1]; /* probability a packet is congested at link */
} net;

static void make_net(net *n, unsigned maxlen)
{
    rng_state = 2024;
    static const double levels[] = {0.0, 0.05, 0.3, 0.8};
    for (uint32_t l = 1; l <= NLINKS; l++)
        n->pcong[l] = levels[rnd() % 4];
    for (unsigned f = 0; f < NFLOWS; f++) {
        n->len[f] = 2 + (unsigned)(rnd() % (maxlen - 1));
        for (unsigned i = 0; i < n->len[f]; i++) {
            uint32_t l;
            int dup;
            do { /* distinct links within a path */
                l = 1 + (uint32_t)(rnd() % NLINKS);
                dup = 0;
                for (unsigned m = 0; m < i; m++)
                    dup |= n->path[f][m] == l;
            } while (dup);
            n->path[f][i] = l;
        }
    }
}

typedef struct accum { /* per link, over trials */
    double err_t, err_t2, var_t; /* error sum, squared-error sum, reported var sum */
    double err_c, err_c2, var_c;
} accum;

typedef struct result {
    accum a[NLINKS + 1];
    double pooled_t[TRIALS], pooled_c[TRIALS]; /* per-trial sum of errors */
} result;

/* PACKETS packets in messages of npk packets of one flow each; a message
 * carries the field with probability mp (whole messages, as the NICs do),
 * and with npk > 1 its packets are congested at a link together (they
 * queue together).  Truth counts every packet; the estimates are divided
 * by mp (hs_estimate_sampled).  mp = 1, npk = 1 is plain marking. */
static void run_trials_sampled(const net *n, unsigned k, unsigned c, unsigned b, int exact,
                               double mp, unsigned npk, result *res)
{
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = k; /* 0: smallest that holds NLINKS */
    cfg.nlinks = NLINKS;
    cfg.hop_bits = c;
    cfg.hash_bits = b;
    cfg.exact = exact;
    memset(res, 0, sizeof *res);
    for (unsigned t = 0; t < TRIALS; t++) {
        cfg.salt = 1000 + t;
        hs_scheme s;
        assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
        hs_counters ct;
        assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
        long truth_t[NLINKS + 1] = {0}, truth_c[NLINKS + 1] = {0};
        uint64_t seq[NFLOWS] = {0};
        rng_state = 77 + t;
        for (unsigned p = 0; p < PACKETS; p += npk) {
            unsigned f = (unsigned)(rnd() % NFLOWS);
            int mon = mp >= 1 || unif() < mp;
            int mcong[MAXPATH];
            if (npk > 1)
                for (unsigned i = 0; i < n->len[f]; i++)
                    mcong[i] = unif() < n->pcong[n->path[f][i]];
            for (unsigned q = 0; q < npk; q++) {
                uint64_t key = hs_packet_key(s.salt, f, 1000 + f, seq[f]++);
                hs_field fld;
                hs_field_init(&fld);
                for (unsigned i = 0; i < n->len[f]; i++) {
                    uint32_t l = n->path[f][i];
                    int cong = npk > 1 ? mcong[i] : unif() < n->pcong[l];
                    truth_t[l]++;
                    truth_c[l] += cong;
                    hs_mark(&s, &fld, key, l, cong);
                }
                if (mon)
                    hs_counters_update(&ct, &s, hs_pid(&s, key), &fld);
            }
        }
        assert_int_equal(ct.overflow, 0);
        hs_linksum sums[NLINKS + 1];
        assert_int_equal(hs_decode_fast(&ct, sums, NLINKS + 1, NULL), 0);
        for (uint32_t l = 1; l <= NLINKS; l++) {
            hs_estimate e;
            hs_estimate_sampled(&s, &sums[l], 0, mp, npk, &e);
            double et = e.traffic - truth_t[l], ec = e.congested - truth_c[l];
            accum *a = &res->a[l];
            a->err_t += et;
            a->err_t2 += et * et;
            a->var_t += e.traffic_se * e.traffic_se;
            a->err_c += ec;
            a->err_c2 += ec * ec;
            a->var_c += e.congested_se * e.congested_se;
            res->pooled_t[t] += et;
            res->pooled_c[t] += ec;
        }
        hs_counters_free(&ct);
        hs_scheme_free(&s);
    }
}

static void run_trials(const net *n, unsigned k, unsigned c, unsigned b, int exact, result *res)
{
    run_trials_sampled(n, k, c, b, exact, 1.0, 1, res);
}

/* z with P(|Z| > z) = alpha, by bisection on erfc. */
static double z_two_sided(double alpha)
{
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / sqrt(2)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void check_pooled(const double *x, const char *what)
{
    double m = 0, v = 0;
    for (int t = 0; t < TRIALS; t++)
        m += x[t];
    m /= TRIALS;
    for (int t = 0; t < TRIALS; t++)
        v += (x[t] - m) * (x[t] - m);
    double sem = sqrt(v / (TRIALS - 1) / TRIALS);
    print_message("  %s: pooled mean error %.3f, 3 SE = %.3f\n", what, m, 3 * sem);
    /* <=: in exact mode the traffic summed over all links is exactly the
     * total hop count, so the pooled error and its SE are both 0. */
    assert_true(fabs(m) <= 3 * sem);
}

/* Checks bias and calibration; returns the summed observed error variance
 * of the traffic estimates (for comparing modes). */
static double check_result(const result *r, const char *label)
{
    double zcrit = z_two_sided(0.01 / (2.0 * NLINKS));
    double obs_t = 0, rep_t = 0, obs_c = 0, rep_c = 0, zmax = 0;
    for (uint32_t l = 1; l <= NLINKS; l++) {
        const accum *a = &r->a[l];
        double mt = a->err_t / TRIALS, mc = a->err_c / TRIALS;
        double vt = (a->err_t2 - TRIALS * mt * mt) / (TRIALS - 1);
        double vc = (a->err_c2 - TRIALS * mc * mc) / (TRIALS - 1);
        double zt = vt > 0 ? mt / sqrt(vt / TRIALS) : 0;
        double zc = vc > 0 ? mc / sqrt(vc / TRIALS) : 0;
        zmax = fmax(zmax, fmax(fabs(zt), fabs(zc)));
        obs_t += vt;
        rep_t += a->var_t / TRIALS;
        obs_c += vc;
        rep_c += a->var_c / TRIALS;
    }
    double ratio_t = sqrt(obs_t / rep_t), ratio_c = sqrt(obs_c / rep_c);
    print_message("%s: max |z| %.2f (bound %.2f); observed SD / reported SE: traffic %.3f, "
                  "congested %.3f\n", label, zmax, zcrit, ratio_t, ratio_c);
    assert_true(zmax < zcrit);
    assert_true(fabs(ratio_t - 1) < 0.10);
    assert_true(fabs(ratio_c - 1) < 0.10);
    check_pooled(r->pooled_t, "traffic");
    check_pooled(r->pooled_c, "congested");
    return obs_t;
}

static result res; /* large: keep off the stack */
static net the_net;

static void test_unbiased_c4_b1(void **state)
{
    (void)state;
    make_net(&the_net, MAXPATH);
    run_trials(&the_net, 0, 4, 1, 0, &res);
    double hashed = check_result(&res, "6-bit field (c=4, b=1)");
    run_trials(&the_net, 0, 4, 1, 1, &res);
    double exact = check_result(&res, "exact mode (c=4, k=6)");
    /* Exact mode: per packet on the path Var = h - 1 instead of h^2 - 1,
     * and no noise at all on links off the path. */
    print_message("  summed error variance: exact %.0f vs hashed %.0f\n", exact, hashed);
    assert_true(exact < hashed);
}

static void test_unbiased_c3_b1(void **state)
{
    (void)state;
    make_net(&the_net, 6); /* 6 hops is the most a 3-bit counter holds */
    run_trials(&the_net, 0, 3, 1, 0, &res);
    check_result(&res, "5-bit field (c=3, b=1)");
}

static void test_unbiased_b2_b8(void **state)
{
    (void)state;
    make_net(&the_net, MAXPATH);
    run_trials(&the_net, 0, 4, 2, 0, &res);
    check_result(&res, "7-bit field (c=4, b=2)");
    run_trials(&the_net, 8, 4, 8, 0, &res); /* b <= k: 8 bits need k >= 8 */
    check_result(&res, "13-bit field (c=4, b=8, k=8)");
}

/* Monitoring 30% (and 70%) of 4-packet messages: the estimates divided by
 * the probability stay unbiased for all packets, and the reported SE, with
 * the sampling variance of whole messages, matches the observed spread;
 * and the formula's value on a case computed by hand. */
static void test_sampled_messages(void **state)
{
    (void)state;
    make_net(&the_net, MAXPATH);
    run_trials_sampled(&the_net, 0, 4, 1, 0, 0.3, 4, &res);
    check_result(&res, "6-bit field, 30% of 4-packet messages");
    run_trials_sampled(&the_net, 0, 4, 1, 1, 0.7, 4, &res);
    check_result(&res, "exact mode, 70% of 4-packet messages");
    /* exact paths: the in-band part is 0, only the sampling term remains */
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.nlinks = NLINKS;
    cfg.exact = 1;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    hs_linksum ls;
    memset(&ls, 0, sizeof ls);
    ls.npath = 300;
    hs_estimate e1, e2;
    hs_estimate_sampled(&s, &ls, 1, 0.25, 4, &e1);
    /* traffic 300 / 0.25; Var = (1 - p) / p^2 * n * 300 exactly */
    assert_true(fabs(e1.traffic - 1200) < 1e-9);
    assert_true(fabs(e1.traffic_se - sqrt(0.75 / 0.0625 * 4 * 300)) < 1e-9);
    hs_estimate_sampled(&s, &ls, 1, 1.0, 4, &e2);
    assert_true(e2.traffic == 300 && e2.traffic_se == 0);
    hs_scheme_free(&s);
}

/* A 7-hop path does not fit a 3-bit counter: every packet is excluded and
 * counted as overflow, and nothing is attributed to any link. */
static void test_overflow_excluded(void **state)
{
    (void)state;
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.nlinks = 10;
    cfg.hop_bits = 3;
    hs_scheme s;
    assert_int_equal(hs_scheme_init(&s, &cfg, NULL), 0);
    hs_counters ct;
    assert_int_equal(hs_counters_init(&ct, &s, NULL), 0);
    for (uint64_t p = 0; p < 1000; p++) {
        uint64_t key = hs_packet_key(0, 1, 2, p);
        hs_field f;
        hs_field_init(&f);
        for (uint32_t l = 1; l <= 7; l++)
            hs_mark(&s, &f, key, l, 1);
        hs_counters_update(&ct, &s, hs_pid(&s, key), &f);
    }
    assert_int_equal(ct.overflow, 1000);
    assert_int_equal(ct.packets, 0);
    hs_linksum sums[11];
    hs_totals tot;
    assert_int_equal(hs_decode_fast(&ct, sums, 11, &tot), 0);
    for (int l = 1; l <= 10; l++)
        assert_int_equal(sums[l].s, 0);
    assert_int_equal(tot.overflow, 1000);
    hs_counters_free(&ct);
    hs_scheme_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h_balanced),
        cmocka_unit_test(test_h_uncorrelated),
        cmocka_unit_test(test_unbiased_c4_b1),
        cmocka_unit_test(test_unbiased_c3_b1),
        cmocka_unit_test(test_unbiased_b2_b8),
        cmocka_unit_test(test_overflow_excluded),
        cmocka_unit_test(test_sampled_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
