/* The replay over MPI processes (hopscope-par simulate -i; docs/fabric.md,
 * "Parallel runs", and docs/replay.md): the placement of the partition by
 * the trace's bytes, and the gathering of the replay's own results at part
 * 0, which writes app.json as the sequential run does.
 *
 * Each process runs the actors of the ranks on its part's nodes; every
 * interaction between ranks goes through the network or a node's timers,
 * so what a process adds to the results is kept apart: its actors' end
 * states and times, its messages and bytes (counted at the sender), its
 * latency samples and per-phase sums (at the receiver), its communication
 * matrix entries.  Part 0 adds them up; the statistics sort their samples
 * and the matrices are written sorted, so the order in which parts are
 * met does not show. */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

int hs__rp_par_balance(rp *R)
{
    double *load = calloc(R->nnodes ? R->nnodes : 1, sizeof *load);
    if (!load)
        return HS_ENOMEM;
    /* a rank's bytes sent and received, from its calls (collectives with
     * the sizes the trace gives), onto its node */
    for (uint32_t a = 0; a < R->nactors; a++) {
        const rp_actor *A = &R->actors[a];
        double b = 0;
        for (uint32_t pc = A->op0; pc < A->op0 + A->nops; pc++)
            b += (double)R->ops[pc].bytes + (double)R->ops[pc].bytes2;
        load[R->ranks[A->rank].node] += b;
    }
    int rc = hs_fabric_partition_balance(R->F, load);
    free(load);
    return rc;
}

/* The leftovers of this process's receivers at global idle: messages that
 * arrived without a receive, and receives whose message never came (every
 * message has arrived by then; the sender's count of sends is another
 * process's, which is why hs__rp_report's count does not serve). */
static void leftovers(const rp *R, uint64_t *us, uint64_t *ur)
{
    *us = *ur = 0;
    for (size_t i = 0; i < R->capmt; i++) {
        const rp_ment *e = &R->mt[i];
        if (e->dst == RP_NIL || R->ranks[e->dst].job != 0 ||
            !hs_fabric_node_local(R->F, R->ranks[e->dst].node))
            continue;
        for (uint32_t m = e->ahead; m != RP_NIL; m = R->msg[m].next)
            ++*us;
        for (uint32_t r = e->rhead; r != RP_NIL; r = R->rcv[r].next)
            ++*ur;
    }
}

/* ---- packing ------------------------------------------------------------------- */

typedef struct pk {
    unsigned char *b;
    size_t n, cap;
    int bad;
} pk;

static void put(pk *p, const void *x, size_t n)
{
    if (p->bad)
        return;
    if (p->n + n > p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 4096;
        while (nc < p->n + n)
            nc *= 2;
        unsigned char *b = realloc(p->b, nc);
        if (!b) {
            p->bad = 1;
            return;
        }
        p->b = b;
        p->cap = nc;
    }
    memcpy(p->b + p->n, x, n);
    p->n += n;
}

static void put64(pk *p, uint64_t v) { put(p, &v, sizeof v); }

typedef struct rd {
    const unsigned char *b, *end;
    int bad;
} rd;

static uint64_t get64(rd *r)
{
    uint64_t v = 0;
    if (r->bad || (size_t)(r->end - r->b) < sizeof v) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->b, sizeof v);
    r->b += sizeof v;
    return v;
}

/* What this process adds to the replay's results. */
static void pack(rp *R, int status, uint64_t warnings0, pk *p)
{
    uint64_t us, ur;
    leftovers(R, &us, &ur);
    put64(p, (uint64_t)(int64_t)status);
    put64(p, R->nph);
    put64(p, us);
    put64(p, ur);
    put64(p, R->unresolved);
    put64(p, R->warnings - warnings0);
    put64(p, R->app_msgs);
    put64(p, R->app_bytes);
    put64(p, R->app_packets);
    put64(p, R->jobs[0].messages);
    put64(p, R->jobs[0].bytes);
    /* the longest injection queue of its application NICs (app.json) */
    uint32_t qmax = 0;
    for (uint32_t r = 0; r < R->jobs[0].nranks; r++) {
        uint32_t node = R->ranks[R->jobs[0].rank0 + r].node;
        uint32_t q = hs_fabric_node_local(R->F, node) ? hs_fabric_nic_queue_max(R->F, node) : 0;
        qmax = q > qmax ? q : qmax;
    }
    put64(p, qmax);
    /* its actors */
    uint64_t na = 0;
    for (uint32_t a = 0; a < R->nactors; a++)
        na += hs_fabric_node_local(R->F, R->ranks[R->actors[a].rank].node);
    put64(p, na);
    for (uint32_t a = 0; a < R->nactors; a++) {
        const rp_actor *A = &R->actors[a];
        if (!hs_fabric_node_local(R->F, R->ranks[A->rank].node))
            continue;
        put64(p, a);
        put64(p, A->state);
        put64(p, A->t_end);
        put64(p, A->compute);
        put64(p, A->comm);
        put64(p, A->pc);
    }
    for (uint32_t i = 0; i < R->nph; i++) {
        const rp_phase *ph = &R->ph[i];
        put64(p, ph->messages);
        put64(p, ph->bytes);
        put64(p, ph->time_ps);
        put64(p, ph->lat_n);
        put64(p, ph->lat_sum);
    }
    put64(p, R->lat.seen);
    put64(p, R->lat.sum);
    put64(p, R->lat.n);
    for (size_t i = 0; i < R->lat.n; i++) {
        put64(p, R->lat.v[i]);
        put64(p, R->lat.ph[i]);
    }
    put64(p, R->pairs.n);
    for (size_t i = 0; i < R->pairs.n; i++) {
        put64(p, R->pairs.key[i]);
        put64(p, R->pairs.bytes[i]);
        put64(p, R->pairs.msgs[i]);
    }
}

