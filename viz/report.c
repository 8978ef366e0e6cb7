/* The documents: network pictures, small multiples per phase, the
 * comparison of two runs, the charts, and report.html holding them all.
 *
 * report.html is polyglot XHTML5: it parses as HTML in any browser and as
 * XML (so xmllint checks it), carries its SVG inline and needs no server,
 * script or network.  Order: the diagnosis in sentences first, then the
 * pictures, the per-phase table, accuracy against ground truth when the run
 * had it, and the commands that produced it all. */
#include "vz.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAD        10.0
#define HEAD_H     24.0     /* title line */
#define PANEL_W    640.0    /* small multiples: target width of one panel (two fit
                               side by side in the report at 1400 px) */
#define CMP_W      690.0    /* comparison: width of each run's picture */
#define PANEL_HEAD 30.0
#define ROW_W      1400.0   /* small multiples wrap beyond this width */
#define EVIDENCE_LINKS 8    /* links listed under a finding */

void hs_viz_options_default(hs_viz_options *o)
{
    memset(o, 0, sizeof *o);
    o->detail = HS_VIZ_DETAIL_AUTO;
    o->max_phases = 12;
    o->zoom = 3;
}

typedef struct ctx {
    const hs_viz_model *m, *c;
    const hs_viz_options *o;
    hs__vz_scene *sc, *psc;   /* m: the main picture and its details; small multiples */
    hs__vz_scene *ca, *cb;    /* comparison: m, and c when its network differs */
    size_t nsc, npsc, nca, ncb;
    hs__vz_est *dense;        /* scratch: a phase's estimates over all links */
    uint32_t *rnum;           /* scratch: a phase's root numbers */
    hs_viz_doc *docs;
    size_t ndocs;
    hs__vz_buf panels;        /* report.html: the phases' legend and panels, one svg each,
                                 which the browser wraps to its width */
    int rc;
} ctx;

static hs_viz_doc *add_doc(ctx *x, const char *name, hs__vz_buf *b)
{
    if (x->rc)
        return NULL;
    if (b->oom) {
        x->rc = HS_ENOMEM;
        return NULL;
    }
    hs_viz_doc *d = realloc(x->docs, (x->ndocs + 1) * sizeof *d);
    if (!d) {
        x->rc = HS_ENOMEM;
        return NULL;
    }
    x->docs = d;
    d = &x->docs[x->ndocs++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->text = b->s ? b->s : strdup("");
    d->len = b->n;
    memset(b, 0, sizeof *b);
    if (!d->text)
        x->rc = HS_ENOMEM;
    return d;
}

static const hs_viz_doc *find_doc(const ctx *x, const char *name)
{
    for (size_t i = 0; i < x->ndocs; i++)
        if (strcmp(x->docs[i].name, name) == 0)
            return &x->docs[i];
    return NULL;
}

static const char *label_of(const hs_viz_model *m, const char *given)
{
    return given ? given : m->run ? m->run : m->path;
}

/* ---- network pictures ---------------------------------------------------------- */

/* A scene's note, one line per '\n', in italics, its first baseline at y;
 * returns the height used. */
static double note(hs__vz_buf *b, const char *s, double y)
{
    double h = 0;
    while (s && *s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), s);
        hs__vz_puts(b, "<text x=\"10\" y=\"");
        hs__vz_num(b, y + h);
        hs__vz_puts(b, "\" font-style=\"italic\">");
        hs__vz_esc(b, line);
        hs__vz_puts(b, "</text>\n");
        h += 14;
        s = e ? e + 1 : NULL;
    }
    return h;
}

static double note_h(const char *s)
{
    double h = 0;
    while (s && *s) {
        h += 14;
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    return h;
}

/* The whole run's picture: title, legend, note, the main scene. */
static void network_svg(ctx *x)
{
    const hs_viz_model *m = x->m;
    const hs__vz_scene *s = &x->sc[0];
    hs__vz_buf b = { 0 };
    double w = fmax(s->w, HS__VZ_LEGEND_W + 2 * PAD);
    double top = HEAD_H + 4 + 46 + 4 + note_h(s->note);
    char title[600];
    snprintf(title, sizeof title, "Congestion over the whole run: %s", m->spec);
    hs__vz_svg_open(&b, w, top + s->h + PAD, title);
    hs__vz_puts(&b, "<text x=\"10\" y=\"17\" font-size=\"14\" font-weight=\"bold\">");
    hs__vz_esc(&b, title);
    hs__vz_puts(&b, "</text>\n");
    hs__vz_legend(&b, PAD, HEAD_H + 4, s->wmax, 0, "net-");
    note(&b, s->note, HEAD_H + 4 + 46 + 12);
    hs__vz_draw d = { m, m->est, m->root_num, 0, top, 1, 1, 1, "net-" };
    hs__vz_draw_scene(&b, s, &d);
    hs__vz_svg_close(&b);
    add_doc(x, "network.svg", &b);
}

/* Panels side by side, wrapping at ROW_W: returns the layout of n panels
 * of width pw and height ph. */
static void grid(size_t n, double pw, double ph, double *w, double *h, size_t *cols)
{
    size_t c = (size_t)fmax(1, floor((ROW_W - PAD) / (pw + PAD)));
    if (c > n)
        c = n ? n : 1;
    *cols = c;
    *w = PAD + c * (pw + PAD);
    *h = ((n + c - 1) / c) * (ph + PAD);
}

/* Zoomed parts of an aggregated picture (scenes 1..), at full size. */
static void detail_svg(ctx *x)
{
    const hs_viz_model *m = x->m;
    if (x->nsc < 2)
        return;
    double pw = 0, ph = 0;
    for (size_t i = 1; i < x->nsc; i++) {
        pw = fmax(pw, x->sc[i].w);
        ph = fmax(ph, x->sc[i].h + PANEL_HEAD);
    }
    double w, h;
    size_t cols;
    grid(x->nsc - 1, pw, ph, &w, &h, &cols);
    w = fmax(w, HS__VZ_LEGEND_W + 2 * PAD);
    double top = HEAD_H + 4 + 46 + 4 + note_h(x->sc[1].note);
    hs__vz_buf b = { 0 };
    hs__vz_svg_open(&b, w, top + h, "Congestion in detail: the most congested parts");
    hs__vz_puts(&b, "<text x=\"10\" y=\"17\" font-size=\"14\" font-weight=\"bold\">Congestion in "
                    "detail: the most congested parts, link by link</text>\n");
    hs__vz_legend(&b, PAD, HEAD_H + 4, x->sc[1].wmax, 0, "det-");
    note(&b, x->sc[1].note, HEAD_H + 4 + 46 + 12);
    for (size_t i = 1; i < x->nsc; i++) {
        size_t r = (i - 1) / cols, c = (i - 1) % cols;
        double px = PAD + c * (pw + PAD), py = top + r * (ph + PAD);
        hs__vz_puts(&b, "<text x=\"");
        hs__vz_num(&b, px);
        hs__vz_puts(&b, "\" y=\"");
        hs__vz_num(&b, py + 16);
        hs__vz_puts(&b, "\" font-size=\"12\" font-weight=\"bold\">");
        hs__vz_esc(&b, x->sc[i].title ? x->sc[i].title : "");
        hs__vz_puts(&b, "</text>\n");
        char idp[32];
        snprintf(idp, sizeof idp, "det%zu-", i);
        hs__vz_draw d = { m, m->est, m->root_num, px, py + PANEL_HEAD, 1, 1, 1, idp };
        hs__vz_draw_scene(&b, &x->sc[i], &d);
    }
    hs__vz_svg_close(&b);
    add_doc(x, "network-detail.svg", &b);
}

/* Phases drawn: those with data (links with enough packets), the
 * application's first, at most max, in their order in analysis.json.  The
 * others would be empty panels: they are named in one line instead
 * (empty_phases). */
static size_t pick_phases(const hs_viz_model *m, unsigned max, uint32_t *out)
{
    size_t n = 0;
    for (int pass = 0; pass < 2 && n < max; pass++)
        for (uint32_t i = 0; i < m->nphases && n < max; i++) {
            const hs__vz_view *v = &m->phases[i];
            if (v->nrows && (v->app ? 0 : 1) == pass)
                out[n++] = i;
        }
    /* back into analysis order */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            uint32_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* "No link has enough data in 1 phase of the application (...): up-down.
 * The phases of other jobs, never monitored: background alltoall, ...": the
 * phases without a panel, in one line of plain text (not escaped).
 * Nothing when every phase has data. */
static void empty_phases(hs__vz_buf *b, const hs_viz_model *m)
{
    for (int app = 1; app >= 0; app--) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < m->nphases; i++)
            n += !m->phases[i].nrows && (m->phases[i].app != 0) == app;
        if (!n)
            continue;
        if (app)
            hs__vz_printf(b, "No link has enough data in %u phase%s of the application "
                             "(too few monitored packets on any link): ",
                          n, n == 1 ? "" : "s");
        else
            hs__vz_printf(b, "%s%s phase%s of other jobs, never monitored: ",
                          b->n && b->s[b->n - 1] == '.' ? " " : "", n == 1 ? "One" : "The",
                          n == 1 ? "" : "s");
        uint32_t k = 0;
        for (uint32_t i = 0; i < m->nphases; i++)
            if (!m->phases[i].nrows && (m->phases[i].app != 0) == app) {
                hs__vz_puts(b, k++ ? ", " : "");
                hs__vz_puts(b, m->phases[i].name);
            }
        hs__vz_puts(b, ".");
    }
}

