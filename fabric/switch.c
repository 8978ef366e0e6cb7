/* Switches: input FIFOs per port and VC, routing of the head packet, and
 * round-robin crossbar arbitration.
 *
 * Each output keeps, per output VC, a bitset of its requesters (input port
 * x VC whose head packet is routed to that output VC), and each switch a
 * bitset of the requesters whose input port is busy.  An idle output
 * grants round-robin per output VC (each VC its own pointer, the VCs in
 * turn) the first head whose input port is free and whose next VC has
 * credit for the whole packet; the head at a VC's turn keeps it while
 * short of credit.  An input port that frees offers its VC heads
 * (round-robin over VCs) to their outputs, found in its small block of
 * hs__req without reading the packets.  This is output-first separable
 * allocation with one iteration, evaluated at every event that can change
 * its outcome (a packet becomes head, an output or input frees, credit
 * arrives), so an idle output with a grantable request never waits.
 *
 * Cost of a decision: a few word operations per output VC (the VC's
 * requesters AND NOT the busy inputs, first set bit from the pointer),
 * not a step per requester: it does not grow with the switch's radix
 * until the requesters pass 64 per word.  Only when the credit of a VC is
 * below a full packet are the candidates' sizes read one by one.
 *
 * Stall: an idle output with a VC waiting for credit for the head at its
 * turn is stalled (charged to that head's phase); the state can only change at those same events, so the stall
 * clock is exact. */
#include "engine.h"

static inline int64_t *credit(hs_fabric *F, uint32_t o, unsigned vc)
{
    return &hs__cr(F, o)[vc];
}

static inline uint32_t sw_words(const hs_fabric *F, uint32_t s)
{
    return (F->sw_nreq[s] + 63) >> 6;
}

/* Marks input port `port` of switch s busy or free, in its iport and in
 * the switch's bitset of requesters with a busy input (its nvc bits). */
static void set_ibusy(hs_fabric *F, uint32_t s, uint32_t gp, uint32_t port, int busy)
{
    F->ip[gp].busy = (uint8_t)busy;
    uint64_t *b = F->ibusy + F->sw_boff[s];
    unsigned nvc = F->nvc;
    uint32_t r0 = port * nvc;
    for (unsigned v = 0; v < nvc; v++) {
        uint32_t r = r0 + v;
        if (busy)
            b[r >> 6] |= 1ull << (r & 63);
        else
            b[r >> 6] &= ~(1ull << (r & 63));
    }
}

/* The packet at the head of FIFO (input link i, vc v) has been routed:
 * record what it asks and raise its request at its output VC. */
static void request(hs_fabric *F, const hs__pkt *p)
{
    const hs__oport *in = &F->op[p->in];
    uint32_t gp = in->gp_in, s = in->to_sw;
    unsigned nvc = F->nvc;
    hs__req *q = &F->rq[(size_t)gp * nvc + p->vc];
    q->need = p->bytes;
    q->out = p->out;
    uint32_t r = (gp - F->topo->port_off[s]) * nvc + p->vc;
    hs__oport *op = &F->op[p->out];
    F->req[op->req_off + (size_t)p->out_vc * sw_words(F, s) + (r >> 6)] |= 1ull << (r & 63);
    op->queued += p->bytes;
    if (!op->busy)
        hs__credit_arm(F, p->out);   /* idle with a request */
}

static void start_tx(hs_fabric *F, uint32_t o, uint32_t pi, uint32_t r, uint32_t gp,
                     uint32_t s, uint32_t port)
{
    hs__pkt *p = &F->pk[pi];
    hs__oport *op = &F->op[o];
    uint32_t i = p->in;
    unsigned v = p->vc;
    hs__req *q = &F->rq[(size_t)gp * F->nvc + v];
    if (F->pf && p->next != HS_NIL) {
        /* the next packet becomes head below, after the transmission is
         * set up: the transmitter of its likely output (its line was
         * fetched ahead, engine.c) */
        uint32_t alt, g = hs__route_guess(F, s, &F->pk[p->next], &alt);
        if (g != HS_NIL) {
            hs__pf(&F->op[g]);
            hs__pf((const char *)&F->op[g] + 128);
        }
        if (alt != HS_NIL)
            hs__pf(&F->op[alt]);
    }
    q->head = p->next;
    if (p->next == HS_NIL)
        q->tail = q->out = HS_NIL;
    F->req[op->req_off + (size_t)p->out_vc * sw_words(F, s) + (r >> 6)] &= ~(1ull << (r & 63));
    op->queued -= p->bytes;
    set_ibusy(F, s, gp, port, 1);
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
    uint32_t nh = q->head;
    if (nh != HS_NIL) {
        /* the next packet of this FIFO is head now: route it; its input is
         * busy, so it cannot be granted yet, but it may start a stall */
        hs__pkt *h = &F->pk[nh];
        hs__route(F, s, h);
        request(F, h);
        uint32_t o2 = h->out;
        if (!F->op[o2].busy) {
            hs__credit_absorb(F, o2);
            if (*credit(F, o2, h->out_vc) < (int64_t)h->bytes)
                hs__stall_begin(F, o2, h->pidx);
        }
    }
}

