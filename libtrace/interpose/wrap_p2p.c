/* libhopscope.so: point-to-point and completion wrappers.
 *
 * Families that differ only in the event kind (the four send modes, their
 * nonblocking and persistent forms, the MPI-4 large-count twins) are stamped
 * out by the W_* macros below; what each call records is in record.c.
 * A status the wrapper needs (matched source, tag, size) is substituted only
 * when the application passed MPI_STATUS(ES)_IGNORE. */
#include "interpose.h"
#include "record.h"

#include <string.h>

#define IGN(st) ((st) == MPI_STATUS_IGNORE)

/* ---- sends --------------------------------------------------------------- */

#define W_SEND(name, KIND, CT, XF)                                                   \
    HS_WRAP(int, name, (const void *buf, CT count, MPI_Datatype dt, int dest, int tag, \
                        MPI_Comm comm), (buf, count, dt, dest, tag, comm))           \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, dest, tag, comm));                           \
        uint64_t t0 = hs__t0(dest);                                                  \
        int rc = HS_REAL(name)(buf, count, dt, dest, tag, comm);                     \
        hs__rec_send(KIND, t0, rc, (uint64_t)count, dt, dest, tag, comm, NULL, XF);  \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

#define W_ISEND(name, KIND, CT, XF)                                                  \
    HS_WRAP(int, name, (const void *buf, CT count, MPI_Datatype dt, int dest, int tag, \
                        MPI_Comm comm, MPI_Request *req),                            \
            (buf, count, dt, dest, tag, comm, req))                                  \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, dest, tag, comm, req));                      \
        uint64_t t0 = hs__t0(dest);                                                  \
        int rc = HS_REAL(name)(buf, count, dt, dest, tag, comm, req);                \
        hs__rec_send(KIND, t0, rc, (uint64_t)count, dt, dest, tag, comm, req, XF);   \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

W_SEND(Send, HS_TRACE_SEND, int, 0)
W_SEND(Bsend, HS_TRACE_BSEND, int, 0)
W_SEND(Ssend, HS_TRACE_SSEND, int, 0)
W_SEND(Rsend, HS_TRACE_RSEND, int, 0)
W_ISEND(Isend, HS_TRACE_ISEND, int, 0)
W_ISEND(Ibsend, HS_TRACE_IBSEND, int, 0)
W_ISEND(Issend, HS_TRACE_ISSEND, int, 0)
W_ISEND(Irsend, HS_TRACE_IRSEND, int, 0)
W_ISEND(Send_init, HS_TRACE_SEND_INIT, int, 0)
W_ISEND(Bsend_init, HS_TRACE_BSEND_INIT, int, 0)
W_ISEND(Ssend_init, HS_TRACE_SSEND_INIT, int, 0)
W_ISEND(Rsend_init, HS_TRACE_RSEND_INIT, int, 0)
#if HS_MPI4
W_SEND(Send_c, HS_TRACE_SEND, MPI_Count, HS_TRACE_F_LARGE)
W_SEND(Bsend_c, HS_TRACE_BSEND, MPI_Count, HS_TRACE_F_LARGE)
W_SEND(Ssend_c, HS_TRACE_SSEND, MPI_Count, HS_TRACE_F_LARGE)
W_SEND(Rsend_c, HS_TRACE_RSEND, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Isend_c, HS_TRACE_ISEND, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Ibsend_c, HS_TRACE_IBSEND, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Issend_c, HS_TRACE_ISSEND, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Irsend_c, HS_TRACE_IRSEND, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Send_init_c, HS_TRACE_SEND_INIT, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Bsend_init_c, HS_TRACE_BSEND_INIT, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Ssend_init_c, HS_TRACE_SSEND_INIT, MPI_Count, HS_TRACE_F_LARGE)
W_ISEND(Rsend_init_c, HS_TRACE_RSEND_INIT, MPI_Count, HS_TRACE_F_LARGE)
#endif

/* ---- receives ---------------------------------------------------------------- */

