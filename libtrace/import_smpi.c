/* Import of SimGrid SMPI time-independent traces (`smpirun -trace-ti`) into
 * a hopscope trace directory (`hopscope trace import smpi`).
 *
 * SMPI writes one text file per rank, one action a line ("R isend 1 5 100
 * 0": rank, action, arguments; docs/formats.md "SMPI time-independent
 * traces" lists them), plus an index file naming the rank files in rank
 * order.  The trace holds no times: computation is in flops, converted here
 * with a rate (flop/s); every MPI call takes zero time.
 *
 * What the files do not say and how it is settled (documented in
 * docs/formats.md):
 *   - receives posted with MPI_ANY_SOURCE (written as -333, like
 *     MPI_PROC_NULL) and MPI_ANY_TAG (-444) are matched here: every
 *     receive naming its source takes the first unmatched message from it
 *     with its tag, then the wildcard receives, in their rank's order, take
 *     the unmatched message that was sent earliest (by the computation
 *     clock); a -333 receive that finds nothing is a receive from
 *     MPI_PROC_NULL;
 *   - Sendrecv's tags are not written: both sides get tag 0;
 *   - waits name a request by (source, destination, tag): the oldest
 *     outstanding request with that key; waitall completes every outstanding
 *     request, waitany the oldest; a test completes its request when no later
 *     wait or test of the same request follows;
 *   - nonblocking collectives become their blocking form (their waits name
 *     no request of the trace and are dropped);
 *   - communicators are not written: every collective is on MPI_COMM_WORLD,
 *     and a v-collective whose count list is not the world's size is an
 *     error.
 *
 * Memory: two passes over the files, each holding one rank's actions; the
 * messages of the whole job (24 bytes each) are kept between them for the
 * receive matching. */
#include "hopscope/trace.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define SMPI_UNDEFINED (-333)      /* MPI_UNDEFINED: no world rank (ANY_SOURCE, PROC_NULL) */
#define SMPI_ANY_TAG   (-444)
#define SENDRECV_TAG   0           /* SMPI does not write Sendrecv's tags */
#define MAX_LINE       (1u << 24)  /* a line of alltoallv counts at 1M ranks fits */
#define MAX_RANKS      (1u << 22)
#define MAX_COUNT      1e15        /* elements in one action: bytes stay < 2^63 */
#define NS_PER_S       1e9

/* ---- SMPI datatypes ---------------------------------------------------------
 * SMPI writes a predefined type as its id (src/smpi/mpi/smpi_datatype.cpp,
 * SimGrid 3.32), a derived type as -1; sizes are those of x86-64 Linux. */
static const uint8_t dt_size[] = {
    8, 4, 1, 2, 8, 4, 1, 8,     /* 0 DOUBLE INT CHAR SHORT LONG FLOAT BYTE LONG_LONG */
    1, 1, 2, 4, 8, 8, 16, 4,    /* 8 SIGNED_CHAR UNSIGNED_CHAR USHORT UNSIGNED ULONG ULL LDOUBLE WCHAR */
    1, 1, 2, 4, 8, 1, 2, 4,     /* 16 C_BOOL INT8..64 UINT8 UINT16 UINT32 */
    8, 8, 16, 32, 8, 8, 8, 16,  /* 24 UINT64 C_(FLOAT,DOUBLE,LDOUBLE)_COMPLEX AINT OFFSET FLOAT_INT LONG_INT */
    16, 8, 8, 8, 16, 16, 4, 4,  /* 32 DOUBLE_INT SHORT_INT 2INT 2FLOAT 2DOUBLE 2LONG REAL REAL4 */
    8, 16, 8, 16, 16, 4, 2, 4,  /* 40 REAL8 REAL16 COMPLEX8 COMPLEX16 COMPLEX32 INTEGER1 INTEGER2 INTEGER4 */
    8, 16, 32, 1, 8, 16, 32, 0, /* 48 INTEGER8 INTEGER16 LONG_DOUBLE_INT CXX_BOOL CXX_*COMPLEX UB */
    0, 1, 8, 8,                 /* 56 LB PACKED PTR COUNT */
};
#define DT_NONE    (-2)   /* field absent: SMPI's replay takes MPI_BYTE */
#define DT_DERIVED (-1)

/* ---- actions ---------------------------------------------------------------- */

enum {
    A_NOP, A_INIT, A_FINALIZE, A_COMPUTE, A_SLEEP,
    A_SEND, A_RECV, A_IRECV, A_SENDRECV,
    A_WAIT, A_TEST, A_WAITALL, A_WAITANY, A_TESTALL, A_TESTANY,
    A_COLL
};

typedef struct act {
    uint8_t  op;
    uint16_t kind;        /* hopscope kind of A_SEND, A_COLL */
    uint32_t line;
    int32_t  peer, tag;   /* send: destination/tag; recv: posted source/tag; wait/test: key src/tag */
    int32_t  peer2;       /* wait/test: key destination; sendrecv: posted source; coll: root */
    uint64_t bytes, bytes2;
    double   amount;      /* compute: flops; sleep: s; coll: flops after the call */
    uint32_t nlist;       /* coll: per-rank byte lists at pool[list], send then receive */
    uint8_t  lists;       /* bit 0: send list, bit 1: receive list */
    size_t   list;
    int64_t  t;           /* start time (ns) */
    /* receive resolution */
    int32_t  msrc, mtag;
    uint64_t mbytes;
    int8_t   matched;     /* 1 message found, 0 not yet, -1 none (PROC_NULL) */
} act;

typedef struct rankacts {
    act *a;
    size_t n, cap;
    uint64_t *pool;
    size_t npool, cappool;
} rankacts;

typedef struct msgrec {   /* a message to one destination */
    int32_t src, tag;
    uint64_t bytes;
    int64_t t;
    uint8_t used;
} msgrec;

typedef struct msgvec {
    msgrec *m;
    uint32_t n, cap;
} msgvec;

typedef struct imp {
    const hs_smpi_import_opts *o;
    hs_smpi_import_report *rep;
    hs_error *err;
    uint32_t nranks;
    char **files;            /* [nfiles]: one per rank, or the one file of all */
    uint32_t nfiles;
    /* one file of all ranks (tracing/smpi/format/ti-one-file): its lines
     * per rank, in order: line[first[r] .. first[r + 1]) */
    int onefile;
    struct oline { uint64_t off; uint32_t line; } *ol;
    size_t *first;
    msgvec *to;              /* [nranks] messages per destination */
    rankacts ra;
    char *line;
    size_t linecap;
    int pass;                /* 1: collecting messages, 2: writing */
    /* current file */
    const char *fname;
    uint32_t lineno;
} imp;

