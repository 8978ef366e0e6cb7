/* hs_replay_run: builds the network, compiles the trace, maps the ranks,
 * adds the background jobs, replays, and writes the run directory with
 * app.json (replay.h has the model, docs/replay.md the whole account).
 *
 * With congestion_impact the replay runs twice, first without the
 * background (isolated), then with it (congested, the run directory), and
 * the result carries GPCNeT's Congestion Impact: p99 latency congested /
 * isolated, and bandwidth isolated / congested.
 *
 * The run is cut into slices of simulated time only to call the progress
 * function every few seconds of wall time; events are processed in the
 * same order whatever the slices, so results do not depend on them. */
#include "replay.h"

#include <math.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- small shared helpers -------------------------------------------------------- */

int hs__rp_grow(void **p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    if (nc < need)
        nc = need;
    void *n = realloc(*p, nc * sz);
    if (!n)
        return HS_ENOMEM;
    *p = n;
    *cap = nc;
    return 0;
}

uint32_t hs__rp_pool_take(void **arr, size_t *cap, uint32_t *free_head, size_t sz,
                          size_t next_off, size_t first)
{
    if (*free_head == RP_NIL) {
        size_t old = *cap, nc = old ? 2 * old : first;
        if (nc >= RP_NIL)
            return RP_NIL;
        char *n = realloc(*arr, nc * sz);
        if (!n)
            return RP_NIL;
        for (size_t i = old; i < nc; i++) {
            uint32_t nx = i + 1 < nc ? (uint32_t)(i + 1) : RP_NIL;
            memcpy(n + i * sz + next_off, &nx, sizeof nx);
        }
        *arr = n;
        *free_head = (uint32_t)old;
        *cap = nc;
    }
    uint32_t i = *free_head;
    memcpy(free_head, (char *)*arr + (size_t)i * sz + next_off, sizeof *free_head);
    return i;
}

static size_t map_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

int hs__rp_map_init(rp_map *m, size_t cap)
{
    size_t c = 16;
    while (c < cap)
        c *= 2;
    m->k = calloc(c, sizeof *m->k);
    m->v = calloc(c, sizeof *m->v);
    m->cap = c;
    m->n = 0;
    if (!m->k || !m->v) {
        hs__rp_map_free(m);
        return HS_ENOMEM;
    }
    return 0;
}

void hs__rp_map_free(rp_map *m)
{
    free(m->k);
    free(m->v);
    m->k = m->v = NULL;
    m->cap = m->n = 0;
}

uint64_t *hs__rp_map_find(const rp_map *m, uint64_t key)
{
    if (!m->cap || !key)
        return NULL;
    size_t i = map_slot(key, m->cap);
    while (m->k[i]) {
        if (m->k[i] == key)
            return &m->v[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

uint64_t *hs__rp_map_get(rp_map *m, uint64_t key)
{
    if (!key)
        return NULL;
    if (!m->cap && hs__rp_map_init(m, 16))
        return NULL;
    uint64_t *v = hs__rp_map_find(m, key);
    if (v)
        return v;
    if (2 * (m->n + 1) > m->cap) {
        rp_map n;
        if (hs__rp_map_init(&n, m->cap * 2))
            return NULL;
        for (size_t i = 0; i < m->cap; i++)
            if (m->k[i]) {
                size_t j = map_slot(m->k[i], n.cap);
                while (n.k[j])
                    j = (j + 1) & (n.cap - 1);
                n.k[j] = m->k[i];
                n.v[j] = m->v[i];
            }
        n.n = m->n;
        hs__rp_map_free(m);
        *m = n;
    }
    size_t i = map_slot(key, m->cap);
    while (m->k[i])
        i = (i + 1) & (m->cap - 1);
    m->k[i] = key;
    m->v[i] = 0;
    m->n++;
    return &m->v[i];
}

void hs__rp_map_del(rp_map *m, uint64_t key)
{
    if (!m->cap || !key)
        return;
    size_t mask = m->cap - 1, i = map_slot(key, m->cap);
    while (m->k[i] && m->k[i] != key)
        i = (i + 1) & mask;
    if (!m->k[i])
        return;
    m->k[i] = 0;
    m->n--;
    /* backward shift: move later entries of the run into the hole when
     * their home does not lie cyclically in (hole, j] */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->k[j])
            return;
        size_t home = map_slot(m->k[j], m->cap);
        int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
            m->k[hole] = m->k[j];
            m->v[hole] = m->v[j];
            m->k[j] = 0;
            hole = j;
        }
    }
}

/* ---- parameters --------------------------------------------------------------------- */

