/* The culprit model: RCC and R^2 against hand-computed values, the CSV
 * reader's rejections (file:line), the choice of columns, a synthetic sweep
 * whose time is a known function of two features among noise features, and
 * byte-identical output for a seed whatever the number of processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopscope/analyzer.h"
#include "hopscope/viz.h"
#define TEST_RNG_SEED 13
#include "test_util.h"

/* ---- metrics --------------------------------------------------------------------- */

static void test_rcc(void **state)
{
    (void)state;
    /* pairs (i > j): (1,0) (2,0) (3,0) (3,1) (3,2) agree, (2,1) does not */
    double o1[] = { 1, 2, 3, 4 }, p1[] = { 1, 3, 2, 4 };
    assert_true(hs_cul_rcc(o1, p1, 4) == 5.0 / 6.0);
    double p2[] = { 4, 3, 2, 1 };
    assert_true(hs_cul_rcc(o1, p2, 4) == 0.0);
    assert_true(hs_cul_rcc(o1, o1, 4) == 1.0);
    /* ties in the measurement count as the study defines them: obs_i >=
     * obs_j agrees only with pred_i >= pred_j */
    double o3[] = { 1, 1, 2 }, p3[] = { 2, 1, 3 }, p4[] = { 1, 2, 3 };
    assert_true(hs_cul_rcc(o3, p3, 3) == 2.0 / 3.0);
    assert_true(hs_cul_rcc(o3, p4, 3) == 1.0);
    /* a constant prediction agrees exactly with the pairs where obs_i >= obs_j */
    double o5[] = { 3, 1, 2, 5, 4 }, p5[] = { 7, 7, 7, 7, 7 };
    /* i>j with o5[i] >= o5[j]: (2,1) (3,0) (3,1) (3,2) (4,0) (4,1) (4,2) = 7 of 10 */
    assert_true(hs_cul_rcc(o5, p5, 5) == 0.7);
    assert_true(isnan(hs_cul_rcc(o5, p5, 1)));
}

static void test_r2(void **state)
{
    (void)state;
    double o[] = { 1, 2, 3, 4 }, p[] = { 1, 2, 3, 5 }, m[] = { 2.5, 2.5, 2.5, 2.5 };
    /* SS_tot = 2.25 + 0.25 + 0.25 + 2.25 = 5, SS_res = 1 */
    assert_true(fabs(hs_cul_r2(o, p, 4) - 0.8) < 1e-15);
    assert_true(hs_cul_r2(o, m, 4) == 0.0);
    assert_true(hs_cul_r2(o, o, 4) == 1.0);
    double q[] = { 4, 3, 2, 1 };  /* SS_res = 9 + 1 + 1 + 9 = 20 */
    assert_true(fabs(hs_cul_r2(o, q, 4) - (1 - 20.0 / 5)) < 1e-15);
    double c[] = { 2, 2, 2 };
    assert_true(isnan(hs_cul_r2(c, o, 3)));
}

/* ---- the reader ------------------------------------------------------------------- */

static void expect_parse_error(const char *text, const char *want)
{
    hs_table *t = (hs_table *)1;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_table_parse(text, strlen(text), "t.csv", &t, &e);
    if (rc != HS_EFORMAT || !strstr(e.msg, want))
        fail_msg("input \"%s\": rc %d, message '%s', expected '%s'", text, rc, e.msg, want);
    assert_null(t);
}

