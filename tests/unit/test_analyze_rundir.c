/* The analyzer's readers of the run directory and of app.json: exact
 * agreement with paths reconstructed independently from the topology;
 * rejection of every kind of malformed input with the file, the offset or
 * line, and the reason; fuzzed files never crash the analysis (this test
 * also runs under ASan+UBSan); determinism of analysis.json. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "an_runs.h"
#include "test_util.h"
#include "hopscope/analyzer.h"

/* base: with routes.bin (--route-tables); comp: the same run without, its
 * routes recomputed from the topology spec */
static an_run base, comp;


static void spit(const char *dir, const char *name, const void *b, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

static void build(an_run *R, int tables)
{
    an_begin_tables(R, "fattree:k=4,n=2", 3, tables);
    an_ranks(R, 16, NULL);
    an_phase(R, 5, "tag 5", "p2p", 5, NULL, 1);
    an_phase(R, 6, "allreduce", "collective", -1, "allreduce", 1);
    for (uint32_t r = 0; r < 16; r++) {
        an_stream(R, r, (r + 5) % 16, 0.3, 4096, 5, 1, 0, 100 * HS_PS_PER_US, r, (r + 5) % 16);
        an_stream(R, r, r ^ 8, 0.2, 2048, 6, 1, 0, 100 * HS_PS_PER_US, r, r ^ 8);
    }
    an_stream(R, 3, 0, 0.6, 4096, 5, 1, 0, 100 * HS_PS_PER_US, 3, 0);
    an_finish(R);
}

static int setup(void **state)
{
    (void)state;
    build(&base, 1);
    build(&comp, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    an_end(&base);
    an_end(&comp);
    return 0;
}

static int try_analyze(const char *dir, hs_error *e)
{
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    hs_analysis *a = NULL;
    hs_error_clear(e);
    int rc = hs_analyze_run(dir, &p, &a, e);
    if (!rc) {
        char path[512];
        snprintf(path, sizeof path, "%s/fuzz-analysis.json", dir);
        assert_int_equal(hs_an_write_json(a, path, e), 0);
        FILE *devnull = fopen("/dev/null", "w");
        hs_an_print(a, devnull);
        fclose(devnull);
        remove(path);
        hs_an_free(a);
    } else {
        assert_null(a);
    }
    return rc;
}

/* Route-aware traffic on every link equals the number of records whose
 * path, rebuilt from fabric's own routing function, crosses it. */
static void test_paths_exact(void **state)
{
    (void)state;
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    hs_analysis *a;
    hs_error e;
    assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), 0);
    const hs_topo *t = hs_fabric_topo(base.f);
    uint32_t L = hs_topo_links(t);
    uint64_t *cnt = calloc(L + 1, sizeof *cnt);
    size_t n;
    unsigned char *b = slurp(base.dir, "records.bin", &n);
    uint64_t R = 0;
    memcpy(&R, b + 24, 8);
    for (uint64_t i = 0; i < R; i++) {
        uint32_t src, dst;
        memcpy(&src, b + 40 + 40 * i, 4);
        memcpy(&dst, b + 44 + 40 * i, 4);
        uint32_t l = hs_topo_node_injection(t, src);
        for (;;) {
            cnt[l]++;
            const hs_link_info *li = hs_topo_link(t, l);
            if (li->to_kind == HS_DEV_NODE)
                break;
            uint32_t out[8];
            assert_int_equal(hs_topo_route_set(t, li->to, dst, out, 8), 1);
            l = out[0];
        }
    }
    for (uint32_t l = 1; l <= L; l++) {
        hs_an_link x;
        assert_int_equal(hs_an_link_get(a, l, &x), 0);
        assert_true(x.traffic == (double)cnt[l]);
        assert_true(x.traffic_se == 0);
    }
    hs_an_link x;
    assert_int_equal(hs_an_link_get(a, 0, &x), HS_EINVAL);
    assert_int_equal(hs_an_link_get(a, L + 1, &x), HS_EINVAL);
    free(b);
    free(cnt);
    hs_an_free(a);
}

