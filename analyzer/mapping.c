/* Suggested mappings, their cost, and mapping files.
 *
 * The suggestion keeps the job on the nodes it had (the same slots, so the
 * comparison is fair) and permutes the ranks over them by recursive
 * bisection, the classic dual recursive bipartitioning of static mapping
 * (Scotch, Pellegrini): the slots, ordered by node index (fabric numbers
 * nodes leaf by leaf and pod by pod, group by group, or along the torus
 * dimensions), are cut at the boundary where consecutive nodes are
 * farthest apart in switch hops (a pod or group boundary) nearest the
 * middle; the ranks are cut into two parts of exactly those sizes with the
 * least communication between them (greedy graph growing from a few seeds
 * far apart, each refined by Fiduccia-Mattheyses passes with alternating
 * moves that keep the sizes; the smallest cut wins);
 * both halves recurse until one rank is left per slot.  Last, ranks under
 * one switch swap nodes while that lowers the sum of squared link loads of
 * the routed communication (which port a rank takes decides which links
 * its traffic uses).  Communication is
 * app.json's matrix made symmetric (bytes both ways).  Ties are broken by
 * the lowest index everywhere, so the result is deterministic. */
#include "an.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FM_PASSES 8
#define MAX_HOPS 64

uint32_t hs__an_switch_hops(const hs__run *r, uint32_t src, uint32_t dst)
{
    uint32_t s = r->nd[src].sw, d = r->nd[dst].sw, c = hs__node_class(r, dst), h = 0;
    while (s != d && h < MAX_HOPS) {
        uint32_t l = hs__route_first(r, s, c);
        if (!l)
            break;
        s = r->lk[l].to;
        h++;
    }
    return h;
}

double hs__an_mapping_byte_hops(const hs_analysis *a, const uint32_t *node_of_rank,
                             double *remote_bytes)
{
    double bh = 0, rb = 0;
    for (size_t i = 0; i < a->app->ncomm; i++) {
        const hs__app_comm *c = &a->app->comm[i];
        uint32_t x = node_of_rank[c->src], y = node_of_rank[c->dst];
        if (x == y)
            continue;
        uint32_t h = hs__an_switch_hops(a->r, x, y);
        bh += (double)c->bytes * h;
        if (h)
            rb += (double)c->bytes;
    }
    if (remote_bytes)
        *remote_bytes = rb;
    return bh;
}

int hs_an_mapping_cost(const hs_analysis *a, const uint32_t *node_of_rank,
                             double *remote_bytes, double *byte_hops)
{
    if (!a->app || !a->app->ncomm)
        return HS_ENOTSUP;
    *byte_hops = hs__an_mapping_byte_hops(a, node_of_rank, remote_bytes);
    return 0;
}

/* ---- the communication graph ------------------------------------------------------ */

typedef struct cgraph {
    uint32_t n;
    uint32_t *off, *adj;
    double   *w;
} cgraph;

typedef struct edge {
    uint32_t u, v;
    double   w;
} edge;

static int cmp_edge(const void *x, const void *y)
{
    const edge *a = x, *b = y;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

static int graph_build(const hs__app *app, cgraph *g)
{
    memset(g, 0, sizeof *g);
    g->n = app->ranks;
    size_t m = 0;
    edge *e = malloc((2 * app->ncomm + 1) * sizeof *e);
    if (!e)
        return HS_ENOMEM;
    for (size_t i = 0; i < app->ncomm; i++) {
        const hs__app_comm *c = &app->comm[i];
        if (c->src == c->dst || !c->bytes)
            continue;
        e[m++] = (edge){ c->src, c->dst, (double)c->bytes };
        e[m++] = (edge){ c->dst, c->src, (double)c->bytes };
    }
    qsort(e, m, sizeof *e, cmp_edge);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && e[k - 1].u == e[i].u && e[k - 1].v == e[i].v)
            e[k - 1].w += e[i].w;
        else
            e[k++] = e[i];
    }
    g->off = calloc((size_t)g->n + 1, sizeof *g->off);
    g->adj = malloc((k ? k : 1) * sizeof *g->adj);
    g->w = malloc((k ? k : 1) * sizeof *g->w);
    if (!g->off || !g->adj || !g->w) {
        free(e);
        return HS_ENOMEM;
    }
    for (size_t i = 0; i < k; i++) {
        g->off[e[i].u + 1]++;
        g->adj[i] = e[i].v;
        g->w[i] = e[i].w;
    }
    for (uint32_t i = 0; i < g->n; i++)
        g->off[i + 1] += g->off[i];
    free(e);
    return 0;
}

