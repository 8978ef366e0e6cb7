/* OTF2 archives in and out: `hopscope trace import otf2` and `hopscope trace
 * export otf2` (docs/formats.md, "OTF2 archives").
 *
 * The two directions share one model of what an OTF2 archive says about an
 * MPI job: the ranks (the MPI group of type COMM_LOCATIONS: member r is the
 * location of world rank r), their threads (the other locations of the
 * rank's location group), the communicators (their groups, in world ranks)
 * and the RMA windows.  An MPI call is an Enter/Leave pair of a region named
 * after the call ("MPI_Isend"); the records inside it (MpiIsend,
 * MpiCollectiveEnd, ...) give its peers, sizes, communicator and requests.
 * Everything else between the MPI calls is computation, as in a hopscope
 * trace.
 *
 * The importer builds each hopscope event from those records.  The exporter
 * writes the records an OTF2 reader (Vampir, otf2-print) expects, then asks
 * the importer's own code what it would rebuild from them, and writes the
 * fields where that differs from the event (MPI_ANY_SOURCE, the in-band
 * monitoring flag, the per-peer sizes of a v-collective, ...) as attributes
 * named "hopscope::FIELD" on the Enter record.  Other readers ignore them;
 * the importer applies them last.  So export then import gives the same
 * events, and the mapping of plain OTF2 records is exercised by every event
 * of every round trip.
 *
 * Outside input is never trusted: every reference, rank, count and time is
 * checked, and a bad one fails with the archive's name, the location and
 * the reason.  What the OTF2 library itself does with a damaged file is its
 * business; what we found is in docs/formats.md. */
#include "hopscope/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if !HS_HAVE_OTF2

int hs_trace_import_otf2(const char *archive, const char *dir, unsigned flags,
                         hs_otf2_report *rep, hs_error *err)
{
    (void)archive; (void)dir; (void)flags;
    if (rep)
        memset(rep, 0, sizeof *rep);
    return hs_error_set(err, HS_ENOTSUP, "%s", HS_OTF2_MISSING);
}

int hs_trace_export_otf2(const char *dir, const char *archive, hs_otf2_report *rep,
                         hs_error *err)
{
    (void)dir; (void)archive;
    if (rep)
        memset(rep, 0, sizeof *rep);
    return hs_error_set(err, HS_ENOTSUP, "%s", HS_OTF2_MISSING);
}

#else

#include <otf2/otf2.h>

/* Name of the anchor file (and its directory) in an archive we write, as
 * Score-P names it: DIR/traces.otf2, DIR/traces.def, DIR/traces/. */
#define ARCHIVE_NAME "traces"
#define EVT_CHUNK (1u << 20)
#define DEF_CHUNK (4u << 20)
/* Archive properties of an archive hopscope wrote. */
#define PROP_FORMAT "HOPSCOPE::FORMAT"
#define PROP_EPOCH  "HOPSCOPE::EPOCH_TICK"
#define NS_PER_S 1000000000ull
/* Comm and window ids of imported archives that hopscope did not write:
 * the OTF2 reference plus this, so that none is 0 (none), 1 (world) or
 * 2 (self). */
#define ID_BASE 16u
/* Request ids: 0 is a request in OTF2 (Score-P numbers them from 0) and
 * "none" in hopscope, so hopscope's are OTF2's plus one. */
#define HS_REQ(otf2_id) ((otf2_id) + 1)
#define OTF2_REQ(hs_id) ((hs_id) - 1)

/* ---- errors ------------------------------------------------------------------ */

/* What the import and the export contexts share: the archive errors name
 * and the first error, on which the OTF2 callbacks stop. */
typedef struct conv {
    const char *path;
    hs_error *err;
    int rc;
} conv;

/* Records the first error (a later one is dropped: it follows from it);
 * returns the status to pass on. */
static int conv_fail(conv *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int conv_fail(conv *c, int rc, const char *fmt, ...)
{
    if (c->rc)
        return c->rc;
    char m[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    c->rc = rc;
    hs_error_set(c->err, rc, "%s: %s", c->path, m);
    return rc;
}

/* ---- small containers ------------------------------------------------------ */

/* uint64 -> uint64, open addressing (used flags apart, so any key is a key). */
typedef struct umap {
    uint64_t *k, *v;
    uint8_t *used;
    size_t n, cap;
} umap;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int umap_put(umap *m, uint64_t k, uint64_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 64;
        umap o = *m;
        m->k = calloc(nc, sizeof *m->k);
        m->v = calloc(nc, sizeof *m->v);
        m->used = calloc(nc, 1);
        if (!m->k || !m->v || !m->used) {
            free(m->k); free(m->v); free(m->used);
            *m = o;
            return HS_ENOMEM;
        }
        m->cap = nc;
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.used[i])
                umap_put(m, o.k[i], o.v[i]);
        free(o.k); free(o.v); free(o.used);
    }
    size_t i = (size_t)mix64(k) & (m->cap - 1);
    while (m->used[i] && m->k[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i]) {
        m->used[i] = 1;
        m->k[i] = k;
        m->n++;
    }
    m->v[i] = v;
    return 0;
}

static int umap_get(const umap *m, uint64_t k, uint64_t *v)
{
    if (!m->cap)
        return 0;
    size_t i = (size_t)mix64(k) & (m->cap - 1);
    while (m->used[i]) {
        if (m->k[i] == k) {
            if (v)
                *v = m->v[i];
            return 1;
        }
        i = (i + 1) & (m->cap - 1);
    }
    return 0;
}

static void umap_free(umap *m)
{
    free(m->k); free(m->v); free(m->used);
    memset(m, 0, sizeof *m);
}

