/* replay/replay.h — private: the MPI replay's state, shared by replay.c
 * (driver), replay_load.c (trace -> ops), replay_actor.c (the interpreter),
 * mpi_p2p.c (matching, protocols, transport), mpi_coll.c, mpi_rma.c,
 * background.c and replay_out.c (app.json, reports).
 *
 * Model (docs/replay.md has the full account):
 *   - A trace is first compiled into ops: one op per MPI call that moves
 *     data or synchronises, each carrying the computation that preceded it
 *     (recorded gap x scale).  Wildcard receives are resolved from their
 *     completions, request ids become dense per-rank slots.  Calls that
 *     neither move data nor synchronise (communicator and window
 *     management, fruitless tests) take no time; the computation around
 *     them is kept.
 *   - An actor is one thread of one rank.  It runs its ops in order: a
 *     computation gap is a timer, then the call is issued; a blocking call
 *     parks the actor until the requests it waits for complete.  Actors of
 *     background jobs loop over their programs.
 *   - Point-to-point messages are matched per key (destination, source,
 *     communicator, tag) in FIFO order: receives in the trace are resolved,
 *     so exact keys implement MPI's rules, and a send takes its place in its
 *     key's order when issued (the k-th send pairs with the k-th receive,
 *     matched at the receiver), which is MPI's non-overtaking order whatever
 *     the network does.  Each side keeps its own record of a message; its
 *     legs carry its descriptor (rp_wire).  Eager messages carry their data at once;
 *     rendezvous ones send RTS, the receiver answers CTS when the receive is
 *     posted, then the data follows.  Each network transfer ("leg") is a
 *     fabric message; legs between ranks on the same node are timers
 *     (shared-memory latency + copy at memory bandwidth).
 *   - Everything happens inside fabric callbacks; actors made runnable
 *     there are queued and run after the event, so nothing recurses.
 *
 * Indices are uint32 into pools that grow by doubling (RP_NIL = none). */
#ifndef HOPSCOPE_REPLAY_REPLAY_H
#define HOPSCOPE_REPLAY_REPLAY_H

#include "hopscope/replay.h"
#include "../common/rng.h"
#include "coll.h"
#include "hopscope/trace.h"

#define RP_NIL UINT32_MAX

/* ---- ops ----------------------------------------------------------------- */

enum rp_code {
    OP_END = 0,       /* MPI_Finalize or the end of the stream */
    OP_SEND,          /* blocking send: peer, tag, bytes; F_SYNC, F_BUFFERED */
    OP_ISEND,         /* slot */
    OP_PSEND,         /* *_send_init: slot becomes a persistent send */
    OP_RECV,          /* blocking receive: peer/tag (resolved), bytes */
    OP_IRECV,         /* slot; F_UNRESOLVED until its completion patched it */
    OP_PRECV,         /* recv_init: slot becomes a persistent receive */
    OP_SENDRECV,      /* send peer/tag/bytes, receive peer2/tag2/bytes2 */
    OP_ISENDRECV,     /* slot */
    OP_PROBE,         /* blocks until a message of (peer, tag) has arrived */
    OP_START,         /* aux: naux start entries (rp_start) */
    OP_WAIT,          /* aux: naux slots (u32 in u64 words) */
    OP_COLL,          /* kind = trace kind; comm; peer = root (comm rank);
                         peer2 = own comm rank; bytes = size (see load);
                         aux: counts; slot for nonblocking */
    OP_RMA,           /* comm = window; peer = target (job rank); tag = rma kind;
                         bytes origin->target, bytes2 target->origin; slot for r* */
    OP_FENCE,         /* comm = window */
    OP_LOCK,          /* peer, tag = 1 exclusive / 2 shared */
    OP_UNLOCK,        /* peer */
    OP_LOCK_ALL,
    OP_UNLOCK_ALL,
    OP_FLUSH,         /* peer */
    OP_FLUSH_ALL,
    OP_FLUSH_LOCAL,   /* peer */
    OP_FLUSH_LOCAL_ALL,
    OP_POST,          /* aux: group (job ranks) */
    OP_WSTART,        /* aux: group */
    OP_COMPLETE,
    OP_WWAIT,
    OP_NCODES
};

