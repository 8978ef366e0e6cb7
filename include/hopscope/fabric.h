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
 * Typical use (the MPI replay, include/hopscope/replay.h, drives it the same
 * way):
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
    HS_ROUTE_UGAL_G = 8,    /* dragonfly: UGAL-G (min or Valiant by the queues
                               of every link of both paths: global knowledge,
                               an upper reference for UGAL-L) */
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
    int      diameter_exact;  /* 0: a lower bound (BFS from a sample) */
    char     diameter_how[96];
} hs_topo_summary;

/* Fills s; HS_ENOMEM.  Fat-trees, dragonflies, tori and meshes from their
 * parameters (constant time and memory beyond the topology); topology
 * files by BFS from at most 256 switches with nodes (diameter_exact says
 * whether that was all of them). */
int hs_topo_summarize(const hs_topo *t, hs_topo_summary *s);

/* What `hopscope topo SPEC` prints, without building the link table of a
 * regular family (a 1M-node torus is described in constant memory); a
 * topology file is built, as its graph is its only description. */
typedef struct hs_topo_desc {
    hs_topo_summary s;
    char        spec[512];    /* canonical */
    hs_topo_kind kind;
    hs_routing  routing;
    int         deterministic;
    unsigned    vcs;
    uint64_t    node_bw;      /* of the node links */
    hs_time     node_lat;
} hs_topo_desc;
int hs_topo_describe(const char *spec, hs_topo_desc *d, hs_error *err);

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
#define HS_FABRIC_PAYLOAD 64      /* most bytes of a message's payload (hs_fabric_inject_payload) */
#define HS_FABRIC_MAX_MTU    (1u << 20)
#define HS_FABRIC_MAX_VCS    8
#define HS_UGAL_AUTO         UINT64_MAX  /* ugal_threshold: 4 full packets */
#define HS_UGAL_AUTO_PACKETS 4

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
    hs_arbiter arbiter;      /* HS_ARB_RR: round-robin per output VC, the turn
                                held while short of credit (the only one;
                                docs/fabric.md, "Arbitration") */
    double   tau_factor;     /* tau = factor * ser(full packet) (2.0) */
    hs_time  tau;            /* if nonzero: absolute tau for every link */
    hs_time  window;         /* counter / truth window width (10 us) */
    uint32_t max_windows;    /* at most this many windows (256): a longer
                                run doubles the width and merges pairs of
                                windows, exactly (all are sums); 0 = no limit */
    uint64_t ugal_threshold; /* UGAL bias towards minimal, bytes x hops
                                (HS_UGAL_AUTO: 4 full packets; docs/topology.md) */
    uint64_t seed;           /* routing randomness (Valiant, UGAL) */
    hs_scheme_cfg scheme;    /* k (0 = auto), c (0 = auto: 4, or more when
                                the longest route needs it), b, exact, salt */
    int      records;        /* log sampled records (default 1) */
    uint64_t records_cap;    /* at most this many (4M); beyond: counted only */
    int      route_tables;   /* 1: write routes.bin for the regular families
                                too (default 0: their routes are recomputed
                                from the topology spec; topology files
                                always have their tables written) */
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
/* The same on a lane of the source NIC: lane 0 is hs_fabric_inject's
 * injection queue (the destination's: messages to one destination leave in
 * order); lane 1 another queue of the NIC (with --nic-queues 1 the same),
 * for traffic the NIC serves apart from what it sends to that destination,
 * such as the responses to RDMA reads (the target's NIC returns them
 * without queueing them behind, or ahead of, its own sends to the reader). */
int hs_fabric_inject_lane(hs_fabric *f, hs_time t, uint32_t src, uint32_t dst,
                          uint64_t bytes, uint16_t phase, int monitored,
                          unsigned lane, uint64_t cookie);
