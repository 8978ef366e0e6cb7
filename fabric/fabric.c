/* The network object: parameters, construction of all per-link, per-switch
 * and per-NIC state, message injection, timers, phase names and stats.
 *
 * Ownership: hs_fabric_create returns a network the caller frees with
 * hs_fabric_destroy; it owns its topology.  On failure nothing is left
 * allocated and *out is NULL. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void hs_fabric_params_default(hs_fabric_params *p)
{
    memset(p, 0, sizeof *p);
    p->mtu = 4096;
    p->header = 0;
    p->vc_buffer = 32 * 1024;
    p->nic_buffer = 32 * 1024;
    p->unbounded = 0;
    p->route_delay = 100 * HS_PS_PER_NS;
    p->rx_rate = 0;
    p->nic_queues = 8;
    p->arbiter = HS_ARB_RR;
    p->tau_factor = 2.0;
    p->tau = 0;
    p->window = 10 * HS_PS_PER_US;
    p->max_windows = 256;
    p->ugal_threshold = HS_UGAL_AUTO;
    p->seed = 1;
    hs_scheme_cfg_default(&p->scheme);
    p->scheme.hop_bits = 0; /* auto: fitted to the longest route */
    p->records = 1;
    p->records_cap = 4u << 20;
}

static int check_params(const hs_fabric_params *p, hs_error *err)
{
    if (p->mtu == 0 || p->mtu > HS_FABRIC_MAX_MTU)
        return hs_error_set(err, HS_EINVAL, "MTU %u: must be 1..%u bytes", p->mtu,
                            HS_FABRIC_MAX_MTU);
    if (p->header > 4096)
        return hs_error_set(err, HS_EINVAL, "header %u bytes: at most 4096", p->header);
    uint64_t full = (uint64_t)p->mtu + p->header;
    if (full < HS_FABRIC_MIN_PACKET)
        full = HS_FABRIC_MIN_PACKET;
    if (!p->unbounded && p->vc_buffer < full)
        return hs_error_set(err, HS_EINVAL, "VC buffer %llu bytes is smaller than a full "
                            "packet (%llu bytes): virtual cut-through needs room for one",
                            (unsigned long long)p->vc_buffer, (unsigned long long)full);
    if (!p->unbounded && p->nic_buffer < full)
        return hs_error_set(err, HS_EINVAL, "NIC buffer %llu bytes is smaller than a full "
                            "packet (%llu bytes)", (unsigned long long)p->nic_buffer,
                            (unsigned long long)full);
    if (p->vc_buffer > (1ull << 40) || p->nic_buffer > (1ull << 40))
        return hs_error_set(err, HS_EINVAL, "buffers above 1 TiB: use unbounded buffers");
    if (p->nic_queues == 0 || p->nic_queues > 1024)
        return hs_error_set(err, HS_EINVAL, "NIC queues %u: must be 1..1024", p->nic_queues);
    if (p->arbiter != HS_ARB_RR)
        return hs_error_set(err, HS_EINVAL, "unknown arbiter %d", (int)p->arbiter);
    if (!(p->tau_factor > 0) || p->tau_factor > 1e6)
        return hs_error_set(err, HS_EINVAL, "tau factor %g: must be positive", p->tau_factor);
    if (p->window == 0)
        return hs_error_set(err, HS_EINVAL, "window width must be positive");
    if (p->route_delay > 1000 * HS_PS_PER_US)
        return hs_error_set(err, HS_EINVAL, "routing delay above 1 ms");
    return 0;
}

void hs_fabric_destroy(hs_fabric *F)
{
    if (!F)
        return;
    hs__bs_free(F);
    hs__truth_free(F);
    if (F->scheme_ok)
        hs_scheme_free(&F->scheme);
    free(F->op);
    free(F->crk);
    free(F->ip);
    free(F->rq);
    free(F->credits);
    free(F->req);
    free(F->ibusy);
    free(F->sw_boff);
    free(F->sw_nreq);
    free(F->nic);
    free(F->mq_head);
    free(F->mq_tail);
    free(F->rx_rate);
    free(F->pk);
    free(F->pc);
    free(F->ms);
    free(F->rx_key);
    hs__pl_free(F);
    free(F->rx_cnt);
    free(F->tm);
    free(F->tm_dev);
    free(F->dl_next);
    free(F->dl_mark);
    free(F->dl_pend);
    hs__ev_free(F);
    hs__pdes_free(F);
    hs_topo_free(F->topo);
    free(F);
}

