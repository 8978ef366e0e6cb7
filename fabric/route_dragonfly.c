/* Dragonfly routing in the engine.
 *
 * Minimal: local hop to the router owning a global link to the destination
 * group (the link chosen by destination node mod the number of parallel
 * links, as in the forwarding tables), the global hop, a local hop to the
 * destination router.  Valiant: minimal to a random intermediate group (not
 * the source's or the destination's), then minimal to the destination.
 * Both UGALs decide once, at the source router, between the minimal path
 * and one Valiant candidate drawn at random, with a bias T towards minimal
 * (hs_fabric_params.ugal_threshold, by default 4 full packets):
 *   UGAL-L (Singh; Kim et al. 2008), local knowledge: minimal unless
 *     q_min * H_min > q_val * H_val + T,
 *     q the occupancy of the path's first-hop output here (bytes waiting
 *     here for it plus bytes held in the buffer at its far end, all VCs),
 *     H the switch-to-switch hop count of the path: the queue a packet
 *     meets at each hop is estimated by the one it sees first;
 *   UGAL-G, global knowledge (the upper reference no router can build):
 *     minimal unless  sum over the minimal path's links of q
 *                   > sum over the Valiant path's links of q + T.
 * The bias is what keeps a lightly loaded network minimal: with T = 0 one
 * packet in flight on the minimal first hop (q_min = a packet, q_val = 0)
 * already sends the next one the long way, which at load 0.1 costs more
 * latency than the queue it avoids (docs/topology.md has the numbers).
 *
 * VCs: class = the number of global hops taken so far, on local and global
 * links alike: 0 1 (minimal) or 0 1 2 (Valiant); the class never decreases
 * along a path and each holds only local-then-global dependencies, so
 * there is no cycle.  With vcs=N each class has N/classes VCs and a packet
 * keeps its lane (vcsel=). */
#include "engine.h"

/* First-hop output from router (G, r) towards group X and the hop count to
 * the router where the packet enters X (*entry, a switch index, found from
 * the arrangement rather than the link table, one cache miss less; entry
 * NULL: not wanted). */
static uint32_t towards(const hs_fabric *F, uint32_t G, uint32_t r, uint32_t X, uint32_t Rd,
                        uint32_t key, unsigned *hops, uint32_t *entry)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    uint32_t j = (uint32_t)hs__dragonfly_gport(d, G, r, X, Rd, key);
    uint32_t owner = j / d->h;
    uint32_t gl = t->port_out[t->port_off[G * d->a + owner] + hs__df_global_port(d, j)];
    if (entry)
        *entry = X * d->a + hs__df_landing(d, j);   /* = F->lk[gl].to */
    if (owner == r) {
        *hops = 1;
        return gl;
    }
    *hops = 2;
    return t->port_out[t->port_off[G * d->a + r] + hs__df_local_port(d, r, owner)];
}

/* Appends to path[] the switch-to-switch links from router (G, r) into
 * group X (a local hop to the owner of the global link, if not r, and the
 * global link); returns the switch where it enters X. */
static uint32_t segment(const hs_fabric *F, uint32_t G, uint32_t r, uint32_t X, uint32_t Rd,
                        uint32_t key, uint32_t *path, unsigned *n)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    uint32_t j = (uint32_t)hs__dragonfly_gport(d, G, r, X, Rd, key);
    uint32_t owner = j / d->h;
    if (owner != r)
        path[(*n)++] = t->port_out[t->port_off[G * d->a + r] + hs__df_local_port(d, r, owner)];
    uint32_t gl = t->port_out[t->port_off[G * d->a + owner] + hs__df_global_port(d, j)];
    path[(*n)++] = gl;
    return X * d->a + hs__df_landing(d, j);   /* = F->lk[gl].to */
}

/* The local hop from switch e to router Rd of the same group, if any. */
static void last_hop(const hs_fabric *F, uint32_t e, uint32_t Rd, uint32_t *path, unsigned *n)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    if (e != Rd)
        path[(*n)++] = t->port_out[t->port_off[e] + hs__df_local_port(d, e % d->a, Rd % d->a)];
}

static uint64_t path_occupancy(hs_fabric *F, const uint32_t *path, unsigned n)
{
    uint64_t q = 0;
    for (unsigned i = 0; i < n; i++)
        q += hs__occupancy(F, path[i]);
    return q;
}

/* The Valiant group of packet p: a function of the seed and the packet's
 * key alone, not a draw from a stream shared by all switches, so that it
 * does not depend on the order in which switches route (nor on how they
 * are split over processes in a parallel run, docs/fabric.md). */
