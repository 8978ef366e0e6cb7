/* The culprit model's outputs: culprits.json (docs/formats.md,
 * "culprits.json"), which viz/ draws, and the summary people read. */
#include "hopscope/analyzer.h"

#include <math.h>
#include <string.h>

static void features_of(hs_json *w, const hs_cul_data *d, uint64_t mask)
{
    hs_json_arr_begin(w);
    for (uint32_t f = 0; f < d->nf && f < 64; f++)
        if (mask >> f & 1)
            hs_json_str(w, d->fname[f]);
    hs_json_arr_end(w);
}

static void runs(hs_json *w, const hs_cul_data *d, const size_t *rows, const double *pred,
                 size_t n)
{
    hs_json_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        size_t r = rows ? rows[i] : i;
        hs_json_obj_begin(w);
        hs_json_key(w, "run");
        hs_json_int(w, d->run[r]);
        hs_json_key(w, "measured");
        hs_json_num(w, d->y[r]);
        hs_json_key(w, "predicted");
        hs_json_num(w, pred[i]);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
}

int hs_cul_write_json(FILE *f, const hs_cul_data *d, const hs_cul_data *test,
                      const hs_cul_params *p, const hs_cul_result *r, const char *input,
                      const char *test_input, const char *command)
{
    hs_json w;
    hs_json_init(&w, f, 1);
    hs_json_obj_begin(&w);
    hs_json_key(&w, "format");
    hs_json_str(&w, "hopscope-culprits");
    hs_json_key(&w, "version");
    hs_json_int(&w, 1);
    hs_json_key(&w, "hopscope");
    hs_json_str(&w, HS_VERSION);
    hs_json_key(&w, "command");
    if (command)
        hs_json_str(&w, command);
    else
        hs_json_null(&w);
    hs_json_key(&w, "input");
    hs_json_str(&w, input ? input : "");
    hs_json_key(&w, "target");
    hs_json_str(&w, d->target);
    hs_json_key(&w, "runs");
    hs_json_uint(&w, d->n);
    hs_json_key(&w, "features");
    hs_json_arr_begin(&w);
    for (uint32_t i = 0; i < d->nf; i++)
        hs_json_str(&w, d->fname[i]);
    hs_json_arr_end(&w);

    hs_json_key(&w, "model");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "kind");
    hs_json_str(&w, "gbrt");
    hs_json_key(&w, "library");
    hs_json_str(&w, hs_cul_library() ? hs_cul_library() : "none");
    hs_json_key(&w, "rounds");
    hs_json_uint(&w, p->rounds);
    hs_json_key(&w, "max_depth");
    hs_json_uint(&w, p->depth);
    hs_json_key(&w, "eta");
    hs_json_num(&w, p->eta);
    hs_json_key(&w, "seed");
    hs_json_uint(&w, p->seed);
    hs_json_key(&w, "scaling");
    hs_json_str(&w, "min-max over the training runs of each fit");
    hs_json_key(&w, "per");
    if (d->per_name)
        hs_json_str(&w, d->per_name);
    else
        hs_json_null(&w);
    hs_json_obj_end(&w);

    hs_json_key(&w, "split");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "train");
    hs_json_uint(&w, r->ntrain);
    hs_json_key(&w, "test");
    hs_json_uint(&w, r->ntest);
    hs_json_obj_end(&w);

    hs_json_key(&w, "heldout");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "rcc");
    hs_json_num(&w, r->rcc);
    hs_json_key(&w, "r2");
    hs_json_num(&w, r->r2);
    hs_json_key(&w, "runs");
    runs(&w, d, r->test_row, r->test_pred, r->ntest);
    hs_json_obj_end(&w);

    hs_json_key(&w, "cv");
    hs_json_obj_begin(&w);
    hs_json_key(&w, "folds");
    hs_json_uint(&w, r->folds);
    hs_json_key(&w, "rcc_mean");
    hs_json_num(&w, r->cv_rcc);
    hs_json_key(&w, "rcc_sd");
    hs_json_num(&w, r->cv_rcc_sd);
    hs_json_key(&w, "r2_mean");
    hs_json_num(&w, r->cv_r2);
    hs_json_key(&w, "r2_sd");
    hs_json_num(&w, r->cv_r2_sd);
    hs_json_key(&w, "per_fold");
    hs_json_arr_begin(&w);
    for (unsigned i = 0; i < r->folds; i++) {
        hs_json_obj_begin(&w);
        hs_json_key(&w, "rcc");
        hs_json_num(&w, r->fold_rcc[i]);
        hs_json_key(&w, "r2");
        hs_json_num(&w, r->fold_r2[i]);
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);
    hs_json_obj_end(&w);

    hs_json_key(&w, "importance");
    hs_json_arr_begin(&w);
    for (uint32_t i = 0; i < d->nf; i++) {
        uint32_t fe = r->rank[i];
        hs_json_obj_begin(&w);
        hs_json_key(&w, "feature");
        hs_json_str(&w, d->fname[fe]);
        hs_json_key(&w, "gain");
        hs_json_num(&w, r->imp[fe].gain);
        hs_json_key(&w, "permutation");
        hs_json_num(&w, r->imp[fe].perm);
        hs_json_key(&w, "permutation_sd");
        hs_json_num(&w, r->imp[fe].perm_sd);
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);

    hs_json_key(&w, "greedy");
    if (r->nsteps) {
        hs_json_arr_begin(&w);
        for (uint32_t i = 0; i < r->nsteps; i++) {
            const hs_cul_step *s = &r->steps[i];
            hs_json_obj_begin(&w);
            hs_json_key(&w, "added");
            hs_json_str(&w, d->fname[s->added]);
            hs_json_key(&w, "cv_r2");
            hs_json_num(&w, s->cv_r2);
            hs_json_key(&w, "test_rcc");
            hs_json_num(&w, s->test_rcc);
            hs_json_key(&w, "test_r2");
            hs_json_num(&w, s->test_r2);
            hs_json_obj_end(&w);
        }
        hs_json_arr_end(&w);
    } else {
        hs_json_null(&w);
    }

    hs_json_key(&w, "exhaustive");
    if (r->nsubsets) {
        hs_json_obj_begin(&w);
        hs_json_key(&w, "subsets");
        hs_json_uint(&w, r->nsubsets);
        hs_json_key(&w, "best");
        hs_json_arr_begin(&w);
        for (uint32_t i = 0; i < r->nbest; i++) {
            hs_json_obj_begin(&w);
            hs_json_key(&w, "features");
            features_of(&w, d, r->best[i].mask);
            hs_json_key(&w, "cv_r2");
            hs_json_num(&w, r->best[i].cv_r2);
            hs_json_obj_end(&w);
        }
        hs_json_arr_end(&w);
        hs_json_obj_end(&w);
    } else {
        hs_json_null(&w);
    }

    hs_json_key(&w, "quantiles");
    hs_json_arr_begin(&w);
    for (unsigned q = 0; q < r->nq; q++) {
        const hs_cul_quant *m = &r->q[q];
        hs_json_obj_begin(&w);
        hs_json_key(&w, "tau");
        hs_json_num(&w, m->tau);
        hs_json_key(&w, "method");
        hs_json_str(&w, p->q_calibrate ? "pinball loss, custom objective, leaves at the "
                    "residuals' quantile, calibrated out of fold" : "pinball loss, custom "
                    "objective, leaves at the residuals' quantile");
        hs_json_key(&w, "rounds");
        hs_json_uint(&w, p->q_rounds);
        hs_json_key(&w, "max_depth");
        hs_json_uint(&w, p->q_depth);
        hs_json_key(&w, "min_leaf");
        hs_json_uint(&w, p->q_min_leaf ? p->q_min_leaf
                     : (unsigned)ceil(2 / fmin(m->tau, 1 - m->tau) - 1e-9));
        hs_json_key(&w, "shift");
        hs_json_num(&w, m->shift);
        hs_json_key(&w, "pinball");
        hs_json_num(&w, m->pinball);
        hs_json_key(&w, "coverage");
        hs_json_num(&w, m->coverage);
        hs_json_key(&w, "rcc");
        hs_json_num(&w, m->rcc);
        hs_json_key(&w, "importance");
        hs_json_arr_begin(&w);
        for (uint32_t i = 0; i < d->nf; i++) {
            /* in the order of "features" */
            hs_json_obj_begin(&w);
            hs_json_key(&w, "feature");
            hs_json_str(&w, d->fname[i]);
            hs_json_key(&w, "gain");
            hs_json_num(&w, m->gain[i]);
            hs_json_obj_end(&w);
        }
        hs_json_arr_end(&w);
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);

    hs_json_key(&w, "generalisation");
    if (r->have_gen && test) {
        hs_json_obj_begin(&w);
        hs_json_key(&w, "test_input");
        hs_json_str(&w, test_input ? test_input : "");
        hs_json_key(&w, "train_runs");
        hs_json_uint(&w, d->n);
        hs_json_key(&w, "test_runs");
        hs_json_uint(&w, r->ngen);
        hs_json_key(&w, "scaling");
        hs_json_str(&w, p->own_scaling ? "own" : "train");
        hs_json_key(&w, "rcc");
        hs_json_num(&w, r->gen_rcc);
        hs_json_key(&w, "r2");
        hs_json_num(&w, r->gen_r2);
        hs_json_key(&w, "runs");
        runs(&w, test, NULL, r->gen_pred, r->ngen);
        hs_json_obj_end(&w);
    } else {
        hs_json_null(&w);
    }
    hs_json_obj_end(&w);
    int rc = hs_json_finish(&w);
    if (!rc && fputc('\n', f) == EOF)
        rc = HS_EIO;
    return rc ? HS_EIO : 0;
}

