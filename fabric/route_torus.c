/* Torus/mesh routing in the engine: the dimension-order hop of the
 * forwarding table, and the dateline VC (topo_torus.c explains why it is
 * deadlock-free): VC 1 on and after a dimension's wrap-around link, VC 0
 * otherwise, reset when the packet turns into the next dimension. */
#include "engine.h"

void hs__route_torus(hs_fabric *F, uint32_t sw, hs__pkt *p)
{
    uint32_t out;
    hs__torus_route_set(F->topo, sw, p->dst, &out, 1);
    p->out = out;
    const hs_link_info *l = &F->lk[out], *in = &F->lk[p->in];
    unsigned c;
    if (l->wrap)
        c = 1;
    else if (in->kind == HS_LINK_SWITCH && in->dim == l->dim)
        c = p->vc / F->vc_lanes;   /* the class it came in on */
    else
        c = 0;
    p->out_vc = hs__vc(F, p, c);
}
