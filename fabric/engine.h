/* fabric/engine.h — private: the state of a simulated network and the
 * functions the device files (nic.c, switch.c, link.c, route_*.c,
 * truth.c) share.
 *
 * Model (docs/fabric.md has the full account):
 *   - Every directed link l has a transmitter (the "output port" at its
 *     source: a NIC for injection links, a switch port otherwise) and a
 *     receiver (the input buffer at its destination: a switch input port
 *     with one FIFO per VC, or the destination NIC's receive buffer).
 *   - Credit flow control in bytes: the transmitter of l holds credits[l][v]
 *     = free bytes of VC v's buffer at the far end.  Sending a packet takes
 *     its size; the credit comes back, one link latency later, when the
 *     packet's tail has left that buffer (switch) or the NIC has processed
 *     it.  A packet is sent only when the whole packet fits (virtual
 *     cut-through), so no buffer ever overflows and blocked packets hold
 *     their buffer: back-pressure.
 *   - A switch input FIFO offers only its head packet to the crossbar
 *     (head-of-line blocking).  The head is routed when it becomes head,
 *     after the routing delay has passed since its header arrived.  An
 *     output port, when idle, grants round-robin per output VC (and over
 *     VCs) among the heads requesting it whose input port is free and whose
 *     next VC has credit; the head at a VC's turn keeps the turn while it
 *     waits for credit (no head is passed over for lack of credit); an
 *     input port sends one packet at a time (crossbar speedup 1).
 *   - Cut-through: a packet may leave as soon as it is routed, but its
 *     transmission cannot end before its tail has arrived: start >=
 *     tail_arrival - ser_out.
 *
 * Invariants: packets and messages live in pools indexed by uint32
 * (HS_NIL = none); nothing is allocated per event except when a pool or the
 * event heap grows (amortised doubling). */
#ifndef HOPSCOPE_FABRIC_ENGINE_H
#define HOPSCOPE_FABRIC_ENGINE_H

#include "hopscope/fabric.h"
#include "topo.h"
#include "../common/rng.h"

#define HS_NIL UINT32_MAX

/* ---- events -------------------------------------------------------------
 * Events run in (time, key) order, key = origin device << EV_ORG_SHIFT |
 * that device's count of events scheduled so far: the origin is the device
 * (switch s, or NIC n as S + n) whose event scheduled it, or, outside a
 * run, the NIC a message is posted at (timers: the driver, S + N).  A
 * total order, the same for any queue implementation and for any
 * partitioning of the devices over processes (each device's count is kept
 * where the device is simulated), so the same inputs give the same run,
 * sequential or parallel (docs/fabric.md, "Parallel runs"). */
#define EV_ORG_SHIFT 42
#define EV_ORG_MAX ((1u << (64 - EV_ORG_SHIFT)) - 1)
enum {
    EV_TX_END = 0,   /* arg: link; a transmission ended */
    EV_CREDIT = 1,   /* arg: link | vc | bytes; credits reached the transmitter */
    EV_ARRIVE = 2,   /* arg: packet; routed and ready at a switch input */
    EV_DELIVER = 3,  /* arg: packet; processed by the destination NIC */
    EV_POST = 4,     /* arg: message; posted at the source NIC */
    EV_TIMER = 5,    /* arg: timer slot */
    EV_WAKE = 6,     /* arg: link; a credit-stalled transmitter's credit is in */
    EV_NIC_TX_END = 7, /* arg: injection link; the NIC's transmission ended */
    EV_BS_TICK = 8,  /* router=booksim: one cycle of the network (router_booksim.c) */
    EV_CREDIT_RING = 9, /* arg: link; a keyed credit of its ring (link.c) is due */
    EV_PAYLOAD = 10, /* never queued: a message's payload in a parallel run's
                        exchange (pdes.c), seq = source << 40 | serial, arg = length */
};
#define EV_SHIFT 60
#define EV_ARG_MASK ((1ull << EV_SHIFT) - 1)
/* EV_TX_END, EV_NIC_TX_END, EV_ARRIVE, EV_DELIVER argument: the device
 * the event happens at (origin index: switch, or S + node) << EV_DEV_SHIFT
 * | the link or packet, so that the run loop knows the origin of what the
 * event schedules without first reading the packet or the link (a
 * dependent cache miss before the device's own work could start). */
