/* hopscope/trace.h — the trace of an MPI job: reading it, writing it, and
 * the whole-job summaries (`hopscope trace stats|check`).
 *
 * A trace is a directory: manifest.txt (the job: ranks, nodes, MPI library,
 * command, settings) and one file per rank, rank-NNNNNN.hst, made of
 * independently compressed, checksummed blocks.  libhopscope.so writes it
 * from a running application; hs_trace_writer writes it from a program
 * (synthetic traces, tests).  The layout is in docs/formats.md.
 *
 * Reading is streaming: hs_trace_open() reads the manifest, then a cursor
 * per rank yields that rank's events in start-time order with memory bounded
 * by one decoded block per thread of the rank.  Every rank number in an
 * event is a world rank; every communicator and window is named by a job-wide
 * id, so events of different ranks can be matched.
 *
 * Readers never trust the files: a damaged or cut file gives an error naming
 * the file, the block, the byte offset and the reason (never a crash), and a
 * trace cut short by a killed job reads up to its last complete block, with
 * hs_trace_rank_info saying exactly what is missing. */
#ifndef HOPSCOPE_TRACE_H
#define HOPSCOPE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "hopscope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_TRACE_FORMAT_VERSION 1

/* ---- event kinds --------------------------------------------------------
 * Numbers are part of the file format: never renumber, only append.
 * Which event fields each kind sets is listed in docs/formats.md. */
