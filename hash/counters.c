/* NIC counters: the O(1)-per-packet update a destination NIC performs for
 * each received monitored packet, and their aggregation.
 *
 * For hop count h and stored bits x_j, for each j:
 *     t[j][a_j(pid)] += h (-1)^x_j        c[...] likewise if flagged
 * and, when b > 1, the h^2-weighted twins t2/c2 that give the variance
 * estimate (docs/inband.md).  Exact mode keeps one array indexed by the
 * stored link ID. */
#include "hopscope/hash.h"

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

void hs_counters_update(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f)
{
    if (f->hop == s->hop_ovf) {
        ct->overflow++;
        return;
    }
    if (f->hop == 0) {
        ct->unmarked++;
        return;
    }
    const int64_t h = f->hop, h2 = h * h;
    const int flag = f->flag & 1;
    ct->packets++;
    ct->sum_h2 += h2;
    if (flag) {
        ct->flagged++;
        ct->sum_h2_flag += h2;
    }
    if (ct->exact) {
        uint32_t d = f->bits & (ct->n - 1);
        ct->t[d] += h;
        ct->t2[d] += h2;
        if (flag) {
            ct->c[d] += h;
            ct->c2[d] += h2;
        }
        return;
    }
    for (unsigned j = 0; j < ct->b; j++) {
        size_t at = (size_t)j * ct->n + hs_hash_row(s, j, pid);
        int64_t sign = ((f->bits >> j) & 1) ? -1 : 1;
        ct->t[at] += sign * h;
        if (flag)
            ct->c[at] += sign * h;
        if (ct->t2) {
            ct->t2[at] += sign * h2;
            if (flag)
                ct->c2[at] += sign * h2;
        }
    }
}

int hs_counters_add(hs_counters *dst, const hs_counters *src)
{
    if (dst->k != src->k || dst->b != src->b || dst->exact != src->exact)
        return HS_EINVAL;
    size_t len = (size_t)dst->b * dst->n;
    for (size_t i = 0; i < len; i++) {
        dst->t[i] += src->t[i];
        dst->c[i] += src->c[i];
    }
    if (dst->t2)
        for (size_t i = 0; i < len; i++) {
            dst->t2[i] += src->t2[i];
            dst->c2[i] += src->c2[i];
        }
    dst->packets += src->packets;
    dst->flagged += src->flagged;
    dst->overflow += src->overflow;
    dst->unmarked += src->unmarked;
    dst->sum_h2 += src->sum_h2;
    dst->sum_h2_flag += src->sum_h2_flag;
    return 0;
}

int hs_counters_from_samples(hs_counters *ct, const hs_scheme *s,
                             const hs_sample *smp, size_t n)
{
    if (ct->k != s->k || ct->exact != s->exact)
        return HS_EINVAL;
    for (size_t i = 0; i < n; i++)
        hs_counters_update(ct, s, smp[i].pid, &smp[i].f);
    return 0;
}
