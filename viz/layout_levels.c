/* Networks in levels: fat-trees as every HPC machine description draws
 * them, and any other graph (topology files) the same way.
 *
 * Nodes are at the bottom, the switches they hang from above them, each
 * further level above that.  A cable between levels is two halves: the
 * lower half is the up link (sent by the lower switch), the upper half the
 * down link; a cable within a level is an arc above the row.
 *
 * Fat-trees take their levels from the switches' "level" and keep index
 * order, which for XGFTs keeps every subtree together.  Other networks get
 * levels from the graph (switches with nodes are level 1, then breadth-
 * first distance) and an order that reduces crossings (barycentres of the
 * neighbours, sweeping up and down, ties by index: deterministic).
 *
 * Beyond NODES_DETAIL nodes (or with --detail aggregate) the nodes of a
 * switch are drawn as one box and their links as one bundle each way. */
#include "vz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES_DETAIL 512     /* nodes drawn one by one up to this many */
#define NODES_COMPACT 128    /* the same in small multiples */
#define MIN_NODE_SP  4.0     /* px per node at least, in pictures of a given width */
#define SWLINKS_DETAIL  8192 /* switch-to-switch links drawn one by one up to this many */
#define SWLINKS_COMPACT 2048
#define MARGIN_L     64.0    /* px: room for the level names */
#define MARGIN_R     24.0
#define MARGIN_T     26.0
#define LEVEL_GAP    96.0    /* px between switch rows */
#define NODE_GAP     64.0    /* px between the lowest switches and the nodes */
#define SW_H         14.0
#define NODE_H       10.0
#define SWEEPS       4       /* barycentre passes (up, down, up, down) */

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

typedef struct lv {
    const hs_viz_model *m;
    uint32_t  h;             /* levels 1..h */
    uint32_t *level;         /* per switch */
    uint32_t *order;         /* per switch: position within its level */
    uint32_t *count;         /* per level */
    uint32_t *aoff, *alink;  /* each switch's outgoing switch links (CSR) */
    const char *names;       /* "level" or "tier" */
} lv;

/* Switches by (level, position in it). */
static int cmp_pos(const void *x, const void *y, void *ctx)
{
    const lv *v = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (v->level[a] != v->level[b])
        return v->level[a] < v->level[b] ? -1 : 1;
    return v->order[a] < v->order[b] ? -1 : v->order[a] > v->order[b];
}