typedef enum hs_trace_kind {
    /* job and object lifetime */
    HS_TRACE_INIT = 1,        /* aux = thread level provided (0..3) */
    HS_TRACE_FINALIZE = 2,
    HS_TRACE_ABORT = 3,       /* comm, aux = error code */
    HS_TRACE_COMM_CREATE = 4, /* comm = new id, comm2 = parent, tag = HS_TRACE_CTOR_*,
                                 members (+ remote for intercommunicators) */
    HS_TRACE_COMM_FREE = 5,   /* comm */
    HS_TRACE_WIN_CREATE = 6,  /* win = new id, comm, tag = HS_TRACE_WCTOR_*, bytes = local size */
    HS_TRACE_WIN_FREE = 7,    /* win */

    /* point-to-point: peer/tag are the destination or the matched source */
    HS_TRACE_SEND = 16, HS_TRACE_BSEND = 17, HS_TRACE_SSEND = 18, HS_TRACE_RSEND = 19,
    HS_TRACE_ISEND = 20, HS_TRACE_IBSEND = 21, HS_TRACE_ISSEND = 22, HS_TRACE_IRSEND = 23,
    HS_TRACE_SEND_INIT = 24, HS_TRACE_BSEND_INIT = 25, HS_TRACE_SSEND_INIT = 26,
    HS_TRACE_RSEND_INIT = 27,
    HS_TRACE_RECV = 28, HS_TRACE_IRECV = 29, HS_TRACE_RECV_INIT = 30,
    HS_TRACE_SENDRECV = 31, HS_TRACE_SENDRECV_REPLACE = 32,
    HS_TRACE_PROBE = 33, HS_TRACE_IPROBE = 34, HS_TRACE_MPROBE = 35, HS_TRACE_IMPROBE = 36,
    HS_TRACE_MRECV = 37, HS_TRACE_IMRECV = 38,
    HS_TRACE_ISENDRECV = 39, HS_TRACE_ISENDRECV_REPLACE = 40,
    HS_TRACE_START = 41, HS_TRACE_STARTALL = 42,

    /* completion */
    HS_TRACE_WAIT = 48, HS_TRACE_TEST = 49, HS_TRACE_WAITANY = 50, HS_TRACE_TESTANY = 51,
    HS_TRACE_WAITALL = 52, HS_TRACE_TESTALL = 53, HS_TRACE_WAITSOME = 54,
    HS_TRACE_TESTSOME = 55, HS_TRACE_REQUEST_FREE = 56, HS_TRACE_CANCEL = 57,

    /* collectives (blocking); the nonblocking form is kind + HS_TRACE_NB */
    HS_TRACE_BARRIER = 64, HS_TRACE_BCAST = 65, HS_TRACE_GATHER = 66, HS_TRACE_GATHERV = 67,
    HS_TRACE_SCATTER = 68, HS_TRACE_SCATTERV = 69, HS_TRACE_ALLGATHER = 70,
    HS_TRACE_ALLGATHERV = 71, HS_TRACE_ALLTOALL = 72, HS_TRACE_ALLTOALLV = 73,
    HS_TRACE_ALLTOALLW = 74, HS_TRACE_REDUCE = 75, HS_TRACE_ALLREDUCE = 76,
    HS_TRACE_REDUCE_SCATTER = 77, HS_TRACE_REDUCE_SCATTER_BLOCK = 78, HS_TRACE_SCAN = 79,
    HS_TRACE_EXSCAN = 80, HS_TRACE_NEIGHBOR_ALLGATHER = 81, HS_TRACE_NEIGHBOR_ALLGATHERV = 82,
    HS_TRACE_NEIGHBOR_ALLTOALL = 83, HS_TRACE_NEIGHBOR_ALLTOALLV = 84,
    HS_TRACE_NEIGHBOR_ALLTOALLW = 85,
    HS_TRACE_COLL_LAST = 85,
    HS_TRACE_NB = 32,          /* HS_TRACE_IBARRIER = HS_TRACE_BARRIER + HS_TRACE_NB, ... */

    /* one-sided: peer = target, bytes = origin->target, bytes2 = target->origin */
    HS_TRACE_PUT = 128, HS_TRACE_GET = 129, HS_TRACE_ACCUMULATE = 130,
    HS_TRACE_GET_ACCUMULATE = 131, HS_TRACE_FETCH_AND_OP = 132,
    HS_TRACE_COMPARE_AND_SWAP = 133, HS_TRACE_RPUT = 134, HS_TRACE_RGET = 135,
    HS_TRACE_RACCUMULATE = 136, HS_TRACE_RGET_ACCUMULATE = 137,
    HS_TRACE_WIN_FENCE = 140, HS_TRACE_WIN_LOCK = 141, HS_TRACE_WIN_UNLOCK = 142,
    HS_TRACE_WIN_LOCK_ALL = 143, HS_TRACE_WIN_UNLOCK_ALL = 144, HS_TRACE_WIN_FLUSH = 145,
    HS_TRACE_WIN_FLUSH_ALL = 146, HS_TRACE_WIN_FLUSH_LOCAL = 147,
    HS_TRACE_WIN_FLUSH_LOCAL_ALL = 148, HS_TRACE_WIN_POST = 149, HS_TRACE_WIN_START = 150,
    HS_TRACE_WIN_COMPLETE = 151, HS_TRACE_WIN_WAIT = 152, HS_TRACE_WIN_TEST = 153,
    HS_TRACE_WIN_SYNC = 154,

    /* wire level, below MPI: only in wire-NNNNNN.hst files (hopscope record
     * --wire; docs/formats.md "Wire files").  peer is resolved by the
     * reader from the endpoint's worker address (aux) to a world rank. */
    HS_TRACE_WIRE_OP = 160,     /* tag2 = HS_TRACE_WOP_*, bytes, bytes2 = UCX tag / AM id /
                                   atomic opcode, req = op id, aux = remote address hash */
    HS_TRACE_WIRE_DONE = 161,   /* req = op id of a pending WIRE_OP; recv: bytes = length,
                                   bytes2 = sender tag */
    HS_TRACE_WIRE_WORKER = 162, /* aux = hash of one of this rank's worker addresses,
                                   bytes = its length */
    HS_TRACE_WIRE_EP = 163,     /* endpoint created: aux = remote address hash (0 unknown) */
    HS_TRACE_WIRE_PROGRESS = 164, /* a run of ucp_worker_progress calls on one thread
                                     between two other wire events: bytes = calls,
                                     bytes2 = ns spent inside them (clock ticks in
                                     the file), aux = calls that returned nonzero
                                     (made progress) */
    /* 165 is taken in wire files by an operation stored with its completion
     * (docs/formats.md "Wire files"); the reader returns it as a WIRE_OP
     * and a WIRE_DONE, never as a kind of its own. */

    HS_TRACE_KIND_MAX = 255
} hs_trace_kind;

/* Lower-case MPI-like name ("isend", "ialltoallv", "win_fence"), or NULL
 * for a number that is not a kind. */
const char *hs_trace_kind_name(int kind);
/* Kind for a name as printed by hs_trace_kind_name, or -1. */
int hs_trace_kind_from_name(const char *name);

typedef enum hs_trace_class {
    HS_TRACE_CLASS_NONE = 0, HS_TRACE_CLASS_META, HS_TRACE_CLASS_P2P,
    HS_TRACE_CLASS_COMPLETION, HS_TRACE_CLASS_COLL, HS_TRACE_CLASS_RMA,
    HS_TRACE_CLASS_WIRE
} hs_trace_class;

