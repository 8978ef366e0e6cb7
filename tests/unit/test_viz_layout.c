/* Unit tests for viz/'s layouts on generated analysis.json documents:
 * every link drawn exactly once where the picture is link by link, bundles
 * that hold what they say, marks inside the picture, up links leaving the
 * lower switch, the aggregated dragonfly leaving idle bundles out, tori
 * zooming on their worst planes, fallbacks for missing places. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopscope/viz.h"
#include "../../viz/vz.h"

/* ---- a generator of analysis.json ---------------------------------------------- */

typedef struct glink {
    int      kind;          /* HS__VZ_INJ, _EJ, _SW */
    uint32_t from, to;      /* node or switch index, by kind */
    const char *sub;
    int      level, dim, dir, wrap;
} glink;

typedef struct net {
    const char *kind;
    uint32_t N, S, L;
    uint32_t *node_sw;
    int32_t  *level, *group, *router;
    uint32_t  ncoord, *coord;
    glink    *lk;           /* 1..L */
    double   (*cf_of)(const struct net *, uint32_t l);  /* NAN: not enough data; -1: idle */
    const char *finding;    /* a finding's summary, NULL none */
    uint32_t  root_link;    /* the one root, 0 none */
} net;

static void net_alloc(net *n, uint32_t N, uint32_t S, uint32_t maxl)
{
    memset(n, 0, sizeof *n);
    n->N = N;
    n->S = S;
    n->node_sw = calloc(N, sizeof *n->node_sw);
    n->level = malloc(S * sizeof *n->level);
    n->group = malloc(S * sizeof *n->group);
    n->router = malloc(S * sizeof *n->router);
    n->lk = calloc(maxl + 1, sizeof *n->lk);
    assert_true(n->node_sw && n->level && n->group && n->router && n->lk);
    for (uint32_t s = 0; s < S; s++)
        n->level[s] = n->group[s] = n->router[s] = -1;
}

static void net_free(net *n)
{
    free(n->node_sw);
    free(n->level);
    free(n->group);
    free(n->router);
    free(n->coord);
    free(n->lk);
}

/* node links first (injection 1..N, ejection N+1..2N), as the fabric numbers them */
static void node_links(net *n)
{
    for (uint32_t i = 0; i < n->N; i++) {
        n->lk[1 + i] = (glink){ HS__VZ_INJ, i, n->node_sw[i], NULL, 0, 0, 0, 0 };
        n->lk[1 + n->N + i] = (glink){ HS__VZ_EJ, n->node_sw[i], i, NULL, 0, 0, 0, 0 };
    }
    n->L = 2 * n->N;
}

static void cable(net *n, uint32_t a, uint32_t b, const char *fwd, const char *rev, int level,
                  int dim, int wrap)
{
    n->lk[++n->L] = (glink){ HS__VZ_SW, a, b, fwd, level, dim, 1, wrap };
    n->lk[++n->L] = (glink){ HS__VZ_SW, b, a, rev, level, dim, -1, wrap };
}

/* The default states: every third link has a congested fraction (l mod 7)/7,
 * the next has traffic without enough data, the last is idle. */
static double cf_default(const net *n, uint32_t l)
{
    (void)n;
    return l % 3 == 0 ? (l % 7) / 7.0 : l % 3 == 1 ? NAN : -1;
}

