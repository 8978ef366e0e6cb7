/* Nonblocking receives with wildcards, completed by every completion call.
 * Each round every rank sends one message of BYTES bytes with tag 1000+r to
 * every other rank (MPI_Isend) and receives P-1 messages posted as
 * MPI_Irecv(ANY_SOURCE, ANY_TAG) before a barrier.  The receives are
 * completed by MPI_Waitsome in round 0, MPI_Testany polling in round 1,
 * MPI_Waitany in round 2, MPI_Testall polling in round 3, MPI_Test
 * polling one by one in round 4; the sends by MPI_Waitall.  Round 5:
 * MPI_Improbe polling + MPI_Mrecv.  Round 6: MPI_Mprobe + MPI_Imrecv +
 * MPI_Wait.  Round 7: MPI_Iprobe polling + MPI_Recv.
 *   usage: nbany BYTES
 * Per ordered pair (i, j), i != j: 8 messages with tag 1000+i. */
#include "common.h"
#include <string.h>

#define ROUNDS 8

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int bytes = arg_int(argc, argv, 1, 256);
    int m = p - 1;
    unsigned char *sb = malloc((size_t)bytes * p + 1), *rb = malloc((size_t)bytes * p + 1);
    MPI_Request *rs = malloc(2 * (size_t)p * sizeof *rs), *ss = rs + p;
    int *idx = malloc((size_t)p * sizeof *idx);
    MPI_Status *st = malloc((size_t)p * sizeof *st);
    uint64_t d = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int k = 0;
        if (round < 5)
            for (int j = 0; j < m; j++)
                MPI_Irecv(rb + (size_t)j * bytes, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &rs[j]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int j = 0; j < p; j++) {
            if (j == r)
                continue;
            fill(sb + (size_t)k * bytes, bytes, r, round * 64 + j);
            MPI_Isend(sb + (size_t)k * bytes, bytes, MPI_BYTE, j, 1000 + r, MPI_COMM_WORLD,
                      &ss[k]);
            k++;
        }
        int done = 0, flag, out;
        switch (round) {
        case 0:
            while (done < m) {
                MPI_Waitsome(m, rs, &out, idx, st);
                done += out;
            }
            break;
        case 1:
            while (done < m) {
                MPI_Testany(m, rs, &out, &flag, st);
                if (flag && out != MPI_UNDEFINED)
                    done++;
            }
            break;
        case 2:
            for (int j = 0; j < m; j++)
                MPI_Waitany(m, rs, &out, st);
            break;
        case 3:
            do
                MPI_Testall(m, rs, &flag, st);
            while (!flag);
            break;
        case 4:
            for (int j = 0; j < m; j++)
                do
                    MPI_Test(&rs[j], &flag, st);
                while (!flag);
            break;
        case 5:
            for (int j = 0; j < m; j++) {
                MPI_Message msg;
                do
                    MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, st);
                while (!flag);
                MPI_Mrecv(rb + (size_t)j * bytes, bytes, MPI_BYTE, &msg, st);
            }
            break;
        case 6:
            for (int j = 0; j < m; j++) {
                MPI_Message msg;
                MPI_Request rq;
                MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, st);
                MPI_Imrecv(rb + (size_t)j * bytes, bytes, MPI_BYTE, &msg, &rq);
                MPI_Wait(&rq, st);
            }
            break;
        case 7:
            for (int j = 0; j < m; j++) {
                do
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, st);
                while (!flag);
                MPI_Recv(rb + (size_t)j * bytes, bytes, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG,
                         MPI_COMM_WORLD, st);
            }
            break;
        }
        MPI_Waitall(m, ss, MPI_STATUSES_IGNORE);
        for (int j = 0; j < m; j++)
            d += digest(rb + (size_t)j * bytes, bytes);
    }
    report("nbany", d);
    free(sb);
    free(rb);
    free(rs);
    free(idx);
    free(st);
    MPI_Finalize();
    return 0;
}
