/* Unit tests for wire files (hopscope record --wire): the writer and reader
 * of wire-NNNNNN.hst, the mapping of worker addresses to world ranks and of
 * hosts to the intra-node flag, what the reader refuses, and the summaries
 * of `trace stats --wire` (pairs, attribution to the MPI call in progress,
 * the algorithm of collectives) on synthetic jobs of known traffic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/trace.h"
#include "../../libtrace/format.h"
#include "test_trace_util.h"

/* nranks ranks, rank r on host "h(r % nhosts)". */
static void write_manifest(const char *dir, uint32_t nranks, uint32_t nhosts)
{
    test_manifest t;
    test_manifest_init(&t, nranks, nhosts, "h", 100);
    test_manifest_write(&t, dir);
}

static void put(hs_trace_writer *w, const hs_trace_event *ev)
{
    hs_error e;
    int rc = hs_trace_writer_event(w, ev, &e);
    if (rc)
        fail_msg("writer: %s", e.msg);
}

static hs_trace_event wop(int op, int64_t t, uint64_t bytes, uint64_t addr, uint64_t id,
                          uint32_t flags)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WIRE_OP);
    ev.t_start = t;
    ev.t_end = t + 10;
    ev.tag2 = op;
    ev.bytes = bytes;
    ev.req = id;
    ev.aux = addr;
    ev.flags = flags;
    return ev;
}

static hs_trace_event worker(int64_t t, uint64_t uuid)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WIRE_WORKER);
    ev.t_start = ev.t_end = t;
    ev.aux = uuid;
    ev.bytes = 215;
    return ev;
}

/* A run of progress calls from t0 to t1; inside: clock ticks (ns here). */
static hs_trace_event prog(int64_t t0, int64_t t1, uint64_t calls, uint64_t useful,
                           uint64_t inside)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WIRE_PROGRESS);
    ev.t_start = t0;
    ev.t_end = t1;
    ev.bytes = calls;
    ev.bytes2 = inside;
    ev.aux = useful;
    return ev;
}

static uint64_t uuid_of(uint32_t r)
{
    return 0x1000 + r;
}

/* ---- mapping -------------------------------------------------------------- */

/* 3 ranks on hosts h0, h1, h0: rank 0 talks to 1 (other host) and 2 (same
 * host) and to an address no rank published. */
static void test_wire_mapping(void **state)
{
    (void)state;
    char *dir = test_tmpdir("wire");
    write_manifest(dir, 3, 2);
    hs_error e;
    for (uint32_t r = 0; r < 3; r++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open_wire(&w, dir, r, 3, &e), 0);
        hs_trace_event ev = worker(-1000, uuid_of(r));
        put(w, &ev);
        if (r == 0) {
            hs_trace_event_init(&ev, HS_TRACE_WIRE_EP);
            ev.t_start = 0;
            ev.t_end = 5;
            ev.aux = uuid_of(1);
            put(w, &ev);
            ev = wop(HS_TRACE_WOP_TAG_SEND, 100, 777, uuid_of(1), 1, 0);
            put(w, &ev);
            ev = wop(HS_TRACE_WOP_PUT, 200, 4096, uuid_of(2), 2, HS_TRACE_F_WIRE_NBI);
            put(w, &ev);
            ev = wop(HS_TRACE_WOP_TAG_SEND, 300, 5, 0xdead, 3, HS_TRACE_F_WIRE_IMM);
            put(w, &ev);
            ev = wop(HS_TRACE_WOP_TAG_RECV, 400, 64, 0, 4, HS_TRACE_F_WIRE_IN);
            put(w, &ev);
            hs_trace_event_init(&ev, HS_TRACE_WIRE_DONE);
            ev.t_start = ev.t_end = 500;
            ev.req = 1;
            put(w, &ev);
        }
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
    hs_trace *t;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    assert_true(hs_trace_has_wire(t));
    hs_trace_cursor *c;
    assert_int_equal(hs_trace_wire_open(t, 0, &c, &e), 0);
    assert_int_equal(hs_trace_wire_rank_of(t, uuid_of(2)), 2);
    assert_int_equal(hs_trace_wire_rank_of(t, 0xdead), -1);
    hs_trace_event ev;
    int32_t peers[8];
    uint32_t flags[8], kinds[8];
    uint64_t bytes[8];
    int n = 0;
    while (hs_trace_next(c, &ev, &e) == 1 && n < 8) {
        peers[n] = ev.peer;
        flags[n] = ev.flags;
        kinds[n] = ev.kind;
        bytes[n++] = ev.bytes;
    }
    hs_trace_cursor_close(c);
    assert_int_equal(n, 7);
    assert_int_equal(kinds[0], HS_TRACE_WIRE_WORKER);
    assert_int_equal(kinds[1], HS_TRACE_WIRE_EP);
    assert_int_equal(peers[1], 1);
    assert_int_equal(flags[1], 0);                          /* h0 -> h1 */
    assert_int_equal(peers[2], 1);
    assert_int_equal(bytes[2], 777);
    assert_int_equal(peers[3], 2);
    assert_int_equal(flags[3], HS_TRACE_F_WIRE_NBI | HS_TRACE_F_WIRE_INTRA);  /* h0 -> h0 */
    assert_int_equal(peers[4], HS_TRACE_RANK_NONE);         /* nobody's address */
    assert_int_equal(peers[5], HS_TRACE_RANK_NONE);         /* a receive */
    assert_int_equal(kinds[6], HS_TRACE_WIRE_DONE);
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
}

