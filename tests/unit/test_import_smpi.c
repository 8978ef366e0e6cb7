/* Unit tests for the SMPI time-independent trace import
 * (libtrace/import_smpi.c): a small job of known communication read from
 * the index and from the directory, the receive and request matching the
 * format leaves implicit, and damaged inputs (truncated, garbage, unknown
 * actions, missing rank files, huge numbers), each an error naming the file
 * and the line, never a crash (this suite also runs under ASan+UBSan). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "hopscope/trace.h"
#include "test_trace_util.h"

static void put_file(const char *dir, const char *name, const char *text, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Writes DIR/t.txt (index) and DIR/t.txt_files/1_rank-R.txt for each text. */
static void put_job(const char *dir, int n, const char *const *ranks)
{
    char sub[512], idx[4096] = "", name[64];
    snprintf(sub, sizeof sub, "%s/t.txt_files", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    for (int r = 0; r < n; r++) {
        if (!ranks[r])
            continue;   /* a missing rank file */
        snprintf(name, sizeof name, "1_rank-%d.txt", r + 1);
        put_file(sub, name, ranks[r], strlen(ranks[r]));
        size_t l = strlen(idx);
        snprintf(idx + l, sizeof idx - l, "t.txt_files/%s\n", name);
    }
    put_file(dir, "t.txt", idx, strlen(idx));
}

static const char *const good[2] = {
    "0 init\n"
    "0 compute 20000\n"                 /* 1 s at the default 20000 flop/s */
    "0 isend 1 5 100 0\n"               /* 800 B */
    "0 irecv 1 5 100 0\n"
    "0 waitall 2\n"
    "0 send 1 3 10 1\n"                 /* 40 B */
    "0 isend 1 4 7 2\n"                 /* 7 B, to an ANY_SOURCE irecv */
    "0 wait 0 1 4\n"
    "0 bcast 50 1 0\n"
    "0 allreduce 30 0 0\n"
    "0 alltoallv 4 1 3 10 1 2 0 0\n"
    "0 gatherv 1 0 0 1 0 0\n"
    "0 sendRecv 4 1 4 1 0 0\n"
    "0 finalize\n",
    "1 init\n"
    "1 irecv 0 5 100 0\n"
    "1 isend 0 5 100 0\n"
    "1 waitall 2\n"
    "1 recv 0 3 10 1\n"
    "1 irecv -333 4 7 2\n"
    "1 test -333 1 4\n"                 /* completes it: no later wait names it */
    "1 bcast 50 1 0\n"
    "1 allreduce 30 0 0\n"
    "\n"
    "1 alltoallv 3 1 2 3 3 0 0 0\n"
    "1 gatherv 2 1 2 1 0 0\n"
    "1 sendRecv 4 0 4 0 0 0\n"
    "1 finalize\n",
};

static hs_trace_stats *import_and_stats(const char *in, const char *out,
                                        hs_smpi_import_report *rep)
{
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    hs_error err;
    hs_error_clear(&err);
    int rc = hs_trace_import_smpi(in, out, &o, rep, &err);
    if (rc)
        fail_msg("import: %s", err.msg);
    hs_trace *t;
    assert_int_equal(hs_trace_open(out, &t, &err), 0);
    hs_trace_stats *s;
    assert_int_equal(hs_trace_stats_compute(t, &s, &err), 0);
    uint64_t problems = 99;
    assert_int_equal(hs_trace_check(t, NULL, 0, &problems, &err), 0);
    assert_int_equal(problems, 0);
    hs_trace_close(t);
    return s;
}

static const hs_trace_kindstat *kind(const hs_trace_stats *s, int k)
{
    for (size_t i = 0; i < s->nkinds; i++)
        if (s->kinds[i].kind == k)
            return &s->kinds[i];
    fail_msg("no %s", hs_trace_kind_name(k));
    return NULL;
}

static void test_good_job(void **state)
{
    (void)state;
    char *d = test_tmpdir("smpi"), in[512], out[512];
    put_job(d, 2, good);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    hs_smpi_import_report rep;
    hs_trace_stats *s = import_and_stats(in, out, &rep);
    assert_int_equal(rep.ranks, 2);
    assert_int_equal(rep.actions, 27);
    assert_int_equal(rep.wildcards, 1);
    assert_int_equal(rep.unmatched, 0);
    assert_int_equal(rep.unreceived, 0);
    assert_int_equal(rep.open_requests, 0);
    assert_int_equal(rep.unfinished, 0);
    /* 0 -> 1: 800 + 40 + 7 + 32; 1 -> 0: 800 + 32 */
    assert_int_equal(s->total.sent_messages, 6);
    assert_int_equal(s->total.sent_bytes, 800 + 40 + 7 + 32 + 800 + 32);
    assert_int_equal(s->total.recv_messages, 6);
    assert_int_equal(s->total.recv_bytes, s->total.sent_bytes);
    assert_int_equal(s->rank[1].recv_bytes, 800 + 40 + 7 + 32);
    /* bcast root 1: 400 B sent by it, received by 0 */
    assert_int_equal(kind(s, HS_TRACE_BCAST)->bytes_sent, 400);
    assert_int_equal(kind(s, HS_TRACE_BCAST)->bytes_recv, 400);
    assert_int_equal(kind(s, HS_TRACE_ALLREDUCE)->bytes_sent, 480);
    /* alltoallv: rank 0 sends 1+3 doubles, rank 1 3+0... as listed */
    assert_int_equal(kind(s, HS_TRACE_ALLTOALLV)->bytes_sent, (4 + 3) * 8);
    assert_int_equal(kind(s, HS_TRACE_ALLTOALLV)->bytes_recv, (3 + 3) * 8);
    /* gatherv root 1 receives 1 + 2 doubles */
    assert_int_equal(kind(s, HS_TRACE_GATHERV)->bytes_sent, 3 * 8);
    assert_int_equal(kind(s, HS_TRACE_GATHERV)->bytes_recv, 3 * 8);
    /* the computation: 1 s at 20000 flop/s, before anything else of rank 0 */
    assert_int_equal(s->rank[0].t_last, 1000000000);
    hs_trace_stats_free(s);

    /* the directory of rank files gives the same trace */
    char in2[600], out2[600];
    snprintf(in2, sizeof in2, "%s/t.txt_files", d);
    snprintf(out2, sizeof out2, "%s/out2", d);
    s = import_and_stats(in2, out2, &rep);
    assert_int_equal(s->total.sent_bytes, 800 + 40 + 7 + 32 + 800 + 32);
    hs_trace_stats_free(s);
    rm_rf(d);
    free(d);
}

typedef struct bad {
    const char *what;
    const char *rank1;      /* rank 1's file (rank 0's is good[0]); NULL: missing */
    size_t len;             /* 0: strlen */
    int status;
    const char *msg;        /* expected in the error */
} bad;

static const bad bads[] = {
    { "truncated", "1 init\n1 irecv 0 5 1", 0, HS_ETRUNC, "1_rank-2.txt:2: the last line is cut short" },
    { "garbage", "1 init\n%%$#@!\n", 0, HS_EFORMAT, "1_rank-2.txt:2: rank '%%$#@!'" },
    { "unknown action", "1 init\n1 frobnicate 1 2\n", 0, HS_EFORMAT, "1_rank-2.txt:2: unknown action 'frobnicate'" },
    { "huge count", "1 init\n1 recv 0 3 1e300 1\n", 0, HS_ERANGE, "1_rank-2.txt:2: count 1.0000000000000001e+300" },
    { "negative count", "1 init\n1 send 0 3 -5 1\n", 0, HS_ERANGE, "1_rank-2.txt:2: count -5" },
    { "nan", "1 compute nan\n", 0, HS_EFORMAT, "1_rank-2.txt:1: flops 'nan' is not a number" },
    { "huge compute", "1 init\n1 compute 1e300\n", 0, HS_ERANGE, "1_rank-2.txt:2: the computation adds up" },
    { "peer out of range", "1 send 7 3 1 1\n", 0, HS_ERANGE, "1_rank-2.txt:1: destination 7: the job has ranks 0..1" },
    { "rank mismatch", "0 init\n", 0, HS_EFORMAT, "1_rank-2.txt:1: the line is for rank 0, the file for rank 1" },
    { "too few arguments", "1 send 0 3\n", 0, HS_EFORMAT, "1_rank-2.txt:1: send takes 3 to 4 arguments, not 2" },
    { "bad datatype", "1 send 0 3 1 99\n", 0, HS_ERANGE, "1_rank-2.txt:1: datatype 99" },
    { "v-collective on a sub-communicator", "1 allgatherv 1 1 1 1 0 0 0\n", 0, HS_EFORMAT,
      "1_rank-2.txt:1: allgatherv with 7 arguments: expected 3 to 5 for 2 ranks" },
    { "NUL byte", "1 init\n1 fin\0alize\n", 19, HS_EFORMAT, "1_rank-2.txt:2: NUL byte" },
    { "64-bit rank", "99999999999 init\n", 0, HS_EFORMAT, "1_rank-2.txt:1: rank '99999999999'" },
    { "missing rank file", NULL, 0, HS_EFORMAT, "rank file 1 of the index is for rank 2" },
};

static void test_damaged(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        const bad *b = &bads[i];
        char *d = test_tmpdir("smpi"), in[512], out[512];
        const char *job[3] = { good[0], b->rank1, "2 init\n" };
        if (b->rank1 && b->len) {
            /* with a NUL: write it by hand */
            put_job(d, 1, job);
            char sub[600];
            snprintf(sub, sizeof sub, "%s/t.txt_files", d);
            put_file(sub, "1_rank-2.txt", b->rank1, b->len);
            put_file(d, "t.txt", "t.txt_files/1_rank-1.txt\nt.txt_files/1_rank-2.txt\n", 50);
        } else {
            put_job(d, b->rank1 ? 2 : 3, job);
        }
        snprintf(in, sizeof in, "%s/t.txt", d);
        snprintf(out, sizeof out, "%s/out", d);
        hs_smpi_import_opts o;
        hs_smpi_import_opts_default(&o);
        hs_error err;
        hs_error_clear(&err);
        int rc = hs_trace_import_smpi(in, out, &o, NULL, &err);
        if (rc != b->status || !strstr(err.msg, b->msg))
            fail_msg("%s: status %d (want %d), message '%s' (want '%s')", b->what, rc, b->status,
                     err.msg, b->msg);
        rm_rf(d);
        free(d);
    }
}