static int ferr(imp *I, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int ferr(imp *I, int status, const char *fmt, ...)
{
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return hs_error_set(I->err, status, "%s:%u: %s", I->fname, I->lineno, buf);
}

/* ---- numbers ---------------------------------------------------------------- */

static int num_i32(imp *I, const char *s, const char *what, int32_t *out)
{
    int64_t v = 0;
    *out = 0;
    if (hs_parse_i64(s, &v) || v < INT32_MIN || v > INT32_MAX)
        return ferr(I, HS_EFORMAT, "%s '%.40s' is not a 32-bit integer", what, s);
    *out = (int32_t)v;
    return 0;
}

/* A rank argument: a world rank, or -333 where allowed. */
static int num_rank(imp *I, const char *s, const char *what, int undef_ok, int32_t *out)
{
    int rc = num_i32(I, s, what, out);
    if (rc)
        return rc;
    if (*out == SMPI_UNDEFINED && undef_ok)
        return 0;
    if (*out < 0 || (uint32_t)*out >= I->nranks)
        return ferr(I, HS_ERANGE, "%s %d: the job has ranks 0..%u", what, *out, I->nranks - 1);
    return 0;
}

static int num_tag(imp *I, const char *s, int any_ok, int32_t *out)
{
    int rc = num_i32(I, s, "tag", out);
    if (rc)
        return rc;
    if (*out < 0 && !(any_ok && *out == SMPI_ANY_TAG))
        return ferr(I, HS_ERANGE, "tag %d is negative", *out);
    return 0;
}

/* An element count: SMPI writes integers; the replay reads doubles. */
static int num_count(imp *I, const char *s, double *out)
{
    double v;
    if (hs_parse_double(s, &v) || !isfinite(v))
        return ferr(I, HS_EFORMAT, "count '%.40s' is not a number", s);
    if (v < 0 || v > MAX_COUNT || v != floor(v))
        return ferr(I, HS_ERANGE, "count %.17g is not an integer in 0..1e15", v);
    *out = v;
    return 0;
}

static int num_amount(imp *I, const char *s, const char *what, double *out)
{
    double v;
    if (hs_parse_double(s, &v) || !isfinite(v))
        return ferr(I, HS_EFORMAT, "%s '%.40s' is not a number", what, s);
    if (v < 0)
        return ferr(I, HS_ERANGE, "%s %g is negative", what, v);
    *out = v;
    return 0;
}

/* Datatype argument i of tok (DT_NONE when absent) -> bytes per element. */
static int dtype(imp *I, char **tok, int ntok, int i, uint64_t *size)
{
    if (i >= ntok) {
        *size = 1;
        return 0;
    }
    int32_t id;
    int rc = num_i32(I, tok[i], "datatype", &id);
    if (rc)
        return rc;
    if (id == DT_DERIVED) {
        I->rep->derived += I->pass == 1;
        *size = I->o->derived_size;
        return 0;
    }
    if (id < 0 || (size_t)id >= sizeof dt_size)
        return ferr(I, HS_ERANGE, "datatype %d is not one SMPI 3.32 writes (-1, 0..%zu)", id,
                    sizeof dt_size - 1);
    *size = dt_size[id];
    return 0;
}

static uint64_t mulb(double count, uint64_t size)
{
    return (uint64_t)count * size;   /* count <= 1e15, size <= 32: < 2^55 */
}

/* ---- parsing one rank file -------------------------------------------------- */

static act *act_new(imp *I, int op)
{
    rankacts *R = &I->ra;
    if (R->n == R->cap) {
        size_t nc = R->cap ? 2 * R->cap : 256;
        act *na = realloc(R->a, nc * sizeof *na);
        if (!na)
            return NULL;
        R->a = na;
        R->cap = nc;
    }
    act *a = &R->a[R->n++];
    memset(a, 0, sizeof *a);
    a->op = (uint8_t)op;
    a->line = I->lineno;
    a->peer = a->peer2 = HS_TRACE_RANK_NONE;
    a->tag = HS_TRACE_TAG_NONE;
    return a;
}

static int pool_reserve(imp *I, size_t n, size_t *at)
{
    rankacts *R = &I->ra;
    if (R->npool + n > R->cappool) {
        size_t nc = R->cappool ? R->cappool : 1024;
        while (nc < R->npool + n)
            nc *= 2;
        uint64_t *np = realloc(R->pool, nc * sizeof *np);
        if (!np)
            return hs_error_set(I->err, HS_ENOMEM, "out of memory");
        R->pool = np;
        R->cappool = nc;
    }
    *at = R->npool;
    R->npool += n;
    return 0;
}

typedef struct coll_desc {
    const char *name;
    uint16_t kind;
    char shape;   /* layout of the arguments, see parse_coll */
} coll_desc;

static const coll_desc colls[] = {
    { "barrier", HS_TRACE_BARRIER, 'N' },       { "ibarrier", HS_TRACE_BARRIER, 'N' },
    { "bcast", HS_TRACE_BCAST, 'B' },           { "ibcast", HS_TRACE_BCAST, 'B' },
    { "reduce", HS_TRACE_REDUCE, 'R' },         { "ireduce", HS_TRACE_REDUCE, 'R' },
    { "allreduce", HS_TRACE_ALLREDUCE, 'A' },   { "iallreduce", HS_TRACE_ALLREDUCE, 'A' },
    { "scan", HS_TRACE_SCAN, 'A' },             { "iscan", HS_TRACE_SCAN, 'A' },
    { "exscan", HS_TRACE_EXSCAN, 'A' },         { "iexscan", HS_TRACE_EXSCAN, 'A' },
    { "alltoall", HS_TRACE_ALLTOALL, 'T' },     { "ialltoall", HS_TRACE_ALLTOALL, 'T' },
    { "alltoallv", HS_TRACE_ALLTOALLV, 'V' },   { "ialltoallv", HS_TRACE_ALLTOALLV, 'V' },
    { "gather", HS_TRACE_GATHER, 'G' },         { "igather", HS_TRACE_GATHER, 'G' },
    { "gatherv", HS_TRACE_GATHERV, 'g' },       { "igatherv", HS_TRACE_GATHERV, 'g' },
    { "allgather", HS_TRACE_ALLGATHER, 'L' },   { "iallgather", HS_TRACE_ALLGATHER, 'L' },
    { "allgatherv", HS_TRACE_ALLGATHERV, 'l' }, { "iallgatherv", HS_TRACE_ALLGATHERV, 'l' },
    { "scatter", HS_TRACE_SCATTER, 'S' },       { "iscatter", HS_TRACE_SCATTER, 'S' },
    { "scatterv", HS_TRACE_SCATTERV, 's' },     { "iscatterv", HS_TRACE_SCATTERV, 's' },
    { "reducescatter", HS_TRACE_REDUCE_SCATTER, 'r' },
    { "ireducescatter", HS_TRACE_REDUCE_SCATTER, 'r' },
    { "reduce_scatter", HS_TRACE_REDUCE_SCATTER, 'r' },
    { "ireduce_scatter", HS_TRACE_REDUCE_SCATTER, 'r' },
};

/* Reads n counts tok[at..at+n) (elements of size sz) into the pool at *pos. */
static int read_list(imp *I, char **tok, int at, uint32_t n, uint64_t sz, size_t pos,
                     uint64_t *sum)
{
    *sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        double c;
        int rc = num_count(I, tok[at + (int)i], &c);
        if (rc)
            return rc;
        I->ra.pool[pos + i] = mulb(c, sz);
        *sum += I->ra.pool[pos + i];
    }
    return 0;
}

/* The argument count of a v-collective must be the world's, or the call was
 * on another communicator, which SMPI does not write. */
static int v_count(imp *I, const char *name, int ntok, int fixed, int nlists, int ndt)
{
    int base = 2 + fixed + nlists * (int)I->nranks;   /* rank, name, fixed fields and the list */
    if (ntok >= base && ntok <= base + ndt)
        return 0;
    return ferr(I, HS_EFORMAT, "%s with %d arguments: expected %d to %d for %u ranks "
                "(a collective on a communicator other than MPI_COMM_WORLD? SMPI's "
                "trace does not say which)", name, ntok - 2, base - 2, base - 2 + ndt,
                I->nranks);
}

static int need(imp *I, const char *name, int ntok, int lo, int hi)
{
    if (ntok - 2 < lo || ntok - 2 > hi)
        return ferr(I, HS_EFORMAT, lo == hi ? "%s takes %d arguments, not %d"
                    : "%s takes %d to %d arguments, not %d", name, lo,
                    lo == hi ? ntok - 2 : hi, ntok - 2);
    return 0;
}

