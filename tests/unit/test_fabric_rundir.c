/* Unit tests for the run directory: every file read back with a strict
 * reader written from docs/formats.md (not from fabric code), checked
 * against the engine's own state; forwarding tables reproduce the routed
 * paths; counters decode to the records; two runs give byte-identical
 * directories. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/fabric.h"
#include "../../fabric/engine.h"
#include "test_util.h"


static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t u64(const unsigned char *p)
{
    return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

static hs_fabric *run(const char *spec, uint64_t seed, const char *dir, int tables)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.route_tables = tables;
    p.window = 5 * HS_PS_PER_US;
    p.seed = seed;
    p.scheme.hash_bits = 2;
    hs_fabric *F;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_fabric_create(&F, spec, &p, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    c.load = 0.6;
    c.duration = 10 * HS_PS_PER_US;
    c.seed = seed;
    hs_traffic_result r;
    assert_int_equal(hs_traffic_run(F, &c, &r, &e), 0);
    assert_int_equal(hs_fabric_phase_name(F, 0, "synth\tetic"), 0);  /* tab is escaped */
    rc = hs_fabric_write_rundir(F, dir, NULL, NULL, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    return F;
}

static void check_links(hs_fabric *F, const char *dir)
{
    size_t n;
    char *t = (char *)slurp(dir, "links.tsv", &n);
    char *save = NULL;
    char *line = strtok_r(t, "\n", &save);
    assert_string_equal(line, "# hopscope links 1");
    line = strtok_r(NULL, "\n", &save);
    assert_non_null(strstr(line, "id\tkind\tsub"));
    for (uint32_t id = 1; id <= F->L; id++) {
        line = strtok_r(NULL, "\n", &save);
        assert_non_null(line);
        unsigned lid, level, dim, wrap, from, fport, to, tport;
        int dir_;
        char kind[16], sub[16], fk[16], fname[64], tk[16], tname[64];
        unsigned long long bw, lat, tau;
        int got = sscanf(line, "%u\t%15s\t%15s\t%u\t%u\t%d\t%u\t%15s\t%u\t%63s\t%u\t%15s\t%u\t%63s"
                               "\t%u\t%llu\t%llu\t%llu", &lid, kind, sub, &level, &dim, &dir_, &wrap,
                         fk, &from, fname, &fport, tk, &to, tname, &tport, &bw, &lat, &tau);
        assert_int_equal(got, 18);
        const hs_link_info *l = hs_topo_link(F->topo, id);
        assert_int_equal(lid, id);
        assert_int_equal(from, l->from);
        assert_int_equal(to, l->to);
        assert_int_equal(bw, l->bw);
        assert_int_equal(lat, l->lat);
        assert_int_equal(tau, F->op[id].tau);
    }
    assert_null(strtok_r(NULL, "\n", &save));
    free(t);
    t = (char *)slurp(dir, "phases.tsv", &n);
    assert_string_equal(t, "# hopscope phases 1\nphase\tindex\tname\n0\t0\tsynth etic\n");
    free(t);
}

/* routes.bin: header, sizes, and following it reproduces every path the
 * topology routes. */
static void check_routes(hs_fabric *F, const char *dir)
{
    size_t n;
    unsigned char *b = slurp(dir, "routes.bin", &n);
    assert_memory_equal(b, "HSROUTES", 8);
    assert_int_equal(u32(b + 8), 1);
    uint32_t hb = u32(b + 12), S = u32(b + 16), N = u32(b + 20), C = u32(b + 24);
    uint32_t flags = u32(b + 28);
    uint64_t E = u64(b + 32);
    assert_int_equal(hb, 48);
    assert_int_equal(S, F->S);
    assert_int_equal(N, F->N);
    assert_int_equal(flags & 1, hs_topo_deterministic(F->topo));
    size_t cnt_off = hb + 4ull * N, ids_off = cnt_off + (size_t)S * C;
    ids_off += (4 - ids_off % 4) % 4;
    assert_int_equal(n, ids_off + 4 * E);
    const unsigned char *cls = b + hb, *cnt = b + cnt_off;
    /* prefix offsets */
    uint64_t *off = malloc(((size_t)S * C + 1) * sizeof *off);
    off[0] = 0;
    for (size_t i = 0; i < (size_t)S * C; i++)
        off[i + 1] = off[i] + cnt[i];
    assert_int_equal(off[(size_t)S * C], E);
    for (uint32_t src = 0; src < N; src++)
        for (uint32_t dst = 0; dst < N; dst++) {
            if (src == dst)
                continue;
            uint32_t c = u32(cls + 4 * dst);
            assert_true(c < C);
            uint32_t link = hs_topo_node_injection(F->topo, src);
            for (int hop = 0; hop < 16; hop++) {
                const hs_link_info *l = hs_topo_link(F->topo, link);
                if (l->to_kind == HS_DEV_NODE) {
                    assert_int_equal(l->to, dst);
                    break;
                }
                size_t i = (size_t)l->to * C + c;
                uint32_t want[64];
                unsigned k = hs_topo_route_set(F->topo, l->to, dst, want, 64);
                if (cnt[i] == 0) {
                    assert_int_equal(hs_topo_node_switch(F->topo, dst), l->to);
                    link = hs_topo_node_ejection(F->topo, dst);
                    continue;
                }
                assert_int_equal(cnt[i], k);
                for (unsigned j = 0; j < k; j++)
                    assert_int_equal(u32(b + ids_off + 4 * (off[i] + j)), want[j]);
                link = u32(b + ids_off + 4 * off[i]);
                assert_true(hop < 15);
            }
        }
    free(off);
    free(b);
}

