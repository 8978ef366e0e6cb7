/* hopscope culprits SWEEP.csv: which feature explains the run time
 * (docs/culprits.md). */
#include "cli.h"
#include "hopscope/analyzer.h"
#include "hopscope/viz.h"

#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char hs__help_culprits[] =
    "usage: hopscope culprits SWEEP.csv [options]\n"
    "       hopscope culprits --train A.csv --test B.csv [options]\n"
    "\n"
    "Which hardware component explains the run time (Bhatele et al., \"Identifying\n"
    "the culprits behind network congestion\", IPDPS 2015; docs/culprits.md).\n"
    "Reads one row per run (the sweep.csv 'hopscope sweep' writes, or any CSV of\n"
    "that shape: a header line, then comma-separated plain numbers and words;\n"
    "docs/formats.md), fits gradient-boosted regression trees (XGBoost) that\n"
    "predict the run time from the features, and reports:\n"
    "  - RCC (the study's rank correlation: the share of pairs of runs the model\n"
    "    orders as measured) and R^2 on a held-out third of the runs, and the\n"
    "    mean and spread over a k-fold cross validation;\n"
    "  - feature importances: each feature's share of the trees' split gain, and\n"
    "    the held-out R^2 lost when its values are shuffled (permutation);\n"
    "  - a greedy forward feature-subset search, and the exhaustive one when the\n"
    "    features are few (spread over processes);\n"
    "  - quantile models (pinball loss) of the fast and of the slow runs, and the\n"
    "    features each depends on;\n"
    "  - with --test: a model trained on every run of A tested on the runs of B\n"
    "    (e.g. trained at 256 ranks, tested at 1024).\n"
    "The same input and --seed give byte-identical output.\n"
    "\n"
    "  --target COL        the response column (time_s)\n"
    "  --features F        a prefix (f_: every column whose name starts with it), or\n"
    "                      a comma-separated list of column names\n"
    "  -o, --output DIR    where culprits.json, culprits.svg and culprits.html go\n"
    "                      (default: the directory of the CSV)\n"
    "  --train A.csv       the runs to learn from (instead of the first argument)\n"
    "  --test B.csv        runs to test a model of every run of A on\n"
    "  --per COL           fit the response per unit of column COL (e.g. the time per\n"
    "                      byte on the busiest link: f_truth_net_bytes_max), so that\n"
    "                      runs of another scale fall in the range the trees saw;\n"
    "                      predictions and figures are in the response's units\n"
    "  --test-scaling S    train (default): B's features scaled by A's minimum and\n"
    "                      maximum; own: by B's own (the response always by A's)\n"
    "  --seed N            split, folds, permutations and XGBoost (1)\n"
    "  --rounds N          boosting rounds (200)     --depth N  tree depth (4)\n"
    "  --eta X             learning rate (0.1)\n"
    "  --test-fraction X   share of the runs held out (0.333)\n"
    "  --folds K           cross-validation folds (5)\n"
    "  --permutations N    shuffles per feature for permutation importance (5)\n"
    "  --search-folds K    folds of the training runs that score a feature subset (3)\n"
    "  --no-greedy         skip the greedy search (up to nf(nf+1)/2 x K fits)\n"
    "  --greedy-steps N    stop it once N features are chosen (10; the step k\n"
    "                      scores nf - k + 1 subsets)\n"
    "  --greedy-all        run it until every feature is in\n"
    "  --exhaustive-max N  exhaustive search when there are at most N features\n"
    "                      (10; 0: never; at most 20): 2^N - 1 subsets x K fits\n"
    "  --jobs N            processes of the exhaustive search (default: online CPUs)\n"
    "  --quantiles LIST    levels of the quantile models (0.1,0.9; 'none')\n"
    "  --quantile-rounds N  their boosting rounds (50)\n"
    "  --quantile-depth N  their tree depth (2)\n"
    "  --no-quantile-calibration  do not shift them by out-of-fold residuals\n"
    "  --quantile-min-leaf N  least training runs in a leaf of their trees\n"
    "                      (default ceil(2 / min(tau, 1 - tau)): 20 for 0.1 and 0.9)\n"
    "  --json              print culprits.json instead of the summary\n"
    "  -q, --quiet         print nothing but errors\n"
    "\n"
    "writes: DIR/culprits.json (docs/formats.md), DIR/culprits.svg (importances,\n"
    "predicted against measured), DIR/culprits.html (both, with the tables)\n"
    "\n"
    "examples:\n"
    "  hopscope culprits sweep/sweep.csv\n"
    "  hopscope culprits runs.csv --target seconds --features hops,bytes_max,stalls\n"
    "  hopscope culprits --train s256/sweep.csv --test s1024/sweep.csv -o gen\n";

static void progress_cb(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    hs__progress_cb(ctx, stage, done, total);
}