/* op flags */
#define F_MON        0x01u   /* the message carries the in-band field */
#define F_SYNC       0x02u   /* synchronous send (ssend) */
#define F_BUFFERED   0x04u   /* bsend: completes after a local copy */
#define F_UNRESOLVED 0x08u   /* wildcard receive the trace never completed */
#define F_CANCELLED  0x10u   /* the trace's completion says cancelled */
#define F_NOSEND     0x20u   /* sendrecv: the send half goes to MPI_PROC_NULL */
#define F_NORECV     0x40u   /* sendrecv: the receive half is from MPI_PROC_NULL */
#define F_NULLPEER   0x80u   /* i-op with MPI_PROC_NULL: completes at once */

typedef struct rp_op {
    uint64_t gap;        /* ps of computation before the call */
    uint64_t bytes, bytes2;
    int32_t  peer, tag;
    int32_t  peer2, tag2;
    uint32_t comm;       /* global communicator index, or window index */
    uint32_t slot;       /* request slot of the rank, RP_NIL for blocking calls */
    uint32_t aux, naux;  /* list in the aux pool */
    uint32_t ev;         /* event number in the rank's stream (reports) */
    uint16_t kind;       /* trace kind */
    uint8_t  code;       /* rp_code */
    uint8_t  flags;
} rp_op;

/* One persistent request started by OP_START (two aux words). */
typedef struct rp_start {
    uint32_t slot;
    uint8_t  flags;      /* F_MON for a send; F_UNRESOLVED */
    int32_t  src, tag;   /* a receive's resolved source and tag */
} rp_start;

/* RMA kinds (op tag, phase classes) */
enum { RMA_PUT = 0, RMA_GET, RMA_ACC, RMA_GETACC, RMA_SYNC, RMA_NKINDS };

/* ---- communicators and windows -------------------------------------------- */

typedef struct rp_comm {
    uint64_t id;         /* the trace's id */
    uint32_t job;
    uint32_t n;
    int32_t *members;    /* job ranks in communicator order; NULL: identity (world) */
    uint64_t *rev;       /* sorted (job rank << 32 | comm rank) for reverse lookups */
    uint8_t  self;       /* MPI_COMM_SELF: members = {the calling rank} */
} rp_comm;

typedef struct rp_winrank {
    /* as a target: passive-target locks */
    uint32_t lock_excl;      /* holders: 0/1 exclusive */
    uint32_t lock_shared;    /* shared holders */
    uint32_t lq_head, lq_tail; /* waiting lock requests (rp_rma) */
    /* as an origin */
    uint32_t out_head;       /* outstanding operations (rp_rma list) */
    uint32_t held;           /* locks granted to this origin (rp_rma list) */
    uint32_t waiter;         /* actor waiting in a sync call of this window */
    uint32_t wait_target;    /* job rank, or RP_NIL for all */
    uint8_t  wait_kind;      /* W_* of the waiting actor */
    uint32_t start_aux, start_n;  /* PSCW: group of the access epoch (job ranks) */
    uint32_t post_aux, post_n;    /* PSCW: group of the exposure epoch */
} rp_winrank;

typedef struct rp_win {
    uint64_t id;
    uint32_t job;
    uint32_t comm;           /* the window's group */
    uint32_t sync_comm;      /* a private twin for fence barriers and PSCW messages */
    rp_winrank *wr;          /* [comm size] by communicator rank */
} rp_win;

/* ---- requests, messages, receives ------------------------------------------- */

typedef struct rp_req {
    hs_time  t_done;
    uint32_t pending;    /* sub-operations outstanding; 0 = complete */
    uint32_t waiter;     /* actor parked on it, or RP_NIL */
    uint32_t op;         /* persistent: the *_init op */
    uint16_t phase;
    uint8_t  persistent;
    uint8_t  pad_;
} rp_req;

/* Completion targets of a message's two sides. */
enum { TGT_NONE = 0, TGT_REQ = 1, TGT_COLL = 2 };

