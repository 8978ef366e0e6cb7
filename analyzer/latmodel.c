/* The latency model of Patke et al. ("Modeling communication latency in
 * high-speed interconnection networks"): the delay on a link is normal,
 *     D_l ~ N(c1 + m1 / B_eff, c2 + m2 / B_eff),  B_eff = B_max (1 - P_Ts/100),
 * P_Ts the link's percent time stalled in the window, the links' delays
 * independent, so a path's latency is normal with the sums of the means and
 * of the variances.  Parameters per link class, fitted to latency tests by
 * maximum likelihood (GSL's Nelder-Mead, then Newton steps on the exact
 * gradient and Hessian), their standard errors from the inverse of the
 * observed information (the Hessian of the negative log-likelihood).
 *
 * Units: latency ns, B_eff GB/s (1e9 bytes/s), so m1 is in ns GB/s (bytes,
 * in effect: m1 / B_eff is m1 bytes at the effective rate), c2 ns^2, m2
 * ns^2 GB/s.  docs/latmodel.md has the account and the validation. */
#include "an.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if HS_HAVE_GSL
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#endif

#define NS_PER_PS 1e-3
#define GB 1e9
#define MAX_LEAVES 4096      /* paths followed per pair before taking first choices */
#define MIN_VAR 1e-9         /* ns^2: predictions never get a variance below this */
#define TESTS_PER_PARAM 5    /* fewer tests than this per parameter: not fitted */

/* ---- classes ------------------------------------------------------------------- */

void hs_lm_init(hs_latmodel *m, const hs_topo *t, int by_class)
{
    memset(m, 0, sizeof *m);
    m->res_ns = HS_LM_RES_NS;
    m->topo_kind = (int)hs_topo_type(t);
    m->by_class = by_class;
    snprintf(m->input, sizeof m->input, "stall");
    if (!by_class) {
        m->ncls = 1;
        snprintf(m->cls[0].name, sizeof m->cls[0].name, "all");
        return;
    }
    /* Injection and ejection links are on every path once each: their
     * constants could not be told apart, so they are one class.  Fat-tree
     * paths go up as often as down, so the switch links are one class
     * there too; dragonflies' local and global links vary independently. */
    snprintf(m->cls[0].name, sizeof m->cls[0].name, "endpoint");
    if (m->topo_kind == HS_TOPO_DRAGONFLY) {
        snprintf(m->cls[1].name, sizeof m->cls[1].name, "local");
        snprintf(m->cls[2].name, sizeof m->cls[2].name, "global");
        m->ncls = 3;
    } else {
        snprintf(m->cls[1].name, sizeof m->cls[1].name, "switch");
        m->ncls = 2;
    }
}

unsigned hs_lm_link_class(const hs_latmodel *m, const hs_link_info *li)
{
    if (m->ncls == 1 || li->kind != HS_LINK_SWITCH)
        return 0;
    if (m->ncls == 3)
        return li->sub == HS_SUB_GLOBAL ? 2 : 1;
    return 1;
}

/* ---- paths ----------------------------------------------------------------------- */

typedef struct walk {
    const hs_topo *t;
    uint32_t dst, dsw;
    hs_lm_path *p;
    unsigned leaves;
    int rc;
    const hs_portcounters *pc;   /* adaptive choices by stall, or NULL */
    uint64_t t_ps;
} walk;

static double stall_at(const walk *W, uint32_t l)
{
    const hs_pc_row *r = hs_pc_find(W->pc, l, W->t_ps);
    return r ? r->stall_pct : 0.0;
}

static void path_add(walk *W, uint32_t l, double w)
{
    hs_lm_path *p = W->p;
    for (unsigned i = 0; i < p->n; i++)
        if (p->link[i] == l) {
            p->w[i] += w;
            return;
        }
    if (p->n == HS_LM_PATH_MAX) {
        W->rc = HS_ERANGE;
        return;
    }
    p->link[p->n] = l;
    p->w[p->n++] = w;
}

static void walk_from(walk *W, uint32_t sw, double w, unsigned depth)
{
    if (W->rc)
        return;
    if (sw == W->dsw) {
        path_add(W, hs_topo_node_ejection(W->t, W->dst), w);
        return;
    }
    if (depth > 2 * HS_LM_PATH_MAX) {
        W->rc = HS_EFORMAT;   /* a routing loop */
        return;
    }
    uint32_t out[256];
    unsigned n = hs_topo_route_set(W->t, sw, W->dst, out, 256);
    if (n == 0) {
        W->rc = HS_EFORMAT;
        return;
    }
    if (n > 1 && W->pc) {
        /* adaptive routing picks the least occupied output: the least
         * stalled in the window stands for it (ties share the weight) */
        double best = INFINITY;
        for (unsigned i = 0; i < n; i++)
            best = fmin(best, stall_at(W, out[i]));
        unsigned k = 0;
        for (unsigned i = 0; i < n; i++)
            if (stall_at(W, out[i]) <= best)
                out[k++] = out[i];
        n = k;
    }
    if (W->leaves * n > MAX_LEAVES)
        n = 1;
    W->leaves *= n;
    for (unsigned i = 0; i < n && !W->rc; i++) {
        const hs_link_info *li = hs_topo_link(W->t, out[i]);
        if (!li || li->from_kind != HS_DEV_SWITCH || li->to_kind != HS_DEV_SWITCH) {
            W->rc = HS_EFORMAT;
            return;
        }
        path_add(W, out[i], w / n);
        walk_from(W, li->to, w / n, depth + 1);
    }
}

