/* The in-band scheme: parameters, packet identity, the field codec and the
 * marking step a switch performs at each transmission.
 *
 * a_j(pid) tables: H_j(pid, d) = bit j of pid*d is bilinear in (pid, d), so
 * for fixed pid it is <a_j(pid), d> with a_j linear in pid.  Bit i of
 * a_j(x^l) is bit j of x^(l+i) mod poly; a_j(pid) is the XOR of a_j(x^l)
 * over the set bits l of pid, done a byte at a time from 4 x 256 tables, so
 * the NIC update costs O(1) per packet. */
#include "hopscope/hash.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void hs_scheme_cfg_default(hs_scheme_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->hop_bits = HS_HOP_BITS_DEFAULT;
    cfg->hash_bits = HS_HASH_BITS_DEFAULT;
}

unsigned hs_link_bits(uint64_t nlinks)
{
    for (unsigned k = HS_GF_KMIN; k <= HS_GF_KMAX; k++)
        if ((1ull << k) > nlinks)
            return k;
    return 0;
}

unsigned hs_hop_bits_fit(uint64_t links)
{
    /* a c-bit counter holds 2^c - 2 hops; 2^c - 1 means overflowed */
    for (unsigned c = HS_HOP_BITS_MIN; c <= HS_HOP_BITS_MAX; c++)
        if ((1ull << c) - 2 >= links)
            return c;
    return 0;
}

int hs_scheme_init(hs_scheme *s, const hs_scheme_cfg *cfg, hs_error *err)
{
    memset(s, 0, sizeof *s);
    if (cfg->hop_bits < HS_HOP_BITS_MIN || cfg->hop_bits > HS_HOP_BITS_MAX)
        return hs_error_set(err, HS_EINVAL, "hop counter width c=%u is outside %d..%d",
                            cfg->hop_bits, HS_HOP_BITS_MIN, HS_HOP_BITS_MAX);
    if (!cfg->exact && (cfg->hash_bits < HS_HASH_BITS_MIN || cfg->hash_bits > HS_HASH_BITS_MAX))
        return hs_error_set(err, HS_EINVAL, "hash bits b=%u is outside %d..%d",
                            cfg->hash_bits, HS_HASH_BITS_MIN, HS_HASH_BITS_MAX);
    unsigned k = cfg->k;
    if (k == 0) {
        k = hs_link_bits(cfg->nlinks);
        if (k == 0)
            return hs_error_set(err, HS_ERANGE, "%llu links need more than %d-bit link IDs",
                                (unsigned long long)cfg->nlinks, HS_GF_KMAX);
    }
    if (k < HS_GF_KMIN || k > HS_GF_KMAX)
        return hs_error_set(err, HS_EINVAL, "link-ID width k=%u is outside %d..%d",
                            k, HS_GF_KMIN, HS_GF_KMAX);
    if (!cfg->exact && cfg->hash_bits > k)
        /* Bits j >= k of a k-bit product are always 0: they would add h to
         * every link's estimate. */
        return hs_error_set(err, HS_EINVAL, "hash bits b=%u exceed the link-ID width k=%u",
                            cfg->hash_bits, k);
    if (cfg->nlinks >= (1ull << k))
        return hs_error_set(err, HS_ERANGE,
                            "k=%u gives link IDs 1..%llu, too few for %llu links (need k >= %u)",
                            k, (unsigned long long)((1ull << k) - 1),
                            (unsigned long long)cfg->nlinks, hs_link_bits(cfg->nlinks));
    hs_gf_init(&s->gf, k);
    s->k = k;
    s->c = cfg->hop_bits;
    s->exact = cfg->exact ? 1 : 0;
    s->b = s->exact ? 0 : cfg->hash_bits;
    s->hop_ovf = (1u << s->c) - 1;
    s->hop_max = s->hop_ovf - 1;
    s->field_bits = s->c + (s->exact ? k : s->b) + 1;
    s->salt = cfg->salt;
    if (s->exact)
        return 0;

    s->rows = calloc(s->b, sizeof *s->rows);
    if (!s->rows)
        return hs_error_set(err, HS_ENOMEM, "out of memory for hash tables");
    /* xpow[m] = x^m mod poly for m < 2k - 1. */
    uint32_t xpow[2 * HS_GF_KMAX];
    xpow[0] = 1;
    for (unsigned m = 1; m < 2 * k - 1; m++)
        xpow[m] = hs_gf_mul(&s->gf, xpow[m - 1], 2);
    for (unsigned j = 0; j < s->b; j++) {
        uint32_t basis[HS_GF_KMAX]; /* a_j(x^l) */
        for (unsigned l = 0; l < k; l++) {
            uint32_t v = 0;
            for (unsigned i = 0; i < k; i++)
                v |= ((xpow[l + i] >> j) & 1u) << i;
            basis[l] = v;
        }
        for (unsigned byte = 0; byte < 4; byte++) {
            for (unsigned v = 0; v < 256; v++) {
                uint32_t r = 0;
                for (unsigned bit = 0; bit < 8; bit++) {
                    unsigned l = byte * 8 + bit;
                    if ((v >> bit) & 1 && l < k)
                        r ^= basis[l];
                }
                s->rows[j][byte][v] = r;
            }
        }
    }
    return 0;
}

