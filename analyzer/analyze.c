/* hs_analyze_run: from a run directory to per-link estimates, per-phase and
 * per-window views, congestion trees and a diagnosis.
 *
 * Order of work:
 *   1. read the run directory, app.json and the --phases rules;
 *   2. group phases by name; check every record (nodes, phase, field, order);
 *   3. decode: the blind fast decoder on the NIC counters (always, when
 *      present), and the route-aware decoder on the records where the
 *      forwarding tables determine the candidate links: per phase group
 *      (their sum is the whole run) and per window;
 *   4. per link: status ("insufficient data" or not), congested or not, the
 *      application's own load share (run and peak window);
 *   5. ground truth and the decoders' accuracy, when truth.bin is there;
 *   6. congestion trees and roots (trees.c), findings (diagnose.c).
 * All decoding goes through hash/ (hs_decode_fast, hs_decode_route,
 * hs_estimate_from_sums); nothing here re-implements it. */
#include "route.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hs_analyze_params_default(hs_analyze_params *p)
{
    memset(p, 0, sizeof *p);
    p->cf_threshold = 0.25;
    p->z = 2.0;
    p->max_cf_se = 0.1;
    p->min_packets = 100;
    p->max_traffic_cv = 0.1;
    p->sig_share = 0.05;
    p->sig_packets = 10;
    p->load_high = 0.5;
    p->load_low = -1; /* auto: tau / load bin (0.25 for the defaults) */
    p->decoder = HS_AN_DECODER_AUTO;
    p->windows = 1;
    p->load_bin_ps = 0; /* auto: 8 full-packet times of the link class */
    p->max_report = 16;
}

static int check_params(const hs_analyze_params *p, hs_error *err)
{
#define NEED(cond, what) \
    if (!(cond))         \
        return hs_error_set(err, HS_EINVAL, "%s", what)
    NEED(p->cf_threshold > 0 && p->cf_threshold < 1, "cf threshold must be in (0, 1)");
    NEED(p->z >= 0 && p->z <= 10, "z must be in [0, 10]");
    NEED(p->max_cf_se > 0 && p->max_cf_se <= 1, "max CF standard error must be in (0, 1]");
    NEED(p->min_packets >= 1 && p->min_packets < 1e15, "min packets must be at least 1");
    NEED(p->max_traffic_cv > 0 && p->max_traffic_cv <= 1, "max traffic CV must be in (0, 1]");
    NEED(p->sig_share >= 0 && p->sig_share < 1, "significance share must be in [0, 1)");
    NEED(p->sig_packets >= 0 && p->sig_packets < 1e15, "significance packets must be >= 0");
    NEED((p->load_low >= 0 || p->load_low == -1) && p->load_high <= 10 &&
             p->load_low <= p->load_high,
         "load thresholds: need 0 <= low <= high (low -1: auto)");
    NEED(p->load_bin_ps == 0 || (p->load_bin_ps >= 1000 && p->load_bin_ps <= 1000000000000ull),
         "load bin must be 0 (auto) or between 1 ns and 1 s");
    NEED(p->decoder >= HS_AN_DECODER_AUTO && p->decoder <= HS_AN_DECODER_ROUTE, "unknown decoder");
#undef NEED
    return 0;
}

/* ---- phase groups -------------------------------------------------------------- */

static const hs__app_phase *app_phase(const hs__app *app, uint32_t id)
{
    if (!app)
        return NULL;
    for (uint32_t i = 0; i < app->nph; i++)
        if (app->ph[i].id == id)
            return &app->ph[i];
    return NULL;
}

static int build_groups(hs_analysis *a, const uint8_t *has_data, hs_error *err)
{
    const hs__run *r = a->r;
    a->groups = calloc(r->nph ? r->nph : 1, sizeof *a->groups);
    a->group_of_phase = malloc((r->nph ? r->nph : 1) * sizeof *a->group_of_phase);
    if (!a->groups || !a->group_of_phase)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->nph; i++) {
        const hs__app_phase *ap = app_phase(a->app, r->ph[i].id);
        int64_t tag = ap ? ap->tag : -1;
        const char *coll = ap ? ap->collective : NULL;
        const char *user = hs__an_phase_rules_match(&a->rules, r->ph[i].id, tag, coll);
        const char *name = user ? user : ap ? ap->name : r->ph[i].name;
        uint32_t g;
        for (g = 0; g < a->ngroups; g++)
            if (strcmp(a->groups[g].name, name) == 0)
                break;
        hs__group *G = &a->groups[g];
        if (g == a->ngroups) {
            a->ngroups++;
            G->name = strdup(name);
            G->pidx = malloc(r->nph * sizeof *G->pidx);
            if (!G->name || !G->pidx)
                return hs_error_set(err, HS_ENOMEM, "out of memory");
            G->user_named = user != NULL;
            G->tag_lo = G->tag_hi = -1;
            G->kind = ap ? ap->kind : (r->synthetic && r->ph[i].id == 0 ? "synthetic" : "unknown");
            G->collective = coll;
        } else {
            const char *k = ap ? ap->kind : "unknown";
            if (strcmp(G->kind, k) != 0)
                G->kind = "mixed";
            if (!coll || !G->collective || strcmp(coll, G->collective) != 0)
                G->collective = NULL;
        }
        G->pidx[G->npidx++] = i;
        /* without app.json the application is whatever carried monitored
         * packets; background phases are never monitored */
        G->app |= ap ? ap->app : has_data[i];
        if (tag >= 0) {
            if (G->tag_lo < 0 || tag < G->tag_lo)
                G->tag_lo = tag;
            if (tag > G->tag_hi)
                G->tag_hi = tag;
        }
        if (ap) {
            G->messages += ap->messages;
            G->bytes += ap->bytes;
            G->time_ps += ap->time_ps;
        }
        a->group_of_phase[i] = g;
    }
    return 0;
}

/* ---- records -------------------------------------------------------------------- */

/* One pass over the records: everything the decoders rely on, so the hot
 * loops need no checks.  Counts records per phase index. */
static int check_records(hs_analysis *a, uint64_t *per_phase, hs_error *err)
{
    const hs__run *r = a->r;
    char path[4200];
    snprintf(path, sizeof path, "%s/records.bin", r->dir);
    if (r->R >= UINT32_MAX)
        return hs_error_set(err, HS_ENOTSUP, "%s: %llu records: at most %u can be analysed", path,
                            (unsigned long long)r->R, UINT32_MAX - 1);
    /* phase id -> index, dense over 16 bits */
    uint32_t *pmap = malloc(65536 * sizeof *pmap);
    if (!pmap)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    memset(pmap, 0xff, 65536 * sizeof *pmap);
    for (uint32_t i = 0; i < r->nph; i++)
        pmap[r->ph[i].id] = i;
    uint64_t last_t = 0;
    double sh = 0, sh2 = 0;
    int rc = 0;
    for (uint64_t i = 0; i < r->R && !rc; i++) {
        if (i % HS_AN_PROGRESS_STEP == 0)
            HS__AN_PROGRESS(a, "checking records", i, r->R);
        hs__rec rec;
        hs__rec_get(r, i, &rec);
        unsigned long long off = 40 + 40ull * i;
        hs_field f;
        if (rec.src >= r->N || rec.dst >= r->N || rec.src == rec.dst)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %llu: record %llu: source %u, "
                              "destination %u (nodes 0..%u, distinct)", path, off,
                              (unsigned long long)i, rec.src, rec.dst, r->N - 1);
        else if (pmap[rec.phase] == HS__NIL)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %llu: record %llu: phase %u is not in "
                              "phases.tsv", path, off + 32, (unsigned long long)i, rec.phase);
        else if (hs_field_unpack(&r->scheme, rec.field, &f))
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %llu: record %llu: field 0x%llx is not "
                              "a valid %u-bit in-band field", path, off + 24, (unsigned long long)i,
                              (unsigned long long)rec.field, r->scheme.field_bits);
        else if (rec.t < last_t)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %llu: record %llu: delivery time "
                              "before the previous record's (records are in delivery order)",
                              path, off + 16, (unsigned long long)i);
        else if (rec.t / r->window_ps > UINT32_MAX)
            rc = hs_error_set(err, HS_EFORMAT, "%s: offset %llu: record %llu: delivery time out "
                              "of range", path, off + 16, (unsigned long long)i);
        else {
            per_phase[pmap[rec.phase]]++;
            if (f.hop >= 1 && f.hop <= r->scheme.hop_max) {
                sh += f.hop;
                sh2 += (double)f.hop * f.hop;
            }
        }
        last_t = rec.t;
    }
    free(pmap);
    /* the hops of the packets a link sees: each packet crosses h links, so
     * the mean over (packet, link) pairs is sum h^2 / sum h */
    if (sh > 0)
        a->judge_hbar = sh2 / sh;
    return rc;
}

