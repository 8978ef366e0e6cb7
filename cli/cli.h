/* cli/cli.h — private to the hopscope command.  Each subcommand lives in its
 * own cli/cmd_<name>.c and is listed once in the table in cli/main.c. */
#ifndef HOPSCOPE_CLI_H
#define HOPSCOPE_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "hopscope/common.h"

/* The help of one action of a command (`hopscope trace stats --help`,
 * `hopscope help trace stats`): its usage, options and an example. */
typedef struct hs__subhelp {
    const char *name;                  /* the action's words: "stats", "import smpi" */
    const char *help;
} hs__subhelp;

typedef struct hs__cmd {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;               /* one line for `hopscope help` */
    const char *help;                  /* full text for `hopscope help NAME` */
    const hs__subhelp *subs;           /* its actions' helps, ending with a NULL
                                          name (NULL: no actions) */
} hs__cmd;

/* The command's main (cli/main.c), called by main() in cli/entry.c and by
 * hopscope-par's (cli/par_mpi.c). */
int hs__cli_main(int argc, char **argv);
/* Set by hopscope-par: the MPI transport, the processes and this one's
 * rank; NULL, 1, 0 in hopscope (docs/fabric.md, "Parallel runs"). */
struct hs_fabric_transport;
extern const struct hs_fabric_transport *hs__par_transport;
extern unsigned hs__par_np, hs__par_rank;

/* Families of runs over MPI processes (sweep, whatif under hopscope-par;
 * cli/par_family.c, docs/fabric.md "Families of runs"): NULL in hopscope.
 * Only cli/par_family.c sees MPI; the commands know it by these calls.
 * Rank 0 is the one writer of every shared file. */
typedef struct hs__family {
    unsigned np, rank;
    unsigned jobs;          /* default sweep -j of this process: the node's cores over
                               the processes on it, at most the cores it may run on */
    unsigned local_np;      /* processes on this node */
    void *ctx;
    /* Every process: n bytes from rank 0 (rank 0: sent).  0 or HS_EIO. */
    int (*bcast)(void *ctx, void *buf, size_t n);
    /* Every process: its n bytes to rank 0, which gets np x n in all (rank
     * order; all is NULL elsewhere).  0 or HS_EIO. */
    int (*gather)(void *ctx, const void *mine, size_t n, void *all);
    /* The queue of runs served by rank 0 (a dynamic schedule): rank 0 sets
     * it; next() gives this process its next run (1), or 0 when none is
     * left (rank 0 locally; the others by asking rank 0). */
    int (*queue_set)(void *ctx, const uint64_t *runs, size_t n);
    int (*next)(void *ctx, uint64_t *k);
    /* Rank 0: answers the others' requests for up to ms milliseconds. */
    void (*serve)(void *ctx, unsigned ms);
    /* The others: this process's runs finished, failed (no row) and
     * crashed so far, for rank 0's progress. */
    void (*report)(void *ctx, uint64_t finished, uint64_t failed, uint64_t crashed);
    /* Rank 0: the others' runs handed out and not reported finished, and
     * their finished, failed and crashed runs. */
    void (*remote)(void *ctx, uint64_t *running, uint64_t *finished, uint64_t *failed,
                   uint64_t *crashed);
    /* End of the queue, every process with its exit code and what went
     * wrong (NULL: nothing).  Rank 0 serves until every process has ended
     * and returns the worst code, with "process R (HOST): WHY" of the first
     * failed process in why_out; the others return their own code. */
    int (*end)(void *ctx, int rc, const char *why, char *why_out, size_t n);
    /* The name of process r's node (rank 0 only; "" when unknown). */
    const char *(*host)(void *ctx, unsigned r);
    /* Rank 0: the runs the queue gave process r. */
    uint64_t (*runs_of)(void *ctx, unsigned r);
} hs__family;
extern const hs__family *hs__par_family;
/* hopscope-par (cli/par_family.c): the commands that run as families,
 * its usage text, and setting hs__par_family up / down. */
int hs__par_family_command(const char *cmd);
void hs__par_usage(FILE *f);
int hs__par_family_begin(void);
void hs__par_family_end(void);

/* Exit codes of the hopscope command. */
enum { HS_EXIT_OK = 0, HS_EXIT_FAIL = 1, HS_EXIT_USAGE = 2 };

/* Subcommands, one per cli/cmd_<name>.c, listed in the table in main.c. */
int hs__cmd_demo(int argc, char **argv);
int hs__cmd_run(int argc, char **argv);
extern const char hs__help_run[];
int hs__cmd_topo(int argc, char **argv);
int hs__cmd_simulate(int argc, char **argv);
/* Checks simulate's replay options (argv as for hs__cmd_simulate, without
 * -i) and prints a usage error: 0 or the exit code. */
