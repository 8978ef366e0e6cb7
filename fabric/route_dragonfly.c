/* Dragonfly routing in the engine.
 *
 * Minimal: local hop to the router owning a global link to the destination
 * group (the link chosen by destination node mod the number of parallel
 * links, as in the forwarding tables), the global hop, a local hop to the
 * destination router.  Valiant: minimal to a random intermediate group (not
 * the source's or the destination's), then minimal to the destination.
 * UGAL-L: at the source router, the minimal first hop unless
 *     q_min * H_min > q_val * H_val + threshold,
 * with q the occupancy of the first-hop output (bytes waiting here for it
 * plus bytes in the buffer at its far end) and H the switch-to-switch hop
 * counts of the two paths; the Valiant candidate is drawn at random.
 *
 * VCs: the number of global hops taken so far, on local and global links
 * alike: 0 1 (minimal) or 0 1 2 (Valiant); the VC never decreases along a
 * path and each class has at most local-then-global dependencies, so there
 * is no cycle. */
#include "engine.h"

/* First-hop output from router (G, r) towards group X and the hop count to
 * the router where the packet enters X (*entry, a switch index). */
static uint32_t towards(const hs_fabric *F, uint32_t G, uint32_t r, uint32_t X, uint32_t Rd,
                        uint32_t key, unsigned *hops, uint32_t *entry)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    uint32_t j = (uint32_t)hs__dragonfly_gport(d, G, r, X, Rd, key);
    uint32_t owner = j / d->h;
    uint32_t gl = t->port_out[t->port_off[G * d->a + owner] + hs__df_global_port(d, j)];
    *entry = F->lk[gl].to;
    if (owner == r) {
        *hops = 1;
        return gl;
    }
    *hops = 2;
    return t->port_out[t->port_off[G * d->a + r] + hs__df_local_port(d, r, owner)];
}

static uint32_t pick_intermediate(hs_fabric *F, uint32_t G, uint32_t Gd)
{
    uint32_t g = F->topo->u.df.g;
    uint32_t x = (uint32_t)(hs__rand(F) % (g - 2));
    uint32_t lo = G < Gd ? G : Gd, hi = G < Gd ? Gd : G;
    if (x >= lo)
        x++;
    if (x >= hi)
        x++;
    return x;
}

void hs__route_dragonfly(hs_fabric *F, uint32_t sw, hs__pkt *p)
{
    const hs_topo *t = F->topo;
    const hs__dragonfly *d = &t->u.df;
    uint32_t a = d->a;
    uint32_t G = sw / a, r = sw % a;
    uint32_t Rd = p->dst / d->p, Gd = Rd / a, rd = Rd % a;
    const uint32_t *po = t->port_out + t->port_off[sw];
    if (G != Gd && d->g > 2 && F->lk[p->in].kind == HS_LINK_INJECTION) {
        if (t->routing == HS_ROUTE_VALIANT) {
            p->inter = pick_intermediate(F, G, Gd);
        } else if (t->routing == HS_ROUTE_UGAL) {
            uint32_t I = pick_intermediate(F, G, Gd);
            unsigned h1, h2, h3;
            uint32_t e1, e2, e3;
            uint32_t omin = towards(F, G, r, Gd, Rd, p->dst, &h1, &e1);
            uint64_t hmin = h1 + (e1 != Rd);
            uint32_t oval = towards(F, G, r, I, HS_NIL, p->dst, &h2, &e2);
            towards(F, I, e2 % a, Gd, Rd, p->dst, &h3, &e3);
            uint64_t hval = h2 + h3 + (e3 != Rd);
            uint64_t qmin = hs__occupancy(F, omin), qval = hs__occupancy(F, oval);
            if (qmin * hmin > qval * hval + F->prm.ugal_threshold)
                p->inter = I;
        }
    }
    if (p->inter == G)
        p->inter = HS_NIL;  /* reached the intermediate group */
    uint32_t T = p->inter != HS_NIL ? p->inter : Gd;
    p->out_vc = p->ng;
    if (G == T) {
        p->out = po[hs__df_local_port(d, r, rd)];
        return;
    }
    unsigned hops;
    uint32_t entry;
    p->out = towards(F, G, r, T, T == Gd ? Rd : HS_NIL, p->dst, &hops, &entry);
}
