/* Congestion trees: congested links joined by "feeds into", their roots,
 * and the head-of-line victims that hang off them.
 *
 * Graph: the congested links, with an edge u -> v when v is a significant
 * downstream of u: at least sig_share of the sampled packets that crossed
 * u next crossed v, and at least sig_packets of them (flows from the
 * records, route.c).  A root is a sink component of that graph: a congested
 * link (or a cycle of them, on topologies with cycles) none of whose
 * significant downstream links is congested.  Its tree is its upstream
 * closure.
 *
 * Victims.  A packet stuck behind the head of its input queue is congested
 * at the output it waited for even when that output was idle (DESIGN.md's
 * congested()), so the outputs fed by a blocked input show congestion, and
 * when nothing downstream of them is congested they are sinks too.  What
 * sets them apart from a root is that they are not busy: a root is a link
 * that cannot carry what arrives for it.  So a sink whose application load
 * is below load_high and which is fed by a link of the tree of a sink whose
 * load is at least load_high is that tree's head-of-line victim, not a
 * root.  A light sink that no heavy tree explains stays a root: a link
 * congested by traffic the application cannot see (interference).
 *
 * Without records (blind decoding) flows are unknown; an edge u -> v is
 * then any turn the topology allows (v leaves u's far switch, is not u's
 * reverse, and on fat-trees does not go up after down) whose traffic could
 * be a significant share of u's (traffic(v) >= sig_share x traffic(u)).
 * That can only add edges, so blind roots are conservative. */
#include "route.h"

#include <stdlib.h>
#include <string.h>

typedef struct topo_lists {
    uint32_t *ooff, *oout;   /* links leaving each switch */
    uint32_t *ioff, *iin;    /* links entering each switch */
} topo_lists;

typedef struct graph {
    uint32_t nk;
    uint32_t *k;          /* congested links */
    uint32_t *kidx;       /* link -> index in k, or HS__NIL */
    double   *load;       /* per index in k */
    uint32_t *eoff, *e;   /* CSR successors (indices in k) */
    uint32_t *roff, *re;  /* CSR predecessors */
    uint32_t *comp;       /* SCC of each index */
    uint32_t ncomp;
} graph;

static int allowed_turn(const hs__run *r, uint32_t u, uint32_t v)
{
    const hs__link *a = &r->lk[u], *b = &r->lk[v];
    if (a->to_kind != HS__DEV_SWITCH || b->from_kind != HS__DEV_SWITCH || b->from != a->to)
        return 0;
    if (b->to_kind == a->from_kind && b->to == a->from)
        return 0;   /* straight back */
    if (r->topo_kind == HS__TOPO_FATTREE && a->sub == HS__SUB_DOWN && b->sub == HS__SUB_UP)
        return 0;
    return 1;
}

double hs__an_feeds(const hs_analysis *a, uint32_t u, uint32_t v)
{
    if (a->paths)
        return (double)hs__an_flow(a->paths, u, v);
    return allowed_turn(a->r, u, v);
}

/* Congestion the data cannot rule out: CF + z SE >= threshold on a link
 * with enough data; on one without, a point estimate at or above the
 * threshold from at least sig_packets packets (it may bridge two parts of
 * one congestion cluster whose connecting links carry few of the
 * application's packets). */
static int possibly(const hs_analysis *a, const hs_estimate *e, int ok)
{
    if (!e->cf_valid)
        return 0;
    if (ok)
        return e->cf + a->p.z * e->cf_se >= a->p.cf_threshold;
    return e->traffic >= a->p.sig_packets && e->cf >= a->p.cf_threshold;
}

