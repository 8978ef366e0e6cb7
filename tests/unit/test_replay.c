/* The MPI replay on small hand-written traces, with exact expectations
 * computed from the fabric's documented timing model (docs/fabric.md): a
 * message of B bytes between two nodes of one leaf switch, posted on an
 * idle network, is delivered after
 *     L(B) = (npk - 1) ser(full) + lat(inj) + lat(ej) + route_delay + ser(last)
 * and has left its NIC after (npk - 1) ser(full) + ser(last).
 * Protocols (docs/replay.md): eager one way = L(B); rendezvous one way =
 * L(ctrl) (RTS) + L(ctrl) (CTS) + L(B) (data) when the receive is posted;
 * on one node: copy(B) + shm latency, and three shm latencies plus the
 * copy for rendezvous. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/fabric.h"
#include "hopscope/replay.h"
#include "hopscope/trace.h"

#define TOPO "fattree:k=4,n=2"   /* nodes 0..3 share leaf switch 0 */

/* ---- writing traces ------------------------------------------------------------ */

typedef struct tw {
    hs_trace_writer *w;
    int64_t t;        /* ns */
    uint64_t req;
} tw;

static char dir[256];

static void new_trace(uint32_t nranks, tw *ws)
{
    snprintf(dir, sizeof dir, "/tmp/hs-test-replay-XXXXXX");
    assert_non_null(mkdtemp(dir));
    hs_trace_manifest m;
    memset(&m, 0, sizeof m);
    char *names[64];
    uint32_t node[64];
    assert_true(nranks <= 64);
    for (uint32_t r = 0; r < nranks; r++) {
        names[r] = malloc(16);
        snprintf(names[r], 16, "vnode%u", r);
        node[r] = r;
    }
    m.nranks = nranks;
    m.nnodes = nranks;
    m.writer = "test";
    m.mpi_abi = "none";
    m.mpi_library = "test";
    m.mpi_version = "3.1";
    m.command = "./unit test";
    m.start_time = "1970-01-01T00:00:00Z";
    m.clock = "ns";
    m.node_mode = "synthetic";
    m.sample_rate = 1;
    m.node_names = names;
    m.rank_node = node;
    hs_error e;
    assert_int_equal(hs_trace_manifest_write(dir, &m, &e), 0);
    for (uint32_t r = 0; r < nranks; r++) {
        free(names[r]);
        assert_int_equal(hs_trace_writer_open(&ws[r].w, dir, r, nranks, &e), 0);
        ws[r].t = 0;
        ws[r].req = 0;
        hs_trace_event ev;
        hs_trace_event_init(&ev, HS_TRACE_INIT);
        ev.t_start = -1000;
        ev.t_end = 0;
        assert_int_equal(hs_trace_writer_event(ws[r].w, &ev, &e), 0);
    }
}

static void put(tw *x, hs_trace_event *ev, int64_t gap_ns)
{
    hs_error e;
    x->t += gap_ns;
    ev->t_start = x->t;
    ev->t_end = x->t + 1;   /* the recorded call time is not replayed */
    x->t = ev->t_end;
    if (hs_trace_writer_event(x->w, ev, &e) != 0)
        fail_msg("writer: %s", e.msg);
}

static void send_(tw *x, int kind, int32_t dst, int32_t tag, uint64_t bytes, int64_t gap)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer = dst;
    ev.tag = tag;
    ev.bytes = bytes;
    ev.flags = HS_TRACE_F_MONITORED;
    put(x, &ev, gap);
}

static void recv_(tw *x, int32_t src, int32_t tag, uint64_t bytes, int64_t gap)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_RECV);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer = ev.peer2 = src;
    ev.tag = ev.tag2 = tag;
    ev.bytes = ev.bytes2 = bytes;
    put(x, &ev, gap);
}

static uint64_t isend(tw *x, int32_t dst, int32_t tag, uint64_t bytes, int64_t gap)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_ISEND);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer = dst;
    ev.tag = tag;
    ev.bytes = bytes;
    ev.req = ++x->req;
    put(x, &ev, gap);
    return ev.req;
}

static uint64_t irecv(tw *x, int32_t posted_src, int32_t posted_tag, uint64_t cap, int64_t gap)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_IRECV);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer2 = posted_src;
    ev.tag2 = posted_tag;
    ev.bytes2 = cap;
    if (posted_src == HS_TRACE_ANY_SOURCE)
        ev.flags |= HS_TRACE_F_ANY_SOURCE;
    ev.req = ++x->req;
    put(x, &ev, gap);
    return ev.req;
}

/* Wait on one request; for a receive, its matched source/tag/bytes. */
static void wait1(tw *x, uint64_t req, int32_t src, int32_t tag, uint64_t bytes, int64_t gap)
{
    hs_trace_compl c = { .req = req, .flags = src >= 0 ? HS_TRACE_C_STATUS : 0,
                         .src = src, .tag = tag, .bytes = bytes };
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WAIT);
    ev.ncompl = 1;
    ev.compl = &c;
    put(x, &ev, gap);
}

static void coll(tw *x, int kind, uint64_t bytes, int64_t gap)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.bytes = ev.bytes2 = bytes;
    put(x, &ev, gap);
}

static void finish(tw *ws, uint32_t n)
{
    hs_error e;
    for (uint32_t r = 0; r < n; r++) {
        hs_trace_event ev;
        hs_trace_event_init(&ev, HS_TRACE_FINALIZE);
        put(&ws[r], &ev, 0);
        assert_int_equal(hs_trace_writer_close(ws[r].w, &e), 0);
    }
}

static void rm_trace(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The defaults, on the trace of this test and TOPO, one rank per node. */
static void params(hs_replay_params *p)
{
    hs_replay_params_default(p);
    p->trace = dir;
    p->topo = TOPO;
    p->ppn = 1;
}

static int replay(const char *map, uint32_t ppn, hs_replay_result *r)
{
    hs_replay_params p;
    params(&p);
    p.map = map;
    p.ppn = ppn;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_replay_run(&p, r, &e);
    if (rc)
        print_error("replay: %s\n", hs_error_str(&e, rc));
    return rc;
}

/* ---- the analytic model ------------------------------------------------------- */

static hs_time L(uint64_t bytes)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    const uint64_t bw = 25000000000ull;      /* the topology's default 25 GB/s */
    const hs_time lat = 100 * HS_PS_PER_NS;  /* per link */
    uint64_t npk = bytes ? (bytes + p.mtu - 1) / p.mtu : 1;
    uint64_t last = bytes - (npk - 1) * p.mtu;
    uint64_t wl = last + p.header < HS_FABRIC_MIN_PACKET ? HS_FABRIC_MIN_PACKET : last + p.header;
    return (npk - 1) * hs_ser_time(p.mtu + p.header, bw) + 2 * lat + p.route_delay +
           hs_ser_time(wl, bw);
}