/* Legs: what a fabric message or a local timer carries. */
enum {
    LEG_EAGER = 1, LEG_RTS, LEG_CTS, LEG_DATA, LEG_ACK,
    LEG_RMA_DATA,        /* put/accumulate data, get request: origin -> target */
    LEG_RMA_RESP,        /* get/get_accumulate data: target -> origin */
    LEG_LOCK, LEG_GRANT, LEG_UNLOCK, LEG_UNLOCK_ACK,
    LEG_NLEGS
};

/* message flags */
#define M_RNDV     0x001u
#define M_SYNC     0x002u
#define M_MON      0x004u
#define M_ARRIVED  0x008u   /* eager data / RTS at the receiver */
#define M_MATCHED  0x010u
#define M_NET      0x020u   /* crossed the network (not intra-node) */
#define M_APP      0x040u   /* the application's, not a background job's */
#define M_USER     0x080u   /* a user message (counted); not an RMA sync message */
#define M_DONE     0x100u   /* the receive side has completed */
#define M_SENT     0x200u   /* the data's last packet has left */
#define M_ACKED    0x400u   /* ssend: the receiver's acknowledgement is back */
#define M_CREDIT   0x800u   /* background eager message holding one of its pair's credits */
#define M_RSIDE    0x1000u  /* the receiver's record of the message */

/* A user-level message (point-to-point, decomposed collective, PSCW
 * notice) has two records, each touched only by its own side's events:
 * the sender's, from its issue until its send side is done, and the
 * receiver's (M_RSIDE), made from the descriptor its first leg (eager data
 * or RTS) carries when that arrives, until its receive side is done.
 * Every leg carries the message's descriptor (rp_wire) to the other side:
 * nothing of one side is read by the other. */
typedef struct rp_msg {
    uint64_t bytes;
    hs_time  t_leg;      /* the last leg this side posted or received was posted */
    hs_time  lat;        /* network time of its legs so far (as this side knows it) */
    int64_t  tag;
    uint32_t src, dst;   /* global ranks */
    uint32_t comm;
    uint32_t seq;        /* its place among the messages of its key (k-th send) */
    uint32_t next;       /* arrived list / background in-flight list / free list */
    uint32_t peer;       /* the other side's record (RP_NIL: not known yet) */
    uint32_t tgt;        /* this side's completion target (index) */
    uint16_t phase;
    uint16_t flags;
    uint8_t  type;       /* this side's completion target type (TGT_*) */
    uint8_t  refs;       /* sender: send side not done + background first leg on its way */
} rp_msg;

/* What a point-to-point leg carries to the other side: the fabric's payload
 * of a network leg (hs_fabric_inject_payload), or a record of R->wire for a
 * leg between ranks of one node (its timer's index). */
typedef struct rp_wire {
    uint64_t bytes;
    hs_time  t_leg;      /* the leg was posted */
    hs_time  lat;        /* network time of the message's legs before this one */
    int64_t  tag;
    uint32_t src, dst, comm, seq;   /* the message's key and place */
    uint32_t from;       /* the message's record at the leg's source side */
    uint32_t to;         /* ... at its destination side; RP_NIL: a first leg, which makes it */
    uint32_t next;       /* free list of R->wire */
    uint16_t phase, flags;
} rp_wire;

/* A receive posted before its message arrived. */
typedef struct rp_recv {
    hs_time  t_post;
    uint32_t seq;        /* its place among the receives of its key (k-th receive) */
    uint32_t next;
    uint32_t tgt;
    uint8_t  type;
} rp_recv;

/* Matching table entry of one key (destination, source, communicator,
 * tag).  The k-th send of a key pairs with its k-th receive (MPI's
 * non-overtaking order): the sender numbers its sends (sseq), the receiver
 * its receives (rseq), and the match is made at the receiver when the
 * message's first leg (eager data or RTS) arrives or when the receive is
 * posted, whichever is later.  The sender's fields are touched by the
 * sender's events only, the receiver's by the receiver's, except `fhead`
 * and the eager credits of background jobs (mpi_p2p.c). */
