/* hopscope simulate: runs the packet-level model with synthetic traffic and
 * prints accepted throughput and latency percentiles, or (-i TRACE) replays
 * a recorded MPI job on it (hs_replay_run) and prints the predicted times,
 * phases and latencies; -o writes the run directory.
 *
 * Option parsing is one table (opts[] + apply()): the network's options
 * serve both modes, the traffic options only the synthetic one, the
 * replay's only -i. */
#include "cli.h"
#include "hopscope/fabric.h"
#include "hopscope/replay.h"

#include <errno.h>
#include <getopt.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    O_TOPO = 1000, O_TRAFFIC, O_LOAD, O_SIZE, O_PERIODIC, O_PACKETS, O_DURATION, O_WARMUP,
    O_DRAIN, O_SEED, O_OUT, O_MTU, O_HEADER, O_BUFFER, O_NICBUF, O_UNBOUNDED, O_RDELAY,
    O_RXRATE, O_QUEUES, O_TAUF, O_TAU, O_WINDOW, O_UGALT, O_HOPBITS, O_HASHBITS, O_EXACT,
    O_SALT, O_LINKBITS, O_NORECORDS, O_RECCAP, O_RTABLES, O_TSV, O_QUIET, O_MONITOR, O_MAXWIN,
    /* replay */
    O_INPUT, O_MAP, O_PPN, O_BACKGROUND, O_CI, O_BITS, O_SCALE, O_EAGER, O_CTRL, O_MEMBW,
    O_SHMLAT, O_OVERHEAD, O_REDBW, O_COLL, O_TAGPH, O_LATCAP, O_WATCHDOG, O_BGCREDITS,
    O_MAXCOMP, O_WIRE, O_MAXPK, O_PARSTATS,
};

static const struct option opts[] = {
    { "topo", required_argument, NULL, O_TOPO },
    { "traffic", required_argument, NULL, O_TRAFFIC },
    { "load", required_argument, NULL, O_LOAD },
    { "size", required_argument, NULL, O_SIZE },
    { "periodic", no_argument, NULL, O_PERIODIC },
    { "packets", required_argument, NULL, O_PACKETS },
    { "duration", required_argument, NULL, O_DURATION },
    { "warmup", required_argument, NULL, O_WARMUP },
    { "drain", required_argument, NULL, O_DRAIN },
    { "seed", required_argument, NULL, O_SEED },
    { "output", required_argument, NULL, O_OUT },
    { "mtu", required_argument, NULL, O_MTU },
    { "header", required_argument, NULL, O_HEADER },
    { "buffer", required_argument, NULL, O_BUFFER },
    { "nic-buffer", required_argument, NULL, O_NICBUF },
    { "unbounded", no_argument, NULL, O_UNBOUNDED },
    { "route-delay", required_argument, NULL, O_RDELAY },
    { "rx-rate", required_argument, NULL, O_RXRATE },
    { "nic-queues", required_argument, NULL, O_QUEUES },
    { "tau-factor", required_argument, NULL, O_TAUF },
    { "tau", required_argument, NULL, O_TAU },
    { "window", required_argument, NULL, O_WINDOW },
    { "max-windows", required_argument, NULL, O_MAXWIN },
    { "ugal-threshold", required_argument, NULL, O_UGALT },
    { "hop-bits", required_argument, NULL, O_HOPBITS },
    { "hash-bits", required_argument, NULL, O_HASHBITS },
    { "exact", no_argument, NULL, O_EXACT },
    { "salt", required_argument, NULL, O_SALT },
    { "link-bits", required_argument, NULL, O_LINKBITS },
    { "no-records", no_argument, NULL, O_NORECORDS },
    { "monitor", required_argument, NULL, O_MONITOR },
    { "records-cap", required_argument, NULL, O_RECCAP },
    { "route-tables", no_argument, NULL, O_RTABLES },
    { "tsv", no_argument, NULL, O_TSV },
    { "quiet", no_argument, NULL, O_QUIET },
    { "input", required_argument, NULL, O_INPUT },
    { "map", required_argument, NULL, O_MAP },
    { "ppn", required_argument, NULL, O_PPN },
    { "background", required_argument, NULL, O_BACKGROUND },
    { "congestion-impact", no_argument, NULL, O_CI },
    { "bits", required_argument, NULL, O_BITS },
    { "compute-scale", required_argument, NULL, O_SCALE },
    { "max-compute", required_argument, NULL, O_MAXCOMP },
    { "max-packets", required_argument, NULL, O_MAXPK },
    { "eager", required_argument, NULL, O_EAGER },
    { "ctrl-bytes", required_argument, NULL, O_CTRL },
    { "mem-bw", required_argument, NULL, O_MEMBW },
    { "shm-latency", required_argument, NULL, O_SHMLAT },
    { "mpi-overhead", required_argument, NULL, O_OVERHEAD },
    { "reduce-bw", required_argument, NULL, O_REDBW },
    { "coll", required_argument, NULL, O_COLL },
    { "tag-phases", required_argument, NULL, O_TAGPH },
    { "latency-samples", required_argument, NULL, O_LATCAP },
    { "watchdog", required_argument, NULL, O_WATCHDOG },
    { "bg-eager-credits", required_argument, NULL, O_BGCREDITS },
    { "wire", no_argument, NULL, O_WIRE },
    { "par-stats", no_argument, NULL, O_PARSTATS },
    { NULL, 0, NULL, 0 },
};

