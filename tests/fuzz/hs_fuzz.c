/* hs_fuzz: a seeded, deterministic mutation fuzzer over every reader of
 * outside input, linked against the ASan+UBSan build of the core.
 *
 *   hs_fuzz TARGET SEED_INPUT WORKDIR ITERATIONS SEED
 *
 * TARGET      what SEED_INPUT is and which readers run on each mutant:
 *   trace     a trace directory: one rank file's block is inflated,
 *             mutated and re-sealed with fresh checksums (so the mutation
 *             reaches the decoder), or a header field or the manifest is
 *             mutated; then every rank is read, stats and check computed,
 *             and the trace replayed on a small torus with --max-packets
 *             65536 (hangs: SIGALRM)
 *   topo      a topology file: hs_topo_create("file:..."), hs_topo_summarize
 *   phases    a phases file: hs_an_phases_check
 *   mapping   a mapping file: hs_mapping_parse + hs_mapping_build (16 ranks,
 *             32 nodes)
 *   analysis  an analysis.json: hs_viz_parse, then hs_viz_render in memory
 *   culprits  a table of runs (sweep.csv): hs_table_read, hs_cul_select with
 *             the default columns, and on a small accepted table a tiny
 *             culprit model (hs_cul_fit) when hopscope has XGBoost
 *   culprits_json  a culprits.json: hs_viz_culprits (svg and html)
 *   rundir    a run directory: one of its files (tables, binary files,
 *             manifest.json, app.json) mutated, then hs_analyze_run
 *   otf2      an OTF2 archive directory (traces.otf2, traces.def, traces/):
 *             one of its files mutated, then hs_trace_import_otf2 and, when
 *             it accepts, the trace readers as for `trace` (needs OTF2)
 * Each mutant is written to WORKDIR/cur (a file or a copy of the directory)
 * before the readers run, so when a sanitizer aborts the process the input
 * that did it is left there (tests/fuzz/run.sh keeps it).  The same
 * arguments give the same mutants: splitmix64 seeded by SEED.
 *
 * Prints one line: TARGET, inputs tried, accepted, rejected. */
#include "hopscope/analyzer.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"
#include "hopscope/trace.h"
#include "hopscope/viz.h"
#include "../../libtrace/format.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds one mutant may take before it counts as a hang.  The OTF2 library
 * sizes memory from counts in the anchor file before it checks them: a
 * mutated count makes it allocate and clear gigabytes (about 30 s on a
 * loaded machine, under ASan longer) before it rejects the archive; that is
 * slow, not a hang (docs/formats.md, "OTF2 archives"). */
#define HANG_SECONDS 20
#define HANG_SECONDS_OTF2 120
#define MAX_FILES 64
#define MAX_FILE_BYTES (64u << 20)

static uint64_t rng;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* ---- buffers and files ------------------------------------------------------ */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void reserve(buf *b, size_t n)
{
    if (n <= b->cap)
        return;
    size_t c = b->cap ? b->cap : 256;
    while (c < n)
        c *= 2;
    b->p = realloc(b->p, c);
    if (!b->p)
        die("realloc");
    b->cap = c;
}

static int slurp(const char *path, buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    b->n = 0;
    uint8_t tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) {
        reserve(b, b->n + k);
        memcpy(b->p + b->n, tmp, k);
        b->n += k;
        if (b->n > MAX_FILE_BYTES)
            break;
    }
    fclose(f);
    return 0;
}

static void spit(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
        die(path);
}

/* The regular files of a directory, sorted by name (deterministic). */
typedef struct dirfiles {
    char name[MAX_FILES][256];
    buf data[MAX_FILES];
    size_t n;
} dirfiles;

static int cmp_name(const void *a, const void *b) { return strcmp(a, b); }

static void load_dir(const char *dir, dirfiles *d)
{
    DIR *h = opendir(dir);
    if (!h)
        die(dir);
    struct dirent *e;
    d->n = 0;
    while ((e = readdir(h)) && d->n < MAX_FILES) {
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &st) || !S_ISREG(st.st_mode) ||
            strlen(e->d_name) >= 256)
            continue;
        /* outputs of later stages are not inputs of the reader under test */
        if (strstr(e->d_name, ".svg") || strstr(e->d_name, ".html") ||
            strcmp(e->d_name, "analysis.json") == 0)
            continue;
        strcpy(d->name[d->n++], e->d_name);
    }
    closedir(h);
    qsort(d->name, d->n, sizeof d->name[0], cmp_name);
    for (size_t i = 0; i < d->n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, d->name[i]);
        memset(&d->data[i], 0, sizeof d->data[i]);
        if (slurp(p, &d->data[i]))
            die(p);
    }
}

