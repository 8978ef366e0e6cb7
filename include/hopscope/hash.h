/* hopscope/hash.h — GF(2^k) arithmetic, the in-band field codec, the two
 * hardware steps (switch marking, NIC counter update) and the decoders.
 *
 * This is the normative in-band scheme of DESIGN.md in code.  fabric/ calls
 * hs_mark() at every transmission of a monitored packet and
 * hs_counters_update() at the destination NIC; analyzer/ calls the decoders.
 * Nothing else in hopscope re-implements any of it.
 *
 * Notation: k = link-ID width, c = hop-counter bits, b = hash bits,
 * pid = k-bit packet ID, d = a link ID in 1..2^k-1.
 *   H_j(pid, d) = bit j of pid*d in GF(2^k), j = 0..b-1
 *              = <a_j(pid), d>  (GF(2) inner product; a_j is linear in pid)
 *
 * Estimators (per link d, summed over sampled records r):
 *   S(d) = 1/b sum_r sum_j h_r (-1)^(x_rj + H_j(pid_r, d))   E = packets on d
 *   C(d) = the same over flagged records                  E = congested at d
 * and an unbiased variance estimate from the same records, using the
 * second-moment sums Q(d) = 1/b sum_r sum_j h_r^2 (-1)^(...):
 *   Var S = H2/b + (1 - 1/b) Q(d) - S(d),   H2 = sum_r h_r^2
 * (derivation in docs/inband.md).  Exact mode (the record stores the link ID
 * itself) is the b -> infinity limit: S(d) = sum_r h_r [x_r = d], Var = Q - S.
 *
 * Preconditions: functions returning int check what they are given (packet
 * IDs and link IDs must be < 2^k, fields must be ones the codec can produce,
 * counters must have the scheme's shape) and return HS_EINVAL, or
 * HS_EOVERFLOW when a sum would not fit its integer, without changing any
 * output.  Functions returning a value (hs_gf_mul, hs_hash_bits, ...) cannot
 * report errors: they use the low k bits of their operands, as stated below.
 */
#ifndef HOPSCOPE_HASH_H
#define HOPSCOPE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include "hopscope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- GF(2^k) ------------------------------------------------------------ */

#define HS_GF_KMIN 4
#define HS_GF_KMAX 32

typedef struct hs_gf {
    unsigned k;
    uint32_t mask;     /* 2^k - 1 */
    uint64_t poly;     /* irreducible polynomial including the x^k term */
    uint64_t barrett;  /* floor(x^(2k) / poly), for clmul reduction */
    int      clmul;    /* 1 if hs_gf_mul uses PCLMULQDQ */
} hs_gf;

/* The fixed irreducible polynomial for GF(2^k) (bit i = coefficient of x^i,
 * x^k included), or 0 if k is outside 4..32.  Table in docs/inband.md. */
uint64_t hs_gf_poly(unsigned k);
/* HS_EINVAL if k is outside 4..32.  Uses PCLMULQDQ when the CPU has it. */
int hs_gf_init(hs_gf *gf, unsigned k);
/* Product of two field elements.  Operands are field elements (< 2^k);
 * both implementations use only their low k bits, so they agree bit for bit
 * on any input, whatever the CPU. */
uint32_t hs_gf_mul(const hs_gf *gf, uint32_t a, uint32_t b);
/* The two implementations, for tests and benchmarks.  hs_gf_mul_clmul must
 * only be called when hs_cpu_has_clmul() is true. */
uint32_t hs_gf_mul_portable(const hs_gf *gf, uint32_t a, uint32_t b);
uint32_t hs_gf_mul_clmul(const hs_gf *gf, uint32_t a, uint32_t b);
int hs_cpu_has_clmul(void);
uint32_t hs_gf_pow(const hs_gf *gf, uint32_t a, uint64_t e);
/* Multiplicative inverse (a^(2^k-2)); 0 for a = 0. */
uint32_t hs_gf_inv(const hs_gf *gf, uint32_t a);

/* ---- scheme parameters ------------------------------------------------- */

#define HS_HOP_BITS_MIN   2
#define HS_HOP_BITS_MAX   8
#define HS_HASH_BITS_MIN  1
#define HS_HASH_BITS_MAX  8
#define HS_HOP_BITS_DEFAULT  4
#define HS_HASH_BITS_DEFAULT 1
/* Dense counters and the blind decoder need 2^k entries per array. */
#define HS_COUNTERS_KMAX  26

