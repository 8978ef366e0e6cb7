/* hopscope demo: the whole pipeline on the example application, and
 * (--codec) the in-band scheme alone on a built-in path set.
 *
 * The codec demo:
 * A two-level fat-tree (8 leaf switches of 8 nodes, 4 spines, 192 directed
 * links) carries a background permutation plus an incast of 16 senders into
 * node 0.  Packets are marked hop by hop with the 6-bit field (c=4, b=1);
 * congestion is drawn per hop with probabilities that mimic a congestion
 * tree rooted at the ejection link of node 0.  The NIC counters are decoded
 * with the blind fast decoder and the route-aware decoder and compared with
 * the true per-link counts; the naive decoder is timed on the same data.
 *
 */
#include "cli.h"
#include "hopscope/hash.h"

#include <getopt.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LEAVES = 8, PER_LEAF = 8, SPINES = 4, NODES = LEAVES * PER_LEAF };
/* Link IDs: 1..64 node->leaf, 65..128 leaf->node, 129..160 leaf->spine,
 * 161..192 spine->leaf. */
#define L_UP_NIC(n)      (1 + (n))
#define L_DOWN_NIC(n)    (1 + NODES + (n))
#define L_UP_SPINE(l, s) (1 + 2 * NODES + (l) * SPINES + (s))
#define L_DOWN_LEAF(s, l)(1 + 2 * NODES + LEAVES * SPINES + (s) * LEAVES + (l))
#define NLINKS (2 * NODES + 2 * LEAVES * SPINES)

static const char *link_name(uint32_t id, char *buf, size_t n)
{
    uint32_t i = id - 1;
    if (i < NODES)
        snprintf(buf, n, "node%u->leaf%u", i, i / PER_LEAF);
    else if ((i -= NODES) < NODES)
        snprintf(buf, n, "leaf%u->node%u", i / PER_LEAF, i);
    else if ((i -= NODES) < LEAVES * SPINES)
        snprintf(buf, n, "leaf%u->spine%u", i / SPINES, i % SPINES);
    else
        i -= LEAVES * SPINES, snprintf(buf, n, "spine%u->leaf%u", i / LEAVES, i % LEAVES);
    return buf;
}

/* D-mod-K style: the spine is chosen by the destination. */
static unsigned route(unsigned src, unsigned dst, uint32_t *path)
{
    unsigned ls = src / PER_LEAF, ld = dst / PER_LEAF, n = 0;
    path[n++] = L_UP_NIC(src);
    if (ls != ld) {
        unsigned sp = dst % SPINES;
        path[n++] = L_UP_SPINE(ls, sp);
        path[n++] = L_DOWN_LEAF(sp, ld);
    }
    path[n++] = L_DOWN_NIC(dst);
    return n;
}

