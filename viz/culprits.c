/* The culprit model's pictures: culprits.svg (feature importances as bars,
 * predicted against measured run times of the held-out runs) and
 * culprits.html (the picture with the tables), from culprits.json only
 * (docs/formats.md, "culprits.json"), as the report is drawn from
 * analysis.json.  The reader is strict: a file of another format or
 * version, or a non-number where a number belongs, is rejected with its
 * byte offset. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS   20       /* features drawn as bars (the table lists all) */
#define BAR_ROW    20.0
#define W          1040.0
#define BARS_X     230.0    /* bars start here, feature names end here */
#define BARS_W     250.0
#define SC_X       600.0    /* scatter plot */
#define SC_W       380.0
#define TOP        60.0
#define COL_GAIN   "#1f4e8c"
#define COL_PERM   "#d9822b"
#define COL_TEST   "#1f4e8c"
#define COL_GEN    "#c0392b"

typedef struct pt { double meas, pred; } pt;
typedef struct feat { const char *name; double gain, perm, perm_sd; } feat;

typedef struct cul {
    const hs_jdoc *d;
    const char    *name;
    hs_error      *err;
    int            rc;
} cul;

static int bad(cul *c, const hs_jv *v, const char *what)
{
    if (!c->rc)
        c->rc = hs_error_set(c->err, HS_EFORMAT, "%s: offset %zu: %s", c->name,
                             v ? hs_jv_offset(v) : 0, what);
    return c->rc;
}

/* A number, or null for "not defined" (NaN). */
static double num(cul *c, const hs_jv *obj, const char *key)
{
    const hs_jv *v = hs_jv_get(c->d, obj, key);
    double x;
    if (hs_jv_kind(v) == HS_JV_NULL)
        return NAN;
    if (hs_jv_double(v, &x)) {
        char m[96];
        snprintf(m, sizeof m, "\"%.40s\" must be a number", key);
        bad(c, v ? v : obj, m);
        return NAN;
    }
    return x;
}

static const char *str(cul *c, const hs_jv *obj, const char *key)
{
    const hs_jv *v = hs_jv_get(c->d, obj, key);
    const char *s = hs_jv_str(c->d, v);
    if (!s) {
        char m[96];
        snprintf(m, sizeof m, "\"%.40s\" must be a string", key);
        bad(c, v ? v : obj, m);
        return "";
    }
    return s;
}

static const hs_jv *arr(cul *c, const hs_jv *obj, const char *key, int nullable)
{
    const hs_jv *v = hs_jv_get(c->d, obj, key);
    if (nullable && hs_jv_kind(v) == HS_JV_NULL)
        return NULL;
    if (hs_jv_kind(v) != HS_JV_ARR) {
        char m[96];
        snprintf(m, sizeof m, "\"%.40s\" must be an array", key);
        bad(c, v ? v : obj, m);
        return NULL;
    }
    return v;
}

static const hs_jv *obj_of(cul *c, const hs_jv *obj, const char *key, int nullable)
{
    const hs_jv *v = hs_jv_get(c->d, obj, key);
    if (nullable && hs_jv_kind(v) == HS_JV_NULL)
        return NULL;
    if (hs_jv_kind(v) != HS_JV_OBJ) {
        char m[96];
        snprintf(m, sizeof m, "\"%.40s\" must be an object", key);
        bad(c, v ? v : obj, m);
        return NULL;
    }
    return v;
}

static pt *points(cul *c, const hs_jv *a, size_t *n)
{
    *n = hs_jv_len(a);
    pt *p = malloc((*n ? *n : 1) * sizeof *p);
    if (!p) {
        c->rc = hs_error_set(c->err, HS_ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < *n && !c->rc; i++) {
        const hs_jv *r = hs_jv_at(c->d, a, i);
        if (hs_jv_kind(r) != HS_JV_OBJ) {
            bad(c, r, "a run must be an object");
            break;
        }
        p[i].meas = num(c, r, "measured");
        p[i].pred = num(c, r, "predicted");
    }
    return p;
}

static void fmtn(hs__vz_buf *b, double v)
{
    if (isfinite(v))
        hs__vz_printf(b, "%.4g", v);
    else
        hs__vz_puts(b, "n/a");
}

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

static void rect(hs__vz_buf *b, double x, double y, double w, double h, const char *fill)
{
    hs__vz_puts(b, "<rect x=\"");
    hs__vz_num(b, x);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, y);
    hs__vz_puts(b, "\" width=\"");
    hs__vz_num(b, w);
    hs__vz_puts(b, "\" height=\"");
    hs__vz_num(b, h);
    hs__vz_printf(b, "\" fill=\"%s\"/>\n", fill);
}