static uint32_t pick_intermediate(const hs_fabric *F, const hs__pkt *p, uint32_t G, uint32_t Gd)
{
    uint32_t g = F->topo->u.df.g;
    uint64_t z = F->rng[0] ^ (p->key + 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    uint32_t x = (uint32_t)(((unsigned __int128)z * (g - 2)) >> 64);
    uint32_t lo = G < Gd ? G : Gd, hi = G < Gd ? Gd : G;
    if (x >= lo)
        x++;
    if (x >= hi)
        x++;
    return x;
}

/* The output hs__route_dragonfly will choose, without its effects; where
 * it chooses between a minimal and a Valiant path (UGAL), the minimal
 * first hop, and the Valiant one in *alt (else HS_NIL): for prefetching. */
uint32_t hs__route_dragonfly_guess(const hs_fabric *F, uint32_t sw, const hs__pkt *p,
                                   uint32_t *alt)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    uint32_t a = d->a;
    uint32_t G = sw / a, r = sw % a;
    uint32_t Rd = p->dst / d->p, Gd = Rd / a, rd = Rd % a;
    unsigned hops;
    *alt = HS_NIL;
    if (G != Gd && d->g > 2 && (F->op[p->in].lf & LF_INJECTION) &&
        t->routing != HS_ROUTE_MIN) {
        uint32_t I = pick_intermediate(F, p, G, Gd);
        uint32_t ov = towards(F, G, r, I, HS_NIL, p->dst, &hops, NULL);
        if (t->routing == HS_ROUTE_VALIANT)
            return ov;
        *alt = ov;
        return towards(F, G, r, Gd, Rd, p->dst, &hops, NULL);
    }
    uint32_t T = p->inter != HS_NIL && p->inter != G ? p->inter : Gd;
    if (G == T)
        return t->port_out[t->port_off[sw] + hs__df_local_port(d, r, rd)];
    return towards(F, G, r, T, T == Gd ? Rd : HS_NIL, p->dst, &hops, NULL);
}

void hs__route_dragonfly(hs_fabric *F, uint32_t sw, hs__pkt *p)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    uint32_t a = d->a;
    uint32_t G = sw / a, r = sw % a;
    uint32_t Rd = p->dst / d->p, Gd = Rd / a, rd = Rd % a;
    const uint32_t *po = t->port_out + t->port_off[sw];
    if (G != Gd && d->g > 2 && (F->op[p->in].lf & LF_INJECTION)) {
        if (t->routing == HS_ROUTE_VALIANT) {
            p->inter = pick_intermediate(F, p, G, Gd);
        } else if (t->routing == HS_ROUTE_UGAL) {
            uint32_t I = pick_intermediate(F, p, G, Gd);
            unsigned h1, h2, h3;
            uint32_t e1, e2, e3;
            uint32_t omin = towards(F, G, r, Gd, Rd, p->dst, &h1, &e1);
            uint64_t hmin = h1 + (e1 != Rd);
            uint32_t oval = towards(F, G, r, I, HS_NIL, p->dst, &h2, &e2);
            towards(F, I, e2 % a, Gd, Rd, p->dst, &h3, &e3);
            uint64_t hval = h2 + h3 + (e3 != Rd);
            uint64_t qmin = hs__occupancy(F, omin), qval = hs__occupancy(F, oval);
            if (qmin * hmin > qval * hval + F->ugal_t)
                p->inter = I;
        } else if (t->routing == HS_ROUTE_UGAL_G) {
            uint32_t I = pick_intermediate(F, p, G, Gd);
            uint32_t pm[3], pv[6];
            unsigned nm = 0, nv = 0;
            last_hop(F, segment(F, G, r, Gd, Rd, p->dst, pm, &nm), Rd, pm, &nm);
            uint32_t e2 = segment(F, G, r, I, HS_NIL, p->dst, pv, &nv);
            last_hop(F, segment(F, I, e2 % a, Gd, Rd, p->dst, pv, &nv), Rd, pv, &nv);
            if (path_occupancy(F, pm, nm) > path_occupancy(F, pv, nv) + F->ugal_t)
                p->inter = I;
        }
        if (p->inter != HS_NIL)
            F->st.nonminimal++;
    }
    if (p->inter == G)
        p->inter = HS_NIL;  /* reached the intermediate group */
    uint32_t T = p->inter != HS_NIL ? p->inter : Gd;
    p->out_vc = hs__vc(F, p, p->ng);
    if (G == T) {
        p->out = po[hs__df_local_port(d, r, rd)];
        return;
    }
    unsigned hops;
    p->out = towards(F, G, r, T, T == Gd ? Rd : HS_NIL, p->dst, &hops, NULL);
}
