/* The discrete-event core: a 4-ary min-heap of (time, data) events, the
 * packet pool, and the run loop that dispatches events to the devices.
 *
 * Why delay lanes: nearly every event is scheduled at one of a few
 * constant delays from now (a full packet's serialisation, link latency +
 * routing delay, ...), and events of one delay are scheduled in time
 * order, so each such class is a FIFO: scheduling is an append and finding
 * the next event a look at a few heads.  A heap pays log(n) cache-missing
 * levels per event for the same order (an earlier version's timing wheel
 * still sorted buckets).  Events at other delays (timers, credit wake-ups,
 * cut-through-delayed ends) go to a 4-ary heap.  All events run in (time,
 * scheduling order), a total order independent of the queue's structure:
 * the same inputs give the same run. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- large tables ------------------------------------------------------------
 * On a large network nearly every event's state is a cache miss and,
 * with 4 KiB pages, a TLB miss too, whose page walk is itself a chain of
 * misses.  Tables of 2 MiB or more are therefore allocated on 2 MiB
 * boundaries and offered to the kernel as transparent huge pages (Linux,
 * madvise mode); elsewhere, or if refused, they are ordinary memory.
 * Free with free(). */
#define HUGE_PAGE (2u << 20)

void *hs__big_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE)
        return aligned_alloc(64, (bytes + 63) / 64 * 64);
    size_t n = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, n);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

/* ---- heap (events at irregular delays) ------------------------------------ */

static inline int fev_less(const hs__fev *a, const hs__fev *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int heap_push(hs_fabric *F, hs_time t, uint64_t seq, uint64_t d)
{
    if (F->ev_n == F->ev_cap) {
        size_t nc = F->ev_cap ? F->ev_cap * 2 : 1024;
        hs__fev *n = realloc(F->ev, nc * sizeof *n);
        if (!n) {
            F->error = HS_ENOMEM;
            return HS_ENOMEM;
        }
        F->ev = n;
        F->ev_cap = nc;
    }
    size_t i = F->ev_n++;
    hs__fev *h = F->ev;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!(t < h[parent].t || (t == h[parent].t && seq < h[parent].seq)))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i].t = t;
    h[i].seq = seq;
    h[i].d = d;
    return 0;
}

