/* libtrace/wire/wire_ucx.c — interposition of UCX's UCP API.
 *
 * Which entry points the MPIs of this machine call (nm -D on the libraries;
 * docs/wire.md keeps the list): MPICH 4.0 ch4:ucx (libmpich.so.12) the
 * nbx tag calls, ucp_tag_msg_recv_nbx, ucp_am_send_nb, ucp_put/_nb/_nbi,
 * ucp_get_nb/_nbi, ucp_ep_flush, ucp_worker_flush_nb, ucp_worker_get_address;
 * Open MPI 4.1 pml ucx the _nb and nbx tag calls, ucp_tag_msg_recv_nb,
 * ucp_request_test, ucp_worker_query; osc ucx ucp_put_nbi/ucp_get_nbi,
 * ucp_atomic_post/ucp_atomic_fetch_nb, ucp_ep_flush_nb, ucp_worker_flush_nb,
 * ucp_worker_fence.  The nbx forms the libraries do not call yet (put/get/
 * atomic/am/stream nbx) are wrapped too.
 *
 * Each wrapper forwards its arguments unchanged, with one exception: a
 * completion callback is replaced by a trampoline (one per distinct
 * original callback, from a fixed set) that calls the original with the
 * same arguments, then records the completion.  nbx parameters are copied
 * for that only when every attribute bit is one this build knows, so a
 * newer caller's fields are never cut off; otherwise the call is forwarded
 * as is and its completion is not timed.
 *
 * Peers: an endpoint is created from the remote worker's address, whose
 * bytes 1..8 are that worker's 64-bit UUID (UCX's ucp_address_pack); the
 * endpoint table maps each endpoint to it, and each rank records the UUIDs
 * of its own workers (ucp_worker_get_address, ucp_worker_query), so the
 * reader maps every endpoint to a world rank without any exchange at run
 * time: communicators (world, split, dup) do not matter, endpoints are per
 * process pair. */
#include "wire.h"

#if HS_HAVE_UCX
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

/* ---- endpoints ------------------------------------------------------------------ */

#define EP_SLOTS (1u << 16)
#define EP_PROBE 64
typedef struct epent {
    _Atomic(uintptr_t) key;
    _Atomic uint64_t uuid;
} epent;
static epent eps[EP_SLOTS];
static atomic_flag ep_lock = ATOMIC_FLAG_INIT;

static inline size_t ep_home(const void *p)
{
    return (size_t)(hs__mix64((uint64_t)(uintptr_t)p) & (EP_SLOTS - 1));
}

/* Reads without a lock: a slot's key is written once (after its value)
 * and never moved; a destroyed endpoint's slot keeps its key, and a new
 * endpoint at the same address overwrites the value. */
static uint64_t ep_uuid(ucp_ep_h ep)
{
    size_t i = ep_home(ep);
    for (unsigned k = 0; k < EP_PROBE; k++, i = (i + 1) & (EP_SLOTS - 1)) {
        uintptr_t key = atomic_load_explicit(&eps[i].key, memory_order_acquire);
        if (key == (uintptr_t)ep)
            return atomic_load_explicit(&eps[i].uuid, memory_order_relaxed);
        if (!key)
            return 0;
    }
    return 0;
}

static void ep_set(ucp_ep_h ep, uint64_t uuid)
{
    while (atomic_flag_test_and_set_explicit(&ep_lock, memory_order_acquire))
        ;
    size_t i = ep_home(ep);
    for (unsigned k = 0; k < EP_PROBE; k++, i = (i + 1) & (EP_SLOTS - 1)) {
        uintptr_t key = atomic_load_explicit(&eps[i].key, memory_order_relaxed);
        if (key == (uintptr_t)ep || !key) {
            atomic_store_explicit(&eps[i].uuid, uuid, memory_order_relaxed);
            atomic_store_explicit(&eps[i].key, (uintptr_t)ep, memory_order_release);
            break;
        }
    }
    atomic_flag_clear_explicit(&ep_lock, memory_order_release);
}

/* The worker UUID in a packed worker address (0 when too short to hold one). */
static uint64_t addr_uuid(const void *addr, size_t len)
{
    uint64_t u = 0;
    if (addr && len >= 9)
        memcpy(&u, (const uint8_t *)addr + 1, sizeof u);
    return u;
}

/* ---- sizes -------------------------------------------------------------------- */

static uint64_t dt_bytes(const void *buffer, size_t count, ucp_datatype_t dt)
{
    switch (dt & UCP_DATATYPE_CLASS_MASK) {
    case UCP_DATATYPE_CONTIG:
        return (uint64_t)count * (dt >> UCP_DATATYPE_SHIFT);
    case UCP_DATATYPE_IOV: {
        const ucp_dt_iov_t *iov = buffer;
        uint64_t s = 0;
        for (size_t i = 0; iov && i < count; i++)
            s += iov[i].length;
        return s;
    }
    case UCP_DATATYPE_GENERIC:
        /* Non-contiguous MPI datatypes (MPICH): the packed size is known
         * only to the datatype's own pack state, and starting one outside
         * UCP corrupts MPICH's (yaksa) state, so it is not asked: 0 here;
         * the receiver's completion has the length. */
        return 0;
    default:
        return 0;
    }
}

static inline uint64_t nbx_bytes(const void *buffer, size_t count,
                                 const ucp_request_param_t *p)
{
    if (p && (p->op_attr_mask & UCP_OP_ATTR_FIELD_DATATYPE))
        return dt_bytes(buffer, count, p->datatype);
    return count;
}

/* ---- callbacks ---------------------------------------------------------------- */

#define NTRAMP 16
#define KNOWN_ATTRS                                                                          \
    (UCP_OP_ATTR_FIELD_REQUEST | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |  \
     UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_REPLY_BUFFER | \
     UCP_OP_ATTR_FIELD_MEMORY_TYPE | UCP_OP_ATTR_FIELD_RECV_INFO | UCP_OP_ATTR_FIELD_MEMH |  \
     UCP_OP_ATTR_FLAG_NO_IMM_CMPL | UCP_OP_ATTR_FLAG_FAST_CMPL |                             \
     UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL | UCP_OP_ATTR_FLAG_MULTI_SEND)

