/* Decoders: naive reference, blind fast (Walsh-Hadamard), route-aware; and
 * the estimates with standard errors computed from the same sums.
 *
 * All decoders produce the same integer sums (hs_linksum), so the naive and
 * the fast decoder can be compared exactly, integer for integer. */
#include "hopscope/hash.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

static int counts(const hs_scheme *s, const hs_field *f)
{
    return f->hop != 0 && f->hop != s->hop_ovf;
}

static void totals_add(hs_totals *tot, const hs_scheme *s, const hs_field *f)
{
    if (f->hop == s->hop_ovf) {
        tot->overflow++;
        return;
    }
    if (f->hop == 0) {
        tot->unmarked++;
        return;
    }
    int64_t h2 = (int64_t)f->hop * f->hop;
    tot->packets++;
    tot->sum_h2 += h2;
    if (f->flag) {
        tot->flagged++;
        tot->sum_h2_flag += h2;
    }
}

/* sum_j (-1)^(x_j + H_j(pid, d)) for a record, times nothing: in
 * [-b, b].  Exact mode: 1 if the stored link is d, else 0. */
static inline int64_t record_sign_sum(const hs_scheme *s, const hs_sample *r, uint32_t d)
{
    if (s->exact)
        return r->f.bits == d;
    uint32_t z = (r->f.bits ^ hs_hash_bits(s, r->pid, d)) & ((1u << s->b) - 1);
    return (int64_t)s->b - 2 * __builtin_popcount(z);
}

static inline void accumulate(const hs_scheme *s, hs_linksum *o, const hs_sample *r, uint32_t d)
{
    int64_t h = r->f.hop;
    int64_t w = h * record_sign_sum(s, r, d);
    int second = s->exact || s->b > 1;
    o->s += w;
    if (second)
        o->q += h * w;
    if (r->f.flag) {
        o->c += w;
        if (second)
            o->qc += h * w;
    }
}

/* ---- naive reference ------------------------------------------------------ */

int hs_decode_naive(const hs_scheme *s, const hs_sample *smp, size_t n,
                    const uint32_t *links, size_t nlinks,
                    hs_linksum *out, hs_totals *tot)
{
    for (size_t i = 0; i < nlinks; i++)
        if (!hs__in_field(s, links[i]))
            return HS_EINVAL;
    for (size_t r = 0; r < n; r++)
        if (!hs__sample_ok(s, &smp[r]))
            return HS_EINVAL;
    if (!hs__records_fit(s, n))
        return HS_EOVERFLOW;
    hs_totals t = {0};
    for (size_t r = 0; r < n; r++)
        totals_add(&t, s, &smp[r].f);
    for (size_t i = 0; i < nlinks; i++) {
        hs_linksum o = {0};
        for (size_t r = 0; r < n; r++)
            if (counts(s, &smp[r].f))
                accumulate(s, &o, &smp[r], links[i]);
        o.h2 = t.sum_h2;
        o.h2c = t.sum_h2_flag;
        out[i] = o;
    }
    if (tot)
        *tot = t;
    return 0;
}

/* ---- blind fast decoder ----------------------------------------------------- */

/* out[d].<field> += sum_j WHT(src_j)[d] for d < nout, using work (room
 * for n int64).  narrow: every value of the transforms fits in int32 (see
 * kind_l1), so they run on 32-bit lanes: half the memory traffic, twice
 * the lanes per vector, the same integers. */
static void transform_into(const hs_counters *ct, const int64_t *src, void *work, int narrow,
                           hs_linksum *out, uint32_t nout, size_t field_off)
{
    for (unsigned j = 0; j < ct->b; j++) {
        const int64_t *a = src + (size_t)j * ct->n;
        if (narrow) {
            int32_t *w = work;
            for (uint32_t i = 0; i < ct->n; i++)
                w[i] = (int32_t)a[i];
            hs_wht32(w, ct->k);
            for (uint32_t d = 0; d < nout; d++)
                *(int64_t *)((char *)&out[d] + field_off) += w[d];
        } else {
            int64_t *w = work;
            memcpy(w, a, (size_t)ct->n * sizeof *w);
            hs_wht(w, ct->k);
            for (uint32_t d = 0; d < nout; d++)
                *(int64_t *)((char *)&out[d] + field_off) += w[d];
        }
    }
}