static hs_time copy_t(uint64_t bytes)
{
    hs_replay_params p;
    hs_replay_params_default(&p);
    return hs_ser_time(bytes, p.mem_bw);
}

/* ---- ping-pong ------------------------------------------------------------------ */

static void pingpong_trace(uint64_t bytes, int iters)
{
    tw w[2];
    new_trace(2, w);
    for (int i = 0; i < iters; i++) {
        send_(&w[0], HS_TRACE_SEND, 1, 7, bytes, 0);
        recv_(&w[0], 1, 7, bytes, 0);
        recv_(&w[1], 0, 7, bytes, 0);
        send_(&w[1], HS_TRACE_SEND, 0, 7, bytes, 0);
    }
    finish(w, 2);
}

/* Histogram edges: 64 ns, doubling every HS_LAT_PER_OCTAVE buckets. */
static void test_latency_edges(void **state)
{
    (void)state;
    assert_int_equal(hs_lat_edge(0), 64 * HS_PS_PER_NS);
    assert_int_equal(hs_lat_edge(HS_LAT_PER_OCTAVE), 128 * HS_PS_PER_NS);
    assert_int_equal(hs_lat_edge(10 * HS_LAT_PER_OCTAVE), 65536 * HS_PS_PER_NS);
    for (unsigned i = 0; i + 1 < HS_LAT_BUCKETS; i++)
        assert_true(hs_lat_edge(i) < hs_lat_edge(i + 1));
}

static void check_pingpong(uint64_t bytes, int rndv)
{
    const int iters = 5;
    pingpong_trace(bytes, iters);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    hs_time one = rndv ? 2 * L(0) + L(bytes) : L(bytes);
    if (r.total != 2 * iters * one)
        fail_msg("%llu bytes: replayed %llu ps, analytic %llu ps", (unsigned long long)bytes,
                 (unsigned long long)r.total, (unsigned long long)(2 * iters * one));
    assert_int_equal(r.messages, 2 * iters);
    assert_int_equal(r.lat.messages, 2 * iters);
    /* every message crossed the idle network in exactly the same time */
    assert_int_equal(r.lat.p50, one);
    assert_int_equal(r.lat.p99, one);
    assert_int_equal(r.lat.max, one);
    /* ... so the histogram has all of them in the one bucket holding `one` */
    for (unsigned i = 0; i < HS_LAT_BUCKETS; i++) {
        int here = hs_lat_edge(i) <= one && (i + 1 == HS_LAT_BUCKETS || one < hs_lat_edge(i + 1));
        assert_int_equal(r.lat.hist[i], here ? 2 * iters : 0);
    }
    assert_int_equal(r.unmatched_sends + r.unmatched_recvs, 0);
    /* rank 1 ends when its last reply has left its NIC */
    hs_time sent = rndv ? 2 * L(0) + L(bytes) - (2 * 100 * HS_PS_PER_NS + 100 * HS_PS_PER_NS)
                        : L(bytes) - 3 * 100 * HS_PS_PER_NS;
    assert_int_equal(r.rank_time[1], (2 * iters - 1) * one + sent);
    hs_replay_result_free(&r);

    /* the same on one node: shared memory */
    hs_replay_params p;
    hs_replay_params_default(&p);
    assert_int_equal(replay(NULL, 2, &r), 0);
    hs_time shm = p.shm_latency;
    hs_time one_shm = rndv ? 3 * shm + copy_t(bytes) : shm + copy_t(bytes);
    assert_int_equal(r.total, 2 * iters * one_shm);
    assert_int_equal(r.lat.messages, 0);   /* nothing crossed the network */
    hs_replay_result_free(&r);
    rm_trace();
}

static void test_pingpong_eager(void **s)
{
    (void)s;
    check_pingpong(8, 0);
    check_pingpong(4096, 0);
    check_pingpong(16384, 0);      /* the eager limit itself */
}

static void test_pingpong_rendezvous(void **s)
{
    (void)s;
    check_pingpong(16385, 1);
    check_pingpong(1 << 20, 1);
}

/* ---- matching rules ------------------------------------------------------------------ */

/* Two messages on one key, a rendezvous one first: the first receive gets
 * it even though the small one arrives long before (non-overtaking). */
static void test_non_overtaking(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    uint64_t a = isend(&w[0], 1, 5, 100000, 0), b = isend(&w[0], 1, 5, 1000, 0);
    hs_trace_compl c[2] = { { .req = a }, { .req = b } };
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WAITALL);
    ev.ncompl = 2;
    ev.compl = c;
    put(&w[0], &ev, 0);
    recv_(&w[1], 0, 5, 100000, 0);
    recv_(&w[1], 0, 5, 1000, 0);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    /* RTS (first in the NIC queue) in at L(0), CTS back at 2 L(0), data in
     * L(100000) later; the small message has waited, unexpected: copied */
    assert_int_equal(r.rank_time[1], 2 * L(0) + L(100000) + copy_t(1000));
    hs_replay_result_free(&r);
    rm_trace();
}

/* First legs that arrive out of sending order on one key: two ranks on one
 * node, an eager synchronous message of 16 KiB (its copy takes 1.6 us)
 * then one of 8 bytes; the small one arrives first.  Matching is at the
 * receiver, by each message's place among its key's sends: the k-th
 * receive gets the k-th message whatever the order of arrival, with the
 * receives posted late (both messages wait, in the arrived list) and early
 * (both receives wait, the second meets its message first). */
static void arrival_order_trace(int preposted)
{
    tw w[2];
    new_trace(2, w);
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_ISSEND);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer = 1;
    ev.tag = 5;
    ev.bytes = 16384;
    ev.flags = HS_TRACE_F_MONITORED;
    ev.req = ++w[0].req;
    put(&w[0], &ev, 0);
    uint64_t a = ev.req, b = isend(&w[0], 1, 5, 8, 0);
    hs_trace_compl c[2] = { { .req = a }, { .req = b } };
    hs_trace_event_init(&ev, HS_TRACE_WAITALL);
    ev.ncompl = 2;
    ev.compl = c;
    put(&w[0], &ev, 0);
    if (preposted) {
        uint64_t q1 = irecv(&w[1], 0, 5, 16384, 0), q2 = irecv(&w[1], 0, 5, 8, 0);
        wait1(&w[1], q2, 0, 5, 8, 0);
        wait1(&w[1], q1, 0, 5, 16384, 0);
    } else {
        recv_(&w[1], 0, 5, 16384, 5000);
        recv_(&w[1], 0, 5, 8, 10000);
    }
    finish(w, 2);
}

