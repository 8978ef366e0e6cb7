/* Paths from the forwarding tables, the route-aware decoding of records,
 * and the "feeds into" flows.
 *
 * A packet from node x to node y crosses x's injection link, then, from
 * x's switch, the forwarding entries for y's class at each switch it
 * reaches (routes.bin's tables, or recomputed: hs__route_set), and y's ejection link at y's switch (docs/formats.md,
 * routes.bin).  With deterministic tables that is its one path; with
 * adaptive fat-tree tables the union of every allowed output along the way
 * is its candidate set.  Everything between the two switches depends only
 * on (source switch, destination class), so it is built once per pair seen
 * and cached (open addressing); a record then costs a hash lookup and a
 * copy.
 *
 * Flows: flow(u -> v) counts the records whose path crosses link u and
 * then link v, the "feeds into" relation of DESIGN.md.  v leaves u's
 * far-end switch, so flows are kept densely per (u, output port of u's
 * switch).  The switch-to-switch part is counted once per cache entry
 * (records x the entry's edges, added at the end); only the first and last
 * transitions depend on the nodes.  With candidate sets, every edge of the
 * candidate DAG gets the record: an upper bound on the true flow. */
#include "route.h"

#include <stdlib.h>
#include <string.h>

/* Cap on candidate links per decode call, so adaptive candidate sets of
 * big trees keep memory bounded (4 bytes each). */
#define CHUNK_CANDS (4u << 20)
#define CHUNK_RECORDS 65536u

static uint64_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static int grow(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    void *n = realloc(*a, nc * elem);
    if (!n)
        return HS_ENOMEM;
    *a = n;
    *cap = nc;
    return 0;
}

int hs__an_nonminimal(const hs__run *r)
{
    return r->topo_kind == HS__TOPO_DRAGONFLY && !r->table_determined && r->routing &&
           (strcmp(r->routing, "valiant") == 0 || strcmp(r->routing, "ugal") == 0);
}

/* Global links per pair of groups and local links per (switch, router),
 * from the link table; 0 or HS_ENOMEM (or HS_EFORMAT when the switches
 * carry no group/router: then no detours are known). */
static int nonminimal_init(hs__paths *p)
{
    const hs__run *r = p->r;
    uint32_t ng = 0, a = 0;
    for (uint32_t s = 0; s < r->S; s++) {
        if (r->sw[s].group < 0 || r->sw[s].router < 0)
            return HS_EFORMAT;
        if ((uint32_t)r->sw[s].group + 1 > ng)
            ng = (uint32_t)r->sw[s].group + 1;
        if ((uint32_t)r->sw[s].router + 1 > a)
            a = (uint32_t)r->sw[s].router + 1;
    }
    p->ngroups = ng;
    p->a = a;
    p->gl_off = calloc((size_t)ng * ng + 1, sizeof *p->gl_off);
    p->local = malloc((size_t)r->S * a * sizeof *p->local);
    p->lmark = calloc((size_t)r->L + 1, sizeof *p->lmark);
    p->lpos = calloc((size_t)r->L + 1, sizeof *p->lpos);
    p->walk = malloc(((size_t)r->S + 2) * sizeof *p->walk);
    if (!p->gl_off || !p->local || !p->lmark || !p->lpos || !p->walk)
        return HS_ENOMEM;
    for (size_t i = 0; i < (size_t)r->S * a; i++)
        p->local[i] = HS__NIL;
    uint32_t n = 0;
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        if (k->kind != HS__LK_SWITCH)
            continue;
        uint32_t G = (uint32_t)r->sw[k->from].group, I = (uint32_t)r->sw[k->to].group;
        if (G != I) {
            p->gl_off[(size_t)G * ng + I + 1]++;
            n++;
        } else {
            p->local[(size_t)k->from * a + (uint32_t)r->sw[k->to].router] = l;
        }
    }
    for (size_t i = 0; i < (size_t)ng * ng; i++)
        p->gl_off[i + 1] += p->gl_off[i];
    p->gl = malloc((n ? n : 1) * sizeof *p->gl);
    uint32_t *fill = calloc((size_t)ng * ng, sizeof *fill);
    if (!p->gl || !fill) {
        free(fill);
        return HS_ENOMEM;
    }
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        if (k->kind != HS__LK_SWITCH)
            continue;
        size_t G = (size_t)r->sw[k->from].group, I = (size_t)r->sw[k->to].group;
        if (G != I)
            p->gl[p->gl_off[G * ng + I] + fill[G * ng + I]++] = l;
    }
    free(fill);
    p->nonminimal = 1;
    return 0;
}

