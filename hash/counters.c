/* NIC counters: the O(1)-per-packet update a destination NIC performs for
 * each received monitored packet, and their aggregation.
 *
 * For hop count h and stored bits x_j, for each j:
 *     t[j][a_j(pid)] += h (-1)^x_j        c[...] likewise if flagged
 * and, when b > 1, the h^2-weighted twins t2/c2 that give the variance
 * estimate (docs/inband.md).  Exact mode keeps one array indexed by the
 * stored link ID. */
#include "hopscope/hash.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int needs_second_moment(const hs_counters *ct)
{
    return ct->exact || ct->b > 1;
}

int hs_counters_init(hs_counters *ct, const hs_scheme *s, hs_error *err)
{
    memset(ct, 0, sizeof *ct);
    if (s->k > HS_COUNTERS_KMAX)
        return hs_error_set(err, HS_ENOTSUP,
                            "dense counters need 2^k entries; k=%u exceeds the supported %d "
                            "(use records with the route-aware or naive decoder)",
                            s->k, HS_COUNTERS_KMAX);
    ct->k = s->k;
    ct->exact = s->exact;
    ct->b = s->exact ? 1 : s->b;
    ct->n = 1u << s->k;
    size_t len = (size_t)ct->b * ct->n;
    ct->t = calloc(len, sizeof *ct->t);
    ct->c = calloc(len, sizeof *ct->c);
    if (needs_second_moment(ct)) {
        ct->t2 = calloc(len, sizeof *ct->t2);
        ct->c2 = calloc(len, sizeof *ct->c2);
    }
    if (!ct->t || !ct->c || (needs_second_moment(ct) && (!ct->t2 || !ct->c2))) {
        hs_counters_free(ct);
        return hs_error_set(err, HS_ENOMEM, "out of memory for %zu counters", 4 * len);
    }
    return 0;
}

void hs_counters_free(hs_counters *ct)
{
    free(ct->t);
    free(ct->c);
    free(ct->t2);
    free(ct->c2);
    ct->t = ct->c = ct->t2 = ct->c2 = NULL;
}

size_t hs_counters_bytes(const hs_counters *ct)
{
    size_t arrays = needs_second_moment(ct) ? 4 : 2;
    return arrays * (size_t)ct->b * ct->n * sizeof(int64_t);
}

void hs_counters_reset(hs_counters *ct)
{
    size_t len = (size_t)ct->b * ct->n * sizeof(int64_t);
    memset(ct->t, 0, len);
    memset(ct->c, 0, len);
    if (ct->t2) {
        memset(ct->t2, 0, len);
        memset(ct->c2, 0, len);
    }
    ct->packets = ct->flagged = ct->overflow = ct->unmarked = 0;
    ct->sum_h2 = ct->sum_h2_flag = 0;
}

/* Adds (dir = 1) or removes (dir = -1) one packet.  Every new value is
 * computed and checked before any is stored, so HS_EOVERFLOW leaves ct as
 * it was.  Removing a packet that was added restores the previous values
 * exactly and cannot overflow. */
static int apply(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f, int dir)
{
    uint64_t *tally = f->hop == s->hop_ovf ? &ct->overflow : f->hop == 0 ? &ct->unmarked : NULL;
    if (tally) {
        if (dir > 0 && *tally == UINT64_MAX)
            return HS_EOVERFLOW;
        *tally += (uint64_t)(int64_t)dir;
        return 0;
    }
    const int64_t h = (int64_t)f->hop * dir, h2 = h * f->hop;
    const int flag = f->flag;
    int ovf = dir > 0 && (ct->packets == UINT64_MAX || (flag && ct->flagged == UINT64_MAX));
    int64_t sum_h2, sum_h2_flag = ct->sum_h2_flag;
    ovf |= __builtin_add_overflow(ct->sum_h2, h2, &sum_h2);
    if (flag)
        ovf |= __builtin_add_overflow(ct->sum_h2_flag, h2, &sum_h2_flag);

    /* The cells this packet moves: one per hash bit (one in exact mode). */
    unsigned nb = ct->exact ? 1 : ct->b;
    size_t at[HS_HASH_BITS_MAX];
    int64_t nt[HS_HASH_BITS_MAX], nc[HS_HASH_BITS_MAX];
    int64_t nt2[HS_HASH_BITS_MAX], nc2[HS_HASH_BITS_MAX];
    for (unsigned j = 0; j < nb; j++) {
        int64_t sign = 1;
        if (ct->exact) {
            at[j] = f->bits;
        } else {
            at[j] = (size_t)j * ct->n + hs__row(s, j, pid);
            sign = ((f->bits >> j) & 1) ? -1 : 1;
        }
        ovf |= __builtin_add_overflow(ct->t[at[j]], sign * h, &nt[j]);
        if (flag)
            ovf |= __builtin_add_overflow(ct->c[at[j]], sign * h, &nc[j]);
        if (ct->t2) {
            ovf |= __builtin_add_overflow(ct->t2[at[j]], sign * h2, &nt2[j]);
            if (flag)
                ovf |= __builtin_add_overflow(ct->c2[at[j]], sign * h2, &nc2[j]);
        }
    }
    if (ovf)
        return HS_EOVERFLOW;

    for (unsigned j = 0; j < nb; j++) {
        ct->t[at[j]] = nt[j];
        if (flag)
            ct->c[at[j]] = nc[j];
        if (ct->t2) {
            ct->t2[at[j]] = nt2[j];
            if (flag)
                ct->c2[at[j]] = nc2[j];
        }
    }
    ct->packets += (uint64_t)(int64_t)dir;
    ct->sum_h2 = sum_h2;
    if (flag) {
        ct->flagged += (uint64_t)(int64_t)dir;
        ct->sum_h2_flag = sum_h2_flag;
    }
    return 0;
}

