/* Benchmarks for hash/: GF multiply, NIC counter update, WHT, decoders.
 * Prints markdown table rows; every figure is the median of REPS runs, with
 * the baseline measured in the same process.
 * Usage: bench_hash [REPS [gf|counters|wht|decode]] */
#include "hopscope/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>

/* CPU time of this thread, not wall time: the machine these figures come
 * from is shared, and time spent descheduled is not the code's.  (Cache
 * contention from the other tenants still shows.) */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 99;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static volatile uint64_t sink;
enum { MAXREPS = 15 };
static int reps = 5;

/* ---- GF multiply ---- */
#define NMUL (1 << 22)
static uint32_t *ma, *mb;

static double time_mul(const hs_gf *gf, uint32_t (*mul)(const hs_gf *, uint32_t, uint32_t))
{
    double t0 = now();
    uint64_t acc = 0;
    for (int i = 0; i < NMUL; i++)
        acc ^= mul(gf, ma[i], mb[i]);
    double t = now() - t0;
    sink = acc;
    return t / NMUL * 1e9;
}

static void bench_gf(void)
{
    ma = malloc(NMUL * sizeof *ma);
    mb = malloc(NMUL * sizeof *mb);
    printf("| GF(2^k) multiply, k | portable ns/op | pclmul ns/op (`hs_gf_mul`) | speed-up | target |\n");
    printf("|---|---|---|---|---|\n");
    unsigned ks[] = {8, 16, 24, 32};
    for (size_t x = 0; x < 4; x++) {
        hs_gf gf;
        hs_gf_init(&gf, ks[x]);
        for (int i = 0; i < NMUL; i++) {
            ma[i] = (uint32_t)rnd() & gf.mask;
            mb[i] = (uint32_t)rnd() & gf.mask;
        }
        double p[MAXREPS], c[MAXREPS];
        for (int r = 0; r < reps; r++) {
            p[r] = time_mul(&gf, hs_gf_mul_portable);
            c[r] = gf.clmul ? time_mul(&gf, hs_gf_mul) : 0;
        }
        double pm = median(p, reps), cm = median(c, reps);
        if (gf.clmul)
            printf("| %u | %.2f | %.2f | %.1fx | <= 5 ns |\n", ks[x], pm, cm, pm / cm);
        else
            printf("| %u | %.2f | (no PCLMULQDQ) | - | <= 5 ns |\n", ks[x], pm);
    }
    free(ma);
    free(mb);
}

/* ---- NIC counter update ---- */
#define NPKT (1 << 22)

/* Baseline: a_j(pid) computed bit by bit from k GF multiplications
 * (bit i of a_j(pid) = bit j of pid * x^i), i.e. without the tables. */
static void update_baseline(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f)
{
    int64_t h = f->hop;
    for (unsigned j = 0; j < s->b; j++) {
        uint32_t a = 0;
        for (unsigned i = 0; i < s->k; i++)
            a |= ((hs_gf_mul(&s->gf, pid, 1u << i) >> j) & 1u) << i;
        int64_t sign = ((f->bits >> j) & 1) ? -1 : 1;
        ct->t[(size_t)j * ct->n + a] += sign * h;
        if (f->flag)
            ct->c[(size_t)j * ct->n + a] += sign * h;
    }
}

static void bench_counters(void)
{
    printf("\n| NIC counter update, k/b | table-driven ns/packet | baseline (a_j by k GF multiplies) ns/packet | speed-up | target |\n");
    printf("|---|---|---|---|---|\n");
    struct { unsigned k, b; } cf[] = {{16, 1}, {17, 1}, {20, 1}, {16, 2}};
    uint32_t *pid = malloc(NPKT * sizeof *pid);
    hs_field *fld = malloc(NPKT * sizeof *fld);
    for (size_t x = 0; x < 4; x++) {
        hs_scheme_cfg cfg;
        hs_scheme_cfg_default(&cfg);
        cfg.k = cf[x].k;
        cfg.hash_bits = cf[x].b;
        hs_scheme s;
        hs_scheme_init(&s, &cfg, NULL);
        hs_counters ct;
        hs_counters_init(&ct, &s, NULL);
        for (int i = 0; i < NPKT; i++) {
            pid[i] = (uint32_t)rnd() & s.gf.mask;
            fld[i] = (hs_field){.hop = (uint8_t)(1 + rnd() % 6), .flag = (rnd() % 4) == 0,
                                .bits = (uint32_t)rnd() & ((1u << s.b) - 1)};
        }
        double t[MAXREPS], base[MAXREPS];
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            for (int i = 0; i < NPKT; i++)
                hs_counters_update(&ct, &s, pid[i], &fld[i]);
            t[r] = (now() - t0) / NPKT * 1e9;
            t0 = now();
            for (int i = 0; i < NPKT / 8; i++)
                update_baseline(&ct, &s, pid[i], &fld[i]);
            base[r] = (now() - t0) / (NPKT / 8) * 1e9;
        }
        double tm = median(t, reps), bm = median(base, reps);
        printf("| %u / %u (%zu KiB of counters) | %.1f | %.1f | %.1fx | <= 20 ns |\n", cf[x].k,
               cf[x].b, hs_counters_bytes(&ct) / 1024, tm, bm, bm / tm);
        hs_counters_free(&ct);
        hs_scheme_free(&s);
    }
    free(pid);
    free(fld);
}

