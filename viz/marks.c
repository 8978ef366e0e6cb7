/* Names in the pictures for the devices the report talks about.
 *
 * A finding says "Too much sent from node n38" and the roots table says
 * "R1 l1s0→n0 (ejection)"; a reader then looks for n38 or n0 in the
 * picture, where most nodes carry at most their ranks.  So every node or
 * switch whose name appears in a finding's text, and both ends of the links
 * of the numbered roots (R1 .. R12), get their name beside their box (a
 * node aggregate lists the marked nodes it holds) and a dark outline.
 *
 * Names are found in the finding's text by looking up its tokens (runs of
 * letters, digits, '_', '.', '-'; trailing '.' and '-' dropped, so that
 * "s2.2.3->n58." yields s2.2.3 and n58) among the device names: a name with
 * other characters is not found (the generated topologies and the example
 * files use none).
 *
 * Labels are placed below their box, or along the ring (outwards from
 * nodes, inwards from routers) in the dragonfly's ring, each moved on in
 * steps until it overlaps no label or text placed before it; the scene
 * grows to hold them. */
#include "vz.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MARK_SIZE 10      /* px: font size of a name */
#define MARK_CW   0.70    /* width of a bold character per px of font size (DejaVu Sans Bold
                             digits are 0.70 em) */
#define MARK_STEP 8.0     /* px: how far a label moves on per try (radial scenes) */
#define MARK_TRIES 40     /* then it goes where the last try put it */

typedef struct named {
    const char *name;
    uint32_t    dev;
} named;

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->dev > y->dev) - (x->dev < y->dev);
}

static int token_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '-';
}

/* Marks every device named in text t, looking its tokens up in idx[0..n). */
static void mark_names(const char *t, const named *idx, size_t n, uint8_t *mark)
{
    char tok[256];
    while (*t) {
        if (!token_char((unsigned char)*t)) {
            t++;
            continue;
        }
        const char *e = t;
        while (token_char((unsigned char)*e))
            e++;
        size_t len = (size_t)(e - t);
        while (len && (t[len - 1] == '.' || t[len - 1] == '-'))
            len--;
        if (len && len < sizeof tok) {
            memcpy(tok, t, len);
            tok[len] = 0;
            named key = { tok, 0 };
            /* the first entry with this name: the lowest device index */
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cmp_named(&idx[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < n && strcmp(idx[lo].name, tok) == 0)
                mark[idx[lo].dev] |= HS__VZ_MARK_FINDING;
        }
        t = e;
    }
}

int hs__vz_marks(const hs_viz_model *m, uint8_t *mark)
{
    size_t D = (size_t)m->N + m->S;
    memset(mark, 0, D);
    for (uint32_t i = 0; i < m->nroots && i < HS__VZ_ROOT_LABELS; i++)
        for (uint32_t k = 0; k < m->roots[i].nlinks; k++) {
            const hs__vz_link *lk = &m->lk[m->roots[i].links[k]];
            mark[lk->from] |= HS__VZ_MARK_ROOT;
            mark[lk->to] |= HS__VZ_MARK_ROOT;
        }
    int text = 0;
    for (uint32_t f = 0; f < m->nfindings; f++)
        text |= m->findings[f].summary && *m->findings[f].summary;
    if (!text || !D)
        return 0;
    named *idx = malloc(D * sizeof *idx);
    if (!idx) {
        memset(mark, 0, D);
        return HS_ENOMEM;
    }
    for (size_t d = 0; d < D; d++)
        idx[d] = (named){ m->name[d], (uint32_t)d };
    qsort(idx, D, sizeof *idx, cmp_named);
    for (uint32_t f = 0; f < m->nfindings; f++)
        if (m->findings[f].summary)
            mark_names(m->findings[f].summary, idx, D, mark);
    free(idx);
    return 0;
}

/* ---- placing the labels ------------------------------------------------------------ */

typedef struct box {
    double x0, y0, x1, y1;
} box;

typedef struct placer {
    box   *b;
    size_t n, cap;
    int    oom;
} placer;

static void put(placer *p, box b)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 64;
        box *q = realloc(p->b, nc * sizeof *q);
        if (!q) {
            p->oom = 1;
            return;
        }
        p->b = q;
        p->cap = nc;
    }
    p->b[p->n++] = b;
}

