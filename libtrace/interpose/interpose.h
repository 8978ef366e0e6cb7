/* libtrace/interpose/interpose.h — private to libhopscope.so, the PMPI
 * interposer.  Compiled once per MPI (mpi.h of Open MPI or MPICH), because
 * the handle types differ: MPI_Comm is an int in MPICH, a pointer in Open MPI.
 *
 * How a call is recorded (the hot path, see HS_ENTER / hs__rec_reserve):
 *   1. MPI_X and PMPI_X both land in one wrapper (Open MPI's Fortran layer
 *      calls PMPI_X, C programs call MPI_X);
 *   2. a thread-local depth counter lets calls made by the MPI library itself
 *      (PMPI_Sendrecv_replace -> PMPI_Sendrecv, ROMIO -> collectives) and by
 *      hopscope's own bookkeeping pass straight to the real function;
 *   3. the real function (PMPI_X of the next object, dlsym(RTLD_NEXT)) is
 *      called between two clock reads (rdtsc when the TSC is invariant);
 *      a call known from its arguments to be a no-op that returns at once
 *      (peer MPI_PROC_NULL; a completion of only MPI_REQUEST_NULL or of
 *      requests of such no-ops) takes one clock read, after the call, and
 *      is stored with t0 = t1 (duration 0): a clock read is ~9 ns, the
 *      largest part of the wrapper;
 *   4. the event is stored as a raw fixed-size record in a per-thread buffer
 *      (no locking, no encoding, no allocation); encoding, deflate and write()
 *      happen when the buffer fills or a flush interval passes.
 *
 * Invariants:
 *   - the library never changes arguments or results: a wrapper forwards the
 *     application's arguments unchanged (statuses it needs are substituted
 *     only when the application passed MPI_STATUS(ES)_IGNORE);
 *   - any internal failure (disk full, out of memory) stops recording and
 *     keeps forwarding calls (hs__g.active = 0);
 *   - libhopscope.so references no MPI symbol at load time (functions via
 *     dlsym, Open MPI's predefined objects as weak symbols), so preloading it
 *     into a launcher or a shell is harmless. */
#ifndef HOPSCOPE_INTERPOSE_H
#define HOPSCOPE_INTERPOSE_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <zlib.h>

#include "../format.h"

#if defined(OPEN_MPI) && OPEN_MPI
#define HS_MPI_ABI "openmpi"
/* Open MPI's predefined handles are addresses of objects in libmpi.  As weak
 * references they resolve to 0 instead of failing when libhopscope.so is
 * preloaded into a process without libmpi (mpirun, a shell); no wrapper runs
 * there.  tests/integration/libtrace_preload.sh checks that no other MPI
 * symbol is referenced. */
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_self
#pragma weak ompi_mpi_comm_null
#pragma weak ompi_request_null
#pragma weak ompi_message_null
#pragma weak ompi_message_no_proc
#pragma weak ompi_mpi_byte
#pragma weak ompi_mpi_char
#pragma weak ompi_mpi_int
#pragma weak ompi_mpi_uint32_t
#pragma weak ompi_mpi_uint64_t
#pragma weak ompi_mpi_datatype_null
#pragma weak ompi_mpi_op_max
#pragma weak ompi_mpi_op_min
#pragma weak ompi_mpi_op_no_op
#pragma weak ompi_mpi_win_null
#elif defined(MPICH)
#define HS_MPI_ABI "mpich"
/* MPICH's only predefined object that is a variable (see Open MPI above). */
#pragma weak MPI_UNWEIGHTED
#else
#error "libhopscope.so is built against Open MPI or MPICH"
#endif

/* MPI-4 functions (large counts, Isendrecv, ...) exist in MPICH 4.0. */
#if MPI_VERSION >= 4
#define HS_MPI4 1
#else
#define HS_MPI4 0
#endif

#define hs__likely(x)   __builtin_expect(!!(x), 1)
#define hs__unlikely(x) __builtin_expect(!!(x), 0)
#define HS__HIDDEN __attribute__((visibility("hidden")))
#define HS__TLS __attribute__((tls_model("initial-exec")))

