/* Strict readers of the run directory (docs/formats.md, "Run directory"),
 * written from the documentation, never from fabric code.  Version 2
 * directories of the regular families hold no forwarding tables: their
 * routes are recomputed with fabric's public hs_topo_route_set on the
 * topology the manifest's spec rebuilds, once that topology is checked to
 * be the run's link table, link by link.
 *
 * Binary files are mapped read-only; their headers' counts fix the exact
 * file size, which is checked before anything is used, so every later
 * access is in bounds.  Cross-file consistency is checked too: counts
 * against the manifest, link kinds against the node table, routing entries
 * against the link table (an entry at switch s must leave s), counter-set
 * and truth phase ids against phases.tsv.  Every rejection names the file
 * and the offset (binary) or line (text) and says why. */
#include "an.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* manifest.json: version 1 (routes.bin always) and 2 (topology.routes
 * says whether routes.bin exists) are read; the other files are at 1 */
#define RUN_VERSION 2
#define FILE_VERSION 1
#define MANIFEST_MAX_BYTES (64u << 20)
#define TSV_MAX_BYTES ((size_t)1 << 31)
/* a hop limit for walking forwarding tables: longer means a loop */
#define MAX_SWITCH_HOPS 64

/* ---- small helpers ------------------------------------------------------------ */

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int map_file(const char *path, hs__mapped *m, hs_error *err)
{
    m->p = NULL;
    m->n = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "cannot open '%s': %s",
                            path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return hs_error_set(err, HS_EIO, "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return hs_error_set(err, HS_EFORMAT, "'%s' is not a regular file", path);
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return hs_error_set(err, HS_EIO, "cannot map '%s': %s", path, strerror(e));
        }
        m->p = p;
        m->n = (size_t)st.st_size;
    }
    close(fd);
    return 0;
}

static void unmap(hs__mapped *m)
{
    if (m->p)
        munmap((void *)m->p, m->n);
    m->p = NULL;
    m->n = 0;
}

static int read_text(const char *path, char **out, size_t *len, hs_error *err)
{
    hs__mapped m;
    int rc = map_file(path, &m, err);
    if (rc)
        return rc;
    if (m.n > TSV_MAX_BYTES) {
        unmap(&m);
        return hs_error_set(err, HS_ERANGE, "%s: larger than %zu bytes", path, TSV_MAX_BYTES);
    }
    char *b = malloc(m.n + 1);
    if (!b) {
        unmap(&m);
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    }
    size_t n = m.n;
    if (n)
        memcpy(b, m.p, n);
    b[n] = 0;
    unmap(&m);
    *out = b;
    *len = n;
    return 0;
}

/* ---- manifest.json ---------------------------------------------------------------- */

typedef struct jctx {
    const hs_jdoc *d;
    const char *file;
    hs_error *err;
} jctx;

static const hs_jv *need(jctx *j, const hs_jv *obj, const char *sect, const char *key,
                         hs_jv_type type, int *rc)
{
    if (*rc)
        return NULL;
    const hs_jv *v = hs_jv_get(j->d, obj, key);
    if (!v) {
        *rc = hs_error_set(j->err, HS_EFORMAT, "%s: offset %zu: missing key %s%s%s", j->file,
                           hs_jv_offset(obj), sect ? sect : "", sect ? "." : "", key);
        return NULL;
    }
    if (hs_jv_kind(v) != type) {
        static const char *names[] = { "", "null", "a boolean", "a number", "a string",
                                       "an array", "an object" };
        *rc = hs_error_set(j->err, HS_EFORMAT, "%s: offset %zu: %s%s%s: expected %s", j->file,
                           hs_jv_offset(v), sect ? sect : "", sect ? "." : "", key, names[type]);
        return NULL;
    }
    return v;
}

static uint64_t need_u64(jctx *j, const hs_jv *obj, const char *sect, const char *key,
                         uint64_t max, int *rc)
{
    const hs_jv *v = need(j, obj, sect, key, HS_JV_NUM, rc);
    uint64_t u = 0;
    if (!v)
        return 0;
    if (hs_jv_u64(v, &u) || u > max) {
        *rc = hs_error_set(j->err, HS_EFORMAT, "%s: offset %zu: %s.%s: expected an integer in 0..%llu",
                           j->file, hs_jv_offset(v), sect ? sect : "", key, (unsigned long long)max);
        return 0;
    }
    return u;
}

static int need_bool(jctx *j, const hs_jv *obj, const char *sect, const char *key, int *rc)
{
    const hs_jv *v = need(j, obj, sect, key, HS_JV_BOOL, rc);
    int b = 0;
    if (v)
        hs_jv_bool(v, &b);
    return b;
}

static double need_num(jctx *j, const hs_jv *obj, const char *sect, const char *key, int *rc)
{
    const hs_jv *v = need(j, obj, sect, key, HS_JV_NUM, rc);
    double x = 0;
    if (v)
        hs_jv_double(v, &x);
    return x;
}

static const char *need_str(jctx *j, const hs_jv *obj, const char *sect, const char *key, int *rc)
{
    const hs_jv *v = need(j, obj, sect, key, HS_JV_STR, rc);
    return v ? hs_jv_str(j->d, v) : NULL;
}

/* File names the manifest gives, checked to stay inside the directory. */
typedef struct files {
    char links[256], nodes[256], switches[256], phases[256];
    char routes[256], counters[256], records[256], truth[256];
    uint64_t phases_count, truth_windows, counter_sets, route_classes, route_entries;
} files;

static int file_entry(jctx *j, const hs_jv *fobj, const char *key, char *out, int optional,
                      int *rc)
{
    if (*rc)
        return 0;
    const hs_jv *e = hs_jv_get(j->d, fobj, key);
    if (!e && optional) {
        out[0] = 0;
        return 0;
    }
    e = need(j, fobj, "files", key, HS_JV_OBJ, rc);
    const char *name = need_str(j, e, key, "file", rc);
    uint64_t ver = need_u64(j, e, key, "version", UINT32_MAX, rc);
    if (*rc)
        return 0;
    if (ver != FILE_VERSION) {
        *rc = hs_error_set(j->err, HS_EVERSION, "%s: offset %zu: files.%s: version %llu, this "
                           "reader knows version %d", j->file, hs_jv_offset(e), key,
                           (unsigned long long)ver, FILE_VERSION);
        return 0;
    }
    if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
        strlen(name) >= 256) {
        *rc = hs_error_set(j->err, HS_EFORMAT, "%s: offset %zu: files.%s: '%s' is not a file "
                           "name inside the run directory", j->file, hs_jv_offset(e), key, name);
        return 0;
    }
    snprintf(out, 256, "%s", name);
    return 1;
}

static int topo_kind_of(const char *s)
{
    if (strcmp(s, "fattree") == 0)
        return HS__TOPO_FATTREE;
    if (strcmp(s, "dragonfly") == 0)
        return HS__TOPO_DRAGONFLY;
    if (strcmp(s, "torus") == 0)
        return HS__TOPO_TORUS;
    if (strcmp(s, "file") == 0)
        return HS__TOPO_FILE;
    return 0;
}