/* Links leaving (in = 0) or entering (in = 1) each switch, CSR. */
static int switch_links(const hs__run *r, int in, uint32_t **off, uint32_t **lst)
{
    *off = calloc((size_t)r->S + 1, sizeof **off);
    *lst = malloc(((size_t)r->L + 1) * sizeof **lst);
    if (!*off || !*lst)
        return HS_ENOMEM;
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        if ((in ? k->to_kind : k->from_kind) == HS__DEV_SWITCH)
            (*off)[(in ? k->to : k->from) + 1]++;
    }
    for (uint32_t s = 0; s < r->S; s++)
        (*off)[s + 1] += (*off)[s];
    uint32_t *fill = malloc(((size_t)r->S + 1) * sizeof *fill);
    if (!fill)
        return HS_ENOMEM;
    memcpy(fill, *off, ((size_t)r->S + 1) * sizeof *fill);
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        if ((in ? k->to_kind : k->from_kind) == HS__DEV_SWITCH)
            (*lst)[fill[in ? k->to : k->from]++] = l;
    }
    free(fill);
    return 0;
}

static void graph_free(graph *g)
{
    free(g->k);
    free(g->kidx);
    free(g->load);
    free(g->eoff);
    free(g->e);
    free(g->roff);
    free(g->re);
    free(g->comp);
}

/* Tarjan's algorithm, iterative.  Components numbered in completion order. */
static int scc(graph *g)
{
    uint32_t n = g->nk;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx), *low = malloc((n ? n : 1) * sizeof *low);
    uint32_t *stk = malloc((n ? n : 1) * sizeof *stk), *cs = malloc((n ? n : 1) * sizeof *cs);
    uint32_t *ce = malloc((n ? n : 1) * sizeof *ce);
    uint8_t *on = calloc(n ? n : 1, 1);
    g->comp = malloc((n ? n : 1) * sizeof *g->comp);
    if (!idx || !low || !stk || !cs || !ce || !on || !g->comp) {
        free(idx); free(low); free(stk); free(cs); free(ce); free(on);
        return HS_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        idx[i] = HS__NIL;
    uint32_t counter = 0, sp = 0;
    g->ncomp = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (idx[s] != HS__NIL)
            continue;
        uint32_t csp = 0;
        cs[csp] = s;
        ce[csp++] = g->eoff[s];
        idx[s] = low[s] = counter++;
        stk[sp++] = s;
        on[s] = 1;
        while (csp) {
            uint32_t v = cs[csp - 1];
            if (ce[csp - 1] < g->eoff[v + 1]) {
                uint32_t w = g->e[ce[csp - 1]++];
                if (idx[w] == HS__NIL) {
                    idx[w] = low[w] = counter++;
                    stk[sp++] = w;
                    on[w] = 1;
                    cs[csp] = w;
                    ce[csp++] = g->eoff[w];
                } else if (on[w] && idx[w] < low[v]) {
                    low[v] = idx[w];
                }
                continue;
            }
            if (low[v] == idx[v]) {
                uint32_t w;
                do {
                    w = stk[--sp];
                    on[w] = 0;
                    g->comp[w] = g->ncomp;
                } while (w != v);
                g->ncomp++;
            }
            csp--;
            if (csp) {
                uint32_t u = cs[csp - 1];
                if (low[v] < low[u])
                    low[u] = low[v];
            }
        }
    }
    free(idx); free(low); free(stk); free(cs); free(ce); free(on);
    return 0;
}