static int parse_coll(imp *I, uint32_t me, const coll_desc *d, char **tok, int ntok)
{
    uint32_t P = I->nranks;
    act *a = act_new(I, A_COLL);
    if (!a)
        return hs_error_set(I->err, HS_ENOMEM, "out of memory");
    a->kind = d->kind;
    int rc = 0;
    double c1 = 0, c2 = 0;
    uint64_t s1 = 1, s2 = 1;
    int32_t root = 0;
    size_t pos = 0;
    uint64_t sum1 = 0, sum2 = 0;
    switch (d->shape) {
    case 'N':
        rc = need(I, d->name, ntok, 0, 0);
        break;
    case 'B':   /* count [root [dt]] */
        if ((rc = need(I, d->name, ntok, 1, 3)) || (rc = num_count(I, tok[2], &c1)) ||
            (ntok > 3 && (rc = num_rank(I, tok[3], "root", 0, &root))) ||
            (rc = dtype(I, tok, ntok, 4, &s1)))
            break;
        a->peer = root;
        a->bytes = me == (uint32_t)root ? mulb(c1, s1) : 0;
        a->bytes2 = me == (uint32_t)root ? 0 : mulb(c1, s1);
        break;
    case 'R':   /* count flops [root [dt]] */
        if ((rc = need(I, d->name, ntok, 2, 4)) || (rc = num_count(I, tok[2], &c1)) ||
            (rc = num_amount(I, tok[3], "flops", &a->amount)) ||
            (ntok > 4 && (rc = num_rank(I, tok[4], "root", 0, &root))) ||
            (rc = dtype(I, tok, ntok, 5, &s1)))
            break;
        a->peer = root;
        a->bytes = mulb(c1, s1);
        a->bytes2 = me == (uint32_t)root ? a->bytes : 0;
        break;
    case 'A':   /* count flops [dt] */
        if ((rc = need(I, d->name, ntok, 2, 3)) || (rc = num_count(I, tok[2], &c1)) ||
            (rc = num_amount(I, tok[3], "flops", &a->amount)) ||
            (rc = dtype(I, tok, ntok, 4, &s1)))
            break;
        a->bytes = a->bytes2 = mulb(c1, s1);
        break;
    case 'T':   /* alltoall: scount rcount [dt1 [dt2]] */
    case 'L':   /* allgather: scount rcount [dt1 [dt2]] */
        if ((rc = need(I, d->name, ntok, 2, 4)) || (rc = num_count(I, tok[2], &c1)) ||
            (rc = num_count(I, tok[3], &c2)) || (rc = dtype(I, tok, ntok, 4, &s1)) ||
            (rc = dtype(I, tok, ntok, 5, &s2)))
            break;
        a->bytes = d->shape == 'T' ? P * mulb(c1, s1) : mulb(c1, s1);
        a->bytes2 = P * mulb(c2, s2);
        break;
    case 'G':   /* gather / scatter: scount rcount [root [dt1 [dt2]]] */
    case 'S':
        if ((rc = need(I, d->name, ntok, 2, 5)) || (rc = num_count(I, tok[2], &c1)) ||
            (rc = num_count(I, tok[3], &c2)) ||
            (ntok > 4 && (rc = num_rank(I, tok[4], "root", 0, &root))) ||
            (rc = dtype(I, tok, ntok, 5, &s1)) || (rc = dtype(I, tok, ntok, 6, &s2)))
            break;
        a->peer = root;
        if (d->shape == 'G') {
            a->bytes = mulb(c1, s1);
            a->bytes2 = me == (uint32_t)root ? P * mulb(c2, s2) : 0;
        } else {
            a->bytes = me == (uint32_t)root ? P * mulb(c1, s1) : 0;
            a->bytes2 = mulb(c2, s2);
        }
        break;
    case 'V':   /* alltoallv: ssum scounts[P] rsum rcounts[P] [dt1 [dt2]] */
        if ((rc = v_count(I, d->name, ntok, 2, 2, 2)) ||
            (rc = dtype(I, tok, ntok, 4 + 2 * (int)P, &s1)) ||
            (rc = dtype(I, tok, ntok, 5 + 2 * (int)P, &s2)) ||
            (rc = num_count(I, tok[2], &c1)) || (rc = num_count(I, tok[3 + P], &c2)) ||
            (rc = pool_reserve(I, 2 * (size_t)P, &pos)) ||
            (rc = read_list(I, tok, 3, P, s1, pos, &sum1)) ||
            (rc = read_list(I, tok, 4 + (int)P, P, s2, pos + P, &sum2)))
            break;
        a->list = pos;
        a->nlist = P;
        a->lists = 3;
        a->bytes = sum1;
        a->bytes2 = sum2;
        break;
    case 'g':   /* gatherv: scount rcounts[P] [root [dt1 [dt2]]] */
        if ((rc = v_count(I, d->name, ntok, 1, 1, 3)) || (rc = num_count(I, tok[2], &c1)) ||
            (ntok > 3 + (int)P && (rc = num_rank(I, tok[3 + P], "root", 0, &root))) ||
            (rc = dtype(I, tok, ntok, 4 + (int)P, &s1)) ||
            (rc = dtype(I, tok, ntok, 5 + (int)P, &s2)))
            break;
        a->peer = root;
        a->bytes = mulb(c1, s1);
        if (me == (uint32_t)root) {
            if ((rc = pool_reserve(I, P, &pos)) || (rc = read_list(I, tok, 3, P, s2, pos, &sum2)))
                break;
            a->list = pos;
            a->nlist = P;
            a->lists = 2;
            a->bytes2 = sum2;
        }
        break;
    case 'l':   /* allgatherv: scount rcounts[P] [dt1 [dt2]] */
        if ((rc = v_count(I, d->name, ntok, 1, 1, 2)) || (rc = num_count(I, tok[2], &c1)) ||
            (rc = dtype(I, tok, ntok, 3 + (int)P, &s1)) ||
            (rc = dtype(I, tok, ntok, 4 + (int)P, &s2)) ||
            (rc = pool_reserve(I, P, &pos)) || (rc = read_list(I, tok, 3, P, s2, pos, &sum2)))
            break;
        a->list = pos;
        a->nlist = P;
        a->lists = 2;
        a->bytes = mulb(c1, s1);
        a->bytes2 = sum2;
        break;
    case 's':   /* scatterv: scounts[P] rcount [root [dt1 [dt2]]] */
        if ((rc = v_count(I, d->name, ntok, 1, 1, 3)) || (rc = num_count(I, tok[2 + P], &c2)) ||
            (ntok > 3 + (int)P && (rc = num_rank(I, tok[3 + P], "root", 0, &root))) ||
            (rc = dtype(I, tok, ntok, 4 + (int)P, &s1)) ||
            (rc = dtype(I, tok, ntok, 5 + (int)P, &s2)))
            break;
        a->peer = root;
        a->bytes2 = mulb(c2, s2);
        if (me == (uint32_t)root) {
            if ((rc = pool_reserve(I, P, &pos)) || (rc = read_list(I, tok, 2, P, s1, pos, &sum1)))
                break;
            a->list = pos;
            a->nlist = P;
            a->lists = 1;
            a->bytes = sum1;
        }
        break;
    case 'r':   /* reducescatter: rcounts[P] flops [dt] */
        if ((rc = v_count(I, d->name, ntok, 1, 1, 1)) ||
            (rc = num_amount(I, tok[2 + P], "flops", &a->amount)) ||
            (rc = dtype(I, tok, ntok, 3 + (int)P, &s1)) ||
            (rc = pool_reserve(I, P, &pos)) || (rc = read_list(I, tok, 2, P, s1, pos, &sum2)))
            break;
        a->list = pos;
        a->nlist = P;
        a->lists = 2;
        a->bytes = sum2;
        a->bytes2 = I->ra.pool[pos + me];
        break;
    }
    return rc;
}

typedef struct p2p_desc {
    const char *name;
    int op;
    uint16_t kind;
} p2p_desc;

