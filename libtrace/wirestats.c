/* libtrace/wirestats.c — `hopscope trace stats --wire`: the MPI level
 * against the wire level of one trace.
 *
 * Each wire operation is attributed to the MPI call in progress on its
 * thread when it was posted: the rank file's event of the same writer thread
 * whose [start, end] contains the post time (both files share clock and
 * thread indices).  Operations posted outside any recorded call (inside
 * MPI_Init before recording began, or on a thread the MPI level never saw)
 * are counted as "outside".
 *
 * Collectives: the k-th collective a rank calls on a communicator is the
 * same instance on every member (MPI orders them).  For each member the
 * transfers it initiated during its call (tag sends, puts, active messages,
 * atomics) are turned into destinations in communicator ranks and classed
 * (all to my successor: ring; all to me XOR 2^k: recursive doubling; all at
 * power-of-two distances: dissemination/Bruck, or binomial tree when some
 * members send nothing; to every other member: pairwise/linear); the classes
 * of the members name the instance's algorithm.  Steps are the most
 * transfers one member initiated in the call.
 *
 * Memory: one rank's MPI events and wire transfers at a time, plus one small
 * record per collective instance and per communicating pair. */
#include "format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct mev {        /* an MPI event of one thread */
    int64_t t0, t1;
    uint16_t kind;          /* blocking collective kind, or the kind */
    uint64_t comm, seq, bytes;
} mev;

typedef struct wop {        /* a wire transfer initiated by this rank */
    int64_t t;
    int32_t peer;           /* world rank, or -1 */
    uint16_t op, thread;
    uint32_t flags;
    uint64_t bytes;
} wop;

typedef struct sendrec {    /* a tag send, or the protocol flags of a completion */
    uint64_t id, bytes;
    uint32_t flags;
} sendrec;

static int cmp_sendrec(const void *a, const void *b)
{
    const sendrec *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Joins a rank's tag sends with the protocol their completions report. */
static void count_protocols(hs_trace_wire_stats *ws, sendrec *snd, size_t ns, sendrec *dn,
                            size_t nd)
{
    if (ns)
        qsort(snd, ns, sizeof *snd, cmp_sendrec);
    if (nd)
        qsort(dn, nd, sizeof *dn, cmp_sendrec);
    size_t j = 0;
    for (size_t i = 0; i < ns; i++) {
        uint32_t f = snd[i].flags & HS_TRACE_F_WIRE_IMM ? HS_TRACE_F_WIRE_EAGER : 0;
        while (j < nd && dn[j].id < snd[i].id)
            j++;
        if (!f && j < nd && dn[j].id == snd[i].id)
            f = dn[j].flags;
        uint64_t b = snd[i].bytes;
        if (f & HS_TRACE_F_WIRE_RNDV) {
            if (!ws->rndv_ops || b < ws->rndv_min)
                ws->rndv_min = b;
            if (b > ws->rndv_max)
                ws->rndv_max = b;
            ws->rndv_ops++;
            ws->rndv_bytes += b;
            ws->rndv_put += (f & HS_TRACE_F_WIRE_RPUT) != 0;
            ws->rndv_get += (f & HS_TRACE_F_WIRE_RGET) != 0;
        } else if (f & HS_TRACE_F_WIRE_EAGER) {
            if (!ws->eager_ops || b < ws->eager_min)
                ws->eager_min = b;
            if (b > ws->eager_max)
                ws->eager_max = b;
            ws->eager_ops++;
            ws->eager_bytes += b;
        } else {
            ws->proto_unknown++;
        }
    }
}

typedef struct prun {       /* a run of ucp_worker_progress calls */
    int64_t t;              /* its end */
    uint16_t thread;
    uint64_t ns;
} prun;

typedef struct tarr {
    uint16_t thread;
    mev *ev;
    size_t n, cap;
} tarr;

#define C_NCLS_MAX 8
typedef struct inst {       /* one collective instance */
    uint64_t comm, seq;
    uint16_t kind;
    uint32_t size, members;
    uint64_t bytes, mpi_bytes, wire_ops, wire_bytes;
    uint32_t steps;
    uint32_t cls[C_NCLS_MAX]; /* members per local class */
    int used;
} inst;

enum { C_NONE, C_RING, C_XOR, C_XOR_VAR, C_POW2, C_ALL, C_OTHER, C_TREE_RING, C_NCLS };
_Static_assert(C_NCLS <= C_NCLS_MAX, "inst.cls too small");

typedef struct commrec {
    uint64_t id;
    int32_t *members;       /* world rank of comm rank i */
    uint32_t n;
    uint64_t seq;           /* collectives called on it by this rank */
} commrec;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return HS_ENOMEM;
    *p = np;
    *cap = nc;
    return 0;
}

/* ---- maps -------------------------------------------------------------- */