/* apply() for the default scheme (one hash bit, no second-moment arrays),
 * all checks included, kept short: it is the per-packet hot path of the NIC
 * model, and with counters beyond the caches the number of instructions
 * per packet decides how many updates' misses the CPU overlaps. */
static int update_b1(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f)
{
    if (f->hop == 0 || f->hop == s->hop_ovf) {
        uint64_t *tally = f->hop ? &ct->overflow : &ct->unmarked;
        if (*tally == UINT64_MAX)
            return HS_EOVERFLOW;
        ++*tally;
        return 0;
    }
    const int64_t h = f->hop, h2 = h * h;
    size_t at = hs__row(s, 0, pid);
    int64_t d = (f->bits & 1) ? -h : h, nt, sum_h2;
    int ovf = __builtin_add_overflow(ct->t[at], d, &nt) |
              __builtin_add_overflow(ct->sum_h2, h2, &sum_h2) | (ct->packets == UINT64_MAX);
    if (f->flag) {
        int64_t nc, sum_h2_flag;
        ovf |= __builtin_add_overflow(ct->c[at], d, &nc) |
               __builtin_add_overflow(ct->sum_h2_flag, h2, &sum_h2_flag) |
               (ct->flagged == UINT64_MAX);
        if (__builtin_expect(ovf, 0))
            return HS_EOVERFLOW;
        ct->c[at] = nc;
        ct->sum_h2_flag = sum_h2_flag;
        ct->flagged++;
    } else if (__builtin_expect(ovf, 0)) {
        return HS_EOVERFLOW;
    }
    ct->t[at] = nt;
    ct->sum_h2 = sum_h2;
    ct->packets++;
    return 0;
}

int hs_counters_update(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f)
{
    /* The default scheme's shape and a valid packet, checked in one go. */
    if (!s->exact && s->b == 1 && ct->k == s->k && ct->b == 1 && !ct->exact &&
        ct->k <= HS_COUNTERS_KMAX && ct->n == (1u << s->k) && ct->t && ct->c && !ct->t2 &&
        !ct->c2 && pid <= s->gf.mask && f->hop <= s->hop_ovf && (f->flag | f->bits) <= 1)
        return update_b1(ct, s, pid, f);
    if (!hs__counters_match(ct, s) || !hs__in_field(s, pid) || !hs__field_ok(s, f))
        return HS_EINVAL;
    return apply(ct, s, pid, f, 1);
}

/* dst[i] += src[i] in wrapping arithmetic; returns nonzero if any sum
 * overflowed int64 (the sign of the sum differs from both operands'). */
static int add_array(int64_t *dst, const int64_t *src, size_t len)
{
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *a = (const uint64_t *)src;
    uint64_t ovf = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t x = d[i], y = a[i], z = x + y;
        ovf |= (x ^ z) & (y ^ z);
        d[i] = z;
    }
    return (int)(ovf >> 63);
}

static void sub_array(int64_t *dst, const int64_t *src, size_t len)
{
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *a = (const uint64_t *)src;
    for (size_t i = 0; i < len; i++)
        d[i] -= a[i];
}

/* Would dst[i] + src[i] overflow for some i?  (Read-only, for dst == src.) */
static int add_would_overflow(const int64_t *dst, const int64_t *src, size_t len)
{
    int64_t z;
    for (size_t i = 0; i < len; i++)
        if (__builtin_add_overflow(dst[i], src[i], &z))
            return 1;
    return 0;
}