/* Makes room for element i of *arr (elements of elem bytes, zeroed). */
static int grow(void *arrp, size_t *cap, size_t i, size_t elem)
{
    void **arr = arrp;
    if (i < *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc <= i)
        nc *= 2;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return HS_ENOMEM;
    memset((char *)p + *cap * elem, 0, (nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return 0;
}

/* OTF2 reports its errors through this callback (instead of printing them):
 * the last message is kept for ours. */
static char otf2_msg[512];
static OTF2_ErrorCode otf2_error_cb(void *ud, const char *file, uint64_t line,
                                    const char *func, OTF2_ErrorCode code, const char *fmt,
                                    va_list va)
{
    (void)ud; (void)file; (void)line; (void)func;
    char m[400] = "";
    if (fmt)
        vsnprintf(m, sizeof m, fmt, va);
    const char *name = OTF2_Error_GetName(code);
    if (!name || (name[0] >= '0' && name[0] <= '9'))   /* not one of OTF2's codes */
        name = "";
    snprintf(otf2_msg, sizeof otf2_msg, "%s%s%s", name, name[0] && m[0] ? ": " : "", m);
    return code;
}
static void otf2_quiet(void)
{
    otf2_msg[0] = 0;
    OTF2_Error_RegisterCallback(otf2_error_cb, NULL);
}
static const char *otf2_why(OTF2_ErrorCode code)
{
    return otf2_msg[0] ? otf2_msg : OTF2_Error_GetName(code);
}

/* ---- the shared model: communicators and windows ----------------------------- */

typedef struct mcomm {
    uint64_t id;          /* hopscope id */
    int world, self, inter;
    int32_t *a;           /* members (world ranks); group A of an intercommunicator */
    uint32_t na;
    int32_t *b;           /* group B of an intercommunicator */
    uint32_t nb;
    uint32_t parent;      /* reference, or OTF2_UNDEFINED_COMM */
    /* (world rank, local rank) sorted by world rank, for A and for B */
    int32_t (*ia)[2], (*ib)[2];
} mcomm;

typedef struct mwin {
    uint64_t id;
    uint32_t comm;        /* reference */
} mwin;

typedef struct model {
    uint32_t nranks;
    mcomm *comms;         /* [ncomms], by index */
    size_t ncomms, ccap;
    umap cref;            /* OTF2 comm reference -> index */
    mwin *wins;
    size_t nwins, wcap;
    umap wref;            /* OTF2 window reference -> index */
} model;

static void model_free(model *m)
{
    for (size_t i = 0; i < m->ncomms; i++) {
        free(m->comms[i].a); free(m->comms[i].b);
        free(m->comms[i].ia); free(m->comms[i].ib);
    }
    free(m->comms);
    free(m->wins);
    umap_free(&m->cref);
    umap_free(&m->wref);
    memset(m, 0, sizeof *m);
}

static const mcomm *comm_of(const model *m, uint32_t ref)
{
    uint64_t i;
    return umap_get(&m->cref, ref, &i) ? &m->comms[i] : NULL;
}
static const mwin *win_of(const model *m, uint32_t ref)
{
    uint64_t i;
    return umap_get(&m->wref, ref, &i) ? &m->wins[i] : NULL;
}

static int cmp_pair32(const void *x, const void *y)
{
    const int32_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

static int32_t (*inverse(const int32_t *g, uint32_t n))[2]
{
    int32_t (*v)[2] = malloc(((size_t)n + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        v[i][0] = g[i];
        v[i][1] = (int32_t)i;
    }
    qsort(v, n, sizeof *v, cmp_pair32);
    return v;
}

/* Adds a communicator (ranks already checked to be world ranks). */
static int model_add_comm(model *m, uint32_t ref, const mcomm *c)
{
    if (grow(&m->comms, &m->ccap, m->ncomms, sizeof *m->comms))
        return HS_ENOMEM;
    mcomm *d = &m->comms[m->ncomms];
    *d = *c;
    d->ia = inverse(c->a, c->na);
    d->ib = inverse(c->b, c->nb);
    if (!d->ia || !d->ib || umap_put(&m->cref, ref, m->ncomms)) {
        free(d->ia); free(d->ib);
        return HS_ENOMEM;
    }
    m->ncomms++;
    return 0;
}

static int model_add_win(model *m, uint32_t ref, uint64_t id, uint32_t comm)
{
    if (grow(&m->wins, &m->wcap, m->nwins, sizeof *m->wins) ||
        umap_put(&m->wref, ref, m->nwins))
        return HS_ENOMEM;
    m->wins[m->nwins++] = (mwin){ id, comm };
    return 0;
}

static int in_group(const int32_t (*inv)[2], uint32_t n, int32_t world)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (inv[mid][0] == world)
            return inv[mid][1];
        if (inv[mid][0] < world)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The group rank `me` sees as its own (local) and the one its peers are in. */
static void sides(const mcomm *c, uint32_t me, const int32_t **loc, uint32_t *nl,
                  const int32_t **peer, uint32_t *np, const int32_t (**ipeer)[2])
{
    if (c->inter && in_group((const int32_t (*)[2])c->ia, c->na, (int32_t)me) < 0) {
        *loc = c->b; *nl = c->nb; *peer = c->a; *np = c->na;
        *ipeer = (const int32_t (*)[2])c->ia;
    } else {
        *loc = c->a; *nl = c->na;
        *peer = c->inter ? c->b : c->a;
        *np = c->inter ? c->nb : c->na;
        *ipeer = (const int32_t (*)[2])(c->inter ? c->ib : c->ia);
    }
}

/* World rank of rank `local` of communicator c, as rank `me` addresses it:
 * -1 when c has no such rank. */
static int32_t to_world(const mcomm *c, uint32_t me, uint32_t local)
{
    if (c->self)
        return local == 0 ? (int32_t)me : -1;
    if (c->world)
        return local < c->na ? (int32_t)local : -1;
    const int32_t *l, *p, (*ip)[2];
    uint32_t nl, np;
    sides(c, me, &l, &nl, &p, &np, &ip);
    return local < np ? p[local] : -1;
}

/* Rank of world rank w in communicator c as `me` addresses it, or -1. */
static int32_t to_local(const mcomm *c, uint32_t me, int32_t w)
{
    if (w < 0)
        return -1;
    if (c->self)
        return w == (int32_t)me ? 0 : -1;
    if (c->world)
        return (uint32_t)w < c->na ? w : -1;
    const int32_t *l, *p, (*ip)[2];
    uint32_t nl, np;
    sides(c, me, &l, &nl, &p, &np, &ip);
    return in_group(ip, np, w);
}

/* ---- events under construction (both directions) ----------------------------- */

/* Fields an event's attributes (or records) have set. */
enum {
    S_FLAGS = 1u << 0, S_REPEAT = 1u << 1, S_AUX = 1u << 2, S_REQ = 1u << 3,
    S_COMM = 1u << 4, S_COMM2 = 1u << 5, S_WIN = 1u << 6, S_PEER = 1u << 7,
    S_TAG = 1u << 8, S_PEER2 = 1u << 9, S_TAG2 = 1u << 10, S_BYTES = 1u << 11,
    S_BYTES2 = 1u << 12, S_LISTS = 1u << 13
};

typedef struct iev {
    hs_trace_event ev;
    uint32_t aset;          /* S_* set by attributes (win over records) */
    uint32_t seq;           /* order within the rank's reading, for a stable sort */
    int was_start;          /* an MPI_Start/Startall (see start_target) */
    uint32_t cref, cref2, wref; /* OTF2 references of comm, parent, window (or UNDEF) */
    /* attribute values read at the Enter, applied at the Leave (after the
     * records, which they override) */
    uint32_t pa_u32[2];     /* flags, repeat */
    uint64_t pa_u64[4];     /* aux, req, bytes, bytes2 */
    int32_t  pa_i32[4];     /* peer, tag, peer2, tag2 */
    uint32_t pa_comm, pa_comm2, pa_win;
    const char *pa_lists;
    hs_trace_compl *compl;
    uint32_t ncompl, ccap;
    hs_trace_start *starts;
    uint32_t nstarts;
    hs_trace_peer *sendto, *recvfrom;
    uint32_t nsendto, nrecvfrom;
    int32_t *members, *remote;
    uint32_t nmembers, nremote;
} iev;

static void iev_free(iev *e)
{
    free(e->compl); free(e->starts); free(e->sendto); free(e->recvfrom);
    free(e->members); free(e->remote);
    memset(e, 0, sizeof *e);
}

static void iev_init(iev *e, int kind)
{
    memset(e, 0, sizeof *e);
    hs_trace_event_init(&e->ev, kind);
    e->cref = e->cref2 = OTF2_UNDEFINED_COMM;
    e->wref = OTF2_UNDEFINED_RMA_WIN;
}

static int add_compl(iev *e, uint64_t req, uint32_t flags, int32_t src, int32_t tag,
                     uint64_t bytes)
{
    size_t cap = e->ccap;
    if (grow(&e->compl, &cap, e->ncompl, sizeof *e->compl))
        return HS_ENOMEM;
    e->ccap = (uint32_t)cap;
    e->compl[e->ncompl++] = (hs_trace_compl){ req, flags, src, tag, bytes };
    return 0;
}

static int copy_ranks(int32_t **dst, uint32_t *nd, const int32_t *src, uint32_t n)
{
    free(*dst);
    *dst = malloc(((size_t)n + 1) * sizeof **dst);
    if (!*dst)
        return HS_ENOMEM;
    if (n)
        memcpy(*dst, src, n * sizeof **dst);
    *nd = n;
    return 0;
}

/* ---- region names <-> kinds ----------------------------------------------- */

static const struct { const char *name; int kind, ctor; } special[] = {
    { "MPI_Init", HS_TRACE_INIT, 0 },
    { "MPI_Init_thread", HS_TRACE_INIT, 0 },
    { "MPI_Comm_dup", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_DUP },
    { "MPI_Comm_dup_with_info", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_DUP },
    { "MPI_Comm_idup", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_IDUP },
    { "MPI_Comm_idup_with_info", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_IDUP },
    { "MPI_Comm_split", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_SPLIT },
    { "MPI_Comm_split_type", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_SPLIT_TYPE },
    { "MPI_Comm_create", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_CREATE },
    { "MPI_Comm_create_group", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_CREATE_GROUP },
    { "MPI_Cart_create", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_CART_CREATE },
    { "MPI_Cart_sub", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_CART_SUB },
    { "MPI_Graph_create", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_GRAPH_CREATE },
    { "MPI_Dist_graph_create", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_DIST_GRAPH_CREATE },
    { "MPI_Dist_graph_create_adjacent", HS_TRACE_COMM_CREATE,
      HS_TRACE_CTOR_DIST_GRAPH_CREATE_ADJACENT },
    { "MPI_Intercomm_create", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_INTERCOMM_CREATE },
    { "MPI_Intercomm_merge", HS_TRACE_COMM_CREATE, HS_TRACE_CTOR_INTERCOMM_MERGE },
    { "MPI_Win_create", HS_TRACE_WIN_CREATE, HS_TRACE_WCTOR_CREATE },
    { "MPI_Win_allocate", HS_TRACE_WIN_CREATE, HS_TRACE_WCTOR_ALLOCATE },
    { "MPI_Win_allocate_shared", HS_TRACE_WIN_CREATE, HS_TRACE_WCTOR_ALLOCATE_SHARED },
    { "MPI_Win_create_dynamic", HS_TRACE_WIN_CREATE, HS_TRACE_WCTOR_CREATE_DYNAMIC },
};

/* Kind of the MPI call a region is named after (and the constructor of a
 * communicator or window), or 0: not an MPI call hopscope records.  Large-
 * count variants ("MPI_Send_c") set *large. */
static int region_kind(const char *name, int *ctor, int *large)
{
    *ctor = 0;
    *large = 0;
    if (!name || strncmp(name, "MPI_", 4) != 0)
        return 0;
    char buf[64];
    size_t n = strlen(name);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, name, n + 1);
    if (n > 6 && strcmp(buf + n - 2, "_c") == 0) {
        buf[n - 2] = 0;
        *large = 1;
    }
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (strcmp(buf, special[i].name) == 0) {
            *ctor = special[i].ctor;
            return special[i].kind;
        }
    for (char *p = buf + 4; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    int k = hs_trace_kind_from_name(buf + 4);
    if (k <= 0 || k == HS_TRACE_COMM_CREATE || k == HS_TRACE_WIN_CREATE || k == HS_TRACE_INIT)
        return 0;
    return k;
}

/* The region name of an event: "MPI_" and the call's name as MPI spells it. */
static void region_name(int kind, int ctor, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (special[i].kind == kind && (kind == HS_TRACE_INIT || special[i].ctor == ctor)) {
            snprintf(buf, n, "%s", special[i].name);
            return;
        }
    if (kind == HS_TRACE_COMM_CREATE) {
        snprintf(buf, n, "MPI_Comm_create");
        return;
    }
    if (kind == HS_TRACE_WIN_CREATE) {
        snprintf(buf, n, "MPI_Win_create");
        return;
    }
    const char *k = hs_trace_kind_name(kind);
    snprintf(buf, n, "MPI_%s", k ? k : "unknown");
    if (buf[4] >= 'a' && buf[4] <= 'z')
        buf[4] = (char)(buf[4] - 'a' + 'A');
}

static OTF2_RegionRole region_role(int kind)
{
    int base;
    if (hs_trace_kind_is_coll(kind, &base)) {
        switch (base) {
        case HS_TRACE_BARRIER: return OTF2_REGION_ROLE_BARRIER;
        case HS_TRACE_BCAST: case HS_TRACE_SCATTER: case HS_TRACE_SCATTERV:
            return OTF2_REGION_ROLE_COLL_ONE2ALL;
        case HS_TRACE_GATHER: case HS_TRACE_GATHERV: case HS_TRACE_REDUCE:
            return OTF2_REGION_ROLE_COLL_ALL2ONE;
        case HS_TRACE_SCAN: case HS_TRACE_EXSCAN: return OTF2_REGION_ROLE_COLL_OTHER;
        default: return OTF2_REGION_ROLE_COLL_ALL2ALL;
        }
    }
    switch (hs_trace_kind_class(kind)) {
    case HS_TRACE_CLASS_P2P: case HS_TRACE_CLASS_COMPLETION:
        return OTF2_REGION_ROLE_POINT2POINT;
    case HS_TRACE_CLASS_RMA: return OTF2_REGION_ROLE_RMA;
    default: return OTF2_REGION_ROLE_FUNCTION;
    }
}

/* OTF2's collective operation of a blocking kind, or -1 (the neighbourhood
 * collectives have none). */
static int coll_op(int base)
{
    switch (base) {
    case HS_TRACE_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
    case HS_TRACE_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
    case HS_TRACE_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
    case HS_TRACE_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
    case HS_TRACE_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
    case HS_TRACE_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
    case HS_TRACE_ALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case HS_TRACE_ALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
    case HS_TRACE_ALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case HS_TRACE_ALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
    case HS_TRACE_ALLTOALLW: return OTF2_COLLECTIVE_OP_ALLTOALLW;
    case HS_TRACE_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
    case HS_TRACE_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case HS_TRACE_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case HS_TRACE_REDUCE_SCATTER_BLOCK: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
    case HS_TRACE_SCAN: return OTF2_COLLECTIVE_OP_SCAN;
    case HS_TRACE_EXSCAN: return OTF2_COLLECTIVE_OP_EXSCAN;
    default: return -1;
    }
}

static int is_send_kind(int k)
{
    return k >= HS_TRACE_SEND && k <= HS_TRACE_IRSEND;
}
static int is_sendrecv_kind(int k)
{
    return k == HS_TRACE_SENDRECV || k == HS_TRACE_SENDRECV_REPLACE ||
           k == HS_TRACE_ISENDRECV || k == HS_TRACE_ISENDRECV_REPLACE;
}

/* ---- applying records to the event of the enclosing MPI call -----------------
 * The same functions rebuild an event on import and predict, on export, what
 * an import will rebuild.  Each returns 0, or a negative status with *why
 * set for a record that does not fit the archive's definitions. */

typedef struct actx {
    const model *m;
    uint32_t me;            /* world rank */
    const char *why;        /* reason of the last refusal */
    char whybuf[160];
} actx;

static int refuse(actx *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(actx *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->whybuf, sizeof a->whybuf, fmt, ap);
    va_end(ap);
    a->why = a->whybuf;
    return HS_EFORMAT;
}

static int peer_of(actx *a, uint32_t cref, uint32_t local, const mcomm **cp, int32_t *w)
{
    const mcomm *c = comm_of(a->m, cref);
    if (!c)
        return refuse(a, "undefined communicator %u", cref);
    *cp = c;
    *w = to_world(c, a->me, local);
    if (*w < 0)
        return refuse(a, "rank %u is not in communicator %u (%u ranks)", local, cref,
                      c->inter ? c->nb : c->na);
    return 0;
}

static int ap_send(actx *a, iev *e, uint32_t dst, uint32_t cref, uint32_t tag, uint64_t len,
                   const uint64_t *req)
{
    int k = e->ev.kind, rc;
    if (!is_send_kind(k) && !is_sendrecv_kind(k))
        return 0;
    const mcomm *c;
    int32_t w;
    if ((rc = peer_of(a, cref, dst, &c, &w)))
        return rc;
    if (tag > INT32_MAX)
        return refuse(a, "message tag %u beyond MPI's range", tag);
    e->ev.comm = c->id;
    e->cref = cref;
    e->ev.peer = w;
    e->ev.tag = (int32_t)tag;
    e->ev.bytes = len;
    if (req)
        e->ev.req = *req;
    return 0;
}

static int ap_recv(actx *a, iev *e, uint32_t src, uint32_t cref, uint32_t tag, uint64_t len)
{
    int k = e->ev.kind, rc;
    if (k != HS_TRACE_RECV && k != HS_TRACE_MRECV && !is_sendrecv_kind(k))
        return 0;
    const mcomm *c;
    int32_t w;
    if ((rc = peer_of(a, cref, src, &c, &w)))
        return rc;
    if (tag > INT32_MAX)
        return refuse(a, "message tag %u beyond MPI's range", tag);
    e->ev.comm = c->id;
    e->cref = cref;
    if (is_sendrecv_kind(k)) {
        e->ev.peer2 = w;
        e->ev.tag2 = (int32_t)tag;
        e->ev.bytes2 = len;
    } else {
        e->ev.peer = w;
        e->ev.tag = (int32_t)tag;
        e->ev.bytes = len;
    }
    return 0;
}

/* Defaults for what OTF2 does not record: the posted source and tag of a
 * blocking receive are its matched ones, its buffer as large as the message. */
static void ap_defaults(iev *e)
{
    if ((e->ev.kind == HS_TRACE_RECV || e->ev.kind == HS_TRACE_MRECV) && e->ev.peer >= 0) {
        if (e->ev.kind == HS_TRACE_RECV && e->ev.peer2 == HS_TRACE_RANK_NONE)
            e->ev.peer2 = e->ev.peer;
        if (e->ev.kind == HS_TRACE_RECV && e->ev.tag2 == HS_TRACE_TAG_NONE)
            e->ev.tag2 = e->ev.tag;
        if (e->ev.bytes2 == 0)
            e->ev.bytes2 = e->ev.bytes;
    }
}

static int ap_coll_end(actx *a, iev *e, uint32_t cref, uint32_t root, uint64_t sent,
                       uint64_t recvd)
{
    int base;
    if (!hs_trace_kind_is_coll(e->ev.kind, &base))
        return 0;
    const mcomm *c = comm_of(a->m, cref);
    if (!c)
        return refuse(a, "undefined communicator %u", cref);
    e->ev.comm = c->id;
    e->cref = cref;
    if (root != OTF2_UNDEFINED_UINT32) {
        int32_t w = to_world(c, a->me, root);
        if (w < 0)
            return refuse(a, "root %u is not in communicator %u", root, cref);
        e->ev.peer = w;
    }
    e->ev.bytes = sent;
    e->ev.bytes2 = recvd;
    return 0;
}

static int ap_comm_create(actx *a, iev *e, uint32_t cref)
{
    const mcomm *c = comm_of(a->m, cref);
    if (!c)
        return refuse(a, "undefined communicator %u", cref);
    if (e->ev.kind == HS_TRACE_COMM_FREE) {
        e->ev.comm = c->id;
        e->cref = cref;
        return 0;
    }
    if (e->ev.kind != HS_TRACE_COMM_CREATE)
        return 0;
    if (c->world || c->self)
        return refuse(a, "CommCreate of %s", c->world ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    const int32_t *l, *p, (*ip)[2];
    uint32_t nl, np;
    sides(c, a->me, &l, &nl, &p, &np, &ip);
    if (!c->inter && in_group(ip, np, (int32_t)a->me) < 0)
        return refuse(a, "rank %u creates communicator %u it is not a member of", a->me,
                      cref);
    e->ev.comm = c->id;
    e->cref = cref;
    const mcomm *pc = c->parent != OTF2_UNDEFINED_COMM ? comm_of(a->m, c->parent) : NULL;
    e->ev.comm2 = pc ? pc->id : HS_TRACE_COMM_WORLD;
    e->cref2 = pc ? c->parent : OTF2_UNDEFINED_COMM;
    if (copy_ranks(&e->members, &e->nmembers, l, nl) ||
        (c->inter && copy_ranks(&e->remote, &e->nremote, p, np)))
        return HS_ENOMEM;
    return 0;
}

static int ap_win(actx *a, iev *e, uint32_t wref)
{
    const mwin *w = win_of(a->m, wref);
    if (!w)
        return refuse(a, "undefined RMA window %u", wref);
    e->ev.win = w->id;
    e->wref = wref;
    if (e->ev.kind == HS_TRACE_WIN_CREATE) {
        const mcomm *c = comm_of(a->m, w->comm);
        if (!c)
            return refuse(a, "window %u on undefined communicator %u", wref, w->comm);
        e->ev.comm = c->id;
        e->cref = w->comm;
    }
    return 0;
}

static int ap_rma(actx *a, iev *e, uint32_t wref, uint32_t remote, uint64_t sent,
                  uint64_t got)
{
    if (hs_trace_kind_class(e->ev.kind) != HS_TRACE_CLASS_RMA)
        return 0;
    int rc = ap_win(a, e, wref);
    if (rc)
        return rc;
    const mwin *w = win_of(a->m, wref);
    const mcomm *c;
    int32_t wr;
    if ((rc = peer_of(a, w->comm, remote, &c, &wr)))
        return rc;
    e->ev.peer = wr;
    e->ev.bytes = sent;
    e->ev.bytes2 = got;
    return 0;
}

/* A window synchronisation (fence, lock, flush, ...): its window, and the
 * target of the calls that have one. */
static int rma_sync_has_peer(int k)
{
    return k == HS_TRACE_WIN_LOCK || k == HS_TRACE_WIN_UNLOCK || k == HS_TRACE_WIN_FLUSH ||
           k == HS_TRACE_WIN_FLUSH_LOCAL;
}

static int ap_rma_sync(actx *a, iev *e, uint32_t wref, uint32_t remote)
{
    int k = e->ev.kind;
    if (hs_trace_kind_class(k) != HS_TRACE_CLASS_RMA || k < HS_TRACE_WIN_FENCE)
        return 0;
    int rc = ap_win(a, e, wref);
    if (rc || remote == OTF2_UNDEFINED_UINT32 || !rma_sync_has_peer(k))
        return rc;
    const mwin *w = win_of(a->m, wref);
    const mcomm *c;
    int32_t wr;
    if ((rc = peer_of(a, w->comm, remote, &c, &wr)))
        return rc;
    e->ev.peer = wr;
    return 0;
}

/* ---- the lists attribute ----------------------------------------------------
 * One string, sections "X=item,item,..." separated by ';', fields of an item
 * by ':'.  c: completions req:flags:src:tag:bytes; t: starts req:flags;
 * s / r: sendto / recvfrom rank:bytes; m / x: members / remote rank.  A
 * section present replaces that list. */

static int put_lists(char **out, const hs_trace_event *ev, uint32_t which)
{
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    if (!s)
        return HS_ENOMEM;
    s[0] = 0;
#define PUT(...) do { \
        int need_ = snprintf(NULL, 0, __VA_ARGS__); \
        while (n + (size_t)need_ + 1 > cap) { \
            char *ns_ = realloc(s, cap *= 2); \
            if (!ns_) { free(s); return HS_ENOMEM; } \
            s = ns_; \
        } \
        n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__); \
    } while (0)
    if (which & 1) {
        PUT("%sc=", n ? ";" : "");
        for (uint32_t i = 0; i < ev->ncompl; i++)
            PUT("%s%" PRIu64 ":%u:%d:%d:%" PRIu64, i ? "," : "", ev->compl[i].req,
                ev->compl[i].flags, ev->compl[i].src, ev->compl[i].tag, ev->compl[i].bytes);
    }
    if (which & 2) {
        PUT("%st=", n ? ";" : "");
        for (uint32_t i = 0; i < ev->nstarts; i++)
            PUT("%s%" PRIu64 ":%u", i ? "," : "", ev->starts[i].req, ev->starts[i].flags);
    }
    for (int k = 0; k < 2; k++)
        if (which & (4u << k)) {
            const hs_trace_peer *p = k ? ev->recvfrom : ev->sendto;
            uint32_t np = k ? ev->nrecvfrom : ev->nsendto;
            PUT("%s%c=", n ? ";" : "", k ? 'r' : 's');
            for (uint32_t i = 0; i < np; i++)
                PUT("%s%d:%" PRIu64, i ? "," : "", p[i].rank, p[i].bytes);
        }
    for (int k = 0; k < 2; k++)
        if (which & (16u << k)) {
            const int32_t *p = k ? ev->remote : ev->members;
            uint32_t np = k ? ev->nremote : ev->nmembers;
            PUT("%s%c=", n ? ";" : "", k ? 'x' : 'm');
            for (uint32_t i = 0; i < np; i++)
                PUT("%s%d", i ? "," : "", p[i]);
        }
#undef PUT
    *out = s;
    return 0;
}

/* Strict parsers of the lists attribute (outside input). */
static int lx_num(const char **p, int sign, int64_t lo, uint64_t hi, uint64_t *u, int64_t *v)
{
    const char *s = *p;
    int neg = 0;
    if (sign && *s == '-') {
        neg = 1;
        s++;
    }
    if (*s < '0' || *s > '9')
        return -1;
    uint64_t x = 0;
    while (*s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s++ - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    if (neg) {
        if (x > (uint64_t)INT64_MAX || -(int64_t)x < lo)
            return -1;
        *v = -(int64_t)x;
    } else {
        if (x > hi)
            return -1;
        if (u)
            *u = x;
        if (v)
            *v = (int64_t)x;
    }
    *p = s;
    return 0;
}

static int lx_i32(const char **p, int32_t *out)
{
    int64_t v = 0;
    if (lx_num(p, 1, INT32_MIN, INT32_MAX, NULL, &v))
        return -1;
    *out = (int32_t)v;
    return 0;
}
static int lx_u64(const char **p, uint64_t *out)
{
    return lx_num(p, 0, 0, UINT64_MAX, out, NULL);
}
static int lx_u32(const char **p, uint32_t *out)
{
    uint64_t v;
    if (lx_num(p, 0, 0, UINT32_MAX, &v, NULL))
        return -1;
    *out = (uint32_t)v;
    return 0;
}
static int lx_ch(const char **p, char c)
{
    if (**p != c)
        return -1;
    (*p)++;
    return 0;
}

/* Counts the items of a section (up to ';' or the end). */
static uint32_t lx_items(const char *s)
{
    if (!*s || *s == ';')
        return 0;
    uint32_t n = 1;
    for (; *s && *s != ';'; s++)
        n += *s == ',';
    return n;
}

static int get_lists(iev *e, const char *s)
{
    int seen = 0;
    while (*s) {
        char sec = *s++;
        if (lx_ch(&s, '='))
            return -1;
        int bit = sec == 'c' ? 1 : sec == 't' ? 2 : sec == 's' ? 4 : sec == 'r' ? 8 :
                  sec == 'm' ? 16 : sec == 'x' ? 32 : 0;
        if (!bit || (seen & bit))
            return -1;
        seen |= bit;
        uint32_t n = lx_items(s);
        for (uint32_t i = 0; i < n; i++) {
            if (i && lx_ch(&s, ','))
                return -1;
            if (sec == 'c') {
                uint64_t req, bytes;
                uint32_t fl;
                int32_t src, tag;
                if (i == 0)
                    e->ncompl = 0;
                if (lx_u64(&s, &req) || lx_ch(&s, ':') || lx_u32(&s, &fl) ||
                    lx_ch(&s, ':') || lx_i32(&s, &src) || lx_ch(&s, ':') || lx_i32(&s, &tag) ||
                    lx_ch(&s, ':') || lx_u64(&s, &bytes))
                    return -1;
                if (add_compl(e, req, fl, src, tag, bytes))
                    return HS_ENOMEM;
            } else if (sec == 't') {
                if (i == 0) {
                    free(e->starts);
                    e->nstarts = 0;
                    if (!(e->starts = malloc((size_t)n * sizeof *e->starts)))
                        return HS_ENOMEM;
                }
                hs_trace_start *t = &e->starts[e->nstarts++];
                if (lx_u64(&s, &t->req) || lx_ch(&s, ':') || lx_u32(&s, &t->flags))
                    return -1;
            } else if (sec == 's' || sec == 'r') {
                hs_trace_peer **pp = sec == 's' ? &e->sendto : &e->recvfrom;
                uint32_t *np = sec == 's' ? &e->nsendto : &e->nrecvfrom;
                if (i == 0) {
                    free(*pp);
                    *np = 0;
                    if (!(*pp = malloc((size_t)n * sizeof **pp)))
                        return HS_ENOMEM;
                }
                hs_trace_peer *q = &(*pp)[(*np)++];
                if (lx_i32(&s, &q->rank) || lx_ch(&s, ':') || lx_u64(&s, &q->bytes))
                    return -1;
            } else {
                int32_t **pp = sec == 'm' ? &e->members : &e->remote;
                uint32_t *np = sec == 'm' ? &e->nmembers : &e->nremote;
                if (i == 0) {
                    free(*pp);
                    *np = 0;
                    if (!(*pp = malloc((size_t)n * sizeof **pp)))
                        return HS_ENOMEM;
                }
                if (lx_i32(&s, &(*pp)[(*np)++]))
                    return -1;
            }
        }
        if (n == 0) {   /* an empty section empties the list */
            if (sec == 'c') e->ncompl = 0;
            else if (sec == 't') e->nstarts = 0;
            else if (sec == 's') e->nsendto = 0;
            else if (sec == 'r') e->nrecvfrom = 0;
            else if (sec == 'm') e->nmembers = 0;
            else e->nremote = 0;
        }
        if (*s && lx_ch(&s, ';'))
            return -1;
    }
    return 0;
}

/* ---- attributes -------------------------------------------------------------- */

enum {
    A_FLAGS, A_REPEAT, A_AUX, A_REQ, A_COMM, A_COMM2, A_WIN, A_PEER, A_TAG, A_PEER2,
    A_TAG2, A_BYTES, A_BYTES2, A_LISTS, A_N
};
static const struct { const char *name; OTF2_Type type; const char *desc; } attrs[A_N] = {
    { "hopscope::flags", OTF2_TYPE_UINT32, "hopscope event flags (HS_TRACE_F_*)" },
    { "hopscope::repeat", OTF2_TYPE_UINT32, "fruitless polls folded into this call" },
    { "hopscope::aux", OTF2_TYPE_UINT64, "per-call value (thread level, error code, ...)" },
    { "hopscope::req", OTF2_TYPE_UINT64, "request id" },
    { "hopscope::comm", OTF2_TYPE_COMM, "communicator of the call" },
    { "hopscope::comm2", OTF2_TYPE_COMM, "parent communicator" },
    { "hopscope::win", OTF2_TYPE_RMA_WIN, "RMA window" },
    { "hopscope::peer", OTF2_TYPE_INT32, "peer (world rank, or -2 null, -3 any, -4 root)" },
    { "hopscope::tag", OTF2_TYPE_INT32, "tag (or constructor)" },
    { "hopscope::peer2", OTF2_TYPE_INT32, "posted or second peer (world rank)" },
    { "hopscope::tag2", OTF2_TYPE_INT32, "posted or second tag" },
    { "hopscope::bytes", OTF2_TYPE_UINT64, "bytes sent" },
    { "hopscope::bytes2", OTF2_TYPE_UINT64, "bytes received or buffer size" },
    { "hopscope::lists", OTF2_TYPE_STRING, "per-request and per-peer lists" },
};

/* ============================================================================
 * Import
 * ========================================================================== */

typedef struct dstr { uint32_t ref; char *s; } dstr;
typedef struct dstn { uint32_t name, cls, parent; } dstn;
typedef struct dlg { uint32_t name, type, stn; } dlg;
typedef struct dloc { uint64_t ref; uint32_t group, type; int32_t rank; uint32_t thread; } dloc;
typedef struct dreg { int kind, ctor, large; } dreg;
typedef struct dgrp { uint32_t type, paradigm, n; uint64_t *m; } dgrp;
typedef struct dcomm { uint32_t ref, name, group, groupb, parent; int inter; } dcomm;
typedef struct dwin { uint32_t ref, name, comm; } dwin;

typedef struct ictx {
    conv c;                      /* the archive's path, the first error */
    /* global definitions */
    umap strs; char **sv; size_t ns, nscap;
    umap stn; dstn *stnv; size_t nstn, stncap;
    umap lg; dlg *lgv; size_t nlg, lgcap;
    umap loc; dloc *locv; size_t nloc, loccap;
    umap reg; dreg *regv; size_t nreg, regcap;
    umap grp; dgrp *grpv; size_t ngrp, grpcap;
    dcomm *cv; size_t ncv, cvcap;
    dwin *wv; size_t nwv, wvcap;
    umap attr;                   /* attribute ref -> A_* */
    int have_clock;
    uint64_t res, offset;
    /* resolved */
    model m;
    uint32_t nranks;
    uint64_t *rank_lg;           /* [nranks] location group of rank r */
    int hopscope;                /* written by hopscope */
    int scorep;                  /* written by Score-P: convert collective sizes */
    uint64_t epoch;
    /* per rank while reading events */
    iev *ev; size_t nev, evcap;
    umap reqs;                   /* request id -> event index */
    int64_t cur;                 /* event of the MPI call being read, or -1 */
    uint32_t depth;              /* regions entered inside it */
    uint32_t rank, thread;
    uint64_t seq;
    hs_otf2_report *rep;
} ictx;

static const char *str_of(const ictx *x, uint32_t ref)
{
    uint64_t i;
    return ref != OTF2_UNDEFINED_STRING && umap_get(&x->strs, ref, &i) ? x->sv[i] : NULL;
}

/* Adds ref to a definition table: *idx is its index; a second definition of
 * the same reference is an error. */
static int def_slot(ictx *x, umap *m, void *arr, size_t *n, size_t *cap, size_t elem,
                    uint64_t ref, const char *what, size_t *idx)
{
    if (umap_get(m, ref, NULL)) {
        conv_fail(&x->c, HS_EFORMAT, "%s %" PRIu64 " defined twice", what, ref);
        return -1;
    }
    if (grow(arr, cap, *n, elem) || umap_put(m, ref, *n)) {
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return -1;
    }
    *idx = (*n)++;
    return 0;
}

#define CB_OK(x) ((x)->c.rc ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS)

static OTF2_CallbackCode d_clock(void *u, uint64_t res, uint64_t off, uint64_t len,
                                 uint64_t rt)
{
    ictx *x = u;
    (void)len; (void)rt;
    x->have_clock = 1;
    x->res = res;
    x->offset = off;
    return CB_OK(x);
}

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s)
{
    ictx *x = u;
    size_t i;
    if (def_slot(x, &x->strs, &x->sv, &x->ns, &x->nscap, sizeof *x->sv, self, "string", &i))
        return OTF2_CALLBACK_INTERRUPT;
    if (!(x->sv[i] = strdup(s ? s : "")))
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
    return CB_OK(x);
}

static OTF2_CallbackCode d_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                OTF2_StringRef desc, OTF2_Type type)
{
    ictx *x = u;
    (void)desc;
    if (!x->hopscope)
        return CB_OK(x);
    const char *s = str_of(x, name);
    for (int a = 0; s && a < A_N; a++)
        if (strcmp(s, attrs[a].name) == 0 && type == attrs[a].type) {
            if (umap_put(&x->attr, self, (uint64_t)a))
                conv_fail(&x->c, HS_ENOMEM, "out of memory");
        }
    return CB_OK(x);
}

static OTF2_CallbackCode d_stn(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                               OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    ictx *x = u;
    size_t i;
    if (!def_slot(x, &x->stn, &x->stnv, &x->nstn, &x->stncap, sizeof *x->stnv, self,
                  "system tree node", &i))
        x->stnv[i] = (dstn){ name, cls, parent };
    return CB_OK(x);
}

static OTF2_CallbackCode d_lg(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                              OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef stn,
                              OTF2_LocationGroupRef creator)
{
    ictx *x = u;
    size_t i;
    (void)creator;
    if (!def_slot(x, &x->lg, &x->lgv, &x->nlg, &x->lgcap, sizeof *x->lgv, self,
                  "location group", &i))
        x->lgv[i] = (dlg){ name, type, stn };
    return CB_OK(x);
}

static OTF2_CallbackCode d_loc(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                               OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef g)
{
    ictx *x = u;
    size_t i;
    (void)name; (void)nev;
    if (!def_slot(x, &x->loc, &x->locv, &x->nloc, &x->loccap, sizeof *x->locv, self,
                  "location", &i))
        x->locv[i] = (dloc){ self, g, type, -1, 0 };
    return CB_OK(x);
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef desc,
                                  OTF2_RegionRole role, OTF2_Paradigm par, OTF2_RegionFlag fl,
                                  OTF2_StringRef file, uint32_t b, uint32_t e)
{
    ictx *x = u;
    size_t i;
    (void)canon; (void)desc; (void)role; (void)fl; (void)file; (void)b; (void)e;
    if (def_slot(x, &x->reg, &x->regv, &x->nreg, &x->regcap, sizeof *x->regv, self,
                 "region", &i))
        return OTF2_CALLBACK_INTERRUPT;
    dreg *r = &x->regv[i];
    /* Only regions of the MPI paradigm (or of none given) are MPI calls: a
     * user function named MPI_something is computation. */
    if (par == OTF2_PARADIGM_MPI || par == OTF2_PARADIGM_UNKNOWN)
        r->kind = region_kind(str_of(x, name), &r->ctor, &r->large);
    return CB_OK(x);
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm par, OTF2_GroupFlag fl,
                                 uint32_t n, const uint64_t *mem)
{
    ictx *x = u;
    size_t i;
    (void)name; (void)fl;
    if (def_slot(x, &x->grp, &x->grpv, &x->ngrp, &x->grpcap, sizeof *x->grpv, self, "group",
                 &i))
        return OTF2_CALLBACK_INTERRUPT;
    dgrp *g = &x->grpv[i];
    g->type = type;
    g->paradigm = par;
    g->n = n;
    if (!(g->m = malloc(((size_t)n + 1) * sizeof *g->m)))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    if (n)
        memcpy(g->m, mem, n * sizeof *g->m);
    return CB_OK(x);
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag fl)
{
    ictx *x = u;
    (void)fl;
    if (grow(&x->cv, &x->cvcap, x->ncv, sizeof *x->cv))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    x->cv[x->ncv++] = (dcomm){ self, name, group, OTF2_UNDEFINED_GROUP, parent, 0 };
    return CB_OK(x);
}

static OTF2_CallbackCode d_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                     OTF2_GroupRef ga, OTF2_GroupRef gb, OTF2_CommRef common,
                                     OTF2_CommFlag fl)
{
    ictx *x = u;
    (void)fl;
    if (grow(&x->cv, &x->cvcap, x->ncv, sizeof *x->cv))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    x->cv[x->ncv++] = (dcomm){ self, name, ga, gb, common, 1 };
    return CB_OK(x);
}

static OTF2_CallbackCode d_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name,
                               OTF2_CommRef comm, OTF2_RmaWinFlag fl)
{
    ictx *x = u;
    (void)fl;
    if (grow(&x->wv, &x->wvcap, x->nwv, sizeof *x->wv))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    x->wv[x->nwv++] = (dwin){ self, name, comm };
    return CB_OK(x);
}

