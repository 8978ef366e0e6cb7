/* Dragonflies (Kim, Dally, Scott, Abts 2008): g groups of a routers, p
 * nodes per router, every router linked to every other router of its group
 * (local links) and to h routers of other groups (global links).
 *
 * Switch index G*a + r (router r of group G); node index R*p + i for node i
 * of router R.  Router ports: 0..p-1 nodes, p..p+a-2 local (port p + r2 for
 * r2 < r, p + r2 - 1 for r2 > r), p+a-1..p+a+h-2 global.
 *
 * Global arrangement ("consecutive"): group G's global port j (0..a*h-1,
 * on router j/h, its (j%h)-th global port) leads to group G + o (mod g),
 * o = j mod (g-1) + 1, and pairs with port (g-1-o) + (j div (g-1)) * (g-1)
 * of that group when that port exists (a*h not a multiple of g-1 leaves a
 * few ports unconnected).  With g = a*h + 1 every pair of groups has exactly
 * one global link; with fewer groups, several.
 *
 * Cable order: local cables group by group, (r, r2) for r < r2 in
 * lexicographic order; then global cables for G = 0..g-1, j = 0..a*h-1,
 * each cable once, from the lower group number. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHAT "topology 'dragonfly'"
#define DF_MAX_NODES (1u << 24)

void hs__dragonfly_free(hs__dragonfly *d)
{
    free(d->gdst);
    free(d->goff);
    free(d->gport);
    d->gdst = d->goff = d->gport = NULL;
}

/* Router (within its group) where global port j of group G lands. */
static uint32_t landing(const hs__dragonfly *d, uint32_t G, uint32_t j)
{
    (void)G;
    return hs__df_landing(d, j);
}

int64_t hs__dragonfly_gport(const hs__dragonfly *d, uint32_t G, uint32_t r, uint32_t X,
                            uint32_t Rd, uint32_t key)
{
    size_t i = (size_t)G * d->g + X;
    uint32_t lo = d->goff[i], n = d->goff[i + 1] - lo;
    if (n == 0)
        return -1;
    if (n == 1)
        return d->gport[lo];
    /* hops from router r to Rd over each candidate: local hop to its
     * owner (if not r), the global hop, local hop from where it lands */
    unsigned best = 4, ties = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = d->gport[lo + k];
        unsigned h = (j / d->h != r) + 1 +
                     (Rd != UINT32_MAX && X * d->a + landing(d, G, j) != Rd);
        if (h < best) {
            best = h;
            ties = 0;
        }
        ties += h == best;
    }
    uint32_t pick = key % ties;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = d->gport[lo + k];
        unsigned h = (j / d->h != r) + 1 +
                     (Rd != UINT32_MAX && X * d->a + landing(d, G, j) != Rd);
        if (h == best && pick-- == 0)
            return j;
    }
    return -1;
}

/* Partner group and port of global port j of group G, or 0 if unconnected. */
static int partner(const hs__dragonfly *d, uint32_t G, uint32_t j, uint32_t *G2, uint32_t *j2)
{
    if (d->g < 2)
        return 0;
    uint32_t o = j % (d->g - 1) + 1, m = j / (d->g - 1);
    uint64_t jj = (uint64_t)(d->g - 1 - o) + (uint64_t)m * (d->g - 1);
    if (jj >= (uint64_t)d->a * d->h)
        return 0;
    *G2 = (G + o) % d->g;
    *j2 = (uint32_t)jj;
    return 1;
}

static int dragonfly_spec(hs_topo *t)
{
    const hs__dragonfly *d = &t->u.df;
    char bw[32], lat[32], gbw[32], glat[32], nv[400];
    hs__fmt_rate_exact(t->bw, bw, sizeof bw);
    hs__fmt_time_exact(t->lat, lat, sizeof lat);
    hs__fmt_rate_exact(d->gbw, gbw, sizeof gbw);
    hs__fmt_time_exact(d->glat, glat, sizeof glat);
    hs__spec_nodes_vcs_fmt(t, nv, sizeof nv);
    return hs__topo_set_spec(t, "dragonfly:a=%u,p=%u,h=%u,g=%u,bw=%s,lat=%s,gbw=%s,glat=%s%s,"
                             "routing=%s", d->a, d->p, d->h, d->g, bw, lat, gbw, glat, nv,
                             hs_routing_name(t->routing));
}