typedef struct sim_opts {
    const char *topo, *traffic, *out;
    hs_fabric_params prm;
    hs_traffic_cfg tc;
    int tsv, quiet, par_stats;
    hs_replay_params rp;
    int traffic_opt;          /* a synthetic-traffic option was given */
    const char *traffic_name;
} sim_opts;

#define CMD "simulate"

static int bad(const char *opt, const char *val, const char *want)
{
    return hs__usage_error(CMD, "--%s %s: expected %s", opt, val, want);
}

static int u64_in(const char *opt, const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
                  const char *want)
{
    if (hs_parse_u64(v, out) || *out < lo || *out > hi)
        return bad(opt, v, want);
    return 0;
}

/* Applies one option; returns 0 or the exit code of a usage error. */
static int apply(sim_opts *o, int c, const char *v)
{
    uint64_t u;
    double d;
    hs_time t;
    int rc = 0;
    static const struct { int c; const char *name; } synthetic[] = {
        { O_TRAFFIC, "traffic" }, { O_LOAD, "load" }, { O_SIZE, "size" },
        { O_PERIODIC, "periodic" }, { O_PACKETS, "packets" }, { O_DURATION, "duration" },
        { O_WARMUP, "warmup" }, { O_DRAIN, "drain" }, { O_MONITOR, "monitor" }, { O_TSV, "tsv" },
    };
    for (size_t i = 0; i < sizeof synthetic / sizeof synthetic[0]; i++)
        if (synthetic[i].c == c) {
            o->traffic_opt = 1;
            o->traffic_name = synthetic[i].name;
        }
    switch (c) {
    case O_TOPO: o->topo = v; break;
    case O_INPUT: case 'i': o->rp.trace = v; break;
    case O_MAP: o->rp.map = v; break;
    case O_PPN:
        rc = u64_in("ppn", v, 1, 1u << 20, &u, "ranks per node, 1..2^20");
        o->rp.ppn = (uint32_t)u;
        break;
    case O_BACKGROUND: o->rp.background = v; break;
    case O_WIRE: o->rp.wire = 1; break;
    case O_CI: o->rp.congestion_impact = 1; break;
    case O_BITS:
        /* the in-band field width: hop counter + hash bits + congestion flag */
        rc = u64_in("bits", v, 5, 4 + HS_HASH_BITS_MAX + 1, &u,
                    "the width of the in-band field, 5..13 (5: c=3,b=1; 6: c=4,b=1, the "
                    "default; 7: c=4,b=2 ...)");
        o->prm.scheme.hop_bits = u == 5 ? 3 : 4;
        o->prm.scheme.hash_bits = u == 5 ? 1 : (unsigned)u - 5;
        break;
    case O_SCALE:
        if (strcmp(v, "auto") == 0)
            d = HS_REPLAY_SCALE_AUTO;
        else if (hs_parse_double(v, &d) || !(d >= 0) || d > 1e6)
            return bad("compute-scale", v, "auto, or a factor >= 0 on the recorded computation");
        o->rp.compute_scale = d;
        break;
    case O_MAXCOMP:
        if (hs_parse_time(v, &t))
            return bad("max-compute", v, "a time such as 600s (0: no limit)");
        o->rp.max_compute = t;
        break;
    case O_MAXPK:
        rc = u64_in("max-packets", v, 0, UINT64_MAX, &u,
                    "a packet count such as 1000000000 (0: no limit)");
        o->rp.max_packets = u;
        break;
    case O_EAGER:
        if (hs_parse_size(v, &u) || u > (1ull << 40))
            return bad("eager", v, "bytes (K, M suffixes)");
        o->rp.eager_limit = u;
        break;
    case O_CTRL:
        rc = u64_in("ctrl-bytes", v, 0, HS_FABRIC_MAX_MTU, &u, "payload bytes of control messages");
        o->rp.ctrl_bytes = (uint32_t)u;
        break;
    case O_MEMBW:
        if (hs_parse_rate(v, &u))
            return bad("mem-bw", v, "a rate such as 10GB/s");
        o->rp.mem_bw = u;
        break;
    case O_SHMLAT:
        if (hs_parse_time(v, &t))
            return bad("shm-latency", v, "a time such as 250ns");
        o->rp.shm_latency = t;
        break;
    case O_OVERHEAD:
        if (hs_parse_time(v, &t))
            return bad("mpi-overhead", v, "a time such as 200ns");
        o->rp.call_overhead = t;
        break;
    case O_REDBW:
        if (hs_parse_rate(v, &u))
            return bad("reduce-bw", v, "a rate such as 5GB/s");
        o->rp.reduce_bw = u;
        break;
    case O_COLL: o->rp.coll = v; break;
    case O_TAGPH:
        rc = u64_in("tag-phases", v, 1, 60000, &u, "1..60000");
        o->rp.max_tag_phases = (unsigned)u;
        break;
    case O_LATCAP:
        rc = u64_in("latency-samples", v, 1, 1ull << 32, &u, "a number of samples");
        o->rp.latency_cap = u;
        break;
    case O_WATCHDOG:
        if (hs_parse_time(v, &t) || t == 0)
            return bad("watchdog", v, "a positive time such as 20ms");
        o->rp.watchdog = t;
        break;
    case O_BGCREDITS:
        rc = u64_in("bg-eager-credits", v, 1, 1u << 20, &u, "1..2^20 messages");
        o->rp.bg_eager_credits = (uint32_t)u;
        break;
    case O_TRAFFIC: o->traffic = v; break;
    case O_OUT: case 'o': o->out = v; break;
    case O_LOAD:
        if (hs_parse_double(v, &d) || !(d > 0) || d > 1)
            return bad("load", v, "a fraction of the injection bandwidth in (0, 1]");
        o->tc.load = d;
        break;
    case O_SIZE:
        if (hs_parse_size(v, &u) || u > (1ull << 32))
            return bad("size", v, "a message size in bytes (K, M suffixes), at most 4G");
        o->tc.size = (uint32_t)u;
        break;
    case O_PERIODIC: o->tc.periodic = 1; break;
    case O_PACKETS:
        rc = u64_in("packets", v, 1, UINT64_MAX, &u, "a positive number of messages");
        o->tc.packets = u;
        break;
    case O_DURATION:
        if (hs_parse_time(v, &t) || t == 0)
            return bad("duration", v, "a positive time such as 20us");
        o->tc.duration = t;
        break;
    case O_WARMUP:
        if (hs_parse_time(v, &t))
            return bad("warmup", v, "a time such as 5us");
        o->tc.warmup = t;
        break;
    case O_DRAIN:
        if (hs_parse_time(v, &t) || t == 0)
            return bad("drain", v, "a positive time such as 200us");
        o->tc.drain_max = t;
        break;
    case O_SEED:
        rc = u64_in("seed", v, 0, UINT64_MAX, &u, "an integer");
        o->tc.seed = u;
        o->prm.seed = u;
        o->rp.seed = u;
        break;
    case O_MTU:
        rc = u64_in("mtu", v, 1, HS_FABRIC_MAX_MTU, &u, "1..1048576 bytes");
        o->prm.mtu = (uint32_t)u;
        break;
    case O_HEADER:
        rc = u64_in("header", v, 0, 4096, &u, "0..4096 bytes");
        o->prm.header = (uint32_t)u;
        break;
    case O_BUFFER:
        if (strcmp(v, "inf") == 0 || strcmp(v, "unbounded") == 0) {
            o->prm.unbounded = 1;
        } else if (hs_parse_size(v, &u) || u == 0) {
            return bad("buffer", v, "bytes per port per VC (K, M suffixes) or 'inf'");
        } else {
            o->prm.vc_buffer = u;
        }
        break;
    case O_NICBUF:
        if (hs_parse_size(v, &u) || u == 0)
            return bad("nic-buffer", v, "bytes (K, M suffixes)");
        o->prm.nic_buffer = u;
        break;
    case O_UNBOUNDED: o->prm.unbounded = 1; break;
    case O_RDELAY:
        if (hs_parse_time(v, &t))
            return bad("route-delay", v, "a time such as 100ns");
        o->prm.route_delay = t;
        break;
    case O_RXRATE:
        if (hs_parse_rate(v, &u))
            return bad("rx-rate", v, "a rate such as 12.5GB/s or 100Gb/s");
        o->prm.rx_rate = u;
        break;
    case O_QUEUES:
        rc = u64_in("nic-queues", v, 1, 1024, &u, "1..1024");
        o->prm.nic_queues = (unsigned)u;
        break;
    case O_TAUF:
        if (hs_parse_double(v, &d) || !(d > 0))
            return bad("tau-factor", v, "a positive multiple of a full packet's serialisation");
        o->prm.tau_factor = d;
        break;
    case O_TAU:
        if (hs_parse_time(v, &t) || t == 0)
            return bad("tau", v, "a positive time such as 300ns");
        o->prm.tau = t;
        break;
    case O_WINDOW:
        if (hs_parse_time(v, &t) || t == 0)
            return bad("window", v, "a positive time such as 10us");
        o->prm.window = t;
        break;
    case O_MAXWIN:
        rc = u64_in("max-windows", v, 0, UINT32_MAX, &u, "a number of windows (0: no limit)");
        o->prm.max_windows = (uint32_t)u;
        break;
    case O_UGALT:
        if (hs_parse_size(v, &u))
            return bad("ugal-threshold", v, "bytes");
        o->prm.ugal_threshold = u;
        break;
    case O_HOPBITS:
        rc = u64_in("hop-bits", v, HS_HOP_BITS_MIN, HS_HOP_BITS_MAX, &u, "2..8");
        o->prm.scheme.hop_bits = (unsigned)u;
        break;
    case O_HASHBITS:
        rc = u64_in("hash-bits", v, HS_HASH_BITS_MIN, HS_HASH_BITS_MAX, &u, "1..8");
        o->prm.scheme.hash_bits = (unsigned)u;
        break;
    case O_EXACT: o->prm.scheme.exact = 1; break;
    case O_SALT:
        rc = u64_in("salt", v, 0, UINT64_MAX, &u, "an integer");
        o->prm.scheme.salt = u;
        break;
    case O_LINKBITS:
        rc = u64_in("link-bits", v, HS_GF_KMIN, HS_GF_KMAX, &u, "4..32");
        o->prm.scheme.k = (unsigned)u;
        break;
    case O_NORECORDS: o->prm.records = 0; break;
    case O_RTABLES: o->prm.route_tables = 1; break;
    case O_MONITOR:
        if (hs_parse_double(v, &d) || !(d >= 0) || d > 1)
            return bad("monitor", v, "a fraction of messages in [0, 1]");
        o->tc.monitor = d;
        break;
    case O_RECCAP:
        rc = u64_in("records-cap", v, 0, UINT64_MAX, &u, "a number of records");
        o->prm.records_cap = u;
        break;
    case O_TSV: o->tsv = 1; break;
    case O_QUIET: o->quiet = 1; break;
    case O_PARSTATS: o->par_stats = 1; break;
    default:
        return HS_EXIT_USAGE;
    }
    return rc;
}