/* counters.bin sets equal the engine's counters; records.bin decodes, by
 * hash/'s own histogram, to the same phase counters. */
static void check_counters_records(hs_fabric *F, const char *dir)
{
    size_t n;
    unsigned char *b = slurp(dir, "counters.bin", &n);
    assert_memory_equal(b, "HSCOUNTS", 8);
    uint32_t hb = u32(b + 12), k = u32(b + 16), A = u32(b + 20), second = u32(b + 28);
    uint32_t M = u32(b + 32);
    uint64_t nn = u64(b + 40);
    assert_int_equal(hb, 56);
    assert_int_equal(k, F->scheme.k);
    assert_int_equal(A, 2);
    assert_int_equal(second, 1);
    assert_int_equal(nn, 1ull << k);
    assert_int_equal(u64(b + 48), F->prm.window);
    size_t set_bytes = 64 + (second ? 4 : 2) * (size_t)A * nn * 8;
    assert_int_equal(n, hb + (size_t)M * set_bytes);
    unsigned nwin = 0;
    for (size_t w = 0; w < F->nctwin; w++)
        nwin += F->ct_win[w] != NULL;
    assert_int_equal(M, 1 + nwin);
    const unsigned char *s0 = b + hb;
    assert_int_equal(u32(s0), 1);
    assert_int_equal(u64(s0 + 8), 0);  /* phase id 0 */
    const hs_counters *ct = &F->ct_ph[0];
    assert_int_equal(u64(s0 + 16), ct->packets);
    for (size_t i = 0; i < (size_t)A * nn; i++) {
        assert_int_equal((int64_t)u64(s0 + 64 + 8 * i), ct->t[i]);
        assert_int_equal((int64_t)u64(s0 + 64 + 8 * (A * nn + i)), ct->c[i]);
    }
    /* window sets add up to the phase set */
    uint64_t pk = 0;
    for (uint32_t m = 1; m < M; m++) {
        const unsigned char *sm = b + hb + m * set_bytes;
        assert_int_equal(u32(sm), 2);
        pk += u64(sm + 16);
    }
    assert_int_equal(pk, ct->packets);
    free(b);

    b = slurp(dir, "records.bin", &n);
    assert_memory_equal(b, "HSRECRDS", 8);
    uint32_t rb = u32(b + 16), fb = u32(b + 20);
    uint64_t R = u64(b + 24);
    assert_int_equal(rb, 40);
    assert_int_equal(fb, F->scheme.field_bits);
    assert_int_equal(R, F->nrec);
    assert_int_equal(n, 40 + R * 40);
    hs_sample *smp = malloc(R * sizeof *smp);
    hs_time last = 0;
    for (uint64_t i = 0; i < R; i++) {
        const unsigned char *r = b + 40 + 40 * i;
        uint32_t src = u32(r), dst = u32(r + 4);
        uint64_t seq = u64(r + 8), t = u64(r + 16), field = u64(r + 24);
        assert_true(t >= last);
        last = t;
        assert_int_equal(r[32] | r[33] << 8, 0);
        smp[i].pid = hs_pid(&F->scheme, hs_packet_key(F->scheme.salt, src, dst, seq));
        assert_int_equal(hs_field_unpack(&F->scheme, field, &smp[i].f), 0);
    }
    hs_counters from;
    assert_int_equal(hs_counters_init(&from, &F->scheme, NULL), 0);
    assert_int_equal(hs_counters_from_samples(&from, &F->scheme, smp, R), 0);
    assert_int_equal(from.packets, ct->packets);
    assert_memory_equal(from.t, ct->t, (size_t)A * nn * 8);
    assert_memory_equal(from.c, ct->c, (size_t)A * nn * 8);
    hs_counters_free(&from);
    free(smp);
    free(b);
}

static void check_truth(hs_fabric *F, const char *dir)
{
    size_t n;
    unsigned char *b = slurp(dir, "truth.bin", &n);
    assert_memory_equal(b, "HSTRUTH\0", 8);
    uint32_t hb = u32(b + 12), L = u32(b + 16), P = u32(b + 20), W = u32(b + 24);
    assert_int_equal(hb, 48);
    assert_int_equal(L, F->L);
    assert_int_equal(P, 1);
    assert_int_equal(u32(b + 28), 40);
    assert_int_equal(u64(b + 32), F->prm.window);
    size_t data = hb + 4ull * P + 8ull * W;
    assert_int_equal(n, data + 40ull * L * (1 + P + W));
    const hs__truth *tot = hs__truth_sum(F);
    uint64_t hops = 0;
    for (uint32_t l = 1; l <= L; l++) {
        const unsigned char *e = b + data + 40ull * (l - 1);
        assert_int_equal(u64(e), tot[l].packets);
        assert_int_equal(u64(e + 8), tot[l].bytes);
        assert_int_equal(u64(e + 16), tot[l].busy);
        assert_int_equal(u64(e + 24), tot[l].stall);
        assert_int_equal(u64(e + 32), tot[l].congested);
        hops += u64(e);
        /* the windows add up to the total */
        uint64_t wp = 0, wb = 0;
        for (uint32_t w = 0; w < W; w++) {
            const unsigned char *x = b + data + 40ull * ((1 + P + w) * (size_t)L + l - 1);
            wp += u64(x);
            wb += u64(x + 16);
        }
        assert_int_equal(wp, tot[l].packets);
        assert_int_equal(wb, tot[l].busy);
    }
    assert_int_equal(hops, F->st.hops);
    free(b);
}