static void test_reader_rejects(void **state)
{
    (void)state;
    expect_parse_error("", "t.csv:1: empty");
    expect_parse_error("a,b\n1\n", "t.csv:2: 1 fields, the header has 2");
    expect_parse_error("a,b\n1,2\n1,2,3\n", "t.csv:3: 3 fields, the header has 2");
    expect_parse_error("a,,b\n", "t.csv:1: column 2 has an empty name");
    expect_parse_error("x,a,y,a\n", "t.csv:1: column 'a' appears twice");
    expect_parse_error("a,b\n1,2\n\n3,4\n", "t.csv:3: empty line");
    expect_parse_error("a,\"b\"\n", "t.csv:1: a quote");
    expect_parse_error("a,b\n1,2\n3,\x01\n", "t.csv:3: control character 0x01");
    expect_parse_error("a,b\n1,2\r3,4\n", "t.csv:2: control character 0x0d");
    expect_parse_error("run,x\n1,2\n1.5,2\n", "t.csv:3: run '1.5' is not an integer");
    expect_parse_error("run,x\n4,2\n7,3\n4,5\n", "t.csv:4: run 4 repeats line 2");
    expect_parse_error("run,x\n1234567890123456,2\n", "t.csv:2: run '1234567890123456' is not");
}

static hs_table *parse(const char *text)
{
    hs_table *t = NULL;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_table_parse(text, strlen(text), "t.csv", &t, &e);
    if (rc)
        fail_msg("unexpected: %s", e.msg);
    return t;
}

static void test_reader_accepts(void **state)
{
    (void)state;
    /* CRLF line ends, no final newline, words and plain numbers */
    hs_table *t = parse("run,map,time_s,f_x\r\n3,linear,1.5,-2e3\r\n9,shift:4,+.25,7");
    assert_int_equal(t->ncols, 4);
    assert_int_equal(t->nrows, 2);
    assert_string_equal(t->col[1], "map");
    assert_true(t->v[0 * 4 + 0] == 3 && t->v[1 * 4 + 0] == 9);
    assert_true(t->v[0 * 4 + 3] == -2000 && t->v[1 * 4 + 2] == 0.25);
    assert_int_equal(t->bad_line[1], 2);      /* "linear" is text */
    assert_string_equal(t->bad_text[1], "linear");
    assert_int_equal(t->bad_line[2], 0);
    assert_int_equal(t->line[1], 3);
    hs_table_free(t);
}

static void expect_select_error(const char *text, const char *target, const char *features,
                                int want_rc, const char *want)
{
    hs_table *t = parse(text);
    hs_cul_data d;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_cul_select(t, target, features, &d, &e);
    if (rc != want_rc || !strstr(e.msg, want))
        fail_msg("rc %d, message '%s', expected %d '%s'", rc, e.msg, want_rc, want);
    assert_null(d.x);
    hs_table_free(t);
}

#define SIX_ROWS(c5) "run,time_s,f_x,f_y\n1,1,1,1\n2,2,2,2\n3,3,3,3\n4,4," c5 ",4\n" \
                     "5,5,5,5\n6,6,6,6\n"

static void test_select(void **state)
{
    (void)state;
    const char *bad[] = { "abc", "inf", "nan", "0x10", " 3", "1e", "." };
    for (size_t i = 0; i < 7; i++) {
        char text[256], want[96];
        snprintf(text, sizeof text, SIX_ROWS("%s"), bad[i]);
        snprintf(want, sizeof want, "t.csv:5: column f_x: '%s' is not a plain decimal number",
                 bad[i]);
        expect_select_error(text, NULL, NULL, HS_EFORMAT, want);
    }
    expect_select_error(SIX_ROWS("4"), "seconds", NULL, HS_EINVAL, "no column 'seconds'");
    expect_select_error(SIX_ROWS("4"), NULL, "g_", HS_EINVAL, "no column starts with 'g_'");
    expect_select_error(SIX_ROWS("4"), NULL, "f_x,f_z", HS_EINVAL, "no column 'f_z'");
    expect_select_error(SIX_ROWS("4"), NULL, "f_x,time_s", HS_EINVAL,
                        "the response 'time_s' cannot also be a feature");
    expect_select_error("time_s,f_x\n1,2\n2,3\n", NULL, NULL, HS_EINVAL, "2 runs");
    expect_select_error("time_s,f_x\n1,2\n1,3\n1,2\n1,3\n1,2\n1,3\n", NULL, NULL, HS_EINVAL,
                        "same in every run");
    /* a list, a single column, a prefix; run ids from the run column */
    hs_table *t = parse(SIX_ROWS("9"));
    hs_cul_data d;
    assert_int_equal(hs_cul_select(t, NULL, "f_y,f_x", &d, NULL), 0);
    assert_int_equal(d.nf, 2);
    assert_string_equal(d.fname[0], "f_y");
    assert_true(d.x[3 * 2 + 1] == 9 && d.y[5] == 6 && d.run[5] == 6);
    hs_cul_data_free(&d);
    assert_int_equal(hs_cul_select(t, "f_y", "f_x", &d, NULL), 0);
    assert_int_equal(d.nf, 1);
    assert_string_equal(d.target, "f_y");
    hs_cul_data_free(&d);
    assert_int_equal(hs_cul_select(t, NULL, "f", &d, NULL), 0);
    assert_int_equal(d.nf, 2);
    hs_cul_data_free(&d);
    hs_table_free(t);
}