/* Same inputs, byte-identical analysis.json; per-phase views add up. */
static void test_deterministic(void **state)
{
    (void)state;
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    p.command = "test";
    char f1[512], f2[512];
    snprintf(f1, sizeof f1, "%s/a1.json", base.dir);
    snprintf(f2, sizeof f2, "%s/a2.json", base.dir);
    for (int i = 0; i < 2; i++) {
        hs_analysis *a;
        hs_error e;
        assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), 0);
        assert_int_equal(hs_an_write_json(a, i ? f2 : f1, &e), 0);
        hs_an_free(a);
    }
    size_t n1, n2;
    unsigned char *a1 = slurp(base.dir, "a1.json", &n1), *a2 = slurp(base.dir, "a2.json", &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a1, a2, n1);
    /* the document parses, names its format, and the phases are there */
    hs_jdoc *d;
    hs_error e;
    assert_int_equal(hs_jdoc_parse((char *)a1, n1, "a1.json", &d, &e), 0);
    const hs_jv *root = hs_jdoc_root(d);
    assert_string_equal(hs_jv_str(d, hs_jv_get(d, root, "format")), "hopscope-analysis");
    const hs_jv *ph = hs_jv_get(d, root, "phases");
    assert_int_equal(hs_jv_len(ph), 2);
    assert_string_equal(hs_jv_str(d, hs_jv_get(d, hs_jv_at(d, ph, 0), "name")), "tag 5");
    assert_string_equal(hs_jv_str(d, hs_jv_get(d, hs_jv_at(d, ph, 1), "collective")), "allreduce");
    /* exact paths: per-phase traffic of a link sums to its total */
    const hs_jv *links = hs_jv_get(d, root, "links");
    assert_int_equal(hs_jv_len(links), hs_topo_links(hs_fabric_topo(base.f)));
    for (size_t i = 0; i < hs_jv_len(links); i++) {
        const hs_jv *l = hs_jv_at(d, links, i);
        uint64_t id;
        double tot, sum = 0;
        int complete = 1;
        assert_int_equal(hs_jv_u64(hs_jv_get(d, l, "id"), &id), 0);
        if (hs_jv_double(hs_jv_get(d, l, "traffic"), &tot))
            tot = 0;   /* absent: no sampled packet crossed it */
        for (size_t g = 0; g < 2; g++) {
            const hs_jv *rows = hs_jv_get(d, hs_jv_at(d, ph, g), "rows");
            int found = 0;
            for (size_t k = 0; k < hs_jv_len(rows); k++) {
                uint64_t rid;
                double tr;
                hs_jv_u64(hs_jv_at(d, hs_jv_at(d, rows, k), 0), &rid);
                if (rid != id)
                    continue;
                hs_jv_double(hs_jv_at(d, hs_jv_at(d, rows, k), 1), &tr);
                sum += tr;
                found = 1;
            }
            complete &= found;
        }
        if (complete)
            assert_true(sum == tot);
    }
    hs_jdoc_free(d);
    free(a1);
    free(a2);
}

/* ---- rejections ------------------------------------------------------------------ */