static void write_dir(const char *dir, const dirfiles *d)
{
    char cmd[3200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        die("rm");
    if (mkdir(dir, 0755))
        die(dir);
    for (size_t i = 0; i < d->n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, d->name[i]);
        spit(p, d->data[i].p, d->data[i].n);
    }
}

/* ---- generic mutations -------------------------------------------------------- */

static const char *const tokens[] = {
    "0", "1", "-1", "2", "255", "256", "65535", "65536", "4294967295", "4294967296",
    "18446744073709551615", "18446744073709551616", "9223372036854775807", "-9223372036854775808",
    "1e308", "-1e308", "1e-308", "nan", "inf", "-0", "0.5", "1.5", "\"\"", "null", "true",
    "[]", "{}", "[[", "]]", "\"x\":", ",", "#", " ", "\t", "\n", "\r\n", "-", "=",
    "switch", "node", "link", "route", "bw=", "lat=", "bw=0", "lat=-1", "hopscope-topology 1",
    "tag", "collective", "phase", "allreduce", "0-4294967295", "s0", "n0", "file:",
};

static void ins(buf *b, size_t at, const void *s, size_t n)
{
    reserve(b, b->n + n);
    memmove(b->p + at + n, b->p + at, b->n - at);
    memcpy(b->p + at, s, n);
    b->n += n;
}

/* One to four mutations of b (bytes or text alike). */
static void mutate(buf *b)
{
    int k = 1 + (int)rndn(4);
    for (int m = 0; m < k; m++) {
        size_t at = rndn(b->n + 1);
        /* numbers and tokens most often: they keep the syntax and reach
         * the checks behind it */
        unsigned what = (unsigned)rndn(13);
        if (what >= 10)
            what = 5;
        else if (what == 7 && rndn(4))
            what = 0;   /* truncation is rarely interesting twice */
        switch (what) {
        case 0: if (at < b->n) b->p[at] ^= (uint8_t)(1u << rndn(8)); break;
        case 1: if (at < b->n) b->p[at] = (uint8_t)rnd(); break;
        case 2: {
            static const uint8_t special[] = { 0, 0xff, 0x7f, 0x80, '\n', ' ', '-', '9', '.' };
            if (at < b->n)
                b->p[at] = special[rndn(sizeof special)];
            break;
        }
        case 3: {   /* delete a range */
            size_t len = 1 + rndn(16);
            if (at + len > b->n)
                len = b->n - at;
            memmove(b->p + at, b->p + at + len, b->n - at - len);
            b->n -= len;
            break;
        }
        case 4: {   /* duplicate a range (lines of text, records of binary) */
            if (!b->n)
                break;
            size_t from = rndn(b->n), len = 1 + rndn(64);
            if (from + len > b->n)
                len = b->n - from;
            uint8_t tmp[64];
            memcpy(tmp, b->p + from, len);
            ins(b, at, tmp, len);
            break;
        }
        case 5: case 6: {   /* a token, often in place of a number */
            const char *t = tokens[rndn(sizeof tokens / sizeof tokens[0])];
            size_t s = at, e = at;
            while (s > 0 && s <= b->n && ((b->p[s - 1] >= '0' && b->p[s - 1] <= '9') ||
                                           b->p[s - 1] == '.' || b->p[s - 1] == 'e'))
                s--;
            while (e < b->n && ((b->p[e] >= '0' && b->p[e] <= '9') || b->p[e] == '.' ||
                                b->p[e] == 'e'))
                e++;
            memmove(b->p + s, b->p + e, b->n - e);
            b->n -= e - s;
            ins(b, s, t, strlen(t));
            break;
        }
        case 7: b->n = at; break;   /* truncate */
        case 8: {   /* a little-endian word set to an extreme */
            static const uint32_t w[] = { 0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x10000u };
            if (at + 4 <= b->n) {
                uint32_t v = w[rndn(sizeof w / sizeof w[0])];
                memcpy(b->p + at, &v, 4);
            }
            break;
        }
        case 9: {   /* swap two bytes */
            size_t o = rndn(b->n);
            if (at < b->n && o < b->n) {
                uint8_t t = b->p[at];
                b->p[at] = b->p[o];
                b->p[o] = t;
            }
            break;
        }
        }
    }
}

