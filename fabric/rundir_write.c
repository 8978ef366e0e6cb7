/* The run directory: everything the analyzer needs, in versioned formats
 * documented in docs/formats.md ("Run directory").  The analyzer never
 * calls fabric code to read them; it rebuilds the topology from the
 * manifest's spec only to recompute the routes of the regular families,
 * which need no tables.
 *
 *   links.tsv      link table (id, kind, ends, capacity, latency, tau)
 *   nodes.tsv      node -> switch, injection and ejection links
 *   switches.tsv   switch names and places (level, group, coordinates)
 *   phases.tsv     phase id -> name
 *   routes.bin     forwarding tables per (switch, destination class):
 *                  topology files (or params.route_tables) only; the
 *                  regular families' routes are a function of the spec
 *   counters.bin   in-band NIC counters per phase and per window
 *   records.bin    sampled in-band records
 *   truth.bin      ground truth per link: total, per phase, per window
 *   manifest.json  parameters, scheme, counts, file versions (written last:
 *                  its presence marks a complete directory)
 *
 * Binary files are little-endian with a header {magic[8], u32 version,
 * u32 header_bytes, counts...}; the counts determine the file size exactly,
 * so a reader can reject a truncated or padded file before using it. */
#include "engine.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the manifest's version (2: topology.routes, routes.bin optional); every
 * other file is at version 1 */
#define RUNDIR_VERSION 2
#define FILE_VERSION 1

/* ---- little-endian buffered writer ---------------------------------------- */

typedef struct wr {
    FILE *f;
    const char *path;
    int   failed;
    unsigned char buf[1 << 16];
    size_t n;
} wr;

static void wr_flush(wr *w)
{
    if (w->n && !w->failed && fwrite(w->buf, 1, w->n, w->f) != w->n)
        w->failed = errno ? errno : EIO;
    w->n = 0;
}

static inline void wr_bytes(wr *w, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n) {
        if (w->n == sizeof w->buf)
            wr_flush(w);
        size_t k = sizeof w->buf - w->n;
        if (k > n)
            k = n;
        memcpy(w->buf + w->n, s, k);
        w->n += k;
        s += k;
        n -= k;
    }
}

static inline void wr_u64(wr *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    wr_bytes(w, b, 8);
}

static inline void wr_u32(wr *w, uint32_t v)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    wr_bytes(w, b, 4);
}

static inline void wr_u16(wr *w, uint16_t v)
{
    unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
    wr_bytes(w, b, 2);
}