/* ---- NIC counter update at k = 20: where the time goes ---- */
static const hs_scheme *sort_scheme;
static int cmp_cell(const void *a, const void *b)
{
    uint32_t x = hs_hash_row(sort_scheme, 0, ((const hs_sample *)a)->pid);
    uint32_t y = hs_hash_row(sort_scheme, 0, ((const hs_sample *)b)->pid);
    return (x > y) - (x < y);
}

static void bench_counters_k20(void)
{
    enum { AHEAD = 32 };
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = 20;
    hs_scheme s;
    hs_scheme_init(&s, &cfg, NULL);
    hs_counters ct;
    hs_counters_init(&ct, &s, NULL);
    hs_sample *rnd_order = malloc(NPKT * sizeof *rnd_order);
    hs_sample *sorted = malloc(NPKT * sizeof *sorted);
    for (int i = 0; i < NPKT; i++)
        rnd_order[i] = (hs_sample){.pid = (uint32_t)rnd() & s.gf.mask,
                                   .f = {.hop = (uint8_t)(1 + rnd() % 6), .flag = (rnd() % 4) == 0,
                                         .bits = (uint32_t)rnd() & 1}};
    memcpy(sorted, rnd_order, NPKT * sizeof *sorted);
    sort_scheme = &s;
    qsort(sorted, NPKT, sizeof *sorted, cmp_cell);
    double tr[MAXREPS], ts[MAXREPS], tb[MAXREPS], tp[MAXREPS];
    int bad = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int i = 0; i < NPKT; i++)
            bad |= hs_counters_update(&ct, &s, rnd_order[i].pid, &rnd_order[i].f);
        tr[r] = (now() - t0) / NPKT * 1e9;
        t0 = now();
        for (int i = 0; i < NPKT; i++)
            bad |= hs_counters_update(&ct, &s, sorted[i].pid, &sorted[i].f);
        ts[r] = (now() - t0) / NPKT * 1e9;
        t0 = now();
        bad |= hs_counters_from_samples(&ct, &s, rnd_order, NPKT);
        tb[r] = (now() - t0) / NPKT * 1e9;
        t0 = now();
        for (int i = 0; i < NPKT; i++) {
            if (i + AHEAD < NPKT)
                hs_counters_prefetch(&ct, &s, rnd_order[i + AHEAD].pid, &rnd_order[i + AHEAD].f);
            bad |= hs_counters_update(&ct, &s, rnd_order[i].pid, &rnd_order[i].f);
        }
        tp[r] = (now() - t0) / NPKT * 1e9;
    }
    double mr = median(tr, reps), ms = median(ts, reps), mfs = median(tb, reps);
    double mp = median(tp, reps);
    printf("\n| NIC counter update, k=20, b=1 (16 MiB of counters), 2^22 packets | ns/packet | vs random order |\n");
    printf("|---|---|---|\n");
    printf("| `hs_counters_update`, packets in random order (as a NIC sees them) | %.1f | 1.00x |\n", mr);
    printf("| the same packets sorted by counter cell (sequential access: no miss to wait for) | %.1f | %.2fx |\n", ms, ms / mr);
    printf("| `hs_counters_update` with `hs_counters_prefetch` %d packets ahead | %.1f | %.2fx |\n", AHEAD, mp, mp / mr);
    printf("| `hs_counters_from_samples` (prefetches %d records ahead) | %.1f | %.2fx |\n", AHEAD, mfs, mfs / mr);
    printf("\nThe difference between the first two rows is the cost of the cache misses "
           "(%.1f ns per packet); hardware miss counters are not readable here (no CPU PMU "
           "in this container: `perf stat -e cache-misses` says <not supported>).%s\n",
           mr - ms, bad ? "  (SOME UPDATES FAILED)" : "");
    free(rnd_order);
    free(sorted);
    hs_counters_free(&ct);
    hs_scheme_free(&s);
}

