/* hopscope latmodel: the latency model of Patke et al. from link counters
 * (docs/latmodel.md): port counters from a run, from perfquery snapshots
 * or from the in-band estimates; latency tests on the modelled machine
 * under GPCNeT congestors; the fit; predictions and their evaluation. */
#include "cli.h"
#include "hopscope/analyzer.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "latmodel"
#define PC_FILE "port_counters.csv"
#define PC_INBAND_FILE "port_counters_inband.csv"
#define PC_INBAND_RUN_FILE "port_counters_inband_run.csv"
/* congestion inputs (--input) */
enum { IN_STALL = 0, IN_INBAND = 1, IN_INBAND_RUN = 2 };
static const char *const IN_NAME[3] = { "stall", "inband", "inband-run" };
static const char *const IN_FILE[3] = { PC_FILE, PC_INBAND_FILE, PC_INBAND_RUN_FILE };
#define LT_FILE "latency_tests.csv"
#define Z95 1.959963984540054

const char hs__help_latmodel[] =
    "usage: hopscope latmodel ACTION [options]\n"
    "\n"
    "The per-link latency model of Patke et al.: each link's delay is normal,\n"
    "  D_l ~ N(c1 + m1/B_eff, c2 + m2/B_eff),  B_eff = B_max (1 - P_Ts/100),\n"
    "P_Ts the percent of the time window the link was stalled (had data, no\n"
    "credit); a path's latency is the sum over its links.  Counters come in one\n"
    "CSV (docs/formats.md, \"Port counters CSV\") that a run, perfquery\n"
    "snapshots of a real InfiniBand machine, or the in-band estimates fill.\n"
    "docs/latmodel.md has the whole account and its validation.\n"
    "\n"
    "actions:\n"
    "  collect   latency tests: a ping-pong probe job under background jobs\n"
    "  counters  port counters of a run (ground truth, or in-band estimates)\n"
    "  import    port counters from perfquery snapshots of a real machine\n"
    "  fit       fit the model's parameters to latency tests (GSL)\n"
    "  predict   expected latency of node pairs from counters alone\n"
    "  eval      measured against expected latency for runs' tests\n"
    "  report    expected latencies of a replayed application's heaviest pairs\n"
    "'hopscope latmodel ACTION --help' (or 'hopscope help latmodel ACTION')\n"
    "prints an action's options and an example.\n"
    "\n"
    "options of every action:\n"
    "  --quiet            print nothing but errors and results\n"
    "\n"
    "examples:\n"
    "  hopscope latmodel collect --topo dragonfly:a=4,p=2,h=2,g=5 --background incast -o r1\n"
    "  hopscope latmodel fit r1 r2 -o model.json\n"
    "  hopscope latmodel predict --model model.json r3 --pairs pairs.txt\n";

static const char help_collect[] =
    "usage: hopscope latmodel collect --topo SPEC [--background KIND]\n"
    "           [--pairs N [--near F] | --pair-list FILE] [--iters I] [--gap T]\n"
    "           [--size B] [--seed S] [--window T] [--quiet] -o RUN\n"
    "\n"
    "Latency tests: a ping-pong probe job (hopscope gen pingpong) between N\n"
    "random node pairs, I round trips each with T of computation between them,\n"
    "replayed under the background jobs; writes the run directory RUN with\n"
    "RUN/latency_tests.csv (every probe message: nodes, time, latency) and\n"
    "RUN/port_counters.csv.\n"
    "\n"
    "  --topo SPEC        the machine ('hopscope help topo'; required)\n"
    "  --background KIND  the jobs around the probes ('hopscope help simulate',\n"
    "                     --background: alltoall, incast, rma_incast, rma_bcast,\n"
    "                     mixed, ...)\n"
    "  --pairs N          node pairs (8)\n"
    "  --near F           the share of the pairs that are two nodes of one switch\n"
    "                     where possible, so that paths differ in length (0.5)\n"
    "  --pair-list FILE   the pairs instead, lines \"SRC DST\" (each node in one\n"
    "                     pair)\n"
    "  --iters I          round trips per pair (100)\n"
    "  --gap T            computation between round trips (2us)\n"
    "  --size B           probe message bytes, up to 16K: eager, one leg (8)\n"
    "  --seed S           pairs, mapping and background randomness (1)\n"
    "  --window T         counter window width (default: simulate's --window)\n"
    "  -o RUN             the run directory to write (required)\n"
    "\n"
    "example:\n"
    "  hopscope latmodel collect --topo dragonfly:a=4,p=2,h=2,g=5 --background incast -o r1\n";

static const char help_counters[] =
    "usage: hopscope latmodel counters RUN [--inband | --inband-run] [-o CSV]\n"
    "\n"
    "Port counters of a run: per link and window, from the ground truth\n"
    "(default; RUN/port_counters.csv), or the congested fraction CF the\n"
    "analyzer estimates from the in-band field, as P_Ts = 100 CF.\n"
    "\n"
    "  --inband      per link and window of the analysis (the run's CF where a\n"
    "                window has too few samples; RUN/port_counters_inband.csv)\n"
    "  --inband-run  one CF per link for the whole run\n"
    "                (RUN/port_counters_inband_run.csv)\n"
    "  -o CSV        write there instead\n"
    "\n"
    "example:\n"
    "  hopscope latmodel counters r1 --inband\n";

static const char help_import[] =
    "usage: hopscope latmodel import --map MAP --tick T [--interval T] [--links L]\n"
    "           -o CSV SNAPSHOT...\n"
    "\n"
    "Port counters from consecutive `perfquery -x` snapshots (infiniband-diags),\n"
    "each a file of every mapped port's block; a window per pair of consecutive\n"
    "snapshots.\n"
    "\n"
    "  --map MAP      maps (LID or GUID, port) to link ids (docs/formats.md,\n"
    "                 \"InfiniBand port map\"; required)\n"
    "  --tick T       the duration of one PortXmitWait tick (device-specific;\n"
    "                 required)\n"
    "  --interval T   snapshot spacing when they carry no \"timestamp SECONDS\"\n"
    "                 line\n"
    "  --links L      link ids of the map must be <= L (default: any)\n"
    "  -o CSV         the port counters CSV to write (required)\n"
    "\n"
    "example:\n"
    "  hopscope latmodel import --map ports.map --tick 4ns -o pc.csv snap1 snap2 snap3\n";

