/* libtrace/interpose/record.h — private: recording of point-to-point
 * starts and receives.  Hand-written, reviewed; the wrappers in wrap_p2p.c
 * only gather their arguments and call these.  Inlined into each wrapper:
 * a receive's recording runs between the message's arrival and the
 * application's next send, so every cycle here is latency.
 *
 * Everything here runs after the real MPI call returned, so handles are
 * valid when rc == MPI_SUCCESS; with an error, nothing that could call into
 * MPI with a bad handle is done. */
#ifndef HOPSCOPE_INTERPOSE_RECORD_H
#define HOPSCOPE_INTERPOSE_RECORD_H

#include "interpose.h"

/* The clock read before a call to or from rank peer: none (0) when the
 * call is a no-op (MPI_PROC_NULL), which returns at once; the recording
 * functions then take t0 = t1 from their one read after the call. */
static inline __attribute__((always_inline)) uint64_t hs__t0(int peer)
{
    return hs__unlikely(peer == MPI_PROC_NULL) ? 0 : hs__now();
}

static inline int32_t norm_tag(int tag)
{
    return tag == MPI_ANY_TAG ? HS_TRACE_ANY_TAG : tag;
}

static inline __attribute__((always_inline)) void
hs__rec_send(uint16_t kind, uint64_t t0, int rc, uint64_t count, MPI_Datatype dt, int dest,
                  int tag, MPI_Comm comm, MPI_Request *req, uint32_t xflags)
{
    uint64_t t1 = hs__now();
    if (dest == MPI_PROC_NULL)
        t0 = t1;   /* a no-op: one clock read (hs__t0) */
    int ok = rc == MPI_SUCCESS;
    hs__comm *c = ok ? hs__comm_get(comm) : hs__g.null_comm;
    int32_t peer = hs__peer(c, dest);
    int persistent = kind >= HS_TRACE_SEND_INIT && kind <= HS_TRACE_RSEND_INIT;
    uint32_t flags = hs__rcflag(rc) | xflags;
    if (ok && !persistent)
        flags |= hs__monitor(peer);
    hs__rec *r = hs__rec0(kind, t0, t1, flags);
    if (!r)
        return;
    r->comm = c->index;
    r->peer = peer;
    r->tag = tag;
    r->bytes = ok ? sz(count, dt) : 0;
    r->req = 0;
    if (req && ok && *req != MPI_REQUEST_NULL) {
        hs__reqinfo ri = { .id = hs__new_req_id(), .comm = NULL, .peer = peer,
                           .type = HS__RQ_SEND, .persistent = (uint8_t)persistent,
                           .instant = dest == MPI_PROC_NULL };
        r->req = ri.id;
        hs__req_add(*req, &ri);
    }
    hs__commit(r, sizeof *r);
}

static inline __attribute__((always_inline)) void
hs__rec_irecv(uint16_t kind, uint64_t t0, int rc, uint64_t count, MPI_Datatype dt, int src,
                   int tag, MPI_Comm comm, MPI_Request *req, uint32_t xflags)
{
    uint64_t t1 = hs__now();
    if (src == MPI_PROC_NULL)
        t0 = t1;   /* a no-op: one clock read (hs__t0) */
    int ok = rc == MPI_SUCCESS;
    hs__comm *c = ok ? hs__comm_get(comm) : hs__g.null_comm;
    uint32_t flags = hs__rcflag(rc) | xflags;
    if (src == MPI_ANY_SOURCE)
        flags |= HS_TRACE_F_ANY_SOURCE;
    if (tag == MPI_ANY_TAG)
        flags |= HS_TRACE_F_ANY_TAG;
    hs__rec *r = hs__rec0(kind, t0, t1, flags);
    if (!r)
        return;
    r->comm = c->index;
    r->peer2 = hs__peer(c, src);
    r->tag2 = norm_tag(tag);
    r->bytes2 = ok ? sz(count, dt) : 0;
    r->req = 0;
    if (req && ok && *req != MPI_REQUEST_NULL) {
        hs__reqinfo ri = { .id = hs__new_req_id(), .comm = c, .peer = HS_TRACE_RANK_NONE,
                           .type = HS__RQ_RECV,
                           .persistent = kind == HS_TRACE_RECV_INIT,
                           .instant = src == MPI_PROC_NULL };
        atomic_fetch_add(&c->refs, 1);
        r->req = ri.id;
        hs__req_add(*req, &ri);
    }
    hs__commit(r, sizeof *r);
}

static inline __attribute__((always_inline)) void
hs__rec_recv(uint16_t kind, uint64_t t0, int rc, uint64_t count, MPI_Datatype dt, int src,
                  int tag, MPI_Comm comm, const MPI_Status *st, uint32_t xflags)
{
    uint64_t t1 = hs__now();
    if (src == MPI_PROC_NULL)
        t0 = t1;   /* a no-op: one clock read (hs__t0) */
    int ok = rc == MPI_SUCCESS;
    hs__comm *c = ok ? hs__comm_get(comm) : hs__g.null_comm;
    uint32_t flags = hs__rcflag(rc) | xflags;
    if (src == MPI_ANY_SOURCE)
        flags |= HS_TRACE_F_ANY_SOURCE;
    if (tag == MPI_ANY_TAG)
        flags |= HS_TRACE_F_ANY_TAG;
    hs__rec *r = hs__rec0(kind, t0, t1, flags);
    if (!r)
        return;
    r->comm = c->index;
    r->peer2 = hs__peer(c, src);
    r->tag2 = norm_tag(tag);
    r->bytes2 = ok ? sz(count, dt) : 0;
    if (ok) {
        r->peer = hs__peer(c, st->MPI_SOURCE);
        r->tag = st->MPI_SOURCE == MPI_PROC_NULL ? HS_TRACE_TAG_NONE : norm_tag(st->MPI_TAG);
        r->bytes = hs__status_bytes(st);
    } else {
        r->peer = HS_TRACE_RANK_NONE;
        r->tag = HS_TRACE_TAG_NONE;
        r->bytes = 0;
    }
    hs__commit(r, sizeof *r);
}

#endif
