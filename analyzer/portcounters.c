/* Port counters per link and time window, as switches report them: bytes
 * and packets sent and the time the port had data but no credit to send
 * it (InfiniBand's PortXmitWait, Cray Aries' stalled-flit counters), with
 * the percent of the window stalled.  One CSV (docs/formats.md, "Port
 * counters CSV") filled from the replay's ground truth, from `perfquery -x`
 * snapshots of a real InfiniBand machine, or from the in-band estimates;
 * the latency model (latmodel.c) reads only this.
 *
 * Invariants after hs_pc_sort: rows sorted by (link, t0); the windows of
 * one link do not overlap; every stall_pct is in [0, 100]. */
#include "an.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PC_HEADER "# hopscope port-counters 1"
#define PC_COLUMNS "link,t0_ps,t1_ps,xmit_bytes,xmit_pkts,xmit_wait_ps,stall_pct"
#define LT_HEADER "# hopscope latency-tests 1"
#define LT_COLUMNS "src,dst,bytes,t_ps,lat_ps"
#define NOT_REPORTED UINT64_MAX
#define MAX_TEXT (1ull << 32)   /* refuse inputs beyond 4 GiB */

void hs_pc_free(hs_portcounters *pc)
{
    free(pc->row);
    memset(pc, 0, sizeof *pc);
}

int hs_pc_add(hs_portcounters *pc, const hs_pc_row *r)
{
    if (pc->n == pc->cap) {
        size_t nc = pc->cap ? 2 * pc->cap : 1024;
        hs_pc_row *n = realloc(pc->row, nc * sizeof *n);
        if (!n)
            return HS_ENOMEM;
        pc->row = n;
        pc->cap = nc;
    }
    pc->row[pc->n++] = *r;
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const hs_pc_row *x = a, *y = b;
    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    return x->t0_ps < y->t0_ps ? -1 : x->t0_ps > y->t0_ps;
}

int hs_pc_sort(hs_portcounters *pc, hs_error *err)
{
    if (pc->n)
        qsort(pc->row, pc->n, sizeof *pc->row, row_cmp);
    for (size_t i = 1; i < pc->n; i++)
        if (pc->row[i].link == pc->row[i - 1].link && pc->row[i].t0_ps < pc->row[i - 1].t1_ps)
            return hs_error_set(err, HS_EFORMAT, "link %u: windows [%llu, %llu) and [%llu, %llu) "
                                "overlap", pc->row[i].link,
                                (unsigned long long)pc->row[i - 1].t0_ps,
                                (unsigned long long)pc->row[i - 1].t1_ps,
                                (unsigned long long)pc->row[i].t0_ps,
                                (unsigned long long)pc->row[i].t1_ps);
    return 0;
}