int hs__an_paths_init(hs__paths *p, const hs__run *r, hs_error *err)
{
    memset(p, 0, sizeof *p);
    p->r = r;
    p->exact = r->deterministic;
    p->cap = 1024;
    p->tab = calloc(p->cap, sizeof *p->tab);
    p->stamp = calloc(r->S, sizeof *p->stamp);
    p->queue = malloc((size_t)r->S * sizeof *p->queue);
    p->pre = malloc(((size_t)r->S + 1) * sizeof *p->pre);
    p->suf = malloc(((size_t)r->S + 1) * sizeof *p->suf);
    p->flow_off = malloc(((size_t)r->L + 1) * sizeof *p->flow_off);
    if (!p->tab || !p->stamp || !p->queue || !p->pre || !p->suf || !p->flow_off) {
        hs__an_paths_free(p);
        return hs_error_set(err, HS_ENOMEM, "out of memory for the path cache");
    }
    size_t o = 0;
    for (uint32_t l = 0; l <= r->L; l++) {
        if (l && r->lk[l].to_kind == HS__DEV_SWITCH) {
            p->flow_off[l] = o;
            o += r->sw[r->lk[l].to].ports;
        } else {
            p->flow_off[l] = SIZE_MAX;
        }
    }
    p->nflow = o;
    p->flow = calloc(o ? o : 1, sizeof *p->flow);
    if (!p->flow) {
        hs__an_paths_free(p);
        return hs_error_set(err, HS_ENOMEM, "out of memory for %zu flow counters", o);
    }
    int rc = hs__an_nonminimal(r) ? nonminimal_init(p) : 0;
    if (rc) {
        hs__an_paths_free(p);
        return rc == HS_ENOMEM
                   ? hs_error_set(err, rc, "out of memory for the dragonfly's detours")
                   : hs_error_set(err, rc, "%s/switches.tsv: dragonfly switches without group "
                                  "and router: the detours of '%s' routing are unknown",
                                  r->dir, r->routing);
    }
    return 0;
}

void hs__an_paths_free(hs__paths *p)
{
    free(p->gl_off);
    free(p->gl);
    free(p->local);
    free(p->lmark);
    free(p->lpos);
    free(p->walk);
    free(p->tab);
    free(p->pool);
    free(p->plen);
    free(p->pre);
    free(p->suf);
    free(p->edges);
    free(p->stamp);
    free(p->queue);
    free(p->flow_off);
    free(p->flow);
    memset(p, 0, sizeof *p);
}

/* Appends link l with path-length mask m to the pool. */
static int pool_push(hs__paths *p, uint32_t l, uint64_t m)
{
    if (grow((void **)&p->pool, &p->cappool, p->npool + 1, sizeof *p->pool) ||
        grow((void **)&p->plen, &p->capplen, p->npool + 1, sizeof *p->plen))
        return HS_ENOMEM;
    p->plen[p->npool] = m;
    p->pool[p->npool++] = l;
    return 0;
}

/* Appends link l to entry e's candidates unless it is there already; either
 * way it lies on a path of the lengths in m. */
static int add_cand(hs__paths *p, hs__pentry *e, uint32_t l, uint64_t m)
{
    if (p->lmark[l] == p->lgen) {
        p->plen[p->lpos[l]] |= m;
        return 0;
    }
    p->lmark[l] = p->lgen;
    p->lpos[l] = (uint32_t)p->npool;
    e->n++;
    return pool_push(p, l, m);
}

static int add_edge(hs__paths *p, hs__pentry *e, uint32_t u, uint32_t v)
{
    if (grow((void **)&p->edges, &p->capedges, 2 * (p->nedges + 1), sizeof *p->edges))
        return HS_ENOMEM;
    p->edges[2 * p->nedges] = u;
    p->edges[2 * p->nedges + 1] = v;
    p->nedges++;
    e->nedge++;
    return 0;
}