int hs_fabric_create_topo(hs_fabric **out, hs_topo *t, const hs_fabric_params *p,
                          hs_error *err)
{
    *out = NULL;
    hs_fabric_params def;
    if (!p) {
        hs_fabric_params_default(&def);
        p = &def;
    }
    int rc = check_params(p, err);
    if (rc) {
        hs_topo_free(t);
        return rc;
    }
    hs_fabric *F = calloc(1, sizeof *F);
    if (!F) {
        hs_topo_free(t);
        return HS_ENOMEM;
    }
    F->topo = t;
    F->prm = *p;
    F->N = t->nnodes;
    F->S = t->nswitches;
    F->L = t->nlinks;
    F->nvc = t->nvc;
    F->vc_lanes = t->lanes ? t->lanes : 1;
    F->lk = t->links;
    F->pk_free = F->ms_free = F->tm_free = HS_NIL;
    hs_scheme_cfg cfg = p->scheme;
    cfg.nlinks = F->L;
    F->max_route = hs_topo_max_route_links(t);
    if (cfg.hop_bits == 0) {
        /* the documented default c = 4 where it holds every route, else the
         * smallest width that does: a default field never overflows */
        unsigned fit = hs_hop_bits_fit(F->max_route);
        if (!fit) {
            hs_fabric_destroy(F);
            return hs_error_set(err, HS_EINVAL, "routes of up to %u links do not fit the "
                                "largest hop counter (%d bits, %d hops)", F->max_route,
                                HS_HOP_BITS_MAX, (1 << HS_HOP_BITS_MAX) - 2);
        }
        cfg.hop_bits = fit > HS_HOP_BITS_DEFAULT ? fit : HS_HOP_BITS_DEFAULT;
    }
    F->prm.scheme.hop_bits = cfg.hop_bits;
    F->monitor_p = 1.0;
    rc = hs_scheme_init(&F->scheme, &cfg, err);
    if (rc) {
        hs_fabric_destroy(F);
        return rc;
    }
    F->scheme_ok = 1;
    F->counters_ok = F->scheme.k <= HS_COUNTERS_KMAX;
    size_t L1 = (size_t)F->L + 1, nvc = F->nvc, Q = p->nic_queues;
    F->op = hs__big_alloc(L1 * sizeof *F->op);
    F->crk = hs__big_alloc(L1 * CR_RING * sizeof *F->crk);
    if (F->op)
        memset(F->op, 0, L1 * sizeof *F->op);
    size_t GP = t->port_off[F->S];
    F->ip = hs__big_alloc((GP ? GP : 1) * sizeof *F->ip);
    F->rq = hs__big_alloc((GP ? GP : 1) * nvc * sizeof *F->rq);
    if (F->ip)
        memset(F->ip, 0, (GP ? GP : 1) * sizeof *F->ip);
    if (F->rq)
        memset(F->rq, 0, (GP ? GP : 1) * nvc * sizeof *F->rq);
    if (nvc > HS_CR_INLINE)
        F->credits = calloc(L1 * nvc, sizeof *F->credits);
    F->sw_nreq = calloc(F->S ? F->S : 1, sizeof *F->sw_nreq);
    F->sw_boff = calloc(F->S ? F->S : 1, sizeof *F->sw_boff);
    F->nic = calloc(F->N, sizeof *F->nic);
    F->mq_head = malloc((size_t)F->N * Q * sizeof *F->mq_head);
    F->mq_tail = malloc((size_t)F->N * Q * sizeof *F->mq_tail);
    F->rx_rate = calloc(F->N, sizeof *F->rx_rate);
    if (!F->op || !F->crk || !F->ip || !F->rq || (nvc > HS_CR_INLINE && !F->credits) ||
        !F->sw_nreq || !F->sw_boff || !F->nic || !F->mq_head || !F->mq_tail || !F->rx_rate ||
        hs__truth_init(F) != 0 || hs__ev_init(F) != 0) {
        hs_fabric_destroy(F);
        return hs_error_set(err, HS_ENOMEM, "out of memory building the network");
    }
    memset(F->mq_head, 0xff, (size_t)F->N * Q * sizeof *F->mq_head);
    memset(F->mq_tail, 0xff, (size_t)F->N * Q * sizeof *F->mq_tail);
    /* Unbounded buffers: credits that can never run out, yet keep
     * occupancy (capacity - credits) exact for adaptive routing. */
    F->cap_vc = p->unbounded ? INT64_MAX / 4 : (int64_t)p->vc_buffer;
    int64_t cap_nic = p->unbounded ? INT64_MAX / 4 : (int64_t)p->nic_buffer;
    uint32_t full = p->mtu + p->header;
    if (full < HS_FABRIC_MIN_PACKET)
        full = HS_FABRIC_MIN_PACKET;
    if (F->prm.ugal_threshold == HS_UGAL_AUTO)
        F->prm.ugal_threshold = (uint64_t)HS_UGAL_AUTO_PACKETS * full;
    F->ugal_t = F->prm.ugal_threshold;
    for (uint32_t l = 1; l <= F->L; l++) {
        const hs_link_info *li = &F->lk[l];
        hs__oport *op = &F->op[l];
        op->ser_full = hs_ser_time(full, li->bw);
        if (p->tau)
            op->tau = p->tau;
        else
            op->tau = (hs_time)((double)op->ser_full * p->tau_factor + 0.5);
        if (op->tau == 0)
            op->tau = 1;
        if (li->to_kind == HS_DEV_SWITCH)
            op->gp_in = t->port_off[li->to] + li->to_port;
        op->sw = li->from_kind == HS_DEV_SWITCH ? li->from : F->S + li->from;
        op->to_sw = li->to_kind == HS_DEV_SWITCH ? li->to : HS_NIL;
        op->lat = li->lat;
        op->lf = (uint8_t)((li->kind == HS_LINK_INJECTION ? LF_INJECTION : 0) |
                           (li->kind == HS_LINK_SWITCH ? LF_SWITCH : 0) |
                           (li->sub == HS_SUB_GLOBAL ? LF_GLOBAL : 0) |
                           (li->to_kind == HS_DEV_SWITCH ? LF_TO_SWITCH : 0));
        F->op[l].stall_since = HS_TIME_NEVER;
        F->op[l].cur_msg = HS_NIL;
        F->op[l].cur_in = HS_NIL;
        F->op[l].acc_win = HS_NIL;
        if (li->to_kind == HS_DEV_SWITCH)
            for (size_t v = 0; v < nvc; v++)
                hs__cr(F, l)[v] = F->cap_vc;
        else
            hs__cr(F, l)[0] = cap_nic;  /* the NIC buffer is one pool */
    }
    if (hs__ev_init_lanes(F) != 0) {
        hs_fabric_destroy(F);
        return hs_error_set(err, HS_ENOMEM, "out of memory building the network");
    }
    for (size_t j = 0; j < GP * nvc; j++)
        F->rq[j].head = F->rq[j].tail = F->rq[j].out = HS_NIL;
    F->full_need = full;
    /* request bitsets: per switch output, one per output VC, each sized
     * for its switch's requesters (ports x VCs); per switch, one bitset of
     * the requesters whose input port is busy */
    size_t words = 0, bwords = 0;
    for (uint32_t s = 0; s < F->S; s++) {
        uint32_t ports = t->port_off[s + 1] - t->port_off[s];
        F->sw_nreq[s] = ports * (uint32_t)nvc;
        words += (size_t)ports * (nvc * ((F->sw_nreq[s] + 63) / 64) + (nvc + 1) / 2);
        F->sw_boff[s] = (uint32_t)bwords;
        bwords += (F->sw_nreq[s] + 63) / 64;
    }
    F->req = hs__big_alloc((words ? words : 1) * sizeof *F->req);
    F->ibusy = hs__big_alloc((bwords ? bwords : 1) * sizeof *F->ibusy);
    if (F->req)
        memset(F->req, 0, (words ? words : 1) * sizeof *F->req);
    if (F->ibusy)
        memset(F->ibusy, 0, (bwords ? bwords : 1) * sizeof *F->ibusy);
    /* The run loop's prefetches pay when what the events touch is beyond
     * the L2 cache, and only cost instructions when it is not (engine.c) */
    {
        long l2 = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
        l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
        if (l2 <= 0)
            l2 = 1l << 20;
        size_t hot = L1 * sizeof *F->op + GP * nvc * sizeof *F->rq + words * sizeof *F->req;
        F->pf = hot > (size_t)l2;
    }
    if (!F->req || !F->ibusy) {
        hs_fabric_destroy(F);
        return hs_error_set(err, HS_ENOMEM, "out of memory building the network");
    }
    words = 0;
    for (uint32_t s = 0; s < F->S; s++) {
        size_t w = (F->sw_nreq[s] + 63) / 64;
        for (uint32_t j = t->port_off[s]; j < t->port_off[s + 1]; j++) {
            uint32_t o = t->port_out[j];
            if (o != HS_NO_LINK)
                F->op[o].req_off = (uint32_t)words;
            words += w * nvc + (nvc + 1) / 2;
        }
    }
    for (uint32_t n = 0; n < F->N; n++) {
        F->nic[n].hold = HS_NIL;
        F->nic[n].qoff = n * (uint32_t)Q;
        uint64_t r = p->rx_rate ? p->rx_rate : F->lk[hs_topo_node_ejection(t, n)].bw;
        F->rx_rate[n] = r;
    }
    hs__seed(F->rng, p->seed);
    if (t->router.kind == HS_ROUTER_BOOKSIM && (rc = hs__bs_create(F, err)) != 0) {
        hs_fabric_destroy(F);
        return rc;
    }
    *out = F;
    return 0;
}