static int read_manifest(hs__run *r, files *fl, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", r->dir);
    hs_jdoc *d;
    int rc = hs_jdoc_load(path, MANIFEST_MAX_BYTES, &d, err);
    if (rc == HS_ENOENT)
        return hs_error_set(err, HS_ENOENT, "%s: no manifest.json: not a run directory, or an "
                            "incomplete one (the manifest is written last)", r->dir);
    if (rc)
        return rc;
    jctx j = { d, path, err };
    const hs_jv *root = hs_jdoc_root(d);
    if (hs_jv_kind(root) != HS_JV_OBJ) {
        hs_jdoc_free(d);
        return hs_error_set(err, HS_EFORMAT, "%s: offset 0: expected an object", path);
    }
    const char *fmt = need_str(&j, root, NULL, "format", &rc);
    if (!rc && strcmp(fmt, "hopscope-run") != 0)
        rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: format '%s', expected 'hopscope-run'",
                          path, hs_jv_offset(hs_jv_get(d, root, "format")), fmt);
    uint64_t ver = need_u64(&j, root, NULL, "version", UINT32_MAX, &rc);
    if (!rc && (ver < 1 || ver > RUN_VERSION))
        rc = hs_error_set(err, HS_EVERSION, "%s: offset %zu: run directory version %llu, this "
                          "reader knows versions 1 to %d", path,
                          hs_jv_offset(hs_jv_get(d, root, "version")), (unsigned long long)ver,
                          RUN_VERSION);

    const hs_jv *t = need(&j, root, NULL, "topology", HS_JV_OBJ, &rc);
    r->topo_spec = xstrdup(need_str(&j, t, "topology", "spec", &rc));
    r->topo_kind_name = xstrdup(need_str(&j, t, "topology", "kind", &rc));
    r->routing = xstrdup(need_str(&j, t, "topology", "routing", &rc));
    r->N = (uint32_t)need_u64(&j, t, "topology", "nodes", UINT32_MAX - 1, &rc);
    r->S = (uint32_t)need_u64(&j, t, "topology", "switches", UINT32_MAX - 1, &rc);
    r->L = (uint32_t)need_u64(&j, t, "topology", "links", UINT32_MAX - 1, &rc);
    r->vcs = (uint32_t)need_u64(&j, t, "topology", "vcs", 255, &rc);
    r->deterministic = need_bool(&j, t, "topology", "deterministic", &rc);
    r->table_determined = need_bool(&j, t, "topology", "table_determined", &rc);
    if (!rc && !(r->topo_kind = topo_kind_of(r->topo_kind_name)))
        rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: topology.kind '%s' unknown", path,
                          hs_jv_offset(hs_jv_get(d, t, "kind")), r->topo_kind_name);
    /* version 2: "table" (routes.bin) or "computed" (from the spec) */
    if (!rc && ver >= 2) {
        const char *how = need_str(&j, t, "topology", "routes", &rc);
        if (!rc && strcmp(how, "computed") == 0 && r->topo_kind != HS__TOPO_FILE)
            r->routes_computed = 1;
        else if (!rc && strcmp(how, "table") != 0)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: topology.routes '%s': expected "
                              "'table'%s", path, hs_jv_offset(hs_jv_get(d, t, "routes")), how,
                              r->topo_kind == HS__TOPO_FILE ? " (a topology file's routes are its "
                              "tables)" : " or 'computed'");
    }
    if (!rc && (r->N < 1 || r->S < 1 || r->L < 2 * (uint64_t)r->N))
        rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: topology: %u nodes, %u switches, %u "
                          "links is not a network", path, hs_jv_offset(t), r->N, r->S, r->L);

    const hs_jv *nw = need(&j, root, NULL, "network", HS_JV_OBJ, &rc);
    r->mtu = (uint32_t)need_u64(&j, nw, "network", "mtu", UINT32_MAX, &rc);
    r->header = (uint32_t)need_u64(&j, nw, "network", "header", UINT32_MAX, &rc);
    r->min_packet = (uint32_t)need_u64(&j, nw, "network", "min_packet", UINT32_MAX, &rc);
    r->window_ps = need_u64(&j, nw, "network", "window_ps", UINT64_MAX, &rc);
    if (!rc && (r->mtu == 0 || r->window_ps == 0))
        rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: network: mtu and window_ps must be "
                          "positive", path, hs_jv_offset(nw));

    const hs_jv *sc = need(&j, root, NULL, "scheme", HS_JV_OBJ, &rc);
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = (unsigned)need_u64(&j, sc, "scheme", "k", 64, &rc);
    cfg.hop_bits = (unsigned)need_u64(&j, sc, "scheme", "c", 64, &rc);
    cfg.hash_bits = (unsigned)need_u64(&j, sc, "scheme", "b", 64, &rc);
    cfg.exact = need_bool(&j, sc, "scheme", "exact", &rc);
    cfg.salt = need_u64(&j, sc, "scheme", "salt", UINT64_MAX, &rc);
    uint64_t field_bits = need_u64(&j, sc, "scheme", "field_bits", 64, &rc);
    r->tau_factor = need_num(&j, sc, "scheme", "tau_factor", &rc);
    r->tau_ps = need_u64(&j, sc, "scheme", "tau_ps", UINT64_MAX, &rc);
    r->counters_present = need_bool(&j, sc, "scheme", "counters", &rc);
    cfg.nlinks = r->L;
    if (cfg.exact)
        cfg.hash_bits = 1;   /* ignored in exact mode; b is written as 0 */
    if (!rc) {
        hs_error e2;
        int src = hs_scheme_init(&r->scheme, &cfg, &e2);
        if (src)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: scheme: %s", path,
                              hs_jv_offset(sc), hs_error_str(&e2, src));
        else
            r->have_scheme = 1;
    }
    if (!rc && field_bits != r->scheme.field_bits)
        rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: scheme.field_bits %llu does not match "
                          "c, b, k (%u)", path, hs_jv_offset(sc), (unsigned long long)field_bits,
                          r->scheme.field_bits);

    const hs_jv *run = need(&j, root, NULL, "run", HS_JV_OBJ, &rc);
    r->end_ps = need_u64(&j, run, "run", "end_ps", UINT64_MAX, &rc);

    const hs_jv *ct = need(&j, root, NULL, "counts", HS_JV_OBJ, &rc);
    fl->phases_count = need_u64(&j, ct, "counts", "phases", 65536, &rc);
    fl->truth_windows = need_u64(&j, ct, "counts", "truth_windows", UINT32_MAX, &rc);
    fl->counter_sets = need_u64(&j, ct, "counts", "counter_sets", UINT32_MAX, &rc);
    r->nrecords = need_u64(&j, ct, "counts", "records", UINT64_MAX / 64, &rc);
    r->records_dropped = need_u64(&j, ct, "counts", "records_dropped", UINT64_MAX, &rc);
    fl->route_classes = need_u64(&j, ct, "counts", "route_classes", UINT32_MAX, &rc);
    fl->route_entries = need_u64(&j, ct, "counts", "route_entries", UINT64_MAX / 8, &rc);

    const hs_jv *fo = need(&j, root, NULL, "files", HS_JV_OBJ, &rc);
    file_entry(&j, fo, "links", fl->links, 0, &rc);
    file_entry(&j, fo, "nodes", fl->nodes, 0, &rc);
    file_entry(&j, fo, "switches", fl->switches, 0, &rc);
    file_entry(&j, fo, "phases", fl->phases, 0, &rc);
    file_entry(&j, fo, "routes", fl->routes, r->routes_computed, &rc);
    file_entry(&j, fo, "counters", fl->counters, 0, &rc);
    file_entry(&j, fo, "records", fl->records, 1, &rc);
    file_entry(&j, fo, "truth", fl->truth, 1, &rc);

    /* synthetic traffic: what the application's packets look like */
    const hs_jv *tr = hs_jv_get(d, root, "traffic");
    r->monitor_fraction = 1.0;
    if (!rc && tr) {
        if (hs_jv_kind(tr) != HS_JV_OBJ)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: traffic: expected an object",
                              path, hs_jv_offset(tr));
        r->synthetic = 1;
        r->traffic_pattern = xstrdup(need_str(&j, tr, "traffic", "pattern", &rc));
        r->msg_size = need_u64(&j, tr, "traffic", "size", UINT64_MAX, &rc);
        const hs_jv *mf = hs_jv_get(d, tr, "monitored_fraction");
        if (!rc && mf) {
            double x;
            if (hs_jv_double(mf, &x) || !(x >= 0 && x <= 1))
                rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: traffic.monitored_fraction: "
                                  "expected a number in [0, 1]", path, hs_jv_offset(mf));
            else
                r->monitor_fraction = x;
        }
    }
    /* monitoring probability and route length (later additions: optional) */
    r->monitor_p = r->monitor_fraction;
    const hs_jv *mp = sc ? hs_jv_get(d, sc, "monitor_probability") : NULL;
    if (!rc && mp) {
        double x;
        if (hs_jv_double(mp, &x) || !(x >= 0 && x <= 1))
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %zu: scheme.monitor_probability: "
                              "expected a number in [0, 1]", path, hs_jv_offset(mp));
        else
            r->monitor_p = x;
    }
    if (!rc && sc && hs_jv_get(d, sc, "max_route_links"))
        r->max_route_links = (uint32_t)need_u64(&j, sc, "scheme", "max_route_links",
                                                UINT32_MAX, &rc);
    if (!rc && run && hs_jv_get(d, run, "packets_monitored")) {
        r->have_run_monitored = 1;
        r->run_monitored = need_u64(&j, run, "run", "packets_monitored", UINT64_MAX, &rc);
        r->run_overflowed = need_u64(&j, run, "run", "packets_overflowed", UINT64_MAX, &rc);
    }
    if (!rc && run && hs_jv_get(d, run, "max_injection_queue")) {
        r->have_max_injq = 1;
        r->max_injq = need_u64(&j, run, "run", "max_injection_queue", UINT64_MAX, &rc);
    }
    hs_jdoc_free(d);
    return rc;
}

