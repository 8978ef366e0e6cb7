/* The analyzer's findings on runs with known answers (built with fabric's
 * public API, tests/unit/an_runs.h):
 *   pattern       incasts into different nodes, sender sets and topologies,
 *                 with and without unmonitored background, and fabric's own
 *                 incast-with-background traffic (head-of-line victims must
 *                 hang off the incast's tree, not become roots);
 *   mapping       all-to-all in groups scattered across the leaves (pods) of
 *                 tapered fat-trees: the suggestion puts groups together and
 *                 re-simulation shows it is faster;
 *   interference  light applications next to heavy unmonitored congestors
 *                 (GPCNeT style) on a tapered fat-tree and a dragonfly;
 *   two causes    a scattered all-to-all beside an incast congestor: mapping
 *                 and interference, and mapping only without the congestor;
 *   none          light, well-placed applications alone.
 * Sizes, targets, senders and patterns vary so nothing is tuned to one case. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "an_runs.h"
#include "hopscope/analyzer.h"

#define US HS_PS_PER_US

static hs_analysis *analyze(const an_run *R)
{
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    hs_analysis *a;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_analyze_run(R->dir, &p, &a, &e);
    if (rc)
        fail_msg("analyze %s: %s", R->dir, hs_error_str(&e, rc));
    return a;
}

static void print_findings(const hs_analysis *a)
{
    for (size_t i = 0; i < hs_an_nfindings(a); i++)
        print_message("  finding %zu [%s] %s\n", i, hs_an_kind_name(hs_an_finding_kind(a, i)),
                      hs_an_finding_summary(a, i));
}

static int count_kind(const hs_analysis *a, hs_an_kind k)
{
    int n = 0;
    for (size_t i = 0; i < hs_an_nfindings(a); i++)
        n += hs_an_finding_kind(a, i) == k;
    return n;
}

/* ---- pattern ------------------------------------------------------------------- */

static void incast_case(const char *spec, uint32_t nodes, uint32_t target, uint32_t nsend,
                        double load, double bg, uint64_t seed)
{
    an_run R;
    an_begin(&R, spec, seed);
    an_ranks(&R, nodes, NULL);
    an_phase(&R, 3, "tag 3", "p2p", 3, NULL, 1);
    if (bg > 0) {
        an_phase(&R, 90, "background", "background", -1, NULL, 0);
        R.bg_spec = "uniform";
    }
    uint32_t senders[64], ns = 0;
    uint8_t is_sender[1024] = {0};
    while (ns < nsend) {
        uint32_t s = (uint32_t)(an_u01(&R) * nodes);
        if (s == target || is_sender[s])
            continue;
        is_sender[s] = 1;
        senders[ns++] = s;
    }
    for (uint32_t i = 0; i < ns; i++)
        an_stream(&R, senders[i], target, load, 4096, 3, 1, 0, 250 * US, senders[i], target);
    if (bg > 0)
        for (uint32_t n = 0; n < nodes; n++) {
            if (is_sender[n] || n == target)
                continue;
            R.bg_nodes[R.nbg++] = n;
            for (int k = 0; k < 4; k++) {
                uint32_t d;
                do
                    d = (uint32_t)(an_u01(&R) * nodes);
                while (d == n || d == target);
                an_stream(&R, n, d, bg / 4, 4096, 90, 0, 0, 250 * US, 0, 0);
            }
        }
    an_finish(&R);
    hs_analysis *a = analyze(&R);
    print_message("incast %s target %u, %u senders, bg %.2f:\n", spec, target, nsend, bg);
    print_findings(a);
    assert_true(hs_an_nfindings(a) >= 1);
    assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_PATTERN);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 0);
    uint32_t nd[64];
    size_t nn = hs_an_finding_nodes(a, 0, nd, 64);
    assert_true(nn >= 2);
    assert_int_equal(nd[0], target);
    /* the other nodes named are exactly the senders */
    assert_int_equal(nn - 1, ns);
    for (size_t i = 1; i < nn; i++)
        assert_true(is_sender[nd[i]]);
    /* the named link is the target's ejection link */
    uint32_t lk[4];
    hs_an_finding_links(a, 0, lk, 4);
    hs_an_link L;
    assert_int_equal(hs_an_link_get(a, lk[0], &L), 0);
    assert_true(L.is_root);
    assert_true(L.load_busy >= 0.5);
    const char *s = hs_an_finding_summary(a, 0);
    char name[32];
    snprintf(name, sizeof name, "node n%u", target);
    assert_non_null(strstr(s, name));
    hs_an_free(a);
    an_end(&R);
}