/* ---- estimates and classification -------------------------------------------------- */

void hs__an_est(const hs_analysis *a, const hs_linksum *ls, int exact, hs_estimate *e)
{
    /* npath without exact paths: a node link under candidate sets, whose
     * records are known exactly (hs__an_route_decode) */
    hs_estimate_sampled(&a->r->scheme, ls, exact || ls->npath > 0, a->sample_p, a->msg_packets,
                        e);
}

/* A link's own estimate judged by its standard error (judge.c): status OK
 * when it decides (congested or clear), congested when above the threshold
 * with confidence.  *verdict (may be NULL) gets the HS__V_* verdict. */
static void classify_h(const hs_analysis *a, const hs_estimate *e, double hbar, uint8_t *status,
                       uint8_t *cong, uint8_t *verdict)
{
    const hs_analyze_params *p = &a->p;
    int v = hs__an_judge_one(e, p->cf_threshold, p->z, p->max_traffic_cv, hbar,
                             a->sample_p, NULL);
    *status = v == HS__V_CONGESTED || v == HS__V_CLEAR ? HS__ST_OK : HS__ST_INSUFFICIENT;
    *cong = v == HS__V_CONGESTED;
    if (verdict)
        *verdict = (uint8_t)v;
}

double hs__an_hbar(const hs_analysis *a, uint32_t l)
{
    return a->hop_n && a->hop_n[l] > 0 ? a->hop_sum[l] / a->hop_n[l] : a->judge_hbar;
}

/* Per link, the hop counts of the records that surely crossed it: with
 * exact paths every link of the path, with candidate sets the node links. */
static int hop_sums(hs_analysis *a)
{
    const hs__run *r = a->r;
    hs__paths *p = a->paths;
    a->hop_sum = calloc((size_t)r->L + 1, sizeof *a->hop_sum);
    a->hop_n = calloc((size_t)r->L + 1, sizeof *a->hop_n);
    if (!a->hop_sum || !a->hop_n)
        return HS_ENOMEM;
    for (uint64_t i = 0; i < r->R; i++) {
        hs__rec rec;
        hs__rec_get(r, i, &rec);
        hs_field f;
        if (hs_field_unpack(&r->scheme, rec.field, &f) || f.hop == 0 || f.hop > r->scheme.hop_max)
            continue;
        uint32_t ends[2] = { r->nd[rec.src].inj, r->nd[rec.dst].ej };
        for (int k = 0; k < 2; k++) {
            a->hop_sum[ends[k]] += f.hop;
            a->hop_n[ends[k]] += 1;
        }
        if (!p->exact)
            continue;
        hs__pentry *e;
        if (hs__an_paths_get(p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &e))
            return HS_ENOMEM;
        for (uint32_t j = 0; j < e->n; j++) {
            a->hop_sum[p->pool[e->off + j]] += f.hop;
            a->hop_n[p->pool[e->off + j]] += 1;
        }
    }
    return 0;
}

static void classify(const hs_analysis *a, const hs_estimate *e, uint8_t *status, uint8_t *cong,
                     uint8_t *verdict)
{
    const hs_analyze_params *p = &a->p;
    int v = hs__an_judge_one(e, p->cf_threshold, p->z, p->max_traffic_cv, a->judge_hbar,
                             a->sample_p, NULL);
    *status = v == HS__V_CONGESTED || v == HS__V_CLEAR ? HS__ST_OK : HS__ST_INSUFFICIENT;
    *cong = v == HS__V_CONGESTED;
    if (verdict)
        *verdict = (uint8_t)v;
}

double hs__an_link_capacity(const hs__run *r, uint32_t l)
{
    const hs__link *k = &r->lk[l];
    double c = (double)k->bw;
    if (k->kind == HS__LK_EJECTION && r->nd[k->to].rx && (double)r->nd[k->to].rx < c)
        c = (double)r->nd[k->to].rx;
    return c;
}

/* The application's own load on link l: its estimated packets (estimates
 * are already scaled to all packets; a->monitor < 1 only when the records
 * were capped) times the mean bytes a packet puts on the wire, over what
 * the link can carry in the interval. */
static double load_share(const hs_analysis *a, uint32_t l, double traffic, double duration_ps)
{
    if (duration_ps <= 0 || traffic <= 0)
        return 0;
    double bytes = traffic / a->monitor * a->bytes_per_packet;
    return bytes / (hs__an_link_capacity(a->r, l) * duration_ps * 1e-12);
}

static int make_view(hs_analysis *a, hs__view *v, const hs_linksum *ls, const hs_estimate *dense,
                     int exact)
{
    const hs__run *r = a->r;
    size_t cap = 0;
    v->n = v->ncongested = 0;
    v->lk = NULL;
    for (uint32_t l = 1; l <= r->L; l++) {
        hs_estimate e;
        if (dense)
            e = dense[l];
        else
            hs__an_est(a, &ls[l], exact, &e);
        uint8_t st, cg;
        classify(a, &e, &st, &cg, NULL);
        if (st != HS__ST_OK)
            continue;
        if (v->n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            hs__lest *t = realloc(v->lk, nc * sizeof *t);
            if (!t)
                return HS_ENOMEM;
            v->lk = t;
            cap = nc;
        }
        hs__lest *o = &v->lk[v->n++];
        memset(o, 0, sizeof *o);
        o->link = l;
        o->status = st;
        o->congested = cg;
        o->e = e;
        o->load = load_share(a, l, e.traffic, v->duration_ps);
        o->t_packets = o->t_congested = -1;
        v->ncongested += cg;
    }
    return 0;
}

/* The application's load on a link as its own packets see it: per window,
 * its packets there times their mean size over what the link carries in
 * the window; averaged over windows weighted by those packets.  A link the
 * application loads in bursts (a halo exchange between computations) shows
 * the burst's load, not the run's average; a few stray packets in a quiet
 * window weigh little.  Every link that carried any sampled packet counts,
 * not only those with enough data for a congested fraction.  A noisy
 * estimate (blind decoding, candidate sets) enters with its lower
 * confidence bound, traffic - z SE, so noise does not inflate it. */
static void window_loads(hs_analysis *a, const hs_linksum *ls, int exact, double duration_ps)
{
    const hs__run *r = a->r;
    for (uint32_t l = 1; l <= r->L; l++) {
        if (!ls[l].npath && !ls[l].s)
            continue;
        hs_estimate e;
        hs__an_est(a, &ls[l], exact, &e);
        double n = e.traffic - a->p.z * e.traffic_se;
        if (n <= 0)
            continue;
        a->lw_packets[l] += n;
        a->lw_load[l] += n * load_share(a, l, n, duration_ps);
    }
}

/* The same from the records themselves, in bins of load_bin_ps whatever
 * the counters' window (a long run merges windows, and a coarse window
 * averages a burst away): per bin, the application's packets on each link
 * whose path is certain (every link with deterministic routing; the
 * injection and ejection links with candidate sets).  Each packet sees the
 * application's OTHER packets of its bin: what could have queued it (a
 * packet alone sees 0, so short bins carry no one-packet floor).
 *
 * The same pass decodes, route-aware, the application's "quiet" packets
 * on each link into a->quiet: those with fewer than tau's worth of its own
 * other packets in their bin there.  The application cannot have queued
 * them; if they are congested all the same, someone else's traffic did
 * (the diagnosis, "interference").  Choosing them by time, not by their
 * in-band bits, keeps the estimate unbiased.
 *
 * Records are in delivery order, so a bin is a run of records. */