static inline uint32_t status_flags(ucs_status_t st)
{
    if (st == UCS_OK)
        return 0;
    return st == UCS_ERR_CANCELED ? HS_TRACE_F_CANCELLED : HS_TRACE_F_ERROR;
}

/* The time is read by hs__wreq_done, only for a request it tracks (a status
 * check after the callback already reported it reads no clock) and not
 * inside a posting call (the completion gets that call's stamp). */
static void completed(void *req, ucs_status_t st, uint64_t len, uint64_t stag)
{
    hs__wdone d = { .t = 0, .flags = status_flags(st), .bytes = len, .stag = stag };
    hs__wreq_done(req, &d);
}

/* The protocol of a send request, from UCP's own description of it
 * (ucp_request_query, UCX >= 1.12; absent: unknown).  Asked in the send
 * callback trampolines, before the original callback (the request is alive
 * then whatever the threading).  The info string names the progress
 * function or protocol: "rndv" for rendezvous ("ucp_rndv_progress_rma_put_
 * zcopy", "rendezvous zero-copy read from remote ..."), anything else is
 * eager. */
typedef ucs_status_t (*query_fn)(void *, ucp_request_attr_t *);
static query_fn query_real(void)
{
    static _Atomic(query_fn) fn;
    static _Atomic int looked;
    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        query_fn f = (query_fn)dlsym(RTLD_NEXT, "ucp_request_query");
        if (!f) {
            void *h = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
            if (h)
                f = (query_fn)dlsym(h, "ucp_request_query");
        }
        atomic_store_explicit(&fn, f, memory_order_relaxed);
        atomic_store_explicit(&looked, 1, memory_order_release);
    }
    return atomic_load_explicit(&fn, memory_order_relaxed);
}

static uint32_t send_protocol(void *req)
{
    /* only while recording, and only for a successful completion: after an
     * error UCX may have cut the request from its endpoint (send.ep = NULL
     * when its memory is invalidated), which the query would follow */
    if (!hs__wire_proto || !hs__wh ||
        !atomic_load_explicit(&hs__wire_on, memory_order_relaxed))
        return 0;
    query_fn q = query_real();
    if (!q || !req)
        return 0;
    char s[256];
    ucp_request_attr_t a = { .field_mask = UCP_REQUEST_ATTR_FIELD_INFO_STRING |
                                           UCP_REQUEST_ATTR_FIELD_INFO_STRING_SIZE,
                             .debug_string = s, .debug_string_size = sizeof s };
    if (q(req, &a) != UCS_OK)
        return 0;
    s[sizeof s - 1] = 0;
    if (!strstr(s, "send"))   /* a put, get, flush: no send protocol */
        return 0;
    if (!strstr(s, "rndv") && !strstr(s, "rendezvous"))
        return HS_TRACE_F_WIRE_EAGER;
    uint32_t f = HS_TRACE_F_WIRE_RNDV;
    if (strstr(s, "put") || strstr(s, "write"))
        f |= HS_TRACE_F_WIRE_RPUT;
    else if (strstr(s, "get") || strstr(s, "read"))
        f |= HS_TRACE_F_WIRE_RGET;
    return f;
}

static void send_completed(void *req, ucs_status_t st, uint32_t proto)
{
    hs__wdone d = { .t = 0, .flags = status_flags(st) | proto };
    hs__wreq_done(req, &d);
}

/* ---- user-data slots -------------------------------------------------------------
 *
 * An nbx call with a completion callback passes UCP a user-data pointer of
 * its own: the wrapper puts the caller's user data and the operation's id
 * (taken before the call, so that a completion inside the call can name
 * it) in a slot of the posting thread's table and passes the slot instead;
 * the trampoline takes both back, frees the slot and calls the original
 * callback with the original user data.  The completion is then found
 * without the pending-request table: no lock, no lookup, and a status check
 * or a release of such a request finds nothing to do.  UCP calls the
 * callback of a request it returned at most once (completion, error,
 * ucp_request_cancel), and never for an operation that completed or failed
 * in the posting call (then the wrapper frees the slot).  ucp_request_free
 * of an unfinished request drops its callback (UCX clears the request's
 * callback flag; the MPIs free their requests inside the callback): that
 * operation gets no completion record, as before, and its slot stays taken
 * (slots are probed onwards, so such slots are skipped).
 *
 * Only the owner thread takes slots (no atomic read-modify-write); any
 * thread frees one (the callback may run on another thread) with a release
 * store the owner's acquire load pairs with.  A table whose next UD_PROBE
 * slots are all in use (requests never completed: a worker destroyed with
 * requests pending) makes the call fall back to the request table. */
#define UD_SLOTS 1024
#define UD_PROBE 8
typedef struct udslot {
    void *ud;
    _Atomic uint64_t id;
    _Atomic int busy;
} udslot;
static __thread udslot *ud_tab __attribute__((tls_model("initial-exec")));
static __thread unsigned ud_next __attribute__((tls_model("initial-exec")));
static __thread int ud_failed __attribute__((tls_model("initial-exec")));
static pthread_key_t ud_key;
static pthread_once_t ud_once = PTHREAD_ONCE_INIT;

/* At thread exit the table is freed unless a slot is still in use (a
 * callback may yet run on another thread and read it): then it is left. */
static void ud_retire(void *arg)
{
    udslot *t = arg;
    for (unsigned i = 0; i < UD_SLOTS; i++)
        if (atomic_load_explicit(&t[i].busy, memory_order_acquire))
            return;
    free(t);
}
static void ud_make_key(void)
{
    if (pthread_key_create(&ud_key, ud_retire) != 0)
        ud_key = (pthread_key_t)-1;
}

static udslot *ud_get(void)
{
    udslot *t = ud_tab;
    if (hs__wunlikely(!t)) {
        if (ud_failed)
            return NULL;
        pthread_once(&ud_once, ud_make_key);
        if (ud_key == (pthread_key_t)-1 || !(t = calloc(UD_SLOTS, sizeof *t)) ||
            pthread_setspecific(ud_key, t) != 0) {
            free(t);
            ud_failed = 1;
            return NULL;
        }
        ud_tab = t;
    }
    unsigned i = ud_next;
    for (unsigned k = 0; k < UD_PROBE; k++, i = (i + 1) & (UD_SLOTS - 1))
        if (!atomic_load_explicit(&t[i].busy, memory_order_acquire)) {
            atomic_store_explicit(&t[i].busy, 1, memory_order_relaxed);
            ud_next = (i + 1) & (UD_SLOTS - 1);
            return &t[i];
        }
    ud_next = i;   /* the next call looks further on */
    return NULL;
}