typedef struct bad {
    const char *file;
    void (*mutate)(unsigned char **b, size_t *n);
    int status;
    const char *want;   /* in the message, after the file name */
} bad;

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void m_magic(unsigned char **b, size_t *n) { (void)n; (*b)[0] ^= 1; }
static void m_version(unsigned char **b, size_t *n) { (void)n; put32(*b + 8, 2); }
static void m_trunc(unsigned char **b, size_t *n) { *n -= 3; (void)b; }
static void m_pad(unsigned char **b, size_t *n)
{
    *b = realloc(*b, *n + 8);
    memset(*b + *n, 0, 8);
    *n += 8;
}
static void m_routes_entry(unsigned char **b, size_t *n)
{
    /* the last entry: a link that leaves another switch (an injection link) */
    put32(*b + *n - 4, 1);
}
static void m_routes_class(unsigned char **b, size_t *n) { (void)n; put32(*b + 48, 9999); }
static void m_counters_k(unsigned char **b, size_t *n) { (void)n; put32(*b + 16, 9); }
static void m_counters_kind(unsigned char **b, size_t *n) { (void)n; put32(*b + 56, 3); }
static void m_counters_phase(unsigned char **b, size_t *n) { (void)n; put64(*b + 56 + 8, 4242); }
/* found by tests/fuzz: INT64_MIN in a counter overflowed the transform */
static void m_counters_big(unsigned char **b, size_t *n) { (void)n; put64(*b + 56 + 64, 1ull << 63); }
static void m_records_src(unsigned char **b, size_t *n) { (void)n; put32(*b + 40 + 40 * 7, 999); }
static void m_records_field(unsigned char **b, size_t *n) { (void)n; put64(*b + 40 + 40 * 3 + 24, 1ull << 40); }
static void m_records_time(unsigned char **b, size_t *n)
{
    (void)n;
    put64(*b + 40 + 40 * 5 + 16, 1000000000000000ull);   /* later records come before it */
}
static void m_records_phase(unsigned char **b, size_t *n) { (void)n; (*b)[40 + 32] = 77; }
static void m_truth_links(unsigned char **b, size_t *n) { (void)n; put32(*b + 16, 3); }

static void replace(unsigned char **b, size_t *n, const char *from, const char *to)
{
    char *s = (char *)*b;
    char *p = strstr(s, from);
    assert_non_null(p);
    size_t lf = strlen(from), lt = strlen(to);
    unsigned char *o = malloc(*n - lf + lt + 1);
    size_t pre = (size_t)(p - s);
    memcpy(o, s, pre);
    memcpy(o + pre, to, lt);
    memcpy(o + pre + lt, p + lf, *n - pre - lf);
    *n = *n - lf + lt;
    o[*n] = 0;
    free(*b);
    *b = o;
}

static void m_man_format(unsigned char **b, size_t *n) { replace(b, n, "\"hopscope-run\"", "\"hopscope-rum\""); }
static void m_man_version(unsigned char **b, size_t *n) { replace(b, n, "\"version\": 2,\n  \"hopscope\"", "\"version\": 3,\n  \"hopscope\""); }
/* computed routes (comp) */
static void m_spec_other(unsigned char **b, size_t *n) { replace(b, n, "k=4,n=2,taper", "k=4,n=3,taper"); }
static void m_spec_file(unsigned char **b, size_t *n) { replace(b, n, "\"spec\": \"fattree:k=4,n=2,taper=1,bw=25GB/s,lat=100ns,nbw=25GB/s,nlat=100ns,vcs=1,routing=dmodk\"", "\"spec\": \"file:/etc/passwd\""); }
static void m_spec_huge(unsigned char **b, size_t *n) { replace(b, n, "\"spec\": \"fattree:k=4,n=2,", "\"spec\": \"fattree:k=64,n=4,"); }
static void m_spec_bad(unsigned char **b, size_t *n) { replace(b, n, "taper=1,", "taper=x,"); }
static void m_spec_routing(unsigned char **b, size_t *n) { replace(b, n, "routing=dmodk\"", "routing=adaptive\""); }
static void m_routes_how(unsigned char **b, size_t *n) { replace(b, n, "\"routes\": \"computed\"", "\"routes\": \"compute\""); }
static void m_routes_counts(unsigned char **b, size_t *n) { replace(b, n, "\"route_classes\": 0", "\"route_classes\": 16"); }
static void m_as_v1(unsigned char **b, size_t *n) { replace(b, n, "\"version\": 2,\n  \"hopscope\"", "\"version\": 1,\n  \"hopscope\""); }
static void m_links_port(unsigned char **b, size_t *n) { replace(b, n, "\n34\tswitch\tdown\t1\t0\t0\t0\tswitch\t4\tl2s0\t0\t", "\n34\tswitch\tdown\t1\t0\t0\t0\tswitch\t4\tl2s0\t3\t"); }
static void m_man_nodes(unsigned char **b, size_t *n) { replace(b, n, "\"nodes\": 16,", ""); }
static void m_man_syntax(unsigned char **b, size_t *n) { replace(b, n, "\"links\": 64,", "\"links\": 64,,"); }
static void m_man_file(unsigned char **b, size_t *n) { replace(b, n, "\"file\": \"truth.bin\"", "\"file\": \"../truth.bin\""); }
/* found by tests/fuzz: the error path read the run after freeing it */
static void m_man_norecords(unsigned char **b, size_t *n) { replace(b, n, "\"records\": {", "\"rfile:cords\": {"); }
static void m_links_header(unsigned char **b, size_t *n) { replace(b, n, "# hopscope links 1", "# hopscope links 2"); }
static void m_links_kind(unsigned char **b, size_t *n) { replace(b, n, "\tinjection\t", "\tinjektion\t"); }
static void m_links_newline(unsigned char **b, size_t *n) { (*n)--; (void)b; }
static void m_links_cols(unsigned char **b, size_t *n) { replace(b, n, "\tbw_Bps\t", "\tbandwidth\t"); }
static void m_nodes_inj(unsigned char **b, size_t *n) { replace(b, n, "\n3\tn3\t0\t3\t4\t", "\n3\tn3\t0\t3\t5\t"); }
static void m_phases_dup(unsigned char **b, size_t *n) { replace(b, n, "\n6\t1\t", "\n5\t1\t"); }
static void m_app_json(unsigned char **b, size_t *n) { replace(b, n, "\"ranks\": 16", "\"ranks\": 16 16"); }
static void m_app_node(unsigned char **b, size_t *n) { replace(b, n, "\"node_of_rank\": [\n      0,", "\"node_of_rank\": [\n      99,"); }
static void m_app_version(unsigned char **b, size_t *n) { replace(b, n, "\"version\": 1", "\"version\": 3"); }