/* Operations of HS_TRACE_WIRE_OP (event tag2).  Numbers are file format. */
enum {
    HS_TRACE_WOP_TAG_SEND = 1,   /* ucp_tag_send_nbx/_nb: data out */
    HS_TRACE_WOP_TAG_SSEND,      /* ucp_tag_send_sync_nbx/_nb: data out */
    HS_TRACE_WOP_TAG_RECV,       /* ucp_tag_recv_nbx/_nb/_nbr, msg_recv: data in */
    HS_TRACE_WOP_PUT,            /* ucp_put_nbx/_nb/_nbi/ucp_put: data out (RDMA write) */
    HS_TRACE_WOP_GET,            /* ucp_get_nbx/_nb/_nbi: data in (RDMA read) */
    HS_TRACE_WOP_ATOMIC,         /* ucp_atomic_post / op_nbx without result: data out */
    HS_TRACE_WOP_ATOMIC_FETCH,   /* ucp_atomic_fetch_nb / op_nbx with result: both ways */
    HS_TRACE_WOP_AM_SEND,        /* ucp_am_send_nb/_nbx: data out (header + payload) */
    HS_TRACE_WOP_AM_RECV,        /* an active-message handler ran: data in */
    HS_TRACE_WOP_STREAM_SEND,    /* ucp_stream_send_nbx/_nb: data out */
    HS_TRACE_WOP_STREAM_RECV,    /* ucp_stream_recv_nbx/_nb: data in */
    HS_TRACE_WOP_FLUSH,          /* ucp_ep_flush(_nb/_nbx), ucp_worker_flush(_nb/_nbx),
                                    ucp_worker_fence: completes earlier nbi operations */
    HS_TRACE_WOP_MAX = HS_TRACE_WOP_FLUSH
};
const char *hs_trace_wop_name(int op);
hs_trace_class hs_trace_kind_class(int kind);
/* 1 for the collectives; *base receives the blocking kind. */
int hs_trace_kind_is_coll(int kind, int *base);

/* COMM_CREATE constructors (event tag) */
enum {
    HS_TRACE_CTOR_WORLD = 1, HS_TRACE_CTOR_SELF, HS_TRACE_CTOR_DUP, HS_TRACE_CTOR_IDUP,
    HS_TRACE_CTOR_SPLIT, HS_TRACE_CTOR_SPLIT_TYPE, HS_TRACE_CTOR_CREATE,
    HS_TRACE_CTOR_CREATE_GROUP, HS_TRACE_CTOR_CART_CREATE, HS_TRACE_CTOR_CART_SUB,
    HS_TRACE_CTOR_GRAPH_CREATE, HS_TRACE_CTOR_DIST_GRAPH_CREATE,
    HS_TRACE_CTOR_DIST_GRAPH_CREATE_ADJACENT, HS_TRACE_CTOR_INTERCOMM_CREATE,
    HS_TRACE_CTOR_INTERCOMM_MERGE, HS_TRACE_CTOR_UNKNOWN, HS_TRACE_CTOR_MAX = HS_TRACE_CTOR_UNKNOWN
};
const char *hs_trace_ctor_name(int ctor);
/* WIN_CREATE constructors (event tag) */
enum {
    HS_TRACE_WCTOR_CREATE = 1, HS_TRACE_WCTOR_ALLOCATE, HS_TRACE_WCTOR_ALLOCATE_SHARED,
    HS_TRACE_WCTOR_CREATE_DYNAMIC, HS_TRACE_WCTOR_MAX = HS_TRACE_WCTOR_CREATE_DYNAMIC
};

/* Well-known communicator ids.  Every other id is a 64-bit value that all
 * members of the communicator record identically (docs/formats.md). */
#define HS_TRACE_COMM_NONE  0ull
#define HS_TRACE_COMM_WORLD 1ull
#define HS_TRACE_COMM_SELF  2ull   /* each rank's own; members = {rank} */

/* Special values of peer / peer2 (real ranks are >= 0). */
#define HS_TRACE_RANK_NONE  (-1)   /* field not meaningful for this event */
#define HS_TRACE_PROC_NULL  (-2)
#define HS_TRACE_ANY_SOURCE (-3)   /* only in posted-source fields */
#define HS_TRACE_ROOT       (-4)   /* MPI_ROOT in an intercommunicator collective */
#define HS_TRACE_ANY_TAG    (-1)   /* posted tag; real tags are >= 0 */
#define HS_TRACE_TAG_NONE   (-2)

/* Event flags */
#define HS_TRACE_F_MONITORED  0x001u /* message carries the in-band field */
#define HS_TRACE_F_ANY_SOURCE 0x002u /* receive was posted with MPI_ANY_SOURCE */
#define HS_TRACE_F_ANY_TAG    0x004u /* receive was posted with MPI_ANY_TAG */
#define HS_TRACE_F_FOUND      0x008u /* probe/test found a message / completion */
#define HS_TRACE_F_IN_PLACE   0x010u /* collective used MPI_IN_PLACE */
#define HS_TRACE_F_ERROR      0x020u /* the MPI call returned an error */
#define HS_TRACE_F_LARGE      0x040u /* MPI-4 large-count (_c) variant */
#define HS_TRACE_F_CANCELLED  0x080u /* receive was cancelled */
/* Wire events only. */
#define HS_TRACE_F_WIRE_IN    0x100u /* data flows from the peer to this rank */
#define HS_TRACE_F_WIRE_IMM   0x200u /* completed within the posting call: no WIRE_DONE */
#define HS_TRACE_F_WIRE_NBI   0x400u /* implicit (nbi): completes at a later WOP_FLUSH */
#define HS_TRACE_F_WIRE_INTRA 0x800u /* set by the reader: both ends on one real host */
/* WIRE_DONE of a send completed through its callback: the protocol UCX used
 * (ucp_request_query's info string); none of the three: unknown */