/* sum_i |v[i]|, exactly: |v| < 2^64 is split into 32-bit halves so that
 * neither partial sum can wrap for len < 2^31. */
static unsigned __int128 abs_sum(const int64_t *v, size_t len)
{
    uint64_t lo = 0, hi = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t x = (uint64_t)v[i], m = 0 - (x >> 63);
        uint64_t a = (x ^ m) - m;
        lo += a & 0xffffffffu;
        hi += a >> 32;
    }
    return ((unsigned __int128)hi << 32) + lo;
}

/* Every butterfly of the transform, and every output, is a signed sum of
 * the inputs, so |value| <= sum |input|.  Summed over the b arrays that add
 * into one output field, this bounds everything the decoder computes for
 * that field: <= INT64_MAX means nothing overflows, <= INT32_MAX that
 * 32-bit lanes suffice. */
static unsigned __int128 kind_l1(const hs_counters *ct, const int64_t *src)
{
    unsigned __int128 total = 0;
    for (unsigned j = 0; j < ct->b; j++)
        total += abs_sum(src + (size_t)j * ct->n, ct->n);
    return total;
}

int hs_decode_fast(const hs_counters *ct, hs_linksum *out, uint32_t nout, hs_totals *tot)
{
    if (!hs__counters_shape_ok(ct) || nout > ct->n)
        return HS_EINVAL;
    const int64_t *src[4] = {ct->t, ct->c, ct->t2, ct->c2};
    const size_t field[4] = {offsetof(hs_linksum, s), offsetof(hs_linksum, c),
                             offsetof(hs_linksum, q), offsetof(hs_linksum, qc)};
    int nkind = ct->t2 ? 4 : 2, narrow[4] = {0};
    int64_t *work = NULL;
    if (!ct->exact) {
        for (int x = 0; x < nkind; x++) {
            unsigned __int128 l1 = kind_l1(ct, src[x]);
            if (l1 > (unsigned __int128)INT64_MAX)
                return HS_EOVERFLOW;
            narrow[x] = l1 <= INT32_MAX;
        }
        work = malloc((size_t)ct->n * sizeof *work);
        if (!work)
            return HS_ENOMEM;
    }
    memset(out, 0, (size_t)nout * sizeof *out);
    if (ct->exact) {
        for (uint32_t d = 0; d < nout; d++) {
            out[d].s = ct->t[d];
            out[d].c = ct->c[d];
            out[d].q = ct->t2[d];
            out[d].qc = ct->c2[d];
        }
    } else {
        for (int x = 0; x < nkind; x++)
            transform_into(ct, src[x], work, narrow[x], out, nout, field[x]);
        free(work);
    }
    for (uint32_t d = 0; d < nout; d++) {
        out[d].h2 = ct->sum_h2;
        out[d].h2c = ct->sum_h2_flag;
    }
    if (tot) {
        tot->packets = ct->packets;
        tot->flagged = ct->flagged;
        tot->overflow = ct->overflow;
        tot->unmarked = ct->unmarked;
        tot->sum_h2 = ct->sum_h2;
        tot->sum_h2_flag = ct->sum_h2_flag;
    }
    return 0;
}

/* ---- route-aware decoder ---------------------------------------------------- */