#define EV_DEV_SHIFT 32
#define EV_IDX_MASK 0xffffffffull
/* EV_CREDIT argument: bytes (21 bits) | vc (3 bits) << 21 | link << 24 */
#define CR_BYTES_BITS 21
#define CR_VC_SHIFT 21
#define CR_LINK_SHIFT 24
#define HS_MAX_WIRE ((1u << CR_BYTES_BITS) - 1)

typedef struct hs__ev {
    hs_time  t;
    uint64_t d;          /* type << EV_SHIFT | arg */
} hs__ev;

/* Events scheduled at a constant delay from now (a full packet's
 * serialisation, link latency + routing delay, ...) come in time order:
 * each such delay class is a FIFO "lane".  Events at other delays wait in
 * a 4-ary heap.  The next event is the least (t, seq) among the lane heads
 * and the heap top. */
typedef struct hs__fev {
    hs_time  t;
    uint64_t seq;        /* origin << EV_ORG_SHIFT | origin's count */
    uint64_t d;
} hs__fev;

#define MAX_LANES 8
typedef struct hs__lane {
    hs_time  delay;
    hs__fev *e;          /* ring of cap (a power of two) entries */
    uint32_t head, n, cap;
    hs_time  last_t;     /* (t, seq) of its last event (when n > 0) */
    uint64_t last_seq;
} hs__lane;
/* The lanes' heads, (t, seq), in one block for the run loop's choice of
 * the next event; an empty lane's is (HS_TIME_NEVER, UINT64_MAX), after
 * every possible event. */
typedef struct hs__lhead {
    hs_time  t;
    uint64_t seq;
} hs__lhead;
/* delay -> lane + 1 (0: none): open addressing from LANE_HASH(delay) */
#define LANE_HBITS 6
#define LANE_HASH(d) ((unsigned)(((uint64_t)(d) * 0x9e3779b97f4a7c15ull) >> (64 - LANE_HBITS)))

/* ---- packets and messages ---------------------------------------------- */

/* A packet in flight, split by access: the hot part (one cache line) is
 * touched at every hop, the cold part only when the NIC creates or
 * delivers it. */
typedef struct hs__pkt {
    uint64_t key;        /* hs_packet_key(salt, src, dst, seq) */
    hs_time  ready;      /* eligible for its next transmission since */
    hs_time  tail;       /* its tail arrives at the current input at */
    uint32_t dst;
    uint32_t bytes;      /* on the wire */
    uint32_t in;         /* link it arrived on */
    uint32_t out;        /* output chosen at the current switch */
    uint32_t next;       /* FIFO successor / free list */
    uint32_t inter;      /* dragonfly Valiant group still to visit, or HS_NIL */
    uint16_t pidx;       /* dense phase index */
    uint8_t  vc;         /* VC of the buffer it occupies */
    uint8_t  out_vc;     /* VC on the chosen output */
    uint8_t  monitored : 1;
    uint8_t  lane : 3;   /* VC within its class on every link (vcsel=) */
    uint8_t  nsw;        /* switch-to-switch hops taken */
    uint8_t  ng;         /* dragonfly global hops taken */
    hs_field field;
} __attribute__((aligned(64))) hs__pkt;

typedef struct hs__pkc {
    uint64_t seq;        /* source NIC's sequence number */
    uint64_t cookie;     /* its message's, for `delivered` at the destination */
    uint64_t mser;       /* its message's serial at the source NIC */
    uint32_t npk;        /* packets in its message */
    uint32_t msg;        /* its message at the source NIC */
    uint32_t src;
    uint32_t payload;    /* message bytes it carries */
    uint16_t phase;
    uint8_t  has_pl;     /* its message has a payload (hs__pl_take at its delivery) */
} hs__pkc;

/* A payload of a message in flight, keyed by (source << 40 | serial) + 1
 * (0 = empty). */
typedef struct hs__plent {
    uint64_t key;
    uint32_t len;
    unsigned char b[HS_FABRIC_PAYLOAD];
} hs__plent;