static void test_pattern_incast(void **state)
{
    (void)state;
    incast_case("fattree:k=8,n=2", 64, 0, 6, 0.4, 0, 1);
    incast_case("fattree:k=8,n=2", 64, 37, 12, 0.3, 0.2, 2);
    incast_case("dragonfly:a=4,p=2,h=2,g=9", 72, 13, 9, 0.35, 0, 3);
    incast_case("torus:4x4,p=2", 32, 21, 5, 0.5, 0.15, 4);
}

/* Senders in other pods into one node under D-mod-K: every route to the
 * node runs through one core, so the flows join on the core's down-link,
 * which carries them alone at its full rate and leaves the node's own
 * ejection link clear.  As an incast (the node sends nothing back) that
 * down-link is the node's pattern.  As an exchange (the node sends each
 * partner as much as it receives, one partner at a time, below its link's
 * rate) the same down-link is where the placement made the partners'
 * routes join: mapping, no pattern. */
static hs_analysis *join_run(an_run *R, int exchange, uint64_t seed)
{
    const uint32_t x = 0, snd[3] = { 5, 9, 13 };
    an_begin(R, "fattree:k=4,n=3", seed);
    an_ranks(R, 16, NULL);
    an_phase(R, 3, "tag 3", "p2p", 3, NULL, 1);
    hs_time T = 200 * US;
    for (int i = 0; i < 3; i++)
        an_stream(R, snd[i], x, 0.45, 4096, 3, 1, 0, T, snd[i], x);
    for (int i = 0; exchange && i < 3; i++)
        an_stream(R, x, snd[i], 0.9, 4096, 3, 1, T + (hs_time)i * T / 2,
                  T + (hs_time)(i + 1) * T / 2, x, snd[i]);
    an_finish(R);
    return analyze(R);
}

static void test_join_incast_or_exchange(void **state)
{
    (void)state;
    an_run R;
    hs_analysis *a = join_run(&R, 0, 61);
    print_message("incast joining on a core down-link:\n");
    print_findings(a);
    assert_true(hs_an_nfindings(a) >= 1);
    assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_PATTERN);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 0);
    hs_an_free(a);
    an_end(&R);
    a = join_run(&R, 1, 61);
    print_message("exchange joining on a core down-link:\n");
    print_findings(a);
    assert_int_equal(count_kind(a, HS_AN_PATTERN), 0);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 1);
    hs_an_free(a);
    an_end(&R);
}

/* fabric's own incast with background (everything monitored): the
 * background packets stuck behind the incast's at the spine and at the
 * leaves are head-of-line victims; they must hang off the incast's tree,
 * and the incast must be the only root. */