/* The scene of levels lv (level[] and order[] filled). */
static int levels_scene(const lv *v, const hs__vz_layout_opts *o, hs__vz_scene *sc)
{
    const hs_viz_model *m = v->m;
    uint32_t N = m->N, S = m->S, h = v->h;
    double target = fmin(1100, (o->max_w > 0 ? o->max_w : 1400) - MARGIN_L - MARGIN_R);
    /* a picture asked to fit a width (comparisons, small multiples) draws
     * nodes one by one only where each gets MIN_NODE_SP px */
    int detail = o->detail == HS_VIZ_DETAIL_FULL ||
                 (o->detail == HS_VIZ_DETAIL_AUTO &&
                  N <= (o->compact ? NODES_COMPACT : NODES_DETAIL) &&
                  !(o->max_w > 0 && N * MIN_NODE_SP > target));
    int rc = HS_ENOMEM;
    double *sx = calloc(S, sizeof *sx), *nx = calloc(N, sizeof *nx), *sum = calloc(S, sizeof *sum);
    uint32_t *nodes_of = calloc(S, sizeof *nodes_of), *seen = calloc(S, sizeof *seen);
    uint32_t *node_order = calloc(N, sizeof *node_order);
    uint32_t *base = calloc(S, sizeof *base), *by_pos = calloc(S, sizeof *by_pos);
    if (!sx || !nx || !sum || !nodes_of || !seen || !node_order || !base || !by_pos)
        goto out;
    for (uint32_t i = 0; i < N; i++)
        nodes_of[m->node_switch[i]]++;
    uint32_t widest = 0;
    for (uint32_t l = 1; l <= h; l++)
        if (v->count[l] > widest)
            widest = v->count[l];
    double node_sp = detail ? clamp(target / N, 7, 30) : 0;
    double sw_sp = clamp(target / widest, 5, 80);
    double width = fmax(detail ? N * node_sp : 0, widest * sw_sp);
    if (detail)
        node_sp = width / N;
    double x0 = MARGIN_L, sw_w = clamp(sw_sp * 0.75, 3, 46);
    sc->wmax = clamp(0.3 * fmin(sw_sp, detail ? 3 * node_sp : sw_sp), 2.5, 7);
    double y_nodes = MARGIN_T + (h - 1) * LEVEL_GAP + NODE_GAP;
    sc->w = x0 + width + MARGIN_R;
    sc->h = y_nodes + NODE_H / 2 + (detail ? 16 : 10);

    for (uint32_t s = 0; s < S; s++)
        sx[s] = x0 + (v->order[s] + 0.5) * width / v->count[v->level[s]];
    if (detail) {
        /* nodes in the order of their switches, then by index; the
         * switches with nodes over the middle of theirs */
        uint32_t nl1 = 0;
        for (uint32_t s = 0; s < S; s++)
            if (nodes_of[s])
                by_pos[nl1++] = s;
        qsort_r(by_pos, nl1, sizeof *by_pos, cmp_pos, (void *)v);
        uint32_t acc = 0;
        for (uint32_t i = 0; i < nl1; i++) {
            base[by_pos[i]] = acc;
            acc += nodes_of[by_pos[i]];
        }
        for (uint32_t i = 0; i < N; i++) {
            uint32_t s = m->node_switch[i];
            node_order[i] = base[s] + seen[s]++;
            nx[i] = x0 + (node_order[i] + 0.5) * node_sp;
            sum[s] += nx[i];
        }
        for (uint32_t s = 0; s < S; s++)
            if (nodes_of[s] && v->level[s] == 1)
                sx[s] = sum[s] / nodes_of[s];
    }
#define Y(s) (MARGIN_T + (h - v->level[s]) * LEVEL_GAP)
    uint32_t nsw = 0;
    for (uint32_t l = 1; l <= m->L; l++)
        nsw += m->lk[l].kind == HS__VZ_SW;
    int bundle_sw = o->detail == HS_VIZ_DETAIL_AGGREGATE ||
                    (o->detail == HS_VIZ_DETAIL_AUTO &&
                     nsw > (o->compact ? SWLINKS_COMPACT : SWLINKS_DETAIL));
    if (bundle_sw) {
        /* each switch: a stub up bundling its links to higher levels, one
         * down for those to lower levels, one sideways within its level */
        static const char *dirs[3] = { "up", "down", "within the level" };
        for (uint32_t s = 0; s < S; s++)
            for (int w = 0; w < 3; w++) {
                double y = Y(s), stub = LEVEL_GAP * 0.32;
                double x1 = w == 2 ? sx[s] + sw_w / 2 + 8 : sx[s];
                double y0 = w == 0 ? y - SW_H / 2 : w == 1 ? y + SW_H / 2 : y;
                double y1 = w == 0 ? y0 - stub : w == 1 ? y0 + stub : y;
                float p[4] = { (float)(w == 2 ? sx[s] + sw_w / 2 : sx[s]), (float)y0, (float)x1,
                               (float)y1 };
                int have = 0;
                for (int pass = 0; pass < 2; pass++) {
                    for (uint32_t q = v->aoff[s]; q < v->aoff[s + 1]; q++) {
                        uint32_t l = v->alink[q], t = m->lk[l].to - N;
                        int cls = v->level[t] > v->level[s]   ? 0
                                  : v->level[t] < v->level[s] ? 1
                                                              : 2;
                        if (cls != w)
                            continue;
                        if (pass == 0)
                            have = 1;
                        else
                            hs__vz_member(sc, l);
                    }
                    if (!have) /* no such links: no stub */
                        break;
                    if (pass == 0) {
                        hs__vz_item_add(sc, HS__VZ_G_LINE, p, 4);
                        hs__vz_item_label(sc, "links of %s %s", m->name[N + s], dirs[w]);
                    }
                }
            }
    }
    for (uint32_t l = 1; l <= m->L && !bundle_sw; l++) {
        const hs__vz_link *k = &m->lk[l];
        if (k->kind != HS__VZ_SW)
            continue;
        uint32_t a = k->from - N, b = k->to - N;
        double ya = Y(a), yb = Y(b);
        if (ya == yb) {
            double cx = (sx[a] + sx[b]) / 2, cy = ya - SW_H / 2 - 0.3 * fabs(sx[b] - sx[a]) - 8;
            hs__vz_half_quad(sc, sx[a], ya - SW_H / 2, cx, cy, sx[b], yb - SW_H / 2, l);
            continue;
        }
        double dy = ya > yb ? -SW_H / 2 : SW_H / 2; /* leave by the edge facing the other end */
        hs__vz_half_line(sc, sx[a], ya + dy, sx[b], yb - dy, l);
    }
    if (detail) {
        for (uint32_t i = 0; i < N; i++) {
            uint32_t s = m->node_switch[i];
            double ys = Y(s) + SW_H / 2, yn = y_nodes - NODE_H / 2;
            hs__vz_half_line(sc, nx[i], yn, sx[s], ys, m->node_inj[i]);
            hs__vz_half_line(sc, sx[s], ys, nx[i], yn, m->node_ej[i]);
        }
        double nw = clamp(node_sp * 0.7, 2, 14);
        for (uint32_t i = 0; i < N; i++)
            hs__vz_glyph_add(sc, HS__VZ_GL_NODE, nx[i], y_nodes, nw, NODE_H, i, 1, node_sp * 0.98);
    } else {
        for (uint32_t s = 0; s < S; s++) {
            if (!nodes_of[s])
                continue;
            double ys = Y(s) + SW_H / 2, yn = y_nodes - NODE_H / 2, ym = (yn + ys) / 2;
            float p[4] = { (float)sx[s], (float)yn, (float)sx[s], (float)(ym + 1) };
            float q[4] = { (float)sx[s], (float)ys, (float)sx[s], (float)(ym - 1) };
            hs__vz_item_add(sc, HS__VZ_G_LINE, p, 4);
            hs__vz_item_label(sc, "injection links of the %u nodes of %s", nodes_of[s],
                              m->name[N + s]);
            for (uint32_t i = 0; i < N; i++)
                if (m->node_switch[i] == s)
                    hs__vz_member(sc, m->node_inj[i]);
            hs__vz_item_add(sc, HS__VZ_G_LINE, q, 4);
            hs__vz_item_label(sc, "ejection links to the %u nodes of %s", nodes_of[s],
                              m->name[N + s]);
            for (uint32_t i = 0; i < N; i++)
                if (m->node_switch[i] == s)
                    hs__vz_member(sc, m->node_ej[i]);
            hs__vz_glyph_add(sc, HS__VZ_GL_NODE, sx[s], y_nodes, sw_w, NODE_H, N + s,
                             nodes_of[s], 0);
        }
    }
    for (uint32_t s = 0; s < S; s++)
        hs__vz_glyph_add(sc, HS__VZ_GL_SWITCH, sx[s], Y(s), sw_w, SW_H, N + s, 1, sw_w - 2);
    for (uint32_t l = 1; l <= h; l++)
        hs__vz_text_add(sc, 8, MARGIN_T + (h - l) * LEVEL_GAP + 4, HS__VZ_T_START, 10, 1, "%s %u",
                        v->names, l);
    hs__vz_text_add(sc, 8, y_nodes + 4, HS__VZ_T_START, 10, 1, "nodes");
#undef Y
    if (bundle_sw || !detail) {
        int k = asprintf(&sc->note, "%s%s%s", !detail ? "the nodes of each switch drawn as one box, "
                                                        "their links as one bundle each way" : "",
                         !detail && bundle_sw ? ";\n" : "",
                         bundle_sw ? "the cables of each switch drawn as stubs: up, down and "
                                     "within its level, each bundling that direction" : "");
        if (k < 0) {
            sc->note = NULL;
            sc->oom = 1;
        }
    }
    rc = 0;
out:
    free(sx);
    free(nx);
    free(sum);
    free(nodes_of);
    free(seen);
    free(node_order);
    free(base);
    free(by_pos);
    return rc;
}

