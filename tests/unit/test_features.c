/* The per-run features of hopscope sweep (analyzer/features.c,
 * docs/formats.md "sweep.csv"): the aggregates (avg, AO, TO, max, number of
 * AO links) on hand-computed vectors; every feature of a quiet tiny
 * network against values worked out by hand from the messages sent; and,
 * on a contended run, the stall and congested-fraction features against
 * the same aggregates recomputed here from fabric's own in-memory truth
 * (hs_fabric_truth), a path independent of the run-directory files the
 * analyzer reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "an_runs.h"
#include "test_util.h"
#include "hopscope/analyzer.h"

/* |a - b| <= tol, printing both sides (this cmocka has no double compare) */
#define assert_double_equal(a, b, tol) assert_close((a), (b), (tol), #a, __LINE__)
static void assert_close(double a, double b, double tol, const char *what, int line)
{
    if (!(fabs(a - b) <= tol))
        fail_msg("line %d: %s = %.17g, expected %.17g (tolerance %g)", line, what, a, b, tol);
}

static void test_aggregate(void **state)
{
    (void)state;
    hs_an_agg g;
    double a[] = { 1, 2, 3, 4, 10 };
    assert_int_equal(hs_an_aggregate(a, 5, &g), 0);
    assert_double_equal(g.avg, 4.0, 1e-12);
    assert_double_equal(g.max, 10.0, 0);
    assert_double_equal(g.ao, 10.0, 0);      /* only 10 is above 4; 4 is not */
    assert_int_equal(g.nao, 1);
    assert_double_equal(g.to, 10.0, 0);      /* ceil(5% of 5) = 1 link */
    double b[40];
    for (int i = 0; i < 40; i++)
        b[i] = 40 - i;                        /* 40..1, unsorted for the sort */
    b[3] = 1; b[39] = 37;                     /* still the values 1..40 */
    assert_int_equal(hs_an_aggregate(b, 40, &g), 0);
    assert_double_equal(g.avg, 20.5, 1e-12);
    assert_double_equal(g.ao, 610.0, 0);     /* 21 + ... + 40 */
    assert_int_equal(g.nao, 20);
    assert_double_equal(g.to, 79.0, 0);      /* ceil(5% of 40) = 2: 40 + 39 */
    assert_double_equal(g.max, 40.0, 0);
    double c[] = { -3, -1 };
    assert_int_equal(hs_an_aggregate(c, 2, &g), 0);
    assert_double_equal(g.avg, -2.0, 0);
    assert_double_equal(g.max, -1.0, 0);
    assert_double_equal(g.ao, -1.0, 0);
    assert_int_equal(g.nao, 1);
    assert_double_equal(g.to, -1.0, 0);
    assert_int_equal(hs_an_aggregate(c, 0, &g), 0);
    assert_double_equal(g.avg, 0, 0);
    assert_double_equal(g.max, 0, 0);
    assert_int_equal(g.nao, 0);
}

static double feat(const hs_an_feature *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return f[i].value;
    fail_msg("no feature %s", name);
    return 0;
}