static const char help_fit[] =
    "usage: hopscope latmodel fit [--classes auto|pooled|class]\n"
    "           [--input stall|inband|inband-run] [--resolution T] [-o MODEL] RUN...\n"
    "\n"
    "Joins every latency test of the runs with the counters of the links on its\n"
    "path in the window of its time and fits c1, m1, c2, m2 by maximum\n"
    "likelihood (GSL); prints the parameters with standard errors and writes\n"
    "them as JSON.  Terms the tests cannot identify (the 1/B_eff terms of links\n"
    "that never stalled) are fixed at 0 and named.\n"
    "\n"
    "  --classes C     per link class (endpoint; dragonfly local and global;\n"
    "                  other families switch) where the data identifies them and\n"
    "                  the AIC prefers it (auto, the default), pooled (one set:\n"
    "                  the model applies to any topology), or class\n"
    "  --input I       the counters: stall (ground truth, default), inband,\n"
    "                  inband-run ('latmodel counters')\n"
    "  --resolution T  of the latency measurements (10ns): every test's variance\n"
    "                  gains T^2/12\n"
    "  -o MODEL        the model to write (latmodel.json)\n"
    "\n"
    "example:\n"
    "  hopscope latmodel fit r1 r2 -o model.json\n";

static const char help_predict[] =
    "usage: hopscope latmodel predict --model MODEL (RUN | --topo SPEC --counters CSV)\n"
    "           [--pairs FILE] [--at T] [--input stall|inband|inband-run]\n"
    "\n"
    "Expected latency and 95% interval of node pairs from counters alone; a last\n"
    "column says \"extrapolated\" where the path has more or fewer links of a\n"
    "class than any fitted test.\n"
    "\n"
    "  --model MODEL   the fitted model ('latmodel fit'; required)\n"
    "  --topo SPEC     the machine, with --counters CSV, instead of a RUN\n"
    "  --counters CSV  port counters (docs/formats.md, \"Port counters CSV\")\n"
    "  --pairs FILE    \"SRC DST\" lines (default: every ordered pair)\n"
    "  --at T          counters at time T (default: each link's average over the\n"
    "                  counters' span)\n"
    "  --input I       stall (default), inband, inband-run\n"
    "\n"
    "example:\n"
    "  hopscope latmodel predict --model model.json r3 --pairs pairs.txt\n";

static const char help_eval[] =
    "usage: hopscope latmodel eval --model MODEL [--input stall|inband|inband-run]\n"
    "           [--dump FILE] RUN...\n"
    "\n"
    "Measured against expected latency for the runs' tests: the fraction within\n"
    "35% of the measurement, and Pearson's r, over all tests and over the\n"
    "congested ones (measured above 1.5 x the least latency between the same\n"
    "nodes in these runs).\n"
    "\n"
    "  --model MODEL   the fitted model (required)\n"
    "  --input I       stall (default), inband, inband-run\n"
    "  --dump FILE     write measured, expected and standard deviation per test\n"
    "                  (CSV)\n"
    "\n"
    "example:\n"
    "  hopscope latmodel eval --model model.json r3 r4\n";

static const char help_report[] =
    "usage: hopscope latmodel report --model MODEL [--top N]\n"
    "           [--input stall|inband|inband-run] [-o FILE] RUN\n"
    "\n"
    "For a replayed application's run (hopscope simulate -i): its N heaviest\n"
    "node pairs by bytes (app.json) with the expected latency of a message\n"
    "between them under the run's congestion (each link's average stall) and on\n"
    "an idle machine.\n"
    "\n"
    "  --model MODEL   the fitted model (required)\n"
    "  --top N         pairs (10)\n"
    "  --input I       stall (default), inband, inband-run\n"
    "  -o FILE         where to write (RUN/latmodel_report.json)\n"
    "\n"
    "example:\n"
    "  hopscope latmodel report --model model.json RUN\n";

const hs__subhelp hs__subhelp_latmodel[] = {
    { "collect", help_collect },
    { "counters", help_counters },
    { "import", help_import },
    { "fit", help_fit },
    { "predict", help_predict },
    { "eval", help_eval },
    { "report", help_report },
    { NULL, NULL },
};

static int fail(const hs_error *e, int rc)
{
    fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(e, rc));
    return HS_EXIT_FAIL;
}

static int bad(const char *opt, const char *v, const char *want)
{
    return hs__usage_error(CMD, "--%s '%s': expected %s", opt, v, want);
}

/* Options shared by several actions (their codes in every action's table). */
enum { O_MODEL = 2000, O_INPUT, O_QUIETA, O_OUT = 'o' };
#define OPT_OUTPUT { "output", required_argument, NULL, O_OUT }
#define OPT_MODEL { "model", required_argument, NULL, O_MODEL }
#define OPT_INPUT { "input", required_argument, NULL, O_INPUT }
#define OPT_END { NULL, 0, NULL, 0 }

/* The next option of ACTION's arguments (argv[0] "latmodel", argv[1] the
 * action): options and operands in any order (getopt_long permutes the
 * operands to argv[optind..argc) ), short options `shorts` ("o:" for -o
 * FILE).  Returns the option's code, -1 at the end, or 0 after printing the
 * usage error for an unknown option or a missing value (*rc: exit code). */
static int next_opt(int argc, char **argv, const char *act, const char *shorts,
                    const struct option *opts, int *rc)
{
    if (optind < 2) {
        optind = 2;
        opterr = 0;
    }
    int c = getopt_long(argc, argv, shorts, opts, NULL);
    if (c == '?' || c == ':') {
        *rc = hs__usage_error(CMD, "%s: unknown option or missing value '%s'", act,
                              argv[optind - 1]);
        return 0;
    }
    return c;
}

/* The topology spec of a run (manifest.json topology.spec). */
static int run_topo(const char *run, hs_topo **t, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", run);
    hs_jdoc *d;
    int rc = hs_jdoc_load(path, 64u << 20, &d, err);
    if (rc)
        return rc;
    const char *spec = hs_jv_str(d, hs_jv_get(d, hs_jv_get(d, hs_jdoc_root(d), "topology"),
                                              "spec"));
    if (!spec)
        rc = hs_error_set(err, HS_EFORMAT, "%s: no topology.spec", path);
    else
        rc = hs_topo_create(spec, t, err);
    hs_jdoc_free(d);
    return rc;
}

/* The run's end time (manifest run.end_ps). */
static uint64_t run_end(const char *run)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", run);
    hs_jdoc *d;
    hs_error e;
    uint64_t v = 0;
    if (hs_jdoc_load(path, 64u << 20, &d, &e))
        return 0;
    if (hs_jv_u64(hs_jv_get(d, hs_jv_get(d, hs_jdoc_root(d), "run"), "end_ps"), &v))
        v = 0;
    hs_jdoc_free(d);
    return v;
}

