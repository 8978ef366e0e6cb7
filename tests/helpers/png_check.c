/* png_check: reads a screenshot (PNG, 8-bit RGB or RGBA, not interlaced)
 * and checks that it is not blank and, optionally, that the legend's
 * colour bar is in it.
 *
 *   png_check FILE [--legend] [--min-colours N] [--min-ink F]
 *
 * Prints "WxH, N colours, F% ink[, legend at X,Y]".  Exit 0 when the image
 * has at least N distinct colours (default 16) and a share F (default
 * 0.01) of pixels that are not white, and with --legend when the 20 steps
 * of the congested-fraction bar (hs_viz_cf_rgb at (i + 0.5) / 20) appear
 * left to right on one row, each as a run of at least MIN_RUN pixels;
 * exit 1 otherwise, 2 on unreadable input.  Used by tests/integration/viz.sh
 * on headless Chromium's screenshots. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hopscope/common.h"
#include "hopscope/viz.h"

#define STEPS   20
#define MIN_RUN 6   /* px: a legend step is 12 px wide at scale 1 */
#define TOL     3   /* per channel: anti-aliasing and colour management */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Decodes FILE into rgb (3 bytes per pixel). */
static int load(const char *path, unsigned char **rgb, uint32_t *w, uint32_t *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || n < 8 || fread(buf, 1, (size_t)n, f) != (size_t)n ||
        memcmp(buf, "\x89PNG\r\n\x1a\n", 8) != 0) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    unsigned char *idat = NULL;
    size_t nidat = 0;
    int depth = 0, ctype = 0, interlace = 0;
    for (size_t p = 8; p + 12 <= (size_t)n;) {
        uint32_t len = be32(buf + p);
        const unsigned char *type = buf + p + 4, *data = buf + p + 8;
        if (p + 12 + len > (size_t)n)
            break;
        if (memcmp(type, "IHDR", 4) == 0 && len >= 13) {
            *w = be32(data);
            *h = be32(data + 4);
            depth = data[8];
            ctype = data[9];
            interlace = data[12];
        } else if (memcmp(type, "IDAT", 4) == 0) {
            unsigned char *q = realloc(idat, nidat + len);
            if (!q)
                break;
            idat = q;
            memcpy(idat + nidat, data, len);
            nidat += len;
        }
        p += 12 + len;
    }
    free(buf);
    int bpp = ctype == 2 ? 3 : ctype == 6 ? 4 : 0;
    if (depth != 8 || !bpp || interlace || !*w || !*h || *w > 20000 || *h > 20000) {
        free(idat);
        return -1;
    }
    size_t stride = (size_t)*w * bpp, raw_n = (stride + 1) * *h;
    unsigned char *raw = malloc(raw_n), *img = malloc(stride * *h);
    uLongf got = (uLongf)raw_n;
    if (!raw || !img || uncompress(raw, &got, idat, nidat) != Z_OK || got != raw_n) {
        free(idat);
        free(raw);
        free(img);
        return -1;
    }
    free(idat);
    for (uint32_t y = 0; y < *h; y++) {
        const unsigned char *src = raw + y * (stride + 1) + 1;
        unsigned char *row = img + y * stride, *prev = y ? row - stride : NULL;
        int ft = src[-1];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= (size_t)bpp ? row[x - bpp] : 0, b = prev ? prev[x] : 0,
                c = prev && x >= (size_t)bpp ? prev[x - bpp] : 0, v = src[x];
            switch (ft) {
            case 1: v += a; break;
            case 2: v += b; break;
            case 3: v += (a + b) / 2; break;
            case 4: v += paeth(a, b, c); break;
            default: break;
            }
            row[x] = (unsigned char)v;
        }
    }
    free(raw);
    *rgb = malloc((size_t)*w * *h * 3);
    if (!*rgb) {
        free(img);
        return -1;
    }
    for (size_t i = 0; i < (size_t)*w * *h; i++)
        memcpy(*rgb + 3 * i, img + bpp * i, 3);
    free(img);
    return 0;
}

static int near(const unsigned char *p, const unsigned char *c)
{
    for (int k = 0; k < 3; k++)
        if (abs((int)p[k] - (int)c[k]) > TOL)
            return 0;
    return 1;
}

/* The legend bar: on row y, the STEPS colours in order, each a run. */
static int legend_at(const unsigned char *rgb, uint32_t w, uint32_t y, uint32_t *x0)
{
    unsigned char col[STEPS][3];
    for (int i = 0; i < STEPS; i++)
        hs_viz_cf_rgb((i + 0.5) / STEPS, col[i]);
    const unsigned char *row = rgb + (size_t)y * w * 3;
    for (uint32_t x = 0; x < w; x++) {
        if (!near(row + 3 * x, col[0]))
            continue;
        uint32_t p = x;
        int step;
        for (step = 0; step < STEPS; step++) {
            uint32_t run = 0;
            while (p < w && near(row + 3 * p, col[step])) {
                p++;
                run++;
            }
            if (run < MIN_RUN)
                break;
            /* at most a couple of blended pixels between steps */
            if (step + 1 < STEPS) {
                uint32_t skip = 0;
                while (p < w && skip < 3 && !near(row + 3 * p, col[step + 1])) {
                    p++;
                    skip++;
                }
            }
        }
        if (step == STEPS) {
            *x0 = x;
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: png_check FILE [--legend] [--min-colours N] [--min-ink F]\n");
        return 2;
    }
    int want_legend = 0;
    uint64_t min_colours = 16;
    double min_ink = 0.01;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--legend") == 0)
            want_legend = 1;
        else if (strcmp(argv[i], "--min-colours") == 0 && i + 1 < argc)
            hs_parse_u64(argv[++i], &min_colours);
        else if (strcmp(argv[i], "--min-ink") == 0 && i + 1 < argc)
            hs_parse_double(argv[++i], &min_ink);
        else {
            fprintf(stderr, "png_check: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    unsigned char *rgb;
    uint32_t w = 0, h = 0;
    if (load(argv[1], &rgb, &w, &h)) {
        fprintf(stderr, "png_check: %s: not an 8-bit RGB(A) PNG this helper reads\n", argv[1]);
        return 2;
    }
    /* distinct colours (15-bit buckets suffice to tell a picture from a blank) */
    static unsigned char seen[1 << 15];
    uint64_t colours = 0, ink = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const unsigned char *p = rgb + 3 * i;
        unsigned key = (unsigned)(p[0] >> 3) << 10 | (unsigned)(p[1] >> 3) << 5 | (p[2] >> 3);
        if (!seen[key]) {
            seen[key] = 1;
            colours++;
        }
        ink += p[0] < 245 || p[1] < 245 || p[2] < 245;
    }
    double share = (double)ink / ((double)w * h);
    printf("%ux%u, %llu colours, %.2f%% ink", w, h, (unsigned long long)colours, 100 * share);
    int ok = colours >= min_colours && share >= min_ink;
    if (want_legend) {
        uint32_t x0 = 0, y;
        for (y = 0; y < h; y++)
            if (legend_at(rgb, w, y, &x0))
                break;
        if (y < h)
            printf(", legend at %u,%u", x0, y);
        else {
            printf(", no legend");
            ok = 0;
        }
    }
    printf("\n");
    free(rgb);
    return ok ? 0 : 1;
}