/* ---- refusals ---------------------------------------------------------------- */

static int read_error(const char *dir, char *msg, size_t n)
{
    hs_error e;
    hs_trace *t;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    hs_trace_cursor *c;
    int rc = hs_trace_wire_open(t, 0, &c, &e);
    if (rc == 0) {
        hs_trace_event ev;
        while ((rc = hs_trace_next(c, &ev, &e)) == 1)
            ;
        hs_trace_cursor_close(c);
    }
    if (rc < 0)
        snprintf(msg, n, "%s", e.msg);
    hs_trace_close(t);
    return rc < 0;
}

/* ---- operations stored with their completion ------------------------------ */

static hs_trace_event wdone(int64_t t, uint64_t id, uint32_t flags, uint64_t bytes, uint64_t stag,
                            uint16_t thread)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WIRE_DONE);
    ev.t_start = ev.t_end = t;
    ev.req = id;
    ev.flags = flags;
    ev.bytes = bytes;
    ev.bytes2 = stag;
    ev.thread = thread;
    return ev;
}

/* Rank 0's wire events of the merge test, in the order a writer sees them. */
static size_t merge_events(hs_trace_event *e)
{
    size_t n = 0;
    e[n++] = worker(-1000, uuid_of(0));
    /* completed later, after other operations of the thread started */
    e[n++] = wop(HS_TRACE_WOP_TAG_SEND, 100, 8192, uuid_of(1), 1, 0);
    e[n++] = wop(HS_TRACE_WOP_TAG_RECV, 200, 64, 0, 2, HS_TRACE_F_WIRE_IN);
    e[n] = wop(HS_TRACE_WOP_PUT, 250, 16, uuid_of(1), 3, HS_TRACE_F_WIRE_IMM);
    e[n++].t_end = 250;
    /* the send's completion reported inside the receive's posting call: the
     * receive's time, written after it (the reader keeps that order) */
    e[n] = wop(HS_TRACE_WOP_TAG_RECV, 300, 64, 0, 4, HS_TRACE_F_WIRE_IN);
    e[n++].t_end = 300;
    e[n++] = wdone(300, 1, HS_TRACE_F_WIRE_RNDV | HS_TRACE_F_WIRE_RGET, 0, 0, 0);
    e[n++] = prog(310, 400, 5, 2, 60);
    e[n++] = wdone(400, 2, 0, 40, 0x77, 0);
    /* another thread: its events interleave by start time */
    e[n++] = wop(HS_TRACE_WOP_TAG_SEND, 150, 3, uuid_of(1), 5, 0);
    e[n - 1].thread = 1;
    e[n++] = wdone(450, 5, HS_TRACE_F_ERROR, 0, 0, 1);
    /* completed on another thread than the one that posted it: never merged */
    e[n++] = wdone(460, 4, HS_TRACE_F_CANCELLED, 0, 0, 1);
    e[n++] = wop(HS_TRACE_WOP_GET, 500, 32, uuid_of(1), 6, HS_TRACE_F_WIRE_IN);
    e[n++] = wdone(520, 6, 0, 0, 0, 0);
    return n;
}