/* ---- real functions --------------------------------------------------- */

/* dlsym(RTLD_NEXT, name); never NULL (prints why and aborts when the MPI
 * library lacks the function, which means a wrong libhopscope.so). */
HS__HIDDEN void *hs__resolve(const char *name);

/* Declares the cache of the real PMPI_name and the two entry points, which
 * both call the wrapper body hs_w_name (written right after the macro). */
#define HS_WRAP(ret, name, params, args)                                     \
    static ret (*real_##name) params;                                        \
    static ret hs_w_##name params;                                           \
    ret MPI_##name params { return hs_w_##name args; }                       \
    ret PMPI_##name params { return hs_w_##name args; }                      \
    static ret hs_w_##name params

/* Calls the real PMPI function that hopscope does not wrap (or wants
 * unrecorded), resolved once per call site. */
#define HS_PMPI(name)                                                        \
    (*({                                                                     \
        static __typeof__(&PMPI_##name) p_;                                  \
        if (hs__unlikely(!p_))                                               \
            p_ = (__typeof__(&PMPI_##name))hs__resolve("PMPI_" #name);       \
        &p_;                                                                 \
    }))

#define HS_REAL(name)                                                        \
    (*({                                                                     \
        if (hs__unlikely(real_##name == NULL))                               \
            real_##name = (__typeof__(real_##name))hs__resolve("PMPI_" #name); \
        &real_##name;                                                        \
    }))

/* ---- global state --------------------------------------------------------- */

typedef struct hs__comm hs__comm;
typedef struct hs__tbuf hs__tbuf;

typedef struct hs__global {
    _Atomic int active;        /* recording (set after our MPI_Init work) */
    _Atomic int paused;        /* MPI_Pcontrol(0) */
    int      started, finished, disabled;
    int      mt;               /* MPI_THREAD_MULTIPLE: tables take locks */
    int      serial;           /* set once MPI_Init returned a level below MULTIPLE:
                                  one thread at a time in MPI (wire_host.h) */
    int      rank, size;
    int      use_tsc;
    uint8_t  shift;
    uint64_t tick_hz;
    uint64_t flush_ticks;      /* flush a buffer at least this often */
    size_t   buf_bytes;        /* raw buffer per thread */
    int      zlevel, tzlevel;   /* deflate levels: structure, times */
    double   sample_rate;
    uint64_t sample_seed, sample_thr;
    _Atomic uint64_t *mon_seq; /* per destination world rank */
    int      fd;               /* rank file, O_APPEND */
    char     dir[4096];
    char     path[4200];
    _Atomic uint32_t blk_seq;  /* assigned under file_lock */
    atomic_flag file_lock;
    _Atomic pid_t file_lock_owner;
    _Atomic uint32_t nthreads;
    _Atomic(hs__tbuf *) buffers;   /* every thread's buffer (push-only list) */
    _Atomic uint32_t comm_gen, type_gen;
    hs__comm *world, *self, *null_comm;
    MPI_Group world_group;
    _Atomic uint32_t next_comm_index, next_win_index;
    _Atomic uint64_t agreed_seq;  /* creations whose id this rank may lead */
    /* virtual nodes */
    int      vnodes;           /* 0 = real hosts */
    uint32_t *rank_node;       /* [size] */
    char     my_node_name[MPI_MAX_PROCESSOR_NAME];
    /* clock sync */
    hs__clock_rec clk0;
    uint32_t *sync_leader;     /* [size] the first rank on each rank's host:
                                  ranks that share rank 0's host share its
                                  clock; one rank per other host is synced */
    z_stream zmeta, zmeta_t;   /* deflate states for clock/end blocks (file_lock) */
    uint64_t events_total, dropped_total;
} hs__global;

extern HS__HIDDEN hs__global hs__g;

/* Per thread.  Kept small: it lives in static TLS. */
typedef struct hs__tls {
    int depth;                 /* > 0 inside a wrapper */
    hs__tbuf *buf;
    uintptr_t ckey;            /* one-entry communicator cache */
    hs__comm *cval;
    uint32_t cgen;
    uint32_t tgen;             /* type cache generation */
    uintptr_t tkey[8];         /* datatype size cache */
    uint64_t tsize[8];
} hs__tls;

extern HS__HIDDEN __thread hs__tls hs__t HS__TLS;

/* ---- clock --------------------------------------------------------------- */

static inline uint64_t hs__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hs__now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (hs__likely(hs__g.use_tsc)) {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
#endif
    return hs__mono_ns();
}

/* ---- per-thread event buffers ----------------------------------------------- */

struct hs__tbuf {
    uint8_t *raw;
    size_t   cap;
    _Atomic size_t used;       /* committed bytes (the signal path reads it) */
    hs__rec *last;             /* last committed record, for folding polls */
    uint64_t last_flush;       /* tick */
    _Atomic int busy;          /* a flush owns the buffer */
    int      closed;           /* no more events (finalized, signal, retired) */
    uint16_t thread;
    uint64_t next_req, next_msg;
    uint64_t dropped;
    uint8_t *enc, *tenc, *out;  /* structure stream, time stream, block */
    size_t   enc_cap, tenc_cap, out_cap;
    z_stream zs, zt;
    int      zinit;
    MPI_Status *st;            /* scratch statuses for Waitall, Waitsome ... */
    size_t   st_cap;
    MPI_Request *rq;           /* scratch copy of request arrays */
    size_t   rq_cap;
    void    *scratch;          /* scratch for ranks, counts */
    size_t   scratch_cap;
    hs__tbuf *next_all;
};

/* Slow paths (core.c). */
HS__HIDDEN hs__rec *hs__reserve_slow(size_t size);
HS__HIDDEN void hs__flush_buf(hs__tbuf *b, int close_it);
HS__HIDDEN void hs__stop_recording(const char *why);

/* Reserves room for one record (+lists) in this thread's buffer.  NULL when
 * recording is off or the event had to be dropped.  The caller fills the
 * record and calls hs__commit with the same size. */
static inline hs__rec *hs__reserve(size_t size)
{
    hs__tbuf *b = hs__t.buf;
    if (hs__likely(b != NULL && !b->closed)) {
        size_t u = atomic_load_explicit(&b->used, memory_order_relaxed);
        if (hs__likely(u + size <= b->cap))
            return (hs__rec *)(b->raw + u);
    }
    return hs__reserve_slow(size);
}

static inline void hs__commit(hs__rec *r, size_t size)
{
    hs__tbuf *b = hs__t.buf;
    b->last = r;
    atomic_store_explicit(&b->used, atomic_load_explicit(&b->used, memory_order_relaxed) + size,
                          memory_order_release);
    if (hs__unlikely(r->t1 - b->last_flush > hs__g.flush_ticks))
        hs__flush_buf(b, 0);
}

/* Header of a record with no lists; fields the kind does not use are left
 * alone (the encoder only reads what the kind's table entry names). */
static inline hs__rec *hs__rec0(uint16_t kind, uint64_t t0, uint64_t t1, uint32_t flags)
{
    hs__rec *r = hs__reserve(sizeof(hs__rec));
    if (hs__likely(r != NULL)) {
        r->kind = kind;
        r->t0 = t0;
        r->t1 = t1;
        r->flags = flags;
        r->repeat = 1;
        r->na = r->nb = 0;
    }
    return r;
}

/* A record with na + nb list entries (hs__rec_size), its header filled as
 * hs__rec0 does; *size is what hs__commit takes.  NULL when nothing can be
 * recorded. */
static inline hs__rec *hs__recn(uint16_t kind, uint64_t t0, uint64_t t1, uint32_t flags,
                                uint32_t na, uint32_t nb, size_t *size)
{
    *size = hs__rec_size(kind, na, nb);
    hs__rec *r = hs__reserve(*size);
    if (hs__likely(r != NULL)) {
        r->kind = kind;
        r->t0 = t0;
        r->t1 = t1;
        r->flags = flags;
        r->repeat = 1;
        r->na = na;
        r->nb = nb;
    }
    return r;
}

/* Per-thread ids of requests (and matched messages): thread index in the
 * top bits so that threads never need to agree. */
static inline uint64_t hs__new_req_id(void)
{
    hs__tbuf *b = hs__t.buf;
    return b ? ((uint64_t)b->thread << 40) | ++b->next_req : 0;
}

/* ---- wrapper entry/exit ------------------------------------------------------ */

/* Passes the call straight through when inside another wrapper, before
 * MPI_Init, after MPI_Finalize, or when recording stopped. */
#define HS_ENTER(name, args)                                                 \
    hs__tls *const hs_tl = &hs__t;                                           \
    if (hs__unlikely(hs_tl->depth != 0 ||                                    \
                     !atomic_load_explicit(&hs__g.active, memory_order_relaxed))) \
        return HS_REAL(name) args;                                           \
    hs_tl->depth = 1

#define HS_LEAVE() (hs_tl->depth = 0)

/* ---- communicators (tables.c) ------------------------------------------------ */

struct hs__comm {
    uint64_t id;               /* job-wide */
    uint32_t index;            /* local index in this rank file */
    int      is_inter, is_world;
    int32_t  size, rsize;      /* local group, remote group */
    int32_t  my;               /* my rank in the local group */
    int32_t *local;            /* local rank -> world rank (NULL for world) */
    int32_t *remote;           /* remote rank -> world rank (intercomm) */
    _Atomic uint32_t seq;      /* constructors called on this communicator */
    _Atomic int refs;
    _Atomic int nb_state;      /* neighbours: 0 unknown, 1 ready, -1 none */
    int32_t *nb_in, *nb_out;   /* world ranks (or HS_TRACE_PROC_NULL) */
    int      nin, nout;
};

/* Communicator info for a handle, registering unknown ones lazily (the handle
 * must be valid: callers use it after the real call succeeded). */
HS__HIDDEN hs__comm *hs__comm_lookup_slow(MPI_Comm comm);
static inline hs__comm *hs__comm_get(MPI_Comm comm)
{
    if (hs__likely(comm == MPI_COMM_WORLD))
        return hs__g.world;
    uintptr_t k = (uintptr_t)comm;
    if (hs__t.ckey == k && hs__t.cgen == atomic_load_explicit(&hs__g.comm_gen,
                                                              memory_order_acquire))
        return hs__t.cval;
    return hs__comm_lookup_slow(comm);
}

/* World rank of rank r of c's peer group (remote group for intercomms). */
static inline int32_t hs__peer(const hs__comm *c, int r)
{
    if (hs__likely(r >= 0)) {
        if (c->is_world)
            return r;
        if (c->is_inter)
            return r < c->rsize ? c->remote[r] : HS_TRACE_RANK_NONE;
        return c->local && r < c->size ? c->local[r] : HS_TRACE_RANK_NONE;
    }
    if (r == MPI_PROC_NULL)
        return HS_TRACE_PROC_NULL;
    if (r == MPI_ANY_SOURCE)
        return HS_TRACE_ANY_SOURCE;
    if (r == MPI_ROOT)
        return HS_TRACE_ROOT;
    return HS_TRACE_RANK_NONE;
}
/* World rank of rank r of c's local group. */
static inline int32_t hs__local_peer(const hs__comm *c, int r)
{
    if (r >= 0 && !c->is_world && c->local)
        return r < c->size ? c->local[r] : HS_TRACE_RANK_NONE;
    return hs__peer(c, r);
}

/* Constructor count of a parent communicator, taken by every member for
 * every constructor call (even one that returns MPI_COMM_NULL). */
static inline uint32_t hs__comm_next_seq(hs__comm *parent)
{
    return atomic_fetch_add(&parent->seq, 1);
}
/* Registers a new communicator made by a constructor collective over
 * parent (seq from hs__comm_next_seq) and records COMM_CREATE.  idup: the
 * group is the parent's (MPI_Comm_idup). */
HS__HIDDEN hs__comm *hs__comm_register(MPI_Comm comm, int ctor, hs__comm *parent, uint32_t seq,
                                       uint64_t t0, uint64_t t1, int idup);
/* The same for constructors collective only over the new members; talks on
 * the new communicator to agree on the id. */
HS__HIDDEN hs__comm *hs__comm_register_agreed(MPI_Comm comm, int ctor, hs__comm *parent,
                                              uint64_t t0, uint64_t t1);
/* MPI_Comm_free/disconnect: take the entry before the real call, record
 * after it. */
HS__HIDDEN hs__comm *hs__comm_take(MPI_Comm comm);
HS__HIDDEN void hs__comm_freed(hs__comm *c, uint64_t t0, uint64_t t1, int rc);
HS__HIDDEN void hs__comm_release(hs__comm *c);
HS__HIDDEN hs__comm *hs__comm_new_static(uint64_t id, uint32_t index, int world);
HS__HIDDEN int hs__comm_neighbors(hs__comm *c, MPI_Comm comm);

/* ---- requests ------------------------------------------------------------------ */

enum { HS__RQ_SEND = 1, HS__RQ_RECV, HS__RQ_COLL, HS__RQ_RMA, HS__RQ_SENDRECV };

typedef struct hs__reqinfo {
    uint64_t  id;
    hs__comm *comm;            /* holds a reference (receive types) */
    int32_t   peer;            /* persistent sends: destination world rank */
    uint8_t   type, persistent, active;
    uint8_t   instant;         /* a no-op started complete (MPI_PROC_NULL
                                  peer): its completion needs no wait */
} hs__reqinfo;

/* The request table (tables.c).  It is on the hot path of every
 * nonblocking start and completion (an entry put at MPI_Isend, taken at
 * MPI_Wait), so it is a table of its own: entries are copied as typed
 * structs, the home slot is one multiply away (Fibonacci hashing: the top
 * bits of key * 2^64/phi, which mix both Open MPI's aligned pointers and
 * MPICH's handle integers), and a removal shifts the later entries of its
 * probe run back instead of leaving a tombstone.  So every entry is
 * reachable from its home slot without crossing an empty slot, and with few
 * requests in flight an entry sits in its home slot with the next one
 * empty: the inline functions below then do all the work, without a call
 * or a lock (single-threaded programs only; locks under
 * MPI_THREAD_MULTIPLE). */
typedef struct hs__rq_slot {
    uintptr_t key;             /* 0: empty (neither MPI gives out handle 0) */
    hs__reqinfo v;
} hs__rq_slot;
typedef struct hs__rqtab {
    hs__rq_slot *slots;        /* NULL until the first entry */
    size_t   mask;             /* capacity - 1 (capacity a power of two) */
    size_t   live;             /* at most 3/4 of the capacity */
    unsigned shift;            /* 64 - log2(capacity) */
    atomic_flag lock;          /* MPI_THREAD_MULTIPLE only */
} hs__rqtab;
extern HS__HIDDEN hs__rqtab hs__rq;

static inline size_t hs__rq_home(uintptr_t k, unsigned shift)
{
    return (size_t)(((uint64_t)k * 0x9e3779b97f4a7c15ull) >> shift);
}

HS__HIDDEN void hs__req_add_slow(MPI_Request h, const hs__reqinfo *ri);
HS__HIDDEN int hs__req_take_slow(MPI_Request h, hs__reqinfo *ri);

/* Adds (or replaces) the entry for h. */
static inline void hs__req_add(MPI_Request h, const hs__reqinfo *ri)
{
    uintptr_t k = (uintptr_t)h;
    if (hs__likely(!hs__g.mt && hs__rq.slots != NULL && k != 0 &&
                   (hs__rq.live + 1) * 4 <= (hs__rq.mask + 1) * 3)) {
        hs__rq_slot *s = &hs__rq.slots[hs__rq_home(k, hs__rq.shift)];
        /* An empty home slot: h is in no probe run, so not in the table. */
        if (hs__likely(s->key == 0 || s->key == k)) {
            hs__rq.live += s->key == 0;
            s->key = k;
            s->v = *ri;
            return;
        }
    }
    hs__req_add_slow(h, ri);
}

/* Removes and returns the entry for h (1) or 0 when unknown. */
static inline int hs__req_take(MPI_Request h, hs__reqinfo *ri)
{
    if (h == MPI_REQUEST_NULL)
        return 0;
    uintptr_t k = (uintptr_t)h;
    if (hs__likely(!hs__g.mt && hs__rq.slots != NULL)) {
        size_t i = hs__rq_home(k, hs__rq.shift);
        hs__rq_slot *s = &hs__rq.slots[i];
        /* In its home slot with the next one empty: nothing to shift. */
        if (hs__likely(s->key == k && hs__rq.slots[(i + 1) & hs__rq.mask].key == 0)) {
            *ri = s->v;
            s->key = 0;
            hs__rq.live--;
            return 1;
        }
    }
    return hs__req_take_slow(h, ri);
}
/* Looks up without removing (persistent starts). */
HS__HIDDEN int hs__req_peek(MPI_Request h, hs__reqinfo *ri);
HS__HIDDEN void hs__req_set_active(MPI_Request h, int active);

/* Matched messages of MPI_Mprobe/Improbe, consumed by MPI_Mrecv/Imrecv. */
typedef struct hs__msginfo {
    uint64_t id;
    hs__comm *comm;
    int32_t src, tag;
    uint64_t bytes;
} hs__msginfo;
HS__HIDDEN void hs__msg_add(MPI_Message h, const hs__msginfo *mi);
HS__HIDDEN int hs__msg_take(MPI_Message h, hs__msginfo *mi);

/* ---- windows ------------------------------------------------------------------- */

typedef struct hs__win {
    uint64_t id;
    uint32_t index;
    hs__comm *comm;            /* target ranks are ranks of this group */
} hs__win;
HS__HIDDEN hs__win *hs__win_get(MPI_Win w);
HS__HIDDEN void hs__win_register(MPI_Win w, MPI_Comm comm, int ctor, uint64_t bytes,
                                 uint64_t t0, uint64_t t1, int rc);
HS__HIDDEN hs__win *hs__win_take(MPI_Win w);
HS__HIDDEN void hs__win_freed(hs__win *x, uint64_t t0, uint64_t t1, int rc);

/* ---- datatypes and statuses ------------------------------------------------------ */

HS__HIDDEN uint64_t hs__type_size_slow(MPI_Datatype dt);
static inline uint64_t hs__type_size(MPI_Datatype dt)
{
    uintptr_t k = (uintptr_t)dt;
    unsigned i = (unsigned)((k >> 3) ^ (k >> 9)) & 7;
    uint32_t gen = atomic_load_explicit(&hs__g.type_gen, memory_order_acquire);
    if (hs__likely(hs__t.tkey[i] == k && hs__t.tgen == gen))
        return hs__t.tsize[i];
    if (hs__t.tgen != gen) {
        for (int j = 0; j < 8; j++)
            hs__t.tkey[j] = 0;
        hs__t.tgen = gen;
    }
    uint64_t s = hs__type_size_slow(dt);
    hs__t.tkey[i] = k;
    hs__t.tsize[i] = s;
    return s;
}

extern HS__HIDDEN int hs__status_direct;  /* status layout verified at init */
HS__HIDDEN uint64_t hs__status_bytes_slow(const MPI_Status *st);
static inline uint64_t hs__status_bytes(const MPI_Status *st)
{
    if (hs__likely(hs__status_direct)) {
#if defined(OPEN_MPI) && OPEN_MPI
        return (uint64_t)st->_ucount;
#else
        return ((uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32) +
               (unsigned)st->count_lo;
#endif
    }
    return hs__status_bytes_slow(st);
}
HS__HIDDEN int hs__status_cancelled(const MPI_Status *st);

/* ---- recording helpers (record.c) ------------------------------------------------- */

/* Bytes of count elements of dt; dt is not looked at for 0 elements (it may
 * be an argument MPI ignores). */
static inline uint64_t sz(uint64_t count, MPI_Datatype dt)
{
    return count ? count * hs__type_size(dt) : 0;
}

/* Trailing parameters, arguments and request pointer of the blocking (B_)
 * and nonblocking (NB_) twins stamped out by one wrapper macro. */
#define B_P
#define B_A
#define B_R NULL
#define NB_P , MPI_Request *req
#define NB_A , req
#define NB_R req

static inline uint32_t hs__rcflag(int rc)
{
    return rc == MPI_SUCCESS ? 0 : HS_TRACE_F_ERROR;
}

/* Monitoring decision for the next message to world rank dst. */
static inline uint32_t hs__monitor(int32_t dst)
{
    if (hs__likely(hs__g.sample_thr == UINT64_MAX))
        return dst >= 0 ? HS_TRACE_F_MONITORED : 0;
    if (dst < 0 || dst >= hs__g.size)
        return 0;
    uint64_t seq = atomic_fetch_add_explicit(&hs__g.mon_seq[dst], 1, memory_order_relaxed);
    return hs__monitored(hs__g.sample_seed, hs__g.sample_thr, (uint32_t)hs__g.rank,
                         (uint32_t)dst, seq) ? HS_TRACE_F_MONITORED : 0;
}

/* Point-to-point starts and receives: record.h (inlined into wrap_p2p.c). */

/* Completion family.  The wrapper takes the table entries of all n requests
 * before the real call (hs__compl_take), then describes what completed:
 * idx[0..ndone) the indices, st[] their statuses in the same order (NULL
 * when the call returns none).  hs__compl_finish records the event, folds
 * fruitless polls, and puts back the entries of requests that are still
 * pending (and of persistent ones). */
#define HS__COMPL_INLINE 4
typedef struct hs__compl {
    int n;
    const MPI_Request *before;   /* handles as they were before the call */
    hs__reqinfo *info;           /* [n] */
    unsigned char *known;        /* [n] */
    int *idx;                    /* [n] scratch for the wrapper */
    int nknown;
    int instant;                 /* every request is MPI_REQUEST_NULL or a
                                    non-persistent no-op (hs__reqinfo.instant):
                                    the call returns at once, one clock read */
    /* Storage for small n (MPI_Wait, MPI_Test: n = 1), on the caller's
     * stack: no trip to the thread's scratch buffers. */
    hs__reqinfo info_in[HS__COMPL_INLINE];
    MPI_Request before_in[HS__COMPL_INLINE];
    int idx_in[HS__COMPL_INLINE];
    unsigned char known_in[HS__COMPL_INLINE];
} hs__compl;
/* 0, or -1 when scratch memory is missing (then record nothing).  Sets
 * c->instant; the wrapper then passes t0 = 0 to hs__compl_finish, which
 * takes the event's single clock read (t0 = t1) after the call. */
HS__HIDDEN int hs__compl_take(hs__compl *c, int n, const MPI_Request *reqs);
/* MPI_Wait's whole record for the request `before` (hs__req_take gave
 * known and *ri; instant as hs__compl.instant, then t0 is ignored): the
 * same bytes as hs__compl_take + hs__compl_finish with n = 1.  st may be
 * NULL for a request that is not a receive (its status is not recorded). */
HS__HIDDEN void hs__wait1_finish(MPI_Request before, int known, hs__reqinfo *ri, int instant,
                                 uint64_t t0, int rc, const MPI_Status *st);
HS__HIDDEN void hs__compl_finish(hs__compl *c, uint16_t kind, uint64_t t0, int rc, int ndone,
                                 const int *idx, const MPI_Status *st);

HS__HIDDEN void *hs__scratch(size_t bytes);
HS__HIDDEN MPI_Status *hs__statuses(int n);
HS__HIDDEN MPI_Request *hs__reqcopy(int n);

/* core.c */
HS__HIDDEN void hs__start(int provided, uint64_t t0, uint64_t t1);
/* MPI_Finalize: the second clock measurement (collective; before the real
 * call); 1 when *c1 was filled. */
HS__HIDDEN int hs__finalize_prepare(hs__clock_rec *c1);
/* Flushes every buffer, writes the end record and closes the rank file. */
HS__HIDDEN void hs__finish(int reason, int code, const hs__clock_rec *c1);
HS__HIDDEN void hs__early_init(void);
HS__HIDDEN void hs__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
