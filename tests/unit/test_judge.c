/* Judging links by their standard error (analyzer/judge.c) on constructed
 * estimates: congested / clear / cannot judge with the factor on packets
 * that would decide, the contrast test and Fieller's condition on traffic, pooling of thin
 * links, and the clipped congested fractions people read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "../../analyzer/an.h"
#include "an_runs.h"
#include "hopscope/analyzer.h"

/* z = 2 (one-sided 97.7%), threshold 0.25, max traffic CV 0.1: the defaults */
#define THR 0.25
#define Z 2.0
#define CV 0.1

static hs_estimate est(double t, double tse, double c, double cse, double cf, double cfse)
{
    hs_estimate e;
    memset(&e, 0, sizeof e);
    e.traffic = t;
    e.traffic_se = tse;
    e.congested = c;
    e.congested_se = cse;
    e.cf = cf;
    e.cf_se = cfse;
    e.cf_valid = t > 0;
    return e;
}

static void test_verdicts(void **state)
{
    (void)state;
    double need = -1;
    /* the critical value for an SE from n packets: Student's t with n - 1
     * degrees of freedom at z = 2 (one-sided 97.725%); reference values by
     * numerical integration of the t density: 13.9677 (1), 4.5265 (2),
     * 3.3068 (3), 2.2837 (10), 2.0256 (99) */
    assert_float_equal(hs__an_z_small(2, 2), 13.9677, 1e-3);
    assert_float_equal(hs__an_z_small(2, 3), 4.5265, 0.01 * 4.5265);
    assert_float_equal(hs__an_z_small(2, 4), 3.3068, 0.0015 * 3.3068);
    assert_float_equal(hs__an_z_small(2, 11), 2.2837, 1e-4);
    assert_float_equal(hs__an_z_small(2, 100), 2.0256, 1e-4);
    assert_true(isinf(hs__an_z_small(2, 1.5)));
    /* issue 11's tapered fat-tree link: 360 packets (exact), CF 0.80 +- 0.127:
     * the old cutoff (SE <= 0.1) called it insufficient; 0.80 - 2.0070 x 0.127
     * = 0.546 >= 0.25 */
    hs_estimate e = est(360, 0, 288, 45.6, 0.8, 0.126686);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CONGESTED);
    /* confidently below, with no packet-count cutoff: from 400 packets and
     * from 40 (0.05 + 2.066 x 0.05 = 0.153 < 0.25) */
    e = est(400, 0, 20, 20, 0.05, 0.05);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CLEAR);
    e = est(40, 0, 2, 2, 0.05, 0.05);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CLEAR);
    /* between: 0.30 -+ 2.001 x 0.05 straddles 0.25.  Decided at about
     * (2 x 0.05 / 0.05)^2 = 4 times the packets; exactly where the critical
     * value of 4e4 packets times SE / 2 meets the gap */
    e = est(1e4, 0, 3000, 500, 0.30, 0.05);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_UNDECIDED);
    assert_true(need > 4.0 && need < 4.01);
    assert_float_equal(hs__an_z_small(Z, 1e4 * need) * 0.05 / sqrt(need), 0.05, 1e-9);
    /* three packets at 0.90 +- 0.18: the normal test would call it
     * congested (0.90 - 0.36); with 2 degrees of freedom t = 4.49 and it
     * is not (0.90 - 0.81 < 0.25); a few more packets decide it */
    e = est(3, 0, 2.7, 0.54, 0.90, 0.18);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_UNDECIDED);
    assert_true(need > 1 && need < 1.3);
    assert_float_equal(hs__an_z_small(Z, 3 * need) * 0.18 / sqrt(need), 0.65, 1e-9);
    /* the blind decoder on a UGAL dragonfly: traffic 2000 +- 940 (CV 0.47),
     * congested 1800 +- 100.  The ratio's delta-method SE would weight
     * Var(T) by CF^2; the verdict tests the contrast D = C - 0.25 T =
     * 1300 with SE sqrt(100^2 + 0.25^2 940^2) = 255.4, i.e. CF SE
     * 0.1277 = 255.4 / 2000: 0.9 - 2.00 x 0.1277 >= 0.25, congested, and T
     * is significantly positive (2000 > 2.00 x 940, Fieller's condition) */
    e = est(2000, 940, 1800, 100, 0.9, 0.01);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CONGESTED);
    /* the same with T = 2000 +- 1200 (CV 0.6): T is not significantly
     * positive, no ratio is bounded: undecided, until (t x 0.6)^2 times
     * the packets (t of 2000 packets, 2.0015) */
    e = est(2000, 1200, 1800, 100, 0.9, 0.01);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_UNDECIDED);
    double tq = hs__an_z_small(Z, 2000);
    assert_float_equal(need, (tq * 0.6) * (tq * 0.6), 1e-6);
    /* the contrast's SE weights Var(T) by the threshold, not by CF: CF 0.55
     * from C = 1100 +- 40, T = 2000 +- 300: by the ratio's delta method
     * sqrt(40^2 + 0.55^2 300^2) / 2000 = 0.0865 and 0.55 - 2 x 0.0865 =
     * 0.377; by the contrast sqrt(40^2 + 0.25^2 300^2) / 2000 = 0.0425 */
    e = est(2000, 300, 1100, 40, 0.55, 0.0865);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CONGESTED);
    /* the estimator's covariance of C and T (a flagged record counts in
     * both: Cov = Var(C) for hashed fields) narrows the contrast: C = 690 +-
     * 60, T = 2000 +- 300, Var(D) = 3600 + 0.0625 x 90000 - 2 x 0.25 x 3600
     * = 7425, 190 / 86.17 = 2.20 SE: congested; left out (cov 0), 190 /
     * 96.05 = 1.98 < t = 2.0015: undecided */
    e = est(2000, 300, 690, 60, 0.345, 0.03);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_UNDECIDED);
    e.cov = 3600;
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CONGESTED);
    /* and a CF just above the threshold with noisy traffic: 0.30 from
     * C = 600 +- 20, T = 2000 +- 300: contrast SE sqrt(400 + 5625) / 2000 =
     * 0.0388, 0.30 - 0.078 < 0.25: undecided */
    e = est(2000, 300, 600, 20, 0.30, 0.05);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_UNDECIDED);
    /* exactly at the threshold: no finite factor decides it */
    e = est(500, 0, 125, 20, 0.25, 0.04);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_UNDECIDED);
    assert_true(isinf(need));
    /* no packets: no verdict */
    e = est(0, 0, 0, 0, 0, 0);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_NODATA);
    /* z is a parameter, not a constant: at z = 1, 0.31 +- 0.05 is congested */
    e = est(1e4, 0, 3100, 500, 0.31, 0.05);
    assert_int_equal(hs__an_judge_one(&e, THR, 2.0, CV, 0, 1, &need), HS__V_UNDECIDED);
    assert_int_equal(hs__an_judge_one(&e, THR, 1.0, CV, 0, 1, &need), HS__V_CONGESTED);
}

