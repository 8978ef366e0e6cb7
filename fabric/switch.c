/* Switches: input FIFOs per port and VC, routing of the head packet, and
 * round-robin crossbar arbitration.
 *
 * Each output keeps a bitset of its requesters (input port x VC whose head
 * packet is routed to it).  An idle output grants, round-robin from the
 * requester after its last grant, the first head whose input port is free
 * and whose next VC has credit for the whole packet.  An input port that
 * frees offers its VC heads (round-robin over VCs) to their outputs.  This
 * is output-first separable allocation with one iteration, evaluated at
 * every event that can change its outcome (a packet becomes head, an output
 * or input frees, credit arrives), so an idle output with a grantable
 * request never waits.
 *
 * Stall: an idle output with at least one requester short of credit is
 * stalled; the state can only change at those same events, so the stall
 * clock is exact. */
#include "engine.h"

static inline uint32_t req_index(const hs_fabric *F, uint32_t in_link, unsigned vc)
{
    return F->lk[in_link].to_port * F->nvc + vc;
}

static inline int64_t *credit(hs_fabric *F, uint32_t o, unsigned vc)
{
    return &F->credits[(size_t)o * F->nvc + vc];
}

static void start_tx(hs_fabric *F, uint32_t o, uint32_t pi, uint32_t r)
{
    hs__pkt *p = &F->pk[pi];
    hs__oport *op = &F->op[o];
    uint32_t i = p->in;
    unsigned v = p->vc;
    size_t q = (size_t)i * F->nvc + v;
    F->qhead[q] = p->next;
    if (p->next == HS_NIL)
        F->qtail[q] = HS_NIL;
    F->req[op->req_off + (r >> 6)] &= ~(1ull << (r & 63));
    op->queued -= p->bytes;
    F->ip[i].busy = 1;
    op->busy = 1;
    op->cur_in = i;
    op->cur_vc = (uint8_t)v;
    op->cur_bytes = p->bytes;
    *credit(F, o, p->out_vc) -= p->bytes;
    hs__stall_end(F, o);
    /* cut-through cannot outrun the packet's own tail */
    hs_time t0 = F->now, ser = hs__ser(F, o, p->bytes);
    if (p->tail > t0 + ser)
        t0 = p->tail - ser;
    hs__link_transmit(F, o, pi, t0);
    uint32_t nh = F->qhead[q];
    if (nh != HS_NIL) {
        /* the next packet of this FIFO is head now: route it; its input is
         * busy, so it cannot be granted yet, but it may start a stall */
        hs__pkt *h = &F->pk[nh];
        hs__route(F, F->lk[i].to, h);
        uint32_t o2 = h->out;
        uint32_t r2 = req_index(F, i, v);
        F->req[F->op[o2].req_off + (r2 >> 6)] |= 1ull << (r2 & 63);
        F->op[o2].queued += h->bytes;
        if (!F->op[o2].busy && *credit(F, o2, h->out_vc) < (int64_t)h->bytes)
            hs__stall_begin(F, o2, h->pidx);
    }
}

void hs__switch_arbitrate(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    if (op->busy)
        return;
    uint32_t s = F->lk[o].from;
    uint32_t n = F->sw_nreq[s];
    const uint64_t *base = F->req + op->req_off;
    const uint32_t *pin = F->topo->port_in + F->topo->port_off[s];
    unsigned nvc = F->nvc;
    int starved = 0;
    uint16_t starved_pidx = 0;
    uint32_t start = op->rr < n ? op->rr : 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t lo = pass ? 0 : start, hi = pass ? start : n;
        if (lo >= hi)
            continue;
        for (uint32_t w = lo >> 6; w <= (hi - 1) >> 6; w++) {
            uint64_t bits = base[w];
            if (w == lo >> 6 && (lo & 63))
                bits &= ~0ull << (lo & 63);
            if (w == (hi - 1) >> 6 && (hi & 63))
                bits &= ~0ull >> (64 - (hi & 63));
            while (bits) {
                uint32_t r = (w << 6) | (uint32_t)__builtin_ctzll(bits);
                bits &= bits - 1;
                uint32_t port = nvc == 1 ? r : r / nvc;
                unsigned v = nvc == 1 ? 0 : r % nvc;
                uint32_t i = pin[port];
                uint32_t pi = F->qhead[(size_t)i * nvc + v];
                hs__pkt *p = &F->pk[pi];
                if (*credit(F, o, p->out_vc) < (int64_t)p->bytes) {
                    if (!starved) {
                        starved = 1;
                        starved_pidx = p->pidx;
                    }
                    continue;
                }
                if (F->ip[i].busy)
                    continue;
                op->rr = r + 1 < n ? r + 1 : 0;
                start_tx(F, o, pi, r);
                return;
            }
        }
    }
    if (starved)
        hs__stall_begin(F, o, starved_pidx);
    else
        hs__stall_end(F, o);
}

/* A packet became head of its FIFO with its input port free. */
static void head_ready(hs_fabric *F, uint32_t pi)
{
    hs__pkt *p = &F->pk[pi];
    hs__route(F, F->lk[p->in].to, p);
    uint32_t o = p->out;
    uint32_t r = req_index(F, p->in, p->vc);
    hs__oport *op = &F->op[o];
    F->req[op->req_off + (r >> 6)] |= 1ull << (r & 63);
    op->queued += p->bytes;
    if (!op->busy) {
        if (F->ip[p->in].busy) {
            if (*credit(F, o, p->out_vc) < (int64_t)p->bytes)
                hs__stall_begin(F, o, p->pidx);
        } else {
            hs__switch_arbitrate(F, o);
        }
    }
}

void hs__switch_arrive(hs_fabric *F, uint32_t pi)
{
    hs__pkt *p = &F->pk[pi];
    size_t q = (size_t)p->in * F->nvc + p->vc;
    p->next = HS_NIL;
    if (F->qtail[q] == HS_NIL) {
        F->qhead[q] = F->qtail[q] = pi;
        head_ready(F, pi);
    } else {
        F->pk[F->qtail[q]].next = pi;
        F->qtail[q] = pi;
    }
}

void hs__switch_tx_end(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    uint32_t i = op->cur_in;
    op->busy = 0;
    F->ip[i].busy = 0;
    /* the packet's tail has left input buffer i: its space goes back to
     * the transmitter of link i, one link latency away */
    uint64_t arg = (uint64_t)i << CR_LINK_SHIFT | (uint64_t)op->cur_vc << CR_VC_SHIFT |
                   op->cur_bytes;
    hs__ev_push(F, F->now + F->lk[i].lat, EV_CREDIT, arg);
    hs__switch_arbitrate(F, o);
    hs__iport *ip = &F->ip[i];
    unsigned nvc = F->nvc;
    for (unsigned k = 0; k < nvc && !ip->busy; k++) {
        unsigned v = (ip->rrvc + k) % nvc;
        uint32_t h = F->qhead[(size_t)i * nvc + v];
        if (h == HS_NIL)
            continue;
        uint32_t o2 = F->pk[h].out;
        if (!F->op[o2].busy)
            hs__switch_arbitrate(F, o2);
        if (ip->busy)
            ip->rrvc = (uint8_t)((v + 1) % nvc);
    }
}
