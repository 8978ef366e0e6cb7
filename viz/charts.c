/* Simple charts: time per phase, message latency (the whole application,
 * each phase, isolated against with background), congestion over time.
 * Colours reuse the network's scale wherever they mean a congested
 * fraction, so a dark bar and a dark link say the same thing. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CW       900.0   /* chart width */
#define LABEL_W  190.0   /* room for row labels */
#define ROW_H    22.0
#define TOP      44.0

static void text(hs__vz_buf *b, double x, double y, const char *attrs, const char *s)
{
    hs__vz_puts(b, "<text x=\"");
    hs__vz_num(b, x);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, y);
    hs__vz_printf(b, "\"%s%s>", *attrs ? " " : "", attrs);
    hs__vz_esc(b, s);
    hs__vz_puts(b, "</text>\n");
}

static void title(hs__vz_buf *b, const char *t, const char *sub)
{
    text(b, 10, 17, "font-size=\"14\" font-weight=\"bold\"", t);
    if (sub)
        text(b, 10, 33, "font-style=\"italic\"", sub);
}

/* Worst congested fraction among a view's links with data (-1 none). */
static double view_worst(const hs__vz_view *v)
{
    double w = -1;
    for (uint32_t i = 0; i < v->nrows; i++)
        if (v->row[i].state == HS__VZ_OK && v->row[i].cf > w)
            w = v->row[i].cf;
    return w;
}

/* ---- time per phase ----------------------------------------------------------------- */

int hs__vz_chart_phase_times(const hs_viz_model *m, hs__vz_buf *b)
{
    uint32_t n = 0;
    double max = 0;
    for (uint32_t i = 0; i < m->nphases; i++)
        if (m->phases[i].have_app && m->phases[i].time_ps > 0) {
            n++;
            max = fmax(max, (double)m->phases[i].time_ps);
        }
    if (!n)
        return 0;
    double h = TOP + n * ROW_H + 30;
    char t[64], sub[200], col[8];
    hs__vz_svg_open(b, CW, h, "Time per phase");
    if (m->app.have_time)
        snprintf(sub, sizeof sub, "time inside MPI per phase, summed over the ranks; the run "
                                  "takes %s; bar colour: the phase's worst congested fraction",
                 hs__vz_time(m->app.total_ps, t, sizeof t));
    else
        snprintf(sub, sizeof sub, "time inside MPI per phase, summed over the ranks; bar colour: "
                                  "the phase's worst congested fraction");
    title(b, "Time per phase", sub);
    double bw = CW - LABEL_W - 90;
    uint32_t row = 0;
    for (uint32_t i = 0; i < m->nphases; i++) {
        const hs__vz_view *v = &m->phases[i];
        if (!(v->have_app && v->time_ps > 0))
            continue;
        double y = TOP + row * ROW_H, w = bw * (double)v->time_ps / max;
        double worst = view_worst(v);
        text(b, LABEL_W - 6, y + 14, "text-anchor=\"end\"", v->name);
        hs__vz_puts(b, "<rect x=\"");
        hs__vz_num(b, LABEL_W);
        hs__vz_puts(b, "\" y=\"");
        hs__vz_num(b, y + 3);
        hs__vz_puts(b, "\" width=\"");
        hs__vz_num(b, fmax(w, 1));
        hs__vz_printf(b, "\" height=\"%.0f\" fill=\"%s\"%s><title>", ROW_H - 6,
                      worst >= 0 ? hs__vz_cf_hex(worst, col) : "#c8c8c8",
                      worst >= 0 ? "" : " stroke=\"" HS__VZ_COL_INSUFF "\" stroke-dasharray=\"3 2\"");
        hs__vz_esc(b, v->name);
        hs__vz_printf(b, ": %s in MPI (all ranks), %llu messages, ",
                      hs__vz_time((double)v->time_ps, t, sizeof t),
                      (unsigned long long)v->messages);
        hs__vz_printf(b, "%s", hs__vz_bytes((double)v->bytes, t, sizeof t));
        if (worst >= 0)
            hs__vz_printf(b, "; worst congested fraction %.3f", worst);
        else
            hs__vz_puts(b, "; no link with enough data in this phase");
        hs__vz_puts(b, "</title></rect>\n");
        text(b, LABEL_W + fmax(w, 1) + 6, y + 14, "", hs__vz_time((double)v->time_ps, t, sizeof t));
        row++;
    }
    hs__vz_svg_close(b);
    return 1;
}

