/* hopscope gen: writes a synthetic trace of a standard pattern (halo3d,
 * pf3d, canary, incast) without running MPI, at any scale. */
#include "cli.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CMD "gen"

const char hs__help_gen[] =
    "usage: hopscope gen PATTERN --ranks N [--iters I] [--size BYTES] [options] -o TRACE\n"
    "\n"
    "Writes the trace of a standard communication pattern, as if recorded by\n"
    "libhopscope.so from a real run, without running MPI; any number of ranks\n"
    "(e.g. 16384).  Replay it with 'hopscope simulate -i TRACE'.\n"
    "\n"
    "patterns:\n"
    "  halo3d   3D halo exchange on a periodic process grid (miniGhost-like):\n"
    "           per iteration, compute, then Irecv/Isend one face per direction,\n"
    "           one tag per direction (tags 100..105: -x,+x,-y,+y,-z,+z), Waitall\n"
    "           (default face 32 KiB, compute 10us)\n"
    "  pf3d     all-to-all within sub-communicators of --group ranks (4) plus the\n"
    "           3D halo (pF3D-like) (default halo 16 KiB, all-to-all block 32 KiB)\n"
    "  canary   GPCNeT's canary: per iteration a new random ring; each rank\n"
    "           exchanges --size bytes (8) with its left and right neighbours\n"
    "           (tags 81, 82), then an allreduce of --reduce-size bytes (8)\n"
    "  incast   every rank sends --size bytes (4096) to --root (0), tag 1;\n"
    "           the root Irecvs them all and Waitalls\n"
    "  pingpong ranks 2i and 2i+1 bounce --size bytes (8) with Send/Recv, tag 7,\n"
    "           no computation (for checking the replay against analysis)\n"
    "\n"
    "options:\n"
    "  --ranks N          number of ranks (required, >= 2)\n"
    "  --iters I          iterations (10)\n"
    "  --size BYTES       message size (K, M suffixes)\n"
    "  --compute T        computation per iteration, e.g. 10us (pattern default)\n"
    "  --monitor F        fraction of messages that carry the in-band field (1)\n"
    "  --seed S           seed of the monitoring sample and the rings (1)\n"
    "  --ppn P            ranks per virtual node in the manifest (1)\n"
    "  --dims AxBxC       halo3d/pf3d process grid (default: balanced factors)\n"
    "  --group G          pf3d: all-to-all group size (4)\n"
    "  --a2a-size BYTES   pf3d: all-to-all block per rank pair (32K)\n"
    "  --neighbours N     halo3d/pf3d halo: 6 faces (default), 4 (2D halo: the x\n"
    "                     and y faces, default grid AxBx1), 26 (faces, edges and\n"
    "                     corners, each --size bytes; tags 100..125)\n"
    "  --no-halo          pf3d: only the sub-communicator all-to-all\n"
    "  --root R           incast: the receiving rank (0)\n"
    "  --reduce-size B    canary (and halo3d/pf3d with --reduce-every): allreduce bytes (8)\n"
    "  --reduce-every N   halo3d/pf3d: an allreduce every N iterations (0: none)\n"
    "  -o, --output TRACE the trace directory to write (required)\n"
    "  --quiet            print nothing but errors\n"
    "\n"
    "examples:\n"
    "  hopscope gen halo3d --ranks 4096 --iters 20 --size 64K -o halo.trace\n"
    "  hopscope gen canary --ranks 256 --iters 100 -o canary.trace\n";

enum { O_RANKS = 1000, O_ITERS, O_SIZE, O_COMPUTE, O_MONITOR, O_SEED, O_PPN, O_DIMS, O_GROUP,
       O_A2A, O_ROOT, O_RSIZE, O_REVERY, O_OUT, O_QUIET, O_NEIGH, O_NOHALO };

static const struct option opts[] = {
    { "ranks", required_argument, NULL, O_RANKS },
    { "iters", required_argument, NULL, O_ITERS },
    { "size", required_argument, NULL, O_SIZE },
    { "compute", required_argument, NULL, O_COMPUTE },
    { "monitor", required_argument, NULL, O_MONITOR },
    { "seed", required_argument, NULL, O_SEED },
    { "ppn", required_argument, NULL, O_PPN },
    { "dims", required_argument, NULL, O_DIMS },
    { "group", required_argument, NULL, O_GROUP },
    { "a2a-size", required_argument, NULL, O_A2A },
    { "root", required_argument, NULL, O_ROOT },
    { "reduce-size", required_argument, NULL, O_RSIZE },
    { "reduce-every", required_argument, NULL, O_REVERY },
    { "output", required_argument, NULL, O_OUT },
    { "quiet", no_argument, NULL, O_QUIET },
    { "neighbours", required_argument, NULL, O_NEIGH },
    { "no-halo", no_argument, NULL, O_NOHALO },
    { NULL, 0, NULL, 0 },
};

