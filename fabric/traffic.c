/* Synthetic traffic for validating the model: standard patterns at a given
 * offered load, with the usual methodology (warm-up, a measurement window,
 * then running on until the messages generated in the window are
 * delivered, with generation continuing so that conditions stay steady).
 *
 * Each active source posts messages of `size` bytes with exponential
 * (Poisson) or fixed inter-arrival times whose mean makes its offered load
 * the requested fraction of its injection link's bandwidth, counted in wire
 * bytes (payload + header, at least the minimum packet), so load 1.0 fills
 * the link exactly.  The sources' independent Poisson processes are
 * generated as their superposition (one process at the sum of the rates,
 * each arrival assigned to a source with probability proportional to its
 * rate), which has exactly the same law and needs one pending timer
 * instead of one per node.  Source queues are unbounded, as in an open-loop
 * measurement: beyond saturation latency grows with the run.
 *
 * Reported: offered and accepted load (wire bytes delivered in the window /
 * capacity of the active sources), latency from posting to delivery of the
 * measured messages (percentiles by nearest rank), and network latency
 * from the start of the injection of a message's last packet. */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hs_traffic_cfg_default(hs_traffic_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->pattern = HS_PAT_UNIFORM;
    c->shift = 0;
    c->target = 0;
    c->frac = 0.1;
    c->senders = 0;
    c->bg_load = 0;
    c->load = 0.5;
    c->monitor = 1.0;
    c->size = 0;
    c->warmup = HS_TIME_NEVER;   /* default: duration / 4 */
    c->duration = 20 * HS_PS_PER_US;
    c->packets = 0;
    c->drain_max = 0;
    c->seed = 1;
}

/* "key=value" options after the pattern name, separated by commas. */
static int pattern_opts(hs_traffic_cfg *c, char *opts, const char *s, hs_error *err)
{
    char *save = NULL;
    for (char *tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return hs_error_set(err, HS_EINVAL, "traffic '%s': '%s' should be key=value", s, tok);
        *eq = '\0';
        const char *k = tok, *v = eq + 1;
        uint64_t u;
        double d;
        if (strcmp(k, "target") == 0 && (c->pattern == HS_PAT_HOTSPOT ||
                                         c->pattern == HS_PAT_INCAST)) {
            if (hs_parse_u64(v, &u) || u > UINT32_MAX)
                return hs_error_set(err, HS_EINVAL, "traffic '%s': target=%s: a node number",
                                    s, v);
            c->target = (uint32_t)u;
        } else if (strcmp(k, "frac") == 0 && c->pattern == HS_PAT_HOTSPOT) {
            if (hs_parse_double(v, &d) || d < 0 || d > 1)
                return hs_error_set(err, HS_EINVAL, "traffic '%s': frac=%s: a fraction 0..1",
                                    s, v);
            c->frac = d;
        } else if (strcmp(k, "senders") == 0 && c->pattern == HS_PAT_INCAST) {
            if (hs_parse_u64(v, &u) || u == 0 || u > UINT32_MAX)
                return hs_error_set(err, HS_EINVAL, "traffic '%s': senders=%s: a positive "
                                    "count", s, v);
            c->senders = (uint32_t)u;
        } else if (strcmp(k, "list") == 0 && c->pattern == HS_PAT_INCAST) {
            char buf[1024];
            if (strlen(v) >= sizeof buf)
                return hs_error_set(err, HS_EINVAL, "traffic '%s': list too long", s);
            strcpy(buf, v);
            char *s2 = NULL;
            c->nsender_list = 0;
            for (char *x = strtok_r(buf, "+", &s2); x; x = strtok_r(NULL, "+", &s2)) {
                if (c->nsender_list == HS_TRAFFIC_MAX_LIST)
                    return hs_error_set(err, HS_EINVAL, "traffic '%s': at most %d listed "
                                        "senders", s, HS_TRAFFIC_MAX_LIST);
                if (hs_parse_u64(x, &u) || u > UINT32_MAX)
                    return hs_error_set(err, HS_EINVAL, "traffic '%s': list: '%s' is not a "
                                        "node number", s, x);
                c->sender_list[c->nsender_list++] = (uint32_t)u;
            }
        } else if (strcmp(k, "bg") == 0 && c->pattern == HS_PAT_INCAST) {
            if (hs_parse_double(v, &d) || d < 0 || d > 1)
                return hs_error_set(err, HS_EINVAL, "traffic '%s': bg=%s: a load 0..1", s, v);
            c->bg_load = d;
        } else {
            return hs_error_set(err, HS_EINVAL, "traffic '%s': unknown option '%s'", s, k);
        }
    }
    return 0;
}

