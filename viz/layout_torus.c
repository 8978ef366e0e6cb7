/* Tori and meshes as grids: one grid per x-y plane, and for three or more
 * dimensions the projections onto the x-y, x-z and y-z planes, where each
 * mark bundles the links of one direction over the dimension projected
 * away (colour: the worst of them; width: their mean load).
 *
 * In a plane, a cable between neighbours is two halves (each the link
 * leaving the switch at its end); wrap-around links are stubs leaving the
 * grid at its edge; the links to the next and previous plane (+z, -z)
 * are short diagonal stubs, up-right and up-left of the switch; the
 * node(s) of a switch hang below-right of it.
 *
 * Up to PLANES_ALL planes and SWITCHES_ALL switches are all drawn with
 * the projections in one picture; beyond that the picture is the
 * projections, with the zoom most congested planes as details. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLANES_ALL 16      /* planes drawn in the main picture up to this many */
#define SWITCHES_ALL 1024  /* ... and switches */
#define PANEL_T    22.0    /* px above a grid: its title */

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

typedef struct tor {
    const hs_viz_model *m;
    uint32_t  D, K[8];
    uint32_t *out;          /* S * D * 2: outgoing link per (dim, direction), 0 none */
    uint32_t *noff, *nlist; /* nodes of each switch (CSR) */
    double    sp;           /* px between neighbours in a grid */
    double    mar;          /* px around a grid: wrap-around stubs and labels */
} tor;

#define OUT(t, s, d, dir) ((t)->out[((size_t)(s) * (t)->D + (d)) * 2 + ((dir) > 0)])
#define C(t, s, d) ((t)->m->sw_coord[(size_t)(s) * (t)->D + (d)])

static double panel_w(const tor *t, uint32_t a) { return t->K[a] * t->sp + 2 * t->mar; }
static double panel_h(const tor *t, uint32_t b)
{
    return (b < t->D ? t->K[b] : 1) * t->sp + 2 * t->mar + PANEL_T;
}

/* One grid panel at (ox, oy): the switches whose coordinates outside dims
 * a and b are `rest` (plane), or all of them bundled per cell (projection,
 * rest == NULL).  b == D means a one-dimensional ring. */
