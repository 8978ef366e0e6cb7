/* Results of a parallel run's parts, packed by each process and merged into
 * part 0's fabric, which then writes the run directory as if it had run
 * everything (docs/fabric.md, "Parallel runs").
 *
 * Everything a run directory holds is a sum over devices or over
 * deliveries: a link's ground truth is kept by its transmitter's part only;
 * counters (per phase and per window) are added; statistics add (queue
 * maxima take the maximum); the end time and the phases' last deliveries
 * take the maximum; records are put back in the sequential run's order,
 * (delivery time, event key), and cut to the cap as the sequential run
 * would have.  Windows: a part that saw less of the run may have kept
 * narrower windows; they are merged into the wider ones (exact, sums). */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC 0x52504853u   /* "HSPR" */

typedef struct pk {
    unsigned char *b;
    size_t n, cap;
    int err;
    int dry;      /* only count the bytes (the first pass sizes the buffer) */
} pk;

static void put(pk *w, const void *x, size_t n)
{
    if (w->err || n == 0)   /* nothing (x may be NULL: a part without records) */
        return;
    if (w->dry) {
        w->n += n;
        return;
    }
    if (w->n + n > w->cap) {
        size_t nc = w->cap ? w->cap : 65536;
        while (nc < w->n + n)
            nc *= 2;
        unsigned char *b = realloc(w->b, nc);
        if (!b) {
            w->err = HS_ENOMEM;
            return;
        }
        w->b = b;
        w->cap = nc;
    }
    memcpy(w->b + w->n, x, n);
    w->n += n;
}
static void put64(pk *w, uint64_t v) { put(w, &v, sizeof v); }

typedef struct rd {
    const unsigned char *b, *end;
    int err;
} rd;

static const void *get(rd *r, size_t n)
{
    if (r->err || (size_t)(r->end - r->b) < n) {
        r->err = HS_EFORMAT;
        return NULL;
    }
    const void *x = r->b;
    r->b += n;
    return x;
}
static uint64_t get64(rd *r)
{
    const void *x = get(r, 8);
    uint64_t v = 0;
    if (x)
        memcpy(&v, x, 8);
    return v;
}

static void put_counters(pk *w, const hs_counters *c)
{
    put64(w, c && c->n ? 1 : 0);
    if (!c || !c->n)
        return;
    put64(w, c->t2 != NULL);
    put64(w, c->packets);
    put64(w, c->flagged);
    put64(w, c->overflow);
    put64(w, c->unmarked);
    put64(w, (uint64_t)c->sum_h2);
    put64(w, (uint64_t)c->sum_h2_flag);
    size_t len = (size_t)c->b * c->n;
    put(w, c->t, len * sizeof *c->t);
    put(w, c->c, len * sizeof *c->c);
    if (c->t2) {
        put(w, c->t2, len * sizeof *c->t2);
        put(w, c->c2, len * sizeof *c->c2);
    }
}

/* Adds packed counters to *dst (initialised with the scheme if empty). */
static int add_counters(hs_fabric *F, rd *r, hs_counters *dst)
{
    if (!get64(r))
        return r->err;
    uint64_t second = get64(r);
    hs_counters x;
    memset(&x, 0, sizeof x);
    int rc = hs_counters_init(&x, &F->scheme, NULL);
    if (rc)
        return rc;
    if ((x.t2 != NULL) != (second != 0)) {
        hs_counters_free(&x);
        return HS_EFORMAT;
    }
    x.packets = get64(r);
    x.flagged = get64(r);
    x.overflow = get64(r);
    x.unmarked = get64(r);
    x.sum_h2 = (int64_t)get64(r);
    x.sum_h2_flag = (int64_t)get64(r);
    size_t len = (size_t)x.b * x.n;
    int64_t *a[4] = { x.t, x.c, x.t2, x.c2 };
    for (int i = 0; i < (x.t2 ? 4 : 2); i++) {
        const void *s = get(r, len * sizeof(int64_t));
        if (s)
            memcpy(a[i], s, len * sizeof(int64_t));
    }
    if (r->err) {
        hs_counters_free(&x);
        return r->err;
    }
    if (!dst->n && (rc = hs_counters_init(dst, &F->scheme, NULL))) {
        hs_counters_free(&x);
        return rc;
    }
    rc = hs_counters_add(dst, &x);
    hs_counters_free(&x);
    return rc;
}

static void pack(hs_fabric *F, pk *w);

