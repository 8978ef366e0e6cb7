/* The partition of a network for a parallel run (pdes.h; docs/fabric.md,
 * "Parallel runs"). */
#include "pdes.h"
#include "engine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

void hs__partition_free(hs__part *p)
{
    free(p->sw_part);
    free(p->nodes);
    free(p->switches);
    memset(p, 0, sizeof *p);
}

/* Cuts the items 0..n) (weights w, in order) into np contiguous non-empty
 * blocks of about equal weight: each block in turn takes the items whose
 * weight's midpoint falls within an equal share of the weight left (the
 * blocks left share it), at least one item and leaving at least one for
 * each block after it.  blk[i] = the block of item i.  n >= np >= 1. */
static void cut_blocks(const double *w, uint32_t n, unsigned np, uint32_t *blk)
{
    double total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += w[i];
    uint32_t start = 0;   /* first item of the current block */
    double acc = 0;
    uint32_t i = 0;
    for (unsigned k = 0; k < np; k++) {
        /* block k: from start to the item before the next boundary */
        uint32_t end;
        if (k == np - 1) {
            end = n;
        } else {
            /* the weight left, shared by the blocks left */
            double target = acc + (total - acc) / (double)(np - k);
            end = i;
            double a = acc;
            /* an item goes to the block its weight's midpoint falls in */
            while (end < n && a + w[end] / 2 < target) {
                a += w[end];
                end++;
            }
            uint32_t lo = start + 1, hi = n - (np - 1 - k);
            if (end < lo)
                end = lo;
            if (end > hi)
                end = hi;
        }
        for (; i < end; i++) {
            blk[i] = k;
            acc += w[i];
        }
        start = end;
    }
}

/* Cuts the switches, in the order ord[0..n), into np blocks of about equal
 * weight (w per switch, or its ports). */