static char *to_json(const net *n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    hs_json w;
    hs_json_init(&w, f, 0);
    hs_json_obj_begin(&w);
    hs_json_key(&w, "format");
    hs_json_str(&w, "hopscope-analysis");
    hs_json_key(&w, "version");
    hs_json_int(&w, 1);
    hs_json_key(&w, "topology");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "kind");
    hs_json_str(&w, n->kind);
    hs_json_key(&w, "spec");
    hs_json_str(&w, n->kind);
    hs_json_key(&w, "nodes");
    hs_json_uint(&w, n->N);
    hs_json_key(&w, "switches");
    hs_json_uint(&w, n->S);
    hs_json_key(&w, "links");
    hs_json_uint(&w, n->L);
    hs_json_key(&w, "link_capacity");
    hs_json_num(&w, 25e9);
    hs_json_obj_end(&w);
    hs_json_key(&w, "devices");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "nodes");
    hs_json_arr_begin(&w);
    for (uint32_t i = 0; i < n->N; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "n%u", i);
        hs_json_obj_begin(&w);
        hs_json_key(&w, "i");
        hs_json_uint(&w, i);
        hs_json_key(&w, "name");
        hs_json_str(&w, nm);
        hs_json_key(&w, "switch");
        hs_json_uint(&w, n->node_sw[i]);
        hs_json_key(&w, "injection");
        hs_json_uint(&w, 1 + i);
        hs_json_key(&w, "ejection");
        hs_json_uint(&w, 1 + n->N + i);
        hs_json_key(&w, "ranks");
        hs_json_arr_begin(&w);
        hs_json_uint(&w, i);
        hs_json_arr_end(&w);
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);
    hs_json_key(&w, "switches");
    hs_json_arr_begin(&w);
    for (uint32_t s = 0; s < n->S; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "s%u", s);
        hs_json_obj_begin(&w);
        hs_json_key(&w, "i");
        hs_json_uint(&w, s);
        hs_json_key(&w, "name");
        hs_json_str(&w, nm);
        if (n->level[s] >= 0) {
            hs_json_key(&w, "level");
            hs_json_uint(&w, (uint64_t)n->level[s]);
        }
        if (n->group[s] >= 0) {
            hs_json_key(&w, "group");
            hs_json_uint(&w, (uint64_t)n->group[s]);
            hs_json_key(&w, "router");
            hs_json_uint(&w, (uint64_t)n->router[s]);
        }
        if (n->ncoord) {
            hs_json_key(&w, "coord");
            hs_json_arr_begin(&w);
            for (uint32_t d = 0; d < n->ncoord; d++)
                hs_json_uint(&w, n->coord[(size_t)s * n->ncoord + d]);
            hs_json_arr_end(&w);
        }
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);
    hs_json_obj_end(&w);
    hs_json_key(&w, "links");
    hs_json_arr_begin(&w);
    for (uint32_t l = 1; l <= n->L; l++) {
        const glink *k = &n->lk[l];
        static const char *kinds[] = { "injection", "ejection", "switch" };
        hs_json_obj_begin(&w);
        hs_json_key(&w, "id");
        hs_json_uint(&w, l);
        hs_json_key(&w, "from");
        hs_json_uint(&w, k->from);
        hs_json_key(&w, "to");
        hs_json_uint(&w, k->to);
        hs_json_key(&w, "kind");
        hs_json_str(&w, kinds[k->kind]);
        if (k->sub) {
            hs_json_key(&w, "sub");
            hs_json_str(&w, k->sub);
        }
        if (k->sub && strcmp(k->sub, "torus") == 0) {
            hs_json_key(&w, "dim");
            hs_json_uint(&w, (uint64_t)k->dim);
            hs_json_key(&w, "dir");
            hs_json_int(&w, k->dir);
            if (k->wrap) {
                hs_json_key(&w, "wrap");
                hs_json_bool(&w, 1);
            }
        }
        double cf = (n->cf_of ? n->cf_of : cf_default)(n, l);
        hs_json_key(&w, "status");
        hs_json_str(&w, isfinite(cf) && cf >= 0 ? "ok" : "insufficient");
        if (isfinite(cf) && cf >= 0) {
            hs_json_key(&w, "traffic");
            hs_json_num(&w, 500);
            hs_json_key(&w, "congested");   /* cf = congested / traffic, as analyze writes */
            hs_json_num(&w, 500 * cf);
            hs_json_key(&w, "cf");
            hs_json_num(&w, cf);
            hs_json_key(&w, "cf_se");
            hs_json_num(&w, 0.02);
            hs_json_key(&w, "load");
            hs_json_num(&w, 0.5);
        } else if (!isfinite(cf)) {
            hs_json_key(&w, "traffic");
            hs_json_num(&w, 5);
        }
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);
    if (n->finding) {
        hs_json_key(&w, "diagnosis");
        hs_json_arr_begin(&w);
        hs_json_obj_begin(&w);
        hs_json_key(&w, "kind");
        hs_json_str(&w, "pattern");
        hs_json_key(&w, "summary");
        hs_json_str(&w, n->finding);
        hs_json_obj_end(&w);
        hs_json_arr_end(&w);
    }
    if (n->root_link) {
        hs_json_key(&w, "roots");
        hs_json_arr_begin(&w);
        hs_json_obj_begin(&w);
        hs_json_key(&w, "links");
        hs_json_arr_begin(&w);
        hs_json_uint(&w, n->root_link);
        hs_json_arr_end(&w);
        hs_json_obj_end(&w);
        hs_json_arr_end(&w);
    }
    hs_json_obj_end(&w);
    assert_int_equal(hs_json_finish(&w), 0);
    fclose(f);
    return text;
}