/* ---- WHT ---- */
static void wht_textbook(int64_t *v, unsigned logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t h = 1; h < n; h *= 2)
        for (size_t i = 0; i < n; i += 2 * h)
            for (size_t j = i; j < i + h; j++) {
                int64_t x = v[j], y = v[j + h];
                v[j] = x + y;
                v[j + h] = x - y;
            }
}

/* Same-width reference: a float transform written the way FFHT (Andoni,
 * Indyk, Laarhoven, Razenshteyn, Schmidt, NIPS 2015) describes its fast
 * path, with AVX2 intrinsics: the lowest levels inside a register, the rest
 * three levels per pass (eight registers loaded at stride h), and a
 * recursion that transforms eight sub-blocks before combining them, down to
 * 16 KiB blocks that stay in L1.  Written here from that description, not
 * from FFHT's code.  float64 has hs_wht's lane width (4 x 64 bits) and
 * float32 hs_wht32's (8 x 32 bits); arrays are 32-byte aligned. */
#define REF_LEAF_BYTES 16384

#define REF_BODY(NAME, V, ADD, SUB, INREG)                                             \
    __attribute__((target("avx2"))) static void NAME##_pass8(void *xf, size_t nv,   \
                                                              size_t h)                 \
    {                                                                                   \
        V *x = xf;                                                         \
        for (size_t base = 0; base < nv; base += 8 * h)                                 \
            for (size_t i = base; i < base + h; i++) {                                  \
                V a0 = x[i], a1 = x[i + h], a2 = x[i + 2 * h], a3 = x[i + 3 * h];      \
                V a4 = x[i + 4 * h], a5 = x[i + 5 * h], a6 = x[i + 6 * h];             \
                V a7 = x[i + 7 * h];                                                    \
                V b0 = ADD(a0, a1), b1 = SUB(a0, a1), b2 = ADD(a2, a3);                 \
                V b3 = SUB(a2, a3), b4 = ADD(a4, a5), b5 = SUB(a4, a5);                 \
                V b6 = ADD(a6, a7), b7 = SUB(a6, a7);                                   \
                V c0 = ADD(b0, b2), c2 = SUB(b0, b2), c1 = ADD(b1, b3);                 \
                V c3 = SUB(b1, b3), c4 = ADD(b4, b6), c6 = SUB(b4, b6);                 \
                V c5 = ADD(b5, b7), c7 = SUB(b5, b7);                                   \
                x[i] = ADD(c0, c4);                                                     \
                x[i + h] = ADD(c1, c5);                                                 \
                x[i + 2 * h] = ADD(c2, c6);                                             \
                x[i + 3 * h] = ADD(c3, c7);                                             \
                x[i + 4 * h] = SUB(c0, c4);                                             \
                x[i + 5 * h] = SUB(c1, c5);                                             \
                x[i + 6 * h] = SUB(c2, c6);                                             \
                x[i + 7 * h] = SUB(c3, c7);                                             \
            }                                                                           \
    }                                                                                   \
    __attribute__((target("avx2"))) static void NAME##_pass2(void *xf, size_t nv,   \
                                                              size_t h)                 \
    {                                                                                   \
        V *x = xf;                                                         \
        for (size_t base = 0; base < nv; base += 2 * h)                                 \
            for (size_t i = base; i < base + h; i++) {                                  \
                V a0 = x[i], a1 = x[i + h];                                             \
                x[i] = ADD(a0, a1);                                                     \
                x[i + h] = SUB(a0, a1);                                                 \
            }                                                                           \
    }                                                                                   \
    __attribute__((target("avx2"))) static void NAME##_levels(void *x, size_t nv,   \
                                                               unsigned lo, unsigned hi) \
    {                                                                                   \
        unsigned l = lo;                                                                \
        for (; l + 3 <= hi; l += 3)                                                     \
            NAME##_pass8(x, nv, (size_t)1 << l);                                        \
        for (; l < hi; l++)                                                             \
            NAME##_pass2(x, nv, (size_t)1 << l);                                        \
    }                                                                                   \
    __attribute__((target("avx2"))) static void NAME##_rec(void *xf, unsigned logv, \
                                                            unsigned leaf)              \
    {                                                                                   \
        V *x = xf;                                                         \
        if (logv <= leaf) {                                                             \
            for (size_t i = 0; i < ((size_t)1 << logv); i++)                           \
                x[i] = INREG(x[i]);                                                     \
            NAME##_levels(xf, (size_t)1 << logv, 0, logv);                              \
            return;                                                                     \
        }                                                                               \
        unsigned top = (logv - leaf) % 3 ? (logv - leaf) % 3 : 3;                       \
        size_t sub = (size_t)1 << (logv - top);                                         \
        for (size_t b = 0; b < ((size_t)1 << top); b++)                                 \
            NAME##_rec(x + b * sub, logv - top, leaf);               \
        NAME##_levels(xf, (size_t)1 << logv, logv - top, logv);                         \
    }

