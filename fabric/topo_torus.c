/* n-dimensional tori and meshes with p nodes per switch.
 *
 * Switch index sum c_i * stride_i, dimension 0 varying fastest.  Ports:
 * 0..p-1 nodes, then for each dimension i port p+2i towards +1 and p+2i+1
 * towards -1 (unused where there is no neighbour).  A dimension of size 2
 * has a single cable (no separate wrap-around); size 1 has none.
 *
 * Cable order: for each switch in index order, for each dimension, the
 * cable to its +1 neighbour (the wrap-around cable k-1 -> 0 at the last
 * coordinate of a torus dimension), +1 direction first.
 *
 * Routing is dimension order (lowest dimension first), the shorter way
 * round, +1 on a tie.  Deadlock freedom on the rings uses the dateline:
 * a packet travels on VC 0 in a dimension until it takes that dimension's
 * wrap-around link, and on VC 1 from that link on; it returns to VC 0 when
 * it turns into the next dimension.  No VC-0 packet uses a wrap link and no
 * VC-1 packet crosses one again (paths are shorter than the ring), so both
 * VC classes are acyclic. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SWITCHES (1u << 24)

static int torus_spec(hs_topo *t)
{
    const hs__torus *tr = &t->u.tor;
    char dl[160], bw[32], lat[32], nv[400];
    size_t off = 0;
    for (unsigned i = 0; i < tr->n; i++)
        off += (size_t)snprintf(dl + off, sizeof dl - off, "%s%u", i ? "x" : "", tr->k[i]);
    hs__fmt_rate_exact(t->bw, bw, sizeof bw);
    hs__fmt_time_exact(t->lat, lat, sizeof lat);
    hs__spec_nodes_vcs_fmt(t, nv, sizeof nv);
    return hs__topo_set_spec(t, "%s:%s,p=%u,bw=%s,lat=%s%s,routing=dor",
                             tr->wrap ? "torus" : "mesh", dl, tr->p, bw, lat, nv);
}

int hs__torus_build(hs_topo *t, hs__spec *s, int wrap, hs_error *err)
{
    const char *what = wrap ? "topology 'torus'" : "topology 'mesh'";
    hs__torus *tr = &t->u.tor;
    memset(tr, 0, sizeof *tr);
    t->kind = HS_TOPO_TORUS;
    tr->wrap = wrap;
    tr->p = 1;
    const char *dims = NULL;
    for (unsigned i = 0; i < s->n; i++)
        if (!s->kv[i].val) {
            if (dims)
                return hs_error_set(err, HS_EINVAL, "%s: two dimension lists ('%s', '%s')",
                                    what, dims, s->kv[i].key);
            dims = s->kv[i].key;
            s->used |= 1u << i;
        }
    if (!dims)
        dims = hs__spec_get(s, "dims");
    if (!dims)
        return hs_error_set(err, HS_EINVAL, "%s: give the dimensions, e.g. %s:4x4x4", what,
                            wrap ? "torus" : "mesh");
    {
        char buf[256];
        if (strlen(dims) >= sizeof buf)
            return hs_error_set(err, HS_EINVAL, "%s: dimensions too long", what);
        strcpy(buf, dims);
        size_t xs = 0;
        for (const char *p = dims; *p; p++)
            xs += *p == 'x';
        char *save = NULL;
        for (char *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
            uint64_t u;
            if (tr->n == HS_TORUS_MAXDIM)
                return hs_error_set(err, HS_EINVAL, "%s: at most %d dimensions", what,
                                    HS_TORUS_MAXDIM);
            if (hs_parse_u64(tok, &u) != 0 || u == 0 || u > 65535)
                return hs_error_set(err, HS_EINVAL, "%s: dimension '%s': expected 1..65535",
                                    what, tok);
            tr->k[tr->n++] = (uint32_t)u;
        }
        if (tr->n == 0 || xs != tr->n - 1)
            return hs_error_set(err, HS_EINVAL, "%s: '%s': expected sizes separated by 'x', "
                                "e.g. 4x4x4", what, dims);
    }
    int rc;
    if ((rc = hs__spec_u32(s, "p", 1, 4096, &tr->p, what, err)))
        return rc;
    const char *r = hs__spec_get(s, "routing");
    if (r && strcmp(r, "dor") != 0)
        return hs_error_set(err, HS_EINVAL, "%s: routing=%s: only dor (dimension order)", what, r);
    t->routing = HS_ROUTE_DOR;
    if ((rc = hs__spec_link(s, "bw", "lat", &t->bw, &t->lat, what, err)))
        return rc;
    uint64_t S = 1;
    for (unsigned i = 0; i < tr->n; i++) {
        tr->stride[i] = (uint32_t)S;
        S *= tr->k[i];
        if (S > MAX_SWITCHES)
            return hs_error_set(err, HS_ERANGE, "%s: more than %u switches", what, MAX_SWITCHES);
    }
    uint64_t N = S * tr->p;
    if (N > MAX_SWITCHES || N < 2)
        return hs_error_set(err, HS_ERANGE, "%s: %llu nodes (need 2..%u)", what,
                            (unsigned long long)N, MAX_SWITCHES);
    uint64_t nlinks = 2 * N;
    unsigned classes = 1;
    for (unsigned i = 0; i < tr->n; i++) {
        uint64_t per_ring = tr->k[i] - 1 + (wrap && tr->k[i] > 2 ? 1 : 0);
        nlinks += 2 * (S / tr->k[i]) * per_ring;
        if (wrap && tr->k[i] > 2)
            classes = 2;   /* the dateline */
    }
    if ((rc = hs__spec_nodes_vcs(s, t, classes, what, err)))
        return rc;
    if (t->shallow) {
        t->nnodes = (uint32_t)N;
        t->nswitches = (uint32_t)S;
        t->nlinks = (uint32_t)nlinks;
        return torus_spec(t);
    }
    uint32_t *nports = malloc(S * sizeof *nports);
    if (!nports)
        return HS_ENOMEM;
    for (uint64_t i = 0; i < S; i++)
        nports[i] = tr->p + 2 * tr->n;
    rc = hs__topo_alloc(t, (uint32_t)N, (uint32_t)S, nports, (uint32_t)nlinks);
    free(nports);
    if (rc)
        return rc;
    for (uint32_t n = 0; n < N; n++)
        hs__topo_attach_node(t, n, n / tr->p, n % tr->p, t->nbw, t->nlat);
    uint32_t next = 2 * (uint32_t)N + 1;
    hs_link_info fwd;
    memset(&fwd, 0, sizeof fwd);
    fwd.sub = HS_SUB_TORUS;
    fwd.bw = t->bw;
    fwd.lat = t->lat;
    fwd.dir = 1;
    for (uint32_t sw = 0; sw < S; sw++)
        for (unsigned i = 0; i < tr->n; i++) {
            uint32_t c = hs__torus_coord(tr, sw, i);
            fwd.dim = (uint8_t)i;
            if (c + 1 < tr->k[i]) {
                fwd.wrap = 0;
                hs__topo_cable(t, &next, sw, hs__torus_port(tr, i, 1), sw + tr->stride[i],
                               hs__torus_port(tr, i, -1), &fwd);
            } else if (wrap && tr->k[i] > 2) {
                fwd.wrap = 1;
                hs__topo_cable(t, &next, sw, hs__torus_port(tr, i, 1), sw - c * tr->stride[i],
                               hs__torus_port(tr, i, -1), &fwd);
            }
        }
    return torus_spec(t);
}