static void check_manifest(const char *dir)
{
    size_t n;
    char *m = (char *)slurp(dir, "manifest.json", &n);
    assert_non_null(strstr(m, "\"format\": \"hopscope-run\""));
    assert_non_null(strstr(m, "\"version\": 2"));
    assert_non_null(strstr(m, "\"truth\": {"));
    assert_non_null(strstr(m, "\"routes\": \"table\""));
    assert_non_null(strstr(m, "\"file\": \"routes.bin\""));
    free(m);
}

/* Without tables (the default for the regular families): no routes.bin,
 * even where a previous run left one, the manifest says so, and every
 * other data file is the same as with tables. */
static void check_computed(const char *with, const char *without)
{
    char path[512];
    snprintf(path, sizeof path, "%s/routes.bin", without);
    assert_int_equal(access(path, F_OK), -1);
    size_t n;
    char *m = (char *)slurp(without, "manifest.json", &n);
    assert_non_null(strstr(m, "\"routes\": \"computed\""));
    assert_null(strstr(m, "routes.bin"));
    assert_non_null(strstr(m, "\"route_classes\": 0,"));
    free(m);
    static const char *files[] = { "links.tsv", "nodes.tsv", "switches.tsv", "phases.tsv",
                                   "counters.bin", "records.bin", "truth.bin" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t na, nb;
        unsigned char *x = slurp(with, files[i], &na), *y = slurp(without, files[i], &nb);
        if (na != nb || memcmp(x, y, na) != 0)
            fail_msg("%s differs with and without route tables", files[i]);
        free(x);
        free(y);
    }
}

static void same_files(const char *a, const char *b)
{
    static const char *files[] = { "manifest.json", "links.tsv", "nodes.tsv", "switches.tsv",
                                   "phases.tsv", "routes.bin", "counters.bin", "records.bin",
                                   "truth.bin" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t na, nb;
        unsigned char *x = slurp(a, files[i], &na), *y = slurp(b, files[i], &nb);
        if (na != nb || memcmp(x, y, na) != 0)
            fail_msg("%s differs between two identical runs", files[i]);
        free(x);
        free(y);
    }
}

static void rm_dir(const char *dir)
{
    static const char *files[] = { "manifest.json", "links.tsv", "nodes.tsv", "switches.tsv",
                                   "phases.tsv", "routes.bin", "counters.bin", "records.bin",
                                   "truth.bin" };
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void one(const char *spec)
{
    char d1[] = "/tmp/hs-run-XXXXXX", d2[] = "/tmp/hs-run-XXXXXX";
    assert_non_null(mkdtemp(d1));
    assert_non_null(mkdtemp(d2));
    hs_fabric *F = run(spec, 3, d1, 1);
    check_links(F, d1);
    check_routes(F, d1);
    check_counters_records(F, d1);
    check_truth(F, d1);
    check_manifest(d1);
    hs_fabric *G = run(spec, 3, d2, 1);
    same_files(d1, d2);
    hs_fabric *H = run(spec, 3, d2, 0);   /* rewrites d2 */
    check_computed(d1, d2);
    hs_fabric_destroy(F);
    hs_fabric_destroy(G);
    hs_fabric_destroy(H);
    rm_dir(d1);
    rm_dir(d2);
}

static void test_fattree(void **state)
{
    (void)state;
    one("fattree:k=4,n=2");
    one("fattree:k=4,n=2,routing=adaptive");
}

static void test_dragonfly(void **state)
{
    (void)state;
    one("dragonfly:a=4,p=2,h=2,g=9,routing=ugal");
    one("dragonfly:a=4,p=1,h=2,g=5");
}

static void test_torus(void **state)
{
    (void)state;
    one("torus:4x3,p=2");
}

static void test_write_errors(void **state)
{
    (void)state;
    hs_fabric *F;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_fabric_create(&F, "mesh:2x2", NULL, &e), 0);
    int rc = hs_fabric_write_rundir(F, "/proc/hs-no-such-dir/x", NULL, NULL, &e);
    assert_int_equal(rc, HS_EIO);
    assert_non_null(strstr(e.msg, "/proc/hs-no-such-dir"));
    hs_fabric_destroy(F);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_dragonfly),
        cmocka_unit_test(test_torus),
        cmocka_unit_test(test_write_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