/* The world ranks of an MPI group definition (members are indices into the
 * COMM_LOCATIONS group, i.e. world ranks). */
static int group_ranks(ictx *x, uint32_t gref, int32_t **out, uint32_t *n, int *self)
{
    uint64_t gi;
    *self = 0;
    if (gref == OTF2_UNDEFINED_GROUP || !umap_get(&x->grp, gref, &gi))
        return conv_fail(&x->c, HS_EFORMAT, "communicator group %u is not defined", gref);
    const dgrp *g = &x->grpv[gi];
    if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
        *self = 1;
        *n = 0;
        *out = malloc(sizeof **out);
        return *out ? 0 : conv_fail(&x->c, HS_ENOMEM, "out of memory");
    }
    if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
        return conv_fail(&x->c, HS_EFORMAT, "communicator group %u is not of type COMM_GROUP", gref);
    *out = malloc(((size_t)g->n + 1) * sizeof **out);
    if (!*out)
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->m[i] >= x->nranks) {
            free(*out);
            *out = NULL;
            return conv_fail(&x->c, HS_EFORMAT, "group %u: member %" PRIu64 " is not an MPI rank "
                         "(%u ranks)", gref, g->m[i], x->nranks);
        }
        (*out)[i] = (int32_t)g->m[i];
    }
    *n = g->n;
    return 0;
}

static int parse_hex_id(const char *s, const char *prefix, uint64_t *id)
{
    size_t n = strlen(prefix);
    if (!s || strncmp(s, prefix, n) != 0)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s + n, &end, 16);
    if (errno || end == s + n || *end || v <= HS_TRACE_COMM_SELF)
        return 0;
    *id = v;
    return 1;
}

static int cmp_loc(const void *a, const void *b)
{
    const dloc *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

/* Ranks, threads, communicators and windows from the global definitions. */
static int resolve(ictx *x)
{
    const dgrp *cl = NULL;
    for (size_t i = 0; i < x->ngrp; i++)
        if (x->grpv[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
            x->grpv[i].paradigm == OTF2_PARADIGM_MPI) {
            if (cl)
                return conv_fail(&x->c, HS_EFORMAT, "two MPI groups of type COMM_LOCATIONS");
            cl = &x->grpv[i];
        }
    if (!cl || cl->n == 0)
        return conv_fail(&x->c, HS_EFORMAT, "no MPI ranks (no MPI group of type COMM_LOCATIONS): "
                     "not a trace of an MPI program");
    if (cl->n > (1u << 24))
        return conv_fail(&x->c, HS_ERANGE, "%u MPI ranks: more than hopscope reads (2^24)", cl->n);
    x->nranks = cl->n;
    x->m.nranks = cl->n;
    if (!(x->rank_lg = calloc(cl->n, sizeof *x->rank_lg)))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    umap lgrank = { 0 };
    int rc = 0;
    for (uint32_t r = 0; r < cl->n && !rc; r++) {
        uint64_t li;
        if (!umap_get(&x->loc, cl->m[r], &li)) {
            rc = conv_fail(&x->c, HS_EFORMAT, "MPI rank %u: location %" PRIu64 " is not defined", r,
                       cl->m[r]);
            break;
        }
        dloc *l = &x->locv[li];
        if (l->rank >= 0 || umap_get(&lgrank, l->group, NULL)) {
            rc = conv_fail(&x->c, HS_EFORMAT, "MPI rank %u: location %" PRIu64 " (or its process) "
                       "is another rank's too", r, cl->m[r]);
            break;
        }
        l->rank = (int32_t)r;
        x->rank_lg[r] = l->group;
        if (umap_put(&lgrank, l->group, r))
            rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
    }
    /* The other CPU-thread locations of a rank's process are its other
     * threads (Score-P also puts per-process metric locations and GPU
     * streams there: not threads of MPI calls). */
    for (size_t i = 0; i < x->nloc && !rc; i++) {
        uint64_t r;
        if (x->locv[i].rank < 0 && umap_get(&lgrank, x->locv[i].group, &r) &&
            (x->locv[i].type == OTF2_LOCATION_TYPE_CPU_THREAD ||
             x->locv[i].type == OTF2_LOCATION_TYPE_UNKNOWN))
            x->locv[i].rank = (int32_t)r;
    }
    umap_free(&lgrank);
    if (rc)
        return rc;
    /* Thread numbers: the rank's MPI location is thread 0, the others follow
     * in location order. */
    qsort(x->locv, x->nloc, sizeof *x->locv, cmp_loc);
    umap_free(&x->loc);
    for (size_t i = 0; i < x->nloc; i++)
        if (umap_put(&x->loc, x->locv[i].ref, i))
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < x->nloc;) {
        int32_t r = x->locv[i].rank;
        uint32_t t = 1;
        size_t j = i;
        for (; j < x->nloc && x->locv[j].rank == r; j++)
            if (r >= 0)
                x->locv[j].thread = x->locv[j].ref == cl->m[r] ? 0 : t++;
        i = j;
    }
    for (size_t i = 0; i < x->nloc; i++)
        if (x->locv[i].rank >= 0 && x->locv[i].thread >= 1024)
            return conv_fail(&x->c, HS_ERANGE, "rank %d has more than 1024 threads", x->locv[i].rank);

    /* Communicators (in definition order, so a parent comes first in any
     * archive written in order; a missing parent makes world the parent). */
    int have_world = 0;
    for (size_t i = 0; i < x->ncv; i++) {
        const dcomm *d = &x->cv[i];
        if (comm_of(&x->m, d->ref))
            return conv_fail(&x->c, HS_EFORMAT, "communicator %u defined twice", d->ref);
        mcomm c = { 0 };
        c.parent = d->parent;
        c.inter = d->inter;
        int self = 0;
        if ((rc = group_ranks(x, d->group, &c.a, &c.na, &self)))
            return rc;
        if (d->inter) {
            int s2;
            if ((rc = group_ranks(x, d->groupb, &c.b, &c.nb, &s2))) {
                free(c.a);
                return rc;
            }
            if (self || s2) {
                free(c.a); free(c.b);
                return conv_fail(&x->c, HS_EFORMAT, "intercommunicator %u of MPI_COMM_SELF", d->ref);
            }
        } else if (!(c.b = malloc(sizeof *c.b))) {
            free(c.a);
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
        }
        const char *name = str_of(x, d->name);
        int identity = !d->inter && !self && c.na == x->nranks;
        for (uint32_t r = 0; identity && r < c.na; r++)
            identity = c.a[r] == (int32_t)r;
        uint64_t hid;
        if (self) {
            c.self = 1;
            c.id = HS_TRACE_COMM_SELF;
        } else if (!have_world && identity &&
                   ((name && strcmp(name, "MPI_COMM_WORLD") == 0) ||
                    d->parent == OTF2_UNDEFINED_COMM)) {
            c.world = 1;
            c.id = HS_TRACE_COMM_WORLD;
            have_world = 1;
        } else if (x->hopscope && parse_hex_id(name, "hopscope comm 0x", &hid)) {
            c.id = hid;
        } else {
            c.id = (uint64_t)d->ref + ID_BASE;
        }
        if (model_add_comm(&x->m, d->ref, &c)) {
            free(c.a); free(c.b);
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < x->nwv; i++) {
        const dwin *d = &x->wv[i];
        uint64_t id;
        if (win_of(&x->m, d->ref))
            return conv_fail(&x->c, HS_EFORMAT, "RMA window %u defined twice", d->ref);
        if (!comm_of(&x->m, d->comm))
            return conv_fail(&x->c, HS_EFORMAT, "RMA window %u: communicator %u is not defined",
                         d->ref, d->comm);
        if (!(x->hopscope && parse_hex_id(str_of(x, d->name), "hopscope win 0x", &id)))
            id = (uint64_t)d->ref + ID_BASE;
        if (model_add_win(&x->m, d->ref, id, d->comm))
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    }
    return 0;
}

/* ---- event callbacks --------------------------------------------------------- */

static int64_t to_ns(ictx *x, OTF2_TimeStamp t)
{
    __int128 d = (__int128)t - (__int128)x->epoch;
    if (x->res != NS_PER_S)
        d = d * (__int128)NS_PER_S / (__int128)x->res;
    if (d < -(__int128)HS_TRACE_TIME_LIMIT || d > (__int128)HS_TRACE_TIME_LIMIT)
        return INT64_MIN;
    return (int64_t)d;
}

static iev *cur_ev(ictx *x)
{
    return x->cur >= 0 ? &x->ev[x->cur] : NULL;
}

/* Fails on a record that the definitions do not support. */
static OTF2_CallbackCode rec_rc(ictx *x, actx *a, int rc, const char *what, OTF2_TimeStamp t)
{
    if (rc == HS_ENOMEM)
        conv_fail(&x->c, rc, "out of memory");
    else if (rc)
        conv_fail(&x->c, rc, "rank %u thread %u: %s at tick %" PRIu64 ": %s", x->rank, x->thread, what,
              t, a->why ? a->why : "invalid");
    return CB_OK(x);
}

static void read_attrs(ictx *x, iev *e, OTF2_AttributeList *al)
{
    if (!al || !x->attr.n)
        return;
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(al);
    for (uint32_t i = 0; i < n && !x->c.rc; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue v;
        uint64_t a;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &v) != OTF2_SUCCESS ||
            !umap_get(&x->attr, ref, &a) || type != attrs[a].type)
            continue;
        switch (a) {
        case A_FLAGS: e->pa_u32[0] = v.uint32; break;
        case A_REPEAT: e->pa_u32[1] = v.uint32; break;
        case A_AUX: e->pa_u64[0] = v.uint64; break;
        case A_REQ: e->pa_u64[1] = v.uint64; break;
        case A_BYTES: e->pa_u64[2] = v.uint64; break;
        case A_BYTES2: e->pa_u64[3] = v.uint64; break;
        case A_PEER: e->pa_i32[0] = v.int32; break;
        case A_TAG: e->pa_i32[1] = v.int32; break;
        case A_PEER2: e->pa_i32[2] = v.int32; break;
        case A_TAG2: e->pa_i32[3] = v.int32; break;
        case A_COMM: case A_COMM2:
            if (!comm_of(&x->m, v.commRef)) {
                conv_fail(&x->c, HS_EFORMAT, "rank %u: attribute %s names undefined communicator %u",
                      x->rank, attrs[a].name, v.commRef);
                return;
            }
            *(a == A_COMM ? &e->pa_comm : &e->pa_comm2) = v.commRef;
            break;
        case A_WIN:
            if (!win_of(&x->m, v.rmaWinRef)) {
                conv_fail(&x->c, HS_EFORMAT, "rank %u: attribute %s names undefined window %u",
                      x->rank, attrs[a].name, v.rmaWinRef);
                return;
            }
            e->pa_win = v.rmaWinRef;
            break;
        case A_LISTS:
            if (!(e->pa_lists = str_of(x, v.stringRef))) {
                conv_fail(&x->c, HS_EFORMAT, "rank %u: attribute %s names undefined string %u",
                      x->rank, attrs[a].name, v.stringRef);
                return;
            }
            break;
        }
        e->aset |= 1u << a;
    }
}