int hs_lm_path_at(const hs_topo *t, const hs_portcounters *pc, uint64_t t_ps, uint32_t src,
                  uint32_t dst, hs_lm_path *p)
{
    p->n = 0;
    uint32_t N = hs_topo_nodes(t);
    if (src >= N || dst >= N || src == dst)
        return HS_EINVAL;
    walk W = { t, dst, hs_topo_node_switch(t, dst), p, 1, 0, pc, t_ps };
    path_add(&W, hs_topo_node_injection(t, src), 1.0);
    walk_from(&W, hs_topo_node_switch(t, src), 1.0, 0);
    return W.rc;
}

int hs_lm_path_get(const hs_topo *t, uint32_t src, uint32_t dst, hs_lm_path *p)
{
    return hs_lm_path_at(t, NULL, 0, src, dst, p);
}

/* ---- joining a test with the counters ---------------------------------------------- */

int hs_lm_join(const hs_latmodel *m, const hs_topo *topo, const hs_portcounters *pc,
               const hs_lt *t, hs_lm_obs *o, size_t *missing, hs_error *err)
{
    static _Thread_local hs_lm_path path;
    memset(o, 0, sizeof *o);
    int rc = hs_lm_path_at(topo, pc, t->t_ps, t->src, t->dst, &path);
    if (rc)
        return hs_error_set(err, rc, "no path from node %u to node %u in the topology", t->src,
                            t->dst);
    for (unsigned i = 0; i < path.n; i++) {
        const hs_link_info *li = hs_topo_link(topo, path.link[i]);
        const hs_pc_row *r = hs_pc_find(pc, path.link[i], t->t_ps);
        double pts = r ? r->stall_pct : 0.0;
        if (!r && missing)
            (*missing)++;
        if (pts > HS_LM_PTS_MAX)
            pts = HS_LM_PTS_MAX;
        double beff = (double)li->bw / GB * (1.0 - pts / 100.0);
        unsigned k = hs_lm_link_class(m, li);
        o->n[k] += path.w[i];
        o->s[k] += path.w[i] / beff;
    }
    o->y = (double)t->lat_ps * NS_PER_PS;
    return 0;
}

int hs_lm_extrapolated(const hs_latmodel *m, const hs_lm_obs *o)
{
    for (unsigned k = 0; k < m->ncls; k++)
        if (o->n[k] < m->cls[k].n_min - 1e-9 || o->n[k] > m->cls[k].n_max + 1e-9)
            return 1;
    return 0;
}

void hs_lm_predict_obs(const hs_latmodel *m, const hs_lm_obs *o, double *mean, double *var)
{
    double mu = 0, v = 0;
    for (unsigned k = 0; k < m->ncls; k++) {
        const double *p = m->cls[k].p;
        mu += p[0] * o->n[k] + p[1] * o->s[k];
        v += p[2] * o->n[k] + p[3] * o->s[k];
    }
    v += m->res_ns * m->res_ns / 12.0;
    *mean = mu;
    *var = v > MIN_VAR ? v : MIN_VAR;
}

/* ---- the likelihood ------------------------------------------------------------------ */

/* Parameters theta[4K]: class k has c1, m1, c2, m2 at 4k..4k+3.  Features
 * of an observation: f[2k] = n_k, f[2k+1] = s_k; mean = sum of theta[4k]
 * f[2k] + theta[4k+1] f[2k+1], variance likewise with theta[4k+2..3].
 * free[j]: the parameter is estimated (else fixed at 0: not identifiable,
 * or a variance term held at its bound). */
#define NP (4 * HS_LM_MAXCLASS)
#define NF (2 * HS_LM_MAXCLASS)
typedef struct lik {
    const hs_lm_obs *obs;
    size_t n;
    unsigned K;
    double scale[NP];        /* the optimiser works on theta / scale */
    int free_[NP];
    double th[NP];           /* the full vector: fixed entries stay 0 */
    double v0;               /* variance every test has: res^2 / 12 */
} lik;

static int is_var(unsigned j)
{
    return j % 4 >= 2;
}

static void feats(const lik *L, const hs_lm_obs *o, double *f)
{
    for (unsigned k = 0; k < L->K; k++) {
        f[2 * k] = o->n[k];
        f[2 * k + 1] = o->s[k];
    }
}

static void mean_var(const lik *L, const double *th, const double *f, double *M, double *V)
{
    double mu = 0, v = L->v0;
    for (unsigned k = 0; k < L->K; k++) {
        mu += th[4 * k] * f[2 * k] + th[4 * k + 1] * f[2 * k + 1];
        v += th[4 * k + 2] * f[2 * k] + th[4 * k + 3] * f[2 * k + 1];
    }
    *M = mu;
    *V = v;
}

/* Negative log-likelihood (without the constant); +inf outside the
 * domain: a variance term below 0, or a test with no positive variance. */
static double nll(const lik *L, const double *th)
{
    for (unsigned j = 0; j < 4 * L->K; j++)
        if (is_var(j) && th[j] < 0)
            return INFINITY;
    double s = 0, f[NF];
    for (size_t i = 0; i < L->n; i++) {
        double M, V;
        feats(L, &L->obs[i], f);
        mean_var(L, th, f, &M, &V);
        if (!(V > 0))
            return INFINITY;
        double r = L->obs[i].y - M;
        s += 0.5 * (log(V) + r * r / V);
    }
    return s;
}

