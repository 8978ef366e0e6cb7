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
} walk;

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

int hs_lm_path_get(const hs_topo *t, uint32_t src, uint32_t dst, hs_lm_path *p)
{
    p->n = 0;
    uint32_t N = hs_topo_nodes(t);
    if (src >= N || dst >= N || src == dst)
        return HS_EINVAL;
    walk W = { t, dst, hs_topo_node_switch(t, dst), p, 1, 0 };
    path_add(&W, hs_topo_node_injection(t, src), 1.0);
    walk_from(&W, hs_topo_node_switch(t, src), 1.0, 0);
    return W.rc;
}

/* ---- joining a test with the counters ---------------------------------------------- */

int hs_lm_join(const hs_latmodel *m, const hs_topo *topo, const hs_portcounters *pc,
               const hs_lt *t, hs_lm_obs *o, size_t *missing, hs_error *err)
{
    static _Thread_local hs_lm_path path;
    memset(o, 0, sizeof *o);
    int rc = hs_lm_path_get(topo, t->src, t->dst, &path);
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

void hs_lm_predict_obs(const hs_latmodel *m, const hs_lm_obs *o, double *mean, double *var)
{
    double mu = 0, v = 0;
    for (unsigned k = 0; k < m->ncls; k++) {
        const double *p = m->cls[k].p;
        mu += p[0] * o->n[k] + p[1] * o->s[k];
        v += p[2] * o->n[k] + p[3] * o->s[k];
    }
    *mean = mu;
    *var = v > MIN_VAR ? v : MIN_VAR;
}

/* ---- the likelihood ------------------------------------------------------------------ */

/* Parameters theta[4K]: class k has c1, m1, c2, m2 at 4k..4k+3.  Features
 * of an observation: f[2k] = n_k, f[2k+1] = s_k; mean = sum of theta[4k]
 * f[2k] + theta[4k+1] f[2k+1], variance likewise with theta[4k+2..3]. */
typedef struct lik {
    const hs_lm_obs *obs;
    size_t n;
    unsigned K;
    const double *scale;     /* optimiser works on theta / scale */
} lik;

static void feats(const lik *L, const hs_lm_obs *o, double *f)
{
    for (unsigned k = 0; k < L->K; k++) {
        f[2 * k] = o->n[k];
        f[2 * k + 1] = o->s[k];
    }
}

static void mean_var(const lik *L, const double *th, const double *f, double *M, double *V)
{
    double mu = 0, v = 0;
    for (unsigned k = 0; k < L->K; k++) {
        mu += th[4 * k] * f[2 * k] + th[4 * k + 1] * f[2 * k + 1];
        v += th[4 * k + 2] * f[2 * k] + th[4 * k + 3] * f[2 * k + 1];
    }
    *M = mu;
    *V = v;
}

/* Negative log-likelihood (without the constant); +inf where a variance
 * is not positive. */
static double nll(const lik *L, const double *th)
{
    double s = 0, f[2 * HS_LM_MAXCLASS];
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
    double f[2 * HS_LM_MAXCLASS];
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

static double nm_f(const gsl_vector *u, void *ctx)
{
    const lik *L = ctx;
    double th[4 * HS_LM_MAXCLASS];
    for (unsigned j = 0; j < 4 * L->K; j++)
        th[j] = gsl_vector_get(u, j) * L->scale[j];
    double v = nll(L, th);
    return isfinite(v) ? v : 1e300;   /* Nelder-Mead just rejects such points */
}

/* Least squares of y on the features (columns with no data dropped):
 * the starting point of the mean parameters.  0, or HS_EINVAL when the
 * features are linearly dependent. */
static int ols(const lik *L, const double *y, double *beta, double *cond_out)
{
    unsigned F = 2 * L->K;
    gsl_matrix *A = gsl_matrix_calloc(F, F);
    gsl_vector *b = gsl_vector_calloc(F), *x = gsl_vector_alloc(F);
    double f[2 * HS_LM_MAXCLASS];
    for (size_t i = 0; i < L->n; i++) {
        feats(L, &L->obs[i], f);
        for (unsigned a = 0; a < F; a++) {
            *gsl_vector_ptr(b, a) += f[a] * y[i];
            for (unsigned c = 0; c < F; c++)
                *gsl_matrix_ptr(A, a, c) += f[a] * f[c];
        }
    }
    /* equilibrate: unit diagonal, so the pivots measure collinearity */
    double d[2 * HS_LM_MAXCLASS];
    int rc = 0;
    for (unsigned a = 0; a < F; a++) {
        d[a] = sqrt(gsl_matrix_get(A, a, a));
        if (!(d[a] > 0))
            rc = HS_EINVAL;
    }
    if (!rc) {
        for (unsigned a = 0; a < F; a++) {
            for (unsigned c = 0; c < F; c++)
                *gsl_matrix_ptr(A, a, c) /= d[a] * d[c];
            *gsl_vector_ptr(b, a) /= d[a];
        }
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        if (gsl_linalg_cholesky_decomp1(A))
            rc = HS_EINVAL;
        double mn = INFINITY, mx = 0;
        for (unsigned a = 0; a < F && !rc; a++) {
            double p = gsl_matrix_get(A, a, a);
            mn = p < mn ? p : mn;
            mx = p > mx ? p : mx;
        }
        if (!rc && cond_out)
            *cond_out = (mx / mn) * (mx / mn);
        if (!rc && (mx / mn) * (mx / mn) > 1e12)
            rc = HS_EINVAL;
        if (!rc && gsl_linalg_cholesky_solve(A, b, x))
            rc = HS_EINVAL;
        gsl_set_error_handler(old);
        for (unsigned a = 0; a < F && !rc; a++)
            beta[a] = gsl_vector_get(x, a) / d[a];
    }
    gsl_matrix_free(A);
    gsl_vector_free(b);
    gsl_vector_free(x);
    return rc;
}

/* Inverts the symmetric h[P x P] into cov; 0, or HS_EINVAL if it is not
 * positive definite. */
static int invert_spd(const double *h, unsigned P, double *cov)
{
    gsl_matrix *A = gsl_matrix_alloc(P, P);
    for (unsigned a = 0; a < P; a++)
        for (unsigned b = 0; b < P; b++)
            gsl_matrix_set(A, a, b, 0.5 * (h[a * P + b] + h[b * P + a]));
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_invert(A) ? HS_EINVAL : 0;
    gsl_set_error_handler(old);
    for (unsigned a = 0; a < P && !rc; a++)
        for (unsigned b = 0; b < P; b++)
            cov[a * P + b] = gsl_matrix_get(A, a, b);
    gsl_matrix_free(A);
    return rc;
}

/* Newton steps with backtracking from th (feasible); stops when a step no
 * longer lowers the objective.  Returns the final value. */
static double newton(const lik *L, double *th)
{
    unsigned P = 4 * L->K;
    double g[4 * HS_LM_MAXCLASS], h[16 * HS_LM_MAXCLASS * HS_LM_MAXCLASS];
    double cov[16 * HS_LM_MAXCLASS * HS_LM_MAXCLASS], step[4 * HS_LM_MAXCLASS];
    double t2[4 * HS_LM_MAXCLASS];
    double v = nll(L, th);
    for (int it = 0; it < 100; it++) {
        nll_derivs(L, th, g, h);
        if (invert_spd(h, P, cov))
            break;
        for (unsigned a = 0; a < P; a++) {
            step[a] = 0;
            for (unsigned b = 0; b < P; b++)
                step[a] -= cov[a * P + b] * g[b];
        }
        double lam = 1, nv = INFINITY;
        for (int ls = 0; ls < 40; ls++, lam /= 2) {
            for (unsigned a = 0; a < P; a++)
                t2[a] = th[a] + lam * step[a];
            nv = nll(L, t2);
            if (nv <= v)
                break;
        }
        if (!(nv <= v))
            break;
        memcpy(th, t2, P * sizeof *th);
        double dv = v - nv;
        v = nv;
        if (dv < 1e-12 * (1 + fabs(v)))
            break;
    }
    return v;
}

/* Fits the K classes of m to obs; fills m->cls[].p, .se, loglik, aic. */
static int fit_once(hs_latmodel *m, const hs_lm_obs *obs, size_t n, hs_error *err)
{
    unsigned K = m->ncls, P = 4 * K, F = 2 * K;
    if (n < (size_t)TESTS_PER_PARAM * P) {
        snprintf(m->note, sizeof m->note, "%zu tests for %u parameters (at least %u needed)", n,
                 P, TESTS_PER_PARAM * P);
        return hs_error_set(err, HS_EINVAL, "latmodel fit: %s", m->note);
    }
    double scale[4 * HS_LM_MAXCLASS];
    lik L = { obs, n, K, scale };
    double *y = calloc(n, sizeof *y), *r2 = calloc(n, sizeof *r2);
    if (!y || !r2) {
        free(y);
        free(r2);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        y[i] = obs[i].y;
    double beta[2 * HS_LM_MAXCLASS] = { 0 }, gam[2 * HS_LM_MAXCLASS] = { 0 };
    double th[4 * HS_LM_MAXCLASS] = { 0 };
    double cond = 0;
    int rc = ols(&L, y, beta, &cond);
    if (rc) {
        snprintf(m->note, sizeof m->note, "the tests cannot tell the classes' parameters apart "
                 "(path link counts and 1/B_eff sums are collinear)");
        free(y);
        free(r2);
        return hs_error_set(err, HS_EINVAL, "latmodel fit: %s", m->note);
    }
    /* variance: least squares of the squared residuals, or a constant per
     * link where that gives a non-positive variance somewhere */
    double f[2 * HS_LM_MAXCLASS], mean_r2 = 0, mean_n = 0, mean_s = 0;
    for (size_t i = 0; i < n; i++) {
        feats(&L, &obs[i], f);
        double M = 0, nn = 0;
        for (unsigned a = 0; a < F; a++)
            M += beta[a] * f[a];
        for (unsigned k = 0; k < K; k++) {
            nn += f[2 * k];
            mean_s += f[2 * k + 1] / (double)n;
        }
        r2[i] = (y[i] - M) * (y[i] - M);
        mean_r2 += r2[i] / (double)n;
        mean_n += nn / (double)n;
    }
    if (!(mean_r2 > 0))
        mean_r2 = 1e-6 * (1 + fabs(y[0]));   /* an exact fit: start near zero variance */
    int var_ok = ols(&L, r2, gam, NULL) == 0;
    for (unsigned k = 0; k < K; k++) {
        th[4 * k] = beta[2 * k];
        th[4 * k + 1] = beta[2 * k + 1];
        th[4 * k + 2] = var_ok ? gam[2 * k] : mean_r2 / mean_n;
        th[4 * k + 3] = var_ok ? gam[2 * k + 1] : 0;
    }
    if (!isfinite(nll(&L, th)))
        for (unsigned k = 0; k < K; k++) {
            th[4 * k + 2] = mean_r2 / mean_n;
            th[4 * k + 3] = 0;
        }
    /* scales: the size a parameter's term would have if it explained it all */
    double ybar = 0;
    for (size_t i = 0; i < n; i++)
        ybar += y[i] / (double)n;
    for (unsigned k = 0; k < K; k++) {
        double sc[4] = { ybar / mean_n, ybar / mean_s, mean_r2 / mean_n, mean_r2 / mean_s };
        for (unsigned j = 0; j < 4; j++) {
            double s = fabs(th[4 * k + j]) > sc[j] * 1e-3 ? fabs(th[4 * k + j]) : sc[j];
            scale[4 * k + j] = isfinite(s) && s > 0 ? s : 1.0;
        }
    }
    free(r2);
    free(y);
    /* Nelder-Mead on the scaled parameters, then Newton to the optimum */
    gsl_multimin_function fn = { nm_f, P, &L };
    gsl_vector *u = gsl_vector_alloc(P), *ss = gsl_vector_alloc(P);
    for (unsigned j = 0; j < P; j++) {
        gsl_vector_set(u, j, th[j] / scale[j]);
        gsl_vector_set(ss, j, 0.1);
    }
    gsl_multimin_fminimizer *mn = gsl_multimin_fminimizer_alloc(
        gsl_multimin_fminimizer_nmsimplex2, P);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (mn && gsl_multimin_fminimizer_set(mn, &fn, u, ss) == GSL_SUCCESS) {
        for (int it = 0; it < 20000; it++) {
            if (gsl_multimin_fminimizer_iterate(mn))
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(mn), 1e-8) == GSL_SUCCESS)
                break;
        }
        const gsl_vector *x = gsl_multimin_fminimizer_x(mn);
        double cand[4 * HS_LM_MAXCLASS];
        for (unsigned j = 0; j < P; j++)
            cand[j] = gsl_vector_get(x, j) * scale[j];
        if (nll(&L, cand) <= nll(&L, th))
            memcpy(th, cand, P * sizeof *th);
    }
    gsl_set_error_handler(old);
    gsl_multimin_fminimizer_free(mn);
    gsl_vector_free(u);
    gsl_vector_free(ss);
    double v = newton(&L, th);
    if (!isfinite(v)) {
        snprintf(m->note, sizeof m->note, "no parameters give every test a positive variance");
        return hs_error_set(err, HS_EINVAL, "latmodel fit: %s", m->note);
    }
    double g[4 * HS_LM_MAXCLASS], h[16 * HS_LM_MAXCLASS * HS_LM_MAXCLASS];
    double cov[16 * HS_LM_MAXCLASS * HS_LM_MAXCLASS];
    nll_derivs(&L, th, g, h);
    int se_ok = invert_spd(h, P, cov) == 0;
    for (unsigned k = 0; k < K; k++)
        for (unsigned j = 0; j < 4; j++) {
            unsigned a = 4 * k + j;
            m->cls[k].p[j] = th[a];
            m->cls[k].se[j] = se_ok && cov[a * P + a] >= 0 ? sqrt(cov[a * P + a]) : NAN;
        }
    m->tests = n;
    m->loglik = -v - 0.5 * (double)n * log(2 * 3.14159265358979323846);
    m->aic = 2.0 * P - 2.0 * m->loglik;
    if (!se_ok)
        snprintf(m->note, sizeof m->note, "the Hessian is not positive definite at the optimum: "
                 "no standard errors");
    (void)cond;
    return 0;
}

int hs_lm_fit(hs_latmodel *m, const hs_lm_obs *obs, size_t n, hs_error *err)
{
    m->note[0] = '\0';
    if (m->by_class != HS_LM_AUTO)
        return fit_once(m, obs, n, err);
    /* auto: by class when the data identifies it and the AIC prefers it */
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
    int rc = fit_once(&pooled, po, n, err);
    free(po);
    if (rc) {
        *m = pooled;
        return rc;
    }
    hs_error e2;
    cls.by_class = 1;
    int rc2 = m->ncls > 1 ? fit_once(&cls, obs, n, &e2) : HS_EINVAL;
    int use_cls = rc2 == 0 && cls.aic < pooled.aic && !cls.note[0];
    char why[sizeof m->note + 64];
    if (m->ncls == 1)
        snprintf(why, sizeof why, "one class only");
    else if (rc2)
        snprintf(why, sizeof why, "classes not fitted: %s", cls.note);
    else if (cls.note[0])
        snprintf(why, sizeof why, "classes not used: %s", cls.note);
    else if (!use_cls)
        snprintf(why, sizeof why, "classes not used: AIC %.1f, pooled %.1f", cls.aic, pooled.aic);
    else
        why[0] = '\0';
    double paic = pooled.aic;
    *m = use_cls ? cls : pooled;
    m->pooled_aic = paic;
    snprintf(m->note, sizeof m->note, "%s", why);
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
        for (unsigned q = 0; q < 4 && !rc; q++) {
            if (hs_jv_double(hs_jv_get(d, c, PNAME[q]), &m->cls[k].p[q]) ||
                !isfinite(m->cls[k].p[q]))
                rc = hs_error_set(err, HS_EFORMAT, "%s: class %s: %s missing or not a number",
                                  path, nm, PNAME[q]);
            if (hs_jv_double(hs_jv_get(d, se, PNAME[q]), &m->cls[k].se[q]))
                m->cls[k].se[q] = NAN;
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
    fprintf(f, "latency model (%s, %s links, congestion input: %s), %zu tests, log-likelihood "
            "%.1f, AIC %.1f\n", kind_name(m->topo_kind), m->by_class == 1 ? "per class of" :
            "one class for all", m->input, m->tests, m->loglik, m->aic);
    fprintf(f, "  D_l ~ N(c1 + m1/B_eff, c2 + m2/B_eff), B_eff = B_max (1 - P_Ts/100) in GB/s, "
            "latency in ns\n");
    fprintf(f, "  %-9s %22s %22s %22s %22s\n", "class", "c1 (ns)", "m1 (ns GB/s)",
            "c2 (ns^2)", "m2 (ns^2 GB/s)");
    for (unsigned k = 0; k < m->ncls; k++) {
        fprintf(f, "  %-9s", m->cls[k].name);
        for (unsigned q = 0; q < 4; q++) {
            char b[64];
            snprintf(b, sizeof b, "%.4g +- %.2g", m->cls[k].p[q], m->cls[k].se[q]);
            fprintf(f, " %22s", b);
        }
        fputc('\n', f);
    }
    if (m->note[0])
        fprintf(f, "  note: %s\n", m->note);
}
