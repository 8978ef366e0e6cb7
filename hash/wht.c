/* Fast Walsh-Hadamard transform, in place, on 64-bit and 32-bit integers.
 *
 * The shape is the one FFHT (Andoni et al., NIPS 2015) published for
 * floats, done here on integer lanes:
 *   - the lowest log2(lanes) levels inside each 256-bit vector (shuffles);
 *   - the next levels three at a time (radix 8: eight vectors loaded at
 *     stride h, three levels of butterflies in registers, eight stores),
 *     so that each pass over memory does three levels, not one;
 *   - a recursion that transforms the eight sub-blocks of a block first and
 *     then combines them with one radix-8 pass, down to blocks that fit in
 *     L1, so that every level works on data already in some cache.
 * Levels of the WHT commute (it is a tensor product of 2x2 butterflies), so
 * doing them in this order gives the same integers as the textbook order.
 *
 * Arithmetic is done in unsigned lanes: the same bits as signed arithmetic
 * where nothing overflows, and defined wrapping where the caller's values
 * are too large (hash.h says when the result is exact).  Written with
 * GCC's vector extensions, once for AVX2 (256-bit) and once for SSE2
 * (128-bit), chosen at run time. */
#include "hopscope/hash.h"

#include <stddef.h>

/* Vectors are passed by value only between static, inlined functions: the
 * ABI difference gcc warns about cannot reach any caller. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* Leaf blocks: 16 KiB, a third of L1d on the machines we measured (the
 * rest holds the other operand streams and the stack). */
#define WHT_LEAF_BYTES 16384

/* Callers' arrays are only element-aligned: the vector types say so (and
 * may alias the int64_t / int32_t arrays they view), as <immintrin.h>'s
 * __m256i_u does. */
typedef uint64_t v4u64 __attribute__((vector_size(32), aligned(8), may_alias));
typedef uint32_t v8u32 __attribute__((vector_size(32), aligned(4), may_alias));
/* Without AVX2, 128-bit vectors (SSE2, in every x86-64): 256-bit ones
 * would be split by the compiler, and their shuffles done lane by lane. */
typedef uint64_t v2u64 __attribute__((vector_size(16), aligned(8), may_alias));
typedef uint32_t v4u32 __attribute__((vector_size(16), aligned(4), may_alias));

/* One body, instantiated for two lane types.  NAME(x) prefixes the
 * functions; V is the vector type, T its element, LANES its width. */
#define WHT_BODY(NAME, V, INREG, ATTR)                                                  \
    static inline __attribute__((always_inline)) ATTR void NAME##_radix8(V *x, size_t nv,  \
                                                                     size_t h)          \
    {                                                                                   \
        for (size_t base = 0; base < nv; base += 8 * h)                                 \
            for (size_t i = base; i < base + h; i++) {                                  \
                V a0 = x[i], a1 = x[i + h], a2 = x[i + 2 * h], a3 = x[i + 3 * h];      \
                V a4 = x[i + 4 * h], a5 = x[i + 5 * h], a6 = x[i + 6 * h];             \
                V a7 = x[i + 7 * h];                                                    \
                V b0 = a0 + a1, b1 = a0 - a1, b2 = a2 + a3, b3 = a2 - a3;               \
                V b4 = a4 + a5, b5 = a4 - a5, b6 = a6 + a7, b7 = a6 - a7;               \
                V c0 = b0 + b2, c2 = b0 - b2, c1 = b1 + b3, c3 = b1 - b3;               \
                V c4 = b4 + b6, c6 = b4 - b6, c5 = b5 + b7, c7 = b5 - b7;               \
                x[i] = c0 + c4;                                                         \
                x[i + h] = c1 + c5;                                                     \
                x[i + 2 * h] = c2 + c6;                                                 \
                x[i + 3 * h] = c3 + c7;                                                 \
                x[i + 4 * h] = c0 - c4;                                                 \
                x[i + 5 * h] = c1 - c5;                                                 \
                x[i + 6 * h] = c2 - c6;                                                 \
                x[i + 7 * h] = c3 - c7;                                                 \
            }                                                                           \
    }                                                                                   \
    static inline __attribute__((always_inline)) ATTR void NAME##_radix4(V *x, size_t nv,  \
                                                                     size_t h)          \
    {                                                                                   \
        for (size_t base = 0; base < nv; base += 4 * h)                                 \
            for (size_t i = base; i < base + h; i++) {                                  \
                V a0 = x[i], a1 = x[i + h], a2 = x[i + 2 * h], a3 = x[i + 3 * h];      \
                V b0 = a0 + a1, b1 = a0 - a1, b2 = a2 + a3, b3 = a2 - a3;               \
                x[i] = b0 + b2;                                                         \
                x[i + h] = b1 + b3;                                                     \
                x[i + 2 * h] = b0 - b2;                                                 \
                x[i + 3 * h] = b1 - b3;                                                 \
            }                                                                           \
    }                                                                                   \
    static inline __attribute__((always_inline)) ATTR void NAME##_radix2(V *x, size_t nv,  \
                                                                     size_t h)          \
    {                                                                                   \
        for (size_t base = 0; base < nv; base += 2 * h)                                 \
            for (size_t i = base; i < base + h; i++) {                                  \
                V a0 = x[i], a1 = x[i + h];                                             \
                x[i] = a0 + a1;                                                         \
                x[i + h] = a0 - a1;                                                     \
            }                                                                           \
    }                                                                                   \
    /* Levels lo..hi-1 (in vectors: stride 2^lo ... 2^(hi-1)) over nv vectors. */      \
    static inline __attribute__((always_inline)) ATTR void NAME##_levels(                   \
        V *x, size_t nv, unsigned lo, unsigned hi)                                      \
    {                                                                                   \
        unsigned l = lo;                                                                \
        for (; l + 3 <= hi; l += 3)                                                     \
            NAME##_radix8(x, nv, (size_t)1 << l);                                       \
        if (l + 2 == hi)                                                                \
            NAME##_radix4(x, nv, (size_t)1 << l);                                       \
        else if (l + 1 == hi)                                                           \
            NAME##_radix2(x, nv, (size_t)1 << l);                                       \
    }                                                                                   \
    /* Whole transform of 2^logv vectors, recursively. */                              \
    static ATTR void NAME##_rec(V *x, unsigned logv, unsigned leaf)                          \
    {                                                                                   \
        if (logv <= leaf) {                                                             \
            size_t nv = (size_t)1 << logv;                                              \
            for (size_t i = 0; i < nv; i++)                                             \
                x[i] = INREG(x[i]);                                                     \
            NAME##_levels(x, nv, 0, logv);                                              \
            return;                                                                     \
        }                                                                               \
        /* Peel 1-3 top levels so that what remains above the leaf is a             \
         * multiple of three: every pass but the first is then radix 8. */             \
        unsigned top = (logv - leaf) % 3 ? (logv - leaf) % 3 : 3;                       \
        size_t sub = (size_t)1 << (logv - top);                                         \
        for (size_t b = 0; b < ((size_t)1 << top); b++)                                 \
            NAME##_rec(x + b * sub, logv - top, leaf);                                  \
        NAME##_levels(x, (size_t)1 << logv, logv - top, logv);                          \
    }