/* Valiant and UGAL detours of a packet from switch s0 to class c (switch
 * dsw) in another group: through each other group I, the local hop to the
 * owner of a global link towards I (any of the parallel ones: the engine's
 * choice among them depends on hop counts the tables do not record), that
 * link, then the minimal tables from where it lands.  A superset of the
 * packet's path, so the route-aware sums stay unbiased.  Edges follow the
 * walks (flows are upper bounds, as with any candidate set).  Each walk's
 * length (node links included) goes into its links' masks and e->lens; a
 * walk that does not reach dsw has no known length: *nolen is set. */
static int detours(hs__paths *p, hs__pentry *e, uint32_t s0, uint32_t c, uint32_t dsw,
                   int *nolen)
{
    const hs__run *r = p->r;
    uint32_t G = (uint32_t)r->sw[s0].group, Gd = (uint32_t)r->sw[dsw].group, ng = p->ngroups;
    if (G == Gd)
        return 0;
    p->lgen++;
    if (p->lgen == 0) {
        memset(p->lmark, 0, ((size_t)r->L + 1) * sizeof *p->lmark);
        p->lgen = 1;
    }
    for (uint32_t j = 0; j < e->n; j++) {
        p->lmark[p->pool[e->off + j]] = p->lgen;
        p->lpos[p->pool[e->off + j]] = e->off + j;
    }
    for (uint32_t I = 0; I < ng; I++) {
        if (I == G || I == Gd)
            continue;
        for (uint32_t q = p->gl_off[(size_t)G * ng + I]; q < p->gl_off[(size_t)G * ng + I + 1];
             q++) {
            uint32_t gl = p->gl[q], owner = r->lk[gl].from, land = r->lk[gl].to;
            uint32_t n = 0;
            if (owner != s0) {
                uint32_t ll = p->local[(size_t)s0 * p->a + (uint32_t)r->sw[owner].router];
                if (ll == HS__NIL)
                    continue;
                p->walk[n++] = ll;
            }
            p->walk[n++] = gl;
            /* on from the landing switch along the minimal tables (at most
             * S hops: the tables are not checked for loops here) */
            uint32_t s = land;
            for (uint32_t hop = 0; s != dsw && hop < r->S; hop++) {
                uint32_t l = hs__route_first(r, s, c);
                if (!l)
                    break;
                p->walk[n++] = l;
                s = r->lk[l].to;
            }
            /* n switch links and the two node links */
            uint64_t m = s == dsw && n + 2 < 64 ? 1ull << (n + 2) : 0;
            if (!m)
                *nolen = 1;
            e->lens |= m;
            int rc;
            for (uint32_t i = 0; i < n; i++)
                if ((rc = add_cand(p, e, p->walk[i], m)) ||
                    (i && (rc = add_edge(p, e, p->walk[i - 1], p->walk[i]))))
                    return rc;
        }
    }
    return 0;
}

/* Path lengths through the breadth-first part of entry e (the tables'
 * allowed outputs from s0 towards class c, switch dsw: the pool's links
 * from e->off, listed in the breadth-first order of their switches;
 * queue[0..nq) the switches reached): pre[s] the lengths from s0 to s,
 * suf[s] from s to dsw (bit n: n switch links), to a fixed point, pre
 * forward and suf backward over the links (the outputs of minimal tables
 * form a DAG that the breadth-first order sorts: two passes, the second
 * changing nothing).  Each link's mask is then every pre(from) + 1 +
 * suf(to), plus the two node links.  0 when the passes do not settle or a
 * length does not fit in 61 bits (then no record is filtered by it). */
static uint64_t bfs_lengths(hs__paths *p, hs__pentry *e, uint32_t dsw, uint32_t nq)
{
    const hs__run *r = p->r;
    const uint32_t *pl = p->pool + e->off;
    for (uint32_t i = 0; i < nq; i++)
        p->pre[p->queue[i]] = p->suf[p->queue[i]] = 0;
    p->pre[p->queue[0]] = 1;
    int changed = 1;
    for (uint32_t pass = 0; changed && pass <= nq + 1; pass++) {
        changed = 0;
        for (uint32_t i = 0; i < e->n; i++) {
            const hs__link *k = &r->lk[pl[i]];
            if (k->to == dsw)
                continue;
            uint64_t np = p->pre[k->to] | p->pre[k->from] << 1;
            changed |= np != p->pre[k->to];
            p->pre[k->to] = np;
        }
        for (uint32_t i = e->n; i-- > 0;) {
            const hs__link *k = &r->lk[pl[i]];
            uint64_t ns = p->suf[k->from] | (k->to == dsw ? 1 : p->suf[k->to]) << 1;
            changed |= ns != p->suf[k->from];
            p->suf[k->from] = ns;
        }
    }
    if (changed)
        return 0;
    uint64_t lens = p->suf[p->queue[0]];
    if (lens >> 61)
        return 0;
    for (uint32_t i = 0; i < e->n; i++) {
        const hs__link *k = &r->lk[pl[i]];
        uint64_t sv = k->to == dsw ? 1 : p->suf[k->to], m = 0;
        for (unsigned b = 0; b < 61; b++)
            if (p->pre[k->from] >> b & 1)
                m |= sv << (b + 1);
        p->plen[e->off + i] = m << 2;
    }
    return lens << 2;
}