int hs_traffic_parse(const char *s, hs_traffic_cfg *c, hs_error *err)
{
    char buf[1200];
    if (!s || strlen(s) >= sizeof buf)
        return hs_error_set(err, HS_EINVAL, "traffic pattern missing or too long");
    strcpy(buf, s);
    char *arg = strchr(buf, ':');
    if (arg)
        *arg++ = '\0';
    static const struct { const char *name; hs_pattern p; } pats[] = {
        { "uniform", HS_PAT_UNIFORM }, { "shift", HS_PAT_SHIFT },
        { "transpose", HS_PAT_TRANSPOSE }, { "bitcomp", HS_PAT_BITCOMP },
        { "hotspot", HS_PAT_HOTSPOT }, { "incast", HS_PAT_INCAST },
        { "groupshift", HS_PAT_GROUPSHIFT },
    };
    size_t i;
    for (i = 0; i < sizeof pats / sizeof pats[0]; i++)
        if (strcmp(buf, pats[i].name) == 0)
            break;
    if (i == sizeof pats / sizeof pats[0])
        return hs_error_set(err, HS_EINVAL, "unknown traffic pattern '%s' (uniform, shift[:S], "
                            "transpose, bitcomp, groupshift[:G], hotspot[:target=T,frac=F], "
                            "incast[:target=T,senders=S|list=A+B,bg=L])", buf);
    c->pattern = pats[i].p;
    if (!arg)
        return 0;
    if (c->pattern == HS_PAT_SHIFT || c->pattern == HS_PAT_GROUPSHIFT) {
        int64_t v;
        if (hs_parse_i64(arg, &v) || v == 0)
            return hs_error_set(err, HS_EINVAL, "traffic '%s': the shift must be a nonzero "
                                "integer", s);
        c->shift = v;
        return 0;
    }
    if (c->pattern == HS_PAT_HOTSPOT || c->pattern == HS_PAT_INCAST)
        return pattern_opts(c, arg, s, err);
    return hs_error_set(err, HS_EINVAL, "traffic '%s': pattern '%s' takes no argument", s, buf);
}

/* ---- the driver ------------------------------------------------------------- */

typedef struct meas {
    hs_time  post, sent;
    uint32_t src;
    uint8_t  bg;
} meas;

/* Latency samples of one class of messages. */
typedef struct lats {
    hs_time *lat, *net;
    size_t   n, cap;
    uint64_t measured, outstanding, win_generated, win_delivered;
} lats;

typedef struct driver {
    hs_fabric *F;
    const hs_traffic_cfg *c;
    uint32_t N;
    uint64_t rng[4];
    double  *gap;          /* mean inter-arrival per node, ps; 0 = inactive */
    uint8_t *role;         /* 0 inactive, 1 pattern source, 2 incast background */
    uint32_t *isend;       /* incast: the senders */
    uint32_t nsend;
    uint32_t transpose_n;
    uint64_t wire;         /* wire bytes per message */
    uint64_t lastwire;     /* wire bytes of a message's last packet */
    hs_time  w0, w1;       /* measurement window */
    int      generating;
    uint64_t generated, limit;
    hs_time  last_gen;
    /* measured messages, indexed by serial */
    meas    *m;
    size_t   nm, capm;
    uint64_t outstanding;  /* measured, not yet delivered (both classes) */
    lats     cls[2];       /* pattern senders, background senders */
    /* Poisson mode: the sources' processes merged into one (rate: sum of
     * the sources' rates), each arrival drawn from a source with
     * probability proportional to its rate: per class, uniform within */
    uint32_t *members[2];
    uint32_t nmembers[2];
    double   rate[2];      /* arrivals per ps, per class */
    int      error;
    /* parallel run: every process runs the same driver (its draws do not
     * depend on the network) and injects only its own sources' messages;
     * measured deliveries are kept as (serial, time) and turned into
     * latencies by part 0 once the source's `sent` times are gathered */
    int      par;
    int      par_next;     /* the next merged arrival's source is drawn: */
    uint32_t par_src;
    uint64_t *dl;          /* serial, time pairs */
    size_t   ndl, capdl;
} driver;

#define COOKIE_MEASURED (1ull << 63)
/* timer cookies besides node numbers */
#define TIMER_WINDOW_END (UINT64_MAX - 1)
#define TIMER_GIVE_UP (UINT64_MAX - 2)
#define TIMER_MERGED (UINT64_MAX - 3)

static uint64_t drand64(driver *d)
{
    return hs__xoshiro(d->rng);
}

static double drand01(driver *d)
{
    return (double)(drand64(d) >> 11) * (1.0 / 9007199254740992.0);
}

static hs_time next_gap(driver *d, uint32_t node)
{
    double g = d->gap[node];
    if (d->c->periodic)
        return (hs_time)(g + 0.5);
    double u = drand01(d);
    return (hs_time)(-log1p(-u) * g + 0.5);
}

static uint32_t uniform_other(driver *d, uint32_t src, uint32_t avoid)
{
    /* uniform over nodes other than src and avoid (avoid may equal src) */
    uint32_t lo = src < avoid ? src : avoid, hi = src < avoid ? avoid : src;
    uint32_t n = d->N - (lo == hi ? 1 : 2);
    uint32_t x = (uint32_t)(drand64(d) % n);
    if (x >= lo)
        x++;
    if (hi != lo && x >= hi)
        x++;
    return x;
}

static uint32_t dest(driver *d, uint32_t src)
{
    const hs_traffic_cfg *c = d->c;
    uint32_t N = d->N;
    if (d->role[src] == 2)
        return uniform_other(d, src, c->target);
    switch (c->pattern) {
    case HS_PAT_UNIFORM:
        return uniform_other(d, src, src);
    case HS_PAT_SHIFT: {
        int64_t s = c->shift ? c->shift : (int64_t)(N / 2);
        return (uint32_t)((((int64_t)src + s) % (int64_t)N + N) % N);
    }
    case HS_PAT_TRANSPOSE: {
        uint32_t n = d->transpose_n;
        return (src % n) * n + src / n;
    }
    case HS_PAT_BITCOMP:
        return N - 1 - src;
    case HS_PAT_GROUPSHIFT: {
        const hs__dragonfly *df = &d->F->topo->u.df;
        uint32_t per = df->a * df->p, G = src / per;
        int64_t s = c->shift ? c->shift : 1;
        uint32_t G2 = (uint32_t)((((int64_t)G + s) % (int64_t)df->g + df->g) % df->g);
        return G2 * per + src % per;
    }
    case HS_PAT_HOTSPOT:
        if (src != c->target && drand01(d) < c->frac)
            return c->target;
        return uniform_other(d, src, src);
    case HS_PAT_INCAST:
        return c->target;
    }
    return 0;
}

