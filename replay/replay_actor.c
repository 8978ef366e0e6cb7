/* The actors of the replay: one per thread of each rank, each running its
 * ops in order (replay.h).
 *
 * An op first spends its computation gap (a timer), then the MPI call's
 * CPU overhead if one is configured (a timer, counted as time in MPI), then
 * issues the call.  A call that must wait parks the actor on its requests:
 * each request counts its outstanding sub-operations and, when the last
 * completes, releases its waiter; an actor whose last awaited request
 * completes is queued and resumed after the current event.  Time inside a
 * call goes to the call's phase: the message's tag, the collective's kind,
 * the RMA kind; for Wait* calls, the phase of the request that completed
 * last, the one the rank was really waiting for. */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

void hs__rp_actor_ready(rp *R, uint32_t a)
{
    rp_actor *A = &R->actors[a];
    if (A->queued || A->state == A_DONE)
        return;
    A->queued = 1;
    A->next = RP_NIL;
    if (R->ready_tail == RP_NIL)
        R->ready_head = a;
    else
        R->actors[R->ready_tail].next = a;
    R->ready_tail = a;
}

void hs__rp_wake(rp *R, uint32_t a)
{
    rp_actor *A = &R->actors[a];
    if (A->state == A_COMPUTE || A->state == A_OVERHEAD) {
        A->state = A_READY;
        hs__rp_actor_ready(R, a);
    }
}

static uint32_t gslot(const rp *R, const rp_actor *A, uint32_t slot)
{
    return R->ranks[A->rank].req0 + slot;
}

static void req_init(rp *R, uint32_t gi, uint32_t pending, uint16_t phase)
{
    rp_req *q = &R->req[gi];
    q->pending = pending;
    q->waiter = RP_NIL;
    q->phase = phase;
    q->t_done = hs_fabric_now(R->F);
}

void hs__rp_req_done(rp *R, uint32_t gi)
{
    rp_req *q = &R->req[gi];
    if (q->pending == 0)
        return;
    if (--q->pending)
        return;
    q->t_done = hs_fabric_now(R->F);
    uint32_t w = q->waiter;
    if (w == RP_NIL)
        return;
    q->waiter = RP_NIL;
    rp_actor *A = &R->actors[w];
    A->phase = q->phase;
    if (A->wait_n && --A->wait_n == 0)
        hs__rp_actor_ready(R, w);
}

/* 1 if the actor has to wait for request gi. */
static int wait_on(rp *R, uint32_t a, uint32_t gi)
{
    rp_req *q = &R->req[gi];
    rp_actor *A = &R->actors[a];
    if (q->pending == 0) {
        A->phase = q->phase;
        return 0;
    }
    q->waiter = a;
    A->wait_n++;
    A->wait_kind = W_REQS;
    return 1;
}

static uint16_t tag_phase(rp *R, const rp_job *J, int32_t tag)
{
    return J->app ? hs__rp_phase(R, PH_TAG, tag) : J->bg_phase;
}

static unsigned msg_flags(const rp_job *J, unsigned opflags)
{
    unsigned f = M_USER;
    if (J->app) {
        f |= M_APP;
        if (opflags & F_MON)
            f |= M_MON;
    }
    if (opflags & F_SYNC)
        f |= M_SYNC;
    return f;
}

static int issue_send(rp *R, const rp_actor *A, uint32_t comm, int32_t peer, int32_t tag,
                      uint64_t bytes, unsigned opflags, uint32_t gi, uint16_t phase)
{
    const rp_job *J = &R->jobs[R->ranks[A->rank].job];
    uint32_t dst = J->rank0 + (uint32_t)peer;
    unsigned mf = msg_flags(J, opflags);
    if (opflags & F_BUFFERED) {
        /* MPI_Bsend: done once copied into the attached buffer; the message
         * then goes on its own */
        if (hs__rp_timer(R, hs_fabric_now(R->F) + hs__rp_copy_time(R, bytes), TM_BSEND, 0, gi,
                         J->app, A->rank))
            return R->error;
        return hs__rp_send(R, A->rank, dst, comm, tag, bytes, phase, mf & ~(unsigned)M_SYNC,
                           TGT_NONE, 0);
    }
    return hs__rp_send(R, A->rank, dst, comm, tag, bytes, phase, mf, TGT_REQ, gi);
}

static int issue_recv(rp *R, const rp_actor *A, uint32_t comm, int32_t peer, int32_t tag,
                      uint32_t gi)
{
    const rp_job *J = &R->jobs[R->ranks[A->rank].job];
    return hs__rp_recv(R, A->rank, J->rank0 + (uint32_t)peer, comm, tag, TGT_REQ, gi);
}

