/* Unit tests for fabric/ topologies: units, spec parsing and rejection,
 * link-ID layout and port consistency, routed paths against BFS shortest
 * paths, D-mod-K's non-blocking shifts, dragonfly global arrangement,
 * torus datelines, topology files, diameters and bisections. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/fabric.h"
#include "../../fabric/topo.h"

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

static void test_units(void **state)
{
    (void)state;
    hs_time t;
    uint64_t r;
    assert_int_equal(hs_parse_time("100ns", &t), 0);
    assert_int_equal(t, 100000);
    assert_int_equal(hs_parse_time("163.84ns", &t), 0);
    assert_int_equal(t, 163840);
    assert_int_equal(hs_parse_time("1.5us", &t), 0);
    assert_int_equal(t, 1500000);
    assert_int_equal(hs_parse_time("250", &t), 0);
    assert_int_equal(t, 250);
    assert_int_equal(hs_parse_time("2ms", &t), 0);
    assert_int_equal(t, 2000000000ull);
    assert_int_equal(hs_parse_time("0.1ps", &t), HS_ERANGE);
    assert_int_equal(hs_parse_time("1e3ns", &t), HS_EINVAL);
    assert_int_equal(hs_parse_time("-1ns", &t), HS_EINVAL);
    assert_int_equal(hs_parse_time("10 ns", &t), HS_EINVAL);
    assert_int_equal(hs_parse_time("", &t), HS_EINVAL);
    assert_int_equal(hs_parse_time("1.2.3ns", &t), HS_EINVAL);
    assert_int_equal(hs_parse_rate("25GB/s", &r), 0);
    assert_int_equal(r, 25000000000ull);
    assert_int_equal(hs_parse_rate("200Gb/s", &r), 0);
    assert_int_equal(r, 25000000000ull);
    assert_int_equal(hs_parse_rate("400Gbps", &r), 0);
    assert_int_equal(r, 50000000000ull);
    assert_int_equal(hs_parse_rate("12.5GB/s", &r), 0);
    assert_int_equal(r, 12500000000ull);
    assert_int_equal(hs_parse_rate("1000", &r), 0);
    assert_int_equal(r, 1000);
    assert_int_equal(hs_parse_rate("25G", &r), HS_EINVAL);
    assert_int_equal(hs_parse_rate("0GB/s", &r), HS_ERANGE);
    assert_int_equal(hs_parse_rate("3b/s", &r), HS_ERANGE);
    assert_int_equal(hs_parse_rate("GB/s", &r), HS_EINVAL);
    /* exact ceilings */
    assert_int_equal(hs_ser_time(4096, 25000000000ull), 163840);
    assert_int_equal(hs_ser_time(1, 25000000000ull), 40);
    assert_int_equal(hs_ser_time(1, 3), 333333333334ull);
    assert_int_equal(hs_ser_time(0, 3), 0);
}

/* Node (terminal) links have their own rate and latency on every regular
 * family: lat= sets only switch-to-switch links, nlat= (default 100 ns)
 * the node links; nbw= defaults to bw=. */
static void check_node_links(const char *spec, uint64_t nbw, hs_time nlat, uint64_t bw,
                             hs_time lat)
{
    hs_topo *t = make(spec);
    uint32_t N = hs_topo_nodes(t), L = hs_topo_links(t);
    for (uint32_t id = 1; id <= L; id++) {
        const hs_link_info *l = hs_topo_link(t, id);
        int node = id <= 2 * N;
        if (l->kind == HS_LINK_SWITCH && l->sub == HS_SUB_GLOBAL)
            continue;
        if (l->bw != (node ? nbw : bw) || l->lat != (node ? nlat : lat))
            fail_msg("%s: link %u (%s) %llu B/s %llu ps", spec, id, node ? "node" : "switch",
                     (unsigned long long)l->bw, (unsigned long long)l->lat);
    }
    hs_topo_desc d;
    hs_error e;
    assert_int_equal(hs_topo_describe(spec, &d, &e), 0);
    assert_int_equal(d.node_bw, nbw);
    assert_int_equal(d.node_lat, nlat);
    /* the canonical spec builds the same network */
    hs_topo *t2 = make(hs_topo_spec(t));
    assert_string_equal(hs_topo_spec(t2), hs_topo_spec(t));
    for (uint32_t id = 1; id <= L; id++) {
        assert_int_equal(hs_topo_link(t2, id)->bw, hs_topo_link(t, id)->bw);
        assert_int_equal(hs_topo_link(t2, id)->lat, hs_topo_link(t, id)->lat);
    }
    hs_topo_free(t2);
    hs_topo_free(t);
}

static void test_node_links(void **state)
{
    (void)state;
    const uint64_t G25 = 25000000000ull, G50 = 50000000000ull, G12 = 12500000000ull;
    const hs_time ns = HS_PS_PER_NS;
    check_node_links("dragonfly:a=4,p=2,h=2,g=9,lat=50ns", G25, 100 * ns, G25, 50 * ns);
    check_node_links("dragonfly:a=4,p=2,h=2,g=9,lat=50ns,nlat=20ns,nbw=12.5GB/s", G12, 20 * ns,
                     G25, 50 * ns);
    check_node_links("fattree:k=4,n=3,bw=50GB/s,lat=300ns", G50, 100 * ns, G50, 300 * ns);
    check_node_links("fattree:down=4x6,up=1x2,nlat=5ns", G25, 5 * ns, G25, 100 * ns);
    check_node_links("torus:4x4,p=2,lat=1us,nbw=50GB/s", G50, 100 * ns, G25, 1000 * ns);
    check_node_links("mesh:3x3,nlat=7ns,nbw=12.5GB/s", G12, 7 * ns, G25, 100 * ns);
}

