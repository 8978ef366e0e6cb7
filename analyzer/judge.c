/* Judging each link from its estimate's standard error, pooling thin links
 * of one role, and saying what would decide the rest.
 *
 * A link's congested fraction CF with standard error SE is
 *   congested   when CF - z SE >= threshold  (above it with confidence),
 *   clear       when CF + z SE <  threshold  (below it with confidence),
 *   undecided   otherwise: the data cannot tell ("cannot judge").
 * No packet-count cutoff: a link with 150 packets at CF 0.9 +- 0.15 is
 * congested, one with 10^5 packets at CF 0.26 +- 0.01 is undecided.  The
 * SE itself is what small samples lack: its variance is estimated from the
 * same n packets, so the critical value is Student's t with n - 1 degrees
 * of freedom at the stated confidence instead of z (2.03 at 100 packets,
 * 2.28 at 11, 4.49 at 3, for z = 2).  The one other validity condition is on the
 * denominator: the delta method's SE of a ratio holds only when the traffic
 * estimate is well known (coefficient of variation <= max_traffic_cv),
 * which blind decoding of thin links misses; such a link is undecided
 * (never "clear") and pooled with the links of its role.
 *
 * Undecided links are pooled by role (the links of one kind leaving one
 * switch, one group's global or local links, the node links of one switch:
 * a minimal path crosses at most one link of such a pool, so the pool's
 * sums add over disjoint packets), then, still undecided, by kind over the
 * whole network.  A role pool judged congested marks those of its links
 * whose own CF is at or above the threshold congested (they join the trees
 * like any congested link); a pool judged clear clears
 * its links; a network-wide pool judged congested says only that some of
 * the thin links are congested, not which, so its links stay undecided.
 *
 * What would decide an undecided link: SE falls as 1/sqrt(packets), so the
 * link is decided at its present CF once its packets grow by
 * (z SE / |CF - threshold|)^2 (and the traffic CV condition by
 * (CV / max_traffic_cv)^2); more monitored packets come from a larger
 * monitored fraction or a longer run. */
#include "an.h"

#include <math.h>
#include <string.h>

/* No factor above this is reported as a number: a CF that close to the
 * threshold is, for any practical run, at the threshold. */
#define NEED_MAX 1e6

