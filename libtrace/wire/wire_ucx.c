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

static void completed(void *req, ucs_status_t st, uint64_t len, uint64_t stag)
{
    hs__wdone d = { .t = hs__wnow(), .flags = status_flags(st), .bytes = len, .stag = stag };
    hs__wreq_done(req, &d);
}

/* The info a receive callback gets lives in the request, which the
 * original callback may release: read it first. */
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

#define TRAMPS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
                  X(14) X(15)
#define DEF_TRAMP(k)                                                                        \
    static void snbx_t##k(void *rq, ucs_status_t st, void *ud)                              \
    {                                                                                       \
        atomic_load_explicit(&snbx_orig[k], memory_order_acquire)(rq, st, ud);              \
        completed(rq, st, 0, 0);                                                            \
    }                                                                                       \
    static void rnbx_t##k(void *rq, ucs_status_t st, const ucp_tag_recv_info_t *in, void *ud) \
    {                                                                                       \
        uint64_t len = in ? in->length : 0, stag = in ? in->sender_tag : 0;                 \
        atomic_load_explicit(&rnbx_orig[k], memory_order_acquire)(rq, st, in, ud);          \
        completed(rq, st, len, stag);                                                       \
    }                                                                                       \
    static void snb_t##k(void *rq, ucs_status_t st)                                         \
    {                                                                                       \
        atomic_load_explicit(&snb_orig[k], memory_order_acquire)(rq, st);                   \
        completed(rq, st, 0, 0);                                                            \
    }                                                                                       \
    static void rnb_t##k(void *rq, ucs_status_t st, ucp_tag_recv_info_t *in)                \
    {                                                                                       \
        uint64_t len = in ? in->length : 0, stag = in ? in->sender_tag : 0;                 \
        atomic_load_explicit(&rnb_orig[k], memory_order_acquire)(rq, st, in);               \
        completed(rq, st, len, stag);                                                       \
    }
TRAMPS(DEF_TRAMP)
#define SET_TRAMP(k)                                                                        \
    snbx_tramp[k] = snbx_t##k;                                                              \
    rnbx_tramp[k] = rnbx_t##k;                                                              \
    snb_tramp[k] = snb_t##k;                                                                \
    rnb_tramp[k] = rnb_t##k;
__attribute__((constructor)) static void tramp_init(void)
{
    TRAMPS(SET_TRAMP)
}

/* An nbx parameter block with the callback replaced, in *copy; returns the
 * block to pass on (param itself when it cannot be wrapped). */
static const ucp_request_param_t *wrap_param(const ucp_request_param_t *param,
                                             ucp_request_param_t *copy, int recv)
{
    if (!param || !(param->op_attr_mask & UCP_OP_ATTR_FIELD_CALLBACK) ||
        (param->op_attr_mask & ~(uint32_t)KNOWN_ATTRS))
        return param;
    *copy = *param;
    if (recv)
        copy->cb.recv = rnbx_wrap(param->cb.recv);
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
        static __typeof__(&name) p_;                                                 \
        if (hs__wunlikely(!p_))                                                      \
            p_ = (__typeof__(&name))hs__wresolve(#name);                              \
        &p_;                                                                         \
    }))

/* ---- tag matching ---------------------------------------------------------------- */

static ucs_status_ptr_t send_nbx(int op, ucs_status_ptr_t (*real)(ucp_ep_h, const void *, size_t,
                                                                  ucp_tag_t,
                                                                  const ucp_request_param_t *),
                                 ucp_ep_h ep, const void *buffer, size_t count, ucp_tag_t tag,
                                 const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return real(ep, buffer, count, tag, param);
    uint64_t bytes = nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = real(ep, buffer, count, tag, p);
    uint64_t id = hs__wire_op(op, t0, hs__wnow(), post_flags(sp), bytes, tag, ep_uuid(ep));
    track(sp, id, p != param);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buffer, size_t count, ucp_tag_t tag,
                                  const ucp_request_param_t *param)
{
    return send_nbx(HS_TRACE_WOP_TAG_SEND, REAL(ucp_tag_send_nbx), ep, buffer, count, tag, param);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h ep, const void *buffer, size_t count,
                                       ucp_tag_t tag, const ucp_request_param_t *param)
{
    return send_nbx(HS_TRACE_WOP_TAG_SSEND, REAL(ucp_tag_send_sync_nbx), ep, buffer, count, tag,
                    param);
}

