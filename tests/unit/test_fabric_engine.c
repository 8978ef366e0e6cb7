/* Unit tests for the fabric engine: exact zero-load latencies, conservation
 * of credits and packets after heavy load on every topology and routing,
 * determinism, message completion, a congestion tree with head-of-line
 * victims (and its disappearance with unbounded buffers), in-band
 * estimates against ground truth, and deadlock detection.
 *
 * White-box where it must be (credits and FIFOs after a run): it includes
 * the engine's private header. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/fabric.h"
#include "../../fabric/engine.h"

static hs_fabric *make(const char *spec, const hs_fabric_params *p)
{
    hs_fabric *F = NULL;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_fabric_create(&F, spec, p, &e);
    if (rc)
        fail_msg("%s: %s", spec, hs_error_str(&e, rc));
    return F;
}

/* ---- completions ------------------------------------------------------------- */

typedef struct done {
    hs_time sent[64], delivered[64];
    int nsent[64], ndel[64];
} done;

static void cb_sent(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    done *d = ctx;
    assert_true(cookie < 64);
    assert_int_equal(d->ndel[cookie], 0);
    d->sent[cookie] = t;
    d->nsent[cookie]++;
}

static void cb_delivered(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    done *d = ctx;
    assert_true(cookie < 64);
    assert_int_equal(d->nsent[cookie], 1);
    d->delivered[cookie] = t;
    d->ndel[cookie]++;
}

/* ---- zero-load latency ------------------------------------------------------- */

/* The path of src->dst through the forwarding tables (deterministic). */
static unsigned path_of(const hs_topo *t, uint32_t src, uint32_t dst, uint32_t *path)
{
    uint32_t link = hs_topo_node_injection(t, src);
    unsigned n = 0;
    for (;;) {
        path[n++] = link;
        const hs_link_info *l = hs_topo_link(t, link);
        if (l->to_kind == HS_DEV_NODE)
            return n;
        uint32_t out[64];
        assert_true(hs_topo_route_set(t, l->to, dst, out, 64) >= 1);
        link = out[0];
    }
}

static uint64_t wire_of(const hs_fabric_params *p, uint64_t payload)
{
    uint64_t w = payload + p->header;
    return w < HS_FABRIC_MIN_PACKET ? HS_FABRIC_MIN_PACKET : w;
}

/* One message on an idle network: its delivery time must be the analytic
 * sum  sum(lat) + switches * route_delay + ser(last packet)  after the start
 * of its last packet, which starts after the earlier packets' serialisation
 * on the injection link (uniform bandwidth). */
static void zero_load(const char *spec, hs_time rd, uint32_t stride)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.route_delay = rd;
    hs_fabric *F = make(spec, &p);
    const hs_topo *t = hs_fabric_topo(F);
    done d;
    hs_fabric_callbacks cb = { cb_sent, cb_delivered, NULL };
    hs_fabric_set_callbacks(F, &cb, &d);
    static const uint64_t sizes[] = { 0, 1, 100, 4096, 3 * 4096 + 7, 40000 };
    uint32_t N = hs_topo_nodes(t);
    unsigned checked = 0;
    for (uint32_t src = 0; src < N; src += stride)
        for (uint32_t dst = 0; dst < N; dst += stride) {
            if (src == dst)
                continue;
            uint32_t path[32];
            unsigned n = path_of(t, src, dst, path);
            hs_time lat = 0;
            for (unsigned i = 0; i < n; i++)
                lat += hs_topo_link(t, path[i])->lat;
            uint64_t bw = hs_topo_link(t, path[0])->bw;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                uint64_t bytes = sizes[(s + src + dst) % (sizeof sizes / sizeof sizes[0])];
                uint64_t npk = bytes ? (bytes + p.mtu - 1) / p.mtu : 1;
                uint64_t lastpay = bytes - (npk - 1) * p.mtu;
                hs_time before = (npk - 1) * hs_ser_time(wire_of(&p, p.mtu), bw);
                hs_time ser = hs_ser_time(wire_of(&p, lastpay), bw);
                memset(&d, 0, sizeof d);
                hs_time t0 = hs_fabric_now(F) + 12345;
                assert_int_equal(hs_fabric_inject(F, t0, src, dst, bytes, 3, 1, 7), 0);
                assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
                assert_int_equal(d.ndel[7], 1);
                hs_time want = before + lat + (n - 1) * rd + ser;  /* n links, n-1 switches */
                if (d.delivered[7] - t0 != want)
                    fail_msg("%s: %u->%u %llu bytes: latency %llu ps, analytic %llu ps", spec,
                             src, dst, (unsigned long long)bytes,
                             (unsigned long long)(d.delivered[7] - t0), (unsigned long long)want);
                assert_int_equal(d.sent[7] - t0, before + ser);
                checked++;
            }
        }
    assert_true(checked > 0);
    hs_fabric_destroy(F);
}

static void test_zero_load_exact(void **state)
{
    (void)state;
    zero_load("fattree:k=4,n=2", 100 * HS_PS_PER_NS, 1);
    zero_load("fattree:k=3,n=3,lat=37ns,bw=12.5GB/s", 73 * HS_PS_PER_NS, 2);
    zero_load("dragonfly:a=4,p=2,h=2,g=9,glat=100ns", 55 * HS_PS_PER_NS, 5);
    zero_load("dragonfly:a=4,p=1,h=2,g=5,glat=333ns", 90 * HS_PS_PER_NS, 1);
    zero_load("torus:4x3x2,p=2,lat=20ns", 41 * HS_PS_PER_NS, 3);
    zero_load("mesh:4x4,bw=50GB/s", 0, 1);
    zero_load("fattree:k=4,n=2,routing=adaptive", 100 * HS_PS_PER_NS, 3);
}

/* Mixed bandwidths: each hop starts when the packet is routed but not so
 * early that it would end before its tail arrives, and the NIC cannot
 * finish before the tail nor faster than its processing rate. */
static void test_zero_load_mixed(void **state)
{
    (void)state;
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.route_delay = 60 * HS_PS_PER_NS;
    p.rx_rate = 10000000000ull;  /* 10 GB/s: slower than the links */
    hs_fabric *F = make("dragonfly:a=4,p=2,h=2,g=9,bw=25GB/s,gbw=12.5GB/s,glat=250ns", &p);
    const hs_topo *t = hs_fabric_topo(F);
    done d;
    hs_fabric_callbacks cb = { cb_sent, cb_delivered, NULL };
    hs_fabric_set_callbacks(F, &cb, &d);
    for (uint32_t src = 0; src < 72; src += 7)
        for (uint32_t dst = 1; dst < 72; dst += 11) {
            if (src == dst)
                continue;
            uint32_t path[16];
            unsigned n = path_of(t, src, dst, path);
            uint64_t B = 1000 + src * 37;
            hs_time start = 0, head = 0, tail = 0;
            for (unsigned i = 0; i < n; i++) {
                const hs_link_info *l = hs_topo_link(t, path[i]);
                hs_time ser = hs_ser_time(B, l->bw);
                if (i > 0) {
                    start = head + p.route_delay;
                    if (tail > start + ser)
                        start = tail - ser;
                }
                head = start + l->lat;
                tail = head + ser;
            }
            hs_time want = head + hs_ser_time(B, p.rx_rate);
            if (want < tail)
                want = tail;
            memset(&d, 0, sizeof d);
            hs_time t0 = hs_fabric_now(F);
            assert_int_equal(hs_fabric_inject(F, t0, src, dst, B, 0, 0, 1), 0);
            assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
            assert_int_equal(d.delivered[1] - t0, want);
        }
    hs_fabric_destroy(F);
}

