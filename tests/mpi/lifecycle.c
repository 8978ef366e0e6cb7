/* How a run ends, for the crash-safety tests.
 *   usage: lifecycle MODE ITERS [USLEEP]
 * Every mode first runs ITERS ring iterations (MPI_Sendrecv of 64 bytes to
 * rank+1, tag 3), sleeping USLEEP microseconds between them; then
 *   finalize  MPI_Finalize (the normal end)
 *   exit      exit(0) without MPI_Finalize
 *   abort     rank 0 calls MPI_Abort(MPI_COMM_WORLD, 3); the others wait in
 *             a barrier until the launcher kills them
 *   loop      never ends by itself (ITERS is ignored): the test kills it
 * Rank 0 prints "iteration N" every 100 iterations on stdout. */
#include "common.h"
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *mode = argc > 1 ? argv[1] : "finalize";
    int iters = arg_int(argc, argv, 2, 10), nap = arg_int(argc, argv, 3, 0);
    int loop = strcmp(mode, "loop") == 0;
    unsigned char sb[64], rb[64];
    for (int i = 0; loop || i < iters; i++) {
        fill(sb, sizeof sb, r, i);
        MPI_Sendrecv(sb, sizeof sb, MPI_BYTE, (r + 1) % p, 3, rb, sizeof rb, MPI_BYTE,
                     (r + p - 1) % p, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (r == 0 && i % 100 == 0) {
            printf("iteration %d\n", i);
            fflush(stdout);
        }
        if (nap)
            usleep((useconds_t)nap);
    }
    if (strcmp(mode, "exit") == 0)
        exit(0);
    if (strcmp(mode, "abort") == 0) {
        if (r == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