/* hs_fabric_inject_lane with a payload: len <= HS_FABRIC_PAYLOAD bytes the
 * client gets back at the message's delivery (hs_fabric_payload, in the
 * `delivered` callback), wherever the destination is simulated: a small
 * descriptor that travels with the message (in a parallel run, to the
 * destination's process in the exchange of the window it is posted in,
 * before the message can arrive there), so that the destination needs no
 * state of the source's.  It takes no bytes on the wire (the model's
 * `bytes` stand for what the message carries).  payload NULL or len 0: as
 * hs_fabric_inject_lane.  HS_EINVAL for len > HS_FABRIC_PAYLOAD. */
int hs_fabric_inject_payload(hs_fabric *f, hs_time t, uint32_t src, uint32_t dst,
                             uint64_t bytes, uint16_t phase, int monitored,
                             unsigned lane, uint64_t cookie, const void *payload,
                             size_t len);
/* In a `delivered` callback: the payload of the message delivered (len set;
 * NULL and 0 when it has none).  Valid until the callback returns. */
const void *hs_fabric_payload(const hs_fabric *f, size_t *len);
/* Calls cb.timer(cookie) at time t >= now.  HS_EINVAL, HS_ENOMEM.  A timer
 * of the driver (the event order's origin S + N, docs/fabric.md "Event
 * order"): in a parallel run, part 0 counts it. */
int hs_fabric_timer(hs_fabric *f, hs_time t, uint64_t cookie);
/* A timer of node `node` (< N): it originates at the node's NIC, as a post
 * there does, and what its callback schedules originates there too; so a
 * client whose every action for a node happens in that node's callbacks
 * (the MPI replay's ranks) orders its events the same whichever process
 * simulates the node.  In a parallel run the node must be local
 * (HS_EINVAL otherwise). */
int hs_fabric_timer_at(hs_fabric *f, hs_time t, uint32_t node, uint64_t cookie);

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

/* ---- parallel runs (conservative, windowed; docs/fabric.md, "Parallel
 * runs") ------------------------------------------------------------------
 * Every process builds the same network, then hs_fabric_partition(f, np,
 * me) before any injection: the process simulates the switches of part
 * `me` (hs__partition's split) and their NICs, and injects only messages
 * whose source is local (hs_fabric_node_local).  Events for another part
 * go to per-part outboxes; a window [T, T + lookahead) runs, the outboxes
 * are exchanged, and the next window starts at the least next-event time
 * of all processes.  fabric/ knows no MPI: hs_fabric_run_parallel takes a
 * transport, and the step functions serve a driver that runs several
 * parts in one process (the unit tests). */
/* HS_ENOTSUP for routing=ugal-g and router=booksim, HS_EINVAL for more parts
 * than switches or after a message was posted. */
int hs_fabric_partition(hs_fabric *f, unsigned nparts, unsigned me);
int hs_fabric_node_local(const hs_fabric *f, uint32_t node);
/* Re-cuts the partition by the load expected at each node (node_load[N],
 * e.g. its messages' rates in and out; a share of the total is added to
 * every switch for the traffic passing through): the same structure per
 * family, the blocks balanced by weight (docs/fabric.md, "Partition").
 * Before any message is posted and before the run; every process must
 * pass the same loads.  HS_ESTATE otherwise. */
int hs_fabric_partition_balance(hs_fabric *f, const double *node_load);
/* The window bound (least latency of a cut link); HS_TIME_NEVER with one
 * part. */
hs_time hs_fabric_lookahead(const hs_fabric *f);
unsigned hs_fabric_nparts(const hs_fabric *f);
unsigned hs_fabric_part(const hs_fabric *f);

typedef struct hs_fabric_transport {
    /* *t = the least *t over all processes */
    int (*min_time)(void *ctx, hs_time *t);
    /* sends out[p] (outlen[p] bytes) to part p (out[me] is empty) and
     * returns what all parts sent to this one, concatenated in part order,
     * in a buffer the transport owns until the next call */
    int (*exchange)(void *ctx, const void *const *out, const size_t *outlen,
                    const void **in, size_t *inlen);
    void *ctx;
} hs_fabric_transport;