static void test_api_errors(void **state)
{
    (void)state;
    hs_fabric *F = make("fattree:k=4,n=2", NULL);
    assert_int_equal(hs_fabric_inject(F, 0, 0, 0, 10, 0, 1, 0), HS_EINVAL);
    assert_int_equal(hs_fabric_inject(F, 0, 16, 0, 10, 0, 1, 0), HS_EINVAL);
    assert_int_equal(hs_fabric_inject(F, 0, 0, 16, 10, 0, 1, 0), HS_EINVAL);
    assert_int_equal(hs_fabric_run(F, 1000), 1);  /* idle: nothing to do */
    assert_int_equal(hs_fabric_timer(F, 5000, 1), 0);
    assert_int_equal(hs_fabric_run(F, 1000), 0);
    assert_int_equal(hs_fabric_now(F), 1000);
    assert_int_equal(hs_fabric_inject(F, 999, 0, 1, 10, 0, 1, 0), HS_EINVAL);
    assert_int_equal(hs_fabric_timer(F, 999, 1), HS_EINVAL);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    assert_int_equal(hs_fabric_now(F), 5000);
    hs_fabric_destroy(F);

    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.vc_buffer = 1000;  /* smaller than a packet */
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_fabric_create(&F, "fattree:k=4,n=2", &p, &e), HS_EINVAL);
    assert_null(F);
    assert_non_null(strstr(e.msg, "cut-through"));
    hs_fabric_params_default(&p);
    p.mtu = 0;
    assert_int_equal(hs_fabric_create(&F, "fattree:k=4,n=2", &p, &e), HS_EINVAL);
    hs_fabric_params_default(&p);
    p.scheme.k = 5;  /* 64 links do not fit in 5 bits */
    assert_int_equal(hs_fabric_create(&F, "fattree:k=4,n=2", &p, &e), HS_ERANGE);
    assert_int_equal(hs_fabric_create(&F, "fattree:k=0", &p, &e), HS_EINVAL);
}

/* ---- timers ------------------------------------------------------------------- */

typedef struct tlog {
    uint64_t cookie[16];
    hs_time t[16];
    int n;
} tlog;

static void cb_timer(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    tlog *l = ctx;
    assert_int_equal(hs_fabric_now(F), t);
    l->cookie[l->n] = cookie;
    l->t[l->n++] = t;
    if (cookie == 3)  /* a timer may set another, even at the same time */
        assert_int_equal(hs_fabric_timer(F, t, 4), 0);
}

static void test_timers(void **state)
{
    (void)state;
    hs_fabric *F = make("mesh:2x1", NULL);
    tlog l;
    memset(&l, 0, sizeof l);
    hs_fabric_callbacks cb = { NULL, NULL, cb_timer };
    hs_fabric_set_callbacks(F, &cb, &l);
    assert_int_equal(hs_fabric_timer(F, 300, 3), 0);
    assert_int_equal(hs_fabric_timer(F, 100, 1), 0);
    assert_int_equal(hs_fabric_timer(F, 200, 2), 0);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    assert_int_equal(l.n, 4);
    uint64_t want[4] = { 1, 2, 3, 4 };
    hs_time wt[4] = { 100, 200, 300, 300 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(l.cookie[i], want[i]);
        assert_int_equal(l.t[i], wt[i]);
    }
    hs_fabric_destroy(F);
}

/* A node's timer originates at its NIC (origin S + node), and so does what
 * its callback schedules; the driver's timers at S + N come after every
 * node's at the same time, whatever the order they were set in. */
static void cb_timer_at(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    tlog *l = ctx;
    l->cookie[l->n] = cookie;
    l->t[l->n++] = t;
    if (cookie == 3)   /* set from node 0's timer: originates at node 0 */
        assert_int_equal(hs_fabric_timer(F, t, 4), 0);
}

static void test_timer_at(void **state)
{
    (void)state;
    hs_fabric *F = make("mesh:2x1", NULL);
    tlog l;
    memset(&l, 0, sizeof l);
    hs_fabric_callbacks cb = { NULL, NULL, cb_timer_at };
    hs_fabric_set_callbacks(F, &cb, &l);
    uint32_t N = hs_fabric_topo(F)->nnodes;
    assert_int_equal(hs_fabric_timer_at(F, 100, N, 9), HS_EINVAL);
    assert_int_equal(hs_fabric_timer(F, 100, 1), 0);
    assert_int_equal(hs_fabric_timer_at(F, 100, 1, 2), 0);
    assert_int_equal(hs_fabric_timer_at(F, 100, 0, 3), 0);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    assert_int_equal(l.n, 4);
    uint64_t want[4] = { 3, 4, 2, 1 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(l.cookie[i], want[i]);
        assert_int_equal(l.t[i], 100);
    }
    hs_fabric_destroy(F);
}

/* Lanes: an event of a lane's last time whose key is smaller than the
 * last's is inserted where it belongs (a key counts its origin's events,
 * so same-time events reach a lane out of key order); one that would move
 * more than 16 goes to the heap.  Timer events placed by hand in the lane
 * of the first delay run in (time, key) order either way. */
typedef struct klog {
    uint64_t cookie[64];
    int n;
} klog;

static void cb_klog(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    (void)t;
    klog *l = ctx;
    if (l->n < 64)
        l->cookie[l->n++] = cookie;
}

static void lane_timer(hs_fabric *F, hs_time t, uint64_t key)
{
    if (F->tm_free == HS_NIL) {   /* first use: let the API size the slots */
        assert_int_equal(hs_fabric_timer(F, HS_TIME_NEVER - 1, 0), 0);
        F->tm[0] = F->tm_free;    /* and give that slot back unused */
        F->tm_free = 0;
        F->ev_n = 0;
        F->nev--;
    }
    uint32_t slot = F->tm_free;
    F->tm_free = (uint32_t)F->tm[slot];
    F->tm[slot] = key;   /* the cookie is the key */
    F->tm_dev[slot] = F->S + F->N;   /* the driver's */
    hs__fev e = { t, key, (uint64_t)EV_TIMER << EV_SHIFT | slot };
    assert_int_equal(hs__ev_insert(F, e), 0);
}

static void test_lane_order(void **state)
{
    (void)state;
    hs_fabric *F = make("mesh:2x1", NULL);
    assert_true(F->nlanes >= 1);
    klog l;
    memset(&l, 0, sizeof l);
    hs_fabric_callbacks cb = { NULL, NULL, cb_klog };
    hs_fabric_set_callbacks(F, &cb, &l);
    hs_time d = F->lanes[0].delay;
    const hs__lane *L = &F->lanes[0];
    lane_timer(F, d, 10);
    lane_timer(F, d, 20);
    lane_timer(F, d, 30);
    lane_timer(F, d, 25);   /* one place back */
    lane_timer(F, d, 5);    /* before all: the lane's new head */
    assert_int_equal(L->n, 5);
    assert_int_equal(F->lhead[0].seq, 5);
    for (uint64_t k = 100; k < 120; k++)
        lane_timer(F, d, k);
    lane_timer(F, d, 99);   /* 20 places back: the heap */
    lane_timer(F, d, 50);
    assert_int_equal(L->n, 25);
    assert_int_equal(F->ev_n, 2);
    lane_timer(F, d, 110 + 1000);   /* appended again */
    lane_timer(F, d, 119 + 500);    /* one back */
    assert_int_equal(L->n, 27);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    uint64_t want[] = { 5, 10, 20, 25, 30, 50, 99, 100, 101, 102, 103, 104, 105, 106, 107,
                        108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 619,
                        1110 };
    assert_int_equal(l.n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < l.n; i++)
        assert_int_equal(l.cookie[i], want[i]);
    hs_fabric_destroy(F);
}

