/* The culprit model (docs/culprits.md): gradient-boosted regression trees
 * (XGBoost's C API) predict a run's time from its features; the held-out
 * accuracy (the study's RCC, R^2), k-fold cross validation, feature
 * importances (gain, permutation), feature-subset searches (greedy forward;
 * exhaustive over processes when the features are few) and quantile models
 * of the fast and the slow runs say which component the time depends on.
 *
 * Invariants: every random choice comes from the model's RNG seeded by
 * params.seed in a fixed order; XGBoost runs with one thread, the exact
 * tree method and no sampling, so a fit is a pure function of its input and
 * the result is byte-identical run to run (the exhaustive search only
 * spreads independent fits over processes).  Features and the response are
 * min-max scaled by the training runs of each fit; predictions are given
 * back in the response's units. */
#include "hopscope/analyzer.h"
#include "../common/rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#if HS_HAVE_XGBOOST
#include <xgboost/c_api.h>
#endif

#define EXHAUSTIVE_LIMIT 20    /* features: 2^20 subsets is the most ever scored */
#define BEST_KEPT 10           /* exhaustive search: subsets reported */
#define MAX_JOBS 256

void hs_cul_params_default(hs_cul_params *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1;
    p->rounds = 200;
    p->depth = 4;
    p->eta = 0.1;
    p->test_fraction = 1.0 / 3.0;
    p->folds = 5;
    p->perm_repeats = 5;
    p->greedy = 1;
    p->greedy_steps = 10;
    p->search_folds = 3;
    p->exhaustive_max = 10;
    p->jobs = 0;
    p->nquantiles = 2;
    p->quantiles[0] = 0.1;
    p->quantiles[1] = 0.9;
    p->q_depth = 2;
    p->q_rounds = 50;
    p->q_calibrate = 1;
}

/* ---- metrics ------------------------------------------------------------------ */

double hs_cul_rcc(const double *obs, const double *pred, size_t n)
{
    if (n < 2)
        return NAN;
    double concord = 0;
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if ((obs[i] >= obs[j] && pred[i] >= pred[j]) || (obs[i] < obs[j] && pred[i] < pred[j]))
                concord++;
    return concord / ((double)n * (double)(n - 1) / 2);
}

double hs_cul_r2(const double *obs, const double *pred, size_t n)
{
    if (n < 1)
        return NAN;
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += obs[i];
    mean /= (double)n;
    double res = 0, tot = 0;
    for (size_t i = 0; i < n; i++) {
        res += (obs[i] - pred[i]) * (obs[i] - pred[i]);
        tot += (obs[i] - mean) * (obs[i] - mean);
    }
    return tot > 0 ? 1 - res / tot : NAN;
}

void hs_cul_result_free(hs_cul_result *r)
{
    if (!r)
        return;
    free(r->test_row);
    free(r->test_pred);
    free(r->fold_rcc);
    free(r->fold_r2);
    free(r->imp);
    free(r->rank);
    free(r->steps);
    free(r->best);
    for (unsigned q = 0; q < r->nq; q++) {
        free(r->q[q].gain);
        free(r->q[q].pred);
    }
    free(r->q);
    free(r->gen_pred);
    memset(r, 0, sizeof *r);
}

#if HS_HAVE_XGBOOST

const char *hs_cul_library(void)
{
    static char v[48];
    int a, b, c;
    XGBoostVersion(&a, &b, &c);
    snprintf(v, sizeof v, "xgboost %d.%d.%d", a, b, c);
    return v;
}

static double mean_sd(const double *v, size_t n, double *sd)
{
    double m = 0, s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            m += v[i], k++;
    if (!k) {
        *sd = NAN;
        return NAN;
    }
    m /= (double)k;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            s += (v[i] - m) * (v[i] - m);
    *sd = k > 1 ? sqrt(s / (double)(k - 1)) : 0;
    return m;
}

/* ---- scaling and matrices ----------------------------------------------------- */

typedef struct scaler {
    double *lo, *hi;          /* nf */
    double  ylo, yhi;
} scaler;

static void scaler_free(scaler *s)
{
    free(s->lo);
    free(s->hi);
}

/* What the models fit for run i: the response, or the response per unit
 * of the --per column; back() turns a model's value for run i into the
 * response's units. */
static double resp(const hs_cul_data *d, size_t i)
{
    return d->per ? d->y[i] / d->per[i] : d->y[i];
}
static double back(const hs_cul_data *d, size_t i, double v)
{
    return d->per ? v * d->per[i] : v;
}

/* Min and max of each feature and of the response over rows[0..n). */
static int scaler_fit(const hs_cul_data *d, const size_t *rows, size_t n, scaler *s)
{
    s->lo = malloc(d->nf * sizeof *s->lo);
    s->hi = malloc(d->nf * sizeof *s->hi);
    if (!s->lo || !s->hi) {
        scaler_free(s);
        return HS_ENOMEM;
    }
    for (uint32_t f = 0; f < d->nf; f++)
        s->lo[f] = INFINITY, s->hi[f] = -INFINITY;
    s->ylo = INFINITY, s->yhi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double *x = d->x + rows[i] * d->nf;
        for (uint32_t f = 0; f < d->nf; f++) {
            s->lo[f] = fmin(s->lo[f], x[f]);
            s->hi[f] = fmax(s->hi[f], x[f]);
        }
        s->ylo = fmin(s->ylo, resp(d, rows[i]));
        s->yhi = fmax(s->yhi, resp(d, rows[i]));
    }
    return 0;
}

/* Values far outside the training runs' range stay finite floats (a test
 * run may lie anywhere; the trees only compare against split points in
 * [0, 1]). */
#define SCALED_MAX 1e30
static double scale(double v, double lo, double hi)
{
    double s = hi > lo ? (v - lo) / (hi - lo) : 0;
    return isfinite(s) ? fmax(-SCALED_MAX, fmin(SCALED_MAX, s)) : 0;
}