typedef struct rp_ment {
    int64_t  tag;
    uint32_t dst, src, comm;   /* dst == RP_NIL: empty slot */
    /* the sender's */
    uint32_t sseq;             /* messages issued */
    uint32_t fhead;            /* background messages issued whose first leg is on its
                                  way (rp_msg, in seq order) */
    /* the receiver's */
    uint32_t rseq;             /* receives posted */
    uint32_t ahead;            /* messages arrived, no receive yet (rp_msg, by seq) */
    uint32_t rhead, rtail;     /* receives posted, message not arrived (rp_recv, by seq) */
    uint32_t probe;            /* actors in MPI_Probe on this key (list via actor.next) */
} rp_ment;

/* ---- collectives ---------------------------------------------------------------- */

typedef struct rp_coll {
    hs__coll_iter it;
    int64_t  tag;        /* matching tag of this instance (negative) */
    uint64_t reduce;     /* bytes to reduce once the current step's transfers are done */
    uint32_t rank;       /* global rank running it */
    uint32_t comm;
    uint32_t pending;    /* transfers of the current step */
    uint32_t tgt;        /* request completed at the end */
    uint32_t next;       /* free list */
    uint16_t phase;
    uint8_t  kind;       /* hs__coll_kind */
    uint8_t  mon_rate1;  /* monitoring: 1 all, 0 none, 2 sampled */
} rp_coll;

/* ---- RMA ------------------------------------------------------------------------ */

#define R_LOCAL   0x01u  /* local completion (origin buffer free) */
#define R_REMOTE  0x02u  /* remote completion */
#define R_EXCL    0x04u  /* lock request: exclusive */
#define R_MON     0x08u
#define R_APP     0x10u
#define R_NET     0x20u

typedef struct rp_rma {
    uint64_t bytes, bytes2;
    hs_time  t_leg, lat;
    uint32_t win;
    uint32_t origin, target;     /* global ranks */
    uint32_t ocr, tcr;           /* communicator ranks in the window */
    uint32_t tgt;                /* request (r* ops), or RP_NIL */
    uint32_t next, prev;         /* origin's outstanding or held list / lock queue / free list */
    uint16_t phase;
    uint8_t  kind;               /* RMA_* or a lock/unlock marker */
    uint8_t  flags;
} rp_rma;

/* Small open-addressing map u64 -> u64 (key 0 reserved as empty). */
typedef struct rp_map {
    uint64_t *k, *v;
    size_t    cap, n;
} rp_map;
int       hs__rp_map_init(rp_map *m, size_t cap);
void      hs__rp_map_free(rp_map *m);
/* Pointer to the value of key (inserting 0), NULL on out of memory. */
uint64_t *hs__rp_map_get(rp_map *m, uint64_t key);
uint64_t *hs__rp_map_find(const rp_map *m, uint64_t key);
void      hs__rp_map_del(rp_map *m, uint64_t key);

/* ---- actors, ranks, jobs ----------------------------------------------------------- */

enum { A_READY = 0, A_COMPUTE, A_OVERHEAD, A_BLOCKED, A_DONE };
/* what a blocked actor waits for */
enum { W_REQS = 1, W_PROBE, W_FLUSH, W_FLUSH_LOCAL, W_LOCK, W_UNLOCK, W_FENCE, W_COMPLETE };

typedef struct rp_actor {
    uint32_t rank;       /* global */
    uint32_t op0, nops;  /* program: ops[op0 .. op0+nops) */
    uint32_t pc;         /* next op (absolute index) */
    uint32_t wait_n;     /* requests still awaited */
    uint32_t next;       /* ready queue / probe list */
    uint32_t scratch;    /* first of its two scratch request slots */
    hs_time  t_call;     /* start of the current call */
    hs_time  t_loop;     /* background: start of the current pass */
    hs_time  t_end;
    uint64_t compute, comm;  /* ps */
    uint16_t phase;      /* phase the current call's time goes to */
    uint8_t  state;
    uint8_t  wait_kind;
    uint8_t  gap_done;
    uint8_t  queued;
    uint8_t  app;
    uint8_t  thread;
    uint32_t stage;      /* multi-stage calls (unlock, fence, complete) */
    uint32_t obj;        /* the lock request of a multi-stage call */
} rp_actor;