/* ---- invariants after heavy load ----------------------------------------------- */

/* After the network drains: every credit is back, every FIFO empty, every
 * pool entry returned, and the ground truth adds up. */
static void check_drained(hs_fabric *F, int unbounded)
{
    assert_int_equal(F->pk_live, 0);
    assert_int_equal(F->ms_live, 0);
    hs__credit_flush(F);  /* credits still on the wire count as back */
    hs__truth_sum(F);
    uint64_t hops = 0;
    for (uint32_t l = 1; l <= F->L; l++) {
        const hs_link_info *li = &F->lk[l];
        for (unsigned v = 0; v < F->nvc; v++) {
            int64_t want = li->to_kind == HS_DEV_SWITCH ? F->cap_vc
                           : v == 0 ? (unbounded ? INT64_MAX / 4 : (int64_t)F->prm.nic_buffer) : 0;
            if (hs__cr(F, l)[v] != want)
                fail_msg("link %u vc %u: %lld credits, capacity %lld", l, v,
                         (long long)hs__cr(F, l)[v], (long long)want);
            if (li->to_kind == HS_DEV_SWITCH) {
                const hs__req *q = hs__fifo(F, l, v);
                assert_int_equal(q->head, HS_NIL);
                assert_int_equal(q->tail, HS_NIL);
                assert_int_equal(q->out, HS_NIL);
            }
        }
        assert_int_equal(F->op[l].busy, 0);
        assert_int_equal(F->op[l].queued, 0);
        assert_int_equal(F->op[l].stall_since, HS_TIME_NEVER);
        const hs__truth *t = &F->truth[l];
        hops += t->packets;
        assert_true(t->congested <= t->packets);
        if (unbounded)
            assert_int_equal(t->stall, 0);
        /* per-phase and per-window truth add up to the totals */
        hs__truth sp = { 0 }, sw = { 0 };
        for (unsigned i = 0; i < F->nphase; i++) {
            sp.packets += F->truth_ph[i][l].packets;
            sp.busy += F->truth_ph[i][l].busy;
            sp.stall += F->truth_ph[i][l].stall;
        }
        for (size_t w = 0; w < F->nwin; w++)
            if (F->truth_win[w]) {
                sw.packets += F->truth_win[w][l].packets;
                sw.bytes += F->truth_win[w][l].bytes;
                sw.busy += F->truth_win[w][l].busy;
                sw.stall += F->truth_win[w][l].stall;
                sw.congested += F->truth_win[w][l].congested;
            }
        assert_int_equal(sp.packets, t->packets);
        assert_int_equal(sp.busy, t->busy);
        assert_int_equal(sp.stall, t->stall);
        assert_int_equal(sw.packets, t->packets);
        assert_int_equal(sw.bytes, t->bytes);
        assert_int_equal(sw.busy, t->busy);
        assert_int_equal(sw.stall, t->stall);
        assert_int_equal(sw.congested, t->congested);
    }
    assert_int_equal(hops, F->st.hops);
    for (uint32_t g = 0; g < F->topo->port_off[F->S]; g++)
        assert_int_equal(F->ip[g].busy, 0);
    for (uint32_t n = 0; n < F->N; n++) {
        assert_int_equal(F->nic[n].hold, HS_NIL);
        assert_int_equal(F->nic[n].nactive, 0);
    }
    assert_int_equal(F->st.packets_injected, F->st.packets_delivered);
    assert_int_equal(F->st.messages_posted, F->st.messages_delivered);
}

static void heavy(const char *spec, const char *traffic, double load, int unbounded)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.unbounded = unbounded;
    p.window = 3 * HS_PS_PER_US;  /* several windows, transmissions crossing edges */
    hs_fabric *F = make(spec, &p);
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_traffic_parse(traffic, &c, &e), 0);
    c.load = load;
    c.packets = 4000;
    c.size = 5000;  /* two packets per message: one full, one partial */
    hs_traffic_result r;
    int rc = hs_traffic_run(F, &c, &r, &e);
    if (rc)
        fail_msg("%s %s: %s", spec, traffic, hs_error_str(&e, rc));
    if (r.status)
        fail_msg("%s %s: deadlock", spec, traffic);
    assert_int_equal(r.measured, 4000);
    assert_int_equal(r.unfinished, 0);
    check_drained(F, unbounded);
    hs_fabric_destroy(F);
}

static void test_drain_invariants(void **state)
{
    (void)state;
    heavy("fattree:k=4,n=2", "uniform", 1.0, 0);
    heavy("fattree:k=4,n=3,routing=adaptive", "uniform", 1.0, 0);
    heavy("fattree:k=4,n=2,taper=2", "hotspot:target=3,frac=0.3", 0.9, 0);
    heavy("dragonfly:a=4,p=2,h=2,g=9", "groupshift", 1.0, 0);
    heavy("dragonfly:a=4,p=2,h=2,g=9,routing=valiant", "uniform", 1.0, 0);
    heavy("dragonfly:a=4,p=2,h=2,g=9,routing=ugal", "groupshift:2", 1.0, 0);
    heavy("dragonfly:a=4,p=1,h=2,g=5,routing=ugal", "uniform", 1.0, 0);
    heavy("torus:4x4", "uniform", 1.0, 0);
    heavy("torus:5x3x2,p=2", "bitcomp", 1.0, 0);
    heavy("mesh:4x4", "transpose", 1.0, 0);
    heavy("fattree:k=4,n=2", "incast:target=5,senders=8", 1.0, 0);
    heavy("fattree:k=4,n=2", "incast:target=5,senders=8", 1.0, 1);
}

/* Long runs widen the windows instead of growing without bound; the
 * merged windows still add up to the totals, exactly. */
static void test_window_coarsening(void **state)
{
    (void)state;
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.window = 1 * HS_PS_PER_US;
    p.max_windows = 8;
    hs_fabric *F = make("fattree:k=4,n=2", &p);
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    c.load = 0.5;
    c.packets = 20000;  /* ~400 us of traffic */
    hs_traffic_result r;
    hs_error e;
    assert_int_equal(hs_traffic_run(F, &c, &r, &e), 0);
    hs_time W = hs_fabric_get_params(F)->window;
    assert_true(W >= 32 * HS_PS_PER_US);
    assert_true(hs_fabric_now(F) / W < 8);
    assert_true(F->nwin <= 8);
    check_drained(F, 0);
    /* window counters add up to the phase counters */
    hs_counters sum;
    assert_int_equal(hs_counters_init(&sum, &F->scheme, NULL), 0);
    unsigned nwc = 0;
    for (size_t w = 0; w < F->nctwin; w++)
        if (F->ct_win[w]) {
            assert_true(w < 8);
            assert_int_equal(hs_counters_add(&sum, F->ct_win[w]), 0);
            nwc++;
        }
    assert_true(nwc >= 2);
    const hs_counters *ph = hs_fabric_counters(F, 0);
    assert_int_equal(sum.packets, ph->packets);
    assert_memory_equal(sum.t, ph->t, (size_t)ph->b * ph->n * sizeof *ph->t);
    assert_memory_equal(sum.c, ph->c, (size_t)ph->b * ph->n * sizeof *ph->c);
    hs_counters_free(&sum);
    hs_fabric_destroy(F);
}

/* ---- determinism ---------------------------------------------------------------- */

static hs_fabric *run_seeded(const char *spec, uint64_t seed, hs_traffic_result *r)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.seed = seed;
    hs_fabric *F = make(spec, &p);
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    c.seed = seed;
    c.load = 0.7;
    c.duration = 5 * HS_PS_PER_US;
    hs_error e;
    assert_int_equal(hs_traffic_run(F, &c, r, &e), 0);
    return F;
}