/* A message from src at `now` (the current time, or in a parallel run an
 * arrival of another part's source drawn ahead of time). */
static void post_at(driver *d, uint32_t src, hs_time now)
{
    hs_fabric *F = d->F;
    uint32_t dst = dest(d, src);
    uint64_t cookie = src;
    int measured = now >= d->w0 && now < d->w1;
    if (measured) {
        if (d->nm == d->capm) {
            size_t nc = d->capm ? d->capm * 2 : 4096;
            meas *n = realloc(d->m, nc * sizeof *n);
            if (!n) {
                d->error = HS_ENOMEM;
                return;
            }
            d->m = n;
            d->capm = nc;
        }
        d->m[d->nm].post = now;
        d->m[d->nm].sent = 0;
        d->m[d->nm].src = src;
        d->m[d->nm].bg = d->role[src] == 2;
        cookie = COOKIE_MEASURED | d->nm++;
        d->outstanding++;
        lats *c = &d->cls[d->role[src] == 2];
        c->measured++;
        c->outstanding++;
        c->win_generated++;
    }
    int mon = d->c->monitor >= 1.0 || (d->c->monitor > 0 && drand01(d) < d->c->monitor);
    if (!d->par || hs_fabric_node_local(F, src)) {
        int rc = hs_fabric_inject(F, now, src, dst, d->c->size, 0, mon, cookie);
        if (rc)
            d->error = rc;
    }
    d->generated++;
    d->last_gen = now;
}

static void post(driver *d, uint32_t src)
{
    post_at(d, src, hs_fabric_now(d->F));
}

/* Next arrival of the merged Poisson process. */
static hs_time merged_gap(driver *d)
{
    double u = drand01(d);
    return (hs_time)(-log1p(-u) / (d->rate[0] + d->rate[1]) + 0.5);
}

static uint32_t merged_source(driver *d)
{
    int k = d->rate[1] > 0 && drand01(d) * (d->rate[0] + d->rate[1]) >= d->rate[0];
    return d->members[k][drand64(d) % d->nmembers[k]];
}

static void on_timer(void *ctx, hs_fabric *F, uint64_t node, hs_time t)
{
    driver *d = ctx;
    if (node == TIMER_MERGED) {
        if (!d->generating)
            return;
        post(d, d->par_next ? d->par_src : merged_source(d));
        d->par_next = 0;
        for (;;) {
            if (d->limit && d->generated >= d->limit) {
                d->generating = 0;
                return;
            }
            hs_time tn = t + merged_gap(d);
            if (!d->par) {
                /* the next arrival's source drawn now, as a parallel run
                 * does (the same draws in the same order: nothing else
                 * draws in between), so that its NIC's state is fetched
                 * while the events before it run */
                d->par_next = 1;
                d->par_src = merged_source(d);
                hs__nic_prefetch(F, d->par_src);
                if (hs_fabric_timer(F, tn, TIMER_MERGED))
                    d->error = HS_ENOMEM;
                return;
            }
            /* a parallel run: the next arrival's source is drawn now (the
             * same draws in the same order); another part's arrival is
             * accounted for here without a timer event (its draws made,
             * its timer's key taken, counted once by part 0), so that
             * every process runs only its own sources' timers */
            uint32_t src = merged_source(d);
            if (hs_fabric_node_local(F, src)) {
                d->par_next = 1;
                d->par_src = src;
                if (hs_fabric_timer(F, tn, TIMER_MERGED))
                    d->error = HS_ENOMEM;
                return;
            }
            hs__timer_skip(F);
            post_at(d, src, tn);
            t = tn;
        }
    }
    if (node == TIMER_WINDOW_END) {
        if (d->outstanding == 0)
            hs_fabric_stop(F);
        return;
    }
    if (node == TIMER_GIVE_UP) {
        hs_fabric_stop(F);
        return;
    }
    if (!d->generating)
        return;
    post(d, (uint32_t)node);
    if (d->limit && d->generated >= d->limit) {
        d->generating = 0;
        return;
    }
    if (hs_fabric_timer(F, t + next_gap(d, (uint32_t)node), node))
        d->error = HS_ENOMEM;
}

static void on_sent(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    (void)F;
    driver *d = ctx;
    if (cookie & COOKIE_MEASURED)
        d->m[cookie & ~COOKIE_MEASURED].sent = t;
}

static void add_latency(driver *d, hs_fabric *F, uint64_t serial, hs_time t);