typedef struct hs__msg {
    uint64_t cookie;
    uint64_t bytes;
    uint64_t mser;       /* serial at its source NIC */
    uint32_t src, dst;
    uint32_t npk;        /* packets in the message (>= 1) */
    uint32_t cut;        /* packets created so far */
    uint32_t next;       /* injection queue successor / free list */
    uint16_t phase, pidx;
    uint8_t  monitored;
    uint8_t  sent;       /* the `sent` callback has fired */
    uint8_t  lane;       /* hs_fabric_inject_lane: 1 = the queue half the NIC's
                            queues away from the destination's */
    uint8_t  has_pl;     /* a payload waits at the destination (payload.c) */
} hs__msg;

/* ---- ports -------------------------------------------------------------- */


/* Credits on their way back to a transmitter, in arrival order.  They are
 * absorbed lazily when the transmitter looks at its credits; only a
 * transmitter that waits for credit gets an event (EV_WAKE) at the first
 * arrival.  A full ring falls back to an EV_CREDIT event.
 * Switch-to-switch links' credits are events of the model (EV_CREDIT, with
 * their keys): in a sequential run such a credit waits in the ring with its
 * event's key (CR_KEYED, key in F->crk) instead, and becomes an event
 * (CR_ARMED, EV_CREDIT_RING) only when its transmitter is idle with a
 * request, the one state in which the event's arbitration can do
 * anything (link.c, "Keyed credits"). */
#define CR_RING 4
#define CR_KEYED (1u << 31)
#define CR_ARMED (1u << 30)
#define CR_VC_MASK 7u
typedef struct hs__cring {
    hs_time  t[CR_RING];
    uint32_t v[CR_RING];   /* bytes | vc << CR_VC_SHIFT */
    uint8_t  head, n;
} hs__cring;

/* Credits (bytes) of up to HS_CR_INLINE VCs live in the transmitter's
 * lines; with more VCs in F->credits (hs__cr). */
#define HS_CR_INLINE 4

/* One link's transmitter, in three consecutive 64-byte lines: on a large
 * network each event's state is a cache miss, so what one event touches
 * lives together, and an event's link is fetched as one block.  (The
 * round-robin pointers per output VC live with the request bitsets in
 * req[].) */
typedef struct hs__oport {
    /* line 0: the transmitter and the constants its events read */
    hs_time  stall_since;  /* HS_TIME_NEVER unless idle with a credit-starved request */
    uint64_t queued;       /* bytes of head packets requesting this output */
    hs_time  ser_full;     /* serialisation of a full packet */
    hs_time  lat;          /* the link's latency (copy of hs_link_info's) */
    uint32_t cur_in;       /* input link being read (switch outputs) */
    union {
        uint32_t cur_bytes; /* switch outputs: bytes of that packet */
        uint32_t cur_msg;   /* NIC: message whose last packet is on the wire */
    };
    uint32_t to_sw;        /* switch it arrives at, HS_NIL at a NIC */
    uint32_t gp_in;        /* global port where this link arrives (switches) */
    uint32_t sw;           /* device it leaves as an origin index: the
                              switch, or S + node for a NIC */
    uint8_t  rrvc;         /* VC to serve first */
    uint8_t  lf;           /* LF_* flags: the link's kind, for the hot path */
    uint16_t stall_pidx;   /* phase the stall is charged to */
    uint8_t  busy;
    uint8_t  cur_vc;
    uint8_t  waiting;      /* blocked on credit: wants an EV_WAKE */
    uint8_t  wake;         /* an EV_WAKE is scheduled */
    uint32_t req_off;      /* this output's request bitsets in req[]: VC v's
                              at req_off + v * words(switch), then the
                              round-robin pointers (uint32 per VC) */
    /* line 1: credits on their way back */
    hs__cring ring;
    /* lines 1-2: the link's ground truth of its transmissions since its
     * phase or window last changed, added to truth_ph / truth_win when it
     * does (and before they are read: hs__truth_flush), so that a hop
     * writes these lines instead of two random lines of the truth blocks.
     * acc_win = HS_NIL: empty. */
    uint64_t acc_bytes;
    uint64_t acc_busy;
    uint32_t acc_packets, acc_congested;
    uint32_t acc_win;      /* window index */
    uint16_t acc_pidx;     /* phase index (0xffff: none) */
    /* line 2: credits absorbed so far, per VC (nvc <= HS_CR_INLINE), and
     * the congestion threshold, read at a hop with the truth above */
    int64_t  cr[HS_CR_INLINE];
    hs_time  tau;          /* congestion threshold (DESIGN.md) */
} __attribute__((aligned(64))) hs__oport;
/* hs__oport.lf: what a hop needs of hs_link_info, kept in the transmitter's
 * lines so that a hop does not read the link table (one more miss). */