static void grid_panel(hs__vz_scene *sc, const tor *t, uint32_t a, uint32_t b,
                       const uint32_t *rest, double ox, double oy, const char *title)
{
    const hs_viz_model *m = t->m;
    uint32_t N = m->N, S = m->S, D = t->D;
    uint32_t Ka = t->K[a], Kb = b < D ? t->K[b] : 1;
    double sp = t->sp, gx = ox + t->mar + sp / 2, gy = oy + PANEL_T + t->mar + sp / 2;
    double box = clamp(sp * 0.34, 5, 16), stub = sp * 0.32;
    int proj = rest == NULL;
    hs__vz_text_add(sc, ox + 4, oy + 14, HS__VZ_T_START, 11, 1, "%s", title);
    /* axis labels */
    if (sp >= 18) {
        for (uint32_t i = 0; i < Ka; i++)
            hs__vz_text_add(sc, gx + i * sp, oy + PANEL_T + 10, HS__VZ_T_MIDDLE, 9, 0, "%s=%u",
                            hs__vz_dim_name(a), i);
        for (uint32_t j = 0; b < D && j < Kb; j++)
            hs__vz_text_add(sc, ox + 2, gy + j * sp - box / 2 - 3, HS__VZ_T_START, 9, 0, "%s=%u",
                            hs__vz_dim_name(b), j);
    }
    uint32_t dims[2] = { a, b };
    for (uint32_t cell = 0; cell < Ka * Kb; cell++) {
        uint32_t i = cell % Ka, j = cell / Ka;
        double x = gx + i * sp, y = gy + j * sp;
        /* the switches drawn at this cell */
        uint32_t first = UINT32_MAX, nsw = 0;
        for (uint32_t s = 0; s < S; s++) {
            if (C(t, s, a) != i || (b < D && C(t, s, b) != j))
                continue;
            int in = 1;
            for (uint32_t d = 0; !proj && d < D; d++)
                if (d != a && d != b && C(t, s, d) != rest[d])
                    in = 0;
            if (!in)
                continue;
            if (first == UINT32_MAX)
                first = s;
            nsw++;
        }
        if (!nsw)
            continue;
        /* links within the panel's dimensions, each direction */
        for (int k = 0; k < (b < D ? 2 : 1); k++)
            for (int dir = -1; dir <= 1; dir += 2) {
                uint32_t d = dims[k];
                uint32_t l0 = OUT(t, first, d, dir);
                if (!l0)
                    continue;
                double dx = k == 0 ? dir * sp : 0, dy = k == 1 ? dir * sp : 0;
                /* wrap-around links leave the grid: a stub of half a step */
                hs__vz_half_line(sc, x, y, x + dx, y + dy, 0);
                if (!proj && nsw == 1) {
                    hs__vz_member(sc, l0);
                    continue;
                }
                hs__vz_item_label(sc, "links %c%s from %s=%u%s%s=%u, over the other dimensions",
                                  dir > 0 ? '+' : '-', hs__vz_dim_name(d), hs__vz_dim_name(a), i,
                                  b < D ? ", " : "", b < D ? hs__vz_dim_name(b) : "", j);
                for (uint32_t s = first; s < S; s++)
                    if (C(t, s, a) == i && (b >= D || C(t, s, b) == j) && OUT(t, s, d, dir))
                        hs__vz_member(sc, OUT(t, s, d, dir));
            }
        /* +z / -z of a plane: short diagonal stubs */
        if (!proj && D >= 3 && a == 0 && b == 1)
            for (int dir = -1; dir <= 1; dir += 2) {
                uint32_t l = OUT(t, first, 2, dir);
                if (l)
                    hs__vz_half_line(sc, x, y, x + dir * 2 * stub * 0.7, y - 2 * stub * 0.7, l);
            }
        /* nodes: below-right, one box per switch (its nodes bundled) */
        uint32_t nn = 0;
        for (uint32_t s = first; s < S && (proj || s == first); s++)
            if (proj ? (C(t, s, a) == i && (b >= D || C(t, s, b) == j)) : 1)
                nn += t->noff[s + 1] - t->noff[s];
        if (nn) {
            double nx = x + stub * 0.9, ny = y + stub * 0.9;
            for (int w = 0; w < 2; w++) {
                if (w == 0)
                    hs__vz_half_line(sc, nx, ny, x, y, 0);
                else
                    hs__vz_half_line(sc, x, y, nx, ny, 0);
                if (nn > 1)
                    hs__vz_item_label(sc, "%s links of the %u nodes at %s=%u%s%s=%u%s",
                                      w ? "ejection" : "injection", nn, hs__vz_dim_name(a), i,
                                      b < D ? ", " : "", b < D ? hs__vz_dim_name(b) : "", j,
                                      proj ? " over the other dimensions" : "");
                for (uint32_t s = first; s < S; s++) {
                    if (!(proj ? (C(t, s, a) == i && (b >= D || C(t, s, b) == j)) : s == first))
                        continue;
                    for (uint32_t q = t->noff[s]; q < t->noff[s + 1]; q++)
                        hs__vz_member(sc, w ? m->node_ej[t->nlist[q]] : m->node_inj[t->nlist[q]]);
                }
            }
            double nb = clamp(sp * 0.2, 4, 10);
            if (proj || nn > 1)
                hs__vz_glyph_add(sc, HS__VZ_GL_NODE, nx, ny, nb, nb,
                                 proj ? UINT32_MAX : N + first, nn, 0);
            else
                hs__vz_glyph_add(sc, HS__VZ_GL_NODE, nx, ny, nb, nb, t->nlist[t->noff[first]], 1,
                                 sp * 0.9);
        }
        if (proj)
            hs__vz_glyph_add(sc, HS__VZ_GL_SWITCH, x, y, box, box, UINT32_MAX, nsw, 0);
        else
            hs__vz_glyph_add(sc, HS__VZ_GL_SWITCH, x, y, box, box, N + first, 1, 0);
    }
}