static void unresolved(rp *R)
{
    R->unresolved++;
}

/* Issues op for actor a: 1 = the actor waits, 0 = the call is done, < 0 error. */
static int exec(rp *R, uint32_t a, const rp_op *op)
{
    rp_actor *A = &R->actors[a];
    const rp_job *J = &R->jobs[R->ranks[A->rank].job];
    uint32_t s0 = gslot(R, A, A->scratch), s1 = s0 + 1;
    uint32_t gi = op->slot != RP_NIL ? gslot(R, A, op->slot) : s0;
    int rc = 0, wait = 0;
    switch (op->code) {
    case OP_SEND: {
        uint16_t ph = tag_phase(R, J, op->tag);
        A->phase = ph;
        req_init(R, s0, 1, ph);
        if ((rc = issue_send(R, A, op->comm, op->peer, op->tag, op->bytes, op->flags, s0, ph)))
            return rc;
        return wait_on(R, a, s0);
    }
    case OP_ISEND: {
        uint16_t ph = tag_phase(R, J, op->tag);
        A->phase = ph;
        if (op->flags & (F_NULLPEER | F_CANCELLED)) {
            req_init(R, gi, 0, ph);
            return 0;
        }
        req_init(R, gi, 1, ph);
        return issue_send(R, A, op->comm, op->peer, op->tag, op->bytes, op->flags, gi, ph);
    }
    case OP_PSEND:
    case OP_PRECV:
        req_init(R, gi, 0, op->peer >= 0 && op->tag >= 0 ? tag_phase(R, J, op->tag) : 0);
        R->req[gi].persistent = 1;
        R->req[gi].op = A->pc;
        return 0;
    case OP_RECV: {
        uint16_t ph = tag_phase(R, J, op->tag);
        A->phase = ph;
        req_init(R, s0, 1, ph);
        if ((rc = issue_recv(R, A, op->comm, op->peer, op->tag, s0)))
            return rc;
        return wait_on(R, a, s0);
    }
    case OP_IRECV: {
        if (op->flags & (F_NULLPEER | F_CANCELLED | F_UNRESOLVED)) {
            if ((op->flags & F_UNRESOLVED) && !(op->flags & (F_NULLPEER | F_CANCELLED)))
                unresolved(R);
            req_init(R, gi, 0, A->phase);
            return 0;
        }
        uint16_t ph = tag_phase(R, J, op->tag);
        A->phase = ph;
        req_init(R, gi, 1, ph);
        return issue_recv(R, A, op->comm, op->peer, op->tag, gi);
    }
    case OP_SENDRECV: {
        uint16_t ph = tag_phase(R, J, (op->flags & F_NOSEND) ? op->tag2 : op->tag);
        A->phase = ph;
        req_init(R, s0, !(op->flags & F_NOSEND), ph);
        req_init(R, s1, !(op->flags & F_NORECV), ph);
        if (!(op->flags & F_NORECV) &&
            (rc = issue_recv(R, A, op->comm, op->peer2, op->tag2, s1)))
            return rc;
        if (!(op->flags & F_NOSEND) &&
            (rc = issue_send(R, A, op->comm, op->peer, op->tag, op->bytes, op->flags, s0, ph)))
            return rc;
        wait = wait_on(R, a, s0);
        wait |= wait_on(R, a, s1);
        return wait;
    }
    case OP_ISENDRECV: {
        int recv = !(op->flags & (F_NORECV | F_UNRESOLVED | F_CANCELLED));
        int send = !(op->flags & F_NOSEND);
        if ((op->flags & F_UNRESOLVED) && !(op->flags & (F_NORECV | F_CANCELLED)))
            unresolved(R);
        uint16_t ph = tag_phase(R, J, send ? op->tag : op->tag2);
        A->phase = ph;
        req_init(R, gi, (uint32_t)(recv + send), ph);
        if (recv && (rc = issue_recv(R, A, op->comm, op->peer2, op->tag2, gi)))
            return rc;
        if (send)
            rc = issue_send(R, A, op->comm, op->peer, op->tag, op->bytes, op->flags, gi, ph);
        return rc;
    }
    case OP_PROBE: {
        A->phase = tag_phase(R, J, op->tag);
        rc = hs__rp_probe(R, a, A->rank, J->rank0 + (uint32_t)op->peer, op->comm, op->tag);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            A->wait_kind = W_PROBE;
            return 1;
        }
        return 0;
    }
    case OP_START:
        for (uint32_t i = 0; i < op->naux; i++) {
            const uint64_t *w = &R->aux[op->aux + 2 * i];
            uint32_t slot = (uint32_t)w[0], g = gslot(R, A, slot);
            unsigned fl = (unsigned)(w[0] >> 32);
            rp_req *q = &R->req[g];
            if (!q->persistent || q->op == RP_NIL)
                continue;
            const rp_op *init = &R->ops[q->op];
            uint16_t ph;
            if (init->code == OP_PSEND) {
                ph = tag_phase(R, J, init->tag);
                if (init->flags & F_NULLPEER) {
                    req_init(R, g, 0, ph);
                    continue;
                }
                req_init(R, g, 1, ph);
                R->req[g].persistent = 1;
                rc = issue_send(R, A, init->comm, init->peer, init->tag, init->bytes,
                                (init->flags & ~(unsigned)F_MON) | (fl & F_MON), g, ph);
            } else {
                int32_t src = (int32_t)(w[1] >> 32), tag = (int32_t)(uint32_t)w[1];
                if (init->flags & F_NULLPEER || fl & (F_UNRESOLVED | F_CANCELLED)) {
                    if ((fl & F_UNRESOLVED) && !(fl & F_CANCELLED) && !(init->flags & F_NULLPEER))
                        unresolved(R);
                    req_init(R, g, 0, R->req[g].phase);
                    continue;
                }
                ph = tag_phase(R, J, tag);
                req_init(R, g, 1, ph);
                rc = issue_recv(R, A, init->comm, src, tag, g);
            }
            R->req[g].persistent = 1;
            A->phase = ph;
            if (rc)
                return rc;
        }
        return 0;
    case OP_WAIT:
        for (uint32_t i = 0; i < op->naux; i++)
            wait |= wait_on(R, a, gslot(R, A, (uint32_t)R->aux[op->aux + i]));
        return wait;
    case OP_COLL:
        req_init(R, gi, 1, 0);
        if ((rc = hs__rp_coll_start(R, A->rank, op, gi)))
            return rc;
        A->phase = R->req[gi].phase;
        if (op->slot != RP_NIL)
            return 0;
        return wait_on(R, a, gi);
    default:
        return hs__rp_rma_exec(R, a, op);
    }
}

