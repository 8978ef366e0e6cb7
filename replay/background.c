/* Background jobs: other users of the machine, on nodes the application
 * does not use.  Their packets load the same links and buffers, but they
 * are never monitored (the application's NICs do not count them) and all
 * their traffic carries the job's own phase ("background alltoall", ...).
 *
 * GPCNeT's congestors (netbench/GPCNET, congestors.c), each a loop that
 * runs until the application ends:
 *   alltoall    pairwise exchange: in step i each rank Sendrecvs SIZE bytes
 *               with rank ^ i (power-of-two jobs) or rank +/- i;
 *   incast      every rank Sends SIZE bytes to rank 0, which Irecvs from
 *               all and Waitalls;
 *   rma_incast  every rank Puts SIZE bytes into rank 0's window, then
 *               flushes (waits for remote completion);
 *   rma_bcast   every rank Gets SIZE bytes from rank 0's window, then
 *               flushes;
 *   mixed       the four at once, the chosen nodes dealt out to them at
 *               random (GPCNeT's default run).
 * SIZE defaults to GPCNeT's 4 KiB (512 doubles).  The nodes are a fraction
 * (default 0.8, GPCNeT's congestor share) of those the application leaves
 * free, drawn with the seed.  Or trace:PATH replays another recorded job,
 * looped, on randomly drawn free nodes. */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BG_TAG 987                /* GPCNeT's congestor tag */
#define BG_DEFAULT_SIZE 4096      /* 512 doubles */
#define BG_DEFAULT_FRAC 0.8       /* GPCNeT's CONGESTOR_NODE_FRAC */

enum { BG_A2A, BG_INCAST, BG_RMA_INCAST, BG_RMA_BCAST, BG_NKINDS };
static const char *const bg_names[BG_NKINDS] = { "alltoall", "incast", "rma_incast", "rma_bcast" };

typedef struct bgspec {
    int kinds[BG_NKINDS];
    int nkinds;
    const char *trace;
    double frac;
    uint64_t size;
    uint32_t ppn;
    uint32_t nodes;     /* absolute count instead of frac (0: use frac) */
} bgspec;

static int parse(const char *spec, bgspec *b, char *tracebuf, size_t tbn, hs_error *err)
{
    memset(b, 0, sizeof *b);
    b->frac = BG_DEFAULT_FRAC;
    b->size = BG_DEFAULT_SIZE;
    b->ppn = 0;
    char buf[1200];
    if (strlen(spec) >= sizeof buf)
        return hs_error_set(err, HS_EINVAL, "background spec too long");
    strcpy(buf, spec);
    char *opts = NULL;
    if (strncmp(buf, "trace:", 6) == 0) {
        /* options, if any, follow the path after a comma with '=' in them */
        char *c = strchr(buf + 6, ',');
        while (c && !strchr(c, '='))
            c = strchr(c + 1, ',');
        if (c) {
            *c = '\0';
            opts = c + 1;
        }
        if (!buf[6])
            return hs_error_set(err, HS_EINVAL, "background 'trace:' needs a path");
        snprintf(tracebuf, tbn, "%s", buf + 6);
        b->trace = tracebuf;
    } else {
        char *colon = strchr(buf, ':');
        if (colon) {
            *colon = '\0';
            opts = colon + 1;
        }
        if (strcmp(buf, "mixed") == 0) {
            for (int k = 0; k < BG_NKINDS; k++)
                b->kinds[b->nkinds++] = k;
        } else {
            char *save = NULL;
            for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
                int k = -1;
                for (int i = 0; i < BG_NKINDS; i++)
                    if (strcmp(t, bg_names[i]) == 0)
                        k = i;
                if (k < 0)
                    return hs_error_set(err, HS_EINVAL, "unknown background '%s' (alltoall, "
                                        "incast, rma_incast, rma_bcast, mixed, trace:PATH)", t);
                b->kinds[b->nkinds++] = k;
                if (b->nkinds == BG_NKINDS)
                    break;
            }
        }
    }
    if (opts) {
        char *save = NULL;
        for (char *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(t, '=');
            if (!eq)
                return hs_error_set(err, HS_EINVAL, "background '%s': '%s' should be key=value",
                                    spec, t);
            *eq = '\0';
            const char *v = eq + 1;
            uint64_t u;
            if (strcmp(t, "frac") == 0) {
                if (hs_parse_double(v, &b->frac) || !(b->frac > 0) || b->frac > 1)
                    return hs_error_set(err, HS_EINVAL, "background frac=%s: a fraction in (0, 1]", v);
            } else if (strcmp(t, "size") == 0) {
                if (hs_parse_size(v, &b->size) || b->size > (1ull << 32))
                    return hs_error_set(err, HS_EINVAL, "background size=%s: bytes", v);
            } else if (strcmp(t, "ppn") == 0) {
                if (hs_parse_u64(v, &u) || u < 1 || u > 1024)
                    return hs_error_set(err, HS_EINVAL, "background ppn=%s: 1..1024", v);
                b->ppn = (uint32_t)u;
            } else if (strcmp(t, "nodes") == 0) {
                if (hs_parse_u64(v, &u) || u < 1 || u > UINT32_MAX)
                    return hs_error_set(err, HS_EINVAL, "background nodes=%s: a node count", v);
                b->nodes = (uint32_t)u;
            } else {
                return hs_error_set(err, HS_EINVAL, "background: unknown option '%s' (frac, "
                                    "size, ppn, nodes)", t);
            }
        }
    }
    if (!b->trace && b->nkinds == 0)
        return hs_error_set(err, HS_EINVAL, "empty background spec");
    return 0;
}

