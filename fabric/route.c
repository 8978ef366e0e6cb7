/* Routing dispatch: the decision a switch makes for the packet at the head
 * of an input FIFO (output link and VC), shared occupancy measure for
 * adaptive choices, and the topology-file router (forwarding tables with
 * hop-indexed VCs). */
#include "engine.h"

uint64_t hs__occupancy(hs_fabric *F, uint32_t o)
{
    hs__credit_absorb(F, o);
    uint64_t used = 0;
    const int64_t *c = hs__cr(F, o);
    for (unsigned v = 0; v < F->nvc; v++)
        used += (uint64_t)(F->cap_vc - c[v]);
    return F->op[o].queued + used;
}

void hs__route_table(hs_fabric *F, uint32_t sw, hs__pkt *p)
{
    p->out = F->topo->u.file.lft[(size_t)sw * F->N + p->dst];
    /* VC = switch-to-switch hops before this link: strictly increasing
     * along a path, hence no cyclic buffer dependency */
    p->out_vc = (uint8_t)(p->nsw < F->nvc ? p->nsw : F->nvc - 1);
}

uint32_t hs__route_guess(const hs_fabric *F, uint32_t sw, const hs__pkt *p, uint32_t *alt)
{
    const hs_topo *t = F->topo;
    *alt = HS_NIL;
    if (t->node_sw[p->dst] == sw)
        return F->N + 1 + p->dst;
    switch (t->kind) {
    case HS_TOPO_FATTREE: return hs__route_fattree_guess(F, sw, p);
    case HS_TOPO_DRAGONFLY: return hs__route_dragonfly_guess(F, sw, p, alt);
    default: return HS_NIL;
    }
}

void hs__route(hs_fabric *F, uint32_t sw, hs__pkt *p)
{
    const hs_topo *t = F->topo;
    if (t->node_sw[p->dst] == sw) {
        p->out = F->N + 1 + p->dst;
        p->out_vc = 0;
        return;
    }
    switch (t->kind) {
    case HS_TOPO_FATTREE: hs__route_fattree(F, sw, p); break;
    case HS_TOPO_DRAGONFLY: hs__route_dragonfly(F, sw, p); break;
    case HS_TOPO_TORUS: hs__route_torus(F, sw, p); break;
    case HS_TOPO_FILE: hs__route_table(F, sw, p); break;
    }
}
