/* Collectives with known per-rank byte counts (P ranks, K ints):
 *   ITERS x alltoall      K ints to every rank
 *   alltoallv             rank i sends (i+j+1)*K ints to rank j
 *   allgather, allgatherv rank i contributes (i+1)*K ints
 *   gatherv, scatterv     root 0, (i+1)*K ints for rank i
 *   bcast (K ints, root 1 % P), reduce (root 0), allreduce, scan, exscan,
 *   reduce_scatter_block (K per rank), reduce_scatter (i+1)*K for rank i,
 *   ialltoall + iallreduce completed by one waitall, barrier
 *   usage: alltoall ITERS K */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = arg_int(argc, argv, 1, 3), k = arg_int(argc, argv, 2, 4);
    long big = (long)(2 * p + 2) * k * p;
    int *s = malloc(big * sizeof(int)), *t = malloc(big * sizeof(int));
    int *sc = malloc(p * sizeof(int)), *sd = malloc(p * sizeof(int));
    int *rc = malloc(p * sizeof(int)), *rd = malloc(p * sizeof(int));
    for (long i = 0; i < big; i++)
        s[i] = (int)(r * 7919 + i);
    uint64_t d = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Alltoall(s, k, MPI_INT, t, k, MPI_INT, MPI_COMM_WORLD);
        d += digest((unsigned char *)t, (long)k * p * 4);
    }
    int so = 0, ro = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = (r + j + 1) * k;
        sd[j] = so;
        so += sc[j];
        rc[j] = (j + r + 1) * k;
        rd[j] = ro;
        ro += rc[j];
    }
    MPI_Alltoallv(s, sc, sd, MPI_INT, t, rc, rd, MPI_INT, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)ro * 4);
    MPI_Allgather(s, k, MPI_INT, t, k, MPI_INT, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)k * p * 4);
    ro = 0;
    for (int j = 0; j < p; j++) {
        rc[j] = (j + 1) * k;
        rd[j] = ro;
        ro += rc[j];
    }
    MPI_Allgatherv(s, (r + 1) * k, MPI_INT, t, rc, rd, MPI_INT, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)ro * 4);
    MPI_Gatherv(s, (r + 1) * k, MPI_INT, t, rc, rd, MPI_INT, 0, MPI_COMM_WORLD);
    if (r == 0)
        d += digest((unsigned char *)t, (long)ro * 4);
    MPI_Scatterv(s, rc, rd, MPI_INT, t, (r + 1) * k, MPI_INT, 0, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)(r + 1) * k * 4);
    MPI_Bcast(s, k, MPI_INT, 1 % p, MPI_COMM_WORLD);
    d += digest((unsigned char *)s, (long)k * 4);
    MPI_Reduce(s, t, k, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        d += digest((unsigned char *)t, (long)k * 4);
    MPI_Allreduce(s, t, k, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)k * 4);
    MPI_Scan(s, t, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)k * 4);
    MPI_Exscan(s, t, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r > 0)
        d += digest((unsigned char *)t, (long)k * 4);
    MPI_Reduce_scatter_block(s, t, k, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)k * 4);
    MPI_Reduce_scatter(s, t, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    d += digest((unsigned char *)t, (long)(r + 1) * k * 4);
    MPI_Request rq[2];
    int one = r + 1, sum = 0;
    MPI_Ialltoall(s, k, MPI_INT, t, k, MPI_INT, MPI_COMM_WORLD, &rq[0]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    d += digest((unsigned char *)t, (long)k * p * 4) + (uint64_t)sum;
    MPI_Barrier(MPI_COMM_WORLD);
    report("alltoall", d);
    free(s);
    free(t);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    MPI_Finalize();
    return 0;
}