int hs_decode_route(const hs_scheme *s, const hs_sample *smp, size_t n,
                    const uint32_t *cand_off, const uint32_t *cand,
                    int paths_exact, hs_linksum *out, uint32_t nout,
                    hs_totals *tot)
{
    /* Everything is checked before out is touched; an invalid argument is
     * reported before a candidate out of range. */
    for (size_t r = 0; r < n; r++)
        if (!hs__sample_ok(s, &smp[r]) || cand_off[r] > cand_off[r + 1])
            return HS_EINVAL;
    int range = 0;
    for (size_t r = 0; r < n; r++) {
        for (uint32_t i = cand_off[r]; i < cand_off[r + 1]; i++) {
            if (!hs__in_field(s, cand[i]))
                return HS_EINVAL;
            range |= cand[i] == 0 || cand[i] >= nout;
        }
    }
    if (range)
        return HS_ERANGE;
    if (!hs__records_fit(s, n))
        return HS_EOVERFLOW;
    hs_totals t = {0};
    memset(out, 0, (size_t)nout * sizeof *out);
    for (size_t r = 0; r < n; r++) {
        const hs_sample *rec = &smp[r];
        totals_add(&t, s, &rec->f);
        if (!counts(s, &rec->f))
            continue;
        int64_t h2 = (int64_t)rec->f.hop * rec->f.hop;
        for (uint32_t i = cand_off[r]; i < cand_off[r + 1]; i++) {
            uint32_t d = cand[i];
            hs_linksum *o = &out[d];
            accumulate(s, o, rec, d);
            o->h2 += h2;
            if (rec->f.flag)
                o->h2c += h2;
            if (paths_exact)
                o->npath++;
        }
    }
    if (tot)
        *tot = t;
    return 0;
}

/* ---- estimates -------------------------------------------------------------- */

void hs_estimate_from_sums(const hs_scheme *s, const hs_linksum *ls,
                           int traffic_exact, hs_estimate *e)
{
    hs_estimate_sampled(s, ls, traffic_exact, 1.0, 1.0, e);
}

void hs_estimate_sampled(const hs_scheme *s, const hs_linksum *ls, int traffic_exact,
                         double p, double msg_packets, hs_estimate *e)
{
    /* Var S = alpha H2 + beta Q - S with alpha = 1/b, beta = 1 - 1/b for
     * hashed fields and alpha = 0, beta = 1 in exact mode (docs/inband.md). */
    double scale = s->exact ? 1.0 : (double)s->b;
    double alpha = s->exact ? 0.0 : 1.0 / s->b;
    double beta = 1.0 - alpha;
    double S = ls->s / scale, C = ls->c / scale;
    double Q = ls->q / scale, QC = ls->qc / scale;
    double varS = alpha * (double)ls->h2 + beta * Q - S;
    double varC = alpha * (double)ls->h2c + beta * QC - C;
    /* Cov(S, C) = Var C per record, because flag^2 = flag. */
    double cov = varC;
    if (traffic_exact) {
        S = (double)ls->npath;
        varS = 0;
        cov = 0;
    }
    if (varS < 0)
        varS = 0;
    if (varC < 0)
        varC = 0;
    double varS_decode = varS;
    if (p < 1) {
        /* Horvitz-Thompson: each message is in the sample with probability
         * p, so S/p is unbiased for all packets.  Var = E[Var(.|sample)]
         * + Var(E[.|sample]): the in-band part / p^2, plus the sampling
         * part (1-p)/p sum_m T_m^2 over messages m with T_m of their
         * packets on d, estimated by (1-p)/p^2 sum over sampled messages;
         * T_m^2 = n T_m when all n packets of a message cross d (one
         * path), which msg_packets (packet-weighted mean n) stands for.
         * C and Cov(S, C) alike with the congested count (docs/inband.md). */
        double f = (1 - p) / (p * p) * msg_packets;
        double sp = f * (S > 0 ? S : 0), cp = f * (C > 0 ? C : 0);
        varS_decode = varS / (p * p);
        varS = varS_decode + sp;
        varC = varC / (p * p) + cp;
        cov = cov / (p * p) + cp;
        S /= p;
        C /= p;
    }
    e->traffic = S;
    e->traffic_se = sqrt(varS);
    e->traffic_se_decode = sqrt(varS_decode);
    e->congested = C;
    e->congested_se = sqrt(varC);
    e->cov = cov;
    if (S > 0) {
        double cf = C / S;
        double v = (varC - 2 * cf * cov + cf * cf * varS) / (S * S);
        e->cf = cf;
        e->cf_se = v > 0 ? sqrt(v) : 0;
        e->cf_valid = 1;
    } else {
        e->cf = 0;
        e->cf_se = 0;
        e->cf_valid = 0;
    }
}