static void reject_all(const char *dir, const bad *cases, size_t ncases)
{
    for (size_t i = 0; i < ncases; i++) {
        size_t n;
        unsigned char *orig = slurp(dir, cases[i].file, &n);
        unsigned char *b = malloc(n + 1);
        memcpy(b, orig, n + 1);
        size_t m = n;
        cases[i].mutate(&b, &m);
        if (m == n && memcmp(b, orig, n) == 0)
            fail_msg("%s case %zu: the mutation changed nothing", cases[i].file, i);
        spit(dir, cases[i].file, b, m);
        hs_error e;
        int rc = try_analyze(dir, &e);
        spit(dir, cases[i].file, orig, n);
        if (rc != cases[i].status || !strstr(e.msg, cases[i].want) || !strstr(e.msg, dir))
            fail_msg("%s case %zu: rc %d, message '%s'; want %d and '%s'", cases[i].file, i, rc,
                     e.msg, cases[i].status, cases[i].want);
        free(orig);
        free(b);
    }
}

/* A run directory whose routes are recomputed from its topology spec is
 * rejected, naming the file and the reason, when the spec does not build
 * or builds another network than its link table, or when it claims a
 * format it does not have. */
static void test_rejects_computed(void **state)
{
    (void)state;
    static const bad cases[] = {
        { "manifest.json", m_spec_other, HS_EFORMAT, "has 64 nodes, 48 switches, 384 links; "
          "the manifest says 16, 8, 64" },
        { "manifest.json", m_spec_file, HS_EFORMAT, "topology.spec 'file:/etc/passwd' is not a "
          "fattree" },
        { "manifest.json", m_spec_huge, HS_EFORMAT, "has 16777216 nodes, 1048576 switches" },
        { "manifest.json", m_spec_bad, HS_EFORMAT, "does not build" },
        { "manifest.json", m_spec_routing, HS_EFORMAT, "routed 'adaptive'; the manifest says 16, "
          "8, 64, 'dmodk'" },
        { "manifest.json", m_routes_how, HS_EFORMAT, "topology.routes 'compute': expected "
          "'table' or 'computed'" },
        { "manifest.json", m_routes_counts, HS_EFORMAT, "must be 0 when topology.routes is "
          "'computed'" },
        { "manifest.json", m_as_v1, HS_EFORMAT, "files.routes" },
        { "links.tsv", m_links_port, HS_EFORMAT, "links.tsv: link 34 is not the link 34 that "
          "topology.spec" },
    };
    reject_all(comp.dir, cases, sizeof cases / sizeof cases[0]);
    hs_error e;
    assert_int_equal(try_analyze(comp.dir, &e), 0);
}

