/* One-sided communication in the replay (replay.h).
 *
 * Data moves the way RDMA moves it, without the target's CPU and without
 * rendezvous (window memory is registered):
 *   put, accumulate       one transfer origin -> target of the bytes; locally
 *                         complete when it has left the origin's NIC,
 *                         remotely complete when delivered;
 *   get                   a request (a control message) origin -> target,
 *                         the data target -> origin; complete when the data
 *                         is in;
 *   get_accumulate,       the operand origin -> target, the result back;
 *   fetch_and_op, cas     complete when the result is in.
 * The origin learns of remote completion when the data is delivered (the
 * transport's acknowledgement is not modelled as a message).
 *
 * Synchronisation:
 *   fence           the rank's operations on the window complete remotely,
 *                   then a barrier (dissemination) over the window's group;
 *   lock/unlock     a lock request to the target and a grant back
 *                   (exclusive: one holder; shared: any number; waiting
 *                   requests queue at the target in order); unlock waits
 *                   for the rank's operations to the target, then sends the
 *                   release and waits for its acknowledgement;
 *   lock_all        no messages (MPICH and Open MPI take shared locks lazily);
 *   unlock_all, flush, flush_all   wait for remote completion; flush_local*:
 *                   local completion;
 *   post/start/complete/wait (PSCW)  post sends a notice to each origin of
 *                   the group, start waits for the notices of its targets,
 *                   complete waits for its operations then notifies each
 *                   target, wait waits for those notices.
 * Synchronisation traffic belongs to the phase "rma sync". */
#include "replay.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define TAG_POST (-2)
#define TAG_DONE (-3)
enum { RK_LOCK = RMA_NKINDS, RK_UNLOCK };

int hs__rp_win_add(rp *R, uint32_t job, uint64_t id, uint32_t comm, uint32_t *out)
{
    rp_job *J = &R->jobs[job];
    uint64_t *v = hs__rp_map_get(&J->win_ids, id);
    if (!v)
        return HS_ENOMEM;
    if (*v) {
        *out = (uint32_t)(*v - 1);
        return 0;
    }
    if (hs__rp_grow((void **)&R->wins, &R->capwins, (size_t)R->nwins + 1, sizeof *R->wins))
        return HS_ENOMEM;
    uint32_t n = R->comms[comm].n;
    rp_win *W = &R->wins[R->nwins];
    memset(W, 0, sizeof *W);
    W->id = id;
    W->job = job;
    W->comm = comm;
    W->wr = calloc(n ? n : 1, sizeof *W->wr);
    if (!W->wr)
        return HS_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        rp_winrank *w = &W->wr[i];
        w->lq_head = w->lq_tail = w->out_head = w->held = w->waiter = RP_NIL;
    }
    const rp_comm *c = &R->comms[comm];
    int32_t *mem = NULL;
    if (c->members) {
        mem = malloc((size_t)n * sizeof *mem);
        if (!mem)
            return HS_ENOMEM;
        memcpy(mem, c->members, (size_t)n * sizeof *mem);
    }
    uint32_t twin;
    int rc = hs__rp_comm_add(R, job, 0, n, mem, &twin);
    free(mem);
    if (rc)
        return rc;
    R->wins[R->nwins].sync_comm = twin;
    v = hs__rp_map_get(&R->jobs[job].win_ids, id);
    if (!v)
        return HS_ENOMEM;
    *v = R->nwins + 1;
    *out = R->nwins++;
    return 0;
}

/* ---- objects ------------------------------------------------------------------------ */

static uint32_t rma_alloc(rp *R)
{
    return hs__rp_pool_take((void **)&R->rma, &R->caprma, &R->rma_free, sizeof *R->rma,
                            offsetof(rp_rma, next), 1024);
}

static void rma_release(rp *R, uint32_t i)
{
    R->rma[i].next = R->rma_free;
    R->rma_free = i;
}

static void list_push(rp *R, uint32_t *head, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    x->prev = RP_NIL;
    x->next = *head;
    if (*head != RP_NIL)
        R->rma[*head].prev = i;
    *head = i;
}

