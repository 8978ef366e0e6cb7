/* hopscope/fabric.h — the packet-level interconnect model.
 *
 * Topologies (extended generalized fat-trees, dragonflies, tori/meshes, or a
 * topology file), their routing, and a discrete-event engine that moves
 * packets through NICs and switches with finite input buffers per port and
 * virtual channel, credit-based link-level flow control, virtual cut-through
 * and round-robin crossbar arbitration.  Monitored packets are marked in band
 * at every transmission through hash/ (DESIGN.md, "The in-band scheme");
 * destination NICs count them; ground truth is kept per link so every
 * estimate can be checked.  A run directory holds all of it
 * (docs/formats.md, "Run directory").
 *
 * Units everywhere: time in integer picoseconds (hs_time), sizes in bytes,
 * bandwidth in bytes per second.  Integer picoseconds make the model exact:
 * serialising B bytes on a link of R bytes/s takes ceil(B * 1e12 / R) ps.
 *
 * Typical use (the MPI replay drives it the same way):
 *
 *     hs_fabric_params p;  hs_fabric_params_default(&p);
 *     hs_fabric *f;
 *     hs_fabric_create(&f, "fattree:k=8,n=2", &p, &err);
 *     hs_fabric_set_callbacks(f, &cb, ctx);
 *     hs_fabric_inject(f, hs_fabric_now(f), src, dst, bytes, phase, 1, cookie);
 *     hs_fabric_run(f, HS_TIME_NEVER);       // until idle
 *     hs_fabric_write_rundir(f, "RUN", &err);
 *     hs_fabric_destroy(f);
 *
 * The engine is single-threaded and deterministic: the same topology,
 * parameters, seed and call sequence give the same events in the same order
 * and byte-identical run directories.
 */
#ifndef HOPSCOPE_FABRIC_H
#define HOPSCOPE_FABRIC_H

#include <stddef.h>
#include <stdint.h>
#include "hopscope/common.h"
#include "hopscope/hash.h"
#include "hopscope/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- units --------------------------------------------------------------- */

typedef uint64_t hs_time;              /* picoseconds */
#define HS_TIME_NEVER UINT64_MAX
#define HS_PS_PER_NS  1000ull
#define HS_PS_PER_US  1000000ull
#define HS_PS_PER_S   1000000000000ull

/* "100ns", "1.5us", "250ps", "2ms", "1s"; a bare number is picoseconds.
 * HS_EINVAL on syntax, HS_ERANGE if it does not fit or is not whole ps. */
int hs_parse_time(const char *s, hs_time *out);
/* "25GB/s", "200Gb/s", "12.5GB/s", "100Gbps", "3GBps"; SI prefixes (k/K,
 * M, G, T are powers of 1000); b = bits, B = bytes; a bare number is bytes/s.
 * Result in whole bytes per second (HS_ERANGE if not whole or zero). */
int hs_parse_rate(const char *s, uint64_t *bytes_per_s);
/* Serialisation time of `bytes` at `rate` bytes/s: ceil(bytes*1e12/rate). */
hs_time hs_ser_time(uint64_t bytes, uint64_t rate);
/* "163.84 ns", "1.2 us" ... for printing; returns buf. */
char *hs_time_str(hs_time t, char *buf, size_t n);
/* "25 GB/s", "1.6 TB/s" ... for printing; returns buf. */
char *hs_rate_str(double bytes_per_s, char *buf, size_t n);

/* ---- topology ------------------------------------------------------------ */

typedef enum hs_topo_kind {
    HS_TOPO_FATTREE = 1,
    HS_TOPO_DRAGONFLY = 2,
    HS_TOPO_TORUS = 3,   /* also meshes (no wrap-around links) */
    HS_TOPO_FILE = 4,
} hs_topo_kind;

typedef enum hs_routing {
    HS_ROUTE_DMODK = 1,     /* fat-tree: static D-mod-K */
    HS_ROUTE_ADAPTIVE = 2,  /* fat-tree: least-occupied up port, D-mod-K down */
    HS_ROUTE_MIN = 3,       /* dragonfly: minimal */
    HS_ROUTE_VALIANT = 4,   /* dragonfly: via a random intermediate group */
    HS_ROUTE_UGAL = 5,      /* dragonfly: UGAL-L (min or Valiant at the source router) */
    HS_ROUTE_DOR = 6,       /* torus/mesh: dimension order, dateline VCs */
    HS_ROUTE_TABLE = 7,     /* file: given tables or shortest paths */
} hs_routing;

typedef enum hs_dev_kind { HS_DEV_NODE = 0, HS_DEV_SWITCH = 1 } hs_dev_kind;