static ucs_status_ptr_t send_nb(int op, ucs_status_ptr_t (*real)(ucp_ep_h, const void *, size_t,
                                                                 ucp_datatype_t, ucp_tag_t,
                                                                 ucp_send_callback_t),
                                ucp_ep_h ep, const void *buffer, size_t count,
                                ucp_datatype_t dt, ucp_tag_t tag, ucp_send_callback_t cb)
{
    if (!hs__wenter())
        return real(ep, buffer, count, dt, tag, cb);
    uint64_t bytes = dt_bytes(buffer, count, dt);
    ucp_send_callback_t wcb = snb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = real(ep, buffer, count, dt, tag, wcb);
    uint64_t id = hs__wire_op(op, t0, hs__wnow(), post_flags(sp), bytes, tag, ep_uuid(ep));
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_tag_send_nb(ucp_ep_h ep, const void *buffer, size_t count,
                                 ucp_datatype_t datatype, ucp_tag_t tag, ucp_send_callback_t cb)
{
    return send_nb(HS_TRACE_WOP_TAG_SEND, REAL(ucp_tag_send_nb), ep, buffer, count, datatype,
                   tag, cb);
}

ucs_status_ptr_t ucp_tag_send_sync_nb(ucp_ep_h ep, const void *buffer, size_t count,
                                      ucp_datatype_t datatype, ucp_tag_t tag,
                                      ucp_send_callback_t cb)
{
    return send_nb(HS_TRACE_WOP_TAG_SSEND, REAL(ucp_tag_send_sync_nb), ep, buffer, count,
                   datatype, tag, cb);
}

ucs_status_t ucp_tag_send_nbr(ucp_ep_h ep, const void *buffer, size_t count,
                              ucp_datatype_t datatype, ucp_tag_t tag, void *req)
{
    if (!hs__wenter())
        return REAL(ucp_tag_send_nbr)(ep, buffer, count, datatype, tag, req);
    uint64_t bytes = dt_bytes(buffer, count, datatype);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_tag_send_nbr)(ep, buffer, count, datatype, tag, req);
    uint32_t fl = st == UCS_OK ? HS_TRACE_F_WIRE_IMM
                  : st == UCS_INPROGRESS ? 0 : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR;
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_SEND, t0, hs__wnow(), fl, bytes, tag, ep_uuid(ep));
    if (st == UCS_INPROGRESS)
        hs__wreq_add(req, id, 0);
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h worker, void *buffer, size_t count, ucp_tag_t tag,
                                  ucp_tag_t tag_mask, const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_tag_recv_nbx)(worker, buffer, count, tag, tag_mask, param);
    uint64_t cap = nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 1);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_tag_recv_nbx)(worker, buffer, count, tag, tag_mask, p);
    uint64_t t1 = hs__wnow();
    uint32_t fl = post_flags(sp) | HS_TRACE_F_WIRE_IN;
    /* Completed at once (the message was there): its size is in recv_info. */
    if (sp == NULL && param && (param->op_attr_mask & UCP_OP_ATTR_FIELD_RECV_INFO) &&
        param->recv_info.tag_info)
        cap = param->recv_info.tag_info->length;
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_RECV, t0, t1, fl, cap, tag, 0);
    track(sp, id, p != param);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_tag_recv_nb(ucp_worker_h worker, void *buffer, size_t count,
                                 ucp_datatype_t datatype, ucp_tag_t tag, ucp_tag_t tag_mask,
                                 ucp_tag_recv_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_tag_recv_nb)(worker, buffer, count, datatype, tag, tag_mask, cb);
    uint64_t cap = dt_bytes(buffer, count, datatype);
    ucp_tag_recv_callback_t wcb = rnb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_tag_recv_nb)(worker, buffer, count, datatype, tag, tag_mask,
                                                wcb);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_RECV, t0, hs__wnow(),
                              post_flags(sp) | HS_TRACE_F_WIRE_IN, cap, tag, 0);
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_t ucp_tag_recv_nbr(ucp_worker_h worker, void *buffer, size_t count,
                              ucp_datatype_t datatype, ucp_tag_t tag, ucp_tag_t tag_mask,
                              void *req)
{
    if (!hs__wenter())
        return REAL(ucp_tag_recv_nbr)(worker, buffer, count, datatype, tag, tag_mask, req);
    uint64_t cap = dt_bytes(buffer, count, datatype);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_tag_recv_nbr)(worker, buffer, count, datatype, tag, tag_mask, req);
    uint32_t fl = HS_TRACE_F_WIRE_IN |
                  (st == UCS_INPROGRESS || st == UCS_OK ? 0 : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_RECV, t0, hs__wnow(), fl, cap, tag, 0);
    if (st == UCS_INPROGRESS || st == UCS_OK)   /* completion seen by ucp_request_test */
        hs__wreq_add(req, id, 0);
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_tag_msg_recv_nbx(ucp_worker_h worker, void *buffer, size_t count,
                                      ucp_tag_message_h message, const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_tag_msg_recv_nbx)(worker, buffer, count, message, param);
    uint64_t cap = nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 1);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_tag_msg_recv_nbx)(worker, buffer, count, message, p);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_RECV, t0, hs__wnow(),
                              post_flags(sp) | HS_TRACE_F_WIRE_IN, cap, 0, 0);
    track(sp, id, p != param);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_tag_msg_recv_nb(ucp_worker_h worker, void *buffer, size_t count,
                                     ucp_datatype_t datatype, ucp_tag_message_h message,
                                     ucp_tag_recv_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_tag_msg_recv_nb)(worker, buffer, count, datatype, message, cb);
    uint64_t cap = dt_bytes(buffer, count, datatype);
    ucp_tag_recv_callback_t wcb = rnb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_tag_msg_recv_nb)(worker, buffer, count, datatype, message,
                                                    wcb);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_TAG_RECV, t0, hs__wnow(),
                              post_flags(sp) | HS_TRACE_F_WIRE_IN, cap, 0, 0);
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