static inline void ud_put(udslot *s)
{
    atomic_store_explicit(&s->busy, 0, memory_order_release);
}

/* The completion of operation id, from its trampoline: inside a posting
 * call (this thread's depth) it takes that call's stamp, so no clock. */
static inline void ud_done(uint64_t id, ucs_status_t st, uint32_t proto, uint64_t len,
                           uint64_t stag)
{
    if (!id || !hs__wh || !atomic_load_explicit(&hs__wire_on, memory_order_relaxed))
        return;
    hs__wdone d = { .t = hs__wt.depth ? 0 : hs__wnow(), .flags = status_flags(st) | proto,
                    .bytes = len, .stag = stag };
    hs__wire_done(id, &d);
}

/* The info a receive callback gets lives in the request, which the
 * original callback may release: read it first.  After an error or a
 * cancellation it holds nothing (UCX leaves it as it was): not read. */
/* One table of original callbacks per callback type; trampoline k calls
 * table[k].  A slot, once taken, is never given back (the libraries use a
 * handful of callbacks); when all are taken the original goes through
 * unwrapped. */
#define TRAMP_TABLE(name, fntype)                                                  \
    static _Atomic(fntype) name##_orig[NTRAMP];                                    \
    static fntype name##_tramp[NTRAMP];                                            \
    static fntype name##_wrap(fntype orig)                                         \
    {                                                                              \
        if (!orig)                                                                 \
            return orig;                                                           \
        for (int k = 0; k < NTRAMP; k++) {                                         \
            fntype cur = atomic_load_explicit(&name##_orig[k], memory_order_acquire); \
            if (cur == orig)                                                       \
                return name##_tramp[k];                                            \
            if (!cur) {                                                            \
                fntype expect = NULL;                                              \
                if (atomic_compare_exchange_strong(&name##_orig[k], &expect, orig) || \
                    expect == orig)                                                \
                    return name##_tramp[k];                                        \
            }                                                                      \
        }                                                                          \
        return orig;                                                               \
    }

TRAMP_TABLE(snbx, ucp_send_nbx_callback_t)
TRAMP_TABLE(rnbx, ucp_tag_recv_nbx_callback_t)
TRAMP_TABLE(snb, ucp_send_callback_t)
TRAMP_TABLE(rnb, ucp_tag_recv_callback_t)
TRAMP_TABLE(stx, ucp_stream_recv_nbx_callback_t)
TRAMP_TABLE(stb, ucp_stream_recv_callback_t)
TRAMP_TABLE(usnbx, ucp_send_nbx_callback_t)
TRAMP_TABLE(urnbx, ucp_tag_recv_nbx_callback_t)
TRAMP_TABLE(ustx, ucp_stream_recv_nbx_callback_t)

#define TRAMPS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
                  X(14) X(15)
#define DEF_TRAMP(k)                                                                        \
    static void snbx_t##k(void *rq, ucs_status_t st, void *ud)                              \
    {                                                                                       \
        uint32_t pr = st == UCS_OK ? send_protocol(rq) : 0;                                 \
        atomic_load_explicit(&snbx_orig[k], memory_order_acquire)(rq, st, ud);              \
        send_completed(rq, st, pr);                                                         \
    }                                                                                       \
    static void rnbx_t##k(void *rq, ucs_status_t st, const ucp_tag_recv_info_t *in, void *ud) \
    {                                                                                       \
        uint64_t len = in && st == UCS_OK ? in->length : 0;                                  \
        uint64_t stag = in && st == UCS_OK ? in->sender_tag : 0;                            \
        atomic_load_explicit(&rnbx_orig[k], memory_order_acquire)(rq, st, in, ud);          \
        completed(rq, st, len, stag);                                                       \
    }                                                                                       \
    static void snb_t##k(void *rq, ucs_status_t st)                                         \
    {                                                                                       \
        uint32_t pr = st == UCS_OK ? send_protocol(rq) : 0;                                 \
        atomic_load_explicit(&snb_orig[k], memory_order_acquire)(rq, st);                   \
        send_completed(rq, st, pr);                                                         \
    }                                                                                       \
    static void rnb_t##k(void *rq, ucs_status_t st, ucp_tag_recv_info_t *in)                \
    {                                                                                       \
        uint64_t len = in && st == UCS_OK ? in->length : 0;                                  \
        uint64_t stag = in && st == UCS_OK ? in->sender_tag : 0;                            \
        atomic_load_explicit(&rnb_orig[k], memory_order_acquire)(rq, st, in);               \
        completed(rq, st, len, stag);                                                       \
    }                                                                                       \
    static void stx_t##k(void *rq, ucs_status_t st, size_t len, void *ud)                   \
    {                                                                                       \
        atomic_load_explicit(&stx_orig[k], memory_order_acquire)(rq, st, len, ud);          \
        completed(rq, st, len, 0);                                                          \
    }                                                                                       \
    static void stb_t##k(void *rq, ucs_status_t st, size_t len)                             \
    {                                                                                       \
        atomic_load_explicit(&stb_orig[k], memory_order_acquire)(rq, st, len);              \
        completed(rq, st, len, 0);                                                          \
    }                                                                                       \
    static void usnbx_t##k(void *rq, ucs_status_t st, void *ud)                             \
    {                                                                                       \
        udslot *s_ = ud;                                                                    \
        void *oud_ = s_->ud;                                                                \
        uint64_t id_ = atomic_load_explicit(&s_->id, memory_order_relaxed);                 \
        ud_put(s_);                                                                         \
        uint32_t pr = st == UCS_OK && id_ ? send_protocol(rq) : 0;                          \
        atomic_load_explicit(&usnbx_orig[k], memory_order_acquire)(rq, st, oud_);           \
        ud_done(id_, st, pr, 0, 0);                                                         \
    }                                                                                       \
    static void urnbx_t##k(void *rq, ucs_status_t st, const ucp_tag_recv_info_t *in,        \
                           void *ud)                                                        \
    {                                                                                       \
        udslot *s_ = ud;                                                                    \
        void *oud_ = s_->ud;                                                                \
        uint64_t id_ = atomic_load_explicit(&s_->id, memory_order_relaxed);                 \
        ud_put(s_);                                                                         \
        uint64_t len = in && st == UCS_OK ? in->length : 0;                                  \
        uint64_t stag = in && st == UCS_OK ? in->sender_tag : 0;                            \
        atomic_load_explicit(&urnbx_orig[k], memory_order_acquire)(rq, st, in, oud_);       \
        ud_done(id_, st, 0, len, stag);                                                     \
    }                                                                                       \
    static void ustx_t##k(void *rq, ucs_status_t st, size_t len, void *ud)                  \
    {                                                                                       \
        udslot *s_ = ud;                                                                    \
        void *oud_ = s_->ud;                                                                \
        uint64_t id_ = atomic_load_explicit(&s_->id, memory_order_relaxed);                 \
        ud_put(s_);                                                                         \
        atomic_load_explicit(&ustx_orig[k], memory_order_acquire)(rq, st, len, oud_);       \
        ud_done(id_, st, 0, len, 0);                                                        \
    }
TRAMPS(DEF_TRAMP)
#define SET_TRAMP(k)                                                                        \
    snbx_tramp[k] = snbx_t##k;                                                              \
    rnbx_tramp[k] = rnbx_t##k;                                                              \
    snb_tramp[k] = snb_t##k;                                                                \
    rnb_tramp[k] = rnb_t##k;                                                                \
    stx_tramp[k] = stx_t##k;                                                                \
    stb_tramp[k] = stb_t##k;                                                                \
    usnbx_tramp[k] = usnbx_t##k;                                                            \
    urnbx_tramp[k] = urnbx_t##k;                                                            \
    ustx_tramp[k] = ustx_t##k;
__attribute__((constructor)) static void tramp_init(void)
{
    TRAMPS(SET_TRAMP)
}

/* An nbx parameter block with the callback replaced, in *copy; returns the
 * block to pass on (param itself when it cannot be wrapped).  *slot: the
 * user-data slot the trampoline reports through (then *id is the
 * operation's id, taken now), or NULL (the request table's trampolines). */
enum { CB_SEND, CB_RECV, CB_STREAM };
static const ucp_request_param_t *wrap_param(const ucp_request_param_t *param,
                                             ucp_request_param_t *copy, int which,
                                             udslot **slot, uint64_t *id)
{
    *slot = NULL;
    *id = 0;
    if (!param || !(param->op_attr_mask & UCP_OP_ATTR_FIELD_CALLBACK) ||
        (param->op_attr_mask & ~(uint32_t)KNOWN_ATTRS))
        return param;
    *copy = *param;
    udslot *s = ud_get();
    if (s) {
        int w;
        if (which == CB_RECV)
            w = (copy->cb.recv = urnbx_wrap(param->cb.recv)) != param->cb.recv;
        else if (which == CB_STREAM)
            w = (copy->cb.recv_stream = ustx_wrap(param->cb.recv_stream)) !=
                param->cb.recv_stream;
        else
            w = (copy->cb.send = usnbx_wrap(param->cb.send)) != param->cb.send;
        if (w) {
            s->ud = param->op_attr_mask & UCP_OP_ATTR_FIELD_USER_DATA ? param->user_data : NULL;
            *id = hs__wire_newid();
            atomic_store_explicit(&s->id, *id, memory_order_relaxed);
            copy->user_data = s;
            copy->op_attr_mask |= UCP_OP_ATTR_FIELD_USER_DATA;
            *slot = s;
            return copy;
        }
        ud_put(s);
        *copy = *param;
    }
    if (which == CB_RECV)
        copy->cb.recv = rnbx_wrap(param->cb.recv);
    else if (which == CB_STREAM)
        copy->cb.recv_stream = stx_wrap(param->cb.recv_stream);
    else
        copy->cb.send = snbx_wrap(param->cb.send);
    return copy;
}

/* After the posting call: an immediate completion, an error, or a request
 * to track.  Returns the event flags. */
static inline uint32_t post_flags(ucs_status_ptr_t sp)
{
    if (sp == NULL)
        return HS_TRACE_F_WIRE_IMM;
    if (UCS_PTR_IS_ERR(sp))
        return HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR;
    return 0;
}
static inline void track(ucs_status_ptr_t sp, uint64_t id, int cb)
{
    if (sp != NULL && !UCS_PTR_IS_ERR(sp))
        hs__wreq_add(sp, id, cb);
}

#define REAL(name)                                                                   \
    (*({                                                                             \
        static __typeof__(&name) fp_;                                                \
        if (hs__wunlikely(!fp_))                                                      \
            fp_ = (__typeof__(&name))hs__wresolve(#name);                           \
        &fp_;                                                                        \
    }))

/* ---- wrapper bodies ---------------------------------------------------------------- */

/* Each wrapper is one of three shapes; the macros below are its whole body.
 * Unrecorded (re-entered, or recording off) it forwards its arguments as
 * given.  Recorded, the callback is replaced by a trampoline, the real call
 * is made, and one WIRE_OP is written when it returned (bytes and tag are
 * evaluated then, so they may look at sp_, the call's result), and a
 * returned request is entered in the pending table.
 *
 * NB: a call with a ucp_send_callback_t (or another callback type with its
 * own _wrap), `call` names the callback c_. */
#define NB(call, cbtype, wrapfn, cb, op, fl, bytes, tag, peer)                               \
    do {                                                                                      \
        int rec_ = hs__wenter();                                                              \
        cbtype c_ = rec_ ? wrapfn(cb) : (cb);                                                 \
        ucs_status_ptr_t sp_ = (call);                                                        \
        if (rec_) {                                                                           \
            uint64_t id_ = hs__wire_op(op, HS__WPOST, hs__wnow(), post_flags(sp_) | (fl),     \
                                       (bytes), (tag), (peer), 0);                            \
            track(sp_, id_, c_ != (cb));                                                      \
            hs__wleave();                                                                     \
        }                                                                                     \
        return sp_;                                                                           \
    } while (0)
#define NB_SEND(call, cb, op, fl, bytes, tag, ep)                                             \
    NB(call, ucp_send_callback_t, snb_wrap, cb, op, fl, bytes, tag, ep_uuid(ep))

/* NBX: a call with an nbx parameter block; `call` names the block p_. */
#define NBX(call, param, which, op, fl, bytes, tag, peer)                                     \
    do {                                                                                      \
        int rec_ = hs__wenter();                                                              \
        ucp_request_param_t copy_;                                                            \
        udslot *ud_ = NULL;                                                                   \
        uint64_t pre_ = 0;                                                                    \
        const ucp_request_param_t *p_ = (param);                                              \
        if (rec_ && p_ && (p_->op_attr_mask & UCP_OP_ATTR_FIELD_CALLBACK))                   \
            p_ = wrap_param(param, &copy_, which, &ud_, &pre_);                               \
        ucs_status_ptr_t sp_ = (call);                                                        \
        if (rec_) {                                                                           \
            uint64_t id_ = hs__wire_op(op, HS__WPOST, hs__wnow(), post_flags(sp_) | (fl),     \
                                       (bytes), (tag), (peer), pre_);                         \
            if (!ud_)                                                                         \
                track(sp_, id_, p_ != (param));                                               \
            else if (sp_ == NULL || UCS_PTR_IS_ERR(sp_))                                      \
                ud_put(ud_);   /* no callback for it */                                       \
            else if (!id_)     /* not written: no completion either */                        \
                atomic_store_explicit(&ud_->id, 0, memory_order_relaxed);                     \
            hs__wleave();                                                                     \
        }                                                                                     \
        return sp_;                                                                           \
    } while (0)

/* ST: a call that returns a status (implicit nbi operations, blocking
 * calls): UCS_OK completed, UCS_INPROGRESS completes at a later flush. */
static inline uint32_t st_flags(ucs_status_t st)
{
    return st == UCS_OK ? HS_TRACE_F_WIRE_IMM
         : st == UCS_INPROGRESS ? HS_TRACE_F_WIRE_NBI
                                : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR;
}
#define ST(call, op, fl, bytes, tag, peer)                                                    \
    do {                                                                                      \
        if (!hs__wenter())                                                                    \
            return (call);                                                                    \
        ucs_status_t st_ = (call);                                                            \
        hs__wire_op(op, HS__WPOST, hs__wnow(), st_flags(st_) | (fl), (bytes), (tag), (peer), \
                    0);                                                                       \
        hs__wleave();                                                                         \
        return st_;                                                                           \
    } while (0)

/* ---- tag matching ---------------------------------------------------------------- */

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buffer, size_t count, ucp_tag_t tag,
                                  const ucp_request_param_t *param)
{
    NBX(REAL(ucp_tag_send_nbx)(ep, buffer, count, tag, p_), param, CB_SEND,
        HS_TRACE_WOP_TAG_SEND, 0, nbx_bytes(buffer, count, param), tag, ep_uuid(ep));
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h ep, const void *buffer, size_t count,
                                       ucp_tag_t tag, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_tag_send_sync_nbx)(ep, buffer, count, tag, p_), param, CB_SEND,
        HS_TRACE_WOP_TAG_SSEND, 0, nbx_bytes(buffer, count, param), tag, ep_uuid(ep));
}

