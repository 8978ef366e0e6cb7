/* Point-to-point calls whose peer is MPI_PROC_NULL (no-ops, which
 * libhopscope.so times with one clock read: duration 0), between real
 * messages (timed with two).  Each iteration, on every rank:
 *   MPI_Send and MPI_Recv with MPI_PROC_NULL;
 *   two MPI_Isend to MPI_PROC_NULL, MPI_Waitall of both (no MPI_Irecv
 *   from MPI_PROC_NULL: MPICH 4.0 then reports source 0 in the statuses);
 *   MPI_Isend to MPI_PROC_NULL, MPI_Wait;
 *   a ring step of BYTES bytes: MPI_Send to rank+1 (even ranks first),
 *   MPI_Recv from rank-1.
 * then an MPI_Gather of the digests to rank 0, which prints them.
 *   usage: procnull ITERS BYTES */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int it = arg_int(argc, argv, 1, 4);
    long n = arg_int(argc, argv, 2, 1000);
    unsigned char *sb = malloc((size_t)n + 1), *rb = malloc((size_t)n + 1);
    uint64_t h = 0;
    int dst = (r + 1) % p, src = (r + p - 1) % p;
    for (int i = 0; i < it; i++) {
        MPI_Status st;
        MPI_Request rq[2];
        MPI_Send(sb, (int)n, MPI_BYTE, MPI_PROC_NULL, i, MPI_COMM_WORLD);
        MPI_Recv(rb, (int)n, MPI_BYTE, MPI_PROC_NULL, i, MPI_COMM_WORLD, &st);
        h += (uint64_t)(st.MPI_SOURCE == MPI_PROC_NULL);
        MPI_Isend(sb, (int)n, MPI_BYTE, MPI_PROC_NULL, i, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sb, (int)n, MPI_BYTE, MPI_PROC_NULL, i + 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        MPI_Isend(sb, (int)n, MPI_BYTE, MPI_PROC_NULL, i, MPI_COMM_WORLD, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        fill(sb, n, r, i);
        if (r % 2 == 0) {
            MPI_Send(sb, (int)n, MPI_BYTE, dst, 5, MPI_COMM_WORLD);
            MPI_Recv(rb, (int)n, MPI_BYTE, src, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rb, (int)n, MPI_BYTE, src, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sb, (int)n, MPI_BYTE, dst, 5, MPI_COMM_WORLD);
        }
        h += digest(rb, n);
    }
    uint64_t *all = malloc((size_t)p * sizeof *all);
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    for (int k = 0; r == 0 && k < p; k++)
        printf("rank %d digest %llu\n", k, (unsigned long long)all[k]);
    free(all);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
