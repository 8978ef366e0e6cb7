/* Congestion trees' head-of-line victims (analyzer/trees.c) on small
 * networks built by hand: links, per-link estimates and application loads,
 * and "feeds into" flows as route.c gives them from records, so the
 * expected roots, victims and explained links are exact.
 *   - a heavy root and a light output of the same switch fed by the same
 *     input: the light one is its victim; not when most of its packets
 *     come through an input that feeds no congested output;
 *   - the heaviness ramp: a root just under load_high claims the same
 *     victim as one just over it; a root at 0.3 claims none;
 *   - a chain of light congested links from the heavy root's switch to a
 *     far light root downstream: that root stays a root (the old
 *     union-find clusters made it a victim);
 *   - the spread of a stalled source two head-of-line steps away: claimed
 *     when no light root of it is more congested than the source, not
 *     when one is (another source);
 *   - blind decoding (no flows): one head-of-line step is enough. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../analyzer/route.h"

#define MAXL 32
#define MAXS 8

typedef struct net {
    hs__run r;
    hs__link lk[MAXL + 1];
    uint32_t nports[MAXS];
    hs__paths p;
    size_t flow_off[MAXL + 1];
    uint64_t flow[MAXL * MAXS];
    hs_estimate est[MAXL + 1];
    uint8_t congested[MAXL + 1], explained[MAXL + 1], is_root[MAXL + 1];
    double load_busy[MAXL + 1];
    hs_analysis *a;
} net;

static net *net_new(uint32_t switches)
{
    net *n = calloc(1, sizeof *n);
    assert_non_null(n);
    n->r.S = switches;
    n->r.topo_kind = HS__TOPO_FILE;   /* no fat-tree turn rule */
    n->r.lk = n->lk;
    return n;
}

/* A link; from/to are switch ids or node ids by kind. */
static uint32_t link(net *n, int kind, uint32_t from, uint32_t to)
{
    uint32_t id = ++n->r.L;
    assert_true(id <= MAXL);
    hs__link *k = &n->lk[id];
    k->kind = (uint8_t)kind;
    k->from_kind = kind == HS__LK_INJECTION ? HS__DEV_NODE : HS__DEV_SWITCH;
    k->to_kind = kind == HS__LK_EJECTION ? HS__DEV_NODE : HS__DEV_SWITCH;
    k->from = from;
    k->to = to;
    if (k->from_kind == HS__DEV_SWITCH)
        k->from_port = n->nports[from]++;
    return id;
}

/* The link's estimate (exact traffic), whether it is congested, and the
 * application's load on it. */
static void set(net *n, uint32_t l, double traffic, double cf, double cf_se, double load)
{
    hs_estimate *e = &n->est[l];
    e->traffic = traffic;
    e->congested = cf * traffic;
    e->cf = cf;
    e->cf_se = cf_se;
    e->cf_valid = 1;
    n->congested[l] = cf - 2 * cf_se >= 0.25;
    n->load_busy[l] = load;
}

static void flows_init(net *n)
{
    size_t off = 0;
    for (uint32_t l = 1; l <= n->r.L; l++) {
        n->flow_off[l] = SIZE_MAX;
        if (n->lk[l].to_kind == HS__DEV_SWITCH) {
            n->flow_off[l] = off;
            off += n->nports[n->lk[l].to];
        }
    }
    assert_true(off <= MAXL * MAXS);
    n->p.r = &n->r;
    n->p.flow_off = n->flow_off;
    n->p.flow = n->flow;
}

static void flow(net *n, uint32_t u, uint32_t v, uint64_t count)
{
    assert_int_equal(n->lk[v].from, n->lk[u].to);
    n->flow[n->flow_off[u] + n->lk[v].from_port] = count;
}

