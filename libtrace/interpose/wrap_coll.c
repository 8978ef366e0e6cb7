/* libhopscope.so: collective wrappers, blocking and nonblocking, with the
 * MPI-4 large-count twins where the MPI has them.
 *
 * What a rank records (docs/formats.md, "Collectives"): the root as a world
 * rank, bytes it contributes (bytes) and bytes it receives (bytes2), as the
 * call's buffers define them; for v/w and neighbourhood collectives also the
 * per-peer byte counts (sendto/recvfrom), in communicator rank order for v/w
 * (the reader adds world ranks) and as (world rank, bytes) pairs for
 * neighbourhood collectives.  Arguments MPI ignores (send type at a
 * non-root, counts behind MPI_IN_PLACE) are never read. */
#include "interpose.h"

static inline uint64_t cnt_at(const void *a, int i, int large)
{
    return large ? (uint64_t)((const MPI_Count *)a)[i] : (uint64_t)(unsigned)((const int *)a)[i];
}


/* Starts the record: header, comm, root, request.  Returns NULL when
 * recording is off (nothing to do). */
static hs__rec *coll_begin(uint16_t kind, uint64_t t0, int rc, hs__comm *c, int root,
                           uint32_t na, uint32_t nb, MPI_Request *req, uint32_t flags,
                           size_t *size)
{
    uint64_t t1 = hs__now();
    hs__rec *r = hs__recn(kind, t0, t1, flags | hs__rcflag(rc), na, nb, size);
    if (!r)
        return NULL;
    r->comm = c->index;
    r->peer = root == MPI_UNDEFINED ? HS_TRACE_RANK_NONE : hs__peer(c, root);
    r->bytes = r->bytes2 = 0;
    r->req = 0;
    if (req && rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL) {
        hs__reqinfo ri = { .id = hs__new_req_id(), .comm = NULL, .peer = HS_TRACE_RANK_NONE,
                           .type = HS__RQ_COLL };
        r->req = ri.id;
        hs__req_add(*req, &ri);
    }
    return r;
}

/* Nonblocking twins are kind + HS_TRACE_NB. */
#define KIND(base, R) ((uint16_t)((base) + ((R) != NULL ? HS_TRACE_NB : 0)))

static inline hs__comm *comm_of(int rc, MPI_Comm comm)
{
    return rc == MPI_SUCCESS ? hs__comm_get(comm) : hs__g.null_comm;
}

/* Size of the group that per-rank arrays index. */
static inline int peers(const hs__comm *c)
{
    return c->is_inter ? c->rsize : c->size;
}

/* ---- barrier, bcast ------------------------------------------------------------ */

