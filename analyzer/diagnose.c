/* The diagnosis: from roots to findings a user can act on.
 *
 *   pattern       a root at a link into (or out of) a node whose congestion
 *                 the application's own traffic explains: the application
 *                 sends more to that node than it can take (an incast), a
 *                 code change is likely needed;
 *   mapping       roots inside the network whose congestion its own traffic
 *                 explains: its communication crosses a bottleneck of the
 *                 machine (mapping or bisection), with a suggested mapping;
 *   interference  roots, and congested links that no heavy tree explains,
 *                 whose congestion the application's own traffic cannot
 *                 explain ("dark and thin"): the load comes from outside;
 *   none          nothing congested.
 * "Explains" (app_explains): by the application's own load as its packets
 * see it, and between the thresholds by whether its quiet packets on the
 * link are congested too: a job alone congests links at moderate average
 * load with its own bursts (D-mod-K funnels, all-to-all rounds), and then
 * its packets between bursts pass freely; beside someone else's flood they
 * do not.
 *
 * Evidence: the links (congested fraction with its standard error, the
 * application's own load), the phases, nodes and ranks whose sampled
 * packets crossed them (from the records and the paths, when the tables
 * determine them), and the application's communication matrix. */
#include "../common/sbuf.h"
#include "route.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVIDENCE_FINDINGS 64

/* Appends to a pair of parallel arrays (item, count) of length *n. */
static int push2(uint32_t **v, uint32_t **c, uint32_t *n, uint32_t x, uint32_t cnt)
{
    uint32_t *t = realloc(*v, ((size_t)*n + 1) * sizeof **v);
    if (!t)
        return HS_ENOMEM;
    *v = t;
    t = realloc(*c, ((size_t)*n + 1) * sizeof **c);
    if (!t)
        return HS_ENOMEM;
    *c = t;
    (*v)[*n] = x;
    (*c)[*n] = cnt;
    (*n)++;
    return 0;
}

static int has(const uint32_t *v, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static double pct(double x) { return 100.0 * x; }

/* What a person reads is a proportion: the estimate clipped to [0, 1], its
 * "+-" the larger half of the interval [cf - se, cf + se] clipped to [0, 1]
 * and measured from the clipped value, so "+-" never leaves [0, 100%] on
 * its far side.  The raw unbiased estimate stays in analysis.json. */
static double clip01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
/* "40% +- 5%", or when the interval reaches past 0 or 1, "100% (95%-100%)":
 * the clipped value with the interval [c - se, c + se] clipped to [0, 1]. */
const char *hs__an_cf_text(char *buf, size_t n, double cf, double se)
{
    double c = clip01(cf), lo = clip01(c - se), hi = clip01(c + se);
    if (c - se >= 0 && c + se <= 1)
        snprintf(buf, n, "%.0f%% +- %.0f%%", pct(c), pct(se));
    else
        snprintf(buf, n, "%.0f%% (%.0f%%-%.0f%%)", pct(c), pct(lo), pct(hi));
    return buf;
}
/* A load share for people: at most 100%; above, the words say so. */
static void load_phrase(char *buf, size_t n, double load)
{
    if (load > 1)
        snprintf(buf, n, "100%% (its demand exceeded the capacity %.1f times over)", load);
    else
        snprintf(buf, n, "%.0f%%", pct(load < 0 ? 0 : load));
}

/* ---- evidence from the records ---------------------------------------------------- */

typedef struct ev {
    uint32_t *src, *dst;      /* per finding x node: sampled packets */
    uint32_t *grp;            /* per finding x group */
    uint8_t  *have;           /* per finding: evidence gathered */
} ev;

/* For each finding: which nodes sent and received the sampled packets that
 * crossed its links, and in which phase groups. */
static int gather(hs_analysis *a, uint32_t nf, ev *E)
{
    const hs__run *r = a->r;
    hs__paths *p = a->paths;
    E->src = calloc((size_t)nf * r->N, sizeof *E->src);
    E->dst = calloc((size_t)nf * r->N, sizeof *E->dst);
    E->grp = calloc((size_t)nf * (a->ngroups ? a->ngroups : 1), sizeof *E->grp);
    E->have = calloc(nf ? nf : 1, 1);
    uint32_t *mark = malloc(((size_t)r->L + 1) * sizeof *mark);
    uint32_t *pgrp = malloc(65536 * sizeof *pgrp);
    if (!E->src || !E->dst || !E->grp || !E->have || !mark || !pgrp) {
        free(mark);
        free(pgrp);
        return HS_ENOMEM;
    }
    if (!r->R) {
        free(mark);
        free(pgrp);
        return 0;
    }
    for (uint32_t i = 0; i < r->nph; i++)
        pgrp[r->ph[i].id] = a->group_of_phase[i];
    if (!p) {
        /* paths unknown, but an endpoint's records still name the nodes on
         * the other side and the phases */
        for (uint32_t f = 0; f < nf; f++) {
            const hs__finding *F = &a->findings[f];
            if (F->kind != HS_AN_PATTERN)
                continue;
            const hs__root *R0 = &a->roots[F->roots[0]];
            E->have[f] = 1;
            for (uint64_t i = 0; i < r->R; i++) {
                hs__rec rec;
                hs__rec_get(r, i, &rec);
                if ((R0->endpoint == 1 ? rec.dst : rec.src) != R0->node)
                    continue;
                E->src[(size_t)f * r->N + rec.src]++;
                E->dst[(size_t)f * r->N + rec.dst]++;
                E->grp[(size_t)f * a->ngroups + pgrp[rec.phase]]++;
            }
        }
        free(mark);
        free(pgrp);
        return 0;
    }
    memset(E->have, 1, nf);
    memset(mark, 0xff, ((size_t)r->L + 1) * sizeof *mark);
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t i = 0; i < a->findings[f].nlinks; i++)
            if (mark[a->findings[f].links[i]] == HS__NIL)
                mark[a->findings[f].links[i]] = f;
    for (uint64_t i = 0; i < r->R; i++) {
        hs__rec rec;
        hs__rec_get(r, i, &rec);
        hs__pentry *e;
        if (hs__an_paths_get(p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &e)) {
            free(mark);
            free(pgrp);
            return HS_ENOMEM;
        }
        uint32_t hit[8], nh = 0;
        uint32_t ends[2] = { r->nd[rec.src].inj, r->nd[rec.dst].ej };
        for (uint32_t j = 0; j < e->n + 2; j++) {
            uint32_t l = j < 2 ? ends[j] : p->pool[e->off + j - 2];
            uint32_t f = mark[l];
            if (f == HS__NIL || has(hit, nh, f))
                continue;
            if (nh < 8)
                hit[nh++] = f;
        }
        for (uint32_t k = 0; k < nh; k++) {
            E->src[(size_t)hit[k] * r->N + rec.src]++;
            E->dst[(size_t)hit[k] * r->N + rec.dst]++;
            E->grp[(size_t)hit[k] * a->ngroups + pgrp[rec.phase]]++;
        }
    }
    free(mark);
    free(pgrp);
    return 0;
}

/* Sorts indices 0..n-1 with count > 0 by count (desc), index (asc). */
static uint32_t top(const uint32_t *count, uint32_t n, uint32_t *idx)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (count[i])
            idx[k++] = i;
    /* insertion sort is fine for evidence lists; shell sort for big ones */
    for (uint32_t gap = k / 2; gap > 0; gap /= 2)
        for (uint32_t i = gap; i < k; i++) {
            uint32_t x = idx[i], j = i;
            while (j >= gap && (count[idx[j - gap]] < count[x] ||
                                (count[idx[j - gap]] == count[x] && idx[j - gap] > x))) {
                idx[j] = idx[j - gap];
                j -= gap;
            }
            idx[j] = x;
        }
    return k;
}