/* ---- the model -------------------------------------------------------------------- */

/* A sweep whose time is 3a + 2b^2 (plus noise of 1% of its range) and six
 * features that do not enter it: the culprits are a and b. */
#define NOISE_FEATURES 6
static char *synthetic(size_t n, uint64_t seed)
{
    rng_state = seed;
    size_t cap = 200 * (n + 1), len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "run,map,time_s");
    for (int j = 0; j < NOISE_FEATURES / 2; j++)
        len += (size_t)snprintf(s + len, cap - len, ",f_noise%d", j);
    len += (size_t)snprintf(s + len, cap - len, ",f_a");
    for (int j = NOISE_FEATURES / 2; j < NOISE_FEATURES; j++)
        len += (size_t)snprintf(s + len, cap - len, ",f_noise%d", j);
    len += (size_t)snprintf(s + len, cap - len, ",f_b\n");
    for (size_t i = 0; i < n; i++) {
        double v[NOISE_FEATURES + 2];
        for (int j = 0; j < NOISE_FEATURES + 2; j++)
            v[j] = (double)(rnd() >> 11) / 9007199254740992.0;
        double a = v[NOISE_FEATURES / 2], b = v[NOISE_FEATURES + 1];
        double t = 3 * a + 2 * b * b + 0.05 * ((double)(rnd() >> 11) / 9007199254740992.0 - 0.5);
        len += (size_t)snprintf(s + len, cap - len, "%zu,random,%.6f", i + 1, t);
        for (int j = 0; j < NOISE_FEATURES + 2; j++)
            len += (size_t)snprintf(s + len, cap - len, ",%.6f", v[j]);
        len += (size_t)snprintf(s + len, cap - len, "\n");
    }
    return s;
}

static void load_synthetic(size_t n, uint64_t seed, hs_cul_data *d)
{
    char *text = synthetic(n, seed);
    hs_table *t = parse(text);
    free(text);
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_select(t, NULL, NULL, d, &e))
        fail_msg("%s", e.msg);
    hs_table_free(t);
    assert_int_equal(d->nf, NOISE_FEATURES + 2);
}

static hs_cul_params small_params(void)
{
    hs_cul_params p;
    hs_cul_params_default(&p);
    p.rounds = 100;          /* keeps the suite fast under the sanitizers */
    p.perm_repeats = 3;
    p.exhaustive_max = 0;
    p.greedy_steps = 0;      /* every step: the tests look at the whole search */
    return p;
}

#if HS_HAVE_XGBOOST
static int is_ab(const hs_cul_data *d, uint32_t f)
{
    return strcmp(d->fname[f], "f_a") == 0 || strcmp(d->fname[f], "f_b") == 0;
}