#define LF_INJECTION 1u    /* NIC -> switch */
#define LF_SWITCH 2u       /* switch -> switch */
#define LF_GLOBAL 4u       /* dragonfly global link */
#define LF_TO_SWITCH 8u    /* arrives at a switch */
_Static_assert(sizeof(hs__oport) == 192, "a link's transmitter is three cache lines");

/* Switch input ports are numbered globally, gp = port_off[switch] + port,
 * and a switch's requesters r = port * nvc + vc are contiguous from
 * gp_first * nvc, so arbitration reads one small block. */
typedef struct hs__iport {
    uint8_t busy;          /* sending a packet through the crossbar */
    uint8_t rrvc;          /* VC to offer first when it frees */
} hs__iport;

/* A switch input FIFO (one per port and VC, [global port * nvc + vc]):
 * its packets, and what its head asks of its output (out = HS_NIL: the
 * FIFO is empty), so that arbitration and a freed input find the heads,
 * their sizes and outputs in one small block per port instead of reading
 * each head packet. */
typedef struct hs__req {
    uint32_t head, tail;   /* packets, linked by next (HS_NIL: none) */
    uint32_t need;         /* bytes (credits) of the head */
    uint32_t out;          /* output link the head requested, or HS_NIL */
} hs__req;

typedef struct hs__nic {
    uint32_t hold;         /* packet cut and waiting for credits, or HS_NIL */
    uint32_t rrq;          /* next injection queue to serve */
    hs_time  rx_free;      /* receive processing free from */
    uint64_t seq;          /* next packet sequence number */
    uint32_t qoff;         /* first of its injection queues in qhead/qtail */
    uint32_t nactive;      /* messages in its queues */
    uint32_t qmax;         /* the most of them at once (hs_fabric_nic_queue_max) */
    uint32_t rr_lane;      /* vcsel=rr: the next packet's lane */
    uint64_t mser;         /* next message serial */
} hs__nic;

/* Ground truth of one link (one phase, one window, or the total). */
typedef struct hs__truth {
    uint64_t packets, bytes;
    uint64_t busy, stall;  /* ps */
    uint64_t congested;
} hs__truth;

typedef struct hs__record {
    uint32_t src, dst;
    uint64_t seq;
    uint64_t key;          /* its delivery event's key: (t, key) orders the
                              records of a parallel run's parts */
    hs_time  t;
    uint64_t field;        /* hs_field_pack */
    uint16_t phase;
} hs__record;

/* ---- the network ---------------------------------------------------------- */

struct hs_fabric {
    hs_topo *topo;
    hs_fabric_params prm;
    hs_scheme scheme;
    int scheme_ok;
    uint32_t max_route;     /* hs_topo_max_route_links */
    double   monitor_p;     /* probability a message is monitored (manifest) */
    unsigned nvc;
    unsigned vc_lanes;      /* VCs per class (topology's vcs= / classes) */
    uint64_t ugal_t;        /* UGAL bias, bytes x hops, resolved */
    uint32_t N, S, L;

    /* per link (index = link id, [0] unused) */
    const hs_link_info *lk;
    hs__oport *op;
    hs__iport *ip;          /* [global port] */
    hs__req   *rq;          /* input FIFOs [global port * nvc + vc] */
    int64_t  *credits;      /* [l * nvc + v], absorbed so far, when nvc > HS_CR_INLINE */
    uint64_t *crk;          /* [l * CR_RING + slot]: keys of keyed ring credits */
    hs_time   cr_last;      /* latest time of a keyed credit */
    uint64_t  cr_bkey;      /* outside a run: keys at time now that have run */
    int       cr_events;    /* tests: switch-to-switch credits always as events */
    int64_t   cap_vc;       /* initial credits of a switch VC buffer */
    uint64_t *req;          /* request bitsets: per output, one per output VC */
    uint64_t *ibusy;        /* per switch: requesters whose input port is busy */
    uint32_t *sw_boff;      /* per switch: its words in ibusy */
    uint32_t *sw_nreq;      /* per switch: requesters = ports * nvc */
    uint32_t  full_need;    /* bytes of the largest packet */

