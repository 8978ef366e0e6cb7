/* The rank-file layout: headers, the kind table, record encoding and
 * decoding, block building.  See format.h and docs/formats.md.
 *
 * Invariant kept by the encoder and checked by the decoder: a payload is a
 * sequence of records, each fully described by its kind's entry in
 * hs__kinds, with no field that needs anything outside the block to decode
 * (deltas restart at every block).  A reader can therefore decode any block
 * alone. */
#include "format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- kind table --------------------------------------------------------- */

#define P2P_SEND   (HS__F_COMM | HS__F_PEER | HS__F_TAG | HS__F_BYTES)
#define P2P_RECVP  (HS__F_COMM | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES2 | HS__F_REQ)
#define PROBE_F    (HS__F_COMM | HS__F_PEER | HS__F_TAG | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES)
#define COLL_F     (HS__F_COMM | HS__F_PEER | HS__F_BYTES | HS__F_BYTES2)
#define RMA_F      (HS__F_WIN | HS__F_PEER | HS__F_BYTES | HS__F_BYTES2)

#define K(code, nm, c, f, a, b) [code] = { nm, c, f, a, b }
#define META HS_TRACE_CLASS_META
#define P2P  HS_TRACE_CLASS_P2P
#define CMPL HS_TRACE_CLASS_COMPLETION
#define COLL HS_TRACE_CLASS_COLL
#define RMA  HS_TRACE_CLASS_RMA
#define NOL  HS__L_NONE
/* A collective and its nonblocking twin. */
#define KC(code, nm, a, b) \
    K(code, nm, COLL, COLL_F, a, b), \
    K(code + HS_TRACE_NB, "i" nm, COLL, COLL_F | HS__F_REQ, a, b)