static void test_two_culprits(void **state)
{
    (void)state;
    hs_cul_data d;
    load_synthetic(150, 5, &d);
    hs_cul_params p = small_params();
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_cul_fit(&d, &p, NULL, NULL, &r, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(r.ntest, 50);
    assert_int_equal(r.ntrain, 100);
    /* a and b first by gain, and by permutation importance */
    assert_true(is_ab(&d, r.rank[0]) && is_ab(&d, r.rank[1]));
    uint32_t by_perm[2] = { UINT32_MAX, UINT32_MAX };
    for (uint32_t f = 0; f < d.nf; f++) {
        if (by_perm[0] == UINT32_MAX || r.imp[f].perm > r.imp[by_perm[0]].perm) {
            by_perm[1] = by_perm[0];
            by_perm[0] = f;
        } else if (by_perm[1] == UINT32_MAX || r.imp[f].perm > r.imp[by_perm[1]].perm) {
            by_perm[1] = f;
        }
    }
    assert_true(is_ab(&d, by_perm[0]) && is_ab(&d, by_perm[1]));
    /* the greedy search takes them first */
    assert_int_equal(r.nsteps, d.nf);
    assert_true(is_ab(&d, r.steps[0].added) && is_ab(&d, r.steps[1].added));
    /* and their two-feature model explains the time better than the first alone */
    assert_true(r.steps[1].cv_r2 > r.steps[0].cv_r2);
    /* the quantile models are ordered: the 0.1 model below the 0.9 one on
     * most held-out runs is not asserted (a tiny noise makes them close);
     * their coverage is a share */
    assert_int_equal(r.nq, 2);
    for (unsigned q = 0; q < 2; q++)
        assert_true(r.q[q].coverage >= 0 && r.q[q].coverage <= 1);
    hs_cul_result_free(&r);
    hs_cul_data_free(&d);
}

static char *fit_json(const hs_cul_data *d, const hs_cul_params *p, size_t *len)
{
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_fit(d, p, NULL, NULL, &r, &e))
        fail_msg("%s", e.msg);
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_int_equal(hs_cul_write_json(f, d, NULL, p, &r, "t.csv", NULL, NULL), 0);
    fclose(f);
    hs_cul_result_free(&r);
    return buf;
}

/* Same seed: the same bytes, whether the exhaustive search runs in one
 * process or three; another seed: another split. */