static int wr_open(wr *w, const char *dir, const char *name, char *path, size_t np,
                   hs_error *err)
{
    snprintf(path, np, "%s/%s", dir, name);
    w->path = path;
    w->failed = 0;
    w->n = 0;
    w->f = fopen(path, "wb");
    if (!w->f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    return 0;
}

static int wr_close(wr *w, hs_error *err)
{
    wr_flush(w);
    if (fclose(w->f) != 0 && !w->failed)
        w->failed = errno ? errno : EIO;
    if (w->failed)
        return hs_error_set(err, HS_EIO, "cannot write '%s': %s", w->path, strerror(w->failed));
    return 0;
}

static void wr_header(wr *w, const char magic[8], uint32_t header_bytes)
{
    wr_bytes(w, magic, 8);
    wr_u32(w, FILE_VERSION);
    wr_u32(w, header_bytes);
}

/* ---- names ------------------------------------------------------------------ */

static const char *kind_str(uint8_t k)
{
    return k == HS_LINK_INJECTION ? "injection" : k == HS_LINK_EJECTION ? "ejection" : "switch";
}

static const char *sub_str(uint8_t s)
{
    switch (s) {
    case HS_SUB_UP: return "up";
    case HS_SUB_DOWN: return "down";
    case HS_SUB_LOCAL: return "local";
    case HS_SUB_GLOBAL: return "global";
    case HS_SUB_TORUS: return "torus";
    case HS_SUB_PLAIN: return "plain";
    default: return "-";
    }
}

static const char *dev_str(uint8_t k) { return k == HS_DEV_NODE ? "node" : "switch"; }

static const char *dev_name(const hs_topo *t, uint8_t kind, uint32_t i, char *b, size_t n)
{
    return kind == HS_DEV_NODE ? hs_topo_node_name(t, i, b, n) : hs_topo_switch_name(t, i, b, n);
}

static const char *topo_kind_str(hs_topo_kind k)
{
    switch (k) {
    case HS_TOPO_FATTREE: return "fattree";
    case HS_TOPO_DRAGONFLY: return "dragonfly";
    case HS_TOPO_TORUS: return "torus";
    case HS_TOPO_FILE: return "file";
    }
    return "?";
}

static void phase_name(const hs_fabric *F, uint16_t id, char *buf, size_t n)
{
    if (F->phase_names && F->phase_names[id])
        snprintf(buf, n, "%s", F->phase_names[id]);
    else if (id == 0)
        snprintf(buf, n, "synthetic");
    else
        snprintf(buf, n, "phase%u", id);
}

/* The phases' indices in the order their blocks are written: by phase id
 * (the index is the order of first use in this process, which a
 * partitioned run cannot reproduce; the ids are the client's, the same in
 * every process).  NULL: out of memory. */
static uint16_t *phase_order(const hs_fabric *F)
{
    uint16_t *o = malloc((F->nphase ? F->nphase : 1) * sizeof *o);
    if (!o)
        return NULL;
    unsigned k = 0;
    for (unsigned id = 0; id < 65536 && k < F->nphase; id++)
        if (F->phase_idx[id] != 0xffff)
            o[k++] = F->phase_idx[id];
    return o;
}

/* TSV cells must not contain tabs or newlines (file names may). */
static void tsv_cell(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* ---- the text tables --------------------------------------------------------- */

static int write_links(const hs_fabric *F, const char *dir, hs_error *err)
{
    char path[4096], a[96], b[96];
    snprintf(path, sizeof path, "%s/links.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    const hs_topo *t = F->topo;
    fprintf(f, "# hopscope links %d\n", FILE_VERSION);
    fprintf(f, "id\tkind\tsub\tlevel\tdim\tdir\twrap\tfrom_kind\tfrom\tfrom_name\tfrom_port"
               "\tto_kind\tto\tto_name\tto_port\tbw_Bps\tlat_ps\ttau_ps\n");
    for (uint32_t id = 1; id <= F->L; id++) {
        const hs_link_info *l = &F->lk[id];
        fprintf(f, "%u\t%s\t%s\t%u\t%u\t%d\t%u\t%s\t%u\t", id, kind_str(l->kind), sub_str(l->sub),
                l->level, l->dim, l->dir, l->wrap, dev_str(l->from_kind), l->from);
        tsv_cell(f, dev_name(t, l->from_kind, l->from, a, sizeof a));
        fprintf(f, "\t%u\t%s\t%u\t", l->from_port, dev_str(l->to_kind), l->to);
        tsv_cell(f, dev_name(t, l->to_kind, l->to, b, sizeof b));
        fprintf(f, "\t%u\t%llu\t%llu\t%llu\n", l->to_port, (unsigned long long)l->bw,
                (unsigned long long)l->lat, (unsigned long long)F->op[id].tau);
    }
    if (ferror(f) | (fclose(f) != 0))
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

static int write_nodes(const hs_fabric *F, const char *dir, hs_error *err)
{
    char path[4096], a[96];
    snprintf(path, sizeof path, "%s/nodes.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    const hs_topo *t = F->topo;
    fprintf(f, "# hopscope nodes %d\n", FILE_VERSION);
    fprintf(f, "node\tname\tswitch\tport\tinjection\tejection\trx_Bps\n");
    for (uint32_t n = 0; n < F->N; n++) {
        fprintf(f, "%u\t", n);
        tsv_cell(f, hs_topo_node_name(t, n, a, sizeof a));
        fprintf(f, "\t%u\t%u\t%u\t%u\t%llu\n", t->node_sw[n], t->node_port[n],
                hs_topo_node_injection(t, n), hs_topo_node_ejection(t, n),
                (unsigned long long)F->rx_rate[n]);
    }
    if (ferror(f) | (fclose(f) != 0))
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

static int write_switches(const hs_fabric *F, const char *dir, hs_error *err)
{
    char path[4096], a[96];
    snprintf(path, sizeof path, "%s/switches.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    const hs_topo *t = F->topo;
    fprintf(f, "# hopscope switches %d\n", FILE_VERSION);
    fprintf(f, "switch\tname\tports\tlevel\tgroup\trouter\tcoord\n");
    for (uint32_t s = 0; s < F->S; s++) {
        fprintf(f, "%u\t", s);
        tsv_cell(f, hs_topo_switch_name(t, s, a, sizeof a));
        fprintf(f, "\t%u\t", t->port_off[s + 1] - t->port_off[s]);
        switch (t->kind) {
        case HS_TOPO_FATTREE:
            fprintf(f, "%u\t-\t-\t-\n", hs__fattree_level(&t->u.ft, s));
            break;
        case HS_TOPO_DRAGONFLY:
            fprintf(f, "-\t%u\t%u\t-\n", s / t->u.df.a, s % t->u.df.a);
            break;
        case HS_TOPO_TORUS:
            fprintf(f, "-\t-\t-\t");
            for (unsigned i = 0; i < t->u.tor.n; i++)
                fprintf(f, "%s%u", i ? "." : "", hs__torus_coord(&t->u.tor, s, i));
            fprintf(f, "\n");
            break;
        default:
            fprintf(f, "-\t-\t-\t-\n");
            break;
        }
    }
    if (ferror(f) | (fclose(f) != 0))
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

static int write_phases(const hs_fabric *F, const char *dir, hs_error *err)
{
    char path[4096], a[512];
    snprintf(path, sizeof path, "%s/phases.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    fprintf(f, "# hopscope phases %d\n", FILE_VERSION);
    fprintf(f, "phase\tindex\tname\n");
    uint16_t *ord = phase_order(F);
    if (!ord) {
        fclose(f);
        return HS_ENOMEM;
    }
    for (unsigned i = 0; i < F->nphase; i++) {
        phase_name(F, F->phase_ids[ord[i]], a, sizeof a);
        fprintf(f, "%u\t%u\t", F->phase_ids[ord[i]], i);
        tsv_cell(f, a);
        fputc('\n', f);
    }
    free(ord);
    if (ferror(f) | (fclose(f) != 0))
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

/* ---- forwarding tables ------------------------------------------------------- */

/* Destinations with identical forwarding everywhere except at their own
 * switch share a class: the destination switch for dimension-order
 * routing and for dragonflies with one global link per group pair; the
 * node itself otherwise. */
static uint32_t dest_class(const hs_topo *t, uint32_t dst, int *per_switch)
{
    if (*per_switch < 0) {
        *per_switch = 0;
        if (t->kind == HS_TOPO_TORUS)
            *per_switch = 1;
        if (t->kind == HS_TOPO_DRAGONFLY) {
            const hs__dragonfly *d = &t->u.df;
            *per_switch = 1;
            for (uint32_t G = 0; G < d->g && *per_switch; G++)
                for (uint32_t X = 0; X < d->g; X++) {
                    size_t i = (size_t)G * d->g + X;
                    if (X != G && d->goff[i + 1] - d->goff[i] != 1) {
                        *per_switch = 0;
                        break;
                    }
                }
        }
    }
    return *per_switch ? t->node_sw[dst] : dst;
}

static int write_routes(const hs_fabric *F, const char *dir, uint32_t *nclass_out,
                        uint64_t *nent_out, hs_error *err)
{
    const hs_topo *t = F->topo;
    int per_switch = -1;
    uint32_t *cls = malloc((size_t)F->N * sizeof *cls);
    uint32_t *rep = malloc((size_t)F->N * sizeof *rep);
    uint32_t *map = malloc((size_t)(F->N > F->S ? F->N : F->S) * sizeof *map);
    uint32_t maxports = 1;
    for (uint32_t s = 0; s < F->S; s++)
        if (t->port_off[s + 1] - t->port_off[s] > maxports)
            maxports = t->port_off[s + 1] - t->port_off[s];
    uint32_t *set = malloc((size_t)maxports * sizeof *set);
    if (!cls || !rep || !map || !set) {
        free(cls);
        free(rep);
        free(map);
        free(set);
        return HS_ENOMEM;
    }
    memset(map, 0xff, (size_t)(F->N > F->S ? F->N : F->S) * sizeof *map);
    uint32_t nc = 0;
    for (uint32_t n = 0; n < F->N; n++) {
        uint32_t k = dest_class(t, n, &per_switch);
        if (map[k] == HS_NIL) {
            map[k] = nc;
            rep[nc++] = n;
        }
        cls[n] = map[k];
    }
    /* counts first (one pass), then the entries (a second pass) */
    size_t ncnt = (size_t)F->S * nc;
    uint8_t *cnt = malloc(ncnt ? ncnt : 1);
    int rc = 0;
    if (!cnt) {
        rc = HS_ENOMEM;
        goto out;
    }
    uint64_t nent = 0;
    for (uint32_t s = 0; s < F->S; s++)
        for (uint32_t c = 0; c < nc; c++) {
            uint32_t d = rep[c];
            unsigned k = t->node_sw[d] == s ? 0 : hs_topo_route_set(t, s, d, set, maxports);
            if (k > 255)
                k = 255;
            cnt[(size_t)s * nc + c] = (uint8_t)k;
            nent += k;
        }
    char path[4096];
    wr *w = malloc(sizeof *w);
    if (!w) {
        rc = HS_ENOMEM;
        free(cnt);
        goto out;
    }
    rc = wr_open(w, dir, "routes.bin", path, sizeof path, err);
    if (!rc) {
        wr_header(w, "HSROUTES", 48);
        wr_u32(w, F->S);
        wr_u32(w, F->N);
        wr_u32(w, nc);
        wr_u32(w, (uint32_t)(hs_topo_deterministic(t) | hs_topo_table_determined(t) << 1));
        wr_u64(w, nent);
        wr_u64(w, 0);
        for (uint32_t n = 0; n < F->N; n++)
            wr_u32(w, cls[n]);
        wr_bytes(w, cnt, ncnt);
        static const unsigned char zero[4];
        wr_bytes(w, zero, (4 - ncnt % 4) % 4);
        for (uint32_t s = 0; s < F->S; s++)
            for (uint32_t c = 0; c < nc; c++) {
                unsigned k = cnt[(size_t)s * nc + c];
                if (!k)
                    continue;
                hs_topo_route_set(t, s, rep[c], set, maxports);
                for (unsigned i = 0; i < k; i++)
                    wr_u32(w, set[i]);
            }
        rc = wr_close(w, err);
    }
    free(w);
    free(cnt);
    *nclass_out = nc;
    *nent_out = nent;
out:
    free(cls);
    free(rep);
    free(map);
    free(set);
    return rc;
}

/* ---- counters, records, truth -------------------------------------------------- */

static void wr_counters(wr *w, uint32_t kind, uint64_t id, const hs_counters *c, int second)
{
    wr_u32(w, kind);
    wr_u32(w, 0);
    wr_u64(w, id);
    wr_u64(w, c->packets);
    wr_u64(w, c->flagged);
    wr_u64(w, c->overflow);
    wr_u64(w, c->unmarked);
    wr_u64(w, (uint64_t)c->sum_h2);
    wr_u64(w, (uint64_t)c->sum_h2_flag);
    size_t n = (size_t)c->b * c->n;
    const int64_t *arr[4] = { c->t, c->c, c->t2, c->c2 };
    for (int a = 0; a < (second ? 4 : 2); a++)
        for (size_t i = 0; i < n; i++)
            wr_u64(w, (uint64_t)arr[a][i]);
}

static int write_counters(const hs_fabric *F, const char *dir, uint32_t *nsets_out,
                          hs_error *err)
{
    char path[4096];
    uint32_t nsets = 0;
    const hs_counters *any = NULL;
    for (unsigned i = 0; i < F->nphase; i++)
        if (F->ct_ph[i].n) {
            nsets++;
            any = &F->ct_ph[i];
        }
    for (size_t i = 0; i < F->nctwin; i++)
        if (F->ct_win[i]) {
            nsets++;
            any = F->ct_win[i];
        }
    *nsets_out = nsets;
    wr *w = malloc(sizeof *w);
    if (!w)
        return HS_ENOMEM;
    int rc = wr_open(w, dir, "counters.bin", path, sizeof path, err);
    if (rc) {
        free(w);
        return rc;
    }
    uint32_t narr = F->scheme.exact ? 1 : F->scheme.b;
    int second = any ? any->t2 != NULL : (F->scheme.exact || F->scheme.b > 1);
    wr_header(w, "HSCOUNTS", 56);
    wr_u32(w, F->scheme.k);
    wr_u32(w, narr);
    wr_u32(w, (uint32_t)F->scheme.exact);
    wr_u32(w, (uint32_t)second);
    wr_u32(w, nsets);
    wr_u32(w, F->counters_ok ? 1 : 0);
    wr_u64(w, F->counters_ok ? 1ull << F->scheme.k : 0);
    wr_u64(w, F->prm.window);
    uint16_t *ord = phase_order(F);
    if (!ord) {
        wr_close(w, err);
        free(w);
        return HS_ENOMEM;
    }
    for (unsigned k = 0; k < F->nphase; k++) {
        unsigned i = ord[k];
        if (F->ct_ph[i].n)
            wr_counters(w, 1, F->phase_ids[i], &F->ct_ph[i], second);
    }
    free(ord);
    for (size_t i = 0; i < F->nctwin; i++)
        if (F->ct_win[i])
            wr_counters(w, 2, i, F->ct_win[i], second);
    rc = wr_close(w, err);
    free(w);
    return rc;
}

static int write_records(const hs_fabric *F, const char *dir, hs_error *err)
{
    char path[4096];
    wr *w = malloc(sizeof *w);
    if (!w)
        return HS_ENOMEM;
    int rc = wr_open(w, dir, "records.bin", path, sizeof path, err);
    if (rc) {
        free(w);
        return rc;
    }
    wr_header(w, "HSRECRDS", 40);
    wr_u32(w, 40);
    wr_u32(w, F->scheme.field_bits);
    wr_u64(w, F->nrec);
    wr_u64(w, F->rec_dropped);
    for (size_t i = 0; i < F->nrec; i++) {
        const hs__record *r = &F->rec[i];
        wr_u32(w, r->src);
        wr_u32(w, r->dst);
        wr_u64(w, r->seq);
        wr_u64(w, r->t);
        wr_u64(w, r->field);
        wr_u16(w, r->phase);
        wr_u16(w, 0);
        wr_u32(w, 0);
    }
    rc = wr_close(w, err);
    free(w);
    return rc;
}

static void wr_truth(wr *w, const hs__truth *t)
{
    wr_u64(w, t->packets);
    wr_u64(w, t->bytes);
    wr_u64(w, t->busy);
    wr_u64(w, t->stall);
    wr_u64(w, t->congested);
}

static int write_truth(hs_fabric *F, const char *dir, uint32_t *nwin_out, hs_error *err)
{
    char path[4096];
    /* stalls still running count up to now, and go on from now */
    hs__truth_flush(F);
    for (uint32_t l = 1; l <= F->L; l++)
        if (F->op[l].stall_since != HS_TIME_NEVER && F->op[l].stall_since < F->now) {
            hs__truth_stall(F, l, F->op[l].stall_pidx, F->op[l].stall_since, F->now);
            F->op[l].stall_since = F->now;
        }
    uint32_t nwin = 0;
    for (size_t i = 0; i < F->nwin; i++)
        nwin += F->truth_win[i] != NULL;
    *nwin_out = nwin;
    wr *w = malloc(sizeof *w);
    if (!w)
        return HS_ENOMEM;
    int rc = wr_open(w, dir, "truth.bin", path, sizeof path, err);
    if (rc) {
        free(w);
        return rc;
    }
    uint16_t *ord = phase_order(F);
    if (!ord) {
        wr_close(w, err);
        free(w);
        return HS_ENOMEM;
    }
    wr_header(w, "HSTRUTH\0", 48);
    wr_u32(w, F->L);
    wr_u32(w, F->nphase);
    wr_u32(w, nwin);
    wr_u32(w, 40);
    wr_u64(w, F->prm.window);
    wr_u64(w, 0);
    for (unsigned i = 0; i < F->nphase; i++)
        wr_u32(w, F->phase_ids[ord[i]]);
    for (size_t i = 0; i < F->nwin; i++)
        if (F->truth_win[i])
            wr_u64(w, i);
    const hs__truth *tot = hs__truth_sum(F);
    for (uint32_t l = 1; l <= F->L; l++)
        wr_truth(w, &tot[l]);
    for (unsigned i = 0; i < F->nphase; i++)
        for (uint32_t l = 1; l <= F->L; l++)
            wr_truth(w, &F->truth_ph[ord[i]][l]);
    free(ord);
    for (size_t i = 0; i < F->nwin; i++)
        if (F->truth_win[i])
            for (uint32_t l = 1; l <= F->L; l++)
                wr_truth(w, &F->truth_win[i][l]);
    rc = wr_close(w, err);
    free(w);
    return rc;
}

/* ---- manifest ------------------------------------------------------------------ */

static void file_entry(hs_json *j, const char *key, const char *name)
{
    hs_json_key(j, key);
    hs_json_obj_begin(j);
    hs_json_key(j, "file");
    hs_json_str(j, name);
    hs_json_key(j, "version");
    hs_json_int(j, FILE_VERSION);
    hs_json_obj_end(j);
}

int hs_fabric_write_rundir(hs_fabric *F, const char *dir,
                           void (*extra)(void *ctx, hs_json *w), void *ctx, hs_error *err)
{
    if (F->in_run)
        return hs_error_set(err, HS_ESTATE, "cannot write the run directory during a run");
    int rc = hs_mkdir_p(dir, err);
    if (rc)
        return rc;
    /* Rewriting a run directory: drop what was derived from its previous
     * contents, so that nothing downstream reads a stale analysis or picture
     * beside new data (the manifest goes first: until it is rewritten, last,
     * the directory is incomplete). */
    static const char *const stale[] = {
        "manifest.json", "analysis.json", "suggested.map", "report.html", "network.svg",
        "network-detail.svg", "compare.svg", "phases.svg", "latency.svg", "phase-times.svg",
        "windows.svg",
    };
    for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++) {
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, stale[i]) < sizeof p)
            unlink(p);
    }
    uint32_t nclass = 0, nsets = 0, nwin = 0;
    uint64_t nent = 0;
    /* Tables of a regular family would be S x classes entries (5 GB for a
     * 32K-switch torus) of what hs_topo_route_set computes in a few
     * instructions from the spec the manifest records: the analyzer
     * recomputes them instead.  A stale routes.bin must not stay beside a
     * manifest that says "computed". */
    int tables = F->topo->kind == HS_TOPO_FILE || F->prm.route_tables;
    if (!tables) {
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/routes.bin", dir) < sizeof p)
            unlink(p);
    }
    if ((rc = write_links(F, dir, err)) || (rc = write_nodes(F, dir, err)) ||
        (rc = write_switches(F, dir, err)) || (rc = write_phases(F, dir, err)) ||
        (tables && (rc = write_routes(F, dir, &nclass, &nent, err))) ||
        (rc = write_counters(F, dir, &nsets, err)) || (rc = write_records(F, dir, err)) ||
        (rc = write_truth(F, dir, &nwin, err)))
        return rc == HS_ENOMEM ? hs_error_set(err, rc, "out of memory writing '%s'", dir) : rc;

    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    const hs_topo *t = F->topo;
    const hs_fabric_params *p = &F->prm;
    hs_fabric_stats st;
    hs_fabric_get_stats(F, &st);
    hs_json j;
    hs_json_init(&j, f, 1);
    hs_json_obj_begin(&j);
    hs_json_key(&j, "format");
    hs_json_str(&j, "hopscope-run");
    hs_json_key(&j, "version");
    hs_json_int(&j, RUNDIR_VERSION);
    hs_json_key(&j, "hopscope");
    hs_json_str(&j, HS_VERSION);

    hs_json_key(&j, "topology");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "spec");
    hs_json_str(&j, hs_topo_spec(t));
    hs_json_key(&j, "kind");
    hs_json_str(&j, topo_kind_str(t->kind));
    hs_json_key(&j, "nodes");
    hs_json_uint(&j, F->N);
    hs_json_key(&j, "switches");
    hs_json_uint(&j, F->S);
    hs_json_key(&j, "links");
    hs_json_uint(&j, F->L);
    hs_json_key(&j, "vcs");
    hs_json_uint(&j, F->nvc);
    hs_json_key(&j, "routing");
    hs_json_str(&j, hs_routing_name(t->routing));
    hs_json_key(&j, "deterministic");
    hs_json_bool(&j, hs_topo_deterministic(t));
    hs_json_key(&j, "table_determined");
    hs_json_bool(&j, hs_topo_table_determined(t));
    hs_json_key(&j, "routes");
    hs_json_str(&j, tables ? "table" : "computed");
    hs_json_obj_end(&j);

    hs_json_key(&j, "network");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "mtu");
    hs_json_uint(&j, p->mtu);
    hs_json_key(&j, "header");
    hs_json_uint(&j, p->header);
    hs_json_key(&j, "min_packet");
    hs_json_uint(&j, HS_FABRIC_MIN_PACKET);
    hs_json_key(&j, "vc_buffer");
    hs_json_uint(&j, p->vc_buffer);
    hs_json_key(&j, "nic_buffer");
    hs_json_uint(&j, p->nic_buffer);
    hs_json_key(&j, "unbounded");
    hs_json_bool(&j, p->unbounded);
    hs_json_key(&j, "route_delay_ps");
    hs_json_uint(&j, p->route_delay);
    hs_json_key(&j, "rx_rate_Bps");
    hs_json_uint(&j, p->rx_rate);
    hs_json_key(&j, "nic_queues");
    hs_json_uint(&j, p->nic_queues);
    hs_json_key(&j, "arbiter");
    hs_json_str(&j, "round-robin");
    hs_json_key(&j, "ugal_threshold");
    hs_json_uint(&j, p->ugal_threshold);
    hs_json_key(&j, "seed");
    hs_json_uint(&j, p->seed);
    hs_json_key(&j, "window_ps");
    hs_json_uint(&j, p->window);
    hs_json_key(&j, "max_windows");
    hs_json_uint(&j, p->max_windows);
    hs_json_obj_end(&j);

    hs_json_key(&j, "scheme");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "k");
    hs_json_uint(&j, F->scheme.k);
    hs_json_key(&j, "c");
    hs_json_uint(&j, F->scheme.c);
    hs_json_key(&j, "b");
    hs_json_uint(&j, F->scheme.b);
    hs_json_key(&j, "exact");
    hs_json_bool(&j, F->scheme.exact);
    hs_json_key(&j, "salt");
    hs_json_uint(&j, F->scheme.salt);
    hs_json_key(&j, "field_bits");
    hs_json_uint(&j, F->scheme.field_bits);
    hs_json_key(&j, "tau_factor");
    hs_json_num(&j, p->tau ? 0 : p->tau_factor);
    hs_json_key(&j, "tau_ps");
    hs_json_uint(&j, p->tau);
    hs_json_key(&j, "counters");
    hs_json_bool(&j, F->counters_ok);
    hs_json_key(&j, "max_route_links");
    hs_json_uint(&j, F->max_route);
    hs_json_key(&j, "hop_fits");
    hs_json_bool(&j, F->max_route <= F->scheme.hop_max);
    hs_json_key(&j, "monitor_probability");
    hs_json_num(&j, F->monitor_p);
    hs_json_key(&j, "monitor_unit");
    hs_json_str(&j, "message");
    hs_json_obj_end(&j);

    hs_json_key(&j, "run");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "end_ps");
    hs_json_uint(&j, F->now);
    hs_json_key(&j, "events");
    hs_json_uint(&j, st.events);
    hs_json_key(&j, "hops");
    hs_json_uint(&j, st.hops);
    hs_json_key(&j, "packets_injected");
    hs_json_uint(&j, st.packets_injected);
    hs_json_key(&j, "packets_delivered");
    hs_json_uint(&j, st.packets_delivered);
    hs_json_key(&j, "packets_in_flight");
    hs_json_uint(&j, st.packets_in_flight);
    hs_json_key(&j, "messages_posted");
    hs_json_uint(&j, st.messages_posted);
    hs_json_key(&j, "messages_delivered");
    hs_json_uint(&j, st.messages_delivered);
    hs_json_key(&j, "bytes_delivered");
    hs_json_uint(&j, st.bytes_delivered);
    hs_json_key(&j, "packets_monitored");
    hs_json_uint(&j, st.packets_monitored);
    hs_json_key(&j, "packets_overflowed");
    hs_json_uint(&j, st.packets_overflowed);
    hs_json_key(&j, "max_injection_queue");
    hs_json_uint(&j, st.max_injection_queue);
    hs_json_obj_end(&j);

    hs_json_key(&j, "counts");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "phases");
    hs_json_uint(&j, F->nphase);
    hs_json_key(&j, "truth_windows");
    hs_json_uint(&j, nwin);
    hs_json_key(&j, "counter_sets");
    hs_json_uint(&j, nsets);
    hs_json_key(&j, "records");
    hs_json_uint(&j, F->nrec);
    hs_json_key(&j, "records_dropped");
    hs_json_uint(&j, F->rec_dropped);
    hs_json_key(&j, "route_classes");
    hs_json_uint(&j, nclass);
    hs_json_key(&j, "route_entries");
    hs_json_uint(&j, nent);
    hs_json_obj_end(&j);

    hs_json_key(&j, "files");
    hs_json_obj_begin(&j);
    file_entry(&j, "links", "links.tsv");
    file_entry(&j, "nodes", "nodes.tsv");
    file_entry(&j, "switches", "switches.tsv");
    file_entry(&j, "phases", "phases.tsv");
    if (tables)
        file_entry(&j, "routes", "routes.bin");
    file_entry(&j, "counters", "counters.bin");
    file_entry(&j, "records", "records.bin");
    file_entry(&j, "truth", "truth.bin");
    hs_json_obj_end(&j);

    if (extra)
        extra(ctx, &j);
    hs_json_obj_end(&j);
    rc = hs_json_finish(&j);
    fputc('\n', f);
    if (ferror(f) | (fclose(f) != 0) || rc)
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}
