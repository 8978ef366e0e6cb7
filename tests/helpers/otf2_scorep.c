/* otf2_scorep: writes, with the OTF2 writer API, an archive shaped like the
 * ones Score-P writes for an MPI program, with communication known here, for
 * tests/integration/otf2.sh to import and check count by count.
 *
 *   otf2_scorep DIR [VARIANT]      writes DIR/traces.otf2
 *
 * The definitions are laid out as Score-P lays them out: a system tree
 * (machine -> 2 nodes), one location group "MPI Rank r" per process under
 * its node, a master thread location per rank (and an OpenMP-like second
 * thread on rank 0, doing computation only, and a metric location on rank
 * 1, which is not a thread), the MPI paradigm, a
 * COMM_LOCATIONS group of the ranks' master threads, COMM_GROUPs in world
 * ranks for MPI_COMM_WORLD and the two halves of an MPI_Comm_split, a
 * COMM_SELF group, regions named after the MPI calls with Score-P's roles,
 * user regions ("main", "compute"), and a clock of 2 GHz ticks with a
 * global offset.
 *
 * The program, on 4 ranks, 3 iterations:
 *   MPI_Init
 *   3 x { compute; MPI_Irecv from left; MPI_Isend 1024*(r+1) bytes to right,
 *         tag = iteration; MPI_Waitall (both); MPI_Allreduce 8 bytes }
 *   MPI_Comm_split by parity (even: world 0,2; odd: 1,3)
 *   local 0 MPI_Send 4096 bytes tag 7 to local 1 (0 -> 2, 1 -> 3), MPI_Recv
 *   MPI_Bcast of 100 bytes from local 1 on the split communicator
 * Collective sizes are written as Score-P 8 counts them (its MPI adapter's
 * scorep_mpi_coll): the Allreduce P x 8 bytes each way, the Bcast root 2 x
 * 100 sent and 100 received, the other rank 100 received.
 *   MPI_Comm_rank (an MPI call hopscope does not record: computation)
 *   MPI_Finalize
 * Every MPI call lasts 2000 ticks (1 us); MPI_Init enters at tick 2000
 * after the global offset (1 us into the trace).
 *
 * VARIANT makes a defective archive for the error tests:
 *   bad-peer   an MpiSend to rank 9 of MPI_COMM_WORLD (4 ranks)
 *   no-mpi     no COMM_LOCATIONS group (not an MPI trace)
 *   bad-group  the split group names rank 6
 *   no-clock   no clock properties
 *   cut        rank 3's last MPI call is entered and never left
 * and ones that add communication:
 *   colls      after the Bcast, six collectives on MPI_COMM_WORLD (colls())
 *   persist    after the Bcast, MPI_Send_init and MPI_Recv_init (no records,
 *              as Score-P writes them), then twice MPI_Startall (an
 *              MpiIrecvRequest from left and an MpiIsend of 512 bytes, tag
 *              9, to right) and MPI_Waitall completing both */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !HS_HAVE_OTF2
int main(void)
{
    puts("skip: built without OTF2 (libotf2-trace-dev)");
    return 77;
}
#else
#include <otf2/otf2.h>

#define P 4
#define ITERS 3
#define CALL_TICKS 2000
#define OFFSET 1000000ull
#define LOC_T1 (1ull << 32)   /* rank 0's second thread, as Score-P numbers it */
#define LOC_METRIC ((2ull << 32) | 1)   /* rank 1's metric location */

enum { S_EMPTY, S_MACHINE, S_NODE, S_HOSTA, S_HOSTB, S_LINUX, S_MASTER, S_THREAD1, S_MPI,
       S_WORLD, S_SELF, S_EVEN, S_ODD, S_RANK0, S_R_MAIN = S_RANK0 + P, S_R_COMPUTE,
       S_R_INIT, S_R_FINALIZE, S_R_IRECV, S_R_ISEND, S_R_WAITALL, S_R_ALLREDUCE, S_R_SPLIT,
       S_R_SEND, S_R_RECV, S_R_BCAST, S_R_RANK, S_R_SINIT, S_R_RINIT, S_R_STARTALL, S_METRIC,
       S_R_REDUCE, S_R_SCAN, S_R_EXSCAN, S_R_GATHER, S_R_ALLGATHER, S_R_SCATTER, S_N };

