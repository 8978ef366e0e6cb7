/* A scene coloured by one view, as SVG; and the legend.
 *
 * Encodings (docs/viz.md):
 *   colour  congested fraction on the reversed magma scale (dark =
 *           congested); a bundle shows its worst link
 *   width   the application's own load on the link, linear in the share of
 *           capacity: HS__VZ_WMIN at 0, the scene's wmax at 100 %; a bundle
 *           shows its mean
 *   grey, dashed  traffic but not enough sampled packets for a congested
 *           fraction;  pale, thin  no traffic
 *   blue ring and "R<n>"  a root of a congestion tree
 *   a cable is drawn as two halves, each the link leaving the device at its
 *           end: the colour next to a switch is what that switch sends
 * Items are drawn idle first, then "not enough data", then by congested
 * fraction, so the darkest lie on top where lines cross. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

void hs__vz_svg_open(hs__vz_buf *b, double w, double h, const char *title)
{
    hs__vz_puts(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
    hs__vz_num(b, w);
    hs__vz_puts(b, "\" height=\"");
    hs__vz_num(b, h);
    hs__vz_puts(b, "\" viewBox=\"0 0 ");
    hs__vz_num(b, w);
    hs__vz_puts(b, " ");
    hs__vz_num(b, h);
    hs__vz_puts(b, "\" font-family=\"" FONT "\" font-size=\"11\">\n<title>");
    hs__vz_esc(b, title);
    hs__vz_puts(b, "</title>\n<rect width=\"");
    hs__vz_num(b, w);
    hs__vz_puts(b, "\" height=\"");
    hs__vz_num(b, h);
    hs__vz_puts(b, "\" fill=\"#ffffff\"/>\n");
}

void hs__vz_svg_close(hs__vz_buf *b) { hs__vz_puts(b, "</svg>\n"); }

/* ---- one item's numbers -------------------------------------------------------- */

typedef struct agg {
    uint8_t  state;
    double   cf, cf_se;         /* of the worst link with data */
    uint32_t worst;             /* that link */
    double   cf_mean, load, load_max;
    uint32_t nok, ninsuff, nnodata, nidle;
    uint32_t root;              /* root number (0 none; UINT32_MAX root without number) */
    uint32_t root_link;
} agg;

static void aggregate(const hs__vz_scene *s, const hs__vz_item *it, const hs__vz_draw *d, agg *a)
{
    memset(a, 0, sizeof *a);
    a->cf = a->cf_se = NAN;
    double cfsum = 0, loadsum = 0;
    for (uint32_t k = 0; k < it->n; k++) {
        uint32_t l = s->mem[it->first + k];
        const hs__vz_est *e = &d->est[l];
        double load = isfinite(e->load) ? e->load : 0;
        loadsum += load;
        if (load > a->load_max)
            a->load_max = load;
        if (e->state == HS__VZ_OK) {
            a->nok++;
            cfsum += e->cf;
            if (!(e->cf <= a->cf)) { /* first, or larger */
                a->cf = e->cf;
                a->cf_se = e->cf_se;
                a->worst = l;
            }
        } else if (e->state == HS__VZ_INSUFF)
            a->ninsuff++;
        else if (e->state == HS__VZ_NODATA)
            a->nnodata++;
        else
            a->nidle++;
        uint32_t rn = d->root_num ? d->root_num[l] : 0;
        if ((rn || e->root) && (!a->root || (rn && rn < a->root))) {
            a->root = rn ? rn : UINT32_MAX;
            a->root_link = l;
        }
    }
    a->state = a->nok       ? HS__VZ_OK
               : a->ninsuff ? HS__VZ_INSUFF
               : a->nnodata ? HS__VZ_NODATA
                            : HS__VZ_IDLE;
    a->cf_mean = a->nok ? cfsum / a->nok : NAN;
    a->load = it->n ? loadsum / it->n : 0;
}