/* ---- congestor programs ------------------------------------------------------------- */

static int op(rp *R, unsigned code, rp_op **o)
{
    int rc = hs__rp_op_new(R, o);
    if (!rc)
        (*o)->code = (uint8_t)code;
    return rc;
}

static int is_pof2(uint32_t n)
{
    return n && !(n & (n - 1));
}

/* Program of rank r of a congestor job of n ranks; returns its slot count. */
static int program(rp *R, int kind, const rp_job *J, uint32_t win, uint32_t r, uint32_t n,
                   uint64_t size, uint32_t *nslots)
{
    rp_op *o;
    int rc = 0;
    *nslots = 0;
    switch (kind) {
    case BG_A2A:
        for (uint32_t i = 1; i < n && !rc; i++) {
            uint32_t dst = is_pof2(n) ? r ^ i : (r + i) % n;
            uint32_t src = is_pof2(n) ? r ^ i : (r + n - i) % n;
            if ((rc = op(R, OP_SENDRECV, &o)))
                break;
            o->kind = HS_TRACE_SENDRECV;
            o->comm = J->world;
            o->peer = (int32_t)dst;
            o->tag = BG_TAG;
            o->bytes = size;
            o->peer2 = (int32_t)src;
            o->tag2 = BG_TAG;
            o->bytes2 = size;
        }
        break;
    case BG_INCAST:
        if (r == 0) {
            for (uint32_t i = 1; i < n && !rc; i++) {
                if ((rc = op(R, OP_IRECV, &o)))
                    break;
                o->kind = HS_TRACE_IRECV;
                o->comm = J->world;
                o->peer = (int32_t)i;
                o->tag = BG_TAG;
                o->bytes = size;
                o->slot = i - 1;
            }
            uint32_t off;
            if (!rc && !(rc = hs__rp_aux_new(R, n - 1, &off)) && !(rc = op(R, OP_WAIT, &o))) {
                for (uint32_t i = 0; i + 1 < n; i++)
                    R->aux[off + i] = i;
                o->kind = HS_TRACE_WAITALL;
                o->aux = off;
                o->naux = n - 1;
            }
            *nslots = n - 1;
        } else if (!(rc = op(R, OP_SEND, &o))) {
            o->kind = HS_TRACE_SEND;
            o->comm = J->world;
            o->peer = 0;
            o->tag = BG_TAG;
            o->bytes = size;
        }
        break;
    case BG_RMA_INCAST:
    case BG_RMA_BCAST:
        if (r == 0)
            break;   /* the target takes no part: it finishes at once */
        if ((rc = op(R, OP_RMA, &o)))
            break;
        o->kind = kind == BG_RMA_INCAST ? HS_TRACE_PUT : HS_TRACE_GET;
        o->comm = win;
        o->peer = 0;
        o->tag = kind == BG_RMA_INCAST ? RMA_PUT : RMA_GET;
        o->bytes = kind == BG_RMA_INCAST ? size : 0;
        o->bytes2 = kind == BG_RMA_INCAST ? 0 : size;
        if ((rc = op(R, OP_FLUSH, &o)))
            break;
        o->kind = HS_TRACE_WIN_FLUSH;
        o->comm = win;
        o->peer = 0;
        break;
    }
    if (!rc && !(rc = op(R, OP_END, &o)))
        o->kind = HS_TRACE_FINALIZE;
    return rc;
}

