/* Point-to-point messages of the replay: matching, the eager and
 * rendezvous protocols, and the transport of their legs (replay.h).
 *
 * Matching.  A message is issued with a key (destination, source,
 * communicator, tag); a receive is posted with a key too, already resolved
 * (the trace says which message each wildcard receive got).  Per key, sends
 * and receives pair in FIFO order: the k-th send with the k-th receive,
 * numbered by each side.  A send takes its place when it is issued, not
 * when its first packet arrives, so MPI's non-overtaking rule holds even
 * when adaptive routing reorders packets; the match is made at the
 * receiver (first leg in and receive posted).  The pairing only decides who
 * belongs to whom, the times come from the protocol:
 *   eager       the data leaves at once; the receive completes when the
 *               data is in and the receive posted (an unexpected message
 *               costs a copy out of the bounce buffer at memory bandwidth);
 *               the send completes when its last packet has left the NIC
 *               (ssend: and the receiver's acknowledgement is back);
 *   rendezvous  RTS at once; the receiver answers CTS once the RTS is in and
 *               the receive posted; the data follows CTS; the receive
 *               completes with the data, the send when the data has left.
 * Collective steps, PSCW notices and fence barriers use the same path.
 *
 * Transport.  A leg between ranks on different nodes is a fabric message
 * (sent/delivered callbacks); on the same node it is a pair of timers: the
 * copy at memory bandwidth (then "sent"), plus the shared-memory latency
 * (then "delivered"). */
#include "replay.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define CK_APP (1ull << 60)

hs_time hs__rp_copy_time(const rp *R, uint64_t bytes)
{
    return bytes ? hs_ser_time(bytes, R->prm->mem_bw) : 0;
}

int hs__rp_timer(rp *R, hs_time t, unsigned type, unsigned leg, uint32_t idx, int app,
                 uint32_t rank)
{
    if (app) {
        R->app_pending++;
        R->app_timers++;
    }
    int rc = hs_fabric_timer_at(R->F, t, R->ranks[rank].node,
                                ck_make(type, leg, idx) | (app ? CK_APP : 0));
    if (rc)
        R->error = rc;
    return rc;
}

/* ---- pools ------------------------------------------------------------------- */

static uint32_t msg_alloc(rp *R)
{
    return hs__rp_pool_take((void **)&R->msg, &R->capmsg, &R->msg_free, sizeof *R->msg,
                            offsetof(rp_msg, next), 4096);
}

static void msg_unref(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    if (--M->refs)
        return;
    M->next = R->msg_free;
    R->msg_free = m;
}

static uint32_t rcv_alloc(rp *R)
{
    return hs__rp_pool_take((void **)&R->rcv, &R->caprcv, &R->rcv_free, sizeof *R->rcv,
                            offsetof(rp_recv, next), 4096);
}

static void rcv_free(rp *R, uint32_t r)
{
    R->rcv[r].next = R->rcv_free;
    R->rcv_free = r;
}

/* ---- matching table: open addressing, linear probing, backward-shift
 * deletion; entries live while they hold anything ---------------------------- */

static uint64_t key_hash(uint32_t dst, uint32_t src, uint32_t comm, int64_t tag)
{
    uint64_t h = ((uint64_t)dst << 32 | src) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)comm << 40) ^ (uint64_t)tag;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}

int hs__rp_mt_init(rp *R)
{
    R->capmt = 4096;
    R->nmt = 0;
    R->mt = malloc(R->capmt * sizeof *R->mt);
    if (!R->mt)
        return HS_ENOMEM;
    for (size_t i = 0; i < R->capmt; i++)
        R->mt[i].dst = RP_NIL;
    return 0;
}

uint32_t hs__rp_mt_find(const rp *R, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag)
{
    size_t mask = R->capmt - 1, i = key_hash(dst, src, comm, tag) & mask;
    for (;;) {
        const rp_ment *e = &R->mt[i];
        if (e->dst == RP_NIL)
            return RP_NIL;
        if (e->dst == dst && e->src == src && e->comm == comm && e->tag == tag)
            return (uint32_t)i;
        i = (i + 1) & mask;
    }
}