const hs_pc_row *hs_pc_find(const hs_portcounters *pc, uint32_t l, uint64_t t)
{
    size_t lo = 0, hi = pc->n;   /* first row with (link, t0) > (l, t) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const hs_pc_row *r = &pc->row[mid];
        if (r->link < l || (r->link == l && r->t0_ps <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const hs_pc_row *r = &pc->row[lo - 1];
    return r->link == l && t >= r->t0_ps && t < r->t1_ps ? r : NULL;
}

static double pct_of(uint64_t wait, uint64_t dur)
{
    double p = 100.0 * (double)wait / (double)dur;
    return p > 100.0 ? 100.0 : p;
}

/* ---- from the replay ------------------------------------------------------------ */

int hs_pc_from_run(const char *run, hs_portcounters *pc, hs_error *err)
{
    hs__run *r;
    int rc = hs__an_run_open(run, &r, err);
    if (rc)
        return rc;
    memset(pc, 0, sizeof *pc);
    snprintf(pc->source, sizeof pc->source, "replay");
    if (!r->have_truth) {
        hs__an_run_close(r);
        return hs_error_set(err, HS_ENOENT, "%s: no truth.bin: the run has no ground truth to "
                            "take port counters from", run);
    }
    for (uint32_t w = 0; w < r->tW && !rc; w++) {
        uint64_t idx = hs__le64(r->t_win_idx + 8ull * w);
        uint64_t t0 = idx * r->t_window_ps, t1 = t0 + r->t_window_ps;
        if (r->end_ps > t0 && r->end_ps < t1)
            t1 = r->end_ps;   /* the last window ends with the run */
        for (uint32_t l = 1; l <= r->L && !rc; l++) {
            hs__truth t;
            hs__an_truth_get(r, 1 + (uint64_t)r->tP + w, l, &t);
            uint64_t wait = t.stall_ps > t1 - t0 ? t1 - t0 : t.stall_ps;
            hs_pc_row row = { l, t0, t1, t.bytes, t.packets, wait, pct_of(wait, t1 - t0) };
            rc = hs_pc_add(pc, &row);
        }
    }
    hs__an_run_close(r);
    if (rc) {
        hs_pc_free(pc);
        return hs_error_set(err, rc, "out of memory");
    }
    return hs_pc_sort(pc, err);
}

static double clip_cf(double cf)
{
    return !isfinite(cf) || cf < 0 ? 0.0 : cf > 1 ? 1.0 : cf;
}

int hs_pc_from_analysis(const hs_analysis *a, uint32_t links, uint64_t t0_ps, uint64_t t1_ps,
                        int per_window, hs_portcounters *pc, hs_error *err)
{
    memset(pc, 0, sizeof *pc);
    snprintf(pc->source, sizeof pc->source, "inband");
    if (t1_ps <= t0_ps)
        return hs_error_set(err, HS_EINVAL, "empty time range for the in-band estimates");
    if (links != a->r->L)
        return hs_error_set(err, HS_EINVAL, "%u links, the analysis has %u", links, a->r->L);
    double *run_cf = calloc((size_t)links + 1, sizeof *run_cf);
    const hs__lest **at = calloc((size_t)links + 1, sizeof *at);
    int rc = run_cf && at ? 0 : HS_ENOMEM;
    for (uint32_t l = 1; l <= links && !rc; l++)
        run_cf[l] = a->status[l] == 1 ? clip_cf(a->est[l].cf) : 0.0;
    uint32_t nw = per_window ? a->nwviews : 0;
    for (uint32_t w = 0; w < nw && !rc; w++) {
        const hs__view *v = &a->wviews[w];
        if (v->t1_ps <= v->t0_ps)
            continue;
        memset(at, 0, ((size_t)links + 1) * sizeof *at);
        for (uint32_t i = 0; i < v->n; i++)
            if (v->lk[i].link >= 1 && v->lk[i].link <= links)
                at[v->lk[i].link] = &v->lk[i];
        for (uint32_t l = 1; l <= links && !rc; l++) {
            /* the window's own estimate where it has enough data, else the run's */
            double cf = at[l] && at[l]->status == 1 ? clip_cf(at[l]->e.cf) : run_cf[l];
            hs_pc_row row = { l, v->t0_ps, v->t1_ps, NOT_REPORTED, NOT_REPORTED, NOT_REPORTED,
                              100.0 * cf };
            rc = hs_pc_add(pc, &row);
        }
    }
    for (uint32_t l = 1; l <= links && !rc && !nw; l++) {
        hs_pc_row row = { l, t0_ps, t1_ps, NOT_REPORTED, NOT_REPORTED, NOT_REPORTED,
                          100.0 * run_cf[l] };
        rc = hs_pc_add(pc, &row);
    }
    free(run_cf);
    free(at);
    if (rc) {
        hs_pc_free(pc);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    return hs_pc_sort(pc, err);
}

/* ---- CSV ----------------------------------------------------------------------------- */

static void put_u64(FILE *f, uint64_t v)
{
    if (v == NOT_REPORTED)
        fputs(",-", f);
    else
        fprintf(f, ",%llu", (unsigned long long)v);
}

int hs_pc_write(const hs_portcounters *pc, FILE *f)
{
    fprintf(f, "%s\n%s\n", PC_HEADER, PC_COLUMNS);
    for (size_t i = 0; i < pc->n; i++) {
        const hs_pc_row *r = &pc->row[i];
        fprintf(f, "%u,%llu,%llu", r->link, (unsigned long long)r->t0_ps,
                (unsigned long long)r->t1_ps);
        put_u64(f, r->xmit_bytes);
        put_u64(f, r->xmit_pkts);
        put_u64(f, r->xmit_wait_ps);
        fprintf(f, ",%.6f\n", r->stall_pct);
    }
    return ferror(f) ? HS_EIO : 0;
}

int hs_pc_write_csv(const hs_portcounters *pc, const char *path, hs_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "%s: %s", path, strerror(errno));
    int rc = hs_pc_write(pc, f);
    if (fclose(f) || rc)
        return hs_error_set(err, HS_EIO, "%s: write failed", path);
    return 0;
}

/* A line cursor over text[0..len): lines without their newline (and a
 * trailing \r), numbered from 1. */
typedef struct lines {
    const char *p, *end;
    const char *name;
    unsigned long no;
    char buf[1024];
} lines;

/* Next line into L->buf; 1, 0 at the end, or HS_EFORMAT (too long, NUL). */
static int next_line(lines *L, hs_error *err)
{
    if (L->p >= L->end)
        return 0;
    const char *e = memchr(L->p, '\n', (size_t)(L->end - L->p));
    size_t n = e ? (size_t)(e - L->p) : (size_t)(L->end - L->p);
    L->no++;
    if (n && L->p[n - 1] == '\r')
        n--;
    if (n >= sizeof L->buf)
        return hs_error_set(err, HS_EFORMAT, "%s: line %lu: longer than %zu bytes", L->name,
                            L->no, sizeof L->buf - 1);
    if (memchr(L->p, '\0', n))
        return hs_error_set(err, HS_EFORMAT, "%s: line %lu: NUL byte", L->name, L->no);
    memcpy(L->buf, L->p, n);
    L->buf[n] = '\0';
    L->p = e ? e + 1 : L->end;
    return 1;
}

/* Splits s at commas into at most max fields; returns the count. */
static unsigned split(char *s, char sep, char **f, unsigned max)
{
    unsigned n = 0;
    for (;;) {
        if (n == max)
            return max + 1;
        f[n++] = s;
        char *c = strchr(s, sep);
        if (!c)
            return n;
        *c = '\0';
        s = c + 1;
    }
}

static int field_u64(lines *L, const char *col, const char *s, int dash_ok, uint64_t *out,
                     hs_error *err)
{
    if (dash_ok && strcmp(s, "-") == 0) {
        *out = NOT_REPORTED;
        return 0;
    }
    if (hs_parse_u64(s, out) || *out == NOT_REPORTED)
        return hs_error_set(err, HS_EFORMAT, "%s: line %lu: %s: \"%s\" is not an unsigned "
                            "integer%s", L->name, L->no, col, s, dash_ok ? " or -" : "");
    return 0;
}

/* Skips the format line and the column line; HS_EFORMAT / HS_EVERSION. */
static int csv_head(lines *L, const char *head, const char *cols, hs_error *err)
{
    int rc = next_line(L, err);
    if (rc < 0)
        return rc;
    size_t hl = strlen(head) - 1;   /* without the version digit */
    if (rc == 0 || strncmp(L->buf, head, hl) != 0)
        return hs_error_set(err, HS_EFORMAT, "%s: line 1: expected \"%s\"", L->name, head);
    if (strcmp(L->buf, head) != 0)
        return hs_error_set(err, HS_EVERSION, "%s: line 1: \"%s\": this reader knows \"%s\"",
                            L->name, L->buf, head);
    if ((rc = next_line(L, err)) < 0)
        return rc;
    if (rc == 0 || strcmp(L->buf, cols) != 0)
        return hs_error_set(err, HS_EFORMAT, "%s: line 2: expected the columns \"%s\"", L->name,
                            cols);
    return 0;
}

int hs_pc_parse_csv(const char *text, size_t len, const char *name, hs_portcounters *pc,
                    hs_error *err)
{
    memset(pc, 0, sizeof *pc);
    snprintf(pc->source, sizeof pc->source, "csv");
    lines L = { .p = text, .end = text + len, .name = name };
    int rc = csv_head(&L, PC_HEADER, PC_COLUMNS, err);
    while (!rc && (rc = next_line(&L, err)) == 1) {
        rc = 0;
        if (L.buf[0] == '#' || L.buf[0] == '\0')
            continue;
        char *f[8];
        if (split(L.buf, ',', f, 7) != 7) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: expected 7 comma-separated "
                              "fields (%s)", name, L.no, PC_COLUMNS);
            break;
        }
        hs_pc_row r;
        uint64_t link;
        if ((rc = field_u64(&L, "link", f[0], 0, &link, err)) ||
            (rc = field_u64(&L, "t0_ps", f[1], 0, &r.t0_ps, err)) ||
            (rc = field_u64(&L, "t1_ps", f[2], 0, &r.t1_ps, err)) ||
            (rc = field_u64(&L, "xmit_bytes", f[3], 1, &r.xmit_bytes, err)) ||
            (rc = field_u64(&L, "xmit_pkts", f[4], 1, &r.xmit_pkts, err)) ||
            (rc = field_u64(&L, "xmit_wait_ps", f[5], 1, &r.xmit_wait_ps, err)))
            break;
        if (link == 0 || link > UINT32_MAX) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: link %s: ids are 1..2^32-1",
                              name, L.no, f[0]);
            break;
        }
        r.link = (uint32_t)link;
        if (r.t1_ps <= r.t0_ps) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: t1_ps must exceed t0_ps", name,
                              L.no);
            break;
        }
        if (hs_parse_double(f[6], &r.stall_pct) || !(r.stall_pct >= 0 && r.stall_pct <= 100)) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: stall_pct \"%s\" is not a number "
                              "in 0..100", name, L.no, f[6]);
            break;
        }
        if (r.xmit_wait_ps != NOT_REPORTED && r.xmit_wait_ps > r.t1_ps - r.t0_ps) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: xmit_wait_ps exceeds the window",
                              name, L.no);
            break;
        }
        if (hs_pc_add(pc, &r)) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            break;
        }
    }
    if (!rc) {
        hs_error e2;
        if ((rc = hs_pc_sort(pc, &e2)))
            hs_error_set(err, rc, "%s: %s", name, e2.msg);
    }
    if (rc)
        hs_pc_free(pc);
    return rc;
}