static int chunk(const hs_topo *t, const uint32_t *ord, uint32_t n, unsigned np,
                 const double *sw_w, uint32_t *part)
{
    double *w = calloc(n ? n : 1, sizeof *w);
    uint32_t *blk = malloc((size_t)n * sizeof *blk);
    if (!w || !blk) {
        free(w);
        free(blk);
        return HS_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        w[i] = sw_w ? sw_w[ord[i]] : (double)(t->port_off[ord[i] + 1] - t->port_off[ord[i]]);
    cut_blocks(w, n, np, blk);
    for (uint32_t i = 0; i < n; i++)
        part[ord[i]] = blk[i];
    free(w);
    free(blk);
    return 0;
}

int hs__partition(const hs_topo *t, unsigned np, hs_time route_delay, hs__part *out)
{
    return hs__partition_w(t, np, route_delay, NULL, out);
}

int hs__partition_w(const hs_topo *t, unsigned np, hs_time route_delay, const double *w,
                    hs__part *out)
{
    memset(out, 0, sizeof *out);
    uint32_t S = t->nswitches;
    if (np < 1 || np > HS_PDES_MAX_PARTS || np > S)
        return HS_EINVAL;
    out->np = np;
    out->sw_part = calloc(S, sizeof *out->sw_part);
    out->nodes = calloc(np, sizeof *out->nodes);
    out->switches = calloc(np, sizeof *out->switches);
    uint32_t *ord = malloc((size_t)S * sizeof *ord);
    if (!out->sw_part || !out->nodes || !out->switches || !ord) {
        free(ord);
        hs__partition_free(out);
        return HS_ENOMEM;
    }
    uint32_t *part = out->sw_part;
    int rc = 0;
    switch (t->kind) {
    case HS_TOPO_DRAGONFLY: {
        const hs__dragonfly *d = &t->u.df;
        if (d->g >= np && w) {
            /* whole groups, cut by their summed weights */
            double *gw = calloc(d->g, sizeof *gw);
            uint32_t *gb = malloc((size_t)d->g * sizeof *gb);
            if (!gw || !gb) {
                rc = HS_ENOMEM;
            } else {
                for (uint32_t s = 0; s < S; s++)
                    gw[s / d->a] += w[s];
                cut_blocks(gw, d->g, np, gb);
                for (uint32_t s = 0; s < S; s++)
                    part[s] = gb[s / d->a];
            }
            free(gw);
            free(gb);
        } else if (w) {
            for (uint32_t s = 0; s < S; s++)
                ord[s] = s;
            rc = chunk(t, ord, S, np, w, part);
        } else {
            for (uint32_t s = 0; s < S; s++)
                part[s] = d->g >= np ? (uint32_t)((uint64_t)(s / d->a) * np / d->g)
                                     : (uint32_t)((uint64_t)s * np / S);
        }
        break;
    }
    case HS_TOPO_FATTREE: {
        const hs__fattree *f = &t->u.ft;
        for (unsigned l = 1; l <= f->h && !rc; l++) {
            uint32_t c = f->count[l];
            if (w && c >= np) {
                for (uint32_t i = 0; i < c; i++)
                    ord[i] = f->first[l] + i;
                rc = chunk(t, ord, c, np, w, part);
            } else {
                for (uint32_t i = 0; i < c; i++)
                    part[f->first[l] + i] = (uint32_t)((uint64_t)i * np / c);
            }
        }
        break;
    }
    case HS_TOPO_TORUS:
        if (w) {
            for (uint32_t s = 0; s < S; s++)
                ord[s] = s;
            rc = chunk(t, ord, S, np, w, part);
        } else {
            for (uint32_t s = 0; s < S; s++)
                part[s] = (uint32_t)((uint64_t)s * np / S);
        }
        break;
    default: {
        /* breadth-first from switch 0, then from the first switch not yet
         * reached (a file may hold several components) */
        uint32_t *dist = malloc((size_t)S * sizeof *dist);
        if (!dist) {
            free(ord);
            hs__partition_free(out);
            return HS_ENOMEM;
        }
        memset(dist, 0xff, (size_t)S * sizeof *dist);
        uint32_t nq = 0;
        for (uint32_t s = 0; s < S; s++)
            if (dist[s] == UINT32_MAX)
                hs__topo_bfs(t, s, dist, ord, &nq);
        free(dist);
        rc = chunk(t, ord, S, np, w, part);
        break;
    }
    }
    free(ord);
    if (rc) {
        hs__partition_free(out);
        return rc;
    }

    for (uint32_t s = 0; s < S; s++)
        out->switches[part[s]]++;
    for (uint32_t n = 0; n < t->nnodes; n++)
        out->nodes[part[t->node_sw[n]]]++;
    out->lookahead = out->lookahead_pkt = HS_TIME_NEVER;
    for (uint32_t l = 1; l <= t->nlinks; l++) {
        const hs_link_info *li = &t->links[l];
        if (li->from_kind != HS_DEV_SWITCH || li->to_kind != HS_DEV_SWITCH ||
            part[li->from] == part[li->to])
            continue;
        out->cut++;
        if (li->lat < out->lookahead)
            out->lookahead = li->lat;
        if (li->lat + route_delay < out->lookahead_pkt)
            out->lookahead_pkt = li->lat + route_delay;
    }
    return 0;
}

/* ---- the engine's side of a parallel run -------------------------------------
 * The process's fabric holds the whole network (the arrays are shared
 * constants and per-link state) but runs only the events of its part's
 * devices.  An event for another part (a packet arriving at, or a credit
 * returning to, a switch there) is written to that part's outbox with its
 * key, and its packet leaves the pool; the receiver queues it with the
 * same key, so the order of everything is the sequential run's. */
typedef struct hs__obuf {
    unsigned char *b;
    size_t n, cap;
} hs__obuf;

struct hs__pdes {
    hs__part  part;
    unsigned  me;
    hs__obuf *out;        /* [np] */
    hs_fabric_par_stats ps;
    int       released;   /* other parts' pages given back (at the first window) */
    uint64_t *win_cpu;    /* [ps.windows] CPU ns running each window */
    size_t    capwin;
};

/* On the wire: the event (24 bytes), then for EV_ARRIVE its packet's hot
 * and cold parts, for EV_PAYLOAD the payload's bytes.  Every process runs
 * the same binary, so the layout is the in-memory one. */
typedef struct hs__wev {
    hs_time  t;
    uint64_t seq;
    uint64_t d;
} hs__wev;

void hs__pdes_free(hs_fabric *F)
{
    struct hs__pdes *pd = F->pd;
    if (!pd)
        return;
    for (unsigned i = 0; i < pd->part.np; i++)
        free(pd->out[i].b);
    free(pd->out);
    free(pd->win_cpu);
    hs__partition_free(&pd->part);
    free(pd);
    F->pd = NULL;
}

static void release_remote(hs_fabric *F);

int hs_fabric_partition(hs_fabric *F, unsigned np, unsigned me)
{
    if (F->in_run || F->pd || me >= np || F->st.messages_posted || F->ms_live)
        return F->pd ? HS_ESTATE : HS_EINVAL;
    if (F->topo->routing == HS_ROUTE_UGAL_G)
        return HS_ENOTSUP;   /* reads queues in other groups: no lookahead covers it */
    if (F->bs)
        return HS_ENOTSUP;   /* router=booksim: one cycle-level model, one process */
    struct hs__pdes *pd = calloc(1, sizeof *pd);
    if (!pd)
        return HS_ENOMEM;
    int rc = hs__partition(F->topo, np, F->prm.route_delay, &pd->part);
    if (rc) {
        free(pd);
        return rc;
    }
    pd->me = me;
    pd->out = calloc(np, sizeof *pd->out);
    if (!pd->out) {
        hs__partition_free(&pd->part);
        free(pd);
        return HS_ENOMEM;
    }
    F->pd = pd;
    return 0;
}

int hs_fabric_partition_balance(hs_fabric *F, const double *node_load)
{
    struct hs__pdes *pd = F->pd;
    if (!pd)
        return HS_ESTATE;
    if (F->in_run || pd->released || F->st.messages_posted || F->ms_live)
        return HS_ESTATE;
    uint32_t S = F->S;
    double *w = calloc(S ? S : 1, sizeof *w);
    if (!w)
        return HS_ENOMEM;
    double total = 0;
    for (uint32_t n = 0; n < F->N; n++) {
        double x = node_load[n] > 0 ? node_load[n] : 0;
        w[F->topo->node_sw[n]] += x;
        total += x;
    }
    /* transit: every switch carries some of the traffic between others */
    for (uint32_t s = 0; s < S; s++)
        w[s] += total / S;
    hs__part np;
    int rc = total > 0 ? hs__partition_w(F->topo, pd->part.np, F->prm.route_delay, w, &np) : 0;
    free(w);
    if (rc || total <= 0)
        return rc;
    hs__partition_free(&pd->part);
    pd->part = np;
    return 0;
}

/* ---- memory: the other parts' per-device state --------------------------------
 * Every process allocates the whole network's arrays (their indices are
 * the network's), but a part never touches another part's switch ports or
 * links: their pages are given back to the system (they read as zero, and
 * nothing reads them).  A link is kept where either end is local (an
 * arrival reads its gp_in), and whole at part 0, which writes the links'
 * thresholds into the run directory. */
static size_t release(void *base, size_t esz, size_t i0, size_t i1)
{
    long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0 || i1 <= i0)
        return 0;
    uintptr_t lo = (uintptr_t)base + i0 * esz, hi = (uintptr_t)base + i1 * esz;
    lo = (lo + (uintptr_t)pg - 1) / (uintptr_t)pg * (uintptr_t)pg;
    hi = hi / (uintptr_t)pg * (uintptr_t)pg;
    if (hi <= lo || madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0)
        return 0;
    return hi - lo;
}