static void on_delivered(void *ctx, hs_fabric *F, uint64_t cookie, hs_time t)
{
    driver *d = ctx;
    int bg = d->role[cookie & COOKIE_MEASURED ? d->m[cookie & ~COOKIE_MEASURED].src
                                              : (uint32_t)cookie] == 2;
    lats *c = &d->cls[bg];
    if (t >= d->w0 && t < d->w1)
        c->win_delivered++;
    if (!(cookie & COOKIE_MEASURED))
        return;
    if (d->par) {
        if (d->ndl + 2 > d->capdl) {
            size_t nc = d->capdl ? d->capdl * 2 : 8192;
            uint64_t *n = realloc(d->dl, nc * sizeof *n);
            if (!n) {
                d->error = HS_ENOMEM;
                return;
            }
            d->dl = n;
            d->capdl = nc;
        }
        d->dl[d->ndl++] = cookie & ~COOKIE_MEASURED;
        d->dl[d->ndl++] = t;
        return;
    }
    add_latency(d, F, cookie & ~COOKIE_MEASURED, t);
}

/* The latencies of measured message `serial` delivered at t. */
static void add_latency(driver *d, hs_fabric *F, uint64_t serial, hs_time t)
{
    const meas *m = &d->m[serial];
    lats *c = &d->cls[m->bg];
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 4096;
        hs_time *a = realloc(c->lat, nc * sizeof *a);
        if (a)
            c->lat = a;
        hs_time *b = realloc(c->net, nc * sizeof *b);
        if (b)
            c->net = b;
        if (!a || !b) {
            d->error = HS_ENOMEM;
            if (!d->par)
                hs_fabric_stop(F);
            return;
        }
        c->cap = nc;
    }
    hs_time ser = hs_ser_time(d->lastwire, F->lk[hs_topo_node_injection(F->topo, m->src)].bw);
    c->lat[c->n] = t - m->post;
    c->net[c->n] = t - (m->sent - ser);
    c->n++;
    c->outstanding--;
    if (--d->outstanding == 0 && t >= d->w1 && !d->par)
        hs_fabric_stop(F);
}

/* LSD radix sort of times (11-bit digits, skipping digits above the
 * largest value): a few linear passes instead of qsort's n log n calls. */
static int sort_times(hs_time *v, size_t n)
{
    hs_time max = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > max)
            max = v[i];
    hs_time *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return HS_ENOMEM;
    hs_time *a = v, *b = tmp;
    for (unsigned shift = 0; shift < 64 && (max >> shift) != 0; shift += 11) {
        size_t cnt[2049];
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[((a[i] >> shift) & 2047) + 1]++;
        for (size_t k = 0; k < 2048; k++)
            cnt[k + 1] += cnt[k];
        for (size_t i = 0; i < n; i++)
            b[cnt[(a[i] >> shift) & 2047]++] = a[i];
        hs_time *x = a;
        a = b;
        b = x;
    }
    if (a != v)
        memcpy(v, a, n * sizeof *v);
    free(tmp);
    return 0;
}

static hs_time pct(const hs_time *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t r = (size_t)ceil(q * (double)n);
    if (r < 1)
        r = 1;
    if (r > n)
        r = n;
    return v[r - 1];
}

/* Sets up roles and per-node gaps; HS_EINVAL when the pattern does not fit. */
static int setup(driver *d, hs_error *err)
{
    hs_fabric *F = d->F;
    const hs_traffic_cfg *c = d->c;
    uint32_t N = d->N;
    const hs_fabric_params *p = &F->prm;
    uint64_t npk = c->size ? (c->size + p->mtu - 1) / p->mtu : 1;
    uint64_t wire = 0;
    for (uint64_t i = 0; i < npk; i++) {
        uint64_t pay = i + 1 < npk ? p->mtu : c->size - (npk - 1) * p->mtu;
        uint64_t w = pay + p->header;
        w = w < HS_FABRIC_MIN_PACKET ? HS_FABRIC_MIN_PACKET : w;
        wire += w;
        d->lastwire = w;
    }
    d->wire = wire;
    for (uint32_t n = 0; n < N; n++)
        d->role[n] = 1;
    switch (c->pattern) {
    case HS_PAT_SHIFT: {
        int64_t s = c->shift ? c->shift : (int64_t)(N / 2);
        if (((s % (int64_t)N) + N) % N == 0)
            return hs_error_set(err, HS_EINVAL, "shift %lld is a multiple of the %u nodes",
                                (long long)s, N);
        break;
    }
    case HS_PAT_TRANSPOSE: {
        uint32_t n = (uint32_t)llround(sqrt((double)N));
        if ((uint64_t)n * n != N)
            return hs_error_set(err, HS_EINVAL, "transpose needs a square number of nodes "
                                "(this network has %u)", N);
        d->transpose_n = n;
        for (uint32_t x = 0; x < N; x++)
            if (x % n == x / n)
                d->role[x] = 0;  /* the diagonal maps to itself */
        break;
    }
    case HS_PAT_BITCOMP:
        if (N % 2)
            d->role[N / 2] = 0;
        break;
    case HS_PAT_GROUPSHIFT: {
        if (F->topo->kind != HS_TOPO_DRAGONFLY)
            return hs_error_set(err, HS_EINVAL, "groupshift needs a dragonfly topology");
        int64_t s = c->shift ? c->shift : 1;
        if (((s % (int64_t)F->topo->u.df.g) + F->topo->u.df.g) % F->topo->u.df.g == 0)
            return hs_error_set(err, HS_EINVAL, "group shift %lld is a multiple of the %u "
                                "groups", (long long)s, F->topo->u.df.g);
        break;
    }
    case HS_PAT_HOTSPOT:
        if (c->target >= N)
            return hs_error_set(err, HS_EINVAL, "hotspot target %u: the network has %u nodes",
                                c->target, N);
        break;
    case HS_PAT_INCAST: {
        if (c->target >= N)
            return hs_error_set(err, HS_EINVAL, "incast target %u: the network has %u nodes",
                                c->target, N);
        for (uint32_t n = 0; n < N; n++)
            d->role[n] = c->bg_load > 0 && n != c->target ? 2 : 0;
        if (c->nsender_list) {
            for (unsigned i = 0; i < c->nsender_list; i++) {
                uint32_t s = c->sender_list[i];
                if (s >= N || s == c->target)
                    return hs_error_set(err, HS_EINVAL, "incast sender %u: not a node other "
                                        "than the target", s);
                d->role[s] = 1;
            }
        } else {
            uint32_t S = c->senders ? c->senders : N - 1;
            if (S > N - 1)
                return hs_error_set(err, HS_EINVAL, "incast: %u senders but only %u other "
                                    "nodes", S, N - 1);
            /* spread over the machine: every (N-1)/S-th node after the target */
            for (uint32_t i = 0; i < S; i++) {
                uint64_t off = 1 + (uint64_t)i * (N - 1) / S;
                d->role[(c->target + off) % N] = 1;
            }
        }
        break;
    }
    default:
        break;
    }
    for (uint32_t n = 0; n < N; n++) {
        double load = d->role[n] == 1 ? c->load : d->role[n] == 2 ? c->bg_load : 0;
        if (load <= 0) {
            d->gap[n] = 0;
            d->role[n] = 0;
            continue;
        }
        hs_time ser = hs_ser_time(wire, F->lk[hs_topo_node_injection(F->topo, n)].bw);
        d->gap[n] = (double)ser / load;
    }
    return 0;
}

