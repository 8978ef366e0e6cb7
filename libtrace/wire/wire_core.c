/* libtrace/wire/wire_core.c — the wire file writer of libhopscope-wire.so:
 * per-thread raw buffers, the request table, the file wire-NNNNNN.hst.
 *
 * The file is a rank file in all but name (docs/formats.md, "Wire files"):
 * the same 64-byte header (clock, shift and tick rate of the rank file), the
 * MPI_Init clock record copied from libhopscope.so, event blocks built by
 * the same encoder, a finalize clock record and an end record written from
 * libhopscope.so's end hook.  Blocks carry the writer-thread index that the
 * same thread has in the rank file, so a reader can find the MPI call in
 * progress when an operation was posted.
 *
 * Events are buffered from the library's load on (worker addresses and
 * endpoints are created inside MPI_Init, before the MPI level starts
 * recording); nothing is written before MPI_Init returns, and a buffer that
 * fills up before then drops what does not fit (counted in the end record). */
#include "wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

HS__WHIDDEN __thread hs__wtls hs__wt __attribute__((tls_model("initial-exec")));
HS__WHIDDEN const hs__wire_host *hs__wh;
HS__WHIDDEN _Atomic int hs__wire_on;
HS__WHIDDEN int hs__wire_proto;

/* A thread without an MPI-level writer index yet gets a provisional one
 * from here up (never an index of the rank file), replaced by the real one
 * as soon as libhopscope.so has it. */
#define PROVISIONAL_THREAD 0x8000u
#define WIRE_BUF_BYTES (1u << 20)
/* A block's structure stream ends before 64000 bytes: zlib's 64 KiB window
 * then never slides within a block (sliding rescans its hash tables: with
 * blocks of 180 KB it was 2/3 of the cost of deflate, callgrind), and
 * every block starts from a reset state anyway. */
#define WIRE_BLOCK_STRUCT 64000u
/* Where this thread's last OPRING operations were written in its buffer
 * (by op counter), so that a completion seen on the posting thread can be
 * put into the operation's record (HS__WIRE_OPDONE) instead of a record of
 * its own.  An entry is a hint, checked against the record found there. */
#define OPRING 256u

struct hs__wbuf {
    uint8_t *raw;
    size_t cap, used;
    uint16_t thread;
    int thread_final;
    uint32_t serial;           /* op ids: serial << 40 | counter */
    uint64_t next_op;
    uint64_t last_flush;       /* tick */
    _Atomic int busy;
    int closed;
    uint64_t dropped;
    uint64_t tlast;            /* start of the last record of this thread */
    /* the current run of ucp_worker_progress calls (prog_calls 0: none) */
    uint64_t prog_t0, prog_t1, prog_calls, prog_useful, prog_ticks;
    uint32_t opoff[OPRING];    /* byte offset of op counter k's record, at k % OPRING */
    uint8_t *enc, *tenc, *out;
    size_t enc_cap, tenc_cap, out_cap;
    z_stream zs, zt;
    int zinit;
    hs__wbuf *next_all;
};

/* The request table (below) takes no lock: *hs__wh->serial, copied here
 * when a thread's buffer learns its writer index (after MPI_Init; read
 * through the host table on every lookup it cost more than the lock). */
static int req_nolock;
static _Atomic(hs__wbuf *) all_bufs;
static _Atomic uint32_t nbufs;
static pthread_key_t buf_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static int fd = -1;
static atomic_flag file_lock_flag = ATOMIC_FLAG_INIT;
static uint32_t blk_seq;
static uint64_t events_total, dropped_total;
static z_stream zmeta, zmeta_t;
static int zmeta_init, file_failed;

static void wwarn(const char *msg);

/* The real function: the next definition after this library, or, when
 * UCX was loaded into a local scope (an MPI component opened with
 * RTLD_LOCAL, which RTLD_NEXT does not search), libucp's own.  Never NULL:
 * a wrapper runs only when its caller links UCP, so a miss means a broken
 * installation, and aborting says so instead of jumping to address 0. */
