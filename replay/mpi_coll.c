/* Collectives in the replay: each rank runs its own schedule from coll.c
 * (MPICH 4's algorithms, one step at a time) over the point-to-point layer,
 * like the library does.  A step's sends and receives are posted together;
 * when all have completed (sends: locally; receives: data in) the local
 * reduction of the step takes reduce_bytes / reduce_bw, then the next step
 * starts.  Nonblocking collectives progress the same way in the background
 * (asynchronous progress) and complete their request at the end.
 *
 * Matching: the k-th collective a rank starts on a communicator is the k-th
 * of every member (MPI requires the same order), so its messages use the
 * tag -(16 + k) on that communicator; inside one collective the schedules
 * guarantee that a rank's sends to a peer match the peer's receives in
 * order (tests/unit/test_coll.c).  All its traffic belongs to the phase of
 * the collective kind. */
#include "replay.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define COLL_TAG0 16   /* tags -1..-15 are the RMA synchronisation's */

int hs__rp_coll_kind(int trace_kind, hs__coll_kind *out)
{
    int base = trace_kind;
    hs_trace_kind_is_coll(trace_kind, &base);
    switch (base) {
    case HS_TRACE_BARRIER: *out = HS__COLL_BARRIER; return 0;
    case HS_TRACE_BCAST: *out = HS__COLL_BCAST; return 0;
    case HS_TRACE_GATHER: case HS_TRACE_GATHERV: *out = HS__COLL_GATHER; return 0;
    case HS_TRACE_SCATTER: case HS_TRACE_SCATTERV: *out = HS__COLL_SCATTER; return 0;
    case HS_TRACE_ALLGATHER: case HS_TRACE_ALLGATHERV: *out = HS__COLL_ALLGATHER; return 0;
    case HS_TRACE_ALLTOALL: case HS_TRACE_ALLTOALLV: case HS_TRACE_ALLTOALLW:
        *out = HS__COLL_ALLTOALL;
        return 0;
    case HS_TRACE_REDUCE: *out = HS__COLL_REDUCE; return 0;
    case HS_TRACE_ALLREDUCE: *out = HS__COLL_ALLREDUCE; return 0;
    case HS_TRACE_REDUCE_SCATTER: case HS_TRACE_REDUCE_SCATTER_BLOCK:
        *out = HS__COLL_REDUCE_SCATTER;
        return 0;
    case HS_TRACE_SCAN: *out = HS__COLL_SCAN; return 0;
    case HS_TRACE_EXSCAN: *out = HS__COLL_EXSCAN; return 0;
    case HS_TRACE_NEIGHBOR_ALLGATHER: case HS_TRACE_NEIGHBOR_ALLGATHERV:
    case HS_TRACE_NEIGHBOR_ALLTOALL: case HS_TRACE_NEIGHBOR_ALLTOALLV:
    case HS_TRACE_NEIGHBOR_ALLTOALLW:
        *out = HS__COLL_NEIGHBOR;
        return 0;
    }
    return HS_EINVAL;
}

/* "allreduce=ring,bcast=binomial" */
int hs__rp_coll_parse(rp *R, const char *spec, hs_error *err)
{
    for (int k = 0; k < HS__COLL_NKINDS; k++)
        R->alg[k] = HS__ALG_AUTO;
    if (!spec || !*spec)
        return 0;
    char *dup = strdup(spec), *save = NULL;
    if (!dup)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    int rc = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            rc = hs_error_set(err, HS_EINVAL, "collective algorithms '%s': '%s' should be "
                              "COLLECTIVE=ALGORITHM", spec, tok);
            break;
        }
        *eq = '\0';
        int kind = -1;
        for (int k = 0; k < HS__COLL_NKINDS; k++)
            if (strcmp(tok, hs__coll_kind_name((hs__coll_kind)k)) == 0)
                kind = k;
        if (kind < 0 || kind == HS__COLL_NEIGHBOR) {
            rc = hs_error_set(err, HS_EINVAL, "collective algorithms: unknown collective '%s' "
                              "(barrier, bcast, reduce, allreduce, allgather, alltoall, "
                              "gather, scatter, reduce_scatter, scan, exscan)", tok);
            break;
        }
        int alg = hs__coll_alg_parse(eq + 1);
        if (alg < 0 || !hs__coll_alg_applies((hs__coll_kind)kind, (hs__coll_alg)alg)) {
            rc = hs_error_set(err, HS_EINVAL, "collective algorithms: '%s' is not an algorithm "
                              "of %s (docs/replay.md lists them)", eq + 1, tok);
            break;
        }
        R->alg[kind] = (uint8_t)alg;
    }
    free(dup);
    return rc;
}