static int build(hs__paths *p, hs__pentry *e, uint32_t s0, uint32_t c)
{
    const hs__run *r = p->r;
    int rc0;
    uint32_t dsw = r->csw[c];
    e->off = p->npool;
    e->n = e->nfirst = e->nlast = 0;
    e->edge_off = p->nedges;
    e->nedge = 0;
    e->count = 0;
    e->lens = 1ull << 2;   /* injection and ejection only */
    if (s0 == dsw)
        return 0;
    /* breadth-first over the allowed outputs; every switch once */
    p->gen++;
    size_t qh = 0, qt = 0;
    p->queue[qt++] = s0;
    p->stamp[s0] = p->gen;
    uint32_t set[HS__ROUTE_MAX], set2[HS__ROUTE_MAX];
    while (qh < qt) {
        uint32_t s = p->queue[qh++];
        unsigned k = hs__route_set(r, s, c, set);
        for (unsigned i = 0; i < k; i++) {
            uint32_t l = set[i];
            if (pool_push(p, l, 0))
                return HS_ENOMEM;
            e->n++;
            uint32_t t = r->lk[l].to;
            if (t == dsw)
                e->nlast++;
            else if (p->stamp[t] != p->gen) {
                p->stamp[t] = p->gen;
                p->queue[qt++] = t;
            }
            /* edges l -> each allowed output at t (none at the destination:
             * the ejection link depends on the node) */
            unsigned k2 = t == dsw ? 0 : hs__route_set(r, t, c, set2);
            if (grow((void **)&p->edges, &p->capedges, 2 * (p->nedges + k2), sizeof *p->edges))
                return HS_ENOMEM;
            for (unsigned j = 0; j < k2; j++) {
                p->edges[2 * p->nedges] = l;
                p->edges[2 * p->nedges + 1] = set2[j];
                p->nedges++;
                e->nedge++;
            }
        }
    }
    e->lens = bfs_lengths(p, e, dsw, (uint32_t)qt);
    int nolen = !e->lens;
    if (p->nonminimal) {
        if ((rc0 = detours(p, e, s0, c, dsw, &nolen)))
            return rc0;
        /* the detours enter the destination switch too */
        e->nlast = 0;
        for (uint32_t i = 0; i < e->n; i++)
            e->nlast += r->lk[p->pool[e->off + i]].to == dsw;
    }
    if (nolen)
        e->lens = 0;
    /* first: the outputs at s0, pooled first by the breadth-first order;
     * last: the links into the destination switch, listed again after the
     * entry's links (the flows into the ejection link need them) */
    e->nfirst = hs__route_set(r, s0, c, set);
    e->last_off = (uint32_t)p->npool;
    for (uint32_t i = 0; i < e->n; i++)
        if (r->lk[p->pool[e->off + i]].to == dsw &&
            pool_push(p, p->pool[e->off + i], p->plen[e->off + i]))
            return HS_ENOMEM;
    return 0;
}