static const p2p_desc p2ps[] = {
    { "send", A_SEND, HS_TRACE_SEND },     { "isend", A_SEND, HS_TRACE_ISEND },
    { "ssend", A_SEND, HS_TRACE_SSEND },   { "issend", A_SEND, HS_TRACE_ISSEND },
    { "bsend", A_SEND, HS_TRACE_BSEND },   { "ibsend", A_SEND, HS_TRACE_IBSEND },
    { "rsend", A_SEND, HS_TRACE_RSEND },   { "irsend", A_SEND, HS_TRACE_IRSEND },
    { "recv", A_RECV, HS_TRACE_RECV },     { "irecv", A_IRECV, HS_TRACE_IRECV },
};

static const struct { const char *name; int op; } simple[] = {
    { "init", A_INIT }, { "finalize", A_FINALIZE },
    { "comm_size", A_NOP }, { "comm_split", A_NOP }, { "comm_dup", A_NOP },
    { "location", A_NOP },
    { "waitall", A_WAITALL }, { "waitAll", A_WAITALL }, { "waitsome", A_WAITALL },
    { "waitSome", A_WAITALL },
    { "waitany", A_WAITANY }, { "waitAny", A_WAITANY },
    { "testall", A_TESTALL }, { "testAll", A_TESTALL }, { "testsome", A_TESTALL },
    { "testSome", A_TESTALL },
    { "testany", A_TESTANY }, { "testAny", A_TESTANY },
};

/* One line, split into tok[0..ntok). */
static int parse_action(imp *I, uint32_t me, char **tok, int ntok)
{
    int32_t r;
    int rc;
    if ((rc = num_i32(I, tok[0], "rank", &r)))
        return rc;
    if (r < 0 || (uint32_t)r != me)
        return ferr(I, HS_EFORMAT, "the line is for rank %d, the file for rank %u", r, me);
    if (ntok < 2)
        return ferr(I, HS_EFORMAT, "no action after the rank");
    const char *name = tok[1];
    act *a;
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (strcasecmp(name, simple[i].name) == 0) {
            /* comm_size N, location FILE LINE, waitall N: arguments not needed */
            if (!(a = act_new(I, simple[i].op)))
                return hs_error_set(I->err, HS_ENOMEM, "out of memory");
            if ((simple[i].op == A_INIT || simple[i].op == A_FINALIZE) && ntok > 2)
                return ferr(I, HS_EFORMAT, "%s takes no arguments", name);
            if (simple[i].op >= A_WAITALL && ntok > 3)
                return ferr(I, HS_EFORMAT, "%s takes at most one argument", name);
            if (simple[i].op >= A_WAITALL && ntok == 3) {
                double n;
                if ((rc = num_count(I, tok[2], &n)))
                    return rc;
            }
            return 0;
        }
    if (strcasecmp(name, "compute") == 0 || strcasecmp(name, "sleep") == 0) {
        int sleep = name[0] == 's';
        if ((rc = need(I, name, ntok, 1, 1)))
            return rc;
        if (!(a = act_new(I, sleep ? A_SLEEP : A_COMPUTE)))
            return hs_error_set(I->err, HS_ENOMEM, "out of memory");
        return num_amount(I, tok[2], sleep ? "seconds" : "flops", &a->amount);
    }
    for (size_t i = 0; i < sizeof p2ps / sizeof p2ps[0]; i++)
        if (strcasecmp(name, p2ps[i].name) == 0) {
            /* PEER TAG COUNT [DT] */
            int recv = p2ps[i].op != A_SEND;
            double c;
            uint64_t sz;
            if ((rc = need(I, name, ntok, 3, 4)))
                return rc;
            if (!(a = act_new(I, p2ps[i].op)))
                return hs_error_set(I->err, HS_ENOMEM, "out of memory");
            a->kind = p2ps[i].kind;
            if ((rc = num_rank(I, tok[2], recv ? "source" : "destination", 1, &a->peer)) ||
                (rc = num_tag(I, tok[3], recv, &a->tag)) || (rc = num_count(I, tok[4], &c)) ||
                (rc = dtype(I, tok, ntok, 5, &sz)))
                return rc;
            a->bytes = mulb(c, sz);
            return 0;
        }
    if (strcasecmp(name, "sendRecv") == 0 || strcasecmp(name, "sendrecv") == 0) {
        /* SCOUNT DST RCOUNT SRC [DT1 [DT2]] */
        double c1, c2;
        uint64_t s1, s2;
        if ((rc = need(I, name, ntok, 4, 6)))
            return rc;
        if (!(a = act_new(I, A_SENDRECV)))
            return hs_error_set(I->err, HS_ENOMEM, "out of memory");
        if ((rc = num_count(I, tok[2], &c1)) ||
            (rc = num_rank(I, tok[3], "destination", 1, &a->peer)) ||
            (rc = num_count(I, tok[4], &c2)) ||
            (rc = num_rank(I, tok[5], "source", 1, &a->peer2)) ||
            (rc = dtype(I, tok, ntok, 6, &s1)) || (rc = dtype(I, tok, ntok, 7, &s2)))
            return rc;
        a->tag = SENDRECV_TAG;
        a->bytes = mulb(c1, s1);
        a->bytes2 = mulb(c2, s2);
        return 0;
    }
    if (strcasecmp(name, "wait") == 0 || strcasecmp(name, "test") == 0) {
        /* SRC DST TAG of the request; SMPI writes odd keys for collectives' */
        if ((rc = need(I, name, ntok, 3, 3)))
            return rc;
        if (!(a = act_new(I, name[0] == 'w' ? A_WAIT : A_TEST)))
            return hs_error_set(I->err, HS_ENOMEM, "out of memory");
        if ((rc = num_i32(I, tok[2], "source", &a->peer)) ||
            (rc = num_i32(I, tok[3], "destination", &a->peer2)) ||
            (rc = num_i32(I, tok[4], "tag", &a->tag)))
            return rc;
        return 0;
    }
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        if (strcasecmp(name, colls[i].name) == 0)
            return parse_coll(I, me, &colls[i], tok, ntok);
    if (I->o->skip_unknown) {
        I->rep->unknown += I->pass == 1;
        return 0;
    }
    return ferr(I, HS_EFORMAT, "unknown action '%.40s' (--skip-unknown to ignore such lines)",
                name);
}

static int parse_rank(imp *I, uint32_t me)
{
    I->ra.n = 0;
    I->ra.npool = 0;
    I->fname = I->files[I->onefile ? 0 : me];
    I->lineno = 0;
    size_t k = I->onefile ? I->first[me] : 0;
    FILE *f = fopen(I->fname, "r");
    if (!f)
        return hs_error_set(I->err, errno == ENOENT ? HS_ENOENT : HS_EIO,
                            "%s: cannot open the file of rank %u: %s", I->fname, me,
                            strerror(errno));
    int rc = 0;
    char *tok[8];
    char **toks = tok;
    size_t tokcap = 8;
    for (;;) {
        if (I->onefile) {
            if (k == I->first[me + 1])
                break;
            if (fseeko(f, (off_t)I->ol[k].off, SEEK_SET)) {
                rc = hs_error_set(I->err, HS_EIO, "%s: seek failed", I->fname);
                break;
            }
            I->lineno = I->ol[k++].line - 1;
        }
        ssize_t len = getline(&I->line, &I->linecap, f);
        if (len < 0)
            break;
        I->lineno++;
        if ((size_t)len > MAX_LINE) {
            rc = ferr(I, HS_ERANGE, "line longer than %u bytes", MAX_LINE);
            break;
        }
        if (len == 0 || I->line[len - 1] != '\n') {
            rc = ferr(I, HS_ETRUNC, "the last line is cut short (no newline): truncated file?");
            break;
        }
        if (memchr(I->line, '\0', (size_t)len)) {
            rc = ferr(I, HS_EFORMAT, "NUL byte in the line: not a text trace");
            break;
        }
        int ntok = 0;
        char *p = I->line;
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
                p++;
            if (!*p)
                break;
            if (!isprint((unsigned char)*p)) {
                rc = ferr(I, HS_EFORMAT, "byte 0x%02x is not text", (unsigned char)*p);
                break;
            }
            if ((size_t)ntok == tokcap) {
                size_t nc = tokcap * 2;
                char **nt = toks == tok ? malloc(nc * sizeof *nt) : realloc(toks, nc * sizeof *nt);
                if (!nt) {
                    rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
                    break;
                }
                if (toks == tok)
                    memcpy(nt, tok, sizeof tok);
                toks = nt;
                tokcap = nc;
            }
            toks[ntok++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
                p++;
            if (*p)
                *p++ = '\0';
        }
        if (rc)
            break;
        if (ntok == 0)
            continue;   /* blank line */
        if ((rc = parse_action(I, me, toks, ntok)))
            break;
    }
    if (!rc && ferror(f))
        rc = hs_error_set(I->err, HS_EIO, "%s: read error", I->fname);
    fclose(f);
    if (toks != tok)
        free(toks);
    return rc;
}

