/* GF(2^k) arithmetic for 4 <= k <= 32.
 *
 * Elements are polynomials over GF(2) of degree < k, stored as the low k
 * bits of a uint32_t.  Products are reduced modulo a fixed irreducible
 * polynomial per k (the lowest-weight one with the smallest middle
 * exponents; tests/unit/test_gf.c proves each irreducible).  Two
 * multipliers: PCLMULQDQ with Barrett reduction (exact for polynomials, no
 * correction step), and a portable shift-and-add fallback.  They must agree
 * bit for bit, also on operands >= 2^k: both use only the low k bits. */
#include "hopscope/hash.h"

#include <immintrin.h>

/* Bit i of poly_table[k] is the coefficient of x^i, x^k included. */
static const uint64_t poly_table[HS_GF_KMAX + 1] = {
    [4]  = 0x13,        /* x^4+x+1 */
    [5]  = 0x25,        /* x^5+x^2+1 */
    [6]  = 0x43,        /* x^6+x+1 */
    [7]  = 0x83,        /* x^7+x+1 */
    [8]  = 0x11b,       /* x^8+x^4+x^3+x+1 */
    [9]  = 0x203,       /* x^9+x+1 */
    [10] = 0x409,       /* x^10+x^3+1 */
    [11] = 0x805,       /* x^11+x^2+1 */
    [12] = 0x1009,      /* x^12+x^3+1 */
    [13] = 0x201b,      /* x^13+x^4+x^3+x+1 */
    [14] = 0x4021,      /* x^14+x^5+1 */
    [15] = 0x8003,      /* x^15+x+1 */
    [16] = 0x1002b,     /* x^16+x^5+x^3+x+1 */
    [17] = 0x20009,     /* x^17+x^3+1 */
    [18] = 0x40009,     /* x^18+x^3+1 */
    [19] = 0x80027,     /* x^19+x^5+x^2+x+1 */
    [20] = 0x100009,    /* x^20+x^3+1 */
    [21] = 0x200005,    /* x^21+x^2+1 */
    [22] = 0x400003,    /* x^22+x+1 */
    [23] = 0x800021,    /* x^23+x^5+1 */
    [24] = 0x100001b,   /* x^24+x^4+x^3+x+1 */
    [25] = 0x2000009,   /* x^25+x^3+1 */
    [26] = 0x400001b,   /* x^26+x^4+x^3+x+1 */
    [27] = 0x8000027,   /* x^27+x^5+x^2+x+1 */
    [28] = 0x10000003,  /* x^28+x+1 */
    [29] = 0x20000005,  /* x^29+x^2+1 */
    [30] = 0x40000003,  /* x^30+x+1 */
    [31] = 0x80000009,  /* x^31+x^3+1 */
    [32] = 0x10000008d, /* x^32+x^7+x^3+x^2+1 */
};

uint64_t hs_gf_poly(unsigned k)
{
    return (k >= HS_GF_KMIN && k <= HS_GF_KMAX) ? poly_table[k] : 0;
}

int hs_cpu_has_clmul(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") ? 1 : 0;
}

/* floor(x^(2k) / poly) by long division; x^64 needs the 128-bit type. */
static uint64_t barrett_constant(uint64_t poly, unsigned k)
{
    unsigned __int128 rem = (unsigned __int128)1 << (2 * k);
    uint64_t q = 0;
    for (int i = (int)k; i >= 0; i--) {
        if ((rem >> (k + (unsigned)i)) & 1) {
            rem ^= (unsigned __int128)poly << i;
            q |= 1ull << i;
        }
    }
    return q;
}

int hs_gf_init(hs_gf *gf, unsigned k)
{
    uint64_t poly = hs_gf_poly(k);
    if (!poly)
        return HS_EINVAL;
    gf->k = k;
    gf->mask = (uint32_t)((1ull << k) - 1);
    gf->poly = poly;
    gf->barrett = barrett_constant(poly, k);
    gf->clmul = hs_cpu_has_clmul();
    return 0;
}

uint32_t hs_gf_mul_portable(const hs_gf *gf, uint32_t a, uint32_t b)
{
    uint64_t p = 0;
    uint64_t aa = a & gf->mask;
    for (unsigned i = 0; i < gf->k; i++)
        p ^= (aa << i) & (0 - (uint64_t)((b >> i) & 1));
    for (int i = 2 * (int)gf->k - 2; i >= (int)gf->k; i--)
        p ^= (gf->poly << (i - (int)gf->k)) & (0 - ((p >> i) & 1));
    return (uint32_t)p;
}

__attribute__((target("pclmul,sse2")))
static inline uint64_t clmul64(uint64_t a, uint64_t b)
{
    __m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a),
                                     _mm_cvtsi64_si128((long long)b), 0x00);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

/* Both operands have degree < k <= 32, so every product below has degree
 * <= 62 and the low 64 bits of the carry-less product are all of it. */
__attribute__((target("pclmul,sse2")))
uint32_t hs_gf_mul_clmul(const hs_gf *gf, uint32_t a, uint32_t b)
{
    uint64_t p = clmul64(a & gf->mask, b & gf->mask);
    uint64_t q = clmul64(p >> gf->k, gf->barrett) >> gf->k;
    return (uint32_t)((p ^ clmul64(q, gf->poly)) & gf->mask);
}

uint32_t hs_gf_mul(const hs_gf *gf, uint32_t a, uint32_t b)
{
    return gf->clmul ? hs_gf_mul_clmul(gf, a, b) : hs_gf_mul_portable(gf, a, b);
}

uint32_t hs_gf_pow(const hs_gf *gf, uint32_t a, uint64_t e)
{
    uint32_t r = 1;
    while (e) {
        if (e & 1)
            r = hs_gf_mul(gf, r, a);
        a = hs_gf_mul(gf, a, a);
        e >>= 1;
    }
    return r;
}

uint32_t hs_gf_inv(const hs_gf *gf, uint32_t a)
{
    /* a^(2^k - 2) = a^-1 in the multiplicative group of order 2^k - 1. */
    return a ? hs_gf_pow(gf, a, (1ull << gf->k) - 2) : 0;
}