/* ---- RMA and atomics ---------------------------------------------------------------- */

static ucs_status_ptr_t rma_nbx(int op, int put, ucp_ep_h ep, void *buffer, size_t count,
                                uint64_t remote_addr, ucp_rkey_h rkey,
                                const ucp_request_param_t *param)
{
    ucs_status_ptr_t (*real_put)(ucp_ep_h, const void *, size_t, uint64_t, ucp_rkey_h,
                                 const ucp_request_param_t *) = REAL(ucp_put_nbx);
    ucs_status_ptr_t (*real_get)(ucp_ep_h, void *, size_t, uint64_t, ucp_rkey_h,
                                 const ucp_request_param_t *) = REAL(ucp_get_nbx);
    if (!hs__wenter())
        return put ? real_put(ep, buffer, count, remote_addr, rkey, param)
                   : real_get(ep, buffer, count, remote_addr, rkey, param);
    uint64_t bytes = nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = put ? real_put(ep, buffer, count, remote_addr, rkey, p)
                              : real_get(ep, buffer, count, remote_addr, rkey, p);
    uint64_t id = hs__wire_op(op, t0, hs__wnow(),
                              post_flags(sp) | (put ? 0 : HS_TRACE_F_WIRE_IN), bytes, 0,
                              ep_uuid(ep));
    track(sp, id, p != param);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_put_nbx(ucp_ep_h ep, const void *buffer, size_t count, uint64_t remote_addr,
                             ucp_rkey_h rkey, const ucp_request_param_t *param)
{
    return rma_nbx(HS_TRACE_WOP_PUT, 1, ep, (void *)(uintptr_t)buffer, count, remote_addr, rkey,
                   param);
}

ucs_status_ptr_t ucp_get_nbx(ucp_ep_h ep, void *buffer, size_t count, uint64_t remote_addr,
                             ucp_rkey_h rkey, const ucp_request_param_t *param)
{
    return rma_nbx(HS_TRACE_WOP_GET, 0, ep, buffer, count, remote_addr, rkey, param);
}

ucs_status_t ucp_put_nbi(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                         ucp_rkey_h rkey)
{
    if (!hs__wenter())
        return REAL(ucp_put_nbi)(ep, buffer, length, remote_addr, rkey);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_put_nbi)(ep, buffer, length, remote_addr, rkey);
    hs__wire_op(HS_TRACE_WOP_PUT, t0, hs__wnow(),
                st == UCS_OK ? HS_TRACE_F_WIRE_IMM
                : st == UCS_INPROGRESS ? HS_TRACE_F_WIRE_NBI
                                       : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR,
                length, 0, ep_uuid(ep));
    hs__wleave();
    return st;
}