    /* NICs */
    hs__nic  *nic;
    uint32_t *mq_head, *mq_tail; /* injection queues [node * Q + q] */
    uint64_t *rx_rate;      /* per node */

    /* pools */
    hs__pkt  *pk;
    hs__pkc  *pc;           /* cold parts, same index */
    uint32_t  pk_cap, pk_hw, pk_free, pk_live, pk_peak; /* pk_hw: slots ever used */
    hs__msg  *ms;           /* messages at their source, until sent */
    uint32_t  ms_cap, ms_hw, ms_free, ms_live;
    uint64_t  ms_pending;   /* injected, not yet delivered */
    /* Messages of several packets being received, counted at the
     * destination (which needs nothing from the source's record, so that
     * source and destination may be simulated by different processes):
     * open addressing on (source << 40 | serial) + 1, 0 = empty. */
    uint64_t *rx_key;
    uint32_t *rx_cnt;
    size_t    rx_cap, rx_n;
    /* Payloads of messages in flight (hs_fabric_inject_payload), kept for
     * the destination on the same key as rx_key (payload.c): in a parallel
     * run a remote destination's part gets them in the window's exchange,
     * before the message can arrive there. */
    hs__plent *pl;
    size_t    pl_cap, pl_n;
    unsigned char pl_cur[HS_FABRIC_PAYLOAD];  /* the delivered message's, in `delivered` */
    uint32_t  pl_cur_len;
    uint64_t *tm;           /* timer cookies */
    uint32_t *tm_dev;       /* their origin: S + node, or the driver S + N */
    uint32_t  tm_cap, tm_free;

    /* event queue: delay lanes + heap */
    hs__lane    lanes[MAX_LANES];
    unsigned    nlanes;
    hs__lhead   lhead[MAX_LANES];
    uint8_t     lane_of[1u << LANE_HBITS];
    hs__fev    *ev;         /* heap */
    size_t      ev_n, ev_cap;
    uint64_t   *dev_seq;    /* [S + N + 1] events scheduled per origin device */
    uint32_t    cur_dev;    /* origin of what is scheduled now (in a run) */
    uint64_t    cur_key;    /* key of the event being run */
    uint32_t    ext_dev;    /* origin of what is scheduled outside a run */
    size_t      nev;        /* events pending in total */
    int         pf;         /* the run loop prefetches (state beyond the L2 cache) */
    hs_time   now;
    uint64_t  rng[4];

    /* phases: id -> dense index (0xffff = unseen) */
    uint16_t *phase_idx;    /* [65536] */
    uint16_t *phase_ids;    /* dense -> id */
    char    **phase_names;  /* by id, sparse (NULL = default) */
    unsigned  nphase;

    /* ground truth */
    hs_time    *ph_last;    /* [nphase] last packet delivery (HS_TIME_NEVER: none) */
    hs__truth  *truth;      /* [L+1] totals, filled by hs__truth_sum */
    hs__truth **truth_ph;   /* [nphase][L+1] */
    hs__truth **truth_win;  /* [nwin][L+1], NULL where untouched */
    size_t      nwin, cap_win;
    hs__truth  *twin_blk;   /* cached window [twin_lo, twin_hi), index twin_w */
    size_t      twin_w;
    hs_time     twin_lo, twin_hi;
    uint64_t    win_ops;    /* packets accounted to windows */

    /* in-band counters */
    int         counters_ok;
    hs_counters *ct_ph;     /* [nphase] (n == 0: not yet used) */
    hs_counters **ct_win;   /* [nwin] */
    size_t       nctwin;
    hs_counters *cwin_ct;   /* cached window [cwin_lo, cwin_hi) */
    hs_time      cwin_lo, cwin_hi;
    hs__record  *rec;
    size_t       nrec, caprec;
    uint64_t     rec_dropped;

    /* deadlock detection scratch (deadlock.c), [(L+1) * nvc], on first use */
    uint32_t *dl_next, *dl_mark;
    int64_t  *dl_pend;

