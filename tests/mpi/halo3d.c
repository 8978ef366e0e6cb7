/* 3D halo exchange on a periodic Cartesian grid (MPI_Dims_create), local
 * box N^3 doubles, ITERS iterations.  Direction d = 0..5 (axis d/2,
 * negative then positive) uses its own tag 100+d: each rank Irecvs from
 * the opposite neighbour and Isends one N*N face to the neighbour in
 * direction d, then MPI_Waitall on the 12 requests.  At the end one
 * MPI_Neighbor_alltoall of one int per neighbour.
 *   usage: halo3d ITERS N
 * Per rank: 6*ITERS messages of N*N*8 bytes, tag 100+d carrying ITERS of
 * them; one neighbor_alltoall (6 neighbours, 4 bytes each). */
#include "common.h"
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = arg_int(argc, argv, 1, 5), nn = arg_int(argc, argv, 2, 8);
    int dims[3] = { 0, 0, 0 }, periods[3] = { 1, 1, 1 };
    MPI_Dims_create(n, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int me;
    MPI_Comm_rank(cart, &me);
    long face = (long)nn * nn;
    double *sbuf = malloc(6 * face * sizeof(double)), *rbuf = malloc(6 * face * sizeof(double));
    uint64_t d = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Request rq[12];
        for (int dir = 0; dir < 6; dir++) {
            int src, dst;
            MPI_Cart_shift(cart, dir / 2, 1, &src, &dst);
            int to = dir % 2 ? dst : src, from = dir % 2 ? src : dst;
            for (long k = 0; k < face; k++)
                sbuf[dir * face + k] = me * 1000.0 + dir * 100.0 + it + k * 0.001;
            MPI_Irecv(rbuf + dir * face, (int)face, MPI_DOUBLE, from, 100 + dir, cart, &rq[dir]);
            MPI_Isend(sbuf + dir * face, (int)face, MPI_DOUBLE, to, 100 + dir, cart, &rq[6 + dir]);
        }
        MPI_Waitall(12, rq, MPI_STATUSES_IGNORE);
        d += digest((unsigned char *)rbuf, 6 * face * (long)sizeof(double));
    }
    int out[6], in[6];
    for (int k = 0; k < 6; k++)
        out[k] = me * 10 + k;
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, cart);
    d += digest((unsigned char *)in, sizeof in);
    report("halo3d", d);
    MPI_Comm_free(&cart);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