static void write_merge_job(const char *dir, int merge)
{
    write_manifest(dir, 2, 1);
    hs_error e;
    hs_trace_event ev[32];
    size_t n = merge_events(ev);
    for (uint32_t r = 0; r < 2; r++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open(&w, dir, r, 2, &e), 0);   /* no MPI events */
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
        assert_int_equal(hs_trace_writer_open_wire(&w, dir, r, 2, &e), 0);
        hs__writer_merge_wire(w, merge);
        if (r == 0) {
            for (size_t i = 0; i < n; i++)
                put(w, &ev[i]);
        } else {
            hs_trace_event x = worker(-1000, uuid_of(1));
            put(w, &x);
        }
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
}

/* A wire file with operations stored with their completion reads as the
 * same events, in the same order, as one with a wire_done per completion
 * (docs/formats.md "Wire files"); the merged file holds fewer records. */
static void test_wire_opdone(void **state)
{
    (void)state;
    char *dir[2] = { test_tmpdir("wire_sep"), test_tmpdir("wire_merged") };
    hs_trace_event got[2][32];
    size_t ngot[2] = { 0, 0 };
    uint64_t records[2];
    for (int m = 0; m < 2; m++) {
        write_merge_job(dir[m], m);
        hs_trace *t;
        hs_error e;
        assert_int_equal(hs_trace_open(dir[m], &t, &e), 0);
        hs_trace_cursor *c;
        assert_int_equal(hs_trace_wire_open(t, 0, &c, &e), 0);
        hs_trace_rank_info info;
        hs_trace_cursor_info(c, &info);
        records[m] = info.events;
        int rc;
        hs_trace_event ev;
        while ((rc = hs_trace_next(c, &ev, &e)) == 1) {
            assert_true(ngot[m] < 32);
            got[m][ngot[m]++] = ev;
        }
        assert_int_equal(rc, 0);
        hs_trace_cursor_close(c);
        hs_trace_close(t);
    }
    /* four operations merged: on thread 0 the send (completed at 300), the
     * receive (400) and the get (520), thread 1's send (450); the receive
     * posted on thread 0 and completed on thread 1 keeps its wire_done */
    assert_int_equal(records[0], 13);
    assert_int_equal(records[1], 13 - 4);
    assert_int_equal(ngot[0], 13);
    assert_int_equal(ngot[1], 13);
    static const int kinds[] = { HS_TRACE_WIRE_WORKER, HS_TRACE_WIRE_OP, HS_TRACE_WIRE_OP,
                                 HS_TRACE_WIRE_OP, HS_TRACE_WIRE_OP, HS_TRACE_WIRE_OP,
                                 HS_TRACE_WIRE_DONE, HS_TRACE_WIRE_PROGRESS, HS_TRACE_WIRE_DONE,
                                 HS_TRACE_WIRE_DONE, HS_TRACE_WIRE_DONE, HS_TRACE_WIRE_OP,
                                 HS_TRACE_WIRE_DONE };
    static const int64_t starts[] = { -1000, 100, 150, 200, 250, 300, 300, 310, 400, 450, 460,
                                      500, 520 };
    for (size_t i = 0; i < 13; i++) {
        const hs_trace_event *a = &got[0][i], *b = &got[1][i];
        assert_int_equal(a->kind, kinds[i]);
        assert_int_equal(a->t_start, starts[i]);
        assert_int_equal(b->kind, a->kind);
        assert_int_equal(b->thread, a->thread);
        assert_int_equal(b->flags, a->flags);
        assert_true(b->t_start == a->t_start && b->t_end == a->t_end);
        assert_true(b->bytes == a->bytes && b->bytes2 == a->bytes2);
        assert_true(b->req == a->req && b->aux == a->aux);
        assert_int_equal(b->peer, a->peer);
        assert_int_equal(b->tag2, a->tag2);
    }
    /* the receive's completion: its length and sender tag */
    assert_true(got[1][8].req == 2 && got[1][8].bytes == 40 && got[1][8].bytes2 == 0x77);
    assert_int_equal(got[1][6].flags, HS_TRACE_F_WIRE_RNDV | HS_TRACE_F_WIRE_RGET);
    assert_int_equal(got[1][9].thread, 1);
    /* trace stats --wire counts the same */
    hs_trace_wire_stats *ws[2];
    for (int m = 0; m < 2; m++) {
        hs_trace *t;
        hs_error e;
        assert_int_equal(hs_trace_open(dir[m], &t, &e), 0);
        int rc = hs_trace_wire_stats_compute(t, &ws[m], &e);
        if (rc)
            fail_msg("%s", e.msg);
        hs_trace_close(t);
    }
    assert_int_equal(ws[0]->completions, 5);
    assert_int_equal(ws[1]->completions, 5);
    assert_int_equal(ws[0]->rndv_ops, ws[1]->rndv_ops);
    assert_int_equal(ws[0]->rndv_get, ws[1]->rndv_get);
    assert_int_equal(ws[0]->with_request, ws[1]->with_request);
    for (int m = 0; m < 2; m++)
        hs_trace_wire_stats_free(ws[m]);
    for (int m = 0; m < 2; m++) {
        rm_rf(dir[m]);
        free(dir[m]);
    }
}