int hs_fabric_create(hs_fabric **out, const char *spec, const hs_fabric_params *p,
                     hs_error *err)
{
    hs_topo *t;
    *out = NULL;
    int rc = hs_topo_create(spec, &t, err);
    if (rc)
        return rc;
    return hs_fabric_create_topo(out, t, p, err);
}

const hs_topo *hs_fabric_topo(const hs_fabric *F) { return F->topo; }
const hs_fabric_params *hs_fabric_get_params(const hs_fabric *F) { return &F->prm; }
const hs_scheme *hs_fabric_scheme(const hs_fabric *F) { return &F->scheme; }
hs_time hs_fabric_now(const hs_fabric *F) { return F->now; }
uint64_t hs_fabric_pending(const hs_fabric *F) { return F->ms_pending; }

hs_time hs_fabric_phase_last_delivery(const hs_fabric *F, uint16_t phase)
{
    uint16_t i = F->phase_idx[phase];
    return i < F->nphase ? F->ph_last[i] : HS_TIME_NEVER;
}

hs_time hs_fabric_drain_time(const hs_fabric *F)
{
    long double bytes = 0;
    uint64_t rate = UINT64_MAX;
    for (uint32_t l = 1; l <= F->L; l++)
        if (F->lk[l].to_kind == HS_DEV_SWITCH)
            bytes += (long double)F->nvc * (long double)F->prm.vc_buffer;
    for (uint32_t n = 0; n < F->N; n++) {
        bytes += (long double)F->prm.nic_buffer;
        if (F->rx_rate[n] < rate)
            rate = F->rx_rate[n];
    }
    long double t = rate ? bytes * (long double)HS_PS_PER_S / (long double)rate : 0;
    return t >= (long double)(HS_TIME_NEVER / 2) ? HS_TIME_NEVER / 2 : (hs_time)(t + 0.5L);
}