    struct hs__pdes *pd;    /* parallel run: partition and outboxes, or NULL */
    /* router=booksim: the cycle-level router model, NULL by default */
    struct hs__bs *bs;

    hs_fabric_callbacks cb;
    void *cb_ctx;
    hs_fabric_stats st;
    int   in_run;
    int   stop;
    int   error;            /* sticky allocation failure inside the run */
};

/* ---- engine.c -------------------------------------------------------------- */
int  hs__ev_push(hs_fabric *F, hs_time t, unsigned type, uint64_t arg);
/* Queues an event whose key is already set (one from another process). */
int  hs__ev_insert(hs_fabric *F, hs__fev e);
/* Time of the next event, HS_TIME_NEVER if none. */
hs_time hs__ev_next_time(const hs_fabric *F);
/* ---- pdes.c: a parallel run's exchange (docs/fabric.md, "Parallel runs") */
struct hs__pdes;
/* Whether event e is for a device another process simulates. */
int  hs__pdes_remote(const hs_fabric *F, const hs__fev *e);
/* Hands e (and its packet, which leaves this process) to the outbox. */
int  hs__pdes_send(hs_fabric *F, const hs__fev *e);
/* Hands the payload of source src's message of serial mser to the outbox of
 * the part of its destination node dst. */
int  hs__pdes_send_payload(hs_fabric *F, uint32_t dst, uint32_t src, uint64_t mser,
                           const void *b, uint32_t len);
void hs__pdes_free(hs_fabric *F);
/* A parallel run's driver skips a timer that only another part needs: its
 * key is taken (so the next timer's is the sequential run's) and part 0
 * counts it as an event. */
void hs__timer_skip(hs_fabric *F);
/* A timer run by a part other than 0: not counted in the run's events (part
 * 0 counts it), counted in the process's own statistics. */
void hs__pdes_uncount(hs_fabric *F);
/* 1 if link l's state is this process's (an end of it is local; always
 * outside a parallel run): the others' pages are given back. */
int hs__pdes_link_local(const hs_fabric *F, uint32_t l);
/* The process's statistics of a parallel run (NULL when not partitioned). */
hs_fabric_par_stats *hs__pdes_stats(hs_fabric *F);
uint64_t hs__pdes_clock(int cpu);   /* ns: process CPU time, or monotonic */
int  hs__ev_init(hs_fabric *F);
int  hs__ev_init_lanes(hs_fabric *F);
size_t hs__ev_bytes(const hs_fabric *F);
void hs__ev_free(hs_fabric *F);
/* The network's one random stream, in the order events run: only router=booksim
 * draws from it, which a parallel run refuses (the packet-level model draws
 * from hashes of the seed and packet key, the same in any partition). */
static inline uint64_t hs__rand(hs_fabric *F)
{
    return hs__xoshiro(F->rng);
}
/* size bytes aligned to a cache line, on huge pages when large (engine.c);
 * uninitialised, freed with free(). */
void *hs__big_alloc(size_t bytes);
uint32_t hs__pkt_alloc(hs_fabric *F);
void hs__pkt_free(hs_fabric *F, uint32_t p);

static inline hs_time hs__ser(const hs_fabric *F, uint32_t link, uint32_t bytes)
{
    if (bytes == F->prm.mtu + F->prm.header)
        return F->op[link].ser_full;
    uint64_t r = F->lk[link].bw;
    return (bytes * HS_PS_PER_S + r - 1) / r;
}

/* ---- link.c: transmission on a link --------------------------------------- */
/* Starts sending packet p on link o at time t0 >= now (credits already
 * taken): marks it, accounts it, and schedules the end of transmission and
 * the arrival at the far end. */
void hs__link_transmit(hs_fabric *F, uint32_t o, uint32_t p, hs_time t0);
/* Stall bookkeeping of a transmitter: starts (if not started) or ends. */
void hs__stall_begin(hs_fabric *F, uint32_t o, uint16_t pidx);
void hs__stall_end(hs_fabric *F, uint32_t o);
void hs__on_credit(hs_fabric *F, uint64_t arg);
void hs__on_wake(hs_fabric *F, uint32_t o);
/* Sends credit for `bytes` of VC vc back to the transmitter of link l,
 * arriving one link latency from now. */
