/* hopscope sweep: a family of replays of one trace (mappings crossed with
 * backgrounds, routings and field widths), one row of features per run in
 * DIR/sweep.csv, for the culprit model (hopscope culprits) or any other.
 *
 * Layout of a sweep directory DIR (docs/formats.md, "sweep.csv"):
 *   plan.csv            every run of the sweep: index and descriptors (the
 *                       same for every part; merge checks it)
 *   maps/               mapping files the sweep generates (blocked:B,
 *                       suggested)
 *   rows/NNNNNN.csv     one finished run: header line and row (written to a
 *                       temporary name and renamed: it exists whole or not
 *                       at all, which is what makes the sweep resumable even
 *                       after kill -9)
 *   rows/NNNNNN.fail    a run whose replay did not complete, with why
 *   logs/NNNNNN.log     the run's messages
 *   runs/NNNNNN/        the run directory (only with --keep-runs)
 *   sweep.csv           the rows of the runs of this part, by run index
 *
 * Every run is a child process: the hopscope command itself, re-executed
 * with the same options and "--child K".  The child rebuilds the plan (a
 * pure function of the options), replays run K in-process (simulate),
 * analyses it, computes its features and writes its row.  The parent only
 * schedules, so the memory of the sweep is that of -j replays.  A child
 * dies with its parent (PR_SET_PDEATHSIG), so a killed sweep leaves no run
 * going; a run's directory is cleared before it starts.
 *
 * Nothing in sweep.csv depends on time, -j or the part split: rows come
 * from deterministic replays and are joined by run index. */
#include "cli.h"
#include "hopscope/analyzer.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"
#include "hopscope/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CMD "sweep"
#define MAX_RUNS 1000000u
#define JSON_MAX (64u << 20)
#define PROGRESS_EVERY 5.0      /* seconds between progress lines without a completion */
#define BAR_WIDTH 30            /* characters of the progress bar on a terminal */

const char hs__help_sweep[] =
    "usage: hopscope sweep -i TRACE --topo SPEC -o DIR [mappings] [crossings]\n"
    "                      [-j N] [--part I/N] [--keep-runs] [-- SIMULATE-OPTIONS]\n"
    "       hopscope sweep merge -o FILE DIR...\n"
    "\n"
    "Replays one trace many times on one machine, changing the mapping of ranks to\n"
    "nodes (and optionally the background jobs, the routing and the in-band field\n"
    "width), analyses every run and writes one row per run to DIR/sweep.csv: the\n"
    "run's descriptors, its predicted execution time (time_s) and its features\n"
    "(f_truth_* from the model's ground truth, f_inband_* from what the in-band\n"
    "field alone supports; every column in docs/formats.md, \"sweep.csv\").  The\n"
    "input of 'hopscope culprits'.\n"
    "\n"
    "mappings (together; default linear):\n"
    "  --map LIST         comma-separated: linear, roundrobin, random:SEED, shift:S,\n"
    "                     blocked:B (blocks of B consecutive ranks dealt round-robin\n"
    "                     over the job's nodes: rank r on node (r/B) mod M, M =\n"
    "                     ceil(ranks/ppn); blocked:1 is roundrobin, blocked:ppn is\n"
    "                     linear), suggested (the analyzer's suggestion for a run\n"
    "                     with the linear mapping, no background and the first\n"
    "                     routing and width), file:PATH\n"
    "  --random N         N random mappings, random:SEED for SEED = --seed, ..,\n"
    "                     --seed + N - 1\n"
    "  --map-list FILE    mapping files (docs/formats.md), one path per line\n"
    "crossings (each multiplies the runs):\n"
    "  --background SPEC  a background (simulate's syntax; 'none' for none);\n"
    "                     repeat for several (default: none)\n"
    "  --routing LIST     comma-separated routings of the topology family (fat-tree\n"
    "                     dmodk,adaptive; dragonfly min,valiant,ugal); default the\n"
    "                     spec's\n"
    "  --bits LIST        comma-separated in-band field widths, 5..13 (default: the\n"
    "                     simulate default)\n"
    "common to every run:\n"
    "  -i, --input TRACE  the trace ('hopscope record' or 'hopscope gen')\n"
    "  --topo SPEC        the machine ('hopscope help topo')\n"
    "  --ppn P            ranks per node (default: the trace's)\n"
    "  --seed N           seed of every replay (network, background placement) and\n"
    "                     the first random mapping (1)\n"
    "  -- OPTIONS         further 'hopscope simulate' options for every run (e.g.\n"
    "                     -- --eager 64K --buffer 16K)\n"
    "running:\n"
    "  -o, --output DIR   the sweep directory (resumable: run the same command\n"
    "                     again and it continues where it stopped)\n"
    "  -j, --jobs N       runs at once, each a child process (default: the cores)\n"
    "  --max-mem BYTES    address-space limit of each run (e.g. 4G); also caps -j\n"
    "                     at the available memory over it (default: no limit)\n"
    "  --part I/N         only the runs with index mod N = I-1 (array jobs; join\n"
    "                     the parts with 'hopscope sweep merge')\n"
    "  --keep-runs        keep every run directory in DIR/runs/ (with\n"
    "                     analysis.json); by default each is removed once its row\n"
    "                     is written\n"
    "  --dry-run          print the plan and exit\n"
    "  -q, --quiet        no progress (otherwise, on stderr: a bar redrawn as runs\n"
    "                     finish when stderr is a terminal, else a line for the\n"
    "                     first and the last run and at most one every 5 s;\n"
    "                     both with an ETA)\n"
    "\n"
    "merge: joins the rows of the directories of the parts of one sweep (the same\n"
    "options but --part) into FILE, by run index: byte-identical to the sweep.csv\n"
    "of the whole sweep run at once.  Fails naming the runs no directory has\n"
    "('hopscope sweep merge --help').\n"
    "\n"
    "over MPI processes (several nodes; docs/fabric.md, \"Families of runs\"):\n"
    "  mpirun -np N hopscope-par sweep ...  (the same options) spreads the runs:\n"
    "                     each process asks rank 0 for its next run when one of its\n"
    "                     -j slots frees (default -j: the node's cores over the\n"
    "                     processes on it, at most the cores mpirun bound the\n"
    "                     process to); rank 0 alone writes plan.csv, maps/,\n"
    "                     sweep.csv and failed.csv, the same bytes as hopscope's.\n"
    "                     DIR must be on a file system every process sees.  A run\n"
    "                     that stops on any process fails the sweep, named with\n"
    "                     its process, and no sweep.csv is written (run the same\n"
    "                     command again to resume)\n"
    "\n"
    "A run whose replay does not complete (deadlock, unmatched messages) has no row;\n"
    "DIR/failed.csv lists it with the reason, and the sweep says how many.  Exit\n"
    "status 1 when no run of the part succeeded.\n"
    "\n"
    "examples:\n"
    "  hopscope gen halo3d --ranks 256 -o halo.trace\n"
    "  hopscope sweep -i halo.trace --topo fattree:k=8,n=2,taper=2 --ppn 4 \\\n"
    "      --map linear,roundrobin,blocked:2,suggested --random 80 -o halo.sweep\n"
    "  hopscope sweep -i halo.trace --topo fattree:k=8,n=2 --random 40 \\\n"
    "      --background none --background mixed:frac=0.5 --part 2/4 -o part2\n"
    "  hopscope sweep merge -o all.csv part1 part2 part3 part4\n"
    "  mpirun -np 8 hopscope-par sweep -i halo.trace --topo fattree:k=8,n=2 \\\n"
    "      --random 400 -o /shared/halo.sweep\n";

static const char help_merge[] =
    "usage: hopscope sweep merge -o FILE DIR...\n"
    "\n"
    "Joins the rows of the directories of the parts of one sweep (run with the\n"
    "same options but --part I/N) into FILE, by run index: byte-identical to the\n"
    "sweep.csv of the whole sweep run at once.  Fails naming the runs no\n"
    "directory has.\n"
    "\n"
    "  -o FILE      the joined table to write (required)\n"
    "\n"
    "example:\n"
    "  hopscope sweep -i T --topo fattree:k=8,n=2 --random 40 --part 1/2 -o part1\n"
    "  hopscope sweep -i T --topo fattree:k=8,n=2 --random 40 --part 2/2 -o part2\n"
    "  hopscope sweep merge -o all.csv part1 part2\n";

const hs__subhelp hs__subhelp_sweep[] = {
    { "merge", help_merge },
    { NULL, NULL },
};

/* ---- options and the plan ------------------------------------------------------ */

typedef struct list {
    char **v;
    size_t n;
} list;

static int list_add(list *l, const char *s, size_t len)
{
    char **p = realloc(l->v, (l->n + 1) * sizeof *p);
    if (!p)
        return -1;
    l->v = p;
    p[l->n] = strndup(s, len);
    if (!p[l->n])
        return -1;
    l->n++;
    return 0;
}