static void graph_free(cgraph *g)
{
    free(g->off);
    free(g->adj);
    free(g->w);
}

/* ---- bisection ------------------------------------------------------------------------ */

typedef struct bis {
    const cgraph *g;
    int8_t *side;        /* per rank: -1 outside the current set, 0 or 1 */
    int8_t *best;        /* the best sides found so far */
    double *gain;        /* per rank: weight to the other side - weight to its own */
    uint8_t *locked;
    uint32_t *moves, *dist, *queue;
} bis;

/* Breadth-first distances from `seed` inside the set (side >= 0); ranks it
 * cannot reach get UINT32_MAX.  Returns the farthest reached rank. */
static uint32_t bfs(bis *B, const uint32_t *set, uint32_t n, uint32_t seed)
{
    const cgraph *g = B->g;
    for (uint32_t i = 0; i < n; i++)
        B->dist[set[i]] = UINT32_MAX;
    uint32_t qh = 0, qt = 0, far = seed;
    B->dist[seed] = 0;
    B->queue[qt++] = seed;
    while (qh < qt) {
        uint32_t v = B->queue[qh++];
        far = v;
        for (uint32_t j = g->off[v]; j < g->off[v + 1]; j++) {
            uint32_t u = g->adj[j];
            if (B->side[u] >= 0 && B->dist[u] == UINT32_MAX) {
                B->dist[u] = B->dist[v] + 1;
                B->queue[qt++] = u;
            }
        }
    }
    return far;
}

/* Greedy graph growing of side 0 from seed: the rank with the most weight
 * into side 0, then the nearest to the seed (a round region, not a slab),
 * then the lowest index. */
static void grow(bis *B, const uint32_t *set, uint32_t n, uint32_t n0, uint32_t seed)
{
    const cgraph *g = B->g;
    bfs(B, set, n, seed);
    for (uint32_t i = 0; i < n; i++) {
        B->side[set[i]] = 1;
        B->gain[set[i]] = 0;
    }
    for (uint32_t k = 0; k < n0; k++) {
        uint32_t best = k == 0 ? seed : HS__NIL;
        for (uint32_t i = 0; i < n && k; i++) {
            uint32_t v = set[i];
            if (B->side[v] != 1)
                continue;
            if (best == HS__NIL || B->gain[v] > B->gain[best] ||
                (B->gain[v] == B->gain[best] &&
                 (B->dist[v] < B->dist[best] || (B->dist[v] == B->dist[best] && v < best))))
                best = v;
        }
        B->side[best] = 0;
        for (uint32_t j = g->off[best]; j < g->off[best + 1]; j++)
            B->gain[g->adj[j]] += g->w[j];
    }
}

/* Fiduccia-Mattheyses passes; moves alternate sides so that after an even
 * number of them the sizes are unchanged; each pass keeps its best
 * balanced prefix. */
static void refine(bis *B, const uint32_t *set, uint32_t n, uint32_t n0)
{
    const cgraph *g = B->g;
    for (int pass = 0; pass < FM_PASSES; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = set[i];
            double ext = 0, in = 0;
            for (uint32_t j = g->off[v]; j < g->off[v + 1]; j++) {
                int8_t s = B->side[g->adj[j]];
                if (s < 0)
                    continue;
                if (s == B->side[v])
                    in += g->w[j];
                else
                    ext += g->w[j];
            }
            B->gain[v] = ext - in;
            B->locked[v] = 0;
        }
        double cum = 0, best = 0;
        uint32_t best_k = 0, k = 0;
        int from = 0;
        for (; k < 2 * (n0 < n - n0 ? n0 : n - n0); k++, from ^= 1) {
            uint32_t pick = HS__NIL;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t v = set[i];
                if (B->locked[v] || B->side[v] != from)
                    continue;
                if (pick == HS__NIL || B->gain[v] > B->gain[pick] ||
                    (B->gain[v] == B->gain[pick] && v < pick))
                    pick = v;
            }
            if (pick == HS__NIL)
                break;
            cum += B->gain[pick];
            B->locked[pick] = 1;
            B->side[pick] = (int8_t)!from;
            B->moves[k] = pick;
            for (uint32_t j = g->off[pick]; j < g->off[pick + 1]; j++) {
                uint32_t u = g->adj[j];
                if (B->side[u] < 0)
                    continue;
                /* pick changed sides: u's neighbour moved towards or away from it */
                B->gain[u] += B->side[u] == B->side[pick] ? -2 * g->w[j] : 2 * g->w[j];
            }
            if (k % 2 == 1 && cum > best + 1e-9) {
                best = cum;
                best_k = k + 1;
            }
        }
        for (uint32_t i = k; i > best_k; i--) {
            uint32_t v = B->moves[i - 1];
            B->side[v] = (int8_t)!B->side[v];
        }
        if (best_k == 0)
            break;
    }
}