/* Runs to global idle; 1 idle, HS_EDEADLOCK when packets or messages
 * remain anywhere (summed with min_time over -count), other negative
 * status on failure.  hs_fabric_stop is not supported (HS_ENOTSUP). */
int hs_fabric_run_parallel(hs_fabric *f, const hs_fabric_transport *tr);
/* What one process of a parallel run did (hs_fabric_run_parallel): windows,
 * the events it ran, events it sent to other parts and received, bytes
 * sent, and the CPU and wall time it spent running events (and taking in
 * what arrived) against the time in the transport's calls (exchange and
 * reduction, which include waiting for the slowest process). */
typedef struct hs_fabric_par_stats {
    uint64_t windows, events, sent, received, sent_bytes;
    uint64_t run_cpu_ns, run_wall_ns, sync_cpu_ns, sync_wall_ns;
    uint64_t gather_cpu_ns, gather_wall_ns;   /* hs_fabric_gather_results */
    /* `events` are those this process counts in the run's total: part 0
     * counts the driver's timers of every part, the others none.  The
     * events it ran: events + uncounted - skipped. */
    uint64_t uncounted, skipped;
    /* bytes of other parts' per-device state given back to the system */
    uint64_t released_bytes;
} hs_fabric_par_stats;
/* HS_ESTATE when f is not partitioned. */
int hs_fabric_par_stats_get(const hs_fabric *f, hs_fabric_par_stats *out);
/* The critical path of the run on idle cores, from CPU times: the sum over
 * windows of the largest CPU time any process spent running that window
 * (to part 0, in *ns; 0 elsewhere).  Collective: every process calls it
 * after hs_fabric_run_parallel. */
int hs_fabric_par_critical(const hs_fabric *f, const hs_fabric_transport *tr, uint64_t *ns);
/* Steps: the local next-event time; run the events with t < end (0, or a
 * negative status; 2 if a callback stopped); the bytes queued for part p;
 * forget the outboxes; take in what other parts sent. */
hs_time hs_fabric_next_time(const hs_fabric *f);
int hs_fabric_run_window(hs_fabric *f, hs_time end);
int hs_fabric_outbox(const hs_fabric *f, unsigned part, const void **buf, size_t *len);
void hs_fabric_outbox_clear(hs_fabric *f);
int hs_fabric_inbox(hs_fabric *f, const void *buf, size_t len);
/* Packets and messages (not yet sent) held by this process. */
uint64_t hs_fabric_held(const hs_fabric *f);
/* After the run: every part sends what it adds to the run directory to
 * part 0, which merges it (ground truth, counters, records in the
 * sequential order, statistics, end time); then part 0's fabric writes the
 * run directory.  Collective (every part calls it). */
int hs_fabric_gather_results(hs_fabric *f, const hs_fabric_transport *tr);
/* The pieces: pack this part's results (malloc'd), merge a packed part
 * into f, and put the merged records in order once all are in. */
int hs_fabric_results_pack(hs_fabric *f, void **buf, size_t *len);
int hs_fabric_results_merge(hs_fabric *f, const void *buf, size_t len);
int hs_fabric_results_finish(hs_fabric *f);

/* A network (routing) deadlock: a cycle of switch input buffers, each of
 * whose head packets waits for credit that only the next buffer of the
 * cycle can return (docs/fabric.md, "Deadlock detection").  Hops are in
 * cycle order, starting at the buffer of the smallest (link, VC). */
#define HS_DEADLOCK_MAX_HOPS 64
typedef struct hs_deadlock_hop {
    uint32_t link;          /* the buffer: link `link`'s input FIFO at switch `sw` */
    uint8_t  vc;
    uint32_t sw;
    uint32_t packets;       /* queued in it */
    uint64_t bytes;
    uint32_t need;          /* bytes of its head packet */
    uint32_t wait_link;     /* the buffer the head waits for (the next hop) */
    uint8_t  wait_vc;
    int64_t  credit;        /* credit the transmitter holds for that buffer */
} hs_deadlock_hop;
typedef struct hs_fabric_deadlock {
    hs_time  t;             /* when found */
    unsigned total;         /* buffers on the cycle (0: no deadlock) */
    unsigned n;             /* of them in hop[] (the first HS_DEADLOCK_MAX_HOPS) */
    hs_deadlock_hop hop[HS_DEADLOCK_MAX_HOPS];
} hs_fabric_deadlock;
/* Looks for a deadlocked cycle now (between runs or from a callback):
 * 1 and d filled if there is one, 0 if none (d->total = 0), HS_ENOMEM.
 * Costs O(links x VCs); never changes the simulation. */