static void test_deterministic(void **state)
{
    (void)state;
    hs_cul_data d;
    load_synthetic(60, 9, &d);
    hs_cul_params p = small_params();
    p.rounds = 30;
    p.exhaustive_max = 8;
    p.nquantiles = 1;
    p.quantiles[0] = 0.9;
    size_t n1, n2, n3;
    p.jobs = 1;
    char *a = fit_json(&d, &p, &n1);
    p.jobs = 3;
    char *b = fit_json(&d, &p, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    assert_non_null(strstr(a, "\"subsets\": 255"));
    p.seed = 2;
    char *c = fit_json(&d, &p, &n3);
    assert_true(n1 != n3 || memcmp(a, c, n1) != 0);
    /* the pictures of it render, and the reader takes what the writer wrote */
    hs_viz_doc *docs = NULL;
    size_t nd = 0;
    hs_error e;
    hs_error_clear(&e);
    if (hs_viz_culprits(a, n1, "culprits.json", &docs, &nd, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(nd, 2);
    assert_string_equal(docs[0].name, "culprits.svg");
    assert_non_null(strstr(docs[1].text, "Which feature explains the run time"));
    hs_viz_docs_free(docs, nd);
    free(a);
    free(b);
    free(c);
    hs_cul_data_free(&d);
}

/* Trained on one sweep, tested on another drawn from the same function. */
static void test_generalise(void **state)
{
    (void)state;
    hs_cul_data a, b;
    load_synthetic(120, 21, &a);
    load_synthetic(40, 22, &b);
    hs_cul_params p = small_params();
    hs_cul_result r = { 0 };
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_generalise(&a, &b, &p, &r, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(r.ngen, 40);
    assert_true(r.have_gen);
    /* a model of 3a + 2b^2 orders new runs nearly as the function does:
     * the function itself would score 1 up to the 1% noise */
    assert_true(r.gen_rcc > 0.8);
    assert_true(r.gen_r2 > 0.8);
    hs_cul_result_free(&r);
    hs_cul_data_free(&a);
    hs_cul_data_free(&b);
}

/* Quantile models: on runs whose spread above the fastest grows with one
 * feature (time = a + 0.5 b E, E exponential), the 0.1 model must lie below
 * most held-out runs and the 0.9 model above most: a sign error in the
 * pinball gradient would swap them.  The spread's feature b must matter
 * more to the slow runs' model than to the fast runs'. */
static void test_quantiles(void **state)
{
    (void)state;
    rng_state = 31;
    size_t n = 300, cap = 80 * (n + 1), len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "time_s,f_a,f_b,f_n\n");
    for (size_t i = 0; i < n; i++) {
        double a = (double)(rnd() >> 11) / 9007199254740992.0;
        double b = (double)(rnd() >> 11) / 9007199254740992.0;
        double u = (double)(rnd() >> 11) / 9007199254740992.0;
        double z = (double)(rnd() >> 11) / 9007199254740992.0;
        len += (size_t)snprintf(s + len, cap - len, "%.6f,%.6f,%.6f,%.6f\n",
                                a + 0.5 * b * -log(1 - u), a, b, z);
    }
    hs_table *t = parse(s);
    free(s);
    hs_cul_data d;
    assert_int_equal(hs_cul_select(t, NULL, NULL, &d, NULL), 0);
    hs_table_free(t);
    hs_cul_params p = small_params();
    p.greedy = 0;
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_fit(&d, &p, NULL, NULL, &r, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(r.nq, 2);
    assert_true(r.q[0].tau == 0.1 && r.q[1].tau == 0.9);
    if (!(r.q[0].coverage < 0.5 && r.q[1].coverage > 0.5))
        fail_msg("coverage %g (0.1) and %g (0.9)", r.q[0].coverage, r.q[1].coverage);
    assert_true(r.q[1].gain[1] > r.q[0].gain[1]);
    hs_cul_result_free(&r);
    hs_cul_data_free(&d);
}

/* Uniform in [0, 1) from the test's generator. */
static double unif(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Leaf values: with one round, eta 1 and a tree of depth 1 on a feature
 * that splits the runs into two groups, each group's prediction is the
 * group's tau-quantile of the training runs exactly (the smallest value
 * with at least tau m of the group's m values at or below it): the leaf
 * value is the quantile of the leaf's residuals, not XGBoost's
 * -G / (H + lambda), which would move a leaf by eta tau / (1 + lambda/m)
 * upwards at most. */
static void test_quantile_leaves(void **state)
{
    (void)state;
    size_t n = 240, cap = 64 * (n + 1), len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "time_s,f_g\n");
    for (size_t i = 0; i < n; i++)  /* group 0: 0..119 in steps of 1, group 1: 500 + 3 k */
        len += (size_t)snprintf(s + len, cap - len, "%zu,%d\n",
                                i % 2 ? 500 + 3 * (i / 2) : i / 2, (int)(i % 2));
    hs_table *t = parse(s);
    free(s);
    hs_cul_data d;
    assert_int_equal(hs_cul_select(t, NULL, NULL, &d, NULL), 0);
    hs_table_free(t);
    hs_cul_params p = small_params();
    p.greedy = 0;
    p.rounds = 5;
    p.eta = 1;
    p.q_rounds = 1;
    p.q_depth = 1;
    p.q_calibrate = 0;
    p.quantiles[0] = 0.1;
    p.quantiles[1] = 0.75;
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_fit(&d, &p, NULL, NULL, &r, &e))
        fail_msg("%s", e.msg);
    /* the training runs of each group, sorted */
    double g[2][240];
    size_t m[2] = { 0, 0 }, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k < r.ntest && r.test_row[k] == i) {
            k++;
            continue;
        }
        int grp = (int)d.x[i];
        g[grp][m[grp]++] = d.y[i];
    }
    assert_int_equal(m[0] + m[1], r.ntrain);
    for (int grp = 0; grp < 2; grp++)
        qsort(g[grp], m[grp], sizeof g[grp][0], cmp_dbl);
    for (unsigned q = 0; q < 2; q++) {
        double tau = r.q[q].tau, want[2];
        for (int grp = 0; grp < 2; grp++)
            want[grp] = g[grp][(size_t)ceil(tau * (double)m[grp] - 1e-9) - 1];
        for (size_t i = 0; i < r.ntest; i++) {
            double w = want[(int)d.x[r.test_row[i]]];
            if (fabs(r.q[q].pred[i] - w) > 1e-4 * 860)   /* float32 of the scaled times */
                fail_msg("tau %g, run %zu: predicted %.6f, the group's quantile %.6f", tau,
                         r.test_row[i], r.q[q].pred[i], w);
        }
    }
    hs_cul_result_free(&r);
    hs_cul_data_free(&d);
}

/* Held-out coverage on a table with known conditional quantiles: time =
 * a + (0.2 + b) E, E exponential with mean 1, so q_tau(a, b) = a + (0.2 + b)
 * (-ln(1 - tau)), and two noise features; 900 runs, 300 held out.  The
 * true quantile itself covers 0.090 and 0.853 of those 300 (the binomial
 * spread of 300 runs, sd 0.017): each model must cover within 0.04 of what
 * the true quantile covers, and within 0.05 of its level, and lie closer to
 * the true quantile than 0.3 of the true quantile's own standard deviation
 * over the runs, on average (predicting every run's quantile by one
 * constant lies about 0.8 of it away).  The subgradient leaf values the
 * models had before covered 0.21 for the 0.1 level here, 0.15 away from
 * the true quantile on average (0.5 of its sd). */
static void test_quantile_coverage(void **state)
{
    (void)state;
    rng_state = 77;
    size_t n = 900, cap = 96 * (n + 1), len = 0;
    char *s = malloc(cap);
    double *qa = malloc(n * sizeof *qa), *qb = malloc(n * sizeof *qb);
    len += (size_t)snprintf(s + len, cap - len, "time_s,f_a,f_b,f_n1,f_n2\n");
    for (size_t i = 0; i < n; i++) {
        double a = unif(), b = unif(), u = unif(), z1 = unif(), z2 = unif();
        /* the printed values are what the model sees: the quantiles are of those */
        char ca[16], cb[16];
        snprintf(ca, sizeof ca, "%.6f", a);
        snprintf(cb, sizeof cb, "%.6f", b);
        a = atof(ca), b = atof(cb);
        qa[i] = a + (0.2 + b) * -log(1 - 0.1);
        qb[i] = a + (0.2 + b) * -log(1 - 0.9);
        len += (size_t)snprintf(s + len, cap - len, "%.6f,%s,%s,%.6f,%.6f\n",
                                a + (0.2 + b) * -log(1 - u), ca, cb, z1, z2);
    }
    hs_table *t = parse(s);
    free(s);
    hs_cul_data d;
    assert_int_equal(hs_cul_select(t, NULL, NULL, &d, NULL), 0);
    hs_table_free(t);
    hs_cul_params p = small_params();
    p.greedy = 0;
    p.rounds = 20;
    p.perm_repeats = 1;
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_fit(&d, &p, NULL, NULL, &r, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(r.ntest, 300);
    for (unsigned q = 0; q < 2; q++) {
        const double *truth = q ? qb : qa;
        double mae = 0, oracle = 0;
        for (size_t i = 0; i < r.ntest; i++) {
            mae += fabs(r.q[q].pred[i] - truth[r.test_row[i]]);
            oracle += d.y[r.test_row[i]] <= truth[r.test_row[i]];
        }
        mae /= (double)r.ntest;
        oracle /= (double)r.ntest;
        double mq = 0, sq = 0;
        for (size_t i = 0; i < r.ntest; i++)
            mq += truth[r.test_row[i]];
        mq /= (double)r.ntest;
        for (size_t i = 0; i < r.ntest; i++)
            sq += (truth[r.test_row[i]] - mq) * (truth[r.test_row[i]] - mq);
        sq = sqrt(sq / (double)(r.ntest - 1));
        print_message("quantile %g: held-out coverage %.3f (the true quantile's %.3f), mean "
                      "|pred - q| %.4f (sd of q %.4f)\n", r.q[q].tau, r.q[q].coverage, oracle,
                      mae, sq);
        if (fabs(r.q[q].coverage - oracle) > 0.04 || fabs(r.q[q].coverage - r.q[q].tau) > 0.05 ||
            mae > 0.3 * sq)
            fail_msg("quantile %g: coverage %.3f (the true quantile's %.3f), mean distance to "
                     "the true quantile %.4f (its sd %.4f)", r.q[q].tau, r.q[q].coverage, oracle,
                     mae, sq);
    }
    /* the spread's feature b matters to the slow runs' model more than a */
    assert_true(r.q[1].gain[1] > r.q[1].gain[0]);
    assert_true(r.q[0].gain[0] > r.q[0].gain[1]);
    hs_cul_result_free(&r);
    hs_cul_data_free(&d);
    free(qa);
    free(qb);
}

/* A table of n runs at one "scale": time = z (1 + a), z uniform in
 * [z0, z0 + 1) (the bytes on the busiest link, say), a uniform in [0, 1). */
static hs_table *scaled_table(size_t n, double z0, uint64_t seed)
{
    rng_state = seed;
    size_t cap = 64 * (n + 1), len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "time_s,f_a,f_z,f_n\n");
    for (size_t i = 0; i < n; i++) {
        double a = unif(), z = z0 + unif(), w = unif();
        len += (size_t)snprintf(s + len, cap - len, "%.6f,%.6f,%.6f,%.6f\n", z * (1 + a), a, z, w);
    }
    hs_table *t = parse(s);
    free(s);
    return t;
}

/* --per: trained at z in [1, 2), tested at z in [3, 4) where every time lies
 * above the training runs' (up to 8 against 4): trees of the time itself
 * cannot reach there (R^2 far below 0); trees of time / z (= 1 + a, the
 * same range at both scales) predict the test runs closely once multiplied
 * back. */
static void test_per(void **state)
{
    (void)state;
    hs_table *ta = scaled_table(120, 1, 41), *tb = scaled_table(60, 3, 42);
    hs_cul_data a, b;
    assert_int_equal(hs_cul_select(ta, NULL, NULL, &a, NULL), 0);
    assert_int_equal(hs_cul_select_like(tb, &a, &b, NULL), 0);
    hs_cul_params p = small_params();
    hs_cul_result r = { 0 };
    hs_error e;
    hs_error_clear(&e);
    if (hs_cul_generalise(&a, &b, &p, &r, &e))
        fail_msg("%s", e.msg);
    double raw_r2 = r.gen_r2;
    hs_cul_result_free(&r);
    assert_int_equal(hs_cul_set_per(ta, "f_z", &a, &e), 0);
    /* only one side: refused */
    assert_int_equal(hs_cul_generalise(&a, &b, &p, &r, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "--per"));
    assert_int_equal(hs_cul_set_per(tb, "f_z", &b, &e), 0);
    memset(&r, 0, sizeof r);
    if (hs_cul_generalise(&a, &b, &p, &r, &e))
        fail_msg("%s", e.msg);
    print_message("generalisation R^2 %.3f of the time, %.3f per f_z; RCC %.3f\n", raw_r2,
                  r.gen_r2, r.gen_rcc);
    assert_true(raw_r2 < -1);
    assert_true(r.gen_r2 > 0.95);
    assert_true(r.gen_rcc > 0.9);
    /* every prediction is in the response's units: near z (1 + a) */
    for (size_t i = 0; i < b.n; i++)
        assert_true(fabs(r.gen_pred[i] - b.y[i]) < 0.1 * b.y[i]);
    hs_cul_result_free(&r);
    /* a column that is 0 somewhere, or not there */
    hs_table *tz = parse("time_s,f_a,f_z\n1,0.1,2\n2,0.2,0\n3,0.3,1\n4,0.4,1\n5,0.5,1\n6,0.6,1\n");
    hs_cul_data c;
    assert_int_equal(hs_cul_select(tz, NULL, NULL, &c, NULL), 0);
    assert_int_equal(hs_cul_set_per(tz, "f_z", &c, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, ":3: --per f_z: 0"));
    assert_int_equal(hs_cul_set_per(tz, "f_q", &c, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "no column 'f_q'"));
    assert_null(c.per);
    hs_cul_data_free(&c);
    hs_table_free(tz);
    hs_cul_data_free(&a);
    hs_cul_data_free(&b);
    hs_table_free(ta);
    hs_table_free(tb);
}

static void test_params_rejected(void **state)
{
    (void)state;
    hs_cul_data d;
    load_synthetic(20, 3, &d);
    hs_cul_params p = small_params();
    p.folds = 11;              /* more folds than runs / 2 */
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_cul_fit(&d, &p, NULL, NULL, &r, &e), HS_EINVAL);
    assert_non_null(strstr(e.msg, "11 folds for 20 runs"));
    hs_cul_data_free(&d);
}
#else
static void test_without_xgboost(void **state)
{
    (void)state;
    hs_cul_data d;
    load_synthetic(20, 3, &d);
    hs_cul_params p = small_params();
    hs_cul_result r;
    hs_error e;
    hs_error_clear(&e);
    assert_int_equal(hs_cul_fit(&d, &p, NULL, NULL, &r, &e), HS_ENOTSUP);
    assert_non_null(strstr(e.msg, "libxgboost-dev"));
    hs_cul_data_free(&d);
}
#endif