void *hs__wresolve_in(const char *name, const char *lib)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            h = dlopen(lib, RTLD_LAZY);
        if (h)
            p = dlsym(h, name);
    }
    if (!p) {
        char m[200];
        snprintf(m, sizeof m, "cannot find the real %s (%s); aborting", name, lib);
        wwarn(m);
        abort();
    }
    return p;
}

void *hs__wresolve(const char *name)
{
    return hs__wresolve_in(name, "libucp.so.0");
}

static void wwarn(const char *msg)
{
    char line[512];
    int n = snprintf(line, sizeof line, "hopscope-wire: %s\n", msg);
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* ---- the file ------------------------------------------------------------------ */

static int lock_file(int in_signal)
{
    for (unsigned spins = 0; atomic_flag_test_and_set_explicit(&file_lock_flag,
                                                                memory_order_acquire);
         spins++) {
        if (in_signal && spins > 1000000)
            return -1;
        sched_yield();
    }
    return 0;
}
static void unlock_file(void)
{
    atomic_flag_clear_explicit(&file_lock_flag, memory_order_release);
}

static int append(hs__blk_hdr *h, uint8_t *blk, size_t len)
{
    h->seq = blk_seq++;
    hs__blk_hdr_pack(h, blk);
    return hs__write_all(fd, blk, len);
}

static int meta_block(int type, const uint8_t *pay, size_t len)
{
    uint8_t blk[HS__BLK_HDR_LEN + 256];
    hs__blk_hdr h = { .type = (uint8_t)type, .sync_tick = hs__wnow(), .sync_ns = hs__wmono() };
    size_t n;
    if (hs__block_build(&zmeta, &zmeta_t, &h, pay, len, NULL, 0, blk, sizeof blk, &n))
        return -1;
    return append(&h, blk, n);
}

/* Opens wire-NNNNNN.hst with its header and the MPI_Init clock record;
 * under the file lock.  0, or -1 (recording stops). */
static int open_file(void)
{
    if (fd >= 0)
        return 0;
    if (file_failed || !hs__wh->dir[0])
        return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/" HS__WIRE_FILE_FMT, hs__wh->dir, (unsigned)*hs__wh->rank);
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (f < 0 || hs__deflate_init(&zmeta, &zmeta_t, 1, 0) != 0) {
        if (f >= 0)
            close(f);
        file_failed = 1;
        wwarn("cannot create the wire file; recording below MPI stops");
        return -1;
    }
    zmeta_init = 1;
    fd = f;
    hs__file_hdr fh = { .version = HS_TRACE_FORMAT_VERSION, .rank = (uint32_t)*hs__wh->rank,
                        .nranks = (uint32_t)*hs__wh->size,
                        .clock = hs__wh->use_tsc ? HS__CLOCK_TSC : HS__CLOCK_MONO,
                        .shift = *hs__wh->shift, .pid = (uint32_t)getpid(),
                        .tick_hz = *hs__wh->tick_hz };
    uint8_t hdr[HS__FILE_HDR_LEN], pay[64];
    hs__file_hdr_pack(&fh, hdr);
    if (hs__write_all(fd, hdr, sizeof hdr) ||
        meta_block(HS__BLK_CLOCK, pay, hs__clock_rec_encode(hs__wh->clk0, pay))) {
        file_failed = 1;
        return -1;
    }
    return 0;
}

static int write_buf(hs__wbuf *b, int in_signal)
{
    if (!b->zinit) {
        if (in_signal || hs__deflate_init(&b->zs, &b->zt, *hs__wh->zlevel, *hs__wh->tzlevel))
            return -1;
        b->zinit = 1;
    }
    size_t off = 0;
    while (off < b->used) {
        size_t sl, tl, blen;
        uint32_t n;
        hs__blk_hdr h = { .type = HS__BLK_EVENTS, .thread = b->thread };
        if (hs__encode(b->raw, b->used, &off, *hs__wh->rank, *hs__wh->shift, b->enc,
                       b->enc_cap < WIRE_BLOCK_STRUCT ? b->enc_cap : WIRE_BLOCK_STRUCT, &sl,
                       b->tenc, b->tenc_cap, &tl, &n, &h.base) != 0)
            return -1;
        h.nevents = n;
        h.sync_tick = hs__wnow();
        h.sync_ns = hs__wmono();
        if (hs__block_build(&b->zs, &b->zt, &h, b->enc, sl, b->tenc, tl, b->out, b->out_cap,
                            &blen) != 0)
            return -1;
        if (lock_file(in_signal))
            return -1;
        int rc = open_file();
        if (rc == 0)
            rc = append(&h, b->out, blen);
        unlock_file();
        if (rc)
            return -1;
        __atomic_fetch_add(&events_total, n, __ATOMIC_RELAXED);
    }
    return 0;
}

static void prog_emit(hs__wbuf *b, uint64_t now);

static void stop(const char *why)
{
    if (atomic_exchange(&hs__wire_on, 0))
        wwarn(why);
}

/* Writes b's events (the MPI level must have started).  The caller is b's
 * thread, or the end path. */
static void flush_buf(hs__wbuf *b, int in_signal)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&b->busy, &expect, 1))
        return;
    if (b->used && write_buf(b, in_signal))
        stop("cannot write the wire file; recording below MPI stops");
    b->used = 0;
    b->last_flush = hs__wnow();
    atomic_store(&b->busy, 0);
}

