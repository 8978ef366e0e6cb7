/* Route-aware candidate sets of dragonfly Valiant/UGAL packets (analyzer/
 * route.c): each candidate link carries the lengths of the candidate paths
 * through it, and a record keeps only the links on a path of its hop count.
 *   - a Valiant run (a=4, p=2, h=2, g=5) from node 0 (g0r0) to node 17
 *     (g2r0): the entry's lengths are exactly the minimal path's and those
 *     of the six detours (each of the two parallel global links from group
 *     0 to each of the three other groups, then the minimal tables on from
 *     where it lands), each link's mask exactly the lengths of the walks
 *     through it, enumerated here from the link table;
 *   - every record of the run carries a hop count that is one of its
 *     entry's lengths (the engine's paths are among the candidates with
 *     their lengths: no record falls back to the whole set), and the links
 *     the decoder offers for it are exactly those on a path of that length;
 *   - the hop counts are Valiant lengths (4 to 7 links), and candidates on
 *     paths of other lengths are left out;
 *   - an adaptive fat-tree (k=4, n=3): every candidate link between pods
 *     carries the one length 6, between leaves of one pod 4.
 * And the judge's score test with each link's own packets' hop counts
 * (analyzer/analyze.c hop_sums, hs__an_hbar): on a fat-tree, a node link
 * that only packets within one leaf switch cross (2 links each) has mean
 * hops exactly 2 where the run's mean is near 4, a link of the 4-link
 * paths exactly 4, and the lightly used node link, with no flagged record,
 * is judged clear with its 2 hops where the run's mean leaves it
 * undecided. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "an_runs.h"
#include "hopscope/analyzer.h"
#include "../../analyzer/route.h"

#define NMAX 64

/* One walk: the links and their count. */
typedef struct walk {
    uint32_t l[NMAX];
    unsigned n;
} walk;

/* From switch s along the minimal tables to dsw, appended to w; 1 when
 * it gets there. */
static int minimal_on(const hs__run *r, uint32_t s, uint32_t c, uint32_t dsw, walk *w)
{
    for (unsigned hop = 0; s != dsw; hop++) {
        if (hop > r->S)
            return 0;
        uint32_t l = hs__route_first(r, s, c);
        if (!l)
            return 0;
        w->l[w->n++] = l;
        s = r->lk[l].to;
    }
    return 1;
}

/* Every candidate walk from s0 to class c: the minimal one, then through
 * each global link leaving s0's group for a group other than the
 * destination's (a local hop to its owner first when that is not s0). */
static unsigned walks(const hs__run *r, uint32_t s0, uint32_t c, walk *out)
{
    uint32_t dsw = r->csw[c];
    int G = r->sw[s0].group, Gd = r->sw[dsw].group;
    unsigned n = 0;
    out[n].n = 0;
    assert_true(minimal_on(r, s0, c, dsw, &out[n]));
    n++;
    for (uint32_t gl = 1; gl <= r->L; gl++) {
        const hs__link *k = &r->lk[gl];
        if (k->kind != HS__LK_SWITCH || r->sw[k->from].group != G ||
            r->sw[k->to].group == G || r->sw[k->to].group == Gd)
            continue;
        walk *w = &out[n];
        w->n = 0;
        if (k->from != s0) {
            uint32_t ll = 0;
            for (uint32_t l = 1; l <= r->L; l++)
                if (r->lk[l].kind == HS__LK_SWITCH && r->lk[l].from == s0 &&
                    r->lk[l].to == k->from)
                    ll = l;
            assert_true(ll != 0);
            w->l[w->n++] = ll;
        }
        w->l[w->n++] = gl;
        assert_true(minimal_on(r, k->to, c, dsw, w));
        n++;
    }
    return n;
}

typedef struct offered {
    uint8_t on[1024];
} offered;

static int keep_all(void *ctx, uint32_t link)
{
    ((offered *)ctx)->on[link] = 1;
    return 1;
}