typedef struct rp_rank {
    uint32_t job;
    uint32_t jrank;      /* rank within its job */
    uint32_t node;
    uint32_t req0, nreq; /* its request slots in R->req */
    uint32_t actor0, nactors;
} rp_rank;

typedef struct rp_job {
    uint32_t rank0, nranks;
    uint32_t actor0, nactors;
    int      app;
    int      loop;
    uint16_t bg_phase;       /* background: the phase of all its traffic */
    double   sample_rate;    /* monitoring of messages the replay generates */
    uint64_t sample_seed;
    uint32_t world;          /* global index of its MPI_COMM_WORLD */
    uint32_t self;           /* ... of its MPI_COMM_SELF */
    char     name[160];
    rp_map   comm_ids;       /* trace communicator id -> comm index + 1 */
    rp_map   win_ids;        /* trace window id -> window index + 1 */
    uint64_t messages, bytes;/* user messages issued */
} rp_job;

/* ---- phases ------------------------------------------------------------------------- */

enum { PH_TAG = 1, PH_OTHER_TAGS, PH_COLL, PH_RMA, PH_BG };

typedef struct rp_phase {
    uint8_t  cls;        /* PH_* */
    int32_t  value;      /* tag, coll kind, rma kind, job */
    uint64_t messages, bytes;
    uint64_t time_ps;    /* summed over actors, inside calls of the phase */
    uint64_t lat_n;      /* latency samples seen */
    uint64_t lat_sum;    /* ps */
} rp_phase;

/* Latency samples (ps, phase), all of them up to a cap, then a reservoir. */
typedef struct rp_lat {
    uint64_t *v;
    uint16_t *ph;
    size_t    n, cap, limit;
    uint64_t  seen;
    uint64_t  sum;
    uint64_t  rng[4];
} rp_lat;

/* Communication matrix: (src, dst) -> bytes, messages, in order of first use. */
typedef struct rp_pairs {
    rp_map    map;           /* (src << 32 | dst) + 1 -> index + 1 */
    uint64_t *key, *bytes, *msgs;
    size_t    n, cap;
} rp_pairs;

/* Growable arrays: *p of *cap elements of size sz, room for need. */
int hs__rp_grow(void **p, size_t *cap, size_t need, size_t sz);
/* Pools of elements of size sz linked through a uint32 `next` field at
 * next_off: takes one off *free_head, doubling the array (from `first`
 * elements) when the list is empty; RP_NIL on out of memory. */
uint32_t hs__rp_pool_take(void **arr, size_t *cap, uint32_t *free_head, size_t sz,
                          size_t next_off, size_t first);

/* ---- the replay ------------------------------------------------------------------------ */

