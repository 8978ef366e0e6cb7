/* replay/replay_wire.c — `hopscope simulate --wire`: replays the transfers
 * a trace recorded below MPI (record --wire) instead of modelling the MPI
 * calls with the replay's own protocols and collective algorithms.
 *
 * Model (docs/replay.md, "Wire-level replay"):
 *   - Each rank's wire operations run in their recorded post order (the
 *     threads of a rank merged).  An operation's dependencies are the
 *     operations of the same rank whose completion was recorded between the
 *     previous post and its own: the rank waited for them.  It is issued at
 *     max(issue of the previous one, each dependency's simulated completion
 *     + the recorded time from that completion to its post); without
 *     dependencies, at the previous issue + the recorded time between the
 *     two posts (computation and library time, unscaled).
 *   - Tag sends UCX made by rendezvous (the protocol the completion
 *     reports, record --wire) are a request to send (--ctrl-bytes) to the
 *     receiver; once it arrived and the matched receive is posted, an
 *     answer back (RTR, or the get request), then the data; a get is
 *     acknowledged back to the sender, which completes then (a put: at the
 *     data's arrival).
 *   - Other data-out operations (tag sends, puts, active messages, atomics)
 *     are one network message of their bytes to the peer's node; gets and
 *     fetching atomics a control message there and their bytes back.  A
 *     tag receive completes when it was posted and the send it matched has
 *     arrived; sends are matched to receives at load time by (destination,
 *     UCX tag of the completion, size) in post order, so the library's own
 *     matching is kept.  A flush completes when the rank's earlier implicit
 *     operations have.  Between ranks on one node a transfer takes the
 *     shared-memory latency plus a copy at memory bandwidth.
 *   - Local reductions, as the MPI model charges them (--reduce-bw): a tag
 *     receive posted inside a blocking reduction collective (allreduce,
 *     reduce, reduce_scatter(_block), scan, exscan: the rank file's call in
 *     progress on the same thread) is reduced when it is of the rank's whole
 *     contribution n, or, for smaller pieces, while the call's reduced
 *     pieces stay within n (P-1)/P (the reduce-scatter half of ring and
 *     recursive-halving algorithms; their allgather half only copies);
 *     its completion is delayed by bytes / reduce_bw.
 *   - Operations posted before the job epoch (inside MPI_Init) and those
 *     whose peer is unknown are not replayed (counted in the report).
 * The result fills hs_replay_result's totals; the run directory gets
 * app.json (one phase, "wire transfers", and the communication matrix of
 * the transfers replayed) and the manifest names it. */
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { WK_OUT = 1, WK_GET, WK_RECV, WK_FLUSH, WK_LOCAL };
#define WIRE_PHASE 1   /* the one phase of the run directory: "wire transfers" */

typedef struct wop {
    int64_t  t_post, t_done;  /* recorded, ns; t_done INT64_MAX: never seen */
    uint64_t bytes, tag, id;
    int32_t  peer;
    uint8_t  kind, nbi, wop;
    uint8_t  pre;             /* posted before the epoch: done before the replay starts */
    uint8_t  imm;             /* completed within its posting call (an eager send:
                                 complete locally at issue, arrival apart) */
    uint32_t match;           /* WK_RECV: index of the matched send; WK_OUT: of the recv */
    uint32_t dep_lo, dep_hi;  /* dependencies: ops [dep_lo, dep_hi) of deps[] */
    uint16_t thread;          /* writer thread in the rank's files */
    uint64_t reduce;          /* WK_RECV: bytes the library reduces after it */
    hs_time  issue, done;     /* simulated; done = HS_TIME_NEVER until complete */
    hs_time  arrived;         /* WK_OUT: delivery at the peer */
    uint8_t  issued;
    uint8_t  rndv;            /* WK_OUT tag send UCX sent by rendezvous: RNDV_GET/PUT */
    uint8_t  rts_go;          /* its receiver has answered the request to send */
    hs_time  rts_at;          /* when that request reached the receiver */
} wop;
enum { RNDV_GET = 1, RNDV_PUT };

typedef struct wrank {
    uint32_t first, n;        /* ops [first, first + n) */
    uint32_t next;            /* next op to issue (relative) */
    uint32_t node;
    uint8_t  waiting_timer;
    double   scale;           /* on recorded gaps: --compute-scale (auto: cores/ranks
                                 of an oversubscribed recording host, as the MPI replay) */
} wrank;

typedef struct wsim {
    const hs_replay_params *p;
    hs_fabric *F;
    wop *op;
    size_t nop, opcap;
    uint32_t *deps;
    size_t ndeps, depcap;
    uint32_t *owner;          /* rank of each op */
    wrank *rk;
    uint32_t nranks;
    uint64_t messages, bytes, intra, skipped_early, skipped_peer, unmatched, rndv;
    uint64_t reduced_recvs, reduced_bytes;
    uint32_t no_rank_file;    /* ranks whose rank file is missing (no reductions known) */
    /* the communication matrix (app.json "comm"): data bytes src -> dst */
    uint64_t *pair_key, *pair_bytes, *pair_msgs;
    size_t npairs, paircap;
    int failed;
} wsim;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 1024;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return HS_ENOMEM;
    *p = np;
    *cap = nc;
    return 0;
}

static int kind_of(int op)
{
    switch (op) {
    case HS_TRACE_WOP_TAG_SEND: case HS_TRACE_WOP_TAG_SSEND: case HS_TRACE_WOP_PUT:
    case HS_TRACE_WOP_ATOMIC: case HS_TRACE_WOP_AM_SEND: case HS_TRACE_WOP_STREAM_SEND:
        return WK_OUT;
    case HS_TRACE_WOP_GET: case HS_TRACE_WOP_ATOMIC_FETCH:
        return WK_GET;
    case HS_TRACE_WOP_TAG_RECV:
        return WK_RECV;
    case HS_TRACE_WOP_FLUSH:
        return WK_FLUSH;
    default:
        return WK_LOCAL;   /* AM handler runs, stream receives: no action of this rank */
    }
}