/* Reads a whole text file (at most MAX_TEXT bytes); *out malloc'ed and
 * NUL-terminated. */
static int slurp(const char *path, char **out, size_t *len, hs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s", path,
                            strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t got = fread(b + n, 1, cap - n - 1, f);
        n += got;
        if (n < cap - 1)
            break;
        if (cap >= MAX_TEXT) {
            free(b);
            fclose(f);
            return hs_error_set(err, HS_ERANGE, "%s: larger than 4 GiB", path);
        }
        char *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return hs_error_set(err, HS_EIO, "%s: read failed", path);
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return 0;
}

int hs_pc_read_csv(const char *path, hs_portcounters *pc, hs_error *err)
{
    char *t;
    size_t n;
    int rc = slurp(path, &t, &n, err);
    if (rc)
        return rc;
    rc = hs_pc_parse_csv(t, n, path, pc, err);
    free(t);
    return rc;
}

/* ---- latency tests -------------------------------------------------------------------- */

void hs_lts_free(hs_lts *l)
{
    free(l->t);
    memset(l, 0, sizeof *l);
}

int hs_lts_add(hs_lts *l, const hs_lt *t)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 1024;
        hs_lt *n = realloc(l->t, nc * sizeof *n);
        if (!n)
            return HS_ENOMEM;
        l->t = n;
        l->cap = nc;
    }
    l->t[l->n++] = *t;
    return 0;
}