typedef struct quiet_ctx {
    const uint32_t *cnt;
    const double *ahead;
} quiet_ctx;

static int quiet_keep(void *ctx, uint32_t l)
{
    const quiet_ctx *q = ctx;
    return q->cnt[l] >= 1 && q->cnt[l] <= q->ahead[l];
}

/* Records in (src, dst) order, for grouping a bin's records by flow. */
static int cmp_flow(const void *x, const void *y, void *ctx)
{
    const hs__run *r = ctx;
    const unsigned char *p = r->rec + 40 * (size_t)*(const uint64_t *)x;
    const unsigned char *q = r->rec + 40 * (size_t)*(const uint64_t *)y;
    uint64_t a = (uint64_t)hs__le32(p) << 32 | hs__le32(p + 4);
    uint64_t b = (uint64_t)hs__le32(q) << 32 | hs__le32(q + 4);
    return a < b ? -1 : a > b;
}

/* With sampled monitoring, the ordered pairs of a bin's records on each
 * link that belong to one flow (src, dst), into same[]: a message's packets
 * are sampled together (probability p for the pair), packets of different
 * messages independently (p^2), so the two kinds of pair scale apart.  A
 * flow's packets in one bin are taken as one message (mostly so: a bin is
 * a few packet times).  idx has room for the bin's records. */
static int same_flow_pairs(const hs_analysis *a, uint64_t first, uint64_t end, uint64_t *idx,
                           double *same)
{
    const hs__run *r = a->r;
    hs__paths *p = a->paths;
    size_t n = (size_t)(end - first);
    for (size_t i = 0; i < n; i++)
        idx[i] = first + i;
    qsort_r(idx, n, sizeof *idx, cmp_flow, (void *)r);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cmp_flow(&idx[i], &idx[j], (void *)r) == 0)
            j++;
        double c = (double)(j - i);
        if (c > 1) {
            hs__rec rec;
            hs__rec_get(r, idx[i], &rec);
            hs__pentry *e;
            int rc = hs__an_paths_get(p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &e);
            if (rc)
                return rc;
            uint32_t ends[2] = { r->nd[rec.src].inj, r->nd[rec.dst].ej };
            uint32_t m = p->exact ? e->n + 2 : 2;
            for (uint32_t k = 0; k < m; k++)
                same[k < 2 ? ends[k] : p->pool[e->off + k - 2]] += c * (c - 1);
        }
        i = j;
    }
    return 0;
}

static int record_loads(hs_analysis *a, hs_error *err)
{
    const hs__run *r = a->r;
    hs__paths *p = a->paths;
    size_t nl = (size_t)r->L + 1;
    uint32_t *cnt = calloc(nl, sizeof *cnt), *touched = malloc(nl * sizeof *touched);
    double *w1 = calloc(nl, sizeof *w1), *w2 = calloc(nl, sizeof *w2);
    double *ahead = malloc(nl * sizeof *ahead);
    int sampled = a->sample_p < 1;
    double *same = sampled ? calloc(nl, sizeof *same) : NULL;
    uint64_t *idx = NULL;
    size_t idx_cap = 0;
    hs__decoder d;
    int rc = hs__an_decoder_init(&d, p, err);
    a->quiet = calloc(nl, sizeof *a->quiet);
    if (rc || !cnt || !touched || !w1 || !w2 || !ahead || !a->quiet || (sampled && !same)) {
        if (!rc)
            hs__an_decoder_free(&d);
        free(same);
        free(cnt);
        free(touched);
        free(w1);
        free(w2);
        free(ahead);
        free(a->quiet);
        a->quiet = NULL;
        return rc ? rc : hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    /* What fits in each link's tau, in full packets: a packet flagged
     * congested waited at least that long, behind at least that much. */
    for (uint32_t l = 1; l <= r->L; l++) {
        double full = ((double)r->mtu + r->header) / hs__an_link_capacity(r, l) * 1e12;
        double k = full > 0 ? (double)r->lk[l].tau / full : 1;
        ahead[l] = (k < 1 ? 1 : k) * a->monitor * a->sample_p; /* in monitored packets */
    }
    quiet_ctx qc = { cnt, ahead };
    hs_totals qtot;
    memset(&qtot, 0, sizeof qtot);
    uint32_t nt = 0;
    uint64_t bin = UINT64_MAX, first = 0;
    for (uint64_t i = 0; i <= r->R && !rc; i++) {
        if (i % HS_AN_PROGRESS_STEP == 0)
            HS__AN_PROGRESS(a, "the application's load per link", i, r->R);
        hs__rec rec;
        memset(&rec, 0, sizeof rec);
        uint64_t b = UINT64_MAX - 1;
        if (i < r->R) {
            hs__rec_get(r, i, &rec);
            b = rec.t / a->p.load_bin_ps;
        }
        if (b != bin) {
            /* the bin's records, with their quiet links as candidates */
            for (uint64_t k = first; k < i && !rc; k++)
                rc = hs__an_route_add(&d, k, quiet_keep, &qc, a->quiet, &qtot, NULL);
            if (sampled && i > first) {
                if ((size_t)(i - first) > idx_cap) {
                    size_t nc = (size_t)(i - first) * 2;
                    uint64_t *t = realloc(idx, nc * sizeof *t);
                    if (!t) {
                        rc = HS_ENOMEM;
                        break;
                    }
                    idx = t;
                    idx_cap = nc;
                }
                if ((rc = same_flow_pairs(a, first, i, idx, same)))
                    break;
            }
            /* each of the cnt packets sees the cnt - 1 others of its bin;
             * sampled: pairs of one message / p, of two messages / p^2,
             * over packets / p (so the others of all packets, per packet) */
            for (uint32_t k = 0; k < nt; k++) {
                uint32_t l = touched[k];
                double pairs = (double)cnt[l] * (cnt[l] - 1.0);
                w1[l] += cnt[l];
                if (sampled) {
                    w2[l] += same[l] + (pairs - same[l]) / a->sample_p;
                    same[l] = 0;
                } else {
                    w2[l] += pairs;
                }
                cnt[l] = 0;
            }
            nt = 0;
            bin = b;
            first = i;
        }
        if (i == r->R || rc)
            break;
        hs__pentry *e;
        if ((rc = hs__an_paths_get(p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &e))) {
            rc = hs_error_set(err, rc, "out of memory");
            break;
        }
        uint32_t ends[2] = { r->nd[rec.src].inj, r->nd[rec.dst].ej };
        uint32_t n = p->exact ? e->n + 2 : 2;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t l = j < 2 ? ends[j] : p->pool[e->off + j - 2];
            if (!cnt[l]++)
                touched[nt++] = l;
        }
    }
    if (!rc)
        rc = hs__an_route_flush(&d, a->quiet, &qtot);
    for (uint32_t l = 1; !rc && l <= r->L; l++) {
        if (w1[l] <= 0)
            continue;
        a->lw_packets[l] = w1[l];
        a->lw_load[l] = w1[l] * load_share(a, l, w2[l] / w1[l], (double)a->p.load_bin_ps);
    }
    hs__an_decoder_free(&d);
    free(same);
    free(idx);
    free(cnt);
    free(touched);
    free(w1);
    free(w2);
    free(ahead);
    if (rc) {
        free(a->quiet);
        a->quiet = NULL;
        if (rc == HS_ENOMEM)
            rc = hs_error_set(err, rc, "out of memory");
    }
    return rc;
}

/* ---- the blind decoder -------------------------------------------------------------- */

typedef struct blind {
    hs_counters sum, one;
    hs_linksum *ls;
} blind;

static int blind_init(hs_analysis *a, blind *b, hs_error *err)
{
    memset(b, 0, sizeof *b);
    int rc = hs_counters_init(&b->sum, &a->r->scheme, err);
    if (!rc)
        rc = hs_counters_init(&b->one, &a->r->scheme, err);
    b->ls = malloc(((size_t)a->r->L + 1) * sizeof *b->ls);
    if (!rc && !b->ls)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    return rc;
}