/* ---- loading ------------------------------------------------------------ */

static int is_tag_send(const wop *o)
{
    return o->wop == HS_TRACE_WOP_TAG_SEND || o->wop == HS_TRACE_WOP_TAG_SSEND;
}

static int load_rank(wsim *S, hs_trace *t, uint32_t r, hs_error *err)
{
    hs_trace_cursor *c;
    int rc = hs_trace_wire_open(t, r, &c, err);
    if (rc)
        return rc;
    wrank *R = &S->rk[r];
    R->first = (uint32_t)S->nop;
    hs_trace_event ev;
    while ((rc = hs_trace_next(c, &ev, err)) == 1) {
        if (ev.kind == HS_TRACE_WIRE_DONE) {
            /* ops of this rank are few enough behind: search back */
            for (size_t i = S->nop; i > R->first; i--)
                if (S->op[i - 1].id == ev.req) {
                    S->op[i - 1].t_done = ev.t_start;
                    if (S->op[i - 1].kind == WK_OUT && is_tag_send(&S->op[i - 1]) &&
                        (ev.flags & HS_TRACE_F_WIRE_RNDV))
                        S->op[i - 1].rndv = ev.flags & HS_TRACE_F_WIRE_RPUT ? RNDV_PUT : RNDV_GET;
                    /* a status check reports no length or tag: keep the post's */
                    if (S->op[i - 1].kind == WK_RECV && (ev.bytes2 || ev.bytes)) {
                        S->op[i - 1].bytes = ev.bytes;
                        S->op[i - 1].tag = ev.bytes2;
                    }
                    break;
                }
            continue;
        }
        if (ev.kind != HS_TRACE_WIRE_OP)
            continue;
        int k = kind_of(ev.tag2);
        if (k == WK_LOCAL)
            continue;
        if ((k == WK_OUT || k == WK_GET) && ev.peer < 0) {
            S->skipped_peer++;
            continue;
        }
        if ((rc = grow((void **)&S->op, &S->opcap, S->nop + 1, sizeof *S->op)))
            break;
        wop *o = &S->op[S->nop++];
        *o = (wop){ .t_post = ev.t_start, .bytes = ev.bytes, .tag = ev.bytes2, .id = ev.req,
                    .peer = ev.peer, .kind = (uint8_t)k, .wop = (uint8_t)ev.tag2,
                    .thread = ev.thread,
                    .match = RP_NIL,
                    .nbi = (ev.flags & HS_TRACE_F_WIRE_NBI) != 0, .done = HS_TIME_NEVER,
                    .arrived = HS_TIME_NEVER, .rts_at = HS_TIME_NEVER };
        o->t_done = (ev.flags & HS_TRACE_F_WIRE_IMM) ? ev.t_end : INT64_MAX;
        o->imm = (ev.flags & HS_TRACE_F_WIRE_IMM) != 0;
        if (ev.t_start < 0) {   /* inside MPI_Init: kept for the matching only */
            o->pre = 1;
            o->issued = 1;
            o->issue = o->done = o->arrived = 0;
            S->skipped_early++;
        }
    }
    hs_trace_cursor_close(c);
    if (rc < 0)
        return rc;
    if (rc > 0)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    R->n = (uint32_t)(S->nop - R->first);
    return 0;
}

/* ---- local reductions ------------------------------------------------------ */

typedef struct redcall {     /* a blocking reduction collective of one rank */
    int64_t t0, t1;
    uint16_t thread;
    uint64_t n;              /* the rank's contribution (the event's bytes) */
    uint32_t size;           /* communicator size */
} redcall;

static int is_reduction(int kind)
{
    return kind == HS_TRACE_ALLREDUCE || kind == HS_TRACE_REDUCE ||
           kind == HS_TRACE_REDUCE_SCATTER || kind == HS_TRACE_REDUCE_SCATTER_BLOCK ||
           kind == HS_TRACE_SCAN || kind == HS_TRACE_EXSCAN;
}

/* Marks the tag receives of rank r that its library reduced (see the
 * model at the top).  Reads the rank file's blocking reduction collectives
 * and the sizes of the communicators they ran on. */
