/* Unit tests for the trace format: varints, manifest, writer -> reader
 * roundtrip of every event kind (and through OTF2), stats and check on jobs with known
 * communication, truncation, damage, and a fuzzer that mutates decoded
 * payloads and re-seals them (fixing checksums) so the decoder itself is
 * exercised, not only the checksum. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hopscope/trace.h"
#include "../../libtrace/format.h"
#include "test_trace_util.h"

/* ---- helpers ------------------------------------------------------------ */

static void write_manifest(const char *dir, uint32_t nranks, uint32_t nnodes)
{
    test_manifest t;
    test_manifest_init(&t, nranks, nnodes, "node", 1000);
    t.m.command = "./app --flag 'x y'\twith tab\nand newline \\ backslash";
    t.m.sample_rate = 0.25;
    t.m.sample_seed = 42;
    char *set[] = { "HOPSCOPE_SAMPLE_RATE=0.25" };
    t.m.settings = set;
    t.m.nsettings = 1;
    test_manifest_write(&t, dir);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const void *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
}

/* ---- varints ------------------------------------------------------------ */

static void test_varint(void **state)
{
    (void)state;
    static const uint64_t vals[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
                                     (1ull << 63) - 1, 1ull << 63, UINT64_MAX };
    uint8_t buf[16];
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint8_t *e = hs__put_u(buf, vals[i]);
        const uint8_t *p = buf;
        uint64_t v = 0;
        assert_int_equal(hs__get_u(&p, e, &v), 0);
        assert_true(p == e);
        assert_true(v == vals[i]);
        /* Every prefix is an error, never a read past the end. */
        for (const uint8_t *end = buf; end < e; end++) {
            p = buf;
            assert_int_equal(hs__get_u(&p, end, &v), -1);
        }
        int64_t s = (int64_t)vals[i];
        e = hs__put_s(buf, s);
        p = buf;
        assert_int_equal(hs__get_u(&p, e, &v), 0);
        assert_true(hs__unzz(v) == s);
    }
    /* 11 continuation bytes: rejected. */
    memset(buf, 0xff, sizeof buf);
    const uint8_t *p = buf;
    uint64_t v;
    assert_int_equal(hs__get_u(&p, buf + sizeof buf, &v), -1);
    /* The 10th byte may only carry one bit. */
    memset(buf, 0x80, 9);
    buf[9] = 0x02;
    p = buf;
    assert_int_equal(hs__get_u(&p, buf + 10, &v), -1);
}

/* ---- manifest ----------------------------------------------------------- */

static void test_manifest_roundtrip(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    write_manifest(dir, 5, 2);
    hs_trace_manifest m;
    hs_error e;
    assert_int_equal(hs_trace_manifest_read(dir, &m, &e), 0);
    assert_int_equal(m.nranks, 5);
    assert_int_equal(m.nnodes, 2);
    assert_string_equal(m.command, "./app --flag 'x y'\twith tab\nand newline \\ backslash");
    assert_string_equal(m.node_names[1], "node1");
    assert_int_equal(m.rank_node[3], 1);
    assert_int_equal(m.rank_pid[4], 1004);
    assert_string_equal(m.rank_host[2], "node0");
    assert_true(m.sample_rate == 0.25);
    assert_int_equal(m.sample_seed, 42);
    assert_int_equal(m.nsettings, 1);
    assert_string_equal(m.settings[0], "HOPSCOPE_SAMPLE_RATE=0.25");
    hs_trace_manifest_free(&m);
    rm_rf(dir);
    free(dir);
}

/* Each broken manifest must fail with a message naming the file (and the
 * line where there is one). */
static void test_manifest_errors(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    write_manifest(dir, 3, 1);
    char path[600];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    size_t len;
    char *good = slurp(path, &len);
    struct { const char *from, *to, *expect; } cases[] = {
        { "end\n", "", "without 'end'" },
        { "ranks 3", "ranks 0", "at least 1" },
        { "nodes 1", "nodes x", "line" },
        { "rank 1 0", "rank 2 0", "out of order" },
        { "mpi_abi none", "mpi_abo none", "unknown key 'mpi_abo'" },
        { "hopscope-trace 1", "hopscope-trace 9", "version 9" },
        { "hopscope-trace 1", "something else", "not a hopscope trace manifest" },
        { "sample_rate 0.25", "sample_rate 2", "sample_rate" },
        { "rank 0 0 1000 node0", "rank 0 5 1000 node0", "on node 5" },
        { "command ./app", "command \\q./app", "bad escape" },
        { "writer test\n", "", "missing 'writer'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *at = strstr(good, cases[i].from);
        assert_non_null(at);
        size_t pre = (size_t)(at - good), fl = strlen(cases[i].from), tl = strlen(cases[i].to);
        char *bad = malloc(len + tl + 1);
        memcpy(bad, good, pre);
        memcpy(bad + pre, cases[i].to, tl);
        memcpy(bad + pre + tl, at + fl, len - pre - fl);
        spit(path, bad, len - fl + tl);
        free(bad);
        hs_trace_manifest m;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_trace_manifest_read(dir, &m, &e);
        if (rc == 0 || !strstr(e.msg, cases[i].expect) || !strstr(e.msg, "manifest.txt"))
            fail_msg("case %zu: rc %d, message '%s'", i, rc, e.msg);
    }
    free(good);
    hs_trace_manifest m;
    hs_error e;
    unlink(path);
    assert_int_equal(hs_trace_manifest_read(dir, &m, &e), HS_ENOENT);
    rm_rf(dir);
    free(dir);
}

/* ---- a synthetic job ---------------------------------------------------- */

#define NR 3
#define COMM_X 0x1234567890abcdefull   /* a split of world: ranks 0 and 2 */
#define WIN_W  0x77ull

/* Fills evs with one event of every kind for rank r (lists included), in
 * time order from t0.  Creations only when first, frees (at the end) only
 * when last, so a sequence of repetitions is a valid stream.  Returns the
 * count.  List storage is static: valid until the next call. */
static size_t sample_events(uint32_t r, hs_trace_event *evs, int64_t t0, int first, int last)
{
    static hs_trace_compl compl[3];
    static hs_trace_start starts[2];
    static hs_trace_peer per[2][NR], nb[2][2];
    static int32_t members[2] = { 0, 2 }, grp[2] = { 1, 2 }, solo;
    size_t n = 0;
    int64_t t = t0;
    int kinds[HS_TRACE_KIND_MAX + 3], nk = 0;
    for (int k = 1; k <= HS_TRACE_KIND_MAX; k++) {
        if (!hs_trace_kind_name(k) || k == HS_TRACE_COMM_FREE || k == HS_TRACE_WIN_FREE)
            continue;
        if (hs_trace_kind_class(k) == HS_TRACE_CLASS_WIRE)
            continue;   /* wire files only: test_trace_wire.c */
        if (!first && (k == HS_TRACE_COMM_CREATE || k == HS_TRACE_WIN_CREATE))
            continue;
        kinds[nk++] = k;
    }
    if (last) {
        kinds[nk++] = HS_TRACE_COMM_FREE;
        kinds[nk++] = HS_TRACE_WIN_FREE;
    }
    for (int ki = 0; ki < nk; ki++) {
        int k = kinds[ki];
        hs_trace_event *ev = &evs[n++];
        hs_trace_event_init(ev, k);
        ev->t_start = t;
        ev->t_end = t + 100 + k;
        t += 1000 + 7 * k;
        ev->flags = (uint32_t)(k % 3 == 0 ? HS_TRACE_F_MONITORED : 0);
        const hs__kind_desc *d = &hs__kinds[k];
        if (d->fields & HS__F_COMM)
            ev->comm = HS_TRACE_COMM_WORLD;
        if (d->fields & HS__F_PEER)
            ev->peer = (int32_t)((r + 1) % NR);
        if (d->fields & HS__F_TAG)
            ev->tag = 10 + k;
        if (d->fields & HS__F_PEER2)
            ev->peer2 = k % 2 ? HS_TRACE_ANY_SOURCE : (int32_t)((r + NR - 1) % NR);
        if (d->fields & HS__F_TAG2)
            ev->tag2 = k % 2 ? HS_TRACE_ANY_TAG : 5;
        if (d->fields & HS__F_BYTES)
            ev->bytes = 1000u * (unsigned)k + r;
        if (d->fields & HS__F_BYTES2)
            ev->bytes2 = 77u * (unsigned)k;
        if (d->fields & HS__F_REQ)
            ev->req = 100 + (uint64_t)k;
        if (d->fields & HS__F_AUX)
            ev->aux = (uint64_t)k * 3;
        if (d->fields & HS__F_REPEAT)
            ev->repeat = (uint32_t)(k % 4 + 1);
        if (d->fields & HS__F_WIN)
            ev->win = WIN_W;
        if (k == HS_TRACE_COMM_CREATE || k == HS_TRACE_COMM_FREE)
            ev->comm = COMM_X + r % 2;   /* rank 1 gets a communicator of its own */
        if (k == HS_TRACE_COMM_CREATE) {
            ev->comm2 = HS_TRACE_COMM_WORLD;
            ev->tag = HS_TRACE_CTOR_SPLIT;
            ev->aux = 0;
            solo = (int32_t)r;
            ev->members = r % 2 ? &solo : members;
            ev->nmembers = r % 2 ? 1 : 2;
        }
        if (k == HS_TRACE_WIN_CREATE) {
            ev->tag = HS_TRACE_WCTOR_ALLOCATE;
            ev->aux = 0;
        }
        if (d->la == HS__L_COMPL) {
            compl[0] = (hs_trace_compl){ 100, HS_TRACE_C_STATUS, 1, 7, 64 };
            compl[1] = (hs_trace_compl){ 90, 0, HS_TRACE_RANK_NONE, HS_TRACE_TAG_NONE, 0 };
            compl[2] = (hs_trace_compl){ 1ull << 45, HS_TRACE_C_STATUS | HS_TRACE_C_CANCELLED,
                                         HS_TRACE_PROC_NULL, 3, 0 };
            ev->compl = compl;
            ev->ncompl = 3;
        }
        if (d->la == HS__L_STARTS) {
            starts[0] = (hs_trace_start){ 124, HS_TRACE_F_MONITORED };
            starts[1] = (hs_trace_start){ 125, 0 };
            ev->starts = starts;
            ev->nstarts = k == HS_TRACE_START ? 1 : 2;
        }
        if (d->la == HS__L_BYTES) {
            for (int s2 = 0; s2 < 2; s2++)
                for (uint32_t i = 0; i < NR; i++)
                    per[s2][i] = (hs_trace_peer){ (int32_t)i, (uint64_t)(k * 10 + s2 * 5) + i };
            ev->sendto = per[0];
            ev->nsendto = NR;
            ev->recvfrom = per[1];
            ev->nrecvfrom = k % 2 ? NR : 0;
        }
        if (d->la == HS__L_PEERBYTES) {
            nb[0][0] = (hs_trace_peer){ (int32_t)((r + 1) % NR), 8 };
            nb[0][1] = (hs_trace_peer){ HS_TRACE_PROC_NULL, 0 };
            nb[1][0] = (hs_trace_peer){ (int32_t)((r + 2) % NR), 16 };
            ev->sendto = nb[0];
            ev->nsendto = 2;
            ev->recvfrom = nb[1];
            ev->nrecvfrom = 1;
        }
        if (k == HS_TRACE_WIN_POST || k == HS_TRACE_WIN_START) {
            ev->members = grp;
            ev->nmembers = 2;
        }
    }
    return n;
}

/* The thread-1 event i of rank r: a send every 333 ns. */
static void thread1_event(uint32_t r, int i, hs_trace_event *ev)
{
    hs_trace_event_init(ev, HS_TRACE_ISEND);
    ev->thread = 1;
    ev->t_start = -5000 + (int64_t)(i / 40) * 1000000 + (i % 40) * 333;
    ev->t_end = ev->t_start + 50;
    ev->comm = HS_TRACE_COMM_WORLD;
    ev->peer = (int32_t)((r + 1) % NR);
    ev->tag = 99;
    ev->bytes = 8;
    ev->req = (1ull << 40) + (uint64_t)i;
}

static void assert_event_equal(const hs_trace_event *a, const hs_trace_event *b)
{
    if (a->kind != b->kind || a->comm2 != b->comm2)
        print_message("event %s (expected %s) comm2 %llx (expected %llx)\n",
                      hs_trace_kind_name(a->kind), hs_trace_kind_name(b->kind),
                      (unsigned long long)a->comm2, (unsigned long long)b->comm2);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->thread, b->thread);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->repeat, b->repeat);
    assert_true(a->t_start == b->t_start);
    assert_true(a->t_end == b->t_end);
    assert_true(a->comm == b->comm);
    assert_true(a->comm2 == b->comm2);
    assert_true(a->win == b->win);
    assert_int_equal(a->peer, b->peer);
    assert_int_equal(a->tag, b->tag);
    assert_int_equal(a->peer2, b->peer2);
    assert_int_equal(a->tag2, b->tag2);
    assert_true(a->bytes == b->bytes);
    assert_true(a->bytes2 == b->bytes2);
    assert_true(a->req == b->req);
    assert_true(a->aux == b->aux);
    assert_int_equal(a->ncompl, b->ncompl);
    for (uint32_t i = 0; i < a->ncompl; i++) {
        assert_true(a->compl[i].req == b->compl[i].req);
        assert_int_equal(a->compl[i].flags, b->compl[i].flags);
        assert_int_equal(a->compl[i].src, b->compl[i].src);
        assert_int_equal(a->compl[i].tag, b->compl[i].tag);
        assert_true(a->compl[i].bytes == b->compl[i].bytes);
    }
    assert_int_equal(a->nstarts, b->nstarts);
    for (uint32_t i = 0; i < a->nstarts; i++) {
        assert_true(a->starts[i].req == b->starts[i].req);
        assert_int_equal(a->starts[i].flags, b->starts[i].flags);
    }
    assert_int_equal(a->nsendto, b->nsendto);
    for (uint32_t i = 0; i < a->nsendto; i++) {
        assert_int_equal(a->sendto[i].rank, b->sendto[i].rank);
        assert_true(a->sendto[i].bytes == b->sendto[i].bytes);
    }
    assert_int_equal(a->nrecvfrom, b->nrecvfrom);
    for (uint32_t i = 0; i < a->nrecvfrom; i++) {
        assert_int_equal(a->recvfrom[i].rank, b->recvfrom[i].rank);
        assert_true(a->recvfrom[i].bytes == b->recvfrom[i].bytes);
    }
    assert_int_equal(a->nmembers, b->nmembers);
    if (a->nmembers)
        assert_memory_equal(a->members, b->members, a->nmembers * sizeof(int32_t));
    assert_int_equal(a->nremote, b->nremote);
    if (a->nremote)
        assert_memory_equal(a->remote, b->remote, a->nremote * sizeof(int32_t));
}

