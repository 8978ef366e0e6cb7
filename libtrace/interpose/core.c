/* libhopscope.so core: settings, clock, per-thread buffers and their flushing,
 * start (inside MPI_Init) and end (MPI_Finalize, exit, MPI_Abort, signals).
 *
 * Buffers: each thread owns one; only the owner appends.  A flush takes the
 * buffer's busy flag (compare-and-swap), so a flush from a signal handler or
 * an exit handler on another thread never races with the owner's own flush;
 * whoever loses simply does not flush (the owner then drops the event and
 * counts it).  Blocks are deflated outside any lock; only assigning the block
 * sequence number and the write() itself happen under file_lock, a spin lock
 * that a signal handler can try without deadlocking on its own thread. */
#include "interpose.h"

#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

HS__HIDDEN hs__global hs__g = { .fd = -1, .file_lock = ATOMIC_FLAG_INIT };
HS__HIDDEN __thread hs__tls hs__t HS__TLS;

/* Defaults of the HOPSCOPE_* settings (documented in README and
 * `hopscope help record`). */
#define DEF_BUFFER        (512u << 10)  /* raw bytes per thread */
#define MIN_BUFFER        (64u << 10)
#define DEF_FLUSH_SECONDS 1.0
#define DEF_ZLEVEL        1             /* deflate level of the structure: fastest */
#define DEF_TIME_ZLEVEL   0             /* times stored: see hs__deflate_init */
#define ENC_CHUNK         (128u << 10)  /* encoded bytes per block, at least */
#define SYNC_ROUNDS       5             /* ping-pongs per rank for the clock offset */
#define SYNC_TAG          0x4853        /* clock_sync's messages */
#define HOST_LEN          64
#define START_STATIC_RANKS 256          /* start-up table without malloc, up to this */
#define FILE_LOCK_SPINS   (1u << 22)    /* give up a contended lock in a signal handler */

static pthread_key_t tls_key;
static void at_exit(void);
static uint64_t ctor_tick, ctor_ns;   /* for the tick frequency estimate */
static int ctor_done;

/* ---- messages ------------------------------------------------------------- */

void hs__warn(const char *fmt, ...)
{
    char buf[600];
    int n = snprintf(buf, sizeof buf, "hopscope[%d]: ", hs__g.started ? hs__g.rank : -1);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m > 0 ? (size_t)m : 0);
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
}

void *hs__resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        hs__warn("the MPI library has no %s: libhopscope.so (built for %s) does not match "
                 "the application's MPI; set HOPSCOPE_MPI or HOPSCOPE_LIB", name, HS_MPI_ABI);
        abort();
    }
    return p;
}


/* ---- clock ----------------------------------------------------------------- */

static int tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    /* CPUID 0x80000007 EDX bit 8: invariant TSC (constant rate, runs in
     * every C-state). */
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
        return 0;
    /* And the kernel must trust it across CPUs, or threads on different
     * cores would disagree. */
    char cs[32] = "";
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, cs, sizeof cs - 1);
    close(fd);
    return n >= 3 && strncmp(cs, "tsc", 3) == 0;
#else
    return 0;
#endif
}

/* Runs when the library is loaded: must be cheap and harmless in processes
 * that are not MPI programs (launchers, shells). */
__attribute__((constructor)) static void hs__ctor(void)
{
    hs__early_init();
}

void hs__early_init(void)
{
    if (ctor_done)
        return;
    ctor_done = 1;
    const char *dis = getenv("HOPSCOPE_DISABLE");
    hs__g.disabled = dis && *dis && strcmp(dis, "0") != 0;
    const char *clk = getenv("HOPSCOPE_CLOCK");
    if (clk && strcmp(clk, "monotonic") == 0)
        hs__g.use_tsc = 0;
    else
        hs__g.use_tsc = tsc_usable();
    ctor_ns = hs__mono_ns();
    ctor_tick = hs__now();
    atexit(at_exit);
}

/* Ticks per second from two (tick, ns) pairs at least 10 ms apart. */
static uint64_t measure_tick_hz(void)
{
    if (!hs__g.use_tsc)
        return 1000000000ull;
    uint64_t ns = hs__mono_ns(), tick = hs__now();
    while (ns - ctor_ns < 10000000ull) {
        ns = hs__mono_ns();
        tick = hs__now();
    }
    return (uint64_t)((__int128)(tick - ctor_tick) * 1000000000 / (__int128)(ns - ctor_ns));
}

/* ---- settings -------------------------------------------------------------- */

typedef struct settings {
    const char *dir;
    double rate, flush_s;
    uint64_t seed, buffer, zlevel, tzlevel;
    uint64_t nodes;
    const char *node_map;
} settings;

static void read_settings(settings *s)
{
    memset(s, 0, sizeof *s);
    s->rate = 1.0;
    s->flush_s = DEF_FLUSH_SECONDS;
    s->buffer = DEF_BUFFER;
    s->zlevel = DEF_ZLEVEL;
    s->tzlevel = DEF_TIME_ZLEVEL;
    s->node_map = "block";
    const char *v;
    int warn = hs__g.rank == 0;
    if ((v = getenv("HOPSCOPE_DIR")) && *v)
        s->dir = v;
    if ((v = getenv("HOPSCOPE_SAMPLE_RATE")) && *v) {
        double d;
        if (hs_parse_double(v, &d) == 0 && d >= 0 && d <= 1)
            s->rate = d;
        else if (warn)
            hs__warn("HOPSCOPE_SAMPLE_RATE=%s is not in [0, 1]; using 1", v);
    }
    if ((v = getenv("HOPSCOPE_SEED")) && *v && hs_parse_u64(v, &s->seed) != 0 && warn)
        hs__warn("HOPSCOPE_SEED=%s is not an integer; using 0", v);
    if ((v = getenv("HOPSCOPE_BUFFER")) && *v) {
        uint64_t b;
        if (hs_parse_size(v, &b) == 0 && b >= MIN_BUFFER && b <= (1ull << 30))
            s->buffer = b;
        else if (warn)
            hs__warn("HOPSCOPE_BUFFER=%s must be a size from 64K to 1G; using 512K", v);
    }
    if ((v = getenv("HOPSCOPE_FLUSH_INTERVAL")) && *v) {
        double d;
        if (hs_parse_double(v, &d) == 0 && d > 0 && d <= 3600)
            s->flush_s = d;
        else if (warn)
            hs__warn("HOPSCOPE_FLUSH_INTERVAL=%s is not a number of seconds in (0, 3600]; "
                     "using 1", v);
    }
    if ((v = getenv("HOPSCOPE_ZLEVEL")) && *v) {
        uint64_t z;
        if (hs_parse_u64(v, &z) == 0 && z <= 9)
            s->zlevel = z;
        else if (warn)
            hs__warn("HOPSCOPE_ZLEVEL=%s is not 0..9; using 1", v);
    }
    if ((v = getenv("HOPSCOPE_TIME_ZLEVEL")) && *v) {
        uint64_t z;
        if (hs_parse_u64(v, &z) == 0 && z <= 9)
            s->tzlevel = z;
        else if (warn)
            hs__warn("HOPSCOPE_TIME_ZLEVEL=%s is not 0..9; using 0", v);
    }
    if ((v = getenv("HOPSCOPE_NODES")) && *v) {
        if (hs_parse_u64(v, &s->nodes) != 0 || s->nodes == 0 || s->nodes > (1u << 24)) {
            if (warn)
                hs__warn("HOPSCOPE_NODES=%s is not a positive integer; using real hosts", v);
            s->nodes = 0;
        }
    }
    if ((v = getenv("HOPSCOPE_NODE_MAP")) && *v)
        s->node_map = v;
}