int hs_fabric_results_pack(hs_fabric *F, void **buf, size_t *len)
{
    hs__truth_flush(F);    /* the links' accumulated truth into the blocks */
    /* sized first, so that the buffer (the largest thing a part holds at
     * the end of a run) has no slack */
    pk d = { 0 };
    d.dry = 1;
    pack(F, &d);
    pk w = { 0 };
    w.b = malloc(d.n ? d.n : 1);
    if (!w.b)
        return HS_ENOMEM;
    w.cap = d.n ? d.n : 1;
    pack(F, &w);
    if (w.err) {
        free(w.b);
        return w.err;
    }
    *buf = w.b;
    *len = w.n;
    return 0;
}

static int truth_zero(const hs__truth *x)
{
    return !(x->packets | x->bytes | x->busy | x->stall | x->congested);
}

/* A ground-truth array of n links: its runs of non-zero entries (a part
 * has truth on its own links only), as a count, then (first, length,
 * entries) per run; adding them is adding the whole array. */
static void put_truth(pk *w, const hs__truth *t, uint32_t n)
{
    uint64_t runs = 0;
    for (uint32_t l = 0; l < n; l++)
        if (!truth_zero(&t[l]) && (l == 0 || truth_zero(&t[l - 1])))
            runs++;
    put64(w, runs);
    for (uint32_t l = 0; l < n;) {
        if (truth_zero(&t[l])) {
            l++;
            continue;
        }
        uint32_t e = l;
        while (e < n && !truth_zero(&t[e]))
            e++;
        put64(w, l);
        put64(w, e - l);
        put(w, &t[l], (size_t)(e - l) * sizeof *t);
        l = e;
    }
}

static void pack(hs_fabric *F, pk *wp)
{
    pk w = *wp;
    put64(&w, PACK_MAGIC);
    put64(&w, F->L);
    put64(&w, F->nphase);
    put64(&w, F->prm.window);
    put64(&w, F->nwin);
    put64(&w, F->nctwin);
    put64(&w, F->now);
    put(&w, &F->st, sizeof F->st);
    put64(&w, F->nrec);
    put64(&w, F->rec_dropped);
    for (unsigned i = 0; i < F->nphase; i++) {
        put64(&w, F->phase_ids[i]);
        put64(&w, F->ph_last[i]);
        put_truth(&w, F->truth_ph[i], F->L + 1);
        put_counters(&w, F->counters_ok ? &F->ct_ph[i] : NULL);
    }
    for (size_t i = 0; i < F->nwin; i++) {
        put64(&w, F->truth_win[i] != NULL);
        if (F->truth_win[i])
            put_truth(&w, F->truth_win[i], F->L + 1);
    }
    for (size_t i = 0; i < F->nctwin; i++)
        put_counters(&w, F->ct_win[i]);
    put(&w, F->rec, F->nrec * sizeof *F->rec);
    *wp = w;
}

static void truth_add(hs__truth *a, const hs__truth *b, uint32_t n)
{
    for (uint32_t l = 0; l < n; l++) {
        a[l].packets += b[l].packets;
        a[l].bytes += b[l].bytes;
        a[l].busy += b[l].busy;
        a[l].stall += b[l].stall;
        a[l].congested += b[l].congested;
    }
}

/* Adds a packed ground-truth array (put_truth) into a[0..n). */
static int get_truth(rd *r, hs__truth *a, uint32_t n)
{
    uint64_t runs = get64(r);
    for (uint64_t i = 0; i < runs && !r->err; i++) {
        uint64_t first = get64(r), len = get64(r);
        if (r->err || first > n || len > n - first)
            return HS_EFORMAT;
        const hs__truth *x = get(r, (size_t)len * sizeof *x);
        if (!x)
            return HS_EFORMAT;
        if (a)
            truth_add(a + first, x, (uint32_t)len);
    }
    return r->err;
}

static hs_counters *ctwin_at(hs_fabric *F, size_t w)
{
    if (w >= F->nctwin) {
        size_t nc = F->nctwin ? F->nctwin : 16;
        while (nc <= w)
            nc *= 2;
        hs_counters **n = realloc(F->ct_win, nc * sizeof *n);
        if (!n)
            return NULL;
        memset(n + F->nctwin, 0, (nc - F->nctwin) * sizeof *n);
        F->ct_win = n;
        F->nctwin = nc;
    }
    if (!F->ct_win[w])
        F->ct_win[w] = calloc(1, sizeof **F->ct_win);
    return F->ct_win[w];
}

static int rec_cmp(const void *a, const void *b);

