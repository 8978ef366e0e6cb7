/* Network deadlock detection: a cycle of switch input buffers, each of whose
 * head packets waits for credit that only the next buffer of the cycle can
 * give back.
 *
 * Why this is exact.  A packet leaves a switch input FIFO (link l, VC v)
 * only from its head, and only into a buffer with room for all of it
 * (virtual cut-through).  Credit for buffer (o, w) comes back only when a
 * packet leaves that buffer.  So draw an edge (l, v) -> (o, w) when the
 * head of (l, v) is routed to output o on VC w and the credit it holds plus
 * every credit on its way back to it (returns in the link's ring or in
 * EV_CREDIT events, and the packet of (o, w) being transmitted out right
 * now) is less than the head's size.  Each buffer has at most one edge (its
 * head's), so the graph is a set of chains and cycles.  On a cycle no
 * buffer can ever send: none can get credit before the next one sends.  A
 * NIC is never on a cycle: receive processing always frees its buffer, and
 * an injecting NIC waits on the first switch without anyone waiting on it.
 *
 * Cost: O(links x VCs) plus, only when a candidate cycle is found, one scan
 * of the pending events for credit returns (the ring is short and
 * overflows into events).  The scratch arrays are allocated on first use
 * and kept. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Credit on its way back to buffer b, from the link's ring, transmissions
 * in progress out of that buffer and (with_events) EV_CREDIT events. */
static void pending_credit(hs_fabric *F, int64_t *pend, int with_events)
{
    unsigned nvc = F->nvc;
    memset(pend, 0, ((size_t)F->L + 1) * nvc * sizeof *pend);
    for (uint32_t l = 1; l <= F->L; l++) {
        const hs__cring *r = &F->op[l].ring;
        for (unsigned k = 0; k < r->n; k++) {
            uint32_t v = r->v[(r->head + k) % CR_RING];
            pend[(size_t)l * nvc + ((v >> CR_VC_SHIFT) & CR_VC_MASK)] += v & ((1u << CR_VC_SHIFT) - 1);
        }
        const hs__oport *op = &F->op[l];
        if (op->busy && F->lk[l].from_kind == HS_DEV_SWITCH && op->cur_in != HS_NIL)
            pend[(size_t)op->cur_in * nvc + op->cur_vc] += op->cur_bytes;
    }
    if (!with_events)
        return;
    /* the heap, then each lane (a ring) in place */
    for (unsigned s = 0; s <= F->nlanes; s++) {
        const hs__lane *L = s ? &F->lanes[s - 1] : NULL;
        size_t cnt = L ? L->n : F->ev_n;
        for (size_t k = 0; k < cnt; k++) {
            const hs__fev *e = L ? &L->e[(L->head + k) & (L->cap - 1)] : &F->ev[k];
            if ((e->d >> EV_SHIFT) != EV_CREDIT)
                continue;
            uint64_t a = e->d & EV_ARG_MASK;
            pend[(size_t)(a >> CR_LINK_SHIFT) * nvc + ((a >> CR_VC_SHIFT) & 7u)] +=
                (int64_t)(a & ((1u << CR_BYTES_BITS) - 1));
        }
    }
}

/* The buffer the head of buffer b waits for in vain, or HS_NIL. */
static uint32_t blocked_on(const hs_fabric *F, uint32_t b, const int64_t *pend)
{
    uint32_t h = hs__fifo(F, b / F->nvc, b % F->nvc)->head;
    if (h == HS_NIL)
        return HS_NIL;
    const hs__pkt *p = &F->pk[h];
    uint32_t o = p->out;
    if (o == HS_NIL || o == 0 || o > F->L || F->lk[o].to_kind != HS_DEV_SWITCH)
        return HS_NIL;
    uint32_t b2 = o * F->nvc + p->out_vc;
    if (hs__cr(F, o)[p->out_vc] + pend[b2] >= (int64_t)p->bytes)
        return HS_NIL;
    return b2;
}

/* One pass: fills d with the first cycle found (in buffer order), 1 if
 * found. */
