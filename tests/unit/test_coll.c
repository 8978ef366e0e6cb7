/* Collective schedules: for every algorithm and many communicator sizes and
 * roots, (1) each rank's sends to a peer match, in order and size, that
 * peer's receives; (2) the schedules complete under rendezvous semantics
 * (a transfer completes only when both sides have reached it), i.e. no
 * deadlock; (3) the bytes moved equal the algorithm's known totals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include "../../replay/coll.h"
#include "hopscope/common.h"

enum { MAXN = 64, MAXSTEPS = 4096, MAXX = 8192 };

typedef struct sched {
    uint32_t nsteps;
    uint32_t first[MAXSTEPS + 1]; /* step s: xfers first[s]..first[s+1] */
    hs__coll_xfer x[MAXX];
    uint64_t reduce;
} sched;

static sched S[MAXN];

static void build(const hs__coll_req *q)
{
    for (int32_t r = 0; r < q->n; r++) {
        hs__coll_iter it;
        assert_int_equal(hs__coll_begin(&it, q, r, NULL), 0);
        sched *s = &S[r];
        s->nsteps = 0;
        s->reduce = 0;
        uint32_t nx = 0;
        hs__coll_step st;
        while (hs__coll_next(&it, &st)) {
            assert_true(s->nsteps < MAXSTEPS);
            s->first[s->nsteps++] = nx;
            for (uint32_t i = 0; i < st.nx; i++) {
                assert_true(nx < MAXX);
                assert_true(st.x[i].peer >= 0 && st.x[i].peer < q->n);
                assert_int_not_equal(st.x[i].peer, r);
                s->x[nx++] = st.x[i];
            }
            s->reduce += st.reduce_bytes;
        }
        s->first[s->nsteps] = nx;
        hs__coll_end(&it);
    }
}

/* Per ordered pair, the sequences of sends and receives are equal. */
static void check_matching(int32_t n)
{
    for (int32_t a = 0; a < n; a++)
        for (int32_t b = 0; b < n; b++) {
            if (a == b)
                continue;
            uint32_t i = 0, j = 0;
            const sched *sa = &S[a], *sb = &S[b];
            for (;;) {
                while (i < sa->first[sa->nsteps] && !(sa->x[i].peer == b && !sa->x[i].recv))
                    i++;
                while (j < sb->first[sb->nsteps] && !(sb->x[j].peer == a && sb->x[j].recv))
                    j++;
                int ei = i >= sa->first[sa->nsteps], ej = j >= sb->first[sb->nsteps];
                if (ei || ej) {
                    if (ei != ej)
                        fail_msg("unmatched transfer %d -> %d", a, b);
                    break;
                }
                if (sa->x[i].bytes != sb->x[j].bytes)
                    fail_msg("%d -> %d: send %llu bytes, receive %llu", a, b,
                             (unsigned long long)sa->x[i].bytes, (unsigned long long)sb->x[j].bytes);
                i++;
                j++;
            }
        }
}

/* Rendezvous execution: the k-th send a->b completes together with the k-th
 * receive at b from a, when both ranks are at the steps holding them. */
