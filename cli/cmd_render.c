/* hopscope render RUN: SVG pictures and report.html from RUN/analysis.json. */
#include "cli.h"
#include "hopscope/viz.h"

#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char hs__help_render[] =
    "usage: hopscope render RUN [-o DIR] [--compare RUN2] [options]\n"
    "\n"
    "Draws the congestion that 'hopscope analyze RUN' found: SVG pictures of the\n"
    "network and report.html, which holds them all inline (open it in any\n"
    "browser; no server, no script).  RUN is a run directory or an analysis.json;\n"
    "only analysis.json is read.\n"
    "\n"
    "How to read the pictures (docs/viz.md): colour is the congested fraction\n"
    "(dark = congested, scale in the legend), width the application's own load\n"
    "on the link, grey dashed links have too few sampled packets, blue rings mark\n"
    "the roots of congestion trees; each cable is split in the middle, each half\n"
    "being the link leaving the device at its end.  Hover for a link's numbers.\n"
    "\n"
    "Layouts: fat-trees in levels (nodes at the bottom), dragonflies as groups on\n"
    "a ring (local links inside, global links across), tori as a grid per plane\n"
    "with projections for 3D, topology files in levels found from the graph.\n"
    "\n"
    "  -o, --output DIR    where to write (default: the directory of analysis.json)\n"
    "  --compare RUN2      a second run drawn beside the first on the same scale\n"
    "                      (e.g. another mapping of the same application)\n"
    "  --label TEXT        caption of RUN (default: its path)\n"
    "  --compare-label TEXT  caption of RUN2\n"
    "  --detail MODE       auto (default: aggregate large networks, with the most\n"
    "                      congested parts zoomed), full (every link), aggregate\n"
    "  --max-phases N      phases drawn as small multiples (12; the table lists all)\n"
    "  --zoom N            parts shown in detail beside an aggregate (3)\n"
    "  -q, --quiet         print nothing but errors (a run that takes more than\n"
    "                      2 s otherwise reports its stages on stderr)\n"
    "\n"
    "writes: report.html, network.svg, network-detail.svg (aggregated networks),\n"
    "phases.svg, phase-times.svg, windows.svg, latency.svg, compare.svg (each when\n"
    "there is something to draw)\n"
    "\n"
    "examples:\n"
    "  hopscope analyze RUN && hopscope render RUN && xdg-open RUN/report.html\n"
    "  hopscope render RUN_LINEAR --compare RUN_RANDOM --label linear \\\n"
    "                  --compare-label random -o cmp\n";

static int load(const char *path, hs_viz_model **m)
{
    hs_error err;
    hs_error_clear(&err);
    int rc = hs_viz_load(path, m, &err);
    if (rc) {
        fprintf(stderr, "hopscope render: %s\n", hs_error_str(&err, rc));
        return HS_EXIT_FAIL;
    }
    return 0;
}

int hs__cmd_render(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "compare", required_argument, NULL, 'c' },
        { "label", required_argument, NULL, 'l' },
        { "compare-label", required_argument, NULL, 'L' },
        { "detail", required_argument, NULL, 'd' },
        { "max-phases", required_argument, NULL, 'p' },
        { "zoom", required_argument, NULL, 'z' },
        { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 },
    };
    hs_viz_options o;
    hs_viz_options_default(&o);
    const char *out = NULL, *cmp_path = NULL;
    int quiet = 0, c;
    uint64_t u;
    char *cmd = hs__cmd_line(argc, argv); /* before getopt permutes argv */
    if (!cmd) {
        fprintf(stderr, "hopscope render: out of memory\n");
        return HS_EXIT_FAIL;
    }
    o.command = cmd;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'c': cmp_path = optarg; break;
        case 'l': o.label = optarg; break;
        case 'L': o.compare_label = optarg; break;
        case 'd':
            if (strcmp(optarg, "auto") == 0)
                o.detail = HS_VIZ_DETAIL_AUTO;
            else if (strcmp(optarg, "full") == 0)
                o.detail = HS_VIZ_DETAIL_FULL;
            else if (strcmp(optarg, "aggregate") == 0)
                o.detail = HS_VIZ_DETAIL_AGGREGATE;
            else
                {
                free(cmd);
                return hs__usage_error("render", "--detail %s: auto, full or aggregate", optarg);
            }
            break;
        case 'p':
            if (hs_parse_u64(optarg, &u) || u < 1 || u > 1000) {
                free(cmd);
                return hs__usage_error("render", "--max-phases %s: expected 1 to 1000", optarg);
            }
            o.max_phases = (unsigned)u;
            break;
        case 'z':
            if (hs_parse_u64(optarg, &u) || u > 64) {
                free(cmd);
                return hs__usage_error("render", "--zoom %s: expected 0 to 64", optarg);
            }
            o.zoom = (unsigned)u;
            break;
        case 'q': quiet = 1; break;
        default:
            free(cmd);
            return hs__usage_error("render", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) {
        free(cmd);
        return hs__usage_error("render", optind == argc ? "give a run directory or analysis.json"
                                                        : "one run at a time (a second one goes "
                                                          "with --compare)");
    }
    const char *run = argv[optind];
    hs_viz_model *m = NULL, *cm = NULL;
    hs__progress pg;
    hs__progress_init(&pg, "hopscope render", quiet);
    hs__progress_cb(&pg, "reading the analysis", 0, 0);
    int rc = load(run, &m);
    if (!rc && cmp_path) {
        hs__progress_cb(&pg, "reading the analysis to compare with", 0, 0);
        rc = load(cmp_path, &cm);
    }
    if (rc) {
        hs_viz_free(m);
        free(cmd);
        return rc;
    }
    char dir[4200];
    if (!out) {
        struct stat st;
        if (stat(run, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(dir, sizeof dir, "%s", run);
        else {
            char tmp[4200];
            snprintf(tmp, sizeof tmp, "%s", run);
            snprintf(dir, sizeof dir, "%s", dirname(tmp));
        }
        out = dir;
    }
    /* `hopscope latmodel report`'s file beside the analysis: a section */
    char lmr[4300];
    {
        struct stat st;
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s", run);
        snprintf(lmr, sizeof lmr, "%s/latmodel_report.json",
                 stat(run, &st) == 0 && S_ISDIR(st.st_mode) ? run : dirname(tmp));
        if (stat(lmr, &st) == 0)
            o.latmodel_report = lmr;
    }
    hs_error err;
    hs_error_clear(&err);
    hs_viz_doc *docs = NULL;
    size_t nd = 0;
    hs__progress_cb(&pg, "drawing", 0, 0);
    rc = hs_viz_render(m, cm, &o, &docs, &nd, &err);
    if (!rc) {
        hs__progress_cb(&pg, "writing the pictures and the report", 0, 0);
        rc = hs_viz_write(out, docs, nd, &err);
    }
    hs__progress_done(&pg);
    if (rc)
        fprintf(stderr, "hopscope render: %s\n", hs_error_str(&err, rc));
    else if (!quiet) {
        for (size_t i = 0; i < nd; i++)
            printf("written    %s/%s (%zu bytes)\n", out, docs[i].name, docs[i].len);
    }
    hs_viz_docs_free(docs, nd);
    free(cmd);
    hs_viz_free(m);
    hs_viz_free(cm);
    return rc ? HS_EXIT_FAIL : HS_EXIT_OK;
}