/* ---- text helpers ---------------------------------------------------------------- */

static void node_list(hs__sbuf *b, const hs_analysis *a, const uint32_t *nodes, uint32_t n,
                      uint32_t max)
{
    for (uint32_t i = 0; i < n && i < max; i++)
        hs__sb_printf(b, "%s%s", i ? ", " : "", a->r->nd[nodes[i]].name);
    if (n > max)
        hs__sb_printf(b, " and %u more", n - max);
}

/* "ranks 3, 7-9" from a sorted list. */
static void rank_list(hs__sbuf *b, const uint32_t *ranks, uint32_t n, uint32_t max)
{
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n && shown < max;) {
        uint32_t j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        if (j > i)
            hs__sb_printf(b, "%s%u-%u", shown ? ", " : "", ranks[i], ranks[j]);
        else
            hs__sb_printf(b, "%s%u", shown ? ", " : "", ranks[i]);
        shown++;
        i = j + 1;
        if (shown == max && i < n)
            hs__sb_printf(b, ", ...");
    }
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Ranks hosted on the given nodes (app.json mapping), sorted. */
static int ranks_on(const hs_analysis *a, const uint32_t *nodes, uint32_t nn, uint32_t **out,
                    uint32_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!a->app || !a->app->node_of_rank)
        return 0;
    for (uint32_t r = 0; r < a->app->ranks; r++)
        if (has(nodes, nn, a->app->node_of_rank[r]) && hs__an_push(out, nout, r))
            return HS_ENOMEM;
    return 0;
}

static const char *group_phrase(const hs_analysis *a, const hs__finding *f, char *buf, size_t n)
{
    if (!f->ngroups) {
        buf[0] = 0;
        return buf;
    }
    uint64_t tot = 0;
    for (uint32_t i = 0; i < f->ngroups; i++)
        tot += f->group_count[i];
    double share = tot ? (double)f->group_count[0] / (double)tot : 0;
    if (f->ngroups == 1 || share > 0.999)
        snprintf(buf, n, ", all in phase '%s'", a->groups[f->groups[0]].name);
    else
        snprintf(buf, n, ", %.0f%% of them in phase '%s'", pct(share), a->groups[f->groups[0]].name);
    return buf;
}

/* ---- findings -------------------------------------------------------------------- */