/* Port counters of a run for the given input: the CSV in the run when
 * present, else computed (and written there). */
static int run_counters(const char *run, int input, hs_portcounters *pc, hs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", run, IN_FILE[input]);
    int rc = hs_pc_read_csv(path, pc, err);
    if (rc != HS_ENOENT)
        return rc;
    if (input == IN_STALL) {
        rc = hs_pc_from_run(run, pc, err);
    } else {
        hs_analyze_params ap;
        hs_analyze_params_default(&ap);
        hs_analysis *a;
        if ((rc = hs_analyze_run(run, &ap, &a, err)))
            return rc;
        hs_an_summary s;
        hs_an_get_summary(a, &s);
        uint64_t end = run_end(run);
        rc = hs_pc_from_analysis(a, s.links, 0, end ? end : 1, input == IN_INBAND, pc, err);
        hs_an_free(a);
    }
    if (!rc)
        rc = hs_pc_write_csv(pc, path, err);
    return rc;
}

/* ---- collect ------------------------------------------------------------------------ */

typedef struct collect_ctx {
    hs_lts lts;
    int error;
} collect_ctx;

/* Reads "SRC DST" lines (# comments): *nodes gets 2 per pair, every node
 * at most once (one probe rank per node). */
static int read_pair_list(const char *path, uint32_t N, uint32_t **nodes, uint64_t *pairs,
                          hs_error *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_error_set(e, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s", path,
                            strerror(errno));
    uint32_t *v = calloc((size_t)N + 2, sizeof *v);
    char *used = calloc(N, 1);
    char buf[256];
    unsigned long line = 0;
    size_t n = 0;
    int rc = v && used ? 0 : hs_error_set(e, HS_ENOMEM, "out of memory");
    while (!rc && fgets(buf, sizeof buf, f)) {
        line++;
        char *h = strchr(buf, '#');
        if (h)
            *h = '\0';
        unsigned long long a, b;
        char extra;
        int got = sscanf(buf, "%llu %llu %c", &a, &b, &extra);
        if (got <= 0)
            continue;
        if (got != 2 || a >= N || b >= N || a == b || used[a] || used[b] || n + 2 > N)
            rc = hs_error_set(e, HS_EFORMAT, "%s: line %lu: expected \"SRC DST\", two nodes "
                              "below %u, each node in one pair only", path, line, N);
        else {
            used[a] = used[b] = 1;
            v[n++] = (uint32_t)a;
            v[n++] = (uint32_t)b;
        }
    }
    fclose(f);
    free(used);
    if (!rc && n == 0)
        rc = hs_error_set(e, HS_EFORMAT, "%s: no pair", path);
    if (rc) {
        free(v);
        return rc;
    }
    *nodes = v;
    *pairs = n / 2;
    return 0;
}

static void on_msg(void *ctx, const hs_replay_msg *m)
{
    collect_ctx *c = ctx;
    hs_lt t = { m->src_node, m->dst_node, m->bytes, m->t_leg, m->lat };
    if (m->eager && m->lat > 0 && hs_lts_add(&c->lts, &t))
        c->error = HS_ENOMEM;
}