static void blind_free(blind *b)
{
    hs_counters_free(&b->sum);
    hs_counters_free(&b->one);
    free(b->ls);
}

/* Decodes the sum of counter sets sets[0..n) into b->ls. */
static int blind_decode(hs_analysis *a, blind *b, const uint32_t *sets, uint32_t n,
                        hs_totals *tot, hs_error *err)
{
    hs_counters_reset(&b->sum);
    for (uint32_t i = 0; i < n; i++) {
        if (n == 1) {
            hs__an_cset_load(a->r, sets[i], &b->sum);
            break;
        }
        hs__an_cset_load(a->r, sets[i], &b->one);
        if (hs_counters_add(&b->sum, &b->one))
            return hs_error_set(err, HS_EINVAL, "counter sets of different shapes");
    }
    int rc = hs_decode_fast(&b->sum, b->ls, a->r->L + 1, tot);
    if (rc)
        return hs_error_set(err, rc, "blind decoder: %s", hs_strerror(rc));
    return 0;
}

static int run_blind(hs_analysis *a, hs_error *err)
{
    hs__run *r = a->r;
    blind b;
    int rc = blind_init(a, &b, err);
    uint32_t *sets = malloc((r->ncs ? r->ncs : 1) * sizeof *sets);
    if (!rc && !sets)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; !rc && i < r->ncs; i++)
        if (r->cs[i].kind == 1)
            sets[n++] = i;
    /* the whole run: all phase sets (every monitored packet is in exactly one) */
    if (!rc)
        rc = blind_decode(a, &b, sets, n, &a->tot_blind, err);
    for (uint32_t l = 1; !rc && l <= r->L; l++)
        hs__an_est(a, &b.ls[l], 0, &a->est_blind[l]);
    if (!rc && a->decoder == HS__DEC_BLIND) {
        /* per phase group: the sum of its phases' sets */
        for (uint32_t g = 0; !rc && g < a->ngroups; g++) {
            hs__group *G = &a->groups[g];
            hs__view *v = &a->gviews[g];
            n = 0;
            for (uint32_t i = 0; i < r->ncs; i++)
                if (r->cs[i].kind == 1)
                    for (uint32_t k = 0; k < G->npidx; k++)
                        if (r->ph[G->pidx[k]].id == r->cs[i].id)
                            sets[n++] = i;
            if (!n)
                continue;
            if ((rc = blind_decode(a, &b, sets, n, &v->tot, err)))
                break;
            if (make_view(a, v, b.ls, NULL, 0))
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        /* per window: the window sets */
        uint32_t nw = 0;
        for (uint32_t i = 0; i < r->ncs; i++)
            nw += r->cs[i].kind == 2;
        if (!rc && nw) {
            a->wviews = calloc(nw, sizeof *a->wviews);
            if (!a->wviews)
                rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            for (uint32_t i = 0; !rc && i < r->ncs; i++) {
                if (r->cs[i].kind != 2)
                    continue;
                hs__view *v = &a->wviews[a->nwviews++];
                v->kind = 2;
                v->window = r->cs[i].id;
                v->t0_ps = v->window * r->window_ps;
                v->t1_ps = v->t0_ps + r->window_ps;
                v->duration_ps = (double)r->window_ps;
                if ((rc = blind_decode(a, &b, &i, 1, &v->tot, err)))
                    break;
                window_loads(a, b.ls, 0, v->duration_ps);
                if (a->p.windows && make_view(a, v, b.ls, NULL, 0))
                    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            }
        }
    }
    free(sets);
    blind_free(&b);
    return rc;
}

/* ---- the route-aware decoder ------------------------------------------------------- */

static int run_route(hs_analysis *a, const uint64_t *per_phase, hs_error *err)
{
    hs__run *r = a->r;
    hs__paths *p = calloc(1, sizeof *p);
    if (!p)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    a->paths = p;
    int rc = hs__an_paths_init(p, r, err);
    if (rc)
        return rc;
    hs__decoder d;
    if ((rc = hs__an_decoder_init(&d, p, err)))
        return rc;
    size_t nls = (size_t)r->L + 1;
    hs_linksum *acc = malloc(nls * sizeof *acc);
    hs_linksum *total = calloc(nls, sizeof *total);
    uint32_t *perm = malloc((r->R ? r->R : 1) * sizeof *perm);
    uint64_t *start = calloc((size_t)a->ngroups + 1, sizeof *start);
    if (!acc || !total || !perm || !start) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for %llu records",
                          (unsigned long long)r->R);
        goto out;
    }
    /* counting sort of the records by phase group */
    for (uint32_t i = 0; i < r->nph; i++)
        start[a->group_of_phase[i] + 1] += per_phase[i];
    for (uint32_t g = 0; g < a->ngroups; g++) {
        start[g + 1] += start[g];
        a->groups[g].records = start[g + 1] - start[g];
    }
    {
        uint32_t *pidx = malloc(65536 * sizeof *pidx);
        uint64_t *fill = malloc(((size_t)a->ngroups + 1) * sizeof *fill);
        if (!pidx || !fill) {
            free(pidx);
            free(fill);
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto out;
        }
        for (uint32_t i = 0; i < r->nph; i++)
            pidx[r->ph[i].id] = a->group_of_phase[i];
        memcpy(fill, start, ((size_t)a->ngroups + 1) * sizeof *fill);
        for (uint64_t i = 0; i < r->R; i++) {
            const unsigned char *q = r->rec + 40 * i + 32;
            perm[fill[pidx[q[0] | q[1] << 8]]++] = (uint32_t)i;
        }
        free(pidx);
        free(fill);
    }
    /* per group; the whole run is their sum; flows counted once */
    for (uint32_t g = 0; g < a->ngroups; g++) {
        hs__view *v = &a->gviews[g];
        if (start[g] == start[g + 1])
            continue;
        memset(acc, 0, nls * sizeof *acc);
        /* in slices, for progress: the sums are integers, so slicing
         * changes nothing */
        for (uint64_t lo = start[g]; lo < start[g + 1]; lo += HS_AN_PROGRESS_STEP) {
            uint64_t hi = start[g + 1] - lo > HS_AN_PROGRESS_STEP ? lo + HS_AN_PROGRESS_STEP
                                                                  : start[g + 1];
            HS__AN_PROGRESS(a, "decoding records by phase", lo, r->R);
            hs_totals t;
            memset(&t, 0, sizeof t);
            if ((rc = hs__an_route_decode(&d, perm, lo, hi, acc, &t, 1))) {
                rc = hs_error_set(err, rc, "route-aware decoder: %s", hs_strerror(rc));
                goto out;
            }
            hs__an_tot_add(&v->tot, &t);
        }
        if (make_view(a, v, acc, NULL, p->exact)) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto out;
        }
        hs__an_ls_add(total, acc, (uint32_t)nls);
        hs__an_tot_add(&a->tot_route, &v->tot);
    }
    hs__an_paths_finish_flows(p);
    for (uint32_t l = 1; l <= r->L; l++)
        hs__an_est(a, &total[l], p->exact, &a->est_route[l]);
    /* per window: records are in delivery order, so each window is a run */
    if (r->R) {
        /* windows present: runs of equal t / window_ps */
        uint64_t nw = 0, prev = UINT64_MAX;
        for (uint64_t i = 0; i < r->R; i++) {
            uint64_t w = hs__le64(r->rec + 40 * i + 16) / r->window_ps;
            nw += w != prev;
            prev = w;
        }
        a->wviews = calloc(nw, sizeof *a->wviews);
        if (!a->wviews) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto out;
        }
        uint64_t i = 0;
        while (i < r->R) {
            hs__rec rec;
            hs__rec_get(r, i, &rec);
            uint64_t w = rec.t / r->window_ps, j = i + 1;
            while (j < r->R) {
                hs__rec_get(r, j, &rec);
                if (rec.t / r->window_ps != w)
                    break;
                j++;
            }
            HS__AN_PROGRESS(a, "decoding records by window", i, r->R);
            hs__view *v = &a->wviews[a->nwviews++];
            v->kind = 2;
            v->window = w;
            v->t0_ps = w * r->window_ps;
            v->t1_ps = v->t0_ps + r->window_ps;
            v->duration_ps = (double)r->window_ps;
            memset(acc, 0, nls * sizeof *acc);
            if (!(rc = hs__an_route_decode(&d, NULL, i, j, acc, &v->tot, 0)))
                window_loads(a, acc, p->exact, v->duration_ps);
            if (rc || (a->p.windows && make_view(a, v, acc, NULL, p->exact))) {
                rc = hs_error_set(err, rc ? rc : HS_ENOMEM, "route-aware decoder: %s",
                                  hs_strerror(rc ? rc : HS_ENOMEM));
                goto out;
            }
            i = j;
        }
    }
