/* wire_check DIR: checks a trace recorded with `hopscope record --wire`
 * against its MPI level (tests/integration/wire.sh).
 *
 *  - every MPI point-to-point send (send, bsend, ssend, rsend, isend ...,
 *    sendrecv) to a rank other than itself has, on the same thread and within
 *    the call, a UCX tag send of exactly its size to the same world rank
 *    (UCP sends the MPI message as one tagged message: the size is exact,
 *    and the endpoint-to-rank mapping is checked pair by pair);
 *  - per pair, the bytes below MPI are at least the MPI payload;
 *  - per collective group, bcast and allreduce move at least (P - 1) x n
 *    bytes per call and alltoall at least (P - 1) x its per-rank bytes;
 *  - every endpoint maps to a rank.
 * wire_check --btl DIR: two-sided traffic through an Open MPI BTL (pml ob1
 * over btl ofi), where an MPI message is not one tagged message: each send
 * has within its call a tag send to the same world rank of the payload plus
 * a header of at most 64 bytes (eager), or of a header alone of at most 128
 * bytes (rendezvous, payload > 128 B); and each MPI_Recv with an RDMA get
 * within its call (ob1's RGET protocol: the receiver reads the payload)
 * reads exactly the message's size from its source's rank.
 * Prints one "key value" line per count and exits 1 on any violation. */
#include "hopscope/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct op {
    int64_t t;
    int32_t peer;
    uint16_t thread;
    int get;
    uint64_t bytes;
} op;

/* --btl: a tag send of w bytes carries an MPI message of n bytes */
static int btl_carries(uint64_t w, uint64_t n)
{
    return (w >= n && w <= n + 64) || (n > 128 && w <= 128);
}

static int is_send(int k)
{
    return (k >= HS_TRACE_SEND && k <= HS_TRACE_IRSEND) || k == HS_TRACE_SENDRECV ||
           k == HS_TRACE_SENDRECV_REPLACE;
}