static double width_of(const hs__vz_scene *s, double load)
{
    if (!(load > 0))
        return HS__VZ_WMIN;
    if (load > 1)
        load = 1;
    return HS__VZ_WMIN + (s->wmax - HS__VZ_WMIN) * load;
}

/* What people read is a proportion: estimates are clipped to [0, 1]
 * (analysis.json keeps the raw unbiased values); a load above 1 is shown
 * as ">100%", demand beyond the capacity. */
static double clip01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

static void pct(hs__vz_buf *b, double x)
{
    if (!isfinite(x))
        hs__vz_puts(b, "-");
    else
        hs__vz_printf(b, "%s%.0f%%", x > 1 ? ">" : "", 100 * clip01(x));
}

/* The tooltip: what a performance engineer needs to judge the mark. */
static void tooltip(hs__vz_buf *b, const hs__vz_scene *s, const hs__vz_item *it, const agg *a,
                    const hs__vz_draw *d)
{
    const hs_viz_model *m = d->m;
    char nm[300];
    hs__vz_puts(b, "<title>");
    if (it->n == 1) {
        uint32_t l = s->mem[it->first];
        const hs__vz_est *e = &d->est[l];
        hs__vz_esc(b, hs__vz_link_name(m, l, nm, sizeof nm));
        hs__vz_printf(b, ", link %u\n", l);
        if (e->state == HS__VZ_OK)
            hs__vz_printf(b, "CF %.3f \u00b1 %.3f%s\n", clip01(e->cf), e->cf_se,
                          e->congested ? " (congested)" : "");
        else if (e->state == HS__VZ_INSUFF && isfinite(e->cf))
            hs__vz_printf(b, "CF %.3f \u00b1 %.3f: cannot be judged (too close to the threshold "
                          "for its standard error)%s\n", clip01(e->cf), e->cf_se,
                          e->congested ? "; congested with the links of its role" : "");
        else if (e->state == HS__VZ_INSUFF)
            hs__vz_puts(b, "too few sampled packets for a CF\n");
        else if (e->state == HS__VZ_NODATA)
            hs__vz_puts(b, "no data in this view (idle, or too few packets)\n");
        else
            hs__vz_puts(b, "no traffic\n");
        if (isfinite(e->traffic))
            hs__vz_printf(b, "traffic %.0f \u00b1 %.0f packets, ", e->traffic, e->traffic_se);
        hs__vz_puts(b, "app load ");
        pct(b, e->load);
        if (isfinite(e->t_cf))
            hs__vz_printf(b, "\ntruth: CF %.3f of %.0f packets", clip01(e->t_cf), e->t_packets);
        else if (isfinite(e->t_packets))
            hs__vz_printf(b, "\ntruth: %.0f packets", e->t_packets);
    } else {
        if (it->label != UINT32_MAX)
            hs__vz_esc(b, s->label[it->label]);
        else
            hs__vz_puts(b, "links");
        hs__vz_printf(b, ": %u links\n", it->n);
        if (a->nok) {
            hs__vz_printf(b, "worst CF %.3f \u00b1 %.3f on ", clip01(a->cf), a->cf_se);
            hs__vz_esc(b, hs__vz_link_name(m, a->worst, nm, sizeof nm));
            hs__vz_printf(b, "\nmean CF %.3f over %u with data\n", clip01(a->cf_mean), a->nok);
        }
        if (a->ninsuff)
            hs__vz_printf(b, "%u that cannot be judged\n", a->ninsuff);
        if (a->nnodata)
            hs__vz_printf(b, "%u without data in this view\n", a->nnodata);
        if (a->nidle)
            hs__vz_printf(b, "%u without traffic\n", a->nidle);
        hs__vz_puts(b, "app load mean ");
        pct(b, a->load);
        hs__vz_puts(b, ", max ");
        pct(b, a->load_max);
    }
    if (a->root) {
        hs__vz_puts(b, "\nroot of a congestion tree");
        if (a->root != UINT32_MAX)
            hs__vz_printf(b, " (R%u)", a->root);
        if (it->n > 1) {
            hs__vz_puts(b, ": ");
            hs__vz_esc(b, hs__vz_link_name(m, a->root_link, nm, sizeof nm));
        }
    }
    hs__vz_puts(b, "</title>");
}