#define W_RECV(name, CT, XF)                                                         \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, int src, int tag,      \
                        MPI_Comm comm, MPI_Status *st),                              \
            (buf, count, dt, src, tag, comm, st))                                    \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, src, tag, comm, st));                        \
        MPI_Status mine;                                                             \
        MPI_Status *s = IGN(st) ? &mine : st;                                        \
        uint64_t t0 = hs__t0(src);                                                   \
        int rc = HS_REAL(name)(buf, count, dt, src, tag, comm, s);                   \
        hs__rec_recv(HS_TRACE_RECV, t0, rc, (uint64_t)count, dt, src, tag, comm, s, XF); \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

#define W_IRECV(name, KIND, CT, XF)                                                  \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, int src, int tag,      \
                        MPI_Comm comm, MPI_Request *req),                            \
            (buf, count, dt, src, tag, comm, req))                                   \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, src, tag, comm, req));                       \
        uint64_t t0 = hs__t0(src);                                                   \
        int rc = HS_REAL(name)(buf, count, dt, src, tag, comm, req);                 \
        hs__rec_irecv(KIND, t0, rc, (uint64_t)count, dt, src, tag, comm, req, XF);   \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

W_RECV(Recv, int, 0)
W_IRECV(Irecv, HS_TRACE_IRECV, int, 0)
W_IRECV(Recv_init, HS_TRACE_RECV_INIT, int, 0)
#if HS_MPI4
W_RECV(Recv_c, MPI_Count, HS_TRACE_F_LARGE)
W_IRECV(Irecv_c, HS_TRACE_IRECV, MPI_Count, HS_TRACE_F_LARGE)
W_IRECV(Recv_init_c, HS_TRACE_RECV_INIT, MPI_Count, HS_TRACE_F_LARGE)
#endif

/* ---- sendrecv ------------------------------------------------------------------ */

static void rec_sendrecv(uint16_t kind, uint64_t t0, int rc, uint64_t sbytes_count,
                         MPI_Datatype st_, int dest, int stag, int src, int rtag,
                         MPI_Comm comm, const MPI_Status *s, uint64_t rcap, MPI_Request *req,
                         uint32_t xf)
{
    uint64_t t1 = hs__now();
    int ok = rc == MPI_SUCCESS;
    hs__comm *c = ok ? hs__comm_get(comm) : hs__g.null_comm;
    int32_t peer = hs__peer(c, dest);
    uint32_t flags = hs__rcflag(rc) | xf | (ok ? hs__monitor(peer) : 0);
    if (src == MPI_ANY_SOURCE)
        flags |= HS_TRACE_F_ANY_SOURCE;
    if (rtag == MPI_ANY_TAG)
        flags |= HS_TRACE_F_ANY_TAG;
    hs__rec *r = hs__rec0(kind, t0, t1, flags);
    if (!r)
        return;
    r->comm = c->index;
    r->peer = peer;
    r->tag = stag;
    r->bytes = ok && sbytes_count ? sbytes_count * hs__type_size(st_) : 0;
    r->req = 0;
    if (req) {
        /* Isendrecv: the receive half is matched at completion. */
        r->peer2 = hs__peer(c, src);
        r->tag2 = rtag == MPI_ANY_TAG ? HS_TRACE_ANY_TAG : rtag;
        r->bytes2 = rcap;
        if (ok && *req != MPI_REQUEST_NULL) {
            hs__reqinfo ri = { .id = hs__new_req_id(), .comm = c, .peer = peer,
                               .type = HS__RQ_SENDRECV };
            atomic_fetch_add(&c->refs, 1);
            r->req = ri.id;
            hs__req_add(*req, &ri);
        }
    } else if (ok) {
        r->peer2 = hs__peer(c, s->MPI_SOURCE);
        r->tag2 = s->MPI_SOURCE == MPI_PROC_NULL ? HS_TRACE_TAG_NONE
                                                 : (s->MPI_TAG == MPI_ANY_TAG ? HS_TRACE_ANY_TAG
                                                                              : s->MPI_TAG);
        r->bytes2 = hs__status_bytes(s);
    } else {
        r->peer2 = HS_TRACE_RANK_NONE;
        r->tag2 = HS_TRACE_TAG_NONE;
        r->bytes2 = 0;
    }
    hs__commit(r, sizeof *r);
}

