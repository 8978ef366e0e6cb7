/* Unit tests for fabric/pdes.c: the partition of a network over the
 * processes of a parallel run (per family), its cut and its lookahead, on
 * networks small enough to count by hand; and the event order that does
 * not depend on the partition (engine.h): the same run, whatever order the
 * devices are numbered in, is not tested here but by
 * tests/integration/pdes.sh once the parallel engine exists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/fabric.h"
#include "../../fabric/pdes.h"
#include "../../fabric/engine.h"

#define RD 100000  /* routing delay, ps */

static hs_topo *make(const char *spec)
{
    hs_topo *t = NULL;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_topo_create(spec, &t, &e);
    if (rc)
        fail_msg("%s: %s", spec, hs_error_str(&e, rc));
    return t;
}

static void check_parts(const hs__part *p, const uint32_t *want, uint32_t S)
{
    for (uint32_t s = 0; s < S; s++)
        if (p->sw_part[s] != want[s])
            fail_msg("switch %u: part %u, want %u", s, p->sw_part[s], want[s]);
}

/* k=4, n=2: leaves 0..3, spines 4..7, every leaf cabled to every spine. */
static void test_fattree(void **state)
{
    (void)state;
    hs_topo *t = make("fattree:k=4,n=2");
    hs__part p;
    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    const uint32_t want[8] = { 0, 0, 1, 1, 0, 0, 1, 1 };
    check_parts(&p, want, 8);
    /* leaves {0,1} x spines {6,7} and leaves {2,3} x spines {4,5}: 8
     * cables, 16 directed links */
    assert_int_equal(p.cut, 16);
    assert_int_equal(p.nodes[0], 8);
    assert_int_equal(p.nodes[1], 8);
    assert_int_equal(p.switches[0], 4);
    assert_int_equal(p.lookahead, 100000);
    assert_int_equal(p.lookahead_pkt, 100000 + RD);
    hs__partition_free(&p);

    /* one part: nothing cut, no bound */
    assert_int_equal(hs__partition(t, 1, RD, &p), 0);
    assert_int_equal(p.cut, 0);
    assert_true(p.lookahead == HS_TIME_NEVER);
    assert_int_equal(p.nodes[0], 16);
    hs__partition_free(&p);

    /* more parts than switches, or none */
    assert_int_equal(hs__partition(t, 9, RD, &p), HS_EINVAL);
    assert_int_equal(hs__partition(t, 0, RD, &p), HS_EINVAL);
    hs_topo_free(t);
}

/* g=3 groups of a=2 routers: whole groups per part; only the global
 * cables (glat 200 ns, one between each pair of groups) are cut. */
static void test_dragonfly(void **state)
{
    (void)state;
    hs_topo *t = make("dragonfly:a=2,p=2,h=1,g=3");
    hs__part p;
    assert_int_equal(hs__partition(t, 3, RD, &p), 0);
    const uint32_t w3[6] = { 0, 0, 1, 1, 2, 2 };
    check_parts(&p, w3, 6);
    assert_int_equal(p.cut, 6);
    assert_int_equal(p.lookahead, 200000);      /* glat, not the local 100 ns */
    assert_int_equal(p.lookahead_pkt, 200000 + RD);
    assert_int_equal(p.nodes[2], 4);
    hs__partition_free(&p);

    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    const uint32_t w2[6] = { 0, 0, 0, 0, 1, 1 };  /* groups 0,1 | 2 */
    check_parts(&p, w2, 6);
    assert_int_equal(p.cut, 4);
    assert_int_equal(p.nodes[0], 8);
    hs__partition_free(&p);

    /* more parts than groups: contiguous routers, local links cut too */
    assert_int_equal(hs__partition(t, 4, RD, &p), 0);
    const uint32_t w4[6] = { 0, 0, 1, 2, 2, 3 };
    check_parts(&p, w4, 6);
    assert_int_equal(p.lookahead, 100000);
    hs__partition_free(&p);
    hs_topo_free(t);
}