/* ---- geometry ----------------------------------------------------------------------- */

/* " x y" after a path command */
static void pt(hs__vz_buf *b, double x, double y)
{
    hs__vz_num(b, x);
    hs__vz_puts(b, " ");
    hs__vz_num(b, y);
}

static void path_d(hs__vz_buf *b, const hs__vz_item *it)
{
    const float *p = it->p;
    switch (it->geom) {
    case HS__VZ_G_LINE:
        hs__vz_puts(b, "M");
        pt(b, p[0], p[1]);
        hs__vz_puts(b, "L");
        pt(b, p[2], p[3]);
        break;
    case HS__VZ_G_QUAD:
        hs__vz_puts(b, "M");
        pt(b, p[0], p[1]);
        hs__vz_puts(b, "Q");
        pt(b, p[2], p[3]);
        hs__vz_puts(b, " ");
        pt(b, p[4], p[5]);
        break;
    case HS__VZ_G_RECT:
        hs__vz_puts(b, "M");
        pt(b, p[0], p[1]);
        hs__vz_puts(b, "h");
        hs__vz_num(b, p[2]);
        hs__vz_puts(b, "v");
        hs__vz_num(b, p[3]);
        hs__vz_puts(b, "h");
        hs__vz_num(b, -p[2]);
        hs__vz_puts(b, "z");
        break;
    case HS__VZ_G_SECTOR: {
        /* annulus sector: outer arc a0 -> a1, inner arc back */
        double cx = p[0], cy = p[1], r0 = p[2], r1 = p[3], a0 = p[4], a1 = p[5];
        int large = a1 - a0 > M_PI;
        hs__vz_puts(b, "M");
        pt(b, cx + r1 * cos(a0), cy + r1 * sin(a0));
        hs__vz_puts(b, "A");
        pt(b, r1, r1);
        hs__vz_printf(b, " 0 %d 1 ", large);
        pt(b, cx + r1 * cos(a1), cy + r1 * sin(a1));
        hs__vz_puts(b, "L");
        pt(b, cx + r0 * cos(a1), cy + r0 * sin(a1));
        hs__vz_puts(b, "A");
        pt(b, r0, r0);
        hs__vz_printf(b, " 0 %d 0 ", large);
        pt(b, cx + r0 * cos(a0), cy + r0 * sin(a0));
        hs__vz_puts(b, "z");
        break;
    }
    }
}

void hs__vz_item_anchor(const hs__vz_item *it, double *x, double *y)
{
    const float *p = it->p;
    switch (it->geom) {
    case HS__VZ_G_LINE: *x = (p[0] + p[2]) / 2; *y = (p[1] + p[3]) / 2; break;
    case HS__VZ_G_QUAD:
        *x = (p[0] + 2 * p[2] + p[4]) / 4;
        *y = (p[1] + 2 * p[3] + p[5]) / 4;
        break;
    case HS__VZ_G_RECT: *x = p[0] + p[2] / 2; *y = p[1] + p[3] / 2; break;
    default: {
        double r = (p[2] + p[3]) / 2, a = (p[4] + p[5]) / 2;
        *x = p[0] + r * cos(a);
        *y = p[1] + r * sin(a);
    }
    }
}

/* ---- ordering ------------------------------------------------------------------------ */

typedef struct ord {
    double   key;
    uint32_t i;
} ord;