static void test_arrival_order(void **s)
{
    (void)s;
    hs_replay_params p;
    hs_replay_params_default(&p);
    const hs_time shm = p.shm_latency, us = 1000 * HS_PS_PER_NS;
    hs_replay_result r;

    /* receives posted at 5 us, after both arrived: the first gets the
     * 16 KiB message (copied out, and acknowledged: rank 0's ssend ends
     * one shm latency later), the second, 10 us after that copy, the 8 bytes */
    arrival_order_trace(0);
    assert_int_equal(replay(NULL, 2, &r), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.unmatched_sends + r.unmatched_recvs, 0);
    assert_int_equal(r.rank_time[0], 5 * us + shm);
    assert_int_equal(r.rank_time[1], 5 * us + copy_t(16384) + 10 * us + copy_t(8));
    hs_replay_result_free(&r);
    rm_trace();

    /* receives posted at 0: the 8 bytes arrive first (copy(8) + shm) and
     * complete the second receive; the 16 KiB at copy(16 KiB) + shm complete
     * the first, and the acknowledgement is back one shm latency later */
    arrival_order_trace(1);
    assert_int_equal(replay(NULL, 2, &r), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.rank_time[1], copy_t(16384) + shm);
    assert_int_equal(r.rank_time[0], copy_t(16384) + 2 * shm);
    hs_replay_result_free(&r);
    rm_trace();
}

/* MPI_ANY_SOURCE as the trace resolved it: rank 2's wildcard receive got
 * rank 1's (late) message, not rank 0's (early) one. */
static void test_any_source_resolved(void **s)
{
    (void)s;
    tw w[3];
    new_trace(3, w);
    send_(&w[0], HS_TRACE_SEND, 2, 9, 2000, 0);
    send_(&w[1], HS_TRACE_SEND, 2, 9, 2000, 5000);    /* 5 us of computation first */
    uint64_t q = irecv(&w[2], HS_TRACE_ANY_SOURCE, 9, 2000, 0);
    wait1(&w[2], q, 1, 9, 2000, 0);
    recv_(&w[2], 0, 9, 2000, 0);
    finish(w, 3);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.unmatched_sends + r.unmatched_recvs + r.unresolved, 0);
    assert_int_equal(r.rank_time[2], 5000 * HS_PS_PER_NS + L(2000) + copy_t(2000));
    hs_replay_result_free(&r);
    rm_trace();
}

static void test_probe_waits(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    send_(&w[0], HS_TRACE_SEND, 1, 3, 512, 2000);
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_PROBE);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer2 = HS_TRACE_ANY_SOURCE;
    ev.tag2 = HS_TRACE_ANY_TAG;
    ev.peer = 0;
    ev.tag = 3;
    ev.bytes = 512;
    put(&w[1], &ev, 0);
    recv_(&w[1], 0, 3, 512, 0);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    /* the probe returns on arrival; the receive then copies it out */
    assert_int_equal(r.rank_time[1], 2000 * HS_PS_PER_NS + L(512) + copy_t(512));
    hs_replay_result_free(&r);
    rm_trace();
}

/* Synchronous sends wait for the receiver: an eager ssend completes when
 * the acknowledgement is back, after the late receive was posted. */
static void test_ssend_waits_for_receiver(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    send_(&w[0], HS_TRACE_SSEND, 1, 1, 100, 0);
    recv_(&w[1], 0, 1, 100, 10000);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    /* receive posted at 10 us: matched, the ack leaves then */
    assert_int_equal(r.rank_time[0], 10000 * HS_PS_PER_NS + L(0));
    assert_int_equal(r.rank_time[1], 10000 * HS_PS_PER_NS + copy_t(100));
    hs_replay_result_free(&r);
    rm_trace();
}

/* The watchdog guards runs with background jobs only: without one, a
 * watchdog of 1 ps (shorter than any message's flight) stops nothing, and
 * the ping-pong ends with its analytic time. */
static void test_watchdog_needs_background(void **s)
{
    (void)s;
    pingpong_trace(4096, 3);
    hs_replay_params p;
    params(&p);
    p.watchdog = 1;
    hs_replay_result r;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.total, 2 * 3 * L(4096));
    hs_replay_result_free(&r);
    rm_trace();
}

/* Phase ids are given before the run, by a scan of the ranks' programs in
 * rank order (docs/replay.md, "Phases and time"): rank 1 sends tag 9 at
 * time 0, while rank 0 computes for 10 us before its send of tag 5, yet
 * tag 5 is phase 0 (the first tag of rank 0's program) and tag 9 phase 1.
 * Given at first use in simulated time, tag 9 was phase 0.  Without a
 * background the run ends when the network is idle: nothing is left in
 * flight, and the job's time is still its last rank's finish. */
static void test_phases_before_run(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    send_(&w[0], HS_TRACE_SEND, 1, 5, 64, 10000);
    recv_(&w[0], 1, 9, 64, 0);
    send_(&w[1], HS_TRACE_SEND, 0, 9, 64, 0);
    recv_(&w[1], 0, 5, 64, 0);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.nphases, 2);
    assert_string_equal(r.phases[0].name, "tag 5");
    assert_string_equal(r.phases[1].name, "tag 9");
    assert_int_equal(r.phases[0].messages, 1);
    assert_int_equal(r.phases[1].messages, 1);
    assert_int_equal(r.net.packets_in_flight, 0);
    assert_int_equal(r.net.messages_delivered, 2);
    /* rank 0: 10 us, then its eager send; rank 1's receive completes when
     * that message arrives */
    assert_int_equal(r.rank_time[1], 10000 * HS_PS_PER_NS + L(64));
    assert_int_equal(r.total, r.rank_time[1]);
    hs_replay_result_free(&r);
    rm_trace();
}

/* ---- a parallel replay in one process (threads as MPI processes) ------------
 * The transport of hopscope-par (cli/par_mpi.c) over threads: min_time is a
 * minimum through a barrier, exchange copies what every part left for this
 * one.  Each thread runs hs_replay_run as one part; part 0 writes the run
 * directory, which must equal the sequential run's byte for byte. */
#define PT_MAX 4
typedef struct pt_shared {
    pthread_barrier_t bar;
    unsigned np;
    hs_time t[PT_MAX];
    const void *const *out[PT_MAX];
    const size_t *outlen[PT_MAX];
} pt_shared;
typedef struct pt_ctx {
    pt_shared *sh;
    unsigned me;
    unsigned char *rbuf;
    size_t rcap;
    hs_replay_params p;
    hs_replay_result r;
    int rc;
    char out[300];
} pt_ctx;

static int pt_min(void *ctx, hs_time *t)
{
    pt_ctx *c = ctx;
    pt_shared *sh = c->sh;
    sh->t[c->me] = *t;
    pthread_barrier_wait(&sh->bar);
    hs_time m = HS_TIME_NEVER;
    for (unsigned i = 0; i < sh->np; i++)
        if (sh->t[i] < m)
            m = sh->t[i];
    pthread_barrier_wait(&sh->bar);
    *t = m;
    return 0;
}