/* Gradient g[4K] and Hessian h[4K x 4K] of nll at th (V > 0 assumed). */
static void nll_derivs(const lik *L, const double *th, double *g, double *h)
{
    unsigned P = 4 * L->K, F = 2 * L->K;
    memset(g, 0, P * sizeof *g);
    memset(h, 0, (size_t)P * P * sizeof *h);
    double f[NF];
    for (size_t i = 0; i < L->n; i++) {
        double M, V;
        feats(L, &L->obs[i], f);
        mean_var(L, th, f, &M, &V);
        double r = L->obs[i].y - M, V2 = V * V;
        for (unsigned a = 0; a < F; a++) {
            unsigned ia = 4 * (a / 2) + a % 2, va = ia + 2;   /* mean / variance parameter */
            g[ia] += -r * f[a] / V;
            g[va] += 0.5 * f[a] * (1.0 / V - r * r / V2);
            for (unsigned b = 0; b < F; b++) {
                unsigned ib = 4 * (b / 2) + b % 2, vb = ib + 2;
                double ff = f[a] * f[b];
                h[ia * P + ib] += ff / V;
                h[ia * P + vb] += r * ff / V2;
                h[va * P + ib] += r * ff / V2;
                h[va * P + vb] += ff * (r * r / (V2 * V) - 0.5 / V2);
            }
        }
    }
}

#if HS_HAVE_GSL

/* Nelder-Mead's objective: the free parameters, scaled. */
static double nm_f(const gsl_vector *u, void *ctx)
{
    const lik *L = ctx;
    double th[NP];
    memcpy(th, L->th, sizeof th);
    unsigned q = 0;
    for (unsigned j = 0; j < 4 * L->K; j++)
        if (L->free_[j])
            th[j] = gsl_vector_get(u, q++) * L->scale[j];
    double v = nll(L, th);
    return isfinite(v) ? v : 1e300;   /* Nelder-Mead just rejects such points */
}

/* The Gram matrix of the feature columns use[] (F of them). */
static void gram(const lik *L, const int *use, gsl_matrix *A, const double *w, const double *y,
                 gsl_vector *b)
{
    unsigned F = 2 * L->K;
    gsl_matrix_set_zero(A);
    if (b)
        gsl_vector_set_zero(b);
    double f[NF];
    for (size_t i = 0; i < L->n; i++) {
        feats(L, &L->obs[i], f);
        double wi = w ? w[i] : 1.0;
        for (unsigned a = 0; a < F; a++) {
            if (!use[a])
                continue;
            if (b)
                *gsl_vector_ptr(b, a) += wi * f[a] * y[i];
            for (unsigned c = 0; c < F; c++)
                if (use[c])
                    *gsl_matrix_ptr(A, a, c) += wi * f[a] * f[c];
        }
    }
    for (unsigned a = 0; a < F; a++)
        if (!use[a])
            gsl_matrix_set(A, a, a, 1.0);
}

/* Chooses the feature columns the tests identify: the link counts first,
 * then the 1/B_eff sums, each kept only if it is not (nearly) a
 * combination of those kept before (relative residual below 1e-6 of the
 * column's norm).  A class whose links never stalled has s = n / B_max:
 * its m1 and m2 are not identifiable. */
static void choose_columns(const lik *L, int *use)
{
    unsigned F = 2 * L->K;
    int order[NF], no = 0;
    for (unsigned k = 0; k < L->K; k++)
        order[no++] = (int)(2 * k);
    for (unsigned k = 0; k < L->K; k++)
        order[no++] = (int)(2 * k + 1);
    memset(use, 0, F * sizeof *use);
    gsl_matrix *A = gsl_matrix_alloc(F, F);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (int i = 0; i < no; i++) {
        int a = order[i];
        use[a] = 1;
        gram(L, use, A, NULL, NULL, NULL);
        double d[NF];
        int ok = 1;
        for (unsigned c = 0; c < F; c++) {
            d[c] = sqrt(gsl_matrix_get(A, c, c));
            if (use[c] && !(d[c] > 0))
                ok = 0;
        }
        if (ok) {
            for (unsigned r = 0; r < F; r++)
                for (unsigned c = 0; c < F; c++)
                    *gsl_matrix_ptr(A, r, c) /= d[r] * d[c];
            /* every pivot of the equilibrated Cholesky factor is a column's
             * residual norm after those before it: all must stay clear of 0 */
            ok = gsl_linalg_cholesky_decomp1(A) == GSL_SUCCESS;
            for (unsigned c = 0; ok && c < F; c++)
                if (use[c] && !(gsl_matrix_get(A, c, c) > 1e-6))
                    ok = 0;
        }
        if (!ok)
            use[a] = 0;
    }
    gsl_set_error_handler(old);
    gsl_matrix_free(A);
}

/* Weighted least squares of y on the used columns into beta (0 for the
 * others); 0 or HS_EINVAL. */
