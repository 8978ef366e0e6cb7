/* The topology graph: spec dispatch, the generic builder steps every
 * topology uses (nodes, cables, dense link IDs), accessors, names, and the
 * summary `hopscope topo` prints (diameter and bisection from each regular
 * family's parameters, without building its links; BFS for files).
 *
 * Ownership: hs_topo_create returns a topology the caller frees with
 * hs_topo_free; on failure nothing is left allocated. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- spec helpers ------------------------------------------------------- */

int hs__spec_split(hs__spec *s, const char *text, const char *what, hs_error *err)
{
    memset(s, 0, sizeof *s);
    size_t len = strlen(text);
    if (len >= sizeof s->buf)
        return hs_error_set(err, HS_EINVAL, "%s: specification too long (%zu characters)",
                            what, len);
    memcpy(s->buf, text, len + 1);
    if (len == 0)
        return 0;
    char *p = s->buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (*p == '\0')
            return hs_error_set(err, HS_EINVAL, "%s: empty option in '%s'", what, text);
        if (s->n == HS__MAXKV)
            return hs_error_set(err, HS_EINVAL, "%s: too many options", what);
        char *eq = strchr(p, '=');
        if (eq) {
            *eq = '\0';
            if (eq == p || eq[1] == '\0')
                return hs_error_set(err, HS_EINVAL, "%s: option '%s=%s' needs a key and a value",
                                    what, p, eq + 1);
            s->kv[s->n].key = p;
            s->kv[s->n].val = eq + 1;
        } else {
            s->kv[s->n].key = p;
            s->kv[s->n].val = NULL;
        }
        for (unsigned i = 0; i < s->n; i++)
            if (strcmp(s->kv[i].key, p) == 0)
                return hs_error_set(err, HS_EINVAL, "%s: option '%s' given twice", what, p);
        s->n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

const char *hs__spec_get(hs__spec *s, const char *key)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->kv[i].val && strcmp(s->kv[i].key, key) == 0) {
            s->used |= 1u << i;
            return s->kv[i].val;
        }
    return NULL;
}

int hs__spec_u32(hs__spec *s, const char *key, uint32_t lo, uint32_t hi,
                 uint32_t *v, const char *what, hs_error *err)
{
    const char *x = hs__spec_get(s, key);
    if (!x)
        return 0;
    uint64_t u;
    if (hs_parse_u64(x, &u) != 0 || u < lo || u > hi)
        return hs_error_set(err, HS_EINVAL, "%s: %s=%s: expected an integer in %u..%u",
                            what, key, x, lo, hi);
    *v = (uint32_t)u;
    return 0;
}

int hs__spec_link(hs__spec *s, const char *kbw, const char *klat, uint64_t *bw,
                  hs_time *lat, const char *what, hs_error *err)
{
    const char *x = hs__spec_get(s, kbw);
    if (x && hs_parse_rate(x, bw) != 0)
        return hs_error_set(err, HS_EINVAL,
                            "%s: %s=%s: expected a rate such as 25GB/s or 200Gb/s", what, kbw, x);
    x = hs__spec_get(s, klat);
    if (x && hs_parse_time(x, lat) != 0)
        return hs_error_set(err, HS_EINVAL,
                            "%s: %s=%s: expected a time such as 100ns or 1.5us", what, klat, x);
    return 0;
}

static const char *const vcsel_names[] = { "dest", "rr", "sl" };