static hs_viz_model *model_of(const net *n)
{
    char *t = to_json(n);
    hs_viz_model *m = NULL;
    hs_error e;
    int rc = hs_viz_parse(t, strlen(t), "gen.json", &m, &e);
    if (rc)
        fail_msg("generated document refused: %s", hs_error_str(&e, rc));
    free(t);
    return m;
}

/* ---- networks ------------------------------------------------------------------ */

static void fattree2(net *n, uint32_t k) /* k-ary 2-tree: k leaves, k spines, k nodes per leaf */
{
    net_alloc(n, k * k, 2 * k, 2 * k * k + 2 * k * k);
    n->kind = "fattree";
    for (uint32_t i = 0; i < n->N; i++)
        n->node_sw[i] = i / k;
    for (uint32_t s = 0; s < n->S; s++)
        n->level[s] = s < k ? 1 : 2;
    node_links(n);
    for (uint32_t a = 0; a < k; a++)
        for (uint32_t b = 0; b < k; b++)
            cable(n, a, k + b, "up", "down", 1, 0, 0);
}

static void dragonfly(net *n, uint32_t G, uint32_t A, uint32_t p)
{
    net_alloc(n, G * A * p, G * A, 2 * G * A * p + G * A * A + G * G);
    n->kind = "dragonfly";
    for (uint32_t i = 0; i < n->N; i++)
        n->node_sw[i] = i / p;
    for (uint32_t s = 0; s < n->S; s++) {
        n->group[s] = (int32_t)(s / A);
        n->router[s] = (int32_t)(s % A);
    }
    node_links(n);
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t a = 0; a < A; a++)
            for (uint32_t b = a + 1; b < A; b++)
                cable(n, g * A + a, g * A + b, "local", "local", 0, 0, 0);
    for (uint32_t g = 0; g < G; g++)
        for (uint32_t h = g + 1; h < G; h++)
            cable(n, g * A + (h % A), h * A + (g % A), "global", "global", 0, 0, 0);
}

static void torus(net *n, const uint32_t *K, uint32_t D)
{
    uint32_t S = 1;
    for (uint32_t d = 0; d < D; d++)
        S *= K[d];
    net_alloc(n, S, S, 2 * S + 2 * S * D);
    n->kind = "torus";
    n->ncoord = D;
    n->coord = calloc((size_t)S * D, sizeof *n->coord);
    assert_non_null(n->coord);
    for (uint32_t s = 0; s < S; s++) {
        uint32_t x = s;
        for (uint32_t d = 0; d < D; d++) {
            n->coord[(size_t)s * D + d] = x % K[d];
            x /= K[d];
        }
    }
    for (uint32_t i = 0; i < n->N; i++)
        n->node_sw[i] = i;
    node_links(n);
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t d = 0, stride = 1; d < D; stride *= K[d], d++) {
            uint32_t c = n->coord[(size_t)s * D + d];
            uint32_t t = c + 1 < K[d] ? s + stride : s - c * stride;
            cable(n, s, t, "torus", "torus", 0, (int)d, c + 1 == K[d]);
        }
}

/* ---- checks -------------------------------------------------------------------- */

/* Every link exactly once among the scene's single-link items. */
static void each_link_once(const hs_viz_model *m, const hs__vz_scene *s)
{
    uint32_t *seen = calloc((size_t)m->L + 1, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < s->nit; i++)
        if (s->it[i].n == 1)
            seen[s->mem[s->it[i].first]]++;
    for (uint32_t l = 1; l <= m->L; l++)
        if (seen[l] != 1)
            fail_msg("link %u drawn %u times", l, seen[l]);
    free(seen);
}

/* Every mark and device inside the scene's extent. */
static void inside(const hs__vz_scene *s)
{
    for (size_t i = 0; i < s->nit; i++) {
        const hs__vz_item *it = &s->it[i];
        int np = it->geom == HS__VZ_G_LINE ? 4 : it->geom == HS__VZ_G_QUAD ? 6 : 0;
        for (int k = 0; k < np; k += 2)
            if (!(it->p[k] >= 0 && it->p[k] <= s->w && it->p[k + 1] >= 0 && it->p[k + 1] <= s->h))
                fail_msg("item %zu point (%g, %g) outside %g x %g", i, it->p[k], it->p[k + 1],
                         s->w, s->h);
        if (it->geom == HS__VZ_G_SECTOR)
            assert_true(it->p[0] - it->p[3] >= 0 && it->p[0] + it->p[3] <= s->w);
    }
    for (size_t i = 0; i < s->ngl; i++)
        assert_true(s->gl[i].x >= 0 && s->gl[i].x <= s->w && s->gl[i].y >= 0 && s->gl[i].y <= s->h);
}