static int wls(const lik *L, const int *use, const double *w, const double *y, double *beta)
{
    unsigned F = 2 * L->K;
    gsl_matrix *A = gsl_matrix_alloc(F, F);
    gsl_vector *b = gsl_vector_alloc(F), *x = gsl_vector_alloc(F);
    gram(L, use, A, w, y, b);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_solve(A, b, x) ? HS_EINVAL : 0;
    gsl_set_error_handler(old);
    for (unsigned a = 0; a < F; a++)
        beta[a] = !rc && use[a] ? gsl_vector_get(x, a) : 0.0;
    gsl_matrix_free(A);
    gsl_vector_free(b);
    gsl_vector_free(x);
    return rc;
}

/* Inverts the symmetric h restricted to the parameters act[] (P x P
 * storage) into cov; 0, or HS_EINVAL if that block is not positive
 * definite. */
static int invert_spd(const double *h, unsigned P, const int *act, double *cov)
{
    unsigned idx[NP], m = 0;
    for (unsigned a = 0; a < P; a++)
        if (act[a])
            idx[m++] = a;
    for (unsigned a = 0; a < P * P; a++)
        cov[a] = NAN;
    if (!m)
        return 0;
    gsl_matrix *A = gsl_matrix_alloc(m, m);
    for (unsigned a = 0; a < m; a++)
        for (unsigned b = 0; b < m; b++)
            gsl_matrix_set(A, a, b, 0.5 * (h[idx[a] * P + idx[b]] + h[idx[b] * P + idx[a]]));
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_invert(A) ? HS_EINVAL : 0;
    gsl_set_error_handler(old);
    for (unsigned a = 0; a < m && !rc; a++)
        for (unsigned b = 0; b < m; b++)
            cov[idx[a] * P + idx[b]] = gsl_matrix_get(A, a, b);
    gsl_matrix_free(A);
    return rc;
}

/* The parameters Newton moves: free ones, minus variance terms at 0 whose
 * gradient pushes them below it. */
static void active_set(const lik *L, const double *th, const double *g, int *act)
{
    for (unsigned j = 0; j < 4 * L->K; j++)
        act[j] = L->free_[j] && !(is_var(j) && th[j] <= 0 && g[j] >= 0);
}

/* Damped Newton (Levenberg-Marquardt: the Hessian plus mu times its
 * diagonal, mu raised until the step lowers the objective) from th
 * (feasible), variance terms kept at or above 0: a step that would cross
 * the bound stops there and the term is held at 0 while its gradient
 * pushes it down.  Returns the final value. */
static double newton(const lik *L, double *th)
{
    unsigned P = 4 * L->K;
    double g[NP], h[NP * NP], hd[NP * NP], cov[NP * NP], step[NP], t2[NP];
    int act[NP];
    double v = nll(L, th), mu = 0;
    for (int it = 0; it < 500 && isfinite(v); it++) {
        nll_derivs(L, th, g, h);
        active_set(L, th, g, act);
        int moved = 0;
        double nv = v;
        for (int tries = 0; tries < 40 && !moved; tries++) {
            memcpy(hd, h, (size_t)P * P * sizeof *h);
            for (unsigned a = 0; a < P; a++)
                hd[a * P + a] += mu * fabs(h[a * P + a]) + (mu > 0 ? 1e-300 : 0);
            if (invert_spd(hd, P, act, cov)) {
                mu = mu > 0 ? mu * 10 : 1e-6;
                continue;
            }
            double lmax = 1;
            for (unsigned a = 0; a < P; a++) {
                step[a] = 0;
                if (!act[a])
                    continue;
                for (unsigned b = 0; b < P; b++)
                    if (act[b])
                        step[a] -= cov[a * P + b] * g[b];
                if (is_var(a) && step[a] < 0 && th[a] + step[a] < 0)
                    lmax = fmin(lmax, th[a] / -step[a]);
            }
            for (unsigned a = 0; a < P; a++) {
                t2[a] = th[a] + lmax * step[a];
                if (is_var(a) && t2[a] < 1e-9 * L->scale[a])
                    t2[a] = 0;   /* at the bound: active_set decides whether it stays */
            }
            nv = nll(L, t2);
            if (nv < v || (nv == v && lmax < 1)) {
                moved = 1;
                mu = mu / 10 < 1e-12 ? 0 : mu / 10;
            } else {
                mu = mu > 0 ? mu * 10 : 1e-6;
            }
        }
        if (!moved)
            break;
        memcpy(th, t2, P * sizeof *th);
        double dv = v - nv;
        v = nv;
        if (dv < 1e-12 * (1 + fabs(v)) && mu == 0)
            break;
    }
    return v;
}

/* Variance terms so close to 0 that setting them to 0 changes the
 * objective by no more than rounding: set to 0, so that active_set can hold
 * them at the bound (Nelder-Mead and the last Newton steps approach it
 * without reaching it, where the Hessian need not be positive definite). */
static void snap_bounds(const lik *L, double *th)
{
    double v = nll(L, th);
    for (unsigned j = 0; j < 4 * L->K; j++) {
        if (!is_var(j) || th[j] <= 0)
            continue;
        double keep = th[j];
        th[j] = 0;
        if (!(nll(L, th) <= v + 1e-9 * (1 + fabs(v))))
            th[j] = keep;
        else
            v = nll(L, th);
    }
}

