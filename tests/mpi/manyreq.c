/* Many requests in flight, completed in a shuffled order: rank 0 starts N
 * MPI_Isend and rank 1 N MPI_Irecv, message i with tag i, then each
 * completes its requests one at a time in a pseudo-random order (a fixed
 * seed), every third with an MPI_Test loop, the others with MPI_Wait.
 * libhopscope.so's request table then holds N entries whose probe runs
 * collide and are removed from the middle.  Rank 1 prints the sum of the
 * received values per round.
 *   usage: manyreq N ROUNDS */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int n = arg_int(argc, argv, 1, 3000);
    int rounds = arg_int(argc, argv, 2, 2);
    MPI_Request *rq = malloc((size_t)n * sizeof *rq);
    int *buf = malloc((size_t)n * sizeof *buf), *order = malloc((size_t)n * sizeof *order);
    unsigned s = 12345;
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < n; i++) {
            buf[i] = r == 0 ? i + round : -1;
            if (r == 0)
                MPI_Isend(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &rq[i]);
            else if (r == 1)
                MPI_Irecv(&buf[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &rq[i]);
            else
                rq[i] = MPI_REQUEST_NULL;
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            s = s * 1103515245u + 12345u;
            int j = (int)((s >> 8) % (unsigned)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        long sum = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            if (k % 3 == 0) {
                int f = 0;
                while (!f)
                    MPI_Test(&rq[i], &f, MPI_STATUS_IGNORE);
            } else {
                MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
            }
            sum += buf[i];
        }
        if (r == 1)
            printf("round %d sum %ld\n", round, sum);
    }
    free(rq);
    free(buf);
    free(order);
    MPI_Finalize();
    return 0;
}
