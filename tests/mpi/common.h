/* tests/mpi/common.h — helpers shared by the MPI test programs.
 *
 * Every program has a communication pattern fully determined by its
 * arguments (the integration scripts compute the expected trace statistics
 * from the same arguments) and prints a deterministic digest of the data it
 * received, so its output must be byte-identical with and without
 * libhopscope.so. */
#ifndef HS_TEST_MPI_COMMON_H
#define HS_TEST_MPI_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline int arg_int(int argc, char **argv, int i, int dflt)
{
    return argc > i ? atoi(argv[i]) : dflt;
}

/* Payload byte k of message `msg` from rank `src`. */
static inline unsigned char payload(int src, int msg, long k)
{
    return (unsigned char)(src * 131 + msg * 17 + k * 7);
}

static inline void fill(unsigned char *b, long n, int src, int msg)
{
    for (long k = 0; k < n; k++)
        b[k] = payload(src, msg, k);
}

/* Order-independent digest of received bytes. */
static inline uint64_t digest(const unsigned char *b, long n)
{
    uint64_t h = 0;
    for (long k = 0; k < n; k++)
        h += (uint64_t)b[k] * (uint64_t)(k % 251 + 1);
    return h;
}

/* Sums every rank's digest on rank 0 and prints it with a label. */
static inline void report(const char *label, uint64_t mine)
{
    unsigned long long in = mine, sum = 0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&in, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s digest %llu\n", label, sum);
}

#endif
