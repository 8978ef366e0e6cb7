/* hash/internal.h — preconditions shared by hash/'s public entry points.
 *
 * Every function of hopscope/hash.h that takes packet IDs, link IDs, fields
 * or counters from its caller checks them with these before touching any
 * output, so that a bad argument gives HS_EINVAL and changes nothing.  The
 * two GF multipliers agree only on operands < 2^k, and the decoders agree
 * with one another only on fields the codec can produce, hence the checks. */
#ifndef HOPSCOPE_HASH_INTERNAL_H
#define HOPSCOPE_HASH_INTERNAL_H

#include "hopscope/hash.h"

/* A k-bit value: a packet ID, or a link ID (link 0 is checked separately
 * where it matters). */
static inline int hs__in_field(const hs_scheme *s, uint32_t v)
{
    return v <= s->gf.mask;
}

/* A field hs_mark can produce: hop within c bits, flag 0 or 1, b hash bits
 * (or a k-bit link ID, nonzero once counted, in exact mode). */
static inline int hs__field_ok(const hs_scheme *s, const hs_field *f)
{
    if (f->hop > s->hop_ovf || f->flag > 1)
        return 0;
    if (!s->exact)
        return (f->bits >> s->b) == 0;
    if (f->bits > s->gf.mask)
        return 0;
    return f->bits != 0 || f->hop == 0 || f->hop == s->hop_ovf;
}

/* A record the decoders accept: k-bit pid and a valid field. */
static inline int hs__sample_ok(const hs_scheme *s, const hs_sample *r)
{
    return hs__in_field(s, r->pid) && hs__field_ok(s, &r->f);
}

/* Counters hs_counters_init made for a scheme of this shape. */
static inline int hs__counters_shape_ok(const hs_counters *ct)
{
    if (ct->k < HS_GF_KMIN || ct->k > HS_COUNTERS_KMAX || ct->n != (1u << ct->k))
        return 0;
    if (ct->exact ? ct->b != 1 : (ct->b < HS_HASH_BITS_MIN || ct->b > HS_HASH_BITS_MAX))
        return 0;
    int second = ct->exact || ct->b > 1;
    return ct->t && ct->c && (second ? ct->t2 && ct->c2 : !ct->t2 && !ct->c2);
}

/* ct was made for s: same k, mode and number of arrays. */
static inline int hs__counters_match(const hs_counters *ct, const hs_scheme *s)
{
    return hs__counters_shape_ok(ct) && ct->k == s->k && ct->exact == s->exact &&
           ct->b == (s->exact ? 1u : s->b);
}

/* a_j(pid) for valid j and pid, without hs_hash_row's checks (hot path). */
static inline uint32_t hs__row(const hs_scheme *s, unsigned j, uint32_t pid)
{
    const uint32_t (*t)[256] = s->rows[j];
    return t[0][pid & 0xff] ^ t[1][(pid >> 8) & 0xff] ^ t[2][(pid >> 16) & 0xff] ^
           t[3][pid >> 24];
}

/* Largest record count for which no decoder sum can overflow int64: each
 * record adds at most b * hop_max^2 to a second-moment sum. */
static inline int hs__records_fit(const hs_scheme *s, size_t n)
{
    uint64_t per = (uint64_t)(s->exact ? 1 : s->b) * s->hop_max * s->hop_max;
    return per == 0 || n <= (uint64_t)INT64_MAX / per;
}

#endif