/* ---- TSV tables ------------------------------------------------------------------- */

typedef struct tsv {
    char *buf, *p, *end;
    const char *path;
    unsigned line;
    hs_error *err;
    char *f[24];
    unsigned nf;
} tsv;

static int tsv_fail(tsv *t, const char *fmt, const char *a, const char *b)
{
    char why[300];
    snprintf(why, sizeof why, fmt, a ? a : "", b ? b : "");
    return hs_error_set(t->err, HS_EFORMAT, "%s: line %u: %s", t->path, t->line, why);
}

/* Next line split at tabs into t->f; 0, 1 at the end, or an error. */
static int tsv_next(tsv *t)
{
    if (t->p >= t->end)
        return 1;
    t->line++;
    char *s = t->p, *nl = memchr(s, '\n', (size_t)(t->end - s));
    if (!nl)
        return tsv_fail(t, "line does not end with a newline (truncated file?)", NULL, NULL);
    *nl = 0;
    t->p = nl + 1;
    if (memchr(s, 0, (size_t)(nl - s)))
        return tsv_fail(t, "NUL byte in a text table", NULL, NULL);
    t->nf = 0;
    for (;;) {
        if (t->nf == sizeof t->f / sizeof t->f[0])
            return tsv_fail(t, "too many columns", NULL, NULL);
        t->f[t->nf++] = s;
        char *tab = strchr(s, '\t');
        if (!tab)
            break;
        *tab = 0;
        s = tab + 1;
    }
    return 0;
}

static int tsv_open(tsv *t, const char *dir, const char *name, const char *table,
                    const char *columns, char **keep, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(t, 0, sizeof *t);
    t->err = err;
    size_t len = 0;
    int rc = read_text(path, &t->buf, &len, err);
    if (rc)
        return rc;
    *keep = t->buf;
    t->path = strdup(path);
    if (!t->path)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    t->p = t->buf;
    t->end = t->buf + len;
    char want[64];
    snprintf(want, sizeof want, "# hopscope %s %d", table, FILE_VERSION);
    if ((rc = tsv_next(t)) != 0)
        return rc == 1 ? tsv_fail(t, "empty file", NULL, NULL) : rc;
    if (t->nf != 1 || strcmp(t->f[0], want) != 0) {
        char pre[64];
        snprintf(pre, sizeof pre, "# hopscope %s ", table);
        if (t->nf == 1 && strncmp(t->f[0], pre, strlen(pre)) == 0)
            return hs_error_set(err, HS_EVERSION, "%s: line 1: '%s': this reader knows version %d",
                                t->path, t->f[0], FILE_VERSION);
        return tsv_fail(t, "expected the header '%s'", want, NULL);
    }
    if ((rc = tsv_next(t)) != 0)
        return rc == 1 ? tsv_fail(t, "no column line", NULL, NULL) : rc;
    /* the column line, rejoined for comparison */
    char got[512];
    size_t o = 0;
    for (unsigned i = 0; i < t->nf && o < sizeof got; i++)
        o += (size_t)snprintf(got + o, sizeof got - o, "%s%s", i ? "\t" : "", t->f[i]);
    if (strcmp(got, columns) != 0)
        return tsv_fail(t, "unexpected columns (expected: %s)", columns, NULL);
    return 0;
}

static void tsv_close(tsv *t)
{
    free((void *)t->path);
    t->path = NULL;
}

static int cell_u64(tsv *t, unsigned i, const char *col, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    *out = 0;
    if (hs_parse_u64(t->f[i], &v) || v > max || (t->f[i][0] == '0' && t->f[i][1] == 'x')) {
        char m[40];
        snprintf(m, sizeof m, "%llu", (unsigned long long)max);
        return tsv_fail(t, "column %s: expected an integer up to %s", col, m);
    }
    *out = v;
    return 0;
}

static int cell_opt(tsv *t, unsigned i, const char *col, int32_t *out)
{
    if (strcmp(t->f[i], "-") == 0) {
        *out = -1;
        return 0;
    }
    uint64_t v;
    int rc = cell_u64(t, i, col, INT32_MAX, &v);
    *out = (int32_t)v;
    return rc;
}