static void heap_pop(hs_fabric *F)
{
    hs__fev *h = F->ev;
    hs__fev last = h[--F->ev_n];
    size_t n = F->ev_n, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c;
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (fev_less(&h[j], &h[best]))
                best = j;
        if (!fev_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    if (n)
        h[i] = last;
}

/* ---- delay lanes --------------------------------------------------------------
 * A lane holds the events scheduled at one constant delay from the time
 * they were scheduled; as scheduling times never decrease, a lane is in
 * (t, seq) order by construction and pushing is an append.  The lanes are
 * the delays that occur on most links (set up by hs__ev_init_lanes); an
 * event whose delay has no lane, or that would break a lane's order (a
 * post at a given time from outside a run), goes to the heap. */

static int lane_grow(hs_fabric *F, hs__lane *L)
{
    uint32_t nc = L->cap ? L->cap * 2 : 1024;
    hs__fev *n = malloc((size_t)nc * sizeof *n);
    if (!n) {
        F->error = HS_ENOMEM;
        return HS_ENOMEM;
    }
    for (uint32_t i = 0; i < L->n; i++)
        n[i] = L->e[(L->head + i) & (L->cap - 1)];
    free(L->e);
    L->e = n;
    L->head = 0;
    L->cap = nc;
    return 0;
}

/* Events of one time from different origins are scheduled in the order
 * their scheduling events run, not in the order of their own keys (a key
 * is its origin's, not a global count), so a lane's tail may hold a few
 * events of the new event's time with greater keys: it is inserted before
 * them (a short shift, as in insertion sort) instead of going to the
 * heap, unless more than LANE_SHIFT_MAX would move (then 1: heap).  On a
 * fat-tree's synchronous traffic 1 in 8 events arrives so, nearly all one
 * or two places out. */
#define LANE_SHIFT_MAX 16

static int lane_insert(hs_fabric *F, hs__lane *L, hs__fev e)
{
    uint32_t k = 0;
    while (k < L->n) {
        const hs__fev *x = &L->e[(L->head + L->n - 1 - k) & (L->cap - 1)];
        if (x->t < e.t || (x->t == e.t && x->seq < e.seq))
            break;
        if (++k > LANE_SHIFT_MAX)
            return 1;
    }
    int rc;
    if (L->n == L->cap && (rc = lane_grow(F, L)))
        return rc;
    uint32_t m = L->cap - 1, end = L->head + L->n;
    for (uint32_t j = 0; j < k; j++)
        L->e[(end - j) & m] = L->e[(end - j - 1) & m];
    L->e[(end - k) & m] = e;
    if (k == L->n++) {
        F->lhead[L - F->lanes].t = e.t;
        F->lhead[L - F->lanes].seq = e.seq;
    }
    return 0;
}

/* Queues the event (t, seq, d), taken as scalars: a struct passed by
 * value is stored to the stack in halves and read back whole, which
 * stalls the load (no store forwarding) on every event. */
static inline __attribute__((always_inline))
int ev_insert(hs_fabric *F, hs_time t, uint64_t seq, uint64_t d)
{
    hs_time delay = t - F->now;
    int rc;
    unsigned h = LANE_HASH(delay), i;
    while ((i = F->lane_of[h]) && F->lanes[i - 1].delay != delay)
        h = (h + 1) & ((1u << LANE_HBITS) - 1);
    if (i) {
        hs__lane *L = &F->lanes[i - 1];
        /* (an event that would break the lane's order goes to the heap) */
        if (!L->n || L->last_t < t || (L->last_t == t && L->last_seq < seq)) {
            if (L->n == L->cap && (rc = lane_grow(F, L)))
                return rc;
            hs__fev *x = &L->e[(L->head + L->n) & (L->cap - 1)];
            x->t = t;
            x->seq = seq;
            x->d = d;
            if (!L->n++) {
                F->lhead[i - 1].t = t;
                F->lhead[i - 1].seq = seq;
            }
            L->last_t = t;
            L->last_seq = seq;
            F->nev++;
            return 0;
        }
        if (L->last_t == t && (rc = lane_insert(F, L, (hs__fev){ t, seq, d })) <= 0) {
            if (rc)
                return rc;
            F->nev++;
            return 0;
        }
    }
    if ((rc = heap_push(F, t, seq, d)))
        return rc;
    F->nev++;
    return 0;
}

int hs__ev_push(hs_fabric *F, hs_time t, unsigned type, uint64_t arg)
{
    uint32_t org = F->in_run ? F->cur_dev : F->ext_dev;
    uint64_t seq = (uint64_t)org << EV_ORG_SHIFT | F->dev_seq[org]++;
    uint64_t d = (uint64_t)type << EV_SHIFT | arg;
    if (F->pd && (type == EV_ARRIVE || type == EV_CREDIT)) {
        hs__fev e = { t, seq, d };
        if (hs__pdes_remote(F, &e))
            return hs__pdes_send(F, &e);   /* for another process (pdes.c) */
    }
    return ev_insert(F, t, seq, d);
}

int hs__ev_insert(hs_fabric *F, hs__fev e)
{
    return ev_insert(F, e.t, e.seq, e.d);
}

/* The next event: its lane (0..nlanes-1), MAX_LANES for the heap, or -1. */
static inline int ev_next(const hs_fabric *F, const hs__fev **out)
{
    /* (t, seq) compared as one 128-bit number: one branch per lane
     * instead of up to three, each of which could be mispredicted (which
     * head is least is data, not a pattern); an empty lane's head is all
     * ones, never less */
    typedef unsigned __int128 u128;
    u128 best = ~(u128)0;
    int src = -1;
    if (F->ev_n) {
        best = (u128)F->ev[0].t << 64 | F->ev[0].seq;
        src = MAX_LANES;
    }
    for (unsigned i = 0; i < F->nlanes; i++) {
        u128 k = (u128)F->lhead[i].t << 64 | F->lhead[i].seq;
        if (k < best) {
            best = k;
            src = (int)i;
        }
    }
    if (src >= 0 && src < MAX_LANES) {
        const hs__lane *L = &F->lanes[src];
        *out = &L->e[L->head];
    } else {
        *out = src < 0 ? NULL : &F->ev[0];
    }
    return src;
}

/* Sets up the lanes for the delays most links produce: end of a full
 * packet's transmission, arrival (latency + routing delay), delivery at an
 * idle NIC (latency + serialisation), credit (latency). */
int hs__ev_init_lanes(hs_fabric *F)
{
    typedef struct { hs_time d; uint64_t n; } cand;
    size_t cap = 4 * (size_t)F->L + 4, nc = 0;
    cand *c = malloc(cap * sizeof *c);
    if (!c)
        return HS_ENOMEM;
    for (uint32_t l = 1; l <= F->L; l++) {
        const hs_link_info *li = &F->lk[l];
        hs_time d[4] = { F->op[l].ser_full, li->lat + F->prm.route_delay,
                         li->lat + F->op[l].ser_full, li->lat };
        for (int k = 0; k < 4; k++) {
            if (k == 1 && li->to_kind != HS_DEV_SWITCH)
                continue;
            if (k == 2 && li->to_kind != HS_DEV_NODE)
                continue;
            size_t j;
            for (j = 0; j < nc; j++)
                if (c[j].d == d[k])
                    break;
            if (j == nc) {
                if (nc >= 64)
                    continue;  /* very heterogeneous links: the heap copes */
                c[nc].d = d[k];
                c[nc++].n = 0;
            }
            c[j].n++;
        }
    }
    /* the most frequent delays get lanes */
    for (unsigned i = 0; i < MAX_LANES && i < nc; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < nc; j++)
            if (c[j].n > c[best].n || (c[j].n == c[best].n && c[j].d < c[best].d))
                best = j;
        cand x = c[i];
        c[i] = c[best];
        c[best] = x;
        F->lanes[F->nlanes++].delay = c[i].d;
    }
    free(c);
    /* delay -> lane: open addressing, linear probing (8 lanes in 64 slots) */
    memset(F->lane_of, 0, sizeof F->lane_of);
    for (unsigned i = 0; i < F->nlanes; i++) {
        F->lhead[i].t = HS_TIME_NEVER;
        F->lhead[i].seq = UINT64_MAX;
        unsigned h = LANE_HASH(F->lanes[i].delay);
        while (F->lane_of[h])
            h = (h + 1) & ((1u << LANE_HBITS) - 1);
        F->lane_of[h] = (uint8_t)(i + 1);
    }
    return 0;
}