/* Sends `n` bytes at `mine` to part 0 (part 0 sends nothing); part 0 gets
 * the other parts' buffers concatenated in part order, each preceded by its
 * length (8 bytes). */
static int gather0(hs_fabric *F, const hs_fabric_transport *tr, const void *mine, size_t n,
                   const void **in, size_t *inlen)
{
    unsigned np = hs_fabric_nparts(F), me = hs_fabric_part(F);
    const void **out = calloc(np, sizeof *out);
    size_t *ol = calloc(np, sizeof *ol);
    unsigned char *b = malloc(n + 8);
    int rc = out && ol && b ? 0 : HS_ENOMEM;
    if (b) {
        uint64_t len = n;
        memcpy(b, &len, 8);
        if (n)
            memcpy(b + 8, mine, n);
    }
    if (out && ol && b && me != 0) {
        out[0] = b;
        ol[0] = n + 8;
    }
    /* every process takes part in the exchange, even after a failure */
    int trc = tr->exchange(tr->ctx, out, ol, in, inlen);
    free(out);
    free(ol);
    free(b);
    return rc ? rc : trc;
}

/* Part 0 collects the other parts' `sent` times of their sources' measured
 * messages and their measured deliveries, then computes the latencies as
 * the sequential run does at each delivery. */
static int gather_traffic(driver *d, const hs_fabric_transport *tr)
{
    hs_fabric *F = d->F;
    unsigned me = hs_fabric_part(F);
    /* [error, win_delivered x2, nsent, (serial, sent)..., ndl, (serial, t)...] */
    size_t nsent = 0;
    for (size_t i = 0; i < d->nm; i++)
        nsent += d->m[i].sent != 0;
    size_t nw = 4 + 2 * nsent + 1 + d->ndl;
    uint64_t *w = malloc(nw * sizeof *w);
    int rc = w ? 0 : HS_ENOMEM;
    if (w) {
        size_t k = 0;
        w[k++] = (uint64_t)(int64_t)d->error;
        w[k++] = d->cls[0].win_delivered;
        w[k++] = d->cls[1].win_delivered;
        w[k++] = nsent;
        for (size_t i = 0; i < d->nm; i++)
            if (d->m[i].sent) {
                w[k++] = i;
                w[k++] = d->m[i].sent;
            }
        w[k++] = d->ndl / 2;
        memcpy(w + k, d->dl, d->ndl * sizeof *w);
    }
    const void *in;
    size_t inlen;
    int grc = gather0(F, tr, w, w ? nw * sizeof *w : 0, &in, &inlen);
    rc = rc ? rc : grc;
    if (me != 0 || rc) {
        free(w);
        return rc;
    }
    /* part 0: its own deliveries, then the others' (order does not matter:
     * the latencies are sorted) */
    const unsigned char *p = in, *end = p + inlen;
    while (!rc && p < end) {
        uint64_t len;
        if ((size_t)(end - p) < 8) {
            rc = HS_EFORMAT;
            break;
        }
        memcpy(&len, p, 8);
        p += 8;
        if ((size_t)(end - p) < len || len % 8 || len < 5 * 8) {
            rc = HS_EFORMAT;
            break;
        }
        size_t n = len / 8, k = 0;
        uint64_t *x = malloc(len);
        if (!x) {
            rc = HS_ENOMEM;
            break;
        }
        memcpy(x, p, len);
        p += len;
        if ((int64_t)x[k] < 0)
            rc = (int)(int64_t)x[k];
        k++;
        d->cls[0].win_delivered += x[k++];
        d->cls[1].win_delivered += x[k++];
        uint64_t ns = x[k++];
        for (uint64_t i = 0; !rc && i < ns; i++, k += 2) {
            if (k + 2 > n || x[k] >= d->nm) {
                rc = HS_EFORMAT;
                break;
            }
            d->m[x[k]].sent = x[k + 1];
        }
        if (!rc && k < n) {
            uint64_t nd = x[k++];
            if (k + 2 * nd != n) {
                rc = HS_EFORMAT;
            } else {
                /* appended to part 0's own list */
                size_t need = d->ndl + 2 * nd;
                if (need > d->capdl) {
                    uint64_t *nb = realloc(d->dl, need * sizeof *nb);
                    if (!nb)
                        rc = HS_ENOMEM;
                    else {
                        d->dl = nb;
                        d->capdl = need;
                    }
                }
                if (!rc) {
                    memcpy(d->dl + d->ndl, x + k, 2 * nd * sizeof *x);
                    d->ndl = need;
                }
            }
        } else if (!rc) {
            rc = HS_EFORMAT;
        }
        free(x);
    }
    free(w);
    for (size_t i = 0; !rc && i < d->ndl; i += 2) {
        if (d->dl[i] >= d->nm)
            return HS_EFORMAT;
        add_latency(d, F, d->dl[i], d->dl[i + 1]);
    }
    return rc ? rc : d->error;
}