static void list_unlink(rp *R, uint32_t *head, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    if (x->prev != RP_NIL)
        R->rma[x->prev].next = x->next;
    else
        *head = x->next;
    if (x->next != RP_NIL)
        R->rma[x->next].prev = x->prev;
    x->next = x->prev = RP_NIL;
}

static rp_winrank *origin_wr(rp *R, const rp_rma *x)
{
    return &R->wins[x->win].wr[x->ocr];
}

static void recheck_origin(rp *R, uint32_t win, uint32_t ocr)
{
    uint32_t a = R->wins[win].wr[ocr].waiter;
    if (a != RP_NIL)
        hs__rp_rma_recheck(R, a);
}

static uint16_t rma_phase(rp *R, uint32_t rank, unsigned kind)
{
    const rp_job *J = &R->jobs[R->ranks[rank].job];
    return J->app ? hs__rp_phase(R, PH_RMA, (int32_t)kind) : J->bg_phase;
}

static int leg(rp *R, unsigned lg, uint32_t i, int back, uint64_t bytes)
{
    rp_rma *x = &R->rma[i];
    x->t_leg = hs_fabric_now(R->F);
    return hs__rp_leg(R, lg, i, back ? x->target : x->origin, back ? x->origin : x->target,
                      bytes, x->phase, (x->flags & R_MON) != 0, (x->flags & R_APP) != 0, NULL);
}

/* An operation is complete on both sides: off the outstanding list. */
static void op_finished(rp *R, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    if ((x->flags & (R_NET | R_APP)) == (R_NET | R_APP))
        hs__rp_lat_add(R, x->lat, x->phase);
    uint32_t win = x->win, ocr = x->ocr;
    list_unlink(R, &R->wins[win].wr[ocr].out_head, i);
    rma_release(R, i);
    recheck_origin(R, win, ocr);
}

/* ---- locks at the target ---------------------------------------------------------------- */

static int grantable(const rp_winrank *t, int excl)
{
    return excl ? !t->lock_excl && !t->lock_shared : !t->lock_excl;
}

static void grant(rp *R, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    rp_winrank *t = &R->wins[x->win].wr[x->tcr];
    if (x->flags & R_EXCL)
        t->lock_excl = 1;
    else
        t->lock_shared++;
    leg(R, LEG_GRANT, i, 1, R->prm->ctrl_bytes);
}

static void lock_arrived(rp *R, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    rp_winrank *t = &R->wins[x->win].wr[x->tcr];
    if (t->lq_head == RP_NIL && grantable(t, (x->flags & R_EXCL) != 0)) {
        grant(R, i);
        return;
    }
    x->next = RP_NIL;
    if (t->lq_tail == RP_NIL)
        t->lq_head = i;
    else
        R->rma[t->lq_tail].next = i;
    t->lq_tail = i;
}

static void unlock_arrived(rp *R, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    rp_winrank *t = &R->wins[x->win].wr[x->tcr];
    if (x->flags & R_EXCL)
        t->lock_excl = 0;
    else if (t->lock_shared)
        t->lock_shared--;
    while (t->lq_head != RP_NIL) {
        uint32_t h = t->lq_head;
        if (!grantable(t, (R->rma[h].flags & R_EXCL) != 0))
            break;
        t->lq_head = R->rma[h].next;
        if (t->lq_head == RP_NIL)
            t->lq_tail = RP_NIL;
        grant(R, h);
        t = &R->wins[x->win].wr[x->tcr];
    }
    leg(R, LEG_UNLOCK_ACK, i, 1, R->prm->ctrl_bytes);
}

/* ---- leg events ------------------------------------------------------------------------- */

static void leg_lat(rp *R, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    if (x->flags & R_NET)
        x->lat += hs_fabric_now(R->F) - x->t_leg;
}

void hs__rp_rma_leg_sent(rp *R, unsigned lg, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    if (lg != LEG_RMA_DATA || (x->kind != RMA_PUT && x->kind != RMA_ACC))
        return;
    x->flags |= R_LOCAL;
    if (x->tgt != RP_NIL) {
        uint32_t t = x->tgt;
        x->tgt = RP_NIL;
        hs__rp_req_done(R, t);   /* MPI_Rput / MPI_Raccumulate: local completion */
    }
    x = &R->rma[i];
    recheck_origin(R, x->win, x->ocr);
}