/* No flagged sample at a link gives CF 0 +- 0 however few samples there
 * were; the verdict's SE is then the score test's at the threshold,
 * sqrt(tau (hbar - tau) / (N p)): 10 packets of 4 hops, 2.5 samples
 * expected at the link, cannot clear it; 1000 can. */
static void test_score_floor(void **state)
{
    (void)state;
    double need;
    hs_estimate e = est(10, 0, 0, 0, 0, 0);
    assert_float_equal(hs__an_judge_se(&e, THR, 4, 1), sqrt(0.25 * 3.75 / 10), 1e-12);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 0, 1, &need), HS__V_CLEAR);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 4, 1, &need), HS__V_UNDECIDED);
    assert_true(need > 1 && isfinite(need));
    e = est(1000, 0, 0, 0, 0, 0);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 4, 1, &need), HS__V_CLEAR);
    /* sampling: 1000 packets monitored with p = 0.01 are 10 in the records */
    assert_float_equal(hs__an_judge_se(&e, THR, 4, 0.01), sqrt(0.25 * 3.75 / 10), 1e-12);
    assert_int_equal(hs__an_judge_one(&e, THR, Z, CV, 4, 0.01, &need), HS__V_UNDECIDED);
    /* a larger plug-in SE wins over the floor */
    e = est(1000, 0, 300, 30, 0.3, 0.2);
    assert_float_equal(hs__an_judge_se(&e, THR, 4, 1), 0.2, 1e-12);
}