typedef enum hs_link_kind {
    HS_LINK_INJECTION = 1,  /* NIC -> switch */
    HS_LINK_EJECTION = 2,   /* switch -> NIC */
    HS_LINK_SWITCH = 3,     /* switch -> switch */
} hs_link_kind;

/* Subkind of switch->switch links (0 for injection and ejection links). */
typedef enum hs_link_sub {
    HS_SUB_NONE = 0,
    HS_SUB_UP = 1,      /* fat-tree, towards the roots; level = lower level */
    HS_SUB_DOWN = 2,    /* fat-tree, towards the leaves; level = lower level */
    HS_SUB_LOCAL = 3,   /* dragonfly, within a group */
    HS_SUB_GLOBAL = 4,  /* dragonfly, between groups */
    HS_SUB_TORUS = 5,   /* torus/mesh: dim and dir say which */
    HS_SUB_PLAIN = 6,   /* topology file */
} hs_link_sub;

typedef struct hs_link_info {
    uint32_t id;            /* 1..nlinks */
    uint8_t  kind;          /* hs_link_kind */
    uint8_t  sub;           /* hs_link_sub */
    uint8_t  level;         /* fat-tree: level of the lower end (0 = nodes) */
    uint8_t  dim;           /* torus: dimension */
    int8_t   dir;           /* torus: +1 or -1; 0 otherwise */
    uint8_t  wrap;          /* torus: the wrap-around (dateline) link */
    uint8_t  from_kind, to_kind; /* hs_dev_kind */
    uint32_t from, to;      /* device indices (node or switch) */
    uint32_t from_port, to_port; /* port numbers at switches; 0 at NICs */
    uint64_t bw;            /* bytes per second */
    hs_time  lat;           /* propagation latency */
} hs_link_info;

typedef struct hs_topo hs_topo;

/* Parses SPEC and builds the topology (syntax: docs/topology.md, or
 * `hopscope help topo`):
 *   fattree:k=K,n=N[,taper=T]        K-ary N-tree (XGFT(N;K..K;1,K..K))
 *   fattree:down=M1xM2..,up=W1xW2..  explicit XGFT, level 1 first
 *   dragonfly:a=A,p=P,h=H,g=G
 *   torus:4x4x4[,p=P]   mesh:8x8[,p=P]
 *   file:PATH
 * with common options bw=RATE, lat=TIME, routing=NAME (and glat=, gbw= for
 * dragonfly global links).  On error *out is NULL and err names the key. */
int hs_topo_create(const char *spec, hs_topo **out, hs_error *err);
void hs_topo_free(hs_topo *t);

hs_topo_kind hs_topo_type(const hs_topo *t);
uint32_t hs_topo_nodes(const hs_topo *t);
uint32_t hs_topo_switches(const hs_topo *t);
uint32_t hs_topo_links(const hs_topo *t);
/* The link with this id (1..nlinks), or NULL. */
const hs_link_info *hs_topo_link(const hs_topo *t, uint32_t id);
/* A node's injection / ejection link and its switch. */
uint32_t hs_topo_node_injection(const hs_topo *t, uint32_t node);
uint32_t hs_topo_node_ejection(const hs_topo *t, uint32_t node);
uint32_t hs_topo_node_switch(const hs_topo *t, uint32_t node);
/* Names ("n12", "l1s3", "g2r1", "s1.2.0", or the file's names). */
const char *hs_topo_node_name(const hs_topo *t, uint32_t node, char *buf, size_t n);
const char *hs_topo_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n);
/* Canonical spec with every default filled in (stable text, e.g. for the
 * run manifest). */
const char *hs_topo_spec(const hs_topo *t);
hs_routing hs_topo_routing(const hs_topo *t);
const char *hs_routing_name(hs_routing r);
/* Virtual channels per input port the routing needs for deadlock freedom. */
unsigned hs_topo_vcs(const hs_topo *t);
/* 1 when every (switch, destination) has exactly one output and paths are
 * fully given by the forwarding tables. */
int hs_topo_deterministic(const hs_topo *t);
/* 1 when the packets' paths are always among the forwarding-table entries
 * (false for Valiant and UGAL, which leave minimal paths). */
int hs_topo_table_determined(const hs_topo *t);

/* The most links (injection and ejection included) a packet's route can
 * have under the topology's routing, non-minimal routes (Valiant, UGAL)
 * included: what the in-band hop counter must hold (docs/inband.md). */
uint32_t hs_topo_max_route_links(const hs_topo *t);