/* The same run with its forwarding tables and with its routes recomputed
 * gives the same analysis.json; a version-1 directory (tables, no
 * topology.routes) still reads, to the same result. */
static char *analysis_text(const char *dir)
{
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    p.command = "test";
    hs_analysis *a;
    hs_error e;
    int rc = hs_analyze_run(dir, &p, &a, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    char path[512];
    snprintf(path, sizeof path, "%s/cmp.json", dir);
    assert_int_equal(hs_an_write_json(a, path, &e), 0);
    hs_an_free(a);
    size_t n;
    char *s = (char *)slurp(dir, "cmp.json", &n);
    remove(path);
    /* the run directory's name is in the text: blank it */
    size_t dl = strlen(dir);
    for (char *q = strstr(s, dir); q; q = strstr(q + dl, dir))
        memset(q, 'D', dl);
    return s;
}

static void test_computed_same(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/routes.bin", comp.dir);
    assert_int_equal(access(path, F_OK), -1);
    char *a = analysis_text(base.dir), *b = analysis_text(comp.dir);
    /* the names of the two temporary directories have the same length */
    assert_int_equal(strlen(base.dir), strlen(comp.dir));
    assert_string_equal(a, b);
    /* base as a version-1 directory */
    size_t n;
    unsigned char *orig = slurp(base.dir, "manifest.json", &n);
    unsigned char *m = malloc(n + 1);
    memcpy(m, orig, n + 1);
    size_t k = n;
    replace(&m, &k, "\"version\": 2,\n  \"hopscope\"", "\"version\": 1,\n  \"hopscope\"");
    replace(&m, &k, ",\n    \"routes\": \"table\"", "");
    assert_true(k == n - strlen(",\n    \"routes\": \"table\""));
    spit(base.dir, "manifest.json", m, k);
    char *c = analysis_text(base.dir);
    spit(base.dir, "manifest.json", orig, n);
    assert_string_equal(a, c);
    free(a);
    free(b);
    free(c);
    free(orig);
    free(m);
}

static void test_rejects(void **state)
{
    (void)state;
    static const bad cases[] = {
        { "manifest.json", m_man_format, HS_EFORMAT, "manifest.json: offset " },
        { "manifest.json", m_man_version, HS_EVERSION, "run directory version 3, this reader "
          "knows versions 1 to 2" },
        { "manifest.json", m_man_nodes, HS_EFORMAT, "missing key topology.nodes" },
        { "manifest.json", m_man_syntax, HS_EFORMAT, "manifest.json: offset " },
        { "manifest.json", m_man_file, HS_EFORMAT, "not a file name inside the run directory" },
        { "manifest.json", m_man_norecords, HS_EFORMAT, "but files has no records" },
        { "links.tsv", m_links_header, HS_EVERSION, "links.tsv: line 1: " },
        { "links.tsv", m_links_kind, HS_EFORMAT, "links.tsv: line 3: unknown link kind 'injektion'" },
        { "links.tsv", m_links_newline, HS_EFORMAT, "does not end with a newline" },
        { "links.tsv", m_links_cols, HS_EFORMAT, "links.tsv: line 2: unexpected columns" },
        { "nodes.tsv", m_nodes_inj, HS_EFORMAT, "nodes.tsv: line 6: the injection link" },
        { "phases.tsv", m_phases_dup, HS_EFORMAT, "phases.tsv: line 4: phase id listed twice" },
        { "routes.bin", m_magic, HS_EFORMAT, "routes.bin: offset 0: bad magic" },
        { "routes.bin", m_version, HS_EVERSION, "routes.bin: offset 8: version 2" },
        { "routes.bin", m_trunc, HS_EFORMAT, "routes.bin: offset " },
        { "routes.bin", m_routes_entry, HS_EFORMAT, "which does not leave switch" },
        { "routes.bin", m_routes_class, HS_EFORMAT, "routes.bin: offset 48: node 0 has class 9999" },
        { "counters.bin", m_counters_k, HS_EFORMAT, "counters.bin: offset 16: k = 9" },
        { "counters.bin", m_counters_big, HS_EFORMAT, "counters.bin: offset 120: set 0: the "
          "counters add up to more than its packets can" },
        { "counters.bin", m_counters_kind, HS_EFORMAT, "counters.bin: offset 56: set kind 3" },
        { "counters.bin", m_counters_phase, HS_EFORMAT, "set for phase 4242" },
        { "counters.bin", m_pad, HS_EFORMAT, "(truncated or padded)" },
        { "records.bin", m_records_src, HS_EFORMAT, "records.bin: offset 320: record 7: source 999" },
        { "records.bin", m_records_field, HS_EFORMAT, "records.bin: offset 184: record 3: field" },
        { "records.bin", m_records_time, HS_EFORMAT, "record 6: delivery time before" },
        { "records.bin", m_records_phase, HS_EFORMAT, "records.bin: offset 72: record 0: phase 77" },
        { "records.bin", m_trunc, HS_EFORMAT, "records.bin: offset " },
        { "truth.bin", m_truth_links, HS_EFORMAT, "truth.bin: offset 16: 3 links" },
        { "truth.bin", m_trunc, HS_EFORMAT, "truth.bin: offset " },
        { "app.json", m_app_json, HS_EFORMAT, "app.json: offset " },
        { "app.json", m_app_node, HS_EFORMAT, "rank 0: expected a node index below 16" },
        { "app.json", m_app_version, HS_EVERSION, "app.json: offset " },
    };
    reject_all(base.dir, cases, sizeof cases / sizeof cases[0]);
    /* a directory without a manifest is not a run */
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.json", base.dir);
    char moved[512];
    snprintf(moved, sizeof moved, "%s/manifest.moved", base.dir);
    assert_int_equal(rename(path, moved), 0);
    hs_error e;
    assert_int_equal(try_analyze(base.dir, &e), HS_ENOENT);
    assert_non_null(strstr(e.msg, "not a run directory"));
    assert_int_equal(rename(moved, path), 0);
    /* and the untouched directory still analyses */
    assert_int_equal(try_analyze(base.dir, &e), 0);
}

static uint64_t rng64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Random corruption of every file: the analysis succeeds or fails with a
 * message that names the run directory; never a crash (ASan build). */
static void fuzz_dir(const char *dir, const char *const *files, size_t nfiles, uint64_t seed)
{
    for (size_t fi = 0; fi < nfiles; fi++) {
        size_t n;
        unsigned char *orig = slurp(dir, files[fi], &n);
        unsigned char *b = malloc(n + 16);
        int failures = 0;
        for (int it = 0; it < 60; it++) {
            memcpy(b, orig, n);
            size_t m = n;
            int edits = 1 + (int)(rng64(&seed) % 3);
            for (int k = 0; k < edits && m > 0; k++) {
                uint64_t what = rng64(&seed) % 8;
                /* binary files: mostly their headers and the first records */
                size_t span = files[fi][strlen(files[fi]) - 1] == 'n' && m > 400 ? 400 : m;
                size_t at = (size_t)(rng64(&seed) % span);
                if (what == 0)
                    m = at;
                else if (what == 1)
                    b[at] = (unsigned char)"\t\n0123456789-#\"{}[],:x"[rng64(&seed) % 22];
                else
                    b[at] ^= (unsigned char)(1u << (rng64(&seed) % 8));
            }
            spit(dir, files[fi], b, m);
            hs_error e;
            int rc = try_analyze(dir, &e);
            if (rc) {
                failures++;
                if (!strstr(e.msg, dir) && rc != HS_ENOMEM)
                    fail_msg("%s: message without the file: '%s'", files[fi], e.msg);
            }
        }
        spit(dir, files[fi], orig, n);
        print_message("fuzz %-14s %2d of 60 mutations rejected\n", files[fi], failures);
        free(orig);
        free(b);
    }
}

static void test_fuzz(void **state)
{
    (void)state;
    static const char *const files[] = { "manifest.json", "links.tsv", "nodes.tsv",
                                         "switches.tsv", "phases.tsv", "routes.bin",
                                         "counters.bin", "records.bin", "truth.bin", "app.json" };
    fuzz_dir(base.dir, files, sizeof files / sizeof files[0], 77);
    /* the tables the recomputed routes are checked against */
    static const char *const cfiles[] = { "manifest.json", "links.tsv", "nodes.tsv",
                                          "switches.tsv" };
    fuzz_dir(comp.dir, cfiles, sizeof cfiles / sizeof cfiles[0], 78);
}

/* --phases FILE: syntax errors name the line; names group phases. */
static void test_phase_rules(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/phases.txt", base.dir);
    static const struct { const char *text; const char *want; } badr[] = {
        { "tag x halo\n", "line 1: expected N or A-B, not 'x'" },
        { "# c\ntag 5-3 halo\n", "line 2: range out of order" },
        { "tags 5 halo\n", "line 1: expected 'tag', 'collective' or 'phase', not 'tags'" },
        { "tag 5\n", "line 1: no name after the selector" },
        { "collective all-reduce x\n", "line 1: expected a collective kind" },
        /* well-formed but no such collective: it could never match */
        { "tag 1 a\n\ncollective alltoal x\n", "line 3: expected a collective kind (barrier, "
          "bcast, reduce, allreduce, allgather, alltoall, gather, scatter, reduce_scatter, "
          "scan, exscan, neighbor), not 'alltoal'" },
        { "collective ialltoall x\n", "line 1: expected a collective kind" },
        { "phase 70000 big\n", "line 1: range out of order or too large" },
    };
    for (size_t i = 0; i < sizeof badr / sizeof badr[0]; i++) {
        spit(base.dir, "phases.txt", badr[i].text, strlen(badr[i].text));
        hs_analyze_params p;
        hs_analyze_params_default(&p);
        p.phases_file = path;
        hs_analysis *a;
        hs_error e;
        assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), HS_EFORMAT);
        if (!strstr(e.msg, badr[i].want) || !strstr(e.msg, "phases.txt"))
            fail_msg("'%s': message '%s'", badr[i].text, e.msg);
    }
    const char *good = "# both phases under one name\n"
                       "tag 0-10   main loop   \n"
                       "collective allreduce main loop\n";
    spit(base.dir, "phases.txt", good, strlen(good));
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    p.phases_file = path;
    hs_analysis *a;
    hs_error e;
    assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), 0);
    char out[512];
    snprintf(out, sizeof out, "%s/ph.json", base.dir);
    assert_int_equal(hs_an_write_json(a, out, &e), 0);
    hs_an_free(a);
    hs_jdoc *d;
    assert_int_equal(hs_jdoc_load(out, 1 << 26, &d, &e), 0);
    const hs_jv *ph = hs_jv_get(d, hs_jdoc_root(d), "phases");
    assert_int_equal(hs_jv_len(ph), 1);
    const hs_jv *g = hs_jv_at(d, ph, 0);
    assert_string_equal(hs_jv_str(d, hs_jv_get(d, g, "name")), "main loop");
    assert_string_equal(hs_jv_str(d, hs_jv_get(d, g, "kind")), "mixed");
    assert_int_equal(hs_jv_len(hs_jv_get(d, g, "phase_ids")), 2);
    int b;
    assert_int_equal(hs_jv_bool(hs_jv_get(d, g, "user_named"), &b), 0);
    assert_true(b);
    hs_jdoc_free(d);
    remove(out);
    remove(path);
}