/* Builds the graph over the congested links cong[0..n) with their loads. */
static int build(const hs_analysis *a, graph *g, const uint32_t *cong, const double *load,
                 uint32_t n, const uint32_t *soff, const uint32_t *sout, const hs_estimate *est)
{
    const hs__run *r = a->r;
    memset(g, 0, sizeof *g);
    g->nk = n;
    g->k = malloc((n ? n : 1) * sizeof *g->k);
    g->load = malloc((n ? n : 1) * sizeof *g->load);
    g->kidx = malloc(((size_t)r->L + 1) * sizeof *g->kidx);
    g->eoff = calloc((size_t)n + 1, sizeof *g->eoff);
    g->roff = calloc((size_t)n + 1, sizeof *g->roff);
    if (!g->k || !g->load || !g->kidx || !g->eoff || !g->roff)
        return HS_ENOMEM;
    memset(g->kidx, 0xff, ((size_t)r->L + 1) * sizeof *g->kidx);
    for (uint32_t i = 0; i < n; i++) {
        g->k[i] = cong[i];
        g->load[i] = load[i];
        g->kidx[cong[i]] = i;
    }
    /* two passes: count, then fill */
    size_t cap = 0, ne = 0;
    for (int pass = 0; pass < 2; pass++) {
        ne = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u = g->k[i];
            if (pass)
                g->eoff[i] = (uint32_t)ne;
            const hs__link *lu = &r->lk[u];
            if (lu->to_kind != HS__DEV_SWITCH)
                continue;
            double out = 0;
            if (a->paths)
                for (uint32_t j = soff[lu->to]; j < soff[lu->to + 1]; j++)
                    out += hs__an_feeds(a, u, sout[j]);
            for (uint32_t j = soff[lu->to]; j < soff[lu->to + 1]; j++) {
                uint32_t v = sout[j];
                if (g->kidx[v] == HS__NIL)
                    continue;
                double f = hs__an_feeds(a, u, v);
                int sig;
                if (a->paths)
                    sig = f > 0 && f >= a->p.sig_packets && f >= a->p.sig_share * out;
                else
                    sig = f > 0 && est[v].traffic >= a->p.sig_share * est[u].traffic;
                if (!sig)
                    continue;
                if (pass)
                    g->e[ne] = g->kidx[v];
                ne++;
            }
        }
        if (!pass) {
            cap = ne;
            g->e = malloc((cap ? cap : 1) * sizeof *g->e);
            g->re = malloc((cap ? cap : 1) * sizeof *g->re);
            if (!g->e || !g->re)
                return HS_ENOMEM;
        }
    }
    g->eoff[n] = (uint32_t)ne;
    /* predecessors */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = g->eoff[i]; j < g->eoff[i + 1]; j++)
            g->roff[g->e[j] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        g->roff[i + 1] += g->roff[i];
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill)
        return HS_ENOMEM;
    memcpy(fill, g->roff, ((size_t)n + 1) * sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = g->eoff[i]; j < g->eoff[i + 1]; j++)
            g->re[fill[g->e[j]]++] = i;
    free(fill);
    return scc(g);
}

/* A root whose traffic funnels into one node: an ejection link, or a link
 * at least FUNNEL_SHARE of whose sampled packets go on, link after link, to
 * one ejection link (under deterministic routing an incast's congestion
 * point is often the last switch-to-switch hop, which carries nothing but
 * the incast).  Likewise out of one node through its injection link.
 * Without records only the node's own links qualify. */
#define FUNNEL_SHARE 0.8
#define FUNNEL_HOPS 16

static uint32_t funnel(const hs_analysis *a, const topo_lists *t, uint32_t l, int up)
{
    const hs__run *r = a->r;
    double share = 1;
    for (int hop = 0; hop < FUNNEL_HOPS; hop++) {
        const hs__link *k = &r->lk[l];
        if (!up && k->kind == HS__LK_EJECTION)
            return k->to;
        if (up && k->kind == HS__LK_INJECTION)
            return k->from;
        if (!a->paths || k->kind != HS__LK_SWITCH)
            return HS__NIL;
        uint32_t sw = up ? k->from : k->to, best = 0;
        const uint32_t *lst = up ? t->iin : t->oout, *off = up ? t->ioff : t->ooff;
        double tot = 0, bf = 0;
        for (uint32_t j = off[sw]; j < off[sw + 1]; j++) {
            uint32_t x = lst[j];
            double f = up ? hs__an_feeds(a, x, l) : hs__an_feeds(a, l, x);
            tot += f;
            if (f > bf) {
                bf = f;
                best = x;
            }
        }
        if (tot <= 0)
            return HS__NIL;
        share *= bf / tot;
        if (share < FUNNEL_SHARE)
            return HS__NIL;
        l = best;
    }
    return HS__NIL;
}

