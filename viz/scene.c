/* Scenes: what a layout hands to the drawing code.  A scene is geometry
 * only (device boxes, text, and items that each stand for one directed
 * link or a bundle of them); colours and widths come later from a view, so
 * one scene serves the whole run, every phase and both runs of a
 * comparison.  Allocation failures set s->oom and later calls do nothing;
 * the layout checks it once at the end. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* px left between the two halves of a cable, so that two links of the
 * same colour still read as two */
#define HALF_GAP 1.2

static int grow(hs__vz_scene *s, void **a, size_t *cap, size_t need, size_t elem)
{
    if (s->oom)
        return -1;
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*a, nc * elem);
    if (!p) {
        s->oom = 1;
        return -1;
    }
    *a = p;
    *cap = nc;
    return 0;
}

void hs__vz_scene_free(hs__vz_scene *s)
{
    if (!s)
        return;
    free(s->it);
    free(s->mem);
    free(s->gl);
    for (size_t i = 0; i < s->ntx; i++)
        free(s->tx[i].s);
    free(s->tx);
    for (size_t i = 0; i < s->nlabel; i++)
        free(s->label[i]);
    free(s->label);
    free(s->title);
    free(s->note);
    memset(s, 0, sizeof *s);
}

hs__vz_scene *hs__vz_scene_new(hs__vz_scene **scenes, size_t *nscenes)
{
    hs__vz_scene *a = realloc(*scenes, (*nscenes + 1) * sizeof *a);
    if (!a)
        return NULL;
    *scenes = a;
    memset(&a[*nscenes], 0, sizeof a[0]);
    return &a[(*nscenes)++];
}

size_t hs__vz_item_add(hs__vz_scene *s, int geom, const float *p, int np)
{
    if (grow(s, (void **)&s->it, &s->capit, s->nit + 1, sizeof *s->it))
        return 0;
    hs__vz_item *it = &s->it[s->nit];
    memset(it, 0, sizeof *it);
    it->geom = (uint8_t)geom;
    for (int i = 0; i < np && i < 6; i++)
        it->p[i] = p[i];
    it->first = (uint32_t)s->nmem;
    it->label = UINT32_MAX;
    return s->nit++;
}

void hs__vz_member(hs__vz_scene *s, uint32_t link)
{
    if (!s->nit || grow(s, (void **)&s->mem, &s->capmem, s->nmem + 1, sizeof *s->mem))
        return;
    s->mem[s->nmem++] = link;
    s->it[s->nit - 1].n++;
}

/* A formatted copy; NULL (and s->oom) when out of memory. */
static char *vfmt(hs__vz_scene *s, const char *fmt, va_list ap)
{
    char *t = NULL;
    if (vasprintf(&t, fmt, ap) < 0)
        t = NULL;
    if (!t)
        s->oom = 1;
    return t;
}

void hs__vz_item_label(hs__vz_scene *s, const char *fmt, ...)
{
    if (!s->nit || grow(s, (void **)&s->label, &s->caplabel, s->nlabel + 1, sizeof *s->label))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *t = vfmt(s, fmt, ap);
    va_end(ap);
    if (!t)
        return;
    s->label[s->nlabel] = t;
    s->it[s->nit - 1].label = (uint32_t)s->nlabel++;
}

void hs__vz_glyph_add(hs__vz_scene *s, int kind, double x, double y, double w, double h,
                      uint32_t dev, uint32_t ndev, double lw)
{
    if (grow(s, (void **)&s->gl, &s->capgl, s->ngl + 1, sizeof *s->gl))
        return;
    hs__vz_glyph *g = &s->gl[s->ngl++];
    memset(g, 0, sizeof *g);
    g->kind = (uint8_t)kind;
    g->x = (float)x;
    g->y = (float)y;
    g->w = (float)w;
    g->h = (float)h;
    g->dev = dev;
    g->ndev = ndev;
    g->lw = (float)lw;
}

void hs__vz_text_add(hs__vz_scene *s, double x, double y, int anchor, int size, int bold,
                     const char *fmt, ...)
{
    if (grow(s, (void **)&s->tx, &s->captx, s->ntx + 1, sizeof *s->tx))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *t = vfmt(s, fmt, ap);
    va_end(ap);
    if (!t)
        return;
    hs__vz_text *x0 = &s->tx[s->ntx++];
    memset(x0, 0, sizeof *x0);
    x0->x = (float)x;
    x0->y = (float)y;
    x0->anchor = (uint8_t)anchor;
    x0->size = (uint8_t)size;
    x0->bold = (uint8_t)bold;
    x0->s = t;
}