/* ---- times ------------------------------------------------------------------ */

/* Start times: computation advances the clock, calls take no time. */
static int set_times(imp *I)
{
    double t = 0;
    for (size_t i = 0; i < I->ra.n; i++) {
        act *a = &I->ra.a[i];
        a->t = (int64_t)t;
        double dt = 0;
        if (a->op == A_COMPUTE || (a->op == A_COLL && a->amount > 0))
            dt = a->amount / I->o->flops * NS_PER_S;
        else if (a->op == A_SLEEP)
            dt = a->amount * NS_PER_S;
        t += dt;
        if (t >= (double)HS_TRACE_TIME_LIMIT) {
            I->lineno = a->line;
            return ferr(I, HS_ERANGE, "the computation adds up to more than 2^56 ns (%.3g s at "
                        "%g flop/s)", t / NS_PER_S, I->o->flops);
        }
    }
    return 0;
}

/* ---- pass 1: every message, per destination --------------------------------- */

static int add_msg(imp *I, uint32_t src, int32_t dst, int32_t tag, uint64_t bytes, int64_t t)
{
    if (dst < 0)
        return 0;   /* MPI_PROC_NULL */
    msgvec *v = &I->to[dst];
    if (v->n == v->cap) {
        if (v->cap >= UINT32_MAX / 2)
            return hs_error_set(I->err, HS_EOVERFLOW, "more than 2^31 messages to rank %d", dst);
        uint32_t nc = v->cap ? 2 * v->cap : 16;
        msgrec *nm = realloc(v->m, nc * sizeof *nm);
        if (!nm)
            return hs_error_set(I->err, HS_ENOMEM, "out of memory");
        v->m = nm;
        v->cap = nc;
    }
    v->m[v->n++] = (msgrec){ (int32_t)src, tag, bytes, t, 0 };
    return 0;
}

static int collect_sends(imp *I, uint32_t me)
{
    int rc;
    for (size_t i = 0; i < I->ra.n; i++) {
        const act *a = &I->ra.a[i];
        if ((a->op == A_SEND || a->op == A_SENDRECV) &&
            (rc = add_msg(I, me, a->peer, a->tag, a->bytes, a->t)))
            return rc;
    }
    return 0;
}

/* ---- pass 2: receive matching ------------------------------------------------ */

static int is_recv(const act *a)
{
    return a->op == A_RECV || a->op == A_IRECV || a->op == A_SENDRECV;
}

static int32_t posted_src(const act *a)
{
    return a->op == A_SENDRECV ? a->peer2 : a->peer;
}

static void match_receives(imp *I, uint32_t me)
{
    msgvec *v = &I->to[me];
    /* receives that name source and tag: first unmatched message, in order */
    for (size_t i = 0; i < I->ra.n; i++) {
        act *a = &I->ra.a[i];
        if (!is_recv(a))
            continue;
        int32_t s = posted_src(a);
        a->matched = 0;
        if (s < 0 || a->tag < 0)
            continue;
        /* pass 1 appends the senders in rank order: s's messages are one run */
        uint32_t lo = 0, hi = v->n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (v->m[mid].src < s)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t k = lo; k < v->n && v->m[k].src == s; k++) {
            msgrec *m = &v->m[k];
            if (!m->used && m->tag == a->tag) {
                m->used = 1;
                a->msrc = s;
                a->mtag = m->tag;
                a->mbytes = m->bytes;
                a->matched = 1;
                break;
            }
        }
        if (!a->matched)
            I->rep->unmatched++;
    }
    /* wildcards, in program order: the earliest unmatched message that fits */
    for (size_t i = 0; i < I->ra.n; i++) {
        act *a = &I->ra.a[i];
        if (!is_recv(a))
            continue;
        int32_t s = posted_src(a);
        if (s >= 0 && a->tag >= 0)
            continue;
        msgrec *best = NULL;
        for (uint32_t k = 0; k < v->n; k++) {
            msgrec *m = &v->m[k];
            if (m->used || (s >= 0 && m->src != s) || (a->tag >= 0 && m->tag != a->tag))
                continue;
            if (!best || m->t < best->t)
                best = m;
        }
        if (best) {
            best->used = 1;
            a->msrc = best->src;
            a->mtag = best->tag;
            a->mbytes = best->bytes;
            a->matched = 1;
            I->rep->wildcards++;
        } else if (s == SMPI_UNDEFINED) {
            a->matched = -1;   /* nothing to receive: MPI_PROC_NULL */
        } else {
            I->rep->unmatched++;
        }
    }
}

/* ---- pass 2: writing the events ---------------------------------------------- */

typedef struct rq {
    uint64_t id;
    int32_t ks, kd, kt;   /* the key SMPI's waits use */
    int recv;
    int32_t src, tag;
    uint64_t bytes;
} rq;

typedef struct emitter {
    imp *I;
    hs_trace_writer *w;
    uint32_t me;
    rq *q;
    size_t nq, capq;
    uint64_t next_req;
    hs_trace_compl *cl;
    size_t capcl;
    hs_trace_peer *pl;
    size_t cappl;
} emitter;

static int put(emitter *E, hs_trace_event *ev, const act *a)
{
    ev->t_start = ev->t_end = a->t;
    if (ev->comm == HS_TRACE_COMM_NONE && hs_trace_kind_class(ev->kind) != HS_TRACE_CLASS_META &&
        hs_trace_kind_class(ev->kind) != HS_TRACE_CLASS_COMPLETION)
        ev->comm = HS_TRACE_COMM_WORLD;
    E->I->rep->events++;
    return hs_trace_writer_event(E->w, ev, E->I->err);
}

static int compl_room(emitter *E, size_t n)
{
    if (n <= E->capcl)
        return 0;
    hs_trace_compl *nc = realloc(E->cl, n * sizeof *nc);
    if (!nc)
        return hs_error_set(E->I->err, HS_ENOMEM, "out of memory");
    E->cl = nc;
    E->capcl = n;
    return 0;
}

static void compl_fill(hs_trace_compl *c, const rq *r)
{
    memset(c, 0, sizeof *c);
    c->req = r->id;
    if (r->recv) {
        c->flags = HS_TRACE_C_STATUS;
        c->src = r->src;
        c->tag = r->tag;
        c->bytes = r->bytes;
    } else {
        c->src = HS_TRACE_RANK_NONE;
        c->tag = HS_TRACE_TAG_NONE;
    }
}

static int rq_add(emitter *E, const rq *r)
{
    if (E->nq == E->capq) {
        size_t nc = E->capq ? 2 * E->capq : 64;
        rq *n = realloc(E->q, nc * sizeof *n);
        if (!n)
            return hs_error_set(E->I->err, HS_ENOMEM, "out of memory");
        E->q = n;
        E->capq = nc;
    }
    E->q[E->nq++] = *r;
    return 0;
}

static long rq_find(const emitter *E, int32_t s, int32_t d, int32_t t)
{
    for (size_t i = 0; i < E->nq; i++)
        if (E->q[i].ks == s && E->q[i].kd == d && E->q[i].kt == t)
            return (long)i;
    return -1;
}

