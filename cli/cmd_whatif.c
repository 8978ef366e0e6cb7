/* hopscope whatif RUN --map MAP|suggested [--no-background]: replays the
 * run's trace again with another mapping (and optionally without its
 * background jobs) on the same machine with the same parameters, analyses
 * each new run, and prints the comparison: predicted times, latencies and
 * the change in congested links.
 *
 * The replay parameters come from RUN's manifest.json (network, in-band
 * scheme, seed) and app.json (trace, ranks per node, background, replay
 * model), so the runs differ only in what the user asked to change. */
#include "cli.h"
#include "hopscope/analyzer.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "whatif"
#define JSON_MAX (256u << 20)

typedef struct scenario {
    const char *name;
    char dir[4200];
    char map[4400];
    int  background;
    hs_an_summary s;
    hs_analysis *a;
    int  ok;
} scenario;

static int jnum(const hs_jdoc *d, const hs_jv *o, const char *k, uint64_t *out)
{
    const hs_jv *v = hs_jv_get(d, o, k);
    double x;
    if (hs_jv_u64(v, out) == 0)
        return 0;
    if (hs_jv_double(v, &x) == 0 && x >= 0) {
        *out = (uint64_t)(x + 0.5);
        return 0;
    }
    return -1;
}

/* The replay parameters of RUN; the strings point into the documents. */
static int load_params(const char *run, hs_replay_params *rp, hs_jdoc **man, hs_jdoc **app,
                       char *coll, size_t ncoll)
{
    char path[4200];
    hs_error e;
    snprintf(path, sizeof path, "%s/manifest.json", run);
    int rc = hs_jdoc_load(path, JSON_MAX, man, &e);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, rc));
        return HS_EXIT_FAIL;
    }
    snprintf(path, sizeof path, "%s/app.json", run);
    rc = hs_jdoc_load(path, JSON_MAX, app, &e);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n%s", CMD, hs_error_str(&e, rc),
                rc == HS_ENOENT ? "whatif re-simulates a replayed application: RUN must come "
                                  "from 'hopscope simulate -i TRACE'\n" : "");
        return HS_EXIT_FAIL;
    }
    const hs_jdoc *M = *man, *A = *app;
    const hs_jv *mr = hs_jdoc_root(M), *ar = hs_jdoc_root(A);
    const hs_jv *topo = hs_jv_get(M, mr, "topology"), *net = hs_jv_get(M, mr, "network");
    const hs_jv *sch = hs_jv_get(M, mr, "scheme");
    rp->topo = hs_jv_str(M, hs_jv_get(M, topo, "spec"));
    rp->trace = hs_jv_str(A, hs_jv_get(A, ar, "trace"));
    if (!rp->topo || !rp->trace) {
        fprintf(stderr, "hopscope %s: %s: no topology spec or trace path\n", CMD, run);
        return HS_EXIT_FAIL;
    }
    hs_fabric_params *p = &rp->net;
    uint64_t u;
    int b;
    double x;
    if (!jnum(M, net, "mtu", &u)) p->mtu = (uint32_t)u;
    if (!jnum(M, net, "header", &u)) p->header = (uint32_t)u;
    if (!jnum(M, net, "vc_buffer", &u)) p->vc_buffer = u;
    if (!jnum(M, net, "nic_buffer", &u)) p->nic_buffer = u;
    if (!hs_jv_bool(hs_jv_get(M, net, "unbounded"), &b)) p->unbounded = b;
    if (!jnum(M, net, "route_delay_ps", &u)) p->route_delay = u;
    if (!jnum(M, net, "rx_rate_Bps", &u)) p->rx_rate = u;
    if (!jnum(M, net, "nic_queues", &u)) p->nic_queues = (unsigned)u;
    if (!jnum(M, net, "ugal_threshold", &u)) p->ugal_threshold = u;
    if (!jnum(M, net, "seed", &u)) {
        p->seed = u;
        rp->seed = u;
    }
    if (!jnum(M, net, "max_windows", &u)) p->max_windows = (uint32_t)u;
    if (!jnum(M, sch, "c", &u)) p->scheme.hop_bits = (unsigned)u;
    if (!jnum(M, sch, "b", &u) && u) p->scheme.hash_bits = (unsigned)u;
    if (!hs_jv_bool(hs_jv_get(M, sch, "exact"), &b)) p->scheme.exact = b;
    if (!jnum(M, sch, "salt", &u)) p->scheme.salt = u;
    if (!jnum(M, sch, "tau_ps", &u)) p->tau = u;
    if (!hs_jv_double(hs_jv_get(M, sch, "tau_factor"), &x) && x > 0) p->tau_factor = x;
    const hs_jv *map = hs_jv_get(A, ar, "mapping");
    if (!jnum(A, map, "ranks_per_node", &u)) rp->ppn = (uint32_t)u;
    const hs_jv *bg = hs_jv_get(A, ar, "background");
    if (hs_jv_kind(bg) == HS_JV_OBJ)
        rp->background = hs_jv_str(A, hs_jv_get(A, bg, "spec"));
    const hs_jv *rep = hs_jv_get(A, ar, "replay");
    if (hs_jv_kind(rep) == HS_JV_OBJ) {
        if (!jnum(A, rep, "eager_limit", &u)) rp->eager_limit = u;
        if (!jnum(A, rep, "ctrl_bytes", &u)) rp->ctrl_bytes = (uint32_t)u;
        if (!hs_jv_double(hs_jv_get(A, rep, "compute_scale"), &x)) rp->compute_scale = x;
        if (!jnum(A, rep, "mem_bw_Bps", &u)) rp->mem_bw = u;
        if (!jnum(A, rep, "shm_latency_ps", &u)) rp->shm_latency = u;
        if (!jnum(A, rep, "call_overhead_ps", &u)) rp->call_overhead = u;
        if (!jnum(A, rep, "reduce_bw_Bps", &u)) rp->reduce_bw = u;
        if (!jnum(A, rep, "max_packets", &u)) rp->max_packets = u;   /* simulate --max-packets */
        if (!hs_jv_bool(hs_jv_get(A, rep, "wire"), &b)) rp->wire = b;   /* simulate --wire */
        const hs_jv *co = hs_jv_get(A, rep, "collectives");
        size_t o = 0;
        coll[0] = 0;
        for (size_t i = 0; i < hs_jv_len(co); i++) {
            const char *alg = hs_jv_str(A, hs_jv_at(A, co, i));
            if (!alg || strcmp(alg, "auto") == 0)
                continue;
            o += (size_t)snprintf(coll + o, o < ncoll ? ncoll - o : 0, "%s%s=%s", o ? "," : "",
                                  hs_jv_key_at(A, co, i), alg);
        }
        if (coll[0] && o < ncoll)
            rp->coll = coll;
    }
    return 0;
}