typedef struct ipair {
    hs_trace_wire_pair p;
    int used;
} ipair;

typedef struct wstate {
    uint32_t nranks;
    ipair *pairs;                /* open addressing on (src, dst) */
    size_t pcap, pn;
    inst *insts;
    size_t icap, in;
} wstate;

static hs_trace_wire_pair *pair_at(wstate *s, uint32_t src, uint32_t dst)
{
    if ((s->pn + 1) * 2 > s->pcap) {
        size_t nc = s->pcap ? s->pcap * 2 : 256;
        ipair *np = calloc(nc, sizeof *np);
        if (!np)
            return NULL;
        for (size_t i = 0; i < s->pcap; i++) {
            ipair *p = &s->pairs[i];
            if (!p->used)
                continue;
            size_t j = (size_t)hs__mix64((uint64_t)p->p.src << 32 | p->p.dst) & (nc - 1);
            while (np[j].used)
                j = (j + 1) & (nc - 1);
            np[j] = *p;
        }
        free(s->pairs);
        s->pairs = np;
        s->pcap = nc;
    }
    size_t j = (size_t)hs__mix64((uint64_t)src << 32 | dst) & (s->pcap - 1);
    while (s->pairs[j].used && (s->pairs[j].p.src != src || s->pairs[j].p.dst != dst))
        j = (j + 1) & (s->pcap - 1);
    if (!s->pairs[j].used) {
        s->pairs[j] = (ipair){ .p = { .src = src, .dst = dst }, .used = 1 };
        s->pn++;
    }
    return &s->pairs[j].p;
}

static inst *inst_at(wstate *s, uint64_t comm, uint64_t seq)
{
    if ((s->in + 1) * 2 > s->icap) {
        size_t nc = s->icap ? s->icap * 2 : 256;
        inst *np = calloc(nc, sizeof *np);
        if (!np)
            return NULL;
        for (size_t i = 0; i < s->icap; i++) {
            if (!s->insts[i].used)
                continue;
            size_t j = (size_t)hs__mix64(s->insts[i].comm ^ hs__mix64(s->insts[i].seq)) & (nc - 1);
            while (np[j].used)
                j = (j + 1) & (nc - 1);
            np[j] = s->insts[i];
        }
        free(s->insts);
        s->insts = np;
        s->icap = nc;
    }
    size_t j = (size_t)hs__mix64(comm ^ hs__mix64(seq)) & (s->icap - 1);
    while (s->insts[j].used && (s->insts[j].comm != comm || s->insts[j].seq != seq))
        j = (j + 1) & (s->icap - 1);
    if (!s->insts[j].used) {
        s->insts[j] = (inst){ .comm = comm, .seq = seq, .used = 1 };
        s->in++;
    }
    return &s->insts[j];
}

/* ---- local classification ------------------------------------------------- */

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* dst: destinations in communicator ranks, in post order; sz their sizes. */
static int classify(const int32_t *dst, const uint64_t *sz, size_t n, int32_t me, uint32_t P)
{
    if (n == 0)
        return C_NONE;
    int ring = 1, xr = 1, p2 = 1, same = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t off = (uint32_t)(((int64_t)dst[i] - me + P) % P);
        ring &= off == 1;
        xr &= is_pow2((uint64_t)(dst[i] ^ me));
        p2 &= is_pow2(off);
        same &= sz[i] == sz[0];
    }
    if (ring)
        return C_RING;
    /* a tree first (power-of-two distances), then P - 2 or more steps
     * around the ring: MPICH's scatter + ring allgather */
    size_t tail = 0;
    while (tail < n && (uint32_t)(((int64_t)dst[n - 1 - tail] - me + P) % P) == 1)
        tail++;
    if (tail + 2 >= P && tail < n) {
        int tree = 1;
        for (size_t i = 0; i < n - tail; i++)
            tree &= is_pow2((uint64_t)(((int64_t)dst[i] - me + P) % P)) ||
                    is_pow2((uint64_t)(dst[i] ^ me));
        if (tree)
            return C_TREE_RING;
    }
    if (xr)
        return same ? C_XOR : C_XOR_VAR;
    if (p2)
        return C_POW2;
    /* every other member, each once */
    if (n == P - 1) {
        uint8_t *seen = calloc(P, 1);
        int all = seen != NULL;
        for (size_t i = 0; all && i < n; i++) {
            if (dst[i] == me || seen[dst[i]])
                all = 0;
            else
                seen[dst[i]] = 1;
        }
        free(seen);
        if (all)
            return C_ALL;
    }
    return C_OTHER;
}