static void finish_call(rp *R, rp_actor *A)
{
    hs_time now = hs_fabric_now(R->F), dt = now - A->t_call;
    A->comm += dt;
    if (A->app && A->phase < R->nph)
        R->ph[A->phase].time_ps += dt;
    A->pc++;
    A->gap_done = 0;
    A->stage = 0;
    A->wait_kind = 0;
    A->state = A_READY;
}

static void run(rp *R, uint32_t a)
{
    rp_actor *A = &R->actors[a];
    const rp_job *J = &R->jobs[R->ranks[A->rank].job];
    hs_time ovh = R->prm->call_overhead;
    if (A->state == A_BLOCKED)
        finish_call(R, A);
    while (!R->stop && !R->error) {
        const rp_op *op = &R->ops[A->pc];
        if (A->gap_done == 0) {
            A->gap_done = 1;
            if (op->gap) {
                A->compute += op->gap;
                A->state = A_COMPUTE;
                hs__rp_timer(R, hs_fabric_now(R->F) + op->gap, TM_WAKE, 0, a, A->app, A->rank);
                return;
            }
        }
        if (A->gap_done == 1) {
            A->gap_done = 2;
            A->t_call = hs_fabric_now(R->F);
            A->phase = 0xffff;
            if (ovh && op->code != OP_END) {
                A->state = A_OVERHEAD;
                hs__rp_timer(R, A->t_call + ovh, TM_OVERHEAD, 0, a, A->app, A->rank);
                return;
            }
        }
        A->state = A_READY;
        if (op->code == OP_END) {
            hs_time now = hs_fabric_now(R->F);
            if (J->loop && now > A->t_loop) {
                A->t_loop = now;
                A->pc = A->op0;
                A->gap_done = 0;
                continue;
            }
            A->t_end = now;
            A->state = A_DONE;
            if (A->app)
                R->app_done++;
            return;
        }
        int rc = exec(R, a, op);
        A = &R->actors[a];
        if (rc < 0) {
            if (!R->error)
                R->error = rc;
            return;
        }
        if (rc == 1) {
            A->state = A_BLOCKED;
            return;
        }
        finish_call(R, A);
    }
}

void hs__rp_rma_recheck(rp *R, uint32_t a)
{
    rp_actor *A = &R->actors[a];
    if (A->state != A_BLOCKED || A->queued || A->wait_kind == W_REQS || A->wait_kind == W_PROBE)
        return;
    if (hs__rp_rma_poll(R, a, &R->ops[A->pc]))
        hs__rp_actor_ready(R, a);
}

