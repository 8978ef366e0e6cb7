/* scenarios: the randomized scenario suite's generator, truth labeller and
 * scorer (issue 11, section 6; docs/validation.md "Randomized scenarios").
 * Driven by examples/scenarios/run.sh, which runs the hopscope command.
 *
 *   scenarios draw SEED ATTEMPT
 *       prints the scenario drawn from (SEED, ATTEMPT) as shell assignments:
 *       CLASS (the cause set intended by construction), TOPO, APP (gen
 *       arguments, or rec:NAME for a recorded MPI trace), MAP (the drawn
 *       mapping), BG (background spec or empty), FIELD (in-band options).
 *   scenarios label CLASS A B C
 *       reads the ground truth of run directories A (as drawn), B (A without
 *       its background) and C (B with the compact, linear mapping) and
 *       prints EXPECTED (the cause set the truth gives, by the rule below),
 *       PRIMARY, VERDICT (accept, or redraw with the reason) and NOTE.
 *   scenarios score A EXPECTED PRIMARY
 *       reads A/analysis.json and A's truth; prints REPORTED, TOP, FULLY,
 *       TOPRIGHT, ABSTAIN, then one "cf DECODER FIELD N SUMERR MAXERR IN2SE"
 *       line per decoder with CF estimates on links with enough truth.
 *   scenarios links A B C
 *       prints the rule's inputs (truth per link in the three runs) for the
 *       links that are not cool somewhere: for looking into a scenario.
 *   scenarios report RESULTS.tsv CFLINES.tsv TITLE
 *       prints the markdown tables of one draw.
 *
 * The truth rule (never what hopscope says), on links with at least
 * MIN_TRUE_PACKETS of the application's packets (truth.bin, app phases):
 *   hot       application CF >= HOT_CF
 *   cool      application CF <  COOL_CF (or fewer packets than the floor)
 *   root-like hot, busy >= stall (the link itself was the bottleneck, not
 *             credit back-pressure from downstream) and busy >= BUSY_MIN of
 *             the run (HOL victims transmit almost nothing)
 *   interference in E: a link hot in A that carries background packets and
 *             is cool in B (the congestion comes with the background);
 *   pattern in E: an injection or ejection link root-like in B (the job's
 *             own traffic, with this mapping, overloads an endpoint) and
 *             hot in A;
 *   mapping in E: a switch-to-switch link root-like in B (the job's own
 *             traffic overloads the network's interior) and hot in A;
 *             (hot in A: the diagnosis is of run A, and a cause counts
 *             only when its congestion is there: a background that
 *             throttles the job below its own bottleneck leaves that
 *             bottleneck cool in A, and no data of A can show it);
 *   none (E empty): every link of A cool.  Anything else (a link in
 *             [COOL_CF, HOT_CF), or hot links with no cause) is ambiguous:
 *             redrawn, and never scored (VERDICT=ambiguous).
 *   For an incast (FUNNEL=1: all the job's traffic goes into one node,
 *   known by construction) every link it uses funnels into that node, so a
 *   root-like switch-to-switch link counts for pattern, not mapping.
 * A scenario is accepted when E equals the construction's CLASS and the
 * class's own check holds (mapping: the compact mapping C has at most half
 * the root-like interior links of B; interference: B is all cool);
 * otherwise the driver redraws (next ATTEMPT); after the last attempt the
 * scenario is kept with E from the truth (relabelled), unless the truth was
 * ambiguous: then it is listed as unlabelled and not scored.
 *
 * The primary cause is the one whose links (as above, in A) hold the most
 * truly congested application packets. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopscope/common.h"

#define MIN_TRUE_PACKETS 100
#define HOT_CF 0.4
#define COOL_CF 0.15
#define CONG_CF 0.25   /* the analyzer's threshold (--cf-threshold) */
#define BUSY_MIN 0.02

enum { C_PATTERN = 1, C_MAPPING = 2, C_INTERFERENCE = 4 };

static int die(const char *fmt, const char *a)
{
    fprintf(stderr, "scenarios: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    return 2;
}

/* ---- drawing ------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static unsigned pick(unsigned n) { return (unsigned)(rnd() % n); }

typedef struct topo {
    const char *spec;
    unsigned nodes;
    int tight;   /* tapered or low-bisection: a bad mapping can congest it */
} topo;

static const topo TOPOS[] = {
    {"fattree:k=4,n=2", 16, 0},
    {"fattree:k=8,n=2", 64, 0},
    {"fattree:k=4,n=3", 64, 0},
    {"fattree:k=8,n=2,taper=2", 64, 1},
    {"fattree:k=8,n=2,taper=4", 64, 1},
    {"fattree:k=8,n=2,taper=2,routing=adaptive", 64, 1},
    {"fattree:down=4x8,up=1x2", 32, 1},
    {"fattree:down=8x4,up=1x4", 32, 1},
    {"fattree:down=4x4x4,up=1x2x2", 64, 1},
    {"dragonfly:a=4,p=2,h=2,g=5,routing=min", 40, 1},
    {"dragonfly:a=4,p=2,h=2,g=5,routing=valiant", 40, 1},
    {"dragonfly:a=4,p=2,h=2,g=5,routing=ugal", 40, 1},
    {"dragonfly:a=4,p=2,h=2,g=9,routing=min", 72, 1},
    {"dragonfly:a=4,p=2,h=2,g=9,routing=ugal", 72, 1},
    {"torus:4x4", 16, 1},
    {"torus:4x4x2", 32, 1},
    {"torus:4x4x4", 64, 1},
    {"torus:8x8", 64, 1},
    {"torus:6x4x4", 96, 1},
};
#define NTOPOS (sizeof TOPOS / sizeof TOPOS[0])

static const char *class_name(unsigned set)
{
    static const char *names[8] = {"none", "pattern", "mapping", "pattern+mapping",
                                   "interference", "pattern+interference",
                                   "mapping+interference", "pattern+mapping+interference"};
    return names[set & 7];
}

static int parse_set(const char *s, unsigned *out)
{
    for (unsigned i = 0; i < 8; i++)
        if (!strcmp(s, class_name(i))) {
            *out = i;
            return 0;
        }
    return -1;
}

/* Ranks: a power of two from lo up to at most max (>= lo). */
static unsigned pow2_ranks(unsigned lo, unsigned max)
{
    unsigned opts[8], n = 0;
    for (unsigned r = lo; r <= max && n < 8; r *= 2)
        opts[n++] = r;
    return n ? opts[pick(n)] : lo;
}