/* Worst congested fraction over the links leaving the switches of a plane. */
static double plane_worst(const tor *t, const hs__vz_est *est, const uint32_t *rest)
{
    const hs_viz_model *m = t->m;
    double w = -1;
    for (uint32_t s = 0; s < m->S; s++) {
        int in = 1;
        for (uint32_t d = 2; d < t->D; d++)
            if (C(t, s, d) != rest[d])
                in = 0;
        if (!in)
            continue;
        for (uint32_t k = 0; k < 2 * t->D; k++) {
            uint32_t l = t->out[(size_t)s * t->D * 2 + k];
            if (l && est[l].state == HS__VZ_OK && est[l].cf > w)
                w = est[l].cf;
        }
        for (uint32_t q = t->noff[s]; q < t->noff[s + 1]; q++) {
            uint32_t l = m->node_ej[t->nlist[q]];
            if (est[l].state == HS__VZ_OK && est[l].cf > w)
                w = est[l].cf;
        }
    }
    return w;
}

static void plane_name(const tor *t, const uint32_t *rest, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "plane");
    for (uint32_t d = 2; d < t->D && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, "%s %s=%u", d > 2 ? "," : "", hs__vz_dim_name(d),
                              rest[d]);
}

/* The rest coordinates of plane p (dims 2.., dimension 2 fastest). */
static void plane_rest(const tor *t, uint32_t p, uint32_t *rest)
{
    for (uint32_t d = 2; d < t->D; d++) {
        rest[d] = p % t->K[d];
        p /= t->K[d];
    }
}

typedef struct pw {
    double   w;
    uint32_t p;
} pw;

static int cmp_pw(const void *x, const void *y)
{
    const pw *a = x, *b = y;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    return a->p < b->p ? -1 : a->p > b->p;
}