static void test_missing_in_directory(void **state)
{
    (void)state;
    char *d = test_tmpdir("smpi"), in[512], out[512];
    const char *job[3] = { good[0], NULL, "2 init\n" };
    put_job(d, 3, job);
    snprintf(in, sizeof in, "%s/t.txt_files", d);
    snprintf(out, sizeof out, "%s/out", d);
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    hs_error err;
    hs_error_clear(&err);
    assert_int_equal(hs_trace_import_smpi(in, out, &o, NULL, &err), HS_ENOENT);
    assert_non_null(strstr(err.msg, "the file of rank 1 (*_rank-2.txt) is missing"));
    rm_rf(d);
    free(d);
}

static void test_skip_unknown(void **state)
{
    (void)state;
    char *d = test_tmpdir("smpi"), in[512], out[512];
    const char *job[2] = { "0 init\n0 frob\n0 send 1 0 1 6\n0 finalize\n",
                           "1 init\n1 recv 0 0 1 6\n1 finalize\n" };
    put_job(d, 2, job);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    hs_error err;
    hs_error_clear(&err);
    assert_int_equal(hs_trace_import_smpi(in, out, &o, NULL, &err), HS_EFORMAT);
    o.skip_unknown = 1;
    hs_smpi_import_report rep;
    assert_int_equal(hs_trace_import_smpi(in, out, &o, &rep, &err), 0);
    assert_int_equal(rep.unknown, 1);
    assert_int_equal(rep.events, 6);
    assert_int_equal(rep.unfinished, 0);
    rm_rf(d);
    free(d);
}