static void valiant_lengths(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "dragonfly:a=4,p=2,h=2,g=5,routing=valiant", 7);
    an_ranks(&R, 40, NULL);
    an_phase(&R, 1, "p2p", "p2p", 1, NULL, 1);
    an_stream(&R, 0, 17, 0.3, 4096, 1, 1, 0, 40 * HS_PS_PER_US, 0, 17);
    an_stream(&R, 17, 0, 0.3, 4096, 1, 1, 0, 40 * HS_PS_PER_US, 17, 0);
    an_finish(&R);

    hs__run *r;
    hs_error err;
    int rc = hs__an_run_open(R.dir, &r, &err);
    if (rc)
        fail_msg("%s", hs_error_str(&err, rc));
    assert_true(r->L < 1024);
    hs__paths p;
    assert_int_equal(hs__an_paths_init(&p, r, &err), 0);
    assert_true(p.nonminimal);

    /* the entry from g0r0 towards node 17's class, against the walks */
    uint32_t s0 = r->nd[0].sw, c = hs__node_class(r, 17);
    assert_int_equal(r->sw[s0].group, 0);
    assert_int_equal(r->sw[r->csw[c]].group, 2);
    walk w[16];
    unsigned nw = walks(r, s0, c, w);
    assert_int_equal(nw, 7);   /* minimal + 2 parallel global links x 3 groups */
    uint64_t lens = 0, mask[1024] = { 0 };
    for (unsigned i = 0; i < nw; i++) {
        uint64_t b = 1ull << (w[i].n + 2);
        lens |= b;
        for (unsigned j = 0; j < w[i].n; j++)
            mask[w[i].l[j]] |= b;
    }
    hs__pentry *e;
    assert_int_equal(hs__an_paths_get(&p, s0, c, &e), 0);
    assert_int_equal(e->lens, lens);
    unsigned nonzero = 0;
    for (uint32_t l = 1; l <= r->L; l++)
        nonzero += mask[l] != 0;
    assert_int_equal(e->n, nonzero);
    for (uint32_t j = 0; j < e->n; j++)
        assert_int_equal(p.plen[e->off + j], mask[p.pool[e->off + j]]);

    /* every record: its hop count is a candidate length, and the decoder
     * offers exactly the links on a path of that length */
    hs__decoder d;
    assert_int_equal(hs__an_decoder_init(&d, &p, &err), 0);
    hs_linksum *acc = calloc((size_t)r->L + 1, sizeof *acc);
    assert_non_null(acc);
    hs_totals tot;
    memset(&tot, 0, sizeof tot);
    uint64_t seen = 0, records = 0, left_out = 0;
    for (uint64_t i = 0; i < r->R; i++) {
        hs__rec rec;
        hs__rec_get(r, i, &rec);
        hs_field f;
        hs_field_unpack(&r->scheme, rec.field, &f);
        if (f.hop == 0 || f.hop == r->scheme.hop_ovf)
            continue;
        hs__pentry *pe;
        assert_int_equal(hs__an_paths_get(&p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &pe),
                         0);
        assert_true(pe->lens >> f.hop & 1);
        seen |= 1ull << f.hop;
        records++;
        offered o;
        memset(&o, 0, sizeof o);
        assert_int_equal(hs__an_route_add(&d, i, keep_all, &o, acc, &tot, NULL), 0);
        assert_int_equal(hs__an_paths_get(&p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &pe),
                         0);
        for (uint32_t j = 0; j < pe->n; j++) {
            assert_int_equal(o.on[p.pool[pe->off + j]], (int)(p.plen[pe->off + j] >> f.hop & 1));
            left_out += !o.on[p.pool[pe->off + j]];
        }
        assert_int_equal(o.on[r->nd[rec.src].inj], 1);
        assert_int_equal(o.on[r->nd[rec.dst].ej], 1);
    }
    assert_true(records > 100);
    /* Valiant: every packet between groups detours, 4 to 7 links; the
     * candidates on paths of other lengths are left out */
    assert_int_equal(seen & ~0xf0ull, 0);
    assert_true(left_out > 0);
    free(acc);
    hs__an_decoder_free(&d);
    hs__an_paths_free(&p);
    hs__an_run_close(r);
    an_end(&R);
}

/* Adaptive fat-tree: many candidate links, every path between pods 4
 * switch links long, so every candidate carries that one length (and
 * between leaves of one pod, 2 switch links). */
