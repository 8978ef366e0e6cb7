/* The MPI calls SimGrid's SMPI writes in its time-independent traces, in a
 * program small enough to compare hopscope's import of an SMPI run with
 * libhopscope.so's recording under a real MPI (tests/integration/smpi.sh).
 * Ring isend/irecv + waitall, a blocking send/recv pair, an ANY_SOURCE
 * irecv completed by MPI_Test or MPI_Wait, sendrecv, isend/irecv completed
 * by two waitany, and every world collective SMPI traces (the v-forms with
 * rank-dependent counts).
 *   usage: smpimix ITERS
 * Per iteration and rank: 2 messages of 800 B (ring), 1 of 32 B (sendrecv),
 * 1 of 12 B (waitany ring); rank 0 -> 1 one of 40 B and one of 7 B. */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = arg_int(argc, argv, 1, 2);
    double buf[1000], rb[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = i;
    double *big = calloc((size_t)1000 * n, sizeof(double));
    double *big2 = calloc((size_t)1000 * n, sizeof(double));
    int *cnt = malloc(sizeof(int) * n), *dsp = malloc(sizeof(int) * n),
        *scnt = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) {
        cnt[i] = i + 1;
        dsp[i] = i * 1000;
        scnt[i] = r + 1;
    }
    int right = (r + 1) % n, left = (r + n - 1) % n;
    uint64_t d = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Request rq[2];
        MPI_Irecv(rb, 100, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(buf, 100, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (r == 0)
            MPI_Send(buf, 10, MPI_INT, 1, 3, MPI_COMM_WORLD);
        if (r == 1)
            MPI_Recv(rb, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request q;
        int flag = 0;
        if (r == 0) {
            MPI_Isend(buf, 7, MPI_CHAR, 1, 4, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        if (r == 1) {
            MPI_Irecv(rb, 7, MPI_CHAR, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &q);
            MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(buf, 50, MPI_DOUBLE, 1 % n, MPI_COMM_WORLD);
        MPI_Reduce(buf, rb, 20, MPI_DOUBLE, MPI_SUM, 2 % n, MPI_COMM_WORLD);
        MPI_Allreduce(buf, rb, 30, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Alltoall(big, 10, MPI_DOUBLE, big2, 10, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Alltoallv(big, scnt, dsp, MPI_DOUBLE, big2, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Gather(buf, 5, MPI_DOUBLE, big, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gatherv(buf, r + 1, MPI_DOUBLE, big, cnt, dsp, MPI_DOUBLE, 1 % n, MPI_COMM_WORLD);
        MPI_Allgather(buf, 5, MPI_DOUBLE, big, 5, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Allgatherv(buf, r + 1, MPI_DOUBLE, big, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Scatter(big, 5, MPI_DOUBLE, buf, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Scatterv(big, cnt, dsp, MPI_DOUBLE, buf, r + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Reduce_scatter(big, rb, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Scan(buf, rb, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Sendrecv(buf, 4, MPI_DOUBLE, right, 9, rb, 4, MPI_DOUBLE, left, 9, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Request rr[2];
        int idx;
        MPI_Irecv(rb, 3, MPI_INT, left, 1, MPI_COMM_WORLD, &rr[0]);
        MPI_Isend(buf, 3, MPI_INT, right, 1, MPI_COMM_WORLD, &rr[1]);
        MPI_Waitany(2, rr, &idx, MPI_STATUS_IGNORE);
        MPI_Waitany(2, rr, &idx, MPI_STATUS_IGNORE);
        d += digest((const unsigned char *)rb, 8);
    }
    report("smpimix", d);
    free(big);
    free(big2);
    free(cnt);
    free(dsp);
    free(scnt);
    MPI_Finalize();
    return 0;
}