/* The attributes of the Enter, over what the records said. */
static void apply_attrs(ictx *x, iev *e)
{
    hs_trace_event *ev = &e->ev;
    uint32_t s = e->aset;
    if (s & (1u << A_FLAGS)) ev->flags = e->pa_u32[0];
    if (s & (1u << A_REPEAT)) ev->repeat = e->pa_u32[1];
    if (s & (1u << A_AUX)) ev->aux = e->pa_u64[0];
    if (s & (1u << A_REQ)) ev->req = e->pa_u64[1];
    if (s & (1u << A_BYTES)) ev->bytes = e->pa_u64[2];
    if (s & (1u << A_BYTES2)) ev->bytes2 = e->pa_u64[3];
    if (s & (1u << A_PEER)) ev->peer = e->pa_i32[0];
    if (s & (1u << A_TAG)) ev->tag = e->pa_i32[1];
    if (s & (1u << A_PEER2)) ev->peer2 = e->pa_i32[2];
    if (s & (1u << A_TAG2)) ev->tag2 = e->pa_i32[3];
    if (s & (1u << A_COMM)) {
        ev->comm = comm_of(&x->m, e->pa_comm)->id;
        e->cref = e->pa_comm;
    }
    if (s & (1u << A_COMM2)) {
        ev->comm2 = comm_of(&x->m, e->pa_comm2)->id;
        e->cref2 = e->pa_comm2;
    }
    if (s & (1u << A_WIN)) {
        ev->win = win_of(&x->m, e->pa_win)->id;
        e->wref = e->pa_win;
    }
    if (s & (1u << A_LISTS)) {
        int rc = get_lists(e, e->pa_lists);
        if (rc == HS_ENOMEM)
            conv_fail(&x->c, rc, "out of memory");
        else if (rc)
            conv_fail(&x->c, HS_EFORMAT, "rank %u: malformed %s attribute \"%.60s\"", x->rank,
                  attrs[A_LISTS].name, e->pa_lists);
    }
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)pos;
    ictx *x = u;
    (void)loc;
    x->rep->records++;
    if (x->cur >= 0) {
        x->depth++;   /* inside an MPI call: its records are the call's */
        return CB_OK(x);
    }
    uint64_t ri;
    if (!umap_get(&x->reg, region, &ri)) {
        conv_fail(&x->c, HS_EFORMAT, "rank %u: Enter of undefined region %u", x->rank, region);
        return OTF2_CALLBACK_INTERRUPT;
    }
    const dreg *r = &x->regv[ri];
    if (!r->kind) {
        x->rep->other_regions++;
        return CB_OK(x);
    }
    int64_t ns = to_ns(x, t);
    if (ns == INT64_MIN) {
        conv_fail(&x->c, HS_ERANGE, "rank %u: time %" PRIu64 " more than 2^56 ns from the start",
              x->rank, t);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (grow(&x->ev, &x->evcap, x->nev, sizeof *x->ev)) {
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return OTF2_CALLBACK_INTERRUPT;
    }
    iev *e = &x->ev[x->nev];
    iev_init(e, r->kind);
    e->seq = (uint32_t)x->seq++;
    e->ev.thread = (uint16_t)x->thread;
    e->ev.t_start = ns;
    e->ev.t_end = ns;
    if (r->ctor)
        e->ev.tag = r->ctor;
    if (r->large)
        e->ev.flags |= HS_TRACE_F_LARGE;
    e->was_start = r->kind == HS_TRACE_START || r->kind == HS_TRACE_STARTALL;
    x->cur = (int64_t)x->nev++;
    x->depth = 0;
    read_attrs(x, e, al);
    return CB_OK(x);
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)region;
    x->rep->records++;
    if (x->cur < 0)
        return CB_OK(x);
    if (x->depth > 0) {
        x->depth--;
        return CB_OK(x);
    }
    iev *e = cur_ev(x);
    int64_t ns = to_ns(x, t);
    if (ns == INT64_MIN || ns < e->ev.t_start) {
        conv_fail(&x->c, HS_EFORMAT, "rank %u thread %u: Leave at tick %" PRIu64 " before its Enter "
              "or out of range", x->rank, x->thread, t);
        return OTF2_CALLBACK_INTERRUPT;
    }
    e->ev.t_end = ns;
    /* the further requests of a Startall (start_target) end with it */
    for (size_t i = (size_t)x->cur + 1; i < x->nev; i++)
        x->ev[i].ev.t_end = ns;
    x->cur = -1;
    apply_attrs(x, e);
    return CB_OK(x);
}

/* The MPI call a record belongs to, or NULL (the record is counted apart). */
static iev *owner(ictx *x)
{
    x->rep->records++;
    iev *e = cur_ev(x);
    if (!e)
        x->rep->stray_records++;
    return e;
}

#define ACTX(x) actx a_ = { &(x)->m, (x)->rank, NULL, "" }

static OTF2_CallbackCode e_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t dst, OTF2_CommRef c,
                                uint32_t tag, uint64_t len)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_send(&a_, e, dst, c, tag, len, NULL), "MpiSend", t);
}

/* Score-P writes nothing at MPI_Send_init/MPI_Recv_init and an MpiIsend or
 * MpiIrecvRequest at each MPI_Start: such a start becomes the isend or irecv
 * it amounts to (so its message is counted and replayed), a further request
 * of a Startall an event of its own at the same time.  Returns the event
 * the record applies to (NULL: out of memory). */
static iev *start_target(ictx *x, int kind)
{
    iev *e = cur_ev(x);
    if (!e || !e->was_start)
        return e;
    if (e->ev.kind == HS_TRACE_START || e->ev.kind == HS_TRACE_STARTALL) {
        e->ev.kind = (uint16_t)kind;
        return e;
    }
    if (grow(&x->ev, &x->evcap, x->nev, sizeof *x->ev)) {
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return NULL;
    }
    e = cur_ev(x);
    iev *s = &x->ev[x->nev++];
    iev_init(s, kind);
    s->seq = (uint32_t)x->seq++;
    s->was_start = 1;
    s->ev.thread = e->ev.thread;
    s->ev.t_start = s->ev.t_end = e->ev.t_start;
    return s;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t dst, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al;
    iev *e = owner(x);
    if (e && e->was_start)
        e = start_target(x, HS_TRACE_ISEND);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    uint64_t hreq = HS_REQ(req);
    return rec_rc(x, &a_, ap_send(&a_, e, dst, c, tag, len, &hreq), "MpiIsend", t);
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint32_t src, OTF2_CommRef c,
                                uint32_t tag, uint64_t len)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_recv(&a_, e, src, c, tag, len), "MpiRecv", t);
}

/* Remembers that event e started request req (for completions to patch). */
static void note_req(ictx *x, const iev *e, uint64_t req)
{
    if (umap_put(&x->reqs, req, (uint64_t)(e - x->ev)))
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
}

static OTF2_CallbackCode e_irecv_req(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *al, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)t;
    iev *e = owner(x);
    if (e && e->was_start)
        e = start_target(x, HS_TRACE_IRECV);
    if (e && (e->ev.kind == HS_TRACE_IRECV || e->ev.kind == HS_TRACE_IMRECV)) {
        e->ev.req = HS_REQ(req);
        note_req(x, e, HS_REQ(req));
    }
    return CB_OK(x);
}

static OTF2_CallbackCode e_nbc_req(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                   OTF2_AttributeList *al, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)t;
    iev *e = owner(x);
    int base;
    if (e && hs_trace_kind_is_coll(e->ev.kind, &base) && e->ev.kind != base) {
        e->ev.req = HS_REQ(req);
        note_req(x, e, HS_REQ(req));
    }
    return CB_OK(x);
}

/* The event that started request req on this rank, if it is of the class
 * `irecv` (1) or nonblocking collective (2). */
static iev *started(ictx *x, uint64_t req, int what)
{
    uint64_t i;
    if (!umap_get(&x->reqs, req, &i) || i >= x->nev)
        return NULL;
    iev *s = &x->ev[i];
    int base;
    if (what == 1 && s->ev.kind == HS_TRACE_IRECV)
        return s;
    if (what == 2 && hs_trace_kind_is_coll(s->ev.kind, &base) && s->ev.kind != base)
        return s;
    return NULL;
}

static int is_completion(const iev *e)
{
    return hs_trace_kind_class(e->ev.kind) == HS_TRACE_CLASS_COMPLETION &&
           e->ev.kind != HS_TRACE_REQUEST_FREE && e->ev.kind != HS_TRACE_CANCEL;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t src, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al;
    iev *e = owner(x);
    if (!e || !is_completion(e))
        return CB_OK(x);
    ACTX(x);
    const mcomm *cm;
    int32_t w;
    int rc = peer_of(&a_, c, src, &cm, &w);
    if (!rc && tag > INT32_MAX)
        rc = refuse(&a_, "message tag %u beyond MPI's range", tag);
    if (rc)
        return rec_rc(x, &a_, rc, "MpiIrecv", t);
    if (add_compl(e, HS_REQ(req), HS_TRACE_C_STATUS, w, (int32_t)tag, len))
        return rec_rc(x, &a_, HS_ENOMEM, "", t);
    /* What the Irecv was posted with is not recorded: say it was posted for
     * what it matched, unless the archive says otherwise. */
    iev *s = started(x, HS_REQ(req), 1);
    if (s) {
        if (!(s->aset & (1u << A_COMM))) { s->ev.comm = cm->id; s->cref = c; }
        if (!(s->aset & (1u << A_PEER2))) s->ev.peer2 = w;
        if (!(s->aset & (1u << A_TAG2))) s->ev.tag2 = (int32_t)tag;
        if (!(s->aset & (1u << A_BYTES2))) s->ev.bytes2 = len;
    }
    return CB_OK(x);
}

static OTF2_CallbackCode e_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)t;
    iev *e = owner(x);
    if (e && is_completion(e) && add_compl(e, HS_REQ(req), 0, 0, 0, 0))
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
    return CB_OK(x);
}

static OTF2_CallbackCode e_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *al, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)t;
    iev *e = owner(x);
    if (e && is_completion(e) && add_compl(e, HS_REQ(req), HS_TRACE_C_CANCELLED, 0, 0, 0))
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
    return CB_OK(x);
}

static OTF2_CallbackCode e_test(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *al, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)t; (void)req;
    owner(x);   /* a test that found nothing: the call itself says it */
    return CB_OK(x);
}

/* ---- Score-P's collective sizes ------------------------------------------------
 * Score-P (8.x, its MPI adapter's scorep_mpi_coll) gives each rank's
 * MpiCollectiveEnd sizes by rules of its own: P = the communicator's size,
 * n = the block; the root of a bcast sends P n and receives n itself, an
 * allreduce sends and receives P n, a scan rank r sends (P - r) n and
 * receives (r + 1) n, and MPI_IN_PLACE takes the rank's own block out ((P - 1)
 * n).  hopscope counts as docs/formats.md "Collective bytes" says.  These
 * turn the one into the other for intracommunicators.  Whether a call was in
 * place is not in the archive: where the sizes tell (a zero side, a size that
 * is a multiple of P - 1 but not of P) the conversion is exact; where both
 * readings fit, not in place is taken (counted as assumed).  Returns
 * CV_SAME (the two agree), CV_EXACT, CV_ASSUMED or CV_KEPT (sizes that fit no
 * Score-P rule, intercommunicators, and in-place v-collectives whose own
 * block is lost: left as they are). */
enum { CV_SAME, CV_EXACT, CV_ASSUMED, CV_KEPT };

/* x is P n (not in place) or (P - 1) n (in place): n, and how sure. */
static int cv_block(uint64_t x, uint64_t p, uint64_t *n, int *inplace)
{
    int okp = x % p == 0, okq = p > 1 && x % (p - 1) == 0;
    *inplace = 0;
    if (x == 0 || (okp && !okq)) {
        *n = x / p;
        return CV_EXACT;
    }
    if (okq && !okp) {
        *n = x / (p - 1);
        *inplace = 1;
        return CV_EXACT;
    }
    if (okp) {
        *n = x / p;
        return CV_ASSUMED;
    }
    return CV_KEPT;
}

static int scorep_sizes(const model *m, uint32_t me, int kind, uint32_t cref, uint32_t root,
                        uint64_t *sent, uint64_t *recvd)
{
    int base;
    if (!hs_trace_kind_is_coll(kind, &base))
        return CV_SAME;
    const mcomm *c = comm_of(m, cref);
    if (!c || c->inter)
        return CV_KEPT;
    uint64_t p = c->self ? 1 : c->na, s = *sent, v = *recvd, n;
    int32_t r = to_local(c, me, (int32_t)me);
    if (r < 0 || p == 0)
        return CV_KEPT;
    int isroot = root != OTF2_UNDEFINED_UINT32 && root == (uint32_t)r, ip, how;
    switch (base) {
    case HS_TRACE_BARRIER:
        return CV_SAME;
    case HS_TRACE_BCAST:         /* root: P n sent, n received; others: n received */
        if (!isroot)
            return CV_SAME;
        if (s != p * v)
            return CV_KEPT;
        *sent = v;
        *recvd = 0;
        return p == 1 && v == 0 ? CV_SAME : CV_EXACT;
    case HS_TRACE_GATHER:        /* root in place: (P - 1) n received, none sent */
    case HS_TRACE_SCATTER:       /* the converse */
    {
        uint64_t *zero = base == HS_TRACE_GATHER ? &s : &v;
        uint64_t *many = base == HS_TRACE_GATHER ? &v : &s;
        if (!isroot || *zero > 0 || *many == 0)
            return CV_SAME;
        if (p < 2 || *many % (p - 1))
            return CV_KEPT;
        *many = *many / (p - 1) * p;
        *sent = s;
        *recvd = v;
        return CV_EXACT;
    }
    case HS_TRACE_REDUCE:        /* root: n sent, P n received; in place: 0, (P - 1) n */
        if (!isroot)
            return CV_SAME;
        if (s > 0) {
            if (v != p * s)
                return CV_KEPT;
            n = s;
        } else if (v == 0) {
            return CV_SAME;
        } else {
            if (p < 2 || v % (p - 1))
                return CV_KEPT;
            n = v / (p - 1);
        }
        *sent = *recvd = n;
        return CV_EXACT;
    case HS_TRACE_GATHERV:       /* root in place: its own block is in neither size */
        return isroot && s == 0 && v > 0 ? CV_KEPT : CV_SAME;
    case HS_TRACE_SCATTERV:
        return isroot && v == 0 && s > 0 ? CV_KEPT : CV_SAME;
    case HS_TRACE_ALLREDUCE:     /* P n each way; in place (P - 1) n */
        if (s != v)
            return CV_KEPT;
        how = cv_block(s, p, &n, &ip);
        if (how != CV_KEPT)
            *sent = *recvd = n;
        return how;
    case HS_TRACE_ALLGATHER:     /* P n each way; in place (P - 1) n */
        if (s != v)
            return CV_KEPT;
        how = cv_block(s, p, &n, &ip);
        if (how != CV_KEPT) {
            *sent = n;
            *recvd = n * p;
        }
        return how;
    case HS_TRACE_ALLGATHERV:    /* P own sent, the sum received; in place (P - 1) own,
                                    the sum less own */
        how = cv_block(s, p, &n, &ip);
        if (how != CV_KEPT) {
            *sent = n;
            *recvd = v + (ip ? n : 0);
        }
        return how;
    case HS_TRACE_ALLTOALL:      /* P n each way as hopscope; in place (P - 1) n */
        if (s != v)
            return CV_KEPT;
        how = cv_block(s, p, &n, &ip);
        if (how == CV_KEPT)
            return how;
        if (!ip)
            return how == CV_EXACT ? CV_SAME : CV_ASSUMED;
        *sent = *recvd = n * p;
        return how;
    case HS_TRACE_ALLTOALLV:     /* the sums; in place less the own block, which is lost */
    case HS_TRACE_ALLTOALLW:
        return s == v ? CV_ASSUMED : CV_SAME;
    case HS_TRACE_REDUCE_SCATTER_BLOCK:  /* P n each way; in place (P - 1) n */
        if (s != v)
            return CV_KEPT;
        how = cv_block(s, p, &n, &ip);
        if (how != CV_KEPT) {
            *sent = n * p;
            *recvd = n;
        }
        return how;
    case HS_TRACE_REDUCE_SCATTER:    /* the sum sent, P own received; in place the sum
                                        less own, (P - 1) own */
        how = cv_block(v, p, &n, &ip);
        if (how != CV_KEPT) {
            *sent = s + (ip ? n : 0);
            *recvd = n;
        }
        return how;
    case HS_TRACE_SCAN: {        /* (P - r) n sent, (r + 1) n received; in place one less each */
        uint64_t a = p - (uint64_t)r, b = (uint64_t)r + 1, n1 = 0, n2 = 0;
        int fit1 = v % b == 0 && s == a * (v / b);
        if (fit1)
            n1 = v / b;
        int fit2 = 0;
        if (b > 1 && v % (b - 1) == 0) {
            n2 = v / (b - 1);
            fit2 = s == (a - 1) * n2;
        } else if (b == 1 && a > 1 && v == 0 && s % (a - 1) == 0) {
            n2 = s / (a - 1);
            fit2 = 1;
        }
        if (!fit1 && !fit2)
            return CV_KEPT;
        *sent = *recvd = fit1 ? n1 : n2;
        return fit1 && fit2 && n1 != n2 ? CV_ASSUMED : CV_EXACT;
    }
    case HS_TRACE_EXSCAN: {      /* (P - r - 1) n sent, r n received */
        uint64_t a = p - (uint64_t)r - 1, b = (uint64_t)r;
        if (b > 0 ? v % b != 0 : (a > 0 ? s % a != 0 : s || v))
            return CV_KEPT;
        n = b > 0 ? v / b : (a > 0 ? s / a : 0);
        if (s != a * n)
            return CV_KEPT;
        *sent = *recvd = n;
        return CV_EXACT;
    }
    default:                     /* neighbourhood collectives: OTF2 has none */
        return CV_KEPT;
    }
}

