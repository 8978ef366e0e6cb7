/* Per-run features for sweeps (hopscope sweep, the culprit model).
 *
 * Bhatele et al. ("Identifying the culprits behind network congestion")
 * aggregate per-link counters into a few numbers per run: the average, the
 * maximum, the sum over the "average outliers" (links above the class
 * average, AO), the sum over the "top outliers" (the top 5% of the links,
 * TO) and the number of AO links; of bytes per link, receive-buffer stalls,
 * stalls per packet, plus the dilation of messages and the longest
 * injection FIFO.  This file computes them per link class from two
 * sources kept apart, so that a user sees what the in-band field alone
 * supports:
 *
 *   f_truth_*   the model's ground truth (truth.bin: every packet of every
 *               job on the link; app.json's messages routed on the
 *               topology; the manifest's injection queue peak);
 *   f_inband_*  the analyzer's estimates from the 5-13 bit field (the
 *               application's monitored packets, scaled by 1/p), and the
 *               hop counters of the sampled records.
 *
 * Names, order and units are fixed by the run's topology (its link
 * classes), so every run of one sweep has the same columns.  Every feature
 * is documented in docs/formats.md ("sweep.csv"). */
#include "an.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_SHARE 0.05   /* the study's top outliers: the top 5% of the links */
#define MAX_CLASSES 40

static int cmp_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

int hs_an_aggregate(const double *v, size_t n, hs_an_agg *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return 0;
    double sum = 0, mx = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] > mx)
            mx = v[i];
    }
    out->avg = sum / (double)n;
    out->max = mx;
    for (size_t i = 0; i < n; i++)
        if (v[i] > out->avg) {
            out->ao += v[i];
            out->nao++;
        }
    double *s = malloc(n * sizeof *s);
    if (!s)
        return HS_ENOMEM;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_desc);
    size_t top = (size_t)ceil(TOP_SHARE * (double)n);
    if (top < 1)
        top = 1;
    for (size_t i = 0; i < top; i++)
        out->to += s[i];
    free(s);
    return 0;
}

/* ---- the output list ------------------------------------------------------- */

typedef struct flist {
    hs_an_feature *f;
    size_t n, cap;
    int oom;
} flist;

static void put(flist *L, const char *name, double v)
{
    if (L->oom)
        return;
    if (L->n == L->cap) {
        size_t nc = L->cap ? 2 * L->cap : 256;
        hs_an_feature *p = realloc(L->f, nc * sizeof *p);
        if (!p) {
            L->oom = 1;
            return;
        }
        L->f = p;
        L->cap = nc;
    }
    hs_an_feature *f = &L->f[L->n++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->value = isfinite(v) ? v : 0;
}

static int put_agg(flist *L, const char *prefix, const double *v, size_t n)
{
    hs_an_agg g;
    if (hs_an_aggregate(v, n, &g))
        return HS_ENOMEM;
    char b[64];
    snprintf(b, sizeof b, "%.40s_avg", prefix);
    put(L, b, g.avg);
    snprintf(b, sizeof b, "%.40s_ao", prefix);
    put(L, b, g.ao);
    snprintf(b, sizeof b, "%.40s_to", prefix);
    put(L, b, g.to);
    snprintf(b, sizeof b, "%.40s_max", prefix);
    put(L, b, g.max);
    snprintf(b, sizeof b, "%.40s_nao", prefix);
    put(L, b, (double)g.nao);
    return 0;
}

/* ---- link classes ------------------------------------------------------------ */

typedef struct lclass {
    char name[16];
    uint32_t *links;
    size_t n;
} lclass;

/* The classes of the run's topology, in a fixed order: inj, ej, net (every
 * switch-to-switch link), then the family's own: fat-tree upN/downN by the
 * level of the lower end, dragonfly local/global, torus/mesh dimD. */
static int classes(const hs__run *r, lclass *c, size_t *nc)
{
    size_t n = 0;
    const char *fixed[3] = { "inj", "ej", "net" };
    for (int i = 0; i < 3; i++)
        snprintf(c[n++].name, sizeof c[0].name, "%s", fixed[i]);
    unsigned maxlevel = 0, maxdim = 0;
    int have_local = 0, have_global = 0, have_torus = 0;
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        if (k->kind != HS__LK_SWITCH)
            continue;
        if ((k->sub == HS__SUB_UP || k->sub == HS__SUB_DOWN) && k->level > maxlevel)
            maxlevel = k->level;
        have_local |= k->sub == HS__SUB_LOCAL;
        have_global |= k->sub == HS__SUB_GLOBAL;
        if (k->sub == HS__SUB_TORUS) {
            have_torus = 1;
            if (k->dim > maxdim)
                maxdim = k->dim;
        }
    }
    for (unsigned lv = 1; lv <= maxlevel && n + 2 <= MAX_CLASSES; lv++) {
        snprintf(c[n++].name, sizeof c[0].name, "up%u", lv);
        snprintf(c[n++].name, sizeof c[0].name, "down%u", lv);
    }
    if (have_local)
        snprintf(c[n++].name, sizeof c[0].name, "local");
    if (have_global)
        snprintf(c[n++].name, sizeof c[0].name, "global");
    for (unsigned d = 0; have_torus && d <= maxdim && n < MAX_CLASSES; d++)
        snprintf(c[n++].name, sizeof c[0].name, "dim%u", d);
    for (size_t i = 0; i < n; i++) {
        c[i].links = malloc((size_t)r->L * sizeof(uint32_t));
        c[i].n = 0;
        if (!c[i].links) {
            for (size_t j = 0; j < i; j++)
                free(c[j].links);
            return HS_ENOMEM;
        }
    }
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        char own[16] = "";
        if (k->kind == HS__LK_INJECTION) {
            c[0].links[c[0].n++] = l;
            continue;
        }
        if (k->kind == HS__LK_EJECTION) {
            c[1].links[c[1].n++] = l;
            continue;
        }
        c[2].links[c[2].n++] = l;
        if (k->sub == HS__SUB_UP || k->sub == HS__SUB_DOWN)
            snprintf(own, sizeof own, "%s%u", k->sub == HS__SUB_UP ? "up" : "down",
                     (unsigned)k->level);
        else if (k->sub == HS__SUB_LOCAL)
            snprintf(own, sizeof own, "local");
        else if (k->sub == HS__SUB_GLOBAL)
            snprintf(own, sizeof own, "global");
        else if (k->sub == HS__SUB_TORUS)
            snprintf(own, sizeof own, "dim%u", (unsigned)k->dim);
        for (size_t i = 3; own[0] && i < n; i++)
            if (strcmp(c[i].name, own) == 0) {
                c[i].links[c[i].n++] = l;
                break;
            }
    }
    *nc = n;
    return 0;
}