/* The MPI level has its trace open (its setup in MPI_Init is over: rank,
 * clock, directory and the init clock record are set), or ours is. */
static inline int ready(void)
{
    return fd >= 0 || (atomic_load_explicit(hs__wh->active, memory_order_relaxed) &&
                       !*hs__wh->finished);
}

static void retire(void *arg)
{
    hs__wbuf *b = arg;
    if (b && ready() && atomic_load(&hs__wire_on)) {
        if (b == hs__wt.buf)
            prog_emit(b, 0);
        flush_buf(b, 0);
    }
}

static void make_key(void)
{
    pthread_key_create(&buf_key, retire);
}

static hs__wbuf *buf_new(void)
{
    hs__wbuf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->cap = WIRE_BUF_BYTES;
    b->enc_cap = hs__enc_bound(b->cap);
    b->tenc_cap = hs__enc_time_bound(b->cap);
    b->out_cap = hs__block_bound(b->enc_cap, b->tenc_cap);
    b->raw = malloc(b->cap);
    b->enc = malloc(b->enc_cap);
    b->tenc = malloc(b->tenc_cap);
    b->out = malloc(b->out_cap);
    if (!b->raw || !b->enc || !b->tenc || !b->out) {
        free(b->raw);
        free(b->enc);
        free(b->tenc);
        free(b->out);
        free(b);
        return NULL;
    }
    b->serial = atomic_fetch_add(&nbufs, 1);
    b->thread = (uint16_t)(PROVISIONAL_THREAD + (b->serial & 0x7fff));
    b->last_flush = hs__wnow();
    pthread_once(&key_once, make_key);
    pthread_setspecific(buf_key, b);
    hs__wbuf *head = atomic_load(&all_bufs);
    do
        b->next_all = head;
    while (!atomic_compare_exchange_weak(&all_bufs, &head, b));
    return b;
}

static hs__rec *reserve_in(hs__wbuf *b);
static void commit(hs__rec *r);

/* Writes the thread's pending run of progress calls (before any other
 * record of the thread, so that records stay in start order).  now: the
 * time of the record about to be written, or 0 (read here if needed). */