/* In-register levels: the partner lane is lane ^ 2^l; lanes with bit l set
 * take partner - self. */
__attribute__((target("avx2"))) static inline __m256d inreg_pd(__m256d x)
{
    __m256d y = _mm256_permute_pd(x, 0x5);
    x = _mm256_blend_pd(_mm256_add_pd(x, y), _mm256_sub_pd(y, x), 0xa);
    y = _mm256_permute2f128_pd(x, x, 1);
    return _mm256_blend_pd(_mm256_add_pd(x, y), _mm256_sub_pd(y, x), 0xc);
}
__attribute__((target("avx2"))) static inline __m256 inreg_ps(__m256 x)
{
    __m256 y = _mm256_permute_ps(x, 0xb1);
    x = _mm256_blend_ps(_mm256_add_ps(x, y), _mm256_sub_ps(y, x), 0xaa);
    y = _mm256_permute_ps(x, 0x4e);
    x = _mm256_blend_ps(_mm256_add_ps(x, y), _mm256_sub_ps(y, x), 0xcc);
    y = _mm256_permute2f128_ps(x, x, 1);
    return _mm256_blend_ps(_mm256_add_ps(x, y), _mm256_sub_ps(y, x), 0xf0);
}
REF_BODY(ref64, __m256d, _mm256_add_pd, _mm256_sub_pd, inreg_pd)
REF_BODY(ref32, __m256, _mm256_add_ps, _mm256_sub_ps, inreg_ps)

static void ref_wht_f64(double *v, unsigned logn) /* logn >= 2 */
{
    ref64_rec(v, logn - 2, __builtin_ctz(REF_LEAF_BYTES / 32));
}
static void ref_wht_f32(float *v, unsigned logn) /* logn >= 3 */
{
    ref32_rec(v, logn - 3, __builtin_ctz(REF_LEAF_BYTES / 32));
}