int hs__spec_nodes_vcs(hs__spec *s, hs_topo *t, unsigned classes, const char *what,
                       hs_error *err)
{
    t->nbw = t->bw;
    t->nlat = HS_DEFAULT_LAT;
    int rc = hs__spec_link(s, "nbw", "nlat", &t->nbw, &t->nlat, what, err);
    if (rc)
        return rc;
    if (t->nbw == 0)
        return hs_error_set(err, HS_EINVAL, "%s: nbw=0: node links need a positive rate", what);
    uint32_t vcs = classes;
    if ((rc = hs__spec_u32(s, "vcs", 1, HS_FABRIC_MAX_VCS, &vcs, what, err)))
        return rc;
    if (vcs % classes)
        return hs_error_set(err, HS_EINVAL, "%s: vcs=%u: the routing needs %u VC class%s "
                            "(deadlock freedom), so vcs must be a multiple of %u up to %u",
                            what, vcs, classes, classes > 1 ? "es" : "", classes,
                            HS_FABRIC_MAX_VCS);
    t->vclasses = classes;
    t->lanes = vcs / classes;
    t->nvc = vcs;
    t->vcsel = HS_VCSEL_DEST;
    const char *x = hs__spec_get(s, "vcsel");
    if (x) {
        unsigned i;
        for (i = 0; i < 3; i++)
            if (strcmp(x, vcsel_names[i]) == 0)
                break;
        if (i == 3)
            return hs_error_set(err, HS_EINVAL, "%s: vcsel=%s: expected dest, rr or sl",
                                what, x);
        t->vcsel = i;
    }
    return hs__router_spec(s, t, what, err);
}

void hs__spec_nodes_vcs_fmt(const hs_topo *t, char *buf, size_t n)
{
    char bw[32], lat[32];
    hs__fmt_rate_exact(t->nbw, bw, sizeof bw);
    hs__fmt_time_exact(t->nlat, lat, sizeof lat);
    int k = snprintf(buf, n, ",nbw=%s,nlat=%s,vcs=%u", bw, lat, t->nvc);
    if (t->lanes > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, ",vcsel=%s", vcsel_names[t->vcsel]);
    if (k > 0 && (size_t)k < n)
        hs__router_spec_fmt(t, buf + k, n - (size_t)k);
}

int hs__spec_check_unused(hs__spec *s, const char *what, hs_error *err)
{
    for (unsigned i = 0; i < s->n; i++)
        if (!(s->used & (1u << i)))
            return hs_error_set(err, HS_EINVAL, "%s: unknown option '%s'%s", what,
                                s->kv[i].key, s->kv[i].val ? "" : " (options are key=value)");
    return 0;
}

/* ---- generic building -------------------------------------------------- */

int hs__topo_alloc(hs_topo *t, uint32_t nnodes, uint32_t nswitches,
                   const uint32_t *nports, uint32_t nlinks)
{
    t->nnodes = nnodes;
    t->nswitches = nswitches;
    t->nlinks = nlinks;
    t->links = calloc((size_t)nlinks + 1, sizeof *t->links);
    t->port_off = calloc((size_t)nswitches + 1, sizeof *t->port_off);
    t->node_sw = calloc(nnodes ? nnodes : 1, sizeof *t->node_sw);
    t->node_port = calloc(nnodes ? nnodes : 1, sizeof *t->node_port);
    if (!t->links || !t->port_off || !t->node_sw || !t->node_port)
        return HS_ENOMEM;
    uint64_t total = 0;
    for (uint32_t s = 0; s < nswitches; s++) {
        t->port_off[s] = (uint32_t)total;
        total += nports[s];
        if (total > UINT32_MAX)
            return HS_ERANGE;
    }
    t->port_off[nswitches] = (uint32_t)total;
    t->port_out = calloc(total ? total : 1, sizeof *t->port_out);
    t->port_in = calloc(total ? total : 1, sizeof *t->port_in);
    if (!t->port_out || !t->port_in)
        return HS_ENOMEM;
    return 0;
}

void hs__topo_attach_node(hs_topo *t, uint32_t node, uint32_t sw, uint32_t port,
                          uint64_t bw, hs_time lat)
{
    uint32_t inj = 1 + node, ej = t->nnodes + 1 + node;
    hs_link_info *l = &t->links[inj];
    memset(l, 0, sizeof *l);
    l->id = inj;
    l->kind = HS_LINK_INJECTION;
    l->from_kind = HS_DEV_NODE;
    l->from = node;
    l->to_kind = HS_DEV_SWITCH;
    l->to = sw;
    l->to_port = port;
    l->bw = bw;
    l->lat = lat;
    hs_link_info *e = &t->links[ej];
    memset(e, 0, sizeof *e);
    e->id = ej;
    e->kind = HS_LINK_EJECTION;
    e->from_kind = HS_DEV_SWITCH;
    e->from = sw;
    e->from_port = port;
    e->to_kind = HS_DEV_NODE;
    e->to = node;
    e->bw = bw;
    e->lat = lat;
    t->node_sw[node] = sw;
    t->node_port[node] = port;
    t->port_in[t->port_off[sw] + port] = inj;
    t->port_out[t->port_off[sw] + port] = ej;
}