/* Mapping files round-trip; bad ones are rejected with the line. */
static void test_mapping_file(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/m.map", base.dir);
    uint32_t m[5] = { 4, 3, 2, 1, 0 }, *r, n;
    hs_error e;
    assert_int_equal(hs_an_mapping_write(path, m, 5, &e), 0);
    assert_int_equal(hs_an_mapping_read(path, &r, &n, &e), 0);
    assert_int_equal(n, 5);
    assert_memory_equal(r, m, sizeof m);
    free(r);
    static const struct { const char *t, *want; } bads[] = {
        { "0 1\n0 2\n", "line 2: rank 0 mapped twice" },
        { "0 1\n2 3\n", "rank 1 is missing" },
        { "0 x\n", "line 1: expected 'rank node'" },
        { "0 1 2\n", "line 1: expected 'rank node'" },
        { "# nothing\n", "no ranks" },
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        spit(base.dir, "m.map", bads[i].t, strlen(bads[i].t));
        assert_int_equal(hs_an_mapping_read(path, &r, &n, &e), HS_EFORMAT);
        if (!strstr(e.msg, bads[i].want))
            fail_msg("'%s': '%s'", bads[i].t, e.msg);
    }
    remove(path);
}

/* Without ground truth (a real machine's counters) the analysis runs and
 * says nothing about accuracy. */
