/* Ring: every rank sends ITERS messages of BYTES bytes to rank+1 and
 * receives as many from rank-1.  Iteration i uses send mode i%4 (send,
 * ssend, bsend, rsend) and tag i%4; each receive is posted with
 * MPI_ANY_SOURCE before a barrier (which makes the rsend legal), and
 * completed with MPI_Wait.
 *   usage: ring ITERS BYTES
 * Per rank: ITERS messages sent and received, ITERS barriers, one reduce
 * (the digest). */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = arg_int(argc, argv, 1, 10), bytes = arg_int(argc, argv, 2, 1024);
    unsigned char *sb = malloc((size_t)bytes + 1), *rb = malloc((size_t)bytes + 1);
    int bsize = bytes + MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    uint64_t d = 0;
    int right = (r + 1) % n, left = (r + n - 1) % n;
    for (int i = 0; i < iters; i++) {
        MPI_Request rq;
        MPI_Status st;
        MPI_Irecv(rb, bytes, MPI_BYTE, MPI_ANY_SOURCE, i % 4, MPI_COMM_WORLD, &rq);
        MPI_Barrier(MPI_COMM_WORLD);
        fill(sb, bytes, r, i);
        switch (i % 4) {
        case 0: MPI_Send(sb, bytes, MPI_BYTE, right, i % 4, MPI_COMM_WORLD); break;
        case 1: MPI_Ssend(sb, bytes, MPI_BYTE, right, i % 4, MPI_COMM_WORLD); break;
        case 2: MPI_Bsend(sb, bytes, MPI_BYTE, right, i % 4, MPI_COMM_WORLD); break;
        case 3: MPI_Rsend(sb, bytes, MPI_BYTE, right, i % 4, MPI_COMM_WORLD); break;
        }
        MPI_Wait(&rq, &st);
        if (st.MPI_SOURCE != left)
            printf("rank %d: message from %d, expected %d\n", r, st.MPI_SOURCE, left);
        d += digest(rb, bytes);
    }
    MPI_Buffer_detach(&bbuf, &bsize);
    report("ring", d);
    free(bbuf);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