/* Roots of the graph: fills roots[] (links, tree, victims, flags). */
static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

static void uf_union(uint32_t *uf, uint32_t x, uint32_t y)
{
    x = uf_find(uf, x);
    y = uf_find(uf, y);
    if (x != y)
        uf[x > y ? x : y] = x < y ? x : y;   /* the smaller index represents */
}

static int find_roots(const hs_analysis *a, graph *g, graph *gp, const topo_lists *t,
                      const hs_estimate *est, hs__root **out, uint32_t *nout,
                      uint8_t *explained)
{
    const hs__run *r = a->r;
    uint32_t n = g->nk;
    *out = NULL;
    *nout = 0;
    uint8_t *sink = malloc(g->ncomp ? g->ncomp : 1);
    uint32_t *root_of_comp = malloc((g->ncomp ? g->ncomp : 1) * sizeof *root_of_comp);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint32_t *seen = calloc(n ? n : 1, sizeof *seen);
    if (!sink || !root_of_comp || !queue || !seen) {
        free(sink); free(root_of_comp); free(queue); free(seen);
        return HS_ENOMEM;
    }
    memset(sink, 1, g->ncomp ? g->ncomp : 1);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = g->eoff[i]; j < g->eoff[i + 1]; j++)
            if (g->comp[g->e[j]] != g->comp[i])
                sink[g->comp[i]] = 0;
    /* candidate roots in a deterministic order: by their smallest link id
     * (k[] is in increasing link order) */
    hs__root *roots = NULL;
    uint32_t nr = 0;
    int rc = 0;
    for (uint32_t c = 0; c < g->ncomp; c++)
        root_of_comp[c] = HS__NIL;
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint32_t c = g->comp[i];
        if (!sink[c])
            continue;
        if (root_of_comp[c] == HS__NIL) {
            hs__root *nrt = realloc(roots, ((size_t)nr + 1) * sizeof *nrt);
            if (!nrt) {
                rc = HS_ENOMEM;
                break;
            }
            roots = nrt;
            memset(&roots[nr], 0, sizeof roots[nr]);
            roots[nr].victim_of = -1;
            root_of_comp[c] = nr++;
        }
        hs__root *R = &roots[root_of_comp[c]];
        rc = hs__an_push(&R->links, &R->nlinks, g->k[i]);
        if (R->nlinks == 1) {
            R->node = funnel(a, t, g->k[i], 0);
            R->endpoint = R->node != HS__NIL;
            if (!R->endpoint) {
                R->node = funnel(a, t, g->k[i], 1);
                R->endpoint = R->node != HS__NIL ? 2 : 0;
            }
        } else {
            R->endpoint = 0;     /* a cycle of links: not one node's */
            R->node = HS__NIL;
        }
        if (g->load[i] > R->load)
            R->load = g->load[i];
        const hs_estimate *e = &est[g->k[i]];
        if (R->nlinks == 1 || e->cf > R->cf) {
            R->cf = e->cf;
            R->cf_se = e->cf_se;
        }
        R->congested += e->congested;
    }
    /* trees: upstream closure of each root */
    for (uint32_t q = 0; q < nr && !rc; q++) {
        hs__root *R = &roots[q];
        R->heavy = R->load >= a->p.load_high;
        uint32_t qh = 0, qt = 0;
        for (uint32_t i = 0; i < R->nlinks; i++) {
            uint32_t x = g->kidx[R->links[i]];
            seen[x] = q + 1;
            queue[qt++] = x;
        }
        while (qh < qt) {
            uint32_t x = queue[qh++];
            for (uint32_t j = g->roff[x]; j < g->roff[x + 1]; j++) {
                uint32_t y = g->re[j];
                if (seen[y] != q + 1) {
                    seen[y] = q + 1;
                    queue[qt++] = y;
                }
            }
        }
        for (uint32_t i = 0; i < qt && !rc; i++)
            rc = hs__an_push(&R->tree, &R->ntree, g->k[queue[i]]);
    }
    /* victims: congested links joined into clusters by the two ways
     * congestion spreads, back-pressure (a significant "feeds into" edge)
     * and head-of-line blocking (two outputs of a switch fed by one input),
     * over the links whose congestion the data cannot rule out (CF + z SE
     * >= threshold: a sibling near the threshold still explains its
     * neighbours' waits).  A light root in a cluster with a heavy root is
     * that root's victim; a light root in a cluster without one is
     * congested by load the application does not carry. */
    uint32_t *uf = malloc(((size_t)gp->nk + 1) * sizeof *uf);
    int32_t *heavy_of = malloc(((size_t)gp->nk + 1) * sizeof *heavy_of);
    if (!uf || !heavy_of)
        rc = HS_ENOMEM;
    for (uint32_t i = 0; !rc && i < gp->nk; i++) {
        uf[i] = i;
        heavy_of[i] = -1;
    }
    for (uint32_t i = 0; !rc && i < gp->nk; i++)
        for (uint32_t j = gp->eoff[i]; j < gp->eoff[i + 1]; j++)
            uf_union(uf, i, gp->e[j]);
    for (uint32_t sw = 0; !rc && sw < r->S; sw++)
        for (uint32_t j = t->ioff[sw]; j < t->ioff[sw + 1]; j++) {
            uint32_t u = t->iin[j], first = HS__NIL;
            for (uint32_t k = t->ooff[sw]; k < t->ooff[sw + 1]; k++) {
                uint32_t w = t->oout[k], x = gp->kidx[w];
                if (x == HS__NIL || hs__an_feeds(a, u, w) <= 0)
                    continue;
                if (first == HS__NIL)
                    first = x;
                else
                    uf_union(uf, first, x);
            }
        }
    /* each cluster's heavy root: the one with the most congested packets */
    for (uint32_t h = 0; !rc && h < nr; h++) {
        if (!roots[h].heavy)
            continue;
        uint32_t x = gp->kidx[roots[h].links[0]];
        if (x == HS__NIL)
            continue;
        uint32_t c = uf_find(uf, x);
        if (heavy_of[c] < 0 || roots[h].congested > roots[heavy_of[c]].congested)
            heavy_of[c] = (int32_t)h;
    }
    for (uint32_t q = 0; q < nr && !rc; q++) {
        hs__root *R = &roots[q];
        if (R->heavy)
            continue;
        uint32_t x = gp->kidx[R->links[0]];
        int32_t h = x == HS__NIL ? -1 : heavy_of[uf_find(uf, x)];
        if (h < 0)
            continue;
        R->victim_of = h;
        for (uint32_t i = 0; i < R->nlinks && !rc; i++)
            rc = hs__an_push(&roots[h].victims, &roots[h].nvictims, R->links[i]);
    }
    /* every possibly congested link of a heavy cluster is explained by it */
    if (explained && !rc)
        for (uint32_t i = 0; i < gp->nk; i++)
            explained[gp->k[i]] = heavy_of[uf_find(uf, i)] >= 0;
    free(uf);
    free(heavy_of);
    free(sink);
    free(root_of_comp);
    free(queue);
    free(seen);
    if (rc) {
        for (uint32_t q = 0; q < nr; q++) {
            free(roots[q].links);
            free(roots[q].tree);
            free(roots[q].victims);
        }
        free(roots);
        return rc;
    }
    *out = roots;
    *nout = nr;
    return 0;
}