static double yscale(const scaler *s, double y) { return scale(y, s->ylo, s->yhi); }
static double yunscale(const scaler *s, double v)
{
    return s->yhi > s->ylo ? s->ylo + v * (s->yhi - s->ylo) : s->ylo;
}

/* Rows rows[0..n) of features feat[0..k), scaled, as floats (row-major). */
static float *matrix(const hs_cul_data *d, const size_t *rows, size_t n, const uint32_t *feat,
                     uint32_t k, const scaler *s)
{
    float *m = malloc((n ? n : 1) * (k ? k : 1) * sizeof *m);
    if (!m)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < k; j++) {
            uint32_t f = feat[j];
            m[i * k + j] = (float)scale(d->x[rows[i] * d->nf + f], s->lo[f], s->hi[f]);
        }
    return m;
}

/* ---- XGBoost ------------------------------------------------------------------ */

static int xgb_error(hs_error *err, const char *what)
{
    return hs_error_set(err, HS_EINVAL, "xgboost: %s: %s", what, XGBGetLastError());
}

static void xgb_quiet(void)
{
    static int done;
    if (!done) {
        XGBSetGlobalConfig("{\"verbosity\":0}");
        done = 1;
    }
}

/* A DMatrix of x (n x k) with labels y (may be NULL). */
static int dmatrix(const float *x, const float *y, size_t n, uint32_t k, DMatrixHandle *out,
                   hs_error *err)
{
    if (XGDMatrixCreateFromMat_omp(x, n, k, NAN, out, 1))
        return xgb_error(err, "DMatrix");
    if (y && XGDMatrixSetFloatInfo(*out, "label", y, n)) {
        XGDMatrixFree(*out);
        return xgb_error(err, "labels");
    }
    return 0;
}

/* The tau-quantile of v[0..n) as the pinball loss defines it: the smallest
 * value with at least tau n of the values at or below it (a minimiser of
 * the mean pinball loss).  Sorts v. */
static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}
static double quantile_of(float *v, size_t n, double tau)
{
    qsort(v, n, sizeof *v, cmp_float);
    double k = ceil(tau * (double)n - 1e-9);
    size_t i = k < 1 ? 0 : (size_t)k - 1;
    return v[i < n ? i : n - 1];
}

/* A quantile model.  XGBoost grows each tree on the pinball loss's
 * gradient (a custom objective through XGBoosterBoostOneIter); the value
 * of each leaf is ours: the tau-quantile of the residuals of the training
 * runs in it, times eta (Friedman's gradient boosting for the quantile
 * loss; XGBoost's own leaf value -G / (H + lambda) is a subgradient step
 * that moves a leaf by at most eta tau per round upwards and eta (1 - tau)
 * downwards, and never settles; docs/culprits.md).  A run's prediction is
 * base plus the values of the leaves it falls in, one per tree. */
typedef struct qmodel {
    BoosterHandle b;
    double   base;
    unsigned trees, width;     /* width: node ids of a tree of the depth */
    double  *leaf;             /* trees x width */
} qmodel;

static void qmodel_free(qmodel *m)
{
    if (m->b)
        XGBoosterFree(m->b);
    free(m->leaf);
    memset(m, 0, sizeof *m);
}

/* Node ids of the leaves each of the n runs of dm falls in, for trees
 * [t0, t1): n x (t1 - t0) values into out. */
static int leaf_ids(BoosterHandle b, DMatrixHandle dm, unsigned t0, unsigned t1, size_t n,
                    float *out, hs_error *err)
{
    /* XGBoost 1.7 predicts leaves only from the first tree on: a slice of
     * the booster holds trees [t0, t1) */
    BoosterHandle sl = b;
    if (t0 && XGBoosterSlice(b, (int)t0, (int)t1, 1, &sl))
        return xgb_error(err, "slicing the trees");
    char cfg[160];
    snprintf(cfg, sizeof cfg, "{\"type\": 6, \"training\": false, \"iteration_begin\": 0, "
             "\"iteration_end\": %u, \"strict_shape\": false}", t1 - t0);
    const bst_ulong *shape;
    const float *f;
    bst_ulong dim, len = 1;
    int rc = 0;
    if (XGBoosterPredictFromDMatrix(sl, dm, cfg, &shape, &dim, &f)) {
        rc = xgb_error(err, "leaf prediction");
    } else {
        for (bst_ulong i = 0; i < dim; i++)
            len *= shape[i];
        if (len != (bst_ulong)n * (t1 - t0))
            rc = hs_error_set(err, HS_EINVAL, "xgboost: leaf prediction: %llu values for %zu "
                              "runs and %u trees", (unsigned long long)len, n, t1 - t0);
        else
            memcpy(out, f, len * sizeof *out);   /* the slice owns f */
    }
    if (sl != b)
        XGBoosterFree(sl);
    return rc;
}

/* Sets the booster's parameters: the squared-error objective (used only
 * by the mean model; the quantile models pass their own gradients), exact
 * splits, one thread, no sampling, the depth, eta and seed; min_child_weight
 * (the least hessian, here runs, in a leaf) when mcw > 0. */
static int xgb_params(BoosterHandle b, const hs_cul_params *p, unsigned depth, double base,
                      unsigned mcw, hs_error *err)
{
    struct { const char *k; char v[32]; } ps[] = {
        { "objective", "reg:squarederror" }, { "tree_method", "exact" }, { "nthread", "1" },
        { "verbosity", "0" }, { "subsample", "1" }, { "colsample_bytree", "1" },
        { "max_depth", "" }, { "eta", "" }, { "seed", "" }, { "base_score", "" },
        { "min_child_weight", "1" },
    };
    snprintf(ps[6].v, sizeof ps[6].v, "%u", depth);
    snprintf(ps[7].v, sizeof ps[7].v, "%.17g", p->eta);
    snprintf(ps[8].v, sizeof ps[8].v, "%llu", (unsigned long long)(p->seed & 0x7fffffff));
    snprintf(ps[9].v, sizeof ps[9].v, "%.9g", base);
    if (mcw)
        snprintf(ps[10].v, sizeof ps[10].v, "%u", mcw);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        if (XGBoosterSetParam(b, ps[i].k, ps[i].v))
            return xgb_error(err, ps[i].k);
    return 0;
}