const hs__kind_desc hs__kinds[HS_TRACE_KIND_MAX + 1] = {
    K(HS_TRACE_INIT, "init", META, HS__F_AUX, NOL, NOL),
    K(HS_TRACE_FINALIZE, "finalize", META, 0, NOL, NOL),
    K(HS_TRACE_ABORT, "abort", META, HS__F_COMM | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_COMM_CREATE, "comm_create", META,
      HS__F_COMM | HS__F_COMM2 | HS__F_TAG | HS__F_AUX, HS__L_RANKS, HS__L_RANKS),
    K(HS_TRACE_COMM_FREE, "comm_free", META, HS__F_COMM, NOL, NOL),
    K(HS_TRACE_WIN_CREATE, "win_create", META,
      HS__F_WIN | HS__F_COMM | HS__F_TAG | HS__F_BYTES | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_WIN_FREE, "win_free", META, HS__F_WIN, NOL, NOL),

    K(HS_TRACE_SEND, "send", P2P, P2P_SEND, NOL, NOL),
    K(HS_TRACE_BSEND, "bsend", P2P, P2P_SEND, NOL, NOL),
    K(HS_TRACE_SSEND, "ssend", P2P, P2P_SEND, NOL, NOL),
    K(HS_TRACE_RSEND, "rsend", P2P, P2P_SEND, NOL, NOL),
    K(HS_TRACE_ISEND, "isend", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_IBSEND, "ibsend", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_ISSEND, "issend", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_IRSEND, "irsend", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_SEND_INIT, "send_init", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_BSEND_INIT, "bsend_init", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_SSEND_INIT, "ssend_init", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_RSEND_INIT, "rsend_init", P2P, P2P_SEND | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_RECV, "recv", P2P,
      HS__F_COMM | HS__F_PEER | HS__F_TAG | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES |
      HS__F_BYTES2, NOL, NOL),
    K(HS_TRACE_IRECV, "irecv", P2P, P2P_RECVP, NOL, NOL),
    K(HS_TRACE_RECV_INIT, "recv_init", P2P, P2P_RECVP, NOL, NOL),
    K(HS_TRACE_SENDRECV, "sendrecv", P2P,
      P2P_SEND | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES2, NOL, NOL),
    K(HS_TRACE_SENDRECV_REPLACE, "sendrecv_replace", P2P,
      P2P_SEND | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES2, NOL, NOL),
    K(HS_TRACE_PROBE, "probe", P2P, PROBE_F, NOL, NOL),
    K(HS_TRACE_IPROBE, "iprobe", P2P, PROBE_F | HS__F_REPEAT, NOL, NOL),
    K(HS_TRACE_MPROBE, "mprobe", P2P, PROBE_F | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_IMPROBE, "improbe", P2P, PROBE_F | HS__F_AUX | HS__F_REPEAT, NOL, NOL),
    K(HS_TRACE_MRECV, "mrecv", P2P,
      HS__F_COMM | HS__F_PEER | HS__F_TAG | HS__F_BYTES | HS__F_BYTES2 | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_IMRECV, "imrecv", P2P,
      HS__F_COMM | HS__F_PEER | HS__F_TAG | HS__F_BYTES2 | HS__F_AUX | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_ISENDRECV, "isendrecv", P2P,
      P2P_SEND | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES2 | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_ISENDRECV_REPLACE, "isendrecv_replace", P2P,
      P2P_SEND | HS__F_PEER2 | HS__F_TAG2 | HS__F_BYTES2 | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_START, "start", P2P, 0, HS__L_STARTS, NOL),
    K(HS_TRACE_STARTALL, "startall", P2P, 0, HS__L_STARTS, NOL),

    K(HS_TRACE_WAIT, "wait", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_TEST, "test", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_WAITANY, "waitany", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_TESTANY, "testany", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_WAITALL, "waitall", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_TESTALL, "testall", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_WAITSOME, "waitsome", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_TESTSOME, "testsome", CMPL, HS__F_REPEAT, HS__L_COMPL, NOL),
    K(HS_TRACE_REQUEST_FREE, "request_free", CMPL, HS__F_REQ, NOL, NOL),
    K(HS_TRACE_CANCEL, "cancel", CMPL, HS__F_REQ, NOL, NOL),

    KC(HS_TRACE_BARRIER, "barrier", NOL, NOL),
    KC(HS_TRACE_BCAST, "bcast", NOL, NOL),
    KC(HS_TRACE_GATHER, "gather", NOL, NOL),
    KC(HS_TRACE_GATHERV, "gatherv", HS__L_BYTES, HS__L_BYTES),
    KC(HS_TRACE_SCATTER, "scatter", NOL, NOL),
    KC(HS_TRACE_SCATTERV, "scatterv", HS__L_BYTES, HS__L_BYTES),
    KC(HS_TRACE_ALLGATHER, "allgather", NOL, NOL),
    KC(HS_TRACE_ALLGATHERV, "allgatherv", HS__L_BYTES, HS__L_BYTES),
    KC(HS_TRACE_ALLTOALL, "alltoall", NOL, NOL),
    KC(HS_TRACE_ALLTOALLV, "alltoallv", HS__L_BYTES, HS__L_BYTES),
    KC(HS_TRACE_ALLTOALLW, "alltoallw", HS__L_BYTES, HS__L_BYTES),
    KC(HS_TRACE_REDUCE, "reduce", NOL, NOL),
    KC(HS_TRACE_ALLREDUCE, "allreduce", NOL, NOL),
    KC(HS_TRACE_REDUCE_SCATTER, "reduce_scatter", HS__L_BYTES, HS__L_BYTES),
    KC(HS_TRACE_REDUCE_SCATTER_BLOCK, "reduce_scatter_block", NOL, NOL),
    KC(HS_TRACE_SCAN, "scan", NOL, NOL),
    KC(HS_TRACE_EXSCAN, "exscan", NOL, NOL),
    KC(HS_TRACE_NEIGHBOR_ALLGATHER, "neighbor_allgather", HS__L_PEERBYTES, HS__L_PEERBYTES),
    KC(HS_TRACE_NEIGHBOR_ALLGATHERV, "neighbor_allgatherv", HS__L_PEERBYTES, HS__L_PEERBYTES),
    KC(HS_TRACE_NEIGHBOR_ALLTOALL, "neighbor_alltoall", HS__L_PEERBYTES, HS__L_PEERBYTES),
    KC(HS_TRACE_NEIGHBOR_ALLTOALLV, "neighbor_alltoallv", HS__L_PEERBYTES, HS__L_PEERBYTES),
    KC(HS_TRACE_NEIGHBOR_ALLTOALLW, "neighbor_alltoallw", HS__L_PEERBYTES, HS__L_PEERBYTES),

    K(HS_TRACE_PUT, "put", RMA, RMA_F, NOL, NOL),
    K(HS_TRACE_GET, "get", RMA, RMA_F, NOL, NOL),
    K(HS_TRACE_ACCUMULATE, "accumulate", RMA, RMA_F, NOL, NOL),
    K(HS_TRACE_GET_ACCUMULATE, "get_accumulate", RMA, RMA_F, NOL, NOL),
    K(HS_TRACE_FETCH_AND_OP, "fetch_and_op", RMA, RMA_F, NOL, NOL),
    K(HS_TRACE_COMPARE_AND_SWAP, "compare_and_swap", RMA, RMA_F, NOL, NOL),
    K(HS_TRACE_RPUT, "rput", RMA, RMA_F | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_RGET, "rget", RMA, RMA_F | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_RACCUMULATE, "raccumulate", RMA, RMA_F | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_RGET_ACCUMULATE, "rget_accumulate", RMA, RMA_F | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_WIN_FENCE, "win_fence", RMA, HS__F_WIN | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_WIN_LOCK, "win_lock", RMA, HS__F_WIN | HS__F_PEER | HS__F_TAG | HS__F_AUX,
      NOL, NOL),
    K(HS_TRACE_WIN_UNLOCK, "win_unlock", RMA, HS__F_WIN | HS__F_PEER, NOL, NOL),
    K(HS_TRACE_WIN_LOCK_ALL, "win_lock_all", RMA, HS__F_WIN | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_WIN_UNLOCK_ALL, "win_unlock_all", RMA, HS__F_WIN, NOL, NOL),
    K(HS_TRACE_WIN_FLUSH, "win_flush", RMA, HS__F_WIN | HS__F_PEER, NOL, NOL),
    K(HS_TRACE_WIN_FLUSH_ALL, "win_flush_all", RMA, HS__F_WIN, NOL, NOL),
    K(HS_TRACE_WIN_FLUSH_LOCAL, "win_flush_local", RMA, HS__F_WIN | HS__F_PEER, NOL, NOL),
    K(HS_TRACE_WIN_FLUSH_LOCAL_ALL, "win_flush_local_all", RMA, HS__F_WIN, NOL, NOL),
    K(HS_TRACE_WIN_POST, "win_post", RMA, HS__F_WIN | HS__F_AUX, HS__L_RANKS, NOL),
    K(HS_TRACE_WIN_START, "win_start", RMA, HS__F_WIN | HS__F_AUX, HS__L_RANKS, NOL),
    K(HS_TRACE_WIN_COMPLETE, "win_complete", RMA, HS__F_WIN, NOL, NOL),
    K(HS_TRACE_WIN_WAIT, "win_wait", RMA, HS__F_WIN, NOL, NOL),
    K(HS_TRACE_WIN_TEST, "win_test", RMA, HS__F_WIN | HS__F_REPEAT, NOL, NOL),
    K(HS_TRACE_WIN_SYNC, "win_sync", RMA, HS__F_WIN, NOL, NOL),

    K(HS_TRACE_WIRE_OP, "wire_op", HS_TRACE_CLASS_WIRE,
      HS__F_TAG2 | HS__F_BYTES | HS__F_BYTES2 | HS__F_REQ | HS__F_AUX, NOL, NOL),
    K(HS_TRACE_WIRE_DONE, "wire_done", HS_TRACE_CLASS_WIRE,
      HS__F_BYTES | HS__F_BYTES2 | HS__F_REQ, NOL, NOL),
    K(HS_TRACE_WIRE_WORKER, "wire_worker", HS_TRACE_CLASS_WIRE, HS__F_BYTES | HS__F_AUX,
      NOL, NOL),
    K(HS_TRACE_WIRE_EP, "wire_ep", HS_TRACE_CLASS_WIRE, HS__F_AUX, NOL, NOL),
    K(HS_TRACE_WIRE_PROGRESS, "wire_progress", HS_TRACE_CLASS_WIRE,
      HS__F_BYTES | HS__F_BYTES2 | HS__F_AUX, NOL, NOL),
};

const char *hs_trace_wop_name(int op)
{
    static const char *const names[] = {
        [HS_TRACE_WOP_TAG_SEND] = "tag_send", [HS_TRACE_WOP_TAG_SSEND] = "tag_send_sync",
        [HS_TRACE_WOP_TAG_RECV] = "tag_recv", [HS_TRACE_WOP_PUT] = "put",
        [HS_TRACE_WOP_GET] = "get", [HS_TRACE_WOP_ATOMIC] = "atomic",
        [HS_TRACE_WOP_ATOMIC_FETCH] = "atomic_fetch", [HS_TRACE_WOP_AM_SEND] = "am_send",
        [HS_TRACE_WOP_AM_RECV] = "am_recv", [HS_TRACE_WOP_STREAM_SEND] = "stream_send",
        [HS_TRACE_WOP_STREAM_RECV] = "stream_recv", [HS_TRACE_WOP_FLUSH] = "flush",
    };
    return op > 0 && op <= HS_TRACE_WOP_MAX ? names[op] : NULL;
}

