/* Synthetic traces of standard communication patterns (`hopscope gen`),
 * written through hs_trace_writer so they are read exactly like recorded
 * ones, at scales no single machine can run (16k ranks and more).
 *
 * Each rank's events get plausible times: the computation of an iteration
 * (compute_ns) before its communication, posting calls of POST_NS, blocking
 * completions and collectives of BLOCK_NS.  The replay uses only the gaps
 * between calls (the computation), so the call durations are informative.
 * Monitoring flags follow hs_trace_monitored() with the per-pair message
 * sequence, as the interposer decides them.  One rank file is open at a
 * time, so any number of ranks needs one file descriptor. */
#include "hopscope/replay.h"
#include "../common/rng.h"
#include "hopscope/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POST_NS  100      /* an Isend/Irecv call */
#define BLOCK_NS 1000     /* a Waitall, Send or collective call, as recorded */
#define TAG_HALO 100      /* halo direction d uses tag TAG_HALO + d */
#define TAG_RING_L 81     /* GPCNeT's random-ring tags */
#define TAG_RING_R 82
#define TAG_INCAST 1
#define TAG_PING 7
#define GROUP_COMM_BASE 0x7066336400000000ull  /* pf3d group communicator ids */

int hs_gen_pattern_parse(const char *s, hs_gen_pattern *out)
{
    static const struct { const char *name; hs_gen_pattern p; } t[] = {
        { "halo3d", HS_GEN_HALO3D }, { "pf3d", HS_GEN_PF3D },
        { "canary", HS_GEN_CANARY }, { "incast", HS_GEN_INCAST },
        { "pingpong", HS_GEN_PINGPONG },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(s, t[i].name) == 0) {
            *out = t[i].p;
            return 0;
        }
    return HS_EINVAL;
}

const char *hs_gen_pattern_name(hs_gen_pattern p)
{
    switch (p) {
    case HS_GEN_HALO3D: return "halo3d";
    case HS_GEN_PF3D: return "pf3d";
    case HS_GEN_CANARY: return "canary";
    case HS_GEN_INCAST: return "incast";
    case HS_GEN_PINGPONG: return "pingpong";
    }
    return "unknown";
}

void hs_gen_params_default(hs_gen_params *p, hs_gen_pattern pattern)
{
    memset(p, 0, sizeof *p);
    p->pattern = pattern;
    p->ranks = 64;
    p->iters = 10;
    p->monitor = 1.0;
    p->seed = 1;
    p->ppn = 1;
    p->group = 4;
    p->reduce_size = 8;
    switch (pattern) {
    case HS_GEN_HALO3D:
        p->size = 32768;
        p->compute_ns = 10000;
        break;
    case HS_GEN_PF3D:
        p->size = 16384;
        p->a2a_size = 32768;
        p->compute_ns = 10000;
        break;
    case HS_GEN_CANARY:
        p->size = 8;
        p->compute_ns = 1000;
        break;
    case HS_GEN_INCAST:
        p->size = 4096;
        p->compute_ns = 10000;
        break;
    case HS_GEN_PINGPONG:
        p->ranks = 2;
        p->size = 8;
        p->compute_ns = 0;
        break;
    }
}

/* ---- per-rank state ---------------------------------------------------------- */

/* Message counter per destination (open addressing), for the monitoring
 * sample's per-pair sequence numbers. */
typedef struct pairseq {
    uint32_t *dst;
    uint64_t *seq;
    size_t cap, n;
} pairseq;

typedef struct gen {
    const hs_gen_params *p;
    hs_trace_writer *w;
    uint32_t rank;
    int64_t t;              /* ns: the rank's clock */
    uint64_t next_req;
    pairseq ps;
    hs_error *err;
    /* halo */
    uint32_t dims[3];
    /* scratch for completion lists */
    hs_trace_compl *compl;
    size_t ncompl, capcompl;
} gen;

static int ps_reset(pairseq *ps)
{
    if (!ps->cap) {
        ps->cap = 16;
        ps->dst = malloc(ps->cap * sizeof *ps->dst);
        ps->seq = malloc(ps->cap * sizeof *ps->seq);
        if (!ps->dst || !ps->seq)
            return HS_ENOMEM;
    }
    memset(ps->dst, 0xff, ps->cap * sizeof *ps->dst);
    ps->n = 0;
    return 0;
}