#define W_SENDRECV(name, CT, XF)                                                     \
    HS_WRAP(int, name, (const void *sbuf, CT scount, MPI_Datatype stype, int dest,   \
                        int stag, void *rbuf, CT rcount, MPI_Datatype rtype, int src,  \
                        int rtag, MPI_Comm comm, MPI_Status *st),                    \
            (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st)) \
    {                                                                                \
        HS_ENTER(name, (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, \
                        comm, st));                                                  \
        MPI_Status mine;                                                             \
        MPI_Status *s = IGN(st) ? &mine : st;                                        \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, \
                               rtag, comm, s);                                       \
        rec_sendrecv(HS_TRACE_SENDRECV, t0, rc, (uint64_t)scount, stype, dest, stag, src, \
                     rtag, comm, s, 0, NULL, XF);                                    \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

#define W_SENDRECV_REPLACE(name, CT, XF)                                             \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, int dest, int stag,    \
                        int src, int rtag, MPI_Comm comm, MPI_Status *st),           \
            (buf, count, dt, dest, stag, src, rtag, comm, st))                       \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, dest, stag, src, rtag, comm, st));           \
        MPI_Status mine;                                                             \
        MPI_Status *s = IGN(st) ? &mine : st;                                        \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(buf, count, dt, dest, stag, src, rtag, comm, s);      \
        rec_sendrecv(HS_TRACE_SENDRECV_REPLACE, t0, rc, (uint64_t)count, dt, dest, stag, \
                     src, rtag, comm, s, 0, NULL, XF);                               \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

W_SENDRECV(Sendrecv, int, 0)
W_SENDRECV_REPLACE(Sendrecv_replace, int, 0)
#if HS_MPI4
W_SENDRECV(Sendrecv_c, MPI_Count, HS_TRACE_F_LARGE)
W_SENDRECV_REPLACE(Sendrecv_replace_c, MPI_Count, HS_TRACE_F_LARGE)

#define W_ISENDRECV(name, CT, XF)                                                    \
    HS_WRAP(int, name, (const void *sbuf, CT scount, MPI_Datatype stype, int dest,   \
                        int stag, void *rbuf, CT rcount, MPI_Datatype rtype, int src,  \
                        int rtag, MPI_Comm comm, MPI_Request *req),                  \
            (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, req)) \
    {                                                                                \
        HS_ENTER(name, (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, \
                        comm, req));                                                 \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, \
                               rtag, comm, req);                                     \
        uint64_t cap = rc == MPI_SUCCESS && rcount ? (uint64_t)rcount * hs__type_size(rtype) \
                                                   : 0;                              \
        rec_sendrecv(HS_TRACE_ISENDRECV, t0, rc, (uint64_t)scount, stype, dest, stag, src, \
                     rtag, comm, NULL, cap, req, XF);                                \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_ISENDRECV_REPLACE(name, CT, XF)                                            \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, int dest, int stag,    \
                        int src, int rtag, MPI_Comm comm, MPI_Request *req),         \
            (buf, count, dt, dest, stag, src, rtag, comm, req))                      \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, dest, stag, src, rtag, comm, req));          \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(buf, count, dt, dest, stag, src, rtag, comm, req);    \
        uint64_t cap = rc == MPI_SUCCESS && count ? (uint64_t)count * hs__type_size(dt) : 0; \
        rec_sendrecv(HS_TRACE_ISENDRECV_REPLACE, t0, rc, (uint64_t)count, dt, dest, stag,  \
                     src, rtag, comm, NULL, cap, req, XF);                           \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_ISENDRECV(Isendrecv, int, 0)
W_ISENDRECV_REPLACE(Isendrecv_replace, int, 0)
W_ISENDRECV(Isendrecv_c, MPI_Count, HS_TRACE_F_LARGE)
W_ISENDRECV_REPLACE(Isendrecv_replace_c, MPI_Count, HS_TRACE_F_LARGE)
#endif