static int list_split(list *l, const char *s)
{
    while (1) {
        const char *c = strchr(s, ',');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        if (len && list_add(l, s, len))
            return -1;
        if (!c)
            return 0;
        s = c + 1;
    }
}

static void list_free(list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

typedef struct mapping {
    char spec[4400];   /* what simulate gets */
    char desc[4400];   /* the descriptor */
    int  suggested;
} mapping;

typedef struct opts {
    const char *trace, *topo, *out, *ppn, *max_mem_s;
    uint64_t seed;
    int seed_given;
    list maps, bgs, routings, bits, map_lists;
    unsigned nrandom;
    unsigned jobs;
    uint64_t max_mem;
    unsigned part_i, part_n;
    int keep, quiet, dry;
    long child;          /* -1: the parent; -2: prepare the suggested mapping */
    char **extra;        /* after "--" */
    int nextra;
    /* the plan */
    mapping *m;
    size_t nm;
    char (*topos)[1024];      /* per routing: the canonical spec */
    char (*rnames)[32];       /* per routing: its name */
    size_t nr;
    uint32_t ranks, ppn_used, nodes;
    uint64_t nruns;
} opts;

static void opts_free(opts *o)
{
    list_free(&o->maps);
    list_free(&o->bgs);
    list_free(&o->routings);
    list_free(&o->bits);
    list_free(&o->map_lists);
    free(o->m);
    free(o->topos);
    free(o->rnames);
}

/* Descriptors never contain commas, quotes or line ends (sweep.csv is
 * plain comma-separated): ',' becomes ';', the others '_'. */
static void desc_clean(char *s)
{
    for (; *s; s++) {
        if (*s == ',')
            *s = ';';
        else if (*s == '"' || *s == '\n' || *s == '\r')
            *s = '_';
    }
}

static const char *bg_desc(const opts *o, size_t b)
{
    return o->bgs.n ? o->bgs.v[b] : "none";
}

static size_t nbg(const opts *o)
{
    return o->bgs.n ? o->bgs.n : 1;
}

static size_t nbits(const opts *o)
{
    return o->bits.n ? o->bits.n : 1;
}

/* Run index -> (mapping, background, routing, bits): mapping outermost. */
static void run_parts(const opts *o, uint64_t k, size_t *m, size_t *b, size_t *r, size_t *f)
{
    *f = (size_t)(k % nbits(o));
    k /= nbits(o);
    *r = (size_t)(k % o->nr);
    k /= o->nr;
    *b = (size_t)(k % nbg(o));
    *m = (size_t)(k / nbg(o));
}

/* The topology spec with routing=R: any routing= option replaced. */
static int with_routing(const char *spec, const char *r, char *out, size_t n)
{
    const char *colon = strchr(spec, ':');
    if (strncmp(spec, "file:", 5) == 0)
        return -1;
    size_t o = 0;
    o += (size_t)snprintf(out + o, n - o, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec),
                          spec);
    int first = 1;
    for (const char *p = colon ? colon + 1 : NULL; p && *p && o < n;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len && strncmp(p, "routing=", 8) != 0) {
            o += (size_t)snprintf(out + o, n - o, "%s%.*s", first ? ":" : ",", (int)len, p);
            first = 0;
        }
        p = c ? c + 1 : p + len;
    }
    if (o < n)
        o += (size_t)snprintf(out + o, n - o, "%srouting=%s", first ? ":" : ",", r);
    return o < n ? 0 : -1;
}

static int parse_u(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0))
        return -1;
    double mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1024.0, end++;
    else if (*end == 'M') mul = 1024.0 * 1024, end++;
    else if (*end == 'G') mul = 1024.0 * 1024 * 1024, end++;
    else if (*end == 'T') mul = 1024.0 * 1024 * 1024 * 1024, end++;
    if (*end == 'i' && mul > 1)
        end++;
    if (*end == 'B')
        end++;
    if (*end || v * mul > 1e18)
        return -1;
    *out = (uint64_t)(v * mul);
    return 0;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    enum { O_TOPO = 256, O_MAP, O_RANDOM, O_MAPLIST, O_BG, O_ROUTING, O_BITS, O_PPN,
           O_SEED, O_PART, O_KEEP, O_CHILD, O_DRY, O_MAXMEM };
    static const struct option lo[] = {
        { "input", required_argument, NULL, 'i' },
        { "topo", required_argument, NULL, O_TOPO },
        { "output", required_argument, NULL, 'o' },
        { "map", required_argument, NULL, O_MAP },
        { "random", required_argument, NULL, O_RANDOM },
        { "map-list", required_argument, NULL, O_MAPLIST },
        { "background", required_argument, NULL, O_BG },
        { "routing", required_argument, NULL, O_ROUTING },
        { "bits", required_argument, NULL, O_BITS },
        { "ppn", required_argument, NULL, O_PPN },
        { "seed", required_argument, NULL, O_SEED },
        { "jobs", required_argument, NULL, 'j' },
        { "max-mem", required_argument, NULL, O_MAXMEM },
        { "part", required_argument, NULL, O_PART },
        { "keep-runs", no_argument, NULL, O_KEEP },
        { "dry-run", no_argument, NULL, O_DRY },
        { "quiet", no_argument, NULL, 'q' },
        { "child", required_argument, NULL, O_CHILD },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->child = -1;
    o->part_i = o->part_n = 1;
    int c;
    uint64_t u;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+i:o:j:q", lo, NULL)) != -1) {
        switch (c) {
        case 'i': o->trace = optarg; break;
        case O_TOPO: o->topo = optarg; break;
        case 'o': o->out = optarg; break;
        case O_MAP:
            if (list_split(&o->maps, optarg))
                return hs__usage_error(CMD, "out of memory");
            break;
        case O_RANDOM:
            if (parse_u(optarg, 1, MAX_RUNS, &u))
                return hs__usage_error(CMD, "--random %s: expected a count 1..%u", optarg,
                                       MAX_RUNS);
            o->nrandom = (unsigned)u;
            break;
        case O_MAPLIST:
            if (list_add(&o->map_lists, optarg, strlen(optarg)))
                return hs__usage_error(CMD, "out of memory");
            break;
        case O_BG:
            if (list_add(&o->bgs, optarg, strlen(optarg)))
                return hs__usage_error(CMD, "out of memory");
            break;
        case O_ROUTING:
            if (list_split(&o->routings, optarg))
                return hs__usage_error(CMD, "out of memory");
            break;
        case O_BITS:
            if (list_split(&o->bits, optarg))
                return hs__usage_error(CMD, "out of memory");
            break;
        case O_PPN: o->ppn = optarg; break;
        case O_SEED:
            if (parse_u(optarg, 0, UINT64_MAX / 2, &u))
                return hs__usage_error(CMD, "--seed %s: expected an integer", optarg);
            o->seed = u;
            o->seed_given = 1;
            break;
        case 'j':
            if (parse_u(optarg, 1, 4096, &u))
                return hs__usage_error(CMD, "-j %s: expected 1..4096", optarg);
            o->jobs = (unsigned)u;
            break;
        case O_MAXMEM:
            if (parse_bytes(optarg, &o->max_mem) || o->max_mem < (16u << 20))
                return hs__usage_error(CMD, "--max-mem %s: expected bytes of at least 16M "
                                       "(e.g. 4G)", optarg);
            break;
        case O_PART: {
            unsigned a, b;
            char tail;
            if (sscanf(optarg, "%u/%u%c", &a, &b, &tail) != 2 || b < 1 || a < 1 || a > b ||
                b > MAX_RUNS)
                return hs__usage_error(CMD, "--part %s: expected I/N with 1 <= I <= N", optarg);
            o->part_i = a;
            o->part_n = b;
            break;
        }
        case O_KEEP: o->keep = 1; break;
        case O_DRY: o->dry = 1; break;
        case 'q': o->quiet = 1; break;
        case O_CHILD: {
            char *end;
            o->child = strtol(optarg, &end, 10);
            if (*end || o->child < -2)
                return hs__usage_error(CMD, "--child %s: internal option", optarg);
            break;
        }
        default:
            return hs__usage_error(CMD, "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc && strcmp(argv[optind - 1], "--") == 0) {
        o->extra = argv + optind;
        o->nextra = argc - optind;
    } else if (optind < argc) {
        return hs__usage_error(CMD, "unexpected argument '%s' (simulate options go after "
                               "'--')", argv[optind]);
    }
    if (!o->trace)
        return hs__usage_error(CMD, "give the trace: -i TRACE");
    if (!o->topo)
        return hs__usage_error(CMD, "give the machine: --topo SPEC");
    if (!o->out && !o->dry)
        return hs__usage_error(CMD, "give the sweep directory: -o DIR");
    if (o->out && strlen(o->out) > 3000)
        return hs__usage_error(CMD, "-o: directory name too long");
    for (size_t i = 0; i < o->bits.n; i++)
        if (parse_u(o->bits.v[i], 5, 13, &u))
            return hs__usage_error(CMD, "--bits %s: expected widths 5..13", o->bits.v[i]);
    for (int i = 0; i < o->nextra; i++) {
        static const char *own[] = { "-i", "--input", "--topo", "-o", "--output", "--map",
                                     "--background", "--bits", "--seed", "--ppn", "--quiet",
                                     "--congestion-impact", "--tsv" };
        for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
            if (strcmp(o->extra[i], own[k]) == 0 ||
                (strncmp(o->extra[i], own[k], strlen(own[k])) == 0 &&
                 o->extra[i][strlen(own[k])] == '=' && own[k][1] == '-'))
                return hs__usage_error(CMD, "'%s' after '--': the sweep sets it itself (use "
                                       "the sweep's own option)", o->extra[i]);
    }
    return 0;
}

/* Blocked mapping file: rank r on node (r / B) mod M of the linear nodes
 * 0..M-1.  Written atomically (identical content every time). */
static int write_blocked(const opts *o, uint32_t B, const char *path)
{
    uint32_t P = o->ppn_used, R = o->ranks, M = (R + P - 1) / P;
    uint32_t *cnt = calloc(M, sizeof *cnt);
    if (!cnt)
        return hs__usage_error(CMD, "out of memory");
    for (uint32_t r = 0; r < R; r++)
        cnt[(r / B) % M]++;
    for (uint32_t n = 0; n < M; n++)
        if (cnt[n] > P) {
            uint32_t got = cnt[n];
            free(cnt);
            return hs__usage_error(CMD, "blocked:%u: node %u would get %u ranks, more than "
                                   "the %u per node (B must divide the ranks per node, "
                                   "and ranks / B be a multiple of the nodes in use)",
                                   B, n, got, P);
        }
    free(cnt);
    char tmp[4500];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, tmp, strerror(errno));
        return HS_EXIT_FAIL;
    }
    fprintf(f, "# hopscope sweep: blocked:%u, %u ranks, %u per node\n", B, R, P);
    for (uint32_t r = 0; r < R; r++)
        fprintf(f, "%u %u\n", r, (r / B) % M);
    if (fclose(f) || rename(tmp, path)) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, path, strerror(errno));
        return HS_EXIT_FAIL;
    }
    return 0;
}