/* The box of a text with baseline y, anchored at x. */
static box text_box(double x, double y, int anchor, double size, double w)
{
    double x0 = anchor == HS__VZ_T_START ? x : anchor == HS__VZ_T_END ? x - w : x - w / 2;
    return (box){ x0 - 1, y - 0.8 * size - 1, x0 + w + 1, y + 0.25 * size + 1 };
}

/* Where try k puts a label for glyph g: x, baseline y, anchor.  Radial
 * scenes: along the ring's radius, further out each try.  Others: below the
 * box (and below a node's ranks), above, right, left, the four corners,
 * then further and further below (the names of an aggregate stack up). */
static void spot(const hs__vz_scene *s, const hs__vz_glyph *g, int node, int k, double *x,
                 double *y, int *anchor)
{
    if (s->radial) {
        double ux = g->x - s->rcx, uy = g->y - s->rcy, len = sqrt(ux * ux + uy * uy);
        ux = len > 0 ? ux / len : 0;
        uy = len > 0 ? uy / len : 1;
        if (!node) { /* routers: inwards, their nodes are outside */
            ux = -ux;
            uy = -uy;
        }
        double r = fmax(g->w, g->h) / 2 + 3 + k * MARK_STEP;
        *x = g->x + ux * r;
        *y = g->y + uy * r + MARK_SIZE * (0.35 + 0.45 * uy);
        *anchor = ux > 0.35 ? HS__VZ_T_START : ux < -0.35 ? HS__VZ_T_END : HS__VZ_T_MIDDLE;
        return;
    }
    double below = g->y + g->h / 2 + MARK_SIZE + (node && g->lw > 0 ? 10 : 0);
    double above = g->y - g->h / 2 - 3, mid = g->y + 0.35 * MARK_SIZE;
    double right = g->x + g->w / 2 + 3, left = g->x - g->w / 2 - 3;
    static const struct { int8_t h, v; } at[8] = { /* h: -1 left, 0 centre, 1 right; v: -1 above, 0 level, 1 below */
        { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 }, { 1, 1 }, { -1, 1 }, { 1, -1 }, { -1, -1 } };
    if (k >= 8) {
        *x = g->x;
        *y = below + (k - 7) * (MARK_SIZE + 3);
        *anchor = HS__VZ_T_MIDDLE;
        return;
    }
    *x = at[k].h > 0 ? right : at[k].h < 0 ? left : g->x;
    *anchor = at[k].h > 0 ? HS__VZ_T_START : at[k].h < 0 ? HS__VZ_T_END : HS__VZ_T_MIDDLE;
    *y = at[k].v > 0 ? (at[k].h ? g->y + g->h / 2 + MARK_SIZE : below)
         : at[k].v < 0 ? above : mid;
}

/* How many placed boxes b overlaps. */
static size_t overlaps(const placer *p, box b)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        n += b.x0 < p->b[i].x1 && p->b[i].x0 < b.x1 && b.y0 < p->b[i].y1 && p->b[i].y0 < b.y1;
    return n;
}

/* One name for glyph g, the stack-th of its names: the first of its spots
 * clear of everything placed before, else the one overlapping least. */
static void place(hs__vz_scene *s, placer *p, const hs__vz_glyph *g, int node, uint32_t stack,
                  const char *name)
{
    double w = strlen(name) * MARK_CW * MARK_SIZE;
    int tries = s->radial ? MARK_TRIES : 8 + (int)(stack < MARK_TRIES ? stack : MARK_TRIES);
    double bx = 0, by = 0;
    int banchor = 0;
    box best = { 0, 0, 0, 0 };
    size_t least = SIZE_MAX;
    for (int k = 0; k < tries && least; k++) {
        double x, y;
        int anchor;
        spot(s, g, node, k, &x, &y, &anchor);
        box b = text_box(x, y, anchor, MARK_SIZE, w);
        if (b.x0 < 0) { /* keep it inside the scene */
            x -= b.x0;
            b.x1 -= b.x0;
            b.x0 = 0;
        }
        if (b.y0 < 0)
            continue;
        size_t o = overlaps(p, b);
        if (o < least) {
            least = o;
            best = b;
            bx = x;
            by = y;
            banchor = anchor;
        }
    }
    if (least == SIZE_MAX) { /* every spot above the top: below, overlapping */
        spot(s, g, node, 0, &bx, &by, &banchor);
        best = text_box(bx, by, banchor, MARK_SIZE, w);
    }
    put(p, best);
    size_t before = s->ntx;
    hs__vz_text_add(s, bx, by, banchor, MARK_SIZE, 1, "%s", name);
    if (s->ntx > before)
        s->tx[s->ntx - 1].mark = 1;
    if (best.x1 + 2 > s->w)
        s->w = best.x1 + 2;
    if (best.y1 + 2 > s->h)
        s->h = best.y1 + 2;
}

