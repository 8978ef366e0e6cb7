/* Dragonflies as groups on a ring, the way Kim et al. draw them: each
 * group's routers along its own arc of the ring, the group's local links
 * as short curves inside its arc, global links as curves across the ring
 * (bent towards the centre so that bundles stay readable), nodes outside.
 *
 * Large dragonflies (more than ROUTERS_DETAIL routers, or --detail
 * aggregate) are drawn per group: three bands per group (local links,
 * injection, ejection; each the worst of its links) and one curve per
 * ordered pair of groups bundling the global links from one to the other.
 * Bundles without traffic are left out (the note says how many).  Beside
 * it, the zoom most congested groups are drawn router by router: routers
 * on a circle, local links as chords, each router's nodes as one box and
 * its global links as stubs labelled with the group at their far end. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUTERS_DETAIL 512   /* routers drawn one by one up to this many (auto) */
#define ROUTERS_COMPACT 96   /* the same for small multiples */
#define NODES_DETAIL   2048
#define VAGUE_MAX      2000  /* bundles without a verdict drawn as hairlines up to this many */

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

typedef struct pair {
    uint32_t a, b;     /* groups */
    uint32_t l;        /* link */
    uint8_t  state;    /* the bundle's state in the whole run (first of a bundle) */
} pair;

typedef struct dfly {
    const hs_viz_model *m;
    uint32_t G, A;
    uint32_t *sw_of;        /* G * A: switch of (group, router), UINT32_MAX none */
    uint32_t *noff, *nlist; /* nodes of each switch */
    uint32_t *loff, *llist; /* local links of each group */
    pair     *pairs;        /* global links by (from group, to group, id) */
    size_t    npairs;
} dfly;

#define GRP(d, s) ((uint32_t)(d)->m->sw_group[s])
#define RTR(d, s) ((uint32_t)(d)->m->sw_router[s])

static void pol(double cx, double cy, double r, double a, double *x, double *y)
{
    *x = cx + r * cos(a);
    *y = cy + r * sin(a);
}

/* ---- router by router -------------------------------------------------------------- */

static void full_scene(const dfly *d, hs__vz_scene *sc, double max_w)
{
    const hs_viz_model *m = d->m;
    uint32_t N = m->N, G = d->G, A = d->A;
    /* ring radius from the spacing the routers need, within max_w */
    double R = clamp(G * A * 48.0 / (2 * M_PI), 240, (max_w - 140) / 2);
    double cx = R + 70, cy = R + 70;
    double span = 2 * M_PI / G, used = span * 0.78, step = used / A;
    sc->w = sc->h = 2 * R + 140;
    sc->wmax = clamp(R * step * 0.25, 2.5, 6);
    sc->radial = 1;
    sc->rcx = (float)cx;
    sc->rcy = (float)cy;
    double *rx = calloc(m->S, sizeof *rx), *ry = calloc(m->S, sizeof *ry);
    double *ra = calloc(m->S, sizeof *ra);
    if (!rx || !ry || !ra) {
        free(rx);
        free(ry);
        free(ra);
        sc->oom = 1;
        return;
    }
    for (uint32_t s = 0; s < m->S; s++) {
        double a = -M_PI / 2 + span * GRP(d, s) + (RTR(d, s) - (A - 1) / 2.0) * step;
        ra[s] = a;
        pol(cx, cy, R, a, &rx[s], &ry[s]);
    }
    for (uint32_t l = 1; l <= m->L; l++) {
        const hs__vz_link *k = &m->lk[l];
        if (k->kind != HS__VZ_SW)
            continue;
        uint32_t a = k->from - N, b = k->to - N;
        double qx, qy;
        if (GRP(d, a) == GRP(d, b)) {
            /* local: bulge outwards a little, more for routers further apart */
            double am = (ra[a] + ra[b]) / 2;
            pol(cx, cy, R + 6 + 0.35 * R * fabs(ra[a] - ra[b]), am, &qx, &qy);
        } else {
            qx = cx + (rx[a] + rx[b] - 2 * cx) * 0.12;
            qy = cy + (ry[a] + ry[b] - 2 * cy) * 0.12;
        }
        hs__vz_half_quad(sc, rx[a], ry[a], qx, qy, rx[b], ry[b], l);
    }
    double nodes_r = R + 34, rb = clamp(R * step * 0.5, 5, 12);
    for (uint32_t s = 0; s < m->S; s++) {
        uint32_t n = d->noff[s + 1] - d->noff[s];
        for (uint32_t q = 0; q < n; q++) {
            uint32_t i = d->nlist[d->noff[s] + q];
            double a = ra[s] + (q - (n - 1) / 2.0) * step / fmax(n, 1) * 0.9, nx, ny;
            pol(cx, cy, nodes_r, a, &nx, &ny);
            hs__vz_half_line(sc, nx, ny, rx[s], ry[s], m->node_inj[i]);
            hs__vz_half_line(sc, rx[s], ry[s], nx, ny, m->node_ej[i]);
            double nb = clamp(R * step / fmax(n, 1) * 0.6, 2, 8);
            hs__vz_glyph_add(sc, HS__VZ_GL_NODE, nx, ny, nb, nb, i, 1, 0);
        }
        hs__vz_glyph_add(sc, HS__VZ_GL_SWITCH, rx[s], ry[s], rb, rb, N + s, 1, 0);
    }
    for (uint32_t g = 0; g < G; g++) {
        double tx, ty, a = -M_PI / 2 + span * g;
        pol(cx, cy, R + 54, a, &tx, &ty);
        hs__vz_text_add(sc, tx, ty + 4, HS__VZ_T_MIDDLE, 10, 1, "g%u", g);
    }
    free(rx);
    free(ry);
    free(ra);
}