static int bad(const char *opt, const char *val, const char *want)
{
    return hs__usage_error(CMD, "--%s %s: expected %s", opt, val, want);
}

static int u32_opt(const char *opt, const char *v, uint64_t lo, uint64_t hi, uint32_t *out,
                   const char *want)
{
    uint64_t u;
    if (hs_parse_u64(v, &u) || u < lo || u > hi)
        return bad(opt, v, want);
    *out = (uint32_t)u;
    return 0;
}

int hs__cmd_gen(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return hs__usage_error(CMD, "give a pattern: halo3d, pf3d, canary, incast or pingpong");
    hs_gen_pattern pat;
    if (hs_gen_pattern_parse(argv[1], &pat))
        return hs__usage_error(CMD, "unknown pattern '%s' (halo3d, pf3d, canary, incast, pingpong)",
                               argv[1]);
    hs_gen_params p;
    hs_gen_params_default(&p, pat);
    p.ranks = 0;
    const char *out = NULL;
    int quiet = 0, c, rc = 0;
    uint64_t u;
    double d;
    hs_time t;
    opterr = 0;
    optind = 2;
    while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case O_RANKS: rc = u32_opt("ranks", v, 2, 1u << 30, &p.ranks, "2..2^30"); break;
        case O_ITERS: rc = u32_opt("iters", v, 0, 100000000, &p.iters, "0..10^8"); break;
        case O_SIZE:
            if (hs_parse_size(v, &u) || u > (1ull << 40))
                return bad("size", v, "bytes (K, M, G suffixes)");
            p.size = u;
            break;
        case O_COMPUTE:
            if (hs_parse_time(v, &t) || t % HS_PS_PER_NS)
                return bad("compute", v, "a time in whole nanoseconds, e.g. 10us");
            p.compute_ns = t / HS_PS_PER_NS;
            break;
        case O_MONITOR:
            if (hs_parse_double(v, &d) || !(d >= 0 && d <= 1))
                return bad("monitor", v, "a fraction in [0, 1]");
            p.monitor = d;
            break;
        case O_SEED:
            if (hs_parse_u64(v, &u))
                return bad("seed", v, "an unsigned integer");
            p.seed = u;
            break;
        case O_PPN: rc = u32_opt("ppn", v, 1, 1u << 20, &p.ppn, "1..2^20"); break;
        case O_DIMS: {
            unsigned a, b, cc;
            char extra;
            if (sscanf(v, "%ux%ux%u%c", &a, &b, &cc, &extra) != 3 || !a || !b || !cc)
                return bad("dims", v, "AxBxC, e.g. 16x16x16");
            p.dims[0] = a;
            p.dims[1] = b;
            p.dims[2] = cc;
            break;
        }
        case O_GROUP: rc = u32_opt("group", v, 1, 64, &p.group, "1..64"); break;
        case O_A2A:
            if (hs_parse_size(v, &u) || u > (1ull << 40))
                return bad("a2a-size", v, "bytes (K, M suffixes)");
            p.a2a_size = u;
            break;
        case O_ROOT: rc = u32_opt("root", v, 0, 1u << 30, &p.root, "a rank"); break;
        case O_RSIZE:
            if (hs_parse_size(v, &u) || u > (1ull << 40))
                return bad("reduce-size", v, "bytes");
            p.reduce_size = u;
            break;
        case O_REVERY: rc = u32_opt("reduce-every", v, 0, 1u << 30, &p.reduce_every, "N >= 0"); break;
        case O_OUT: case 'o': out = v; break;
        case O_QUIET: quiet = 1; break;
        case O_NEIGH:
            rc = u32_opt("neighbours", v, 4, 26, &p.neighbours, "4, 6 or 26");
            if (!rc && p.neighbours != 4 && p.neighbours != 6 && p.neighbours != 26)
                return bad("neighbours", v, "4, 6 or 26");
            break;
        case O_NOHALO: p.no_halo = 1; break;
        default:
            return hs__usage_error(CMD, "unknown option or missing value: '%s'", argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (optind != argc)
        return hs__usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (!p.ranks)
        return hs__usage_error(CMD, "give the number of ranks: --ranks N");
    if (!out)
        return hs__usage_error(CMD, "give the trace directory: -o TRACE");
    hs_error err;
    hs_error_clear(&err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = hs_gen_write(&p, out, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&err, rc));
        return rc == HS_EINVAL ? HS_EXIT_USAGE : HS_EXIT_FAIL;
    }
    if (!quiet)
        printf("hopscope: wrote %s: %s, %u ranks, %u iterations, in %.2f s\n", out,
               hs_gen_pattern_name(pat), p.ranks, p.iters,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return HS_EXIT_OK;
}