out:
    hs__an_decoder_free(&d);
    free(acc);
    free(total);
    free(perm);
    free(start);
    return rc;
}

/* ---- truth and accuracy --------------------------------------------------------------- */

static int load_truth(hs_analysis *a, const uint8_t *phase_is_app, hs_error *err)
{
    const hs__run *r = a->r;
    size_t n = (size_t)r->L + 1;
    a->t_packets = calloc(n, sizeof(double));
    a->t_congested = calloc(n, sizeof(double));
    a->t_all = calloc(n, sizeof(double));
    a->t_busy = calloc(n, sizeof(double));
    a->t_stall = calloc(n, sizeof(double));
    if (!a->t_packets || !a->t_congested || !a->t_all || !a->t_busy || !a->t_stall)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    double end = r->end_ps > 0 ? (double)r->end_ps : 1;
    for (uint32_t l = 1; l <= r->L; l++) {
        hs__truth t;
        hs__an_truth_get(r, 0, l, &t);
        a->t_all[l] = (double)t.packets;
        a->t_busy[l] = (double)t.busy_ps / end;
        a->t_stall[l] = (double)t.stall_ps / end;
        for (uint32_t i = 0; i < r->nph; i++) {
            if (!phase_is_app[i])
                continue;
            hs__an_truth_get(r, 1 + i, l, &t);
            a->t_packets[l] += (double)t.packets;
            a->t_congested[l] += (double)t.congested;
        }
        if (r->lk[l].kind == HS__LK_INJECTION) /* every network packet crosses one */
            a->packets_truth += a->t_packets[l];
    }
    /* per phase group views */
    for (uint32_t g = 0; g < a->ngroups; g++) {
        const hs__group *G = &a->groups[g];
        hs__view *v = &a->gviews[g];
        for (uint32_t k = 0; k < v->n; k++) {
            hs__lest *o = &v->lk[k];
            o->t_packets = o->t_congested = 0;
            for (uint32_t i = 0; i < G->npidx; i++) {
                hs__truth t;
                hs__an_truth_get(r, 1 + G->pidx[i], o->link, &t);
                o->t_packets += (double)t.packets;
                o->t_congested += (double)t.congested;
            }
        }
    }
    return 0;
}

static const char *kind_row(const hs__link *l)
{
    if (l->kind == HS__LK_INJECTION)
        return "injection";
    if (l->kind == HS__LK_EJECTION)
        return "ejection";
    return hs__an_link_sub_name(l);
}

static void accuracy(hs_analysis *a, hs__accuracy *ac, const hs_estimate *est, int decoder)
{
    const hs__run *r = a->r;
    memset(ac, 0, sizeof *ac);
    ac->decoder = decoder;
    static const char *kinds[] = { "all", "injection", "ejection", "up", "down", "local",
                                   "global", "torus", "plain" };
    double thr[2] = { a->p.min_packets, 1e4 };
    double sum_t[24] = {0}, sum_c[24] = {0}, within[24] = {0};
    for (int ti = 0; ti < 2; ti++)
        for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
            /* one row per (threshold, kind) that has links */
            hs__acc_row row;
            memset(&row, 0, sizeof row);
            snprintf(row.name, sizeof row.name, "%s", kinds[ki]);
            row.min_true = thr[ti];
            uint32_t idx = ac->nrows;
            for (uint32_t l = 1; l <= r->L; l++) {
                const hs__link *k = &r->lk[l];
                if (ki && strcmp(kind_row(k), kinds[ki]) != 0)
                    continue;
                double truth = a->t_packets[l] * a->monitor;
                if (truth < thr[ti])
                    continue;
                const hs_estimate *e = &est[l];
                double te = fabs(e->traffic - truth) / truth;
                row.links++;
                sum_t[idx] += te;
                if (te > row.traffic_max)
                    row.traffic_max = te;
                /* the estimator's accuracy on every link whose CF is
                 * defined, not only on those the judgement decides
                 * (those would favour links far from the threshold) */
                if (e->cf_valid && e->traffic_se <= a->p.max_traffic_cv * e->traffic) {
                    double tcf = a->t_congested[l] / a->t_packets[l];
                    double ce = fabs(e->cf - tcf);
                    row.cf_links++;
                    sum_c[idx] += ce;
                    if (ce > row.cf_max)
                        row.cf_max = ce;
                    within[idx] += ce <= 2 * e->cf_se + 1e-12;
                }
            }
            if (!row.links || ac->nrows == sizeof ac->rows / sizeof ac->rows[0])
                continue;
            row.traffic_mean = sum_t[idx] / row.links;
            row.cf_mean = row.cf_links ? sum_c[idx] / row.cf_links : 0;
            row.cf_within_2se = row.cf_links ? within[idx] / row.cf_links : 0;
            ac->rows[ac->nrows++] = row;
        }
    for (uint32_t l = 1; l <= r->L; l++) {
        uint8_t st, cg;
        classify(a, &est[l], &st, &cg, NULL);
        if (st != HS__ST_OK || a->t_packets[l] <= 0)
            continue;
        int truly = a->t_congested[l] / a->t_packets[l] >= a->p.cf_threshold;
        ac->tp += cg && truly;
        ac->fp += cg && !truly;
        ac->fn += !cg && truly;
        ac->tn += !cg && !truly;
    }
}

/* ---- bytes per packet ---------------------------------------------------------------- */

static void packet_size(hs_analysis *a)
{
    const hs__run *r = a->r;
    double wire_full = (double)r->mtu + r->header;
    if (wire_full < r->min_packet)
        wire_full = r->min_packet;
    a->bytes_per_packet = wire_full;
    a->msg_packets = 1;
    if (a->app) {
        /* The application's bytes over ALL its packets, monitored or not
         * (packets_total = monitored / sample_p; the monitored ones alone
         * overstated a packet by 1 / sample_p: 11496 bytes at 30%, above
         * the MTU).  The packets include the rendezvous RTS/CTS, which
         * carry no application bytes. */
        uint64_t bytes = 0;
        double m = 0, pk = 0, pk2 = 0;
        for (uint32_t i = 0; i < a->app->nph; i++) {
            const hs__app_phase *ph = &a->app->ph[i];
            if (!ph->app || !ph->messages)
                continue;
            bytes += ph->bytes;
            /* data packets per message, at the phase's mean size */
            double n = ceil((double)ph->bytes / (double)ph->messages / r->mtu);
            if (n < 1)
                n = 1;
            m += (double)ph->messages;
            pk += (double)ph->messages * n;
            pk2 += (double)ph->messages * n * n;
        }
        if (a->packets_total > 0 && bytes) {
            double b = (double)bytes / a->packets_total + r->header;
            a->bytes_per_packet = b < r->min_packet ? r->min_packet : b > wire_full ? wire_full : b;
        }
        /* A message's RTS and CTS share its monitoring decision: the unit
         * sampled is the message with its control packets, so scale the
         * data packets per message by all packets over data packets. */
        if (pk > 0) {
            double extra = a->packets_total > pk ? a->packets_total / pk : 1;
            a->msg_packets = pk2 / pk * extra;
        }
    } else if (r->synthetic) {
        uint64_t s = r->msg_size;
        uint64_t np = s == 0 ? 1 : (s + r->mtu - 1) / r->mtu;
        double wire = 0;
        for (uint64_t i = 0; i < np; i++) {
            uint64_t pay = i + 1 < np ? r->mtu : s - (np - 1) * r->mtu;
            double w = (double)pay + r->header;
            wire += w < r->min_packet ? r->min_packet : w;
        }
        a->bytes_per_packet = wire / (double)np;
        a->msg_packets = (double)np;
    }
}