/* 4x4 torus, dimension 0 fastest: two parts are the slabs y = 0..1 and
 * y = 2..3, cut between y = 1 and 2 and across the wrap-around. */
static void test_torus(void **state)
{
    (void)state;
    hs_topo *t = make("torus:4x4");
    hs__part p;
    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    for (uint32_t s = 0; s < 16; s++)
        assert_int_equal(p.sw_part[s], s < 8 ? 0 : 1);
    assert_int_equal(p.cut, 16);
    hs__partition_free(&p);
    assert_int_equal(hs__partition(t, 3, RD, &p), 0);
    assert_int_equal(p.nodes[0], 6);
    assert_int_equal(p.nodes[1], 5);
    assert_int_equal(p.nodes[2], 5);
    hs__partition_free(&p);
    /* a mesh has no wrap-around: half the cut */
    hs_topo *m = make("mesh:4x4");
    assert_int_equal(hs__partition(m, 2, RD, &p), 0);
    assert_int_equal(p.cut, 8);
    hs__partition_free(&p);
    hs_topo_free(m);
    hs_topo_free(t);
}

/* Weighted partitions (hs__partition_w): the family's structure, blocks
 * cut by cumulative weight, every part non-empty. */
static void test_weighted(void **state)
{
    (void)state;
    /* dragonfly g=3 groups of 2 routers: group 0 carries 10 of 14, so it
     * is a part alone (by count it would share with group 1) */
    hs_topo *t = make("dragonfly:a=2,p=1,h=1,g=3");
    hs__part p;
    const double w[6] = { 5, 5, 1, 1, 1, 1 };
    assert_int_equal(hs__partition_w(t, 2, RD, w, &p), 0);
    const uint32_t want[6] = { 0, 0, 1, 1, 1, 1 };
    check_parts(&p, want, 6);
    assert_int_equal(p.nodes[0], 2);
    assert_int_equal(p.nodes[1], 4);
    hs__partition_free(&p);
    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    const uint32_t by_count[6] = { 0, 0, 0, 0, 1, 1 };
    check_parts(&p, by_count, 6);
    hs__partition_free(&p);
    /* more parts than groups: routers, by weight */
    assert_int_equal(hs__partition_w(t, 4, RD, w, &p), 0);
    const uint32_t four[6] = { 0, 1, 2, 2, 3, 3 };
    check_parts(&p, four, 6);
    hs__partition_free(&p);
    hs_topo_free(t);

    /* torus 4x2: all the weight on switch 0; three parts still get a
     * switch each: {0}, {1}, {2..7} */
    t = make("torus:4x2");
    const double hot[8] = { 100, 0, 0, 0, 0, 0, 0, 0 };
    assert_int_equal(hs__partition_w(t, 3, RD, hot, &p), 0);
    const uint32_t want3[8] = { 0, 1, 2, 2, 2, 2, 2, 2 };
    check_parts(&p, want3, 8);
    assert_int_equal(p.switches[0], 1);
    assert_int_equal(p.switches[1], 1);
    assert_int_equal(p.switches[2], 6);
    hs__partition_free(&p);
    /* uniform weights: the unweighted slabs */
    const double flat[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    hs__part q;
    assert_int_equal(hs__partition_w(t, 2, RD, flat, &p), 0);
    assert_int_equal(hs__partition(t, 2, RD, &q), 0);
    check_parts(&p, q.sw_part, 8);
    assert_int_equal(p.cut, q.cut);
    hs__partition_free(&p);
    hs__partition_free(&q);
    hs_topo_free(t);
}

/* ---- a parallel run in one process ------------------------------------------
 * np fabrics, each simulating one part, stepped window by window with the
 * outboxes moved by hand (what hs_fabric_run_parallel does over a
 * transport), against the sequential run of the same injections: the same
 * deliveries (cookie and time), the same events, hops and end time, the same
 * ground truth on every link. */
typedef struct dl {
    uint64_t cookie;
    hs_time t;
} dl;
typedef struct dlist {
    dl *v;
    size_t n, cap;
} dlist;

/* The payload of a message with cookie c (every other message has one):
 * 1 + c % 64 bytes of a pattern of c, so that any mix-up shows. */
static size_t payload_of(uint64_t c, unsigned char *b)
{
    if (c & 1)
        return 0;
    size_t n = 1 + (size_t)(c % HS_FABRIC_PAYLOAD);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(c >> (i % 8 * 8)) ^ (unsigned char)i;
    return n;
}

static void on_dl(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    unsigned char want[HS_FABRIC_PAYLOAD];
    size_t nw = payload_of(cookie, want), n = 99;
    const void *got = hs_fabric_payload(F, &n);
    assert_int_equal(n, nw);
    assert_true(nw ? got && !memcmp(got, want, nw) : got == NULL);
    dlist *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n].cookie = cookie;
    l->v[l->n++].t = t;
}