typedef struct rp {
    const hs_replay_params *prm;
    hs_fabric *F;
    hs_error  *err;
    uint32_t   nnodes;

    /* program */
    rp_op    *ops;   size_t nops, capops;
    uint64_t *aux;   size_t naux, capaux;
    rp_job   *jobs;  uint32_t njobs;
    rp_rank  *ranks; uint32_t nranks;
    rp_actor *actors; uint32_t nactors; size_t capactors;
    rp_comm  *comms; uint32_t ncomms; size_t capcomms;
    rp_win   *wins;  uint32_t nwins; size_t capwins;
    uint32_t  app_ranks, app_actors;

    /* runtime pools */
    rp_req   *req;   size_t nreq;
    rp_msg   *msg;   size_t capmsg; uint32_t msg_free;
    rp_wire  *wire;  size_t capwire; uint32_t wire_free;   /* local legs in flight */
    rp_recv  *rcv;   size_t caprcv; uint32_t rcv_free;
    rp_coll  *coll;  size_t capcoll; uint32_t coll_free;
    rp_rma   *rma;   size_t caprma; uint32_t rma_free;
    rp_ment  *mt;    size_t capmt, nmt;   /* matching table, power of two */
    rp_map    coll_seq;      /* (rank << 32 | comm) -> collectives started */
    rp_map    pair_seq;      /* (src << 32 | dst) -> generated messages (sampled monitoring) */

    /* scheduling */
    uint32_t  ready_head, ready_tail;
    int       draining;
    uint64_t  app_pending;   /* application timers and legs outstanding */
    uint64_t  app_timers;    /* of them, timers (computation, copies, reductions) */
    hs_time   t_progress;    /* last application callback (leg, timer) */
    hs_time   watchdog;      /* no progress for this long: stop (stalled) */
    hs_time   t_stall;       /* stalled: the last progress */
    int       stalled;       /* stopped by the watchdog */
    int       net_deadlock;  /* stopped: a cycle of full buffers (dl) */
    hs_fabric_deadlock dl;
    rp_map    bg_credit;     /* background (src << 32 | dst) + 1 -> unmatched eager */
    uint64_t  bg_unexp, bg_unexp_peak; /* background eager messages unmatched, now and at most */
    uint32_t  app_done;
    int       finished;      /* the application is done */
    int       deadlock;
    int       stop;          /* stopped: finished or deadlocked */
    int       to_idle;       /* no background: the run goes on until the network is idle */
    int       par;           /* a part of a parallel run: the end is decided at global idle */
    uint32_t  par_qmax;      /* part 0 of a parallel run: the other parts' nic_queue_max */
    int       error;         /* sticky failure inside a callback */
    /* the application's packets against --max-packets (every message as if
     * it crossed the network): estimated from the trace when loading, and
     * counted as its data legs start */
    uint64_t  est_packets, est_bytes, est_big;   /* est_big: the largest message */
    uint32_t  est_big_rank, est_big_ev;
    uint16_t  est_big_kind;
    uint64_t  app_packets;
    int       over_packets;  /* stopped: app_packets passed --max-packets */
    uint64_t  err_bytes;     /* the message the network refused (error) */

    /* collectives */
    hs__coll_tuning tuning;
    uint8_t   alg[HS__COLL_NKINDS];

    /* phases */
    rp_phase *ph;    uint32_t nph; size_t capph;
    rp_map    ph_map;        /* (cls << 40 | value) -> id + 1 */
    uint32_t  ntagph;
    rp_lat    lat;           /* application network messages */

    /* results */
    uint64_t  app_msgs, app_bytes, app_rma, app_rma_bytes;
    uint64_t  bg_msgs, bg_bytes;
    uint64_t  unresolved, warnings;
    uint64_t  warn_kind[HS_TRACE_KIND_MAX + 1];
    rp_pairs  pairs;         /* point-to-point and collectives, by job rank */
    rp_pairs  rpairs;        /* RMA data */
    uint32_t *node_of;       /* [nranks] global rank -> node */
    hs_trace_manifest man;   /* of the application trace */
    int       have_man;
    /* computation scale of the application's ranks (hs__rp_compute_scale):
     * [ranks of the application trace] while it loads, then freed */
    double   *app_scale;
    double    scale_min, scale_max;   /* over the application's ranks */
    char      scale_note[320];        /* why it was scaled; "" when it was not */
    const char *stage;
    /* background */
    uint32_t *bg_nodes;  uint32_t nbg_nodes;
    uint16_t *bg_phases; uint32_t nbg_phases;
    hs_time   t_end;         /* when the application finished (or stopped) */
    /* application ranks whose trace does not end with MPI_Finalize */
    uint32_t  incomplete;
    uint32_t  inc_rank[4];
    char      inc_note[4][520];
} rp;

/* cookies: fabric messages carry leg << 32 | index; timers type << 40 | ... */
enum { TM_WAKE = 1, TM_LSENT, TM_LDELIV, TM_COPY, TM_BSEND, TM_REDUCE, TM_OVERHEAD,
       TM_WATCHDOG };
#define CK_LEG(c)   ((unsigned)((c) >> 32) & 0xffu)
#define CK_IDX(c)   ((uint32_t)(c))
#define CK_TYPE(c)  ((unsigned)((c) >> 40))
static inline uint64_t ck_make(unsigned type, unsigned leg, uint32_t idx)
{
    return (uint64_t)type << 40 | (uint64_t)leg << 32 | idx;
}

