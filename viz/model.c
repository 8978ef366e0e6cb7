/* analysis.json -> hs_viz_model.
 *
 * The reader is strict about what it uses and silent about what it does not
 * know: a missing or mistyped key it needs, a number out of range, a link
 * naming a device that does not exist, an array of the wrong length are
 * errors naming the file, the byte offset and the key; unknown keys are
 * ignored (docs/formats.md: later minor versions add keys).  Sizes are
 * checked against the arrays actually present before anything is
 * allocated, so a short file cannot ask for gigabytes.  The parsed JSON
 * tree is freed once the model is built: the model keeps compact copies. */
#include "vz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEVICES (1u << 24)
#define MAX_LINKS   (1u << 27)
#define MAX_COORD   8

typedef struct rd {
    const hs_jdoc *d;
    const char    *name;
    hs_error      *err;
    int            rc;
} rd;

enum { REQ = 1, NUL = 2 }; /* required; null accepted (read as missing) */

static int bad(rd *r, const hs_jv *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(rd *r, const hs_jv *at, const char *fmt, ...)
{
    if (r->rc)
        return r->rc;
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    r->rc = hs_error_set(r->err, HS_EFORMAT, "%s: offset %zu: %s", r->name, hs_jv_offset(at), why);
    return r->rc;
}

static const char *tname(hs_jv_type t)
{
    static const char *n[] = { "missing", "null", "a boolean", "a number", "a string",
                               "an array", "an object" };
    return t <= HS_JV_OBJ ? n[t] : "?";
}

/* obj[key] of type t (HS_JV_NONE: any); NULL when missing (an error if
 * REQ), null (an error unless NUL) or after an earlier error. */
static const hs_jv *get(rd *r, const hs_jv *obj, const char *key, const char *where, hs_jv_type t,
                        int fl)
{
    if (r->rc)
        return NULL;
    const hs_jv *v = hs_jv_get(r->d, obj, key);
    if (!v) {
        if (fl & REQ)
            bad(r, obj, "%s: key '%s' missing", where, key);
        return NULL;
    }
    if (hs_jv_kind(v) == HS_JV_NULL) {
        if (!(fl & NUL))
            bad(r, v, "%s.%s is null, expected %s", where, key, tname(t));
        return NULL;
    }
    if (t != HS_JV_NONE && hs_jv_kind(v) != t) {
        bad(r, v, "%s.%s is %s, expected %s", where, key, tname(hs_jv_kind(v)), tname(t));
        return NULL;
    }
    return v;
}

static double num(rd *r, const hs_jv *obj, const char *key, const char *where, int fl, double def)
{
    const hs_jv *v = get(r, obj, key, where, HS_JV_NUM, fl);
    double x;
    if (!v || hs_jv_double(v, &x))
        return def;
    if (!isfinite(x)) {
        bad(r, v, "%s.%s is not a finite number", where, key);
        return def;
    }
    return x;
}

/* num() within [lo, hi]: analysis.json is outside input, and a value no
 * analysis can produce (a negative standard error, a threshold outside the
 * analyzer's own range) is refused by name rather than drawn. */
static double numr(rd *r, const hs_jv *obj, const char *key, const char *where, int fl,
                   double def, double lo, double hi)
{
    double x = num(r, obj, key, where, fl, def);
    if (!r->rc && hs_jv_get(r->d, obj, key) && isfinite(x) && (x < lo || x > hi)) {
        bad(r, hs_jv_get(r->d, obj, key), "%s.%s = %g is outside [%g, %g]", where, key, x, lo,
            hi);
        return def;
    }
    return x;
}

static uint64_t uint_(rd *r, const hs_jv *obj, const char *key, const char *where, int fl,
                      uint64_t max, uint64_t def)
{
    const hs_jv *v = get(r, obj, key, where, HS_JV_NUM, fl);
    uint64_t u;
    if (!v)
        return def;
    if (hs_jv_u64(v, &u) || u > max) {
        bad(r, v, "%s.%s: expected an integer in [0, %llu]", where, key, (unsigned long long)max);
        return def;
    }
    return u;
}

static int boolean(rd *r, const hs_jv *obj, const char *key, const char *where, int fl)
{
    const hs_jv *v = get(r, obj, key, where, HS_JV_BOOL, fl);
    int b = 0;
    if (v)
        hs_jv_bool(v, &b);
    return b;
}

static char *dupstr(rd *r, const char *s)
{
    if (r->rc || !s)
        return NULL;
    char *c = strdup(s);
    if (!c)
        r->rc = hs_error_set(r->err, HS_ENOMEM, "%s: out of memory", r->name);
    return c;
}

static char *str(rd *r, const hs_jv *obj, const char *key, const char *where, int fl)
{
    return dupstr(r, hs_jv_str(r->d, get(r, obj, key, where, HS_JV_STR, fl)));
}

static void *xcalloc(rd *r, size_t n, size_t sz)
{
    if (r->rc)
        return NULL;
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        r->rc = hs_error_set(r->err, HS_ENOMEM, "%s: out of memory for %zu items", r->name, n);
    return p;
}

/* An array of integers in [lo, hi] (link ids, devices). */
static uint32_t *u32_array(rd *r, const hs_jv *obj, const char *key, const char *where, int fl,
                           uint32_t lo, uint32_t hi, uint32_t *n)
{
    *n = 0;
    const hs_jv *a = get(r, obj, key, where, HS_JV_ARR, fl);
    if (!a)
        return NULL;
    size_t len = hs_jv_len(a);
    uint32_t *o = xcalloc(r, len, sizeof *o);
    for (size_t i = 0; o && i < len && !r->rc; i++) {
        uint64_t u;
        const hs_jv *e = hs_jv_at(r->d, a, i);
        if (hs_jv_u64(e, &u) || u < lo || u > hi) {
            bad(r, e, "%s.%s[%zu]: expected an integer in [%u, %u]", where, key, i, lo, hi);
            break;
        }
        o[i] = (uint32_t)u;
    }
    if (r->rc) {
        free(o);
        return NULL;
    }
    *n = (uint32_t)len;
    return o;
}

/* The i-th member of array a, which must be an object; its name for
 * messages ("what[i]") goes to w.  NULL after an error. */
static const hs_jv *obj_at(rd *r, const hs_jv *a, size_t i, const char *what, char *w, size_t wn)
{
    const hs_jv *o = hs_jv_at(r->d, a, i);
    snprintf(w, wn, "%s[%zu]", what, i);
    if (hs_jv_kind(o) != HS_JV_OBJ) {
        bad(r, o, "%s is %s, expected an object", w, tname(hs_jv_kind(o)));
        return NULL;
    }
    return o;
}

/* ---- sections ------------------------------------------------------------------ */

static void read_topology(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *t = get(r, root, "topology", "analysis", HS_JV_OBJ, REQ);
    m->topo_kind = str(r, t, "kind", "topology", REQ);
    m->spec = str(r, t, "spec", "topology", REQ);
    m->routing = str(r, t, "routing", "topology", NUL);
    m->N = (uint32_t)uint_(r, t, "nodes", "topology", REQ, MAX_DEVICES, 0);
    m->S = (uint32_t)uint_(r, t, "switches", "topology", REQ, MAX_DEVICES, 0);
    m->L = (uint32_t)uint_(r, t, "links", "topology", REQ, MAX_LINKS, 0);
    m->link_capacity = num(r, t, "link_capacity", "topology", 0, 0);
    if (!r->rc && (m->N == 0 || m->S == 0 || m->L == 0))
        bad(r, t, "topology: a network needs nodes, switches and links (%u, %u, %u)", m->N, m->S,
            m->L);
    if (r->rc)
        return;
    if (strcmp(m->topo_kind, "fattree") == 0)
        m->topo = HS__VZ_TOPO_FATTREE;
    else if (strcmp(m->topo_kind, "dragonfly") == 0)
        m->topo = HS__VZ_TOPO_DRAGONFLY;
    else if (strcmp(m->topo_kind, "torus") == 0 || strcmp(m->topo_kind, "mesh") == 0)
        m->topo = HS__VZ_TOPO_TORUS;
    else
        m->topo = HS__VZ_TOPO_OTHER;  /* file topologies and kinds we do not know: layered */
}

static void read_head(rd *r, hs_viz_model *m, const hs_jv *root)
{
    m->command = str(r, root, "command", "analysis", NUL);
    m->run = str(r, root, "run", "analysis", NUL);
    m->hopscope = str(r, root, "hopscope", "analysis", NUL);
    const hs_jv *rp = get(r, root, "replay", "analysis", HS_JV_OBJ, NUL);
    if (rp && !boolean(r, rp, "complete", "replay", 0)) {
        m->replay_status = str(r, rp, "status", "replay", NUL);
        m->replay_caveat = str(r, rp, "caveat", "replay", NUL);
    }
    const hs_jv *dec = get(r, root, "decoder", "analysis", HS_JV_OBJ, NUL);
    m->decoder = str(r, dec, "used", "decoder", NUL);
    m->decoder_note = str(r, dec, "note", "decoder", NUL);
    const hs_jv *p = get(r, root, "params", "analysis", HS_JV_OBJ, NUL);
    /* the analyzer's own ranges (analyze.c, check_params) */
    m->cf_threshold = numr(r, p, "cf_threshold", "params", 0, 0.25, 0, 1);
    m->z = numr(r, p, "z", "params", 0, 2, 0, 10);
    m->min_packets = numr(r, p, "min_packets", "params", 0, 100, 1, 1e15);
    m->max_cf_se = numr(r, p, "max_cf_se", "params", 0, 0.1, 0, 1);
    const hs_jv *ms = get(r, root, "measurement", "analysis", HS_JV_OBJ, NUL);
    m->duration_ps = num(r, ms, "duration_ps", "measurement", 0, NAN);
    m->window_ps = num(r, ms, "window_ps", "measurement", 0, NAN);
    m->truth = boolean(r, ms, "truth", "measurement", 0);
    m->records = uint_(r, ms, "records", "measurement", 0, UINT64_MAX, 0);
    m->packets_counted = uint_(r, ms, "packets_counted", "measurement", 0, UINT64_MAX, 0);
    m->packets_flagged = uint_(r, ms, "packets_flagged", "measurement", 0, UINT64_MAX, 0);
    m->caveats = str(r, ms, "caveats", "measurement", NUL);
    const hs_jv *s = get(r, root, "summary", "analysis", HS_JV_OBJ, NUL);
    m->links_ok = uint_(r, s, "links_ok", "summary", 0, UINT64_MAX, 0);
    m->links_congested = uint_(r, s, "links_congested", "summary", 0, UINT64_MAX, 0);
    m->nroots_summary = uint_(r, s, "roots", "summary", 0, UINT64_MAX, 0);
    m->max_cf = num(r, s, "max_cf", "summary", 0, NAN);
    m->max_cf_err = numr(r, s, "max_cf_se", "summary", 0, NAN, 0, INFINITY);
    m->max_cf_link = (uint32_t)uint_(r, s, "max_cf_link", "summary", 0, m->L, 0);
    m->top = str(r, s, "top", "summary", NUL);
}

static void read_devices(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *dv = get(r, root, "devices", "analysis", HS_JV_OBJ, REQ);
    const hs_jv *nodes = get(r, dv, "nodes", "devices", HS_JV_ARR, REQ);
    const hs_jv *sws = get(r, dv, "switches", "devices", HS_JV_ARR, REQ);
    if (r->rc)
        return;
    if (hs_jv_len(nodes) != m->N) {
        bad(r, nodes, "devices.nodes has %zu entries, topology.nodes says %u", hs_jv_len(nodes),
            m->N);
        return;
    }
    if (hs_jv_len(sws) != m->S) {
        bad(r, sws, "devices.switches has %zu entries, topology.switches says %u", hs_jv_len(sws),
            m->S);
        return;
    }
    uint32_t D = m->N + m->S;
    m->name = xcalloc(r, D, sizeof *m->name);
    m->node_switch = xcalloc(r, m->N, sizeof *m->node_switch);
    m->node_inj = xcalloc(r, m->N, sizeof *m->node_inj);
    m->node_ej = xcalloc(r, m->N, sizeof *m->node_ej);
    m->rank_off = xcalloc(r, (size_t)m->N + 1, sizeof *m->rank_off);
    m->sw_level = xcalloc(r, m->S, sizeof *m->sw_level);
    m->sw_group = xcalloc(r, m->S, sizeof *m->sw_group);
    m->sw_router = xcalloc(r, m->S, sizeof *m->sw_router);
    char w[48];
    /* ranks: counted first, then copied, so the lists live in one array */
    size_t nranks = 0;
    for (uint32_t i = 0; i < m->N && !r->rc; i++) {
        const hs_jv *o = obj_at(r, nodes, i, "devices.nodes", w, sizeof w);
        if (!o)
            break;
        if (uint_(r, o, "i", w, REQ, MAX_DEVICES, 0) != i && !r->rc)
            bad(r, hs_jv_get(r->d, o, "i"), "%s.i is not %u: nodes must be listed in order", w, i);
        m->name[i] = str(r, o, "name", w, REQ);
        m->node_switch[i] = (uint32_t)uint_(r, o, "switch", w, REQ, m->S - 1, 0);
        m->node_inj[i] = (uint32_t)uint_(r, o, "injection", w, REQ, m->L, 0);
        m->node_ej[i] = (uint32_t)uint_(r, o, "ejection", w, REQ, m->L, 0);
        const hs_jv *rk = get(r, o, "ranks", w, HS_JV_ARR, NUL);
        if (rk) {
            m->have_ranks = 1;
            nranks += hs_jv_len(rk);
        }
    }
    if (!r->rc && m->have_ranks) {
        m->rank = xcalloc(r, nranks, sizeof *m->rank);
        size_t k = 0;
        for (uint32_t i = 0; i < m->N && !r->rc; i++) {
            snprintf(w, sizeof w, "devices.nodes[%u]", i);
            uint32_t n = 0;
            uint32_t *a = u32_array(r, hs_jv_at(r->d, nodes, i), "ranks", w, NUL, 0, UINT32_MAX - 1,
                                    &n);
            m->rank_off[i] = (uint32_t)k;
            if (a)
                memcpy(m->rank + k, a, n * sizeof *a);
            k += n;
            free(a);
        }
        m->rank_off[m->N] = (uint32_t)k;
    }
    for (uint32_t s = 0; s < m->S && !r->rc; s++) {
        const hs_jv *o = obj_at(r, sws, s, "devices.switches", w, sizeof w);
        if (!o)
            break;
        if (uint_(r, o, "i", w, REQ, MAX_DEVICES, 0) != s && !r->rc)
            bad(r, hs_jv_get(r->d, o, "i"), "%s.i is not %u: switches must be listed in order", w,
                s);
        m->name[m->N + s] = str(r, o, "name", w, REQ);
        m->sw_level[s] = hs_jv_get(r->d, o, "level") ? (int32_t)uint_(r, o, "level", w, 0, 255, 0) : -1;
        m->sw_group[s] = hs_jv_get(r->d, o, "group") ? (int32_t)uint_(r, o, "group", w, 0, MAX_DEVICES, 0) : -1;
        m->sw_router[s] = hs_jv_get(r->d, o, "router") ? (int32_t)uint_(r, o, "router", w, 0, MAX_DEVICES, 0) : -1;
        const hs_jv *c = get(r, o, "coord", w, HS_JV_ARR, NUL);
        if (!c)
            continue;
        size_t nc = hs_jv_len(c);
        if (s == 0 || !m->sw_coord) {
            if (s != 0) {
                bad(r, c, "%s has coordinates, switch 0 has none", w);
                break;
            }
            if (nc == 0 || nc > MAX_COORD) {
                bad(r, c, "%s.coord: %zu coordinates (1 to %d)", w, nc, MAX_COORD);
                break;
            }
            m->ncoord = (uint32_t)nc;
            m->sw_coord = xcalloc(r, (size_t)m->S * nc, sizeof *m->sw_coord);
        } else if (nc != m->ncoord) {
            bad(r, c, "%s.coord: %zu coordinates, switch 0 has %u", w, nc, m->ncoord);
            break;
        }
        uint32_t n = 0;
        uint32_t *a = u32_array(r, o, "coord", w, REQ, 0, MAX_DEVICES, &n);
        if (a && m->sw_coord)
            memcpy(m->sw_coord + (size_t)s * m->ncoord, a, n * sizeof *a);
        free(a);
    }
    if (!r->rc && m->sw_coord) {
        /* every switch has coordinates (checked on the first one missing) */
        for (uint32_t s = 1; s < m->S; s++)
            if (!hs_jv_get(r->d, hs_jv_at(r->d, sws, s), "coord")) {
                bad(r, hs_jv_at(r->d, sws, s), "devices.switches[%u] has no coordinates", s);
                break;
            }
    }
}

static int sub_of(const char *s)
{
    static const char *names[] = { "-", "up", "down", "local", "global", "torus", "plain" };
    for (int i = 0; i < 7; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return HS__VZ_SUB_PLAIN; /* a kind of cable added later: drawn as a plain one */
}

static void read_links(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *a = get(r, root, "links", "analysis", HS_JV_ARR, REQ);
    if (r->rc)
        return;
    if (hs_jv_len(a) != m->L) {
        bad(r, a, "links has %zu entries, topology.links says %u", hs_jv_len(a), m->L);
        return;
    }
    m->lk = xcalloc(r, (size_t)m->L + 1, sizeof *m->lk);
    m->est = xcalloc(r, (size_t)m->L + 1, sizeof *m->est);
    char w[40];
    for (uint32_t l = 1; l <= m->L && !r->rc; l++) {
        const hs_jv *o = obj_at(r, a, l - 1, "links", w, sizeof w);
        if (!o)
            break;
        if (uint_(r, o, "id", w, REQ, m->L, 0) != l && !r->rc) {
            bad(r, hs_jv_get(r->d, o, "id"), "%s.id is not %u: links must be listed by id", w, l);
            break;
        }
        hs__vz_link *k = &m->lk[l];
        const char *kind = hs_jv_str(r->d, get(r, o, "kind", w, HS_JV_STR, REQ));
        const char *sub = hs_jv_str(r->d, get(r, o, "sub", w, HS_JV_STR, 0));
        const char *st = hs_jv_str(r->d, get(r, o, "status", w, HS_JV_STR, REQ));
        if (r->rc)
            break;
        /* the kind says which ends are nodes; from_kind and to_kind, when
         * present (earlier writers), must agree with it */
        int fnode, tnode;
        if (strcmp(kind, "injection") == 0) {
            k->kind = HS__VZ_INJ;
            fnode = 1, tnode = 0;
        } else if (strcmp(kind, "ejection") == 0) {
            k->kind = HS__VZ_EJ;
            fnode = 0, tnode = 1;
        } else if (strcmp(kind, "switch") == 0) {
            k->kind = HS__VZ_SW;
            fnode = tnode = 0;
        } else {
            bad(r, hs_jv_get(r->d, o, "kind"), "%s.kind '%s': expected 'injection', 'ejection' "
                "or 'switch'", w, kind);
            break;
        }
        const char *fk = hs_jv_str(r->d, get(r, o, "from_kind", w, HS_JV_STR, 0));
        const char *tk = hs_jv_str(r->d, get(r, o, "to_kind", w, HS_JV_STR, 0));
        if ((fk && strcmp(fk, fnode ? "node" : "switch") != 0) ||
            (tk && strcmp(tk, tnode ? "node" : "switch") != 0)) {
            bad(r, hs_jv_get(r->d, o, "kind"), "%s: kind '%s' does not fit a %s-to-%s link", w,
                kind, fk ? fk : "?", tk ? tk : "?");
            break;
        }
        uint64_t from = uint_(r, o, "from", w, REQ, (fnode ? m->N : m->S) - 1, 0);
        uint64_t to = uint_(r, o, "to", w, REQ, (tnode ? m->N : m->S) - 1, 0);
        k->from = (uint32_t)(fnode ? from : m->N + from);
        k->to = (uint32_t)(tnode ? to : m->N + to);
        k->sub = sub ? (uint8_t)sub_of(sub) : HS__VZ_SUB_NONE;
        k->level = (uint8_t)uint_(r, o, "level", w, 0, 255, 0);
        k->dim = (uint8_t)uint_(r, o, "dim", w, 0, MAX_COORD - 1, 0);
        const hs_jv *dir = get(r, o, "dir", w, HS_JV_NUM, 0);
        int64_t dv = 0;
        if (dir && (hs_jv_i64(dir, &dv) || (dv != 1 && dv != -1))) {
            bad(r, dir, "%s.dir must be 1 or -1", w);
            break;
        }
        k->dir = (int8_t)dv;
        k->wrap = (uint8_t)boolean(r, o, "wrap", w, 0);
        k->capacity = num(r, o, "capacity", w, 0, m->link_capacity);
        hs__vz_est *e = &m->est[l];
        e->traffic = num(r, o, "traffic", w, 0, 0); /* absent: nothing crossed it */
        e->traffic_se = numr(r, o, "traffic_se", w, 0, 0, 0, INFINITY);
        e->cf = num(r, o, "cf", w, NUL, NAN);
        e->cf_se = numr(r, o, "cf_se", w, NUL, NAN, 0, INFINITY);
        if (isfinite(e->cf)) {
            /* cf is congested / traffic, and present only for traffic > 0
             * (docs/formats.md): it must agree with the two at the six
             * significant digits they are written with */
            double cg = num(r, o, "congested", w, REQ, NAN);
            if (!r->rc && (!(e->traffic > 0) ||
                           fabs(e->cf * e->traffic - cg) > 1e-5 * (fabs(cg) + fabs(e->traffic))))
                bad(r, hs_jv_get(r->d, o, "cf"), "%s.cf = %g is not congested / traffic "
                    "(%g / %g)", w, e->cf, cg, e->traffic);
            if (fabs(e->cf) > m->max_abs_cf)
                m->max_abs_cf = fabs(e->cf);
        }
        e->load = num(r, o, "load", w, 0, 0);
        e->congested = (uint8_t)boolean(r, o, "is_congested", w, 0);
        e->root = (uint8_t)boolean(r, o, "is_root", w, 0);
        e->t_packets = e->t_cf = NAN;
        const hs_jv *t = get(r, o, "truth", w, HS_JV_OBJ, NUL);
        if (t) {
            char tw[48];
            snprintf(tw, sizeof tw, "%s.truth", w);
            e->t_packets = numr(r, t, "packets", tw, REQ, NAN, 0, INFINITY);
            e->t_cf = numr(r, t, "cf", tw, NUL, NAN, 0, 1);   /* the truth is a fraction */
        }
        if (strcmp(st, "ok") == 0)
            e->state = isfinite(e->cf) ? HS__VZ_OK : HS__VZ_INSUFF;
        else if (strcmp(st, "insufficient") == 0)
            e->state = e->traffic > 0 ? HS__VZ_INSUFF : HS__VZ_IDLE;
        else
            bad(r, hs_jv_get(r->d, o, "status"), "%s.status '%s': expected 'ok' or 'insufficient'",
                w, st);
    }
    /* node links must be what the nodes say they are */
    for (uint32_t i = 0; i < m->N && !r->rc; i++) {
        uint32_t in = m->node_inj[i], ej = m->node_ej[i];
        if (in == 0 || ej == 0 || m->lk[in].kind != HS__VZ_INJ || m->lk[in].from != i ||
            m->lk[ej].kind != HS__VZ_EJ || m->lk[ej].to != i)
            bad(r, a, "devices.nodes[%u]: injection %u / ejection %u are not that node's links", i,
                in, ej);
    }
}

/* A view's columns and rows into (link, estimate) pairs. */
static void read_rows(rd *r, const hs_viz_model *m, const hs_jv *o, const char *w, hs__vz_view *v)
{
    enum { C_ID, C_TR, C_TRSE, C_CF, C_CFSE, C_LOAD, C_FLAGS, C_TP, C_TC, NCOL };
    static const char *want[NCOL] = { "id", "traffic", "traffic_se", "cf", "cf_se", "load",
                                      "flags", "true_packets", "true_congested" };
    int at[NCOL];
    for (int c = 0; c < NCOL; c++)
        at[c] = -1;
    const hs_jv *cols = get(r, o, "columns", w, HS_JV_ARR, REQ);
    const hs_jv *rows = get(r, o, "rows", w, HS_JV_ARR, REQ);
    if (r->rc)
        return;
    size_t nc = hs_jv_len(cols);
    for (size_t i = 0; i < nc; i++) {
        const char *s = hs_jv_str(r->d, hs_jv_at(r->d, cols, i));
        if (!s) {
            bad(r, hs_jv_at(r->d, cols, i), "%s.columns[%zu] is not a string", w, i);
            return;
        }
        for (int c = 0; c < NCOL; c++)
            if (strcmp(s, want[c]) == 0 && at[c] < 0)
                at[c] = (int)i;
    }
    for (int c = C_ID; c <= C_FLAGS; c++)
        if (at[c] < 0 && c != C_TRSE && c != C_CFSE) {
            bad(r, cols, "%s.columns lacks '%s'", w, want[c]);
            return;
        }
    size_t n = hs_jv_len(rows);
    v->row_link = xcalloc(r, n, sizeof *v->row_link);
    v->row = xcalloc(r, n, sizeof *v->row);
    for (size_t i = 0; i < n && !r->rc; i++) {
        const hs_jv *row = hs_jv_at(r->d, rows, i);
        if (hs_jv_kind(row) != HS_JV_ARR || hs_jv_len(row) != nc) {
            bad(r, row, "%s.rows[%zu]: expected an array of %zu values", w, i, nc);
            return;
        }
        double x[NCOL];
        for (int c = 0; c < NCOL; c++) {
            x[c] = NAN;
            if (at[c] < 0)
                continue;
            const hs_jv *e = hs_jv_at(r->d, row, (size_t)at[c]);
            if (hs_jv_kind(e) == HS_JV_NULL)
                continue;
            if (hs_jv_double(e, &x[c]) || !isfinite(x[c])) {
                bad(r, e, "%s.rows[%zu].%s is not a number", w, i, want[c]);
                return;
            }
        }
        uint64_t id;
        if (hs_jv_u64(hs_jv_at(r->d, row, (size_t)at[C_ID]), &id) || id < 1 || id > m->L) {
            bad(r, hs_jv_at(r->d, row, (size_t)at[C_ID]), "%s.rows[%zu]: link id not in 1..%u", w,
                i, m->L);
            return;
        }
        if (!isfinite(x[C_TR]) || !(x[C_FLAGS] >= 0 && x[C_FLAGS] <= 3)) {
            bad(r, row, "%s.rows[%zu]: traffic and flags (0..3) are required", w, i);
            return;
        }
        hs__vz_est *e = &v->row[i];
        v->row_link[i] = (uint32_t)id;
        if (x[C_TRSE] < 0 || x[C_CFSE] < 0 || x[C_TP] < 0 || x[C_TC] < 0 ||
            x[C_TC] > x[C_TP]) {
            bad(r, row, "%s.rows[%zu]: a negative standard error or count, or more true "
                "congested packets than packets", w, i);
            return;
        }
        e->traffic = x[C_TR];
        e->traffic_se = isfinite(x[C_TRSE]) ? x[C_TRSE] : 0;
        e->cf = x[C_CF];
        e->cf_se = x[C_CFSE];
        e->load = isfinite(x[C_LOAD]) ? x[C_LOAD] : 0;
        int fl = (int)x[C_FLAGS];
        e->congested = fl & 1;
        e->root = (fl >> 1) & 1;
        e->t_packets = x[C_TP];
        e->t_cf = x[C_TP] > 0 && isfinite(x[C_TC]) ? x[C_TC] / x[C_TP] : NAN;
        e->state = isfinite(e->cf) ? HS__VZ_OK : HS__VZ_INSUFF;
    }
    v->nrows = (uint32_t)n;
}

static void read_view_common(rd *r, const hs_viz_model *m, const hs_jv *o, const char *w,
                             hs__vz_view *v)
{
    v->packets = uint_(r, o, "packets", w, 0, UINT64_MAX, 0);
    v->flagged = uint_(r, o, "flagged", w, 0, UINT64_MAX, 0);
    v->links_ok = uint_(r, o, "links_ok", w, 0, UINT64_MAX, 0);
    v->links_congested = uint_(r, o, "links_congested", w, 0, UINT64_MAX, 0);
    v->roots = u32_array(r, o, "roots", w, NUL, 1, m->L, &v->nroots);
    read_rows(r, m, o, w, v);
}

static void read_phases(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *a = get(r, root, "phases", "analysis", HS_JV_ARR, NUL);
    if (!a)
        return;
    size_t n = hs_jv_len(a);
    m->phases = xcalloc(r, n, sizeof *m->phases);
    char w[40];
    for (size_t i = 0; i < n && !r->rc; i++) {
        const hs_jv *o = obj_at(r, a, i, "phases", w, sizeof w);
        hs__vz_view *v = &m->phases[i];
        m->nphases = (uint32_t)i + 1;
        if (!o)
            break;
        v->name = str(r, o, "name", w, REQ);
        v->kind = str(r, o, "kind", w, NUL);
        v->app = boolean(r, o, "app", w, 0);
        v->phase_id = -1;
        const hs_jv *ids = get(r, o, "phase_ids", w, HS_JV_ARR, NUL);
        uint64_t id0;
        if (ids && hs_jv_len(ids) == 1 && hs_jv_u64(hs_jv_at(r->d, ids, 0), &id0) == 0 &&
            id0 < INT64_MAX)
            v->phase_id = (int64_t)id0;
        v->have_app = hs_jv_get(r->d, o, "time_ps") != NULL;
        v->messages = uint_(r, o, "messages", w, 0, UINT64_MAX, 0);
        v->bytes = uint_(r, o, "bytes", w, 0, UINT64_MAX, 0);
        v->time_ps = uint_(r, o, "time_ps", w, 0, UINT64_MAX, 0);
        read_view_common(r, m, o, w, v);
    }
}

static void read_windows(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *wo = get(r, root, "windows", "analysis", HS_JV_OBJ, NUL);
    if (!wo)
        return;
    double wps = num(r, wo, "window_ps", "windows", 0, NAN);
    if (isfinite(wps))
        m->window_ps = wps;
    const hs_jv *a = get(r, wo, "list", "windows", HS_JV_ARR, REQ);
    if (!a)
        return;
    size_t n = hs_jv_len(a);
    m->windows = xcalloc(r, n, sizeof *m->windows);
    char w[40];
    for (size_t i = 0; i < n && !r->rc; i++) {
        const hs_jv *o = obj_at(r, a, i, "windows.list", w, sizeof w);
        hs__vz_view *v = &m->windows[i];
        m->nwindows = (uint32_t)i + 1;
        if (!o)
            break;
        v->phase_id = -1;
        v->t0_ps = uint_(r, o, "t0_ps", w, REQ, UINT64_MAX, 0);
        v->t1_ps = uint_(r, o, "t1_ps", w, REQ, UINT64_MAX, 0);
        if (!r->rc && v->t1_ps < v->t0_ps)
            bad(r, o, "%s ends (t1_ps) before it starts (t0_ps)", w);
        read_view_common(r, m, o, w, v);
    }
}

/* The cf of a root or finding is one link's: no larger in size than the
 * largest link CF read (with the links' rounding). */
static double link_cf(rd *r, const hs_viz_model *m, const hs_jv *o, const char *w)
{
    double lim = m->max_abs_cf * (1 + 1e-5) + 1e-9;
    return numr(r, o, "cf", w, NUL, NAN, -lim, lim);
}

static void read_roots(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *a = get(r, root, "roots", "analysis", HS_JV_ARR, NUL);
    m->root_num = xcalloc(r, (size_t)m->L + 1, sizeof *m->root_num);
    if (!a)
        return;
    size_t n = hs_jv_len(a);
    m->roots = xcalloc(r, n, sizeof *m->roots);
    char w[32];
    for (size_t i = 0; i < n && !r->rc; i++) {
        const hs_jv *o = obj_at(r, a, i, "roots", w, sizeof w);
        hs__vz_root *q = &m->roots[i];
        m->nroots = (uint32_t)i + 1;
        if (!o)
            break;
        q->links = u32_array(r, o, "links", w, REQ, 1, m->L, &q->nlinks);
        q->tree = u32_array(r, o, "tree", w, NUL, 1, m->L, &q->ntree);
        q->victims = u32_array(r, o, "victims", w, NUL, 1, m->L, &q->nvictims);
        q->endpoint = boolean(r, o, "endpoint", w, 0);
        q->heavy = boolean(r, o, "heavy", w, 0);
        q->load_peak = hs_jv_get(r->d, o, "load_busy") ? num(r, o, "load_busy", w, 0, NAN)
                                                       : num(r, o, "load_peak", w, 0, NAN);
        q->cf = link_cf(r, m, o, w);
        q->cf_se = numr(r, o, "cf_se", w, 0, NAN, 0, INFINITY);
        for (uint32_t k = 0; k < q->nlinks && !r->rc; k++)
            if (!m->root_num[q->links[k]])
                m->root_num[q->links[k]] = (uint32_t)i + 1;
    }
}

static void read_findings(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *a = get(r, root, "diagnosis", "analysis", HS_JV_ARR, NUL);
    if (!a)
        return;
    size_t n = hs_jv_len(a);
    m->findings = xcalloc(r, n, sizeof *m->findings);
    char w[32];
    for (size_t i = 0; i < n && !r->rc; i++) {
        const hs_jv *o = obj_at(r, a, i, "diagnosis", w, sizeof w);
        hs__vz_finding *f = &m->findings[i];
        m->nfindings = (uint32_t)i + 1;
        if (!o)
            break;
        f->kind = str(r, o, "kind", w, REQ);
        f->summary = str(r, o, "summary", w, REQ);
        f->links = u32_array(r, o, "links", w, NUL, 1, m->L, &f->nlinks);
        f->root_links = (uint32_t)uint_(r, o, "root_links", w, 0, f->nlinks, 0);
        f->root_count = (uint32_t)uint_(r, o, "root_count", w, 0, UINT32_MAX, 0);
        const hs_jv *nd = get(r, o, "nodes", w, HS_JV_ARR, NUL);
        f->nnodes = (uint32_t)hs_jv_len(nd);
        const hs_jv *rk = get(r, o, "ranks", w, HS_JV_ARR, NUL);
        f->nranks = (uint32_t)hs_jv_len(rk);
        const hs_jv *ph = get(r, o, "phases", w, HS_JV_ARR, NUL);
        if (ph) {
            f->phases = xcalloc(r, hs_jv_len(ph), sizeof *f->phases);
            for (size_t k = 0; f->phases && k < hs_jv_len(ph) && !r->rc; k++) {
                const char *s = hs_jv_str(r->d, hs_jv_at(r->d, ph, k));
                if (!s) {
                    bad(r, hs_jv_at(r->d, ph, k), "%s.phases[%zu] is not a string", w, k);
                    break;
                }
                f->phases[k] = dupstr(r, s);
                f->nphases = (uint32_t)k + 1;
            }
        }
        f->has_numbers = hs_jv_get(r->d, o, "cf") != NULL;
        f->cf = link_cf(r, m, o, w);
        f->cf_se = numr(r, o, "cf_se", w, NUL, NAN, 0, INFINITY);
        f->load_peak = hs_jv_get(r->d, o, "load_busy") ? num(r, o, "load_busy", w, NUL, NAN)
                                                       : num(r, o, "load_peak", w, NUL, NAN);
        f->severity = num(r, o, "severity", w, NUL, NAN);
        const hs_jv *sm = get(r, o, "suggested_mapping", w, HS_JV_OBJ, NUL);
        if (sm) {
            f->has_mapping = 1;
            f->map_file = str(r, sm, "file", "suggested_mapping", NUL);
            f->bytes_now = num(r, sm, "byte_hops_now", "suggested_mapping", 0, NAN);
            f->bytes_suggested = num(r, sm, "byte_hops_suggested", "suggested_mapping", 0, NAN);
        }
    }
}

static void read_accuracy(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *a = get(r, root, "accuracy", "analysis", HS_JV_ARR, NUL);
    if (!a)
        return;
    size_t n = hs_jv_len(a);
    m->acc = xcalloc(r, n, sizeof *m->acc);
    char w[80];
    for (size_t i = 0; i < n && !r->rc; i++) {
        const hs_jv *o = obj_at(r, a, i, "accuracy", w, sizeof w);
        hs__vz_acc *c = &m->acc[i];
        m->nacc = (uint32_t)i + 1;
        if (!o)
            break;
        c->decoder = str(r, o, "decoder", w, REQ);
        const hs_jv *rows = get(r, o, "rows", w, HS_JV_ARR, REQ);
        size_t nr = hs_jv_len(rows);
        c->rows = xcalloc(r, nr, sizeof *c->rows);
        for (size_t k = 0; k < nr && !r->rc; k++) {
            char what[40];
            snprintf(what, sizeof what, "accuracy[%zu].rows", i);
            const hs_jv *x = obj_at(r, rows, k, what, w, sizeof w);
            hs__vz_acc_row *q = &c->rows[k];
            c->nrows = (uint32_t)k + 1;
            if (!x)
                break;
            q->links_kind = str(r, x, "links_kind", w, REQ);
            q->min_true = num(r, x, "min_true_packets", w, 0, NAN);
            q->links = num(r, x, "links", w, REQ, 0);
            q->traffic_mean = num(r, x, "traffic_rel_err_mean", w, REQ, 0);
            q->traffic_max = num(r, x, "traffic_rel_err_max", w, REQ, 0);
            q->cf_links = num(r, x, "cf_links", w, REQ, 0);
            q->cf_mean = num(r, x, "cf_abs_err_mean", w, REQ, 0);
            q->cf_max = num(r, x, "cf_abs_err_max", w, REQ, 0);
            q->cf_within_2se = num(r, x, "cf_within_2se", w, REQ, 0);
        }
        snprintf(w, sizeof w, "accuracy[%zu]", i);
        const hs_jv *cl = get(r, o, "classification", w, HS_JV_OBJ, NUL);
        if (cl) {
            c->have_class = 1;
            c->tp = uint_(r, cl, "true_positive", "classification", REQ, UINT64_MAX, 0);
            c->fp = uint_(r, cl, "false_positive", "classification", REQ, UINT64_MAX, 0);
            c->fn = uint_(r, cl, "false_negative", "classification", REQ, UINT64_MAX, 0);
            c->tn = uint_(r, cl, "true_negative", "classification", REQ, UINT64_MAX, 0);
        }
    }
}

/* A latency summary and, when present, its histogram. */
static void read_lat(rd *r, const hs_jv *o, const char *w, hs__vz_lat *lt)
{
    if (!o)
        return;
    lt->have = 1;
    lt->messages = num(r, o, "messages", w, 0, NAN);
    lt->p50 = num(r, o, "p50_ps", w, NUL, NAN);
    lt->p99 = num(r, o, "p99_ps", w, NUL, NAN);
    lt->mean = num(r, o, "mean_ps", w, NUL, NAN);
    lt->max = num(r, o, "max_ps", w, NUL, NAN);
    char hw[64];
    snprintf(hw, sizeof hw, "%s.histogram", w);
    const hs_jv *h = get(r, o, "histogram", w, HS_JV_OBJ, NUL);
    if (!h)
        return;
    const hs_jv *e = get(r, h, "edges_ps", hw, HS_JV_ARR, REQ);
    const hs_jv *c = get(r, h, "counts", hw, HS_JV_ARR, REQ);
    if (r->rc)
        return;
    size_t nb = hs_jv_len(c);
    if (nb == 0 || hs_jv_len(e) != nb + 1) {
        bad(r, h, "%s: %zu counts need %zu edges, not %zu", hw, nb, nb + 1, hs_jv_len(e));
        return;
    }
    lt->edges = xcalloc(r, nb + 1, sizeof *lt->edges);
    lt->counts = xcalloc(r, nb, sizeof *lt->counts);
    for (size_t i = 0; i <= nb && !r->rc; i++) {
        const hs_jv *x = hs_jv_at(r->d, e, i);
        if (hs_jv_double(x, &lt->edges[i]) || !isfinite(lt->edges[i]) || lt->edges[i] < 0 ||
            (i && lt->edges[i] <= lt->edges[i - 1])) {
            bad(r, x, "%s.edges_ps[%zu]: edges must be increasing non-negative numbers", hw, i);
            return;
        }
        if (i == nb)
            break;
        x = hs_jv_at(r->d, c, i);
        if (hs_jv_double(x, &lt->counts[i]) || !isfinite(lt->counts[i]) || lt->counts[i] < 0) {
            bad(r, x, "%s.counts[%zu]: expected a non-negative number", hw, i);
            return;
        }
    }
    lt->nbins = (uint32_t)nb;
}

static void read_app(rd *r, hs_viz_model *m, const hs_jv *root)
{
    const hs_jv *a = get(r, root, "app", "analysis", HS_JV_OBJ, NUL);
    hs__vz_app *p = &m->app;
    if (!a)
        return;
    p->have = 1;
    p->trace = str(r, a, "trace", "app", NUL);
    p->command = str(r, a, "command", "app", NUL);
    p->sim_command = str(r, a, "simulate_command", "app", NUL);
    p->ranks = uint_(r, a, "ranks", "app", 0, UINT32_MAX, 0);
    const hs_jv *mp = get(r, a, "mapping", "app", HS_JV_OBJ, NUL);
    p->map_policy = str(r, mp, "policy", "app.mapping", NUL);
    p->map_param = str(r, mp, "param", "app.mapping", NUL);
    p->ranks_per_node = uint_(r, mp, "ranks_per_node", "app.mapping", 0, UINT32_MAX, 0);
    const hs_jv *t = get(r, a, "time", "app", HS_JV_OBJ, NUL);
    if (t) {
        p->have_time = 1;
        p->total_ps = num(r, t, "total_ps", "app.time", REQ, NAN);
        p->compute_ps = num(r, t, "compute_ps", "app.time", 0, NAN);
        p->comm_ps = num(r, t, "comm_ps", "app.time", 0, NAN);
    }
    const hs_jv *lat = get(r, a, "latency", "app", HS_JV_OBJ, NUL);
    read_lat(r, lat, "app.latency", &p->lat);
    const hs_jv *bp = get(r, lat, "by_phase", "app.latency", HS_JV_OBJ, NUL);
    if (bp) {
        size_t n = hs_jv_len(bp);
        p->by_phase = xcalloc(r, n, sizeof *p->by_phase);
        for (size_t i = 0; p->by_phase && i < n && !r->rc; i++) {
            const char *k = hs_jv_key_at(r->d, bp, i);
            uint64_t id;
            char w[64];
            snprintf(w, sizeof w, "app.latency.by_phase.%.32s", k);
            if (hs_parse_u64(k, &id) || id > INT64_MAX) {
                bad(r, hs_jv_at(r->d, bp, i), "%s: key is not a phase id", w);
                break;
            }
            const hs_jv *o = hs_jv_at(r->d, bp, i);
            if (hs_jv_kind(o) != HS_JV_OBJ) {
                bad(r, o, "%s is %s, expected an object", w, tname(hs_jv_kind(o)));
                break;
            }
            p->by_phase[i].id = (int64_t)id;
            read_lat(r, o, w, &p->by_phase[i].lat);
            p->nby_phase = (uint32_t)i + 1;
        }
    }
    const hs_jv *ci = get(r, a, "congestion_impact", "app", HS_JV_OBJ, NUL);
    if (ci) {
        p->have_impact = 1;
        p->impact_latency_p99 = num(r, ci, "latency_p99", "app.congestion_impact", NUL, NAN);
        p->impact_bandwidth = num(r, ci, "bandwidth", "app.congestion_impact", NUL, NAN);
        p->impact_runtime = num(r, ci, "runtime", "app.congestion_impact", NUL, NAN);
        const hs_jv *iso = get(r, ci, "isolated", "app.congestion_impact", HS_JV_OBJ, NUL);
        const hs_jv *con = get(r, ci, "congested", "app.congestion_impact", HS_JV_OBJ, NUL);
        p->iso_total_ps = num(r, iso, "total_ps", "app.congestion_impact.isolated", 0, NAN);
        p->cong_total_ps = num(r, con, "total_ps", "app.congestion_impact.congested", 0, NAN);
        read_lat(r, get(r, iso, "latency", "app.congestion_impact.isolated", HS_JV_OBJ, NUL),
                 "app.congestion_impact.isolated.latency", &p->iso_lat);
        read_lat(r, get(r, con, "latency", "app.congestion_impact.congested", HS_JV_OBJ, NUL),
                 "app.congestion_impact.congested.latency", &p->cong_lat);
    }
    const hs_jv *bg = get(r, a, "background", "app", HS_JV_OBJ, NUL);
    if (bg) {
        p->background = str(r, bg, "spec", "app.background", NUL);
        if (!p->background)
            p->background = dupstr(r, "(unnamed)");
        p->nbackground_nodes = (uint32_t)hs_jv_len(get(r, bg, "nodes", "app.background",
                                                       HS_JV_ARR, NUL));
    }
}

/* ---- entry points ------------------------------------------------------------------ */

static int build(const hs_jdoc *d, const char *name, hs_viz_model **out, hs_error *err)
{
    rd r = { d, name, err, 0 };
    const hs_jv *root = hs_jdoc_root(d);
    if (hs_jv_kind(root) != HS_JV_OBJ)
        return bad(&r, root, "expected an object at the top");
    const char *fmt = hs_jv_str(d, hs_jv_get(d, root, "format"));
    if (!fmt || strcmp(fmt, "hopscope-analysis") != 0)
        return bad(&r, hs_jv_get(d, root, "format") ? hs_jv_get(d, root, "format") : root,
                   "not a hopscope analysis (\"format\" is %s%s%s, expected \"hopscope-analysis\")",
                   fmt ? "\"" : "", fmt ? fmt : "missing", fmt ? "\"" : "");
    const hs_jv *ver = hs_jv_get(d, root, "version");
    uint64_t v;
    if (hs_jv_u64(ver, &v))
        return bad(&r, ver ? ver : root, "\"version\" missing or not an integer");
    if (v != 1)
        return hs_error_set(err, HS_EVERSION,
                            "%s: offset %zu: analysis.json version %llu is not understood (this "
                            "hopscope reads version 1)", name, hs_jv_offset(ver),
                            (unsigned long long)v);
    hs_viz_model *m = calloc(1, sizeof *m);
    if (!m)
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", name);
    m->path = dupstr(&r, name);
    read_topology(&r, m, root);
    read_head(&r, m, root);
    read_devices(&r, m, root);
    read_links(&r, m, root);
    if (!r.rc && isfinite(m->max_cf) && fabs(m->max_cf) > m->max_abs_cf * (1 + 1e-5) + 1e-9)
        bad(&r, hs_jv_get(d, hs_jv_get(d, root, "summary"), "max_cf"),
            "summary.max_cf = %g is larger than every link's CF", m->max_cf);
    read_roots(&r, m, root);
    read_findings(&r, m, root);
    read_phases(&r, m, root);
    read_windows(&r, m, root);
    read_accuracy(&r, m, root);
    read_app(&r, m, root);
    if (r.rc) {
        hs_viz_free(m);
        return r.rc;
    }
    *out = m;
    return 0;
}

int hs_viz_parse(const char *text, size_t len, const char *name, hs_viz_model **out, hs_error *err)
{
    *out = NULL;
    hs_jdoc *d;
    int rc = hs_jdoc_parse(text, len, name, &d, err);
    if (rc)
        return rc;
    rc = build(d, name, out, err);
    hs_jdoc_free(d);
    return rc;
}

int hs_viz_load(const char *path, hs_viz_model **out, hs_error *err)
{
    *out = NULL;
    char buf[4200];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if ((size_t)snprintf(buf, sizeof buf, "%s/analysis.json", path) >= sizeof buf)
            return hs_error_set(err, HS_EINVAL, "%s: path too long", path);
        path = buf;
    }
    hs_jdoc *d;
    int rc = hs_jdoc_load(path, HS_VIZ_MAX_INPUT, &d, err);
    if (rc)
        return rc;
    rc = build(d, path, out, err);
    hs_jdoc_free(d);
    return rc;
}

static void free_view(hs__vz_view *v)
{
    free(v->name);
    free(v->kind);
    free(v->row_link);
    free(v->row);
    free(v->roots);
}

static void free_lat(hs__vz_lat *l)
{
    free(l->edges);
    free(l->counts);
}

void hs_viz_free(hs_viz_model *m)
{
    if (!m)
        return;
    free(m->path);
    free(m->command);
    free(m->run);
    free(m->hopscope);
    free(m->replay_status);
    free(m->replay_caveat);
    free(m->topo_kind);
    free(m->spec);
    free(m->routing);
    free(m->decoder);
    free(m->decoder_note);
    free(m->caveats);
    free(m->top);
    if (m->name)
        for (uint32_t i = 0; i < m->N + m->S; i++)
            free(m->name[i]);
    free(m->name);
    free(m->node_switch);
    free(m->node_inj);
    free(m->node_ej);
    free(m->rank_off);
    free(m->rank);
    free(m->sw_level);
    free(m->sw_group);
    free(m->sw_router);
    free(m->sw_coord);
    free(m->lk);
    free(m->est);
    for (uint32_t i = 0; i < m->nroots; i++) {
        free(m->roots[i].links);
        free(m->roots[i].tree);
        free(m->roots[i].victims);
    }
    free(m->roots);
    free(m->root_num);
    for (uint32_t i = 0; i < m->nfindings; i++) {
        hs__vz_finding *f = &m->findings[i];
        free(f->kind);
        free(f->summary);
        free(f->links);
        for (uint32_t k = 0; k < f->nphases; k++)
            free(f->phases[k]);
        free(f->phases);
        free(f->map_file);
    }
    free(m->findings);
    for (uint32_t i = 0; i < m->nphases; i++)
        free_view(&m->phases[i]);
    free(m->phases);
    for (uint32_t i = 0; i < m->nwindows; i++)
        free_view(&m->windows[i]);
    free(m->windows);
    for (uint32_t i = 0; i < m->nacc; i++) {
        for (uint32_t k = 0; k < m->acc[i].nrows; k++)
            free(m->acc[i].rows[k].links_kind);
        free(m->acc[i].rows);
        free(m->acc[i].decoder);
    }
    free(m->acc);
    hs__vz_app *p = &m->app;
    free(p->trace);
    free(p->command);
    free(p->sim_command);
    free(p->map_policy);
    free(p->map_param);
    free(p->background);
    free_lat(&p->lat);
    for (uint32_t i = 0; i < p->nby_phase; i++)
        free_lat(&p->by_phase[i].lat);
    free(p->by_phase);
    free_lat(&p->iso_lat);
    free_lat(&p->cong_lat);
    free(m);
}

/* ---- queries ---------------------------------------------------------------------- */

const char *hs__vz_link_name(const hs_viz_model *m, uint32_t l, char *buf, size_t n)
{
    static const char *subs[] = { "", "up", "down", "local", "global", "torus", "cable" };
    const hs__vz_link *k = &m->lk[l];
    const char *what = k->kind == HS__VZ_INJ ? "injection"
                       : k->kind == HS__VZ_EJ ? "ejection"
                                              : subs[k->sub];
    if (k->sub == HS__VZ_SUB_TORUS)
        snprintf(buf, n, "%s\u2192%s (%c%s%s)", m->name[k->from], m->name[k->to],
                 k->dir < 0 ? '-' : '+', hs__vz_dim_name(k->dim), k->wrap ? ", wrap" : "");
    else
        snprintf(buf, n, "%s\u2192%s%s%s%s", m->name[k->from], m->name[k->to], *what ? " (" : "",
                 what, *what ? ")" : "");
    return buf;
}

const char *hs__vz_dim_name(unsigned d)
{
    static const char *n[MAX_COORD] = { "x", "y", "z", "d3", "d4", "d5", "d6", "d7" };
    return d < MAX_COORD ? n[d] : "d?";
}

uint32_t hs__vz_root_number(const hs_viz_model *m, uint32_t l)
{
    return l && l <= m->L && m->root_num ? m->root_num[l] : 0;
}

void hs__vz_view_dense(const hs_viz_model *m, const hs__vz_view *v, hs__vz_est *dense)
{
    for (uint32_t l = 1; l <= m->L; l++) {
        hs__vz_est *e = &dense[l];
        memset(e, 0, sizeof *e);
        e->cf = e->cf_se = e->t_packets = e->t_cf = NAN;
        e->state = m->est[l].state == HS__VZ_IDLE ? HS__VZ_IDLE : HS__VZ_NODATA;
        e->traffic = NAN; /* unknown in this view */
    }
    for (uint32_t i = 0; i < v->nrows; i++)
        dense[v->row_link[i]] = v->row[i];
}