static void prog_emit(hs__wbuf *b, uint64_t now)
{
    if (hs__wt.poll_t0 && !hs__wt.poll_split) {
        /* A record is written from inside a progress call (a completion
         * callback): that call ends the run here, counted as having made
         * progress; the rest of it, after this record, is not timed. */
        if (!now)
            now = hs__wnow();
        uint64_t e0 = hs__wt.poll_t0 > b->tlast ? hs__wt.poll_t0 : b->tlast;
        if (!b->prog_calls) {
            b->prog_t0 = e0;
            b->prog_useful = b->prog_ticks = 0;
        }
        b->prog_calls++;
        b->prog_useful++;
        b->prog_ticks += now > e0 ? now - e0 : 0;
        b->prog_t1 = now;
        hs__wt.poll_split = 1;
    }
    if (!b->prog_calls)
        return;
    uint64_t calls = b->prog_calls;
    b->prog_calls = 0;
    hs__rec *r = reserve_in(b);
    if (!r)
        return;
    r->kind = HS_TRACE_WIRE_PROGRESS;
    r->flags = 0;
    r->t0 = b->prog_t0;
    r->t1 = b->prog_t1;
    r->bytes = calls;
    r->bytes2 = b->prog_ticks;   /* clock ticks; the reader gives ns */
    r->aux = b->prog_useful;
    commit(r);
}

/* One ucp_worker_progress call from t0 to t1 that returned n. */
void hs__wire_progress(uint64_t t0, uint64_t t1, unsigned n)
{
    if (hs__wt.poll_split) {   /* counted when a callback inside it wrote a record */
        hs__wt.poll_split = 0;
        return;
    }
    hs__wbuf *b = hs__wt.buf;
    if (hs__wunlikely(!b) && !(b = hs__wt.buf = buf_new()))
        return;
    if (b->closed)
        return;
    uint64_t e0 = t0 > b->tlast ? t0 : b->tlast;   /* never before the last record */
    if (!b->prog_calls) {
        b->prog_t0 = e0;
        b->prog_useful = b->prog_ticks = 0;
    }
    b->prog_calls++;
    b->prog_useful += n != 0;
    b->prog_ticks += t1 > e0 ? t1 - e0 : 0;
    b->prog_t1 = t1;
    if (hs__wunlikely(t1 - b->last_flush > *hs__wh->flush_ticks) && ready()) {
        prog_emit(b, t1);
        flush_buf(b, 0);
    }
}

/* Room for one record in this thread's buffer, or NULL (dropped); a
 * pending run of progress calls is written first.  t: the record's time
 * (ends a progress call it is written from). */
static hs__rec *reserve(uint64_t t)
{
    hs__wbuf *b = hs__wt.buf;
    if (hs__wunlikely(!b)) {
        if (!(b = hs__wt.buf = buf_new())) {
            __atomic_fetch_add(&dropped_total, 1, __ATOMIC_RELAXED);
            return NULL;
        }
    }
    if (hs__wunlikely(b->prog_calls != 0 || hs__wt.poll_t0 != 0))
        prog_emit(b, t);
    return reserve_in(b);
}

static hs__rec *reserve_in(hs__wbuf *b)
{
    if (b->closed)
        return NULL;
    int started = ready();
    if (hs__wunlikely(!b->thread_final) && started) {
        int t = hs__wh->thread();
        req_nolock = *hs__wh->serial;   /* set by now: MPI_Init is over */
        if (t >= 0) {
            if (b->used && (uint16_t)t != b->thread)
                flush_buf(b, 0);
            b->thread = (uint16_t)t;
            b->thread_final = 1;
        }
    }
    if (hs__wunlikely(b->used + sizeof(hs__rec) > b->cap)) {
        if (started)
            flush_buf(b, 0);
        if (b->used + sizeof(hs__rec) > b->cap) {
            b->dropped++;
            __atomic_fetch_add(&dropped_total, 1, __ATOMIC_RELAXED);
            return NULL;
        }
    }
    /* Only what the encoder reads for wire kinds (their fields, lists,
     * repeat) is set: the other fields of a raw record are never looked at. */
    hs__rec *r = (hs__rec *)(b->raw + b->used);
    r->repeat = 1;
    r->na = r->nb = 0;
    return r;
}