static void test_determinism(void **state)
{
    (void)state;
    const char *spec = "dragonfly:a=4,p=2,h=2,g=9,routing=ugal";
    hs_traffic_result r1, r2, r3;
    hs_fabric *a = run_seeded(spec, 5, &r1);
    hs_fabric *b = run_seeded(spec, 5, &r2);
    hs_fabric *c = run_seeded(spec, 6, &r3);
    assert_memory_equal(&r1, &r2, sizeof r1);
    assert_int_equal(a->st.events, b->st.events);
    assert_int_equal(a->now, b->now);
    hs__truth_sum(a);
    hs__truth_sum(b);
    hs__truth_sum(c);
    assert_memory_equal(a->truth, b->truth, (a->L + 1) * sizeof *a->truth);
    assert_int_equal(a->nrec, b->nrec);
    for (size_t i = 0; i < a->nrec; i++) {
        assert_int_equal(a->rec[i].src, b->rec[i].src);
        assert_int_equal(a->rec[i].dst, b->rec[i].dst);
        assert_int_equal(a->rec[i].seq, b->rec[i].seq);
        assert_int_equal(a->rec[i].t, b->rec[i].t);
        assert_int_equal(a->rec[i].field, b->rec[i].field);
    }
    assert_true(a->st.events != c->st.events ||
                memcmp(a->truth, c->truth, (a->L + 1) * sizeof *a->truth) != 0);
    hs_fabric_destroy(a);
    hs_fabric_destroy(b);
    hs_fabric_destroy(c);
}

/* Keyed credits (link.c): a switch-to-switch credit waits in its
 * transmitter's ring and becomes an event only when it can act.  The run
 * must be the one where every such credit is an event (cr_events): same
 * events counted, same end, same ground truth, records and results, at
 * saturation with packets of two sizes (a short last packet, so that the
 * arbiter's credit test per candidate matters), several VCs and adaptive
 * routing, and in a run that drains to idle. */
/* pf: the run loop's prefetching on (1), off (0) or as set up (-1). */
static hs_fabric *run_credits_pf(const char *spec, int events, int pf, double load,
                                 hs_pattern pat, hs_traffic_result *r, hs_fabric_stats *st)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.seed = 3;
    hs_fabric *F = make(spec, &p);
    F->cr_events = events;
    if (pf >= 0)
        F->pf = pf;
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    c.seed = 3;
    c.load = load;
    c.pattern = pat;
    c.size = 3 * p.mtu + 7;
    c.warmup = 2 * HS_PS_PER_US;
    c.duration = 6 * HS_PS_PER_US;
    hs_error e;
    memset(r, 0, sizeof *r);
    assert_int_equal(hs_traffic_run(F, &c, r, &e), 0);
    hs_fabric_get_stats(F, st);
    return F;
}

static hs_fabric *run_credits(const char *spec, int events, double load, hs_pattern pat,
                              hs_traffic_result *r, hs_fabric_stats *st)
{
    return run_credits_pf(spec, events, -1, load, pat, r, st);
}

/* Adds the credits of the EV_CREDIT events still queued. */
static void credit_events_in(hs_fabric *F)
{
    for (unsigned s = 0; s <= F->nlanes; s++) {
        const hs__lane *L = s ? &F->lanes[s - 1] : NULL;
        size_t n = L ? L->n : F->ev_n;
        for (size_t k = 0; k < n; k++) {
            const hs__fev *e = L ? &L->e[(L->head + k) & (L->cap - 1)] : &F->ev[k];
            if (e->d >> EV_SHIFT != EV_CREDIT)
                continue;
            uint64_t a = e->d & EV_ARG_MASK;
            hs__cr(F, (uint32_t)(a >> CR_LINK_SHIFT))[(a >> CR_VC_SHIFT) & 7u] +=
                (int64_t)(a & ((1u << CR_BYTES_BITS) - 1));
        }
    }
}

static void test_keyed_credits(void **state)
{
    (void)state;
    static const struct { const char *spec; double load; hs_pattern pat; } cfg[] = {
        { "dragonfly:a=4,p=2,h=2,g=9,routing=ugal", 1.0, HS_PAT_UNIFORM },
        { "dragonfly:a=4,p=2,h=2,g=9,routing=ugal", 0.3, HS_PAT_UNIFORM },
        { "fattree:k=4,n=3", 1.0, HS_PAT_UNIFORM },
        { "fattree:k=4,n=2", 1.0, HS_PAT_HOTSPOT },
        { "torus:4x4x2", 0.8, HS_PAT_UNIFORM },
    };
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        hs_traffic_result ra, rb;
        hs_fabric_stats sa, sb;
        hs_fabric *a = run_credits(cfg[k].spec, 0, cfg[k].load, cfg[k].pat, &ra, &sa);
        hs_fabric *b = run_credits(cfg[k].spec, 1, cfg[k].load, cfg[k].pat, &rb, &sb);
        assert_true(sa.hops > 1000);
        assert_memory_equal(&ra, &rb, sizeof ra);
        assert_int_equal(sa.events, sb.events);
        assert_int_equal(sa.hops, sb.hops);
        assert_int_equal(sa.packets_delivered, sb.packets_delivered);
        assert_int_equal(a->now, b->now);
        assert_int_equal(hs_fabric_next_time(a), hs_fabric_next_time(b));
        assert_memory_equal(hs__truth_sum(a), hs__truth_sum(b), (a->L + 1) * sizeof *a->truth);
        assert_int_equal(a->nrec, b->nrec);
        for (size_t i = 0; i < a->nrec; i++) {
            assert_int_equal(a->rec[i].key, b->rec[i].key);
            assert_int_equal(a->rec[i].t, b->rec[i].t);
            assert_int_equal(a->rec[i].field, b->rec[i].field);
        }
        /* the same credits once every credit is in (some may still be
         * EV_CREDIT events in the queue) */
        hs__credit_flush(a);
        hs__credit_flush(b);
        credit_events_in(a);
        credit_events_in(b);
        for (uint32_t l = 1; l <= a->L; l++)
            for (unsigned v = 0; v < a->nvc; v++)
                assert_int_equal(hs__cr(a, l)[v], hs__cr(b, l)[v]);
        hs_fabric_destroy(a);
        hs_fabric_destroy(b);
    }
}

/* The run loop's prefetches (on for networks beyond the L2 cache) read
 * the state of events still to come: they must change nothing, and (run
 * under ASan here) read only what exists, on small networks forced on:
 * more than 4 VCs (credits outside the transmitter), ejection and
 * injection links, hot spots. */
static void test_prefetch_neutral(void **state)
{
    (void)state;
    static const struct { const char *spec; double load; hs_pattern pat; } cfg[] = {
        { "dragonfly:a=4,p=2,h=2,g=9,routing=ugal", 1.0, HS_PAT_UNIFORM },
        { "dragonfly:a=4,p=2,h=2,g=9,vcs=6", 0.9, HS_PAT_UNIFORM },
        { "fattree:k=4,n=3", 1.0, HS_PAT_UNIFORM },
        { "fattree:k=4,n=2", 1.0, HS_PAT_HOTSPOT },
        { "torus:4x4x2", 0.8, HS_PAT_UNIFORM },
    };
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        hs_traffic_result ra, rb;
        hs_fabric_stats sa, sb;
        hs_fabric *a = run_credits_pf(cfg[k].spec, 0, 0, cfg[k].load, cfg[k].pat, &ra, &sa);
        hs_fabric *b = run_credits_pf(cfg[k].spec, 0, 1, cfg[k].load, cfg[k].pat, &rb, &sb);
        assert_true(sa.hops > 1000);
        assert_memory_equal(&ra, &rb, sizeof ra);
        assert_int_equal(sa.events, sb.events);
        assert_int_equal(sa.hops, sb.hops);
        assert_int_equal(sa.packets_delivered, sb.packets_delivered);
        assert_int_equal(a->now, b->now);
        assert_memory_equal(hs__truth_sum(a), hs__truth_sum(b), (a->L + 1) * sizeof *a->truth);
        assert_int_equal(a->nrec, b->nrec);
        for (size_t i = 0; i < a->nrec; i++) {
            assert_int_equal(a->rec[i].key, b->rec[i].key);
            assert_int_equal(a->rec[i].t, b->rec[i].t);
            assert_int_equal(a->rec[i].field, b->rec[i].field);
        }
        hs_fabric_destroy(a);
        hs_fabric_destroy(b);
    }
}