static void lv_free(lv *v)
{
    free(v->level);
    free(v->order);
    free(v->count);
    free(v->aoff);
    free(v->alink);
}

static int lv_alloc(lv *v, const hs_viz_model *m, uint32_t h)
{
    v->m = m;
    v->h = h;
    v->level = calloc(m->S, sizeof *v->level);
    v->order = calloc(m->S, sizeof *v->order);
    v->count = calloc((size_t)h + 2, sizeof *v->count);
    v->aoff = calloc((size_t)m->S + 1, sizeof *v->aoff);
    v->alink = malloc(((size_t)m->L + 1) * sizeof *v->alink);
    uint32_t *fill = malloc(((size_t)m->S + 1) * sizeof *fill);
    if (!v->level || !v->order || !v->count || !v->aoff || !v->alink || !fill) {
        free(fill);
        lv_free(v);
        return HS_ENOMEM;
    }
    for (uint32_t l = 1; l <= m->L; l++)
        if (m->lk[l].kind == HS__VZ_SW)
            v->aoff[m->lk[l].from - m->N + 1]++;
    for (uint32_t s = 0; s < m->S; s++)
        v->aoff[s + 1] += v->aoff[s];
    memcpy(fill, v->aoff, ((size_t)m->S + 1) * sizeof *fill);
    for (uint32_t l = 1; l <= m->L; l++)
        if (m->lk[l].kind == HS__VZ_SW)
            v->alink[fill[m->lk[l].from - m->N]++] = l;
    free(fill);
    return 0;
}

