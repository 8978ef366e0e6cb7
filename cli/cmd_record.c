/* hopscope record [-o DIR] -- LAUNCHER ARGS...: runs any MPI launcher with
 * libhopscope.so preloaded into every rank, then says where the trace is.
 *
 * Which libhopscope.so (Open MPI or MPICH build) follows from the launcher:
 * its name after resolving symlinks (/etc/alternatives), or for srun and
 * unknown launchers the MPI library the application binary links (ldd).
 * The library and the settings reach the ranks the way each launcher
 * forwards environment variables: Open MPI's -x, MPICH hydra's -genv,
 * Slurm's --export; anything else gets them through the environment it
 * inherits. */
#include "cli.h"
#include "hopscope/trace.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char hs__help_record[] =
    "usage: hopscope record [-o DIR] [--mpi openmpi|mpich] [--wire] [--wire-protocol] [--force]\n"
    "                       -- LAUNCHER "
    "[ARGS...]\n"
    "\n"
    "Runs an MPI launcher (mpirun, mpirun.openmpi, mpirun.mpich, mpiexec, srun, ...)\n"
    "with libhopscope.so preloaded into every rank of the unmodified application\n"
    "(C, C++ or Fortran; Open MPI or MPICH), then prints where the trace is and a\n"
    "one-line summary.  The exit status is the launcher's.\n"
    "\n"
    "  -o, --output DIR  trace directory (default hopscope-trace-YYYYMMDD-HHMMSS)\n"
    "  --mpi NAME        openmpi or mpich: which build of libhopscope.so to use\n"
    "                    (default: from the launcher, or from the libraries the\n"
    "                    application links for srun and unknown launchers)\n"
    "  --force           overwrite DIR if it already holds a trace\n"
    "  --wire            also capture below MPI: preload libhopscope-wire.so, which\n"
    "                    records every UCX (UCP) operation the MPI library makes\n"
    "                    (tag sends and receives, RDMA put/get, atomics, active\n"
    "                    messages, flushes), or every libfabric operation (Open\n"
    "                    MPI's mtl ofi), into wire-NNNNNN.hst beside the rank\n"
    "                    files; 'trace stats --wire' and 'simulate --wire' read\n"
    "                    them (docs/wire.md).  Open MPI needs --mca pml ucx (and\n"
    "                    here --mca pml_ucx_tls any --mca pml_ucx_devices any)\n"
    "  --wire-protocol   --wire, and ask UCX which protocol (eager, rendezvous put\n"
    "                    or get) each send that completes through its callback\n"
    "                    used ('trace stats --wire' counts them).  It costs about\n"
    "                    0.6 us per such send (UCX formats a description), so it\n"
    "                    is off by default; same as HOPSCOPE_WIRE_PROTOCOL=1\n"
    "\n"
    "Example:\n"
    "  hopscope record -o ring.trace -- mpirun -np 8 ./ring 100\n"
    "  hopscope trace stats ring.trace\n"
    "\n"
    "Settings (environment variables, passed on to every rank):\n"
    "  HOPSCOPE_SAMPLE_RATE  fraction of messages that carry the in-band field,\n"
    "                        0..1 (default 1: all); chosen per message by a\n"
    "                        seeded hash of (source, destination, sequence)\n"
    "  HOPSCOPE_SEED         seed of that choice (default 0)\n"
    "  HOPSCOPE_NODES        place ranks on N virtual nodes instead of their real\n"
    "                        hosts; MPI_Get_processor_name and\n"
    "                        MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) then answer\n"
    "                        per virtual node, so node-aware codes behave as on N\n"
    "                        nodes\n"
    "  HOPSCOPE_NODE_MAP     block (default) or cyclic, or a file with the node\n"
    "                        index of rank 0, 1, ... (whitespace-separated)\n"
    "  HOPSCOPE_BUFFER       raw event buffer per thread (default 512K; 64K..1G)\n"
    "  HOPSCOPE_FLUSH_INTERVAL  seconds between flushes at most (default 1), so\n"
    "                        a killed run loses at most that much\n"
    "  HOPSCOPE_ZLEVEL       deflate level 0..9 of the event structure (default 1)\n"
    "  HOPSCOPE_TIME_ZLEVEL  deflate level 0..9 of the event times (default 0:\n"
    "                        stored; 1 shrinks the trace by up to half at about\n"
    "                        15 ns more per event)\n"
    "  HOPSCOPE_CLOCK        tsc or monotonic (default tsc when invariant and\n"
    "                        trusted by the kernel)\n"
    "  HOPSCOPE_DISABLE      1: pass every call through, record nothing\n"
    "  HOPSCOPE_VERBOSE      1: rank 0 says where it records\n"
    "  HOPSCOPE_MPI          same as --mpi\n"
    "  HOPSCOPE_LIB          path of the libhopscope.so to preload\n"
    "  HOPSCOPE_WIRE_LIB     path of the libhopscope-wire.so --wire preloads\n"
    "  HOPSCOPE_WIRE_PROTOCOL  1: same as --wire-protocol\n"
    "Without 'hopscope record', preload the library yourself and set HOPSCOPE_DIR:\n"
    "  mpirun.openmpi -x LD_PRELOAD=$PREFIX/lib/openmpi/libhopscope.so \\\n"
    "                 -x HOPSCOPE_DIR=trace -np 4 ./app\n"
    "  mpirun.mpich -genv LD_PRELOAD $PREFIX/lib/mpich/libhopscope.so \\\n"
    "               -genv HOPSCOPE_DIR trace -np 4 ./app\n"
    "  srun --export=ALL,LD_PRELOAD=$PREFIX/lib/openmpi/libhopscope.so,HOPSCOPE_DIR=trace ./app\n";