/* Fits the K classes of m to obs; fills m->cls[], loglik, aic, note. */
static int fit_once(hs_latmodel *m, const hs_lm_obs *obs, size_t n, const double *seed,
                    hs_error *err)
{
    unsigned K = m->ncls, P = 4 * K, F = 2 * K;
    static _Thread_local lik L;
    memset(&L, 0, sizeof L);
    L.obs = obs;
    L.n = n;
    L.K = K;
    L.v0 = m->res_ns * m->res_ns / 12.0;
    if (n < (size_t)TESTS_PER_PARAM * P) {
        snprintf(m->note, sizeof m->note, "%zu tests for %u parameters (at least %u needed)", n,
                 P, TESTS_PER_PARAM * P);
        return hs_error_set(err, HS_EINVAL, "latmodel fit: %s", m->note);
    }
    int use[NF];
    choose_columns(&L, use);
    unsigned nfree = 0;
    for (unsigned j = 0; j < P; j++) {
        L.free_[j] = use[2 * (j / 4) + j % 2];
        nfree += (unsigned)L.free_[j];
    }
    int any_n = 0;
    for (unsigned k = 0; k < K; k++)
        any_n |= use[2 * k];
    if (!any_n) {
        snprintf(m->note, sizeof m->note, "no test crossed a link");
        return hs_error_set(err, HS_EINVAL, "latmodel fit: %s", m->note);
    }
    double *y = calloc(n, sizeof *y), *r2 = calloc(n, sizeof *r2);
    if (!y || !r2) {
        free(y);
        free(r2);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    double beta[NF] = { 0 }, gam[NF] = { 0 }, f[NF];
    for (size_t i = 0; i < n; i++)
        y[i] = obs[i].y;
    wls(&L, use, NULL, y, beta);
    /* variance: least squares of the squared residuals, clipped at 0 */
    double mean_r2 = 0, mean_f[NF] = { 0 };
    for (size_t i = 0; i < n; i++) {
        feats(&L, &obs[i], f);
        double M = 0;
        for (unsigned a = 0; a < F; a++) {
            M += beta[a] * f[a];
            mean_f[a] += f[a] / (double)n;
        }
        r2[i] = (y[i] - M) * (y[i] - M);
        mean_r2 += r2[i] / (double)n;
    }
    if (!(mean_r2 > 0))
        mean_r2 = 1e-6;   /* an exact fit: start near zero variance */
    wls(&L, use, NULL, r2, gam);
    for (unsigned k = 0; k < K; k++) {
        L.th[4 * k] = beta[2 * k];
        L.th[4 * k + 1] = beta[2 * k + 1];
        L.th[4 * k + 2] = gam[2 * k] > 0 ? gam[2 * k] : 0;
        L.th[4 * k + 3] = gam[2 * k + 1] > 0 ? gam[2 * k + 1] : 0;
    }
    if (!isfinite(nll(&L, L.th))) {
        /* every free variance term its share of the mean squared residual */
        unsigned nv = 0;
        for (unsigned j = 0; j < P; j++)
            nv += (unsigned)(is_var(j) && L.free_[j]);
        for (unsigned j = 0; j < P; j++)
            if (is_var(j) && L.free_[j])
                L.th[j] = mean_r2 / (nv * mean_f[2 * (j / 4) + j % 2]);
    }
    /* scales: the size a parameter's term would have if it explained it all */
    double ybar = 0;
    for (size_t i = 0; i < n; i++)
        ybar += y[i] / (double)n;
    free(r2);
    free(y);
    for (unsigned j = 0; j < P; j++) {
        double mf = mean_f[2 * (j / 4) + j % 2];
        double sc = (is_var(j) ? mean_r2 : ybar) / (mf > 0 ? mf : 1);
        double s = fabs(L.th[j]) > 1e-3 * sc ? fabs(L.th[j]) : sc;
        L.scale[j] = isfinite(s) && s > 0 ? s : 1.0;
    }
    /* a better start given (the pooled fit, for the classes): take it */
    if (seed) {
        double t2[NP];
        for (unsigned j = 0; j < P; j++)
            t2[j] = L.free_[j] ? seed[j] : 0.0;
        if (nll(&L, t2) < nll(&L, L.th))
            memcpy(L.th, t2, sizeof t2);
    }
    /* Nelder-Mead on the scaled free parameters, then Newton to the optimum */
    double th[NP];
    memcpy(th, L.th, sizeof th);
    gsl_multimin_function fn = { nm_f, nfree, &L };
    gsl_vector *u = gsl_vector_alloc(nfree), *ss = gsl_vector_alloc(nfree);
    for (unsigned j = 0, q = 0; j < P; j++)
        if (L.free_[j]) {
            gsl_vector_set(u, q, th[j] / L.scale[j]);
            gsl_vector_set(ss, q++, 0.1);
        }
    gsl_multimin_fminimizer *mn = gsl_multimin_fminimizer_alloc(
        gsl_multimin_fminimizer_nmsimplex2, nfree);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (mn && gsl_multimin_fminimizer_set(mn, &fn, u, ss) == GSL_SUCCESS) {
        for (int it = 0; it < 20000; it++) {
            if (gsl_multimin_fminimizer_iterate(mn))
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(mn), 1e-8) == GSL_SUCCESS)
                break;
        }
        const gsl_vector *x = gsl_multimin_fminimizer_x(mn);
        double cand[NP];
        memcpy(cand, L.th, sizeof cand);
        for (unsigned j = 0, q = 0; j < P; j++)
            if (L.free_[j])
                cand[j] = gsl_vector_get(x, q++) * L.scale[j];
        if (nll(&L, cand) <= nll(&L, th))
            memcpy(th, cand, sizeof th);
    }
    gsl_set_error_handler(old);
    gsl_multimin_fminimizer_free(mn);
    gsl_vector_free(u);
    gsl_vector_free(ss);
    snap_bounds(&L, th);
    double v = newton(&L, th);
    snap_bounds(&L, th);
    v = newton(&L, th);
    if (!isfinite(v)) {
        snprintf(m->note, sizeof m->note, "no parameters give every test a positive variance");
        return hs_error_set(err, HS_EINVAL, "latmodel fit: %s", m->note);
    }
    double g[NP], h[NP * NP], cov[NP * NP];
    int act[NP];
    nll_derivs(&L, th, g, h);
    active_set(&L, th, g, act);
    int se_ok = invert_spd(h, P, act, cov) == 0;
    char unid[160] = "", bound[160] = "";
    for (unsigned k = 0; k < K; k++)
        for (unsigned q = 0; q < 4; q++) {
            unsigned a = 4 * k + q;
            static const char *const nm[4] = { "c1", "m1", "c2", "m2" };
            hs_lm_class *c = &m->cls[k];
            c->p[q] = th[a];
            c->state[q] = !L.free_[a] ? HS_LM_UNIDENTIFIED : !act[a] ? HS_LM_AT_BOUND
                          : HS_LM_FITTED;
            c->se[q] = c->state[q] == HS_LM_FITTED && se_ok && cov[a * P + a] >= 0
                       ? sqrt(cov[a * P + a]) : NAN;
            char *dst = c->state[q] == HS_LM_UNIDENTIFIED ? unid
                        : c->state[q] == HS_LM_AT_BOUND ? bound : NULL;
            if (dst) {
                size_t o = strlen(dst);
                snprintf(dst + o, 160 - o, "%s%s %s", o ? ", " : "", c->name, nm[q]);
            }
        }
    m->tests = n;
    for (unsigned k = 0; k < K; k++) {
        m->cls[k].n_min = INFINITY;
        m->cls[k].n_max = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            m->cls[k].n_min = fmin(m->cls[k].n_min, obs[i].n[k]);
            m->cls[k].n_max = fmax(m->cls[k].n_max, obs[i].n[k]);
        }
    }
    m->loglik = -v - 0.5 * (double)n * log(2 * 3.14159265358979323846);
    m->aic = 2.0 * nfree - 2.0 * m->loglik;
    m->note[0] = '\0';
    size_t o = 0;
    if (unid[0])
        o += (size_t)snprintf(m->note, sizeof m->note, "not identifiable from these tests "
                              "(fixed at 0): %s", unid);
    if (bound[0] && o < sizeof m->note)
        o += (size_t)snprintf(m->note + o, sizeof m->note - o, "%sat the bound 0: %s",
                              o ? "; " : "", bound);
    if (!se_ok && o < sizeof m->note)
        snprintf(m->note + o, sizeof m->note - o, "%sthe Hessian is not positive definite at "
                 "the optimum: no standard errors", o ? "; " : "");
    return 0;
}