/* Fits the mean model (squared error) on x (n x k) and scaled responses y. */
static int xgb_train(const float *x, const float *y, size_t n, uint32_t k, const hs_cul_params *p,
                     BoosterHandle *out, hs_error *err)
{
    xgb_quiet();
    DMatrixHandle dm;
    int rc = dmatrix(x, y, n, k, &dm, err);
    if (rc)
        return rc;
    BoosterHandle b;
    if (XGBoosterCreate(&dm, 1, &b)) {
        XGDMatrixFree(dm);
        return xgb_error(err, "booster");
    }
    rc = xgb_params(b, p, p->depth, 0.5, 0, err);
    for (unsigned it = 0; !rc && it < p->rounds; it++)
        if (XGBoosterUpdateOneIter(b, (int)it, dm))
            rc = xgb_error(err, "boosting");
    XGDMatrixFree(dm);
    if (rc)
        XGBoosterFree(b);
    else
        *out = b;
    return rc;
}

/* The least number of training runs in a leaf of a quantile tree:
 * --quantile-min-leaf, or by default enough runs that the leaf's
 * tau-quantile is not its extreme run: ceil(2 / min(tau, 1 - tau))
 * (20 for 0.1 and 0.9). */
static unsigned q_min_leaf(const hs_cul_params *p, double tau)
{
    if (p->q_min_leaf)
        return p->q_min_leaf;
    double t = fmin(tau, 1 - tau);
    return (unsigned)ceil(2 / t - 1e-9);
}

/* Fits the quantile model of level tau on x (n x k) and scaled responses y
 * (see qmodel). */
static int q_train(const float *x, const float *y, size_t n, uint32_t k, const hs_cul_params *p,
                   double tau, qmodel *m, hs_error *err)
{
    xgb_quiet();
    memset(m, 0, sizeof *m);
    DMatrixHandle dm;
    int rc = dmatrix(x, y, n, k, &dm, err);
    if (rc)
        return rc;
    float *g = malloc(n * sizeof *g), *h = malloc(n * sizeof *h), *r = malloc(n * sizeof *r);
    double *f = malloc(n * sizeof *f);
    m->trees = p->q_rounds;
    m->width = (1u << (p->q_depth + 1)) - 1;
    if ((double)m->trees * m->width * sizeof *m->leaf > (double)(1u << 30)) {
        XGDMatrixFree(dm);
        return hs_error_set(err, HS_EINVAL, "quantile models: %u rounds of depth %u need a "
                            "table of %.0f MiB of leaf values: fewer rounds or a smaller depth",
                            m->trees, p->q_depth,
                            (double)m->trees * m->width * sizeof *m->leaf / 1048576);
    }
    m->leaf = calloc((size_t)m->trees * m->width, sizeof *m->leaf);
    size_t *cnt = calloc(m->width, sizeof *cnt), *at = malloc((m->width + 1) * sizeof *at);
    float *byleaf = malloc(n * sizeof *byleaf), *id = malloc(n * sizeof *id);
    if (!g || !h || !r || !f || !m->leaf || !cnt || !at || !byleaf || !id) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(r, y, n * sizeof *r);
    m->base = quantile_of(r, n, tau);
    for (size_t i = 0; i < n; i++)
        f[i] = m->base;
    if (XGBoosterCreate(&dm, 1, &m->b)) {
        m->b = NULL;
        rc = xgb_error(err, "booster");
        goto out;
    }
    if ((rc = xgb_params(m->b, p, p->q_depth, m->base, q_min_leaf(p, tau), err)))
        goto out;
    for (unsigned t = 0; t < m->trees && !rc; t++) {
        for (size_t i = 0; i < n; i++) {
            double u = (double)y[i] - f[i];
            g[i] = u > 0 ? (float)-tau : (float)(1 - tau);
            h[i] = 1.0f;
        }
        if (XGBoosterBoostOneIter(m->b, dm, g, h, n)) {
            rc = xgb_error(err, "boosting (pinball loss)");
            break;
        }
        if ((rc = leaf_ids(m->b, dm, t, t + 1, n, id, err)))
            break;
        /* the residuals grouped by leaf (counting sort by node id) */
        memset(cnt, 0, m->width * sizeof *cnt);
        for (size_t i = 0; i < n; i++) {
            if (!(id[i] >= 0 && id[i] < (float)m->width)) {
                rc = hs_error_set(err, HS_EINVAL, "xgboost: leaf %g outside a tree of depth %u",
                                  (double)id[i], p->q_depth);
                break;
            }
            cnt[(unsigned)id[i]]++;
        }
        if (rc)
            break;
        at[0] = 0;
        for (unsigned v = 0; v < m->width; v++)
            at[v + 1] = at[v] + cnt[v];
        for (size_t i = 0; i < n; i++)
            byleaf[at[(unsigned)id[i]]++] = (float)((double)y[i] - f[i]);
        double *lv = m->leaf + (size_t)t * m->width;
        for (unsigned v = 0, s = 0; v < m->width; s += (unsigned)cnt[v], v++)
            if (cnt[v])
                lv[v] = p->eta * quantile_of(byleaf + s, cnt[v], tau);
        for (size_t i = 0; i < n; i++)
            f[i] += lv[(unsigned)id[i]];
    }
out:
    XGDMatrixFree(dm);
    free(g);
    free(h);
    free(r);
    free(f);
    free(cnt);
    free(at);
    free(byleaf);
    free(id);
    if (rc)
        qmodel_free(m);
    return rc;
}