int hs_counters_add(hs_counters *dst, const hs_counters *src)
{
    if (!hs__counters_shape_ok(dst) || !hs__counters_shape_ok(src) || dst->k != src->k ||
        dst->b != src->b || dst->exact != src->exact)
        return HS_EINVAL;
    uint64_t packets, flagged, overflow, unmarked;
    int64_t sum_h2, sum_h2_flag;
    if (__builtin_add_overflow(dst->packets, src->packets, &packets) ||
        __builtin_add_overflow(dst->flagged, src->flagged, &flagged) ||
        __builtin_add_overflow(dst->overflow, src->overflow, &overflow) ||
        __builtin_add_overflow(dst->unmarked, src->unmarked, &unmarked) ||
        __builtin_add_overflow(dst->sum_h2, src->sum_h2, &sum_h2) ||
        __builtin_add_overflow(dst->sum_h2_flag, src->sum_h2_flag, &sum_h2_flag))
        return HS_EOVERFLOW;

    size_t len = (size_t)dst->b * dst->n;
    int64_t *d[4] = {dst->t, dst->c, dst->t2, dst->c2};
    const int64_t *a[4] = {src->t, src->c, src->t2, src->c2};
    int narr = dst->t2 ? 4 : 2;
    /* One pass that adds and notes overflow, undone exactly (wrapping
     * subtraction) if there was any; an array added to itself cannot be
     * undone that way, so that case is checked first. */
    for (int x = 0; x < narr; x++)
        if (d[x] == a[x] && add_would_overflow(d[x], a[x], len))
            return HS_EOVERFLOW;
    int ovf = 0, done = 0;
    for (; done < narr && !ovf; done++)
        ovf = add_array(d[done], a[done], len);
    if (ovf) {
        for (int x = 0; x < done; x++)
            sub_array(d[x], a[x], len);
        return HS_EOVERFLOW;
    }
    dst->packets = packets;
    dst->flagged = flagged;
    dst->overflow = overflow;
    dst->unmarked = unmarked;
    dst->sum_h2 = sum_h2;
    dst->sum_h2_flag = sum_h2_flag;
    return 0;
}

/* Counter lines a packet will touch, fetched ahead of its update: with
 * 2^k counters beyond the caches (k = 20 is 8 MiB per array), the update
 * is a cache miss per array, and issuing it early lets it overlap the
 * updates in between.  Only a hint: no effect on any value.
 *
 * An asm statement, not __builtin_prefetch: with the builtin, gcc 12.2
 * emitted no prefetch instruction at all in this file (seen with objdump;
 * -fno-tree-dce brought them back).  prefetcht0 keeps the line in every
 * level, which a line written a few dozen packets later needs. */
static inline void prefetch_line(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

static inline void prefetch_cells(const hs_counters *ct, const hs_scheme *s, uint32_t pid,
                                  const hs_field *f)
{
    if (f->hop == 0 || f->hop == s->hop_ovf)
        return;
    unsigned nb = ct->exact ? 1 : ct->b;
    for (unsigned j = 0; j < nb; j++) {
        size_t at = ct->exact ? (f->bits & (ct->n - 1))
                              : (size_t)j * ct->n + hs__row(s, j, pid);
        prefetch_line(&ct->t[at]);
        if (f->flag)
            prefetch_line(&ct->c[at]);
        if (ct->t2) {
            prefetch_line(&ct->t2[at]);
            if (f->flag)
                prefetch_line(&ct->c2[at]);
        }
    }
}

void hs_counters_prefetch(const hs_counters *ct, const hs_scheme *s, uint32_t pid,
                          const hs_field *f)
{
    if (hs__counters_match(ct, s) && hs__in_field(s, pid) && hs__field_ok(s, f))
        prefetch_cells(ct, s, pid, f);
}

/* How many records ahead from_samples prefetches: enough misses in flight
 * to cover a memory latency at ~10 ns per update (measured: 16 gains half
 * of what 32 does, 64 no more than 32), few enough that the lines are
 * still in L1/L2 when their turn comes. */
#define PREFETCH_AHEAD 32

int hs_counters_from_samples(hs_counters *ct, const hs_scheme *s,
                             const hs_sample *smp, size_t n)
{
    if (!hs__counters_match(ct, s))
        return HS_EINVAL;
    int b1 = !ct->exact && ct->b == 1;
    for (size_t i = 0; i < n && i < PREFETCH_AHEAD; i++)
        prefetch_cells(ct, s, smp[i].pid, &smp[i].f);
    /* One pass: each record is checked as its turn comes, and an invalid
     * one undoes the records before it, as an overflow does (a separate
     * checking pass would stream the whole array through the cache once
     * more).  Prefetching an unchecked record is harmless: its cells are
     * within the arrays whatever its pid and bits. */
    for (size_t i = 0; i < n; i++) {
        if (i + PREFETCH_AHEAD < n)
            prefetch_cells(ct, s, smp[i + PREFETCH_AHEAD].pid, &smp[i + PREFETCH_AHEAD].f);
        int rc = !hs__sample_ok(s, &smp[i]) ? HS_EINVAL
                 : b1 ? update_b1(ct, s, smp[i].pid, &smp[i].f)
                      : apply(ct, s, smp[i].pid, &smp[i].f, 1);
        if (rc) {
            /* An invalid record anywhere wins over an overflow, as if all
             * had been checked first. */
            for (size_t j = i + 1; rc == HS_EOVERFLOW && j < n; j++)
                if (!hs__sample_ok(s, &smp[j]))
                    rc = HS_EINVAL;
            while (i-- > 0)
                apply(ct, s, smp[i].pid, &smp[i].f, -1);
            return rc;
        }
    }
    return 0;
}