int hs_lm_fit(hs_latmodel *m, const hs_lm_obs *obs, size_t n, hs_error *err)
{
    m->note[0] = '\0';
    if (m->by_class != HS_LM_AUTO)
        return fit_once(m, obs, n, NULL, err);
    /* auto: by class when the AIC prefers it */
    static _Thread_local hs_latmodel pooled, cls;
    pooled = *m;
    cls = *m;
    pooled.ncls = 1;
    pooled.by_class = 0;
    snprintf(pooled.cls[0].name, sizeof pooled.cls[0].name, "all");
    /* pooled features: sum the classes */
    hs_lm_obs *po = malloc((n ? n : 1) * sizeof *po);
    if (!po)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        memset(&po[i], 0, sizeof po[i]);
        po[i].y = obs[i].y;
        for (unsigned k = 0; k < m->ncls; k++) {
            po[i].n[0] += obs[i].n[k];
            po[i].s[0] += obs[i].s[k];
        }
    }
    int rc = fit_once(&pooled, po, n, NULL, err);
    free(po);
    if (rc) {
        *m = pooled;
        return rc;
    }
    hs_error e2;
    cls.by_class = 1;
    /* start the classes from the pooled fit: every class with its values */
    double seed[NP];
    for (unsigned k = 0; k < m->ncls; k++)
        for (unsigned q = 0; q < 4; q++)
            seed[4 * k + q] = pooled.cls[0].p[q];
    int rc2 = m->ncls > 1 ? fit_once(&cls, obs, n, seed, &e2) : HS_EINVAL;
    int use_cls = rc2 == 0 && cls.aic < pooled.aic;
    char why[sizeof m->note + 64];
    if (m->ncls == 1)
        snprintf(why, sizeof why, "%s", pooled.note);
    else if (rc2)
        snprintf(why, sizeof why, "classes not fitted: %s", cls.note);
    else if (!use_cls)
        snprintf(why, sizeof why, "one class for all: its AIC %.1f is below the classes' %.1f%s%s",
                 pooled.aic, cls.aic, pooled.note[0] ? "; " : "", pooled.note);
    else
        snprintf(why, sizeof why, "%s", cls.note);
    double paic = pooled.aic;
    *m = use_cls ? cls : pooled;
    m->pooled_aic = paic;
    size_t wl = strlen(why) < sizeof m->note - 1 ? strlen(why) : sizeof m->note - 1;
    memcpy(m->note, why, wl);
    m->note[wl] = '\0';
    return 0;
}