/* Applies scorep_sizes on the import of a Score-P archive, and counts. */
static void scorep_convert(ictx *x, int kind, uint32_t cref, uint32_t root, uint64_t *sent,
                           uint64_t *recvd)
{
    if (!x->scorep)
        return;
    uint64_t s = *sent, v = *recvd;
    int how = scorep_sizes(&x->m, x->rank, kind, cref, root, sent, recvd);
    if (how == CV_EXACT && s == *sent && v == *recvd)
        how = CV_SAME;
    if (how == CV_EXACT)
        x->rep->coll_converted++;
    else if (how == CV_ASSUMED)
        x->rep->coll_assumed++;
    else if (how == CV_KEPT)
        x->rep->coll_kept++;
}

static OTF2_CallbackCode e_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                      OTF2_AttributeList *al)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)t;
    owner(x);
    return CB_OK(x);
}

static OTF2_CallbackCode e_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                    OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t recvd)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)op;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    scorep_convert(x, e->ev.kind, c, root, &sent, &recvd);
    return rec_rc(x, &a_, ap_coll_end(&a_, e, c, root, sent, recvd), "MpiCollectiveEnd", t);
}

static OTF2_CallbackCode e_nbc_done(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                    OTF2_CommRef c, uint32_t root, uint64_t sent,
                                    uint64_t recvd, uint64_t req)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)op;
    iev *e = owner(x);
    if (!e || !is_completion(e))
        return CB_OK(x);
    if (add_compl(e, HS_REQ(req), 0, 0, 0, 0)) {
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return CB_OK(x);
    }
    /* OTF2 says what a nonblocking collective moved when it completes; hopscope
     * says it on the call that started it. */
    iev *s = started(x, HS_REQ(req), 2);
    if (!s)
        return CB_OK(x);
    ACTX(x);
    iev tmp;
    iev_init(&tmp, s->ev.kind);
    scorep_convert(x, s->ev.kind, c, root, &sent, &recvd);
    int rc = ap_coll_end(&a_, &tmp, c, root, sent, recvd);
    if (!rc) {
        if (!(s->aset & (1u << A_COMM))) { s->ev.comm = tmp.ev.comm; s->cref = tmp.cref; }
        if (!(s->aset & (1u << A_PEER))) s->ev.peer = tmp.ev.peer;
        if (!(s->aset & (1u << A_BYTES))) s->ev.bytes = tmp.ev.bytes;
        if (!(s->aset & (1u << A_BYTES2))) s->ev.bytes2 = tmp.ev.bytes2;
    }
    return rec_rc(x, &a_, rc, "NonBlockingCollectiveComplete", t);
}

static OTF2_CallbackCode e_comm_create(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                       OTF2_AttributeList *al, OTF2_CommRef c)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_comm_create(&a_, e, c), "CommCreate", t);
}

static OTF2_CallbackCode e_comm_destroy(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *al, OTF2_CommRef c)
{
    (void)pos;
    return e_comm_create(loc, t, pos, u, al, c);
}

static OTF2_CallbackCode e_win_create(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, OTF2_RmaWinRef w)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al;
    iev *e = owner(x);
    if (!e || (e->ev.kind != HS_TRACE_WIN_CREATE && e->ev.kind != HS_TRACE_WIN_FREE))
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_win(&a_, e, w), "RmaWinCreate", t);
}

static OTF2_CallbackCode e_put(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                               OTF2_AttributeList *al, OTF2_RmaWinRef w, uint32_t remote,
                               uint64_t bytes, uint64_t id)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)id;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_rma(&a_, e, w, remote, bytes, 0), "RmaPut", t);
}

static OTF2_CallbackCode e_get(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                               OTF2_AttributeList *al, OTF2_RmaWinRef w, uint32_t remote,
                               uint64_t bytes, uint64_t id)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)id;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_rma(&a_, e, w, remote, 0, bytes), "RmaGet", t);
}

static OTF2_CallbackCode e_atomic(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RmaWinRef w, uint32_t remote,
                                  OTF2_RmaAtomicType type, uint64_t sent, uint64_t got,
                                  uint64_t id)
{
    (void)pos;
    ictx *x = u;
    (void)loc; (void)al; (void)id; (void)type;
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_rma(&a_, e, w, remote, sent, got), "RmaAtomic", t);
}

static OTF2_CallbackCode rma_sync_rec(ictx *x, OTF2_TimeStamp t, OTF2_RmaWinRef w,
                                      uint32_t remote, const char *what)
{
    iev *e = owner(x);
    if (!e)
        return CB_OK(x);
    ACTX(x);
    return rec_rc(x, &a_, ap_rma_sync(&a_, e, w, remote), what, t);
}

static OTF2_CallbackCode e_rma_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                        OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w, uint32_t root,
                                        uint64_t sent, uint64_t got)
{
    (void)loc; (void)pos; (void)al; (void)op; (void)lvl; (void)root; (void)sent; (void)got;
    return rma_sync_rec(u, t, w, OTF2_UNDEFINED_UINT32, "RmaCollectiveEnd");
}

static OTF2_CallbackCode e_rma_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                          void *u, OTF2_AttributeList *al)
{
    (void)loc; (void)pos; (void)al; (void)t;
    owner(u);
    return CB_OK((ictx *)u);
}

static OTF2_CallbackCode e_rma_lock(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                    void *u, OTF2_AttributeList *al, OTF2_RmaWinRef w,
                                    uint32_t remote, uint64_t id, OTF2_LockType type)
{
    (void)loc; (void)pos; (void)al; (void)id; (void)type;
    return rma_sync_rec(u, t, w, remote, "RmaRequestLock");
}

static OTF2_CallbackCode e_rma_release(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *u, OTF2_AttributeList *al, OTF2_RmaWinRef w,
                                       uint32_t remote, uint64_t id)
{
    (void)loc; (void)pos; (void)al; (void)id;
    return rma_sync_rec(u, t, w, remote, "RmaReleaseLock");
}

static OTF2_CallbackCode e_rma_sync(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                    void *u, OTF2_AttributeList *al, OTF2_RmaWinRef w,
                                    uint32_t remote, OTF2_RmaSyncType type)
{
    (void)loc; (void)pos; (void)al; (void)type;
    return rma_sync_rec(u, t, w, remote, "RmaSync");
}

static OTF2_CallbackCode e_rma_group_sync(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                          uint64_t pos, void *u, OTF2_AttributeList *al,
                                          OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w,
                                          OTF2_GroupRef g)
{
    (void)loc; (void)pos; (void)al; (void)lvl; (void)g;
    return rma_sync_rec(u, t, w, OTF2_UNDEFINED_UINT32, "RmaGroupSync");
}

static int cmp_iev(const void *a, const void *b)
{
    const iev *x = a, *y = b;
    if (x->ev.t_start != y->ev.t_start)
        return x->ev.t_start < y->ev.t_start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void point_lists(iev *e)
{
    hs_trace_event *ev = &e->ev;
    ev->compl = e->compl; ev->ncompl = e->ncompl;
    ev->starts = e->starts; ev->nstarts = e->nstarts;
    ev->sendto = e->sendto; ev->nsendto = e->nsendto;
    ev->recvfrom = e->recvfrom; ev->nrecvfrom = e->nrecvfrom;
    ev->members = e->members; ev->nmembers = e->nmembers;
    ev->remote = e->remote; ev->nremote = e->nremote;
}

/* Whether world rank me belongs to communicator cref (either side). */
static int member_of(const model *m, uint32_t cref, uint32_t me)
{
    const mcomm *c = comm_of(m, cref);
    if (!c)
        return 0;
    if (c->world || c->self)
        return 1;
    return in_group((const int32_t (*)[2])c->ia, c->na, (int32_t)me) >= 0 ||
           (c->inter && in_group((const int32_t (*)[2])c->ib, c->nb, (int32_t)me) >= 0);
}

/* Whether communicator cref is usable on the rank now. */
static int is_live(const ictx *x, const umap *live, uint32_t cref)
{
    uint64_t v;
    if (cref == OTF2_UNDEFINED_COMM)
        return 1;
    const mcomm *c = comm_of(&x->m, cref);
    if (c && (c->world || c->self))
        return 1;
    return umap_get(live, cref, &v) && v;
}

/* Writes a comm_create for communicator cref (and its parents first) that
 * the rank uses before the archive introduces it. */
static int introduce(ictx *x, hs_trace_writer *w, umap *live, uint32_t cref, int64_t t,
                     uint16_t thread, int depth)
{
    const mcomm *c = comm_of(&x->m, cref);
    uint64_t v;
    if (!c || c->world || c->self || (umap_get(live, cref, &v) && v))
        return 0;
    if (depth > 64)
        return conv_fail(&x->c, HS_EFORMAT, "communicator %u: parents nest too deep", cref);
    int rc;
    if (c->parent != OTF2_UNDEFINED_COMM && member_of(&x->m, c->parent, x->rank) &&
        (rc = introduce(x, w, live, c->parent, t, thread, depth + 1)))
        return rc;
    iev e;
    iev_init(&e, HS_TRACE_COMM_CREATE);
    e.ev.tag = HS_TRACE_CTOR_UNKNOWN;
    e.ev.t_start = e.ev.t_end = t;
    e.ev.thread = thread;
    actx a = { &x->m, x->rank, NULL, "" };
    rc = ap_comm_create(&a, &e, cref);
    if (!rc && !is_live(x, live, e.cref2))
        e.ev.comm2 = HS_TRACE_COMM_WORLD;   /* the parent is not this rank's */
    if (rc) {
        iev_free(&e);
        if (rc == HS_ENOMEM)
            return conv_fail(&x->c, rc, "out of memory");
        /* not a member: it cannot use the communicator either */
        return conv_fail(&x->c, HS_EFORMAT, "rank %u uses communicator %u: %s", x->rank, cref, a.why);
    }
    point_lists(&e);
    hs_error werr;
    rc = hs_trace_writer_event(w, &e.ev, &werr);
    iev_free(&e);
    if (rc)
        return conv_fail(&x->c, rc, "rank %u: %s", x->rank, werr.msg);
    x->rep->made_events++;
    x->rep->events++;
    return umap_put(live, cref, 1) ? conv_fail(&x->c, HS_ENOMEM, "out of memory") : 0;
}

static int introduce_win(ictx *x, hs_trace_writer *w, umap *live, umap *wlive, uint32_t wref,
                         int64_t t, uint16_t thread)
{
    const mwin *wn = win_of(&x->m, wref);
    uint64_t v;
    if (!wn || (umap_get(wlive, wref, &v) && v))
        return 0;
    int rc = introduce(x, w, live, wn->comm, t, thread, 0);
    if (rc)
        return rc;
    iev e;
    iev_init(&e, HS_TRACE_WIN_CREATE);
    e.ev.tag = HS_TRACE_WCTOR_CREATE;
    e.ev.t_start = e.ev.t_end = t;
    e.ev.thread = thread;
    actx a = { &x->m, x->rank, NULL, "" };
    if ((rc = ap_win(&a, &e, wref)))
        return conv_fail(&x->c, rc, "rank %u: %s", x->rank, a.why);
    hs_error werr;
    if ((rc = hs_trace_writer_event(w, &e.ev, &werr)))
        return conv_fail(&x->c, rc, "rank %u: %s", x->rank, werr.msg);
    x->rep->made_events++;
    x->rep->events++;
    return umap_put(wlive, wref, 1) ? conv_fail(&x->c, HS_ENOMEM, "out of memory") : 0;
}

/* Reads every location of rank r and writes its rank file. */
static int import_rank(ictx *x, OTF2_Reader *rd, const char *dir, size_t *li)
{
    uint32_t r = x->rank;
    int rc = 0;
    x->nev = 0;
    x->seq = 0;
    umap_free(&x->reqs);
    for (; *li < x->nloc && x->locv[*li].rank == (int32_t)r && !rc; (*li)++) {
        const dloc *l = &x->locv[*li];
        x->thread = l->thread;
        x->cur = -1;
        x->depth = 0;
        x->rep->nthreads++;
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->ref);
        if (!er)
            return conv_fail(&x->c, HS_EFORMAT, "rank %u: no events of location %" PRIu64 ": %s", r,
                         l->ref, otf2_why(OTF2_ERROR_INVALID));
        OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
        if (!cb)
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
        OTF2_EvtReaderCallbacks_SetEnterCallback(cb, e_enter);
        OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
        OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, e_send);
        OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, e_isend);
        OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, e_isend_done);
        OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, e_irecv_req);
        OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, e_recv);
        OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, e_irecv);
        OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, e_test);
        OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, e_cancelled);
        OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, e_coll_begin);
        OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, e_coll_end);
        OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, e_nbc_req);
        OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, e_nbc_done);
        OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, e_comm_create);
        OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, e_comm_destroy);
        OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, e_win_create);
        OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, e_win_create);
        OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, e_put);
        OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, e_get);
        OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, e_atomic);
        OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, e_rma_coll_begin);
        OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, e_rma_coll_end);
        OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, e_rma_lock);
        OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, e_rma_lock);
        OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb, e_rma_lock);
        OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, e_rma_release);
        OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, e_rma_sync);
        OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, e_rma_group_sync);
        OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, x);
        OTF2_EvtReaderCallbacks_Delete(cb);
        uint64_t n = 0;
        OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
        if (ec != OTF2_SUCCESS && !x->c.rc)
            conv_fail(&x->c, HS_EFORMAT, "rank %u thread %u: reading events: %s", r, l->thread,
                  otf2_why(ec));
        OTF2_Reader_CloseEvtReader(rd, er);
        if (x->cur >= 0 && !x->c.rc) {
            /* a call entered and never left: the location was cut short
             * (the call and the requests a Startall added after it) */
            while (x->nev > (size_t)x->cur)
                iev_free(&x->ev[--x->nev]);
            x->cur = -1;
            x->rep->unfinished++;
        }
        rc = x->c.rc;
    }
    if (rc)
        return rc;
    if (x->nev > 1)   /* (a rank may have no MPI call at all) */
        qsort(x->ev, x->nev, sizeof *x->ev, cmp_iev);
    hs_trace_writer *w;
    hs_error werr;
    if ((rc = hs_trace_writer_open(&w, dir, r, x->nranks, &werr)))
        return conv_fail(&x->c, rc, "%s", werr.msg);
    umap live = { 0 }, wlive = { 0 };
    for (size_t i = 0; i < x->nev && !rc; i++) {
        iev *e = &x->ev[i];
        ap_defaults(e);
        uint16_t th = e->ev.thread;
        int64_t t = e->ev.t_start;
        if (e->ev.kind == HS_TRACE_COMM_CREATE) {
            if (e->cref2 != OTF2_UNDEFINED_COMM && member_of(&x->m, e->cref2, r))
                rc = introduce(x, w, &live, e->cref2, t, th, 0);
            if (!rc && (!is_live(x, &live, e->cref2) || e->ev.comm2 == 0))
                e->ev.comm2 = HS_TRACE_COMM_WORLD;
            if (e->cref == OTF2_UNDEFINED_COMM && !rc) {
                /* no CommCreate record: nothing says which communicator */
                x->rep->dropped_events++;
                continue;
            }
            if (!rc && umap_put(&live, e->cref, 1))
                rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
        } else {
            if (e->cref != OTF2_UNDEFINED_COMM)
                rc = introduce(x, w, &live, e->cref, t, th, 0);
            if (!rc && e->ev.kind == HS_TRACE_WIN_CREATE) {
                if (e->wref == OTF2_UNDEFINED_RMA_WIN) {
                    x->rep->dropped_events++;
                    continue;
                }
                if (umap_put(&wlive, e->wref, 1))
                    rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
            } else if (!rc && e->wref != OTF2_UNDEFINED_RMA_WIN) {
                rc = introduce_win(x, w, &live, &wlive, e->wref, t, th);
            }
        }
        if (rc)
            break;
        point_lists(e);
        if ((rc = hs_trace_writer_event(w, &e->ev, &werr))) {
            conv_fail(&x->c, rc, "rank %u: cannot write %s at %" PRId64 " ns: %s", r,
                  hs_trace_kind_name(e->ev.kind), e->ev.t_start, werr.msg);
            break;
        }
        x->rep->events++;
        if (e->ev.kind == HS_TRACE_COMM_FREE && e->cref != OTF2_UNDEFINED_COMM &&
            umap_put(&live, e->cref, 0))
            rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
        if (e->ev.kind == HS_TRACE_WIN_FREE && e->wref != OTF2_UNDEFINED_RMA_WIN &&
            umap_put(&wlive, e->wref, 0))
            rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
    }
    umap_free(&live);
    umap_free(&wlive);
    for (size_t i = 0; i < x->nev; i++)
        iev_free(&x->ev[i]);
    x->nev = 0;
    int rc2 = hs_trace_writer_close(w, &werr);
    if (!rc && rc2)
        rc = conv_fail(&x->c, rc2, "%s", werr.msg);
    return rc;
}

static char *prop(OTF2_Reader *rd, const char *name)
{
    char *v = NULL;
    if (OTF2_Reader_GetProperty(rd, name, &v) != OTF2_SUCCESS)
        return NULL;
    return v;
}