static void layout(const hs_viz_model *m, int detail, unsigned zoom, hs__vz_scene **sc, size_t *n)
{
    hs__vz_layout_opts o = { detail, zoom, m->est, 0, 0, 0 };
    assert_int_equal(hs__vz_layout(m, &o, sc, n), 0);
    assert_true(*n >= 1);
}

static void free_scenes(hs__vz_scene *sc, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hs__vz_scene_free(&sc[i]);
    free(sc);
}

static int has_text(const hs__vz_scene *s, const char *t)
{
    for (size_t i = 0; i < s->ntx; i++)
        if (strcmp(s->tx[i].s, t) == 0)
            return 1;
    return 0;
}

static void test_fattree(void **state)
{
    (void)state;
    net n;
    fattree2(&n, 4);
    hs_viz_model *m = model_of(&n);
    hs__vz_scene *sc;
    size_t ns;
    layout(m, HS_VIZ_DETAIL_AUTO, 3, &sc, &ns);
    assert_int_equal(ns, 1);
    each_link_once(m, &sc[0]);
    inside(&sc[0]);
    assert_true(has_text(&sc[0], "level 2") && has_text(&sc[0], "nodes"));
    /* an up link leaves the lower switch upwards, a down link the upper one downwards */
    for (size_t i = 0; i < sc[0].nit; i++) {
        const hs__vz_item *it = &sc[0].it[i];
        const hs__vz_link *k = &m->lk[sc[0].mem[it->first]];
        if (k->kind == HS__VZ_SW)
            assert_true(k->sub == HS__VZ_SUB_UP ? it->p[1] > it->p[3] : it->p[1] < it->p[3]);
    }
    /* aggregated: a box per leaf with one bundle each way holding its
     * nodes' links; each switch's cables as stubs, up (leaves) and down
     * (spines), each bundling the 4 cables of that direction */
    hs__vz_scene *ag;
    size_t na;
    layout(m, HS_VIZ_DETAIL_AGGREGATE, 3, &ag, &na);
    assert_int_equal(ag[0].nit, 2 * 4 + 4 + 4);
    uint32_t *seen = calloc((size_t)m->L + 1, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < ag[0].nit; i++) {
        const hs__vz_item *it = &ag[0].it[i];
        assert_int_equal(it->n, 4);
        const hs__vz_link *k0 = &m->lk[ag[0].mem[it->first]];
        for (uint32_t j = 0; j < it->n; j++) {
            const hs__vz_link *k = &m->lk[ag[0].mem[it->first + j]];
            seen[ag[0].mem[it->first + j]]++;
            assert_true(k->kind == k0->kind && k->sub == k0->sub);
            if (k->kind == HS__VZ_SW)
                assert_int_equal(k->from, k0->from);
        }
    }
    for (uint32_t l = 1; l <= m->L; l++)
        assert_int_equal(seen[l], 1);
    free(seen);
    inside(&ag[0]);
    assert_non_null(ag[0].note);
    /* the same input, the same scene */
    hs__vz_scene *again;
    size_t n2;
    layout(m, HS_VIZ_DETAIL_AUTO, 3, &again, &n2);
    assert_int_equal(again[0].nit, sc[0].nit);
    assert_memory_equal(again[0].it, sc[0].it, sc[0].nit * sizeof *sc[0].it);
    free_scenes(again, n2);
    free_scenes(ag, na);
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
}

/* The mark texts of a scene, space-separated, in order. */
static void marks_of(const hs__vz_scene *s, char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < s->ntx; i++)
        if (s->tx[i].mark)
            k += (size_t)snprintf(out + k, n - k, "%s%s", k ? " " : "", s->tx[i].s);
}

/* Devices named in a finding's text, and the ends of a root, are named in
 * the picture: each once, clear of one another, inside the scene; nothing
 * else is; small multiples carry no names. */