static int traffic_run(hs_fabric *F, const hs_traffic_cfg *cin, hs_traffic_result *r,
                       const hs_fabric_transport *tr, hs_error *err);

int hs_traffic_run(hs_fabric *F, const hs_traffic_cfg *cin, hs_traffic_result *r,
                   hs_error *err)
{
    return traffic_run(F, cin, r, NULL, err);
}

int hs_traffic_run_parallel(hs_fabric *F, const hs_traffic_cfg *cin, hs_traffic_result *r,
                            const hs_fabric_transport *tr, hs_error *err)
{
    memset(r, 0, sizeof *r);
    if (!cin->packets)
        return hs_error_set(err, HS_ENOTSUP, "a parallel run of synthetic traffic needs "
                            "--packets N (the duration mode stops at the last measured "
                            "delivery, a condition over all processes)");
    if (hs_fabric_nparts(F) > 1 && hs_fabric_lookahead(F) == HS_TIME_NEVER)
        return hs_error_set(err, HS_ENOTSUP, "no link is cut between the parts");
    return traffic_run(F, cin, r, tr, err);
}

/* A parallel run: the partition balanced by the load the pattern puts on
 * each node: its own rate out, and in, the rates of the sources whose
 * destinations it is, from 8 draws of dest() per source on a copy of the
 * driver (its random state copied: the run's draws are untouched).  Every
 * process computes the same loads. */
static int balance(driver *d)
{
    uint32_t N = d->N;
    double *load = calloc(N ? N : 1, sizeof *load);
    if (!load)
        return HS_ENOMEM;
    driver c = *d;
    for (uint32_t n = 0; n < N; n++) {
        if (!(d->gap[n] > 0))
            continue;
        double r = 1.0 / d->gap[n];
        load[n] += r;
        for (int k = 0; k < 8; k++)
            load[dest(&c, n)] += r / 8;
    }
    int rc = hs_fabric_partition_balance(d->F, load);
    free(load);
    return rc;
}