static int read_links(hs__run *r, const char *name, hs_error *err)
{
    static const char cols[] = "id\tkind\tsub\tlevel\tdim\tdir\twrap\tfrom_kind\tfrom\tfrom_name"
                               "\tfrom_port\tto_kind\tto\tto_name\tto_port\tbw_Bps\tlat_ps\ttau_ps";
    tsv t;
    int rc = tsv_open(&t, r->dir, name, "links", cols, &r->pools[0], err);
    if (rc) {
        tsv_close(&t);
        return rc;
    }
    r->lk = calloc((size_t)r->L + 1, sizeof *r->lk);
    if (!r->lk) {
        tsv_close(&t);
        return hs_error_set(err, HS_ENOMEM, "out of memory for %u links", r->L);
    }
    uint32_t n = 0;
    while ((rc = tsv_next(&t)) == 0) {
        if (t.nf != 18) {
            rc = tsv_fail(&t, "expected 18 columns", NULL, NULL);
            break;
        }
        uint64_t v = 0;
        if ((rc = cell_u64(&t, 0, "id", UINT32_MAX, &v)))
            break;
        if (v != (uint64_t)n + 1 || n >= r->L) {
            rc = tsv_fail(&t, "link ids must be 1..links in order (manifest)", NULL, NULL);
            break;
        }
        hs__link *l = &r->lk[++n];
        const char *k = t.f[1], *s = t.f[2];
        l->kind = strcmp(k, "injection") == 0 ? HS__LK_INJECTION
                : strcmp(k, "ejection") == 0  ? HS__LK_EJECTION
                : strcmp(k, "switch") == 0    ? HS__LK_SWITCH : 0;
        if (!l->kind) {
            rc = tsv_fail(&t, "unknown link kind '%s'", k, NULL);
            break;
        }
        l->sub = strcmp(s, "-") == 0 ? HS__SUB_NONE : strcmp(s, "up") == 0 ? HS__SUB_UP
               : strcmp(s, "down") == 0 ? HS__SUB_DOWN : strcmp(s, "local") == 0 ? HS__SUB_LOCAL
               : strcmp(s, "global") == 0 ? HS__SUB_GLOBAL : strcmp(s, "torus") == 0 ? HS__SUB_TORUS
               : strcmp(s, "plain") == 0 ? HS__SUB_PLAIN : 255;
        if (l->sub == 255 || (l->kind == HS__LK_SWITCH) != (l->sub != HS__SUB_NONE)) {
            rc = tsv_fail(&t, "sub '%s' does not fit kind '%s'", s, k);
            break;
        }
        if ((rc = cell_u64(&t, 3, "level", 255, &v)))
            break;
        l->level = (uint8_t)v;
        if ((rc = cell_u64(&t, 4, "dim", 255, &v)))
            break;
        l->dim = (uint8_t)v;
        if (strcmp(t.f[5], "0") == 0 || strcmp(t.f[5], "1") == 0 || strcmp(t.f[5], "-1") == 0) {
            l->dir = (int8_t)atoi(t.f[5]);
        } else {
            rc = tsv_fail(&t, "column dir: expected -1, 0 or 1", NULL, NULL);
            break;
        }
        if ((rc = cell_u64(&t, 6, "wrap", 1, &v)))
            break;
        l->wrap = (uint8_t)v;
        for (int e = 0; e < 2; e++) {
            unsigned b = e ? 11 : 7;
            const char *dk = t.f[b];
            uint8_t kind = strcmp(dk, "node") == 0 ? HS__DEV_NODE
                         : strcmp(dk, "switch") == 0 ? HS__DEV_SWITCH : 255;
            if (kind == 255) {
                rc = tsv_fail(&t, "unknown device kind '%s'", dk, NULL);
                break;
            }
            uint64_t idx = 0, port = 0;
            if ((rc = cell_u64(&t, b + 1, e ? "to" : "from", (kind ? r->S : r->N) - 1, &idx)) ||
                (rc = cell_u64(&t, b + 3, e ? "to_port" : "from_port", 65535, &port)))
                break;
            if (e) {
                l->to_kind = kind;
                l->to = (uint32_t)idx;
                l->to_name = t.f[b + 2];
                l->to_port = (uint32_t)port;
            } else {
                l->from_kind = kind;
                l->from = (uint32_t)idx;
                l->from_name = t.f[b + 2];
                l->from_port = (uint32_t)port;
            }
        }
        if (rc)
            break;
        int want_from = l->kind == HS__LK_INJECTION ? HS__DEV_NODE : HS__DEV_SWITCH;
        int want_to = l->kind == HS__LK_EJECTION ? HS__DEV_NODE : HS__DEV_SWITCH;
        if (l->from_kind != want_from || l->to_kind != want_to) {
            rc = tsv_fail(&t, "the ends do not fit kind '%s'", k, NULL);
            break;
        }
        if ((rc = cell_u64(&t, 15, "bw_Bps", UINT64_MAX, &l->bw)) ||
            (rc = cell_u64(&t, 16, "lat_ps", UINT64_MAX, &l->lat)) ||
            (rc = cell_u64(&t, 17, "tau_ps", UINT64_MAX, &l->tau)))
            break;
        if (l->bw == 0) {
            rc = tsv_fail(&t, "column bw_Bps: a link needs a positive rate", NULL, NULL);
            break;
        }
    }
    if (rc == 1)
        rc = n == r->L ? 0 : tsv_fail(&t, "the table ends early: the manifest says more links",
                                      NULL, NULL);
    tsv_close(&t);
    return rc;
}

static int read_nodes(hs__run *r, const char *name, hs_error *err)
{
    tsv t;
    int rc = tsv_open(&t, r->dir, name, "nodes", "node\tname\tswitch\tport\tinjection\tejection\trx_Bps",
                      &r->pools[1], err);
    if (rc) {
        tsv_close(&t);
        return rc;
    }
    r->nd = calloc(r->N, sizeof *r->nd);
    if (!r->nd) {
        tsv_close(&t);
        return hs_error_set(err, HS_ENOMEM, "out of memory for %u nodes", r->N);
    }
    uint32_t n = 0;
    while ((rc = tsv_next(&t)) == 0) {
        uint64_t v = 0, sw = 0, port = 0, inj = 0, ej = 0;
        if (t.nf != 7) {
            rc = tsv_fail(&t, "expected 7 columns", NULL, NULL);
            break;
        }
        if ((rc = cell_u64(&t, 0, "node", UINT32_MAX, &v)))
            break;
        if (v != n || n >= r->N) {
            rc = tsv_fail(&t, "nodes must be 0..nodes-1 in order (manifest)", NULL, NULL);
            break;
        }
        hs__node *d = &r->nd[n];
        d->name = t.f[1];
        if ((rc = cell_u64(&t, 2, "switch", r->S - 1, &sw)) ||
            (rc = cell_u64(&t, 3, "port", 65535, &port)) ||
            (rc = cell_u64(&t, 4, "injection", r->L, &inj)) ||
            (rc = cell_u64(&t, 5, "ejection", r->L, &ej)) ||
            (rc = cell_u64(&t, 6, "rx_Bps", UINT64_MAX, &d->rx)))
            break;
        d->sw = (uint32_t)sw;
        d->port = (uint32_t)port;
        d->inj = (uint32_t)inj;
        d->ej = (uint32_t)ej;
        const hs__link *li = &r->lk[d->inj], *le = &r->lk[d->ej];
        if (d->inj == 0 || li->kind != HS__LK_INJECTION || li->from != n || li->to != d->sw) {
            rc = tsv_fail(&t, "the injection link is not this node's link to its switch", NULL, NULL);
            break;
        }
        if (d->ej == 0 || le->kind != HS__LK_EJECTION || le->to != n || le->from != d->sw) {
            rc = tsv_fail(&t, "the ejection link is not its switch's link to this node", NULL, NULL);
            break;
        }
        n++;
    }
    if (rc == 1)
        rc = n == r->N ? 0 : tsv_fail(&t, "the table ends early: the manifest says more nodes",
                                      NULL, NULL);
    tsv_close(&t);
    return rc;
}

static int read_switches(hs__run *r, const char *name, hs_error *err)
{
    tsv t;
    int rc = tsv_open(&t, r->dir, name, "switches", "switch\tname\tports\tlevel\tgroup\trouter\tcoord",
                      &r->pools[2], err);
    if (rc) {
        tsv_close(&t);
        return rc;
    }
    r->sw = calloc(r->S, sizeof *r->sw);
    if (!r->sw) {
        tsv_close(&t);
        return hs_error_set(err, HS_ENOMEM, "out of memory for %u switches", r->S);
    }
    uint32_t n = 0;
    while ((rc = tsv_next(&t)) == 0) {
        uint64_t v = 0, ports = 0;
        if (t.nf != 7) {
            rc = tsv_fail(&t, "expected 7 columns", NULL, NULL);
            break;
        }
        if ((rc = cell_u64(&t, 0, "switch", UINT32_MAX, &v)))
            break;
        if (v != n || n >= r->S) {
            rc = tsv_fail(&t, "switches must be 0..switches-1 in order (manifest)", NULL, NULL);
            break;
        }
        hs__switch *s = &r->sw[n];
        s->name = t.f[1];
        if ((rc = cell_u64(&t, 2, "ports", 65536, &ports)) ||
            (rc = cell_opt(&t, 3, "level", &s->level)) ||
            (rc = cell_opt(&t, 4, "group", &s->group)) ||
            (rc = cell_opt(&t, 5, "router", &s->router)))
            break;
        s->ports = (uint32_t)ports;
        if (strcmp(t.f[6], "-") != 0) {
            for (const char *c = t.f[6]; *c; c++)
                if (!(*c >= '0' && *c <= '9') && *c != '.') {
                    rc = tsv_fail(&t, "column coord: expected dot-separated integers", NULL, NULL);
                    break;
                }
            if (rc)
                break;
            s->coord = t.f[6];
        }
        n++;
    }
    if (rc == 1)
        rc = n == r->S ? 0 : tsv_fail(&t, "the table ends early: the manifest says more switches",
                                      NULL, NULL);
    tsv_close(&t);
    if (rc)
        return rc;
    /* every switch link's port must exist at its switch */
    for (uint32_t id = 1; id <= r->L; id++) {
        const hs__link *l = &r->lk[id];
        if ((l->from_kind == HS__DEV_SWITCH && l->from_port >= r->sw[l->from].ports) ||
            (l->to_kind == HS__DEV_SWITCH && l->to_port >= r->sw[l->to].ports))
            return hs_error_set(err, HS_EFORMAT, "%s/%s: link %u uses a port its switch does not "
                                "have (switches.tsv)", r->dir, name, id);
    }
    return 0;
}