static void check_progress(int32_t n)
{
    static uint32_t cur[MAXN];
    static uint8_t done[MAXN][MAXX];
    static uint32_t sent[MAXN][MAXN], got[MAXN][MAXN];
    memset(cur, 0, sizeof cur);
    memset(done, 0, sizeof done);
    memset(sent, 0, sizeof sent);
    memset(got, 0, sizeof got);
    for (int progress = 1; progress;) {
        progress = 0;
        for (int32_t a = 0; a < n; a++) {
            sched *sa = &S[a];
            if (cur[a] >= sa->nsteps)
                continue;
            /* Sends of a's current step: find b's matching receive. */
            for (uint32_t i = sa->first[cur[a]]; i < sa->first[cur[a] + 1]; i++) {
                if (done[a][i] || sa->x[i].recv)
                    continue;
                int32_t b = sa->x[i].peer;
                /* pair index of this send */
                uint32_t k = 0;
                for (uint32_t m = 0; m < i; m++)
                    k += sa->x[m].peer == b && !sa->x[m].recv;
                if (k != sent[a][b] || cur[b] >= S[b].nsteps)
                    continue;
                uint32_t kk = 0;
                for (uint32_t m = 0; m < S[b].first[cur[b] + 1]; m++) {
                    if (S[b].x[m].peer != a || !S[b].x[m].recv)
                        continue;
                    if (kk++ == k) {
                        if (m >= S[b].first[cur[b]] && !done[b][m]) {
                            done[a][i] = done[b][m] = 1;
                            sent[a][b]++;
                            got[b][a]++;
                            progress = 1;
                        }
                        break;
                    }
                }
            }
        }
        for (int32_t a = 0; a < n; a++) {
            sched *sa = &S[a];
            while (cur[a] < sa->nsteps) {
                int all = 1;
                for (uint32_t i = sa->first[cur[a]]; i < sa->first[cur[a] + 1]; i++)
                    all &= done[a][i];
                if (!all)
                    break;
                cur[a]++;
                progress = 1;
            }
        }
    }
    for (int32_t a = 0; a < n; a++)
        if (cur[a] != S[a].nsteps)
            fail_msg("deadlock: rank %d stuck at step %u of %u", a, cur[a], S[a].nsteps);
}

static uint64_t sent_by(int32_t r)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < S[r].first[S[r].nsteps]; i++)
        s += S[r].x[i].recv ? 0 : S[r].x[i].bytes;
    return s;
}
static uint64_t recv_by(int32_t r)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < S[r].first[S[r].nsteps]; i++)
        s += S[r].x[i].recv ? S[r].x[i].bytes : 0;
    return s;
}
static uint64_t total_sent(int32_t n)
{
    uint64_t s = 0;
    for (int32_t r = 0; r < n; r++)
        s += sent_by(r);
    return s;
}

static int32_t floor_pof2(int32_t n)
{
    int32_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}
static int ceil_log2(int32_t n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

static const int32_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 64};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static hs__coll_req req(hs__coll_kind k, hs__coll_alg a, int32_t n, int32_t root, uint64_t bytes)
{
    hs__coll_req q;
    memset(&q, 0, sizeof q);
    q.kind = k;
    q.alg = a;
    q.n = n;
    q.root = root;
    q.bytes = bytes;
    q.elem = 8;
    return q;
}

static void run(const hs__coll_req *q)
{
    build(q);
    check_matching(q->n);
    check_progress(q->n);
}

static void test_barrier(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSIZES; i++) {
        int32_t n = sizes[i];
        hs__coll_req q = req(HS__COLL_BARRIER, HS__ALG_AUTO, n, 0, 0);
        run(&q);
        for (int32_t r = 0; r < n; r++)
            assert_int_equal(S[r].nsteps, ceil_log2(n));
    }
}

static void test_bcast(void **state)
{
    (void)state;
    uint64_t bytes[] = {8, 1000, 100000, 100003};
    for (size_t i = 0; i < NSIZES; i++)
        for (size_t b = 0; b < 4; b++) {
            int32_t n = sizes[i];
            int32_t roots[] = {0, n - 1, n / 2};
            for (int ri = 0; ri < 3; ri++) {
                hs__coll_req q = req(HS__COLL_BCAST, HS__ALG_BINOMIAL, n, roots[ri], bytes[b]);
                run(&q);
                assert_int_equal(total_sent(n), (uint64_t)(n - 1) * bytes[b]);
                for (int32_t r = 0; r < n; r++)
                    assert_int_equal(recv_by(r), r == roots[ri] ? 0 : bytes[b]);
                q.alg = HS__ALG_SCATTER_ALLGATHER;
                run(&q);
                /* The ring part brings every block but the rank's own. */
                uint64_t chunk = (bytes[b] + (uint64_t)n - 1) / (uint64_t)n;
                for (int32_t r = 0; r < n && n > 1; r++) {
                    int64_t rel = ((r - roots[ri]) % n + n) % n;
                    int64_t own = (int64_t)bytes[b] - rel * (int64_t)chunk;
                    own = own < 0 ? 0 : own > (int64_t)chunk ? (int64_t)chunk : own;
                    uint64_t ring = 0;
                    for (uint32_t s = S[r].nsteps - (uint32_t)(n - 1); s < S[r].nsteps; s++)
                        ring += S[r].x[S[r].first[s] + 1].bytes;
                    assert_int_equal(ring, bytes[b] - (uint64_t)own);
                }
            }
        }
}