static int mt_grow(rp *R)
{
    size_t oc = R->capmt, nc = oc * 2;
    rp_ment *old = R->mt, *n = malloc(nc * sizeof *n);
    if (!n)
        return HS_ENOMEM;
    for (size_t i = 0; i < nc; i++)
        n[i].dst = RP_NIL;
    for (size_t i = 0; i < oc; i++) {
        if (old[i].dst == RP_NIL)
            continue;
        size_t j = key_hash(old[i].dst, old[i].src, old[i].comm, old[i].tag) & (nc - 1);
        while (n[j].dst != RP_NIL)
            j = (j + 1) & (nc - 1);
        n[j] = old[i];
    }
    free(old);
    R->mt = n;
    R->capmt = nc;
    return 0;
}

static uint32_t mt_get(rp *R, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag)
{
    uint32_t e = hs__rp_mt_find(R, dst, src, comm, tag);
    if (e != RP_NIL)
        return e;
    if (2 * (R->nmt + 1) > R->capmt && mt_grow(R))
        return RP_NIL;
    size_t mask = R->capmt - 1, i = key_hash(dst, src, comm, tag) & mask;
    while (R->mt[i].dst != RP_NIL)
        i = (i + 1) & mask;
    rp_ment *n = &R->mt[i];
    n->dst = dst;
    n->src = src;
    n->comm = comm;
    n->tag = tag;
    n->sseq = n->rseq = 0;
    n->fhead = n->ahead = n->rhead = n->rtail = n->probe = RP_NIL;
    R->nmt++;
    return (uint32_t)i;
}

/* Deletes entry i if it holds nothing: every message issued has arrived
 * and met its receive (sseq == rseq with nothing waiting), so both counts
 * start again from 0 in a new entry. */
static void mt_tidy(rp *R, uint32_t i)
{
    rp_ment *e = &R->mt[i];
    if (e->sseq != e->rseq || e->ahead != RP_NIL || e->rhead != RP_NIL || e->fhead != RP_NIL ||
        e->probe != RP_NIL)
        return;
    size_t mask = R->capmt - 1, hole = i, j = i;
    R->mt[hole].dst = RP_NIL;
    R->nmt--;
    for (;;) {
        j = (j + 1) & mask;
        rp_ment *x = &R->mt[j];
        if (x->dst == RP_NIL)
            return;
        size_t home = key_hash(x->dst, x->src, x->comm, x->tag) & mask;
        /* x may move into the hole if its home is not in (hole, j] cyclically */
        int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
            R->mt[hole] = *x;
            x->dst = RP_NIL;
            hole = j;
        }
    }
}

/* ---- accounting ------------------------------------------------------------------ */

void hs__rp_record_pair(rp *R, int rma, uint32_t src, uint32_t dst, uint64_t bytes)
{
    rp_pairs *P = rma ? &R->rpairs : &R->pairs;
    uint64_t key = (uint64_t)src << 32 | dst;
    uint64_t *v = hs__rp_map_get(&P->map, key + 1);   /* 0 is the map's empty key */
    if (!v) {
        R->error = HS_ENOMEM;
        return;
    }
    if (!*v) {
        if (P->n == P->cap) {
            size_t nc = P->cap ? 2 * P->cap : 1024;
            uint64_t *k = realloc(P->key, nc * sizeof *k);
            if (k)
                P->key = k;
            uint64_t *b = realloc(P->bytes, nc * sizeof *b);
            if (b)
                P->bytes = b;
            uint64_t *m = realloc(P->msgs, nc * sizeof *m);
            if (m)
                P->msgs = m;
            if (!k || !b || !m) {
                R->error = HS_ENOMEM;
                return;
            }
            P->cap = nc;
        }
        P->key[P->n] = key;
        P->bytes[P->n] = 0;
        P->msgs[P->n] = 0;
        *v = ++P->n;
    }
    P->bytes[*v - 1] += bytes;
    P->msgs[*v - 1]++;
}

int hs__rp_gen_monitored(rp *R, uint32_t src, uint32_t dst)
{
    const rp_job *J = &R->jobs[R->ranks[src].job];
    if (!J->app || J->sample_rate <= 0)
        return 0;
    if (J->sample_rate >= 1)
        return 1;
    uint64_t *v = hs__rp_map_get(&R->pair_seq, ((uint64_t)src << 32 | dst) + 1);
    if (!v) {
        R->error = HS_ENOMEM;
        return 0;
    }
    return hs_trace_monitored(J->sample_seed, J->sample_rate, R->ranks[src].jrank,
                              R->ranks[dst].jrank, (*v)++);
}