/* ---- file writing ------------------------------------------------------------- */

static pid_t my_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* 0 when taken; -1 when this thread already holds it (a signal handler
 * interrupted it) or it stayed busy too long. */
static int file_lock(int in_signal)
{
    pid_t me = my_tid();
    for (uint32_t i = 0; atomic_flag_test_and_set_explicit(&hs__g.file_lock,
                                                           memory_order_acquire); i++) {
        if (atomic_load(&hs__g.file_lock_owner) == me)
            return -1;
        if (in_signal && i > FILE_LOCK_SPINS)
            return -1;
        if ((i & 63) == 63)
            sched_yield();
    }
    atomic_store(&hs__g.file_lock_owner, me);
    return 0;
}

static void file_unlock(void)
{
    atomic_store(&hs__g.file_lock_owner, 0);
    atomic_flag_clear_explicit(&hs__g.file_lock, memory_order_release);
}

/* Numbers a built block and appends it.  The caller holds file_lock. */
static int append_block(hs__blk_hdr *h, uint8_t *blk, size_t len)
{
    h->seq = atomic_fetch_add(&hs__g.blk_seq, 1);
    hs__blk_hdr_pack(h, blk);
    return hs__write_all(hs__g.fd, blk, len);
}

/* A small block (clock, end) through the shared deflate state. */
static int write_meta_block(int type, const uint8_t *pay, size_t len, int in_signal)
{
    uint8_t blk[HS__BLK_HDR_LEN + 256];
    if (hs__g.fd < 0 || file_lock(in_signal) != 0)
        return -1;
    hs__blk_hdr h = { .type = (uint8_t)type, .sync_tick = hs__now(), .sync_ns = hs__mono_ns() };
    size_t n;
    int rc = hs__block_build(&hs__g.zmeta, &hs__g.zmeta_t, &h, pay, len, NULL, 0, blk, sizeof blk,
                             &n);
    if (rc == 0)
        rc = append_block(&h, blk, n);
    file_unlock();
    return rc;
}

/* Encodes, deflates and appends raw[0..used) of b.  The caller owns b->busy.
 * 0 or -1 (write failure). */
static int write_records(hs__tbuf *b, size_t used, int in_signal)
{
    size_t off = 0;
    while (off < used) {
        size_t sl, tl;
        uint32_t n;
        hs__blk_hdr h = { .type = HS__BLK_EVENTS, .thread = b->thread };
        if (hs__encode(b->raw, used, &off, hs__g.rank, hs__g.shift, b->enc, b->enc_cap, &sl,
                       b->tenc, b->tenc_cap, &tl, &n, &h.base) != 0)
            return -1;
        h.nevents = n;
        h.sync_tick = hs__now();
        h.sync_ns = hs__mono_ns();
        size_t blen;
        if (hs__block_build(&b->zs, &b->zt, &h, b->enc, sl, b->tenc, tl, b->out, b->out_cap,
                            &blen) != 0)
            return -1;
        if (file_lock(in_signal) != 0)
            return -1;
        int rc = append_block(&h, b->out, blen);
        file_unlock();
        if (rc)
            return -1;
        __atomic_fetch_add(&hs__g.events_total, n, __ATOMIC_RELAXED);
    }
    return 0;
}

void hs__stop_recording(const char *why)
{
    int was = atomic_exchange(&hs__g.active, 0);
    if (was)
        hs__warn("recording stopped (%s); the application continues, the trace in %s ends here",
                 why, hs__g.dir);
}

void hs__flush_buf(hs__tbuf *b, int close_it)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&b->busy, &expect, 1))
        return;   /* an exit or signal path is flushing it */
    size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
    int rc = used ? write_records(b, used, 0) : 0;
    atomic_store_explicit(&b->used, 0, memory_order_relaxed);
    b->last = NULL;
    b->last_flush = hs__now();
    if (close_it)
        b->closed = 1;
    atomic_store(&b->busy, 0);
    if (rc)
        hs__stop_recording(strerror(errno ? errno : EIO));
}

static void retire_buf(void *arg);

static hs__tbuf *buf_new(void)
{
    hs__tbuf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->cap = hs__g.buf_bytes;
    b->raw = malloc(b->cap);
    b->enc_cap = ENC_CHUNK;
    b->enc = malloc(b->enc_cap);
    b->tenc_cap = ENC_CHUNK;
    b->tenc = malloc(b->tenc_cap);
    b->out_cap = hs__block_bound(b->enc_cap, b->tenc_cap);
    b->out = malloc(b->out_cap);
    if (!b->raw || !b->enc || !b->tenc || !b->out ||
        hs__deflate_init(&b->zs, &b->zt, hs__g.zlevel, hs__g.tzlevel) != 0) {
        free(b->raw);
        free(b->enc);
        free(b->tenc);
        free(b->out);
        free(b);
        return NULL;
    }
    b->zinit = 1;
    b->thread = (uint16_t)atomic_fetch_add(&hs__g.nthreads, 1);
    b->last_flush = hs__now();
    hs__tbuf *head = atomic_load(&hs__g.buffers);
    do
        b->next_all = head;
    while (!atomic_compare_exchange_weak(&hs__g.buffers, &head, b));
    pthread_setspecific(tls_key, b);
    return b;
}