/* vcs=N on every regular family: a multiple of the routing's VC classes. */
static void test_vcs(void **state)
{
    (void)state;
    static const struct { const char *spec; unsigned vcs, classes; const char *canon; } c[] = {
        { "fattree:k=4,n=2", 1, 1, "vcs=1,routing=dmodk" },
        { "fattree:k=4,n=2,vcs=4", 4, 1, "vcs=4,vcsel=dest,routing=dmodk" },
        { "fattree:k=4,n=2,vcs=8,vcsel=rr,routing=adaptive", 8, 1, "vcs=8,vcsel=rr,routing=adaptive" },
        { "torus:4x4", 2, 2, "vcs=2,routing=dor" },
        { "torus:4x4,vcs=6,vcsel=sl", 6, 2, "vcs=6,vcsel=sl,routing=dor" },
        { "mesh:4x4,vcs=3", 3, 1, "vcs=3,vcsel=dest,routing=dor" },
        { "dragonfly:a=4,p=2,h=2,g=9", 2, 2, "vcs=2,routing=min" },
        { "dragonfly:a=4,p=2,h=2,g=9,vcs=8", 8, 2, "vcs=8,vcsel=dest,routing=min" },
        { "dragonfly:a=4,p=2,h=2,g=9,routing=ugal-g,vcs=6", 6, 3, "vcs=6,vcsel=dest,routing=ugal-g" },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        hs_topo *t = make(c[i].spec);
        assert_int_equal(hs_topo_vcs(t), c[i].vcs);
        assert_int_equal(t->vclasses, c[i].classes);
        assert_int_equal(t->lanes, c[i].vcs / c[i].classes);
        const char *s = hs_topo_spec(t);
        size_t n = strlen(s), m = strlen(c[i].canon);
        if (n < m || strcmp(s + n - m, c[i].canon) != 0)
            fail_msg("%s: canonical '%s' does not end in '%s'", c[i].spec, s, c[i].canon);
        hs_topo_free(t);
    }
}

static void test_bad_specs(void **state)
{
    (void)state;
    static const char *bad[] = {
        "", "fatree", "fattree:k=0", "fattree:k=4,n=0", "fattree:k=4,n=9",
        "fattree:k=4,taper=3", "fattree:k=4,n=1,taper=2", "fattree:down=4x4",
        "fattree:down=4x4,up=2x4", "fattree:down=4x4,up=1x4x4", "fattree:down=4xx4,up=1x4",
        "fattree:down=4x4,up=1x4,k=4", "fattree:k=4,k=4", "fattree:k=4,bw=25G",
        "fattree:k=4,lat=-1", "fattree:k=4,routing=ugal", "fattree:k=4,", "fattree:k",
        "fattree:k=4,frobnicate=1", "fattree:k=1,n=1", "dragonfly:g=10", "dragonfly:h=0",
        "dragonfly:a=0", "dragonfly:routing=dmodk", "dragonfly:a=4,p=2,h=1,g=7",
        "torus:", "torus:4x0", "torus:4x", "torus:x4", "torus:4x4,4x4", "torus:1",
        "torus:4x4,routing=min", "mesh:4x4,p=0", "file:", "file:/nonexistent/x.topo",
        "torus:4x4x4x4x4x4x4x4x4", "fattree:k=4096,n=3",
        "fattree:k=4,vcs=0", "fattree:k=4,vcs=9", "torus:4x4,vcs=3",
        "dragonfly:routing=ugal,vcs=4", "dragonfly:vcs=3", "fattree:k=4,vcsel=sl2",
        "fattree:k=4,nlat=x", "mesh:4x4,nbw=0", "dragonfly:routing=ugal-x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hs_topo *t = (hs_topo *)1;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_topo_create(bad[i], &t, &e);
        if (rc == 0)
            fail_msg("accepted bad spec '%s'", bad[i]);
        assert_null(t);
        assert_true(rc == HS_EINVAL || rc == HS_ERANGE || rc == HS_EIO);
        if (e.msg[0] == '\0')
            fail_msg("no message for '%s'", bad[i]);
    }
}

/* Ports and links agree, cables pair (id, id+1) in reverse, IDs dense. */
static void check_structure(const hs_topo *t)
{
    uint32_t N = hs_topo_nodes(t), L = hs_topo_links(t);
    assert_null(hs_topo_link(t, 0));
    assert_null(hs_topo_link(t, L + 1));
    for (uint32_t n = 0; n < N; n++) {
        const hs_link_info *i = hs_topo_link(t, hs_topo_node_injection(t, n));
        const hs_link_info *e = hs_topo_link(t, hs_topo_node_ejection(t, n));
        assert_int_equal(i->id, 1 + n);
        assert_int_equal(e->id, N + 1 + n);
        assert_int_equal(i->kind, HS_LINK_INJECTION);
        assert_int_equal(e->kind, HS_LINK_EJECTION);
        assert_int_equal(i->from, n);
        assert_int_equal(e->to, n);
        assert_int_equal(i->to, hs_topo_node_switch(t, n));
        assert_int_equal(e->from, hs_topo_node_switch(t, n));
        assert_int_equal(i->to_port, e->from_port);
    }
    for (uint32_t id = 2 * N + 1; id <= L; id += 2) {
        const hs_link_info *a = hs_topo_link(t, id), *b = hs_topo_link(t, id + 1);
        assert_non_null(b);
        assert_int_equal(a->kind, HS_LINK_SWITCH);
        assert_int_equal(a->from, b->to);
        assert_int_equal(a->to, b->from);
        assert_int_equal(a->from_port, b->to_port);
        assert_int_equal(a->to_port, b->from_port);
        assert_int_equal(a->bw, b->bw);
        assert_int_equal(a->lat, b->lat);
        if (a->sub == HS_SUB_UP)
            assert_int_equal(b->sub, HS_SUB_DOWN);
        if (a->sub == HS_SUB_TORUS)
            assert_int_equal(a->dir, -b->dir);
    }
    /* no two links leave the same switch port */
    for (uint32_t x = 1; x <= L; x++)
        for (uint32_t y = x + 1; y <= L && y < x + 200; y++) {
            const hs_link_info *a = hs_topo_link(t, x), *b = hs_topo_link(t, y);
            if (a->from_kind == HS_DEV_SWITCH && b->from_kind == HS_DEV_SWITCH &&
                a->from == b->from)
                assert_int_not_equal(a->from_port, b->from_port);
        }
}

