/* hopscope/replay.h — the MPI replay on the packet-level interconnect model.
 *
 * Replays a recorded MPI job (hopscope/trace.h) on a network built by
 * hopscope/fabric.h: rank-to-node mappings, the replay itself (rank actors,
 * point-to-point protocols, collective algorithms, one-sided operations,
 * background jobs) and synthetic traces (hopscope gen).  It drives the
 * network only through fabric's interface; nothing in fabric/ knows about
 * it (module flow: hash <- libtrace <- fabric <- replay <- analyzer <- viz
 * <- cli, README "Architecture").
 */
#ifndef HOPSCOPE_REPLAY_H
#define HOPSCOPE_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "hopscope/common.h"
#include "hopscope/fabric.h"
#include "hopscope/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rank-to-node mappings ------------------------------------------------
 * Where the ranks of a job sit on the machine's nodes, P ranks per node.
 * With M = ceil(ranks / P) nodes in use:
 *   linear        rank r on node floor(r / P)                (block)
 *   roundrobin    rank r on node r mod M                     (cyclic)
 *   random[:SEED] M nodes drawn at random from the whole machine, the ranks
 *                 shuffled onto them (a scattered allocation); seeded
 *   shift:S       rank r on node (floor(r / P) + S) mod N    (linear, moved)
 *   file:PATH     explicit: lines "RANK NODE" (docs/replay.md) */
typedef enum hs_map_policy {
    HS_MAP_LINEAR = 1,
    HS_MAP_ROUNDROBIN = 2,
    HS_MAP_RANDOM = 3,
    HS_MAP_SHIFT = 4,
    HS_MAP_FILE = 5,
} hs_map_policy;

typedef struct hs_mapping_cfg {
    hs_map_policy policy;
    uint32_t ppn;          /* ranks per node, >= 1 */
    uint64_t seed;         /* random */
    int64_t  shift;        /* shift, in nodes (may be negative) */
    int      seed_given;   /* random: the spec named a seed */
    char     file[1024];   /* file */
} hs_mapping_cfg;

/* Parses a mapping spec (above); ppn is left as it is.  HS_EINVAL with err
 * naming the bad part. */
int hs_mapping_parse(const char *spec, hs_mapping_cfg *m, hs_error *err);
const char *hs_map_policy_name(hs_map_policy p);
/* The spec's parameter as text ("" for linear/roundrobin, the seed, the
 * shift or the file path), for reports. */
const char *hs_mapping_param(const hs_mapping_cfg *m, char *buf, size_t n);
/* Fills node_of_rank[nranks] with node indices < nnodes.  HS_EINVAL (err
 * says why) when the ranks do not fit (M > nnodes), or the file is
 * malformed, names a node outside the machine, misses or repeats a rank. */
int hs_mapping_build(const hs_mapping_cfg *m, uint32_t nranks, uint32_t nnodes,
                     uint32_t *node_of_rank, hs_error *err);

/* ---- MPI replay -------------------------------------------------------------
 * Replays a recorded MPI job (include/hopscope/trace.h) on the modelled
 * machine: each rank (each thread of a rank) re-executes its calls in order,
 * computing between them for the recorded time (times a scale factor);
 * point-to-point messages are matched by MPI's rules and carried by eager or
 * rendezvous protocols, collectives are decomposed into MPICH's
 * point-to-point algorithms, one-sided operations move their data in the
 * right direction inside their epochs.  Optionally, background jobs (GPCNeT
 * congestors or another trace) run on the nodes the job does not use.  The
 * whole model is in docs/replay.md; the run directory gains app.json
 * (docs/formats.md). */

typedef struct hs_replay_progress {
    hs_time  now;              /* simulated time */
    uint64_t events;           /* network events so far */
    uint32_t actors, done;     /* application ranks x threads, finished */
    uint64_t messages;         /* application messages delivered */
    double   wall;             /* seconds since the replay started */
    const char *stage;         /* "isolated" or "congested" with --congestion-impact, else "" */
} hs_replay_progress;

/* Ranks per node when none is given: the most ranks on one of the trace's
 * virtual nodes, or 1 when it was recorded on real hosts (or m is NULL):
 * their placement on a workstation says nothing about the modelled machine. */
uint32_t hs_replay_default_ppn(const hs_trace_manifest *m);

#define HS_REPLAY_SCALE_AUTO (-1.0)

/* Why a replay stopped before the application ended (hs_replay_result.stop);
 * app.json replay.status "deadlock", "network_deadlock", "stalled". */
enum { HS_REPLAY_DEADLOCK = 1, HS_REPLAY_NET_DEADLOCK = 2, HS_REPLAY_STALLED = 3 };