/* Root labels of a phase: the whole run's number where the link is one of
 * its roots, so R2 means one link everywhere in the report; the phase's
 * other roots are numbered after the whole run's. */
static uint32_t phase_root_number(const hs_viz_model *m, const hs__vz_view *v, uint32_t k)
{
    uint32_t rn = hs__vz_root_number(m, v->roots[k]);
    if (rn)
        return rn;
    uint32_t extra = 0;
    for (uint32_t j = 0; j < k; j++)
        extra += !hs__vz_root_number(m, v->roots[j]);
    return m->nroots + extra + 1;
}

static void view_roots(const hs_viz_model *m, const hs__vz_view *v, uint32_t *rnum)
{
    memset(rnum, 0, ((size_t)m->L + 1) * sizeof *rnum);
    for (uint32_t k = 0; k < v->nroots; k++)
        if (!rnum[v->roots[k]])
            rnum[v->roots[k]] = phase_root_number(m, v, k);
}

/* A phase's title lines at (px, py): its name, then its numbers. */
static void panel_head(hs__vz_buf *b, const hs__vz_view *v, double px, double py)
{
    hs__vz_puts(b, "<text x=\"");
    hs__vz_num(b, px);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, py + 13);
    hs__vz_puts(b, "\" font-size=\"12\" font-weight=\"bold\">");
    hs__vz_esc(b, v->name);
    hs__vz_puts(b, "</text><text x=\"");
    hs__vz_num(b, px);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, py + 26);
    hs__vz_puts(b, "\" font-size=\"10\">");
    if (v->kind) {
        hs__vz_esc(b, v->kind);
        hs__vz_puts(b, ": ");
    }
    hs__vz_printf(b, "%llu packets, %llu links with data, %llu congested, %u root%s</text>\n",
                  (unsigned long long)v->packets, (unsigned long long)v->links_ok,
                  (unsigned long long)v->links_congested, v->nroots, v->nroots == 1 ? "" : "s");
}

/* phases.svg: the phases with data on one scale, in a grid; and for the
 * report the same panels as separate pictures (x->panels) that the
 * browser lays out to its width. */
