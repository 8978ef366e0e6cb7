/* libhopscope.so: start and end of the job, communicator constructors and
 * destructors, virtual nodes (MPI_Get_processor_name, shared-memory splits),
 * datatype frees (invalidate the size cache).
 *
 * Every member of a parent communicator takes the parent's constructor count
 * for every constructor call, even one that gives it MPI_COMM_NULL: that
 * count is what lets all members of the new communicator compute the same id
 * without talking (tables.c). */
#include "interpose.h"

#include <string.h>

/* ---- init and finalize ----------------------------------------------------------- */

HS_WRAP(int, Init, (int *argc, char ***argv), (argc, argv))
{
    hs__early_init();
    hs__tls *t = &hs__t;
    if (t->depth || hs__g.disabled || hs__g.started)
        return HS_REAL(Init)(argc, argv);
    t->depth = 1;
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Init)(argc, argv);
    uint64_t t1 = hs__now();
    if (rc == MPI_SUCCESS) {
        int provided = MPI_THREAD_SINGLE;
        HS_PMPI(Query_thread)(&provided);
        hs__start(provided, t0, t1);
    }
    t->depth = 0;
    return rc;
}

HS_WRAP(int, Init_thread, (int *argc, char ***argv, int required, int *provided),
        (argc, argv, required, provided))
{
    hs__early_init();
    hs__tls *t = &hs__t;
    if (t->depth || hs__g.disabled || hs__g.started)
        return HS_REAL(Init_thread)(argc, argv, required, provided);
    t->depth = 1;
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Init_thread)(argc, argv, required, provided);
    uint64_t t1 = hs__now();
    if (rc == MPI_SUCCESS)
        hs__start(*provided, t0, t1);
    t->depth = 0;
    return rc;
}

HS_WRAP(int, Finalize, (void), ())
{
    hs__tls *t = &hs__t;
    if (t->depth || !hs__g.started || hs__g.finished)
        return HS_REAL(Finalize)();
    t->depth = 1;
    hs__clock_rec c1;
    int have = hs__finalize_prepare(&c1);
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Finalize)();
    hs__rec *r = hs__rec0(HS_TRACE_FINALIZE, t0, hs__now(), hs__rcflag(rc));
    if (r)
        hs__commit(r, sizeof *r);
    hs__finish(HS_TRACE_END_FINALIZE, 0, have ? &c1 : NULL);
    t->depth = 0;
    return rc;
}

HS_WRAP(int, Abort, (MPI_Comm comm, int code), (comm, code))
{
    hs__tls *t = &hs__t;
    if (!t->depth && hs__g.started && !hs__g.finished) {
        t->depth = 1;
        uint64_t now = hs__now();
        hs__rec *r = hs__rec0(HS_TRACE_ABORT, now, now, 0);
        if (r) {
            r->comm = atomic_load(&hs__g.active) ? hs__comm_get(comm)->index : HS__NOIDX;
            r->aux = (uint64_t)(unsigned)code;
            hs__commit(r, sizeof *r);
        }
        hs__finish(HS_TRACE_END_ABORT, code, NULL);
        t->depth = 0;
    }
    return HS_REAL(Abort)(comm, code);
}

/* ---- constructors ----------------------------------------------------------------- */

/* After a constructor collective over `parent`: register the result. */
static void created(MPI_Comm parent_comm, uint32_t seq, hs__comm *parent, int rc,
                    MPI_Comm newcomm, int ctor, uint64_t t0, int idup)
{
    uint64_t t1 = hs__now();
    if (rc != MPI_SUCCESS || newcomm == MPI_COMM_NULL)
        return;
    (void)parent_comm;
    hs__comm_register(newcomm, ctor, parent, seq, t0, t1, idup);
}

/* Common body: take the parent's count, call, register. */
#define CTOR_BODY(name, ctor, parentc, out, idup, call_args)                         \
    HS_ENTER(name, call_args);                                                       \
    hs__comm *parent = hs__comm_get(parentc);                                        \
    uint32_t seq = hs__comm_next_seq(parent);                                        \
    uint64_t t0 = hs__now();                                                         \
    int rc = HS_REAL(name) call_args;                                                \
    created(parentc, seq, parent, rc, *(out), ctor, t0, idup);                       \
    HS_LEAVE();                                                                      \
    return rc

HS_WRAP(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm))
{
    CTOR_BODY(Comm_dup, HS_TRACE_CTOR_DUP, comm, newcomm, 0, (comm, newcomm));
}

HS_WRAP(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
        (comm, info, newcomm))
{
    CTOR_BODY(Comm_dup_with_info, HS_TRACE_CTOR_DUP, comm, newcomm, 0, (comm, info, newcomm));
}

HS_WRAP(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req),
        (comm, newcomm, req))
{
    CTOR_BODY(Comm_idup, HS_TRACE_CTOR_IDUP, comm, newcomm, 1, (comm, newcomm, req));
}

#if HS_MPI4
HS_WRAP(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                   MPI_Request *req), (comm, info, newcomm, req))
{
    CTOR_BODY(Comm_idup_with_info, HS_TRACE_CTOR_IDUP, comm, newcomm, 1,
              (comm, info, newcomm, req));
}
#endif

HS_WRAP(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
        (comm, color, key, newcomm))
{
    CTOR_BODY(Comm_split, HS_TRACE_CTOR_SPLIT, comm, newcomm, 0, (comm, color, key, newcomm));
}

/* With virtual nodes, "the ranks that share memory" are the ranks of the same
 * virtual node, so node-aware codes see N nodes on one machine. */