struct hs_replay_msg;

typedef struct hs_replay_params {
    const char *trace;         /* trace directory (required) */
    const char *topo;          /* topology spec (required; hs_topo_create) */
    hs_fabric_params net;      /* network parameters */
    const char *map;           /* mapping spec (NULL: linear) */
    const uint32_t *node_of_rank; /* if set: the node of every rank (the trace's
                                  rank count of entries), overriding map; app.json
                                  reports it as policy "file", param "explicit" */
    uint32_t node_of_rank_n;   /* entries in node_of_rank */
    uint32_t ppn;              /* ranks per node; 0: the trace's virtual nodes, or 1 */
    uint64_t seed;             /* random mapping and background placement (1) */
    double   compute_scale;    /* factor on recorded computation, or
                                  HS_REPLAY_SCALE_AUTO (the default): ranks
                                  recorded on a host with more ranks than cores
                                  get cores/ranks, the others 1 (docs/replay.md) */
    hs_time  max_compute;      /* refuse a trace that gives one thread more
                                  computation than this, after scaling (1 h;
                                  0: no limit): such gaps come from damaged
                                  times and would simulate hours of idle */
    uint64_t max_packets;      /* refuse (before the run) or stop (during it) a
                                  replay whose application sends more than this
                                  many packets, every message counted as if it
                                  crossed the network in MTU-sized packets
                                  (2^28, about 1.1 TB at the 4 KiB MTU; 0: no
                                  limit): a damaged or hostile trace asking for
                                  terabytes would simulate for hours
                                  (docs/replay.md, "When the replay cannot go on") */
    uint64_t eager_limit;      /* messages up to this many bytes go eager (16 KiB) */
    uint32_t ctrl_bytes;       /* payload of protocol control messages (0: one
                                  minimum-size packet) */
    uint64_t mem_bw;           /* intra-node copy bandwidth, bytes/s (10 GB/s) */
    hs_time  shm_latency;      /* intra-node message latency (250 ns) */
    hs_time  call_overhead;    /* CPU time of every MPI call (0) */
    uint64_t reduce_bw;        /* local reduction rate in collectives, bytes/s (5 GB/s) */
    const char *coll;          /* algorithm per collective, "allreduce=ring,bcast=binomial"
                                  (NULL: MPICH's defaults by size) */
    const char *background;    /* background jobs (NULL: none); docs/replay.md */
    int      congestion_impact;/* also run without the background; report CI */
    const char *out;           /* run directory to write (NULL: none) */
    const char *command;       /* the command line that asked for the replay,
                                  recorded in app.json (NULL: none) */
    unsigned max_tag_phases;   /* distinct tags with a phase of their own (256);
                                  the rest share "other tags" */
    uint64_t latency_cap;      /* latency samples kept exactly (16M); beyond:
                                  a seeded reservoir of that size */
    void   (*progress)(void *ctx, const hs_replay_progress *p);
    void    *progress_ctx;
    double   progress_every;   /* seconds between progress calls (2) */
    hs_time  watchdog;         /* with background jobs: stop when the application
                                  has made no progress (no packet delivered, no
                                  call or computation ended) for this long while
                                  it computes nothing; 0: 10 x
                                  hs_fabric_drain_time (docs/replay.md, "When the
                                  replay cannot go on") */
    uint32_t bg_eager_credits; /* background jobs: eager messages a sender may have
                                  unmatched at one receiver; beyond, rendezvous
                                  (64; bounds their memory) */
    int      wire;             /* 1: replay the transfers recorded below MPI (the
                                  trace's wire files, record --wire) instead of
                                  modelling the MPI calls; no background, no
                                  app.json (docs/replay.md, "Wire-level replay") */
    /* Called for every point-to-point message of the application that
     * crossed the network, when its latency is final (the messages counted in
     * hs_replay_result.lat; latency tests of `hopscope latmodel`).  NULL:
     * none.  Runs inside the simulation: it must not call the replay.  With
     * congestion_impact it is called in both runs (isolated first). */
    void   (*on_message)(void *ctx, const struct hs_replay_msg *m);
    void    *on_message_ctx;
    /* A parallel run (hopscope-par simulate -i; docs/fabric.md, "Parallel
     * runs"): the transport between the processes, their number and this
     * one's index.  Every process calls hs_replay_run with the same
     * parameters; part 0 gets the results and writes the run directory.
     * No background, congestion impact, RMA, wire-level replay or
     * on_message.  NULL: a sequential run. */
    const hs_fabric_transport *transport;
    unsigned nparts, part;
    /* A parallel run: called in every process once the results are
     * gathered, with its fabric (hs_fabric_par_stats_get; collective calls
     * such as hs_fabric_par_critical are allowed).  NULL: none. */
    void   (*on_parallel_done)(void *ctx, const hs_fabric *f);
    void    *on_parallel_ctx;
} hs_replay_params;

