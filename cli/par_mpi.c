/* hopscope-par: the hopscope command over MPI, for parallel runs
 * (docs/fabric.md, "Parallel runs"):
 *
 *   mpirun -np N hopscope-par simulate --topo SPEC --packets M [...] -o RUN
 *
 * Every process parses the same command line and builds the same network;
 * the fabric splits it (hs_fabric_partition) and exchanges events through
 * the transport below; rank 0 prints and writes the run directory.  With
 * cli/par_family.c (sweep and whatif as families of runs), the only files
 * that include mpi.h: fabric/ and the rest of the command know the
 * transport as two callbacks. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/fabric.h"
#include "cli.h"

typedef struct mpi_tr {
    MPI_Comm comm;
    int np, me;
    int *scnt, *sdsp, *rcnt, *rdsp;
    unsigned char *sbuf, *rbuf;
    size_t scap, rcap;
} mpi_tr;

static int min_time(void *ctx, hs_time *t)
{
    mpi_tr *m = ctx;
    /* as a signed 64-bit value, HS_TIME_NEVER as the largest: with
     * MPI_UINT64_T under MPICH 4.0.2 (ch4:ucx) runs ended as soon as one
     * process went idle, as if UINT64_MAX were the least; with
     * MPI_LONG_LONG they match Open MPI's and the sequential run */
    long long v = *t >= (hs_time)LLONG_MAX ? LLONG_MAX : (long long)*t;
    if (MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_MIN, m->comm) != MPI_SUCCESS)
        return HS_EIO;
    *t = v == LLONG_MAX ? HS_TIME_NEVER : (hs_time)v;
    return 0;
}

static int grow(unsigned char **b, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 65536;
    while (nc < n)
        nc *= 2;
    unsigned char *x = realloc(*b, nc);
    if (!x)
        return HS_ENOMEM;
    *b = x;
    *cap = nc;
    return 0;
}

static int exchange(void *ctx, const void *const *out, const size_t *outlen, const void **in,
                    size_t *inlen)
{
    mpi_tr *m = ctx;
    size_t tot = 0;
    int bad = 0;
    for (int p = 0; p < m->np; p++) {
        size_t n = p == m->me ? 0 : outlen[p];
        if (n > INT_MAX || tot > (size_t)INT_MAX - n)
            bad = 1;
        m->scnt[p] = bad ? 0 : (int)n;
        m->sdsp[p] = bad ? 0 : (int)tot;
        tot += bad ? 0 : n;
    }
    /* one destination (the gathering of results at part 0: the largest
     * buffers of a run): sent from where it is, without a copy */
    int ndst = 0, dst = 0;
    for (int p = 0; p < m->np; p++)
        if (m->scnt[p]) {
            ndst++;
            dst = p;
        }
    const void *sbuf = m->sbuf;
    if (!bad && ndst == 1) {
        sbuf = out[dst];
        m->sdsp[dst] = 0;
    } else {
        if (!bad && grow(&m->sbuf, &m->scap, tot ? tot : 1))
            bad = 1;
        for (int p = 0; p < m->np && !bad; p++)
            if (m->scnt[p])
                memcpy(m->sbuf + m->sdsp[p], out[p], (size_t)m->scnt[p]);
        sbuf = m->sbuf;
    }
    if (bad)   /* nothing sent; the others see an empty part and this one fails */
        memset(m->scnt, 0, (size_t)m->np * sizeof *m->scnt);
    if (MPI_Alltoall(m->scnt, 1, MPI_INT, m->rcnt, 1, MPI_INT, m->comm) != MPI_SUCCESS)
        return HS_EIO;
    size_t rt = 0;
    for (int p = 0; p < m->np; p++) {
        if (rt > (size_t)INT_MAX - (size_t)m->rcnt[p])
            return HS_ERANGE;
        m->rdsp[p] = (int)rt;
        rt += (size_t)m->rcnt[p];
    }
    if (grow(&m->rbuf, &m->rcap, rt ? rt : 1))
        return HS_ENOMEM;
    if (MPI_Alltoallv(sbuf, m->scnt, m->sdsp, MPI_BYTE, m->rbuf, m->rcnt, m->rdsp, MPI_BYTE,
                      m->comm) != MPI_SUCCESS)
        return HS_EIO;
    *in = m->rbuf;
    *inlen = rt;
    return bad ? HS_ERANGE : 0;
}