/* ---- probes and matched receives ---------------------------------------------- */

/* Folds a fruitless probe into the previous identical one. */
static int fold_probe(uint16_t kind, uint32_t comm, int32_t src, int32_t tag, uint64_t t1)
{
    hs__tbuf *b = hs__t.buf;
    hs__rec *last = b ? b->last : NULL;
    if (!last || last->kind != kind || (last->flags & HS_TRACE_F_FOUND) ||
        last->comm != comm || last->peer2 != src || last->tag2 != tag ||
        last->repeat == UINT32_MAX)
        return 0;
    last->t1 = t1;
    last->repeat++;
    return 1;
}

/* Probe family: found = 0 for a fruitless Iprobe/Improbe. */
static void rec_probe(uint16_t kind, uint64_t t0, int rc, int src, int tag, MPI_Comm comm,
                      int found, const MPI_Status *s, MPI_Message *msg)
{
    uint64_t t1 = hs__now();
    int ok = rc == MPI_SUCCESS;
    hs__comm *c = ok ? hs__comm_get(comm) : hs__g.null_comm;
    int32_t psrc = hs__peer(c, src), ptag = tag == MPI_ANY_TAG ? HS_TRACE_ANY_TAG : tag;
    uint32_t flags = hs__rcflag(rc);
    if (src == MPI_ANY_SOURCE)
        flags |= HS_TRACE_F_ANY_SOURCE;
    if (tag == MPI_ANY_TAG)
        flags |= HS_TRACE_F_ANY_TAG;
    int poll = kind == HS_TRACE_IPROBE || kind == HS_TRACE_IMPROBE;
    if (ok && poll && !found && fold_probe(kind, c->index, psrc, ptag, t1))
        return;
    if (ok && found && poll)
        flags |= HS_TRACE_F_FOUND;
    hs__rec *r = hs__rec0(kind, t0, t1, flags);
    if (!r)
        return;
    r->comm = c->index;
    r->peer2 = psrc;
    r->tag2 = ptag;
    r->peer = HS_TRACE_RANK_NONE;
    r->tag = HS_TRACE_TAG_NONE;
    r->bytes = 0;
    r->aux = 0;
    if (ok && found) {
        r->peer = hs__peer(c, s->MPI_SOURCE);
        r->tag = s->MPI_SOURCE == MPI_PROC_NULL ? HS_TRACE_TAG_NONE : s->MPI_TAG;
        r->bytes = hs__status_bytes(s);
        if (msg && *msg != MPI_MESSAGE_NULL && *msg != MPI_MESSAGE_NO_PROC) {
            hs__tbuf *b = hs__t.buf;
            hs__msginfo mi = { .id = ((uint64_t)b->thread << 40) | ++b->next_msg, .comm = c,
                               .src = r->peer, .tag = r->tag, .bytes = r->bytes };
            atomic_fetch_add(&c->refs, 1);
            r->aux = mi.id;
            hs__msg_add(*msg, &mi);
        }
    }
    hs__commit(r, sizeof *r);
}