static int write_import_manifest(ictx *x, OTF2_Reader *rd, const char *dir, const char *path)
{
    hs_trace_manifest m;
    memset(&m, 0, sizeof m);
    m.version = HS_TRACE_FORMAT_VERSION;
    m.nranks = x->nranks;
    m.rank_node = calloc(x->nranks, sizeof *m.rank_node);
    m.node_names = calloc(x->nranks, sizeof *m.node_names);
    umap nodes = { 0 };
    int rc = 0;
    if (!m.rank_node || !m.node_names)
        rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
    /* A rank's node: the system tree node its process sits in. */
    for (uint32_t r = 0; r < x->nranks && !rc; r++) {
        uint64_t gi, ni, idx;
        uint32_t stn = OTF2_UNDEFINED_SYSTEM_TREE_NODE;
        if (umap_get(&x->lg, x->rank_lg[r], &gi))
            stn = x->lgv[gi].stn;
        const char *name = NULL;
        if (stn != OTF2_UNDEFINED_SYSTEM_TREE_NODE && umap_get(&x->stn, stn, &ni))
            name = str_of(x, x->stnv[ni].name);
        if (!umap_get(&nodes, stn, &idx)) {
            idx = m.nnodes++;
            if (umap_put(&nodes, stn, idx)) {
                rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
                break;
            }
            m.node_names[idx] = (char *)(name && name[0] ? name : "unknown");
        }
        m.rank_node[r] = (uint32_t)idx;
    }
    umap_free(&nodes);
    char *creator = NULL;
    OTF2_Reader_GetCreator(rd, &creator);
    char *p_lib = prop(rd, "HOPSCOPE::MPI_LIBRARY"), *p_cmd = prop(rd, "HOPSCOPE::COMMAND");
    char *p_abi = prop(rd, "HOPSCOPE::MPI_ABI"), *p_ver = prop(rd, "HOPSCOPE::MPI_VERSION");
    char *p_st = prop(rd, "HOPSCOPE::START_TIME"), *p_tl = prop(rd, "HOPSCOPE::THREAD_LEVEL");
    char *p_sr = prop(rd, "HOPSCOPE::SAMPLE_RATE"), *p_ss = prop(rd, "HOPSCOPE::SAMPLE_SEED");
    char lib[512], cmd[4200], wr[64];
    snprintf(lib, sizeof lib, "%s", p_lib ? p_lib : "unknown (OTF2 archive)");
    snprintf(cmd, sizeof cmd, "%s", p_cmd ? p_cmd : path);
    snprintf(wr, sizeof wr, "hopscope %s (otf2 import)", HS_VERSION);
    m.writer = wr;
    m.mpi_abi = p_abi ? p_abi : "none";
    m.mpi_library = lib;
    m.mpi_version = p_ver ? p_ver : "unknown";
    m.command = cmd;
    m.start_time = p_st ? p_st : "1970-01-01T00:00:00Z";
    m.clock = "ns";
    m.node_mode = "host";
    uint64_t v;
    if (p_tl && hs_parse_u64(p_tl, &v) == 0 && v <= 3)
        m.thread_level = (uint32_t)v;
    double d;
    m.sample_rate = 0;
    if (p_sr && hs_parse_double(p_sr, &d) == 0 && d >= 0 && d <= 1)
        m.sample_rate = d;
    if (p_ss && hs_parse_u64(p_ss, &v) == 0)
        m.sample_seed = v;
    if (!rc) {
        hs_error e2;
        if ((rc = hs_trace_manifest_write(dir, &m, &e2)))
            conv_fail(&x->c, rc, "%s", e2.msg);
    }
    free(p_lib); free(p_cmd); free(p_abi); free(p_ver); free(p_st); free(p_tl); free(p_sr);
    free(p_ss); free(creator);
    free(m.rank_node);
    free(m.node_names);
    return rc;
}

static void ictx_free(ictx *x)
{
    for (size_t i = 0; i < x->ns; i++)
        free(x->sv[i]);
    free(x->sv);
    for (size_t i = 0; i < x->ngrp; i++)
        free(x->grpv[i].m);
    free(x->grpv);
    free(x->stnv); free(x->lgv); free(x->locv); free(x->regv); free(x->cv); free(x->wv);
    umap_free(&x->strs); umap_free(&x->stn); umap_free(&x->lg); umap_free(&x->loc);
    umap_free(&x->reg); umap_free(&x->grp); umap_free(&x->attr); umap_free(&x->reqs);
    for (size_t i = 0; i < x->nev; i++)
        iev_free(&x->ev[i]);
    free(x->ev);
    free(x->rank_lg);
    model_free(&x->m);
}

/* Refuses what would make the OTF2 library abort or misread before it gets
 * there: the anchor must be a readable regular file that starts like an
 * OTF2 anchor file. */
static int check_anchor(const char *path, hs_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s", path,
                            strerror(errno));
    if (!S_ISREG(st.st_mode))
        return hs_error_set(err, HS_EINVAL, "%s: not an OTF2 anchor file (give the .otf2 "
                            "file of the archive)", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_error_set(err, HS_EIO, "%s: %s", path, strerror(errno));
    unsigned char head[4] = { 0 };
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    /* OTF2 files start with the chunk header byte 0x01 .. 0x02 followed by
     * the endianness mark ('B' or 'L' in OTF2 >= 1.0). */
    if (n < sizeof head)
        return hs_error_set(err, HS_EFORMAT, "%s: too short for an OTF2 anchor file", path);
    return 0;
}

int hs_trace_import_otf2(const char *archive, const char *dir, unsigned flags,
                         hs_otf2_report *rep, hs_error *err)
{
    hs_otf2_report dummy;
    if (!rep)
        rep = &dummy;
    memset(rep, 0, sizeof *rep);
    char anchor[4096];
    struct stat st;
    /* A directory: the archive's traces.otf2 inside it (Score-P's layout). */
    if (stat(archive, &st) == 0 && S_ISDIR(st.st_mode)) {
        if ((size_t)snprintf(anchor, sizeof anchor, "%s/%s.otf2", archive, ARCHIVE_NAME) >=
            sizeof anchor)
            return hs_error_set(err, HS_EINVAL, "%s: path too long", archive);
    } else if ((size_t)snprintf(anchor, sizeof anchor, "%s", archive) >= sizeof anchor) {
        return hs_error_set(err, HS_EINVAL, "%s: path too long", archive);
    }
    int rc = check_anchor(anchor, err);
    if (rc)
        return rc;
    otf2_quiet();
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return hs_error_set(err, HS_EFORMAT, "%s: not a readable OTF2 archive (%s)", anchor,
                            otf2_msg[0] ? otf2_msg : "the OTF2 library refused it");
    ictx *x = calloc(1, sizeof *x);
    if (!x) {
        OTF2_Reader_Close(rd);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    x->c.path = anchor;
    x->c.err = err;
    x->rep = rep;
    x->cur = -1;
    uint8_t vmaj = 0, vmin = 0, vbug = 0;
    OTF2_Reader_GetVersion(rd, &vmaj, &vmin, &vbug);
    /* The library opens archives of later versions without a word: refuse
     * them here rather than misread them. */
    if (vmaj > OTF2_VERSION_MAJOR) {
        rc = conv_fail(&x->c, HS_EVERSION, "written by OTF2 %u.%u.%u; this hopscope's OTF2 library "
                   "(%d.%d) reads archives up to version %d.x", vmaj, vmin, vbug,
                   OTF2_VERSION_MAJOR, OTF2_VERSION_MINOR, OTF2_VERSION_MAJOR);
        goto out;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    char *fmt = prop(rd, PROP_FORMAT);
    rep->hopscope_archive = fmt && strcmp(fmt, "1") == 0;
    /* plain: read as any OTF2 reader would, none of what hopscope added */
    x->hopscope = rep->hopscope_archive && !(flags & HS_OTF2_PLAIN);
    free(fmt);
    /* Score-P counts collective bytes its own way (scorep_sizes); its
     * archives name it as their creator ("Score-P 8.4"). */
    char *creator = NULL;
    OTF2_Reader_GetCreator(rd, &creator);
    x->scorep = !rep->hopscope_archive && creator && strncmp(creator, "Score-P", 7) == 0;
    rep->scorep_archive = x->scorep;
    free(creator);

    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gd) {
        rc = conv_fail(&x->c, HS_EFORMAT, "no global definitions: %s", otf2_why(OTF2_ERROR_INVALID));
        goto out;
    }
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gcb) {
        rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
        goto out;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, d_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gcb, d_attr);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gcb, d_stn);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, d_lg);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, d_loc);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(gcb, d_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(gcb, d_win);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, gcb, x);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &ndefs);
    if (x->c.rc) {
        rc = x->c.rc;
        goto out;
    }
    if (ec != OTF2_SUCCESS) {
        rc = conv_fail(&x->c, HS_EFORMAT, "reading the global definitions: %s", otf2_why(ec));
        goto out;
    }
    if (!x->have_clock || x->res == 0) {
        rc = conv_fail(&x->c, HS_EFORMAT, "no clock properties (timer resolution)");
        goto out;
    }
    x->epoch = x->offset;
    if (x->hopscope) {
        char *ep = prop(rd, PROP_EPOCH);
        uint64_t v;
        if (ep && hs_parse_u64(ep, &v) == 0)
            x->epoch = v;
        free(ep);
    }
    if ((rc = resolve(x)))
        goto out;
    rep->nranks = x->nranks;
    if ((rc = hs_mkdir_p(dir, err)))
        goto out;
    if ((rc = write_import_manifest(x, rd, dir, anchor)))
        goto out;

    for (size_t i = 0; i < x->nloc; i++)
        if (x->locv[i].rank >= 0)
            OTF2_Reader_SelectLocation(rd, x->locv[i].ref);
    /* Local definitions hold the mappings of archives that have them
     * (Score-P's); none is not an error. */
    if (OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS) {
        for (size_t i = 0; i < x->nloc; i++) {
            if (x->locv[i].rank < 0)
                continue;
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, x->locv[i].ref);
            if (dr) {
                uint64_t nd = 0;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &nd);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        OTF2_Reader_CloseDefFiles(rd);
    }
    if ((ec = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS) {
        rc = conv_fail(&x->c, HS_EFORMAT, "cannot open the event files: %s", otf2_why(ec));
        goto out;
    }
    size_t li = 0;
    while (li < x->nloc && x->locv[li].rank < 0)
        li++;
    for (uint32_t r = 0; r < x->nranks && !rc; r++) {
        x->rank = r;
        while (li < x->nloc && x->locv[li].rank >= 0 && x->locv[li].rank < (int32_t)r)
            li++;
        rc = import_rank(x, rd, dir, &li);
    }
    OTF2_Reader_CloseEvtFiles(rd);
out:
    if (rc && !x->c.rc)
        x->c.rc = rc;
    rc = x->c.rc;
    ictx_free(x);
    free(x);
    OTF2_Reader_Close(rd);
    return rc;
}

/* ============================================================================
 * Export
 * ========================================================================== */

typedef struct xloc {
    OTF2_EvtWriter *w;
    uint64_t nrec;
} xloc;

typedef struct xreq {        /* what a request started on this rank is */
    int what;                /* 1 isend-like, 2 irecv, 3 nonblocking collective */
    uint32_t cref;
    int op;
    int32_t root;
    uint64_t bytes, bytes2;
} xreq;

typedef struct xctx {
    conv c;                      /* the archive's path, the first error */
    model m;
    umap cid;                /* hopscope comm id -> OTF2 ref */
    umap wid;                /* hopscope window id -> OTF2 ref */
    uint32_t *nthreads;      /* [nranks] */
    int64_t tmin, tmax;
    uint64_t epoch;          /* tick of hopscope time 0 */
    /* strings */
    umap shash; char **sv; size_t ns, nscap;
    /* regions: key kind * 64 + ctor -> ref */
    umap regions;
    int *reg_kind, *reg_ctor; size_t nreg, regcap;
    OTF2_AttributeRef aref[A_N];
    int aused[A_N];
    xreq *rq; size_t nrq, rqcap;
    umap reqs;               /* req -> index into rq */
    hs_otf2_report *rep;
} xctx;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The string reference of s (defined once). */
static OTF2_StringRef xstr(xctx *x, const char *s)
{
    uint64_t h = str_hash(s), v;
    /* chain on collisions by probing h+1, h+2, ... */
    for (uint64_t k = h;; k++) {
        if (!umap_get(&x->shash, k, &v))
            break;
        if (strcmp(x->sv[v], s) == 0)
            return (OTF2_StringRef)v;
    }
    uint64_t k = h;
    while (umap_get(&x->shash, k, NULL))
        k++;
    if (grow(&x->sv, &x->nscap, x->ns, sizeof *x->sv) || !(x->sv[x->ns] = strdup(s)) ||
        umap_put(&x->shash, k, x->ns)) {
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return 0;
    }
    return (OTF2_StringRef)x->ns++;
}

static OTF2_RegionRef xregion(xctx *x, int kind, int ctor)
{
    uint64_t key = (uint64_t)kind * 64 + (uint64_t)ctor, v;
    if (umap_get(&x->regions, key, &v))
        return (OTF2_RegionRef)v;
    if (grow(&x->reg_kind, &x->regcap, x->nreg, sizeof *x->reg_kind)) {
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return 0;
    }
    size_t cap2 = x->regcap;
    int *nc = realloc(x->reg_ctor, cap2 * sizeof *nc);
    if (!nc || umap_put(&x->regions, key, x->nreg)) {
        if (nc)
            x->reg_ctor = nc;
        conv_fail(&x->c, HS_ENOMEM, "out of memory");
        return 0;
    }
    x->reg_ctor = nc;
    x->reg_kind[x->nreg] = kind;
    x->reg_ctor[x->nreg] = ctor;
    return (OTF2_RegionRef)x->nreg++;
}

/* The constructor the event's region name says (what an import reads back):
 * its own when MPI has a call of that name, else MPI_Comm_create's or
 * MPI_Win_create's (and the tag goes in an attribute). */
static int ctor_of(const hs_trace_event *ev)
{
    if (ev->kind != HS_TRACE_COMM_CREATE && ev->kind != HS_TRACE_WIN_CREATE)
        return 0;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (special[i].kind == ev->kind && special[i].ctor == ev->tag)
            return ev->tag;
    return ev->kind == HS_TRACE_COMM_CREATE ? HS_TRACE_CTOR_CREATE : HS_TRACE_WCTOR_CREATE;
}

/* Pass 1: communicators, windows, threads and the time span. */
static int scan(xctx *x, hs_trace *t)
{
    const hs_trace_manifest *man = hs_trace_get_manifest(t);
    uint32_t n = man->nranks;
    x->m.nranks = n;
    if (!(x->nthreads = calloc(n, sizeof *x->nthreads)))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    /* world = reference 0, self = 1 */
    mcomm w = { 0 }, s = { 0 };
    w.id = HS_TRACE_COMM_WORLD;
    w.world = 1;
    w.na = n;
    w.parent = OTF2_UNDEFINED_COMM;
    if (!(w.a = malloc((size_t)n * sizeof *w.a)) || !(w.b = malloc(sizeof *w.b)))
        return free(w.a), conv_fail(&x->c, HS_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < n; r++)
        w.a[r] = (int32_t)r;
    s.id = HS_TRACE_COMM_SELF;
    s.self = 1;
    s.parent = OTF2_UNDEFINED_COMM;
    if (!(s.a = malloc(sizeof *s.a)) || !(s.b = malloc(sizeof *s.b))) {
        free(s.a);
        free(w.a); free(w.b);
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    }
    if (model_add_comm(&x->m, 0, &w) || model_add_comm(&x->m, 1, &s) ||
        umap_put(&x->cid, HS_TRACE_COMM_WORLD, 0) || umap_put(&x->cid, HS_TRACE_COMM_SELF, 1))
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    int first = 1;
    for (uint32_t r = 0; r < n && !x->c.rc; r++) {
        hs_trace_cursor *c;
        hs_error e2;
        int rc = hs_trace_cursor_open(t, r, &c, &e2);
        if (rc)
            return conv_fail(&x->c, rc, "%s", e2.msg);
        hs_trace_event ev;
        while ((rc = hs_trace_next(c, &ev, &e2)) == 1) {
            if (first || ev.t_start < x->tmin)
                x->tmin = ev.t_start;
            if (first || ev.t_end > x->tmax)
                x->tmax = ev.t_end;
            first = 0;
            if (ev.thread + 1u > x->nthreads[r])
                x->nthreads[r] = ev.thread + 1u;
            if (ev.kind == HS_TRACE_COMM_CREATE && !umap_get(&x->cid, ev.comm, NULL)) {
                /* The first rank to create it defines it (all members record
                 * the same groups; from a member of the other side of an
                 * intercommunicator, A and B swap, which sides() undoes). */
                mcomm nc = { 0 };
                nc.id = ev.comm;
                nc.inter = ev.nremote > 0;
                uint64_t pref;
                nc.parent = umap_get(&x->cid, ev.comm2, &pref) ? (uint32_t)pref
                                                               : OTF2_UNDEFINED_COMM;
                int32_t *a = NULL, *b = NULL;
                uint32_t na, nb;
                if (copy_ranks(&a, &na, ev.members, ev.nmembers) ||
                    copy_ranks(&b, &nb, ev.remote, ev.nremote)) {
                    free(a);
                    free(b);
                    rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
                    break;
                }
                nc.a = a; nc.na = na; nc.b = b; nc.nb = nb;
                uint32_t ref = (uint32_t)x->m.ncomms;
                if (model_add_comm(&x->m, ref, &nc) || umap_put(&x->cid, ev.comm, ref)) {
                    rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
                    break;
                }
            }
            if (ev.kind == HS_TRACE_WIN_CREATE && !umap_get(&x->wid, ev.win, NULL)) {
                uint64_t cref;
                if (!umap_get(&x->cid, ev.comm, &cref)) {
                    rc = conv_fail(&x->c, HS_EFORMAT, "rank %u: window on an unknown communicator",
                               r);
                    break;
                }
                uint32_t ref = (uint32_t)x->m.nwins;
                if (model_add_win(&x->m, ref, ev.win, (uint32_t)cref) ||
                    umap_put(&x->wid, ev.win, ref)) {
                    rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
                    break;
                }
            }
        }
        if (rc < 0 && !x->c.rc)
            conv_fail(&x->c, rc, "%s", e2.msg);
        hs_trace_cursor_close(c);
        if (x->nthreads[r] == 0)
            x->nthreads[r] = 1;
    }
    if (first)
        x->tmin = x->tmax = 0;
    /* Ticks count from the earlier of the first event and the epoch, so that
     * both are ticks (unsigned) and the epoch's tick is a property. */
    if (x->tmin > 0)
        x->tmin = 0;
    return x->c.rc;
}

