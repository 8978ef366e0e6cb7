/* The hopscope command: subcommand dispatch, help and version.  Subcommands
 * are independent files; this one only routes and prints usage. */
#include "cli.h"
#include "hopscope/common.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("hopscope %s\n", HS_VERSION);
    return HS_EXIT_OK;
}

static const hs__cmd commands[] = {
    { "demo", hs__cmd_demo,
      "see the whole idea work: record, simulate, analyze, render (no arguments)",
      "usage: hopscope demo [--dir DIR] [--mpi openmpi|mpich]\n"
      "       hopscope demo --codec [--seed N] [--packets N]\n"
      "\n"
      "Builds (or finds) the example application, a 3D halo exchange with one MPI\n"
      "tag per direction (examples/halo3d), runs it on 32 ranks with libhopscope.so\n"
      "preloaded (8 virtual nodes of 4 ranks), replays it on a 64-node fat-tree\n"
      "tapered 2:1 with the ranks scattered at random and GPCNeT-style congestors on\n"
      "80% of the other nodes, analyzes and renders it, prints the diagnosis, and\n"
      "compares a compact placement and an empty machine ('hopscope whatif').\n"
      "Everything goes to DIR (default ./hopscope-demo); open DIR/run/report.html.\n"
      "\n"
      "  --dir DIR     work directory (default hopscope-demo)\n"
      "  --mpi NAME    openmpi or mpich (default: Open MPI when installed)\n"
      "  --codec       instead, only the in-band codec on a built-in path set:\n"
      "                packets marked with the 6-bit field, decoded by the blind\n"
      "                and route-aware decoders, compared with the true counts\n"
      "  --seed N      (--codec) seed for the simulated packets (default 1)\n"
      "  --packets N   (--codec) monitored packets (default 200000)\n", NULL },
    { "run", hs__cmd_run,
      "record, simulate, analyze and render an MPI application in one go",
      hs__help_run, NULL },
    { "record", hs__cmd_record,
      "run an MPI launcher with libhopscope.so preloaded into every rank",
      hs__help_record, NULL },
    { "simulate", hs__cmd_simulate,
      "run the network model with synthetic traffic, or replay an MPI trace on it (-i)",
      "usage: hopscope simulate --topo SPEC [--traffic PATTERN] [--load L]\n"
      "                         [--packets N | --duration T] [options] [-o RUN]\n"
      "       hopscope simulate --topo SPEC -i TRACE [--map MAP] [--ppn P]\n"
      "                         [--background SPEC [--congestion-impact]] [--bits B]\n"
      "                         [--seed N] [replay options] [-o RUN]\n"
      "\n"
      "Simulates the network SPEC ('hopscope help topo') packet by packet: NICs,\n"
      "switches with finite input buffers per port and VC, credit flow control,\n"
      "virtual cut-through, round-robin crossbars, in-band marking.  With synthetic\n"
      "traffic it prints the offered and accepted load and latency percentiles;\n"
      "with -i it replays a recorded (or 'hopscope gen') MPI job on the machine and\n"
      "prints the predicted run time, time per phase and message latencies.  -o\n"
      "writes the run directory (counters, records, ground truth, and app.json for\n"
      "a replay; docs/formats.md).\n"
      "\n"
      "replay (docs/replay.md):\n"
      "  -i, --input TRACE  the trace directory to replay\n"
      "  --map MAP          ranks to nodes: linear (default), roundrobin,\n"
      "                     random[:SEED] (scattered over the machine; default seed\n"
      "                     --seed), shift:S (linear moved by S nodes), file:PATH\n"
      "                     (lines 'RANK NODE')\n"
      "  --ppn P            ranks per node (default: the trace's virtual nodes, or 1\n"
      "                     for a trace recorded on real hosts)\n"
      "  --background SPEC  other jobs on the nodes the application leaves free:\n"
      "                     alltoall, incast, rma_incast, rma_bcast (GPCNeT's\n"
      "                     congestors; join several with '+'), mixed (all four),\n"
      "                     with options ':frac=F' (share of the free nodes, 0.8),\n"
      "                     'size=BYTES' (4K), 'ppn=P' (1), 'nodes=N'; or\n"
      "                     trace:PATH[,ppn=P] (another trace, looped)\n"
      "  --congestion-impact  replay without and with the background; report\n"
      "                     GPCNeT's Congestion Impact (p99 latency ratio)\n"
      "  --compute-scale X  factor on the recorded computation (0: none), or auto\n"
      "                     (the default): ranks recorded on a host with more ranks\n"
      "                     than cores get cores/ranks, the others 1 (the trace\n"
      "                     records each host's cores; a note says what was done)\n"
      "  --max-compute T    refuse a trace that gives one thread more computation\n"
      "                     than T after scaling (3600s; 0: no limit): such gaps come\n"
      "                     from damaged times and would simulate hours of idle\n"
      "  --max-packets N    refuse a trace whose application sends more than N\n"
      "                     packets, every message counted in MTU-sized packets as\n"
      "                     if it crossed the network (268435456 = 2^28, about\n"
      "                     1.1 TB at the 4K MTU; 0: no limit); checked before the\n"
      "                     run, and while it runs (collectives, persistent sends)\n"
      "  --eager BYTES      messages up to this size go eager, larger ones by\n"
      "                     rendezvous (RTS, CTS, data) (16K)\n"
      "  --ctrl-bytes B     payload of protocol control messages (0: one 64-byte packet)\n"
      "  --mem-bw RATE      intra-node copies (10GB/s)   --shm-latency T (250ns)\n"
      "  --mpi-overhead T   CPU time of every MPI call (0)\n"
      "  --reduce-bw RATE   local reductions in collectives (5GB/s)\n"
      "  --coll C=ALG,...   collective algorithms, e.g. allreduce=ring,bcast=binomial\n"
      "                     (default: MPICH's choice by size; docs/replay.md)\n"
      "  --wire             replay the transfers recorded below MPI (record --wire)\n"
      "                     instead of modelling the MPI calls: the library's own\n"
      "                     algorithms and messages, in recorded order, each waiting\n"
      "                     for the completions it waited for; receives inside\n"
      "                     reduction collectives are reduced at --reduce-bw\n"
      "                     (docs/replay.md)\n"
      "  --tag-phases N     tags with a phase of their own (256); more share one\n"
      "  --latency-samples N  latencies kept exactly (16M); beyond, a sample\n"
      "  --watchdog T       with --background: stop (status 'stalled', exit 1) when\n"
      "                     the application has made no progress for T while\n"
      "                     computing nothing (default: 10 x the time to drain every\n"
      "                     buffer of the network through one NIC); a cycle of full\n"
      "                     buffers, looked for at every watchdog round, stops it\n"
      "                     ('network_deadlock').  Without a background a replay\n"
      "                     cannot stall: it ends or the network goes idle\n"
      "  --bg-eager-credits N  background senders: eager messages unmatched at one\n"
      "                     receiver (64); beyond, rendezvous (bounds their memory)\n"
      HS__HELP_BITS
      "\n"
      "synthetic traffic (every node posts messages at Poisson times, open loop):\n"
      "  --traffic P        uniform (default), shift[:S] (dst = src+S, default N/2),\n"
      "                     transpose, bitcomp, groupshift[:G] (dragonfly: node of\n"
      "                     group i to the same slot of group i+G, default 1),\n"
      "                     hotspot[:target=T,frac=F] (default 0, 0.1),\n"
      "                     incast[:target=T,senders=S|list=A+B+..,bg=L] (S senders\n"
      "                     spread over the machine, default all; bg: the other\n"
      "                     nodes send uniform traffic avoiding T at load L)\n"
      "  --load L           offered load per sender, fraction of injection bandwidth\n"
      "                     in wire bytes (default 0.5)\n"
      "  --size BYTES       message size (default: the MTU)\n"
      "  --periodic         fixed inter-arrival times instead of Poisson\n"
      "  --duration T       measurement window (default 20us), after --warmup T\n"
      "                     (default duration/4); then runs until the measured\n"
      "                     messages are delivered, at most --drain T (default\n"
      "                     10 x duration, at least 100us)\n"
      "  --packets N        instead: N messages in total, all measured, then drain\n"
      "  --monitor F        fraction of messages that carry the field (1)\n"
      "  --seed N           traffic, routing, mapping and background randomness (1)\n"
      "\n"
      "network (defaults resemble an HDR/NDR InfiniBand machine):\n"
      "  --mtu BYTES        payload per packet (4096)\n"
      "  --header BYTES     header bytes per packet (0); packets are >= 64 bytes\n"
      "  --buffer BYTES|inf input buffer per port per VC (32K); inf = unbounded\n"
      "  --nic-buffer BYTES NIC receive buffer (32K)\n"
      "  --route-delay T    switch routing/pipeline delay (100ns)\n"
      "  --rx-rate RATE     NIC receive processing rate (default: link rate)\n"
      "  --nic-queues N     injection queues per NIC, served round-robin (8)\n"
      "  --ugal-threshold B dragonfly UGAL bias towards minimal paths, bytes x hops\n"
      "                     (default 4 full packets; 0 = no bias)\n"
      "\n"
      "in-band scheme (docs/inband.md):\n"
      "  --hop-bits C       hop counter (default 4, or wider when the network's\n"
      "                     longest route needs it: never overflows)\n"
      "  --hash-bits B (1)  --exact  --salt N (0)\n"
      "  --link-bits K      link-ID width (default: smallest that fits)\n"
      "  --tau-factor X     congested() threshold: X times a full packet's\n"
      "                     serialisation on the link (2)\n"
      "  --tau T            or an absolute threshold for every link\n"
      "  --window T         counter and ground-truth window width (10us)\n"
      "  --max-windows N    at most N windows (256): longer runs double the width\n"
      "                     and merge windows, exactly (memory bound); 0: no limit\n"
      "  --no-records       do not log sampled records\n"
      "  --records-cap N    at most N records (4194304); the rest are counted\n"
      "  --route-tables     write the forwarding tables (routes.bin) of a fat-tree,\n"
      "                     dragonfly or torus too; by default the analyzer\n"
      "                     recomputes their routes from the topology spec\n"
      "\n"
      "output:\n"
      "  -o, --output RUN   write the run directory RUN\n"
      "  --tsv              one header line and one line of results (for sweeps)\n"
      "  --quiet            print nothing but errors (a replay prints its progress\n"
      "                     to stderr every few seconds otherwise)\n"
      "  --par-stats        hopscope-par: each process prints its windows, events,\n"
      "                     events sent and received, CPU and wall time running\n"
      "                     events and in the exchanges, peak RSS (stderr)\n"
      "\n"
      "A replay exits 1 (after writing RUN) when it cannot go on (deadlock: the\n"
      "ranks and calls are named) or when the trace leaves messages unmatched.\n"
      "\n"
      "examples:\n"
      "  hopscope simulate --topo fattree:k=16,n=2 --load 0.5\n"
      "  hopscope simulate --topo dragonfly:a=4,p=2,h=2,g=9,routing=ugal \\\n"
      "                    --traffic groupshift --load 0.4\n"
      "  hopscope simulate --topo fattree:k=8,n=2 --traffic incast:target=0,senders=8 \\\n"
      "                    --load 0.5 -o RUN\n"
      "  hopscope gen halo3d --ranks 256 -o halo.trace\n"
      "  hopscope simulate --topo fattree:k=8,n=2,taper=2 --ppn 4 --map random \\\n"
      "                    -i halo.trace -o RUN\n"
      "  hopscope simulate --topo fattree:k=16,n=2 -i canary.trace --map random \\\n"
      "                    --background mixed:frac=0.5 --congestion-impact -o RUN\n"
      "\n"
      "Parallel (synthetic traffic with --packets; the run directory is the same as\n"
      "hopscope's, byte for byte; docs/fabric.md, \"Parallel runs\"):\n"
      "  mpirun -np 4 hopscope-par simulate --topo dragonfly:a=16,p=8,h=8,g=129 \\\n"
      "                    --packets 1000000 -o RUN\n", NULL },
    { "analyze", hs__cmd_analyze, "where, when and why the application met congestion (analysis.json)",
      "usage: hopscope analyze RUN [--phases FILE] [--decoder auto|blind|route] [options]\n"
      "\n"
      "Decodes the in-band counters and sampled records of the run directory RUN\n"
      "(written by 'hopscope simulate' or the MPI replay): per link the application's\n"
      "traffic, its congested packets and the congested fraction (CF), each with a\n"
      "standard error, or 'insufficient data'; the same per phase and per time\n"
      "window; congestion trees joined by 'feeds into' and their roots; and a\n"
      "diagnosis: a communication-pattern problem (root at a link into a node),\n"
      "a mapping/bisection problem (root inside the network carrying the\n"
      "application's own load; a suggested mapping is written to RUN/suggested.map)\n"
      "or interference from outside the job (congested links carrying little of\n"
      "the application's own traffic).  Writes RUN/analysis.json (docs/formats.md)\n"
      "and prints the findings.  Method and thresholds: docs/analysis.md.\n"
      "\n"
      "  --phases FILE       name phases: lines 'tag N NAME', 'tag A-B NAME',\n"
      "                      'collective KIND NAME', 'phase ID NAME'; first match\n"
      "                      wins, phases with one name are analysed together\n"
      "  --decoder D         auto (default: route-aware where the forwarding tables\n"
      "                      determine the paths, else blind), blind, route\n"
      "  --no-windows        no per-window views\n"
      "  -o, --output FILE   write the analysis there (default RUN/analysis.json)\n"
      "  --map-out FILE      where to write a suggested mapping (RUN/suggested.map)\n"
      "  -q, --quiet         print nothing but errors (a run that takes more than\n"
      "                      2 s otherwise reports its stages on stderr)\n"
      "  --accuracy          print the accuracy against ground truth in full (all link\n"
      "                      kinds, both decoders; markdown), when the run has truth\n"
      "\n"
      "thresholds (defaults justified in docs/analysis.md):\n"
      "  --cf-threshold X    a link is congested when CF - t*SE >= X, clear when\n"
      "                      CF + t*SE < X, else it cannot be judged (0.25); t:\n"
      "                      Student's t at confidence z for the link's packets\n"
      "  --z Z               one-sided confidence multiplier (2)\n"
      "  --max-traffic-cv X  above this traffic CV (SE / estimate) a link's verdict\n"
      "                      tests C - threshold*T (Fieller) instead of the CF's\n"
      "                      delta-method SE (0.1)\n"
      "  --min-packets N     the quiet-packets test (load between --load-low and\n"
      "                      --load-high) needs N of them (100); not a cutoff for links\n"
      "  --max-cf-se X       obsolete (links are judged by their SE): accepted, ignored\n"
      "  --sig-share X       d' is a significant downstream of d when at least this\n"
      "                      share of d's sampled packets next crossed d' (0.05)\n"
      "  --sig-packets N     ... and at least N of them (10)\n"
      "  --load-high X       a root whose application load (share of capacity, as its\n"
      "                      packets see it) is >= X is the application's doing (0.5)\n"
      "  --load-low X        congested links with application load <= X are\n"
      "                      'dark and thin': interference (default: tau over the\n"
      "                      load bin, 0.25: the application's other packets fill less\n"
      "                      of the bin than a congested packet waited)\n"
      "  --load-bin T        time bins in which the application's load is measured as\n"
      "                      its packets see it (the others of their bin); default:\n"
      "                      8 full-packet times of the link class (1.31us at 25GB/s)\n"
      "\n"
      "examples:\n"
      "  hopscope simulate --topo fattree:k=8,n=2 --traffic incast:target=0,senders=16 \\\n"
      "                    --load 0.5 -o RUN && hopscope analyze RUN\n"
      "  hopscope analyze RUN --phases phases.txt --cf-threshold 0.3\n", NULL },
    { "latmodel", hs__cmd_latmodel, "latency model from link counters (Patke et al.): fit, predict",
      hs__help_latmodel, hs__subhelp_latmodel },
    { "render", hs__cmd_render, "SVG pictures and an HTML report of the congestion (report.html)",
      hs__help_render, NULL },
    { "whatif", hs__cmd_whatif, "re-simulate a replayed run with another mapping or without background",
      "usage: hopscope whatif RUN --map MAP|suggested [--no-background] [--phases FILE]\n"
      "                      [-o DIR]\n"
      "\n"
      "Replays the trace behind RUN (a run of 'hopscope simulate -i TRACE') again on\n"
      "the same machine with the same network, in-band and replay parameters\n"
      "(from RUN/manifest.json and RUN/app.json), changing only what is asked;\n"
      "analyses every new run and prints a table: predicted time and its change,\n"
      "message latency, congested links (and the change), roots, top finding.\n"
      "\n"
      "  --map MAP          the new mapping: 'suggested' (the analyzer's: ranks that\n"
      "                     talk most kept under one switch, docs/analysis.md),\n"
      "                     or linear, roundrobin, random[:SEED], shift:S, file:PATH\n"
      "  --no-background    also replay without the run's background jobs (with the\n"
      "                     current mapping, and with the new one when --map is given)\n"
      "  --trace PATH       the trace, when app.json's path is not valid from here\n"
      "  --phases FILE      phase names for the analyses (default: the file RUN's\n"
      "                     last 'analyze --phases' used, from RUN/analysis.json)\n"
      "  -o, --output DIR   where the new runs go (default RUN.whatif): DIR/map,\n"
      "                     DIR/nobg, DIR/map-nobg, and the mapping files\n"
      "  -q, --quiet        no progress lines\n"
      "\n"
      "Each new run is replayed into DIR/NAME.part-PID and renamed when done.  Over\n"
      "MPI processes, 'mpirun -np N hopscope-par whatif ...' replays new run i\n"
      "(1..4, in the table's order) on process (i-1) mod N; rank 0 prints the same\n"
      "table, and the directories are the same (docs/fabric.md, \"Families of\n"
      "runs\").\n"
      "\n"
      "example:\n"
      "  hopscope gen pf3d --ranks 256 -o T && hopscope simulate \\\n"
      "      --topo fattree:k=16,n=2,taper=4 -i T --map roundrobin -o RUN\n"
      "  hopscope analyze RUN && hopscope whatif RUN --map suggested\n", NULL },
    { "sweep", hs__cmd_sweep,
      "replay one trace under many mappings (and backgrounds, routings, widths): sweep.csv",
      hs__help_sweep, hs__subhelp_sweep },
    { "culprits", hs__cmd_culprits,
      "which feature explains the run time across a sweep of runs (GBRT, XGBoost)",
      hs__help_culprits, NULL },
    { "gen", hs__cmd_gen, "write a synthetic trace of a standard pattern (halo3d, pf3d, canary, incast, pingpong)",
      hs__help_gen, NULL },
    { "trace", hs__cmd_trace, "summarise, list, check or convert a trace (stats|dump|check|import|export)",
      hs__help_trace, hs__subhelp_trace },
    { "topo", hs__cmd_topo, "describe a modelled network (size, diameter, bisection)",
      "usage: hopscope topo SPEC [--links | --path SRC:DST]\n"
      "\n"
      "Builds the topology SPEC and prints its nodes, switches, links, diameter\n"
      "and bisection bandwidth; rejects a bad SPEC with a message naming the\n"
      "option.  Full syntax and defaults: docs/topology.md.\n"
      "\n"
      "SPEC is TYPE:OPTIONS with OPTIONS a comma-separated list of key=value:\n"
      "  fattree:k=K,n=N[,taper=T]   K-ary N-tree: N levels of switches, K nodes per\n"
      "                              leaf, K up-links per switch (default k=16,n=2);\n"
      "                              taper=T gives the leaves K/T up-links (T:1)\n"
      "  fattree:down=M1x..xMh,up=W1x..xWh\n"
      "                              extended generalized fat-tree XGFT(h;M;W), level 1\n"
      "                              first: Mi children of a level-i switch, Wi parents\n"
      "                              of a level-(i-1) element (W1 = 1)\n"
      "      routing=dmodk|adaptive  D-mod-K (default) or least-loaded up port\n"
      "  dragonfly:a=A,p=P,h=H,g=G   G groups of A routers, P nodes and H global\n"
      "                              links per router (default a=4,p=2,h=2,g=9)\n"
      "      routing=min|valiant|ugal|ugal-g  (default min; ugal is UGAL-L, ugal-g\n"
      "                              the global-knowledge reference); gbw=, glat= for\n"
      "                              global links\n"
      "                              (default: bw, 200ns)\n"
      "  torus:K1xK2x..[,p=P]        torus, P nodes per switch (default 1);\n"
      "  mesh:K1xK2x..[,p=P]         the same without wrap-around links;\n"
      "                              dimension-order routing with dateline VCs\n"
      "  file:PATH                   a topology file (format in docs/topology.md)\n"
      "Common options: bw=RATE (default 25GB/s = 200Gb/s), lat=TIME (100ns) of the\n"
      "switch-to-switch links; nbw=RATE (default: bw), nlat=TIME (100ns) of the node\n"
      "links; vcs=N VCs (a multiple of the VC classes the routing needs, at most 8)\n"
      "and vcsel=dest|rr|sl, the VC a packet takes within its class: by destination\n"
      "(default), round-robin per packet, or by service level (the message's phase).\n"
      "router=booksim: a cycle-level model of BookSim2's input-queued VC router\n"
      "(per-packet VC allocation, separable input-first allocators) instead of the\n"
      "default cut-through switch, with BookSim2's parameters: flit=BYTES (64: one\n"
      "flit per cycle), vc_buf_size=FLITS (8), routing_delay (1), vc_alloc_delay (1),\n"
      "sw_alloc_delay (1), st_final_delay (1), credit_delay (0), wait_for_tail_credit\n"
      "(0), hold_switch_for_packet (0), internal_speedup (1.0); docs/fabric.md.\n"
      "Topology files set node links per link and take no options.\n"
      "RATE: 25GB/s, 200Gb/s, 200Gbps; TIME: 100ns, 1.5us, 250ps.\n"
      "\n"
      "  --links          print the link table (id, kind, ends, bandwidth, latency)\n"
      "  --path SRC:DST   print the routed path between two nodes\n"
      "\n"
      "examples:\n"
      "  hopscope topo fattree:k=16,n=2\n"
      "  hopscope topo fattree:k=16,n=2,taper=2\n"
      "  hopscope topo dragonfly:a=16,p=8,h=8,g=129,routing=ugal\n"
      "  hopscope topo torus:8x8x8 --path 0:511\n", NULL },
    { "version", cmd_version, "print the version (same as --version)",
      "usage: hopscope version\n"
      "       hopscope --version\n", NULL },

};
static const size_t ncommands = sizeof commands / sizeof commands[0];

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hopscope <command> [options] [arguments]\n"
            "       hopscope help [command]\n"
            "       hopscope --version\n"
            "\n"
            "hopscope shows where, when and why an MPI application's messages meet\n"
            "congestion in the interconnect, using in-band probabilistic path tracing\n"
            "on a packet-level model of the machine.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < ncommands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'hopscope help <command>' or 'hopscope <command> --help' for details.\n"
               "Documentation: README.md and docs/ in the source tree.\n");
}