static void rq_del(emitter *E, size_t i)
{
    memmove(&E->q[i], &E->q[i + 1], (E->nq - i - 1) * sizeof *E->q);
    E->nq--;
}

/* Whether the test at index i completes its request(s).  One request
 * (all = 0): yes unless a later wait or test names the same key before the
 * key is posted again (SMPI writes no wait for a request a test completed).
 * Every request (testall/testany): yes unless a later completion call
 * follows before the next request is posted. */
static int test_finds(const imp *I, size_t i, int32_t s, int32_t d, int32_t t, int all)
{
    for (size_t j = i + 1; j < I->ra.n; j++) {
        const act *b = &I->ra.a[j];
        switch (b->op) {
        case A_WAIT: case A_TEST:
            if (all || (b->peer == s && b->peer2 == d && b->tag == t))
                return 0;
            break;
        case A_WAITALL: case A_WAITANY: case A_TESTALL: case A_TESTANY:
            if (all)
                return 0;
            break;
        case A_SEND:
            if (all || (b->peer == d && b->tag == t))
                return 1;
            break;
        case A_IRECV:
            if (all || (b->peer == s && b->tag == t))
                return 1;
            break;
        default:
            break;
        }
    }
    return 1;
}

static int emit_compl(emitter *E, const act *a, int kind, size_t *idx, size_t n, int found)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, kind);
    int rc = compl_room(E, n ? n : 1);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++)
        compl_fill(&E->cl[k], &E->q[idx[k]]);
    ev.ncompl = (uint32_t)n;
    ev.compl = E->cl;
    if (found)
        ev.flags |= HS_TRACE_F_FOUND;
    if ((rc = put(E, &ev, a)))
        return rc;
    /* delete from the back so earlier indices stay valid (idx ascending) */
    for (size_t k = n; k-- > 0;)
        rq_del(E, idx[k]);
    return 0;
}

static int emit_coll(emitter *E, const act *a)
{
    hs_trace_event ev;
    hs_trace_event_init(&ev, a->kind);
    ev.comm = HS_TRACE_COMM_WORLD;
    ev.peer = a->peer;
    ev.bytes = a->bytes;
    ev.bytes2 = a->bytes2;
    if (a->lists) {
        size_t need = (size_t)a->nlist * 2;
        if (need > E->cappl) {
            hs_trace_peer *np = realloc(E->pl, need * sizeof *np);
            if (!np)
                return hs_error_set(E->I->err, HS_ENOMEM, "out of memory");
            E->pl = np;
            E->cappl = need;
        }
        const uint64_t *L = E->I->ra.pool + a->list;
        size_t k = 0;
        if (a->lists & 1) {
            ev.sendto = E->pl;
            ev.nsendto = a->nlist;
            for (uint32_t r = 0; r < a->nlist; r++)
                E->pl[k++] = (hs_trace_peer){ (int32_t)r, *L++ };
        }
        if (a->lists & 2) {
            ev.recvfrom = E->pl + k;
            ev.nrecvfrom = a->nlist;
            for (uint32_t r = 0; r < a->nlist; r++)
                E->pl[k++] = (hs_trace_peer){ (int32_t)r, *L++ };
        }
    }
    return put(E, &ev, a);
}

static int emit_rank(emitter *E)
{
    imp *I = E->I;
    int rc = 0;
    size_t *idx = NULL, capidx = 0;
    E->nq = 0;
    E->next_req = 0;
    for (size_t i = 0; i < I->ra.n && !rc; i++) {
        const act *a = &I->ra.a[i];
        I->lineno = a->line;
        hs_trace_event ev;
        if (capidx < E->nq + 1) {
            size_t nc = 2 * (E->nq + 1);
            size_t *ni = realloc(idx, nc * sizeof *ni);
            if (!ni) {
                rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
                break;
            }
            idx = ni;
            capidx = nc;
        }
        switch (a->op) {
        case A_NOP: case A_COMPUTE: case A_SLEEP:
            break;
        case A_INIT:
        case A_FINALIZE:
            hs_trace_event_init(&ev, a->op == A_INIT ? HS_TRACE_INIT : HS_TRACE_FINALIZE);
            rc = put(E, &ev, a);
            break;
        case A_SEND: {
            hs_trace_event_init(&ev, a->kind);
            ev.peer = a->peer == SMPI_UNDEFINED ? HS_TRACE_PROC_NULL : a->peer;
            ev.tag = a->tag;
            ev.bytes = a->bytes;
            ev.flags = I->o->monitor ? HS_TRACE_F_MONITORED : 0;
            int nb = a->kind >= HS_TRACE_ISEND && a->kind <= HS_TRACE_IRSEND;
            if (nb)
                ev.req = ++E->next_req;
            if ((rc = put(E, &ev, a)))
                break;
            if (nb)
                rc = rq_add(E, &(rq){ ev.req, (int32_t)E->me, a->peer, a->tag, 0, 0, 0, 0 });
            break;
        }
        case A_RECV:
        case A_IRECV: {
            hs_trace_event_init(&ev, a->kind);
            int32_t src = a->matched == -1 ? HS_TRACE_PROC_NULL : a->matched ? a->msrc : a->peer;
            int32_t tag = a->matched == 1 ? a->mtag
                          : a->tag == SMPI_ANY_TAG ? HS_TRACE_ANY_TAG : a->tag;
            uint64_t bytes = a->matched == 1 ? a->mbytes : a->matched == -1 ? 0 : a->bytes;
            ev.peer2 = a->peer == SMPI_UNDEFINED ? (a->matched == -1 ? HS_TRACE_PROC_NULL
                                                                      : HS_TRACE_ANY_SOURCE)
                                                 : a->peer;
            ev.tag2 = a->tag == SMPI_ANY_TAG ? HS_TRACE_ANY_TAG : a->tag;
            if (ev.peer2 == HS_TRACE_ANY_SOURCE)
                ev.flags |= HS_TRACE_F_ANY_SOURCE;
            if (ev.tag2 == HS_TRACE_ANY_TAG)
                ev.flags |= HS_TRACE_F_ANY_TAG;
            ev.bytes2 = a->bytes;
            if (a->op == A_RECV) {
                ev.peer = src;
                ev.tag = a->matched == -1 ? HS_TRACE_ANY_TAG : tag;
                ev.bytes = bytes;
                rc = put(E, &ev, a);
                break;
            }
            ev.req = ++E->next_req;
            if ((rc = put(E, &ev, a)))
                break;
            rc = rq_add(E, &(rq){ ev.req, a->peer, (int32_t)E->me, a->tag, 1, src,
                                  a->matched == -1 ? HS_TRACE_ANY_TAG : tag, bytes });
            break;
        }
        case A_SENDRECV:
            hs_trace_event_init(&ev, HS_TRACE_SENDRECV);
            ev.peer = a->peer == SMPI_UNDEFINED ? HS_TRACE_PROC_NULL : a->peer;
            ev.tag = a->tag;
            ev.bytes = a->bytes;
            ev.flags = I->o->monitor && ev.peer >= 0 ? HS_TRACE_F_MONITORED : 0;
            ev.peer2 = a->matched == 1 ? a->msrc : a->matched == -1 ? HS_TRACE_PROC_NULL
                                                                    : a->peer2;
            ev.tag2 = a->tag;
            ev.bytes2 = a->matched == 1 ? a->mbytes : a->matched == -1 ? 0 : a->bytes2;
            rc = put(E, &ev, a);
            break;
        case A_WAIT: {
            long k = rq_find(E, a->peer, a->peer2, a->tag);
            if (k < 0) {
                I->rep->dropped_waits++;   /* a collective's request, or already completed */
                break;
            }
            idx[0] = (size_t)k;
            rc = emit_compl(E, a, HS_TRACE_WAIT, idx, 1, 0);
            break;
        }
        case A_TEST: {
            long k = rq_find(E, a->peer, a->peer2, a->tag);
            if (k < 0) {
                I->rep->dropped_waits++;
                break;
            }
            idx[0] = (size_t)k;
            int f = test_finds(I, i, a->peer, a->peer2, a->tag, 0);
            rc = emit_compl(E, a, HS_TRACE_TEST, idx, f ? 1 : 0, f);
            break;
        }
        case A_WAITALL:
        case A_TESTALL: {
            int f = a->op == A_WAITALL || test_finds(I, i, 0, 0, 0, 1);
            for (size_t k = 0; k < E->nq; k++)
                idx[k] = k;
            rc = emit_compl(E, a, a->op == A_WAITALL ? HS_TRACE_WAITALL : HS_TRACE_TESTALL, idx,
                            f ? E->nq : 0, a->op == A_TESTALL && f);
            break;
        }
        case A_WAITANY:
        case A_TESTANY: {
            int f = a->op == A_WAITANY || test_finds(I, i, 0, 0, 0, 1);
            idx[0] = 0;
            rc = emit_compl(E, a, a->op == A_WAITANY ? HS_TRACE_WAITANY : HS_TRACE_TESTANY, idx,
                            f && E->nq ? 1 : 0, a->op == A_TESTANY && f && E->nq);
            break;
        }
        case A_COLL:
            rc = emit_coll(E, a);
            break;
        }
    }
    if (!rc)
        I->rep->open_requests += E->nq;
    free(idx);
    return rc;
}