int hs__cmd_simulate_check(int argc, char **argv);
/* The one description of --bits, for every command that takes it. */
#define HS__HELP_BITS \
    "  --bits B           width of the in-band field: 5 (hop counter c=3, one hash\n" \
    "                     bit), 6 (c=4, b=1; the default), 7 (c=4, b=2) ... 13\n" \
    "                     (c=4, b=8); docs/inband.md.  A hop counter narrower than\n" \
    "                     the longest route is warned about, and its overflowed\n" \
    "                     packets counted\n"
int hs__cmd_analyze(int argc, char **argv);
int hs__cmd_whatif(int argc, char **argv);
int hs__cmd_trace(int argc, char **argv);
int hs__cmd_record(int argc, char **argv);
int hs__cmd_gen(int argc, char **argv);
int hs__cmd_render(int argc, char **argv);
int hs__cmd_sweep(int argc, char **argv);
int hs__cmd_latmodel(int argc, char **argv);
extern const char hs__help_latmodel[];
extern const hs__subhelp hs__subhelp_latmodel[];
int hs__cmd_culprits(int argc, char **argv);
/* Help texts that live beside their subcommand. */
extern const char hs__help_trace[];
extern const hs__subhelp hs__subhelp_trace[];
/* cmd_trace_smpi.c: hopscope trace import smpi (argv[0] = "smpi"); its
 * help is in cmd_trace.c with the other actions'. */
int hs__trace_import_smpi(int argc, char **argv);
extern const char hs__help_record[];
extern const char hs__help_gen[];
extern const char hs__help_render[];
extern const char hs__help_sweep[];
extern const hs__subhelp hs__subhelp_sweep[];
extern const char hs__help_culprits[];

/* cmd_analyze.c: analysis.json and, for a mapping finding, suggested.map. */
struct hs_analysis;
int hs__analysis_save(const struct hs_analysis *a, const char *run, const char *out,
                      const char *map_out, hs_error *err);

/* pipeline.c: record -> simulate -> analyze -> render, for run and demo. */
typedef struct hs__pipe {
    const char *dir;          /* work directory: DIR/trace and DIR/run */
    const char *mpi;          /* record --mpi, or NULL */
    unsigned nodes;           /* HOPSCOPE_NODES for the recording; 0: real hosts */
    const char *topo;         /* NULL: the smallest full fat-tree holding the job */
    const char *map, *ppn, *background, *bits, *seed, *compute_scale, *phases;
    int congestion_impact;    /* with a background: replay with and without it */
    char **launcher;
    int nlauncher;
} hs__pipe;
typedef struct hs__pipe_out {
    char run[4096];           /* the run directory */
    char report[4200];        /* RUN/report.html */
} hs__pipe_out;
int hs__pipe_run(const hs__pipe *p, hs__pipe_out *out);
void hs__print_findings(const struct hs_analysis *an, size_t max);

/* progress.c: stage lines on stderr once a command has run for 2 s (the
 * analyzer's hs_analyze_params.progress hook, and render's stages). */
typedef struct hs__progress {
    const char *cmd;          /* "hopscope analyze" */
    int quiet, shown;
    double t0, last, after;
    char stage[96];
} hs__progress;
void hs__progress_init(hs__progress *p, const char *cmd, int quiet);
void hs__progress_cb(void *ctx, const char *stage, uint64_t done, uint64_t total);
/* "done in N s", if anything was shown. */
void hs__progress_done(hs__progress *p);

const hs__cmd *hs__cmd_find(const char *name);
/* "hopscope ARGV...": the command line as reports record it (call before
 * getopt permutes argv).  Caller frees; NULL on out of memory. */
char *hs__cmd_line(int argc, char **argv);
/* Removes PATH and, if it is a directory, everything below it (no symlink
 * followed); quiet, best effort (temporary run directories). */
void hs__rm_rf(const char *path);
/* Full path of an executable into out: name itself when it has a '/', else
 * the first regular executable file of that name in PATH.  0 or -1. */
int hs__find_exe(const char *name, char *out, size_t n);
/* Directory of the running hopscope executable (/proc/self/exe).  0 or -1. */
int hs__exe_dir(char *buf, size_t n);
/* Prints the subcommand's help to stdout. */
void hs__cmd_help(const hs__cmd *c);
/* True if argv holds -h or --help before a "--". */
int hs__wants_help(int argc, char **argv);
/* Prints "hopscope NAME: <message>" and a hint to stderr; returns HS_EXIT_USAGE. */
int hs__usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