double hs__an_z_small(double z, double n)
{
    /* Student's t quantile with n - 1 degrees of freedom at the normal
     * quantile z: the variance behind an SE estimated from n packets is
     * itself uncertain, which widens the interval.  From 2 degrees of
     * freedom the Cornish-Fisher expansion to 1/df^4 (Abramowitz and Stegun
     * 26.7.5): within 0.9% of t at 2, 0.15% at 3, 0.01% from 5 on (z = 2);
     * below 2 the quantile of 1 degree of freedom (Cauchy), the larger. */
    double df = n - 1;
    if (!(df >= 1))
        return INFINITY;
    if (df < 2) {
        double p = 0.5 * erfc(-z / sqrt(2.0));
        return tan(M_PI * (p - 0.5));
    }
    double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
    double g1 = (z3 + z) / 4;
    double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
    double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
    double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
    return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

double hs__an_judge_se(const hs_estimate *e, double threshold, double hbar, double p)
{
    /* The plug-in SE of C is estimated from the flagged records at the link
     * and is 0 when none was flagged, however few records there were: "0 +-
     * 0" would call a link with three samples clear.  The score test's SE is
     * the one at the threshold: if a fraction tau of the N packets crossing
     * the link were congested, each packet (sampled at the link with
     * probability 1/h, counted h times when flagged) adds variance
     * h tau - tau^2, so SE(CF) = sqrt(tau (hbar - tau) / (N p)) with p the
     * monitored probability.  The judging SE is the larger of the two. */
    double se = e->cf_se;
    if (hbar > threshold && e->traffic > 0 && p > 0) {
        double s0 = sqrt(threshold * (hbar - threshold) / (e->traffic * p));
        if (s0 > se)
            se = s0;
    }
    return se;
}

/* When the traffic estimate is noisy (CV above max_traffic_cv) the delta
 * method's SE of the ratio C / T does not hold, and the test is on the
 * contrast D = C - threshold T instead. D is a linear combination of two
 * estimates with known standard errors, so its SE needs no delta method and
 * holds however noisy T is: Var(D) = Var(C) + threshold^2 Var(T) - 2
 * threshold Cov(C, T), and CF >= threshold exactly when D >= 0 (Fieller's
 * test of a ratio). The covariance is the estimator's own (hs_estimate.cov:
 * a flagged record counts in both sums, docs/inband.md), 0 when unknown,
 * which only widens the test. Divided by T, D's SE is the ratio's delta-
 * method SE with the threshold in place of CF: the same when T is exact. The
 * one validity condition left is Fieller's: T itself must be significantly
 * positive (T > t SE(T)), otherwise no ratio is bounded and the link is
 * undecided. The score test's floor applies to D / T as it did to the ratio. */
static double contrast_se(const hs_estimate *e, double threshold, double hbar, double p)
{
    double t = e->traffic, vc = e->congested_se * e->congested_se;
    double vt = e->traffic_se * e->traffic_se;
    double vd = vc + threshold * threshold * vt - 2 * threshold * (e->cov > 0 ? e->cov : 0);
    double se = t > 0 ? sqrt(vd > 0 ? vd : 0) / t : INFINITY;
    /* estimates built from a ratio only (cf_se without the sums' SEs) */
    if (!(e->congested_se > 0) && !(e->traffic_se > 0))
        se = e->cf_se;
    hs_estimate f = *e;
    f.cf_se = se;
    return hs__an_judge_se(&f, threshold, hbar, p);
}

int hs__an_judge_one(const hs_estimate *e, double threshold, double z, double max_cv,
                     double hbar, double p, double *need)
{
    if (!e->cf_valid || !(e->traffic > 0) || !isfinite(e->cf) || !isfinite(e->cf_se)) {
        if (need)
            *need = INFINITY;
        return HS__V_NODATA;
    }
    /* the ratio's delta-method SE where its condition holds (traffic CV at
     * most max_cv: T well known), Fieller's contrast where it does not; the
     * choice depends on T's precision only, never on the outcome */
    double cv = e->traffic_se / e->traffic;
    hs_estimate ej = *e;
    ej.cf_se = cv <= max_cv ? hs__an_judge_se(e, threshold, hbar, p)
                            : contrast_se(e, threshold, hbar, p);
    e = &ej;
    double zn = hs__an_z_small(z, e->traffic);
    int t_ok = isfinite(zn) && zn * cv < 1;
    if (t_ok && e->cf - zn * e->cf_se >= threshold)
        return HS__V_CONGESTED;
    if (t_ok && e->cf + zn * e->cf_se < threshold)
        return HS__V_CLEAR;
    if (need) {
        /* with k times the packets the SE is SE / sqrt(k) and the critical
         * value that of k n packets: decided at the present CF when
         * z_small(k n) SE / sqrt(k) <= |CF - threshold|, which falls with
         * k; the smallest such k by bisection on log k */
        double gap = fabs(e->cf - threshold), kc;
        if (!(gap > 0)) {
            kc = INFINITY;
        } else if (hs__an_z_small(z, e->traffic) * e->cf_se <= gap) {
            kc = 1;
        } else if (z * e->cf_se / sqrt(NEED_MAX) > gap) {
            kc = INFINITY;
        } else {
            double lo = 0, hi = log(NEED_MAX);
            for (int it = 0; it < 200 && hi - lo > 1e-13; it++) {
                double mid = 0.5 * (lo + hi), k = exp(mid);
                if (hs__an_z_small(z, k * e->traffic) * e->cf_se / sqrt(k) <= gap)
                    hi = mid;
                else
                    lo = mid;
            }
            kc = exp(hi);
        }
        /* Fieller's condition: t CV / sqrt(k) < 1 */
        double kv = isfinite(zn) && zn * cv >= 1 ? (zn * cv) * (zn * cv) * 1.0000001 : 1;
        *need = kc > kv ? kc : kv;
    }
    return HS__V_UNDECIDED;
}

void hs__an_pool_estimate(const hs_estimate *const *v, uint32_t n, hs_estimate *out)
{
    double t = 0, c = 0, vt = 0, vc = 0, cov = 0;
    for (uint32_t i = 0; i < n; i++) {
        cov += v[i]->cov;   /* disjoint packets: covariances add */
        t += v[i]->traffic;
        c += v[i]->congested;
        vt += v[i]->traffic_se * v[i]->traffic_se;
        vc += v[i]->congested_se * v[i]->congested_se;
    }
    memset(out, 0, sizeof *out);
    out->traffic = t;
    out->traffic_se = sqrt(vt);
    out->congested = c;
    out->congested_se = sqrt(vc);
    out->cov = cov;
    if (t > 0) {
        out->cf_valid = 1;
        out->cf = c / t;
        /* delta method without the covariance of C and T, which is positive
         * (flagged packets count in both): the SE is conservative */
        out->cf_se = sqrt(vc + out->cf * out->cf * vt) / t;
    }
}

/* Role of a link for pooling: level 1 one switch or group, level 2 the
 * whole network.  Writes a name and returns a key (kind code << 32 | where). */
static uint64_t role(const hs__run *r, uint32_t l, int level, char *name, size_t n)
{
    const hs__link *k = &r->lk[l];
    uint32_t code, where;
    const char *what;
    if (k->kind == HS__LK_INJECTION) {
        code = 1, where = k->to, what = "node links into switch";
    } else if (k->kind == HS__LK_EJECTION) {
        code = 2, where = k->from, what = "node links out of switch";
    } else if (k->sub == HS__SUB_GLOBAL || k->sub == HS__SUB_LOCAL) {
        code = k->sub == HS__SUB_GLOBAL ? 3 : 4;
        where = r->sw[k->from].group >= 0 ? (uint32_t)r->sw[k->from].group : k->from;
        what = k->sub == HS__SUB_GLOBAL ? "global links of group" : "local links of group";
    } else {
        code = 5 + k->sub, where = k->from;
        what = k->sub == HS__SUB_UP ? "up-links of switch"
             : k->sub == HS__SUB_DOWN ? "down-links of switch" : "links out of switch";
    }
    if (level == 2) {
        static const char *const all[] = { "", "injection links", "ejection links",
                                           "global links", "local links" };
        snprintf(name, n, "all thin %s", code <= 4 ? all[code]
                 : k->sub == HS__SUB_UP ? "up-links" : k->sub == HS__SUB_DOWN ? "down-links"
                 : "switch-to-switch links");
        return (uint64_t)code << 32;
    }
    if (code == 3 || code == 4)
        snprintf(name, n, "%s %u", what, where);
    else
        snprintf(name, n, "%s %s", what, r->sw[where].name);
    return (uint64_t)code << 32 | where;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Pools the links of *cand (undecided) by role at one level; links a pool
 * decides leave *cand. */
typedef struct keyed {
    uint64_t key;
    uint32_t i;
} keyed;

static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* A group of candidates with one role: where it starts in the sorted
 * list, its size, and its first candidate (pools are made in the order of
 * their first candidates). */
typedef struct kgroup {
    uint32_t first, at, n;
} kgroup;

static int kgroup_cmp(const void *x, const void *y)
{
    const kgroup *a = x, *b = y;
    return a->first < b->first ? -1 : a->first > b->first;
}

static int pool_level(hs_analysis *a, uint32_t *cand, uint32_t *ncand, int level)
{
    const hs__run *r = a->r;
    /* candidates grouped by role with a sort, not a scan per candidate:
     * a 32K-switch torus has ~200K undecided links and 32K roles */
    keyed *kv = malloc(((size_t)*ncand + 1) * sizeof *kv);
    kgroup *grp = malloc(((size_t)*ncand + 1) * sizeof *grp);
    const hs_estimate **ev = malloc(((size_t)*ncand + 1) * sizeof *ev);
    if (!kv || !grp || !ev) {
        free(kv);
        free(grp);
        free(ev);
        return HS_ENOMEM;
    }
    char name[96];
    for (uint32_t i = 0; i < *ncand; i++) {
        kv[i].key = role(r, cand[i], level, name, sizeof name);
        kv[i].i = i;
    }
    qsort(kv, *ncand, sizeof *kv, keyed_cmp);
    uint32_t ng = 0;
    for (uint32_t i = 0; i < *ncand; i++) {
        if (i == 0 || kv[i].key != kv[i - 1].key)
            grp[ng++] = (kgroup){ kv[i].i, i, 0 };
        grp[ng - 1].n++;
    }
    qsort(grp, ng, sizeof *grp, kgroup_cmp);
    int rc = 0;
    for (uint32_t g = 0; g < ng && !rc; g++) {
        uint32_t m = grp[g].n;
        if (m < 2)
            continue;
        const keyed *mem = kv + grp[g].at;   /* in candidate order */
        for (uint32_t j = 0; j < m; j++)
            ev[j] = &a->est[cand[mem[j].i]];
        hs__pool *t = realloc(a->pools, ((size_t)a->npools + 1) * sizeof *t);
        if (!t) {
            rc = HS_ENOMEM;
            break;
        }
        a->pools = t;
        hs__pool *P = &t[a->npools];
        memset(P, 0, sizeof *P);
        role(r, cand[mem[0].i], level, P->role, sizeof P->role);
        P->level = level;
        hs__an_pool_estimate(ev, m, &P->e);
        /* the pool's packets' mean hops, when every link's is known */
        double hs = 0, hn = 0, hbar = a->judge_hbar;
        for (uint32_t j = 0; j < m && a->hop_n; j++) {
            uint32_t l = cand[mem[j].i];
            if (!(a->hop_n[l] > 0)) {
                hn = 0;
                break;
            }
            hs += a->hop_sum[l];
            hn += a->hop_n[l];
        }
        if (hn > 0)
            hbar = hs / hn;
        P->verdict = (uint8_t)hs__an_judge_one(&P->e, a->p.cf_threshold, a->p.z,
                                               a->p.max_traffic_cv, hbar,
                                               a->sample_p, &P->need);
        for (uint32_t j = 0; j < m && !rc; j++) {
            uint32_t l = cand[mem[j].i];
            rc = hs__an_push(&P->links, &P->nlinks, l);
            if (level == 1 || a->pool_of[l] == HS__NIL)
                a->pool_of[l] = a->npools;
            /* a congested pool marks those of its links whose own estimate
             * is at or above the threshold: the pool says that its thin
             * links are congested together, their estimates which ones */
            int mark = P->verdict == HS__V_CONGESTED && level == 1 &&
                       a->est[l].cf >= a->p.cf_threshold;
            if (mark)
                a->congested[l] = 1;
            if (P->verdict == HS__V_CLEAR || mark) {
                a->pool_of[l] = a->npools;
                cand[mem[j].i] = HS__NIL;
            }
        }
        a->npools++;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < *ncand; i++)
        if (cand[i] != HS__NIL)
            cand[k++] = cand[i];
    *ncand = k;
    free(kv);
    free(grp);
    free(ev);
    return rc;
}

int hs__an_judge(hs_analysis *a)
{
    const hs__run *r = a->r;
    uint32_t *cand = malloc(((size_t)r->L + 1) * sizeof *cand), nc = 0;
    if (!cand)
        return HS_ENOMEM;
    for (uint32_t l = 1; l <= r->L; l++) {
        a->pool_of[l] = HS__NIL;
        if (a->verdict[l] == HS__V_UNDECIDED)
            cand[nc++] = l;
    }
    int rc = pool_level(a, cand, &nc, 1);
    if (!rc)
        rc = pool_level(a, cand, &nc, 2);
    if (rc) {
        free(cand);
        return rc;
    }
    /* what would decide the rest: the factor on monitored packets */
    a->nundecided = nc;
    a->need_half = a->need_all = 0;
    a->pooled_congested = 0;
    for (uint32_t l = 1; l <= r->L; l++)
        a->pooled_congested += a->verdict[l] == HS__V_UNDECIDED && a->congested[l];
    if (nc) {
        double *k = malloc(nc * sizeof *k);
        if (!k) {
            free(cand);
            return HS_ENOMEM;
        }
        uint32_t nk = 0;
        for (uint32_t i = 0; i < nc; i++) {
            double need;
            hs__an_judge_one(&a->est[cand[i]], a->p.cf_threshold, a->p.z, a->p.max_traffic_cv,
                             hs__an_hbar(a, cand[i]), a->sample_p, &need);
            k[nk++] = need < NEED_MAX ? need : NEED_MAX;
        }
        qsort(k, nk, sizeof *k, cmp_dbl);
        a->need_half = k[(nk - 1) / 2];
        a->need_all = k[nk - 1];
        free(k);
    }
    free(cand);
    return 0;
}