#else /* !HS_HAVE_GSL */

int hs_lm_fit(hs_latmodel *m, const hs_lm_obs *obs, size_t n, hs_error *err)
{
    (void)m;
    (void)obs;
    (void)n;
    (void)nll;
    (void)nll_derivs;
    return hs_error_set(err, HS_ENOTSUP, "latmodel fit needs GSL: install libgsl-dev and "
                        "rebuild");
}

#endif

/* ---- the model as JSON and text -------------------------------------------------------- */

static const char *kind_name(int k)
{
    switch (k) {
    case HS_TOPO_FATTREE: return "fattree";
    case HS_TOPO_DRAGONFLY: return "dragonfly";
    case HS_TOPO_TORUS: return "torus";
    case HS_TOPO_FILE: return "file";
    }
    return "unknown";
}

static const char *const PNAME[4] = { "c1_ns", "m1_ns_GBps", "c2_ns2", "m2_ns2_GBps" };
static const char *const STATE[3] = { "fitted", "not_identifiable", "at_bound" };

int hs_lm_write_json(const hs_latmodel *m, FILE *f)
{
    hs_json j;
    hs_json_init(&j, f, 1);
    hs_json_obj_begin(&j);
    hs_json_key(&j, "format");
    hs_json_str(&j, "hopscope-latmodel");
    hs_json_key(&j, "version");
    hs_json_int(&j, 1);
    hs_json_key(&j, "topology_kind");
    hs_json_str(&j, kind_name(m->topo_kind));
    hs_json_key(&j, "input");
    hs_json_str(&j, m->input);
    hs_json_key(&j, "by_class");
    hs_json_bool(&j, m->by_class == 1);
    hs_json_key(&j, "tests");
    hs_json_uint(&j, m->tests);
    hs_json_key(&j, "loglik");
    hs_json_num(&j, m->loglik);
    hs_json_key(&j, "aic");
    hs_json_num(&j, m->aic);
    hs_json_key(&j, "resolution_ns");
    hs_json_num(&j, m->res_ns);
    hs_json_key(&j, "pts_max");
    hs_json_num(&j, HS_LM_PTS_MAX);
    hs_json_key(&j, "note");
    hs_json_str(&j, m->note);
    hs_json_key(&j, "classes");
    hs_json_arr_begin(&j);
    for (unsigned k = 0; k < m->ncls; k++) {
        hs_json_obj_begin(&j);
        hs_json_key(&j, "name");
        hs_json_str(&j, m->cls[k].name);
        for (unsigned q = 0; q < 4; q++) {
            hs_json_key(&j, PNAME[q]);
            hs_json_num(&j, m->cls[k].p[q]);
        }
        hs_json_key(&j, "se");
        hs_json_obj_begin(&j);
        for (unsigned q = 0; q < 4; q++) {
            hs_json_key(&j, PNAME[q]);
            hs_json_num(&j, m->cls[k].se[q]);
        }
        hs_json_obj_end(&j);
        hs_json_key(&j, "links_per_path");
        hs_json_arr_begin(&j);
        hs_json_num(&j, m->cls[k].n_min);
        hs_json_num(&j, m->cls[k].n_max);
        hs_json_arr_end(&j);
        hs_json_key(&j, "state");
        hs_json_obj_begin(&j);
        for (unsigned q = 0; q < 4; q++) {
            hs_json_key(&j, PNAME[q]);
            hs_json_str(&j, STATE[m->cls[k].state[q] < 3 ? m->cls[k].state[q] : 0]);
        }
        hs_json_obj_end(&j);
        hs_json_obj_end(&j);
    }
    hs_json_arr_end(&j);
    hs_json_obj_end(&j);
    int rc = hs_json_finish(&j);
    fputc('\n', f);
    return rc ? HS_EIO : 0;
}