int hs__pdes_link_local(const hs_fabric *F, uint32_t l)
{
    if (!F->pd)
        return 1;
    const hs_link_info *li = &F->lk[l];
    const uint32_t *part = F->pd->part.sw_part, me = F->pd->me;
    uint32_t a = li->from_kind == HS_DEV_NODE ? F->topo->node_sw[li->from] : li->from;
    uint32_t b = li->to_kind == HS_DEV_NODE ? F->topo->node_sw[li->to] : li->to;
    return part[a] == me || part[b] == me;
}

static void release_remote(hs_fabric *F)
{
    struct hs__pdes *pd = F->pd;
    size_t got = 0;
    if (pd->me != 0) {
        /* links: runs of links neither end of which is local */
        size_t run = 0;
        for (uint32_t l = 1; l <= F->L + 1; l++) {
            if (l <= F->L && !hs__pdes_link_local(F, l)) {
                if (!run)
                    run = l;
                continue;
            }
            if (run) {
                got += release(F->op, sizeof *F->op, run, l);
                if (F->credits)
                    got += release(F->credits, F->nvc * sizeof *F->credits, run, l);
                run = 0;
            }
        }
    }
    /* switch ports' request queues: runs of other parts' switches */
    const uint32_t *off = F->topo->port_off;
    uint32_t s0 = UINT32_MAX;
    for (uint32_t s = 0; s <= F->S; s++) {
        if (s < F->S && pd->part.sw_part[s] != pd->me) {
            if (s0 == UINT32_MAX)
                s0 = s;
            continue;
        }
        if (s0 != UINT32_MAX) {
            got += release(F->rq, F->nvc * sizeof *F->rq, off[s0], off[s]);
            s0 = UINT32_MAX;
        }
    }
    pd->ps.released_bytes = got;
    pd->released = 1;
}