static void test_reduce(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSIZES; i++) {
        int32_t n = sizes[i];
        for (int32_t root = 0; root < n; root += n / 3 + 1) {
            hs__coll_req q = req(HS__COLL_REDUCE, HS__ALG_AUTO, n, root, 4096);
            run(&q);
            assert_int_equal(total_sent(n), (uint64_t)(n - 1) * 4096);
            for (int32_t r = 0; r < n; r++)
                assert_int_equal(sent_by(r), r == root ? 0 : 4096);
        }
    }
}

static void test_allreduce(void **state)
{
    (void)state;
    uint64_t bytes[] = {8, 2048, 65536, 65544, 1 << 20};
    for (size_t i = 0; i < NSIZES; i++)
        for (size_t b = 0; b < 5; b++) {
            int32_t n = sizes[i], p = floor_pof2(n), rem = n - p;
            uint64_t B = bytes[b];
            hs__coll_req q = req(HS__COLL_ALLREDUCE, HS__ALG_RECURSIVE_DOUBLING, n, 0, B);
            run(&q);
            /* pof2 ranks exchange B per round; the fold adds rem sends each way. */
            int lg = ceil_log2(p);
            assert_int_equal(total_sent(n), (uint64_t)p * lg * B + 2 * (uint64_t)rem * B);
            q.alg = HS__ALG_RING;
            run(&q);
            assert_int_equal(total_sent(n), n > 1 ? 2 * (uint64_t)(n - 1) * B : 0);
            q.alg = HS__ALG_RABENSEIFNER;
            run(&q);
            assert_int_equal(total_sent(n), n > 1 ? 2 * (uint64_t)(p - 1) * B + 2 * (uint64_t)rem * B : 0);
        }
}

static void test_allgather(void **state)
{
    (void)state;
    static uint64_t counts[MAXN];
    for (size_t i = 0; i < NSIZES; i++) {
        int32_t n = sizes[i];
        uint64_t tot = 0;
        for (int32_t r = 0; r < n; r++)
            tot += counts[r] = 100 + 37 * (uint64_t)r;
        hs__coll_alg algs[] = {HS__ALG_RECURSIVE_DOUBLING, HS__ALG_RING, HS__ALG_BRUCK};
        for (int a = 0; a < 3; a++)
            for (int v = 0; v < 2; v++) {
                hs__coll_req q = req(HS__COLL_ALLGATHER, algs[a], n, 0, 512);
                q.counts = v ? counts : NULL;
                run(&q);
                for (int32_t r = 0; r < n; r++)
                    assert_int_equal(recv_by(r), v ? tot - counts[r] : (uint64_t)(n - 1) * 512);
            }
    }
}

static void test_alltoall(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSIZES; i++) {
        int32_t n = sizes[i];
        hs__coll_req q = req(HS__COLL_ALLTOALL, HS__ALG_PAIRWISE, n, 0, 1000);
        run(&q);
        for (int32_t r = 0; r < n; r++)
            assert_int_equal(sent_by(r), (uint64_t)(n - 1) * 1000);
        q.alg = HS__ALG_BRUCK;
        run(&q);
        uint64_t packed = 0; /* blocks moved per rank: sum over bits of #j with the bit */
        for (int32_t p = 1; p < n; p *= 2)
            for (int32_t j = 0; j < n; j++)
                packed += (j & p) != 0;
        for (int32_t r = 0; r < n; r++)
            assert_int_equal(sent_by(r), packed * 1000);
    }
}

/* alltoallv: every rank's counts must agree with the peers' (here rank a
 * sends a*64+b+1 bytes to b); built per rank since counts are per rank. */