/* ---- dilation ------------------------------------------------------------------ */

/* Weighted dilation: avg = sum w*h / sum w, max over w > 0, AO = sum of w*h
 * over the items with h above the average. */
static void dil_put(flist *L, const char *prefix, const double *h, const double *w, size_t n)
{
    double sw = 0, swh = 0, mx = 0, ao = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i] <= 0)
            continue;
        sw += w[i];
        swh += w[i] * h[i];
        if (h[i] > mx)
            mx = h[i];
    }
    double avg = sw > 0 ? swh / sw : 0;
    for (size_t i = 0; i < n; i++)
        if (w[i] > 0 && h[i] > avg)
            ao += w[i] * h[i];
    char b[64];
    snprintf(b, sizeof b, "%.40s_avg", prefix);
    put(L, b, avg);
    snprintf(b, sizeof b, "%.40s_max", prefix);
    put(L, b, mx);
    snprintf(b, sizeof b, "%.40s_ao", prefix);
    put(L, b, ao);
}

/* Truth: the application's messages between different nodes (app.json
 * comm), each with the links of its routed path (injection, the switch
 * hops, ejection), weighted by their message counts. */
static int truth_dilation(const hs_analysis *a, flist *L)
{
    const hs__app *app = a->app;
    size_t n = app ? app->ncomm : 0;
    double *h = malloc((n + 1) * sizeof *h), *w = malloc((n + 1) * sizeof *w);
    if (!h || !w) {
        free(h);
        free(w);
        return HS_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const hs__app_comm *c = &app->comm[i];
        if (c->src >= app->ranks || c->dst >= app->ranks)
            continue;
        uint32_t x = app->node_of_rank[c->src], y = app->node_of_rank[c->dst];
        if (x == y || !c->messages)
            continue;
        h[k] = 2.0 + (double)hs__an_switch_hops(a->r, x, y);
        w[k++] = (double)c->messages;
    }
    dil_put(L, "f_truth_dil", h, w, k);
    free(h);
    free(w);
    return 0;
}

/* In-band: the hop counters of the sampled records (each the number of
 * links its packet crossed), overflowed ones left out.  A histogram by
 * hop value, so memory does not grow with the records. */
static void inband_dilation(const hs_analysis *a, flist *L)
{
    const hs__run *r = a->r;
    double h[256], w[256];
    for (unsigned i = 0; i < 256; i++) {
        h[i] = i;
        w[i] = 0;
    }
    for (uint64_t i = 0; i < r->R; i++) {
        hs__rec rec;
        hs_field f;
        hs__rec_get(r, i, &rec);
        if (hs_field_unpack(&r->scheme, rec.field, &f) || hs_field_overflowed(&r->scheme, &f) ||
            f.hop == 0)
            continue;
        w[f.hop] += 1;
    }
    dil_put(L, "f_inband_dil", h, w, 256);
}