ucs_status_t ucp_get_nbi(ucp_ep_h ep, void *buffer, size_t length, uint64_t remote_addr,
                         ucp_rkey_h rkey)
{
    if (!hs__wenter())
        return REAL(ucp_get_nbi)(ep, buffer, length, remote_addr, rkey);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_get_nbi)(ep, buffer, length, remote_addr, rkey);
    hs__wire_op(HS_TRACE_WOP_GET, t0, hs__wnow(),
                HS_TRACE_F_WIRE_IN | (st == UCS_OK ? HS_TRACE_F_WIRE_IMM
                                      : st == UCS_INPROGRESS ? HS_TRACE_F_WIRE_NBI
                                                             : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR),
                length, 0, ep_uuid(ep));
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_put_nb(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                            ucp_rkey_h rkey, ucp_send_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_put_nb)(ep, buffer, length, remote_addr, rkey, cb);
    ucp_send_callback_t wcb = snb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_put_nb)(ep, buffer, length, remote_addr, rkey, wcb);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_PUT, t0, hs__wnow(), post_flags(sp), length, 0,
                              ep_uuid(ep));
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_get_nb(ucp_ep_h ep, void *buffer, size_t length, uint64_t remote_addr,
                            ucp_rkey_h rkey, ucp_send_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_get_nb)(ep, buffer, length, remote_addr, rkey, cb);
    ucp_send_callback_t wcb = snb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_get_nb)(ep, buffer, length, remote_addr, rkey, wcb);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_GET, t0, hs__wnow(),
                              post_flags(sp) | HS_TRACE_F_WIRE_IN, length, 0, ep_uuid(ep));
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_t ucp_put(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                     ucp_rkey_h rkey)
{
    if (!hs__wenter())
        return REAL(ucp_put)(ep, buffer, length, remote_addr, rkey);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_put)(ep, buffer, length, remote_addr, rkey);
    hs__wire_op(HS_TRACE_WOP_PUT, t0, hs__wnow(),
                HS_TRACE_F_WIRE_IMM | (st == UCS_OK ? 0 : HS_TRACE_F_ERROR), length, 0,
                ep_uuid(ep));
    hs__wleave();
    return st;
}

ucs_status_t ucp_get(ucp_ep_h ep, void *buffer, size_t length, uint64_t remote_addr,
                     ucp_rkey_h rkey)
{
    if (!hs__wenter())
        return REAL(ucp_get)(ep, buffer, length, remote_addr, rkey);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_get)(ep, buffer, length, remote_addr, rkey);
    hs__wire_op(HS_TRACE_WOP_GET, t0, hs__wnow(),
                HS_TRACE_F_WIRE_IN | HS_TRACE_F_WIRE_IMM | (st == UCS_OK ? 0 : HS_TRACE_F_ERROR),
                length, 0, ep_uuid(ep));
    hs__wleave();
    return st;
}