static int cmp_ord(const void *x, const void *y)
{
    const ord *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* ---- labels ------------------------------------------------------------------------- */

void hs__vz_ranks_text(const hs_viz_model *m, uint32_t node, char *out, size_t max)
{
    size_t n = 0;
    out[0] = 0;
    if (!m->have_ranks)
        return;
    const uint32_t *r = m->rank + m->rank_off[node];
    uint32_t cnt = m->rank_off[node + 1] - m->rank_off[node];
    for (uint32_t i = 0; i < cnt;) {
        uint32_t j = i;
        while (j + 1 < cnt && r[j + 1] == r[j] + 1)
            j++;
        char piece[32];
        if (j > i)
            snprintf(piece, sizeof piece, "%s%u-%u", i ? "," : "", r[i], r[j]);
        else
            snprintf(piece, sizeof piece, "%s%u", i ? "," : "", r[i]);
        size_t k = strlen(piece);
        if (n + k + 4 > max) {
            if (n + 4 < max)
                strcpy(out + n, ",..");
            return;
        }
        memcpy(out + n, piece, k + 1);
        n += k;
        i = j + 1;
    }
}

const char *hs__vz_glyph_label(const hs_viz_model *m, const hs__vz_glyph *g, char *buf, size_t n)
{
    const char *text = NULL;
    if (g->lw <= 0 || g->ndev != 1 || g->dev == UINT32_MAX)
        return NULL;
    if (g->kind == HS__VZ_GL_NODE && m->have_ranks) {
        hs__vz_ranks_text(m, g->dev, buf, n);
        text = buf;
    } else {
        text = m->name[g->dev];
    }
    return *text && strlen(text) * HS__VZ_CHAR_W <= g->lw ? text : NULL;
}

static void glyph(hs__vz_buf *b, const hs__vz_glyph *g, const hs__vz_draw *d)
{
    const hs_viz_model *m = d->m;
    static const char *fill[] = { "#ffffff", "#ececec", "#ffffff" };
    static const char *stroke[] = { "#4d4d4d", "#7a7a7a", "#4d4d4d" };
    hs__vz_puts(b, "<rect x=\"");
    hs__vz_num(b, g->x - g->w / 2);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, g->y - g->h / 2);
    hs__vz_puts(b, "\" width=\"");
    hs__vz_num(b, g->w);
    hs__vz_puts(b, "\" height=\"");
    hs__vz_num(b, g->h);
    if (g->mark) /* a device the report names: darker, and its name beside it */
        hs__vz_printf(b, "\" fill=\"%s\" stroke=\"#111111\" stroke-width=\"1.6\"", fill[g->kind]);
    else
        hs__vz_printf(b, "\" fill=\"%s\" stroke=\"%s\" stroke-width=\"0.8\"", fill[g->kind],
                      stroke[g->kind]);
    char rk[128];
    if (g->dev == UINT32_MAX) { /* a cell of a projection: its marks carry the numbers */
        hs__vz_puts(b, "/>\n");
        return;
    }
    if (d->tips) {
        hs__vz_puts(b, "><title>");
        if (g->ndev > 1 && g->kind == HS__VZ_GL_NODE) {
            /* node aggregates name the switch they hang from */
            hs__vz_printf(b, "%u nodes attached to ", g->ndev);
            hs__vz_esc(b, m->name[g->dev]);
        } else if (g->ndev > 1) {
            hs__vz_esc(b, m->name[g->dev]);
            hs__vz_puts(b, " .. ");
            hs__vz_esc(b, m->name[g->dev + g->ndev - 1]);
            hs__vz_printf(b, " (%u %s)", g->ndev, g->kind == HS__VZ_GL_NODE ? "nodes" : "switches");
        } else {
            hs__vz_esc(b, m->name[g->dev]);
            if (g->kind == HS__VZ_GL_NODE && m->have_ranks) {
                hs__vz_ranks_text(m, g->dev, rk, sizeof rk);
                hs__vz_puts(b, *rk ? "\nranks " : "\nno ranks of the application");
                hs__vz_esc(b, rk);
            }
        }
        hs__vz_puts(b, "</title></rect>\n");
    } else {
        hs__vz_puts(b, "/>\n");
    }
    const char *text = hs__vz_glyph_label(m, g, rk, sizeof rk);
    /* a marked device's name as its own label is drawn at any scale: the
     * report names it (marks.c adds no second label then) */
    int named = g->mark && text == m->name[g->dev];
    if (!text || (!d->labels && !named))
        return;
    double ty = g->kind == HS__VZ_GL_NODE ? g->y + g->h / 2 + 9 : g->y + 3;
    hs__vz_puts(b, "<text x=\"");
    hs__vz_num(b, g->x);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, ty);
    hs__vz_printf(b, "\" font-size=\"9\" text-anchor=\"middle\"%s>",
                  named ? " font-weight=\"bold\"" : "");
    hs__vz_esc(b, text);
    hs__vz_puts(b, "</text>\n");
}