int hs_fabric_node_local(const hs_fabric *F, uint32_t node)
{
    return !F->pd || hs__part_of_node(F->topo, &F->pd->part, node) == F->pd->me;
}

hs_time hs_fabric_lookahead(const hs_fabric *F)
{
    return F->pd ? F->pd->part.lookahead : HS_TIME_NEVER;
}

unsigned hs_fabric_nparts(const hs_fabric *F) { return F->pd ? F->pd->part.np : 1; }
unsigned hs_fabric_part(const hs_fabric *F) { return F->pd ? F->pd->me : 0; }

/* The part of the device an EV_ARRIVE or EV_CREDIT happens at. */
static uint32_t ev_part(const hs_fabric *F, const hs__fev *e)
{
    uint64_t arg = e->d & EV_ARG_MASK;
    uint32_t sw;
    if ((e->d >> EV_SHIFT) == EV_ARRIVE) {
        sw = F->lk[F->pk[arg & EV_IDX_MASK].in].to;
    } else {
        const hs_link_info *li = &F->lk[(uint32_t)(arg >> CR_LINK_SHIFT)];
        sw = li->from_kind == HS_DEV_NODE ? F->topo->node_sw[li->from] : li->from;
    }
    return F->pd->part.sw_part[sw];
}

int hs__pdes_remote(const hs_fabric *F, const hs__fev *e)
{
    return ev_part(F, e) != F->pd->me;
}

static int obuf_put(hs_fabric *F, hs__obuf *o, const void *x, size_t n)
{
    if (o->n + n > o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 4096;
        while (nc < o->n + n)
            nc *= 2;
        unsigned char *b = realloc(o->b, nc);
        if (!b) {
            F->error = HS_ENOMEM;
            return HS_ENOMEM;
        }
        o->b = b;
        o->cap = nc;
    }
    memcpy(o->b + o->n, x, n);
    o->n += n;
    return 0;
}