ucs_status_t ucp_atomic_post(ucp_ep_h ep, ucp_atomic_post_op_t opcode, uint64_t value,
                             size_t op_size, uint64_t remote_addr, ucp_rkey_h rkey)
{
    if (!hs__wenter())
        return REAL(ucp_atomic_post)(ep, opcode, value, op_size, remote_addr, rkey);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_atomic_post)(ep, opcode, value, op_size, remote_addr, rkey);
    hs__wire_op(HS_TRACE_WOP_ATOMIC, t0, hs__wnow(),
                st == UCS_OK ? HS_TRACE_F_WIRE_IMM
                : st == UCS_INPROGRESS ? HS_TRACE_F_WIRE_NBI
                                       : HS_TRACE_F_WIRE_IMM | HS_TRACE_F_ERROR,
                op_size, (uint64_t)opcode, ep_uuid(ep));
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_atomic_fetch_nb(ucp_ep_h ep, ucp_atomic_fetch_op_t opcode, uint64_t value,
                                     void *result, size_t op_size, uint64_t remote_addr,
                                     ucp_rkey_h rkey, ucp_send_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_atomic_fetch_nb)(ep, opcode, value, result, op_size, remote_addr, rkey,
                                         cb);
    ucp_send_callback_t wcb = snb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_atomic_fetch_nb)(ep, opcode, value, result, op_size,
                                                    remote_addr, rkey, wcb);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_ATOMIC_FETCH, t0, hs__wnow(),
                              post_flags(sp) | HS_TRACE_F_WIRE_IN, op_size, (uint64_t)opcode,
                              ep_uuid(ep));
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_atomic_op_nbx(ucp_ep_h ep, ucp_atomic_op_t opcode, const void *buffer,
                                   size_t count, uint64_t remote_addr, ucp_rkey_h rkey,
                                   const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_atomic_op_nbx)(ep, opcode, buffer, count, remote_addr, rkey, param);
    int fetch = param && (param->op_attr_mask & UCP_OP_ATTR_FIELD_REPLY_BUFFER);
    uint64_t bytes = nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_atomic_op_nbx)(ep, opcode, buffer, count, remote_addr, rkey, p);
    uint64_t id = hs__wire_op(fetch ? HS_TRACE_WOP_ATOMIC_FETCH : HS_TRACE_WOP_ATOMIC, t0,
                              hs__wnow(), post_flags(sp) | (fetch ? HS_TRACE_F_WIRE_IN : 0),
                              bytes, (uint64_t)opcode, ep_uuid(ep));
    track(sp, id, p != param);
    hs__wleave();
    return sp;
}

/* ---- active messages and streams --------------------------------------------------- */

ucs_status_ptr_t ucp_am_send_nb(ucp_ep_h ep, uint16_t id, const void *buffer, size_t count,
                                ucp_datatype_t datatype, ucp_send_callback_t cb, unsigned flags)
{
    if (!hs__wenter())
        return REAL(ucp_am_send_nb)(ep, id, buffer, count, datatype, cb, flags);
    uint64_t bytes = dt_bytes(buffer, count, datatype);
    ucp_send_callback_t wcb = snb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_am_send_nb)(ep, id, buffer, count, datatype, wcb,
                                               flags);
    uint64_t oid = hs__wire_op(HS_TRACE_WOP_AM_SEND, t0, hs__wnow(), post_flags(sp), bytes, id,
                               ep_uuid(ep));
    track(sp, oid, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_am_send_nbx(ucp_ep_h ep, unsigned id, const void *header,
                                 size_t header_length, const void *buffer, size_t count,
                                 const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_am_send_nbx)(ep, id, header, header_length, buffer, count, param);
    uint64_t bytes = header_length + nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_am_send_nbx)(ep, id, header, header_length, buffer, count, p);
    uint64_t oid = hs__wire_op(HS_TRACE_WOP_AM_SEND, t0, hs__wnow(), post_flags(sp), bytes, id,
                               ep_uuid(ep));
    track(sp, oid, p != param);
    hs__wleave();
    return sp;
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
                    c->id, reply_ep ? ep_uuid(reply_ep) : 0);
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
    if (!hs__wenter())
        return REAL(ucp_stream_send_nbx)(ep, buffer, count, param);
    uint64_t bytes = nbx_bytes(buffer, count, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_stream_send_nbx)(ep, buffer, count, p);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_STREAM_SEND, t0, hs__wnow(), post_flags(sp), bytes, 0,
                              ep_uuid(ep));
    track(sp, id, p != param);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_stream_send_nb(ucp_ep_h ep, const void *buffer, size_t count,
                                    ucp_datatype_t datatype, ucp_send_callback_t cb,
                                    unsigned flags)
{
    if (!hs__wenter())
        return REAL(ucp_stream_send_nb)(ep, buffer, count, datatype, cb, flags);
    uint64_t bytes = dt_bytes(buffer, count, datatype);
    ucp_send_callback_t wcb = snb_wrap(cb);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_stream_send_nb)(ep, buffer, count, datatype, wcb,
                                                   flags);
    uint64_t id = hs__wire_op(HS_TRACE_WOP_STREAM_SEND, t0, hs__wnow(), post_flags(sp), bytes, 0,
                              ep_uuid(ep));
    track(sp, id, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_stream_recv_nbx(ucp_ep_h ep, void *buffer, size_t count, size_t *length,
                                     const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_stream_recv_nbx)(ep, buffer, count, length, param);
    /* The stream callback has another signature: completion untimed. */
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_stream_recv_nbx)(ep, buffer, count, length, param);
    uint64_t got = sp == NULL && length ? *length : nbx_bytes(buffer, count, param);
    hs__wire_op(HS_TRACE_WOP_STREAM_RECV, t0, hs__wnow(), post_flags(sp) | HS_TRACE_F_WIRE_IN,
                got, 0, ep_uuid(ep));
    hs__wleave();
    return sp;
}

