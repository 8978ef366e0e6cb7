/* NICs: injection queues, packetisation, the injection link's transmitter,
 * and the receive side (processing rate, in-band counters, sampled records,
 * message completion).
 *
 * A NIC has Q injection queues (like send queues / QPs); a message goes to
 * queue dst mod Q, so messages between a pair stay in order (those posted
 * on lane 1, hs_fabric_inject_lane, to queue (dst + Q/2) mod Q), and the NIC
 * sends one packet at a time round-robin over its non-empty queues.  A
 * packet is cut from its message when the injection link is idle and the
 * NIC wants to send; from then on it waits only for credits (its `ready`
 * time is the cut), so the NIC's own backlog never counts as congestion of
 * the injection link, while back-pressure from the switch does.
 *
 * Sequence numbers are per source NIC (one counter for all destinations):
 * unique and increasing within every (source, destination) pair, which is
 * all packet identity needs, without per-pair state that would grow as N^2
 * under uniform traffic. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* Freed messages first, then never-used slots in order (as the packet
 * pool, engine.c). */
uint32_t hs__msg_alloc(hs_fabric *F)
{
    uint32_t m = F->ms_free;
    if (m != HS_NIL) {
        F->ms_free = F->ms[m].next;
    } else {
        if (F->ms_hw == F->ms_cap) {
            uint32_t nc = F->ms_cap ? F->ms_cap * 2 : 1024;
            if (nc <= F->ms_cap || nc == HS_NIL)
                return HS_NIL;
            hs__msg *n = realloc(F->ms, (size_t)nc * sizeof *n);
            if (!n)
                return HS_NIL;
            F->ms = n;
            F->ms_cap = nc;
        }
        m = F->ms_hw++;
    }
    F->ms_live++;
    return m;
}

static void msg_free(hs_fabric *F, uint32_t m)
{
    F->ms[m].next = F->ms_free;
    F->ms_free = m;
    F->ms_live--;
}

void hs__nic_prefetch(const hs_fabric *F, uint32_t node)
{
    if (!F->pf)
        return;
    size_t q = (size_t)node * F->prm.nic_queues;
    uint32_t o = hs_topo_node_injection(F->topo, node);
    hs__pf(&F->nic[node]);
    hs__pf(&F->mq_tail[q]);
    hs__pf(&F->mq_head[q]);
    hs__pf(&F->op[o]);
    hs__pf((const char *)&F->op[o] + 64);
    hs__pf((const char *)&F->op[o] + 128);
}

void hs__nic_post(hs_fabric *F, uint32_t m)
{
    hs__msg *msg = &F->ms[m];
    hs__nic *n = &F->nic[msg->src];
    unsigned Q = F->prm.nic_queues;
    size_t q = n->qoff + (msg->dst + (msg->lane ? Q / 2 : 0)) % Q;
    msg->next = HS_NIL;
    if (F->mq_tail[q] == HS_NIL)
        F->mq_head[q] = m;
    else
        F->ms[F->mq_tail[q]].next = m;
    F->mq_tail[q] = m;
    n->nactive++;
    if (n->nactive > n->qmax) {
        n->qmax = n->nactive;
        if (n->qmax > F->st.max_injection_queue)
            F->st.max_injection_queue = n->qmax;
    }
    F->st.messages_posted++;
    if (F->bs) {
        hs__bs_post(F, msg->src);
        return;
    }
    hs__nic_kick(F, msg->src);
}