static int add_mapping(opts *o, const char *spec, const char *desc, int suggested)
{
    mapping *p = realloc(o->m, (o->nm + 1) * sizeof *p);
    if (!p)
        return hs__usage_error(CMD, "out of memory");
    o->m = p;
    mapping *m = &p[o->nm++];
    memset(m, 0, sizeof *m);
    snprintf(m->spec, sizeof m->spec, "%s", spec);
    snprintf(m->desc, sizeof m->desc, "%s", desc);
    desc_clean(m->desc);
    m->suggested = suggested;
    return 0;
}

/* Builds the plan from the options: mappings (checked, generated files
 * written when write_files), routings (each topology built once), the run
 * count.  0 or an exit code. */
static int build_plan(opts *o, int write_files)
{
    hs_error e;
    hs_error_clear(&e);
    /* the trace: ranks and default ranks per node */
    hs_trace_manifest tm;
    memset(&tm, 0, sizeof tm);
    int rc = hs_trace_manifest_read(o->trace, &tm, &e);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, rc));
        return HS_EXIT_FAIL;
    }
    o->ranks = tm.nranks;
    uint64_t u;
    if (o->ppn) {
        if (parse_u(o->ppn, 1, 1u << 20, &u)) {
            hs_trace_manifest_free(&tm);
            return hs__usage_error(CMD, "--ppn %s: expected a positive integer", o->ppn);
        }
        o->ppn_used = (uint32_t)u;
    } else {
        o->ppn_used = hs_replay_default_ppn(&tm);
    }
    hs_trace_manifest_free(&tm);
    /* routings */
    size_t nr = o->routings.n ? o->routings.n : 1;
    o->topos = calloc(nr, sizeof *o->topos);
    o->rnames = calloc(nr, sizeof *o->rnames);
    if (!o->topos || !o->rnames)
        return hs__usage_error(CMD, "out of memory");
    o->nr = nr;
    for (size_t i = 0; i < nr; i++) {
        char spec[1024];
        if (o->routings.n) {
            if (with_routing(o->topo, o->routings.v[i], spec, sizeof spec))
                return hs__usage_error(CMD, "--routing: %s", strncmp(o->topo, "file:", 5) == 0
                                       ? "a topology file fixes its routing" : "spec too long");
        } else {
            snprintf(spec, sizeof spec, "%s", o->topo);
        }
        hs_topo *t;
        rc = hs_topo_create(spec, &t, &e);
        if (rc)
            return hs__usage_error(CMD, "--topo %s: %s", spec, hs_error_str(&e, rc));
        snprintf(o->topos[i], sizeof o->topos[i], "%s", hs_topo_spec(t));
        snprintf(o->rnames[i], sizeof o->rnames[i], "%s", hs_routing_name(hs_topo_routing(t)));
        o->nodes = hs_topo_nodes(t);
        hs_topo_free(t);
        for (size_t k = 0; k < i; k++)
            if (strcmp(o->topos[k], o->topos[i]) == 0)
                return hs__usage_error(CMD, "--routing: '%s' twice", o->rnames[i]);
    }
    if ((uint64_t)(o->ranks + o->ppn_used - 1) / o->ppn_used > o->nodes)
        return hs__usage_error(CMD, "%u ranks at %u per node need %u nodes; the machine has %u",
                               o->ranks, o->ppn_used, (o->ranks + o->ppn_used - 1) / o->ppn_used,
                               o->nodes);
    /* mappings */
    char mapdir[4200];
    snprintf(mapdir, sizeof mapdir, "%s/maps", o->out ? o->out : ".");
    for (size_t i = 0; i < o->maps.n; i++) {
        const char *s = o->maps.v[i];
        char spec[4400];
        if (strcmp(s, "suggested") == 0) {
            snprintf(spec, sizeof spec, "file:%s/suggested.map", mapdir);
            if ((rc = add_mapping(o, spec, "suggested", 1)))
                return rc;
            continue;
        }
        if (strncmp(s, "blocked:", 8) == 0) {
            if (parse_u(s + 8, 1, 1u << 30, &u))
                return hs__usage_error(CMD, "--map %s: expected blocked:B with B >= 1", s);
            snprintf(spec, sizeof spec, "file:%s/blocked-%llu.map", mapdir,
                     (unsigned long long)u);
            if (write_files) {
                if (hs_mkdir_p(mapdir, &e))
                    return hs__usage_error(CMD, "%s", hs_error_str(&e, HS_EIO));
                if ((rc = write_blocked(o, (uint32_t)u, spec + 5)))
                    return rc;
            }
            if ((rc = add_mapping(o, spec, s, 0)))
                return rc;
            continue;
        }
        hs_mapping_cfg mc;
        if (hs_mapping_parse(s, &mc, &e))
            return hs__usage_error(CMD, "--map %s: %s", s, hs_error_str(&e, HS_EINVAL));
        if (mc.policy == HS_MAP_RANDOM && !mc.seed_given)
            return hs__usage_error(CMD, "--map %s: give the seed (random:SEED), or use "
                                   "--random N", s);
        if ((rc = add_mapping(o, s, s, 0)))
            return rc;
    }
    for (unsigned i = 0; i < o->nrandom; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "random:%llu", (unsigned long long)(o->seed + i));
        if ((rc = add_mapping(o, spec, spec, 0)))
            return rc;
    }
    for (size_t i = 0; i < o->map_lists.n; i++) {
        FILE *f = fopen(o->map_lists.v[i], "r");
        if (!f)
            return hs__usage_error(CMD, "--map-list %s: %s", o->map_lists.v[i], strerror(errno));
        char line[4096];
        unsigned ln = 0;
        while (fgets(line, sizeof line, f)) {
            ln++;
            size_t n = strlen(line);
            if (n == sizeof line - 1 && line[n - 1] != '\n') {
                fclose(f);
                return hs__usage_error(CMD, "%s:%u: line too long", o->map_lists.v[i], ln);
            }
            while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
                line[--n] = 0;
            char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!*p || *p == '#')
                continue;
            if (access(p, R_OK) != 0) {
                fclose(f);
                return hs__usage_error(CMD, "%s:%u: mapping file '%s': %s", o->map_lists.v[i],
                                       ln, p, strerror(errno));
            }
            char spec[4400], desc[4400];
            snprintf(spec, sizeof spec, "file:%s", p);
            snprintf(desc, sizeof desc, "file:%s", p);
            if ((rc = add_mapping(o, spec, desc, 0))) {
                fclose(f);
                return rc;
            }
        }
        fclose(f);
    }
    if (o->nm == 0 && (rc = add_mapping(o, "linear", "linear", 0)))
        return rc;
    for (size_t i = 0; i < o->nm; i++)
        for (size_t k = 0; k < i; k++)
            if (strcmp(o->m[i].desc, o->m[k].desc) == 0)
                return hs__usage_error(CMD, "mapping '%s' twice", o->m[i].desc);
    o->nruns = (uint64_t)o->nm * nbg(o) * o->nr * nbits(o);
    if (o->nruns > MAX_RUNS)
        return hs__usage_error(CMD, "%llu runs: at most %u", (unsigned long long)o->nruns,
                               MAX_RUNS);
    return 0;
}