static void phases_svg(ctx *x)
{
    const hs_viz_model *m = x->m;
    if (m->nphases < 2) /* one phase is the whole run, drawn already */
        return;
    uint32_t *pick = malloc(m->nphases * sizeof *pick);
    if (!pick) {
        x->rc = HS_ENOMEM;
        return;
    }
    size_t n = pick_phases(m, x->o->max_phases ? x->o->max_phases : 1, pick);
    uint32_t with_data = 0;
    for (uint32_t i = 0; i < m->nphases; i++)
        with_data += m->phases[i].nrows > 0;
    hs__vz_buf empty = { 0 };
    empty_phases(&empty, m);
    hs__vz_buf *h = &x->panels;
    if (!n) { /* nothing to draw: the report says why */
        hs__vz_puts(h, "<p class=\"small\">");
        hs__vz_esc(h, empty.s ? empty.s : "");
        hs__vz_puts(h, "</p>\n");
        hs__vz_buf_free(&empty);
        free(pick);
        if (h->oom)
            x->rc = HS_ENOMEM;
        return;
    }
    const hs__vz_scene *s = &x->psc[0];
    double k = fmin(1, PANEL_W / s->w);
    double pw = s->w * k, ph = s->h * k + PANEL_HEAD;
    double w, gh;
    size_t cols;
    grid(n, pw, ph, &w, &gh, &cols);
    w = fmax(w, HS__VZ_LEGEND_W + 2 * PAD);
    char drawn[160];
    snprintf(drawn, sizeof drawn, "%zu of %u phases drawn: %s; widths scaled with the panels", n,
             m->nphases, n < with_data ? "those with data, up to --max-phases" : "those with data");
    double top = HEAD_H + 4 + 46 + 20;
    /* the empty phases' line under the note, cut to the picture's width */
    double line_w = w - 2 * PAD;
    size_t max_chars = (size_t)(line_w / 6.2);
    if (empty.n)
        top += 14;
    hs__vz_buf b = { 0 };
    hs__vz_svg_open(&b, w, top + gh, "Congestion per phase");
    hs__vz_puts(&b, "<text x=\"10\" y=\"17\" font-size=\"14\" font-weight=\"bold\">Congestion per "
                    "phase (same scale in every panel)</text>\n");
    hs__vz_legend(&b, PAD, HEAD_H + 4, s->wmax * k, 1, "ph-");
    hs__vz_puts(&b, "<text x=\"10\" y=\"");
    hs__vz_num(&b, HEAD_H + 4 + 46 + 12);
    hs__vz_puts(&b, "\" font-style=\"italic\">");
    hs__vz_esc(&b, drawn);
    hs__vz_puts(&b, " (the table lists all)</text>\n");
    if (empty.n) {
        hs__vz_puts(&b, "<text x=\"10\" y=\"");
        hs__vz_num(&b, HEAD_H + 4 + 46 + 26);
        hs__vz_puts(&b, "\" font-style=\"italic\">");
        size_t cut = empty.n;
        if (cut > max_chars) { /* cut at a character, not inside one */
            cut = max_chars > 3 ? max_chars - 3 : 0;
            while (cut > 0 && (empty.s[cut] & 0xC0) == 0x80)
                cut--;
        }
        char keep = empty.s[cut];
        empty.s[cut] = 0;
        hs__vz_esc(&b, empty.s);
        empty.s[cut] = keep;
        hs__vz_puts(&b, cut < empty.n ? "...</text>\n" : "</text>\n");
    }
    /* report.html: the legend alone, then a wrapping row of panels */
    hs__vz_svg_open(h, HS__VZ_LEGEND_W + 2 * PAD, HEAD_H + 4 + 46 + 4, "Legend of the phases");
    hs__vz_puts(h, "<text x=\"10\" y=\"17\" font-size=\"14\" font-weight=\"bold\">Congestion per "
                   "phase (same scale in every panel)</text>\n");
    hs__vz_legend(h, PAD, HEAD_H + 4, s->wmax * k, 1, "ph-");
    hs__vz_svg_close(h);
    hs__vz_puts(h, "<p class=\"small\">");
    hs__vz_esc(h, drawn);
    hs__vz_puts(h, ".");
    if (empty.n) {
        hs__vz_puts(h, " ");
        hs__vz_esc(h, empty.s);
    }
    hs__vz_puts(h, "</p>\n<div class=\"panels\">\n");
    for (size_t i = 0; i < n; i++) {
        const hs__vz_view *v = &m->phases[pick[i]];
        size_t r = i / cols, c = i % cols;
        double px = PAD + c * (pw + PAD), py = top + r * (ph + PAD);
        hs__vz_view_dense(m, v, x->dense);
        view_roots(m, v, x->rnum);
        char idp[32];
        snprintf(idp, sizeof idp, "ph%zu-", i);
        panel_head(&b, v, px, py);
        hs__vz_draw d = { m, x->dense, x->rnum, px, py + PANEL_HEAD, k, k >= 0.8, 1, idp };
        hs__vz_draw_scene(&b, s, &d);
        char title[200];
        snprintf(title, sizeof title, "Congestion in phase %s", v->name);
        hs__vz_svg_open(h, pw + 2 * PAD, ph, title);
        panel_head(h, v, PAD, 0);
        hs__vz_draw dh = { m, x->dense, x->rnum, PAD, PANEL_HEAD, k, k >= 0.8, 1, idp };
        hs__vz_draw_scene(h, s, &dh);
        hs__vz_svg_close(h);
    }
    hs__vz_puts(h, "</div>\n");
    hs__vz_svg_close(&b);
    if (h->oom || empty.oom)
        x->rc = HS_ENOMEM;
    hs__vz_buf_free(&empty);
    free(pick);
    add_doc(x, "phases.svg", &b);
}

/* Two runs side by side on one scale. */
static void compare_svg(ctx *x)
{
    const hs_viz_model *m = x->m, *c = x->c;
    if (!c)
        return;
    const hs__vz_scene *sa = &x->ca[0], *sb = x->ncb ? &x->cb[0] : &x->ca[0];
    double ka = fmin(1, CMP_W / sa->w), kb = fmin(1, CMP_W / sb->w);
    double pwa = sa->w * ka, pwb = sb->w * kb;
    double ph = fmax(sa->h * ka, sb->h * kb) + PANEL_HEAD + 14;
    double w = fmax(3 * PAD + pwa + pwb, HS__VZ_LEGEND_W + 2 * PAD);
    double top = HEAD_H + 4 + 46 + 8;
    hs__vz_buf b = { 0 };
    hs__vz_svg_open(&b, w, top + ph + PAD, "Two runs side by side");
    hs__vz_puts(&b, "<text x=\"10\" y=\"17\" font-size=\"14\" font-weight=\"bold\">Two runs side "
                    "by side (same scale)</text>\n");
    hs__vz_legend(&b, PAD, HEAD_H + 4, sa->wmax * ka, 0, "cmp-");
    const hs_viz_model *runs[2] = { m, c };
    const char *labels[2] = { label_of(m, x->o->label), label_of(c, x->o->compare_label) };
    for (int i = 0; i < 2; i++) {
        const hs_viz_model *r = runs[i];
        double px = i ? 2 * PAD + pwa : PAD;
        char t1[64], line[300];
        snprintf(line, sizeof line, "%s: %llu congested link%s, %u root%s, max CF %.2f%s%s",
                 i ? "B" : "A", (unsigned long long)r->links_congested,
                 r->links_congested == 1 ? "" : "s", r->nroots, r->nroots == 1 ? "" : "s",
                 isfinite(r->max_cf) ? r->max_cf : 0,
                 r->app.have_time ? ", predicted " : "",
                 r->app.have_time ? hs__vz_time(r->app.total_ps, t1, sizeof t1) : "");
        hs__vz_puts(&b, "<text x=\"");
        hs__vz_num(&b, px);
        hs__vz_puts(&b, "\" y=\"");
        hs__vz_num(&b, top + 13);
        hs__vz_puts(&b, "\" font-size=\"12\" font-weight=\"bold\">");
        hs__vz_esc(&b, labels[i]);
        hs__vz_puts(&b, "</text><text x=\"");
        hs__vz_num(&b, px);
        hs__vz_puts(&b, "\" y=\"");
        hs__vz_num(&b, top + 27);
        hs__vz_puts(&b, "\" font-size=\"10\">");
        hs__vz_esc(&b, line);
        hs__vz_puts(&b, "</text>\n");
        double k = i ? kb : ka;
        hs__vz_draw d = { r, r->est, r->root_num, px, top + PANEL_HEAD + 14, k, k >= 0.8, 1,
                          i ? "cmpb-" : "cmpa-" };
        hs__vz_draw_scene(&b, i ? sb : sa, &d);
    }
    hs__vz_svg_close(&b);
    add_doc(x, "compare.svg", &b);
}