static int do_collect(int argc, char **argv)
{
    enum { O_TOPO = 1000, O_BG, O_PAIRS, O_ITERS, O_GAP, O_SIZE, O_SEED, O_WINDOW, O_QUIET,
           O_PLIST, O_NEAR };
    static const struct option opts[] = {
        { "topo", required_argument, NULL, O_TOPO }, { "background", required_argument, NULL, O_BG },
        { "pairs", required_argument, NULL, O_PAIRS }, { "iters", required_argument, NULL, O_ITERS },
        { "gap", required_argument, NULL, O_GAP }, { "size", required_argument, NULL, O_SIZE },
        { "seed", required_argument, NULL, O_SEED }, { "window", required_argument, NULL, O_WINDOW },
        { "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, O_QUIET },
        { "pair-list", required_argument, NULL, O_PLIST },
        { "near", required_argument, NULL, O_NEAR },
        { NULL, 0, NULL, 0 },
    };
    const char *topo = NULL, *bg = NULL, *out = NULL, *plist = NULL;
    uint64_t pairs = 8, iters = 100, size = 8, seed = 1;
    hs_time gap = 2 * HS_PS_PER_US, window = 0;
    double near = 0.5;
    int quiet = 0, c, rc = 0;
    while ((c = next_opt(argc, argv, "collect", "o:", opts, &rc)) > 0) {
        const char *v = optarg;
        switch (c) {
        case O_TOPO: topo = v; break;
        case O_BG: bg = v; break;
        case O_PAIRS:
            if (hs_parse_u64(v, &pairs) || pairs < 1 || pairs > 1u << 20)
                return bad("pairs", v, "1..2^20");
            break;
        case O_ITERS:
            if (hs_parse_u64(v, &iters) || iters < 1 || iters > 10000000)
                return bad("iters", v, "1..10^7");
            break;
        case O_GAP:
            if (hs_parse_time(v, &gap) || gap % HS_PS_PER_NS)
                return bad("gap", v, "a time in whole nanoseconds, e.g. 2us");
            break;
        case O_SIZE:
            if (hs_parse_size(v, &size) || size > 16384)
                return bad("size", v, "bytes up to 16K (eager messages: one leg each)");
            break;
        case O_SEED:
            if (hs_parse_u64(v, &seed))
                return bad("seed", v, "an unsigned integer");
            break;
        case O_WINDOW:
            if (hs_parse_time(v, &window) || window == 0)
                return bad("window", v, "a positive time, e.g. 10us");
            break;
        case 'o': out = v; break;
        case O_QUIET: quiet = 1; break;
        case O_PLIST: plist = v; break;
        case O_NEAR:
            if (hs_parse_double(v, &near) || !(near >= 0 && near <= 1))
                return bad("near", v, "a fraction in [0, 1]");
            break;
        }
    }
    if (rc)
        return rc;
    if (optind != argc)
        return hs__usage_error(CMD, "collect: unexpected argument '%s'", argv[optind]);
    if (!topo || !out)
        return hs__usage_error(CMD, "collect needs --topo SPEC and -o RUN");
    hs_error e;
    hs_topo *t;
    rc = hs_topo_create(topo, &t, &e);
    if (rc)
        return fail(&e, rc);
    uint32_t N = hs_topo_nodes(t);
    uint32_t *chosen = NULL;   /* --pair-list: the nodes, two per pair */
    if (plist && (rc = read_pair_list(plist, N, &chosen, &pairs, &e))) {
        hs_topo_free(t);
        return fail(&e, rc);
    }
    if (2 * pairs > N) {
        hs_topo_free(t);
        return hs__usage_error(CMD, "collect: %llu pairs need %llu nodes, the machine has %u",
                               (unsigned long long)pairs, 2 * (unsigned long long)pairs, N);
    }
    if ((rc = hs_mkdir_p(out, &e))) {
        hs_topo_free(t);
        return fail(&e, rc);
    }
    /* the probe job's trace, and a mapping of its ranks to random nodes */
    char trace[4096], map[4200];
    snprintf(trace, sizeof trace, "%s/probe.trace", out);
    hs_gen_params gp;
    hs_gen_params_default(&gp, HS_GEN_PINGPONG);
    gp.ranks = (uint32_t)(2 * pairs);
    gp.iters = (uint32_t)iters;
    gp.size = size;
    gp.compute_ns = gap / HS_PS_PER_NS;
    gp.seed = seed;
    if ((rc = hs_gen_write(&gp, trace, &e))) {
        hs_topo_free(t);
        return fail(&e, rc);
    }
    uint32_t *perm = malloc((size_t)N * sizeof *perm);
    uint32_t *pick = malloc((size_t)N * sizeof *pick);
    if (!perm || !pick) {
        free(perm);
        free(pick);
        free(chosen);
        hs_topo_free(t);
        return HS_EXIT_FAIL;
    }
    for (uint32_t i = 0; i < N; i++)
        perm[i] = i;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (uint32_t i = N - 1; i > 0; i--) {   /* seeded Fisher-Yates (splitmix64) */
        s += 0x9E3779B97F4A7C15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        uint32_t j = (uint32_t)(z % (i + 1));
        uint32_t x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    /* A share `near` of the pairs is two nodes on one switch where the
     * machine has them: paths of different lengths, so that the fit can
     * tell the switch links' constants from the endpoints' (random pairs
     * on a large machine nearly always cross as many switches). */
    if (!chosen) {
        char *used = calloc(N, 1);
        size_t np = 0, next = 0;
        for (uint64_t k = 0; k < pairs && used; k++) {
            while (used[perm[next]])
                next++;
            uint32_t a = perm[next];
            used[a] = 1;
            uint32_t b = UINT32_MAX;
            int is_near = floor((double)(k + 1) * near) > floor((double)k * near);
            for (size_t q = next + 1; is_near && q < N && b == UINT32_MAX; q++)
                if (!used[perm[q]] &&
                    hs_topo_node_switch(t, perm[q]) == hs_topo_node_switch(t, a))
                    b = perm[q];
            for (size_t q = next + 1; b == UINT32_MAX && q < N; q++)
                if (!used[perm[q]])
                    b = perm[q];
            used[b] = 1;
            pick[np++] = a;
            pick[np++] = b;
        }
        if (!used) {
            free(perm);
            free(pick);
            hs_topo_free(t);
            return HS_EXIT_FAIL;
        }
        free(used);
        memcpy(perm, pick, np * sizeof *perm);
    } else {
        memcpy(perm, chosen, 2 * pairs * sizeof *perm);
    }
    free(pick);
    free(chosen);
    hs_topo_free(t);
    snprintf(map, sizeof map, "file:%s/probe.map", out);
    FILE *f = fopen(map + 5, "w");
    if (!f) {
        free(perm);
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, map + 5, strerror(errno));
        return HS_EXIT_FAIL;
    }
    for (uint32_t r = 0; r < 2 * pairs; r++)
        fprintf(f, "%u %u\n", r, perm[r]);
    free(perm);
    if (fclose(f)) {
        fprintf(stderr, "hopscope %s: %s: write failed\n", CMD, map + 5);
        return HS_EXIT_FAIL;
    }
    hs_replay_params rp;
    hs_replay_params_default(&rp);
    rp.trace = trace;
    rp.topo = topo;
    rp.map = map;
    rp.ppn = 1;
    rp.seed = seed;
    rp.net.seed = seed;
    if (window)
        rp.net.window = window;
    rp.background = bg;
    rp.out = out;
    collect_ctx cc = { { 0 }, 0 };
    rp.on_message = on_msg;
    rp.on_message_ctx = &cc;
    char cmdline[8192];
    size_t o = 0;
    for (int i = 0; i < argc && o < sizeof cmdline - 1; i++)
        o += (size_t)snprintf(cmdline + o, sizeof cmdline - o, "%s%s", i ? " " : "hopscope ",
                              argv[i]);
    rp.command = cmdline;
    if ((rc = hs_replay_check(&rp, &e)))
        return hs__usage_error(CMD, "collect: %s", hs_error_str(&e, rc));
    hs_replay_result res;
    rc = hs_replay_run(&rp, &res, &e);
    if (rc || cc.error) {
        hs_replay_result_free(&res);
        hs_lts_free(&cc.lts);
        if (!rc)
            fprintf(stderr, "hopscope %s: out of memory\n", CMD);
        return rc ? fail(&e, rc) : HS_EXIT_FAIL;
    }
    const char *status = hs_replay_status_name(&res);
    hs_replay_result_free(&res);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", out, LT_FILE);
    rc = hs_lts_write_csv(&cc.lts, path, &e);
    size_t ntests = cc.lts.n;
    hs_lts_free(&cc.lts);
    if (rc)
        return fail(&e, rc);
    hs_portcounters pc;
    if ((rc = hs_pc_from_run(out, &pc, &e)))
        return fail(&e, rc);
    snprintf(path, sizeof path, "%s/%s", out, PC_FILE);
    rc = hs_pc_write_csv(&pc, path, &e);
    size_t nrows = pc.n;
    hs_pc_free(&pc);
    if (rc)
        return fail(&e, rc);
    if (!quiet)
        printf("%s: %zu latency tests (%llu pairs, both ways), %zu port-counter rows, replay %s\n",
               out, ntests, (unsigned long long)pairs, nrows, status);
    if (strcmp(status, "ok") != 0) {
        fprintf(stderr, "hopscope %s: the replay ended '%s': the tests may be incomplete\n", CMD,
                status);
        return HS_EXIT_FAIL;
    }
    return HS_EXIT_OK;
}

/* ---- counters ------------------------------------------------------------------------- */

static int do_counters(int argc, char **argv)
{
    enum { O_INBAND = 1000, O_INBAND_RUN };
    static const struct option opts[] = {
        { "inband", no_argument, NULL, O_INBAND }, { "inband-run", no_argument, NULL, O_INBAND_RUN },
        OPT_OUTPUT, OPT_END,
    };
    const char *out = NULL;
    int inband = IN_STALL, c, rc = 0;
    while ((c = next_opt(argc, argv, "counters", "o:", opts, &rc)) > 0) {
        switch (c) {
        case O_INBAND: inband = IN_INBAND; break;
        case O_INBAND_RUN: inband = IN_INBAND_RUN; break;
        case O_OUT: out = optarg; break;
        }
    }
    if (rc)
        return rc;
    if (optind == argc)
        return hs__usage_error(CMD, "counters needs a run directory");
    if (argc - optind > 1)
        return hs__usage_error(CMD, "counters: one run directory only");
    const char *run = argv[optind];
    hs_error e;
    hs_portcounters pc;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", run, IN_FILE[inband]);
    remove(path);   /* recompute */
    rc = run_counters(run, inband, &pc, &e);
    if (rc)
        return fail(&e, rc);
    if (out)
        rc = hs_pc_write_csv(&pc, out, &e);
    printf("%s: %zu rows\n", out ? out : path, pc.n);
    hs_pc_free(&pc);
    return rc ? fail(&e, rc) : HS_EXIT_OK;
}

/* ---- import --------------------------------------------------------------------------- */

static int read_text(const char *path, char **t, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16;
    *n = 0;
    *t = malloc(cap);
    while (*t) {
        size_t got = fread(*t + *n, 1, cap - *n, f);
        *n += got;
        if (*n < cap)
            break;
        char *nt = realloc(*t, cap *= 2);
        if (!nt) {
            free(*t);
            *t = NULL;
        } else {
            *t = nt;
        }
    }
    int bad_read = ferror(f);
    fclose(f);
    if (!*t || bad_read) {
        free(*t);
        return -1;
    }
    return 0;
}

static int do_import(int argc, char **argv)
{
    enum { O_MAP = 1000, O_TICK, O_INTERVAL, O_LINKS };
    static const struct option opts[] = {
        { "map", required_argument, NULL, O_MAP }, { "tick", required_argument, NULL, O_TICK },
        { "interval", required_argument, NULL, O_INTERVAL },
        { "links", required_argument, NULL, O_LINKS }, OPT_OUTPUT, OPT_END,
    };
    const char *mapf = NULL, *out = NULL;
    hs_pq_opts po = { 0, 0, 0 };
    int rc = 0, c;
    while (!rc && (c = next_opt(argc, argv, "import", "o:", opts, &rc)) > 0) {
        const char *v = optarg;
        hs_time t;
        uint64_t u;
        switch (c) {
        case O_MAP: mapf = v; break;
        case O_TICK:
            if (hs_parse_time(v, &t) || t == 0) {
                double ns_;   /* also fractional nanoseconds: "--tick 2.5ns" is common */
                size_t L = strlen(v);
                if (L > 2 && strcmp(v + L - 2, "ns") == 0) {
                    char b[64];
                    snprintf(b, sizeof b, "%.*s", (int)(L - 2), v);
                    if (!hs_parse_double(b, &ns_) && ns_ > 0) {
                        po.tick_ps = ns_ * 1000;
                        break;
                    }
                }
                rc = bad("tick", v, "a positive time, e.g. 4ns");
            } else {
                po.tick_ps = (double)t;
            }
            break;
        case O_INTERVAL:
            if (hs_parse_time(v, &t) || t == 0)
                rc = bad("interval", v, "a positive time, e.g. 1s");
            po.interval_ps = t;
            break;
        case O_LINKS:
            if (hs_parse_u64(v, &u) || u > UINT32_MAX)
                rc = bad("links", v, "a link count");
            po.links = (uint32_t)u;
            break;
        case O_OUT: out = v; break;
        }
    }
    const char *const *snap = (const char *const *)argv + optind;
    size_t ns = rc ? 0 : (size_t)(argc - optind);
    if (!rc && (!mapf || !out || ns < 2 || !(po.tick_ps > 0)))
        rc = hs__usage_error(CMD, "import needs --map MAP, --tick T, -o CSV and at least two "
                             "snapshots");
    if (rc)
        return rc;
    hs_error e;
    char *mt;
    size_t ml;
    hs_ibmap *map = NULL;
    if (read_text(mapf, &mt, &ml)) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, mapf, strerror(errno));
        return HS_EXIT_FAIL;
    }
    rc = hs_ibmap_parse(mt, ml, mapf, &map, &e);
    free(mt);
    char **txt = calloc(ns, sizeof *txt);
    size_t *len = calloc(ns, sizeof *len);
    for (size_t i = 0; i < ns && !rc && txt && len; i++)
        if (read_text(snap[i], &txt[i], &len[i]))
            rc = hs_error_set(&e, HS_EIO, "%s: %s", snap[i], strerror(errno));
    hs_portcounters pc = { 0 };
    if (!rc && txt && len)
        rc = hs_pc_import_perfquery((const char *const *)txt, len, snap, ns, map, &po, &pc, &e);
    if (!rc)
        rc = hs_pc_write_csv(&pc, out, &e);
    if (!rc)
        printf("%s: %zu rows from %zu snapshots\n", out, pc.n, ns);
    hs_pc_free(&pc);
    for (size_t i = 0; txt && i < ns; i++)
        free(txt[i]);
    free(txt);
    free(len);
    hs_ibmap_free(map);
    return rc ? fail(&e, rc) : HS_EXIT_OK;
}

