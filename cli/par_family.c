/* hopscope-par: families of runs over MPI processes (docs/fabric.md,
 * "Families of runs"):
 *
 *   mpirun -np N hopscope-par sweep ...   the runs of a sweep, from a queue
 *                                         served by rank 0
 *   mpirun -np N hopscope-par whatif ...  the counterfactual runs, run i on
 *                                         process (i - 1) mod N
 *
 * The commands (cmd_sweep.c, cmd_whatif.c) know the processes through
 * hs__family (cli.h); this file is its MPI side, and with cli/par_mpi.c the
 * only one that includes mpi.h.  Messages go over a duplicate of
 * MPI_COMM_WORLD, so they never meet the simulate transport's.
 *
 * The queue: every process asks rank 0 for its next run when one of its -j
 * slots frees (a request, one reply: the run or "none left"); rank 0 hands
 * out the runs in index order and answers between looking after its own
 * runs (the sweep's runs are child processes, so rank 0 is free to answer).
 * The others tell rank 0 of every finished run (progress) and, at the end,
 * their exit code and what went wrong. */
#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

#define TAG_UP 7101      /* to rank 0: requests, progress, the end */
#define TAG_DOWN 7102    /* from rank 0: the next run */
#define NONE UINT64_MAX
#define WHY_MAX 600

enum { M_REQ = 1, M_STAT = 2, M_END = 3 };

typedef struct msg {
    int32_t type, rc;
    uint64_t finished, failed, crashed;
    char why[WHY_MAX];
} msg;

typedef struct fam {
    MPI_Comm comm;
    int have_comm;
    int np, me;
    /* rank 0: the queue and what each process did */
    uint64_t *q;
    size_t nq, head;
    uint64_t *handed, *fin, *fail, *crash;
    int *ended, *rcs, nended;
    long nap;                   /* rank 0's sleep between polls, growing while idle */
    char (*whys)[WHY_MAX];
    char (*hosts)[MPI_MAX_PROCESSOR_NAME];
} fam;

static fam the;
static hs__family fam_if;

/* Waits for a request, sleeping between tests: a process waiting for rank
 * 0 (which may be replaying for minutes) must leave the cores to the runs,
 * where a blocking MPI call would spin on one. */
#define NAP_MIN_NS 500000L       /* 0.5 ms */
#define NAP_MAX_NS 16000000L     /* 16 ms: a run takes seconds */

/* Sleeps *nap and doubles it, up to NAP_MAX_NS: a process with nothing to
 * do wakes rarely, one that just had a message soon. */
static void doze(long *nap)
{
    struct timespec ts = { 0, *nap };
    nanosleep(&ts, NULL);
    *nap = *nap * 2 > NAP_MAX_NS ? NAP_MAX_NS : *nap * 2;
}

static int wait_req(MPI_Request *r)
{
    long nap = NAP_MIN_NS;
    for (;;) {
        int done = 0;
        if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HS_EIO;
        if (done)
            return 0;
        doze(&nap);
    }
}

static int f_bcast(void *ctx, void *buf, size_t n)
{
    fam *f = ctx;
    MPI_Request r;
    if (n > (size_t)INT32_MAX || MPI_Ibcast(buf, (int)n, MPI_BYTE, 0, f->comm, &r) != MPI_SUCCESS)
        return HS_EIO;
    return wait_req(&r);
}

static int f_gather(void *ctx, const void *mine, size_t n, void *all)
{
    fam *f = ctx;
    MPI_Request r;
    if (n > (size_t)INT32_MAX ||
        MPI_Igather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, 0, f->comm, &r) !=
        MPI_SUCCESS)
        return HS_EIO;
    return wait_req(&r);
}

/* Every process here; the others sleep until rank 0 comes. */
static void sleepy_barrier(fam *f)
{
    MPI_Request r;
    if (MPI_Ibarrier(f->comm, &r) == MPI_SUCCESS)
        wait_req(&r);
}

static int f_queue_set(void *ctx, const uint64_t *runs, size_t n)
{
    fam *f = ctx;
    free(f->q);
    f->q = malloc((n ? n : 1) * sizeof *f->q);
    if (!f->q)
        return HS_ENOMEM;
    if (n)
        memcpy(f->q, runs, n * sizeof *runs);
    f->nq = n;
    f->head = 0;
    return 0;
}