/* Runs the trees on the whole "run"; route-aware unless blind. */
static hs_analysis *run(net *n, int blind)
{
    hs_analysis *a = calloc(1, sizeof *a);
    assert_non_null(a);
    hs_analyze_params_default(&a->p);
    a->p.load_low = 0.25;
    a->r = &n->r;
    a->est = n->est;
    a->congested = n->congested;
    a->explained = n->explained;
    a->is_root = n->is_root;
    a->load_busy = n->load_busy;
    a->paths = blind ? NULL : &n->p;
    memset(n->explained, 0, sizeof n->explained);
    memset(n->is_root, 0, sizeof n->is_root);
    assert_int_equal(hs__an_trees(a, NULL), 0);
    n->a = a;
    return a;
}

static void done(net *n)
{
    hs_analysis *a = n->a;
    for (uint32_t q = 0; a && q < a->nroots; q++) {
        free(a->roots[q].links);
        free(a->roots[q].tree);
        free(a->roots[q].victims);
    }
    if (a)
        free(a->roots);
    free(a);
    free(n);
}

/* index of the root whose first link is l, or -1 */
static int root_of(const hs_analysis *a, uint32_t l)
{
    for (uint32_t q = 0; q < a->nroots; q++)
        if (a->roots[q].links[0] == l)
            return (int)q;
    return -1;
}

/* The root links that are not victims, in link order, as a bit mask. */
static uint32_t roots_mask(const hs_analysis *a)
{
    uint32_t m = 0;
    for (uint32_t l = 1; l <= a->r->L; l++)
        if (a->is_root[l])
            m |= 1u << l;
    return m;
}

static uint32_t explained_mask(const net *n)
{
    uint32_t m = 0;
    for (uint32_t l = 1; l <= n->r.L; l++)
        if (n->explained[l])
            m |= 1u << l;
    return m;
}

/* Switch 0 with input u (n0's injection) feeding h (ejection to n1,
 * heavy) and v (to switch 1, light), and input u2 (n3's injection)
 * feeding v only, clear; switch 1 passes v on to n2 (clear). */
typedef struct hol_case {
    net *n;
    uint32_t u, u2, h, v, e2;
} hol_case;

static hol_case hol_build(double h_load, uint64_t u2_to_v)
{
    hol_case c;
    c.n = net_new(2);
    c.u = link(c.n, HS__LK_INJECTION, 0, 0);
    c.u2 = link(c.n, HS__LK_INJECTION, 3, 0);
    c.h = link(c.n, HS__LK_EJECTION, 0, 1);
    c.v = link(c.n, HS__LK_SWITCH, 0, 1);
    c.e2 = link(c.n, HS__LK_EJECTION, 1, 2);
    flows_init(c.n);
    flow(c.n, c.u, c.h, 500);
    flow(c.n, c.u, c.v, 100);
    flow(c.n, c.u2, c.v, u2_to_v);
    flow(c.n, c.v, c.e2, 100 + u2_to_v);
    set(c.n, c.u, 600, 0.6, 0.03, 0.6);
    set(c.n, c.u2, (double)u2_to_v, 0.0, 0.01, 0.1);
    set(c.n, c.h, 500, 0.95, 0.02, h_load);
    set(c.n, c.v, 100 + (double)u2_to_v, 0.5, 0.04, 0.1);
    set(c.n, c.e2, 100 + (double)u2_to_v, 0.0, 0.01, 0.1);
    return c;
}

static void test_hol_victim_adjacent(void **state)
{
    (void)state;
    /* v gets 100 packets through u (blocked heads: all h's) and 50
     * through u2 (no congested output): share 100/150 = 0.67 */
    hol_case c = hol_build(0.9, 50);
    hs_analysis *a = run(c.n, 0);
    assert_int_equal(a->nroots, 2);
    int h = root_of(a, c.h), v = root_of(a, c.v);
    assert_true(h >= 0 && v >= 0);
    assert_true(a->roots[h].heavy);
    assert_int_equal(a->roots[h].victim_of, -1);
    assert_int_equal(a->roots[v].victim_of, h);
    assert_int_equal(a->roots[h].nvictims, 1);
    assert_int_equal(a->roots[h].victims[0], c.v);
    assert_int_equal(roots_mask(a), 1u << c.h);
    /* explained: the heavy root's reach and the victim's */
    assert_int_equal(explained_mask(c.n), (1u << c.u) | (1u << c.h) | (1u << c.v));
    done(c.n);

    /* most of v's packets (300 of 400) come through the clean input:
     * share 0.25, v is a root of its own */
    c = hol_build(0.9, 300);
    a = run(c.n, 0);
    v = root_of(a, c.v);
    assert_true(v >= 0);
    assert_int_equal(a->roots[v].victim_of, -1);
    assert_int_equal(roots_mask(a), (1u << c.h) | (1u << c.v));
    assert_int_equal(explained_mask(c.n), (1u << c.u) | (1u << c.h));
    done(c.n);
}

