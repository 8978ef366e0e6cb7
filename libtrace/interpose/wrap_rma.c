/* libhopscope.so: one-sided communication.  Windows get job-wide ids like
 * communicators (their constructors are collective over a communicator); a
 * data operation records the target as a world rank, the bytes that travel
 * origin -> target (bytes) and target -> origin (bytes2), and whether the
 * message is monitored; synchronisation calls record what they name (target,
 * lock type, assert, the group of a PSCW epoch). */
#include "interpose.h"


/* ---- window lifetime ------------------------------------------------------------ */

HS_WRAP(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                          MPI_Comm comm, MPI_Win *win), (base, size, disp_unit, info, comm, win))
{
    HS_ENTER(Win_create, (base, size, disp_unit, info, comm, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_create)(base, size, disp_unit, info, comm, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_CREATE, (uint64_t)size, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win), (size, disp_unit, info, comm, baseptr, win))
{
    HS_ENTER(Win_allocate, (size, disp_unit, info, comm, baseptr, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_allocate)(size, disp_unit, info, comm, baseptr, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_ALLOCATE, (uint64_t)size, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                   void *baseptr, MPI_Win *win),
        (size, disp_unit, info, comm, baseptr, win))
{
    HS_ENTER(Win_allocate_shared, (size, disp_unit, info, comm, baseptr, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_allocate_shared)(size, disp_unit, info, comm, baseptr, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_ALLOCATE_SHARED, (uint64_t)size, t0, hs__now(),
                     rc);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win), (info, comm, win))
{
    HS_ENTER(Win_create_dynamic, (info, comm, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_create_dynamic)(info, comm, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_CREATE_DYNAMIC, 0, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

#if HS_MPI4
HS_WRAP(int, Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                            MPI_Comm comm, MPI_Win *win), (base, size, disp_unit, info, comm, win))
{
    HS_ENTER(Win_create_c, (base, size, disp_unit, info, comm, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_create_c)(base, size, disp_unit, info, comm, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_CREATE, (uint64_t)size, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win),
        (size, disp_unit, info, comm, baseptr, win))
{
    HS_ENTER(Win_allocate_c, (size, disp_unit, info, comm, baseptr, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_allocate_c)(size, disp_unit, info, comm, baseptr, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_ALLOCATE, (uint64_t)size, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                     MPI_Comm comm, void *baseptr, MPI_Win *win),
        (size, disp_unit, info, comm, baseptr, win))
{
    HS_ENTER(Win_allocate_shared_c, (size, disp_unit, info, comm, baseptr, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_allocate_shared_c)(size, disp_unit, info, comm, baseptr, win);
    hs__win_register(*win, comm, HS_TRACE_WCTOR_ALLOCATE_SHARED, (uint64_t)size, t0, hs__now(),
                     rc);
    HS_LEAVE();
    return rc;
}
#endif

HS_WRAP(int, Win_free, (MPI_Win *win), (win))
{
    HS_ENTER(Win_free, (win));
    hs__win *x = hs__win_take(*win);
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_free)(win);
    hs__win_freed(x, t0, hs__now(), rc);
    HS_LEAVE();
    return rc;
}

/* ---- data movement -------------------------------------------------------------- */

/* One data operation.  Events on windows hopscope does not know (created
 * while it was not recording) are not written: the reader could not place
 * them. */
static void rec_rma(uint16_t kind, uint64_t t0, int rc, int target, uint64_t out_bytes,
                    uint64_t back_bytes, MPI_Win win, MPI_Request *req, uint32_t xf)
{
    uint64_t t1 = hs__now();
    hs__win *x = hs__win_get(win);
    if (!x)
        return;
    int32_t peer = hs__local_peer(x->comm, target);
    uint32_t flags = xf | hs__rcflag(rc) | (rc == MPI_SUCCESS ? hs__monitor(peer) : 0);
    hs__rec *r = hs__rec0(kind, t0, t1, flags);
    if (!r)
        return;
    r->win = x->index;
    r->peer = peer;
    r->bytes = rc == MPI_SUCCESS ? out_bytes : 0;
    r->bytes2 = rc == MPI_SUCCESS ? back_bytes : 0;
    r->req = 0;
    if (req && rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL) {
        hs__reqinfo ri = { .id = hs__new_req_id(), .comm = NULL, .peer = peer,
                           .type = HS__RQ_RMA };
        r->req = ri.id;
        hs__req_add(*req, &ri);
    }
    hs__commit(r, sizeof *r);
}

#define W_PUTGET(name, KIND, CT, CONSTV, XF, P, A, R)                                \
    HS_WRAP(int, name, (CONSTV void *oaddr, CT ocount, MPI_Datatype otype, int target, \
                        MPI_Aint tdisp, CT tcount, MPI_Datatype ttype, MPI_Win win P), \
            (oaddr, ocount, otype, target, tdisp, tcount, ttype, win A))             \
    {                                                                                \
        HS_ENTER(name, (oaddr, ocount, otype, target, tdisp, tcount, ttype, win A)); \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(oaddr, ocount, otype, target, tdisp, tcount, ttype, win A); \
        uint64_t n = rc == MPI_SUCCESS ? sz((uint64_t)ocount, otype) : 0;            \
        int get = KIND == HS_TRACE_GET || KIND == HS_TRACE_RGET;                     \
        rec_rma(KIND, t0, rc, target, get ? 0 : n, get ? n : 0, win, R, XF);         \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_PUTGET(Put, HS_TRACE_PUT, int, const, 0, B_P, B_A, B_R)
W_PUTGET(Get, HS_TRACE_GET, int, , 0, B_P, B_A, B_R)
W_PUTGET(Rput, HS_TRACE_RPUT, int, const, 0, NB_P, NB_A, NB_R)
W_PUTGET(Rget, HS_TRACE_RGET, int, , 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_PUTGET(Put_c, HS_TRACE_PUT, MPI_Count, const, HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_PUTGET(Get_c, HS_TRACE_GET, MPI_Count, , HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_PUTGET(Rput_c, HS_TRACE_RPUT, MPI_Count, const, HS_TRACE_F_LARGE, NB_P, NB_A, NB_R)
W_PUTGET(Rget_c, HS_TRACE_RGET, MPI_Count, , HS_TRACE_F_LARGE, NB_P, NB_A, NB_R)
#endif

#define W_ACC(name, KIND, CT, XF, P, A, R)                                           \
    HS_WRAP(int, name, (const void *oaddr, CT ocount, MPI_Datatype otype, int target, \
                        MPI_Aint tdisp, CT tcount, MPI_Datatype ttype, MPI_Op op,    \
                        MPI_Win win P), (oaddr, ocount, otype, target, tdisp, tcount, ttype, \
                                         op, win A))                                 \
    {                                                                                \
        HS_ENTER(name, (oaddr, ocount, otype, target, tdisp, tcount, ttype, op, win A)); \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(oaddr, ocount, otype, target, tdisp, tcount, ttype, op, win A); \
        uint64_t n = rc == MPI_SUCCESS ? sz((uint64_t)ocount, otype) : 0;            \
        rec_rma(KIND, t0, rc, target, n, 0, win, R, XF);                             \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_ACC(Accumulate, HS_TRACE_ACCUMULATE, int, 0, B_P, B_A, B_R)
W_ACC(Raccumulate, HS_TRACE_RACCUMULATE, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_ACC(Accumulate_c, HS_TRACE_ACCUMULATE, MPI_Count, HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_ACC(Raccumulate_c, HS_TRACE_RACCUMULATE, MPI_Count, HS_TRACE_F_LARGE, NB_P, NB_A, NB_R)
#endif

/* With MPI_NO_OP the origin buffer is not sent. */
#define W_GACC(name, KIND, CT, XF, P, A, R)                                          \
    HS_WRAP(int, name, (const void *oaddr, CT ocount, MPI_Datatype otype, void *raddr,   \
                        CT rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp,   \
                        CT tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win P),    \
            (oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, tcount, ttype, op, \
             win A))                                                                 \
    {                                                                                \
        HS_ENTER(name, (oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, tcount, \
                        ttype, op, win A));                                          \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, \
                               tcount, ttype, op, win A);                            \
        int ok = rc == MPI_SUCCESS;                                                  \
        uint64_t out = ok && op != MPI_NO_OP ? sz((uint64_t)ocount, otype) : 0;      \
        uint64_t back = ok ? sz((uint64_t)rcount, rtype) : 0;                        \
        rec_rma(KIND, t0, rc, target, out, back, win, R, XF);                        \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_GACC(Get_accumulate, HS_TRACE_GET_ACCUMULATE, int, 0, B_P, B_A, B_R)
W_GACC(Rget_accumulate, HS_TRACE_RGET_ACCUMULATE, int, 0, NB_P, NB_A, NB_R)
#if HS_MPI4
W_GACC(Get_accumulate_c, HS_TRACE_GET_ACCUMULATE, MPI_Count, HS_TRACE_F_LARGE, B_P, B_A, B_R)
W_GACC(Rget_accumulate_c, HS_TRACE_RGET_ACCUMULATE, MPI_Count, HS_TRACE_F_LARGE, NB_P, NB_A,
       NB_R)
#endif

HS_WRAP(int, Fetch_and_op, (const void *oaddr, void *raddr, MPI_Datatype dt, int target,
                            MPI_Aint tdisp, MPI_Op op, MPI_Win win),
        (oaddr, raddr, dt, target, tdisp, op, win))
{
    HS_ENTER(Fetch_and_op, (oaddr, raddr, dt, target, tdisp, op, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Fetch_and_op)(oaddr, raddr, dt, target, tdisp, op, win);
    uint64_t n = rc == MPI_SUCCESS ? hs__type_size(dt) : 0;
    rec_rma(HS_TRACE_FETCH_AND_OP, t0, rc, target, op != MPI_NO_OP ? n : 0, n, win, NULL, 0);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Compare_and_swap, (const void *oaddr, const void *caddr, void *raddr,
                                MPI_Datatype dt, int target, MPI_Aint tdisp, MPI_Win win),
        (oaddr, caddr, raddr, dt, target, tdisp, win))
{
    HS_ENTER(Compare_and_swap, (oaddr, caddr, raddr, dt, target, tdisp, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Compare_and_swap)(oaddr, caddr, raddr, dt, target, tdisp, win);
    uint64_t n = rc == MPI_SUCCESS ? hs__type_size(dt) : 0;
    /* The compare value and the new value travel; the old value returns. */
    rec_rma(HS_TRACE_COMPARE_AND_SWAP, t0, rc, target, 2 * n, n, win, NULL, 0);
    HS_LEAVE();
    return rc;
}

/* ---- synchronisation ----------------------------------------------------------- */

static void rec_sync(uint16_t kind, uint64_t t0, int rc, MPI_Win win, int target, int locktype,
                     int assert_, int has_aux)
{
    uint64_t t1 = hs__now();
    hs__win *x = hs__win_get(win);
    if (!x)
        return;
    hs__rec *r = hs__rec0(kind, t0, t1, hs__rcflag(rc));
    if (!r)
        return;
    r->win = x->index;
    r->peer = target == MPI_UNDEFINED ? HS_TRACE_RANK_NONE : hs__local_peer(x->comm, target);
    r->tag = locktype == MPI_LOCK_EXCLUSIVE ? 1 : locktype == MPI_LOCK_SHARED ? 2
                                                                              : HS_TRACE_TAG_NONE;
    r->aux = has_aux ? (uint64_t)(unsigned)assert_ : 0;
    hs__commit(r, sizeof *r);
}

HS_WRAP(int, Win_fence, (int assert_, MPI_Win win), (assert_, win))
{
    HS_ENTER(Win_fence, (assert_, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_fence)(assert_, win);
    rec_sync(HS_TRACE_WIN_FENCE, t0, rc, win, MPI_UNDEFINED, 0, assert_, 1);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_lock, (int locktype, int target, int assert_, MPI_Win win),
        (locktype, target, assert_, win))
{
    HS_ENTER(Win_lock, (locktype, target, assert_, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_lock)(locktype, target, assert_, win);
    rec_sync(HS_TRACE_WIN_LOCK, t0, rc, win, target, locktype, assert_, 1);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_lock_all, (int assert_, MPI_Win win), (assert_, win))
{
    HS_ENTER(Win_lock_all, (assert_, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_lock_all)(assert_, win);
    rec_sync(HS_TRACE_WIN_LOCK_ALL, t0, rc, win, MPI_UNDEFINED, 0, assert_, 1);
    HS_LEAVE();
    return rc;
}

/* Calls naming a target rank, and calls naming only the window. */
#define W_SYNC_T(name, KIND)                                                         \
    HS_WRAP(int, name, (int target, MPI_Win win), (target, win))                     \
    {                                                                                \
        HS_ENTER(name, (target, win));                                               \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(target, win);                                         \
        rec_sync(KIND, t0, rc, win, target, 0, 0, 0);                                \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
#define W_SYNC_W(name, KIND)                                                         \
    HS_WRAP(int, name, (MPI_Win win), (win))                                         \
    {                                                                                \
        HS_ENTER(name, (win));                                                       \
        uint64_t t0 = hs__now();                                                     \
        int rc = HS_REAL(name)(win);                                                 \
        rec_sync(KIND, t0, rc, win, MPI_UNDEFINED, 0, 0, 0);                         \
        HS_LEAVE();                                                                  \
        return rc;                                                                   \
    }
W_SYNC_T(Win_unlock, HS_TRACE_WIN_UNLOCK)
W_SYNC_T(Win_flush, HS_TRACE_WIN_FLUSH)
W_SYNC_T(Win_flush_local, HS_TRACE_WIN_FLUSH_LOCAL)
W_SYNC_W(Win_unlock_all, HS_TRACE_WIN_UNLOCK_ALL)
W_SYNC_W(Win_flush_all, HS_TRACE_WIN_FLUSH_ALL)
W_SYNC_W(Win_flush_local_all, HS_TRACE_WIN_FLUSH_LOCAL_ALL)
W_SYNC_W(Win_complete, HS_TRACE_WIN_COMPLETE)
W_SYNC_W(Win_wait, HS_TRACE_WIN_WAIT)
W_SYNC_W(Win_sync, HS_TRACE_WIN_SYNC)

HS_WRAP(int, Win_test, (MPI_Win win, int *flag), (win, flag))
{
    HS_ENTER(Win_test, (win, flag));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_test)(win, flag);
    uint64_t t1 = hs__now();
    hs__win *x = hs__win_get(win);
    int found = rc == MPI_SUCCESS && *flag;
    hs__tbuf *b = hs__t.buf;
    hs__rec *last = b ? b->last : NULL;
    if (x && !found && rc == MPI_SUCCESS && last && last->kind == HS_TRACE_WIN_TEST &&
        !(last->flags & HS_TRACE_F_FOUND) && last->win == x->index && last->repeat < UINT32_MAX) {
        last->t1 = t1;   /* a fruitless poll folded into the previous one */
        last->repeat++;
    } else if (x) {
        hs__rec *r = hs__rec0(HS_TRACE_WIN_TEST, t0, t1,
                              hs__rcflag(rc) | (found ? HS_TRACE_F_FOUND : 0));
        if (r) {
            r->win = x->index;
            hs__commit(r, sizeof *r);
        }
    }
    HS_LEAVE();
    return rc;
}

/* PSCW: the group of the epoch as world ranks. */
static void rec_pscw(uint16_t kind, uint64_t t0, int rc, MPI_Group group, int assert_,
                     MPI_Win win)
{
    uint64_t t1 = hs__now();
    hs__win *x = hs__win_get(win);
    if (!x)
        return;
    int n = 0;
    if (rc == MPI_SUCCESS)
        HS_PMPI(Group_size)(group, &n);
    int *tmp = n > 0 ? hs__scratch(2 * (size_t)n * sizeof(int)) : NULL;
    if (!tmp)
        n = 0;
    if (n > 0) {
        for (int i = 0; i < n; i++)
            tmp[i] = i;
        HS_PMPI(Group_translate_ranks)(group, n, tmp, hs__g.world_group, tmp + n);
    }
    size_t s;
    hs__rec *r = hs__recn(kind, t0, t1, hs__rcflag(rc), (uint32_t)n, 0, &s);
    if (!r)
        return;
    r->win = x->index;
    r->aux = (uint64_t)(unsigned)assert_;
    uint64_t *w = hs__rec_list(r);
    for (int i = 0; i < n; i++)
        w[i] = (uint64_t)(int64_t)(tmp[n + i] == MPI_UNDEFINED ? HS_TRACE_RANK_NONE : tmp[n + i]);
    hs__commit(r, s);
}

HS_WRAP(int, Win_post, (MPI_Group group, int assert_, MPI_Win win), (group, assert_, win))
{
    HS_ENTER(Win_post, (group, assert_, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_post)(group, assert_, win);
    rec_pscw(HS_TRACE_WIN_POST, t0, rc, group, assert_, win);
    HS_LEAVE();
    return rc;
}

HS_WRAP(int, Win_start, (MPI_Group group, int assert_, MPI_Win win), (group, assert_, win))
{
    HS_ENTER(Win_start, (group, assert_, win));
    uint64_t t0 = hs__now();
    int rc = HS_REAL(Win_start)(group, assert_, win);
    rec_pscw(HS_TRACE_WIN_START, t0, rc, group, assert_, win);
    HS_LEAVE();
    return rc;
}