const char *hs_trace_kind_name(int kind)
{
    if (kind < 0 || kind > HS_TRACE_KIND_MAX)
        return NULL;
    return hs__kinds[kind].name;
}

int hs_trace_kind_from_name(const char *name)
{
    for (int k = 0; k <= HS_TRACE_KIND_MAX; k++)
        if (hs__kinds[k].name && strcmp(hs__kinds[k].name, name) == 0)
            return k;
    return -1;
}

hs_trace_class hs_trace_kind_class(int kind)
{
    if (kind < 0 || kind > HS_TRACE_KIND_MAX || !hs__kinds[kind].name)
        return HS_TRACE_CLASS_NONE;
    return (hs_trace_class)hs__kinds[kind].cls;
}

int hs_trace_kind_is_coll(int kind, int *base)
{
    if (hs_trace_kind_class(kind) != HS_TRACE_CLASS_COLL)
        return 0;
    if (base)
        *base = kind > HS_TRACE_COLL_LAST ? kind - HS_TRACE_NB : kind;
    return 1;
}

const char *hs_trace_ctor_name(int ctor)
{
    static const char *const names[] = {
        NULL, "world", "self", "dup", "idup", "split", "split_type", "create",
        "create_group", "cart_create", "cart_sub", "graph_create", "dist_graph_create",
        "dist_graph_create_adjacent", "intercomm_create", "intercomm_merge", "unknown",
    };
    if (ctor < 1 || ctor > HS_TRACE_CTOR_MAX)
        return NULL;
    return names[ctor];
}

const char *hs_trace_end_name(int reason)
{
    switch (reason) {
    case HS_TRACE_END_FINALIZE: return "finalize";
    case HS_TRACE_END_EXIT:     return "exit without MPI_Finalize";
    case HS_TRACE_END_ABORT:    return "MPI_Abort";
    case HS_TRACE_END_SIGNAL:   return "signal";
    case HS_TRACE_END_ERROR:    return "recording error";
    default:                    return "none";
    }
}

void hs_trace_event_init(hs_trace_event *ev, int kind)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint16_t)kind;
    ev->repeat = 1;
    ev->peer = ev->peer2 = HS_TRACE_RANK_NONE;
    ev->tag = ev->tag2 = HS_TRACE_TAG_NONE;
}

uint64_t hs__monitor_threshold(double rate)
{
    if (!(rate < 1.0))   /* also NaN: treat as all */
        return UINT64_MAX;
    if (rate <= 0.0)
        return 0;
    return (uint64_t)(rate * 18446744073709551616.0);
}

int hs_trace_monitored(uint64_t seed, double rate, uint32_t src, uint32_t dst, uint64_t seq)
{
    return hs__monitored(seed, hs__monitor_threshold(rate), src, dst, seq);
}

/* ---- headers ------------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}
static uint32_t crc(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(0L, p, (uInt)n);
}

void hs__file_hdr_pack(const hs__file_hdr *h, uint8_t out[HS__FILE_HDR_LEN])
{
    memset(out, 0, HS__FILE_HDR_LEN);
    memcpy(out, HS__FILE_MAGIC, 8);
    put16(out + 8, h->version);
    put16(out + 10, HS__FILE_HDR_LEN);
    put32(out + 12, h->rank);
    put32(out + 16, h->nranks);
    out[20] = h->clock;
    out[21] = h->shift;
    put32(out + 24, h->pid);
    put64(out + 32, h->tick_hz);
    put32(out + 60, crc(out, 60));
}

int hs__file_hdr_unpack(const uint8_t in[HS__FILE_HDR_LEN], hs__file_hdr *h)
{
    if (memcmp(in, HS__FILE_MAGIC, 8) != 0)
        return HS_EFORMAT;
    if (get32(in + 60) != crc(in, 60))
        return HS_ECHECKSUM;
    memset(h, 0, sizeof *h);
    h->version = get16(in + 8);
    if (h->version != HS_TRACE_FORMAT_VERSION || get16(in + 10) != HS__FILE_HDR_LEN)
        return HS_EVERSION;
    h->rank = get32(in + 12);
    h->nranks = get32(in + 16);
    h->clock = in[20];
    h->shift = in[21];
    h->pid = get32(in + 24);
    h->tick_hz = get64(in + 32);
    if (h->clock < HS__CLOCK_TSC || h->clock > HS__CLOCK_NS || h->shift > 16 ||
        h->tick_hz == 0 || h->rank >= h->nranks)
        return HS_EFORMAT;
    return 0;
}

void hs__blk_hdr_pack(const hs__blk_hdr *h, uint8_t out[HS__BLK_HDR_LEN])
{
    put32(out, HS__BLK_MAGIC);
    out[4] = h->type;
    out[5] = 0;
    put16(out + 6, h->thread);
    put32(out + 8, h->seq);
    put32(out + 12, h->nevents);
    put32(out + 16, h->raw_len);
    put32(out + 20, h->comp_len);
    put64(out + 24, h->base);
    put64(out + 32, h->sync_tick);
    put64(out + 40, h->sync_ns);
    put32(out + 48, h->payload_crc);
    put32(out + 52, crc(out, 52));
}

int hs__blk_hdr_unpack(const uint8_t in[HS__BLK_HDR_LEN], hs__blk_hdr *h)
{
    if (get32(in) != HS__BLK_MAGIC)
        return HS_EFORMAT;
    if (get32(in + 52) != crc(in, 52))
        return HS_ECHECKSUM;
    h->type = in[4];
    h->thread = get16(in + 6);
    h->seq = get32(in + 8);
    h->nevents = get32(in + 12);
    h->raw_len = get32(in + 16);
    h->comp_len = get32(in + 20);
    h->base = get64(in + 24);
    h->sync_tick = get64(in + 32);
    h->sync_ns = get64(in + 40);
    h->payload_crc = get32(in + 48);
    if (h->type < HS__BLK_EVENTS || h->type > HS__BLK_END || in[5] != 0 ||
        h->raw_len > HS__BLK_MAX_RAW ||
        h->comp_len + HS__BLK_HDR_LEN > hs__block_bound(h->raw_len, 0))
        return HS_EFORMAT;
    return 0;
}

/* ---- encoding ----------------------------------------------------------- */