/* A record of `size` bytes cannot fit the buffer at all: grow it (and the
 * encoder) to hold it.  Memory then follows the largest single event, which
 * is proportional to the application's own arrays (e.g. a Waitall list). */
static int grow_buf(hs__tbuf *b, size_t size)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&b->busy, &expect, 1))
        return -1;
    size_t ncap = b->cap;
    while (ncap < size)
        ncap *= 2;
    size_t nenc = hs__enc_bound(size) > b->enc_cap ? hs__enc_bound(size) : b->enc_cap;
    uint8_t *nraw = realloc(b->raw, ncap);
    if (nraw)
        b->raw = nraw, b->cap = ncap;
    uint8_t *nenc_p = realloc(b->enc, nenc);
    if (nenc_p)
        b->enc = nenc_p, b->enc_cap = nenc;
    uint8_t *nout = realloc(b->out, hs__block_bound(b->enc_cap, b->tenc_cap));
    if (nout)
        b->out = nout, b->out_cap = hs__block_bound(b->enc_cap, b->tenc_cap);
    atomic_store(&b->busy, 0);
    return nraw && nenc_p && nout ? 0 : -1;
}

hs__rec *hs__reserve_slow(size_t size)
{
    if (!atomic_load_explicit(&hs__g.active, memory_order_relaxed))
        return NULL;
    hs__tbuf *b = hs__t.buf;
    if (!b) {
        b = buf_new();
        if (!b) {
            hs__stop_recording("out of memory for an event buffer");
            return NULL;
        }
        hs__t.buf = b;
    }
    if (b->closed)
        return NULL;
    size_t used = atomic_load_explicit(&b->used, memory_order_relaxed);
    if (used + size > b->cap) {
        if (used)
            hs__flush_buf(b, 0);
        if (size > b->cap && grow_buf(b, size) != 0) {
            b->dropped++;
            return NULL;
        }
    }
    used = atomic_load_explicit(&b->used, memory_order_relaxed);
    if (b->closed || used + size > b->cap) {
        b->dropped++;   /* busy elsewhere (exit or signal path) */
        return NULL;
    }
    return (hs__rec *)(b->raw + used);
}

/* Thread exit: flush and free the big buffers; the struct stays on the list
 * with busy held, so no later flush touches it. */
static void retire_buf(void *arg)
{
    hs__tbuf *b = arg;
    if (!b)
        return;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&b->busy, &expect, 1))
        return;
    size_t used = atomic_load(&b->used);
    if (used && !hs__g.finished && write_records(b, used, 0) != 0)
        hs__stop_recording("cannot write the trace");
    b->closed = 1;
    hs__g.dropped_total += b->dropped;
    free(b->raw);
    free(b->enc);
    free(b->tenc);
    free(b->out);
    b->raw = b->enc = b->tenc = b->out = NULL;
    if (b->zinit)
        hs__deflate_end(&b->zs, &b->zt);
    b->zinit = 0;
    free(b->st);
    free(b->rq);
    free(b->scratch);
    b->st = NULL;
    b->rq = NULL;
    b->scratch = NULL;
}

/* Flushes every buffer it can take and closes them. */
static void flush_all(int in_signal)
{
    for (hs__tbuf *b = atomic_load(&hs__g.buffers); b; b = b->next_all) {
        int expect = 0;
        if (!atomic_compare_exchange_strong(&b->busy, &expect, 1))
            continue;
        size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
        if (used && write_records(b, used, in_signal) != 0 && !in_signal)
            hs__stop_recording("cannot write the trace");
        b->closed = 1;
        hs__g.dropped_total += b->dropped;
        /* busy stays taken: the buffer is closed for good */
    }
}

/* ---- scratch ------------------------------------------------------------------ */

void *hs__scratch(size_t bytes)
{
    hs__tbuf *b = hs__t.buf;
    if (!b) {
        if (!hs__reserve_slow(0))
            return NULL;
        b = hs__t.buf;
    }
    if (bytes > b->scratch_cap) {
        void *n = realloc(b->scratch, bytes);
        if (!n)
            return NULL;
        b->scratch = n;
        b->scratch_cap = bytes;
    }
    return b->scratch;
}

MPI_Status *hs__statuses(int n)
{
    hs__tbuf *b = hs__t.buf;
    if (!b) {
        if (!hs__reserve_slow(0))
            return NULL;
        b = hs__t.buf;
    }
    if ((size_t)n > b->st_cap) {
        MPI_Status *s = realloc(b->st, (size_t)n * sizeof *s);
        if (!s)
            return NULL;
        b->st = s;
        b->st_cap = (size_t)n;
    }
    return b->st;
}

MPI_Request *hs__reqcopy(int n)
{
    hs__tbuf *b = hs__t.buf;
    if (!b) {
        if (!hs__reserve_slow(0))
            return NULL;
        b = hs__t.buf;
    }
    if ((size_t)n > b->rq_cap) {
        MPI_Request *r = realloc(b->rq, (size_t)n * sizeof *r);
        if (!r)
            return NULL;
        b->rq = r;
        b->rq_cap = (size_t)n;
    }
    return b->rq;
}

/* ---- clock synchronisation ----------------------------------------------------- */

static uint64_t job_epoch_ns;   /* rank 0's CLOCK_MONOTONIC at start-up: time zero */

/* Cristian's method against rank 0, best of SYNC_ROUNDS exchanges, on comm:
 * MPI_COMM_WORLD inside MPI_Init, where no message of the application can
 * exist yet, and a private duplicate in MPI_Finalize.  Sets offset (add to local CLOCK_MONOTONIC to get
 * rank 0's) and, at MPI_Init, the job epoch.
 *
 * CLOCK_MONOTONIC is one clock per host (one kernel), so ranks on rank 0's
 * host have offset 0 exactly and exchange nothing, and one rank per other
 * host (its leader) is measured and its result given to the host's other
 * ranks.  Ping-pongs between ranks time-sharing a core cost a scheduler
 * slice each (tens of ms under MPICH's busy polling): measuring every rank
 * made an 8-rank job on one host start a second later. */