int hs__ev_init(hs_fabric *F)
{
    uint64_t ndev = (uint64_t)F->S + F->N + 1;
    if (ndev > EV_ORG_MAX)
        return HS_ERANGE;
    F->dev_seq = calloc(ndev, sizeof *F->dev_seq);
    if (!F->dev_seq)
        return HS_ENOMEM;
    F->ext_dev = F->cur_dev = F->S + F->N;
    return 0;
}

void hs__ev_free(hs_fabric *F)
{
    free(F->dev_seq);
    for (unsigned i = 0; i < F->nlanes; i++)
        free(F->lanes[i].e);
    free(F->ev);
}

size_t hs__ev_bytes(const hs_fabric *F)
{
    size_t n = F->ev_cap * sizeof(hs__fev) + ((size_t)F->S + F->N + 1) * sizeof(uint64_t);
    for (unsigned i = 0; i < F->nlanes; i++)
        n += (size_t)F->lanes[i].cap * sizeof(hs__fev);
    return n;
}

/* ---- packet pool ----------------------------------------------------------- */

/* The pool hands out freed packets first (last freed first), then the
 * never-used ones in index order, [pk_hw, pk_cap): the same sequence as
 * one free list of all of them, but a slot's memory is first written when
 * it is first used, so resident memory follows the packets ever in flight
 * at once, not the doubled capacity. */