static int rec_sorted(const hs__record *x, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (rec_cmp(&x[i - 1], &x[i]) > 0)
            return 0;
    return 1;
}

/* Merges a part's records into F's: both are in (delivery time, key)
 * order (a part appends them as its deliveries run), so one pass merges
 * them, keeping the first --records-cap (the rest could never come back
 * into the first cap); the rest are counted as dropped.  Out of order
 * input (not produced by this program) is appended and sorted by
 * hs_fabric_results_finish. */
static int merge_records(hs_fabric *F, const hs__record *b, size_t nb)
{
    const hs__record *a = F->rec;
    size_t na = F->nrec, cap = F->prm.records_cap;
    size_t n = na + nb;
    int sorted = rec_sorted(a, na) && rec_sorted(b, nb);
    size_t keep = sorted && n > cap ? cap : n;
    hs__record *m = malloc((keep ? keep : 1) * sizeof *m);
    if (!m)
        return HS_ENOMEM;
    if (sorted) {
        size_t i = 0, j = 0;
        for (size_t k = 0; k < keep; k++)
            m[k] = j >= nb || (i < na && rec_cmp(&a[i], &b[j]) <= 0) ? a[i++] : b[j++];
        F->rec_dropped += n - keep;
    } else {
        if (na)   /* a part without records has none (NULL) */
            memcpy(m, a, na * sizeof *m);
        if (nb)
            memcpy(m + na, b, nb * sizeof *m);
    }
    free(F->rec);
    F->rec = m;
    F->nrec = keep;
    F->caprec = keep ? keep : 1;
    return 0;
}

int hs_fabric_results_merge(hs_fabric *F, const void *buf, size_t len)
{
    rd r = { buf, (const unsigned char *)buf + len, 0 };
    if (get64(&r) != PACK_MAGIC || get64(&r) != F->L)
        return HS_EFORMAT;
    uint64_t nphase = get64(&r), width = get64(&r), nwin = get64(&r), nctwin = get64(&r);
    hs_time now = get64(&r);
    hs_fabric_stats st;
    const void *x = get(&r, sizeof st);
    if (!x || width == 0 || nphase > 65536)
        return HS_EFORMAT;
    memcpy(&st, x, sizeof st);
    uint64_t nrec = get64(&r), dropped = get64(&r);
    if (r.err)
        return r.err;
    /* the wider windows win; the narrower are merged into them */
    while (F->prm.window < width && F->prm.window <= UINT64_MAX / 2)
        hs__truth_coarsen(F);
    if (F->prm.window % width || (F->prm.window / width & (F->prm.window / width - 1)))
        return HS_EFORMAT;
    uint64_t factor = F->prm.window / width;
    F->twin_blk = NULL;
    F->twin_lo = F->twin_hi = 0;
    F->cwin_ct = NULL;
    F->cwin_lo = F->cwin_hi = 0;

    int rc = 0;
    for (uint64_t i = 0; i < nphase && !rc; i++) {
        uint64_t id = get64(&r);
        hs_time last = get64(&r);
        if (r.err || id > 0xffff)
            return HS_EFORMAT;
        uint16_t p = hs__phase_index(F, (uint16_t)id);
        if (p == 0xffff)
            return HS_ENOMEM;
        if ((rc = get_truth(&r, F->truth_ph[p], F->L + 1)))
            return rc;
        if (last != HS_TIME_NEVER && (F->ph_last[p] == HS_TIME_NEVER || last > F->ph_last[p]))
            F->ph_last[p] = last;
        rc = add_counters(F, &r, &F->ct_ph[p]);
    }
    for (uint64_t i = 0; i < nwin && !rc; i++) {
        if (!get64(&r))
            continue;
        hs__truth *d = hs__truth_window(F, (size_t)(i / factor));
        if (!d)
            return HS_ENOMEM;
        if ((rc = get_truth(&r, d, F->L + 1)))
            return rc;
    }
    for (uint64_t i = 0; i < nctwin && !rc; i++) {
        /* peek: an absent set is one word */
        if (r.b + 8 <= r.end) {
            uint64_t present;
            memcpy(&present, r.b, 8);
            if (!present) {
                r.b += 8;
                continue;
            }
        }
        hs_counters *c = ctwin_at(F, (size_t)(i / factor));
        if (!c)
            return HS_ENOMEM;
        rc = add_counters(F, &r, c);
    }
    if (rc)
        return rc;
    if (nrec) {
        const hs__record *recs = get(&r, nrec * sizeof *recs);
        if (!recs)
            return HS_EFORMAT;
        if ((rc = merge_records(F, recs, nrec)))
            return rc;
    }
    if (r.err || r.b != r.end)
        return HS_EFORMAT;
    F->rec_dropped += dropped;
    if (now > F->now)
        F->now = now;
    F->st.events += st.events;
    F->st.hops += st.hops;
    F->st.packets_injected += st.packets_injected;
    F->st.packets_delivered += st.packets_delivered;
    F->st.bytes_delivered += st.bytes_delivered;
    F->st.messages_posted += st.messages_posted;
    F->st.messages_delivered += st.messages_delivered;
    F->st.packets_monitored += st.packets_monitored;
    F->st.packets_overflowed += st.packets_overflowed;
    F->st.nonminimal += st.nonminimal;
    if (st.max_injection_queue > F->st.max_injection_queue)
        F->st.max_injection_queue = st.max_injection_queue;
    return 0;
}