static inline uint8_t *put_idx(uint8_t *p, uint32_t idx)
{
    return hs__put_u(p, idx == HS__NOIDX ? 0 : (uint64_t)idx + 1);
}

static uint8_t *encode_list(hs__codec *c, unsigned lt, uint32_t n, const uint64_t *w,
                            uint8_t *p)
{
    p = hs__put_u(p, n);
    int64_t prev_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        switch (lt) {
        case HS__L_RANKS:
            p = hs__put_s(p, (int64_t)w[0] - prev_rank);
            prev_rank = (int64_t)w[0];
            break;
        case HS__L_BYTES:
            p = hs__put_u(p, w[0]);
            break;
        case HS__L_PEERBYTES:
            p = hs__put_s(p, (int64_t)w[0] - c->rank);
            p = hs__put_u(p, w[1]);
            break;
        case HS__L_STARTS:
            p = hs__put_s(p, (int64_t)(w[0] - c->prev_req));
            c->prev_req = w[0];
            p = hs__put_u(p, w[1]);
            break;
        case HS__L_COMPL:
            p = hs__put_s(p, (int64_t)(w[0] - c->prev_req));
            c->prev_req = w[0];
            p = hs__put_u(p, w[1]);
            if (w[1] & HS_TRACE_C_STATUS) {
                p = hs__put_s(p, (int64_t)w[2] - c->rank);
                p = hs__put_s(p, (int64_t)w[3]);
                p = hs__put_u(p, w[4]);
            }
            break;
        default:
            break;
        }
        w += hs__list_words(lt);
    }
    return p;
}

/* Words per list item of each kind's lists A and B, one load away from the
 * kind (the encoder's loop waits on the size of each record with lists). */
static uint8_t list_wa[256], list_wb[256];
__attribute__((constructor)) static void list_words_init(void)
{
    for (unsigned k = 0; k < 256; k++) {
        list_wa[k] = (uint8_t)hs__list_words(hs__kinds[k].la);
        list_wb[k] = (uint8_t)hs__list_words(hs__kinds[k].lb);
    }
}

int hs__encode(const uint8_t *raw, size_t raw_len, size_t *off_io, int32_t rank, uint8_t shift,
               uint8_t *s, size_t scap, size_t *slen, uint8_t *t, size_t tcap, size_t *tlen,
               uint32_t *nenc, uint64_t *base)
{
    hs__codec c = { .rank = rank, .shift = shift };
    uint8_t *p = s, *q = t;
    size_t off = *off_io;
    uint32_t n = 0;
    *base = 0;
    while (off < raw_len) {
        if (off + sizeof(hs__rec) > raw_len)
            return HS_EINVAL;
        const hs__rec *r = (const hs__rec *)(raw + off);
        /* The raw buffer was written long ago and is read once, in order:
         * fetch a few records ahead (the encoder waits on memory, not on
         * arithmetic). */
        __builtin_prefetch(raw + off + 8 * sizeof(hs__rec));
        __builtin_prefetch(raw + off + 8 * sizeof(hs__rec) + 64);
        const hs__kind_desc *d = &hs__kinds[r->kind & 0xff];
        if (r->kind > HS_TRACE_KIND_MAX || (!d->name && r->kind != HS__WIRE_OPDONE))
            return HS_EINVAL;
        /* The next record's offset depends on this one's size: keep that
         * chain short for the common record without lists (the branch is
         * predicted, the loads of the next record start at once). */
        size_t rsz = sizeof(hs__rec), worst = HS__ENC_REC_MAX;
        if (r->na | r->nb) {
            unsigned k8 = r->kind & 0xff;
            rsz = sizeof(hs__rec) + 8u * ((size_t)r->na * list_wa[k8] +
                                          (size_t)r->nb * list_wb[k8]);
            if (off + rsz > raw_len)
                return HS_EINVAL;
            worst += (rsz - sizeof(hs__rec)) / 8 * HS__ENC_WORD_MAX;
        }
        if ((size_t)(p - s) + worst > scap || (size_t)(q - t) + HS__ENC_TIME_MAX > tcap) {
            if (n == 0)
                return HS_EINVAL;
            break;
        }
        uint64_t t0 = r->t0 >> shift, t1 = r->t1 >> shift;
        if (n == 0)
            c.prev_t = *base = t0;
        uint64_t dur = t1 > t0 ? t1 - t0 : 0;
        /* The wire level's operations and completions (libhopscope-wire.so
         * writes one or two per UCP operation): the same bytes as the
         * general code below, straight from their fields without its chain
         * of field tests (checked by test_encode_wire_kinds).  An operation
         * with its completion (HS__WIRE_OPDONE) is a wire_op's fields, then
         * the completion's flags, bytes and tag; its time after the
         * duration (units after the operation's end, never negative). */
        if (r->kind == HS_TRACE_WIRE_OP || r->kind == HS_TRACE_WIRE_DONE ||
            r->kind == HS__WIRE_OPDONE) {
            q = hs__put_s(q, (int64_t)(t0 - c.prev_t));
            q = hs__put_u(q, dur);
            c.prev_t = t0 + dur;
            *p++ = (uint8_t)r->kind;
            p = hs__put_u(p, r->flags & HS_TRACE_F_ALL);
            int op = r->kind != HS_TRACE_WIRE_DONE;
            if (op)
                p = hs__put_s(p, r->tag2);
            p = hs__put_u(p, r->bytes);
            p = hs__put_u(p, r->bytes2);
            p = hs__put_s(p, (int64_t)(r->req - c.prev_req));
            c.prev_req = r->req;
            if (r->kind == HS_TRACE_WIRE_OP) {
                p = hs__put_u(p, r->aux);
            } else if (r->kind == HS__WIRE_OPDONE) {
                /* The peer (a 64-bit UUID: ten varint bytes) as a mark: 0
                 * none, 1 the same as the block's last one stored, else 2
                 * and its 8 bytes, little-endian */
                if (r->aux == 0 || r->aux == c.prev_aux) {
                    *p++ = r->aux != 0;
                } else {
                    *p++ = 2;
                    for (int b = 0; b < 8; b++)
                        p[b] = (uint8_t)(r->aux >> (8 * b));
                    p += 8;
                    c.prev_aux = r->aux;
                }
                uint64_t td = r->done_t >> shift;
                q = hs__put_u(q, td > c.prev_t ? td - c.prev_t : 0);
                p = hs__put_u(p, r->done_flags & HS_TRACE_F_ALL);
                p = hs__put_u(p, r->done_bytes);
                p = hs__put_u(p, r->done_stag);
            }
            off += rsz;
            n++;
            continue;
        }
        q = hs__put_s(q, (int64_t)(t0 - c.prev_t));
        q = hs__put_u(q, dur);
        c.prev_t = t0 + dur;
        *p++ = (uint8_t)r->kind;
        p = hs__put_u(p, r->flags & HS_TRACE_F_ALL);
        unsigned f = d->fields;
        /* The two commonest shapes, point-to-point sends and a completion of
         * one request, straight from their fields when every varint is one
         * byte: the same bytes as the general code below, without its chain
         * of field tests and pointer updates (2 of 10.5 ns per Isend+Wait). */
        if ((f & ~HS__F_REQ) == P2P_SEND && !(d->la | d->lb)) {
            uint64_t v0 = r->comm == HS__NOIDX ? 0 : (uint64_t)r->comm + 1;
            uint64_t v1 = hs__zz((int64_t)r->peer - rank), v2 = hs__zz(r->tag), v3 = r->bytes;
            uint64_t v4 = f & HS__F_REQ ? hs__zz((int64_t)(r->req - c.prev_req)) : 0;
            if ((v0 | v1 | v2 | v3 | v4) < 0x80) {
                p[0] = (uint8_t)v0;
                p[1] = (uint8_t)v1;
                p[2] = (uint8_t)v2;
                p[3] = (uint8_t)v3;
                p[4] = (uint8_t)v4;
                p += f & HS__F_REQ ? 5 : 4;
                if (f & HS__F_REQ)
                    c.prev_req = r->req;
                off += rsz;
                n++;
                continue;
            }
        } else if (f == HS__F_REPEAT && d->la == HS__L_COMPL && !d->lb && r->na == 1) {
            const uint64_t *w = (const uint64_t *)(r + 1);
            uint64_t v0 = r->repeat ? r->repeat - 1 : 0;
            uint64_t v1 = hs__zz((int64_t)(w[0] - c.prev_req)), v2 = w[1];
            if ((v0 | v1 | v2) < 0x80 && !(v2 & HS_TRACE_C_STATUS)) {
                p[0] = (uint8_t)v0;
                p[1] = 1;   /* list length */
                p[2] = (uint8_t)v1;
                p[3] = (uint8_t)v2;
                p += 4;
                c.prev_req = w[0];
                off += rsz;
                n++;
                continue;
            }
        }
        if (f & HS__F_COMM)   p = put_idx(p, r->comm);
        if (f & HS__F_COMM2)  p = put_idx(p, r->comm2);
        if (f & HS__F_WIN)    p = put_idx(p, r->win);
        if (f & HS__F_PEER)   p = hs__put_s(p, (int64_t)r->peer - rank);
        if (f & HS__F_TAG)    p = hs__put_s(p, r->tag);
        if (f & HS__F_PEER2)  p = hs__put_s(p, (int64_t)r->peer2 - rank);
        if (f & HS__F_TAG2)   p = hs__put_s(p, r->tag2);
        if (f & HS__F_BYTES)  p = hs__put_u(p, r->bytes);
        if (f & HS__F_BYTES2) p = hs__put_u(p, r->bytes2);
        if (f & HS__F_REQ) {
            p = hs__put_s(p, (int64_t)(r->req - c.prev_req));
            c.prev_req = r->req;
        }
        if (f & HS__F_AUX)    p = hs__put_u(p, r->aux);
        if (f & HS__F_REPEAT) p = hs__put_u(p, r->repeat ? r->repeat - 1 : 0);
        const uint64_t *w = (const uint64_t *)(r + 1);
        if (d->la)
            p = encode_list(&c, d->la, r->na, w, p);
        if (d->lb)
            p = encode_list(&c, d->lb, r->nb, w + (size_t)r->na * hs__list_words(d->la), p);
        off += rsz;
        n++;
    }
    *off_io = off;
    *nenc = n;
    *slen = (size_t)(p - s);
    *tlen = (size_t)(q - t);
    return 0;
}