#define HS_TRACE_F_WIRE_EAGER 0x1000u /* eager (the data went with the send) */
#define HS_TRACE_F_WIRE_RNDV  0x2000u /* rendezvous (a handshake, then the data) */
#define HS_TRACE_F_WIRE_RPUT  0x4000u /* with RNDV: the sender wrote the data (RDMA put) */
#define HS_TRACE_F_WIRE_RGET  0x8000u /* with RNDV: the receiver read it (RDMA get) */
#define HS_TRACE_F_ALL        0xffffu

/* One completed request of a WAIT/TEST-family event. */
typedef struct hs_trace_compl {
    uint64_t req;      /* request id from the starting event */
    uint32_t flags;    /* HS_TRACE_C_* */
    int32_t  src;      /* matched source (world rank) when HS_TRACE_C_STATUS */
    int32_t  tag;      /* matched tag when HS_TRACE_C_STATUS */
    uint64_t bytes;    /* received bytes when HS_TRACE_C_STATUS */
} hs_trace_compl;
#define HS_TRACE_C_STATUS    0x1u  /* receive-type request: src/tag/bytes valid */
#define HS_TRACE_C_CANCELLED 0x2u
#define HS_TRACE_C_ERROR     0x4u
#define HS_TRACE_C_ALL       0x7u

/* One (world rank, bytes) pair of a v/w or neighbourhood collective. */
typedef struct hs_trace_peer {
    int32_t  rank;     /* world rank, or HS_TRACE_PROC_NULL */
    uint64_t bytes;
} hs_trace_peer;

/* One started persistent request (START/STARTALL). */
typedef struct hs_trace_start {
    uint64_t req;
    uint32_t flags;    /* HS_TRACE_F_MONITORED for a send */
} hs_trace_start;

/* A decoded event.  Pointers point into the cursor (or writer input) and are
 * valid until the next hs_trace_next() on the same cursor.  Fields a kind
 * does not use hold: ranks HS_TRACE_RANK_NONE, tags HS_TRACE_TAG_NONE, ids
 * and sizes 0, lists empty. */
typedef struct hs_trace_event {
    uint16_t kind;
    uint16_t thread;     /* writer thread index within the rank (0 = first) */
    uint32_t flags;      /* HS_TRACE_F_* */
    uint32_t repeat;     /* fruitless polls folded into this event (>= 1) */
    int64_t  t_start;    /* ns since the job epoch (end of MPI_Init) */
    int64_t  t_end;
    uint64_t comm;       /* communicator id */
    uint64_t comm2;      /* COMM_CREATE: parent communicator */
    uint64_t win;        /* RMA: window id */
    int32_t  peer, tag;  /* destination / matched source, tag; coll: root */
    int32_t  peer2, tag2;/* posted source/tag of receives; sendrecv: matched source/tag */
    uint64_t bytes;      /* p2p: message bytes; coll: bytes this rank sends */
    uint64_t bytes2;     /* coll: bytes received; recv: buffer capacity; RMA: target->origin */
    uint64_t req;        /* request id of a nonblocking or persistent start */
    uint64_t aux;        /* per kind: thread level, error code, message id, assert ... */
    uint32_t ncompl, nstarts, nsendto, nrecvfrom, nmembers, nremote;
    const hs_trace_compl *compl;     /* WAIT/TEST family */
    const hs_trace_start *starts;    /* START/STARTALL */
    const hs_trace_peer  *sendto;    /* v/w/neighbour collectives: per destination */
    const hs_trace_peer  *recvfrom;  /* v/w/neighbour collectives: per source */
    const int32_t *members;          /* COMM_CREATE local group, WIN_POST/START group */
    const int32_t *remote;           /* COMM_CREATE remote group of an intercommunicator */
} hs_trace_event;

/* Bound on event times: |t_start|, |t_end| <= 2^56 ns (about 834 days
 * either side of the epoch).  Readers reject events beyond it, events that
 * end before they start, and a rank whose event starts go back in time;
 * the writer refuses them.  Any difference of two valid times fits in an
 * int64_t. */