static const char *algorithm(const inst *x)
{
    uint32_t m = x->members, none = x->cls[C_NONE];
    if (m == 0 || x->wire_ops == 0)
        return "no transfers seen";
    if (x->size == 2)
        return "direct";
    if (x->cls[C_RING] == m)
        return "ring";
    if (x->cls[C_TREE_RING] && x->cls[C_TREE_RING] + x->cls[C_RING] == m)
        return "binomial scatter + ring allgather";
    /* Members that send nothing: the leaves of a tree. */
    if (x->cls[C_POW2] + x->cls[C_XOR] + x->cls[C_RING] + x->cls[C_XOR_VAR] + none == m && none)
        return "binomial tree";
    if (x->cls[C_XOR] + x->cls[C_XOR_VAR] == m)
        return x->cls[C_XOR_VAR] ? "recursive halving+doubling" : "recursive doubling";
    if (x->cls[C_POW2] + x->cls[C_XOR] + x->cls[C_RING] + x->cls[C_XOR_VAR] == m)
        return "dissemination (Bruck)";
    if (x->cls[C_ALL] == m)
        return "pairwise exchange";
    if (x->cls[C_ALL] == 1 && none == m - 1)
        return "linear (flat)";
    if (x->cls[C_ALL] + none == m)
        return "linear";
    return "mixed";
}

/* ---- per rank ------------------------------------------------------------- */

static int is_data_out(int op)
{
    return op == HS_TRACE_WOP_TAG_SEND || op == HS_TRACE_WOP_TAG_SSEND ||
           op == HS_TRACE_WOP_PUT || op == HS_TRACE_WOP_ATOMIC ||
           op == HS_TRACE_WOP_ATOMIC_FETCH || op == HS_TRACE_WOP_AM_SEND ||
           op == HS_TRACE_WOP_STREAM_SEND;
}