static void clock_sync(hs__clock_rec *out, int which, MPI_Comm comm)
{
    memset(out, 0, sizeof *out);
    out->which = (uint32_t)which;
    const uint32_t *lead = hs__g.sync_leader;
    uint32_t me = (uint32_t)hs__g.rank;
    if (hs__g.rank == 0) {
        for (int r = 1; r < hs__g.size; r++) {
            /* rank 0's host shares its clock; other ranks hear their
             * leader's result when it is measured */
            if (lead && lead[r] != (uint32_t)r)
                continue;
            uint64_t best_rtt = UINT64_MAX, best_b = 0;
            int64_t best_off = 0;
            for (int k = 0; k < SYNC_ROUNDS; k++) {
                uint64_t a = hs__mono_ns(), b = 0;
                HS_PMPI(Send)(NULL, 0, MPI_BYTE, r, SYNC_TAG, comm);
                HS_PMPI(Recv)(&b, 8, MPI_BYTE, r, SYNC_TAG, comm, MPI_STATUS_IGNORE);
                uint64_t c = hs__mono_ns();
                if (c - a < best_rtt) {
                    best_rtt = c - a;
                    best_off = (int64_t)(a + (c - a) / 2) - (int64_t)b;
                    best_b = b;
                }
            }
            uint64_t res[3] = { (uint64_t)best_off, best_rtt, best_b };
            HS_PMPI(Send)(res, sizeof res, MPI_BYTE, r, SYNC_TAG, comm);
            for (int q = r + 1; lead && q < hs__g.size; q++)
                if (lead[q] == (uint32_t)r)
                    HS_PMPI(Send)(res, sizeof res, MPI_BYTE, q, SYNC_TAG, comm);
        }
        out->local_ns = hs__mono_ns();
    } else if (lead && lead[me] == 0) {
        out->offset_ns = 0;
        out->rtt_ns = 0;
        out->local_ns = hs__mono_ns();
    } else {
        /* every rank has the table or none does (it is allocated before the
         * job agrees to record), so all decide alike */
        for (int k = 0; (!lead || lead[me] == me) && k < SYNC_ROUNDS; k++) {
            HS_PMPI(Recv)(NULL, 0, MPI_BYTE, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
            uint64_t b = hs__mono_ns();
            HS_PMPI(Send)(&b, 8, MPI_BYTE, 0, SYNC_TAG, comm);
        }
        uint64_t res[3];
        HS_PMPI(Recv)(res, sizeof res, MPI_BYTE, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        out->offset_ns = (int64_t)res[0];
        out->rtt_ns = res[1];
        out->local_ns = res[2];
    }
    /* rank 0 took the epoch before the start-up gather (hostinfo), so it
     * precedes every rank's first record; no collective is needed here */
    out->epoch_ns = job_epoch_ns;
}


/* ---- nodes ---------------------------------------------------------------------- */

/* What each rank tells all at start-up (hs__start), in one MPI_Allgather.
 * Rank 0's settings, placement and time zero rule the job. */
typedef struct hostinfo {
    char host[HOST_LEN];
    uint32_t pid;
    uint32_t cores;                   /* online there: the replay undoes oversubscription */
    uint64_t fail;                    /* 1: this rank cannot record */
    uint64_t rate_bits, flush_bits;   /* doubles, bit for bit */
    uint64_t seed, buffer, zlevel, tzlevel;
    uint64_t dir_hash;                /* of the trace directory's name; 0 none */
    uint64_t vkind, vnodes;           /* virtual placement (VNODE_*), rank 0's */
    uint64_t epoch_ns;                /* time zero: rank 0's CLOCK_MONOTONIC */
} hostinfo;

static uint64_t fnv1a(const char *s, size_t max)
{
    uint64_t x = 1469598103934665603ull;
    for (size_t i = 0; i < max && s[i]; i++)
        x = (x ^ (unsigned char)s[i]) * 1099511628211ull;
    return x ? x : 1;
}

/* leader[r] = the lowest rank on rank r's host, the same on every rank (from
 * the same gathered names).  Linear time through an open-addressing table of
 * leaders keyed by the host name's hash; without memory for the table, the
 * quadratic scan. */
static void host_leaders(const hostinfo *hi, int n, uint32_t *leader)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    int32_t *tab = malloc(cap * sizeof *tab);
    for (int r = 0; r < n; r++) {
        const char *h = hi[r].host;
        if (!tab) {
            int q = 0;
            while (q < r && strncmp(hi[q].host, h, HOST_LEN) != 0)
                q++;
            leader[r] = (uint32_t)q;
            continue;
        }
        if (r == 0)
            memset(tab, 0xff, cap * sizeof *tab);
        uint64_t x = fnv1a(h, HOST_LEN);
        size_t i = (size_t)x & (cap - 1);
        while (tab[i] >= 0 && strncmp(hi[tab[i]].host, h, HOST_LEN) != 0)
            i = (i + 1) & (cap - 1);
        if (tab[i] < 0)
            tab[i] = r;
        leader[r] = (uint32_t)tab[i];
    }
    free(tab);
}

/* Virtual placement from HOPSCOPE_NODES / HOPSCOPE_NODE_MAP, decided by rank 0
 * (virtual_plan, before the start-up reduction carries the decision to every
 * rank) and applied by all (virtual_apply).  A map read from a file is the
 * one placement that needs its own broadcast. */
enum { VNODE_NONE, VNODE_BLOCK, VNODE_CYCLIC, VNODE_FILE };

static void block_or_cyclic(uint32_t *node, int n, int cyclic, uint64_t nodes)
{
    uint64_t per = ((uint64_t)n + nodes - 1) / nodes;
    for (int r = 0; r < n; r++)
        node[r] = cyclic ? (uint32_t)((uint64_t)r % nodes) : (uint32_t)((uint64_t)r / per);
}

/* On rank 0: sets *kind and *count (VNODE_NONE: real hosts, the reason
 * printed); for a file map, node[] holds it. */
static void virtual_plan(const settings *s, uint32_t *node, uint64_t *kind, uint64_t *count)
{
    int n = hs__g.size;
    int32_t hdr[2] = { VNODE_NONE, 0 };   /* kind, nodes */
    {
        const char *map = s->node_map;
        uint64_t nodes = s->nodes;
        if (nodes == 0 && (strcmp(map, "block") == 0 || strcmp(map, "cyclic") == 0))
            goto done;   /* no virtual nodes asked for */
        if (strcmp(map, "block") == 0 || strcmp(map, "cyclic") == 0) {
            hdr[0] = map[0] == 'b' ? VNODE_BLOCK : VNODE_CYCLIC;
            hdr[1] = (int32_t)nodes;
        } else {
            /* A file: the node index of rank 0, 1, ... as whitespace-separated
             * integers; '#' starts a comment. */
            FILE *f = fopen(map, "r");
            if (!f) {
                hs__warn("HOPSCOPE_NODE_MAP=%s: %s; using real hosts", map, strerror(errno));
                goto done;
            }
            int r = 0, c;
            uint64_t maxn = 0;
            char tok[32];
            size_t tl = 0;
            int bad = 0;
            while (!bad) {
                c = fgetc(f);
                if (c == '#') {
                    while (c != EOF && c != '\n')
                        c = fgetc(f);
                }
                if (c == EOF || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    if (tl) {
                        tok[tl] = 0;
                        uint64_t v;
                        if (hs_parse_u64(tok, &v) != 0 || v >= (1u << 24) || r >= n)
                            bad = 1;
                        else {
                            node[r++] = (uint32_t)v;
                            if (v + 1 > maxn)
                                maxn = v + 1;
                        }
                        tl = 0;
                    }
                    if (c == EOF)
                        break;
                } else if (tl + 1 < sizeof tok) {
                    tok[tl++] = (char)c;
                } else {
                    bad = 1;
                }
            }
            fclose(f);
            if (bad || r != n || (nodes && maxn > nodes)) {
                hs__warn("HOPSCOPE_NODE_MAP=%s: expected %d node indices%s; using real hosts",
                         map, n, nodes ? " below HOPSCOPE_NODES" : "");
                goto done;
            }
            hdr[0] = VNODE_FILE;
            hdr[1] = (int32_t)(nodes ? nodes : maxn);
        }
    }
done:
    *kind = (uint64_t)hdr[0];
    *count = hdr[0] != VNODE_NONE ? (uint64_t)hdr[1] : 0;
}

/* On every rank, with rank 0's decision: fills node[] and the manifest's
 * mode word; returns the number of nodes, or 0 for real hosts. */
static int virtual_apply(const settings *s, uint64_t kind, uint64_t count, uint32_t *node,
                         char *mode, size_t modelen)
{
    switch (kind) {
    case VNODE_BLOCK:
    case VNODE_CYCLIC:
        block_or_cyclic(node, hs__g.size, kind == VNODE_CYCLIC, count);
        snprintf(mode, modelen, "%s", kind == VNODE_CYCLIC ? "cyclic" : "block");
        return (int)count;
    case VNODE_FILE:
        HS_PMPI(Bcast)(node, hs__g.size, MPI_UINT32_T, 0, MPI_COMM_WORLD);
        /* only rank 0, which writes the manifest, knows the file's name */
        snprintf(mode, modelen, "file:%s", s->node_map);
        return (int)count;
    default:
        return 0;
    }
}

/* ---- manifest ------------------------------------------------------------------- */

static void write_manifest(const settings *s, const hostinfo *hi, const uint32_t *node,
                           int nnodes, char **node_names, const char *node_mode, int provided,
                           const char *clock_name)
{
    hs_trace_manifest m = { 0 };
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    HS_PMPI(Get_library_version)(lib, &len);
    lib[len < (int)sizeof lib ? len : (int)sizeof lib - 1] = 0;
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    int ver = 0, sub = 0;
    HS_PMPI(Get_version)(&ver, &sub);
    char version[32];
    snprintf(version, sizeof version, "%d.%d", ver, sub);
    /* The application's command line, from rank 0's /proc/self/cmdline. */
    char cmd[4096] = "";
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, cmd, sizeof cmd - 1);
        close(fd);
        if (n > 0) {
            for (ssize_t i = 0; i < n - 1; i++)
                if (!cmd[i])
                    cmd[i] = ' ';
            cmd[n] = 0;
        }
    }
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char writer[64];
    snprintf(writer, sizeof writer, "hopscope %s (libhopscope.so, %s)", HS_VERSION, HS_MPI_ABI);
    extern char **environ;
    size_t nset = 0;
    for (char **e = environ; *e; e++)
        nset += strncmp(*e, "HOPSCOPE_", 9) == 0;
    char **set = calloc(nset + 1, sizeof *set);
    char **hosts = calloc((size_t)hs__g.size, sizeof *hosts);
    uint32_t *pids = calloc((size_t)hs__g.size, sizeof *pids);
    if (!set || !hosts || !pids) {
        free(set);
        free(hosts);
        free(pids);
        hs__stop_recording("out of memory for the manifest");
        return;
    }
    nset = 0;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "HOPSCOPE_", 9) == 0)
            set[nset++] = *e;
    /* distinct real hosts with their cores, in order of first appearance:
     * the hosts' leaders (host_leaders), the first rank on each */
    char **hname = calloc((size_t)hs__g.size, sizeof *hname);
    uint32_t *hcores = calloc((size_t)hs__g.size, sizeof *hcores);
    uint32_t nh = 0;
    for (int r = 0; r < hs__g.size; r++) {
        hosts[r] = (char *)hi[r].host;
        pids[r] = hi[r].pid;
        if (hname && hcores && hs__g.sync_leader[r] == (uint32_t)r && hi[r].cores) {
            hname[nh] = (char *)hi[r].host;
            hcores[nh++] = hi[r].cores;
        }
    }
    if (hname && hcores) {
        m.nhosts = nh;
        m.host_name = hname;
        m.host_cores = hcores;
    }
    m.nranks = (uint32_t)hs__g.size;
    m.nnodes = (uint32_t)nnodes;
    m.writer = writer;
    m.mpi_abi = HS_MPI_ABI;
    m.mpi_library = lib;
    m.mpi_version = version;
    m.command = cmd;
    m.start_time = when;
    m.clock = (char *)clock_name;
    m.node_mode = (char *)node_mode;
    m.thread_level = (uint32_t)provided;
    m.sample_rate = s->rate;
    m.sample_seed = s->seed;
    m.node_names = node_names;
    m.rank_node = (uint32_t *)node;
    m.rank_host = hosts;
    m.rank_pid = pids;
    m.settings = set;
    m.nsettings = nset;
    hs_error err;
    if (hs_trace_manifest_write(hs__g.dir, &m, &err) != 0)
        hs__warn("%s", err.msg);
    free(set);
    free(hosts);
    free(pids);
    free(hname);
    free(hcores);
}