enum { R_MAIN, R_COMPUTE, R_INIT, R_FINALIZE, R_IRECV, R_ISEND, R_WAITALL, R_ALLREDUCE,
       R_SPLIT, R_SEND, R_RECV, R_BCAST, R_COMMRANK, R_SINIT, R_RINIT, R_STARTALL,
       R_REDUCE, R_SCAN, R_EXSCAN, R_GATHER, R_ALLGATHER, R_SCATTER };
enum { C_WORLD, C_SELF, C_EVEN, C_ODD };
enum { G_LOCS, G_WORLD, G_SELF, G_EVEN, G_ODD };

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cd,
                                bool final)
{
    (void)u; (void)ft; (void)l; (void)cd; (void)final;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u; (void)ft; (void)l;
    return 0;
}
static OTF2_FlushCallbacks flush_cb = { pre_flush, post_flush };

static void check(OTF2_ErrorCode ec, const char *what)
{
    if (ec != OTF2_SUCCESS) {
        fprintf(stderr, "otf2_scorep: %s: %s\n", what, OTF2_Error_GetName(ec));
        exit(1);
    }
}

typedef struct loc {
    OTF2_EvtWriter *w;
    uint64_t t;       /* current tick, after OFFSET */
    uint64_t n;       /* events written */
} loc;

static void enter(loc *l, OTF2_RegionRef r)
{
    check(OTF2_EvtWriter_Enter(l->w, NULL, OFFSET + l->t, r), "enter");
    l->n++;
}
static void leave(loc *l, OTF2_RegionRef r)
{
    l->t += CALL_TICKS;
    check(OTF2_EvtWriter_Leave(l->w, NULL, OFFSET + l->t, r), "leave");
    l->n++;
}
static OTF2_TimeStamp now(const loc *l) { return OFFSET + l->t; }

/* One blocking collective with the sizes Score-P gives it. */
static void coll(loc *l, OTF2_RegionRef reg, OTF2_CollectiveOp op, uint32_t root,
                 uint64_t sent, uint64_t recvd)
{
    enter(l, reg);
    check(OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, now(l)), "coll begin");
    l->t += CALL_TICKS;
    check(OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, now(l), op, 0 /* C_WORLD */, root, sent,
                                          recvd), "coll end");
    l->n += 2;
    l->t -= CALL_TICKS;
    leave(l, reg);
}

/* The "colls" variant's collectives on MPI_COMM_WORLD (P = 4) of rank r,
 * with the sizes Score-P 8's MPI adapter computes for them (n: the block):
 *   MPI_Reduce 16 bytes to root 0, in place at the root: root 0 sent, 3 n
 *     received; others n sent;
 *   MPI_Scan 8 bytes: (P - r) n sent, (r + 1) n received;
 *   MPI_Exscan 8 bytes: (P - r - 1) n sent, r n received;
 *   MPI_Gather 64 bytes to root 2: root n sent, P n received; others n sent;
 *   MPI_Allgather 40 bytes: P n each way;
 *   MPI_Scatter 24 bytes from root 1, in place at the root: root (P - 1) n
 *     sent, 0 received; others n received. */