void hs_replay_params_default(hs_replay_params *p)
{
    memset(p, 0, sizeof *p);
    hs_fabric_params_default(&p->net);
    p->seed = 1;
    p->compute_scale = HS_REPLAY_SCALE_AUTO;
    p->max_compute = 3600ull * 1000000000ull * HS_PS_PER_NS;
    p->max_packets = 1ull << 28;
    p->eager_limit = 16384;
    p->ctrl_bytes = 0;
    p->mem_bw = 10000000000ull;          /* 10 GB/s: one core's memcpy */
    p->shm_latency = 250 * HS_PS_PER_NS;
    p->call_overhead = 0;
    p->reduce_bw = 5000000000ull;        /* 5 GB/s: a vectorised sum of doubles */
    p->max_tag_phases = 256;
    p->latency_cap = 16u << 20;
    p->progress_every = 2.0;
    p->watchdog = 0;
    p->bg_eager_credits = 64;
}

static int check_params(const hs_replay_params *p, hs_error *err)
{
    if (!p->trace || !*p->trace)
        return hs_error_set(err, HS_EINVAL, "no trace given");
    if (!p->topo || !*p->topo)
        return hs_error_set(err, HS_EINVAL, "no topology given");
    if (p->compute_scale != HS_REPLAY_SCALE_AUTO &&
        (!(p->compute_scale >= 0) || p->compute_scale > 1e6))
        return hs_error_set(err, HS_EINVAL, "compute scale %g: must be in [0, 1e6], or auto",
                            p->compute_scale);
    if (p->mem_bw == 0)
        return hs_error_set(err, HS_EINVAL, "memory bandwidth must be positive");
    if (p->ctrl_bytes > HS_FABRIC_MAX_MTU)
        return hs_error_set(err, HS_EINVAL, "control messages of %u bytes: at most %u",
                            p->ctrl_bytes, HS_FABRIC_MAX_MTU);
    if (p->max_tag_phases == 0 || p->max_tag_phases > 60000)
        return hs_error_set(err, HS_EINVAL, "tag phases %u: must be 1..60000", p->max_tag_phases);
    if (p->latency_cap == 0)
        return hs_error_set(err, HS_EINVAL, "latency sample cap must be positive");
    if (p->congestion_impact && (!p->background || !*p->background))
        return hs_error_set(err, HS_EINVAL, "the congestion impact needs a background "
                            "(--background SPEC)");
    return 0;
}

/* Ranks per node when none is given: the trace's virtual nodes, or one
 * rank per node when it was recorded on real hosts (their placement on one
 * workstation says nothing about the modelled machine). */
uint32_t hs_replay_default_ppn(const hs_trace_manifest *m)
{
    if (!m || !m->node_mode || strcmp(m->node_mode, "host") == 0 || !m->nnodes)
        return 1;
    uint32_t *cnt = calloc(m->nnodes, sizeof *cnt), best = 1;
    if (!cnt)
        return 1;
    for (uint32_t r = 0; r < m->nranks; r++)
        if (m->rank_node[r] < m->nnodes && ++cnt[m->rank_node[r]] > best)
            best = cnt[m->rank_node[r]];
    free(cnt);
    return best;
}