typedef struct hs_scheme_cfg {
    unsigned k;         /* link-ID width; 0 = smallest with 2^k > nlinks */
    uint64_t nlinks;    /* links carry IDs 1..nlinks; must be < 2^k */
    unsigned hop_bits;  /* c, 2..8 (default 4) */
    unsigned hash_bits; /* b, 1..8 (default 1); ignored in exact mode */
    int      exact;     /* store the whole k-bit link ID (reference mode) */
    uint64_t salt;      /* network-wide constant mixed into packet keys */
} hs_scheme_cfg;

typedef struct hs_scheme {
    hs_gf    gf;
    unsigned k, c, b;   /* in exact mode b is 0 */
    int      exact;
    uint32_t hop_max;   /* largest valid hop count: 2^c - 2 */
    uint32_t hop_ovf;   /* hop value meaning "overflowed": 2^c - 1 */
    unsigned field_bits;/* c + b + 1, or c + k + 1 in exact mode */
    uint64_t salt;
    uint32_t (*rows)[4][256]; /* a_j(pid) byte tables, b of them; NULL if exact */
} hs_scheme;

/* Defaults: k = 0 (auto), c = 4, b = 1, hashed, salt 0, nlinks 0. */
void hs_scheme_cfg_default(hs_scheme_cfg *cfg);
/* Smallest k >= 4 with 2^k > nlinks, or 0 if nlinks > 2^32 - 1. */
unsigned hs_link_bits(uint64_t nlinks);
/* Validates cfg and builds the tables.  Errors (err says which parameter):
 * HS_EINVAL for c, b or k outside their ranges or b > k, HS_ERANGE when k is too
 * small for nlinks, HS_ENOMEM.  On failure *s needs no hs_scheme_free. */
int hs_scheme_init(hs_scheme *s, const hs_scheme_cfg *cfg, hs_error *err);
/* Smallest hop-counter width c (HS_HOP_BITS_MIN..MAX) whose counter holds a
 * route of `links` transmissions without overflowing (2^c - 2 >= links), or
 * 0 when even HS_HOP_BITS_MAX cannot. */
unsigned hs_hop_bits_fit(uint64_t links);
void hs_scheme_free(hs_scheme *s);

/* ---- packet identity --------------------------------------------------- */

/* 64-bit key of a packet from the header fields the destination sees,
 * through a fixed mixer (docs/inband.md).  The reservoir generator is seeded
 * from the whole key; the pid is its top k bits. */
uint64_t hs_packet_key(uint64_t salt, uint32_t src, uint32_t dst, uint64_t seq);
static inline uint32_t hs_pid(const hs_scheme *s, uint64_t key)
{
    return (uint32_t)(key >> (64 - s->k));
}
/* The b hash bits H_0..H_{b-1}(pid, link), bit j at position j (0 in exact
 * mode).  pid and link are reduced to their low k bits. */
uint32_t hs_hash_bits(const hs_scheme *s, uint32_t pid, uint32_t link);
/* a_j(pid): the k-bit vector with H_j(pid, d) = parity(a_j(pid) & d).
 * pid is reduced to its low k bits; 0 for j >= b and in exact mode. */
uint32_t hs_hash_row(const hs_scheme *s, unsigned j, uint32_t pid);

/* ---- the in-band field ------------------------------------------------- */

typedef struct hs_field {
    uint8_t  hop;   /* transmissions so far; hop_ovf once overflowed */
    uint8_t  flag;  /* congestion flag of the sampled link */
    uint32_t bits;  /* H(pid, sampled link), or the link ID in exact mode */
} hs_field;

static inline void hs_field_init(hs_field *f)
{
    f->hop = 0;
    f->flag = 0;
    f->bits = 0;
}
static inline int hs_field_overflowed(const hs_scheme *s, const hs_field *f)
{
    return f->hop == s->hop_ovf;
}
/* Layout (LSB first): hop (c bits) | bits (b, or k in exact mode) | flag.
 * Each part is truncated to its width, so a valid field round-trips through
 * hs_field_unpack. */
uint64_t hs_field_pack(const hs_scheme *s, const hs_field *f);
/* HS_EINVAL if v has bits above field_bits, or an exact-mode link ID of 0
 * with a counted hop value; *f is then unchanged. */
