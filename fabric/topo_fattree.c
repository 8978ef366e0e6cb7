/* Extended generalized fat-trees, XGFT(h; m_1..m_h; w_1..w_h) (Ohring et
 * al.; Zahavi's PGFT), and their D-mod-K / adaptive-up forwarding.
 *
 * Level 0 holds the nodes, levels 1..h the switches.  A level-l switch has
 * m_l children and w_{l+1} parents; a level-(l-1) element has w_l parents.
 * Tapering is fewer parents than children (w_{l+1} < m_l).  Nodes are
 * single-rail, so w_1 = 1.
 *
 * Labels: a node is the digit tuple (a_1..a_h), a_i < m_i, index
 * sum a_i * prod_{j<i} m_j.  A level-l switch is (b_1..b_l, a_{l+1}..a_h),
 * b_i < w_i, numbered within its level with b_1 least significant; levels
 * are numbered consecutively from level 1.  Switch (b_1..b_l, a_{l+1}..)
 * connects up to (b_1..b_l, b_{l+1}, a_{l+2}..) for every b_{l+1} < w_{l+1}.
 *
 * Ports of a level-l switch: 0..m_l-1 down (port = child digit a_l), then
 * m_l..m_l+w_{l+1}-1 up (port m_l + b_{l+1}).
 *
 * Cable order (link IDs after the 2N node links): for l = 1..h-1, for each
 * level-l switch in index order, for each up port in order: the up link,
 * then its down twin. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHAT "topology 'fattree'"
#define FT_MAX_NODES (1u << 24)

/* Parses "16x32x8" into v[1..]; returns the count or -1. */
static int parse_list(const char *s, uint32_t *v, unsigned max)
{
    unsigned n = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
        uint64_t u;
        if (n == max || hs_parse_u64(tok, &u) != 0 || u == 0 || u > 65535)
            return -1;
        v[++n] = (uint32_t)u;
    }
    /* "4xx4" or a trailing x leaves an empty token strtok skips: reject */
    size_t xs = 0;
    for (const char *p = s; *p; p++)
        xs += *p == 'x';
    if (n == 0 || xs != n - 1)
        return -1;
    return (int)n;
}

static void fmt_list(const uint32_t *v, unsigned h, char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (unsigned l = 1; l <= h && off < n; l++)
        off += (size_t)snprintf(buf + off, n - off, "%s%u", l > 1 ? "x" : "", v[l]);
}

unsigned hs__fattree_level(const hs__fattree *ft, uint32_t sw)
{
    unsigned l = 1;
    while (l < ft->h && sw >= ft->first[l + 1])
        l++;
    return l;
}

static inline uint64_t mprod(const hs__fattree *ft, unsigned l) { return ft->mp[l]; }
static inline uint64_t wprod(const hs__fattree *ft, unsigned l) { return ft->wp[l]; }

int hs__fattree_below(const hs__fattree *ft, uint32_t sw, uint32_t dst, uint32_t *down_port)
{
    unsigned l = hs__fattree_level(ft, sw);
    uint64_t sub = (sw - ft->first[l]) / wprod(ft, l);
    if (dst / mprod(ft, l) != sub)
        return 0;
    *down_port = (uint32_t)((dst / mprod(ft, l - 1)) % ft->m[l]);
    return 1;
}

uint32_t hs__fattree_dmodk_up(const hs__fattree *ft, unsigned level, uint32_t dst)
{
    return (uint32_t)((dst / wprod(ft, level)) % ft->w[level + 1]);
}

static int fattree_spec(hs_topo *t)
{
    const hs__fattree *ft = &t->u.ft;
    char bw[32], lat[32], nv[400];
    hs__fmt_rate_exact(t->bw, bw, sizeof bw);
    hs__fmt_time_exact(t->lat, lat, sizeof lat);
    hs__spec_nodes_vcs_fmt(t, nv, sizeof nv);
    if (ft->kary_k)
        return hs__topo_set_spec(t, "fattree:k=%u,n=%u,taper=%u,bw=%s,lat=%s%s,routing=%s",
                                 ft->kary_k, ft->kary_n, ft->taper, bw, lat, nv,
                                 hs_routing_name(t->routing));
    char dl[128], ul[128];
    fmt_list(ft->m, ft->h, dl, sizeof dl);
    fmt_list(ft->w, ft->h, ul, sizeof ul);
    return hs__topo_set_spec(t, "fattree:down=%s,up=%s,bw=%s,lat=%s%s,routing=%s", dl, ul,
                             bw, lat, nv, hs_routing_name(t->routing));
}