static void test_wire_rejects(void **state)
{
    (void)state;
    char *dir = test_tmpdir("wire");
    write_manifest(dir, 1, 1);
    hs_error e;
    hs_trace_writer *w;
    /* MPI kinds in a wire file and wire kinds in a rank file */
    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 0, 1, &e), 0);
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_BARRIER);
    ev.comm = HS_TRACE_COMM_WORLD;
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "wire file"));
    /* what the writer lets through, the reader refuses */
    ev = wop(99, 10, 1, 0, 1, 0);
    put(w, &ev);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    char msg[512];
    assert_true(read_error(dir, msg, sizeof msg));
    assert_non_null(strstr(msg, "unknown wire operation"));

    assert_int_equal(hs_trace_writer_open_wire(&w, dir, 0, 1, &e), 0);
    ev = wop(HS_TRACE_WOP_PUT, 10, 1, 0, 1, HS_TRACE_F_WIRE_INTRA);
    put(w, &ev);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    assert_true(read_error(dir, msg, sizeof msg));
    assert_non_null(strstr(msg, "intra-node flag"));

    assert_int_equal(hs_trace_writer_open(&w, dir, 0, 1, &e), 0);
    ev = wop(HS_TRACE_WOP_PUT, 10, 1, 0, 1, 0);
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "rank file"));
    assert_int_equal(hs_trace_writer_close(w, &e), 0);

    /* a trace without wire files */
    hs_trace *t;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/wire-*.hst", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    assert_false(hs_trace_has_wire(t));
    hs_trace_wire_stats *s;
    assert_int_equal(hs_trace_wire_stats_compute(t, &s, &e), HS_ENOENT);
    assert_non_null(strstr(e.msg, "--wire"));
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
    assert_string_equal(hs_trace_wop_name(HS_TRACE_WOP_GET), "get");
    assert_null(hs_trace_wop_name(0));
    assert_null(hs_trace_wop_name(HS_TRACE_WOP_MAX + 1));
}

/* ---- stats ------------------------------------------------------------------- */

enum { P = 4, N = 1 << 20 };

/* One blocking collective per rank at [t, t + 1000] and the transfers the
 * rank initiates inside it, to comm ranks dst[0..n) (world here). */