int hs__dragonfly_build(hs_topo *t, hs__spec *s, hs_error *err)
{
    hs__dragonfly *d = &t->u.df;
    memset(d, 0, sizeof *d);
    t->kind = HS_TOPO_DRAGONFLY;
    d->a = 4;
    d->p = 2;
    d->h = 2;
    d->g = 9;
    int rc;
    if ((rc = hs__spec_u32(s, "a", 1, 4096, &d->a, WHAT, err)) ||
        (rc = hs__spec_u32(s, "p", 1, 4096, &d->p, WHAT, err)) ||
        (rc = hs__spec_u32(s, "h", 0, 4096, &d->h, WHAT, err)) ||
        (rc = hs__spec_u32(s, "g", 1, 1u << 20, &d->g, WHAT, err)))
        return rc;
    if (d->g > 1 && d->h == 0)
        return hs_error_set(err, HS_EINVAL, "%s: g=%u groups need h >= 1 global links per "
                            "router", WHAT, d->g);
    if ((uint64_t)d->g > (uint64_t)d->a * d->h + 1)
        return hs_error_set(err, HS_EINVAL, "%s: g=%u groups but only a*h=%u global links per "
                            "group: at most a*h+1 = %u groups can all be connected",
                            WHAT, d->g, d->a * d->h, d->a * d->h + 1);
    uint64_t R = (uint64_t)d->a * d->g, N = R * d->p;
    if (N > DF_MAX_NODES || R > DF_MAX_NODES)
        return hs_error_set(err, HS_ERANGE, "%s: more than %u nodes", WHAT, DF_MAX_NODES);
    if (N < 2)
        return hs_error_set(err, HS_EINVAL, "%s: fewer than 2 nodes", WHAT);
    t->routing = HS_ROUTE_MIN;
    const char *r = hs__spec_get(s, "routing");
    if (r) {
        if (strcmp(r, "min") == 0)
            t->routing = HS_ROUTE_MIN;
        else if (strcmp(r, "valiant") == 0 || strcmp(r, "val") == 0)
            t->routing = HS_ROUTE_VALIANT;
        else if (strcmp(r, "ugal") == 0 || strcmp(r, "ugal-l") == 0)
            t->routing = HS_ROUTE_UGAL;
        else if (strcmp(r, "ugal-g") == 0)
            t->routing = HS_ROUTE_UGAL_G;
        else
            return hs_error_set(err, HS_EINVAL, "%s: routing=%s: expected min, valiant, ugal "
                                "(UGAL-L) or ugal-g", WHAT, r);
    }
    if ((rc = hs__spec_link(s, "bw", "lat", &t->bw, &t->lat, WHAT, err)))
        return rc;
    d->gbw = t->bw;
    d->glat = HS_DEFAULT_GLAT;
    if ((rc = hs__spec_link(s, "gbw", "glat", &d->gbw, &d->glat, WHAT, err)))
        return rc;
    /* VC = global hops taken so far: local-global-local needs 2 classes,
     * Valiant's local-global-local-global-local needs 3. */
    if ((rc = hs__spec_nodes_vcs(s, t, t->routing == HS_ROUTE_MIN ? 2 : 3, WHAT, err)))
        return rc;

    uint32_t ah = d->a * d->h;
    d->gdst = malloc(((size_t)d->g * ah + 1) * sizeof *d->gdst);
    d->goff = calloc((size_t)d->g * d->g + 1, sizeof *d->goff);
    d->gport = malloc(((size_t)d->g * ah + 1) * sizeof *d->gport);
    if (!d->gdst || !d->goff || !d->gport)
        return HS_ENOMEM;
    uint64_t nglobal = 0;
    for (uint32_t G = 0; G < d->g; G++)
        for (uint32_t j = 0; j < ah; j++) {
            uint32_t G2, j2;
            if (partner(d, G, j, &G2, &j2)) {
                d->gdst[(size_t)G * ah + j] = G2;
                d->goff[(size_t)G * d->g + G2 + 1]++;
                nglobal++;
            } else {
                d->gdst[(size_t)G * ah + j] = UINT32_MAX;
            }
        }
    for (size_t i = 0; i < (size_t)d->g * d->g; i++)
        d->goff[i + 1] += d->goff[i];
    {
        uint32_t *fill = calloc((size_t)d->g * d->g, sizeof *fill);
        if (!fill)
            return HS_ENOMEM;
        for (uint32_t G = 0; G < d->g; G++)
            for (uint32_t j = 0; j < ah; j++) {
                uint32_t G2 = d->gdst[(size_t)G * ah + j];
                if (G2 == UINT32_MAX)
                    continue;
                size_t i = (size_t)G * d->g + G2;
                d->gport[d->goff[i] + fill[i]++] = j;
            }
        free(fill);
    }
    for (uint32_t G = 0; G < d->g; G++)
        for (uint32_t X = 0; X < d->g; X++)
            if (X != G && d->goff[(size_t)G * d->g + X + 1] == d->goff[(size_t)G * d->g + X])
                return hs_error_set(err, HS_EINVAL, "%s: groups %u and %u are not connected "
                                    "(a*h=%u global ports for g-1=%u other groups)",
                                    WHAT, G, X, ah, d->g - 1);
    uint64_t nlocal = (uint64_t)d->g * d->a * (d->a - 1) / 2;
    uint64_t nlinks = 2 * N + 2 * nlocal + nglobal;  /* nglobal counts both ends */
    if (nlinks > (1ull << 31))
        return hs_error_set(err, HS_ERANGE, "%s: network too large", WHAT);
    if (t->shallow) {
        t->nnodes = (uint32_t)N;
        t->nswitches = (uint32_t)R;
        t->nlinks = (uint32_t)nlinks;
        return dragonfly_spec(t);
    }
    uint32_t *nports = malloc(R * sizeof *nports);
    if (!nports)
        return HS_ENOMEM;
    for (uint64_t i = 0; i < R; i++)
        nports[i] = d->p + d->a - 1 + d->h;
    rc = hs__topo_alloc(t, (uint32_t)N, (uint32_t)R, nports, (uint32_t)nlinks);
    free(nports);
    if (rc)
        return rc;
    for (uint32_t n = 0; n < N; n++)
        hs__topo_attach_node(t, n, n / d->p, n % d->p, t->nbw, t->nlat);
    uint32_t next = 2 * (uint32_t)N + 1;
    hs_link_info fwd;
    memset(&fwd, 0, sizeof fwd);
    fwd.sub = HS_SUB_LOCAL;
    fwd.bw = t->bw;
    fwd.lat = t->lat;
    for (uint32_t G = 0; G < d->g; G++)
        for (uint32_t r1 = 0; r1 < d->a; r1++)
            for (uint32_t r2 = r1 + 1; r2 < d->a; r2++)
                hs__topo_cable(t, &next, G * d->a + r1, hs__df_local_port(d, r1, r2),
                               G * d->a + r2, hs__df_local_port(d, r2, r1), &fwd);
    fwd.sub = HS_SUB_GLOBAL;
    fwd.bw = d->gbw;
    fwd.lat = d->glat;
    for (uint32_t G = 0; G < d->g; G++)
        for (uint32_t j = 0; j < ah; j++) {
            uint32_t G2, j2;
            if (!partner(d, G, j, &G2, &j2) || G2 < G)
                continue;
            hs__topo_cable(t, &next, G * d->a + j / d->h, hs__df_global_port(d, j),
                           G2 * d->a + j2 / d->h, hs__df_global_port(d, j2), &fwd);
        }
    if (next != nlinks + 1)
        return hs_error_set(err, HS_EINVAL, "internal: dragonfly built %u links, expected %llu",
                            next - 1, (unsigned long long)nlinks);
    return dragonfly_spec(t);
}