/* ---- decoding ----------------------------------------------------------- */

typedef struct dec {
    const uint8_t *p, *end;
    const char *why;
} dec;

static int du(dec *d, uint64_t *v, const char *what)
{
    if (hs__get_u(&d->p, d->end, v) != 0) {
        d->why = what;
        return -1;
    }
    return 0;
}
static int ds(dec *d, int64_t *v, const char *what)
{
    uint64_t u;
    if (du(d, &u, what))
        return -1;
    *v = hs__unzz(u);
    return 0;
}
static int didx(dec *d, uint32_t *idx, const char *what)
{
    uint64_t v;
    if (du(d, &v, what))
        return -1;
    if (v > UINT32_MAX) {
        d->why = what;
        return -1;
    }
    *idx = v == 0 ? HS__NOIDX : (uint32_t)(v - 1);
    return 0;
}
/* Ranks are world ranks or the negative specials down to HS_TRACE_ROOT. */
static int drank(dec *d, int32_t self, int32_t *out, const char *what)
{
    int64_t v;
    if (ds(d, &v, what))
        return -1;
    v += self;
    if (v < HS_TRACE_ROOT || v > INT32_MAX) {
        d->why = what;
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}
static int dtag(dec *d, int32_t *out, const char *what)
{
    int64_t v;
    if (ds(d, &v, what))
        return -1;
    if (v < INT32_MIN || v > INT32_MAX) {
        d->why = what;
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static int decode_list(hs__codec *c, dec *d, unsigned lt, uint32_t *n_out,
                       uint64_t **words, size_t *wcap, size_t *wused)
{
    uint64_t n;
    if (du(d, &n, "list length"))
        return -1;
    /* Every item takes at least one byte: a count beyond the payload is a lie
     * and must not drive an allocation. */
    if (n > (uint64_t)(d->end - d->p)) {
        d->why = "list length exceeds the block";
        return -1;
    }
    unsigned wpi = hs__list_words(lt);
    size_t need = *wused + (size_t)n * wpi;
    if (need > *wcap) {
        size_t ncap = *wcap ? *wcap : 64;
        while (ncap < need)
            ncap *= 2;
        uint64_t *nw = realloc(*words, ncap * sizeof **words);
        if (!nw) {
            d->why = "out of memory for a list";
            return -1;
        }
        *words = nw;
        *wcap = ncap;
    }
    uint64_t *w = *words + *wused;
    int64_t prev_rank = -1;
    for (uint64_t i = 0; i < n; i++, w += wpi) {
        int64_t s;
        int32_t r32;
        switch (lt) {
        case HS__L_RANKS:
            if (ds(d, &s, "member rank"))
                return -1;
            s += prev_rank;
            if (s < HS_TRACE_ROOT || s > INT32_MAX) {
                d->why = "member rank";
                return -1;
            }
            prev_rank = s;
            w[0] = (uint64_t)s;
            break;
        case HS__L_BYTES:
            if (du(d, &w[0], "byte count"))
                return -1;
            break;
        case HS__L_PEERBYTES:
            if (drank(d, c->rank, &r32, "peer rank") || du(d, &w[1], "byte count"))
                return -1;
            w[0] = (uint64_t)(int64_t)r32;
            break;
        case HS__L_STARTS:
            if (ds(d, &s, "request id") || du(d, &w[1], "start flags"))
                return -1;
            w[0] = c->prev_req += (uint64_t)s;
            if (w[1] & ~(uint64_t)HS_TRACE_F_ALL) {
                d->why = "start flags";
                return -1;
            }
            break;
        case HS__L_COMPL:
            if (ds(d, &s, "request id") || du(d, &w[1], "completion flags"))
                return -1;
            w[0] = c->prev_req += (uint64_t)s;
            if (w[1] & ~(uint64_t)HS_TRACE_C_ALL) {
                d->why = "completion flags";
                return -1;
            }
            if (w[1] & HS_TRACE_C_STATUS) {
                int32_t t32;
                if (drank(d, c->rank, &r32, "completion source") ||
                    dtag(d, &t32, "completion tag") || du(d, &w[4], "completion bytes"))
                    return -1;
                w[2] = (uint64_t)(int64_t)r32;
                w[3] = (uint64_t)(int64_t)t32;
            } else {
                w[2] = (uint64_t)(int64_t)HS_TRACE_RANK_NONE;
                w[3] = (uint64_t)(int64_t)HS_TRACE_TAG_NONE;
                w[4] = 0;
            }
            break;
        default:
            d->why = "list type";
            return -1;
        }
    }
    *n_out = (uint32_t)n;
    *wused = need;
    return 0;
}

int hs__decode_one(hs__codec *c, const uint8_t *s, size_t slen, size_t *spos,
                   const uint8_t *t, size_t tlen, size_t *tpos, hs__rec *r,
                   uint64_t **words, size_t *wcap, const char **why)
{
    dec d = { s + *spos, s + slen, NULL };
    dec dt = { t + *tpos, t + tlen, NULL };
    memset(r, 0, sizeof *r);
    r->peer = r->peer2 = HS_TRACE_RANK_NONE;
    r->tag = r->tag2 = HS_TRACE_TAG_NONE;
    r->comm = r->comm2 = r->win = HS__NOIDX;
    r->repeat = 1;
    if (d.p >= d.end) {
        *why = "event runs past the end of the block";
        return HS_EFORMAT;
    }
    unsigned kind = *d.p++;
    const hs__kind_desc *k = &hs__kinds[kind == HS__WIRE_OPDONE ? HS_TRACE_WIRE_OP : kind];
    if (!k->name) {
        *why = "unknown event kind";
        return HS_EFORMAT;
    }
    r->kind = (uint16_t)kind;
    uint64_t flags, dur;
    int64_t gap;
    if (ds(&dt, &gap, "time gap") || du(&dt, &dur, "duration")) {
        *why = dt.why;
        return HS_EFORMAT;
    }
    if (du(&d, &flags, "flags"))
        goto bad;
    if (flags & ~(uint64_t)HS_TRACE_F_ALL) {
        d.why = "unknown flag bits";
        goto bad;
    }
    r->flags = (uint32_t)flags;
    r->t0 = c->prev_t + (uint64_t)gap;
    r->t1 = r->t0 + dur;
    c->prev_t = r->t1;
    unsigned f = k->fields;
    if ((f & HS__F_COMM) && didx(&d, &r->comm, "communicator index"))
        goto bad;
    if ((f & HS__F_COMM2) && didx(&d, &r->comm2, "parent communicator index"))
        goto bad;
    if ((f & HS__F_WIN) && didx(&d, &r->win, "window index"))
        goto bad;
    if ((f & HS__F_PEER) && drank(&d, c->rank, &r->peer, "peer rank"))
        goto bad;
    if ((f & HS__F_TAG) && dtag(&d, &r->tag, "tag"))
        goto bad;
    if ((f & HS__F_PEER2) && drank(&d, c->rank, &r->peer2, "second peer rank"))
        goto bad;
    if ((f & HS__F_TAG2) && dtag(&d, &r->tag2, "second tag"))
        goto bad;
    if ((f & HS__F_BYTES) && du(&d, &r->bytes, "byte count"))
        goto bad;
    if ((f & HS__F_BYTES2) && du(&d, &r->bytes2, "second byte count"))
        goto bad;
    if (f & HS__F_REQ) {
        int64_t sd;
        if (ds(&d, &sd, "request id"))
            goto bad;
        r->req = c->prev_req += (uint64_t)sd;
    }
    if (kind == HS__WIRE_OPDONE) {   /* the peer as a mark (hs__encode) */
        if (d.p >= d.end) {
            d.why = "peer mark";
            goto bad;
        }
        uint8_t m = *d.p++;
        if (m == 1 && c->prev_aux) {
            r->aux = c->prev_aux;
        } else if (m == 2 && d.end - d.p >= 8) {
            r->aux = 0;
            for (int b = 0; b < 8; b++)
                r->aux |= (uint64_t)d.p[b] << (8 * b);
            d.p += 8;
            if (!r->aux) {
                d.why = "peer mark";
                goto bad;
            }
            c->prev_aux = r->aux;
        } else if (m != 0) {
            d.why = "peer mark";
            goto bad;
        }
    } else if ((f & HS__F_AUX) && du(&d, &r->aux, "aux value")) {
        goto bad;
    }
    if (f & HS__F_REPEAT) {
        uint64_t rep;
        if (du(&d, &rep, "repeat count"))
            goto bad;
        if (rep >= UINT32_MAX) {
            d.why = "repeat count";
            goto bad;
        }
        r->repeat = (uint32_t)rep + 1;
    }
    size_t wused = 0;
    if (k->la && decode_list(c, &d, k->la, &r->na, words, wcap, &wused))
        goto bad;
    if (k->lb && decode_list(c, &d, k->lb, &r->nb, words, wcap, &wused))
        goto bad;
    if (kind == HS__WIRE_OPDONE) {   /* the completion (fields a wire_op has not) */
        uint64_t dd, df;
        if (du(&dt, &dd, "completion time")) {
            *why = dt.why;
            return HS_EFORMAT;
        }
        if (du(&d, &df, "completion flags") || du(&d, &r->done_bytes, "completion bytes") ||
            du(&d, &r->done_stag, "completion tag"))
            goto bad;
        if (df & ~(uint64_t)HS_TRACE_F_ALL) {
            d.why = "unknown completion flag bits";
            goto bad;
        }
        if (dd > UINT64_MAX - r->t1) {
            d.why = "completion time";
            goto bad;
        }
        r->done_t = r->t1 + dd;
        r->done_flags = (uint16_t)df;
    }
    *spos = (size_t)(d.p - s);
    *tpos = (size_t)(dt.p - t);
    return 0;
bad:
    *why = d.why;
    return HS_EFORMAT;
}

/* ---- blocks ------------------------------------------------------------- */

size_t hs__block_bound(size_t slen, size_t tlen)
{
    /* deflate's worst case for any setting (stored blocks) is well inside
     * len + len/8 + len/64 + 64 per stream; 20 bytes of varint prefix. */
    size_t len = slen + tlen;
    return HS__BLK_HDR_LEN + 20 + len + len / 8 + len / 64 + 128;
}

int hs__deflate_init(z_stream *zs, z_stream *zt, int level, int tlevel)
{
    memset(zs, 0, sizeof *zs);
    memset(zt, 0, sizeof *zt);
    /* windowBits 15 / memLevel 8 (zlib's defaults) for both: repeats of the
     * structure kilobytes apart are found, and a smaller window, though RLE
     * needs only a distance of 1, makes zlib slide it and rescan its hash
     * table every few hundred bytes (measured: 4x slower). */
    /* Raw deflate (negative windowBits): deflate_all adds the zlib header
     * and trailer itself, with a faster Adler-32 than zlib's. */
    if (deflateInit2(zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return HS_ENOMEM;
    /* Level 0 (the default for times) is stored blocks, which
     * hs__block_build writes itself: zlib would clear its 64 KiB hash table
     * at every block for a hash it never uses (about 1 ns per recorded
     * call).  zt then has no state. */
    if (tlevel != 0 && deflateInit2(zt, tlevel, Z_DEFLATED, -15, 8, Z_RLE) != Z_OK) {
        deflateEnd(zs);
        return HS_ENOMEM;
    }
    return 0;
}

void hs__deflate_end(z_stream *zs, z_stream *zt)
{
    deflateEnd(zs);
    if (zt->state)
        deflateEnd(zt);
}

/* ---- Adler-32 ------------------------------------------------------------
 * The zlib stream's trailer.  zlib 1.2's own is a byte-at-a-time loop and
 * took as long as the encoder's varints per event; this one sums 32 bytes
 * per step with SSSE3 (the same blocking as Chromium's zlib: the sums of a
 * run of at most NMAX bytes fit in 32 bits, then both are reduced), and
 * falls back to zlib's where SSSE3 is missing.  Equal to zlib's adler32()
 * for every input (tests/unit/test_trace_format.c). */
#define ADLER_BASE 65521u
#define ADLER_NMAX 5552u

static uint32_t adler_scalar(uint32_t a, uint32_t b, const uint8_t *p, size_t n)
{
    while (n) {
        size_t k = n < ADLER_NMAX ? n : ADLER_NMAX;
        n -= k;
        while (k--) {
            a += *p++;
            b += a;
        }
        a %= ADLER_BASE;
        b %= ADLER_BASE;
    }
    return b << 16 | a;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("ssse3"))) static uint32_t adler_ssse3(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    size_t blocks = n / 32;
    n -= blocks * 32;
    const __m128i tap1 = _mm_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
                                       18, 17);
    const __m128i tap2 = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    const __m128i zero = _mm_setzero_si128(), ones = _mm_set1_epi16(1);
    while (blocks) {
        size_t k = ADLER_NMAX / 32;
        if (k > blocks)
            k = blocks;
        blocks -= k;
        /* ps: sum of a before each block (times 32 below); a itself counts
         * k times. */
        __m128i vps = _mm_set_epi32(0, 0, 0, (int)(a * (uint32_t)k));
        __m128i vb = _mm_set_epi32(0, 0, 0, (int)b);
        __m128i va = zero;
        do {
            __m128i x1 = _mm_loadu_si128((const __m128i *)p);
            __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
            vps = _mm_add_epi32(vps, va);
            va = _mm_add_epi32(va, _mm_sad_epu8(x1, zero));
            vb = _mm_add_epi32(vb, _mm_madd_epi16(_mm_maddubs_epi16(x1, tap1), ones));
            va = _mm_add_epi32(va, _mm_sad_epu8(x2, zero));
            vb = _mm_add_epi32(vb, _mm_madd_epi16(_mm_maddubs_epi16(x2, tap2), ones));
            p += 32;
        } while (--k);
        vb = _mm_add_epi32(vb, _mm_slli_epi32(vps, 5));
        va = _mm_add_epi32(va, _mm_shuffle_epi32(va, _MM_SHUFFLE(1, 0, 3, 2)));
        va = _mm_add_epi32(va, _mm_shuffle_epi32(va, _MM_SHUFFLE(2, 3, 0, 1)));
        vb = _mm_add_epi32(vb, _mm_shuffle_epi32(vb, _MM_SHUFFLE(1, 0, 3, 2)));
        vb = _mm_add_epi32(vb, _mm_shuffle_epi32(vb, _MM_SHUFFLE(2, 3, 0, 1)));
        a = (a + (uint32_t)_mm_cvtsi128_si32(va)) % ADLER_BASE;
        b = (uint32_t)_mm_cvtsi128_si32(vb) % ADLER_BASE;
    }
    return adler_scalar(a, b, p, n);
}
#endif

uint32_t hs__adler32(const uint8_t *p, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int have = -1;
    if (have < 0)
        have = __builtin_cpu_supports("ssse3") ? 1 : 0;
    if (have)
        return adler_ssse3(p, n);
#endif
    return adler_scalar(1, 0, p, n);
}

/* Deflates in[0..n) completely into out (cap bytes) as a zlib stream (RFC
 * 1950: header 78 01, raw deflate from z, big-endian Adler-32 of in);
 * returns the length or 0 on failure (a zlib stream is never 0 bytes).  The
 * header's FLEVEL is always 0 ("fastest"): it is informative only. */
static size_t deflate_all(z_stream *z, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    if (cap < 6 || deflateReset(z) != Z_OK)
        return 0;
    z->next_in = (Bytef *)(uintptr_t)in;
    z->avail_in = (uInt)n;
    z->next_out = out + 2;
    z->avail_out = (uInt)(cap - 6);
    if (deflate(z, Z_FINISH) != Z_STREAM_END)
        return 0;
    size_t len = 2 + (size_t)z->total_out;
    uint32_t ad = hs__adler32(in, n);
    out[0] = 0x78;
    out[1] = 0x01;
    out[len] = (uint8_t)(ad >> 24);
    out[len + 1] = (uint8_t)(ad >> 16);
    out[len + 2] = (uint8_t)(ad >> 8);
    out[len + 3] = (uint8_t)ad;
    return len + 4;
}

/* in[0..n) as a zlib stream of stored deflate blocks (RFC 1951 3.2.4: a
 * byte holding BFINAL and BTYPE 00, LEN and NLEN little-endian, the bytes);
 * returns the length or 0 when cap is too small. */
static size_t stored_all(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t nblk = n ? (n + 65534) / 65535 : 1;
    size_t len = 2 + 5 * nblk + n + 4;
    if (cap < len)
        return 0;
    uint8_t *o = out;
    *o++ = 0x78;
    *o++ = 0x01;
    size_t left = n;
    const uint8_t *p = in;
    do {
        size_t k = left < 65535 ? left : 65535;
        left -= k;
        *o++ = left == 0;               /* BFINAL on the last; BTYPE 00 */
        o[0] = (uint8_t)k;
        o[1] = (uint8_t)(k >> 8);
        o[2] = (uint8_t)~k;
        o[3] = (uint8_t)(~k >> 8);
        o += 4;
        if (k)
            memcpy(o, p, k);
        o += k;
        p += k;
    } while (left);
    uint32_t ad = hs__adler32(in, n);
    o[0] = (uint8_t)(ad >> 24);
    o[1] = (uint8_t)(ad >> 16);
    o[2] = (uint8_t)(ad >> 8);
    o[3] = (uint8_t)ad;
    return len;
}

int hs__block_build(z_stream *zs, z_stream *zt, hs__blk_hdr *h, const uint8_t *s, size_t slen,
                    const uint8_t *t, size_t tlen, uint8_t *out, size_t cap, size_t *out_len)
{
    if (slen + tlen > HS__BLK_MAX_RAW || cap < hs__block_bound(slen, tlen))
        return HS_EINVAL;
    /* The structure's compressed length precedes it; write the stream after
     * a gap big enough for both varints, then close the gap. */
    uint8_t *pay = out + HS__BLK_HDR_LEN;
    const size_t gap = 20;
    size_t sc = deflate_all(zs, s, slen, pay + gap, cap - HS__BLK_HDR_LEN - gap);
    if (!sc)
        return HS_EINVAL;
    uint8_t pre[20], *pe = hs__put_u(hs__put_u(pre, slen), sc);
    size_t pl = (size_t)(pe - pre);
    memmove(pay + pl, pay + gap, sc);
    memcpy(pay, pre, pl);
    size_t tcap = cap - HS__BLK_HDR_LEN - pl - sc;
    size_t tc = zt->state ? deflate_all(zt, t, tlen, pay + pl + sc, tcap)
                          : stored_all(t, tlen, pay + pl + sc, tcap);
    if (!tc)
        return HS_EINVAL;
    size_t comp = pl + sc + tc;
    h->raw_len = (uint32_t)(slen + tlen);
    h->comp_len = (uint32_t)comp;
    h->payload_crc = crc(pay, comp);
    hs__blk_hdr_pack(h, out);
    *out_len = HS__BLK_HDR_LEN + comp;
    return 0;
}

static int inflate_exact(const uint8_t *in, size_t comp_len, uint8_t *out, size_t raw_len)
{
    uLongf dl = (uLongf)raw_len;
    uLong sl = (uLong)comp_len;
    /* uncompress2 needs a non-empty output buffer pointer even for 0 bytes. */
    uint8_t dummy;
    int rc = uncompress2(raw_len ? out : &dummy, &dl, in, &sl);
    if (rc != Z_OK || dl != raw_len || sl != comp_len)
        return HS_EFORMAT;
    return 0;
}

int hs__inflate(const uint8_t *in, size_t comp_len, uint8_t *out, size_t raw_len, size_t *slen)
{
    const uint8_t *p = in, *end = in + comp_len;
    uint64_t sl, sc;
    if (hs__get_u(&p, end, &sl) || hs__get_u(&p, end, &sc) || sl > raw_len ||
        sc > (uint64_t)(end - p))
        return HS_EFORMAT;
    if (inflate_exact(p, (size_t)sc, out, (size_t)sl) ||
        inflate_exact(p + sc, (size_t)(end - p - sc), out + sl, raw_len - (size_t)sl))
        return HS_EFORMAT;
    *slen = (size_t)sl;
    return 0;
}

int hs__write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* ---- clock and end records --------------------------------------------- */

size_t hs__clock_rec_encode(const hs__clock_rec *c, uint8_t *out)
{
    uint8_t *p = out;
    p = hs__put_u(p, c->which);
    p = hs__put_s(p, c->offset_ns);
    p = hs__put_u(p, c->epoch_ns);
    p = hs__put_u(p, c->rtt_ns);
    p = hs__put_u(p, c->local_ns);
    return (size_t)(p - out);
}

int hs__clock_rec_decode(const uint8_t *p, size_t len, hs__clock_rec *c)
{
    dec d = { p, p + len, NULL };
    uint64_t which;
    if (du(&d, &which, "") || ds(&d, &c->offset_ns, "") || du(&d, &c->epoch_ns, "") ||
        du(&d, &c->rtt_ns, "") || du(&d, &c->local_ns, "") || which > 1 || d.p != d.end)
        return HS_EFORMAT;
    c->which = (uint32_t)which;
    return 0;
}

size_t hs__end_rec_encode(const hs__end_rec *e, uint8_t *out)
{
    uint8_t *p = out;
    p = hs__put_u(p, e->reason);
    p = hs__put_u(p, e->code);
    p = hs__put_u(p, e->events);
    p = hs__put_u(p, e->dropped);
    p = hs__put_u(p, e->blocks);
    return (size_t)(p - out);
}

int hs__end_rec_decode(const uint8_t *p, size_t len, hs__end_rec *e)
{
    dec d = { p, p + len, NULL };
    uint64_t reason, code;
    if (du(&d, &reason, "") || du(&d, &code, "") || du(&d, &e->events, "") ||
        du(&d, &e->dropped, "") || du(&d, &e->blocks, "") || d.p != d.end ||
        reason < HS_TRACE_END_FINALIZE || reason > HS_TRACE_END_ERROR || code > UINT32_MAX)
        return HS_EFORMAT;
    e->reason = (uint32_t)reason;
    e->code = (uint32_t)code;
    return 0;
}