static void commit(hs__rec *r)
{
    hs__wbuf *b = hs__wt.buf;
    b->used += sizeof *r;
    b->tlast = r->t0;
    /* The next record's lines, for writing: the buffer is larger than L2,
     * so they are usually not cached, and a store that misses holds up
     * every locked instruction after it (ours, UCP's spin locks) until the
     * line arrives; fetched now, they arrive during the application's own
     * work.  (Past the end of the buffer: harmless, a prefetch never
     * faults.) */
    __builtin_prefetch(b->raw + b->used + sizeof *r, 1, 3);
    __builtin_prefetch(b->raw + b->used + sizeof *r + 64, 1, 3);
    if (hs__wunlikely(r->t1 - b->last_flush > *hs__wh->flush_ticks) && ready())
        flush_buf(b, 0);
}

/* ---- records -------------------------------------------------------------------- */

static int recording(void)
{
    return hs__wh && atomic_load_explicit(&hs__wire_on, memory_order_relaxed);
}

uint64_t hs__wire_newid(void)
{
    hs__wbuf *b = hs__wt.buf;
    if (hs__wunlikely(!b) && !(b = hs__wt.buf = buf_new()))
        return 0;
    return (uint64_t)b->serial << 40 | ++b->next_op;
}

uint64_t hs__wire_op(int op, uint64_t t0, uint64_t t1, uint32_t flags, uint64_t bytes,
                     uint64_t tag, uint64_t peer_hash, uint64_t id)
{
    if (!recording())
        return 0;
    if (t0 == HS__WPOST)
        t0 = t1;
    hs__wt.last_t = t1;
    hs__rec *r = reserve(t1);
    if (!r)
        return 0;
    hs__wbuf *b = hs__wt.buf;
    if (!id)
        id = (uint64_t)b->serial << 40 | ++b->next_op;
    r->kind = HS_TRACE_WIRE_OP;
    r->t0 = t0;
    r->t1 = t1;
    r->flags = flags;
    r->tag2 = op;
    r->bytes = bytes;
    r->bytes2 = tag;
    r->req = id;
    r->aux = peer_hash;
    b->opoff[id % OPRING] = (uint32_t)((uint8_t *)r - b->raw);
    commit(r);
    return id;
}

/* The completion of operation id into the operation's own record, when
 * this thread posted it and the record is still in the thread's buffer
 * (not yet encoded): one record per operation instead of two.  1 when
 * done.  The thread's pending run of progress calls is written first, as
 * before a record of its own, so the runs are cut as they were. */
static int merge_done(hs__wbuf *b, uint64_t id, const hs__wdone *d)
{
    if ((id >> 40) != b->serial || b->closed)
        return 0;
    if (hs__wunlikely(b->prog_calls != 0 || hs__wt.poll_t0 != 0))
        prog_emit(b, d->t);
    size_t off = b->opoff[id % OPRING];
    hs__rec *r = (hs__rec *)(b->raw + off);
    if (off + sizeof *r > b->used || r->kind != HS_TRACE_WIRE_OP || r->req != id ||
        atomic_load_explicit(&b->busy, memory_order_relaxed))
        return 0;
    r->done_t = d->t > r->t1 ? d->t : r->t1;
    r->done_flags = (uint16_t)(d->flags & HS_TRACE_F_ALL);
    r->done_bytes = d->bytes;
    r->done_stag = d->stag;
    r->kind = HS__WIRE_OPDONE;
    b->tlast = d->t;
    if (hs__wunlikely(d->t - b->last_flush > *hs__wh->flush_ticks) && ready())
        flush_buf(b, 0);
    return 1;
}