void hs__vz_mark_scene(const hs_viz_model *m, const uint8_t *mark, hs__vz_scene *s)
{
    uint32_t N = m->N;
    /* marked nodes, for aggregates (few: the findings name a handful) */
    uint32_t *nodes = NULL, nn = 0;
    for (uint32_t i = 0; i < N; i++)
        nn += mark[i] != 0;
    if (nn && !(nodes = malloc(nn * sizeof *nodes))) {
        s->oom = 1;
        return;
    }
    nn = 0;
    for (uint32_t i = 0; i < N; i++)
        if (mark[i])
            nodes[nn++] = i;
    /* obstacles: the layout's texts, the boxes and their own labels */
    placer p = { 0 };
    char buf[128];
    for (size_t i = 0; i < s->ntx; i++) {
        const hs__vz_text *t = &s->tx[i];
        put(&p, text_box(t->x, t->y, t->anchor, t->size, strlen(t->s) * 0.62 * t->size));
    }
    for (size_t i = 0; i < s->ngl; i++) {
        const hs__vz_glyph *g = &s->gl[i];
        put(&p, (box){ g->x - g->w / 2, g->y - g->h / 2, g->x + g->w / 2, g->y + g->h / 2 });
        const char *t = hs__vz_glyph_label(m, g, buf, sizeof buf);
        if (t && g->kind == HS__VZ_GL_NODE) /* drawn below the box, font-size 9 */
            put(&p, text_box(g->x, g->y + g->h / 2 + 9, HS__VZ_T_MIDDLE, 9,
                             strlen(t) * 0.62 * 9));
    }
    /* and the rings and numbers of the whole run's named roots (draw.c) */
    for (size_t i = 0; i < s->nit; i++) {
        const hs__vz_item *it = &s->it[i];
        uint32_t rn = 0;
        for (uint32_t k = 0; k < it->n; k++) {
            uint32_t r = m->root_num[s->mem[it->first + k]];
            if (r && (!rn || r < rn))
                rn = r;
        }
        if (!rn || rn > HS__VZ_ROOT_LABELS)
            continue;
        double x, y, r = HS__VZ_ROOT_R;
        hs__vz_item_anchor(it, &x, &y);
        put(&p, (box){ x - r - 1, y - r - 1, x + r + 1, y + r + 1 });
        put(&p, text_box(x + r + 1.5, y - r + 1, HS__VZ_T_START, 10, (rn < 10 ? 2 : 3) * 7.0));
    }
    for (size_t i = 0; i < s->ngl; i++) {
        hs__vz_glyph *g = &s->gl[i];
        if (g->dev == UINT32_MAX)
            continue; /* a cell of a projection stands for no one device */
        int node = g->kind == HS__VZ_GL_NODE;
        if (g->ndev == 1 && mark[g->dev]) {
            g->mark = 1;
            const char *nm = m->name[g->dev];
            /* a device whose own label is its name has it there already */
            if (hs__vz_glyph_label(m, g, buf, sizeof buf) == nm)
                continue;
            place(s, &p, g, node, 1, nm);
        } else if (node && g->ndev > 1 && g->dev >= N) {
            /* the nodes attached to switch dev - N, drawn as one box */
            uint32_t stack = 0;
            for (uint32_t k = 0; k < nn; k++)
                if (m->node_switch[nodes[k]] == g->dev - N) {
                    g->mark = 1;
                    place(s, &p, g, 1, ++stack, m->name[nodes[k]]);
                }
        }
    }
    if (p.oom)
        s->oom = 1;
    free(p.b);
    free(nodes);
}