/* Hop count between every pair of switches (BFS). */
static uint32_t *all_pairs(const hs_topo *t)
{
    uint32_t S = hs_topo_switches(t), L = hs_topo_links(t);
    uint32_t *d = malloc((size_t)S * S * sizeof *d);
    uint32_t *q = malloc(S * sizeof *q);
    for (uint32_t s = 0; s < S; s++) {
        uint32_t *ds = d + (size_t)s * S;
        for (uint32_t i = 0; i < S; i++)
            ds[i] = UINT32_MAX;
        ds[s] = 0;
        uint32_t h = 0, n = 0;
        q[n++] = s;
        while (h < n) {
            uint32_t x = q[h++];
            for (uint32_t id = 1; id <= L; id++) {
                const hs_link_info *l = hs_topo_link(t, id);
                if (l->kind == HS_LINK_SWITCH && l->from == x && ds[l->to] == UINT32_MAX) {
                    ds[l->to] = ds[x] + 1;
                    q[n++] = l->to;
                }
            }
        }
    }
    free(q);
    return d;
}

/* Walks the forwarding tables from src to dst; returns the link count and
 * fills path (if non-NULL). */
static unsigned walk(const hs_topo *t, uint32_t src, uint32_t dst, uint32_t *path)
{
    uint32_t link = hs_topo_node_injection(t, src);
    unsigned n = 0;
    for (;;) {
        if (path)
            path[n] = link;
        n++;
        const hs_link_info *l = hs_topo_link(t, link);
        if (l->to_kind == HS_DEV_NODE) {
            assert_int_equal(l->to, dst);
            return n;
        }
        uint32_t out[64];
        unsigned k = hs_topo_route_set(t, l->to, dst, out, 64);
        assert_true(k >= 1);
        for (unsigned i = 0; i < k; i++)
            assert_int_equal(hs_topo_link(t, out[i])->from, l->to);
        link = out[0];
        assert_true(n < 64);
    }
}

/* Dragonfly minimal paths take at most one global hop (local, global,
 * local), which can be longer than the graph's shortest path through a
 * third group: the fewest switch hops among those paths. */
static uint32_t dragonfly_minimal(const hs_topo *t, uint32_t a, uint32_t R, uint32_t Rd)
{
    if (R == Rd)
        return 0;
    if (R / a == Rd / a)
        return 1;
    uint32_t best = UINT32_MAX;
    for (uint32_t id = 1; id <= hs_topo_links(t); id++) {
        const hs_link_info *l = hs_topo_link(t, id);
        if (l->sub != HS_SUB_GLOBAL || l->from / a != R / a || l->to / a != Rd / a)
            continue;
        uint32_t h = (l->from != R) + 1 + (l->to != Rd);
        if (h < best)
            best = h;
    }
    return best;
}

/* Routed paths are shortest paths (dragonfly: shortest with one global
 * hop), for every pair of nodes. */
static void check_minimal_df(const hs_topo *t, uint32_t df_a)
{
    uint32_t N = hs_topo_nodes(t), S = hs_topo_switches(t);
    uint32_t *d = df_a ? NULL : all_pairs(t);
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++) {
            if (a == b)
                continue;
            unsigned n = walk(t, a, b, NULL);
            uint32_t sa = hs_topo_node_switch(t, a), sb = hs_topo_node_switch(t, b);
            uint32_t want = df_a ? dragonfly_minimal(t, df_a, sa, sb) : d[(size_t)sa * S + sb];
            if (n != want + 2)
                fail_msg("%s: %u -> %u takes %u links, shortest %u", hs_topo_spec(t), a, b, n,
                         want + 2);
        }
    free(d);
}

static void check_minimal(const hs_topo *t)
{
    check_minimal_df(t, 0);
}

static void test_fattree_structure(void **state)
{
    (void)state;
    hs_topo *t = make("fattree:k=4,n=2");
    assert_int_equal(hs_topo_nodes(t), 16);
    assert_int_equal(hs_topo_switches(t), 8);
    assert_int_equal(hs_topo_links(t), 64);
    assert_int_equal(hs_topo_vcs(t), 1);
    assert_int_equal(hs_topo_routing(t), HS_ROUTE_DMODK);
    assert_string_equal(hs_topo_spec(t), "fattree:k=4,n=2,taper=1,bw=25GB/s,lat=100ns,nbw=25GB/s,nlat=100ns,vcs=1,routing=dmodk");
    check_structure(t);
    check_minimal(t);
    /* first cable: leaf 0 up port 0 to spine 0 */
    const hs_link_info *l = hs_topo_link(t, 33);
    assert_int_equal(l->sub, HS_SUB_UP);
    assert_int_equal(l->level, 1);
    assert_int_equal(l->from, 0);
    assert_int_equal(l->from_port, 4);
    assert_int_equal(l->to, 4);
    assert_int_equal(l->to_port, 0);
    char buf[32];
    assert_string_equal(hs_topo_switch_name(t, 5, buf, sizeof buf), "l2s1");
    hs_topo_free(t);

    t = make("fattree:k=4,n=3");
    assert_int_equal(hs_topo_nodes(t), 64);
    assert_int_equal(hs_topo_switches(t), 48);
    check_structure(t);
    check_minimal(t);
    hs_topo_free(t);

    t = make("fattree:down=4x6,up=1x2,bw=50GB/s,lat=55ns");
    assert_int_equal(hs_topo_nodes(t), 24);
    assert_int_equal(hs_topo_switches(t), 8);  /* 6 leaves, 2 spines */
    assert_int_equal(hs_topo_link(t, 1)->bw, 50000000000ull);
    assert_int_equal(hs_topo_link(t, 1)->lat, 100000);   /* lat= leaves node links */
    assert_int_equal(hs_topo_link(t, 49)->lat, 55000);
    assert_int_equal(hs_topo_link(t, 49)->kind, HS_LINK_SWITCH);
    check_structure(t);
    check_minimal(t);
    hs_topo_free(t);

    t = make("fattree:k=4,n=2,routing=adaptive");
    uint32_t out[8];
    /* leaf 0 towards node 15 (another leaf): all 4 up ports */
    assert_int_equal(hs_topo_route_set(t, 0, 15, out, 8), 4);
    assert_int_equal(hs_topo_deterministic(t), 0);
    assert_int_equal(hs_topo_table_determined(t), 1);
    hs_topo_free(t);
}