static int dl_cmp(const void *a, const void *b)
{
    const dl *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

static char *slurp(const char *dir, const char *name, size_t *n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *b = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 65536;
            b = realloc(b, cap);
            assert_non_null(b);
        }
        size_t r = fread(b + *n, 1, cap - *n, f);
        if (!r)
            break;
        *n += r;
    }
    fclose(f);
    return b;
}

static void rm_dir(const char *dir, const char **files, size_t n)
{
    char path[256];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static hs_fabric *build(const char *spec)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.vc_buffer = 8192;     /* small buffers: back-pressure across the cut */
    p.window = 1000000;     /* 1 us windows, at most 4: parts widen them apart */
    p.max_windows = 4;
    p.records_cap = 200;    /* the cap cuts the merged records */
    hs_fabric *F = NULL;
    hs_error e;
    hs_error_clear(&e);
    if (hs_fabric_create(&F, spec, &p, &e))
        fail_msg("%s: %s", spec, hs_error_str(&e, -1));
    return F;
}

/* The same messages for every run: node i sends to i + N/2 (every one
 * crosses a cut of a two-part split) and to a scattered node, messages of
 * 1 to 3 packets, half at time 0 and half later; only the source's part
 * injects. */
static void inject_all(hs_fabric *F)
{
    uint32_t N = F->N;
    uint64_t x = 12345;
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t i = 0; i < N; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t d1 = (i + N / 2) % N, d2 = (uint32_t)((x >> 33) % N);
            uint64_t bytes = 1000 + (x >> 20) % 10000;
            hs_time t = r * 300000 + (x >> 40) % 50000;
            if (!hs_fabric_node_local(F, i))
                continue;
            unsigned char pl[HS_FABRIC_PAYLOAD];
            uint64_t c1 = (uint64_t)r << 32 | i, c2 = 1ull << 60 | (uint64_t)r << 32 | i;
            size_t n1 = payload_of(c1, pl);
            assert_int_equal(hs_fabric_inject_payload(F, t, i, d1, bytes, 0, 1, 0, c1, pl, n1), 0);
            if (d2 != i) {
                size_t n2 = payload_of(c2, pl);
                assert_int_equal(hs_fabric_inject_payload(F, t, i, d2, 64, 0, 1, 0, c2, pl, n2),
                                 0);
            }
        }
}