/* dir/leaf into dst; the caller has checked that it fits (the length test
 * on the output directory), so a truncation here cannot happen silently. */
static void path_join(char *dst, size_t n, const char *dir, const char *leaf)
{
    int k = snprintf(dst, n, "%s/%s", dir, leaf);
    if (k < 0 || (size_t)k >= n)
        dst[0] = 0;
}

/* The phases file RUN's analysis used (analysis.json params.phases_file),
 * so that the new runs' phases carry the same names; NULL when there is
 * none.  Copied into buf. */
static const char *previous_phases(const char *run, char *buf, size_t n, int quiet)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/analysis.json", run);
    hs_jdoc *d;
    hs_error e;
    if (hs_jdoc_load(path, JSON_MAX, &d, &e))
        return NULL;
    const hs_jv *pf = hs_jv_get(d, hs_jv_get(d, hs_jdoc_root(d), "params"), "phases_file");
    const char *s = hs_jv_kind(pf) == HS_JV_STR ? hs_jv_str(d, pf) : NULL;
    const char *ret = NULL;
    if (s && snprintf(buf, n, "%s", s) < (int)n) {
        if (access(buf, R_OK) == 0) {
            ret = buf;
            if (!quiet)
                fprintf(stderr, "hopscope %s: phase names from %s (as %s/analysis.json)\n",
                        CMD, buf, run);
        } else {
            fprintf(stderr, "hopscope %s: warning: %s/analysis.json named phases from '%s', "
                    "which cannot be read from here; phases keep their tag names (give "
                    "--phases FILE)\n", CMD, run, buf);
        }
    }
    hs_jdoc_free(d);
    return ret;
}