static int pt_exchange(void *ctx, const void *const *out, const size_t *outlen, const void **in,
                       size_t *inlen)
{
    pt_ctx *c = ctx;
    pt_shared *sh = c->sh;
    sh->out[c->me] = out;
    sh->outlen[c->me] = outlen;
    pthread_barrier_wait(&sh->bar);
    size_t n = 0;
    for (unsigned q = 0; q < sh->np; q++)
        if (q != c->me)
            n += sh->outlen[q][c->me];
    if (n > c->rcap) {
        unsigned char *b = realloc(c->rbuf, n);
        if (b) {
            c->rbuf = b;
            c->rcap = n;
        }
    }
    size_t k = 0;
    for (unsigned q = 0; q < sh->np && n <= c->rcap; q++)
        if (q != c->me && sh->outlen[q][c->me]) {
            memcpy(c->rbuf + k, sh->out[q][c->me], sh->outlen[q][c->me]);
            k += sh->outlen[q][c->me];
        }
    pthread_barrier_wait(&sh->bar);   /* the senders' buffers stay until all copied */
    *in = c->rbuf;
    *inlen = k;
    return n <= c->rcap ? 0 : HS_ENOMEM;
}

static void *pt_run(void *arg)
{
    pt_ctx *c = arg;
    hs_error e;
    hs_error_clear(&e);
    c->rc = hs_replay_run(&c->p, &c->r, &e);
    if (c->rc)
        print_error("part %u: %s\n", c->me, hs_error_str(&e, c->rc));
    return NULL;
}

/* 1 when every file of directory a is in b with the same bytes, and b has
 * no other file. */
static int same_dirs(const char *a, const char *b)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' > /dev/null 2>&1", a, b);
    return system(cmd) == 0;
}

/* A ring of rendezvous messages (Irecv, Isend, Wait), an allreduce, and
 * eager sends to the rank four away, on 8 ranks, 2 per node with a
 * shifted mapping on a 4x4 torus (shared-memory legs and network messages),
 * replayed sequentially and as 2 and 3 parts. */
static void test_parallel_in_process(void **s)
{
    (void)s;
    const uint32_t n = 8;
    tw w[8];
    new_trace(n, w);
    for (uint32_t r = 0; r < n; r++) {
        uint64_t rq = irecv(&w[r], (int32_t)((r + n - 1) % n), 3, 40000, 0);
        uint64_t sq = isend(&w[r], (int32_t)((r + 1) % n), 3, 40000, 1000 * r);
        wait1(&w[r], sq, -1, 0, 0, 0);
        wait1(&w[r], rq, (int32_t)((r + n - 1) % n), 3, 40000, 0);
        coll(&w[r], HS_TRACE_ALLREDUCE, 256, 2000);
        if (r < 4) {
            send_(&w[r], HS_TRACE_SEND, (int32_t)(r + 4), 9, 512, 0);
            recv_(&w[r], (int32_t)(r + 4), 9, 512, 0);
        } else {
            recv_(&w[r], (int32_t)(r - 4), 9, 512, 0);
            send_(&w[r], HS_TRACE_SEND, (int32_t)(r - 4), 9, 512, 0);
        }
    }
    finish(w, n);
    char seq[300];
    snprintf(seq, sizeof seq, "%s/seq", dir);
    hs_replay_params p;
    params(&p);
    p.topo = "torus:4x4";
    p.ppn = 2;
    p.map = "shift:3";
    p.command = "unit test";
    p.out = seq;
    hs_replay_result r;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.unmatched_sends + r.unmatched_recvs, 0);
    hs_time total = r.total;
    uint64_t msgs = r.messages;
    hs_replay_result_free(&r);
    for (unsigned np = 2; np <= 3; np++) {
        pt_shared sh;
        memset(&sh, 0, sizeof sh);
        sh.np = np;
        assert_int_equal(pthread_barrier_init(&sh.bar, NULL, np), 0);
        pt_ctx c[PT_MAX];
        pthread_t th[PT_MAX];
        hs_fabric_transport tr[PT_MAX];
        memset(c, 0, sizeof c);
        for (unsigned i = 0; i < np; i++) {
            c[i].sh = &sh;
            c[i].me = i;
            c[i].p = p;
            snprintf(c[i].out, sizeof c[i].out, "%s/par%u", dir, np);
            c[i].p.out = c[i].out;
            tr[i] = (hs_fabric_transport){ pt_min, pt_exchange, &c[i] };
            c[i].p.transport = &tr[i];
            c[i].p.nparts = np;
            c[i].p.part = i;
        }
        for (unsigned i = 0; i < np; i++)
            assert_int_equal(pthread_create(&th[i], NULL, pt_run, &c[i]), 0);
        for (unsigned i = 0; i < np; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&sh.bar);
        for (unsigned i = 0; i < np; i++) {
            assert_int_equal(c[i].rc, 0);
            free(c[i].rbuf);
        }
        assert_int_equal(c[0].r.total, total);
        assert_int_equal(c[0].r.messages, msgs);
        for (unsigned i = 0; i < np; i++)
            hs_replay_result_free(&c[i].r);
        if (!same_dirs(seq, c[0].out))
            fail_msg("%u parts: the run directory differs from the sequential run's", np);
    }
    rm_trace();
}

/* A background job is refused in a parallel run, before anything runs. */
static void test_parallel_refuses_background(void **s)
{
    (void)s;
    pingpong_trace(64, 1);
    hs_replay_params p;
    params(&p);
    p.background = "incast";
    hs_fabric_transport tr = { pt_min, pt_exchange, NULL };
    p.transport = &tr;
    p.nparts = 2;
    p.part = 0;
    hs_replay_result r;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "background jobs"));
    hs_replay_result_free(&r);
    rm_trace();
}

static void test_deadlock_reported(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    recv_(&w[0], 1, 4, 10, 0);
    send_(&w[0], HS_TRACE_SEND, 1, 4, 10, 0);
    recv_(&w[1], 0, 4, 10, 0);
    send_(&w[1], HS_TRACE_SEND, 0, 4, 10, 0);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, HS_EDEADLOCK);
    assert_non_null(r.report);
    assert_non_null(strstr(r.report, "deadlock"));
    assert_non_null(strstr(r.report, "rank 0: MPI_recv"));
    assert_non_null(strstr(r.report, "rank 1: MPI_recv"));
    assert_int_equal(r.unmatched_recvs, 2);
    hs_replay_result_free(&r);
    rm_trace();
}

/* Computation adds up per thread against --max-compute: three gaps of 25
 * minutes pass one by one, but the third brings the thread past an hour
 * and the replay is refused, naming the rank and the event, before a
 * single simulated second; with the limit raised it replays them. */
