/* The record -> simulate -> analyze -> render pipeline shared by
 * `hopscope run` and `hopscope demo`.  Each step calls the subcommand itself
 * (same options, same output, same errors as when run by hand), so the
 * pipeline only chooses arguments and the layout of the work directory:
 *     DIR/trace   the recorded trace
 *     DIR/run     the run directory, analysis.json, report.html, *.svg */
#include "cli.h"
#include "hopscope/analyzer.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"
#include "hopscope/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- argv builder ------------------------------------------------------------ */

enum { ARGV_MAX = 256 };
typedef struct argvb {
    char *v[ARGV_MAX + 1];
    int n;
} argvb;

static void add(argvb *a, const char *s)
{
    if (a->n < ARGV_MAX)
        a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
}

/* Adds "--opt value" when value is set. */
static void add_opt(argvb *a, const char *opt, const char *value)
{
    if (value) {
        add(a, opt);
        add(a, value);
    }
}

/* Prints the step's command line, as a user would type it. */
static void show(const argvb *a)
{
    printf("      $ hopscope");
    for (int i = 0; i < a->n; i++)
        printf(" %s", a->v[i]);
    printf("\n");
    fflush(stdout);
}

/* ---- automatic machine ---------------------------------------------------------- */

/* The nodes the replay will use (same rule as `simulate`: --ppn, else the
 * trace's virtual nodes, else one rank per node) and the smallest full
 * fat-tree holding them: 2 levels (k^2 nodes) up to k = 32, then 3. */
static int auto_topology(const char *trace, const char *ppn, char *spec, size_t n)
{
    hs_trace_manifest m;
    hs_error err;
    int rc = hs_trace_manifest_read(trace, &m, &err);
    if (rc) {
        fprintf(stderr, "hopscope: %s\n", hs_error_str(&err, rc));
        return rc;
    }
    uint64_t per;
    if (!ppn || hs_parse_u64(ppn, &per) || per == 0)
        per = hs_replay_default_ppn(&m);   /* simulate's rule */
    uint64_t nodes = (m.nranks + per - 1) / per;
    hs_trace_manifest_free(&m);
    unsigned k = 4;
    while ((uint64_t)k * k < nodes && k < 32)
        k += 2;
    if ((uint64_t)k * k >= nodes) {
        snprintf(spec, n, "fattree:k=%u,n=2", k);
        return 0;
    }
    for (k = 4; (uint64_t)k * k * k < nodes && k < 64; k += 2)
        ;
    snprintf(spec, n, "fattree:k=%u,n=3", k);
    return 0;
}

/* ---- checking the options of every step ---------------------------------------------- */

/* simulate's options exactly as step 2 will pass them (the trace and the
 * automatic topology do not exist yet), and analyze's phases file. */
static int check_steps(const hs__pipe *p)
{
    /* record's one option of its own, by record's rule */
    const char *mpi = p->mpi ? p->mpi : getenv("HOPSCOPE_MPI");
    if (mpi && *mpi && strcmp(mpi, "openmpi") != 0 && strcmp(mpi, "mpich") != 0)
        return hs__usage_error("record", "--mpi/HOPSCOPE_MPI must be openmpi or mpich, not '%s'",
                               mpi);
    argvb a = {.n = 0};
    add(&a, "simulate");
    add_opt(&a, "--topo", p->topo);
    add_opt(&a, "--map", p->map);
    add_opt(&a, "--ppn", p->ppn);
    add_opt(&a, "--background", p->background);
    if (p->congestion_impact)
        add(&a, "--congestion-impact");
    add_opt(&a, "--bits", p->bits);
    add_opt(&a, "--seed", p->seed);
    add_opt(&a, "--compute-scale", p->compute_scale);
    int rc = hs__cmd_simulate_check(a.n, a.v);
    if (rc)
        return rc;
    if (p->phases) {
        hs_error err;
        hs_error_clear(&err);
        if ((rc = hs_an_phases_check(p->phases, &err)))
            return hs__usage_error("analyze", "--phases: %s", hs_error_str(&err, rc));
    }
    return 0;
}

/* ---- the pipeline ------------------------------------------------------------------ */

static void step(int i, const char *what)
{
    printf("\n[%d/4] %s\n", i, what);
    fflush(stdout);
}