static int cmp_wop(const void *a, const void *b)
{
    const wop *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

static tarr *thread_of(tarr **ta, size_t *nt, size_t *cap, uint16_t th)
{
    for (size_t i = 0; i < *nt; i++)
        if ((*ta)[i].thread == th)
            return &(*ta)[i];
    if (grow((void **)ta, cap, *nt + 1, sizeof **ta))
        return NULL;
    (*ta)[*nt] = (tarr){ .thread = th };
    return &(*ta)[(*nt)++];
}

static int do_rank(hs_trace *t, uint32_t r, wstate *st, hs_trace_wire_stats *ws, hs_error *err)
{
    hs_trace_cursor *c;
    int rc = hs_trace_cursor_open(t, r, &c, err);
    if (rc)
        return rc;
    tarr *ta = NULL;
    size_t nt = 0, tcap = 0;
    commrec *cm = NULL;
    size_t ncm = 0, cmcap = 0;
    wop *ops = NULL;
    size_t nops = 0, opcap = 0;
    prun *pr = NULL;
    size_t npr = 0, prcap = 0;
    sendrec *snd = NULL, *dn = NULL;
    size_t nsnd = 0, sndcap = 0, ndn = 0, dncap = 0;
    int32_t *dst = NULL;
    uint64_t *dsz = NULL;
    size_t dcap = 0, dcap2 = 0;
    hs_trace_event ev;
    /* world is comm rank = world rank */
    if ((rc = grow((void **)&cm, &cmcap, 1, sizeof *cm)))
        goto oom;
    cm[ncm++] = (commrec){ .id = HS_TRACE_COMM_WORLD, .n = st->nranks };
    while ((rc = hs_trace_next(c, &ev, err)) == 1) {
        if (ev.kind == HS_TRACE_COMM_CREATE && ev.nremote == 0) {
            if ((rc = grow((void **)&cm, &cmcap, ncm + 1, sizeof *cm)))
                goto oom;
            commrec *x = &cm[ncm++];
            *x = (commrec){ .id = ev.comm, .n = ev.nmembers };
            x->members = malloc(ev.nmembers * sizeof *x->members);
            if (!x->members) {
                rc = HS_ENOMEM;
                goto oom;
            }
            memcpy(x->members, ev.members, ev.nmembers * sizeof *x->members);
            continue;
        }
        int base;
        uint16_t kind = ev.kind;
        uint64_t seq = 0;
        if (hs_trace_kind_is_coll(ev.kind, &base)) {
            for (size_t i = 0; i < ncm; i++)
                if (cm[i].id == ev.comm) {
                    seq = ++cm[i].seq;
                    break;
                }
            if (ev.kind != base)
                seq = 0;   /* nonblocking: its transfers run in later calls */
        }
        tarr *th = thread_of(&ta, &nt, &tcap, ev.thread);
        if (!th || grow((void **)&th->ev, &th->cap, th->n + 1, sizeof *th->ev)) {
            rc = HS_ENOMEM;
            goto oom;
        }
        th->ev[th->n++] = (mev){ .t0 = ev.t_start, .t1 = ev.t_end, .kind = kind, .comm = ev.comm,
                                 .seq = seq, .bytes = ev.bytes };
    }
    hs_trace_cursor_close(c);
    c = NULL;
    if (rc < 0)
        goto out;

    rc = hs_trace_wire_open(t, r, &c, err);
    if (rc == HS_ENOENT) {
        rc = 0;
        goto out;
    }
    if (rc)
        goto out;
    while ((rc = hs_trace_next(c, &ev, err)) == 1) {
        if (ev.kind == HS_TRACE_WIRE_DONE) {
            ws->completions++;
            uint32_t pf = ev.flags & (HS_TRACE_F_WIRE_EAGER | HS_TRACE_F_WIRE_RNDV |
                                      HS_TRACE_F_WIRE_RPUT | HS_TRACE_F_WIRE_RGET);
            if (pf) {
                if ((rc = grow((void **)&dn, &dncap, ndn + 1, sizeof *dn)))
                    goto oom;
                dn[ndn++] = (sendrec){ .id = ev.req, .flags = pf };
            }
            continue;
        }
        if (ev.kind == HS_TRACE_WIRE_PROGRESS) {
            ws->progress_calls += ev.bytes;
            ws->progress_useful += ev.aux;
            ws->progress_ns += ev.bytes2;
            if ((rc = grow((void **)&pr, &prcap, npr + 1, sizeof *pr)))
                goto oom;
            pr[npr++] = (prun){ .t = ev.t_end, .thread = ev.thread, .ns = ev.bytes2 };
            continue;
        }
        if (ev.kind != HS_TRACE_WIRE_OP)
            continue;
        int op = ev.tag2;
        ws->ops[op]++;
        ws->bytes[op] += ev.bytes;
        if ((op == HS_TRACE_WOP_TAG_SEND || op == HS_TRACE_WOP_TAG_SSEND) &&
            ev.peer != (int32_t)r) {   /* to itself: a copy, no protocol */
            if ((rc = grow((void **)&snd, &sndcap, nsnd + 1, sizeof *snd)))
                goto oom;
            snd[nsnd++] = (sendrec){ .id = ev.req, .bytes = ev.bytes, .flags = ev.flags };
        }
        if (!(ev.flags & (HS_TRACE_F_WIRE_IMM | HS_TRACE_F_WIRE_NBI)))
            ws->with_request++;
        int out = is_data_out(op), in = op == HS_TRACE_WOP_GET || op == HS_TRACE_WOP_ATOMIC_FETCH;
        if (!out && !in)
            continue;
        if (ev.peer < 0) {
            ws->unknown_peer_ops++;
            continue;
        }
        if (ev.flags & HS_TRACE_F_WIRE_INTRA)
            ws->intra_bytes += ev.bytes;
        else
            ws->inter_bytes += ev.bytes;
        /* Data src -> dst: a get's data comes from the peer. */
        uint32_t s0 = out ? r : (uint32_t)ev.peer, d0 = out ? (uint32_t)ev.peer : r;
        hs_trace_wire_pair *p = pair_at(st, s0, d0);
        if (!p) {
            rc = HS_ENOMEM;
            goto oom;
        }
        p->intra = (ev.flags & HS_TRACE_F_WIRE_INTRA) != 0;
        p->wire_ops++;
        p->wire_bytes += ev.bytes;
        if (op == HS_TRACE_WOP_ATOMIC_FETCH && (p = pair_at(st, (uint32_t)ev.peer, r))) {
            p->wire_ops++;
            p->wire_bytes += ev.bytes;
        }
        if (out) {
            if ((rc = grow((void **)&ops, &opcap, nops + 1, sizeof *ops)))
                goto oom;
            ops[nops++] = (wop){ .t = ev.t_start, .peer = ev.peer, .op = (uint16_t)op,
                                 .thread = ev.thread, .flags = ev.flags, .bytes = ev.bytes };
        }
    }
    if (rc < 0)
        goto out;
    rc = 0;
    count_protocols(ws, snd, nsnd, dn, ndn);

    /* Attribute each initiated transfer to the call in progress. */
    if (nops)
        qsort(ops, nops, sizeof *ops, cmp_wop);
    size_t k = 0;
    while (k < nops) {
        size_t k1 = k;
        while (k1 < nops && ops[k1].thread == ops[k].thread)
            k1++;
        tarr *th = NULL;
        for (size_t i = 0; i < nt; i++)
            if (ta[i].thread == ops[k].thread)
                th = &ta[i];
        size_t e = 0;
        while (k < k1) {
            /* the MPI events of a thread do not overlap and are in order */
            while (th && e < th->n && th->ev[e].t1 < ops[k].t)
                e++;
            if (!th || e >= th->n || th->ev[e].t0 > ops[k].t) {
                ws->outside_bytes += ops[k].bytes;
                k++;
                continue;
            }
            mev *m = &th->ev[e];
            size_t k2 = k;
            while (k2 < k1 && ops[k2].t <= m->t1)
                k2++;
            uint64_t b = 0;
            for (size_t i = k; i < k2; i++)
                b += ops[i].bytes;
            hs_trace_class cl = hs_trace_kind_class(m->kind);
            if (cl == HS_TRACE_CLASS_COLL)
                ws->coll_bytes += b;
            else if (cl == HS_TRACE_CLASS_RMA)
                ws->rma_bytes += b;
            else if (cl == HS_TRACE_CLASS_P2P || cl == HS_TRACE_CLASS_COMPLETION)
                ws->p2p_bytes += b;
            else
                ws->other_bytes += b;
            k = k2;
        }
    }

    /* Progress runs: by the MPI call in progress on their thread when the
     * run ended (a thread's MPI events do not overlap and are in order). */
    for (size_t i = 0; i < npr; i++) {
        tarr *th = NULL;
        for (size_t j = 0; j < nt && !th; j++)
            if (ta[j].thread == pr[i].thread)
                th = &ta[j];
        int where = HS_TRACE_WIRE_IN_OUTSIDE;
        if (th) {
            size_t lo = 0, hi = th->n;   /* first event ending at or after t */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (th->ev[mid].t1 < pr[i].t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < th->n && th->ev[lo].t0 <= pr[i].t) {
                hs_trace_class cl = hs_trace_kind_class(th->ev[lo].kind);
                where = cl == HS_TRACE_CLASS_COLL ? HS_TRACE_WIRE_IN_COLL
                      : cl == HS_TRACE_CLASS_RMA ? HS_TRACE_WIRE_IN_RMA
                      : cl == HS_TRACE_CLASS_P2P || cl == HS_TRACE_CLASS_COMPLETION
                          ? HS_TRACE_WIRE_IN_P2P : HS_TRACE_WIRE_IN_OTHER;
            }
        }
        ws->progress_ns_in[where] += pr[i].ns;
    }

    /* Collective instances: each blocking collective call of this rank. */
    for (size_t ti = 0; ti < nt; ti++) {
        tarr *th = &ta[ti];
        for (size_t e = 0; e < th->n; e++) {
            mev *m = &th->ev[e];
            if (!m->seq)
                continue;
            commrec *x = NULL;
            for (size_t i = 0; i < ncm; i++)
                if (cm[i].id == m->comm)
                    x = &cm[i];
            if (!x)
                continue;   /* an intercommunicator: not classified */
            /* first op of this thread at or after t0 */
            size_t lo = 0, hi = nops;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (ops[mid].thread < th->thread ||
                    (ops[mid].thread == th->thread && ops[mid].t < m->t0))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            size_t k2 = lo;
            while (k2 < nops && ops[k2].thread == th->thread && ops[k2].t <= m->t1)
                k2++;
            if (grow((void **)&dst, &dcap, k2 - lo + 1, sizeof *dst) ||
                grow((void **)&dsz, &dcap2, k2 - lo + 1, sizeof *dsz)) {
                rc = HS_ENOMEM;
                goto oom;
            }
            int32_t me = -1;
            for (uint32_t i = 0; i < x->n && me < 0; i++)
                if ((x->members ? x->members[i] : (int32_t)i) == (int32_t)r)
                    me = (int32_t)i;
            size_t n = 0;
            uint64_t wb = 0;
            for (size_t i = lo; i < k2; i++) {
                wb += ops[i].bytes;
                int32_t cr = -1;
                for (uint32_t j = 0; j < x->n && cr < 0; j++)
                    if ((x->members ? x->members[j] : (int32_t)j) == ops[i].peer)
                        cr = (int32_t)j;
                if (cr >= 0 && cr != me) {
                    dst[n] = cr;
                    dsz[n++] = ops[i].bytes;
                }
            }
            inst *in = inst_at(st, m->comm, m->seq);
            if (!in) {
                rc = HS_ENOMEM;
                goto oom;
            }
            in->kind = m->kind;
            in->size = x->n;
            in->members++;
            in->mpi_bytes += m->bytes;
            if (m->bytes > in->bytes)
                in->bytes = m->bytes;
            in->wire_ops += k2 - lo;
            in->wire_bytes += wb;
            if (n > in->steps)
                in->steps = (uint32_t)n;
            in->cls[me < 0 ? C_OTHER : classify(dst, dsz, n, me, x->n)]++;
        }
    }
out:
oom:
    if (rc == HS_ENOMEM)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    if (c)
        hs_trace_cursor_close(c);
    for (size_t i = 0; i < nt; i++)
        free(ta[i].ev);
    free(ta);
    for (size_t i = 0; i < ncm; i++)
        free(cm[i].members);
    free(cm);
    free(ops);
    free(pr);
    free(snd);
    free(dn);
    free(dst);
    free(dsz);
    return rc;
}

/* ---- the whole job ---------------------------------------------------------- */

static int cmp_pair(const void *a, const void *b)
{
    const hs_trace_wire_pair *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static int cmp_coll(const void *a, const void *b)
{
    const hs_trace_wire_coll *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->ranks != y->ranks)
        return x->ranks < y->ranks ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return strcmp(x->algorithm, y->algorithm);
}

int hs_trace_wire_stats_compute(hs_trace *t, hs_trace_wire_stats **out, hs_error *err)
{
    *out = NULL;
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    if (!hs_trace_has_wire(t))
        return hs_error_set(err, HS_ENOENT, "%s: no wire files (record with 'hopscope record "
                            "--wire')", hs_trace_get_dir(t));
    hs_trace_wire_stats *ws = calloc(1, sizeof *ws);
    wstate st = { .nranks = m->nranks };
    hs_trace_stats *mpi = NULL;
    if (!ws)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    ws->nranks = m->nranks;
    int rc = 0;
    for (uint32_t r = 0; r < m->nranks && rc == 0; r++)
        rc = do_rank(t, r, &st, ws, err);
    if (rc == 0)
        rc = hs_trace_stats_compute(t, &mpi, err);
    if (rc)
        goto fail;
    /* MPI point-to-point payload per pair */
    for (size_t i = 0; i < mpi->npairs; i++) {
        hs_trace_wire_pair *p = pair_at(&st, mpi->pairs[i].src, mpi->pairs[i].dst);
        if (!p) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto fail;
        }
        p->mpi_messages = mpi->pairs[i].messages;
        p->mpi_bytes = mpi->pairs[i].bytes;
    }
    ws->pairs = malloc((st.pn ? st.pn : 1) * sizeof *ws->pairs);
    ws->colls = calloc(st.in ? st.in : 1, sizeof *ws->colls);
    if (!ws->pairs || !ws->colls) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < st.pcap; i++)
        if (st.pairs[i].used)
            ws->pairs[ws->npairs++] = st.pairs[i].p;
    qsort(ws->pairs, ws->npairs, sizeof *ws->pairs, cmp_pair);
    /* Instances grouped by (call, size, bytes, algorithm). */
    for (size_t i = 0; i < st.icap; i++) {
        const inst *x = &st.insts[i];
        if (!x->used)
            continue;
        const char *alg = algorithm(x);
        hs_trace_wire_coll *g = NULL;
        for (size_t j = 0; j < ws->ncolls && !g; j++)
            if (ws->colls[j].kind == x->kind && ws->colls[j].ranks == x->size &&
                ws->colls[j].bytes == x->bytes && strcmp(ws->colls[j].algorithm, alg) == 0)
                g = &ws->colls[j];
        if (!g) {
            g = &ws->colls[ws->ncolls++];
            g->kind = x->kind;
            g->ranks = x->size;
            g->bytes = x->bytes;
            snprintf(g->algorithm, sizeof g->algorithm, "%s", alg);
        }
        g->calls++;
        g->mpi_bytes += x->mpi_bytes;
        g->wire_ops += x->wire_ops;
        g->wire_bytes += x->wire_bytes;
        if (x->steps > g->steps)
            g->steps = x->steps;
        if (x->members < x->size)
            g->partial++;
    }
    qsort(ws->colls, ws->ncolls, sizeof *ws->colls, cmp_coll);
    free(st.pairs);
    free(st.insts);
    hs_trace_stats_free(mpi);
    *out = ws;
    return 0;
