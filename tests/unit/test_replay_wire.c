/* simulate --wire (hs_replay_params.wire) on hand-written wire files, with
 * exact expectations from the fabric's timing model (docs/fabric.md, as in
 * test_replay.c): a message of B bytes between two nodes of one leaf
 * switch, posted on an idle network, arrives after
 *     L(B) = (npk - 1) ser(full) + lat(inj) + lat(ej) + route_delay + ser(last). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/fabric.h"
#include "hopscope/replay.h"
#include "hopscope/trace.h"
#include "test_trace_util.h"

#define TOPO "fattree:k=4,n=2"   /* nodes 0..3 share leaf switch 0 */

static hs_time L(uint64_t bytes)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    const uint64_t bw = 25000000000ull;
    const hs_time lat = 100 * HS_PS_PER_NS;
    uint64_t npk = bytes ? (bytes + p.mtu - 1) / p.mtu : 1;
    uint64_t last = bytes - (npk - 1) * p.mtu;
    uint64_t wl = last + p.header < HS_FABRIC_MIN_PACKET ? HS_FABRIC_MIN_PACKET : last + p.header;
    return (npk - 1) * hs_ser_time(p.mtu + p.header, bw) + 2 * lat + p.route_delay +
           hs_ser_time(wl, bw);
}

static char dir[256];

/* n ranks, one per host "h(r)". */
static void manifest(uint32_t n)
{
    test_manifest t;
    test_manifest_init(&t, n, n, "h", 10);
    test_manifest_write(&t, dir);
}

static void ev_put(hs_trace_writer *w, int kind, int op, int64_t t0, int64_t t1, uint64_t bytes,
                   uint64_t tag, uint64_t id, uint64_t addr, uint32_t flags)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.t_start = t0;
    ev.t_end = t1;
    ev.bytes = bytes;
    ev.bytes2 = tag;
    ev.req = id;
    ev.aux = addr;
    ev.flags = flags;
    if (kind == HS_TRACE_WIRE_OP)
        ev.tag2 = op;
    hs_error e;
    if (hs_trace_writer_event(w, &ev, &e))
        fail_msg("%s", e.msg);
}

/* Rank 0 sends B to rank 1, whose receive completes; rank 1 then sends B
 * back (it waited for that completion), rank 0's receive (posted after its
 * send completed) completes: two transfers one after the other, 2 L(B). */