static void test_max_compute(void **s)
{
    (void)s;
    const int64_t min25 = 25ll * 60 * 1000000000ll;
    tw w[2];
    new_trace(2, w);
    for (int i = 0; i < 3; i++) {
        send_(&w[0], HS_TRACE_SEND, 1, 4, 10, min25);
        recv_(&w[1], 0, 4, 10, min25);
    }
    finish(w, 2);
    hs_replay_params p;
    params(&p);
    assert_int_equal(p.max_compute, 3600ull * 1000000000000ull);
    hs_error e;
    hs_error_clear(&e);
    hs_replay_result r;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_ERANGE);
    hs_replay_result_free(&r);
    /* rank 0's events: init (0), sends 1..3; the third is at 75 min */
    assert_non_null(strstr(e.msg, "rank 0, event 3 (send at 4500 s)"));
    assert_non_null(strstr(e.msg, "--max-compute 3600 s"));
    p.max_compute = 2 * 3600ull * 1000000000000ull;
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    assert_int_equal(r.status, 0);
    assert_true(r.total >= 3 * (hs_time)min25 * HS_PS_PER_NS);
    hs_replay_result_free(&r);
    rm_trace();
}

/* --max-packets before the run: a message of 2^60 bytes (a damaged size)
 * is 2^48 packets of 4 KiB, far above the default 2^28: refused at once,
 * naming the message, instead of simulating for days. */
static void test_max_packets_refuses(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    send_(&w[0], HS_TRACE_SEND, 1, 4, 1ull << 60, 0);
    recv_(&w[1], 0, 4, 1ull << 60, 0);
    finish(w, 2);
    hs_replay_params p;
    params(&p);
    assert_int_equal(p.max_packets, 1ull << 28);
    hs_error e;
    hs_error_clear(&e);
    hs_replay_result r;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_ERANGE);
    hs_replay_result_free(&r);
    assert_non_null(strstr(e.msg, "sends 1152921504606846976 bytes, 281474976710656 packets of "
                                  "4096 bytes"));
    assert_non_null(strstr(e.msg, "largest message: 1152921504606846976 bytes, rank 0, event 1, "
                                  "send"));
    assert_non_null(strstr(e.msg, "--max-packets 268435456"));
    /* the limit is a strict bound: 2^48 packets do not pass 2^48 - 1 */
    p.max_packets = (1ull << 48) - 1;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_ERANGE);
    hs_replay_result_free(&r);
    /* without the replay's limit the network refuses the message (more than
     * 2^32 - 1 packets) when its data is posted, and says so */
    p.max_packets = 0;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_ERANGE);
    hs_replay_result_free(&r);
    assert_non_null(strstr(e.msg, "a message of 1152921504606846976 bytes is more packets than "
                                  "the network model carries in one message"));
    rm_trace();
}

/* 4 ranks: an allreduce of 8 bytes, then a barrier. */
static void allreduce_barrier_trace(void)
{
    tw w[4];
    new_trace(4, w);
    for (int r = 0; r < 4; r++) {
        coll(&w[r], HS_TRACE_ALLREDUCE, 8, 0);
        coll(&w[r], HS_TRACE_BARRIER, 0, 0);
    }
    finish(w, 4);
}

/* --max-packets while running: an allreduce of 8 bytes and a barrier on 4
 * ranks are 4 packets in the trace's estimate (the barrier sends no bytes),
 * but recursive doubling sends 8 messages of one packet for each: 16
 * packets.  A limit of 15 passes the estimate and stops the run at the
 * 16th; 16 replays it. */
static void test_max_packets_at_run_time(void **s)
{
    (void)s;
    allreduce_barrier_trace();
    hs_replay_params p;
    params(&p);
    p.max_packets = 15;
    hs_error e;
    hs_error_clear(&e);
    hs_replay_result r;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_ERANGE);
    hs_replay_result_free(&r);
    assert_non_null(strstr(e.msg, "more than --max-packets 15 packets"));
    assert_non_null(strstr(e.msg, "the trace's messages gave 4"));
    p.max_packets = 16;
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.messages, 16);
    hs_replay_result_free(&r);
    rm_trace();
}

static void test_leftover_reported(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    send_(&w[0], HS_TRACE_SEND, 1, 4, 10, 0);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, HS_ESTATE);
    assert_int_equal(r.unmatched_sends, 1);
    assert_non_null(strstr(r.report, "rank 0 sent 10 bytes to rank 1 with tag 4"));
    hs_replay_result_free(&r);
    rm_trace();
}

/* ---- collectives ------------------------------------------------------------------- */

/* Recursive doubling on 4 ranks of one leaf: two exchange steps of L(8),
 * each followed by a local reduction of 8 bytes; the barrier's two
 * dissemination steps of L(0). */
static void test_allreduce_and_barrier(void **s)
{
    (void)s;
    allreduce_barrier_trace();
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    hs_replay_params p;
    hs_replay_params_default(&p);
    hs_time red = hs_ser_time(8, p.reduce_bw);
    assert_int_equal(r.total, 2 * (L(8) + red) + 2 * L(0));
    assert_int_equal(r.messages, 4 * 2 + 4 * 2);
    assert_int_equal(r.nphases, 2);
    assert_string_equal(r.phases[0].name, "allreduce");
    assert_string_equal(r.phases[0].kind, "collective");
    assert_string_equal(r.phases[1].name, "barrier");
    assert_int_equal(r.phases[0].messages, 8);
    /* the time in calls: 4 ranks x the allreduce's time */
    assert_int_equal(r.phases[0].time, 4 * 2 * (L(8) + red));
    hs_replay_result_free(&r);
    rm_trace();
}

/* Ranks recorded on a host with more ranks than cores had their computation
 * stretched by waiting for a core: the replay scales it by cores/ranks on
 * that host (docs/replay.md), unless a factor is given. */
static void rewrite_hosts(uint32_t n, const char *const *rank_host, uint32_t nh,
                          const char *const *hosts, const uint32_t *cores)
{
    hs_trace_manifest m;
    hs_error e;
    assert_int_equal(hs_trace_manifest_read(dir, &m, &e), 0);
    for (uint32_t r = 0; r < n; r++) {
        free(m.rank_host[r]);
        m.rank_host[r] = strdup(rank_host[r]);
    }
    for (uint32_t h = 0; h < m.nhosts; h++)
        free(m.host_name[h]);
    free(m.host_name);
    free(m.host_cores);
    m.nhosts = nh;
    m.host_name = malloc(nh * sizeof *m.host_name);
    m.host_cores = malloc(nh * sizeof *m.host_cores);
    for (uint32_t h = 0; h < nh; h++) {
        m.host_name[h] = strdup(hosts[h]);
        m.host_cores[h] = cores[h];
    }
    assert_int_equal(hs_trace_manifest_write(dir, &m, &e), 0);
    hs_trace_manifest_free(&m);
}