/* ---- per group ------------------------------------------------------------------------ */

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return p->l < q->l ? -1 : p->l > q->l;
}

/* Angle of the anchor of the bundle from group a to group b: spread over
 * a's sector in the order of the partner, so that the chords fan out. */
static double anchor_angle(uint32_t G, uint32_t a, uint32_t b, double span)
{
    uint32_t k = (b + G - a) % G; /* 1 .. G-1 */
    return -M_PI / 2 + span * a + span * 0.8 * ((k - 0.5) / (G - 1) - 0.5);
}

static void group_scene(const dfly *d, hs__vz_scene *sc, double max_w)
{
    const hs_viz_model *m = d->m;
    uint32_t G = d->G;
    double R = clamp((max_w - 170) / 2, 150, 420);
    double cx = R + 85, cy = R + 85, span = 2 * M_PI / G, half = span * 0.46;
    sc->w = sc->h = 2 * R + 170;
    sc->wmax = clamp(R * span * 0.8 / 4, 1.5, 5);
    sc->faint = 1;
    /* the bundles of global links, one per ordered pair of groups: those
     * with data always; those with traffic but too few sampled packets
     * while they are few enough to read as a haze; never the idle ones
     * (idle in the whole run, so in every phase too) */
    uint32_t skipped = 0, drawn = 0, vague = 0, nvague = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < d->npairs;) {
            size_t j = i;
            int st = HS__VZ_IDLE;
            while (j < d->npairs && d->pairs[j].a == d->pairs[i].a &&
                   d->pairs[j].b == d->pairs[i].b) {
                int e = m->est[d->pairs[j].l].state;
                st = e > st ? e : st;
                j++;
            }
            if (pass == 0)
                nvague += st == HS__VZ_INSUFF;
            else
                d->pairs[i].state = (uint8_t)st;
            i = j;
        }
    for (size_t i = 0; i < d->npairs;) {
        size_t j = i;
        while (j < d->npairs && d->pairs[j].a == d->pairs[i].a && d->pairs[j].b == d->pairs[i].b)
            j++;
        uint32_t ga = d->pairs[i].a, gb = d->pairs[i].b;
        int st = d->pairs[i].state;
        if (st == HS__VZ_IDLE || (st == HS__VZ_INSUFF && nvague > VAGUE_MAX)) {
            skipped += st == HS__VZ_IDLE;
            vague += st == HS__VZ_INSUFF;
            i = j;
            continue;
        }
        double x0, y0, x1, y1;
        pol(cx, cy, R - 1, anchor_angle(G, ga, gb, span), &x0, &y0);
        pol(cx, cy, R - 1, anchor_angle(G, gb, ga, span), &x1, &y1);
        double qx = cx + (x0 + x1 - 2 * cx) * 0.1, qy = cy + (y0 + y1 - 2 * cy) * 0.1;
        hs__vz_half_quad(sc, x0, y0, qx, qy, x1, y1, 0);
        hs__vz_item_label(sc, "global links from group %u to group %u", ga, gb);
        for (size_t k = i; k < j; k++)
            hs__vz_member(sc, d->pairs[k].l);
        drawn++;
        i = j;
    }
    /* bands: local links, injection, ejection of each group */
    static const char *band[3] = { "local links", "injection links", "ejection links" };
    for (uint32_t g = 0; g < G; g++) {
        double a = -M_PI / 2 + span * g;
        for (int k = 0; k < 3; k++) {
            float p[6] = { (float)cx, (float)cy, (float)(R + 2 + 14 * k), (float)(R + 13 + 14 * k),
                           (float)(a - half), (float)(a + half) };
            hs__vz_item_add(sc, HS__VZ_G_SECTOR, p, 6);
            hs__vz_item_label(sc, "group %u: %s", g, band[k]);
            if (k == 0) {
                for (uint32_t q = d->loff[g]; q < d->loff[g + 1]; q++)
                    hs__vz_member(sc, d->llist[q]);
                continue;
            }
            for (uint32_t r = 0; r < d->A; r++) {
                uint32_t s = d->sw_of[(size_t)g * d->A + r];
                for (uint32_t q = s == UINT32_MAX ? 0 : d->noff[s];
                     s != UINT32_MAX && q < d->noff[s + 1]; q++)
                    hs__vz_member(sc, k == 1 ? m->node_inj[d->nlist[q]] : m->node_ej[d->nlist[q]]);
            }
        }
        uint32_t every = G <= 48 ? 1 : (G + 31) / 32;
        if (g % every == 0) {
            double tx, ty;
            pol(cx, cy, R + 62, a, &tx, &ty);
            hs__vz_text_add(sc, tx, ty + 4, HS__VZ_T_MIDDLE, 10, 1, "g%u", g);
        }
    }
    char extra[160] = "grey hairlines: too few sampled packets for a congested fraction";
    if (vague)
        snprintf(extra, sizeof extra, "%u more with traffic but too few sampled packets for a "
                                      "congested fraction left out", vague);
    if (asprintf(&sc->note, "%u groups; bands outside in: ejection, injection, local links (each "
                            "the worst of its links);\ncurves: global links, one bundle per "
                            "direction between two groups (%u drawn, %u without traffic left "
                            "out);\n%s; the most congested groups are drawn in detail",
                 G, drawn, skipped, extra) < 0) {
        sc->note = NULL;
        sc->oom = 1;
    }
}

