/* A link's transmitter: starting a transmission (in-band marking, ground
 * truth, end-of-transmission and arrival events), credit returns, and the
 * stall clock (time the transmitter sat idle while a packet waited for it
 * without credit, as InfiniBand's PortXmitWait counts).
 *
 * The congested() test of DESIGN.md is made here for every packet: it
 * waited at least tau at this device, from the moment it became eligible
 * (routed at a switch; cut by the NIC) to the start of its transmission,
 * which counts waiting for credits, for the crossbar and behind the head of
 * its FIFO.  Ground truth counts it for every packet; the in-band flag is
 * the same bit, fed to hs_mark for monitored packets. */
#include "engine.h"

void hs__link_transmit(hs_fabric *F, uint32_t o, uint32_t pi, hs_time t0)
{
    hs__pkt *p = &F->pk[pi];
    hs__oport *op = &F->op[o];
    unsigned lf = op->lf;
    hs_time ser = hs__ser(F, o, p->bytes);
    int congested = t0 - p->ready >= op->tau;
    if (p->monitored)
        hs_mark(&F->scheme, &p->field, p->key, o, congested);
    hs__truth_tx(F, o, p->pidx, t0, ser, p->bytes, congested);
    F->st.hops++;
    hs__ev_push(F, t0 + ser, lf & LF_INJECTION ? EV_NIC_TX_END : EV_TX_END,
                (uint64_t)op->sw << EV_DEV_SHIFT | o);
    hs_time head = t0 + op->lat;
    if (lf & LF_SWITCH) {
        p->nsw++;
        if (lf & LF_GLOBAL)
            p->ng++;
    }
    if (lf & LF_TO_SWITCH) {
        p->in = o;
        p->vc = p->out_vc;
        p->tail = head + ser;
        p->ready = head + F->prm.route_delay;
        hs__ev_push(F, p->ready, EV_ARRIVE, (uint64_t)op->to_sw << EV_DEV_SHIFT | pi);
    } else {
        /* Receive processing at rx_rate, pipelined with reception: it
         * starts with the header (or when the NIC is free) and cannot end
         * before the tail is in.  A packet holds its buffer space (and the
         * switch's credit) until processed. */
        uint32_t node = p->dst;   /* the link's far end */
        hs__nic *n = &F->nic[node];
        uint64_t rate = F->rx_rate[node];
        hs_time start = head > n->rx_free ? head : n->rx_free;
        hs_time proc = (p->bytes * HS_PS_PER_S + rate - 1) / rate;
        hs_time done = start + proc;
        if (done < head + ser)
            done = head + ser;
        n->rx_free = done;
        hs__ev_push(F, done, EV_DELIVER, (uint64_t)(F->S + node) << EV_DEV_SHIFT | pi);
    }
}

void hs__credit_wait(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    op->waiting = 1;
    hs__cring *r = &F->op[o].ring;
    /* (keyed credits are armed instead: hs__credit_arm) */
    if (r->n && !op->wake && !(r->v[r->head] & CR_KEYED)) {
        op->wake = 1;
        hs__ev_push(F, r->t[r->head], EV_WAKE, o);
    }
}

void hs__stall_begin(hs_fabric *F, uint32_t o, uint16_t pidx)
{
    hs__oport *op = &F->op[o];
    if (op->stall_since == HS_TIME_NEVER) {
        op->stall_since = F->now;
        op->stall_pidx = pidx;
    }
    hs__credit_wait(F, o);
}

void hs__stall_end(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    op->waiting = 0;
    if (op->stall_since != HS_TIME_NEVER) {
        if (F->now > op->stall_since)
            hs__truth_stall(F, o, op->stall_pidx, op->stall_since, F->now);
        op->stall_since = HS_TIME_NEVER;
    }
}

/* Credits for a switch-to-switch link go back as an event at the
 * transmitter: the ring below is the transmitter's state, and whether it
 * is full or the transmitter waits is known at the transmitter, not at the
 * switch that frees the buffer; in a parallel run that switch may be in
 * another process (docs/fabric.md, "Parallel runs").  Credits to a NIC,
 * and from a NIC to its switch's ejection transmitter, stay within one
 * switch's reach and use the ring.
 *
 * Keyed credits.  In a sequential run a switch-to-switch credit is still
 * that event, with its key taken from its origin's count as hs__ev_push
 * would, but it waits in the ring (CR_KEYED) while the event could not do
 * anything but add the credit: the event (hs__on_credit) adds the credit
 * and, if the transmitter is idle, arbitrates; an idle transmitter with no
 * request finds nothing to grant and is not stalled (a stall needs a
 * request), so the event is the credit alone, which the ring adds, counts
 * and makes visible exactly from the event's (time, key) on
 * (hs__credit_absorb).  A transmitter becomes idle with a request only in
 * its end of transmission or when a request is raised at it while idle:
 * there (and when a credit returns to such a transmitter) its ring's
 * earliest credit is armed, inserted as an event with its own key
 * (EV_CREDIT_RING), and runs as the EV_CREDIT event would, arming the
 * next if the transmitter is still idle with a request.  Same events in
 * the same order, 21% fewer in the queue on a saturated dragonfly. */
