/* Collectives whose peers come from structure rather than from the
 * communicator size (P >= 4, even):
 *   MPI_Bcast of 8 ints over an intercommunicator between the even and the
 *     odd ranks (halves ordered by world rank); the root is the odd half's
 *     rank 0 (world rank 1): it passes MPI_ROOT, the other odd ranks
 *     MPI_PROC_NULL, the even ranks 0
 *   MPI_Neighbor_alltoallv of 3 ints on a directed ring built with
 *     MPI_Dist_graph_create_adjacent (in: rank-1, out: rank+1)
 *   MPI_Neighbor_allgather of 2 ints on a non-periodic 1-D Cartesian
 *     communicator: the ends have an MPI_PROC_NULL neighbour
 *   usage: topo */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm half, inter, ring, line;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    int h;
    MPI_Comm_rank(half, &h);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 ? 0 : 1, 7, &inter);
    int b8[8] = { r, r, r, r, r, r, r, r };
    int root = r % 2 == 1 ? (h == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(b8, 8, MPI_INT, root, inter);
    uint64_t d = (uint64_t)b8[7];
    int src = (r + p - 1) % p, dst = (r + 1) % p, w = 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0,
                                   &ring);
    int sc = 3, sd = 0, rc = 3, rd = 0, s3[3] = { r, r + 1, r + 2 }, r3[3];
    MPI_Neighbor_alltoallv(s3, &sc, &sd, MPI_INT, r3, &rc, &rd, MPI_INT, ring);
    d += digest((unsigned char *)r3, sizeof r3);
    int dims = p, periods = 0, s2[2] = { r, -r }, r4[4] = { 0, 0, 0, 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &line);
    MPI_Neighbor_allgather(s2, 2, MPI_INT, r4, 2, MPI_INT, line);
    d += digest((unsigned char *)r4, sizeof r4);
    MPI_Comm_free(&line);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    report("topo", d);
    MPI_Finalize();
    return 0;
}