static void rp_free(rp *R)
{
    if (R->F)
        hs_fabric_destroy(R->F);
    free(R->ops);
    free(R->aux);
    for (uint32_t j = 0; j < R->njobs; j++) {
        hs__rp_map_free(&R->jobs[j].comm_ids);
        hs__rp_map_free(&R->jobs[j].win_ids);
    }
    free(R->jobs);
    free(R->ranks);
    free(R->actors);
    for (uint32_t c = 0; c < R->ncomms; c++) {
        free(R->comms[c].members);
        free(R->comms[c].rev);
    }
    free(R->comms);
    for (uint32_t w = 0; w < R->nwins; w++)
        free(R->wins[w].wr);
    free(R->wins);
    free(R->req);
    free(R->msg);
    free(R->wire);
    free(R->rcv);
    if (R->coll) {
        /* instances still running (a deadlock) own their iterators */
        uint8_t *freed = calloc(R->capcoll ? R->capcoll : 1, 1);
        if (freed) {
            for (uint32_t c = R->coll_free; c != RP_NIL; c = R->coll[c].next)
                freed[c] = 1;
            for (size_t c = 0; c < R->capcoll; c++)
                if (!freed[c]) {
                    hs__coll_end(&R->coll[c].it);
                    free((void *)R->coll[c].it.req.out_peers);
                }
            free(freed);
        }
    }
    free(R->coll);
    free(R->rma);
    free(R->mt);
    hs__rp_map_free(&R->coll_seq);
    hs__rp_map_free(&R->pair_seq);
    hs__rp_map_free(&R->bg_credit);
    free(R->ph);
    hs__rp_map_free(&R->ph_map);
    free(R->lat.v);
    free(R->lat.ph);
    hs__rp_map_free(&R->pairs.map);
    free(R->pairs.key);
    free(R->pairs.bytes);
    free(R->pairs.msgs);
    hs__rp_map_free(&R->rpairs.map);
    free(R->rpairs.key);
    free(R->rpairs.bytes);
    free(R->rpairs.msgs);
    free(R->node_of);
    free(R->man.command);
    free(R->man.node_mode);
    free(R->man.rank_node);
    free(R->app_scale);
    free(R->bg_nodes);
    free(R->bg_phases);
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct extra_ctx {
    const rp *R;
    const hs_replay_result *res;
} extra_ctx;

/* The manifest names app.json among its files and sums the replay up. */
static void manifest_extra(void *ctx, hs_json *j)
{
    const extra_ctx *x = ctx;
    hs__rp_manifest_app(j, x->res);
}

/* A mapping file places ranks freely: with --ppn given, no node may get
 * more ranks than that (the file and the option would describe different
 * machines); without it, the ranks per node reported are the file's. */
static int file_ppn(hs_mapping_cfg *map, uint32_t given, const uint32_t *node, uint32_t nranks,
                    uint32_t nnodes, hs_error *err)
{
    uint32_t *cnt = calloc(nnodes, sizeof *cnt);
    if (!cnt)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    uint32_t most = 0, at = 0;
    for (uint32_t r = 0; r < nranks; r++)
        if (++cnt[node[r]] > most) {
            most = cnt[node[r]];
            at = node[r];
        }
    free(cnt);
    if (given && most > given) {
        char list[160];
        size_t k = 0;
        list[0] = 0;
        for (uint32_t r = 0, shown = 0; r < nranks && k < sizeof list - 16; r++)
            if (node[r] == at)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%u", shown++ ? ", " : "", r);
        return hs_error_set(err, HS_EINVAL, "%s: node %u gets %u ranks (%s), more than --ppn %u",
                            map->file, at, most, list, given);
    }
    if (most > map->ppn)
        map->ppn = most;
    return 0;
}

static int place_app(rp *R, hs_mapping_cfg *map, hs_error *err)
{
    const hs_replay_params *p = R->prm;
    uint32_t ppn = p->ppn ? p->ppn : hs_replay_default_ppn(R->have_man ? &R->man : NULL);
    map->ppn = ppn;
    const rp_job *J0 = &R->jobs[0];
    if (p->node_of_rank) {
        /* an explicit placement (hopscope whatif) */
        memset(map, 0, sizeof *map);
        map->policy = HS_MAP_FILE;
        map->ppn = ppn;
        snprintf(map->file, sizeof map->file, "explicit");
        if (p->node_of_rank_n != J0->nranks)
            return hs_error_set(err, HS_EINVAL, "explicit mapping of %u ranks for a trace of %u",
                                p->node_of_rank_n, J0->nranks);
        uint32_t *cnt = calloc(R->nnodes, sizeof *cnt);
        if (!cnt)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        map->ppn = 1;
        for (uint32_t r = 0; r < J0->nranks; r++) {
            if (p->node_of_rank[r] >= R->nnodes) {
                free(cnt);
                return hs_error_set(err, HS_EINVAL, "explicit mapping: rank %u on node %u, the "
                                    "machine has %u", r, p->node_of_rank[r], R->nnodes);
            }
            R->ranks[J0->rank0 + r].node = p->node_of_rank[r];
            if (++cnt[p->node_of_rank[r]] > map->ppn)
                map->ppn = cnt[p->node_of_rank[r]];
        }
        free(cnt);
        return 0;
    }
    int rc = hs_mapping_parse(p->map ? p->map : "linear", map, err);
    if (rc)
        return rc;
    if (map->policy == HS_MAP_RANDOM && !map->seed_given)
        map->seed = p->seed;
    const rp_job *J = &R->jobs[0];
    uint32_t *node = malloc((size_t)J->nranks * sizeof *node);
    if (!node)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    rc = hs_mapping_build(map, J->nranks, R->nnodes, node, err);
    if (!rc && map->policy == HS_MAP_FILE)
        rc = file_ppn(map, p->ppn, node, J->nranks, R->nnodes, err);
    if (!rc)
        for (uint32_t r = 0; r < J->nranks; r++)
            R->ranks[J->rank0 + r].node = node[r];
    free(node);
    return rc;
}

/* The application's times and totals in res: each rank's end (a rank not
 * done ends with the run), the run's, mean compute and communication time,
 * messages and bytes.  HS_ENOMEM if the per-rank array cannot be had. */
static int app_times(const rp *R, const rp_job *J, hs_replay_result *res)
{
    res->ranks = J->nranks;
    res->actors = R->app_actors;
    res->rank_time = calloc(J->nranks ? J->nranks : 1, sizeof *res->rank_time);
    if (!res->rank_time)
        return HS_ENOMEM;
    uint64_t comp = 0, comm = 0;
    for (uint32_t a = J->actor0; a < J->actor0 + J->nactors; a++) {
        const rp_actor *A = &R->actors[a];
        uint32_t r = R->ranks[A->rank].jrank;
        hs_time e = A->state == A_DONE ? A->t_end : R->t_end;
        if (e > res->rank_time[r])
            res->rank_time[r] = e;
        comp += A->compute;
        comm += A->comm;
    }
    for (uint32_t r = 0; r < J->nranks; r++)
        if (res->rank_time[r] > res->total)
            res->total = res->rank_time[r];
    res->compute_mean = J->nranks ? (hs_time)((comp + J->nranks / 2) / J->nranks) : 0;
    res->comm_mean = J->nranks ? (hs_time)((comm + J->nranks / 2) / J->nranks) : 0;
    res->messages = R->app_msgs;
    res->bytes = R->app_bytes;
    return 0;
}

/* The network's side of res: its statistics (events and hops added to the
 * replay's own), monitoring and the in-band field's widths. */
static void net_results(const rp *R, hs_replay_result *res)
{
    hs_fabric_stats st;
    hs_fabric_get_stats(R->F, &st);
    res->events += st.events;
    res->hops += st.hops;
    res->net = st;
    res->packets_monitored = st.packets_monitored;
    res->packets_overflowed = st.packets_overflowed;
    res->max_route_links = hs_fabric_max_route_links(R->F);
    res->monitor_p = R->jobs[0].sample_rate;
    const hs_scheme *sc = hs_fabric_scheme(R->F);
    res->hop_bits = sc->c;
    res->field_bits = sc->field_bits;
}

/* The run of one process of a parallel replay: to global idle, the
 * network's and the replay's results gathered at part 0, which writes the
 * run directory (docs/fabric.md, "Parallel runs").  Every process goes
 * through the same collective steps, failed or not. */
static int run_par(rp *R, const hs_replay_params *p, const char *out, hs_replay_result *res,
                   hs_mapping_cfg *map, double w0, double w_loaded, uint64_t warnings0,
                   hs_error *err)
{
    const hs_fabric_transport *tr = p->transport;
    int frc = hs_fabric_run_parallel(R->F, tr);
    int lrc = R->error ? R->error : frc < 0 && frc != HS_EDEADLOCK ? frc : 0;
    int grc = hs_fabric_gather_results(R->F, tr);
    if (!lrc)
        lrc = grc;
    uint64_t us = 0, ur = 0;
    int rc = hs__rp_par_gather(R, tr, lrc, warnings0, &us, &ur);
    if (p->on_parallel_done)
        p->on_parallel_done(p->on_parallel_ctx, R->F);
    R->t_end = hs_fabric_now(R->F);
    double w_ran = wall_now();
    res->wall_load += w_loaded - w0;
    res->wall_run += w_ran - w_loaded;
    res->ops += R->nops;
    if (hs_fabric_part(R->F) != 0 || rc) {
        if (rc)
            rc = rc == HS_ECHILD ? hs_error_set(err, rc, "another process of the run failed")
               : R->over_packets
               ? hs_error_set(err, HS_ERANGE, "the application has sent more than "
                              "--max-packets %llu packets: raise the limit (0: none)",
                              (unsigned long long)p->max_packets)
               : hs_error_set(err, rc, "replay failed: %s", hs_strerror(rc));
        rp_free(R);
        return rc;
    }
    /* part 0: the whole run's results.  --max-packets bounds the packets
     * the application sent in the whole run: each part checked its own
     * count as it went; the sum, over the bound, fails the run as the
     * sequential run fails (at some point of it) */
    if (p->max_packets && R->app_packets > p->max_packets) {
        rc = hs_error_set(err, HS_ERANGE, "the application has sent %llu packets, more than "
                          "--max-packets %llu: raise the limit (0: none)",
                          (unsigned long long)R->app_packets,
                          (unsigned long long)p->max_packets);
        rp_free(R);
        return rc;
    }
    const rp_job *J = &R->jobs[0];
    if (frc == HS_EDEADLOCK) {
        /* a cycle of full buffers may span processes: not searched */
        char tb[32];
        rc = hs_error_set(err, HS_EDEADLOCK, "the network deadlocked (packets stuck in buffers "
                          "at %s, %u of %u ranks/threads finished): a parallel run does not "
                          "search the cycle; replay it with hopscope to see it",
                          hs_time_str(R->t_end, tb, sizeof tb), R->app_done, R->app_actors);
        rp_free(R);
        return rc;
    }
    /* at global idle, ranks not done cannot go on: the sequential run's
     * deadlock, found there too */
    if (R->app_done != R->app_actors)
        R->deadlock = 1;
    if (app_times(R, J, res)) {
        rp_free(R);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    hs__rp_lat_stats(R, -1, &res->lat);
    hs__rp_report(R, res);
    res->unmatched_sends = us;
    res->unmatched_recvs = ur;
    if (!res->status && (us || ur))
        res->status = HS_ESTATE;
    if (us || ur) {
        /* the leftovers one by one are the receivers' processes': counts only */
        char *old = res->report;
        size_t n = (old ? strlen(old) : 0) + 300;
        res->report = malloc(n);
        if (res->report)
            snprintf(res->report, n, "%s%llu message%s never received, %llu receive%s never "
                     "matched (a parallel run gathers the counts: replay it with hopscope "
                     "for the list)\n", old ? old : "", (unsigned long long)us,
                     us == 1 ? "" : "s", (unsigned long long)ur, ur == 1 ? "" : "s");
        free(old);
    }
    hs__rp_phases_result(R, res);
    net_results(R, res);
    if (out) {
        rc = hs_mkdir_p(out, err);
        if (!rc)
            rc = hs__rp_write_app_json(R, out, res, map, err);
        if (!rc) {
            extra_ctx x = { R, res };
            rc = hs_fabric_write_rundir(R->F, out, manifest_extra, &x, err);
        }
    }
    res->wall_write += wall_now() - w_ran;
    res->wall += wall_now() - w0;
    rp_free(R);
    return rc;
}

static int run_once(const hs_replay_params *p, const char *bg, const char *out, const char *stage,
                    const hs_replay_result *iso, hs_replay_result *res, hs_error *err)
{
    double w0 = wall_now();
    rp Rs, *R = &Rs;
    memset(R, 0, sizeof *R);
    R->prm = p;
    R->err = err;
    R->stage = stage;
    R->msg_free = R->rcv_free = R->coll_free = R->rma_free = R->wire_free = RP_NIL;
    R->ready_head = R->ready_tail = RP_NIL;
    hs__coll_tuning_default(&R->tuning);
    hs_mapping_cfg map;
    memset(&map, 0, sizeof map);
    int rc = 0;
    if (hs__rp_mt_init(R) || hs__rp_map_init(&R->coll_seq, 1024) ||
        hs__rp_map_init(&R->pair_seq, 64) || hs__rp_map_init(&R->ph_map, 64) ||
        hs__rp_map_init(&R->bg_credit, 64) ||
        hs__rp_map_init(&R->pairs.map, 1024) || hs__rp_map_init(&R->rpairs.map, 64))
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    if (!rc)
        rc = hs__rp_coll_parse(R, p->coll, err);
    if (!rc)
        rc = hs_fabric_create(&R->F, p->topo, &p->net, err);
    if (!rc && p->transport) {
        /* this process simulates one part of the network and the ranks on
         * its nodes (docs/fabric.md, "Parallel runs") */
        rc = hs_fabric_partition(R->F, p->nparts, p->part);
        if (rc)
            rc = hs_error_set(err, rc == HS_ENOMEM ? HS_ENOMEM : HS_EINVAL,
                              "cannot split %s over %u processes: %s", p->topo, p->nparts,
                              rc == HS_ENOTSUP ? "routing=ugal-g (it reads queues of every "
                                                 "group) and router=booksim (a cycle-level "
                                                 "model of one process) run with hopscope only"
                              : rc == HS_EINVAL ? "more processes than switches"
                              : hs_strerror(rc));
        R->par = 1;
    }
    if (!rc) {
        R->nnodes = hs_topo_nodes(hs_fabric_topo(R->F));
        rc = hs__rp_load_trace(R, p->trace, 1, err);
    }
    if (!rc) /* the application's messages are monitored with the trace's rate */
        rc = hs_fabric_set_monitoring(R->F, R->jobs[0].sample_rate);
    if (!rc) {
        R->app_ranks = R->jobs[0].nranks;
        R->app_actors = R->jobs[0].nactors;
        rc = place_app(R, &map, err);
    }
    if (!rc && bg) {
        uint8_t *used = calloc(R->nnodes, 1);
        if (!used) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        } else {
            for (uint32_t r = 0; r < R->app_ranks; r++)
                used[R->ranks[r].node] = 1;
            rc = hs__rp_background(R, bg, used, err);
            free(used);
        }
    }
    if (!rc) {
        R->req = calloc(R->nreq ? R->nreq : 1, sizeof *R->req);
        if (!R->req)
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    if (!rc && (rc = hs__rp_phases_prepass(R)))
        rc = hs_error_set(err, rc, "out of memory");
    if (!rc && R->par && R->nwins)
        rc = hs_error_set(err, HS_EINVAL, "the trace uses one-sided communication (RMA), "
                          "which does not run in parallel: replay it with hopscope");
    if (!rc && R->par && hs_fabric_nparts(R->F) > 1 &&
        hs_fabric_lookahead(R->F) == HS_TIME_NEVER)
        rc = hs_error_set(err, HS_EINVAL, "no link is cut between the parts");
    if (!rc && R->par && hs_fabric_nparts(R->F) > 1 && (rc = hs__rp_par_balance(R)))
        rc = hs_error_set(err, rc, "cannot balance the partition: %s", hs_strerror(rc));
    if (rc) {
        rp_free(R);
        return rc;
    }
    for (size_t i = 0; i < R->nreq; i++) {
        R->req[i].waiter = RP_NIL;
        R->req[i].op = RP_NIL;
    }
    R->lat.limit = p->latency_cap;
    hs__seed(R->lat.rng, p->seed ^ 0x6c6174ull);   /* "lat" */
    hs_fabric_callbacks cb = { hs__rp_on_sent, hs__rp_on_delivered, hs__rp_on_timer };
    hs_fabric_set_callbacks(R->F, &cb, R);

    double w_loaded = wall_now();
    /* The watchdog: derived from the network unless given (docs/replay.md) */
    R->watchdog = p->watchdog ? p->watchdog : 10 * hs_fabric_drain_time(R->F);
    if (R->watchdog == 0)
        R->watchdog = 1;
    res->watchdog = R->watchdog;
    /* Only a background job (which loops) can keep the network busy while
     * the application stands still: without one a replay ends, deadlocks
     * (found when nothing is left to run) or goes idle with packets left
     * (a network deadlock, found then), so the watchdog, a timer that
     * reads the whole network and every rank, runs only with background
     * jobs (docs/replay.md, "When the replay cannot go on"). */
    int has_bg = 0;
    for (uint32_t j = 0; j < R->njobs; j++)
        has_bg |= !R->jobs[j].app;
    R->to_idle = !has_bg;
    if (has_bg && (rc = hs_fabric_timer(R->F, R->watchdog, ck_make(TM_WATCHDOG, 0, 0)))) {
        rp_free(R);
        return hs_error_set(err, rc, "out of memory");
    }
    /* Every actor starts at time 0, the end of MPI_Init (in a parallel
     * run, the actors of this process's nodes). */
    uint64_t warnings0 = R->warnings;
    for (uint32_t a = 0; a < R->nactors; a++)
        if (!R->par || hs_fabric_node_local(R->F, R->ranks[R->actors[a].rank].node))
            hs__rp_actor_ready(R, a);
    hs__rp_drain(R);
    if (R->par)
        return run_par(R, p, out, res, &map, w0, w_loaded, warnings0, err);

    hs_time slice = HS_PS_PER_US;
    double last = wall_now();
    int net_deadlock = 0;
    while (!R->error && (!R->stop || R->to_idle)) {
        hs_time now = hs_fabric_now(R->F);
        double t0 = wall_now();
        int r = hs_fabric_run(R->F, now > HS_TIME_NEVER - slice ? HS_TIME_NEVER : now + slice);
        double dt = wall_now() - t0;
        if (r == HS_EDEADLOCK) {
            net_deadlock = 1;
            if (hs_fabric_find_deadlock(R->F, &R->dl) == 1)
                R->net_deadlock = 1;
            break;
        }
        if (r < 0) {
            R->error = r;
            break;
        }
        if (r == 1 && !R->stop) {
            hs__rp_drain(R);      /* cannot leave work queued, but check the end */
            hs__rp_check_end(R);
            if (!R->stop) {       /* idle with actors queued: impossible; stop cleanly */
                R->deadlock = 1;
                R->stop = 1;
            }
        }
        if (r == 1 && R->to_idle)
            break;                /* the end without a background: the network is idle */
        if (dt < 0.02 && slice < HS_PS_PER_S / 1000)
            slice *= 2;
        else if (dt > 0.2 && slice > 1000)
            slice /= 2;
        double w = wall_now();
        if (p->progress && w - last >= p->progress_every) {
            last = w;
            hs_fabric_stats st;
            hs_fabric_get_stats(R->F, &st);
            hs_replay_progress pr = { hs_fabric_now(R->F), st.events, R->app_actors, R->app_done,
                                      R->app_msgs, w - w0, stage ? stage : "" };
            p->progress(p->progress_ctx, &pr);
        }
    }
    /* a cycle that formed after the application's last watchdog round */
    if (!R->error && !R->net_deadlock && !net_deadlock &&
        hs_fabric_find_deadlock(R->F, &R->dl) == 1)
        R->net_deadlock = 1;
    R->t_end = hs_fabric_now(R->F);
    double w_ran = wall_now();
    res->wall_load += w_loaded - w0;
    res->wall_run += w_ran - w_loaded;
    res->ops += R->nops;
    if (R->error) {
        char tb[32];
        rc = R->error == HS_ENOMEM ? hs_error_set(err, HS_ENOMEM, "out of memory during the replay")
           : R->over_packets
           ? hs_error_set(err, HS_ERANGE, "stopped at %s: the application has sent more than "
                          "--max-packets %llu packets (every message counted as if it crossed "
                          "the network; the trace's messages gave %llu, the rest came from "
                          "persistent sends and the collectives' algorithms): raise the limit "
                          "(0: none) to replay it anyway", hs_time_str(R->t_end, tb, sizeof tb),
                          (unsigned long long)p->max_packets,
                          (unsigned long long)R->est_packets)
           : R->error == HS_ERANGE && R->err_bytes
           ? hs_error_set(err, HS_ERANGE, "stopped at %s: a message of %llu bytes is more "
                          "packets than the network model carries in one message (2^32 - 1 "
                          "of %u bytes); --max-packets 0 lifts only the replay's own limit",
                          hs_time_str(R->t_end, tb, sizeof tb),
                          (unsigned long long)R->err_bytes, p->net.mtu)
           : hs_error_set(err, R->error, "replay failed: %s", hs_strerror(R->error));
        rp_free(R);
        return rc;
    }

    /* ---- results ---- */
    const rp_job *J = &R->jobs[0];
    if (app_times(R, J, res)) {
        rp_free(R);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    res->rma_ops = R->app_rma;
    res->rma_bytes = R->app_rma_bytes;
    hs__rp_lat_stats(R, -1, &res->lat);
    res->bg_messages = R->bg_msgs;
    res->bg_bytes = R->bg_bytes;
    res->bg_nodes = R->nbg_nodes;
    hs__rp_report(R, res);
    hs__rp_phases_result(R, res);
    if (net_deadlock || R->net_deadlock) {
        res->status = HS_EDEADLOCK;
        res->stop = HS_REPLAY_NET_DEADLOCK;
        char *old = res->report, cyc[8192] = "";
        if (R->net_deadlock)
            hs_fabric_deadlock_str(R->F, &R->dl, cyc, sizeof cyc);
        size_t n = (old ? strlen(old) : 0) + strlen(cyc) + 200;
        res->report = malloc(n);
        if (res->report)
            snprintf(res->report, n, "the network deadlocked (packets stuck in buffers: a "
                     "routing deadlock)\n%s%s", cyc, old ? old : "");
        free(old);
    }
    if (iso) {
        res->ci = 1;
        res->iso_total = iso->total;
        res->iso_lat = iso->lat;
        res->ci_latency = iso->lat.p99 ? (double)res->lat.p99 / (double)iso->lat.p99 : NAN;
        res->ci_bandwidth = iso->comm_mean ? (double)res->comm_mean / (double)iso->comm_mean : NAN;
        res->ci_runtime = iso->total ? (double)res->total / (double)iso->total : NAN;
    }
    net_results(R, res);
    if (out) {
        char path[4096];
        rc = hs_mkdir_p(out, err);
        if (!rc && (size_t)snprintf(path, sizeof path, "%s/manifest.json", out) < sizeof path)
            unlink(path);   /* the directory is incomplete until it is rewritten */
        if (!rc)
            rc = hs__rp_write_app_json(R, out, res, &map, err);
        if (!rc) {
            extra_ctx x = { R, res };
            rc = hs_fabric_write_rundir(R->F, out, manifest_extra, &x, err);
        }
    }
    res->wall_write += wall_now() - w_ran;
    res->wall += wall_now() - w0;
    rp_free(R);
    return rc;
}

int hs_replay_check(const hs_replay_params *p, hs_error *err)
{
    hs_replay_params q = *p;
    if (!q.trace)
        q.trace = "(not yet recorded)";   /* the range checks need a name */
    if (!q.topo)
        q.topo = "(chosen later)";
    int rc = check_params(&q, err);
    if (rc)
        return rc;
    if (p->topo) {
        hs_topo *t;
        if ((rc = hs_topo_create(p->topo, &t, err)))
            return rc;
        hs_topo_free(t);
    }
    if (p->map) {
        hs_mapping_cfg m;
        memset(&m, 0, sizeof m);
        if ((rc = hs_mapping_parse(p->map, &m, err)))
            return rc;
        if (m.policy == HS_MAP_FILE) {
            FILE *f = fopen(m.file, "r");
            if (!f)
                return hs_error_set(err, HS_EINVAL, "mapping file '%s': %s", m.file,
                                    strerror(errno));
            fclose(f);
        }
    }
    if (p->background && (rc = hs__rp_background_check(p->background, err)))
        return rc;
    if (p->coll) {
        rp *R = calloc(1, sizeof *R);
        if (!R)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        rc = hs__rp_coll_parse(R, p->coll, err);
        free(R);
    }
    return rc;
}

int hs_replay_run(const hs_replay_params *p, hs_replay_result *res, hs_error *err)
{
    memset(res, 0, sizeof *res);
    int rc = check_params(p, err);
    if (rc)
        return rc;
    if (p->transport && (p->background || p->congestion_impact || p->wire || p->on_message))
        return hs_error_set(err, HS_EINVAL, "%s does not run in parallel: replay it with hopscope",
                            p->wire ? "a wire-level replay"
                            : p->on_message ? "a replay reporting every message"
                            : "a replay with background jobs (their eager credits read the "
                              "receiver's state at once, and they loop until the application "
                              "ends)");
    if (p->wire) {
        if (p->background || p->congestion_impact)
            return hs_error_set(err, HS_EINVAL, "a wire-level replay takes no background");
        return hs__replay_wire(p, res, err);
    }
    if (p->congestion_impact) {
        hs_replay_result iso;
        memset(&iso, 0, sizeof iso);
        rc = run_once(p, NULL, NULL, "isolated", NULL, &iso, err);
        if (!rc) {
            rc = run_once(p, p->background, p->out, "congested", &iso, res, err);
            res->wall += iso.wall;
            res->wall_load += iso.wall_load;
            res->wall_run += iso.wall_run;
        }
        hs_replay_result_free(&iso);
        return rc;
    }
    return run_once(p, p->background, p->out, NULL, NULL, res, err);
}

const char *hs_replay_status_name(const hs_replay_result *r)
{
    if (r->status == HS_EDEADLOCK)
        return r->stop == HS_REPLAY_NET_DEADLOCK ? "network_deadlock"
               : r->stop == HS_REPLAY_STALLED ? "stalled" : "deadlock";
    return r->status == HS_ESTATE ? "incomplete" : "ok";
}

void hs__rp_watchdog(rp *R)
{
    if (R->stop)
        return;
    hs_time now = hs_fabric_now(R->F);
    int rc = hs_fabric_find_deadlock(R->F, &R->dl);
    if (rc < 0) {
        R->error = rc;
        R->stop = 1;
        hs_fabric_stop(R->F);
        return;
    }
    if (rc == 1) {
        R->net_deadlock = 1;
        R->stop = 1;
        hs_fabric_stop(R->F);
        return;
    }
    /* the application's last progress: a callback of its own, or a packet
     * of one of its phases delivered (a long message moves before it ends) */
    hs_time last = R->t_progress;
    for (uint32_t i = 0; i < R->nph; i++) {
        if (R->ph[i].cls == PH_BG)
            continue;
        hs_time t = hs_fabric_phase_last_delivery(R->F, (uint16_t)i);
        if (t != HS_TIME_NEVER && t > last)
            last = t;
    }
    if (R->app_timers == 0 && now - last >= R->watchdog) {
        R->stalled = 1;
        R->t_stall = last;
        R->stop = 1;
        hs_fabric_stop(R->F);
        return;
    }
    /* computing ranks will report back; otherwise look again a watchdog
     * period after the last progress */
    hs_time next = R->app_timers || last + R->watchdog <= now ? now + R->watchdog
                                                                : last + R->watchdog;
    if ((rc = hs_fabric_timer(R->F, next, ck_make(TM_WATCHDOG, 0, 0)))) {
        R->error = rc;
        R->stop = 1;
        hs_fabric_stop(R->F);
    }
}

void hs_replay_result_free(hs_replay_result *r)
{
    if (!r)
        return;
    free(r->rank_time);
    free(r->report);
    free(r->phases);
    r->rank_time = NULL;
    r->report = NULL;
    r->phases = NULL;
}