static int rec_cmp(const void *a, const void *b)
{
    const hs__record *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

int hs_fabric_results_finish(hs_fabric *F)
{
    if (!rec_sorted(F->rec, F->nrec))
        qsort(F->rec, F->nrec, sizeof *F->rec, rec_cmp);
    if (F->nrec > F->prm.records_cap) {
        F->rec_dropped += F->nrec - F->prm.records_cap;
        F->nrec = F->prm.records_cap;
    }
    return 0;
}

static int gather_results(hs_fabric *F, const hs_fabric_transport *tr);

int hs_fabric_gather_results(hs_fabric *F, const hs_fabric_transport *tr)
{
    uint64_t c0 = hs__pdes_clock(1), w0 = hs__pdes_clock(0);
    int rc = gather_results(F, tr);
    hs_fabric_par_stats *ps = hs__pdes_stats(F);
    if (ps) {
        ps->gather_cpu_ns += hs__pdes_clock(1) - c0;
        ps->gather_wall_ns += hs__pdes_clock(0) - w0;
    }
    return rc;
}

static int gather_results(hs_fabric *F, const hs_fabric_transport *tr)
{
    /* A binomial tree: in the round of step k (1, 2, 4, ...), part p with
     * p mod 2k = k sends everything it holds (its own results and those it
     * merged in earlier rounds) to part p - k, which merges it: results
     * are sums, maxima and a sorted merge, so the order of merging does
     * not matter, and phases are still met in part order (0, then 1, then
     * 2 with 3, then 4 with 5..7, ...).  ceil(log2 P) rounds, in which
     * part 0 merges log2 P packs; a part frees its records once packed.  A
     * part that failed, or that received nothing from a failed child,
     * sends nothing: part 0 then fails.  Every process goes through every
     * round. */
    unsigned np = hs_fabric_nparts(F), me = hs_fabric_part(F);
    const void **out = calloc(np, sizeof *out);
    size_t *ol = calloc(np, sizeof *ol);
    int rc = out && ol ? 0 : HS_ENOMEM, failed = 0, sent = 0;
    for (unsigned k = 1; k < np; k *= 2) {
        void *mine = NULL;
        size_t n = 0;
        int sender = !sent && me % (2 * k) == k;
        if (sender) {
            /* a failed part sends nothing (a pack is never empty) */
            if (!rc && !failed)
                rc = hs_fabric_results_pack(F, &mine, &n);
            if (!rc && !failed) {
                free(F->rec);
                F->rec = NULL;
                F->nrec = F->caprec = 0;
            }
            sent = 1;
        }
        if (out && ol) {
            memset(ol, 0, np * sizeof *ol);
            if (sender && mine) {
                out[me - k] = mine;
                ol[me - k] = n;
            }
        }
        const void *in = NULL;
        size_t inlen = 0;
        int trc = out && ol ? tr->exchange(tr->ctx, out, ol, &in, &inlen) : HS_ENOMEM;
        free(mine);
        if (trc) {
            rc = rc ? rc : trc;
            break;   /* the transport itself failed: no more rounds */
        }
        if (sent || me % (2 * k) != 0 || me + k >= np || rc)
            continue;   /* not a receiver this round */
        if (inlen == 0)
            failed = 1;   /* part me + k (or its subtree) failed */
        else if (!failed)
            rc = hs_fabric_results_merge(F, in, inlen);
    }
    free(out);
    free(ol);
    if (rc)
        return rc;
    if (me != 0)
        return 0;
    if (failed)
        return HS_ECHILD;
    return hs_fabric_results_finish(F);
}