static void handle(fam *f, const msg *m, int src)
{
    if (m->type == M_REQ) {
        uint64_t k = f->head < f->nq ? f->q[f->head++] : NONE;
        if (k != NONE)
            f->handed[src]++;
        MPI_Send(&k, 1, MPI_UINT64_T, src, TAG_DOWN, f->comm);
        return;
    }
    if (m->type == M_STAT) {
        f->fin[src] = m->finished;
        f->fail[src] = m->failed;
        f->crash[src] = m->crashed;
    }
    if (m->type == M_END && !f->ended[src]) {
        f->ended[src] = 1;
        f->nended++;
        f->rcs[src] = m->rc;
        snprintf(f->whys[src], WHY_MAX, "%.*s", WHY_MAX - 1, m->why);
    }
}

static void f_serve(void *ctx, unsigned ms)
{
    fam *f = ctx;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_UP, f->comm, &flag, &st) != MPI_SUCCESS)
            return;
        if (flag) {
            msg m;
            memset(&m, 0, sizeof m);
            MPI_Recv(&m, (int)sizeof m, MPI_BYTE, st.MPI_SOURCE, TAG_UP, f->comm,
                     MPI_STATUS_IGNORE);
            m.why[WHY_MAX - 1] = 0;
            handle(f, &m, st.MPI_SOURCE);
            f->nap = NAP_MIN_NS;
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        double el = (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
        if (el >= ms)
            return;
        doze(&f->nap);
    }
}

static int f_next(void *ctx, uint64_t *k)
{
    fam *f = ctx;
    if (f->me == 0) {
        if (f->head >= f->nq)
            return 0;
        *k = f->q[f->head++];
        f->handed[0]++;
        return 1;
    }
    msg m;
    memset(&m, 0, sizeof m);
    m.type = M_REQ;
    uint64_t got;
    if (MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_UP, f->comm) != MPI_SUCCESS ||
        MPI_Recv(&got, 1, MPI_UINT64_T, 0, TAG_DOWN, f->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return HS_EIO;
    if (got == NONE)
        return 0;
    *k = got;
    return 1;
}

static void f_report(void *ctx, uint64_t finished, uint64_t failed, uint64_t crashed)
{
    fam *f = ctx;
    if (f->me == 0)
        return;
    msg m;
    memset(&m, 0, sizeof m);
    m.type = M_STAT;
    m.finished = finished;
    m.failed = failed;
    m.crashed = crashed;
    MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_UP, f->comm);
}

static void f_remote(void *ctx, uint64_t *running, uint64_t *finished, uint64_t *failed,
                     uint64_t *crashed)
{
    fam *f = ctx;
    *running = *finished = *failed = *crashed = 0;
    for (int r = 1; f->me == 0 && r < f->np; r++) {
        *running += f->handed[r] > f->fin[r] ? f->handed[r] - f->fin[r] : 0;
        *finished += f->fin[r];
        *failed += f->fail[r];
        *crashed += f->crash[r];
    }
}

static uint64_t f_runs_of(void *ctx, unsigned r)
{
    fam *f = ctx;
    return f->me == 0 && r < (unsigned)f->np ? f->handed[r] : 0;
}

static const char *f_host(void *ctx, unsigned r)
{
    fam *f = ctx;
    return f->me == 0 && r < (unsigned)f->np ? f->hosts[r] : "";
}

static int f_end(void *ctx, int rc, const char *why, char *why_out, size_t n)
{
    fam *f = ctx;
    if (n)
        why_out[0] = 0;
    if (f->me != 0) {
        msg m;
        memset(&m, 0, sizeof m);
        m.type = M_END;
        m.rc = rc;
        if (why)
            snprintf(m.why, sizeof m.why, "%s", why);
        MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_UP, f->comm);
        sleepy_barrier(f);
        return rc;
    }
    f->rcs[0] = rc;
    snprintf(f->whys[0], WHY_MAX, "%s", why ? why : "");
    while (f->nended < f->np - 1)
        f_serve(f, 50);
    sleepy_barrier(f);
    int worst = 0, first = -1;
    for (int r = 0; r < f->np; r++) {
        if (f->rcs[r] > worst)
            worst = f->rcs[r];
        if (f->rcs[r] && first < 0)
            first = r;
    }
    if (first >= 0 && n)
        snprintf(why_out, n, "process %d of %d (%s): %s", first, f->np, f->hosts[first],
                 f->whys[first][0] ? f->whys[first] : "failed (see its messages above)");
    return worst;
}

/* The default -j of a sweep on this process: the node's cores shared among
 * the processes on it, and no more than the cores this process may run on
 * (mpirun's binding, which the runs inherit); at least 1. */
static unsigned default_jobs(unsigned local_np)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cores = c > 0 ? (unsigned)c : 1;
    unsigned j = cores / (local_np ? local_np : 1);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        unsigned a = (unsigned)CPU_COUNT(&set);
        if (a && a < j)
            j = a;
    }
    return j ? j : 1;
}