static void test_pattern_fabric_incast_bg(void **state)
{
    (void)state;
    static const struct { const char *spec, *traffic; uint32_t target; } cases[] = {
        { "fattree:k=8,n=2", "incast:target=0,senders=8,bg=0.3", 0 },
        { "fattree:k=8,n=2", "incast:target=43,senders=12,bg=0.25", 43 },
        { "fattree:k=8,n=2,routing=adaptive", "incast:target=5,senders=10,bg=0.2", 5 },
        { "torus:4x4x4", "incast:target=5,senders=10,bg=0.2", 5 },
        { "dragonfly:a=4,p=2,h=2,g=9,routing=ugal", "incast:target=30,senders=10,bg=0.2", 30 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        an_run R;
        an_begin(&R, cases[c].spec, 5 + c);
        hs_traffic_cfg tc;
        hs_traffic_cfg_default(&tc);
        hs_error e;
        assert_int_equal(hs_traffic_parse(cases[c].traffic, &tc, &e), 0);
        tc.load = 0.5;
        tc.duration = 300 * US;
        tc.seed = 5 + c;
        hs_traffic_result res;
        assert_int_equal(hs_traffic_run(R.f, &tc, &res, &e), 0);
        assert_int_equal(hs_fabric_write_rundir(R.f, R.dir, NULL, NULL, &e), 0);
        hs_analysis *a = analyze(&R);
        print_message("fabric %s:\n", cases[c].traffic);
        print_findings(a);
        assert_int_equal(hs_an_nfindings(a), 1);
        assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_PATTERN);
        uint32_t nd[2];
        hs_an_finding_nodes(a, 0, nd, 2);
        assert_int_equal(nd[0], cases[c].target);
        hs_an_summary s;
        hs_an_get_summary(a, &s);
        assert_int_equal(s.roots, 1);
        /* congested links beyond the root exist (its tree and victims), where
         * route-aware decoding gives enough data on them; blind decoding
         * (UGAL is not table-determined) still names the senders from the
         * records */
        if (strcmp(s.decoder, "route-aware") == 0)
            assert_true(s.links_congested > 1);
        uint32_t nd2[16];
        assert_int_equal(hs_an_finding_nodes(a, 0, nd2, 16), 1 + tc.senders);
        hs_an_free(a);
        an_end(&R);
    }
}

/* ---- mapping ---------------------------------------------------------------------- */

/* Completion time of one all-to-all burst within groups under a mapping. */
static hs_time burst(const char *spec, uint32_t ranks, uint32_t group, const uint32_t *map,
                     uint64_t bytes)
{
    an_run R;
    an_begin(&R, spec, 99);
    for (uint32_t s = 0; s < ranks; s++)
        for (uint32_t d = 0; d < ranks; d++)
            if (s != d && s / group == d / group && map[s] != map[d])
                assert_int_equal(hs_fabric_inject(R.f, 0, map[s], map[d], bytes, 1, 1, 1), 0);
    assert_true(hs_fabric_run(R.f, HS_TIME_NEVER) >= 0);
    hs_time t = R.last_delivery;
    an_end(&R);
    return t;
}

static void mapping_case(const char *spec, uint32_t ranks, uint32_t group, uint32_t pod,
                         double load, uint64_t seed)
{
    /* scatter: consecutive ranks of a group on different pods */
    uint32_t map[256], npods = ranks / pod;
    for (uint32_t r = 0; r < ranks; r++)
        map[r] = (r % npods) * pod + r / npods;
    an_run R;
    an_begin(&R, spec, seed);
    an_ranks(&R, ranks, map);
    an_phase(&R, 1, "alltoall", "collective", -1, "alltoall", 1);
    for (uint32_t s = 0; s < ranks; s++)
        for (uint32_t d = 0; d < ranks; d++)
            if (s != d && s / group == d / group)
                an_stream(&R, map[s], map[d], load / (group - 1), 4096, 1, 1, 0, 200 * US, s, d);
    an_finish(&R);
    hs_analysis *a = analyze(&R);
    print_message("mapping %s, %u ranks in groups of %u:\n", spec, ranks, group);
    print_findings(a);
    assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_MAPPING);
    assert_int_equal(count_kind(a, HS_AN_PATTERN), 0);
    /* the suggestion keeps every group inside one pod */
    uint32_t *sug, n;
    hs_error e;
    assert_int_equal(hs_an_suggest_mapping(a, &sug, &n, &e), 0);
    assert_int_equal(n, ranks);
    uint8_t used[1024] = {0};
    for (uint32_t r = 0; r < ranks; r++) {
        assert_int_equal(sug[r] / pod, sug[r - r % group] / pod);
        assert_false(used[sug[r]]);   /* a permutation of the job's nodes */
        used[sug[r]] = 1;
    }
    double now, later, rb_now, rb_later;
    assert_int_equal(hs_an_mapping_cost(a, map, &rb_now, &now), 0);
    assert_int_equal(hs_an_mapping_cost(a, sug, &rb_later, &later), 0);
    assert_true(later < now);
    /* and it is faster when simulated again */
    hs_time t0 = burst(spec, ranks, group, map, 64 << 10);
    hs_time t1 = burst(spec, ranks, group, sug, 64 << 10);
    print_message("  burst: scattered %.1f us, suggested %.1f us\n", t0 / 1e6, t1 / 1e6);
    assert_true(t1 * 3 < t0 * 2);
    free(sug);
    hs_an_free(a);
    an_end(&R);
}