/* With exact paths, where the overflowed packets went: each one's path is
 * known from its source and destination, so a->lost[l] counts the
 * monitored packets missing from link l's estimates (scaled by 1 / p like
 * them), and lost_worst is the link missing the largest share. */
static int overflow_paths(hs_analysis *a, hs_error *err)
{
    const hs__run *r = a->r;
    hs__paths *p = a->paths;
    a->lost = calloc((size_t)r->L + 1, sizeof *a->lost);
    if (!a->lost)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < r->R; i++) {
        hs__rec rec;
        hs__rec_get(r, i, &rec);
        if ((rec.field & ((1u << r->scheme.c) - 1)) != r->scheme.hop_ovf)
            continue;
        hs__pentry *e;
        if (hs__an_paths_get(p, r->nd[rec.src].sw, hs__node_class(r, rec.dst), &e))
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        a->lost[r->nd[rec.src].inj] += 1 / a->sample_p;
        a->lost[r->nd[rec.dst].ej] += 1 / a->sample_p;
        for (uint32_t k = 0; k < e->n; k++)
            a->lost[p->pool[e->off + k]] += 1 / a->sample_p;
    }
    double worst = 0;
    for (uint32_t l = 1; l <= r->L; l++) {
        double have = a->est[l].traffic > 0 ? a->est[l].traffic : 0;
        double share = a->lost[l] > 0 ? a->lost[l] / (a->lost[l] + have) : 0;
        if (share > worst) {
            worst = share;
            a->lost_worst = l;
        }
    }
    return 0;
}

/* ---- what the estimates miss ------------------------------------------------------------ */

/* Sentences for every printed summary and analysis.json: packets lost to
 * the hop counter and sampling, so that no estimate passes for complete
 * when it is not. */
static void caveats(hs_analysis *a)
{
    const hs__run *r = a->r;
    size_t n = 0, cap = sizeof a->caveats;
    a->caveats[0] = 0;
    if (a->packets_overflowed) {
        double f = a->app_packets ? (double)a->packets_overflowed / (double)a->app_packets : 0;
        n += (size_t)snprintf(a->caveats + n, cap - n,
                              "WARNING: %llu of %llu monitored packets (%.1f%%) overflowed the "
                              "%u-bit hop counter (it holds %u links; ", 
                              (unsigned long long)a->packets_overflowed,
                              (unsigned long long)a->app_packets, 100 * f, r->scheme.c,
                              r->scheme.hop_max);
        if (n < cap && r->max_route_links)
            n += (size_t)snprintf(a->caveats + n, cap - n, "routes here have up to %u",
                                  r->max_route_links);
        else if (n < cap)
            n += (size_t)snprintf(a->caveats + n, cap - n, "some routes are longer");
        if (n < cap)
            n += (size_t)snprintf(a->caveats + n, cap - n,
                                  ") and are in no estimate: traffic and congested counts are "
                                  "low on every link the longest routes cross, and no traffic "
                                  "figure is exact.");
        if (n < cap && a->lost_worst) {
            char lb[160];
            uint32_t l = a->lost_worst;
            double have = a->est[l].traffic > 0 ? a->est[l].traffic : 0;
            n += (size_t)snprintf(a->caveats + n, cap - n, "  Worst: %s misses %.0f of "
                                  "its %.0f packets (%.0f%%; links[].overflowed has every "
                                  "link's count).", hs__an_link_desc(r, l, lb, sizeof lb),
                                  a->lost[l], a->lost[l] + have,
                                  100 * a->lost[l] / (a->lost[l] + have));
        }
        if (n < cap)
            n += (size_t)snprintf(a->caveats + n, cap - n,
                                  "  Simulate with a wider counter (--hop-bits %u, or leave "
                                  "the width to its default).",
                                  r->max_route_links ? hs_hop_bits_fit(r->max_route_links)
                                                     : r->scheme.c + 1);
    }
    if (n < cap && a->sample_p < 1)
        n += (size_t)snprintf(a->caveats + n, cap - n,
                              "%sSampled: each message carried the field with probability %.3g "
                              "(%llu packets monitored of about %.0f); every traffic and "
                              "congested estimate is divided by %.3g and its standard error "
                              "includes the sampling variance (%.3g packets per message).",
                              n ? " " : "", a->sample_p, (unsigned long long)a->app_packets,
                              a->packets_total, a->sample_p, a->msg_packets);
    if (n < cap && r->records_dropped && a->have_route)
        snprintf(a->caveats + n, cap - n, "%sThe records hold %llu of %llu monitored packets "
                 "(record cap): route-aware estimates cover the first ones only.", n ? " " : "",
                 (unsigned long long)r->R, (unsigned long long)(r->R + r->records_dropped));
}

/* ---- the whole analysis ---------------------------------------------------------------- */

void hs_an_free(hs_analysis *a)
{
    if (!a)
        return;
    free(a->command);
    free(a->phases_file);
    free(a->est_route);
    free(a->hop_sum);
    free(a->hop_n);
    free(a->est_blind);
    free(a->status);
    free(a->congested);
    free(a->is_root);
    free(a->verdict);
    free(a->pool_of);
    for (uint32_t i = 0; i < a->npools; i++)
        free(a->pools[i].links);
    free(a->pools);
    free(a->explained);
    free(a->load);
    free(a->load_busy);
    free(a->lw_packets);
    free(a->lw_load);
    free(a->quiet);
    free(a->t_packets);
    free(a->t_congested);
    free(a->t_all);
    free(a->t_busy);
    free(a->t_stall);
    for (uint32_t g = 0; g < a->ngroups; g++) {
        free(a->groups[g].name);
        free(a->groups[g].pidx);
        if (a->gviews) {
            free(a->gviews[g].lk);
            free(a->gviews[g].roots);
        }
    }
    free(a->groups);
    free(a->gviews);
    free(a->group_of_phase);
    for (uint32_t w = 0; w < a->nwviews; w++) {
        free(a->wviews[w].lk);
        free(a->wviews[w].roots);
    }
    free(a->wviews);
    if (a->paths) {
        hs__an_paths_free(a->paths);
        free(a->paths);
    }
    for (uint32_t i = 0; i < a->nroots; i++) {
        free(a->roots[i].links);
        free(a->roots[i].tree);
        free(a->roots[i].victims);
    }
    free(a->roots);
    for (uint32_t i = 0; i < a->nfindings; i++) {
        hs__finding *f = &a->findings[i];
        free(f->summary);
        free(f->roots);
        free(f->links);
        free(f->nodes);
        free(f->node_count);
        free(f->ranks);
        free(f->groups);
        free(f->group_count);
    }
    free(a->findings);
    free(a->suggested);
    free(a->lost);
    hs__an_phase_rules_free(&a->rules);
    hs__an_app_free(a->app);
    hs__an_run_close(a->r);
    free(a);
}

