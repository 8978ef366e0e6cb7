/* Growable text buffers, XML escaping, fixed number formatting and the
 * colour scale: the small pieces every document is made of.
 *
 * Determinism: numbers are printed with fixed precision by our own code or
 * by snprintf in the C locale (the hopscope command never calls
 * setlocale), so the same input gives the same bytes. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(hs__vz_buf *b, size_t more)
{
    if (b->oom)
        return -1;
    if (b->n + more + 1 <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + more + 1) {
        if (nc > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        nc *= 2;
    }
    char *s = realloc(b->s, nc);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = nc;
    return 0;
}

void hs__vz_putn(hs__vz_buf *b, const char *s, size_t n)
{
    if (reserve(b, n))
        return;
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

void hs__vz_puts(hs__vz_buf *b, const char *s) { hs__vz_putn(b, s, strlen(s)); }

void hs__vz_printf(hs__vz_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->oom = 1;
        return;
    }
    if ((size_t)k < sizeof small) {
        hs__vz_putn(b, small, (size_t)k);
        return;
    }
    if (reserve(b, (size_t)k))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

void hs__vz_esc(hs__vz_buf *b, const char *s)
{
    if (!s)
        return;
    const char *run = s;
    for (const char *p = s; *p; p++) {
        const char *rep = NULL;
        unsigned char c = (unsigned char)*p;
        switch (c) {
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '&': rep = "&amp;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n')
                rep = "?";
            else if (c == 0x7f)
                rep = "?";
        }
        if (rep) {
            hs__vz_putn(b, run, (size_t)(p - run));
            hs__vz_puts(b, rep);
            run = p + 1;
        }
    }
    hs__vz_puts(b, run);
}

void hs__vz_num(hs__vz_buf *b, double v)
{
    if (!isfinite(v))
        v = 0;
    /* one decimal is a tenth of a pixel: finer than any screen shows */
    long long t = llround(v * 10);
    char s[32];
    int k;
    if (t % 10 == 0)
        k = snprintf(s, sizeof s, "%lld", t / 10);
    else
        k = snprintf(s, sizeof s, "%s%lld.%lld", t < 0 ? "-" : "", llabs(t) / 10, llabs(t) % 10);
    hs__vz_putn(b, s, (size_t)k);
}

void hs__vz_buf_free(hs__vz_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* ---- colour ------------------------------------------------------------------- */

/* magma (van der Walt and Smith, matplotlib's default perceptually uniform
 * maps, CC0), 8-bit sRGB at positions k/16, k = 0..16 (table rows
 * round(255 k / 16)).  Linear interpolation between anchors this close
 * stays within a couple of levels of the 256-entry table. */
static const unsigned char magma[17][3] = {
    { 0, 0, 4 },       { 10, 8, 34 },     { 29, 17, 71 },    { 54, 16, 107 },
    { 81, 18, 124 },   { 106, 28, 129 },  { 131, 38, 129 },  { 156, 46, 127 },
    { 183, 55, 121 },  { 207, 64, 112 },  { 229, 80, 100 },  { 244, 105, 92 },
    { 251, 135, 97 },  { 254, 165, 113 }, { 254, 194, 135 }, { 253, 224, 161 },
    { 252, 253, 191 },
};

/* CF 0 sits at magma 0.88 (pale orange: visible on white without
 * shouting) and CF 1 at magma 0.04 (near black): dark means congested. */
#define MAP_AT_CF0 0.88
#define MAP_AT_CF1 0.04

void hs_viz_cf_rgb(double cf, unsigned char rgb[3])
{
    if (!(cf >= 0)) /* NaN too */
        cf = 0;
    if (cf > 1)
        cf = 1;
    double t = MAP_AT_CF0 + (MAP_AT_CF1 - MAP_AT_CF0) * cf;
    double x = t * 16;
    int i = (int)floor(x);
    if (i >= 16)
        i = 15;
    if (i < 0)
        i = 0;
    double f = x - i;
    for (int c = 0; c < 3; c++) {
        double v = magma[i][c] + (magma[i + 1][c] - magma[i][c]) * f;
        rgb[c] = (unsigned char)lround(v);
    }
}

const char *hs__vz_cf_hex(double cf, char *buf)
{
    unsigned char c[3];
    hs_viz_cf_rgb(cf, c);
    snprintf(buf, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
    return buf;
}

/* ---- units ---------------------------------------------------------------------- */

const char *hs__vz_time(double ps, char *buf, size_t n)
{
    static const struct { double div; const char *unit; } u[] = {
        { 1e12, "s" }, { 1e9, "ms" }, { 1e6, "us" }, { 1e3, "ns" },
    };
    if (!isfinite(ps)) {
        snprintf(buf, n, "-");
        return buf;
    }
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (fabs(ps) >= u[i].div || i + 1 == sizeof u / sizeof u[0]) {
            snprintf(buf, n, "%.3g %s", ps / u[i].div, u[i].unit);
            return buf;
        }
    return buf;
}

const char *hs__vz_bytes(double bytes, char *buf, size_t n)
{
    static const struct { double div; const char *unit; } u[] = {
        { 1e12, "TB" }, { 1e9, "GB" }, { 1e6, "MB" }, { 1e3, "kB" }, { 1, "B" },
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (fabs(bytes) >= u[i].div || i + 1 == sizeof u / sizeof u[0]) {
            snprintf(buf, n, "%.3g %s", bytes / u[i].div, u[i].unit);
            return buf;
        }
    return buf;
}