/* Scaled predictions of the quantile model for x (n x k) into out. */
static int q_predict(const qmodel *m, const float *x, size_t n, uint32_t k, double *out,
                     hs_error *err)
{
    DMatrixHandle dm;
    int rc = dmatrix(x, NULL, n, k, &dm, err);
    if (rc)
        return rc;
    float *id = malloc((n ? n : 1) * m->trees * sizeof *id);
    if (!id)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    else if (!(rc = leaf_ids(m->b, dm, 0, m->trees, n, id, err)))
        for (size_t i = 0; i < n; i++) {
            double v = m->base;
            for (unsigned t = 0; t < m->trees; t++) {
                float u = id[i * m->trees + t];
                if (u >= 0 && u < (float)m->width)
                    v += m->leaf[(size_t)t * m->width + (unsigned)u];
            }
            out[i] = v;
        }
    free(id);
    XGDMatrixFree(dm);
    return rc;
}

/* Scaled predictions of x (n x k) into out. */
static int predict(BoosterHandle b, const float *x, size_t n, uint32_t k, double *out,
                   hs_error *err)
{
    DMatrixHandle dm;
    int rc = dmatrix(x, NULL, n, k, &dm, err);
    if (rc)
        return rc;
    bst_ulong len;
    const float *f;
    if (XGBoosterPredict(b, dm, 0, 0, 0, &len, &f) || len != n)
        rc = xgb_error(err, "prediction");
    else
        for (size_t i = 0; i < n; i++)
            out[i] = f[i];
    XGDMatrixFree(dm);
    return rc;
}

/* Each feature's share of the total split gain (k of them; 0 unused). */
static int gain_share(BoosterHandle b, uint32_t k, double *out, hs_error *err)
{
    bst_ulong nf, dim;
    const char **names;
    const bst_ulong *shape;
    const float *sc;
    for (uint32_t j = 0; j < k; j++)
        out[j] = 0;
    if (XGBoosterFeatureScore(b, "{\"importance_type\": \"total_gain\"}", &nf, &names, &dim,
                              &shape, &sc))
        return xgb_error(err, "feature scores");
    double tot = 0;
    for (bst_ulong i = 0; i < nf; i++) {
        char *e;
        unsigned long j = names[i][0] == 'f' ? strtoul(names[i] + 1, &e, 10) : k;
        if (j < k && sc[i] > 0)
            out[j] += sc[i], tot += sc[i];
    }
    if (tot > 0)
        for (uint32_t j = 0; j < k; j++)
            out[j] /= tot;
    return 0;
}

/* ---- fits on row sets -------------------------------------------------------------- */

/* One model on the runs train[0..nt) with features feat[0..k), scaled by
 * those runs; predictions of test[0..ne) in the response's units into
 * pred; gain shares into gain (k) when not NULL; the model into *keep when
 * not NULL (with its scaler into *ks). */
static int fit_predict(const hs_cul_data *d, const size_t *tr, size_t nt, const size_t *te,
                       size_t ne, const uint32_t *feat, uint32_t k, const hs_cul_params *p,
                       double tau, double *pred, double *gain, hs_error *err)
{
    scaler s = { 0 };
    float *xt = NULL, *yt = NULL, *xe = NULL;
    BoosterHandle b = NULL;
    int rc = scaler_fit(d, tr, nt, &s);
    if (rc)
        return hs_error_set(err, rc, "out of memory");
    xt = matrix(d, tr, nt, feat, k, &s);
    xe = matrix(d, te, ne, feat, k, &s);
    yt = malloc((nt ? nt : 1) * sizeof *yt);
    if (!xt || !xe || !yt) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nt; i++)
        yt[i] = (float)yscale(&s, resp(d, tr[i]));
    if (tau >= 0) {
        qmodel m;
        if ((rc = q_train(xt, yt, nt, k, p, tau, &m, err)))
            goto out;
        b = m.b;                /* freed below; the gain shares are the trees' */
        m.b = NULL;
        rc = ne ? q_predict(&(qmodel){ b, m.base, m.trees, m.width, m.leaf }, xe, ne, k, pred,
                            err) : 0;
        qmodel_free(&m);
        if (rc)
            goto out;
    } else {
        if ((rc = xgb_train(xt, yt, nt, k, p, &b, err)))
            goto out;
        if (ne && (rc = predict(b, xe, ne, k, pred, err)))
            goto out;
    }
    for (size_t i = 0; i < ne; i++)
        pred[i] = back(d, te[i], yunscale(&s, pred[i]));
    if (gain)
        rc = gain_share(b, k, gain, err);
out:
    if (b)
        XGBoosterFree(b);
    free(xt);
    free(yt);
    free(xe);
    scaler_free(&s);
    return rc;
}

/* Fold f of rows[0..n) split into `folds` (row i of the list in fold
 * i mod folds): te[0..*ne) the fold, tr[0..*nt) the other rows. */
static void fold_split(const size_t *rows, size_t n, unsigned folds, unsigned f, size_t *tr,
                       size_t *nt, size_t *te, size_t *ne)
{
    *nt = *ne = 0;
    for (size_t i = 0; i < n; i++)
        if (i % folds == f)
            te[(*ne)++] = rows[i];
        else
            tr[(*nt)++] = rows[i];
}

/* R^2 of the out-of-fold predictions of rows[0..n) split into `folds`
 * (row i of the list in fold i mod folds): how well features feat[0..k)
 * predict runs they were not fitted on, without touching the held-out
 * runs. */
static int cv_r2(const hs_cul_data *d, const size_t *rows, size_t n, unsigned folds,
                 const uint32_t *feat, uint32_t k, const hs_cul_params *p, double *out,
                 hs_error *err)
{
    size_t *tr = malloc(n * sizeof *tr), *te = malloc(n * sizeof *te);
    double *pred = malloc(n * sizeof *pred), *obs = malloc(n * sizeof *obs),
           *all = malloc(n * sizeof *all);
    int rc = 0;
    if (!tr || !te || !pred || !obs || !all) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    size_t m = 0;
    for (unsigned f = 0; f < folds && !rc; f++) {
        size_t nt, ne;
        fold_split(rows, n, folds, f, tr, &nt, te, &ne);
        rc = fit_predict(d, tr, nt, te, ne, feat, k, p, -1, pred, NULL, err);
        for (size_t i = 0; !rc && i < ne; i++, m++) {
            obs[m] = d->y[te[i]];
            all[m] = pred[i];
        }
    }
    if (!rc)
        *out = hs_cul_r2(obs, all, m);
out:
    free(tr);
    free(te);
    free(pred);
    free(obs);
    free(all);
    return rc;
}