static int traffic_run(hs_fabric *F, const hs_traffic_cfg *cin, hs_traffic_result *r,
                       const hs_fabric_transport *tr, hs_error *err)
{
    memset(r, 0, sizeof *r);
    hs_traffic_cfg c = *cin;
    if (c.size == 0)
        c.size = F->prm.mtu;
    if (!(c.load > 0) || c.load > 1.0)
        return hs_error_set(err, HS_EINVAL, "load %g: must be in (0, 1] (a fraction of the "
                            "injection bandwidth)", c.load);
    if (c.duration == 0)
        return hs_error_set(err, HS_EINVAL, "measurement duration must be positive");
    if (!(c.monitor >= 0) || c.monitor > 1)
        return hs_error_set(err, HS_EINVAL, "monitored fraction %g: must be in [0, 1]", c.monitor);
    if (c.warmup == HS_TIME_NEVER)
        c.warmup = c.duration / 4;
    if (c.drain_max == 0) {
        c.drain_max = 10 * c.duration;
        if (c.drain_max < 100 * HS_PS_PER_US)
            c.drain_max = 100 * HS_PS_PER_US;
    }
    hs_fabric_set_monitoring(F, c.monitor);
    driver d;
    memset(&d, 0, sizeof d);
    d.F = F;
    d.c = &c;
    d.N = F->N;
    d.par = tr != NULL;
    hs__seed(d.rng, c.seed ^ 0x5f3759df9e3779b9ull);  /* a stream apart from the network's */
    d.gap = calloc(d.N, sizeof *d.gap);
    d.role = calloc(d.N, 1);
    int rc = 0;
    if (!d.gap || !d.role) {
        rc = HS_ENOMEM;
        goto out;
    }
    rc = setup(&d, err);
    if (rc)
        goto out;
    if (tr && hs_fabric_nparts(F) > 1 && (rc = balance(&d)))
        goto out;
    uint32_t active = 0;
    for (uint32_t n = 0; n < d.N; n++)
        active += d.role[n] == 1;
    if (active == 0) {
        rc = hs_error_set(err, HS_EINVAL, "the pattern leaves no node sending");
        goto out;
    }
    hs_time t0 = hs_fabric_now(F);
    if (c.packets) {
        d.limit = c.packets;
        d.w0 = t0;
        d.w1 = HS_TIME_NEVER;
    } else {
        d.w0 = t0 + c.warmup;
        d.w1 = d.w0 + c.duration;
    }
    d.generating = 1;
    hs_fabric_callbacks cb = { on_sent, on_delivered, on_timer };
    hs_fabric_set_callbacks(F, &cb, &d);
    if (c.periodic) {
        /* each source its own clock, at a random phase */
        for (uint32_t n = 0; n < d.N && !rc; n++)
            if (d.gap[n] > 0)
                rc = hs_fabric_timer(F, t0 + (hs_time)(drand01(&d) * d.gap[n]), n);
    } else {
        for (int k = 0; k < 2 && !rc; k++) {
            d.members[k] = malloc((size_t)d.N * sizeof *d.members[k]);
            if (!d.members[k])
                rc = HS_ENOMEM;
        }
        for (uint32_t n = 0; n < d.N && !rc; n++)
            if (d.gap[n] > 0) {
                int k = d.role[n] == 2;
                d.members[k][d.nmembers[k]++] = n;
                d.rate[k] += 1.0 / d.gap[n];  /* equal within a class */
            }
        if (!rc)
            rc = hs_fabric_timer(F, t0 + merged_gap(&d), TIMER_MERGED);
    }
    if (!rc && !c.packets) {
        rc = hs_fabric_timer(F, d.w1, TIMER_WINDOW_END);
        if (!rc)
            rc = hs_fabric_timer(F, d.w1 + c.drain_max, TIMER_GIVE_UP);
    }
    /* packets mode: runs until the network drains; duration mode: until
     * the measured messages are delivered or the drain limit */
    int frc;
    if (!tr) {
        frc = rc ? 0 : hs_fabric_run(F, HS_TIME_NEVER);
    } else {
        /* every process goes through the same collective steps, failed
         * or not (a failure is passed on through them) */
        frc = hs_fabric_run_parallel(F, tr);
        int grc = hs_fabric_gather_results(F, tr);
        if (!rc && frc < 0 && frc != HS_EDEADLOCK)
            rc = frc;
        if (!rc)
            rc = grc;
        int trc = gather_traffic(&d, tr);
        if (!rc)
            rc = trc;
        if (!rc && hs_fabric_part(F) != 0)
            goto out;   /* part 0 reports */
    }
    d.generating = 0;
    if (!rc && d.error)
        rc = d.error;
    if (!rc && frc < 0 && frc != HS_EDEADLOCK)
        rc = frc;
    r->status = frc == HS_EDEADLOCK ? HS_EDEADLOCK : 0;
    if (rc)
        goto out;
    hs_time w0 = d.w0, w1 = c.packets ? d.last_gen + 1 : d.w1;
    double secs = (double)(w1 - w0) / (double)HS_PS_PER_S;
    for (int k = 0; k < 2; k++) {
        lats *lc = &d.cls[k];
        double cap = 0;
        for (uint32_t n = 0; n < d.N; n++)
            if (d.role[n] == 1 + k)
                cap += (double)F->lk[hs_topo_node_injection(F->topo, n)].bw;
        if (cap == 0)
            continue;
        double offered = (double)lc->win_generated * (double)d.wire / (cap * secs);
        double accepted = (double)lc->win_delivered * (double)d.wire / (cap * secs);
        double abps = (double)lc->win_delivered * (double)c.size / secs;
        if (c.packets) {
            offered = k ? c.bg_load : c.load;
            accepted = (double)lc->n * (double)d.wire / (cap * secs);
            abps = (double)lc->n * (double)c.size / secs;
        }
        if (lc->n && (sort_times(lc->lat, lc->n) || sort_times(lc->net, lc->n))) {
            rc = HS_ENOMEM;
            goto out;
        }
        double sum = 0, sumn = 0;
        for (size_t i = 0; i < lc->n; i++) {
            sum += (double)lc->lat[i];
            sumn += (double)lc->net[i];
        }
        hs_time mean = lc->n ? (hs_time)(sum / (double)lc->n + 0.5) : 0;
        if (k == 0) {
            r->offered = offered;
            r->accepted = accepted;
            r->accepted_bps = abps;
            r->measured = lc->measured;
            r->unfinished = lc->outstanding;
            if (lc->n) {
                r->lat_min = lc->lat[0];
                r->lat_max = lc->lat[lc->n - 1];
                r->lat_mean = mean;
                r->lat_p50 = pct(lc->lat, lc->n, 0.50);
                r->lat_p90 = pct(lc->lat, lc->n, 0.90);
                r->lat_p99 = pct(lc->lat, lc->n, 0.99);
                r->lat_p999 = pct(lc->lat, lc->n, 0.999);
                r->net_mean = (hs_time)(sumn / (double)lc->n + 0.5);
                r->net_p50 = pct(lc->net, lc->n, 0.50);
                r->net_p99 = pct(lc->net, lc->n, 0.99);
            }
        } else {
            r->bg_offered = offered;
            r->bg_accepted = accepted;
            r->bg_measured = lc->measured;
            r->bg_unfinished = lc->outstanding;
            if (lc->n) {
                r->bg_lat_mean = mean;
                r->bg_lat_p50 = pct(lc->lat, lc->n, 0.50);
                r->bg_lat_p99 = pct(lc->lat, lc->n, 0.99);
            }
        }
    }
    r->end = hs_fabric_now(F);
out:
    hs_fabric_set_callbacks(F, NULL, NULL);
    free(d.gap);
    free(d.role);
    free(d.m);
    free(d.members[0]);
    free(d.members[1]);
    free(d.dl);
    for (int k = 0; k < 2; k++) {
        free(d.cls[k].lat);
        free(d.cls[k].net);
    }
    return rc;
}

