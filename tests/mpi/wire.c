/* wire [create]: traffic of known sizes for the wire-level tests
 * (tests/integration/wire.sh): point-to-point of every size class across
 * the eager/rendezvous thresholds, from rank 0 to each other rank and back
 * (blocking, nonblocking, synchronous); collectives on MPI_COMM_WORLD, on a
 * split (even/odd ranks) and on a dup; one-sided puts, gets and
 * accumulates between fences.  Prints a digest of everything received.
 * Run with at least 2 ranks.  usage: wire [create]: with "create" the window
 * is MPI_Win_create over malloc'd memory instead of MPI_Win_allocate (Open
 * MPI's osc rdma maps an allocated window's on-node peers in shared memory
 * and moves nothing through its BTL; a created one goes through the BTL),
 * and MPI_Fetch_and_op and MPI_Compare_and_swap follow the accumulate. */
#include "common.h"

#include <string.h>

static const long sizes[] = { 0, 1, 64, 1000, 4096, 8192, 16384, 65536, 262144, 1 << 20 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long maxb = 1 << 20;
    unsigned char *sb = malloc((size_t)maxb * (size_t)size), *rb = malloc((size_t)maxb * (size_t)size);
    uint64_t h = 0;

    /* point-to-point: rank 0 <-> every other rank, each size, three forms */
    for (int i = 0; i < NSIZES; i++) {
        long n = sizes[i];
        for (int peer = 1; peer < size; peer++) {
            if (rank == 0) {
                fill(sb, n, 0, i);
                MPI_Send(sb, (int)n, MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD);
                MPI_Request rq;
                MPI_Isend(sb, (int)n, MPI_BYTE, peer, 200 + i, MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                MPI_Ssend(sb, (int)n, MPI_BYTE, peer, 300 + i, MPI_COMM_WORLD);
                MPI_Recv(rb, (int)n, MPI_BYTE, peer, 400 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                h += digest(rb, n);
            } else if (rank == peer) {
                for (int k = 1; k <= 3; k++) {
                    MPI_Recv(rb, (int)n, MPI_BYTE, 0, k * 100 + i, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    h += digest(rb, n);
                }
                fill(sb, n, rank, i);
                MPI_Send(sb, (int)n, MPI_BYTE, 0, 400 + i, MPI_COMM_WORLD);
            }
        }
    }

    /* collectives on world, a split and a dup */
    MPI_Comm split, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm comms[3] = { MPI_COMM_WORLD, split, dup };
    static const long csz[] = { 8, 65536, 1 << 20 };
    for (int c = 0; c < 3; c++) {
        int cs;
        MPI_Comm_size(comms[c], &cs);
        for (int i = 0; i < 3; i++) {
            long n = csz[i];
            fill(sb, n, rank, c * 10 + i);
            MPI_Allreduce(sb, rb, (int)(n / 8), MPI_UINT64_T, MPI_BXOR, comms[c]);
            h += digest(rb, n);
            fill(sb, n, 0, c * 10 + i);
            MPI_Bcast(sb, (int)n, MPI_BYTE, 0, comms[c]);
            h += digest(sb, n);
            long b = n / cs > 0 ? n / cs : 1;
            fill(sb, b * cs, rank, c * 10 + i);
            MPI_Alltoall(sb, (int)b, MPI_BYTE, rb, (int)b, MPI_BYTE, comms[c]);
            h += digest(rb, b * cs);
        }
        MPI_Barrier(comms[c]);
    }
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);

    /* one-sided: each rank puts to and gets from its right neighbour */
    long wn = 65536;
    unsigned char *wbuf;
    MPI_Win win;
    int create = argc > 1 && strcmp(argv[1], "create") == 0;
    if (create) {
        wbuf = malloc((size_t)wn);
        MPI_Win_create(wbuf, wn, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(wn, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    }
    memset(wbuf, 0, (size_t)wn);
    int right = (rank + 1) % size;
    MPI_Win_fence(0, win);
    fill(sb, 4096, rank, 77);
    MPI_Put(sb, 4096, MPI_BYTE, right, 0, 4096, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    MPI_Get(rb, 8192, MPI_BYTE, right, 0, 8192, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    h += digest(rb, 8192);
    uint64_t one = (uint64_t)rank + 1;
    MPI_Accumulate(&one, 1, MPI_UINT64_T, right, 1024, 1, MPI_UINT64_T, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (create) {   /* the atomics a BTL has: fetch-and-add, compare-and-swap */
        uint64_t old = 0, cmp = 0, nv = (uint64_t)rank + 7;
        MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, right, 1032, MPI_SUM, win);
        MPI_Win_fence(0, win);
        h += old;
        MPI_Compare_and_swap(&nv, &cmp, &old, MPI_UINT64_T, right, 1040, win);
        MPI_Win_fence(0, win);
        h += old;
    }
    h += digest(wbuf, wn);
    MPI_Win_free(&win);
    if (create)
        free(wbuf);

    uint64_t all;
    MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wire: %d ranks, digest %llu\n", size, (unsigned long long)all);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