/* ---- trace: structure-aware mutation ---------------------------------------------- */

static z_stream zs, zt;

/* Mutates one block of the rank file f: its payload (inflated, mutated,
 * deflated) or its header fields, with both checksums recomputed. */
static void mutate_rank_file(buf *f)
{
    size_t offs[4096], nb = 0;
    for (size_t off = HS__FILE_HDR_LEN; off + HS__BLK_HDR_LEN <= f->n && nb < 4096;) {
        hs__blk_hdr h;
        if (hs__blk_hdr_unpack(f->p + off, &h) || off + HS__BLK_HDR_LEN + h.comp_len > f->n)
            break;
        offs[nb++] = off;
        off += HS__BLK_HDR_LEN + h.comp_len;
    }
    if (nb == 0 || rndn(10) == 0) {   /* raw damage, checksums left as they are */
        mutate(f);
        return;
    }
    size_t bo = offs[rndn(nb)];
    hs__blk_hdr h;
    hs__blk_hdr_unpack(f->p + bo, &h);
    buf pay = { 0 };
    reserve(&pay, h.raw_len + 1);
    size_t slen;
    if (hs__inflate(f->p + bo + HS__BLK_HDR_LEN, h.comp_len, pay.p, h.raw_len, &slen)) {
        free(pay.p);
        return;
    }
    pay.n = h.raw_len;
    size_t old_len = HS__BLK_HDR_LEN + h.comp_len;
    switch (rndn(4)) {
    case 0: case 1: {   /* the structure or the time stream */
        buf part = { 0 };
        int times = (int)rndn(2);
        size_t a = times ? slen : 0, e = times ? pay.n : slen;
        reserve(&part, e - a + 1);
        memcpy(part.p, pay.p + a, e - a);
        part.n = e - a;
        mutate(&part);
        buf np = { 0 };
        reserve(&np, a + part.n + (pay.n - e) + 1);
        memcpy(np.p, pay.p, a);
        memcpy(np.p + a, part.p, part.n);
        memcpy(np.p + a + part.n, pay.p + e, pay.n - e);
        np.n = a + part.n + pay.n - e;
        if (!times)
            slen = part.n;
        free(part.p);
        free(pay.p);
        pay = np;
        break;
    }
    case 2:   /* header fields */
        switch (rndn(6)) {
        case 0: h.nevents += (uint32_t)rndn(3) - 1; break;
        case 1: h.base = rndn(2) ? rnd() : h.base + (rnd() >> rndn(64)); break;
        case 2: h.thread = (uint16_t)rndn(4); break;
        case 3: h.sync_tick ^= rnd() >> rndn(64); break;
        case 4: h.sync_ns ^= rnd() >> rndn(64); break;
        case 5: h.type = (uint8_t)(1 + rndn(3)); break;
        }
        break;
    case 3:   /* the boundary between the streams */
        slen = rndn(pay.n + 1);
        break;
    }
    if (slen > pay.n)
        slen = pay.n;
    size_t cap = hs__block_bound(slen, pay.n - slen);
    uint8_t *blk = malloc(cap);
    size_t blen;
    if (blk && hs__block_build(&zs, &zt, &h, pay.p, slen, pay.p + slen, pay.n - slen, blk, cap,
                               &blen) == 0) {
        buf nf = { 0 };
        reserve(&nf, f->n - old_len + blen + 1);
        memcpy(nf.p, f->p, bo);
        memcpy(nf.p + bo, blk, blen);
        memcpy(nf.p + bo + blen, f->p + bo + old_len, f->n - bo - old_len);
        nf.n = f->n - old_len + blen;
        free(f->p);
        *f = nf;
    }
    free(blk);
    free(pay.p);
}

/* Packets a fuzzed replay may send (--max-packets): 256 MiB at the 4 KiB
 * MTU, a few seconds of simulation.  A mutant asking for more (an imported
 * message of 2^64-1 bytes, a mutated size) is refused by the replay before
 * it runs, or stopped when it passes the bound; both are rejections. */