static double cut_weight(const bis *B, const uint32_t *set, uint32_t n)
{
    double c = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = set[i];
        for (uint32_t j = B->g->off[v]; j < B->g->off[v + 1]; j++) {
            int8_t s = B->side[B->g->adj[j]];
            if (s >= 0 && s != B->side[v])
                c += B->g->w[j];
        }
    }
    return c / 2;
}

#define SEEDS 4

/* Splits set[0..n) into side 0 (n0 ranks) and side 1 (the rest): grows
 * side 0 from a few seeds far apart (the lowest rank, the rank farthest
 * from it, the one farthest from that, ...), refines each, keeps the
 * smallest cut. */
static void bisect(bis *B, const uint32_t *set, uint32_t n, uint32_t n0)
{
    for (uint32_t i = 0; i < n; i++)
        B->side[set[i]] = 1;
    uint32_t seeds[SEEDS], ns = 0;
    seeds[ns++] = set[0];
    while (ns < SEEDS) {
        uint32_t far = bfs(B, set, n, seeds[ns - 1]), dup = 0;
        for (uint32_t i = 0; i < ns; i++)
            dup |= seeds[i] == far;
        if (dup)
            break;
        seeds[ns++] = far;
    }
    double best = -1;
    for (uint32_t k = 0; k < ns; k++) {
        grow(B, set, n, n0, seeds[k]);
        if (n0 && n0 < n)
            refine(B, set, n, n0);
        double c = cut_weight(B, set, n);
        if (best < 0 || c < best) {
            best = c;
            for (uint32_t i = 0; i < n; i++)
                B->best[set[i]] = B->side[set[i]];
        }
    }
    for (uint32_t i = 0; i < n; i++)
        B->side[set[i]] = B->best[set[i]];
}

typedef struct slot {
    uint32_t node;
} slot;

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Where to cut slots[lo..hi): the boundary between the farthest-apart
 * consecutive nodes, nearest the middle. */
static uint32_t cut_point(const hs__run *r, const uint32_t *slots, uint32_t lo, uint32_t hi)
{
    uint32_t best = lo + (hi - lo) / 2, best_h = 0;
    uint32_t mid2 = lo + hi;   /* twice the middle */
    for (uint32_t i = lo + 1; i < hi; i++) {
        uint32_t h = slots[i] == slots[i - 1] ? 0 : 1 + hs__an_switch_hops(r, slots[i - 1], slots[i]);
        uint32_t d = (uint32_t)abs((int)(2 * i) - (int)mid2);
        uint32_t bd = (uint32_t)abs((int)(2 * best) - (int)mid2);
        if (h > best_h || (h == best_h && d < bd)) {
            best = i;
            best_h = h;
        }
    }
    return best;
}

static void recurse(bis *B, const hs__run *r, uint32_t *set, uint32_t n, const uint32_t *slots,
                    uint32_t lo, uint32_t *out, uint32_t *tmp)
{
    if (n == 0)
        return;
    if (n == 1) {
        out[set[0]] = slots[lo];
        return;
    }
    uint32_t m = cut_point(r, slots, lo, lo + n);
    uint32_t n0 = m - lo;
    bisect(B, set, n, n0);
    uint32_t a = 0, b = n0;
    for (uint32_t i = 0; i < n; i++)
        tmp[B->side[set[i]] == 0 ? a++ : b++] = set[i];
    for (uint32_t i = 0; i < n; i++)
        B->side[set[i]] = -1;
    memcpy(set, tmp, n * sizeof *set);
    qsort(set, n0, sizeof *set, cmp_u32);
    qsort(set + n0, n - n0, sizeof *set, cmp_u32);
    recurse(B, r, set, n0, slots, lo, out, tmp);
    recurse(B, r, set + n0, n - n0, slots, m, out, tmp);
}

/* ---- balancing within switches ------------------------------------------------------ */