static int mark_reductions(wsim *S, hs_trace *t, uint32_t r, hs_error *err)
{
    hs_trace_cursor *c;
    int rc = hs_trace_cursor_open(t, r, &c, err);
    if (rc == HS_ENOENT) {   /* no MPI-level file: nothing known to be reduced */
        hs_error_clear(err);
        S->no_rank_file++;
        return 0;
    }
    if (rc)
        return rc;
    redcall *rc_ = NULL;
    size_t n = 0, cap = 0;
    uint64_t *cid = NULL;
    uint32_t *csz = NULL;
    size_t nc = 0, ccap = 0, ccap2 = 0;
    hs_trace_event ev;
    while ((rc = hs_trace_next(c, &ev, err)) == 1) {
        if (ev.kind == HS_TRACE_COMM_CREATE && ev.nremote == 0) {
            if (grow((void **)&cid, &ccap, nc + 1, sizeof *cid) ||
                grow((void **)&csz, &ccap2, nc + 1, sizeof *csz)) {
                rc = HS_ENOMEM;
                break;
            }
            cid[nc] = ev.comm;
            csz[nc++] = ev.nmembers;
            continue;
        }
        if (!is_reduction(ev.kind))
            continue;   /* nonblocking forms: their transfers run in later calls */
        uint32_t size = ev.comm == HS_TRACE_COMM_WORLD ? S->nranks : 0;
        for (size_t i = nc; i > 0 && !size; i--)
            if (cid[i - 1] == ev.comm)
                size = csz[i - 1];
        if (size < 2)
            continue;
        if (grow((void **)&rc_, &cap, n + 1, sizeof *rc_)) {
            rc = HS_ENOMEM;
            break;
        }
        rc_[n++] = (redcall){ .t0 = ev.t_start, .t1 = ev.t_end, .thread = ev.thread,
                              .n = ev.bytes, .size = size };
    }
    hs_trace_cursor_close(c);
    free(cid);
    free(csz);
    if (rc == HS_ENOMEM) {
        free(rc_);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    if (rc < 0) {
        free(rc_);
        return rc;
    }
    /* each call's receives, in post order (the rank's ops are in post order) */
    wrank *R = &S->rk[r];
    for (size_t k = 0; k < n; k++) {
        const redcall *x = &rc_[k];
        uint64_t budget = x->n / x->size * (x->size - 1) + x->n % x->size * (x->size - 1) / x->size;
        uint64_t pieces = 0;
        for (uint32_t j = 0; j < R->n; j++) {
            wop *o = &S->op[R->first + j];
            if (o->kind != WK_RECV || o->pre || o->thread != x->thread || o->t_post < x->t0 ||
                o->t_post > x->t1 || o->bytes == 0)
                continue;
            if (o->bytes >= x->n) {
                o->reduce = x->n;
            } else if (pieces + o->bytes <= budget) {
                pieces += o->bytes;
                o->reduce = o->bytes;
            }
            if (o->reduce) {
                S->reduced_recvs++;
                S->reduced_bytes += o->reduce;
            }
        }
    }
    free(rc_);
    return 0;
}

/* Dependencies: the rank's ops whose recorded completion lies in
 * [previous post, this post); a flush also depends on the implicit (nbi)
 * operations since the previous flush.  By recorded completion order, so
 * the work is n log n per rank. */
static int cmp_u32_by_done(const void *a, const void *b, void *ctx)
{
    const wsim *S = ctx;
    const wop *x = &S->op[*(const uint32_t *)a], *y = &S->op[*(const uint32_t *)b];
    if (x->t_done != y->t_done)
        return x->t_done < y->t_done ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int add_dep(wsim *S, uint32_t j)
{
    if (grow((void **)&S->deps, &S->depcap, S->ndeps + 1, sizeof *S->deps))
        return HS_ENOMEM;
    S->deps[S->ndeps++] = j;
    return 0;
}

static int build_deps(wsim *S, uint32_t r)
{
    wrank *R = &S->rk[r];
    uint32_t *byd = malloc((R->n ? R->n : 1) * sizeof *byd);
    if (!byd)
        return HS_ENOMEM;
    uint32_t nd = 0;
    for (uint32_t k = 0; k < R->n; k++)
        if (S->op[R->first + k].t_done != INT64_MAX)
            byd[nd++] = R->first + k;
    qsort_r(byd, nd, sizeof *byd, cmp_u32_by_done, S);
    uint32_t d = 0, nbi_from = 0;
    int rc = 0;
    for (uint32_t k = 0; k < R->n && !rc; k++) {
        uint32_t i = R->first + k;
        wop *o = &S->op[i];
        o->dep_lo = (uint32_t)S->ndeps;
        /* [previous post, this post): an operation completed within its
         * posting call is stamped with that post, and completions UCP
         * reported inside this op's own call carry its stamp: caused by it,
         * not waited for */
        int64_t lo = k ? S->op[i - 1].t_post : INT64_MIN;
        while (d < nd && S->op[byd[d]].t_done < lo)
            d++;
        for (uint32_t e = d; e < nd && S->op[byd[e]].t_done < o->t_post && !rc; e++)
            if (byd[e] < i)
                rc = add_dep(S, byd[e]);
        if (o->kind == WK_FLUSH) {
            for (uint32_t j = nbi_from; j < k && !rc; j++)
                if (S->op[R->first + j].nbi)
                    rc = add_dep(S, R->first + j);
            nbi_from = k + 1;
        }
        o->dep_hi = (uint32_t)S->ndeps;
    }
    free(byd);
    return rc;
}

static int cmp_u32_by_post(const void *a, const void *b, void *ctx)
{
    const wsim *S = ctx;
    const wop *x = &S->op[*(const uint32_t *)a], *y = &S->op[*(const uint32_t *)b];
    if (x->t_post != y->t_post)
        return x->t_post < y->t_post ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Sends to rank d matched to d's receives, in post order, by (UCX tag,
 * size), then by size alone for receives whose tag matched nothing (a
 * receive completed at once records the tag as posted, maybe masked). */

static int cmp_u32_by_done_post(const void *a, const void *b, void *ctx)
{
    const wsim *S = ctx;
    const wop *x = &S->op[*(const uint32_t *)a], *y = &S->op[*(const uint32_t *)b];
    if (x->t_done != y->t_done)
        return x->t_done < y->t_done ? -1 : 1;
    return cmp_u32_by_post(a, b, ctx);
}

static int match(wsim *S)
{
    /* tag sends bucketed by destination */
    uint32_t *cnt = calloc(S->nranks + 1u, sizeof *cnt);
    uint32_t *idx = malloc((S->nop ? S->nop : 1) * sizeof *idx);
    uint32_t *rv_idx = malloc((S->nop ? S->nop : 1) * sizeof *rv_idx);
    if (!cnt || !idx || !rv_idx) {
        free(cnt);
        free(idx);
        free(rv_idx);
        return HS_ENOMEM;
    }
    for (size_t i = 0; i < S->nop; i++)
        if (is_tag_send(&S->op[i]))
            cnt[S->op[i].peer + 1]++;
    for (uint32_t d = 0; d < S->nranks; d++)
        cnt[d + 1] += cnt[d];
    uint32_t *pos = malloc((S->nranks + 1u) * sizeof *pos);
    if (!pos) {
        free(cnt);
        free(idx);
        free(rv_idx);
        return HS_ENOMEM;
    }
    memcpy(pos, cnt, (S->nranks + 1u) * sizeof *pos);
    for (size_t i = 0; i < S->nop; i++)
        if (is_tag_send(&S->op[i]))
            idx[pos[S->op[i].peer]++] = (uint32_t)i;
    free(pos);
    for (uint32_t d = 0; d < S->nranks; d++) {
        uint32_t *snd = idx + cnt[d];
        size_t ns = cnt[d + 1] - cnt[d];
        qsort_r(snd, ns, sizeof *snd, cmp_u32_by_post, S);
        wrank *R = &S->rk[d];
        /* receives in the order they completed (the unfinished last, in
         * post order): with several senders sharing a tag (libfabric puts
         * the source in the completion data, not the tag), the receive
         * that completed first took the message that arrived first */
        size_t nr = 0;
        for (uint32_t k = 0; k < R->n; k++)
            if (S->op[R->first + k].kind == WK_RECV)
                rv_idx[nr++] = R->first + k;
        qsort_r(rv_idx, nr, sizeof *rv_idx, cmp_u32_by_done_post, S);
        size_t first = 0;   /* sends before it are all matched */
        for (int pass = 0; pass < 2; pass++)
            for (size_t k = 0; k < nr; k++) {
                wop *rv = &S->op[rv_idx[k]];
                if (rv->match != RP_NIL)
                    continue;
                while (pass == 0 && first < ns && S->op[snd[first]].match != RP_NIL)
                    first++;
                for (size_t i = pass == 0 ? first : 0; i < ns; i++) {
                    wop *sd = &S->op[snd[i]];
                    if (sd->t_post > rv->t_done)
                        break;          /* posted after the receive completed */
                    if (sd->match != RP_NIL || sd->bytes != rv->bytes ||
                        (pass == 0 && sd->tag != rv->tag))
                        continue;
                    sd->match = rv_idx[k];
                    rv->match = snd[i];
                    break;
                }
            }
        for (uint32_t k = 0; k < R->n; k++)
            if (S->op[R->first + k].kind == WK_RECV && S->op[R->first + k].match == RP_NIL)
                S->unmatched++;
    }
    free(cnt);
    free(idx);
    free(rv_idx);
    return 0;
}

/* ---- simulation ---------------------------------------------------------- */

#define CK_KIND(c) ((c) >> 60)
#define CK_OP(c)   ((uint32_t)((c) & 0xffffffffu))
enum { CK_RANK = 1, CK_ARRIVE, CK_GETREQ, CK_GETRESP, CK_RTS, CK_RTR, CK_ATS };

static void advance(wsim *S, uint32_t r, hs_time now);

static void complete(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    if (o->done != HS_TIME_NEVER)
        return;
    if (o->reduce && S->p->reduce_bw)   /* the library reduces what arrived */
        t += hs_ser_time(o->reduce, S->p->reduce_bw);
    o->done = t;
    advance(S, S->owner[i], t);
}

static void transfer(wsim *S, uint32_t from, uint32_t to, uint64_t bytes, uint64_t cookie,
                     hs_time t);

/* The data of send i reached its destination at t.  A rendezvous by get
 * completes for the sender when the receiver's acknowledgement is back;
 * otherwise (eager, or the sender wrote it) now. */
static void arrived(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    o->arrived = t;
    if (o->rndv == RNDV_GET)
        transfer(S, (uint32_t)o->peer, S->owner[i], S->p->ctrl_bytes,
                 (uint64_t)CK_ATS << 60 | i, t);
    else
        complete(S, i, t);
    if (o->match != RP_NIL) {
        wop *rv = &S->op[o->match];
        if (rv->issued)
            complete(S, o->match, t > rv->issue ? t : rv->issue);
    }
}

/* --max-packets, as the MPI replay counts it: every transfer (puts, sends,
 * gets) in MTU-sized packets as if it crossed the network; the wire files
 * list them all, so the check before the run is exact. */
static int check_packets(const wsim *S, hs_error *err)
{
    uint64_t max = S->p->max_packets, mtu = S->p->net.mtu ? S->p->net.mtu : 1, n = 0, big = 0;
    if (!max)
        return 0;
    for (uint32_t i = 0; i < S->nop; i++) {
        const wop *o = &S->op[i];
        if (o->kind != WK_OUT && o->kind != WK_GET)
            continue;
        uint64_t k = o->bytes / mtu + (o->bytes % mtu != 0) + (o->bytes == 0);
        n = n + k < n ? UINT64_MAX : n + k;
        if (o->bytes > big)
            big = o->bytes;
    }
    if (n <= max)
        return 0;
    return hs_error_set(err, HS_ERANGE, "%s: the wire files hold %llu packets of %llu bytes "
                        "(the largest transfer: %llu bytes), more than the limit --max-packets "
                        "%llu; such a trace is likely damaged and would simulate for hours: "
                        "raise the limit (0: none) to replay it anyway", S->p->trace,
                        (unsigned long long)n, (unsigned long long)mtu,
                        (unsigned long long)big, (unsigned long long)max);
}

static hs_time shm_time(const wsim *S, uint64_t bytes)
{
    uint64_t bw = S->p->mem_bw ? S->p->mem_bw : 1;
    return S->p->shm_latency + (hs_time)((__int128)bytes * 1000000000000 / bw);
}

/* One data transfer src -> dst in the communication matrix. */
static void count_pair(wsim *S, uint32_t src, uint32_t dst, uint64_t bytes)
{
    uint64_t key = (uint64_t)src << 32 | dst;
    size_t lo = 0, hi = S->npairs;   /* sorted by key */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (S->pair_key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == S->npairs || S->pair_key[lo] != key) {
        size_t c0 = S->paircap, c1 = S->paircap, c2 = S->paircap;
        if (grow((void **)&S->pair_key, &c0, S->npairs + 1, sizeof *S->pair_key) ||
            grow((void **)&S->pair_bytes, &c1, S->npairs + 1, sizeof *S->pair_bytes) ||
            grow((void **)&S->pair_msgs, &c2, S->npairs + 1, sizeof *S->pair_msgs)) {
            S->failed = 1;
            return;
        }
        S->paircap = c0;
        size_t m = S->npairs - lo;
        memmove(S->pair_key + lo + 1, S->pair_key + lo, m * sizeof *S->pair_key);
        memmove(S->pair_bytes + lo + 1, S->pair_bytes + lo, m * sizeof *S->pair_bytes);
        memmove(S->pair_msgs + lo + 1, S->pair_msgs + lo, m * sizeof *S->pair_msgs);
        S->pair_key[lo] = key;
        S->pair_bytes[lo] = S->pair_msgs[lo] = 0;
        S->npairs++;
    }
    S->pair_bytes[lo] += bytes;
    S->pair_msgs[lo]++;
}

/* lane 1: the data of an RDMA read (a get's response, a rendezvous by
 * get), which the target's NIC returns apart from its own sends to the
 * reader (hs_fabric_inject_lane): queued behind them, a pairwise exchange's
 * handshake waited for the other direction's whole data (alltoall 1 MiB:
 * 1.8x the model's time, docs/replay.md). */
static void transfer_lane(wsim *S, uint32_t from, uint32_t to, uint64_t bytes,
                          uint64_t cookie, hs_time t, unsigned lane)
{
    uint32_t a = S->rk[from].node, b = S->rk[to].node;
    S->messages++;
    S->bytes += bytes;
    if (a == b) {
        S->intra++;
        if (hs_fabric_timer(S->F, t + shm_time(S, bytes), cookie))
            S->failed = 1;
        return;
    }
    if (hs_fabric_inject_lane(S->F, t, a, b, bytes, WIRE_PHASE, 1, lane, cookie))
        S->failed = 1;
}

static void transfer(wsim *S, uint32_t from, uint32_t to, uint64_t bytes, uint64_t cookie,
                     hs_time t)
{
    transfer_lane(S, from, to, bytes, cookie, t, 0);
}

/* Rendezvous: the receive matched to send i is posted and the send's
 * request reached it: the receiver answers (RTR, or its get request) at t. */
static void rndv_reply(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    o->rts_go = 1;
    transfer(S, (uint32_t)o->peer, S->owner[i], S->p->ctrl_bytes, (uint64_t)CK_RTR << 60 | i, t);
}

static void issue(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    uint32_t r = S->owner[i];
    o->issued = 1;
    o->issue = t;
    switch (o->kind) {
    case WK_OUT:
        if (o->peer != (int32_t)r)
            count_pair(S, r, (uint32_t)o->peer, o->bytes);
        if (o->peer == (int32_t)r) {
            /* a copy to itself: it arrives later, by a timer like any
             * transfer within a node (arriving here, at once, completed it
             * now and issued the rank's next operations only at the copy's
             * end: alltoall 64 KiB replayed 1.7x the model's time) */
            o->rndv = 0;
            if (hs_fabric_timer(S->F, t + shm_time(S, o->bytes), (uint64_t)CK_ARRIVE << 60 | i))
                S->failed = 1;
        } else if (o->rndv && o->match != RP_NIL) {
            /* request to send; the data goes when the receiver answers */
            S->rndv++;
            transfer(S, r, (uint32_t)o->peer, S->p->ctrl_bytes, (uint64_t)CK_RTS << 60 | i, t);
        } else {
            o->rndv = 0;
            transfer(S, r, (uint32_t)o->peer, o->bytes, (uint64_t)CK_ARRIVE << 60 | i, t);
        }
        if (o->imm)
            complete(S, i, t);   /* buffered: the sender goes on at once */
        break;
    case WK_GET:
        if (o->peer != (int32_t)r)
            count_pair(S, (uint32_t)o->peer, r, o->bytes);
        if (o->peer == (int32_t)r) {   /* as a copy to itself, above */
            if (hs_fabric_timer(S->F, t + shm_time(S, o->bytes), (uint64_t)CK_GETRESP << 60 | i))
                S->failed = 1;
        } else
            transfer(S, r, (uint32_t)o->peer, S->p->ctrl_bytes, (uint64_t)CK_GETREQ << 60 | i, t);
        break;
    case WK_RECV:
        if (o->match == RP_NIL) {
            complete(S, i, t);              /* its sender is not in the trace */
        } else {
            wop *sd = &S->op[o->match];
            if (sd->arrived != HS_TIME_NEVER)
                complete(S, i, t > sd->arrived ? t : sd->arrived);
            else if (sd->rndv && sd->rts_at != HS_TIME_NEVER && !sd->rts_go)
                rndv_reply(S, o->match, t > sd->rts_at ? t : sd->rts_at);
        }
        break;
    case WK_FLUSH:
        complete(S, i, t);                  /* its dependencies were the implicit ops */
        break;
    }
}

/* Issues rank r's ops as far as their dependencies allow. */
static void advance(wsim *S, uint32_t r, hs_time now)
{
    wrank *R = &S->rk[r];
    while (R->next < R->n && S->op[R->first + R->next].pre)
        R->next++;
    while (R->next < R->n && !S->failed) {
        uint32_t i = R->first + R->next;
        wop *o = &S->op[i];
        hs_time at;
        if (R->next == 0 || S->op[i - 1].pre)
            at = (hs_time)((double)o->t_post * 1000 * R->scale);
        else {
            const wop *pv = &S->op[i - 1];
            at = pv->issue;
            if (o->dep_lo == o->dep_hi)
                at += (hs_time)((double)(o->t_post - pv->t_post) * 1000 * R->scale);
        }
        for (uint32_t d = o->dep_lo; d < o->dep_hi; d++) {
            const wop *q = &S->op[S->deps[d]];
            if (q->done == HS_TIME_NEVER)
                return;                     /* woken by its completion */
            int64_t after = q->pre ? o->t_post
                            : q->t_done <= o->t_post && q->t_done != INT64_MAX
                            ? o->t_post - q->t_done : 0;
            hs_time t = q->done + (hs_time)((double)after * 1000 * R->scale);
            if (t > at)
                at = t;
        }
        if (at > now) {
            if (!R->waiting_timer) {
                R->waiting_timer = 1;
                if (hs_fabric_timer(S->F, at, (uint64_t)CK_RANK << 60 | r))
                    S->failed = 1;
            }
            return;
        }
        R->next++;
        issue(S, i, now > at ? now : at);
    }
}

static void cb_event(void *ctx, hs_fabric *f, uint64_t cookie, hs_time t)
{
    (void)f;
    wsim *S = ctx;
    uint32_t i = CK_OP(cookie);
    switch (CK_KIND(cookie)) {
    case CK_RANK:
        S->rk[i].waiting_timer = 0;
        advance(S, i, t);
        break;
    case CK_ARRIVE:
        arrived(S, i, t);
        break;
    case CK_GETREQ: {
        wop *o = &S->op[i];
        transfer_lane(S, (uint32_t)o->peer, S->owner[i], o->bytes, (uint64_t)CK_GETRESP << 60 | i,
                      t, 1);
        break;
    }
    case CK_GETRESP:
        complete(S, i, t);
        break;
    case CK_RTS: {   /* the request to send reached the receiver */
        wop *o = &S->op[i];
        o->rts_at = t;
        const wop *rv = &S->op[o->match];
        if (rv->issued && !o->rts_go)
            rndv_reply(S, i, t > rv->issue ? t : rv->issue);
        break;
    }
    case CK_RTR: {   /* the receiver's answer reached the sender: the data (read by
                        the receiver when by get) */
        wop *o = &S->op[i];
        transfer_lane(S, S->owner[i], (uint32_t)o->peer, o->bytes, (uint64_t)CK_ARRIVE << 60 | i,
                      t, o->rndv == RNDV_GET);
        break;
    }
    case CK_ATS:     /* the receiver's acknowledgement of a get */
        complete(S, i, t);
        break;
    }
}

static int cmp_time(const void *a, const void *b)
{
    hs_time x = *(const hs_time *)a, y = *(const hs_time *)b;
    return x < y ? -1 : x > y;
}

static void cb_sent(void *ctx, hs_fabric *f, uint64_t cookie, hs_time t)
{
    (void)ctx; (void)f; (void)cookie; (void)t;
}

/* ---- run directory ---------------------------------------------------------- */

typedef struct wextra {
    const hs_replay_result *res;
} wextra;

/* The manifest names app.json, as after the MPI replay. */
static void manifest_extra(void *ctx, hs_json *j)
{
    const wextra *x = ctx;
    hs__rp_manifest_app(j, x->res);
}

static void kv_u(hs_json *j, const char *k, uint64_t v)
{
    hs_json_key(j, k);
    hs_json_uint(j, v);
}

/* app.json (docs/formats.md) of a wire-level replay: the keys the analyzer
 * reads (mapping, phases, time, latency, comm) with what this replay knows;
 * one phase, the wire transfers; replay.wire = true. */
static int write_app_json(const wsim *S, const hs_trace_manifest *m, const hs_mapping_cfg *map,
                          const hs_replay_result *res, hs_error *err)
{
    const hs_replay_params *p = S->p;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/app.json", p->out) >= sizeof path)
        return hs_error_set(err, HS_EINVAL, "%s: directory name too long", p->out);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    hs_json j;
    hs_json_init(&j, f, 1);
    hs_json_obj_begin(&j);
    uint32_t *nodes = malloc((S->nranks ? S->nranks : 1) * sizeof *nodes);
    if (!nodes) {
        fclose(f);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < S->nranks; r++)
        nodes[r] = S->rk[r].node;
    hs__rp_app_head(&j, p, m->command, S->nranks, map, nodes);
    free(nodes);

    hs_json_key(&j, "phases");
    hs_json_arr_begin(&j);
    hs_json_obj_begin(&j);
    kv_u(&j, "id", WIRE_PHASE);
    hs_json_key(&j, "name");
    hs_json_str(&j, "wire transfers");
    hs_json_key(&j, "kind");
    hs_json_str(&j, "wire");
    hs_json_key(&j, "tag");
    hs_json_null(&j);
    hs_json_key(&j, "collective");
    hs_json_null(&j);
    hs_json_key(&j, "app");
    hs_json_bool(&j, 1);
    kv_u(&j, "messages", S->messages);
    kv_u(&j, "bytes", S->bytes);
    kv_u(&j, "time_ps", 0);   /* no MPI calls are modelled */
    hs_json_obj_end(&j);
    hs_json_arr_end(&j);

    hs_json_key(&j, "time");
    hs_json_obj_begin(&j);
    kv_u(&j, "total_ps", res->total);
    hs_json_key(&j, "per_rank_ps");
    hs_json_arr_begin(&j);
    for (uint32_t r = 0; r < res->ranks; r++)
        hs_json_uint(&j, res->rank_time[r]);
    hs_json_arr_end(&j);
    hs_json_obj_end(&j);

    hs_json_key(&j, "latency");
    hs_json_obj_begin(&j);
    kv_u(&j, "messages", res->lat.messages);
    kv_u(&j, "p50_ps", res->lat.p50);
    kv_u(&j, "p99_ps", res->lat.p99);
    kv_u(&j, "mean_ps", res->lat.mean);
    kv_u(&j, "max_ps", res->lat.max);
    hs_json_key(&j, "by_phase");
    hs_json_obj_begin(&j);
    hs_json_obj_end(&j);
    hs_json_key(&j, "sampled");
    hs_json_bool(&j, 0);
    hs_json_obj_end(&j);

    hs_json_key(&j, "comm");   /* sorted by (src, dst) */
    hs_json_arr_begin(&j);
    for (size_t i = 0; i < S->npairs; i++) {
        hs_json_arr_begin(&j);
        hs_json_uint(&j, S->pair_key[i] >> 32);
        hs_json_uint(&j, S->pair_key[i] & 0xffffffffu);
        hs_json_uint(&j, S->pair_bytes[i]);
        hs_json_uint(&j, S->pair_msgs[i]);
        hs_json_arr_end(&j);
    }
    hs_json_arr_end(&j);
    hs_json_key(&j, "rma_comm");   /* puts, gets and atomics are in comm */
    hs_json_arr_begin(&j);
    hs_json_arr_end(&j);
    hs_json_key(&j, "background");
    hs_json_null(&j);
    hs_json_key(&j, "congestion_impact");
    hs_json_null(&j);

    hs_json_key(&j, "replay");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "wire");
    hs_json_bool(&j, 1);
    hs_json_key(&j, "status");
    hs_json_str(&j, hs_replay_status_name(res));
    {
        uint32_t qmax = 0;
        for (uint32_t r = 0; r < S->nranks; r++) {
            uint32_t q = hs_fabric_nic_queue_max(S->F, S->rk[r].node);
            qmax = q > qmax ? q : qmax;
        }
        kv_u(&j, "nic_queue_max", qmax);
    }
    kv_u(&j, "operations", S->nop);
    kv_u(&j, "messages", S->messages);
    kv_u(&j, "bytes", S->bytes);
    kv_u(&j, "within_node", S->intra);
    kv_u(&j, "posted_in_init", S->skipped_early);
    kv_u(&j, "unknown_peer", S->skipped_peer);
    kv_u(&j, "unmatched_recvs", S->unmatched);
    kv_u(&j, "unmatched_sends", 0);
    kv_u(&j, "reduced_recvs", S->reduced_recvs);
    kv_u(&j, "reduced_bytes", S->reduced_bytes);
    kv_u(&j, "ctrl_bytes", p->ctrl_bytes);
    hs_json_key(&j, "compute_scale");
    if (p->compute_scale >= 0)
        hs_json_num(&j, p->compute_scale);
    else
        hs_json_null(&j);
    hs_json_key(&j, "compute_scale_applied");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "min");
    hs_json_num(&j, res->compute_scale_min);
    hs_json_key(&j, "max");
    hs_json_num(&j, res->compute_scale_max);
    hs_json_obj_end(&j);
    kv_u(&j, "mem_bw_Bps", p->mem_bw);
    kv_u(&j, "shm_latency_ps", p->shm_latency);
    kv_u(&j, "reduce_bw_Bps", p->reduce_bw);
    kv_u(&j, "max_packets", p->max_packets);
    hs_json_obj_end(&j);
    hs_json_obj_end(&j);
    int rc = hs_json_finish(&j);
    fputc('\n', f);
    if (ferror(f) | (fclose(f) != 0) || rc)
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

int hs__replay_wire(const hs_replay_params *p, hs_replay_result *res, hs_error *err)
{
    struct timespec w0;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    wsim S = { .p = p };
    hs_trace *t = NULL;
    int rc = hs_trace_open(p->trace, &t, err);
    if (rc)
        return rc;
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    if (!hs_trace_has_wire(t)) {
        rc = hs_error_set(err, HS_ENOENT, "%s: no wire files: record with 'hopscope record "
                          "--wire' to replay the transfers below MPI", p->trace);
        goto out;
    }
    S.nranks = m->nranks;
    S.rk = calloc(S.nranks, sizeof *S.rk);
    if (!S.rk) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    /* the computation scale, by the MPI replay's rule */
    for (uint32_t r = 0; r < S.nranks; r++) {
        S.rk[r].scale = p->compute_scale >= 0 ? p->compute_scale : 1.0;
        int32_t h = p->compute_scale >= 0 ? -1 : hs_trace_manifest_host_of(m, r);
        if (h >= 0) {
            uint32_t on = 0;
            for (uint32_t q = 0; q < S.nranks; q++)
                on += hs_trace_manifest_host_of(m, q) == h;
            if (on > m->host_cores[h])
                S.rk[r].scale = (double)m->host_cores[h] / on;
        }
        if (r == 0 || S.rk[r].scale < res->compute_scale_min)
            res->compute_scale_min = S.rk[r].scale;
        if (r == 0 || S.rk[r].scale > res->compute_scale_max)
            res->compute_scale_max = S.rk[r].scale;
    }
    for (uint32_t r = 0; r < S.nranks && !rc; r++)
        rc = load_rank(&S, t, r, err);
    for (uint32_t r = 0; r < S.nranks && !rc && p->reduce_bw; r++)
        rc = mark_reductions(&S, t, r, err);
    if (rc)
        goto out;
    S.owner = malloc((S.nop ? S.nop : 1) * sizeof *S.owner);
    if (!S.owner) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (uint32_t r = 0; r < S.nranks; r++)
        for (uint32_t k = 0; k < S.rk[r].n; k++)
            S.owner[S.rk[r].first + k] = r;
    for (uint32_t r = 0; r < S.nranks && !rc; r++)
        rc = build_deps(&S, r);
    if (!rc)
        rc = match(&S);
    if (rc) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = check_packets(&S, err)))
        goto out;

    /* network and placement, as the MPI-level replay does them */
    if ((rc = hs_fabric_create(&S.F, p->topo, &p->net, err)))
        goto out;
    uint32_t nnodes = hs_topo_nodes(hs_fabric_topo(S.F));
    hs_mapping_cfg map;
    memset(&map, 0, sizeof map);
    map.ppn = p->ppn ? p->ppn : hs_replay_default_ppn(m);
    uint32_t *node = malloc(S.nranks * sizeof *node);
    if (!node) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    rc = hs_mapping_parse(p->map ? p->map : "linear", &map, err);
    if (!rc)
        rc = hs_mapping_build(&map, S.nranks, nnodes, node, err);
    for (uint32_t r = 0; r < S.nranks && !rc; r++)
        S.rk[r].node = node[r];
    free(node);
    if (rc)
        goto out;
    hs_fabric_phase_name(S.F, WIRE_PHASE, "wire transfers");
    hs_fabric_callbacks cb = { .sent = cb_sent, .delivered = cb_event, .timer = cb_event };
    hs_fabric_set_callbacks(S.F, &cb, &S);
    struct timespec w1;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    for (uint32_t r = 0; r < S.nranks; r++)
        advance(&S, r, 0);
    int run = hs_fabric_run(S.F, HS_TIME_NEVER);
    struct timespec w2;
    clock_gettime(CLOCK_MONOTONIC, &w2);
    if (S.failed) {
        rc = hs_error_set(err, HS_ENOMEM, "the network refused a transfer (out of memory?)");
        goto out;
    }

    /* results */
    res->ranks = res->actors = S.nranks;
    res->rank_time = calloc(S.nranks ? S.nranks : 1, sizeof *res->rank_time);
    if (!res->rank_time) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    uint32_t stuck = 0;
    for (uint32_t r = 0; r < S.nranks; r++) {
        wrank *R = &S.rk[r];
        hs_time end = 0;
        for (uint32_t k = 0; k < R->n; k++) {
            const wop *o = &S.op[R->first + k];
            hs_time e = o->done != HS_TIME_NEVER ? o->done : o->issue;
            if (o->issued && e > end)
                end = e;
        }
        stuck += R->next < R->n;
        res->rank_time[r] = end;
        if (end > res->total)
            res->total = end;
    }
    res->messages = S.messages;
    res->bytes = S.bytes;
    /* latency of the network transfers (issue to arrival) */
    {
        hs_time *lat = malloc((S.nop ? S.nop : 1) * sizeof *lat);
        size_t nl = 0;
        __int128 sum = 0;
        for (size_t i = 0; lat && i < S.nop; i++) {
            const wop *o = &S.op[i];
            if (o->pre || o->kind != WK_OUT || o->arrived == HS_TIME_NEVER ||
                o->peer == (int32_t)S.owner[i] || S.rk[o->peer].node == S.rk[S.owner[i]].node)
                continue;
            lat[nl] = o->arrived - o->issue;
            sum += lat[nl++];
        }
        if (nl) {
            qsort(lat, nl, sizeof *lat, cmp_time);
            res->lat.messages = nl;
            res->lat.p50 = lat[(nl - 1) / 2];
            res->lat.p99 = lat[(size_t)((double)(nl - 1) * 0.99)];
            res->lat.max = lat[nl - 1];
            res->lat.mean = (hs_time)(sum / nl);
        }
        free(lat);
    }
    res->phases = calloc(1, sizeof *res->phases);
    if (res->phases) {
        hs_replay_phase *ph = &res->phases[0];
        res->nphases = 1;
        ph->id = WIRE_PHASE;
        snprintf(ph->name, sizeof ph->name, "wire transfers");
        snprintf(ph->kind, sizeof ph->kind, "wire");
        ph->app = 1;
        ph->messages = S.messages;
        ph->bytes = S.bytes;
        ph->lat = res->lat;
    }
    hs_fabric_stats fs;
    hs_fabric_get_stats(S.F, &fs);
    res->events = fs.events;
    res->hops = fs.hops;
    res->net = fs;
    res->status = run == HS_EDEADLOCK || stuck ? HS_EDEADLOCK : 0;
    if (stuck)
        res->stop = HS_REPLAY_DEADLOCK;
    char rep[1024];
    snprintf(rep, sizeof rep,
             "  wire-level replay: %zu operations of %u ranks, %" PRIu64 " transfers "
             "(%" PRIu64 " within a node), %" PRIu64 " bytes; %" PRIu64
             " posted inside MPI_Init (done before the replay starts), not replayed: %" PRIu64
             " with an unknown peer; %" PRIu64
             " receives matched no recorded send; %" PRIu64 " sends by rendezvous (request, "
             "answer, data, and an acknowledgement for a get)%s\n",
             S.nop, S.nranks, S.messages, S.intra, S.bytes, S.skipped_early, S.skipped_peer,
             S.unmatched, S.rndv, stuck ? "; some ranks could not go on (dependencies never met)" : "");
    res->report = strdup(rep);
    if ((S.reduced_recvs || S.no_rank_file) && p->reduce_bw) {
        char more[320], miss[96] = "";
        if (S.no_rank_file)
            snprintf(miss, sizeof miss, " (%u ranks without a rank file: none charged)",
                     S.no_rank_file);
        snprintf(more, sizeof more, "  local reductions: %" PRIu64 " receives inside reduction "
                 "collectives, %" PRIu64 " bytes reduced at %" PRIu64 " B/s%s\n",
                 S.reduced_recvs, S.reduced_bytes, p->reduce_bw, miss);
        char *both = res->report ? malloc(strlen(res->report) + strlen(more) + 1) : NULL;
        if (both) {
            strcpy(both, res->report);
            strcat(both, more);
            free(res->report);
            res->report = both;
        }
    }
    res->wall_load = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
    res->wall_run = (double)(w2.tv_sec - w1.tv_sec) + (double)(w2.tv_nsec - w1.tv_nsec) / 1e9;
    if (p->out) {
        rc = hs_mkdir_p(p->out, err);
        char path[4096];
        if (!rc && (size_t)snprintf(path, sizeof path, "%s/manifest.json", p->out) < sizeof path)
            unlink(path);   /* the directory is incomplete until it is rewritten */
        if (!rc)
            rc = write_app_json(&S, m, &map, res, err);
        wextra x = { res };
        if (!rc)
            rc = hs_fabric_write_rundir(S.F, p->out, manifest_extra, &x, err);
        if (rc)
            goto out;
    }
    struct timespec w3;
    clock_gettime(CLOCK_MONOTONIC, &w3);
    res->wall_write = (double)(w3.tv_sec - w2.tv_sec) + (double)(w3.tv_nsec - w2.tv_nsec) / 1e9;
    res->wall = (double)(w3.tv_sec - w0.tv_sec) + (double)(w3.tv_nsec - w0.tv_nsec) / 1e9;
out:
    if (S.F)
        hs_fabric_destroy(S.F);
    free(S.op);
    free(S.pair_key);
    free(S.pair_bytes);
    free(S.pair_msgs);
    free(S.deps);
    free(S.owner);
    free(S.rk);
    hs_trace_close(t);
    return rc;
}