HS_WRAP(int, Probe, (int src, int tag, MPI_Comm comm, MPI_Status *st), (src, tag, comm, st))
{
    HS_ENTER(Probe, (src, tag, comm, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Probe)(src, tag, comm, s);
    rec_probe(HS_TRACE_PROBE, t0, rc, src, tag, comm, 1, s, NULL);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Iprobe, (int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st),
        (src, tag, comm, flag, st))
{
    HS_ENTER(Iprobe, (src, tag, comm, flag, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Iprobe)(src, tag, comm, flag, s);
    rec_probe(HS_TRACE_IPROBE, t0, rc, src, tag, comm, rc == MPI_SUCCESS && *flag, s, NULL);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Mprobe, (int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st),
        (src, tag, comm, msg, st))
{
    HS_ENTER(Mprobe, (src, tag, comm, msg, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Mprobe)(src, tag, comm, msg, s);
    rec_probe(HS_TRACE_MPROBE, t0, rc, src, tag, comm, 1, s, msg);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Improbe, (int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                       MPI_Status *st), (src, tag, comm, flag, msg, st))
{
    HS_ENTER(Improbe, (src, tag, comm, flag, msg, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Improbe)(src, tag, comm, flag, msg, s);
    rec_probe(HS_TRACE_IMPROBE, t0, rc, src, tag, comm, rc == MPI_SUCCESS && *flag, s, msg);
    HS_LEAVE();
    return rc;
}

/* MPI_Mrecv/Imrecv consume the message handle: its entry is taken first. */
static void rec_mrecv(uint16_t kind, uint64_t t0, int rc, uint64_t count, MPI_Datatype dt,
                      MPI_Message before, const hs__msginfo *mi, int known,
                      const MPI_Status *s, MPI_Request *req, uint32_t xf)
{
    uint64_t t1 = hs__now();
    int ok = rc == MPI_SUCCESS;
    hs__rec *r = hs__rec0(kind, t0, t1, hs__rcflag(rc) | xf);
    if (!r) {
        if (known && mi->comm)
            hs__comm_release(mi->comm);
        return;
    }
    hs__comm *c = known ? mi->comm : hs__g.null_comm;
    r->comm = c->index;
    r->aux = known ? mi->id : 0;
    r->bytes2 = ok && count ? count * hs__type_size(dt) : 0;
    r->peer = known ? mi->src : (before == MPI_MESSAGE_NO_PROC ? HS_TRACE_PROC_NULL
                                                               : HS_TRACE_RANK_NONE);
    r->tag = known ? mi->tag : HS_TRACE_TAG_NONE;
    r->req = 0;
    if (kind == HS_TRACE_MRECV) {
        r->bytes = ok && s ? hs__status_bytes(s) : 0;
        if (known)
            hs__comm_release(mi->comm);
    } else if (ok && req && *req != MPI_REQUEST_NULL && known) {
        hs__reqinfo ri = { .id = hs__new_req_id(), .comm = mi->comm,
                           .peer = HS_TRACE_RANK_NONE, .type = HS__RQ_RECV };
        r->req = ri.id;
        hs__req_add(*req, &ri);   /* the message's reference moves to the request */
    } else if (known) {
        hs__comm_release(mi->comm);
    }
    hs__commit(r, sizeof *r);
}

#define W_MRECV(name, CT, XF)                                                        \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, MPI_Message *msg,      \
                        MPI_Status *st), (buf, count, dt, msg, st))                  \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, msg, st));                                   \
        MPI_Status mine;                                                             \
        MPI_Status *s = IGN(st) ? &mine : st;                                        \
        MPI_Message before = *msg;                                                   \
        hs__msginfo mi;                                                              \
        int known = hs__msg_take(before, &mi);                                       \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(buf, count, dt, msg, s);                              \
        rec_mrecv(HS_TRACE_MRECV, t0, rc, (uint64_t)count, dt, before, &mi, known, s, NULL, XF); \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_IMRECV(name, CT, XF)                                                       \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, MPI_Message *msg,      \
                        MPI_Request *req), (buf, count, dt, msg, req))               \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, msg, req));                                  \
        MPI_Message before = *msg;                                                   \
        hs__msginfo mi;                                                              \
        int known = hs__msg_take(before, &mi);                                       \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(buf, count, dt, msg, req);                            \
        rec_mrecv(HS_TRACE_IMRECV, t0, rc, (uint64_t)count, dt, before, &mi, known, NULL, \
                  req, XF);                                                          \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }

W_MRECV(Mrecv, int, 0)
W_IMRECV(Imrecv, int, 0)
#if HS_MPI4
W_MRECV(Mrecv_c, MPI_Count, HS_TRACE_F_LARGE)
W_IMRECV(Imrecv_c, MPI_Count, HS_TRACE_F_LARGE)
#endif

/* ---- persistent starts --------------------------------------------------------- */