static void test_compute_scale_rule(void **s)
{
    (void)s;
    tw w[4];
    new_trace(4, w);
    for (int r = 0; r < 4; r++)
        coll(&w[r], HS_TRACE_BARRIER, 0, 3000);      /* 3 us of computation first */
    finish(w, 4);
    static const char *const rank_host[] = { "a", "a", "a", "b" };
    static const char *const hosts[] = { "a", "b" };
    static const uint32_t cores[] = { 2, 4 };
    rewrite_hosts(4, rank_host, 2, hosts, cores);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    /* 3 ranks on 2 cores: x 2/3; the rank alone on 4 cores: x 1 */
    assert_int_equal(r.compute_mean, (3 * 2000 + 3000) * HS_PS_PER_NS / 4);
    assert_true(r.compute_scale_min > 0.6666 && r.compute_scale_min < 0.6667);
    assert_true(r.compute_scale_max == 1.0);
    assert_non_null(r.report);
    assert_non_null(strstr(r.report, "3 of 4 ranks were recorded on hosts with fewer cores than "
                                     "ranks (3 ranks on 2 cores on a)"));
    hs_replay_result_free(&r);

    /* a given factor wins, and nothing is said */
    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    p.compute_scale = 1.0;
    hs_error e;
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    assert_int_equal(r.compute_mean, 3000 * HS_PS_PER_NS);
    assert_true(!r.report || !strstr(r.report, "fewer cores"));
    hs_replay_result_free(&r);

    /* every host with enough cores: nothing scaled */
    static const uint32_t many[] = { 3, 1 };
    rewrite_hosts(4, rank_host, 2, hosts, many);
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.compute_mean, 3000 * HS_PS_PER_NS);
    assert_true(r.compute_scale_min == 1.0 && r.compute_scale_max == 1.0);
    hs_replay_result_free(&r);
    rm_trace();
}

/* ---- one-sided ---------------------------------------------------------------------- */

static void rma_ev(tw *x, int kind, uint64_t win, int32_t peer, int32_t tag, uint64_t b,
                   uint64_t b2)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.win = win;
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer = peer;
    ev.tag = tag;
    ev.bytes = b;
    ev.bytes2 = b2;
    put(x, &ev, 0);
}

/* lock (request + grant), put, unlock (waits for the put's delivery, then
 * release + acknowledgement); then a get: request there, data back. */
static void test_rma_lock_put_get(void **s)
{
    (void)s;
    tw w[2];
    new_trace(2, w);
    for (int r = 0; r < 2; r++)
        rma_ev(&w[r], HS_TRACE_WIN_CREATE, 77, HS_TRACE_RANK_NONE, HS_TRACE_WCTOR_CREATE, 4096, 0);
    rma_ev(&w[0], HS_TRACE_WIN_LOCK, 77, 1, 1, 0, 0);
    rma_ev(&w[0], HS_TRACE_PUT, 77, 1, HS_TRACE_TAG_NONE, 3000, 0);
    rma_ev(&w[0], HS_TRACE_WIN_UNLOCK, 77, 1, HS_TRACE_TAG_NONE, 0, 0);
    rma_ev(&w[0], HS_TRACE_WIN_LOCK, 77, 1, 2, 0, 0);
    rma_ev(&w[0], HS_TRACE_GET, 77, 1, HS_TRACE_TAG_NONE, 0, 5000);
    rma_ev(&w[0], HS_TRACE_WIN_UNLOCK, 77, 1, HS_TRACE_TAG_NONE, 0, 0);
    finish(w, 2);
    hs_replay_result r;
    assert_int_equal(replay(NULL, 1, &r), 0);
    assert_int_equal(r.status, 0);
    hs_time first = 2 * L(0) + L(3000) + 2 * L(0);
    hs_time second = 2 * L(0) + L(0) + L(5000) + 2 * L(0);
    assert_int_equal(r.rank_time[0], first + second);
    assert_int_equal(r.rma_ops, 2);
    assert_int_equal(r.rma_bytes, 8000);
    hs_replay_result_free(&r);
    rm_trace();
}

/* ---- mappings ------------------------------------------------------------------------- */

static void test_mappings(void **s)
{
    (void)s;
    hs_mapping_cfg m;
    hs_error e;
    uint32_t node[12];
    memset(&m, 0, sizeof m);
    m.ppn = 2;
    assert_int_equal(hs_mapping_parse("linear", &m, &e), 0);
    assert_int_equal(hs_mapping_build(&m, 7, 8, node, &e), 0);
    uint32_t lin[] = { 0, 0, 1, 1, 2, 2, 3 };
    assert_memory_equal(node, lin, sizeof lin);
    assert_int_equal(hs_mapping_parse("roundrobin", &m, &e), 0);
    assert_int_equal(m.ppn, 2);
    assert_int_equal(hs_mapping_build(&m, 7, 8, node, &e), 0);
    uint32_t rr[] = { 0, 1, 2, 3, 0, 1, 2 };   /* 4 nodes in use */
    assert_memory_equal(node, rr, sizeof rr);
    assert_int_equal(hs_mapping_parse("shift:-3", &m, &e), 0);
    assert_int_equal(hs_mapping_build(&m, 7, 8, node, &e), 0);
    uint32_t sh[] = { 5, 5, 6, 6, 7, 7, 0 };
    assert_memory_equal(node, sh, sizeof sh);
    /* random: each node at most ppn ranks, same seed same placement */
    assert_int_equal(hs_mapping_parse("random:42", &m, &e), 0);
    assert_int_equal(hs_mapping_build(&m, 12, 100, node, &e), 0);
    uint32_t again[12], cnt[100] = { 0 };
    assert_int_equal(hs_mapping_build(&m, 12, 100, again, &e), 0);
    assert_memory_equal(node, again, sizeof node);
    for (int i = 0; i < 12; i++)
        assert_true(++cnt[node[i]] <= 2);
    /* too many ranks, bad specs */
    m.ppn = 1;
    assert_int_equal(hs_mapping_parse("linear", &m, &e), 0);
    assert_int_equal(hs_mapping_build(&m, 9, 8, node, &e), HS_EINVAL);
    assert_int_equal(hs_mapping_parse("nowhere", &m, &e), HS_EINVAL);
    assert_int_equal(hs_mapping_parse("shift", &m, &e), HS_EINVAL);
    assert_int_equal(hs_mapping_parse("random:x", &m, &e), HS_EINVAL);
    /* file */
    char path[] = "/tmp/hs-test-map-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# rank node\n2 7\n0 5\n1 5  # two on node 5\n");
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "file:%s", path);
    assert_int_equal(hs_mapping_parse(spec, &m, &e), 0);
    assert_int_equal(hs_mapping_build(&m, 3, 8, node, &e), 0);
    uint32_t fm[] = { 5, 5, 7 };
    assert_memory_equal(node, fm, sizeof fm);
    assert_int_equal(hs_mapping_build(&m, 4, 8, node, &e), HS_EINVAL);   /* rank 3 missing */
    assert_non_null(strstr(e.msg, "rank 3 is missing"));
    assert_int_equal(hs_mapping_build(&m, 3, 6, node, &e), HS_EINVAL);   /* node 7 > machine */
    unlink(path);
}

