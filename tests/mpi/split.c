/* Communicator constructors, and traffic on the new communicators (P >= 4,
 * even):
 *   MPI_Comm_split(color r%2, key -r): two halves, reverse rank order;
 *     ITERS messages of BYTES bytes to the next rank of the half (tag 5),
 *     MPI_Sendrecv; one MPI_Allreduce on the half
 *   MPI_Comm_dup of the half, MPI_Bcast of 4 ints from its rank 0
 *   MPI_Comm_create_group of the even half from world, MPI_Barrier on it
 *   MPI_Intercomm_create between the halves (leaders: half rank 0), one
 *     message of 8 bytes (tag 9) from each rank to the same rank of the
 *     other half, MPI_Intercomm_merge, MPI_Allreduce on the merged one
 *   every communicator freed
 *   usage: split ITERS BYTES
 * World rank r's half rank is h = (number of same-parity ranks) - 1 - r/2,
 * and it sends the ring messages to the world rank with half rank h+1. */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = arg_int(argc, argv, 1, 5), bytes = arg_int(argc, argv, 2, 128);
    unsigned char *sb = malloc((size_t)bytes + 1), *rb = malloc((size_t)bytes + 1);
    MPI_Comm half, dup, evens = MPI_COMM_NULL, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
    int h, hn;
    MPI_Comm_rank(half, &h);
    MPI_Comm_size(half, &hn);
    uint64_t d = 0;
    for (int i = 0; i < iters; i++) {
        fill(sb, bytes, r, i);
        MPI_Sendrecv(sb, bytes, MPI_BYTE, (h + 1) % hn, 5, rb, bytes, MPI_BYTE, (h + hn - 1) % hn,
                     5, half, MPI_STATUS_IGNORE);
        d += digest(rb, bytes);
    }
    int x = r, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
    d += (uint64_t)y;
    MPI_Comm_dup(half, &dup);
    int b4[4] = { r, r, r, r };
    MPI_Bcast(b4, 4, MPI_INT, 0, dup);
    d += (uint64_t)b4[0] + (uint64_t)b4[3];
    MPI_Group world, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = { { 0, p - 1, 2 } };
    MPI_Group_range_incl(world, 1, range, &eg);
    if (r % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, eg, 77, &evens);
        MPI_Barrier(evens);
    }
    /* Remote leader: world rank of the other half's rank 0 = its highest. */
    int other_leader = r % 2 == 0 ? (p % 2 == 0 ? p - 1 : p - 2) : (p % 2 == 0 ? p - 2 : p - 1);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, other_leader, 33, &inter);
    int xx[2] = { r, -r }, yy[2] = { 0, 0 };
    MPI_Sendrecv(xx, 2, MPI_INT, h, 9, yy, 2, MPI_INT, h, 9, inter, MPI_STATUS_IGNORE);
    d += (uint64_t)(yy[0] - yy[1]);
    MPI_Intercomm_merge(inter, r % 2, &merged);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, merged);
    d += (uint64_t)y;
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    if (evens != MPI_COMM_NULL)
        MPI_Comm_free(&evens);
    MPI_Group_free(&eg);
    MPI_Group_free(&world);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    report("split", d);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