/* The pictures' reader refuses what is not a culprits.json. */
static void test_viz_rejects(void **state)
{
    (void)state;
    const char *in[] = { "[]", "{\"format\":\"hopscope-analysis\"}",
                         "{\"format\":\"hopscope-culprits\",\"version\":2}",
                         "{\"format\":\"hopscope-culprits\",\"version\":1,\"target\":\"t\","
                         "\"input\":\"x\",\"runs\":\"many\"}" };
    int want[] = { HS_EFORMAT, HS_EFORMAT, HS_EVERSION, HS_EFORMAT };
    for (size_t i = 0; i < 4; i++) {
        hs_viz_doc *docs = (hs_viz_doc *)1;
        size_t nd = 5;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_viz_culprits(in[i], strlen(in[i]), "c.json", &docs, &nd, &e);
        if (rc != want[i])
            fail_msg("input %zu: rc %d (%s)", i, rc, e.msg);
        assert_null(docs);
        assert_int_equal(nd, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rcc),
        cmocka_unit_test(test_r2),
        cmocka_unit_test(test_reader_rejects),
        cmocka_unit_test(test_reader_accepts),
        cmocka_unit_test(test_select),
#if HS_HAVE_XGBOOST
        cmocka_unit_test(test_two_culprits),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_generalise),
        cmocka_unit_test(test_quantiles),
        cmocka_unit_test(test_quantile_leaves),
        cmocka_unit_test(test_quantile_coverage),
        cmocka_unit_test(test_per),
        cmocka_unit_test(test_params_rejected),
#else
        cmocka_unit_test(test_without_xgboost),
#endif
        cmocka_unit_test(test_viz_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