/* ---- fit / eval -------------------------------------------------------------------------- */

static int parse_input(const char *v, int *inband)
{
    int found = 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(v, IN_NAME[i]) == 0) {
            *inband = i;
            found = 1;
        }
    if (!found)
        return bad("input", v, "stall, inband or inband-run");
    return 0;
}

/* Joins the tests of the runs into obs (malloc'ed). */
static int gather(hs_latmodel *m, int init, int by_class, double res_ns, int inband, char **runs,
                  int nruns,
                  hs_lm_obs **obs, size_t *nobs, hs_lts *all, hs_error *e)
{
    size_t cap = 0, missing = 0;
    *obs = NULL;
    *nobs = 0;
    int rc = 0;
    for (int r = 0; r < nruns && !rc; r++) {
        hs_topo *t = NULL;
        hs_portcounters pc = { 0 };
        hs_lts lts = { 0 };
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", runs[r], LT_FILE);
        if ((rc = run_topo(runs[r], &t, e)) || (rc = hs_lts_read_csv(path, &lts, e)) ||
            (rc = run_counters(runs[r], inband, &pc, e))) {
            hs_topo_free(t);
            hs_lts_free(&lts);
            hs_pc_free(&pc);
            break;
        }
        if (init && r == 0) {
            hs_lm_init(m, t, by_class);
            m->res_ns = res_ns;
        }
        if ((int)hs_topo_type(t) != m->topo_kind && m->ncls > 1)
            rc = hs_error_set(e, HS_EINVAL, "%s: another topology family than the model's, "
                              "whose link classes it does not have (a model with one class "
                              "for all links, --classes pooled, applies to any)", runs[r]);
        for (size_t i = 0; i < lts.n && !rc; i++) {
            if (*nobs == cap) {
                cap = cap ? 2 * cap : 4096;
                hs_lm_obs *no = realloc(*obs, cap * sizeof *no);
                if (!no) {
                    rc = hs_error_set(e, HS_ENOMEM, "out of memory");
                    break;
                }
                *obs = no;
            }
            if ((rc = hs_lm_join(m, t, &pc, &lts.t[i], &(*obs)[*nobs], &missing, e)))
                break;
            (*nobs)++;
            if (all && hs_lts_add(all, &lts.t[i]))
                rc = hs_error_set(e, HS_ENOMEM, "out of memory");
        }
        hs_topo_free(t);
        hs_lts_free(&lts);
        hs_pc_free(&pc);
    }
    if (!rc && missing)
        fprintf(stderr, "hopscope %s: note: %zu path links had no counters at the test's time "
                "(taken as not stalled)\n", CMD, missing);
    return rc;
}