int hs__pipe_run(const hs__pipe *p, hs__pipe_out *out)
{
    char trace[4096], run[4096], topo[128];
    memset(out, 0, sizeof *out);
    if (snprintf(trace, sizeof trace, "%s/trace", p->dir) >= (int)sizeof trace ||
        snprintf(run, sizeof run, "%s/run", p->dir) >= (int)sizeof run ||
        snprintf(out->report, sizeof out->report, "%s/report.html", run) >=
            (int)sizeof out->report) {
        fprintf(stderr, "hopscope: directory name too long\n");
        return HS_EXIT_USAGE;
    }
    snprintf(out->run, sizeof out->run, "%s", run);
    /* Every later step's options are checked now, before the application
     * runs and before anything is written: a typo in --bits or --topo must
     * not cost a whole recorded run. */
    int rc = check_steps(p);
    if (rc) {
        fprintf(stderr, "hopscope: nothing was run or written\n");
        return rc;
    }
    hs_error err;
    if (hs_mkdir_p(p->dir, &err)) {
        fprintf(stderr, "hopscope: %s\n", err.msg);
        return HS_EXIT_FAIL;
    }

    /* 1. record */
    step(1, "record: the application runs with libhopscope.so preloaded");
    if (p->nodes) {
        char v[32];
        snprintf(v, sizeof v, "%u", p->nodes);
        setenv("HOPSCOPE_NODES", v, 1);
        printf("      HOPSCOPE_NODES=%s: ranks are placed on %s virtual nodes\n", v, v);
    }
    argvb a = {.n = 0};
    add(&a, "record");
    add_opt(&a, "-o", trace);
    add_opt(&a, "--mpi", p->mpi);
    add(&a, "--force");
    add(&a, "--");
    for (int i = 0; i < p->nlauncher; i++)
        add(&a, p->launcher[i]);
    show(&a);
    rc = hs__cmd_record(a.n, a.v);
    if (rc) {
        fprintf(stderr, "hopscope: the recorded run failed (status %d); stopping\n", rc);
        return rc;
    }

    /* 2. simulate */
    if (auto_topology(trace, p->ppn, topo, sizeof topo))
        return HS_EXIT_FAIL;
    step(2, "simulate: the recorded communication replayed on the modelled machine");
    if (!p->topo)
        printf("      no --topo: the smallest full fat-tree that holds the job, %s\n", topo);
    /* an oversubscribed recording's computation is scaled by the replay
     * itself (--compute-scale auto), which says so like simulate does */
    const char *scale = p->compute_scale;
    a.n = 0;
    add(&a, "simulate");
    add_opt(&a, "--topo", p->topo ? p->topo : topo);
    add_opt(&a, "-i", trace);
    add_opt(&a, "-o", run);
    add_opt(&a, "--map", p->map);
    add_opt(&a, "--ppn", p->ppn);
    add_opt(&a, "--background", p->background);
    if (p->background && p->congestion_impact)
        add(&a, "--congestion-impact");
    add_opt(&a, "--bits", p->bits);
    add_opt(&a, "--seed", p->seed);
    add_opt(&a, "--compute-scale", scale);
    show(&a);
    rc = hs__cmd_simulate(a.n, a.v);
    if (rc) {
        if (access(run, F_OK) == 0)
            fprintf(stderr, "hopscope: the replay failed; stopping (run directory: %s)\n", run);
        else
            fprintf(stderr, "hopscope: the replay failed; stopping (the trace is in %s)\n",
                    trace);
        return rc;
    }

    /* 3. analyze */
    step(3, "analyze: in-band counters decoded, congestion trees, diagnosis");
    hs_analyze_params ap;
    hs_analyze_params_default(&ap);
    ap.phases_file = p->phases;
    a.n = 0;
    add(&a, "analyze");
    add_opt(&a, "--phases", p->phases);
    add(&a, run);
    show(&a);
    char *cmd = hs__cmd_line(a.n, a.v);
    ap.command = cmd;
    hs_analysis *an = NULL;
    char json[4200];
    snprintf(json, sizeof json, "%s/analysis.json", run);
    rc = hs_analyze_run(run, &ap, &an, &err);
    free(cmd);
    if (!rc)
        rc = hs__analysis_save(an, run, json, NULL, &err);
    if (rc) {
        fprintf(stderr, "hopscope analyze: %s\n", hs_error_str(&err, rc));
        hs_an_free(an);
        return HS_EXIT_FAIL;
    }
    printf("      %s\n", json);

    /* 4. render */
    step(4, "render: SVG pictures and the HTML report");
    a.n = 0;
    add(&a, "render");
    add(&a, "-q");
    add(&a, run);
    show(&a);
    rc = hs__cmd_render(a.n, a.v);
    if (!rc) {
        printf("      %s\n", out->report);
        hs__print_findings(an, 3);
    }
    hs_an_free(an);
    return rc;
}

/* Prints lead then text, wrapped at 78 columns, continuation lines
 * indented by `indent`. */
static void wrapped(const char *lead, const char *text, int indent)
{
    int col = printf("%s", lead);
    for (const char *w = text; *w;) {
        while (*w == ' ')
            w++;
        if (!*w)
            break;
        const char *e = w;
        while (*e && *e != ' ')
            e++;
        int len = (int)(e - w);
        if (col > indent && col + 1 + len > 78) {
            printf("\n%*s", indent, "");
            col = indent;
        } else {
            putchar(' ');
            col++;
        }
        col += printf("%.*s", len, w);
        w = e;
    }
    putchar('\n');
}

void hs__print_findings(const hs_analysis *an, size_t max)
{
    size_t n = hs_an_nfindings(an);
    hs_an_summary s;
    hs_an_get_summary(an, &s);
    if (s.caveats && *s.caveats) {
        printf("\n");
        wrapped("Measurement:", s.caveats, 4);
    }
    printf("\nFindings:\n");
    for (size_t i = 0; i < n && i < max; i++) {
        char lead[64];
        snprintf(lead, sizeof lead, " %zu. [%s]", i + 1,
                 hs_an_kind_name(hs_an_finding_kind(an, i)));
        wrapped(lead, hs_an_finding_summary(an, i), 4);
    }
    if (n > max)
        printf(" (%zu more in the report)\n", n - max);
}