/* ---- finding the rank files ------------------------------------------------- */

static void free_files(imp *I)
{
    if (I->files)
        for (uint32_t r = 0; r < I->nfiles; r++)
            free(I->files[r]);
    free(I->files);
    I->files = NULL;
    free(I->ol);
    free(I->first);
}

/* "..._rank-N.txt" -> N (SMPI's actor id, rank + 1), or 0. */
static uint32_t rank_of_name(const char *n)
{
    const char *p = strstr(n, "rank-");
    if (!p)
        return 0;
    p += 5;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p) && v <= MAX_RANKS)
        v = v * 10 + (uint64_t)(*p++ - '0');
    if (strcmp(p, ".txt") != 0 || v == 0 || v > MAX_RANKS)
        return 0;
    return (uint32_t)v;
}

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* An index of one file: with tracing/smpi/format/ti-one-file SMPI writes
 * every rank's actions into it, each line starting with its rank.  Finds
 * each rank's lines (offset and number) so parse_rank reads them in order;
 * the ranks are 0 .. the highest seen.  A job of one rank reads the same. */
static int split_onefile(imp *I)
{
    I->fname = I->files[0];
    I->lineno = 0;
    FILE *f = fopen(I->fname, "r");
    if (!f)
        return hs_error_set(I->err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s", I->fname,
                            strerror(errno));
    int rc = 0;
    size_t n = 0, cap = 0;
    uint32_t *rk = NULL, maxr = 0;
    uint64_t off = 0;
    for (;;) {
        ssize_t len = getline(&I->line, &I->linecap, f);
        if (len < 0)
            break;
        I->lineno++;
        uint64_t here = off;
        off += (uint64_t)len;
        const char *p = I->line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\r' || (*p == '\0' && (ssize_t)(p - I->line) == len))
            continue;   /* blank line */
        uint64_t r = 0;
        int digits = 0;
        while (isdigit((unsigned char)*p) && r <= MAX_RANKS) {
            r = r * 10 + (uint64_t)(*p++ - '0');
            digits++;
        }
        if (!digits || r >= MAX_RANKS || (*p != ' ' && *p != '\t' && *p != '\n')) {
            rc = ferr(I, HS_EFORMAT, "a line of the one-file trace must start with its rank "
                      "(0..%u)", MAX_RANKS - 1);
            break;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            struct oline *no = realloc(I->ol, nc * sizeof *no);
            uint32_t *nr = no ? realloc(rk, nc * sizeof *nr) : NULL;
            if (no)
                I->ol = no;
            if (!no || !nr) {
                rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
                break;
            }
            rk = nr;
            cap = nc;
        }
        I->ol[n] = (struct oline){ here, I->lineno };
        rk[n++] = (uint32_t)r;
        if (r > maxr)
            maxr = (uint32_t)r;
    }
    fclose(f);
    if (!rc && n == 0) {
        free(rk);
        return 0;   /* an empty file: one rank of no action */
    }
    /* counting sort by rank, stable: each rank's lines in file order */
    struct oline *sorted = NULL;
    if (!rc && (!(I->first = calloc((size_t)maxr + 2, sizeof *I->first)) ||
                !(sorted = malloc(n * sizeof *sorted))))
        rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            I->first[rk[i] + 1]++;
        for (uint32_t r = 0; r <= maxr; r++)
            I->first[r + 1] += I->first[r];
        size_t *at = malloc(((size_t)maxr + 1) * sizeof *at);
        if (!at) {
            rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
        } else {
            memcpy(at, I->first, ((size_t)maxr + 1) * sizeof *at);
            for (size_t i = 0; i < n; i++)
                sorted[at[rk[i]]++] = I->ol[i];
            free(at);
            free(I->ol);
            I->ol = sorted;
            sorted = NULL;
            I->onefile = 1;
            I->nranks = maxr + 1;
        }
    }
    free(sorted);
    free(rk);
    return rc;
}

static int files_from_dir(imp *I, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return hs_error_set(I->err, HS_EIO, "%s: %s", dir, strerror(errno));
    uint32_t max = 0, count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        uint32_t n = rank_of_name(e->d_name);
        if (n) {
            count++;
            if (n > max)
                max = n;
        }
    }
    if (!count) {
        closedir(d);
        return hs_error_set(I->err, HS_ENOENT, "%s: no SMPI rank files (*_rank-N.txt) in it",
                            dir);
    }
    I->files = calloc(max, sizeof *I->files);
    if (!I->files) {
        closedir(d);
        return hs_error_set(I->err, HS_ENOMEM, "out of memory");
    }
    I->nranks = I->nfiles = max;
    rewinddir(d);
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        uint32_t n = rank_of_name(e->d_name);
        if (!n)
            continue;
        if (I->files[n - 1])
            rc = hs_error_set(I->err, HS_EFORMAT, "%s: two files for rank %u (%s and %s)", dir,
                              n - 1, I->files[n - 1], e->d_name);
        else if (!(I->files[n - 1] = path_join(dir, e->d_name)))
            rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
    }
    closedir(d);
    for (uint32_t r = 0; !rc && r < max; r++)
        if (!I->files[r])
            rc = hs_error_set(I->err, HS_ENOENT, "%s: the file of rank %u (*_rank-%u.txt) is "
                              "missing; the highest is rank %u", dir, r, r + 1, max - 1);
    if (!rc && max == 1)
        rc = split_onefile(I);   /* ti-one-file, or a job of one rank */
    return rc;
}

/* The index smpirun writes: one rank file a line, in rank order, as paths
 * relative to where smpirun ran.  Each is looked for as written, beside the
 * index, and in INDEX_files/. */