static void test_pool(void **state)
{
    (void)state;
    /* three up-links of one leaf, 100 packets each (exact traffic),
     * congested 40, 42, 44 +- 10: alone each is CF 0.40-0.44 +- 0.10,
     * undecided (0.44 - 0.2 < 0.25); pooled 126 / 300 = 0.42 with SE
     * sqrt(300) / 300 = 0.0577, 0.42 - 0.115 >= 0.25: congested */
    hs_estimate e[3] = { est(100, 0, 40, 10, 0.40, 0.10), est(100, 0, 42, 10, 0.42, 0.10),
                         est(100, 0, 44, 10, 0.44, 0.10) };
    const hs_estimate *v[3] = { &e[0], &e[1], &e[2] };
    for (int i = 0; i < 3; i++)
        assert_int_equal(hs__an_judge_one(&e[i], THR, Z, CV, 0, 1, NULL), HS__V_UNDECIDED);
    hs_estimate p;
    hs__an_pool_estimate(v, 3, &p);
    assert_float_equal(p.traffic, 300, 1e-12);
    assert_float_equal(p.congested, 126, 1e-12);
    assert_float_equal(p.cf, 0.42, 1e-12);
    assert_float_equal(p.cf_se, sqrt(300.0) / 300.0, 1e-12);
    assert_int_equal(hs__an_judge_one(&p, THR, Z, CV, 0, 1, NULL), HS__V_CONGESTED);
    /* noisy traffic enters the SE: T = 300 +- sqrt(3) x 10, the delta
     * method's CF^2 Var(T) term is added */
    e[0].traffic_se = e[1].traffic_se = e[2].traffic_se = 10;
    hs__an_pool_estimate(v, 3, &p);
    assert_float_equal(p.traffic_se, sqrt(300.0), 1e-12);
    assert_float_equal(p.cf_se, sqrt(300.0 + 0.42 * 0.42 * 300.0) / 300.0, 1e-12);
    /* thin clear links pool to a clear verdict: 3 x 20 packets at CF 0.1 +- 0.15 */
    hs_estimate c[3] = { est(20, 0, 2, 3, 0.1, 0.15), est(20, 0, 2, 3, 0.1, 0.15),
                         est(20, 0, 2, 3, 0.1, 0.15) };
    const hs_estimate *w[3] = { &c[0], &c[1], &c[2] };
    assert_int_equal(hs__an_judge_one(&c[0], THR, Z, CV, 0, 1, NULL), HS__V_UNDECIDED);
    hs__an_pool_estimate(w, 3, &p);
    assert_float_equal(p.cf, 0.1, 1e-12);
    assert_float_equal(p.cf_se, sqrt(27.0) / 60.0, 1e-12);   /* 0.0866: 0.1 + 0.173 > 0.25 */
    assert_int_equal(hs__an_judge_one(&p, THR, Z, CV, 0, 1, NULL), HS__V_UNDECIDED);
}

static void test_cf_text(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(hs__an_cf_text(b, sizeof b, 0.40, 0.05), "40% +- 5%");
    /* issue 11: "congested for 123% +- 9%" and "-0.110 +- 0.046" */
    assert_string_equal(hs__an_cf_text(b, sizeof b, 1.23, 0.09), "100% (91%-100%)");
    assert_string_equal(hs__an_cf_text(b, sizeof b, -0.110, 0.046), "0% (0%-5%)");
    assert_string_equal(hs__an_cf_text(b, sizeof b, 0.97, 0.05), "97% (92%-100%)");
}

/* The pattern check behind a "pattern" finding, on a run with records: a
 * node fed by one partner at a time has no incast, one fed by three
 * senders at once has; nodes that receive nothing cannot be checked. */
static void test_incast_present(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "fattree:k=8,n=2", 77);
    an_ranks(&R, 64, NULL);
    an_phase(&R, 4, "tag 4", "p2p", 4, NULL, 1);
    hs_time dur = 100 * HS_PS_PER_US;
    /* node 10: node 20 streams to it at 90% of the link, nobody else */
    an_stream(&R, 20, 10, 0.9, 4096, 4, 1, 0, dur, 20, 10);
    /* node 40: 41, 42 and 50 at 40% each, the same time */
    an_stream(&R, 41, 40, 0.4, 4096, 4, 1, 0, dur, 41, 40);
    an_stream(&R, 42, 40, 0.4, 4096, 4, 1, 0, dur, 42, 40);
    an_stream(&R, 50, 40, 0.4, 4096, 4, 1, 0, dur, 50, 40);
    /* node 30: 31 first, then 32 after it: two partners, one at a time */
    an_stream(&R, 31, 30, 0.5, 4096, 4, 1, 0, dur / 2, 31, 30);
    an_stream(&R, 32, 30, 0.5, 4096, 4, 1, dur / 2 + 10 * HS_PS_PER_US, dur, 32, 30);
    an_finish(&R);
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    hs_analysis *a;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_analyze_run(R.dir, &p, &a, &e), 0);
    uint8_t *ok = NULL;
    assert_int_equal(hs__an_incast_present(a, &ok), 0);
    assert_int_equal(ok[10], 0);
    assert_int_equal(ok[40], 1);
    assert_int_equal(ok[30], 0);
    assert_int_equal(ok[0], 1);     /* received nothing: cannot tell */
    free(ok);
    /* the incast into node 40 is found as a pattern, with its senders'
     * ranks labelled as senders */
    int found = 0;
    for (size_t i = 0; i < hs_an_nfindings(a); i++)
        if (hs_an_finding_kind(a, i) == HS_AN_PATTERN) {
            uint32_t nd[4];
            assert_true(hs_an_finding_nodes(a, i, nd, 4) >= 1);
            assert_int_equal(nd[0], 40);
            assert_non_null(strstr(hs_an_finding_summary(a, i), "ranks sending to it: 41-42, 50"));
            found = 1;
        }
    assert_true(found);
    hs_an_free(a);
    an_end(&R);
}