/* One application message, as on_message sees it. */
typedef struct hs_replay_msg {
    uint32_t src_node, dst_node;   /* fabric nodes */
    uint32_t src_rank, dst_rank;
    uint64_t bytes;                /* payload */
    hs_time  t_leg;                /* its last protocol leg was posted at the
                                      source NIC (the whole message for eager) */
    hs_time  t_end;                /* delivered */
    hs_time  lat;                  /* network latency, summed over its legs */
    uint16_t phase;
    uint8_t  eager;                /* one leg: lat == t_end - t_leg */
} hs_replay_msg;

void hs_replay_params_default(hs_replay_params *p);
/* Checks what the parameters say without reading the trace, so that a
 * caller can refuse a bad option before the expensive work: the ranges of
 * hs_replay_run, the topology spec (built once when set), the mapping spec
 * (a mapping file must be readable), the background spec (a trace:PATH
 * background's manifest must read) and the collective algorithms.  trace
 * and topo may be NULL here.  0, or HS_EINVAL (...) with err saying why. */
int hs_replay_check(const hs_replay_params *p, hs_error *err);

/* Latency of messages: for each message that crossed the network, the time
 * its packets spent between posting at the source NIC and delivery, summed
 * over its protocol legs (eager: the data; rendezvous: RTS, CTS and data);
 * waiting for the receiver is not part of it. */
/* Latency histogram: log-spaced buckets, HS_LAT_PER_OCTAVE per doubling,
 * bucket i covering [hs_lat_edge(i), hs_lat_edge(i+1)) from 64 ns (bucket 0
 * also holds anything shorter); the last bucket is open-ended. */
#define HS_LAT_PER_OCTAVE 4
#define HS_LAT_BUCKETS    (30 * HS_LAT_PER_OCTAVE)  /* up to ~68 s */
hs_time hs_lat_edge(unsigned i);

typedef struct hs_replay_lat {
    uint64_t messages;
    hs_time  p50, p99, mean, max;
    uint64_t hist[HS_LAT_BUCKETS]; /* counts of the latencies sampled */
} hs_replay_lat;

typedef struct hs_replay_phase {
    uint16_t id;               /* the phase id packets carry */
    char     name[192];
    char     kind[16];         /* "p2p", "collective", "rma", "protocol", "background" */
    int      app;
    uint64_t messages, bytes;
    hs_time  time;             /* summed over ranks, inside calls of the phase */
    hs_replay_lat lat;
} hs_replay_phase;

typedef struct hs_replay_result {
    int      status;           /* 0; HS_EDEADLOCK (stuck ranks, see stop); HS_ESTATE
                                  (the trace ended with operations left over) */
    int      stop;             /* with HS_EDEADLOCK: HS_REPLAY_DEADLOCK (ranks wait
                                  for each other), HS_REPLAY_NET_DEADLOCK (a cycle
                                  of full buffers), HS_REPLAY_STALLED (the watchdog) */
    hs_time  watchdog;         /* the watchdog period used */
    uint32_t ranks, actors;
    hs_time  total;            /* predicted run time: the last rank's end */
    hs_time *rank_time;        /* [ranks] end of each rank (owned) */
    hs_time  compute_mean;     /* per rank, replayed computation */
    hs_time  comm_mean;        /* per rank, time inside MPI calls */
    uint64_t messages, bytes;  /* application messages (point-to-point and
                                  decomposed collectives) and their bytes */
    uint64_t rma_ops, rma_bytes;
    hs_replay_lat lat;         /* network messages of the application */
    uint64_t unmatched_sends;  /* sent, never received */
    uint64_t unmatched_recvs;  /* posted, never matched */
    uint64_t unresolved;       /* wildcard receives the trace never completed */
    char    *report;           /* what went wrong, first few items, and notes such
                                  as the computation scaling (owned; NULL if
                                  clean) */
    double   compute_scale_min, compute_scale_max; /* applied to the application's
                                  ranks (equal unless hosts differed) */
    uint64_t warnings;         /* calls replayed approximately (report lists kinds) */
    uint64_t bg_messages, bg_bytes;
    uint32_t bg_nodes;
    /* --congestion-impact: the isolated run's figures and the ratios */
    int      ci;               /* 1 when computed */
    hs_time  iso_total;
    hs_replay_lat iso_lat;
    double   ci_latency;       /* p99 latency congested / isolated */
    double   ci_bandwidth;     /* bandwidth isolated / congested (bytes per
                                  time inside MPI) */
    double   ci_runtime;       /* total congested / isolated */
    uint32_t nphases;
    hs_replay_phase *phases;   /* [nphases] by id (owned) */
    /* network */
    uint64_t events, hops;
    /* in-band field (of the run with the background, if two) */
    unsigned hop_bits, field_bits;
    uint32_t max_route_links;   /* hs_topo_max_route_links */
    double   monitor_p;         /* probability an application message is monitored */
    uint64_t packets_monitored, packets_overflowed;
    double   wall;             /* seconds, all of it */
    double   wall_load;        /* compiling the trace(s), placing the ranks */
    double   wall_run;         /* the simulation */
    double   wall_write;       /* the run directory */
    size_t   ops;              /* compiled ops (memory: docs/replay.md) */
    hs_fabric_stats net;       /* the network's statistics at the end (its model
                                  state's memory by part, packets in flight at most) */
} hs_replay_result;

