/* Time inside MPI_Init (and MPI_Finalize), the slowest rank's, in
 * microseconds: what libhopscope.so adds to a job's start and end when
 * preloaded (bench/trace_overhead.sh runs it with and without).
 * Usage: inittime  -> prints "init_us FINALIZE_us" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

int main(int argc, char **argv)
{
    double t0 = now_us();
    MPI_Init(&argc, &argv);
    double init = now_us() - t0, worst = 0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&init, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = now_us();
    MPI_Finalize();
    double fin = now_us() - t1;
    if (rank == 0)
        printf("%.0f %.0f\n", worst, fin);
    return 0;
}