int hs__vz_layout_fattree(const hs_viz_model *m, const hs__vz_layout_opts *o,
                          hs__vz_scene **scenes, size_t *nscenes)
{
    uint32_t h = 0;
    for (uint32_t s = 0; s < m->S; s++) {
        if (m->sw_level[s] < 1)
            return HS_ENOTSUP;
        if ((uint32_t)m->sw_level[s] > h)
            h = (uint32_t)m->sw_level[s];
    }
    if (h > 64)
        return HS_ENOTSUP;
    for (uint32_t i = 0; i < m->N; i++)
        if (m->sw_level[m->node_switch[i]] != 1)
            return HS_ENOTSUP;
    lv v = { 0 };
    if (lv_alloc(&v, m, h))
        return HS_ENOMEM;
    v.names = "level";
    for (uint32_t s = 0; s < m->S; s++) {
        v.level[s] = (uint32_t)m->sw_level[s];
        v.order[s] = v.count[v.level[s]]++;
    }
    hs__vz_scene *sc = hs__vz_scene_new(scenes, nscenes);
    int rc = sc ? levels_scene(&v, o, sc) : HS_ENOMEM;
    lv_free(&v);
    return rc;
}

/* ---- levels from the graph ---------------------------------------------------------- */

typedef struct bary {
    double   key;
    uint32_t s;
} bary;

static int cmp_bary(const void *x, const void *y)
{
    const bary *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->s < b->s ? -1 : a->s > b->s;
}