ucs_status_ptr_t ucp_tag_send_nb(ucp_ep_h ep, const void *buffer, size_t count,
                                 ucp_datatype_t datatype, ucp_tag_t tag, ucp_send_callback_t cb)
{
    NB_SEND(REAL(ucp_tag_send_nb)(ep, buffer, count, datatype, tag, c_), cb,
            HS_TRACE_WOP_TAG_SEND, 0, dt_bytes(buffer, count, datatype), tag, ep);
}

ucs_status_ptr_t ucp_tag_send_sync_nb(ucp_ep_h ep, const void *buffer, size_t count,
                                      ucp_datatype_t datatype, ucp_tag_t tag,
                                      ucp_send_callback_t cb)
{
    NB_SEND(REAL(ucp_tag_send_sync_nb)(ep, buffer, count, datatype, tag, c_), cb,
            HS_TRACE_WOP_TAG_SSEND, 0, dt_bytes(buffer, count, datatype), tag, ep);
}

ucs_status_t ucp_tag_send_nbr(ucp_ep_h ep, const void *buffer, size_t count,
                              ucp_datatype_t datatype, ucp_tag_t tag, void *req)
{
    if (!hs__wenter())
        return REAL(ucp_tag_send_nbr)(ep, buffer, count, datatype, tag, req);
    ucs_status_t st = REAL(ucp_tag_send_nbr)(ep, buffer, count, datatype, tag, req);
    uint32_t fl = st == UCS_OK ? HS_TRACE_F_WIRE_IMM
                  : st == UCS_INPROGRESS ? 0 : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR;
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_SEND, HS__WPOST, hs__wnow(), fl,
                              dt_bytes(buffer, count, datatype), tag, ep_uuid(ep), 0);
    if (st == UCS_INPROGRESS)
        hs__wreq_add(req, id, 0);
    hs__wleave();
    return st;
}

