/* Fat-tree routing in the engine: down by the destination's digit when it
 * lies below, else up by D-mod-K (static) or, with routing=adaptive, up the
 * least occupied up port (ties: the D-mod-K port, then the next ones in
 * order).  Up*-down* paths need one VC class; with vcs=N each packet
 * keeps its lane (vcsel=) on every link. */
#include "engine.h"

/* The output hs__route_fattree would most likely choose, without its
 * effects (adaptive: the D-mod-K port, its tie-break): for prefetching. */
uint32_t hs__route_fattree_guess(const hs_fabric *F, uint32_t sw, const hs__pkt *p)
{
    const hs_topo *t = F->topo;
    const hs__fattree *ft = &t->u.ft;
    const uint32_t *po = t->port_out + t->port_off[sw];
    uint32_t port;
    if (hs__fattree_below(ft, sw, p->dst, &port))
        return po[port];
    unsigned l = hs__fattree_level(ft, sw);
    return po[ft->m[l] + hs__fattree_dmodk_up(ft, l, p->dst)];
}

void hs__route_fattree(hs_fabric *F, uint32_t sw, hs__pkt *p)
{
    const hs_topo *t = F->topo;
    const hs__fattree *ft = &t->u.ft;
    const uint32_t *po = t->port_out + t->port_off[sw];
    uint32_t port;
    p->out_vc = hs__vc(F, p, 0);
    if (hs__fattree_below(ft, sw, p->dst, &port)) {
        p->out = po[port];
        return;
    }
    unsigned l = hs__fattree_level(ft, sw);
    uint32_t w = ft->w[l + 1], m = ft->m[l];
    uint32_t d0 = hs__fattree_dmodk_up(ft, l, p->dst);
    if (t->routing != HS_ROUTE_ADAPTIVE || w == 1) {
        p->out = po[m + d0];
        return;
    }
    uint32_t best = po[m + d0];
    uint64_t bo = hs__occupancy(F, best);
    for (uint32_t i = 1; i < w && bo > 0; i++) {
        uint32_t o = po[m + (d0 + i) % w];
        uint64_t x = hs__occupancy(F, o);
        if (x < bo) {
            best = o;
            bo = x;
        }
    }
    p->out = best;
}