int hs_lts_write_csv(const hs_lts *l, const char *path, hs_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "%s: %s", path, strerror(errno));
    fprintf(f, "%s\n%s\n", LT_HEADER, LT_COLUMNS);
    for (size_t i = 0; i < l->n; i++)
        fprintf(f, "%u,%u,%llu,%llu,%llu\n", l->t[i].src, l->t[i].dst,
                (unsigned long long)l->t[i].bytes, (unsigned long long)l->t[i].t_ps,
                (unsigned long long)l->t[i].lat_ps);
    if (ferror(f) | fclose(f))
        return hs_error_set(err, HS_EIO, "%s: write failed", path);
    return 0;
}

int hs_lts_parse_csv(const char *text, size_t len, const char *name, hs_lts *l, hs_error *err)
{
    memset(l, 0, sizeof *l);
    lines L = { .p = text, .end = text + len, .name = name };
    int rc = csv_head(&L, LT_HEADER, LT_COLUMNS, err);
    while (!rc && (rc = next_line(&L, err)) == 1) {
        rc = 0;
        if (L.buf[0] == '#' || L.buf[0] == '\0')
            continue;
        char *f[6];
        if (split(L.buf, ',', f, 5) != 5) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: expected 5 comma-separated "
                              "fields (%s)", name, L.no, LT_COLUMNS);
            break;
        }
        uint64_t v[5];
        static const char *col[5] = { "src", "dst", "bytes", "t_ps", "lat_ps" };
        for (unsigned i = 0; i < 5 && !rc; i++)
            rc = field_u64(&L, col[i], f[i], 0, &v[i], err);
        if (rc)
            break;
        if (v[0] > UINT32_MAX - 1 || v[1] > UINT32_MAX - 1 || v[0] == v[1] || v[4] == 0) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: nodes must differ and the "
                              "latency be positive", name, L.no);
            break;
        }
        hs_lt t = { (uint32_t)v[0], (uint32_t)v[1], v[2], v[3], v[4] };
        if (hs_lts_add(l, &t)) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            break;
        }
    }
    if (rc)
        hs_lts_free(l);
    return rc;
}