/* A receive that completed at once (the message was there) has its size in
 * recv_info; otherwise the buffer's capacity (the completion has the size).
 * UCX 1.13 does not always fill recv_info for a receive completed at once
 * (an unexpected 0-byte message on the self transport leaves it as the
 * caller had it, measured): a length beyond the buffer's capacity, which
 * no receive can deliver, is not believed. */
static uint64_t recv_bytes(ucs_status_ptr_t sp, const void *buffer, size_t count,
                           const ucp_request_param_t *param)
{
    if (sp == NULL && param && (param->op_attr_mask & UCP_OP_ATTR_FIELD_RECV_INFO) &&
        param->recv_info.tag_info) {
        uint64_t len = param->recv_info.tag_info->length;
        if (len <= count)   /* within the capacity whatever the element size */
            return len;
        uint64_t cap = nbx_bytes(buffer, count, param);
        if (len <= cap || (cap == 0 && count != 0))   /* a generic datatype: size unknown */
            return len;
        return cap;
    }
    return nbx_bytes(buffer, count, param);
}

ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h worker, void *buffer, size_t count, ucp_tag_t tag,
                                  ucp_tag_t tag_mask, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_tag_recv_nbx)(worker, buffer, count, tag, tag_mask, p_), param, CB_RECV,
        HS_TRACE_WOP_TAG_RECV, HS_TRACE_F_WIRE_IN, recv_bytes(sp_, buffer, count, param), tag, 0);
}