/* The links of the routed path from node x to node y (first entry where
 * the tables allow several); returns the count (at most max). */
static uint32_t path_links(const hs__run *r, uint32_t x, uint32_t y, uint32_t *out, uint32_t max)
{
    uint32_t n = 0, s = r->nd[x].sw, d = r->nd[y].sw, c = hs__node_class(r, y);
    out[n++] = r->nd[x].inj;
    while (s != d && n + 1 < max) {
        uint32_t l = hs__route_first(r, s, c);
        if (!l)
            break;
        out[n++] = l;
        s = r->lk[l].to;
    }
    out[n++] = r->nd[y].ej;
    return n;
}

typedef struct balance {
    const hs__run *r;
    const hs__app *app;
    uint32_t *map;              /* the mapping being improved */
    double   *load;             /* per link: bytes / capacity */
    uint32_t *ooff, *oidx;      /* per rank: indices of comm entries it sends */
    uint32_t *ioff, *iidx;      /* ... and receives */
    uint32_t *touched, ntouched;
    uint8_t  *mark;
    double   *saved;
} balance;

/* Adds sign x the entry's bytes along its path, remembering touched links. */
static void route_entry(balance *b, size_t i, double sign)
{
    const hs__app_comm *c = &b->app->comm[i];
    uint32_t x = b->map[c->src], y = b->map[c->dst];
    if (x == y)
        return;
    uint32_t p[MAX_HOPS + 2];
    uint32_t n = path_links(b->r, x, y, p, MAX_HOPS + 2);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t l = p[k];
        if (!b->mark[l]) {
            b->mark[l] = 1;
            b->saved[b->ntouched] = b->load[l];
            b->touched[b->ntouched++] = l;
        }
        b->load[l] += sign * (double)c->bytes / hs__an_link_capacity(b->r, l);
    }
}

static void route_rank(balance *b, uint32_t q, double sign)
{
    for (uint32_t j = b->ooff[q]; j < b->ooff[q + 1]; j++)
        route_entry(b, b->oidx[j], sign);
    for (uint32_t j = b->ioff[q]; j < b->ioff[q + 1]; j++)
        if (b->app->comm[b->iidx[j]].src != q)
            route_entry(b, b->iidx[j], sign);
}

/* Tries exchanging the nodes of ranks q1 and q2: keeps it when the sum of
 * squared link loads (a smooth stand-in for the most loaded link) drops. */
static int try_swap(balance *b, uint32_t q1, uint32_t q2)
{
    b->ntouched = 0;
    route_rank(b, q1, -1);
    route_rank(b, q2, -1);
    uint32_t t = b->map[q1];
    b->map[q1] = b->map[q2];
    b->map[q2] = t;
    route_rank(b, q1, +1);
    route_rank(b, q2, +1);
    double before = 0, after = 0;
    for (uint32_t i = 0; i < b->ntouched; i++) {
        uint32_t l = b->touched[i];
        before += b->saved[i] * b->saved[i];
        after += b->load[l] * b->load[l];
        b->mark[l] = 0;
    }
    if (after < before * (1 - 1e-12))
        return 1;
    for (uint32_t i = 0; i < b->ntouched; i++)
        b->load[b->touched[i]] = b->saved[i];
    b->map[q2] = b->map[q1];
    b->map[q1] = t;
    return 0;
}

#define BALANCE_PASSES 4

/* Recursive bisection decides which ranks share a switch; which port each
 * takes still matters (D-mod-K picks the up-link by the destination's
 * low digits, dragonflies and tori by position), so ranks under one switch
 * swap nodes while that lowers the links' squared loads. */