static int files_from_index(imp *I, const char *index)
{
    FILE *f = fopen(index, "r");
    if (!f)
        return hs_error_set(I->err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s", index,
                            strerror(errno));
    char *dir = strdup(index);
    char *files_dir = malloc(strlen(index) + 8);
    if (!dir || !files_dir) {
        fclose(f);
        free(dir);
        free(files_dir);
        return hs_error_set(I->err, HS_ENOMEM, "out of memory");
    }
    sprintf(files_dir, "%s_files", index);
    char *sl = strrchr(dir, '/');
    if (sl)
        *sl = '\0';
    else
        strcpy(dir, ".");
    int rc = 0;
    uint32_t cap = 0;
    I->fname = index;
    I->lineno = 0;
    for (;;) {
        ssize_t len = getline(&I->line, &I->linecap, f);
        if (len < 0)
            break;
        I->lineno++;
        while (len > 0 && (I->line[len - 1] == '\n' || I->line[len - 1] == '\r' ||
                           I->line[len - 1] == ' '))
            I->line[--len] = '\0';
        if (len == 0)
            continue;
        if (memchr(I->line, '\0', (size_t)len) || !rank_of_name(I->line)) {
            rc = ferr(I, HS_EFORMAT, "not the name of an SMPI rank file (..._rank-N.txt): "
                      "'%.60s'", I->line);
            break;
        }
        if (rank_of_name(I->line) != I->nranks + 1) {
            rc = ferr(I, HS_EFORMAT, "rank file %u of the index is for rank %u",
                      I->nranks, rank_of_name(I->line) - 1);
            break;
        }
        if (I->nranks == cap) {
            uint32_t nc = cap ? 2 * cap : 64;
            char **nf = realloc(I->files, nc * sizeof *nf);
            if (!nf) {
                rc = hs_error_set(I->err, HS_ENOMEM, "out of memory");
                break;
            }
            I->files = nf;
            cap = nc;
        }
        const char *base = strrchr(I->line, '/') ? strrchr(I->line, '/') + 1 : I->line;
        char *cand[3] = { I->line[0] == '/' ? strdup(I->line) : path_join(dir, I->line),
                          path_join(files_dir, base), strdup(I->line) };
        char *pick = NULL;
        struct stat st;
        for (int k = 0; k < 3; k++) {
            if (!pick && cand[k] && stat(cand[k], &st) == 0 && S_ISREG(st.st_mode))
                pick = cand[k];
            else
                free(cand[k]);
        }
        if (!pick) {
            rc = ferr(I, HS_ENOENT, "the file of rank %u, %s, is missing", I->nranks, I->line);
            break;
        }
        I->files[I->nranks++] = pick;
        I->nfiles = I->nranks;
    }
    fclose(f);
    free(dir);
    free(files_dir);
    if (!rc && I->nranks == 0)
        rc = hs_error_set(I->err, HS_EFORMAT, "%s: names no rank file", index);
    if (!rc && I->nranks == 1)
        rc = split_onefile(I);
    return rc;
}

/* ---- manifest and driver ----------------------------------------------------- */

static int write_manifest(imp *I, const char *in, const char *out)
{
    uint32_t R = I->nranks, ppn = I->o->ppn ? I->o->ppn : 1;
    uint32_t N = (uint32_t)(((uint64_t)R + ppn - 1) / ppn);
    hs_trace_manifest m;
    memset(&m, 0, sizeof m);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "hopscope trace import smpi %s --flops %g --ppn %u", in,
             I->o->flops, ppn);
    m.version = HS_TRACE_FORMAT_VERSION;
    m.nranks = R;
    m.nnodes = N;
    m.writer = "hopscope " HS_VERSION " (import smpi)";
    m.mpi_abi = "none";
    m.mpi_library = "SimGrid SMPI (time-independent trace)";
    m.mpi_version = "3.1";
    m.command = cmd;
    m.start_time = "1970-01-01T00:00:00Z";   /* SMPI writes none: same input, same bytes */
    m.clock = "ns";
    m.node_mode = "synthetic";
    m.sample_rate = I->o->monitor ? 1.0 : 0.0;
    m.sample_seed = 1;
    m.node_names = malloc((size_t)N * sizeof *m.node_names);
    m.rank_node = malloc((size_t)R * sizeof *m.rank_node);
    char *names = malloc((size_t)N * 16);
    int rc;
    if (!m.node_names || !m.rank_node || !names) {
        rc = hs_error_set(I->err, HS_ENOMEM, "out of memory writing the manifest");
    } else {
        for (uint32_t n = 0; n < N; n++) {
            m.node_names[n] = names + (size_t)n * 16;
            snprintf(m.node_names[n], 16, "vnode%u", n);
        }
        for (uint32_t r = 0; r < R; r++)
            m.rank_node[r] = r / ppn;
        rc = hs_trace_manifest_write(out, &m, I->err);
    }
    free(names);
    free(m.node_names);
    free(m.rank_node);
    return rc;
}

void hs_smpi_import_opts_default(hs_smpi_import_opts *o)
{
    memset(o, 0, sizeof *o);
    o->flops = HS_SMPI_DEFAULT_FLOPS;
    o->ppn = 1;
    o->monitor = 1;
    o->derived_size = 1;
}

int hs_trace_import_smpi(const char *in, const char *out, const hs_smpi_import_opts *o,
                         hs_smpi_import_report *rep, hs_error *err)
{
    hs_smpi_import_report dummy;
    if (!rep)
        rep = &dummy;
    memset(rep, 0, sizeof *rep);
    if (!(o->flops > 0) || !isfinite(o->flops))
        return hs_error_set(err, HS_EINVAL, "--flops %g: must be a positive rate", o->flops);
    if (o->ppn == 0)
        return hs_error_set(err, HS_EINVAL, "--ppn must be at least 1");
    imp I;
    memset(&I, 0, sizeof I);
    I.o = o;
    I.rep = rep;
    I.err = err;
    struct stat st;
    if (stat(in, &st) != 0)
        return hs_error_set(err, HS_ENOENT, "%s: %s", in, strerror(errno));
    int rc = S_ISDIR(st.st_mode) ? files_from_dir(&I, in) : files_from_index(&I, in);
    if (!rc && I.nranks > MAX_RANKS)
        rc = hs_error_set(err, HS_ERANGE, "%s: %u ranks, at most %u", in, I.nranks, MAX_RANKS);
    if (!rc && !(I.to = calloc(I.nranks, sizeof *I.to)))
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    /* pass 1: parse every rank, keep its messages */
    I.pass = 1;
    for (uint32_t r = 0; !rc && r < I.nranks; r++) {
        if (!(rc = parse_rank(&I, r)) && !(rc = set_times(&I)))
            rc = collect_sends(&I, r);
        rep->actions += I.ra.n;
        /* smpirun killed (or still running): files cut at a line, or empty */
        if (!I.ra.n || I.ra.a[I.ra.n - 1].op != A_FINALIZE)
            rep->unfinished++;
    }
    if (!rc && rep->actions == 0)
        rc = hs_error_set(err, HS_EFORMAT, "%s: the %u rank files hold no action (smpirun "
                          "killed before it wrote its buffers?)", in, I.nranks);
    if (!rc)
        rc = hs_mkdir_p(out, err);
    if (!rc)
        rc = write_manifest(&I, in, out);
    /* pass 2: parse again, match the receives, write */
    emitter E;
    memset(&E, 0, sizeof E);
    E.I = &I;
    I.pass = 2;
    for (uint32_t r = 0; !rc && r < I.nranks; r++) {
        if ((rc = parse_rank(&I, r)) || (rc = set_times(&I)))
            break;
        match_receives(&I, r);
        E.me = r;
        if ((rc = hs_trace_writer_open(&E.w, out, r, I.nranks, err)))
            break;
        rc = emit_rank(&E);
        int rc2 = hs_trace_writer_close(E.w, rc ? NULL : err);
        E.w = NULL;
        if (!rc)
            rc = rc2;
    }
    if (!rc) {
        rep->ranks = I.nranks;
        /* messages nobody received */
        for (uint32_t r = 0; r < I.nranks; r++)
            for (uint32_t k = 0; k < I.to[r].n; k++)
                rep->unreceived += !I.to[r].m[k].used;
    }
    free(E.q);
    free(E.cl);
    free(E.pl);
    if (I.to)
        for (uint32_t r = 0; r < I.nranks; r++)
            free(I.to[r].m);
    free(I.to);
    free(I.ra.a);
    free(I.ra.pool);
    free(I.line);
    free_files(&I);
    return rc;
}