/* Cuts the next packet from the next non-empty queue; HS_NIL if none. */
uint32_t hs__nic_cut(hs_fabric *F, uint32_t node)
{
    hs__nic *n = &F->nic[node];
    if (n->nactive == 0)
        return HS_NIL;
    unsigned Q = F->prm.nic_queues;
    size_t q = 0;
    unsigned k;
    for (k = 0; k < Q; k++) {
        q = n->qoff + (n->rrq + k) % Q;
        if (F->mq_head[q] != HS_NIL)
            break;
    }
    uint32_t m = F->mq_head[q];
    uint32_t pi = hs__pkt_alloc(F);
    if (pi == HS_NIL)
        return HS_NIL;
    n->rrq = (n->rrq + k + 1) % Q;
    hs__msg *msg = &F->ms[m];
    hs__pkt *p = &F->pk[pi];
    hs__pkc *pc = &F->pc[pi];
    uint32_t mtu = F->prm.mtu;
    uint64_t payload = msg->cut + 1 < msg->npk ? mtu : msg->bytes - (uint64_t)(msg->npk - 1) * mtu;
    uint64_t wire = payload + F->prm.header;
    if (wire < HS_FABRIC_MIN_PACKET)
        wire = HS_FABRIC_MIN_PACKET;
    pc->seq = n->seq++;
    pc->cookie = msg->cookie;
    pc->mser = msg->mser;
    pc->npk = msg->npk;
    pc->src = node;
    pc->msg = m;
    pc->payload = (uint32_t)payload;
    pc->phase = msg->phase;
    pc->has_pl = msg->has_pl;
    p->dst = msg->dst;
    p->key = msg->monitored ? hs_packet_key(F->scheme.salt, node, msg->dst, pc->seq) : 0;
    p->ready = F->now;
    p->tail = 0;
    p->bytes = (uint32_t)wire;
    p->in = HS_NIL;
    p->out = hs_topo_node_injection(F->topo, node);
    p->next = HS_NIL;
    p->inter = HS_NIL;
    p->pidx = msg->pidx;
    /* the lane (VC within each class) it keeps to its destination */
    unsigned lanes = F->vc_lanes, lane = 0;
    if (lanes > 1) {
        switch (F->topo->vcsel) {
        case HS_VCSEL_RR: lane = n->rr_lane++ % lanes; break;
        case HS_VCSEL_SL: lane = msg->phase % lanes; break;
        default: lane = msg->dst % lanes; break;
        }
    }
    p->lane = lane & 7u;
    p->vc = 0;
    p->out_vc = (uint8_t)lane;   /* class 0 on the injection link */
    p->monitored = msg->monitored & 1u;
    p->nsw = 0;
    p->ng = 0;
    hs_field_init(&p->field);
    if (++msg->cut == msg->npk) {
        F->mq_head[q] = msg->next;
        if (msg->next == HS_NIL)
            F->mq_tail[q] = HS_NIL;
        n->nactive--;
    }
    F->st.packets_injected++;
    return pi;
}

void hs__nic_kick(hs_fabric *F, uint32_t node)
{
    uint32_t o = hs_topo_node_injection(F->topo, node);
    hs__oport *op = &F->op[o];
    if (op->busy)
        return;
    hs__nic *n = &F->nic[node];
    if (n->hold == HS_NIL) {
        n->hold = hs__nic_cut(F, node);
        if (n->hold == HS_NIL)
            return;
    }
    uint32_t pi = n->hold;
    hs__pkt *p = &F->pk[pi];
    hs__credit_absorb(F, o);
    int64_t *cr = &hs__cr(F, o)[p->out_vc];
    if (*cr < (int64_t)p->bytes) {
        hs__stall_begin(F, o, p->pidx);
        return;
    }
    hs__stall_end(F, o);
    n->hold = HS_NIL;
    *cr -= p->bytes;
    op->busy = 1;
    uint32_t m = F->pc[pi].msg;
    hs__msg *msg = &F->ms[m];
    op->cur_msg = msg->cut == msg->npk ? m : HS_NIL;  /* the held packet is the last cut */
    hs__link_transmit(F, o, pi, F->now);
}

/* The source is done with a message when its last packet has left: its
 * delivery is counted at the destination (rx_count). */
void hs__nic_msg_sent(hs_fabric *F, uint32_t m)
{
    hs__msg *msg = &F->ms[m];
    msg->sent = 1;
    uint64_t cookie = msg->cookie;
    msg_free(F, m);
    if (F->cb.sent)
        F->cb.sent(F->cb_ctx, F, cookie, F->now);
}

/* splitmix64's finalizer: every bit of the key reaches the low bits that
 * choose the slot (a multiply alone carries only upwards, which left the
 * source, in the high bits, out: the messages of one serial from every
 * source met in one probe run). */
static inline size_t rx_slot(uint64_t key, size_t mask)
{
    key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ull;
    key = (key ^ (key >> 27)) * 0x94d049bb133111ebull;
    return (size_t)(key ^ (key >> 31)) & mask;
}

static int rx_grow(hs_fabric *F)
{
    size_t nc = F->rx_cap ? F->rx_cap * 2 : 1024;
    uint64_t *k = calloc(nc, sizeof *k);
    uint32_t *c = malloc(nc * sizeof *c);
    if (!k || !c) {
        free(k);
        free(c);
        return HS_ENOMEM;
    }
    for (size_t i = 0; i < F->rx_cap; i++) {
        if (!F->rx_key[i])
            continue;
        size_t j = rx_slot(F->rx_key[i], nc - 1);
        while (k[j])
            j = (j + 1) & (nc - 1);
        k[j] = F->rx_key[i];
        c[j] = F->rx_cnt[i];
    }
    free(F->rx_key);
    free(F->rx_cnt);
    F->rx_key = k;
    F->rx_cnt = c;
    F->rx_cap = nc;
    return 0;
}

