/* coll_size KIND BYTES ITERS: ITERS calls of one collective of BYTES
 * (allreduce: BYTES of 8-byte integers; bcast from rank 0: BYTES;
 * alltoall: BYTES per rank in all, BYTES / P to each) on MPI_COMM_WORLD,
 * for the model-against-wire comparison of docs/replay.md
 * (examples/wire_compare.sh).  Prints a digest of what it received. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *kind = argc > 1 ? argv[1] : "allreduce";
    long bytes = argc > 2 ? atol(argv[2]) : 8;
    int iters = argc > 3 ? atoi(argv[3]) : 10;
    if (bytes < 8)
        bytes = 8;
    long n = bytes / 8;
    /* alltoall: at least one word to each rank */
    size_t words = (size_t)(n > size ? n : size) + 1;
    uint64_t *a = calloc(words, 8), *b = calloc(words, 8);
    for (long k = 0; k < n; k++)
        a[k] = (uint64_t)(rank + 1) * (uint64_t)(k + 1);
    uint64_t h = 0;
    for (int it = 0; it < iters; it++) {
        if (strcmp(kind, "allreduce") == 0) {
            MPI_Allreduce(a, b, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        } else if (strcmp(kind, "bcast") == 0) {
            if (rank == 0)
                memcpy(b, a, (size_t)n * 8);
            MPI_Bcast(b, (int)n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        } else {
            long per = n / size > 0 ? n / size : 1;
            MPI_Alltoall(a, (int)per, MPI_UINT64_T, b, (int)per, MPI_UINT64_T, MPI_COMM_WORLD);
        }
        h += b[0] + b[n > 1 ? n - 1 : 0];
    }
    uint64_t all;
    MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_size %s %ld B x %d on %d ranks: %llu\n", kind, bytes, iters, size,
               (unsigned long long)all);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