static void line(hs__vz_buf *b, double x0, double y0, double x1, double y1, const char *attrs)
{
    hs__vz_puts(b, "<line x1=\"");
    hs__vz_num(b, x0);
    hs__vz_puts(b, "\" y1=\"");
    hs__vz_num(b, y0);
    hs__vz_puts(b, "\" x2=\"");
    hs__vz_num(b, x1);
    hs__vz_puts(b, "\" y2=\"");
    hs__vz_num(b, y1);
    hs__vz_printf(b, "\" %s/>\n", attrs);
}

static void svg(hs__vz_buf *b, const char *target, double rcc, double r2, const feat *f, size_t nf,
                const pt *te, size_t nte, const pt *ge, size_t nge, double grcc, double gr2)
{
    size_t nb = nf < MAX_BARS ? nf : MAX_BARS;
    double bars_h = (double)nb * BAR_ROW;
    double h = TOP + fmax(bars_h, SC_W) + 90;
    char s[256];
    hs__vz_svg_open(b, W, h, "Which feature explains the run time");
    text(b, 10, 18, "font-size=\"14\" font-weight=\"bold\"", "Which feature explains the run time");
    snprintf(s, sizeof s, "left: importance of the %zu most important features (of %zu); right: "
             "predicted against measured %s of the held-out runs", nb, nf, target);
    text(b, 10, 34, "font-style=\"italic\"", s);
    /* bars: gain share and permutation importance on one axis */
    double max = 1e-12;
    for (size_t i = 0; i < nb; i++) {
        if (isfinite(f[i].gain))
            max = fmax(max, f[i].gain);
        if (isfinite(f[i].perm))
            max = fmax(max, f[i].perm);
    }
    rect(b, BARS_X, TOP - 14, 10, 8, COL_GAIN);
    text(b, BARS_X + 14, TOP - 6, "font-size=\"10\"", "gain share");
    rect(b, BARS_X + 90, TOP - 14, 10, 8, COL_PERM);
    text(b, BARS_X + 104, TOP - 6, "font-size=\"10\"", "held-out R\xc2\xb2 lost when permuted");
    for (size_t i = 0; i < nb; i++) {
        double y = TOP + (double)i * BAR_ROW;
        text(b, BARS_X - 6, y + 13, "text-anchor=\"end\"", f[i].name);
        double g = isfinite(f[i].gain) ? fmax(f[i].gain, 0) : 0;
        double q = isfinite(f[i].perm) ? fmax(f[i].perm, 0) : 0;
        hs__vz_puts(b, "<g><title>");
        hs__vz_esc(b, f[i].name);
        hs__vz_puts(b, ": gain share ");
        fmtn(b, f[i].gain);
        hs__vz_puts(b, ", permutation ");
        fmtn(b, f[i].perm);
        hs__vz_puts(b, " \xc2\xb1 ");
        fmtn(b, f[i].perm_sd);
        hs__vz_puts(b, "</title>\n");
        rect(b, BARS_X, y + 2, fmax(BARS_W * g / max, 0.5), 7, COL_GAIN);
        rect(b, BARS_X, y + 10, fmax(BARS_W * q / max, 0.5), 7, COL_PERM);
        hs__vz_puts(b, "</g>\n");
        hs__vz_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">", BARS_X + BARS_W * fmax(g, q) / max + 4, y + 13);
        fmtn(b, f[i].gain);
        hs__vz_puts(b, " / ");
        fmtn(b, f[i].perm);
        hs__vz_puts(b, "</text>\n");
    }
    /* scatter: predicted against measured, both on the same scale */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nte; i++)
        if (isfinite(te[i].meas) && isfinite(te[i].pred)) {
            lo = fmin(lo, fmin(te[i].meas, te[i].pred));
            hi = fmax(hi, fmax(te[i].meas, te[i].pred));
        }
    for (size_t i = 0; i < nge; i++)
        if (isfinite(ge[i].meas) && isfinite(ge[i].pred)) {
            lo = fmin(lo, fmin(ge[i].meas, ge[i].pred));
            hi = fmax(hi, fmax(ge[i].meas, ge[i].pred));
        }
    double x0 = SC_X, y0 = TOP, sz = SC_W;
    hs__vz_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                  "stroke=\"#999\"/>\n", x0, y0, sz, sz);
    if (lo < hi) {
        double pad = (hi - lo) * 0.04;
        lo -= pad, hi += pad;
        line(b, x0, y0 + sz, x0 + sz, y0, "stroke=\"#bbb\" stroke-dasharray=\"4 3\"");
        for (int k = 0; k <= 4; k++) {
            double v = lo + (hi - lo) * k / 4, px = x0 + sz * k / 4, py = y0 + sz - sz * k / 4;
            snprintf(s, sizeof s, "%.3g", v);
            text(b, px, y0 + sz + 14, "text-anchor=\"middle\" font-size=\"9\"", s);
            text(b, x0 - 4, py + 3, "text-anchor=\"end\" font-size=\"9\"", s);
        }
        for (int set = 0; set < 2; set++) {
            const pt *p = set ? ge : te;
            size_t n = set ? nge : nte;
            for (size_t i = 0; i < n; i++) {
                if (!isfinite(p[i].meas) || !isfinite(p[i].pred))
                    continue;
                double px = x0 + sz * (p[i].meas - lo) / (hi - lo);
                double py = y0 + sz - sz * (p[i].pred - lo) / (hi - lo);
                hs__vz_puts(b, "<circle cx=\"");
                hs__vz_num(b, px);
                hs__vz_puts(b, "\" cy=\"");
                hs__vz_num(b, py);
                hs__vz_printf(b, "\" r=\"2.5\" fill=\"%s\" fill-opacity=\"0.6\"/>\n",
                              set ? COL_GEN : COL_TEST);
            }
        }
    }
    snprintf(s, sizeof s, "measured %s", target);
    text(b, x0 + sz / 2, y0 + sz + 30, "text-anchor=\"middle\"", s);
    snprintf(s, sizeof s, "predicted %s", target);
    hs__vz_printf(b, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">",
                  x0 - 44, y0 + sz / 2);
    hs__vz_esc(b, s);
    hs__vz_puts(b, "</text>\n");
    double ly = y0 + sz + 48;   /* legend rows below the axis title */
    hs__vz_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x0 + 6, ly - 4,
                  COL_TEST);
    hs__vz_puts(b, "<text x=\"");
    hs__vz_num(b, x0 + 12);
    hs__vz_puts(b, "\" y=\"");
    hs__vz_num(b, ly);
    hs__vz_printf(b, "\" font-size=\"10\">held-out runs (%zu): RCC ", nte);
    fmtn(b, rcc);
    hs__vz_puts(b, ", R\xc2\xb2 ");
    fmtn(b, r2);
    hs__vz_puts(b, "</text>\n");
    if (nge) {
        hs__vz_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x0 + 6,
                      ly + 10, COL_GEN);
        hs__vz_puts(b, "<text x=\"");
        hs__vz_num(b, x0 + 12);
        hs__vz_puts(b, "\" y=\"");
        hs__vz_num(b, ly + 14);
        hs__vz_printf(b, "\" font-size=\"10\">other scale (%zu): RCC ", nge);
        fmtn(b, grcc);
        hs__vz_puts(b, ", R\xc2\xb2 ");
        fmtn(b, gr2);
        hs__vz_puts(b, "</text>\n");
    }
    hs__vz_svg_close(b);
}

