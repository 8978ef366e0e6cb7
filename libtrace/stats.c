/* Whole-job summaries of a trace: totals per rank and job, traffic per pair,
 * per tag and per kind (hs_trace_stats_*), and the consistency check
 * (hs_trace_check).  Both read every rank once through cursors, so memory is
 * the size of the summaries, not of the trace.
 *
 * Message accounting rule (shared by stats and check): a point-to-point
 * message is counted at its sender when started (blocking and nonblocking
 * sends, the send half of sendrecv, each START of a persistent send) and at
 * its receiver when matched (RECV, the receive half of sendrecv, MRECV,
 * completion of a receive-type request).  MPI_PROC_NULL is not a peer. */
#include "format.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small hash map: 3-word keys -> dense value index ------------------ */

typedef struct hkey {
    uint64_t a, b, c;
} hkey;

typedef struct hmap {
    hkey    *keys;
    uint32_t *slot;    /* 0 = empty, else value index + 1 */
    size_t   cap;      /* power of two */
    size_t   n;
} hmap;

static uint64_t hkey_hash(const hkey *k)
{
    return hs__mix64(k->a ^ hs__mix64(k->b ^ hs__mix64(k->c)));
}

/* Index of key (inserting it as n if new; *isnew set), or -1 on ENOMEM. */
static int64_t hmap_get(hmap *m, hkey k, int *isnew)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        uint32_t *ns = calloc(nc, sizeof *ns);
        hkey *nk = realloc(m->keys, nc / 2 * sizeof *nk);
        if (!ns || !nk) {
            free(ns);
            if (nk)
                m->keys = nk;
            return -1;
        }
        m->keys = nk;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->slot[i])
                continue;
            size_t j = hkey_hash(&m->keys[m->slot[i] - 1]) & (nc - 1);
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = m->slot[i];
        }
        free(m->slot);
        m->slot = ns;
        m->cap = nc;
    }
    size_t j = hkey_hash(&k) & (m->cap - 1);
    while (m->slot[j]) {
        const hkey *o = &m->keys[m->slot[j] - 1];
        if (o->a == k.a && o->b == k.b && o->c == k.c) {
            if (isnew)
                *isnew = 0;
            return m->slot[j] - 1;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[m->n] = k;
    m->slot[j] = (uint32_t)(m->n + 1);
    if (isnew)
        *isnew = 1;
    return (int64_t)m->n++;
}

static void hmap_free(hmap *m)
{
    free(m->keys);
    free(m->slot);
    memset(m, 0, sizeof *m);
}

/* Index of key, or -1 when absent. */
static int64_t hmap_find(const hmap *m, hkey k)
{
    if (!m->cap)
        return -1;
    size_t j = hkey_hash(&k) & (m->cap - 1);
    while (m->slot[j]) {
        const hkey *o = &m->keys[m->slot[j] - 1];
        if (o->a == k.a && o->b == k.b && o->c == k.c)
            return m->slot[j] - 1;
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

/* Grows a value array to hold index i (zero-filled). */
static int vgrow(void **arr, size_t *cap, size_t i, size_t elem)
{
    if (i < *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc <= i)
        nc *= 2;
    void *n = realloc(*arr, nc * elem);
    if (!n)
        return -1;
    memset((char *)n + *cap * elem, 0, (nc - *cap) * elem);
    *arr = n;
    *cap = nc;
    return 0;
}

/* ---- message extraction shared by stats and check ------------------------ */

/* Persistent requests of one rank: req -> the *_INIT event's message. */
typedef struct pinit {
    uint16_t kind;
    int32_t  peer, tag;
    uint64_t comm, bytes;
} pinit;

typedef struct rankscan {
    hmap pmap;
    pinit *pv;
    size_t pcap;
} rankscan;

static int is_send_kind(int k)
{
    return (k >= HS_TRACE_SEND && k <= HS_TRACE_IRSEND) || k == HS_TRACE_SENDRECV ||
           k == HS_TRACE_SENDRECV_REPLACE || k == HS_TRACE_ISENDRECV ||
           k == HS_TRACE_ISENDRECV_REPLACE;
}

typedef struct msg {
    int      dir;        /* 0 = sent, 1 = received */
    uint64_t comm;
    int32_t  src, dst, tag;
    uint64_t bytes;
    int      monitored;
    int      compl_idx;  /* >= 0: from ev->compl[i]; comm unknown (UINT64_MAX) */
} msg;

/* Calls fn for every message an event sends or receives. */
static int event_messages(rankscan *rs, uint32_t rank, const hs_trace_event *ev,
                          int (*fn)(void *, const msg *), void *arg)
{
    int k = ev->kind, rc;
    msg m;
    if (is_send_kind(k) && ev->peer >= 0) {
        m = (msg){ 0, ev->comm, (int32_t)rank, ev->peer, ev->tag, ev->bytes,
                   !!(ev->flags & HS_TRACE_F_MONITORED), -1 };
        if ((rc = fn(arg, &m)))
            return rc;
    }
    if ((k == HS_TRACE_SENDRECV || k == HS_TRACE_SENDRECV_REPLACE) && ev->peer2 >= 0) {
        m = (msg){ 1, ev->comm, ev->peer2, (int32_t)rank, ev->tag2, ev->bytes2, 0, -1 };
        if ((rc = fn(arg, &m)))
            return rc;
    }
    if ((k == HS_TRACE_RECV || k == HS_TRACE_MRECV) && ev->peer >= 0 &&
        !(ev->flags & HS_TRACE_F_CANCELLED)) {
        m = (msg){ 1, ev->comm, ev->peer, (int32_t)rank, ev->tag, ev->bytes, 0, -1 };
        if ((rc = fn(arg, &m)))
            return rc;
    }
    if (k >= HS_TRACE_SEND_INIT && k <= HS_TRACE_RSEND_INIT && ev->req) {
        int isnew;
        int64_t i = hmap_get(&rs->pmap, (hkey){ ev->req, 0, 0 }, &isnew);
        if (i < 0 || vgrow((void **)&rs->pv, &rs->pcap, (size_t)i, sizeof *rs->pv))
            return HS_ENOMEM;
        rs->pv[i] = (pinit){ (uint16_t)k, ev->peer, ev->tag, ev->comm, ev->bytes };
    }
    if (k == HS_TRACE_START || k == HS_TRACE_STARTALL) {
        for (uint32_t i = 0; i < ev->nstarts; i++) {
            int64_t j = hmap_find(&rs->pmap, (hkey){ ev->starts[i].req, 0, 0 });
            if (j < 0 || rs->pv[j].peer < 0)
                continue;   /* a persistent receive, or a request we never saw created */
            const pinit *p = &rs->pv[j];
            m = (msg){ 0, p->comm, (int32_t)rank, p->peer, p->tag, p->bytes,
                       !!(ev->starts[i].flags & HS_TRACE_F_MONITORED), -1 };
            if ((rc = fn(arg, &m)))
                return rc;
        }
    }
    if (hs_trace_kind_class(k) == HS_TRACE_CLASS_COMPLETION) {
        for (uint32_t i = 0; i < ev->ncompl; i++) {
            const hs_trace_compl *c = &ev->compl[i];
            if (!(c->flags & HS_TRACE_C_STATUS) || (c->flags & HS_TRACE_C_CANCELLED) ||
                c->src < 0)
                continue;
            /* The communicator of a request is on its starting event: the
             * caller resolves it from compl_idx when it needs it. */
            m = (msg){ 1, UINT64_MAX, c->src, (int32_t)rank, c->tag, c->bytes, 0, (int)i };
            if ((rc = fn(arg, &m)))
                return rc;
        }
    }
    return 0;
}

static void rankscan_free(rankscan *rs)
{
    hmap_free(&rs->pmap);
    free(rs->pv);
    memset(rs, 0, sizeof *rs);
}

/* ---- stats --------------------------------------------------------------- */

typedef struct sctx {
    hs_trace_stats *s;
    hs_trace_rankstat *rs;
    hmap pairs, tags;
    size_t pcap, tcap;
} sctx;

static int stats_msg(void *arg, const msg *m)
{
    sctx *x = arg;
    if (m->dir == 1) {
        x->rs->recv_messages++;
        x->rs->recv_bytes += m->bytes;
        return 0;
    }
    x->rs->sent_messages++;
    x->rs->sent_bytes += m->bytes;
    x->rs->monitored += (uint64_t)m->monitored;
    int isnew;
    int64_t i = hmap_get(&x->pairs, (hkey){ (uint64_t)m->src, (uint64_t)m->dst, 0 }, &isnew);
    if (i < 0 || vgrow((void **)&x->s->pairs, &x->pcap, (size_t)i, sizeof *x->s->pairs))
        return HS_ENOMEM;
    hs_trace_pair *p = &x->s->pairs[i];
    p->src = (uint32_t)m->src;
    p->dst = (uint32_t)m->dst;
    p->messages++;
    p->bytes += m->bytes;
    i = hmap_get(&x->tags, (hkey){ (uint64_t)(uint32_t)m->tag, 0, 0 }, &isnew);
    if (i < 0 || vgrow((void **)&x->s->tags, &x->tcap, (size_t)i, sizeof *x->s->tags))
        return HS_ENOMEM;
    hs_trace_tagstat *t = &x->s->tags[i];
    t->tag = m->tag;
    t->messages++;
    t->bytes += m->bytes;
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const hs_trace_pair *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}
static int cmp_tag(const void *a, const void *b)
{
    const hs_trace_tagstat *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

void hs_trace_stats_free(hs_trace_stats *s)
{
    if (!s)
        return;
    free(s->rank);
    free(s->info);
    free(s->pairs);
    free(s->tags);
    free(s->kinds);
    free(s);
}

static void add_rankstat(hs_trace_rankstat *t, const hs_trace_rankstat *r)
{
    t->events += r->events;
    t->sent_messages += r->sent_messages;
    t->sent_bytes += r->sent_bytes;
    t->recv_messages += r->recv_messages;
    t->recv_bytes += r->recv_bytes;
    t->monitored += r->monitored;
    t->coll_calls += r->coll_calls;
    t->coll_bytes_sent += r->coll_bytes_sent;
    t->coll_bytes_recv += r->coll_bytes_recv;
    t->rma_ops += r->rma_ops;
    t->rma_bytes += r->rma_bytes;
    t->mpi_seconds += r->mpi_seconds;
    t->init_seconds += r->init_seconds;
    if (r->events) {
        if (!t->events || r->t_first < t->t_first)
            t->t_first = r->t_first;
        if (r->t_last > t->t_last)
            t->t_last = r->t_last;
    }
}

int hs_trace_stats_compute(hs_trace *t, hs_trace_stats **out, hs_error *err)
{
    *out = NULL;
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    hs_trace_stats *s = calloc(1, sizeof *s);
    hs_trace_kindstat kinds[HS_TRACE_KIND_MAX + 1];
    memset(kinds, 0, sizeof kinds);
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    s->nranks = m->nranks;
    s->rank = calloc(m->nranks, sizeof *s->rank);
    s->info = calloc(m->nranks, sizeof *s->info);
    sctx x = { .s = s };
    int rc = 0;
    if (!s->rank || !s->info)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < m->nranks && !rc; r++) {
        hs_trace_cursor *c;
        if ((rc = hs_trace_cursor_open(t, r, &c, err)))
            break;
        rankscan rsc = { 0 };
        x.rs = &s->rank[r];
        hs_trace_event ev;
        int got;
        while ((got = hs_trace_next(c, &ev, err)) == 1) {
            hs_trace_rankstat *rs = &s->rank[r];
            if (rs->events == 0)
                rs->t_first = ev.t_start;
            rs->events++;
            if (ev.t_end > rs->t_last)
                rs->t_last = ev.t_end;
            /* in double: the reader bounds times, but a difference of two
             * int64 times must never be what overflows */
            double sec = ((double)ev.t_end - (double)ev.t_start) * 1e-9;
            if (ev.kind == HS_TRACE_INIT || ev.kind == HS_TRACE_FINALIZE)
                rs->init_seconds += sec;
            else
                rs->mpi_seconds += sec;
            hs_trace_kindstat *ks = &kinds[ev.kind];
            ks->kind = ev.kind;
            ks->calls += ev.repeat;
            ks->seconds += sec;
            hs_trace_class cl = hs_trace_kind_class(ev.kind);
            if (cl == HS_TRACE_CLASS_COLL) {
                rs->coll_calls++;
                rs->coll_bytes_sent += ev.bytes;
                rs->coll_bytes_recv += ev.bytes2;
                ks->bytes_sent += ev.bytes;
                ks->bytes_recv += ev.bytes2;
            } else if (cl == HS_TRACE_CLASS_RMA && ev.peer >= 0 &&
                       ev.kind <= HS_TRACE_RGET_ACCUMULATE) {
                rs->rma_ops++;
                rs->rma_bytes += ev.bytes + ev.bytes2;
                ks->bytes_sent += ev.bytes;
                ks->bytes_recv += ev.bytes2;
            } else if (cl == HS_TRACE_CLASS_P2P && is_send_kind(ev.kind) && ev.peer >= 0) {
                ks->bytes_sent += ev.bytes;
            }
            if ((rc = event_messages(&rsc, r, &ev, stats_msg, &x))) {
                hs_error_set(err, rc, "out of memory");
                break;
            }
        }
        if (got < 0)
            rc = got;
        hs_trace_cursor_info(c, &s->info[r]);
        if (!s->info[r].complete)
            s->incomplete_ranks++;
        hs_trace_cursor_close(c);
        rankscan_free(&rsc);
    }
    for (uint32_t r = 0; r < s->nranks && !rc; r++)
        add_rankstat(&s->total, &s->rank[r]);
    s->npairs = x.pairs.n;
    s->ntags = x.tags.n;
    hmap_free(&x.pairs);
    hmap_free(&x.tags);
    if (!rc) {
        if (s->npairs)
            qsort(s->pairs, s->npairs, sizeof *s->pairs, cmp_pair);
        if (s->ntags)
            qsort(s->tags, s->ntags, sizeof *s->tags, cmp_tag);
        size_t nk = 0;
        for (int k = 0; k <= HS_TRACE_KIND_MAX; k++)
            nk += kinds[k].calls > 0;
        s->kinds = calloc(nk + 1, sizeof *s->kinds);
        if (!s->kinds)
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        else
            for (int k = 0; k <= HS_TRACE_KIND_MAX; k++)
                if (kinds[k].calls)
                    s->kinds[s->nkinds++] = kinds[k];
    }
    if (rc) {
        hs_trace_stats_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

static void human_bytes(char *buf, size_t n, uint64_t b)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", b);
    else
        snprintf(buf, n, "%.1f %s", v, unit[u]);
}

void hs_trace_stats_print(const hs_trace_stats *s, FILE *f, uint32_t max_matrix)
{
    char b1[32], b2[32];
    const hs_trace_rankstat *t = &s->total;
    fprintf(f, "ranks %u (%s)\n", s->nranks,
            s->incomplete_ranks ? "some rank files are incomplete, see below" : "all complete");
    human_bytes(b1, sizeof b1, t->sent_bytes);
    human_bytes(b2, sizeof b2, t->recv_bytes);
    fprintf(f, "events %" PRIu64 ", span %.6f s, time in MPI %.6f s summed over ranks "
            "(%.6f s per rank), MPI_Init and MPI_Finalize %.6f s apart\n",
            t->events, ((double)t->t_last - (double)t->t_first) * 1e-9, t->mpi_seconds,
            s->nranks ? t->mpi_seconds / s->nranks : 0.0, t->init_seconds);
    fprintf(f, "point-to-point: %" PRIu64 " messages sent (%s), %" PRIu64
            " received (%s), %" PRIu64 " monitored\n",
            t->sent_messages, b1, t->recv_messages, b2, t->monitored);
    human_bytes(b1, sizeof b1, t->coll_bytes_sent);
    human_bytes(b2, sizeof b2, t->coll_bytes_recv);
    fprintf(f, "collectives: %" PRIu64 " calls, %s sent, %s received\n", t->coll_calls, b1, b2);
    human_bytes(b1, sizeof b1, t->rma_bytes);
    fprintf(f, "one-sided: %" PRIu64 " operations, %s\n", t->rma_ops, b1);

    fprintf(f, "\nper rank:\n  %6s %10s %12s %14s %12s %14s %10s %10s\n", "rank", "events",
            "sent msgs", "sent bytes", "recv msgs", "recv bytes", "coll", "rma");
    for (uint32_t r = 0; r < s->nranks; r++) {
        const hs_trace_rankstat *x = &s->rank[r];
        fprintf(f, "  %6u %10" PRIu64 " %12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %14" PRIu64
                " %10" PRIu64 " %10" PRIu64 "\n", r, x->events, x->sent_messages,
                x->sent_bytes, x->recv_messages, x->recv_bytes, x->coll_calls, x->rma_ops);
    }
    if (s->ntags) {
        fprintf(f, "\nby tag:\n  %10s %12s %14s\n", "tag", "messages", "bytes");
        for (size_t i = 0; i < s->ntags; i++)
            fprintf(f, "  %10d %12" PRIu64 " %14" PRIu64 "\n", s->tags[i].tag,
                    s->tags[i].messages, s->tags[i].bytes);
    }
    if (s->nkinds) {
        fprintf(f, "\nby call:\n  %-22s %12s %14s %14s %12s\n", "call", "calls", "bytes sent",
                "bytes recv", "seconds");
        for (size_t i = 0; i < s->nkinds; i++)
            fprintf(f, "  %-22s %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %12.6f\n",
                    hs_trace_kind_name(s->kinds[i].kind), s->kinds[i].calls,
                    s->kinds[i].bytes_sent, s->kinds[i].bytes_recv, s->kinds[i].seconds);
    }
    if (s->npairs && s->nranks <= max_matrix) {
        fprintf(f, "\ncommunication matrix (messages; row = sender, column = receiver):\n%6s",
                "");
        for (uint32_t c = 0; c < s->nranks; c++)
            fprintf(f, " %8u", c);
        fputc('\n', f);
        size_t p = 0;
        for (uint32_t r = 0; r < s->nranks; r++) {
            fprintf(f, "%6u", r);
            for (uint32_t c = 0; c < s->nranks; c++) {
                uint64_t v = 0;
                if (p < s->npairs && s->pairs[p].src == r && s->pairs[p].dst == c)
                    v = s->pairs[p++].messages;
                fprintf(f, " %8" PRIu64, v);
            }
            fputc('\n', f);
        }
    } else if (s->npairs) {
        fprintf(f, "\nby pair (%zu pairs):\n  %6s %6s %12s %14s\n", s->npairs, "src", "dst",
                "messages", "bytes");
        for (size_t i = 0; i < s->npairs; i++)
            fprintf(f, "  %6u %6u %12" PRIu64 " %14" PRIu64 "\n", s->pairs[i].src,
                    s->pairs[i].dst, s->pairs[i].messages, s->pairs[i].bytes);
    }
    int header = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        if (!s->info[r].note[0])
            continue;
        if (!header++)
            fprintf(f, "\nincomplete or unusual rank files:\n");
        fprintf(f, "  rank %u: %s\n", r, s->info[r].note);
    }
}

static void json_rankstat(hs_json *w, const hs_trace_rankstat *x)
{
    hs_json_key(w, "events"); hs_json_uint(w, x->events);
    hs_json_key(w, "sent_messages"); hs_json_uint(w, x->sent_messages);
    hs_json_key(w, "sent_bytes"); hs_json_uint(w, x->sent_bytes);
    hs_json_key(w, "recv_messages"); hs_json_uint(w, x->recv_messages);
    hs_json_key(w, "recv_bytes"); hs_json_uint(w, x->recv_bytes);
    hs_json_key(w, "monitored"); hs_json_uint(w, x->monitored);
    hs_json_key(w, "coll_calls"); hs_json_uint(w, x->coll_calls);
    hs_json_key(w, "coll_bytes_sent"); hs_json_uint(w, x->coll_bytes_sent);
    hs_json_key(w, "coll_bytes_recv"); hs_json_uint(w, x->coll_bytes_recv);
    hs_json_key(w, "rma_ops"); hs_json_uint(w, x->rma_ops);
    hs_json_key(w, "rma_bytes"); hs_json_uint(w, x->rma_bytes);
    hs_json_key(w, "mpi_seconds"); hs_json_num(w, x->mpi_seconds);
    hs_json_key(w, "init_seconds"); hs_json_num(w, x->init_seconds);
    hs_json_key(w, "t_first_ns"); hs_json_int(w, x->t_first);
    hs_json_key(w, "t_last_ns"); hs_json_int(w, x->t_last);
}

void hs_trace_stats_json(const hs_trace_stats *s, hs_json *w)
{
    hs_json_obj_begin(w);
    hs_json_key(w, "ranks"); hs_json_uint(w, s->nranks);
    hs_json_key(w, "incomplete_ranks"); hs_json_uint(w, s->incomplete_ranks);
    hs_json_key(w, "total");
    hs_json_obj_begin(w);
    json_rankstat(w, &s->total);
    hs_json_obj_end(w);
    hs_json_key(w, "per_rank");
    hs_json_arr_begin(w);
    for (uint32_t r = 0; r < s->nranks; r++) {
        hs_json_obj_begin(w);
        hs_json_key(w, "rank"); hs_json_uint(w, r);
        json_rankstat(w, &s->rank[r]);
        hs_json_key(w, "complete"); hs_json_bool(w, s->info[r].complete);
        hs_json_key(w, "end"); hs_json_str(w, hs_trace_end_name(s->info[r].end_reason));
        hs_json_key(w, "note"); hs_json_str(w, s->info[r].note);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "pairs");
    hs_json_arr_begin(w);
    for (size_t i = 0; i < s->npairs; i++) {
        hs_json_obj_begin(w);
        hs_json_key(w, "src"); hs_json_uint(w, s->pairs[i].src);
        hs_json_key(w, "dst"); hs_json_uint(w, s->pairs[i].dst);
        hs_json_key(w, "messages"); hs_json_uint(w, s->pairs[i].messages);
        hs_json_key(w, "bytes"); hs_json_uint(w, s->pairs[i].bytes);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "tags");
    hs_json_arr_begin(w);
    for (size_t i = 0; i < s->ntags; i++) {
        hs_json_obj_begin(w);
        hs_json_key(w, "tag"); hs_json_int(w, s->tags[i].tag);
        hs_json_key(w, "messages"); hs_json_uint(w, s->tags[i].messages);
        hs_json_key(w, "bytes"); hs_json_uint(w, s->tags[i].bytes);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_key(w, "calls");
    hs_json_arr_begin(w);
    for (size_t i = 0; i < s->nkinds; i++) {
        hs_json_obj_begin(w);
        hs_json_key(w, "call"); hs_json_str(w, hs_trace_kind_name(s->kinds[i].kind));
        hs_json_key(w, "calls"); hs_json_uint(w, s->kinds[i].calls);
        hs_json_key(w, "bytes_sent"); hs_json_uint(w, s->kinds[i].bytes_sent);
        hs_json_key(w, "bytes_recv"); hs_json_uint(w, s->kinds[i].bytes_recv);
        hs_json_key(w, "seconds"); hs_json_num(w, s->kinds[i].seconds);
        hs_json_obj_end(w);
    }
    hs_json_arr_end(w);
    hs_json_obj_end(w);
}

/* ---- check ---------------------------------------------------------------- */

typedef struct flow {       /* per (comm, src, dst, tag) */
    uint64_t sent, sent_bytes, recv, recv_bytes;
} flow;

typedef struct commchk {    /* per communicator id */
    uint64_t members_hash;  /* symmetric in local/remote groups */
    uint32_t size;          /* members + remote */
    uint32_t creators;      /* ranks that recorded its creation */
    int      mismatch;
    int      inter;         /* an intercommunicator */
} commchk;

typedef struct collseq {    /* per (comm, rank) */
    uint64_t n, hash;
} collseq;

typedef struct cctx {
    hmap flows, comms, colls, reqs;
    flow *fv;
    commchk *cv;
    collseq *qv;
    uint64_t *rv;           /* request -> communicator id (current rank) */
    size_t fcap, ccap, qcap, rcap;
    const hs_trace_event *ev;
    FILE *report;
    size_t max_lines, lines;
    uint64_t problems;
} cctx;

static void problem(cctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(cctx *x, const char *fmt, ...)
{
    x->problems++;
    if (!x->report || x->lines >= x->max_lines)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(x->report, fmt, ap);
    va_end(ap);
    fputc('\n', x->report);
    x->lines++;
}

static int check_msg(void *arg, const msg *m0)
{
    cctx *x = arg;
    msg m = *m0;
    if (m.compl_idx >= 0) {
        /* A completed receive request: its communicator was on the start. */
        const hs_trace_compl *c = &x->ev->compl[m.compl_idx];
        int64_t i = hmap_find(&x->reqs, (hkey){ c->req, 0, 0 });
        m.comm = i < 0 ? 0 : x->rv[i];
    }
    int isnew;
    int64_t i = hmap_get(&x->flows, (hkey){ m.comm, (uint64_t)(uint32_t)m.src << 32 |
                                            (uint32_t)m.dst, (uint64_t)(uint32_t)m.tag },
                         &isnew);
    if (i < 0 || vgrow((void **)&x->fv, &x->fcap, (size_t)i, sizeof *x->fv))
        return HS_ENOMEM;
    if (m.dir == 0) {
        x->fv[i].sent++;
        x->fv[i].sent_bytes += m.bytes;
    } else {
        x->fv[i].recv++;
        x->fv[i].recv_bytes += m.bytes;
    }
    return 0;
}

static uint64_t list_hash(const int32_t *v, uint32_t n)
{
    uint64_t h = hs__mix64(n + 0x9e3779b97f4a7c15ull);
    for (uint32_t i = 0; i < n; i++)
        h = hs__mix64(h ^ (uint32_t)v[i]);
    return h;
}

static int check_event(cctx *x, uint32_t rank, const hs_trace_event *ev)
{
    int isnew;
    int64_t i;
    /* Requests that may complete a receive: remember their communicator. */
    if (ev->req && (ev->kind == HS_TRACE_IRECV || ev->kind == HS_TRACE_RECV_INIT ||
                    ev->kind == HS_TRACE_IMRECV || ev->kind == HS_TRACE_ISENDRECV ||
                    ev->kind == HS_TRACE_ISENDRECV_REPLACE)) {
        i = hmap_get(&x->reqs, (hkey){ ev->req, 0, 0 }, &isnew);
        if (i < 0 || vgrow((void **)&x->rv, &x->rcap, (size_t)i, sizeof *x->rv))
            return HS_ENOMEM;
        x->rv[i] = ev->comm;
    }
    if (ev->kind == HS_TRACE_COMM_CREATE) {
        i = hmap_get(&x->comms, (hkey){ ev->comm, 0, 0 }, &isnew);
        if (i < 0 || vgrow((void **)&x->cv, &x->ccap, (size_t)i, sizeof *x->cv))
            return HS_ENOMEM;
        commchk *c = &x->cv[i];
        uint64_t h = list_hash(ev->members, ev->nmembers) +
                     (ev->nremote ? list_hash(ev->remote, ev->nremote) : 0);
        int in = 0;
        for (uint32_t k = 0; k < ev->nmembers; k++)
            in |= ev->members[k] == (int32_t)rank;
        if (!in)
            problem(x, "rank %u created communicator %#" PRIx64 " but is not in its member "
                    "list", rank, ev->comm);
        if (isnew) {
            c->members_hash = h;
            c->size = ev->nmembers + ev->nremote;
            c->inter = ev->nremote > 0;
        } else if (c->members_hash != h && !c->mismatch) {
            c->mismatch = 1;
            problem(x, "communicator %#" PRIx64 ": rank %u records a different member list "
                    "than earlier ranks", ev->comm, rank);
        }
        c->creators++;
    }
    int base;
    if (hs_trace_kind_is_coll(ev->kind, &base) && ev->comm != HS_TRACE_COMM_SELF) {
        i = hmap_get(&x->colls, (hkey){ ev->comm, rank, 0 }, &isnew);
        if (i < 0 || vgrow((void **)&x->qv, &x->qcap, (size_t)i, sizeof *x->qv))
            return HS_ENOMEM;
        collseq *q = &x->qv[i];
        q->n++;
        /* On an intercommunicator the root's group names it MPI_ROOT or
         * MPI_PROC_NULL and the other group by rank: no common value. */
        int64_t ci = hmap_find(&x->comms, (hkey){ ev->comm, 0, 0 });
        int inter = ci >= 0 && x->cv[ci].inter;
        uint64_t root = ev->peer >= 0 && !inter ? (uint64_t)ev->peer : 0;
        q->hash = hs__mix64(q->hash ^ (ev->kind * 0x100000001ull) ^ (root << 20));
    }
    return 0;
}

/* Per communicator: all members called the same collectives in the same order. */
static void check_colls(cctx *x, const hs_trace_manifest *m, const hs_trace_stats *st)
{
    (void)st;
    /* Group the (comm, rank) entries by comm: compare each to the first seen. */
    hmap first = { 0 };
    collseq *fv = NULL;
    uint32_t *frank = NULL;
    size_t fcap = 0, rcap = 0;
    for (size_t i = 0; i < x->colls.n; i++) {
        const hkey *k = &x->colls.keys[i];
        int isnew;
        int64_t j = hmap_get(&first, (hkey){ k->a, 0, 0 }, &isnew);
        if (j < 0 || vgrow((void **)&fv, &fcap, (size_t)j, sizeof *fv) ||
            vgrow((void **)&frank, &rcap, (size_t)j, sizeof *frank))
            break;
        if (isnew) {
            fv[j] = x->qv[i];
            frank[j] = (uint32_t)k->b;
        } else if (fv[j].n != x->qv[i].n || fv[j].hash != x->qv[i].hash) {
            problem(x, "communicator %#" PRIx64 "%s: rank %u made %" PRIu64 " collective calls, "
                    "rank %u made %" PRIu64 "%s", k->a,
                    k->a == HS_TRACE_COMM_WORLD ? " (world)" : "", frank[j], fv[j].n,
                    (uint32_t)k->b, x->qv[i].n,
                    fv[j].n == x->qv[i].n ? " but of different kinds, order or roots" : "");
        }
    }
    (void)m;
    hmap_free(&first);
    free(fv);
    free(frank);
}

int hs_trace_check(hs_trace *t, FILE *report, size_t max_lines, uint64_t *problems,
                   hs_error *err)
{
    *problems = 0;
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    cctx x = { .report = report, .max_lines = max_lines };
    int rc = 0, incomplete = 0;
    for (uint32_t r = 0; r < m->nranks && !rc; r++) {
        hs_trace_cursor *c;
        if ((rc = hs_trace_cursor_open(t, r, &c, err)))
            break;
        rankscan rsc = { 0 };
        hs_trace_event ev;
        int got;
        /* Request ids are per rank. */
        hmap_free(&x.reqs);
        while ((got = hs_trace_next(c, &ev, err)) == 1) {
            x.ev = &ev;
            if ((rc = check_event(&x, r, &ev)) ||
                (rc = event_messages(&rsc, r, &ev, check_msg, &x))) {
                hs_error_set(err, rc, "out of memory");
                break;
            }
        }
        if (got < 0)
            rc = got;
        hs_trace_rank_info info;
        hs_trace_cursor_info(c, &info);
        if (!info.complete) {
            incomplete++;
            problem(&x, "rank %u: %s", r, info.note);
        }
        hs_trace_cursor_close(c);
        rankscan_free(&rsc);
    }
    if (!rc) {
        for (size_t i = 0; i < x.flows.n; i++) {
            const flow *f = &x.fv[i];
            const hkey *k = &x.flows.keys[i];
            if (f->sent == f->recv && f->sent_bytes == f->recv_bytes)
                continue;
            problem(&x, "communicator %#" PRIx64 ", rank %u -> rank %u, tag %d: %" PRIu64
                    " messages (%" PRIu64 " bytes) sent, %" PRIu64 " (%" PRIu64 " bytes) received",
                    k->a, (uint32_t)(k->b >> 32), (uint32_t)k->b, (int32_t)(uint32_t)k->c,
                    f->sent, f->sent_bytes, f->recv, f->recv_bytes);
        }
        for (size_t i = 0; i < x.comms.n; i++) {
            const commchk *c = &x.cv[i];
            if (c->creators != c->size && !incomplete)
                problem(&x, "communicator %#" PRIx64 ": %u members but %u ranks recorded its "
                        "creation", x.comms.keys[i].a, c->size, c->creators);
        }
        check_colls(&x, m, NULL);
        if (incomplete && x.problems > (uint64_t)incomplete && report && x.lines < max_lines)
            fprintf(report, "note: %d rank files are incomplete, so mismatches are expected\n",
                    incomplete);
    }
    hmap_free(&x.flows);
    hmap_free(&x.comms);
    hmap_free(&x.colls);
    hmap_free(&x.reqs);
    free(x.fv);
    free(x.cv);
    free(x.qv);
    free(x.rv);
    if (!rc)
        *problems = x.problems;
    return rc;
}