int hs_lts_read_csv(const char *path, hs_lts *l, hs_error *err)
{
    char *t;
    size_t n;
    int rc = slurp(path, &t, &n, err);
    if (rc)
        return rc;
    rc = hs_lts_parse_csv(t, n, path, l, err);
    free(t);
    return rc;
}

/* ---- InfiniBand: perfquery -x ------------------------------------------------------- */

typedef struct ibkey {
    int      guid;            /* 0: lid */
    uint64_t id;              /* LID or GUID */
    uint32_t port;
    uint32_t link;
} ibkey;

struct hs_ibmap {
    ibkey *k;
    size_t n;
};

void hs_ibmap_free(hs_ibmap *m)
{
    if (m)
        free(m->k);
    free(m);
}

static int parse_id(const char *s, uint64_t *out)
{
    if (strncmp(s, "0x", 2) == 0 || strncmp(s, "0X", 2) == 0) {
        const char *p = s + 2;
        if (!*p || strlen(p) > 16)
            return HS_EINVAL;
        uint64_t v = 0;
        for (; *p; p++) {
            int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                    : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
            if (d < 0)
                return HS_EINVAL;
            v = v << 4 | (uint64_t)d;
        }
        *out = v;
        return 0;
    }
    return hs_parse_u64(s, out);
}