/* ---- transport --------------------------------------------------------------------- */

static int leg_has_sent(unsigned leg)
{
    return leg == LEG_EAGER || leg == LEG_DATA || leg == LEG_RMA_DATA;
}

_Static_assert(sizeof(rp_wire) <= HS_FABRIC_PAYLOAD, "a leg's descriptor fits the fabric's payload");

static uint32_t wire_alloc(rp *R)
{
    return hs__rp_pool_take((void **)&R->wire, &R->capwire, &R->wire_free, sizeof *R->wire,
                            offsetof(rp_wire, next), 1024);
}

int hs__rp_leg(rp *R, unsigned leg, uint32_t idx, uint32_t src, uint32_t dst, uint64_t bytes,
               uint16_t phase, int mon, int app, const rp_wire *w)
{
    uint32_t a = R->ranks[src].node, b = R->ranks[dst].node;
    if (app && leg_has_sent(leg) && R->prm->max_packets) {
        /* --max-packets at run time: what the estimate of the trace did not
         * see (persistent sends, collectives' algorithms) */
        uint64_t n = hs__rp_packets(R, bytes);
        R->app_packets = R->app_packets + n < n ? UINT64_MAX : R->app_packets + n;
        if (R->app_packets > R->prm->max_packets) {
            R->over_packets = 1;
            R->error = HS_ERANGE;
            return R->error;
        }
    }
    if (a == b) {
        hs_time t = hs_fabric_now(R->F) + hs__rp_copy_time(R, bytes);
        if (leg_has_sent(leg) && hs__rp_timer(R, t, TM_LSENT, leg, idx, 0, src))
            return R->error;
        uint32_t di = idx;
        if (w) {   /* the descriptor waits in R->wire for the delivery */
            if ((di = wire_alloc(R)) == RP_NIL)
                return R->error = HS_ENOMEM;
            R->wire[di] = *w;
        }
        return hs__rp_timer(R, t + R->prm->shm_latency, TM_LDELIV, leg, di, app, src);
    }
    if (app)
        R->app_pending++;
    int rc = hs_fabric_inject_payload(R->F, hs_fabric_now(R->F), a, b, bytes, phase, mon, 0,
                                      (uint64_t)leg << 32 | idx | (app ? CK_APP : 0), w,
                                      w ? sizeof *w : 0);
    if (rc) {
        R->error = rc;
        R->err_bytes = bytes;
    }
    return rc;
}

static int is_net(const rp *R, uint32_t src, uint32_t dst)
{
    return R->ranks[src].node != R->ranks[dst].node;
}

static uint64_t ctrl(const rp *R)
{
    return R->prm->ctrl_bytes;
}

/* ---- completion -------------------------------------------------------------------- */

void hs__rp_target_done(rp *R, uint8_t type, uint32_t idx)
{
    switch (type) {
    case TGT_REQ: hs__rp_req_done(R, idx); break;
    case TGT_COLL: hs__rp_coll_xfer_done(R, idx); break;
    default: break;
    }
}

/* The sender's side is done: its target completes, its record goes. */
static void send_done(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    uint8_t t = M->type;
    uint32_t x = M->tgt;
    M->type = TGT_NONE;
    hs__rp_target_done(R, t, x);
    msg_unref(R, m);
}

/* The receiver's side is done (its record m). */
static void recv_done(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    M->flags |= M_DONE;
    uint8_t t = M->type;
    uint32_t x = M->tgt;
    hs__rp_target_done(R, t, x);
    msg_unref(R, m);
}


/* Background jobs loop for ever, so an eager sender whose receiver lags
 * (an incast root waiting for its slowest sender) would pile up unexpected
 * messages without limit.  As MPI libraries' eager flow control does (per
 * connection credits, MVAPICH2/UCX RC), a sender may have at most
 * bg_eager_credits eager messages unmatched at one receiver; beyond, the
 * message goes by rendezvous, which waits for the receive.  The
 * application's trace is finite: it is not limited. */
static uint64_t *bg_credit(rp *R, uint32_t src, uint32_t dst)
{
    uint64_t *v = hs__rp_map_get(&R->bg_credit, ((uint64_t)src << 32 | dst) + 1);
    if (!v)
        R->error = HS_ENOMEM;
    return v;
}