static int in_part(const opts *o, uint64_t k)
{
    return k % o->part_n == o->part_i - 1;
}

/* ---- files ---------------------------------------------------------------------- */

/* Writes text to path through a temporary file and rename: the file exists
 * whole or not at all.  0 or -1 (errno). */
static int write_atomic(const char *path, const char *text)
{
    char tmp[4500];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen(text), off = 0;
    while (off < n) {
        ssize_t w = write(fd, text + off, n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            return -1;
        }
        off += (size_t)w;
    }
    if (fsync(fd) || close(fd) || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static char *read_all(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    while (b) {
        if (n + 1 >= cap) {
            if (cap >= max) {
                free(b);
                b = NULL;
                break;
            }
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - 1 - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    if (b)
        b[n] = 0;
    return b;
}

static void path_of(char *buf, size_t n, const char *dir, const char *sub, uint64_t k,
                    const char *ext)
{
    snprintf(buf, n, "%s/%s/%06llu%s", dir, sub, (unsigned long long)k, ext);
}

/* ---- numbers --------------------------------------------------------------------- */

/* Plain decimal, no exponent: integers exactly, others with 9 significant
 * digits and no trailing zeros.  The same double gives the same text. */
static void fmt_num(char *b, size_t n, double x)
{
    if (!isfinite(x))
        x = 0;
    if (x == 0) {
        snprintf(b, n, "0");
        return;
    }
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(b, n, "%.0f", x);
        return;
    }
    int e = (int)floor(log10(fabs(x)));
    int dec = 8 - e;
    if (dec < 0)
        dec = 0;
    if (dec > 20)
        dec = 20;
    snprintf(b, n, "%.*f", dec, x);
    if (strchr(b, '.')) {
        size_t l = strlen(b);
        while (l && b[l - 1] == '0')
            b[--l] = 0;
        if (l && b[l - 1] == '.')
            b[--l] = 0;
    }
    if (strcmp(b, "-0") == 0)
        snprintf(b, n, "0");
}

/* ---- one run (the child) -------------------------------------------------------- */

/* The simulate command line of run k into argv (strings owned by o or bufs). */
static int sim_argv(const opts *o, size_t m, size_t b, size_t r, size_t f, const char *rundir,
                    const char **av, char *seedbuf, size_t nseed)
{
    int n = 0;
    av[n++] = "simulate";
    av[n++] = "--topo";
    av[n++] = o->topos[r];
    av[n++] = "-i";
    av[n++] = o->trace;
    av[n++] = "--map";
    av[n++] = m == (size_t)-1 ? "linear" : o->m[m].spec;
    if (o->bgs.n && strcmp(o->bgs.v[b], "none") != 0) {
        av[n++] = "--background";
        av[n++] = o->bgs.v[b];
    }
    if (o->bits.n) {
        av[n++] = "--bits";
        av[n++] = o->bits.v[f];
    }
    snprintf(seedbuf, nseed, "%llu", (unsigned long long)o->seed);
    av[n++] = "--seed";
    av[n++] = seedbuf;
    if (o->ppn) {
        av[n++] = "--ppn";
        av[n++] = o->ppn;
    }
    av[n++] = "--quiet";
    av[n++] = "-o";
    av[n++] = rundir;
    for (int i = 0; i < o->nextra; i++)
        av[n++] = o->extra[i];
    av[n] = NULL;
    return n;
}

static int field_bits_of(const char *rundir, uint64_t *bits)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/manifest.json", rundir);
    hs_jdoc *d;
    hs_error e;
    if (hs_jdoc_load(p, JSON_MAX, &d, &e))
        return -1;
    const hs_jv *sc = hs_jv_get(d, hs_jdoc_root(d), "scheme");
    int rc = hs_jv_u64(hs_jv_get(d, sc, "field_bits"), bits);
    hs_jdoc_free(d);
    return rc;
}

static int child_fail(const char *dir, uint64_t k, const char *why)
{
    char p[4300], text[1200];
    path_of(p, sizeof p, dir, "rows", k, ".fail");
    snprintf(text, sizeof text, "%s\n", why);
    for (char *s = text; *s && s[1]; s++)
        if (*s == '\n' || *s == ',')
            *s = ';';
    if (write_atomic(p, text)) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, p, strerror(errno));
        return HS_EXIT_FAIL;
    }
    fprintf(stderr, "hopscope %s: run %llu failed: %s", CMD, (unsigned long long)k, text);
    return 0;
}

/* Replays run k (or, for k = -2, the linear run the suggested mapping
 * comes from), analyses it, writes its row.  Exit code. */
static int child_run(opts *o, long k)
{
    size_t m = (size_t)-1, b = 0, r = 0, f = 0;
    char rundir[4300];
    if (k >= 0) {
        run_parts(o, (uint64_t)k, &m, &b, &r, &f);
        path_of(rundir, sizeof rundir, o->out, "runs", (uint64_t)k, "");
    } else {
        /* parts sharing DIR may prepare it at once: names of their own */
        snprintf(rundir, sizeof rundir, "%s/maps/suggest-run.%ld", o->out, (long)getpid());
    }
    hs__rm_rf(rundir);
    const char *av[64 + 2 * 1024];
    char seedbuf[32];
    if (o->nextra > 2048)
        return hs__usage_error(CMD, "too many simulate options");
    int ac = sim_argv(o, m, k >= 0 ? b : (size_t)0, r, f, rundir, av, seedbuf, sizeof seedbuf);
    if (k == -2 && o->bgs.n && strcmp(o->bgs.v[0], "none") != 0) {
        /* the suggestion is for the job alone: drop --background */
        for (int i = 0; i < ac; i++)
            if (strcmp(av[i], "--background") == 0) {
                memmove(&av[i], &av[i + 2], (size_t)(ac - i - 1) * sizeof av[0]);
                ac -= 2;
                break;
            }
    }
    int rc = hs__cmd_simulate(ac, (char **)av);
    char why[1024];
    if (rc) {
        /* the first thing simulate said about it, from the log (our stderr) */
        char said[600] = "";
        char lp[4300];
        fflush(stderr);
        path_of(lp, sizeof lp, o->out, "logs", (uint64_t)(k < 0 ? 0 : k), ".log");
        FILE *lf = k >= 0 ? fopen(lp, "r") : NULL;
        char line[600];
        while (lf && fgets(line, sizeof line, lf))
            if (strncmp(line, "hopscope simulate: ", 19) == 0) {
                line[strcspn(line, "\n")] = 0;
                snprintf(said, sizeof said, ": %s", line + 19);
                break;
            }
        if (lf)
            fclose(lf);
        snprintf(why, sizeof why, "hopscope simulate exited %d (%s%s; logs/%06ld.log)", rc,
                 rc == HS_EXIT_USAGE ? "it refused the run" : "the replay did not complete",
                 said, k);
        if (k < 0) {
            fprintf(stderr, "hopscope %s: the linear run for the suggested mapping failed\n", CMD);
            return HS_EXIT_FAIL;
        }
        rc = child_fail(o->out, (uint64_t)k, why);
        if (!o->keep)
            hs__rm_rf(rundir);
        return rc;
    }
    hs_analyze_params ap;
    hs_analyze_params_default(&ap);
    ap.windows = 0;
    ap.command = "hopscope sweep";
    hs_analysis *a;
    hs_error e;
    hs_error_clear(&e);
    rc = hs_analyze_run(rundir, &ap, &a, &e);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, rc));
        return HS_EXIT_FAIL;
    }
    if (k < 0) {
        uint32_t *map, n;
        char p[4300];
        snprintf(p, sizeof p, "%s/maps/suggested.map", o->out);
        char tmp[4400];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p, (long)getpid());
        rc = hs_an_suggest_mapping(a, &map, &n, &e);
        if (!rc) {
            rc = hs_an_mapping_write(tmp, map, n, &e);
            free(map);
        }
        hs_an_free(a);
        if (!rc && rename(tmp, p))
            rc = hs_error_set(&e, HS_EIO, "%s: %s", p, strerror(errno));
        if (rc) {
            fprintf(stderr, "hopscope %s: suggested mapping: %s\n", CMD, hs_error_str(&e, rc));
            return HS_EXIT_FAIL;
        }
        hs__rm_rf(rundir);
        return 0;
    }
    hs_an_summary s;
    hs_an_get_summary(a, &s);
    hs_an_feature *fe = NULL;
    size_t nf = 0;
    uint64_t fb = 0;
    if (!s.have_time) {
        hs_an_free(a);
        return child_fail(o->out, (uint64_t)k, "app.json has no predicted time");
    }
    if (field_bits_of(rundir, &fb)) {
        hs_an_free(a);
        fprintf(stderr, "hopscope %s: %s/manifest.json: no scheme.field_bits\n", CMD, rundir);
        return HS_EXIT_FAIL;
    }
    rc = hs_an_features(a, &fe, &nf, &e);
    if (!rc && o->keep) {
        char p[4400];
        snprintf(p, sizeof p, "%s/analysis.json", rundir);
        rc = hs_an_write_json(a, p, &e);
    }
    hs_an_free(a);
    if (rc) {
        free(fe);
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, rc));
        return HS_EXIT_FAIL;
    }
    /* the row: header and values */
    size_t cap = 4096 + nf * 96 + strlen(o->m[m].desc) * 2 + strlen(bg_desc(o, b)) * 2 +
                 2 * sizeof o->topos[r];
    char *text = malloc(cap);
    if (!text) {
        free(fe);
        return hs__usage_error(CMD, "out of memory");
    }
    size_t t = 0;
    t += (size_t)snprintf(text + t, cap - t,
                          "run,mapping,background,routing,field_bits,seed,ranks,topo,time_s");
    for (size_t i = 0; i < nf; i++)
        t += (size_t)snprintf(text + t, cap - t, ",%s", fe[i].name);
    char bg[4400], topo[1024], num[64];
    snprintf(bg, sizeof bg, "%s", bg_desc(o, b));
    desc_clean(bg);
    snprintf(topo, sizeof topo, "%s", o->topos[r]);
    desc_clean(topo);
    fmt_num(num, sizeof num, (double)s.time_ps / 1e12);
    t += (size_t)snprintf(text + t, cap - t, "\n%ld,%s,%s,%s,%llu,%llu,%u,%s,%s", k,
                          o->m[m].desc, bg, o->rnames[r], (unsigned long long)fb,
                          (unsigned long long)o->seed, o->ranks, topo, num);
    for (size_t i = 0; i < nf; i++) {
        fmt_num(num, sizeof num, fe[i].value);
        t += (size_t)snprintf(text + t, cap - t, ",%s", num);
    }
    if (t < cap)
        t += (size_t)snprintf(text + t, cap - t, "\n");
    free(fe);
    char p[4300];
    path_of(p, sizeof p, o->out, "rows", (uint64_t)k, ".csv");
    rc = t < cap ? write_atomic(p, text) : -1;
    free(text);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, p, strerror(errno));
        return HS_EXIT_FAIL;
    }
    if (!o->keep)
        hs__rm_rf(rundir);
    return 0;
}