static int balance_switches(const hs_analysis *a, uint32_t *map)
{
    const hs__run *r = a->r;
    const hs__app *app = a->app;
    uint32_t R = app->ranks;
    balance b;
    memset(&b, 0, sizeof b);
    b.r = r;
    b.app = app;
    b.map = map;
    size_t L = (size_t)r->L + 1, per = 2 * app->ncomm * (MAX_HOPS + 2) + 1;
    b.load = calloc(L, sizeof *b.load);
    b.mark = calloc(L, 1);
    b.touched = malloc(per * sizeof *b.touched);
    b.saved = malloc(per * sizeof *b.saved);
    b.ooff = calloc((size_t)R + 1, sizeof *b.ooff);
    b.ioff = calloc((size_t)R + 1, sizeof *b.ioff);
    b.oidx = malloc((app->ncomm + 1) * sizeof *b.oidx);
    b.iidx = malloc((app->ncomm + 1) * sizeof *b.iidx);
    uint32_t *order = malloc((R ? R : 1) * sizeof *order);
    int rc = 0;
    if (!b.load || !b.mark || !b.touched || !b.saved || !b.ooff || !b.ioff || !b.oidx ||
        !b.iidx || !order) {
        rc = HS_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < app->ncomm; i++) {
        b.ooff[app->comm[i].src + 1]++;
        b.ioff[app->comm[i].dst + 1]++;
    }
    for (uint32_t q = 0; q < R; q++) {
        b.ooff[q + 1] += b.ooff[q];
        b.ioff[q + 1] += b.ioff[q];
    }
    {
        uint32_t *fo = malloc(((size_t)R + 1) * sizeof *fo), *fi = malloc(((size_t)R + 1) * sizeof *fi);
        if (!fo || !fi) {
            free(fo);
            free(fi);
            rc = HS_ENOMEM;
            goto out;
        }
        memcpy(fo, b.ooff, ((size_t)R + 1) * sizeof *fo);
        memcpy(fi, b.ioff, ((size_t)R + 1) * sizeof *fi);
        for (size_t i = 0; i < app->ncomm; i++) {
            b.oidx[fo[app->comm[i].src]++] = (uint32_t)i;
            b.iidx[fi[app->comm[i].dst]++] = (uint32_t)i;
        }
        free(fo);
        free(fi);
    }
    for (size_t i = 0; i < app->ncomm; i++)
        route_entry(&b, i, +1);
    for (uint32_t i = 0; i < b.ntouched; i++)
        b.mark[b.touched[i]] = 0;
    /* ranks grouped by switch, in rank order */
    for (uint32_t q = 0; q < R; q++)
        order[q] = q;
    for (uint32_t i = 1; i < R; i++) {
        uint32_t x = order[i], j = i;
        while (j > 0 && r->nd[map[order[j - 1]]].sw > r->nd[map[x]].sw) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    for (int pass = 0; pass < BALANCE_PASSES; pass++) {
        int improved = 0;
        for (uint32_t i = 0; i < R;) {
            uint32_t j = i, sw = r->nd[map[order[i]]].sw;
            while (j < R && r->nd[map[order[j]]].sw == sw)
                j++;
            for (uint32_t x = i; x < j; x++)
                for (uint32_t y = x + 1; y < j; y++)
                    if (map[order[x]] != map[order[y]])
                        improved |= try_swap(&b, order[x], order[y]);
            i = j;
        }
        if (!improved)
            break;
    }
out:
    free(b.load);
    free(b.mark);
    free(b.touched);
    free(b.saved);
    free(b.ooff);
    free(b.ioff);
    free(b.oidx);
    free(b.iidx);
    free(order);
    return rc;
}

double hs__an_mapping_max_load(const hs_analysis *a, const uint32_t *node_of_rank)
{
    const hs__run *r = a->r;
    double *load = calloc((size_t)r->L + 1, sizeof *load), mx = 0;
    if (!load)
        return -1;
    for (size_t i = 0; i < a->app->ncomm; i++) {
        const hs__app_comm *c = &a->app->comm[i];
        uint32_t x = node_of_rank[c->src], y = node_of_rank[c->dst];
        if (x == y)
            continue;
        uint32_t p[MAX_HOPS + 2];
        uint32_t n = path_links(r, x, y, p, MAX_HOPS + 2);
        for (uint32_t k = 0; k < n; k++)
            load[p[k]] += (double)c->bytes / hs__an_link_capacity(r, p[k]);
    }
    for (uint32_t l = 1; l <= r->L; l++)
        if (load[l] > mx)
            mx = load[l];
    free(load);
    return mx;
}

int hs__an_suggest_mapping(const hs_analysis *a, uint32_t **out, hs_error *err)
{
    *out = NULL;
    const hs__app *app = a->app;
    if (!app || !app->ncomm || !app->node_of_rank)
        return hs_error_set(err, HS_ENOTSUP, "no app.json communication matrix: no suggestion");
    uint32_t R = app->ranks;
    cgraph g;
    bis B;
    memset(&B, 0, sizeof B);
    int rc = graph_build(app, &g);
    uint32_t *slots = malloc(R * sizeof *slots), *set = malloc(R * sizeof *set);
    uint32_t *tmp = malloc(R * sizeof *tmp), *res = malloc(R * sizeof *res);
    B.g = &g;
    B.side = malloc(R);
    B.gain = malloc(R * sizeof *B.gain);
    B.locked = malloc(R);
    B.moves = malloc(R * sizeof *B.moves);
    B.best = malloc(R);
    B.dist = malloc(R * sizeof *B.dist);
    B.queue = malloc(R * sizeof *B.queue);
    if (rc || !slots || !set || !tmp || !res || !B.side || !B.gain || !B.locked || !B.moves ||
        !B.best || !B.dist || !B.queue) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    } else {
        for (uint32_t i = 0; i < R; i++) {
            slots[i] = app->node_of_rank[i];
            set[i] = i;
            B.side[i] = -1;
        }
        qsort(slots, R, sizeof *slots, cmp_u32);
        recurse(&B, a->r, set, R, slots, 0, res, tmp);
        if (balance_switches(a, res)) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        } else {
            *out = res;
            res = NULL;
        }
    }
    graph_free(&g);
    free(slots);
    free(set);
    free(tmp);
    free(res);
    free(B.side);
    free(B.gain);
    free(B.locked);
    free(B.moves);
    free(B.best);
    free(B.dist);
    free(B.queue);
    return rc;
}