/* The calibration of a quantile model of level tau fitted on rows[0..n)
 * (one-sided conformalised quantile regression, with out-of-fold
 * predictions): each run of the list is predicted by a model of the other
 * folds (run i in fold i mod folds), and the shift is the
 * ceil(tau (n + 1))-th smallest of y - prediction, the amount to add to
 * the model's predictions so that a share tau of new runs lies at or below
 * them (a model fitted on the runs it then predicts reaches its level on
 * them by construction, and falls short of it on new runs). */
static int q_shift(const hs_cul_data *d, const size_t *rows, size_t n, const uint32_t *feat,
                   uint32_t k, const hs_cul_params *p, double tau, double *shift, hs_error *err)
{
    unsigned folds = p->folds;
    size_t *tr = malloc(n * sizeof *tr), *te = malloc(n * sizeof *te);
    double *pred = malloc(n * sizeof *pred);
    float *res = malloc(n * sizeof *res);
    int rc = 0;
    size_t m = 0;
    if (!tr || !te || !pred || !res) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (unsigned f = 0; f < folds && !rc; f++) {
        size_t nt, ne;
        fold_split(rows, n, folds, f, tr, &nt, te, &ne);
        rc = fit_predict(d, tr, nt, te, ne, feat, k, p, tau, pred, NULL, err);
        for (size_t i = 0; !rc && i < ne; i++)
            res[m++] = (float)(d->y[te[i]] - pred[i]);
    }
    if (!rc) {
        qsort(res, m, sizeof *res, cmp_float);
        double j = ceil(tau * (double)(m + 1) - 1e-9);
        size_t i = j < 1 ? 0 : (size_t)j - 1;
        *shift = res[i < m ? i : m - 1];
    }
out:
    free(tr);
    free(te);
    free(pred);
    free(res);
    return rc;
}

/* ---- the exhaustive search, over processes ------------------------------------ */

static int cmp_subset(const void *a, const void *b)
{
    const hs_cul_subset *x = a, *y = b;
    int xa = isfinite(x->cv_r2), ya = isfinite(y->cv_r2);
    if (xa != ya)
        return ya - xa;
    if (xa && x->cv_r2 != y->cv_r2)
        return x->cv_r2 > y->cv_r2 ? -1 : 1;
    return x->mask < y->mask ? -1 : x->mask > y->mask;
}

/* Scores every non-empty subset of the nf features (mask 1 .. 2^nf - 1) by
 * cv_r2 over the training runs; process j of `jobs` scores the masks
 * congruent to j, into a shared array.  Deterministic: each score is one
 * pure computation, whichever process does it. */
static int exhaustive(const hs_cul_data *d, const size_t *rows, size_t n, const hs_cul_params *p,
                      unsigned jobs, hs_cul_result *r, hs_error *err)
{
    uint64_t nsub = ((uint64_t)1 << d->nf) - 1;
    size_t bytes = (size_t)nsub * sizeof(double);
    double *score = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (score == MAP_FAILED)
        return hs_error_set(err, HS_ENOMEM, "exhaustive search: no shared memory for %llu "
                            "subsets", (unsigned long long)nsub);
    for (uint64_t s = 0; s < nsub; s++)
        score[s] = NAN;
    if (jobs > nsub)
        jobs = (unsigned)nsub;
    pid_t pid[MAX_JOBS];
    unsigned started = 0;
    int rc = 0;
    fflush(NULL);
    for (unsigned j = 0; j < jobs; j++) {
        pid_t c = fork();
        if (c < 0) {
            rc = hs_error_set(err, HS_ECHILD, "exhaustive search: fork failed");
            break;
        }
        if (c == 0) {
            uint32_t feat[EXHAUSTIVE_LIMIT];
            hs_error e;
            for (uint64_t s = j; s < nsub; s += jobs) {
                uint64_t mask = s + 1;
                uint32_t k = 0;
                for (uint32_t f = 0; f < d->nf; f++)
                    if (mask >> f & 1)
                        feat[k++] = f;
                double v;
                if (cv_r2(d, rows, n, p->search_folds, feat, k, p, &v, &e))
                    _exit(1);
                score[s] = v;
            }
            _exit(0);
        }
        pid[started++] = c;
    }
    for (unsigned j = 0; j < started; j++) {
        int st = 0;
        pid_t w;
        while ((w = waitpid(pid[j], &st, 0)) < 0 && errno == EINTR)
            ;
        if (w < 0 && !rc)       /* e.g. SIGCHLD ignored: the child was reaped unseen */
            rc = hs_error_set(err, HS_ECHILD, "exhaustive search: cannot wait for process %u: "
                              "%s", j + 1, strerror(errno));
        else if (!rc && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
            rc = hs_error_set(err, HS_ECHILD, "exhaustive search: process %u of %u failed", j + 1,
                              started);
    }
    if (!rc) {
        hs_cul_subset *all = malloc((size_t)nsub * sizeof *all);
        if (!all) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        } else {
            for (uint64_t s = 0; s < nsub; s++)
                all[s] = (hs_cul_subset){ s + 1, score[s] };
            qsort(all, (size_t)nsub, sizeof *all, cmp_subset);
            r->nbest = nsub < BEST_KEPT ? (uint32_t)nsub : BEST_KEPT;
            r->best = malloc(r->nbest * sizeof *r->best);
            if (!r->best)
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            else
                memcpy(r->best, all, r->nbest * sizeof *r->best);
            free(all);
            r->nsubsets = nsub;
            r->jobs_used = started;
        }
    }
    munmap(score, bytes);
    return rc;
}

/* ---- the whole analysis ------------------------------------------------------------- */