ucs_status_ptr_t ucp_tag_recv_nb(ucp_worker_h worker, void *buffer, size_t count,
                                 ucp_datatype_t datatype, ucp_tag_t tag, ucp_tag_t tag_mask,
                                 ucp_tag_recv_callback_t cb)
{
    NB(REAL(ucp_tag_recv_nb)(worker, buffer, count, datatype, tag, tag_mask, c_),
       ucp_tag_recv_callback_t, rnb_wrap, cb, HS_TRACE_WOP_TAG_RECV, HS_TRACE_F_WIRE_IN,
       dt_bytes(buffer, count, datatype), tag, 0);
}

ucs_status_t ucp_tag_recv_nbr(ucp_worker_h worker, void *buffer, size_t count,
                              ucp_datatype_t datatype, ucp_tag_t tag, ucp_tag_t tag_mask,
                              void *req)
{
    if (!hs__wenter())
        return REAL(ucp_tag_recv_nbr)(worker, buffer, count, datatype, tag, tag_mask, req);
    ucs_status_t st = REAL(ucp_tag_recv_nbr)(worker, buffer, count, datatype, tag, tag_mask, req);
    uint32_t fl = HS_TRACE_F_WIRE_IN |
                  (st == UCS_INPROGRESS || st == UCS_OK ? 0 : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_RECV, HS__WPOST, hs__wnow(), fl,
                              dt_bytes(buffer, count, datatype), tag, 0, 0);
    if (st == UCS_INPROGRESS || st == UCS_OK)   /* completion seen by ucp_request_test */
        hs__wreq_add(req, id, 0);
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_tag_msg_recv_nbx(ucp_worker_h worker, void *buffer, size_t count,
                                      ucp_tag_message_h message, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_tag_msg_recv_nbx)(worker, buffer, count, message, p_), param, CB_RECV,
        HS_TRACE_WOP_TAG_RECV, HS_TRACE_F_WIRE_IN, nbx_bytes(buffer, count, param), 0, 0);
}

ucs_status_ptr_t ucp_tag_msg_recv_nb(ucp_worker_h worker, void *buffer, size_t count,
                                     ucp_datatype_t datatype, ucp_tag_message_h message,
                                     ucp_tag_recv_callback_t cb)
{
    NB(REAL(ucp_tag_msg_recv_nb)(worker, buffer, count, datatype, message, c_),
       ucp_tag_recv_callback_t, rnb_wrap, cb, HS_TRACE_WOP_TAG_RECV, HS_TRACE_F_WIRE_IN,
       dt_bytes(buffer, count, datatype), 0, 0);
}

/* ---- RMA and atomics ---------------------------------------------------------------- */

ucs_status_ptr_t ucp_put_nbx(ucp_ep_h ep, const void *buffer, size_t count, uint64_t remote_addr,
                             ucp_rkey_h rkey, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_put_nbx)(ep, buffer, count, remote_addr, rkey, p_), param, CB_SEND,
        HS_TRACE_WOP_PUT, 0, nbx_bytes(buffer, count, param), 0, ep_uuid(ep));
}

ucs_status_ptr_t ucp_get_nbx(ucp_ep_h ep, void *buffer, size_t count, uint64_t remote_addr,
                             ucp_rkey_h rkey, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_get_nbx)(ep, buffer, count, remote_addr, rkey, p_), param, CB_SEND,
        HS_TRACE_WOP_GET, HS_TRACE_F_WIRE_IN, nbx_bytes(buffer, count, param), 0, ep_uuid(ep));
}

ucs_status_t ucp_put_nbi(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                         ucp_rkey_h rkey)
{
    ST(REAL(ucp_put_nbi)(ep, buffer, length, remote_addr, rkey), HS_TRACE_WOP_PUT, 0, length, 0,
       ep_uuid(ep));
}

ucs_status_t ucp_get_nbi(ucp_ep_h ep, void *buffer, size_t length, uint64_t remote_addr,
                         ucp_rkey_h rkey)
{
    ST(REAL(ucp_get_nbi)(ep, buffer, length, remote_addr, rkey), HS_TRACE_WOP_GET,
       HS_TRACE_F_WIRE_IN, length, 0, ep_uuid(ep));
}

ucs_status_ptr_t ucp_put_nb(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                            ucp_rkey_h rkey, ucp_send_callback_t cb)
{
    NB_SEND(REAL(ucp_put_nb)(ep, buffer, length, remote_addr, rkey, c_), cb, HS_TRACE_WOP_PUT,
            0, length, 0, ep);
}

ucs_status_ptr_t ucp_get_nb(ucp_ep_h ep, void *buffer, size_t length, uint64_t remote_addr,
                            ucp_rkey_h rkey, ucp_send_callback_t cb)
{
    NB_SEND(REAL(ucp_get_nb)(ep, buffer, length, remote_addr, rkey, c_), cb, HS_TRACE_WOP_GET,
            HS_TRACE_F_WIRE_IN, length, 0, ep);
}

/* blocking: completed when they return (an error otherwise) */
ucs_status_t ucp_put(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                     ucp_rkey_h rkey)
{
    ST(REAL(ucp_put)(ep, buffer, length, remote_addr, rkey), HS_TRACE_WOP_PUT, 0, length, 0,
       ep_uuid(ep));
}

ucs_status_t ucp_get(ucp_ep_h ep, void *buffer, size_t length, uint64_t remote_addr,
                     ucp_rkey_h rkey)
{
    ST(REAL(ucp_get)(ep, buffer, length, remote_addr, rkey), HS_TRACE_WOP_GET,
       HS_TRACE_F_WIRE_IN, length, 0, ep_uuid(ep));
}

ucs_status_t ucp_atomic_post(ucp_ep_h ep, ucp_atomic_post_op_t opcode, uint64_t value,
                             size_t op_size, uint64_t remote_addr, ucp_rkey_h rkey)
{
    ST(REAL(ucp_atomic_post)(ep, opcode, value, op_size, remote_addr, rkey), HS_TRACE_WOP_ATOMIC,
       0, op_size, (uint64_t)opcode, ep_uuid(ep));
}