static void test_mapping_groups(void **state)
{
    (void)state;
    mapping_case("fattree:k=8,n=2,taper=4", 64, 8, 8, 0.6, 11);
    mapping_case("fattree:down=4x4x4,up=1x2x2", 64, 16, 16, 0.5, 12);
}

/* ---- interference ------------------------------------------------------------------ */

static void interference_fattree(uint64_t seed, double app_load, int stride, hs_time dur)
{
    an_run R;
    an_begin(&R, "fattree:k=8,n=2,taper=4", seed);
    /* the application on the first half of every leaf, the congestors (an
     * all-to-all among themselves at 90% of their links) on the second
     * half, so that both use every up-link (D-mod-K spreads destinations
     * over up-links by their low digits) */
    uint32_t map[64], n = 0;
    for (uint32_t x = 0; x < 64; x++)
        if (x % 8 < 4)
            map[n++] = x;
    an_ranks(&R, n, map);
    an_phase(&R, 2, "tag 2", "p2p", 2, NULL, 1);
    an_phase(&R, 100, "congestor", "background", -1, NULL, 0);
    R.bg_spec = "alltoall congestor";
    for (uint32_t r = 0; r < n; r++) {
        uint32_t d = (r + (uint32_t)stride) % n;
        an_stream(&R, map[r], map[d], app_load, 4096, 2, 1, 0, dur, r, d);
    }
    for (uint32_t x = 0; x < 64; x++) {
        if (x % 8 < 4)
            continue;
        R.bg_nodes[R.nbg++] = x;
        for (int k = 0; k < 8; k++) {
            uint32_t d;
            do
                d = (uint32_t)(an_u01(&R) * 64);
            while (d == x || d % 8 < 4);
            an_stream(&R, x, d, 0.9 / 8, 4096, 100, 0, 0, dur, 0, 0);
        }
    }
    an_finish(&R);
    hs_analysis *a = analyze(&R);
    print_message("interference, app load %.2f stride %d:\n", app_load, stride);
    print_findings(a);
    assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_INTERFERENCE);
    assert_int_equal(count_kind(a, HS_AN_PATTERN), 0);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 0);
    uint32_t lk[256];
    size_t nl = hs_an_finding_links(a, 0, lk, 256);
    assert_true(nl >= 1);
    for (size_t i = 0; i < nl && i < 256; i++) {
        hs_an_link L;
        hs_an_link_get(a, lk[i], &L);
        assert_true(L.is_congested);
        assert_true(L.load_busy < 0.5);
    }
    hs_an_free(a);
    an_end(&R);
}