int hs__pdes_send(hs_fabric *F, const hs__fev *e)
{
    hs__obuf *o = &F->pd->out[ev_part(F, e)];
    F->pd->ps.sent++;
    hs__wev w = { e->t, e->seq, e->d };
    int rc = obuf_put(F, o, &w, sizeof w);
    if (!rc && (e->d >> EV_SHIFT) == EV_ARRIVE) {
        uint32_t p = (uint32_t)(e->d & EV_IDX_MASK);
        if (!(rc = obuf_put(F, o, &F->pk[p], sizeof F->pk[p])) &&
            !(rc = obuf_put(F, o, &F->pc[p], sizeof F->pc[p])))
            hs__pkt_free(F, p);
    }
    return rc;
}

int hs__pdes_send_payload(hs_fabric *F, uint32_t dst, uint32_t src, uint64_t mser,
                          const void *b, uint32_t len)
{
    hs__obuf *o = &F->pd->out[F->pd->part.sw_part[F->topo->node_sw[dst]]];
    hs__wev w = { F->now, (uint64_t)src << 40 | (mser & ((1ull << 40) - 1)),
                  (uint64_t)EV_PAYLOAD << EV_SHIFT | len };
    int rc = obuf_put(F, o, &w, sizeof w);
    return rc ? rc : obuf_put(F, o, b, len);
}

int hs_fabric_outbox(const hs_fabric *F, unsigned part, const void **buf, size_t *len)
{
    if (!F->pd || part >= F->pd->part.np)
        return HS_EINVAL;
    *buf = F->pd->out[part].b;
    *len = F->pd->out[part].n;
    return 0;
}

void hs_fabric_outbox_clear(hs_fabric *F)
{
    if (F->pd)
        for (unsigned i = 0; i < F->pd->part.np; i++)
            F->pd->out[i].n = 0;
}

int hs_fabric_inbox(hs_fabric *F, const void *buf, size_t len)
{
    if (!F->pd)
        return HS_ESTATE;
    const unsigned char *b = buf, *end = b + len;
    while (b < end) {
        hs__wev w;
        if ((size_t)(end - b) < sizeof w)
            return HS_EFORMAT;
        memcpy(&w, b, sizeof w);
        b += sizeof w;
        hs__fev e = { w.t, w.seq, w.d };
        unsigned type = (unsigned)(w.d >> EV_SHIFT);
        if (type == EV_PAYLOAD) {
            uint64_t pn = w.d & EV_ARG_MASK;
            uint32_t src = (uint32_t)(w.seq >> 40);
            if (pn > HS_FABRIC_PAYLOAD || (size_t)(end - b) < pn || src >= F->N)
                return HS_EFORMAT;
            int rc = hs__pl_put(F, src, w.seq & ((1ull << 40) - 1), b, (uint32_t)pn);
            if (rc)
                return rc;
            b += pn;
            continue;
        }
        F->pd->ps.received++;
        if (w.t < F->now || (type != EV_ARRIVE && type != EV_CREDIT))
            return HS_EFORMAT;
        if (type == EV_ARRIVE) {
            if ((size_t)(end - b) < sizeof(hs__pkt) + sizeof(hs__pkc))
                return HS_EFORMAT;
            uint32_t p = hs__pkt_alloc(F);
            if (p == HS_NIL)
                return HS_ENOMEM;
            memcpy(&F->pk[p], b, sizeof(hs__pkt));
            b += sizeof(hs__pkt);
            memcpy(&F->pc[p], b, sizeof(hs__pkc));
            b += sizeof(hs__pkc);
            /* phase indices are each process's own (in order of first
             * use): the packet's, from its phase id */
            uint16_t pidx = hs__phase_index(F, F->pc[p].phase);
            if (pidx == 0xffff) {
                hs__pkt_free(F, p);
                return HS_ENOMEM;
            }
            F->pk[p].pidx = pidx;
            uint32_t in = F->pk[p].in;
            if (in == 0 || in > F->L || F->op[in].to_sw == HS_NIL) {
                hs__pkt_free(F, p);
                return HS_EFORMAT;
            }
            e.d = (uint64_t)EV_ARRIVE << EV_SHIFT |
                  (uint64_t)F->op[in].to_sw << EV_DEV_SHIFT | p;
        }
        int rc = hs__ev_insert(F, e);
        if (rc)
            return rc;
    }
    return 0;
}