uint32_t hs__topo_cable(hs_topo *t, uint32_t *next_id, uint32_t sa, uint32_t pa,
                        uint32_t sb, uint32_t pb, const hs_link_info *fwd)
{
    uint32_t id = *next_id;
    hs_link_info *f = &t->links[id];
    *f = *fwd;
    f->id = id;
    f->kind = HS_LINK_SWITCH;
    f->from_kind = f->to_kind = HS_DEV_SWITCH;
    f->from = sa;
    f->from_port = pa;
    f->to = sb;
    f->to_port = pb;
    hs_link_info *r = &t->links[id + 1];
    *r = *f;
    r->id = id + 1;
    r->from = sb;
    r->from_port = pb;
    r->to = sa;
    r->to_port = pa;
    if (f->sub == HS_SUB_UP)
        r->sub = HS_SUB_DOWN;
    else if (f->sub == HS_SUB_DOWN)
        r->sub = HS_SUB_UP;
    r->dir = (int8_t)-f->dir;
    t->port_out[t->port_off[sa] + pa] = id;
    t->port_in[t->port_off[sa] + pa] = id + 1;
    t->port_out[t->port_off[sb] + pb] = id + 1;
    t->port_in[t->port_off[sb] + pb] = id;
    *next_id = id + 2;
    return id;
}

/* ---- creation ------------------------------------------------------------ */

void hs_topo_free(hs_topo *t)
{
    if (!t)
        return;
    if (t->kind == HS_TOPO_DRAGONFLY)
        hs__dragonfly_free(&t->u.df);
    if (t->kind == HS_TOPO_FILE)
        hs__tfile_free(&t->u.file, t->nnodes, t->nswitches);
    free(t->spec);
    free(t->links);
    free(t->port_off);
    free(t->port_out);
    free(t->port_in);
    free(t->node_sw);
    free(t->node_port);
    free(t);
}

/* Every port must carry a link (builders leave none unconnected except
 * dragonfly global ports without a partner), and every link must be set. */
static int check_built(const hs_topo *t, hs_error *err)
{
    for (uint32_t id = 1; id <= t->nlinks; id++)
        if (t->links[id].id != id || t->links[id].bw == 0)
            return hs_error_set(err, HS_EINVAL, "internal: link %u not built", id);
    return 0;
}