static const ibkey *ibmap_find(const hs_ibmap *m, int guid, uint64_t id, uint32_t port)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->k[i].guid == guid && m->k[i].id == id && m->k[i].port == port)
            return &m->k[i];
    return NULL;
}

int hs_ibmap_parse(const char *text, size_t len, const char *name, hs_ibmap **out,
                   hs_error *err)
{
    *out = NULL;
    hs_ibmap *m = calloc(1, sizeof *m);
    if (!m)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    lines L = { .p = text, .end = text + len, .name = name };
    size_t cap = 0;
    int rc, seen_head = 0;
    while ((rc = next_line(&L, err)) == 1) {
        rc = 0;
        char *h = strchr(L.buf, '#');
        if (h)
            *h = '\0';
        char *tok[5];
        unsigned n = 0;
        for (char *s = strtok(L.buf, " \t"); s && n < 5; s = strtok(NULL, " \t"))
            tok[n++] = s;
        if (n == 0)
            continue;
        if (!seen_head) {
            if (n != 2 || strcmp(tok[0], "hopscope-ibmap") != 0) {
                rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: expected \"hopscope-ibmap 1\"",
                                  name, L.no);
                break;
            }
            if (strcmp(tok[1], "1") != 0) {
                rc = hs_error_set(err, HS_EVERSION, "%s: line %lu: version %s, this reader "
                                  "knows 1", name, L.no, tok[1]);
                break;
            }
            seen_head = 1;
            continue;
        }
        ibkey k;
        uint64_t port, link;
        if (n != 4 || (strcmp(tok[0], "lid") && strcmp(tok[0], "guid"))) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: expected \"lid LID PORT LINK\" "
                              "or \"guid GUID PORT LINK\"", name, L.no);
            break;
        }
        k.guid = tok[0][0] == 'g';
        if (parse_id(tok[1], &k.id) || (!k.guid && (k.id == 0 || k.id > 0xffff)) ||
            hs_parse_u64(tok[2], &port) || port > 255 || hs_parse_u64(tok[3], &link) ||
            link == 0 || link > UINT32_MAX) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: bad %s, port (0..255) or link "
                              "id (1..)", name, L.no, k.guid ? "GUID" : "LID (1..65535)");
            break;
        }
        k.port = (uint32_t)port;
        k.link = (uint32_t)link;
        if (ibmap_find(m, k.guid, k.id, k.port)) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: %s %s port %u mapped twice", name,
                              L.no, tok[0], tok[1], k.port);
            break;
        }
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            ibkey *nk = realloc(m->k, cap * sizeof *nk);
            if (!nk) {
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                break;
            }
            m->k = nk;
        }
        m->k[m->n++] = k;
    }
    if (!rc && !seen_head)
        rc = hs_error_set(err, HS_EFORMAT, "%s: empty: expected \"hopscope-ibmap 1\"", name);
    if (rc) {
        hs_ibmap_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

/* One port's counters in one snapshot. */
typedef struct pqport {
    const ibkey *key;
    uint64_t data, pkts, wait;
    unsigned have;            /* bits: 1 data, 2 pkts, 4 wait */
} pqport;

typedef struct pqsnap {
    pqport *p;
    size_t n, cap;
    int    have_time;
    double time_s;
} pqsnap;

/* Reads one snapshot's blocks.  Lines: "# Port extended counters: Lid L
 * port P ..." opens a block (an optional "# guid G" line before it names
 * the port's GUID), "Name:....value" inside it, "timestamp SECONDS"
 * anywhere, "ibwarn: ..." ignored; ports not in the map are skipped. */
static int pq_parse(const char *text, size_t len, const char *name, const hs_ibmap *map,
                    pqsnap *s, hs_error *err)
{
    lines L = { .p = text, .end = text + len, .name = name };
    int rc;
    pqport *cur = NULL;
    int in_block = 0;
    uint64_t guid = 0;
    int have_guid = 0;
    while ((rc = next_line(&L, err)) == 1) {
        rc = 0;
        char *b = L.buf;
        while (*b == ' ' || *b == '\t')
            b++;
        if (*b == '\0' || strncmp(b, "ibwarn:", 7) == 0)
            continue;
        if (strncmp(b, "timestamp", 9) == 0) {
            double t;
            if (hs_parse_double(b + 9 + strspn(b + 9, " \t"), &t) || !(t >= 0)) {
                rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: bad timestamp", name, L.no);
                break;
            }
            s->have_time = 1;
            s->time_s = t;
            continue;
        }
        if (strncmp(b, "# guid ", 7) == 0) {
            if (parse_id(b + 7, &guid)) {
                rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: bad GUID", name, L.no);
                break;
            }
            have_guid = 1;
            continue;
        }
        if (b[0] == '#') {
            unsigned long long lid, port;
            char tail;
            int got = sscanf(b, "# Port extended counters: Lid %llu port %llu%c", &lid, &port,
                             &tail);
            if (got < 2) {
                if (strstr(b, "counters:")) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: expected \"# Port extended "
                                      "counters: Lid L port P\" (perfquery -x)", name, L.no);
                    break;
                }
                continue;   /* another comment */
            }
            if (got == 3 && tail != ' ' && tail != '\t') {
                rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: bad port number", name, L.no);
                break;
            }
            in_block = 1;
            const ibkey *k = NULL;
            if (have_guid)
                k = ibmap_find(map, 1, guid, (uint32_t)port);
            if (!k && lid <= 0xffff && port <= 255)
                k = ibmap_find(map, 0, lid, (uint32_t)port);
            have_guid = 0;
            cur = NULL;
            if (!k)
                continue;
            for (size_t i = 0; i < s->n; i++)
                if (s->p[i].key == k) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: Lid %llu port %llu appears "
                                      "twice", name, L.no, lid, port);
                    break;
                }
            if (rc)
                break;
            if (s->n == s->cap) {
                size_t nc = s->cap ? 2 * s->cap : 64;
                pqport *np = realloc(s->p, nc * sizeof *np);
                if (!np) {
                    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                    break;
                }
                s->p = np;
                s->cap = nc;
            }
            cur = &s->p[s->n++];
            memset(cur, 0, sizeof *cur);
            cur->key = k;
            continue;
        }
        char *colon = strchr(b, ':');
        if (!colon || !in_block) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: expected \"Counter:....value\" "
                              "inside a \"# Port extended counters\" block", name, L.no);
            break;
        }
        *colon = '\0';
        char *v = colon + 1;
        while (*v == '.')
            v++;
        if (!cur)
            continue;
        unsigned bit = strcmp(b, "PortXmitData") == 0 ? 1 : strcmp(b, "PortXmitPkts") == 0 ? 2
                       : strcmp(b, "PortXmitWait") == 0 ? 4 : 0;
        if (!bit)
            continue;
        uint64_t x;
        if (hs_parse_u64(v, &x)) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: %s: \"%s\" is not a counter value",
                              name, L.no, b, v);
            break;
        }
        if (cur->have & bit) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %lu: %s twice in one block", name, L.no,
                              b);
            break;
        }
        cur->have |= bit;
        if (bit == 1)
            cur->data = x;
        else if (bit == 2)
            cur->pkts = x;
        else
            cur->wait = x;
    }
    return rc;
}