/* ---- congestion tree and victims ------------------------------------------------ */

/* Periodic flows driven by timers: cookie = flow index. */
typedef struct flows {
    uint32_t src[8], dst[8];
    hs_time  gap[8], until;
    unsigned n;
    uint64_t delivered[8];
} flows;

static void fl_timer(void *ctx, hs_fabric *F, uint64_t i, hs_time t)
{
    flows *f = ctx;
    assert_int_equal(hs_fabric_inject(F, t, f->src[i], f->dst[i], 4096, (uint16_t)i, 1, i), 0);
    if (t + f->gap[i] < f->until)
        assert_int_equal(hs_fabric_timer(F, t + f->gap[i], i), 0);
}

static void fl_delivered(void *ctx, hs_fabric *F, uint64_t i, hs_time t)
{
    (void)F;
    flows *f = ctx;
    if (t < f->until)
        f->delivered[i]++;
}

/* Fat-tree k=4, n=2: leaves of 4 nodes, 4 spines, D-mod-K (spine = dst mod
 * 4).  Target node 0 (leaf 0) has a NIC that processes at half the link
 * rate; nodes 4, 8 and 12 (one per other leaf) send to it at 0.3 each, so
 * only the target's NIC is oversubscribed (0.9 of a link into 0.5), every
 * link carries at most 0.9 of its capacity.  Victim: node 9 (leaf 2) sends
 * to node 4 (leaf 1), which D-mod-K routes through spine 0 too, sharing
 * the up-link leaf 2 -> spine 0 and the FIFO at spine 0 with node 8's
 * target traffic, but no link with traffic to the target beyond that. */
static void incast(int unbounded, hs__truth *out, uint64_t *victim_delivered,
                   uint32_t *L, hs_time *until)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.unbounded = unbounded;
    p.rx_rate = 12500000000ull;
    hs_fabric *F = make("fattree:k=4,n=2", &p);
    flows f;
    memset(&f, 0, sizeof f);
    hs_time ser = hs_ser_time(4096, 25000000000ull);
    f.until = 200 * HS_PS_PER_US;
    uint32_t srcs[4] = { 4, 8, 12, 9 }, dsts[4] = { 0, 0, 0, 4 };
    for (unsigned i = 0; i < 4; i++) {
        f.src[i] = srcs[i];
        f.dst[i] = dsts[i];
        f.gap[i] = (hs_time)((double)ser / 0.3);
        assert_int_equal(hs_fabric_timer(F, 1000 * i, i), 0);
    }
    f.n = 4;
    hs_fabric_callbacks cb = { NULL, fl_delivered, fl_timer };
    hs_fabric_set_callbacks(F, &cb, &f);
    assert_int_equal(hs_fabric_run(F, f.until), 0);
    /* close running stalls at the end of the window */
    for (uint32_t l = 1; l <= F->L; l++)
        if (F->op[l].stall_since != HS_TIME_NEVER) {
            hs__truth_stall(F, l, 0, F->op[l].stall_since, F->now);
            F->op[l].stall_since = F->now;
        }
    memcpy(out, hs__truth_sum(F), (F->L + 1) * sizeof *out);
    *victim_delivered = f.delivered[3];
    *L = F->L;
    *until = f.until;
    hs_fabric_destroy(F);
}

static void test_incast_tree(void **state)
{
    (void)state;
    hs__truth fin[65], unb[65];
    uint64_t vf, vu;
    uint32_t L;
    hs_time T;
    incast(0, fin, &vf, &L, &T);
    incast(1, unb, &vu, &L, &T);
    assert_int_equal(L, 64);
    uint32_t ej0 = 16 + 1 + 0, inj9 = 1 + 9;
    /* leaf l up port j = link 33 + 2*(4l + j); spine j down to leaf l is +1 */
    uint32_t up2_s0 = 33 + 2 * (4 * 2 + 0), s0_leaf0 = 33 + 2 * (4 * 0 + 0) + 1;
    uint32_t s0_leaf1 = 33 + 2 * (4 * 1 + 0) + 1;
    /* the root: the ejection link to the target is saturated (sending at
     * the NIC's half rate, credit-stalled the rest of the time) and is the
     * link with the most congested packets */
    assert_true(fin[ej0].stall > 2 * T / 5);
    assert_true(fin[ej0].stall + fin[ej0].busy > 9 * T / 10);
    for (uint32_t l = 1; l <= L; l++)
        assert_true(fin[l].congested <= fin[ej0].congested);
    /* the tree grows upstream by back-pressure: spine 0 -> leaf 0, and the
     * senders' up-links into spine 0 stall */
    assert_true(fin[s0_leaf0].stall > T / 4);
    assert_true(fin[up2_s0].stall > T / 10);
    /* victims: the victim's injection link and spine 0 -> leaf 1 carry no
     * packet to the target, yet the injection link stalls and the victim
     * gets well under its offered 0.3 */
    assert_true(fin[inj9].stall > T / 10);
    double offered = (double)T / ((double)hs_ser_time(4096, 25000000000ull) / 0.3);
    assert_true((double)vf < 0.7 * offered);
    /* only the victim's packets (a few still in flight at the end) */
    assert_true(fin[s0_leaf1].packets <= fin[inj9].packets);
    assert_true(fin[s0_leaf1].packets + 32 >= fin[inj9].packets);
    /* its packets waited at spine 0 behind target traffic (head-of-line),
     * so the congested() definition flags them on spine 0 -> leaf 1 */
    assert_true(fin[s0_leaf1].congested > fin[s0_leaf1].packets / 2);
    assert_int_equal(fin[s0_leaf1].stall, 0);
    /* unbounded buffers: no stall anywhere, and the victim gets its load */
    for (uint32_t l = 1; l <= L; l++)
        assert_int_equal(unb[l].stall, 0);
    assert_true((double)vu > 0.95 * offered);
}

/* ---- in-band estimates against ground truth ------------------------------------- */