/* Replays one scenario into SCENARIO.part-PID, renamed to its directory
 * once the replay has returned (a killed process leaves the previous
 * directory, or none, and a .part-PID), then analyses it.  What went wrong
 * goes to why too. */
static int run_scenario(scenario *sc, const hs_replay_params *base, const char *phases,
                        int quiet, char *why, size_t nwhy)
{
    hs_replay_params rp = *base;
    char part[4300];
    snprintf(part, sizeof part, "%s.part-%ld", sc->dir, (long)getpid());
    hs__rm_rf(part);
    rp.map = sc->map;
    rp.out = part;
    if (!sc->background)
        rp.background = NULL;
    rp.congestion_impact = 0;
    hs_replay_result r;
    hs_error e;
    hs_error_clear(&e);
    if (!quiet)
        fprintf(stderr, "hopscope %s: replaying '%s' (%s) into %s ...\n", CMD, rp.trace,
                sc->name, sc->dir);
    int rc = hs_replay_run(&rp, &r, &e);
    hs_replay_result_free(&r);
    /* a replay that stopped (deadlock, stall) wrote its directory too */
    struct stat st;
    if (stat(part, &st) == 0) {
        hs__rm_rf(sc->dir);
        if (rename(part, sc->dir) && !rc)
            rc = hs_error_set(&e, HS_EIO, "%s: %s", sc->dir, strerror(errno));
    }
    if (rc) {
        hs__rm_rf(part);
        snprintf(why, nwhy, "%s: %s", sc->name, hs_error_str(&e, rc));
        fprintf(stderr, "hopscope %s: %s\n", CMD, why);
        return rc;
    }
    hs_analyze_params ap;
    hs_analyze_params_default(&ap);
    ap.command = "hopscope whatif";
    ap.phases_file = phases;
    rc = hs_analyze_run(sc->dir, &ap, &sc->a, &e);
    if (!rc) {
        char path[4300];
        snprintf(path, sizeof path, "%s/analysis.json", sc->dir);
        rc = hs_an_write_json(sc->a, path, &e);
    }
    if (rc) {
        snprintf(why, nwhy, "%s: %s", sc->name, hs_error_str(&e, rc));
        fprintf(stderr, "hopscope %s: %s\n", CMD, why);
        return rc;
    }
    hs_an_get_summary(sc->a, &sc->s);
    sc->ok = 1;
    return 0;
}

static char *us(uint64_t ps, char *b, size_t n)
{
    snprintf(b, n, "%.1f us", (double)ps / 1e6);
    return b;
}

/* The options. */
typedef struct wargs {
    const char *mapspec, *trace, *out, *phases, *run;
    int nobg, quiet;
} wargs;

static int parse_args(int argc, char **argv, wargs *w)
{
    static const struct option opts[] = {
        { "map", required_argument, NULL, 'm' },
        { "no-background", no_argument, NULL, 'n' },
        { "trace", required_argument, NULL, 't' },
        { "output", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "phases", required_argument, NULL, 'p' },
        { NULL, 0, NULL, 0 },
    };
    memset(w, 0, sizeof *w);
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'm': w->mapspec = optarg; break;
        case 'n': w->nobg = 1; break;
        case 't': w->trace = optarg; break;
        case 'o': w->out = optarg; break;
        case 'q': w->quiet = 1; break;
        case 'p': w->phases = optarg; break;
        default: return hs__usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return hs__usage_error(CMD, optind == argc ? "give a run directory"
                                                   : "one run directory at a time");
    if (!w->mapspec && !w->nobg)
        return hs__usage_error(CMD, "say what to change: --map MAP|suggested and/or "
                               "--no-background");
    w->run = argv[optind];
    return 0;
}

/* ---- over MPI processes (hopscope-par; docs/fabric.md, "Families of runs") ---- */

/* The scenarios as rank 0 set them up, for the others. */
typedef struct wpack {
    int32_t ns;
    int32_t background[5];
    char name[5][4400];
    char map[5][4400];
    char dir[5][4200];
} wpack;