static int check_params(const hs_cul_params *p, size_t n, hs_error *err)
{
    if (p->rounds < 1 || p->rounds > 100000)
        return hs_error_set(err, HS_EINVAL, "rounds %u: expected 1 to 100000", p->rounds);
    if (p->depth < 1 || p->depth > 20)
        return hs_error_set(err, HS_EINVAL, "depth %u: expected 1 to 20", p->depth);
    if (!(p->eta > 0 && p->eta <= 1))
        return hs_error_set(err, HS_EINVAL, "eta %g: expected a number in (0, 1]", p->eta);
    if (!(p->test_fraction >= 0.05 && p->test_fraction <= 0.9))
        return hs_error_set(err, HS_EINVAL, "test fraction %g: expected 0.05 to 0.9",
                            p->test_fraction);
    if (p->folds < 2 || p->folds > n / 2)
        return hs_error_set(err, HS_EINVAL, "%u folds for %zu runs: expected 2 to %zu", p->folds,
                            n, n / 2);
    if (p->search_folds < 2 || p->search_folds > 20)
        return hs_error_set(err, HS_EINVAL, "%u search folds: expected 2 to 20", p->search_folds);
    if (p->perm_repeats < 1 || p->perm_repeats > 1000)
        return hs_error_set(err, HS_EINVAL, "%u permutations: expected 1 to 1000",
                            p->perm_repeats);
    if (p->q_rounds < 1 || p->q_rounds > 100000 || p->q_depth < 1 || p->q_depth > 20)
        return hs_error_set(err, HS_EINVAL, "quantile models: rounds %u, depth %u: expected 1 to "
                            "100000 and 1 to 20", p->q_rounds, p->q_depth);
    if (p->nquantiles > 4)
        return hs_error_set(err, HS_EINVAL, "at most 4 quantiles");
    for (unsigned q = 0; q < p->nquantiles; q++)
        if (!(p->quantiles[q] > 0 && p->quantiles[q] < 1))
            return hs_error_set(err, HS_EINVAL, "quantile %g: expected a level in (0, 1)",
                                p->quantiles[q]);
    if (p->exhaustive_max > EXHAUSTIVE_LIMIT)
        return hs_error_set(err, HS_EINVAL, "exhaustive search up to %u features: at most %d",
                            p->exhaustive_max, EXHAUSTIVE_LIMIT);
    if (p->jobs > MAX_JOBS)
        return hs_error_set(err, HS_EINVAL, "%u jobs: at most %d", p->jobs, MAX_JOBS);
    return 0;
}

static void shuffle(size_t *v, size_t n, uint64_t s[4])
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)hs__rand_below(s, i);
        size_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Features by decreasing gain, then permutation importance, then index. */
static const hs_cul_imp *rank_imp;
static int cmp_rank(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const hs_cul_imp *u = &rank_imp[x], *v = &rank_imp[y];
    if (u->gain != v->gain)
        return u->gain > v->gain ? -1 : 1;
    if (u->perm != v->perm)
        return u->perm > v->perm ? -1 : 1;
    return x < y ? -1 : x > y;
}

#define PROGRESS(stage, done, total) \
    do { if (progress) progress(ctx, stage, done, total); } while (0)