static void test_inband_truth(void **state)
{
    (void)state;
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.scheme.hash_bits = 2;
    hs_fabric *F = make("fattree:k=4,n=2,taper=2", &p);
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    c.load = 0.8;
    c.packets = 30000;
    hs_traffic_result r;
    hs_error e;
    assert_int_equal(hs_traffic_run(F, &c, &r, &e), 0);
    assert_int_equal(F->nphase, 1);
    hs_counters *ct = &F->ct_ph[0];
    assert_int_equal(ct->packets, 30000);
    assert_int_equal(ct->overflow, 0);
    assert_int_equal(ct->unmarked, 0);
    assert_int_equal(F->nrec, 30000);
    uint32_t nout = 1u << F->scheme.k;
    hs_linksum *ls = calloc(nout, sizeof *ls);
    hs_totals tot;
    assert_int_equal(hs_decode_fast(ct, ls, nout, &tot), 0);
    hs__truth_sum(F);
    /* every link's traffic and congested count within 4.5 standard errors
     * (Bonferroni over 2 x 48 links at ~0.07% each), and the sums of
     * squares must be consistent: the estimate is unbiased */
    double chi_t = 0, chi_c = 0;
    unsigned n = 0;
    for (uint32_t l = 1; l <= F->L; l++) {
        hs_estimate est;
        hs_estimate_from_sums(&F->scheme, &ls[l], 0, &est);
        double tt = (double)F->truth[l].packets, tc = (double)F->truth[l].congested;
        double se_t = est.traffic_se > 1 ? est.traffic_se : 1;
        double se_c = est.congested_se > 1 ? est.congested_se : 1;
        if (fabs(est.traffic - tt) > 4.5 * se_t)
            fail_msg("link %u: traffic %.1f +- %.1f, truth %.0f", l, est.traffic, se_t, tt);
        if (fabs(est.congested - tc) > 4.5 * se_c)
            fail_msg("link %u: congested %.1f +- %.1f, truth %.0f", l, est.congested, se_c, tc);
        chi_t += (est.traffic - tt) * (est.traffic - tt) / (se_t * se_t);
        chi_c += (est.congested - tc) * (est.congested - tc) / (se_c * se_c);
        n++;
    }
    /* mean squared z near 1 (a chi-square with 48 dof is below 2 w.p. > 99.9%) */
    assert_true(chi_t / n < 2.0);
    assert_true(chi_c / n < 2.0);
    /* the tapered up-links are congested in truth */
    uint64_t cong = 0;
    for (uint32_t l = 1; l <= F->L; l++)
        cong += F->truth[l].congested;
    assert_true(cong > 1000);
    free(ls);
    hs_fabric_destroy(F);
}

/* ---- the hop counter against the routes -------------------------------------------- */

/* The default counter fits the longest route (c = 4 where 14 links do, more
 * where they do not); a forced 3-bit counter on torus:6x4x4 (routes up to 9
 * links) overflows exactly on the monitored packets whose path has more
 * than 6 links, and the fabric, the counters and the records agree. */
static void test_hop_overflow(void **state)
{
    (void)state;
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    assert_int_equal(p.scheme.hop_bits, 0);
    hs_fabric *F = make("torus:6x4x4", &p);
    assert_int_equal(hs_fabric_max_route_links(F), 9);
    assert_int_equal(hs_fabric_scheme(F)->c, 4);
    hs_fabric_destroy(F);
    F = make("mesh:14x14", &p); /* 13 + 13 + 2 = 28 links: 2^5 - 2 = 30 holds them */
    assert_int_equal(hs_fabric_max_route_links(F), 28);
    assert_int_equal(hs_fabric_scheme(F)->c, 5);
    hs_fabric_destroy(F);
    F = make("dragonfly:a=4,p=2,h=2,g=5,routing=valiant", &p);
    assert_int_equal(hs_fabric_scheme(F)->c, 4);
    hs_fabric_destroy(F);

    p.scheme.hop_bits = 3;
    F = make("torus:6x4x4", &p);
    const hs_topo *t = hs_fabric_topo(F);
    uint32_t N = hs_topo_nodes(t), path[64];
    uint64_t expect = 0, monitored = 0;
    /* node 0 to every node, two-packet messages; every third unmonitored */
    for (uint32_t d = 1; d < N; d++) {
        int mon = d % 3 != 0;
        assert_int_equal(hs_fabric_inject(F, 0, 0, d, 2 * p.mtu, 0, mon, 0), 0);
        unsigned len = path_of(t, 0, d, path);
        monitored += mon ? 2 : 0;
        expect += mon && len > 6 ? 2 : 0;
    }
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    hs_fabric_stats st;
    hs_fabric_get_stats(F, &st);
    assert_true(expect > 0);
    assert_int_equal(st.packets_monitored, monitored);
    assert_int_equal(st.packets_overflowed, expect);
    const hs_counters *ct = hs_fabric_counters(F, 0);
    assert_non_null(ct);
    assert_int_equal(ct->overflow, expect);
    assert_int_equal(ct->packets, monitored - expect);
    uint64_t rec_ovf = 0;
    for (size_t i = 0; i < F->nrec; i++)
        rec_ovf += (F->rec[i].field & 7) == 7;
    assert_int_equal(rec_ovf, expect);
    hs_fabric_destroy(F);
}

/* ---- deadlock detection ----------------------------------------------------------- */

/* d is the cycle of the ring's n switch-to-switch links on the last VC. */
static void check_ring_cycle(hs_fabric *F, const hs_fabric_deadlock *d, unsigned n)
{
    assert_int_equal(d->total, n);
    assert_int_equal(d->n, n);
    uint32_t lo = UINT32_MAX;
    for (unsigned i = 0; i < n; i++) {
        const hs_deadlock_hop *h = &d->hop[i];
        const hs_link_info *l = hs_topo_link(hs_fabric_topo(F), h->link);
        assert_non_null(l);
        assert_int_equal(l->kind, HS_LINK_SWITCH);
        assert_int_equal(h->sw, l->to);
        assert_int_equal(h->vc, HS_FABRIC_MAX_VCS - 1);
        assert_int_equal(h->packets, 1);
        assert_int_equal(h->bytes, 4096);
        assert_int_equal(h->need, 4096);
        assert_int_equal(h->credit, 0);
        /* each waits for the next, and the last for the first */
        const hs_deadlock_hop *nx = &d->hop[(i + 1) % n];
        assert_int_equal(h->wait_link, nx->link);
        assert_int_equal(h->wait_vc, nx->vc);
        assert_int_equal(hs_topo_link(hs_fabric_topo(F), nx->link)->from, l->to);
        if (h->link < lo)
            lo = h->link;
    }
    assert_int_equal(d->hop[0].link, lo);   /* starts at the smallest buffer */
}

/* A ring of 12 switches routed one way round: paths of up to 11 hops share
 * the last of 8 hop-indexed VCs, a cyclic dependency; all nodes sending 11
 * hops ahead at once with one-packet buffers deadlock deterministically. */
/* A 12-switch ring (switch si, node ni) whose routes all go clockwise, with
 * one-packet VC buffers, plus `extra` topology lines (devices and links
 * declared after the ring's switches and nodes). */
static hs_fabric *ring_fabric(const char *extra)
{
    char path[] = "/tmp/hs-ring-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "hopscope-topology 1\n");
    for (int i = 0; i < 12; i++)
        fprintf(f, "switch s%d\nnode n%d\nlink n%d s%d\n", i, i, i, i);
    fputs(extra, f);
    for (int i = 0; i < 12; i++)
        fprintf(f, "link s%d s%d\n", i, (i + 1) % 12);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            if (i != j)
                fprintf(f, "route s%d n%d s%d\n", i, j, (i + 1) % 12);
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "file:%s", path);
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.vc_buffer = 4096;
    hs_fabric *F = make(spec, &p);
    unlink(path);
    return F;
}

/* VC selection with vcs=4 on a fat-tree (one class, four lanes): a
 * packet's lane, seen as the VC whose credits its injection link spent.
 * At t0 + 250 ns every packet has left its NIC and been switched at its
 * leaf, and no credit has come back yet (the first returns at t0 + 364 ns
 * + 100 ns). */
static unsigned vcs_used(hs_fabric *F, uint32_t src, unsigned *npk)
{
    uint32_t o = hs_topo_node_injection(hs_fabric_topo(F), src);
    unsigned mask = 0;
    *npk = 0;
    for (unsigned v = 0; v < F->nvc; v++) {
        int64_t used = F->cap_vc - hs__cr(F, o)[v];
        if (used) {
            mask |= 1u << v;
            *npk += (unsigned)(used / 4096);
        }
    }
    return mask;
}