static void test_heaviness_ramp(void **state)
{
    (void)state;
    /* just under and just over load_high (0.5): the same victim (share
     * 0.67 x heaviness 0.96 or 1) */
    double loads[2] = { 0.49, 0.51 };
    for (int i = 0; i < 2; i++) {
        hol_case c = hol_build(loads[i], 50);
        hs_analysis *a = run(c.n, 0);
        assert_int_equal(a->roots[root_of(a, c.h)].heavy, loads[i] >= 0.5);
        assert_int_equal(a->roots[root_of(a, c.v)].victim_of, root_of(a, c.h));
        assert_int_equal(roots_mask(a), 1u << c.h);
        done(c.n);
    }
    /* 0.35: heaviness 0.4, 0.4 x 0.67 < 0.5: both roots */
    hol_case c = hol_build(0.35, 50);
    hs_analysis *a = run(c.n, 0);
    assert_int_equal(a->roots[root_of(a, c.v)].victim_of, -1);
    assert_int_equal(roots_mask(a), (1u << c.h) | (1u << c.v));
    done(c.n);
    /* 0.45 (heaviness 0.8) with every packet of v blocked by h (no clean
     * input): 0.8 >= 0.5, a victim */
    c = hol_build(0.45, 0);
    a = run(c.n, 0);
    assert_int_equal(a->roots[root_of(a, c.v)].victim_of, root_of(a, c.h));
    done(c.n);
}

/* Switch 0: u feeds h (heavy, to n1) and c1 (to switch 1); c1 -> c2 (to
 * switch 2) -> R (ejection to n2): congested, light, and congested at
 * their own switches.  The old clusters joined R to h through u's shared
 * input and the back-pressure edges c1 -> c2 -> R. */
static void test_far_root_stays(void **state)
{
    (void)state;
    for (int blind = 0; blind < 2; blind++) {
        net *n = net_new(3);
        uint32_t u = link(n, HS__LK_INJECTION, 0, 0);
        uint32_t h = link(n, HS__LK_EJECTION, 0, 1);
        uint32_t c1 = link(n, HS__LK_SWITCH, 0, 1);
        uint32_t c2 = link(n, HS__LK_SWITCH, 1, 2);
        uint32_t R = link(n, HS__LK_EJECTION, 2, 2);
        flows_init(n);
        flow(n, u, h, 500);
        flow(n, u, c1, 200);
        flow(n, c1, c2, 200);
        flow(n, c2, R, 200);
        set(n, u, 700, 0.6, 0.03, 0.7);
        set(n, h, 500, 0.95, 0.02, 0.9);
        set(n, c1, 200, 0.5, 0.04, 0.2);
        set(n, c2, 200, 0.5, 0.04, 0.2);
        set(n, R, 200, 0.6, 0.04, 0.2);
        hs_analysis *a = run(n, blind);
        assert_int_equal(a->nroots, 2);
        int qh = root_of(a, h), qr = root_of(a, R);
        assert_true(qh >= 0 && qr >= 0);
        assert_int_equal(a->roots[qr].victim_of, -1);
        assert_int_equal(a->roots[qh].nvictims, 0);
        assert_int_equal(roots_mask(a), (1u << h) | (1u << R));
        /* R's tree is its own: c2, c1 and u upstream */
        assert_int_equal(a->roots[qr].ntree, 4);
        /* h explains its reach and the sibling c1 (the spread of a source:
         * R, the only light root, is not in it), not c2 or R */
        assert_int_equal(explained_mask(n), (1u << u) | (1u << h) | (1u << c1));
        done(n);
    }
}

