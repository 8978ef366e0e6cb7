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
 *   - Data-out operations (tag sends, puts, active messages, atomics) are
 *     one network message of their bytes to the peer's node; gets and
 *     fetching atomics a control message there and their bytes back.  A
 *     tag receive completes when it was posted and the send it matched has
 *     arrived; sends are matched to receives at load time by (destination,
 *     UCX tag of the completion, size) in post order, so the library's own
 *     matching is kept.  A flush completes when the rank's earlier implicit
 *     operations have.  Between ranks on one node a transfer takes the
 *     shared-memory latency plus a copy at memory bandwidth.
 *   - Operations posted before the job epoch (inside MPI_Init) and those
 *     whose peer is unknown are not replayed (counted in the report).
 * The result fills hs_replay_result's totals; the run directory has no
 * app.json. */
#include "replay.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WK_OUT = 1, WK_GET, WK_RECV, WK_FLUSH, WK_LOCAL };

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
    hs_time  issue, done;     /* simulated; done = HS_TIME_NEVER until complete */
    hs_time  arrived;         /* WK_OUT: delivery at the peer */
    uint8_t  issued;
} wop;

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
    uint64_t messages, bytes, intra, skipped_early, skipped_peer, unmatched;
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
                    .match = RP_NIL,
                    .nbi = (ev.flags & HS_TRACE_F_WIRE_NBI) != 0, .done = HS_TIME_NEVER,
                    .arrived = HS_TIME_NEVER };
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
static int is_tag_send(const wop *o)
{
    return o->wop == HS_TRACE_WOP_TAG_SEND || o->wop == HS_TRACE_WOP_TAG_SSEND;
}

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
enum { CK_RANK = 1, CK_ARRIVE, CK_GETREQ, CK_GETRESP };

static void advance(wsim *S, uint32_t r, hs_time now);

static void complete(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    if (o->done != HS_TIME_NEVER)
        return;
    o->done = t;
    advance(S, S->owner[i], t);
}

/* The data of send i reached its destination at t. */
static void arrived(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    o->arrived = t;
    complete(S, i, t);
    if (o->match != RP_NIL) {
        wop *rv = &S->op[o->match];
        if (rv->issued)
            complete(S, o->match, t > rv->issue ? t : rv->issue);
    }
}

static hs_time shm_time(const wsim *S, uint64_t bytes)
{
    uint64_t bw = S->p->mem_bw ? S->p->mem_bw : 1;
    return S->p->shm_latency + (hs_time)((__int128)bytes * 1000000000000 / bw);
}

static void transfer(wsim *S, uint32_t from, uint32_t to, uint64_t bytes, uint64_t cookie,
                     hs_time t)
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
    if (hs_fabric_inject(S->F, t, a, b, bytes, 1, 1, cookie))
        S->failed = 1;
}

static void issue(wsim *S, uint32_t i, hs_time t)
{
    wop *o = &S->op[i];
    uint32_t r = S->owner[i];
    o->issued = 1;
    o->issue = t;
    switch (o->kind) {
    case WK_OUT:
        if (o->peer == (int32_t)r)
            arrived(S, i, t + shm_time(S, o->bytes));
        else
            transfer(S, r, (uint32_t)o->peer, o->bytes, (uint64_t)CK_ARRIVE << 60 | i, t);
        if (o->imm)
            complete(S, i, t);   /* buffered: the sender goes on at once */
        break;
    case WK_GET:
        if (o->peer == (int32_t)r)
            complete(S, i, t + shm_time(S, o->bytes));
        else
            transfer(S, r, (uint32_t)o->peer, S->p->ctrl_bytes, (uint64_t)CK_GETREQ << 60 | i, t);
        break;
    case WK_RECV:
        if (o->match == RP_NIL)
            complete(S, i, t);              /* its sender is not in the trace */
        else if (S->op[o->match].arrived != HS_TIME_NEVER)
            complete(S, i, t > S->op[o->match].arrived ? t : S->op[o->match].arrived);
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
        transfer(S, (uint32_t)o->peer, S->owner[i], o->bytes, (uint64_t)CK_GETRESP << 60 | i, t);
        break;
    }
    case CK_GETRESP:
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
    hs_fabric_phase_name(S.F, 1, "wire transfers");
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
             " receives matched no recorded send%s\n",
             S.nop, S.nranks, S.messages, S.intra, S.bytes, S.skipped_early, S.skipped_peer,
             S.unmatched, stuck ? "; some ranks could not go on (dependencies never met)" : "");
    res->report = strdup(rep);
    res->wall_load = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
    res->wall_run = (double)(w2.tv_sec - w1.tv_sec) + (double)(w2.tv_nsec - w1.tv_nsec) / 1e9;
    if (p->out && (rc = hs_fabric_write_rundir(S.F, p->out, NULL, NULL, err)))
        goto out;
    struct timespec w3;
    clock_gettime(CLOCK_MONOTONIC, &w3);
    res->wall_write = (double)(w3.tv_sec - w2.tv_sec) + (double)(w3.tv_nsec - w2.tv_nsec) / 1e9;
    res->wall = (double)(w3.tv_sec - w0.tv_sec) + (double)(w3.tv_nsec - w0.tv_nsec) / 1e9;
out:
    if (S.F)
        hs_fabric_destroy(S.F);
    free(S.op);
    free(S.deps);
    free(S.owner);
    free(S.rk);
    hs_trace_close(t);
    return rc;
}
