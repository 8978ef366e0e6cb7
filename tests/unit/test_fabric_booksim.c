/* Unit tests for router=booksim (fabric/router_booksim.c), the cycle-level
 * model of BookSim2's input-queued VC router: exact zero-load latencies in
 * cycles of the pipeline, an output VC held by a packet until its tail
 * leaves, round-robin fairness of the allocators, conservation of credits
 * after load, determinism, and the spec options.
 *
 * One cycle = one 64-byte flit on a 25 GB/s link = 2560 ps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hopscope/fabric.h"
#include "../../fabric/engine.h"

#define CYC 2560   /* ps */

static hs_fabric *make(const char *spec, unsigned mtu)
{
    hs_fabric *F = NULL;
    hs_error e;
    hs_error_clear(&e);
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.mtu = mtu;
    p.vc_buffer = 64 * 1024;
    int rc = hs_fabric_create(&F, spec, &p, &e);
    if (rc)
        fail_msg("%s: %s", spec, hs_error_str(&e, rc));
    return F;
}

#define MAXM 512
typedef struct log {
    hs_time t[MAXM];          /* delivery time by cookie */
    uint64_t order[MAXM];     /* cookies in delivery order */
    unsigned n;
} log_t;

static void on_delivered(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    log_t *l = ctx;
    assert_true(cookie < MAXM);
    l->t[cookie] = t;
    l->order[l->n++] = cookie;
}

static void run(hs_fabric *F, log_t *l)
{
    hs_fabric_callbacks cb = { NULL, on_delivered, NULL };
    hs_fabric_set_callbacks(F, &cb, l);
    assert_int_equal(hs_fabric_run(F, HS_TIME_NEVER), 1);
}

/* Cycles for one packet of `flits` flits over H switches on an idle
 * network, BookSim2's pipeline: the flit sent in cycle s over a channel of
 * latency d is read in cycle s + d + 1; at each switch routing (rd), VC
 * allocation (va), switch allocation (sa) and traversal (st) each take
 * their cycles, the first starting in the cycle of arrival; the body flits
 * follow the head one per cycle. */
static hs_time zero_load(unsigned H, unsigned d, unsigned rd, unsigned va, unsigned sa,
                         unsigned st, unsigned flits)
{
    unsigned c = (H + 1) * (d + 1) + H * (rd + va + sa + st - 1) + (flits - 1);
    return (hs_time)c * CYC;
}

/* A 1-D ring of 4 switches, one node each: node 0 -> node 1 crosses two
 * switches, node 0 -> node 2 three. */
static void test_zero_load_exact(void **state)
{
    (void)state;
    static const struct {
        const char *opts;
        unsigned d, rd, va, sa, st;
    } cfg[] = {
        { "", 1, 1, 1, 1, 1 },
        { ",routing_delay=0", 1, 0, 1, 1, 1 },
        { ",routing_delay=2,vc_alloc_delay=2,st_final_delay=3", 1, 2, 2, 1, 3 },
        { ",sw_alloc_delay=2", 1, 1, 1, 2, 1 },
    };
    for (unsigned k = 0; k < sizeof cfg / sizeof *cfg; k++) {
        for (unsigned lat = 1; lat <= 3; lat++) {
            for (unsigned flits = 1; flits <= 4; flits *= 4) {
                /* a switch-allocation or traversal stage longer than a
                 * cycle holds the flits behind it (BookSim2's stage
                 * queues): the formula's one flit per cycle needs 1 */
                if (flits > 1 && (cfg[k].sa > 1 || cfg[k].st > 1))
                    continue;
                for (uint32_t dst = 1; dst <= 2; dst++) {
                    char spec[256];
                    snprintf(spec, sizeof spec, "torus:4,vcs=2,lat=%ups,nlat=%ups,"
                             "router=booksim%s", lat * CYC, lat * CYC, cfg[k].opts);
                    hs_fabric *F = make(spec, 64 * flits);
                    log_t l = { 0 };
                    assert_int_equal(hs_fabric_inject(F, 0, 0, dst, 64 * flits, 0, 1, 0), 0);
                    run(F, &l);
                    assert_int_equal(l.n, 1);
                    hs_time want = zero_load(dst + 1, lat, cfg[k].rd, cfg[k].va, cfg[k].sa,
                                             cfg[k].st, flits);
                    if (l.t[0] != want)
                        fail_msg("%s, %u flits to node %u: %llu ps, expected %llu", spec, flits,
                                 dst, (unsigned long long)l.t[0], (unsigned long long)want);
                    hs_fabric_destroy(F);
                }
            }
        }
    }
    /* the documented figure: 2 switches, 1-cycle channels, BookSim2's
     * default delays: 12 cycles = 30.72 ns */
    assert_int_equal(zero_load(2, 1, 1, 1, 1, 1, 1), 30720);
}