void hs__rp_rma_leg_delivered(rp *R, unsigned lg, uint32_t i)
{
    rp_rma *x = &R->rma[i];
    switch (lg) {
    case LEG_RMA_DATA:
        leg_lat(R, i);
        if (x->kind == RMA_PUT || x->kind == RMA_ACC) {
            x->flags |= R_REMOTE;
            op_finished(R, i);
        } else {
            leg(R, LEG_RMA_RESP, i, 1, x->bytes2);
        }
        break;
    case LEG_RMA_RESP: {
        leg_lat(R, i);
        x = &R->rma[i];
        x->flags |= R_LOCAL | R_REMOTE;
        uint32_t t = x->tgt;
        x->tgt = RP_NIL;
        if (t != RP_NIL)
            hs__rp_req_done(R, t);
        op_finished(R, i);
        break;
    }
    case LEG_LOCK:
        lock_arrived(R, i);
        break;
    case LEG_GRANT: {
        rp_winrank *o = origin_wr(R, x);
        x->flags |= R_REMOTE;   /* granted */
        list_push(R, &o->held, i);
        recheck_origin(R, R->rma[i].win, R->rma[i].ocr);
        break;
    }
    case LEG_UNLOCK:
        unlock_arrived(R, i);
        break;
    case LEG_UNLOCK_ACK: {
        uint32_t win = x->win, ocr = x->ocr;
        x->flags |= R_LOCAL;    /* released */
        recheck_origin(R, win, ocr);
        break;
    }
    }
}

/* ---- origin side ------------------------------------------------------------------------ */

/* 1 when none of the origin's operations (to target, or to all when
 * target is RP_NIL) lacks the completion `flag`. */
static int drained(const rp *R, const rp_winrank *w, uint32_t target, unsigned flag)
{
    for (uint32_t i = w->out_head; i != RP_NIL; i = R->rma[i].next) {
        const rp_rma *x = &R->rma[i];
        if ((target == RP_NIL || x->target == target) && !(x->flags & flag))
            return 0;
    }
    return 1;
}

static int issue_op(rp *R, rp_actor *A, const rp_op *op, uint32_t ocr, uint32_t tcr)
{
    const rp_win *W = &R->wins[op->comm];
    const rp_job *J = &R->jobs[W->job];
    uint32_t i = rma_alloc(R);
    if (i == RP_NIL)
        return R->error = HS_ENOMEM;
    rp_rma *x = &R->rma[i];
    memset(x, 0, sizeof *x);
    x->win = op->comm;
    x->origin = A->rank;
    x->target = J->rank0 + (uint32_t)op->peer;
    x->ocr = ocr;
    x->tcr = tcr;
    x->kind = (uint8_t)op->tag;
    x->bytes = op->bytes;
    x->bytes2 = op->bytes2;
    x->phase = rma_phase(R, A->rank, x->kind);
    x->tgt = RP_NIL;
    if (J->app) {
        x->flags |= R_APP;
        if (op->flags & F_MON)
            x->flags |= R_MON;
        R->app_rma++;
        uint64_t moved = x->bytes + x->bytes2;
        R->app_rma_bytes += moved;
        R->ph[x->phase].messages++;
        R->ph[x->phase].bytes += moved;
        if (x->bytes)
            hs__rp_record_pair(R, 1, R->ranks[x->origin].jrank, R->ranks[x->target].jrank, x->bytes);
        if (x->bytes2)
            hs__rp_record_pair(R, 1, R->ranks[x->target].jrank, R->ranks[x->origin].jrank,
                               x->bytes2);
    } else {
        R->bg_msgs++;
        R->bg_bytes += x->bytes + x->bytes2;
        R->ph[x->phase].messages++;
        R->ph[x->phase].bytes += x->bytes + x->bytes2;
    }
    if (R->ranks[x->origin].node != R->ranks[x->target].node)
        x->flags |= R_NET;
    A->phase = x->phase;
    if (op->slot != RP_NIL) {
        uint32_t gi = R->ranks[A->rank].req0 + op->slot;
        rp_req *q = &R->req[gi];
        q->pending = 1;
        q->waiter = RP_NIL;
        q->phase = x->phase;
        x->tgt = gi;
    }
    list_push(R, &W->wr[ocr].out_head, i);
    uint64_t out = x->kind == RMA_GET ? R->prm->ctrl_bytes : x->bytes;
    return leg(R, LEG_RMA_DATA, i, 0, out);
}