ucs_status_ptr_t ucp_atomic_fetch_nb(ucp_ep_h ep, ucp_atomic_fetch_op_t opcode, uint64_t value,
                                     void *result, size_t op_size, uint64_t remote_addr,
                                     ucp_rkey_h rkey, ucp_send_callback_t cb)
{
    NB_SEND(REAL(ucp_atomic_fetch_nb)(ep, opcode, value, result, op_size, remote_addr, rkey, c_),
            cb, HS_TRACE_WOP_ATOMIC_FETCH, HS_TRACE_F_WIRE_IN, op_size, (uint64_t)opcode, ep);
}

ucs_status_ptr_t ucp_atomic_op_nbx(ucp_ep_h ep, ucp_atomic_op_t opcode, const void *buffer,
                                   size_t count, uint64_t remote_addr, ucp_rkey_h rkey,
                                   const ucp_request_param_t *param)
{
    int fetch = param && (param->op_attr_mask & UCP_OP_ATTR_FIELD_REPLY_BUFFER);
    NBX(REAL(ucp_atomic_op_nbx)(ep, opcode, buffer, count, remote_addr, rkey, p_), param,
        CB_SEND, fetch ? HS_TRACE_WOP_ATOMIC_FETCH : HS_TRACE_WOP_ATOMIC,
        fetch ? HS_TRACE_F_WIRE_IN : 0, nbx_bytes(buffer, count, param), (uint64_t)opcode,
        ep_uuid(ep));
}

/* ---- active messages and streams --------------------------------------------------- */

ucs_status_ptr_t ucp_am_send_nb(ucp_ep_h ep, uint16_t id, const void *buffer, size_t count,
                                ucp_datatype_t datatype, ucp_send_callback_t cb, unsigned flags)
{
    NB_SEND(REAL(ucp_am_send_nb)(ep, id, buffer, count, datatype, c_, flags), cb,
            HS_TRACE_WOP_AM_SEND, 0, dt_bytes(buffer, count, datatype), id, ep);
}

ucs_status_ptr_t ucp_am_send_nbx(ucp_ep_h ep, unsigned id, const void *header,
                                 size_t header_length, const void *buffer, size_t count,
                                 const ucp_request_param_t *param)
{
    NBX(REAL(ucp_am_send_nbx)(ep, id, header, header_length, buffer, count, p_), param, CB_SEND,
        HS_TRACE_WOP_AM_SEND, 0, header_length + nbx_bytes(buffer, count, param), id,
        ep_uuid(ep));
}

/* Active-message handlers (ucp_worker_set_am_handler): registration is rare,
 * so each gets a small context holding the original handler and argument. */
typedef struct amctx {
    ucp_am_callback_t cb;
    void *arg;
    uint16_t id;
} amctx;
static ucs_status_t am_tramp(void *arg, void *data, size_t length, ucp_ep_h reply_ep,
                             unsigned flags)
{
    amctx *c = arg;
    uint64_t t = hs__wnow();
    if (hs__wh && atomic_load_explicit(&hs__wire_on, memory_order_relaxed))
        hs__wire_op(HS_TRACE_WOP_AM_RECV, t, t, HS_TRACE_F_WIRE_IN | HS_TRACE_F_WIRE_IMM, length,
                    c->id, reply_ep ? ep_uuid(reply_ep) : 0, 0);
    return c->cb(c->arg, data, length, reply_ep, flags);
}

ucs_status_t ucp_worker_set_am_handler(ucp_worker_h worker, uint16_t id, ucp_am_callback_t cb,
                                       void *arg, uint32_t flags)
{
    amctx *c = (hs__wh && cb) ? malloc(sizeof *c) : NULL;
    if (!c)
        return REAL(ucp_worker_set_am_handler)(worker, id, cb, arg, flags);
    *c = (amctx){ cb, arg, id };
    /* Never freed: a handler may still run until the worker is destroyed. */
    return REAL(ucp_worker_set_am_handler)(worker, id, am_tramp, c, flags);
}

ucs_status_ptr_t ucp_stream_send_nbx(ucp_ep_h ep, const void *buffer, size_t count,
                                     const ucp_request_param_t *param)
{
    NBX(REAL(ucp_stream_send_nbx)(ep, buffer, count, p_), param, CB_SEND,
        HS_TRACE_WOP_STREAM_SEND, 0, nbx_bytes(buffer, count, param), 0, ep_uuid(ep));
}

ucs_status_ptr_t ucp_stream_send_nb(ucp_ep_h ep, const void *buffer, size_t count,
                                    ucp_datatype_t datatype, ucp_send_callback_t cb,
                                    unsigned flags)
{
    NB_SEND(REAL(ucp_stream_send_nb)(ep, buffer, count, datatype, c_, flags), cb,
            HS_TRACE_WOP_STREAM_SEND, 0, dt_bytes(buffer, count, datatype), 0, ep);
}

/* Stream receives: completed at once, *length has what arrived; otherwise
 * the buffer's capacity, and the completion (stream callback trampoline, or
 * a status check) has the length received. */
static uint64_t stream_bytes(ucs_status_ptr_t sp, const size_t *length, uint64_t cap)
{
    return sp == NULL && length ? *length : cap;
}

ucs_status_ptr_t ucp_stream_recv_nbx(ucp_ep_h ep, void *buffer, size_t count, size_t *length,
                                     const ucp_request_param_t *param)
{
    NBX(REAL(ucp_stream_recv_nbx)(ep, buffer, count, length, p_), param, CB_STREAM,
        HS_TRACE_WOP_STREAM_RECV, HS_TRACE_F_WIRE_IN,
        stream_bytes(sp_, length, nbx_bytes(buffer, count, param)), 0, ep_uuid(ep));
}

ucs_status_ptr_t ucp_stream_recv_nb(ucp_ep_h ep, void *buffer, size_t count,
                                    ucp_datatype_t datatype, ucp_stream_recv_callback_t cb,
                                    size_t *length, unsigned flags)
{
    NB(REAL(ucp_stream_recv_nb)(ep, buffer, count, datatype, c_, length, flags),
       ucp_stream_recv_callback_t, stb_wrap, cb, HS_TRACE_WOP_STREAM_RECV, HS_TRACE_F_WIRE_IN,
       stream_bytes(sp_, length, dt_bytes(buffer, count, datatype)), 0, ep_uuid(ep));
}