int hs_an_suggest_mapping(const hs_analysis *a, uint32_t **node_of_rank, uint32_t *nranks,
                                hs_error *err)
{
    *node_of_rank = NULL;
    *nranks = 0;
    if (a->suggested) {
        uint32_t *c = malloc(a->nsuggested * sizeof *c);
        if (!c)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        memcpy(c, a->suggested, a->nsuggested * sizeof *c);
        *node_of_rank = c;
        *nranks = a->nsuggested;
        return 0;
    }
    int rc = hs__an_suggest_mapping(a, node_of_rank, err);
    if (!rc)
        *nranks = a->app->ranks;
    return rc;
}

/* ---- mapping files -------------------------------------------------------------------- */

int hs_an_mapping_write(const char *path, const uint32_t *node_of_rank, uint32_t nranks,
                        hs_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    for (uint32_t r = 0; r < nranks; r++)
        fprintf(f, "%u %u\n", r, node_of_rank[r]);
    if (ferror(f) | (fclose(f) != 0))
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

int hs_an_mapping_read(const char *path, uint32_t **node_of_rank, uint32_t *nranks, hs_error *err)
{
    *node_of_rank = NULL;
    *nranks = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_error_set(err, HS_ENOENT, "cannot open mapping file '%s': %s", path,
                            strerror(errno));
    char line[256];
    unsigned ln = 0;
    uint32_t *v = NULL, n = 0, cap = 0;
    uint8_t *seen = NULL;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %u: too long", path, ln);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char a[64], b[64], extra[8];
        int k = sscanf(line, "%63s %63s %7s", a, b, extra);
        if (k <= 0)
            continue;
        uint64_t rank, node;
        if (k != 2 || hs_parse_u64(a, &rank) || hs_parse_u64(b, &node) || rank >= (1u << 30) ||
            node >= UINT32_MAX) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %u: expected 'rank node'", path, ln);
            break;
        }
        if (rank >= cap) {
            uint32_t nc = cap ? cap : 64;
            while (nc <= rank)
                nc *= 2;
            uint32_t *t = realloc(v, nc * sizeof *t);
            uint8_t *s2 = realloc(seen, nc);
            if (!t || !s2) {
                free(t ? t : v);
                v = NULL;
                free(s2 ? s2 : seen);
                seen = NULL;
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                break;
            }
            memset(s2 + cap, 0, nc - cap);
            v = t;
            seen = s2;
            cap = nc;
        }
        if (seen[rank]) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: line %u: rank %llu mapped twice", path, ln,
                              (unsigned long long)rank);
            break;
        }
        seen[rank] = 1;
        v[rank] = (uint32_t)node;
        if (rank + 1 > n)
            n = (uint32_t)rank + 1;
    }
    fclose(f);
    for (uint32_t r = 0; !rc && r < n; r++)
        if (!seen[r])
            rc = hs_error_set(err, HS_EFORMAT, "%s: rank %u is missing (ranks must be 0..%u)",
                              path, r, n - 1);
    if (!rc && n == 0)
        rc = hs_error_set(err, HS_EFORMAT, "%s: no ranks", path);
    free(seen);
    if (rc) {
        free(v);
        return rc;
    }
    *node_of_rank = v;
    *nranks = n;
    return 0;
}