static const char *tstr(hs_time t, char *b, size_t n) { return hs_time_str(t, b, n); }

typedef struct extra_ctx {
    const hs_traffic_cfg *c;
    const hs_traffic_result *r;
} extra_ctx;

static void add_traffic(void *ctx, hs_json *w)
{
    const extra_ctx *x = ctx;
    hs_traffic_json(w, x->c, x->r);
}

/* ---- the replay (-i TRACE) ----------------------------------------------------- */

static void progress(void *ctx, const hs_replay_progress *p)
{
    (void)ctx;
    char a[32];
    fprintf(stderr, "hopscope %s: %s%s%s simulated, %.1f M events, %u/%u ranks done, "
            "%llu messages, %.0f s\n", CMD, *p->stage ? p->stage : "", *p->stage ? ": " : "",
            hs_time_str(p->now, a, sizeof a), (double)p->events / 1e6, p->done, p->actors,
            (unsigned long long)p->messages, p->wall);
}

static void print_lat(const char *label, const hs_replay_lat *l)
{
    char a[32], b[32], c[32], d[32];
    printf("%-11s %llu messages across the network: p50 %s  p99 %s  mean %s  max %s\n", label,
           (unsigned long long)l->messages, tstr(l->p50, a, sizeof a), tstr(l->p99, b, sizeof b),
           tstr(l->mean, c, sizeof c), tstr(l->max, d, sizeof d));
}