static int create(const char *spec, int shallow, hs_topo **out, hs_error *err)
{
    *out = NULL;
    if (!spec)
        return hs_error_set(err, HS_EINVAL, "no topology given");
    hs_topo *t = calloc(1, sizeof *t);
    if (!t)
        return HS_ENOMEM;
    t->shallow = shallow;
    t->bw = HS_DEFAULT_BW;
    t->lat = HS_DEFAULT_LAT;
    t->nbw = HS_DEFAULT_BW;
    t->nlat = HS_DEFAULT_LAT;
    t->vclasses = 1;
    t->lanes = 1;
    const char *colon = strchr(spec, ':');
    size_t tlen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *rest = colon ? colon + 1 : "";
    int rc;
    char what[64];
    snprintf(what, sizeof what, "topology '%.*s'", (int)(tlen < 32 ? tlen : 32), spec);
    if (tlen == 4 && strncmp(spec, "file", 4) == 0) {
        t->shallow = 0;   /* a file's graph is its only description */
        if (!*rest)
            rc = hs_error_set(err, HS_EINVAL, "topology 'file:PATH' needs a path");
        else
            rc = hs__tfile_build(t, rest, err);
    } else {
        hs__spec s;
        rc = hs__spec_split(&s, rest, what, err);
        if (!rc) {
            if (tlen == 7 && strncmp(spec, "fattree", 7) == 0)
                rc = hs__fattree_build(t, &s, err);
            else if (tlen == 9 && strncmp(spec, "dragonfly", 9) == 0)
                rc = hs__dragonfly_build(t, &s, err);
            else if (tlen == 5 && strncmp(spec, "torus", 5) == 0)
                rc = hs__torus_build(t, &s, 1, err);
            else if (tlen == 4 && strncmp(spec, "mesh", 4) == 0)
                rc = hs__torus_build(t, &s, 0, err);
            else
                rc = hs_error_set(err, HS_EINVAL,
                                  "unknown topology '%.*s' (expected fattree, dragonfly, "
                                  "torus, mesh or file)", (int)tlen, spec);
            if (!rc)
                rc = hs__spec_check_unused(&s, what, err);
        }
    }
    if (!rc && !t->shallow)
        rc = check_built(t, err);
    if (rc) {
        if (rc == HS_ENOMEM)
            hs_error_set(err, rc, "%s: out of memory", what);
        hs_topo_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int hs_topo_create(const char *spec, hs_topo **out, hs_error *err)
{
    return create(spec, 0, out, err);
}

int hs_topo_describe(const char *spec, hs_topo_desc *d, hs_error *err)
{
    memset(d, 0, sizeof *d);
    hs_topo *t;
    /* a file is read and built whole: its graph is the only description */
    int rc = create(spec, 1, &t, err);
    if (rc)
        return rc;
    t->shallow = 0;   /* from here on it is a complete description */
    if ((rc = hs_topo_summarize(t, &d->s))) {
        hs_topo_free(t);
        return hs_error_set(err, rc, "out of memory");
    }
    snprintf(d->spec, sizeof d->spec, "%s", t->spec);
    d->kind = t->kind;
    d->routing = t->routing;
    d->deterministic = hs_topo_deterministic(t);
    d->vcs = t->nvc;
    d->node_bw = t->kind == HS_TOPO_FILE ? t->links[1].bw : t->nbw;
    d->node_lat = t->kind == HS_TOPO_FILE ? t->links[1].lat : t->nlat;
    hs_topo_free(t);
    return 0;
}

/* ---- accessors ----------------------------------------------------------- */

hs_topo_kind hs_topo_type(const hs_topo *t) { return t->kind; }
uint32_t hs_topo_nodes(const hs_topo *t) { return t->nnodes; }
uint32_t hs_topo_switches(const hs_topo *t) { return t->nswitches; }
uint32_t hs_topo_links(const hs_topo *t) { return t->nlinks; }
const char *hs_topo_spec(const hs_topo *t) { return t->spec ? t->spec : ""; }
hs_routing hs_topo_routing(const hs_topo *t) { return t->routing; }
unsigned hs_topo_vcs(const hs_topo *t) { return t->nvc; }

const hs_link_info *hs_topo_link(const hs_topo *t, uint32_t id)
{
    if (id == 0 || id > t->nlinks)
        return NULL;
    return &t->links[id];
}

uint32_t hs_topo_node_injection(const hs_topo *t, uint32_t node)
{
    (void)t;
    return 1 + node;
}
uint32_t hs_topo_node_ejection(const hs_topo *t, uint32_t node) { return t->nnodes + 1 + node; }
uint32_t hs_topo_node_switch(const hs_topo *t, uint32_t node) { return t->node_sw[node]; }

const char *hs_routing_name(hs_routing r)
{
    switch (r) {
    case HS_ROUTE_DMODK: return "dmodk";
    case HS_ROUTE_ADAPTIVE: return "adaptive";
    case HS_ROUTE_MIN: return "min";
    case HS_ROUTE_VALIANT: return "valiant";
    case HS_ROUTE_UGAL: return "ugal";
    case HS_ROUTE_UGAL_G: return "ugal-g";
    case HS_ROUTE_DOR: return "dor";
    case HS_ROUTE_TABLE: return "table";
    }
    return "unknown";
}

int hs_topo_deterministic(const hs_topo *t)
{
    return t->routing == HS_ROUTE_DMODK || t->routing == HS_ROUTE_MIN ||
           t->routing == HS_ROUTE_DOR || t->routing == HS_ROUTE_TABLE;
}

int hs_topo_table_determined(const hs_topo *t)
{
    return t->routing != HS_ROUTE_VALIANT && t->routing != HS_ROUTE_UGAL &&
           t->routing != HS_ROUTE_UGAL_G;
}

/* The longest route any packet can take, from the routing rule of each
 * family (route_*.c), in links counting injection and ejection:
 *   fat-tree: up to the highest level whose switches have two or more
 *     children (the nearest common ancestor of two nodes), then down: 2 l;
 *   torus/mesh (dimension order, minimal): sum of floor(k/2) (torus) or
 *     k - 1 (mesh) over the dimensions, + 2;
 *   dragonfly: L = 1 local hop when a > 1, else 0; minimal within a group
 *     L + 2, between groups 2L + 1 + 2; Valiant and UGAL (g > 2) go
 *     minimally to an intermediate group and on: 3L + 2 + 2;
 *   file: the longest forwarding-table path + 2.
 * An upper bound the routing can reach, so a field sized by it never
 * overflows; tests/unit/test_topo_route.c walks the tables to check it. */
uint32_t hs_topo_max_route_links(const hs_topo *t)
{
    uint32_t sw = 0;
    switch (t->kind) {
    case HS_TOPO_FATTREE: {
        const hs__fattree *ft = &t->u.ft;
        for (unsigned l = ft->h; l >= 1; l--)
            if (ft->m[l] > 1) {
                sw = 2 * (l - 1);
                break;
            }
        break;
    }
    case HS_TOPO_TORUS: {
        const hs__torus *tr = &t->u.tor;
        for (unsigned i = 0; i < tr->n; i++)
            sw += tr->wrap ? tr->k[i] / 2 : tr->k[i] - 1;
        break;
    }
    case HS_TOPO_DRAGONFLY: {
        const hs__dragonfly *d = &t->u.df;
        uint32_t L = d->a > 1;
        sw = d->g > 1 ? 2 * L + 1 : L;
        if (d->g > 2 && !hs_topo_table_determined(t))
            sw = 3 * L + 2;
        break;
    }
    case HS_TOPO_FILE:
        sw = t->u.file.maxhops;
        break;
    }
    return sw + 2;
}

const char *hs_topo_node_name(const hs_topo *t, uint32_t node, char *buf, size_t n)
{
    if (t->kind == HS_TOPO_FILE && node < t->nnodes)
        snprintf(buf, n, "%s", t->u.file.node_names[node]);
    else
        snprintf(buf, n, "n%u", node);
    return buf;
}

const char *hs_topo_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n)
{
    if (sw >= t->nswitches) {
        snprintf(buf, n, "?");
        return buf;
    }
    switch (t->kind) {
    case HS_TOPO_FATTREE: hs__fattree_switch_name(t, sw, buf, n); break;
    case HS_TOPO_DRAGONFLY: hs__dragonfly_switch_name(t, sw, buf, n); break;
    case HS_TOPO_TORUS: hs__torus_switch_name(t, sw, buf, n); break;
    case HS_TOPO_FILE: snprintf(buf, n, "%s", t->u.file.switch_names[sw]); break;
    }
    return buf;
}

unsigned hs_topo_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                           uint32_t *out, unsigned max)
{
    if (sw >= t->nswitches || dst >= t->nnodes || max == 0)
        return 0;
    if (t->node_sw[dst] == sw) {
        out[0] = hs_topo_node_ejection(t, dst);
        return 1;
    }
    switch (t->kind) {
    case HS_TOPO_FATTREE: return hs__fattree_route_set(t, sw, dst, out, max);
    case HS_TOPO_DRAGONFLY: return hs__dragonfly_route_set(t, sw, dst, out, max);
    case HS_TOPO_TORUS: return hs__torus_route_set(t, sw, dst, out, max);
    case HS_TOPO_FILE:
        out[0] = t->u.file.lft[(size_t)sw * t->nnodes + dst];
        return out[0] ? 1 : 0;
    }
    return 0;
}