/* Counts a delivered packet of a message of npk > 1 packets; 1 when it was
 * the last (the entry is removed), 0 otherwise, negative on failure. */
static int rx_count(hs_fabric *F, uint32_t src, uint64_t mser, uint32_t npk)
{
    if (2 * (F->rx_n + 1) > F->rx_cap && rx_grow(F))
        return HS_ENOMEM;
    uint64_t key = ((uint64_t)src << 40 | (mser & ((1ull << 40) - 1))) + 1;
    size_t mask = F->rx_cap - 1, i = rx_slot(key, mask);
    while (F->rx_key[i] && F->rx_key[i] != key)
        i = (i + 1) & mask;
    if (!F->rx_key[i]) {
        F->rx_key[i] = key;
        F->rx_cnt[i] = 1;
        F->rx_n++;
        return 0;
    }
    if (++F->rx_cnt[i] < npk)
        return 0;
    /* remove, shifting back the entries of the probe run after it */
    F->rx_n--;
    for (size_t j = (i + 1) & mask; F->rx_key[j]; j = (j + 1) & mask) {
        size_t h = rx_slot(F->rx_key[j], mask);
        int stays = i < j ? (h > i && h <= j) : (h > i || h <= j);
        if (stays)
            continue;
        F->rx_key[i] = F->rx_key[j];
        F->rx_cnt[i] = F->rx_cnt[j];
        i = j;
    }
    F->rx_key[i] = 0;
    return 1;
}

void hs__nic_tx_end(hs_fabric *F, uint32_t o)
{
    hs__oport *op = &F->op[o];
    op->busy = 0;
    uint32_t m = op->cur_msg;
    op->cur_msg = HS_NIL;
    if (m != HS_NIL)
        hs__nic_msg_sent(F, m);
    hs__nic_kick(F, op->sw - F->S);
}

void hs__nic_deliver(hs_fabric *F, uint32_t pi)
{
    hs__pkt *p = &F->pk[pi];
    const hs__pkc *pc = &F->pc[pi];
    uint32_t node = p->dst;
    if (p->monitored) {
        F->st.packets_monitored++;
        if (hs_field_overflowed(&F->scheme, &p->field))
            F->st.packets_overflowed++;
        if (F->counters_ok) {
            uint32_t pid = hs_pid(&F->scheme, p->key);
            hs_counters *c = hs__counters_phase(F, p->pidx);
            if (c)
                hs_counters_update(c, &F->scheme, pid, &p->field);
            c = hs__counters_window(F, F->now);
            if (c)
                hs_counters_update(c, &F->scheme, pid, &p->field);
        }
        if (F->prm.records) {
            if (F->nrec < F->prm.records_cap) {
                if (F->nrec == F->caprec) {
                    size_t nc = F->caprec ? F->caprec * 2 : 65536;
                    if (nc > F->prm.records_cap)
                        nc = F->prm.records_cap;
                    hs__record *r = realloc(F->rec, nc * sizeof *r);
                    if (!r) {
                        F->error = HS_ENOMEM;
                        return;
                    }
                    F->rec = r;
                    F->caprec = nc;
                }
                hs__record *r = &F->rec[F->nrec++];
                r->src = pc->src;
                r->dst = node;
                r->seq = pc->seq;
                r->key = F->cur_key;
                r->t = F->now;
                r->field = hs_field_pack(&F->scheme, &p->field);
                r->phase = pc->phase;
            } else {
                F->rec_dropped++;
            }
        }
    }
    F->st.packets_delivered++;
    F->st.bytes_delivered += pc->payload;
    F->ph_last[p->pidx] = F->now;
    if (!F->bs) {
        uint32_t ej = hs_topo_node_ejection(F->topo, node);
        hs__credit_return(F, ej, 0, p->bytes);
    }
    uint64_t cookie = pc->cookie, mser = pc->mser;
    uint32_t src = pc->src;
    int has_pl = pc->has_pl;
    int last = pc->npk > 1 ? rx_count(F, pc->src, pc->mser, pc->npk) : 1;
    hs__pkt_free(F, pi);
    if (last < 0) {
        F->error = last;
        return;
    }
    if (last) {
        /* `sent` fired at the end of the last injection, which precedes
         * the last delivery by at least the links' latencies */
        F->st.messages_delivered++;
        F->ms_pending--;
        if (has_pl && !hs__pl_take(F, src, mser)) {
            F->error = HS_ESTATE;   /* cannot be: its payload was put at its post */
            return;
        }
        if (F->cb.delivered)
            F->cb.delivered(F->cb_ctx, F, cookie, F->now);
        F->pl_cur_len = 0;
    }
}