static uint64_t rng;
static double unif(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return ((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int demo_codec(int argc, char **argv)
{
    uint64_t seed = 1, npackets = 200000;
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},
        {"packets", required_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (o == 's' && hs_parse_u64(optarg, &seed) == 0)
            continue;
        if (o == 'n' && hs_parse_u64(optarg, &npackets) == 0 && npackets > 0 &&
            npackets <= 100000000)
            continue;
        if (o == 's' || o == 'n')
            return hs__usage_error("demo", "bad value '%s' for --%s", optarg,
                                   o == 's' ? "seed" : "packets");
        return hs__usage_error("demo", "unknown option");
    }
    if (optind < argc)
        return hs__usage_error("demo", "unexpected argument '%s'", argv[optind]);

    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.nlinks = NLINKS;
    cfg.salt = seed;
    hs_scheme s;
    hs_error err;
    if (hs_scheme_init(&s, &cfg, &err)) {
        fprintf(stderr, "hopscope demo: %s\n", err.msg);
        return HS_EXIT_FAIL;
    }
    printf("hopscope demo: in-band path tracing on a built-in path set\n\n"
           "network: 2-level fat-tree, %d nodes, %d leaf and %d spine switches, %d directed "
           "links\nfield:   %u bits per packet (hop counter %u, hash bits %u, flag 1); "
           "link IDs k=%u\n",
           NODES, LEAVES, SPINES, NLINKS, s.field_bits, s.c, s.b, s.k);

    hs_sample *smp = malloc(npackets * sizeof *smp);
    uint32_t *off = malloc((npackets + 1) * sizeof *off);
    uint32_t *cand = malloc(npackets * 4 * sizeof *cand);
    hs_counters ct;
    if (!smp || !off || !cand || hs_counters_init(&ct, &s, &err)) {
        fprintf(stderr, "hopscope demo: out of memory\n");
        return HS_EXIT_FAIL;
    }
    long truth_t[NLINKS + 1] = {0}, truth_c[NLINKS + 1] = {0};
    static uint64_t seq[NODES][NODES];
    memset(seq, 0, sizeof seq);
    rng = seed;
    off[0] = 0;
    /* Half the packets: incast of nodes 8..23 into node 0 (they cross the
     * spines and leaf 0 down-links, and all end on leaf0->node0). */
    for (uint64_t p = 0; p < npackets; p++) {
        unsigned src, dst;
        if (p % 2 == 0) {
            src = 8 + (unsigned)(unif() * 16);
            dst = 0;
        } else {
            src = (unsigned)(unif() * NODES);
            dst = (src * 37 + 11) % NODES; /* a fixed permutation */
            if (dst == 0)
                dst = 1;
        }
        uint32_t path[4];
        unsigned len = route(src, dst, path);
        uint64_t key = hs_packet_key(s.salt, src, dst, seq[src][dst]++);
        hs_field f;
        hs_field_init(&f);
        for (unsigned i = 0; i < len; i++) {
            uint32_t l = path[i];
            /* A congestion tree rooted at leaf0->node0: heavy at the root,
             * back-pressure into the spine->leaf0 links, light elsewhere. */
            double pc = l == L_DOWN_NIC(0) ? 0.9
                      : (l >= L_DOWN_LEAF(0, 0) && (l - L_DOWN_LEAF(0, 0)) % LEAVES == 0) ? 0.5
                      : 0.02;
            int cong = unif() < pc;
            truth_t[l]++;
            truth_c[l] += cong;
            hs_mark(&s, &f, key, l, cong);
            cand[off[p] + i] = l;
        }
        off[p + 1] = off[p] + len;
        smp[p] = (hs_sample){.pid = hs_pid(&s, key), .f = f};
        hs_counters_update(&ct, &s, smp[p].pid, &f);
    }
    printf("traffic: %llu monitored packets (half an incast of 16 senders into node0, half a "
           "permutation)\n\n", (unsigned long long)npackets);

    double t0 = now();
    hs_linksum fast[NLINKS + 1];
    hs_counters fresh;
    hs_counters_init(&fresh, &s, NULL);
    hs_counters_from_samples(&fresh, &s, smp, npackets);
    hs_decode_fast(&fresh, fast, NLINKS + 1, NULL);
    double t_fast = now() - t0;
    hs_counters_free(&fresh);
    uint32_t links[NLINKS];
    for (uint32_t l = 0; l < NLINKS; l++)
        links[l] = l + 1;
    hs_linksum naive[NLINKS];
    t0 = now();
    hs_decode_naive(&s, smp, npackets, links, NLINKS, naive, NULL);
    double t_naive = now() - t0;
    int equal = 1;
    for (uint32_t l = 0; l < NLINKS; l++)
        equal &= naive[l].s == fast[l + 1].s && naive[l].c == fast[l + 1].c;
    hs_linksum route_s[NLINKS + 1];
    hs_decode_route(&s, smp, npackets, off, cand, 1, route_s, NLINKS + 1, NULL);

    /* The five links with the most true congested packets. */
    uint32_t order[NLINKS];
    for (uint32_t l = 0; l < NLINKS; l++)
        order[l] = l + 1;
    for (uint32_t i = 0; i < NLINKS; i++)
        for (uint32_t j = i + 1; j < NLINKS; j++)
            if (truth_c[order[j]] > truth_c[order[i]]) {
                uint32_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    printf("most congested links (estimate +- standard error vs truth):\n");
    printf("  %-18s %10s %20s %20s %16s\n", "link", "true pkts", "blind traffic",
           "blind congested", "route-aware CF");
    for (int i = 0; i < 5; i++) {
        uint32_t l = order[i];
        hs_estimate eb, er;
        hs_estimate_from_sums(&s, &fast[l], 0, &eb);
        hs_estimate_from_sums(&s, &route_s[l], 1, &er);
        char name[32];
        printf("  %-18s %10ld %11.0f +- %5.0f %11.0f +- %5.0f %7.3f +- %.3f (true %.3f)\n",
               link_name(l, name, sizeof name), truth_t[l], eb.traffic, eb.traffic_se,
               eb.congested, eb.congested_se, er.cf, er.cf_se,
               truth_t[l] ? (double)truth_c[l] / truth_t[l] : 0.0);
    }
    /* Accuracy over all links: errors in units of the reported SE. */
    double sum_z2 = 0, max_cf_err = 0;
    int ncf = 0;
    for (uint32_t l = 1; l <= NLINKS; l++) {
        hs_estimate eb, er;
        hs_estimate_from_sums(&s, &fast[l], 0, &eb);
        hs_estimate_from_sums(&s, &route_s[l], 1, &er);
        double z = (eb.traffic - truth_t[l]) / (eb.traffic_se > 0 ? eb.traffic_se : 1);
        sum_z2 += z * z;
        if (truth_t[l] >= 10000) {
            max_cf_err = fmax(max_cf_err, fabs(er.cf - (double)truth_c[l] / truth_t[l]));
            ncf++;
        }
    }
    printf("\naccuracy: blind traffic errors have RMS %.2f standard errors over %d links "
           "(1 is ideal);\n          route-aware congested fraction max error %.4f on the %d "
           "links with >= 10^4 packets\n",
           sqrt(sum_z2 / NLINKS), NLINKS, max_cf_err, ncf);
    printf("decode:   fast (histogram + Walsh-Hadamard) %.2f ms, naive %.1f ms: %.0fx faster, "
           "results %s\n", t_fast * 1e3, t_naive * 1e3, t_naive / t_fast,
           equal ? "identical" : "DIFFERENT (bug)");
    printf("\nThis shows the in-band codec alone; 'hopscope demo' runs the whole pipeline.\n");
    hs_counters_free(&ct);
    free(smp);
    free(off);
    free(cand);
    hs_scheme_free(&s);
    return equal ? HS_EXIT_OK : HS_EXIT_FAIL;
}

/* ---- the whole pipeline ------------------------------------------------------- */

/* The example application for `mpi`: built beside hopscope in the build tree
 * (build/examples/<mpi>/halo3d), or compiled from the installed source
 * (share/hopscope/examples) into the work directory with mpicc.<mpi>. */
static int find_example(const char *mpi, const char *dir, char *app, size_t n)
{
    char ed[4096], src[4300], cmd[9000];
    if (hs__exe_dir(ed, sizeof ed))
        return -1;
    snprintf(app, n, "%s/../examples/%s/halo3d", ed, mpi);
    if (access(app, X_OK) == 0) {
        printf("      example application: %s (built by make)\n", app);
        return 0;
    }
    const char *srcs[] = {"%s/../share/hopscope/examples/halo3d/halo3d.c",
                          "%s/../../examples/halo3d/halo3d.c"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(src, sizeof src, srcs[i], ed);
        if (access(src, R_OK) != 0)
            continue;
        snprintf(app, n, "%s/halo3d", dir);
        snprintf(cmd, sizeof cmd, "mpicc.%s -O2 -o '%s' '%s'", mpi, app, src);
        printf("      building the example application: %s\n", cmd);
        fflush(stdout);
        if (system(cmd) != 0) {
            fprintf(stderr, "hopscope demo: building %s failed\n", src);
            return -1;
        }
        return 0;
    }
    fprintf(stderr, "hopscope demo: the example application halo3d is neither built nor "
                    "installed beside %s (run 'make' in the source tree)\n", ed);
    return -1;
}

enum { DEMO_RANKS = 32, DEMO_RANKS_PER_NODE = 4 };

int hs__cmd_demo(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--codec") == 0) {
            for (int j = i; j + 1 < argc; j++)
                argv[j] = argv[j + 1];
            return demo_codec(argc - 1, argv);
        }
    static const struct option opts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"mpi", required_argument, NULL, 'm'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = "hopscope-demo", *mpi = NULL;
    int o;
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (o == 'd')
            dir = optarg;
        else if (o == 'm' && (strcmp(optarg, "openmpi") == 0 || strcmp(optarg, "mpich") == 0))
            mpi = optarg;
        else if (o == 'm')
            return hs__usage_error("demo", "--mpi %s: openmpi or mpich", optarg);
        else
            return hs__usage_error("demo", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return hs__usage_error("demo", "unexpected argument '%s'", argv[optind]);
    char launcher[4096];
    if (!mpi)
        mpi = hs__find_exe("mpirun.openmpi", launcher, sizeof launcher) == 0 ? "openmpi"
            : hs__find_exe("mpirun.mpich", launcher, sizeof launcher) == 0   ? "mpich" : NULL;
    if (!mpi) {
        fprintf(stderr, "hopscope demo: no MPI launcher found (mpirun.openmpi or mpirun.mpich); "
                        "'make deps' installs Open MPI and MPICH\n");
        return HS_EXIT_FAIL;
    }
    hs_error err;
    if (hs_mkdir_p(dir, &err)) {
        fprintf(stderr, "hopscope demo: %s\n", err.msg);
        return HS_EXIT_FAIL;
    }
    printf("hopscope demo: a 3D halo exchange of %d ranks, recorded for real, replayed on a\n"
           "64-node fat-tree tapered 2:1, placed badly and sharing the machine with other jobs;\n"
           "what hopscope finds, and what a better placement would give.  Work directory: %s\n\n",
           DEMO_RANKS, dir);
    char app[4400];
    if (find_example(mpi, dir, app, sizeof app))
        return HS_EXIT_FAIL;
    if (strcmp(mpi, "openmpi") == 0 && geteuid() == 0) {
        /* Open MPI refuses root unless told; the demo is often run by root
         * on a fresh machine. */
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    /* Phase names for the example's tags (examples/halo3d/halo3d.c). */
    char phases[4200];
    snprintf(phases, sizeof phases, "%s/phases.txt", dir);
    FILE *f = fopen(phases, "w");
    if (!f || fputs("# halo3d: one MPI tag per direction\ntag 1 +x\ntag 2 -x\ntag 3 +y\n"
                    "tag 4 -y\ntag 5 +z\ntag 6 -z\n", f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "hopscope demo: cannot write %s\n", phases);
        return HS_EXIT_FAIL;
    }
    char np[16];
    snprintf(np, sizeof np, "%d", DEMO_RANKS);
    char *launcher_ompi[] = {"mpirun.openmpi", "--oversubscribe", "-np", np, app,
                             "-n", "48", "-i", "20", "-q"};
    char *launcher_mpich[] = {"mpirun.mpich", "-np", np, app, "-n", "48", "-i", "20", "-q"};
    hs__pipe p;
    memset(&p, 0, sizeof p);
    p.dir = dir;
    p.mpi = mpi;
    p.nodes = DEMO_RANKS / DEMO_RANKS_PER_NODE;
    p.topo = "fattree:k=8,n=2,taper=2";
    p.map = "random";       /* scattered over the machine: a poor placement */
    p.background = "mixed:frac=0.8"; /* GPCNeT's congestors on most free nodes */
    p.phases = phases;
    if (strcmp(mpi, "openmpi") == 0) {
        p.launcher = launcher_ompi;
        p.nlauncher = (int)(sizeof launcher_ompi / sizeof launcher_ompi[0]);
    } else {
        p.launcher = launcher_mpich;
        p.nlauncher = (int)(sizeof launcher_mpich / sizeof launcher_mpich[0]);
    }
    hs__pipe_out out;
    int rc = hs__pipe_run(&p, &out);
    if (rc)
        return rc;

    printf("\nWhat if the job were placed compactly (linear: 8 consecutive nodes, one leaf\n"
           "switch), and what if it had the machine to itself?\n");
    char *w[] = {"whatif", out.run, "--map", "linear", "--no-background", "-q", NULL};
    rc = hs__cmd_whatif(6, w);
    if (rc)
        return rc;
    printf("\nreport     %s  (open it in a browser)\n", out.report);
    return HS_EXIT_OK;
}