/* ---- summary ------------------------------------------------------------- */

void hs__topo_bfs(const hs_topo *t, uint32_t src, uint32_t *dist, uint32_t *queue,
                  uint32_t *nq)
{
    uint32_t qh = *nq, qt = *nq;
    dist[src] = 0;
    queue[qt++] = src;
    while (qh < qt) {
        uint32_t s = queue[qh++];
        for (uint32_t p = t->port_off[s]; p < t->port_off[s + 1]; p++) {
            uint32_t l = t->port_out[p];
            if (l == HS_NO_LINK || t->links[l].to_kind != HS_DEV_SWITCH)
                continue;
            uint32_t d = t->links[l].to;
            if (dist[d] == UINT32_MAX) {
                dist[d] = dist[s] + 1;
                queue[qt++] = d;
            }
        }
    }
    *nq = qt;
}

/* Largest shortest-path distance between two switches that have nodes,
 * plus the injection and ejection links; one BFS per source switch, the
 * sources spread evenly over the switches with nodes. */
uint32_t hs__topo_diameter_bfs(const hs_topo *t, uint32_t max_src, int *exact, int *rc)
{
    uint32_t S = t->nswitches;
    *rc = 0;
    *exact = 1;
    uint32_t *dist = malloc((size_t)(S ? S : 1) * sizeof *dist);
    uint32_t *queue = malloc((size_t)(S ? S : 1) * sizeof *queue);
    uint32_t *with = malloc((size_t)(S ? S : 1) * sizeof *with);
    uint8_t *has_node = calloc(S ? S : 1, 1);
    if (!dist || !queue || !with || !has_node) {
        free(dist);
        free(queue);
        free(with);
        free(has_node);
        *rc = HS_ENOMEM;
        return 0;
    }
    for (uint32_t i = 0; i < t->nnodes; i++)
        has_node[t->node_sw[i]] = 1;
    uint32_t nw = 0;
    for (uint32_t i = 0; i < S; i++)
        if (has_node[i])
            with[nw++] = i;
    uint32_t nsrc = max_src && nw > max_src ? max_src : nw;
    *exact = nsrc == nw;
    uint32_t best = 0;
    int disconnected = 0;
    for (uint32_t k = 0; k < nsrc && !disconnected; k++) {
        uint32_t src = with[(uint64_t)k * nw / nsrc];
        for (uint32_t i = 0; i < S; i++)
            dist[i] = UINT32_MAX;
        uint32_t nq = 0;
        hs__topo_bfs(t, src, dist, queue, &nq);
        for (uint32_t i = 0; i < S; i++) {
            if (!has_node[i])
                continue;
            if (dist[i] == UINT32_MAX)
                disconnected = 1;
            else if (dist[i] > best)
                best = dist[i];
        }
    }
    free(dist);
    free(queue);
    free(with);
    free(has_node);
    return disconnected ? UINT32_MAX : best + 2;
}