static const topo *pick_topo(int need_tight)
{
    for (;;) {
        const topo *t = &TOPOS[pick(NTOPOS)];
        if (!need_tight || t->tight)
            return t;
    }
}

/* A light job: nothing of its own is congested on a compact mapping. */
static void light_app(char *app, size_t n, unsigned ranks)
{
    switch (pick(5)) {
    case 0:
        snprintf(app, n, "canary --ranks %u --iters %u", ranks, 20 + pick(30));
        break;
    case 1:
        snprintf(app, n, "halo3d --ranks %u --iters %u --size %uK --compute 20us", ranks,
                 4 + pick(6), 1u << pick(3));
        break;
    case 2:
        snprintf(app, n, "pingpong --ranks %u --iters %u --size %u", ranks, 20 + pick(30),
                 8u << pick(8));
        break;
    case 3:
        snprintf(app, n, "pf3d --ranks %u --iters %u --size 1K --a2a-size 1K --compute 20us",
                 ranks, 3 + pick(4));
        break;
    default:
        snprintf(app, n, "rec:ring");
        break;
    }
}

/* A job whose own traffic loads the network: congests it when scattered. */
static void heavy_app(char *app, size_t n, unsigned ranks)
{
    if (pick(3) == 0 && ranks >= 8)
        snprintf(app, n, "pf3d --ranks %u --iters %u --group %u --size 16K --a2a-size 32K "
                 "--compute 2us", ranks, 3 + pick(4), 4u << pick(2));
    else
        snprintf(app, n, "halo3d --ranks %u --iters %u --size %uK --compute 2us", ranks,
                 4 + pick(5), 32u << pick(2));
}

/* A background that shares links with the job: GPCNeT's congestors on the
 * free nodes.  The replay deals floor(free x frac) nodes to the kinds and
 * refuses fewer than two each: "mixed" (four kinds, kept at 16 nodes or
 * more) and "incast+alltoall" (two) fall back to one incast where they
 * would not fit, as a user would choose. */
static void background(char *bg, size_t n, unsigned free_nodes)
{
    static const char *kinds[] = {"incast", "rma_incast", "incast+alltoall", "alltoall", "mixed"};
    static const unsigned nkinds[] = {1, 1, 2, 1, 4};
    static const char *sizes[] = {"4K", "16K", "64K"};
    unsigned k = pick(5), tenths = 4 + pick(6);
    if (k == 4 && free_nodes * tenths < 160)
        k = 0;
    if (free_nodes * tenths / 10 < 2 * nkinds[k])
        k = 0;
    snprintf(bg, n, "%s:frac=%.1f,size=%s", kinds[k], 0.1 * tenths,
             k == 3 ? "64K" : sizes[pick(3)]);
}

/* A light job that crosses the network enough to meet a background: a
 * halo of small faces with long computation, or pairs bouncing a few
 * packets, scattered or placed in a block. */
static void meeting_app(char *app, size_t n, unsigned ranks)
{
    if (pick(2))
        snprintf(app, n, "halo3d --ranks %u --iters %u --size %uK --compute 30us", ranks,
                 20 + pick(21), 4u << pick(3));
    else
        snprintf(app, n, "pingpong --ranks %u --iters %u --size %uK", ranks, 100 + pick(200),
                 4u << pick(3));
}

static int cmd_draw(uint64_t seed, uint64_t attempt)
{
    rng_state = seed * 0x100000001b3ULL + attempt * 0x9e3779b97f4a7c15ULL + 1;
    (void)rnd();
    static const unsigned classes[] = {0, C_PATTERN, C_MAPPING, C_INTERFERENCE,
                                       C_MAPPING | C_INTERFERENCE};
    unsigned cls = classes[seed % 5];   /* classes in turn: an even spread */
    const topo *t = pick_topo(cls & C_MAPPING);
    char app[256], map[64], bg[128] = "";
    unsigned half = t->nodes / 2, ranks;
    switch (cls) {
    case 0:
        ranks = pow2_ranks(4, t->nodes);
        light_app(app, sizeof app, ranks);
        snprintf(map, sizeof map, "linear");
        break;
    case C_PATTERN:
        ranks = pow2_ranks(8, t->nodes);
        if (pick(4) == 0)
            snprintf(app, sizeof app, "rec:incast");
        else
            snprintf(app, sizeof app, "incast --ranks %u --iters %u --size %uK --root %u",
                     ranks, 3 + pick(6), 16u << pick(3), pick(ranks));
        if (pick(2))
            snprintf(map, sizeof map, "linear");
        else
            snprintf(map, sizeof map, "random:%u", 1 + pick(1000));
        break;
    case C_MAPPING:
        ranks = pow2_ranks(16, half);
        heavy_app(app, sizeof app, ranks);
        snprintf(map, sizeof map, "random:%u", 1 + pick(1000));
        break;
    case C_INTERFERENCE:
        ranks = pow2_ranks(8, half);
        meeting_app(app, sizeof app, ranks);
        if (pick(10) < 2)
            snprintf(map, sizeof map, "linear");
        else
            snprintf(map, sizeof map, "random:%u", 1 + pick(1000));
        background(bg, sizeof bg, t->nodes - ranks);
        break;
    default:
        ranks = pow2_ranks(8, half);
        heavy_app(app, sizeof app, ranks);
        snprintf(map, sizeof map, "random:%u", 1 + pick(1000));
        background(bg, sizeof bg, t->nodes - ranks);
        break;
    }
    static const char *fields[] = {"", "", "--bits 5", "--bits 7", "--bits 8", "--exact"};
    /* An incast's traffic all goes into one node: every link it uses funnels
     * into that node's ejection link (the label rule needs to know). */
    int funnel = !strncmp(app, "incast", 6) || !strcmp(app, "rec:incast");
    printf("FUNNEL=%d\n", funnel);
    printf("CLASS=%s\nTOPO=%s\nAPP='%s'\nMAP=%s\nBG='%s'\nFIELD='%s'\n",
           class_name(cls), t->spec, app, map, bg, fields[pick(6)]);
    return 0;
}

/* ---- ground truth --------------------------------------------------------- */

typedef struct ltruth {
    uint64_t app_pk, app_cg, bg_pk, busy, stall;
    char kind; /* 'i' injection, 'e' ejection, 's' switch */
} ltruth;

typedef struct run {
    uint32_t L;
    ltruth *l;
    uint64_t end_ps;
} run;

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = n > 0 ? malloc((size_t)n) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