int hs__par_family_command(const char *cmd)
{
    return strcmp(cmd, "sweep") == 0 || strcmp(cmd, "whatif") == 0;
}

void hs__par_usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N hopscope-par simulate --topo SPEC --packets M [...] -o RUN\n"
            "       mpirun -np N hopscope-par simulate -i TRACE --topo SPEC [...] -o RUN\n"
            "       mpirun -np N hopscope-par sweep -i TRACE --topo SPEC -o DIR [...]\n"
            "       mpirun -np N hopscope-par whatif RUN --map MAP|suggested [--no-background]\n"
            "       hopscope-par help COMMAND\n"
            "\n"
            "The hopscope command over MPI processes (docs/fabric.md, \"Parallel runs\"),\n"
            "with the same options and byte-identical outputs:\n"
            "  simulate   one run, its network split over the processes: synthetic\n"
            "             traffic (--packets mode), or the replay of a trace (-i; each\n"
            "             rank on the process of its node; no --background, no\n"
            "             one-sided communication; a network deadlock fails: replay it\n"
            "             with hopscope for its cycle)\n"
            "  sweep      the runs of the sweep spread over the processes: each asks\n"
            "             rank 0 for its next run (a queue), runs it as one of its -j\n"
            "             children (default: the node's cores over its processes, at\n"
            "             most the cores mpirun bound it to), and rank 0 alone writes\n"
            "             plan.csv, sweep.csv and failed.csv; DIR must be a directory\n"
            "             every process sees (a shared file system)\n"
            "  whatif     the counterfactual runs spread over the processes (run i on\n"
            "             process (i-1) mod N); rank 0 prints the comparison\n"
            "Every other command runs on one machine: use hopscope.  A failure in any\n"
            "process fails the command, named by rank 0, and leaves the previous\n"
            "results (or none) at the final paths.\n");
}

int hs__par_family_begin(void)
{
    fam *f = &the;
    memset(f, 0, sizeof *f);
    if (MPI_Comm_dup(MPI_COMM_WORLD, &f->comm) != MPI_SUCCESS)
        return HS_EIO;
    f->have_comm = 1;
    f->nap = NAP_MIN_NS;
    MPI_Comm_size(f->comm, &f->np);
    MPI_Comm_rank(f->comm, &f->me);
    MPI_Comm local;
    int lnp = 1;
    if (MPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
        MPI_Comm_size(local, &lnp);
        MPI_Comm_free(&local);
    }
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);
    size_t np = (size_t)f->np;
    if (f->me == 0) {
        f->handed = calloc(np, sizeof *f->handed);
        f->fin = calloc(np, sizeof *f->fin);
        f->fail = calloc(np, sizeof *f->fail);
        f->crash = calloc(np, sizeof *f->crash);
        f->ended = calloc(np, sizeof *f->ended);
        f->rcs = calloc(np, sizeof *f->rcs);
        f->whys = calloc(np, sizeof *f->whys);
        f->hosts = calloc(np, sizeof *f->hosts);
    }
    int ok = f->me != 0 || (f->handed && f->fin && f->fail && f->crash && f->ended && f->rcs &&
                            f->whys && f->hosts);
    if (MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, f->me == 0 && ok ? f->hosts : NULL,
                   MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, f->comm) != MPI_SUCCESS)
        ok = 0;
    if (!ok) {
        hs__par_family_end();
        return HS_ENOMEM;
    }
    hs__family *F = &fam_if;
    memset(F, 0, sizeof *F);
    F->np = (unsigned)f->np;
    F->rank = (unsigned)f->me;
    F->local_np = (unsigned)lnp;
    F->jobs = default_jobs((unsigned)lnp);
    F->ctx = f;
    F->bcast = f_bcast;
    F->gather = f_gather;
    F->queue_set = f_queue_set;
    F->next = f_next;
    F->serve = f_serve;
    F->report = f_report;
    F->remote = f_remote;
    F->end = f_end;
    F->host = f_host;
    F->runs_of = f_runs_of;
    hs__par_family = F;
    return 0;
}

void hs__par_family_end(void)
{
    fam *f = &the;
    hs__par_family = NULL;
    free(f->q);
    free(f->handed);
    free(f->fin);
    free(f->fail);
    free(f->crash);
    free(f->ended);
    free(f->rcs);
    free(f->whys);
    free(f->hosts);
    if (f->have_comm)
        MPI_Comm_free(&f->comm);
    memset(f, 0, sizeof *f);
}