/* ---- latency ------------------------------------------------------------------------- */

typedef struct lrow {
    const char       *name;
    const hs__vz_lat *lat;
    const char       *color;
} lrow;

/* log10 axis from lo to hi onto [x0, x1] */
static double lx(double v, double lo, double hi, double x0, double x1)
{
    return x0 + (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * (x1 - x0);
}

static void marker(hs__vz_buf *b, int kind, double x, double y, const char *col,
                   const char *what, double v)
{
    char t[64];
    switch (kind) {
    case 0: /* p50: filled circle */
        hs__vz_puts(b, "<circle cx=\"");
        hs__vz_num(b, x);
        hs__vz_puts(b, "\" cy=\"");
        hs__vz_num(b, y);
        hs__vz_printf(b, "\" r=\"4\" fill=\"%s\">", col);
        break;
    case 1: /* mean: open diamond */
        hs__vz_puts(b, "<path d=\"M");
        hs__vz_num(b, x);
        hs__vz_puts(b, " ");
        hs__vz_num(b, y - 5);
        hs__vz_printf(b, "l5 5l-5 5l-5 -5z\" fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"1.5\">",
                      col);
        break;
    case 2: /* p99: filled triangle */
        hs__vz_puts(b, "<path d=\"M");
        hs__vz_num(b, x);
        hs__vz_puts(b, " ");
        hs__vz_num(b, y - 5);
        hs__vz_printf(b, "l5 9h-10z\" fill=\"%s\">", col);
        break;
    default: /* max: cross */
        hs__vz_puts(b, "<path d=\"M");
        hs__vz_num(b, x - 4);
        hs__vz_puts(b, " ");
        hs__vz_num(b, y - 4);
        hs__vz_printf(b, "l8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"1.8\">", col);
        break;
    }
    hs__vz_printf(b, "<title>%s %s</title>", what, hs__vz_time(v, t, sizeof t));
    hs__vz_puts(b, kind == 0 ? "</circle>\n" : "</path>\n");
}

int hs__vz_chart_latency(const hs_viz_model *m, hs__vz_buf *b)
{
    const hs__vz_app *a = &m->app;
    if (!a->lat.have)
        return 0;
    lrow *rows = calloc(4 + a->nby_phase, sizeof *rows);
    char (*names)[96] = calloc(a->nby_phase + 1, sizeof *names);
    if (!rows || !names) {
        free(rows);
        free(names);
        b->oom = 1;
        return 0;
    }
    uint32_t n = 0;
    if (a->have_impact && a->iso_lat.have) {
        rows[n++] = (lrow){ "isolated (no background)", &a->iso_lat, "#2b7a3d" };
        rows[n++] = (lrow){ "with background", &a->cong_lat, "#b2182b" };
    }
    rows[n++] = (lrow){ "all messages", &a->lat, "#333333" };
    for (uint32_t i = 0; i < a->nby_phase; i++) {
        const char *pn = NULL;
        for (uint32_t k = 0; k < m->nphases; k++)
            if (m->phases[k].phase_id == a->by_phase[i].id)
                pn = m->phases[k].name;
        if (pn)
            snprintf(names[i], sizeof names[i], "phase %s", pn);
        else
            snprintf(names[i], sizeof names[i], "phase id %lld", (long long)a->by_phase[i].id);
        rows[n++] = (lrow){ names[i], &a->by_phase[i].lat, "#555555" };
    }
    /* axis range over every number shown */
    double lo = INFINITY, hi = 0;
    int hist = 0;
    for (uint32_t i = 0; i < n; i++) {
        const hs__vz_lat *l = rows[i].lat;
        if (!l->have)
            continue;
        double v[4] = { l->p50, l->mean, l->p99, l->max };
        for (int k = 0; k < 4; k++)
            if (isfinite(v[k]) && v[k] > 0) {
                lo = fmin(lo, v[k]);
                hi = fmax(hi, v[k]);
            }
        if (l->nbins) {
            hist = 1;
            if (l->edges[0] > 0)
                lo = fmin(lo, l->edges[0]);
            hi = fmax(hi, l->edges[l->nbins]);
        }
    }
    if (!(lo < INFINITY) || hi <= 0) {
        free(rows);
        free(names);
        return 0;
    }
    lo = pow(10, floor(log10(lo)));
    hi = pow(10, ceil(log10(hi * 1.0001)));
    if (hi <= lo)
        hi = lo * 10;
    double rh = hist ? 2 * ROW_H : ROW_H;
    double x0 = LABEL_W, x1 = CW - 30, top = TOP + 16;
    double h = top + n * rh + (a->have_impact ? 52 : 30);
    hs__vz_svg_open(b, CW, h, "Message latency");
    title(b, "Message latency (log scale)",
          hist ? "histograms of message latency (height: log of the count), with p50, mean, p99 "
                 "and max"
               : "distributions are not in analysis.json (no app.latency.histogram): markers "
                 "show p50, mean, p99 and max only");
    /* legend of the markers */
    static const char *mk[4] = { "p50", "mean", "p99", "max" };
    for (int k = 0; k < 4; k++) {
        double mx = x0 + k * 70;
        marker(b, k, mx, TOP + 2, "#333333", mk[k], k == 0 ? a->lat.p50 : k == 1 ? a->lat.mean
                                                              : k == 2 ? a->lat.p99 : a->lat.max);
        text(b, mx + 9, TOP + 6, "", mk[k]);
    }
    /* decades */
    for (double d = lo; d <= hi * 1.0001; d *= 10) {
        double x = lx(d, lo, hi, x0, x1);
        char t[64];
        hs__vz_puts(b, "<path d=\"M");
        hs__vz_num(b, x);
        hs__vz_puts(b, " ");
        hs__vz_num(b, top);
        hs__vz_puts(b, "V");
        hs__vz_num(b, top + n * rh + 4);
        hs__vz_puts(b, "\" stroke=\"#dddddd\"/>\n");
        text(b, x, top + n * rh + 18, "text-anchor=\"middle\"", hs__vz_time(d, t, sizeof t));
    }
    for (uint32_t i = 0; i < n; i++) {
        const hs__vz_lat *l = rows[i].lat;
        double y = top + i * rh + rh / 2;
        text(b, x0 - 8, y + 4, "text-anchor=\"end\"", rows[i].name);
        if (!l->have)
            continue;
        if (l->nbins) {
            /* messages per unit of log latency, on a log scale so that a
             * tail of a few hundred messages beside ten thousand shows:
             * height log10(1 + d) / log10(1 + dmax) of the row */
            double dmax = 0;
            for (uint32_t k = 0; k < l->nbins; k++) {
                double e0 = fmax(l->edges[k], lo), e1 = l->edges[k + 1];
                if (e1 > e0)
                    dmax = fmax(dmax, l->counts[k] / (log10(e1) - log10(e0)));
            }
            dmax = log10(1 + dmax);
            hs__vz_puts(b, "<path d=\"M");
            hs__vz_num(b, lx(fmax(l->edges[0], lo), lo, hi, x0, x1));
            hs__vz_puts(b, " ");
            hs__vz_num(b, y + rh / 2 - 2);
            for (uint32_t k = 0; k < l->nbins && dmax > 0; k++) {
                double e0 = fmax(l->edges[k], lo), e1 = l->edges[k + 1];
                double dens = e1 > e0 ? log10(1 + l->counts[k] / (log10(e1) - log10(e0))) / dmax : 0;
                double yy = y + rh / 2 - 2 - dens * (rh - 6);
                hs__vz_puts(b, "V");
                hs__vz_num(b, yy);
                hs__vz_puts(b, "H");
                hs__vz_num(b, lx(e1, lo, hi, x0, x1));
            }
            hs__vz_puts(b, "V");
            hs__vz_num(b, y + rh / 2 - 2);
            hs__vz_printf(b, "z\" fill=\"%s\" fill-opacity=\"0.25\" stroke=\"%s\" "
                             "stroke-width=\"1\"/>\n", rows[i].color, rows[i].color);
        }
        if (isfinite(l->p50) && isfinite(l->p99) && l->p50 > 0 && l->p99 > 0) {
            hs__vz_puts(b, "<path d=\"M");
            hs__vz_num(b, lx(l->p50, lo, hi, x0, x1));
            hs__vz_puts(b, " ");
            hs__vz_num(b, y);
            hs__vz_puts(b, "H");
            hs__vz_num(b, lx(l->p99, lo, hi, x0, x1));
            hs__vz_printf(b, "\" stroke=\"%s\" stroke-width=\"2\"/>\n", rows[i].color);
        }
        double v[4] = { l->p50, l->mean, l->p99, l->max };
        for (int k = 0; k < 4; k++)
            if (isfinite(v[k]) && v[k] > 0)
                marker(b, k, lx(v[k], lo, hi, x0, x1), y, rows[i].color, mk[k], v[k]);
    }
    char line[200];
    if (a->have_impact && isfinite(a->impact_latency_p99)) {
        snprintf(line, sizeof line, "Congestion Impact (GPCNeT): p99 latency x%.2f, bandwidth "
                                    "x%.2f, run time x%.2f with the background",
                 a->impact_latency_p99, a->impact_bandwidth, a->impact_runtime);
        text(b, 10, h - 10, "font-weight=\"bold\"", line);
    }
    hs__vz_svg_close(b);
    free(rows);
    free(names);
    return 1;
}

/* ---- windows ------------------------------------------------------------------------- */

int hs__vz_chart_windows(const hs_viz_model *m, hs__vz_buf *b)
{
    if (!m->nwindows)
        return 0;
    uint64_t t0 = m->windows[0].t0_ps, t1 = m->windows[0].t1_ps, cmax = 1;
    for (uint32_t i = 0; i < m->nwindows; i++) {
        const hs__vz_view *v = &m->windows[i];
        t0 = v->t0_ps < t0 ? v->t0_ps : t0;
        t1 = v->t1_ps > t1 ? v->t1_ps : t1;
        cmax = v->links_congested > cmax ? v->links_congested : cmax;
    }
    if (t1 <= t0)
        return 0;
    double x0 = 60, x1 = CW - 20, top = TOP + 6, ph = 140;
    double h = top + ph + 40;
    char t[64], col[8];
    hs__vz_svg_open(b, CW, h, "Congestion over time");
    title(b, "Congestion over time",
          "height: congested links in each time window; colour: the window's worst congested "
          "fraction (grey: no link with enough data)");
    /* axes */
    hs__vz_puts(b, "<path d=\"M");
    hs__vz_num(b, x0);
    hs__vz_puts(b, " ");
    hs__vz_num(b, top);
    hs__vz_puts(b, "V");
    hs__vz_num(b, top + ph);
    hs__vz_puts(b, "H");
    hs__vz_num(b, x1);
    hs__vz_puts(b, "\" fill=\"none\" stroke=\"#333333\"/>\n");
    snprintf(t, sizeof t, "%llu", (unsigned long long)cmax);
    text(b, x0 - 6, top + 4, "text-anchor=\"end\"", t);
    text(b, x0 - 6, top + ph + 4, "text-anchor=\"end\"", "0");
    text(b, x0, top + ph + 16, "text-anchor=\"middle\"", hs__vz_time((double)t0, t, sizeof t));
    text(b, x1, top + ph + 16, "text-anchor=\"middle\"", hs__vz_time((double)t1, t, sizeof t));
    text(b, (x0 + x1) / 2, top + ph + 32, "text-anchor=\"middle\"", "simulated time");
    double span = (double)(t1 - t0);
    for (uint32_t i = 0; i < m->nwindows; i++) {
        const hs__vz_view *v = &m->windows[i];
        double xa = x0 + (double)(v->t0_ps - t0) / span * (x1 - x0);
        double xb = x0 + (double)(v->t1_ps - t0) / span * (x1 - x0);
        double worst = view_worst(v);
        double hh = v->links_congested ? (double)v->links_congested / (double)cmax * (ph - 4) : 2;
        hs__vz_puts(b, "<rect x=\"");
        hs__vz_num(b, xa + 0.5);
        hs__vz_puts(b, "\" y=\"");
        hs__vz_num(b, top + ph - hh);
        hs__vz_puts(b, "\" width=\"");
        hs__vz_num(b, fmax(xb - xa - 1, 0.5));
        hs__vz_puts(b, "\" height=\"");
        hs__vz_num(b, hh);
        hs__vz_printf(b, "\" fill=\"%s\"><title>", worst >= 0 ? hs__vz_cf_hex(worst, col)
                                                             : "#c8c8c8");
        char ta[32], tb[32];
        hs__vz_printf(b, "%s to %s: %llu congested links, %llu with data, %u roots",
                      hs__vz_time((double)v->t0_ps, ta, sizeof ta),
                      hs__vz_time((double)v->t1_ps, tb, sizeof tb),
                      (unsigned long long)v->links_congested, (unsigned long long)v->links_ok,
                      v->nroots);
        if (worst >= 0)
            hs__vz_printf(b, "; worst congested fraction %.3f", worst);
        hs__vz_printf(b, "; %llu monitored packets", (unsigned long long)v->packets);
        hs__vz_puts(b, "</title></rect>\n");
    }
    hs__vz_svg_close(b);
    return 1;
}
