/* Incast: every rank but 0 sends ITERS messages of BYTES bytes to rank 0
 * with tag = its rank (MPI_Isend + MPI_Wait).  Rank 0 receives all
 * (P-1)*ITERS of them: message m (0-based) through MPI_Probe(ANY_SOURCE,
 * ANY_TAG) + MPI_Recv from the probed source when m is even, through
 * MPI_Recv(ANY_SOURCE, ANY_TAG) when m is odd.
 *   usage: incast ITERS BYTES */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = arg_int(argc, argv, 1, 10), bytes = arg_int(argc, argv, 2, 4096);
    unsigned char *b = malloc((size_t)bytes + 1);
    uint64_t d = 0;
    if (r == 0) {
        int total = (p - 1) * iters;
        int *seen = calloc((size_t)p, sizeof *seen);
        for (int m = 0; m < total; m++) {
            MPI_Status st;
            if (m % 2 == 0) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Recv(b, bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(b, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            }
            if (st.MPI_TAG != st.MPI_SOURCE)
                printf("tag %d from %d\n", st.MPI_TAG, st.MPI_SOURCE);
            seen[st.MPI_SOURCE]++;
            d += digest(b, bytes);
        }
        for (int s = 1; s < p; s++)
            if (seen[s] != iters)
                printf("rank %d sent %d messages, expected %d\n", s, seen[s], iters);
        free(seen);
    } else {
        for (int i = 0; i < iters; i++) {
            MPI_Request rq;
            fill(b, bytes, r, i);
            MPI_Isend(b, bytes, MPI_BYTE, 0, r, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
    }
    report("incast", d);
    free(b);
    MPI_Finalize();
    return 0;
}