/* ---- end of recording ------------------------------------------------------------ */

static void write_end(int reason, int code, int in_signal)
{
    hs__end_rec e = { .reason = (uint32_t)reason, .code = (uint32_t)code,
                      .events = hs__g.events_total, .dropped = hs__g.dropped_total,
                      .blocks = atomic_load(&hs__g.blk_seq) + 1u };
    uint8_t pay[64];
    write_meta_block(HS__BLK_END, pay, hs__end_rec_encode(&e, pay), in_signal);
}

static _Atomic int ending;

static int real_initialized_check(void)
{
    int flag = 0;
    int (*init_fn)(int *) = (int (*)(int *))dlsym(RTLD_NEXT, "PMPI_Initialized");
    if (init_fn)
        init_fn(&flag);
    return flag;
}

/* Common end: stop new events, flush every buffer, optionally a second clock
 * record, the end record, close.  Safe to call from a signal handler when
 * in_signal (no allocation, no stdio, no blocking lock). */
static void end_trace(int reason, int code, const hs__clock_rec *clk1, int in_signal)
{
    if (!hs__g.started || hs__g.finished || atomic_exchange(&ending, 1))
        return;
    atomic_store(&hs__g.active, 0);
    extern HS__HIDDEN void (*hs__wire_end)(int, int, const hs__clock_rec *, int);
    if (hs__wire_end)   /* libhopscope-wire.so closes its file first (wire_host.c) */
        hs__wire_end(reason, code, clk1, in_signal);
    flush_all(in_signal);
    if (clk1) {
        uint8_t pay[64];
        write_meta_block(HS__BLK_CLOCK, pay, hs__clock_rec_encode(clk1, pay), in_signal);
    }
    write_end(reason, code, in_signal);
    if (hs__g.fd >= 0)
        close(hs__g.fd);
    hs__g.fd = -1;
    hs__g.finished = 1;
}