void hs__dragonfly_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n)
{
    snprintf(buf, n, "g%ur%u", sw / t->u.df.a, sw % t->u.df.a);
}

unsigned hs__dragonfly_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                                 uint32_t *out, unsigned max)
{
    (void)max;
    const hs__dragonfly *d = &t->u.df;
    const uint32_t *po = t->port_out + t->port_off[sw];
    uint32_t G = sw / d->a, r = sw % d->a;
    uint32_t Rd = dst / d->p, Gd = Rd / d->a, rd = Rd % d->a;
    if (G == Gd) {
        out[0] = po[hs__df_local_port(d, r, rd)];
        return 1;
    }
    int64_t j = hs__dragonfly_gport(d, G, r, Gd, Rd, dst);
    if (j < 0)
        return 0;
    uint32_t owner = (uint32_t)j / d->h;
    out[0] = owner == r ? po[hs__df_global_port(d, (uint32_t)j)]
                        : po[hs__df_local_port(d, r, owner)];
    return 1;
}

/* Cut between the first floor(g/2) groups and the rest: the global links
 * crossing it one way (for g = 1, the local links between router halves). */
void hs__dragonfly_bisection(const hs_topo *t, hs_topo_summary *s)
{
    const hs__dragonfly *d = &t->u.df;
    uint64_t links = 0;
    double bw = 0;
    if (d->g == 1) {
        uint32_t half = d->a / 2;
        links = (uint64_t)half * (d->a - half);
        bw = (double)links * (double)t->bw;
        snprintf(s->bisection_how, sizeof s->bisection_how,
                 "cut between the halves of the group's routers");
    } else {
        uint32_t half = d->g / 2, ah = d->a * d->h;
        for (uint32_t G = 0; G < half; G++)
            for (uint32_t j = 0; j < ah; j++) {
                uint32_t G2 = d->gdst[(size_t)G * ah + j];
                if (G2 != UINT32_MAX && G2 >= half)
                    links++;
            }
        bw = (double)links * (double)d->gbw;
        snprintf(s->bisection_how, sizeof s->bisection_how,
                 "cut between groups 0..%u and %u..%u (global links)", half - 1, half, d->g - 1);
    }
    s->bisection_links = (uint32_t)links;
    s->bisection_bw = bw;
    s->bisection_exact = 0;
}