/* ---- flushes ------------------------------------------------------------------ */

static void flush_done(ucs_status_ptr_t sp, uint64_t t0, uint64_t peer, int cb)
{
    uint64_t id = hs__wire_op(HS_TRACE_WOP_FLUSH, t0, hs__wnow(), post_flags(sp), 0, 0, peer);
    track(sp, id, cb);
}

ucs_status_t ucp_ep_flush(ucp_ep_h ep)
{
    if (!hs__wenter())
        return REAL(ucp_ep_flush)(ep);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_ep_flush)(ep);
    flush_done(st == UCS_OK ? NULL : UCS_STATUS_PTR(st), t0, ep_uuid(ep), 0);
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_ep_flush_nb(ucp_ep_h ep, unsigned flags, ucp_send_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_ep_flush_nb)(ep, flags, cb);
    uint64_t t0 = HS__WPOST;
    ucp_send_callback_t wcb = snb_wrap(cb);
    ucs_status_ptr_t sp = REAL(ucp_ep_flush_nb)(ep, flags, wcb);
    flush_done(sp, t0, ep_uuid(ep), wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_ep_flush_nbx(ucp_ep_h ep, const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_ep_flush_nbx)(ep, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_ep_flush_nbx)(ep, p);
    flush_done(sp, t0, ep_uuid(ep), p != param);
    hs__wleave();
    return sp;
}

ucs_status_t ucp_worker_flush(ucp_worker_h worker)
{
    if (!hs__wenter())
        return REAL(ucp_worker_flush)(worker);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_worker_flush)(worker);
    flush_done(st == UCS_OK ? NULL : UCS_STATUS_PTR(st), t0, 0, 0);
    hs__wleave();
    return st;
}

ucs_status_ptr_t ucp_worker_flush_nb(ucp_worker_h worker, unsigned flags, ucp_send_callback_t cb)
{
    if (!hs__wenter())
        return REAL(ucp_worker_flush_nb)(worker, flags, cb);
    uint64_t t0 = HS__WPOST;
    ucp_send_callback_t wcb = snb_wrap(cb);
    ucs_status_ptr_t sp = REAL(ucp_worker_flush_nb)(worker, flags, wcb);
    flush_done(sp, t0, 0, wcb != cb);
    hs__wleave();
    return sp;
}

ucs_status_ptr_t ucp_worker_flush_nbx(ucp_worker_h worker, const ucp_request_param_t *param)
{
    if (!hs__wenter())
        return REAL(ucp_worker_flush_nbx)(worker, param);
    ucp_request_param_t copy;
    const ucp_request_param_t *p = wrap_param(param, &copy, 0);
    uint64_t t0 = HS__WPOST;
    ucs_status_ptr_t sp = REAL(ucp_worker_flush_nbx)(worker, p);
    flush_done(sp, t0, 0, p != param);
    hs__wleave();
    return sp;
}

ucs_status_t ucp_worker_fence(ucp_worker_h worker)
{
    if (!hs__wenter())
        return REAL(ucp_worker_fence)(worker);
    uint64_t t0 = HS__WPOST;
    ucs_status_t st = REAL(ucp_worker_fence)(worker);
    flush_done(st == UCS_OK ? NULL : UCS_STATUS_PTR(st), t0, 0, 0);
    hs__wleave();
    return st;
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
    if (st != UCS_INPROGRESS && hs__wh)
        completed(request, st, info ? info->length : 0, info ? info->sender_tag : 0);
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