/* Writes rank files where each rank has `reps` repetitions of the sample on
 * thread 0 and 40 sends per repetition on thread 1, interleaved in time.
 * counts[r] receives the number of events of rank r. */
static void write_job(const char *dir, int reps, size_t *counts)
{
    write_manifest(dir, NR, 2);
    hs_error e;
    for (uint32_t r = 0; r < NR; r++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open(&w, dir, r, NR, &e), 0);
        size_t n = 0;
        for (int rep = 0; rep < reps; rep++) {
            hs_trace_event evs[HS_TRACE_KIND_MAX + 3];
            size_t k = sample_events(r, evs, -5000 + (int64_t)rep * 1000000, rep == 0,
                                     rep == reps - 1);
            for (size_t i = 0; i < k; i++, n++)
                if (hs_trace_writer_event(w, &evs[i], &e) != 0)
                    fail_msg("rank %u kind %s: %s", r, hs_trace_kind_name(evs[i].kind), e.msg);
            for (int i = 0; i < 40; i++, n++) {
                hs_trace_event ev;
                thread1_event(r, rep * 40 + i, &ev);
                assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
            }
        }
        counts[r] = n;
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
}

/* hs__encode writes point-to-point sends and one-request completions
 * whose varints are all one byte straight from their fields; the other
 * values take the general path.  Both must give the format's bytes: exact
 * bytes of a small Isend + Wait, then a mix of small and large values of
 * every field of these shapes decoded back. */
static void put_rec(uint8_t *raw, size_t *used, const hs__rec *r, const uint64_t *w, size_t nw)
{
    memcpy(raw + *used, r, sizeof *r);
    if (nw)
        memcpy(raw + *used + sizeof *r, w, nw * 8);
    *used += sizeof *r + nw * 8;
}