static const char CSS[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px;color:#1a1a1a;"
    "max-width:1200px}\nh1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;"
    "border-bottom:1px solid #ccc}\n.meta{color:#555;font-size:13px}\n"
    "table{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#f2f2f2}"
    "td.n{text-align:right;white-space:nowrap}\nsvg{display:block;max-width:100%;height:auto}\n"
    "code{font-family:'DejaVu Sans Mono',monospace;font-size:12px}\n";

static void td_num(hs__vz_buf *b, double v)
{
    hs__vz_puts(b, "<td class=\"n\">");
    fmtn(b, v);
    hs__vz_puts(b, "</td>");
}

static void td_str(hs__vz_buf *b, const char *s)
{
    hs__vz_puts(b, "<td>");
    hs__vz_esc(b, s);
    hs__vz_puts(b, "</td>");
}

int hs_viz_culprits(const char *text, size_t len, const char *name, hs_viz_doc **docs,
                    size_t *ndocs, hs_error *err)
{
    *docs = NULL;
    *ndocs = 0;
    hs_jdoc *jd = NULL;
    int rc = hs_jdoc_parse(text, len, name, &jd, err);
    if (rc)
        return rc;
    cul c = { jd, name, err, 0 };
    const hs_jv *root = hs_jdoc_root(jd);
    feat *f = NULL;
    pt *te = NULL, *ge = NULL;
    size_t nf = 0, nte = 0, nge = 0;
    hs__vz_buf s = { 0 }, h = { 0 };
    if (hs_jv_kind(root) != HS_JV_OBJ) {
        bad(&c, root, "expected an object");
        goto out;
    }
    const char *fmt = str(&c, root, "format");
    if (c.rc)
        goto out;
    if (strcmp(fmt, "hopscope-culprits") != 0) {
        bad(&c, hs_jv_get(jd, root, "format"), "not a culprits.json (format is not "
            "\"hopscope-culprits\")");
        goto out;
    }
    uint64_t ver = 0;
    if (hs_jv_u64(hs_jv_get(jd, root, "version"), &ver) || ver != 1) {
        c.rc = hs_error_set(err, HS_EVERSION, "%s: culprits.json version is not 1", name);
        goto out;
    }
    const char *target = str(&c, root, "target"), *input = str(&c, root, "input");
    double runs = num(&c, root, "runs");
    const hs_jv *model = obj_of(&c, root, "model", 0);
    const hs_jv *held = obj_of(&c, root, "heldout", 0);
    const hs_jv *cv = obj_of(&c, root, "cv", 0);
    const hs_jv *imp = arr(&c, root, "importance", 0);
    const hs_jv *greedy = arr(&c, root, "greedy", 1);
    const hs_jv *exh = obj_of(&c, root, "exhaustive", 1);
    const hs_jv *quant = arr(&c, root, "quantiles", 0);
    const hs_jv *gen = obj_of(&c, root, "generalisation", 1);
    if (c.rc)
        goto out;
    const hs_jv *cmdv = hs_jv_get(jd, root, "command");
    const char *command = hs_jv_str(jd, cmdv);
    double rcc = num(&c, held, "rcc"), r2 = num(&c, held, "r2");
    const hs_jv *hr = arr(&c, held, "runs", 0);
    if (c.rc)
        goto out;
    te = points(&c, hr, &nte);
    nf = hs_jv_len(imp);
    f = calloc(nf ? nf : 1, sizeof *f);
    if (!f) {
        c.rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nf && !c.rc; i++) {
        const hs_jv *o = hs_jv_at(jd, imp, i);
        if (hs_jv_kind(o) != HS_JV_OBJ) {
            bad(&c, o, "an importance must be an object");
            break;
        }
        f[i] = (feat){ str(&c, o, "feature"), num(&c, o, "gain"), num(&c, o, "permutation"),
                       num(&c, o, "permutation_sd") };
    }
    double grcc = NAN, gr2 = NAN;
    if (gen && !c.rc) {
        grcc = num(&c, gen, "rcc");
        gr2 = num(&c, gen, "r2");
        const hs_jv *gr = arr(&c, gen, "runs", 0);
        if (!c.rc)
            ge = points(&c, gr, &nge);
    }
    if (c.rc)
        goto out;

    svg(&s, target, rcc, r2, f, nf, te, nte, ge, nge, grcc, gr2);

    /* the page */
    hs__vz_puts(&h, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
                    "<head><meta charset=\"utf-8\"/><title>hopscope culprits: ");
    hs__vz_esc(&h, input);
    hs__vz_printf(&h, "</title>\n<style>%s</style></head>\n<body>\n"
                  "<h1>Which feature explains the run time</h1>\n<p class=\"meta\">", CSS);
    hs__vz_esc(&h, input);
    hs__vz_printf(&h, " &#8212; %.0f runs, response <code>", runs);
    hs__vz_esc(&h, target);
    hs__vz_puts(&h, "</code>, gradient-boosted regression trees (");
    hs__vz_esc(&h, str(&c, model, "library"));
    hs__vz_printf(&h, ", %.0f rounds, depth %.0f, eta %g, seed %.0f)", num(&c, model, "rounds"),
                  num(&c, model, "max_depth"), num(&c, model, "eta"), num(&c, model, "seed"));
    if (command) {
        hs__vz_puts(&h, "<br/><code>");
        hs__vz_esc(&h, command);
        hs__vz_puts(&h, "</code>");
    }
    hs__vz_puts(&h, "</p>\n<h2>Accuracy</h2>\n<p class=\"meta\">RCC: the share of pairs of runs "
                    "the model orders as they were measured (the study's rank correlation); "
                    "R&#178;: the share of the variance of the run time it explains. "
                    "docs/culprits.md says how each is computed.</p>\n<table><tr><th>runs "
                    "predicted</th><th>RCC</th><th>R&#178;</th></tr>\n<tr><td>held out (");
    hs__vz_printf(&h, "%zu)</td>", nte);
    td_num(&h, rcc);
    td_num(&h, r2);
    hs__vz_printf(&h, "</tr>\n<tr><td>%.0f-fold cross validation (mean &#177; sd)</td>",
                  num(&c, cv, "folds"));
    hs__vz_puts(&h, "<td class=\"n\">");
    fmtn(&h, num(&c, cv, "rcc_mean"));
    hs__vz_puts(&h, " &#177; ");
    fmtn(&h, num(&c, cv, "rcc_sd"));
    hs__vz_puts(&h, "</td><td class=\"n\">");
    fmtn(&h, num(&c, cv, "r2_mean"));
    hs__vz_puts(&h, " &#177; ");
    fmtn(&h, num(&c, cv, "r2_sd"));
    hs__vz_puts(&h, "</td></tr>\n");
    if (gen) {
        hs__vz_puts(&h, "<tr><td>another scale: ");
        hs__vz_esc(&h, str(&c, gen, "test_input"));
        hs__vz_printf(&h, " (%zu runs)</td>", nge);
        td_num(&h, grcc);
        td_num(&h, gr2);
        hs__vz_puts(&h, "</tr>\n");
    }
    hs__vz_puts(&h, "</table>\n<figure>");
    hs__vz_putn(&h, s.s ? s.s : "", s.n);
    hs__vz_puts(&h, "</figure>\n<h2>Feature importance</h2>\n<table><tr><th>#</th><th>feature"
                    "</th><th>gain share</th><th>permutation (R&#178; lost)</th><th>sd</th>"
                    "</tr>\n");
    for (size_t i = 0; i < nf; i++) {
        hs__vz_printf(&h, "<tr><td class=\"n\">%zu</td>", i + 1);
        td_str(&h, f[i].name);
        td_num(&h, f[i].gain);
        td_num(&h, f[i].perm);
        td_num(&h, f[i].perm_sd);
        hs__vz_puts(&h, "</tr>\n");
    }
    hs__vz_puts(&h, "</table>\n");
    if (greedy && !c.rc) {
        hs__vz_puts(&h, "<h2>Greedy forward search</h2>\n<p class=\"meta\">Each step adds the "
                        "feature that most raises the cross-validated R&#178; on the training "
                        "runs; the last two columns are the subset's model on the held-out runs."
                        "</p>\n<table><tr><th>step</th><th>added</th><th>cv R&#178;</th>"
                        "<th>held-out RCC</th><th>held-out R&#178;</th></tr>\n");
        for (size_t i = 0; i < hs_jv_len(greedy) && !c.rc; i++) {
            const hs_jv *o = hs_jv_at(jd, greedy, i);
            hs__vz_printf(&h, "<tr><td class=\"n\">%zu</td>", i + 1);
            td_str(&h, str(&c, o, "added"));
            td_num(&h, num(&c, o, "cv_r2"));
            td_num(&h, num(&c, o, "test_rcc"));
            td_num(&h, num(&c, o, "test_r2"));
            hs__vz_puts(&h, "</tr>\n");
        }
        hs__vz_puts(&h, "</table>\n");
    }
    if (exh && !c.rc) {
        const hs_jv *best = arr(&c, exh, "best", 0);
        hs__vz_printf(&h, "<h2>Exhaustive search</h2>\n<p class=\"meta\">%.0f feature subsets "
                      "scored by the cross-validated R&#178; on the training runs; the best:</p>\n"
                      "<table><tr><th>cv R&#178;</th><th>features</th></tr>\n",
                      num(&c, exh, "subsets"));
        for (size_t i = 0; best && i < hs_jv_len(best) && !c.rc; i++) {
            const hs_jv *o = hs_jv_at(jd, best, i);
            hs__vz_puts(&h, "<tr>");
            td_num(&h, num(&c, o, "cv_r2"));
            hs__vz_puts(&h, "<td>");
            const hs_jv *fs = arr(&c, o, "features", 0);
            for (size_t k = 0; fs && k < hs_jv_len(fs); k++) {
                const char *n = hs_jv_str(jd, hs_jv_at(jd, fs, k));
                if (!n) {
                    bad(&c, hs_jv_at(jd, fs, k), "a feature must be a string");
                    break;
                }
                if (k)
                    hs__vz_puts(&h, ", ");
                hs__vz_esc(&h, n);
            }
            hs__vz_puts(&h, "</td></tr>\n");
        }
        hs__vz_puts(&h, "</table>\n");
    }
    if (hs_jv_len(quant) && !c.rc) {
        hs__vz_puts(&h, "<h2>Fast and slow runs</h2>\n<p class=\"meta\">Quantile models (pinball "
                        "loss): the model of a low quantile follows the fast runs, that of a "
                        "high quantile the slow ones; coverage is the share of held-out runs "
                        "measured at or below the prediction (ideally the level).</p>\n"
                        "<table><tr><th>level</th><th>coverage</th><th>RCC</th><th>pinball "
                        "loss</th><th>features by gain share</th></tr>\n");
        for (size_t i = 0; i < hs_jv_len(quant) && !c.rc; i++) {
            const hs_jv *o = hs_jv_at(jd, quant, i);
            hs__vz_puts(&h, "<tr>");
            td_num(&h, num(&c, o, "tau"));
            td_num(&h, num(&c, o, "coverage"));
            td_num(&h, num(&c, o, "rcc"));
            td_num(&h, num(&c, o, "pinball"));
            hs__vz_puts(&h, "<td>");
            const hs_jv *qi = arr(&c, o, "importance", 0);
            size_t nq = qi ? hs_jv_len(qi) : 0;
            /* the five largest shares, largest first (ties: file order) */
            uint8_t *used = calloc(nq ? nq : 1, 1);
            if (!used) {
                c.rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                break;
            }
            for (int k = 0; k < 5 && !c.rc; k++) {
                size_t bi = SIZE_MAX;
                double bv = -INFINITY;
                for (size_t j = 0; j < nq && !c.rc; j++) {
                    double g = num(&c, hs_jv_at(jd, qi, j), "gain");
                    if (!used[j] && isfinite(g) && g > bv)
                        bv = g, bi = j;
                }
                if (bi == SIZE_MAX || bv <= 0)
                    break;
                used[bi] = 1;
                if (k)
                    hs__vz_puts(&h, ", ");
                hs__vz_esc(&h, str(&c, hs_jv_at(jd, qi, bi), "feature"));
                hs__vz_puts(&h, " ");
                fmtn(&h, bv);
            }
            free(used);
            hs__vz_puts(&h, "</td></tr>\n");
        }
        hs__vz_puts(&h, "</table>\n");
    }
    hs__vz_puts(&h, "</body>\n</html>\n");
    if (c.rc)
        goto out;
    if (s.oom || h.oom || !s.s || !h.s || !(*docs = calloc(2, sizeof **docs))) {
        c.rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    snprintf((*docs)[0].name, sizeof (*docs)[0].name, "culprits.svg");
    (*docs)[0].text = s.s;
    (*docs)[0].len = s.n;
    snprintf((*docs)[1].name, sizeof (*docs)[1].name, "culprits.html");
    (*docs)[1].text = h.s;
    (*docs)[1].len = h.n;
    *ndocs = 2;
    s = (hs__vz_buf){ 0 };
    h = (hs__vz_buf){ 0 };
out:
    hs__vz_buf_free(&s);
    hs__vz_buf_free(&h);
    free(f);
    free(te);
    free(ge);
    hs_jdoc_free(jd);
    return c.rc;
}

int hs_viz_culprits_load(const char *path, hs_viz_doc **docs, size_t *ndocs, hs_error *err)
{
    *docs = NULL;
    *ndocs = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return hs_error_set(err, HS_ENOENT, "cannot open '%s'", path);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > HS_VIZ_MAX_INPUT) {
                rc = hs_error_set(err, HS_ERANGE, "%s: too large", path);
                break;
            }
            char *nb = realloc(buf, cap);
            if (!nb) {
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (ferror(fp))
                rc = hs_error_set(err, HS_EIO, "%s: read failed", path);
            break;
        }
    }
    fclose(fp);
    if (!rc)
        rc = hs_viz_culprits(buf ? buf : "", n, path, docs, ndocs, err);
    free(buf);
    return rc;
}