int main(int argc, char **argv)
{
    int btl = argc == 3 && strcmp(argv[1], "--btl") == 0;
    if (argc != 2 + btl) {
        fprintf(stderr, "usage: wire_check [--btl] DIR\n");
        return 2;
    }
    hs_error err;
    hs_trace *t;
    if (hs_trace_open(argv[1 + btl], &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    uint64_t sends = 0, exact = 0, wrong_peer = 0, unmatched = 0, eps = 0, eps_unknown = 0;
    uint64_t get_recvs = 0, get_exact = 0;
    for (uint32_t r = 0; r < m->nranks; r++) {
        hs_trace_cursor *c;
        if (hs_trace_wire_open(t, r, &c, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        op *ops = NULL;
        size_t n = 0, cap = 0;
        hs_trace_event ev;
        int rc;
        while ((rc = hs_trace_next(c, &ev, &err)) == 1) {
            if (ev.kind == HS_TRACE_WIRE_EP) {
                eps++;
                eps_unknown += ev.peer < 0;
            }
            if (ev.kind != HS_TRACE_WIRE_OP ||
                (ev.tag2 != HS_TRACE_WOP_TAG_SEND && ev.tag2 != HS_TRACE_WOP_TAG_SSEND &&
                 ev.tag2 != HS_TRACE_WOP_GET))
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                ops = realloc(ops, cap * sizeof *ops);
                if (!ops)
                    return 2;
            }
            ops[n++] = (op){ ev.t_start, ev.peer, ev.thread, ev.tag2 == HS_TRACE_WOP_GET,
                             ev.bytes };
        }
        hs_trace_cursor_close(c);
        if (rc < 0) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        if (hs_trace_cursor_open(t, r, &c, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        size_t lo = 0;   /* ops are in start order, as are the MPI events */
        while ((rc = hs_trace_next(c, &ev, &err)) == 1) {
            if (btl && ev.kind == HS_TRACE_RECV && ev.peer >= 0 && ev.peer != (int32_t)r &&
                !(ev.flags & HS_TRACE_F_ERROR)) {
                while (lo < n && ops[lo].t < ev.t_start)
                    lo++;
                int got = 0, right = 0;
                for (size_t i = lo; i < n && ops[i].t <= ev.t_end; i++)
                    if (ops[i].get && ops[i].thread == ev.thread) {
                        got = 1;
                        right |= ops[i].peer == ev.peer && ops[i].bytes == ev.bytes;
                    }
                get_recvs += got;
                get_exact += right;
                continue;
            }
            if (!is_send(ev.kind) || ev.peer < 0 || ev.peer == (int32_t)r ||
                (ev.flags & HS_TRACE_F_ERROR))
                continue;
            sends++;
            while (lo < n && ops[lo].t < ev.t_start)
                lo++;
            int found = 0, other = 0;
            for (size_t i = lo; i < n && ops[i].t <= ev.t_end; i++) {
                if (ops[i].thread != ev.thread || ops[i].get ||
                    (btl ? !btl_carries(ops[i].bytes, ev.bytes) : ops[i].bytes != ev.bytes))
                    continue;
                if (ops[i].peer == ev.peer)
                    found = 1;
                else
                    other = 1;
            }
            if (found)
                exact++;
            else if (other)
                wrong_peer++;
            else if (++unmatched <= 5)
                printf("unmatched: rank %u %s of %" PRIu64 " B to %d (tag %d) at %" PRId64 " ns\n",
                       r, hs_trace_kind_name(ev.kind), ev.bytes, ev.peer, ev.tag, ev.t_start);
        }
        hs_trace_cursor_close(c);
        free(ops);
        if (rc < 0) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
    }
    hs_trace_wire_stats *s;
    if (hs_trace_wire_stats_compute(t, &s, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    uint64_t below = 0, coll_low = 0, colls = 0;
    for (size_t i = 0; i < s->npairs; i++)
        if (s->pairs[i].wire_bytes < s->pairs[i].mpi_bytes) {
            below++;
            printf("pair %u -> %u: wire %" PRIu64 " < MPI %" PRIu64 "\n", s->pairs[i].src,
                   s->pairs[i].dst, s->pairs[i].wire_bytes, s->pairs[i].mpi_bytes);
        }
    for (size_t i = 0; i < s->ncolls; i++) {
        const hs_trace_wire_coll *g = &s->colls[i];
        uint64_t need = 0;
        if (g->ranks < 2 || g->partial)
            continue;
        if (g->kind == HS_TRACE_BCAST || g->kind == HS_TRACE_ALLREDUCE ||
            g->kind == HS_TRACE_ALLTOALL)
            need = g->calls * (g->ranks - 1) * g->bytes;
        else
            continue;
        colls++;
        if (g->wire_bytes < need) {
            coll_low++;
            printf("%s %" PRIu64 " B on %u ranks: wire %" PRIu64 " < %" PRIu64 "\n",
                   hs_trace_kind_name(g->kind), g->bytes, g->ranks, g->wire_bytes, need);
        }
    }
    printf("sends %" PRIu64 "\nexact %" PRIu64 "\nwrong_peer %" PRIu64 "\nunmatched %" PRIu64
           "\npairs %zu\nbelow_mpi %" PRIu64 "\ncollective_groups %" PRIu64
           "\ncollective_low %" PRIu64 "\nendpoints %" PRIu64 "\nendpoints_unknown %" PRIu64
           "\n",
           sends, exact, wrong_peer, unmatched, s->npairs, below, colls, coll_low, eps,
           eps_unknown);
    if (btl)
        printf("get_recvs %" PRIu64 "\nget_exact %" PRIu64 "\n", get_recvs, get_exact);
    /* under --btl the collectives' payload moves by gets the receivers
     * initiate, which the per-group figure (bytes the members initiated
     * toward others) does not count: not checked */
    int bad = wrong_peer || unmatched || below || (!btl && coll_low) || eps_unknown ||
              sends == 0 || get_exact != get_recvs;
    hs_trace_wire_stats_free(s);
    hs_trace_close(t);
    return bad;
}