void hs_scheme_free(hs_scheme *s)
{
    free(s->rows);
    s->rows = NULL;
}

/* splitmix64's finaliser: a bijection on 64 bits with full avalanche. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

#define GOLDEN 0x9e3779b97f4a7c15ull

uint64_t hs_packet_key(uint64_t salt, uint32_t src, uint32_t dst, uint64_t seq)
{
    uint64_t x = mix64(salt + GOLDEN);
    x = mix64(x ^ (((uint64_t)src << 32) | dst));
    return mix64(x ^ seq);
}

uint32_t hs_hash_row(const hs_scheme *s, unsigned j, uint32_t pid)
{
    if (s->exact || j >= s->b)
        return 0;
    return hs__row(s, j, pid & s->gf.mask);
}

uint32_t hs_hash_bits(const hs_scheme *s, uint32_t pid, uint32_t link)
{
    return hs_gf_mul(&s->gf, pid, link) & ((1u << s->b) - 1);
}

uint64_t hs_field_pack(const hs_scheme *s, const hs_field *f)
{
    unsigned vbits = s->exact ? s->k : s->b;
    uint64_t vmask = (1ull << vbits) - 1;
    return ((uint64_t)f->hop & s->hop_ovf) | (((uint64_t)f->bits & vmask) << s->c) |
           ((uint64_t)(f->flag & 1) << (s->c + vbits));
}

int hs_field_unpack(const hs_scheme *s, uint64_t v, hs_field *f)
{
    unsigned vbits = s->exact ? s->k : s->b;
    if (s->field_bits < 64 && (v >> s->field_bits) != 0)
        return HS_EINVAL;
    hs_field g;
    g.hop = (uint8_t)(v & ((1u << s->c) - 1));
    g.bits = (uint32_t)((v >> s->c) & ((1ull << vbits) - 1));
    g.flag = (uint8_t)((v >> (s->c + vbits)) & 1);
    /* Link ID 0 is never a link: a transmitted exact-mode packet has one. */
    if (!hs__field_ok(s, &g))
        return HS_EINVAL;
    *f = g;
    return 0;
}

int hs_mark(const hs_scheme *s, hs_field *f, uint64_t key, uint32_t link, int congested)
{
    if (link == 0 || !hs__in_field(s, link) || !hs__field_ok(s, f))
        return HS_EINVAL;
    if (f->hop == s->hop_ovf)
        return 0;
    unsigned h = f->hop + 1u;
    if (h > s->hop_max) {
        f->hop = (uint8_t)s->hop_ovf;
        return 0;
    }
    f->hop = (uint8_t)h;
    /* Replace the sample with probability 1/h: u*h < 2^64 iff u < 2^64/h.
     * The generator is seeded by the whole 64-bit key, not only the k-bit
     * pid: with small k many packets share a pid, and a choice that is a
     * function of pid alone would correlate with H(pid, .) and bias the
     * estimates (docs/inband.md). */
    uint64_t u = mix64(key ^ (h * GOLDEN));
    if ((uint64_t)(((unsigned __int128)u * h) >> 64) != 0)
        return 0;
    f->bits = s->exact ? link : hs_hash_bits(s, hs_pid(s, key), link);
    f->flag = congested ? 1 : 0;
    return 0;
}