#define HS_TRACE_TIME_LIMIT (INT64_C(1) << 56)

/* Sets every field to its "unused" value (see above). */
void hs_trace_event_init(hs_trace_event *ev, int kind);

/* ---- manifest -------------------------------------------------------- */

typedef struct hs_trace_manifest {
    uint32_t version;       /* HS_TRACE_FORMAT_VERSION of the writer */
    uint32_t nranks, nnodes;
    char    *writer;        /* "hopscope 0.1.0" */
    char    *mpi_abi;       /* "openmpi", "mpich" or "none" (synthetic) */
    char    *mpi_library;   /* MPI_Get_library_version, first line */
    char    *mpi_version;   /* "3.1" */
    char    *command;       /* the application's command line */
    char    *start_time;    /* ISO 8601 UTC */
    char    *clock;         /* "tsc", "monotonic" or "ns" */
    char    *node_mode;     /* "host", "block", "cyclic", "file:PATH" or "synthetic" */
    uint32_t thread_level;  /* provided by MPI_Init_thread (0..3) */
    double   sample_rate;   /* fraction of messages monitored */
    uint64_t sample_seed;
    char   **node_names;    /* [nnodes] */
    uint32_t *rank_node;    /* [nranks] node index of each rank */
    char   **rank_host;     /* [nranks] real host name */
    uint32_t *rank_pid;     /* [nranks] */
    size_t   nsettings;
    char   **settings;      /* "HOPSCOPE_X=value" as the job saw them */
    uint32_t nhosts;        /* real hosts whose cores are known (0: none) */
    char   **host_name;     /* [nhosts] as in rank_host */
    uint32_t *host_cores;   /* [nhosts] cores online there when recorded */
} hs_trace_manifest;

/* The index into host_name/host_cores of rank r's real host, or -1 when
 * the manifest does not say (traces from gen, or from an older libhopscope). */
int32_t hs_trace_manifest_host_of(const hs_trace_manifest *m, uint32_t r);

/* Writes DIR/manifest.txt atomically (temporary file + rename).
 * HS_EINVAL for an inconsistent manifest, HS_EIO. */
int  hs_trace_manifest_write(const char *dir, const hs_trace_manifest *m, hs_error *err);
/* Parses DIR/manifest.txt into *m (owned; hs_trace_manifest_free).  On
 * failure *m is left empty.  HS_ENOENT, HS_EFORMAT, HS_EVERSION, HS_ENOMEM. */
int  hs_trace_manifest_read(const char *dir, hs_trace_manifest *m, hs_error *err);
void hs_trace_manifest_free(hs_trace_manifest *m);

/* ---- reading ---------------------------------------------------------- */

typedef struct hs_trace hs_trace;
typedef struct hs_trace_cursor hs_trace_cursor;

/* Opens a trace directory (reads and checks the manifest).  *out is owned by
 * the caller (hs_trace_close). */
int  hs_trace_open(const char *dir, hs_trace **out, hs_error *err);
void hs_trace_close(hs_trace *t);
const hs_trace_manifest *hs_trace_get_manifest(const hs_trace *t);
const char *hs_trace_get_dir(const hs_trace *t);

enum { HS_TRACE_END_NONE = 0, HS_TRACE_END_FINALIZE, HS_TRACE_END_EXIT,
       HS_TRACE_END_ABORT, HS_TRACE_END_SIGNAL, HS_TRACE_END_ERROR };
const char *hs_trace_end_name(int reason);

/* What a rank file holds, from a scan of its block headers. */
typedef struct hs_trace_rank_info {
    uint32_t rank;
    uint32_t nthreads;
    int      complete;       /* an end record is present */
    int      end_reason;     /* HS_TRACE_END_* (NONE when not complete) */
    int      end_code;       /* signal number, exit status or abort code */
    uint64_t blocks;         /* complete event blocks */
    uint64_t events;         /* events in them */
    uint64_t dropped;        /* events the writer lost (from the end record) */
    uint64_t file_bytes;
    uint64_t good_bytes;     /* bytes up to the end of the last complete block */
    int64_t  last_time;      /* end time of the last readable event (ns), or 0 */
    char     note[512];      /* "" when complete, else what is missing and why */
} hs_trace_rank_info;

/* Opens a cursor on one rank: scans the block headers (the index), reads the
 * clock records.  Fails with a message naming the file, block and offset for
 * a damaged header; a file cut short is not an error (see info.note). */
int  hs_trace_cursor_open(hs_trace *t, uint32_t rank, hs_trace_cursor **out, hs_error *err);
void hs_trace_cursor_info(const hs_trace_cursor *c, hs_trace_rank_info *info);
/* Next event of the rank in start-time order: 1 = *ev filled, 0 = no more
 * readable events, < 0 = damaged data (err names file, block, offset). */