/* Builds the network, maps the ranks, replays the trace (twice with
 * congestion_impact: isolated, then with the background), writes the run
 * directory with app.json when p->out is set, and fills r (free it with
 * hs_replay_result_free, also after a failure).  Returns 0 when the replay
 * ran (r->status says whether it completed cleanly), or HS_EINVAL /
 * HS_EFORMAT / HS_ENOENT (bad parameters, topology, mapping or trace: err
 * says which), HS_ENOMEM, HS_EIO. */
int  hs_replay_run(const hs_replay_params *p, hs_replay_result *r, hs_error *err);
void hs_replay_result_free(hs_replay_result *r);
/* The replay.status word of a result: "ok", "incomplete", "deadlock",
 * "network_deadlock" or "stalled". */
const char *hs_replay_status_name(const hs_replay_result *r);

/* ---- synthetic traces (hopscope gen) ---------------------------------------- */

typedef enum hs_gen_pattern {
    HS_GEN_HALO3D = 1,   /* 3D halo exchange, one tag per direction (miniGhost-like) */
    HS_GEN_PF3D = 2,     /* all-to-all within groups of 4, plus a 3D halo (pF3D-like) */
    HS_GEN_CANARY = 3,   /* random ring exchange plus allreduce (GPCNeT canary) */
    HS_GEN_INCAST = 4,   /* every rank sends to one root */
    HS_GEN_PINGPONG = 5, /* rank 2i and 2i+1 bounce one message (Send/Recv) */
} hs_gen_pattern;

typedef struct hs_gen_params {
    hs_gen_pattern pattern;
    uint32_t ranks;          /* >= 2 */
    uint32_t iters;          /* iterations (10) */
    uint64_t size;           /* bytes per message (halo face, ring, incast) */
    uint64_t compute_ns;     /* computation per iteration, ns (halo3d 10 us, ...) */
    double   monitor;        /* fraction of messages monitored (1) */
    uint64_t seed;           /* monitoring sample, canary rings (1) */
    uint32_t ppn;            /* ranks per virtual node in the manifest (1) */
    uint32_t dims[3];        /* halo3d/pf3d process grid (0: balanced factors) */
    uint32_t group;          /* pf3d: all-to-all group size (4) */
    uint64_t a2a_size;       /* pf3d: all-to-all block bytes (size) */
    uint32_t root;           /* incast (0) */
    uint64_t reduce_size;    /* canary: allreduce bytes (8); halo3d: with
                                reduce_every, bytes of its allreduce (8) */
    uint32_t reduce_every;   /* halo3d/pf3d: an allreduce every N iterations (0: none) */
    uint32_t neighbours;     /* halo3d/pf3d halo: 6 faces (0 means 6), 4 (2D: the x and
                                y faces only; default grid balanced in x, y), or 26
                                (faces, edges and corners: the diagonal neighbours) */
    int      no_halo;        /* pf3d: only the sub-communicator all-to-all */
} hs_gen_params;

/* "halo3d", "pf3d", "canary", "incast", "pingpong"; HS_EINVAL otherwise. */
int  hs_gen_pattern_parse(const char *s, hs_gen_pattern *out);
const char *hs_gen_pattern_name(hs_gen_pattern p);
/* Defaults for the pattern (sizes, compute per iteration). */
void hs_gen_params_default(hs_gen_params *p, hs_gen_pattern pattern);
/* Writes the trace directory (created; existing rank files replaced).
 * HS_EINVAL (err says which parameter), HS_EIO, HS_ENOMEM. */
int  hs_gen_write(const hs_gen_params *p, const char *dir, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