/* ---- the scene ---------------------------------------------------------------------- */

void hs__vz_draw_scene(hs__vz_buf *b, const hs__vz_scene *s, const hs__vz_draw *d)
{
    agg *a = malloc((s->nit ? s->nit : 1) * sizeof *a);
    ord *o = malloc((s->nit ? s->nit : 1) * sizeof *o);
    if (!a || !o) {
        free(a);
        free(o);
        b->oom = 1;
        return;
    }
    for (size_t i = 0; i < s->nit; i++) {
        aggregate(s, &s->it[i], d, &a[i]);
        o[i].i = (uint32_t)i;
        o[i].key = a[i].state == HS__VZ_OK ? a[i].cf : -4.0 + a[i].state;
    }
    qsort(o, s->nit, sizeof *o, cmp_ord);

    hs__vz_puts(b, "<g transform=\"translate(");
    hs__vz_num(b, d->x);
    hs__vz_puts(b, " ");
    hs__vz_num(b, d->y);
    hs__vz_puts(b, ")");
    if (d->k != 1)
        hs__vz_printf(b, " scale(%.4g)", d->k);
    hs__vz_puts(b, "\">\n");
    /* filled areas (aggregates), then strokes */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            hs__vz_puts(b, "<g fill=\"none\">\n");
        for (size_t j = 0; j < s->nit; j++) {
            const hs__vz_item *it = &s->it[o[j].i];
            const agg *g = &a[o[j].i];
            int filled = it->geom == HS__VZ_G_RECT || it->geom == HS__VZ_G_SECTOR;
            if (filled != (pass == 0))
                continue;
            char col[8];
            hs__vz_puts(b, "<path d=\"");
            path_d(b, it);
            hs__vz_puts(b, "\"");
            if (filled) {
                if (g->state == HS__VZ_OK)
                    hs__vz_printf(b, " fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.6\"",
                                  hs__vz_cf_hex(g->cf, col));
                else if (g->state == HS__VZ_INSUFF)
                    hs__vz_puts(b, " fill=\"#f0f0f0\" stroke=\"" HS__VZ_COL_INSUFF
                                   "\" stroke-width=\"0.8\" stroke-dasharray=\"" HS__VZ_DASH_INSUFF "\"");
                else
                    hs__vz_printf(b, " fill=\"#f7f7f7\" stroke=\"" HS__VZ_COL_IDLE
                                     "\" stroke-width=\"0.6\"%s",
                                  g->state == HS__VZ_NODATA ? " stroke-dasharray=\"2 2\"" : "");
            } else {
                if (g->state == HS__VZ_OK) {
                    hs__vz_printf(b, " stroke=\"%s\" stroke-width=\"", hs__vz_cf_hex(g->cf, col));
                    hs__vz_num(b, width_of(s, g->load));
                    hs__vz_puts(b, "\"");
                } else if (s->faint && g->state != HS__VZ_IDLE) {
                    /* thousands of bundles without a verdict: a haze, not a wall */
                    hs__vz_puts(b, " stroke=\"" HS__VZ_COL_FAINT "\" stroke-width=\"0.5\"");
                } else if (g->state == HS__VZ_INSUFF) {
                    hs__vz_puts(b, " stroke=\"" HS__VZ_COL_INSUFF "\" stroke-width=\"");
                    hs__vz_num(b, width_of(s, g->load));
                    hs__vz_puts(b, "\" stroke-dasharray=\"" HS__VZ_DASH_INSUFF "\"");
                } else {
                    hs__vz_puts(b, " stroke=\"" HS__VZ_COL_IDLE "\" stroke-width=\"");
                    hs__vz_num(b, HS__VZ_WMIN);
                    hs__vz_puts(b, g->state == HS__VZ_NODATA ? "\" stroke-dasharray=\"2 2\""
                                                             : "\"");
                }
            }
            if (d->tips) {
                hs__vz_puts(b, ">");
                tooltip(b, s, it, g, d);
                hs__vz_puts(b, "</path>\n");
            } else {
                hs__vz_puts(b, "/>\n");
            }
        }
        if (pass == 1)
            hs__vz_puts(b, "</g>\n");
    }
    for (size_t i = 0; i < s->ngl; i++)
        glyph(b, &s->gl[i], d);
    for (size_t i = 0; i < s->ntx; i++) {
            const hs__vz_text *t = &s->tx[i];
            static const char *anchor[] = { "start", "middle", "end" };
            hs__vz_puts(b, "<text x=\"");
            hs__vz_num(b, t->x);
            hs__vz_puts(b, "\" y=\"");
            hs__vz_num(b, t->y);
            hs__vz_printf(b, "\" font-size=\"%u\"%s", t->size,
                          t->bold ? " font-weight=\"bold\"" : "");
            if (t->anchor != HS__VZ_T_START)
                hs__vz_printf(b, " text-anchor=\"%s\"", anchor[t->anchor]);
            if (t->mark) /* a device's name: readable over the links it crosses */
                hs__vz_puts(b, " class=\"mark\" stroke=\"#ffffff\" stroke-width=\"3\" "
                               "stroke-linejoin=\"round\" paint-order=\"stroke\"");
            hs__vz_puts(b, ">");
            hs__vz_esc(b, t->s);
            hs__vz_puts(b, "</text>\n");
        }
    /* roots on top of everything */
    for (size_t j = 0; j < s->nit; j++) {
        const agg *g = &a[j];
        int named = g->root && g->root <= HS__VZ_ROOT_LABELS;
        /* beyond the first HS__VZ_ROOT_LABELS roots: a small ring on single links,
         * nothing on bundles, so that a hundred roots do not hide the map */
        if (!g->root || (!named && s->it[j].n > 1))
            continue;
        double x, y;
        hs__vz_item_anchor(&s->it[j], &x, &y);
        hs__vz_puts(b, "<circle cx=\"");
        hs__vz_num(b, x);
        hs__vz_puts(b, "\" cy=\"");
        hs__vz_num(b, y);
        hs__vz_puts(b, "\" r=\"");
        hs__vz_num(b, named ? HS__VZ_ROOT_R : HS__VZ_ROOT_R * 0.6);
        hs__vz_printf(b, "\" fill=\"none\" stroke=\"" HS__VZ_COL_ROOT "\" stroke-width=\"%s\"/>\n",
                      named ? "2" : "1.2");
        if (named) {
            hs__vz_puts(b, "<text x=\"");
            hs__vz_num(b, x + HS__VZ_ROOT_R + 1.5);
            hs__vz_puts(b, "\" y=\"");
            hs__vz_num(b, y - HS__VZ_ROOT_R + 1);
            hs__vz_printf(b, "\" font-size=\"10\" font-weight=\"bold\" fill=\"" HS__VZ_COL_ROOT
                             "\" stroke=\"#ffffff\" stroke-width=\"2.5\" paint-order=\"stroke\">R%u</text>\n",
                          g->root);
        }
    }
    hs__vz_puts(b, "</g>\n");
    free(a);
    free(o);
}

