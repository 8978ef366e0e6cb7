/* Cost of an intercepted call, in one process: REPS passes of ITERS calls
 * of one kind, each pass timed as a whole (so buffer flushes, encoding and
 * deflate are included, amortised).
 *   usage: callcost KIND ITERS REPS
 *   KIND send     MPI_Send of 0 bytes to MPI_PROC_NULL
 *        isend    MPI_Isend to MPI_PROC_NULL + MPI_Wait (two calls, a request)
 *        iprobe   fruitless MPI_Iprobe (folded into one event by hopscope)
 *        allreduce MPI_Allreduce of one int on MPI_COMM_SELF
 * Prints two figures in ns per MPI call: the fastest pass in wall-clock time
 * (MPI_Wtime), and the thread's CPU time over all passes
 * (CLOCK_THREAD_CPUTIME_ID: time the process was descheduled does not
 * count, every pass's flushes do). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *kind = argc > 1 ? argv[1] : "send";
    long iters = argc > 2 ? atol(argv[2]) : 1000000;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    char b[1];
    double best = 1e30, cpu = 0;
    int calls = strcmp(kind, "isend") == 0 ? 2 : 1;
    for (int rep = 0; rep < reps; rep++) {
        struct timespec c0, c1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        double t = MPI_Wtime();
        if (strcmp(kind, "send") == 0) {
            for (long i = 0; i < iters; i++)
                MPI_Send(b, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        } else if (strcmp(kind, "isend") == 0) {
            for (long i = 0; i < iters; i++) {
                MPI_Request rq;
                MPI_Isend(b, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            }
        } else if (strcmp(kind, "iprobe") == 0) {
            int flag;
            for (long i = 0; i < iters; i++)
                MPI_Iprobe(0, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        } else {
            int x = 1, y;
            for (long i = 0; i < iters; i++)
                MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
        }
        t = MPI_Wtime() - t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        cpu += (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
        if (t < best)
            best = t;
    }
    printf("%.2f %.2f\n", best / iters / calls * 1e9, cpu / reps / iters / calls * 1e9);
    MPI_Finalize();
    return 0;
}