void hs__credit_return(hs_fabric *F, uint32_t l, unsigned vc, uint32_t bytes);
/* The credits of link o's transmitter, per VC. */
/* Fetches the cache line at p ahead of its use (a hint; no effect on any
 * value).  gcc 12 (-O2 and -O3) compiled every __builtin_prefetch of the
 * run loop away (hash/counters.c saw the same), so on x86 the instruction
 * is written out, a volatile asm the compiler keeps; elsewhere the
 * builtin. */
static inline void hs__pf(const void *p)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p);
#endif
}
static inline int64_t *hs__cr(const hs_fabric *F, uint32_t o)
{
    return F->nvc <= HS_CR_INLINE ? F->op[o].cr : F->credits + (size_t)o * F->nvc;
}
/* Whether the event (t, key) has run by now: before the event being run
 * (or itself), or, outside a run, before where the last run stopped. */
static inline int hs__ev_passed(const hs_fabric *F, hs_time t, uint64_t key)
{
    if (t != F->now)
        return t < F->now;
    return key <= (F->in_run ? F->cur_key : F->cr_bkey);
}
/* Takes in the credits of link o that have arrived by now: a keyed credit
 * once its event would have run (which it counts, unless it is armed and
 * so an event itself). */
static inline void hs__credit_absorb(hs_fabric *F, uint32_t o)
{
    hs__cring *r = &F->op[o].ring;
    while (r->n && r->t[r->head] <= F->now) {
        uint32_t v = r->v[r->head];
        if (v & CR_KEYED) {
            if (r->t[r->head] == F->now &&
                !hs__ev_passed(F, F->now, F->crk[(size_t)o * CR_RING + r->head]))
                break;
            if (!(v & CR_ARMED))
                F->st.events++;
        }
        hs__cr(F, o)[(v >> CR_VC_SHIFT) & CR_VC_MASK] += v & ((1u << CR_VC_SHIFT) - 1);
        r->head = (uint8_t)((r->head + 1) % CR_RING);
        r->n--;
    }
}
/* Keyed credits: link o's transmitter is idle with a request, so its next
 * keyed credit must run as the event it stands for (and, if it leaves the
 * transmitter so, arms the one after). */
void hs__credit_arm(hs_fabric *F, uint32_t o);
void hs__on_credit_ring(hs_fabric *F, uint32_t o);
/* Keyed credits that have run but not been absorbed: events to count. */
uint64_t hs__credit_uncounted(const hs_fabric *F);
/* The transmitter of o is blocked on credit: make sure it is woken when
 * the next credit arrives. */
void hs__credit_wait(hs_fabric *F, uint32_t o);
/* Tests: every credit back, as if all had arrived. */
void hs__credit_flush(hs_fabric *F);

/* ---- switch.c --------------------------------------------------------------- */
/* The FIFO of VC v of link l into a switch. */
static inline hs__req *hs__fifo(const hs_fabric *F, uint32_t l, unsigned v)
{
    return &F->rq[(size_t)F->op[l].gp_in * F->nvc + v];
}
void hs__switch_arrive(hs_fabric *F, uint32_t p);
void hs__switch_tx_end(hs_fabric *F, uint32_t o);
void hs__switch_arbitrate(hs_fabric *F, uint32_t o);

/* ---- nic.c ------------------------------------------------------------------ */
void hs__nic_post(hs_fabric *F, uint32_t m);
/* A message will soon be posted at `node`: fetch its NIC's state (when
 * the run loop prefetches at all, F->pf). */
void hs__nic_prefetch(const hs_fabric *F, uint32_t node);
void hs__nic_kick(hs_fabric *F, uint32_t node);
void hs__nic_tx_end(hs_fabric *F, uint32_t o);
void hs__nic_deliver(hs_fabric *F, uint32_t p);
uint32_t hs__msg_alloc(hs_fabric *F);
/* payload.c: keeps the payload of source src's message of serial mser for
 * its delivery; takes it into F->pl_cur (1 if there was one). */
