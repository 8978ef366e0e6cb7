/* Switches: input FIFOs per port and VC, routing of the head packet, and
 * round-robin crossbar arbitration.
 *
 * Each output keeps a bitset of its requesters (input port x VC whose head
 * packet is routed to it).  An idle output grants round-robin per output
 * VC (each VC its own pointer, the VCs in turn) the first head whose input
 * port is free and whose next VC has credit for the whole packet; the head
 * at a VC's turn keeps it while short of credit.  An input port that
 * frees offers its VC heads (round-robin over VCs) to their outputs.  This
 * is output-first separable allocation with one iteration, evaluated at
 * every event that can change its outcome (a packet becomes head, an output
 * or input frees, credit arrives), so an idle output with a grantable
 * request never waits.
 *
 * Stall: an idle output with a VC waiting for credit for the head at its
 * turn is stalled (charged to that head's phase); the state can only change at those same events, so the stall
 * clock is exact. */
#include "engine.h"

static inline int64_t *credit(hs_fabric *F, uint32_t o, unsigned vc)
{
    return &F->credits[(size_t)o * F->nvc + vc];
}

/* The packet at the head of FIFO (input link i, vc v) has been routed:
 * record what it asks and raise its request at its output. */
static void request(hs_fabric *F, const hs__pkt *p)
{
    uint32_t gp = F->gp_in[p->in];
    unsigned nvc = F->nvc;
    hs__req *q = &F->rq[(size_t)gp * nvc + p->vc];
    q->need = p->bytes;
    q->ovc = p->out_vc;
    uint32_t r = F->lk[p->in].to_port * nvc + p->vc;
    hs__oport *op = &F->op[p->out];
    F->req[op->req_off + (r >> 6)] |= 1ull << (r & 63);
    op->queued += p->bytes;
}

static void start_tx(hs_fabric *F, uint32_t o, uint32_t pi, uint32_t r, uint32_t gp)
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
    F->ip[gp].busy = 1;
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
        request(F, h);
        uint32_t o2 = h->out;
        if (!F->op[o2].busy) {
            hs__credit_absorb(F, o2);
            if (*credit(F, o2, h->out_vc) < (int64_t)h->bytes)
                hs__stall_begin(F, o2, h->pidx);
        }
    }
}

/* The first requester of output VC v in cyclic order from `from`, among
 * the set bits of base (n requesters), or UINT32_MAX; with need_free, only
 * one with credit for its packet and its input port free. */
static uint32_t next_of_vc(hs_fabric *F, const uint64_t *base, uint32_t n, uint32_t from,
                           unsigned v, const hs__req *rq, const int64_t *cr, uint32_t gp0,
                           int need_free)
{
    unsigned nvc = F->nvc;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t lo = pass ? 0 : from, hi = pass ? from : n;
        if (lo >= hi)
            continue;
        for (uint32_t w = lo >> 6; w <= (hi - 1) >> 6; w++) {
            uint64_t bits = base[w];
            if (w == lo >> 6 && (lo & 63))
                bits &= ~0ull << (lo & 63);
            if (w == (hi - 1) >> 6 && (hi & 63))
                bits &= ~0ull >> (64 - (hi & 63));
            for (; bits; bits &= bits - 1) {
                uint32_t r = (w << 6) | (uint32_t)__builtin_ctzll(bits);
                if (rq[r].ovc != v)
                    continue;
                if (need_free && (cr[v] < (int64_t)rq[r].need ||
                                  F->ip[gp0 + (nvc == 1 ? r : r / nvc)].busy))
                    continue;
                return r;
            }
        }
    }
    return UINT32_MAX;
}

/* Round-robin per output VC, and over VCs.  The requester at a VC's turn
 * keeps it until it is granted: when it lacks credit, the VC waits for
 * credit instead of passing the turn on.  (A single pointer moved past a
 * head short of credit at its turn, and when credit returned in step with
 * the pointer the same head was passed over for ever: an incast's credits
 * come back at the pace of one ejection link; docs/fabric.md,
 * "Arbitration".)  A head whose input port is busy (sending elsewhere) is
 * passed over for the next one of its VC. */
void hs__switch_arbitrate(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    if (op->busy)
        return;
    hs__credit_absorb(F, o);
    uint32_t s = F->lk[o].from;
    uint32_t n = F->sw_nreq[s];
    const uint64_t *base = F->req + op->req_off;
    unsigned nvc = F->nvc;
    uint32_t gp0 = F->topo->port_off[s];
    const hs__req *rq = F->rq + (size_t)gp0 * nvc;
    const int64_t *cr = &F->credits[(size_t)o * nvc];
    uint32_t stall_r = UINT32_MAX;
    for (unsigned k = 0; k < nvc; k++) {
        unsigned v = (op->rrvc + k) % nvc;
        uint32_t from = op->rrv[v] < n ? op->rrv[v] : 0;
        uint32_t turn = next_of_vc(F, base, n, from, v, rq, cr, gp0, 0);
        if (turn == UINT32_MAX)
            continue;
        if (cr[v] < (int64_t)rq[turn].need) {
            if (stall_r == UINT32_MAX)
                stall_r = turn;
            continue;   /* the VC waits for credit for the head at its turn */
        }
        uint32_t r = next_of_vc(F, base, n, turn, v, rq, cr, gp0, 1);
        if (r == UINT32_MAX)
            continue;
        uint32_t port = nvc == 1 ? r : r / nvc;
        unsigned iv = nvc == 1 ? 0 : r % nvc;   /* the input FIFO's VC */
        uint32_t i = F->topo->port_in[gp0 + port];
        op->rrv[v] = r + 1 < n ? r + 1 : 0;
        op->rrvc = (uint8_t)((v + 1) % nvc);
        start_tx(F, o, F->qhead[(size_t)i * nvc + iv], r, gp0 + port);
        return;
    }
    if (stall_r != UINT32_MAX) {
        uint32_t port = nvc == 1 ? stall_r : stall_r / nvc;
        unsigned v = nvc == 1 ? 0 : stall_r % nvc;
        uint32_t i = F->topo->port_in[gp0 + port];
        hs__stall_begin(F, o, F->pk[F->qhead[(size_t)i * nvc + v]].pidx);
    } else {
        hs__stall_end(F, o);
    }
}

void hs__switch_arrive(hs_fabric *F, uint32_t pi)
{
    hs__pkt *p = &F->pk[pi];
    size_t q = (size_t)p->in * F->nvc + p->vc;
    p->next = HS_NIL;
    if (F->qtail[q] != HS_NIL) {
        F->pk[F->qtail[q]].next = pi;
        F->qtail[q] = pi;
        return;
    }
    /* head of its FIFO at once: route and request */
    F->qhead[q] = F->qtail[q] = pi;
    hs__route(F, F->lk[p->in].to, p);
    request(F, p);
    uint32_t o = p->out;
    if (F->op[o].busy)
        return;
    if (F->ip[F->gp_in[p->in]].busy) {
        hs__credit_absorb(F, o);
        if (*credit(F, o, p->out_vc) < (int64_t)p->bytes)
            hs__stall_begin(F, o, p->pidx);
    } else {
        hs__switch_arbitrate(F, o);
    }
}

void hs__switch_tx_end(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    uint32_t i = op->cur_in;
    uint32_t gp = F->gp_in[i];
    op->busy = 0;
    F->ip[gp].busy = 0;
    /* the packet's tail has left input buffer i: its space goes back to
     * the transmitter of link i, one link latency away */
    hs__credit_return(F, i, op->cur_vc, op->cur_bytes);
    hs__switch_arbitrate(F, o);
    hs__iport *ip = &F->ip[gp];
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