/* Frees the transport's buffers, ends MPI and returns rc. */
static int finish(mpi_tr *m, int rc)
{
    free(m->scnt);
    free(m->sdsp);
    free(m->rcnt);
    free(m->rdsp);
    free(m->sbuf);
    free(m->rbuf);
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    /* a run of a sweep: a child process re-executing this program, alone,
     * without MPI (cmd_sweep.c; docs/fabric.md, "Families of runs") */
    if (argc > 2 && strcmp(argv[1], "sweep") == 0 && strcmp(argv[2], "--child") == 0)
        return hs__cli_main(argc, argv);
    MPI_Init(&argc, &argv);
    mpi_tr m;
    memset(&m, 0, sizeof m);
    m.comm = MPI_COMM_WORLD;
    MPI_Comm_size(m.comm, &m.np);
    MPI_Comm_rank(m.comm, &m.me);
    m.scnt = calloc((size_t)m.np, sizeof(int));
    m.sdsp = calloc((size_t)m.np, sizeof(int));
    m.rcnt = calloc((size_t)m.np, sizeof(int));
    m.rdsp = calloc((size_t)m.np, sizeof(int));
    if (!m.scnt || !m.sdsp || !m.rcnt || !m.rdsp) {
        fprintf(stderr, "hopscope-par: out of memory\n");
        MPI_Abort(m.comm, HS_EXIT_FAIL);
    }
    /* simulate, and the families of runs (sweep, whatif: cli/par_family.c),
     * run in parallel; every other command would run once per process,
     * each writing the same files */
    const char *cmd = argc > 1 ? argv[1] : "";
    int help = !strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
               !strcmp(cmd, "--version") || (argc > 1 && hs__wants_help(argc - 1, argv + 1));
    int family = !help && hs__par_family_command(cmd);
    if (help || family || (argc > 2 && !strcmp(cmd, "sweep") && !strcmp(argv[2], "merge"))) {
        int rc = 0;
        if (!help && !strcmp(cmd, "sweep") && argc > 2 && !strcmp(argv[2], "merge")) {
            if (m.me == 0)
                fprintf(stderr, "hopscope-par: 'sweep merge' joins files on one machine: run "
                        "it with hopscope\n");
            rc = HS_EXIT_USAGE;
        } else if (help && m.me == 0) {
            /* one copy of the help, from rank 0 */
            if (argc < 3 && strcmp(cmd, "--version"))
                hs__par_usage(stdout);
            else
                rc = hs__cli_main(argc, argv);
        } else if (family) {
            if (hs__par_family_begin()) {
                fprintf(stderr, "hopscope-par: cannot set up the processes\n");
                MPI_Abort(MPI_COMM_WORLD, HS_EXIT_FAIL);
            }
            rc = hs__cli_main(argc, argv);
            hs__par_family_end();
        }
        int worst = rc;
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, m.comm);
        return finish(&m, worst);
    }
    if (strcmp(cmd, "simulate")) {
        if (m.me == 0)
            fprintf(stderr, "hopscope-par: runs 'simulate', 'sweep' and 'whatif' over MPI "
                    "processes (docs/fabric.md, \"Parallel runs\"; 'hopscope-par --help'); "
                    "run '%s' with hopscope\n", cmd[0] ? cmd : "a command");
        return finish(&m, HS_EXIT_USAGE);
    }
    hs_fabric_transport tr = { min_time, exchange, &m };
    hs__par_transport = &tr;
    hs__par_np = (unsigned)m.np;
    hs__par_rank = (unsigned)m.me;
    int rc = hs__cli_main(argc, argv);
    /* the exit status of the job: the worst of the processes' */
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, m.comm);
    return finish(&m, worst);
}