#define FUZZ_MAX_PACKETS (UINT64_C(1) << 16)

/* Reads every event, the stats and the check, then replays the trace (it
 * must end: done, deadlock, stall, or refused by --max-packets). */
static int read_trace(const char *dir)
{
    hs_trace *t;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_trace_open(dir, &t, &e);
    if (rc)
        return rc;
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    for (uint32_t r = 0; r < m->nranks && !rc; r++) {
        hs_trace_cursor *c;
        if ((rc = hs_trace_cursor_open(t, r, &c, &e)))
            break;
        hs_trace_event ev;
        while ((rc = hs_trace_next(c, &ev, &e)) == 1)
            ;
        hs_trace_cursor_close(c);
    }
    hs_trace_stats *s = NULL;
    if (hs_trace_stats_compute(t, &s, &e) == 0) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            hs_trace_stats_print(s, null, 64);
            fclose(null);
        }
    }
    hs_trace_stats_free(s);
    uint64_t problems;
    hs_trace_check(t, NULL, 0, &problems, &e);
    hs_trace_close(t);
    if (rc < 0)
        return rc;
    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = "torus:4x4x2";
    p.ppn = 1;
    p.max_packets = FUZZ_MAX_PACKETS;
    hs_replay_result res;
    rc = hs_replay_run(&p, &res, &e);
    hs_replay_result_free(&res);
    return rc;
}

/* ---- targets ------------------------------------------------------------------ */

/* An SMPI time-independent trace (directory of rank files): imported, and
 * the trace it gives read back and checked. */
static int import_smpi(const char *dir, const char *work)
{
    char out[3100];
    snprintf(out, sizeof out, "%s/imported", work);
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_trace_import_smpi(dir, out, &o, NULL, &e);
    if (rc)
        return rc;
    return read_trace(out);
}