static void test_wire_pingpong(void **s)
{
    (void)s;
    const uint64_t B = 1 << 20;
    snprintf(dir, sizeof dir, "/tmp/hs-test-wire-XXXXXX");
    assert_non_null(mkdtemp(dir));
    manifest(2);
    hs_error e;
    hs_trace_writer *w;
    const uint64_t U0 = 0x5000, U1 = 0x5001;
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 0, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 0, 5, B, 7, 1, U1, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 100, 100, 0, 0, 1, 0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 110, 115, B, 8, 2, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 200, 200, B, 8, 2, 0, 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 1, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U1, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 0, 5, B, 7, 1, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 50, 50, B, 7, 1, 0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 60, 65, B, 8, 2, U0, 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);

    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    p.ppn = 1;
    p.wire = 1;
    p.compute_scale = 0;
    hs_replay_result r;
    int rc = hs_replay_run(&p, &r, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    assert_int_equal(r.status, 0);
    assert_int_equal(r.messages, 2);
    assert_int_equal(r.bytes, 2 * B);
    assert_int_equal(r.total, 2 * L(B));
    assert_int_equal(r.rank_time[1], 2 * L(B));   /* its send arrived then */
    assert_int_equal(r.lat.messages, 2);
    assert_int_equal(r.lat.max, L(B));
    hs_replay_result_free(&r);

    /* with the recorded gaps: rank 1's send waits 10 ns after its receive */
    p.compute_scale = 1;
    rc = hs_replay_run(&p, &r, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    assert_int_equal(r.total, 2 * L(B) + 10 * HS_PS_PER_NS);
    hs_replay_result_free(&r);

    /* --max-packets: the two transfers are 2 x 256 packets of 4 KiB */
    p.max_packets = 511;
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_ERANGE);
    assert_non_null(strstr(e.msg, "hold 512 packets of 4096 bytes (the largest transfer: "
                                  "1048576 bytes), more than the limit --max-packets 511"));
    hs_replay_result_free(&r);
    p.max_packets = 512;
    assert_int_equal(hs_replay_run(&p, &r, &e), 0);
    hs_replay_result_free(&r);

    /* a background makes no sense below MPI */
    p.background = "gpcnet:incast";
    assert_int_equal(hs_replay_run(&p, &r, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "wire-level replay takes no background"));
    hs_replay_result_free(&r);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Rank 0 sends B to itself (a copy: shared-memory latency + B at memory
 * bandwidth), then B to rank 1 without waiting for the copy (no completion
 * between the two posts): the send to rank 1 leaves at once, so rank 1's
 * receive completes after L(B), not after the copy and L(B) (as when the
 * copy's arrival completed it at its issue, advancing the rank to the
 * copy's end: MPICH's alltoall, whose blocks include one to itself, then
 * replayed 1.7x the model's time at 64 KiB, docs/replay.md). */
static void test_wire_self_copy(void **s)
{
    (void)s;
    const uint64_t B = 1 << 20;
    snprintf(dir, sizeof dir, "/tmp/hs-test-wire-XXXXXX");
    assert_non_null(mkdtemp(dir));
    manifest(2);
    hs_error e;
    hs_trace_writer *w;
    const uint64_t U0 = 0x5000, U1 = 0x5001;
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 0, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 0, 0, B, 5, 1, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 1, 1, B, 5, 2, U0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 2, 2, B, 6, 3, U1, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 50, 50, 0, 0, 2, 0, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 60, 60, B, 5, 1, 0, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 70, 70, 0, 0, 3, 0, 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 1, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U1, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 0, 0, B, 6, 1, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 80, 80, B, 6, 1, 0, 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);

    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    p.ppn = 1;
    p.wire = 1;
    p.compute_scale = 0;
    hs_replay_result r;
    int rc = hs_replay_run(&p, &r, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    hs_time copy = p.shm_latency + (hs_time)((__int128)B * 1000000000000 / p.mem_bw);
    assert_true(copy > 0 && L(B) > 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.rank_time[1], L(B));
    assert_int_equal(r.rank_time[0], copy > L(B) ? copy : L(B));
    assert_int_equal(r.total, copy > L(B) ? copy : L(B));
    hs_replay_result_free(&r);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void mpi_put(hs_trace_writer *w, int kind, int64_t t0, int64_t t1, uint64_t bytes)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.t_start = t0;
    ev.t_end = t1;
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.bytes = ev.bytes2 = bytes;
    hs_error e;
    if (hs_trace_writer_event(w, &ev, &e))
        fail_msg("%s", e.msg);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* A ring allreduce of B bytes on 2 ranks, as MPICH's wire trace has it:
 * each rank sends B/2 to the other and receives B/2 (reduce-scatter: the
 * library reduces it), then sends its reduced half and receives the other
 * (allgather: a copy).  Inside the rank files' MPI_Allreduce of B the first
 * receive is reduced (B/2 fits the budget B (P-1)/P), the second not, so
 * each rank ends at 2 L(B/2) + (B/2) / reduce_bw; with the reduction left
 * out (a trace without rank files) at 2 L(B/2).  app.json has the one
 * phase and the matrix: B each way in 2 messages. */
static void test_wire_reduction(void **s)
{
    (void)s;
    const uint64_t B = 1 << 20, H = B / 2;
    snprintf(dir, sizeof dir, "/tmp/hs-test-wire-XXXXXX");
    assert_non_null(mkdtemp(dir));
    manifest(2);
    hs_error e;
    const uint64_t U[2] = { 0x6000, 0x6001 };
    for (uint32_t r = 0; r < 2; r++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open_wire(&w, dir, r, 2, &e), 0);
        ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U[r], 0);
        ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 10, 10, H, 1, 1, U[1 - r],
               HS_TRACE_F_WIRE_IMM);
        ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 20, 20, H, 1, 2, 0, HS_TRACE_F_WIRE_IN);
        ev_put(w, HS_TRACE_WIRE_DONE, 0, 300, 300, H, 1, 2, 0, 0);
        ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 400, 400, H, 2, 3, U[1 - r],
               HS_TRACE_F_WIRE_IMM);
        ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 410, 410, H, 2, 4, 0,
               HS_TRACE_F_WIRE_IN);
        ev_put(w, HS_TRACE_WIRE_DONE, 0, 700, 700, H, 2, 4, 0, 0);
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    p.ppn = 1;
    p.wire = 1;
    p.compute_scale = 0;
    hs_replay_result r;
    int rc = hs_replay_run(&p, &r, &e);   /* no rank files yet */
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    assert_int_equal(r.total, 2 * L(H));
    assert_non_null(strstr(r.report, "2 ranks without a rank file: none charged"));
    hs_replay_result_free(&r);

    for (uint32_t k = 0; k < 2; k++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open(&w, dir, k, 2, &e), 0);
        mpi_put(w, HS_TRACE_ALLREDUCE, 5, 800, B);
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
    char out[300];
    snprintf(out, sizeof out, "%s/run", dir);
    p.out = out;
    rc = hs_replay_run(&p, &r, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    assert_int_equal(r.total, 2 * L(H) + hs_ser_time(H, p.reduce_bw));
    assert_int_equal(r.rank_time[0], r.rank_time[1]);
    assert_non_null(strstr(r.report, "local reductions: 2 receives inside reduction collectives, "
                                     "1048576 bytes reduced"));
    assert_int_equal(r.nphases, 1);
    assert_string_equal(r.phases[0].kind, "wire");
    hs_replay_result_free(&r);
    char path[400];
    snprintf(path, sizeof path, "%s/app.json", out);
    const char *app = slurp(path);
    assert_non_null(strstr(app, "\"format\": \"hopscope-app\""));
    assert_non_null(strstr(app, "\"name\": \"wire transfers\""));
    assert_non_null(strstr(app, "\"wire\": true"));
    assert_non_null(strstr(app, "\"reduced_bytes\": 1048576"));
    /* comm: [src, dst, bytes, messages] */
    const char *c = strstr(app, "\"comm\": [");
    assert_non_null(c);
    char want[200];
    snprintf(want, sizeof want, "[\n      0,\n      1,\n      %llu,\n      2\n    ]",
             (unsigned long long)B);
    assert_non_null(strstr(c, want));
    snprintf(want, sizeof want, "[\n      1,\n      0,\n      %llu,\n      2\n    ]",
             (unsigned long long)B);
    assert_non_null(strstr(c, want));
    snprintf(path, sizeof path, "%s/manifest.json", out);
    assert_non_null(strstr(slurp(path), "\"file\": \"app.json\""));
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Rendezvous: rank 0 sends B to rank 1, the completion reporting that UCX
 * used a rendezvous with the receiver reading (get); rank 1's receive is
 * posted at once.  Replayed: the request to send (ctrl) reaches rank 1 at
 * L(c), its get request reaches rank 0 at 2 L(c), the data rank 1 at
 * 2 L(c) + L(B) (the receive completes), the acknowledgement rank 0 at
 * 3 L(c) + L(B) (the send completes).  Reported as a put (the sender
 * writes): no acknowledgement, both end at 2 L(c) + L(B).  Without the
 * protocol (an eager send): L(B). */
static void rndv_trace(uint32_t done_flags)
{
    snprintf(dir, sizeof dir, "/tmp/hs-test-wire-XXXXXX");
    assert_non_null(mkdtemp(dir));
    manifest(2);
    hs_error e;
    hs_trace_writer *w;
    const uint64_t U0 = 0x7000, U1 = 0x7001, B = 1 << 20;
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 0, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 0, 5, B, 7, 1, U1, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 100, 100, 0, 0, 1, 0, done_flags);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 1, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U1, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 0, 5, B, 7, 1, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 90, 90, B, 7, 1, 0, 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
}

