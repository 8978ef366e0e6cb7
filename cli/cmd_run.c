/* hopscope run [options] -- LAUNCHER ...: record, simulate, analyze and
 * render in one go (cli/pipeline.c does the steps). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char hs__help_run[] =
    "usage: hopscope run [-o DIR] [--topo SPEC] [--map MAP] [--ppn P] [--nodes N]\n"
    "                    [--background SPEC [--congestion-impact]] [--bits B] [--seed N]\n"
    "                    [--compute-scale X] [--phases FILE] [--mpi NAME]\n"
    "                    -- LAUNCHER [ARGS...]\n"
    "\n"
    "Records the application run by LAUNCHER (mpirun, mpirun.mpich, mpiexec, srun,\n"
    "...) with libhopscope.so preloaded, replays its communication on the modelled\n"
    "machine, analyzes the in-band counters and renders the report: the four steps\n"
    "'hopscope record', 'simulate', 'analyze' and 'render' with the options below\n"
    "passed to them.  Prints each step, the top findings and the path of\n"
    "report.html.  The exit status is the first failing step's.  The options of\n"
    "every step are checked before the application runs: a bad one exits 2 and\n"
    "nothing is run or written.\n"
    "\n"
    "  -o, --output DIR   work directory (default hopscope-run-YYYYMMDD-HHMMSS):\n"
    "                     DIR/trace is the trace, DIR/run the run directory with\n"
    "                     analysis.json and report.html\n"
    "  --nodes N          record with the ranks placed on N virtual nodes\n"
    "                     (HOPSCOPE_NODES; default: their real hosts)\n"
    "  --mpi NAME         openmpi or mpich (record's --mpi)\n"
    "simulate ('hopscope help simulate'):\n"
    "  --topo SPEC        the machine (default: the smallest full fat-tree that\n"
    "                     holds the job: fattree:k=K,n=2 with K*K >= nodes)\n"
    "  --map MAP          ranks to nodes (default linear)\n"
    "  --ppn P            ranks per node (default: the virtual nodes, else 1)\n"
    "  --background SPEC  other jobs on the free nodes (e.g. mixed:frac=0.5)\n"
    "  --congestion-impact  with a background: replay with and without it\n"
    HS__HELP_BITS
    "  --seed N           seed (1)\n"
    "  --compute-scale X  factor on the recorded computation, or auto (the default,\n"
    "                     as in simulate: ranks recorded on a host with more ranks\n"
    "                     than cores get cores/ranks)\n"
    "analyze:\n"
    "  --phases FILE      phase names ('hopscope help analyze')\n"
    "\n"
    "example:\n"
    "  hopscope run --nodes 8 --topo fattree:k=8,n=2,taper=2 --map random \\\n"
    "      --background mixed:frac=0.5 -- mpirun -np 32 ./halo3d\n";

int hs__cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "topo", required_argument, NULL, 't' },
        { "map", required_argument, NULL, 'm' },
        { "ppn", required_argument, NULL, 'P' },
        { "nodes", required_argument, NULL, 'N' },
        { "background", required_argument, NULL, 'b' },
        { "congestion-impact", no_argument, NULL, 'C' },
        { "bits", required_argument, NULL, 'B' },
        { "seed", required_argument, NULL, 's' },
        { "compute-scale", required_argument, NULL, 'x' },
        { "phases", required_argument, NULL, 'p' },
        { "mpi", required_argument, NULL, 'M' },
        { NULL, 0, NULL, 0 },
    };
    hs__pipe p;
    memset(&p, 0, sizeof p);
    char defdir[64];
    int c;
    uint64_t v;
    opterr = 0;
    optind = 1;
    /* '+': stop at the first non-option, the launcher */
    while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': p.dir = optarg; break;
        case 't': p.topo = optarg; break;
        case 'm': p.map = optarg; break;
        case 'P': p.ppn = optarg; break;
        case 'N':
            if (hs_parse_u64(optarg, &v) || v == 0 || v > 1000000)
                return hs__usage_error("run", "--nodes %s: a number of nodes from 1", optarg);
            p.nodes = (unsigned)v;
            break;
        case 'b': p.background = optarg; break;
        case 'C': p.congestion_impact = 1; break;
        case 'B': p.bits = optarg; break;
        case 's': p.seed = optarg; break;
        case 'x': p.compute_scale = optarg; break;
        case 'p': p.phases = optarg; break;
        case 'M': p.mpi = optarg; break;
        default:
            return hs__usage_error("run", "unknown option or missing value '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return hs__usage_error("run", "give the launcher command after '--', e.g. "
                               "hopscope run -- mpirun -np 8 ./app");
    if (p.congestion_impact && !p.background)
        return hs__usage_error("run", "--congestion-impact needs --background");
    if (!p.dir) {
        time_t now = time(NULL);
        strftime(defdir, sizeof defdir, "hopscope-run-%Y%m%d-%H%M%S", localtime(&now));
        p.dir = defdir;
    }
    p.launcher = argv + optind;
    p.nlauncher = argc - optind;
    printf("hopscope run: work directory %s\n", p.dir);
    hs__pipe_out out;
    int rc = hs__pipe_run(&p, &out);
    if (rc == 0)
        printf("\nreport     %s\n", out.report);
    return rc;
}