/* Which phase ids are the application's: app.json phases[].app. */
static int app_phases(const char *dir, uint8_t isapp[65536])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/app.json", dir);
    hs_jdoc *d;
    hs_error err;
    if (hs_jdoc_load(path, 1u << 30, &d, &err) != 0)
        return -1;
    const hs_jv *ph = hs_jv_get(d, hs_jdoc_root(d), "phases");
    memset(isapp, 0, 65536);
    for (size_t i = 0; i < hs_jv_len(ph); i++) {
        const hs_jv *p = hs_jv_at(d, ph, i);
        uint64_t id;
        int a = 0;
        if (hs_jv_u64(hs_jv_get(d, p, "id"), &id) == 0 && id < 65536 &&
            hs_jv_bool(hs_jv_get(d, p, "app"), &a) == 0)
            isapp[id] = (uint8_t)a;
    }
    hs_jdoc_free(d);
    return 0;
}

static int load_run(const char *dir, run *r)
{
    static uint8_t isapp[65536];
    char path[4096];
    memset(r, 0, sizeof *r);
    if (app_phases(dir, isapp) != 0)
        return die("%s: no readable app.json", dir);
    size_t n;
    snprintf(path, sizeof path, "%s/truth.bin", dir);
    unsigned char *b = slurp(path, &n);
    if (!b || n < 48 || memcmp(b, "HSTRUTH", 8) != 0 || rd32(b + 8) != 1)
        return die("%s: no readable truth.bin", dir);
    uint32_t L = rd32(b + 16), P = rd32(b + 20), W = rd32(b + 24), eb = rd32(b + 28);
    size_t off = rd32(b + 12);
    size_t ids = off, ents = off + 4 * (size_t)P + 8 * (size_t)W;
    if (eb != 40 || ents + 40 * (size_t)L * (1 + P) > n)
        return die("%s: truth.bin has an unexpected size", dir);
    r->L = L;
    r->l = calloc(L + 1, sizeof *r->l);
    for (uint32_t i = 0; i < L; i++) {
        const unsigned char *e = b + ents + 40 * (size_t)i;
        r->l[i + 1].busy = rd64(e + 16);
        r->l[i + 1].stall = rd64(e + 24);
    }
    for (uint32_t p = 0; p < P; p++) {
        uint32_t id = rd32(b + ids + 4 * (size_t)p);
        for (uint32_t i = 0; i < L; i++) {
            const unsigned char *e = b + ents + 40 * ((size_t)(p + 1) * L + i);
            ltruth *t = &r->l[i + 1];
            if (id < 65536 && isapp[id]) {
                t->app_pk += rd64(e);
                t->app_cg += rd64(e + 32);
            } else {
                t->bg_pk += rd64(e);
            }
        }
    }
    free(b);
    snprintf(path, sizeof path, "%s/links.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return die("%s: no links.tsv", dir);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        unsigned id;
        char kind[32];
        if (sscanf(line, "%u\t%31s", &id, kind) == 2 && id >= 1 && id <= L)
            r->l[id].kind = kind[0];
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    hs_jdoc *d;
    hs_error err;
    if (hs_jdoc_load(path, 1u << 26, &d, &err) != 0)
        return die("%s: no readable manifest.json", dir);
    hs_jv_u64(hs_jv_get(d, hs_jv_get(d, hs_jdoc_root(d), "run"), "end_ps"), &r->end_ps);
    hs_jdoc_free(d);
    return 0;
}

static double tcf(const ltruth *t) { return t->app_pk ? (double)t->app_cg / (double)t->app_pk : 0; }
static int hot(const ltruth *t) { return t->app_pk >= MIN_TRUE_PACKETS && tcf(t) >= HOT_CF; }
static int cool(const ltruth *t) { return t->app_pk < MIN_TRUE_PACKETS || tcf(t) < COOL_CF; }
static int rootlike(const ltruth *t, uint64_t end)
{
    return hot(t) && t->busy >= t->stall && (double)t->busy >= BUSY_MIN * (double)end;
}
/* the same at the analyzer's own threshold (CONG_CF: "congested") */
static int cong(const ltruth *t) { return t->app_pk >= MIN_TRUE_PACKETS && tcf(t) >= CONG_CF; }
static int rootlike_cong(const ltruth *t, uint64_t end)
{
    return cong(t) && t->busy >= t->stall && (double)t->busy >= BUSY_MIN * (double)end;
}

typedef struct label {
    unsigned set, primary, undetermined;
    int ambiguous;
    unsigned n_int, n_pat, n_map, n_map_c, n_unexpl;
    double mass[3];
} label;

/* The truth rule of the header comment. */
static void do_label(const run *A, const run *B, const run *C, int funnel, label *o)
{
    memset(o, 0, sizeof *o);
    for (uint32_t i = 1; i <= A->L; i++) {
        const ltruth *a = &A->l[i], *b = &B->l[i];
        int counted = 0;
        if (hot(a) && a->bg_pk > 0 && cool(b)) {
            o->n_int++;
            o->mass[2] += (double)a->app_cg;
            counted = 1;
        }
        if (rootlike(b, B->end_ps) && hot(a)) {
            if (b->kind == 's' && !funnel) {
                o->n_map++;
                if (!counted)
                    o->mass[1] += (double)a->app_cg;
            } else {
                o->n_pat++;
                if (!counted)
                    o->mass[0] += (double)a->app_cg;
            }
            counted = 1;
        }
        if (C->l[i].kind == 's' && !funnel && rootlike(&C->l[i], C->end_ps))
            o->n_map_c++;
        /* causes the truth cannot settle (scored either way): the job's
         * own, on a link that is a bottleneck in A at the analyzer's
         * threshold and carries nothing but the job's packets (cool in B:
         * the background's timing bunched them; the truth cannot tell
         * whose doing that is), or on a link in the grey zone of the rule
         * (a bottleneck in B and congested in A at CONG_CF, not at
         * HOT_CF); interference, on a link congested in A at CONG_CF
         * with background packets and not hot in B */
        unsigned own = b->kind == 's' && !funnel ? C_MAPPING : C_PATTERN;
        if (rootlike_cong(a, A->end_ps) && (a->bg_pk == 0 || rootlike_cong(b, B->end_ps)))
            o->undetermined |= own;
        if (rootlike_cong(b, B->end_ps) && cong(a))
            o->undetermined |= own;
        if (cong(a) && a->bg_pk > 0 && !hot(b))
            o->undetermined |= C_INTERFERENCE;
        /* a bottleneck of run A that no cause of the rule explains: the
         * job's own traffic congests it only with the background there
         * (no background packet on it, or the background adding to a
         * congestion of its own): the background's timing, or head-of-line
         * blocking behind its packets at a shared input, which truth.bin
         * does not show.  Counted and shown (NOTE), not used: making such
         * scenarios ambiguous leaves 68 of the 250 development seeds
         * unscored and almost no mix; calling them the job's own changes
         * the answer by a guess (docs/validation.md) */
        if (!counted && rootlike(a, A->end_ps))
            o->n_unexpl++;
        if (!cool(a) && !hot(a))
            o->ambiguous = 1;   /* in the grey zone between cool and hot */
    }
    o->set = (o->n_pat ? C_PATTERN : 0) | (o->n_map ? C_MAPPING : 0) |
             (o->n_int ? C_INTERFERENCE : 0);
    /* UNDETERMINED: causes outside the set that the truth cannot rule out
     * (above), and a mapping in the set that its counterfactual does not
     * confirm: a mapping is shown to be a cause when a better one relieves
     * the interior (the compact mapping C has at most half the root-like
     * interior links of B, the mapping class's own check).  When it does
     * not, the interior congestion is the job's own demand on the
     * machine's bisection, which a "mapping" finding also names ("a
     * mapping or bisection problem"): undetermined beside another cause,
     * still required when it is the only one (some finding must name the
     * job's interior congestion).  The set itself is the rule's, as
     * before: the strict score is unchanged. */
    o->undetermined &= ~o->set;
    if ((o->set & C_MAPPING) && o->n_map_c * 2 > o->n_map && (o->set & ~(unsigned)C_MAPPING))
        o->undetermined |= C_MAPPING;
    if (o->set == 0) {
        for (uint32_t i = 1; i <= A->L; i++)
            if (!cool(&A->l[i]))
                o->ambiguous = 1;   /* congested, but no cause the rule sees */
    }
    unsigned best = 0;
    double bm = -1;
    for (unsigned c = 0; c < 3; c++)
        if ((o->set & (1u << c)) && o->mass[c] > bm) {
            bm = o->mass[c];
            best = 1u << c;
        }
    o->primary = best;
}

static int cmd_label(const char *cls, const char *fun, const char *a, const char *b,
                     const char *c)
{
    int funnel = !strcmp(fun, "1");
    unsigned want;
    if (parse_set(cls, &want) != 0)
        return die("unknown class %s", cls);
    run A, B, C;
    if (load_run(a, &A) || load_run(b, &B) || load_run(c, &C))
        return 2;
    if (A.L != B.L || A.L != C.L)
        return die("%s: runs on different machines", a);
    label o;
    do_label(&A, &B, &C, funnel, &o);
    const char *verdict = "accept", *why = "";
    if (o.ambiguous && o.set == 0) {
        verdict = "ambiguous";
        why = "links between cool and hot, or congested with no cause the rule sees";
    } else if (o.set != want) {
        verdict = "redraw";
        why = "the truth gives another cause set than the construction";
    } else if ((want & C_MAPPING) && o.n_map_c * 2 > o.n_map) {
        verdict = "redraw";
        why = "the compact mapping does not relieve the interior";
    }
    printf("EXPECTED=%s\nPRIMARY=%s\nVERDICT=%s\nUNDETERMINED=%s\nNOTE='%s; truth: %u pattern, "
           "%u mapping (%u compact), %u interference, %u unexplained links'\n",
           class_name(o.set), class_name(o.primary), verdict, class_name(o.undetermined), why,
           o.n_pat, o.n_map,
           o.n_map_c, o.n_int, o.n_unexpl);
    free(A.l);
    free(B.l);
    free(C.l);
    return 0;
}


/* The rule's inputs per link, for looking into a scenario: every link hot
 * or root-like in one of the runs, or carrying background packets in A
 * while not cool. */
static int cmd_links(const char *a, const char *b, const char *c)
{
    run A, B, C;
    if (load_run(a, &A) || load_run(b, &B) || load_run(c, &C))
        return 2;
    if (A.L != B.L || A.L != C.L)
        return die("%s: runs on different machines", a);
    printf("link kind | A: pk cf bg busy stall root | B: pk cf busy stall root | C: pk cf root\n");
    for (uint32_t i = 1; i <= A.L; i++) {
        const ltruth *x = &A.l[i], *y = &B.l[i], *z = &C.l[i];
        if (cool(x) && cool(y) && !rootlike(z, C.end_ps))
            continue;
        printf("%u %c | %llu %.2f %llu %.3f %.3f %d | %llu %.2f %.3f %.3f %d | %llu %.2f %d\n", i,
               x->kind ? x->kind : '?', (unsigned long long)x->app_pk, tcf(x),
               (unsigned long long)x->bg_pk, (double)x->busy / (double)A.end_ps,
               (double)x->stall / (double)A.end_ps, rootlike(x, A.end_ps),
               (unsigned long long)y->app_pk, tcf(y), (double)y->busy / (double)B.end_ps,
               (double)y->stall / (double)B.end_ps, rootlike(y, B.end_ps),
               (unsigned long long)z->app_pk, tcf(z), rootlike(z, C.end_ps));
    }
    free(A.l);
    free(B.l);
    free(C.l);
    return 0;
}

/* ---- self-test of the truth rule on hand-built link tables ------------------ */

static int st_fail;
static void st_check(const char *name, unsigned got_set, unsigned want_set, unsigned got_prim,
                     unsigned want_prim, int got_amb, int want_amb)
{
    int ok = got_set == want_set && got_prim == want_prim && got_amb == want_amb;
    printf("%s - label: %s\n", ok ? "ok" : "not ok", name);
    if (!ok) {
        printf("#   expected %s, primary %s, ambiguous %d\n", class_name(want_set),
               class_name(want_prim), want_amb);
        printf("#   got      %s, primary %s, ambiguous %d\n", class_name(got_set),
               class_name(got_prim), got_amb);
        st_fail = 1;
    }
}

/* One link: kind, application packets and congested ones, background
 * packets, busy and stall in units of the run's end (1000). */
static void st_link(run *r, uint32_t id, char kind, uint64_t pk, uint64_t cg, uint64_t bg,
                    uint64_t busy, uint64_t stall)
{
    ltruth *t = &r->l[id];
    t->kind = kind;
    t->app_pk = pk;
    t->app_cg = cg;
    t->bg_pk = bg;
    t->busy = busy;
    t->stall = stall;
}

static void st_clear(run *r)
{
    memset(r->l, 0, 5 * sizeof *r->l);
    r->L = 4;
    r->end_ps = 1000;
}

/* Copies the link table (each run keeps its own array). */
static void st_copy(run *dst, const run *src)
{
    memcpy(dst->l, src->l, 5 * sizeof *dst->l);
    dst->L = src->L;
    dst->end_ps = src->end_ps;
}

static int cmd_selftest(void)
{
    ltruth la[5], lb[5], lc[5];
    run A = {4, la, 1000}, B = {4, lb, 1000}, C = {4, lc, 1000};
    label o;

    /* Nothing congested: none. */
    st_clear(&A); st_clear(&B); st_clear(&C);
    st_link(&A, 1, 'i', 500, 10, 0, 300, 0);
    st_link(&A, 2, 'e', 500, 50, 0, 300, 0);    /* CF 0.10 < 0.15 */
    st_link(&A, 3, 's', 50, 50, 0, 30, 0);      /* CF 1 but 50 packets: not judged */
    st_copy(&B, &A); st_copy(&C, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("all cool -> none", o.set, 0, o.primary, 0, o.ambiguous, 0);

    /* A link at CF 0.3: between cool and hot, no cause: ambiguous. */
    st_link(&A, 4, 's', 1000, 300, 0, 500, 0);
    st_copy(&B, &A); st_copy(&C, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("grey zone -> ambiguous", o.set, 0, o.primary, 0, o.ambiguous, 1);

    /* Incast: the ejection link is busy and hot: pattern; an up-link hot
     * by back-pressure (stall > busy) is not a cause. */
    st_clear(&A);
    st_link(&A, 2, 'e', 2000, 1900, 0, 800, 0);
    st_link(&A, 3, 's', 1000, 800, 0, 200, 600);
    st_copy(&B, &A); st_copy(&C, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("incast -> pattern", o.set, C_PATTERN, o.primary, C_PATTERN, o.ambiguous, 0);

    /* The same with the interior link busy more than stalled: mapping too
     * (the compact mapping relieves it), unless the app is a funnel (all
     * traffic into one node). */
    st_link(&A, 3, 's', 1000, 800, 0, 600, 100);
    st_copy(&B, &A); st_copy(&C, &A);
    st_link(&C, 3, 's', 1000, 50, 0, 300, 0);
    do_label(&A, &B, &C, 0, &o);
    st_check("endpoint and interior roots -> pattern+mapping", o.set, C_PATTERN | C_MAPPING,
             o.primary, C_PATTERN, o.ambiguous, 0);
    st_check("  nothing undetermined", o.undetermined, 0, 0, 0, 0, 0);
    do_label(&A, &B, &C, 1, &o);
    st_check("funnel: interior root counts as the pattern", o.set, C_PATTERN, o.primary,
             C_PATTERN, o.ambiguous, 0);
    /* The compact mapping congests the interior as much: the mapping is
     * not shown to be a cause (the bisection's, either way), beside the
     * pattern; alone it stays expected. */
    st_copy(&C, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("compact mapping does not relieve -> pattern+mapping, mapping undetermined",
             o.set, C_PATTERN | C_MAPPING, o.primary, C_PATTERN, o.ambiguous, 0);
    st_check("  mapping undetermined", o.undetermined, C_MAPPING, 0, 0, 0, 0);
    st_link(&A, 2, 'e', 2000, 100, 0, 800, 0);
    st_copy(&B, &A); st_copy(&C, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("the same, interior only -> mapping", o.set, C_MAPPING, o.primary, C_MAPPING,
             o.ambiguous, 0);
    st_check("  and required", o.undetermined, 0, 0, 0, 0, 0);

    /* A HOL victim: hot, but hardly transmitting (busy < 2% of the run). */
    st_clear(&A);
    st_link(&A, 3, 's', 300, 300, 0, 10, 0);
    st_copy(&B, &A); st_copy(&C, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("hot victim without root -> ambiguous", o.set, 0, o.primary, 0, o.ambiguous, 1);

    /* Bad mapping: interior root in B; the compact run C is clean. */
    st_clear(&A); st_clear(&C);
    st_link(&A, 3, 's', 1000, 700, 0, 700, 100);
    st_link(&A, 4, 's', 1000, 600, 0, 700, 50);
    st_link(&C, 3, 's', 1000, 100, 0, 300, 0);
    st_copy(&B, &A);
    do_label(&A, &B, &C, 0, &o);
    st_check("interior roots -> mapping", o.set, C_MAPPING, o.primary, C_MAPPING, o.ambiguous, 0);
    if (o.n_map != 2 || o.n_map_c != 0) {
        printf("not ok - label: mapping counts (2, 0), got (%u, %u)\n", o.n_map, o.n_map_c);
        st_fail = 1;
    } else {
        printf("ok - label: mapping counts in B and in the compact run\n");
    }

    /* Interference: hot in A with background packets, cool without. */
    st_clear(&A); st_clear(&B); st_clear(&C);
    st_link(&A, 3, 's', 400, 300, 5000, 900, 50);
    st_link(&B, 3, 's', 400, 4, 0, 40, 0);
    st_copy(&C, &B);
    do_label(&A, &B, &C, 0, &o);
    st_check("background adds congestion -> interference", o.set, C_INTERFERENCE, o.primary,
             C_INTERFERENCE, o.ambiguous, 0);
    /* Hot in A and in B as well: the job's own (mapping), not interference. */
    st_link(&B, 3, 's', 400, 300, 0, 600, 50);
    st_copy(&C, &B);
    memset(&C.l[3], 0, sizeof C.l[3]);
    C.l[3].kind = 's';
    do_label(&A, &B, &C, 0, &o);
    st_check("hot without the background too -> mapping", o.set, C_MAPPING, o.primary,
             C_MAPPING, o.ambiguous, 0);

    /* Mix: one interior root of the job's own, two links congested by the
     * background with more congested packets: primary interference. */
    st_clear(&A); st_clear(&B); st_clear(&C);
    st_link(&A, 1, 's', 1000, 500, 0, 600, 0);
    st_link(&A, 2, 's', 1000, 900, 3000, 950, 0);
    st_link(&A, 3, 's', 1000, 800, 3000, 950, 0);
    st_link(&B, 1, 's', 1000, 500, 0, 600, 0);
    st_link(&B, 2, 's', 1000, 10, 0, 100, 0);
    st_link(&B, 3, 's', 1000, 10, 0, 100, 0);
    do_label(&A, &B, &C, 0, &o);
    st_check("mapping + background -> mapping+interference, primary interference", o.set,
             C_MAPPING | C_INTERFERENCE, o.primary, C_INTERFERENCE, o.ambiguous, 0);
    /* The background throttles the job: its own bottleneck (root-like in
     * B) is cool in A.  Run A holds no congestion of the mapping's. */
    st_link(&A, 1, 's', 1000, 60, 0, 200, 0);
    do_label(&A, &B, &C, 0, &o);
    st_check("own bottleneck cool beside the background -> interference only", o.set,
             C_INTERFERENCE, o.primary, C_INTERFERENCE, o.ambiguous, 0);
    if (o.n_unexpl != 0) {
        printf("not ok - label: no unexplained bottleneck expected, got %u\n", o.n_unexpl);
        st_fail = 1;
    }
    /* A link of the job's, no background packet on it, a bottleneck in A
     * only: neither cause of the rule explains it (unexplained, ambiguous) */
    st_link(&A, 4, 'e', 1000, 700, 0, 600, 0);
    st_link(&B, 4, 'e', 1000, 100, 0, 600, 0);
    do_label(&A, &B, &C, 0, &o);
    if (o.n_unexpl != 1) {
        printf("not ok - label: a bottleneck of A only is unexplained (1), got %u\n", o.n_unexpl);
        st_fail = 1;
    } else {
        printf("ok - label: a bottleneck of A that no cause explains is counted\n");
    }
    /* ... and its endpoint's pattern is undetermined (scored either way) */
    st_check("unexplained endpoint bottleneck -> pattern undetermined", o.undetermined,
             C_PATTERN, o.set, C_INTERFERENCE, 0, 0);
    /* with background packets on it, it is not the job's alone: the
     * interference is what the rule sees, nothing undetermined but a
     * grey-zone interference link (CF 0.3 in A, background, cool in B) */
    st_link(&A, 4, 'e', 1000, 700, 500, 600, 0);
    do_label(&A, &B, &C, 0, &o);
    st_check("bottleneck with background packets -> nothing undetermined", o.undetermined, 0,
             o.set, C_INTERFERENCE, 0, 0);
    st_link(&A, 1, 's', 1000, 300, 0, 600, 0);
    st_link(&B, 1, 's', 1000, 300, 0, 600, 0);
    do_label(&A, &B, &C, 0, &o);
    st_check("job's own link at CF 0.3 in A and B -> mapping undetermined", o.undetermined,
             C_MAPPING, o.set, C_INTERFERENCE, 0, 0);
    return st_fail;
}

/* ---- scoring -------------------------------------------------------------- */

static unsigned kind_bit(const char *k)
{
    if (!strcmp(k, "pattern"))
        return C_PATTERN;
    if (!strcmp(k, "mapping"))
        return C_MAPPING;
    if (!strcmp(k, "interference"))
        return C_INTERFERENCE;
    return 0;
}

typedef struct cfacc {
    unsigned n, in2;
    double sum, max;
} cfacc;

static void cf_add(cfacc *a, double est, double se, double truth)
{
    double e = fabs(est - truth);
    a->n++;
    a->sum += e;
    if (e > a->max)
        a->max = e;
    if (e <= 2 * se)
        a->in2++;
}

/* Scoring rule: the reported cause set is the findings' kinds among pattern,
 * mapping, interference.  Fully right: that set equals EXPECTED, and when
 * EXPECTED is none a "none" finding is present.  Fully right with the
 * undetermined causes either way (FULLYU): EXPECTED - UNDETERMINED <=
 * reported <= EXPECTED + UNDETERMINED (UNDETERMINED, from the label: the
 * causes the truth cannot settle).  Any other finding kind
 * (a "cannot judge" statement about unmeasured links) is an abstention: it
 * neither adds nor removes a cause, so with EXPECTED none and only
 * abstentions the scenario is not fully right.  Top right: the first
 * finding's kind is PRIMARY ("none" when EXPECTED is none). */
static int cmd_score(const char *dir, const char *exp_s, const char *prim_s, const char *und_s)
{
    unsigned exp, prim, und = 0;
    if (parse_set(exp_s, &exp) != 0 || parse_set(prim_s, &prim) != 0 ||
        (und_s && parse_set(und_s, &und) != 0))
        return die("bad expected set %s", exp_s);
    char path[4096];
    snprintf(path, sizeof path, "%s/analysis.json", dir);
    hs_jdoc *d;
    hs_error err;
    if (hs_jdoc_load(path, 1u << 30, &d, &err) != 0)
        return die("%s: no readable analysis.json", dir);
    const hs_jv *root = hs_jdoc_root(d);
    const hs_jv *diag = hs_jv_get(d, root, "diagnosis");
    unsigned rep = 0, abstain = 0, none = 0;
    const char *top = "nothing";
    char kinds[512] = "";
    for (size_t i = 0; i < hs_jv_len(diag); i++) {
        const char *k = hs_jv_str(d, hs_jv_get(d, hs_jv_at(d, diag, i), "kind"));
        if (!k)
            k = "?";
        if (i == 0)
            top = k;
        size_t kl = strlen(kinds);
        snprintf(kinds + kl, sizeof kinds - kl, "%s%s", kl ? "," : "", k);
        if (kind_bit(k))
            rep |= kind_bit(k);
        else if (!strcmp(k, "none"))
            none = 1;
        else
            abstain = 1;
    }
    int fully = rep == exp && (exp != 0 || none);
    unsigned need = exp & ~und;
    int fullyu = (rep & need) == need && (rep & ~(exp | und)) == 0 && (exp != 0 || none);
    int topright = !strcmp(top, class_name(prim));
    printf("REPORTED=%s\nFINDINGS=%s\nTOP=%s\nFULLY=%d\nFULLYU=%d\nTOPRIGHT=%d\nABSTAIN=%d\n",
           rep ? class_name(rep) : none ? "none" : abstain ? "abstain" : "nothing",
           kinds[0] ? kinds : "-", top, fully, fullyu, topright, abstain);

    /* CF error against truth.bin (not analysis.json's truth). */
    run A;
    int have_truth = load_run(dir, &A) == 0;
    const hs_jv *sch = hs_jv_get(d, root, "scheme");
    int exact = 0;
    uint64_t fb = 0;
    hs_jv_bool(hs_jv_get(d, sch, "exact"), &exact);
    hs_jv_u64(hs_jv_get(d, sch, "field_bits"), &fb);
    char field[32];
    if (exact)
        snprintf(field, sizeof field, "exact");
    else
        snprintf(field, sizeof field, "%u bits", (unsigned)fb);
    const char *used = hs_jv_str(d, hs_jv_get(d, hs_jv_get(d, root, "decoder"), "used"));
    cfacc acc[2] = {{0}};
    const hs_jv *links = hs_jv_get(d, root, "links");
    for (size_t i = 0; have_truth && i < hs_jv_len(links); i++) {
        const hs_jv *l = hs_jv_at(d, links, i);
        uint64_t id;
        if (hs_jv_u64(hs_jv_get(d, l, "id"), &id) != 0 || id < 1 || id > A.L)
            continue;
        const ltruth *t = &A.l[id];
        if (t->app_pk < MIN_TRUE_PACKETS)
            continue;
        const char *st = hs_jv_str(d, hs_jv_get(d, l, "status"));
        double cf, se;
        if (st && !strcmp(st, "ok") && hs_jv_double(hs_jv_get(d, l, "cf"), &cf) == 0 &&
            hs_jv_double(hs_jv_get(d, l, "cf_se"), &se) == 0)
            cf_add(&acc[0], cf, se, tcf(t));
        const hs_jv *bl = hs_jv_get(d, l, "blind");
        if (bl && hs_jv_double(hs_jv_get(d, bl, "cf"), &cf) == 0 &&
            hs_jv_double(hs_jv_get(d, bl, "cf_se"), &se) == 0 && se <= 0.1)
            cf_add(&acc[1], cf, se, tcf(t));
    }
    const char *names[2] = {used ? used : "?", "blind (beside)"};
    for (int k = 0; k < 2; k++)
        if (acc[k].n)
            printf("cf\t%s\t%s\t%u\t%.6f\t%.6f\t%u\n", names[k], field, acc[k].n, acc[k].sum,
                   acc[k].max, acc[k].in2);
    if (have_truth)
        free(A.l);
    hs_jdoc_free(d);
    return 0;
}

/* ---- report ---------------------------------------------------------------- */

#define MAXROWS 4096
typedef struct row {
    char f[20][256];
    int nf;
} row;

static int split(char *line, row *r)
{
    r->nf = 0;
    char *s = line, *tab;
    line[strcspn(line, "\n")] = 0;
    while (r->nf < 20) {
        tab = strchr(s, '\t');
        if (tab)
            *tab = 0;
        snprintf(r->f[r->nf++], sizeof r->f[0], "%s", s);
        if (!tab)
            break;
        s = tab + 1;
    }
    return r->nf;
}

/* RESULTS.tsv columns (written by run.sh): seed, expected, primary,
 * reported, top, fully, topright, status, relabelled, topo, app, map, bg,
 * field, findings, seconds, undetermined, fully with the undetermined
 * either way (the last two absent in older files: none, and as fully).
 * CFLINES.tsv: "cf" lines of score. */
enum { F_SEED, F_EXP, F_PRIM, F_REP, F_TOP, F_FULLY, F_TOPR, F_STATUS, F_RELAB, F_TOPO,
       F_APP, F_MAP, F_BG, F_FIELD, F_FINDINGS, F_SECS, F_UND, F_FULLYU };

static const char *und_of(const row *r) { return r->nf > F_UND ? r->f[F_UND] : "none"; }
static int fullyu_of(const row *r)
{
    return !strcmp(r->nf > F_FULLYU ? r->f[F_FULLYU] : r->f[F_FULLY], "1");
}

static int cmd_report(const char *res, const char *cfl, const char *title)
{
    FILE *f = fopen(res, "r");
    if (!f)
        return die("cannot open %s", res);
    static row rows[MAXROWS];
    unsigned n = 0;
    char line[8192];
    while (n < MAXROWS && fgets(line, sizeof line, f))
        if (split(line, &rows[n]) >= 15)
            n++;
    fclose(f);
    unsigned fully = 0, fullyu = 0, abst = 0, topr = 0, relab = 0, unl = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(rows[i].f[F_STATUS], "unlabelled")) {
            unl++;
            continue;
        }
        fully += !strcmp(rows[i].f[F_FULLY], "1");
        fullyu += (unsigned)fullyu_of(&rows[i]);
        /* an abstention alone ("undecided") on a none scenario */
        abst += !strcmp(rows[i].f[F_EXP], "none") && !strcmp(rows[i].f[F_REP], "abstain") &&
                !strcmp(rows[i].f[F_STATUS], "ok");
        topr += !strcmp(rows[i].f[F_TOPR], "1");
        relab += !strcmp(rows[i].f[F_RELAB], "1");
    }
    printf("#### %s\n\n", title);
    unsigned ns = n - unl;
    printf("%u scenarios scored: **%u fully right (%.1f%%)**, **%u top finding right "
           "(%.1f%%)**; %u of them kept with the truth's label after every redraw disagreed "
           "with the construction; %u more left unlabelled (ambiguous truth after every "
           "redraw, not scored).\n\n",
           ns, fully, ns ? 100.0 * fully / ns : 0, topr, ns ? 100.0 * topr / ns : 0, relab, unl);
    printf("With the causes the truth leaves undetermined taken either way (label: UNDETERMINED): "
           "**%u fully right (%.1f%%)**.  \"Undecided\" alone on a none scenario is scored as not "
           "right (%u such); counted as right: %u (%.1f%%) strict, %u (%.1f%%) with the "
           "undetermined either way.\n\n",
           fullyu, ns ? 100.0 * fullyu / ns : 0, abst, fully + abst,
           ns ? 100.0 * (fully + abst) / ns : 0, fullyu + abst,
           ns ? 100.0 * (fullyu + abst) / ns : 0);
    /* Per expected class: counts and the confusion matrix. */
    const char *cols[] = {"none", "pattern", "mapping", "interference", "pattern+mapping",
                          "mapping+interference", "pattern+interference",
                          "pattern+mapping+interference", "abstain", "nothing", "failed"};
    unsigned nc = sizeof cols / sizeof cols[0];
    printf("| expected \\ reported | scenarios | fully right | either way | top right |");
    for (unsigned c = 0; c < nc; c++)
        printf(" %s |", cols[c]);
    printf("\n|---|---|---|---|---|");
    for (unsigned c = 0; c < nc; c++)
        printf("---|");
    printf("\n");
    for (unsigned e = 0; e < 8; e++) {
        const char *en = class_name(e);
        unsigned cnt = 0, fr = 0, fu = 0, tr = 0, m[16] = {0};
        for (unsigned i = 0; i < n; i++) {
            if (strcmp(rows[i].f[F_EXP], en) || !strcmp(rows[i].f[F_STATUS], "unlabelled"))
                continue;
            cnt++;
            fr += !strcmp(rows[i].f[F_FULLY], "1");
            fu += (unsigned)fullyu_of(&rows[i]);
            tr += !strcmp(rows[i].f[F_TOPR], "1");
            const char *r = strcmp(rows[i].f[F_STATUS], "ok") ? "failed" : rows[i].f[F_REP];
            for (unsigned c = 0; c < nc; c++)
                if (!strcmp(r, cols[c]))
                    m[c]++;
        }
        if (!cnt)
            continue;
        printf("| %s | %u | %u | %u | %u |", en, cnt, fr, fu, tr);
        for (unsigned c = 0; c < nc; c++)
            printf(" %u |", m[c]);
        printf("\n");
    }
    printf("\n");
    /* Per machine family. */
    static const char *fam[][2] = {
        {"fattree:k=", "fat-tree"}, {"fattree:down=", "XGFT"},
        {"routing=min", "dragonfly, minimal"}, {"routing=valiant", "dragonfly, Valiant"},
        {"routing=ugal", "dragonfly, UGAL"}, {"torus:", "torus"}};
    printf("| machine | scenarios | fully right | top right | failed (timeout, error) |\n"
           "|---|---|---|---|---|\n");
    for (unsigned k = 0; k < sizeof fam / sizeof fam[0]; k++) {
        unsigned cnt = 0, fr = 0, tr = 0, fl = 0;
        for (unsigned i = 0; i < n; i++) {
            if (!strcmp(rows[i].f[F_STATUS], "unlabelled") || !strstr(rows[i].f[F_TOPO], fam[k][0]))
                continue;
            if (k == 0 && strstr(rows[i].f[F_TOPO], "dragonfly"))
                continue;
            cnt++;
            fr += !strcmp(rows[i].f[F_FULLY], "1");
            tr += !strcmp(rows[i].f[F_TOPR], "1");
            fl += strcmp(rows[i].f[F_STATUS], "ok") != 0;
        }
        if (cnt)
            printf("| %s | %u | %u | %u | %u |\n", fam[k][1], cnt, fr, tr, fl);
    }
    printf("\n");
    /* CF error and coverage per decoder and field. */
    f = cfl ? fopen(cfl, "r") : NULL;
    if (f) {
        struct { char dec[256], field[256]; cfacc a; unsigned runs; } g[64];
        unsigned ng = 0;
        while (fgets(line, sizeof line, f)) {
            row r;
            if (split(line, &r) < 7 || strcmp(r.f[0], "cf"))
                continue;
            unsigned j;
            for (j = 0; j < ng; j++)
                if (!strcmp(g[j].dec, r.f[1]) && !strcmp(g[j].field, r.f[2]))
                    break;
            if (j == ng) {
                if (ng == 64)
                    continue;
                memset(&g[ng], 0, sizeof g[ng]);
                snprintf(g[ng].dec, sizeof g[ng].dec, "%s", r.f[1]);
                snprintf(g[ng].field, sizeof g[ng].field, "%s", r.f[2]);
                ng++;
            }
            g[j].runs++;
            g[j].a.n += (unsigned)atoi(r.f[3]);
            g[j].a.sum += atof(r.f[4]);
            if (atof(r.f[5]) > g[j].a.max)
                g[j].a.max = atof(r.f[5]);
            g[j].a.in2 += (unsigned)atoi(r.f[6]);
        }
        fclose(f);
        printf("CF error against truth.bin, links with >= %d true application packets and "
               "an estimate with enough data:\n\n", MIN_TRUE_PACKETS);
        printf("| decoder | field | scenarios | links | CF error mean | max | within 2 SE |\n"
               "|---|---|---|---|---|---|---|\n");
        for (unsigned j = 0; j < ng; j++)
            printf("| %s | %s | %u | %u | %.4f | %.4f | %.1f%% |\n", g[j].dec, g[j].field,
                   g[j].runs, g[j].a.n, g[j].a.n ? g[j].a.sum / g[j].a.n : 0, g[j].a.max,
                   g[j].a.n ? 100.0 * g[j].a.in2 / g[j].a.n : 0);
        printf("\n");
    }
    unsigned nf = n - fully;
    printf("Scenarios not fully right, and unlabelled ones (%u):\n\n", nf);
    if (nf) {
        printf("| seed | expected | undetermined | either way | reported (findings in order) | "
               "status | topology | application | mapping | background | field |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (unsigned i = 0; i < n; i++) {
            row *r = &rows[i];
            if (!strcmp(r->f[F_FULLY], "1"))
                continue;
            int amb = !strcmp(r->f[F_STATUS], "unlabelled");
            printf("| %s | %s%s | %s | %s | %s (%s) | %s | `%s` | `%s` | %s | %s | %s |\n",
                   r->f[F_SEED], amb ? "-" : r->f[F_EXP],
                   amb ? " (truth ambiguous)" : strcmp(r->f[F_RELAB], "1") ? "" : " (relabelled)",
                   amb ? "-" : und_of(r), amb ? "-" : fullyu_of(r) ? "right" : "wrong",
                   r->f[F_REP], r->f[F_FINDINGS], r->f[F_STATUS], r->f[F_TOPO], r->f[F_APP],
                   r->f[F_MAP], r->f[F_BG][0] ? r->f[F_BG] : "-",
                   r->f[F_FIELD][0] ? r->f[F_FIELD] : "default");
        }
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "selftest"))
        return cmd_selftest();
    if (argc == 4 && !strcmp(argv[1], "draw"))
        return cmd_draw(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
    if (argc == 7 && !strcmp(argv[1], "label"))
        return cmd_label(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if (argc == 5 && !strcmp(argv[1], "links"))
        return cmd_links(argv[2], argv[3], argv[4]);
    if ((argc == 5 || argc == 6) && !strcmp(argv[1], "score"))
        return cmd_score(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : NULL);
    if (argc == 5 && !strcmp(argv[1], "report"))
        return cmd_report(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: scenarios draw SEED ATTEMPT | label CLASS FUNNEL A B C | "
                    "score RUN EXPECTED PRIMARY [UNDETERMINED] | report RESULTS CFLINES TITLE | selftest\n");
    return 2;
}
