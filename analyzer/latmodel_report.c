/* What the latency model says about a replayed application: its heaviest
 * node pairs (app.json's communication matrix summed over the ranks on
 * each node) and the expected latency of a message between them under the
 * congestion the run's counters show, against an idle machine (no stall
 * anywhere).  docs/latmodel.md, "The application's heaviest pairs". */
#include "an.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int hs_pc_average(const hs_portcounters *in, hs_portcounters *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "%s", in->source);
    for (size_t i = 0; i < in->n;) {
        size_t j = i;
        double w = 0, acc = 0;
        for (; j < in->n && in->row[j].link == in->row[i].link; j++) {
            double d = (double)(in->row[j].t1_ps - in->row[j].t0_ps);
            w += d;
            acc += d * in->row[j].stall_pct;
        }
        hs_pc_row r = { in->row[i].link, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                        w > 0 ? acc / w : 0 };
        if (hs_pc_add(out, &r)) {
            hs_pc_free(out);
            return HS_ENOMEM;
        }
        i = j;
    }
    return 0;
}

static int key_cmp(const void *a, const void *b)
{
    const hs_lm_pair *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static int pair_cmp(const void *a, const void *b)
{
    const hs_lm_pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

int hs_lm_heavy_pairs(const hs_latmodel *m, const char *run, const hs_portcounters *pc,
                      size_t top, hs_lm_pair **out, size_t *nout, hs_error *err)
{
    *out = NULL;
    *nout = 0;
    hs__run *r;
    int rc = hs__an_run_open(run, &r, err);
    if (rc)
        return rc;
    hs__app *app = NULL;
    hs_topo *t = NULL;
    hs_lm_pair *p = NULL;
    size_t np = 0;
    hs_portcounters avg = { 0 }, idle = { 0 };
    if ((rc = hs__an_app_read(run, r->N, &app, err)))
        goto done;
    if (!app || !app->ncomm) {
        rc = hs_error_set(err, HS_ENOTSUP, "%s: no app.json communication matrix (a replayed "
                          "application's run is needed)", run);
        goto done;
    }
    if ((rc = hs_topo_create(r->topo_spec, &t, err)))
        goto done;
    if ((int)hs_topo_type(t) != m->topo_kind && m->ncls > 1) {
        rc = hs_error_set(err, HS_EINVAL, "%s: the model's link classes are another topology "
                          "family's", run);
        goto done;
    }
    p = calloc(app->ncomm, sizeof *p);
    if (!p) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto done;
    }
    /* rank pairs -> node pairs on different nodes */
    for (size_t i = 0; i < app->ncomm; i++) {
        const hs__app_comm *c = &app->comm[i];
        if (c->src >= app->ranks || c->dst >= app->ranks)
            continue;
        uint32_t a = app->node_of_rank[c->src], b = app->node_of_rank[c->dst];
        if (a == b)
            continue;
        p[np].src = a;
        p[np].dst = b;
        p[np].bytes = c->bytes;
        p[np].messages = c->messages;
        np++;
    }
    /* merge equal node pairs: sort by pair, sum, then by bytes */
    if (np)
        qsort(p, np, sizeof *p, key_cmp);
    size_t k = 0;
    for (size_t i = 0; i < np; i++) {
        if (k && p[k - 1].src == p[i].src && p[k - 1].dst == p[i].dst) {
            p[k - 1].bytes += p[i].bytes;
            p[k - 1].messages += p[i].messages;
        } else {
            p[k++] = p[i];
        }
    }
    np = k;
    if (np)
        qsort(p, np, sizeof *p, pair_cmp);
    if (np > top)
        np = top;
    if ((rc = hs_pc_average(pc, &avg))) {
        rc = hs_error_set(err, rc, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < np && !rc; i++) {
        hs_lt q = { p[i].src, p[i].dst, 0, 0, 1 };
        hs_lm_obs o;
        double mu, var;
        if ((rc = hs_lm_join(m, t, &avg, &q, &o, NULL, err)))
            break;
        hs_lm_predict_obs(m, &o, &mu, &var);
        p[i].mean_ns = mu;
        p[i].sd_ns = sqrt(var);
        p[i].extrapolated = hs_lm_extrapolated(m, &o);
        if ((rc = hs_lm_join(m, t, &idle, &q, &o, NULL, err)))
            break;
        hs_lm_predict_obs(m, &o, &mu, &var);
        p[i].idle_mean_ns = mu;
        p[i].idle_sd_ns = sqrt(var);
    }
done:
    hs_pc_free(&avg);
    hs_topo_free(t);
    hs__an_app_free(app);
    hs__an_run_close(r);
    if (rc) {
        free(p);
        return rc;
    }
    *out = p;
    *nout = np;
    return 0;
}