void hs__credit_return(hs_fabric *F, uint32_t l, unsigned vc, uint32_t bytes)
{
    hs__oport *op = &F->op[l];
    hs_time t = F->now + op->lat;
    hs__cring *r = &op->ring;
    int sw = op->lf & LF_SWITCH;
    if (sw && r->n == CR_RING)
        hs__credit_absorb(F, l);   /* room from credits that have run */
    if (r->n == CR_RING || (sw && (F->pd || F->cr_events || (!op->busy && op->queued)))) {
        hs__ev_push(F, t, EV_CREDIT,
                    (uint64_t)l << CR_LINK_SHIFT | (uint64_t)vc << CR_VC_SHIFT | bytes);
        return;
    }
    unsigned k = (r->head + r->n) % CR_RING;
    r->t[k] = t;
    r->v[k] = bytes | (uint32_t)vc << CR_VC_SHIFT;
    r->n++;
    if (sw) {
        /* the key hs__ev_push would give it */
        uint32_t org = F->in_run ? F->cur_dev : F->ext_dev;
        F->crk[(size_t)l * CR_RING + k] = (uint64_t)org << EV_ORG_SHIFT | F->dev_seq[org]++;
        r->v[k] |= CR_KEYED;
        if (t > F->cr_last)
            F->cr_last = t;
        return;
    }
    if (op->waiting && !op->wake) {
        op->wake = 1;
        hs__ev_push(F, t, EV_WAKE, l);
    }
}

void hs__credit_arm(hs_fabric *F, uint32_t o)
{
    hs__cring *r = &F->op[o].ring;
    if (!r->n || !(r->v[r->head] & CR_KEYED))
        return;   /* (a link's ring credits are all keyed or none) */
    hs__credit_absorb(F, o);
    /* Only the earliest is armed: the ring is in (time, key) order (one
     * link latency, keys of one origin: the switch the link enters), so
     * the head is the next credit due, and the others are armed one by one
     * as it runs (hs__on_credit_ring) while the transmitter stays idle
     * with a request.  A later one that would run while the transmitter is
     * busy, or has no request, could only add its credit, which the ring
     * does. */
    if (!r->n || (r->v[r->head] & CR_ARMED))
        return;
    r->v[r->head] |= CR_ARMED;
    hs__fev e = { r->t[r->head], F->crk[(size_t)o * CR_RING + r->head],
                  (uint64_t)EV_CREDIT_RING << EV_SHIFT | o };
    hs__ev_insert(F, e);
}

/* An armed keyed credit's event: hs__on_credit's (the absorb takes in the
 * credit, whose key is the event's); still idle with a request, the
 * transmitter's next keyed credit becomes an event. */
void hs__on_credit_ring(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    hs__credit_absorb(F, o);
    if (!op->busy) {
        hs__switch_arbitrate(F, o);
        if (!op->busy && op->queued)
            hs__credit_arm(F, o);
    }
}

uint64_t hs__credit_uncounted(const hs_fabric *F)
{
    uint64_t n = 0;
    for (uint32_t l = 1; l <= F->L; l++) {
        const hs__cring *r = &F->op[l].ring;
        for (unsigned i = 0; i < r->n; i++) {
            unsigned k = (r->head + i) % CR_RING;
            if ((r->v[k] & (CR_KEYED | CR_ARMED)) == CR_KEYED &&
                hs__ev_passed(F, r->t[k], F->crk[(size_t)l * CR_RING + k]))
                n++;
        }
    }
    return n;
}

void hs__credit_flush(hs_fabric *F)
{
    for (uint32_t l = 1; l <= F->L; l++) {
        hs__cring *r = &F->op[l].ring;
        while (r->n) {
            uint32_t v = r->v[r->head];
            hs__cr(F, l)[(v >> CR_VC_SHIFT) & CR_VC_MASK] += v & ((1u << CR_VC_SHIFT) - 1);
            r->head = (uint8_t)((r->head + 1) % CR_RING);
            r->n--;
        }
    }
}

void hs__on_wake(hs_fabric *F, uint32_t o)
{
    F->op[o].wake = 0;
    hs__credit_absorb(F, o);
    if (F->op[o].sw >= F->S)
        hs__nic_kick(F, F->op[o].sw - F->S);
    else if (!F->op[o].busy)
        hs__switch_arbitrate(F, o);
}

void hs__on_credit(hs_fabric *F, uint64_t arg)
{
    uint32_t o = (uint32_t)(arg >> CR_LINK_SHIFT);
    unsigned vc = (unsigned)(arg >> CR_VC_SHIFT) & 7u;
    uint32_t bytes = (uint32_t)(arg & ((1u << CR_BYTES_BITS) - 1));
    hs__cr(F, o)[vc] += bytes;
    hs__credit_absorb(F, o);
    if (F->op[o].sw >= F->S)
        hs__nic_kick(F, F->op[o].sw - F->S);
    else if (!F->op[o].busy)
        hs__switch_arbitrate(F, o);
}