int hs_lm_read_json(const char *path, hs_latmodel *m, hs_error *err)
{
    hs_jdoc *d;
    int rc = hs_jdoc_load(path, 1 << 20, &d, err);
    if (rc)
        return rc;
    memset(m, 0, sizeof *m);
    const hs_jv *root = hs_jdoc_root(d);
    const char *fmt = hs_jv_str(d, hs_jv_get(d, root, "format"));
    const char *kind = hs_jv_str(d, hs_jv_get(d, root, "topology_kind"));
    const char *input = hs_jv_str(d, hs_jv_get(d, root, "input"));
    int64_t ver = 0;
    const hs_jv *cl = hs_jv_get(d, root, "classes");
    rc = HS_EFORMAT;
    if (!fmt || strcmp(fmt, "hopscope-latmodel") != 0)
        hs_error_set(err, rc, "%s: not a latency model (format \"hopscope-latmodel\")", path);
    else if (hs_jv_i64(hs_jv_get(d, root, "version"), &ver) || ver != 1)
        hs_error_set(err, rc = HS_EVERSION, "%s: version %lld, this reader knows 1", path,
                     (long long)ver);
    else if (!kind || !input || hs_jv_kind(cl) != HS_JV_ARR || hs_jv_len(cl) < 1 ||
             hs_jv_len(cl) > HS_LM_MAXCLASS)
        hs_error_set(err, rc, "%s: needs topology_kind, input and 1..%d classes", path,
                     HS_LM_MAXCLASS);
    else
        rc = 0;
    for (int k = 1; k <= 4 && !rc; k++)
        if (strcmp(kind, kind_name(k)) == 0)
            m->topo_kind = k;
    if (!rc && !m->topo_kind)
        rc = hs_error_set(err, HS_EFORMAT, "%s: unknown topology_kind \"%s\"", path, kind);
    if (!rc) {
        snprintf(m->input, sizeof m->input, "%s", input);
        m->ncls = (unsigned)hs_jv_len(cl);
        double t = 0;
        if (!hs_jv_double(hs_jv_get(d, root, "tests"), &t))
            m->tests = (size_t)t;
        hs_jv_double(hs_jv_get(d, root, "loglik"), &m->loglik);
        hs_jv_double(hs_jv_get(d, root, "aic"), &m->aic);
        if (hs_jv_double(hs_jv_get(d, root, "resolution_ns"), &m->res_ns) ||
            !(m->res_ns >= 0 && m->res_ns < 1e9))
            rc = hs_error_set(err, HS_EFORMAT, "%s: resolution_ns missing or out of range", path);
    }
    for (unsigned k = 0; k < m->ncls && !rc; k++) {
        const hs_jv *c = hs_jv_at(d, cl, k);
        const char *nm = hs_jv_str(d, hs_jv_get(d, c, "name"));
        if (!nm || strlen(nm) >= sizeof m->cls[k].name) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: class %u: bad name", path, k);
            break;
        }
        snprintf(m->cls[k].name, sizeof m->cls[k].name, "%s", nm);
        const hs_jv *se = hs_jv_get(d, c, "se");
        const hs_jv *rg = hs_jv_get(d, c, "links_per_path");
        if (hs_jv_double(hs_jv_at(d, rg, 0), &m->cls[k].n_min) ||
            hs_jv_double(hs_jv_at(d, rg, 1), &m->cls[k].n_max) ||
            !(m->cls[k].n_min <= m->cls[k].n_max)) {
            rc = hs_error_set(err, HS_EFORMAT, "%s: class %s: links_per_path must be [min, max]",
                              path, nm);
            break;
        }
        for (unsigned q = 0; q < 4 && !rc; q++) {
            if (hs_jv_double(hs_jv_get(d, c, PNAME[q]), &m->cls[k].p[q]) ||
                !isfinite(m->cls[k].p[q]))
                rc = hs_error_set(err, HS_EFORMAT, "%s: class %s: %s missing or not a number",
                                  path, nm, PNAME[q]);
            if (hs_jv_double(hs_jv_get(d, se, PNAME[q]), &m->cls[k].se[q]))
                m->cls[k].se[q] = NAN;
            const char *st = hs_jv_str(d, hs_jv_get(d, hs_jv_get(d, c, "state"), PNAME[q]));
            for (unsigned z = 0; st && z < 3; z++)
                if (strcmp(st, STATE[z]) == 0)
                    m->cls[k].state[q] = (unsigned char)z;
        }
    }
    /* the classes must be the ones hs_lm_init gives this family */
    if (!rc) {
        int ok = m->ncls == 1 ? strcmp(m->cls[0].name, "all") == 0
               : m->topo_kind == HS_TOPO_DRAGONFLY
                   ? m->ncls == 3 && !strcmp(m->cls[0].name, "endpoint") &&
                     !strcmp(m->cls[1].name, "local") && !strcmp(m->cls[2].name, "global")
                   : m->ncls == 2 && !strcmp(m->cls[0].name, "endpoint") &&
                     !strcmp(m->cls[1].name, "switch");
        if (!ok)
            rc = hs_error_set(err, HS_EFORMAT, "%s: classes do not match a %s topology", path,
                              kind);
        m->by_class = m->ncls > 1;
    }
    hs_jdoc_free(d);
    return rc;
}

void hs_lm_print(const hs_latmodel *m, FILE *f)
{
    fprintf(f, "latency model (%s, %s, congestion input: %s), %zu tests, log-likelihood "
            "%.1f, AIC %.1f\n", kind_name(m->topo_kind), m->by_class == 1 ? "per link class" :
            "one class for all links", m->input, m->tests, m->loglik, m->aic);
    fprintf(f, "  D_l ~ N(c1 + m1/B_eff, c2 + m2/B_eff), B_eff = B_max (1 - P_Ts/100) in GB/s, "
            "latency in ns;\n  measurement resolution %g ns (variance + res^2/12)\n", m->res_ns);
    fprintf(f, "  %-9s %22s %22s %22s %22s\n", "class", "c1 (ns)", "m1 (ns GB/s)",
            "c2 (ns^2)", "m2 (ns^2 GB/s)");
    for (unsigned k = 0; k < m->ncls; k++) {
        fprintf(f, "  %-9s", m->cls[k].name);
        for (unsigned q = 0; q < 4; q++) {
            char b[64];
            if (m->cls[k].state[q] == HS_LM_UNIDENTIFIED)
                snprintf(b, sizeof b, "(not identifiable)");
            else if (m->cls[k].state[q] == HS_LM_AT_BOUND)
                snprintf(b, sizeof b, "0 (at bound)");
            else
                snprintf(b, sizeof b, "%.4g +- %.2g", m->cls[k].p[q], m->cls[k].se[q]);
            fprintf(f, " %22s", b);
        }
        fputc('\n', f);
    }
    if (m->note[0])
        fprintf(f, "  note: %s\n", m->note);
}