static void check_parallel(const char *spec, unsigned np)
{
    hs_fabric *S = build(spec);
    dlist ls = { 0 };
    hs_fabric_callbacks cb = { NULL, on_dl, NULL };
    hs_fabric_set_callbacks(S, &cb, &ls);
    inject_all(S);
    assert_int_equal(hs_fabric_run(S, HS_TIME_NEVER), 1);
    hs_fabric_stats ss;
    hs_fabric_get_stats(S, &ss);
    assert_true(ss.messages_delivered > 0);

    hs_fabric *P[4];
    dlist lp = { 0 };
    for (unsigned k = 0; k < np; k++) {
        P[k] = build(spec);
        assert_int_equal(hs_fabric_partition(P[k], np, k), 0);
        hs_fabric_set_callbacks(P[k], &cb, &lp);
        inject_all(P[k]);
    }
    hs_time la = hs_fabric_lookahead(P[0]);
    assert_true(la > 0);
    assert_true((la == HS_TIME_NEVER) == (np == 1));
    unsigned windows = 0;
    uint64_t crossed = 0;
    for (;;) {
        hs_time t = HS_TIME_NEVER;
        for (unsigned k = 0; k < np; k++) {
            hs_time tk = hs_fabric_next_time(P[k]);
            if (tk < t)
                t = tk;
        }
        if (t == HS_TIME_NEVER)
            break;
        windows++;
        for (unsigned k = 0; k < np; k++)
            assert_int_equal(hs_fabric_run_window(P[k], la == HS_TIME_NEVER ? la : t + la), 0);
        for (unsigned k = 0; k < np; k++)
            for (unsigned j = 0; j < np; j++) {
                const void *b;
                size_t n;
                assert_int_equal(hs_fabric_outbox(P[k], j, &b, &n), 0);
                if (j == k || !n)
                    continue;
                crossed += n;
                assert_int_equal(hs_fabric_inbox(P[j], b, n), 0);
            }
        for (unsigned k = 0; k < np; k++)
            hs_fabric_outbox_clear(P[k]);
    }
    assert_true(np == 1 || windows > 1);
    assert_true(np == 1 || crossed > 0);
    hs_fabric_stats sum = { 0 };
    hs_time end = 0;
    for (unsigned k = 0; k < np; k++) {
        hs_fabric_stats s;
        hs_fabric_get_stats(P[k], &s);
        sum.events += s.events;
        sum.hops += s.hops;
        sum.packets_delivered += s.packets_delivered;
        sum.messages_delivered += s.messages_delivered;
        sum.bytes_delivered += s.bytes_delivered;
        assert_int_equal(hs_fabric_held(P[k]), 0);
        if (hs_fabric_now(P[k]) > end)
            end = hs_fabric_now(P[k]);
    }
    assert_int_equal(sum.events, ss.events);
    assert_int_equal(sum.hops, ss.hops);
    assert_int_equal(sum.packets_delivered, ss.packets_delivered);
    assert_int_equal(sum.messages_delivered, ss.messages_delivered);
    assert_int_equal(sum.bytes_delivered, ss.bytes_delivered);
    assert_int_equal(end, hs_fabric_now(S));
    assert_int_equal(lp.n, ls.n);
    qsort(ls.v, ls.n, sizeof *ls.v, dl_cmp);
    qsort(lp.v, lp.n, sizeof *lp.v, dl_cmp);
    for (size_t i = 0; i < ls.n; i++)
        if (ls.v[i].cookie != lp.v[i].cookie || ls.v[i].t != lp.v[i].t)
            fail_msg("%s np=%u: delivery %zu: %llx at %llu, sequential %llx at %llu", spec, np,
                     i, (unsigned long long)lp.v[i].cookie, (unsigned long long)lp.v[i].t,
                     (unsigned long long)ls.v[i].cookie, (unsigned long long)ls.v[i].t);
    /* ground truth: each link's is kept by its transmitter's part */
    const hs__truth *ts = hs__truth_sum(S);
    for (uint32_t l = 1; l <= S->L; l++) {
        hs__truth a = { 0 };
        for (unsigned k = 0; k < np; k++) {
            const hs__truth *tp = hs__truth_sum(P[k]);
            a.packets += tp[l].packets;
            a.bytes += tp[l].bytes;
            a.busy += tp[l].busy;
            a.stall += tp[l].stall;
            a.congested += tp[l].congested;
        }
        if (a.packets != ts[l].packets || a.bytes != ts[l].bytes || a.busy != ts[l].busy ||
            a.stall != ts[l].stall || a.congested != ts[l].congested)
            fail_msg("%s np=%u: link %u truth differs (stall %llu vs %llu)", spec, np, l,
                     (unsigned long long)a.stall, (unsigned long long)ts[l].stall);
    }
    /* the run directory: the parts' results merged into part 0's fabric
     * give the sequential run's files byte for byte */
    for (unsigned k = 1; k < np; k++) {
        void *b;
        size_t n;
        assert_int_equal(hs_fabric_results_pack(P[k], &b, &n), 0);
        assert_int_equal(hs_fabric_results_merge(P[0], b, n), 0);
        free(b);
    }
    assert_int_equal(hs_fabric_results_finish(P[0]), 0);
    char ds[64], dp[64];
    snprintf(ds, sizeof ds, "/tmp/hs-pdes-%d-s", (int)getpid());
    snprintf(dp, sizeof dp, "/tmp/hs-pdes-%d-p", (int)getpid());
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_fabric_write_rundir(S, ds, NULL, NULL, &e), 0);
    assert_int_equal(hs_fabric_write_rundir(P[0], dp, NULL, NULL, &e), 0);
    static const char *files[] = { "manifest.json", "links.tsv", "nodes.tsv", "switches.tsv",
                                   "phases.tsv", "counters.bin", "records.bin", "truth.bin" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t na, nb;
        char *a = slurp(ds, files[i], &na), *b = slurp(dp, files[i], &nb);
        if (na != nb || memcmp(a, b, na))
            fail_msg("%s np=%u: %s differs from the sequential run's", spec, np, files[i]);
        free(a);
        free(b);
    }
    rm_dir(ds, files, sizeof files / sizeof *files);
    rm_dir(dp, files, sizeof files / sizeof *files);
    for (unsigned k = 0; k < np; k++)
        hs_fabric_destroy(P[k]);
    hs_fabric_destroy(S);
    free(ls.v);
    free(lp.v);
}