static void test_alltoallv(void **state)
{
    (void)state;
    static uint64_t sc[MAXN][MAXN], rc[MAXN][MAXN];
    int32_t ns[] = {5, 8, 13};
    for (int t = 0; t < 3; t++) {
        int32_t n = ns[t];
        for (int32_t a = 0; a < n; a++)
            for (int32_t b = 0; b < n; b++) {
                sc[a][b] = (uint64_t)a * 64 + (uint64_t)b + 1;
                rc[b][a] = sc[a][b];
            }
        for (int32_t r = 0; r < n; r++) {
            hs__coll_req q = req(HS__COLL_ALLTOALL, HS__ALG_AUTO, n, 0, 0);
            q.counts = sc[r];
            q.rcounts = rc[r];
            hs__coll_iter it;
            assert_int_equal(hs__coll_begin(&it, &q, r, NULL), 0);
            assert_int_equal(it.alg, HS__ALG_PAIRWISE);
            sched *s = &S[r];
            s->nsteps = 0;
            uint32_t nx = 0;
            hs__coll_step st;
            while (hs__coll_next(&it, &st)) {
                s->first[s->nsteps++] = nx;
                for (uint32_t i = 0; i < st.nx; i++)
                    s->x[nx++] = st.x[i];
            }
            s->first[s->nsteps] = nx;
            hs__coll_end(&it);
        }
        check_matching(n);
        check_progress(n);
    }
}

static void test_gather_scatter(void **state)
{
    (void)state;
    static uint64_t counts[MAXN];
    for (size_t i = 0; i < NSIZES; i++) {
        int32_t n = sizes[i];
        uint64_t tot = 0;
        for (int32_t r = 0; r < n; r++)
            tot += counts[r] = 10 + 3 * (uint64_t)r;
        for (int32_t root = 0; root < n; root += n / 2 + 1) {
            hs__coll_alg algs[] = {HS__ALG_BINOMIAL, HS__ALG_LINEAR};
            for (int a = 0; a < 2; a++)
                for (int v = 0; v < 2; v++) {
                    hs__coll_req q = req(HS__COLL_GATHER, algs[a], n, root, 64);
                    q.counts = v ? counts : NULL;
                    uint64_t others = v ? tot - counts[root] : (uint64_t)(n - 1) * 64;
                    run(&q);
                    assert_int_equal(recv_by(root), others);
                    assert_int_equal(sent_by(root), 0);
                    q.kind = HS__COLL_SCATTER;
                    run(&q);
                    assert_int_equal(sent_by(root), others);
                    assert_int_equal(recv_by(root), 0);
                }
        }
    }
}

static void test_reduce_scatter_scan(void **state)
{
    (void)state;
    static uint64_t counts[MAXN];
    for (size_t i = 0; i < NSIZES; i++) {
        int32_t n = sizes[i];
        for (int32_t r = 0; r < n; r++)
            counts[r] = 16 * (uint64_t)(r % 5 + 1);
        hs__coll_req q = req(HS__COLL_REDUCE_SCATTER, HS__ALG_PAIRWISE, n, 0, 0);
        q.counts = counts;
        run(&q);
        for (int32_t r = 0; r < n; r++)
            assert_int_equal(recv_by(r), (uint64_t)(n - 1) * counts[r]);
        q.alg = HS__ALG_RECURSIVE_HALVING; /* falls back to pairwise if n is not 2^m */
        run(&q);
        q.kind = HS__COLL_SCAN;
        q.alg = HS__ALG_AUTO;
        q.counts = NULL;
        q.bytes = 800;
        run(&q);
        q.kind = HS__COLL_EXSCAN;
        run(&q);
    }
}