#define W_BARRIER(name, P, A, R)                                                     \
    HS_WRAP(int, name, (MPI_Comm comm P), (comm A))                                  \
    {                                                                                \
        HS_ENTER(name, (comm A));                                                    \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(comm A);                                              \
        size_t s;                                                                    \
        hs__rec *r = coll_begin(KIND(HS_TRACE_BARRIER, R), t0, rc, comm_of(rc, comm),  \
                                MPI_UNDEFINED, 0, 0, R, 0, &s);                      \
        if (r)                                                                       \
            hs__commit(r, s);                                                        \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_BARRIER(Barrier, B_P, B_A, B_R)
W_BARRIER(Ibarrier, NB_P, NB_A, NB_R)

static void rec_bcast(uint16_t kind, uint64_t t0, int rc, uint64_t count, MPI_Datatype dt,
                      int root, MPI_Comm comm, MPI_Request *req, uint32_t xf)
{
    hs__comm *c = comm_of(rc, comm);
    size_t s;
    hs__rec *r = coll_begin(kind, t0, rc, c, root, 0, 0, req, xf, &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS) {
        int sender = c->is_inter ? root == MPI_ROOT : c->my == root;
        int none = c->is_inter && root == MPI_PROC_NULL;
        uint64_t n = none ? 0 : sz(count, dt);
        r->bytes = sender ? n : 0;
        r->bytes2 = sender ? 0 : n;
    }
    hs__commit(r, s);
}

#define W_BCAST(name, CT, XF, P, A, R)                                               \
    HS_WRAP(int, name, (void *buf, CT count, MPI_Datatype dt, int root, MPI_Comm comm P), \
            (buf, count, dt, root, comm A))                                          \
    {                                                                                \
        HS_ENTER(name, (buf, count, dt, root, comm A));                              \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(buf, count, dt, root, comm A);                        \
        rec_bcast(KIND(HS_TRACE_BCAST, R), t0, rc, (uint64_t)count, dt, root, comm, R, XF); \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_BCAST(Bcast, int, 0, B_P, B_A, B_R)
W_BCAST(Ibcast, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_BCAST(Bcast_c, MPI_Count, HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_BCAST(Ibcast_c, MPI_Count, HS_TRACE_F_LARGE, NB_P, NB_A, NB_R)
#endif

/* ---- gather, scatter ------------------------------------------------------------ */

/* Who is the root, and who takes part, in an intra- or intercommunicator. */
static inline void root_role(const hs__comm *c, int root, int *isroot, int *none)
{
    *isroot = c->is_inter ? root == MPI_ROOT : c->my == root;
    *none = c->is_inter && root == MPI_PROC_NULL;
}

static void rec_gather(uint16_t base, uint64_t t0, int rc, const void *sbuf, uint64_t scount,
                       MPI_Datatype stype, const void *rbuf, uint64_t rcount,
                       MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req,
                       uint32_t xf)
{
    hs__comm *c = comm_of(rc, comm);
    int isroot = 0, none = 1;
    if (rc == MPI_SUCCESS)
        root_role(c, root, &isroot, &none);
    int inplace = isroot && (base == HS_TRACE_GATHER ? sbuf : rbuf) == MPI_IN_PLACE;
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c, root, 0, 0,
                            req, xf | (inplace ? HS_TRACE_F_IN_PLACE : 0), &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS && !none) {
        uint64_t p = (uint64_t)peers(c);
        if (base == HS_TRACE_GATHER) {
            /* Intercomm root contributes nothing; intracomm root its block
             * unless in place. */
            r->bytes = (isroot && (c->is_inter || inplace)) ? 0 : sz(scount, stype);
            r->bytes2 = isroot ? sz(rcount, rtype) * p : 0;
        } else {
            r->bytes = isroot ? sz(scount, stype) * p : 0;
            r->bytes2 = (isroot && (c->is_inter || inplace)) ? 0 : sz(rcount, rtype);
        }
    }
    hs__commit(r, s);
}

#define W_GATHER(name, BASE, CT, XF, P, A, R)                                        \
    HS_WRAP(int, name, (const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,   \
                        CT rcount, MPI_Datatype rtype, int root, MPI_Comm comm P),   \
            (sbuf, scount, stype, rbuf, rcount, rtype, root, comm A))                \
    {                                                                                \
        HS_ENTER(name, (sbuf, scount, stype, rbuf, rcount, rtype, root, comm A));    \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm A); \
        rec_gather(BASE, t0, rc, sbuf, (uint64_t)scount, stype, rbuf, (uint64_t)rcount, \
                   rtype, root, comm, R, XF);                                        \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_GATHER(Gather, HS_TRACE_GATHER, int, 0, B_P, B_A, B_R)
W_GATHER(Igather, HS_TRACE_GATHER, int, 0, NB_P, NB_A, NB_R)
W_GATHER(Scatter, HS_TRACE_SCATTER, int, 0, B_P, B_A, B_R)
W_GATHER(Iscatter, HS_TRACE_SCATTER, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_GATHER(Gather_c, HS_TRACE_GATHER, MPI_Count, HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_GATHER(Igather_c, HS_TRACE_GATHER, MPI_Count, HS_TRACE_F_LARGE, NB_P, NB_A, NB_R)
W_GATHER(Scatter_c, HS_TRACE_SCATTER, MPI_Count, HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_GATHER(Iscatter_c, HS_TRACE_SCATTER, MPI_Count, HS_TRACE_F_LARGE, NB_P, NB_A, NB_R)
#endif

/* Gatherv: the root's per-rank receive counts; Scatterv: its send counts. */
static void rec_gatherv(uint16_t base, uint64_t t0, int rc, const void *sbuf, uint64_t scount,
                        MPI_Datatype stype, const void *rbuf, const void *counts,
                        uint64_t rcount, MPI_Datatype rtype, MPI_Datatype vtype, int root,
                        MPI_Comm comm, MPI_Request *req, uint32_t xf, int large)
{
    hs__comm *c = comm_of(rc, comm);
    int isroot = 0, none = 1;
    if (rc == MPI_SUCCESS)
        root_role(c, root, &isroot, &none);
    int gather = base == HS_TRACE_GATHERV;
    int inplace = isroot && (gather ? sbuf : rbuf) == MPI_IN_PLACE;
    uint32_t n = isroot && !none ? (uint32_t)peers(c) : 0;
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c, root,
                            gather ? 0 : n, gather ? n : 0, req,
                            xf | (inplace ? HS_TRACE_F_IN_PLACE : 0), &s);
    if (!r)
        return;
    uint64_t *w = hs__rec_list(r), total = 0, vs = n ? hs__type_size(vtype) : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = cnt_at(counts, (int)i, large);
        w[i] = k * vs;
        total += w[i];
    }
    if (rc == MPI_SUCCESS && !none) {
        if (gather) {
            r->bytes = (isroot && (c->is_inter || inplace)) ? 0 : sz(scount, stype);
            r->bytes2 = total;
        } else {
            r->bytes = total;
            r->bytes2 = (isroot && (c->is_inter || inplace)) ? 0 : sz(rcount, rtype);
        }
    }
    hs__commit(r, s);
}

#define W_GATHERV(name, CT, DT, XF, L, P, A, R)                                      \
    HS_WRAP(int, name, (const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,   \
                        const CT rcounts[], const DT displs[], MPI_Datatype rtype,   \
                        int root, MPI_Comm comm P),                                  \
            (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm A))       \
    {                                                                                \
        HS_ENTER(name, (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm A)); \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, \
                               comm A);                                              \
        rec_gatherv(HS_TRACE_GATHERV, t0, rc, sbuf, (uint64_t)scount, stype, rbuf, rcounts, \
                    0, rtype, rtype, root, comm, R, XF, L);                          \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_SCATTERV(name, CT, DT, XF, L, P, A, R)                                     \
    HS_WRAP(int, name, (const void *sbuf, const CT scounts[], const DT displs[],     \
                        MPI_Datatype stype, void *rbuf, CT rcount, MPI_Datatype rtype, \
                        int root, MPI_Comm comm P),                                  \
            (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm A))       \
    {                                                                                \
        HS_ENTER(name, (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm A)); \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, \
                               comm A);                                              \
        rec_gatherv(HS_TRACE_SCATTERV, t0, rc, sbuf, 0, stype, rbuf, scounts,        \
                    (uint64_t)rcount, rtype, stype, root, comm, R, XF, L);           \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_GATHERV(Gatherv, int, int, 0, 0, B_P, B_A, B_R)
W_GATHERV(Igatherv, int, int, 0, 0, NB_P, NB_A, NB_R)
W_SCATTERV(Scatterv, int, int, 0, 0, B_P, B_A, B_R)
W_SCATTERV(Iscatterv, int, int, 0, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_GATHERV(Gatherv_c, MPI_Count, MPI_Aint, HS_TRACE_F_LARGE, 1, B_P, B_A, B_R)
W_GATHERV(Igatherv_c, MPI_Count, MPI_Aint, HS_TRACE_F_LARGE, 1, NB_P, NB_A, NB_R)
W_SCATTERV(Scatterv_c, MPI_Count, MPI_Aint, HS_TRACE_F_LARGE, 1, B_P, B_A, B_R)
W_SCATTERV(Iscatterv_c, MPI_Count, MPI_Aint, HS_TRACE_F_LARGE, 1, NB_P, NB_A, NB_R)
#endif

/* ---- allgather, alltoall and their neighbourhood forms ----------------------------- */

/* Fills (world rank, bytes) pairs for the neighbours of c; PROC_NULL
 * neighbours move nothing.  counts == NULL: every neighbour gets `each`. */
static uint64_t fill_nb(uint64_t *w, const int32_t *nb, int n, const void *counts, int large,
                        uint64_t each, uint64_t tsize, const MPI_Datatype *types)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        uint64_t b = counts ? cnt_at(counts, i, large) : each;
        if (b && types)
            b *= hs__type_size(types[i]);
        else if (counts)
            b *= tsize;
        if (nb[i] < 0)
            b = 0;
        w[2 * i] = (uint64_t)(int64_t)nb[i];
        w[2 * i + 1] = b;
        total += b;
    }
    return total;
}

static void rec_allgather(uint16_t base, uint64_t t0, int rc, const void *sbuf, uint64_t scount,
                          MPI_Datatype stype, uint64_t rcount, MPI_Datatype rtype,
                          MPI_Comm comm, MPI_Request *req, uint32_t xf)
{
    hs__comm *c = comm_of(rc, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    int nbr = base == HS_TRACE_NEIGHBOR_ALLGATHER || base == HS_TRACE_NEIGHBOR_ALLTOALL;
    int have_nb = rc == MPI_SUCCESS && nbr && hs__comm_neighbors(c, comm);
    uint32_t na = have_nb ? (uint32_t)c->nout : 0, nb = have_nb ? (uint32_t)c->nin : 0;
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c,
                            MPI_UNDEFINED, na, nb, req,
                            xf | (inplace ? HS_TRACE_F_IN_PLACE : 0), &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS) {
        uint64_t p = (uint64_t)peers(c);
        uint64_t rb = sz(rcount, rtype), sb = inplace ? rb : sz(scount, stype);
        if (have_nb) {
            uint64_t *w = hs__rec_list(r);
            r->bytes = fill_nb(w, c->nb_out, c->nout, NULL, 0, sb, 1, NULL);
            r->bytes2 = fill_nb(w + 2 * na, c->nb_in, c->nin, NULL, 0, rb, 1, NULL);
        } else if (!nbr) {
            r->bytes = base == HS_TRACE_ALLGATHER ? sb : sb * p;
            r->bytes2 = rb * p;
        }
    }
    hs__commit(r, s);
}

#define W_ALLGATHER(name, BASE, CT, XF, P, A, R)                                     \
    HS_WRAP(int, name, (const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,   \
                        CT rcount, MPI_Datatype rtype, MPI_Comm comm P),             \
            (sbuf, scount, stype, rbuf, rcount, rtype, comm A))                      \
    {                                                                                \
        HS_ENTER(name, (sbuf, scount, stype, rbuf, rcount, rtype, comm A));          \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scount, stype, rbuf, rcount, rtype, comm A);    \
        rec_allgather(BASE, t0, rc, sbuf, (uint64_t)scount, stype, (uint64_t)rcount, rtype, \
                      comm, R, XF);                                                  \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_ALLGATHER(Allgather, HS_TRACE_ALLGATHER, int, 0, B_P, B_A, B_R)
W_ALLGATHER(Iallgather, HS_TRACE_ALLGATHER, int, 0, NB_P, NB_A, NB_R)
W_ALLGATHER(Alltoall, HS_TRACE_ALLTOALL, int, 0, B_P, B_A, B_R)
W_ALLGATHER(Ialltoall, HS_TRACE_ALLTOALL, int, 0, NB_P, NB_A, NB_R)
W_ALLGATHER(Neighbor_allgather, HS_TRACE_NEIGHBOR_ALLGATHER, int, 0, B_P, B_A, B_R)
W_ALLGATHER(Ineighbor_allgather, HS_TRACE_NEIGHBOR_ALLGATHER, int, 0, NB_P, NB_A, NB_R)
W_ALLGATHER(Neighbor_alltoall, HS_TRACE_NEIGHBOR_ALLTOALL, int, 0, B_P, B_A, B_R)
W_ALLGATHER(Ineighbor_alltoall, HS_TRACE_NEIGHBOR_ALLTOALL, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
#define LF HS_TRACE_F_LARGE
W_ALLGATHER(Allgather_c, HS_TRACE_ALLGATHER, MPI_Count, LF, B_P, B_A, B_R)
W_ALLGATHER(Iallgather_c, HS_TRACE_ALLGATHER, MPI_Count, LF, NB_P, NB_A, NB_R)
W_ALLGATHER(Alltoall_c, HS_TRACE_ALLTOALL, MPI_Count, LF, B_P, B_A, B_R)
W_ALLGATHER(Ialltoall_c, HS_TRACE_ALLTOALL, MPI_Count, LF, NB_P, NB_A, NB_R)
W_ALLGATHER(Neighbor_allgather_c, HS_TRACE_NEIGHBOR_ALLGATHER, MPI_Count, LF, B_P, B_A, B_R)
W_ALLGATHER(Ineighbor_allgather_c, HS_TRACE_NEIGHBOR_ALLGATHER, MPI_Count, LF, NB_P, NB_A, NB_R)
W_ALLGATHER(Neighbor_alltoall_c, HS_TRACE_NEIGHBOR_ALLTOALL, MPI_Count, LF, B_P, B_A, B_R)
W_ALLGATHER(Ineighbor_alltoall_c, HS_TRACE_NEIGHBOR_ALLTOALL, MPI_Count, LF, NB_P, NB_A, NB_R)
#endif

/* Allgatherv (and its neighbourhood form): per-rank receive counts. */
static void rec_allgatherv(uint16_t base, uint64_t t0, int rc, const void *sbuf,
                           uint64_t scount, MPI_Datatype stype, const void *rcounts,
                           MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, uint32_t xf,
                           int large)
{
    hs__comm *c = comm_of(rc, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    int nbr = base == HS_TRACE_NEIGHBOR_ALLGATHERV;
    int have_nb = rc == MPI_SUCCESS && nbr && hs__comm_neighbors(c, comm);
    uint32_t na = have_nb ? (uint32_t)c->nout : 0;
    uint32_t nb = have_nb ? (uint32_t)c->nin : (rc == MPI_SUCCESS && !nbr ? (uint32_t)peers(c) : 0);
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c,
                            MPI_UNDEFINED, na, nb, req,
                            xf | (inplace ? HS_TRACE_F_IN_PLACE : 0), &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS) {
        uint64_t rs = hs__type_size(rtype);
        uint64_t *w = hs__rec_list(r);
        if (have_nb) {
            r->bytes = fill_nb(w, c->nb_out, c->nout, NULL, 0, sz(scount, stype), 1, NULL);
            r->bytes2 = fill_nb(w + 2 * na, c->nb_in, c->nin, rcounts, large, 0, rs, NULL);
        } else if (!nbr) {
            uint64_t total = 0;
            for (uint32_t i = 0; i < nb; i++) {
                w[i] = cnt_at(rcounts, (int)i, large) * rs;
                total += w[i];
            }
            r->bytes2 = total;
            r->bytes = inplace ? (c->my < (int)nb && !c->is_inter ? w[c->my] : 0)
                               : sz(scount, stype);
        }
    }
    hs__commit(r, s);
}

#define W_ALLGATHERV(name, BASE, CT, DT, XF, L, P, A, R)                             \
    HS_WRAP(int, name, (const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,   \
                        const CT rcounts[], const DT displs[], MPI_Datatype rtype,   \
                        MPI_Comm comm P),                                            \
            (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm A))             \
    {                                                                                \
        HS_ENTER(name, (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm A)); \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm A); \
        rec_allgatherv(BASE, t0, rc, sbuf, (uint64_t)scount, stype, rcounts, rtype, comm, R, \
                       XF, L);                                                       \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_ALLGATHERV(Allgatherv, HS_TRACE_ALLGATHERV, int, int, 0, 0, B_P, B_A, B_R)
W_ALLGATHERV(Iallgatherv, HS_TRACE_ALLGATHERV, int, int, 0, 0, NB_P, NB_A, NB_R)
W_ALLGATHERV(Neighbor_allgatherv, HS_TRACE_NEIGHBOR_ALLGATHERV, int, int, 0, 0, B_P, B_A, B_R)
W_ALLGATHERV(Ineighbor_allgatherv, HS_TRACE_NEIGHBOR_ALLGATHERV, int, int, 0, 0, NB_P, NB_A,
             NB_R)
#if HS_MPI4
W_ALLGATHERV(Allgatherv_c, HS_TRACE_ALLGATHERV, MPI_Count, MPI_Aint, LF, 1, B_P, B_A, B_R)
W_ALLGATHERV(Iallgatherv_c, HS_TRACE_ALLGATHERV, MPI_Count, MPI_Aint, LF, 1, NB_P, NB_A, NB_R)
W_ALLGATHERV(Neighbor_allgatherv_c, HS_TRACE_NEIGHBOR_ALLGATHERV, MPI_Count, MPI_Aint, LF, 1,
             B_P, B_A, B_R)
W_ALLGATHERV(Ineighbor_allgatherv_c, HS_TRACE_NEIGHBOR_ALLGATHERV, MPI_Count, MPI_Aint, LF, 1,
             NB_P, NB_A, NB_R)
#endif

/* Alltoallv/w and their neighbourhood forms.  stypes/rtypes: NULL for the
 * v forms (one type each), arrays for the w forms. */
static void rec_alltoallv(uint16_t base, uint64_t t0, int rc, const void *sbuf,
                          const void *scounts, MPI_Datatype stype, const MPI_Datatype *stypes,
                          const void *rcounts, MPI_Datatype rtype, const MPI_Datatype *rtypes,
                          MPI_Comm comm, MPI_Request *req, uint32_t xf, int large)
{
    hs__comm *c = comm_of(rc, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    int nbr = base >= HS_TRACE_NEIGHBOR_ALLGATHER;
    int have_nb = rc == MPI_SUCCESS && nbr && hs__comm_neighbors(c, comm);
    uint32_t na, nb;
    if (nbr) {
        na = have_nb ? (uint32_t)c->nout : 0;
        nb = have_nb ? (uint32_t)c->nin : 0;
    } else {
        na = nb = rc == MPI_SUCCESS ? (uint32_t)peers(c) : 0;
    }
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c,
                            MPI_UNDEFINED, na, nb, req,
                            xf | (inplace ? HS_TRACE_F_IN_PLACE : 0), &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS) {
        /* In place: what is sent is described by the receive arguments. */
        const void *sc = inplace ? rcounts : scounts;
        MPI_Datatype st1 = inplace ? rtype : stype;
        const MPI_Datatype *stv = inplace ? rtypes : stypes;
        uint64_t *w = hs__rec_list(r);
        if (have_nb) {
            r->bytes = fill_nb(w, c->nb_out, c->nout, sc, large, 0,
                               stv ? 1 : hs__type_size(st1), stv);
            r->bytes2 = fill_nb(w + 2 * na, c->nb_in, c->nin, rcounts, large, 0,
                                rtypes ? 1 : hs__type_size(rtype), rtypes);
        } else if (!nbr) {
            uint64_t ss = stv ? 0 : hs__type_size(st1), rs = rtypes ? 0 : hs__type_size(rtype);
            uint64_t ts = 0, tr = 0;
            for (uint32_t i = 0; i < na; i++) {
                uint64_t k = cnt_at(sc, (int)i, large);
                w[i] = k ? k * (stv ? hs__type_size(stv[i]) : ss) : 0;
                ts += w[i];
                k = cnt_at(rcounts, (int)i, large);
                w[na + i] = k ? k * (rtypes ? hs__type_size(rtypes[i]) : rs) : 0;
                tr += w[na + i];
            }
            r->bytes = ts;
            r->bytes2 = tr;
        }
    }
    hs__commit(r, s);
}

#define W_ALLTOALLV(name, BASE, CT, DT, XF, L, P, A, R)                              \
    HS_WRAP(int, name, (const void *sbuf, const CT scounts[], const DT sdispls[],    \
                        MPI_Datatype stype, void *rbuf, const CT rcounts[],          \
                        const DT rdispls[], MPI_Datatype rtype, MPI_Comm comm P),    \
            (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm A))  \
    {                                                                                \
        HS_ENTER(name, (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm A)); \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, \
                               comm A);                                              \
        rec_alltoallv(BASE, t0, rc, sbuf, scounts, stype, NULL, rcounts, rtype, NULL, comm, \
                      R, XF, L);                                                     \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_ALLTOALLW(name, BASE, CT, DT, XF, L, P, A, R)                              \
    HS_WRAP(int, name, (const void *sbuf, const CT scounts[], const DT sdispls[],    \
                        const MPI_Datatype stypes[], void *rbuf, const CT rcounts[],  \
                        const DT rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm P), \
            (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm A)) \
    {                                                                                \
        HS_ENTER(name, (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, \
                        comm A));                                                    \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, \
                               rtypes, comm A);                                      \
        rec_alltoallv(BASE, t0, rc, sbuf, scounts, MPI_DATATYPE_NULL, stypes, rcounts, \
                      MPI_DATATYPE_NULL, rtypes, comm, R, XF, L);                    \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_ALLTOALLV(Alltoallv, HS_TRACE_ALLTOALLV, int, int, 0, 0, B_P, B_A, B_R)
W_ALLTOALLV(Ialltoallv, HS_TRACE_ALLTOALLV, int, int, 0, 0, NB_P, NB_A, NB_R)
W_ALLTOALLV(Neighbor_alltoallv, HS_TRACE_NEIGHBOR_ALLTOALLV, int, int, 0, 0, B_P, B_A, B_R)
W_ALLTOALLV(Ineighbor_alltoallv, HS_TRACE_NEIGHBOR_ALLTOALLV, int, int, 0, 0, NB_P, NB_A, NB_R)
W_ALLTOALLW(Alltoallw, HS_TRACE_ALLTOALLW, int, int, 0, 0, B_P, B_A, B_R)
W_ALLTOALLW(Ialltoallw, HS_TRACE_ALLTOALLW, int, int, 0, 0, NB_P, NB_A, NB_R)
W_ALLTOALLW(Neighbor_alltoallw, HS_TRACE_NEIGHBOR_ALLTOALLW, int, MPI_Aint, 0, 0, B_P, B_A, B_R)
W_ALLTOALLW(Ineighbor_alltoallw, HS_TRACE_NEIGHBOR_ALLTOALLW, int, MPI_Aint, 0, 0, NB_P, NB_A,
            NB_R)
#if HS_MPI4
W_ALLTOALLV(Alltoallv_c, HS_TRACE_ALLTOALLV, MPI_Count, MPI_Aint, LF, 1, B_P, B_A, B_R)
W_ALLTOALLV(Ialltoallv_c, HS_TRACE_ALLTOALLV, MPI_Count, MPI_Aint, LF, 1, NB_P, NB_A, NB_R)
W_ALLTOALLV(Neighbor_alltoallv_c, HS_TRACE_NEIGHBOR_ALLTOALLV, MPI_Count, MPI_Aint, LF, 1, B_P,
            B_A, B_R)
W_ALLTOALLV(Ineighbor_alltoallv_c, HS_TRACE_NEIGHBOR_ALLTOALLV, MPI_Count, MPI_Aint, LF, 1, NB_P,
            NB_A, NB_R)
W_ALLTOALLW(Alltoallw_c, HS_TRACE_ALLTOALLW, MPI_Count, MPI_Aint, LF, 1, B_P, B_A, B_R)
W_ALLTOALLW(Ialltoallw_c, HS_TRACE_ALLTOALLW, MPI_Count, MPI_Aint, LF, 1, NB_P, NB_A, NB_R)
W_ALLTOALLW(Neighbor_alltoallw_c, HS_TRACE_NEIGHBOR_ALLTOALLW, MPI_Count, MPI_Aint, LF, 1, B_P,
            B_A, B_R)
W_ALLTOALLW(Ineighbor_alltoallw_c, HS_TRACE_NEIGHBOR_ALLTOALLW, MPI_Count, MPI_Aint, LF, 1, NB_P,
            NB_A, NB_R)
#endif

/* ---- reductions --------------------------------------------------------------------- */

static void rec_reduce(uint16_t base, uint64_t t0, int rc, const void *sbuf, uint64_t count,
                       MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req, uint32_t xf)
{
    hs__comm *c = comm_of(rc, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c,
                            base == HS_TRACE_REDUCE ? root : MPI_UNDEFINED, 0, 0, req,
                            xf | (inplace ? HS_TRACE_F_IN_PLACE : 0), &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS) {
        uint64_t n = sz(count, dt);
        if (base == HS_TRACE_REDUCE) {
            int isroot, none;
            root_role(c, root, &isroot, &none);
            r->bytes = none || (isroot && c->is_inter) ? 0 : n;
            r->bytes2 = isroot ? n : 0;
        } else {
            r->bytes = r->bytes2 = n;
        }
    }
    hs__commit(r, s);
}

#define W_REDUCE(name, CT, XF, P, A, R)                                              \
    HS_WRAP(int, name, (const void *sbuf, void *rbuf, CT count, MPI_Datatype dt, MPI_Op op, \
                        int root, MPI_Comm comm P), (sbuf, rbuf, count, dt, op, root, comm A)) \
    {                                                                                \
        HS_ENTER(name, (sbuf, rbuf, count, dt, op, root, comm A));                   \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, rbuf, count, dt, op, root, comm A);             \
        rec_reduce(HS_TRACE_REDUCE, t0, rc, sbuf, (uint64_t)count, dt, root, comm, R, XF); \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_ALLREDUCE(name, BASE, CT, XF, P, A, R)                                     \
    HS_WRAP(int, name, (const void *sbuf, void *rbuf, CT count, MPI_Datatype dt, MPI_Op op, \
                        MPI_Comm comm P), (sbuf, rbuf, count, dt, op, comm A))       \
    {                                                                                \
        HS_ENTER(name, (sbuf, rbuf, count, dt, op, comm A));                         \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, rbuf, count, dt, op, comm A);                   \
        rec_reduce(BASE, t0, rc, sbuf, (uint64_t)count, dt, MPI_UNDEFINED, comm, R, XF); \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_REDUCE(Reduce, int, 0, B_P, B_A, B_R)
W_REDUCE(Ireduce, int, 0, NB_P, NB_A, NB_R)
W_ALLREDUCE(Allreduce, HS_TRACE_ALLREDUCE, int, 0, B_P, B_A, B_R)
W_ALLREDUCE(Iallreduce, HS_TRACE_ALLREDUCE, int, 0, NB_P, NB_A, NB_R)
W_ALLREDUCE(Scan, HS_TRACE_SCAN, int, 0, B_P, B_A, B_R)
W_ALLREDUCE(Iscan, HS_TRACE_SCAN, int, 0, NB_P, NB_A, NB_R)
W_ALLREDUCE(Exscan, HS_TRACE_EXSCAN, int, 0, B_P, B_A, B_R)
W_ALLREDUCE(Iexscan, HS_TRACE_EXSCAN, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_REDUCE(Reduce_c, MPI_Count, LF, B_P, B_A, B_R)
W_REDUCE(Ireduce_c, MPI_Count, LF, NB_P, NB_A, NB_R)
W_ALLREDUCE(Allreduce_c, HS_TRACE_ALLREDUCE, MPI_Count, LF, B_P, B_A, B_R)
W_ALLREDUCE(Iallreduce_c, HS_TRACE_ALLREDUCE, MPI_Count, LF, NB_P, NB_A, NB_R)
W_ALLREDUCE(Scan_c, HS_TRACE_SCAN, MPI_Count, LF, B_P, B_A, B_R)
W_ALLREDUCE(Iscan_c, HS_TRACE_SCAN, MPI_Count, LF, NB_P, NB_A, NB_R)
W_ALLREDUCE(Exscan_c, HS_TRACE_EXSCAN, MPI_Count, LF, B_P, B_A, B_R)
W_ALLREDUCE(Iexscan_c, HS_TRACE_EXSCAN, MPI_Count, LF, NB_P, NB_A, NB_R)
#endif

/* Reduce_scatter: everyone contributes sum(rcounts); rank i keeps block i
 * (recorded in recvfrom, intracommunicators only).  _block: equal blocks. */
static void rec_reduce_scatter(uint16_t base, uint64_t t0, int rc, const void *sbuf,
                               const void *rcounts, uint64_t rcount, MPI_Datatype dt,
                               MPI_Comm comm, MPI_Request *req, uint32_t xf, int large)
{
    hs__comm *c = comm_of(rc, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    uint32_t nb = rc == MPI_SUCCESS && rcounts && !c->is_inter ? (uint32_t)c->size : 0;
    size_t s;
    hs__rec *r = coll_begin((uint16_t)(base + (req ? HS_TRACE_NB : 0)), t0, rc, c,
                            MPI_UNDEFINED, 0, nb, req, xf | (inplace ? HS_TRACE_F_IN_PLACE : 0),
                            &s);
    if (!r)
        return;
    if (rc == MPI_SUCCESS) {
        uint64_t ts = hs__type_size(dt);
        if (rcounts) {
            uint64_t *w = hs__rec_list(r), total = 0, mine = 0;
            int n = c->is_inter ? c->size : c->size;
            for (int i = 0; i < n; i++) {
                uint64_t b = cnt_at(rcounts, i, large) * ts;
                if ((uint32_t)i < nb)
                    w[i] = b;
                total += b;
                if (i == c->my)
                    mine = b;
            }
            r->bytes = total;
            r->bytes2 = mine;
        } else {
            r->bytes = rcount * ts * (uint64_t)c->size;
            r->bytes2 = rcount * ts;
        }
    }
    hs__commit(r, s);
}

#define W_RSCAT(name, CT, XF, L, P, A, R)                                            \
    HS_WRAP(int, name, (const void *sbuf, void *rbuf, const CT rcounts[], MPI_Datatype dt, \
                        MPI_Op op, MPI_Comm comm P), (sbuf, rbuf, rcounts, dt, op, comm A)) \
    {                                                                                \
        HS_ENTER(name, (sbuf, rbuf, rcounts, dt, op, comm A));                       \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, rbuf, rcounts, dt, op, comm A);                 \
        rec_reduce_scatter(HS_TRACE_REDUCE_SCATTER, t0, rc, sbuf, rcounts, 0, dt, comm, R, \
                           XF, L);                                                   \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_RSCATB(name, CT, XF, P, A, R)                                              \
    HS_WRAP(int, name, (const void *sbuf, void *rbuf, CT rcount, MPI_Datatype dt, MPI_Op op, \
                        MPI_Comm comm P), (sbuf, rbuf, rcount, dt, op, comm A))      \
    {                                                                                \
        HS_ENTER(name, (sbuf, rbuf, rcount, dt, op, comm A));                        \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(sbuf, rbuf, rcount, dt, op, comm A);                  \
        rec_reduce_scatter(HS_TRACE_REDUCE_SCATTER_BLOCK, t0, rc, sbuf, NULL,        \
                           (uint64_t)rcount, dt, comm, R, XF, 0);                    \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_RSCAT(Reduce_scatter, int, 0, 0, B_P, B_A, B_R)
W_RSCAT(Ireduce_scatter, int, 0, 0, NB_P, NB_A, NB_R)
W_RSCATB(Reduce_scatter_block, int, 0, B_P, B_A, B_R)
W_RSCATB(Ireduce_scatter_block, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_RSCAT(Reduce_scatter_c, MPI_Count, LF, 1, B_P, B_A, B_R)
W_RSCAT(Ireduce_scatter_c, MPI_Count, LF, 1, NB_P, NB_A, NB_R)
W_RSCATB(Reduce_scatter_block_c, MPI_Count, LF, B_P, B_A, B_R)
W_RSCATB(Ireduce_scatter_block_c, MPI_Count, LF, NB_P, NB_A, NB_R)
#endif