static int run_file(const char *target, const char *path)
{
    hs_error e;
    hs_error_clear(&e);
    if (strcmp(target, "topo") == 0) {
        char spec[3100];
        snprintf(spec, sizeof spec, "file:%s", path);
        hs_topo *t;
        int rc = hs_topo_create(spec, &t, &e);
        if (rc)
            return rc;
        hs_topo_summary s;
        rc = hs_topo_summarize(t, &s);
        hs_topo_free(t);
        return rc;
    }
    if (strcmp(target, "phases") == 0)
        return hs_an_phases_check(path, &e);
    if (strcmp(target, "mapping") == 0) {
        char spec[3100];
        snprintf(spec, sizeof spec, "file:%s", path);
        hs_mapping_cfg m;
        memset(&m, 0, sizeof m);
        int rc = hs_mapping_parse(spec, &m, &e);
        if (rc)
            return rc;
        m.ppn = 1;
        uint32_t node[16];
        return hs_mapping_build(&m, 16, 32, node, &e);
    }
    if (strcmp(target, "analysis") == 0) {
        hs_viz_model *m;
        int rc = hs_viz_load(path, &m, &e);
        if (rc)
            return rc;
        hs_viz_options o;
        hs_viz_options_default(&o);
        hs_viz_doc *docs = NULL;
        size_t nd = 0;
        rc = hs_viz_render(m, NULL, &o, &docs, &nd, &e);
        hs_viz_docs_free(docs, nd);
        hs_viz_free(m);
        return rc;
    }
    if (strcmp(target, "portcounters") == 0) {
        hs_portcounters pc;
        int rc = hs_pc_read_csv(path, &pc, &e);
        if (!rc)
            hs_pc_free(&pc);
        return rc;
    }
    if (strcmp(target, "latencytests") == 0) {
        hs_lts l;
        int rc = hs_lts_read_csv(path, &l, &e);
        if (!rc)
            hs_lts_free(&l);
        return rc;
    }
    if (strcmp(target, "perfquery") == 0 || strcmp(target, "ibmap") == 0) {
        /* the fuzzed file as a perfquery snapshot after a fixed one, or as
         * the port map of fixed snapshots */
        static const char snap0[] = "# Port extended counters: Lid 12 port 1\n"
                                    "PortXmitData:....1\nPortXmitPkts:....1\nPortXmitWait:....1\n"
                                    "# Port extended counters: Lid 12 port 2\n"
                                    "PortXmitData:....1\nPortXmitPkts:....1\nPortXmitWait:....1\n"
                                    "timestamp 1.0\n";
        static const char snap1[] = "# Port extended counters: Lid 12 port 1\n"
                                    "PortXmitData:....9\nPortXmitPkts:....2\nPortXmitWait:....5\n"
                                    "# Port extended counters: Lid 12 port 2\n"
                                    "PortXmitData:....9\nPortXmitPkts:....2\nPortXmitWait:....5\n"
                                    "timestamp 2.0\n";
        static const char map0[] = "hopscope-ibmap 1\nlid 12 1 3\nlid 12 2 4\n";
        FILE *f = fopen(path, "rb");
        if (!f)
            return HS_EIO;
        static char text[1 << 20];
        size_t n = fread(text, 1, sizeof text, f);
        fclose(f);
        int pq = target[0] == 'p';
        hs_ibmap *map;
        int rc = pq ? hs_ibmap_parse(map0, sizeof map0 - 1, "map", &map, &e)
                    : hs_ibmap_parse(text, n, path, &map, &e);
        if (rc)
            return rc;
        const char *t[2] = { snap0, pq ? text : snap1 };
        size_t l[2] = { sizeof snap0 - 1, pq ? n : sizeof snap1 - 1 };
        const char *nm[2] = { "snap0", path };
        hs_pq_opts o = { 1000.0, 0, 16 };
        hs_portcounters pc;
        rc = hs_pc_import_perfquery(t, l, nm, 2, map, &o, &pc, &e);
        if (!rc)
            hs_pc_free(&pc);
        hs_ibmap_free(map);
        return rc;
    }
    if (strcmp(target, "culprits") == 0) {
        hs_table *t;
        int rc = hs_table_read(path, &t, &e);
        if (rc)
            return rc;
        hs_cul_data d;
        rc = hs_cul_select(t, NULL, NULL, &d, &e);
        hs_table_free(t);
        if (rc)
            return rc;
        if (d.n <= 64 && d.nf <= 8 && hs_cul_library()) {
            hs_cul_params p;
            hs_cul_params_default(&p);
            p.rounds = 3;
            p.folds = 2;
            p.search_folds = 2;
            p.perm_repeats = 1;
            p.greedy = 0;
            p.exhaustive_max = 0;
            p.nquantiles = 1;
            p.q_rounds = 2;
            hs_cul_result r;
            rc = hs_cul_fit(&d, &p, NULL, NULL, &r, &e);
            if (!rc) {
                FILE *f = fopen("/dev/null", "w");
                if (f) {
                    hs_cul_write_json(f, &d, NULL, &p, &r, path, NULL, NULL);
                    fclose(f);
                }
                hs_cul_result_free(&r);
            }
        }
        hs_cul_data_free(&d);
        return rc;
    }
    if (strcmp(target, "culprits_json") == 0) {
        hs_viz_doc *docs = NULL;
        size_t nd = 0;
        int rc = hs_viz_culprits_load(path, &docs, &nd, &e);
        hs_viz_docs_free(docs, nd);
        return rc;
    }
    fprintf(stderr, "hs_fuzz: unknown target '%s'\n", target);
    exit(2);
}

/* An OTF2 archive: the top directory's files and those of traces/. */
static void load_archive(const char *dir, dirfiles *top, dirfiles *sub)
{
    char p[4096];
    load_dir(dir, top);
    snprintf(p, sizeof p, "%s/traces", dir);
    load_dir(p, sub);
}

static void write_archive(const char *dir, const dirfiles *top, const dirfiles *sub)
{
    char p[4096];
    write_dir(dir, top);
    snprintf(p, sizeof p, "%s/traces", dir);
    write_dir(p, sub);
}

static int read_otf2(const char *archive, const char *work)
{
    char anchor[4096], out[4096], cmd[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", archive);
    snprintf(out, sizeof out, "%s/imported", work);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd) != 0)
        die("rm");
    hs_error e;
    int rc = hs_trace_import_otf2(anchor, out, 0, NULL, &e);
    if (rc == HS_ENOTSUP) {
        fprintf(stderr, "hs_fuzz: %s\n", e.msg);
        exit(2);
    }
    /* read, checked and replayed: a mutated MpiIsend length of 2^64-1
     * bytes is refused by --max-packets */
    return rc ? rc : read_trace(out);
}