static void test_auto_choice(void **state)
{
    (void)state;
    hs__coll_iter it;
    struct { hs__coll_kind k; int32_t n; uint64_t b; hs__coll_alg want; } cases[] = {
        {HS__COLL_BARRIER, 16, 0, HS__ALG_DISSEMINATION},
        {HS__COLL_BCAST, 16, 1024, HS__ALG_BINOMIAL},
        {HS__COLL_BCAST, 16, 1 << 20, HS__ALG_SCATTER_ALLGATHER},
        {HS__COLL_BCAST, 4, 1 << 20, HS__ALG_BINOMIAL},
        {HS__COLL_ALLREDUCE, 16, 2048, HS__ALG_RECURSIVE_DOUBLING},
        {HS__COLL_ALLREDUCE, 16, 2056, HS__ALG_RABENSEIFNER},
        {HS__COLL_ALLREDUCE, 16, 1 << 20, HS__ALG_RING},
        {HS__COLL_ALLGATHER, 16, 64, HS__ALG_RECURSIVE_DOUBLING},
        {HS__COLL_ALLGATHER, 12, 64, HS__ALG_BRUCK},
        {HS__COLL_ALLGATHER, 16, 1 << 16, HS__ALG_RING},
        {HS__COLL_ALLTOALL, 16, 256, HS__ALG_BRUCK},
        {HS__COLL_ALLTOALL, 16, 257, HS__ALG_PAIRWISE},
        {HS__COLL_ALLTOALL, 4, 8, HS__ALG_PAIRWISE},
        {HS__COLL_GATHER, 16, 8, HS__ALG_BINOMIAL},
        {HS__COLL_SCAN, 16, 8, HS__ALG_RECURSIVE_DOUBLING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs__coll_req q = req(cases[i].k, HS__ALG_AUTO, cases[i].n, 0, cases[i].b);
        assert_int_equal(hs__coll_begin(&it, &q, 0, NULL), 0);
        if (it.alg != cases[i].want)
            fail_msg("%s n=%d bytes=%llu: chose %s, expected %s", hs__coll_kind_name(cases[i].k),
                     cases[i].n, (unsigned long long)cases[i].b, hs__coll_alg_name(it.alg),
                     hs__coll_alg_name(cases[i].want));
        hs__coll_end(&it);
    }
}

static void test_invalid(void **state)
{
    (void)state;
    hs__coll_iter it;
    hs__coll_req q = req(HS__COLL_BCAST, HS__ALG_AUTO, 8, 8, 10);
    assert_int_equal(hs__coll_begin(&it, &q, 0, NULL), HS_EINVAL); /* root out of range */
    q.root = 0;
    assert_int_equal(hs__coll_begin(&it, &q, 8, NULL), HS_EINVAL); /* rank out of range */
    q.n = 0;
    assert_int_equal(hs__coll_begin(&it, &q, 0, NULL), HS_EINVAL);
    q = req(HS__COLL_BARRIER, HS__ALG_RING, 8, 0, 0);
    assert_int_equal(hs__coll_begin(&it, &q, 0, NULL), HS_EINVAL); /* alg not for kind */
    assert_int_equal(hs__coll_alg_parse("rabenseifner"), HS__ALG_RABENSEIFNER);
    assert_int_equal(hs__coll_alg_parse("nope"), -1);
    assert_string_equal(hs__coll_kind_name(HS__COLL_REDUCE_SCATTER), "reduce_scatter");
}

/* The iterator keeps O(log n) state: 16384 ranks in one pairwise
 * all-to-all cost one iterator each and yield n-1 steps. */
static void test_large_lazy(void **state)
{
    (void)state;
    hs__coll_req q = req(HS__COLL_ALLTOALL, HS__ALG_PAIRWISE, 16384, 0, 4096);
    hs__coll_iter it;
    assert_int_equal(hs__coll_begin(&it, &q, 1234, NULL), 0);
    hs__coll_step st;
    uint32_t steps = 0;
    uint64_t sent = 0;
    while (hs__coll_next(&it, &st)) {
        steps++;
        sent += st.x[0].bytes;
        assert_int_equal(st.x[0].peer, 1234 ^ (int32_t)steps);
    }
    assert_int_equal(steps, 16383);
    assert_int_equal(sent, 16383ull * 4096);
    hs__coll_end(&it);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_bcast),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_allgather),
        cmocka_unit_test(test_alltoall),
        cmocka_unit_test(test_alltoallv),
        cmocka_unit_test(test_gather_scatter),
        cmocka_unit_test(test_reduce_scatter_scan),
        cmocka_unit_test(test_auto_choice),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_large_lazy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