/* Sends a PSCW notice (or receives one into request gi). */
static int notice(rp *R, uint32_t rank, const rp_win *W, int32_t peer, int64_t tag, int recv,
                  uint32_t gi, uint16_t ph)
{
    const rp_job *J = &R->jobs[W->job];
    uint32_t g = J->rank0 + (uint32_t)peer;
    if (recv)
        return hs__rp_recv(R, rank, g, W->sync_comm, tag, TGT_REQ, gi);
    unsigned mf = M_USER | (J->app ? M_APP : 0);
    if (J->app && hs__rp_gen_monitored(R, rank, g))
        mf |= M_MON;
    return hs__rp_send(R, rank, g, W->sync_comm, tag, 0, ph, mf, TGT_NONE, 0);
}

/* Waits (registering the actor) unless cond; 1 = done. */
static int need(rp *R, uint32_t a, rp_winrank *w, int cond, uint8_t kind)
{
    if (cond) {
        if (w->waiter == a)
            w->waiter = RP_NIL;
        return 1;
    }
    w->waiter = a;
    R->actors[a].wait_kind = kind;
    return 0;
}

/* Arms the actor's scratch request for `pending` sub-operations. */
static void scratch_init(rp *R, uint32_t s0, uint32_t pending, uint16_t ph)
{
    R->req[s0].pending = pending;
    R->req[s0].waiter = RP_NIL;
    R->req[s0].phase = ph;
}

/* 1 when the scratch request is complete, else the actor waits on it. */
static int scratch_wait(rp *R, uint32_t a, uint32_t s0)
{
    if (R->req[s0].pending == 0)
        return 1;
    R->req[s0].waiter = a;
    R->actors[a].wait_n = 1;
    R->actors[a].wait_kind = W_REQS;
    return 0;
}