static uint64_t *ps_slot(pairseq *ps, uint32_t dst)
{
    if (2 * (ps->n + 1) > ps->cap) {
        size_t nc = ps->cap * 2;
        uint32_t *nd = malloc(nc * sizeof *nd);
        uint64_t *ns = malloc(nc * sizeof *ns);
        if (!nd || !ns) {
            free(nd);
            free(ns);
            return NULL;
        }
        memset(nd, 0xff, nc * sizeof *nd);
        for (size_t i = 0; i < ps->cap; i++)
            if (ps->dst[i] != UINT32_MAX) {
                size_t j = (ps->dst[i] * 0x9e3779b1u) & (nc - 1);
                while (nd[j] != UINT32_MAX)
                    j = (j + 1) & (nc - 1);
                nd[j] = ps->dst[i];
                ns[j] = ps->seq[i];
            }
        free(ps->dst);
        free(ps->seq);
        ps->dst = nd;
        ps->seq = ns;
        ps->cap = nc;
    }
    size_t j = (dst * 0x9e3779b1u) & (ps->cap - 1);
    while (ps->dst[j] != UINT32_MAX && ps->dst[j] != dst)
        j = (j + 1) & (ps->cap - 1);
    if (ps->dst[j] == UINT32_MAX) {
        ps->dst[j] = dst;
        ps->seq[j] = 0;
        ps->n++;
    }
    return &ps->seq[j];
}

/* The monitoring decision for the next message to dst. */
static int monitored(gen *g, uint32_t dst, uint32_t *flags)
{
    uint64_t *s = ps_slot(&g->ps, dst);
    if (!s)
        return hs_error_set(g->err, HS_ENOMEM, "out of memory");
    if (hs_trace_monitored(g->p->seed, g->p->monitor, g->rank, dst, (*s)++))
        *flags |= HS_TRACE_F_MONITORED;
    return 0;
}

static int put(gen *g, hs_trace_event *ev, int64_t dur)
{
    ev->t_start = g->t;
    ev->t_end = g->t + dur;
    g->t = ev->t_end;
    return hs_trace_writer_event(g->w, ev, g->err);
}

static int compl_add(gen *g, uint64_t req, int recv, int32_t src, int32_t tag, uint64_t bytes)
{
    if (g->ncompl == g->capcompl) {
        size_t nc = g->capcompl ? 2 * g->capcompl : 64;
        hs_trace_compl *n = realloc(g->compl, nc * sizeof *n);
        if (!n)
            return hs_error_set(g->err, HS_ENOMEM, "out of memory");
        g->compl = n;
        g->capcompl = nc;
    }
    hs_trace_compl *c = &g->compl[g->ncompl++];
    memset(c, 0, sizeof *c);
    c->req = req;
    c->flags = recv ? HS_TRACE_C_STATUS : 0;
    c->src = recv ? src : HS_TRACE_RANK_NONE;
    c->tag = recv ? tag : HS_TRACE_TAG_NONE;
    c->bytes = recv ? bytes : 0;
    return 0;
}

static int irecv(gen *g, uint32_t src, int32_t tag, uint64_t bytes, uint64_t comm)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_IRECV);
    ev.comm = comm;
    ev.peer2 = (int32_t)src;
    ev.tag2 = tag;
    ev.bytes2 = bytes;
    ev.req = ++g->next_req;
    int rc = put(g, &ev, POST_NS);
    return rc ? rc : compl_add(g, ev.req, 1, (int32_t)src, tag, bytes);
}

static int isend(gen *g, uint32_t dst, int32_t tag, uint64_t bytes, uint64_t comm)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_ISEND);
    ev.comm = comm;
    ev.peer = (int32_t)dst;
    ev.tag = tag;
    ev.bytes = bytes;
    ev.req = ++g->next_req;
    int rc = monitored(g, dst, &ev.flags);
    if (!rc)
        rc = put(g, &ev, POST_NS);
    return rc ? rc : compl_add(g, ev.req, 0, 0, 0, 0);
}

static int waitall(gen *g)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, HS_TRACE_WAITALL);
    ev.ncompl = (uint32_t)g->ncompl;
    ev.compl = g->compl;
    int rc = put(g, &ev, BLOCK_NS);
    g->ncompl = 0;
    return rc;
}