static void test_encode_fast_shapes(void **state)
{
    (void)state;
    static uint8_t raw[64 << 10];
    static uint8_t st[64 << 10], tm[64 << 10];
    size_t used = 0, off = 0, sl, tl;
    uint32_t n;
    uint64_t base;
    hs__rec r = { .kind = HS_TRACE_ISEND, .t0 = 100, .t1 = 100, .comm = 0, .peer = 1, .tag = 7,
                  .bytes = 8, .req = 1, .repeat = 1 };
    put_rec(raw, &used, &r, NULL, 0);
    hs__rec wt = { .kind = HS_TRACE_WAIT, .t0 = 110, .t1 = 110, .repeat = 1, .na = 1 };
    uint64_t c1[5] = { 1, 0, (uint64_t)(int64_t)HS_TRACE_RANK_NONE,
                       (uint64_t)(int64_t)HS_TRACE_TAG_NONE, 0 };
    put_rec(raw, &used, &wt, c1, 5);
    assert_int_equal(hs__encode(raw, used, &off, 0, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    const uint8_t want[] = { HS_TRACE_ISEND, 0, 1, 2, 14, 8, 2, HS_TRACE_WAIT, 0, 0, 1, 0, 0 };
    assert_int_equal(n, 2);
    assert_int_equal(sl, sizeof want);
    assert_memory_equal(st, want, sizeof want);

    /* Every field of both shapes once beyond one byte, amid small ones. */
    used = 0;
    int32_t rank = 3;
    enum { N = 40 };
    hs__rec in[N];
    uint64_t win[N][5];
    for (int i = 0; i < N; i++) {
        int big = i / 2 % 10;   /* which field is large; >= 7: none */
        if (i % 2 == 0) {
            in[i] = (hs__rec){ .kind = i % 4 ? HS_TRACE_ISEND : HS_TRACE_SEND, .repeat = 1,
                               .t0 = 1000u + 10u * (unsigned)i, .t1 = 1005u + 10u * (unsigned)i,
                               .comm = big == 0 ? 300 : (i % 8 == 2 ? HS__NOIDX : 2),
                               .peer = big == 1 ? 1000 : (i % 6 == 4 ? HS_TRACE_PROC_NULL : 4),
                               .tag = big == 2 ? -5000 : 9, .bytes = big == 3 ? 1u << 20 : 64,
                               .req = i % 4 ? (big == 4 ? 1u << 30 : 100u + (unsigned)i) : 0,
                               .flags = big == 5 ? HS_TRACE_F_MONITORED : 0 };
            put_rec(raw, &used, &in[i], NULL, 0);
        } else {
            in[i] = (hs__rec){ .kind = HS_TRACE_WAIT, .t0 = 1000u + 10u * (unsigned)i,
                               .t1 = 1000u + 10u * (unsigned)i, .na = 1,
                               .repeat = big == 6 ? 500 : 1 + (uint32_t)(i % 3) };
            uint64_t *w = win[i];
            w[0] = big == 4 ? 7 : 100u + (unsigned)i - 1;
            w[1] = i % 10 == 7 ? HS_TRACE_C_STATUS : (i % 10 == 9 ? HS_TRACE_C_ERROR : 0);
            w[2] = w[1] & HS_TRACE_C_STATUS ? (uint64_t)(int64_t)(big == 1 ? 900 : 2)
                                             : (uint64_t)(int64_t)HS_TRACE_RANK_NONE;
            w[3] = w[1] & HS_TRACE_C_STATUS ? 11 : (uint64_t)(int64_t)HS_TRACE_TAG_NONE;
            w[4] = w[1] & HS_TRACE_C_STATUS ? 4096 : 0;
            put_rec(raw, &used, &in[i], w, 5);
        }
    }
    off = 0;
    assert_int_equal(hs__encode(raw, used, &off, rank, 0, st, sizeof st, &sl, tm, sizeof tm, &tl,
                                &n, &base), 0);
    assert_int_equal(n, N);
    assert_int_equal(off, used);
    hs__codec c = { .rank = rank, .prev_t = base };
    size_t sp = 0, tp = 0, wcap = 0;
    uint64_t *words = NULL;
    const char *why = NULL;
    for (int i = 0; i < N; i++) {
        hs__rec o;
        assert_int_equal(hs__decode_one(&c, st, sl, &sp, tm, tl, &tp, &o, &words, &wcap, &why), 0);
        assert_int_equal(o.kind, in[i].kind);
        assert_int_equal(o.flags, in[i].flags);
        assert_int_equal(o.t0, in[i].t0);
        assert_int_equal(o.t1, in[i].t1);
        if (in[i].kind == HS_TRACE_WAIT) {
            assert_int_equal(o.repeat, in[i].repeat);
            assert_int_equal(o.na, 1);
            int status = (win[i][1] & HS_TRACE_C_STATUS) != 0;
            for (int k = 0; k < (status ? 5 : 2); k++)
                assert_int_equal(words[k], win[i][k]);
        } else {
            assert_int_equal(o.comm, in[i].comm);
            assert_int_equal(o.peer, in[i].peer);
            assert_int_equal(o.tag, in[i].tag);
            assert_int_equal(o.bytes, in[i].bytes);
            if (in[i].kind == HS_TRACE_ISEND)
                assert_int_equal(o.req, in[i].req);
        }
    }
    assert_int_equal(sp, sl);
    assert_int_equal(tp, tl);
    free(words);
}

/* The wire kinds' own path in hs__encode: exact bytes of a small
 * wire_op + wire_done pair, then every length from 1 to 10 bytes in every
 * field of both and in both times, decoded back. */
static void test_encode_wire_kinds(void **state)
{
    (void)state;
    static uint8_t raw[64 << 10];
    static uint8_t st[64 << 10], tm[64 << 10];
    size_t used = 0, off = 0, sl, tl;
    uint32_t n;
    uint64_t base;
    hs__rec a = { .kind = HS_TRACE_WIRE_OP, .t0 = 100, .t1 = 100, .tag2 = HS_TRACE_WOP_TAG_SEND,
                  .bytes = 8, .bytes2 = 7, .req = 1, .aux = 0x80, .repeat = 1 };
    put_rec(raw, &used, &a, NULL, 0);
    hs__rec b = { .kind = HS_TRACE_WIRE_DONE, .t0 = 300, .t1 = 300, .req = 1,
                  .flags = HS_TRACE_F_ERROR, .repeat = 1 };
    put_rec(raw, &used, &b, NULL, 0);
    assert_int_equal(hs__encode(raw, used, &off, 0, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    /* kind, flags, op (zigzag), bytes, tag, req delta (zigzag), peer hash
     * 0x80 = 0x80 0x01; kind, flags, bytes, tag, req delta */
    const uint8_t want[] = { HS_TRACE_WIRE_OP, 0, (uint8_t)(2 * HS_TRACE_WOP_TAG_SEND), 8, 7, 2,
                             0x80, 0x01, HS_TRACE_WIRE_DONE, (uint8_t)HS_TRACE_F_ERROR, 0, 0, 0 };
    const uint8_t want_t[] = { 0, 0, 0x90, 0x03, 0 };   /* +200 ticks: zigzag 400 */
    assert_true(HS_TRACE_F_ERROR < 0x80 && 2 * HS_TRACE_WOP_TAG_SEND < 0x80);
    assert_int_equal(n, 2);
    assert_int_equal(base, 100);
    assert_int_equal(sl, sizeof want);
    assert_memory_equal(st, want, sizeof want);
    assert_int_equal(tl, sizeof want_t);
    assert_memory_equal(tm, want_t, sizeof want_t);

    enum { N = 2 * 66 };
    hs__rec in[N];
    used = 0;
    uint64_t t = 5;
    for (int i = 0; i < N; i++) {
        int k = i / 2;   /* bit length 0..64 of this pair's large values */
        uint64_t v = k == 0 ? 0 : k >= 64 ? UINT64_MAX : ((1ull << (k - 1)) | (k > 1 ? 1 : 0));
        if (k == 65)
            v = 1ull << 63;
        uint64_t w = v ^ (v >> 1);   /* another value of the same length */
        t += (uint64_t)(k % 20) << (k % 40);
        if (i % 2 == 0)
            in[i] = (hs__rec){ .kind = HS_TRACE_WIRE_OP, .t0 = t, .t1 = t + (v >> 8), .repeat = 1,
                               .tag2 = (int32_t)(k % 12), .bytes = v, .bytes2 = w,
                               .req = v ^ 0x5555, .aux = ~v, .flags = (uint32_t)k % 3 };
        else
            in[i] = (hs__rec){ .kind = HS_TRACE_WIRE_DONE, .t0 = t, .t1 = t, .repeat = 1,
                               .bytes = w, .bytes2 = v, .req = in[i - 1].req,
                               .flags = k % 2 ? HS_TRACE_F_CANCELLED : 0 };
        put_rec(raw, &used, &in[i], NULL, 0);
    }
    off = 0;
    assert_int_equal(hs__encode(raw, used, &off, 2, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    assert_int_equal(n, N);
    assert_int_equal(off, used);
    hs__codec c = { .rank = 2, .prev_t = base };
    size_t sp = 0, tp = 0, wcap = 0;
    uint64_t *words = NULL;
    const char *why = NULL;
    for (int i = 0; i < N; i++) {
        hs__rec o;
        assert_int_equal(hs__decode_one(&c, st, sl, &sp, tm, tl, &tp, &o, &words, &wcap, &why), 0);
        assert_int_equal(o.kind, in[i].kind);
        assert_int_equal(o.flags, in[i].flags);
        assert_true(o.t0 == in[i].t0);
        assert_true(o.t1 == in[i].t1);
        assert_true(o.bytes == in[i].bytes);
        assert_true(o.bytes2 == in[i].bytes2);
        assert_true(o.req == in[i].req);
        if (in[i].kind == HS_TRACE_WIRE_OP) {
            assert_int_equal(o.tag2, in[i].tag2);
            assert_true(o.aux == in[i].aux);
        }
    }
    assert_int_equal(sp, sl);
    assert_int_equal(tp, tl);
    free(words);
}

/* An operation stored with its completion (HS__WIRE_OPDONE, what the wire
 * library writes when it sees the completion on the posting thread): exact
 * bytes of one, then every length of every field decoded back, with the
 * completion's time after the operation's end (0 .. 2^64 - 1 units). */
static void test_encode_wire_opdone(void **state)
{
    (void)state;
    static uint8_t raw[64 << 10];
    static uint8_t st[64 << 10], tm[64 << 10];
    size_t used = 0, off = 0, sl, tl;
    uint32_t n;
    uint64_t base;
    hs__rec a = { .kind = HS__WIRE_OPDONE, .t0 = 100, .t1 = 100, .tag2 = HS_TRACE_WOP_TAG_RECV,
                  .flags = HS_TRACE_F_WIRE_IN, .bytes = 8, .bytes2 = 7, .req = 1, .aux = 0,
                  .repeat = 1 };
    a.done_t = 300;
    a.done_flags = HS_TRACE_F_ERROR;
    a.done_bytes = 5;
    a.done_stag = 9;
    put_rec(raw, &used, &a, NULL, 0);
    assert_int_equal(hs__encode(raw, used, &off, 0, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    /* kind, flags 0x100 (2 bytes), op (zigzag), bytes, tag, req delta
     * (zigzag), peer hash; completion flags, bytes, tag.  Times: gap,
     * duration, completion 200 units after the end. */
    const uint8_t want[] = { HS__WIRE_OPDONE, 0x80, 0x02, (uint8_t)(2 * HS_TRACE_WOP_TAG_RECV),
                             8, 7, 2, 0, (uint8_t)HS_TRACE_F_ERROR, 5, 9 };
    const uint8_t want_t[] = { 0, 0, 0xc8, 0x01 };
    assert_int_equal(n, 1);
    assert_int_equal(sl, sizeof want);
    assert_memory_equal(st, want, sizeof want);
    assert_int_equal(tl, sizeof want_t);
    assert_memory_equal(tm, want_t, sizeof want_t);
    /* the peer: in full (mark 2, 8 bytes little-endian), then the same
     * again (mark 1); the req delta and the times as before */
    hs__rec p1 = a;
    p1.aux = 0x0102030405060708ull;
    p1.req = 2;
    hs__rec p2 = p1;
    p2.req = 3;
    put_rec(raw, &used, &p1, NULL, 0);
    put_rec(raw, &used, &p2, NULL, 0);
    off = 0;
    assert_int_equal(hs__encode(raw, used, &off, 0, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    const uint8_t want2[] = { HS__WIRE_OPDONE, 0x80, 0x02, (uint8_t)(2 * HS_TRACE_WOP_TAG_RECV),
                              8, 7, 2, 2, 8, 7, 6, 5, 4, 3, 2, 1, (uint8_t)HS_TRACE_F_ERROR, 5,
                              9 };
    const uint8_t want3[] = { HS__WIRE_OPDONE, 0x80, 0x02, (uint8_t)(2 * HS_TRACE_WOP_TAG_RECV),
                              8, 7, 2, 1, (uint8_t)HS_TRACE_F_ERROR, 5, 9 };
    assert_int_equal(n, 3);
    assert_int_equal(sl, sizeof want + sizeof want2 + sizeof want3);
    assert_memory_equal(st + sizeof want, want2, sizeof want2);
    assert_memory_equal(st + sizeof want + sizeof want2, want3, sizeof want3);
    {
        hs__codec c3 = { .prev_t = base };
        size_t sp3 = 0, tp3 = 0, wc3 = 0;
        uint64_t *w3 = NULL;
        const char *why3 = NULL;
        hs__rec o3;
        for (int i = 0; i < 3; i++) {
            assert_int_equal(hs__decode_one(&c3, st, sl, &sp3, tm, tl, &tp3, &o3, &w3, &wc3,
                                            &why3), 0);
            assert_true(o3.aux == (i ? p1.aux : 0));
        }
        /* mark 1 with no peer stored before it in the block, mark 3: refused */
        c3 = (hs__codec){ .prev_t = base };
        sp3 = tp3 = 0;
        assert_int_equal(hs__decode_one(&c3, want3, sizeof want3, &sp3, tm, tl, &tp3, &o3, &w3,
                                        &wc3, &why3), HS_EFORMAT);
        assert_string_equal(why3, "peer mark");
        uint8_t bad3[sizeof want3];
        memcpy(bad3, want3, sizeof want3);
        bad3[7] = 3;
        c3 = (hs__codec){ .prev_t = base };
        sp3 = tp3 = 0;
        assert_int_equal(hs__decode_one(&c3, bad3, sizeof bad3, &sp3, tm, tl, &tp3, &o3, &w3,
                                        &wc3, &why3), HS_EFORMAT);
        free(w3);
    }
    used = 0;
    put_rec(raw, &used, &a, NULL, 0);
    /* a completion before the operation's end is stored at its end */
    a.done_t = 50;
    used = 0;
    put_rec(raw, &used, &a, NULL, 0);
    off = 0;
    assert_int_equal(hs__encode(raw, used, &off, 0, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    assert_int_equal(tl, 3);
    assert_int_equal(tm[2], 0);

    enum { N = 66 };
    hs__rec in[N];
    used = 0;
    uint64_t t = 5;
    for (int k = 0; k < N; k++) {
        uint64_t v = k == 0 ? 0 : k >= 64 ? UINT64_MAX : ((1ull << (k - 1)) | (k > 1 ? 1 : 0));
        if (k == 65)
            v = 1ull << 63;
        uint64_t w = v ^ (v >> 1);
        t += (uint64_t)(k % 20) << (k % 40);
        in[k] = (hs__rec){ .kind = k % 3 ? HS__WIRE_OPDONE : HS_TRACE_WIRE_OP, .t0 = t,
                           .t1 = t + (v >> 8), .repeat = 1, .tag2 = (int32_t)(k % 12),
                           .bytes = v, .bytes2 = w, .req = v ^ 0x5555, .aux = ~v,
                           .flags = (uint32_t)k % 3 };
        if (k % 5 == 4)   /* the peer of two records before: in full, or by its mark */
            in[k].aux = in[k - 2].aux;
        if (in[k].kind == HS__WIRE_OPDONE) {
            /* the completion up to 2^64 - 1 units after the end */
            in[k].done_t = in[k].t1 + (UINT64_MAX - in[k].t1 < w ? UINT64_MAX - in[k].t1 : w);
            in[k].done_flags = (uint16_t)(k % 2 ? HS_TRACE_F_CANCELLED | HS_TRACE_F_WIRE_RNDV
                                                : 0);
            in[k].done_bytes = w;
            in[k].done_stag = v;
        }
        put_rec(raw, &used, &in[k], NULL, 0);
    }
    off = 0;
    assert_int_equal(hs__encode(raw, used, &off, 2, 0, st, sizeof st, &sl, tm, sizeof tm, &tl, &n,
                                &base), 0);
    assert_int_equal(n, N);
    assert_int_equal(off, used);
    hs__codec c = { .rank = 2, .prev_t = base };
    size_t sp = 0, tp = 0, wcap = 0;
    uint64_t *words = NULL;
    const char *why = NULL;
    for (int k = 0; k < N; k++) {
        hs__rec o;
        assert_int_equal(hs__decode_one(&c, st, sl, &sp, tm, tl, &tp, &o, &words, &wcap, &why), 0);
        assert_int_equal(o.kind, in[k].kind);
        assert_int_equal(o.flags, in[k].flags);
        assert_true(o.t0 == in[k].t0);
        assert_true(o.t1 == in[k].t1);
        assert_true(o.bytes == in[k].bytes);
        assert_true(o.bytes2 == in[k].bytes2);
        assert_true(o.req == in[k].req);
        assert_int_equal(o.tag2, in[k].tag2);
        assert_true(o.aux == in[k].aux);
        if (in[k].kind == HS__WIRE_OPDONE) {
            assert_true(o.done_t == in[k].done_t);
            assert_int_equal(o.done_flags, in[k].done_flags);
            assert_true(o.done_bytes == in[k].done_bytes);
            assert_true(o.done_stag == in[k].done_stag);
        }
    }
    assert_int_equal(sp, sl);
    assert_int_equal(tp, tl);
    /* a completion time past 2^64 - 1 is refused, as are unknown flag bits */
    uint8_t bad_t[] = { 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    c = (hs__codec){ .rank = 0, .prev_t = 10 };
    sp = tp = 0;
    hs__rec o;
    assert_int_equal(hs__decode_one(&c, want, sizeof want, &sp, bad_t, sizeof bad_t, &tp, &o,
                                    &words, &wcap, &why), HS_EFORMAT);
    assert_string_equal(why, "completion time");
    const uint8_t bad_flags[] = { HS__WIRE_OPDONE, 0, 2, 0, 0, 0, 0, 0x80, 0x80, 0x04, 0, 0 };
    c = (hs__codec){ .rank = 0, .prev_t = 10 };
    sp = tp = 0;
    assert_int_equal(hs__decode_one(&c, bad_flags, sizeof bad_flags, &sp, want_t, sizeof want_t,
                                    &tp, &o, &words, &wcap, &why), HS_EFORMAT);
    assert_string_equal(why, "unknown completion flag bits");
    free(words);
}

static void test_roundtrip(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    size_t counts[NR];
    const int reps = 300;   /* > 256 KiB of raw records: several blocks per thread */
    write_job(dir, reps, counts);
    hs_trace *t;
    hs_error e;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    for (uint32_t r = 0; r < NR; r++) {
        hs_trace_cursor *c;
        assert_int_equal(hs_trace_cursor_open(t, r, &c, &e), 0);
        hs_trace_rank_info info;
        hs_trace_cursor_info(c, &info);
        assert_true(info.complete);
        assert_int_equal(info.end_reason, HS_TRACE_END_FINALIZE);
        assert_int_equal(info.nthreads, 2);
        assert_true(info.blocks > 2);
        assert_true(info.events == counts[r]);
        assert_string_equal(info.note, "");
        /* Expected order: the two threads merged by start time, thread 0
         * first on equal times. */
        int rep = 0, i1 = 0;
        size_t i0 = 0, got = 0;
        hs_trace_event evs[HS_TRACE_KIND_MAX + 3], ev, x1;
        size_t k = sample_events(r, evs, -5000, 1, reps == 1);
        int rc;
        while ((rc = hs_trace_next(c, &ev, &e)) == 1) {
            got++;
            if (i0 == k && ++rep < reps) {
                k = sample_events(r, evs, -5000 + (int64_t)rep * 1000000, 0, rep == reps - 1);
                i0 = 0;
            }
            int have0 = rep < reps && i0 < k, have1 = i1 < reps * 40;
            if (have1)
                thread1_event(r, i1, &x1);
            assert_true(have0 || have1);
            if (have0 && (!have1 || evs[i0].t_start <= x1.t_start)) {
                assert_event_equal(&ev, &evs[i0]);
                i0++;
            } else {
                assert_event_equal(&ev, &x1);
                i1++;
            }
        }
        if (rc != 0)
            fail_msg("%s", e.msg);
        assert_true(got == counts[r]);
        hs_trace_cursor_close(c);
    }
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
}

/* Writer rejects what it cannot represent faithfully. */
static void test_writer_rejects(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    hs_trace_writer *w;
    hs_error e;
    assert_int_equal(hs_trace_writer_open(&w, dir, 0, 2, &e), 0);
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_SEND);
    ev.comm = 999;   /* never created */
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "unknown communicator"));
    hs_trace_event_init(&ev, HS_TRACE_ALLTOALLV);
    ev.comm = HS_TRACE_COMM_WORLD;
    hs_trace_peer p[2] = { { 1, 5 }, { 0, 5 } };   /* not in comm rank order */
    ev.sendto = p;
    ev.nsendto = 2;
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    hs_trace_event_init(&ev, 200);
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    hs_trace_event_init(&ev, HS_TRACE_BARRIER);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.t_start = 100;
    ev.t_end = 50;
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    ev.t_end = 200;
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
    ev.t_start = 99;   /* goes back in time on the same thread */
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    rm_rf(dir);
    free(dir);
}

/* ---- hostile times ---------------------------------------------------------- */

#define TBIAS (1ull << 62)   /* the synthetic writer's tick of the epoch */

/* Builds rank file DIR/rank-000000.hst (a 1-rank job) from raw barrier
 * records with the given tick times, through the real encoder and block
 * builder, so that times the public writer refuses reach the reader.
 * drift_ns != 0 adds a finalize clock record 1000 ticks after the epoch
 * whose offset differs from the init record's by drift_ns. */
static void craft_times(const char *dir, const uint64_t (*t)[2], size_t n, int64_t drift_ns)
{
    write_manifest(dir, 1, 1);
    char path[600];
    snprintf(path, sizeof path, "%s/rank-000000.hst", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    z_stream zs, zt;
    assert_int_equal(hs__deflate_init(&zs, &zt, 1, 1), 0);
    hs__file_hdr fh = { .version = HS_TRACE_FORMAT_VERSION, .rank = 0, .nranks = 1,
                        .clock = HS__CLOCK_NS, .shift = 0, .tick_hz = 1000000000ull };
    uint8_t fhb[HS__FILE_HDR_LEN], out[1 << 14], pay[64];
    hs__file_hdr_pack(&fh, fhb);
    assert_int_equal(fwrite(fhb, 1, sizeof fhb, f), sizeof fhb);
    uint32_t seq = 0;
    size_t len;
    for (uint32_t which = 0; which < (drift_ns ? 2u : 1u); which++) {
        hs__clock_rec cr = { .which = which, .offset_ns = which ? drift_ns : 0,
                             .epoch_ns = TBIAS, .local_ns = TBIAS + which * 1000u };
        hs__blk_hdr h = { .type = HS__BLK_CLOCK, .seq = seq++, .sync_tick = TBIAS,
                          .sync_ns = TBIAS };
        assert_int_equal(hs__block_build(&zs, &zt, &h, pay, hs__clock_rec_encode(&cr, pay),
                                         NULL, 0, out, sizeof out, &len), 0);
        assert_int_equal(fwrite(out, 1, len, f), len);
    }
    hs__rec raw[8];
    assert_true(n <= 8);
    memset(raw, 0, sizeof raw);
    for (size_t i = 0; i < n; i++) {
        raw[i].kind = HS_TRACE_BARRIER;
        raw[i].repeat = 1;
        raw[i].t0 = t[i][0];
        raw[i].t1 = t[i][1];
        raw[i].peer = raw[i].peer2 = HS_TRACE_RANK_NONE;
        raw[i].tag = raw[i].tag2 = HS_TRACE_TAG_NONE;
        raw[i].comm = 0;
        raw[i].comm2 = raw[i].win = HS__NOIDX;
    }
    uint8_t st[4096], tm[4096];
    size_t off = 0, sl, tl;
    uint32_t nenc;
    hs__blk_hdr h = { .type = HS__BLK_EVENTS, .seq = seq++ };
    assert_int_equal(hs__encode((const uint8_t *)raw, n * sizeof *raw, &off, 0, 0, st, sizeof st,
                                &sl, tm, sizeof tm, &tl, &nenc, &h.base), 0);
    assert_int_equal(nenc, n);
    h.nevents = nenc;
    h.sync_tick = h.sync_ns = TBIAS;
    assert_int_equal(hs__block_build(&zs, &zt, &h, st, sl, tm, tl, out, sizeof out, &len), 0);
    assert_int_equal(fwrite(out, 1, len, f), len);
    hs__end_rec e = { .reason = HS_TRACE_END_FINALIZE, .events = n, .blocks = seq + 1 };
    h = (hs__blk_hdr){ .type = HS__BLK_END, .seq = seq++, .sync_tick = TBIAS, .sync_ns = TBIAS };
    assert_int_equal(hs__block_build(&zs, &zt, &h, pay, hs__end_rec_encode(&e, pay), NULL, 0,
                                     out, sizeof out, &len), 0);
    assert_int_equal(fwrite(out, 1, len, f), len);
    hs__deflate_end(&zs, &zt);
    assert_int_equal(fclose(f), 0);
}

/* Reads rank 0 to the end: the error message of the first failure, "" when
 * every event read. */
static void read_all(const char *dir, char *msg, size_t n)
{
    hs_trace *t;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    hs_trace_cursor *c;
    int rc = hs_trace_cursor_open(t, 0, &c, &e);
    assert_int_equal(rc, 0);
    hs_trace_event ev;
    while ((rc = hs_trace_next(c, &ev, &e)) == 1)
        ;
    hs_trace_cursor_close(c);
    snprintf(msg, n, "%s", rc < 0 ? e.msg : "");
    /* stats and check read the same events: they fail the same way
     * instead of computing with the times */
    hs_trace_stats *s = NULL;
    int src = hs_trace_stats_compute(t, &s, &e);
    assert_int_equal(src < 0, rc < 0);
    hs_trace_stats_free(s);
    uint64_t problems = 0;
    assert_int_equal(hs_trace_check(t, NULL, 0, &problems, &e) < 0, rc < 0);
    hs_trace_close(t);
}

static void test_times_checked(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    char msg[1024];
    /* a clean job reads (the reference for the cases below) */
    const uint64_t good[][2] = { { TBIAS - 500, TBIAS - 100 }, { TBIAS + 10, TBIAS + 20 },
                                 { TBIAS + 20, TBIAS + 20 } };
    craft_times(dir, good, 3, 0);
    read_all(dir, msg, sizeof msg);
    assert_string_equal(msg, "");

    /* beyond 2^56 ns after the epoch (the fuzzer's INT64_MAX span) */
    const uint64_t far[][2] = { { TBIAS + 10, TBIAS + 20 },
                                { TBIAS + (1ull << 56) + 1, TBIAS + (1ull << 56) + 2 } };
    craft_times(dir, far, 2, 0);
    read_all(dir, msg, sizeof msg);
    assert_non_null(strstr(msg, "rank-000000.hst: block 1"));
    assert_non_null(strstr(msg, "time out of range"));

    /* an end that wraps past 2^64 ticks */
    const uint64_t wrap[][2] = { { UINT64_MAX - 5, UINT64_MAX } };
    craft_times(dir, wrap, 1, 0);
    read_all(dir, msg, sizeof msg);
    assert_non_null(strstr(msg, "time out of range"));

    /* the second event starts before the first (a negative gap) */
    const uint64_t back[][2] = { { TBIAS + 1000, TBIAS + 2000 }, { TBIAS + 900, TBIAS + 950 } };
    craft_times(dir, back, 2, 0);
    read_all(dir, msg, sizeof msg);
    assert_non_null(strstr(msg, "barrier event starts at 900 ns, before the previous event of "
                               "the rank (1000 ns)"));

    /* clock records whose drift runs time backwards: end before start */
    const uint64_t drift[][2] = { { TBIAS + 100, TBIAS + 900 } };
    craft_times(dir, drift, 1, -1000000);
    read_all(dir, msg, sizeof msg);
    assert_non_null(strstr(msg, "barrier event ends at -899100 ns, before it starts at "
                               "-99900 ns"));
    rm_rf(dir);
    free(dir);
}

static void test_writer_refuses_times(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    hs_trace_writer *w;
    hs_error e;
    assert_int_equal(hs_trace_writer_open(&w, dir, 0, 1, &e), 0);
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_BARRIER);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.t_start = 0;
    ev.t_end = INT64_MAX;
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "-2^56 <= start <= end <= 2^56 ns"));
    ev.t_start = INT64_MIN;
    ev.t_end = 0;
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), HS_EINVAL);
    ev.t_start = -HS_TRACE_TIME_LIMIT;
    ev.t_end = HS_TRACE_TIME_LIMIT;   /* the bounds themselves are times */
    assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    rm_rf(dir);
    free(dir);
}

/* ---- stats and check on a job with known communication ------------------- */

/* A ring of n ranks: each sends `iters` messages of `bytes` to r+1 with tag
 * it%3 (ISEND + WAIT), receives from r-1 with ANY_SOURCE (RECV), plus one
 * allreduce per iteration.  drop_recv: rank 1 misses its last receive. */
static void write_ring(const char *dir, uint32_t n, int iters, uint64_t bytes, int drop_recv)
{
    write_manifest(dir, n, 1);
    hs_error e;
    for (uint32_t r = 0; r < n; r++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open(&w, dir, r, n, &e), 0);
        int64_t t = 0;
        for (int it = 0; it < iters; it++) {
            hs_trace_event ev;
            hs_trace_event_init(&ev, HS_TRACE_ISEND);
            ev.t_start = t; ev.t_end = t + 10; t += 100;
            ev.comm = HS_TRACE_COMM_WORLD;
            ev.peer = (int32_t)((r + 1) % n);
            ev.tag = it % 3;
            ev.bytes = bytes;
            ev.req = (uint64_t)it + 1;
            ev.flags = HS_TRACE_F_MONITORED;
            assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
            if (!(drop_recv && r == 1 && it == iters - 1)) {
                hs_trace_event_init(&ev, HS_TRACE_RECV);
                ev.t_start = t; ev.t_end = t + 10; t += 100;
                ev.comm = HS_TRACE_COMM_WORLD;
                ev.peer = (int32_t)((r + n - 1) % n);
                ev.tag = it % 3;
                ev.peer2 = HS_TRACE_ANY_SOURCE;
                ev.tag2 = it % 3;
                ev.flags = HS_TRACE_F_ANY_SOURCE;
                ev.bytes = bytes;
                ev.bytes2 = bytes * 2;
                assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
            }
            hs_trace_compl cp = { (uint64_t)it + 1, 0, HS_TRACE_RANK_NONE, HS_TRACE_TAG_NONE, 0 };
            hs_trace_event_init(&ev, HS_TRACE_WAIT);
            ev.t_start = t; ev.t_end = t + 10; t += 100;
            ev.compl = &cp;
            ev.ncompl = 1;
            assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
            hs_trace_event_init(&ev, HS_TRACE_ALLREDUCE);
            ev.t_start = t; ev.t_end = t + 10; t += 100;
            ev.comm = HS_TRACE_COMM_WORLD;
            ev.bytes = ev.bytes2 = 8;
            assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
        }
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
}

static void test_stats_ring(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    const uint32_t n = 4;
    const int iters = 10;
    write_ring(dir, n, iters, 256, 0);
    hs_trace *t;
    hs_error e;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    hs_trace_stats *s;
    assert_int_equal(hs_trace_stats_compute(t, &s, &e), 0);
    assert_int_equal(s->total.sent_messages, n * iters);
    assert_int_equal(s->total.sent_bytes, n * iters * 256);
    assert_int_equal(s->total.recv_messages, n * iters);
    assert_int_equal(s->total.monitored, n * iters);
    assert_int_equal(s->total.coll_calls, n * iters);
    assert_int_equal(s->total.events, n * iters * 4);
    assert_int_equal(s->npairs, n);
    for (size_t i = 0; i < s->npairs; i++) {
        assert_int_equal(s->pairs[i].dst, (s->pairs[i].src + 1) % n);
        assert_int_equal(s->pairs[i].messages, iters);
    }
    assert_int_equal(s->ntags, 3);
    assert_int_equal(s->tags[0].messages, n * 4);   /* tags 0,1,2 over 10 iterations: 4,3,3 */
    assert_int_equal(s->tags[1].messages, n * 3);
    assert_int_equal(s->incomplete_ranks, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hs_json w;
    hs_json_init(&w, f, 0);
    hs_trace_stats_json(s, &w);
    assert_int_equal(hs_json_finish(&w), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"sent_messages\":40"));
    free(buf);
    hs_trace_stats_free(s);
    uint64_t problems;
    assert_int_equal(hs_trace_check(t, NULL, 10, &problems, &e), 0);
    assert_int_equal(problems, 0);
    hs_trace_close(t);
    rm_rf(dir);

    /* One receive missing: exactly one flow mismatch, named in the report. */
    assert_int_equal(mkdir(dir, 0700), 0);
    write_ring(dir, n, iters, 256, 1);
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(hs_trace_check(t, f, 10, &problems, &e), 0);
    fclose(f);
    assert_int_equal(problems, 1);
    assert_non_null(strstr(buf, "rank 0 -> rank 1, tag 0: 4 messages (1024 bytes) sent, 3 "
                                "(768 bytes) received"));
    free(buf);
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
}

/* MPI_Init and MPI_Finalize are start-up and tear-down: counted apart from
 * the time in MPI, which would otherwise be mostly MPI_Init on short runs. */
static void test_stats_init_apart(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    write_manifest(dir, 1, 1);
    hs_error e;
    hs_trace_writer *w;
    assert_int_equal(hs_trace_writer_open(&w, dir, 0, 1, &e), 0);
    static const struct { int kind; int64_t t0, t1; } evs[] = {
        { HS_TRACE_INIT, 0, 5000 },
        { HS_TRACE_ALLREDUCE, 6000, 6010 },
        { HS_TRACE_ALLREDUCE, 7000, 7030 },
        { HS_TRACE_FINALIZE, 8000, 8500 },
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        hs_trace_event ev;
        hs_trace_event_init(&ev, evs[i].kind);
        ev.t_start = evs[i].t0;
        ev.t_end = evs[i].t1;
        if (evs[i].kind == HS_TRACE_ALLREDUCE) {
            ev.comm = HS_TRACE_COMM_WORLD;
            ev.bytes = ev.bytes2 = 8;
        }
        assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
    }
    assert_int_equal(hs_trace_writer_close(w, &e), 0);
    hs_trace *t;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    hs_trace_stats *s;
    assert_int_equal(hs_trace_stats_compute(t, &s, &e), 0);
    assert_true(fabs(s->total.mpi_seconds - 40e-9) < 1e-15);
    assert_true(fabs(s->total.init_seconds - 5500e-9) < 1e-15);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hs_trace_stats_print(s, f, 0);
    fclose(f);
    assert_non_null(strstr(buf, "time in MPI 0.000000 s summed over ranks (0.000000 s per rank), "
                                "MPI_Init and MPI_Finalize 0.000006 s apart"));
    free(buf);
    hs_trace_stats_free(s);
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
}

/* ---- truncation and damage --------------------------------------------- */

static void test_truncation(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    size_t counts[NR];
    write_job(dir, 200, counts);
    char path[600];
    snprintf(path, sizeof path, "%s/rank-000001.hst", dir);
    size_t len;
    char *full = slurp(path, &len);
    /* Cut at many points: every cut opens (or fails cleanly before the first
     * block) and reads a prefix with a note saying what is missing. */
    uint64_t prev_events = 0;
    for (size_t cut = 0; cut <= len; cut += len / 97 + 1) {
        spit(path, full, cut);
        hs_trace *t;
        hs_error e;
        assert_int_equal(hs_trace_open(dir, &t, &e), 0);
        hs_trace_cursor *c;
        int rc = hs_trace_cursor_open(t, 1, &c, &e);
        if (cut < HS__FILE_HDR_LEN) {
            assert_int_equal(rc, HS_ETRUNC);
            assert_non_null(strstr(e.msg, "rank-000001.hst"));
            hs_trace_close(t);
            continue;
        }
        assert_int_equal(rc, 0);
        hs_trace_rank_info info;
        hs_trace_cursor_info(c, &info);
        assert_false(info.complete);
        assert_non_null(strstr(info.note, "no end record"));
        assert_true(info.events >= prev_events);
        prev_events = info.events;
        hs_trace_event ev;
        uint64_t n = 0;
        while ((rc = hs_trace_next(c, &ev, &e)) == 1)
            n++;
        assert_int_equal(rc, 0);
        assert_true(n == info.events);
        assert_true(info.good_bytes <= cut);
        hs_trace_cursor_close(c);
        hs_trace_close(t);
    }
    assert_true(prev_events > 0);
    free(full);
    rm_rf(dir);
    free(dir);
}

static void test_damage(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    size_t counts[NR];
    write_job(dir, 50, counts);
    char path[600];
    snprintf(path, sizeof path, "%s/rank-000002.hst", dir);
    size_t len;
    char *full = slurp(path, &len);
    /* Flip one byte at a time at a spread of offsets: every flip is caught,
     * either when opening (headers) or when reading (payload checksum). */
    for (size_t off = 0; off < len; off += len / 211 + 1) {
        char *b = malloc(len);
        memcpy(b, full, len);
        b[off] ^= 0x5a;
        spit(path, b, len);
        free(b);
        hs_trace *t;
        hs_error e;
        hs_error_clear(&e);
        assert_int_equal(hs_trace_open(dir, &t, &e), 0);
        hs_trace_cursor *c;
        int rc = hs_trace_cursor_open(t, 2, &c, &e);
        if (rc == 0) {
            hs_trace_event ev;
            while ((rc = hs_trace_next(c, &ev, &e)) == 1)
                ;
            hs_trace_cursor_close(c);
        }
        if (rc >= 0)
            fail_msg("flip at offset %zu not detected", off);
        assert_non_null(strstr(e.msg, "rank-000002.hst"));
        if (off >= HS__FILE_HDR_LEN)
            assert_non_null(strstr(e.msg, "block"));
        hs_trace_close(t);
    }
    free(full);
    rm_rf(dir);
    free(dir);
}

/* ---- fuzzing the decoder --------------------------------------------------- */

static uint64_t rng_state = 0x853c49e6748fea9bull;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return hs__mix64(rng_state);
}

/* Takes a valid rank file, and for each iteration mutates the *decoded*
 * payload of one event block (or a header field), re-deflates it and fixes
 * both checksums, so the mutation reaches the decoder.  The reader must
 * return cleanly (event or error) every time; ASan/UBSan watch memory. */
static void test_fuzz_decoder(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    size_t counts[NR];
    write_job(dir, 3, counts);
    char path[600];
    snprintf(path, sizeof path, "%s/rank-000000.hst", dir);
    size_t len;
    uint8_t *full = (uint8_t *)slurp(path, &len);
    /* Find the event blocks. */
    size_t offs[64], nb = 0;
    for (size_t off = HS__FILE_HDR_LEN; off + HS__BLK_HDR_LEN <= len && nb < 64;) {
        hs__blk_hdr h;
        assert_int_equal(hs__blk_hdr_unpack(full + off, &h), 0);
        if (h.type == HS__BLK_EVENTS)
            offs[nb++] = off;
        off += HS__BLK_HDR_LEN + h.comp_len;
    }
    assert_true(nb >= 2);
    const char *iters_env = getenv("HS_FUZZ_ITERS");
    long iters = iters_env ? atol(iters_env) : 2000;
    z_stream zs, zt;
    assert_int_equal(hs__deflate_init(&zs, &zt, 1, 1), 0);
    uint64_t ok = 0, errs = 0;
    for (long it = 0; it < iters; it++) {
        size_t bo = offs[rnd() % nb];
        hs__blk_hdr h;
        assert_int_equal(hs__blk_hdr_unpack(full + bo, &h), 0);
        uint8_t *pay = malloc(h.raw_len + 64);
        size_t slen;
        assert_int_equal(hs__inflate(full + bo + HS__BLK_HDR_LEN, h.comp_len, pay, h.raw_len, &slen),
                         0);
        size_t plen = h.raw_len;
        int nmut = 1 + (int)(rnd() % 4);
        for (int m = 0; m < nmut && plen > 0; m++) {
            size_t at = (size_t)(rnd() % plen);
            switch (rnd() % 6) {
            case 0: pay[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
            case 1: pay[at] = (uint8_t)rnd(); break;
            case 2: pay[at] = 0xff; break;
            case 3: plen = at; if (slen > plen) slen = plen; break;  /* cut the payload */
            case 4: h.nevents += (uint32_t)(rnd() % 3) - 1; break;
            case 5: h.base ^= rnd(); break;
            }
        }
        /* Mutations also move the boundary between the two streams. */
        if (rnd() % 8 == 0)
            slen = (size_t)(rnd() % (plen + 1));
        size_t cap = hs__block_bound(slen, plen - slen);
        uint8_t *blk = malloc(cap);
        size_t blen;
        assert_int_equal(hs__block_build(&zs, &zt, &h, pay, slen, pay + slen, plen - slen, blk, cap,
                                         &blen), 0);
        /* New file: prefix, mutated block, suffix. */
        size_t old_blen = HS__BLK_HDR_LEN + (size_t)((full[bo + 20] | full[bo + 21] << 8 |
                                                       full[bo + 22] << 16 | (size_t)full[bo + 23] << 24));
        uint8_t *nf = malloc(len - old_blen + blen);
        memcpy(nf, full, bo);
        memcpy(nf + bo, blk, blen);
        memcpy(nf + bo + blen, full + bo + old_blen, len - bo - old_blen);
        spit(path, nf, len - old_blen + blen);
        free(nf);
        free(blk);
        free(pay);
        hs_trace *t;
        hs_error e;
        assert_int_equal(hs_trace_open(dir, &t, &e), 0);
        hs_trace_cursor *c;
        int rc = hs_trace_cursor_open(t, 0, &c, &e);
        if (rc == 0) {
            hs_trace_event ev;
            while ((rc = hs_trace_next(c, &ev, &e)) == 1)
                ;
            hs_trace_cursor_close(c);
        }
        if (rc < 0) {
            errs++;
            assert_non_null(strstr(e.msg, "rank-000000.hst"));
        } else {
            ok++;
        }
        hs_trace_close(t);
    }
    hs__deflate_end(&zs, &zt);
    /* Most mutations must be caught; some (a changed time gap) are valid. */
    assert_true(errs > 0);
    print_message("fuzz: %ld mutated files, %llu read cleanly, %llu rejected\n", iters,
                  (unsigned long long)ok, (unsigned long long)errs);
    free(full);
    rm_rf(dir);
    free(dir);
}

/* The manifest parser against random damage: byte flips, cuts, inserted
 * bytes.  It must succeed or fail with a message naming the file, never
 * crash (ASan/UBSan watch it in the sanitized build). */
static void test_fuzz_manifest(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    write_manifest(dir, 7, 3);
    char path[600];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    size_t len;
    char *good = slurp(path, &len);
    char *bad = malloc(len + 16);
    long iters = getenv("HS_FUZZ_ITERS") ? atol(getenv("HS_FUZZ_ITERS")) : 2000;
    uint64_t ok = 0;
    for (long it = 0; it < iters; it++) {
        size_t n = len;
        memcpy(bad, good, len);
        for (int m = 0, nm = 1 + (int)(rnd() % 3); m < nm; m++) {
            size_t at = (size_t)(rnd() % n);
            switch (rnd() % 4) {
            case 0: bad[at] = (char)rnd(); break;
            case 1: bad[at] ^= (char)(1u << (rnd() % 8)); break;
            case 2: n = at; break;
            case 3:
                memmove(bad + at + 1, bad + at, n - at);
                static const char alphabet[] = "\n \\x09-";   /* the parser's delimiters */
                bad[at] = alphabet[rnd() % (sizeof alphabet - 1)];
                n++;
                break;
            }
            if (n == 0)
                break;
        }
        spit(path, bad, n);
        hs_trace_manifest m;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_trace_manifest_read(dir, &m, &e);
        if (rc == 0) {
            ok++;
            assert_true(m.nranks > 0 && m.nnodes > 0);
            for (uint32_t r = 0; r < m.nranks; r++)
                assert_true(m.rank_node[r] < m.nnodes);
            hs_trace_manifest_free(&m);
        } else {
            assert_non_null(strstr(e.msg, "manifest.txt"));
        }
    }
    print_message("manifest fuzz: %ld mutations, %llu still valid\n", iters,
                  (unsigned long long)ok);
    free(bad);
    free(good);
    rm_rf(dir);
    free(dir);
}

static void test_monitored(void **state)
{
    (void)state;
    /* rate 1: all; rate 0: none; rate 0.3: close to 30% and deterministic. */
    uint64_t hits = 0, n = 200000;
    for (uint64_t s = 0; s < n; s++) {
        assert_true(hs_trace_monitored(7, 1.0, 1, 2, s));
        assert_false(hs_trace_monitored(7, 0.0, 1, 2, s));
        hits += (uint64_t)hs_trace_monitored(7, 0.3, (uint32_t)(s % 13), 2, s / 13);
    }
    /* Binomial sd = sqrt(n p (1-p)) ~ 205; 5 sd. */
    assert_true(hits > 60000 - 1025 && hits < 60000 + 1025);
    assert_int_equal(hs_trace_monitored(9, 0.5, 3, 4, 5), hs_trace_monitored(9, 0.5, 3, 4, 5));
}

static void test_kind_names(void **state)
{
    (void)state;
    int n = 0;
    for (int k = 0; k <= HS_TRACE_KIND_MAX; k++) {
        const char *nm = hs_trace_kind_name(k);
        if (!nm)
            continue;
        n++;
        assert_int_equal(hs_trace_kind_from_name(nm), k);
        assert_int_not_equal(hs_trace_kind_class(k), HS_TRACE_CLASS_NONE);
    }
    assert_int_equal(n, 7 + 27 + 10 + 44 + 25 + 5);   /* ... RMA, wire */
    int base;
    assert_true(hs_trace_kind_is_coll(HS_TRACE_ALLTOALLV + HS_TRACE_NB, &base));
    assert_int_equal(base, HS_TRACE_ALLTOALLV);
    assert_string_equal(hs_trace_kind_name(HS_TRACE_BARRIER + HS_TRACE_NB), "ibarrier");
    assert_null(hs_trace_kind_name(0));
    assert_null(hs_trace_kind_name(256));
}

/* ---- Adler-32 and blocks -------------------------------------------------- */

static uint64_t xs_state = 88172645463325252ull;
static uint8_t xs_byte(void)
{
    xs_state ^= xs_state << 13;
    xs_state ^= xs_state >> 7;
    xs_state ^= xs_state << 17;
    return (uint8_t)(xs_state >> 32);
}

/* hs__adler32 (SSSE3 or scalar) equals zlib's for every length around its
 * block (32) and reduction (5552) boundaries, misaligned starts, and bytes
 * of 0xff (the largest sums). */
static void test_adler32(void **state)
{
    (void)state;
    size_t cap = 200003;
    uint8_t *buf = malloc(cap + 8);
    assert_non_null(buf);
    for (size_t i = 0; i < cap + 8; i++)
        buf[i] = xs_byte();
    size_t lens[] = { 0, 1, 2, 15, 16, 31, 32, 33, 63, 64, 65, 100, 5520, 5551, 5552, 5553,
                      5584, 11104, 11105, 16673, 65536, 100000, 200003 };
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
        for (size_t off = 0; off < 4; off++)
            assert_int_equal(hs__adler32(buf + off, lens[li]),
                             (uint32_t)adler32(1L, buf + off, (uInt)lens[li]));
    for (int r = 0; r < 300; r++) {
        size_t n = xs_byte() | (size_t)xs_byte() << 8, off = xs_byte() & 7;
        assert_int_equal(hs__adler32(buf + off, n), (uint32_t)adler32(1L, buf + off, (uInt)n));
    }
    memset(buf, 0xff, cap + 8);
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
        assert_int_equal(hs__adler32(buf + 1, lens[li]),
                         (uint32_t)adler32(1L, buf + 1, (uInt)lens[li]));
    free(buf);
}

static size_t zlib_ref(const uint8_t *in, size_t n, int level, int strategy, uint8_t *out,
                       size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, 15, 8, strategy), Z_OK);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t len = (size_t)z.total_out;
    deflateEnd(&z);
    return len;
}

/* Times at level 0 are stored blocks written without zlib: over 65535
 * bytes they split into blocks (3 here, the last 8930 bytes), and the
 * stream inflates back exactly. */
static void test_block_stored_times(void **state)
{
    (void)state;
    size_t slen = 100, tlen = 140000;
    uint8_t *s = malloc(slen), *t = malloc(tlen), *back = malloc(slen + tlen);
    assert_non_null(s);
    assert_non_null(t);
    assert_non_null(back);
    for (size_t i = 0; i < slen; i++)
        s[i] = (uint8_t)(i % 5);
    for (size_t i = 0; i < tlen; i++)
        t[i] = xs_byte();
    z_stream zs, zt;
    assert_int_equal(hs__deflate_init(&zs, &zt, 1, 0), 0);
    size_t cap = hs__block_bound(slen, tlen), olen = 0;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    hs__blk_hdr h = { .type = HS__BLK_EVENTS, .nevents = 1 };
    assert_int_equal(hs__block_build(&zs, &zt, &h, s, slen, t, tlen, out, cap, &olen), 0);
    /* the time stream is the payload's tail: 2 + 3 * 5 + tlen + 4 bytes */
    size_t tc = 2 + 3 * 5 + tlen + 4;
    const uint8_t *ts = out + olen - tc;
    assert_int_equal(ts[0], 0x78);
    assert_int_equal(ts[2], 0);                                  /* not final */
    assert_int_equal(ts[3] | ts[4] << 8, 65535);
    const uint8_t *last = ts + 2 + 2 * (5 + 65535);
    assert_int_equal(last[0], 1);                                /* final */
    assert_int_equal(last[1] | last[2] << 8, 140000 - 2 * 65535);
    assert_int_equal((last[3] | last[4] << 8) ^ 0xffff, 140000 - 2 * 65535);
    size_t sl = 0;
    assert_int_equal(hs__inflate(out + HS__BLK_HDR_LEN, h.comp_len, back, slen + tlen, &sl), 0);
    assert_int_equal(sl, slen);
    assert_memory_equal(back, s, slen);
    assert_memory_equal(back + slen, t, tlen);
    hs__deflate_end(&zs, &zt);
    free(s);
    free(t);
    free(out);
    free(back);
}

/* A block's payload is exactly what zlib's own zlib-wrapped deflate makes
 * at the writer's settings (structure level 1, times level 0 / RLE), so
 * traces read as before, and it inflates back. */
static void test_block_zlib_streams(void **state)
{
    (void)state;
    size_t slen = 70000, tlen = 30001;
    uint8_t *s = malloc(slen), *t = malloc(tlen);
    assert_non_null(s);
    assert_non_null(t);
    for (size_t i = 0; i < slen; i++)
        s[i] = (uint8_t)(i % 7 == 0 ? xs_byte() & 3 : i % 13);   /* repetitive, like structure */
    for (size_t i = 0; i < tlen; i++)
        t[i] = xs_byte();
    z_stream zs, zt;
    assert_int_equal(hs__deflate_init(&zs, &zt, 1, 0), 0);
    size_t cap = hs__block_bound(slen, tlen), olen = 0;
    uint8_t *out = malloc(cap), *ref = malloc(cap), *back = malloc(slen + tlen);
    assert_non_null(out);
    assert_non_null(ref);
    assert_non_null(back);
    for (int round = 0; round < 2; round++) {   /* the streams are reused */
        hs__blk_hdr h = { .type = HS__BLK_EVENTS, .nevents = 1 };
        assert_int_equal(hs__block_build(&zs, &zt, &h, s, slen, t, tlen, out, cap, &olen), 0);
        size_t sc = zlib_ref(s, slen, 1, Z_DEFAULT_STRATEGY, ref + 20, cap - 20);
        uint8_t *p = hs__put_u(hs__put_u(ref, slen), sc);
        size_t pl = (size_t)(p - ref);
        memmove(ref + pl, ref + 20, sc);
        size_t tc = zlib_ref(t, tlen, 0, Z_RLE, ref + pl + sc, cap - pl - sc);
        assert_int_equal(olen, HS__BLK_HDR_LEN + pl + sc + tc);
        assert_memory_equal(out + HS__BLK_HDR_LEN, ref, pl + sc + tc);
        size_t sl = 0;
        assert_int_equal(hs__inflate(out + HS__BLK_HDR_LEN, h.comp_len, back, slen + tlen, &sl),
                         0);
        assert_int_equal(sl, slen);
        assert_memory_equal(back, s, slen);
        assert_memory_equal(back + slen, t, tlen);
    }
    /* Empty streams too (clock and end blocks have no time stream). */
    hs__blk_hdr h = { .type = HS__BLK_END };
    assert_int_equal(hs__block_build(&zs, &zt, &h, s, 5, t, 0, out, cap, &olen), 0);
    size_t sl = 0;
    assert_int_equal(hs__inflate(out + HS__BLK_HDR_LEN, h.comp_len, back, 5, &sl), 0);
    assert_int_equal(sl, 5);
    assert_memory_equal(back, s, 5);
    hs__deflate_end(&zs, &zt);
    free(s);
    free(t);
    free(out);
    free(ref);
    free(back);
}

/* ---- OTF2 export and import (libtrace/otf2.c) ---------------------------- */

#if HS_HAVE_OTF2
/* Every event of every rank of a and b is the same; returns the count. */
static size_t assert_traces_equal(const char *a, const char *b)
{
    hs_trace *ta, *tb;
    hs_error e;
    assert_int_equal(hs_trace_open(a, &ta, &e), 0);
    if (hs_trace_open(b, &tb, &e) != 0)
        fail_msg("%s", e.msg);
    uint32_t n = hs_trace_get_manifest(ta)->nranks;
    assert_int_equal(hs_trace_get_manifest(tb)->nranks, n);
    size_t total = 0;
    for (uint32_t r = 0; r < n; r++) {
        hs_trace_cursor *ca, *cb;
        assert_int_equal(hs_trace_cursor_open(ta, r, &ca, &e), 0);
        assert_int_equal(hs_trace_cursor_open(tb, r, &cb, &e), 0);
        hs_trace_event ea, eb;
        int ra, rb;
        while ((ra = hs_trace_next(ca, &ea, &e)) == 1) {
            rb = hs_trace_next(cb, &eb, &e);
            assert_int_equal(rb, 1);
            assert_event_equal(&eb, &ea);
            total++;
        }
        assert_int_equal(ra, 0);
        assert_int_equal(hs_trace_next(cb, &eb, &e), 0);
        hs_trace_cursor_close(ca);
        hs_trace_cursor_close(cb);
    }
    hs_trace_close(ta);
    hs_trace_close(tb);
    return total;
}
#endif

/* The synthetic job (every kind, lists, ANY_SOURCE, cancelled and PROC_NULL
 * completions, a second thread, a communicator of one rank) exported to OTF2
 * and imported back is the same job, event for event; imported --plain it
 * is a readable trace of as many events; bad paths are errors. */
static void test_otf2_roundtrip(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    char job[600], ar[600], back[600], plain[600];
    snprintf(job, sizeof job, "%s/job", dir);
    snprintf(ar, sizeof ar, "%s/archive", dir);
    snprintf(back, sizeof back, "%s/back", dir);
    snprintf(plain, sizeof plain, "%s/plain", dir);
    assert_int_equal(mkdir(job, 0755), 0);
    size_t counts[NR];
    write_job(job, 3, counts);
    hs_error e;
    hs_otf2_report rep;
    int rc = hs_trace_export_otf2(job, ar, &rep, &e);
#if HS_HAVE_OTF2
    if (rc)
        fail_msg("export: %s", e.msg);
    assert_int_equal(rep.nranks, NR);
    assert_int_equal(rep.nthreads, 2 * NR);
    assert_true(rep.events == counts[0] + counts[1] + counts[2]);
    if ((rc = hs_trace_import_otf2(ar, back, 0, &rep, &e)))
        fail_msg("import: %s", e.msg);
    assert_true(rep.hopscope_archive);
    assert_true(rep.events == counts[0] + counts[1] + counts[2]);
    assert_true(rep.made_events == 0 && rep.stray_records == 0 && rep.unfinished == 0);
    assert_true(assert_traces_equal(job, back) == rep.events);
    if ((rc = hs_trace_import_otf2(ar, plain, HS_OTF2_PLAIN, &rep, &e)))
        fail_msg("plain import: %s", e.msg);
    assert_true(rep.events == counts[0] + counts[1] + counts[2]);
    hs_trace *t;
    assert_int_equal(hs_trace_open(plain, &t, &e), 0);
    hs_trace_stats *st;
    assert_int_equal(hs_trace_stats_compute(t, &st, &e), 0);
    assert_true(st->total.events == rep.events);
    assert_true(st->total.monitored == 0);   /* OTF2 has no in-band field */
    hs_trace_stats_free(st);
    hs_trace_close(t);
    /* over an existing archive; a missing archive; a missing trace */
    assert_int_equal(hs_trace_export_otf2(job, ar, NULL, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "exists"));
    snprintf(plain, sizeof plain, "%s/none.otf2", dir);
    assert_int_equal(hs_trace_import_otf2(plain, back, 0, NULL, &e), HS_ENOENT);
    snprintf(plain, sizeof plain, "%s/none", dir);
    assert_int_equal(hs_trace_export_otf2(plain, back, NULL, &e), HS_ENOENT);
#else
    assert_int_equal(rc, HS_ENOTSUP);
    assert_non_null(strstr(e.msg, "libotf2-trace-dev"));
    assert_int_equal(hs_trace_import_otf2(ar, back, 0, NULL, &e), HS_ENOTSUP);
    (void)plain;
#endif
    rm_rf(dir);
    free(dir);
}

#if HS_HAVE_OTF2
/* An intercommunicator between {0,1} and {2,3} (ids differ per side as
 * each side records its own local group first), a send across it and a
 * rooted collective on it: through OTF2 and back unchanged, and the plain
 * import (OTF2 records only) has the send's peer as a world rank. */
static void test_otf2_intercomm(void **state)
{
    (void)state;
    char *dir = test_tmpdir("trace");
    char job[600], ar[600], back[600], plain[600];
    snprintf(job, sizeof job, "%s/job", dir);
    snprintf(ar, sizeof ar, "%s/archive", dir);
    snprintf(back, sizeof back, "%s/back", dir);
    snprintf(plain, sizeof plain, "%s/plain", dir);
    assert_int_equal(mkdir(job, 0755), 0);
    write_manifest(job, 4, 2);
    hs_error e;
    const uint64_t IC = 0xabc0ull;
    for (uint32_t r = 0; r < 4; r++) {
        hs_trace_writer *w;
        assert_int_equal(hs_trace_writer_open(&w, job, r, 4, &e), 0);
        int32_t lo[2] = { 0, 1 }, hi[2] = { 2, 3 };
        hs_trace_event ev;
        hs_trace_event_init(&ev, HS_TRACE_COMM_CREATE);
        ev.t_start = 100;
        ev.t_end = 200;
        ev.comm = IC;
        ev.comm2 = HS_TRACE_COMM_WORLD;
        ev.tag = HS_TRACE_CTOR_INTERCOMM_CREATE;
        ev.members = r < 2 ? lo : hi;
        ev.nmembers = 2;
        ev.remote = r < 2 ? hi : lo;
        ev.nremote = 2;
        if (hs_trace_writer_event(w, &ev, &e))
            fail_msg("%s", e.msg);
        hs_trace_event_init(&ev, r < 2 ? HS_TRACE_SEND : HS_TRACE_RECV);
        ev.t_start = 300;
        ev.t_end = 400;
        ev.comm = IC;
        ev.peer = (int32_t)((r + 2) % 4);   /* world rank across */
        ev.tag = 5;
        ev.bytes = 64;
        if (r >= 2) {
            ev.peer2 = ev.peer;
            ev.tag2 = 5;
            ev.bytes2 = 64;
        }
        assert_int_equal(hs_trace_writer_event(w, &ev, &e), 0);
        assert_int_equal(hs_trace_writer_close(w, &e), 0);
    }
    if (hs_trace_export_otf2(job, ar, NULL, &e))
        fail_msg("export: %s", e.msg);
    if (hs_trace_import_otf2(ar, back, 0, NULL, &e))
        fail_msg("import: %s", e.msg);
    assert_true(assert_traces_equal(job, back) == 8);
    if (hs_trace_import_otf2(ar, plain, HS_OTF2_PLAIN, NULL, &e))
        fail_msg("plain import: %s", e.msg);
    hs_trace *t;
    assert_int_equal(hs_trace_open(plain, &t, &e), 0);
    for (uint32_t r = 0; r < 4; r++) {
        hs_trace_cursor *c;
        hs_trace_event ev;
        assert_int_equal(hs_trace_cursor_open(t, r, &c, &e), 0);
        assert_int_equal(hs_trace_next(c, &ev, &e), 1);
        assert_int_equal(ev.kind, HS_TRACE_COMM_CREATE);
        assert_int_equal(ev.nmembers, 2);
        assert_int_equal(ev.members[0], r < 2 ? 0 : 2);
        assert_int_equal(ev.nremote, 2);
        assert_int_equal(ev.remote[0], r < 2 ? 2 : 0);
        assert_int_equal(hs_trace_next(c, &ev, &e), 1);
        assert_int_equal(ev.kind, r < 2 ? HS_TRACE_SEND : HS_TRACE_RECV);
        assert_int_equal(ev.peer, (int32_t)((r + 2) % 4));
        assert_true(ev.bytes == 64);
        hs_trace_cursor_close(c);
    }
    hs_trace_close(t);
    rm_rf(dir);
    free(dir);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint),
        cmocka_unit_test(test_adler32),
        cmocka_unit_test(test_block_zlib_streams),
        cmocka_unit_test(test_block_stored_times),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_monitored),
        cmocka_unit_test(test_manifest_roundtrip),
        cmocka_unit_test(test_manifest_errors),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_encode_fast_shapes),
        cmocka_unit_test(test_encode_wire_kinds),
        cmocka_unit_test(test_encode_wire_opdone),
        cmocka_unit_test(test_otf2_roundtrip),
#if HS_HAVE_OTF2
        cmocka_unit_test(test_otf2_intercomm),
#endif
        cmocka_unit_test(test_writer_rejects),
        cmocka_unit_test(test_times_checked),
        cmocka_unit_test(test_writer_refuses_times),
        cmocka_unit_test(test_stats_ring),
        cmocka_unit_test(test_stats_init_apart),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_fuzz_decoder),
        cmocka_unit_test(test_fuzz_manifest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