static uint64_t loc_id(uint32_t rank, uint32_t thread)
{
    return ((uint64_t)thread << 32) | rank;
}

static OTF2_TimeStamp ts_of(const xctx *x, int64_t t)
{
    return (OTF2_TimeStamp)(t - x->tmin);
}

static void attr_u32(xctx *x, OTF2_AttributeList *al, int a, uint32_t v)
{
    x->aused[a] = 1;
    OTF2_AttributeList_AddUint32(al, x->aref[a], v);
}
static void attr_u64(xctx *x, OTF2_AttributeList *al, int a, uint64_t v)
{
    x->aused[a] = 1;
    OTF2_AttributeList_AddUint64(al, x->aref[a], v);
}
static void attr_i32(xctx *x, OTF2_AttributeList *al, int a, int32_t v)
{
    x->aused[a] = 1;
    OTF2_AttributeList_AddInt32(al, x->aref[a], v);
}

static int same_compl(const hs_trace_compl *a, uint32_t na, const hs_trace_compl *b,
                      uint32_t nb)
{
    if (na != nb)
        return 0;
    for (uint32_t i = 0; i < na; i++)
        if (a[i].req != b[i].req || a[i].flags != b[i].flags ||
            ((a[i].flags & HS_TRACE_C_STATUS) &&
             (a[i].src != b[i].src || a[i].tag != b[i].tag || a[i].bytes != b[i].bytes)))
            return 0;
    return 1;
}

static int same_ranks(const int32_t *a, uint32_t na, const int32_t *b, uint32_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static xreq *req_of(xctx *x, uint64_t req)
{
    uint64_t i;
    return umap_get(&x->reqs, req, &i) ? &x->rq[i] : NULL;
}

static int note_xreq(xctx *x, uint64_t req, xreq q)
{
    uint64_t i;
    if (!umap_get(&x->reqs, req, &i)) {
        if (grow(&x->rq, &x->rqcap, x->nrq, sizeof *x->rq) || umap_put(&x->reqs, req, x->nrq))
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
        i = x->nrq++;
    }
    x->rq[i] = q;
    return 0;
}

/* Writes one event: Enter, the records, Leave; attributes on the Enter for
 * what the records do not carry (as the importer would rebuild it). */
static int export_event(xctx *x, OTF2_EvtWriter *w, uint64_t *nrec, uint32_t me,
                        const hs_trace_event *ev)
{
    int k = ev->kind, base = 0, rc = 0;
    int coll = hs_trace_kind_is_coll(k, &base);
    int nbc = coll && k != base;
    OTF2_TimeStamp t0 = ts_of(x, ev->t_start), t1 = ts_of(x, ev->t_end);
    OTF2_RegionRef region = xregion(x, k, ctor_of(ev));
    actx a = { &x->m, me, NULL, "" };
    iev p;                                /* what the importer will rebuild */
    iev_init(&p, k);
    if (ctor_of(ev))
        p.ev.tag = ctor_of(ev);
    uint64_t cref = OTF2_UNDEFINED_COMM, wref = OTF2_UNDEFINED_RMA_WIN;
    if (ev->comm && !umap_get(&x->cid, ev->comm, &cref))
        cref = OTF2_UNDEFINED_COMM;
    if (ev->win && !umap_get(&x->wid, ev->win, &wref))
        wref = OTF2_UNDEFINED_RMA_WIN;
    const mcomm *cm = cref != OTF2_UNDEFINED_COMM ? comm_of(&x->m, (uint32_t)cref) : NULL;
    int32_t lpeer = cm && ev->peer >= 0 ? to_local(cm, me, ev->peer) : -1;
    int32_t lpeer2 = cm && ev->peer2 >= 0 ? to_local(cm, me, ev->peer2) : -1;
    uint32_t force = 0;                   /* fields patched later by an import: always attrs */

    /* records, in time order, buffered as calls made after the Enter */
    enum { R_NONE, R_SEND, R_ISEND, R_RECV_END, R_IRECVREQ, R_COLL, R_NBCREQ, R_COMM_CREATE,
           R_COMM_DESTROY, R_WIN_CREATE, R_WIN_DESTROY, R_PUT, R_GET, R_ATOMIC, R_FENCE,
           R_LOCK, R_UNLOCK, R_SYNC };
    int first = R_NONE, second = R_NONE;
    if ((is_send_kind(k) || is_sendrecv_kind(k)) && lpeer >= 0 && ev->tag >= 0) {
        first = (k >= HS_TRACE_ISEND && k <= HS_TRACE_IRSEND) && ev->req ? R_ISEND : R_SEND;
        if (ap_send(&a, &p, (uint32_t)lpeer, (uint32_t)cref, (uint32_t)ev->tag, ev->bytes,
                    first == R_ISEND ? &ev->req : NULL))
            first = R_NONE;
    }
    if (is_sendrecv_kind(k) && lpeer2 >= 0 && ev->tag2 >= 0 &&
        !ap_recv(&a, &p, (uint32_t)lpeer2, (uint32_t)cref, (uint32_t)ev->tag2, ev->bytes2))
        second = R_RECV_END;
    if ((k == HS_TRACE_RECV || k == HS_TRACE_MRECV) && lpeer >= 0 && ev->tag >= 0 &&
        !(ev->flags & HS_TRACE_F_CANCELLED) &&
        !ap_recv(&a, &p, (uint32_t)lpeer, (uint32_t)cref, (uint32_t)ev->tag, ev->bytes))
        second = R_RECV_END;
    if (k == HS_TRACE_IRECV && ev->req) {
        first = R_IRECVREQ;
        p.ev.req = ev->req;
        force |= (1u << A_COMM) | (1u << A_PEER2) | (1u << A_TAG2) | (1u << A_BYTES2);
    }
    if (k == HS_TRACE_IMRECV && ev->req) {
        first = R_IRECVREQ;
        p.ev.req = ev->req;
    }
    uint32_t sremote = OTF2_UNDEFINED_UINT32;   /* target of a window synchronisation */
    if (hs_trace_kind_class(k) == HS_TRACE_CLASS_RMA && k >= HS_TRACE_WIN_FENCE &&
        wref != OTF2_UNDEFINED_RMA_WIN) {
        if (rma_sync_has_peer(k) && ev->peer >= 0) {
            const mcomm *wc = comm_of(&x->m, win_of(&x->m, (uint32_t)wref)->comm);
            int32_t l = wc ? to_local(wc, me, ev->peer) : -1;
            if (l >= 0)
                sremote = (uint32_t)l;
        }
        if (!ap_rma_sync(&a, &p, (uint32_t)wref, sremote))
            first = k == HS_TRACE_WIN_FENCE ? R_FENCE : k == HS_TRACE_WIN_LOCK ? R_LOCK
                  : k == HS_TRACE_WIN_UNLOCK ? R_UNLOCK : R_SYNC;
    }
    int op = coll ? coll_op(base) : -1;
    int32_t lroot = -1;
    if (coll && op >= 0 && cm) {
        lroot = ev->peer >= 0 ? to_local(cm, me, ev->peer) : -1;
        if (ev->peer == HS_TRACE_RANK_NONE || lroot >= 0) {
            uint32_t root = lroot >= 0 ? (uint32_t)lroot : OTF2_UNDEFINED_UINT32;
            if (nbc) {
                if (ev->req) {
                    first = R_NBCREQ;
                    p.ev.req = ev->req;
                }
                force |= (1u << A_COMM) | (1u << A_PEER) | (1u << A_BYTES) | (1u << A_BYTES2);
            } else if (!ap_coll_end(&a, &p, (uint32_t)cref, root, ev->bytes, ev->bytes2)) {
                first = R_COLL;
            }
        }
    }
    if (k == HS_TRACE_COMM_CREATE && cm && !ap_comm_create(&a, &p, (uint32_t)cref))
        second = R_COMM_CREATE;
    if (k == HS_TRACE_COMM_FREE && cm && !cm->world && !cm->self &&
        !ap_comm_create(&a, &p, (uint32_t)cref))
        first = R_COMM_DESTROY;
    if ((k == HS_TRACE_WIN_CREATE || k == HS_TRACE_WIN_FREE) &&
        wref != OTF2_UNDEFINED_RMA_WIN && !ap_win(&a, &p, (uint32_t)wref))
        first = k == HS_TRACE_WIN_CREATE ? R_WIN_CREATE : R_WIN_DESTROY;
    int32_t lremote = -1;
    if (hs_trace_kind_class(k) == HS_TRACE_CLASS_RMA && k <= HS_TRACE_RGET_ACCUMULATE &&
        wref != OTF2_UNDEFINED_RMA_WIN && ev->peer >= 0) {
        const mwin *wn = win_of(&x->m, (uint32_t)wref);
        const mcomm *wc = comm_of(&x->m, wn->comm);
        lremote = wc ? to_local(wc, me, ev->peer) : -1;
        if (lremote >= 0) {
            int kk = k == HS_TRACE_RPUT ? HS_TRACE_PUT : k == HS_TRACE_RGET ? HS_TRACE_GET : k;
            uint64_t sent = kk == HS_TRACE_GET ? 0 : ev->bytes;
            uint64_t got = kk == HS_TRACE_PUT ? 0 : ev->bytes2;
            if ((kk != HS_TRACE_PUT || ev->bytes2 == 0) &&
                (kk != HS_TRACE_GET || ev->bytes == 0)) {
                if (!ap_rma(&a, &p, (uint32_t)wref, (uint32_t)lremote, sent, got))
                    first = kk == HS_TRACE_PUT ? R_PUT : kk == HS_TRACE_GET ? R_GET : R_ATOMIC;
            } else if (!ap_rma(&a, &p, (uint32_t)wref, (uint32_t)lremote, ev->bytes,
                               ev->bytes2)) {
                first = R_ATOMIC;   /* both directions: only an atomic says it */
            }
        }
    }
    /* completions */
    hs_trace_compl *cl = NULL;
    int *cl_rec = NULL;            /* per completion: 1 MpiIrecv, 2 IsendComplete, 3 NBC, 4 cancelled */
    if (hs_trace_kind_class(k) == HS_TRACE_CLASS_COMPLETION && ev->ncompl) {
        cl_rec = calloc(ev->ncompl, sizeof *cl_rec);
        if (!cl_rec)
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
        iev probe;
        iev_init(&probe, k);
        for (uint32_t i = 0; i < ev->ncompl && is_completion(&probe); i++) {
            const hs_trace_compl *c = &ev->compl[i];
            xreq *q = req_of(x, c->req);
            if (c->flags == HS_TRACE_C_CANCELLED) {
                cl_rec[i] = 4;
                rc = add_compl(&p, c->req, c->flags, 0, 0, 0);
            } else if (q && q->what == 2 && c->flags == HS_TRACE_C_STATUS && c->src >= 0 &&
                       c->tag >= 0) {
                const mcomm *qc = comm_of(&x->m, q->cref);
                int32_t ls = qc ? to_local(qc, me, c->src) : -1;
                if (ls >= 0) {
                    cl_rec[i] = 1;
                    rc = add_compl(&p, c->req, c->flags, c->src, c->tag, c->bytes);
                }
            } else if (q && q->what == 1 && c->flags == 0) {
                cl_rec[i] = 2;
                rc = add_compl(&p, c->req, 0, 0, 0, 0);
            } else if (q && q->what == 3 && c->flags == 0) {
                cl_rec[i] = 3;
                rc = add_compl(&p, c->req, 0, 0, 0, 0);
            }
            if (rc) {
                free(cl_rec);
                iev_free(&p);
                return conv_fail(&x->c, HS_ENOMEM, "out of memory");
            }
        }
        cl = ev->compl ? (hs_trace_compl *)ev->compl : NULL;
    }
    ap_defaults(&p);

    /* attributes for what differs */
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    if (!al) {
        free(cl_rec);
        iev_free(&p);
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    }
    const hs_trace_event *q = &p.ev;
    if (ev->flags != q->flags) attr_u32(x, al, A_FLAGS, ev->flags);
    if (ev->repeat != q->repeat) attr_u32(x, al, A_REPEAT, ev->repeat);
    if (ev->aux != q->aux && k != HS_TRACE_COMM_CREATE) attr_u64(x, al, A_AUX, ev->aux);
    if (ev->req != q->req) attr_u64(x, al, A_REQ, ev->req);
    if ((ev->comm != q->comm || (force & (1u << A_COMM))) && ev->comm) {
        if (cref == OTF2_UNDEFINED_COMM) {
            OTF2_AttributeList_Delete(al);
            free(cl_rec);
            iev_free(&p);
            return conv_fail(&x->c, HS_EFORMAT, "rank %u: %s on a communicator never created", me,
                         hs_trace_kind_name(k));
        }
        x->aused[A_COMM] = 1;
        OTF2_AttributeList_AddCommRef(al, x->aref[A_COMM], (OTF2_CommRef)cref);
    }
    if (ev->comm2 != q->comm2 && k == HS_TRACE_COMM_CREATE) {
        uint64_t r2;
        if (umap_get(&x->cid, ev->comm2, &r2)) {
            x->aused[A_COMM2] = 1;
            OTF2_AttributeList_AddCommRef(al, x->aref[A_COMM2], (OTF2_CommRef)r2);
        }
    }
    if (ev->win != q->win && ev->win) {
        if (wref == OTF2_UNDEFINED_RMA_WIN) {
            OTF2_AttributeList_Delete(al);
            free(cl_rec);
            iev_free(&p);
            return conv_fail(&x->c, HS_EFORMAT, "rank %u: %s on a window never created", me,
                         hs_trace_kind_name(k));
        }
        x->aused[A_WIN] = 1;
        OTF2_AttributeList_AddRmaWinRef(al, x->aref[A_WIN], (OTF2_RmaWinRef)wref);
    }
    if (ev->peer != q->peer || (force & (1u << A_PEER))) attr_i32(x, al, A_PEER, ev->peer);
    if (ev->tag != q->tag) attr_i32(x, al, A_TAG, ev->tag);
    if (ev->peer2 != q->peer2 || (force & (1u << A_PEER2))) attr_i32(x, al, A_PEER2, ev->peer2);
    if (ev->tag2 != q->tag2 || (force & (1u << A_TAG2))) attr_i32(x, al, A_TAG2, ev->tag2);
    if (ev->bytes != q->bytes || (force & (1u << A_BYTES))) attr_u64(x, al, A_BYTES, ev->bytes);
    if (ev->bytes2 != q->bytes2 || (force & (1u << A_BYTES2)))
        attr_u64(x, al, A_BYTES2, ev->bytes2);
    uint32_t which = 0;
    if (!same_compl(ev->compl, ev->ncompl, p.compl, p.ncompl)) which |= 1;
    if (ev->nstarts) which |= 2;
    if (ev->nsendto) which |= 4;
    if (ev->nrecvfrom) which |= 8;
    if (!same_ranks(ev->members, ev->nmembers, p.members, p.nmembers)) which |= 16;
    if (!same_ranks(ev->remote, ev->nremote, p.remote, p.nremote)) which |= 32;
    if (which) {
        char *s;
        if (put_lists(&s, ev, which)) {
            OTF2_AttributeList_Delete(al);
            free(cl_rec);
            iev_free(&p);
            return conv_fail(&x->c, HS_ENOMEM, "out of memory");
        }
        OTF2_StringRef sr = xstr(x, s);
        free(s);
        x->aused[A_LISTS] = 1;
        OTF2_AttributeList_AddStringRef(al, x->aref[A_LISTS], sr);
    }
    iev_free(&p);

    OTF2_ErrorCode ec = OTF2_EvtWriter_Enter(w, al, t0, region);
    (*nrec)++;
    OTF2_AttributeList_Delete(al);
    /* begin-time records */
    switch (first) {
    case R_SEND:
        ec |= OTF2_EvtWriter_MpiSend(w, NULL, t0, (uint32_t)lpeer, (OTF2_CommRef)cref,
                                     (uint32_t)ev->tag, ev->bytes);
        break;
    case R_ISEND:
        ec |= OTF2_EvtWriter_MpiIsend(w, NULL, t0, (uint32_t)lpeer, (OTF2_CommRef)cref,
                                      (uint32_t)ev->tag, ev->bytes, OTF2_REQ(ev->req));
        rc = note_xreq(x, ev->req, (xreq){ 1, (uint32_t)cref, 0, 0, 0, 0 });
        break;
    case R_IRECVREQ:
        ec |= OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t0, OTF2_REQ(ev->req));
        rc = note_xreq(x, ev->req, (xreq){ 2, (uint32_t)cref, 0, 0, 0, 0 });
        break;
    case R_NBCREQ:
        ec |= OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, t0, OTF2_REQ(ev->req));
        rc = note_xreq(x, ev->req, (xreq){ 3, (uint32_t)cref, op, lroot, ev->bytes,
                                           ev->bytes2 });
        break;
    case R_COLL:
        ec |= OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t0);
        break;
    case R_FENCE:
        ec |= OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t0);
        break;
    case R_LOCK:
        ec |= OTF2_EvtWriter_RmaRequestLock(w, NULL, t0, (OTF2_RmaWinRef)wref, sremote, 0,
                                            OTF2_LOCK_EXCLUSIVE);
        break;
    case R_UNLOCK:
        ec |= OTF2_EvtWriter_RmaReleaseLock(w, NULL, t0, (OTF2_RmaWinRef)wref, sremote, 0);
        break;
    case R_SYNC:
        ec |= OTF2_EvtWriter_RmaSync(w, NULL, t0, (OTF2_RmaWinRef)wref, sremote,
                                     OTF2_RMA_SYNC_TYPE_MEMORY);
        break;
    case R_COMM_DESTROY:
        ec |= OTF2_EvtWriter_CommDestroy(w, NULL, t0, (OTF2_CommRef)cref);
        break;
    case R_WIN_DESTROY:
        ec |= OTF2_EvtWriter_RmaWinDestroy(w, NULL, t0, (OTF2_RmaWinRef)wref);
        break;
    case R_PUT:
        ec |= OTF2_EvtWriter_RmaPut(w, NULL, t0, (OTF2_RmaWinRef)wref, (uint32_t)lremote,
                                    ev->bytes, *nrec);
        break;
    case R_GET:
        ec |= OTF2_EvtWriter_RmaGet(w, NULL, t0, (OTF2_RmaWinRef)wref, (uint32_t)lremote,
                                    ev->bytes2, *nrec);
        break;
    case R_ATOMIC: {
        OTF2_RmaAtomicType at = k == HS_TRACE_COMPARE_AND_SWAP
                                    ? OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP
                                : k == HS_TRACE_ACCUMULATE || k == HS_TRACE_RACCUMULATE
                                    ? OTF2_RMA_ATOMIC_TYPE_ACCUMULATE
                                    : OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
        ec |= OTF2_EvtWriter_RmaAtomic(w, NULL, t0, (OTF2_RmaWinRef)wref, (uint32_t)lremote,
                                       at, ev->bytes, ev->bytes2, *nrec);
        break;
    }
    default: break;
    }
    if (first != R_NONE)
        (*nrec)++;
    if (first == R_FENCE) {
        ec |= OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t1, OTF2_COLLECTIVE_OP_BARRIER,
                                              OTF2_RMA_SYNC_LEVEL_PROCESS |
                                                  OTF2_RMA_SYNC_LEVEL_MEMORY,
                                              (OTF2_RmaWinRef)wref, OTF2_UNDEFINED_UINT32, 0, 0);
        (*nrec)++;
    }
    if (first == R_WIN_CREATE) {
        ec |= OTF2_EvtWriter_RmaWinCreate(w, NULL, t1, (OTF2_RmaWinRef)wref);
        (*nrec)++;
    }
    /* end-time records */
    for (uint32_t i = 0; cl_rec && i < ev->ncompl && !rc; i++) {
        const hs_trace_compl *c = &cl[i];
        xreq *qq = req_of(x, c->req);
        switch (cl_rec[i]) {
        case 1: {
            const mcomm *qc = comm_of(&x->m, qq->cref);
            ec |= OTF2_EvtWriter_MpiIrecv(w, NULL, t1, (uint32_t)to_local(qc, me, c->src),
                                          qq->cref, (uint32_t)c->tag, c->bytes,
                                          OTF2_REQ(c->req));
            break;
        }
        case 2: ec |= OTF2_EvtWriter_MpiIsendComplete(w, NULL, t1, OTF2_REQ(c->req)); break;
        case 3:
            ec |= OTF2_EvtWriter_NonBlockingCollectiveComplete(
                w, NULL, t1, (OTF2_CollectiveOp)qq->op, qq->cref,
                qq->root >= 0 ? (uint32_t)qq->root : OTF2_UNDEFINED_UINT32, qq->bytes,
                qq->bytes2, OTF2_REQ(c->req));
            break;
        case 4: ec |= OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t1, OTF2_REQ(c->req)); break;
        default: continue;
        }
        (*nrec)++;
    }
    free(cl_rec);
    if (first == R_COLL) {
        ec |= OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t1, (OTF2_CollectiveOp)op,
                                              (OTF2_CommRef)cref,
                                              lroot >= 0 ? (uint32_t)lroot
                                                         : OTF2_UNDEFINED_UINT32,
                                              ev->bytes, ev->bytes2);
        (*nrec)++;
    }
    if (second == R_RECV_END) {
        int32_t lp = is_sendrecv_kind(k) ? lpeer2 : lpeer;
        ec |= OTF2_EvtWriter_MpiRecv(w, NULL, t1, (uint32_t)lp, (OTF2_CommRef)cref,
                                     (uint32_t)(is_sendrecv_kind(k) ? ev->tag2 : ev->tag),
                                     is_sendrecv_kind(k) ? ev->bytes2 : ev->bytes);
        (*nrec)++;
    }
    if (second == R_COMM_CREATE) {
        ec |= OTF2_EvtWriter_CommCreate(w, NULL, t1, (OTF2_CommRef)cref);
        (*nrec)++;
    }
    ec |= OTF2_EvtWriter_Leave(w, NULL, t1, region);
    (*nrec)++;
    if (ec != OTF2_SUCCESS)
        return conv_fail(&x->c, HS_EIO, "rank %u: writing events: %s", me, otf2_why(ec));
    return rc ? rc : x->c.rc;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cd,
                                bool final)
{
    (void)u; (void)ft; (void)l; (void)cd; (void)final;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u; (void)ft; (void)l;
    return 0;
}
static OTF2_FlushCallbacks flush_cb = { pre_flush, post_flush };

