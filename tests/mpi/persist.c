/* Persistent requests: MPI_Send_init to rank+1, MPI_Recv_init from rank-1
 * (tag 7), then ITERS x (MPI_Startall of both + MPI_Waitall), then one
 * more round with MPI_Start on each + MPI_Wait on each, then
 * MPI_Request_free of both.
 *   usage: persist ITERS BYTES
 * Per rank: ITERS+1 messages sent to rank+1 and received from rank-1. */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = arg_int(argc, argv, 1, 10), bytes = arg_int(argc, argv, 2, 512);
    unsigned char *sb = malloc((size_t)bytes + 1), *rb = malloc((size_t)bytes + 1);
    MPI_Request rq[2];
    MPI_Send_init(sb, bytes, MPI_BYTE, (r + 1) % p, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(rb, bytes, MPI_BYTE, (r + p - 1) % p, 7, MPI_COMM_WORLD, &rq[1]);
    uint64_t d = 0;
    for (int i = 0; i < iters; i++) {
        fill(sb, bytes, r, i);
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        d += digest(rb, bytes);
    }
    fill(sb, bytes, r, iters);
    MPI_Start(&rq[1]);
    MPI_Start(&rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    d += digest(rb, bytes);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    report("persist", d);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
