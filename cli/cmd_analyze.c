/* hopscope analyze RUN: decodes a run directory, writes RUN/analysis.json
 * and prints the findings. */
#include "cli.h"
#include "hopscope/analyzer.h"
#include "hopscope/fabric.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_num(const char *opt, const char *v, double lo, double hi, double *out)
{
    double x;
    if (hs_parse_double(v, &x) || x < lo || x > hi)
        return hs__usage_error("analyze", "%s %s: expected a number in [%g, %g]", opt, v, lo, hi);
    *out = x;
    return 0;
}

/* Writes analysis.json to `out` and, when a finding is a mapping problem,
 * the analyzer's suggested mapping to map_out (default RUN/suggested.map),
 * in the replay's mapping-file format. */
int hs__analysis_save(const hs_analysis *a, const char *run, const char *out,
                      const char *map_out, hs_error *err)
{
    int rc = hs_an_write_json(a, out, err);
    for (size_t i = 0; !rc && i < hs_an_nfindings(a); i++) {
        if (hs_an_finding_kind(a, i) != HS_AN_MAPPING)
            continue;
        uint32_t *map = NULL, nr = 0;
        hs_error e2;
        if (hs_an_suggest_mapping(a, &map, &nr, &e2) == 0) {
            char mp[4200];
            snprintf(mp, sizeof mp, "%s/suggested.map", run);
            rc = hs_an_mapping_write(map_out ? map_out : mp, map, nr, err);
        }
        free(map);
        break;
    }
    return rc;
}

int hs__cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {
        { "phases", required_argument, NULL, 'p' },
        { "decoder", required_argument, NULL, 'd' },
        { "cf-threshold", required_argument, NULL, 'c' },
        { "z", required_argument, NULL, 'z' },
        { "max-cf-se", required_argument, NULL, 'e' },
        { "min-packets", required_argument, NULL, 'm' },
        { "max-traffic-cv", required_argument, NULL, 'v' },
        { "sig-share", required_argument, NULL, 's' },
        { "sig-packets", required_argument, NULL, 'k' },
        { "load-high", required_argument, NULL, 'H' },
        { "load-low", required_argument, NULL, 'L' },
        { "load-bin", required_argument, NULL, 'B' },
        { "no-windows", no_argument, NULL, 'W' },
        { "output", required_argument, NULL, 'o' },
        { "map-out", required_argument, NULL, 'M' },
        { "quiet", no_argument, NULL, 'q' },
        { "accuracy", no_argument, NULL, 'A' },
        { NULL, 0, NULL, 0 },
    };
    hs_analyze_params p;
    hs_analyze_params_default(&p);
    const char *out = NULL, *map_out = NULL;
    int quiet = 0, accuracy = 0, c, rc;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'p': p.phases_file = optarg; break;
        case 'd':
            if (strcmp(optarg, "auto") == 0)
                p.decoder = HS_AN_DECODER_AUTO;
            else if (strcmp(optarg, "blind") == 0)
                p.decoder = HS_AN_DECODER_BLIND;
            else if (strcmp(optarg, "route") == 0)
                p.decoder = HS_AN_DECODER_ROUTE;
            else
                return hs__usage_error("analyze", "--decoder %s: auto, blind or route", optarg);
            break;
        case 'c': if ((rc = parse_num("--cf-threshold", optarg, 0.001, 0.999, &p.cf_threshold))) return rc; break;
        case 'z': if ((rc = parse_num("--z", optarg, 0, 10, &p.z))) return rc; break;
        case 'e':
            if ((rc = parse_num("--max-cf-se", optarg, 0.001, 1, &p.max_cf_se)))
                return rc;
            fprintf(stderr, "hopscope analyze: --max-cf-se is obsolete and ignored: links are "
                            "judged by their standard error (docs/analysis.md)\n");
            break;
        case 'm': if ((rc = parse_num("--min-packets", optarg, 1, 1e12, &p.min_packets))) return rc; break;
        case 'v': if ((rc = parse_num("--max-traffic-cv", optarg, 0.001, 1, &p.max_traffic_cv))) return rc; break;
        case 's': if ((rc = parse_num("--sig-share", optarg, 0, 0.999, &p.sig_share))) return rc; break;
        case 'k': if ((rc = parse_num("--sig-packets", optarg, 0, 1e12, &p.sig_packets))) return rc; break;
        case 'H': if ((rc = parse_num("--load-high", optarg, 0, 10, &p.load_high))) return rc; break;
        case 'L': if ((rc = parse_num("--load-low", optarg, 0, 10, &p.load_low))) return rc; break;
        case 'W': p.windows = 0; break;
        case 'B':
            if (hs_parse_time(optarg, &p.load_bin_ps) || p.load_bin_ps < 1000 ||
                p.load_bin_ps > 1000000000000ull)
                return hs__usage_error("analyze", "--load-bin %s: a time from 1ns to 1s, e.g. "
                                       "10us", optarg);
            break;
        case 'o': out = optarg; break;
        case 'M': map_out = optarg; break;
        case 'q': quiet = 1; break;
        case 'A': accuracy = 1; break;
        default:
            return hs__usage_error("analyze", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return hs__usage_error("analyze", optind == argc ? "give a run directory"
                                                         : "one run directory at a time");
    if (p.load_low > p.load_high)
        return hs__usage_error("analyze", "--load-low %g is above --load-high %g", p.load_low,
                               p.load_high);
    const char *run = argv[optind];
    char *cmd = hs__cmd_line(argc, argv);
    p.command = cmd;
    hs__progress pg;
    hs__progress_init(&pg, "hopscope analyze", quiet);
    p.progress = hs__progress_cb;
    p.progress_ctx = &pg;
    hs_error err;
    hs_error_clear(&err);
    hs_analysis *a;
    rc = hs_analyze_run(run, &p, &a, &err);
    free(cmd);
    if (rc) {
        fprintf(stderr, "hopscope analyze: %s\n", hs_error_str(&err, rc));
        return rc == HS_EINVAL ? HS_EXIT_USAGE : HS_EXIT_FAIL;
    }
    char path[4200];
    if (!out) {
        snprintf(path, sizeof path, "%s/analysis.json", run);
        out = path;
    }
    hs__progress_cb(&pg, "writing analysis.json", 0, 0);
    rc = hs__analysis_save(a, run, out, map_out, &err);
    hs__progress_done(&pg);
    if (rc) {
        fprintf(stderr, "hopscope analyze: %s\n", hs_error_str(&err, rc));
        hs_an_free(a);
        return HS_EXIT_FAIL;
    }
    if (!quiet) {
        hs_an_print(a, stdout);
        printf("\nwritten    %s\n", out);
    }
    if (accuracy)
        hs_an_print_accuracy(a, stdout);
    hs_an_free(a);
    return HS_EXIT_OK;
}