static void test_interference(void **state)
{
    (void)state;
    interference_fattree(21, 0.06, 5, 1500 * US);
    interference_fattree(22, 0.1, 13, 1000 * US);
    /* dragonfly (one global link per group pair, minimal routing): nodes of
     * group 0 flood group 1 through their one global link; the application's
     * nodes share routers with them and send lightly to group 1, so their
     * packets queue behind the flood at the router that owns the link */
    an_run R;
    an_begin(&R, "dragonfly:a=4,p=2,h=2,g=9", 23);
    static const uint32_t app_nodes[] = { 4, 6, 1, 9, 10, 11 };
    static const uint32_t flood[] = { 2, 3, 5, 7 };
    an_ranks(&R, 6, app_nodes);
    an_phase(&R, 4, "tag 4", "p2p", 4, NULL, 1);
    an_phase(&R, 200, "congestor", "background", -1, NULL, 0);
    R.bg_spec = "group-to-group congestor";
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t d = 3; d < 6; d++)
            an_stream(&R, app_nodes[r], app_nodes[d], 0.04, 4096, 4, 1, 0, 1000 * US, r, d);
    for (uint32_t i = 0; i < 4; i++) {
        R.bg_nodes[R.nbg++] = flood[i];
        an_stream(&R, flood[i], 12 + i, 0.9, 4096, 200, 0, 0, 1000 * US, 0, 0);
    }
    an_finish(&R);
    hs_analysis *a = analyze(&R);
    print_message("interference on a dragonfly:\n");
    print_findings(a);
    assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_INTERFERENCE);
    assert_int_equal(count_kind(a, HS_AN_PATTERN), 0);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 0);
    hs_an_free(a);
    an_end(&R);
}

/* ---- two causes ----------------------------------------------------------------------- */

/* An all-to-all in groups scattered over the machine (the application's
 * own traffic overloads interior links: mapping) on half of the nodes,
 * and with bg, congestors on the other half sending to one of them (an
 * incast whose funnel shares the down-links into that node's leaf with the
 * application's packets to its neighbours: interference). */
static hs_analysis *mapping_bg_run(an_run *R, const char *spec, uint32_t nodes, uint32_t leaf,
                                   int bg, double bg_load, uint64_t seed)
{
    an_begin(R, spec, seed);
    uint32_t map[256] = {0}, n = 0, nleaves = nodes / leaf, half = leaf / 2;
    /* the application on the first half of every leaf, rank r on leaf
     * r % nleaves: a group of consecutive ranks spans the leaves */
    for (uint32_t r = 0; r < nleaves * half; r++)
        map[n++] = (r % nleaves) * leaf + r / nleaves;
    an_ranks(R, n, map);
    an_phase(R, 1, "alltoall", "collective", -1, "alltoall", 1);
    if (bg) {
        an_phase(R, 100, "congestor", "background", -1, NULL, 0);
        R->bg_spec = "incast congestor";
    }
    hs_time dur = 300 * US;
    uint32_t group = 8;
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t d = 0; d < n; d++)
            if (s != d && s / group == d / group)
                an_stream(R, map[s], map[d], 0.6 / (group - 1), 4096, 1, 1, 0, dur, s, d);
    uint32_t target = half;   /* a congestor's node on leaf 0 */
    for (uint32_t x = 0; bg && x < nodes; x++) {
        if (x % leaf < half || x == target)
            continue;
        R->bg_nodes[R->nbg++] = x;
        an_stream(R, x, target, bg_load, 4096, 100, 0, 0, dur, 0, 0);
    }
    an_finish(R);
    return analyze(R);
}

/* Both causes at once, as separate roots: the all-to-all groups scattered
 * over the leaves of a tapered fat-tree congest the down-links into the
 * leaves (mapping: so they do alone), and the congestors' incast into a
 * node of leaf 0 congests the up-links the application's packets share
 * with it, where the application's own load is light (interference).
 * Both findings, each once, and no pattern.  (Where the background's
 * links join the application's own cluster, the integration test
 * analyzer.sh has a replayed, truth-checked run.) */
static void test_mapping_plus_background(void **state)
{
    (void)state;
    an_run R;
    hs_analysis *a = mapping_bg_run(&R, "fattree:k=8,n=2,taper=4", 64, 8, 0, 0, 51);
    print_message("mapping alone:\n");
    print_findings(a);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 1);
    assert_int_equal(count_kind(a, HS_AN_INTERFERENCE), 0);
    assert_int_equal(count_kind(a, HS_AN_PATTERN), 0);
    hs_an_free(a);
    an_end(&R);
    a = mapping_bg_run(&R, "fattree:k=8,n=2,taper=4", 64, 8, 1, 0.3, 51);
    print_message("mapping plus background:\n");
    print_findings(a);
    assert_int_equal(count_kind(a, HS_AN_MAPPING), 1);
    assert_int_equal(count_kind(a, HS_AN_INTERFERENCE), 1);
    assert_int_equal(count_kind(a, HS_AN_PATTERN), 0);
    hs_an_free(a);
    an_end(&R);
}