/* The spread two steps away.  Switch 0: x (from switch 1) feeds h (heavy,
 * to n1).  Switch 1: input a (n5's injection) feeds x and v1 (to n4,
 * light); input b (from switch 2) feeds v1 only.  Switch 2: input c (n6's
 * injection) feeds b and v3 (to n7, light).  v1 is one head-of-line step
 * from h's reach (a feeds x); v3 is not (c feeds b, and b feeds v1 only):
 * v3 is in h's spread (b upstream of v1, v3 a sibling of b at c).  Its
 * congested fraction against h's decides whether h is the source. */
static void spread_case(double h_cf, double v3_cf, int expect_v3_victim)
{
    net *n = net_new(3);
    uint32_t x = link(n, HS__LK_SWITCH, 1, 0);
    uint32_t h = link(n, HS__LK_EJECTION, 0, 1);
    uint32_t a_ = link(n, HS__LK_INJECTION, 5, 1);
    uint32_t v1 = link(n, HS__LK_EJECTION, 1, 4);
    uint32_t b = link(n, HS__LK_SWITCH, 2, 1);
    uint32_t c = link(n, HS__LK_INJECTION, 6, 2);
    uint32_t v3 = link(n, HS__LK_EJECTION, 2, 7);
    flows_init(n);
    flow(n, x, h, 400);
    flow(n, a_, x, 400);
    flow(n, a_, v1, 100);
    flow(n, b, v1, 100);
    flow(n, c, b, 100);
    flow(n, c, v3, 300);
    set(n, x, 400, 0.8, 0.03, 0.8);
    set(n, h, 400, h_cf, 0.03, 1.0);
    set(n, a_, 500, 0.7, 0.03, 0.5);
    set(n, v1, 200, 0.5, 0.04, 0.1);
    set(n, b, 100, 0.1, 0.03, 0.1);    /* clear: not possibly congested */
    set(n, c, 400, 0.1, 0.02, 0.4);
    set(n, v3, 300, v3_cf, 0.03, 0.1);
    /* b must carry the spread: possibly congested (CF + 2 SE >= 0.25) but
     * not congested, so v1 stays a sink */
    set(n, b, 100, 0.2, 0.04, 0.1);
    hs_analysis *a = run(n, 0);
    int qh = root_of(a, h), q1 = root_of(a, v1), q3 = root_of(a, v3);
    assert_true(qh >= 0 && q1 >= 0 && q3 >= 0);
    assert_int_equal(a->roots[q1].victim_of, qh);
    assert_int_equal(a->roots[q3].victim_of, expect_v3_victim ? qh : -1);
    assert_int_equal(roots_mask(a), (1u << h) | (expect_v3_victim ? 0 : 1u << v3));
    done(n);
}

static void test_spread_source(void **state)
{
    (void)state;
    spread_case(0.95, 0.5, 1);    /* h stalled: the source of its spread */
    spread_case(0.40, 0.6, 0);    /* v3 more congested than h: another source */
}

static void test_blind_one_step(void **state)
{
    (void)state;
    /* without flows every allowed turn counts: v shares input u with h,
     * a victim whatever the clean input carries */
    hol_case c = hol_build(0.9, 300);
    hs_analysis *a = run(c.n, 1);
    assert_int_equal(a->roots[root_of(a, c.v)].victim_of, root_of(a, c.h));
    assert_int_equal(roots_mask(a), 1u << c.h);
    done(c.n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hol_victim_adjacent),
        cmocka_unit_test(test_heaviness_ramp),
        cmocka_unit_test(test_far_root_stays),
        cmocka_unit_test(test_spread_source),
        cmocka_unit_test(test_blind_one_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