void hs_fabric_set_callbacks(hs_fabric *F, const hs_fabric_callbacks *cb, void *ctx)
{
    if (cb)
        F->cb = *cb;
    else
        memset(&F->cb, 0, sizeof F->cb);
    F->cb_ctx = ctx;
}

int hs_fabric_inject(hs_fabric *F, hs_time t, uint32_t src, uint32_t dst, uint64_t bytes,
                     uint16_t phase, int monitored, uint64_t cookie)
{
    return hs_fabric_inject_lane(F, t, src, dst, bytes, phase, monitored, 0, cookie);
}

int hs_fabric_inject_lane(hs_fabric *F, hs_time t, uint32_t src, uint32_t dst, uint64_t bytes,
                          uint16_t phase, int monitored, unsigned lane, uint64_t cookie)
{
    return hs_fabric_inject_payload(F, t, src, dst, bytes, phase, monitored, lane, cookie, NULL, 0);
}

int hs_fabric_inject_payload(hs_fabric *F, hs_time t, uint32_t src, uint32_t dst, uint64_t bytes,
                             uint16_t phase, int monitored, unsigned lane, uint64_t cookie,
                             const void *payload, size_t len)
{
    if (F->error)
        return F->error;
    if (src >= F->N || dst >= F->N || src == dst || t < F->now || lane > 1 ||
        len > HS_FABRIC_PAYLOAD)
        return HS_EINVAL;
    if (!payload)
        len = 0;
    if (!hs_fabric_node_local(F, src))
        return HS_EINVAL;   /* a parallel run: another process simulates src */
    uint64_t npk = bytes ? (bytes + F->prm.mtu - 1) / F->prm.mtu : 1;
    if (npk >= UINT32_MAX)
        return HS_ERANGE;
    uint16_t pidx = hs__phase_index(F, phase);
    if (pidx == 0xffff)
        return HS_ENOMEM;
    uint32_t m = hs__msg_alloc(F);
    if (m == HS_NIL)
        return HS_ENOMEM;
    hs__msg *msg = &F->ms[m];
    msg->cookie = cookie;
    msg->bytes = bytes;
    msg->mser = F->nic[src].mser++;
    F->ms_pending++;
    msg->src = src;
    msg->dst = dst;
    msg->npk = (uint32_t)npk;
    msg->cut = 0;
    msg->next = HS_NIL;
    msg->phase = phase;
    msg->pidx = pidx;
    msg->monitored = monitored != 0;
    msg->sent = 0;
    msg->lane = (uint8_t)lane;
    msg->has_pl = len != 0;
    if (len) {
        /* for the destination: here, or in the outbox of its part */
        int rc = hs_fabric_node_local(F, dst) ? hs__pl_put(F, src, msg->mser, payload, (uint32_t)len)
                                              : hs__pdes_send_payload(F, dst, src, msg->mser,
                                                                      payload, (uint32_t)len);
        if (rc)
            return F->error = rc;   /* out of memory: the message is half posted */
    }
    /* a post originates at its NIC, in a run or outside (the event order's
     * origin, engine.h): whoever simulates the NIC counts its events */
    uint32_t cur = F->cur_dev, ext = F->ext_dev;
    F->cur_dev = F->ext_dev = F->S + src;
    int rc;
    if (t == F->now) {
        hs__nic_post(F, m);
        rc = F->error;
    } else {
        rc = hs__ev_push(F, t, EV_POST, m);
    }
    F->cur_dev = cur;
    F->ext_dev = ext;
    return rc;
}