/* Nodes 1 and 2 each send one 4-flit packet to node 0 through a single
 * switch.  With one VC the ejection port's VC is held by the first packet
 * until its tail has crossed the switch: the second packet's head is
 * allocated the VC only then, and the packets leave one after the other.
 * With two VCs both packets hold a VC at once and their flits interleave
 * on the output, one flit per cycle. */
static void test_vc_held_until_tail(void **state)
{
    (void)state;
    for (unsigned vcs = 1; vcs <= 2; vcs++) {
        char spec[256];
        snprintf(spec, sizeof spec, "fattree:k=4,n=1,vcs=%u,lat=2560ps,nlat=2560ps,"
                 "router=booksim", vcs);
        hs_fabric *F = make(spec, 256);
        log_t l = { 0 };
        assert_int_equal(hs_fabric_inject(F, 0, 1, 0, 256, 0, 1, 1), 0);
        assert_int_equal(hs_fabric_inject(F, 0, 2, 0, 256, 0, 1, 2), 0);
        run(F, &l);
        assert_int_equal(l.n, 2);
        /* both heads arrive in cycle 2, are routed in 2 and ask for the VC
         * in 3; node 1's input wins the round-robin tie */
        if (vcs == 1) {
            /* first: flits cross in 4..7, leave in 5..8, read 10;
             * second: VC allocated in 8 after the tail left in 7, flits
             * cross in 9..12, the tail is read in 15 */
            assert_int_equal(l.t[1], 10 * CYC);
            assert_int_equal(l.t[2], 15 * CYC);
        } else {
            /* both hold a VC from cycle 3; the switch alternates the two
             * inputs on the one output from cycle 4: 4 6 8 10 and 5 7 9 11 */
            assert_int_equal(l.t[1], 13 * CYC);
            assert_int_equal(l.t[2], 14 * CYC);
        }
        assert_int_equal(l.order[0], 1);
        hs_fabric_destroy(F);
    }
}

/* Two inputs with 100 one-flit packets each for the same output (2x2 case:
 * two inputs, the two VCs of one output): the separable input-first
 * allocators are round-robin, so neither source gets ahead of the other by
 * more than one turn (one packet with one VC; two, one per VC, with two).
 * With one VC the output VC is allocated again one cycle after the tail
 * left: a packet every 2 cycles; with two VCs one every cycle.  The first
 * arrives after the zero-load 7 cycles. */
static void test_allocator_fairness(void **state)
{
    (void)state;
    for (unsigned vcs = 1; vcs <= 2; vcs++) {
        char spec[256];
        snprintf(spec, sizeof spec, "fattree:k=4,n=1,vcs=%u,lat=2560ps,nlat=2560ps,"
                 "router=booksim", vcs);
        hs_fabric *F = make(spec, 64);
        log_t l = { 0 };
        for (unsigned i = 0; i < 100; i++) {
            assert_int_equal(hs_fabric_inject(F, 0, 1, 0, 64, 0, 1, i), 0);
            assert_int_equal(hs_fabric_inject(F, 0, 2, 0, 64, 0, 1, 100 + i), 0);
        }
        run(F, &l);
        assert_int_equal(l.n, 200);
        int bal = 0;
        for (unsigned i = 0; i < 200; i++) {
            bal += l.order[i] < 100 ? 1 : -1;
            assert_true(bal >= -(int)vcs && bal <= (int)vcs);
        }
        assert_int_equal(bal, 0);
        assert_int_equal(l.t[l.order[0]], 7 * CYC);
        for (unsigned i = 1; i < 200; i++)
            assert_int_equal(l.t[l.order[i]] - l.t[l.order[i - 1]], (hs_time)(vcs == 1 ? 2 : 1) * CYC);
        hs_fabric_destroy(F);
    }
}

/* One flow through a one-VC input: one packet every 3 cycles (routing,
 * VC allocation and switch allocation of the next head wait for the
 * previous tail); routing_delay=0 makes it every 2. */