static void credit_back(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    if (!(M->flags & M_CREDIT))
        return;
    M->flags &= (uint16_t)~M_CREDIT;
    R->bg_unexp--;
    uint64_t *v = bg_credit(R, M->src, M->dst);
    if (v && *v)
        --*v;
}

static void maybe_send_done(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    if (!(M->flags & M_SENT) || ((M->flags & M_SYNC) && !(M->flags & M_ACKED)))
        return;
    send_done(R, m);
}

/* The flags of the message itself (not of one side's record), which its
 * legs carry. */
#define M_WIRE (M_RNDV | M_SYNC | M_MON | M_NET | M_APP | M_USER | M_CREDIT)

/* Starts a leg from record m's side to the other: the sender's legs go to
 * the destination, the receiver's back to the source.  The leg carries the
 * message's descriptor. */
static int start_leg(rp *R, uint32_t m, unsigned leg, uint64_t bytes)
{
    rp_msg *M = &R->msg[m];
    M->t_leg = hs_fabric_now(R->F);
    int back = (M->flags & M_RSIDE) != 0;
    rp_wire w = {
        .bytes = M->bytes, .t_leg = M->t_leg, .lat = M->lat, .tag = M->tag,
        .src = M->src, .dst = M->dst, .comm = M->comm, .seq = M->seq,
        .from = m, .to = M->peer, .next = RP_NIL, .phase = M->phase,
        .flags = (uint16_t)(M->flags & M_WIRE),
    };
    uint32_t s = back ? M->dst : M->src, d = back ? M->src : M->dst;
    return hs__rp_leg(R, leg, m, s, d, bytes, M->phase, (M->flags & M_MON) != 0,
                      (M->flags & M_APP) != 0, &w);
}

/* Both the message (its eager data or RTS) and its receive are there. */
static void matched_and_arrived(rp *R, uint32_t m, int expected)
{
    rp_msg *M = &R->msg[m];
    if (M->flags & M_RNDV) {
        start_leg(R, m, LEG_CTS, ctrl(R));
        return;
    }
    if (M->flags & M_SYNC)
        start_leg(R, m, LEG_ACK, ctrl(R));
    M = &R->msg[m];
    if (expected)
        recv_done(R, m);
    else   /* unexpected: copied out of the bounce buffer */
        hs__rp_timer(R, hs_fabric_now(R->F) + hs__rp_copy_time(R, M->bytes), TM_COPY, 0, m,
                     (M->flags & M_APP) != 0, M->dst);
}

static void wake_probes(rp *R, uint32_t e)
{
    uint32_t a = R->mt[e].probe;
    R->mt[e].probe = RP_NIL;
    while (a != RP_NIL) {
        uint32_t nx = R->actors[a].next;
        R->actors[a].next = RP_NIL;
        hs__rp_actor_ready(R, a);
        a = nx;
    }
}

/* ---- issuing and posting --------------------------------------------------------------- */

/* Background eager credits: the sender reads whether the receive of its
 * message is posted (then the message takes no credit), and a receive
 * posted while its message's first leg is on its way gives the credit
 * back at once.  Both read the other side's state at zero delay, which a
 * partitioned run cannot do: background jobs run sequentially only. */
static void credit_take(rp *R, uint32_t e, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    if (R->mt[e].rseq > M->seq)   /* its receive is posted */
        return;
    uint64_t *v = bg_credit(R, M->src, M->dst);
    if (!v)
        return;
    if (*v >= R->prm->bg_eager_credits) {
        M->flags = (uint16_t)((M->flags | M_RNDV) & ~M_SYNC);
    } else {
        ++*v;
        M->flags |= M_CREDIT;
        if (++R->bg_unexp > R->bg_unexp_peak)
            R->bg_unexp_peak = R->bg_unexp;
    }
}

/* Unlinks background message m from the in-flight list of entry e. */
static void inflight_drop(rp *R, uint32_t e, uint32_t m)
{
    uint32_t *p = &R->mt[e].fhead;
    while (*p != RP_NIL && *p != m)
        p = &R->msg[*p].next;
    if (*p == m)
        *p = R->msg[m].next;
    R->msg[m].next = RP_NIL;
}