enum launcher { L_UNKNOWN, L_OPENMPI, L_MPICH, L_SRUN };

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Kind of launcher from its resolved name. */
static enum launcher classify(const char *exe, char *resolved, size_t n)
{
    char path[PATH_MAX];
    snprintf(resolved, n, "%s", exe);
    if (hs__find_exe(exe, path, sizeof path) == 0 && realpath(path, resolved) == NULL)
        snprintf(resolved, n, "%s", path);
    const char *b = base(resolved), *b0 = base(exe);
    if (strstr(b, "openmpi") || strcmp(b, "orterun") == 0 || strcmp(b, "prterun") == 0 ||
        strstr(b0, "openmpi"))
        return L_OPENMPI;
    if (strstr(b, "mpich") || strstr(b, "hydra") || strstr(b0, "mpich"))
        return L_MPICH;
    if (strcmp(b, "srun") == 0 || strcmp(b0, "srun") == 0)
        return L_SRUN;
    return L_UNKNOWN;
}

/* For srun and unknown launchers: the first argument that is an ELF
 * executable is taken for the application; ldd says which MPI it links. */
static const char *mpi_of_app(char **args, int n, char *app, size_t appn)
{
    for (int i = 1; i < n; i++) {
        char path[PATH_MAX];
        if (args[i][0] == '-' || hs__find_exe(args[i], path, sizeof path) != 0)
            continue;
        FILE *f = fopen(path, "rb");
        unsigned char magic[4] = { 0 };
        size_t got = f ? fread(magic, 1, 4, f) : 0;
        if (f)
            fclose(f);
        if (got != 4 || memcmp(magic, "\177ELF", 4) != 0)
            continue;
        snprintf(app, appn, "%s", path);
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof cmd, "ldd '%s' 2>/dev/null", path);
        FILE *p = popen(cmd, "r");
        if (!p)
            return NULL;
        char line[1024];
        const char *found = NULL;
        while (fgets(line, sizeof line, p)) {
            if (!found && strstr(line, "libmpich"))
                found = "mpich";
            else if (!found && strstr(line, "libmpi.so"))
                found = "openmpi";
        }
        pclose(p);
        return found;
    }
    return NULL;
}