static void test_input_vc_turnaround(void **state)
{
    (void)state;
    for (unsigned rd = 0; rd <= 1; rd++) {
        char spec[256];
        snprintf(spec, sizeof spec, "fattree:k=4,n=1,lat=2560ps,nlat=2560ps,"
                 "router=booksim,routing_delay=%u", rd);
        hs_fabric *F = make(spec, 64);
        log_t l = { 0 };
        for (unsigned i = 0; i < 50; i++)
            assert_int_equal(hs_fabric_inject(F, 0, 1, 0, 64, 0, 1, i), 0);
        run(F, &l);
        assert_int_equal(l.n, 50);
        for (unsigned i = 1; i < 50; i++)
            assert_int_equal(l.t[i] - l.t[i - 1], (hs_time)(rd ? 3 : 2) * CYC);
        hs_fabric_destroy(F);
    }
}

/* Uniform load past saturation on every family: everything is delivered,
 * every credit is back (the transmitters' view of every VC buffer is empty
 * and no output VC is held), and two runs give the same times. */
static void test_conservation_determinism(void **state)
{
    (void)state;
    static const char *specs[] = {
        "torus:4x4,vcs=2,router=booksim",
        "mesh:3x3,p=2,router=booksim,vc_buf_size=4",
        "fattree:k=4,n=2,vcs=2,router=booksim,routing_delay=0,credit_delay=2,"
        "hold_switch_for_packet=1",
        "fattree:k=4,n=2,routing=adaptive,router=booksim",
        "dragonfly:a=4,p=2,h=2,g=9,router=booksim,internal_speedup=2.0",
    };
    for (unsigned k = 0; k < sizeof specs / sizeof *specs; k++) {
        hs_time last[2] = { 0, 0 };
        for (int rep = 0; rep < 2; rep++) {
            hs_fabric *F = make(specs[k], 256);
            uint32_t N = F->N;
            uint64_t x = 12345;
            log_t l = { 0 };
            for (unsigned i = 0; i < MAXM; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t s = (uint32_t)(x >> 33) % N;
                uint32_t d = (uint32_t)(x >> 13) % (N - 1);
                if (d >= s)
                    d++;
                assert_int_equal(hs_fabric_inject(F, (hs_time)(i / N) * 1000, s, d,
                                                  64 + (i % 4) * 64, 0, 1, i), 0);
            }
            run(F, &l);
            assert_int_equal(l.n, MAXM);
            assert_non_null(F->bs);
            assert_int_equal(hs__bs_idle(F), 0);
            hs_fabric_stats st;
            hs_fabric_get_stats(F, &st);
            assert_int_equal(st.packets_delivered, st.packets_injected);
            assert_true(st.hops > st.packets_delivered);
            last[rep] = l.t[l.order[MAXM - 1]];
            hs_fabric_destroy(F);
        }
        assert_int_equal(last[0], last[1]);
    }
}

/* The spec: router=booksim's parameters appear in the canonical spec, are
 * refused without it, and bad values are refused. */
static void test_spec(void **state)
{
    (void)state;
    hs_topo *t;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_topo_create("torus:4x4,router=booksim,vc_buf_size=4", &t, &e), 0);
    assert_non_null(strstr(hs_topo_spec(t), ",router=booksim,flit=64,vc_buf_size=4,"
                                            "routing_delay=1,vc_alloc_delay=1"));
    /* the canonical spec reads back to itself */
    char *canon = strdup(hs_topo_spec(t));
    hs_topo_free(t);
    assert_int_equal(hs_topo_create(canon, &t, &e), 0);
    assert_string_equal(hs_topo_spec(t), canon);
    hs_topo_free(t);
    free(canon);
    /* the default router adds nothing */
    assert_int_equal(hs_topo_create("torus:4x4", &t, &e), 0);
    assert_null(strstr(hs_topo_spec(t), "router"));
    hs_topo_free(t);
    static const char *bad[] = {
        "torus:4x4,vc_buf_size=4",
        "torus:4x4,router=iq",
        "torus:4x4,router=booksim,vc_buf_size=0",
        "torus:4x4,router=booksim,vc_alloc_delay=0",
        "torus:4x4,router=booksim,internal_speedup=0.5",
        "torus:4x4,router=booksim,internal_speedup=x",
        "dragonfly:routing=ugal,router=booksim",
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        hs_error_clear(&e);
        int rc = hs_topo_create(bad[i], &t, &e);
        if (rc == 0)
            fail_msg("accepted %s", bad[i]);
        assert_int_equal(rc, HS_EINVAL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_load_exact),
        cmocka_unit_test(test_vc_held_until_tail),
        cmocka_unit_test(test_allocator_fairness),
        cmocka_unit_test(test_input_vc_turnaround),
        cmocka_unit_test(test_conservation_determinism),
        cmocka_unit_test(test_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