static void write_done(uint64_t id, const hs__wdone *d)
{
    hs__wbuf *b = hs__wt.buf;
    if (hs__wlikely(b != NULL) && merge_done(b, id, d))
        return;
    hs__rec *r = reserve(d->t);
    if (!r)
        return;
    r->kind = HS_TRACE_WIRE_DONE;
    r->t0 = r->t1 = d->t;
    r->flags = d->flags;
    r->req = id;
    r->bytes = d->bytes;
    r->bytes2 = d->stag;
    commit(r);
}

void hs__wire_done(uint64_t id, const hs__wdone *d)
{
    if (!id || !recording())
        return;
    if (hs__wt.depth) {   /* inside a wrapper's real call: after its event */
        if (hs__wt.ndefer < HS__WDEFER) {
            hs__wt.defer_id[hs__wt.ndefer] = id;
            hs__wt.defer[hs__wt.ndefer++] = *d;
        } else {
            __atomic_fetch_add(&dropped_total, 1, __ATOMIC_RELAXED);
        }
        return;
    }
    write_done(id, d);
}

void hs__wire_deferred(void)
{
    int n = hs__wt.ndefer;
    hs__wt.ndefer = 0;
    if (recording())
        for (int i = 0; i < n; i++) {
            /* inside the posting call: not before that operation's stamp */
            if (hs__wt.defer[i].t < hs__wt.last_t)
                hs__wt.defer[i].t = hs__wt.last_t;
            write_done(hs__wt.defer_id[i], &hs__wt.defer[i]);
        }
}

void hs__wire_worker(uint64_t t, uint64_t hash, uint64_t len)
{
    if (!recording())
        return;
    hs__rec *r = reserve(t);
    if (!r)
        return;
    r->kind = HS_TRACE_WIRE_WORKER;
    r->flags = 0;
    r->t0 = r->t1 = t;
    r->aux = hash;
    r->bytes = len;
    commit(r);
}

void hs__wire_ep(uint64_t t0, uint64_t t1, uint64_t hash)
{
    if (!recording())
        return;
    hs__rec *r = reserve(t1);
    if (!r)
        return;
    r->kind = HS_TRACE_WIRE_EP;
    r->flags = 0;
    r->t0 = t0;
    r->t1 = t1;
    r->aux = hash;
    commit(r);
}

/* ---- pending requests -------------------------------------------------------------- */

/* Open addressing with backward-shift deletion.  Changes (an operation
 * returned a request, a tracked request completed or was released) take a
 * spin lock; lookups that find nothing, the common case of a status check
 * or a release after the completion was already written, take no lock: a
 * sequence count, odd while a change is being made, tells a reader that
 * its probe may have missed a key being moved, and it looks again under
 * the lock.  A full table leaves requests untracked (no WIRE_DONE).  Under
 * a serialised MPI (req_nolock) there is neither lock nor count. */
#define REQ_SLOTS (1u << 16)
#define REQ_PROBE 64
typedef struct reqent {
    void *key;           /* read without the lock: __atomic accesses only */
    uint64_t id;
    int early;           /* completed before the posting call returned */
    int cb;              /* a trampoline will report the completion, even after
                            ucp_request_free (MPICH frees its requests early) */
    hs__wdone d;
} reqent;
static reqent *reqs;
static atomic_flag req_lock = ATOMIC_FLAG_INIT;
static _Atomic unsigned req_seq;

static inline size_t req_home(void *p)
{
    return (size_t)(hs__mix64((uint64_t)(uintptr_t)p) & (REQ_SLOTS - 1));
}
static inline void *key_at(size_t i)
{
    return __atomic_load_n(&reqs[i].key, __ATOMIC_RELAXED);
}
static inline void key_set(size_t i, void *k)
{
    __atomic_store_n(&reqs[i].key, k, __ATOMIC_RELAXED);
}
/* Takes the lock unless MPI is serialised (wire_host.h: hs__wh->serial,
 * set once MPI_Init returned a thread level below MPI_THREAD_MULTIPLE,
 * before which it is 0): then one thread at a time is in here, and the
 * lock's locked instruction, which waits for every store before it to
 * reach the cache (after an 8 KiB send, UCP's copy), was a sixth of the
 * capture's cost per call (bench/wire_overhead.sh, docs/performance.md).
 * Returns what runlock takes: whether the lock was taken. */