int  hs_trace_next(hs_trace_cursor *c, hs_trace_event *ev, hs_error *err);
void hs_trace_cursor_close(hs_trace_cursor *c);

/* ---- wire files (hopscope record --wire; docs/formats.md "Wire files") --
 * 1 when the trace has wire files (wire-000000.hst exists). */
int hs_trace_has_wire(const hs_trace *t);
/* Opens a cursor on rank's wire file (read with hs_trace_next).  The first
 * call reads the WIRE_WORKER events of every rank's wire file to map worker
 * addresses to world ranks; WIRE_OP and WIRE_EP events then carry peer =
 * the world rank at the other end (HS_TRACE_RANK_NONE when unknown: a
 * receive, or an address no rank published) and HS_TRACE_F_WIRE_INTRA when
 * both ends ran on one real host.  HS_ENOENT when the rank has no wire file;
 * damage as for hs_trace_cursor_open. */
int hs_trace_wire_open(hs_trace *t, uint32_t rank, hs_trace_cursor **out, hs_error *err);
/* World rank that published the worker address with this hash (-1 none).
 * Valid after a successful hs_trace_wire_open. */
int32_t hs_trace_wire_rank_of(const hs_trace *t, uint64_t addr_hash);

/* ---- writing (synthetic traces, tests) ---------------------------------
 * Times are taken as given (ns since the job epoch; they must not decrease
 * within a thread).  Communicators other than WORLD and SELF must be
 * introduced by a COMM_CREATE event before use, windows by WIN_CREATE; the
 * v-collective lists must name members of the event's communicator. */
typedef struct hs_trace_writer hs_trace_writer;
int hs_trace_writer_open(hs_trace_writer **out, const char *dir, uint32_t rank,
                         uint32_t nranks, hs_error *err);
int hs_trace_writer_event(hs_trace_writer *w, const hs_trace_event *ev, hs_error *err);
/* The same for a rank's wire file (only WIRE_* events). */
int hs_trace_writer_open_wire(hs_trace_writer **out, const char *dir, uint32_t rank,
                              uint32_t nranks, hs_error *err);
/* Writes the end record (HS_TRACE_END_FINALIZE) and closes; frees w even on
 * failure. */
int hs_trace_writer_close(hs_trace_writer *w, hs_error *err);

/* ---- monitoring sample ------------------------------------------------- */

/* Whether the seq-th message (0-based) from world rank src to dst is
 * monitored, for a sample rate in [0, 1].  Deterministic in its arguments;
 * the interposer uses it for every point-to-point and RMA message, and the
 * replay may use it for messages it generates itself. */
int hs_trace_monitored(uint64_t seed, double rate, uint32_t src, uint32_t dst, uint64_t seq);

/* ---- whole-job summaries ---------------------------------------------- */

typedef struct hs_trace_pair {     /* point-to-point traffic src -> dst */
    uint32_t src, dst;
    uint64_t messages, bytes;
} hs_trace_pair;
typedef struct hs_trace_tagstat {
    int32_t  tag;
    uint64_t messages, bytes;
} hs_trace_tagstat;
typedef struct hs_trace_kindstat {
    uint16_t kind;
    uint64_t calls, bytes_sent, bytes_recv;
    double   seconds;              /* summed call durations */
} hs_trace_kindstat;
typedef struct hs_trace_rankstat {
    uint64_t events;
    uint64_t sent_messages, sent_bytes, recv_messages, recv_bytes;
    uint64_t monitored;            /* sent messages carrying the in-band field */
    uint64_t coll_calls, coll_bytes_sent, coll_bytes_recv;
    uint64_t rma_ops, rma_bytes;
    double   mpi_seconds;          /* time inside recorded MPI calls, less
                                      MPI_Init and MPI_Finalize */
    double   init_seconds;         /* time inside MPI_Init(_thread) and
                                      MPI_Finalize: start-up and tear-down, not
                                      the application's communication */
    int64_t  t_first, t_last;
} hs_trace_rankstat;

typedef struct hs_trace_stats {
    uint32_t nranks;
    hs_trace_rankstat *rank;       /* [nranks] */
    hs_trace_rank_info *info;      /* [nranks] */
    hs_trace_rankstat  total;
    size_t npairs;   hs_trace_pair    *pairs;  /* sorted by (src, dst) */
    size_t ntags;    hs_trace_tagstat *tags;   /* sorted by tag */
    size_t nkinds;   hs_trace_kindstat *kinds; /* sorted by kind */
    uint64_t incomplete_ranks;
} hs_trace_stats;

/* Reads every rank once.  Point-to-point messages are counted at the sender
 * when started (SEND, ISEND, START of a send, SENDRECV ...) and at the
 * receiver when matched (RECV, completion of a receive request, MRECV ...);
 * messages to or from MPI_PROC_NULL are not messages. */