/* ---- all of it ----------------------------------------------------------------- */

int hs_an_features(const hs_analysis *a, hs_an_feature **out, size_t *nout, hs_error *err)
{
    const hs__run *r = a->r;
    *out = NULL;
    *nout = 0;
    if (!r->have_truth || !a->t_packets)
        return hs_error_set(err, HS_ENOTSUP, "%s: the run has no ground truth (truth.bin): "
                            "the f_truth_ features need it", r->dir);
    lclass c[MAX_CLASSES];
    size_t nc = 0;
    if (classes(r, c, &nc))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    flist L = { 0 };
    int rc = 0;
    double *v = malloc(((size_t)r->L + 1) * sizeof *v);
    if (!v)
        rc = HS_ENOMEM;

    /* ground truth, every job's packets */
    static const char *tfam[] = { "bytes", "stall", "stallpp", "cf" };
    for (size_t i = 0; !rc && i < nc; i++)
        for (int f = 0; !rc && f < 4; f++) {
            for (size_t j = 0; j < c[i].n; j++) {
                hs__truth t;
                hs__an_truth_get(r, 0, c[i].links[j], &t);
                double pk = (double)t.packets;
                switch (f) {
                case 0: v[j] = (double)t.bytes; break;
                case 1: v[j] = (double)t.stall_ps / 1e3; break;
                case 2: v[j] = pk > 0 ? (double)t.stall_ps / 1e3 / pk : 0; break;
                default: v[j] = pk > 0 ? (double)t.congested / pk : 0; break;
                }
            }
            char p[64];
            snprintf(p, sizeof p, "f_truth_%.15s_%s", c[i].name, tfam[f]);
            rc = put_agg(&L, p, v, c[i].n);
        }
    if (!rc)
        rc = truth_dilation(a, &L);
    if (!rc) {
        /* the application's own NICs when app.json says, else all NICs */
        put(&L, "f_truth_injq_max",
            a->app && a->app->have_nicq ? (double)a->app->nicq : (double)r->max_injq);
        double tp = 0, tc = 0, ap = 0, ac = 0;
        uint32_t cong = 0;
        for (uint32_t l = 1; l <= r->L; l++) {
            hs__truth t;
            hs__an_truth_get(r, 0, l, &t);
            tp += (double)t.packets;
            tc += (double)t.congested;
            ap += a->t_packets[l];
            ac += a->t_congested[l];
            if (a->t_packets[l] > 0 && a->t_congested[l] / a->t_packets[l] >= a->p.cf_threshold)
                cong++;
        }
        put(&L, "f_truth_cf_all", tp > 0 ? tc / tp : 0);
        put(&L, "f_truth_cf_app", ap > 0 ? ac / ap : 0);
        put(&L, "f_truth_links_congested", (double)cong);
    }

    /* in-band estimates of the application's packets */
    static const char *ifam[] = { "bytes", "cong", "cf" };
    for (size_t i = 0; !rc && i < nc; i++)
        for (int f = 0; !rc && f < 3; f++) {
            for (size_t j = 0; j < c[i].n; j++) {
                const hs_estimate *e = &a->est[c[i].links[j]];
                switch (f) {
                case 0: v[j] = e->traffic * a->bytes_per_packet; break;
                case 1: v[j] = e->congested; break;
                default: v[j] = e->traffic >= 1 ? e->congested / e->traffic : 0; break;
                }
            }
            char p[64];
            snprintf(p, sizeof p, "f_inband_%.15s_%s", c[i].name, ifam[f]);
            rc = put_agg(&L, p, v, c[i].n);
        }
    if (!rc) {
        inband_dilation(a, &L);
        double et = 0, ec = 0, mcf = 0;
        for (uint32_t l = 1; l <= r->L; l++) {
            et += a->est[l].traffic;
            ec += a->est[l].congested;
            if (a->status[l] && a->est[l].cf_valid && a->est[l].cf > mcf)
                mcf = a->est[l].cf;
        }
        uint32_t cong = 0;
        for (uint32_t l = 1; l <= r->L; l++)
            cong += a->congested[l] != 0;
        put(&L, "f_inband_cf_app", et > 0 ? ec / et : 0);
        put(&L, "f_inband_cf_max", mcf);
        put(&L, "f_inband_links_congested", (double)cong);
        put(&L, "f_inband_links_undecided", (double)a->nundecided);
        put(&L, "f_inband_roots", (double)a->nroots);
    }
    for (size_t i = 0; i < nc; i++)
        free(c[i].links);
    free(v);
    if (!rc && L.oom)
        rc = HS_ENOMEM;
    if (rc) {
        free(L.f);
        return hs_error_set(err, rc, "out of memory computing features");
    }
    *out = L.f;
    *nout = L.n;
    return 0;
}