/* What a process's scenarios gave, for rank 0's comparison. */
typedef struct wres {
    int32_t rc;          /* 0, or the code of its first failed scenario */
    int32_t failed;      /* that scenario */
    char why[600];
    struct {
        int32_t ok, have_time, have_latency, top;
        uint32_t links_congested, roots;
        uint64_t time_ps, p50, p99;
    } s[5];
} wres;

/* Scenario i (1..) runs on process (i - 1) mod N. */
static int mine(const hs__family *F, int i)
{
    return !F || (unsigned)(i - 1) % F->np == F->rank;
}

/* Runs this process's scenarios; under hopscope-par gathers everyone's
 * results at rank 0 (sc[] filled in there) and names the first failure. */
static int run_all(const hs__family *F, scenario *sc, int ns, const hs_replay_params *rp,
                   const char *phases, int quiet)
{
    wres me;
    memset(&me, 0, sizeof me);
    for (int i = 1; i < ns && !me.rc; i++) {
        if (!mine(F, i))
            continue;
        if (run_scenario(&sc[i], rp, phases, quiet, me.why, sizeof me.why)) {
            me.rc = HS_EXIT_FAIL;
            me.failed = i;
        }
    }
    if (!F)
        return me.rc;
    for (int i = 1; i < ns; i++) {
        const hs_an_summary *x = &sc[i].s;
        me.s[i].ok = sc[i].ok;
        me.s[i].have_time = x->have_time;
        me.s[i].have_latency = x->have_latency;
        me.s[i].top = (int32_t)x->top;
        me.s[i].links_congested = x->links_congested;
        me.s[i].roots = x->roots;
        me.s[i].time_ps = x->time_ps;
        me.s[i].p50 = x->lat_p50_ps;
        me.s[i].p99 = x->lat_p99_ps;
    }
    wres *all = F->rank == 0 ? calloc(F->np, sizeof *all) : NULL;
    int bad = F->rank == 0 && !all;
    if (F->gather(F->ctx, &me, sizeof me, bad ? NULL : all) || bad) {
        free(all);
        fprintf(stderr, "hopscope %s: lost contact with the other processes\n", CMD);
        return HS_EXIT_FAIL;
    }
    if (F->rank != 0)
        return me.rc;
    int rc = 0, first = 0;
    unsigned who = 0;
    for (int i = 1; i < ns; i++) {
        unsigned r = (unsigned)(i - 1) % F->np;
        const wres *w = &all[r];
        if (w->rc && w->failed == i && !first) {
            first = i;
            who = r;
            rc = w->rc;
        }
        if (r == 0 || !w->s[i].ok)
            continue;
        hs_an_summary *x = &sc[i].s;
        memset(x, 0, sizeof *x);
        sc[i].ok = 1;
        x->have_time = w->s[i].have_time;
        x->have_latency = w->s[i].have_latency;
        x->top = (hs_an_kind)w->s[i].top;
        x->links_congested = w->s[i].links_congested;
        x->roots = w->s[i].roots;
        x->time_ps = w->s[i].time_ps;
        x->lat_p50_ps = w->s[i].p50;
        x->lat_p99_ps = w->s[i].p99;
    }
    if (rc && who != 0)
        fprintf(stderr, "hopscope %s: failed on process %u of %u (%s): %s\n", CMD, who, F->np,
                F->host(F->ctx, who), all[who].why);
    free(all);
    return rc;
}

/* A process other than rank 0: waits for rank 0's scenarios, runs its
 * share, sends rank 0 what they gave. */