static int do_fit(int argc, char **argv)
{
    enum { O_CLASSES = 1000, O_RES };
    static const struct option opts[] = {
        { "classes", required_argument, NULL, O_CLASSES }, OPT_INPUT,
        { "resolution", required_argument, NULL, O_RES }, OPT_OUTPUT,
        { "quiet", no_argument, NULL, O_QUIETA }, OPT_END,
    };
    const char *out = "latmodel.json";
    int by_class = HS_LM_AUTO, inband = 0, rc = 0, quiet = 0, c;
    double res_ns = HS_LM_RES_NS;
    while (!rc && (c = next_opt(argc, argv, "fit", "o:", opts, &rc)) > 0) {
        const char *v = optarg;
        hs_time t;
        switch (c) {
        case O_CLASSES:
            if (!strcmp(v, "auto"))
                by_class = HS_LM_AUTO;
            else if (!strcmp(v, "pooled"))
                by_class = HS_LM_POOLED;
            else if (!strcmp(v, "class"))
                by_class = HS_LM_BYCLASS;
            else
                rc = bad("classes", v, "auto, pooled or class");
            break;
        case O_INPUT: rc = parse_input(v, &inband); break;
        case O_RES:
            if (hs_parse_time(v, &t) || t > 1000 * HS_PS_PER_US)
                rc = bad("resolution", v, "a time up to 1ms, e.g. 10ns (0: none)");
            res_ns = (double)t / HS_PS_PER_NS;
            break;
        case O_OUT: out = v; break;
        case O_QUIETA: quiet = 1; break;
        }
    }
    char **runs = argv + optind;
    int nruns = argc - optind;
    if (!rc && !nruns)
        rc = hs__usage_error(CMD, "fit needs run directories with latency tests "
                             "('hopscope latmodel collect')");
    if (rc)
        return rc;
    hs_latmodel m;
    hs_lm_obs *obs = NULL;
    size_t n = 0;
    hs_error e;
    rc = gather(&m, 1, by_class, res_ns, inband, runs, nruns, &obs, &n, NULL, &e);
    if (!rc) {
        snprintf(m.input, sizeof m.input, "%s", IN_NAME[inband]);
        rc = hs_lm_fit(&m, obs, n, &e);
    }
    free(obs);
    if (rc)
        return fail(&e, rc);
    FILE *f = fopen(out, "w");
    if (!f || hs_lm_write_json(&m, f) | fclose(f)) {
        fprintf(stderr, "hopscope %s: %s: cannot write\n", CMD, out);
        return HS_EXIT_FAIL;
    }
    if (!quiet) {
        hs_lm_print(&m, stdout);
        printf("model written to %s\n", out);
    }
    return HS_EXIT_OK;
}

typedef struct score {
    size_t n, within;
    double r;
} score;

/* Scores the tests with sel[i] set (all when sel is NULL). */
static score score_of(const hs_latmodel *m, const hs_lm_obs *obs, size_t n, const char *sel,
                      FILE *dump)
{
    score s = { 0, 0, NAN };
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        if (sel && !sel[i])
            continue;
        s.n++;
        double mu, var;
        hs_lm_predict_obs(m, &obs[i], &mu, &var);
        double y = obs[i].y;
        if (fabs(y - mu) <= 0.35 * y)
            s.within++;
        sx += mu;
        sy += y;
        sxx += mu * mu;
        syy += y * y;
        sxy += mu * y;
        if (dump)
            fprintf(dump, "%.3f,%.3f,%.3f\n", y, mu, sqrt(var));
    }
    double k = (double)s.n;
    double cxx = sxx - sx * sx / k, cyy = syy - sy * sy / k, cxy = sxy - sx * sy / k;
    if (cxx > 0 && cyy > 0)
        s.r = cxy / sqrt(cxx * cyy);
    return s;
}

static const hs_lt *lt_sort_base;   /* qsort has no context argument */

static int lt_pair_cmp(const void *a, const void *b)
{
    const hs_lt *x = &lt_sort_base[*(const size_t *)a], *y = &lt_sort_base[*(const size_t *)b];
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return i < j ? -1 : i > j;
}