/* The local-congestion filter (diagnose.c): a packet at position k of its
 * path counts for link seq[k] only when it came through an input feeding
 * no other possibly congested output and leaves onto a link that is not
 * possibly congested.  Path: injection 1, up-link 5, down-link 7,
 * ejection 9; links 5 and 7 are the candidates. */
static void test_local_keep_rule(void **state)
{
    (void)state;
    const uint32_t seq[4] = { 1, 5, 7, 9 };
    uint8_t want[12] = {0}, ncong[12] = {0}, maybe[12] = {0};
    uint32_t one[12] = {0};
    want[5] = want[7] = 1;
    /* clean input (feeds nothing possibly congested), clear next link */
    assert_int_equal(hs__an_local_keep_at(seq, 4, 1, want, ncong, one, maybe), 1);
    /* the input feeds one possibly congested output: this link itself */
    ncong[1] = 1, one[1] = 5;
    assert_int_equal(hs__an_local_keep_at(seq, 4, 1, want, ncong, one, maybe), 1);
    /* ... or another one: the packet may have waited behind it */
    one[1] = 6;
    assert_int_equal(hs__an_local_keep_at(seq, 4, 1, want, ncong, one, maybe), 0);
    /* two or more */
    ncong[1] = 2, one[1] = 5;
    assert_int_equal(hs__an_local_keep_at(seq, 4, 1, want, ncong, one, maybe), 0);
    ncong[1] = 0;
    /* the next link possibly congested: back-pressure may be the cause */
    maybe[7] = 1;
    assert_int_equal(hs__an_local_keep_at(seq, 4, 1, want, ncong, one, maybe), 0);
    /* link 7: input 5 clean, next (the ejection link) clear */
    assert_int_equal(hs__an_local_keep_at(seq, 4, 2, want, ncong, one, maybe), 1);
    maybe[9] = 1;
    assert_int_equal(hs__an_local_keep_at(seq, 4, 2, want, ncong, one, maybe), 0);
    /* the last link of a path has no next link to wait for */
    const uint32_t seq3[3] = { 1, 5, 7 };
    assert_int_equal(hs__an_local_keep_at(seq3, 3, 2, want, ncong, one, maybe), 1);
    /* not a candidate; the first link (no input known); out of range */
    assert_int_equal(hs__an_local_keep_at(seq, 4, 3, want, ncong, one, maybe), 0);
    want[1] = 1;
    assert_int_equal(hs__an_local_keep_at(seq, 4, 0, want, ncong, one, maybe), 0);
    assert_int_equal(hs__an_local_keep_at(seq, 4, 4, want, ncong, one, maybe), 0);
}

/* A job alone: whatever congests a link is its own; no link is ever a
 * bottleneck of someone else's traffic. */
static void test_local_alone(void **state)
{
    (void)state;
    an_run R;
    an_begin_tables(&R, "fattree:k=8,n=2,taper=4", 71, 1);
    an_ranks(&R, 64, NULL);
    an_phase(&R, 4, "tag 4", "p2p", 4, NULL, 1);
    hs_time dur = 100 * HS_PS_PER_US;
    for (uint32_t x = 8; x < 16; x++)
        an_stream(&R, x, 40 + (x % 4), 0.4, 4096, 4, 1, 0, dur, x, 40 + (x % 4));
    an_finish(&R);
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    hs_analysis *a;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_analyze_run(R.dir, &p, &a, &e), 0);
    hs_an_summary s;
    hs_an_get_summary(a, &s);
    assert_true(s.links_congested > 0);
    uint8_t *local = NULL;
    assert_int_equal(hs__an_local_congestion(a, &local), 0);
    for (uint32_t l = 0; l <= 160; l++)
        assert_int_equal(local[l], 0);
    free(local);
    hs_an_free(a);
    an_end(&R);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_score_floor),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_cf_text),
        cmocka_unit_test(test_incast_present),
        cmocka_unit_test(test_local_keep_rule),
        cmocka_unit_test(test_local_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