static inline __attribute__((always_inline)) void rlock(int locked)
{
    if (!locked)
        return;
    while (atomic_flag_test_and_set_explicit(&req_lock, memory_order_acquire))
        ;
    /* odd: keys may move (the fence orders this before the changes) */
    atomic_store_explicit(&req_seq, atomic_load_explicit(&req_seq, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}
static inline __attribute__((always_inline)) void runlock(int locked)
{
    if (!locked)
        return;
    atomic_store_explicit(&req_seq, atomic_load_explicit(&req_seq, memory_order_relaxed) + 1,
                          memory_order_release);
    atomic_flag_clear_explicit(&req_lock, memory_order_release);
}
/* Slot of key, or of the empty slot where it would go; SIZE_MAX when the
 * probe limit is reached. */
static size_t req_find(void *key)
{
    size_t i = req_home(key);
    for (unsigned k = 0; k < REQ_PROBE; k++, i = (i + 1) & (REQ_SLOTS - 1)) {
        void *c = key_at(i);
        if (c == key || c == NULL)
            return i;
    }
    return SIZE_MAX;
}
/* Without the lock: 1 when key is (or may be) in the table, 0 when it is
 * certainly not. */
static int req_maybe(void *key)
{
    unsigned s0 = atomic_load_explicit(&req_seq, memory_order_acquire);
    if (s0 & 1)
        return 1;
    size_t i = req_find(key);
    int in = i == SIZE_MAX || key_at(i) == key;
    atomic_thread_fence(memory_order_acquire);
    return in || atomic_load_explicit(&req_seq, memory_order_relaxed) != s0;
}
static void req_del(size_t i)
{
    key_set(i, NULL);
    size_t j = i;
    for (;;) {
        j = (j + 1) & (REQ_SLOTS - 1);
        void *kj = key_at(j);
        if (!kj)
            return;
        size_t h = req_home(kj);
        /* Move j back to i when its home is not in (i, j]. */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            reqs[i].id = reqs[j].id;
            reqs[i].early = reqs[j].early;
            reqs[i].cb = reqs[j].cb;
            reqs[i].d = reqs[j].d;
            key_set(i, kj);
            key_set(j, NULL);
            i = j;
        }
    }
}

static inline __attribute__((always_inline)) void wreq_add(void *req, uint64_t id, int cb, int lk)
{
    rlock(lk);
    size_t i = req_find(req);
    if (i == SIZE_MAX) {
        runlock(lk);
        return;
    }
    if (key_at(i) == req && reqs[i].early) {
        hs__wdone d = reqs[i].d;
        req_del(i);
        runlock(lk);
        if (d.t < hs__wt.last_t)   /* within the posting call: its stamp */
            d.t = hs__wt.last_t;
        hs__wire_done(id, &d);
        return;
    }
    reqs[i].id = id;
    reqs[i].early = 0;
    reqs[i].cb = cb;
    key_set(i, req);
    runlock(lk);
}

static inline __attribute__((always_inline)) void wreq_done(void *req, hs__wdone *d, int lk)
{
    int depth = hs__wt.depth;
    /* not tracked, and no posting call of this thread running that could
     * still add it: nothing to record, and no clock to read */
    if (!depth && !req_maybe(req))
        return;
    rlock(lk);
    size_t i = req_find(req);
    if (i == SIZE_MAX) {
        runlock(lk);
        return;
    }
    if (key_at(i) == req && !reqs[i].early) {
        uint64_t id = reqs[i].id;
        req_del(i);
        runlock(lk);
        /* Inside a wrapper's real call the completion is written with that
         * call's stamp (hs__wire_deferred), read when it returns: no clock
         * here.  Otherwise one reading, now that it is known to be needed. */
        if (!d->t && !depth)
            d->t = hs__wnow();
        hs__wire_done(id, d);
        return;
    }
    if (!key_at(i) && depth) {   /* the posting call has not returned yet */
        reqs[i].id = 0;
        reqs[i].early = 1;
        reqs[i].cb = 0;
        reqs[i].d = *d;
        key_set(i, req);
    }
    runlock(lk);
}

static inline __attribute__((always_inline)) void wreq_forget(void *req, int lk)
{
    if (!req_maybe(req))
        return;
    rlock(lk);
    size_t i = req_find(req);
    if (i != SIZE_MAX && key_at(i) == req && !reqs[i].cb)
        req_del(i);
    runlock(lk);
}

/* Each in two copies, with and without the lock (req_nolock): the copy
 * without has no trace of it (with the choice made inside, the unlocked
 * path measured as slow as the locked one). */
void hs__wreq_add(void *req, uint64_t id, int cb)
{
    if (!reqs || !id)
        return;
    if (req_nolock)
        wreq_add(req, id, cb, 0);
    else
        wreq_add(req, id, cb, 1);
}

void hs__wreq_done(void *req, hs__wdone *d)
{
    if (!reqs || !req)
        return;
    if (req_nolock)
        wreq_done(req, d, 0);
    else
        wreq_done(req, d, 1);
}

void hs__wreq_forget(void *req)
{
    if (!reqs || !req)
        return;
    if (req_nolock)
        wreq_forget(req, 0);
    else
        wreq_forget(req, 1);
}

/* ---- start and end -------------------------------------------------------------- */

static void wire_end(int reason, int code, const hs__clock_rec *clk1, int in_signal)
{
    /* this thread's run of progress calls; other threads' runs since their
     * last record or flush are not written (their buffers are not ours) */
    if (hs__wt.buf && !in_signal && atomic_load(&hs__wire_on) && !hs__wt.buf->busy)
        prog_emit(hs__wt.buf, 0);
    if (!atomic_exchange(&hs__wire_on, 0) && fd < 0)
        return;
    for (hs__wbuf *b = atomic_load(&all_bufs); b; b = b->next_all) {
        flush_buf(b, in_signal);
        b->closed = 1;
    }
    if (lock_file(in_signal))
        return;
    if (open_file() == 0) {
        uint8_t pay[64];
        if (clk1)
            meta_block(HS__BLK_CLOCK, pay, hs__clock_rec_encode(clk1, pay));
        hs__end_rec e = { .reason = (uint32_t)reason, .code = (uint32_t)code,
                          .events = events_total, .dropped = dropped_total,
                          .blocks = blk_seq + 1u };
        meta_block(HS__BLK_END, pay, hs__end_rec_encode(&e, pay));
        close(fd);
        fd = -1;
        file_failed = 1;   /* never reopened */
    }
    unlock_file();
}

__attribute__((constructor)) static void wire_ctor(void)
{
    hs__wire_host_fn fn = (hs__wire_host_fn)dlsym(RTLD_DEFAULT, HS__WIRE_HOST_SYM);
    if (!fn)
        return;   /* without libhopscope.so: forward only */
    const hs__wire_host *h = fn();
    if (!h || h->size_of != sizeof *h) {
        wwarn("libhopscope.so and libhopscope-wire.so are from different builds; "
              "not recording below MPI");
        return;
    }
    const char *dis = getenv("HOPSCOPE_DISABLE");
    if (dis && *dis && strcmp(dis, "0") != 0)
        return;
    reqent *rt = calloc(REQ_SLOTS, sizeof *rt);
    if (!rt)
        return;
    const char *proto = getenv("HOPSCOPE_WIRE_PROTOCOL");
    hs__wire_proto = proto && *proto && strcmp(proto, "0") != 0;
    hs__wh = h;
    reqs = rt;   /* after hs__wh: the table's users read hs__wh->serial */
    *h->end_hook = wire_end;
    atomic_store(&hs__wire_on, 1);
}