HS_WRAP(int, Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info,
                               MPI_Comm *newcomm), (comm, type, key, info, newcomm))
{
    HS_ENTER(Comm_split_type, (comm, type, key, info, newcomm));
    hs__comm *parent = hs__comm_get(comm);
    uint32_t seq = hs__comm_next_seq(parent);
    uint64_t t0 = hs__now();
    int rc;
    if (hs__g.vnodes && type == MPI_COMM_TYPE_SHARED)
        rc = HS_PMPI(Comm_split)(comm, (int)hs__g.rank_node[hs__g.rank], key, newcomm);
    else
        rc = HS_REAL(Comm_split_type)(comm, type, key, info, newcomm);
    created(comm, seq, parent, rc, *newcomm, HS_TRACE_CTOR_SPLIT_TYPE, t0, 0);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),
        (comm, group, newcomm))
{
    CTOR_BODY(Comm_create, HS_TRACE_CTOR_CREATE, comm, newcomm, 0, (comm, group, newcomm));
}

HS_WRAP(int, Cart_create, (MPI_Comm comm, int ndims, const int dims[], const int periods[],
                           int reorder, MPI_Comm *newcomm),
        (comm, ndims, dims, periods, reorder, newcomm))
{
    CTOR_BODY(Cart_create, HS_TRACE_CTOR_CART_CREATE, comm, newcomm, 0,
              (comm, ndims, dims, periods, reorder, newcomm));
}

HS_WRAP(int, Cart_sub, (MPI_Comm comm, const int remain[], MPI_Comm *newcomm),
        (comm, remain, newcomm))
{
    CTOR_BODY(Cart_sub, HS_TRACE_CTOR_CART_SUB, comm, newcomm, 0, (comm, remain, newcomm));
}

HS_WRAP(int, Graph_create, (MPI_Comm comm, int nnodes, const int index[], const int edges[],
                            int reorder, MPI_Comm *newcomm),
        (comm, nnodes, index, edges, reorder, newcomm))
{
    CTOR_BODY(Graph_create, HS_TRACE_CTOR_GRAPH_CREATE, comm, newcomm, 0,
              (comm, nnodes, index, edges, reorder, newcomm));
}

HS_WRAP(int, Dist_graph_create, (MPI_Comm comm, int n, const int sources[], const int degrees[],
                                 const int destinations[], const int weights[], MPI_Info info,
                                 int reorder, MPI_Comm *newcomm),
        (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm))
{
    CTOR_BODY(Dist_graph_create, HS_TRACE_CTOR_DIST_GRAPH_CREATE, comm, newcomm, 0,
              (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm));
}

HS_WRAP(int, Dist_graph_create_adjacent,
        (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
         int outdegree, const int destinations[], const int destweights[], MPI_Info info,
         int reorder, MPI_Comm *newcomm),
        (comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
         reorder, newcomm))
{
    CTOR_BODY(Dist_graph_create_adjacent, HS_TRACE_CTOR_DIST_GRAPH_CREATE_ADJACENT, comm,
              newcomm, 0, (comm, indegree, sources, sourceweights, outdegree, destinations,
                           destweights, info, reorder, newcomm));
}

HS_WRAP(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newcomm),
        (intercomm, high, newcomm))
{
    CTOR_BODY(Intercomm_merge, HS_TRACE_CTOR_INTERCOMM_MERGE, intercomm, newcomm, 0,
              (intercomm, high, newcomm));
}

/* Collective only over the new members: the id is agreed on the new
 * communicator (tables.c). */
HS_WRAP(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
        (comm, group, tag, newcomm))
{
    HS_ENTER(Comm_create_group, (comm, group, tag, newcomm));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Comm_create_group)(comm, group, tag, newcomm);
    uint64_t t1 = hs__now();
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        hs__comm_register_agreed(*newcomm, HS_TRACE_CTOR_CREATE_GROUP, hs__comm_get(comm), t0,
                                 t1);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Intercomm_create, (MPI_Comm local, int local_leader, MPI_Comm peer,
                                int remote_leader, int tag, MPI_Comm *newcomm),
        (local, local_leader, peer, remote_leader, tag, newcomm))
{
    HS_ENTER(Intercomm_create, (local, local_leader, peer, remote_leader, tag, newcomm));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Intercomm_create)(local, local_leader, peer, remote_leader, tag, newcomm);
    uint64_t t1 = hs__now();
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        hs__comm_register_agreed(*newcomm, HS_TRACE_CTOR_INTERCOMM_CREATE, hs__comm_get(local),
                                 t0, t1);
    HS_LEAVE();
    return rc;
}

/* ---- destructors ------------------------------------------------------------------ */

HS_WRAP(int, Comm_free, (MPI_Comm *comm), (comm))
{
    HS_ENTER(Comm_free, (comm));
    hs__comm *c = hs__comm_take(*comm);
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Comm_free)(comm);
    hs__comm_freed(c, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Comm_disconnect, (MPI_Comm *comm), (comm))
{
    HS_ENTER(Comm_disconnect, (comm));
    hs__comm *c = hs__comm_take(*comm);
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Comm_disconnect)(comm);
    hs__comm_freed(c, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

/* A freed datatype handle may come back with another size: drop every
 * thread's size cache. */
HS_WRAP(int, Type_free, (MPI_Datatype *dt), (dt))
{
    atomic_fetch_add_explicit(&hs__g.type_gen, 1, memory_order_release);
    return HS_REAL(Type_free)(dt);
}

/* ---- virtual nodes ---------------------------------------------------------------- */

HS_WRAP(int, Get_processor_name, (char *name, int *len), (name, len))
{
    if (!hs__g.vnodes || hs__t.depth)
        return HS_REAL(Get_processor_name)(name, len);
    size_t n = strlen(hs__g.my_node_name);
    memcpy(name, hs__g.my_node_name, n + 1);
    *len = (int)n;
    return MPI_SUCCESS;
}