/* A killed smpirun: files cut at a line end, or empty. */
static void test_unfinished(void **state)
{
    (void)state;
    char *d = test_tmpdir("smpi"), in[512], out[512];
    const char *job[2] = { "0 init\n0 send 1 0 1 6\n", "1 init\n1 recv 0 0 1 6\n1 finalize\n" };
    put_job(d, 2, job);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    hs_smpi_import_report rep;
    hs_error err;
    hs_error_clear(&err);
    assert_int_equal(hs_trace_import_smpi(in, out, &o, &rep, &err), 0);
    assert_int_equal(rep.unfinished, 1);
    rm_rf(d);
    free(d);
    d = test_tmpdir("smpi");
    const char *empty[2] = { "", "" };
    put_job(d, 2, empty);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    assert_int_equal(hs_trace_import_smpi(in, out, &o, &rep, &err), HS_EFORMAT);
    assert_non_null(strstr(err.msg, "the 2 rank files hold no action"));
    rm_rf(d);
    free(d);
}

/* tracing/smpi/format/ti-one-file: every rank's lines in one file. */
static void test_one_file(void **state)
{
    (void)state;
    char *d = test_tmpdir("smpi"), in[512], out[512];
    const char *job[1] = { "0 init\n1 init\n0 compute 20000\n1 recv 0 3 10 1\n"
                           "0 send 1 3 10 1\n\n0 finalize\n1 finalize\n" };
    put_job(d, 1, job);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    hs_smpi_import_report rep;
    hs_trace_stats *s = import_and_stats(in, out, &rep);
    assert_int_equal(rep.ranks, 2);
    assert_int_equal(rep.actions, 7);
    assert_int_equal(s->total.sent_messages, 1);
    assert_int_equal(s->total.recv_bytes, 40);
    assert_int_equal(s->rank[0].t_last, 1000000000);   /* rank 0 computed, not 1 */
    assert_int_equal(s->rank[1].t_last, 0);
    hs_trace_stats_free(s);
    rm_rf(d);
    free(d);
    /* errors name the line of the one file */
    d = test_tmpdir("smpi");
    const char *bad1[1] = { "0 init\n1 init\n1 recv 0 3 x 1\n0 finalize\n" };
    put_job(d, 1, bad1);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    hs_error err;
    hs_error_clear(&err);
    assert_int_equal(hs_trace_import_smpi(in, out, &o, NULL, &err), HS_EFORMAT);
    assert_non_null(strstr(err.msg, "1_rank-1.txt:3: count 'x' is not a number"));
    rm_rf(d);
    free(d);
    d = test_tmpdir("smpi");
    const char *bad2[1] = { "0 init\nfoo init\n" };
    put_job(d, 1, bad2);
    snprintf(in, sizeof in, "%s/t.txt", d);
    snprintf(out, sizeof out, "%s/out", d);
    assert_int_equal(hs_trace_import_smpi(in, out, &o, NULL, &err), HS_EFORMAT);
    assert_non_null(strstr(err.msg, "1_rank-1.txt:2: a line of the one-file trace must start"));
    rm_rf(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_job),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_missing_in_directory),
        cmocka_unit_test(test_skip_unknown),
        cmocka_unit_test(test_unfinished),
        cmocka_unit_test(test_one_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
