/* One-sided epochs on a window of 16 ints per rank (MPI_Win_allocate):
 *   fence epoch, ITERS times: MPI_Put 1 int to rank+1, MPI_Get 1 int from
 *     rank-1, MPI_Accumulate 1 int to rank 0; MPI_Win_fence after each
 *   passive epoch: MPI_Win_lock_all; MPI_Fetch_and_op 1 int and
 *     MPI_Compare_and_swap 1 int on rank 0; MPI_Rput 2 ints to rank+1 +
 *     MPI_Wait; MPI_Get_accumulate 1 int on rank+1; MPI_Win_flush_all;
 *     MPI_Win_unlock_all
 *   exclusive lock: MPI_Win_lock(EXCLUSIVE, rank+1), MPI_Put 3 ints,
 *     MPI_Win_unlock
 *   PSCW (P even): even ranks MPI_Win_post to {r+1}, odd ranks
 *     MPI_Win_start({r-1}), MPI_Put 4 ints, MPI_Win_complete; MPI_Win_wait
 *   MPI_Win_free
 *   usage: rma ITERS */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = arg_int(argc, argv, 1, 4);
    int *base;
    MPI_Win win;
    enum { WIN_INTS = 16 };   /* displacements used below reach 9 */
    MPI_Win_allocate((MPI_Aint)WIN_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < WIN_INTS; i++)
        base[i] = 0;
    int right = (r + 1) % p, left = (r + p - 1) % p;
    int v[4] = { r, r + 1, r + 2, r + 3 }, got = 0, res = 0, cmp = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < iters; i++) {
        MPI_Put(&v[0], 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, win);
        MPI_Accumulate(&v[1], 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_fence(0, win);
    }
    MPI_Win_lock_all(0, win);
    MPI_Fetch_and_op(&v[0], &res, MPI_INT, 0, 2, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Compare_and_swap(&v[0], &cmp, &res, MPI_INT, 0, 3, win);
    MPI_Request rq;
    MPI_Rput(v, 2, MPI_INT, right, 4, 2, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Get_accumulate(&v[2], 1, MPI_INT, &res, 1, MPI_INT, right, 6, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(v, 3, MPI_INT, right, 7, 3, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (p % 2 == 0) {
        MPI_Group world, g;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        int peer = r % 2 == 0 ? r + 1 : r - 1;
        MPI_Group_incl(world, 1, &peer, &g);
        if (r % 2 == 0) {
            MPI_Win_post(g, 0, win);
            MPI_Win_wait(win);
        } else {
            MPI_Win_start(g, 0, win);
            MPI_Put(v, 4, MPI_INT, peer, 0, 4, MPI_INT, win);
            MPI_Win_complete(win);
        }
        MPI_Group_free(&g);
        MPI_Group_free(&world);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Deterministic part of the window only (the accumulate targets on
     * rank 0 depend on nothing but the sums). */
    uint64_t d = digest((unsigned char *)base, 2 * sizeof(int)) + (uint64_t)got * 3;
    MPI_Win_free(&win);
    report("rma", d);
    MPI_Finalize();
    return 0;
}