int hs__rp_send(rp *R, uint32_t src, uint32_t dst, uint32_t comm, int64_t tag, uint64_t bytes,
                uint16_t phase, unsigned mflags, uint8_t s_type, uint32_t s_tgt)
{
    uint32_t m = msg_alloc(R);
    if (m == RP_NIL)
        return R->error = HS_ENOMEM;
    uint32_t e = mt_get(R, dst, src, comm, tag);
    if (e == RP_NIL)
        return R->error = HS_ENOMEM;
    rp_msg *M = &R->msg[m];
    memset(M, 0, sizeof *M);
    M->bytes = bytes;
    M->tag = tag;
    M->src = src;
    M->dst = dst;
    M->comm = comm;
    M->seq = R->mt[e].sseq++;
    M->next = RP_NIL;
    M->peer = RP_NIL;
    M->type = s_type;
    M->tgt = s_tgt;
    M->phase = phase;
    M->flags = (uint16_t)mflags;
    if (bytes > R->prm->eager_limit)   /* rendezvous is synchronous by itself */
        M->flags = (uint16_t)((M->flags | M_RNDV) & ~M_SYNC);
    if (is_net(R, src, dst))
        M->flags |= M_NET;
    M->refs = 1;   /* the send side */
    if (mflags & M_USER) {
        rp_job *J = &R->jobs[R->ranks[src].job];
        J->messages++;
        J->bytes += bytes;
        if (J->app) {
            R->app_msgs++;
            R->app_bytes += bytes;
            R->ph[phase].messages++;
            R->ph[phase].bytes += bytes;
            hs__rp_record_pair(R, 0, R->ranks[src].jrank, R->ranks[dst].jrank, bytes);
        } else {
            R->bg_msgs++;
            R->bg_bytes += bytes;
            R->ph[phase].messages++;
            R->ph[phase].bytes += bytes;
        }
    }
    if (!(M->flags & M_APP)) {
        /* background: the in-flight list (seq order: appended), and its
         * eager credit */
        uint32_t *p = &R->mt[e].fhead;
        while (*p != RP_NIL)
            p = &R->msg[*p].next;
        *p = m;
        M->refs++;   /* until its first leg arrives */
        if (!(M->flags & M_RNDV))
            credit_take(R, e, m);
        if (R->error)
            return R->error;
    }
    M = &R->msg[m];
    if (M->flags & M_RNDV)
        return start_leg(R, m, LEG_RTS, ctrl(R));
    return start_leg(R, m, LEG_EAGER, bytes);
}

/* Message m (the receiver's record) meets receive (type, tgt). */
static void match(rp *R, uint32_t m, uint8_t r_type, uint32_t r_tgt)
{
    rp_msg *M = &R->msg[m];
    M->type = r_type;
    M->tgt = r_tgt;
    M->flags |= M_MATCHED;
}

int hs__rp_recv(rp *R, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag, uint8_t r_type,
                uint32_t r_tgt)
{
    uint32_t e = mt_get(R, dst, src, comm, tag);
    if (e == RP_NIL)
        return R->error = HS_ENOMEM;
    uint32_t seq = R->mt[e].rseq++;
    uint32_t m = R->mt[e].ahead;
    if (m != RP_NIL && R->msg[m].seq == seq) {
        /* its message is there (unexpected): the arrived list is in seq
         * order and holds only messages >= seq */
        R->mt[e].ahead = R->msg[m].next;
        R->msg[m].next = RP_NIL;
        uint32_t nx = R->mt[e].ahead;
        if (nx != RP_NIL && R->msg[nx].seq == seq + 1 && R->mt[e].probe != RP_NIL)
            wake_probes(R, e);
        mt_tidy(R, e);
        credit_back(R, m);
        match(R, m, r_type, r_tgt);
        matched_and_arrived(R, m, 0);
        return R->error;
    }
    if (R->mt[e].fhead != RP_NIL) {
        /* a background message of this receive on its way gives its credit back */
        for (uint32_t x = R->mt[e].fhead; x != RP_NIL; x = R->msg[x].next)
            if (R->msg[x].seq == seq) {
                credit_back(R, x);
                break;
            }
    }
    uint32_t r = rcv_alloc(R);
    if (r == RP_NIL)
        return R->error = HS_ENOMEM;
    rp_recv *V = &R->rcv[r];
    V->t_post = hs_fabric_now(R->F);
    V->seq = seq;
    V->next = RP_NIL;
    V->tgt = r_tgt;
    V->type = r_type;
    rp_ment *E = &R->mt[e];
    if (E->rtail == RP_NIL)
        E->rhead = r;
    else
        R->rcv[E->rtail].next = r;
    E->rtail = r;
    return 0;
}