static void coll(hs_trace_writer *mw, hs_trace_writer *ww, uint32_t r, int kind, int64_t t,
                 uint64_t bytes, const int *dst, const uint64_t *sz, int n, uint64_t *id)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.t_start = t;
    ev.t_end = t + 1000;
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.bytes = ev.bytes2 = bytes;
    if (kind == HS_TRACE_BCAST) {
        ev.peer = 0;
        ev.bytes = r == 0 ? bytes : 0;
    }
    put(mw, &ev);
    for (int i = 0; i < n; i++) {
        hs_trace_event w = wop(HS_TRACE_WOP_TAG_SEND, t + 10 + 20 * i, sz[i],
                               uuid_of((uint32_t)dst[i]), ++*id, 0);
        put(ww, &w);
    }
}

static void test_wire_stats(void **state)
{
    (void)state;
    char *dir = test_tmpdir("wire");
    write_manifest(dir, P, 2);
    hs_error e;
    for (uint32_t r = 0; r < P; r++) {
        hs_trace_writer *mw, *ww;
        assert_int_equal(hs_trace_writer_open(&mw, dir, r, P, &e), 0);
        assert_int_equal(hs_trace_writer_open_wire(&ww, dir, r, P, &e), 0);
        hs_trace_event ev = worker(-10, uuid_of(r));
        put(ww, &ev);
        uint64_t id = 0;
        /* rank 0 sends 1000 B to rank 1: one tag send inside MPI_Send */
        if (r == 0) {
            hs_trace_event_init(&ev, HS_TRACE_SEND);
            ev.t_start = 100;
            ev.t_end = 200;
            ev.comm = HS_TRACE_COMM_WORLD;
            ev.peer = 1;
            ev.tag = 5;
            ev.bytes = 1000;
            put(mw, &ev);
            ev = wop(HS_TRACE_WOP_TAG_SEND, 150, 1000, uuid_of(1), ++id, HS_TRACE_F_WIRE_IMM);
            put(ww, &ev);
            /* 5 ucp_worker_progress calls inside MPI_Send, 40 ns inside them */
            ev = prog(150, 200, 5, 1, 40);
            put(ww, &ev);
            /* 3 outside any call, claiming 50 ns in a 30 ns span: read as 30 */
            ev = prog(260, 290, 3, 0, 50);
            put(ww, &ev);
            /* and 8 bytes outside any MPI call */
            ev = wop(HS_TRACE_WOP_TAG_SEND, 300, 8, uuid_of(1), ++id, HS_TRACE_F_WIRE_IMM);
            put(ww, &ev);
        } else if (r == 1) {
            hs_trace_event_init(&ev, HS_TRACE_RECV);
            ev.t_start = 100;
            ev.t_end = 250;
            ev.comm = HS_TRACE_COMM_WORLD;
            ev.peer = ev.peer2 = 0;
            ev.tag = ev.tag2 = 5;
            ev.bytes = ev.bytes2 = 1000;
            put(mw, &ev);
        }
        /* ring allreduce: 2 (P - 1) sends of N / P to the successor */
        int d[2 * P];
        uint64_t s[2 * P];
        for (int i = 0; i < 2 * (P - 1); i++) {
            d[i] = (int)((r + 1) % P);
            s[i] = N / P;
        }
        coll(mw, ww, r, HS_TRACE_ALLREDUCE, 10000, N, d, s, 2 * (P - 1), &id);
        /* pairwise alltoall: to r + 1, r + 2, r + 3 */
        for (int i = 0; i < P - 1; i++) {
            d[i] = (int)((r + 1 + (uint32_t)i) % P);
            s[i] = 4096;
        }
        coll(mw, ww, r, HS_TRACE_ALLTOALL, 20000, 4096 * P, d, s, P - 1, &id);
        /* binomial bcast from 0: 0 -> 2, 0 -> 1, 2 -> 3 */
        int n = 0;
        if (r == 0) {
            d[n] = 2, s[n++] = 64;
            d[n] = 1, s[n++] = 64;
        } else if (r == 2) {
            d[n] = 3, s[n++] = 64;
        }
        coll(mw, ww, r, HS_TRACE_BCAST, 30000, 64, d, s, n, &id);
        assert_int_equal(hs_trace_writer_close(mw, &e), 0);
        assert_int_equal(hs_trace_writer_close(ww, &e), 0);
    }
    hs_trace *t;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    hs_trace_wire_stats *s;
    int rc = hs_trace_wire_stats_compute(t, &s, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(s->p2p_bytes, 1000);
    assert_int_equal(s->outside_bytes, 8);
    assert_int_equal(s->progress_calls, 8);
    assert_int_equal(s->progress_useful, 1);
    assert_int_equal(s->progress_ns, 70);
    assert_int_equal(s->progress_ns_in[HS_TRACE_WIRE_IN_P2P], 40);
    assert_int_equal(s->progress_ns_in[HS_TRACE_WIRE_IN_OUTSIDE], 30);
    assert_int_equal(s->progress_ns_in[HS_TRACE_WIRE_IN_COLL], 0);
    assert_int_equal(s->coll_bytes, (uint64_t)P * 2 * (P - 1) * (N / P) + P * (P - 1) * 4096 + 3 * 64);
    assert_int_equal(s->ops[HS_TRACE_WOP_TAG_SEND], 2 + P * 2 * (P - 1) + P * (P - 1) + 3);
    /* hosts: rank r on h(r % 2): 0 -> 1 crosses, 0 -> 2 does not */
    const hs_trace_wire_pair *p01 = NULL, *p02 = NULL;
    for (size_t i = 0; i < s->npairs; i++) {
        if (s->pairs[i].src == 0 && s->pairs[i].dst == 1)
            p01 = &s->pairs[i];
        if (s->pairs[i].src == 0 && s->pairs[i].dst == 2)
            p02 = &s->pairs[i];
    }
    assert_non_null(p01);
    assert_non_null(p02);
    assert_int_equal(p01->mpi_messages, 1);
    assert_int_equal(p01->mpi_bytes, 1000);
    /* 1000 + 8 + the ring's 6 x N/4 + the alltoall's 4096 + the bcast's 64 */
    assert_int_equal(p01->wire_bytes, 1008 + 6 * (N / P) + 4096 + 64);
    assert_false(p01->intra);
    assert_true(p02->intra);
    assert_int_equal(s->ncolls, 3);
    /* sorted by kind: bcast (65), alltoall (72), allreduce (76) */
    assert_int_equal(s->colls[0].kind, HS_TRACE_BCAST);
    assert_string_equal(s->colls[0].algorithm, "binomial tree");
    assert_int_equal(s->colls[0].steps, 2);
    assert_int_equal(s->colls[0].wire_bytes, 3 * 64);
    assert_int_equal(s->colls[1].kind, HS_TRACE_ALLTOALL);
    assert_string_equal(s->colls[1].algorithm, "pairwise exchange");
    assert_int_equal(s->colls[1].steps, P - 1);
    assert_int_equal(s->colls[2].kind, HS_TRACE_ALLREDUCE);
    assert_string_equal(s->colls[2].algorithm, "ring");
    assert_int_equal(s->colls[2].steps, 2 * (P - 1));
    assert_int_equal(s->colls[2].ranks, P);
    assert_int_equal(s->colls[2].bytes, N);
    assert_int_equal(s->colls[2].calls, 1);
    assert_int_equal(s->colls[2].mpi_bytes, (uint64_t)P * N);
    assert_int_equal(s->colls[2].wire_bytes, (uint64_t)P * 2 * (P - 1) * (N / P));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hs_trace_wire_stats_print(s, f);
    fclose(f);
    assert_non_null(strstr(buf, "allreduce 1 MiB on 4 ranks: ring, 6 steps"));
    assert_non_null(strstr(buf, "ucp_worker_progress: 8 calls, 1 made progress, 0.000000 s "
                                "inside (point-to-point calls 0.000000 s"));
    free(buf);
    hs_trace_wire_stats_free(s);
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_mapping),
        cmocka_unit_test(test_wire_rejects),
        cmocka_unit_test(test_wire_opdone),
        cmocka_unit_test(test_wire_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
