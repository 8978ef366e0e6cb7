/* MPI_THREAD_MULTIPLE: T threads per rank, each sending ITERS messages of
 * BYTES bytes to rank+1 and receiving ITERS from rank-1, tag = thread
 * index, MPI_Isend + MPI_Irecv + MPI_Waitall, all threads concurrently on
 * MPI_COMM_WORLD; then one MPI_Barrier from the main thread.
 *   usage: threads T ITERS BYTES
 * Per rank: T*ITERS messages; per tag t: P*ITERS messages. */
#include "common.h"
#include <pthread.h>

static int nt, iters, bytes, rank, size;
static uint64_t digests[64];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *sb = malloc((size_t)bytes + 1), *rb = malloc((size_t)bytes + 1);
    for (int i = 0; i < iters; i++) {
        MPI_Request rq[2];
        fill(sb, bytes, rank, t * 1000 + i);
        MPI_Irecv(rb, bytes, MPI_BYTE, (rank + size - 1) % size, t, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sb, bytes, MPI_BYTE, (rank + 1) % size, t, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        digests[t] += digest(rb, bytes);
    }
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nt = arg_int(argc, argv, 1, 4);
    iters = arg_int(argc, argv, 2, 50);
    bytes = arg_int(argc, argv, 3, 64);
    if (nt > 64)
        nt = 64;
    pthread_t th[64];
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t d = 0;
    for (int t = 0; t < nt; t++)
        d += digests[t];
    report("threads", d);
    MPI_Finalize();
    return 0;
}