uint32_t hs__pkt_alloc(hs_fabric *F)
{
    uint32_t p = F->pk_free;
    if (p != HS_NIL) {
        F->pk_free = F->pk[p].next;
    } else {
        if (F->pk_hw == F->pk_cap) {
            uint32_t nc = F->pk_cap ? F->pk_cap * 2 : 4096;
            if (nc <= F->pk_cap || nc == HS_NIL) {
                F->error = HS_ENOMEM;
                return HS_NIL;
            }
            hs__pkt *n = hs__big_alloc((size_t)nc * sizeof *n);
            hs__pkc *c = realloc(F->pc, (size_t)nc * sizeof *c);
            if (c)
                F->pc = c;
            if (!n || !c) {
                free(n);
                F->error = HS_ENOMEM;
                return HS_NIL;
            }
            if (F->pk_hw)
                memcpy(n, F->pk, (size_t)F->pk_hw * sizeof *n);
            free(F->pk);
            F->pk = n;
            F->pk_cap = nc;
        }
        p = F->pk_hw++;
    }
    if (++F->pk_live > F->pk_peak)
        F->pk_peak = F->pk_live;
    return p;
}

void hs__pkt_free(hs_fabric *F, uint32_t p)
{
    F->pk[p].next = F->pk_free;
    F->pk_free = p;
    F->pk_live--;
}

/* ---- run loop ---------------------------------------------------------------- */

/* Prefetching.  On a large network the state an event touches (its
 * packet, its link's transmitter and credits, the input FIFO it joins, the
 * link's ground truth) is out of cache: the run is bound by memory
 * latency, one miss after another.  But a lane's future events are known
 * in advance, so when an event leaves a lane, the event PF_FAR places
 * behind it has its first line fetched (packet or transmitter), the one
 * PF_MID behind what that line points to, and the one PF_NEAR behind the
 * next step.  Prefetches change no result, only when memory is read.
 * They cost instructions (8-11% more per hop) and pay only when the
 * state is out of cache: F->pf, set at creation when the transmitters,
 * FIFO records and request bitsets exceed the L2 cache (fabric.c).
 * (hs__pf, engine.h: gcc 12 compiled every __builtin_prefetch of this
 * loop away.) */
#define PF(p) hs__pf(p)
#define PF_FAR 15
#define PF_MID 10
#define PF_TURN 7
#define PF_NEAR 5
#define PF_HEAD 3
#define PF_NEXT 1

static inline void prefetch_far(const hs_fabric *F, uint64_t d)
{
    uint64_t arg = d & EV_IDX_MASK;
    switch (d >> EV_SHIFT) {
    case EV_ARRIVE:
        PF(&F->pk[arg]);
        break;
    case EV_DELIVER:
        PF(&F->pk[arg]);
        PF(&F->pc[arg]);   /* the cold part, read at delivery */
        break;
    case EV_TX_END:
    case EV_NIC_TX_END:
        /* its three lines: transmitter, credits on their way, credits
         * and accumulated truth */
        PF(&F->op[arg]);
        PF((const char *)&F->op[arg] + 64);
        PF((const char *)&F->op[arg] + 128);
        break;
    }
}

static inline void prefetch_mid(const hs_fabric *F, uint64_t d)
{
    uint64_t arg = d & EV_IDX_MASK;
    switch (d >> EV_SHIFT) {
    case EV_ARRIVE: {
        const hs__pkt *p = &F->pk[arg];
        PF(&F->op[p->in]);
        break;
    }
    case EV_TX_END: {
        const hs__oport *op = &F->op[arg];
        if (op->cur_in != HS_NIL)
            PF(&F->op[op->cur_in]);
        PF(F->req + op->req_off);
        if (F->credits)
            PF(&F->credits[(size_t)arg * F->nvc]);
        break;
    }
    case EV_NIC_TX_END: {
        /* the message whose last packet left (freed), the NIC and its
         * queue heads (the next packet is cut) */
        const hs__oport *op = &F->op[arg];
        uint32_t node = op->sw - F->S;
        if (op->cur_msg != HS_NIL)
            PF(&F->ms[op->cur_msg]);
        PF(&F->nic[node]);
        PF(&F->mq_head[(size_t)node * F->prm.nic_queues]);
        if (F->credits)
            PF(&F->credits[(size_t)arg * F->nvc]);
        break;
    }
    case EV_DELIVER:
        PF(&F->nic[F->pk[arg].dst]);
        break;
    }
}