static int timer_new(hs_fabric *F, hs_time t, uint32_t dev, uint64_t cookie)
{
    if (F->error)
        return F->error;
    if (t < F->now)
        return HS_EINVAL;
    if (F->tm_free == HS_NIL) {
        uint32_t nc = F->tm_cap ? F->tm_cap * 2 : 1024;
        uint64_t *n = realloc(F->tm, (size_t)nc * sizeof *n);
        if (!n)
            return HS_ENOMEM;
        F->tm = n;
        uint32_t *d = realloc(F->tm_dev, (size_t)nc * sizeof *d);
        if (!d)
            return HS_ENOMEM;
        F->tm_dev = d;
        for (uint32_t i = F->tm_cap; i < nc; i++)
            n[i] = i + 1 < nc ? i + 1 : HS_NIL;
        F->tm_free = F->tm_cap;
        F->tm_cap = nc;
    }
    uint32_t slot = F->tm_free;
    F->tm_free = (uint32_t)F->tm[slot];
    F->tm[slot] = cookie;
    F->tm_dev[slot] = dev;
    if (dev == F->S + F->N)
        return hs__ev_push(F, t, EV_TIMER, slot);
    /* a node's timer originates at its NIC, in a run or outside */
    uint32_t cur = F->cur_dev, ext = F->ext_dev;
    F->cur_dev = F->ext_dev = dev;
    int rc = hs__ev_push(F, t, EV_TIMER, slot);
    F->cur_dev = cur;
    F->ext_dev = ext;
    return rc;
}

int hs_fabric_timer(hs_fabric *F, hs_time t, uint64_t cookie)
{
    return timer_new(F, t, F->S + F->N, cookie);
}