/* Worst congested fraction over the links of group g (local, global out
 * and in, node links), -1 when none has data. */
static double group_worst(const dfly *d, uint32_t g, const hs__vz_est *est)
{
    const hs_viz_model *m = d->m;
    double w = hs__vz_worst(est, d->llist + d->loff[g], d->loff[g + 1] - d->loff[g]);
    for (size_t i = 0; i < d->npairs; i++)
        if ((d->pairs[i].a == g || d->pairs[i].b == g) && est[d->pairs[i].l].state == HS__VZ_OK &&
            est[d->pairs[i].l].cf > w)
            w = est[d->pairs[i].l].cf;
    for (uint32_t r = 0; r < d->A; r++) {
        uint32_t s = d->sw_of[(size_t)g * d->A + r];
        for (uint32_t q = s == UINT32_MAX ? 0 : d->noff[s]; s != UINT32_MAX && q < d->noff[s + 1];
             q++) {
            uint32_t ls[2] = { m->node_inj[d->nlist[q]], m->node_ej[d->nlist[q]] };
            double x = hs__vz_worst(est, ls, 2);
            w = x > w ? x : w;
        }
    }
    return w;
}

/* One group router by router: routers on a circle, local links as chords,
 * nodes inside, global links as labelled stubs outside. */
static void group_detail(const dfly *d, hs__vz_scene *sc, uint32_t g)
{
    const hs_viz_model *m = d->m;
    uint32_t N = m->N, A = d->A;
    double r0 = clamp(A * 12.0, 90, 200), reach = 90;
    double cx = r0 + reach + 30, cy = r0 + reach + 30;
    double step = 2 * M_PI / A;
    sc->w = sc->h = 2 * (r0 + reach + 30);
    sc->wmax = clamp(r0 * step * 0.12, 2, 6);
    double *rx = calloc(A, sizeof *rx), *ry = calloc(A, sizeof *ry);
    if (!rx || !ry) {
        free(rx);
        free(ry);
        sc->oom = 1;
        return;
    }
    for (uint32_t r = 0; r < A; r++)
        pol(cx, cy, r0, -M_PI / 2 + r * step, &rx[r], &ry[r]);
    for (uint32_t q = d->loff[g]; q < d->loff[g + 1]; q++) {
        uint32_t l = d->llist[q];
        uint32_t a = RTR(d, m->lk[l].from - N), b = RTR(d, m->lk[l].to - N);
        hs__vz_half_line(sc, rx[a], ry[a], rx[b], ry[b], l);
    }
    for (uint32_t r = 0; r < A; r++) {
        uint32_t s = d->sw_of[(size_t)g * A + r];
        if (s == UINT32_MAX)
            continue;
        double ang = -M_PI / 2 + r * step;
        /* globals leaving this router, fanned out; each stub's outer half is
         * the link coming back from the far group */
        uint32_t h = 0;
        for (size_t i = 0; i < d->npairs; i++)
            h += m->lk[d->pairs[i].l].from - N == s;
        uint32_t j = 0;
        double fan = fmin(step * 0.8 / (h ? h : 1), 0.14);
        for (size_t i = 0; i < d->npairs; i++) {
            uint32_t l = d->pairs[i].l;
            if (m->lk[l].from - N != s)
                continue;
            double a = ang + (j - (h - 1) / 2.0) * fan, fx, fy, tx, ty;
            pol(rx[r] - cx + cx, ry[r] - cy + cy, reach, a, &fx, &fy);
            hs__vz_half_line(sc, rx[r], ry[r], fx, fy, l);
            /* the link back on the same cable: the one from the far router to s */
            uint32_t back = 0;
            for (size_t k = 0; k < d->npairs && !back; k++) {
                uint32_t lb = d->pairs[k].l;
                if (m->lk[lb].to - N == s && m->lk[lb].from == m->lk[l].to)
                    back = lb;
            }
            if (back)
                hs__vz_half_line(sc, fx, fy, rx[r], ry[r], back);
            if (fan * reach >= 11) { /* room for the far group's name */
                pol(rx[r], ry[r], reach + 10, a, &tx, &ty);
                hs__vz_text_add(sc, tx, ty + 3, HS__VZ_T_MIDDLE, 8, 0, "g%u", GRP(d, m->lk[l].to - N));
            }
            j++;
        }
        /* nodes: one box inside the circle */
        uint32_t nn = d->noff[s + 1] - d->noff[s];
        if (nn) {
            double nx, ny;
            pol(cx, cy, r0 - 24, ang, &nx, &ny);
            for (int w = 0; w < 2; w++) {
                if (w == 0)
                    hs__vz_half_line(sc, nx, ny, rx[r], ry[r], 0);
                else
                    hs__vz_half_line(sc, rx[r], ry[r], nx, ny, 0);
                if (nn > 1)
                    hs__vz_item_label(sc, "%s links of the %u nodes of %s",
                                      w ? "ejection" : "injection", nn, m->name[N + s]);
                for (uint32_t q = d->noff[s]; q < d->noff[s + 1]; q++)
                    hs__vz_member(sc, w ? m->node_ej[d->nlist[q]] : m->node_inj[d->nlist[q]]);
            }
            if (nn > 1)
                hs__vz_glyph_add(sc, HS__VZ_GL_NODE, nx, ny, 8, 8, N + s, nn, 0);
            else
                hs__vz_glyph_add(sc, HS__VZ_GL_NODE, nx, ny, 7, 7, d->nlist[d->noff[s]], 1, 0);
        }
        hs__vz_glyph_add(sc, HS__VZ_GL_SWITCH, rx[r], ry[r], 12, 12, N + s, 1, 0);
    }
    free(rx);
    free(ry);
}