int hs__vz_layout_layered(const hs_viz_model *m, const hs__vz_layout_opts *o,
                          hs__vz_scene **scenes, size_t *nscenes)
{
    uint32_t N = m->N, S = m->S;
    /* switch adjacency (CSR), both directions of every cable */
    uint32_t *off = calloc((size_t)S + 1, sizeof *off), *adj = NULL, *fill = NULL;
    uint32_t *dist = malloc(S * sizeof *dist), *queue = malloc(S * sizeof *queue);
    bary *tmp = malloc(S * sizeof *tmp);
    lv v = { 0 };
    int rc = HS_ENOMEM;
    if (!off || !dist || !queue || !tmp)
        goto out;
    size_t ne = 0;
    for (uint32_t l = 1; l <= m->L; l++)
        if (m->lk[l].kind == HS__VZ_SW) {
            off[m->lk[l].from - N + 1]++;
            ne++;
        }
    for (uint32_t s = 0; s < S; s++)
        off[s + 1] += off[s];
    adj = malloc((ne ? ne : 1) * sizeof *adj);
    fill = malloc(S * sizeof *fill);
    if (!adj || !fill)
        goto out;
    memcpy(fill, off, S * sizeof *fill);
    for (uint32_t l = 1; l <= m->L; l++)
        if (m->lk[l].kind == HS__VZ_SW)
            adj[fill[m->lk[l].from - N]++] = m->lk[l].to - N;
    /* breadth-first from the switches that have nodes */
    uint32_t qh = 0, qt = 0, h = 1;
    for (uint32_t s = 0; s < S; s++)
        dist[s] = UINT32_MAX;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t s = m->node_switch[i];
        if (dist[s] == UINT32_MAX) {
            dist[s] = 1;
            queue[qt++] = s;
        }
    }
    while (qh < qt) {
        uint32_t s = queue[qh++];
        for (uint32_t k = off[s]; k < off[s + 1]; k++)
            if (dist[adj[k]] == UINT32_MAX) {
                dist[adj[k]] = dist[s] + 1;
                if (dist[s] + 1 > h)
                    h = dist[s] + 1;
                queue[qt++] = adj[k];
            }
    }
    int stray = 0;
    for (uint32_t s = 0; s < S; s++)
        if (dist[s] == UINT32_MAX)
            stray = 1;
    if ((rc = lv_alloc(&v, m, h + (uint32_t)stray)))
        goto out;
    v.names = "tier";
    v.h = h + (uint32_t)stray;
    for (uint32_t s = 0; s < S; s++) {
        v.level[s] = dist[s] == UINT32_MAX ? v.h : dist[s];
        v.order[s] = v.count[v.level[s]]++;
    }
    /* barycentre sweeps: a level ordered by the mean position of its
     * neighbours in the level below (up sweeps) or above (down sweeps) */
    for (int sw = 0; sw < SWEEPS; sw++) {
        int up = sw % 2 == 0;
        for (uint32_t li = 0; li < v.h; li++) {
            uint32_t lvl = up ? li + 1 : v.h - li;
            uint32_t n = 0;
            for (uint32_t s = 0; s < S; s++) {
                if (v.level[s] != lvl)
                    continue;
                double sum = 0;
                uint32_t cnt = 0;
                for (uint32_t k = off[s]; k < off[s + 1]; k++) {
                    uint32_t t = adj[k];
                    if (v.level[t] == (up ? lvl - 1 : lvl + 1)) {
                        sum += (v.order[t] + 0.5) / v.count[v.level[t]];
                        cnt++;
                    }
                }
                tmp[n].key = cnt ? sum / cnt : (v.order[s] + 0.5) / v.count[lvl];
                tmp[n].s = s;
                n++;
            }
            qsort(tmp, n, sizeof *tmp, cmp_bary);
            for (uint32_t i = 0; i < n; i++)
                v.order[tmp[i].s] = i;
        }
    }
    hs__vz_scene *sc = hs__vz_scene_new(scenes, nscenes);
    rc = sc ? levels_scene(&v, o, sc) : HS_ENOMEM;
out:
    lv_free(&v);
    free(off);
    free(adj);
    free(fill);
    free(dist);
    free(queue);
    free(tmp);
    return rc;
}