static void bench_wht(void)
{
    if (!__builtin_cpu_supports("avx2")) {
        printf("\n(no AVX2: the WHT references need it; WHT not measured)\n");
        return;
    }
    printf("\n| WHT size | hopscope int64 ms | reference float64 ms | ratio (<= 1.2 target) "
           "| hopscope int32 ms | reference float32 ms | ratio | textbook int64 ms |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    unsigned logs[] = {16, 20, 24};
    int mismatch = 0;
    for (size_t x = 0; x < 3; x++) {
        unsigned L = logs[x];
        size_t n = (size_t)1 << L;
        int64_t *v = aligned_alloc(64, n * sizeof *v), *tb = malloc(n * sizeof *tb);
        int32_t *v32 = aligned_alloc(64, n * sizeof *v32);
        double *f64 = aligned_alloc(64, n * sizeof *f64);
        float *f32 = aligned_alloc(64, n * sizeof *f32);
        double t[MAXREPS], r64[MAXREPS], t32[MAXREPS], r32[MAXREPS], base[MAXREPS];
        for (int r = 0; r < reps; r++) {
            /* Small counts, as a NIC's: every transform value stays exact
             * in all five (float32 holds integers below 2^24). */
            for (size_t i = 0; i < n; i++) {
                int64_t c = (int64_t)(rnd() % 3) - 1;
                v[i] = tb[i] = c;
                v32[i] = (int32_t)c;
                f64[i] = (double)c;
                f32[i] = (float)c;
            }
            /* Alternate which of each pair runs first, so neither always
             * finds the other's data in the shared caches. */
            for (int first = 0; first < 2; first++) {
                double t0 = now();
                if ((r + first) % 2 == 0) {
                    hs_wht(v, L);
                    t[r] = (now() - t0) * 1e3;
                } else {
                    ref_wht_f64(f64, L);
                    r64[r] = (now() - t0) * 1e3;
                }
            }
            for (int first = 0; first < 2; first++) {
                double t0 = now();
                if ((r + first) % 2 == 0) {
                    hs_wht32(v32, L);
                    t32[r] = (now() - t0) * 1e3;
                } else {
                    ref_wht_f32(f32, L);
                    r32[r] = (now() - t0) * 1e3;
                }
            }
            double t0 = now();
            wht_textbook(tb, L);
            base[r] = (now() - t0) * 1e3;
            for (size_t i = 0; i < n; i++)
                mismatch += v[i] != tb[i] || (int64_t)v32[i] != tb[i] ||
                            (int64_t)f64[i] != tb[i] || (int64_t)f32[i] != tb[i];
        }
        double tm = median(t, reps), rm = median(r64, reps), t32m = median(t32, reps);
        double r32m = median(r32, reps), bm = median(base, reps);
        printf("| 2^%u | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %.2f |\n", L, tm, rm,
               tm / rm, t32m, r32m, t32m / r32m, bm);
        free(v);
        free(tb);
        free(v32);
        free(f64);
        free(f32);
    }
    printf("\nRatio = hopscope / reference (lower is better).  All five transforms ran on the "
           "same random counts in {-1, 0, 1} and gave the same integers (%d mismatches: every partial sum is an integer of "
           "magnitude <= 2^24, exact even in float32).\n", mismatch);
}

/* ---- naive vs fast decode ---- */
static void bench_decode(void)
{
    enum { K = 16, NREC = 1000000, NAIVE_LINKS = 1024 };
    hs_scheme_cfg cfg;
    hs_scheme_cfg_default(&cfg);
    cfg.k = K;
    hs_scheme s;
    hs_scheme_init(&s, &cfg, NULL);
    hs_sample *smp = malloc(NREC * sizeof *smp);
    for (int i = 0; i < NREC; i++)
        smp[i] = (hs_sample){.pid = (uint32_t)rnd() & s.gf.mask,
                             .f = {.hop = (uint8_t)(1 + rnd() % 6), .flag = rnd() % 4 == 0,
                                   .bits = (uint32_t)rnd() & 1}};
    uint32_t nid = 1u << K;
    hs_linksum *fast = malloc(nid * sizeof *fast);
    hs_linksum *naive = malloc(NAIVE_LINKS * sizeof *naive);
    uint32_t links[NAIVE_LINKS];
    for (int i = 0; i < NAIVE_LINKS; i++)
        links[i] = 1 + (uint32_t)i * 64;
    double t[MAXREPS], base[MAXREPS];
    int nrep = reps < 3 ? reps : 3; /* the naive decode is the slow part */
    int mismatches = 0;
    for (int r = 0; r < nrep; r++) {
        double t0 = now();
        hs_counters ct;
        hs_counters_init(&ct, &s, NULL);
        hs_counters_from_samples(&ct, &s, smp, NREC);
        hs_decode_fast(&ct, fast, nid, NULL);
        hs_counters_free(&ct);
        t[r] = (now() - t0) * 1e3;
        t0 = now();
        hs_decode_naive(&s, smp, NREC, links, NAIVE_LINKS, naive, NULL);
        base[r] = (now() - t0) * 1e3 * ((double)(nid - 1) / NAIVE_LINKS);
        for (int i = 0; i < NAIVE_LINKS; i++)
            mismatches += naive[i].s != fast[links[i]].s || naive[i].c != fast[links[i]].c;
    }
    double tm = median(t, nrep), bm = median(base, nrep);
    printf("\n| decode 10^6 records, 2^16 link IDs | fast (histogram + WHT) ms | naive ms | speed-up | target |\n");
    printf("|---|---|---|---|---|\n");
    printf("| k=16, b=1 | %.1f | %.0f | %.0fx | >= 1000x |\n", tm, bm, bm / tm);
    printf("\nThe naive decoder was timed on %d of the 65535 link IDs and scaled to all of "
           "them (its cost is exactly linear in the number of IDs: one independent sum per "
           "ID); on those IDs its sums equal the fast decoder's (%d mismatches).\n",
           NAIVE_LINKS, mismatches);
    free(smp);
    free(fast);
    free(naive);
    hs_scheme_free(&s);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        reps = atoi(argv[1]);
    if (reps < 1 || reps > MAXREPS)
        reps = 5;
    /* Optional second argument: run one part only (gf, counters, wht, decode). */
    const char *only = argc > 2 ? argv[2] : NULL;
    printf("Each figure is the median of %d runs in one process, in thread CPU time; baselines "
           "are measured in the same runs.\n\n", reps);
    if (!only || !strcmp(only, "gf"))
        bench_gf();
    if (!only || !strcmp(only, "counters")) {
        bench_counters();
        bench_counters_k20();
    }
    if (!only || !strcmp(only, "wht"))
        bench_wht();
    if (!only || !strcmp(only, "decode"))
        bench_decode();
    return 0;
}