typedef struct gw {
    double   w;
    uint32_t g;
} gw;

static int cmp_gw(const void *x, const void *y)
{
    const gw *a = x, *b = y;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    return a->g < b->g ? -1 : a->g > b->g;
}

int hs__vz_layout_dragonfly(const hs_viz_model *m, const hs__vz_layout_opts *o,
                            hs__vz_scene **scenes, size_t *nscenes)
{
    dfly d = { 0 };
    d.m = m;
    for (uint32_t s = 0; s < m->S; s++) {
        if (m->sw_group[s] < 0 || m->sw_router[s] < 0)
            return HS_ENOTSUP;
        if ((uint32_t)m->sw_group[s] + 1 > d.G)
            d.G = (uint32_t)m->sw_group[s] + 1;
        if ((uint32_t)m->sw_router[s] + 1 > d.A)
            d.A = (uint32_t)m->sw_router[s] + 1;
    }
    if ((uint64_t)d.G * d.A > 4ull * m->S + 16 || d.G < 2)
        return HS_ENOTSUP;
    int rc = HS_ENOMEM;
    gw *rank = NULL;
    d.sw_of = malloc((size_t)d.G * d.A * sizeof *d.sw_of);
    d.noff = calloc((size_t)m->S + 1, sizeof *d.noff);
    d.nlist = malloc((m->N ? m->N : 1) * sizeof *d.nlist);
    d.loff = calloc((size_t)d.G + 1, sizeof *d.loff);
    d.llist = malloc(((size_t)m->L + 1) * sizeof *d.llist);
    d.pairs = malloc(((size_t)m->L + 1) * sizeof *d.pairs);
    uint32_t *fill = malloc(((size_t)(m->S > d.G ? m->S : d.G) + 1) * sizeof *fill);
    if (!d.sw_of || !d.noff || !d.nlist || !d.loff || !d.llist || !d.pairs || !fill)
        goto out;
    for (size_t i = 0; i < (size_t)d.G * d.A; i++)
        d.sw_of[i] = UINT32_MAX;
    rc = HS_ENOTSUP;
    for (uint32_t s = 0; s < m->S; s++) {
        size_t at = (size_t)GRP(&d, s) * d.A + RTR(&d, s);
        if (d.sw_of[at] != UINT32_MAX)
            goto out;
        d.sw_of[at] = s;
    }
    for (uint32_t i = 0; i < m->N; i++)
        d.noff[m->node_switch[i] + 1]++;
    for (uint32_t s = 0; s < m->S; s++)
        d.noff[s + 1] += d.noff[s];
    memcpy(fill, d.noff, ((size_t)m->S + 1) * sizeof *fill);
    for (uint32_t i = 0; i < m->N; i++)
        d.nlist[fill[m->node_switch[i]]++] = i;
    /* local links per group; global links sorted by the groups they join */
    for (uint32_t l = 1; l <= m->L; l++) {
        const hs__vz_link *k = &m->lk[l];
        if (k->kind != HS__VZ_SW)
            continue;
        uint32_t ga = GRP(&d, k->from - m->N), gb = GRP(&d, k->to - m->N);
        if (ga == gb)
            d.loff[ga + 1]++;
        else
            d.pairs[d.npairs++] = (pair){ ga, gb, l, 0 };
    }
    for (uint32_t g = 0; g < d.G; g++)
        d.loff[g + 1] += d.loff[g];
    memcpy(fill, d.loff, ((size_t)d.G + 1) * sizeof *fill);
    for (uint32_t l = 1; l <= m->L; l++) {
        const hs__vz_link *k = &m->lk[l];
        if (k->kind == HS__VZ_SW && GRP(&d, k->from - m->N) == GRP(&d, k->to - m->N))
            d.llist[fill[GRP(&d, k->from - m->N)]++] = l;
    }
    qsort(d.pairs, d.npairs, sizeof *d.pairs, cmp_pair);
    rc = HS_ENOMEM;
    double max_w = o->max_w > 0 ? o->max_w : 1400;
    int full = o->detail == HS_VIZ_DETAIL_FULL ||
               (o->detail == HS_VIZ_DETAIL_AUTO && m->N <= NODES_DETAIL &&
                m->S <= (o->compact ? ROUTERS_COMPACT : ROUTERS_DETAIL));
    hs__vz_scene *sc = hs__vz_scene_new(scenes, nscenes);
    if (!sc)
        goto out;
    if (full) {
        full_scene(&d, sc, fmin(max_w, 1000));
        rc = 0;
        goto out;
    }
    group_scene(&d, sc, fmin(max_w, 1000));
    if (!o->compact && o->zoom) {
        rank = malloc(d.G * sizeof *rank);
        if (!rank)
            goto out;
        for (uint32_t g = 0; g < d.G; g++) {
            rank[g].w = group_worst(&d, g, o->rank_by ? o->rank_by : m->est);
            rank[g].g = g;
        }
        qsort(rank, d.G, sizeof *rank, cmp_gw);
        for (uint32_t z = 0; z < o->zoom && z < d.G; z++) {
            hs__vz_scene *dz = hs__vz_scene_new(scenes, nscenes);
            if (!dz)
                goto out;
            group_detail(&d, dz, rank[z].g);
            if (asprintf(&dz->note, "routers on a circle, local links as chords, each router's "
                                    "nodes as one box inside;\nglobal links as stubs outside: "
                                    "inner half the link out, outer half the link back from the "
                                    "far group (named when there is room; hover for all)") < 0) {
                dz->note = NULL;
                goto out;
            }
            int k = rank[z].w >= 0
                        ? asprintf(&dz->title, "group %u: worst congested fraction %.2f",
                                   rank[z].g, rank[z].w)
                        : asprintf(&dz->title, "group %u", rank[z].g);
            if (k < 0) {
                dz->title = NULL;
                goto out;
            }
        }
    }
    rc = 0;
out:
    free(rank);
    free(d.sw_of);
    free(d.noff);
    free(d.nlist);
    free(d.loff);
    free(d.llist);
    free(d.pairs);
    free(fill);
    return rc;
}