static void test_marks(void **state)
{
    (void)state;
    net n;
    fattree2(&n, 8); /* 64 nodes: too narrow for their names under the boxes */
    /* "n5." ends a sentence, "s3->s9" is a link, "n66" and "n5x" are no device;
     * n5 and n6 are neighbours */
    n.finding = "Too much sent from node n5 (rank 5) over s3->s9, to n6 and n63; not n66 or n5x.";
    n.root_link = 1 + n.N + 40; /* ejection link s5 -> n40 */
    hs_viz_model *m = model_of(&n);
    hs__vz_scene *sc;
    size_t ns;
    layout(m, HS_VIZ_DETAIL_FULL, 3, &sc, &ns);
    char got[512];
    marks_of(&sc[0], got, sizeof got);
    /* in glyph order (nodes first); switches' names fit inside their boxes
     * (outlined, no second label): n5 n6 n40 n63 */
    assert_string_equal(got, "n5 n6 n40 n63");
    uint32_t outlined = 0;
    for (size_t i = 0; i < sc[0].ngl; i++) {
        const hs__vz_glyph *g = &sc[0].gl[i];
        int want = g->dev == 5 || g->dev == 6 || g->dev == 40 || g->dev == 63 ||
                   g->dev == m->N + 3 || g->dev == m->N + 9 || g->dev == m->N + 5;
        assert_int_equal(g->mark, want);
        outlined += g->mark;
    }
    assert_int_equal(outlined, 7);
    /* no two names overlap (boxes as marks.c estimates them), all inside */
    for (size_t i = 0; i < sc[0].ntx; i++) {
        const hs__vz_text *a = &sc[0].tx[i];
        if (!a->mark)
            continue;
        double wa = strlen(a->s) * 7.0;
        assert_true(a->x - wa / 2 >= 0 && a->x + wa / 2 <= sc[0].w && a->y <= sc[0].h);
        for (size_t j = i + 1; j < sc[0].ntx; j++) {
            const hs__vz_text *b = &sc[0].tx[j];
            if (!b->mark)
                continue;
            double wb = strlen(b->s) * 7.0;
            int apart = a->x + wa / 2 <= b->x - wb / 2 || b->x + wb / 2 <= a->x - wa / 2 ||
                        fabs(a->y - b->y) >= 10;
            if (!apart)
                fail_msg("'%s' at (%g, %g) overlaps '%s' at (%g, %g)", a->s, a->x, a->y, b->s,
                         b->x, b->y);
        }
    }
    free_scenes(sc, ns);
    /* aggregated: the box of s0's nodes lists n5 and n6 (s0 holds n0..n7),
     * s5's lists n40, s7's n63 */
    layout(m, HS_VIZ_DETAIL_AGGREGATE, 3, &sc, &ns);
    marks_of(&sc[0], got, sizeof got);
    assert_string_equal(got, "n5 n6 n40 n63");
    free_scenes(sc, ns);
    /* small multiples: none */
    hs__vz_layout_opts o = { HS_VIZ_DETAIL_AUTO, 0, m->est, 1, 1280, 0 };
    assert_int_equal(hs__vz_layout(m, &o, &sc, &ns), 0);
    marks_of(&sc[0], got, sizeof got);
    assert_string_equal(got, "");
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
}

static void test_dragonfly(void **state)
{
    (void)state;
    net n;
    dragonfly(&n, 9, 4, 2);
    hs_viz_model *m = model_of(&n);
    hs__vz_scene *sc;
    size_t ns;
    layout(m, HS_VIZ_DETAIL_AUTO, 3, &sc, &ns);
    assert_int_equal(ns, 1); /* small: router by router, no details */
    each_link_once(m, &sc[0]);
    inside(&sc[0]);
    assert_true(has_text(&sc[0], "g8"));
    free_scenes(sc, ns);
    /* per group: 3 bands a group; a bundle per ordered pair of groups that
     * carries traffic; the worst groups in detail, each with its local
     * links once */
    layout(m, HS_VIZ_DETAIL_AGGREGATE, 2, &sc, &ns);
    assert_int_equal(ns, 3);
    size_t sectors = 0, bundles = 0, busy = 0;
    for (size_t i = 0; i < sc[0].nit; i++) {
        const hs__vz_item *it = &sc[0].it[i];
        if (it->geom == HS__VZ_G_SECTOR)
            sectors++;
        else
            bundles++;
    }
    for (uint32_t l = 1; l <= m->L; l++) /* one global cable per pair: a bundle per busy link */
        busy += m->lk[l].sub == HS__VZ_SUB_GLOBAL && m->est[l].state != HS__VZ_IDLE;
    assert_int_equal(sectors, 3 * 9);
    assert_int_equal(bundles, busy);
    assert_true(busy < 9 * 8); /* some were idle and are left out */
    inside(&sc[0]);
    for (size_t z = 1; z < ns; z++) {
        inside(&sc[z]);
        assert_non_null(sc[z].title);
        assert_int_equal(strncmp(sc[z].title, "group ", 6), 0);
    }
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
}