/* libhopscope.so for mpi: HOPSCOPE_LIB, else next to this executable
 * (../lib/<mpi>/libhopscope.so in the build tree and after make install). */
static int find_lib(const char *mpi, char *out, size_t n)
{
    if (n < PATH_MAX)   /* realpath writes up to PATH_MAX bytes */
        return -1;
    const char *env = getenv("HOPSCOPE_LIB");
    if (env && *env) {
        if (realpath(env, out) == NULL)
            return -1;
        return 0;
    }
    char self[PATH_MAX];
    if (hs__exe_dir(self, sizeof self))
        return -1;
    char cand[PATH_MAX + 64];
    snprintf(cand, sizeof cand, "%s/../lib/%s/libhopscope.so", self, mpi);
    if (realpath(cand, out) == NULL)
        return -1;
    return 0;
}

/* The settings the library reads, checked here so that a typo stops the
 * run before it starts instead of being warned about by every rank. */
static int check_settings(void)
{
    const char *v;
    double d;
    uint64_t u;
    if ((v = getenv("HOPSCOPE_SAMPLE_RATE")) &&
        (hs_parse_double(v, &d) != 0 || d < 0 || d > 1))
        return hs__usage_error("record", "HOPSCOPE_SAMPLE_RATE=%s: must be a number in [0, 1]", v);
    if ((v = getenv("HOPSCOPE_SEED")) && hs_parse_u64(v, &u) != 0)
        return hs__usage_error("record", "HOPSCOPE_SEED=%s: must be an integer", v);
    if ((v = getenv("HOPSCOPE_NODES")) && (hs_parse_u64(v, &u) != 0 || u == 0 || u > (1u << 24)))
        return hs__usage_error("record", "HOPSCOPE_NODES=%s: must be a positive integer", v);
    if ((v = getenv("HOPSCOPE_NODE_MAP")) && strcmp(v, "block") != 0 &&
        strcmp(v, "cyclic") != 0 && access(v, R_OK) != 0)
        return hs__usage_error("record", "HOPSCOPE_NODE_MAP=%s: not block, cyclic or a "
                               "readable file", v);
    if ((v = getenv("HOPSCOPE_BUFFER")) &&
        (hs_parse_size(v, &u) != 0 || u < (64u << 10) || u > (1ull << 30)))
        return hs__usage_error("record", "HOPSCOPE_BUFFER=%s: must be a size from 64K to 1G", v);
    if ((v = getenv("HOPSCOPE_FLUSH_INTERVAL")) &&
        (hs_parse_double(v, &d) != 0 || d <= 0 || d > 3600))
        return hs__usage_error("record", "HOPSCOPE_FLUSH_INTERVAL=%s: seconds in (0, 3600]", v);
    if ((v = getenv("HOPSCOPE_ZLEVEL")) && (hs_parse_u64(v, &u) != 0 || u > 9))
        return hs__usage_error("record", "HOPSCOPE_ZLEVEL=%s: must be 0..9", v);
    if ((v = getenv("HOPSCOPE_TIME_ZLEVEL")) && (hs_parse_u64(v, &u) != 0 || u > 9))
        return hs__usage_error("record", "HOPSCOPE_TIME_ZLEVEL=%s: must be 0..9", v);
    if ((v = getenv("HOPSCOPE_CLOCK")) && strcmp(v, "tsc") != 0 && strcmp(v, "monotonic") != 0)
        return hs__usage_error("record", "HOPSCOPE_CLOCK=%s: tsc or monotonic", v);
    return 0;
}