/* The first set bit in cyclic order from `from` (< n) among the bits of
 * req & ~busy (busy NULL: of req alone) in w words (no bit at or past n is
 * ever set), or UINT32_MAX; with credit c below the largest packet, only a
 * requester whose packet fits in c.  Word-parallel: the cost is a few
 * words, not one step per requester: the word holding `from` (its bits
 * from there), the words after it, cyclically, and that word again (its
 * bits below `from`). */
static inline __attribute__((always_inline))
uint32_t next_set(const uint64_t *req, const uint64_t *busy, uint32_t w, uint32_t from,
                  const hs__req *rq, int64_t c, int64_t full)
{
    uint32_t wf = from >> 6;
    uint64_t lo = ~0ull << (from & 63);
    for (uint32_t k = 0; k <= w; k++) {
        uint64_t bits = req[wf];
        if (busy)
            bits &= ~busy[wf];
        if (k == 0)
            bits &= lo;
        else if (k == w)
            bits &= ~lo;
        for (; bits; bits &= bits - 1) {
            uint32_t r = (wf << 6) | (uint32_t)__builtin_ctzll(bits);
            if (busy && c < full && c < (int64_t)rq[r].need)
                continue;
            return r;
        }
        wf = wf + 1 == w ? 0 : wf + 1;
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
    uint32_t s = op->sw;
    uint32_t n = F->sw_nreq[s];
    uint32_t w = sw_words(F, s);
    const uint64_t *base = F->req + op->req_off;
    const uint64_t *busy = F->ibusy + F->sw_boff[s];
    unsigned nvc = F->nvc;
    uint32_t *rrv = (uint32_t *)(F->req + op->req_off + (size_t)nvc * w);
    uint32_t gp0 = F->topo->port_off[s];
    const hs__req *rq = F->rq + (size_t)gp0 * nvc;
    const int64_t *cr = hs__cr(F, o);
    int64_t full = F->full_need;
    uint32_t stall_r = UINT32_MAX;
    for (unsigned k = 0; k < nvc; k++) {
        unsigned v = op->rrvc + k;
        if (v >= nvc)
            v -= nvc;
        const uint64_t *bv = base + (size_t)v * w;
        uint32_t from = rrv[v] < n ? rrv[v] : 0;
        uint32_t turn = next_set(bv, NULL, w, from, rq, 0, 0);
        if (turn == UINT32_MAX)
            continue;
        if (cr[v] < (int64_t)rq[turn].need) {
            if (stall_r == UINT32_MAX)
                stall_r = turn;
            continue;   /* the VC waits for credit for the head at its turn */
        }
        /* the head at the turn has credit: it is granted unless its input
         * port is busy (what next_set from the turn would find first) */
        uint32_t r = busy[turn >> 6] >> (turn & 63) & 1
                     ? next_set(bv, busy, w, turn, rq, cr[v], full) : turn;
        if (r == UINT32_MAX)
            continue;
        uint32_t port = nvc == 1 ? r : r / nvc;
        rrv[v] = r + 1 < n ? r + 1 : 0;
        op->rrvc = (uint8_t)((v + 1) % nvc);
        start_tx(F, o, rq[r].head, r, gp0 + port, s, port);
        return;
    }
    if (stall_r != UINT32_MAX) {
        hs__stall_begin(F, o, F->pk[rq[stall_r].head].pidx);
    } else {
        hs__stall_end(F, o);
    }
}

void hs__switch_arrive(hs_fabric *F, uint32_t pi)
{
    hs__pkt *p = &F->pk[pi];
    uint32_t gp = F->op[p->in].gp_in;
    hs__req *q = &F->rq[(size_t)gp * F->nvc + p->vc];
    p->next = HS_NIL;
    if (q->tail != HS_NIL) {
        F->pk[q->tail].next = pi;
        q->tail = pi;
        return;
    }
    /* head of its FIFO at once: route and request */
    q->head = q->tail = pi;
    hs__route(F, F->op[p->in].to_sw, p);
    request(F, p);
    uint32_t o = p->out;
    if (F->op[o].busy)
        return;
    if (F->ip[gp].busy) {
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
    uint32_t gp = F->op[i].gp_in;
    unsigned nvc = F->nvc;
    const hs__req *rq = &F->rq[(size_t)gp * nvc];
    if (F->pf && nvc > 1)
        /* the request bitsets of the outputs the freed input offers its
         * other heads to below (their transmitters were fetched ahead) */
        for (unsigned v = 0; v < nvc; v++)
            if (rq[v].out != HS_NIL && rq[v].out != o)
                hs__pf(F->req + F->op[rq[v].out].req_off);
    op->busy = 0;
    set_ibusy(F, op->sw, gp, gp - F->topo->port_off[op->sw], 0);
    /* the packet's tail has left input buffer i: its space goes back to
     * the transmitter of link i, one link latency away */
    hs__credit_return(F, i, op->cur_vc, op->cur_bytes);
    hs__switch_arbitrate(F, o);
    if (!op->busy && op->queued)
        hs__credit_arm(F, o);        /* idle with a request */
    hs__iport *ip = &F->ip[gp];
    for (unsigned k = 0; k < nvc && !ip->busy; k++) {
        unsigned v = (ip->rrvc + k) % nvc;
        uint32_t o2 = rq[v].out;   /* the head's output, HS_NIL: no head */
        if (o2 == HS_NIL)
            continue;
        if (!F->op[o2].busy)
            hs__switch_arbitrate(F, o2);
        if (ip->busy)
            ip->rrvc = (uint8_t)((v + 1) % nvc);
    }
}