/* torus states: links leaving plane z = 7 are the most congested */
static double cf_plane7(const net *n, uint32_t l)
{
    const glink *k = &n->lk[l];
    uint32_t s = k->kind == HS__VZ_INJ ? k->to : k->from;
    if (k->kind != HS__VZ_INJ && n->coord[(size_t)s * 3 + 2] == 7)
        return 0.9;
    return cf_default(n, l) >= 0 ? 0.1 : cf_default(n, l);
}

static void test_torus(void **state)
{
    (void)state;
    net n;
    uint32_t K[3] = { 4, 3, 5 };
    torus(&n, K, 3);
    hs_viz_model *m = model_of(&n);
    hs__vz_scene *sc;
    size_t ns;
    layout(m, HS_VIZ_DETAIL_AUTO, 3, &sc, &ns);
    assert_int_equal(ns, 1); /* 5 planes: all drawn, with the projections */
    each_link_once(m, &sc[0]);
    inside(&sc[0]);
    assert_true(has_text(&sc[0], "plane z=4") && has_text(&sc[0], "projection on y-z (all x)"));
    /* projections: a bundle holds one direction over the dimension projected away */
    size_t bundles = 0;
    for (size_t i = 0; i < sc[0].nit; i++) {
        const hs__vz_item *it = &sc[0].it[i];
        if (it->n < 2)
            continue;
        bundles++;
        const hs__vz_link *k0 = &m->lk[sc[0].mem[it->first]];
        for (uint32_t j = 1; j < it->n; j++) {
            const hs__vz_link *k = &m->lk[sc[0].mem[it->first + j]];
            assert_int_equal(k->kind, k0->kind);
            if (k->kind == HS__VZ_SW)
                assert_true(k->dim == k0->dim && k->dir == k0->dir && k->wrap == k0->wrap);
        }
    }
    /* x-y: 12 cells x (4 directions + 2 node bundles) of 5; x-z 20 x 6 of 3;
     * y-z 15 x 6 of 4 */
    assert_int_equal(bundles, 12 * 6 + 20 * 6 + 15 * 6);
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
    /* 20 planes: the projections, and the worst planes in detail */
    uint32_t K2[3] = { 3, 3, 20 };
    torus(&n, K2, 3);
    n.cf_of = cf_plane7;
    m = model_of(&n);
    layout(m, HS_VIZ_DETAIL_AUTO, 2, &sc, &ns);
    assert_int_equal(ns, 3);
    assert_false(has_text(&sc[0], "plane z=0"));
    assert_true(has_text(&sc[0], "projection on x-y (all z)"));
    assert_int_equal(strncmp(sc[1].title, "plane z=7: worst congested fraction 0.90", 40), 0);
    inside(&sc[1]);
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
}

static void test_fallbacks(void **state)
{
    (void)state;
    /* a fat-tree whose levels are missing, a torus without coordinates:
     * drawn in tiers from the graph, every link once */
    net n;
    fattree2(&n, 3);
    for (uint32_t s = 0; s < n.S; s++)
        n.level[s] = -1;
    hs_viz_model *m = model_of(&n);
    hs__vz_scene *sc;
    size_t ns;
    layout(m, HS_VIZ_DETAIL_AUTO, 3, &sc, &ns);
    assert_true(has_text(&sc[0], "tier 2") && !has_text(&sc[0], "tier 3"));
    each_link_once(m, &sc[0]);
    inside(&sc[0]);
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
    uint32_t K[2] = { 3, 3 };
    torus(&n, K, 2);
    n.ncoord = 0;
    m = model_of(&n);
    layout(m, HS_VIZ_DETAIL_AUTO, 3, &sc, &ns);
    assert_true(has_text(&sc[0], "tier 1"));
    each_link_once(m, &sc[0]);
    free_scenes(sc, ns);
    hs_viz_free(m);
    net_free(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_dragonfly),
        cmocka_unit_test(test_torus),
        cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