static int coll(gen *g, int kind, uint64_t comm, uint64_t bytes, uint64_t bytes2)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    ev.comm = comm;
    ev.bytes = bytes;
    ev.bytes2 = bytes2;
    return put(g, &ev, BLOCK_NS);
}

static void compute(gen *g)
{
    g->t += (int64_t)g->p->compute_ns;
}

/* ---- process grids --------------------------------------------------------------- */

/* Balanced factors of n into nd (2 or 3), largest first (like
 * MPI_Dims_create); d[2] is 1 when nd is 2. */
static void dims_create(uint32_t n, int nd, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    uint32_t m = n;
    /* Prime factors, largest first, each given to the smallest dimension. */
    uint32_t f[64], nf = 0;
    for (uint32_t p = 2; (uint64_t)p * p <= m; p++)
        while (m % p == 0) {
            f[nf++] = p;
            m /= p;
        }
    if (m > 1)
        f[nf++] = m;
    for (uint32_t i = nf; i-- > 0;) {
        int s = 0;
        for (int k = 1; k < nd; k++)
            if (d[k] < d[s])
                s = k;
        d[s] *= f[i];
    }
    /* largest first */
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (d[b] > d[a]) {
                uint32_t t = d[a];
                d[a] = d[b];
                d[b] = t;
            }
}

/* Neighbour of rank r in direction dir (0..5: axis dir/2, - then +),
 * periodic; rank = x + d0*(y + d1*z), x fastest, as miniGhost decomposes
 * (mype_x = mype % npx, ...): with d0 ranks per node the x neighbours share
 * a node, and consecutive nodes hold consecutive y rows. */
static uint32_t halo_peer(const uint32_t d[3], uint32_t r, int dir)
{
    uint32_t c[3] = { r % d[0], (r / d[0]) % d[1], r / (d[0] * d[1]) };
    int ax = dir / 2;
    c[ax] = (dir & 1) ? (c[ax] + 1) % d[ax] : (c[ax] + d[ax] - 1) % d[ax];
    return c[0] + d[0] * (c[1] + d[1] * c[2]);
}

/* Neighbour of rank r at offset (dx, dy, dz) in {-1, 0, 1}^3, periodic. */
static uint32_t halo_peer_off(const uint32_t d[3], uint32_t r, int dx, int dy, int dz)
{
    uint32_t c[3] = { r % d[0], (r / d[0]) % d[1], r / (d[0] * d[1]) };
    int o[3] = { dx, dy, dz };
    for (int a = 0; a < 3; a++)
        c[a] = (uint32_t)(((int64_t)c[a] + d[a] + o[a]) % d[a]);
    return c[0] + d[0] * (c[1] + d[1] * c[2]);
}

/* The 26-neighbour halo: offset k (0..26, k = 9(dx+1) + 3(dy+1) + dz+1,
 * 13 the rank itself) carries tag TAG_HALO + k - (k > 13), 100..125; its
 * opposite is 26 - k. */
static int halo26_iteration(gen *g, uint64_t bytes)
{
    int rc = 0;
    for (int k = 0; k < 27 && !rc; k++)
        if (k != 13) {
            int o = 26 - k;
            rc = irecv(g, halo_peer_off(g->dims, g->rank, o / 9 - 1, o / 3 % 3 - 1, o % 3 - 1),
                       TAG_HALO + k - (k > 13), bytes, HS_TRACE_COMM_WORLD);
        }
    for (int k = 0; k < 27 && !rc; k++)
        if (k != 13)
            rc = isend(g, halo_peer_off(g->dims, g->rank, k / 9 - 1, k / 3 % 3 - 1, k % 3 - 1),
                       TAG_HALO + k - (k > 13), bytes, HS_TRACE_COMM_WORLD);
    return rc ? rc : waitall(g);
}

static int halo_iteration(gen *g, uint64_t bytes)
{
    int rc = 0;
    if (g->p->neighbours == 26)
        return halo26_iteration(g, bytes);
    /* 4 neighbours: the x and y directions only (0..3) */
    int nd = g->p->neighbours == 4 ? 4 : 6;
    /* Direction d carries tag TAG_HALO + d: receive it from the neighbour
     * on the opposite side, send it to the neighbour in direction d. */
    for (int d = 0; d < nd && !rc; d++)
        rc = irecv(g, halo_peer(g->dims, g->rank, d ^ 1), TAG_HALO + d, bytes, HS_TRACE_COMM_WORLD);
    for (int d = 0; d < nd && !rc; d++)
        rc = isend(g, halo_peer(g->dims, g->rank, d), TAG_HALO + d, bytes, HS_TRACE_COMM_WORLD);
    return rc ? rc : waitall(g);
}