static void test_no_truth(void **state)
{
    (void)state;
    size_t n;
    unsigned char *orig = slurp(base.dir, "manifest.json", &n);
    unsigned char *b = malloc(n + 1);
    memcpy(b, orig, n + 1);
    size_t m = n;
    replace(&b, &m, ",\n    \"truth\": {\n      \"file\": \"truth.bin\",\n      \"version\": 1\n    }", "");
    spit(base.dir, "manifest.json", b, m);
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    hs_analysis *a;
    hs_error e;
    int rc = hs_analyze_run(base.dir, &p, &a, &e);
    char out[512];
    snprintf(out, sizeof out, "%s/nt.json", base.dir);
    if (!rc)
        rc = hs_an_write_json(a, out, &e);
    spit(base.dir, "manifest.json", orig, n);
    assert_int_equal(rc, 0);
    hs_an_free(a);
    hs_jdoc *d;
    assert_int_equal(hs_jdoc_load(out, 1 << 26, &d, &e), 0);
    const hs_jv *root = hs_jdoc_root(d);
    assert_int_equal(hs_jv_kind(hs_jv_get(d, root, "accuracy")), HS_JV_NULL);
    const hs_jv *l0 = hs_jv_at(d, hs_jv_get(d, root, "links"), 0);
    assert_null(hs_jv_get(d, l0, "truth"));
    int t = 1;
    assert_int_equal(hs_jv_bool(hs_jv_get(d, hs_jv_get(d, root, "measurement"), "truth"), &t), 0);
    assert_false(t);
    hs_jdoc_free(d);
    remove(out);
    free(orig);
    free(b);
}

/* Bad parameters are refused before anything is read. */
static void test_params(void **state)
{
    (void)state;
    hs_analyze_params p;
    hs_analysis *a;
    hs_error e;
    hs_analyze_params_default(&p);
    p.cf_threshold = 1.5;
    assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), HS_EINVAL);
    hs_analyze_params_default(&p);
    p.load_low = 0.9;
    p.load_high = 0.5;
    assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), HS_EINVAL);
    hs_analyze_params_default(&p);
    p.decoder = HS_AN_DECODER_BLIND;
    assert_int_equal(hs_analyze_run(base.dir, &p, &a, &e), 0);
    hs_an_summary s;
    hs_an_get_summary(a, &s);
    assert_string_equal(s.decoder, "blind");
    hs_an_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_exact),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_rejects_computed),
        cmocka_unit_test(test_computed_same),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_phase_rules),
        cmocka_unit_test(test_mapping_file),
        cmocka_unit_test(test_no_truth),
        cmocka_unit_test(test_params),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