int  hs_trace_stats_compute(hs_trace *t, hs_trace_stats **out, hs_error *err);
void hs_trace_stats_free(hs_trace_stats *s);
/* Human-readable summary; matrix printed for up to max_matrix ranks. */
void hs_trace_stats_print(const hs_trace_stats *s, FILE *f, uint32_t max_matrix);
void hs_trace_stats_json(const hs_trace_stats *s, hs_json *w);

/* ---- wire-level summaries (trace stats --wire) --------------------------- */

typedef struct hs_trace_wire_pair {   /* data from src to dst */
    uint32_t src, dst;
    int      intra;                    /* the two ran on one real host */
    uint64_t mpi_messages, mpi_bytes;  /* MPI point-to-point payload */
    uint64_t wire_ops, wire_bytes;     /* transfers below MPI (all calls) */
} hs_trace_wire_pair;

typedef struct hs_trace_wire_coll {   /* blocking collective calls alike */
    uint16_t kind;                     /* the collective */
    uint32_t ranks;                    /* communicator size */
    uint64_t bytes;                    /* the largest contribution of a member */
    char     algorithm[40];            /* "ring", "recursive doubling", "binomial tree" ... */
    uint32_t steps;                    /* most transfers one member initiated in one call */
    uint64_t calls;                    /* instances */
    uint64_t mpi_bytes;                /* summed contributions of the members */
    uint64_t wire_ops, wire_bytes;     /* transfers the members initiated in these calls */
    uint64_t partial;                  /* instances not every member's trace holds */
} hs_trace_wire_coll;

enum {   /* the MPI call in progress, for hs_trace_wire_stats.progress_ns_in */
    HS_TRACE_WIRE_IN_P2P, HS_TRACE_WIRE_IN_COLL, HS_TRACE_WIRE_IN_RMA, HS_TRACE_WIRE_IN_OTHER,
    HS_TRACE_WIRE_IN_OUTSIDE
};

typedef struct hs_trace_wire_stats {
    uint32_t nranks;
    uint64_t ops[HS_TRACE_WOP_MAX + 1], bytes[HS_TRACE_WOP_MAX + 1];
    /* initiated transfers by the MPI call in progress when posted */
    uint64_t p2p_bytes, coll_bytes, rma_bytes, other_bytes, outside_bytes;
    uint64_t intra_bytes, inter_bytes, unknown_peer_ops;
    uint64_t with_request, completions;
    /* ucp_worker_progress (WIRE_PROGRESS records): calls, calls that made
     * progress, ns inside them; the ns by the MPI call in progress when a
     * run of calls ended: HS_TRACE_WIRE_IN_* */
    uint64_t progress_calls, progress_useful, progress_ns, progress_ns_in[5];
    /* tag sends to other ranks by the protocol UCX used (WIRE_DONE flags;
     * completed in the posting call: eager): operations, bytes, smallest
     * and largest size */
    uint64_t eager_ops, eager_bytes, eager_min, eager_max;
    uint64_t rndv_ops, rndv_bytes, rndv_min, rndv_max, rndv_put, rndv_get;
    uint64_t proto_unknown;
    size_t npairs;  hs_trace_wire_pair *pairs;   /* sorted by (src, dst) */
    size_t ncolls;  hs_trace_wire_coll *colls;   /* sorted by call, ranks, bytes */
} hs_trace_wire_stats;

/* Reads every rank file and wire file once (one rank at a time).  HS_ENOENT
 * when the trace has no wire files. */
int  hs_trace_wire_stats_compute(hs_trace *t, hs_trace_wire_stats **out, hs_error *err);
void hs_trace_wire_stats_free(hs_trace_wire_stats *s);
void hs_trace_wire_stats_print(const hs_trace_wire_stats *s, FILE *f);
void hs_trace_wire_stats_json(const hs_trace_wire_stats *s, hs_json *w);

/* Consistency check of a whole job: every message sent was received by its
 * destination with the same size (per source, destination, communicator and
 * tag), the members of every communicator agree on its membership and on
 * the sequence of collectives they called on it.  Writes one line per
 * problem to report (may be NULL), at most max_lines of them.  Returns 0
 * and sets *problems (0 = clean); < 0 when the trace cannot be read. */
int hs_trace_check(hs_trace *t, FILE *report, size_t max_lines, uint64_t *problems,
                   hs_error *err);

/* ---- import of SimGrid SMPI time-independent traces ---------------------
 * (`hopscope trace import smpi`, libtrace/import_smpi.c; the input format
 * and what it cannot say are in docs/formats.md.) */

