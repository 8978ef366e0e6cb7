/* MPI collectives as point-to-point schedules (see coll.h).
 *
 * The algorithms follow MPICH 4's intra-communicator implementations
 * (src/mpi/coll/<coll>/<coll>_intra_<alg>.c): the same peers, the same block
 * splits and the same order of steps, so that the traffic a replay puts on
 * the network is the traffic the library would have produced.  Where MPICH
 * switches algorithm for a case the requested one cannot handle (recursive
 * doubling allgather on a non-power-of-two communicator, recursive halving
 * reduce_scatter likewise) we switch the same way. */
#include "coll.h"
#include "hopscope/common.h"

#include <stdlib.h>
#include <string.h>

enum seg_type {
    SEG_PRE,         /* precomputed O(log n) steps */
    SEG_RING_RS,     /* ring reduce-scatter over n blocks of the message */
    SEG_RING_AG,     /* ring allgather over n blocks of the message */
    SEG_BCAST_RING,  /* ring allgather of the scatter-allgather broadcast */
    SEG_AG_RING,     /* allgather(v) ring, blocks are the ranks' blocks */
    SEG_A2A_PAIR,    /* pairwise all-to-all(v) */
    SEG_RS_PAIR,     /* pairwise reduce_scatter */
    SEG_BIG,         /* one step with many transfers (linear, neighbour) */
};

void hs__coll_tuning_default(hs__coll_tuning *t)
{
    t->bcast_long = 12288;
    t->allreduce_short = 2048;
    t->allreduce_long = 1u << 20;
    t->allgather_long = 512u << 10;
    t->alltoall_short = 256;
    t->redscat_long = 512u << 10;
}

static const char *const kind_names[HS__COLL_NKINDS] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall",
    "gather", "scatter", "reduce_scatter", "scan", "exscan", "neighbor",
};
static const char *const alg_names[HS__ALG_NALGS] = {
    "auto", "dissemination", "binomial", "scatter_allgather", "recursive_doubling",
    "ring", "rabenseifner", "bruck", "pairwise", "linear", "recursive_halving",
};

const char *hs__coll_kind_name(hs__coll_kind k)
{
    return (unsigned)k < HS__COLL_NKINDS ? kind_names[k] : "unknown";
}

const char *hs__coll_alg_name(hs__coll_alg a)
{
    return (unsigned)a < HS__ALG_NALGS ? alg_names[a] : "unknown";
}

int hs__coll_alg_parse(const char *s)
{
    for (int a = 0; a < HS__ALG_NALGS; a++)
        if (strcmp(s, alg_names[a]) == 0)
            return a;
    return -1;
}

int hs__coll_alg_applies(hs__coll_kind k, hs__coll_alg a)
{
    if (a == HS__ALG_AUTO)
        return 1;
    switch (k) {
    case HS__COLL_BARRIER:   return a == HS__ALG_DISSEMINATION;
    case HS__COLL_BCAST:     return a == HS__ALG_BINOMIAL || a == HS__ALG_SCATTER_ALLGATHER;
    case HS__COLL_REDUCE:    return a == HS__ALG_BINOMIAL;
    case HS__COLL_ALLREDUCE: return a == HS__ALG_RECURSIVE_DOUBLING || a == HS__ALG_RING ||
                                    a == HS__ALG_RABENSEIFNER;
    case HS__COLL_ALLGATHER: return a == HS__ALG_RECURSIVE_DOUBLING || a == HS__ALG_RING ||
                                    a == HS__ALG_BRUCK;
    case HS__COLL_ALLTOALL:  return a == HS__ALG_PAIRWISE || a == HS__ALG_BRUCK;
    case HS__COLL_GATHER:
    case HS__COLL_SCATTER:   return a == HS__ALG_BINOMIAL || a == HS__ALG_LINEAR;
    case HS__COLL_REDUCE_SCATTER:
        return a == HS__ALG_PAIRWISE || a == HS__ALG_RECURSIVE_HALVING;
    case HS__COLL_SCAN:
    case HS__COLL_EXSCAN:    return a == HS__ALG_RECURSIVE_DOUBLING;
    case HS__COLL_NEIGHBOR:  return a == HS__ALG_LINEAR;
    default:                 return 0;
    }
}