int hs_cul_fit(const hs_cul_data *d, const hs_cul_params *p,
               void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total),
               void *ctx, hs_cul_result *r, hs_error *err)
{
    memset(r, 0, sizeof *r);
    int rc = check_params(p, d->n, err);
    if (rc)
        return rc;
    size_t n = d->n;
    uint32_t nf = d->nf;
    size_t ne = (size_t)llround((double)n * p->test_fraction);
    if (ne < 2)
        ne = 2;
    if (n - ne < 4)
        return hs_error_set(err, HS_EINVAL, "%zu runs leave %zu for training: too few", n, n - ne);
    uint64_t s[4];
    hs__seed(s, p->seed);
    size_t *perm = malloc(n * sizeof *perm), *tr = NULL, *all = NULL, *te2 = NULL;
    uint32_t *feat = malloc(nf * sizeof *feat);
    double *pred = malloc(n * sizeof *pred), *obs = malloc(n * sizeof *obs);
    float *xe = NULL;
    if (!perm || !feat || !pred || !obs)
        goto oom;
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t f = 0; f < nf; f++)
        feat[f] = f;
    shuffle(perm, n, s);
    /* the held-out third, in row order; the training runs in shuffled order */
    r->ntest = ne;
    r->ntrain = n - ne;
    r->test_row = malloc(ne * sizeof *r->test_row);
    r->test_pred = malloc(ne * sizeof *r->test_pred);
    r->imp = calloc(nf, sizeof *r->imp);
    r->rank = malloc(nf * sizeof *r->rank);
    tr = perm + ne;
    if (!r->test_row || !r->test_pred || !r->imp || !r->rank)
        goto oom;
    memcpy(r->test_row, perm, ne * sizeof *perm);
    qsort(r->test_row, ne, sizeof *r->test_row, cmp_size);
    const size_t *te = r->test_row;
    size_t nt = r->ntrain;

    /* 1. the model of every feature, on the held-out runs */
    PROGRESS("fitting the model", 0, 0);
    double *gain = malloc(nf * sizeof *gain);
    if (!gain)
        goto oom;
    rc = fit_predict(d, tr, nt, te, ne, feat, nf, p, -1, r->test_pred, gain, err);
    for (uint32_t f = 0; f < nf; f++)
        r->imp[f].gain = gain[f];
    free(gain);
    if (rc)
        goto out;
    for (size_t i = 0; i < ne; i++)
        obs[i] = d->y[te[i]];
    r->rcc = hs_cul_rcc(obs, r->test_pred, ne);
    r->r2 = hs_cul_r2(obs, r->test_pred, ne);

    /* 2. permutation importance on the held-out runs: the model again (a
     * pure function of its input), then each feature's column shuffled */
    {
        PROGRESS("permutation importance", 0, nf);
        scaler sc = { 0 };
        BoosterHandle b = NULL;
        float *xt = NULL, *yt = NULL, *xp = NULL;
        double *rep = malloc(p->perm_repeats * sizeof *rep);
        size_t *ix = malloc(ne * sizeof *ix);
        rc = scaler_fit(d, tr, nt, &sc) ? hs_error_set(err, HS_ENOMEM, "out of memory") : 0;
        if (!rc) {
            xt = matrix(d, tr, nt, feat, nf, &sc);
            xe = matrix(d, te, ne, feat, nf, &sc);
            xp = malloc(ne * nf * sizeof *xp);
            yt = malloc(nt * sizeof *yt);
            if (!xt || !xe || !xp || !yt || !rep || !ix)
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        for (size_t i = 0; !rc && i < nt; i++)
            yt[i] = (float)yscale(&sc, resp(d, tr[i]));
        if (!rc)
            rc = xgb_train(xt, yt, nt, nf, p, &b, err);
        uint64_t ps[4];
        hs__seed(ps, p->seed ^ 0x7065726dull); /* "perm" */
        for (uint32_t f = 0; !rc && f < nf; f++) {
            for (unsigned k = 0; !rc && k < p->perm_repeats; k++) {
                memcpy(xp, xe, ne * nf * sizeof *xp);
                for (size_t i = 0; i < ne; i++)
                    ix[i] = i;
                shuffle(ix, ne, ps);
                for (size_t i = 0; i < ne; i++)
                    xp[i * nf + f] = xe[ix[i] * nf + f];
                rc = predict(b, xp, ne, nf, pred, err);
                for (size_t i = 0; !rc && i < ne; i++)
                    pred[i] = back(d, te[i], yunscale(&sc, pred[i]));
                if (!rc)
                    rep[k] = r->r2 - hs_cul_r2(obs, pred, ne);
            }
            if (!rc)
                r->imp[f].perm = mean_sd(rep, p->perm_repeats, &r->imp[f].perm_sd);
            PROGRESS("permutation importance", f + 1, nf);
        }
        if (b)
            XGBoosterFree(b);
        scaler_free(&sc);
        free(xt);
        free(yt);
        free(xp);
        free(rep);
        free(ix);
        if (rc)
            goto out;
    }
    for (uint32_t f = 0; f < nf; f++)
        r->rank[f] = f;
    rank_imp = r->imp;
    qsort(r->rank, nf, sizeof *r->rank, cmp_rank);

    /* 3. k-fold cross validation over every run */
    {
        r->folds = p->folds;
        r->fold_rcc = malloc(p->folds * sizeof *r->fold_rcc);
        r->fold_r2 = malloc(p->folds * sizeof *r->fold_r2);
        all = malloc(n * sizeof *all);
        te2 = malloc(n * sizeof *te2);
        size_t *tr2 = malloc(n * sizeof *tr2);
        if (!r->fold_rcc || !r->fold_r2 || !all || !te2 || !tr2) {
            free(tr2);
            goto oom;
        }
        for (size_t i = 0; i < n; i++)
            all[i] = i;
        uint64_t cs[4];
        hs__seed(cs, p->seed ^ 0x6b666f6c64ull); /* "kfold" */
        shuffle(all, n, cs);
        for (unsigned f = 0; f < p->folds && !rc; f++) {
            PROGRESS("cross validation", f, p->folds);
            size_t a = 0, e = 0;
            for (size_t i = 0; i < n; i++)
                if (i % p->folds == f)
                    te2[e++] = all[i];
                else
                    tr2[a++] = all[i];
            qsort(te2, e, sizeof *te2, cmp_size);
            rc = fit_predict(d, tr2, a, te2, e, feat, nf, p, -1, pred, NULL, err);
            for (size_t i = 0; i < e; i++)
                obs[i] = d->y[te2[i]];
            r->fold_rcc[f] = hs_cul_rcc(obs, pred, e);
            r->fold_r2[f] = hs_cul_r2(obs, pred, e);
        }
        free(tr2);
        if (rc)
            goto out;
        r->cv_rcc = mean_sd(r->fold_rcc, p->folds, &r->cv_rcc_sd);
        r->cv_r2 = mean_sd(r->fold_r2, p->folds, &r->cv_r2_sd);
    }

    /* 4. greedy forward search: add the feature that best raises the
     * cross-validated R^2 on the training runs, until all are in (or
     * greedy_steps are) */
    if (p->greedy) {
        r->steps = calloc(nf, sizeof *r->steps);
        uint32_t *sel = malloc(nf * sizeof *sel);
        uint8_t *in = calloc(nf, 1);
        if (!r->steps || !sel || !in) {
            free(sel);
            free(in);
            goto oom;
        }
        uint32_t steps = p->greedy_steps && p->greedy_steps < nf ? p->greedy_steps : nf;
        uint64_t done = 0, total = 0;
        for (uint32_t k = 0; k < steps; k++)
            total += nf - k;
        for (uint32_t k = 0; k < steps && !rc; k++) {
            double best = -INFINITY;
            uint32_t bf = UINT32_MAX;
            for (uint32_t f = 0; f < nf && !rc; f++) {
                if (in[f])
                    continue;
                sel[k] = f;
                double v;
                rc = cv_r2(d, tr, nt, p->search_folds, sel, k + 1, p, &v, err);
                if (!rc && (bf == UINT32_MAX || (isfinite(v) && (v > best || !isfinite(best)))))
                    best = v, bf = f;
                PROGRESS("greedy feature search", ++done, total);
            }
            if (rc)
                break;
            sel[k] = bf;
            in[bf] = 1;
            hs_cul_step *st = &r->steps[k];
            st->added = bf;
            st->cv_r2 = best;
            rc = fit_predict(d, tr, nt, te, ne, sel, k + 1, p, -1, pred, NULL, err);
            for (size_t i = 0; i < ne; i++)
                obs[i] = d->y[te[i]];
            st->test_rcc = hs_cul_rcc(obs, pred, ne);
            st->test_r2 = hs_cul_r2(obs, pred, ne);
            r->nsteps = k + 1;
        }
        free(sel);
        free(in);
        if (rc)
            goto out;
    }

    /* 5. exhaustive search when the features are few */
    if (p->exhaustive_max && nf <= p->exhaustive_max) {
        PROGRESS("exhaustive feature search", 0, 0);
        unsigned jobs = p->jobs;
        if (!jobs) {
            long c = sysconf(_SC_NPROCESSORS_ONLN);
            jobs = c > 0 ? (unsigned)(c > MAX_JOBS ? MAX_JOBS : c) : 1;
        }
        if ((rc = exhaustive(d, tr, nt, p, jobs, r, err)))
            goto out;
    }

    /* 6. quantile models: which features matter for the fast runs and for
     * the slow ones */
    if (p->nquantiles) {
        r->q = calloc(p->nquantiles, sizeof *r->q);
        if (!r->q)
            goto oom;
        r->nq = p->nquantiles;
        for (unsigned q = 0; q < p->nquantiles && !rc; q++) {
            PROGRESS("quantile models", q, p->nquantiles);
            hs_cul_quant *m = &r->q[q];
            m->tau = p->quantiles[q];
            m->gain = malloc(nf * sizeof *m->gain);
            m->pred = malloc(ne * sizeof *m->pred);
            if (!m->gain || !m->pred)
                goto oom;
            rc = fit_predict(d, tr, nt, te, ne, feat, nf, p, m->tau, m->pred, m->gain, err);
            if (!rc && p->q_calibrate)
                rc = q_shift(d, tr, nt, feat, nf, p, m->tau, &m->shift, err);
            if (rc)
                break;
            for (size_t i = 0; i < ne; i++)
                pred[i] = m->pred[i] += m->shift;
            double loss = 0, below = 0;
            for (size_t i = 0; i < ne; i++) {
                double y = d->y[te[i]], u = y - pred[i];
                loss += u >= 0 ? m->tau * u : (m->tau - 1) * u;
                below += y <= pred[i];
                obs[i] = y;
            }
            m->pinball = loss / (double)ne;
            m->coverage = below / (double)ne;
            m->rcc = hs_cul_rcc(obs, pred, ne);
        }
    }
    goto out;
oom:
    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
out:
    free(perm);
    free(feat);
    free(pred);
    free(obs);
    free(all);
    free(te2);
    free(xe);
    if (rc)
        hs_cul_result_free(r);
    return rc;
}