/* ---- none --------------------------------------------------------------------------- */

/* A job alone: the same light stream next to heavy traffic, but that
 * traffic is the job's own other phase (unmonitored, app = 1) and the run
 * has no background.  Interference is impossible; the congestion must be
 * attributed to the job. */
static void test_alone_never_interference(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "fattree:k=8,n=2,taper=4", 41);
    uint32_t map[64];
    for (uint32_t x = 0; x < 64; x++)
        map[x] = x;
    an_ranks(&R, 64, map);
    an_phase(&R, 2, "tag 2", "p2p", 2, NULL, 1);
    an_phase(&R, 9, "tag 9", "p2p", 9, NULL, 1);
    hs_time dur = 200 * US;
    for (uint32_t x = 0; x < 64; x++) {
        if (x % 8 < 4) {
            uint32_t d = (x + 8) % 64;
            an_stream(&R, x, d, 0.05, 4096, 2, 1, 0, dur, x, d);
            continue;
        }
        for (int k = 0; k < 8; k++) {
            uint32_t d;
            do
                d = (uint32_t)(an_u01(&R) * 64);
            while (d == x || d % 8 < 4);
            an_stream(&R, x, d, 0.9 / 8, 4096, 9, 0, 0, dur, x, d);
        }
    }
    an_finish(&R);
    hs_analysis *a = analyze(&R);
    print_message("alone:\n");
    print_findings(a);
    hs_an_summary s;
    hs_an_get_summary(a, &s);
    assert_true(s.links_congested > 0);
    assert_int_equal(count_kind(a, HS_AN_INTERFERENCE), 0);
    assert_int_not_equal(hs_an_finding_kind(a, 0), HS_AN_NONE);
    assert_int_not_equal(hs_an_finding_kind(a, 0), HS_AN_UNDECIDED);
    hs_an_free(a);
    an_end(&R);
}

static void test_none(void **state)
{
    (void)state;
    static const struct { const char *spec; uint32_t nodes; double load; } cases[] = {
        { "fattree:k=8,n=2", 64, 0.15 },
        { "torus:4x4x2", 32, 0.1 },
        { "dragonfly:a=4,p=2,h=2,g=9", 72, 0.1 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        an_run R;
        an_begin(&R, cases[c].spec, 31 + c);
        an_ranks(&R, cases[c].nodes, NULL);
        an_phase(&R, 7, "halo", "p2p", 7, NULL, 1);
        for (uint32_t r = 0; r < cases[c].nodes; r++) {
            uint32_t d = r ^ 1;
            an_stream(&R, r, d, cases[c].load, 4096, 7, 1, 0, 300 * US, r, d);
        }
        an_finish(&R);
        hs_analysis *a = analyze(&R);
        print_message("none %s:\n", cases[c].spec);
        print_findings(a);
        assert_int_equal(hs_an_nfindings(a), 1);
        assert_int_equal(hs_an_finding_kind(a, 0), HS_AN_NONE);
        hs_an_summary s;
        hs_an_get_summary(a, &s);
        assert_int_equal(s.links_congested, 0);
        assert_true(s.links_ok > 0);
        assert_non_null(strstr(hs_an_finding_summary(a, 0), "No link is congested"));
        hs_an_free(a);
        an_end(&R);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pattern_incast),
        cmocka_unit_test(test_pattern_fabric_incast_bg),
        cmocka_unit_test(test_join_incast_or_exchange),
        cmocka_unit_test(test_mapping_groups),
        cmocka_unit_test(test_interference),
        cmocka_unit_test(test_alone_never_interference),
        cmocka_unit_test(test_mapping_plus_background),
        cmocka_unit_test(test_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
