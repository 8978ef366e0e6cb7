/* Unit tests for fabric/pdes.c: the partition of a network over the
 * processes of a parallel run (per family), its cut and its lookahead, on
 * networks small enough to count by hand; and the event order that does
 * not depend on the partition (engine.h): the same run, whatever order the
 * devices are numbered in, is not tested here but by
 * tests/integration/pdes.sh once the parallel engine exists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include "hopscope/fabric.h"
#include "../../fabric/pdes.h"

#define RD 100000  /* routing delay, ps */

static hs_topo *make(const char *spec)
{
    hs_topo *t = NULL;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_topo_create(spec, &t, &e);
    if (rc)
        fail_msg("%s: %s", spec, hs_error_str(&e, rc));
    return t;
}

static void check_parts(const hs__part *p, const uint32_t *want, uint32_t S)
{
    for (uint32_t s = 0; s < S; s++)
        if (p->sw_part[s] != want[s])
            fail_msg("switch %u: part %u, want %u", s, p->sw_part[s], want[s]);
}

/* k=4, n=2: leaves 0..3, spines 4..7, every leaf cabled to every spine. */
static void test_fattree(void **state)
{
    (void)state;
    hs_topo *t = make("fattree:k=4,n=2");
    hs__part p;
    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    const uint32_t want[8] = { 0, 0, 1, 1, 0, 0, 1, 1 };
    check_parts(&p, want, 8);
    /* leaves {0,1} x spines {6,7} and leaves {2,3} x spines {4,5}: 8
     * cables, 16 directed links */
    assert_int_equal(p.cut, 16);
    assert_int_equal(p.nodes[0], 8);
    assert_int_equal(p.nodes[1], 8);
    assert_int_equal(p.switches[0], 4);
    assert_int_equal(p.lookahead, 100000);
    assert_int_equal(p.lookahead_pkt, 100000 + RD);
    hs__partition_free(&p);

    /* one part: nothing cut, no bound */
    assert_int_equal(hs__partition(t, 1, RD, &p), 0);
    assert_int_equal(p.cut, 0);
    assert_true(p.lookahead == HS_TIME_NEVER);
    assert_int_equal(p.nodes[0], 16);
    hs__partition_free(&p);

    /* more parts than switches, or none */
    assert_int_equal(hs__partition(t, 9, RD, &p), HS_EINVAL);
    assert_int_equal(hs__partition(t, 0, RD, &p), HS_EINVAL);
    hs_topo_free(t);
}

/* g=3 groups of a=2 routers: whole groups per part; only the global
 * cables (glat 200 ns, one between each pair of groups) are cut. */
static void test_dragonfly(void **state)
{
    (void)state;
    hs_topo *t = make("dragonfly:a=2,p=2,h=1,g=3");
    hs__part p;
    assert_int_equal(hs__partition(t, 3, RD, &p), 0);
    const uint32_t w3[6] = { 0, 0, 1, 1, 2, 2 };
    check_parts(&p, w3, 6);
    assert_int_equal(p.cut, 6);
    assert_int_equal(p.lookahead, 200000);      /* glat, not the local 100 ns */
    assert_int_equal(p.lookahead_pkt, 200000 + RD);
    assert_int_equal(p.nodes[2], 4);
    hs__partition_free(&p);

    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    const uint32_t w2[6] = { 0, 0, 0, 0, 1, 1 };  /* groups 0,1 | 2 */
    check_parts(&p, w2, 6);
    assert_int_equal(p.cut, 4);
    assert_int_equal(p.nodes[0], 8);
    hs__partition_free(&p);

    /* more parts than groups: contiguous routers, local links cut too */
    assert_int_equal(hs__partition(t, 4, RD, &p), 0);
    const uint32_t w4[6] = { 0, 0, 1, 2, 2, 3 };
    check_parts(&p, w4, 6);
    assert_int_equal(p.lookahead, 100000);
    hs__partition_free(&p);
    hs_topo_free(t);
}

/* 4x4 torus, dimension 0 fastest: two parts are the slabs y = 0..1 and
 * y = 2..3, cut between y = 1 and 2 and across the wrap-around. */
static void test_torus(void **state)
{
    (void)state;
    hs_topo *t = make("torus:4x4");
    hs__part p;
    assert_int_equal(hs__partition(t, 2, RD, &p), 0);
    for (uint32_t s = 0; s < 16; s++)
        assert_int_equal(p.sw_part[s], s < 8 ? 0 : 1);
    assert_int_equal(p.cut, 16);
    hs__partition_free(&p);
    assert_int_equal(hs__partition(t, 3, RD, &p), 0);
    assert_int_equal(p.nodes[0], 6);
    assert_int_equal(p.nodes[1], 5);
    assert_int_equal(p.nodes[2], 5);
    hs__partition_free(&p);
    /* a mesh has no wrap-around: half the cut */
    hs_topo *m = make("mesh:4x4");
    assert_int_equal(hs__partition(m, 2, RD, &p), 0);
    assert_int_equal(p.cut, 8);
    hs__partition_free(&p);
    hs_topo_free(m);
    hs_topo_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_dragonfly),
        cmocka_unit_test(test_torus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