static inline void prefetch_near(const hs_fabric *F, uint64_t d)
{
    uint64_t arg = d & EV_IDX_MASK;
    switch (d >> EV_SHIFT) {
    case EV_ARRIVE: {
        const hs__pkt *p = &F->pk[arg];
        PF(&F->rq[(size_t)F->op[p->in].gp_in * F->nvc + p->vc]);
        break;
    }
    case EV_TX_END: {
        uint32_t i = F->op[arg].cur_in;
        if (i != HS_NIL) {
            uint32_t gp = F->op[i].gp_in;
            PF(&F->rq[(size_t)gp * F->nvc]);
            PF(&F->ip[gp]);
            PF((const char *)&F->op[i] + 64);
        }
        break;
    }
    case EV_NIC_TX_END: {
        /* the message the NIC will most likely cut from next (the queue
         * at its turn) */
        const hs__nic *n = &F->nic[F->op[arg].sw - F->S];
        uint32_t m = F->mq_head[n->qoff + n->rrq];
        if (m != HS_NIL)
            PF(&F->ms[m]);
        break;
    }
    }
}

/* The requester likely to be granted when switch output o frees: the one
 * at the turn of its first VC to serve (the arbiter may pick another VC
 * or requester; a prefetch only guesses), UINT32_MAX if none.  Its FIFO
 * record and then its head packet are what the arbitration's grant reads
 * after the bitsets, one miss after the other. */
static inline uint32_t pf_turn(const hs_fabric *F, const hs__oport *op)
{
    uint32_t s = op->sw, n = F->sw_nreq[s], w = (n + 63) >> 6;
    unsigned v = op->rrvc;
    const uint64_t *bv = F->req + op->req_off + (size_t)v * w;
    uint32_t from = ((const uint32_t *)(F->req + op->req_off + (size_t)F->nvc * w))[v];
    if (from >= n)
        from = 0;
    uint32_t wf = from >> 6;
    uint64_t bits = bv[wf] & (~0ull << (from & 63));
    for (uint32_t k = 0; k <= w; k++) {
        if (bits)
            return (wf << 6 | (uint32_t)__builtin_ctzll(bits)) < n ?
                   (wf << 6 | (uint32_t)__builtin_ctzll(bits)) : UINT32_MAX;
        wf = wf + 1 < w ? wf + 1 : 0;
        bits = bv[wf];
    }
    return UINT32_MAX;
}

static inline void prefetch_turn(const hs_fabric *F, uint64_t d, int head)
{
    if (d >> EV_SHIFT != EV_TX_END)
        return;
    const hs__oport *op = &F->op[d & EV_IDX_MASK];
    if (head == 1 && op->cur_in != HS_NIL && F->nvc > 1) {
        /* the input port the end frees offers its other VC heads to their
         * outputs (hs__switch_tx_end): their transmitters */
        const hs__req *rq = &F->rq[(size_t)F->op[op->cur_in].gp_in * F->nvc];
        for (unsigned v = 0; v < F->nvc; v++)
            if (rq[v].out != HS_NIL && rq[v].out != (d & EV_IDX_MASK))
                PF(&F->op[rq[v].out]);
    }
    uint32_t r = pf_turn(F, op);
    if (r == UINT32_MAX)
        return;
    const hs__req *q = &F->rq[(size_t)F->topo->port_off[op->sw] * F->nvc + r];
    if (head == 0)
        PF(q);
    else if (q->head == HS_NIL)
        return;
    else if (head == 1)
        PF(&F->pk[q->head]);
    else if (F->pk[q->head].next != HS_NIL)
        PF(&F->pk[F->pk[q->head].next]);   /* routed when that head leaves */
}

/* An arrival at an empty FIFO routes its packet and requests the output
 * at once (hs__switch_arrive): that output's transmitter, if routing can
 * tell it without its effects. */