static int read_phases(hs__run *r, const char *name, uint64_t count, hs_error *err)
{
    tsv t;
    int rc = tsv_open(&t, r->dir, name, "phases", "phase\tindex\tname", &r->pools[3], err);
    if (rc) {
        tsv_close(&t);
        return rc;
    }
    r->ph = calloc(count ? count : 1, sizeof *r->ph);
    if (!r->ph) {
        tsv_close(&t);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    uint32_t n = 0;
    while ((rc = tsv_next(&t)) == 0) {
        uint64_t id = 0, idx = 0;
        if (t.nf != 3) {
            rc = tsv_fail(&t, "expected 3 columns", NULL, NULL);
            break;
        }
        if ((rc = cell_u64(&t, 0, "phase", 65535, &id)) ||
            (rc = cell_u64(&t, 1, "index", UINT32_MAX, &idx)))
            break;
        if (idx != n || n >= count) {
            rc = tsv_fail(&t, "indices must be 0..phases-1 in order (manifest counts.phases)",
                          NULL, NULL);
            break;
        }
        for (uint32_t i = 0; i < n; i++)
            if (r->ph[i].id == id) {
                rc = tsv_fail(&t, "phase id listed twice", NULL, NULL);
                break;
            }
        if (rc)
            break;
        r->ph[n].id = (uint32_t)id;
        r->ph[n].name = t.f[2];
        n++;
    }
    if (rc == 1)
        rc = n == count ? 0 : tsv_fail(&t, "the table ends early: the manifest counts more phases",
                                       NULL, NULL);
    r->nph = n;
    tsv_close(&t);
    return rc;
}

uint32_t hs__an_phase_index(const hs__run *r, uint32_t id)
{
    for (uint32_t i = 0; i < r->nph; i++)
        if (r->ph[i].id == id)
            return i;
    return HS__NIL;
}

/* ---- binary files ---------------------------------------------------------------- */

static int bin_header(const hs__mapped *m, const char *path, const char magic[8],
                      uint32_t header_bytes, hs_error *err)
{
    if (m->n < 16 || memcmp(m->p, magic, 8) != 0) {
        char mg[9];
        memcpy(mg, magic, 8);
        mg[8] = 0;
        return hs_error_set(err, HS_EFORMAT, "%s: offset 0: %s (expected magic '%s')", path,
                            m->n < 16 ? "file too short for a header" : "bad magic", mg);
    }
    uint32_t v = hs__le32(m->p + 8);
    if (v != FILE_VERSION)
        return hs_error_set(err, HS_EVERSION, "%s: offset 8: version %u, this reader knows "
                            "version %d", path, v, FILE_VERSION);
    uint32_t hb = hs__le32(m->p + 12);
    if (hb != header_bytes || m->n < header_bytes)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 12: header_bytes %u, expected %u%s",
                            path, hb, header_bytes, m->n < header_bytes ? " (file too short)" : "");
    return 0;
}

static int size_check(const char *path, size_t have, uint64_t want, hs_error *err)
{
    if (have != want)
        return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: file is %zu bytes, its counts "
                            "say %llu (truncated or padded)", path,
                            (unsigned long long)(have < want ? have : want), have,
                            (unsigned long long)want);
    return 0;
}

/* routes.bin's entries for (switch s, class c): count, and the i-th
 * little-endian u32 link ID */
static inline unsigned tab_count(const hs__run *r, uint32_t s, uint32_t c)
{
    return r->rcnt[(size_t)s * r->C + c];
}
static inline uint32_t tab_entry(const hs__run *r, uint32_t s, uint32_t c, unsigned i)
{
    return hs__le32(r->rent + 4 * (r->roff[(size_t)s * r->C + c] + i));
}

unsigned hs__route_set(const hs__run *r, uint32_t s, uint32_t c, uint32_t *out)
{
    if (r->csw[c] == s)
        return 0;
    if (r->routes_computed)
        return hs_topo_route_set(r->topo, s, r->rep[c], out, HS__ROUTE_MAX);
    unsigned k = tab_count(r, s, c);
    for (unsigned i = 0; i < k; i++)
        out[i] = tab_entry(r, s, c, i);
    return k;
}

static int read_routes(hs__run *r, const char *name, const files *fl, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    int rc = map_file(path, &r->m_routes, err);
    if (rc)
        return rc;
    const hs__mapped *m = &r->m_routes;
    if ((rc = bin_header(m, path, "HSROUTES", 48, err)))
        return rc;
    uint32_t S = hs__le32(m->p + 16), N = hs__le32(m->p + 20), C = hs__le32(m->p + 24);
    uint32_t flags = hs__le32(m->p + 28);
    uint64_t E = hs__le64(m->p + 32);
    if (S != r->S || N != r->N)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 16: %u switches, %u nodes; the manifest "
                            "says %u, %u", path, S, N, r->S, r->N);
    if (C == 0 || C > N || C != fl->route_classes)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 24: %u destination classes (nodes %u, "
                            "manifest %llu)", path, C, N, (unsigned long long)fl->route_classes);
    if (flags > 3 || (flags & 1) != (uint32_t)r->deterministic ||
        (flags >> 1 & 1) != (uint32_t)r->table_determined)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 28: flags %u disagree with the "
                            "manifest's deterministic/table_determined", path, flags);
    if (E != fl->route_entries)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 32: %llu entries, the manifest says %llu",
                            path, (unsigned long long)E, (unsigned long long)fl->route_entries);
    uint64_t sc = (uint64_t)S * C;
    uint64_t pad = (4 - sc % 4) % 4;
    if (E > (UINT64_MAX - 48 - 4ull * N - sc - pad) / 4)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 32: entry count out of range", path);
    if ((rc = size_check(path, m->n, 48 + 4ull * N + sc + pad + 4 * E, err)))
        return rc;
    r->C = C;
    r->rflags = flags;
    r->rcnt = m->p + 48 + 4ull * N;
    r->rent = m->p + 48 + 4ull * N + sc + pad;
    r->cls = malloc((size_t)N * sizeof *r->cls);
    if (!r->cls)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    for (uint32_t n = 0; n < N; n++) {
        r->cls[n] = hs__le32(m->p + 48 + 4ull * n);
        if (r->cls[n] >= C)
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: node %u has class %u of %u", path,
                                48 + 4ull * n, n, r->cls[n], C);
    }
    r->roff = malloc((size_t)(sc + 1) * sizeof *r->roff);
    if (!r->roff)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    uint64_t o = 0;
    for (uint64_t i = 0; i < sc; i++) {
        r->roff[i] = o;
        o += r->rcnt[i];
    }
    r->roff[sc] = o;
    if (o != E)
        return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: counts sum to %llu, the header "
                            "says %llu entries", path, 48 + 4ull * N, (unsigned long long)o,
                            (unsigned long long)E);
    /* every entry must leave its switch; a class ends (count 0) only at the
     * switch of each of its nodes */
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t c = 0; c < C; c++) {
            unsigned k = tab_count(r, s, c);
            for (unsigned i = 0; i < k; i++) {
                uint32_t l = tab_entry(r, s, c, i);
                if (l == 0 || l > r->L || r->lk[l].from_kind != HS__DEV_SWITCH ||
                    r->lk[l].from != s)
                    return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: entry for switch %u, "
                                        "class %u is link %u, which does not leave switch %u",
                                        path, 48 + 4ull * N + sc + pad +
                                        4 * (r->roff[(size_t)s * C + c] + i), s, c, l, s);
            }
        }
    /* a class is a set of destinations on one switch; its count is 0
     * there and only there */
    uint32_t *csw = r->csw = malloc((size_t)C * sizeof *csw);
    if (!csw)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    memset(csw, 0xff, (size_t)C * sizeof *csw);
    for (uint32_t n = 0; n < N; n++) {
        uint32_t c = hs__node_class(r, n);
        if (csw[c] != HS__NIL && csw[c] != r->nd[n].sw)
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: class %u holds nodes of "
                                "switches %u and %u", path, 48 + 4ull * n, c, csw[c], r->nd[n].sw);
        csw[c] = r->nd[n].sw;
    }
    for (uint32_t c = 0; c < C; c++)
        if (csw[c] == HS__NIL)
            return hs_error_set(err, HS_EFORMAT, "%s: offset 48: class %u has no node", path, c);
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t c = 0; c < C; c++)
            if ((tab_count(r, s, c) == 0) != (csw[c] == s)) {
                int own = csw[c] == s;
                return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: switch %u, class %u: %s",
                                    path, 48 + 4ull * N + (uint64_t)s * C + c, s, c,
                                    own ? "entries at the destination's own switch"
                                        : "no entries away from the destination's switch");
            }
    return 0;
}