/* ---- legend ----------------------------------------------------------------------------- */

#define BAR_STEPS 20
#define BAR_STEP_W 12.0
#define LEG_COL_W  255.0   /* the legend's four columns */

double hs__vz_legend(hs__vz_buf *b, double x, double y, double wmax, int views,
                     const char *idp)
{
    char col[8];
    hs__vz_printf(b, "<g id=\"%slegend\" transform=\"translate(", idp);
    hs__vz_num(b, x);
    hs__vz_puts(b, " ");
    hs__vz_num(b, y);
    hs__vz_puts(b, ")\" font-size=\"10\">\n");
    /* colour: 20 steps, each the colour of its middle */
    hs__vz_puts(b, "<text x=\"0\" y=\"10\" font-weight=\"bold\">colour: congested fraction"
                   "<title>share of the monitored packets that waited at least tau before "
                   "crossing the link</title></text>\n");
    for (int i = 0; i < BAR_STEPS; i++) {
        hs__vz_puts(b, "<rect x=\"");
        hs__vz_num(b, i * BAR_STEP_W);
        hs__vz_printf(b, "\" y=\"15\" width=\"%.0f\" height=\"12\" fill=\"%s\"/>\n", BAR_STEP_W,
                      hs__vz_cf_hex((i + 0.5) / BAR_STEPS, col));
    }
    for (int t = 0; t <= 4; t++) {
        double tx = t * BAR_STEPS * BAR_STEP_W / 4;
        hs__vz_puts(b, "<path d=\"M");
        hs__vz_num(b, tx);
        hs__vz_puts(b, " 27v3\" stroke=\"#333333\"/><text x=\"");
        hs__vz_num(b, tx);
        hs__vz_printf(b, "\" y=\"40\" text-anchor=\"middle\">%s</text>\n",
                      (const char *[]){ "0", "0.25", "0.5", "0.75", "1" }[t]);
    }
    /* width */
    double wx = LEG_COL_W;
    hs__vz_puts(b, "<text x=\"");
    hs__vz_num(b, wx);
    hs__vz_puts(b, "\" y=\"10\" font-weight=\"bold\">width: the application's own load"
                   "<title>the application's own traffic on the link, as a share of the link's "
                   "capacity</title></text>\n");
    static const double loads[] = { 0, 0.25, 0.5, 1 };
    for (int i = 0; i < 4; i++) {
        double lx = wx + i * 50;
        double w = loads[i] > 0 ? HS__VZ_WMIN + (wmax - HS__VZ_WMIN) * loads[i] : HS__VZ_WMIN;
        hs__vz_puts(b, "<path d=\"M");
        hs__vz_num(b, lx);
        hs__vz_puts(b, " 21h36\" stroke=\"");
        hs__vz_puts(b, hs__vz_cf_hex(0.5, col));
        hs__vz_puts(b, "\" stroke-width=\"");
        hs__vz_num(b, w);
        hs__vz_puts(b, "\"/><text x=\"");
        hs__vz_num(b, lx + 18);
        hs__vz_printf(b, "\" y=\"40\" text-anchor=\"middle\">%.0f%%</text>\n", 100 * loads[i]);
    }
    /* states and roots */
    double sx = 2 * LEG_COL_W;
    hs__vz_puts(b, "<path d=\"M");
    hs__vz_num(b, sx);
    hs__vz_puts(b, " 7h30\" stroke=\"" HS__VZ_COL_INSUFF "\" stroke-width=\"2\" stroke-dasharray=\""
                   HS__VZ_DASH_INSUFF "\"/><text x=\"");
    hs__vz_num(b, sx + 36);
    hs__vz_puts(b, "\" y=\"10\">not enough sampled packets</text>\n<path d=\"M");
    hs__vz_num(b, sx);
    hs__vz_puts(b, " 21h30\" stroke=\"" HS__VZ_COL_IDLE "\" stroke-width=\"");
    hs__vz_num(b, HS__VZ_WMIN + 0.4);
    hs__vz_puts(b, "\"/><text x=\"");
    hs__vz_num(b, sx + 36);
    if (views) {
        hs__vz_puts(b, "\" y=\"24\">no traffic; dashed: no data in this phase</text>\n<path d=\"M");
        hs__vz_num(b, sx + 16);
        hs__vz_puts(b, " 21h14\" stroke=\"#ffffff\" stroke-width=\"3\"/><path d=\"M");
        hs__vz_num(b, sx + 16);
        hs__vz_puts(b, " 21h14\" stroke=\"" HS__VZ_COL_IDLE "\" stroke-width=\"");
        hs__vz_num(b, HS__VZ_WMIN + 0.4);
        hs__vz_puts(b, "\" stroke-dasharray=\"2 2\"/>\n<circle cx=\"");
    } else {
        hs__vz_puts(b, "\" y=\"24\">no traffic</text>\n<circle cx=\"");
    }
    hs__vz_num(b, sx + 15);
    hs__vz_puts(b, "\" cy=\"35\" r=\"");
    hs__vz_num(b, HS__VZ_ROOT_R);
    hs__vz_puts(b, "\" fill=\"none\" stroke=\"" HS__VZ_COL_ROOT "\" stroke-width=\"2\"/><text x=\"");
    hs__vz_num(b, sx + 36);
    hs__vz_puts(b, "\" y=\"38\">root of a congestion tree (R1, R2 ...)</text>\n");
    /* a cable: two halves, each what the device at its end sends */
    double cx = 3 * LEG_COL_W - 20;
    hs__vz_puts(b, "<rect x=\"");
    hs__vz_num(b, cx);
    hs__vz_puts(b, "\" y=\"2\" width=\"12\" height=\"10\" fill=\"#ffffff\" stroke=\"#4d4d4d\"/>"
                   "<rect x=\"");
    hs__vz_num(b, cx + 88);
    hs__vz_puts(b, "\" y=\"2\" width=\"12\" height=\"10\" fill=\"#ffffff\" stroke=\"#4d4d4d\"/>\n");
    hs__vz_puts(b, "<path d=\"M");
    hs__vz_num(b, cx + 12);
    hs__vz_puts(b, " 7h37\" stroke=\"");
    hs__vz_puts(b, hs__vz_cf_hex(0.9, col));
    hs__vz_puts(b, "\" stroke-width=\"3\"/><path d=\"M");
    hs__vz_num(b, cx + 51);
    hs__vz_puts(b, " 7h37\" stroke=\"");
    hs__vz_puts(b, hs__vz_cf_hex(0.1, col));
    hs__vz_puts(b, "\" stroke-width=\"3\"/>\n<text x=\"");
    hs__vz_num(b, cx + 6);
    hs__vz_puts(b, "\" y=\"23\" text-anchor=\"middle\">A</text><text x=\"");
    hs__vz_num(b, cx + 94);
    hs__vz_puts(b, "\" y=\"23\" text-anchor=\"middle\">B</text><text x=\"");
    hs__vz_num(b, cx + 30);
    hs__vz_puts(b, "\" y=\"23\" text-anchor=\"middle\">A\u2192B</text><text x=\"");
    hs__vz_num(b, cx + 70);
    hs__vz_puts(b, "\" y=\"23\" text-anchor=\"middle\">B\u2192A</text>\n<text x=\"");
    hs__vz_num(b, cx + 110);
    hs__vz_puts(b, "\" y=\"10\">each half of a cable is</text><text x=\"");
    hs__vz_num(b, cx + 110);
    hs__vz_puts(b, "\" y=\"23\">what the device at</text><text x=\"");
    hs__vz_num(b, cx + 110);
    hs__vz_puts(b, "\" y=\"36\">its end sends</text>\n</g>\n");
    return 46;
}