typedef struct hs_topo_summary {
    uint32_t nodes, switches, links;
    uint32_t inj_links, ej_links, sw_links;
    uint32_t diameter;        /* node to node, in links, along shortest paths */
    double   bisection_bw;    /* bytes/s across the cut, one direction */
    uint32_t bisection_links; /* directed links crossing the cut one way */
    int      bisection_exact; /* 0: an upper bound from a heuristic cut */
    char     bisection_how[96];
} hs_topo_summary;

/* Fills s; HS_ENOMEM. */
int hs_topo_summarize(const hs_topo *t, hs_topo_summary *s);

/* Forwarding table entry: the output links a packet at switch `sw` for node
 * `dst` may take (one for deterministic routing, several for adaptive up
 * ports; the minimal choices for dragonfly).  Returns the count written
 * (<= max), 0 at the destination's own switch never happens: there it is the
 * ejection link. */
unsigned hs_topo_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                           uint32_t *out, unsigned max);

/* ---- network parameters ------------------------------------------------- */

typedef enum hs_arbiter { HS_ARB_RR = 1 } hs_arbiter;

#define HS_FABRIC_MIN_PACKET 64   /* bytes on the wire, for 0-byte messages */
#define HS_FABRIC_MAX_MTU    (1u << 20)
#define HS_FABRIC_MAX_VCS    8

typedef struct hs_fabric_params {
    uint32_t mtu;            /* payload bytes per packet (default 4096) */
    uint32_t header;         /* header bytes added per packet (default 0) */
    uint64_t vc_buffer;      /* input buffer bytes per port per VC (32 KiB) */
    uint64_t nic_buffer;     /* NIC receive buffer (32 KiB) */
    int      unbounded;      /* 1: buffers never fill (control experiment) */
    hs_time  route_delay;    /* switch routing/pipeline delay (100 ns) */
    uint64_t rx_rate;        /* NIC receive processing, bytes/s (0 = the
                                ejection link's rate) */
    unsigned nic_queues;     /* injection queues per NIC (8) */
    hs_arbiter arbiter;      /* HS_ARB_RR: round-robin (the only one so far) */
    double   tau_factor;     /* tau = factor * ser(full packet) (2.0) */
    hs_time  tau;            /* if nonzero: absolute tau for every link */
    hs_time  window;         /* counter / truth window width (10 us) */
    uint32_t max_windows;    /* at most this many windows (256): a longer
                                run doubles the width and merges pairs of
                                windows, exactly (all are sums); 0 = no limit */
    uint64_t ugal_threshold; /* UGAL-L bias towards minimal, bytes (0) */
    uint64_t seed;           /* routing randomness (Valiant, UGAL) */
    hs_scheme_cfg scheme;    /* k (0 = auto), c (0 = auto: 4, or more when
                                the longest route needs it), b, exact, salt */
    int      records;        /* log sampled records (default 1) */
    uint64_t records_cap;    /* at most this many (4M); beyond: counted only */
} hs_fabric_params;

void hs_fabric_params_default(hs_fabric_params *p);

/* ---- the network --------------------------------------------------------- */

typedef struct hs_fabric hs_fabric;

/* Completion callbacks.  `sent` fires when the last packet of a message has
 * left the source NIC (its transmission on the injection link ended);
 * `delivered` when the destination NIC has processed the message's last
 * packet.  For a message both fire exactly once, sent first.  Callbacks may
 * call hs_fabric_inject and hs_fabric_timer; they must not call
 * hs_fabric_run or hs_fabric_destroy. */
typedef struct hs_fabric_callbacks {
    void (*sent)(void *ctx, hs_fabric *f, uint64_t cookie, hs_time t);
    void (*delivered)(void *ctx, hs_fabric *f, uint64_t cookie, hs_time t);
    void (*timer)(void *ctx, hs_fabric *f, uint64_t cookie, hs_time t);
} hs_fabric_callbacks;

/* Builds the network for a topology spec (see hs_topo_create) or an already
 * built topology (hs_fabric_create_topo takes ownership of t, also on
 * failure).  Errors: HS_EINVAL/HS_EFORMAT (spec or parameters, err says
 * which), HS_ERANGE (too many links for k), HS_ENOMEM. */
int hs_fabric_create(hs_fabric **out, const char *spec,
                     const hs_fabric_params *p, hs_error *err);
int hs_fabric_create_topo(hs_fabric **out, hs_topo *t,
                          const hs_fabric_params *p, hs_error *err);
void hs_fabric_destroy(hs_fabric *f);

const hs_topo *hs_fabric_topo(const hs_fabric *f);
const hs_fabric_params *hs_fabric_get_params(const hs_fabric *f);
const hs_scheme *hs_fabric_scheme(const hs_fabric *f);
void hs_fabric_set_callbacks(hs_fabric *f, const hs_fabric_callbacks *cb, void *ctx);