static void chart_doc(ctx *x, const char *name, int (*fn)(const hs_viz_model *, hs__vz_buf *))
{
    hs__vz_buf b = { 0 };
    if (fn(x->m, &b))
        add_doc(x, name, &b);
    else
        hs__vz_buf_free(&b);
}

/* ---- report.html -------------------------------------------------------------------- */

static const char *kind_title(const char *k)
{
    if (strcmp(k, "pattern") == 0)
        return "Communication pattern";
    if (strcmp(k, "mapping") == 0)
        return "Mapping or bisection";
    if (strcmp(k, "interference") == 0)
        return "Interference from outside the job";
    if (strcmp(k, "none") == 0)
        return "No congestion found";
    if (strcmp(k, "undecided") == 0)
        return "Cannot judge: too little evidence";
    return k;
}

static void h_text(hs__vz_buf *b, const char *tag, const char *cls, const char *s)
{
    hs__vz_printf(b, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    hs__vz_esc(b, s);
    hs__vz_printf(b, "</%s>\n", tag);
}

static void est_cell(hs__vz_buf *b, const hs__vz_est *e)
{
    if (e->state == HS__VZ_OK)
        hs__vz_printf(b, "<td>%.3f \u00b1 %.3f</td>", e->cf < 0 ? 0 : e->cf > 1 ? 1 : e->cf,
                      e->cf_se);
    else
        hs__vz_puts(b, "<td>cannot be judged</td>");
}

static void diagnosis(hs__vz_buf *b, const hs_viz_model *m)
{
    char nm[300];
    hs__vz_puts(b, "<h2 id=\"diagnosis\">Diagnosis</h2>\n");
    if (!m->nfindings) {
        hs__vz_puts(b, "<p>The analysis made no finding.</p>\n");
        return;
    }
    hs__vz_puts(b, "<ol class=\"findings\">\n");
    for (uint32_t i = 0; i < m->nfindings; i++) {
        const hs__vz_finding *f = &m->findings[i];
        hs__vz_printf(b, "<li class=\"finding %s\">", f->kind);
        h_text(b, "h3", NULL, kind_title(f->kind));
        h_text(b, "p", NULL, f->summary);
        if (f->nlinks) {
            hs__vz_puts(b, "<table class=\"evidence\"><tr><th>link</th><th>congested fraction "
                           "\u00b1 SE</th><th>application's load over the run</th><th>traffic (packets)</th>"
                           "<th>root</th></tr>\n");
            for (uint32_t k = 0; k < f->nlinks && k < EVIDENCE_LINKS; k++) {
                uint32_t l = f->links[k];
                const hs__vz_est *e = &m->est[l];
                hs__vz_puts(b, "<tr><td>");
                hs__vz_esc(b, hs__vz_link_name(m, l, nm, sizeof nm));
                hs__vz_puts(b, "</td>");
                est_cell(b, e);
                hs__vz_printf(b, "<td>%s%.0f%%</td><td>%.0f</td><td>", e->load > 1 ? ">" : "",
                              100 * (e->load < 0 ? 0 : e->load > 1 ? 1 : e->load), e->traffic);
                uint32_t rn = hs__vz_root_number(m, l);
                if (rn)
                    hs__vz_printf(b, "R%u", rn);
                hs__vz_puts(b, "</td></tr>\n");
            }
            hs__vz_puts(b, "</table>\n");
            if (f->nlinks > EVIDENCE_LINKS)
                hs__vz_printf(b, "<p class=\"small\">and %u more links.</p>\n",
                              f->nlinks - EVIDENCE_LINKS);
        }
        hs__vz_puts(b, "<p class=\"small\">");
        if (f->nphases) {
            hs__vz_puts(b, "Phases: ");
            for (uint32_t k = 0; k < f->nphases; k++) {
                hs__vz_puts(b, k ? ", " : "");
                hs__vz_esc(b, f->phases[k]);
            }
            hs__vz_puts(b, ". ");
        }
        if (f->nnodes)
            hs__vz_printf(b, "%u node%s involved", f->nnodes, f->nnodes == 1 ? "" : "s");
        if (f->nranks)
            hs__vz_printf(b, "%s%u rank%s", f->nnodes ? ", " : "", f->nranks,
                          f->nranks == 1 ? "" : "s");
        if (f->nnodes || f->nranks)
            hs__vz_puts(b, ".");
        hs__vz_puts(b, "</p>\n");
        if (f->has_mapping) {
            hs__vz_puts(b, "<p><b>Try:</b> the suggested mapping <code>");
            hs__vz_esc(b, f->map_file ? f->map_file : "(no file)");
            hs__vz_puts(b, "</code>");
            if (isfinite(f->bytes_now) && isfinite(f->bytes_suggested) && f->bytes_now > 0)
                hs__vz_printf(b, ": the application's bytes times switch hops go from %.4g to "
                                 "%.4g (%.0f%% less)", f->bytes_now, f->bytes_suggested,
                              100 * (1 - f->bytes_suggested / f->bytes_now));
            hs__vz_puts(b, " (<code>hopscope simulate ... --map file:");
            hs__vz_esc(b, f->map_file ? f->map_file : "FILE");
            hs__vz_puts(b, "</code>).</p>\n");
        }
        hs__vz_puts(b, "</li>\n");
    }
    hs__vz_puts(b, "</ol>\n");
}

#define ROOT_ROWS 40 /* roots listed in the report's table */

/* Every root of the whole run with its numbers; the pictures name R1.. */
static void roots_table(hs__vz_buf *b, const hs_viz_model *m)
{
    char nm[300];
    if (!m->nroots)
        return;
    hs__vz_printf(b, "<h3>Roots of congestion trees (%u)</h3>\n<table class=\"roots\"><tr><th></th>"
                     "<th>link</th><th>congested fraction \u00b1 SE</th><th>application's load "
                     "in its bursts</th><th>where</th><th>tree</th><th>victims</th></tr>\n", m->nroots);
    for (uint32_t i = 0; i < m->nroots && i < ROOT_ROWS; i++) {
        const hs__vz_root *q = &m->roots[i];
        hs__vz_printf(b, "<tr><td>R%u</td><td>", i + 1);
        for (uint32_t k = 0; k < q->nlinks && k < 3; k++) {
            hs__vz_puts(b, k ? "; " : "");
            hs__vz_esc(b, hs__vz_link_name(m, q->links[k], nm, sizeof nm));
        }
        if (q->nlinks > 3)
            hs__vz_printf(b, "; and %u more", q->nlinks - 3);
        /* for people: CF and load clipped to [0, 1] (raw in analysis.json) */
        hs__vz_printf(b, "</td><td>%.3f \u00b1 %.3f</td><td>%s%.0f%%</td><td>%s</td>"
                         "<td>%u link%s</td><td>%u</td></tr>\n",
                      q->cf < 0 ? 0 : q->cf > 1 ? 1 : q->cf, q->cf_se,
                      q->load_peak > 1 ? ">" : "",
                      100 * (q->load_peak < 0 ? 0 : q->load_peak > 1 ? 1 : q->load_peak),
                      q->endpoint ? "into an endpoint" : "inside the network", q->ntree,
                      q->ntree == 1 ? "" : "s", q->nvictims);
    }
    hs__vz_puts(b, "</table>\n");
    if (m->nroots > ROOT_ROWS)
        hs__vz_printf(b, "<p class=\"small\">and %u more roots (analysis.json lists them all)."
                         "</p>\n", m->nroots - ROOT_ROWS);
}

static const hs__vz_lat *phase_lat(const hs_viz_model *m, int64_t id)
{
    for (uint32_t i = 0; i < m->app.nby_phase; i++)
        if (m->app.by_phase[i].id == id)
            return &m->app.by_phase[i].lat;
    return NULL;
}

/* A table cell with a number and its unit, kept on one line: the spaces
 * become no-break spaces and the cell does not wrap ("13.7 us", never
 * "13.7" over "us"). */
static void td_n(hs__vz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void td_n(hs__vz_buf *b, const char *fmt, ...)
{
    char t[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    hs__vz_puts(b, "<td class=\"n\">");
    for (const char *p = t; *p;) {
        const char *e = strchr(p, ' ');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char piece[128];
        memcpy(piece, p, n);
        piece[n] = 0;
        hs__vz_esc(b, piece);
        if (!e)
            break;
        hs__vz_puts(b, "&#160;");
        p = e + 1;
    }
    hs__vz_puts(b, "</td>");
}

static void phase_table(hs__vz_buf *b, const hs_viz_model *m)
{
    char t[64];
    if (!m->nphases)
        return;
    int app = 0;
    for (uint32_t i = 0; i < m->nphases; i++)
        app |= m->phases[i].have_app;
    hs__vz_puts(b, "<table class=\"phases\"><tr><th>phase</th><th>kind</th>");
    if (app)
        hs__vz_puts(b, "<th>messages</th><th>bytes</th><th>time in MPI (all ranks)</th>"
                       "<th>latency p50</th><th>p99</th>");
    hs__vz_puts(b, "<th>monitored packets</th><th>flagged</th><th>links with data</th>"
                   "<th>congested</th><th>roots</th></tr>\n");
    for (uint32_t i = 0; i < m->nphases; i++) {
        const hs__vz_view *v = &m->phases[i];
        /* short names stay on one line; long ones may wrap */
        hs__vz_puts(b, strlen(v->name) <= 24 ? "<tr><td class=\"n\">" : "<tr><td>");
        hs__vz_esc(b, v->name);
        hs__vz_puts(b, "</td><td>");
        hs__vz_esc(b, v->kind ? v->kind : "");
        hs__vz_puts(b, "</td>");
        if (app) {
            const hs__vz_lat *lt = v->phase_id >= 0 ? phase_lat(m, v->phase_id) : NULL;
            if (v->have_app) {
                td_n(b, "%llu", (unsigned long long)v->messages);
                td_n(b, "%s", hs__vz_bytes((double)v->bytes, t, sizeof t));
            } else {
                td_n(b, "-");
                td_n(b, "-");
            }
            /* other jobs' phases: the replay times only the application's calls */
            if (v->have_app && v->app)
                td_n(b, "%s", hs__vz_time((double)v->time_ps, t, sizeof t));
            else
                td_n(b, "-");
            td_n(b, "%s", lt ? hs__vz_time(lt->p50, t, sizeof t) : "-");
            td_n(b, "%s", lt ? hs__vz_time(lt->p99, t, sizeof t) : "-");
        }
        td_n(b, "%llu", (unsigned long long)v->packets);
        if (v->packets)
            td_n(b, "%.1f%%", 100.0 * (double)v->flagged / (double)v->packets);
        else
            td_n(b, "-");
        td_n(b, "%llu", (unsigned long long)v->links_ok);
        td_n(b, "%llu", (unsigned long long)v->links_congested);
        hs__vz_puts(b, "<td>");
        if (!v->nroots)
            hs__vz_puts(b, "-");
        char nm[300];
        for (uint32_t k = 0; k < v->nroots && k < 4; k++) {
            hs__vz_printf(b, "%sR%u ", k ? "; " : "", phase_root_number(m, v, k));
            hs__vz_esc(b, hs__vz_link_name(m, v->roots[k], nm, sizeof nm));
        }
        if (v->nroots > 4)
            hs__vz_printf(b, "; and %u more", v->nroots - 4);
        hs__vz_puts(b, "</td></tr>\n");
    }
    hs__vz_puts(b, "</table>\n");
}

static void accuracy(hs__vz_buf *b, const hs_viz_model *m)
{
    if (!m->nacc)
        return;
    hs__vz_puts(b, "<h2 id=\"accuracy\">Accuracy against the model's ground truth</h2>\n"
                   "<p>The run kept the true per-link counts; the estimates above are compared "
                   "with them on links with enough true packets.</p>\n"
                   "<table class=\"acc\"><tr><th>decoder</th><th>links</th><th>count</th>"
                   "<th>traffic error mean / max</th><th>with a CF</th>"
                   "<th>CF error mean / max</th><th>CF within 2 SE</th></tr>\n");
    for (uint32_t i = 0; i < m->nacc; i++) {
        const hs__vz_acc *a = &m->acc[i];
        for (uint32_t k = 0; k < a->nrows; k++) {
            const hs__vz_acc_row *r = &a->rows[k];
            hs__vz_puts(b, "<tr><td>");
            hs__vz_esc(b, a->decoder);
            hs__vz_puts(b, "</td><td>");
            hs__vz_esc(b, r->links_kind);
            hs__vz_printf(b, "</td><td>%.0f</td><td>%.2f%% / %.2f%%</td><td>%.0f</td>", r->links,
                          100 * r->traffic_mean, 100 * r->traffic_max, r->cf_links);
            if (r->cf_links > 0)
                hs__vz_printf(b, "<td>%.4f / %.4f</td><td>%.0f%%</td></tr>\n", r->cf_mean,
                              r->cf_max, 100 * r->cf_within_2se);
            else
                hs__vz_puts(b, "<td>-</td><td>-</td></tr>\n");
        }
    }
    hs__vz_puts(b, "</table>\n");
    for (uint32_t i = 0; i < m->nacc; i++) {
        const hs__vz_acc *a = &m->acc[i];
        if (!a->have_class || a->tp + a->fp + a->fn == 0)
            continue;
        hs__vz_puts(b, "<p>Congested links (");
        hs__vz_esc(b, a->decoder);
        hs__vz_printf(b, " decoder) against truth: %llu found, %llu false alarms, %llu missed, "
                         "%llu correctly clear.</p>\n",
                      (unsigned long long)a->tp, (unsigned long long)a->fp,
                      (unsigned long long)a->fn, (unsigned long long)a->tn);
    }
}

/* The heaviest node pairs with the latency model's expected latency under
 * the run's congestion and on an idle machine (docs/latmodel.md); a file
 * that does not read is said so in the report, never fatal. */
static void latmodel_section(hs__vz_buf *b, const char *path)
{
    hs_jdoc *d;
    hs_error e;
    hs__vz_puts(b, "<h2 id=\"latmodel\">Latency from link counters</h2>\n");
    if (hs_jdoc_load(path, 64u << 20, &d, &e)) {
        hs__vz_puts(b, "<p class=\"small\">");
        hs__vz_esc(b, e.msg);
        hs__vz_puts(b, "</p>\n");
        return;
    }
    const hs_jv *root = hs_jdoc_root(d);
    const char *fmt = hs_jv_str(d, hs_jv_get(d, root, "format"));
    const hs_jv *pairs = hs_jv_get(d, root, "pairs");
    if (!fmt || strcmp(fmt, "hopscope-latmodel-report") != 0 || hs_jv_kind(pairs) != HS_JV_ARR) {
        hs__vz_puts(b, "<p class=\"small\">");
        hs__vz_esc(b, path);
        hs__vz_puts(b, ": not a latmodel report</p>\n");
        hs_jdoc_free(d);
        return;
    }
    const char *model = hs_jv_str(d, hs_jv_get(d, root, "model"));
    const char *input = hs_jv_str(d, hs_jv_get(d, root, "input"));
    hs__vz_puts(b, "<p class=\"small\">The application's heaviest node pairs and the expected "
                   "latency of a message between them under this run's congestion (each link's "
                   "average ");
    hs__vz_esc(b, input && strcmp(input, "stall") ? "in-band congested fraction" : "stall");
    hs__vz_puts(b, ") and on an idle machine, from the model of Patke et al. fitted by "
                   "<code>hopscope latmodel fit</code> (model ");
    hs__vz_esc(b, model ? model : "?");
    hs__vz_puts(b, "); mean &plusmn; one standard deviation, ns.</p>\n<table><tr><th>nodes</th>"
                   "<th>bytes</th><th>messages</th><th>congested</th><th>idle</th>"
                   "<th>ratio</th></tr>\n");
    size_t n = hs_jv_len(pairs);
    for (size_t i = 0; i < n && i < 1000; i++) {
        const hs_jv *p = hs_jv_at(d, pairs, i);
        uint64_t src = 0, dst = 0, bytes = 0, msgs = 0;
        double mu = NAN, sd = NAN, imu = NAN, isd = NAN;
        int ex = 0;
        hs_jv_u64(hs_jv_get(d, p, "src"), &src);
        hs_jv_u64(hs_jv_get(d, p, "dst"), &dst);
        hs_jv_u64(hs_jv_get(d, p, "bytes"), &bytes);
        hs_jv_u64(hs_jv_get(d, p, "messages"), &msgs);
        hs_jv_double(hs_jv_get(d, p, "expected_ns"), &mu);
        hs_jv_double(hs_jv_get(d, p, "sd_ns"), &sd);
        hs_jv_double(hs_jv_get(d, p, "idle_expected_ns"), &imu);
        hs_jv_double(hs_jv_get(d, p, "idle_sd_ns"), &isd);
        hs_jv_bool(hs_jv_get(d, p, "extrapolated"), &ex);
        hs__vz_printf(b, "<tr><td>n%llu &rarr; n%llu%s</td><td>%llu</td><td>%llu</td>"
                         "<td>%.0f &plusmn; %.0f</td><td>%.0f &plusmn; %.0f</td><td>%.2f</td>"
                         "</tr>\n", (unsigned long long)src, (unsigned long long)dst,
                      ex ? " (extrapolated)" : "", (unsigned long long)bytes,
                      (unsigned long long)msgs, mu, sd, imu, isd, imu > 0 ? mu / imu : NAN);
    }
    hs__vz_puts(b, "</table>\n");
    hs_jdoc_free(d);
}

static void compare_table(hs__vz_buf *b, const ctx *x)
{
    const hs_viz_model *r[2] = { x->m, x->c };
    char t[64];
    hs__vz_puts(b, "<table class=\"cmp\"><tr><th></th><th>A: ");
    hs__vz_esc(b, label_of(x->m, x->o->label));
    hs__vz_puts(b, "</th><th>B: ");
    hs__vz_esc(b, label_of(x->c, x->o->compare_label));
    hs__vz_puts(b, "</th></tr>\n<tr><td>network</td>");
    for (int i = 0; i < 2; i++) {
        hs__vz_puts(b, "<td>");
        hs__vz_esc(b, r[i]->spec);
        hs__vz_puts(b, "</td>");
    }
    hs__vz_puts(b, "</tr>\n<tr><td>mapping</td>");
    for (int i = 0; i < 2; i++) {
        hs__vz_puts(b, "<td>");
        hs__vz_esc(b, r[i]->app.map_policy ? r[i]->app.map_policy : "-");
        if (r[i]->app.map_param && *r[i]->app.map_param) {
            hs__vz_puts(b, ":");
            hs__vz_esc(b, r[i]->app.map_param);
        }
        hs__vz_puts(b, "</td>");
    }
    hs__vz_puts(b, "</tr>\n<tr><td>predicted time</td>");
    for (int i = 0; i < 2; i++)
        hs__vz_printf(b, "<td>%s</td>", r[i]->app.have_time
                                            ? hs__vz_time(r[i]->app.total_ps, t, sizeof t)
                                            : "-");
    hs__vz_puts(b, "</tr>\n<tr><td>latency p99</td>");
    for (int i = 0; i < 2; i++)
        hs__vz_printf(b, "<td>%s</td>",
                      r[i]->app.lat.have ? hs__vz_time(r[i]->app.lat.p99, t, sizeof t) : "-");
    hs__vz_puts(b, "</tr>\n<tr><td>congested links</td>");
    for (int i = 0; i < 2; i++)
        hs__vz_printf(b, "<td>%llu</td>", (unsigned long long)r[i]->links_congested);
    hs__vz_puts(b, "</tr>\n<tr><td>roots</td>");
    for (int i = 0; i < 2; i++)
        hs__vz_printf(b, "<td>%u</td>", r[i]->nroots);
    hs__vz_puts(b, "</tr>\n<tr><td>worst congested fraction</td>");
    for (int i = 0; i < 2; i++)
        hs__vz_printf(b, "<td>%.3f</td>", isfinite(r[i]->max_cf) ? r[i]->max_cf : 0);
    hs__vz_puts(b, "</tr>\n<tr><td>first finding</td>");
    for (int i = 0; i < 2; i++) {
        hs__vz_puts(b, "<td>");
        hs__vz_esc(b, r[i]->nfindings ? kind_title(r[i]->findings[0].kind) : "-");
        hs__vz_puts(b, "</td>");
    }
    hs__vz_puts(b, "</tr>\n</table>\n");
}

/* Inline an SVG document (no XML declaration to strip: we never write one). */
static void inline_doc(hs__vz_buf *b, const ctx *x, const char *name, const char *caption)
{
    const hs_viz_doc *d = find_doc(x, name);
    if (!d)
        return;
    hs__vz_puts(b, "<figure><div class=\"pic\">\n");
    hs__vz_putn(b, d->text, d->len);
    hs__vz_puts(b, "</div>");
    if (caption) {
        hs__vz_puts(b, "<figcaption>");
        hs__vz_esc(b, caption);
        hs__vz_printf(b, " (also <a href=\"%s\">%s</a>)</figcaption>", name, name);
    }
    hs__vz_puts(b, "</figure>\n");
}

/* The layout holds from a 1024 px window up: pictures shrink to the page's
 * width (their viewBox keeps the proportions; the files beside the report
 * are full size), phase panels wrap, numbers keep their units on their line
 * (td.n), long words in text and commands break rather than push the page
 * wider.  tests/integration/viz.sh checks it in Chromium at 1024, 1400 and
 * 1920 px. */
static const char CSS[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px;color:#1a1a1a;"
    "max-width:1500px;overflow-wrap:break-word}\n"
    "h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;"
    "border-bottom:1px solid #ccc}h3{font-size:15px;margin:4px 0}\n"
    ".meta{color:#555;font-size:13px}.small{font-size:12px;color:#444}\n"
    ".warn{border-left:4px solid #b00;background:#fff3f3;padding:6px 10px}\n"
    ".caveat{border-left:4px solid #c0392b;padding:4px 8px;background:#fdf2f0}\n"
    "ol.findings{padding-left:22px}li.finding{margin-bottom:14px}\n"
    "li.pattern h3{color:#a1283a}li.mapping h3{color:#7a3d00}li.interference h3{color:#1f4e8c}\n"
    "table{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#f2f2f2}"
    "td{overflow-wrap:anywhere}td.n,table.evidence td+td,table.roots td:nth-child(n+3),"
    "table.acc td{white-space:nowrap;overflow-wrap:normal}\n"
    ".pic{overflow:auto;border:1px solid #e4e4e4}figure{margin:10px 0}"
    "svg{display:block;max-width:100%;height:auto}"
    ".panels{display:flex;flex-wrap:wrap;gap:10px}.panels svg{border:1px solid #e4e4e4}"
    "figcaption{font-size:12px;color:#444}\n"
    "code,pre{font-family:'DejaVu Sans Mono',monospace;font-size:12px}"
    "pre{background:#f6f6f6;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}\n";

static void report_html(ctx *x)
{
    const hs_viz_model *m = x->m;
    hs__vz_buf b = { 0 };
    char t[64];
    hs__vz_puts(&b, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
                    "<head><meta charset=\"utf-8\"/><title>hopscope report: ");
    hs__vz_esc(&b, label_of(m, x->o->label));
    hs__vz_puts(&b, "</title>\n<style>");
    hs__vz_puts(&b, CSS);
    hs__vz_puts(&b, "</style></head>\n<body>\n<h1>Where the messages met congestion</h1>\n"
                    "<p class=\"meta\">");
    hs__vz_esc(&b, label_of(m, x->o->label));
    hs__vz_puts(&b, " &#8212; ");
    hs__vz_esc(&b, m->spec);
    hs__vz_printf(&b, " (%u nodes, %u switches, %u links)", m->N, m->S, m->L);
    if (m->app.have) {
        hs__vz_printf(&b, "; %llu ranks", (unsigned long long)m->app.ranks);
        if (m->app.map_policy) {
            hs__vz_puts(&b, ", mapping ");
            hs__vz_esc(&b, m->app.map_policy);
        }
        if (m->app.have_time)
            hs__vz_printf(&b, ", predicted time %s", hs__vz_time(m->app.total_ps, t, sizeof t));
        if (m->app.background) {
            hs__vz_puts(&b, ", background ");
            hs__vz_esc(&b, m->app.background);
        }
    }
    hs__vz_printf(&b, ". %llu links judged by their own estimate, %llu congested (congested "
                      "fraction above %.2f at %.3g standard errors), %u root%s",
                  (unsigned long long)m->links_ok, (unsigned long long)m->links_congested,
                  m->cf_threshold, m->z, m->nroots, m->nroots == 1 ? "" : "s");
    /* the roots by finding, so the header's count is the findings' */
    int any = 0;
    for (uint32_t i = 0; i < m->nfindings; i++)
        if (m->findings[i].root_count) {
            hs__vz_printf(&b, "%s%s %u", any ? ", " : " (", m->findings[i].kind,
                          m->findings[i].root_count);
            any = 1;
        }
    hs__vz_puts(&b, any ? ")." : ".");
    if (m->decoder) {
        hs__vz_puts(&b, " Decoder: ");
        hs__vz_esc(&b, m->decoder);
        hs__vz_puts(&b, ".");
    }
    hs__vz_puts(&b, "</p>\n");
    if (m->replay_status) {
        hs__vz_puts(&b, "<p class=\"warn\"><b>The replay did not complete (");
        hs__vz_esc(&b, m->replay_status);
        hs__vz_puts(&b, ").</b> ");
        if (m->replay_caveat)
            hs__vz_esc(&b, m->replay_caveat);
        hs__vz_puts(&b, "</p>\n");
    }
    if (m->caveats && *m->caveats) {
        /* lost or sampled packets: said before any figure they bias */
        hs__vz_puts(&b, "<p class=\"caveat\"><b>Measurement:</b> ");
        hs__vz_esc(&b, m->caveats);
        hs__vz_puts(&b, "</p>\n");
    }
    diagnosis(&b, m);

    hs__vz_puts(&b, "<h2 id=\"network\">Where: the network</h2>\n<p class=\"small\">Dark links "
                    "are congested; thick links carry the application's own traffic; dark and "
                    "thin means someone else's traffic congests a link the application uses. "
                    "Each cable is split in the middle: each half is the link leaving the "
                    "device at its end. Hover over a link for its numbers.</p>\n");
    inline_doc(&b, x, "network.svg", "The whole run");
    inline_doc(&b, x, "network-detail.svg", "The most congested parts, link by link");
    roots_table(&b, m);
    if (m->nphases) {
        hs__vz_puts(&b, "<h2 id=\"phases\">When: phases</h2>\n");
        phase_table(&b, m);
        if (x->panels.n) {
            hs__vz_puts(&b, "<figure>\n");
            hs__vz_putn(&b, x->panels.s, x->panels.n);
            if (find_doc(x, "phases.svg"))
                hs__vz_puts(&b, "<figcaption>Each phase on the same scale (also <a "
                                "href=\"phases.svg\">phases.svg</a>)</figcaption>");
            hs__vz_puts(&b, "</figure>\n");
        }
    }
    if (find_doc(x, "phase-times.svg"))
        inline_doc(&b, x, "phase-times.svg", "Time per phase");
    if (find_doc(x, "windows.svg")) {
        hs__vz_puts(&b, "<h2 id=\"time\">When: time windows</h2>\n");
        inline_doc(&b, x, "windows.svg", "Congestion over time");
    }
    if (find_doc(x, "latency.svg")) {
        hs__vz_puts(&b, "<h2 id=\"latency\">Message latency</h2>\n");
        inline_doc(&b, x, "latency.svg", "Latency of the application's messages");
    }
    if (x->o->latmodel_report)
        latmodel_section(&b, x->o->latmodel_report);
    if (x->c) {
        hs__vz_puts(&b, "<h2 id=\"compare\">Two runs compared</h2>\n");
        compare_table(&b, x);
        inline_doc(&b, x, "compare.svg", "A and B side by side");
    }
    accuracy(&b, m);
    /* every step in the order it ran; a step this run does not know of is
     * said so, not left out */
    hs__vz_puts(&b, "<h2 id=\"commands\">How this report was made</h2>\n<pre>");
    if (m->app.have) {
        hs__vz_puts(&b, "# the application, as its trace's manifest records it\n");
        hs__vz_esc(&b, m->app.command && *m->app.command ? m->app.command : "(not recorded)");
        hs__vz_puts(&b, "\n# the replay: machine, mapping, background\n");
        hs__vz_esc(&b, m->app.sim_command ? m->app.sim_command
                                          : "(not recorded: app.json from an older hopscope "
                                            "or the library)");
        hs__vz_puts(&b, "\n");
    } else {
        hs__vz_puts(&b, "# synthetic traffic, no application: see the run's manifest.json\n");
    }
    hs__vz_puts(&b, "# the analysis\n");
    hs__vz_esc(&b, m->command ? m->command : "(not recorded: analysed by the library)");
    hs__vz_puts(&b, "\n# the pictures and this report\n");
    hs__vz_esc(&b, x->o->command ? x->o->command : "(not recorded)");
    hs__vz_puts(&b, "\n");
    hs__vz_puts(&b, "</pre>\n<p class=\"small\">hopscope ");
    hs__vz_esc(&b, HS_VERSION);
    hs__vz_puts(&b, "; analysis by hopscope ");
    hs__vz_esc(&b, m->hopscope ? m->hopscope : "?");
    hs__vz_puts(&b, "; how to read the pictures: docs/viz.md.</p>\n</body>\n</html>\n");
    add_doc(x, "report.html", &b);
}

/* ---- entry points ----------------------------------------------------------------------- */

static int same_network(const hs_viz_model *a, const hs_viz_model *b)
{
    return a->N == b->N && a->S == b->S && a->L == b->L && strcmp(a->spec, b->spec) == 0;
}

int hs_viz_render(const hs_viz_model *m, const hs_viz_model *cmp, const hs_viz_options *o,
                  hs_viz_doc **docs, size_t *ndocs, hs_error *err)
{
    hs_viz_options def;
    if (!o) {
        hs_viz_options_default(&def);
        o = &def;
    }
    *docs = NULL;
    *ndocs = 0;
    ctx x = { 0 };
    x.m = m;
    x.c = cmp;
    x.o = o;
    hs__vz_layout_opts lo = { o->detail, o->zoom, m->est, 0, 0, 0 };
    hs__vz_layout_opts lp = { o->detail, 0, m->est, 1, 2 * PANEL_W, 0 };
    /* two runs side by side: the colours are the point, and the findings
     * are A's (its network picture names their devices) */
    hs__vz_layout_opts lc = { o->detail, 0, m->est, 0, CMP_W, 1 };
    x.rc = hs__vz_layout(m, &lo, &x.sc, &x.nsc);
    if (!x.rc && m->nphases > 1)
        x.rc = hs__vz_layout(m, &lp, &x.psc, &x.npsc);
    if (!x.rc && cmp)
        x.rc = hs__vz_layout(m, &lc, &x.ca, &x.nca);
    if (!x.rc && cmp && !same_network(m, cmp)) {
        lc.rank_by = cmp->est;
        x.rc = hs__vz_layout(cmp, &lc, &x.cb, &x.ncb);
    }
    if (!x.rc) {
        x.dense = malloc(((size_t)m->L + 1) * sizeof *x.dense);
        x.rnum = malloc(((size_t)m->L + 1) * sizeof *x.rnum);
        if (!x.dense || !x.rnum)
            x.rc = HS_ENOMEM;
    }
    if (!x.rc)
        network_svg(&x);
    detail_svg(&x);
    if (!x.rc)
        phases_svg(&x);
    if (!x.rc)
        compare_svg(&x);
    if (!x.rc) {
        chart_doc(&x, "phase-times.svg", hs__vz_chart_phase_times);
        chart_doc(&x, "windows.svg", hs__vz_chart_windows);
        chart_doc(&x, "latency.svg", hs__vz_chart_latency);
    }
    if (!x.rc)
        report_html(&x);
    hs__vz_scene *all[4] = { x.sc, x.psc, x.ca, x.cb };
    size_t nall[4] = { x.nsc, x.npsc, x.nca, x.ncb };
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < nall[k]; i++)
            hs__vz_scene_free(&all[k][i]);
        free(all[k]);
    }
    free(x.dense);
    free(x.rnum);
    hs__vz_buf_free(&x.panels);
    if (x.rc) {
        hs_viz_docs_free(x.docs, x.ndocs);
        return hs_error_set(err, x.rc, "rendering %s: %s", m->path, hs_strerror(x.rc));
    }
    *docs = x.docs;
    *ndocs = x.ndocs;
    return 0;
}

void hs_viz_docs_free(hs_viz_doc *docs, size_t ndocs)
{
    for (size_t i = 0; i < ndocs; i++)
        free(docs[i].text);
    free(docs);
}

int hs_viz_write(const char *dir, const hs_viz_doc *docs, size_t ndocs, hs_error *err)
{
    int rc = hs_mkdir_p(dir, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < ndocs; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, docs[i].name);
        FILE *f = fopen(path, "wb");
        if (!f)
            return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
        size_t w = fwrite(docs[i].text, 1, docs[i].len, f);
        int bad = w != docs[i].len || ferror(f);
        if (fclose(f) != 0 || bad)
            return hs_error_set(err, HS_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return 0;
}