int hs__rp_probe(rp *R, uint32_t actor, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag)
{
    uint32_t e = mt_get(R, dst, src, comm, tag);
    if (e == RP_NIL)
        return R->error = HS_ENOMEM;
    uint32_t m = R->mt[e].ahead;
    if (m != RP_NIL && R->msg[m].seq == R->mt[e].rseq)
        return 1;
    R->actors[actor].next = R->mt[e].probe;
    R->mt[e].probe = actor;
    return 0;
}

/* ---- leg events -------------------------------------------------------------------------- */

/* The message's first leg (eager data or RTS) is at the receiver: it
 * meets its receive if that is posted, else waits in the arrived list. */
static void arrived(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    M->flags |= M_ARRIVED;
    /* the receiver's entry: in a parallel run the sender's is another
     * process's, and the receiver may have posted nothing on this key yet */
    uint32_t e = mt_get(R, M->dst, M->src, M->comm, M->tag);
    if (e == RP_NIL) {
        R->error = HS_ENOMEM;
        return;
    }
    if (!(M->flags & M_APP)) {   /* background: the sender's record leaves its list */
        uint32_t s = M->peer;
        inflight_drop(R, e, s);
        msg_unref(R, s);
    }
    uint32_t seq = M->seq;
    if (seq < R->mt[e].rseq) {
        /* its receive is posted: the receives waiting are in seq order */
        uint32_t prev = RP_NIL, r = R->mt[e].rhead;
        while (r != RP_NIL && R->rcv[r].seq != seq) {
            prev = r;
            r = R->rcv[r].next;
        }
        if (r == RP_NIL) {
            R->error = HS_EINVAL;
            return;
        }
        rp_ment *E = &R->mt[e];
        if (prev == RP_NIL)
            E->rhead = R->rcv[r].next;
        else
            R->rcv[prev].next = R->rcv[r].next;
        if (E->rtail == r)
            E->rtail = prev;
        uint8_t type = R->rcv[r].type;
        uint32_t tgt = R->rcv[r].tgt;
        rcv_free(R, r);
        mt_tidy(R, e);
        match(R, m, type, tgt);
        matched_and_arrived(R, m, 1);
        return;
    }
    uint32_t *p = &R->mt[e].ahead;
    while (*p != RP_NIL && R->msg[*p].seq < seq)
        p = &R->msg[*p].next;
    M->next = *p;
    *p = m;
    if (seq == R->mt[e].rseq && R->mt[e].probe != RP_NIL)
        wake_probes(R, e);
}

/* A leg described by w is in at record m: the latency so far is the
 * leg's sender's plus this leg's network time. */
static void leg_in(rp *R, uint32_t m, const rp_wire *w)
{
    rp_msg *M = &R->msg[m];
    M->t_leg = w->t_leg;
    M->lat = w->lat + ((M->flags & M_NET) ? hs_fabric_now(R->F) - w->t_leg : 0);
}

/* The receiver's record of a message, from its first leg's descriptor. */
static uint32_t recv_record(rp *R, const rp_wire *w)
{
    uint32_t m = msg_alloc(R);
    if (m == RP_NIL) {
        R->error = HS_ENOMEM;
        return RP_NIL;
    }
    rp_msg *M = &R->msg[m];
    memset(M, 0, sizeof *M);
    M->bytes = w->bytes;
    M->tag = w->tag;
    M->src = w->src;
    M->dst = w->dst;
    M->comm = w->comm;
    M->seq = w->seq;
    M->next = RP_NIL;
    M->peer = w->from;
    M->type = TGT_NONE;
    M->phase = w->phase;
    M->flags = (uint16_t)(w->flags | M_RSIDE);
    M->refs = 1;   /* the receive side */
    leg_in(R, m, w);
    return m;
}

static void final_lat(rp *R, uint32_t m)
{
    rp_msg *M = &R->msg[m];
    if ((M->flags & (M_NET | M_APP | M_USER)) != (M_NET | M_APP | M_USER))
        return;
    hs__rp_lat_add(R, M->lat, M->phase);
    if (R->prm->on_message) {
        hs_time now = hs_fabric_now(R->F);
        hs_replay_msg o = {
            .src_node = R->ranks[M->src].node, .dst_node = R->ranks[M->dst].node,
            .src_rank = M->src, .dst_rank = M->dst, .bytes = M->bytes,
            .t_leg = M->t_leg, .t_end = now, .lat = M->lat, .phase = M->phase,
            .eager = M->lat == now - M->t_leg,
        };
        R->prm->on_message(R->prm->on_message_ctx, &o);
    }
}