static const char *fmt(double v, char *buf, size_t n)
{
    if (isfinite(v))
        snprintf(buf, n, "%.3f", v);
    else
        snprintf(buf, n, "n/a");
    return buf;
}

void hs_cul_print(FILE *f, const hs_cul_data *d, const hs_cul_params *p,
                  const hs_cul_result *r)
{
    char a[32], b[32], c[32], e[32];
    fprintf(f, "%zu runs, %u features, response %s%s%s%s; GBRT (%s, %u rounds, depth %u, eta %g, "
            "seed %llu)\n", d->n, d->nf, d->target, d->per_name ? " (fitted per " : "",
            d->per_name ? d->per_name : "", d->per_name ? ")" : "",
            hs_cul_library() ? hs_cul_library() : "-", p->rounds, p->depth, p->eta,
            (unsigned long long)p->seed);
    fprintf(f, "held-out runs (%zu of %zu): RCC %s  R^2 %s\n", r->ntest, d->n,
            fmt(r->rcc, a, sizeof a), fmt(r->r2, b, sizeof b));
    fprintf(f, "%u-fold cross validation: RCC %s +- %s  R^2 %s +- %s\n", r->folds,
            fmt(r->cv_rcc, a, sizeof a), fmt(r->cv_rcc_sd, b, sizeof b),
            fmt(r->cv_r2, c, sizeof c), fmt(r->cv_r2_sd, e, sizeof e));
    fprintf(f, "\nfeature importance (gain share; held-out R^2 lost when permuted):\n");
    uint32_t show = d->nf < 20 ? d->nf : 20;
    for (uint32_t i = 0; i < show; i++) {
        uint32_t fe = r->rank[i];
        fprintf(f, "  %2u. %-32s gain %s  permutation %s +- %s\n", i + 1, d->fname[fe],
                fmt(r->imp[fe].gain, a, sizeof a), fmt(r->imp[fe].perm, b, sizeof b),
                fmt(r->imp[fe].perm_sd, c, sizeof c));
    }
    if (show < d->nf)
        fprintf(f, "  ... %u more in culprits.json\n", d->nf - show);
    if (r->nsteps) {
        fprintf(f, "\ngreedy forward search (cross-validated R^2 on the training runs; "
                "held-out RCC, R^2):\n");
        uint32_t ns = r->nsteps < 10 ? r->nsteps : 10;
        for (uint32_t i = 0; i < ns; i++)
            fprintf(f, "  +%-32s cv R^2 %s  held-out RCC %s R^2 %s\n",
                    d->fname[r->steps[i].added], fmt(r->steps[i].cv_r2, a, sizeof a),
                    fmt(r->steps[i].test_rcc, b, sizeof b), fmt(r->steps[i].test_r2, c, sizeof c));
        if (ns < r->nsteps)
            fprintf(f, "  ... %u more steps in culprits.json\n", r->nsteps - ns);
    }
    if (r->nsubsets) {
        fprintf(f, "\nexhaustive search: %llu subsets over %u processes; the best:\n",
                (unsigned long long)r->nsubsets, r->jobs_used);
        uint32_t nb = r->nbest < 5 ? r->nbest : 5;
        for (uint32_t i = 0; i < nb; i++) {
            fprintf(f, "  cv R^2 %s ", fmt(r->best[i].cv_r2, a, sizeof a));
            const char *sep = "";
            for (uint32_t fe = 0; fe < d->nf; fe++)
                if (r->best[i].mask >> fe & 1) {
                    fprintf(f, "%s%s", sep, d->fname[fe]);
                    sep = ", ";
                }
            fputc('\n', f);
        }
    }
    for (unsigned q = 0; q < r->nq; q++) {
        const hs_cul_quant *m = &r->q[q];
        if (!q)
            fputc('\n', f);
        fprintf(f, "quantile %.2f (%s runs): held-out coverage %s, RCC %s; by gain:", m->tau,
                m->tau < 0.5 ? "fast" : m->tau > 0.5 ? "slow" : "median",
                fmt(m->coverage, a, sizeof a), fmt(m->rcc, b, sizeof b));
        /* the three largest shares, largest first (ties: column order) */
        uint32_t shown[3];
        for (int k = 0; k < 3 && k < (int)d->nf; k++) {
            uint32_t top = UINT32_MAX;
            for (uint32_t fe = 0; fe < d->nf; fe++) {
                int used = 0;
                for (int j = 0; j < k; j++)
                    used |= shown[j] == fe;
                if (!used && (top == UINT32_MAX || m->gain[fe] > m->gain[top]))
                    top = fe;
            }
            shown[k] = top;
            fprintf(f, "%s %s %s", k ? "," : "", d->fname[top], fmt(m->gain[top], c, sizeof c));
        }
        fputc('\n', f);
    }
    if (r->have_gen)
        fprintf(f, "\ngeneralisation: trained on all %zu runs, tested on %zu others: RCC %s  "
                "R^2 %s\n", d->n, r->ngen, fmt(r->gen_rcc, a, sizeof a),
                fmt(r->gen_r2, b, sizeof b));
}
