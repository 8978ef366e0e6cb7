// C++ ring: the same pattern as ring_f.f90 (MPI_Isend to rank+1 with tag
// i%3, MPI_Recv(MPI_ANY_SOURCE) from rank-1, MPI_Wait, then one
// MPI_Allreduce), written with the C bindings from C++.
//   usage: ringxx ITERS BYTES
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int iters = argc > 1 ? std::atoi(argv[1]) : 10, bytes = argc > 2 ? std::atoi(argv[2]) : 100;
    std::vector<unsigned char> s(bytes + 1), b(bytes + 1);
    long long sum = 0;
    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < bytes; k++)
            s[k] = (unsigned char)(r + i + k);
        MPI_Request rq;
        MPI_Isend(s.data(), bytes, MPI_BYTE, (r + 1) % p, i % 3, MPI_COMM_WORLD, &rq);
        MPI_Recv(b.data(), bytes, MPI_BYTE, MPI_ANY_SOURCE, i % 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int k = 0; k < bytes; k++)
            sum += b[k];
    }
    long long tot = 0;
    MPI_Allreduce(&sum, &tot, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0)
        std::printf("ringxx sum %lld\n", tot);
    MPI_Finalize();
    return 0;
}