int hs_fabric_find_deadlock(hs_fabric *f, hs_fabric_deadlock *d);
/* Describes the cycle, one line per buffer (switch names, link kind, VC,
 * queued packets, credit); returns the length it needed (like snprintf). */
size_t hs_fabric_deadlock_str(const hs_fabric *f, const hs_fabric_deadlock *d, char *buf,
                              size_t n);

/* When the last packet of a phase was delivered (processed by its
 * destination NIC), or HS_TIME_NEVER if none yet: progress at packet
 * granularity, for watchdogs that cannot wait for a long message's end. */
hs_time hs_fabric_phase_last_delivery(const hs_fabric *f, uint16_t phase);
/* Time to drain every buffer of the network (switch input buffers of all
 * VCs and NIC receive buffers, their configured capacities even with
 * unbounded buffers) through the slowest receiving NIC: an upper bound on
 * how long a packet can wait behind others when all of them converge on
 * one endpoint. */
hs_time hs_fabric_drain_time(const hs_fabric *f);

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

/* Parts of the model state counted in hs_fabric_stats.mem_bytes: per-link
 * and per-switch engine state with the topology's link table; packet,
 * message and timer pools; pending events; ground truth per phase (with
 * the totals) and per window; in-band counters per phase and window;
 * sampled records; NICs and fixed tables. */
enum { HS_MEM_LINKS, HS_MEM_PACKETS, HS_MEM_EVENTS, HS_MEM_TRUTH_PHASE, HS_MEM_TRUTH_WINDOW,
       HS_MEM_COUNTERS, HS_MEM_RECORDS, HS_MEM_NICS, HS_FABRIC_MEM_PARTS };
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
    uint64_t max_injection_queue; /* most messages waiting at one NIC at once (posted,
                                    not yet cut into packets to the end), over all
                                    NICs and the whole run: the study's "max
                                    injection FIFO length" (hopscope sweep) */
    uint64_t nonminimal;      /* dragonfly: packets sent the Valiant way */
    size_t   mem_bytes;       /* model state now (pools, tables, truth): the sum of */
    size_t   mem_part[HS_FABRIC_MEM_PARTS]; /* its parts, hs_fabric_mem_part_name */
} hs_fabric_stats;
/* Short name of a part of mem_bytes ("links", "packets", ...), or NULL. */
const char *hs_fabric_mem_part_name(unsigned part);
void hs_fabric_get_stats(const hs_fabric *f, hs_fabric_stats *s);
/* The most messages that waited at once at node's NIC so far (posted, not
 * yet cut into packets to the end); 0 for a node outside the machine. */
uint32_t hs_fabric_nic_queue_max(const hs_fabric *f, uint32_t node);
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
/* The same over a parallel fabric (hs_fabric_partition), every process
 * calling it with the same arguments: each runs the same traffic driver and
 * injects its own sources' messages; part 0 gets the result (the
 * sequential run's, exactly) and the merged results for the run directory
 * (hs_fabric_gather_results); the other parts' *r is zero.  --packets mode
 * only (HS_ENOTSUP otherwise). */
int hs_traffic_run_parallel(hs_fabric *f, const hs_traffic_cfg *c, hs_traffic_result *r,
                            const hs_fabric_transport *tr, hs_error *err);
/* Adds the config and result as "traffic" to a manifest (for `extra`). */
void hs_traffic_json(hs_json *w, const hs_traffic_cfg *c, const hs_traffic_result *r);


#ifdef __cplusplus
}
#endif
#endif