/* ---- helpers ------------------------------------------------------------- */

static int is_pof2(int32_t n) { return n > 0 && (n & (n - 1)) == 0; }

static int32_t floor_pof2(int32_t n)
{
    int32_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int32_t mod(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

/* Bytes of block i when `total` bytes are split into m blocks on element
 * boundaries; leftover elements go to the first blocks, a leftover partial
 * element to the last block (MPICH splits counts the same way). */
static uint64_t split(uint64_t total, uint32_t elem, int32_t m, int32_t i)
{
    uint64_t elems = total / elem, tail = total % elem;
    uint64_t b = (elems / (uint64_t)m + ((uint64_t)i < elems % (uint64_t)m)) * elem;
    return i == m - 1 ? b + tail : b;
}

static uint64_t split_range(uint64_t total, uint32_t elem, int32_t m, int32_t lo, int32_t hi)
{
    uint64_t s = 0;
    for (int32_t i = lo; i < hi; i++)
        s += split(total, elem, m, i);
    return s;
}

/* Block of rank i in gather/allgather-like collectives. */
static uint64_t block(const hs__coll_req *r, int32_t i)
{
    return r->counts ? r->counts[i] : r->bytes;
}

/* Sum of blocks of ranks first, first+1, ..., first+cnt-1 (mod n). */
static uint64_t blocks_mod(const hs__coll_req *r, int32_t first, int32_t cnt)
{
    uint64_t s = 0;
    for (int32_t i = 0; i < cnt; i++)
        s += block(r, mod((int64_t)first + i, r->n));
    return s;
}

/* Appends a precomputed step with one or two transfers. */
static void pre1(hs__coll_iter *it, int32_t peer, int recv, uint64_t bytes, uint64_t reduce)
{
    hs__coll_pre *p = &it->pre[it->npre++];
    p->nx = 1;
    p->peer[0] = peer;
    p->recv[0] = (uint8_t)recv;
    p->bytes[0] = bytes;
    p->reduce = reduce;
}

static void pre2(hs__coll_iter *it, int32_t speer, uint64_t sbytes, int32_t rpeer,
                 uint64_t rbytes, uint64_t reduce)
{
    hs__coll_pre *p = &it->pre[it->npre++];
    p->nx = 2;
    p->peer[0] = speer;
    p->recv[0] = 0;
    p->bytes[0] = sbytes;
    p->peer[1] = rpeer;
    p->recv[1] = 1;
    p->bytes[1] = rbytes;
    p->reduce = reduce;
}

static void add_seg(hs__coll_iter *it, enum seg_type t, uint32_t nsteps)
{
    if (nsteps == 0)
        return;
    it->segs[it->nseg].type = (uint8_t)t;
    it->segs[it->nseg].nsteps = nsteps;
    it->nseg++;
}

/* ---- O(log n) algorithms, precomputed ---------------------------------------- */

static void gen_dissemination(hs__coll_iter *it)
{
    int32_t n = it->req.n, r = it->rank;
    for (int64_t d = 1; d < n; d *= 2)
        pre2(it, mod(r + d, n), 0, mod(r - d, n), 0, 0);
}

static void gen_bcast_binomial(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, rel = mod((int64_t)it->rank - q->root, n);
    int64_t mask = 1;
    while (mask < n) {
        if (rel & mask) {
            pre1(it, mod((int64_t)it->rank - mask, n), 1, q->bytes, 0);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n)
            pre1(it, mod((int64_t)it->rank + mask, n), 0, q->bytes, 0);
}

/* Binomial scatter of the scatter-allgather broadcast (MPII_Scatter_for_bcast). */
static void gen_bcast_scatter(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, rel = mod((int64_t)it->rank - q->root, n);
    int64_t nbytes = (int64_t)q->bytes, chunk = (int64_t)it->chunk;
    int64_t curr = rel == 0 ? nbytes : 0, mask = 1;
    while (mask < n) {
        if (rel & mask) {
            /* MPICH posts the receive for up to nbytes - rel*chunk and learns
             * the size from the status; what arrives is the subtree's part:
             * blocks [rel, min(n, rel + mask)). */
            int64_t end = rel + mask < n ? rel + mask : n;
            int64_t recv = (nbytes < end * chunk ? nbytes : end * chunk) - rel * chunk;
            if (recv > 0) {
                pre1(it, mod((int64_t)it->rank - mask, n), 1, (uint64_t)recv, 0);
                curr = recv;
            } else {
                curr = 0;
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < n) {
            int64_t send = curr - chunk * mask;
            if (send > 0) {
                pre1(it, mod((int64_t)it->rank + mask, n), 0, (uint64_t)send, 0);
                curr -= send;
            }
        }
    }
}

static void gen_reduce_binomial(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, rel = mod((int64_t)it->rank - q->root, n);
    for (int64_t mask = 1; mask < n; mask <<= 1) {
        if ((rel & mask) == 0) {
            int64_t src = rel | mask;
            if (src < n)
                pre1(it, mod(src + q->root, n), 1, q->bytes, q->bytes);
        } else {
            pre1(it, mod((int64_t)(rel & ~mask) + q->root, n), 0, q->bytes, 0);
            break;
        }
    }
}

/* Gather: relative rank rel holds the blocks of relative ranks
 * [rel, rel + subtree); sizes come from counts via real ranks. */
static uint64_t rel_blocks(const hs__coll_req *q, int64_t lo, int64_t hi)
{
    if (hi > q->n)
        hi = q->n;
    return lo < hi ? blocks_mod(q, mod(lo + q->root, q->n), (int32_t)(hi - lo)) : 0;
}

static void gen_gather_binomial(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, rel = mod((int64_t)it->rank - q->root, n);
    for (int64_t mask = 1; mask < n; mask <<= 1) {
        if ((rel & mask) == 0) {
            int64_t src = rel | mask;
            if (src < n)
                pre1(it, mod(src + q->root, n), 1, rel_blocks(q, src, src + mask), 0);
        } else {
            pre1(it, mod((int64_t)(rel ^ mask) + q->root, n), 0, rel_blocks(q, rel, rel + mask), 0);
            break;
        }
    }
}

static void gen_scatter_binomial(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, rel = mod((int64_t)it->rank - q->root, n);
    int64_t mask = 1;
    while (mask < n) {
        if (rel & mask) {
            pre1(it, mod((int64_t)(rel ^ mask) + q->root, n), 1, rel_blocks(q, rel, rel + mask), 0);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n)
            pre1(it, mod(rel + mask + q->root, n), 0, rel_blocks(q, rel + mask, rel + 2 * mask), 0);
}

/* Non-power-of-two fold shared by recursive doubling and Rabenseifner:
 * the first 2*rem ranks pair up, even ones hand their data to the odd ones
 * and sit out.  Returns the rank's new rank, or -1. */
static int32_t fold_in(hs__coll_iter *it)
{
    int32_t r = it->rank, n = it->req.n;
    it->pof2 = floor_pof2(n);
    it->rem = n - it->pof2;
    uint64_t b = it->req.bytes;
    if (r < 2 * it->rem) {
        if (r % 2 == 0) {
            pre1(it, r + 1, 0, b, 0);
            return -1;
        }
        pre1(it, r - 1, 1, b, b);
        return r / 2;
    }
    return r - it->rem;
}

static int32_t unfold_rank(const hs__coll_iter *it, int32_t newr)
{
    return newr < it->rem ? newr * 2 + 1 : newr + it->rem;
}

static void fold_out(hs__coll_iter *it)
{
    int32_t r = it->rank;
    if (r < 2 * it->rem) {
        if (r % 2)
            pre1(it, r - 1, 0, it->req.bytes, 0);
        else
            pre1(it, r + 1, 1, it->req.bytes, 0);
    }
}

static void gen_allreduce_rd(hs__coll_iter *it)
{
    int32_t newr = fold_in(it);
    uint64_t b = it->req.bytes;
    if (newr != -1)
        for (int32_t mask = 1; mask < it->pof2; mask <<= 1) {
            int32_t dst = unfold_rank(it, newr ^ mask);
            pre2(it, dst, b, dst, b, b);
        }
    fold_out(it);
}

/* MPIR_Allreduce_intra_reduce_scatter_allgather. */
static void gen_allreduce_rabenseifner(hs__coll_iter *it)
{
    int32_t newr = fold_in(it);
    const hs__coll_req *q = &it->req;
    if (newr != -1) {
        int32_t pof2 = it->pof2;
        int32_t send_idx = 0, recv_idx = 0, last_idx = pof2;
        int32_t mask;
        for (mask = 1; mask < pof2;) {
            int32_t newdst = newr ^ mask, dst = unfold_rank(it, newdst);
            uint64_t sc, rc;
            if (newr < newdst) {
                send_idx = recv_idx + pof2 / (mask * 2);
                sc = split_range(q->bytes, q->elem, pof2, send_idx, last_idx);
                rc = split_range(q->bytes, q->elem, pof2, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                sc = split_range(q->bytes, q->elem, pof2, send_idx, recv_idx);
                rc = split_range(q->bytes, q->elem, pof2, recv_idx, last_idx);
            }
            pre2(it, dst, sc, dst, rc, rc);
            send_idx = recv_idx;
            mask <<= 1;
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            int32_t newdst = newr ^ mask, dst = unfold_rank(it, newdst);
            uint64_t sc, rc;
            if (newr < newdst) {
                if (mask != pof2 / 2)
                    last_idx = last_idx + pof2 / (mask * 2);
                recv_idx = send_idx + pof2 / (mask * 2);
                sc = split_range(q->bytes, q->elem, pof2, send_idx, recv_idx);
                rc = split_range(q->bytes, q->elem, pof2, recv_idx, last_idx);
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                sc = split_range(q->bytes, q->elem, pof2, send_idx, last_idx);
                rc = split_range(q->bytes, q->elem, pof2, recv_idx, send_idx);
            }
            pre2(it, dst, sc, dst, rc, 0);
            if (newr > newdst)
                send_idx = recv_idx;
        }
    }
    fold_out(it);
}

/* Allgather by recursive doubling, power-of-two n only. */
static void gen_allgather_rd(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t r = it->rank;
    for (int32_t mask = 1, i = 0; mask < q->n; mask <<= 1, i++) {
        int32_t dst = r ^ mask;
        int32_t my_root = (r >> i) << i, dst_root = (dst >> i) << i;
        pre2(it, dst, blocks_mod(q, my_root, mask), dst, blocks_mod(q, dst_root, mask), 0);
    }
}

/* Allgather by Bruck's algorithm (any n). */
static void gen_allgather_bruck(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, r = it->rank, pof2 = 1;
    for (; pof2 <= n / 2; pof2 *= 2) {
        int32_t src = mod((int64_t)r + pof2, n), dst = mod((int64_t)r - pof2, n);
        pre2(it, dst, blocks_mod(q, r, pof2), src, blocks_mod(q, src, pof2), 0);
    }
    int32_t rem = n - pof2;
    if (rem) {
        int32_t src = mod((int64_t)r + pof2, n), dst = mod((int64_t)r - pof2, n);
        pre2(it, dst, blocks_mod(q, r, rem), src, blocks_mod(q, src, rem), 0);
    }
}

static void gen_alltoall_bruck(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, r = it->rank;
    for (int32_t pof2 = 1; pof2 < n; pof2 *= 2) {
        uint64_t packed = 0;
        for (int32_t j = 0; j < n; j++)
            packed += (j & pof2) != 0;
        pre2(it, mod((int64_t)r + pof2, n), packed * q->bytes, mod((int64_t)r - pof2, n),
             packed * q->bytes, 0);
    }
}

/* Recursive halving: keep the half holding our own block, send the other. */
static void gen_redscat_halving(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    int32_t r = it->rank, lo = 0, hi = q->n;
    for (int32_t mask = q->n / 2; mask > 0; mask >>= 1) {
        int32_t dst = r ^ mask, half = (hi - lo) / 2;
        int32_t slo, shi, klo, khi;
        if (r & mask) {
            slo = lo, shi = lo + half, klo = lo + half, khi = hi;
        } else {
            slo = lo + half, shi = hi, klo = lo, khi = lo + half;
        }
        uint64_t kept = blocks_mod(q, klo, khi - klo);
        pre2(it, dst, blocks_mod(q, slo, shi - slo), dst, kept, kept);
        lo = klo;
        hi = khi;
    }
}

static void gen_scan_rd(hs__coll_iter *it)
{
    const hs__coll_req *q = &it->req;
    for (int64_t mask = 1; mask < q->n; mask <<= 1) {
        int32_t dst = it->rank ^ (int32_t)mask;
        if (dst < q->n)
            pre2(it, dst, q->bytes, dst, q->bytes, q->bytes);
    }
}

/* ---- algorithm choice --------------------------------------------------------- */

static hs__coll_alg choose(const hs__coll_req *q, const hs__coll_tuning *t)
{
    int32_t n = q->n;
    uint64_t total = 0;
    if (q->kind == HS__COLL_ALLGATHER || q->kind == HS__COLL_REDUCE_SCATTER)
        total = blocks_mod(q, 0, n);
    switch (q->kind) {
    case HS__COLL_BARRIER: return HS__ALG_DISSEMINATION;
    case HS__COLL_BCAST:
        return (n < 8 || q->bytes < t->bcast_long) ? HS__ALG_BINOMIAL : HS__ALG_SCATTER_ALLGATHER;
    case HS__COLL_REDUCE: return HS__ALG_BINOMIAL;
    case HS__COLL_ALLREDUCE:
        if (q->bytes <= t->allreduce_short || q->bytes / q->elem < (uint64_t)floor_pof2(n))
            return HS__ALG_RECURSIVE_DOUBLING;
        return q->bytes >= t->allreduce_long ? HS__ALG_RING : HS__ALG_RABENSEIFNER;
    case HS__COLL_ALLGATHER:
        if (total >= t->allgather_long)
            return HS__ALG_RING;
        return is_pof2(n) ? HS__ALG_RECURSIVE_DOUBLING : HS__ALG_BRUCK;
    case HS__COLL_ALLTOALL:
        return (!q->counts && q->bytes <= t->alltoall_short && n >= 8) ? HS__ALG_BRUCK
                                                                        : HS__ALG_PAIRWISE;
    case HS__COLL_GATHER:
    case HS__COLL_SCATTER: return q->counts ? HS__ALG_LINEAR : HS__ALG_BINOMIAL;
    case HS__COLL_REDUCE_SCATTER:
        return (is_pof2(n) && total < t->redscat_long) ? HS__ALG_RECURSIVE_HALVING
                                                        : HS__ALG_PAIRWISE;
    case HS__COLL_SCAN:
    case HS__COLL_EXSCAN: return HS__ALG_RECURSIVE_DOUBLING;
    case HS__COLL_NEIGHBOR: return HS__ALG_LINEAR;
    default: return HS__ALG_AUTO;
    }
}

static int big_reserve(hs__coll_iter *it, uint32_t n)
{
    if (n <= it->bigcap)
        return 0;
    hs__coll_xfer *p = realloc(it->big, n * sizeof *p);
    if (!p)
        return HS_ENOMEM;
    it->big = p;
    it->bigcap = n;
    return 0;
}

int hs__coll_begin(hs__coll_iter *it, const hs__coll_req *req, int32_t rank,
                   const hs__coll_tuning *tuning)
{
    memset(it, 0, sizeof *it);
    const hs__coll_req *q = req;
    if (q->n < 1 || rank < 0 || rank >= q->n || (unsigned)q->kind >= HS__COLL_NKINDS ||
        (unsigned)q->alg >= HS__ALG_NALGS || !hs__coll_alg_applies(q->kind, q->alg))
        return HS_EINVAL;
    int rooted = q->kind == HS__COLL_BCAST || q->kind == HS__COLL_REDUCE ||
                 q->kind == HS__COLL_GATHER || q->kind == HS__COLL_SCATTER;
    if (rooted && (q->root < 0 || q->root >= q->n))
        return HS_EINVAL;
    if (q->kind == HS__COLL_ALLTOALL && (q->counts != NULL) != (q->rcounts != NULL))
        return HS_EINVAL;
    if (q->kind == HS__COLL_NEIGHBOR &&
        (q->nout < 0 || q->nin < 0 || (q->nout && (!q->out_peers || !q->out_bytes)) ||
         (q->nin && (!q->in_peers || !q->in_bytes))))
        return HS_EINVAL;
    hs__coll_tuning deft;
    if (!tuning) {
        hs__coll_tuning_default(&deft);
        tuning = &deft;
    }
    it->req = *q;
    if (it->req.elem == 0)
        it->req.elem = 1;
    it->rank = rank;
    q = &it->req;
    int32_t n = q->n;
    hs__coll_alg alg = q->alg == HS__ALG_AUTO ? choose(q, tuning) : q->alg;
    /* Fallbacks MPICH itself makes when an algorithm cannot handle n. */
    if (q->kind == HS__COLL_ALLGATHER && alg == HS__ALG_RECURSIVE_DOUBLING && !is_pof2(n))
        alg = HS__ALG_BRUCK;
    if (q->kind == HS__COLL_REDUCE_SCATTER && alg == HS__ALG_RECURSIVE_HALVING && !is_pof2(n))
        alg = HS__ALG_PAIRWISE;
    it->alg = alg;
    if (n == 1 && q->kind != HS__COLL_NEIGHBOR)
        return 0; /* nothing to communicate */

    switch (q->kind) {
    case HS__COLL_BARRIER:
        gen_dissemination(it);
        break;
    case HS__COLL_BCAST:
        if (alg == HS__ALG_BINOMIAL) {
            gen_bcast_binomial(it);
        } else {
            it->chunk = (q->bytes + (uint64_t)n - 1) / (uint64_t)n;
            gen_bcast_scatter(it);
        }
        break;
    case HS__COLL_REDUCE:
        gen_reduce_binomial(it);
        break;
    case HS__COLL_ALLREDUCE:
        if (alg == HS__ALG_RECURSIVE_DOUBLING) {
            gen_allreduce_rd(it);
        } else if (alg == HS__ALG_RABENSEIFNER) {
            gen_allreduce_rabenseifner(it);
        }
        break;
    case HS__COLL_ALLGATHER:
        if (alg == HS__ALG_RECURSIVE_DOUBLING)
            gen_allgather_rd(it);
        else if (alg == HS__ALG_BRUCK)
            gen_allgather_bruck(it);
        break;
    case HS__COLL_ALLTOALL:
        if (alg == HS__ALG_BRUCK && q->counts)
            return HS_EINVAL; /* Bruck needs equal blocks */
        if (alg == HS__ALG_BRUCK)
            gen_alltoall_bruck(it);
        break;
    case HS__COLL_GATHER:
        if (alg == HS__ALG_BINOMIAL)
            gen_gather_binomial(it);
        break;
    case HS__COLL_SCATTER:
        if (alg == HS__ALG_BINOMIAL)
            gen_scatter_binomial(it);
        break;
    case HS__COLL_REDUCE_SCATTER:
        if (alg == HS__ALG_RECURSIVE_HALVING)
            gen_redscat_halving(it);
        break;
    case HS__COLL_SCAN:
    case HS__COLL_EXSCAN:
        gen_scan_rd(it);
        break;
    default:
        break;
    }
    add_seg(it, SEG_PRE, it->npre);
    /* The O(n) segments. */
    if (q->kind == HS__COLL_BCAST && alg == HS__ALG_SCATTER_ALLGATHER)
        add_seg(it, SEG_BCAST_RING, (uint32_t)n - 1);
    if (q->kind == HS__COLL_ALLREDUCE && alg == HS__ALG_RING) {
        add_seg(it, SEG_RING_RS, (uint32_t)n - 1);
        add_seg(it, SEG_RING_AG, (uint32_t)n - 1);
    }
    if (q->kind == HS__COLL_ALLGATHER && alg == HS__ALG_RING)
        add_seg(it, SEG_AG_RING, (uint32_t)n - 1);
    if (q->kind == HS__COLL_ALLTOALL && alg == HS__ALG_PAIRWISE)
        add_seg(it, SEG_A2A_PAIR, (uint32_t)n - 1);
    if (q->kind == HS__COLL_REDUCE_SCATTER && alg == HS__ALG_PAIRWISE)
        add_seg(it, SEG_RS_PAIR, (uint32_t)n - 1);
    int linear = (q->kind == HS__COLL_GATHER || q->kind == HS__COLL_SCATTER) &&
                 alg == HS__ALG_LINEAR;
    if (linear || q->kind == HS__COLL_NEIGHBOR) {
        uint32_t need = q->kind == HS__COLL_NEIGHBOR ? (uint32_t)(q->nout + q->nin)
                      : rank == q->root ? (uint32_t)n - 1 : 1;
        if (need) {
            if (big_reserve(it, need))
                return HS_ENOMEM;
            add_seg(it, SEG_BIG, 1);
        }
    }
    return 0;
}

void hs__coll_end(hs__coll_iter *it)
{
    free(it->big);
    it->big = NULL;
    it->bigcap = 0;
}

/* ---- step production -------------------------------------------------------- */

static void one_pair(hs__coll_iter *it, hs__coll_step *st, int32_t speer, uint64_t sbytes,
                     int32_t rpeer, uint64_t rbytes, uint64_t reduce)
{
    it->buf[0] = (hs__coll_xfer){.peer = speer, .recv = 0, .bytes = sbytes};
    it->buf[1] = (hs__coll_xfer){.peer = rpeer, .recv = 1, .bytes = rbytes};
    st->x = it->buf;
    st->nx = 2;
    st->reduce_bytes = reduce;
}

static void big_step(hs__coll_iter *it, hs__coll_step *st)
{
    const hs__coll_req *q = &it->req;
    uint32_t nx = 0;
    if (q->kind == HS__COLL_NEIGHBOR) {
        for (int32_t i = 0; i < q->nout; i++)
            it->big[nx++] = (hs__coll_xfer){.peer = q->out_peers[i], .recv = 0,
                                            .bytes = q->out_bytes[i]};
        for (int32_t i = 0; i < q->nin; i++)
            it->big[nx++] = (hs__coll_xfer){.peer = q->in_peers[i], .recv = 1,
                                            .bytes = q->in_bytes[i]};
    } else {
        int gather = q->kind == HS__COLL_GATHER;
        if (it->rank == q->root) {
            for (int32_t i = 0; i < q->n; i++)
                if (i != q->root)
                    it->big[nx++] = (hs__coll_xfer){.peer = i, .recv = (uint8_t)gather,
                                                    .bytes = block(q, i)};
        } else {
            it->big[nx++] = (hs__coll_xfer){.peer = q->root, .recv = (uint8_t)!gather,
                                            .bytes = block(q, it->rank)};
        }
    }
    st->x = it->big;
    st->nx = nx;
    st->reduce_bytes = 0;
}

int hs__coll_next(hs__coll_iter *it, hs__coll_step *st)
{
    while (it->seg < it->nseg && it->idx >= it->segs[it->seg].nsteps) {
        it->seg++;
        it->idx = 0;
    }
    if (it->seg >= it->nseg)
        return 0;
    const hs__coll_req *q = &it->req;
    int32_t n = q->n, r = it->rank;
    int32_t s = (int32_t)it->idx++;
    int32_t right = mod((int64_t)r + 1, n), left = mod((int64_t)r - 1, n);
    switch (it->segs[it->seg].type) {
    case SEG_PRE: {
        hs__coll_pre *p = &it->pre[s];
        for (int i = 0; i < p->nx; i++)
            it->buf[i] = (hs__coll_xfer){.peer = p->peer[i], .recv = p->recv[i],
                                         .bytes = p->bytes[i]};
        st->x = it->buf;
        st->nx = p->nx;
        st->reduce_bytes = p->reduce;
        return 1;
    }
    case SEG_RING_RS: {
        uint64_t rb = split(q->bytes, q->elem, n, mod((int64_t)r - s - 1, n));
        one_pair(it, st, right, split(q->bytes, q->elem, n, mod((int64_t)r - s, n)), left, rb, rb);
        return 1;
    }
    case SEG_RING_AG:
        one_pair(it, st, right, split(q->bytes, q->elem, n, mod((int64_t)r - s + 1, n)), left,
                 split(q->bytes, q->elem, n, mod((int64_t)r - s, n)), 0);
        return 1;
    case SEG_BCAST_RING: {
        /* Step s+1 of MPICH's ring: send block of j = r - s, receive j - 1;
         * blocks are numbered relative to the root. */
        int64_t nbytes = (int64_t)q->bytes, chunk = (int64_t)it->chunk;
        int64_t jrel = mod((int64_t)r - s - q->root, n), jnrel = mod((int64_t)r - s - 1 - q->root, n);
        int64_t sc = nbytes - jrel * chunk, rc = nbytes - jnrel * chunk;
        sc = sc < 0 ? 0 : sc > chunk ? chunk : sc;
        rc = rc < 0 ? 0 : rc > chunk ? chunk : rc;
        one_pair(it, st, right, (uint64_t)sc, left, (uint64_t)rc, 0);
        return 1;
    }
    case SEG_AG_RING:
        one_pair(it, st, right, block(q, mod((int64_t)r - s, n)), left,
                 block(q, mod((int64_t)r - s - 1, n)), 0);
        return 1;
    case SEG_A2A_PAIR: {
        int32_t i = s + 1, src, dst;
        if (is_pof2(n)) {
            src = dst = r ^ i;
        } else {
            src = mod((int64_t)r - i, n);
            dst = mod((int64_t)r + i, n);
        }
        one_pair(it, st, dst, q->counts ? q->counts[dst] : q->bytes, src,
                 q->rcounts ? q->rcounts[src] : q->bytes, 0);
        return 1;
    }
    case SEG_RS_PAIR: {
        int32_t i = s + 1, src = mod((int64_t)r - i, n), dst = mod((int64_t)r + i, n);
        one_pair(it, st, dst, block(q, dst), src, block(q, r), block(q, r));
        return 1;
    }
    case SEG_BIG:
        big_step(it, st);
        return 1;
    }
    return 0;
}