static void features_of(const char *dir, hs_an_feature **f, size_t *n)
{
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    p.windows = 0;
    hs_analysis *a;
    hs_error e;
    int rc = hs_analyze_run(dir, &p, &a, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    rc = hs_an_features(a, f, n, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    hs_an_free(a);
}

/* fattree:k=4,n=2: 16 nodes, 4 per leaf; 16 injection, 16 ejection, 16 up
 * and 16 down links (32 switch links).  Rank r on node 4r (ranks 0..3 on
 * the four leaves).  Rank 0 sends 8 KiB (two 4 KiB packets) to node 1 on
 * its own leaf ... */
static void test_quiet_network(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "fattree:k=4,n=2", 1);
    uint32_t map[4] = { 0, 1, 4, 8 };
    an_ranks(&R, 4, map);
    an_phase(&R, 1, "tag 1", "p2p", 1, NULL, 1);
    /* rank 0 (node 0) -> rank 1 (node 1): 8 KiB, one message, same leaf */
    assert_int_equal(hs_fabric_inject(R.f, 0, 0, 1, 8192, 1, 1, 1), 0);
    an_count(&R, 1, 8192);
    R.comm[0 * 4 + 1] += 8192;
    R.commn[0 * 4 + 1]++;
    /* rank 2 (node 4) -> rank 3 (node 8): 4 KiB, other leaf, later */
    assert_int_equal(hs_fabric_inject(R.f, 20 * HS_PS_PER_US, 4, 8, 4096, 1, 1, 1), 0);
    an_count(&R, 1, 4096);
    R.comm[2 * 4 + 3] += 4096;
    R.commn[2 * 4 + 3]++;
    an_finish(&R);
    hs_an_feature *f;
    size_t n;
    features_of(R.dir, &f, &n);

    /* bytes per injection (and ejection) link: 8192 on one, 4096 on one,
     * 0 on the other 14 */
    static const char *ie[] = { "inj", "ej" };
    for (int i = 0; i < 2; i++) {
        char b[64];
        const char *src[] = { "truth", "inband" };
        for (int s = 0; s < 2; s++) {
            snprintf(b, sizeof b, "f_%s_%s_bytes_avg", src[s], ie[i]);
            assert_double_equal(feat(f, n, b), 12288.0 / 16, 1e-9);
            snprintf(b, sizeof b, "f_%s_%s_bytes_max", src[s], ie[i]);
            assert_double_equal(feat(f, n, b), 8192, 1e-9);
            snprintf(b, sizeof b, "f_%s_%s_bytes_ao", src[s], ie[i]);
            assert_double_equal(feat(f, n, b), 12288, 1e-9);
            snprintf(b, sizeof b, "f_%s_%s_bytes_nao", src[s], ie[i]);
            assert_double_equal(feat(f, n, b), 2, 0);
            snprintf(b, sizeof b, "f_%s_%s_bytes_to", src[s], ie[i]);
            assert_double_equal(feat(f, n, b), 8192, 1e-9);  /* ceil(0.8) = 1 link */
        }
    }
    /* one up and one down link carry the 4 KiB packet */
    assert_double_equal(feat(f, n, "f_truth_up1_bytes_avg"), 4096.0 / 16, 1e-9);
    assert_double_equal(feat(f, n, "f_truth_up1_bytes_ao"), 4096, 0);
    assert_double_equal(feat(f, n, "f_truth_down1_bytes_nao"), 1, 0);
    assert_double_equal(feat(f, n, "f_truth_net_bytes_avg"), 8192.0 / 32, 1e-9);
    assert_double_equal(feat(f, n, "f_truth_net_bytes_to"), 8192, 0);   /* ceil(1.6) = 2 */
    assert_double_equal(feat(f, n, "f_truth_net_bytes_max"), 4096, 0);
    assert_double_equal(feat(f, n, "f_inband_net_bytes_ao"), 8192, 1e-9);
    /* nothing waited */
    static const char *zero[] = { "f_truth_inj_stall_max", "f_truth_net_stall_ao",
                                  "f_truth_ej_stallpp_max", "f_truth_net_cf_max",
                                  "f_truth_cf_all", "f_truth_links_congested",
                                  "f_inband_net_cong_max", "f_inband_ej_cf_max",
                                  "f_inband_links_congested", "f_inband_roots" };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        assert_double_equal(feat(f, n, zero[i]), 0, 0);
    /* dilation: messages of 2 links (same leaf) and 4 links (via a spine):
     * avg 3, max 4, AO the one 4-link message */
    assert_double_equal(feat(f, n, "f_truth_dil_avg"), 3, 1e-12);
    assert_double_equal(feat(f, n, "f_truth_dil_max"), 4, 0);
    assert_double_equal(feat(f, n, "f_truth_dil_ao"), 4, 0);
    /* in-band: the hop counters of the 3 packets, 2, 2 and 4 */
    assert_double_equal(feat(f, n, "f_inband_dil_avg"), 8.0 / 3, 1e-12);
    assert_double_equal(feat(f, n, "f_inband_dil_max"), 4, 0);
    assert_double_equal(feat(f, n, "f_inband_dil_ao"), 4, 0);
    /* one message at a time at each NIC */
    assert_double_equal(feat(f, n, "f_truth_injq_max"), 1, 0);
    /* the column set of this topology, in order */
    assert_string_equal(f[0].name, "f_truth_inj_bytes_avg");
    size_t classes = 5; /* inj ej net up1 down1 */
    assert_int_equal(n, classes * 4 * 5 + 3 + 4 + classes * 3 * 5 + 3 + 5);
    for (size_t i = 0; i < n; i++)
        assert_null(strchr(f[i].name, ','));
    free(f);
    an_end(&R);
}

/* Incast into node 0 from three other leaves while node 0 posts three
 * messages at once: stalls, congested packets and a queue of 3. */
static void test_contended(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "fattree:k=4,n=2", 2);
    uint32_t map[4] = { 0, 4, 8, 12 };
    an_ranks(&R, 4, map);
    an_phase(&R, 1, "tag 1", "p2p", 1, NULL, 1);
    for (uint32_t r = 1; r < 4; r++) {
        assert_int_equal(hs_fabric_inject(R.f, 0, map[r], 0, 65536, 1, 1, 1), 0);
        an_count(&R, 1, 65536);
        R.comm[r * 4 + 0] += 65536;
        R.commn[r * 4 + 0]++;
    }
    for (uint32_t d = 1; d < 4; d++) {
        assert_int_equal(hs_fabric_inject(R.f, 0, 0, map[d], 16384, 1, 1, 1), 0);
        an_count(&R, 1, 16384);
        R.comm[0 * 4 + d] += 16384;
        R.commn[0 * 4 + d]++;
    }
    an_finish(&R);
    hs_an_feature *f;
    size_t n;
    features_of(R.dir, &f, &n);
    assert_double_equal(feat(f, n, "f_truth_injq_max"), 3, 0);

    /* recompute the truth features from fabric's memory */
    const hs_topo *t = hs_fabric_topo(R.f);
    uint32_t L = hs_topo_links(t);
    static const char *cls[] = { "inj", "ej", "net", "up1", "down1" };
    double stall_total = 0;
    for (int c = 0; c < 5; c++) {
        double v[3][64];
        size_t m = 0;
        for (uint32_t l = 1; l <= L; l++) {
            const hs_link_info *k = hs_topo_link(t, l);
            int in = c == 0 ? k->kind == HS_LINK_INJECTION
                   : c == 1 ? k->kind == HS_LINK_EJECTION
                   : c == 2 ? k->kind == HS_LINK_SWITCH
                   : c == 3 ? k->sub == HS_SUB_UP && k->level == 1
                            : k->sub == HS_SUB_DOWN && k->level == 1;
            if (!in)
                continue;
            hs_link_truth tr;
            assert_int_equal(hs_fabric_truth(R.f, l, &tr), 0);
            v[0][m] = (double)tr.stall_ps / 1000;
            v[1][m] = tr.packets ? (double)tr.stall_ps / 1000 / (double)tr.packets : 0;
            v[2][m] = tr.packets ? (double)tr.congested / (double)tr.packets : 0;
            if (c < 3)
                stall_total += (double)tr.stall_ps;
            m++;
        }
        assert_int_equal(m, c == 2 ? 32 : 16);
        static const char *fam[] = { "stall", "stallpp", "cf" };
        for (int q = 0; q < 3; q++) {
            /* by hand: mean, sum above it, the top ceil(5%) = 1 or 2 */
            double sum = 0, mx = v[q][0], ao = 0, nao = 0, top1 = -1e300, top2 = -1e300;
            for (size_t i = 0; i < m; i++) {
                sum += v[q][i];
                mx = v[q][i] > mx ? v[q][i] : mx;
                if (v[q][i] > top1) {
                    top2 = top1;
                    top1 = v[q][i];
                } else if (v[q][i] > top2) {
                    top2 = v[q][i];
                }
            }
            double avg = sum / (double)m;
            for (size_t i = 0; i < m; i++)
                if (v[q][i] > avg) {
                    ao += v[q][i];
                    nao++;
                }
            char b[64];
            snprintf(b, sizeof b, "f_truth_%s_%s_avg", cls[c], fam[q]);
            assert_double_equal(feat(f, n, b), avg, 1e-9 * (1 + fabs(avg)));
            snprintf(b, sizeof b, "f_truth_%s_%s_max", cls[c], fam[q]);
            assert_double_equal(feat(f, n, b), mx, 1e-9 * (1 + fabs(mx)));
            snprintf(b, sizeof b, "f_truth_%s_%s_ao", cls[c], fam[q]);
            assert_double_equal(feat(f, n, b), ao, 1e-9 * (1 + fabs(ao)));
            snprintf(b, sizeof b, "f_truth_%s_%s_nao", cls[c], fam[q]);
            assert_double_equal(feat(f, n, b), nao, 0);
            snprintf(b, sizeof b, "f_truth_%s_%s_to", cls[c], fam[q]);
            double to = m == 32 ? top1 + top2 : top1;
            assert_double_equal(feat(f, n, b), to, 1e-9 * (1 + fabs(to)));
        }
    }
    /* the incast did stall links and congest packets, so the comparison
     * above was not of zeros */
    assert_true(stall_total > 0);
    /* the three streams meet on the down links into node 0's leaf (the
     * ejection link drains at line rate, so packets wait upstream) */
    assert_true(feat(f, n, "f_truth_down1_cf_max") > 0);
    assert_true(feat(f, n, "f_truth_cf_all") > 0);
    free(f);
    an_end(&R);
}

int main(void)
{
    (void)an_stream; /* an_runs.h's streams are not needed: messages are placed by hand */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregate),
        cmocka_unit_test(test_quiet_network),
        cmocka_unit_test(test_contended),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
