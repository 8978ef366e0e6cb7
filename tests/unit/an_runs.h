/* Test helper (header only, static): builds run directories with known
 * answers through fabric's public API — an "application" (monitored
 * packets, its own phases, an app.json with ranks, mapping and the
 * communication matrix, as the replay writes it) and optional unmonitored
 * background jobs — so the analyzer's findings can be checked against what
 * was put in.  The analyzer itself never sees fabric code: only the files. */
#ifndef HOPSCOPE_TESTS_AN_RUNS_H
#define HOPSCOPE_TESTS_AN_RUNS_H

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hopscope/fabric.h"

#define AN_MAX_RANKS 4096
#define AN_MAX_PHASES 8

typedef struct an_run {
    hs_fabric *f;
    char dir[256];
    uint64_t rng;
    uint32_t ranks;
    uint32_t node_of_rank[AN_MAX_RANKS];
    /* app.json content */
    struct { uint16_t id; const char *name, *kind, *coll; int tag, app;
             uint64_t messages, bytes; } ph[AN_MAX_PHASES];
    unsigned nph;
    uint64_t *comm;        /* ranks x ranks bytes */
    uint64_t *commn;       /* messages */
    int have_app;
    const char *bg_spec;
    uint32_t bg_nodes[AN_MAX_RANKS];
    unsigned nbg;
    hs_time last_delivery;
    uint64_t delivered, posted;
} an_run;