static void colls(loc *l, int r)
{
    uint64_t p = P, me = (uint64_t)r;
    coll(l, R_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, 0, r == 0 ? 0 : 16, r == 0 ? (p - 1) * 16 : 0);
    coll(l, R_SCAN, OTF2_COLLECTIVE_OP_SCAN, OTF2_UNDEFINED_UINT32, (p - me) * 8, (me + 1) * 8);
    coll(l, R_EXSCAN, OTF2_COLLECTIVE_OP_EXSCAN, OTF2_UNDEFINED_UINT32, (p - me - 1) * 8, me * 8);
    coll(l, R_GATHER, OTF2_COLLECTIVE_OP_GATHER, 2, 64, r == 2 ? p * 64 : 0);
    coll(l, R_ALLGATHER, OTF2_COLLECTIVE_OP_ALLGATHER, OTF2_UNDEFINED_UINT32, p * 40, p * 40);
    coll(l, R_SCATTER, OTF2_COLLECTIVE_OP_SCATTER, 1, r == 1 ? (p - 1) * 24 : 0,
         r == 1 ? 0 : 24);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: otf2_scorep DIR [bad-peer|no-mpi|bad-group|no-clock|cut|"
                        "persist|colls]\n");
        return 2;
    }
    const char *v = argc == 3 ? argv[2] : "";
    OTF2_Archive *ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1 << 20,
                                         4 << 20, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) {
        fprintf(stderr, "otf2_scorep: cannot create %s\n", argv[1]);
        return 1;
    }
    check(OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(ar), "collective callbacks");
    check(OTF2_Archive_SetCreator(ar, "Score-P 8.1"), "creator");
    check(OTF2_Archive_OpenEvtFiles(ar), "open event files");

    loc L[P + 1];
    memset(L, 0, sizeof L);
    for (int r = 0; r < P; r++)
        L[r].w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)r);
    L[P].w = OTF2_Archive_GetEvtWriter(ar, LOC_T1);
    OTF2_EvtWriter *metric = OTF2_Archive_GetEvtWriter(ar, LOC_METRIC);

    for (int r = 0; r < P; r++) {
        loc *l = &L[r];
        int right = (r + 1) % P, left = (r + P - 1) % P;
        enter(l, R_MAIN);
        l->t = CALL_TICKS;     /* MPI_Init enters 1 us in */
        enter(l, R_INIT);
        leave(l, R_INIT);
        for (int i = 0; i < ITERS; i++) {
            enter(l, R_COMPUTE);
            l->t += 10000;
            leave(l, R_COMPUTE);
            enter(l, R_IRECV);
            check(OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, now(l), 2 * i), "irecv req");
            l->n++;
            leave(l, R_IRECV);
            enter(l, R_ISEND);
            uint32_t dst = strcmp(v, "bad-peer") == 0 && r == 1 && i == 1 ? 9 : (uint32_t)right;
            check(OTF2_EvtWriter_MpiIsend(l->w, NULL, now(l), dst, C_WORLD, (uint32_t)i,
                                          1024u * (r + 1), 2 * i + 1), "isend");
            l->n++;
            leave(l, R_ISEND);
            enter(l, R_WAITALL);
            l->t += CALL_TICKS;
            check(OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, now(l), 2 * i + 1), "isend done");
            check(OTF2_EvtWriter_MpiIrecv(l->w, NULL, now(l), (uint32_t)left, C_WORLD,
                                          (uint32_t)i, 1024u * (left + 1), 2 * i), "irecv");
            l->n += 2;
            l->t -= CALL_TICKS;
            leave(l, R_WAITALL);
            enter(l, R_ALLREDUCE);
            check(OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, now(l)), "coll begin");
            l->t += CALL_TICKS;
            /* Score-P counts an allreduce of n bytes as P n each way */
            check(OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, now(l), OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                  C_WORLD, OTF2_UNDEFINED_UINT32, P * 8, P * 8),
                  "coll end");
            l->n += 2;
            l->t -= CALL_TICKS;
            leave(l, R_ALLREDUCE);
        }
        OTF2_CommRef half = r % 2 ? C_ODD : C_EVEN;
        int local = r / 2;
        enter(l, R_SPLIT);
        l->t += CALL_TICKS;
        check(OTF2_EvtWriter_CommCreate(l->w, NULL, now(l), half), "comm create");
        l->n++;
        l->t -= CALL_TICKS;
        leave(l, R_SPLIT);
        if (local == 0) {
            enter(l, R_SEND);
            check(OTF2_EvtWriter_MpiSend(l->w, NULL, now(l), 1, half, 7, 4096), "send");
            l->n++;
            leave(l, R_SEND);
        } else {
            enter(l, R_RECV);
            l->t += CALL_TICKS;
            check(OTF2_EvtWriter_MpiRecv(l->w, NULL, now(l), 0, half, 7, 4096), "recv");
            l->n++;
            l->t -= CALL_TICKS;
            leave(l, R_RECV);
        }
        enter(l, R_BCAST);
        check(OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, now(l)), "coll begin");
        l->t += CALL_TICKS;
        check(OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, now(l), OTF2_COLLECTIVE_OP_BCAST, half,
                                              1, local == 1 ? 2 * 100 : 0, 100),
              "coll end");
        l->n += 2;
        l->t -= CALL_TICKS;
        leave(l, R_BCAST);
        if (strcmp(v, "colls") == 0)
            colls(l, r);
        if (strcmp(v, "persist") == 0) {
            enter(l, R_SINIT);
            leave(l, R_SINIT);
            enter(l, R_RINIT);
            leave(l, R_RINIT);
            for (int i = 0; i < 2; i++) {
                enter(l, R_STARTALL);
                check(OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, now(l), 200), "irecv req");
                check(OTF2_EvtWriter_MpiIsend(l->w, NULL, now(l), (uint32_t)right, C_WORLD, 9,
                                              512, 201), "isend");
                l->n += 2;
                leave(l, R_STARTALL);
                enter(l, R_WAITALL);
                l->t += CALL_TICKS;
                check(OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, now(l), 201), "isend done");
                check(OTF2_EvtWriter_MpiIrecv(l->w, NULL, now(l), (uint32_t)left, C_WORLD, 9,
                                              512, 200), "irecv");
                l->n += 2;
                l->t -= CALL_TICKS;
                leave(l, R_WAITALL);
            }
        }
        enter(l, R_COMMRANK);
        leave(l, R_COMMRANK);
        enter(l, R_FINALIZE);
        if (strcmp(v, "cut") == 0 && r == P - 1)
            continue;   /* never left */
        leave(l, R_FINALIZE);
        leave(l, R_MAIN);
    }
    /* rank 0's helper thread: computation only */
    L[P].t = 5000;
    enter(&L[P], R_COMPUTE);
    L[P].t += 20000;
    leave(&L[P], R_COMPUTE);

    for (int r = 0; r <= P; r++)
        check(OTF2_Archive_CloseEvtWriter(ar, L[r].w), "close event writer");
    check(OTF2_Archive_CloseEvtWriter(ar, metric), "close event writer");
    check(OTF2_Archive_CloseEvtFiles(ar), "close event files");
    check(OTF2_Archive_OpenDefFiles(ar), "open def files");
    for (int r = 0; r <= P + 1; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, r < P ? (uint64_t)r
                                                       : r == P ? LOC_T1 : LOC_METRIC);
        check(OTF2_Archive_CloseDefWriter(ar, dw), "close def writer");
    }
    check(OTF2_Archive_CloseDefFiles(ar), "close def files");

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    uint64_t len = 0;
    for (int r = 0; r <= P; r++)
        if (L[r].t > len)
            len = L[r].t;
    if (strcmp(v, "no-clock") != 0)
        check(OTF2_GlobalDefWriter_WriteClockProperties(g, 2000000000ull, OFFSET, len + 1,
                                                        OTF2_UNDEFINED_TIMESTAMP), "clock");
    static const char *str[S_N] = {
        [S_EMPTY] = "", [S_MACHINE] = "machine", [S_NODE] = "node", [S_HOSTA] = "hostA",
        [S_HOSTB] = "hostB", [S_LINUX] = "Linux", [S_MASTER] = "Master thread",
        [S_THREAD1] = "OMP thread 1", [S_MPI] = "MPI", [S_WORLD] = "MPI_COMM_WORLD",
        [S_SELF] = "MPI_COMM_SELF", [S_EVEN] = "MPI_COMM_WORLD.split.0",
        [S_ODD] = "MPI_COMM_WORLD.split.1", [S_RANK0] = "MPI Rank 0",
        [S_RANK0 + 1] = "MPI Rank 1", [S_RANK0 + 2] = "MPI Rank 2", [S_RANK0 + 3] = "MPI Rank 3",
        [S_R_MAIN] = "main", [S_R_COMPUTE] = "compute", [S_R_INIT] = "MPI_Init",
        [S_R_FINALIZE] = "MPI_Finalize", [S_R_IRECV] = "MPI_Irecv", [S_R_ISEND] = "MPI_Isend",
        [S_R_WAITALL] = "MPI_Waitall", [S_R_ALLREDUCE] = "MPI_Allreduce",
        [S_R_SPLIT] = "MPI_Comm_split", [S_R_SEND] = "MPI_Send", [S_R_RECV] = "MPI_Recv",
        [S_R_BCAST] = "MPI_Bcast", [S_R_RANK] = "MPI_Comm_rank",
        [S_R_SINIT] = "MPI_Send_init", [S_R_RINIT] = "MPI_Recv_init",
        [S_R_STARTALL] = "MPI_Startall", [S_METRIC] = "per-process metrics",
        [S_R_REDUCE] = "MPI_Reduce", [S_R_SCAN] = "MPI_Scan", [S_R_EXSCAN] = "MPI_Exscan",
        [S_R_GATHER] = "MPI_Gather", [S_R_ALLGATHER] = "MPI_Allgather",
        [S_R_SCATTER] = "MPI_Scatter",
    };
    for (int s = 0; s < S_N; s++)
        check(OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)s, str[s]), "string");
    check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, S_MPI,
                                             OTF2_PARADIGM_CLASS_PROCESS), "paradigm");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_LINUX, S_MACHINE,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE), "stn");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, S_HOSTA, S_NODE, 0), "stn");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 2, S_HOSTB, S_NODE, 0), "stn");
    for (int r = 0; r < P; r++)
        check(OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, S_RANK0 + r,
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                      r < 2 ? 1 : 2,
                                                      OTF2_UNDEFINED_LOCATION_GROUP), "lg");
    for (int r = 0; r < P; r++)
        check(OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, S_MASTER,
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, L[r].n, r),
              "location");
    check(OTF2_GlobalDefWriter_WriteLocation(g, LOC_T1, S_THREAD1, OTF2_LOCATION_TYPE_CPU_THREAD,
                                             L[P].n, 0), "location");
    /* Score-P's per-process metric location (no events here): not a thread */
    check(OTF2_GlobalDefWriter_WriteLocation(g, LOC_METRIC, S_METRIC,
                                             OTF2_LOCATION_TYPE_METRIC, 0, 1), "location");
    static const struct { int name; OTF2_RegionRole role; OTF2_Paradigm par; } reg[] = {
        [R_MAIN] = { S_R_MAIN, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER },
        [R_COMPUTE] = { S_R_COMPUTE, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER },
        [R_INIT] = { S_R_INIT, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [R_FINALIZE] = { S_R_FINALIZE, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [R_IRECV] = { S_R_IRECV, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_ISEND] = { S_R_ISEND, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_WAITALL] = { S_R_WAITALL, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_ALLREDUCE] = { S_R_ALLREDUCE, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI },
        [R_SPLIT] = { S_R_SPLIT, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [R_SEND] = { S_R_SEND, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_RECV] = { S_R_RECV, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_BCAST] = { S_R_BCAST, OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_PARADIGM_MPI },
        [R_COMMRANK] = { S_R_RANK, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [R_SINIT] = { S_R_SINIT, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_RINIT] = { S_R_RINIT, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_STARTALL] = { S_R_STARTALL, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [R_REDUCE] = { S_R_REDUCE, OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_PARADIGM_MPI },
        [R_SCAN] = { S_R_SCAN, OTF2_REGION_ROLE_COLL_OTHER, OTF2_PARADIGM_MPI },
        [R_EXSCAN] = { S_R_EXSCAN, OTF2_REGION_ROLE_COLL_OTHER, OTF2_PARADIGM_MPI },
        [R_GATHER] = { S_R_GATHER, OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_PARADIGM_MPI },
        [R_ALLGATHER] = { S_R_ALLGATHER, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI },
        [R_SCATTER] = { S_R_SCATTER, OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_PARADIGM_MPI },
    };
    for (size_t i = 0; i < sizeof reg / sizeof reg[0]; i++)
        check(OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, reg[i].name, reg[i].name,
                                               S_EMPTY, reg[i].role, reg[i].par,
                                               OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0), "region");
    uint64_t locs[P], world[P], even[2] = { 0, 2 }, odd[2] = { 1, 3 };
    for (int r = 0; r < P; r++)
        locs[r] = world[r] = (uint64_t)r;
    if (strcmp(v, "bad-group") == 0)
        odd[1] = 6;
    if (strcmp(v, "no-mpi") != 0)
        check(OTF2_GlobalDefWriter_WriteGroup(g, G_LOCS, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, P, locs),
              "group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, G_WORLD, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, P, world),
          "group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, G_SELF, S_EMPTY, OTF2_GROUP_TYPE_COMM_SELF,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL),
          "group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, G_EVEN, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, even),
          "group");
    check(OTF2_GlobalDefWriter_WriteGroup(g, G_ODD, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, odd),
          "group");
    check(OTF2_GlobalDefWriter_WriteComm(g, C_WORLD, S_WORLD, G_WORLD, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE), "comm");
    check(OTF2_GlobalDefWriter_WriteComm(g, C_SELF, S_SELF, G_SELF, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE), "comm");
    check(OTF2_GlobalDefWriter_WriteComm(g, C_EVEN, S_EVEN, G_EVEN, C_WORLD,
                                         OTF2_COMM_FLAG_NONE), "comm");
    check(OTF2_GlobalDefWriter_WriteComm(g, C_ODD, S_ODD, G_ODD, C_WORLD, OTF2_COMM_FLAG_NONE),
          "comm");
    check(OTF2_Archive_Close(ar), "close archive");
    return 0;
}
#endif