static void test_parallel_inprocess(void **state)
{
    (void)state;
    static const char *specs[] = {
        "fattree:k=4,n=2",
        "fattree:k=4,n=2,routing=adaptive",
        "dragonfly:a=2,p=2,h=1,g=3,routing=ugal",
        "dragonfly:a=2,p=2,h=1,g=3,routing=valiant",
        "torus:4x4",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        for (unsigned np = 1; np <= 3; np++)
            check_parallel(specs[i], np);
}

static void test_parallel_refuses(void **state)
{
    (void)state;
    hs_fabric *F = build("dragonfly:a=2,p=2,h=1,g=3,routing=ugal-g");
    assert_int_equal(hs_fabric_partition(F, 2, 0), HS_ENOTSUP);
    hs_fabric_destroy(F);
    F = build("torus:4x4,router=booksim");
    assert_int_equal(hs_fabric_partition(F, 2, 0), HS_ENOTSUP);
    hs_fabric_destroy(F);
    F = build("torus:4x4");
    assert_int_equal(hs_fabric_partition(F, 2, 2), HS_EINVAL);
    assert_int_equal(hs_fabric_partition(F, 2, 1), 0);
    assert_int_equal(hs_fabric_node_local(F, 3), 0);   /* nodes 0-7 are part 0's */
    assert_int_equal(hs_fabric_node_local(F, 12), 1);
    assert_int_equal(hs_fabric_inject(F, 0, 3, 12, 100, 0, 0, 0), HS_EINVAL);
    hs_fabric_destroy(F);
    F = build("torus:4x4");
    assert_int_equal(hs_fabric_inject(F, 0, 0, 1, 100, 0, 0, 0), 0);
    assert_int_equal(hs_fabric_partition(F, 2, 0), HS_EINVAL);  /* after a post */
    hs_fabric_destroy(F);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_dragonfly),
        cmocka_unit_test(test_torus),
        cmocka_unit_test(test_weighted),
        cmocka_unit_test(test_parallel_inprocess),
        cmocka_unit_test(test_parallel_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