int  hs__pl_put(hs_fabric *F, uint32_t src, uint64_t mser, const void *b, uint32_t len);
int  hs__pl_take(hs_fabric *F, uint32_t src, uint64_t mser);
void hs__pl_free(hs_fabric *F);
/* Cuts the node's next packet from its injection queues (HS_NIL: none). */
uint32_t hs__nic_cut(hs_fabric *F, uint32_t node);
/* The last packet of message m has left its NIC: the `sent` callback. */
void hs__nic_msg_sent(hs_fabric *F, uint32_t m);

/* ---- router_booksim.c: router=booksim ----------------------------------------- */
int  hs__bs_create(hs_fabric *F, hs_error *err);
void hs__bs_free(hs_fabric *F);
/* A message was posted at `node`: make sure cycles run. */
void hs__bs_post(hs_fabric *F, uint32_t node);
void hs__bs_tick(hs_fabric *F);
/* Tests: 0 when the network is empty and whole again (every credit back,
 * no output VC held, no switch connection held, every buffer and queue
 * empty), else -1. */
int  hs__bs_idle(const hs_fabric *F);

/* ---- route_*.c: choose p->out and p->out_vc at switch sw ------------------- */
/* The VC of class c for packet p: c * lanes + its lane. */
static inline uint8_t hs__vc(const hs_fabric *F, const hs__pkt *p, unsigned c)
{
    return (uint8_t)(c * F->vc_lanes + p->lane);
}
void hs__route(hs_fabric *F, uint32_t sw, hs__pkt *p);
/* The output hs__route would most likely give p at sw, read-only, or
 * HS_NIL when it cannot tell; where it weighs two (UGAL), the other in
 * *alt (else HS_NIL): a guess, only for prefetching. */
uint32_t hs__route_guess(const hs_fabric *F, uint32_t sw, const hs__pkt *p, uint32_t *alt);
uint32_t hs__route_fattree_guess(const hs_fabric *F, uint32_t sw, const hs__pkt *p);
uint32_t hs__route_dragonfly_guess(const hs_fabric *F, uint32_t sw, const hs__pkt *p,
                                   uint32_t *alt);
void hs__route_fattree(hs_fabric *F, uint32_t sw, hs__pkt *p);
void hs__route_dragonfly(hs_fabric *F, uint32_t sw, hs__pkt *p);
void hs__route_torus(hs_fabric *F, uint32_t sw, hs__pkt *p);
void hs__route_table(hs_fabric *F, uint32_t sw, hs__pkt *p);
/* Occupancy seen by adaptive routing: bytes waiting here for output o plus
 * bytes held in the buffer at its far end. */
uint64_t hs__occupancy(hs_fabric *F, uint32_t o);

/* ---- truth.c ------------------------------------------------------------------ */
int  hs__truth_init(hs_fabric *F);
void hs__truth_free(hs_fabric *F);
/* A transmission of `bytes` on o over [t0, t0+ser). */
void hs__truth_tx(hs_fabric *F, uint32_t o, uint16_t pidx, hs_time t0, hs_time ser,
                  uint32_t bytes, int congested);
void hs__truth_stall(hs_fabric *F, uint32_t o, uint16_t pidx, hs_time t0, hs_time t1);
/* Dense index of a phase id, creating it (and its truth) on first use;
 * 0xffff on allocation failure. */
uint16_t hs__phase_index(hs_fabric *F, uint16_t phase);
/* The counters of a phase index / of the window holding time t (created on
 * first use); NULL when counters are off or allocation failed. */
hs_counters *hs__counters_phase(hs_fabric *F, uint16_t pidx);
hs_counters *hs__counters_window(hs_fabric *F, hs_time t);
hs__truth *hs__truth_window(hs_fabric *F, size_t w);
/* Fills and returns F->truth, the per-link totals (sum over phases). */
const hs__truth *hs__truth_sum(hs_fabric *F);
/* Adds every link's accumulated truth (hs__oport.acc_*) to the per-phase
 * and per-window blocks; before reading them. */
void hs__truth_flush(hs_fabric *F);
/* Bytes of ground truth per phase (with the totals), per window, and of
 * the in-band counters. */
void hs__truth_bytes(const hs_fabric *F, size_t *phase, size_t *window, size_t *counters);
/* Doubles the window width, merging windows pairwise (exact: all sums). */
void hs__truth_coarsen(hs_fabric *F);

#endif