static int parse_quantiles(const char *s, hs_cul_params *p)
{
    p->nquantiles = 0;
    if (strcmp(s, "none") == 0)
        return 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double v;
        if (p->nquantiles >= 4 || hs_parse_double(t, &v) || !(v > 0 && v < 1))
            return -1;
        p->quantiles[p->nquantiles++] = v;
    }
    return p->nquantiles ? 0 : -1;
}

static int load(const char *path, hs_table **t)
{
    hs_error err;
    hs_error_clear(&err);
    int rc = hs_table_read(path, t, &err);
    if (rc)
        fprintf(stderr, "hopscope culprits: %s\n", hs_error_str(&err, rc));
    return rc;
}

int hs__cmd_culprits(int argc, char **argv)
{
    static const struct option opts[] = {
        { "target", required_argument, NULL, 'T' },
        { "features", required_argument, NULL, 'F' },
        { "per", required_argument, NULL, 'U' },
        { "output", required_argument, NULL, 'o' },
        { "train", required_argument, NULL, 'A' },
        { "test", required_argument, NULL, 'B' },
        { "test-scaling", required_argument, NULL, 'S' },
        { "seed", required_argument, NULL, 's' },
        { "rounds", required_argument, NULL, 'r' },
        { "depth", required_argument, NULL, 'd' },
        { "eta", required_argument, NULL, 'e' },
        { "test-fraction", required_argument, NULL, 'x' },
        { "folds", required_argument, NULL, 'k' },
        { "permutations", required_argument, NULL, 'p' },
        { "search-folds", required_argument, NULL, 'K' },
        { "no-greedy", no_argument, NULL, 'G' },
        { "greedy-steps", required_argument, NULL, 'g' },
        { "greedy-all", no_argument, NULL, 'W' },
        { "exhaustive-max", required_argument, NULL, 'X' },
        { "jobs", required_argument, NULL, 'j' },
        { "quantiles", required_argument, NULL, 'Q' },
        { "quantile-rounds", required_argument, NULL, 'R' },
        { "quantile-depth", required_argument, NULL, 'D' },
        { "quantile-min-leaf", required_argument, NULL, 'L' },
        { "no-quantile-calibration", no_argument, NULL, 'N' },
        { "json", no_argument, NULL, 'J' },
        { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 },
    };
    hs_cul_params p;
    hs_cul_params_default(&p);
    const char *per = NULL;
    const char *target = NULL, *features = NULL, *out = NULL, *train = NULL, *test = NULL;
    int quiet = 0, json = 0, c;
    uint64_t u;
    double v;
    char *cmd = hs__cmd_line(argc, argv);
    if (!cmd) {
        fprintf(stderr, "hopscope culprits: out of memory\n");
        return HS_EXIT_FAIL;
    }
    int ret = HS_EXIT_OK;
#define USAGE(...) do { ret = hs__usage_error("culprits", __VA_ARGS__); goto done; } while (0)
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'T': target = optarg; break;
        case 'F': features = optarg; break;
        case 'U': per = optarg; break;
        case 'o': out = optarg; break;
        case 'A': train = optarg; break;
        case 'B': test = optarg; break;
        case 'S':
            if (strcmp(optarg, "train") == 0)
                p.own_scaling = 0;
            else if (strcmp(optarg, "own") == 0)
                p.own_scaling = 1;
            else
                USAGE("--test-scaling %s: train or own", optarg);
            break;
        case 's':
            if (hs_parse_u64(optarg, &u))
                USAGE("--seed %s: expected a non-negative integer", optarg);
            p.seed = u;
            break;
        case 'r':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 100000)
                USAGE("--rounds %s: expected 1 to 100000", optarg);
            p.rounds = (unsigned)u;
            break;
        case 'd':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 20)
                USAGE("--depth %s: expected 1 to 20", optarg);
            p.depth = (unsigned)u;
            break;
        case 'e':
            if (hs_parse_double(optarg, &v) || !(v > 0 && v <= 1))
                USAGE("--eta %s: expected a number in (0, 1]", optarg);
            p.eta = v;
            break;
        case 'x':
            if (hs_parse_double(optarg, &v) || !(v >= 0.05 && v <= 0.9))
                USAGE("--test-fraction %s: expected 0.05 to 0.9", optarg);
            p.test_fraction = v;
            break;
        case 'k':
            if (hs_parse_u64(optarg, &u) || u < 2 || u > 1000)
                USAGE("--folds %s: expected 2 to 1000", optarg);
            p.folds = (unsigned)u;
            break;
        case 'p':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 1000)
                USAGE("--permutations %s: expected 1 to 1000", optarg);
            p.perm_repeats = (unsigned)u;
            break;
        case 'K':
            if (hs_parse_u64(optarg, &u) || u < 2 || u > 20)
                USAGE("--search-folds %s: expected 2 to 20", optarg);
            p.search_folds = (unsigned)u;
            break;
        case 'G': p.greedy = 0; break;
        case 'W': p.greedy_steps = 0; break;
        case 'g':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 65536)
                USAGE("--greedy-steps %s: expected 1 to 65536", optarg);
            p.greedy_steps = (unsigned)u;
            break;
        case 'X':
            if (hs_parse_u64(optarg, &u) || u > 20)
                USAGE("--exhaustive-max %s: expected 0 to 20", optarg);
            p.exhaustive_max = (unsigned)u;
            break;
        case 'j':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 256)
                USAGE("--jobs %s: expected 1 to 256", optarg);
            p.jobs = (unsigned)u;
            break;
        case 'Q':
            if (parse_quantiles(optarg, &p))
                USAGE("--quantiles %s: expected up to 4 levels in (0, 1), comma-separated, "
                      "or none", optarg);
            break;
        case 'R':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 100000)
                USAGE("--quantile-rounds %s: expected 1 to 100000", optarg);
            p.q_rounds = (unsigned)u;
            break;
        case 'D':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 20)
                USAGE("--quantile-depth %s: expected 1 to 20", optarg);
            p.q_depth = (unsigned)u;
            break;
        case 'N': p.q_calibrate = 0; break;
        case 'L':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 1000000)
                USAGE("--quantile-min-leaf %s: expected 1 to 1000000", optarg);
            p.q_min_leaf = (unsigned)u;
            break;
        case 'J': json = 1; break;
        case 'q': quiet = 1; break;
        default:
            USAGE("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        if (train || optind != argc - 1)
            USAGE("one table of runs (the first argument or --train)");
        train = argv[optind];
    }
    if (!train)
        USAGE("give the table of runs (e.g. sweep.csv)");

    hs_error err;
    hs_error_clear(&err);
    hs_table *ta = NULL, *tb = NULL;
    hs_cul_data da = { 0 }, db = { 0 };
    hs_cul_result res = { 0 };
    hs__progress pg;
    hs__progress_init(&pg, "hopscope culprits", quiet);
    int rc = load(train, &ta);
    if (!rc && test)
        rc = load(test, &tb);
    if (rc) {
        ret = HS_EXIT_FAIL;
        goto free;
    }
    rc = hs_cul_select(ta, target, features, &da, &err);
    if (!rc && tb)
        rc = hs_cul_select_like(tb, &da, &db, &err);
    if (!rc && per)
        rc = hs_cul_set_per(ta, per, &da, &err);
    if (!rc && per && tb)
        rc = hs_cul_set_per(tb, per, &db, &err);
    if (!rc)
        rc = hs_cul_fit(&da, &p, progress_cb, &pg, &res, &err);
    if (!rc && tb) {
        hs__progress_cb(&pg, "generalisation", 0, 0);
        rc = hs_cul_generalise(&da, &db, &p, &res, &err);
    }
    if (rc) {
        fprintf(stderr, "hopscope culprits: %s\n", hs_error_str(&err, rc));
        ret = HS_EXIT_FAIL;
        goto free;
    }
    char dir[4096];
    if (out) {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", train);
        snprintf(dir, sizeof dir, "%s", dirname(tmp));
    }
    if ((rc = hs_mkdir_p(dir, &err))) {
        fprintf(stderr, "hopscope culprits: %s\n", hs_error_str(&err, rc));
        ret = HS_EXIT_FAIL;
        goto free;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/culprits.json", dir);
    FILE *f = fopen(path, "w");
    rc = f ? hs_cul_write_json(f, &da, tb ? &db : NULL, &p, &res, train, test, cmd) : HS_EIO;
    if (f && fclose(f))
        rc = HS_EIO;
    if (rc) {
        fprintf(stderr, "hopscope culprits: %s: cannot write\n", path);
        ret = HS_EXIT_FAIL;
        goto free;
    }
    hs_viz_doc *docs = NULL;
    size_t nd = 0;
    rc = hs_viz_culprits_load(path, &docs, &nd, &err);
    if (!rc)
        rc = hs_viz_write(dir, docs, nd, &err);
    hs_viz_docs_free(docs, nd);
    if (rc) {
        fprintf(stderr, "hopscope culprits: %s\n", hs_error_str(&err, rc));
        ret = HS_EXIT_FAIL;
        goto free;
    }
    hs__progress_done(&pg);
    if (json) {
        rc = hs_cul_write_json(stdout, &da, tb ? &db : NULL, &p, &res, train, test, cmd);
        if (rc)
            ret = HS_EXIT_FAIL;
    } else if (!quiet) {
        hs_cul_print(stdout, &da, &p, &res);
        printf("\nwrote %s/culprits.json, culprits.svg, culprits.html\n", dir);
    }
free:
    hs_cul_result_free(&res);
    hs_cul_data_free(&da);
    hs_cul_data_free(&db);
    hs_table_free(ta);
    hs_table_free(tb);
done:
    free(cmd);
    return ret;
#undef USAGE
}