/* ---- replay_load.c ------------------------------------------------------------------- */
/* Compiles the trace at path into a new job (ranks, actors, ops).  app: the
 * application (else a background job that loops).  ppn/map are applied by
 * the caller; node_of is filled later. */
int hs__rp_load_trace(rp *R, const char *path, int app, hs_error *err);
/* Packets of a message of b bytes at the network's MTU (1 for 0 bytes). */
uint64_t hs__rp_packets(const rp *R, uint64_t b);
int hs__rp_comm_add(rp *R, uint32_t job, uint64_t id, uint32_t n, const int32_t *members,
                    uint32_t *out);
/* Communicator rank of job rank jr in comm c, or -1. */
int32_t hs__rp_comm_rank(const rp *R, uint32_t c, int32_t jr);
/* Job rank of communicator rank cr of comm c seen by job rank self. */
static inline int32_t hs__rp_comm_member(const rp *R, uint32_t c, int32_t cr, int32_t self)
{
    const rp_comm *cm = &R->comms[c];
    if (cm->self)
        return self;
    return cm->members ? cm->members[cr] : cr;
}
int hs__rp_op_new(rp *R, rp_op **out);
int hs__rp_aux_new(rp *R, size_t words, uint32_t *off);
int hs__rp_job_new(rp *R, uint32_t nranks, int app, const char *name, uint32_t *out);

/* ---- replay_actor.c ------------------------------------------------------------------- */
void hs__rp_actor_ready(rp *R, uint32_t a);
void hs__rp_drain(rp *R);
void hs__rp_wake(rp *R, uint32_t a);          /* the timer of its gap or overhead fired */
/* A request's sub-operation completed at now. */
void hs__rp_req_done(rp *R, uint32_t gi);
/* Re-evaluates an actor blocked in an RMA synchronisation call. */
void hs__rp_rma_recheck(rp *R, uint32_t a);
void hs__rp_check_end(rp *R);
int  hs__rp_phases_prepass(rp *R);
/* Parallel runs (replay_par.c): the partition re-cut by the trace's bytes
 * per rank; the replay's results gathered at part 0 (collective; part 0
 * returns the first failure of any part, *us / *ur the leftovers of all). */
int  hs__rp_par_balance(rp *R);
int  hs__rp_par_gather(rp *R, const hs_fabric_transport *tr, int status, uint64_t warnings0,
                       uint64_t *us, uint64_t *ur);
/* The watchdog's timer: stops on a network deadlock or when the
 * application has made no progress for R->watchdog; else re-arms. */
void hs__rp_watchdog(rp *R);

/* ---- mpi_p2p.c -------------------------------------------------------------------------- */
int  hs__rp_mt_init(rp *R);
/* The matching table's entry of a key, RP_NIL if none. */
uint32_t hs__rp_mt_find(const rp *R, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag);
/* Issues a message src -> dst (global ranks) with key (comm, tag); s_type/s_tgt is
 * completed when the send side is done (local completion; ssend: also matched). */
int  hs__rp_send(rp *R, uint32_t src, uint32_t dst, uint32_t comm, int64_t tag,
                 uint64_t bytes, uint16_t phase, unsigned mflags, uint8_t s_type,
                 uint32_t s_tgt);
/* Posts a receive at dst for key (src, comm, tag). */
int  hs__rp_recv(rp *R, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag,
                 uint8_t r_type, uint32_t r_tgt);
/* Probe: 1 if a message of the key has arrived (else the actor is queued on
 * the key and woken when one arrives), < 0 on error. */
int  hs__rp_probe(rp *R, uint32_t actor, uint32_t dst, uint32_t src, uint32_t comm, int64_t tag);
/* Starts a leg: a fabric message between the ranks' nodes, or local timers;
 * w: the point-to-point descriptor it carries (NULL for RMA legs). */
int  hs__rp_leg(rp *R, unsigned leg, uint32_t idx, uint32_t src, uint32_t dst,
                uint64_t bytes, uint16_t phase, int mon, int app, const rp_wire *w);