static double an_u01(an_run *R)
{
    uint64_t z = (R->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static void an_on_sent(void *ctx, hs_fabric *f, uint64_t c, hs_time t)
{
    (void)ctx; (void)f; (void)c; (void)t;
}

static void an_on_delivered(void *ctx, hs_fabric *f, uint64_t c, hs_time t)
{
    (void)f;
    an_run *R = ctx;
    if (c == 1) {   /* application messages carry cookie 1 */
        R->delivered++;
        if (t > R->last_delivery)
            R->last_delivery = t;
    }
}

static void an_on_timer(void *ctx, hs_fabric *f, uint64_t c, hs_time t)
{
    (void)ctx; (void)f; (void)c; (void)t;
}

/* tables: write routes.bin even for a regular family (params.route_tables). */
static void an_begin_tables(an_run *R, const char *spec, uint64_t seed, int tables)
{
    memset(R, 0, sizeof *R);
    R->rng = seed * 7919 + 1;
    snprintf(R->dir, sizeof R->dir, "/tmp/hs_an_test_XXXXXX");
    if (!mkdtemp(R->dir))
        fail_msg("mkdtemp failed");
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.seed = seed;
    p.route_tables = tables;
    p.window = 50 * HS_PS_PER_US;
    hs_error e;
    int rc = hs_fabric_create(&R->f, spec, &p, &e);
    if (rc)
        fail_msg("%s: %s", spec, hs_error_str(&e, rc));
    static const hs_fabric_callbacks cb = { an_on_sent, an_on_delivered, an_on_timer };
    hs_fabric_set_callbacks(R->f, &cb, R);
}

static inline void an_begin(an_run *R, const char *spec, uint64_t seed)
{
    an_begin_tables(R, spec, seed, 0);
}

/* Ranks: node_of_rank given, or identity when NULL. */
static void an_ranks(an_run *R, uint32_t ranks, const uint32_t *node_of_rank)
{
    R->ranks = ranks;
    for (uint32_t r = 0; r < ranks; r++)
        R->node_of_rank[r] = node_of_rank ? node_of_rank[r] : r;
    R->comm = calloc((size_t)ranks * ranks, sizeof *R->comm);
    R->commn = calloc((size_t)ranks * ranks, sizeof *R->commn);
    R->have_app = 1;
}

static void an_phase(an_run *R, uint16_t id, const char *name, const char *kind, int tag,
                     const char *coll, int app)
{
    R->ph[R->nph].id = id;
    R->ph[R->nph].name = name;
    R->ph[R->nph].kind = kind;
    R->ph[R->nph].tag = tag;
    R->ph[R->nph].coll = coll;
    R->ph[R->nph].app = app;
    R->nph++;
    hs_fabric_phase_name(R->f, id, name);
}

static void an_count(an_run *R, uint16_t phase, uint64_t bytes)
{
    for (unsigned i = 0; i < R->nph; i++)
        if (R->ph[i].id == phase) {
            R->ph[i].messages++;
            R->ph[i].bytes += bytes;
        }
}

/* Messages of `size` bytes from node src to node dst at `load` (share of a
 * 25 GB/s link) during [t0, t1), with jittered spacing.  Application
 * messages (monitored) are counted between ranks rs -> rd. */
static void an_stream(an_run *R, uint32_t src, uint32_t dst, double load, uint32_t size,
                      uint16_t phase, int monitored, hs_time t0, hs_time t1, uint32_t rs,
                      uint32_t rd)
{
    double period = (double)size * 1e12 / (load * 25e9);
    double t = (double)t0 + an_u01(R) * period;
    while (t < (double)t1) {
        int rc = hs_fabric_inject(R->f, (hs_time)t, src, dst, size, phase, monitored,
                                  monitored ? 1 : 2);
        if (rc)
            fail_msg("inject %u->%u: %d", src, dst, rc);
        if (monitored) {
            R->posted++;
            an_count(R, phase, size);
            if (R->comm) {
                R->comm[(size_t)rs * R->ranks + rd] += size;
                R->commn[(size_t)rs * R->ranks + rd]++;
            }
        }
        t += period * (0.5 + an_u01(R));
    }
}

static void an_write_app(an_run *R)
{
    char path[300];
    snprintf(path, sizeof path, "%s/app.json", R->dir);
    FILE *f = fopen(path, "w");
    hs_json w;
    hs_json_init(&w, f, 1);
    hs_json_obj_begin(&w);
    hs_json_key(&w, "format"); hs_json_str(&w, "hopscope-app");
    hs_json_key(&w, "version"); hs_json_int(&w, 1);
    hs_json_key(&w, "trace"); hs_json_str(&w, "(synthetic test)");
    hs_json_key(&w, "ranks"); hs_json_uint(&w, R->ranks);
    hs_json_key(&w, "mapping");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "policy"); hs_json_str(&w, "file");
    hs_json_key(&w, "param"); hs_json_str(&w, "test");
    hs_json_key(&w, "ranks_per_node"); hs_json_uint(&w, 1);
    hs_json_key(&w, "node_of_rank");
    hs_json_arr_begin(&w);
    for (uint32_t r = 0; r < R->ranks; r++)
        hs_json_uint(&w, R->node_of_rank[r]);
    hs_json_arr_end(&w);
    hs_json_obj_end(&w);
    hs_json_key(&w, "phases");
    hs_json_arr_begin(&w);
    for (unsigned i = 0; i < R->nph; i++) {
        hs_json_obj_begin(&w);
        hs_json_key(&w, "id"); hs_json_uint(&w, R->ph[i].id);
        hs_json_key(&w, "name"); hs_json_str(&w, R->ph[i].name);
        hs_json_key(&w, "kind"); hs_json_str(&w, R->ph[i].kind);
        hs_json_key(&w, "tag");
        if (R->ph[i].tag >= 0)
            hs_json_int(&w, R->ph[i].tag);
        else
            hs_json_null(&w);
        hs_json_key(&w, "collective");
        if (R->ph[i].coll)
            hs_json_str(&w, R->ph[i].coll);
        else
            hs_json_null(&w);
        hs_json_key(&w, "app"); hs_json_bool(&w, R->ph[i].app);
        hs_json_key(&w, "messages"); hs_json_uint(&w, R->ph[i].messages);
        hs_json_key(&w, "bytes"); hs_json_uint(&w, R->ph[i].bytes);
        hs_json_key(&w, "time_ps"); hs_json_uint(&w, 0);
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);
    hs_json_key(&w, "time");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "total_ps"); hs_json_uint(&w, R->last_delivery);
    hs_json_key(&w, "compute_ps"); hs_json_uint(&w, 0);
    hs_json_key(&w, "comm_ps"); hs_json_uint(&w, R->last_delivery);
    hs_json_obj_end(&w);
    hs_json_key(&w, "comm");
    hs_json_arr_begin(&w);
    for (uint32_t s = 0; s < R->ranks; s++)
        for (uint32_t d = 0; d < R->ranks; d++) {
            size_t i = (size_t)s * R->ranks + d;
            if (!R->comm[i])
                continue;
            hs_json_arr_begin(&w);
            hs_json_uint(&w, s);
            hs_json_uint(&w, d);
            hs_json_uint(&w, R->comm[i]);
            hs_json_uint(&w, R->commn[i]);
            hs_json_arr_end(&w);
        }
    hs_json_arr_end(&w);
    hs_json_key(&w, "background");
    if (R->bg_spec) {
        hs_json_obj_begin(&w);
        hs_json_key(&w, "spec"); hs_json_str(&w, R->bg_spec);
        hs_json_key(&w, "nodes");
        hs_json_arr_begin(&w);
        for (unsigned i = 0; i < R->nbg; i++)
            hs_json_uint(&w, R->bg_nodes[i]);
        hs_json_arr_end(&w);
        hs_json_obj_end(&w);
    } else {
        hs_json_null(&w);
    }
    hs_json_obj_end(&w);
    if (hs_json_finish(&w))
        fail_msg("app.json writer");
    fclose(f);
}

/* Runs to idle and writes the run directory (and app.json). */
static void an_finish(an_run *R)
{
    int rc = hs_fabric_run(R->f, HS_TIME_NEVER);
    if (rc < 0)
        fail_msg("fabric run: %d", rc);
    hs_error e;
    rc = hs_fabric_write_rundir(R->f, R->dir, NULL, NULL, &e);
    if (rc)
        fail_msg("%s", hs_error_str(&e, rc));
    if (R->have_app)
        an_write_app(R);
    if (getenv("AN_KEEP"))
        fprintf(stderr, "run directory %s\n", R->dir);
}

static int an_rm(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

static void an_end(an_run *R)
{
    if (R->f)
        hs_fabric_destroy(R->f);
    free(R->comm);
    free(R->commn);
    if (getenv("AN_KEEP"))   /* debugging: keep the run directory */
        fprintf(stderr, "kept %s\n", R->dir);
    else
        nftw(R->dir, an_rm, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