int hs_pc_import_perfquery(const char *const *text, const size_t *len, const char *const *name,
                           size_t nsnap, const hs_ibmap *map, const hs_pq_opts *o,
                           hs_portcounters *pc, hs_error *err)
{
    memset(pc, 0, sizeof *pc);
    snprintf(pc->source, sizeof pc->source, "perfquery");
    if (nsnap < 2)
        return hs_error_set(err, HS_EINVAL, "perfquery import: need at least two snapshots "
                            "(counters are cumulative; a window is the difference of two)");
    if (!(o->tick_ps > 0) || !isfinite(o->tick_ps))
        return hs_error_set(err, HS_EINVAL, "perfquery import: the PortXmitWait tick must be "
                            "positive (--tick)");
    for (size_t i = 0; i < map->n; i++)
        if (o->links && map->k[i].link > o->links)
            return hs_error_set(err, HS_EINVAL, "port map: link %u beyond the topology's %u "
                                "links", map->k[i].link, o->links);
    pqsnap *s = calloc(nsnap, sizeof *s);
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < nsnap && !rc; i++)
        rc = pq_parse(text[i], len[i], name[i], map, &s[i], err);
    uint64_t t_prev = 0;
    for (size_t i = 0; i < nsnap && !rc; i++) {
        uint64_t t;
        if (s[0].have_time != s[i].have_time) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: every snapshot or none must carry a "
                              "timestamp line", name[i]);
            break;
        }
        if (s[i].have_time) {
            double d = (s[i].time_s - s[0].time_s) * 1e12;
            if (!(d >= 0 && d < 1.8e19)) {
                rc = hs_error_set(err, HS_EFORMAT, "%s: timestamp before the first snapshot's",
                                  name[i]);
                break;
            }
            t = (uint64_t)llround(d);
        } else {
            if (!o->interval_ps) {
                rc = hs_error_set(err, HS_EINVAL, "%s: no timestamp line: give the snapshot "
                                  "interval (--interval)", name[i]);
                break;
            }
            t = o->interval_ps * i;
        }
        if (i && t <= t_prev) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: its time is not after the previous "
                              "snapshot's", name[i]);
            break;
        }
        if (i) {
            for (size_t j = 0; j < s[i - 1].n && !rc; j++) {
                const pqport *a = &s[i - 1].p[j], *b = NULL;
                for (size_t k = 0; k < s[i].n; k++)
                    if (s[i].p[k].key == a->key)
                        b = &s[i].p[k];
                if (!b) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: %s %llu port %u (link %u) is "
                                      "missing; it was in %s", name[i],
                                      a->key->guid ? "GUID" : "Lid",
                                      (unsigned long long)a->key->id, a->key->port, a->key->link,
                                      name[i - 1]);
                    break;
                }
                if (!(b->have & 4) || !(a->have & 4)) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: link %u: no PortXmitWait (perfquery "
                                      "-x of a device that reports it is needed)",
                                      !(b->have & 4) ? name[i] : name[i - 1], a->key->link);
                    break;
                }
                if (b->data < a->data || b->pkts < a->pkts || b->wait < a->wait) {
                    rc = hs_error_set(err, HS_EFORMAT, "%s: link %u: a counter went backwards "
                                      "(reset between snapshots?)", name[i], a->key->link);
                    break;
                }
                uint64_t dur = t - t_prev;
                double wait = (double)(b->wait - a->wait) * o->tick_ps;
                uint64_t wps = wait >= (double)dur ? dur : (uint64_t)llround(wait);
                int hd = (a->have & 1) && (b->have & 1) && b->data - a->data <= UINT64_MAX / 4;
                int hp = (a->have & 2) && (b->have & 2);
                hs_pc_row r = { a->key->link, t_prev, t, hd ? 4 * (b->data - a->data) : NOT_REPORTED,
                                hp ? b->pkts - a->pkts : NOT_REPORTED, wps, pct_of(wps, dur) };
                if (hs_pc_add(pc, &r))
                    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            }
        }
        t_prev = t;
    }
    for (size_t i = 0; i < nsnap; i++)
        free(s[i].p);
    free(s);
    if (!rc)
        rc = hs_pc_sort(pc, err);
    if (rc)
        hs_pc_free(pc);
    return rc;
}