/* ---- the parent ----------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *dur(double s, char *b, size_t n)
{
    if (s < 0)
        s = 0;
    unsigned long x = (unsigned long)(s + 0.5);
    if (x >= 3600)
        snprintf(b, n, "%luh%02lum", x / 3600, x / 60 % 60);
    else if (x >= 60)
        snprintf(b, n, "%lum%02lus", x / 60, x % 60);
    else
        snprintf(b, n, "%lus", x);
    return b;
}

static int done_state(const char *dir, uint64_t k)
{
    char p[4300];
    path_of(p, sizeof p, dir, "rows", k, ".csv");
    if (access(p, F_OK) == 0)
        return 1;
    path_of(p, sizeof p, dir, "rows", k, ".fail");
    if (access(p, F_OK) == 0)
        return 2;
    return 0;
}

/* Forks and execs "hopscope sweep --child K ARGV..." with stdout and stderr
 * into the run's log.  The pid, or -1. */
static pid_t spawn(const opts *o, const char *exe, int argc, char **argv, long k)
{
    char log[4300], kbuf[32];
    if (k >= 0)
        path_of(log, sizeof log, o->out, "logs", (uint64_t)k, ".log");
    else
        snprintf(log, sizeof log, "%s/logs/suggest.log", o->out);
    snprintf(kbuf, sizeof kbuf, "%ld", k);
    char **av = calloc((size_t)argc + 5, sizeof *av);
    if (!av)
        return -1;
    int n = 0;
    av[n++] = (char *)"hopscope";
    av[n++] = (char *)"sweep";
    av[n++] = (char *)"--child";
    av[n++] = kbuf;
    for (int i = 1; i < argc; i++)
        av[n++] = argv[i];
    av[n] = NULL;
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        if (o->max_mem) {
            struct rlimit rl = { (rlim_t)o->max_mem, (rlim_t)o->max_mem };
            setrlimit(RLIMIT_AS, &rl);
        }
        execv(exe, av);
        fprintf(stderr, "hopscope sweep: cannot run %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    free(av);
    return pid;
}

static unsigned mem_jobs(uint64_t max_mem)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    if (!kb)
        return 0;
    uint64_t n = (uint64_t)kb * 1024 / max_mem;
    return n < 1 ? 1 : n > 4096 ? 4096 : (unsigned)n;
}

/* Joins rows: for each k of the plan (of the part, when part is given), the
 * row of the first directory that has it, streamed into out (sweep.csv,
 * through a temporary file and rename) and the failed runs into
 * failed_path.  All rows must have the same header.  0 or an exit code
 * (missing runs are named). */
static int assemble(char **dirs, int ndirs, uint64_t nruns, const opts *part, const char *out,
                    const char *failed_path, uint64_t *nrows, uint64_t *nfailed)
{
    char tmp[4400], ftmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    snprintf(ftmp, sizeof ftmp, "%s.tmp.%ld", failed_path, (long)getpid());
    FILE *fo = fopen(tmp, "w"), *ff = fopen(ftmp, "w");
    if (!fo || !ff) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, fo ? ftmp : tmp, strerror(errno));
        if (fo) {
            fclose(fo);
            unlink(tmp);
        }
        if (ff) {
            fclose(ff);
            unlink(ftmp);
        }
        return HS_EXIT_FAIL;
    }
    char *header = NULL;
    uint64_t missing = 0, first_missing = 0;
    int ret = 0;
    *nrows = *nfailed = 0;
    fprintf(ff, "run,reason\n");
    for (uint64_t k = 0; k < nruns && !ret; k++) {
        if (part && !in_part(part, k))
            continue;
        int found = 0;
        for (int d = 0; d < ndirs && !found; d++) {
            char p[4300];
            int st = done_state(dirs[d], k);
            if (st == 0)
                continue;
            found = 1;
            path_of(p, sizeof p, dirs[d], "rows", k, st == 1 ? ".csv" : ".fail");
            char *t = read_all(p, 1u << 26);
            if (!t) {
                fprintf(stderr, "hopscope %s: %s: cannot read\n", CMD, p);
                ret = HS_EXIT_FAIL;
                break;
            }
            if (st == 2) {
                size_t l = strlen(t);
                while (l && t[l - 1] == '\n')
                    t[--l] = 0;
                fprintf(ff, "%llu,%s\n", (unsigned long long)k, t);
                (*nfailed)++;
                free(t);
                continue;
            }
            char *nl = strchr(t, '\n');
            char *row = nl ? nl + 1 : NULL;
            char *end = row ? strchr(row, '\n') : NULL;
            char expect[32];
            snprintf(expect, sizeof expect, "%llu,", (unsigned long long)k);
            if (!nl || !end || end[1] || strncmp(row, expect, strlen(expect)) != 0) {
                fprintf(stderr, "hopscope %s: %s: not a row file of run %llu\n", CMD, p,
                        (unsigned long long)k);
                free(t);
                ret = HS_EXIT_FAIL;
                break;
            }
            *nl = 0;
            if (!header) {
                header = strdup(t);
                if (!header) {
                    free(t);
                    ret = HS_EXIT_FAIL;
                    break;
                }
                fprintf(fo, "%s\n", header);
            } else if (strcmp(header, t) != 0) {
                fprintf(stderr, "hopscope %s: %s: its columns differ from the other rows' (a "
                        "row of another sweep?)\n", CMD, p);
                free(t);
                ret = HS_EXIT_FAIL;
                break;
            }
            fwrite(row, 1, (size_t)(end - row) + 1, fo);
            (*nrows)++;
            free(t);
        }
        if (!found && !ret) {
            if (!missing)
                first_missing = k;
            missing++;
        }
    }
    if (!ret && missing) {
        fprintf(stderr, "hopscope %s: %llu run(s) not done in %s, the first run %llu%s\n", CMD,
                (unsigned long long)missing, ndirs > 1 ? "any of the directories" : dirs[0],
                (unsigned long long)first_missing,
                ndirs > 1 ? ": run their part (again) and merge" : "");
        ret = HS_EXIT_FAIL;
    }
    free(header);
    int werr = ferror(fo) || ferror(ff);
    if (fflush(fo) || fsync(fileno(fo)))
        werr = 1;
    if (fclose(fo))
        werr = 1;
    if (fclose(ff))
        werr = 1;
    if (!ret && (werr || rename(tmp, out) || rename(ftmp, failed_path))) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, out, strerror(errno));
        ret = HS_EXIT_FAIL;
    }
    if (ret) {
        unlink(tmp);
        unlink(ftmp);
    }
    return ret;
}