int hs__an_trees(hs_analysis *a, hs__view *v)
{
    const hs__run *r = a->r;
    topo_lists tl;
    memset(&tl, 0, sizeof tl);
    int rc = switch_links(r, 0, &tl.ooff, &tl.oout);
    if (!rc)
        rc = switch_links(r, 1, &tl.ioff, &tl.iin);
    uint32_t n = 0, np = 0;
    uint32_t *cong = malloc(((size_t)r->L + 1) * sizeof *cong);
    double *load = malloc(((size_t)r->L + 1) * sizeof *load);
    uint32_t *poss = malloc(((size_t)r->L + 1) * sizeof *poss);
    double *pload = malloc(((size_t)r->L + 1) * sizeof *pload);
    hs_estimate *est = NULL;
    if (!rc && (!cong || !load || !poss || !pload))
        rc = HS_ENOMEM;
    if (!rc && !v) {
        for (uint32_t l = 1; l <= r->L; l++) {
            if (a->congested[l]) {
                cong[n] = l;
                load[n++] = a->load_busy[l];
            }
            /* "ok": the SE is valid (judge.c's conditions), whether or
             * not it decides the link */
            const hs_estimate *el = &a->est[l];
            int valid = el->cf_valid && el->traffic >= 2 &&
                        el->traffic_se <= a->p.max_traffic_cv * el->traffic;
            if (possibly(a, el, valid)) {
                poss[np] = l;
                pload[np++] = a->load_busy[l];
            }
        }
        est = a->est;
    } else if (!rc) {
        /* a view: its congested links; dense estimates for the blind turns */
        est = calloc((size_t)r->L + 1, sizeof *est);
        if (!est)
            rc = HS_ENOMEM;
        for (uint32_t k = 0; !rc && k < v->n; k++) {
            est[v->lk[k].link] = v->lk[k].e;
            if (v->lk[k].congested) {
                cong[n] = v->lk[k].link;
                load[n++] = v->lk[k].load;
            }
            if (possibly(a, &v->lk[k].e, 1)) {
                poss[np] = v->lk[k].link;
                pload[np++] = v->lk[k].load;
            }
        }
    }
    graph g, gp;
    memset(&g, 0, sizeof g);
    memset(&gp, 0, sizeof gp);
    hs__root *roots = NULL;
    uint32_t nr = 0;
    if (!rc)
        rc = build(a, &g, cong, load, n, tl.ooff, tl.oout, est);
    if (!rc)
        rc = build(a, &gp, poss, pload, np, tl.ooff, tl.oout, est);
    if (!rc)
        rc = find_roots(a, &g, &gp, &tl, est, &roots, &nr, v ? NULL : a->explained);
    if (!rc && !v) {
        a->roots = roots;
        a->nroots = nr;
        for (uint32_t q = 0; q < nr; q++)
            if (roots[q].victim_of < 0)
                for (uint32_t i = 0; i < roots[q].nlinks; i++)
                    a->is_root[roots[q].links[i]] = 1;
    } else if (!rc) {
        for (uint32_t q = 0; q < nr && !rc; q++) {
            if (roots[q].victim_of < 0)
                for (uint32_t i = 0; i < roots[q].nlinks && !rc; i++)
                    rc = hs__an_push(&v->roots, &v->nroots, roots[q].links[i]);
        }
        for (uint32_t k = 0; k < v->n; k++)
            for (uint32_t i = 0; i < v->nroots; i++)
                if (v->lk[k].link == v->roots[i])
                    v->lk[k].root = 1;
        for (uint32_t q = 0; q < nr; q++) {
            free(roots[q].links);
            free(roots[q].tree);
            free(roots[q].victims);
        }
        free(roots);
    }
    if (v)
        free(est);
    graph_free(&g);
    graph_free(&gp);
    free(poss);
    free(pload);
    free(tl.ooff);
    free(tl.oout);
    free(tl.ioff);
    free(tl.iin);
    free(cong);
    free(load);
    return rc;
}