char *hs__cmd_line(int argc, char **argv)
{
    size_t n = strlen("hopscope") + 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    strcpy(s, "hopscope");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

const hs__cmd *hs__cmd_find(const char *name)
{
    for (size_t i = 0; i < ncommands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

void hs__cmd_help(const hs__cmd *c)
{
    fputs(c->help, stdout);
}

/* The help of the action that the first words of argv name (up to the
 * first option), the longest match: "import otf2" before "import"; NULL when
 * they name none (then the command's help, which lists its actions). */
static const hs__subhelp *find_subhelp(const hs__cmd *c, int argc, char **argv)
{
    if (!c->subs)
        return NULL;
    char words[128] = "";
    size_t len = 0;
    const hs__subhelp *best = NULL;
    for (int i = 0, nw = 0; i < argc && nw < 3; i++) {
        if (argv[i][0] == '-')
            break;          /* actions come first */
        int n = snprintf(words + len, sizeof words - len, "%s%s", nw ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof words - len)
            break;
        len += (size_t)n;
        nw++;
        for (const hs__subhelp *h = c->subs; h->name; h++)
            if (strcmp(h->name, words) == 0)
                best = h;
    }
    return best;
}

/* `hopscope CMD [ACTION...] --help` and `hopscope help CMD [ACTION...]`. */
static void help_for(const hs__cmd *c, int argc, char **argv)
{
    const hs__subhelp *h = find_subhelp(c, argc, argv);
    fputs(h ? h->help : c->help, stdout);
}

int hs__wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

int hs__usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hopscope %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'hopscope help %s')\n", cmd);
    return HS_EXIT_USAGE;
}

/* Suggest a command whose name starts like the mistyped one. */
static const char *closest(const char *name)
{
    for (size_t n = strlen(name); n >= 2; n--)
        for (size_t i = 0; i < ncommands; i++)
            if (strncmp(commands[i].name, name, n) == 0)
                return commands[i].name;
    return NULL;
}

/* The hopscope command parallel runs go through (set by hopscope-par's
 * main, cli/par_mpi.c; NULL in hopscope). */
const struct hs_fabric_transport *hs__par_transport;
unsigned hs__par_np = 1, hs__par_rank;
const hs__family *hs__par_family;

int hs__cli_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return HS_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0)
        return cmd_version(0, NULL);
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            const hs__cmd *c = hs__cmd_find(argv[2]);
            if (!c) {
                fprintf(stderr, "hopscope: no command '%s'; 'hopscope help' lists them\n", argv[2]);
                return HS_EXIT_USAGE;
            }
            help_for(c, argc - 3, argv + 3);
            return HS_EXIT_OK;
        }
        usage(stdout);
        return HS_EXIT_OK;
    }
    const hs__cmd *c = hs__cmd_find(name);
    if (!c) {
        const char *near = closest(name);
        fprintf(stderr, "hopscope: unknown command '%s'", name);
        if (near)
            fprintf(stderr, "; did you mean '%s'?", near);
        fprintf(stderr, "\n'hopscope help' lists the commands.\n");
        return HS_EXIT_USAGE;
    }
    if (hs__wants_help(argc - 1, argv + 1)) {
        help_for(c, argc - 2, argv + 2);
        return HS_EXIT_OK;
    }
    return c->run(argc - 1, argv + 1);
}

/* Full path of an executable name, searched in PATH when it has no '/'. */
int hs__find_exe(const char *name, char *out, size_t n)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0)
            return -1;
        snprintf(out, n, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if ((size_t)snprintf(out, n, "%.*s/%s", (int)len, len ? path : ".", name) < n &&
            access(out, X_OK) == 0) {
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
                return 0;
        }
        path += len + (colon ? 1 : 0);
    }
    return -1;
}

int hs__exe_dir(char *buf, size_t n)
{
    if (n < 2)
        return -1;
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return -1;
    buf[len] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void hs__rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