void hs__rp_check_end(rp *R)
{
    /* a part of a parallel run sees only its own ranks: the end is global
     * idle, and whether every rank finished is gathered then */
    if (R->stop || R->par)
        return;
    if (R->app_pending == 0 && R->ready_head == RP_NIL) {
        if (R->app_done == R->app_actors)
            R->finished = 1;
        else
            R->deadlock = 1;
        R->stop = 1;
        /* without a background the network drains first (the end rule,
         * docs/replay.md): only credits and the last packets' own events
         * follow, and a partitioned run can honour "until idle" exactly */
        if (!R->to_idle)
            hs_fabric_stop(R->F);   /* a no-op outside hs_fabric_run */
    }
}

void hs__rp_drain(rp *R)
{
    if (R->draining)
        return;
    R->draining = 1;
    while (R->ready_head != RP_NIL && !R->error) {
        uint32_t a = R->ready_head;
        rp_actor *A = &R->actors[a];
        R->ready_head = A->next;
        if (R->ready_head == RP_NIL)
            R->ready_tail = RP_NIL;
        A->next = RP_NIL;
        A->queued = 0;
        run(R, a);
    }
    R->draining = 0;
    if (R->error) {
        R->stop = 1;
        hs_fabric_stop(R->F);   /* a no-op outside hs_fabric_run */
        return;
    }
    hs__rp_check_end(R);
}

/* Phase ids before the run (docs/replay.md, "Phases"): the phases of the
 * application's point-to-point tags and collective kinds, numbered by a
 * scan of the actors' programs (actor by actor, each in program order)
 * that calls hs__rp_phase for exactly the operations whose issue would
 * (exec above).  The ids then do not depend on the order in which the
 * calls run, which a partitioned run could not reproduce (packets carry
 * the ids); the "other tags" overflow is decided in the same scan.  RMA
 * phases are still numbered when first used (RMA runs only sequentially). */
int hs__rp_phases_prepass(rp *R)
{
    rp_map slot_op;
    if (hs__rp_map_init(&slot_op, 64))
        return HS_ENOMEM;
    for (uint32_t a = 0; a < R->nactors && !R->error; a++) {
        const rp_actor *A = &R->actors[a];
        const rp_job *J = &R->jobs[R->ranks[A->rank].job];
        if (!J->app)
            continue;
        slot_op.n = 0;
        memset(slot_op.k, 0, slot_op.cap * sizeof *slot_op.k);
        for (uint32_t pc = A->op0; pc < A->op0 + A->nops && !R->error; pc++) {
            const rp_op *op = &R->ops[pc];
            switch (op->code) {
            case OP_SEND:
            case OP_ISEND:
            case OP_RECV:
            case OP_PROBE:
                tag_phase(R, J, op->tag);
                break;
            case OP_IRECV:
                if (!(op->flags & (F_NULLPEER | F_CANCELLED | F_UNRESOLVED)))
                    tag_phase(R, J, op->tag);
                break;
            case OP_PSEND:
            case OP_PRECV: {
                if (op->peer >= 0 && op->tag >= 0)
                    tag_phase(R, J, op->tag);
                uint64_t *v = op->slot != RP_NIL ? hs__rp_map_get(&slot_op, (uint64_t)op->slot + 1)
                                                 : NULL;
                if (op->slot != RP_NIL && !v) {
                    hs__rp_map_free(&slot_op);
                    return HS_ENOMEM;
                }
                if (v)
                    *v = (uint64_t)pc + 1;
                break;
            }
            case OP_SENDRECV:
                tag_phase(R, J, (op->flags & F_NOSEND) ? op->tag2 : op->tag);
                break;
            case OP_ISENDRECV:
                tag_phase(R, J, !(op->flags & F_NOSEND) ? op->tag : op->tag2);
                break;
            case OP_START:
                for (uint32_t i = 0; i < op->naux; i++) {
                    const uint64_t *w = &R->aux[op->aux + 2 * i];
                    unsigned fl = (unsigned)(w[0] >> 32);
                    uint64_t *v = hs__rp_map_find(&slot_op, (uint64_t)(uint32_t)w[0] + 1);
                    if (!v || !*v)
                        continue;
                    const rp_op *init = &R->ops[*v - 1];
                    if (init->code == OP_PSEND)
                        tag_phase(R, J, init->tag);
                    else if (!(init->flags & F_NULLPEER || fl & (F_UNRESOLVED | F_CANCELLED)))
                        tag_phase(R, J, (int32_t)(uint32_t)w[1]);
                }
                break;
            case OP_COLL: {
                hs__coll_kind kind;
                if (!hs__rp_coll_kind(op->kind, &kind))
                    hs__rp_phase(R, PH_COLL, (int32_t)kind);
                break;
            }
            default:
                break;
            }
        }
    }
    hs__rp_map_free(&slot_op);
    return R->error;
}