static void rec_starts(uint16_t kind, uint64_t t0, int rc, int n, const MPI_Request *reqs)
{
    uint64_t t1 = hs__now();
    uint32_t cnt = n > 0 ? (uint32_t)n : 0;
    size_t sz;
    hs__rec *r = hs__recn(kind, t0, t1, hs__rcflag(rc), cnt, 0, &sz);
    if (!r)
        return;
    uint64_t *w = hs__rec_list(r);
    for (uint32_t i = 0; i < cnt; i++) {
        hs__reqinfo ri;
        uint64_t id = 0, f = 0;
        if (hs__req_peek(reqs[i], &ri) && ri.persistent) {
            id = ri.id;
            if (rc == MPI_SUCCESS) {
                if (ri.type == HS__RQ_SEND)
                    f = hs__monitor(ri.peer);
                hs__req_set_active(reqs[i], 1);
            }
        }
        *w++ = id;
        *w++ = f;
    }
    hs__commit(r, sz);
}

HS_WRAP(int, Start, (MPI_Request *req), (req))
{
    HS_ENTER(Start, (req));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Start)(req);
    rec_starts(HS_TRACE_START, t0, rc, 1, req);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Startall, (int n, MPI_Request reqs[]), (n, reqs))
{
    HS_ENTER(Startall, (n, reqs));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Startall)(n, reqs);
    rec_starts(HS_TRACE_STARTALL, t0, rc, n, reqs);
    HS_LEAVE();
    return rc;
}

/* ---- completion ------------------------------------------------------------------ */

