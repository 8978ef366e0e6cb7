/* analysis.json (schema: docs/formats.md, "analysis.json", version 1) and
 * the terminal summary.
 *
 * analysis.json is everything the renderer needs, so it carries the
 * topology's devices and links with their places, not only the estimates.
 * Size: per-phase and per-window views list only links with enough data,
 * as rows of numbers under a column list; numbers are rounded to six
 * significant digits (standard errors make more meaningless).  Written
 * with common/'s deterministic JSON writer, compact. */
#include "route.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG_DIGITS 6

/* ---- names --------------------------------------------------------------------- */

const char *hs__an_link_kind_name(const hs__link *l)
{
    return l->kind == HS__LK_INJECTION ? "injection" : l->kind == HS__LK_EJECTION ? "ejection"
                                                                                 : "switch";
}

const char *hs__an_link_sub_name(const hs__link *l)
{
    switch (l->sub) {
    case HS__SUB_UP: return "up";
    case HS__SUB_DOWN: return "down";
    case HS__SUB_LOCAL: return "local";
    case HS__SUB_GLOBAL: return "global";
    case HS__SUB_TORUS: return "torus";
    case HS__SUB_PLAIN: return "plain";
    default: return "-";
    }
}

const char *hs__an_link_desc(const hs__run *r, uint32_t l, char *buf, size_t n)
{
    const hs__link *k = &r->lk[l];
    const char *what = k->kind == HS__LK_SWITCH ? hs__an_link_sub_name(k) : hs__an_link_kind_name(k);
    snprintf(buf, n, "link %u %s->%s (%s)", l, k->from_name, k->to_name, what);
    return buf;
}

static const char *decoder_name(int d)
{
    return d == HS__DEC_ROUTE ? "route-aware" : d == HS__DEC_BLIND ? "blind" : "none";
}

/* ---- JSON helpers ---------------------------------------------------------------- */

static double sig(double x)
{
    if (!isfinite(x) || x == 0)
        return x;
    char b[40];
    snprintf(b, sizeof b, "%.*g", SIG_DIGITS, x);
    return strtod(b, NULL);
}

static void kv_num(hs_json *w, const char *k, double v)
{
    hs_json_key(w, k);
    hs_json_num(w, sig(v));
}

/* A number, or null when it is not finite (a factor no run reaches). */
static void kv_num_or_null(hs_json *w, const char *k, double v)
{
    hs_json_key(w, k);
    if (isfinite(v))
        hs_json_num(w, sig(v));
    else
        hs_json_null(w);
}

static const char *verdict_name(int v)
{
    switch (v) {
    case HS__V_CLEAR: return "clear";
    case HS__V_CONGESTED: return "congested";
    case HS__V_UNDECIDED: return "undecided";
    default: return "no_data";
    }
}

static void kv_uint(hs_json *w, const char *k, uint64_t v)
{
    hs_json_key(w, k);
    hs_json_uint(w, v);
}

static void kv_str(hs_json *w, const char *k, const char *v)
{
    hs_json_key(w, k);
    if (v)
        hs_json_str(w, v);
    else
        hs_json_null(w);
}

static void kv_bool(hs_json *w, const char *k, int v)
{
    hs_json_key(w, k);
    hs_json_bool(w, v);
}

static void arr_u32(hs_json *w, const char *k, const uint32_t *v, uint32_t n)
{
    hs_json_key(w, k);
    hs_json_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        hs_json_uint(w, v[i]);
    hs_json_arr_end(w);
}

/* ---- sections ------------------------------------------------------------------- */

