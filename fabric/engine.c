/* The discrete-event core: a 4-ary min-heap of (time, data) events, the
 * packet pool, and the run loop that dispatches events to the devices.
 *
 * Why a 4-ary heap: the pending set is a few events per busy port (end of
 * transmission, credit return, arrival), i.e. up to hundreds of thousands,
 * with times spread over a few microseconds.  A 4-ary heap of 16-byte
 * entries keeps a node's children in one cache line and needs no tuning of
 * bucket widths, which a calendar queue would for the mix of nanosecond
 * hops and microsecond timers the replay adds.  Ties are broken by the
 * event data (type, then object index), so the order is total: the same
 * inputs give the same run. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

static inline int ev_less(const hs__ev *a, const hs__ev *b)
{
    return a->t < b->t || (a->t == b->t && a->d < b->d);
}

int hs__ev_push(hs_fabric *F, hs_time t, unsigned type, uint64_t arg)
{
    if (F->ev_n == F->ev_cap) {
        size_t nc = F->ev_cap ? F->ev_cap * 2 : 4096;
        hs__ev *n = realloc(F->ev, nc * sizeof *n);
        if (!n) {
            F->error = HS_ENOMEM;
            return HS_ENOMEM;
        }
        F->ev = n;
        F->ev_cap = nc;
    }
    hs__ev e = { t, (uint64_t)type << EV_SHIFT | arg };
    size_t i = F->ev_n++;
    hs__ev *h = F->ev;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!ev_less(&e, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
    return 0;
}

static hs__ev ev_pop(hs_fabric *F)
{
    hs__ev *h = F->ev;
    hs__ev top = h[0];
    hs__ev last = h[--F->ev_n];
    size_t n = F->ev_n, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c;
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (ev_less(&h[j], &h[best]))
                best = j;
        if (!ev_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    if (n)
        h[i] = last;
    return top;
}

/* ---- packet pool ----------------------------------------------------------- */

uint32_t hs__pkt_alloc(hs_fabric *F)
{
    if (F->pk_free == HS_NIL) {
        uint32_t nc = F->pk_cap ? F->pk_cap * 2 : 4096;
        if (nc <= F->pk_cap || nc == HS_NIL) {
            F->error = HS_ENOMEM;
            return HS_NIL;
        }
        hs__pkt *n = realloc(F->pk, (size_t)nc * sizeof *n);
        if (!n) {
            F->error = HS_ENOMEM;
            return HS_NIL;
        }
        F->pk = n;
        for (uint32_t i = F->pk_cap; i < nc; i++)
            n[i].next = i + 1 < nc ? i + 1 : HS_NIL;
        F->pk_free = F->pk_cap;
        F->pk_cap = nc;
    }
    uint32_t p = F->pk_free;
    F->pk_free = F->pk[p].next;
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
    while (F->ev_n) {
        if (F->ev[0].t > until) {
            F->now = until;
            rc = 0;
            break;
        }
        hs__ev e = ev_pop(F);
        F->now = e.t;
        F->st.events++;
        uint64_t arg = e.d & EV_ARG_MASK;
        switch (e.d >> EV_SHIFT) {
        case EV_TX_END:
            if (F->lk[arg].from_kind == HS_DEV_NODE)
                hs__nic_tx_end(F, (uint32_t)arg);
            else
                hs__switch_tx_end(F, (uint32_t)arg);
            break;
        case EV_CREDIT:
            hs__on_credit(F, arg);
            break;
        case EV_ARRIVE:
            hs__switch_arrive(F, (uint32_t)arg);
            break;
        case EV_DELIVER:
            hs__nic_deliver(F, (uint32_t)arg);
            break;
        case EV_POST:
            hs__nic_post(F, (uint32_t)arg);
            break;
        case EV_TIMER:
            on_timer(F, (uint32_t)arg);
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
    if (F->error)
        return F->error;
    if (rc == 1 && F->pk_live > 0)
        return HS_EDEADLOCK;
    if (rc == 1 && F->ms_live > 0) {
        /* messages left with no event to move them: only possible if a
         * NIC holds work it cannot send, which is a deadlock too */
        return HS_EDEADLOCK;
    }
    return rc;
}

void hs_fabric_stop(hs_fabric *F)
{
    if (F->in_run)
        F->stop = 1;
}