/* plan.csv: the runs and their descriptors as planned (field_bits as
 * requested, "default" when not). */
static char *plan_text(const opts *o)
{
    size_t cap = 256 + (size_t)o->nruns * 160, len = 0;
    for (size_t i = 0; i < o->nm; i++)
        cap += strlen(o->m[i].desc) * (size_t)(o->nruns / o->nm);
    char *t = malloc(cap);
    if (!t)
        return NULL;
    len += (size_t)snprintf(t, cap, "run,mapping,background,routing,field_bits,seed,ranks,topo\n");
    for (uint64_t k = 0; k < o->nruns; k++) {
        size_t m, b, r, f;
        run_parts(o, k, &m, &b, &r, &f);
        char bg[4400], topo[1024];
        snprintf(bg, sizeof bg, "%s", bg_desc(o, b));
        desc_clean(bg);
        snprintf(topo, sizeof topo, "%s", o->topos[r]);
        desc_clean(topo);
        size_t need = len + strlen(o->m[m].desc) + strlen(bg) + strlen(topo) + 128;
        if (need > cap) {
            cap = need * 2;
            char *nb = realloc(t, cap);
            if (!nb) {
                free(t);
                return NULL;
            }
            t = nb;
        }
        len += (size_t)snprintf(t + len, cap - len, "%llu,%s,%s,%s,%s,%llu,%u,%s\n",
                                (unsigned long long)k, o->m[m].desc, bg, o->rnames[r],
                                o->bits.n ? o->bits.v[f] : "default",
                                (unsigned long long)o->seed, o->ranks, topo);
    }
    return t;
}

/* options.txt: the options that decide the rows (not -j, --part, -o,
 * --keep-runs, -q, --max-mem, --dry-run), one per line, as given: a
 * resumed sweep or a part must have the same. */
static char *options_text(int argc, char **argv)
{
    static const char *novalue[] = { "--keep-runs", "-q", "--quiet", "--dry-run" };
    static const char *value[] = { "-j", "--jobs", "--part", "-o", "--output", "--max-mem" };
    size_t cap = 64;
    for (int i = 1; i < argc; i++)
        cap += strlen(argv[i]) + 1;
    char *t = malloc(cap), *p = t;
    if (!t)
        return NULL;
    int extra = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int skip = 0;
        if (!extra) {
            if (strcmp(a, "--") == 0)
                extra = 1;
            for (size_t k = 0; k < sizeof novalue / sizeof novalue[0]; k++)
                skip |= strcmp(a, novalue[k]) == 0;
            for (size_t k = 0; k < sizeof value / sizeof value[0]; k++) {
                size_t l = strlen(value[k]);
                if (strcmp(a, value[k]) == 0) {
                    skip = 1;
                    i++;          /* and its value */
                } else if (strncmp(a, value[k], l) == 0 &&
                           (a[l] == '=' || (value[k][1] != '-' && a[l]))) {
                    skip = 1;     /* --jobs=4, -j4, -oDIR */
                }
            }
        }
        if (!skip)
            p += sprintf(p, "%s\n", a);
    }
    *p = 0;
    return t;
}

static int mkdirs(const char *dir)
{
    static const char *sub[] = { "", "/rows", "/logs", "/runs", "/maps" };
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        char p[4300];
        hs_error e;
        snprintf(p, sizeof p, "%s%s", dir, sub[i]);
        if (hs_mkdir_p(p, &e)) {
            fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, HS_EIO));
            return HS_EXIT_FAIL;
        }
    }
    return 0;
}

/* Runs the children, at most jobs at once; progress on stderr.  Under
 * hopscope-par (F), the runs come from rank 0's queue instead of the scan
 * of the plan; rank 0 answers the other processes while its runs go, and
 * shows the progress of all.  The first thing that went wrong goes to why. */
static int schedule(opts *o, const hs__family *F, const char *exe, int argc, char **argv,
                    uint64_t todo_n, uint64_t before, uint64_t total, char *why, size_t nwhy)
{
    unsigned jobs = o->jobs;
    if (!jobs) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = F ? F->jobs : c > 0 ? (unsigned)c : 1;
    }
    int lead = !F || F->rank == 0;       /* shows the progress */
    int serve = F && F->rank == 0;       /* answers the others */
    int quiet = o->quiet || !lead;
    if (o->max_mem) {
        unsigned mj = mem_jobs(o->max_mem);
        if (mj && F && F->local_np > 1)   /* the node's memory, shared */
            mj = mj / F->local_np ? mj / F->local_np : 1;
        if (mj && mj < jobs) {
            if (!quiet)
                fprintf(stderr, "hopscope %s: -j %u: the available memory holds %u runs of "
                        "--max-mem\n", CMD, mj, mj);
            jobs = mj;
        }
    }
    pid_t *pid = calloc(jobs, sizeof *pid);
    long *run = calloc(jobs, sizeof *run);
    if (!pid || !run) {
        free(pid);
        free(run);
        snprintf(why, nwhy, "out of memory");
        return hs__usage_error(CMD, "out of memory");
    }
    double t0 = now_s(), last = t0;
    uint64_t next = 0, finished = 0, failed = 0, crashed = 0;
    uint64_t rrun = 0, rfin = 0, rfail = 0, rcrash = 0;   /* the other processes' */
    unsigned running = 0;
    int ret = 0, report = 0, exhausted = 0;
    while (!ret) {
        /* fill the slots */
        while (running < jobs && !exhausted) {
            uint64_t k;
            if (F) {
                int g = F->next(F->ctx, &k);
                if (g < 0) {
                    snprintf(why, nwhy, "lost contact with rank 0");
                    fprintf(stderr, "hopscope %s: %s\n", CMD, why);
                    ret = HS_EXIT_FAIL;
                    break;
                }
                if (g == 0) {
                    exhausted = 1;
                    break;
                }
            } else {
                while (next < o->nruns && (!in_part(o, next) || done_state(o->out, next)))
                    next++;
                if (next >= o->nruns) {
                    exhausted = 1;
                    break;
                }
                k = next++;
            }
            unsigned s = 0;
            while (pid[s])
                s++;
            pid[s] = spawn(o, exe, argc, argv, (long)k);
            if (pid[s] < 0) {
                pid[s] = 0;
                snprintf(why, nwhy, "fork: %s", strerror(errno));
                fprintf(stderr, "hopscope %s: %s\n", CMD, why);
                ret = HS_EXIT_FAIL;
                break;
            }
            run[s] = (long)k;
            running++;
        }
        if (serve)
            F->remote(F->ctx, &rrun, &rfin, &rfail, &rcrash);
        /* after refilling, so that "running" counts the new runs too */
        double t = now_s();
        uint64_t fin = finished + rfin, bad = failed + crashed + rfail + rcrash;
        if (report && !quiet &&
            (t - last >= PROGRESS_EVERY || fin == todo_n || fin <= 1 || isatty(2))) {
            char a[32], b[32];
            double eta = (t - t0) / (double)fin * (double)(todo_n - fin);
            if (isatty(2)) {
                /* a terminal: one bar, redrawn in place; a newline once done */
                char bar[BAR_WIDTH + 1];
                uint64_t k = total ? (before + fin) * BAR_WIDTH / total : BAR_WIDTH;
                memset(bar, '#', (size_t)k);
                memset(bar + k, '.', (size_t)(BAR_WIDTH - k));
                bar[BAR_WIDTH] = 0;
                fprintf(stderr, "\rhopscope %s: [%s] %llu/%llu runs, %llu running, %llu failed, "
                        "%s elapsed, ETA %s\033[K%s", CMD, bar,
                        (unsigned long long)(before + fin), (unsigned long long)total,
                        (unsigned long long)(running + rrun), (unsigned long long)bad,
                        dur(t - t0, a, sizeof a), dur(eta, b, sizeof b),
                        fin == todo_n ? "\n" : "");
            } else {
                fprintf(stderr, "hopscope %s: %llu/%llu runs done (%llu from before), %llu "
                        "running, %llu failed, %s elapsed, ETA %s\n", CMD,
                        (unsigned long long)(before + fin), (unsigned long long)total,
                        (unsigned long long)before, (unsigned long long)(running + rrun),
                        (unsigned long long)bad, dur(t - t0, a, sizeof a),
                        dur(eta, b, sizeof b));
            }
            fflush(stderr);
            last = t;
        }
        report = 0;
        if (ret)
            break;
        if (!running) {
            if (!serve || !rrun)
                break;
            /* rank 0, its own runs done: the others' last runs */
            F->serve(F->ctx, 100);
            uint64_t r2, f2, x2, c2;
            F->remote(F->ctx, &r2, &f2, &x2, &c2);
            report = f2 != rfin;
            continue;
        }
        int status;
        pid_t w;
        if (serve) {
            w = waitpid(-1, &status, WNOHANG);
            if (w == 0) {
                F->serve(F->ctx, 20);
                uint64_t r2, f2, x2, c2;
                F->remote(F->ctx, &r2, &f2, &x2, &c2);
                report = f2 != rfin;
                continue;
            }
        } else {
            w = waitpid(-1, &status, 0);
        }
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        unsigned s = 0;
        while (s < jobs && pid[s] != w)
            s++;
        if (s == jobs)
            continue;
        pid[s] = 0;
        running--;
        finished++;
        int st = done_state(o->out, (uint64_t)run[s]);
        if (st == 2)
            failed++;
        if (st == 0) {
            crashed++;
            char log[4300], msg[4400];
            path_of(log, sizeof log, o->out, "logs", (uint64_t)run[s], ".log");
            if (WIFSIGNALED(status))
                snprintf(msg, sizeof msg, "run %ld killed by signal %d (see %s)", run[s],
                         WTERMSIG(status), log);
            else
                snprintf(msg, sizeof msg, "run %ld stopped with status %d (see %s)", run[s],
                         WEXITSTATUS(status), log);
            fprintf(stderr, "hopscope %s: %s%s\n", CMD, msg, WIFSIGNALED(status) ?
                    "; it will run again when the sweep is resumed" : "");
            if (!why[0] && nwhy) {
                size_t l = strlen(msg) < nwhy ? strlen(msg) : nwhy - 1;
                memcpy(why, msg, l);
                why[l] = 0;
            }
        }
        if (F && !serve)
            F->report(F->ctx, finished, failed, crashed);
        report = 1;
    }
    free(pid);
    free(run);
    if (!ret && crashed) {
        if (!F)
            fprintf(stderr, "hopscope %s: %llu run(s) did not finish; run the same command "
                    "again to retry them\n", CMD, (unsigned long long)crashed);
        ret = HS_EXIT_FAIL;
    }
    return ret;
}