int hs__vz_layout_torus(const hs_viz_model *m, const hs__vz_layout_opts *o,
                        hs__vz_scene **scenes, size_t *nscenes)
{
    if (!m->sw_coord || m->ncoord == 0 || m->ncoord > 8)
        return HS_ENOTSUP;
    tor t = { 0 };
    t.m = m;
    t.D = m->ncoord;
    for (uint32_t s = 0; s < m->S; s++)
        for (uint32_t d = 0; d < t.D; d++)
            if (C(&t, s, d) + 1 > t.K[d])
                t.K[d] = C(&t, s, d) + 1;
    uint64_t cells = 1;
    for (uint32_t d = 0; d < t.D; d++)
        cells *= t.K[d];
    if (cells != m->S) /* not a full grid: draw it from the graph instead */
        return HS_ENOTSUP;
    t.out = calloc((size_t)m->S * t.D * 2, sizeof *t.out);
    t.noff = calloc((size_t)m->S + 1, sizeof *t.noff);
    t.nlist = malloc((m->N ? m->N : 1) * sizeof *t.nlist);
    uint32_t *fill = calloc((size_t)m->S + 1, sizeof *fill);
    int rc = HS_ENOMEM;
    if (!t.out || !t.noff || !t.nlist || !fill)
        goto out;
    rc = HS_ENOTSUP;
    for (uint32_t l = 1; l <= m->L; l++) {
        const hs__vz_link *k = &m->lk[l];
        if (k->kind != HS__VZ_SW)
            continue;
        if (k->sub != HS__VZ_SUB_TORUS || k->dim >= t.D || !k->dir)
            goto out;
        uint32_t s = k->from - m->N;
        if (OUT(&t, s, k->dim, k->dir)) /* two links one way: not a torus we can draw */
            goto out;
        OUT(&t, s, k->dim, k->dir) = l;
    }
    for (uint32_t i = 0; i < m->N; i++)
        t.noff[m->node_switch[i] + 1]++;
    for (uint32_t s = 0; s < m->S; s++)
        t.noff[s + 1] += t.noff[s];
    memcpy(fill, t.noff, ((size_t)m->S + 1) * sizeof *fill);
    for (uint32_t i = 0; i < m->N; i++)
        t.nlist[fill[m->node_switch[i]]++] = i;

    uint32_t kmax = t.K[0] > (t.D > 1 ? t.K[1] : 0) ? t.K[0] : t.K[1];
    t.sp = clamp(380.0 / kmax, 16, 64);
    t.mar = t.sp / 2 + 10;
    uint32_t planes = 1;
    for (uint32_t d = 2; d < t.D; d++)
        planes *= t.K[d];
    /* small multiples show the projections only, when there are some */
    int all = t.D < 3 || (!o->compact && (o->detail == HS_VIZ_DETAIL_FULL ||
                                          (o->detail == HS_VIZ_DETAIL_AUTO &&
                                           planes <= PLANES_ALL && m->S <= SWITCHES_ALL)));
    double row_max = o->max_w > 0 ? o->max_w : 1400;
    uint32_t b = t.D > 1 ? 1 : t.D; /* b == D: a ring */
    double pw0 = panel_w(&t, 0), ph0 = panel_h(&t, b);
    char title[96];
    uint32_t rest[8] = { 0 };
    rc = HS_ENOMEM;
    hs__vz_scene *sc = hs__vz_scene_new(scenes, nscenes);
    if (!sc)
        goto out;
    sc->wmax = clamp(t.sp * 0.12, 2.5, 7);
    double x = 0, y = 0, rowh = 0, w = 0;
#define PLACE(pw_, ph_)                                                                         \
    do {                                                                                        \
        if (x > 0 && x + (pw_) > row_max) {                                                     \
            x = 0;                                                                              \
            y += rowh;                                                                          \
            rowh = 0;                                                                           \
        }                                                                                       \
    } while (0)
    if (all) {
        for (uint32_t p = 0; p < planes; p++) {
            plane_rest(&t, p, rest);
            if (t.D >= 3)
                plane_name(&t, rest, title, sizeof title);
            else
                snprintf(title, sizeof title, "%s", t.D == 1 ? "ring" : "the x-y plane");
            PLACE(pw0, ph0);
            grid_panel(sc, &t, 0, b, rest, x, y, title);
            x += pw0;
            w = fmax(w, x);
            rowh = fmax(rowh, ph0);
        }
    }
    if (t.D >= 3) {
        /* projections: x-y, x-z, y-z */
        static const uint32_t pa[3] = { 0, 0, 1 }, pb[3] = { 1, 2, 2 };
        if (all) {
            x = 0;
            y += rowh + 10;
            rowh = 0;
        }
        for (int k = 0; k < 3; k++) {
            double pw_ = panel_w(&t, pa[k]), ph_ = panel_h(&t, pb[k]);
            PLACE(pw_, ph_);
            snprintf(title, sizeof title, "projection on %s-%s (all %s%s)", hs__vz_dim_name(pa[k]),
                     hs__vz_dim_name(pb[k]), hs__vz_dim_name(3 - pa[k] - pb[k]),
                     t.D > 3 ? " and beyond" : "");
            grid_panel(sc, &t, pa[k], pb[k], NULL, x, y, title);
            x += pw_;
            w = fmax(w, x);
            rowh = fmax(rowh, ph_);
        }
        if (!all && !o->compact && asprintf(&sc->note, "%u planes: the projections bundle each direction over "
                                        "the dimension projected away; the most congested planes "
                                        "are drawn in detail", planes) < 0)
            sc->note = NULL;
    }
#undef PLACE
    sc->w = w;
    sc->h = y + rowh;
    if (!all && !o->compact && o->zoom) {
        /* the most congested planes, link by link */
        pw *rank = malloc(planes * sizeof *rank);
        if (!rank)
            goto out;
        for (uint32_t p = 0; p < planes; p++) {
            plane_rest(&t, p, rest);
            rank[p].w = plane_worst(&t, o->rank_by, rest);
            rank[p].p = p;
        }
        qsort(rank, planes, sizeof *rank, cmp_pw);
        for (uint32_t z = 0; z < o->zoom && z < planes; z++) {
            hs__vz_scene *d = hs__vz_scene_new(scenes, nscenes);
            if (!d) {
                free(rank);
                goto out;
            }
            d->wmax = clamp(t.sp * 0.12, 2.5, 7);
            plane_rest(&t, rank[z].p, rest);
            plane_name(&t, rest, title, sizeof title);
            grid_panel(d, &t, 0, b, rest, 0, 0, title);
            d->w = pw0;
            d->h = ph0;
            if (rank[z].w >= 0)
                rc = asprintf(&d->title, "%s: worst congested fraction %.2f", title, rank[z].w);
            else
                rc = asprintf(&d->title, "%s", title);
            if (rc < 0)
                d->title = NULL;
        }
        free(rank);
    }
    rc = 0;
out:
    free(t.out);
    free(t.noff);
    free(t.nlist);
    free(fill);
    return rc;
}
