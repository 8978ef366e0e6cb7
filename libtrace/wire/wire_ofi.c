/* libtrace/wire/wire_ofi.c — capture of libfabric below MPI (Open MPI
 * `--mca pml cm --mca mtl ofi`, and `--mca osc rdma --mca btl ofi`).
 *
 * libfabric's data path is `static inline` calls through ops tables
 * (fi_tsend(ep, ...) is ep->tagged->send(ep, ...)), so the only entry point
 * to interpose is fi_fabric (the one Open MPI's mtl imports besides
 * fi_getinfo/fi_dupinfo/fi_freeinfo/fi_strerror).  From there every object
 * the application opens gets a copy of its ops table with some entries
 * replaced, each forwarding to the original:
 *   fabric   domain, domain2            -> wrap the domain
 *   domain   av_open, cq_open, endpoint, endpoint2, scalable_ep
 *   sep      tx_ctx, rx_ctx             -> wrap the contexts as endpoints
 *   av       insert                     -> fi_addr -> address hash (peers)
 *   cq       read, readfrom, sread, sreadfrom -> completions (op_context)
 *   endpoint cm.getname                 -> this rank's address (wire_worker)
 *            tagged.send/sendv/sendmsg/inject/senddata/injectdata/recv/
 *            recvv/recvmsg, msg.send/sendv/sendmsg/inject/senddata/
 *            injectdata/recv/recvv/recvmsg, rma.read/readv/readmsg/
 *            write/writev/writemsg/inject/writedata/injectwritedata,
 *            atomic.write/writev/writemsg/inject/readwrite(v/msg)/
 *            compwrite(v/msg)
 * A wrapped object's table is `struct { ops copy; original pointer }`, so a
 * wrapper finds the original from the object itself (container_of), with no
 * lookup.  Tables shorter than this build's (an older provider's `size`)
 * are copied up to their size and the missing entries left NULL, as the
 * provider had them.
 *
 * Peers: the address an endpoint reports with fi_getname is hashed and
 * recorded as a wire_worker event; fi_av_insert records, per fi_addr_t,
 * the hash of the address inserted, and operations carry that hash, which
 * the reader maps to the rank that published it (as UCX worker UUIDs).
 * Limits: one address map for all AVs of the process (each MPI component
 * opens one). */
#include "wire.h"

#if HS_HAVE_FABRIC
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#define WRAP_OF(type, p) ((type *)((char *)(p) - offsetof(type, ops)))

/* Copies min(orig->size, sizeof *copy) bytes of an ops table. */
#define COPY_OPS(copy, orig)                                                        \
    do {                                                                            \
        memset(&(copy), 0, sizeof(copy));                                           \
        size_t n_ = (orig)->size < sizeof(copy) ? (orig)->size : sizeof(copy);      \
        memcpy(&(copy), (orig), n_);                                                \
    } while (0)

/* ---- addresses ------------------------------------------------------------------ */

static uint64_t fnv(const void *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h ? h : 1;
}

static _Atomic size_t addr_len;   /* from fi_getname: the format of the AV's addresses */

#define AV_SLOTS (1u << 16)
typedef struct avent {
    _Atomic uint64_t key;   /* fi_addr + 1 */
    _Atomic uint64_t hash;
} avent;
static avent avmap[AV_SLOTS];
static atomic_flag av_lock = ATOMIC_FLAG_INIT;

static void av_set(fi_addr_t a, uint64_t h)
{
    uint64_t k = (uint64_t)a + 1;
    while (atomic_flag_test_and_set(&av_lock))
        ;
    size_t i = (size_t)(hs__mix64(k) & (AV_SLOTS - 1));
    for (unsigned p = 0; p < 64; p++, i = (i + 1) & (AV_SLOTS - 1)) {
        uint64_t cur = atomic_load_explicit(&avmap[i].key, memory_order_relaxed);
        if (cur == k || !cur) {
            atomic_store_explicit(&avmap[i].hash, h, memory_order_relaxed);
            atomic_store_explicit(&avmap[i].key, k, memory_order_release);
            break;
        }
    }
    atomic_flag_clear(&av_lock);
}

static uint64_t av_hash(fi_addr_t a)
{
    if (a == FI_ADDR_UNSPEC)
        return 0;
    uint64_t k = (uint64_t)a + 1;
    size_t i = (size_t)(hs__mix64(k) & (AV_SLOTS - 1));
    for (unsigned p = 0; p < 64; p++, i = (i + 1) & (AV_SLOTS - 1)) {
        uint64_t cur = atomic_load_explicit(&avmap[i].key, memory_order_acquire);
        if (cur == k)
            return atomic_load_explicit(&avmap[i].hash, memory_order_relaxed);
        if (!cur)
            return 0;
    }
    return 0;
}