/* The in-band line of both summaries, and a loud line when packets were
 * lost to the hop counter. */
/* The network's model state by part, and its packets in flight at most. */
static void print_memory(const hs_fabric_stats *st)
{
    printf("memory      %.1f MB of model state (", (double)st->mem_bytes / 1e6);
    for (unsigned i = 0; i < HS_FABRIC_MEM_PARTS; i++)
        printf("%s%s %.1f", i ? ", " : "", hs_fabric_mem_part_name(i),
               (double)st->mem_part[i] / 1e6);
    printf(" MB), at most %llu packets in flight\n", (unsigned long long)st->packets_peak);
}

static void print_inband(unsigned field_bits, unsigned c, uint32_t maxroute, double p,
                         uint64_t monitored, uint64_t overflowed)
{
    printf("in-band     %u-bit field, %u-bit hop counter (holds %u links; longest route here "
           "%u); %llu packets monitored (probability %.3g per message), %llu overflowed\n",
           field_bits, c, (1u << c) - 2, maxroute, (unsigned long long)monitored, p,
           (unsigned long long)overflowed);
    if (overflowed)
        printf("WARNING     %llu monitored packets (%.1f%%) overflowed the hop counter: they "
               "are in no estimate (hopscope analyze says which figures are low)\n",
               (unsigned long long)overflowed,
               monitored ? 100.0 * (double)overflowed / (double)monitored : 0);
}

/* A width the user forced (--bits, --hop-bits) that routes can overflow:
 * allowed, since studying a narrow field is legitimate, but said loudly
 * before the run (docs/inband.md: overflowed packets are counted and
 * excluded). */
static void check_hop_width(const sim_opts *o)
{
    unsigned c = o->prm.scheme.hop_bits;
    if (!c)
        return;
    hs_topo *t;
    hs_error err;
    hs_error_clear(&err);
    if (hs_topo_create(o->topo, &t, &err))
        return; /* the run itself reports the bad spec */
    uint32_t longest = hs_topo_max_route_links(t);
    hs_topo_free(t);
    if (longest <= (1u << c) - 2)
        return;
    unsigned fit = hs_hop_bits_fit(longest);
    fprintf(stderr, "hopscope %s: WARNING: routes on this network have up to %u links but a "
            "%u-bit hop counter holds %u: packets on longer routes will overflow, be counted "
            "and left out of every estimate (leave the width to its default, or --hop-bits "
            "%u)\n", CMD, longest, c, (1u << c) - 2, fit);
}