/* Posts a message of `bytes` (0 allowed: one minimum-size packet) from node
 * src to node dst at time t >= now.  The source NIC packetises it into
 * MTU-sized packets.  `phase` tags its packets for per-phase counters and
 * ground truth; `monitored` says whether they carry the in-band field.
 * HS_EINVAL for bad nodes, src == dst, or t < now; HS_ENOMEM. */
int hs_fabric_inject(hs_fabric *f, hs_time t, uint32_t src, uint32_t dst,
                     uint64_t bytes, uint16_t phase, int monitored,
                     uint64_t cookie);
/* Calls cb.timer(cookie) at time t >= now.  HS_EINVAL, HS_ENOMEM. */
int hs_fabric_timer(hs_fabric *f, hs_time t, uint64_t cookie);

/* Names a phase (copied; shown in the run directory; default "phase<N>",
 * phase 0 is "synthetic" unless named). */
int hs_fabric_phase_name(hs_fabric *f, uint16_t phase, const char *name);

/* Processes events up to and including time `until` (HS_TIME_NEVER: until
 * no event is left).  Returns 0 when time `until` was reached with work
 * still pending (now = until), 1 when the network went idle (now = time of
 * the last event), 2 when a callback called hs_fabric_stop (now = time of
 * that event), HS_EDEADLOCK when it went idle with packets stuck in buffers
 * (a routing deadlock), HS_ENOMEM when a pool could not grow. */
int hs_fabric_run(hs_fabric *f, hs_time until);
/* From a callback: makes hs_fabric_run return 2 after the current event. */
void hs_fabric_stop(hs_fabric *f);
hs_time hs_fabric_now(const hs_fabric *f);
/* Messages posted and not yet delivered. */
uint64_t hs_fabric_pending(const hs_fabric *f);

/* Ground truth of one link so far, over all phases and windows. */
typedef struct hs_link_truth {
    uint64_t packets, bytes;   /* bytes on the wire */
    uint64_t busy_ps;          /* transmitting (whole transmissions, counted at their start) */
    uint64_t stall_ps;         /* idle while a waiting packet lacked credit (running stalls
                                  counted up to now) */
    uint64_t congested;        /* packets that waited >= tau before their transmission */
} hs_link_truth;
/* HS_EINVAL for a link outside 1..nlinks. */
int hs_fabric_truth(hs_fabric *f, uint32_t link, hs_link_truth *t);
/* The in-band counters of a phase (summed over NICs), or NULL if no
 * monitored packet of that phase was delivered or counters are off. */
const hs_counters *hs_fabric_counters(const hs_fabric *f, uint16_t phase);

typedef struct hs_fabric_stats {
    uint64_t events;          /* processed */
    uint64_t hops;            /* packet transmissions on links */
    uint64_t packets_injected, packets_delivered;
    uint64_t bytes_delivered; /* payload */
    uint64_t messages_posted, messages_delivered;
    uint64_t packets_monitored;  /* delivered carrying the in-band field */
    uint64_t packets_overflowed; /* of those, with the hop counter overflowed:
                                    excluded from counters and estimates */
    uint64_t records, records_dropped;
    uint64_t packets_in_flight, packets_peak;
    size_t   mem_bytes;       /* model state now (pools, tables, truth) */
} hs_fabric_stats;
void hs_fabric_get_stats(const hs_fabric *f, hs_fabric_stats *s);
/* hs_topo_max_route_links of the fabric's topology. */
uint32_t hs_fabric_max_route_links(const hs_fabric *f);
/* Records in the run directory the probability p with which a message of
 * the monitored job carries the in-band field (1 by default; the analyzer
 * divides its estimates by it).  HS_EINVAL outside [0, 1]. */
int hs_fabric_set_monitoring(hs_fabric *f, double p);

/* Writes the run directory (created if needed; files replaced): manifest,
 * link/node/switch tables, forwarding tables, counters, records, ground
 * truth, phases.  `extra` (may be NULL) is called inside the manifest's
 * top-level object to add keys (e.g. the traffic driver's results).
 * HS_EIO with err naming the file. */
int hs_fabric_write_rundir(hs_fabric *f, const char *dir,
                           void (*extra)(void *ctx, hs_json *w), void *ctx,
                           hs_error *err);

/* ---- synthetic traffic --------------------------------------------------- */