/* ---- wrapped objects -------------------------------------------------------------- */

typedef struct wfab { struct fi_ops_fabric ops; struct fi_ops_fabric *orig; } wfab;
typedef struct wdom { struct fi_ops_domain ops; struct fi_ops_domain *orig; } wdom;
typedef struct wav { struct fi_ops_av ops; struct fi_ops_av *orig; } wav;
typedef struct wcq { struct fi_ops_cq ops; struct fi_ops_cq *orig; size_t entry; } wcq;
typedef struct wcm { struct fi_ops_cm ops; struct fi_ops_cm *orig; } wcm;
typedef struct wtag { struct fi_ops_tagged ops; struct fi_ops_tagged *orig; } wtag;
typedef struct wmsg { struct fi_ops_msg ops; struct fi_ops_msg *orig; } wmsg;
typedef struct wrma { struct fi_ops_rma ops; struct fi_ops_rma *orig; } wrma;
typedef struct watm { struct fi_ops_atomic ops; struct fi_ops_atomic *orig; } watm;
typedef struct wsep { struct fi_ops_ep ops; struct fi_ops_ep *orig; } wsep;

/* The op's record after the provider accepted it (0); -FI_EAGAIN and
 * errors post nothing, so they are not operations. */
static inline void post(int op, uint64_t t0, ssize_t rc, uint64_t bytes, uint64_t tag,
                        fi_addr_t peer, void *ctx, int imm, uint32_t in)
{
    if (rc != 0)
        return;
    uint64_t id = hs__wire_op(op, t0, hs__wnow(), (imm ? HS_TRACE_F_WIRE_IMM : 0) | in, bytes,
                              tag, in && peer == FI_ADDR_UNSPEC ? 0 : av_hash(peer), 0);
    if (!imm && ctx)
        hs__wreq_add(ctx, id, 1);
}

static size_t iov_len(const struct iovec *iov, size_t n)
{
    size_t s = 0;
    for (size_t i = 0; iov && i < n; i++)
        s += iov[i].iov_len;
    return s;
}

/* One wrapper body: enter, time, forward, record. */
#define FWD(W, TYPE, FIELD, ep, call, op, bytes, tag, peer, ctx, imm, in)          \
    TYPE *w_ = WRAP_OF(TYPE, (ep)->FIELD);                                         \
    if (!hs__wenter())                                                             \
        return w_->orig->call;                                                     \
    uint64_t t0_ = HS__WPOST;                                                      \
    ssize_t rc_ = w_->orig->call;                                                  \
    post(op, t0_, rc_, bytes, tag, peer, ctx, imm, in);                            \
    hs__wleave();                                                                  \
    return rc_