static void xctx_free(xctx *x)
{
    model_free(&x->m);
    umap_free(&x->cid); umap_free(&x->wid); umap_free(&x->shash); umap_free(&x->regions);
    umap_free(&x->reqs);
    for (size_t i = 0; i < x->ns; i++)
        free(x->sv[i]);
    free(x->sv);
    free(x->reg_kind); free(x->reg_ctor); free(x->rq); free(x->nthreads);
}

/* Global definitions: everything the events referred to. */
static int write_defs(xctx *x, OTF2_Archive *ar, const hs_trace_manifest *man,
                      uint64_t **nrec)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g)
        return conv_fail(&x->c, HS_EIO, "cannot write the definitions: %s",
                     otf2_why(OTF2_ERROR_INVALID));
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    uint32_t n = man->nranks;
    /* The strings first: collect every one, then write them, then the rest. */
    OTF2_StringRef s_empty = xstr(x, ""), s_mpi = xstr(x, "MPI"),
                   s_machine = xstr(x, "machine"), s_node = xstr(x, "node"),
                   s_mname = xstr(x, "hopscope trace");
    char b[256];
    for (uint32_t r = 0; r < n; r++) {
        snprintf(b, sizeof b, "MPI Rank %u", r);
        xstr(x, b);
    }
    uint32_t maxth = 1;
    for (uint32_t r = 0; r < n; r++)
        if (x->nthreads[r] > maxth)
            maxth = x->nthreads[r];
    for (uint32_t t = 0; t < maxth; t++) {
        snprintf(b, sizeof b, t ? "Thread %u" : "Master thread", t);
        xstr(x, b);
    }
    for (uint32_t i = 0; i < man->nnodes; i++)
        xstr(x, man->node_names[i]);
    for (size_t i = 0; i < x->nreg; i++) {
        region_name(x->reg_kind[i], x->reg_ctor[i], b, sizeof b);
        xstr(x, b);
    }
    for (int a = 0; a < A_N; a++) {
        xstr(x, attrs[a].name);
        xstr(x, attrs[a].desc);
    }
    xstr(x, "MPI_COMM_WORLD");
    xstr(x, "MPI_COMM_SELF");
    for (size_t i = 2; i < x->m.ncomms; i++) {
        snprintf(b, sizeof b, "hopscope comm 0x%" PRIx64, x->m.comms[i].id);
        xstr(x, b);
    }
    for (size_t i = 0; i < x->m.nwins; i++) {
        snprintf(b, sizeof b, "hopscope win 0x%" PRIx64, x->m.wins[i].id);
        xstr(x, b);
    }
    if (x->c.rc)
        return x->c.rc;
    ec |= OTF2_GlobalDefWriter_WriteClockProperties(
        g, NS_PER_S, 0, (uint64_t)(x->tmax - x->tmin), OTF2_UNDEFINED_TIMESTAMP);
    ec |= OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi,
                                             OTF2_PARADIGM_CLASS_PROCESS);
    for (size_t i = 0; i < x->ns; i++)
        ec |= OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, x->sv[i]);
    /* all of them, so that references are dense (readers want that) */
    for (int a = 0; a < A_N; a++)
            ec |= OTF2_GlobalDefWriter_WriteAttribute(g, x->aref[a], xstr(x, attrs[a].name),
                                                      xstr(x, attrs[a].desc), attrs[a].type);
    /* system tree: the machine, its nodes */
    ec |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_mname, s_machine,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t i = 0; i < man->nnodes; i++)
        ec |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, i + 1, xstr(x, man->node_names[i]),
                                                       s_node, 0);
    for (uint32_t r = 0; r < n; r++) {
        snprintf(b, sizeof b, "MPI Rank %u", r);
        ec |= OTF2_GlobalDefWriter_WriteLocationGroup(g, r, xstr(x, b),
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                      man->rank_node[r] + 1,
                                                      OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t t = 0; t < x->nthreads[r]; t++) {
            snprintf(b, sizeof b, t ? "Thread %u" : "Master thread", t);
            ec |= OTF2_GlobalDefWriter_WriteLocation(g, loc_id(r, t), xstr(x, b),
                                                     OTF2_LOCATION_TYPE_CPU_THREAD,
                                                     nrec[r][t], r);
        }
    for (size_t i = 0; i < x->nreg; i++) {
        region_name(x->reg_kind[i], x->reg_ctor[i], b, sizeof b);
        OTF2_StringRef s = xstr(x, b);
        ec |= OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, s, s, s_empty,
                                               region_role(x->reg_kind[i]), OTF2_PARADIGM_MPI,
                                               OTF2_REGION_FLAG_NONE, s_empty, 0, 0);
    }
    /* groups: 0 the locations of the ranks, 1 the self group, then one per
     * communicator (2 + index) */
    uint64_t *mem = malloc(((size_t)n + 1) * sizeof *mem);
    if (!mem)
        return conv_fail(&x->c, HS_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < n; r++)
        mem[r] = loc_id(r, 0);
    ec |= OTF2_GlobalDefWriter_WriteGroup(g, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, mem);
    ec |= OTF2_GlobalDefWriter_WriteGroup(g, 1, s_empty, OTF2_GROUP_TYPE_COMM_SELF,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
    OTF2_GroupRef gnext = 2;
    for (size_t i = 0; i < x->m.ncomms; i++) {
        const mcomm *c = &x->m.comms[i];
        if (c->self)
            continue;
        for (int side = 0; side < 1 + c->inter; side++) {
            const int32_t *v = side ? c->b : c->a;
            uint32_t nv = side ? c->nb : c->na;
            uint64_t *gm = malloc(((size_t)nv + 1) * sizeof *gm);
            if (!gm) {
                free(mem);
                return conv_fail(&x->c, HS_ENOMEM, "out of memory");
            }
            for (uint32_t j = 0; j < nv; j++)
                gm[j] = (uint64_t)v[j];
            ec |= OTF2_GlobalDefWriter_WriteGroup(g, gnext++, s_empty,
                                                  OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                  OTF2_GROUP_FLAG_NONE, nv, gm);
            free(gm);
        }
    }
    free(mem);
    gnext = 2;
    for (size_t i = 0; i < x->m.ncomms; i++) {
        const mcomm *c = &x->m.comms[i];
        if (c->self) {
            ec |= OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)i, xstr(x, "MPI_COMM_SELF"),
                                                 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
            continue;
        }
        if (c->world) {
            snprintf(b, sizeof b, "MPI_COMM_WORLD");
        } else {
            snprintf(b, sizeof b, "hopscope comm 0x%" PRIx64, c->id);
        }
        if (c->inter) {
            ec |= OTF2_GlobalDefWriter_WriteInterComm(g, (OTF2_CommRef)i, xstr(x, b), gnext,
                                                      gnext + 1, c->parent,
                                                      OTF2_COMM_FLAG_NONE);
            gnext += 2;
        } else {
            ec |= OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)i, xstr(x, b), gnext++,
                                                 c->parent, OTF2_COMM_FLAG_NONE);
        }
    }
    for (size_t i = 0; i < x->m.nwins; i++) {
        snprintf(b, sizeof b, "hopscope win 0x%" PRIx64, x->m.wins[i].id);
        ec |= OTF2_GlobalDefWriter_WriteRmaWin(g, (OTF2_RmaWinRef)i, xstr(x, b),
                                               x->m.wins[i].comm,
                                               OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS);
    }
    if (x->c.rc)
        return x->c.rc;
    if (ec != OTF2_SUCCESS)
        return conv_fail(&x->c, HS_EIO, "writing the definitions: %s", otf2_why(ec));
    return 0;
}

static void set_prop(OTF2_Archive *ar, const char *name, const char *v, OTF2_ErrorCode *ec)
{
    if (v)
        *ec |= OTF2_Archive_SetProperty(ar, name, v, true);
}

int hs_trace_export_otf2(const char *dir, const char *archive, hs_otf2_report *rep,
                         hs_error *err)
{
    hs_otf2_report dummy;
    if (!rep)
        rep = &dummy;
    memset(rep, 0, sizeof *rep);
    hs_trace *t;
    int rc = hs_trace_open(dir, &t, err);
    if (rc)
        return rc;
    struct stat st;
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", archive, ARCHIVE_NAME);
    if (stat(anchor, &st) == 0) {
        hs_trace_close(t);
        return hs_error_set(err, HS_EINVAL, "%s exists: give a new directory for the archive",
                            anchor);
    }
    if ((rc = hs_mkdir_p(archive, err))) {
        hs_trace_close(t);
        return rc;
    }
    const hs_trace_manifest *man = hs_trace_get_manifest(t);
    xctx *x = calloc(1, sizeof *x);
    if (!x) {
        hs_trace_close(t);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    x->c.path = archive;
    x->c.err = err;
    x->rep = rep;
    for (int a = 0; a < A_N; a++)
        x->aref[a] = (OTF2_AttributeRef)a;
    rep->nranks = man->nranks;
    uint64_t **nrec = NULL;
    OTF2_Archive *ar = NULL;
    otf2_quiet();
    if ((rc = scan(x, t)))
        goto out;
    nrec = calloc(man->nranks, sizeof *nrec);
    if (!nrec) {
        rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
        goto out;
    }
    ar = OTF2_Archive_Open(archive, ARCHIVE_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK, DEF_CHUNK,
                           OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        rc = conv_fail(&x->c, HS_EIO, "cannot create the archive: %s", otf2_why(OTF2_ERROR_INVALID));
        goto out;
    }
    OTF2_ErrorCode ec = OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL);
    ec |= OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    char cr[64];
    snprintf(cr, sizeof cr, "hopscope %s", HS_VERSION);
    ec |= OTF2_Archive_SetCreator(ar, cr);
    ec |= OTF2_Archive_SetDescription(ar, "MPI trace exported by hopscope trace export otf2");
    ec |= OTF2_Archive_OpenEvtFiles(ar);
    if (ec != OTF2_SUCCESS) {
        rc = conv_fail(&x->c, HS_EIO, "cannot create the archive: %s", otf2_why(ec));
        goto out;
    }
    for (uint32_t r = 0; r < man->nranks && !rc; r++) {
        uint32_t nt = x->nthreads[r];
        xloc *ls = calloc(nt, sizeof *ls);
        if (!ls || !(nrec[r] = calloc(nt, sizeof **nrec))) {
            free(ls);
            rc = conv_fail(&x->c, HS_ENOMEM, "out of memory");
            break;
        }
        for (uint32_t th = 0; th < nt && !rc; th++)
            if (!(ls[th].w = OTF2_Archive_GetEvtWriter(ar, loc_id(r, th))))
                rc = conv_fail(&x->c, HS_EIO, "rank %u: no event writer: %s", r,
                           otf2_why(OTF2_ERROR_INVALID));
        umap_free(&x->reqs);
        x->nrq = 0;
        hs_trace_cursor *c = NULL;
        hs_error e2;
        if (!rc && (rc = hs_trace_cursor_open(t, r, &c, &e2)))
            conv_fail(&x->c, rc, "%s", e2.msg);
        hs_trace_event ev;
        int got = 0;
        while (!rc && (got = hs_trace_next(c, &ev, &e2)) == 1) {
            rc = export_event(x, ls[ev.thread].w, &ls[ev.thread].nrec, r, &ev);
            rep->events++;
        }
        if (!rc && got < 0)
            rc = conv_fail(&x->c, got, "%s", e2.msg);
        if (c)
            hs_trace_cursor_close(c);
        for (uint32_t th = 0; th < nt; th++) {
            nrec[r][th] = ls[th].nrec;
            rep->records += ls[th].nrec;
            if (ls[th].w)
                OTF2_Archive_CloseEvtWriter(ar, ls[th].w);
        }
        rep->nthreads += nt;
        free(ls);
    }
    if (rc)
        goto out;
    ec = OTF2_Archive_CloseEvtFiles(ar);
    /* empty local definitions: readers look for them */
    ec |= OTF2_Archive_OpenDefFiles(ar);
    for (uint32_t r = 0; r < man->nranks; r++)
        for (uint32_t th = 0; th < x->nthreads[r]; th++) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, loc_id(r, th));
            if (dw)
                ec |= OTF2_Archive_CloseDefWriter(ar, dw);
        }
    ec |= OTF2_Archive_CloseDefFiles(ar);
    if (ec != OTF2_SUCCESS) {
        rc = conv_fail(&x->c, HS_EIO, "writing the archive: %s", otf2_why(ec));
        goto out;
    }
    if ((rc = write_defs(x, ar, man, nrec)))
        goto out;
    char num[64];
    ec = OTF2_SUCCESS;
    set_prop(ar, PROP_FORMAT, "1", &ec);
    snprintf(num, sizeof num, "%" PRIu64, (uint64_t)(-x->tmin));
    set_prop(ar, PROP_EPOCH, num, &ec);
    set_prop(ar, "HOPSCOPE::MPI_LIBRARY", man->mpi_library, &ec);
    set_prop(ar, "HOPSCOPE::MPI_ABI", man->mpi_abi, &ec);
    set_prop(ar, "HOPSCOPE::MPI_VERSION", man->mpi_version, &ec);
    set_prop(ar, "HOPSCOPE::COMMAND", man->command, &ec);
    set_prop(ar, "HOPSCOPE::START_TIME", man->start_time, &ec);
    snprintf(num, sizeof num, "%u", man->thread_level);
    set_prop(ar, "HOPSCOPE::THREAD_LEVEL", num, &ec);
    snprintf(num, sizeof num, "%.17g", man->sample_rate);
    set_prop(ar, "HOPSCOPE::SAMPLE_RATE", num, &ec);
    snprintf(num, sizeof num, "%" PRIu64, man->sample_seed);
    set_prop(ar, "HOPSCOPE::SAMPLE_SEED", num, &ec);
    if (ec != OTF2_SUCCESS)
        rc = conv_fail(&x->c, HS_EIO, "writing the archive properties: %s", otf2_why(ec));
out:
    if (ar) {
        OTF2_ErrorCode cec = OTF2_Archive_Close(ar);
        if (!rc && cec != OTF2_SUCCESS)
            rc = conv_fail(&x->c, HS_EIO, "closing the archive: %s", otf2_why(cec));
    }
    if (nrec)
        for (uint32_t r = 0; r < man->nranks; r++)
            free(nrec[r]);
    free(nrec);
    rc = rc ? rc : x->c.rc;
    xctx_free(x);
    free(x);
    hs_trace_close(t);
    return rc;
}

#endif /* HS_HAVE_OTF2 */