static void rndv_run(hs_replay_result *r)
{
    hs_replay_params p;
    hs_replay_params_default(&p);
    p.trace = dir;
    p.topo = TOPO;
    p.ppn = 1;
    p.wire = 1;
    p.compute_scale = 0;
    hs_error e;
    int rc = hs_replay_run(&p, r, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_wire_rendezvous(void **s)
{
    (void)s;
    hs_replay_params p;
    hs_replay_params_default(&p);
    const uint64_t B = 1 << 20;
    const hs_time c = L(p.ctrl_bytes);
    hs_replay_result r;
    rndv_trace(HS_TRACE_F_WIRE_RNDV | HS_TRACE_F_WIRE_RGET);
    rndv_run(&r);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.rank_time[1], 2 * c + L(B));
    assert_int_equal(r.rank_time[0], 3 * c + L(B));
    assert_int_equal(r.messages, 4);
    assert_non_null(strstr(r.report, "1 sends by rendezvous"));
    hs_replay_result_free(&r);

    rndv_trace(HS_TRACE_F_WIRE_RNDV | HS_TRACE_F_WIRE_RPUT);
    rndv_run(&r);
    assert_int_equal(r.rank_time[0], 2 * c + L(B));
    assert_int_equal(r.rank_time[1], 2 * c + L(B));
    assert_int_equal(r.messages, 3);
    hs_replay_result_free(&r);

    rndv_trace(HS_TRACE_F_WIRE_EAGER);
    rndv_run(&r);
    assert_int_equal(r.total, L(B));
    assert_int_equal(r.messages, 1);
    hs_replay_result_free(&r);
}

/* Rendezvous by get in both directions between two ranks (a pairwise
 * exchange step), rank 1's send posted D = 3 us after rank 0's: rank 0's
 * data to rank 1 (read by rank 1) is on its way when rank 1's request to
 * send reaches rank 0, whose get request back must not wait behind that
 * data: the fabric returns a read's data on the NIC's other lane
 * (hs_fabric_inject_lane).  Rank 0's receive then completes one handshake
 * and one transfer after D: between D + 2 L(c) + L(B) (causality: request,
 * get request, data) and that plus one more L(c) (the get request goes
 * between two of the data's packets).  With one injection queue per NIC
 * (--nic-queues 1) there is only one lane: the get request leaves after
 * rank 0's whole 1 MiB, and the receive takes two transfers, >= 2 L(B). */
static void xchg_trace(void)
{
    snprintf(dir, sizeof dir, "/tmp/hs-test-wire-XXXXXX");
    assert_non_null(mkdtemp(dir));
    manifest(2);
    hs_error e;
    hs_trace_writer *w;
    const uint64_t U0 = 0x7100, U1 = 0x7101, B = 1 << 20;
    const uint32_t get = HS_TRACE_F_WIRE_RNDV | HS_TRACE_F_WIRE_RGET;
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 0, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U0, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 0, 5, B, 7, 1, U1, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 10, 15, B, 8, 2, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 300000, 300000, 0, 0, 1, 0, get);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 300010, 300010, B, 8, 2, 0, 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 1, 2, &e), 0);
    ev_put(w, HS_TRACE_WIRE_WORKER, 0, -100, -100, 100, 0, 0, U1, 0);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_RECV, 0, 5, B, 7, 1, 0, HS_TRACE_F_WIRE_IN);
    ev_put(w, HS_TRACE_WIRE_OP, HS_TRACE_WOP_TAG_SEND, 3000, 3005, B, 8, 2, U0, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 300000, 300000, B, 7, 1, 0, 0);
    ev_put(w, HS_TRACE_WIRE_DONE, 0, 300010, 300010, 0, 0, 2, 0, get);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
}