static int find_cycle(hs_fabric *F, const int64_t *pend, hs_fabric_deadlock *d)
{
    unsigned nvc = F->nvc;
    uint32_t nb = (F->L + 1) * nvc;
    uint32_t *nxt = F->dl_next, *mark = F->dl_mark;
    for (uint32_t b = 0; b < nb; b++) {
        nxt[b] = b >= nvc && F->lk[b / nvc].to_kind == HS_DEV_SWITCH ? blocked_on(F, b, pend)
                                                                   : HS_NIL;
        mark[b] = 0;
    }
    for (uint32_t s = 0; s < nb; s++) {
        if (mark[s] || nxt[s] == HS_NIL)
            continue;
        uint32_t stamp = s + 1, b = s;
        while (b != HS_NIL && !mark[b]) {
            mark[b] = stamp;
            b = nxt[b];
        }
        if (b == HS_NIL || mark[b] != stamp)
            continue;   /* ran out, or into an earlier walk */
        /* b is on a cycle: start it at its smallest buffer, for a stable
         * report */
        uint32_t lo = b;
        for (uint32_t x = nxt[b]; x != b; x = nxt[x])
            if (x < lo)
                lo = x;
        memset(d, 0, sizeof *d);
        uint32_t x = lo;
        do {
            if (d->n < HS_DEADLOCK_MAX_HOPS) {
                hs_deadlock_hop *hp = &d->hop[d->n++];
                hp->link = x / nvc;
                hp->vc = (uint8_t)(x % nvc);
                hp->sw = F->lk[hp->link].to;
                uint32_t h = hs__fifo(F, x / nvc, x % nvc)->head;
                for (uint32_t p = h; p != HS_NIL; p = F->pk[p].next) {
                    hp->packets++;
                    hp->bytes += F->pk[p].bytes;
                }
                hp->need = F->pk[h].bytes;
                hp->wait_link = nxt[x] / nvc;
                hp->wait_vc = (uint8_t)(nxt[x] % nvc);
                hp->credit = hs__cr(F, nxt[x] / nvc)[nxt[x] % nvc];
            }
            d->total++;
            x = nxt[x];
        } while (x != lo);
        return 1;
    }
    return 0;
}

int hs_fabric_find_deadlock(hs_fabric *F, hs_fabric_deadlock *d)
{
    memset(d, 0, sizeof *d);
    if (F->prm.unbounded)
        return 0;
    size_t nb = ((size_t)F->L + 1) * F->nvc;
    if (!F->dl_next) {
        F->dl_next = malloc(nb * sizeof *F->dl_next);
        F->dl_mark = malloc(nb * sizeof *F->dl_mark);
        F->dl_pend = malloc(nb * sizeof *F->dl_pend);
        if (!F->dl_next || !F->dl_mark || !F->dl_pend) {
            free(F->dl_next);
            free(F->dl_mark);
            free(F->dl_pend);
            F->dl_next = F->dl_mark = NULL;
            F->dl_pend = NULL;
            return HS_ENOMEM;
        }
    }
    /* cheap pass first; a candidate is confirmed with the credits that
     * wait in events too */
    pending_credit(F, F->dl_pend, 0);
    if (!find_cycle(F, F->dl_pend, d))
        return 0;
    pending_credit(F, F->dl_pend, 1);
    if (!find_cycle(F, F->dl_pend, d)) {
        memset(d, 0, sizeof *d);
        return 0;
    }
    d->t = F->now;
    return 1;
}

static const char *sub_name(unsigned sub)
{
    switch (sub) {
    case HS_SUB_UP: return "up";
    case HS_SUB_DOWN: return "down";
    case HS_SUB_LOCAL: return "local";
    case HS_SUB_GLOBAL: return "global";
    case HS_SUB_TORUS: return "torus";
    default: return "link";
    }
}

size_t hs_fabric_deadlock_str(const hs_fabric *F, const hs_fabric_deadlock *d, char *buf,
                              size_t n)
{
    size_t k = 0;
    if (n)
        buf[0] = '\0';
#define PUT(...)                                                              \
    do {                                                                      \
        int w_ = snprintf(buf + (k < n ? k : n), k < n ? n - k : 0, __VA_ARGS__); \
        if (w_ > 0)                                                           \
            k += (size_t)w_;                                                  \
    } while (0)
    char t[40];
    PUT("network deadlock at %s: a cycle of %u full buffers, each head packet waiting for "
        "credit from the next\n", hs_time_str(d->t, t, sizeof t), d->total);
    for (unsigned i = 0; i < d->n; i++) {
        const hs_deadlock_hop *h = &d->hop[i];
        const hs_link_info *l = &F->lk[h->link];
        char a[64], b[64];
        hs_topo_switch_name(F->topo, l->from, a, sizeof a);
        hs_topo_switch_name(F->topo, l->to, b, sizeof b);
        PUT("  link %u %s->%s (%s) VC %u: %u packets, %llu B; head (%u B) waits for link %u "
            "VC %u (%lld B of credit)\n", h->link, a, b, sub_name(l->sub), h->vc, h->packets,
            (unsigned long long)h->bytes, h->need, h->wait_link, h->wait_vc,
            (long long)h->credit);
    }
    if (d->n < d->total)
        PUT("  ... %u more buffers\n", d->total - d->n);
#undef PUT
    return k;
}