/* Routers of one group are fully connected (1 hop, 0 for a = 1).  Between
 * groups G and X (always connected: the builder refuses otherwise), router
 * r of G and r' of X are 1 hop apart when a global cable joins them, 2 when
 * r owns a cable to X or r' one to G (global, then local), else 3.  So a
 * pair of groups reaches 3 when both have a router owning no cable to the
 * other, else 2 unless every router pair is cabled directly.  Global port
 * j of a group belongs to router j / h. */
uint32_t hs__dragonfly_diameter(const hs_topo *t)
{
    const hs__dragonfly *d = &t->u.df;
    uint32_t best = d->a > 1 ? 1 : 0;
    if (d->g < 2)
        return best + 2;
    uint32_t *mark = calloc(d->a, sizeof *mark);
    uint32_t *pairs = malloc(((size_t)d->a * d->h + 1) * sizeof *pairs);
    uint32_t stamp = 0;
    if (!mark || !pairs)
        best = 3;   /* out of memory: the bound that holds for connected groups */
    for (uint32_t G = 0; G < d->g && best < 3; G++)
        for (uint32_t X = G + 1; X < d->g && best < 3; X++) {
            uint32_t owners[2] = { 0, 0 };
            size_t np = 0;
            for (int side = 0; side < 2; side++) {
                uint32_t A = side ? X : G, B = side ? G : X;
                size_t i = (size_t)A * d->g + B;
                stamp++;
                for (uint32_t q = d->goff[i]; q < d->goff[i + 1]; q++) {
                    uint32_t j = d->gport[q], r = j / d->h;
                    if (mark[r] != stamp) {
                        mark[r] = stamp;
                        owners[side]++;
                    }
                    uint32_t G2, j2;
                    if (!side && partner(d, A, j, &G2, &j2))
                        pairs[np++] = r * d->a + j2 / d->h;
                }
            }
            uint32_t dist;
            if (owners[0] < d->a && owners[1] < d->a) {
                dist = 3;
            } else {
                /* distinct router pairs joined directly */
                for (size_t i = 1; i < np; i++)
                    for (size_t k = i; k > 0 && pairs[k - 1] > pairs[k]; k--) {
                        uint32_t x = pairs[k];
                        pairs[k] = pairs[k - 1];
                        pairs[k - 1] = x;
                    }
                size_t distinct = np ? 1 : 0;
                for (size_t i = 1; i < np; i++)
                    distinct += pairs[i] != pairs[i - 1];
                dist = distinct == (size_t)d->a * d->a ? 1 : 2;
            }
            if (dist > best)
                best = dist;
        }
    free(mark);
    free(pairs);
    return best + 2;
}
