/* 0-byte ping-pong between ranks 0 and 1 (MPI_Send / MPI_Recv), the
 * latency-bound case where an interposer's cost shows most.
 *   usage: pingpong ITERS REPS
 * For each repetition rank 0 prints two half round-trip times in ns:
 *   mean    over all ITERS iterations (includes everything, e.g. the
 *           occasional trace buffer flush, amortised)
 *   median  over blocks of BLOCK iterations (the latency a message
 *           typically sees; a block holding a flush is an outlier)
 * after ITERS/10 warm-up iterations. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 100

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int iters = argc > 1 ? atoi(argv[1]) : 100000, reps = argc > 2 ? atoi(argv[2]) : 3;
    int nblocks = iters / BLOCK;
    double *blk = malloc((size_t)(nblocks + 1) * sizeof *blk);
    char b[1];
    for (int rep = -1; rep < reps; rep++) {
        int nb = rep < 0 ? nblocks / 10 : nblocks;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < nb; k++) {
            double tb = MPI_Wtime();
            for (int i = 0; i < BLOCK; i++) {
                if (r == 0) {
                    MPI_Send(b, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(b, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (r == 1) {
                    MPI_Recv(b, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(b, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            blk[k] = (MPI_Wtime() - tb) / BLOCK / 2 * 1e9;
        }
        double mean = (MPI_Wtime() - t0) / ((double)nb * BLOCK) / 2 * 1e9;
        if (r == 0 && rep >= 0) {
            qsort(blk, (size_t)nb, sizeof *blk, cmp);
            printf("%.2f %.2f\n", mean, blk[nb / 2]);
        }
    }
    free(blk);
    MPI_Finalize();
    return 0;
}