static uint64_t cset_bytes(const hs__run *r)
{
    return 64 + (uint64_t)r->cnt_arrays * r->cnt_n * 8 * (r->cnt_second ? 4 : 2);
}

/* Bound on the sum of h^2 over all counter sets: the decoders add up to 8
 * arrays of up to every set, in int64_t. */
#define SUM_H2_MAX (1ull << 59)

static int read_counters(hs__run *r, const char *name, const files *fl, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    int rc = map_file(path, &r->m_counters, err);
    if (rc)
        return rc;
    const hs__mapped *m = &r->m_counters;
    if ((rc = bin_header(m, path, "HSCOUNTS", 56, err)))
        return rc;
    r->cnt_k = hs__le32(m->p + 16);
    r->cnt_arrays = hs__le32(m->p + 20);
    r->cnt_exact = (int)hs__le32(m->p + 24);
    r->cnt_second = (int)hs__le32(m->p + 28);
    uint32_t M = hs__le32(m->p + 32), present = hs__le32(m->p + 36);
    r->cnt_n = hs__le64(m->p + 40);
    uint64_t win = hs__le64(m->p + 48);
    const hs_scheme *s = &r->scheme;
    if (r->cnt_k != s->k)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 16: k = %u, the manifest's scheme has "
                            "k = %u", path, r->cnt_k, s->k);
    unsigned want_arr = s->exact ? 1 : s->b;
    if (r->cnt_arrays != want_arr || r->cnt_exact != s->exact)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 20: %u arrays, exact %d; the scheme "
                            "needs %u, %d", path, r->cnt_arrays, r->cnt_exact, want_arr, s->exact);
    int want_second = s->exact || s->b > 1;
    if (r->cnt_second != want_second)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 28: second = %d, the scheme needs %d",
                            path, r->cnt_second, want_second);
    if (present > 1 || present != (uint32_t)r->counters_present)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 36: present = %u, the manifest says "
                            "counters %s", path, present, r->counters_present ? "true" : "false");
    if (M != fl->counter_sets)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 32: %u sets, the manifest says %llu",
                            path, M, (unsigned long long)fl->counter_sets);
    if (win != r->window_ps)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 48: window %llu ps, the manifest says %llu",
                            path, (unsigned long long)win, (unsigned long long)r->window_ps);
    if (!present) {
        if (M != 0 || r->cnt_n != 0)
            return hs_error_set(err, HS_EFORMAT, "%s: offset 32: counters absent but %u sets", path, M);
        return size_check(path, m->n, 56, err);
    }
    if (r->cnt_k > HS_COUNTERS_KMAX || r->cnt_n != 1ull << r->cnt_k)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 40: n = %llu, expected 2^k", path,
                            (unsigned long long)r->cnt_n);
    uint64_t each = cset_bytes(r);
    if ((rc = size_check(path, m->n, 56 + (uint64_t)M * each, err)))
        return rc;
    r->cs = calloc(M ? M : 1, sizeof *r->cs);
    if (!r->cs)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    r->ncs = M;
    uint32_t last_phase = 0;
    int any_phase = 0, any_win = 0;
    uint64_t last_win = 0, total_h2 = 0;
    for (uint32_t i = 0; i < M; i++) {
        uint64_t off = 56 + i * each;
        const unsigned char *p = m->p + off;
        hs__cset *c = &r->cs[i];
        c->kind = hs__le32(p);
        c->id = hs__le64(p + 8);
        c->tot.packets = hs__le64(p + 16);
        c->tot.flagged = hs__le64(p + 24);
        c->tot.overflow = hs__le64(p + 32);
        c->tot.unmarked = hs__le64(p + 40);
        c->tot.sum_h2 = (int64_t)hs__le64(p + 48);
        c->tot.sum_h2_flag = (int64_t)hs__le64(p + 56);
        c->arrays = p + 64;
        if (c->kind == 1) {
            uint32_t pi = c->id <= 65535 ? hs__an_phase_index(r, (uint32_t)c->id) : HS__NIL;
            if (pi == HS__NIL)
                return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: set for phase %llu, which "
                                    "phases.tsv does not list", path, (unsigned long long)off + 8,
                                    (unsigned long long)c->id);
            if (any_win || (any_phase && pi <= last_phase))
                return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: phase sets must come first, "
                                    "in phases.tsv order", path, (unsigned long long)off);
            any_phase = 1;
            last_phase = pi;
        } else if (c->kind == 2) {
            if (any_win && c->id <= last_win)
                return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: window sets must be in "
                                    "increasing order", path, (unsigned long long)off + 8);
            any_win = 1;
            last_win = c->id;
        } else {
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: set kind %u (1 phase, 2 window)",
                                path, (unsigned long long)off, c->kind);
        }
        if (c->tot.flagged > c->tot.packets || c->tot.sum_h2 < 0 || c->tot.sum_h2_flag < 0 ||
            c->tot.sum_h2_flag > c->tot.sum_h2)
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: inconsistent totals (flagged "
                                "%llu of %llu packets)", path, (unsigned long long)off + 16,
                                (unsigned long long)c->tot.flagged,
                                (unsigned long long)c->tot.packets);
        /* Every counted packet adds +-h to one entry of each t array (+-h^2
         * of each t2), flagged ones to c (c2): an array's absolute sum is
         * at most the set's sum of h^2 (flagged: of the flagged), h >= 1.
         * Counters beyond that cannot come from packets, and they would
         * overflow the transform, whose outputs the bound also bounds. */
        total_h2 += (uint64_t)c->tot.sum_h2;
        if (total_h2 > SUM_H2_MAX)
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: the sets' sums of h^2 add up "
                                "to more than 2^59", path, (unsigned long long)off + 48);
        const unsigned char *q = c->arrays;
        for (unsigned a = 0; a < (r->cnt_second ? 4u : 2u); a++) {
            uint64_t lim = (uint64_t)(a % 2 ? c->tot.sum_h2_flag : c->tot.sum_h2);
            for (uint32_t j = 0; j < r->cnt_arrays; j++) {
                uint64_t sum = 0;
                for (uint64_t x = 0; x < r->cnt_n; x++, q += 8) {
                    int64_t v = (int64_t)hs__le64(q);
                    sum += v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
                    if (sum > lim)
                        return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: set %u: the "
                                            "counters add up to more than its packets can "
                                            "(sum of h^2 %llu)", path,
                                            (unsigned long long)(q - m->p), i,
                                            (unsigned long long)lim);
                }
            }
        }
    }
    return 0;
}