int hs_field_unpack(const hs_scheme *s, uint64_t v, hs_field *f);

/* The marking step, done when a monitored packet is transmitted on `link`
 * (by the source NIC or a switch output port): h <- h+1; with probability
 * 1/h (generator seeded by key and h) the field takes H(pid, link) and the
 * flag takes `congested`.  Past hop_max the field becomes overflowed and
 * stays so.  HS_EINVAL (f unchanged) if link is 0 or >= 2^k, or *f is not a
 * field of this scheme (hop above 2^c - 1, flag above 1, bits too wide). */
int hs_mark(const hs_scheme *s, hs_field *f, uint64_t key, uint32_t link, int congested);

/* ---- NIC counters ------------------------------------------------------ */

/* Dense counters over all 2^k values, j-major (t[j * n + a]).
 * t: h*(-1)^x_j at a_j(pid); c: the same for flagged packets;
 * t2/c2: h^2-weighted twins, only when b > 1 or exact (else NULL). */
typedef struct hs_counters {
    unsigned k, b;     /* b = 1 in exact mode: one array indexed by link ID */
    int      exact;
    uint32_t n;        /* 2^k */
    int64_t *t, *c, *t2, *c2;
    uint64_t packets;  /* counted (not overflowed) */
    uint64_t flagged;
    uint64_t overflow; /* excluded: hop counter overflowed */
    uint64_t unmarked; /* excluded: never transmitted (hop 0) */
    int64_t  sum_h2;       /* sum of h^2 over counted packets */
    int64_t  sum_h2_flag;  /* the same over flagged packets */
} hs_counters;

/* HS_ENOTSUP if k > HS_COUNTERS_KMAX, HS_ENOMEM. */
int hs_counters_init(hs_counters *ct, const hs_scheme *s, hs_error *err);
void hs_counters_free(hs_counters *ct);
void hs_counters_reset(hs_counters *ct);
/* The NIC's O(1) update for one received monitored packet.  HS_EINVAL if
 * pid >= 2^k, *f is not a field of s, or ct was not made for s;
 * HS_EOVERFLOW if a counter or total would leave its integer type.  On
 * error ct is unchanged. */
int hs_counters_update(hs_counters *ct, const hs_scheme *s, uint32_t pid, const hs_field *f);
/* A hint, no effect on any value: fetches the counter cells the update of
 * (pid, *f) will touch into the cache.  With 2^k counters beyond the
 * caches each update is a miss per array; a caller that knows a packet
 * before it must be counted (a NIC model, a batch) can overlap those
 * misses with other work.  Does nothing for invalid arguments. */
void hs_counters_prefetch(const hs_counters *ct, const hs_scheme *s, uint32_t pid,
                          const hs_field *f);
/* dst += src (the transform is linear, so NICs' counters add).
 * HS_EINVAL if their shapes differ, HS_EOVERFLOW if a sum would not fit;
 * dst is then unchanged. */
int hs_counters_add(hs_counters *dst, const hs_counters *src);
/* Bytes held by the arrays. */
size_t hs_counters_bytes(const hs_counters *ct);

/* ---- decoders ---------------------------------------------------------- */

/* One sampled record as the analyzer sees it. */
typedef struct hs_sample {
    uint32_t pid;
    hs_field f;
} hs_sample;

/* Integer sums for one link, over records and the b hash bits, so that
 * decoders can be compared exactly.  See the estimators at the top. */
typedef struct hs_linksum {
    int64_t s;    /* b * S(d)  (exact mode: S(d)) */
    int64_t c;    /* b * C(d) */
    int64_t q;    /* b * Q(d), second moment; 0 when b == 1 */
    int64_t qc;   /* flagged twin of q */
    int64_t h2;   /* sum of h^2 over the records that count for d */
    int64_t h2c;  /* the same over flagged records */
    int64_t npath;/* route-aware with exact paths: records whose path has d */
} hs_linksum;

typedef struct hs_totals {
    uint64_t packets, flagged, overflow, unmarked;
    int64_t  sum_h2, sum_h2_flag;
} hs_totals;

/* Fast Walsh-Hadamard transform in place, unnormalised:
 * v'[d] = sum_a v[a] (-1)^popcount(a & d), over 2^logn entries.  Exact
 * when sum_a |v[a]| <= INT64_MAX; beyond that the values wrap modulo 2^64
 * (defined behaviour, but not the transform: check first). */