/* A mapping changes where messages go, hence the latency: ranks 0 and 1 on
 * one node talk through shared memory. */
static void test_mapping_in_replay(void **s)
{
    (void)s;
    pingpong_trace(1000, 2);
    hs_replay_result r;
    assert_int_equal(replay("roundrobin", 2, &r), 0);   /* 2 ranks, ppn 2: one node */
    hs_replay_params p;
    hs_replay_params_default(&p);
    assert_int_equal(r.total, 4 * (p.shm_latency + copy_t(1000)));
    hs_replay_result_free(&r);
    assert_int_equal(replay("shift:2", 1, &r), 0);       /* nodes 2 and 3: same leaf */
    assert_int_equal(r.total, 4 * L(1000));
    hs_replay_result_free(&r);
    rm_trace();
}

/* A mapping file that puts more ranks on a node than --ppn says is refused,
 * naming the node and its ranks; without --ppn the file's count stands. */
static void test_mapping_file_ppn(void **s)
{
    (void)s;
    tw w[3];
    new_trace(3, w);
    send_(&w[0], HS_TRACE_SEND, 1, 4, 10, 0);
    recv_(&w[1], 0, 4, 10, 0);
    finish(w, 3);
    char path[] = "/tmp/hs-test-map-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "0 3\n1 3\n2 3\n");
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "file:%s", path);
    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    p.map = spec;
    p.ppn = 2;
    hs_error e;
    hs_error_clear(&e);
    hs_replay_result r;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_EINVAL);
    hs_replay_result_free(&r);
    char want[160];
    snprintf(want, sizeof want, "%s: node 3 gets 3 ranks (0, 1, 2), more than --ppn 2", path);
    assert_string_equal(e.msg, want);
    p.ppn = 3;
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    hs_replay_result_free(&r);
    p.ppn = 0;   /* not given: the file decides */
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    hs_replay_result_free(&r);
    unlink(path);
    rm_trace();
}

/* An explicit placement gives the same run as the equivalent spec. */
static void test_explicit_mapping(void **s)
{
    (void)s;
    pingpong_trace(3000, 3);
    hs_replay_result a, b;
    assert_int_equal(replay("shift:5", 1, &a), 0);
    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    uint32_t nodes[2] = { 5, 6 };
    p.node_of_rank = nodes;
    p.node_of_rank_n = 2;
    hs_error e;
    assert_int_equal(hs_replay_run(&p, &b, &e), 0);
    assert_int_equal(a.total, b.total);
    assert_int_equal(a.lat.p50, b.lat.p50);
    hs_replay_result_free(&b);
    p.node_of_rank_n = 3;
    assert_int_equal(hs_replay_run(&p, &b, &e), HS_EINVAL);
    hs_replay_result_free(&b);
    nodes[1] = 99;
    p.node_of_rank_n = 2;
    assert_int_equal(hs_replay_run(&p, &b, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "rank 1 on node 99"));
    hs_replay_result_free(&b);
    hs_replay_result_free(&a);
    rm_trace();
}

/* ---- robustness ------------------------------------------------------------------ */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? rng_state % n : 0;
}

static int32_t rpeer(uint32_t n)
{
    uint64_t k = rnd(20);
    if (k == 0)
        return HS_TRACE_PROC_NULL;
    if (k == 1)
        return (int32_t)n + (int32_t)rnd(3);     /* outside the job */
    return (int32_t)rnd(n);
}

/* Random programs (mostly inconsistent: unmatched, deadlocking, with
 * requests waited twice or never started, peers outside the job): the
 * replay must finish every one, with an error or a status, never crash or
 * hang; under the sanitizers never touch memory it should not. */
