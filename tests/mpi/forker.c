/* A rank that forks: the child exits through exit(), so it runs the exit
 * handlers it inherited; it must not touch the parent's trace.
 *   usage: forker */
#include "common.h"
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    pid_t p = fork();
    if (p == 0)
        exit(0);
    if (p > 0)
        waitpid(p, NULL, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    report("forker", (uint64_t)(p > 0));
    MPI_Finalize();
    return 0;
}