static int do_eval(int argc, char **argv)
{
    enum { O_DUMP = 1000 };
    static const struct option opts[] = {
        OPT_MODEL, OPT_INPUT, { "dump", required_argument, NULL, O_DUMP }, OPT_END,
    };
    const char *model = NULL, *dumpf = NULL;
    int inband = -1, rc = 0, o;
    while (!rc && (o = next_opt(argc, argv, "eval", "", opts, &rc)) > 0) {
        switch (o) {
        case O_MODEL: model = optarg; break;
        case O_INPUT: rc = parse_input(optarg, &inband); break;
        case O_DUMP: dumpf = optarg; break;
        }
    }
    char **runs = argv + optind;
    int nruns = argc - optind;
    if (!rc && (!model || !nruns))
        rc = hs__usage_error(CMD, "eval needs --model MODEL and run directories");
    if (rc)
        return rc;
    hs_latmodel m;
    hs_error e;
    if ((rc = hs_lm_read_json(model, &m, &e)))
        return fail(&e, rc);
    if (inband < 0) {
        inband = IN_STALL;
        for (int i = 0; i < 3; i++)
            if (strcmp(m.input, IN_NAME[i]) == 0)
                inband = i;
    }
    hs_lm_obs *obs = NULL;
    size_t n = 0;
    hs_lts all = { 0 };
    rc = gather(&m, 0, 0, 0, inband, runs, nruns, &obs, &n, &all, &e);
    if (rc) {
        free(obs);
        hs_lts_free(&all);
        return fail(&e, rc);
    }
    /* the congested tests: measured above 1.5 x the least latency seen
     * between the same nodes (in these runs) */
    char *sel = calloc(n ? n : 1, 1);
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!sel || !ix) {
        free(sel);
        free(ix);
        free(obs);
        hs_lts_free(&all);
        return HS_EXIT_FAIL;
    }
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    lt_sort_base = all.t;
    qsort(ix, n, sizeof *ix, lt_pair_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint64_t least = UINT64_MAX;
        for (; j < n && all.t[ix[j]].src == all.t[ix[i]].src &&
               all.t[ix[j]].dst == all.t[ix[i]].dst; j++)
            least = all.t[ix[j]].lat_ps < least ? all.t[ix[j]].lat_ps : least;
        for (size_t q = i; q < j; q++)
            sel[ix[q]] = (double)all.t[ix[q]].lat_ps > 1.5 * (double)least;
        i = j;
    }
    free(ix);
    hs_lts_free(&all);
    FILE *dump = dumpf ? fopen(dumpf, "w") : NULL;
    if (dump)
        fprintf(dump, "measured_ns,expected_ns,sd_ns\n");
    score s = score_of(&m, obs, n, NULL, dump);
    score c = score_of(&m, obs, n, sel, NULL);
    if (dump)
        fclose(dump);
    free(obs);
    free(sel);
    printf("tests %zu  within 35%%: %.1f%%  Pearson r: %.3f  (reference: 89%%, 0.68)\n", s.n,
           s.n ? 100.0 * (double)s.within / (double)s.n : 0.0, s.r);
    printf("congested tests (above 1.5 x the pair's least latency) %zu  within 35%%: %.1f%%  "
           "Pearson r: %.3f\n", c.n, c.n ? 100.0 * (double)c.within / (double)c.n : 0.0, c.r);
    return HS_EXIT_OK;
}

/* ---- predict ------------------------------------------------------------------------------ */

static int do_predict(int argc, char **argv)
{
    enum { O_TOPO = 1000, O_COUNTERS, O_PAIRS, O_AT };
    static const struct option opts[] = {
        OPT_MODEL, { "topo", required_argument, NULL, O_TOPO },
        { "counters", required_argument, NULL, O_COUNTERS },
        { "pairs", required_argument, NULL, O_PAIRS }, OPT_INPUT,
        { "at", required_argument, NULL, O_AT }, OPT_END,
    };
    const char *model = NULL, *run = NULL, *topo = NULL, *csv = NULL, *pairs = NULL;
    int inband = 0, have_at = 0, rc = 0, c;
    hs_time at = 0;
    while (!rc && (c = next_opt(argc, argv, "predict", "", opts, &rc)) > 0) {
        switch (c) {
        case O_MODEL: model = optarg; break;
        case O_TOPO: topo = optarg; break;
        case O_COUNTERS: csv = optarg; break;
        case O_PAIRS: pairs = optarg; break;
        case O_INPUT: rc = parse_input(optarg, &inband); break;
        case O_AT:
            if (hs_parse_time(optarg, &at))
                rc = bad("at", optarg, "a time, e.g. 150us");
            have_at = 1;
            break;
        }
    }
    if (!rc && argc - optind > 1)
        rc = hs__usage_error(CMD, "predict: one run directory only");
    if (!rc && optind < argc)
        run = argv[optind];
    if (!rc && (!model || (!run && (!topo || !csv)) || (run && (topo || csv))))
        rc = hs__usage_error(CMD, "predict needs --model MODEL and either a run directory or "
                             "--topo SPEC --counters CSV");
    if (rc)
        return rc;
    hs_error e;
    hs_latmodel m;
    hs_topo *t = NULL;
    hs_portcounters pc = { 0 }, avg = { 0 };
    if ((rc = hs_lm_read_json(model, &m, &e)))
        return fail(&e, rc);
    rc = run ? run_topo(run, &t, &e) : hs_topo_create(topo, &t, &e);
    if (!rc)
        rc = run ? run_counters(run, inband, &pc, &e) : hs_pc_read_csv(csv, &pc, &e);
    if (!rc && (int)hs_topo_type(t) != m.topo_kind && m.ncls > 1)
        rc = hs_error_set(&e, HS_EINVAL, "the model was fitted on another topology family, "
                          "with link classes this one does not have (fit with --classes "
                          "pooled for a model that applies to any)");
    if (!rc && !have_at && hs_pc_average(&pc, &avg))
        rc = hs_error_set(&e, HS_ENOMEM, "out of memory");
    uint32_t N = t ? hs_topo_nodes(t) : 0;
    FILE *pf = NULL;
    if (!rc && pairs && !(pf = fopen(pairs, "r")))
        rc = hs_error_set(&e, HS_ENOENT, "%s: %s", pairs, strerror(errno));
    if (!rc)
        printf("# src dst expected_ns lo95_ns hi95_ns range\n");
    uint32_t s = 0, d = 0;
    unsigned long line = 0, nextra = 0;
    char buf[256];
    while (!rc) {
        if (pf) {
            if (!fgets(buf, sizeof buf, pf))
                break;
            line++;
            char *h = strchr(buf, '#');
            if (h)
                *h = '\0';
            unsigned long long a, b;
            char extra;
            int got = sscanf(buf, "%llu %llu %c", &a, &b, &extra);
            if (got <= 0)
                continue;
            if (got != 2 || a >= N || b >= N || a == b) {
                rc = hs_error_set(&e, HS_EFORMAT, "%s: line %lu: expected \"SRC DST\", two "
                                  "different nodes below %u", pairs, line, N);
                break;
            }
            s = (uint32_t)a;
            d = (uint32_t)b;
        } else {
            if (s >= N)
                break;
            if (s == d || d >= N) {
                if (++d >= N) {
                    d = 0;
                    s++;
                }
                continue;
            }
        }
        hs_lt q = { s, d, 0, have_at ? at : 0, 1 };
        hs_lm_obs o;
        if ((rc = hs_lm_join(&m, t, have_at ? &pc : &avg, &q, &o, NULL, &e)))
            break;
        double mu, var;
        hs_lm_predict_obs(&m, &o, &mu, &var);
        double lo = mu - Z95 * sqrt(var);
        int ex = hs_lm_extrapolated(&m, &o);
        nextra += (unsigned long)ex;
        printf("%u %u %.1f %.1f %.1f %s\n", s, d, mu, lo > 0 ? lo : 0, mu + Z95 * sqrt(var),
               ex ? "extrapolated" : "fitted");
        if (!pf && ++d >= N) {
            d = 0;
            s++;
        }
    }
    if (pf)
        fclose(pf);
    if (!rc && nextra)
        fprintf(stderr, "hopscope %s: note: %lu pairs have paths with more or fewer links of a "
                "class than any fitted test (\"extrapolated\"): their constants may not apply\n",
                CMD, nextra);
    hs_topo_free(t);
    hs_pc_free(&pc);
    hs_pc_free(&avg);
    return rc ? fail(&e, rc) : HS_EXIT_OK;
}