int hs__fattree_build(hs_topo *t, hs__spec *s, hs_error *err)
{
    hs__fattree *ft = &t->u.ft;
    memset(ft, 0, sizeof *ft);
    t->kind = HS_TOPO_FATTREE;
    const char *down = hs__spec_get(s, "down");
    const char *up = hs__spec_get(s, "up");
    uint32_t k = 0, n = 0, taper = 1;
    int rc;
    if ((rc = hs__spec_u32(s, "k", 1, 4096, &k, WHAT, err)) ||
        (rc = hs__spec_u32(s, "n", 1, HS_FT_MAXLEV, &n, WHAT, err)) ||
        (rc = hs__spec_u32(s, "taper", 1, 4096, &taper, WHAT, err)))
        return rc;
    if (down || up) {
        if (k || n || taper != 1)
            return hs_error_set(err, HS_EINVAL, "%s: give either k=,n=[,taper=] or down=,up=, "
                                "not both (express tapering in up=)", WHAT);
        if (!down || !up)
            return hs_error_set(err, HS_EINVAL, "%s: down= and up= go together, "
                                "e.g. down=16x32,up=1x16", WHAT);
        int hd = parse_list(down, ft->m, HS_FT_MAXLEV);
        int hu = parse_list(up, ft->w, HS_FT_MAXLEV);
        if (hd < 0)
            return hs_error_set(err, HS_EINVAL, "%s: down=%s: expected arities 1..65535 "
                                "separated by 'x', at most %d levels", WHAT, down, HS_FT_MAXLEV);
        if (hu < 0)
            return hs_error_set(err, HS_EINVAL, "%s: up=%s: expected arities 1..65535 "
                                "separated by 'x', at most %d levels", WHAT, up, HS_FT_MAXLEV);
        if (hd != hu)
            return hs_error_set(err, HS_EINVAL, "%s: down= has %d levels but up= has %d",
                                WHAT, hd, hu);
        ft->h = (unsigned)hd;
    } else {
        if (!k)
            k = 16;
        if (!n)
            n = 2;
        ft->kary_k = k;
        ft->kary_n = n;
        ft->taper = taper;
        ft->h = n;
        for (unsigned l = 1; l <= n; l++) {
            ft->m[l] = k;
            ft->w[l] = l == 1 ? 1 : k;
        }
        if (taper > 1) {
            if (n < 2)
                return hs_error_set(err, HS_EINVAL, "%s: taper needs n >= 2 (a single switch "
                                    "has no up-links)", WHAT);
            if (k % taper)
                return hs_error_set(err, HS_EINVAL, "%s: taper=%u must divide k=%u (the leaf "
                                    "switches get k/taper up-links)", WHAT, taper, k);
            ft->w[2] = k / taper;
        }
    }
    if (ft->w[1] != 1)
        return hs_error_set(err, HS_EINVAL, "%s: up= must start with 1: nodes are single-rail "
                            "(one injection link each)", WHAT);
    /* element counts per level, in 64 bits first to catch overflow */
    uint64_t N = 1;
    for (unsigned l = 1; l <= ft->h; l++) {
        N *= ft->m[l];
        if (N > FT_MAX_NODES)
            return hs_error_set(err, HS_ERANGE, "%s: more than %u nodes", WHAT, FT_MAX_NODES);
    }
    if (N < 2)
        return hs_error_set(err, HS_EINVAL, "%s: fewer than 2 nodes", WHAT);
    uint64_t nsw = 0, nlinks = 2 * N;
    ft->count[0] = (uint32_t)N;
    for (unsigned l = 1; l <= ft->h; l++) {
        uint64_t c = 1;
        for (unsigned j = l + 1; j <= ft->h; j++)
            c *= ft->m[j];
        for (unsigned j = 1; j <= l; j++) {
            c *= ft->w[j];
            if (c > FT_MAX_NODES)
                return hs_error_set(err, HS_ERANGE, "%s: more than %u switches at level %u",
                                    WHAT, FT_MAX_NODES, l);
        }
        ft->count[l] = (uint32_t)c;
        ft->first[l] = (uint32_t)nsw;
        nsw += c;
        if (l < ft->h)
            nlinks += 2 * c * ft->w[l + 1];
        if (nsw > FT_MAX_NODES || nlinks > (1ull << 31))
            return hs_error_set(err, HS_ERANGE, "%s: network too large", WHAT);
    }
    ft->first[ft->h + 1] = (uint32_t)nsw;
    ft->mp[0] = ft->wp[0] = 1;
    for (unsigned l = 1; l <= ft->h; l++) {
        ft->mp[l] = ft->mp[l - 1] * ft->m[l];
        ft->wp[l] = ft->wp[l - 1] * ft->w[l];
    }
    const char *r = hs__spec_get(s, "routing");
    t->routing = HS_ROUTE_DMODK;
    if (r) {
        if (strcmp(r, "dmodk") == 0)
            t->routing = HS_ROUTE_DMODK;
        else if (strcmp(r, "adaptive") == 0)
            t->routing = HS_ROUTE_ADAPTIVE;
        else
            return hs_error_set(err, HS_EINVAL, "%s: routing=%s: expected dmodk or adaptive",
                                WHAT, r);
    }
    if ((rc = hs__spec_link(s, "bw", "lat", &t->bw, &t->lat, WHAT, err)))
        return rc;
    /* up*-down* paths have no cyclic channel dependency: one VC class */
    if ((rc = hs__spec_nodes_vcs(s, t, 1, WHAT, err)))
        return rc;
    if (t->shallow) {
        t->nnodes = (uint32_t)N;
        t->nswitches = (uint32_t)nsw;
        t->nlinks = (uint32_t)nlinks;
        return fattree_spec(t);
    }

    uint32_t *nports = malloc(nsw * sizeof *nports);
    if (!nports)
        return HS_ENOMEM;
    for (unsigned l = 1; l <= ft->h; l++)
        for (uint32_t i = 0; i < ft->count[l]; i++)
            nports[ft->first[l] + i] = ft->m[l] + (l < ft->h ? ft->w[l + 1] : 0);
    rc = hs__topo_alloc(t, (uint32_t)N, (uint32_t)nsw, nports, (uint32_t)nlinks);
    free(nports);
    if (rc)
        return rc;
    for (uint32_t node = 0; node < N; node++)
        hs__topo_attach_node(t, node, ft->first[1] + node / ft->m[1], node % ft->m[1],
                             t->nbw, t->nlat);
    uint32_t next = 2 * (uint32_t)N + 1;
    hs_link_info fwd;
    memset(&fwd, 0, sizeof fwd);
    fwd.sub = HS_SUB_UP;
    fwd.bw = t->bw;
    fwd.lat = t->lat;
    for (unsigned l = 1; l < ft->h; l++) {
        uint64_t wp = wprod(ft, l);
        fwd.level = (uint8_t)l;
        for (uint32_t i = 0; i < ft->count[l]; i++) {
            uint64_t B = i % wp, R = i / wp;
            uint32_t a_next = (uint32_t)(R % ft->m[l + 1]);
            uint64_t R2 = R / ft->m[l + 1];
            for (uint32_t j = 0; j < ft->w[l + 1]; j++) {
                uint64_t parent = B + wp * (j + (uint64_t)ft->w[l + 1] * R2);
                hs__topo_cable(t, &next, ft->first[l] + i, ft->m[l] + j,
                               ft->first[l + 1] + (uint32_t)parent, a_next, &fwd);
            }
        }
    }
    return fattree_spec(t);
}