/* A congestor job on the given nodes, ppn ranks each. */
static int add_congestor(rp *R, int kind, const uint32_t *nodes, uint32_t nn, uint32_t ppn,
                         uint64_t size, hs_error *err)
{
    uint32_t n = nn * ppn, job;
    if (n < 2)
        return hs_error_set(err, HS_EINVAL, "background %s: needs at least 2 ranks, got %u",
                            bg_names[kind], n);
    int rc = hs__rp_job_new(R, n, 0, bg_names[kind], &job);
    if (rc)
        return hs_error_set(err, rc, "out of memory");
    uint32_t win = RP_NIL;
    if (kind == BG_RMA_INCAST || kind == BG_RMA_BCAST) {
        if ((rc = hs__rp_win_add(R, job, 1, R->jobs[job].world, &win)))
            return hs_error_set(err, rc, "out of memory");
    }
    R->jobs[job].actor0 = R->nactors;
    R->jobs[job].nactors = n;
    if (hs__rp_grow((void **)&R->actors, &R->capactors, (size_t)R->nactors + n, sizeof *R->actors))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < n; r++) {
        rp_job *J = &R->jobs[job];
        uint32_t g = J->rank0 + r, op0 = (uint32_t)R->nops, nslots;
        if ((rc = program(R, kind, J, win, r, n, size, &nslots)))
            return hs_error_set(err, rc, "out of memory");
        rp_rank *K = &R->ranks[g];
        K->node = nodes[r / ppn];
        K->actor0 = R->nactors;
        K->nactors = 1;
        K->req0 = (uint32_t)R->nreq;
        K->nreq = nslots + 2;
        R->nreq += K->nreq;
        rp_actor *A = &R->actors[R->nactors++];
        memset(A, 0, sizeof *A);
        A->rank = g;
        A->op0 = op0;
        A->pc = op0;
        A->nops = (uint32_t)R->nops - op0;
        A->scratch = nslots;
        A->next = RP_NIL;
    }
    return 0;
}

/* ---- placement -------------------------------------------------------------------------- */

static uint32_t default_trace_ppn(const char *path)
{
    hs_trace_manifest m;
    if (hs_trace_manifest_read(path, &m, NULL))
        return 1;
    uint32_t best = 1;
    if (m.node_mode && strcmp(m.node_mode, "host") != 0 && m.nnodes) {
        uint32_t *cnt = calloc(m.nnodes, sizeof *cnt);
        if (cnt) {
            for (uint32_t r = 0; r < m.nranks; r++)
                if (m.rank_node[r] < m.nnodes && ++cnt[m.rank_node[r]] > best)
                    best = cnt[m.rank_node[r]];
            free(cnt);
        }
    }
    hs_trace_manifest_free(&m);
    return best;
}