static void at_exit(void)
{
    if (hs__g.started && !hs__g.finished) {
        end_trace(HS_TRACE_END_EXIT, 0, NULL, 0);
        return;
    }
    if (!hs__g.started && !hs__g.disabled && real_initialized_check())
        hs__warn("MPI was initialised without passing through libhopscope.so's MPI_Init; "
                 "nothing was recorded");
}

/* ---- signals ----------------------------------------------------------------------- */

static const int caught[] = { SIGTERM, SIGINT, SIGHUP };
static struct sigaction old_act[3];

static void on_signal(int sig)
{
    int saved = errno;
    end_trace(HS_TRACE_END_SIGNAL, sig, NULL, 1);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        if (caught[i] != sig)
            continue;
        const struct sigaction *o = &old_act[i];
        if (!(o->sa_flags & SA_SIGINFO) && o->sa_handler == SIG_IGN) {
            errno = saved;
            return;
        }
        if (!(o->sa_flags & SA_SIGINFO) && o->sa_handler != SIG_DFL) {
            errno = saved;
            o->sa_handler(sig);
            return;
        }
        if ((o->sa_flags & SA_SIGINFO) && o->sa_sigaction) {
            /* The original wanted siginfo we no longer have: restore it and
             * deliver the signal again. */
            sigaction(sig, o, NULL);
            raise(sig);
            return;
        }
        sigaction(sig, o, NULL);
        raise(sig);
        errno = saved;
        return;
    }
}

static void install_handlers(void)
{
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(caught[i], NULL, &old_act[i]) == 0 &&
            !(!(old_act[i].sa_flags & SA_SIGINFO) && old_act[i].sa_handler == SIG_IGN))
            sigaction(caught[i], &sa, NULL);
    }
}

/* A child of fork() (system(), a helper process) shares the rank file's
 * descriptor and a copy of the buffers: it must never write, not even from
 * its exit handlers. */
static void after_fork_child(void)
{
    atomic_store(&hs__g.active, 0);
    hs__g.finished = 1;
    hs__g.fd = -1;
}

/* ---- start ------------------------------------------------------------------------- */

/* Verifies that reading the byte count straight from MPI_Status agrees with
 * MPI_Get_count on a real message; if not, use the slow path. */
static void check_status_layout(void)
{
    enum { PROBE_BYTES = 70001 };   /* odd, above 64 KiB: exercises the high bits */
    char *sb = malloc(PROBE_BYTES), *rb = malloc(PROBE_BYTES);
    hs__status_direct = 0;
    if (!sb || !rb) {
        free(sb);
        free(rb);
        return;
    }
    memset(sb, 0, PROBE_BYTES);
    MPI_Status st;
    int me = 0;
    HS_PMPI(Comm_rank)(MPI_COMM_SELF, &me);
    HS_PMPI(Sendrecv)(sb, PROBE_BYTES, MPI_BYTE, 0, 1, rb, PROBE_BYTES, MPI_BYTE, 0, 1,
                      MPI_COMM_SELF, &st);
    int cnt = -1;
    HS_PMPI(Get_count)(&st, MPI_BYTE, &cnt);
    hs__status_direct = 1;
    if (hs__status_bytes(&st) != (uint64_t)cnt || cnt != PROBE_BYTES)
        hs__status_direct = 0;
    free(sb);
    free(rb);
}

