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
 * is below load_high, and whose own congested packets waited behind the
 * tree of a sink whose load is at least load_high (fed by a link of that
 * tree, at an input whose blocked heads are mostly that tree's), is that
 * tree's head-of-line victim, not a root; how far a heavy root reaches and
 * how its load is weighed are below (victims()).  A light sink that no
 * heavy tree explains stays a root: a link congested by traffic the
 * application cannot see (interference).
 *
 * Without records (blind decoding) flows are unknown; an edge u -> v is
 * then any turn the topology allows (v leaves u's far switch, is not u's
 * reverse, and on fat-trees does not go up after down) whose traffic could
 * be a significant share of u's (traffic(v) >= sig_share x traffic(u)).
 * That can only add edges, so blind roots are conservative. */
#include "route.h"

#include <math.h>
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
 * threshold from at least sig_packets packets (it may carry a source's
 * spread across links that carry few of the application's packets). */
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

/* Head-of-line victims (the header's rule, bounded by the evidence).
 *
 * Congestion spreads from its source only upstream (a full queue stalls
 * the links that feed it) and sideways (a packet behind a stalled head at
 * an input waits whatever its own output), never downstream.  The rule
 * used to join every possibly congested link into undirected clusters and
 * make each cluster's heavy root the source of all of it; one root at
 * load 0.502 against load_high 0.5 then decided dozens of answers, and a
 * root downstream of a heavy tree's neighbour became its victim.  Now:
 *
 * 1. Reach of a root h (any root with heaviness > 0, below): T_h, the
 *    upstream closure of its links over the possibly congested links
 *    (CF + z SE >= threshold) through every input that sends packets on
 *    (closure()).  A link of T_h may be stalled by other roots too; its
 *    blame b_h(w), the share of its stalled packets that waited for h,
 *    follows the flows: b_h = 1 on h's links, and upstream
 *        b_h(w) = sum_y f(w,y) cf(y) b_h(y) / sum_y f(w,y) cf(y)
 *    over the blocking outputs y that w feeds (below): a packet of w waits
 *    for credits when the head of its queue at the next switch waits, and
 *    a head bound for y waits about cf(y) of the time.
 *
 * 2. One head-of-line step.  A light root v is h's victim when its own
 *    congested packets waited behind h's: at an input u of v's switch,
 *    behind heads bound for other outputs.  Per input, the share of u's
 *    blocked heads that are h's:
 *        s_h(u) = sum_{w in T_h} f(u,w) cf(w) b_h(w) / sum_w f(u,w) cf(w)
 *    (w the blocking outputs but v), and over v's inputs, weighted by the
 *    packets v gets from each, share_h(v) = sum_u f(u,v) s_h(u) / f(.,v);
 *    an input feeding no blocking output adds nothing (its packets waited
 *    behind nobody there); v inside T_h has share 1.  Blocking outputs:
 *    the possibly congested links but the light roots that are victims (a
 *    victim is idle, heads bound for it do not wait), found as the fixed
 *    point of assuming every light root a victim and dropping those that
 *    fail until none does (the set only shrinks).
 *    Heaviness of h: 0 at or below load_low, 1 at or above load_high,
 *    linear between.  v is h's victim when heaviness(h) x share_h(v) >=
 *    HOL_SHARE (most of v's blocked heads are h's, and h is heavy), for
 *    the h with the largest product (ties: the lower root index), h
 *    heavier than v; a victim of a victim hangs off the latter's root.  A
 *    root at load_high +- 0.01 thus moves only the victims whose share is
 *    within a few percent of HOL_SHARE.
 *
 * 3. The spread of a source.  Back-pressure rings on tori, or every output
 *    of every switch next to a stalled incast, carry a source's congestion
 *    many steps away, diluting as it goes.  The spread of a heavy root h
 *    is the closure of its links upstream and sideways (inputs sending
 *    packets on to a link of the spread, and the other outputs such an
 *    input feeds); h is its source when no light root in it is
 *    significantly more congested than h (CF above h's by more than z
 *    standard errors of the difference): then h claims the light roots of
 *    its spread that step 2 left alone, the most congested heavy root
 *    first, each only if head-of-line blocking can account for it
 *    (hol_bound()).  A spread holding a light root more congested than h
 *    has another source (other traffic), and h keeps what step 2 gives.
 *    A root downstream of h's spread is never in it.  This step still
 *    follows load_high as a step (only heavy roots have spreads): it
 *    changes answers only where h is the most congested root around.
 *
 * Without records flows, CFs and blames are not used (every allowed turn
 * counts 1): the share is 1 when any input of v's switch feeds both v and
 * a link of T_h, as conservative as the roots (more victims, fewer roots).
 *
 * Explained (a->explained, for the interference finding): the reach of
 * every heavy root and victim, and the spreads of the sources (without
 * their light roots left standing). */
#define HOL_SHARE 0.5
#define HOL_ROUNDS 64

static double heaviness(const hs_analysis *a, double load)
{
    double lo = a->p.load_low, hi = a->p.load_high;
    if (load >= hi)
        return 1;
    if (load <= lo || hi <= lo)
        return 0;
    return (load - lo) / (hi - lo);
}

static double cf01(const hs_estimate *e)
{
    return e->cf < 0 ? 0 : e->cf > 1 ? 1 : e->cf;
}

/* Upstream closure among the possibly congested links (gp's) of the gp
 * indices seed[0..ns), through every input that sends packets on (any
 * flow, not only significant edges: a queue whose head waits for a
 * stalled output stalls however few of its packets go there): appends
 * them to *lst (gp indices), marking seen[] with mark.  HS_ENOMEM. */
static int closure(const hs_analysis *a, const graph *gp, const topo_lists *t,
                   const uint32_t *seed, uint32_t ns, uint32_t *seen, uint32_t mark,
                   uint32_t **lst, uint32_t *n)
{
    const hs__run *r = a->r;
    uint32_t h = *n;
    for (uint32_t i = 0; i < ns; i++)
        if (seed[i] != HS__NIL && seen[seed[i]] != mark) {
            seen[seed[i]] = mark;
            if (hs__an_push(lst, n, seed[i]))
                return HS_ENOMEM;
        }
    while (h < *n) {
        uint32_t x = (*lst)[h++], l = gp->k[x];
        const hs__link *lx = &r->lk[l];
        if (lx->from_kind != HS__DEV_SWITCH)
            continue;
        for (uint32_t j = t->ioff[lx->from]; j < t->ioff[lx->from + 1]; j++) {
            uint32_t u = t->iin[j], y = gp->kidx[u];
            if (y == HS__NIL || seen[y] == mark || hs__an_feeds(a, u, l) <= 0)
                continue;
            seen[y] = mark;
            if (hs__an_push(lst, n, y))
                return HS_ENOMEM;
        }
    }
    return 0;
}

typedef struct hol {
    const hs_analysis *a;
    const graph *gp;
    const topo_lists *t;
    const hs_estimate *est;
    hs__root *roots;
    uint32_t nr, np;
    uint32_t *rootof;        /* per gp index: the root whose link it is, or HS__NIL */
    uint8_t *victim;         /* per root: assumed a victim (not blocking) */
    /* reaches: entries rl[roff[h] .. roff[h+1]) (gp indices) with blames
     * bl[], and per gp index the entries holding it, hl[hoff[x] ..] */
    uint32_t *roff, *rl, nrl, *hoff, *hl, *owner;
    double *bl, *dense;
    uint32_t *order;
} hol;

static int blocking(const hol *H, uint32_t x)
{
    return x != HS__NIL && (H->rootof[x] == HS__NIL || !H->victim[H->rootof[x]]);
}

/* Blames of each reach under the current blocking set: downstream first
 * (Tarjan numbers sink components first); within a cycle, in index order
 * with what is known so far. */
static void blames(hol *H)
{
    const hs_analysis *a = H->a;
    const hs__run *r = a->r;
    const graph *gp = H->gp;
    for (uint32_t h = 0; h < H->nr; h++) {
        uint32_t lo = H->roff[h], hi = H->roff[h + 1];
        if (lo == hi)
            continue;
        /* dense[] is 0 off the reach being computed */
        for (uint32_t i = 0; i < H->roots[h].nlinks; i++) {
            uint32_t x = gp->kidx[H->roots[h].links[i]];
            if (x != HS__NIL)
                H->dense[x] = 1;   /* h's own */
        }
        for (uint32_t k = lo; k < hi; k++) {
            uint32_t i = H->order[k], x = H->rl[i];
            if (H->rootof[x] == h)
                continue;
            const hs__link *lx = &r->lk[gp->k[x]];
            double num = 0, den = 0;
            if (lx->to_kind == HS__DEV_SWITCH)
                for (uint32_t j = H->t->ooff[lx->to]; j < H->t->ooff[lx->to + 1]; j++) {
                    uint32_t y = H->t->oout[j], yi = gp->kidx[y];
                    if (!blocking(H, yi))
                        continue;
                    double f = hs__an_feeds(a, gp->k[x], y) * cf01(&H->est[y]);
                    den += f;
                    num += f * H->dense[yi];
                }
            H->dense[x] = den > 0 ? num / den : 0;
        }
        for (uint32_t i = lo; i < hi; i++)
            H->bl[i] = H->dense[H->rl[i]];
        for (uint32_t i = lo; i < hi; i++)
            H->dense[H->rl[i]] = 0;
    }
}

/* share_h(v) x heaviness(h) for root q's best claimer: *best (or -1). */
static int best_claimer(hol *H, uint32_t q, uint32_t gen, double *share, uint32_t *stamp,
                        double *num, uint32_t *ustamp, uint32_t *ugen, uint32_t **touched,
                        uint32_t **hit, int32_t *best, double *strength)
{
    const hs_analysis *a = H->a;
    const hs__run *r = a->r;
    const graph *gp = H->gp;
    const topo_lists *t = H->t;
    hs__root *V = &H->roots[q];
    uint32_t ntouched = 0, nhit;
    double in_total = 0;
    int rc = 0;
    *best = -1;
    *strength = 0;
    for (uint32_t i = 0; !rc && i < V->nlinks; i++) {
        uint32_t x = V->links[i], xi = gp->kidx[x];
        if (xi != HS__NIL)
            for (uint32_t m = H->hoff[xi]; !rc && m < H->hoff[xi + 1]; m++) {
                uint32_t e = H->hl[m], h = H->owner[e];
                if (h == q)
                    continue;
                if (stamp[2 * h] != gen) {
                    stamp[2 * h] = gen;
                    share[2 * h] = share[2 * h + 1] = 0;
                    rc = hs__an_push(touched, &ntouched, h);
                }
                share[2 * h + 1] = 1;   /* inside T_h: its back-pressure reaches v */
            }
        const hs__link *lx = &r->lk[x];
        if (lx->from_kind != HS__DEV_SWITCH)
            continue;
        uint32_t sw = lx->from;
        for (uint32_t j = t->ioff[sw]; !rc && j < t->ioff[sw + 1]; j++) {
            uint32_t u = t->iin[j];
            double f = hs__an_feeds(a, u, x);
            if (f <= 0)
                continue;
            in_total += f;
            double den = 0;
            nhit = 0;
            (*ugen)++;
            for (uint32_t k = t->ooff[sw]; !rc && k < t->ooff[sw + 1]; k++) {
                uint32_t w = t->oout[k], wi = gp->kidx[w];
                if (w == x || !blocking(H, wi))
                    continue;
                double fw = hs__an_feeds(a, u, w);
                if (fw <= 0)
                    continue;
                fw *= a->paths ? cf01(&H->est[w]) : 1;
                den += fw;
                for (uint32_t m = H->hoff[wi]; !rc && m < H->hoff[wi + 1]; m++) {
                    uint32_t e = H->hl[m], h = H->owner[e];
                    if (h == q)
                        continue;
                    if (ustamp[h] != *ugen) {
                        ustamp[h] = *ugen;
                        num[h] = 0;
                        rc = hs__an_push(hit, &nhit, h);
                    }
                    num[h] += fw * (a->paths ? H->bl[e] : 1);
                }
            }
            for (uint32_t z = 0; !rc && z < nhit; z++) {
                uint32_t h = (*hit)[z];
                if (stamp[2 * h] != gen) {
                    stamp[2 * h] = gen;
                    share[2 * h] = share[2 * h + 1] = 0;
                    rc = hs__an_push(touched, &ntouched, h);
                }
                if (!a->paths)
                    share[2 * h] = num[h] > 0 ? HUGE_VAL : share[2 * h];
                else if (den > 0)
                    share[2 * h] += f * num[h] / den;
            }
        }
    }
    for (uint32_t z = 0; z < ntouched; z++) {
        uint32_t h = (*touched)[z];
        if (H->roots[h].load <= V->load)
            continue;
        double sh = share[2 * h] == HUGE_VAL ? 1 : in_total > 0 ? share[2 * h] / in_total : 0;
        if (share[2 * h + 1] > sh)
            sh = share[2 * h + 1];
        if (sh > 1)
            sh = 1;
        double s = heaviness(a, H->roots[h].load) * sh;
        if (s > *strength || (s == *strength && *best >= 0 && h < (uint32_t)*best)) {
            *strength = s;
            *best = (int32_t)h;
        }
    }
    return rc;
}

/* Whether head-of-line blocking can account for root q's congestion:
 * only its packets that came through an input feeding another blocking
 * output can have waited behind someone there (the root has no congested
 * link downstream to stall it), so if its congested fraction exceeds
 * their share by more than z standard errors, its own link is busy with
 * traffic nobody's tree explains, and it is no victim. */
static int hol_bound(const hol *H, uint32_t q)
{
    const hs_analysis *a = H->a;
    const hs__root *V = &H->roots[q];
    uint32_t x = V->links[0];
    const hs__link *lx = &a->r->lk[x];
    if (lx->from_kind != HS__DEV_SWITCH)
        return 1;
    uint32_t sw = lx->from;
    double tot = 0, blk = 0;
    for (uint32_t j = H->t->ioff[sw]; j < H->t->ioff[sw + 1]; j++) {
        uint32_t u = H->t->iin[j];
        double f = hs__an_feeds(a, u, x);
        if (f <= 0)
            continue;
        tot += f;
        for (uint32_t k = H->t->ooff[sw]; k < H->t->ooff[sw + 1]; k++) {
            uint32_t w = H->t->oout[k];
            if (w != x && blocking(H, H->gp->kidx[w]) && hs__an_feeds(a, u, w) > 0) {
                blk += f;
                break;
            }
        }
    }
    return tot <= 0 || blk / tot >= V->cf - a->p.z * V->cf_se;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Victims of the roots (above) and the links their congestion explains:
 * the upstream closures in gp of the heavy roots and of every victim. */
static int victims(const hs_analysis *a, const graph *gp, const topo_lists *t,
                   const hs_estimate *est, hs__root *roots, uint32_t nr, uint8_t *explained)
{
    uint32_t np = gp->nk;
    hol H;
    memset(&H, 0, sizeof H);
    H.a = a, H.gp = gp, H.t = t, H.est = est, H.roots = roots, H.nr = nr, H.np = np;
    H.rootof = malloc((np ? np : 1) * sizeof *H.rootof);
    H.victim = calloc(nr ? nr : 1, 1);
    H.roff = calloc((size_t)nr + 1, sizeof *H.roff);
    H.hoff = calloc((size_t)np + 2, sizeof *H.hoff);
    H.dense = calloc(np ? np : 1, sizeof *H.dense);
    uint32_t *seen = calloc(np ? np : 1, sizeof *seen), *seed = NULL, nseed = 0;
    double *share = calloc(2 * (size_t)(nr ? nr : 1), sizeof *share);
    double *num = calloc(nr ? nr : 1, sizeof *num), *strength = calloc(nr ? nr : 1, sizeof *strength);
    uint32_t *stamp = calloc(2 * (size_t)(nr ? nr : 1), sizeof *stamp);
    uint32_t *ustamp = calloc(nr ? nr : 1, sizeof *ustamp), ugen = 0, gen = 0;
    uint32_t *touched = NULL, *hit = NULL;
    int32_t *best = malloc((nr ? nr : 1) * sizeof *best);
    uint8_t *next = calloc(nr ? nr : 1, 1);
    int rc = 0;
    if (!H.rootof || !H.victim || !H.roff || !H.hoff || !H.dense || !seen || !share || !num ||
        !strength || !stamp || !ustamp || !best || !next)
        rc = HS_ENOMEM;
    for (uint32_t x = 0; !rc && x < np; x++)
        H.rootof[x] = HS__NIL;
    for (uint32_t q = 0; !rc && q < nr; q++) {
        for (uint32_t i = 0; i < roots[q].nlinks; i++)
            if (gp->kidx[roots[q].links[i]] != HS__NIL)
                H.rootof[gp->kidx[roots[q].links[i]]] = q;
        H.victim[q] = !roots[q].heavy;
    }
    /* reaches of the roots that can claim (heaviness > 0) */
    for (uint32_t q = 0; !rc && q < nr; q++) {
        H.roff[q] = H.nrl;
        if (heaviness(a, roots[q].load) <= 0)
            continue;
        nseed = 0;
        for (uint32_t i = 0; !rc && i < roots[q].nlinks; i++)
            rc = hs__an_push(&seed, &nseed, gp->kidx[roots[q].links[i]]);
        if (!rc)
            rc = closure(a, gp, t, seed, nseed, seen, q + 1, &H.rl, &H.nrl);
    }
    H.roff[nr] = H.nrl;
    if (!rc) {
        size_t ne = H.nrl ? H.nrl : 1;
        H.hl = malloc(ne * sizeof *H.hl);
        H.owner = malloc(ne * sizeof *H.owner);
        H.bl = calloc(ne, sizeof *H.bl);
        H.order = malloc(ne * sizeof *H.order);
        uint32_t *fill = malloc(((size_t)np + 1) * sizeof *fill);
        if (!H.hl || !H.owner || !H.bl || !H.order || !fill) {
            rc = HS_ENOMEM;
        } else {
            for (uint32_t i = 0; i < H.nrl; i++)
                H.hoff[H.rl[i] + 1]++;
            for (uint32_t x = 0; x < np; x++)
                H.hoff[x + 1] += H.hoff[x];
            memcpy(fill, H.hoff, ((size_t)np + 1) * sizeof *fill);
            for (uint32_t q = 0; q < nr; q++)
                for (uint32_t i = H.roff[q]; i < H.roff[q + 1]; i++) {
                    H.owner[i] = q;
                    H.order[i] = i;
                    H.hl[fill[H.rl[i]]++] = i;
                }
            /* each reach's entries downstream first, for the blames:
             * by (component, gp index), keys sorted then mapped back */
            uint64_t *key = malloc(((size_t)np + 1) * sizeof *key);
            uint32_t *pos = malloc(((size_t)np + 1) * sizeof *pos);
            if (!key || !pos)
                rc = HS_ENOMEM;
            for (uint32_t q = 0; !rc && q < nr; q++) {
                uint32_t lo = H.roff[q], m = H.roff[q + 1] - lo;
                for (uint32_t i = 0; i < m; i++) {
                    uint32_t x = H.rl[lo + i];
                    pos[x] = lo + i;
                    key[i] = (uint64_t)gp->comp[x] << 32 | x;
                }
                qsort(key, m, sizeof *key, cmp_u64);
                for (uint32_t i = 0; i < m; i++)
                    H.order[lo + i] = pos[(uint32_t)key[i]];
            }
            free(key);
            free(pos);
        }
        free(fill);
    }
    /* the fixed point: light roots assumed victims until they fail */
    for (int round = 0; !rc && round < HOL_ROUNDS; round++) {
        if (a->paths)
            blames(&H);
        int changed = 0;
        for (uint32_t q = 0; !rc && q < nr; q++) {
            best[q] = -1;
            strength[q] = 0;
            next[q] = 0;
            if (roots[q].heavy)
                continue;
            gen++;
            rc = best_claimer(&H, q, gen, share, stamp, num, ustamp, &ugen, &touched, &hit,
                              &best[q], &strength[q]);
            next[q] = best[q] >= 0 && strength[q] >= HOL_SHARE;
            changed |= next[q] != H.victim[q];
        }
        if (!changed)
            break;
        memcpy(H.victim, next, nr);
    }
    /* 3. the spreads of the sources (above) */
    uint32_t *spread = NULL, nspread = 0;
    uint8_t *claimed = calloc((size_t)np + 1, 1);
    if (!rc && !claimed)
        rc = HS_ENOMEM;
    /* the heavy roots, most congested packets first */
    uint32_t *hv = malloc((nr ? nr : 1) * sizeof *hv), nhv = 0;
    if (!rc && !hv)
        rc = HS_ENOMEM;
    for (uint32_t q = 0; !rc && q < nr; q++) {
        if (!roots[q].heavy)
            continue;
        uint32_t y = nhv++;
        while (y > 0 && (roots[hv[y - 1]].congested < roots[q].congested))
            hv[y] = hv[y - 1], y--;
        hv[y] = q;
    }
    for (uint32_t o = 0; !rc && o < nhv; o++) {
        uint32_t q = hv[o];
        nspread = 0;
        for (uint32_t i = 0; !rc && i < roots[q].nlinks; i++) {
            uint32_t x = gp->kidx[roots[q].links[i]];
            if (x != HS__NIL && seen[x] != 2 * nr + 2 + q) {
                seen[x] = 2 * nr + 2 + q;
                rc = hs__an_push(&spread, &nspread, x);
            }
        }
        for (uint32_t k = 0; !rc && k < nspread; k++) {
            uint32_t l = gp->k[spread[k]];
            const hs__link *lx = &a->r->lk[l];
            if (lx->from_kind != HS__DEV_SWITCH)
                continue;
            uint32_t sw = lx->from;
            for (uint32_t j = t->ioff[sw]; !rc && j < t->ioff[sw + 1]; j++) {
                uint32_t u = t->iin[j], ui = gp->kidx[u];
                if (hs__an_feeds(a, u, l) <= 0)
                    continue;
                if (ui != HS__NIL && seen[ui] != 2 * nr + 2 + q) {
                    seen[ui] = 2 * nr + 2 + q;
                    rc = hs__an_push(&spread, &nspread, ui);
                }
                for (uint32_t m = t->ooff[sw]; !rc && m < t->ooff[sw + 1]; m++) {
                    uint32_t w = t->oout[m], wi = gp->kidx[w];
                    if (wi == HS__NIL || seen[wi] == 2 * nr + 2 + q || hs__an_feeds(a, u, w) <= 0)
                        continue;
                    seen[wi] = 2 * nr + 2 + q;
                    rc = hs__an_push(&spread, &nspread, wi);
                }
            }
        }
        int source = 1;
        for (uint32_t k = 0; !rc && k < nspread && source; k++) {
            uint32_t v = H.rootof[spread[k]];
            if (v == HS__NIL || v == q || roots[v].heavy)
                continue;
            double diff = roots[v].cf - roots[q].cf;
            double se = sqrt(roots[v].cf_se * roots[v].cf_se + roots[q].cf_se * roots[q].cf_se);
            if (diff > a->p.z * se)
                source = 0;
        }
        if (!source)
            continue;
        for (uint32_t k = 0; !rc && k < nspread; k++) {
            uint32_t v = H.rootof[spread[k]];
            if (v == HS__NIL || v == q || roots[v].heavy || H.victim[v]) {
                claimed[spread[k]] = 1;
                continue;
            }
            if (roots[v].load >= roots[q].load || !hol_bound(&H, v))
                continue;   /* a root of its own: not explained */
            claimed[spread[k]] = 1;
            H.victim[v] = 1;
            best[v] = (int32_t)q;
        }
    }
    free(spread);
    free(hv);
    /* a victim of a victim hangs off the latter's root (loads increase
     * along the chain, so it ends) */
    for (uint32_t q = 0; !rc && q < nr; q++) {
        if (!H.victim[q] || best[q] < 0)
            continue;
        int32_t h = best[q];
        for (uint32_t hop = 0; hop < nr && H.victim[h] && best[h] >= 0; hop++)
            h = best[h];
        roots[q].victim_of = h;
        for (uint32_t i = 0; i < roots[q].nlinks && !rc; i++)
            rc = hs__an_push(&roots[h].victims, &roots[h].nvictims, roots[q].links[i]);
    }
    /* what their congestion explains */
    if (explained && !rc) {
        nseed = 0;
        for (uint32_t q = 0; !rc && q < nr; q++)
            if (roots[q].heavy || roots[q].victim_of >= 0)
                for (uint32_t i = 0; !rc && i < roots[q].nlinks; i++)
                    rc = hs__an_push(&seed, &nseed, gp->kidx[roots[q].links[i]]);
        uint32_t *lst = NULL, nl = 0;
        if (!rc)
            rc = closure(a, gp, t, seed, nseed, seen, nr + 1, &lst, &nl);
        for (uint32_t i = 0; !rc && i < np; i++)
            explained[gp->k[i]] = 0;
        for (uint32_t i = 0; !rc && i < nl; i++)
            explained[gp->k[lst[i]]] = 1;
        /* and the spreads of the sources */
        for (uint32_t i = 0; !rc && i < np; i++)
            if (claimed[i])
                explained[gp->k[i]] = 1;
        free(lst);
    }
    free(claimed);
    free(H.rootof);
    free(H.victim);
    free(H.roff);
    free(H.rl);
    free(H.hoff);
    free(H.hl);
    free(H.owner);
    free(H.bl);
    free(H.dense);
    free(H.order);
    free(seen);
    free(seed);
    free(share);
    free(num);
    free(strength);
    free(stamp);
    free(ustamp);
    free(touched);
    free(hit);
    free(best);
    free(next);
    return rc;
}

static int find_roots(const hs_analysis *a, graph *g, graph *gp, const topo_lists *t,
                      const hs_estimate *est, hs__root **out, uint32_t *nout,
                      uint8_t *explained)
{
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
    if (!rc)
        rc = victims(a, gp, t, est, roots, nr, explained);
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