/* tagged */
static ssize_t t_send(struct fid_ep *ep, const void *buf, size_t len, void *desc, fi_addr_t d,
                      uint64_t tag, void *ctx)
{
    FWD(0, wtag, tagged, ep, send(ep, buf, len, desc, d, tag, ctx), HS_TRACE_WOP_TAG_SEND, len,
        tag, d, ctx, 0, 0);
}
static ssize_t t_sendv(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t n,
                       fi_addr_t d, uint64_t tag, void *ctx)
{
    FWD(0, wtag, tagged, ep, sendv(ep, iov, desc, n, d, tag, ctx), HS_TRACE_WOP_TAG_SEND,
        iov_len(iov, n), tag, d, ctx, 0, 0);
}
static ssize_t t_sendmsg(struct fid_ep *ep, const struct fi_msg_tagged *m, uint64_t fl)
{
    FWD(0, wtag, tagged, ep, sendmsg(ep, m, fl), HS_TRACE_WOP_TAG_SEND,
        iov_len(m->msg_iov, m->iov_count), m->tag, m->addr, m->context, 0, 0);
}
static ssize_t t_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t d, uint64_t tag)
{
    FWD(0, wtag, tagged, ep, inject(ep, buf, len, d, tag), HS_TRACE_WOP_TAG_SEND, len, tag, d,
        NULL, 1, 0);
}
static ssize_t t_senddata(struct fid_ep *ep, const void *buf, size_t len, void *desc,
                          uint64_t data, fi_addr_t d, uint64_t tag, void *ctx)
{
    FWD(0, wtag, tagged, ep, senddata(ep, buf, len, desc, data, d, tag, ctx),
        HS_TRACE_WOP_TAG_SEND, len, tag, d, ctx, 0, 0);
}
static ssize_t t_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
                            fi_addr_t d, uint64_t tag)
{
    FWD(0, wtag, tagged, ep, injectdata(ep, buf, len, data, d, tag), HS_TRACE_WOP_TAG_SEND, len,
        tag, d, NULL, 1, 0);
}
static ssize_t t_recv(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t s,
                      uint64_t tag, uint64_t ign, void *ctx)
{
    FWD(0, wtag, tagged, ep, recv(ep, buf, len, desc, s, tag, ign, ctx), HS_TRACE_WOP_TAG_RECV,
        len, tag, FI_ADDR_UNSPEC, ctx, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t t_recvv(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t n,
                       fi_addr_t s, uint64_t tag, uint64_t ign, void *ctx)
{
    FWD(0, wtag, tagged, ep, recvv(ep, iov, desc, n, s, tag, ign, ctx), HS_TRACE_WOP_TAG_RECV,
        iov_len(iov, n), tag, FI_ADDR_UNSPEC, ctx, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t t_recvmsg(struct fid_ep *ep, const struct fi_msg_tagged *m, uint64_t fl)
{
    FWD(0, wtag, tagged, ep, recvmsg(ep, m, fl), HS_TRACE_WOP_TAG_RECV,
        iov_len(m->msg_iov, m->iov_count), m->tag, FI_ADDR_UNSPEC, m->context, 0,
        HS_TRACE_F_WIRE_IN);
}

/* msg (untagged: recorded as tag operations with tag 0) */
static ssize_t m_send(struct fid_ep *ep, const void *buf, size_t len, void *desc, fi_addr_t d,
                      void *ctx)
{
    FWD(0, wmsg, msg, ep, send(ep, buf, len, desc, d, ctx), HS_TRACE_WOP_TAG_SEND, len, 0, d, ctx,
        0, 0);
}
static ssize_t m_sendv(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t n,
                       fi_addr_t d, void *ctx)
{
    FWD(0, wmsg, msg, ep, sendv(ep, iov, desc, n, d, ctx), HS_TRACE_WOP_TAG_SEND, iov_len(iov, n),
        0, d, ctx, 0, 0);
}
static ssize_t m_sendmsg(struct fid_ep *ep, const struct fi_msg *m, uint64_t fl)
{
    FWD(0, wmsg, msg, ep, sendmsg(ep, m, fl), HS_TRACE_WOP_TAG_SEND,
        iov_len(m->msg_iov, m->iov_count), 0, m->addr, m->context, 0, 0);
}
static ssize_t m_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t d)
{
    FWD(0, wmsg, msg, ep, inject(ep, buf, len, d), HS_TRACE_WOP_TAG_SEND, len, 0, d, NULL, 1, 0);
}
static ssize_t m_senddata(struct fid_ep *ep, const void *buf, size_t len, void *desc,
                          uint64_t data, fi_addr_t d, void *ctx)
{
    FWD(0, wmsg, msg, ep, senddata(ep, buf, len, desc, data, d, ctx), HS_TRACE_WOP_TAG_SEND, len,
        0, d, ctx, 0, 0);
}
static ssize_t m_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
                            fi_addr_t d)
{
    FWD(0, wmsg, msg, ep, injectdata(ep, buf, len, data, d), HS_TRACE_WOP_TAG_SEND, len, 0, d,
        NULL, 1, 0);
}
static ssize_t m_recv(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t s,
                      void *ctx)
{
    FWD(0, wmsg, msg, ep, recv(ep, buf, len, desc, s, ctx), HS_TRACE_WOP_TAG_RECV, len, 0,
        FI_ADDR_UNSPEC, ctx, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t m_recvv(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t n,
                       fi_addr_t s, void *ctx)
{
    FWD(0, wmsg, msg, ep, recvv(ep, iov, desc, n, s, ctx), HS_TRACE_WOP_TAG_RECV, iov_len(iov, n),
        0, FI_ADDR_UNSPEC, ctx, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t m_recvmsg(struct fid_ep *ep, const struct fi_msg *m, uint64_t fl)
{
    FWD(0, wmsg, msg, ep, recvmsg(ep, m, fl), HS_TRACE_WOP_TAG_RECV,
        iov_len(m->msg_iov, m->iov_count), 0, FI_ADDR_UNSPEC, m->context, 0, HS_TRACE_F_WIRE_IN);
}

/* rma */
static ssize_t r_read(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t s,
                      uint64_t addr, uint64_t key, void *ctx)
{
    FWD(0, wrma, rma, ep, read(ep, buf, len, desc, s, addr, key, ctx), HS_TRACE_WOP_GET, len, 0,
        s, ctx, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t r_readv(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t n,
                       fi_addr_t s, uint64_t addr, uint64_t key, void *ctx)
{
    FWD(0, wrma, rma, ep, readv(ep, iov, desc, n, s, addr, key, ctx), HS_TRACE_WOP_GET,
        iov_len(iov, n), 0, s, ctx, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t r_readmsg(struct fid_ep *ep, const struct fi_msg_rma *m, uint64_t fl)
{
    FWD(0, wrma, rma, ep, readmsg(ep, m, fl), HS_TRACE_WOP_GET, iov_len(m->msg_iov, m->iov_count),
        0, m->addr, m->context, 0, HS_TRACE_F_WIRE_IN);
}
static ssize_t r_write(struct fid_ep *ep, const void *buf, size_t len, void *desc, fi_addr_t d,
                       uint64_t addr, uint64_t key, void *ctx)
{
    FWD(0, wrma, rma, ep, write(ep, buf, len, desc, d, addr, key, ctx), HS_TRACE_WOP_PUT, len, 0,
        d, ctx, 0, 0);
}
static ssize_t r_writev(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t n,
                        fi_addr_t d, uint64_t addr, uint64_t key, void *ctx)
{
    FWD(0, wrma, rma, ep, writev(ep, iov, desc, n, d, addr, key, ctx), HS_TRACE_WOP_PUT,
        iov_len(iov, n), 0, d, ctx, 0, 0);
}
static ssize_t r_writemsg(struct fid_ep *ep, const struct fi_msg_rma *m, uint64_t fl)
{
    FWD(0, wrma, rma, ep, writemsg(ep, m, fl), HS_TRACE_WOP_PUT,
        iov_len(m->msg_iov, m->iov_count), 0, m->addr, m->context, 0, 0);
}
static ssize_t r_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t d,
                        uint64_t addr, uint64_t key)
{
    FWD(0, wrma, rma, ep, inject(ep, buf, len, d, addr, key), HS_TRACE_WOP_PUT, len, 0, d, NULL,
        1, 0);
}
static ssize_t r_writedata(struct fid_ep *ep, const void *buf, size_t len, void *desc,
                           uint64_t data, fi_addr_t d, uint64_t addr, uint64_t key, void *ctx)
{
    FWD(0, wrma, rma, ep, writedata(ep, buf, len, desc, data, d, addr, key, ctx),
        HS_TRACE_WOP_PUT, len, 0, d, ctx, 0, 0);
}
static ssize_t r_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
                            fi_addr_t d, uint64_t addr, uint64_t key)
{
    FWD(0, wrma, rma, ep, injectdata(ep, buf, len, data, d, addr, key), HS_TRACE_WOP_PUT, len, 0,
        d, NULL, 1, 0);
}

/* atomics: bytes are the operand (count x datatype size), as for UCX; the
 * operation (enum fi_op) is the tag.  Fetching and compare forms bring the
 * old value back (data in as well). */
static uint64_t dt_size(enum fi_datatype dt)
{
    switch (dt) {
    case FI_INT8: case FI_UINT8: return 1;
    case FI_INT16: case FI_UINT16: return 2;
    case FI_INT32: case FI_UINT32: case FI_FLOAT: return 4;
    case FI_INT64: case FI_UINT64: case FI_DOUBLE: case FI_FLOAT_COMPLEX: return 8;
    case FI_DOUBLE_COMPLEX: case FI_INT128: case FI_UINT128: return 16;
    case FI_LONG_DOUBLE: return sizeof(long double);
    case FI_LONG_DOUBLE_COMPLEX: return 2 * sizeof(long double);
    default: return 0;
    }
}
static uint64_t ioc_n(const struct fi_ioc *iov, size_t n)   /* elements */
{
    uint64_t s = 0;
    for (size_t i = 0; iov && i < n; i++)
        s += iov[i].count;
    return s;
}
#define AFWD(call, op, bytes, dt, fop, peer, ctx, imm)                                 \
    FWD(0, watm, atomic, ep, call, op, (uint64_t)(bytes) * dt_size(dt), (uint64_t)(fop), \
        peer, ctx, imm, (op) == HS_TRACE_WOP_ATOMIC_FETCH ? HS_TRACE_F_WIRE_IN : 0)
static ssize_t a_write(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                       fi_addr_t d, uint64_t addr, uint64_t key, enum fi_datatype dt,
                       enum fi_op op, void *ctx)
{
    AFWD(write(ep, buf, count, desc, d, addr, key, dt, op, ctx), HS_TRACE_WOP_ATOMIC, count, dt,
         op, d, ctx, 0);
}
static ssize_t a_writev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc, size_t count,
                        fi_addr_t d, uint64_t addr, uint64_t key, enum fi_datatype dt,
                        enum fi_op op, void *ctx)
{
    AFWD(writev(ep, iov, desc, count, d, addr, key, dt, op, ctx), HS_TRACE_WOP_ATOMIC,
         ioc_n(iov, count), dt, op, d, ctx, 0);
}
static ssize_t a_writemsg(struct fid_ep *ep, const struct fi_msg_atomic *m, uint64_t fl)
{
    AFWD(writemsg(ep, m, fl), HS_TRACE_WOP_ATOMIC,
         ioc_n(m->msg_iov, m->iov_count),
         m->datatype, m->op, m->addr, m->context, 0);
}
static ssize_t a_inject(struct fid_ep *ep, const void *buf, size_t count, fi_addr_t d,
                        uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op)
{
    AFWD(inject(ep, buf, count, d, addr, key, dt, op), HS_TRACE_WOP_ATOMIC, count, dt, op, d,
         NULL, 1);
}
static ssize_t a_readwrite(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                           void *res, void *res_desc, fi_addr_t d, uint64_t addr, uint64_t key,
                           enum fi_datatype dt, enum fi_op op, void *ctx)
{
    AFWD(readwrite(ep, buf, count, desc, res, res_desc, d, addr, key, dt, op, ctx),
         HS_TRACE_WOP_ATOMIC_FETCH, count, dt, op, d, ctx, 0);
}
static ssize_t a_readwritev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc,
                            size_t count, struct fi_ioc *resv, void **res_desc, size_t rcount,
                            fi_addr_t d, uint64_t addr, uint64_t key, enum fi_datatype dt,
                            enum fi_op op, void *ctx)
{
    /* FI_ATOMIC_READ has no operand: the result vector has the size */
    AFWD(readwritev(ep, iov, desc, count, resv, res_desc, rcount, d, addr, key, dt, op, ctx),
         HS_TRACE_WOP_ATOMIC_FETCH,
         ioc_n(op == FI_ATOMIC_READ ? resv : iov, op == FI_ATOMIC_READ ? rcount : count),
         dt, op, d, ctx, 0);
}
static ssize_t a_readwritemsg(struct fid_ep *ep, const struct fi_msg_atomic *m,
                              struct fi_ioc *resv, void **res_desc, size_t rcount, uint64_t fl)
{
    AFWD(readwritemsg(ep, m, resv, res_desc, rcount, fl), HS_TRACE_WOP_ATOMIC_FETCH,
         ioc_n(m->op == FI_ATOMIC_READ ? resv : m->msg_iov,
                   m->op == FI_ATOMIC_READ ? rcount : m->iov_count),
         m->datatype, m->op, m->addr, m->context, 0);
}
static ssize_t a_compwrite(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                           const void *cmp, void *cmp_desc, void *res, void *res_desc,
                           fi_addr_t d, uint64_t addr, uint64_t key, enum fi_datatype dt,
                           enum fi_op op, void *ctx)
{
    AFWD(compwrite(ep, buf, count, desc, cmp, cmp_desc, res, res_desc, d, addr, key, dt, op, ctx),
         HS_TRACE_WOP_ATOMIC_FETCH, count, dt, op, d, ctx, 0);
}
static ssize_t a_compwritev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc,
                            size_t count, const struct fi_ioc *cmpv, void **cmp_desc,
                            size_t ccount, struct fi_ioc *resv, void **res_desc, size_t rcount,
                            fi_addr_t d, uint64_t addr, uint64_t key, enum fi_datatype dt,
                            enum fi_op op, void *ctx)
{
    AFWD(compwritev(ep, iov, desc, count, cmpv, cmp_desc, ccount, resv, res_desc, rcount, d, addr,
                    key, dt, op, ctx),
         HS_TRACE_WOP_ATOMIC_FETCH, ioc_n(iov, count),
         dt, op, d, ctx, 0);
}
static ssize_t a_compwritemsg(struct fid_ep *ep, const struct fi_msg_atomic *m,
                              const struct fi_ioc *cmpv, void **cmp_desc, size_t ccount,
                              struct fi_ioc *resv, void **res_desc, size_t rcount, uint64_t fl)
{
    AFWD(compwritemsg(ep, m, cmpv, cmp_desc, ccount, resv, res_desc, rcount, fl),
         HS_TRACE_WOP_ATOMIC_FETCH,
         ioc_n(m->msg_iov, m->iov_count),
         m->datatype, m->op, m->addr, m->context, 0);
}

/* cm: this endpoint's address */
static int c_getname(fid_t fid, void *addr, size_t *len)
{
    struct fid_ep *ep = (struct fid_ep *)fid;   /* fid is the first member */
    wcm *w = WRAP_OF(wcm, ep->cm);
    int rc = w->orig->getname(fid, addr, len);
    if (rc == 0 && addr && len && *len) {
        atomic_store(&addr_len, *len);
        hs__wire_worker(hs__wnow(), fnv(addr, *len), *len);
    }
    return rc;
}

/* completion queues: the entries' op_context are the contexts the
 * operations were posted with */
static void cq_done(const wcq *w, const void *buf, ssize_t n)
{
    uint64_t t = hs__wnow();
    for (ssize_t i = 0; i < n; i++) {
        const uint8_t *e = (const uint8_t *)buf + (size_t)i * w->entry;
        void *ctx;
        memcpy(&ctx, e, sizeof ctx);
        hs__wdone d = { .t = t };
        if (w->entry >= sizeof(struct fi_cq_msg_entry)) {
            const struct fi_cq_msg_entry *me = (const void *)e;
            if (me->flags & FI_RECV)
                d.bytes = me->len;
        }
        if (w->entry >= sizeof(struct fi_cq_tagged_entry)) {
            const struct fi_cq_tagged_entry *te = (const void *)e;
            if (te->flags & FI_RECV)
                d.stag = te->tag;
        }
        hs__wreq_done(ctx, &d);
    }
}
static ssize_t q_read(struct fid_cq *cq, void *buf, size_t count)
{
    wcq *w = WRAP_OF(wcq, cq->ops);
    ssize_t n = w->orig->read(cq, buf, count);
    if (n > 0 && hs__wh)
        cq_done(w, buf, n);
    return n;
}
static ssize_t q_readfrom(struct fid_cq *cq, void *buf, size_t count, fi_addr_t *src)
{
    wcq *w = WRAP_OF(wcq, cq->ops);
    ssize_t n = w->orig->readfrom(cq, buf, count, src);
    if (n > 0 && hs__wh)
        cq_done(w, buf, n);
    return n;
}
static ssize_t q_sread(struct fid_cq *cq, void *buf, size_t count, const void *cond, int to)
{
    wcq *w = WRAP_OF(wcq, cq->ops);
    ssize_t n = w->orig->sread(cq, buf, count, cond, to);
    if (n > 0 && hs__wh)
        cq_done(w, buf, n);
    return n;
}
static ssize_t q_sreadfrom(struct fid_cq *cq, void *buf, size_t count, fi_addr_t *src,
                           const void *cond, int to)
{
    wcq *w = WRAP_OF(wcq, cq->ops);
    ssize_t n = w->orig->sreadfrom(cq, buf, count, src, cond, to);
    if (n > 0 && hs__wh)
        cq_done(w, buf, n);
    return n;
}

/* address vectors */
static int a_insert(struct fid_av *av, const void *addr, size_t count, fi_addr_t *fa,
                    uint64_t flags, void *ctx)
{
    wav *w = WRAP_OF(wav, av->ops);
    int rc = w->orig->insert(av, addr, count, fa, flags, ctx);
    size_t len = atomic_load(&addr_len);
    if (rc > 0 && fa && addr && len && hs__wh)
        for (size_t i = 0; i < count; i++)
            if (fa[i] != FI_ADDR_NOTAVAIL)
                av_set(fa[i], fnv((const uint8_t *)addr + i * len, len));
    return rc;
}

/* ---- wrapping objects as they are opened ------------------------------------------ */

static void wrap_ep(struct fid_ep *ep)
{
    if (ep->cm && ep->cm->getname) {
        wcm *w = malloc(sizeof *w);
        if (w) {
            COPY_OPS(w->ops, ep->cm);
            w->orig = ep->cm;
            w->ops.getname = c_getname;
            ep->cm = &w->ops;
        }
    }
    if (ep->tagged) {
        wtag *w = malloc(sizeof *w);
        if (w) {
            COPY_OPS(w->ops, ep->tagged);
            w->orig = ep->tagged;
#define SETT(f, fn) if (w->ops.f) w->ops.f = fn
            SETT(send, t_send); SETT(sendv, t_sendv); SETT(sendmsg, t_sendmsg);
            SETT(inject, t_inject); SETT(senddata, t_senddata);
            SETT(injectdata, t_injectdata); SETT(recv, t_recv); SETT(recvv, t_recvv);
            SETT(recvmsg, t_recvmsg);
            ep->tagged = &w->ops;
        }
    }
    if (ep->msg) {
        wmsg *w = malloc(sizeof *w);
        if (w) {
            COPY_OPS(w->ops, ep->msg);
            w->orig = ep->msg;
            SETT(send, m_send); SETT(sendv, m_sendv); SETT(sendmsg, m_sendmsg);
            SETT(inject, m_inject); SETT(senddata, m_senddata);
            SETT(injectdata, m_injectdata); SETT(recv, m_recv); SETT(recvv, m_recvv);
            SETT(recvmsg, m_recvmsg);
            ep->msg = &w->ops;
        }
    }
    if (ep->rma) {
        wrma *w = malloc(sizeof *w);
        if (w) {
            COPY_OPS(w->ops, ep->rma);
            w->orig = ep->rma;
            SETT(read, r_read); SETT(readv, r_readv); SETT(readmsg, r_readmsg);
            SETT(write, r_write); SETT(writev, r_writev); SETT(writemsg, r_writemsg);
            SETT(inject, r_inject); SETT(writedata, r_writedata);
            SETT(injectdata, r_injectdata);
            ep->rma = &w->ops;
        }
    }
    if (ep->atomic) {
        watm *w = malloc(sizeof *w);
        if (w) {
            COPY_OPS(w->ops, ep->atomic);
            w->orig = ep->atomic;
            SETT(write, a_write); SETT(writev, a_writev); SETT(writemsg, a_writemsg);
            SETT(inject, a_inject); SETT(readwrite, a_readwrite);
            SETT(readwritev, a_readwritev); SETT(readwritemsg, a_readwritemsg);
            SETT(compwrite, a_compwrite); SETT(compwritev, a_compwritev);
            SETT(compwritemsg, a_compwritemsg);
#undef SETT
            ep->atomic = &w->ops;
        }
    }
}

/* Scalable endpoints (btl ofi's default when the provider offers more than
 * one transmit context): the operations are posted on the transmit and
 * receive contexts made from it, which are wrapped as endpoints. */
static int s_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr, struct fid_ep **tx,
                    void *ctx)
{
    wsep *w = WRAP_OF(wsep, sep->ops);
    int rc = w->orig->tx_ctx(sep, index, attr, tx, ctx);
    if (rc == 0 && tx && *tx && hs__wh)
        wrap_ep(*tx);
    return rc;
}
static int s_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr, struct fid_ep **rx,
                    void *ctx)
{
    wsep *w = WRAP_OF(wsep, sep->ops);
    int rc = w->orig->rx_ctx(sep, index, attr, rx, ctx);
    if (rc == 0 && rx && *rx && hs__wh)
        wrap_ep(*rx);
    return rc;
}
static void wrap_sep(struct fid_ep *sep)
{
    wrap_ep(sep);   /* its address (cm.getname) */
    if (!sep->ops)
        return;
    wsep *w = malloc(sizeof *w);
    if (!w)
        return;
    COPY_OPS(w->ops, sep->ops);
    w->orig = sep->ops;
    if (w->ops.tx_ctx) w->ops.tx_ctx = s_tx_ctx;
    if (w->ops.rx_ctx) w->ops.rx_ctx = s_rx_ctx;
    sep->ops = &w->ops;
}
static int d_scalable_ep(struct fid_domain *dom, struct fi_info *info, struct fid_ep **sep,
                         void *ctx)
{
    wdom *w = WRAP_OF(wdom, dom->ops);
    int rc = w->orig->scalable_ep(dom, info, sep, ctx);
    if (rc == 0 && sep && *sep && hs__wh)
        wrap_sep(*sep);
    return rc;
}

static int d_endpoint(struct fid_domain *dom, struct fi_info *info, struct fid_ep **ep, void *ctx)
{
    wdom *w = WRAP_OF(wdom, dom->ops);
    int rc = w->orig->endpoint(dom, info, ep, ctx);
    if (rc == 0 && ep && *ep && hs__wh)
        wrap_ep(*ep);
    return rc;
}
static int d_endpoint2(struct fid_domain *dom, struct fi_info *info, struct fid_ep **ep,
                       uint64_t flags, void *ctx)
{
    wdom *w = WRAP_OF(wdom, dom->ops);
    int rc = w->orig->endpoint2(dom, info, ep, flags, ctx);
    if (rc == 0 && ep && *ep && hs__wh)
        wrap_ep(*ep);
    return rc;
}
static int d_cq_open(struct fid_domain *dom, struct fi_cq_attr *attr, struct fid_cq **cq,
                     void *ctx)
{
    wdom *w = WRAP_OF(wdom, dom->ops);
    int rc = w->orig->cq_open(dom, attr, cq, ctx);
    if (rc || !cq || !*cq || !hs__wh || !attr)
        return rc;
    size_t entry = attr->format == FI_CQ_FORMAT_CONTEXT ? sizeof(struct fi_cq_entry)
                 : attr->format == FI_CQ_FORMAT_MSG ? sizeof(struct fi_cq_msg_entry)
                 : attr->format == FI_CQ_FORMAT_DATA ? sizeof(struct fi_cq_data_entry)
                 : attr->format == FI_CQ_FORMAT_TAGGED ? sizeof(struct fi_cq_tagged_entry) : 0;
    wcq *q = entry ? malloc(sizeof *q) : NULL;   /* FORMAT_UNSPEC: the provider's choice */
    if (q) {
        COPY_OPS(q->ops, (*cq)->ops);
        q->orig = (*cq)->ops;
        q->entry = entry;
        if (q->ops.read) q->ops.read = q_read;
        if (q->ops.readfrom) q->ops.readfrom = q_readfrom;
        if (q->ops.sread) q->ops.sread = q_sread;
        if (q->ops.sreadfrom) q->ops.sreadfrom = q_sreadfrom;
        (*cq)->ops = &q->ops;
    }
    return rc;
}
static int d_av_open(struct fid_domain *dom, struct fi_av_attr *attr, struct fid_av **av,
                     void *ctx)
{
    wdom *w = WRAP_OF(wdom, dom->ops);
    int rc = w->orig->av_open(dom, attr, av, ctx);
    if (rc == 0 && av && *av && hs__wh && (*av)->ops->insert) {
        wav *a = malloc(sizeof *a);
        if (a) {
            COPY_OPS(a->ops, (*av)->ops);
            a->orig = (*av)->ops;
            a->ops.insert = a_insert;
            (*av)->ops = &a->ops;
        }
    }
    return rc;
}

static void wrap_domain(struct fid_domain *d)
{
    wdom *w = malloc(sizeof *w);
    if (!w)
        return;
    COPY_OPS(w->ops, d->ops);
    w->orig = d->ops;
    if (w->ops.endpoint) w->ops.endpoint = d_endpoint;
    if (w->ops.endpoint2) w->ops.endpoint2 = d_endpoint2;
    if (w->ops.cq_open) w->ops.cq_open = d_cq_open;
    if (w->ops.av_open) w->ops.av_open = d_av_open;
    if (w->ops.scalable_ep) w->ops.scalable_ep = d_scalable_ep;
    d->ops = &w->ops;
}

static int f_domain(struct fid_fabric *f, struct fi_info *info, struct fid_domain **d, void *ctx)
{
    wfab *w = WRAP_OF(wfab, f->ops);
    int rc = w->orig->domain(f, info, d, ctx);
    if (rc == 0 && d && *d && hs__wh)
        wrap_domain(*d);
    return rc;
}
static int f_domain2(struct fid_fabric *f, struct fi_info *info, struct fid_domain **d,
                     uint64_t flags, void *ctx)
{
    wfab *w = WRAP_OF(wfab, f->ops);
    int rc = w->orig->domain2(f, info, d, flags, ctx);
    if (rc == 0 && d && *d && hs__wh)
        wrap_domain(*d);
    return rc;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    static int (*real)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    if (!real) {
        real = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))
               dlvsym(RTLD_NEXT, "fi_fabric", "FABRIC_1.1");
        if (!real)
            real = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))
                   hs__wresolve_in("fi_fabric", "libfabric.so.1");
    }
    /* A fabric a provider opens for itself inside this call (ofi_rxm opens
     * the core tcp fabric) is left alone: only the application's is wrapped. */
    int nested = hs__wt.depth;
    hs__wt.depth++;
    int rc = real(attr, fabric, context);
    hs__wt.depth--;
    if (rc || !fabric || !*fabric || !hs__wh || nested)
        return rc;
    wfab *w = malloc(sizeof *w);
    if (w) {
        COPY_OPS(w->ops, (*fabric)->ops);
        w->orig = (*fabric)->ops;
        if (w->ops.domain) w->ops.domain = f_domain;
        if (w->ops.domain2) w->ops.domain2 = f_domain2;
        (*fabric)->ops = &w->ops;
    }
    return rc;
}

#endif /* HS_HAVE_FABRIC */