int hs__an_paths_get(hs__paths *p, uint32_t src_sw, uint32_t cls, hs__pentry **out)
{
    uint64_t key = ((uint64_t)src_sw << 32 | cls) + 1;
    if (2 * (p->n + 1) > p->cap) {
        size_t nc = p->cap * 2;
        hs__pentry *t = calloc(nc, sizeof *t);
        if (!t)
            return HS_ENOMEM;
        for (size_t i = 0; i < p->cap; i++)
            if (p->tab[i].key) {
                size_t h = hash64(p->tab[i].key) & (nc - 1);
                while (t[h].key)
                    h = (h + 1) & (nc - 1);
                t[h] = p->tab[i];
            }
        free(p->tab);
        p->tab = t;
        p->cap = nc;
    }
    size_t h = hash64(key) & (p->cap - 1);
    while (p->tab[h].key && p->tab[h].key != key)
        h = (h + 1) & (p->cap - 1);
    hs__pentry *e = &p->tab[h];
    if (!e->key) {
        int rc = build(p, e, src_sw, cls);
        if (rc)
            return rc;
        e->key = key;
        p->n++;
    }
    *out = e;
    return 0;
}

static inline void flow_add(hs__paths *p, uint32_t u, uint32_t v, uint64_t n)
{
    p->flow[p->flow_off[u] + p->r->lk[v].from_port] += n;
}

uint64_t hs__an_flow(const hs__paths *p, uint32_t u, uint32_t v)
{
    if (p->flow_off[u] == SIZE_MAX || p->r->lk[v].from_kind != HS__DEV_SWITCH ||
        p->r->lk[v].from != p->r->lk[u].to)
        return 0;
    return p->flow[p->flow_off[u] + p->r->lk[v].from_port];
}

void hs__an_paths_finish_flows(hs__paths *p)
{
    for (size_t i = 0; i < p->cap; i++) {
        hs__pentry *e = &p->tab[i];
        if (!e->key || !e->count)
            continue;
        for (uint32_t j = 0; j < e->nedge; j++)
            flow_add(p, p->edges[2 * (e->edge_off + j)], p->edges[2 * (e->edge_off + j) + 1],
                     e->count);
        e->count = 0;
    }
}

/* ---- decoding ------------------------------------------------------------------ */

int hs__an_decoder_init(hs__decoder *d, hs__paths *p, hs_error *err)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->smp = malloc(CHUNK_RECORDS * sizeof *d->smp);
    d->cand_off = malloc((CHUNK_RECORDS + 1) * sizeof *d->cand_off);
    d->cand = malloc(CHUNK_CANDS * sizeof *d->cand);
    d->tmp = malloc(((size_t)p->r->L + 1) * sizeof *d->tmp);
    if (d->cand_off)
        d->cand_off[0] = 0;
    if (!d->smp || !d->cand_off || !d->cand || !d->tmp) {
        hs__an_decoder_free(d);
        return hs_error_set(err, HS_ENOMEM, "out of memory for the route-aware decoder");
    }
    return 0;
}

void hs__an_decoder_free(hs__decoder *d)
{
    free(d->smp);
    free(d->cand_off);
    free(d->cand);
    free(d->tmp);
    memset(d, 0, sizeof *d);
}

void hs__an_ls_add(hs_linksum *a, const hs_linksum *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        a[i].s += b[i].s;
        a[i].c += b[i].c;
        a[i].q += b[i].q;
        a[i].qc += b[i].qc;
        a[i].h2 += b[i].h2;
        a[i].h2c += b[i].h2c;
        a[i].npath += b[i].npath;
    }
}

void hs__an_tot_add(hs_totals *a, const hs_totals *b)
{
    a->packets += b->packets;
    a->flagged += b->flagged;
    a->overflow += b->overflow;
    a->unmarked += b->unmarked;
    a->sum_h2 += b->sum_h2;
    a->sum_h2_flag += b->sum_h2_flag;
}

int hs__an_route_flush(hs__decoder *d, hs_linksum *acc, hs_totals *tot)
{
    uint32_t n = d->n;
    d->n = d->nc = 0;
    d->cand_off[0] = 0;
    if (!n)
        return 0;
    const hs__run *r = d->p->r;
    hs_totals t;
    int rc = hs_decode_route(&r->scheme, d->smp, n, d->cand_off, d->cand, d->p->exact, d->tmp,
                             r->L + 1, &t);
    if (rc)
        return rc;
    hs__an_ls_add(acc, d->tmp, r->L + 1);
    hs__an_tot_add(tot, &t);
    return 0;
}