static int place_whole(const char *tmp, const char *out, hs_error *err);
static void print_par_stats(const hs_fabric *F, const hs_fabric_transport *tr);

static void replay_par_stats(void *ctx, const hs_fabric *F)
{
    print_par_stats(F, ctx);
}

static int replay(sim_opts *o)
{
    if (o->traffic_opt)
        return hs__usage_error(CMD, "--%s is for synthetic traffic; a replay (-i) takes its "
                               "traffic from the trace", o->traffic_name);
    if (o->rp.congestion_impact && !o->rp.background)
        return hs__usage_error(CMD, "--congestion-impact compares runs with and without a "
                               "background: give --background SPEC");
    o->rp.topo = o->topo;
    o->rp.net = o->prm;
    o->rp.out = o->out;
    if (!o->quiet && !hs__par_transport) {
        o->rp.progress = progress;
        o->rp.progress_every = 3.0;
    }
    hs_error err;
    hs_error_clear(&err);
    char tmp[4096];
    if (hs__par_transport) {
        /* hopscope-par: this process replays the ranks of its part of the
         * network; part 0 writes the run directory beside RUN and renames
         * it into place, so a run whose processes did not all finish
         * leaves none */
        o->rp.transport = hs__par_transport;
        o->rp.nparts = hs__par_np;
        o->rp.part = hs__par_rank;
        if (o->par_stats) {
            o->rp.on_parallel_done = replay_par_stats;
            o->rp.on_parallel_ctx = (void *)hs__par_transport;
        }
        if (o->out) {
            if ((size_t)snprintf(tmp, sizeof tmp, "%s.part-%ld", o->out, (long)getpid()) >=
                sizeof tmp)
                return hs__usage_error(CMD, "run directory name too long");
            hs__rm_rf(tmp);
            o->rp.out = tmp;
        }
    }
    hs_replay_result r;
    int rc = hs_replay_run(&o->rp, &r, &err);
    if (!rc && hs__par_transport && o->out && hs__par_rank == 0)
        rc = place_whole(tmp, o->out, &err);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&err, rc));
        hs_replay_result_free(&r);
        if (hs__par_transport && o->out)
            hs__rm_rf(tmp);
        return rc == HS_EINVAL || rc == HS_EFORMAT || rc == HS_ENOENT || rc == HS_EVERSION
                   ? (rc == HS_EINVAL ? HS_EXIT_USAGE : HS_EXIT_FAIL) : HS_EXIT_FAIL;
    }
    if (hs__par_transport && hs__par_rank != 0) {
        hs_replay_result_free(&r);   /* part 0 has the results: it reports */
        return HS_EXIT_OK;
    }
    char a[32], b[32], c[32], d[32];
    if (!o->quiet) {
        uint64_t mn = UINT64_MAX, sum = 0;
        for (uint32_t i = 0; i < r.ranks; i++) {
            if (r.rank_time[i] < mn)
                mn = r.rank_time[i];
            sum += r.rank_time[i];
        }
        printf("trace       %s: %u ranks", o->rp.trace, r.ranks);
        if (r.actors != r.ranks)
            printf(" (%u threads in all)", r.actors);
        printf("\n");
        printf("network     %s\n", o->topo);
        if (r.bg_nodes)
            printf("background  %s on %u nodes: %llu messages, %.1f MB\n", o->rp.background,
                   r.bg_nodes, (unsigned long long)r.bg_messages, (double)r.bg_bytes / 1e6);
        printf("predicted   %s (ranks end between %s and %s, mean %s)\n",
               tstr(r.total, a, sizeof a), tstr(r.ranks ? mn : 0, b, sizeof b),
               tstr(r.total, c, sizeof c), tstr(r.ranks ? sum / r.ranks : 0, d, sizeof d));
        printf("per rank    computation %s, inside MPI %s (means)\n",
               tstr(r.compute_mean, a, sizeof a), tstr(r.comm_mean, b, sizeof b));
        printf("messages    %llu (%.3f MB)", (unsigned long long)r.messages, (double)r.bytes / 1e6);
        if (r.rma_ops)
            printf(", %llu one-sided operations (%.3f MB)", (unsigned long long)r.rma_ops,
                   (double)r.rma_bytes / 1e6);
        printf("\n");
        print_lat("latency", &r.lat);
        print_inband(r.field_bits, r.hop_bits, r.max_route_links, r.monitor_p,
                     r.packets_monitored, r.packets_overflowed);
        printf("phases      %-4s %-22s %-10s %12s %14s %12s %12s\n", "id", "name", "kind",
               "messages", "bytes", "MPI per rank", "p99 latency");
        for (uint32_t i = 0; i < r.nphases; i++) {
            const hs_replay_phase *ph = &r.phases[i];
            printf("            %-4u %-22.22s %-10s %12llu %14llu %12s %12s\n", ph->id, ph->name,
                   ph->kind, (unsigned long long)ph->messages, (unsigned long long)ph->bytes,
                   ph->app ? tstr(r.ranks ? ph->time / r.ranks : 0, a, sizeof a) : "-",
                   ph->lat.messages ? tstr(ph->lat.p99, b, sizeof b) : "-");
        }
        if (r.ci) {
            printf("congestion  impact (GPCNeT): p99 latency x%.3f (isolated %s, congested %s), "
                   "bandwidth x%.3f, run time x%.3f\n", r.ci_latency,
                   tstr(r.iso_lat.p99, a, sizeof a), tstr(r.lat.p99, b, sizeof b), r.ci_bandwidth,
                   r.ci_runtime);
        }
        printf("simulated   %.3g M events, %.3g M packet hops in %.2f s (compiling the trace "
               "%.2f s, simulating %.2f s, writing %.2f s)\n", (double)r.events / 1e6,
               (double)r.hops / 1e6, r.wall, r.wall_load, r.wall_run, r.wall_write);
        print_memory(&r.net);
        if (o->out)
            printf("run dir     %s\n", o->out);
    }
    if (r.report)
        fprintf(stderr, "hopscope %s: %s%s", CMD,
                r.status == HS_EDEADLOCK ? "the replay cannot go on:\n"
                : r.status ? "the trace ended with operations left over:\n" : "note:\n",
                r.report);
    int ret = r.status ? HS_EXIT_FAIL : HS_EXIT_OK;
    hs_replay_result_free(&r);
    return ret;
}