void hs__an_cset_load(const hs__run *r, uint32_t i, hs_counters *ct)
{
    const hs__cset *c = &r->cs[i];
    size_t n = (size_t)r->cnt_arrays * r->cnt_n;
    int64_t *arr[4] = { ct->t, ct->c, ct->t2, ct->c2 };
    const unsigned char *p = c->arrays;
    for (int a = 0; a < (r->cnt_second ? 4 : 2); a++) {
        for (size_t j = 0; j < n; j++)
            arr[a][j] = (int64_t)hs__le64(p + 8 * j);
        p += 8 * n;
    }
    ct->packets = c->tot.packets;
    ct->flagged = c->tot.flagged;
    ct->overflow = c->tot.overflow;
    ct->unmarked = c->tot.unmarked;
    ct->sum_h2 = c->tot.sum_h2;
    ct->sum_h2_flag = c->tot.sum_h2_flag;
}

static int read_records(hs__run *r, const char *name, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    int rc = map_file(path, &r->m_records, err);
    if (rc)
        return rc;
    const hs__mapped *m = &r->m_records;
    if ((rc = bin_header(m, path, "HSRECRDS", 40, err)))
        return rc;
    uint32_t rb = hs__le32(m->p + 16), fb = hs__le32(m->p + 20);
    uint64_t R = hs__le64(m->p + 24), dropped = hs__le64(m->p + 32);
    if (rb != 40)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 16: record_bytes %u, expected 40", path, rb);
    if (fb != r->scheme.field_bits)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 20: field_bits %u, the scheme has %u",
                            path, fb, r->scheme.field_bits);
    if (R != r->nrecords || dropped != r->records_dropped)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 24: %llu records (%llu dropped), the "
                            "manifest says %llu (%llu)", path, (unsigned long long)R,
                            (unsigned long long)dropped, (unsigned long long)r->nrecords,
                            (unsigned long long)r->records_dropped);
    if (R > (UINT64_MAX - 40) / 40)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 24: record count out of range", path);
    if ((rc = size_check(path, m->n, 40 + 40 * R, err)))
        return rc;
    r->rec = m->p + 40;
    r->R = R;
    return 0;
}

static int read_truth(hs__run *r, const char *name, const files *fl, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    int rc = map_file(path, &r->m_truth, err);
    if (rc)
        return rc;
    const hs__mapped *m = &r->m_truth;
    if ((rc = bin_header(m, path, "HSTRUTH\0", 48, err)))
        return rc;
    uint32_t L = hs__le32(m->p + 16), P = hs__le32(m->p + 20), W = hs__le32(m->p + 24);
    uint32_t eb = hs__le32(m->p + 28);
    r->t_window_ps = hs__le64(m->p + 32);
    if (L != r->L || P != r->nph || W != fl->truth_windows || eb != 40)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 16: %u links, %u phases, %u windows, "
                            "entries of %u bytes; expected %u, %u, %llu, 40", path, L, P, W, eb,
                            r->L, r->nph, (unsigned long long)fl->truth_windows);
    if (r->t_window_ps != r->window_ps)
        return hs_error_set(err, HS_EFORMAT, "%s: offset 32: window %llu ps, the manifest says %llu",
                            path, (unsigned long long)r->t_window_ps,
                            (unsigned long long)r->window_ps);
    uint64_t want = 48 + 4ull * P + 8ull * W + 40ull * L * (1 + (uint64_t)P + W);
    if ((rc = size_check(path, m->n, want, err)))
        return rc;
    r->tP = P;
    r->tW = W;
    r->t_phase_ids = m->p + 48;
    r->t_win_idx = m->p + 48 + 4ull * P;
    r->t_entries = m->p + 48 + 4ull * P + 8ull * W;
    for (uint32_t i = 0; i < P; i++)
        if (hs__le32(r->t_phase_ids + 4 * i) != r->ph[i].id)
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: phase %u, phases.tsv has %u at "
                                "index %u", path, 48 + 4ull * i, hs__le32(r->t_phase_ids + 4 * i),
                                r->ph[i].id, i);
    for (uint32_t i = 1; i < W; i++)
        if (hs__le64(r->t_win_idx + 8 * i) <= hs__le64(r->t_win_idx + 8 * (i - 1)))
            return hs_error_set(err, HS_EFORMAT, "%s: offset %llu: window indices must increase",
                                path, 48 + 4ull * P + 8ull * i);
    r->have_truth = 1;
    return 0;
}

void hs__an_truth_get(const hs__run *r, uint64_t block, uint32_t l, hs__truth *t)
{
    const unsigned char *p = r->t_entries + 40 * (block * r->L + (l - 1));
    t->packets = hs__le64(p);
    t->bytes = hs__le64(p + 8);
    t->busy_ps = hs__le64(p + 16);
    t->stall_ps = hs__le64(p + 24);
    t->congested = hs__le64(p + 32);
}

/* Version 2 with topology.routes "computed": rebuilds the topology from
 * the manifest's canonical spec with fabric's builder and checks that it
 * is the run's network (counts, routing, every link's kind, ends and
 * ports), so that fabric's routing function gives the paths the run's
 * packets took.  Classes as routes.bin would have them: the destination
 * switch where every node of a switch routes alike (torus dimension
 * order; dragonflies with one global link per pair of groups), the node
 * otherwise. */