hs_time hs_fabric_next_time(const hs_fabric *F)
{
    return hs__ev_next_time(F);
}

int hs_fabric_run_window(hs_fabric *F, hs_time end)
{
    if (!F->pd)
        return HS_ESTATE;
    if (end == 0)
        return 0;
    int rc = hs_fabric_run(F, end - 1);
    return rc == 1 ? 0 : rc;
}

uint64_t hs_fabric_held(const hs_fabric *F)
{
    return (uint64_t)F->pk_live + F->ms_live;
}

static uint64_t clk(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hs__timer_skip(hs_fabric *F)
{
    F->dev_seq[F->in_run ? F->cur_dev : F->ext_dev]++;
    if (!F->pd || F->pd->me == 0) {
        F->st.events++;
        if (F->pd)
            F->pd->ps.skipped++;
    }
}

void hs__pdes_uncount(hs_fabric *F)
{
    F->st.events--;
    F->pd->ps.uncounted++;
}

hs_fabric_par_stats *hs__pdes_stats(hs_fabric *F)
{
    return F->pd ? &F->pd->ps : NULL;
}

uint64_t hs__pdes_clock(int cpu)
{
    return clk(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
}

int hs_fabric_par_stats_get(const hs_fabric *F, hs_fabric_par_stats *out)
{
    if (!F->pd)
        return HS_ESTATE;
    *out = F->pd->ps;
    return 0;
}

int hs_fabric_par_critical(const hs_fabric *F, const hs_fabric_transport *tr, uint64_t *ns)
{
    if (!F->pd)
        return HS_ESTATE;
    const struct hs__pdes *pd = F->pd;
    unsigned np = pd->part.np;
    size_t nw = pd->ps.windows < pd->capwin ? pd->ps.windows : pd->capwin;
    const void **out = calloc(np, sizeof *out);
    size_t *ol = calloc(np, sizeof *ol);
    if (!out || !ol) {
        free(out);
        free(ol);
        return HS_ENOMEM;
    }
    /* every process ran the same windows: part 0 takes each window's
     * largest CPU time */
    if (pd->me != 0) {
        out[0] = pd->win_cpu;
        ol[0] = nw * sizeof *pd->win_cpu;
    }
    const void *in = NULL;
    size_t inlen = 0;
    int rc = tr->exchange(tr->ctx, out, ol, &in, &inlen);
    free(out);
    free(ol);
    if (rc)
        return rc;
    *ns = 0;
    if (pd->me != 0)
        return 0;
    uint64_t *mx = calloc(nw ? nw : 1, sizeof *mx);
    if (!mx)
        return HS_ENOMEM;
    for (size_t w = 0; w < nw; w++)
        mx[w] = pd->win_cpu[w];
    const unsigned char *b = in;
    if (inlen != (size_t)(np - 1) * nw * 8)
        inlen = 0;   /* a process lost count (out of memory): its own times only */
    for (size_t i = 0; i + 8 <= inlen; i += 8) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        size_t w = (i / 8) % (nw ? nw : 1);
        if (v > mx[w])
            mx[w] = v;
    }
    for (size_t w = 0; w < nw; w++)
        *ns += mx[w];
    free(mx);
    return 0;
}

/* Thread CPU and wall clock at the last lap of a parallel run. */
typedef struct lap {
    uint64_t cpu, wall;
} lap;

/* Adds the CPU and wall time since the last lap to *cpu and *wall, starts
 * the next lap, and returns the CPU part. */
static uint64_t lap_add(lap *l, uint64_t *cpu, uint64_t *wall)
{
    uint64_t c = clk(CLOCK_THREAD_CPUTIME_ID), w = clk(CLOCK_MONOTONIC), dc = c - l->cpu;
    *cpu += dc;
    *wall += w - l->wall;
    l->cpu = c;
    l->wall = w;
    return dc;
}

int hs_fabric_run_parallel(hs_fabric *F, const hs_fabric_transport *tr)
{
    if (!F->pd)
        return HS_ESTATE;
    hs_fabric_par_stats *ps = &F->pd->ps;
    if (!F->pd->released)
        release_remote(F);   /* the partition is final now */
    lap L = { clk(CLOCK_THREAD_CPUTIME_ID), clk(CLOCK_MONOTONIC) };
    unsigned np = F->pd->part.np;
    hs_time la = F->pd->part.lookahead;
    const void **out = calloc(np, sizeof *out);
    size_t *outlen = calloc(np, sizeof *outlen);
    int rc = out && outlen ? 0 : HS_ENOMEM;
    for (;;) {
        /* one reduction carries the next time, shifted by one, and a
         * failure anywhere as 0, so that every process stops together */
        hs_time t = hs_fabric_next_time(F);
        t = rc ? 0 : t == HS_TIME_NEVER ? t : t + 1;
        int trc = tr->min_time(tr->ctx, &t);
        lap_add(&L, &ps->sync_cpu_ns, &ps->sync_wall_ns);
        if (trc || t == 0) {
            rc = rc ? rc : trc ? trc : HS_ECHILD;   /* another process failed */
            break;
        }
        if (t == HS_TIME_NEVER)
            break;
        t--;
        hs_time end = la == HS_TIME_NEVER || t > HS_TIME_NEVER - la ? HS_TIME_NEVER : t + la;
        uint64_t ev0 = F->st.events;
        rc = hs_fabric_run_window(F, end);
        if (rc == 2)
            rc = HS_ENOTSUP;
        ps->events += F->st.events - ev0;
        uint64_t dc = lap_add(&L, &ps->run_cpu_ns, &ps->run_wall_ns);
        if (ps->windows == F->pd->capwin) {
            size_t nc = F->pd->capwin ? 2 * F->pd->capwin : 256;
            uint64_t *n = realloc(F->pd->win_cpu, nc * sizeof *n);
            if (n) {
                F->pd->win_cpu = n;
                F->pd->capwin = nc;
            }
        }
        if (ps->windows < F->pd->capwin)
            F->pd->win_cpu[ps->windows] = dc;
        ps->windows++;
        for (unsigned p = 0; p < np; p++) {
            out[p] = F->pd->out[p].b;
            outlen[p] = p == F->pd->me ? 0 : F->pd->out[p].n;
            ps->sent_bytes += outlen[p];
        }
        const void *in;
        size_t inlen;
        trc = tr->exchange(tr->ctx, out, outlen, &in, &inlen);
        hs_fabric_outbox_clear(F);
        if (trc) {
            rc = rc ? rc : trc;
            break;
        }
        lap_add(&L, &ps->sync_cpu_ns, &ps->sync_wall_ns);
        if (!rc)
            rc = hs_fabric_inbox(F, in, inlen);
        dc = lap_add(&L, &ps->run_cpu_ns, &ps->run_wall_ns);
        if (ps->windows && ps->windows <= F->pd->capwin)
            F->pd->win_cpu[ps->windows - 1] += dc;
    }
    free(out);
    free(outlen);
    if (rc == HS_ENOTSUP || rc < 0)
        return rc;
    /* globally idle: anything still held anywhere is stuck */
    hs_time any = hs_fabric_held(F) ? 0 : 1;
    if ((rc = tr->min_time(tr->ctx, &any)))
        return rc;
    return any == 0 ? HS_EDEADLOCK : 1;
}