int hs__an_route_add(hs__decoder *d, uint64_t i, int (*keep)(void *ctx, uint32_t link),
                     void *ctx, hs_linksum *acc, hs_totals *tot, hs__pentry **out)
{
    hs__paths *p = d->p;
    const hs__run *r = p->r;
    hs__rec rec;
    hs__rec_get(r, i, &rec);
    hs__pentry *e;
    int rc = hs__an_paths_get(p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &e);
    if (rc)
        return rc;
    if (d->nc + e->n + 2 > CHUNK_CANDS || d->n == CHUNK_RECORDS) {
        /* the flush may not move e: the table only grows in get */
        if ((rc = hs__an_route_flush(d, acc, tot)))
            return rc;
    }
    uint64_t key = hs_packet_key(r->scheme.salt, rec.src, rec.dst, rec.seq);
    d->smp[d->n].pid = hs_pid(&r->scheme, key);
    hs_field_unpack(&r->scheme, rec.field, &d->smp[d->n].f);  /* validated before */
    uint32_t inj = r->nd[rec.src].inj, ej = r->nd[rec.dst].ej;
    /* Candidate sets (adaptive routing): a packet's path is uncertain in
     * the network, but it surely leaves its source's injection link and
     * enters its destination's ejection link, and only its records list
     * those.  Counting them (npath) makes those links' traffic exact, as
     * with deterministic routing, whose decoder counts every link; their
     * congested sums already come from exactly the records that crossed
     * them.  The flush adds into acc, so the counts survive it.  Only the
     * whole-record sums (no keep filter) count them: the filtered sums
     * (quiet packets, inputs) keep their estimated traffic. */
    const hs_field *f = &d->smp[d->n].f;
    int counted = !keep && !p->exact && f->hop != 0 && f->hop != r->scheme.hop_ovf;
    uint32_t nc = d->nc;
    if (!keep || keep(ctx, inj)) {
        d->cand[nc++] = inj;
        acc[inj].npath += counted;
    }
    /* Candidate sets: the record's hop count is the length of its packet's
     * path, so a candidate link on no candidate path of that length was not
     * crossed (its contribution has expectation 0 there: leaving it out
     * keeps the sums unbiased and removes its noise).  The hop count does
     * not depend on which link was sampled, so the choice is not the
     * outcome's.  A hop count no candidate path has (routing the tables do
     * not describe) keeps every candidate. */
    uint64_t hb = 0;
    if (!p->exact && f->hop != 0 && f->hop != r->scheme.hop_ovf && f->hop < 64 &&
        (e->lens >> f->hop & 1))
        hb = 1ull << f->hop;
    for (uint32_t j = 0; j < e->n; j++) {  /* pool may be empty (same-switch pairs) */
        uint32_t l = p->pool[e->off + j];
        if (hb && !(p->plen[e->off + j] & hb))
            continue;
        if (!keep || keep(ctx, l))
            d->cand[nc++] = l;
    }
    if (!keep || keep(ctx, ej)) {
        d->cand[nc++] = ej;
        acc[ej].npath += counted;
    }
    d->nc = nc;
    d->cand_off[++d->n] = nc;
    if (out)
        *out = e;
    return 0;
}

int hs__an_route_decode(hs__decoder *d, const uint32_t *idx, uint64_t lo, uint64_t hi,
                     hs_linksum *acc, hs_totals *tot, int count_flows)
{
    hs__paths *p = d->p;
    for (uint64_t k = lo; k < hi; k++) {
        hs__pentry *e;
        int rc = hs__an_route_add(d, idx ? idx[k] : k, NULL, NULL, acc, tot, &e);
        if (rc)
            return rc;
        if (count_flows) {
            const hs__run *r = p->r;
            hs__rec rec;
            hs__rec_get(r, idx ? idx[k] : k, &rec);
            uint32_t inj = r->nd[rec.src].inj, ej = r->nd[rec.dst].ej;
            if (!e->n) {
                flow_add(p, inj, ej, 1);
            } else {
                const uint32_t *v = p->pool + e->off;
                for (uint32_t j = 0; j < e->nfirst; j++)
                    flow_add(p, inj, v[j], 1);
                for (uint32_t j = 0; j < e->nlast; j++)
                    flow_add(p, p->pool[e->last_off + j], ej, 1);
                e->count++;
            }
        }
    }
    return hs__an_route_flush(d, acc, tot);
}

int hs__an_path_has(const hs__paths *p, const hs__pentry *e, uint32_t link)
{
    const uint32_t *v = p->pool + e->off;
    for (uint32_t j = 0; j < e->n; j++)
        if (v[j] == link)
            return 1;
    return 0;
}