void hs_wht(int64_t *v, unsigned logn);
/* The same on 32-bit lanes (twice as many per vector, half the memory
 * traffic): exact when sum_a |v[a]| <= INT32_MAX, else wraps modulo 2^32. */
void hs_wht32(int32_t *v, unsigned logn);

/* Reference decoder: for each link in links[0..nlinks), sums over all
 * records with direct GF multiplications.  O(n * nlinks * b).  out[i] is
 * for links[i] (any value 0..2^k-1; 0 is not a link but has a defined sum,
 * as in hs_decode_fast); tot receives the record totals.  HS_EINVAL if a
 * link ID or pid is >= 2^k or a field is not one of s; HS_EOVERFLOW if n is
 * so large that a sum could overflow.  On error out and tot are unchanged. */
int hs_decode_naive(const hs_scheme *s, const hs_sample *smp, size_t n,
                    const uint32_t *links, size_t nlinks,
                    hs_linksum *out, hs_totals *tot);

/* Histogram of records into counters (what the NICs would have counted),
 * added to what ct holds; prefetches the cells of records 32 ahead.
 * HS_EINVAL if ct was not made for s (k, mode, b) or a record is invalid
 * (as for hs_counters_update; this wins over an overflow); HS_EOVERFLOW if
 * a counter would overflow.  On error ct is unchanged. */
int hs_counters_from_samples(hs_counters *ct, const hs_scheme *s,
                             const hs_sample *smp, size_t n);

/* Blind fast decoder: Walsh-Hadamard transform of the counters.  Fills
 * out[d] for d in 0..nout-1 (nout <= 2^k; out[0] is not a link).  Equals
 * hs_decode_naive exactly.  HS_EINVAL if ct is not a counters shape or
 * nout > 2^k; HS_EOVERFLOW if an array's sum of |counter| exceeds INT64_MAX
 * (a transform value might then not fit); HS_ENOMEM.  On error out and tot
 * are unchanged. */
int hs_decode_fast(const hs_counters *ct, hs_linksum *out, uint32_t nout,
                   hs_totals *tot);

/* Route-aware decoder: record r contributes only to its candidate links
 * cand[cand_off[r] .. cand_off[r+1]) (the links its packet could have
 * crossed; IDs < nout).  With paths_exact, each list is the packet's actual
 * path, so traffic is counted exactly (npath) and only the congested count
 * is estimated.  out[0..nout) is zeroed first.  HS_EINVAL if a pid or
 * candidate is >= 2^k, a field is not one of s, or cand_off decreases;
 * otherwise HS_ERANGE if a candidate is 0 or >= nout; HS_EOVERFLOW as for
 * hs_decode_naive.  Everything is checked first: on error out and tot are
 * unchanged. */
int hs_decode_route(const hs_scheme *s, const hs_sample *smp, size_t n,
                    const uint32_t *cand_off, const uint32_t *cand,
                    int paths_exact, hs_linksum *out, uint32_t nout,
                    hs_totals *tot);

/* Estimates with standard errors from one link's sums. */
typedef struct hs_estimate {
    double traffic, traffic_se;
    double congested, congested_se;
    double cf, cf_se;   /* congested fraction C/S and its delta-method SE */
    int    cf_valid;    /* 0 when the traffic estimate is <= 0 */
    double traffic_se_decode; /* the part of traffic_se from decoding the
                                 in-band bits, without the sampling term of
                                 hs_estimate_sampled (= traffic_se at p = 1) */
    double cov;         /* Cov(traffic, congested) of the estimates (0 when
                           unknown: conservative for tests of C - t*T) */
} hs_estimate;

/* traffic_exact: the sums come from hs_decode_route with paths_exact. */
void hs_estimate_from_sums(const hs_scheme *s, const hs_linksum *ls,
                           int traffic_exact, hs_estimate *e);
/* The same when each message carried the field only with probability p in
 * (0, 1] (independently, whole messages): traffic and congested counts are
 * divided by p (unbiased for all packets), and the variances add the
 * sampling variance, with msg_packets the packet-weighted mean number of
 * packets per message (1 when every message is one packet).  p = 1 is
 * hs_estimate_from_sums. */
void hs_estimate_sampled(const hs_scheme *s, const hs_linksum *ls, int traffic_exact,
                         double p, double msg_packets, hs_estimate *e);

#ifdef __cplusplus
}
#endif
#endif