int hs_analyze_run(const char *run, const hs_analyze_params *prm, hs_analysis **out,
                   hs_error *err)
{
    *out = NULL;
    hs_analyze_params def;
    if (!prm) {
        hs_analyze_params_default(&def);
        prm = &def;
    }
    int rc = check_params(prm, err);
    if (rc)
        return rc;
    hs_analysis *a = calloc(1, sizeof *a);
    if (!a)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    a->p = *prm;
    a->p.phases_file = NULL;
    a->p.command = NULL;
    if ((prm->command && !(a->command = strdup(prm->command))) ||
        (prm->phases_file && !(a->phases_file = strdup(prm->phases_file)))) {
        free(a->command);
        free(a);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    uint64_t *per_phase = NULL;
    uint8_t *has_data = NULL, *is_app = NULL;
    HS__AN_PROGRESS(a, "reading the run directory", 0, 0);
    if ((rc = hs__an_run_open(run, &a->r, err)))
        goto fail;
    hs__run *r = a->r;
    if ((rc = hs__an_app_read(run, r->N, &a->app, err)))
        goto fail;
    /* a job alone: app.json names no background and every phase is the
     * application's; then no congestion can come from outside the job */
    a->alone = a->app && !a->app->have_background;
    for (uint32_t i = 0; a->alone && i < a->app->nph; i++)
        a->alone = a->app->ph[i].app;
    if (0)
        goto fail;
    if (prm->phases_file && (rc = hs__an_phase_rules_read(prm->phases_file, &a->rules, err)))
        goto fail;
    if (a->p.load_bin_ps == 0) {
        /* A packet is flagged after waiting two packet times; the traffic
         * that queued it passed within a few packet times of it: 8 full
         * packets of the run's link class (link 1, an injection link). */
        double cap = hs__an_link_capacity(r, 1);
        double ps = 8.0 * ((double)r->mtu + r->header) / cap * 1e12;
        a->p.load_bin_ps = ps < 1000 ? 1000 : (uint64_t)ps;
    }
    if (a->p.load_low < 0) {
        /* A congested packet waited at least tau, so at least tau's worth
         * of traffic was ahead of it: if the application's other packets
         * in its bin fill at most tau of it, its own traffic cannot have
         * queued it, and the load came from elsewhere ("dark and thin"). */
        double low = (double)r->lk[1].tau / (double)a->p.load_bin_ps;
        a->p.load_low = low < a->p.load_high ? low : a->p.load_high;
    }

    size_t nl = (size_t)r->L + 1;
    a->est_route = calloc(nl, sizeof *a->est_route);
    a->est_blind = calloc(nl, sizeof *a->est_blind);
    a->status = calloc(nl, 1);
    a->congested = calloc(nl, 1);
    a->is_root = calloc(nl, 1);
    a->verdict = calloc(nl, 1);
    a->pool_of = calloc(nl, sizeof *a->pool_of);
    a->explained = calloc(nl, 1);
    a->load = calloc(nl, sizeof *a->load);
    a->load_busy = calloc(nl, sizeof *a->load_busy);
    a->lw_packets = calloc(nl, sizeof *a->lw_packets);
    a->lw_load = calloc(nl, sizeof *a->lw_load);

    per_phase = calloc(r->nph ? r->nph : 1, sizeof *per_phase);
    has_data = calloc(r->nph ? r->nph : 1, 1);
    is_app = calloc(r->nph ? r->nph : 1, 1);
    if (!a->est_route || !a->est_blind || !a->status || !a->congested || !a->is_root || !a->explained ||
        !a->verdict || !a->pool_of ||
        !a->load || !a->load_busy || !a->lw_packets || !a->lw_load || !per_phase || !has_data ||
        !is_app) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for %u links", r->L);
        goto fail;
    }
    /* without records, the longest route bounds the hops from above (a
     * larger SE floor: conservative) */
    a->judge_hbar = r->max_route_links;
    if ((rc = check_records(a, per_phase, err)))
        goto fail;
    /* what the application sent: monitored packets, by phase */
    for (uint32_t i = 0; i < r->nph; i++)
        has_data[i] = per_phase[i] > 0;
    for (uint32_t i = 0; i < r->ncs; i++)
        if (r->cs[i].kind == 1) {
            const hs_totals *t = &r->cs[i].tot;
            if (t->packets + t->overflow + t->unmarked)
                has_data[hs__an_phase_index(r, (uint32_t)r->cs[i].id)] = 1;
        }
    if ((rc = build_groups(a, has_data, err)))
        goto fail;
    a->gviews = calloc(a->ngroups ? a->ngroups : 1, sizeof *a->gviews);
    if (!a->gviews) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < r->nph; i++) {
        const hs__app_phase *ap = app_phase(a->app, r->ph[i].id);
        is_app[i] = ap ? (uint8_t)ap->app : has_data[i];
    }

    /* counts of the application's packets and its duration */
    uint64_t counted = 0, recs = 0, ovf = 0;
    for (uint32_t i = 0; i < r->ncs; i++)
        if (r->cs[i].kind == 1) {
            counted += r->cs[i].tot.packets + r->cs[i].tot.overflow + r->cs[i].tot.unmarked;
            ovf += r->cs[i].tot.overflow;
        }
    for (uint32_t i = 0; i < r->nph; i++)
        recs += per_phase[i];
    a->app_packets = counted ? counted : recs;
    if (!counted) /* no counters: count the overflowed records */
        for (uint64_t i = 0; i < r->R; i++) {
            hs__rec rec;
            hs__rec_get(r, i, &rec);
            ovf += (rec.field & ((1u << r->scheme.c) - 1)) == r->scheme.hop_ovf;
        }
    a->packets_overflowed = ovf;
    if (r->have_run_monitored && r->run_monitored >= a->app_packets) {
        /* the fabric's own count covers records beyond the cap too */
        a->app_packets = r->run_monitored;
        a->packets_overflowed = r->run_overflowed;
    }
    a->sample_p = r->monitor_p > 0 ? r->monitor_p : 1.0;
    a->monitor = 1.0;
    a->packets_total = (double)a->app_packets / a->sample_p;
    a->duration_ps = a->app && a->app->have_time && a->app->total_ps ? (double)a->app->total_ps
                                                                      : (double)r->end_ps;
    packet_size(a);
    for (uint32_t g = 0; g < a->ngroups; g++) {
        a->gviews[g].kind = 1;
        a->gviews[g].group = g;
        a->gviews[g].duration_ps = a->duration_ps;
    }

    /* which decoders */
    a->have_blind = r->counters_present && r->ncs > 0;
    int nonmin = hs__an_nonminimal(r);
    int route_ok = r->R > 0 && (r->table_determined || nonmin);
    if (nonmin && r->R)
        snprintf(a->route_note, sizeof a->route_note, "adaptive dragonfly routing (%s): each "
                 "record's candidates are its minimal path and every detour through another "
                 "group (Valiant paths)", r->routing);
    else if (!r->table_determined)
        snprintf(a->route_note, sizeof a->route_note, "routing '%s' is not determined by the "
                 "forwarding tables (packets may leave minimal paths): blind decoding only",
                 r->routing);
    else if (!r->R)
        snprintf(a->route_note, sizeof a->route_note, "no sampled records in the run: blind "
                 "decoding only");
    else if (r->deterministic)
        snprintf(a->route_note, sizeof a->route_note, "deterministic routing (%s): each record's "
                 "candidates are its path, traffic is %s", r->routing,
                 a->packets_overflowed || a->sample_p < 1 || r->records_dropped
                     ? "counted exactly for the packets decoded (see below for what they miss)"
                     : "exact");
    else
        snprintf(a->route_note, sizeof a->route_note, "adaptive routing (%s): each record's "
                 "candidates are every link its packet could have taken", r->routing);
    if (prm->decoder == HS_AN_DECODER_ROUTE && !route_ok) {
        rc = hs_error_set(err, HS_ENOTSUP, "%s: route-aware decoding impossible: %s", run,
                          a->route_note);
        goto fail;
    }
    if (prm->decoder == HS_AN_DECODER_BLIND && !a->have_blind) {
        rc = hs_error_set(err, HS_ENOTSUP, "%s: no NIC counters in the run (k > %d or none "
                          "delivered): blind decoding impossible", run, HS_COUNTERS_KMAX);
        goto fail;
    }
    if (!route_ok && !a->have_blind) {
        rc = hs_error_set(err, HS_ENOTSUP, "%s: neither counters nor usable records: nothing "
                          "to decode (%s)", run, a->route_note);
        goto fail;
    }
    a->have_route = route_ok && prm->decoder != HS_AN_DECODER_BLIND;
    a->decoder = a->have_route ? HS__DEC_ROUTE : HS__DEC_BLIND;
    a->paths_exact = a->have_route && r->deterministic;
    a->traffic_exact = a->paths_exact && !a->packets_overflowed && a->sample_p >= 1 &&
                       !r->records_dropped;
    if (r->records_dropped && a->have_route) {
        size_t k = strlen(a->route_note);
        snprintf(a->route_note + k, sizeof a->route_note - k, "; the records cover %llu of "
                 "%llu monitored packets (the rest were beyond the record cap)",
                 (unsigned long long)r->R, (unsigned long long)(r->R + r->records_dropped));
    }

    if (a->decoder == HS__DEC_ROUTE && r->records_dropped) {
        /* loads from the records' share of what was delivered */
        a->monitor *= (double)r->R / (double)(r->R + r->records_dropped);
    }
    if (a->have_route && (rc = run_route(a, per_phase, err)))
        goto fail;
    if (a->have_route && (rc = record_loads(a, err)))
        goto fail;
    if (a->have_blind)
        HS__AN_PROGRESS(a, "decoding the NIC counters", 0, 0);
    if (a->have_blind && (rc = run_blind(a, err)))
        goto fail;
    a->est = a->decoder == HS__DEC_ROUTE ? a->est_route : a->est_blind;
    if (a->paths_exact && a->packets_overflowed && (rc = overflow_paths(a, err)))
        goto fail;
    caveats(a);

    /* the whole run: status, congestion, load; the windows' loads were
     * gathered by the decoders */
    if (a->decoder == HS__DEC_ROUTE && a->paths && (rc = hop_sums(a))) {
        rc = hs_error_set(err, rc, "out of memory");
        goto fail;
    }
    for (uint32_t l = 1; l <= r->L; l++) {
        classify_h(a, &a->est[l], hs__an_hbar(a, l), &a->status[l], &a->congested[l],
                   &a->verdict[l]);
        a->load[l] = load_share(a, l, a->est[l].traffic, a->duration_ps);
        a->load_busy[l] = a->lw_packets[l] > 0 ? a->lw_load[l] / a->lw_packets[l] : 0;
        if (a->load[l] > a->load_busy[l])
            a->load_busy[l] = a->load[l];
    }
    HS__AN_PROGRESS(a, "judging links", 0, 0);
    if ((rc = hs__an_judge(a))) {
        rc = hs_error_set(err, rc, "out of memory pooling links");
        goto fail;
    }
    if (r->have_truth)
        HS__AN_PROGRESS(a, "ground truth", 0, 0);
    if (r->have_truth && (rc = load_truth(a, is_app, err)))
        goto fail;

    HS__AN_PROGRESS(a, "congestion trees", 0, 0);
    if ((rc = hs__an_trees(a, NULL))) {
        rc = hs_error_set(err, rc, "congestion trees: %s", hs_strerror(rc));
        goto fail;
    }
    HS__AN_PROGRESS(a, "congestion trees per phase and window", 0, 0);
    for (uint32_t g = 0; g < a->ngroups; g++)
        if ((rc = hs__an_trees(a, &a->gviews[g]))) {
            rc = hs_error_set(err, rc, "congestion trees: %s", hs_strerror(rc));
            goto fail;
        }
    for (uint32_t w = 0; w < a->nwviews; w++)
        if ((rc = hs__an_trees(a, &a->wviews[w]))) {
            rc = hs_error_set(err, rc, "congestion trees: %s", hs_strerror(rc));
            goto fail;
        }
    HS__AN_PROGRESS(a, "diagnosis", 0, 0);
    if ((rc = hs__an_diagnose(a, err)))
        goto fail;
    if (r->have_truth) {
        if (a->have_route)
            accuracy(a, &a->acc[a->nacc++], a->est_route, HS__DEC_ROUTE);
        if (a->have_blind)
            accuracy(a, &a->acc[a->nacc++], a->est_blind, HS__DEC_BLIND);
    }
    free(per_phase);
    free(has_data);
    free(is_app);
    *out = a;
    return 0;
