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
            at[j] = (size_t)j * ct->n + hs_hash_row(s, j, pid);
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

int hs_counters_update(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f)
{
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

int hs_counters_from_samples(hs_counters *ct, const hs_scheme *s,
                             const hs_sample *smp, size_t n)
{
    if (!hs__counters_match(ct, s))
        return HS_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!hs__sample_ok(s, &smp[i]))
            return HS_EINVAL;
    for (size_t i = 0; i < n; i++) {
        int rc = apply(ct, s, smp[i].pid, &smp[i].f, 1);
        if (rc) {
            while (i-- > 0)
                apply(ct, s, smp[i].pid, &smp[i].f, -1);
            return rc;
        }
    }
    return 0;
}