static int compute_routes(hs__run *r, const files *fl, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", r->dir);
    if (fl->route_classes || fl->route_entries)
        return hs_error_set(err, HS_EFORMAT, "%s: counts.route_classes and route_entries must be "
                            "0 when topology.routes is 'computed'", path);
    /* the spec must be of the family the manifest names (never a file to
     * open), and its counts, which hs_topo_describe gets in constant memory,
     * the manifest's: a hostile spec builds nothing big */
    static const char *const prefix[] = { NULL, "fattree:", "dragonfly:", "torus:", NULL };
    if (strncmp(r->topo_spec, prefix[r->topo_kind], strlen(prefix[r->topo_kind])) != 0 &&
        !(r->topo_kind == HS__TOPO_TORUS && strncmp(r->topo_spec, "mesh:", 5) == 0))
        return hs_error_set(err, HS_EFORMAT, "%s: topology.spec '%s' is not a %s", path,
                            r->topo_spec, r->topo_kind_name);
    hs_error e2;
    hs_topo_desc desc;
    int rc = hs_topo_describe(r->topo_spec, &desc, &e2);
    if (rc)
        return hs_error_set(err, HS_EFORMAT, "%s: topology.spec '%s' does not build (%s): the "
                            "routes cannot be recomputed", path, r->topo_spec,
                            hs_error_str(&e2, rc));
    if (desc.s.nodes != r->N || desc.s.switches != r->S || desc.s.links != r->L)
        return hs_error_set(err, HS_EFORMAT, "%s: topology.spec '%s' has %u nodes, %u switches, "
                            "%u links; the manifest says %u, %u, %u", path, r->topo_spec,
                            desc.s.nodes, desc.s.switches, desc.s.links, r->N, r->S, r->L);
    rc = hs_topo_create(r->topo_spec, &r->topo, &e2);
    if (rc) {
        r->topo = NULL;
        return hs_error_set(err, HS_EFORMAT, "%s: topology.spec '%s' does not build (%s): the "
                            "routes cannot be recomputed", path, r->topo_spec,
                            hs_error_str(&e2, rc));
    }
    const hs_topo *t = r->topo;
    const char *rn = hs_routing_name(hs_topo_routing(t));
    if (hs_topo_nodes(t) != r->N || hs_topo_switches(t) != r->S || hs_topo_links(t) != r->L ||
        strcmp(rn, r->routing) != 0 || hs_topo_deterministic(t) != r->deterministic ||
        hs_topo_table_determined(t) != r->table_determined)
        return hs_error_set(err, HS_EFORMAT, "%s: topology.spec '%s' builds %u nodes, %u "
                            "switches, %u links routed '%s'; the manifest says %u, %u, %u, '%s'",
                            path, r->topo_spec, hs_topo_nodes(t), hs_topo_switches(t),
                            hs_topo_links(t), rn, r->N, r->S, r->L, r->routing);
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs_link_info *x = hs_topo_link(t, l);
        const hs__link *k = &r->lk[l];
        if (!x || x->kind != k->kind || x->sub != k->sub || x->from_kind != k->from_kind ||
            x->to_kind != k->to_kind || x->from != k->from || x->to != k->to ||
            x->from_port != k->from_port || x->to_port != k->to_port)
            return hs_error_set(err, HS_EFORMAT, "%s/links.tsv: link %u is not the link %u that "
                                "topology.spec '%s' builds: the routes cannot be recomputed",
                                r->dir, l, l, r->topo_spec);
    }
    int per_switch = r->topo_kind == HS__TOPO_TORUS;
    if (r->topo_kind == HS__TOPO_DRAGONFLY) {
        uint32_t ng = 0;
        per_switch = 1;
        for (uint32_t s = 0; s < r->S && per_switch; s++) {
            if (r->sw[s].group < 0 || (uint32_t)r->sw[s].group >= r->S)
                per_switch = 0;
            else if ((uint32_t)r->sw[s].group + 1 > ng)
                ng = (uint32_t)r->sw[s].group + 1;
        }
        uint32_t *npair = per_switch ? calloc((size_t)ng * ng, sizeof *npair) : NULL;
        if (per_switch && !npair)
            return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
        for (uint32_t l = 1; per_switch && l <= r->L; l++) {
            const hs__link *k = &r->lk[l];
            if (k->kind == HS__LK_SWITCH && r->sw[k->from].group != r->sw[k->to].group)
                npair[(size_t)r->sw[k->from].group * ng + (uint32_t)r->sw[k->to].group]++;
        }
        for (size_t G = 0; per_switch && G < ng; G++)
            for (size_t X = 0; X < ng; X++)
                if (X != G && npair[G * ng + X] != 1) {
                    per_switch = 0;
                    break;
                }
        free(npair);
    }
    r->cls = malloc((size_t)r->N * sizeof *r->cls);
    r->rep = malloc((size_t)r->N * sizeof *r->rep);
    r->csw = malloc((size_t)r->N * sizeof *r->csw);
    uint32_t *first = per_switch ? malloc((size_t)r->S * sizeof *first) : NULL;
    if (!r->cls || !r->rep || !r->csw || (per_switch && !first)) {
        free(first);
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    }
    if (first)
        memset(first, 0xff, (size_t)r->S * sizeof *first);
    uint32_t C = 0;
    for (uint32_t n = 0; n < r->N; n++) {
        uint32_t sw = hs_topo_node_switch(t, n);
        if (first && first[sw] != HS__NIL) {
            r->cls[n] = first[sw];
            continue;
        }
        if (first)
            first[sw] = C;
        r->cls[n] = C;
        r->rep[C] = n;
        r->csw[C++] = sw;
    }
    free(first);
    r->C = C;
    return 0;
}

/* Walks every (switch, class) through the tables: each must reach the
 * class's own switch without a loop, or the route-aware decoder would
 * follow garbage. */
static int check_route_walks(hs__run *r, const char *name, hs_error *err)
{
    if (!r->table_determined || r->routes_computed)
        return 0;
    /* per class, depth-first over allowed outputs with a hop bound; fat-tree
     * adaptive tables branch, so memoise reachability per (switch, class) */
    uint8_t *state = calloc((size_t)r->S, 1);   /* 0 unknown, 1 on stack, 2 reaches */
    uint32_t *stk = malloc(((size_t)r->S + 1) * 2 * sizeof *stk);
    if (!state || !stk) {
        free(state);
        free(stk);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    int rc = 0;
    for (uint32_t c = 0; c < r->C && !rc; c++) {
        memset(state, 0, r->S);
        for (uint32_t s0 = 0; s0 < r->S && !rc; s0++) {
            if (state[s0] == 2)
                continue;
            /* iterative DFS: stack of (switch, next entry index) */
            size_t sp = 0;
            stk[0] = s0;
            stk[1] = 0;
            state[s0] = 1;
            while (sp != (size_t)-1 && !rc) {
                uint32_t s = stk[2 * sp];
                unsigned k = tab_count(r, s, c);
                if (stk[2 * sp + 1] >= k) {
                    state[s] = 2;
                    sp--;
                    continue;
                }
                uint32_t l = tab_entry(r, s, c, stk[2 * sp + 1]++);
                const hs__link *lk = &r->lk[l];
                if (lk->to_kind != HS__DEV_SWITCH) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s/%s: at switch %u, class %u leaves on link "
                                      "%u towards a node: only the ejection link may", r->dir,
                                      name, s, c, l);
                    break;
                }
                uint32_t t = lk->to;
                if (state[t] == 1 || sp + 1 >= r->S) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s/%s: forwarding loop for class %u "
                                      "through switch %u", r->dir, name, c, t);
                    break;
                }
                if (state[t] == 0) {
                    sp++;
                    stk[2 * sp] = t;
                    stk[2 * sp + 1] = 0;
                    state[t] = 1;
                }
            }
        }
    }
    free(state);
    free(stk);
    return rc;
}

/* ---- the whole directory ------------------------------------------------------- */

void hs__an_run_close(hs__run *r)
{
    if (!r)
        return;
    free(r->dir);
    free(r->topo_spec);
    free(r->topo_kind_name);
    free(r->routing);
    free(r->traffic_pattern);
    if (r->have_scheme)
        hs_scheme_free(&r->scheme);
    free(r->lk);
    free(r->nd);
    free(r->sw);
    free(r->ph);
    for (int i = 0; i < 4; i++)
        free(r->pools[i]);
    free(r->roff);
    free(r->cls);
    free(r->csw);
    free(r->rep);
    hs_topo_free(r->topo);
    free(r->cs);
    unmap(&r->m_routes);
    unmap(&r->m_counters);
    unmap(&r->m_records);
    unmap(&r->m_truth);
    free(r);
}

int hs__an_run_open(const char *dir, hs__run **out, hs_error *err)
{
    *out = NULL;
    hs__run *r = calloc(1, sizeof *r);
    if (!r || !(r->dir = strdup(dir))) {
        free(r);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    files fl;
    memset(&fl, 0, sizeof fl);
    int rc;
    if ((rc = read_manifest(r, &fl, err)) || (rc = read_links(r, fl.links, err)) ||
        (rc = read_nodes(r, fl.nodes, err)) || (rc = read_switches(r, fl.switches, err)) ||
        (rc = read_phases(r, fl.phases, fl.phases_count, err)) ||
        (rc = (r->routes_computed ? compute_routes(r, &fl, err)
                                  : read_routes(r, fl.routes, &fl, err))) ||
        (rc = check_route_walks(r, fl.routes, err)) ||
        (rc = read_counters(r, fl.counters, &fl, err))) {
        hs__an_run_close(r);
        return rc;
    }
    if (fl.records[0] && (rc = read_records(r, fl.records, err))) {
        hs__an_run_close(r);
        return rc;
    }
    if (!fl.records[0] && r->nrecords) {
        unsigned long long nrec = r->nrecords;   /* r is freed below */
        hs__an_run_close(r);
        return hs_error_set(err, HS_EFORMAT, "%s/manifest.json: counts.records is %llu but files "
                            "has no records", dir, nrec);
    }
    if (fl.truth[0] && (rc = read_truth(r, fl.truth, &fl, err))) {
        hs__an_run_close(r);
        return rc;
    }
    *out = r;
    return 0;
}
