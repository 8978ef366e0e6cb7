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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int run_scenario(scenario *sc, const hs_replay_params *base, const char *phases,
                        int quiet)
{
    hs_replay_params rp = *base;
    rp.map = sc->map;
    rp.out = sc->dir;
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
    if (rc) {
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, sc->name, hs_error_str(&e, rc));
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
        fprintf(stderr, "hopscope %s: %s: %s\n", CMD, sc->name, hs_error_str(&e, rc));
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

static int whatif(const char *cmd, int argc, char **argv);

int hs__cmd_whatif(int argc, char **argv)
{
    /* the command line, before getopt permutes argv: each new run's app.json
     * records it as the command that replayed it */
    char *cmd = hs__cmd_line(argc, argv);
    int rc = whatif(cmd, argc, argv);
    free(cmd);
    return rc;
}

static int whatif(const char *cmd, int argc, char **argv)
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
    const char *mapspec = NULL, *trace = NULL, *out = NULL, *phases = NULL;
    int nobg = 0, quiet = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'm': mapspec = optarg; break;
        case 'n': nobg = 1; break;
        case 't': trace = optarg; break;
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'p': phases = optarg; break;
        default: return hs__usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return hs__usage_error(CMD, optind == argc ? "give a run directory"
                                                   : "one run directory at a time");
    if (!mapspec && !nobg)
        return hs__usage_error(CMD, "say what to change: --map MAP|suggested and/or "
                               "--no-background");
    const char *run = argv[optind];
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
    for (int i = 1; i < ns && !ret; i++)
        if (run_scenario(&sc[i], &rp, phases, quiet))
            ret = HS_EXIT_FAIL;
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