typedef enum hs_pattern {
    HS_PAT_UNIFORM = 1,   /* uniform random destination != source */
    HS_PAT_SHIFT = 2,     /* dst = (src + shift) mod N */
    HS_PAT_TRANSPOSE = 3, /* N = n*n nodes: (i,j) -> (j,i) */
    HS_PAT_BITCOMP = 4,   /* dst = N-1-src (bit complement for N = 2^m) */
    HS_PAT_HOTSPOT = 5,   /* fraction `frac` to `target`, the rest uniform */
    HS_PAT_INCAST = 6,    /* `senders` nodes send to `target` */
    HS_PAT_GROUPSHIFT = 7,/* dragonfly: node in group i -> same slot in group i+1 */
} hs_pattern;

#define HS_TRAFFIC_MAX_LIST 64

typedef struct hs_traffic_cfg {
    hs_pattern pattern;
    int64_t  shift;        /* shift: default N/2 (groupshift: group offset, default 1) */
    uint32_t target;       /* hotspot, incast */
    double   frac;         /* hotspot: fraction to target (0.1) */
    uint32_t senders;      /* incast: count (default: all other nodes) */
    uint32_t sender_list[HS_TRAFFIC_MAX_LIST]; /* incast: explicit senders */
    unsigned nsender_list;
    double   bg_load;      /* incast: background uniform load of other nodes */
    double   load;         /* offered load per node, fraction of injection bw */
    uint32_t size;         /* message bytes (default: the MTU) */
    int      periodic;     /* 1: fixed inter-arrival instead of Poisson */
    double   monitor;      /* fraction of messages monitored (default 1) */
    hs_time  warmup;       /* before measuring (default duration / 4) */
    hs_time  duration;     /* measurement window (default 20 us) */
    uint64_t packets;      /* if nonzero: stop after this many messages in
                              total (warmup 0, all measured) */
    hs_time  drain_max;    /* give up waiting for measured messages (default
                              10 * duration, at least 100 us) */
    uint64_t seed;
} hs_traffic_cfg;

void hs_traffic_cfg_default(hs_traffic_cfg *c);
/* "uniform", "shift[:S]", "transpose", "bitcomp", "groupshift[:G]",
 * "hotspot[:target=T,frac=F]", "incast[:target=T,senders=S|list=a+b+c,bg=L]".
 * HS_EINVAL with err naming the bad part. */
int hs_traffic_parse(const char *s, hs_traffic_cfg *c, hs_error *err);

typedef struct hs_traffic_result {
    double   offered;         /* offered load actually generated, fraction */
    double   accepted;        /* delivered in the window / capacity, fraction */
    double   accepted_bps;    /* bytes/s, all nodes */
    uint64_t measured;        /* messages generated in the window */
    uint64_t unfinished;      /* of those, not delivered when the run ended */
    /* latency from posting to delivery of measured messages */
    hs_time  lat_min, lat_mean, lat_p50, lat_p90, lat_p99, lat_p999, lat_max;
    /* network latency: first transmission to delivery */
    hs_time  net_mean, net_p50, net_p99;
    hs_time  end;             /* simulated time at the end */
    int      status;          /* 0, or HS_EDEADLOCK */
    /* incast with bg=L: the background senders' own figures (the above
     * cover the pattern's senders only) */
    double   bg_offered, bg_accepted;
    uint64_t bg_measured, bg_unfinished;
    hs_time  bg_lat_mean, bg_lat_p50, bg_lat_p99;
} hs_traffic_result;

/* Drives f with synthetic traffic per c and measures it.  Uses phase 0
 * ("synthetic"), every message monitored.  Leaves the network's counters
 * and truth in place for hs_fabric_write_rundir.  HS_EINVAL if the pattern
 * does not fit the network (err says why). */
int hs_traffic_run(hs_fabric *f, const hs_traffic_cfg *c, hs_traffic_result *r,
                   hs_error *err);
/* Adds the config and result as "traffic" to a manifest (for `extra`). */
void hs_traffic_json(hs_json *w, const hs_traffic_cfg *c, const hs_traffic_result *r);


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
    double   compute_scale;    /* factor on recorded computation (1.0) */
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
    unsigned max_tag_phases;   /* distinct tags with a phase of their own (256);
                                  the rest share "other tags" */
    uint64_t latency_cap;      /* latency samples kept exactly (16M); beyond:
                                  a seeded reservoir of that size */
    void   (*progress)(void *ctx, const hs_replay_progress *p);
    void    *progress_ctx;
    double   progress_every;   /* seconds between progress calls (2) */
} hs_replay_params;

void hs_replay_params_default(hs_replay_params *p);

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
    int      status;           /* 0; HS_EDEADLOCK (stuck ranks); HS_ESTATE (the
                                  trace ended with operations left over) */
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
    char    *report;           /* what went wrong, first few items (owned; NULL if clean) */
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