/* D-mod-K is non-blocking for every shift permutation on a full k-ary
 * n-tree: every link carries at most one flow. */
static void test_dmodk_shifts(void **state)
{
    (void)state;
    const char *specs[] = { "fattree:k=4,n=2", "fattree:k=4,n=3", "fattree:k=3,n=3" };
    for (size_t i = 0; i < 3; i++) {
        hs_topo *t = make(specs[i]);
        uint32_t N = hs_topo_nodes(t), L = hs_topo_links(t);
        uint32_t *load = malloc((L + 1) * sizeof *load);
        for (uint32_t s = 1; s < N; s++) {
            memset(load, 0, (L + 1) * sizeof *load);
            for (uint32_t a = 0; a < N; a++) {
                uint32_t path[16];
                unsigned n = walk(t, a, (a + s) % N, path);
                for (unsigned j = 0; j < n; j++)
                    load[path[j]]++;
            }
            for (uint32_t id = 1; id <= L; id++)
                if (load[id] > 1)
                    fail_msg("%s shift %u: link %u carries %u flows", specs[i], s, id, load[id]);
        }
        free(load);
        hs_topo_free(t);
    }
}

/* Every global link ends where hs__df_landing says (routing finds the
 * entry router from the arrangement instead of the link table). */
static void check_landing(const char *spec)
{
    hs_topo *t = make(spec);
    const hs__dragonfly *d = &t->u.df;
    unsigned n = 0;
    for (uint32_t id = 1; id <= hs_topo_links(t); id++) {
        const hs_link_info *l = hs_topo_link(t, id);
        if (l->sub != HS_SUB_GLOBAL)
            continue;
        uint32_t G = l->from / d->a, r = l->from % d->a;
        uint32_t j = r * d->h + (l->from_port - (d->p + d->a - 1));
        uint32_t X = l->to / d->a;
        assert_int_equal(X, (G + j % (d->g - 1) + 1) % d->g);
        assert_int_equal(l->to, X * d->a + hs__df_landing(d, j));
        n++;
    }
    assert_true(n > 0);
    hs_topo_free(t);
}

static void test_dragonfly(void **state)
{
    (void)state;
    hs_topo *t = make("dragonfly:a=4,p=2,h=2,g=9");
    assert_int_equal(hs_topo_nodes(t), 72);
    assert_int_equal(hs_topo_switches(t), 36);
    /* 144 node links + 9*6 local cables*2 + 36 global cables*2 */
    assert_int_equal(hs_topo_links(t), 144 + 108 + 72);
    assert_int_equal(hs_topo_vcs(t), 2);
    check_structure(t);
    check_minimal_df(t, 4);
    /* exactly one global link per pair of groups */
    unsigned pairs[9][9];
    memset(pairs, 0, sizeof pairs);
    for (uint32_t id = 1; id <= hs_topo_links(t); id++) {
        const hs_link_info *l = hs_topo_link(t, id);
        if (l->sub == HS_SUB_GLOBAL)
            pairs[l->from / 4][l->to / 4]++;
        if (l->sub == HS_SUB_LOCAL)
            assert_int_equal(l->from / 4, l->to / 4);
    }
    for (int a = 0; a < 9; a++)
        for (int b = 0; b < 9; b++)
            assert_int_equal(pairs[a][b], a == b ? 0 : 1);
    hs_topo_free(t);

    /* fewer groups: a*h = 8 global ports over 4 other groups, 2 links each */
    t = make("dragonfly:a=4,p=1,h=2,g=5,routing=ugal,glat=300ns,gbw=12.5GB/s");
    assert_int_equal(hs_topo_vcs(t), 3);
    assert_int_equal(hs_topo_deterministic(t), 0);
    assert_int_equal(hs_topo_table_determined(t), 0);
    memset(pairs, 0, sizeof pairs);
    for (uint32_t id = 1; id <= hs_topo_links(t); id++) {
        const hs_link_info *l = hs_topo_link(t, id);
        if (l->sub == HS_SUB_GLOBAL) {
            pairs[l->from / 4][l->to / 4]++;
            assert_int_equal(l->lat, 300000);
            assert_int_equal(l->bw, 12500000000ull);
        }
    }
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            assert_int_equal(pairs[a][b], a == b ? 0 : 2);
    check_structure(t);
    check_minimal_df(t, 4);
    hs_topo_free(t);

    check_landing("dragonfly:a=4,p=2,h=2,g=9");
    check_landing("dragonfly:a=4,p=1,h=2,g=5");
    check_landing("dragonfly:a=4,p=1,h=3,g=6");   /* a*h not a multiple of g-1 */
    check_landing("dragonfly:a=16,p=8,h=8,g=129");
    check_landing("dragonfly:a=3,p=1,h=1,g=2");
}