/* Parses the command line into *o, defaults first; 0 or the exit code of a
 * usage error. */
static int parse_args(int argc, char **argv, sim_opts *o)
{
    memset(o, 0, sizeof *o);
    hs_fabric_params_default(&o->prm);
    hs_traffic_cfg_default(&o->tc);
    hs_replay_params_default(&o->rp);
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+o:i:", opts, NULL)) != -1) {
        if (c == '?' || c == ':')
            return hs__usage_error(CMD, "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        int rc = apply(o, c, optarg);
        if (rc)
            return rc;
    }
    if (optind != argc)
        return hs__usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* The replay's options as `run` will pass them, checked before anything
 * runs: the same parser, then every spec (topology when given, mapping,
 * background, collectives) through hs_replay_check.  The trace need not
 * exist yet. */
int hs__cmd_simulate_check(int argc, char **argv)
{
    sim_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    if (o.traffic_opt)
        return hs__usage_error(CMD, "--%s is for synthetic traffic", o.traffic_name);
    if (o.rp.congestion_impact && !o.rp.background)
        return hs__usage_error(CMD, "--congestion-impact compares runs with and without a "
                               "background: give --background SPEC");
    o.rp.topo = o.topo;
    o.rp.net = o.prm;
    hs_error err;
    hs_error_clear(&err);
    if ((rc = hs_replay_check(&o.rp, &err)))
        return hs__usage_error(CMD, "%s", hs_error_str(&err, rc));
    return 0;
}

static int sim_main(const char *cmd, int argc, char **argv);

/* Renames the complete run directory tmp to out (replacing an older one). */
static int place_whole(const char *tmp, const char *out, hs_error *err)
{
    char old[4096];
    int rc;
    if ((size_t)snprintf(old, sizeof old, "%s.old-%ld", out, (long)getpid()) >= sizeof old)
        return hs_error_set(err, HS_EINVAL, "run directory name too long");
    if (rename(tmp, out) == 0)
        return 0;
    if (errno != ENOTEMPTY && errno != EEXIST) {
        rc = hs_error_set(err, HS_EIO, "cannot rename '%s' to '%s': %s", tmp, out,
                          strerror(errno));
        hs__rm_rf(tmp);
        return rc;
    }
    if (rename(out, old) != 0 || rename(tmp, out) != 0) {
        rc = hs_error_set(err, HS_EIO, "cannot replace '%s': %s", out, strerror(errno));
        hs__rm_rf(tmp);
        return rc;
    }
    hs__rm_rf(old);
    return 0;
}

/* A parallel run's run directory: written whole beside RUN and renamed
 * into place, so that a run whose processes did not all finish leaves no
 * run directory, and an older RUN is replaced only by a complete one. */
static int write_rundir_whole(hs_fabric *F, const char *out, extra_ctx *x, hs_error *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.part-%ld", out, (long)getpid()) >= sizeof tmp)
        return hs_error_set(err, HS_EINVAL, "run directory name too long");
    hs__rm_rf(tmp);
    int rc = hs_fabric_write_rundir(F, tmp, add_traffic, x, err);
    if (rc) {
        hs__rm_rf(tmp);
        return rc;
    }
    return place_whole(tmp, out, err);
}

/* --par-stats: one line per process on stderr (bench/pdes.sh reads them). */
static void print_par_stats(const hs_fabric *F, const hs_fabric_transport *tr)
{
    hs_fabric_par_stats ps;
    uint64_t crit = 0;
    if (hs_fabric_par_stats_get(F, &ps) || hs_fabric_par_critical(F, tr, &crit))
        return;
    if (hs_fabric_part(F) == 0)
        fprintf(stderr, "par-stats critical path %.3f s (the sum over windows of the "
                "largest CPU time of a process)\n", (double)crit * 1e-9);
    struct rusage ru;
    long rss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
    fprintf(stderr,
            "par-stats part %u/%u: windows %llu events %llu ran %llu sent %llu received %llu "
            "sent_bytes %llu run_cpu %.3f s sync_cpu %.3f s run_wall %.3f s sync_wall %.3f s "
            "gather_cpu %.3f s gather_wall %.3f s cpu_total %.3f s lookahead %llu ps "
            "released %llu KB peak_rss %ld KB\n",
            hs_fabric_part(F), hs_fabric_nparts(F), (unsigned long long)ps.windows,
            (unsigned long long)ps.events,
            (unsigned long long)(ps.events + ps.uncounted - ps.skipped), (unsigned long long)ps.sent,
            (unsigned long long)ps.received, (unsigned long long)ps.sent_bytes,
            (double)ps.run_cpu_ns * 1e-9, (double)ps.sync_cpu_ns * 1e-9,
            (double)ps.run_wall_ns * 1e-9, (double)ps.sync_wall_ns * 1e-9,
            (double)ps.gather_cpu_ns * 1e-9, (double)ps.gather_wall_ns * 1e-9,
            (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6,
            (unsigned long long)hs_fabric_lookahead(F),
            (unsigned long long)(ps.released_bytes / 1024), rss);
}

int hs__cmd_simulate(int argc, char **argv)
{
    char *cmd = hs__cmd_line(argc, argv); /* before getopt permutes argv */
    int rc = sim_main(cmd, argc, argv);
    free(cmd);
    return rc;
}

static int sim_main(const char *cmd, int argc, char **argv)
{
    sim_opts o;
    int c = parse_args(argc, argv, &o);
    if (c)
        return c;
    o.rp.command = cmd;
    if (!o.topo)
        return hs__usage_error(CMD, "give the network: --topo SPEC (see 'hopscope help topo')");
    check_hop_width(&o);
    if (o.rp.trace)
        return replay(&o);
    if (o.rp.map || o.rp.background || o.rp.congestion_impact)
        return hs__usage_error(CMD, "--map, --background and --congestion-impact need a trace: "
                               "-i TRACE");
    hs_error err;
    hs_error_clear(&err);
    int rc = hs_traffic_parse(o.traffic ? o.traffic : "uniform", &o.tc, &err);
    if (rc)
        return hs__usage_error(CMD, "%s", hs_error_str(&err, rc));
    hs_fabric *F;
    rc = hs_fabric_create(&F, o.topo, &o.prm, &err);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&err, rc));
        return rc == HS_ENOMEM || rc == HS_EIO ? HS_EXIT_FAIL : HS_EXIT_USAGE;
    }
    hs_traffic_result r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (hs__par_transport) {
        /* hopscope-par: this process simulates one part of the network */
        rc = hs_fabric_partition(F, hs__par_np, hs__par_rank);
        if (rc) {
            fprintf(stderr, "hopscope %s: cannot split %s over %u processes: %s\n", CMD,
                    o.topo, hs__par_np,
                    rc == HS_ENOTSUP ? "routing=ugal-g (it reads queues of every group) and "
                                       "router=booksim (a cycle-level model of one process) "
                                       "run with hopscope only"
                    : rc == HS_EINVAL ? "more processes than switches" : hs_strerror(rc));
            hs_fabric_destroy(F);
            return rc == HS_ENOMEM ? HS_EXIT_FAIL : HS_EXIT_USAGE;
        }
        rc = hs_traffic_run_parallel(F, &o.tc, &r, hs__par_transport, &err);
        if (o.par_stats)
            print_par_stats(F, hs__par_transport);
    } else {
        rc = hs_traffic_run(F, &o.tc, &r, &err);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc) {
        fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&err, rc));
        hs_fabric_destroy(F);
        return rc == HS_EINVAL || rc == HS_ENOTSUP ? HS_EXIT_USAGE : HS_EXIT_FAIL;
    }
    if (hs__par_rank != 0) {
        /* part 0 has the merged results: it reports and writes */
        int ret = r.status == HS_EDEADLOCK ? HS_EXIT_FAIL : HS_EXIT_OK;
        hs_fabric_destroy(F);
        return ret;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    hs_fabric_stats st;
    hs_fabric_get_stats(F, &st);
    const hs_topo *t = hs_fabric_topo(F);
    hs_traffic_cfg shown = o.tc;
    if (!shown.size)
        shown.size = o.prm.mtu;
    char a[32], b[32], cc[32], d[32], e[32], f[32], g[32];
    if (o.tsv) {
        printf("load\toffered\taccepted\tlat_mean_ns\tlat_p50_ns\tlat_p90_ns\tlat_p99_ns"
               "\tlat_p999_ns\tlat_max_ns\tnet_p50_ns\tnet_p99_ns\tmeasured\tunfinished\tstatus\n");
        printf("%.4g\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%llu\t%llu\t%s\n",
               o.tc.load, r.offered, r.accepted, (double)r.lat_mean / 1e3,
               (double)r.lat_p50 / 1e3, (double)r.lat_p90 / 1e3, (double)r.lat_p99 / 1e3,
               (double)r.lat_p999 / 1e3, (double)r.lat_max / 1e3, (double)r.net_p50 / 1e3,
               (double)r.net_p99 / 1e3, (unsigned long long)r.measured,
               (unsigned long long)r.unfinished, r.status ? "deadlock" : "ok");
    } else if (!o.quiet) {
        printf("network     %s\n", hs_topo_spec(t));
        printf("            %u nodes, %u switches, %u links, %u VC%s, %s buffers\n",
               hs_topo_nodes(t), hs_topo_switches(t), hs_topo_links(t), hs_topo_vcs(t),
               hs_topo_vcs(t) > 1 ? "s" : "",
               o.prm.unbounded ? "unbounded" : "finite");
        printf("traffic     %s, offered load %.3g, %u-byte messages, %s arrivals, seed %llu\n",
               o.traffic ? o.traffic : "uniform", o.tc.load, shown.size,
               o.tc.periodic ? "periodic" : "Poisson", (unsigned long long)o.tc.seed);
        printf("measured    %llu messages%s\n", (unsigned long long)r.measured,
               r.unfinished ? "" : ", all delivered");
        if (r.unfinished)
            printf("            %llu not delivered by the end (saturated)\n",
                   (unsigned long long)r.unfinished);
        printf("offered     %.4f of the senders' injection bandwidth\n", r.offered);
        printf("accepted    %.4f  (%s in total)\n", r.accepted,
               hs_rate_str(r.accepted_bps, a, sizeof a));
        printf("latency     mean %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n",
               tstr(r.lat_mean, a, sizeof a), tstr(r.lat_p50, b, sizeof b),
               tstr(r.lat_p90, cc, sizeof cc), tstr(r.lat_p99, d, sizeof d),
               tstr(r.lat_p999, e, sizeof e), tstr(r.lat_max, f, sizeof f));
        printf("  network   mean %s  p50 %s  p99 %s  (from injection of the last packet)\n",
               tstr(r.net_mean, a, sizeof a), tstr(r.net_p50, b, sizeof b),
               tstr(r.net_p99, cc, sizeof cc));
        if (r.bg_measured) {
            printf("background  offered %.4f, accepted %.4f, latency mean %s  p50 %s  p99 %s\n",
                   r.bg_offered, r.bg_accepted, tstr(r.bg_lat_mean, a, sizeof a),
                   tstr(r.bg_lat_p50, b, sizeof b), tstr(r.bg_lat_p99, cc, sizeof cc));
        }
        printf("simulated   %s: %llu events, %llu packet hops in %.3g s (%.3g M hops/s)\n",
               tstr(r.end, g, sizeof g), (unsigned long long)st.events,
               (unsigned long long)st.hops, secs, secs > 0 ? (double)st.hops / secs / 1e6 : 0);
        {
            const hs_scheme *sc = hs_fabric_scheme(F);
            print_inband(sc->field_bits, sc->c, hs_fabric_max_route_links(F), o.tc.monitor,
                         st.packets_monitored, st.packets_overflowed);
        }
        {
            hs_routing rt = hs_topo_routing(hs_fabric_topo(F));
            if (rt == HS_ROUTE_UGAL || rt == HS_ROUTE_UGAL_G)
                printf("routing     %s: %llu of %llu packets (%.2f%%) sent the Valiant way\n",
                       hs_routing_name(rt), (unsigned long long)st.nonminimal,
                       (unsigned long long)st.packets_injected,
                       st.packets_injected ? 100.0 * (double)st.nonminimal /
                                             (double)st.packets_injected : 0.0);
        }
        print_memory(&st);
        if (r.status == HS_EDEADLOCK)
            printf("DEADLOCK    the network went idle with %llu packets stuck\n",
                   (unsigned long long)st.packets_in_flight);
    }
    int ret = r.status == HS_EDEADLOCK ? HS_EXIT_FAIL : HS_EXIT_OK;
    if (o.out) {
        /* a synthetic run has no app.json: one left by an earlier replay
         * into the same directory would describe another run */
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/app.json", o.out) < sizeof path)
            unlink(path);
        extra_ctx x = { &shown, &r };
        rc = hs__par_transport ? write_rundir_whole(F, o.out, &x, &err)
                               : hs_fabric_write_rundir(F, o.out, add_traffic, &x, &err);
        if (rc) {
            fprintf(stderr, "hopscope %s: %s\n", CMD, hs_error_str(&err, rc));
            ret = HS_EXIT_FAIL;
        } else if (!o.quiet && !o.tsv) {
            printf("run dir     %s (%llu records%s)\n", o.out, (unsigned long long)st.records,
                   st.records_dropped ? ", cap reached" : "");
        }
    }
    hs_fabric_destroy(F);
    return ret;
}