/* Removes a previous trace in dir (manifest and rank files only). */
static int clear_trace(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        int rankfile = (strncmp(e->d_name, "rank-", 5) == 0 ||
                        strncmp(e->d_name, "wire-", 5) == 0) && n > 4 &&
                       strcmp(e->d_name + n - 4, ".hst") == 0;
        if (!rankfile && strcmp(e->d_name, "manifest.txt") != 0)
            continue;
        char p[PATH_MAX + 300];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

static pid_t child = -1;

/* Passes a TERM or HUP on to the launcher, unless it came from a member of
 * our own process group (timeout(1), kill -- -PGID): then the launcher got
 * it too, and a second one makes Open MPI's mpirun kill the ranks with
 * SIGKILL before they can close their traces. */
static void forward(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (child <= 0)
        return;
    if (si && si->si_code == SI_USER && si->si_pid > 0 && getpgid(si->si_pid) == getpgrp())
        return;
    kill(child, sig);
}

static void summary(const char *dir)
{
    hs_error err;
    hs_trace *t;
    int rc = hs_trace_open(dir, &t, &err);
    if (rc) {
        fprintf(stderr, "hopscope record: no readable trace in %s: %s\n", dir,
                hs_error_str(&err, rc));
        if (rc == HS_ENOENT)
            fprintf(stderr, "hopscope record: the application never reached MPI_Init with "
                            "libhopscope.so preloaded (is it an MPI program of the MPI "
                            "chosen? see 'hopscope help record')\n");
        return;
    }
    hs_trace_stats *s;
    rc = hs_trace_stats_compute(t, &s, &err);
    if (rc) {
        fprintf(stderr, "hopscope record: trace in %s is damaged: %s\n", dir,
                hs_error_str(&err, rc));
        hs_trace_close(t);
        return;
    }
    const hs_trace_rankstat *x = &s->total;
    uint32_t nn = hs_trace_get_manifest(t)->nnodes;
    printf("hopscope: trace in %s: %u rank%s on %u node%s, %" PRIu64 " events, %" PRIu64
           " messages (%" PRIu64 " bytes), %" PRIu64 " collective calls, %" PRIu64
           " one-sided operations, %.3f s; %s\n",
           dir, s->nranks, s->nranks == 1 ? "" : "s", nn, nn == 1 ? "" : "s", x->events, x->sent_messages,
           x->sent_bytes, x->coll_calls, x->rma_ops, (double)(x->t_last - x->t_first) * 1e-9,
           s->incomplete_ranks ? "INCOMPLETE (see 'hopscope trace stats')" : "complete");
    if (s->incomplete_ranks)
        fprintf(stderr, "hopscope record: %" PRIu64 " of %u rank files have no end record "
                        "(killed, or the disk filled up); they are readable up to their last "
                        "flushed block\n",
                s->incomplete_ranks, s->nranks);
    hs_trace_stats_free(s);
    hs_trace_close(t);
}

int hs__cmd_record(int argc, char **argv)
{
    const char *out = NULL, *mpi = getenv("HOPSCOPE_MPI");
    int force = 0, wire = 0;
    static const struct option lo[] = { { "output", required_argument, 0, 'o' },
                                         { "mpi", required_argument, 0, 'm' },
                                         { "force", no_argument, 0, 'f' },
                                         { "wire", no_argument, 0, 'w' },
                                         { "wire-protocol", no_argument, 0, 'p' },
                                         { 0, 0, 0, 0 } };
    int c;
    optind = 1;
    /* '+': stop at the first non-option so the launcher's options stay its own. */
    while ((c = getopt_long(argc, argv, "+o:", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'm': mpi = optarg; break;
        case 'f': force = 1; break;
        case 'w': wire = 1; break;
        case 'p':
            wire = 1;
            setenv("HOPSCOPE_WIRE_PROTOCOL", "1", 1);   /* passed on with HOPSCOPE_* */
            break;
        default: return hs__usage_error("record", "unknown option");
        }
    }
    if (optind >= argc)
        return hs__usage_error("record", "missing the launcher command (after --)");
    char **cmd = argv + optind;
    int ncmd = argc - optind;
    if (mpi && *mpi && strcmp(mpi, "openmpi") != 0 && strcmp(mpi, "mpich") != 0)
        return hs__usage_error("record", "--mpi/HOPSCOPE_MPI must be openmpi or mpich, not '%s'",
                               mpi);
    if (check_settings())
        return HS_EXIT_USAGE;

    char resolved[PATH_MAX], app[PATH_MAX] = "";
    enum launcher kind = classify(cmd[0], resolved, sizeof resolved);
    if (!mpi || !*mpi) {
        if (kind == L_OPENMPI)
            mpi = "openmpi";
        else if (kind == L_MPICH)
            mpi = "mpich";
        else
            mpi = mpi_of_app(cmd, ncmd, app, sizeof app);
        if (!mpi) {
            fprintf(stderr, "hopscope record: cannot tell which MPI '%s' runs (%s); use --mpi "
                            "openmpi|mpich\n", cmd[0],
                    app[0] ? "the application links neither libmpi nor libmpich"
                           : "no application binary found among its arguments");
            return HS_EXIT_USAGE;
        }
    }
    char lib[PATH_MAX];
    if (find_lib(mpi, lib, sizeof lib) != 0) {
        fprintf(stderr, "hopscope record: no libhopscope.so for %s (looked for %s, or "
                        "../lib/%s/libhopscope.so beside the hopscope executable); build it "
                        "with 'make' (needs the %s development files)\n", mpi,
                getenv("HOPSCOPE_LIB") ? getenv("HOPSCOPE_LIB") : "HOPSCOPE_LIB", mpi, mpi);
        return HS_EXIT_FAIL;
    }

    /* --wire: libhopscope-wire.so beside the MPI build's directory
     * (../lib/libhopscope-wire.so from the executable), after libhopscope.so. */
    char wlib[PATH_MAX] = "";
    if (wire) {
#if HS_HAVE_UCX
        char self[PATH_MAX], cand[PATH_MAX + 64];
        const char *env = getenv("HOPSCOPE_WIRE_LIB");
        if (env && *env)
            snprintf(cand, sizeof cand, "%s", env);
        else if (hs__exe_dir(self, sizeof self) == 0)
            snprintf(cand, sizeof cand, "%s/../lib/libhopscope-wire.so", self);
        else
            cand[0] = 0;
        if (!cand[0] || realpath(cand, wlib) == NULL) {
            fprintf(stderr, "hopscope record: --wire: no libhopscope-wire.so (looked for %s); "
                            "build it with 'make'\n", cand);
            return HS_EXIT_FAIL;
        }
#else
        fprintf(stderr, "hopscope record: --wire needs UCX: install libucx-dev and rebuild\n");
        return HS_EXIT_FAIL;
#endif
    }

    /* The trace directory, absolute (ranks may start elsewhere). */
    char dflt[64], dir[PATH_MAX];
    if (!out) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(dflt, sizeof dflt, "hopscope-trace-%Y%m%d-%H%M%S", &tm);
        out = dflt;
    }
    hs_error err;
    if (hs_mkdir_p(out, &err) != 0) {
        fprintf(stderr, "hopscope record: %s\n", err.msg);
        return HS_EXIT_FAIL;
    }
    if (!realpath(out, dir)) {
        fprintf(stderr, "hopscope record: %s: %s\n", out, strerror(errno));
        return HS_EXIT_FAIL;
    }
    char man[PATH_MAX + 32];
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    if (access(man, F_OK) == 0) {
        if (!force) {
            fprintf(stderr, "hopscope record: %s already holds a trace; use --force to "
                            "overwrite it or -o to choose another directory\n", dir);
            return HS_EXIT_USAGE;
        }
        if (clear_trace(dir) != 0) {
            fprintf(stderr, "hopscope record: cannot clear %s\n", dir);
            return HS_EXIT_FAIL;
        }
    }

    /* LD_PRELOAD for the ranks: ours first, then whatever was there. */
    char preload[3 * PATH_MAX + 8];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s%s%s", lib, wlib[0] ? ":" : "", wlib,
             old && *old ? ":" : "", old ? old : "");
    setenv("HOPSCOPE_DIR", dir, 1);

    /* The launcher's argv with the forwarding options right after its name. */
    extern char **environ;
    int nset = 0;
    for (char **e = environ; *e; e++)
        nset += strncmp(*e, "HOPSCOPE_", 9) == 0;
    char **nargv = calloc((size_t)ncmd + 3 * (size_t)nset + 8, sizeof *nargv);
    char **owned = calloc((size_t)nset + 4, sizeof *owned);
    if (!nargv || !owned) {
        free(nargv);
        free(owned);
        fprintf(stderr, "hopscope record: out of memory\n");
        return HS_EXIT_FAIL;
    }
    int k = 0, no = 0;
    nargv[k++] = cmd[0];
    char pre_kv[sizeof preload + 16];
    snprintf(pre_kv, sizeof pre_kv, "LD_PRELOAD=%s", preload);
    if (kind == L_OPENMPI) {
        nargv[k++] = "-x";
        nargv[k++] = pre_kv;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "HOPSCOPE_", 9) != 0)
                continue;
            nargv[k++] = "-x";
            nargv[k++] = *e;   /* NAME=VALUE */
        }
    } else if (kind == L_MPICH) {
        nargv[k++] = "-genv";
        nargv[k++] = "LD_PRELOAD";
        nargv[k++] = preload;
        for (char **e = environ; *e; e++) {
            char *eq = strchr(*e, '=');
            if (strncmp(*e, "HOPSCOPE_", 9) != 0 || !eq)
                continue;
            char *name = strndup(*e, (size_t)(eq - *e));
            if (!name)
                continue;
            owned[no++] = name;
            nargv[k++] = "-genv";
            nargv[k++] = name;
            nargv[k++] = eq + 1;
        }
    } else if (kind == L_SRUN) {
        size_t len = strlen("--export=ALL,") + strlen(pre_kv) + 1;
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "HOPSCOPE_", 9) == 0)
                len += strlen(*e) + 1;
        char *ex = malloc(len);
        if (ex) {
            strcpy(ex, "--export=ALL,");
            strcat(ex, pre_kv);
            for (char **e = environ; *e; e++)
                if (strncmp(*e, "HOPSCOPE_", 9) == 0) {
                    strcat(ex, ",");
                    strcat(ex, *e);
                }
            owned[no++] = ex;
            nargv[k++] = ex;
        }
    } else {
        fprintf(stderr, "hopscope record: '%s' is not a launcher hopscope knows; preloading "
                        "through the environment it passes on\n", cmd[0]);
        setenv("LD_PRELOAD", preload, 1);
    }
    for (int i = 1; i < ncmd; i++)
        nargv[k++] = cmd[i];
    nargv[k] = NULL;

    fflush(stdout);
    fflush(stderr);
    child = fork();
    if (child < 0) {
        fprintf(stderr, "hopscope record: fork: %s\n", strerror(errno));
        return HS_EXIT_FAIL;
    }
    if (child == 0) {
        execvp(nargv[0], nargv);
        fprintf(stderr, "hopscope record: cannot run '%s': %s\n", nargv[0], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C reaches the launcher through the terminal's process group; a
     * TERM or HUP sent to hopscope alone is passed on.  Either way hopscope
     * stays to summarise what was recorded. */
    struct sigaction sa, oint, oterm, ohup;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &oterm);
    sigaction(SIGHUP, &sa, &ohup);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, &oint);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGTERM, &oterm, NULL);
    sigaction(SIGHUP, &ohup, NULL);
    sigaction(SIGINT, &oint, NULL);
    for (int i = 0; i < no; i++)
        free(owned[i]);
    free(owned);
    free(nargv);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status)
                               : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : HS_EXIT_FAIL;
    if (rc != 0)
        fprintf(stderr, "hopscope record: '%s' exited with status %d\n", cmd[0], rc);
    summary(dir);
    return rc;
}