fail:
    free(st.pairs);
    free(st.insts);
    hs_trace_stats_free(mpi);
    hs_trace_wire_stats_free(ws);
    return rc;
}

void hs_trace_wire_stats_free(hs_trace_wire_stats *s)
{
    if (!s)
        return;
    free(s->pairs);
    free(s->colls);
    free(s);
}

static void human(char *b, size_t n, uint64_t v)
{
    if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(b, n, "%" PRIu64 " MiB", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(b, n, "%" PRIu64 " KiB", v >> 10);
    else
        snprintf(b, n, "%" PRIu64 " B", v);
}

void hs_trace_wire_stats_print(const hs_trace_wire_stats *s, FILE *f)
{
    fprintf(f, "wire level (UCX / libfabric operations below MPI):\n");
    fprintf(f, "  %-14s %12s %16s\n", "operation", "count", "bytes");
    for (int op = 1; op <= HS_TRACE_WOP_MAX; op++)
        if (s->ops[op])
            fprintf(f, "  %-14s %12" PRIu64 " %16" PRIu64 "\n", hs_trace_wop_name(op), s->ops[op],
                    s->bytes[op]);
    fprintf(f, "  transfers by the MPI call in progress: point-to-point %" PRIu64
               " B, collectives %" PRIu64 " B, one-sided %" PRIu64 " B, other calls %" PRIu64
               " B, outside any call %" PRIu64 " B\n",
            s->p2p_bytes, s->coll_bytes, s->rma_bytes, s->other_bytes, s->outside_bytes);
    fprintf(f, "  intra-node %" PRIu64 " B, inter-node %" PRIu64 " B, peer unknown: %" PRIu64
               " transfers; %" PRIu64 " operations returned a request, %" PRIu64
               " completions seen\n",
            s->intra_bytes, s->inter_bytes, s->unknown_peer_ops, s->with_request,
            s->completions);
    if (s->eager_ops || s->rndv_ops || s->proto_unknown) {
        fprintf(f, "  tag sends by protocol: eager %" PRIu64, s->eager_ops);
        if (s->eager_ops)
            fprintf(f, " (%" PRIu64 " B .. %" PRIu64 " B)", s->eager_min, s->eager_max);
        fprintf(f, ", rendezvous %" PRIu64, s->rndv_ops);
        if (s->rndv_ops)
            fprintf(f, " (%" PRIu64 " B .. %" PRIu64 " B; sender put %" PRIu64
                       ", receiver get %" PRIu64 ")", s->rndv_min, s->rndv_max, s->rndv_put,
                    s->rndv_get);
        fprintf(f, ", unknown %" PRIu64 "\n", s->proto_unknown);
    }
    if (s->progress_calls)
        fprintf(f, "  ucp_worker_progress: %" PRIu64 " calls, %" PRIu64
                   " made progress, %.6f s inside (point-to-point calls %.6f s, collectives "
                   "%.6f s, one-sided %.6f s, other calls %.6f s, outside any call %.6f s)\n",
                s->progress_calls, s->progress_useful, (double)s->progress_ns / 1e9,
                (double)s->progress_ns_in[HS_TRACE_WIRE_IN_P2P] / 1e9,
                (double)s->progress_ns_in[HS_TRACE_WIRE_IN_COLL] / 1e9,
                (double)s->progress_ns_in[HS_TRACE_WIRE_IN_RMA] / 1e9,
                (double)s->progress_ns_in[HS_TRACE_WIRE_IN_OTHER] / 1e9,
                (double)s->progress_ns_in[HS_TRACE_WIRE_IN_OUTSIDE] / 1e9);
    fprintf(f, "\nby pair (data from src to dst; MPI = point-to-point payload):\n");
    fprintf(f, "  %6s %6s %10s %14s %10s %14s %s\n", "src", "dst", "mpi_msgs", "mpi_bytes",
            "wire_ops", "wire_bytes", "where");
    for (size_t i = 0; i < s->npairs; i++) {
        const hs_trace_wire_pair *p = &s->pairs[i];
        fprintf(f, "  %6u %6u %10" PRIu64 " %14" PRIu64 " %10" PRIu64 " %14" PRIu64 " %s\n",
                p->src, p->dst, p->mpi_messages, p->mpi_bytes, p->wire_ops, p->wire_bytes,
                p->wire_ops ? (p->intra ? "intra-node" : "inter-node") : "-");
    }
    fprintf(f, "\nby collective (blocking calls; MPI = bytes the members contribute, wire = "
               "bytes they initiated):\n");
    for (size_t i = 0; i < s->ncolls; i++) {
        const hs_trace_wire_coll *c = &s->colls[i];
        char b[32];
        human(b, sizeof b, c->bytes);
        fprintf(f, "  %s %s on %u ranks: %s, %u step%s; %" PRIu64 " call%s, MPI %" PRIu64
                   " B, wire %" PRIu64 " B in %" PRIu64 " transfers",
                hs_trace_kind_name(c->kind), b, c->ranks, c->algorithm, c->steps,
                c->steps == 1 ? "" : "s", c->calls, c->calls == 1 ? "" : "s", c->mpi_bytes,
                c->wire_bytes, c->wire_ops);
        if (c->mpi_bytes)
            fprintf(f, " (%.2fx)", (double)c->wire_bytes / (double)c->mpi_bytes);
        if (c->partial)
            fprintf(f, "; %" PRIu64 " seen on only part of the members", c->partial);
        fputc('\n', f);
    }
}

void hs_trace_wire_stats_json(const hs_trace_wire_stats *s, hs_json *w)
{
    hs_json_obj_begin(w);
    hs_json_key(w, "ranks"); hs_json_uint(w, s->nranks);
    hs_json_key(w, "operations");
    hs_json_arr_begin(w);
    for (int op = 1; op <= HS_TRACE_WOP_MAX; op++) {
        if (!s->ops[op])
            continue;
        hs_json_obj_begin(w);
        hs_json_key(w, "op"); hs_json_str(w, hs_trace_wop_name(op));
        hs_json_key(w, "count"); hs_json_uint(w, s->ops[op]);
        hs_json_key(w, "bytes"); hs_json_uint(w, s->bytes[op]);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "p2p_bytes"); hs_json_uint(w, s->p2p_bytes);
    hs_json_key(w, "coll_bytes"); hs_json_uint(w, s->coll_bytes);
    hs_json_key(w, "rma_bytes"); hs_json_uint(w, s->rma_bytes);
    hs_json_key(w, "other_bytes"); hs_json_uint(w, s->other_bytes);
    hs_json_key(w, "outside_bytes"); hs_json_uint(w, s->outside_bytes);
    hs_json_key(w, "intra_bytes"); hs_json_uint(w, s->intra_bytes);
    hs_json_key(w, "inter_bytes"); hs_json_uint(w, s->inter_bytes);
    hs_json_key(w, "unknown_peer_ops"); hs_json_uint(w, s->unknown_peer_ops);
    hs_json_key(w, "with_request"); hs_json_uint(w, s->with_request);
    hs_json_key(w, "completions"); hs_json_uint(w, s->completions);
    hs_json_key(w, "protocols");
    hs_json_obj_begin(w);
    hs_json_key(w, "eager_ops"); hs_json_uint(w, s->eager_ops);
    hs_json_key(w, "eager_bytes"); hs_json_uint(w, s->eager_bytes);
    hs_json_key(w, "eager_min"); hs_json_uint(w, s->eager_min);
    hs_json_key(w, "eager_max"); hs_json_uint(w, s->eager_max);
    hs_json_key(w, "rndv_ops"); hs_json_uint(w, s->rndv_ops);
    hs_json_key(w, "rndv_bytes"); hs_json_uint(w, s->rndv_bytes);
    hs_json_key(w, "rndv_min"); hs_json_uint(w, s->rndv_min);
    hs_json_key(w, "rndv_max"); hs_json_uint(w, s->rndv_max);
    hs_json_key(w, "rndv_put"); hs_json_uint(w, s->rndv_put);
    hs_json_key(w, "rndv_get"); hs_json_uint(w, s->rndv_get);
    hs_json_key(w, "unknown"); hs_json_uint(w, s->proto_unknown);
    hs_json_obj_end(w);
    hs_json_key(w, "progress");
    hs_json_obj_begin(w);
    hs_json_key(w, "calls"); hs_json_uint(w, s->progress_calls);
    hs_json_key(w, "made_progress"); hs_json_uint(w, s->progress_useful);
    hs_json_key(w, "ns"); hs_json_uint(w, s->progress_ns);
    static const char *const in_name[5] = { "p2p_ns", "coll_ns", "rma_ns", "other_ns",
                                            "outside_ns" };
    for (int i = 0; i < 5; i++) {
        hs_json_key(w, in_name[i]);
        hs_json_uint(w, s->progress_ns_in[i]);
    }
    hs_json_obj_end(w);
    hs_json_key(w, "pairs");
    hs_json_arr_begin(w);
    for (size_t i = 0; i < s->npairs; i++) {
        const hs_trace_wire_pair *p = &s->pairs[i];
        hs_json_obj_begin(w);
        hs_json_key(w, "src"); hs_json_uint(w, p->src);
        hs_json_key(w, "dst"); hs_json_uint(w, p->dst);
        hs_json_key(w, "mpi_messages"); hs_json_uint(w, p->mpi_messages);
        hs_json_key(w, "mpi_bytes"); hs_json_uint(w, p->mpi_bytes);
        hs_json_key(w, "wire_ops"); hs_json_uint(w, p->wire_ops);
        hs_json_key(w, "wire_bytes"); hs_json_uint(w, p->wire_bytes);
        hs_json_key(w, "intra"); hs_json_bool(w, p->intra);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "collectives");
    hs_json_arr_begin(w);
    for (size_t i = 0; i < s->ncolls; i++) {
        const hs_trace_wire_coll *c = &s->colls[i];
        hs_json_obj_begin(w);
        hs_json_key(w, "call"); hs_json_str(w, hs_trace_kind_name(c->kind));
        hs_json_key(w, "ranks"); hs_json_uint(w, c->ranks);
        hs_json_key(w, "bytes"); hs_json_uint(w, c->bytes);
        hs_json_key(w, "algorithm"); hs_json_str(w, c->algorithm);
        hs_json_key(w, "steps"); hs_json_uint(w, c->steps);
        hs_json_key(w, "calls"); hs_json_uint(w, c->calls);
        hs_json_key(w, "mpi_bytes"); hs_json_uint(w, c->mpi_bytes);
        hs_json_key(w, "wire_ops"); hs_json_uint(w, c->wire_ops);
        hs_json_key(w, "wire_bytes"); hs_json_uint(w, c->wire_bytes);
        hs_json_key(w, "partial"); hs_json_uint(w, c->partial);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_obj_end(w);
}