static void copy_files(dirfiles *dst, const dirfiles *src)
{
    dst->n = src->n;
    for (size_t i = 0; i < src->n; i++) {
        strcpy(dst->name[i], src->name[i]);
        dst->data[i].n = 0;
        reserve(&dst->data[i], src->data[i].n + 1);
        memcpy(dst->data[i].p, src->data[i].p, src->data[i].n);
        dst->data[i].n = src->data[i].n;
    }
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "hs_fuzz: HANG: one input ran longer than the limit\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: hs_fuzz trace|topo|phases|mapping|analysis|rundir|smpi|otf2|"
                        "portcounters|latencytests|perfquery|ibmap|culprits|culprits_json SEED_INPUT "
                        "WORKDIR ITERATIONS SEED\n");
        return 2;
    }
    const char *target = argv[1], *input = argv[2], *work = argv[3];
    long iters = atol(argv[4]);
    rng = strtoull(argv[5], NULL, 0);
    char cur[3000];
    if ((size_t)snprintf(cur, sizeof cur, "%s/cur", work) >= sizeof cur) {
        fprintf(stderr, "hs_fuzz: work directory name too long\n");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    if (hs__deflate_init(&zs, &zt, 1, 1))
        die("zlib");
    int dir_target = strcmp(target, "trace") == 0 || strcmp(target, "rundir") == 0 ||
                     strcmp(target, "smpi") == 0;
    int otf2 = strcmp(target, "otf2") == 0;
    static dirfiles seed, mut, seed2, mut2;
    buf one = { 0 }, m1 = { 0 };
    if (otf2)
        load_archive(input, &seed, &seed2);
    else if (dir_target)
        load_dir(input, &seed);
    else if (slurp(input, &one))
        die(input);
    long ok = 0, rejected = 0;
    for (long it = 0; it < iters; it++) {
        int rc;
        if (otf2) {
            copy_files(&mut, &seed);
            copy_files(&mut2, &seed2);
            size_t k = rndn(mut.n + mut2.n);
            mutate(k < mut.n ? &mut.data[k] : &mut2.data[k - mut.n]);
            write_archive(cur, &mut, &mut2);
            alarm(HANG_SECONDS_OTF2);
            rc = read_otf2(cur, work);
            alarm(0);
        } else if (dir_target) {
            mut.n = seed.n;
            for (size_t i = 0; i < seed.n; i++) {
                strcpy(mut.name[i], seed.name[i]);
                mut.data[i].n = 0;
                reserve(&mut.data[i], seed.data[i].n + 1);
                memcpy(mut.data[i].p, seed.data[i].p, seed.data[i].n);
                mut.data[i].n = seed.data[i].n;
            }
            size_t k = rndn(mut.n);
            if (strcmp(target, "trace") == 0 && strstr(mut.name[k], ".hst"))
                mutate_rank_file(&mut.data[k]);
            else
                mutate(&mut.data[k]);
            write_dir(cur, &mut);
            alarm(HANG_SECONDS);
            if (strcmp(target, "trace") == 0) {
                rc = read_trace(cur);
            } else if (strcmp(target, "smpi") == 0) {
                rc = import_smpi(cur, work);
            } else {
                hs_analyze_params p;
                hs_analyze_params_default(&p);
                hs_analysis *a = NULL;
                hs_error e;
                rc = hs_analyze_run(cur, &p, &a, &e);
                hs_an_free(a);
            }
            alarm(0);
        } else {
            m1.n = 0;
            reserve(&m1, one.n + 1);
            memcpy(m1.p, one.p, one.n);
            m1.n = one.n;
            mutate(&m1);
            spit(cur, m1.p, m1.n);
            alarm(HANG_SECONDS);
            rc = run_file(target, cur);
            alarm(0);
        }
        if (rc < 0)
            rejected++;
        else
            ok++;
    }
    printf("%s: %ld inputs, %ld accepted, %ld rejected\n", target, iters, ok, rejected);
    hs__deflate_end(&zs, &zt);
    for (size_t i = 0; i < MAX_FILES; i++) {
        free(seed.data[i].p);
        free(mut.data[i].p);
        free(seed2.data[i].p);
        free(mut2.data[i].p);
    }
    free(one.p);
    free(m1.p);
    return 0;
}
