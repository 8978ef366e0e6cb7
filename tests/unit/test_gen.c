/* hopscope gen's halo variants (replay/gen.c): the 2D halo (--neighbours
 * 4), the halo with corners (--neighbours 26) and pF3D's sub-communicator
 * all-to-all alone (--no-halo), read back from the trace: every peer and tag
 * computed by hand from the grid (rank = x + dx*(y + dy*z), periodic). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/replay.h"
#include "hopscope/trace.h"

typedef struct counts {
    int isend, irecv, alltoall;
    int send_peer[32], send_tag[32], recv_peer[32], recv_tag[32];
    uint64_t send_bytes[32];
} counts;

/* Writes the trace of p to a fresh directory and reads rank r's first
 * iteration's sends and receives (in order) and every all-to-all. */
static void gen_read(const hs_gen_params *p, uint32_t r, counts *c)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/hs-test-gen-XXXXXX");
    assert_non_null(mkdtemp(dir));
    hs_error e;
    assert_int_equal(hs_gen_write(p, dir, &e), 0);
    hs_trace *t;
    hs_trace_cursor *cur;
    assert_int_equal(hs_trace_open(dir, &t, &e), 0);
    assert_int_equal(hs_trace_cursor_open(t, r, &cur, &e), 0);
    memset(c, 0, sizeof *c);
    hs_trace_event ev;
    int rc, waits = 0;
    while ((rc = hs_trace_next(cur, &ev, &e)) == 1) {
        if (ev.kind == HS_TRACE_WAITALL)
            waits++;
        if (ev.kind == HS_TRACE_ALLTOALL)
            c->alltoall++;
        if (ev.kind == HS_TRACE_ISEND) {
            if (!waits && c->isend < 32) {
                c->send_peer[c->isend] = ev.peer;
                c->send_tag[c->isend] = ev.tag;
                c->send_bytes[c->isend] = ev.bytes;
            }
            c->isend++;
        }
        if (ev.kind == HS_TRACE_IRECV) {
            if (!waits && c->irecv < 32) {
                c->recv_peer[c->irecv] = ev.peer2;
                c->recv_tag[c->irecv] = ev.tag2;
            }
            c->irecv++;
        }
    }
    assert_int_equal(rc, 0);
    hs_trace_cursor_close(cur);
    hs_trace_close(t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* 16 ranks, 4 neighbours: the default grid is 4x4x1 (a 3D default would
 * be 4x2x2); rank 5 is (1, 1). */
static void test_halo2d(void **s)
{
    (void)s;
    hs_gen_params p;
    hs_gen_params_default(&p, HS_GEN_HALO3D);
    p.ranks = 16;
    p.iters = 3;
    p.size = 1000;
    p.neighbours = 4;
    counts c;
    gen_read(&p, 5, &c);
    assert_int_equal(c.isend, 3 * 4);
    assert_int_equal(c.irecv, 3 * 4);
    /* directions -x, +x, -y, +y: tags 100..103 */
    const int to[4] = { 4, 6, 1, 9 }, from[4] = { 6, 4, 9, 1 };
    for (int d = 0; d < 4; d++) {
        assert_int_equal(c.send_peer[d], to[d]);
        assert_int_equal(c.send_tag[d], 100 + d);
        assert_int_equal(c.send_bytes[d], 1000);
        assert_int_equal(c.recv_peer[d], from[d]);
        assert_int_equal(c.recv_tag[d], 100 + d);
    }
}

/* 27 ranks on 3x3x3, 26 neighbours: the centre rank 13 talks to every
 * other rank once; offset k = 9(dx+1) + 3(dy+1) + (dz+1) goes to
 * (1+dx) + 3(1+dy) + 9(1+dz) with tag 100 + k - (k > 13), and its receive
 * comes from the opposite offset. */
static void test_halo26(void **s)
{
    (void)s;
    hs_gen_params p;
    hs_gen_params_default(&p, HS_GEN_HALO3D);
    p.ranks = 27;
    p.iters = 2;
    p.neighbours = 26;
    counts c;
    gen_read(&p, 13, &c);
    assert_int_equal(c.isend, 2 * 26);
    assert_int_equal(c.irecv, 2 * 26);
    int seen[27] = { 0 };
    for (int i = 0; i < 26; i++) {
        int k = i < 13 ? i : i + 1;
        int dx = k / 9 - 1, dy = k / 3 % 3 - 1, dz = k % 3 - 1;
        int peer = (1 + dx) + 3 * (1 + dy) + 9 * (1 + dz);
        int opp = (1 - dx) + 3 * (1 - dy) + 9 * (1 - dz);
        assert_int_equal(c.send_peer[i], peer);
        assert_int_equal(c.send_tag[i], 100 + i);
        assert_int_equal(c.recv_peer[i], opp);
        assert_int_equal(c.recv_tag[i], 100 + i);
        seen[peer]++;
    }
    for (int r = 0; r < 27; r++)
        assert_int_equal(seen[r], r == 13 ? 0 : 1);
    /* a corner rank on a 4x3x2 grid: (0,0,0) -> offset (-1,-1,-1) wraps to
     * (3,2,1) = 3 + 4*(2 + 3*1) = 23 */
    p.ranks = 24;
    p.dims[0] = 4;
    p.dims[1] = 3;
    p.dims[2] = 2;
    gen_read(&p, 0, &c);
    assert_int_equal(c.send_peer[0], 23);
    assert_int_equal(c.recv_peer[0], 1 + 4 * (1 + 3 * 1));
}

static void test_pf3d_no_halo(void **s)
{
    (void)s;
    hs_gen_params p;
    hs_gen_params_default(&p, HS_GEN_PF3D);
    p.ranks = 16;
    p.iters = 5;
    counts c;
    gen_read(&p, 3, &c);
    assert_int_equal(c.alltoall, 5);
    assert_int_equal(c.isend, 5 * 6);
    p.no_halo = 1;
    gen_read(&p, 3, &c);
    assert_int_equal(c.alltoall, 5);
    assert_int_equal(c.isend, 0);
    assert_int_equal(c.irecv, 0);

    /* refused: a halo3d without its halo, and other neighbour counts */
    hs_error e;
    hs_gen_params_default(&p, HS_GEN_HALO3D);
    p.no_halo = 1;
    assert_int_equal(hs_gen_write(&p, "/tmp/hs-test-gen-never", &e), HS_EINVAL);
    hs_gen_params_default(&p, HS_GEN_HALO3D);
    p.neighbours = 8;
    assert_int_equal(hs_gen_write(&p, "/tmp/hs-test-gen-never", &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "4, 6 or 26"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halo2d),
        cmocka_unit_test(test_halo26),
        cmocka_unit_test(test_pf3d_no_halo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