static int whatif_worker(const hs__family *F, const char *cmd, int argc, char **argv)
{
    int32_t go = 0;
    if (F->bcast(F->ctx, &go, sizeof go)) {
        fprintf(stderr, "hopscope %s: lost contact with rank 0\n", CMD);
        return HS_EXIT_FAIL;
    }
    if (go)     /* rank 0 said why */
        return go;
    wpack *pk = calloc(1, sizeof *pk);
    int bad = !pk || F->bcast(F->ctx, pk ? (void *)pk : (void *)&go, pk ? sizeof *pk : 0);
    wargs w;
    scenario sc[5];
    memset(sc, 0, sizeof sc);
    hs_replay_params rp;
    hs_replay_params_default(&rp);
    hs_jdoc *man = NULL, *app = NULL;
    char coll[512], phbuf[4200];
    int ns = 0;
    if (!bad && !parse_args(argc, argv, &w) &&
        !load_params(w.run, &rp, &man, &app, coll, sizeof coll)) {
        if (w.trace)
            rp.trace = w.trace;
        rp.command = cmd;
        if (!w.phases)
            w.phases = previous_phases(w.run, phbuf, sizeof phbuf, 1);
        ns = pk->ns < 1 ? 1 : pk->ns > 5 ? 5 : pk->ns;
        for (int i = 1; i < ns; i++) {
            pk->name[i][sizeof pk->name[i] - 1] = 0;
            pk->map[i][sizeof pk->map[i] - 1] = 0;
            pk->dir[i][sizeof pk->dir[i] - 1] = 0;
            sc[i].name = pk->name[i];
            sc[i].background = pk->background[i];
            snprintf(sc[i].map, sizeof sc[i].map, "%s", pk->map[i]);
            snprintf(sc[i].dir, sizeof sc[i].dir, "%s", pk->dir[i]);
        }
    } else {
        /* a failure before the runs: rank 0 still waits for this one's
         * results, which say so */
        bad = 1;
    }
    int rc;
    if (bad) {
        wres me;
        memset(&me, 0, sizeof me);
        me.rc = HS_EXIT_FAIL;
        me.failed = (int32_t)F->rank + 1;    /* its first scenario */
        snprintf(me.why, sizeof me.why, "could not read the run's parameters (see its "
                 "messages)");
        if (pk && (int32_t)F->rank + 1 >= pk->ns)
            me.rc = 0;      /* it had no scenario to run */
        rc = F->gather(F->ctx, &me, sizeof me, NULL) ? HS_EXIT_FAIL : me.rc;
    } else {
        rc = run_all(F, sc, ns, &rp, w.phases, w.quiet);
    }
    for (int i = 0; i < 5; i++)
        hs_an_free(sc[i].a);
    hs_jdoc_free(man);
    hs_jdoc_free(app);
    free(pk);
    return rc;
}

static int whatif(const char *cmd, int argc, char **argv, int *told);

int hs__cmd_whatif(int argc, char **argv)
{
    const hs__family *F = hs__par_family;
    /* the command line, before getopt permutes argv: each new run's app.json
     * records it as the command that replayed it */
    char *cmd = hs__cmd_line(argc, argv);
    int rc, told = 0;
    if (F && F->rank != 0) {
        rc = whatif_worker(F, cmd, argc, argv);
    } else {
        rc = whatif(cmd, argc, argv, &told);
        if (F && !told) {
            /* stopped before the runs: the others stop with the same code */
            int32_t go = rc ? rc : HS_EXIT_FAIL;
            F->bcast(F->ctx, &go, sizeof go);
        }
    }
    free(cmd);
    return rc;
}