/* ---- flushes ------------------------------------------------------------------ */

ucs_status_t ucp_ep_flush(ucp_ep_h ep)
{
    ST(REAL(ucp_ep_flush)(ep), HS_TRACE_WOP_FLUSH, 0, 0, 0, ep_uuid(ep));
}

ucs_status_ptr_t ucp_ep_flush_nb(ucp_ep_h ep, unsigned flags, ucp_send_callback_t cb)
{
    NB_SEND(REAL(ucp_ep_flush_nb)(ep, flags, c_), cb, HS_TRACE_WOP_FLUSH, 0, 0, 0, ep);
}

ucs_status_ptr_t ucp_ep_flush_nbx(ucp_ep_h ep, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_ep_flush_nbx)(ep, p_), param, CB_SEND, HS_TRACE_WOP_FLUSH, 0, 0, 0,
        ep_uuid(ep));
}

ucs_status_t ucp_worker_flush(ucp_worker_h worker)
{
    ST(REAL(ucp_worker_flush)(worker), HS_TRACE_WOP_FLUSH, 0, 0, 0, 0);
}

ucs_status_ptr_t ucp_worker_flush_nb(ucp_worker_h worker, unsigned flags, ucp_send_callback_t cb)
{
    NB(REAL(ucp_worker_flush_nb)(worker, flags, c_), ucp_send_callback_t, snb_wrap, cb,
       HS_TRACE_WOP_FLUSH, 0, 0, 0, 0);
}

ucs_status_ptr_t ucp_worker_flush_nbx(ucp_worker_h worker, const ucp_request_param_t *param)
{
    NBX(REAL(ucp_worker_flush_nbx)(worker, p_), param, CB_SEND, HS_TRACE_WOP_FLUSH, 0, 0, 0, 0);
}

ucs_status_t ucp_worker_fence(ucp_worker_h worker)
{
    ST(REAL(ucp_worker_fence)(worker), HS_TRACE_WOP_FLUSH, 0, 0, 0, 0);
}

/* ---- progress ------------------------------------------------------------------ */

/* Not a record per call (MPI polls in tight loops): the calls of a thread
 * between two of its other wire events are one WIRE_PROGRESS record, with
 * their number, how many made progress and the time spent inside them.
 * Callbacks that complete operations run inside, unguarded, as before. */
unsigned ucp_worker_progress(ucp_worker_h worker)
{
    /* a call from inside another (a callback that polls) is part of it */
    if (hs__wunlikely(hs__wt.depth != 0 || hs__wt.poll_t0 != 0 || hs__wh == NULL ||
                      !atomic_load_explicit(&hs__wire_on, memory_order_relaxed)))
        return REAL(ucp_worker_progress)(worker);
    uint64_t t0 = hs__wt.poll_t0 = hs__wnow();
    unsigned n = REAL(ucp_worker_progress)(worker);
    hs__wt.poll_t0 = 0;
    hs__wire_progress(t0, hs__wnow(), n);
    return n;
}

/* ---- completion by polling, release ------------------------------------------------ */

ucs_status_t ucp_request_check_status(void *request)
{
    ucs_status_t st = REAL(ucp_request_check_status)(request);
    if (st != UCS_INPROGRESS && hs__wh)
        completed(request, st, 0, 0);
    return st;
}

int ucp_request_is_completed(void *request)
{
    int done = REAL(ucp_request_is_completed)(request);
    if (done && hs__wh)
        completed(request, REAL(ucp_request_check_status)(request), 0, 0);
    return done;
}

ucs_status_t ucp_request_test(void *request, ucp_tag_recv_info_t *info)
{
    ucs_status_t st = REAL(ucp_request_test)(request, info);
    if (st != UCS_INPROGRESS && hs__wh)   /* info holds nothing after an error */
        completed(request, st, info && st == UCS_OK ? info->length : 0,
                  info && st == UCS_OK ? info->sender_tag : 0);
    return st;
}

void ucp_request_free(void *request)
{
    if (hs__wh)
        hs__wreq_forget(request);
    REAL(ucp_request_free)(request);
}

void ucp_request_release(void *request)
{
    if (hs__wh)
        hs__wreq_forget(request);
    REAL(ucp_request_release)(request);
}

/* ---- workers and endpoints ---------------------------------------------------------- */

ucs_status_t ucp_worker_get_address(ucp_worker_h worker, ucp_address_t **address_p,
                                    size_t *address_length_p)
{
    ucs_status_t st = REAL(ucp_worker_get_address)(worker, address_p, address_length_p);
    if (st == UCS_OK && hs__wh && address_p && address_length_p)
        hs__wire_worker(hs__wnow(), addr_uuid(*address_p, *address_length_p),
                        *address_length_p);
    return st;
}

ucs_status_t ucp_worker_query(ucp_worker_h worker, ucp_worker_attr_t *attr)
{
    ucs_status_t st = REAL(ucp_worker_query)(worker, attr);
    if (st == UCS_OK && hs__wh && attr && (attr->field_mask & UCP_WORKER_ATTR_FIELD_ADDRESS))
        hs__wire_worker(hs__wnow(), addr_uuid(attr->address, attr->address_length),
                        attr->address_length);
    return st;
}

ucs_status_t ucp_ep_create(ucp_worker_h worker, const ucp_ep_params_t *params, ucp_ep_h *ep_p)
{
    uint64_t t0 = hs__wh ? hs__wnow() : 0;
    ucs_status_t st = REAL(ucp_ep_create)(worker, params, ep_p);
    if (st != UCS_OK || !hs__wh || !ep_p)
        return st;
    /* The remote worker address has no length argument; its UUID is at
     * bytes 1..8 of every packed address. */
    uint64_t uuid = params && (params->field_mask & UCP_EP_PARAM_FIELD_REMOTE_ADDRESS)
                    ? addr_uuid(params->address, 9) : 0;
    ep_set(*ep_p, uuid);
    hs__wire_ep(t0, hs__wnow(), uuid);
    return st;
}

#endif /* HS_HAVE_UCX */
