/* Decoders: naive reference, blind fast (Walsh-Hadamard), route-aware; and
 * the estimates with standard errors computed from the same sums.
 *
 * All decoders produce the same integer sums (hs_linksum), so the naive and
 * the fast decoder can be compared exactly, integer for integer. */
#include "hopscope/hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Walsh-Hadamard transform ------------------------------------------ */

/* Levels below this run block by block in cache (2^11 int64 = 16 KiB). */
#define WHT_BLOCK_LOG 11

__attribute__((target_clones("avx2", "default")))
static void wht_levels(int64_t *v, size_t n, unsigned lo, unsigned hi)
{
    /* Two levels per pass (radix 4) halves the passes over memory. */
    unsigned l = lo;
    for (; l + 1 < hi; l += 2) {
        size_t h = (size_t)1 << l;
        for (size_t base = 0; base < n; base += 4 * h) {
            int64_t *a = v + base, *b = a + h, *c = b + h, *d = c + h;
            for (size_t i = 0; i < h; i++) {
                int64_t s0 = a[i] + b[i], d0 = a[i] - b[i];
                int64_t s1 = c[i] + d[i], d1 = c[i] - d[i];
                a[i] = s0 + s1;
                b[i] = d0 + d1;
                c[i] = s0 - s1;
                d[i] = d0 - d1;
            }
        }
    }
    for (; l < hi; l++) {
        size_t h = (size_t)1 << l;
        for (size_t base = 0; base < n; base += 2 * h) {
            int64_t *a = v + base, *b = a + h;
            for (size_t i = 0; i < h; i++) {
                int64_t x = a[i], y = b[i];
                a[i] = x + y;
                b[i] = x - y;
            }
        }
    }
}

void hs_wht(int64_t *v, unsigned logn)
{
    size_t n = (size_t)1 << logn;
    unsigned blog = logn < WHT_BLOCK_LOG ? logn : WHT_BLOCK_LOG;
    size_t bs = (size_t)1 << blog;
    for (size_t base = 0; base < n; base += bs)
        wht_levels(v + base, bs, 0, blog);
    if (logn > blog)
        wht_levels(v, n, blog, logn);
}

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

/* out[d].<field> += sum_j WHT(src_j)[d] for d < nout, using work. */
static void transform_into(const hs_counters *ct, const int64_t *src, int64_t *work,
                           hs_linksum *out, uint32_t nout, size_t field_off)
{
    for (unsigned j = 0; j < ct->b; j++) {
        memcpy(work, src + (size_t)j * ct->n, (size_t)ct->n * sizeof *work);
        hs_wht(work, ct->k);
        for (uint32_t d = 0; d < nout; d++)
            *(int64_t *)((char *)&out[d] + field_off) += work[d];
    }
}

int hs_decode_fast(const hs_counters *ct, hs_linksum *out, uint32_t nout, hs_totals *tot)
{
    if (nout > ct->n)
        return HS_EINVAL;
    memset(out, 0, (size_t)nout * sizeof *out);
    if (ct->exact) {
        for (uint32_t d = 0; d < nout; d++) {
            out[d].s = ct->t[d];
            out[d].c = ct->c[d];
            out[d].q = ct->t2[d];
            out[d].qc = ct->c2[d];
        }
    } else {
        int64_t *work = malloc((size_t)ct->n * sizeof *work);
        if (!work)
            return HS_ENOMEM;
        transform_into(ct, ct->t, work, out, nout, offsetof(hs_linksum, s));
        transform_into(ct, ct->c, work, out, nout, offsetof(hs_linksum, c));
        if (ct->t2) {
            transform_into(ct, ct->t2, work, out, nout, offsetof(hs_linksum, q));
            transform_into(ct, ct->c2, work, out, nout, offsetof(hs_linksum, qc));
        }
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
            if (d == 0 || d >= nout)
                return HS_ERANGE;
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