void hs_traffic_json(hs_json *w, const hs_traffic_cfg *c, const hs_traffic_result *r)
{
    static const char *names[] = { "?", "uniform", "shift", "transpose", "bitcomp",
                                   "hotspot", "incast", "groupshift" };
    hs_json_key(w, "traffic");
    hs_json_obj_begin(w);
    hs_json_key(w, "pattern");
    hs_json_str(w, names[c->pattern <= HS_PAT_GROUPSHIFT ? c->pattern : 0]);
    if (c->pattern == HS_PAT_SHIFT || c->pattern == HS_PAT_GROUPSHIFT) {
        hs_json_key(w, "shift");
        hs_json_int(w, c->shift);
    }
    if (c->pattern == HS_PAT_HOTSPOT || c->pattern == HS_PAT_INCAST) {
        hs_json_key(w, "target");
        hs_json_uint(w, c->target);
    }
    if (c->pattern == HS_PAT_HOTSPOT) {
        hs_json_key(w, "frac");
        hs_json_num(w, c->frac);
    }
    if (c->pattern == HS_PAT_INCAST) {
        hs_json_key(w, "senders");
        hs_json_uint(w, c->nsender_list ? c->nsender_list : c->senders);
        hs_json_key(w, "bg_load");
        hs_json_num(w, c->bg_load);
    }
    hs_json_key(w, "load");
    hs_json_num(w, c->load);
    hs_json_key(w, "size");
    hs_json_uint(w, c->size);
    hs_json_key(w, "monitored_fraction");
    hs_json_num(w, c->monitor);
    hs_json_key(w, "arrivals");
    hs_json_str(w, c->periodic ? "periodic" : "poisson");
    hs_json_key(w, "warmup_ps");
    hs_json_uint(w, c->warmup == HS_TIME_NEVER ? c->duration / 4 : c->warmup);
    hs_json_key(w, "duration_ps");
    hs_json_uint(w, c->duration);
    hs_json_key(w, "packets");
    hs_json_uint(w, c->packets);
    hs_json_key(w, "seed");
    hs_json_uint(w, c->seed);
    hs_json_key(w, "offered");
    hs_json_num(w, r->offered);
    hs_json_key(w, "accepted");
    hs_json_num(w, r->accepted);
    hs_json_key(w, "accepted_Bps");
    hs_json_num(w, r->accepted_bps);
    hs_json_key(w, "measured");
    hs_json_uint(w, r->measured);
    hs_json_key(w, "unfinished");
    hs_json_uint(w, r->unfinished);
    hs_json_key(w, "latency_ps");
    hs_json_obj_begin(w);
    hs_json_key(w, "min"); hs_json_uint(w, r->lat_min);
    hs_json_key(w, "mean"); hs_json_uint(w, r->lat_mean);
    hs_json_key(w, "p50"); hs_json_uint(w, r->lat_p50);
    hs_json_key(w, "p90"); hs_json_uint(w, r->lat_p90);
    hs_json_key(w, "p99"); hs_json_uint(w, r->lat_p99);
    hs_json_key(w, "p999"); hs_json_uint(w, r->lat_p999);
    hs_json_key(w, "max"); hs_json_uint(w, r->lat_max);
    hs_json_obj_end(w);
    hs_json_key(w, "network_latency_ps");
    hs_json_obj_begin(w);
    hs_json_key(w, "mean"); hs_json_uint(w, r->net_mean);
    hs_json_key(w, "p50"); hs_json_uint(w, r->net_p50);
    hs_json_key(w, "p99"); hs_json_uint(w, r->net_p99);
    hs_json_obj_end(w);
    if (c->pattern == HS_PAT_INCAST && c->bg_load > 0) {
        hs_json_key(w, "background");
        hs_json_obj_begin(w);
        hs_json_key(w, "offered"); hs_json_num(w, r->bg_offered);
        hs_json_key(w, "accepted"); hs_json_num(w, r->bg_accepted);
        hs_json_key(w, "measured"); hs_json_uint(w, r->bg_measured);
        hs_json_key(w, "unfinished"); hs_json_uint(w, r->bg_unfinished);
        hs_json_key(w, "latency_ps");
        hs_json_obj_begin(w);
        hs_json_key(w, "mean"); hs_json_uint(w, r->bg_lat_mean);
        hs_json_key(w, "p50"); hs_json_uint(w, r->bg_lat_p50);
        hs_json_key(w, "p99"); hs_json_uint(w, r->bg_lat_p99);
        hs_json_obj_end(w);
        hs_json_obj_end(w);
    }
    hs_json_key(w, "status");
    hs_json_str(w, r->status == HS_EDEADLOCK ? "deadlock" : "ok");
    hs_json_obj_end(w);
}