void hs__vz_half_line(hs__vz_scene *s, double x0, double y0, double x1, double y1, uint32_t link)
{
    double mx = (x0 + x1) / 2, my = (y0 + y1) / 2;
    double dx = mx - x0, dy = my - y0, len = sqrt(dx * dx + dy * dy);
    double gap = len > 0 ? fmin(HALF_GAP, 0.15 * len) / len : 0;
    float p[4] = { (float)x0, (float)y0, (float)(mx - dx * gap), (float)(my - dy * gap) };
    hs__vz_item_add(s, HS__VZ_G_LINE, p, 4);
    if (link)
        hs__vz_member(s, link);
}

void hs__vz_half_quad(hs__vz_scene *s, double x0, double y0, double cx, double cy, double x1,
                      double y1, uint32_t link)
{
    /* de Casteljau at t = 1/2: the first half is itself a quadratic with
     * control point (P0 + C) / 2 ending on the curve's midpoint */
    double qx = (x0 + cx) / 2, qy = (y0 + cy) / 2;
    double mx = (x0 + 2 * cx + x1) / 4, my = (y0 + 2 * cy + y1) / 4;
    double dx = mx - qx, dy = my - qy, len = sqrt(dx * dx + dy * dy);
    double gap = len > 0 ? fmin(HALF_GAP, 0.15 * len) / len : 0;
    float p[6] = { (float)x0, (float)y0, (float)qx, (float)qy, (float)(mx - dx * gap),
                   (float)(my - dy * gap) };
    hs__vz_item_add(s, HS__VZ_G_QUAD, p, 6);
    if (link)
        hs__vz_member(s, link);
}

double hs__vz_worst(const hs__vz_est *est, const uint32_t *links, size_t n)
{
    double w = -1;
    for (size_t i = 0; i < n; i++)
        if (est[links[i]].state == HS__VZ_OK && est[links[i]].cf > w)
            w = est[links[i]].cf;
    return w;
}

int hs__vz_layout(const hs_viz_model *m, const hs__vz_layout_opts *o, hs__vz_scene **scenes,
                  size_t *nscenes)
{
    *scenes = NULL;
    *nscenes = 0;
    int rc;
    switch (m->topo) {
    case HS__VZ_TOPO_FATTREE: rc = hs__vz_layout_fattree(m, o, scenes, nscenes); break;
    case HS__VZ_TOPO_DRAGONFLY: rc = hs__vz_layout_dragonfly(m, o, scenes, nscenes); break;
    case HS__VZ_TOPO_TORUS: rc = hs__vz_layout_torus(m, o, scenes, nscenes); break;
    default: rc = HS_ENOTSUP; break;
    }
    /* a kind whose places are missing or inconsistent falls back to levels
     * found from the graph itself, which works for any network */
    if (rc == HS_ENOTSUP) {
        for (size_t i = 0; i < *nscenes; i++)
            hs__vz_scene_free(&(*scenes)[i]);
        *nscenes = 0;
        rc = hs__vz_layout_layered(m, o, scenes, nscenes);
    }
    /* the devices the report names, named in the pictures (not in small
     * multiples: drawn at half size, the names would be too small to read) */
    if (!rc && !o->compact && !o->unnamed && *nscenes) {
        uint8_t *mark = malloc((size_t)m->N + m->S);
        rc = mark ? hs__vz_marks(m, mark) : HS_ENOMEM;
        for (size_t i = 0; !rc && i < *nscenes; i++)
            hs__vz_mark_scene(m, mark, &(*scenes)[i]);
        free(mark);
    }
    for (size_t i = 0; !rc && i < *nscenes; i++)
        if ((*scenes)[i].oom)
            rc = HS_ENOMEM;
    if (rc) {
        for (size_t i = 0; i < *nscenes; i++)
            hs__vz_scene_free(&(*scenes)[i]);
        free(*scenes);
        *scenes = NULL;
        *nscenes = 0;
    }
    return rc;
}