/* ---- report ------------------------------------------------------------------------------ */

static int do_report(int argc, char **argv)
{
    enum { O_TOP = 1000 };
    static const struct option opts[] = {
        OPT_MODEL, OPT_INPUT, { "top", required_argument, NULL, O_TOP }, OPT_OUTPUT, OPT_END,
    };
    const char *model = NULL, *run = NULL, *out = NULL;
    int inband = 0, rc = 0, c;
    uint64_t top = 10;
    while (!rc && (c = next_opt(argc, argv, "report", "o:", opts, &rc)) > 0) {
        switch (c) {
        case O_MODEL: model = optarg; break;
        case O_INPUT: rc = parse_input(optarg, &inband); break;
        case O_TOP:
            if (hs_parse_u64(optarg, &top) || top < 1 || top > 1000000)
                rc = bad("top", optarg, "1..10^6");
            break;
        case O_OUT: out = optarg; break;
        }
    }
    if (!rc && argc - optind > 1)
        rc = hs__usage_error(CMD, "report: one run directory only");
    if (!rc && optind < argc)
        run = argv[optind];
    if (!rc && (!model || !run))
        rc = hs__usage_error(CMD, "report needs --model MODEL and a replay's run directory");
    if (rc)
        return rc;
    hs_error e;
    hs_latmodel m;
    hs_portcounters pc = { 0 };
    hs_lm_pair *p = NULL;
    size_t n = 0;
    if ((rc = hs_lm_read_json(model, &m, &e)) || (rc = run_counters(run, inband, &pc, &e)) ||
        (rc = hs_lm_heavy_pairs(&m, run, &pc, (size_t)top, &p, &n, &e))) {
        hs_pc_free(&pc);
        return fail(&e, rc);
    }
    hs_pc_free(&pc);
    char path[4096];
    snprintf(path, sizeof path, "%s/latmodel_report.json", run);
    if (!out)
        out = path;
    FILE *f = fopen(out, "w");
    if (f) {
        hs_json j;
        hs_json_init(&j, f, 1);
        hs_json_obj_begin(&j);
        hs_json_key(&j, "format");
        hs_json_str(&j, "hopscope-latmodel-report");
        hs_json_key(&j, "version");
        hs_json_int(&j, 1);
        hs_json_key(&j, "model");
        hs_json_str(&j, model);
        hs_json_key(&j, "input");
        hs_json_str(&j, IN_NAME[inband]);
        hs_json_key(&j, "pairs");
        hs_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            hs_json_obj_begin(&j);
            hs_json_key(&j, "src");
            hs_json_uint(&j, p[i].src);
            hs_json_key(&j, "dst");
            hs_json_uint(&j, p[i].dst);
            hs_json_key(&j, "bytes");
            hs_json_uint(&j, p[i].bytes);
            hs_json_key(&j, "messages");
            hs_json_uint(&j, p[i].messages);
            hs_json_key(&j, "expected_ns");
            hs_json_num(&j, p[i].mean_ns);
            hs_json_key(&j, "sd_ns");
            hs_json_num(&j, p[i].sd_ns);
            hs_json_key(&j, "idle_expected_ns");
            hs_json_num(&j, p[i].idle_mean_ns);
            hs_json_key(&j, "idle_sd_ns");
            hs_json_num(&j, p[i].idle_sd_ns);
            hs_json_key(&j, "extrapolated");
            hs_json_bool(&j, p[i].extrapolated);
            hs_json_obj_end(&j);
        }
        hs_json_arr_end(&j);
        hs_json_obj_end(&j);
        rc = hs_json_finish(&j);
        fputc('\n', f);
        if (fclose(f))
            rc = HS_EIO;
    }
    if (!f || rc) {
        free(p);
        fprintf(stderr, "hopscope %s: %s: cannot write\n", CMD, out);
        return HS_EXIT_FAIL;
    }
    printf("the application's heaviest node pairs: expected latency of a message under the\n"
           "run's congestion (average %s over the run) and on an idle machine\n",
           inband ? "in-band CF" : "stall");
    printf("%6s %6s %12s %10s %14s %14s %7s\n", "src", "dst", "bytes", "messages",
           "congested ns", "idle ns", "ratio");
    size_t nex = 0;
    for (size_t i = 0; i < n; i++) {
        printf("%6u %6u %12llu %10llu %8.0f+-%-5.0f %8.0f+-%-5.0f %7.2f%s\n", p[i].src, p[i].dst,
               (unsigned long long)p[i].bytes, (unsigned long long)p[i].messages, p[i].mean_ns,
               p[i].sd_ns, p[i].idle_mean_ns, p[i].idle_sd_ns,
               p[i].idle_mean_ns > 0 ? p[i].mean_ns / p[i].idle_mean_ns : NAN,
               p[i].extrapolated ? " *" : "");
        nex += (size_t)p[i].extrapolated;
    }
    if (nex)
        printf("* extrapolated: the path has more or fewer links of a class than any "
               "fitted test\n");
    printf("written to %s\n", out);
    free(p);
    return HS_EXIT_OK;
}

int hs__cmd_latmodel(int argc, char **argv)
{
    if (argc < 2)
        return hs__usage_error(CMD, "which action? collect, counters, import, fit, predict, eval, "
                               "report");
    const char *a = argv[1];
    if (!strcmp(a, "collect"))
        return do_collect(argc, argv);
    if (!strcmp(a, "counters"))
        return do_counters(argc, argv);
    if (!strcmp(a, "import"))
        return do_import(argc, argv);
    if (!strcmp(a, "fit"))
        return do_fit(argc, argv);
    if (!strcmp(a, "predict"))
        return do_predict(argc, argv);
    if (!strcmp(a, "eval"))
        return do_eval(argc, argv);
    if (!strcmp(a, "report"))
        return do_report(argc, argv);
    return hs__usage_error(CMD, "unknown action '%s' (collect, counters, import, fit, predict, "
                           "eval, report)", a);
}