static void adaptive_lengths(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "fattree:k=4,n=3,routing=adaptive", 3);
    an_ranks(&R, 64, NULL);
    an_phase(&R, 1, "p2p", "p2p", 1, NULL, 1);
    /* 4 nodes per leaf, 16 per pod: node 63 in another pod, node 15 on
     * another leaf of node 0's pod */
    an_stream(&R, 0, 63, 0.2, 1024, 1, 1, 0, 20 * HS_PS_PER_US, 0, 63);
    an_stream(&R, 0, 15, 0.2, 1024, 1, 1, 0, 20 * HS_PS_PER_US, 0, 15);
    an_finish(&R);
    hs__run *r;
    hs_error err;
    int rc = hs__an_run_open(R.dir, &r, &err);
    if (rc)
        fail_msg("%s", hs_error_str(&err, rc));
    hs__paths p;
    assert_int_equal(hs__an_paths_init(&p, r, &err), 0);
    assert_false(p.exact);
    assert_int_equal(r->N, 64);
    const uint32_t dst[2] = { 63, 15 };
    const uint64_t len[2] = { 1ull << 6, 1ull << 4 };
    for (int i = 0; i < 2; i++) {
        hs__pentry *e;
        assert_int_equal(hs__an_paths_get(&p, r->nd[0].sw, hs__node_class(r, dst[i]), &e), 0);
        assert_int_equal(e->lens, len[i]);
        assert_true(e->n > (i == 0 ? 4u : 2u));   /* several candidate paths */
        assert_int_equal(e->nlast, 4);   /* the 4 up-ports of the destination leaf */
        for (uint32_t j = 0; j < e->n; j++)
            assert_int_equal(p.plen[e->off + j], len[i]);
    }
    hs__an_paths_free(&p);
    hs__an_run_close(r);
    an_end(&R);
}

static void link_hops(void **state)
{
    (void)state;
    an_run R;
    an_begin(&R, "fattree:k=4,n=2", 5);
    an_ranks(&R, 16, NULL);
    an_phase(&R, 1, "p2p", "p2p", 1, NULL, 1);
    /* node 0 -> node 1 (one leaf: 2 links) lightly, node 2 -> node 12
     * (another leaf: injection, up, down, ejection) heavily */
    an_stream(&R, 0, 1, 0.01, 1024, 1, 1, 0, 160 * HS_PS_PER_US, 0, 1);
    an_stream(&R, 2, 12, 0.3, 1024, 1, 1, 0, 160 * HS_PS_PER_US, 2, 12);
    an_finish(&R);
    hs_analyze_params prm;
    hs_analyze_params_default(&prm);
    hs_analysis *a;
    hs_error err;
    int rc = hs_analyze_run(R.dir, &prm, &a, &err);
    if (rc)
        fail_msg("%s", hs_error_str(&err, rc));
    const hs__run *r = a->r;
    uint32_t inj0 = r->nd[0].inj, inj2 = r->nd[2].inj, ej12 = r->nd[12].ej;
    assert_true(a->hop_n[inj0] > 20 && a->hop_n[inj0] < 60);
    assert_true(a->hop_n[inj2] > 10 * a->hop_n[inj0]);
    assert_true(hs__an_hbar(a, inj0) == 2.0);
    assert_true(hs__an_hbar(a, inj2) == 4.0);
    assert_true(hs__an_hbar(a, ej12) == 4.0);
    /* the up-link node 2's packets take: 4 hops; a link none crosses: the
     * run's mean */
    uint32_t up = 0, idle = 0;
    for (uint32_t l = 1; l <= r->L; l++)
        if (r->lk[l].kind == HS__LK_SWITCH && a->hop_n[l] > 0)
            up = l;
        else if (r->lk[l].kind == HS__LK_SWITCH && !idle)
            idle = l;
    assert_true(up != 0 && idle != 0);
    assert_true(hs__an_hbar(a, up) == 4.0);
    assert_true(hs__an_hbar(a, idle) == a->judge_hbar);
    assert_true(a->judge_hbar > 3.8 && a->judge_hbar < 4.0);
    /* node 0's link: no flagged record; clear with its own 2 hops, and
     * the run's mean alone would leave it undecided */
    const hs_estimate *e = &a->est[inj0];
    assert_true(e->traffic == a->hop_n[inj0]);
    assert_true(e->congested == 0);
    assert_int_equal(a->verdict[inj0], HS__V_CLEAR);
    assert_int_equal(hs__an_judge_one(e, prm.cf_threshold, prm.z, prm.max_traffic_cv,
                                      a->judge_hbar, 1.0, NULL),
                     HS__V_UNDECIDED);
    hs_an_free(a);
    an_end(&R);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valiant_lengths),
        cmocka_unit_test(adaptive_lengths),
        cmocka_unit_test(link_hops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