static uint32_t coll_alloc(rp *R)
{
    return hs__rp_pool_take((void **)&R->coll, &R->capcoll, &R->coll_free, sizeof *R->coll,
                            offsetof(rp_coll, next), 256);
}

static void coll_free(rp *R, uint32_t c)
{
    rp_coll *C = &R->coll[c];
    hs__coll_end(&C->it);
    free((void *)C->it.req.out_peers);
    C->it.req.out_peers = NULL;
    C->next = R->coll_free;
    R->coll_free = c;
}

/* Posts the transfers of the next non-empty step, or completes. */
static void advance(rp *R, uint32_t c)
{
    for (;;) {
        rp_coll *C = &R->coll[c];
        hs__coll_step st;
        if (!hs__coll_next(&C->it, &st)) {
            uint32_t tgt = C->tgt;
            coll_free(R, c);
            hs__rp_req_done(R, tgt);
            return;
        }
        if (st.nx == 0)
            continue;
        C->pending = st.nx;
        C->reduce = st.reduce_bytes;
        const rp_job *J = &R->jobs[R->ranks[C->rank].job];
        unsigned base = M_USER | (J->app ? M_APP : 0);
        uint32_t rank = C->rank, comm = C->comm;
        int32_t self = (int32_t)R->ranks[rank].jrank;
        int neigh = C->kind == HS__COLL_NEIGHBOR;
        int64_t tag = C->tag;
        uint16_t ph = C->phase;
        /* The step's transfers live in the iterator until its next step. */
        for (uint32_t i = 0; i < st.nx && !R->error; i++) {
            hs__coll_xfer x = st.x[i];
            int32_t jr = neigh ? x.peer : hs__rp_comm_member(R, comm, x.peer, self);
            uint32_t peer = J->rank0 + (uint32_t)jr;
            if (x.recv) {
                hs__rp_recv(R, rank, peer, comm, tag, TGT_COLL, c);
            } else {
                unsigned mf = base;
                if (J->app && hs__rp_gen_monitored(R, rank, peer))
                    mf |= M_MON;
                hs__rp_send(R, rank, peer, comm, tag, x.bytes, ph, mf, TGT_COLL, c);
            }
        }
        return;
    }
}

void hs__rp_coll_xfer_done(rp *R, uint32_t c)
{
    rp_coll *C = &R->coll[c];
    if (--C->pending)
        return;
    uint64_t red = C->reduce;
    if (red && R->prm->reduce_bw) {
        const rp_job *J = &R->jobs[R->ranks[C->rank].job];
        hs__rp_timer(R, hs_fabric_now(R->F) + hs_ser_time(red, R->prm->reduce_bw), TM_REDUCE, 0,
                     c, J->app, C->rank);
        return;
    }
    advance(R, c);
}

void hs__rp_coll_reduced(rp *R, uint32_t c)
{
    advance(R, c);
}

static int begin(rp *R, uint32_t rank, uint32_t comm, hs__coll_req *q, int32_t me, uint16_t phase,
                 uint32_t gi, void *owned)
{
    uint32_t c = coll_alloc(R);
    if (c == RP_NIL) {
        free(owned);
        return R->error = HS_ENOMEM;
    }
    rp_coll *C = &R->coll[c];
    memset(C, 0, sizeof *C);
    int rc = hs__coll_begin(&C->it, q, me, &R->tuning);
    if (rc) {
        free(owned);
        C->next = R->coll_free;
        R->coll_free = c;
        if (rc == HS_ENOMEM)
            return R->error = rc;
        /* a request the schedules cannot serve (inconsistent sizes in the
         * trace): the collective completes at once */
        R->warnings++;
        hs__rp_req_done(R, gi);
        return 0;
    }
    C->it.req.out_peers = owned;   /* freed with the instance */
    uint64_t key = ((uint64_t)rank << 32 | comm) + 1;
    uint64_t *seq = hs__rp_map_get(&R->coll_seq, key);
    if (!seq) {
        coll_free(R, c);
        return R->error = HS_ENOMEM;
    }
    C->tag = -(int64_t)(COLL_TAG0 + (*seq)++);
    C->rank = rank;
    C->comm = comm;
    C->tgt = gi;
    C->phase = phase;
    C->kind = (uint8_t)q->kind;
    R->req[gi].phase = phase;
    advance(R, c);
    return R->error;
}