void hs__rp_on_sent(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t);
void hs__rp_on_delivered(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t);
void hs__rp_on_timer(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t);
/* Completes a target (request or collective) at now. */
void hs__rp_target_done(rp *R, uint8_t type, uint32_t idx);
/* A timer of global rank `rank` (at its node: hs_fabric_timer_at). */
int  hs__rp_timer(rp *R, hs_time t, unsigned type, unsigned leg, uint32_t idx, int app,
                  uint32_t rank);
hs_time hs__rp_copy_time(const rp *R, uint64_t bytes);
/* Monitoring decision for a message the replay generates. */
int  hs__rp_gen_monitored(rp *R, uint32_t src, uint32_t dst);
void hs__rp_record_pair(rp *R, int rma, uint32_t src, uint32_t dst, uint64_t bytes);

/* ---- mpi_coll.c ------------------------------------------------------------------------- */
/* Starts a collective for op at global rank `rank`; completes request gi. */
int  hs__rp_coll_start(rp *R, uint32_t rank, const rp_op *op, uint32_t gi);
/* Starts a barrier on comm (fence); completes request gi. */
int  hs__rp_barrier(rp *R, uint32_t rank, uint32_t comm, uint16_t phase, uint32_t gi);
void hs__rp_coll_xfer_done(rp *R, uint32_t c);
void hs__rp_coll_reduced(rp *R, uint32_t c);
int  hs__rp_coll_kind(int trace_kind, hs__coll_kind *out);
int  hs__rp_coll_parse(rp *R, const char *spec, hs_error *err);

/* ---- mpi_rma.c ---------------------------------------------------------------------------- */
/* Executes an RMA op (data movement or synchronisation) for actor a:
 * returns 1 when the actor must block, 0 when the call is done, < 0 error. */
int  hs__rp_rma_exec(rp *R, uint32_t a, const rp_op *op);
/* For a blocked actor: 1 if its RMA wait is over (may advance stages). */
int  hs__rp_rma_poll(rp *R, uint32_t a, const rp_op *op);
void hs__rp_rma_leg_sent(rp *R, unsigned leg, uint32_t i);
void hs__rp_rma_leg_delivered(rp *R, unsigned leg, uint32_t i);
int  hs__rp_win_add(rp *R, uint32_t job, uint64_t id, uint32_t comm, uint32_t *out);

/* ---- phases, latency, outputs (replay_out.c) --------------------------------------------- */
/* Phase id for a class and value (created on first use, named in the fabric). */
uint16_t hs__rp_phase(rp *R, unsigned cls, int32_t value);
void hs__rp_lat_add(rp *R, hs_time lat, uint16_t phase);
void hs__rp_app_head(hs_json *j, const hs_replay_params *p, const char *command, uint32_t ranks,
                     const hs_mapping_cfg *map, const uint32_t *node_of_rank);
void hs__rp_manifest_app(hs_json *j, const hs_replay_result *res);
int  hs__rp_write_app_json(rp *R, const char *dir, const hs_replay_result *res,
                           const hs_mapping_cfg *map, hs_error *err);
/* Appends the deadlock / leftover report to res->report. */
void hs__rp_report(rp *R, hs_replay_result *res);
void hs__rp_lat_stats(rp *R, int phase, hs_replay_lat *out);
/* Fills res->phases. */
void hs__rp_phases_result(rp *R, hs_replay_result *res);

/* ---- background.c --------------------------------------------------------------------------- */
/* Parses the background spec and adds its jobs (programs or a trace) on
 * nodes the application does not use; fills R->node_of for them. */
int hs__rp_background(rp *R, const char *spec, const uint8_t *used, hs_error *err);
/* Parses a background spec without placing it (a trace:PATH must have a
 * readable manifest). */
int hs__rp_background_check(const char *spec, hs_error *err);

/* replay_wire.c: hopscope simulate --wire (hs_replay_params.wire). */
int hs__replay_wire(const hs_replay_params *p, hs_replay_result *r, hs_error *err);

#endif