static void p2p_sent(rp *R, unsigned leg, uint32_t m)
{
    if (leg == LEG_EAGER || leg == LEG_DATA) {
        R->msg[m].flags |= M_SENT;
        maybe_send_done(R, m);
    }
}

/* A point-to-point leg described by w is in at its destination side. */
static void p2p_delivered(rp *R, unsigned leg, const rp_wire *w)
{
    uint32_t m = w->to;
    switch (leg) {
    case LEG_EAGER:
    case LEG_RTS:   /* a first leg: the receiver's record begins */
        if ((m = recv_record(R, w)) == RP_NIL)
            return;
        if (leg == LEG_EAGER)
            final_lat(R, m);
        arrived(R, m);
        return;
    }
    if (m >= R->capmsg) {   /* cannot be: the leg names the record it is for */
        R->error = HS_EINVAL;
        return;
    }
    leg_in(R, m, w);
    switch (leg) {
    case LEG_CTS:   /* at the sender, which learns the receiver's record */
        R->msg[m].peer = w->from;
        start_leg(R, m, LEG_DATA, R->msg[m].bytes);
        break;
    case LEG_DATA:
        final_lat(R, m);
        recv_done(R, m);
        break;
    case LEG_ACK:
        R->msg[m].flags |= M_ACKED;
        maybe_send_done(R, m);
        break;
    }
}

/* ---- callbacks ----------------------------------------------------------------------------- */

static void sent(rp *R, unsigned leg, uint32_t idx)
{
    if (leg >= LEG_RMA_DATA)
        hs__rp_rma_leg_sent(R, leg, idx);
    else
        p2p_sent(R, leg, idx);
}

/* An RMA leg (idx: its operation) or a point-to-point one (w). */
static void delivered(rp *R, unsigned leg, uint32_t idx, const rp_wire *w)
{
    if (leg >= LEG_RMA_DATA)
        hs__rp_rma_leg_delivered(R, leg, idx);
    else if (w)
        p2p_delivered(R, leg, w);
    else
        R->error = HS_EFORMAT;   /* cannot be: every point-to-point leg carries one */
}

void hs__rp_on_sent(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    rp *R = ctx;
    if (cookie & CK_APP)
        R->t_progress = t;
    sent(R, CK_LEG(cookie), CK_IDX(cookie));
    hs__rp_drain(R);
}

void hs__rp_on_delivered(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    rp *R = ctx;
    if (cookie & CK_APP) {
        R->app_pending--;
        R->t_progress = t;
    }
    size_t n;
    const void *pl = hs_fabric_payload(F, &n);
    rp_wire w;
    if (pl && n == sizeof w)
        memcpy(&w, pl, sizeof w);
    delivered(R, CK_LEG(cookie), CK_IDX(cookie), pl && n == sizeof w ? &w : NULL);
    hs__rp_drain(R);
}

void hs__rp_on_timer(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    rp *R = ctx;
    if (cookie & CK_APP) {
        R->app_pending--;
        R->app_timers--;
        R->t_progress = t;
    }
    unsigned leg = CK_LEG(cookie);
    uint32_t idx = CK_IDX(cookie);
    switch (CK_TYPE(cookie) & 0xfffu) {
    case TM_WAKE:
    case TM_OVERHEAD: hs__rp_wake(R, idx); break;
    case TM_LSENT: sent(R, leg, idx); break;
    case TM_LDELIV:
        if (leg >= LEG_RMA_DATA) {
            delivered(R, leg, idx, NULL);
        } else {   /* the descriptor waited in R->wire */
            rp_wire w = R->wire[idx];
            R->wire[idx].next = R->wire_free;
            R->wire_free = idx;
            delivered(R, leg, idx, &w);
        }
        break;
    case TM_COPY: recv_done(R, idx); break;
    case TM_BSEND: hs__rp_req_done(R, idx); break;
    case TM_REDUCE: hs__rp_coll_reduced(R, idx); break;
    case TM_WATCHDOG: hs__rp_watchdog(R); break;
    default: break;
    }
    hs__rp_drain(R);
}