static void test_random_traces(void **s)
{
    (void)s;
    for (int iter = 0; iter < 120; iter++) {
        uint32_t n = 2 + (uint32_t)rnd(5);
        tw w[8];
        new_trace(n, w);
        uint64_t reqs[8][32];
        uint32_t nreq[8] = { 0 };
        for (uint32_t r = 0; r < n; r++) {
            int nev = (int)rnd(25);
            for (int k = 0; k < nev; k++) {
                hs_trace_event ev;
                hs_error e;
                uint64_t bytes = rnd(4) == 0 ? rnd(40000) : rnd(100);
                int32_t tag = (int32_t)rnd(4) - (rnd(30) == 0);
                int64_t gap = (int64_t)rnd(3000);
                switch (rnd(9)) {
                case 0: {
                    static const int modes[] = { HS_TRACE_SEND, HS_TRACE_SSEND, HS_TRACE_BSEND,
                                                 HS_TRACE_RSEND };
                    hs_trace_event_init(&ev, modes[rnd(4)]);
                    ev.comm = HS_TRACE_COMM_WORLD;
                    ev.peer = rpeer(n);
                    ev.tag = tag;
                    ev.bytes = bytes;
                    break;
                }
                case 1:
                    hs_trace_event_init(&ev, HS_TRACE_ISEND);
                    ev.comm = HS_TRACE_COMM_WORLD;
                    ev.peer = rpeer(n);
                    ev.tag = tag;
                    ev.bytes = bytes;
                    ev.req = ++w[r].req;
                    if (nreq[r] < 32)
                        reqs[r][nreq[r]++] = ev.req;
                    break;
                case 2:
                    hs_trace_event_init(&ev, HS_TRACE_RECV);
                    ev.comm = HS_TRACE_COMM_WORLD;
                    ev.peer = ev.peer2 = rpeer(n);
                    ev.tag = ev.tag2 = tag;
                    ev.bytes = ev.bytes2 = bytes;
                    break;
                case 3:
                    hs_trace_event_init(&ev, rnd(5) ? HS_TRACE_IRECV : HS_TRACE_RECV_INIT);
                    ev.comm = HS_TRACE_COMM_WORLD;
                    ev.peer2 = rnd(3) ? rpeer(n) : HS_TRACE_ANY_SOURCE;
                    ev.tag2 = rnd(3) ? tag : HS_TRACE_ANY_TAG;
                    ev.bytes2 = bytes;
                    ev.req = ++w[r].req;
                    if (nreq[r] < 32)
                        reqs[r][nreq[r]++] = ev.req;
                    break;
                case 4: {
                    hs_trace_compl c[4];
                    uint32_t nc = (uint32_t)rnd(4);
                    for (uint32_t i = 0; i < nc; i++) {
                        c[i].req = nreq[r] ? reqs[r][rnd(nreq[r])] : rnd(5);
                        c[i].flags = rnd(2) ? HS_TRACE_C_STATUS : (rnd(8) ? 0 : HS_TRACE_C_CANCELLED);
                        c[i].src = rpeer(n);
                        c[i].tag = tag;
                        c[i].bytes = bytes;
                    }
                    hs_trace_event_init(&ev, rnd(2) ? HS_TRACE_WAITALL : HS_TRACE_TESTSOME);
                    ev.ncompl = nc;
                    ev.compl = c;
                    put(&w[r], &ev, gap);
                    continue;
                }
                case 5: {
                    static const int colls[] = { HS_TRACE_BARRIER, HS_TRACE_ALLREDUCE,
                                                 HS_TRACE_BCAST, HS_TRACE_ALLTOALL,
                                                 HS_TRACE_REDUCE, (HS_TRACE_ALLREDUCE + HS_TRACE_NB),
                                                 HS_TRACE_ALLGATHER, HS_TRACE_SCAN };
                    int kind = colls[rnd(8)];
                    hs_trace_event_init(&ev, kind);
                    ev.comm = HS_TRACE_COMM_WORLD;
                    ev.peer = (kind == HS_TRACE_BCAST || kind == HS_TRACE_REDUCE) ? rpeer(n)
                                                                                 : HS_TRACE_RANK_NONE;
                    ev.bytes = bytes * n;
                    ev.bytes2 = bytes * n;
                    if (kind == (HS_TRACE_ALLREDUCE + HS_TRACE_NB))
                        ev.req = ++w[r].req;
                    break;
                }
                case 6:
                    hs_trace_event_init(&ev, rnd(2) ? HS_TRACE_PROBE : HS_TRACE_IPROBE);
                    ev.comm = HS_TRACE_COMM_WORLD;
                    ev.peer = rpeer(n);
                    ev.tag = tag;
                    ev.peer2 = HS_TRACE_ANY_SOURCE;
                    ev.tag2 = HS_TRACE_ANY_TAG;
                    if (rnd(2))
                        ev.flags |= HS_TRACE_F_FOUND;
                    break;
                case 7: {
                    hs_trace_start st[2] = { { nreq[r] ? reqs[r][rnd(nreq[r])] : 1, 0 },
                                             { rnd(9), HS_TRACE_F_MONITORED } };
                    hs_trace_event_init(&ev, HS_TRACE_STARTALL);
                    ev.nstarts = 2;
                    ev.starts = st;
                    put(&w[r], &ev, gap);
                    continue;
                }
                default:
                    hs_trace_event_init(&ev, HS_TRACE_REQUEST_FREE);
                    ev.req = nreq[r] ? reqs[r][rnd(nreq[r])] : 0;
                    break;
                }
                ev.t_start = w[r].t + gap;
                ev.t_end = ev.t_start + 1;
                if (hs_trace_writer_event(w[r].w, &ev, &e) == 0)
                    w[r].t = ev.t_end;
            }
        }
        if (rnd(4) == 0) {
            /* a rank killed early: no end record */
            hs_error e;
            for (uint32_t r = 0; r < n; r++)
                if (r != 1) {
                    hs_trace_event ev;
                    hs_trace_event_init(&ev, HS_TRACE_FINALIZE);
                    put(&w[r], &ev, 0);
                }
            for (uint32_t r = 0; r < n; r++)
                hs_trace_writer_close(w[r].w, &e);
            char path[512];
            snprintf(path, sizeof path, "%s/rank-000001.hst", dir);
            assert_int_equal(truncate(path, 64), 0);
        } else {
            finish(w, n);
        }
        hs_replay_result r;
        hs_replay_params p;
        hs_replay_params_default(&p);
        p.trace = dir;
        p.topo = TOPO;
        p.ppn = 1 + (uint32_t)rnd(2);
        hs_error e;
        int rc = hs_replay_run(&p, &r, &e);
        assert_true(rc == 0 || rc == HS_EFORMAT || rc == HS_EINVAL);
        if (rc == 0)
            assert_true(r.status == 0 || r.status == HS_EDEADLOCK || r.status == HS_ESTATE);
        else
            assert_true(strlen(e.msg) > 0);
        hs_replay_result_free(&r);
        rm_trace();
    }
}

/* Specs from users: never a crash, always a message. */
static void test_bad_specs(void **s)
{
    (void)s;
    static const char *const bits[] = {
        "alltoall", "incast", "rma_incast", "rma_bcast", "mixed", "trace:", ":", ",", "+",
        "frac=", "0.5", "size=", "4K", "ppn=", "2", "nodes=", "x", "=", "allreduce", "ring",
        "bcast=binomial", "linear", "random:", "shift:", "file:", "-1", "1e9", "",
    };
    const size_t nb = sizeof bits / sizeof bits[0];
    pingpong_trace(8, 1);
    for (int i = 0; i < 300; i++) {
        char spec[128] = "";
        int parts = 1 + (int)rnd(5);
        for (int k = 0; k < parts; k++)
            strncat(spec, bits[rnd(nb)], sizeof spec - strlen(spec) - 1);
        hs_mapping_cfg m;
        memset(&m, 0, sizeof m);
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_mapping_parse(spec, &m, &e);
        assert_true(rc == 0 || (rc == HS_EINVAL && e.msg[0]));
        hs_replay_params p;
        hs_replay_params_default(&p);
        p.trace = dir;
        p.topo = "fattree:k=4,n=2";
        int which = (int)rnd(3);
        if (which == 0)
            p.background = spec;
        else if (which == 1)
            p.coll = spec;
        else
            p.map = spec;
        hs_replay_result r;
        hs_error_clear(&e);
        rc = hs_replay_run(&p, &r, &e);
        assert_true(rc == 0 || e.msg[0]);
        hs_replay_result_free(&r);
    }
    rm_trace();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_edges),
        cmocka_unit_test(test_pingpong_eager),
        cmocka_unit_test(test_pingpong_rendezvous),
        cmocka_unit_test(test_non_overtaking),
        cmocka_unit_test(test_arrival_order),
        cmocka_unit_test(test_any_source_resolved),
        cmocka_unit_test(test_probe_waits),
        cmocka_unit_test(test_ssend_waits_for_receiver),
        cmocka_unit_test(test_watchdog_needs_background),
        cmocka_unit_test(test_phases_before_run),
        cmocka_unit_test(test_parallel_in_process),
        cmocka_unit_test(test_parallel_refuses_background),
        cmocka_unit_test(test_deadlock_reported),
        cmocka_unit_test(test_leftover_reported),
        cmocka_unit_test(test_max_compute),
        cmocka_unit_test(test_max_packets_refuses),
        cmocka_unit_test(test_max_packets_at_run_time),
        cmocka_unit_test(test_allreduce_and_barrier),
        cmocka_unit_test(test_compute_scale_rule),
        cmocka_unit_test(test_rma_lock_put_get),
        cmocka_unit_test(test_mappings),
        cmocka_unit_test(test_mapping_in_replay),
        cmocka_unit_test(test_mapping_file_ppn),
        cmocka_unit_test(test_explicit_mapping),
        cmocka_unit_test(test_random_traces),
        cmocka_unit_test(test_bad_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