static void test_vc_select(void **state)
{
    (void)state;
    const hs_time t0 = 1000000, at = t0 + 250 * HS_PS_PER_NS;
    unsigned npk;
    /* by destination: lane = dst mod 4, on every link of the path */
    hs_fabric *F = make("fattree:k=4,n=2,vcs=4", NULL);
    for (uint32_t s = 0; s < 4; s++)
        assert_int_equal(hs_fabric_inject(F, t0, s, 5 + s, 4096, 0, 0, s), 0);
    assert_int_equal(hs_fabric_run(F, at), 0);
    for (uint32_t s = 0; s < 4; s++) {
        assert_int_equal(vcs_used(F, s, &npk), 1u << ((5 + s) % 4));
        assert_int_equal(npk, 1);
    }
    /* the leaf sent each up on the same lane: one up link carries them,
     * D-mod-K spreads by destination, so each up link spent one VC */
    unsigned up_vcs = 0;
    for (uint32_t l = 1; l <= F->L; l++)
        if (F->lk[l].kind == HS_LINK_SWITCH)
            for (unsigned v = 0; v < 4; v++)
                if (hs__cr(F, l)[v] < F->cap_vc)
                    up_vcs |= 1u << v;
    assert_int_equal(up_vcs, 0xf);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    hs_fabric_destroy(F);

    /* round-robin per packet at the NIC: three packets on lanes 0, 1, 2
     * (at 250 ns the first two have left; the third waits for the link) */
    F = make("fattree:k=4,n=2,vcs=4,vcsel=rr", NULL);
    assert_int_equal(hs_fabric_inject(F, t0, 0, 9, 3 * 4096, 0, 0, 1), 0);
    assert_int_equal(hs_fabric_run(F, at), 0);
    assert_int_equal(vcs_used(F, 0, &npk), 0x3);
    assert_int_equal(npk, 2);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    hs_fabric_destroy(F);
    /* the same with vcsel=dest: both on lane 9 mod 4 = 1 */
    F = make("fattree:k=4,n=2,vcs=4", NULL);
    assert_int_equal(hs_fabric_inject(F, t0, 0, 9, 3 * 4096, 0, 0, 1), 0);
    assert_int_equal(hs_fabric_run(F, at), 0);
    assert_int_equal(vcs_used(F, 0, &npk), 0x2);
    assert_int_equal(npk, 2);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    hs_fabric_destroy(F);

    /* service level: the message's phase mod lanes */
    F = make("fattree:k=4,n=2,vcs=4,vcsel=sl", NULL);
    assert_int_equal(hs_fabric_inject(F, t0, 0, 9, 4096, 7, 0, 1), 0);
    assert_int_equal(hs_fabric_inject(F, t0, 1, 9, 4096, 2, 0, 2), 0);
    assert_int_equal(hs_fabric_run(F, at), 0);
    assert_int_equal(vcs_used(F, 0, &npk), 1u << 3);
    assert_int_equal(vcs_used(F, 1, &npk), 1u << 2);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    hs_fabric_destroy(F);

    /* dragonfly, two classes x 3 lanes: VC = class (global hops taken)
     * x 3 + lane, asked of the router directly */
    F = make("dragonfly:a=4,p=2,h=2,g=9,vcs=6", NULL);
    assert_int_equal(F->vc_lanes, 3);
    const hs_topo *t = hs_fabric_topo(F);
    hs__pkt pk;
    memset(&pk, 0, sizeof pk);
    pk.dst = 71;               /* router 35, group 8 */
    pk.inter = HS_NIL;
    pk.in = hs_topo_node_injection(t, 0);
    pk.lane = 2;
    hs__route(F, 0, &pk);      /* at router 0 of group 0: class 0 */
    assert_int_equal(pk.out_vc, 2);
    pk.ng = 1;                 /* after its global hop: class 1 */
    pk.in = F->lk[pk.out].kind == HS_LINK_SWITCH ? pk.out : pk.in;
    hs__route(F, 32, &pk);     /* router 0 of group 8, towards router 3 */
    assert_int_equal(pk.out_vc, 5);
    hs_fabric_destroy(F);
}

static void test_deadlock(void **state)
{
    (void)state;
    hs_fabric *F = ring_fabric("");
    assert_int_equal(hs_topo_vcs(hs_fabric_topo(F)), HS_FABRIC_MAX_VCS);
    for (uint32_t i = 0; i < 12; i++)
        assert_int_equal(hs_fabric_inject(F, 0, i, (i + 11) % 12, 64 * 4096, 0, 1, i), 0);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), HS_EDEADLOCK);
    assert_true(F->pk_live > 0);
    /* the cycle: the 12 ring links on the last VC, each buffer holding one
     * packet that waits for the next one, no credit anywhere */
    hs_fabric_deadlock d;
    assert_int_equal(hs_fabric_find_deadlock(F, &d), 1);
    check_ring_cycle(F, &d, 12);
    char buf[4096];
    size_t len = hs_fabric_deadlock_str(F, &d, buf, sizeof buf);
    assert_true(len > 0 && len < sizeof buf);
    assert_non_null(strstr(buf, "a cycle of 12 full buffers"));
    assert_non_null(strstr(buf, "(link) VC 7: 1 packets, 4096 B; head (4096 B) waits for link"));
    hs_fabric_destroy(F);
}

/* The same ring deadlock while two other nodes keep the network busy: the
 * run never goes idle, and only the detector can tell. */
static void test_deadlock_partial(void **state)
{
    (void)state;
    hs_fabric *F = ring_fabric("switch t0\nswitch t1\nnode m0\nnode m1\nlink m0 t0\n"
                               "link m1 t1\nlink t0 t1\nlink s0 t0\n");
    hs_fabric_deadlock d;
    assert_int_equal(hs_fabric_find_deadlock(F, &d), 0);   /* empty network */
    assert_int_equal(d.total, 0);
    uint32_t m0 = 0, m1 = 0;
    char nm[32];
    for (uint32_t n = 0; n < hs_topo_nodes(hs_fabric_topo(F)); n++) {
        hs_topo_node_name(hs_fabric_topo(F), n, nm, sizeof nm);
        if (!strcmp(nm, "m0"))
            m0 = n;
        if (!strcmp(nm, "m1"))
            m1 = n;
    }
    assert_int_not_equal(m0, m1);
    /* a long stream m0 -> m1 (its own switches) and the ring traffic */
    assert_int_equal(hs_fabric_inject(F, 0, m0, m1, 4096ull * 4096, 0, 0, 99), 0);
    for (uint32_t i = 0; i < 12; i++) {
        hs_topo_node_name(hs_fabric_topo(F), i, nm, sizeof nm);
        uint32_t dst = 0;
        char want[16];
        int k = atoi(nm + 1);
        snprintf(want, sizeof want, "n%d", (k + 11) % 12);
        for (uint32_t n = 0; n < hs_topo_nodes(hs_fabric_topo(F)); n++) {
            char nm2[32];
            hs_topo_node_name(hs_fabric_topo(F), n, nm2, sizeof nm2);
            if (!strcmp(nm2, want))
                dst = n;
        }
        if (nm[0] == 'n')
            assert_int_equal(hs_fabric_inject(F, 0, i, dst, 64 * 4096, 0, 1, i), 0);
    }
    /* 100 us: the stream (about 670 us at 25 GB/s) is still going */
    assert_int_equal(hs_fabric_run(F, 100 * HS_PS_PER_US), 0);
    assert_int_equal(hs_fabric_find_deadlock(F, &d), 1);
    check_ring_cycle(F, &d, 12);
    assert_int_equal(d.t, 100 * HS_PS_PER_US);
    hs_fabric_destroy(F);
}