static int merge_main(int argc, char **argv)
{
    const char *out = NULL;
    int c;
    static const struct option lo[] = { { "output", required_argument, NULL, 'o' },
                                        { NULL, 0, NULL, 0 } };
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
        if (c != 'o')
            return hs__usage_error(CMD, "merge: unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        out = optarg;
    }
    if (!out)
        return hs__usage_error(CMD, "merge: give the output file: -o FILE");
    if (optind >= argc)
        return hs__usage_error(CMD, "merge: give the sweep directories of the parts");
    char **dirs = argv + optind;
    int nd = argc - optind;
    char *plan0 = NULL;
    uint64_t nruns = 0;
    for (int d = 0; d < nd; d++) {
        char p[4300];
        snprintf(p, sizeof p, "%s/plan.csv", dirs[d]);
        char *t = read_all(p, 1u << 30);
        if (!t) {
            free(plan0);
            fprintf(stderr, "hopscope %s: merge: %s: %s (not a sweep directory?)\n", CMD, p,
                    strerror(errno ? errno : EIO));
            return HS_EXIT_FAIL;
        }
        if (d > 0) {
            char a[4300], b[4300];
            snprintf(a, sizeof a, "%s/options.txt", dirs[0]);
            snprintf(b, sizeof b, "%s/options.txt", dirs[d]);
            char *x = read_all(a, 1u << 24), *y = read_all(b, 1u << 24);
            int same = x && y && strcmp(x, y) == 0;
            free(x);
            free(y);
            if (!same) {
                free(t);
                free(plan0);
                fprintf(stderr, "hopscope %s: merge: %s differs from %s (or is missing): the "
                        "directories are parts of different sweeps\n", CMD, b, a);
                return HS_EXIT_FAIL;
            }
        }
        if (!plan0) {
            plan0 = t;
            for (const char *s = t; *s; s++)
                nruns += *s == '\n';
            nruns = nruns ? nruns - 1 : 0;
        } else {
            int same = strcmp(plan0, t) == 0;
            free(t);
            if (!same) {
                free(plan0);
                fprintf(stderr, "hopscope %s: merge: %s differs from %s/plan.csv: the "
                        "directories are parts of different sweeps\n", CMD, p, dirs[0]);
                return HS_EXIT_FAIL;
            }
        }
    }
    free(plan0);
    uint64_t nrows, nfailed;
    char fp[4300];
    snprintf(fp, sizeof fp, "%s.failed.csv", out);
    int rc = assemble(dirs, nd, nruns, NULL, out, fp, &nrows, &nfailed);
    if (rc)
        return rc;
    if (!nfailed)
        unlink(fp);
    printf("%s: %llu rows of %llu runs", out, (unsigned long long)nrows,
           (unsigned long long)nruns);
    if (nfailed)
        printf(", %llu failed (listed in %s)", (unsigned long long)nfailed, fp);
    printf("\n");
    return 0;
}

#define SETUP_DONE (-1)   /* setup did everything (--dry-run): exit 0 */

/* The sweep before its runs (by rank 0 under hopscope-par): checks, the
 * directory, plan.csv and options.txt, generated mappings, the suggested
 * mapping; the runs of the part and those done before; the executable the
 * runs re-execute into exe.  0, SETUP_DONE or an exit code. */
static int setup(opts *o, const hs__family *F, int argc, char **orig, char *exe, size_t nexe,
                 uint64_t *mine_out, uint64_t *before_out)
{
    /* check what every run will be given before running any */
    {
        const char *av[64 + 2 * 1024];
        if (o->nextra > 2048) {
            return hs__usage_error(CMD, "too many simulate options");
        }
        int n = 0;
        av[n++] = "simulate";
        for (int i = 0; i < o->nextra; i++)
            av[n++] = o->extra[i];
        av[n] = NULL;
        int rc = hs__cmd_simulate_check(n, (char **)av);
        if (rc)
            return rc;
    }
    if (o->out && !o->dry && mkdirs(o->out))
        return HS_EXIT_FAIL;
    int rc = build_plan(o, !o->dry);
    /* every background spec once, before any run */
    for (size_t i = 0; !rc && i < o->bgs.n; i++) {
        if (strcmp(o->bgs.v[i], "none") == 0)
            continue;
        uint32_t used = (o->ranks + o->ppn_used - 1) / o->ppn_used;
        if (used >= o->nodes) {
            rc = hs__usage_error(CMD, "--background %s: the job fills all %u nodes of the "
                                 "machine, none is left for other jobs", o->bgs.v[i], o->nodes);
            break;
        }
        hs_replay_params rp;
        hs_replay_params_default(&rp);
        rp.background = o->bgs.v[i];
        hs_error e;
        hs_error_clear(&e);
        if (hs_replay_check(&rp, &e))
            rc = hs__usage_error(CMD, "--background %s: %s", o->bgs.v[i],
                                 hs_error_str(&e, HS_EINVAL));
    }
    if (rc) {
        return rc;
    }
    uint64_t mine = 0, before = 0;
    int need_suggest = 0;
    for (uint64_t k = 0; k < o->nruns; k++) {
        if (!in_part(o, k))
            continue;
        mine++;
        size_t m, b, r, f;
        run_parts(o, k, &m, &b, &r, &f);
        if (done_state(o->out ? o->out : ".", k) && !o->dry)
            before++;
        else if (o->m[m].suggested)
            need_suggest = 1;
    }
    if (o->dry) {
        char *t = plan_text(o);
        if (t) {
            printf("%s", t);
            free(t);
        }
        printf("# %llu runs, %llu in part %u/%u\n", (unsigned long long)o->nruns,
               (unsigned long long)mine, o->part_i, o->part_n);
        return SETUP_DONE;
    }
    char p[4300];
    snprintf(p, sizeof p, "%s/plan.csv", o->out);
    char *plan = plan_text(o);
    char *old = read_all(p, 1u << 30);
    if (old && plan && strcmp(old, plan) != 0) {
        free(old);
        free(plan);
        fprintf(stderr, "hopscope %s: %s holds another sweep (its plan.csv differs): resume it "
                "with its own options, or choose another -o\n", CMD, o->out);
        return HS_EXIT_FAIL;
    }
    free(old);
    char op[4300];
    snprintf(op, sizeof op, "%s/options.txt", o->out);
    char *opt = options_text(argc, orig);
    old = read_all(op, 1u << 24);
    if (old && opt && strcmp(old, opt) != 0) {
        free(old);
        free(opt);
        free(plan);
        fprintf(stderr, "hopscope %s: %s holds a sweep with other options (%s differs): "
                "resume it with its own options, or choose another -o\n", CMD, o->out, op);
        return HS_EXIT_FAIL;
    }
    free(old);
    if (!opt || write_atomic(op, opt)) {
        free(opt);
        free(plan);
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, op, strerror(errno));
        return HS_EXIT_FAIL;
    }
    free(opt);
    if (!plan || write_atomic(p, plan)) {
        free(plan);
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, p, strerror(errno));
        return HS_EXIT_FAIL;
    }
    free(plan);
    ssize_t el = readlink("/proc/self/exe", exe, nexe - 1);
    if (el <= 0) {
        fprintf(stderr, "hopscope %s: cannot find the hopscope executable (/proc/self/exe)\n",
                CMD);
        return HS_EXIT_FAIL;
    }
    exe[el] = 0;
    char procs[96] = "";
    if (F)
        snprintf(procs, sizeof procs, ", over %u processes (-j %u on rank 0)", F->np,
                 o->jobs ? o->jobs : F->jobs);
    if (!o->quiet)
        fprintf(stderr, "hopscope %s: %llu runs (%zu mappings x %zu backgrounds x %zu routings "
                "x %zu widths)%s, %llu to do, into %s%s\n", CMD, (unsigned long long)o->nruns,
                o->nm, nbg(o), o->nr, nbits(o), o->part_n > 1 ? ", this part" : "",
                (unsigned long long)(mine - before), o->out, procs);
    snprintf(p, sizeof p, "%s/maps/suggested.map", o->out);
    if (need_suggest && access(p, F_OK) != 0) {
        if (!o->quiet)
            fprintf(stderr, "hopscope %s: the suggested mapping: replaying with the linear "
                    "mapping and analysing\n", CMD);
        pid_t pid = spawn(o, exe, argc, orig, -2);
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) ||
            access(p, F_OK) != 0) {
            fprintf(stderr, "hopscope %s: no suggested mapping (see %s/logs/suggest.log)\n", CMD,
                    o->out);
            return HS_EXIT_FAIL;
        }
    }
    *mine_out = mine;
    *before_out = before;
    return 0;
}