int hs_fabric_timer_at(hs_fabric *F, hs_time t, uint32_t node, uint64_t cookie)
{
    if (node >= F->N || !hs_fabric_node_local(F, node))
        return HS_EINVAL;
    return timer_new(F, t, F->S + node, cookie);
}

int hs_fabric_phase_name(hs_fabric *F, uint16_t phase, const char *name)
{
    if (!name)
        return HS_EINVAL;
    if (!F->phase_names) {
        F->phase_names = calloc(65536, sizeof *F->phase_names);
        if (!F->phase_names)
            return HS_ENOMEM;
    }
    char *c = strdup(name);
    if (!c)
        return HS_ENOMEM;
    free(F->phase_names[phase]);
    F->phase_names[phase] = c;
    return 0;
}

uint32_t hs_fabric_max_route_links(const hs_fabric *F)
{
    return F->max_route;
}

int hs_fabric_set_monitoring(hs_fabric *F, double p)
{
    if (!(p >= 0 && p <= 1))
        return HS_EINVAL;
    F->monitor_p = p;
    return 0;
}

uint32_t hs_fabric_nic_queue_max(const hs_fabric *F, uint32_t node)
{
    return node < F->N ? F->nic[node].qmax : 0;
}

void hs_fabric_get_stats(const hs_fabric *F, hs_fabric_stats *s)
{
    *s = F->st;
    s->events += hs__credit_uncounted(F);
    s->records = F->nrec;
    s->records_dropped = F->rec_dropped;
    s->packets_in_flight = F->pk_live;
    s->packets_peak = F->pk_peak;
    size_t L1 = (size_t)F->L + 1, *m = s->mem_part;
    memset(s->mem_part, 0, sizeof s->mem_part);
    m[HS_MEM_LINKS] = L1 * (sizeof(hs__oport) + CR_RING * sizeof *F->crk);
    m[HS_MEM_LINKS] += (size_t)F->topo->port_off[F->S] * (sizeof(hs__iport) + F->nvc * sizeof(hs__req));
    if (F->credits)
        m[HS_MEM_LINKS] += L1 * F->nvc * sizeof(int64_t);
    for (uint32_t sw = 0; sw < F->S; sw++)
        m[HS_MEM_LINKS] += ((size_t)(F->topo->port_off[sw + 1] - F->topo->port_off[sw]) *
                            (F->nvc * ((F->sw_nreq[sw] + 63) / 64) + (F->nvc + 1) / 2) +
                            (F->sw_nreq[sw] + 63) / 64) * 8 + sizeof(uint32_t);
    m[HS_MEM_LINKS] += L1 * sizeof(hs_link_info) + F->topo->port_off[F->S] * 8ull;
    m[HS_MEM_NICS] = sizeof *F + (size_t)F->N * (sizeof(hs__nic) + 8 + 2 * 4 * F->prm.nic_queues);
    m[HS_MEM_NICS] += 65536 * sizeof(uint16_t);
    /* pools: the slots ever used (the rest of the capacity is never written,
     * so not resident) */
    m[HS_MEM_PACKETS] = (size_t)F->pk_hw * (sizeof(hs__pkt) + sizeof(hs__pkc)) +
                        (size_t)F->ms_hw * sizeof(hs__msg) + (size_t)F->tm_cap * 12 +
                        F->pl_cap * sizeof(hs__plent);
    m[HS_MEM_EVENTS] = hs__ev_bytes(F);
    m[HS_MEM_RECORDS] = F->caprec * sizeof(hs__record);
    hs__truth_bytes(F, &m[HS_MEM_TRUTH_PHASE], &m[HS_MEM_TRUTH_WINDOW], &m[HS_MEM_COUNTERS]);
    s->mem_bytes = 0;
    for (unsigned i = 0; i < HS_FABRIC_MEM_PARTS; i++)
        s->mem_bytes += m[i];
}

const char *hs_fabric_mem_part_name(unsigned part)
{
    static const char *const name[HS_FABRIC_MEM_PARTS] = {
        "links", "packets", "events", "truth/phase", "truth/window", "counters", "records",
        "NICs",
    };
    return part < HS_FABRIC_MEM_PARTS ? name[part] : NULL;
}