static void test_torus(void **state)
{
    (void)state;
    hs_topo *t = make("torus:4x3x2,p=2");
    assert_int_equal(hs_topo_nodes(t), 48);
    assert_int_equal(hs_topo_switches(t), 24);
    /* dim0 ring of 4: 4 cables x 6 rings; dim1 ring of 3: 3 x 8; dim2 (size 2): 1 x 12 */
    assert_int_equal(hs_topo_links(t), 96 + 2 * (24 + 24 + 12));
    assert_int_equal(hs_topo_vcs(t), 2);
    check_structure(t);
    check_minimal(t);
    unsigned wraps = 0;
    for (uint32_t id = 1; id <= hs_topo_links(t); id++)
        wraps += hs_topo_link(t, id)->wrap;
    assert_int_equal(wraps, 2 * (6 + 8));
    hs_topo_free(t);

    t = make("mesh:5x3");
    assert_int_equal(hs_topo_vcs(t), 1);
    check_structure(t);
    check_minimal(t);
    hs_topo_summary s;
    assert_int_equal(hs_topo_summarize(t, &s), 0);
    assert_int_equal(s.diameter, 4 + 2 + 2);
    hs_topo_free(t);
}

static const char *write_tmp(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/hs-topo-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* The longest route, per family, against its formula and, where the
 * forwarding tables give the paths, against a walk of every (src, dst). */
static void test_max_route(void **state)
{
    (void)state;
    static const struct { const char *spec; uint32_t links; int walkable; } c[] = {
        { "fattree:k=4,n=3", 6, 1 },                 /* 2n: NIC, 2 up, 2 down, NIC */
        { "fattree:k=4,n=2", 4, 1 },
        { "fattree:k=2,n=4", 8, 1 },
        { "fattree:down=4x4x2,up=1x2x4", 6, 1 },     /* XGFT, 3 levels */
        { "fattree:k=4,n=3,routing=adaptive", 6, 1 },
        { "torus:6x4x4", 9, 1 },                     /* 3 + 2 + 2 + 2 */
        { "torus:5x5,p=2", 6, 1 },                   /* 2 + 2 + 2 */
        { "torus:3x2", 4, 1 },                       /* 1 + 1 + 2 */
        { "mesh:4x3", 7, 1 },                        /* 3 + 2 + 2 */
        { "dragonfly:a=4,p=2,h=2,g=5", 5, 1 },       /* local, global, local */
        { "dragonfly:a=4,p=2,h=2,g=5,routing=valiant", 7, 0 }, /* 5 switch hops */
        { "dragonfly:a=4,p=2,h=2,g=5,routing=ugal", 7, 0 },
        { "dragonfly:a=4,p=2,h=2,g=2,routing=valiant", 5, 0 }, /* no third group */
        { "dragonfly:a=1,p=2,h=4,g=5,routing=valiant", 4, 0 }, /* no local hops: 2 global */
        { "dragonfly:a=4,p=2,h=2,g=1", 3, 1 },       /* one group: one local hop */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        hs_topo *t = make(c[i].spec);
        uint32_t got = hs_topo_max_route_links(t);
        if (got != c[i].links)
            fail_msg("%s: longest route %u links, expected %u", c[i].spec, got, c[i].links);
        if (c[i].walkable) {
            unsigned longest = 0;
            uint32_t N = hs_topo_nodes(t);
            for (uint32_t s = 0; s < N; s++)
                for (uint32_t d = 0; d < N; d++)
                    if (s != d) {
                        unsigned n = walk(t, s, d, NULL);
                        if (n > longest)
                            longest = n;
                    }
            if (longest != c[i].links)
                fail_msg("%s: the tables' longest path is %u links, the formula says %u",
                         c[i].spec, longest, c[i].links);
        }
        hs_topo_free(t);
    }
    /* a file: the ring of four below has 2 switch hops at most */
    const char *p = write_tmp("hopscope-topology 1\nswitch s0 s1 s2 s3\nnode a b c d\n"
                              "link a s0\nlink b s1\nlink c s2\nlink d s3\n"
                              "link s0 s1\nlink s1 s2\nlink s2 s3\nlink s3 s0\n");
    char spec[128];
    snprintf(spec, sizeof spec, "file:%s", p);
    hs_topo *t = make(spec);
    unlink(p);
    assert_int_equal(hs_topo_max_route_links(t), 4);
    hs_topo_free(t);
    /* the widths that hold them */
    assert_int_equal(hs_hop_bits_fit(6), 3);
    assert_int_equal(hs_hop_bits_fit(7), 4);
    assert_int_equal(hs_hop_bits_fit(9), 4);
    assert_int_equal(hs_hop_bits_fit(14), 4);
    assert_int_equal(hs_hop_bits_fit(15), 5);
    assert_int_equal(hs_hop_bits_fit(2), 2);
    assert_int_equal(hs_hop_bits_fit(254), 8);
    assert_int_equal(hs_hop_bits_fit(255), 0);
}

static void test_file(void **state)
{
    (void)state;
    const char *p = write_tmp(
        "# a ring of four switches, two nodes each\n"
        "hopscope-topology 1\n"
        "default bw=25GB/s lat=100ns\n"
        "switch s0 s1 s2 s3\n"
        "node a0 a1 b0 b1 c0 c1 d0 d1\n"
        "link a0 s0\nlink a1 s0\nlink s1 b0\nlink b1 s1\n"
        "link c0 s2\nlink c1 s2\nlink d0 s3\nlink d1 s3\n"
        "link s0 s1\nlink s1 s2\nlink s2 s3 lat=300ns\nlink s3 s0   # closing the ring\n"
        "route s0 c0 s3\n");
    char spec[128];
    snprintf(spec, sizeof spec, "file:%s", p);
    hs_topo *t = make(spec);
    unlink(p);
    assert_int_equal(hs_topo_nodes(t), 8);
    assert_int_equal(hs_topo_switches(t), 4);
    assert_int_equal(hs_topo_links(t), 16 + 8);
    check_structure(t);
    char buf[32];
    assert_string_equal(hs_topo_node_name(t, 2, buf, sizeof buf), "b0");
    assert_string_equal(hs_topo_switch_name(t, 3, buf, sizeof buf), "s3");
    assert_int_equal(hs_topo_link(t, 2 * 8 + 5)->lat, 300000);
    /* the explicit route: s0 -> c0 via s3, the other c-node by shortest path */
    uint32_t out[4];
    assert_int_equal(hs_topo_route_set(t, 0, 4, out, 4), 1);
    assert_int_equal(hs_topo_link(t, out[0])->to, 3);
    /* two equal paths s0->s2 (via s1 or s3): c1 spreads by dst mod 2 */
    uint32_t path[8];
    assert_int_equal(walk(t, 0, 5, path), 4);
    assert_int_equal(walk(t, 0, 2, path), 3);
    /* a ring of 4 needs 2 switch hops at most: 2 hop-indexed VCs */
    assert_int_equal(hs_topo_vcs(t), 2);
    hs_topo_free(t);

    static const struct { const char *text, *msg; } bad[] = {
        { "", "empty file" },
        { "hopscope-topology 2\n", "version 2" },
        { "topology 1\n", "header" },
        { "hopscope-topology 1\nswitch s\nnode a b\nlink a s\n", "'b' has no link" },
        { "hopscope-topology 1\nswitch s\nnode a b\nlink a s\nlink b s\nlink a s\n",
          "second link" },
        { "hopscope-topology 1\nswitch s\nnode a b\nlink a s\nlink b x\n", "not declared" },
        { "hopscope-topology 1\nswitch s\nnode a b\nlink a b\n", "two nodes" },
        { "hopscope-topology 1\nswitch s s\n", "declared twice" },
        { "hopscope-topology 1\nswitch s\nnode a b\nlink a s bw=fast\n", "expected a rate" },
        { "hopscope-topology 1\nfrob\n", "unknown statement" },
        { "hopscope-topology 1\nswitch s t\nnode a b\nlink a s\nlink b t\n", "not connected" },
        { "hopscope-topology 1\nswitch s t u\nnode a b\nlink a s\nlink b u\nlink s t\n"
          "link t u\nlink s u\nroute s b t\nroute t b s\n", "loop" },
        { "hopscope-topology 1\nswitch s t\nnode a b\nlink a s\nlink b t\nlink s t\n"
          "route s b a\n", ":7: route for 'b' leads to another node 'a'" },
        /* the names in route errors (once printed as '(null)') */
        { "hopscope-topology 1\nswitch s0 s1\nnode c d\nlink c s0\nlink d s1\nlink s0 s1\n"
          "route s0 c s0\n", ":7: 's0' is not a neighbour of 's0'" },
        { "hopscope-topology 1\nswitch s0 s1\nnode c d\nlink c s0\nlink d s1\nlink s0 s1\n"
          "route s0 c s1\n", ":7: 'c' is attached to 's0': its route there can only be the "
          "node itself" },
        { "hopscope-topology 1\nswitch s$\n", "bad name" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = write_tmp(bad[i].text);
        snprintf(spec, sizeof spec, "file:%s", p);
        hs_error e;
        hs_error_clear(&e);
        hs_topo *x = (hs_topo *)1;
        int rc = hs_topo_create(spec, &x, &e);
        unlink(p);
        if (rc == 0)
            fail_msg("accepted bad file %zu", i);
        assert_null(x);
        if (!strstr(e.msg, bad[i].msg))
            fail_msg("file %zu: message '%s' lacks '%s'", i, e.msg, bad[i].msg);
        if (i > 0 && !strstr(e.msg, "/tmp/hs-topo-"))
            fail_msg("file %zu: message '%s' does not name the file", i, e.msg);
    }
}

static void test_summary(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        uint32_t diameter, bis_links;
        int exact;
    } cases[] = {
        { "fattree:k=4,n=2", 4, 8, 1 },          /* N/2 */
        { "fattree:k=4,n=2,taper=2", 4, 4, 1 },  /* N/4 */
        { "fattree:k=4,n=3", 6, 32, 1 },
        { "fattree:down=4x4x4,up=1x2x4", 6, 16, 1 },
        { "dragonfly:a=4,p=2,h=2,g=9", 5, 20, 0 }, /* 4 x 5 groups */
        { "torus:4x4", 6, 8, 1 },                 /* 2 x 4 */
        { "torus:8x4", 8, 8, 1 },
        { "mesh:4x4", 8, 4, 1 },
        { "torus:5x5", 6, 10, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs_topo *t = make(cases[i].spec);
        hs_topo_summary s;
        assert_int_equal(hs_topo_summarize(t, &s), 0);
        if (s.diameter != cases[i].diameter || s.bisection_links != cases[i].bis_links ||
            s.bisection_exact != cases[i].exact)
            fail_msg("%s: diameter %u bisection %u exact %d", cases[i].spec, s.diameter,
                     s.bisection_links, s.bisection_exact);
        assert_true(s.bisection_bw == (double)s.bisection_links * 25e9);
        assert_int_equal(s.inj_links + s.ej_links + s.sw_links, s.links);
        hs_topo_free(t);
    }
}

/* ---- fuzzing the readers of outside input --------------------------------- */

static uint64_t fz = 0x243f6a8885a308d3ull;
static uint64_t fz_next(void)
{
    fz ^= fz << 13;
    fz ^= fz >> 7;
    fz ^= fz << 17;
    return fz;
}

/* Random specs from the grammar's tokens (small numbers, so that what
 * parses stays small): never a crash, and a failure always says why. */
static void test_fuzz_specs(void **state)
{
    (void)state;
    static const char *tok[] = {
        "fattree", "dragonfly", "torus", "mesh", "file", ":", ",", "=", "x", "k", "n", "taper",
        "down", "up", "a", "p", "h", "g", "routing", "min", "ugal", "valiant", "dmodk",
        "adaptive", "dor", "bw", "lat", "glat", "gbw", "1", "2", "3", "4", "0", "-1", "25GB/s",
        "100ns", "1.5", "99999999999999999999", "65536", "", " ", "\t", "2x2", "1x2x3",
    };
    const size_t ntok = sizeof tok / sizeof tok[0];
    unsigned ok = 0;
    for (int i = 0; i < 4000; i++) {
        char spec[256] = "";
        unsigned n = 1 + (unsigned)(fz_next() % 12);
        for (unsigned j = 0; j < n; j++) {
            const char *t = j == 0 ? tok[fz_next() % 4] : tok[fz_next() % ntok];
            if (strlen(spec) + strlen(t) + 1 < sizeof spec)
                strcat(spec, t);
        }
        hs_topo *t = NULL;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_topo_create(spec, &t, &e);
        if (rc == 0) {
            ok++;
            assert_true(hs_topo_nodes(t) >= 2);
            check_structure(t);
            hs_topo_free(t);
        } else {
            assert_null(t);
            if (e.msg[0] == '\0')
                fail_msg("no message for '%s'", spec);
        }
    }
    assert_true(ok > 0);
}

/* A valid topology file mutated at random (bytes flipped, inserted,
 * deleted; lines duplicated or dropped): never a crash. */
static void test_fuzz_file(void **state)
{
    (void)state;
    static const char base[] =
        "hopscope-topology 1\n# comment\ndefault bw=25GB/s lat=100ns\nswitch s0 s1 s2\n"
        "node a b c d\nlink a s0\nlink b s0\nlink s1 c bw=50GB/s\nlink d s2 lat=3ns\n"
        "link s0 s1\nlink s1 s2\nlink s2 s0 bw=12.5GB/s\nroute s0 c s1\nroute s1 d s2\n";
    char path[] = "/tmp/hs-fuzz-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char spec[64];
    snprintf(spec, sizeof spec, "file:%s", path);
    unsigned parsed = 0;
    for (int i = 0; i < 1500; i++) {
        char buf[2048];
        size_t n = sizeof base - 1;
        memcpy(buf, base, n);
        unsigned muts = 1 + (unsigned)(fz_next() % 6);
        for (unsigned m = 0; m < muts; m++) {
            size_t at = n ? (size_t)(fz_next() % n) : 0;
            switch (fz_next() % 5) {
            case 0:
                buf[at] = (char)(fz_next() & 0xff);
                break;
            case 1:
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = " \n=#x0:s"[fz_next() % 9];
                    n++;
                }
                break;
            case 2:
                if (n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
                break;
            case 3: {  /* duplicate a chunk */
                size_t len = (size_t)(fz_next() % 40);
                if (at + len <= n && n + len < sizeof buf) {
                    memmove(buf + at + len, buf + at, n - at);
                    n += len;
                }
                break;
            }
            default:
                n = at;  /* truncate */
                break;
            }
        }
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(buf, 1, n, f);
        fclose(f);
        hs_topo *t = NULL;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_topo_create(spec, &t, &e);
        if (rc == 0) {
            parsed++;
            check_structure(t);
            hs_topo_free(t);
        } else {
            assert_null(t);
            assert_true(e.msg[0] != '\0');
        }
    }
    unlink(path);
    assert_true(parsed > 0);
}

static void test_fuzz_traffic(void **state)
{
    (void)state;
    static const char *tok[] = {
        "uniform", "shift", "transpose", "bitcomp", "hotspot", "incast", "groupshift", ":", ",",
        "=", "+", "target", "frac", "senders", "list", "bg", "0", "1", "-3", "0.5", "2",
        "99999999999999999999", "x", "",
    };
    for (int i = 0; i < 4000; i++) {
        char s[256] = "";
        unsigned n = 1 + (unsigned)(fz_next() % 10);
        for (unsigned j = 0; j < n; j++) {
            const char *t = tok[fz_next() % (sizeof tok / sizeof tok[0])];
            if (strlen(s) + strlen(t) + 1 < sizeof s)
                strcat(s, t);
        }
        hs_traffic_cfg c;
        hs_traffic_cfg_default(&c);
        hs_error e;
        hs_error_clear(&e);
        if (hs_traffic_parse(s, &c, &e) != 0 && e.msg[0] == '\0')
            fail_msg("no message for traffic '%s'", s);
    }
}

/* ---- analytic summaries against graph search ---------------------------- */

/* One topology: the summary from the parameters (hs_topo_summarize on the
 * built graph, and hs_topo_describe without it) against BFS from every
 * switch, and the torus cut against a count of the links crossing it. */
static void check_summary(const char *spec)
{
    hs_topo *t;
    hs_error e;
    hs_error_clear(&e);
    if (hs_topo_create(spec, &t, &e))
        fail_msg("%s: %s", spec, e.msg);
    hs_topo_summary s;
    assert_int_equal(hs_topo_summarize(t, &s), 0);
    int exact, rc;
    uint32_t bfs = hs__topo_diameter_bfs(t, 0, &exact, &rc);
    assert_int_equal(rc, 0);
    assert_true(exact);
    if (s.diameter != bfs)
        fail_msg("%s: diameter %u from the parameters, %u by BFS", spec, s.diameter, bfs);
    assert_true(s.diameter_exact);
    uint32_t inj = 0, ej = 0;
    for (uint32_t id = 1; id <= hs_topo_links(t); id++) {
        inj += hs_topo_link(t, id)->kind == HS_LINK_INJECTION;
        ej += hs_topo_link(t, id)->kind == HS_LINK_EJECTION;
    }
    assert_int_equal(s.inj_links, inj);
    assert_int_equal(s.ej_links, ej);
    if (hs_topo_type(t) == HS_TOPO_TORUS) {
        const hs__torus *tr = &t->u.tor;
        unsigned dmax = 0;
        for (unsigned i = 1; i < tr->n; i++)
            if (tr->k[i] > tr->k[dmax])
                dmax = i;
        uint32_t k = tr->k[dmax], links = 0;
        for (uint32_t id = 2 * hs_topo_nodes(t) + 1; k > 1 && id <= hs_topo_links(t); id++) {
            const hs_link_info *l = hs_topo_link(t, id);
            links += hs__torus_coord(tr, l->from, dmax) < k / 2 &&
                     hs__torus_coord(tr, l->to, dmax) >= k / 2;
        }
        if (k > 1 && s.bisection_links != links)
            fail_msg("%s: bisection %u links from the parameters, %u crossing", spec,
                     s.bisection_links, links);
    }
    hs_topo_desc d;
    assert_int_equal(hs_topo_describe(spec, &d, &e), 0);
    assert_int_equal(d.s.nodes, s.nodes);
    assert_int_equal(d.s.switches, s.switches);
    assert_int_equal(d.s.links, s.links);
    assert_int_equal(d.s.sw_links, s.sw_links);
    assert_int_equal(d.s.diameter, s.diameter);
    assert_int_equal(d.s.bisection_links, s.bisection_links);
    assert_true(d.s.bisection_bw == s.bisection_bw);
    assert_string_equal(d.spec, hs_topo_spec(t));
    assert_int_equal(d.vcs, hs_topo_vcs(t));
    assert_int_equal(d.node_bw, hs_topo_link(t, 1)->bw);
    hs_topo_free(t);
}

static void test_summary_analytic(void **state)
{
    (void)state;
    char spec[128];
    static const char *const dims[] = { "2", "3", "5", "8", "2x2", "3x4", "4x4x4", "5x3x2",
                                        "1x6", "2x7", "6x1x3", "3x3x3x2" };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        for (unsigned p = 1; p <= 2; p++) {
            snprintf(spec, sizeof spec, "torus:%s,p=%u", dims[i], p);
            check_summary(spec);
            snprintf(spec, sizeof spec, "mesh:%s,p=%u", dims[i], p);
            check_summary(spec);
        }
    for (unsigned k = 2; k <= 8; k += 2)
        for (unsigned n = 1; n <= 3; n++) {
            snprintf(spec, sizeof spec, "fattree:k=%u,n=%u", k, n);
            check_summary(spec);
            if (n >= 2) {
                snprintf(spec, sizeof spec, "fattree:k=%u,n=%u,taper=2", k, n);
                check_summary(spec);
            }
        }
    static const char *const xgft[] = { "down=2x1x3,up=1x2x2", "down=4x1,up=1x3",
                                        "down=1x1x5,up=1x2x1", "down=3x2,up=1x1",
                                        "down=8x8x2,up=1x2x1", "down=2,up=1" };
    for (size_t i = 0; i < sizeof xgft / sizeof xgft[0]; i++) {
        snprintf(spec, sizeof spec, "fattree:%s", xgft[i]);
        check_summary(spec);
    }
    unsigned ndf = 0;
    for (unsigned a = 1; a <= 5; a++)
        for (unsigned p = 1; p <= 2; p++)
            for (unsigned h = 0; h <= 3; h++)
                for (unsigned g = 1; g <= a * h + 1; g++) {
                    if (a * p * g < 2)
                        continue;
                    snprintf(spec, sizeof spec, "dragonfly:a=%u,p=%u,h=%u,g=%u", a, p, h, g);
                    check_summary(spec);
                    ndf++;
                }
    assert_true(ndf > 100);
}

/* A topology file's diameter comes from BFS, from at most 256 sources:
 * a ring of 300 switches is searched from a sample, which gives a lower
 * bound and says so; the full search gives the exact value. */
static void test_summary_file_sampled(void **state)
{
    (void)state;
    char path[] = "/tmp/hs-topo-ringXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "hopscope-topology 1\n");
    for (int i = 0; i < 300; i++)
        fprintf(f, "switch s%d\nnode n%d\nlink n%d s%d\n", i, i, i, i);
    for (int i = 0; i < 300; i++)
        fprintf(f, "link s%d s%d\n", i, (i + 1) % 300);
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "file:%s", path);
    hs_topo *t;
    hs_error e;
    assert_int_equal(hs_topo_create(spec, &t, &e), 0);
    hs_topo_summary s;
    assert_int_equal(hs_topo_summarize(t, &s), 0);
    assert_false(s.diameter_exact);
    assert_non_null(strstr(s.diameter_how, "lower bound: BFS from 256"));
    int exact, rc;
    assert_int_equal(hs__topo_diameter_bfs(t, 0, &exact, &rc), 150 + 2);
    assert_true(exact);
    assert_int_equal(s.diameter, 152);   /* every ring switch sees the far side */
    hs_topo_free(t);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_analytic),
        cmocka_unit_test(test_summary_file_sampled),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_fattree_structure),
        cmocka_unit_test(test_dmodk_shifts),
        cmocka_unit_test(test_dragonfly),
        cmocka_unit_test(test_torus),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_max_route),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_node_links),
        cmocka_unit_test(test_vcs),
        cmocka_unit_test(test_fuzz_specs),
        cmocka_unit_test(test_fuzz_file),
        cmocka_unit_test(test_fuzz_traffic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