void hs__torus_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n)
{
    const hs__torus *tr = &t->u.tor;
    size_t off = (size_t)snprintf(buf, n, "s");
    for (unsigned i = 0; i < tr->n && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%u", i ? "." : "",
                                hs__torus_coord(tr, sw, i));
}

/* Direction (+1/-1) dimension-order routing takes in dimension i from
 * coordinate c to d (c != d). */
static int dor_dir(const hs__torus *tr, unsigned i, uint32_t c, uint32_t d)
{
    uint32_t k = tr->k[i];
    if (!tr->wrap || k <= 2)
        return d > c ? 1 : -1;
    uint32_t fwd = (d + k - c) % k;
    return fwd <= k - fwd ? 1 : -1;
}

unsigned hs__torus_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                             uint32_t *out, unsigned max)
{
    (void)max;
    const hs__torus *tr = &t->u.tor;
    uint32_t dsw = t->node_sw[dst];
    for (unsigned i = 0; i < tr->n; i++) {
        uint32_t c = hs__torus_coord(tr, sw, i), d = hs__torus_coord(tr, dsw, i);
        if (c != d) {
            out[0] = t->port_out[t->port_off[sw] + hs__torus_port(tr, i, dor_dir(tr, i, c, d))];
            return 1;
        }
    }
    return 0;
}

/* Cut through the middle of the largest dimension (lowest on a tie):
 * coordinates below k/2 on one side.  Each of the S/k lines along that
 * dimension crosses it once, and a ring of more than two switches a second
 * time through its wrap-around cable; every torus link has the same rate. */
void hs__torus_bisection(const hs_topo *t, hs_topo_summary *s)
{
    const hs__torus *tr = &t->u.tor;
    unsigned dmax = 0;
    for (unsigned i = 1; i < tr->n; i++)
        if (tr->k[i] > tr->k[dmax])
            dmax = i;
    uint32_t k = tr->k[dmax];
    if (k == 1) {
        s->bisection_links = t->nnodes / 2;
        s->bisection_bw = (double)s->bisection_links * (double)t->bw;
        s->bisection_exact = t->nnodes % 2 == 0;
        snprintf(s->bisection_how, sizeof s->bisection_how, "cut between halves of the nodes");
        return;
    }
    uint64_t lines = (uint64_t)t->nswitches / k;
    uint64_t links = lines * (tr->wrap && k > 2 ? 2 : 1);
    s->bisection_links = (uint32_t)links;
    s->bisection_bw = (double)links * (double)t->bw;
    s->bisection_exact = k % 2 == 0;
    snprintf(s->bisection_how, sizeof s->bisection_how,
             "cut through the middle of dimension %u%s", dmax,
             k % 2 ? " (odd size: unbalanced)" : "");
}

/* Shortest paths go each dimension's shorter way independently: the
 * farthest switches differ by k/2 (ring) or k-1 (line) in every one. */
uint32_t hs__torus_diameter(const hs_topo *t)
{
    const hs__torus *tr = &t->u.tor;
    uint32_t d = 0;
    for (unsigned i = 0; i < tr->n; i++)
        d += tr->wrap ? tr->k[i] / 2 : tr->k[i] - 1;
    return d + 2;
}