int hs_topo_summarize(const hs_topo *t, hs_topo_summary *s)
{
    memset(s, 0, sizeof *s);
    s->nodes = t->nnodes;
    s->switches = t->nswitches;
    s->links = t->nlinks;
    /* every node has exactly one link each way (IDs 1..N and N+1..2N) */
    s->inj_links = s->ej_links = t->nnodes;
    s->sw_links = t->nlinks - 2 * t->nnodes;
    s->diameter_exact = 1;
    switch (t->kind) {
    case HS_TOPO_FATTREE:
        s->diameter = hs__fattree_diameter(t);
        hs__fattree_bisection(t, s);
        break;
    case HS_TOPO_DRAGONFLY:
        s->diameter = hs__dragonfly_diameter(t);
        hs__dragonfly_bisection(t, s);
        break;
    case HS_TOPO_TORUS:
        s->diameter = hs__torus_diameter(t);
        hs__torus_bisection(t, s);
        break;
    case HS_TOPO_FILE: {
        int rc;
        s->diameter = hs__topo_diameter_bfs(t, HS__DIAMETER_BFS_SOURCES, &s->diameter_exact,
                                            &rc);
        if (rc)
            return rc;
        hs__tfile_bisection(t, s);
        break;
    }
    }
    if (s->diameter_exact)
        snprintf(s->diameter_how, sizeof s->diameter_how, "%s",
                 t->kind == HS_TOPO_FILE ? "BFS from every switch with nodes"
                                         : "from the topology's parameters");
    else
        snprintf(s->diameter_how, sizeof s->diameter_how,
                 "lower bound: BFS from %u evenly spread switches with nodes",
                 HS__DIAMETER_BFS_SOURCES);
    return 0;
}