static void w_devices(hs_json *w, const hs_analysis *a)
{
    const hs__run *r = a->r;
    /* ranks per node from the app's mapping (CSR) */
    uint32_t *off = calloc((size_t)r->N + 1, sizeof *off), *lst = NULL;
    const uint32_t *map = a->app ? a->app->node_of_rank : NULL;
    uint32_t R = map ? a->app->ranks : 0;
    if (off && map) {
        lst = malloc((R ? R : 1) * sizeof *lst);
        uint32_t *fill = malloc(((size_t)r->N + 1) * sizeof *fill);
        if (lst && fill) {
            for (uint32_t q = 0; q < R; q++)
                off[map[q] + 1]++;
            for (uint32_t n = 0; n < r->N; n++)
                off[n + 1] += off[n];
            memcpy(fill, off, ((size_t)r->N + 1) * sizeof *fill);
            for (uint32_t q = 0; q < R; q++)
                lst[fill[map[q]]++] = q;
        } else {
            free(lst);
            lst = NULL;
        }
        free(fill);
    }
    hs_json_key(w, "devices");
    hs_json_obj_begin(w);
    hs_json_key(w, "nodes");
    hs_json_arr_begin(w);
    for (uint32_t n = 0; n < r->N; n++) {
        const hs__node *d = &r->nd[n];
        hs_json_obj_begin(w);
        kv_uint(w, "i", n);
        kv_str(w, "name", d->name);
        kv_uint(w, "switch", d->sw);
        kv_uint(w, "injection", d->inj);
        kv_uint(w, "ejection", d->ej);
        if (lst)
            arr_u32(w, "ranks", lst + off[n], off[n + 1] - off[n]);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "switches");
    hs_json_arr_begin(w);
    for (uint32_t s = 0; s < r->S; s++) {
        const hs__switch *x = &r->sw[s];
        hs_json_obj_begin(w);
        kv_uint(w, "i", s);
        kv_str(w, "name", x->name);
        kv_uint(w, "ports", x->ports);
        if (x->level >= 0)
            kv_uint(w, "level", (uint64_t)x->level);
        if (x->group >= 0)
            kv_uint(w, "group", (uint64_t)x->group);
        if (x->router >= 0)
            kv_uint(w, "router", (uint64_t)x->router);
        if (x->coord) {
            hs_json_key(w, "coord");
            hs_json_arr_begin(w);
            for (const char *c = x->coord; *c;) {
                hs_json_uint(w, strtoull(c, NULL, 10));
                c = strchr(c, '.');
                if (!c)
                    break;
                c++;
            }
            hs_json_arr_end(w);
        }
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_obj_end(w);
    free(off);
    free(lst);
}

/* Numbers with fewer digits, for the blind decoder's figures beside the
 * chosen ones (its standard errors are large: four digits say it all). */
static double sig4(double x)
{
    if (!isfinite(x) || x == 0)
        return x;
    char b[40];
    snprintf(b, sizeof b, "%.4g", x);
    return strtod(b, NULL);
}

/* One object per link.  To keep a 16k-node dragonfly's file sane, keys
 * whose value is the default are left out (docs/formats.md says which):
 * from/to kinds (they follow from "kind"), "sub" of node links, the
 * capacity when it is topology.link_capacity, false flags, zero standard
 * errors, estimates of links no sampled packet crossed. */
static void w_links(hs_json *w, const hs_analysis *a)
{
    const hs__run *r = a->r;
    double cap0 = hs__an_link_capacity(r, 1);
    hs_json_key(w, "links");
    hs_json_arr_begin(w);
    for (uint32_t l = 1; l <= r->L; l++) {
        const hs__link *k = &r->lk[l];
        hs_json_obj_begin(w);
        kv_uint(w, "id", l);
        kv_uint(w, "from", k->from);
        kv_uint(w, "to", k->to);
        kv_str(w, "kind", hs__an_link_kind_name(k));
        if (k->kind == HS__LK_SWITCH)
            kv_str(w, "sub", hs__an_link_sub_name(k));
        if (r->topo_kind == HS__TOPO_FATTREE && k->kind == HS__LK_SWITCH)
            kv_uint(w, "level", k->level);
        if (k->sub == HS__SUB_TORUS) {
            kv_uint(w, "dim", k->dim);
            hs_json_key(w, "dir");
            hs_json_int(w, k->dir);
            if (k->wrap)
                kv_bool(w, "wrap", 1);
        }
        double cap = hs__an_link_capacity(r, l);
        if (cap != cap0)
            kv_uint(w, "capacity", (uint64_t)cap);
        kv_str(w, "status", a->status[l] == HS__ST_OK ? "ok" : "insufficient");
        if (a->verdict[l] != HS__V_NODATA)
            kv_str(w, "verdict", verdict_name(a->verdict[l]));
        if (a->pool_of[l] != HS__NIL)
            kv_uint(w, "pool", a->pool_of[l]);
        if (a->congested[l])
            kv_bool(w, "is_congested", 1);
        if (a->is_root[l])
            kv_bool(w, "is_root", 1);
        const hs_estimate *e = &a->est[l];
        if (e->traffic != 0 || e->traffic_se != 0 || e->congested != 0) {
            kv_num(w, "traffic", e->traffic);
            if (e->traffic_se != 0)
                kv_num(w, "traffic_se", e->traffic_se);
            kv_num(w, "congested", e->congested);
            kv_num(w, "congested_se", e->congested_se);
            if (e->cf_valid) {
                kv_num(w, "cf", e->cf);
                kv_num(w, "cf_se", e->cf_se);
            }
            kv_num(w, "load", a->load[l]);
            kv_num(w, "load_busy", a->load_busy[l]);
        }
        if (a->lost && a->lost[l] > 0)
            kv_num(w, "overflowed", a->lost[l]);
        if (a->decoder == HS__DEC_ROUTE && a->have_blind) {
            const hs_estimate *b = &a->est_blind[l];
            hs_json_key(w, "blind");
            hs_json_obj_begin(w);
            hs_json_key(w, "traffic");
            hs_json_num(w, sig4(b->traffic));
            hs_json_key(w, "traffic_se");
            hs_json_num(w, sig4(b->traffic_se));
            hs_json_key(w, "congested");
            hs_json_num(w, sig4(b->congested));
            hs_json_key(w, "congested_se");
            hs_json_num(w, sig4(b->congested_se));
            if (b->cf_valid) {
                hs_json_key(w, "cf");
                hs_json_num(w, sig4(b->cf));
                hs_json_key(w, "cf_se");
                hs_json_num(w, sig4(b->cf_se));
            }
            hs_json_obj_end(w);
        }
        if (a->t_packets && (a->t_all[l] > 0 || a->t_busy[l] > 0 || a->t_stall[l] > 0)) {
            hs_json_key(w, "truth");
            hs_json_obj_begin(w);
            kv_num(w, "packets", a->t_packets[l]);
            if (a->t_packets[l] > 0) {
                kv_num(w, "congested", a->t_congested[l]);
                kv_num(w, "cf", a->t_congested[l] / a->t_packets[l]);
            }
            kv_num(w, "all_packets", a->t_all[l]);
            if (a->t_busy[l] > 0)
                kv_num(w, "busy", a->t_busy[l]);
            if (a->t_stall[l] > 0)
                kv_num(w, "stall", a->t_stall[l]);
            hs_json_obj_end(w);
        }
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
}

static void w_view_links(hs_json *w, const hs_analysis *a, const hs__view *v, int truth)
{
    (void)a;
    hs_json_key(w, "columns");
    hs_json_arr_begin(w);
    static const char *cols[] = { "id", "traffic", "traffic_se", "congested", "congested_se",
                                  "cf", "cf_se", "load", "flags", "true_packets",
                                  "true_congested" };
    for (int i = 0; i < (truth ? 11 : 9); i++)
        hs_json_str(w, cols[i]);
    hs_json_arr_end(w);
    hs_json_key(w, "rows");
    hs_json_arr_begin(w);
    for (uint32_t k = 0; k < v->n; k++) {
        const hs__lest *o = &v->lk[k];
        hs_json_arr_begin(w);
        hs_json_uint(w, o->link);
        hs_json_num(w, sig(o->e.traffic));
        hs_json_num(w, sig(o->e.traffic_se));
        hs_json_num(w, sig(o->e.congested));
        hs_json_num(w, sig(o->e.congested_se));
        hs_json_num(w, sig(o->e.cf));
        hs_json_num(w, sig(o->e.cf_se));
        hs_json_num(w, sig(o->load));
        hs_json_uint(w, (uint64_t)(o->congested | o->root << 1));
        if (truth) {
            hs_json_num(w, o->t_packets);
            hs_json_num(w, o->t_congested);
        }
        hs_json_arr_end(w);
    }
    hs_json_arr_end(w);
}

static void w_phases(hs_json *w, const hs_analysis *a)
{
    const hs__run *r = a->r;
    hs_json_key(w, "phases");
    hs_json_arr_begin(w);
    for (uint32_t g = 0; g < a->ngroups; g++) {
        const hs__group *G = &a->groups[g];
        const hs__view *v = &a->gviews[g];
        hs_json_obj_begin(w);
        kv_uint(w, "index", g);
        kv_str(w, "name", G->name);
        kv_str(w, "kind", G->kind);
        kv_bool(w, "user_named", G->user_named);
        kv_bool(w, "app", G->app);
        hs_json_key(w, "phase_ids");
        hs_json_arr_begin(w);
        for (uint32_t i = 0; i < G->npidx; i++)
            hs_json_uint(w, r->ph[G->pidx[i]].id);
        hs_json_arr_end(w);
        hs_json_key(w, "tags");
        if (G->tag_lo >= 0) {
            hs_json_arr_begin(w);
            hs_json_int(w, G->tag_lo);
            hs_json_int(w, G->tag_hi);
            hs_json_arr_end(w);
        } else {
            hs_json_null(w);
        }
        kv_str(w, "collective", G->collective);
        if (a->app) {
            kv_uint(w, "messages", G->messages);
            kv_uint(w, "bytes", G->bytes);
            kv_uint(w, "time_ps", G->time_ps);
        }
        kv_uint(w, "records", G->records);
        kv_uint(w, "packets", v->tot.packets);
        kv_uint(w, "flagged", v->tot.flagged);
        kv_uint(w, "links_ok", v->n);
        kv_uint(w, "links_congested", v->ncongested);
        arr_u32(w, "roots", v->roots, v->nroots);
        w_view_links(w, a, v, a->t_packets != NULL);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
}

static void w_windows(hs_json *w, const hs_analysis *a)
{
    hs_json_key(w, "windows");
    hs_json_obj_begin(w);
    kv_uint(w, "window_ps", a->r->window_ps);
    kv_str(w, "decoder", decoder_name(a->decoder));
    hs_json_key(w, "list");
    hs_json_arr_begin(w);
    for (uint32_t i = 0; i < a->nwviews; i++) {
        const hs__view *v = &a->wviews[i];
        hs_json_obj_begin(w);
        kv_uint(w, "index", v->window);
        kv_uint(w, "t0_ps", v->t0_ps);
        kv_uint(w, "t1_ps", v->t1_ps);
        kv_uint(w, "packets", v->tot.packets);
        kv_uint(w, "flagged", v->tot.flagged);
        kv_uint(w, "links_ok", v->n);
        kv_uint(w, "links_congested", v->ncongested);
        arr_u32(w, "roots", v->roots, v->nroots);
        w_view_links(w, a, v, 0);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_obj_end(w);
}

static void w_roots(hs_json *w, const hs_analysis *a)
{
    hs_json_key(w, "roots");
    hs_json_arr_begin(w);
    for (uint32_t q = 0; q < a->nroots; q++) {
        const hs__root *R = &a->roots[q];
        if (R->victim_of >= 0)
            continue;
        hs_json_obj_begin(w);
        arr_u32(w, "links", R->links, R->nlinks);
        kv_uint(w, "size", R->ntree);
        arr_u32(w, "tree", R->tree, R->ntree);
        arr_u32(w, "victims", R->victims, R->nvictims);
        kv_bool(w, "endpoint", R->endpoint);
        kv_bool(w, "heavy", R->heavy);
        kv_num(w, "load_busy", R->load);
        kv_num(w, "cf", R->cf);
        kv_num(w, "cf_se", R->cf_se);
        kv_num(w, "congested", R->congested);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
}

static void w_diagnosis(hs_json *w, const hs_analysis *a, const char *map_file)
{
    hs_json_key(w, "diagnosis");
    hs_json_arr_begin(w);
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const hs__finding *f = &a->findings[i];
        hs_json_obj_begin(w);
        kv_str(w, "kind", hs_an_kind_name(f->kind));
        kv_str(w, "summary", f->summary);
        arr_u32(w, "links", f->links, f->nlinks);
        kv_uint(w, "root_links", f->nlinks_root);
        kv_uint(w, "root_count", f->nroots);
        arr_u32(w, "nodes", f->nodes, f->nnodes);
        arr_u32(w, "node_packets", f->node_count, f->nnodes);
        arr_u32(w, "ranks", f->ranks, f->nranks);
        hs_json_key(w, "phases");
        hs_json_arr_begin(w);
        for (uint32_t k = 0; k < f->ngroups; k++)
            hs_json_str(w, a->groups[f->groups[k]].name);
        hs_json_arr_end(w);
        arr_u32(w, "phase_packets", f->group_count, f->ngroups);
        if (f->target != HS__NIL)
            kv_uint(w, "target_node", f->target);
        if (f->kind != HS_AN_NONE && f->kind != HS_AN_UNDECIDED) {
            kv_num(w, "cf", f->cf);
            kv_num(w, "cf_se", f->cf_se);
            kv_num(w, "load_busy", f->load);
            kv_num(w, "severity", f->severity);
        }
        if (f->have_mapping) {
            hs_json_key(w, "suggested_mapping");
            hs_json_obj_begin(w);
            kv_str(w, "file", map_file);
            kv_num(w, "byte_hops_now", f->cost_now);
            kv_num(w, "byte_hops_suggested", f->cost_suggested);
            hs_json_obj_end(w);
        }
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
}

static void w_accuracy(hs_json *w, const hs_analysis *a)
{
    hs_json_key(w, "accuracy");
    if (!a->nacc) {
        hs_json_null(w);
        return;
    }
    hs_json_arr_begin(w);
    for (uint32_t i = 0; i < a->nacc; i++) {
        const hs__accuracy *ac = &a->acc[i];
        hs_json_obj_begin(w);
        kv_str(w, "decoder", decoder_name(ac->decoder));
        hs_json_key(w, "rows");
        hs_json_arr_begin(w);
        for (uint32_t k = 0; k < ac->nrows; k++) {
            const hs__acc_row *row = &ac->rows[k];
            hs_json_obj_begin(w);
            kv_str(w, "links_kind", row->name);
            kv_num(w, "min_true_packets", row->min_true);
            kv_uint(w, "links", row->links);
            kv_num(w, "traffic_rel_err_mean", row->traffic_mean);
            kv_num(w, "traffic_rel_err_max", row->traffic_max);
            kv_uint(w, "cf_links", row->cf_links);
            kv_num(w, "cf_abs_err_mean", row->cf_mean);
            kv_num(w, "cf_abs_err_max", row->cf_max);
            kv_num(w, "cf_within_2se", row->cf_within_2se);
            hs_json_obj_end(w);
        }
        hs_json_arr_end(w);
        hs_json_key(w, "classification");
        hs_json_obj_begin(w);
        kv_uint(w, "true_positive", ac->tp);
        kv_uint(w, "false_positive", ac->fp);
        kv_uint(w, "false_negative", ac->fn);
        kv_uint(w, "true_negative", ac->tn);
        hs_json_obj_end(w);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
}

static void w_app(hs_json *w, const hs_analysis *a)
{
    hs_json_key(w, "app");
    const hs__app *p = a->app;
    if (!p) {
        hs_json_null(w);
        return;
    }
    hs_json_obj_begin(w);
    kv_str(w, "trace", p->trace);
    kv_str(w, "command", p->command);
    kv_str(w, "simulate_command", p->sim_command);
    kv_uint(w, "ranks", p->ranks);
    hs_json_key(w, "mapping");
    hs_json_obj_begin(w);
    kv_str(w, "policy", p->map_policy);
    kv_str(w, "param", p->map_param);
    kv_uint(w, "ranks_per_node", p->ranks_per_node);
    if (p->node_of_rank)
        arr_u32(w, "node_of_rank", p->node_of_rank, p->ranks);
    hs_json_obj_end(w);
    hs_json_key(w, "time");
    if (p->have_time) {
        hs_json_obj_begin(w);
        kv_uint(w, "total_ps", p->total_ps);
        kv_uint(w, "compute_ps", p->compute_ps);
        kv_uint(w, "comm_ps", p->comm_ps);
        if (p->per_rank_ps) {
            hs_json_key(w, "per_rank_ps");
            hs_json_arr_begin(w);
            for (uint32_t q = 0; q < p->ranks; q++)
                hs_json_uint(w, p->per_rank_ps[q]);
            hs_json_arr_end(w);
        }
        hs_json_obj_end(w);
    } else {
        hs_json_null(w);
    }
    hs_json_key(w, "phase_times");
    hs_json_arr_begin(w);
    for (uint32_t i = 0; i < p->nph; i++) {
        hs_json_obj_begin(w);
        kv_uint(w, "id", p->ph[i].id);
        kv_str(w, "name", p->ph[i].name);
        kv_bool(w, "app", p->ph[i].app);
        kv_uint(w, "time_ps", p->ph[i].time_ps);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "latency");
    if (p->latency)
        hs_json_copy(w, p->doc, p->latency);
    else
        hs_json_null(w);
    hs_json_key(w, "congestion_impact");
    if (p->congestion_impact)
        hs_json_copy(w, p->doc, p->congestion_impact);
    else
        hs_json_null(w);
    hs_json_key(w, "background");
    if (p->have_background) {
        hs_json_obj_begin(w);
        kv_str(w, "spec", p->bg_spec);
        arr_u32(w, "nodes", p->bg_nodes, p->nbg_nodes);
        hs_json_obj_end(w);
    } else {
        hs_json_null(w);
    }
    hs_json_obj_end(w);
}

/* Whether the replay that produced the run completed, and what it means for
 * the findings when it did not; NULL when complete or not a replay. */
static const char *replay_caveat(const hs_analysis *a)
{
    const hs__app *p = a->app;
    if (!p || !p->replay_status || strcmp(p->replay_status, "ok") == 0)
        return NULL;
    if (strcmp(p->replay_status, "deadlock") == 0)
        return "the replay did not complete: some ranks could never go on (a trace cut short, "
               "e.g. by a killed run, or a receive no rank sends). The counters cover only the "
               "part that was replayed: congestion later in the run is missing, the phase and "
               "run times are not the application's, and 'no congestion' here means none "
               "in that part only.";
    if (strcmp(p->replay_status, "stalled") == 0)
        return "the replay was stopped by its watchdog: the application made no progress for "
               "a long simulated time while only the background ran (app.json "
               "replay.watchdog_ps; the simulate report names the blocked ranks). The counters "
               "cover only the part that was replayed, and times are not the application's.";
    if (strcmp(p->replay_status, "network_deadlock") == 0)
        return "the replay stopped on a network deadlock (a cycle of full buffers, printed by "
               "simulate): a routing or topology-file error. The counters cover only the part "
               "before it, and the congestion around the cycle is an artefact of the deadlock.";
    if (strcmp(p->replay_status, "incomplete") == 0)
        return "the replay ended with messages or receives left unmatched (see app.json "
               "replay.unmatched_*): that traffic never crossed the model, so links it "
               "would have loaded may be under-reported.";
    return "the replay did not complete (see app.json replay.status): the counters cover only "
           "the part that was replayed, and times are not the application's.";
}

static void w_replay(hs_json *w, const hs_analysis *a)
{
    const hs__app *p = a->app;
    hs_json_key(w, "replay");
    if (!p || !p->replay_status) {
        hs_json_null(w);
        return;
    }
    const char *caveat = replay_caveat(a);
    hs_json_obj_begin(w);
    kv_str(w, "status", p->replay_status);
    kv_bool(w, "complete", caveat == NULL);
    kv_uint(w, "unmatched_sends", p->unmatched_sends);
    kv_uint(w, "unmatched_recvs", p->unmatched_recvs);
    kv_str(w, "caveat", caveat);
    hs_json_obj_end(w);
}

int hs_an_write_json(const hs_analysis *a, const char *path, hs_error *err)
{
    const hs__run *r = a->r;
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s'", path);
    hs_json w;
    hs_json_init(&w, f, 0);
    hs_json_obj_begin(&w);
    kv_str(&w, "format", "hopscope-analysis");
    kv_uint(&w, "version", 1);
    kv_str(&w, "hopscope", HS_VERSION);
    kv_str(&w, "command", a->command);
    kv_str(&w, "run", r->dir);
    w_replay(&w, a);

    hs_json_key(&w, "decoder");
    hs_json_obj_begin(&w);
    kv_str(&w, "used", decoder_name(a->decoder));
    kv_bool(&w, "route_aware", a->have_route);
    kv_bool(&w, "blind", a->have_blind);
    kv_str(&w, "paths", !a->have_route ? "none" : a->paths_exact ? "exact" : "candidates");
    kv_str(&w, "note", a->route_note);
    hs_json_obj_end(&w);

    hs_json_key(&w, "params");
    hs_json_obj_begin(&w);
    kv_num(&w, "cf_threshold", a->p.cf_threshold);
    kv_num(&w, "z", a->p.z);
    kv_num(&w, "max_cf_se", a->p.max_cf_se);
    kv_num(&w, "min_packets", a->p.min_packets);
    kv_num(&w, "max_traffic_cv", a->p.max_traffic_cv);
    kv_num(&w, "sig_share", a->p.sig_share);
    kv_num(&w, "sig_packets", a->p.sig_packets);
    kv_num(&w, "load_high", a->p.load_high);
    kv_num(&w, "load_low", a->p.load_low);
    kv_uint(&w, "load_bin_ps", a->p.load_bin_ps);
    kv_str(&w, "phases_file", a->phases_file);
    hs_json_obj_end(&w);

    hs_json_key(&w, "topology");
    hs_json_obj_begin(&w);
    kv_str(&w, "kind", r->topo_kind_name);
    kv_str(&w, "spec", r->topo_spec);
    kv_str(&w, "routing", r->routing);
    kv_bool(&w, "deterministic", r->deterministic);
    kv_bool(&w, "table_determined", r->table_determined);
    kv_uint(&w, "nodes", r->N);
    kv_uint(&w, "switches", r->S);
    kv_uint(&w, "links", r->L);
    kv_uint(&w, "link_capacity", (uint64_t)hs__an_link_capacity(r, 1));
    hs_json_obj_end(&w);

    hs_json_key(&w, "scheme");
    hs_json_obj_begin(&w);
    kv_uint(&w, "k", r->scheme.k);
    kv_uint(&w, "c", r->scheme.c);
    kv_uint(&w, "b", r->scheme.b);
    kv_bool(&w, "exact", r->scheme.exact);
    kv_uint(&w, "field_bits", r->scheme.field_bits);
    hs_json_obj_end(&w);

    hs_json_key(&w, "measurement");
    hs_json_obj_begin(&w);
    kv_uint(&w, "end_ps", r->end_ps);
    kv_num(&w, "duration_ps", a->duration_ps);
    kv_uint(&w, "window_ps", r->window_ps);
    kv_num(&w, "bytes_per_packet", a->bytes_per_packet);
    kv_num(&w, "monitored_fraction", a->sample_p);
    kv_str(&w, "monitor_unit", "message");
    kv_num(&w, "msg_packets", a->msg_packets);
    kv_uint(&w, "app_packets", a->app_packets);
    kv_uint(&w, "packets_monitored", a->app_packets);
    kv_num(&w, "packets_total", a->packets_total);
    if (r->have_truth)
        kv_num(&w, "packets_total_truth", a->packets_truth);
    kv_uint(&w, "records", r->R);
    kv_uint(&w, "records_dropped", r->records_dropped);
    kv_num(&w, "records_share", a->monitor);
    const hs_totals *t = a->decoder == HS__DEC_ROUTE ? &a->tot_route : &a->tot_blind;
    kv_uint(&w, "packets_counted", t->packets);
    kv_uint(&w, "packets_flagged", t->flagged);
    kv_uint(&w, "packets_overflowed", a->packets_overflowed);
    kv_num(&w, "overflowed_fraction",
           a->app_packets ? (double)a->packets_overflowed / (double)a->app_packets : 0);
    kv_uint(&w, "hop_max", r->scheme.hop_max);
    kv_uint(&w, "max_route_links", r->max_route_links);
    kv_bool(&w, "traffic_exact", a->traffic_exact);
    kv_str(&w, "caveats", a->caveats);
    kv_bool(&w, "truth", r->have_truth);
    hs_json_obj_end(&w);

    hs_an_summary s;
    hs_an_get_summary(a, &s);
    hs_json_key(&w, "summary");
    hs_json_obj_begin(&w);
    kv_uint(&w, "links", s.links);
    kv_uint(&w, "links_ok", s.links_ok);
    kv_uint(&w, "links_congested", s.links_congested);
    kv_uint(&w, "roots", s.roots);
    kv_num(&w, "max_cf", s.max_cf);
    kv_num(&w, "max_cf_se", s.max_cf_se);
    kv_uint(&w, "max_cf_link", s.max_cf_link);
    kv_num(&w, "app_congested_packets", s.app_congested);
    kv_str(&w, "top", hs_an_kind_name(s.top));
    kv_uint(&w, "links_undecided", a->nundecided);
    kv_uint(&w, "links_pooled_congested", a->pooled_congested);
    hs_json_obj_end(&w);

    /* how each link was judged (judge.c; docs/analysis.md) */
    hs_json_key(&w, "judgement");
    hs_json_obj_begin(&w);
    kv_str(&w, "rule", "congested when cf - t*cf_se >= cf_threshold, clear when cf + t*cf_se < "
           "cf_threshold, else undecided; t: Student's t quantile with packets - 1 degrees of "
           "freedom at z");
    kv_uint(&w, "undecided", a->nundecided);
    kv_uint(&w, "pooled_congested", a->pooled_congested);
    kv_num_or_null(&w, "need_half", a->nundecided ? a->need_half : NAN);
    kv_num_or_null(&w, "need_all", a->nundecided && a->need_all < 1e6 ? a->need_all : NAN);
    hs_json_key(&w, "pools");
    hs_json_arr_begin(&w);
    for (uint32_t i = 0; i < a->npools; i++) {
        const hs__pool *P = &a->pools[i];
        hs_json_obj_begin(&w);
        kv_str(&w, "role", P->role);
        kv_uint(&w, "level", (uint64_t)P->level);
        arr_u32(&w, "links", P->links, P->nlinks);
        kv_num(&w, "traffic", P->e.traffic);
        kv_num(&w, "traffic_se", P->e.traffic_se);
        kv_num(&w, "congested", P->e.congested);
        kv_num(&w, "congested_se", P->e.congested_se);
        kv_num(&w, "cf", P->e.cf);
        kv_num(&w, "cf_se", P->e.cf_se);
        kv_str(&w, "verdict", verdict_name(P->verdict));
        if (P->verdict == HS__V_UNDECIDED)
            kv_num_or_null(&w, "need", P->need);
        hs_json_obj_end(&w);
    }
    hs_json_arr_end(&w);
    hs_json_obj_end(&w);

    char mapf[4200];
    snprintf(mapf, sizeof mapf, "%s/suggested.map", r->dir);
    w_diagnosis(&w, a, mapf);
    w_roots(&w, a);
    w_devices(&w, a);
    w_links(&w, a);
    w_phases(&w, a);
    if (a->p.windows)
        w_windows(&w, a);
    w_accuracy(&w, a);
    w_app(&w, a);
    hs_json_obj_end(&w);
    int rc = hs_json_finish(&w);
    fputc('\n', f);
    if (ferror(f) | (fclose(f) != 0) || rc)
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}

/* ---- the terminal summary --------------------------------------------------------- */

/* Prints s wrapped at 78 columns with the given indent after the first line. */
static void wrap(FILE *f, const char *s, unsigned first, unsigned indent)
{
    unsigned col = first;
    const char *p = s;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t n = sp ? (size_t)(sp - p) : strlen(p);
        if (col + n > 78 && col > indent) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        }
        fwrite(p, 1, n, f);
        col += (unsigned)n;
        p += n;
        if (*p == ' ') {
            p++;
            if (col + 1 < 78) {
                fputc(' ', f);
                col++;
            }
        }
    }
    fputc('\n', f);
}

static int cmp_cf_desc(const void *x, const void *y, void *ctx)
{
    const hs_analysis *a = ctx;
    uint32_t u = *(const uint32_t *)x, v = *(const uint32_t *)y;
    double cu = a->est[u].cf, cv = a->est[v].cf;
    if (cu != cv)
        return cu > cv ? -1 : 1;
    return u < v ? -1 : u > v;
}

/* "ej 64, up1-2 32, down2-1 32": a view's congested links by kind:
 * injection, ejection, then switch links by subkind, fat-tree up and down
 * links by the levels they join (1 = leaf switches). */
static void congested_where(const hs_analysis *a, const hs__view *vw, char *buf, size_t n)
{
    enum { MAXCLS = 64 };
    typedef struct { unsigned key; char name[16]; uint32_t count; } where_cls;
    where_cls cls[MAXCLS];
    uint32_t ncls = 0;
    for (uint32_t i = 0; i < vw->n; i++) {
        if (!vw->lk[i].congested)
            continue;
        const hs__link *k = &a->r->lk[vw->lk[i].link];
        unsigned key;
        char name[16];
        if (k->kind == HS__LK_INJECTION) {
            key = 0;
            snprintf(name, sizeof name, "inj");
        } else if (k->kind == HS__LK_EJECTION) {
            key = 1;
            snprintf(name, sizeof name, "ej");
        } else if (k->sub == HS__SUB_UP || k->sub == HS__SUB_DOWN) {
            int up = k->sub == HS__SUB_UP;
            key = 2 + 2 * (unsigned)k->level + !up;
            snprintf(name, sizeof name, up ? "up%u-%u" : "down%u-%u", up ? k->level : k->level + 1,
                     up ? k->level + 1 : k->level);
        } else {
            key = 1024 + k->sub;
            snprintf(name, sizeof name, "%s", hs__an_link_sub_name(k));
        }
        uint32_t c = 0;
        while (c < ncls && cls[c].key != key)
            c++;
        if (c == ncls) {
            if (ncls == MAXCLS)
                continue;
            cls[ncls].key = key;
            memcpy(cls[ncls].name, name, sizeof name);
            cls[ncls++].count = 0;
        }
        cls[c].count++;
    }
    for (uint32_t x = 1; x < ncls; x++) /* a handful of classes: insertion sort */
        for (uint32_t y = x; y > 0 && cls[y - 1].key > cls[y].key; y--) {
            where_cls t = cls[y];
            cls[y] = cls[y - 1];
            cls[y - 1] = t;
        }
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t c = 0; c < ncls; c++) {
        int w = snprintf(buf + used, n - used, "%s%s %u", c ? ", " : "", cls[c].name, cls[c].count);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    if (!used)
        snprintf(buf, n, "-");
}

void hs_an_print(const hs_analysis *a, FILE *f)
{
    const hs__run *r = a->r;
    hs_an_summary s;
    hs_an_get_summary(a, &s);
    char buf[200];
    fprintf(f, "run        %s\n", r->dir);
    const char *caveat = replay_caveat(a);
    if (caveat) {
        fprintf(f, "REPLAY     %s: ", a->app->replay_status);
        wrap(f, caveat, 11 + (unsigned)strlen(a->app->replay_status) + 2, 11);
    }
    fprintf(f, "network    %s\n", r->topo_spec);
    fprintf(f, "           %u nodes, %u switches, %u links\n", r->N, r->S, r->L);
    fprintf(f, "decoder    %s", decoder_name(a->decoder));
    if (a->decoder == HS__DEC_ROUTE)
        fprintf(f, " (%llu records%s)", (unsigned long long)r->R,
                a->have_blind ? "; blind decoder beside it" : "");
    fprintf(f, "\n           ");
    wrap(f, a->route_note, 11, 11);
    fprintf(f, "links      %u judged by their own estimate, %u congested (CF above %.2f at "
            "%.3g SE%s), %u root%s\n", s.links_ok, s.links_congested, a->p.cf_threshold,
            a->p.z, a->pooled_congested ? ", some only pooled" : "", s.roots,
            s.roots == 1 ? "" : "s");
    if (s.roots) {
        /* the roots by finding: the same counts the findings give */
        fprintf(f, "           roots by finding:");
        for (uint32_t i = 0; i < a->nfindings; i++)
            if (a->findings[i].nroots)
                fprintf(f, "%s %s %u", i ? "," : "", hs_an_kind_name(a->findings[i].kind),
                        a->findings[i].nroots);
        fprintf(f, "\n");
    }
    if (a->nundecided)
        fprintf(f, "           %u link%s with the application's packets cannot be judged, even "
                "pooled by role (details: analysis.json \"judgement\")\n", a->nundecided,
                a->nundecided == 1 ? "" : "s");
    if (a->app && a->app->have_time)
        fprintf(f, "app        %u ranks, predicted time %.6g us\n", a->app->ranks,
                (double)a->app->total_ps / 1e6);
    fprintf(f, "in-band    %u-bit field, %u-bit hop counter (holds %u links", r->scheme.field_bits,
            r->scheme.c, r->scheme.hop_max);
    if (r->max_route_links)
        fprintf(f, "; longest route here %u", r->max_route_links);
    fprintf(f, ")\n           %llu packets monitored (p = %.3g per message), %llu overflowed\n",
            (unsigned long long)a->app_packets, a->sample_p,
            (unsigned long long)a->packets_overflowed);
    if (a->caveats[0]) {
        fprintf(f, "           ");
        wrap(f, a->caveats, 11, 11);
    }
    fprintf(f, "\nFindings (most delayed application packets first):\n");
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const hs__finding *F = &a->findings[i];
        int k = fprintf(f, "%2u. [%s] ", i + 1, hs_an_kind_name(F->kind));
        wrap(f, F->summary, (unsigned)k, 4);
    }
    /* the most congested links */
    uint32_t *v = malloc(((size_t)r->L + 1) * sizeof *v), n = 0;
    if (v) {
        for (uint32_t l = 1; l <= r->L; l++)
            if (a->congested[l])
                v[n++] = l;
        qsort_r(v, n, sizeof *v, cmp_cf_desc, (void *)a);
        if (n) {
            fprintf(f, "\nCongested links (%u; top %u by congested fraction):\n", n,
                    n < 10 ? n : 10);
            /* the application's load: in its bursts (load_busy, what the
             * findings weigh) and over the run (load); docs/analysis.md */
            fprintf(f, "  %-44s %13s %9s %6s %6s %5s\n", "link", "CF +- SE", "packets", "bursts",
                    "run", "root");
            for (uint32_t i = 0; i < n && i < 10; i++) {
                uint32_t l = v[i];
                const hs_estimate *e = &a->est[l];
                /* for people: CF clipped to [0, 1] (raw in analysis.json),
                 * load capped at 100% with ">" when demand exceeded it */
                double cf = e->cf < 0 ? 0 : e->cf > 1 ? 1 : e->cf;
                double ld = a->load_busy[l] > 1 ? 1 : a->load_busy[l];
                double lr = a->load[l] > 1 ? 1 : a->load[l] < 0 ? 0 : a->load[l];
                fprintf(f, "  %-44s %6.3f+-%.3f %9.0f %s%4.0f%% %s%4.0f%% %5s\n",
                        hs__an_link_desc(r, l, buf, sizeof buf), cf, e->cf_se, e->traffic,
                        a->load_busy[l] > 1 ? ">" : " ", 100 * ld, a->load[l] > 1 ? ">" : " ",
                        100 * lr, a->is_root[l] ? "yes" : "");
            }
        }
        free(v);
    }
    /* phases */
    uint32_t shown = 0;
    for (uint32_t g = 0; g < a->ngroups; g++)
        shown += a->gviews[g].n > 0;
    if (shown > 1 || (shown == 1 && a->ngroups > 1)) {
        fprintf(f, "\nPhases:\n  %-28s %10s %9s %10s %6s  %s\n", "phase", "packets", "links ok",
                "congested", "roots", "where (congested links by kind)");
        for (uint32_t g = 0; g < a->ngroups; g++) {
            const hs__view *vw = &a->gviews[g];
            if (!vw->n && !vw->tot.packets)
                continue;
            char where[256];
            congested_where(a, vw, where, sizeof where);
            fprintf(f, "  %-28.28s %10llu %9u %10u %6u  %s\n", a->groups[g].name,
                    (unsigned long long)vw->tot.packets, vw->n, vw->ncongested, vw->nroots, where);
        }
    }
    if (a->nwviews) {
        uint32_t cw = 0;
        for (uint32_t i = 0; i < a->nwviews; i++)
            cw += a->wviews[i].ncongested > 0;
        fprintf(f, "\nWindows: %u of %.6g us, %u with congested links\n", a->nwviews,
                (double)r->window_ps / 1e6, cw);
    }
    for (uint32_t i = 0; i < a->nacc; i++) {
        const hs__accuracy *ac = &a->acc[i];
        if (i == 0)
            fprintf(f, "\nAccuracy against ground truth (links with enough true packets):\n"
                       "  %-12s %-10s %7s %6s %19s %17s %8s\n", "decoder", "links", ">= pkts",
                    "links", "traffic err mean/max", "CF err mean/max", "<= 2 SE");
        for (uint32_t k = 0; k < ac->nrows; k++) {
            const hs__acc_row *row = &ac->rows[k];
            if (strcmp(row->name, "all") != 0)
                continue;
            if (row->cf_links)
                fprintf(f, "  %-12s %-10s %7.0f %6u %9.2f%%/%6.2f%% %8.4f/%7.4f %7.0f%%\n",
                        decoder_name(ac->decoder), row->name, row->min_true, row->links,
                        100 * row->traffic_mean, 100 * row->traffic_max, row->cf_mean,
                        row->cf_max, 100 * row->cf_within_2se);
            else
                fprintf(f, "  %-12s %-10s %7.0f %6u %9.2f%%/%6.2f%% %16s %8s\n",
                        decoder_name(ac->decoder), row->name, row->min_true, row->links,
                        100 * row->traffic_mean, 100 * row->traffic_max, "(no CF: too few)", "-");
        }
    }
}

void hs_an_print_accuracy(const hs_analysis *a, FILE *f)
{
    if (!a->nacc)
        return;
    const hs__run *r = a->r;
    double tmax = 0;
    uint32_t ttrue = 0, tlinks = 0, tmax_link = 0;
    for (uint32_t l = 1; l <= r->L; l++) {
        if (a->t_packets[l] * a->monitor < a->p.min_packets)
            continue;
        double cf = a->t_congested[l] / a->t_packets[l];
        tlinks++;
        ttrue += cf >= a->p.cf_threshold;
        if (cf > tmax) {
            tmax = cf;
            tmax_link = l;
        }
    }
    char buf[160];
    fprintf(f, "truth: %u links with >= %.0f packets of the application; %u of them with a true "
            "CF >= %.2f; largest true CF %.4f (%s)\n\n", tlinks, a->p.min_packets, ttrue,
            a->p.cf_threshold, tmax, tmax_link ? hs__an_link_desc(r, tmax_link, buf, sizeof buf)
                                              : "-");
    fprintf(f, "| decoder | links | true packets >= | links | traffic error mean / max | "
               "CF links | CF error mean / max | CF within 2 SE |\n|---|---|---|---|---|---|---|---|\n");
    for (uint32_t i = 0; i < a->nacc; i++) {
        const hs__accuracy *ac = &a->acc[i];
        for (uint32_t k = 0; k < ac->nrows; k++) {
            const hs__acc_row *row = &ac->rows[k];
            fprintf(f, "| %s | %s | %.0f | %u | %.2f%% / %.2f%% | %u |", decoder_name(ac->decoder),
                    row->name, row->min_true, row->links, 100 * row->traffic_mean,
                    100 * row->traffic_max, row->cf_links);
            if (row->cf_links)
                fprintf(f, " %.4f / %.4f | %.0f%% |\n", row->cf_mean, row->cf_max,
                        100 * row->cf_within_2se);
            else
                fprintf(f, " - | - |\n");
        }
    }
    fprintf(f, "\n| decoder | congested, truly (true CF >= %.2f) | congested, not truly | "
               "missed | rightly not congested |\n|---|---|---|---|---|\n", a->p.cf_threshold);
    for (uint32_t i = 0; i < a->nacc; i++) {
        const hs__accuracy *ac = &a->acc[i];
        fprintf(f, "| %s | %u | %u | %u | %u |\n", decoder_name(ac->decoder), ac->tp, ac->fp,
                ac->fn, ac->tn);
    }
}