int hs_cul_generalise(const hs_cul_data *train, const hs_cul_data *test,
                      const hs_cul_params *p, hs_cul_result *r, hs_error *err)
{
    int rc = check_params(p, train->n, err);
    if (rc)
        return rc;
    if (test->nf != train->nf)
        return hs_error_set(err, HS_EINVAL, "the test runs have %u features, the training runs %u",
                            test->nf, train->nf);
    if (!train->per != !test->per)
        return hs_error_set(err, HS_EINVAL, "--per: given for the %s runs only",
                            train->per ? "training" : "test");
    size_t nt = train->n, ne = test->n;
    uint32_t nf = train->nf;
    size_t *tr = malloc(nt * sizeof *tr), *te = malloc(ne * sizeof *te);
    uint32_t *feat = malloc(nf * sizeof *feat);
    double *pred = malloc(ne * sizeof *pred);
    scaler s = { 0 }, st = { 0 };
    float *xt = NULL, *yt = NULL, *xe = NULL;
    BoosterHandle b = NULL;
    if (!tr || !te || !feat || !pred)
        goto oom;
    for (size_t i = 0; i < nt; i++)
        tr[i] = i;
    for (size_t i = 0; i < ne; i++)
        te[i] = i;
    for (uint32_t f = 0; f < nf; f++)
        feat[f] = f;
    if (scaler_fit(train, tr, nt, &s) || scaler_fit(test, te, ne, &st))
        goto oom;
    /* own scaling: the test runs' features by their own range (what a
     * feature means relative to its scale); the response always by the
     * training runs' range, so no measured test time enters a prediction */
    xt = matrix(train, tr, nt, feat, nf, &s);
    xe = matrix(test, te, ne, feat, nf, p->own_scaling ? &st : &s);
    yt = malloc(nt * sizeof *yt);
    if (!xt || !xe || !yt)
        goto oom;
    for (size_t i = 0; i < nt; i++)
        yt[i] = (float)yscale(&s, resp(train, i));
    if ((rc = xgb_train(xt, yt, nt, nf, p, &b, err)) || (rc = predict(b, xe, ne, nf, pred, err)))
        goto out;
    for (size_t i = 0; i < ne; i++)
        pred[i] = back(test, i, yunscale(&s, pred[i]));
    free(r->gen_pred);
    r->gen_pred = pred;
    pred = NULL;
    r->have_gen = 1;
    r->ngen = ne;
    r->gen_rcc = hs_cul_rcc(test->y, r->gen_pred, ne);
    r->gen_r2 = hs_cul_r2(test->y, r->gen_pred, ne);
    goto out;
oom:
    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
out:
    if (b)
        XGBoosterFree(b);
    free(tr);
    free(te);
    free(feat);
    free(pred);
    free(xt);
    free(yt);
    free(xe);
    scaler_free(&s);
    scaler_free(&st);
    return rc;
}

#else /* !HS_HAVE_XGBOOST */

const char *hs_cul_library(void) { return NULL; }

static int no_xgboost(hs_error *err)
{
    return hs_error_set(err, HS_ENOTSUP, "this hopscope was built without XGBoost: install "
                        "libxgboost-dev (make deps) and rebuild");
}

int hs_cul_fit(const hs_cul_data *d, const hs_cul_params *p,
               void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total),
               void *ctx, hs_cul_result *r, hs_error *err)
{
    (void)d, (void)p, (void)progress, (void)ctx;
    memset(r, 0, sizeof *r);
    return no_xgboost(err);
}

int hs_cul_generalise(const hs_cul_data *train, const hs_cul_data *test,
                      const hs_cul_params *p, hs_cul_result *r, hs_error *err)
{
    (void)train, (void)test, (void)p, (void)r;
    return no_xgboost(err);
}

#endif