static void test_wire_rndv_crossing(void **s)
{
    (void)s;
    hs_replay_params p;
    hs_replay_params_default(&p);
    const uint64_t B = 1 << 20;
    const hs_time c = L(p.ctrl_bytes), D = 3000 * HS_PS_PER_NS;
    for (int queues = 8; queues >= 1; queues -= 7) {
        xchg_trace();
        hs_replay_params_default(&p);
        p.trace = dir;
        p.topo = TOPO;
        p.ppn = 1;
        p.wire = 1;
        p.compute_scale = 1;   /* keep the recorded 3 us between rank 1's posts */
        p.net.nic_queues = (unsigned)queues;
        hs_replay_result r;
        hs_error e;
        int rc = hs_replay_run(&p, &r, &e);
        if (rc)
            fail_msg("%s", hs_error_str(&e, rc));
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(r.status, 0);
        assert_int_equal(r.messages, 8);
        print_message("nic queues %d: rank 0 %.3f us, rank 1 %.3f us (L(B) %.3f, c %.3f)\n",
                      queues, r.rank_time[0] / 1e6, r.rank_time[1] / 1e6, L(B) / 1e6, c / 1e6);
        if (queues > 1) {
            assert_true(r.rank_time[0] >= D + 2 * c + L(B));
            assert_true(r.rank_time[0] <= D + 3 * c + L(B));
        } else {
            assert_true(r.rank_time[0] >= 2 * L(B));
        }
        hs_replay_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_pingpong),
        cmocka_unit_test(test_wire_self_copy),
        cmocka_unit_test(test_wire_reduction),
        cmocka_unit_test(test_wire_rendezvous),
        cmocka_unit_test(test_wire_rndv_crossing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