/* Adds one part's pack to part 0's results; a negative status. */
static int merge(rp *R, rd *r, int *status, uint64_t *us, uint64_t *ur)
{
    int st = (int)(int64_t)get64(r);
    if (st && !*status)
        *status = st;
    if (get64(r) != R->nph)
        return HS_EFORMAT;
    *us += get64(r);
    *ur += get64(r);
    R->unresolved += get64(r);
    R->warnings += get64(r);
    R->app_msgs += get64(r);
    R->app_bytes += get64(r);
    R->app_packets += get64(r);
    R->jobs[0].messages += get64(r);
    R->jobs[0].bytes += get64(r);
    uint64_t qmax = get64(r);
    if (qmax > R->par_qmax)
        R->par_qmax = (uint32_t)qmax;
    uint64_t na = get64(r);
    for (uint64_t i = 0; i < na && !r->bad; i++) {
        uint64_t a = get64(r);
        if (a >= R->nactors)
            return HS_EFORMAT;
        rp_actor *A = &R->actors[a];
        A->state = (uint8_t)get64(r);
        A->t_end = get64(r);
        A->compute = get64(r);
        A->comm = get64(r);
        A->pc = (uint32_t)get64(r);
        if (A->app && A->state == A_DONE)
            R->app_done++;
    }
    for (uint32_t i = 0; i < R->nph; i++) {
        rp_phase *ph = &R->ph[i];
        ph->messages += get64(r);
        ph->bytes += get64(r);
        ph->time_ps += get64(r);
        ph->lat_n += get64(r);
        ph->lat_sum += get64(r);
    }
    rp_lat *L = &R->lat;
    L->seen += get64(r);
    L->sum += get64(r);
    uint64_t n = get64(r);
    if (r->bad || n > (uint64_t)(r->end - r->b) / 16)
        return HS_EFORMAT;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = get64(r), ph = get64(r);
        if (L->n == L->cap) {
            size_t nc = L->cap ? 2 * L->cap : 65536;
            uint64_t *vv = realloc(L->v, nc * sizeof *vv);
            if (vv)
                L->v = vv;
            uint16_t *pp = realloc(L->ph, nc * sizeof *pp);
            if (pp)
                L->ph = pp;
            if (!vv || !pp)
                return HS_ENOMEM;
            L->cap = nc;
        }
        L->v[L->n] = v;
        L->ph[L->n] = (uint16_t)ph;
        L->n++;
    }
    uint64_t np = get64(r);
    for (uint64_t i = 0; i < np && !r->bad; i++) {
        uint64_t key = get64(r), bytes = get64(r), msgs = get64(r);
        if (r->bad || msgs == 0)
            return HS_EFORMAT;
        hs__rp_record_pair(R, 0, (uint32_t)(key >> 32), (uint32_t)key, bytes);
        if (R->error)
            return R->error;
        uint64_t *v = hs__rp_map_find(&R->pairs.map, key + 1);
        if (!v)
            return HS_EFORMAT;
        R->pairs.msgs[*v - 1] += msgs - 1;
    }
    return r->bad ? HS_EFORMAT : 0;
}

int hs__rp_par_gather(rp *R, const hs_fabric_transport *tr, int status, uint64_t warnings0,
                      uint64_t *us, uint64_t *ur)
{
    unsigned np = hs_fabric_nparts(R->F), me = hs_fabric_part(R->F);
    pk p = { NULL, 0, 0, 0 };
    if (me != 0)
        pack(R, status, warnings0, &p);
    const void **out = calloc(np, sizeof *out);
    size_t *outlen = calloc(np, sizeof *outlen);
    if (!out || !outlen) {
        /* the others would wait in the exchange for ever: end the job */
        free(out);
        free(outlen);
        free(p.b);
        return HS_ENOMEM;
    }
    if (p.bad) {
        /* nothing to send: part 0 counts one part short, which fails the run */
        p.n = 0;
        if (!status)
            status = HS_ENOMEM;
    }
    out[0] = p.b;
    outlen[0] = me != 0 ? p.n : 0;
    const void *in = NULL;
    size_t inlen = 0;
    int rc = tr->exchange(tr->ctx, out, outlen, &in, &inlen);
    free(out);
    free(outlen);
    free(p.b);
    if (rc)
        return rc;
    if (me != 0)
        return status;
    /* part 0: its own leftovers, then every other part's pack, in part
     * order (every pack starts with its length's worth of fields: the
     * parts' packs follow each other in the buffer) */
    leftovers(R, us, ur);
    R->app_done = 0;
    for (uint32_t a = 0; a < R->nactors; a++)
        R->app_done += R->actors[a].app && R->actors[a].state == A_DONE &&
                       hs_fabric_node_local(R->F, R->ranks[R->actors[a].rank].node);
    rd r = { in, (const unsigned char *)in + inlen, 0 };
    unsigned got = 0;
    while (r.b < r.end && !status) {
        int mrc = merge(R, &r, &status, us, ur);
        if (mrc && !status)
            status = mrc;
        got++;
    }
    if (!status && got != np - 1)
        status = HS_ECHILD;   /* a part sent nothing: it failed */
    return status;
}