/* Runs the synchronisation call as far as it can go; 1 = finished. */
int hs__rp_rma_poll(rp *R, uint32_t a, const rp_op *op)
{
    rp_actor *A = &R->actors[a];
    rp_win *W = &R->wins[op->comm];
    const rp_job *J = &R->jobs[W->job];
    int32_t me = hs__rp_comm_rank(R, W->comm, (int32_t)R->ranks[A->rank].jrank);
    if (me < 0)
        return 1;
    rp_winrank *w = &W->wr[me];
    uint32_t target = RP_NIL, tcr = RP_NIL;
    if (op->peer >= 0 && (op->code == OP_LOCK || op->code == OP_UNLOCK || op->code == OP_FLUSH ||
                          op->code == OP_FLUSH_LOCAL)) {
        target = J->rank0 + (uint32_t)op->peer;
        tcr = (uint32_t)hs__rp_comm_rank(R, W->comm, op->peer);
    }
    uint16_t ph = rma_phase(R, A->rank, RMA_SYNC);
    uint32_t s0 = R->ranks[A->rank].req0 + A->scratch;
    A->phase = ph;
    switch (op->code) {
    case OP_FLUSH:
    case OP_FLUSH_ALL:
    case OP_UNLOCK_ALL:
        return need(R, a, w, drained(R, w, target, R_REMOTE), W_FLUSH);
    case OP_FLUSH_LOCAL:
    case OP_FLUSH_LOCAL_ALL:
        return need(R, a, w, drained(R, w, target, R_LOCAL), W_FLUSH_LOCAL);
    case OP_LOCK_ALL:
        return 1;
    case OP_FENCE:
        if (A->stage == 0) {
            if (!need(R, a, w, drained(R, w, RP_NIL, R_REMOTE), W_FENCE))
                return 0;
            A->stage = 1;
            scratch_init(R, s0, 1, ph);
            if (hs__rp_barrier(R, A->rank, W->sync_comm, ph, s0))
                return 0;
        }
        return scratch_wait(R, a, s0);
    case OP_LOCK:
        if (A->stage == 0) {
            uint32_t i = rma_alloc(R);
            if (i == RP_NIL) {
                R->error = HS_ENOMEM;
                return 0;
            }
            rp_rma *x = &R->rma[i];
            memset(x, 0, sizeof *x);
            x->win = op->comm;
            x->origin = A->rank;
            x->target = target;
            x->ocr = (uint32_t)me;
            x->tcr = tcr;
            x->kind = RK_LOCK;
            x->phase = ph;
            x->tgt = RP_NIL;
            x->flags = (uint8_t)((op->tag == 1 ? R_EXCL : 0) | (J->app ? R_APP : 0));
            if (J->app && hs__rp_gen_monitored(R, A->rank, target))
                x->flags |= R_MON;
            A->obj = i;
            A->stage = 1;
            leg(R, LEG_LOCK, i, 0, R->prm->ctrl_bytes);
            A = &R->actors[a];
            w = &R->wins[op->comm].wr[me];
        }
        return need(R, a, w, (R->rma[A->obj].flags & R_REMOTE) != 0, W_LOCK);
    case OP_UNLOCK: {
        if (A->stage == 0) {
            if (!need(R, a, w, drained(R, w, target, R_REMOTE), W_UNLOCK))
                return 0;
            uint32_t h = w->held;
            while (h != RP_NIL && R->rma[h].target != target)
                h = R->rma[h].next;
            if (h == RP_NIL)
                return 1;   /* no lock of ours there (lazily taken in the real run) */
            list_unlink(R, &w->held, h);
            R->rma[h].flags &= (uint8_t)~R_LOCAL;
            A->obj = h;
            A->stage = 1;
            leg(R, LEG_UNLOCK, h, 0, R->prm->ctrl_bytes);
            A = &R->actors[a];
            w = &R->wins[op->comm].wr[me];
        }
        if (!need(R, a, w, (R->rma[A->obj].flags & R_LOCAL) != 0, W_UNLOCK))
            return 0;
        rma_release(R, A->obj);
        A->obj = RP_NIL;
        return 1;
    }
    case OP_POST:
        w->post_aux = op->aux;
        w->post_n = op->naux;
        for (uint32_t i = 0; i < op->naux; i++)
            if (notice(R, A->rank, W, (int32_t)R->aux[op->aux + i], TAG_POST, 0, 0, ph))
                return 0;
        return 1;
    case OP_WSTART:
    case OP_WWAIT: {
        int start = op->code == OP_WSTART;
        uint32_t aux = start ? op->aux : w->post_aux, n = start ? op->naux : w->post_n;
        if (start) {
            w->start_aux = op->aux;
            w->start_n = op->naux;
        }
        if (A->stage == 0) {
            A->stage = 1;
            scratch_init(R, s0, n, ph);
            for (uint32_t i = 0; i < n; i++)
                if (notice(R, A->rank, W, (int32_t)R->aux[aux + i], start ? TAG_POST : TAG_DONE,
                           1, s0, ph))
                    return 0;
        }
        return scratch_wait(R, a, s0);
    }
    case OP_COMPLETE:
        if (!need(R, a, w, drained(R, w, RP_NIL, R_REMOTE), W_COMPLETE))
            return 0;
        for (uint32_t i = 0; i < w->start_n; i++)
            if (notice(R, A->rank, W, (int32_t)R->aux[w->start_aux + i], TAG_DONE, 0, 0, ph))
                return 0;
        return 1;
    default:
        return 1;
    }
}

int hs__rp_rma_exec(rp *R, uint32_t a, const rp_op *op)
{
    rp_actor *A = &R->actors[a];
    if (op->code == OP_RMA) {
        const rp_win *W = &R->wins[op->comm];
        int32_t me = hs__rp_comm_rank(R, W->comm, (int32_t)R->ranks[A->rank].jrank);
        int32_t tcr = hs__rp_comm_rank(R, W->comm, op->peer);
        if (me < 0 || tcr < 0)
            return 0;
        return issue_op(R, A, op, (uint32_t)me, (uint32_t)tcr) < 0 ? R->error : 0;
    }
    A->stage = 0;
    A->obj = RP_NIL;
    int done = hs__rp_rma_poll(R, a, op);
    if (R->error)
        return R->error;
    return !done;
}