static inline void prefetch_out(const hs_fabric *F, uint64_t d)
{
    if (d >> EV_SHIFT != EV_ARRIVE)
        return;
    const hs__pkt *p = &F->pk[d & EV_IDX_MASK];
    const hs__oport *in = &F->op[p->in];
    if (F->rq[(size_t)in->gp_in * F->nvc + p->vc].tail != HS_NIL)
        return;
    uint32_t alt, o = hs__route_guess(F, in->to_sw, p, &alt);
    if (o != HS_NIL) {
        PF(&F->op[o]);
        PF((const char *)&F->op[o] + 64);
        PF((const char *)&F->op[o] + 128);
    }
    if (alt != HS_NIL) {   /* UGAL reads the occupancy of both */
        PF(&F->op[alt]);
        PF((const char *)&F->op[alt] + 64);
        PF((const char *)&F->op[alt] + 128);
    }
}

/* The device a link leaves (its transmitter), as an origin index. */
static inline uint32_t link_from_dev(const hs_fabric *F, uint32_t l)
{
    return F->op[l].sw;
}

static void on_timer(hs_fabric *F, uint32_t slot)
{
    uint64_t cookie = F->tm[slot];
    F->tm[slot] = F->tm_free;
    F->tm_free = slot;
    if (F->cb.timer)
        F->cb.timer(F->cb_ctx, F, cookie, F->now);
}

