/* Compiling a trace into the replay's ops (replay.h, "ops").
 *
 * Each rank's events are read once, in start-time order, and turned into
 * one op list per writer thread.  What the compilation settles so that the
 * replay never has to look ahead:
 *   - computation: the time from the end of the previous call of the same
 *     thread to the start of the next replayed call, times the scale;
 *     calls that are not replayed (communicator management, fruitless
 *     tests and probes) are treated as instantaneous and their gaps add up;
 *   - wildcard receives: an Irecv (or a persistent receive's start) posted
 *     with MPI_ANY_SOURCE/ANY_TAG gets the source and tag its completion
 *     reports; a receive never completed in the trace stays unresolved;
 *   - request ids: dense per-rank slots, reused once a request completes
 *     (single-threaded ranks only: threads run independently in the replay);
 *   - a Test/Testany/Testsome that found completions becomes a wait on
 *     exactly those requests, a successful Iprobe a Probe;
 *   - collectives: the sizes and lists hs__coll_req needs, the root and the
 *     rank as communicator ranks. */
#include "replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The memory figure in docs/replay.md counts on it. */
_Static_assert(sizeof(rp_op) == 64, "an op is one cache line");

/* ---- jobs, communicators ---------------------------------------------------- */

int hs__rp_job_new(rp *R, uint32_t nranks, int app, const char *name, uint32_t *out)
{
    rp_job *nj = realloc(R->jobs, (R->njobs + 1) * sizeof *nj);
    if (!nj)
        return HS_ENOMEM;
    R->jobs = nj;
    rp_rank *nr = realloc(R->ranks, ((size_t)R->nranks + nranks) * sizeof *nr);
    if (!nr)
        return HS_ENOMEM;
    R->ranks = nr;
    uint32_t j = R->njobs;
    rp_job *J = &R->jobs[j];
    memset(J, 0, sizeof *J);
    J->rank0 = R->nranks;
    J->nranks = nranks;
    J->actor0 = R->nactors;
    J->app = app;
    J->loop = !app;
    J->sample_rate = app ? 1.0 : 0.0;
    snprintf(J->name, sizeof J->name, "%s", name);
    if (hs__rp_map_init(&J->comm_ids, 16) || hs__rp_map_init(&J->win_ids, 16))
        return HS_ENOMEM;
    R->njobs++;
    for (uint32_t r = 0; r < nranks; r++) {
        rp_rank *k = &R->ranks[R->nranks + r];
        memset(k, 0, sizeof *k);
        k->job = j;
        k->jrank = r;
        k->node = RP_NIL;
    }
    R->nranks += nranks;
    int rc = hs__rp_comm_add(R, j, HS_TRACE_COMM_WORLD, nranks, NULL, &J->world);
    if (!rc)
        rc = hs__rp_comm_add(R, j, HS_TRACE_COMM_SELF, 1, NULL, &J->self);
    if (!rc)
        R->comms[J->self].self = 1;
    *out = j;
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Registers communicator id of job (members in communicator order, NULL for
 * the identity); an id seen before is returned as it is. */
int hs__rp_comm_add(rp *R, uint32_t job, uint64_t id, uint32_t n, const int32_t *members,
                    uint32_t *out)
{
    rp_job *J = &R->jobs[job];
    uint64_t *v = NULL, unreg = 0;
    if (id) {   /* id 0: a private communicator (window twins), not in the map */
        v = hs__rp_map_get(&J->comm_ids, id);
        if (!v)
            return HS_ENOMEM;
        if (*v) {
            *out = (uint32_t)(*v - 1);
            return 0;
        }
    } else {
        v = &unreg;
    }
    if (hs__rp_grow((void **)&R->comms, &R->capcomms, (size_t)R->ncomms + 1, sizeof *R->comms))
        return HS_ENOMEM;
    rp_comm *c = &R->comms[R->ncomms];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->job = job;
    c->n = n;
    if (members) {
        c->members = malloc((size_t)n * sizeof *c->members);
        c->rev = malloc((size_t)n * sizeof *c->rev);
        if (!c->members || !c->rev) {
            free(c->members);
            free(c->rev);
            c->members = NULL;
            c->rev = NULL;
            return HS_ENOMEM;
        }
        memcpy(c->members, members, (size_t)n * sizeof *c->members);
        for (uint32_t i = 0; i < n; i++)
            c->rev[i] = (uint64_t)(uint32_t)members[i] << 32 | i;
        qsort(c->rev, n, sizeof *c->rev, cmp_u64);
    }
    *v = R->ncomms + 1;
    *out = R->ncomms++;
    return 0;
}

int32_t hs__rp_comm_rank(const rp *R, uint32_t ci, int32_t jr)
{
    const rp_comm *c = &R->comms[ci];
    if (c->self)
        return 0;
    if (!c->members)
        return jr >= 0 && (uint32_t)jr < c->n ? jr : -1;
    size_t lo = 0, hi = c->n;
    uint64_t want = (uint64_t)(uint32_t)jr;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint64_t k = c->rev[mid] >> 32;
        if (k < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->n && (c->rev[lo] >> 32) == want)
        return (int32_t)(uint32_t)c->rev[lo];
    return -1;
}

int hs__rp_op_new(rp *R, rp_op **out)
{
    if (hs__rp_grow((void **)&R->ops, &R->capops, R->nops + 1, sizeof *R->ops))
        return HS_ENOMEM;
    rp_op *o = &R->ops[R->nops++];
    memset(o, 0, sizeof *o);
    o->slot = RP_NIL;
    *out = o;
    return 0;
}

int hs__rp_aux_new(rp *R, size_t words, uint32_t *off)
{
    if (R->naux + words > UINT32_MAX)
        return HS_ERANGE;
    if (hs__rp_grow((void **)&R->aux, &R->capaux, R->naux + words + 1, sizeof *R->aux))
        return HS_ENOMEM;
    *off = (uint32_t)R->naux;
    memset(R->aux + R->naux, 0, words * sizeof *R->aux);
    R->naux += words;
    return 0;
}

/* ---- per-rank compilation --------------------------------------------------------- */

typedef struct thr {
    rp_op   *ops;
    size_t   n, cap;
    int64_t  prev_end;    /* ns */
    int64_t  gap;         /* ns of computation not yet given to an op */
    uint64_t compute;     /* ps of computation given to ops so far */
    int      ended;
} thr;

typedef struct rqinfo {
    uint32_t slot;
    uint8_t  persistent, recv, active, sendrecv;
    uint32_t th, opi;     /* the op to patch with a receive's resolution */
    uint32_t start_aux;   /* persistent receive: the start entry to patch (RP_NIL) */
} rqinfo;

typedef struct lctx {
    rp *R;
    uint32_t job, grank, jrank;
    const char *path;
    hs_error *err;
    thr *th;
    uint32_t nth;
    rp_map req;           /* request id -> index into ri + 1 */
    rqinfo *ri;
    size_t nri, capri;
    uint32_t *freeslots;
    size_t nfree, capfree;
    uint32_t nslots;
    uint32_t evno;
    int multi;            /* more than one thread: no slot reuse */
    double scale;
} lctx;

static thr *get_thr(lctx *L, uint16_t t)
{
    if (t >= L->nth) {
        thr *n = realloc(L->th, (t + 1u) * sizeof *n);
        if (!n)
            return NULL;
        memset(n + L->nth, 0, (t + 1u - L->nth) * sizeof *n);
        L->th = n;
        L->nth = t + 1u;
    }
    if (L->nth > 1)
        L->multi = 1;
    return &L->th[t];
}

/* ns from `from` to `t` when t is later, else 0; never overflows (the reader
 * bounds times, but this is the arithmetic that must not trust it). */
static int64_t ns_after(int64_t t, int64_t from)
{
    if (t <= from)
        return 0;
    __int128 d = (__int128)t - from;
    return d > INT64_MAX ? INT64_MAX : (int64_t)d;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    __int128 v = (__int128)a + b;
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* The computation before an event, in ps, into *out; consumes the thread's
 * gap.  A thread whose computation adds up to more than --max-compute is
 * refused: it would make the model simulate that much idle time (and the
 * background traffic through it), and no real trace the model can replay
 * holds hours of computation between calls. */
static int take_gap(lctx *L, thr *T, const hs_trace_event *ev, uint64_t *out)
{
    int64_t g = add_sat(T->gap, ns_after(ev->t_start, T->prev_end));
    T->gap = 0;
    if (ev->t_end > T->prev_end)
        T->prev_end = ev->t_end;
    *out = 0;
    if (g <= 0)
        return 0;
    double ps = (double)g * (double)HS_PS_PER_NS * L->scale;
    *out = ps >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)(ps + 0.5);
    T->compute = T->compute + *out < T->compute ? UINT64_MAX : T->compute + *out;
    hs_time max = L->R->prm->max_compute;
    if (max && T->compute > max) {
        char a[32], b[32];
        return hs_error_set(L->err, HS_ERANGE, "%s: rank %u, event %u (%s at %.9g s): the "
                            "recorded computation up to here gives this thread %s to compute "
                            "(gaps between calls x compute scale %g), more than the limit "
                            "--max-compute %s; a trace with such gaps is likely damaged, "
                            "raise the limit to replay it anyway", L->path, L->jrank, L->evno,
                            hs_trace_kind_name(ev->kind), (double)ev->t_start * 1e-9,
                            hs_time_str(T->compute, a, sizeof a), L->scale,
                            hs_time_str(max, b, sizeof b));
    }
    return 0;
}

/* An event that takes no replayed time: keep the computation before it. */
static void skip(thr *T, const hs_trace_event *ev)
{
    T->gap = add_sat(T->gap, ns_after(ev->t_start, T->prev_end));
    if (ev->t_end > T->prev_end)
        T->prev_end = ev->t_end;
}

static int emit(lctx *L, thr *T, const hs_trace_event *ev, unsigned code, rp_op **out)
{
    if (hs__rp_grow((void **)&T->ops, &T->cap, T->n + 1, sizeof *T->ops))
        return hs_error_set(L->err, HS_ENOMEM, "out of memory compiling %s", L->path);
    rp_op *o = &T->ops[T->n++];
    memset(o, 0, sizeof *o);
    int rc = take_gap(L, T, ev, &o->gap);
    if (rc)
        return rc;
    o->code = (uint8_t)code;
    o->kind = ev->kind;
    o->slot = RP_NIL;
    o->ev = L->evno;
    o->peer = o->peer2 = HS_TRACE_RANK_NONE;
    *out = o;
    return 0;
}

static void warn(lctx *L, const hs_trace_event *ev)
{
    L->R->warnings++;
    L->R->warn_kind[ev->kind & 0xff]++;
}

static int bad(lctx *L, const hs_trace_event *ev, const char *why)
{
    return hs_error_set(L->err, HS_EFORMAT, "%s: rank %u, event %u (%s): %s", L->path,
                        L->jrank, L->evno, hs_trace_kind_name(ev->kind), why);
}

/* A new request id gets a slot. */
static int req_new(lctx *L, uint64_t id, uint8_t persistent, uint8_t recv, rqinfo **out)
{
    if (id == 0)
        return 0;
    uint64_t *v = hs__rp_map_get(&L->req, id);
    if (!v)
        return HS_ENOMEM;
    if (*v) {
        /* An id reused while still known: the trace lost its completion;
         * forget the old one (its slot leaks, which is harmless). */
        *v = 0;
    }
    if (hs__rp_grow((void **)&L->ri, &L->capri, L->nri + 1, sizeof *L->ri))
        return HS_ENOMEM;
    rqinfo *q = &L->ri[L->nri];
    memset(q, 0, sizeof *q);
    q->slot = L->nfree && !L->multi ? L->freeslots[--L->nfree] : L->nslots++;
    q->persistent = persistent;
    q->recv = recv;
    q->th = RP_NIL;
    q->start_aux = RP_NIL;
    *v = ++L->nri;
    *out = q;
    return 0;
}

static rqinfo *req_find(lctx *L, uint64_t id)
{
    uint64_t *v = id ? hs__rp_map_find(&L->req, id) : NULL;
    return v && *v ? &L->ri[*v - 1] : NULL;
}

static int req_release(lctx *L, uint64_t id, rqinfo *q, int reuse)
{
    if (reuse && !L->multi) {
        if (hs__rp_grow((void **)&L->freeslots, &L->capfree, L->nfree + 1, sizeof *L->freeslots))
            return HS_ENOMEM;
        L->freeslots[L->nfree++] = q->slot;
    }
    hs__rp_map_del(&L->req, id);
    return 0;
}

/* A nonblocking collective or RMA operation: its request gets a slot
 * (none when the interposer could not track the request). */
static int nb_slot(lctx *L, const hs_trace_event *ev, rp_op *o)
{
    rqinfo *q = NULL;
    int rc = req_new(L, ev->req, 0, 0, &q);
    if (rc)
        return hs_error_set(L->err, rc, "out of memory");
    if (q) {
        o->slot = q->slot;
        q->active = 1;
    }
    return 0;
}

/* A rank of the job, as point-to-point peers must be. */
static int peer_ok(const lctx *L, int32_t r)
{
    return r >= 0 && (uint32_t)r < L->R->jobs[L->job].nranks;
}

/* User tags are >= 0; negative ones are the replay's own (collectives,
 * RMA synchronisation). */
static int tag_ok(int32_t t)
{
    return t >= 0;
}

static int is_wild(const hs_trace_event *ev)
{
    return ev->peer2 == HS_TRACE_ANY_SOURCE || ev->tag2 == HS_TRACE_ANY_TAG;
}

static int own_comm(lctx *L, const hs_trace_event *ev, uint32_t *ci)
{
    uint64_t *v = hs__rp_map_find(&L->R->jobs[L->job].comm_ids, ev->comm);
    if (!v || !*v)
        return bad(L, ev, "unknown communicator");
    *ci = (uint32_t)(*v - 1);
    return 0;
}

/* ---- point-to-point ------------------------------------------------------------------ */

/* The request of a nonblocking or persistent point-to-point call whose op
 * o is the thread's last: a slot for it, remembered with where the op
 * stands (completions resolve wildcards through it, starts read it).
 * *out is NULL when the event has no request id (the interposer could not
 * track it). */
static int p2p_req(lctx *L, thr *T, const hs_trace_event *ev, rp_op *o, int init, int recv,
                   rqinfo **out)
{
    rqinfo *q = NULL;
    int rc = req_new(L, ev->req, (uint8_t)init, (uint8_t)recv, &q);
    if (rc)
        return hs_error_set(L->err, rc, "out of memory");
    if (q) {
        o->slot = q->slot;
        q->active = !init;
        q->th = (uint32_t)(T - L->th);
        q->opi = (uint32_t)(T->n - 1);
    }
    *out = q;
    return 0;
}

/* A call that failed in the real run moved nothing: skip it (1).  Else its
 * communicator (0), or an error. */
static int call_comm(lctx *L, thr *T, const hs_trace_event *ev, uint32_t *ci)
{
    if (ev->flags & HS_TRACE_F_ERROR) {
        skip(T, ev);
        return 1;
    }
    return own_comm(L, ev, ci);
}

static int c_send(lctx *L, thr *T, const hs_trace_event *ev)
{
    uint32_t ci = 0;
    int rc;
    int nb = ev->kind >= HS_TRACE_ISEND && ev->kind <= HS_TRACE_IRSEND;
    int init = ev->kind >= HS_TRACE_SEND_INIT && ev->kind <= HS_TRACE_RSEND_INIT;
    if ((rc = call_comm(L, T, ev, &ci)))
        return rc < 0 ? rc : 0;
    if (!nb && !init && ev->peer == HS_TRACE_PROC_NULL) {
        skip(T, ev);
        return 0;
    }
    if (ev->peer != HS_TRACE_PROC_NULL && !peer_ok(L, ev->peer))
        return bad(L, ev, "destination outside the job");
    if (ev->peer != HS_TRACE_PROC_NULL && !tag_ok(ev->tag))
        return bad(L, ev, "negative tag");
    rp_op *o;
    if ((rc = emit(L, T, ev, nb ? OP_ISEND : init ? OP_PSEND : OP_SEND, &o)))
        return rc;
    o->comm = ci;
    o->peer = ev->peer;
    o->tag = ev->tag;
    o->bytes = ev->bytes;
    int mode = init ? ev->kind - HS_TRACE_SEND_INIT : nb ? ev->kind - HS_TRACE_ISEND
                                                         : ev->kind - HS_TRACE_SEND;
    if (mode == 1)
        o->flags |= F_BUFFERED;
    if (mode == 2)
        o->flags |= F_SYNC;
    if (ev->flags & HS_TRACE_F_MONITORED)
        o->flags |= F_MON;
    if (ev->peer == HS_TRACE_PROC_NULL)
        o->flags |= F_NULLPEER;
    if (nb || init) {
        rqinfo *q;
        if ((rc = p2p_req(L, T, ev, o, init, 0, &q)))
            return rc;
        if (!q)
            o->code = OP_SEND;      /* no request id: treat as blocking */
    }
    return 0;
}

static int c_recv(lctx *L, thr *T, const hs_trace_event *ev)
{
    uint32_t ci = 0;
    int rc;
    if ((rc = call_comm(L, T, ev, &ci)))
        return rc < 0 ? rc : 0;
    rp_op *o;
    switch (ev->kind) {
    case HS_TRACE_RECV:
    case HS_TRACE_MRECV:
        if (ev->peer == HS_TRACE_PROC_NULL || (ev->flags & HS_TRACE_F_CANCELLED)) {
            skip(T, ev);
            return 0;
        }
        if (!peer_ok(L, ev->peer) || !tag_ok(ev->tag))
            return bad(L, ev, "receive without a matched source and tag in the job");
        if ((rc = emit(L, T, ev, OP_RECV, &o)))
            return rc;
        o->comm = ci;
        o->peer = ev->peer;
        o->tag = ev->tag;
        o->bytes = ev->bytes;
        return 0;
    case HS_TRACE_IRECV:
    case HS_TRACE_RECV_INIT:
    case HS_TRACE_IMRECV: {
        int init = ev->kind == HS_TRACE_RECV_INIT;
        if ((rc = emit(L, T, ev, init ? OP_PRECV : OP_IRECV, &o)))
            return rc;
        o->comm = ci;
        if (ev->kind == HS_TRACE_IMRECV) {
            o->peer = ev->peer;
            o->tag = ev->tag;
        } else {
            o->peer = ev->peer2;
            o->tag = ev->tag2;
        }
        o->bytes = ev->bytes2;
        if (o->peer == HS_TRACE_PROC_NULL)
            o->flags |= F_NULLPEER;
        int wild = ev->kind != HS_TRACE_IMRECV && is_wild(ev);
        if (!(o->flags & F_NULLPEER) &&
            ((o->peer != HS_TRACE_ANY_SOURCE && !peer_ok(L, o->peer)) ||
             (o->tag != HS_TRACE_ANY_TAG && !tag_ok(o->tag)) ||
             (ev->kind == HS_TRACE_IMRECV && (!peer_ok(L, o->peer) || !tag_ok(o->tag))))) {
            T->n--;
            return bad(L, ev, "receive from outside the job or with a negative tag");
        }
        if (wild && !init)
            o->flags |= F_UNRESOLVED;
        rqinfo *q;
        if ((rc = p2p_req(L, T, ev, o, init, 1, &q)))
            return rc;
        if (!q) {
            /* no request id: the interposer could not track it */
            o->code = OP_IRECV;
            o->flags |= F_UNRESOLVED;
        }
        return 0;
    }
    }
    return 0;
}

static int c_sendrecv(lctx *L, thr *T, const hs_trace_event *ev)
{
    uint32_t ci = 0;
    int rc;
    if ((rc = call_comm(L, T, ev, &ci)))
        return rc < 0 ? rc : 0;
    int nb = ev->kind == HS_TRACE_ISENDRECV || ev->kind == HS_TRACE_ISENDRECV_REPLACE;
    rp_op *o;
    if ((rc = emit(L, T, ev, nb ? OP_ISENDRECV : OP_SENDRECV, &o)))
        return rc;
    o->comm = ci;
    o->peer = ev->peer;
    o->tag = ev->tag;
    o->bytes = ev->bytes;
    o->peer2 = ev->peer2;
    o->tag2 = ev->tag2;
    o->bytes2 = ev->bytes2;
    if (ev->flags & HS_TRACE_F_MONITORED)
        o->flags |= F_MON;
    if (ev->peer == HS_TRACE_PROC_NULL)
        o->flags |= F_NOSEND;
    if (ev->peer2 == HS_TRACE_PROC_NULL)
        o->flags |= F_NORECV;
    if (!nb && !(o->flags & F_NORECV) && (!peer_ok(L, ev->peer2) || !tag_ok(ev->tag2)))
        return bad(L, ev, "sendrecv without a matched source and tag in the job");
    if (!(o->flags & F_NOSEND) && (!peer_ok(L, ev->peer) || !tag_ok(ev->tag)))
        return bad(L, ev, "sendrecv to a destination outside the job or with a negative tag");
    if (nb && !(o->flags & F_NORECV) && !is_wild(ev) && (!peer_ok(L, ev->peer2) || !tag_ok(ev->tag2)))
        return bad(L, ev, "isendrecv from outside the job");
    if (nb) {
        if (is_wild(ev))
            o->flags |= F_UNRESOLVED;
        rqinfo *q;
        if ((rc = p2p_req(L, T, ev, o, 0, 1, &q)))
            return rc;
        if (!q)
            o->code = OP_SENDRECV;
        else
            q->sendrecv = 1;
    }
    return 0;
}

static int c_probe(lctx *L, thr *T, const hs_trace_event *ev)
{
    int found = ev->kind == HS_TRACE_PROBE || ev->kind == HS_TRACE_MPROBE ||
                (ev->flags & HS_TRACE_F_FOUND);
    if (!found || (ev->flags & HS_TRACE_F_ERROR) || ev->peer == HS_TRACE_PROC_NULL) {
        skip(T, ev);
        return 0;
    }
    uint32_t ci = 0;
    int rc = own_comm(L, ev, &ci);
    if (rc)
        return rc;
    if (!peer_ok(L, ev->peer) || !tag_ok(ev->tag))
        return bad(L, ev, "probe without the found source and tag in the job");
    rp_op *o;
    if ((rc = emit(L, T, ev, OP_PROBE, &o)))
        return rc;
    o->comm = ci;
    o->peer = ev->peer;
    o->tag = ev->tag;
    return 0;
}

static int c_start(lctx *L, thr *T, const hs_trace_event *ev)
{
    int rc;
    rp_op *o;
    if ((rc = emit(L, T, ev, OP_START, &o)))
        return rc;
    uint32_t off;
    if ((rc = hs__rp_aux_new(L->R, 2 * (size_t)ev->nstarts, &off)))
        return hs_error_set(L->err, rc, "out of memory");
    o = &T->ops[T->n - 1];
    o->aux = off;
    uint32_t k = 0;
    for (uint32_t i = 0; i < ev->nstarts; i++) {
        rqinfo *q = req_find(L, ev->starts[i].req);
        if (!q || !q->persistent)
            continue;
        uint64_t *w = &L->R->aux[off + 2 * k];
        uint8_t fl = (ev->starts[i].flags & HS_TRACE_F_MONITORED) ? F_MON : 0;
        const rp_op *init = &L->th[q->th == RP_NIL ? 0 : q->th].ops[q->opi];
        int32_t src = HS_TRACE_RANK_NONE, tag = HS_TRACE_TAG_NONE;
        if (q->recv) {
            if (q->th != RP_NIL && peer_ok(L, init->peer) && tag_ok(init->tag)) {
                src = init->peer;
                tag = init->tag;
            } else {
                fl |= F_UNRESOLVED;
                q->start_aux = off + 2 * k;
            }
        }
        w[0] = (uint64_t)q->slot | (uint64_t)fl << 32;
        w[1] = (uint64_t)(uint32_t)src << 32 | (uint32_t)tag;
        q->active = 1;
        k++;
    }
    o->naux = k;
    return 0;
}

/* Patch location of a persistent receive's init op: remembered at
 * PRECV time in (th, opi); c_recv sets it for all receive kinds. */
static void resolve(lctx *L, rqinfo *q, const hs_trace_compl *c)
{
    if (!q->recv) {
        /* a send the application cancelled successfully never went out */
        if ((c->flags & HS_TRACE_C_CANCELLED) && !q->persistent && q->th != RP_NIL)
            L->th[q->th].ops[q->opi].flags |= F_CANCELLED;
        return;
    }
    if (q->persistent) {
        if (q->start_aux != RP_NIL) {
            uint64_t *w = &L->R->aux[q->start_aux];
            if (c->flags & HS_TRACE_C_CANCELLED) {
                w[0] |= (uint64_t)F_CANCELLED << 32;
            } else if ((c->flags & HS_TRACE_C_STATUS) && peer_ok(L, c->src) && tag_ok(c->tag)) {
                w[0] &= ~((uint64_t)F_UNRESOLVED << 32);
                w[1] = (uint64_t)(uint32_t)c->src << 32 | (uint32_t)c->tag;
            }
            q->start_aux = RP_NIL;
        }
        return;
    }
    if (q->th == RP_NIL)
        return;
    rp_op *o = &L->th[q->th].ops[q->opi];
    if (c->flags & HS_TRACE_C_CANCELLED) {
        o->flags |= F_CANCELLED;
        return;
    }
    if (!(c->flags & HS_TRACE_C_STATUS))
        return;
    if (c->src == HS_TRACE_PROC_NULL) {
        o->flags |= q->sendrecv ? F_NORECV : F_NULLPEER;
        o->flags &= (uint8_t)~F_UNRESOLVED;
        return;
    }
    if (!peer_ok(L, c->src) || !tag_ok(c->tag))
        return;
    if (q->sendrecv) {
        o->peer2 = c->src;
        o->tag2 = c->tag;
        o->bytes2 = c->bytes;
    } else {
        o->peer = c->src;
        o->tag = c->tag;
        o->bytes = c->bytes;
    }
    o->flags &= (uint8_t)~F_UNRESOLVED;
}

static int c_wait(lctx *L, thr *T, const hs_trace_event *ev)
{
    uint32_t known = 0;
    for (uint32_t i = 0; i < ev->ncompl; i++)
        known += req_find(L, ev->compl[i].req) != NULL;
    if (known == 0) {
        skip(T, ev);   /* a test that found nothing, or a wait on null requests */
        return 0;
    }
    int rc;
    rp_op *o;
    if ((rc = emit(L, T, ev, OP_WAIT, &o)))
        return rc;
    uint32_t off;
    if ((rc = hs__rp_aux_new(L->R, known, &off)))
        return hs_error_set(L->err, rc, "out of memory");
    o = &T->ops[T->n - 1];
    o->aux = off;
    uint32_t k = 0;
    for (uint32_t i = 0; i < ev->ncompl; i++) {
        const hs_trace_compl *c = &ev->compl[i];
        rqinfo *q = req_find(L, c->req);
        if (!q)
            continue;
        L->R->aux[off + k++] = q->slot;
        resolve(L, q, c);
        q = req_find(L, c->req);   /* resolve never moves ri, but stay safe */
        if (q->persistent)
            q->active = 0;
        else if ((rc = req_release(L, c->req, q, 1)))
            return hs_error_set(L->err, rc, "out of memory");
    }
    o->naux = k;
    return 0;
}

static int c_request_free(lctx *L, thr *T, const hs_trace_event *ev)
{
    skip(T, ev);
    rqinfo *q = req_find(L, ev->req);
    if (!q)
        return 0;
    /* An active request completes on its own: its slot is never reused.
     * An inactive persistent one is gone. */
    int rc = req_release(L, ev->req, q, q->persistent && !q->active);
    return rc ? hs_error_set(L->err, rc, "out of memory") : 0;
}

/* ---- collectives --------------------------------------------------------------------- */

static uint32_t elem_of(uint64_t bytes)
{
    for (uint32_t e = 8; e > 1; e /= 2)
        if (bytes && bytes % e == 0)
            return e;
    return 1;
}

static int c_coll(lctx *L, thr *T, const hs_trace_event *ev)
{
    int base;
    hs_trace_kind_is_coll(ev->kind, &base);
    int nb = ev->kind != base;
    uint32_t ci = 0;
    int rc = call_comm(L, T, ev, &ci);
    if (rc)
        return rc < 0 ? rc : 0;
    rp *R = L->R;
    const rp_comm *cm = &R->comms[ci];
    if (cm->n == UINT32_MAX) {   /* intercommunicator: not modelled */
        warn(L, ev);
        skip(T, ev);
        return 0;
    }
    int32_t me = hs__rp_comm_rank(R, ci, (int32_t)L->jrank);
    if (me < 0)
        return bad(L, ev, "the rank is not a member of the communicator");
    rp_op *o;
    if ((rc = emit(L, T, ev, OP_COLL, &o)))
        return rc;
    o->comm = ci;
    o->peer2 = me;
    o->peer = 0;
    uint32_t n = cm->n;
    int rooted = base == HS_TRACE_BCAST || base == HS_TRACE_REDUCE || base == HS_TRACE_GATHER ||
                 base == HS_TRACE_GATHERV || base == HS_TRACE_SCATTER || base == HS_TRACE_SCATTERV;
    if (rooted) {
        int32_t root = ev->peer >= 0 ? hs__rp_comm_rank(R, ci, ev->peer) : -1;
        if (root < 0)
            return bad(L, ev, "root not in the communicator");
        o->peer = root;
    }
    int isroot = rooted && o->peer == me;
    uint64_t mx = ev->bytes > ev->bytes2 ? ev->bytes : ev->bytes2;
    const hs_trace_peer *list = NULL;
    uint32_t nlist = 0;
    const hs_trace_peer *list2 = NULL;
    switch (base) {
    case HS_TRACE_BARRIER: o->bytes = 0; break;
    case HS_TRACE_BCAST: case HS_TRACE_REDUCE: case HS_TRACE_ALLREDUCE:
    case HS_TRACE_SCAN: case HS_TRACE_EXSCAN:
        o->bytes = mx;
        break;
    case HS_TRACE_GATHER: o->bytes = isroot ? ev->bytes2 / n : ev->bytes; break;
    case HS_TRACE_SCATTER: o->bytes = isroot ? ev->bytes / n : ev->bytes2; break;
    case HS_TRACE_ALLGATHER: o->bytes = ev->bytes2 / n; break;
    case HS_TRACE_ALLTOALL: o->bytes = mx / n; break;
    case HS_TRACE_REDUCE_SCATTER_BLOCK: o->bytes = ev->bytes2; break;
    case HS_TRACE_GATHERV:
        o->bytes = ev->bytes;
        if (isroot) {
            list = ev->recvfrom;
            nlist = ev->nrecvfrom;
        }
        break;
    case HS_TRACE_SCATTERV:
        o->bytes = ev->bytes2;
        if (isroot) {
            list = ev->sendto;
            nlist = ev->nsendto;
        }
        break;
    case HS_TRACE_ALLGATHERV:
    case HS_TRACE_REDUCE_SCATTER:
        list = ev->recvfrom;
        nlist = ev->nrecvfrom;
        o->bytes = ev->bytes2;
        break;
    case HS_TRACE_ALLTOALLV:
    case HS_TRACE_ALLTOALLW:
        list = ev->sendto;
        nlist = ev->nsendto;
        list2 = ev->recvfrom;
        if (ev->nrecvfrom != nlist)
            list2 = NULL;
        o->bytes = mx / n;
        break;
    default:
        break;
    }
    if (base >= HS_TRACE_NEIGHBOR_ALLGATHER && base <= HS_TRACE_NEIGHBOR_ALLTOALLW) {
        uint32_t off;
        size_t words = 2 + 2 * ((size_t)ev->nsendto + ev->nrecvfrom);
        if ((rc = hs__rp_aux_new(R, words, &off)))
            return hs_error_set(L->err, rc, "out of memory");
        o = &T->ops[T->n - 1];
        uint64_t *w = &R->aux[off];
        w[0] = ev->nsendto;
        w[1] = ev->nrecvfrom;
        size_t k = 2;
        for (uint32_t i = 0; i < ev->nsendto; i++) {
            w[k++] = (uint64_t)(int64_t)ev->sendto[i].rank;
            w[k++] = ev->sendto[i].bytes;
        }
        for (uint32_t i = 0; i < ev->nrecvfrom; i++) {
            w[k++] = (uint64_t)(int64_t)ev->recvfrom[i].rank;
            w[k++] = ev->recvfrom[i].bytes;
        }
        o->aux = off;
        o->naux = (uint32_t)words;
    } else if (list) {
        if (nlist != n) {
            warn(L, ev);   /* the v-list is missing: equal blocks */
            if (base == HS_TRACE_ALLGATHERV)
                o->bytes = ev->bytes2 / n;
        } else {
            uint32_t off;
            size_t words = (size_t)n * (list2 ? 2 : 1);
            if ((rc = hs__rp_aux_new(R, words, &off)))
                return hs_error_set(L->err, rc, "out of memory");
            o = &T->ops[T->n - 1];
            for (uint32_t i = 0; i < n; i++)
                R->aux[off + i] = list[i].bytes;
            if (list2)
                for (uint32_t i = 0; i < n; i++)
                    R->aux[off + n + i] = list2[i].bytes;
            o->aux = off;
            o->naux = (uint32_t)words;
        }
    }
    o->bytes2 = elem_of(o->bytes);
    return nb ? nb_slot(L, ev, o) : 0;
}

/* ---- communicators, windows, RMA ---------------------------------------------------------- */

static int c_comm_create(lctx *L, thr *T, const hs_trace_event *ev)
{
    skip(T, ev);
    rp *R = L->R;
    uint64_t *v = hs__rp_map_find(&R->jobs[L->job].comm_ids, ev->comm);
    if (v && *v) {
        const rp_comm *c = &R->comms[*v - 1];
        uint32_t n = ev->nremote ? UINT32_MAX : ev->nmembers;
        if (c->n != n)
            return bad(L, ev, "members disagree on the communicator's size");
        return 0;
    }
    uint32_t ci = 0;
    int rc = hs__rp_comm_add(R, L->job, ev->comm, ev->nmembers, ev->members, &ci);
    if (rc)
        return hs_error_set(L->err, rc, "out of memory");
    for (uint32_t i = 0; i < ev->nmembers; i++)
        if (ev->members[i] < 0 || (uint32_t)ev->members[i] >= R->jobs[L->job].nranks)
            return bad(L, ev, "member outside the job");
    if (ev->nremote)
        R->comms[ci].n = UINT32_MAX;   /* intercommunicator: p2p only */
    return 0;
}

static int c_win_create(lctx *L, thr *T, const hs_trace_event *ev)
{
    skip(T, ev);
    uint32_t ci = 0, wi = 0;
    int rc = own_comm(L, ev, &ci);
    if (rc)
        return rc;
    if (L->R->comms[ci].n == UINT32_MAX) {
        warn(L, ev);
        return 0;
    }
    rc = hs__rp_win_add(L->R, L->job, ev->win, ci, &wi);
    return rc ? hs_error_set(L->err, rc, "out of memory") : 0;
}

static int own_win(lctx *L, const hs_trace_event *ev, uint32_t *wi)
{
    uint64_t *v = hs__rp_map_find(&L->R->jobs[L->job].win_ids, ev->win);
    if (!v || !*v)
        return bad(L, ev, "unknown window");
    *wi = (uint32_t)(*v - 1);
    return 0;
}

static int c_rma(lctx *L, thr *T, const hs_trace_event *ev)
{
    if (ev->flags & HS_TRACE_F_ERROR) {
        skip(T, ev);
        return 0;
    }
    uint32_t wi = 0;
    int rc = own_win(L, ev, &wi);
    if (rc)
        return rc;
    unsigned code;
    int rkind = -1, nb = 0;
    switch (ev->kind) {
    case HS_TRACE_RPUT: nb = 1; /* fall through */
    case HS_TRACE_PUT: rkind = RMA_PUT; code = OP_RMA; break;
    case HS_TRACE_RGET: nb = 1; /* fall through */
    case HS_TRACE_GET: rkind = RMA_GET; code = OP_RMA; break;
    case HS_TRACE_RACCUMULATE: nb = 1; /* fall through */
    case HS_TRACE_ACCUMULATE: rkind = RMA_ACC; code = OP_RMA; break;
    case HS_TRACE_RGET_ACCUMULATE: nb = 1; /* fall through */
    case HS_TRACE_GET_ACCUMULATE:
    case HS_TRACE_FETCH_AND_OP:
    case HS_TRACE_COMPARE_AND_SWAP: rkind = RMA_GETACC; code = OP_RMA; break;
    case HS_TRACE_WIN_FENCE: code = OP_FENCE; break;
    case HS_TRACE_WIN_LOCK: code = OP_LOCK; break;
    case HS_TRACE_WIN_UNLOCK: code = OP_UNLOCK; break;
    case HS_TRACE_WIN_LOCK_ALL: code = OP_LOCK_ALL; break;
    case HS_TRACE_WIN_UNLOCK_ALL: code = OP_UNLOCK_ALL; break;
    case HS_TRACE_WIN_FLUSH: code = OP_FLUSH; break;
    case HS_TRACE_WIN_FLUSH_ALL: code = OP_FLUSH_ALL; break;
    case HS_TRACE_WIN_FLUSH_LOCAL: code = OP_FLUSH_LOCAL; break;
    case HS_TRACE_WIN_FLUSH_LOCAL_ALL: code = OP_FLUSH_LOCAL_ALL; break;
    case HS_TRACE_WIN_POST: code = OP_POST; break;
    case HS_TRACE_WIN_START: code = OP_WSTART; break;
    case HS_TRACE_WIN_COMPLETE: code = OP_COMPLETE; break;
    case HS_TRACE_WIN_WAIT: code = OP_WWAIT; break;
    case HS_TRACE_WIN_TEST:
        if (!(ev->flags & HS_TRACE_F_FOUND)) {
            skip(T, ev);
            return 0;
        }
        code = OP_WWAIT;
        break;
    default:   /* win_sync: memory model only */
        skip(T, ev);
        return 0;
    }
    rp_op *o;
    if ((rc = emit(L, T, ev, code, &o)))
        return rc;
    o->comm = wi;
    o->peer = ev->peer;
    o->tag = code == OP_RMA ? rkind : ev->tag;
    o->bytes = ev->bytes;
    o->bytes2 = ev->bytes2;
    if (ev->flags & HS_TRACE_F_MONITORED)
        o->flags |= F_MON;
    if (code == OP_RMA || code == OP_LOCK || code == OP_UNLOCK || code == OP_FLUSH ||
        code == OP_FLUSH_LOCAL) {
        if (ev->peer < 0 || (uint32_t)ev->peer >= L->R->jobs[L->job].nranks ||
            hs__rp_comm_rank(L->R, L->R->wins[wi].comm, ev->peer) < 0) {
            T->n--;
            return bad(L, ev, "target rank not in the window's group");
        }
    }
    if (code == OP_POST || code == OP_WSTART) {
        uint32_t off;
        if ((rc = hs__rp_aux_new(L->R, ev->nmembers, &off)))
            return hs_error_set(L->err, rc, "out of memory");
        o = &T->ops[T->n - 1];
        for (uint32_t i = 0; i < ev->nmembers; i++) {
            if (ev->members[i] < 0 || (uint32_t)ev->members[i] >= L->R->jobs[L->job].nranks) {
                T->n--;
                return bad(L, ev, "group member outside the job");
            }
            L->R->aux[off + i] = (uint64_t)ev->members[i];
        }
        o->aux = off;
        o->naux = ev->nmembers;
    }
    return nb ? nb_slot(L, ev, o) : 0;
}

/* ---- one rank ------------------------------------------------------------------------------- */

/* Packets of a message of b bytes, as the network would cut it. */
uint64_t hs__rp_packets(const rp *R, uint64_t b)
{
    uint64_t mtu = R->prm->net.mtu ? R->prm->net.mtu : 1;
    return b / mtu + (b % mtu != 0) + (b == 0);
}

/* The application's traffic for --max-packets: every message it sends (the
 * bytes of point-to-point sends, of the rank's part of a collective, of a
 * one-sided operation) in MTU-sized packets, as if it crossed the network.
 * Persistent sends are counted when they run (hs__rp_leg). */
static void count_packets(lctx *L, const hs_trace_event *ev)
{
    rp *R = L->R;
    int k = ev->kind;
    uint64_t b;
    switch (hs_trace_kind_class(k)) {
    case HS_TRACE_CLASS_P2P:
        if (!((k >= HS_TRACE_SEND && k < HS_TRACE_SEND_INIT) || k == HS_TRACE_SENDRECV ||
              k == HS_TRACE_SENDRECV_REPLACE || k == HS_TRACE_ISENDRECV ||
              k == HS_TRACE_ISENDRECV_REPLACE))
            return;
        b = ev->bytes;
        break;
    case HS_TRACE_CLASS_COLL:
        if (!ev->bytes)
            return;
        b = ev->bytes;
        break;
    case HS_TRACE_CLASS_RMA:
        b = ev->bytes + ev->bytes2 < ev->bytes ? UINT64_MAX : ev->bytes + ev->bytes2;
        if (!b)
            return;
        break;
    default:
        return;
    }
    uint64_t n = hs__rp_packets(R, b);
    R->est_packets = R->est_packets + n < n ? UINT64_MAX : R->est_packets + n;
    R->est_bytes = R->est_bytes + b < b ? UINT64_MAX : R->est_bytes + b;
    if (b > R->est_big) {
        R->est_big = b;
        R->est_big_rank = L->jrank;
        R->est_big_ev = L->evno;
        R->est_big_kind = (uint16_t)k;
    }
}

static int event(lctx *L, const hs_trace_event *ev)
{
    if (L->R->jobs[L->job].app)
        count_packets(L, ev);

    thr *T = get_thr(L, ev->thread);
    if (!T)
        return hs_error_set(L->err, HS_ENOMEM, "out of memory");
    if (T->ended) {
        skip(T, ev);
        return 0;
    }
    int kind = ev->kind, base;
    rp_op *o;
    switch (hs_trace_kind_class(kind)) {
    case HS_TRACE_CLASS_META:
        switch (kind) {
        case HS_TRACE_INIT:
            T->prev_end = ev->t_end;
            T->gap = 0;
            return 0;
        case HS_TRACE_FINALIZE:
        case HS_TRACE_ABORT: {
            int rc = emit(L, T, ev, OP_END, &o);
            T->ended = 1;
            return rc;
        }
        case HS_TRACE_COMM_CREATE: return c_comm_create(L, T, ev);
        case HS_TRACE_WIN_CREATE: return c_win_create(L, T, ev);
        default:
            skip(T, ev);
            return 0;
        }
    case HS_TRACE_CLASS_P2P:
        if (kind <= HS_TRACE_RSEND_INIT)
            return c_send(L, T, ev);
        if (kind == HS_TRACE_SENDRECV || kind == HS_TRACE_SENDRECV_REPLACE ||
            kind == HS_TRACE_ISENDRECV || kind == HS_TRACE_ISENDRECV_REPLACE)
            return c_sendrecv(L, T, ev);
        if (kind >= HS_TRACE_PROBE && kind <= HS_TRACE_IMPROBE)
            return c_probe(L, T, ev);
        if (kind == HS_TRACE_START || kind == HS_TRACE_STARTALL)
            return c_start(L, T, ev);
        return c_recv(L, T, ev);
    case HS_TRACE_CLASS_COMPLETION:
        if (kind == HS_TRACE_REQUEST_FREE)
            return c_request_free(L, T, ev);
        if (kind == HS_TRACE_CANCEL) {
            skip(T, ev);
            return 0;
        }
        return c_wait(L, T, ev);
    case HS_TRACE_CLASS_COLL:
        if (hs_trace_kind_is_coll(kind, &base))
            return c_coll(L, T, ev);
        break;
    case HS_TRACE_CLASS_RMA:
        return c_rma(L, T, ev);
    default:
        break;
    }
    warn(L, ev);
    skip(T, ev);
    return 0;
}

static void lctx_free(lctx *L)
{
    for (uint32_t t = 0; t < L->nth; t++)
        free(L->th[t].ops);
    free(L->th);
    free(L->ri);
    free(L->freeslots);
    hs__rp_map_free(&L->req);
}

/* The factor on the recorded computation of each rank of the application.
 * Given (--compute-scale X >= 0): X everywhere.  Automatic: a rank recorded
 * on a host with more ranks than cores had its computation stretched by
 * waiting for a core, so it is scaled by cores / ranks there; ranks on
 * hosts with enough cores, or whose host's cores the trace does not record,
 * keep 1.  One rule for simulate, run, demo and whatif; the note says what
 * was done. */
static int compute_scale(rp *R, const hs_trace_manifest *m, hs_error *err)
{
    double given = R->prm->compute_scale;
    R->app_scale = malloc(((size_t)m->nranks + 1) * sizeof *R->app_scale);
    uint32_t *on = calloc((size_t)m->nhosts + 1, sizeof *on);
    if (!R->app_scale || !on) {
        free(on);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    int32_t *host = NULL;
    if (!(given >= 0) && m->nhosts) {
        host = malloc((size_t)m->nranks * sizeof *host);
        if (!host) {
            free(on);
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        for (uint32_t r = 0; r < m->nranks; r++)
            if ((host[r] = hs_trace_manifest_host_of(m, r)) >= 0)
                on[host[r]]++;
    }
    uint32_t worst = UINT32_MAX, scaled = 0;
    R->scale_min = INFINITY;
    R->scale_max = -INFINITY;
    for (uint32_t r = 0; r < m->nranks; r++) {
        double s = given >= 0 ? given : 1.0;
        if (host && host[r] >= 0 && on[host[r]] > m->host_cores[host[r]]) {
            s = (double)m->host_cores[host[r]] / on[host[r]];
            scaled++;
            if (worst == UINT32_MAX || s < (double)m->host_cores[worst] / on[worst])
                worst = (uint32_t)host[r];
        }
        R->app_scale[r] = s;
        R->scale_min = s < R->scale_min ? s : R->scale_min;
        R->scale_max = s > R->scale_max ? s : R->scale_max;
    }
    R->scale_note[0] = 0;
    if (scaled)
        snprintf(R->scale_note, sizeof R->scale_note,
                 "%u of %u ranks were recorded on hosts with fewer cores than ranks (%u ranks "
                 "on %u cores on %.64s): their computation is scaled by cores/ranks (%.4g "
                 "there) to undo the time-sharing; --compute-scale 1 keeps it as recorded\n",
                 scaled, m->nranks, on[worst], m->host_cores[worst], m->host_name[worst],
                 (double)m->host_cores[worst] / on[worst]);
    free(host);
    free(on);
    return 0;
}

static int load_rank(rp *R, hs_trace *tr, uint32_t job, uint32_t jr, const char *path,
                     hs_error *err)
{
    lctx L;
    memset(&L, 0, sizeof L);
    L.R = R;
    L.job = job;
    L.jrank = jr;
    L.grank = R->jobs[job].rank0 + jr;
    L.path = path;
    L.err = err;
    L.scale = R->jobs[job].app && R->app_scale ? R->app_scale[jr]
            : R->prm->compute_scale >= 0 ? R->prm->compute_scale : 1.0;
    int rc = hs__rp_map_init(&L.req, 64);
    if (rc)
        return hs_error_set(err, rc, "out of memory");
    hs_trace_cursor *cur = NULL;
    hs_error oerr;
    hs_error_clear(&oerr);
    if ((rc = hs_trace_cursor_open(tr, jr, &cur, &oerr))) {
        if (rc != HS_ENOENT) {
            if (err)
                *err = oerr;
            lctx_free(&L);
            return rc;
        }
        /* no file at all (the rank never started tracing): an empty rank,
         * named in the report */
        rc = 0;
        if (R->jobs[job].app) {
            if (R->incomplete < 4) {
                R->inc_rank[R->incomplete] = jr;
                snprintf(R->inc_note[R->incomplete], sizeof R->inc_note[0], "%s", oerr.msg);
            }
            R->incomplete++;
        }
    }
    hs_trace_event ev;
    while (cur && (rc = hs_trace_next(cur, &ev, err)) == 1) {
        if ((rc = event(&L, &ev)))
            break;
        L.evno++;
    }
    hs_trace_rank_info info;
    memset(&info, 0, sizeof info);
    info.complete = 1;
    info.end_reason = HS_TRACE_END_FINALIZE;
    if (cur) {
        hs_trace_cursor_info(cur, &info);
        hs_trace_cursor_close(cur);
    }
    if (rc == 0 && cur && R->jobs[job].app &&
        (!info.complete || info.end_reason != HS_TRACE_END_FINALIZE)) {
        if (R->incomplete < 4) {
            R->inc_rank[R->incomplete] = jr;
            if (!info.complete)
                snprintf(R->inc_note[R->incomplete], sizeof R->inc_note[0], "%s", info.note);
            else
                snprintf(R->inc_note[R->incomplete], sizeof R->inc_note[0],
                         "ended by %s (code %d) after %llu events", hs_trace_end_name(info.end_reason),
                         info.end_code, (unsigned long long)info.events);
        }
        R->incomplete++;
    }
    if (rc < 0) {
        lctx_free(&L);
        return rc;
    }
    if (L.nth == 0 && !get_thr(&L, 0)) {
        lctx_free(&L);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    /* Every thread ends with OP_END (a killed rank's stream just stops). */
    uint32_t nth = L.nth;
    if (hs__rp_grow((void **)&R->actors, &R->capactors, (size_t)R->nactors + nth,
                    sizeof *R->actors)) {
        lctx_free(&L);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    rp_rank *K = &R->ranks[L.grank];
    K->actor0 = R->nactors;
    K->nactors = nth;
    K->req0 = (uint32_t)R->nreq;
    K->nreq = L.nslots + 2 * nth;
    R->nreq += K->nreq;
    for (uint32_t t = 0; t < nth; t++) {
        thr *T = &L.th[t];
        if (!T->ended) {
            hs_trace_event end;
            hs_trace_event_init(&end, HS_TRACE_FINALIZE);
            end.t_start = end.t_end = T->prev_end;
            rp_op *o;
            if ((rc = emit(&L, T, &end, OP_END, &o)))
                break;
        }
        rp_actor *A = &R->actors[R->nactors];
        memset(A, 0, sizeof *A);
        A->rank = L.grank;
        A->thread = (uint8_t)(t < 255 ? t : 255);
        A->app = (uint8_t)R->jobs[job].app;
        A->scratch = L.nslots + 2 * t;
        A->next = RP_NIL;
        A->op0 = (uint32_t)R->nops;
        A->nops = (uint32_t)T->n;
        A->pc = A->op0;
        if (hs__rp_grow((void **)&R->ops, &R->capops, R->nops + T->n, sizeof *R->ops)) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            break;
        }
        memcpy(R->ops + R->nops, T->ops, T->n * sizeof *T->ops);
        R->nops += T->n;
        R->nactors++;
    }
    lctx_free(&L);
    return rc;
}

int hs__rp_load_trace(rp *R, const char *path, int app, hs_error *err)
{
    hs_trace *tr;
    int rc = hs_trace_open(path, &tr, err);
    if (rc)
        return rc;
    const hs_trace_manifest *m = hs_trace_get_manifest(tr);
    char name[160];
    snprintf(name, sizeof name, "trace:%s", path);
    uint32_t job;
    if ((rc = hs__rp_job_new(R, m->nranks, app, name, &job))) {
        hs_trace_close(tr);
        return hs_error_set(err, rc, "out of memory");
    }
    rp_job *J = &R->jobs[job];
    J->sample_rate = m->sample_rate;
    J->sample_seed = m->sample_seed;
    J->actor0 = R->nactors;
    if (app && (rc = compute_scale(R, m, err))) {
        hs_trace_close(tr);
        return rc;
    }
    for (uint32_t r = 0; r < m->nranks && !rc; r++)
        rc = load_rank(R, tr, job, r, path, err);
    if (app) {
        free(R->app_scale);
        R->app_scale = NULL;
    }
    J = &R->jobs[job];
    J->nactors = R->nactors - J->actor0;
    uint64_t max = R->prm->max_packets;
    if (!rc && app && max && R->est_packets > max)
        rc = hs_error_set(err, HS_ERANGE, "%s: the application sends %llu bytes, %llu packets "
                          "of %u bytes counting every message as if it crossed the network "
                          "(the largest message: %llu bytes, rank %u, event %u, %s), more than "
                          "the limit --max-packets %llu; such a trace is likely damaged (a "
                          "size read wrong) and would simulate for hours: raise the limit "
                          "(0: none) to replay it anyway", path,
                          (unsigned long long)R->est_bytes, (unsigned long long)R->est_packets,
                          R->prm->net.mtu, (unsigned long long)R->est_big, R->est_big_rank,
                          R->est_big_ev, hs_trace_kind_name(R->est_big_kind),
                          (unsigned long long)max);
    if (!rc && app) {
        /* keep the manifest: app.json reports the command and the nodes */
        hs_trace_manifest *dst = &R->man;
        memset(dst, 0, sizeof *dst);
        dst->nranks = m->nranks;
        dst->nnodes = m->nnodes;
        dst->command = strdup(m->command ? m->command : "");
        dst->node_mode = strdup(m->node_mode ? m->node_mode : "");
        dst->rank_node = malloc((size_t)m->nranks * sizeof *dst->rank_node);
        if (!dst->command || !dst->node_mode || !dst->rank_node)
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        else
            memcpy(dst->rank_node, m->rank_node, (size_t)m->nranks * sizeof *dst->rank_node);
        R->have_man = 1;
    }
    hs_trace_close(tr);
    return rc;
}