void hs__start(int provided, uint64_t t0, uint64_t t1)
{
    if (hs__g.disabled || hs__g.started)
        return;
    /* Refuse to run against the other MPI: handle types would be misread. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int len = 0;
    HS_PMPI(Get_library_version)(lib, &len);
    lib[len < (int)sizeof lib ? len : (int)sizeof lib - 1] = 0;
    if (!strstr(lib, strcmp(HS_MPI_ABI, "openmpi") == 0 ? "Open MPI" : "MPICH")) {
        hs__warn("this libhopscope.so is built for %s but the MPI library is '%.60s'; "
                 "aborting before anything is misread (use the matching library: "
                 "HOPSCOPE_MPI / HOPSCOPE_LIB)", HS_MPI_ABI, lib);
        abort();
    }
    hs__g.started = 1;
    HS_PMPI(Comm_rank)(MPI_COMM_WORLD, &hs__g.rank);
    HS_PMPI(Comm_size)(MPI_COMM_WORLD, &hs__g.size);
    settings s;
    read_settings(&s);
    HS_PMPI(Comm_group)(MPI_COMM_WORLD, &hs__g.world_group);

    /* One MPI_Allgather tells every rank where every rank is, what rank 0
     * decided for the job (its settings rule: environments may differ per
     * rank; virtual placement; time zero) and whether every rank is ready.
     * Each collective costs an 8-rank job on one host a scheduler slice or
     * more under MPICH's busy polling (start-up had seven).  Inside MPI_Init
     * no message or collective of the application exists yet, so it takes
     * MPI_COMM_WORLD itself: a private duplicate would cost one more
     * (MPI_Comm_dup is collective).  The directory's name is not gathered:
     * only its hash, and rank 0 broadcasts the name when some rank's differs
     * (a decision every rank takes alike from the gathered table). */
    uint32_t *node = calloc((size_t)hs__g.size, sizeof *node);
    char **node_names = calloc((size_t)hs__g.size, sizeof *node_names);
    hs__g.sync_leader = calloc((size_t)hs__g.size, sizeof *hs__g.sync_leader);
    hs__g.mon_seq = calloc((size_t)hs__g.size, sizeof *hs__g.mon_seq);
    int ok = node && node_names && hs__g.sync_leader && hs__g.mon_seq;
    /* The gather's own buffer must exist on every rank: static up to
     * START_STATIC_RANKS, otherwise allocated and agreed on first (a
     * reduction that large jobs, started over a network, hardly notice). */
    static hostinfo hi_static[START_STATIC_RANKS];
    hostinfo *hi = hi_static;
    if (hs__g.size > START_STATIC_RANKS) {
        hi = calloc((size_t)hs__g.size, sizeof *hi);
        int have = hi != NULL, all = 0;
        HS_PMPI(Allreduce)(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) {
            free(hi);
            hi = NULL;
            ok = 0;
        }
    }
    char dir[4096] = "";
    if (s.dir)
        snprintf(dir, sizeof dir, "%s", s.dir);
    else if (hs__g.rank == 0) {
        char when[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, sizeof dir, "hopscope-trace-%s-%ld", when, (long)getpid());
    }
    int all_ok = 0;
    if (hi) {
        hostinfo mine;
        memset(&mine, 0, sizeof mine);
        gethostname(mine.host, sizeof mine.host - 1);
        mine.pid = (uint32_t)getpid();
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        mine.cores = ncpu > 0 && ncpu < (1L << 24) ? (uint32_t)ncpu : 0;
        mine.fail = !ok;
        memcpy(&mine.rate_bits, &s.rate, 8);
        memcpy(&mine.flush_bits, &s.flush_s, 8);
        mine.seed = s.seed;
        mine.buffer = s.buffer;
        mine.zlevel = s.zlevel;
        mine.tzlevel = s.tzlevel;
        mine.dir_hash = dir[0] ? fnv1a(dir, sizeof dir) : 0;
        if (hs__g.rank == 0 && ok)
            virtual_plan(&s, node, &mine.vkind, &mine.vnodes);
        if (hs__g.rank == 0)
            mine.epoch_ns = hs__mono_ns();
        HS_PMPI(Allgather)(&mine, sizeof mine, MPI_BYTE, hi, sizeof mine, MPI_BYTE,
                           MPI_COMM_WORLD);
        all_ok = 1;
        int same_dir = hi[0].dir_hash != 0;
        for (int r = 0; r < hs__g.size; r++) {
            all_ok &= hi[r].fail == 0;
            same_dir &= hi[r].dir_hash == hi[0].dir_hash;
        }
        if (all_ok && !same_dir) {
            HS_PMPI(Bcast)(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
            dir[sizeof dir - 1] = 0;
        }
    }
    if (!all_ok) {
        hs__warn("not recording (out of memory at start)");
        if (hi != hi_static)
            free(hi);
        free(node);
        free(node_names);
        free(hs__g.sync_leader);
        hs__g.sync_leader = NULL;
        hs__g.finished = 1;
        return;
    }
    memcpy(&s.rate, &hi[0].rate_bits, 8);
    memcpy(&s.flush_s, &hi[0].flush_bits, 8);
    s.seed = hi[0].seed;
    s.buffer = hi[0].buffer;
    s.zlevel = hi[0].zlevel;
    s.tzlevel = hi[0].tzlevel;
    job_epoch_ns = hi[0].epoch_ns;
    host_leaders(hi, hs__g.size, hs__g.sync_leader);
    hs__g.mt = provided == MPI_THREAD_MULTIPLE;
    hs__g.serial = !hs__g.mt;
    hs__g.sample_rate = s.rate;
    hs__g.sample_seed = s.seed;
    hs__g.sample_thr = hs__monitor_threshold(s.rate);
    hs__g.buf_bytes = s.buffer;
    hs__g.zlevel = (int)s.zlevel;
    hs__g.tzlevel = (int)s.tzlevel;
    hs__g.tick_hz = measure_tick_hz();
    unsigned shift = 0;
    while (shift < 16 && (hs__g.tick_hz >> (shift + 1)) >= 1000000000ull)
        shift++;
    hs__g.shift = (uint8_t)shift;
    hs__g.flush_ticks = (uint64_t)(s.flush_s * (double)hs__g.tick_hz);
    pthread_key_create(&tls_key, retire_buf);

    char node_mode[4200] = "host";
    int nnodes = virtual_apply(&s, hi[0].vkind, hi[0].vnodes, node, node_mode, sizeof node_mode);
    if (nnodes > 0) {
        hs__g.vnodes = nnodes;
        for (int k = 0; k < nnodes; k++) {
            node_names[k] = malloc(32);
            if (node_names[k])
                snprintf(node_names[k], 32, "vnode%d", k);
            else
                ok = 0;
        }
    } else {
        /* Real hosts, numbered in order of first appearance. */
        for (int r = 0; r < hs__g.size; r++) {
            int k;
            for (k = 0; k < nnodes; k++)
                if (strcmp(node_names[k], hi[r].host) == 0)
                    break;
            if (k == nnodes)
                node_names[nnodes++] = hi[r].host;
            node[r] = (uint32_t)k;
        }
    }
    hs__g.rank_node = node;
    if (ok && hs__g.vnodes)
        snprintf(hs__g.my_node_name, sizeof hs__g.my_node_name, "%s",
                 node_names[node[hs__g.rank]]);

    snprintf(hs__g.dir, sizeof hs__g.dir, "%s", dir);
    hs_error err;
    int dir_ok = hs_mkdir_p(hs__g.dir, &err) == 0;
    if (!dir_ok)
        hs__warn("%s", err.msg);

    check_status_layout();
    clock_sync(&hs__g.clk0, 0, MPI_COMM_WORLD);

    /* Open the rank file: header, then the clock record. */
    if (ok && dir_ok) {
        snprintf(hs__g.path, sizeof hs__g.path, "%s/" HS__RANK_FILE_FMT, hs__g.dir,
                 (unsigned)hs__g.rank);
        hs__g.fd = open(hs__g.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (hs__g.fd < 0)
            hs__warn("%s: %s", hs__g.path, strerror(errno));
    }
    if (hs__g.fd >= 0) {
        hs__file_hdr fh = { .version = HS_TRACE_FORMAT_VERSION, .rank = (uint32_t)hs__g.rank,
                            .nranks = (uint32_t)hs__g.size,
                            .clock = hs__g.use_tsc ? HS__CLOCK_TSC : HS__CLOCK_MONO,
                            .shift = hs__g.shift, .pid = (uint32_t)getpid(),
                            .tick_hz = hs__g.tick_hz };
        uint8_t hdr[HS__FILE_HDR_LEN];
        hs__file_hdr_pack(&fh, hdr);
        if (hs__write_all(hs__g.fd, hdr, sizeof hdr) != 0 ||
            hs__deflate_init(&hs__g.zmeta, &hs__g.zmeta_t, Z_DEFAULT_COMPRESSION, 1) != 0) {
            hs__warn("%s: %s", hs__g.path, strerror(errno));
            close(hs__g.fd);
            hs__g.fd = -1;
        }
    }
    if (hs__g.fd >= 0) {
        uint8_t pay[64];
        if (write_meta_block(HS__BLK_CLOCK, pay, hs__clock_rec_encode(&hs__g.clk0, pay), 0))
            hs__warn("%s: cannot write", hs__g.path);
    }
    if (hs__g.rank == 0 && ok && dir_ok)
        write_manifest(&s, hi, node, hs__g.vnodes ? hs__g.vnodes : nnodes, node_names,
                       node_mode, provided, hs__g.use_tsc ? "tsc" : "monotonic");
    if (hs__g.vnodes)
        for (int k = 0; k < hs__g.vnodes; k++)
            free(node_names[k]);
    free(node_names);
    if (hi != hi_static)
        free(hi);

    hs__g.world = hs__comm_new_static(HS_TRACE_COMM_WORLD, 0, 1);
    hs__g.self = hs__comm_new_static(HS_TRACE_COMM_SELF, 1, 0);
    hs__g.null_comm = hs__comm_new_static(HS_TRACE_COMM_NONE, HS__NOIDX, 0);
    atomic_store(&hs__g.next_comm_index, 2);
    if (!hs__g.world || !hs__g.self || !hs__g.null_comm)
        ok = 0;

    if (!ok || hs__g.fd < 0) {
        hs__warn("not recording (setup failed)");
        hs__g.finished = 1;
        return;
    }
    install_handlers();
    pthread_atfork(NULL, NULL, after_fork_child);
    atomic_store(&hs__g.active, 1);
    hs__rec *r = hs__rec0(HS_TRACE_INIT, t0, t1, 0);
    if (r) {
        r->aux = (uint64_t)provided;
        hs__commit(r, sizeof *r);
    }
    if (getenv("HOPSCOPE_VERBOSE") && hs__g.rank == 0)
        hs__warn("recording %d ranks to %s (clock %s, %.3f GHz, unit %u ticks)", hs__g.size,
                 hs__g.dir, hs__g.use_tsc ? "tsc" : "monotonic", (double)hs__g.tick_hz / 1e9,
                 1u << hs__g.shift);
}

/* ---- finish ------------------------------------------------------------------------ */

int hs__finalize_prepare(hs__clock_rec *c1)
{
    if (!hs__g.started || hs__g.finished || !atomic_load(&hs__g.active))
        return 0;
    /* Every rank is in MPI_Finalize: the last collective work hopscope does.
     * A message of the application may still be pending on MPI_COMM_WORLD
     * (an unmatched send, a receive from MPI_ANY_SOURCE never completed), so
     * the exchanges take a private communicator; a job on one host has none
     * (all ranks share rank 0's clock) and needs no communicator, which
     * every rank knows alike from the leader table. */
    int other_hosts = 0;
    for (int r = 0; hs__g.sync_leader && r < hs__g.size; r++)
        other_hosts |= hs__g.sync_leader[r] != 0;
    MPI_Comm priv = MPI_COMM_NULL;
    if (other_hosts || !hs__g.sync_leader)
        HS_PMPI(Comm_dup)(MPI_COMM_WORLD, &priv);
    clock_sync(c1, 1, priv);
    if (priv != MPI_COMM_NULL)
        HS_PMPI(Comm_free)(&priv);
    free(hs__g.sync_leader);
    hs__g.sync_leader = NULL;
    return 1;
}

void hs__finish(int reason, int code, const hs__clock_rec *c1)
{
    if (!hs__g.started || hs__g.finished)
        return;
    end_trace(reason, code, c1, 0);
}