int hs__rp_coll_start(rp *R, uint32_t rank, const rp_op *op, uint32_t gi)
{
    hs__coll_kind kind;
    if (hs__rp_coll_kind(op->kind, &kind)) {
        hs__rp_req_done(R, gi);
        return 0;
    }
    const rp_job *J = &R->jobs[R->ranks[rank].job];
    uint16_t phase = J->app ? hs__rp_phase(R, PH_COLL, (int32_t)kind) : J->bg_phase;
    const rp_comm *cm = &R->comms[op->comm];
    int base = op->kind;
    hs_trace_kind_is_coll(op->kind, &base);
    hs__coll_req q;
    memset(&q, 0, sizeof q);
    q.kind = kind;
    q.alg = (hs__coll_alg)R->alg[kind];
    q.n = (int32_t)cm->n;
    q.root = op->peer;
    q.bytes = op->bytes;
    q.elem = (uint32_t)op->bytes2;
    void *owned = NULL;
    const uint64_t *aux = op->naux ? &R->aux[op->aux] : NULL;
    switch (base) {
    case HS_TRACE_GATHERV:
    case HS_TRACE_SCATTERV:
        /* MPICH always runs the v forms linearly; only the root knows
         * every count, the others send or receive their own block. */
        q.alg = HS__ALG_LINEAR;
        if (aux && op->naux == cm->n)
            q.counts = aux;
        break;
    case HS_TRACE_ALLGATHERV:
    case HS_TRACE_REDUCE_SCATTER:
        if (aux && op->naux == cm->n)
            q.counts = aux;
        break;
    case HS_TRACE_ALLTOALLV:
    case HS_TRACE_ALLTOALLW:
        if (aux && op->naux >= cm->n) {
            q.counts = aux;
            q.rcounts = op->naux >= 2 * cm->n ? aux + cm->n : aux;
            if (q.alg == HS__ALG_BRUCK)
                q.alg = HS__ALG_AUTO;
        }
        break;
    default:
        break;
    }
    if (kind == HS__COLL_NEIGHBOR) {
        uint32_t nout = aux ? (uint32_t)aux[0] : 0, nin = aux ? (uint32_t)aux[1] : 0;
        size_t n = (size_t)nout + nin;
        int32_t *peers = malloc((n ? n : 1) * (sizeof(int32_t) + sizeof(uint64_t)));
        if (!peers)
            return R->error = HS_ENOMEM;
        uint64_t *bytes = (uint64_t *)(peers + (n ? n : 1));
        size_t ok = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t pr = (int64_t)aux[2 + 2 * i];
            if (i == nout)
                q.nout = (int32_t)ok;
            if (pr < 0 || pr >= (int64_t)J->nranks)   /* MPI_PROC_NULL neighbours */
                continue;
            peers[ok] = (int32_t)pr;
            bytes[ok] = aux[3 + 2 * i];
            ok++;
        }
        if (nout == n)
            q.nout = (int32_t)ok;
        q.nin = (int32_t)ok - q.nout;
        q.out_peers = peers;
        q.out_bytes = bytes;
        q.in_peers = peers + q.nout;
        q.in_bytes = bytes + q.nout;
        q.alg = HS__ALG_AUTO;
        owned = peers;
    }
    return begin(R, rank, op->comm, &q, op->peer2, phase, gi, owned);
}

int hs__rp_barrier(rp *R, uint32_t rank, uint32_t comm, uint16_t phase, uint32_t gi)
{
    hs__coll_req q;
    memset(&q, 0, sizeof q);
    q.kind = HS__COLL_BARRIER;
    q.alg = HS__ALG_AUTO;
    q.n = (int32_t)R->comms[comm].n;
    int32_t me = hs__rp_comm_rank(R, comm, (int32_t)R->ranks[rank].jrank);
    if (me < 0) {
        hs__rp_req_done(R, gi);
        return 0;
    }
    return begin(R, rank, comm, &q, me, phase, gi, NULL);
}