int hs__rp_background_check(const char *spec, hs_error *err)
{
    bgspec b;
    char tpath[1200];
    int rc = parse(spec, &b, tpath, sizeof tpath, err);
    if (rc || !b.trace)
        return rc;
    hs_trace_manifest m;
    if ((rc = hs_trace_manifest_read(b.trace, &m, err)))
        return rc;
    hs_trace_manifest_free(&m);
    return 0;
}

int hs__rp_background(rp *R, const char *spec, const uint8_t *used, hs_error *err)
{
    bgspec b;
    char tpath[1200];
    int rc = parse(spec, &b, tpath, sizeof tpath, err);
    if (rc)
        return rc;
    uint32_t nfree = 0;
    for (uint32_t n = 0; n < R->nnodes; n++)
        nfree += !used[n];
    uint32_t *freen = malloc((nfree ? nfree : 1) * sizeof *freen);
    if (!freen)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint32_t n = 0, k = 0; n < R->nnodes; n++)
        if (!used[n])
            freen[k++] = n;
    /* a seeded shuffle of the free nodes: a scattered allocation, like
     * GPCNeT's shuffled node list */
    uint64_t rng[4];
    hs__seed(rng, R->prm->seed ^ 0x626b67ull);   /* "bkg" */
    for (uint32_t i = nfree; i > 1; i--) {
        uint32_t j = (uint32_t)hs__rand_below(rng, i), t = freen[i - 1];
        freen[i - 1] = freen[j];
        freen[j] = t;
    }
    uint32_t take;
    if (b.trace) {
        uint32_t ppn = b.ppn ? b.ppn : default_trace_ppn(b.trace);
        uint32_t first = R->njobs;
        if ((rc = hs__rp_load_trace(R, b.trace, 0, err))) {
            free(freen);
            return rc;
        }
        rp_job *J = &R->jobs[first];
        take = (J->nranks + ppn - 1) / ppn;
        if (take > nfree) {
            free(freen);
            return hs_error_set(err, HS_EINVAL, "background trace %s: %u ranks at %u per node "
                                "need %u nodes; %u are free", b.trace, J->nranks, ppn, take,
                                nfree);
        }
        for (uint32_t r = 0; r < J->nranks; r++)
            R->ranks[J->rank0 + r].node = freen[r / ppn];
    } else {
        uint32_t ppn = b.ppn ? b.ppn : 1;
        take = b.nodes ? b.nodes : (uint32_t)((double)nfree * b.frac);
        if (take > nfree) {
            free(freen);
            return hs_error_set(err, HS_EINVAL, "background: %u nodes asked, %u are free", take,
                                nfree);
        }
        uint32_t k = (uint32_t)b.nkinds;
        if (take < 2 * k) {
            free(freen);
            return hs_error_set(err, HS_EINVAL, "background: %u free nodes chosen for %u "
                                "congestor%s; each needs at least 2 (use a larger machine or "
                                "frac)", take, k, k > 1 ? "s" : "");
        }
        /* deal the chosen nodes out to the congestors in turn */
        uint32_t *mine = malloc((take / k + 1) * sizeof *mine);
        if (!mine) {
            free(freen);
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        for (uint32_t c = 0; c < k && !rc; c++) {
            uint32_t nn = 0;
            for (uint32_t i = c; i < take; i += k)
                mine[nn++] = freen[i];
            rc = add_congestor(R, b.kinds[c], mine, nn, ppn, b.size, err);
        }
        free(mine);
        if (rc) {
            free(freen);
            return rc;
        }
    }
    R->bg_nodes = malloc((take ? take : 1) * sizeof *R->bg_nodes);
    if (!R->bg_nodes) {
        free(freen);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    memcpy(R->bg_nodes, freen, take * sizeof *freen);
    R->nbg_nodes = take;
    free(freen);
    for (uint32_t j = 1; j < R->njobs; j++) {
        R->jobs[j].sample_rate = 0;
        R->jobs[j].bg_phase = hs__rp_phase(R, PH_BG, (int32_t)j);
        if (R->error)
            return hs_error_set(err, R->error, "out of memory");
    }
    return 0;
}