void hs__fattree_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n)
{
    unsigned l = hs__fattree_level(&t->u.ft, sw);
    snprintf(buf, n, "l%us%u", l, sw - t->u.ft.first[l]);
}

unsigned hs__fattree_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                               uint32_t *out, unsigned max)
{
    const hs__fattree *ft = &t->u.ft;
    uint32_t port;
    const uint32_t *po = t->port_out + t->port_off[sw];
    if (hs__fattree_below(ft, sw, dst, &port)) {
        out[0] = po[port];
        return 1;
    }
    unsigned l = hs__fattree_level(ft, sw);
    if (t->routing == HS_ROUTE_DMODK) {
        out[0] = po[ft->m[l] + hs__fattree_dmodk_up(ft, l, dst)];
        return 1;
    }
    unsigned n = 0;
    for (uint32_t j = 0; j < ft->w[l + 1] && n < max; j++)
        out[n++] = po[ft->m[l] + j];
    return n;
}

/* Balanced cut along top-level subtrees: every path between the halves
 * climbs every level, so the cut is the smallest level's up-links in one
 * half, min_l count[l] * w[l+1] / 2. */
void hs__fattree_bisection(const hs_topo *t, hs_topo_summary *s)
{
    const hs__fattree *ft = &t->u.ft;
    uint64_t best = UINT64_MAX;
    for (unsigned l = 0; l < ft->h; l++) {
        uint64_t e = (uint64_t)ft->count[l] * (l == 0 ? 1 : ft->w[l + 1]) / 2;
        if (l == 0)
            e = ft->count[0] / 2;
        if (e < best)
            best = e;
    }
    s->bisection_links = (uint32_t)best;
    s->bisection_bw = (double)best * (double)t->bw;
    s->bisection_exact = ft->h == 1 ? ft->count[0] % 2 == 0 : ft->m[ft->h] % 2 == 0;
    snprintf(s->bisection_how, sizeof s->bisection_how,
             "cut between halves of the top-level subtrees%s",
             s->bisection_exact ? "" : " (odd count: approximate)");
}

/* Two nodes whose lowest common subtree is at level l are 2l links apart
 * (up l, down l: the subtrees below l are disjoint).  Such pairs exist for
 * every level l whose switches have two or more children (m[l] >= 2), so
 * the diameter is twice the highest such level (2 for a single switch). */
uint32_t hs__fattree_diameter(const hs_topo *t)
{
    const hs__fattree *ft = &t->u.ft;
    unsigned top = 1;
    for (unsigned l = 1; l <= ft->h; l++)
        if (ft->m[l] >= 2)
            top = l;
    return 2 * top;
}