/* ---- patterns --------------------------------------------------------------------- */

typedef struct ringplan {
    uint32_t *left, *right;   /* [iters * ranks] */
} ringplan;

static int ring_plan(const hs_gen_params *p, ringplan *rp, hs_error *err)
{
    size_t n = (size_t)p->iters * p->ranks;
    rp->left = malloc((n ? n : 1) * sizeof *rp->left);
    rp->right = malloc((n ? n : 1) * sizeof *rp->right);
    uint32_t *perm = malloc((size_t)p->ranks * sizeof *perm);
    if (!rp->left || !rp->right || !perm) {
        free(perm);
        return hs_error_set(err, HS_ENOMEM, "out of memory planning %u random rings", p->iters);
    }
    uint64_t rng[4];
    hs__seed(rng, p->seed ^ 0x72696e67ull);  /* "ring" */
    uint32_t R = p->ranks;
    for (uint32_t it = 0; it < p->iters; it++) {
        for (uint32_t i = 0; i < R; i++)
            perm[i] = i;
        for (uint32_t i = R - 1; i > 0; i--) {
            uint32_t j = (uint32_t)hs__rand_below(rng, (uint64_t)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (uint32_t i = 0; i < R; i++) {
            uint32_t me = perm[i];
            rp->left[(size_t)it * R + me] = perm[(i + R - 1) % R];
            rp->right[(size_t)it * R + me] = perm[(i + 1) % R];
        }
    }
    free(perm);
    return 0;
}

static int gen_rank(gen *g, const ringplan *rp)
{
    const hs_gen_params *p = g->p;
    uint32_t r = g->rank, R = p->ranks;
    hs_trace_event ev;
    int rc;
    g->t = -2000;
    hs_trace_event_init(&ev, HS_TRACE_INIT);
    ev.aux = 0;
    if ((rc = put(g, &ev, 2000)))
        return rc;
    uint64_t gcomm = 0;
    if (p->pattern == HS_GEN_PF3D) {
        uint32_t gs = p->group, first = r / gs * gs, n = first + gs <= R ? gs : R - first;
        int32_t mem[64];
        for (uint32_t i = 0; i < n; i++)
            mem[i] = (int32_t)(first + i);
        gcomm = GROUP_COMM_BASE + r / gs;
        hs_trace_event_init(&ev, HS_TRACE_COMM_CREATE);
        ev.comm = gcomm;
        ev.comm2 = HS_TRACE_COMM_WORLD;
        ev.tag = HS_TRACE_CTOR_SPLIT;
        ev.members = mem;
        ev.nmembers = n;
        if ((rc = put(g, &ev, BLOCK_NS)))
            return rc;
    }
    for (uint32_t it = 0; it < p->iters; it++) {
        compute(g);
        switch (p->pattern) {
        case HS_GEN_HALO3D:
            rc = halo_iteration(g, p->size);
            if (!rc && p->reduce_every && (it + 1) % p->reduce_every == 0)
                rc = coll(g, HS_TRACE_ALLREDUCE, HS_TRACE_COMM_WORLD, p->reduce_size,
                          p->reduce_size);
            break;
        case HS_GEN_PF3D: {
            uint32_t gs = p->group, first = r / gs * gs, n = first + gs <= R ? gs : R - first;
            rc = coll(g, HS_TRACE_ALLTOALL, gcomm, p->a2a_size * n, p->a2a_size * n);
            if (!rc && !p->no_halo)
                rc = halo_iteration(g, p->size);
            if (!rc && p->reduce_every && (it + 1) % p->reduce_every == 0)
                rc = coll(g, HS_TRACE_ALLREDUCE, HS_TRACE_COMM_WORLD, p->reduce_size,
                          p->reduce_size);
            break;
        }
        case HS_GEN_CANARY: {
            uint32_t l = rp->left[(size_t)it * R + r], rr = rp->right[(size_t)it * R + r];
            rc = irecv(g, l, TAG_RING_L, p->size, HS_TRACE_COMM_WORLD);
            if (!rc)
                rc = irecv(g, rr, TAG_RING_R, p->size, HS_TRACE_COMM_WORLD);
            if (!rc)
                rc = isend(g, l, TAG_RING_R, p->size, HS_TRACE_COMM_WORLD);
            if (!rc)
                rc = isend(g, rr, TAG_RING_L, p->size, HS_TRACE_COMM_WORLD);
            if (!rc)
                rc = waitall(g);
            if (!rc)
                rc = coll(g, HS_TRACE_ALLREDUCE, HS_TRACE_COMM_WORLD, p->reduce_size,
                          p->reduce_size);
            break;
        }
        case HS_GEN_PINGPONG: {
            /* rank 2i sends first; the last rank of an odd job sits out */
            uint32_t peer = r ^ 1u;
            if (peer >= R)
                break;
            for (int k = 0; k < 2 && !rc; k++) {
                int sending = (k == 0) == ((r & 1u) == 0);
                hs_trace_event_init(&ev, sending ? HS_TRACE_SEND : HS_TRACE_RECV);
                ev.comm = HS_TRACE_COMM_WORLD;
                ev.tag = ev.tag2 = TAG_PING;
                ev.peer = (int32_t)peer;
                if (sending) {
                    ev.bytes = p->size;
                    rc = monitored(g, peer, &ev.flags);
                } else {
                    ev.peer2 = (int32_t)peer;
                    ev.bytes = ev.bytes2 = p->size;
                }
                if (!rc)
                    rc = put(g, &ev, BLOCK_NS);
            }
            break;
        }
        case HS_GEN_INCAST:
            if (r == p->root) {
                for (uint32_t s = 0; s < R && !rc; s++)
                    if (s != r)
                        rc = irecv(g, s, TAG_INCAST, p->size, HS_TRACE_COMM_WORLD);
                if (!rc)
                    rc = waitall(g);
            } else {
                hs_trace_event_init(&ev, HS_TRACE_SEND);
                ev.comm = HS_TRACE_COMM_WORLD;
                ev.peer = (int32_t)p->root;
                ev.tag = TAG_INCAST;
                ev.bytes = p->size;
                rc = monitored(g, p->root, &ev.flags);
                if (!rc)
                    rc = put(g, &ev, BLOCK_NS);
            }
            break;
        }
        if (rc)
            return rc;
    }
    if (gcomm) {
        hs_trace_event_init(&ev, HS_TRACE_COMM_FREE);
        ev.comm = gcomm;
        if ((rc = put(g, &ev, POST_NS)))
            return rc;
    }
    hs_trace_event_init(&ev, HS_TRACE_FINALIZE);
    return put(g, &ev, BLOCK_NS);
}

static int check(const hs_gen_params *p, hs_error *err)
{
    if (p->ranks < 2)
        return hs_error_set(err, HS_EINVAL, "at least 2 ranks");
    if (p->ranks > (1u << 30))
        return hs_error_set(err, HS_EINVAL, "at most 2^30 ranks");
    if (p->ppn == 0)
        return hs_error_set(err, HS_EINVAL, "ranks per node must be at least 1");
    if (!(p->monitor >= 0 && p->monitor <= 1))
        return hs_error_set(err, HS_EINVAL, "monitored fraction %g: must be in [0, 1]", p->monitor);
    if (p->compute_ns > (1ull << 50) || p->size > (1ull << 40) || p->a2a_size > (1ull << 40))
        return hs_error_set(err, HS_EINVAL, "size or compute time out of range");
    if ((uint64_t)p->iters * (p->compute_ns + 1000000) > (1ull << 61))
        return hs_error_set(err, HS_EINVAL, "iterations x compute time overflow the clock");
    if (p->pattern == HS_GEN_HALO3D || p->pattern == HS_GEN_PF3D) {
        if (p->dims[0] || p->dims[1] || p->dims[2]) {
            uint64_t prod = (uint64_t)p->dims[0] * p->dims[1] * p->dims[2];
            if (prod != p->ranks)
                return hs_error_set(err, HS_EINVAL, "dims %ux%ux%u = %llu, not the %u ranks",
                                    p->dims[0], p->dims[1], p->dims[2],
                                    (unsigned long long)prod, p->ranks);
        }
    }
    if (p->neighbours != 0 && p->neighbours != 4 && p->neighbours != 6 && p->neighbours != 26)
        return hs_error_set(err, HS_EINVAL, "neighbours %u: must be 4, 6 or 26", p->neighbours);
    if (p->no_halo && p->pattern != HS_GEN_PF3D)
        return hs_error_set(err, HS_EINVAL, "no-halo applies to pf3d only");
    if (p->pattern == HS_GEN_PF3D && (p->group < 1 || p->group > 64))
        return hs_error_set(err, HS_EINVAL, "group size %u: must be 1..64", p->group);
    if (p->pattern == HS_GEN_INCAST && p->root >= p->ranks)
        return hs_error_set(err, HS_EINVAL, "root %u: the job has %u ranks", p->root, p->ranks);
    return 0;
}

static int write_manifest(const hs_gen_params *p, const char *dir, hs_error *err)
{
    uint32_t R = p->ranks, N = (uint32_t)(((uint64_t)R + p->ppn - 1) / p->ppn);
    hs_trace_manifest m;
    memset(&m, 0, sizeof m);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "hopscope gen %s --ranks %u --iters %u --size %llu "
             "--compute %lluns --monitor %g --seed %llu --ppn %u",
             hs_gen_pattern_name(p->pattern), R, p->iters, (unsigned long long)p->size,
             (unsigned long long)p->compute_ns, p->monitor, (unsigned long long)p->seed, p->ppn);
    m.version = HS_TRACE_FORMAT_VERSION;
    m.nranks = R;
    m.nnodes = N;
    m.writer = "hopscope " HS_VERSION " (gen)";
    m.mpi_abi = "none";
    m.mpi_library = "hopscope gen (synthetic)";
    m.mpi_version = "3.1";
    m.command = cmd;
    m.start_time = "1970-01-01T00:00:00Z";   /* fixed: same parameters, same bytes */
    m.clock = "ns";
    m.node_mode = "synthetic";
    m.sample_rate = p->monitor;
    m.sample_seed = p->seed;
    m.node_names = malloc((size_t)N * sizeof *m.node_names);
    m.rank_node = malloc((size_t)R * sizeof *m.rank_node);
    char *names = malloc((size_t)N * 16);
    int rc = 0;
    if (!m.node_names || !m.rank_node || !names) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory writing the manifest");
    } else {
        for (uint32_t n = 0; n < N; n++) {
            m.node_names[n] = names + (size_t)n * 16;
            snprintf(m.node_names[n], 16, "vnode%u", n);
        }
        for (uint32_t r = 0; r < R; r++)
            m.rank_node[r] = r / p->ppn;
        rc = hs_trace_manifest_write(dir, &m, err);
    }
    free(names);
    free(m.node_names);
    free(m.rank_node);
    return rc;
}