static hs__finding *new_finding(hs_analysis *a, hs_an_kind kind)
{
    hs__finding *t = realloc(a->findings, ((size_t)a->nfindings + 1) * sizeof *t);
    if (!t)
        return NULL;
    a->findings = t;
    hs__finding *f = &t[a->nfindings++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->target = HS__NIL;
    return f;
}

/* Adds root q to finding f; its severity counts the congested packets of
 * its tree and victims, except on links marked in skip (when non-NULL):
 * those another finding already explains. */
static int add_root(hs__finding *f, const hs_analysis *a, uint32_t q, const uint8_t *skip)
{
    const hs__root *R = &a->roots[q];
    if (hs__an_push(&f->roots, &f->nroots, q))
        return HS_ENOMEM;
    for (uint32_t i = 0; i < R->nlinks; i++)
        if (!has(f->links, f->nlinks, R->links[i]) && hs__an_push(&f->links, &f->nlinks, R->links[i]))
            return HS_ENOMEM;
    f->nlinks_root = f->nlinks;
    for (uint32_t i = 0; i < R->ntree; i++)
        if (!skip || !skip[R->tree[i]])
            f->severity += a->est[R->tree[i]].congested;
    for (uint32_t i = 0; i < R->nvictims; i++)
        if (!skip || !skip[R->victims[i]])
            f->severity += a->est[R->victims[i]].congested;
    for (uint32_t i = 0; i < R->nlinks; i++) {
        uint32_t l = R->links[i];
        if (f->nlinks_root == 1 || a->est[l].cf > f->cf || (f->cf == 0 && f->load == 0)) {
            f->cf = a->est[l].cf;
            f->cf_se = a->est[l].cf_se;
            f->load = a->load_busy[l];
        }
    }
    return 0;
}

static int cmp_findings(const void *x, const void *y)
{
    const hs__finding *a = x, *b = y;
    if (a->severity != b->severity)
        return a->severity > b->severity ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    uint32_t la = a->nlinks ? a->links[0] : 0, lb = b->nlinks ? b->links[0] : 0;
    return la < lb ? -1 : la > lb;
}

/* Orders a finding's links: roots by congested fraction, then the rest. */
static void sort_links(const hs_analysis *a, uint32_t *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        while (j > 0 && (a->est[v[j - 1]].cf < a->est[x].cf ||
                         (a->est[v[j - 1]].cf == a->est[x].cf && v[j - 1] > x))) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static void describe_pattern(hs_analysis *a, hs__finding *f, hs__sbuf *b)
{
    const hs__run *r = a->r;
    uint32_t l = f->links[0];
    const hs__link *k = &r->lk[l];
    char lb[160], gb[200];
    uint32_t x = f->target, nt = f->ntargets;
    int into = a->roots[f->roots[0]].endpoint == 1;
    int own = k->kind != HS__LK_SWITCH;
    if (nt > 1)
        hs__sb_printf(b, "%u nodes each %s more at once than their links carry (worst: %s",
                  nt, into ? "receive" : "send", r->nd[x].name);
    else
        hs__sb_printf(b, "%s node %s", into ? "Incast into" : "Too much sent from", r->nd[x].name);
    uint32_t *rk = NULL, nrk = 0;
    if (ranks_on(a, &x, 1, &rk, &nrk) == 0 && nrk) {
        hs__sb_printf(b, " (rank%s ", nrk > 1 ? "s" : "");
        rank_list(b, rk, nrk, 8);
        hs__sb_printf(b, ")");
    }
    free(rk);
    snprintf(lb, sizeof lb, "link %u %s->%s", l, k->from_name, k->to_name);
    if (own)
        hs__sb_printf(b, ": its %s link (%s)", into ? "ejection" : "injection", lb);
    else
        hs__sb_printf(b, ": %s (%s), at least 80%% of whose sampled packets %s it,", lb,
                  hs__an_link_sub_name(k), into ? "go on to" : "come from");
    char ld[96], ct[64];
    load_phrase(ld, sizeof ld, f->load);
    hs__sb_printf(b, " is congested for %s of the application's packets that cross "
              "it, with the application's own traffic at %s of its capacity", hs__an_cf_text(ct, sizeof ct, f->cf, f->cf_se), ld);
    if (nt > 1) {
        hs__sb_printf(b, "; also ");
        node_list(b, a, f->nodes + 1, nt - 1, 6);
        hs__sb_printf(b, ")");
    }
    /* the other side: senders (or receivers) */
    uint32_t nother = f->nnodes - nt;
    if (nother) {
        hs__sb_printf(b, "; %u node%s %s %s (", nother, nother > 1 ? "s" : "",
                  into ? "send to" : "receive from", nt > 1 ? "them" : "it");
        node_list(b, a, f->nodes + nt, nother, 6);
        hs__sb_printf(b, ")%s", group_phrase(a, f, gb, sizeof gb));
    } else if (f->ngroups) {
        hs__sb_printf(b, "%s", group_phrase(a, f, gb, sizeof gb));
    }
    if (f->nranks && a->app && a->app->ncomm) {
        hs__sb_printf(b, "; ranks %s %s: ", into ? "sending to" : "receiving from", nt > 1 ? "them" : "it");
        rank_list(b, f->ranks, f->nranks, 8);
    }
    hs__sb_printf(b, ". This is the communication pattern: %s, or aggregate them (a code change is "
              "likely needed).", into ? (nt > 1 ? "fewer messages in flight to each node at "
                                                  "once (stagger or pace them)"
                                                : "spread or stagger the messages to this node")
                                      : "spread what is sent over time or over more ranks");
}

static void describe_mapping(hs_analysis *a, hs__finding *f, hs__sbuf *b)
{
    const hs__run *r = a->r;
    char lb[160], gb[200];
    uint32_t nr = f->nlinks_root, nend = 0;
    for (uint32_t i = 0; i < nr; i++)
        nend += r->lk[f->links[i]].kind != HS__LK_SWITCH;
    int mostly = f->load >= a->p.load_high;
    char ld[96], ct[64];
    load_phrase(ld, sizeof ld, f->load);
    char where[200];
    if (!nend)
        snprintf(where, sizeof where, "inside the network");
    else if (nend == nr)
        snprintf(where, sizeof where, "into nodes that receive from one partner at a time (no "
                 "incast: back-pressure from the network)");
    else
        snprintf(where, sizeof where, "inside the network and into nodes that receive from one "
                 "partner at a time (%u: no incast, back-pressure from the network)", nend);
    char nroots[64] = "";
    if (f->nroots != nr)   /* roots that are cycles of several links */
        snprintf(nroots, sizeof nroots, " (%u root%s)", f->nroots, f->nroots > 1 ? "s" : "");
    hs__sb_printf(b, "%u link%s %s%s %s congestion-tree root%s carrying %s the "
              "application's own traffic (worst: %s, congested for %s of its "
              "packets, application load %s of capacity in its bursts%s)", nr, nr > 1 ? "s" : "", where,
              nroots, nr > 1 ? "are" : "is a", nr > 1 ? "s" : "", mostly ? "mostly" : "much of",
              hs__an_link_desc(r, f->links[0], lb, sizeof lb),
              hs__an_cf_text(ct, sizeof ct, f->cf, f->cf_se), ld, mostly ? "" : " as its packets see it: enough for its own bursts "
              "to queue, though other traffic may add to it");
    if (f->nnodes) {
        hs__sb_printf(b, "; %u node%s send or receive across them (", f->nnodes,
                  f->nnodes > 1 ? "s" : "");
        node_list(b, a, f->nodes, f->nnodes, 6);
        hs__sb_printf(b, ")%s", group_phrase(a, f, gb, sizeof gb));
    }
    hs__sb_printf(b, ". This is a mapping or bisection problem: the ranks that talk most are "
              "placed across a bottleneck of the machine.");
    if (f->have_mapping)
        hs__sb_printf(b, " A mapping that keeps heavy communication local moves %.0f%% fewer "
                  "byte-hops between switches; try it with 'hopscope whatif %s --map "
                  "suggested'.", f->cost_now > 0 ? pct(1 - f->cost_suggested / f->cost_now) : 0,
                  r->dir);
    else if (f->linear_better)
        hs__sb_printf(b, " The plain linear mapping moves %.0f%% fewer byte-hops between switches "
                  "than the current one (the computed suggestion does no better); try it with "
                  "'hopscope whatif %s --map linear'.",
                  pct(1 - f->cost_linear / f->cost_now), r->dir);
    else if (f->cost_now > 0)
        hs__sb_printf(b, " No mapping found on these nodes beats both the current and the linear "
                  "one on the routed communication (byte-hops and most loaded link): the "
                  "bottleneck is the machine's bisection or the pattern itself, not the "
                  "placement; none is suggested.");
    else
        hs__sb_printf(b, " Try a mapping that keeps the heaviest communication partners under one "
                  "switch%s.", a->app ? "" : " (no app.json: no rank-level suggestion)");
}

static void describe_interference(hs_analysis *a, hs__finding *f, hs__sbuf *b)
{
    const hs__run *r = a->r;
    char lb[160], gb[200], ct[64], ct2[64];
    uint32_t w = f->links[0];
    hs_estimate q;
    memset(&q, 0, sizeof q);
    if (a->quiet)
        hs__an_est(a, &a->quiet[w], a->paths_exact, &q);
    int only_freed = f->nfreed && f->nfreed == f->nroots && f->nlinks == f->nlinks_root;
    if (only_freed)
        hs__sb_printf(b, "%u congested link%s next to the application's own congestion %s "
                  "congested by others' traffic (worst: %s, congested for %s of the "
                  "application's packets that cross it, while its own load there is %.0f%% "
                  "of capacity in its bursts, %.0f%% over the run)", f->nlinks,
                  f->nlinks > 1 ? "s" : "", f->nlinks > 1 ? "are" : "is",
                  hs__an_link_desc(r, w, lb, sizeof lb),
                  hs__an_cf_text(ct, sizeof ct, f->cf, f->cf_se), pct(clip01(f->load)),
                  pct(clip01(a->load[w])));
    else if (f->load > a->p.load_low && q.cf_valid)
        /* decided by the quiet packets (app_explains) */
        hs__sb_printf(b, "%u link%s %s congested even where the application itself is quiet on "
                  "them (worst: %s, congested for %s of the application's packets "
                  "that cross it, and for %s of those that met few of its own "
                  "there, whom its own traffic cannot have delayed; its load there is %.0f%% of "
                  "capacity over the run, %.0f%% in its bursts)", f->nlinks,
                  f->nlinks > 1 ? "s" : "", f->nlinks > 1 ? "are" : "is",
                  hs__an_link_desc(r, w, lb, sizeof lb), hs__an_cf_text(ct, sizeof ct, f->cf, f->cf_se),
                  hs__an_cf_text(ct2, sizeof ct2, q.cf, q.cf_se),
                  pct(clip01(a->load[w])), pct(clip01(f->load)));
    else
        hs__sb_printf(b, "%u congested link%s carr%s little of the application's own traffic (dark "
                  "and thin; worst: %s, congested for %s of the application's "
                  "packets that cross it, while its own load there is %.0f%% of capacity in "
                  "its bursts, %.0f%% over the run)",
                  f->nlinks, f->nlinks > 1 ? "s" : "", f->nlinks > 1 ? "y" : "ies",
                  hs__an_link_desc(r, w, lb, sizeof lb), hs__an_cf_text(ct, sizeof ct, f->cf, f->cf_se), pct(clip01(f->load)),
                  pct(clip01(a->load[w])));
    if (f->nfreed) {
        char fb[160], fc[64];
        if (only_freed)
            hs__sb_printf(b, "; not behind the application's own packets: on %s, %s of its "
                      "packets that reached the link through inputs carrying none of its "
                      "traffic to another congested link are congested",
                      hs__an_link_desc(r, f->freed_link, fb, sizeof fb),
                      hs__an_cf_text(fc, sizeof fc, f->freed_cf, f->freed_se));
        else
            hs__sb_printf(b, "; %u of them, next to the application's own congestion, are "
                      "congested by others too (worst: %s, congested for %s of the "
                      "application's packets that reached it through inputs carrying none of "
                      "its traffic to another congested link, which cannot have waited behind "
                      "its own packets)", f->nfreed,
                      hs__an_link_desc(r, f->freed_link, fb, sizeof fb),
                      hs__an_cf_text(fc, sizeof fc, f->freed_cf, f->freed_se));
    }
    if (f->nnodes) {
        hs__sb_printf(b, "; the application's packets through them come from or go to %u node%s (",
                  f->nnodes, f->nnodes > 1 ? "s" : "");
        node_list(b, a, f->nodes, f->nnodes, 6);
        hs__sb_printf(b, ")%s", group_phrase(a, f, gb, sizeof gb));
    }
    hs__sb_printf(b, ". The load comes from outside the job: interference from other traffic");
    if (a->app && a->app->have_background && a->app->bg_spec)
        hs__sb_printf(b, " (the run had background '%s')", a->app->bg_spec);
    hs__sb_printf(b, "; the code is not at fault: ask for an isolated allocation, or a placement "
              "away from the congested links.");
}

/* What would decide the undecided links: the factor on monitored packets
 * as a monitored fraction when it fits under 1, else as a longer run. */
static void need_phrase(const hs_analysis *a, hs__sbuf *b, double k)
{
    double m = a->monitor > 0 ? a->monitor : 1;
    /* a factor just above 1 must not print as "1x" (the present run):
     * below 10, rounded up to a tenth */
    if (k > 1 && k < 10)
        k = ceil(k * 10 - 1e-9) / 10;
    if (k >= 1e6)
        hs__sb_printf(b, "practically no run: their CFs sit at the threshold");
    else if (m * k <= 1)
        hs__sb_printf(b, "%.2gx the monitored packets (monitored fraction %.3g instead of %.3g, or "
                  "a run %.2gx as long)", k, m * k, m, k);
    else
        hs__sb_printf(b, "%.2gx the monitored packets (a run %.2gx as long%s)", k, k / m,
                  m < 1 ? " with every message monitored" : "");
}

/* "none" only when every link with the application's packets is judged
 * clear, alone or pooled with links of its role; else "undecided", with
 * how many links, why, and what would decide them. */
static void describe_none(hs_analysis *a, hs__sbuf *b)
{
    hs_an_summary s;
    hs_an_get_summary(a, &s);
    char lb[160];
    const char *dec = a->decoder == HS__DEC_ROUTE ? "route-aware" : "blind";
    uint32_t pooled_clear = 0;
    for (uint32_t l = 1; l <= a->r->L; l++)
        pooled_clear += a->verdict[l] == HS__V_UNDECIDED && a->pool_of[l] != HS__NIL &&
                        a->pools[a->pool_of[l]].verdict == HS__V_CLEAR;
    if (a->nundecided) {
        uint32_t thin_cong = 0;
        for (uint32_t i = 0; i < a->npools; i++)
            if (a->pools[i].level == 2 && a->pools[i].verdict == HS__V_CONGESTED)
                thin_cong += a->pools[i].nlinks;
        hs__sb_printf(b, "Cannot judge: no link is congested with confidence, but %u link%s "
                  "carrying the application's packets cannot be judged with the %s decoder "
                  "(their congested fraction is within %.3g standard errors of the %.0f%% "
                  "threshold%s, even pooled with the links of their role)", a->nundecided,
                  a->nundecided > 1 ? "s" : "", dec, a->p.z, pct(a->p.cf_threshold),
                  a->decoder == HS__DEC_BLIND ? ", or their traffic estimate is too noisy" : "");
        if (thin_cong)
            hs__sb_printf(b, "; pooled over the network, %u of them are congested together, but "
                      "not which", thin_cong);
        hs__sb_printf(b, ". %u links are judged (%u of them only pooled). To decide half of the "
                  "undecided links: ", s.links_ok + pooled_clear, pooled_clear);
        need_phrase(a, b, a->need_half);
        hs__sb_printf(b, "; all of them: ");
        need_phrase(a, b, a->need_all);
        if (a->decoder == HS__DEC_BLIND)
            hs__sb_printf(b, "; more hash bits (--bits) divide the blind decoder's noise too");
        hs__sb_printf(b, ".");
        return;
    }
    if (!s.links_ok && !pooled_clear) {
        hs__sb_printf(b, "No link carries the application's monitored packets: nothing to judge.");
        return;
    }
    char ct[64];
    hs__sb_printf(b, "No link is congested (%s decoder): every link carrying the application's "
              "packets is below the %.0f%% threshold with confidence (%.3g standard errors), "
              "%u alone and %u pooled with the links of their role", dec,
              pct(a->p.cf_threshold), a->p.z, s.links_ok, pooled_clear);
    if (s.links_ok)
        hs__sb_printf(b, "; the highest congested fraction is %s (%s)",
                  hs__an_cf_text(ct, sizeof ct, s.max_cf, s.max_cf_se),
                  hs__an_link_desc(a->r, s.max_cf_link, lb, sizeof lb));
    hs__sb_printf(b, ".");
}

/* Fills nodes, ranks and phases of finding f from the gathered evidence. */
static int fill_evidence(hs_analysis *a, hs__finding *f, uint32_t fi, const ev *E, int have_ev)
{
    const hs__run *r = a->r;
    uint32_t N = r->N;
    uint32_t *idx = malloc((size_t)(N > a->ngroups ? N : a->ngroups + 1) * sizeof *idx);
    uint32_t *cnt = calloc(N, sizeof *cnt);
    if (!idx || !cnt) {
        free(idx);
        free(cnt);
        return HS_ENOMEM;
    }
    int rc = 0;
    if (f->kind == HS_AN_PATTERN) {
        const hs__root *R0 = &a->roots[f->roots[0]];
        int into = R0->endpoint == 1;
        f->target = R0->node;
        const uint32_t *mine = (into ? E->dst : E->src) + (size_t)fi * N;
        for (uint32_t q = 0; q < f->nroots && !rc; q++) {
            uint32_t x = a->roots[f->roots[q]].node;
            if (!has(f->nodes, f->nnodes, x))
                rc = push2(&f->nodes, &f->node_count, &f->nnodes, x, have_ev ? mine[x] : 0);
        }
        f->ntargets = f->nnodes;
        if (have_ev) {
            /* the other side of the endpoints: senders of an incast */
            const uint32_t *c = (into ? E->src : E->dst) + (size_t)fi * N;
            uint32_t n = top(c, N, idx);
            for (uint32_t i = 0; i < n && !rc; i++)
                if (!has(f->nodes, f->ntargets, idx[i]))
                    rc = push2(&f->nodes, &f->node_count, &f->nnodes, idx[i], c[idx[i]]);
        }
        /* ranks: those that send to ranks on the target (comm matrix), else
         * the ranks on the sending nodes */
        if (a->app && a->app->node_of_rank) {
            uint64_t *by = calloc(a->app->ranks, sizeof *by);
            if (!by) {
                rc = HS_ENOMEM;
            } else if (a->app->ncomm) {
                for (size_t i = 0; i < a->app->ncomm; i++) {
                    const hs__app_comm *c = &a->app->comm[i];
                    uint32_t other = into ? c->dst : c->src;
                    uint32_t me = into ? c->src : c->dst;
                    if (has(f->nodes, f->ntargets, a->app->node_of_rank[other]) &&
                        !has(f->nodes, f->ntargets, a->app->node_of_rank[me]))
                        by[me] += c->bytes;
                }
                for (uint32_t q = 0; q < a->app->ranks && !rc; q++)
                    if (by[q])
                        rc = hs__an_push(&f->ranks, &f->nranks, q);
            } else {
                uint32_t *rk;
                uint32_t nrk;
                rc = ranks_on(a, f->nodes + f->ntargets, f->nnodes - f->ntargets, &rk, &nrk);
                f->ranks = rk;
                f->nranks = nrk;
            }
            free(by);
        }
    } else if (have_ev) {
        for (uint32_t n = 0; n < N; n++)
            cnt[n] = E->src[(size_t)fi * N + n] + E->dst[(size_t)fi * N + n];
        uint32_t n = top(cnt, N, idx);
        for (uint32_t i = 0; i < n && !rc; i++)
            rc = push2(&f->nodes, &f->node_count, &f->nnodes, idx[i], cnt[idx[i]]);
        if (!rc && f->nnodes) {
            uint32_t *sorted = malloc(f->nnodes * sizeof *sorted);
            if (!sorted) {
                rc = HS_ENOMEM;
            } else {
                memcpy(sorted, f->nodes, f->nnodes * sizeof *sorted);
                qsort(sorted, f->nnodes, sizeof *sorted, cmp_u32);
                rc = ranks_on(a, sorted, f->nnodes, &f->ranks, &f->nranks);
                free(sorted);
            }
        }
    } else {
        /* no records: the ends of the links */
        for (uint32_t i = 0; i < f->nlinks && !rc; i++) {
            const hs__link *k = &r->lk[f->links[i]];
            uint32_t x = k->kind == HS__LK_EJECTION ? k->to : k->kind == HS__LK_INJECTION ? k->from
                                                                                        : HS__NIL;
            if (x != HS__NIL && !has(f->nodes, f->nnodes, x))
                rc = push2(&f->nodes, &f->node_count, &f->nnodes, x, 0);
        }
    }
    /* phases: by sampled packets across the links, else where the links
     * are congested in the per-phase views */
    if (!rc && have_ev) {
        uint32_t n = top(E->grp + (size_t)fi * a->ngroups, a->ngroups, idx);
        for (uint32_t i = 0; i < n && !rc; i++)
            rc = push2(&f->groups, &f->group_count, &f->ngroups, idx[i],
                       E->grp[(size_t)fi * a->ngroups + idx[i]]);
    } else if (!rc) {
        for (uint32_t g = 0; g < a->ngroups && !rc; g++) {
            const hs__view *v = &a->gviews[g];
            uint32_t c = 0;
            for (uint32_t k = 0; k < v->n; k++)
                if (v->lk[k].congested && has(f->links, f->nlinks_root, v->lk[k].link))
                    c += (uint32_t)(v->lk[k].e.traffic > 0 ? v->lk[k].e.traffic + 0.5 : 1);
            if (c)
                rc = push2(&f->groups, &f->group_count, &f->ngroups, g, c);
        }
    }
    free(idx);
    free(cnt);
    return rc;
}

/* Whether link l's congestion is the application's own doing.  Its load
 * as its packets see it decides at the ends: at load_high or more it can
 * congest the link alone (bursts, head-of-line blocking); at load_low or
 * less its own packets cannot have filled a congested packet's wait ("dark
 * and thin").  Between, the records decide when they can: if the
 * application's quiet packets on l (fewer than tau's worth of its others
 * in their bin) are congested all the same, at z standard errors, someone
 * else's traffic is there. */
static int app_explains(const hs_analysis *a, uint32_t l)
{
    /* no other traffic in the run: whatever congests a link is the
     * application's own, from another phase or route if not from the
     * packets measured there */
    if (a->alone)
        return 1;
    if (a->load_busy[l] >= a->p.load_high)
        return 1;
    if (a->load_busy[l] <= a->p.load_low)
        return 0;
    if (a->quiet) {
        hs_estimate e;
        hs__an_est(a, &a->quiet[l], a->paths_exact, &e);
        if (e.cf_valid && e.traffic >= a->p.min_packets &&
            e.cf - a->p.z * e.cf_se >= a->p.cf_threshold)
            return 0;
    }
    return 1;
}

/* Head-of-line victims that others' traffic congests.  A light root that
 * trees.c takes for a heavy root's victim is one whose packets waited
 * behind the heavy tree's at an input they share.  That
 * needs a shared input: a packet that reached the victim through an input
 * carrying none of the application's traffic into a heavy tree (no
 * sampled packet of it went on to a link of one) cannot have waited
 * behind the application's packets there, and the victim, a root, has no
 * congested link downstream to stall it; if such packets are congested
 * all the same (their CF at least cf_threshold at z standard errors, on at
 * least min_packets of them), someone else's traffic queued them: the
 * victim is a root of its own, and interference.  This is the second
 * cause of a bad mapping beside a background: the background congests
 * links next to the application's own heavy tree, and trees.c can take
 * them for its victims.  Needs exact paths (the link before the victim on each packet's
 * path) and other traffic in the run.  *freed[q] = 1 for such roots.
 * HS_ENOMEM. */
typedef struct via_ctx {
    const uint8_t *want, *ncong;
    const uint32_t *one;
    uint32_t prev;
} via_ctx;

/* Keeps a victim link when the packet came to it through an input that
 * feeds no other possibly congested output of the switch. */
static int via_keep(void *ctx, uint32_t l)
{
    via_ctx *v = ctx;
    uint32_t u = v->prev;
    int k = v->want[l] && u != HS__NIL && (v->ncong[u] == 0 || (v->ncong[u] == 1 && v->one[u] == l));
    v->prev = l;
    return k;
}

/* Whether the data cannot rule out that link l is congested. */
static int maybe_congested(const hs_analysis *a, uint32_t l)
{
    const hs_estimate *e = &a->est[l];
    return a->congested[l] ||
           (e->cf_valid && e->cf + a->p.z * e->cf_se >= a->p.cf_threshold);
}

/* per switch input u: how many possibly congested outputs of its switch it
 * feeds (0, 1 and which in one[u], or 2 for more) */
static void inputs_feeding(const hs_analysis *a, uint8_t *ncong, uint32_t *one)
{
    const hs__run *r = a->r;
    for (uint32_t w = 1; w <= r->L; w++) {
        if (r->lk[w].from_kind != HS__DEV_SWITCH || !maybe_congested(a, w))
            continue;
        for (uint32_t u = 1; u <= r->L; u++)
            if (ncong[u] < 2 && r->lk[u].to_kind == HS__DEV_SWITCH &&
                r->lk[u].to == r->lk[w].from && hs__an_feeds(a, u, w) > 0) {
                if (ncong[u]++ == 0)
                    one[u] = w;
            }
    }
}

static int free_victims(hs_analysis *a, uint8_t **freed, hs_estimate *via)
{
    const hs__run *r = a->r;
    *freed = calloc(a->nroots ? a->nroots : 1, 1);
    if (!*freed)
        return HS_ENOMEM;
    if (a->alone || !a->paths || !a->paths_exact || !r->R)
        return 0;
    size_t nl = (size_t)r->L + 1;
    uint8_t *want = calloc(nl, 1), *ncong = calloc(nl, 1);
    uint32_t *one = calloc(nl, sizeof *one);
    hs_linksum *sum = calloc(nl, sizeof *sum);
    int rc = 0, any = 0;
    if (!want || !ncong || !one || !sum)
        rc = HS_ENOMEM;
    for (uint32_t q = 0; q < a->nroots && !rc; q++) {
        const hs__root *R = &a->roots[q];
        if (R->victim_of >= 0) {
            for (uint32_t i = 0; i < R->nlinks; i++)
                want[R->links[i]] = 1;
            any = 1;
        }
    }
    /* per input: the possibly congested outputs of its switch it feeds,
     * whoever congests them: a packet behind the head of that input may
     * have waited for any of them */
    if (any && !rc)
        inputs_feeding(a, ncong, one);
    if (any && !rc) {
        hs__decoder d;
        hs_error e;
        hs_totals tot;
        memset(&tot, 0, sizeof tot);
        rc = hs__an_decoder_init(&d, a->paths, &e);
        if (!rc) {
            via_ctx v = { want, ncong, one, HS__NIL };
            for (uint64_t i = 0; i < r->R && !rc; i++) {
                v.prev = HS__NIL;
                rc = hs__an_route_add(&d, i, via_keep, &v, sum, &tot, NULL);
            }
            if (!rc)
                rc = hs__an_route_flush(&d, sum, &tot);
            hs__an_decoder_free(&d);
        }
    }
    for (uint32_t q = 0; any && !rc && q < a->nroots; q++) {
        hs__root *R = &a->roots[q];
        if (R->victim_of < 0)
            continue;
        for (uint32_t i = 0; i < R->nlinks && !(*freed)[q]; i++) {
            hs_estimate e;
            hs__an_est(a, &sum[R->links[i]], a->paths_exact, &e);
            (*freed)[q] = e.cf_valid && e.traffic >= a->p.min_packets &&
                          e.cf - a->p.z * e.cf_se >= a->p.cf_threshold;
            via[q] = e;
        }
        if (!(*freed)[q])
            continue;
        /* no longer the heavy root's victim */
        hs__root *H = &a->roots[R->victim_of];
        uint32_t k = 0;
        for (uint32_t i = 0; i < H->nvictims; i++)
            if (!has(R->links, R->nlinks, H->victims[i]))
                H->victims[k++] = H->victims[i];
        H->nvictims = k;
        R->victim_of = -1;
    }
    free(want);
    free(ncong);
    free(one);
    free(sum);
    return rc;
}

/* Congestion of a link's own, among those a heavy root explains.  A congested link
 * the application's load does not explain ("dark and thin") is taken for
 * back-pressure from the heavy root that explains it (trees.c): its packets
 * wait because the root's queue is full, or behind the root's packets at a
 * shared input.  Neither holds for the packets that came to the link
 * through an input feeding no other possibly congested output of its
 * switch (as for the victims above) and leave it onto a link that is not
 * possibly congested: nothing downstream stalls them and nothing ahead of
 * them at their input waits for another output.  If those packets are
 * congested all the same (judged like any link, judge.c), the link itself
 * is a bottleneck, and since the application's load there does not explain
 * it, someone else's traffic is: interference.  Needs exact paths and
 * other traffic in the run.  *local[l] = 1 for such links.  HS_ENOMEM. */
typedef struct local_ctx {
    const uint8_t *want, *ncong, *maybe;
    const uint32_t *one;
    const uint32_t *seq;
    uint32_t n, pos;
} local_ctx;

int hs__an_local_keep_at(const uint32_t *seq, uint32_t n, uint32_t k, const uint8_t *want,
                         const uint8_t *ncong, const uint32_t *one, const uint8_t *maybe)
{
    if (k == 0 || k >= n || !want[seq[k]])
        return 0;
    uint32_t l = seq[k], u = seq[k - 1];
    int clean_in = ncong[u] == 0 || (ncong[u] == 1 && one[u] == l);
    int free_out = k + 1 >= n || !maybe[seq[k + 1]];
    return clean_in && free_out;
}

static int local_keep(void *ctx, uint32_t l)
{
    local_ctx *v = ctx;
    uint32_t k = v->pos++;
    return k < v->n && v->seq[k] == l &&
           hs__an_local_keep_at(v->seq, v->n, k, v->want, v->ncong, v->one, v->maybe);
}

int hs__an_local_congestion(hs_analysis *a, uint8_t **local)
{
    const hs__run *r = a->r;
    size_t nl = (size_t)r->L + 1;
    *local = calloc(nl, 1);
    if (!*local)
        return HS_ENOMEM;
    if (a->alone || !a->paths || !a->paths_exact || !r->R)
        return 0;
    uint8_t *want = calloc(nl, 1), *ncong = calloc(nl, 1), *maybe = calloc(nl, 1);
    uint32_t *one = calloc(nl, sizeof *one), *seq = NULL;
    hs_linksum *sum = calloc(nl, sizeof *sum);
    int rc = 0, any = 0;
    if (!want || !ncong || !maybe || !one || !sum)
        rc = HS_ENOMEM;
    for (uint32_t l = 1; !rc && l <= r->L; l++) {
        maybe[l] = (uint8_t)maybe_congested(a, l);
        if (a->congested[l] && a->explained[l] && !app_explains(a, l))
            want[l] = 1, any = 1;
    }
    if (any && !rc) {
        inputs_feeding(a, ncong, one);
        hs__decoder d;
        hs_error e;
        hs_totals tot;
        memset(&tot, 0, sizeof tot);
        uint32_t cap = 0;
        rc = hs__an_decoder_init(&d, a->paths, &e);
        if (!rc) {
            local_ctx v = { want, ncong, maybe, one, NULL, 0, 0 };
            for (uint64_t i = 0; i < r->R && !rc; i++) {
                hs__rec rec;
                hs__rec_get(r, i, &rec);
                hs__pentry *pe;
                rc = hs__an_paths_get(a->paths, r->nd[rec.src].sw, hs__node_class(r, rec.dst),
                                      &pe);
                if (rc)
                    break;
                if (pe->n + 2 > cap) {
                    uint32_t *ns = realloc(seq, ((size_t)pe->n + 2) * sizeof *ns);
                    if (!ns) {
                        rc = HS_ENOMEM;
                        break;
                    }
                    seq = ns;
                    cap = pe->n + 2;
                }
                /* the order route_add offers them: injection, path, ejection */
                const hs__paths *pp = a->paths;
                v.n = 0;
                seq[v.n++] = r->nd[rec.src].inj;
                for (uint32_t j = 0; j < pe->n; j++)
                    seq[v.n++] = pp->pool[pe->off + j];
                seq[v.n++] = r->nd[rec.dst].ej;
                v.seq = seq;
                v.pos = 0;
                rc = hs__an_route_add(&d, i, local_keep, &v, sum, &tot, NULL);
            }
            if (!rc)
                rc = hs__an_route_flush(&d, sum, &tot);
            hs__an_decoder_free(&d);
        }
    }
    for (uint32_t l = 1; any && !rc && l <= r->L; l++) {
        if (!want[l])
            continue;
        hs_estimate e;
        hs__an_est(a, &sum[l], a->paths_exact, &e);
        (*local)[l] = hs__an_judge_one(&e, a->p.cf_threshold, a->p.z, a->p.max_traffic_cv,
                                       a->judge_hbar, a->sample_p, NULL) == HS__V_CONGESTED;
    }
    free(want);
    free(ncong);
    free(maybe);
    free(one);
    free(seq);
    free(sum);
    if (rc) {
        free(*local);
        *local = NULL;
    }
    return rc;
}

/* Whether the pattern an endpoint finding names is there: several senders
 * into the node at once, or one sender faster than the node can take.
 * From the records, per destination node: the share of its sampled
 * packets delivered in a time bin (--load-bin) together with another
 * sender's.  A congested packet waited behind others; if fewer than
 * cf_threshold of the node's packets ever arrive alongside another
 * sender's, the congestion of its link (at least cf_threshold of its
 * packets) cannot be an incast: it is back-pressure from elsewhere (the
 * mapping).  *ok[node] = 1 when the pattern is there or cannot be checked
 * (no records).  HS_ENOMEM. */
int hs__an_incast_present(const hs_analysis *a, uint8_t **ok)
{
    const hs__run *r = a->r;
    uint32_t N = r->N;
    *ok = malloc(N ? N : 1);
    uint64_t *bin = malloc((N ? N : 1) * sizeof *bin);
    uint32_t *first = malloc((N ? N : 1) * sizeof *first);
    uint8_t *multi = calloc(N ? N : 1, 1);
    double *cnt = calloc(N ? N : 1, sizeof *cnt), *tot = calloc(N ? N : 1, sizeof *tot),
           *con = calloc(N ? N : 1, sizeof *con);
    uint8_t *fast = calloc(N ? N : 1, 1);
    if (!*ok || !bin || !first || !multi || !cnt || !tot || !con || !fast) {
        free(bin); free(first); free(multi); free(cnt); free(tot); free(con); free(fast);
        free(*ok);
        *ok = NULL;
        return HS_ENOMEM;
    }
    memset(*ok, 1, N);
    if (r->R && a->p.load_bin_ps) {
        for (uint32_t n = 0; n < N; n++) {
            bin[n] = UINT64_MAX;
            first[n] = HS__NIL;
        }
        for (uint64_t i = 0; i < r->R; i++) {
            hs__rec rec;
            hs__rec_get(r, i, &rec);
            uint32_t x = rec.dst;
            uint64_t b = rec.t / a->p.load_bin_ps;
            if (b != bin[x]) {
                if (multi[x])
                    con[x] += cnt[x];
                tot[x] += cnt[x];
                bin[x] = b;
                cnt[x] = 0;
                multi[x] = 0;
                first[x] = rec.src;
            } else if (rec.src != first[x]) {
                multi[x] = 1;
            }
            cnt[x]++;
            if ((double)r->lk[r->nd[rec.src].inj].bw > hs__an_link_capacity(r, r->nd[x].ej))
                fast[x] = 1;
        }
        for (uint32_t x = 0; x < N; x++) {
            if (multi[x])
                con[x] += cnt[x];
            tot[x] += cnt[x];
            (*ok)[x] = tot[x] <= 0 || fast[x] || con[x] >= a->p.cf_threshold * tot[x];
        }
    }
    free(bin); free(first); free(multi); free(cnt); free(tot); free(con); free(fast);
    return 0;
}

/* Whether node x is lopsided in the application's communication matrix:
 * it receives more than it sends (dir 1: a funnel into it), or sends more
 * than it receives (dir 2).  Under deterministic routing an incast's
 * senders often join on the last switch-to-switch hop before the target,
 * which then carries the incast alone at its full rate and leaves the
 * target's own link clear; that is still the pattern, whatever the
 * placement: the target takes in more than it gives out.  A node that
 * sends exactly as much as it receives (halo, ping-pong, all-to-all) is a
 * peer in an exchange; where its partners' routes join is the placement's
 * doing.  From app.json's communication matrix (exact bytes); without it,
 * every node counts as lopsided (the pattern is kept, as before). */
static int lopsided(const hs_analysis *a, uint32_t x, int dir)
{
    if (!a->app || !a->app->ncomm || !a->app->node_of_rank)
        return 1;
    uint64_t in = 0, out = 0;
    for (size_t i = 0; i < a->app->ncomm; i++) {
        const hs__app_comm *c = &a->app->comm[i];
        if (c->src >= a->app->ranks || c->dst >= a->app->ranks)
            continue;
        uint32_t s = a->app->node_of_rank[c->src], d = a->app->node_of_rank[c->dst];
        if (s == d)
            continue;
        if (d == x)
            in += c->bytes;
        if (s == x)
            out += c->bytes;
    }
    return dir == 1 ? in > out : out > in;
}

int hs__an_diagnose(hs_analysis *a, hs_error *err)
{
    const hs__run *r = a->r;
    int rc = 0;
    hs__finding *mapping = NULL, *interf = NULL;
    /* roots first: pattern per endpoint root, one mapping and one
     * interference finding gathering the rest */
    uint32_t mapping_idx = HS__NIL, interf_idx = HS__NIL, pattern_idx = HS__NIL;
    uint8_t *incast_ok = NULL;
    for (uint32_t q = 0; q < a->nroots && !incast_ok; q++)
        if (a->roots[q].endpoint == 1 && a->roots[q].node != HS__NIL &&
            hs__an_incast_present(a, &incast_ok))
            return hs_error_set(err, HS_ENOMEM, "out of memory");
    uint8_t *freed = NULL;
    /* a freed victim's tree may run through the heavy tree it hung off:
     * those links' packets count for the application's own finding */
    uint8_t *heavy_tree = calloc((size_t)r->L + 1, 1);
    hs_estimate *via = calloc(a->nroots ? a->nroots : 1, sizeof *via);
    if (!heavy_tree || !via || free_victims(a, &freed, via)) {
        free(incast_ok);
        free(heavy_tree);
        free(freed);
        free(via);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (uint32_t q = 0; q < a->nroots; q++)
        if (a->roots[q].heavy)
            for (uint32_t i = 0; i < a->roots[q].ntree; i++)
                heavy_tree[a->roots[q].tree[i]] = 1;
    for (uint32_t q = 0; q < a->nroots && !rc; q++) {
        const hs__root *R = &a->roots[q];
        if (R->victim_of >= 0)
            continue;
        int own = !freed[q] && app_explains(a, R->links[0]);
        /* an endpoint root without the pattern (one partner, no faster
         * sender) is back-pressure from the network: a mapping matter */
        int pattern = R->endpoint && (R->endpoint != 1 || R->node == HS__NIL || !incast_ok ||
                                      incast_ok[R->node]);
        /* a root inside the network that funnels into (or out of) one node
         * is that node's pattern only if the node's own link could not
         * carry the traffic either (it is congested too), or the node is
         * lopsided (below).  The node's ejection (injection) link carries
         * the same packets; unless they are congested there as well, they
         * pass it freely, so what congests them is where the routes from
         * several senders join: an interior link, which the placement
         * chooses (mapping).  Not judged congested is not evidence of the
         * pattern: a thin own link left undecided no longer makes the
         * interior root a pattern (it did when only a clear verdict
         * counted against it) */
        if (pattern && R->node != HS__NIL && !lopsided(a, R->node, R->endpoint)) {
            uint32_t own_link = R->endpoint == 1 ? r->nd[R->node].ej : r->nd[R->node].inj;
            if (own_link != R->links[0] && own_link >= 1 && own_link <= r->L &&
                !a->congested[own_link])
                pattern = 0;
        }
        if (own) {
            /* one pattern finding for all endpoints: a halo exchange
             * saturates every node's ejection link at once, and that is one
             * pattern */
            uint32_t *idx = pattern ? &pattern_idx : &mapping_idx;
            if (*idx == HS__NIL) {
                if (!new_finding(a, pattern ? HS_AN_PATTERN : HS_AN_MAPPING))
                    rc = HS_ENOMEM;
                *idx = a->nfindings - 1;
            }
            if (!rc)
                rc = add_root(&a->findings[*idx], a, q, NULL);
        } else {
            if (interf_idx == HS__NIL) {
                if (!new_finding(a, HS_AN_INTERFERENCE))
                    rc = HS_ENOMEM;
                interf_idx = a->nfindings - 1;
            }
            if (!rc)
                rc = add_root(&a->findings[interf_idx], a, q, freed[q] ? heavy_tree : NULL);
            hs__finding *f = &a->findings[interf_idx];
            if (!rc && freed[q] && (!f->nfreed++ || via[q].cf > f->freed_cf)) {
                f->freed_link = R->links[0];
                f->freed_cf = via[q].cf;
                f->freed_se = via[q].cf_se;
            }
        }
    }
    free(incast_ok);
    free(freed);
    free(heavy_tree);
    free(via);
    if (rc)
        return hs_error_set(err, rc, "out of memory");
    /* dark and thin links no heavy root explains join the interference,
     * and so do those it explains that are congested on their own (above) */
    uint8_t *explained = a->explained, *local = NULL;
    if (hs__an_local_congestion(a, &local))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint32_t l = 1; l <= r->L && !rc; l++) {
        if (!a->congested[l] || (explained[l] && !local[l]) || app_explains(a, l))
            continue;
        if (interf_idx == HS__NIL) {
            if (!new_finding(a, HS_AN_INTERFERENCE)) {
                rc = HS_ENOMEM;
                break;
            }
            interf_idx = a->nfindings - 1;
        }
        hs__finding *f = &a->findings[interf_idx];
        if (!has(f->links, f->nlinks, l)) {
            rc = hs__an_push(&f->links, &f->nlinks, l);
            f->severity += a->est[l].congested;
            if (f->nlinks == 1 || a->est[l].cf > f->cf) {
                f->cf = a->est[l].cf;
                f->cf_se = a->est[l].cf_se;
                f->load = a->load_busy[l];
            }
        }
    }
    free(local);
    if (rc)
        return hs_error_set(err, rc, "out of memory");
    for (uint32_t i = 0; i < a->nfindings; i++) {
        hs__finding *f = &a->findings[i];
        if (f->kind == HS_AN_PATTERN) {
            /* endpoints by the application packets they delay, most first */
            for (uint32_t x = 1; x < f->nroots; x++) {
                uint32_t q = f->roots[x], y = x;
                while (y > 0 && (a->roots[f->roots[y - 1]].congested < a->roots[q].congested ||
                                 (a->roots[f->roots[y - 1]].congested == a->roots[q].congested &&
                                  f->roots[y - 1] > q))) {
                    f->roots[y] = f->roots[y - 1];
                    y--;
                }
                f->roots[y] = q;
            }
            f->nlinks = 0;
            for (uint32_t x = 0; x < f->nroots; x++)
                f->links[f->nlinks++] = a->roots[f->roots[x]].links[0];
            f->nlinks_root = f->nlinks;
            const hs__root *R0 = &a->roots[f->roots[0]];
            f->cf = a->est[R0->links[0]].cf;
            f->cf_se = a->est[R0->links[0]].cf_se;
            f->load = a->load_busy[R0->links[0]];
            continue;
        }
        sort_links(a, f->links, f->nlinks_root);
        sort_links(a, f->links + f->nlinks_root, f->nlinks - f->nlinks_root);
        if (f->kind == HS_AN_INTERFERENCE)
            sort_links(a, f->links, f->nlinks);
    }
    if (a->nfindings)
        qsort(a->findings, a->nfindings, sizeof *a->findings, cmp_findings);
    /* evidence for the first findings */
    uint32_t nf = a->nfindings < MAX_EVIDENCE_FINDINGS ? a->nfindings : MAX_EVIDENCE_FINDINGS;
    ev E;
    memset(&E, 0, sizeof E);
    if (nf && (rc = gather(a, nf, &E))) {
        free(E.src);
        free(E.dst);
        free(E.grp);
        free(E.have);
        return hs_error_set(err, rc, "out of memory");
    }
    for (uint32_t i = 0; i < a->nfindings && !rc; i++)
        rc = fill_evidence(a, &a->findings[i], i, &E, i < nf && E.have[i]);
    free(E.src);
    free(E.dst);
    free(E.grp);
    free(E.have);
    if (rc)
        return hs_error_set(err, rc, "out of memory");
    /* a suggested mapping for a mapping problem */
    for (uint32_t i = 0; i < a->nfindings; i++) {
        hs__finding *f = &a->findings[i];
        mapping = f->kind == HS_AN_MAPPING ? f : mapping;
        interf = f->kind == HS_AN_INTERFERENCE ? f : interf;
    }
    if (mapping && a->app && a->app->ncomm && a->app->node_of_rank) {
        hs_error e2;
        if (hs__an_suggest_mapping(a, &a->suggested, &e2) == 0) {
            a->nsuggested = a->app->ranks;
            mapping->cost_now = hs__an_mapping_byte_hops(a, a->app->node_of_rank, NULL);
            mapping->cost_suggested = hs__an_mapping_byte_hops(a, a->suggested, NULL);
            /* offered only when the routed communication matrix says it is
             * better than both the current and the linear mapping: fewer
             * byte-hops and a most loaded link no heavier (whatif's
             * re-simulation is the final check) */
            uint32_t *lin = malloc(a->app->ranks * sizeof *lin);
            if (lin) {
                uint32_t ppn = a->app->ranks_per_node ? a->app->ranks_per_node : 1;
                for (uint32_t q = 0; q < a->app->ranks; q++)
                    lin[q] = q / ppn < r->N ? q / ppn : r->N - 1;
                double ml_now = hs__an_mapping_max_load(a, a->app->node_of_rank);
                double ml_lin = hs__an_mapping_max_load(a, lin);
                double ml_s = hs__an_mapping_max_load(a, a->suggested);
                double bh_lin = hs__an_mapping_byte_hops(a, lin, NULL);
                mapping->have_mapping = mapping->cost_suggested < mapping->cost_now &&
                                        mapping->cost_suggested <= bh_lin && ml_s >= 0 &&
                                        ml_s <= ml_now && ml_s <= ml_lin;
                mapping->cost_linear = bh_lin;
                mapping->linear_better = !mapping->have_mapping && bh_lin < mapping->cost_now &&
                                         ml_lin >= 0 && ml_lin <= ml_now;
                free(lin);
            }
        }
    }
    (void)interf;
    /* sentences */
    for (uint32_t i = 0; i < a->nfindings; i++) {
        hs__finding *f = &a->findings[i];
        hs__sbuf b = { NULL, 0, 0 };
        switch (f->kind) {
        case HS_AN_PATTERN: describe_pattern(a, f, &b); break;
        case HS_AN_MAPPING: describe_mapping(a, f, &b); break;
        case HS_AN_INTERFERENCE: describe_interference(a, f, &b); break;
        default: break;
        }
        if (!b.s)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        f->summary = b.s;
    }
    if (!a->nfindings) {
        hs__finding *f = new_finding(a, a->nundecided ? HS_AN_UNDECIDED : HS_AN_NONE);
        if (!f)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        hs__sbuf b = { NULL, 0, 0 };
        describe_none(a, &b);
        if (!b.s)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        f->summary = b.s;
    }
    return 0;
}