/* Under hopscope-par, a process other than rank 0: waits for rank 0's
 * setup, checks that it sees the same sweep directory, then runs what the
 * queue gives it; rank 0 joins the rows. */
static int sweep_worker(const hs__family *F, int argc, char **argv)
{
    int32_t go = 0;
    if (F->bcast(F->ctx, &go, sizeof go)) {
        fprintf(stderr, "hopscope %s: lost contact with rank 0\n", CMD);
        return HS_EXIT_FAIL;
    }
    if (go)      /* rank 0 said why */
        return go == SETUP_DONE ? 0 : go;
    char why[600] = "";
    char **orig = malloc(((size_t)argc + 1) * sizeof *orig);
    opts o;
    memset(&o, 0, sizeof o);
    int rc = orig ? 0 : HS_EXIT_FAIL;
    if (!rc) {
        memcpy(orig, argv, (size_t)argc * sizeof *orig);
        orig[argc] = NULL;
        rc = parse_opts(argc, argv, &o);
    }
    if (!rc)
        rc = build_plan(&o, 0);
    if (rc)
        snprintf(why, sizeof why, "could not read the sweep's options or inputs (see its "
                 "messages)");
    char exe[4096];
    if (!rc) {
        /* the processes share the sweep directory: what rank 0 wrote is here */
        char p[4300];
        snprintf(p, sizeof p, "%s/plan.csv", o.out);
        char *plan = plan_text(&o), *seen = read_all(p, 1u << 30);
        if (!plan || !seen || strcmp(plan, seen) != 0) {
            snprintf(why, sizeof why, "%s/plan.csv %s: the sweep directory must be one that "
                     "every process sees (a shared file system)", o.out,
                     seen ? "differs from this process's plan" : "is not there");
            fprintf(stderr, "hopscope %s: %s\n", CMD, why);
            rc = HS_EXIT_FAIL;
        }
        free(plan);
        free(seen);
    }
    ssize_t el = rc ? -1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!rc && el <= 0) {
        snprintf(why, sizeof why, "cannot find the hopscope executable (/proc/self/exe)");
        rc = HS_EXIT_FAIL;
    }
    if (!rc) {
        exe[el] = 0;
        rc = schedule(&o, F, exe, argc, orig, 0, 0, 0, why, sizeof why);
    }
    rc = F->end(F->ctx, rc, why[0] ? why : NULL, NULL, 0);
    free(orig);
    opts_free(&o);
    return rc;
}

int hs__cmd_sweep(int argc, char **argv)
{
    const hs__family *F = hs__par_family;
    if (argc >= 2 && strcmp(argv[1], "merge") == 0)
        return merge_main(argc - 1, argv + 1);
    if (F && F->rank != 0)
        return sweep_worker(F, argc, argv);
    /* the options as given, before getopt permutes them: the children get
     * the same */
    char **orig = malloc(((size_t)argc + 1) * sizeof *orig);
    if (!orig)
        return hs__usage_error(CMD, "out of memory");
    memcpy(orig, argv, (size_t)argc * sizeof *orig);
    orig[argc] = NULL;
    opts o;
    int rc = parse_opts(argc, argv, &o);
    if (!rc && o.child != -1) {
        rc = build_plan(&o, 0);
        if (!rc && o.child >= 0 && (uint64_t)o.child >= o.nruns)
            rc = hs__usage_error(CMD, "--child %ld: the sweep has %llu runs", o.child,
                                 (unsigned long long)o.nruns);
        if (!rc)
            rc = child_run(&o, o.child);
        free(orig);
        opts_free(&o);
        return rc;
    }
    char exe[4096];
    uint64_t mine = 0, before = 0;
    if (!rc)
        rc = setup(&o, F, argc, orig, exe, sizeof exe, &mine, &before);
    if (F) {
        /* the queue: the runs of the part not done before, in index order */
        uint64_t *todo = NULL;
        size_t nt = 0;
        if (!rc && !(todo = malloc((size_t)(mine - before + 1) * sizeof *todo)))
            rc = hs__usage_error(CMD, "out of memory");
        for (uint64_t k = 0; !rc && k < o.nruns; k++)
            if (in_part(&o, k) && !done_state(o.out, k))
                todo[nt++] = k;
        if (!rc && F->queue_set(F->ctx, todo, nt))
            rc = hs__usage_error(CMD, "out of memory");
        free(todo);
        int32_t go = rc;
        if (F->bcast(F->ctx, &go, sizeof go) && !rc)
            rc = HS_EXIT_FAIL;
    }
    if (rc) {
        free(orig);
        opts_free(&o);
        return rc == SETUP_DONE ? 0 : rc;
    }
    char why[600] = "";
    rc = schedule(&o, F, exe, argc, orig, mine - before, before, mine, why, sizeof why);
    if (F) {
        char all[800];
        rc = F->end(F->ctx, rc, why[0] ? why : NULL, all, sizeof all);
        if (!o.quiet) {
            fprintf(stderr, "hopscope %s: runs by process:", CMD);
            for (unsigned r = 0; r < F->np; r++)
                fprintf(stderr, " %u:%llu", r, (unsigned long long)F->runs_of(F->ctx, r));
            fprintf(stderr, "\n");
        }
        if (rc) {
            fprintf(stderr, "hopscope %s: failed on %s\n", CMD, all);
            fprintf(stderr, "hopscope %s: %s/sweep.csv not written; run the same command again "
                    "to retry the runs that did not finish\n", CMD, o.out);
        }
    }
    if (!rc) {
        char out[4300], fp[4300];
        uint64_t nrows, nfailed;
        snprintf(out, sizeof out, "%s/sweep.csv", o.out);
        snprintf(fp, sizeof fp, "%s/failed.csv", o.out);
        char *dirs[1] = { (char *)o.out };
        rc = assemble(dirs, 1, o.nruns, &o, out, fp, &nrows, &nfailed);
        if (!rc) {
            if (!o.keep)
                for (uint64_t k = 0; k < o.nruns; k++)
                    if (in_part(&o, k)) {
                        char rd[4300];
                        path_of(rd, sizeof rd, o.out, "runs", k, "");
                        hs__rm_rf(rd);
                    }
            if (!nfailed)
                unlink(fp);
            printf("%s: %llu rows", out, (unsigned long long)nrows);
            if (nfailed)
                printf(", %llu runs failed (listed in %s)", (unsigned long long)nfailed, fp);
            printf("\n");
            if (nrows == 0 && mine > 0)
                rc = HS_EXIT_FAIL;
        }
    }
    free(orig);
    opts_free(&o);
    return rc;
}