HS_WRAP(int, Wait, (MPI_Request *req, MPI_Status *st), (req, st))
{
    HS_ENTER(Wait, (req, st));
    MPI_Request before = *req;
    hs__reqinfo ri;
    int known = hs__req_take(before, &ri);
    int instant = before == MPI_REQUEST_NULL || (known && ri.instant && !ri.persistent);
    /* Only a receive's completion records what its status holds: other
     * requests keep the application's MPI_STATUS_IGNORE (the MPI then
     * fills no status, as without hopscope). */
    MPI_Status mine;
    MPI_Status *s = st;
    if (IGN(st))
        s = known && (ri.type == HS__RQ_RECV || ri.type == HS__RQ_SENDRECV) ? &mine : NULL;
    uint64_t t0 = instant ? 0 : hs__now();
    int rc = HS_REAL(Wait)(req, s ? s : st);
    hs__wait1_finish(before, known, &ri, instant, t0, rc, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Test, (MPI_Request *req, int *flag, MPI_Status *st), (req, flag, st))
{
    HS_ENTER(Test, (req, flag, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    hs__compl c;
    if (hs__compl_take(&c, 1, req) != 0) {
        HS_LEAVE();
        return HS_REAL(Test)(req, flag, st);
    }
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Test)(req, flag, s);
    int zero = 0;
    hs__compl_finish(&c, HS_TRACE_TEST, t0, rc, rc == MPI_SUCCESS && *flag, &zero, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Waitany, (int n, MPI_Request reqs[], int *index, MPI_Status *st),
        (n, reqs, index, st))
{
    HS_ENTER(Waitany, (n, reqs, index, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    hs__compl c;
    if (hs__compl_take(&c, n, reqs) != 0) {
        HS_LEAVE();
        return HS_REAL(Waitany)(n, reqs, index, st);
    }
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Waitany)(n, reqs, index, s);
    int done = rc == MPI_SUCCESS && *index != MPI_UNDEFINED;
    hs__compl_finish(&c, HS_TRACE_WAITANY, t0, rc, done, index, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Testany, (int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st),
        (n, reqs, index, flag, st))
{
    HS_ENTER(Testany, (n, reqs, index, flag, st));
    MPI_Status mine;
    MPI_Status *s = IGN(st) ? &mine : st;
    hs__compl c;
    if (hs__compl_take(&c, n, reqs) != 0) {
        HS_LEAVE();
        return HS_REAL(Testany)(n, reqs, index, flag, st);
    }
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Testany)(n, reqs, index, flag, s);
    int done = rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED;
    hs__compl_finish(&c, HS_TRACE_TESTANY, t0, rc, done, index, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Waitall, (int n, MPI_Request reqs[], MPI_Status sts[]), (n, reqs, sts))
{
    HS_ENTER(Waitall, (n, reqs, sts));
    hs__compl c;
    MPI_Status *s = sts == MPI_STATUSES_IGNORE ? hs__statuses(n) : sts;
    if (!s || hs__compl_take(&c, n, reqs) != 0) {
        HS_LEAVE();
        return HS_REAL(Waitall)(n, reqs, sts);
    }
    for (int i = 0; i < n; i++)
        c.idx[i] = i;
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Waitall)(n, reqs, s);
    hs__compl_finish(&c, HS_TRACE_WAITALL, t0, rc, n, c.idx, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Testall, (int n, MPI_Request reqs[], int *flag, MPI_Status sts[]),
        (n, reqs, flag, sts))
{
    HS_ENTER(Testall, (n, reqs, flag, sts));
    hs__compl c;
    MPI_Status *s = sts == MPI_STATUSES_IGNORE ? hs__statuses(n) : sts;
    if (!s || hs__compl_take(&c, n, reqs) != 0) {
        HS_LEAVE();
        return HS_REAL(Testall)(n, reqs, flag, sts);
    }
    for (int i = 0; i < n; i++)
        c.idx[i] = i;
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Testall)(n, reqs, flag, s);
    int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
    hs__compl_finish(&c, HS_TRACE_TESTALL, t0, rc, ok && *flag ? n : 0, c.idx, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Waitsome, (int n, MPI_Request reqs[], int *outcount, int indices[],
                        MPI_Status sts[]), (n, reqs, outcount, indices, sts))
{
    HS_ENTER(Waitsome, (n, reqs, outcount, indices, sts));
    hs__compl c;
    MPI_Status *s = sts == MPI_STATUSES_IGNORE ? hs__statuses(n) : sts;
    if (!s || hs__compl_take(&c, n, reqs) != 0) {
        HS_LEAVE();
        return HS_REAL(Waitsome)(n, reqs, outcount, indices, sts);
    }
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Waitsome)(n, reqs, outcount, indices, s);
    int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
    int done = ok && *outcount != MPI_UNDEFINED ? *outcount : 0;
    hs__compl_finish(&c, HS_TRACE_WAITSOME, t0, rc, done, indices, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Testsome, (int n, MPI_Request reqs[], int *outcount, int indices[],
                        MPI_Status sts[]), (n, reqs, outcount, indices, sts))
{
    HS_ENTER(Testsome, (n, reqs, outcount, indices, sts));
    hs__compl c;
    MPI_Status *s = sts == MPI_STATUSES_IGNORE ? hs__statuses(n) : sts;
    if (!s || hs__compl_take(&c, n, reqs) != 0) {
        HS_LEAVE();
        return HS_REAL(Testsome)(n, reqs, outcount, indices, sts);
    }
    uint64_t t0 = c.instant ? 0 : hs__now();
    int rc = HS_REAL(Testsome)(n, reqs, outcount, indices, s);
    int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
    int done = ok && *outcount != MPI_UNDEFINED ? *outcount : 0;
    hs__compl_finish(&c, HS_TRACE_TESTSOME, t0, rc, done, indices, s);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Request_free, (MPI_Request *req), (req))
{
    HS_ENTER(Request_free, (req));
    hs__reqinfo ri;
    int known = hs__req_take(*req, &ri);
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Request_free)(req);
    hs__rec *r = hs__rec0(HS_TRACE_REQUEST_FREE, t0, hs__now(), hs__rcflag(rc));
    if (r) {
        r->req = known ? ri.id : 0;
        hs__commit(r, sizeof *r);
    }
    if (known && ri.comm)
        hs__comm_release(ri.comm);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Cancel, (MPI_Request *req), (req))
{
    HS_ENTER(Cancel, (req));
    hs__reqinfo ri;
    int known = hs__req_peek(*req, &ri);
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Cancel)(req);
    hs__rec *r = hs__rec0(HS_TRACE_CANCEL, t0, hs__now(), hs__rcflag(rc));
    if (r) {
        r->req = known ? ri.id : 0;
        hs__commit(r, sizeof *r);
    }
    HS_LEAVE();
    return rc;
}