/* SMPI's default smpi/host-speed (SimGrid 3.32): the rate at which it turns
 * measured computation into the flops it writes, so with this rate the
 * imported computation is the time measured on the recording host. */
#define HS_SMPI_DEFAULT_FLOPS 20000.0

typedef struct hs_smpi_import_opts {
    double   flops;         /* flop/s that turn "compute N" into time */
    uint32_t ppn;           /* ranks per node of the manifest (block placement) */
    int      monitor;       /* mark every message monitored (sample rate 1) */
    int      skip_unknown;  /* skip actions this reader does not know (else an error) */
    uint64_t derived_size;  /* bytes per element of a derived datatype (SMPI writes -1) */
} hs_smpi_import_opts;
void hs_smpi_import_opts_default(hs_smpi_import_opts *o);

typedef struct hs_smpi_import_report {
    uint32_t ranks;
    uint64_t actions;       /* lines read (one pass) */
    uint64_t events;        /* hopscope events written */
    uint64_t wildcards;     /* MPI_ANY_SOURCE/ANY_TAG receives matched to a send */
    uint64_t unmatched;     /* receives with no send to match */
    uint64_t unreceived;    /* sends no receive matched */
    uint64_t dropped_waits; /* waits/tests naming no request of the trace */
    uint64_t open_requests; /* requests never completed */
    uint64_t derived;       /* counts in a derived datatype (size assumed) */
    uint64_t unknown;       /* lines skipped with skip_unknown */
    uint32_t unfinished;    /* ranks whose file does not end with finalize */
} hs_smpi_import_report;

/* Reads the SMPI trace IN (the index file smpirun writes, or the directory
 * of the *_rank-N.txt files) and writes the trace directory OUT.  A damaged
 * input gives HS_EFORMAT/HS_ERANGE/HS_ETRUNC/HS_ENOENT with "file:line:
 * reason" in err; OUT may then hold a partial trace. */
int hs_trace_import_smpi(const char *in, const char *out, const hs_smpi_import_opts *o,
                         hs_smpi_import_report *rep, hs_error *err);
/* ---- other trace formats: OTF2 (libtrace/otf2.c) -----------------------
 * Needs the OTF2 library (HS_HAVE_OTF2); without it both return HS_ENOTSUP
 * with HS_OTF2_MISSING.  docs/formats.md ("OTF2 archives") says how each
 * record maps and what OTF2 cannot say. */
#define HS_OTF2_MISSING "this hopscope was built without OTF2: install the Debian package " \
                        "libotf2-trace-dev (make deps) and rebuild"

typedef struct hs_otf2_report {
    uint32_t nranks, nthreads;  /* ranks and locations (threads) read or written */
    uint64_t records;           /* OTF2 event records read or written */
    uint64_t events;            /* hopscope events written or read */
    uint64_t other_regions;     /* import: region visits that are not MPI calls
                                   hopscope records (computation) */
    uint64_t stray_records;     /* import: MPI records outside any MPI call (ignored) */
    uint64_t made_events;       /* import: comm_create/win_create made up for a
                                   communicator or window used before any record
                                   of the rank created it */
    uint64_t dropped_events;    /* import: constructor calls with no record saying
                                   what they created */
    uint64_t unfinished;        /* import: calls entered and never left (cut trace) */
    int hopscope_archive;       /* import: the archive was written by hopscope */
    int scorep_archive;         /* import: written by Score-P (its creator says so):
                                   collective sizes converted to hopscope's */
    uint64_t coll_converted;    /* import, Score-P: collectives whose sizes were
                                   converted exactly */
    uint64_t coll_assumed;      /* ... converted taking the call as not in place
                                   (the sizes fit both readings) */
    uint64_t coll_kept;         /* ... left as the archive has them (no exact
                                   conversion: in-place v-collectives,
                                   intercommunicators, sizes fitting no rule) */
} hs_otf2_report;

/* Reads the OTF2 archive ARCHIVE (its .otf2 anchor file, or a directory
 * holding traces.otf2) and writes the trace directory DIR.  rep (may be
 * NULL) says what was read.  HS_ENOENT, HS_EFORMAT (with the location and
 * the reason), HS_ERANGE, HS_ENOMEM, HS_EIO, HS_ENOTSUP. */
int hs_trace_import_otf2(const char *archive, const char *dir, unsigned flags,
                         hs_otf2_report *rep, hs_error *err);
/* flags: read only what any OTF2 reader sees, ignoring the attributes and
 * properties hopscope's export adds (what a Score-P archive would give). */
#define HS_OTF2_PLAIN 1u
/* Writes the trace directory DIR as the OTF2 archive ARCHIVE/traces.otf2
 * (ARCHIVE is created; an existing archive there is refused). */
int hs_trace_export_otf2(const char *dir, const char *archive, hs_otf2_report *rep,
                         hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
