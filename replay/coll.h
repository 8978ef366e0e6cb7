/* replay/coll.h — private to replay: MPI collectives decomposed into
 * point-to-point steps, as MPICH and Open MPI do by default.
 *
 * A schedule is produced lazily, one step at a time, for one rank: a step is
 * a set of sends and receives posted together (like MPI_Sendrecv or a
 * Waitall over Isend/Irecv) that must all complete before the next step,
 * followed by an optional local reduction over reduce_bytes.  Ranks are
 * ranks of the collective's communicator; the replay maps them to world
 * ranks.  Every rank generates its own schedule independently; the
 * algorithms guarantee that the sends of one rank to another, in order,
 * match that rank's receives in order (tests/unit/test_coll.c checks this
 * and deadlock freedom for every algorithm and many sizes).
 *
 * State is O(log n) per rank (ring and pairwise steps are computed from the
 * step index), so 16k ranks in one all-to-all cost kilobytes, not the n^2
 * steps an eager schedule would. */
#ifndef HOPSCOPE_FABRIC_COLL_H
#define HOPSCOPE_FABRIC_COLL_H

#include <stdint.h>

typedef enum hs__coll_kind {
    HS__COLL_BARRIER,
    HS__COLL_BCAST,
    HS__COLL_REDUCE,
    HS__COLL_ALLREDUCE,
    HS__COLL_ALLGATHER,      /* bytes = block per rank; counts for the v form */
    HS__COLL_ALLTOALL,       /* bytes = block per pair; counts/rcounts for v/w */
    HS__COLL_GATHER,
    HS__COLL_SCATTER,
    HS__COLL_REDUCE_SCATTER, /* counts = bytes each rank ends with */
    HS__COLL_SCAN,
    HS__COLL_EXSCAN,
    HS__COLL_NEIGHBOR,       /* one step: sends to out-peers, recvs from in-peers */
    HS__COLL_NKINDS
} hs__coll_kind;

typedef enum hs__coll_alg {
    HS__ALG_AUTO,            /* pick by kind, size and rank count (docs/replay.md) */
    HS__ALG_DISSEMINATION,   /* barrier */
    HS__ALG_BINOMIAL,        /* bcast, reduce, gather, scatter */
    HS__ALG_SCATTER_ALLGATHER, /* bcast: binomial scatter + ring allgather */
    HS__ALG_RECURSIVE_DOUBLING, /* allreduce, allgather (power of two), scan */
    HS__ALG_RING,            /* allreduce, allgather */
    HS__ALG_RABENSEIFNER,    /* allreduce: reduce-scatter halving + allgather doubling */
    HS__ALG_BRUCK,           /* alltoall, allgather (any n) */
    HS__ALG_PAIRWISE,        /* alltoall(v), reduce_scatter */
    HS__ALG_LINEAR,          /* gather(v), scatter(v) */
    HS__ALG_RECURSIVE_HALVING, /* reduce_scatter, power of two */
    HS__ALG_NALGS
} hs__coll_alg;

/* Size thresholds of the AUTO choice, in bytes; defaults follow MPICH 4. */
typedef struct hs__coll_tuning {
    uint64_t bcast_long;       /* >= : scatter-allgather (12288) */
    uint64_t allreduce_short;  /* <= : recursive doubling (2048) */
    uint64_t allreduce_long;   /* >= : ring (1 MiB); between: Rabenseifner */
    uint64_t allgather_long;   /* total >= : ring (512 KiB) */
    uint64_t alltoall_short;   /* block <= : Bruck when n >= 8 (256) */
    uint64_t redscat_long;     /* total >= : pairwise (512 KiB) */
} hs__coll_tuning;

void hs__coll_tuning_default(hs__coll_tuning *t);

typedef struct hs__coll_req {
    hs__coll_kind kind;
    hs__coll_alg  alg;
    int32_t  n;        /* communicator size, >= 1 */
    int32_t  root;     /* bcast, reduce, gather, scatter */
    uint64_t bytes;    /* see hs__coll_kind */
    uint32_t elem;     /* element size: blocks split on element boundaries (>= 1) */
    /* v/w variants, NULL otherwise; arrays of n byte counts:
     *   allgather, gather, scatter, reduce_scatter: counts[i] = rank i's block
     *   alltoall: counts[i] = bytes this rank sends to i, rcounts[i] = from i */
    const uint64_t *counts;
    const uint64_t *rcounts;
    /* neighbour collectives: this rank's peers and byte counts */
    int32_t nout, nin;
    const int32_t *out_peers, *in_peers;
    const uint64_t *out_bytes, *in_bytes;
} hs__coll_req;

typedef struct hs__coll_xfer {
    int32_t  peer;
    uint8_t  recv;     /* 0 = send, 1 = receive */
    uint64_t bytes;
} hs__coll_xfer;

typedef struct hs__coll_step {
    const hs__coll_xfer *x;  /* owned by the iterator, valid until the next call */
    uint32_t nx;
    uint64_t reduce_bytes;   /* local reduction after the transfers */
} hs__coll_step;

/* A precomputed step of the O(log n) algorithms: at most two transfers. */
typedef struct hs__coll_pre {
    int32_t  peer[2];
    uint8_t  recv[2];
    uint8_t  nx;
    uint64_t bytes[2];
    uint64_t reduce;
} hs__coll_pre;

/* Iterator.  Opaque in spirit; sized so it can live inside a rank's state.
 * The longest precomputed schedule is Rabenseifner's: fold in, 2 log2 n
 * exchanges (n < 2^31), fold out. */
#define HS__COLL_MAXPRE 66
typedef struct hs__coll_iter {
    hs__coll_req req;
    hs__coll_alg alg;        /* resolved algorithm */
    int32_t rank;
    uint32_t seg, idx;       /* current segment and step within it */
    uint32_t nseg;
    struct { uint8_t type; uint32_t nsteps; } segs[3];
    uint32_t npre;
    hs__coll_pre pre[HS__COLL_MAXPRE];
    hs__coll_xfer buf[2];
    hs__coll_xfer *big;      /* linear root / neighbour steps; malloc'd */
    uint32_t bigcap;
    uint64_t chunk;          /* ring and scatter block size */
    int32_t  newrank, pof2, rem;
} hs__coll_iter;

/* Starts rank `rank`'s schedule.  0, HS_EINVAL (bad request: n < 1, rank or
 * root out of range, missing counts for a v form, algorithm that does not
 * apply to the kind) or HS_ENOMEM. */
int hs__coll_begin(hs__coll_iter *it, const hs__coll_req *req, int32_t rank,
                   const hs__coll_tuning *tuning);
/* Next step: 1 and *step filled, or 0 when the schedule is finished. */
int hs__coll_next(hs__coll_iter *it, hs__coll_step *step);
void hs__coll_end(hs__coll_iter *it);

const char *hs__coll_kind_name(hs__coll_kind k);
const char *hs__coll_alg_name(hs__coll_alg a);
/* Parses an algorithm name as printed by hs__coll_alg_name; -1 if unknown. */
int hs__coll_alg_parse(const char *s);
/* Whether alg is valid for kind (AUTO always is). */
int hs__coll_alg_applies(hs__coll_kind k, hs__coll_alg a);

#endif