int hs_fabric_run(hs_fabric *F, hs_time until)
{
    if (F->in_run)
        return HS_ESTATE;
    if (F->error)
        return F->error;
    F->in_run = 1;
    F->stop = 0;
    int rc = 1;
    for (;;) {
        const hs__fev *x;
        int src = ev_next(F, &x);
        if (src < 0) {
            /* keyed credits still to come (link.c) are events of the
             * model: the run ends at the last of them */
            if (F->cr_last > F->now) {
                if (F->cr_last > until) {
                    if (!F->pd)
                        F->now = until;
                    rc = 0;
                } else {
                    F->now = F->cr_last;
                }
            }
            break;
        }
        if (x->t > until) {
            if (!F->pd)   /* a parallel run keeps the last event's time */
                F->now = until;
            rc = 0;
            break;
        }
        hs__fev e = *x;
        if (src == MAX_LANES) {
            heap_pop(F);
            if (F->pf && F->ev_n) {
                /* the heap's next event: a keyed credit's or a wake-up's
                 * transmitter (timers touch the driver's state) */
                uint64_t hd = F->ev[0].d;
                unsigned ht = (unsigned)(hd >> EV_SHIFT);
                if (ht == EV_CREDIT_RING || ht == EV_WAKE) {
                    PF(&F->op[hd & EV_IDX_MASK]);
                    PF((const char *)&F->op[hd & EV_IDX_MASK] + 64);
                    PF((const char *)&F->op[hd & EV_IDX_MASK] + 128);
                }
            }
        } else {
            hs__lane *L = &F->lanes[src];
            L->head = (L->head + 1) & (L->cap - 1);
            uint32_t m = L->cap - 1;
            if (--L->n) {
                F->lhead[src].t = L->e[L->head].t;
                F->lhead[src].seq = L->e[L->head].seq;
            } else {
                F->lhead[src].t = HS_TIME_NEVER;
                F->lhead[src].seq = UINT64_MAX;
            }
            if (F->pf) {
                /* the lane's own entries, a line (2.7 events) beyond the
                 * farthest read below: a sequential stream per lane, but
                 * eight lanes, each read and written, are more streams
                 * than the hardware prefetcher follows */
                PF(&L->e[(L->head + PF_FAR + 3) & m]);
                if (L->n > PF_FAR)
                    prefetch_far(F, L->e[(L->head + PF_FAR) & m].d);
                if (L->n > PF_MID)
                    prefetch_mid(F, L->e[(L->head + PF_MID) & m].d);
                if (L->n > PF_TURN)
                    prefetch_turn(F, L->e[(L->head + PF_TURN) & m].d, 0);
                if (L->n > PF_NEAR)
                    prefetch_near(F, L->e[(L->head + PF_NEAR) & m].d);
                if (L->n > PF_HEAD) {
                    prefetch_turn(F, L->e[(L->head + PF_HEAD) & m].d, 1);
                    prefetch_out(F, L->e[(L->head + PF_HEAD) & m].d);
                }
                if (L->n > PF_NEXT)
                    prefetch_turn(F, L->e[(L->head + PF_NEXT) & m].d, 2);
            }
        }
        F->nev--;
        F->now = e.t;
        F->cur_key = e.seq;
        F->st.events++;
        uint64_t arg = e.d & EV_ARG_MASK;
        /* F->cur_dev: the device the event happens at, origin of what it
         * schedules */
        switch (e.d >> EV_SHIFT) {
        case EV_TX_END:
            F->cur_dev = (uint32_t)(arg >> EV_DEV_SHIFT);
            hs__switch_tx_end(F, (uint32_t)arg);
            break;
        case EV_NIC_TX_END:
            F->cur_dev = (uint32_t)(arg >> EV_DEV_SHIFT);
            hs__nic_tx_end(F, (uint32_t)arg);
            break;
        case EV_CREDIT:
            F->cur_dev = link_from_dev(F, (uint32_t)(arg >> CR_LINK_SHIFT));
            hs__on_credit(F, arg);
            break;
        case EV_ARRIVE:
            F->cur_dev = (uint32_t)(arg >> EV_DEV_SHIFT);
            hs__switch_arrive(F, (uint32_t)arg);
            break;
        case EV_DELIVER:
            F->cur_dev = (uint32_t)(arg >> EV_DEV_SHIFT);
            hs__nic_deliver(F, (uint32_t)arg);
            break;
        case EV_POST:
            F->cur_dev = F->S + F->ms[arg].src;
            hs__nic_post(F, (uint32_t)arg);
            break;
        case EV_TIMER:
            F->cur_dev = F->tm_dev[arg];
            /* the driver's timers (in a parallel run, each process runs
             * its own sources'): counted by part 0 only, which counts the
             * others' as it skips them; a node's timer runs at its part */
            if (F->pd && hs_fabric_part(F) != 0 && F->cur_dev == F->S + F->N)
                hs__pdes_uncount(F);
            on_timer(F, (uint32_t)arg);
            break;
        case EV_WAKE:
            F->cur_dev = link_from_dev(F, (uint32_t)arg);
            hs__on_wake(F, (uint32_t)arg);
            break;
        case EV_BS_TICK:
            hs__bs_tick(F);
            break;
        case EV_CREDIT_RING:
            F->cur_dev = F->op[arg].sw;
            hs__on_credit_ring(F, (uint32_t)arg);
            break;
        }
        if (F->error)
            break;
        if (F->stop) {
            rc = 2;
            break;
        }
    }
    F->in_run = 0;
    F->stop = 0;
    /* what has run at time now, for keyed credits read outside a run */
    F->cr_bkey = rc == 2 || F->error ? F->cur_key : UINT64_MAX;
    if (F->error)
        return F->error;
    if (F->pd)
        return rc;   /* idle here may wait for other processes: pdes.c decides */
    if (rc == 1 && F->pk_live > 0)
        return HS_EDEADLOCK;
    if (rc == 1 && F->ms_live > 0) {
        /* messages left with no event to move them: only possible if a
         * NIC holds work it cannot send, which is a deadlock too */
        return HS_EDEADLOCK;
    }
    return rc;
}

hs_time hs__ev_next_time(const hs_fabric *F)
{
    const hs__fev *x;
    hs_time t = ev_next(F, &x) < 0 ? HS_TIME_NEVER : x->t;
    if (F->cr_last > F->now) {
        /* keyed credits still to come are events too (link.c) */
        for (uint32_t l = 1; l <= F->L; l++) {
            const hs__cring *r = &F->op[l].ring;
            for (unsigned i = 0; i < r->n; i++) {
                unsigned k = (r->head + i) % CR_RING;
                if ((r->v[k] & (CR_KEYED | CR_ARMED)) == CR_KEYED && r->t[k] < t &&
                    !hs__ev_passed(F, r->t[k], F->crk[(size_t)l * CR_RING + k]))
                    t = r->t[k];
            }
        }
    }
    return t;
}

void hs_fabric_stop(hs_fabric *F)
{
    if (F->in_run)
        F->stop = 1;
}