/* Heavy congestion is not deadlock: an incast with every buffer on the way
 * full is never reported. */
static void test_deadlock_none_under_incast(void **state)
{
    (void)state;
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    hs_fabric *F = make("fattree:k=4,n=3", &p);
    uint32_t N = hs_topo_nodes(hs_fabric_topo(F));
    for (uint32_t i = 1; i < N; i++)
        assert_int_equal(hs_fabric_inject(F, 0, i, 0, 64 * 4096, 0, 0, 0), 0);
    int stalled = 0;
    for (int k = 1; k <= 20; k++) {
        assert_int_equal(hs_fabric_run(F, (hs_time)k * 5 * HS_PS_PER_US), 0);
        hs_fabric_deadlock d;
        assert_int_equal(hs_fabric_find_deadlock(F, &d), 0);
        for (uint32_t l = 1; l <= F->L; l++)
            stalled += F->op[l].stall_since != HS_TIME_NEVER;
    }
    assert_true(stalled > 0);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    assert_int_equal(F->pk_live, 0);
    hs_fabric_destroy(F);
}

/* Packet pool: freed slots come back last freed first, then never-used
 * slots in index order, across a growth (4096 slots first); only slots
 * ever used count as resident memory, and the parts add up. */
static void test_pool_order_memory(void **state)
{
    (void)state;
    hs_fabric *F = make("fattree:k=4,n=2", NULL);
    hs_fabric_stats st0;
    hs_fabric_get_stats(F, &st0);
    assert_int_equal(st0.mem_part[HS_MEM_PACKETS], (size_t)F->tm_cap * 8);
    uint32_t a = hs__pkt_alloc(F), b = hs__pkt_alloc(F), c = hs__pkt_alloc(F);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_int_equal(c, 2);
    hs__pkt_free(F, a);
    hs__pkt_free(F, c);
    assert_int_equal(hs__pkt_alloc(F), 2);
    assert_int_equal(hs__pkt_alloc(F), 0);
    assert_int_equal(hs__pkt_alloc(F), 3);
    for (uint32_t i = 4; i < 5000; i++)
        assert_int_equal(hs__pkt_alloc(F), i);
    assert_int_equal(F->pk_cap, 8192);
    assert_int_equal(F->pk_hw, 5000);
    assert_int_equal(F->pk_live, 5000);
    hs__pkt_free(F, 17);
    assert_int_equal(hs__pkt_alloc(F), 17);
    hs_fabric_stats st;
    hs_fabric_get_stats(F, &st);
    assert_int_equal(st.mem_part[HS_MEM_PACKETS],
                     5000 * (sizeof(hs__pkt) + sizeof(hs__pkc)) + (size_t)F->tm_cap * 8);
    size_t sum = 0;
    for (unsigned i = 0; i < HS_FABRIC_MEM_PARTS; i++) {
        assert_non_null(hs_fabric_mem_part_name(i));
        sum += st.mem_part[i];
    }
    assert_null(hs_fabric_mem_part_name(HS_FABRIC_MEM_PARTS));
    assert_int_equal(sum, st.mem_bytes);
    assert_int_equal(st.mem_bytes - st0.mem_bytes, 5000 * (sizeof(hs__pkt) + sizeof(hs__pkc)));
    for (uint32_t i = 0; i < 5000; i++)
        hs__pkt_free(F, i);
    hs_fabric_destroy(F);
}

/* Ground truth accumulates in each link's transmitter and reaches the
 * per-phase and per-window blocks when the link's phase or window changes
 * or before a read.  Stopped mid-run: hs_fabric_truth on one link flushes
 * it (its accumulator empties), and after hs__truth_flush the windows add
 * up to the phases link by link; the run then goes on to the same totals
 * as an uninterrupted one. */
static void test_truth_accumulator(void **state)
{
    (void)state;
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.window = 3 * HS_PS_PER_US;   /* windows change during the messages */
    hs_fabric *F = make("fattree:k=4,n=2", &p), *G = make("fattree:k=4,n=2", &p);
    for (int k = 0; k < 2; k++) {
        hs_fabric *X = k ? G : F;
        for (uint32_t i = 0; i < 40; i++)
            assert_int_equal(hs_fabric_inject(X, (hs_time)i * 500 * HS_PS_PER_NS, i % 16,
                                              (i * 7 + 3) % 16 == i % 16 ? (i + 1) % 16
                                                                         : (i * 7 + 3) % 16,
                                              20000, (uint16_t)(i % 3), 1, i), 0);
    }
    assert_int_equal(hs_fabric_run(F, 7 * HS_PS_PER_US), 0);
    int held = 0;
    for (uint32_t l = 1; l <= F->L; l++)
        held += F->op[l].acc_win != HS_NIL;
    assert_true(held > 0);   /* something is still in the transmitters */
    uint32_t l0 = 0;
    for (uint32_t l = 1; l <= F->L && !l0; l++)
        if (F->op[l].acc_win != HS_NIL)
            l0 = l;
    hs_link_truth lt;
    assert_int_equal(hs_fabric_truth(F, l0, &lt), 0);
    assert_int_equal(F->op[l0].acc_win, HS_NIL);
    assert_true(lt.packets > 0);
    hs__truth_flush(F);
    for (uint32_t l = 1; l <= F->L; l++) {
        assert_int_equal(F->op[l].acc_win, HS_NIL);
        uint64_t pp = 0, pb = 0, wp = 0, wb = 0, pbusy = 0, wbusy = 0;
        for (unsigned i = 0; i < F->nphase; i++) {
            pp += F->truth_ph[i][l].packets;
            pb += F->truth_ph[i][l].bytes;
            pbusy += F->truth_ph[i][l].busy;
        }
        for (size_t w = 0; w < F->nwin; w++)
            if (F->truth_win[w]) {
                wp += F->truth_win[w][l].packets;
                wb += F->truth_win[w][l].bytes;
                wbusy += F->truth_win[w][l].busy;
            }
        assert_int_equal(pp, wp);
        assert_int_equal(pb, wb);
        assert_int_equal(pbusy, wbusy);
        if (l == l0)
            assert_int_equal(pp, lt.packets);
    }
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
    assert_int_equal(hs_fabric_run(G, HS_TIME_NEVER), 1);
    const hs__truth *tf = hs__truth_sum(F);
    const hs__truth *tg = hs__truth_sum(G);
    uint64_t hops = 0;
    for (uint32_t l = 1; l <= F->L; l++) {
        assert_memory_equal(&tf[l], &tg[l], sizeof tf[l]);
        hops += tf[l].packets;
    }
    hs_fabric_stats st;
    hs_fabric_get_stats(F, &st);
    assert_int_equal(hops, st.hops);
    hs_fabric_destroy(F);
    hs_fabric_destroy(G);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_load_exact),
        cmocka_unit_test(test_zero_load_mixed),
        cmocka_unit_test(test_api_errors),
        cmocka_unit_test(test_timers),
        cmocka_unit_test(test_timer_at),
        cmocka_unit_test(test_lane_order),
        cmocka_unit_test(test_drain_invariants),
        cmocka_unit_test(test_window_coarsening),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_keyed_credits),
        cmocka_unit_test(test_prefetch_neutral),
        cmocka_unit_test(test_incast_tree),
        cmocka_unit_test(test_inband_truth),
        cmocka_unit_test(test_hop_overflow),
        cmocka_unit_test(test_vc_select),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_deadlock_partial),
        cmocka_unit_test(test_deadlock_none_under_incast),
        cmocka_unit_test(test_pool_order_memory),
        cmocka_unit_test(test_truth_accumulator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