/* The levels inside one vector: partner = lane ^ 2^l; the lane with bit l
 * clear keeps the sum, the other the difference. */
static inline __attribute__((always_inline)) v4u64 inreg64(v4u64 x)
{
    v4u64 y = __builtin_shuffle(x, (v4u64){1, 0, 3, 2});
    x = __builtin_shuffle(x + y, y - x, (v4u64){0, 5, 2, 7});
    y = __builtin_shuffle(x, (v4u64){2, 3, 0, 1});
    return __builtin_shuffle(x + y, y - x, (v4u64){0, 1, 6, 7});
}

static inline __attribute__((always_inline)) v2u64 inreg64_sse(v2u64 x)
{
    v2u64 y = __builtin_shuffle(x, (v2u64){1, 0});
    return __builtin_shuffle(x + y, y - x, (v2u64){0, 3});
}

static inline __attribute__((always_inline)) v4u32 inreg32_sse(v4u32 x)
{
    v4u32 y = __builtin_shuffle(x, (v4u32){1, 0, 3, 2});
    x = __builtin_shuffle(x + y, y - x, (v4u32){0, 5, 2, 7});
    y = __builtin_shuffle(x, (v4u32){2, 3, 0, 1});
    return __builtin_shuffle(x + y, y - x, (v4u32){0, 1, 6, 7});
}

static inline __attribute__((always_inline)) v8u32 inreg32(v8u32 x)
{
    v8u32 y = __builtin_shuffle(x, (v8u32){1, 0, 3, 2, 5, 4, 7, 6});
    x = __builtin_shuffle(x + y, y - x, (v8u32){0, 9, 2, 11, 4, 13, 6, 15});
    y = __builtin_shuffle(x, (v8u32){2, 3, 0, 1, 6, 7, 4, 5});
    x = __builtin_shuffle(x + y, y - x, (v8u32){0, 1, 10, 11, 4, 5, 14, 15});
    y = __builtin_shuffle(x, (v8u32){4, 5, 6, 7, 0, 1, 2, 3});
    return __builtin_shuffle(x + y, y - x, (v8u32){0, 1, 2, 3, 12, 13, 14, 15});
}

/* Each body twice: for AVX2, and for the baseline x86-64 (SSE2) that any
 * CPU runs, on 128-bit vectors; hs_wht picks one at run time. */
#define AVX2 __attribute__((target("avx2")))
#define BASE
WHT_BODY(w64_avx2, v4u64, inreg64, AVX2)
WHT_BODY(w64_base, v2u64, inreg64_sse, BASE)
WHT_BODY(w32_avx2, v8u32, inreg32, AVX2)
WHT_BODY(w32_base, v4u32, inreg32_sse, BASE)

static int have_avx2(void)
{
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return cached;
}

/* Scalar transform for fewer entries than one vector holds. */
#define SMALL_WHT(T, v, n)                                  \
    for (size_t h = 1; h < (n); h *= 2)                     \
        for (size_t i = 0; i < (n); i += 2 * h)             \
            for (size_t j = i; j < i + h; j++) {            \
                T x_ = (v)[j], y_ = (v)[j + h];             \
                (v)[j] = x_ + y_;                           \
                (v)[j + h] = x_ - y_;                       \
            }

/* log2 of the vectors in one leaf block. */
#define LEAF(V) ((unsigned)__builtin_ctz(WHT_LEAF_BYTES / sizeof(V)))

void hs_wht(int64_t *v, unsigned logn)
{
    uint64_t *u = (uint64_t *)v;
    if (logn < 2) {
        SMALL_WHT(uint64_t, u, (size_t)1 << logn);
        return;
    }
    if (have_avx2())
        w64_avx2_rec((v4u64 *)u, logn - 2, LEAF(v4u64));
    else
        w64_base_rec((v2u64 *)u, logn - 1, LEAF(v2u64));
}

void hs_wht32(int32_t *v, unsigned logn)
{
    uint32_t *u = (uint32_t *)v;
    if (logn < 3) {
        SMALL_WHT(uint32_t, u, (size_t)1 << logn);
        return;
    }
    if (have_avx2())
        w32_avx2_rec((v8u32 *)u, logn - 3, LEAF(v8u32));
    else
        w32_base_rec((v4u32 *)u, logn - 2, LEAF(v4u32));
}