int hs_gen_write(const hs_gen_params *p, const char *dir, hs_error *err)
{
    int rc = check(p, err);
    if (rc)
        return rc;
    if ((rc = hs_mkdir_p(dir, err)))
        return rc;
    gen g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.err = err;
    if (p->pattern == HS_GEN_HALO3D || p->pattern == HS_GEN_PF3D) {
        if (p->dims[0])
            memcpy(g.dims, p->dims, sizeof g.dims);
        else
            dims_create(p->ranks, p->neighbours == 4 ? 2 : 3, g.dims);
    }
    ringplan rp = { NULL, NULL };
    if (p->pattern == HS_GEN_CANARY && (rc = ring_plan(p, &rp, err)))
        goto out;
    /* The manifest first, as the interposer does: a directory with rank
     * files always says what job they belong to. */
    if ((rc = write_manifest(p, dir, err)))
        goto out;
    for (uint32_t r = 0; r < p->ranks && !rc; r++) {
        g.rank = r;
        g.next_req = 0;
        g.ncompl = 0;
        if ((rc = ps_reset(&g.ps))) {
            hs_error_set(err, rc, "out of memory");
            break;
        }
        if ((rc = hs_trace_writer_open(&g.w, dir, r, p->ranks, err)))
            break;
        rc = gen_rank(&g, &rp);
        int rc2 = hs_trace_writer_close(g.w, rc ? NULL : err);
        g.w = NULL;
        if (!rc)
            rc = rc2;
    }
out:
    free(rp.left);
    free(rp.right);
    free(g.ps.dst);
    free(g.ps.seq);
    free(g.compl);
    return rc;
}