fail:
    free(per_phase);
    free(has_data);
    free(is_app);
    hs_an_free(a);
    return rc;
}

/* ---- accessors ------------------------------------------------------------------------ */

const char *hs_an_kind_name(hs_an_kind k)
{
    switch (k) {
    case HS_AN_PATTERN: return "pattern";
    case HS_AN_MAPPING: return "mapping";
    case HS_AN_INTERFERENCE: return "interference";
    case HS_AN_UNDECIDED: return "undecided";
    default: return "none";
    }
}

void hs_an_get_summary(const hs_analysis *a, hs_an_summary *s)
{
    memset(s, 0, sizeof *s);
    const hs__run *r = a->r;
    s->decoder = a->decoder == HS__DEC_ROUTE ? "route-aware" : "blind";
    s->links = r->L;
    s->max_cf = -1;
    for (uint32_t l = 1; l <= r->L; l++) {
        /* congested by the link's own estimate or its role pool's */
        s->links_congested += a->congested[l];
        s->app_congested += a->congested[l] ? a->est[l].congested : 0;
        if (a->status[l] != HS__ST_OK)
            continue;
        s->links_ok++;
        if (a->est[l].cf > s->max_cf) {
            s->max_cf = a->est[l].cf;
            s->max_cf_se = a->est[l].cf_se;
            s->max_cf_link = l;
        }
    }
    if (s->max_cf < 0)
        s->max_cf = 0;
    uint32_t nr = 0;
    for (uint32_t i = 0; i < a->nroots; i++)
        nr += a->roots[i].victim_of < 0;
    s->roots = nr;
    s->findings = a->nfindings;
    s->top = a->nfindings ? a->findings[0].kind : HS_AN_NONE;
    s->end_ps = r->end_ps;
    s->packets_monitored = a->app_packets;
    s->packets_overflowed = a->packets_overflowed;
    s->monitor_p = a->sample_p;
    s->traffic_exact = a->traffic_exact;
    s->caveats = a->caveats;
    if (a->app && a->app->have_time) {
        s->have_time = 1;
        s->time_ps = a->app->total_ps;
    }
    if (a->app && a->app->have_latency) {
        s->have_latency = 1;
        s->lat_p50_ps = a->app->lat_p50;
        s->lat_p99_ps = a->app->lat_p99;
    }
}

size_t hs_an_nfindings(const hs_analysis *a) { return a->nfindings; }

hs_an_kind hs_an_finding_kind(const hs_analysis *a, size_t i)
{
    return i < a->nfindings ? a->findings[i].kind : HS_AN_NONE;
}

const char *hs_an_finding_summary(const hs_analysis *a, size_t i)
{
    return i < a->nfindings ? a->findings[i].summary : NULL;
}

size_t hs_an_finding_links(const hs_analysis *a, size_t i, uint32_t *out, size_t max)
{
    if (i >= a->nfindings)
        return 0;
    const hs__finding *f = &a->findings[i];
    for (size_t k = 0; k < f->nlinks && k < max; k++)
        out[k] = f->links[k];
    return f->nlinks;
}

size_t hs_an_finding_nodes(const hs_analysis *a, size_t i, uint32_t *out, size_t max)
{
    if (i >= a->nfindings)
        return 0;
    const hs__finding *f = &a->findings[i];
    for (size_t k = 0; k < f->nnodes && k < max; k++)
        out[k] = f->nodes[k];
    return f->nnodes;
}

int hs_an_link_get(const hs_analysis *a, uint32_t link, hs_an_link *o)
{
    if (link == 0 || link > a->r->L)
        return HS_EINVAL;
    const hs_estimate *e = &a->est[link];
    o->traffic = e->traffic;
    o->traffic_se = e->traffic_se;
    o->congested = e->congested;
    o->congested_se = e->congested_se;
    o->cf = e->cf;
    o->cf_se = e->cf_se;
    o->load = a->load[link];
    o->load_busy = a->load_busy[link];
    o->status = a->status[link];
    o->is_congested = a->congested[link];
    o->is_root = a->is_root[link];
    return 0;
}

const uint32_t *hs_an_mapping(const hs_analysis *a, uint32_t *nranks)
{
    if (!a->app || !a->app->node_of_rank) {
        *nranks = 0;
        return NULL;
    }
    *nranks = a->app->ranks;
    return a->app->node_of_rank;
}