static int whatif(const char *cmd, int argc, char **argv, int *told)
{
    const hs__family *F = hs__par_family;
    wargs w;
    int rc0 = parse_args(argc, argv, &w);
    if (rc0)
        return rc0;
    const char *mapspec = w.mapspec, *trace = w.trace, *out = w.out, *phases = w.phases;
    const char *run = w.run;
    int nobg = w.nobg, quiet = w.quiet;
    int suggested = mapspec && strcmp(mapspec, "suggested") == 0;
    if (mapspec && !suggested) {
        hs_mapping_cfg mc;
        hs_error e;
        if (hs_mapping_parse(mapspec, &mc, &e))
            return hs__usage_error(CMD, "--map %s: %s", mapspec, hs_error_str(&e, HS_EINVAL));
    }
    char outdir[4200];
    snprintf(outdir, sizeof outdir, "%s", out ? out : run);
    if (!out) {
        size_t n = strlen(outdir);
        while (n > 1 && outdir[n - 1] == '/')
            outdir[--n] = 0;
        strncat(outdir, ".whatif", sizeof outdir - strlen(outdir) - 1);
    }
    /* the scenario directories below it must fit (path_join) */
    if (strlen(outdir) + sizeof "/map-nobg" > sizeof ((scenario *)0)->dir)
        return hs__usage_error(CMD, "output directory name longer than %zu characters",
                               sizeof ((scenario *)0)->dir - sizeof "/map-nobg");
    hs_error e;
    if (hs_mkdir_p(outdir, &e)) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, HS_EIO));
        return HS_EXIT_FAIL;
    }

    /* the run as it is, with the phase names its analysis had */
    char phbuf[4200];
    if (!phases)
        phases = previous_phases(run, phbuf, sizeof phbuf, quiet);
    hs_analyze_params ap;
    hs_analyze_params_default(&ap);
    ap.phases_file = phases;
    scenario sc[5];
    memset(sc, 0, sizeof sc);
    int rc = hs_analyze_run(run, &ap, &sc[0].a, &e);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, rc));
        return HS_EXIT_FAIL;
    }
    hs_an_get_summary(sc[0].a, &sc[0].s);
    sc[0].ok = 1;
    sc[0].name = "current mapping";
    snprintf(sc[0].dir, sizeof sc[0].dir, "%s", run);

    hs_replay_params rp;
    hs_replay_params_default(&rp);
    hs_jdoc *man = NULL, *app = NULL;
    char coll[512];
    int ret = load_params(run, &rp, &man, &app, coll, sizeof coll);
    if (trace)
        rp.trace = trace;
    rp.command = cmd;
    int have_bg = rp.background && *rp.background;
    sc[0].background = have_bg;
    if (!ret && nobg && !have_bg) {
        fprintf(stderr, "hopscope %s: %s ran without background jobs: nothing to remove\n", CMD,
                run);
        ret = HS_EXIT_USAGE;
    }
    /* the current mapping, as a file: the replay places ranks exactly so */
    uint32_t nr = 0;
    const uint32_t *cur = ret ? NULL : hs_an_mapping(sc[0].a, &nr);
    char curmap[4300];
    if (!ret) {
        snprintf(curmap, sizeof curmap, "%s/current.map", outdir);
        if (!cur || hs_an_mapping_write(curmap, cur, nr, &e)) {
            fprintf(stderr, "hopscope %s: %s\n", CMD, cur ? hs_error_str(&e, HS_EIO)
                                                          : "app.json has no mapping");
            ret = HS_EXIT_FAIL;
        }
    }
    int ns = 1;
    if (!ret && mapspec) {
        scenario *s = &sc[ns++];
        s->background = have_bg;
        if (suggested) {
            uint32_t *m, n;
            if (hs_an_suggest_mapping(sc[0].a, &m, &n, &e)) {
                fprintf(stderr, "hopscope %s: no suggested mapping: %s\n", CMD,
                        hs_error_str(&e, HS_ENOTSUP));
                ret = HS_EXIT_FAIL;
            } else {
                char mp[4300];
                snprintf(mp, sizeof mp, "%s/suggested.map", outdir);
                if (hs_an_mapping_write(mp, m, n, &e)) {
                    fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&e, HS_EIO));
                    ret = HS_EXIT_FAIL;
                }
                snprintf(s->map, sizeof s->map, "file:%s", mp);
                free(m);
            }
            s->name = "suggested mapping";
        } else {
            snprintf(s->map, sizeof s->map, "%s", mapspec);
            s->name = mapspec;
        }
        path_join(s->dir, sizeof s->dir, outdir, "map");
    }
    /* a suggestion must beat the plain linear mapping too: measure it */
    int lin = -1;
    if (!ret && suggested) {
        scenario *s = &sc[ns];
        lin = ns++;
        s->background = have_bg;
        s->name = "linear mapping";
        snprintf(s->map, sizeof s->map, "linear");
        path_join(s->dir, sizeof s->dir, outdir, "linear");
    }
    if (!ret && nobg) {
        scenario *s = &sc[ns++];
        s->name = "current mapping, no background";
        snprintf(s->map, sizeof s->map, "file:%s", curmap);
        path_join(s->dir, sizeof s->dir, outdir, "nobg");
        if (mapspec) {
            s = &sc[ns++];
            s->name = suggested ? "suggested mapping, no background" : "new mapping, no background";
            snprintf(s->map, sizeof s->map, "%s", sc[1].map);
            path_join(s->dir, sizeof s->dir, outdir, "map-nobg");
        }
    }
    if (F) {
        /* the scenarios to the other processes, each runs its share */
        int32_t go = ret;
        wpack *pk = ret ? NULL : calloc(1, sizeof *pk);
        if (!ret && !pk) {
            fprintf(stderr, "hopscope %s: out of memory\n", CMD);
            ret = go = HS_EXIT_FAIL;
        }
        *told = 1;
        if (F->bcast(F->ctx, &go, sizeof go) && !ret)
            ret = HS_EXIT_FAIL;
        if (pk) {
            pk->ns = ns;
            for (int i = 1; i < ns; i++) {
                pk->background[i] = sc[i].background;
                snprintf(pk->name[i], sizeof pk->name[i], "%s", sc[i].name);
                snprintf(pk->map[i], sizeof pk->map[i], "%s", sc[i].map);
                snprintf(pk->dir[i], sizeof pk->dir[i], "%s", sc[i].dir);
            }
            if (F->bcast(F->ctx, pk, sizeof *pk))
                ret = HS_EXIT_FAIL;
            free(pk);
        }
    }
    if (!ret)
        ret = run_all(F, sc, ns, &rp, phases, quiet);
    if (!ret) {
        const hs_an_summary *b = &sc[0].s;
        printf("what if: %s\n", run);
        printf("%-34s %13s %8s %12s %12s %9s %6s  %s\n", "scenario", "predicted", "change",
               "p50 latency", "p99 latency", "congested", "roots", "top finding");
        for (int i = 0; i < ns; i++) {
            const hs_an_summary *s = &sc[i].s;
            char t[32], l50[32], l99[32], ch[32], cg[32];
            if (i && b->have_time && s->have_time && b->time_ps)
                snprintf(ch, sizeof ch, "%+.1f%%",
                         100.0 * ((double)s->time_ps / (double)b->time_ps - 1));
            else
                snprintf(ch, sizeof ch, "-");
            if (i)
                snprintf(cg, sizeof cg, "%u (%+d)", s->links_congested,
                         (int)s->links_congested - (int)b->links_congested);
            else
                snprintf(cg, sizeof cg, "%u", s->links_congested);
            printf("%-34.34s %13s %8s %12s %12s %9s %6u  %s\n", sc[i].name,
                   s->have_time ? us(s->time_ps, t, sizeof t) : "-", ch,
                   s->have_latency ? us(s->lat_p50_ps, l50, sizeof l50) : "-",
                   s->have_latency ? us(s->lat_p99_ps, l99, sizeof l99) : "-", cg, s->roots,
                   hs_an_kind_name(s->top));
        }
        if (suggested && lin > 0 && b->have_time && sc[1].s.have_time &&
            sc[lin].s.have_time) {
            /* never recommend what the re-simulation shows slower */
            uint64_t ts = sc[1].s.time_ps, tc = b->time_ps, tl = sc[lin].s.time_ps;
            char t1[32], t2[32];
            if (ts > tc || ts > tl) {
                int cur_best = tc <= tl;
                printf("\nverdict: do not use the suggested mapping: it is slower (%s) than the "
                       "%s mapping (%s); keep the %s mapping.\n", us(ts, t1, sizeof t1),
                       cur_best ? "current" : "linear", us(cur_best ? tc : tl, t2, sizeof t2),
                       cur_best ? "current" : "linear");
            } else {
                printf("\nverdict: the suggested mapping is the fastest measured (%s against "
                       "%s current); use %s/suggested.map.\n", us(ts, t1, sizeof t1),
                       us(tc, t2, sizeof t2), outdir);
            }
        }
        printf("\nruns: ");
        for (int i = 0; i < ns; i++)
            printf("%s%s", i ? ", " : "", sc[i].dir);
        printf("\n");
    }
    for (int i = 0; i < 5; i++)
        hs_an_free(sc[i].a);
    hs_jdoc_free(man);
    hs_jdoc_free(app);
    return ret;
}
