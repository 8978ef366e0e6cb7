/* Model-behaviour experiments for docs/validation.md (run by
 * examples/fabric/validate.sh, not by `make check`):
 *
 *   fabric_validate zero       zero-load latency: analytic vs simulated
 *   fabric_validate incast     congestion tree of an incast, victims of
 *                              head-of-line blocking, unbounded-buffer control
 *   fabric_validate converge   in-band estimates vs ground truth as the
 *                              number of packets grows
 *
 * Uses only the public API (hopscope/fabric.h, hopscope/hash.h). */
#include "hopscope/fabric.h"
#include "hopscope/hash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hs_fabric *make(const char *spec, const hs_fabric_params *p)
{
    hs_fabric *f;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_fabric_create(&f, spec, p, &e);
    if (rc) {
        fprintf(stderr, "%s: %s\n", spec, hs_error_str(&e, rc));
        exit(1);
    }
    return f;
}

/* The routed path from src to dst (first choice where several). */
static unsigned path_of(const hs_topo *t, uint32_t src, uint32_t dst, uint32_t *path)
{
    uint32_t link = hs_topo_node_injection(t, src);
    unsigned n = 0;
    for (;;) {
        path[n++] = link;
        const hs_link_info *l = hs_topo_link(t, link);
        if (l->to_kind == HS_DEV_NODE || n == 64)
            return n;
        uint32_t out[64];
        hs_topo_route_set(t, l->to, dst, out, 64);
        link = out[0];
    }
}

/* ---- zero-load latency ------------------------------------------------------ */

static hs_time delivered_at;
static void on_del(void *ctx, hs_fabric *f, uint64_t cookie, hs_time t)
{
    (void)ctx;
    (void)f;
    (void)cookie;
    delivered_at = t;
}

static int zero(void)
{
    static const char *specs[] = {
        "fattree:k=16,n=2", "fattree:down=8x8x16,up=1x8x8", "dragonfly:a=4,p=2,h=2,g=9",
        "dragonfly:a=16,p=8,h=8,g=129", "torus:8x8x8", "mesh:8x8",
    };
    printf("| topology | path (links) | analytic | simulated |\n|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        hs_fabric_params p;
        hs_fabric_params_default(&p);
        hs_fabric *f = make(specs[i], &p);
        const hs_topo *t = hs_fabric_topo(f);
        hs_fabric_callbacks cb = { NULL, on_del, NULL };
        hs_fabric_set_callbacks(f, &cb, NULL);
        uint32_t dst = hs_topo_nodes(t) - 1, path[64];
        unsigned n = path_of(t, 0, dst, path);
        hs_time lat = 0;
        for (unsigned k = 0; k < n; k++)
            lat += hs_topo_link(t, path[k])->lat;
        hs_time want = lat + (n - 1) * p.route_delay + hs_ser_time(4096, hs_topo_link(t, 1)->bw);
        hs_fabric_inject(f, 0, 0, dst, 4096, 0, 1, 0);
        hs_fabric_run(f, HS_TIME_NEVER);
        char a[32], b[32];
        printf("| `%s` | %u | %s | %s%s |\n", specs[i], n, hs_time_str(want, a, sizeof a),
               hs_time_str(delivered_at, b, sizeof b), delivered_at == want ? "" : " **differs**");
        hs_fabric_destroy(f);
    }
    return 0;
}

/* ---- incast ------------------------------------------------------------------ */

/* Per-link figures of one incast run. */
typedef struct inc_run {
    uint32_t L;
    double *stall, *busy, *cf;    /* fractions, [L+1] */
    uint8_t *dist;                /* hops upstream of the root along target paths, 255 = off */
    uint8_t *kind;                /* 0 inj, 1 ej, 2 up, 3 down */
    hs_traffic_result r;
} inc_run;

static const char *SPEC = "fattree:k=8,n=2";
static const uint32_t SENDERS[] = { 8, 16, 24, 32, 40, 48, 56 };

static void incast_run(int unbounded, inc_run *x)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.unbounded = unbounded;
    p.rx_rate = 12500000000ull;  /* the target's NIC: half the link rate */
    hs_fabric *f = make(SPEC, &p);
    const hs_topo *t = hs_fabric_topo(f);
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    hs_error e;
    /* one sender per other leaf, 0.1 each (0.7 of a link into a NIC that
     * takes 0.5); every other node but the target sends uniform traffic
     * (never to the target) at 0.3 */
    if (hs_traffic_parse("incast:target=0,list=8+16+24+32+40+48+56,bg=0.3", &c, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        exit(1);
    }
    c.load = 0.1;
    c.duration = 200 * HS_PS_PER_US;
    c.warmup = 20 * HS_PS_PER_US;
    if (hs_traffic_run(f, &c, &x->r, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        exit(1);
    }
    uint32_t L = x->L = hs_topo_links(t);
    x->stall = calloc(L + 1, sizeof *x->stall);
    x->busy = calloc(L + 1, sizeof *x->busy);
    x->cf = calloc(L + 1, sizeof *x->cf);
    x->dist = malloc(L + 1);
    x->kind = malloc(L + 1);
    memset(x->dist, 255, L + 1);
    for (size_t i = 0; i < sizeof SENDERS / sizeof SENDERS[0]; i++) {
        uint32_t path[64];
        unsigned n = path_of(t, SENDERS[i], 0, path);
        for (unsigned k = 0; k < n; k++)
            x->dist[path[k]] = (uint8_t)(n - 1 - k);
    }
    double T = (double)hs_fabric_now(f);
    for (uint32_t l = 1; l <= L; l++) {
        hs_link_truth lt;
        hs_fabric_truth(f, l, &lt);
        const hs_link_info *li = hs_topo_link(t, l);
        x->stall[l] = (double)lt.stall_ps / T;
        x->busy[l] = (double)lt.busy_ps / T;
        x->cf[l] = lt.packets ? (double)lt.congested / (double)lt.packets : 0;
        x->kind[l] = li->kind == HS_LINK_INJECTION ? 0 : li->kind == HS_LINK_EJECTION ? 1
                     : li->sub == HS_SUB_UP ? 2 : 3;
    }
    hs_fabric_destroy(f);
}

static void inc_free(inc_run *x)
{
    free(x->stall);
    free(x->busy);
    free(x->cf);
    free(x->dist);
    free(x->kind);
}

/* Mean stall, busy and congested fraction over the links matching a test. */
static void means(const inc_run *x, int dist, int kind, double *st, double *bu, double *cf,
                  unsigned *n, unsigned *stalled)
{
    *st = *bu = *cf = 0;
    *n = *stalled = 0;
    for (uint32_t l = 1; l <= x->L; l++) {
        if (dist >= 0 ? x->dist[l] != dist : x->dist[l] != 255)
            continue;
        if (kind >= 0 && x->kind[l] != kind)
            continue;
        *st += x->stall[l];
        *bu += x->busy[l];
        *cf += x->cf[l];
        ++*n;
        *stalled += x->stall[l] > 0.01;
    }
    if (*n) {
        *st /= *n;
        *bu /= *n;
        *cf /= *n;
    }
}

static int incast(void)
{
    inc_run fin, unb;
    incast_run(0, &fin);
    incast_run(1, &unb);
    static const char *tree[] = {
        "root: ejection l1s0 -> n0", "l2s0 -> l1s0 (down to the target's leaf)",
        "senders' leaves -> l2s0 (7 up-links)", "senders' injection links (7)",
    };
    printf("Links on the senders' paths to the target, by distance from the root "
           "(mean over the links; stall / busy / congested fraction):\n\n");
    printf("| hops from root | links | finite buffers | unbounded buffers |\n|---|---|---|---|\n");
    for (int d = 0; d < 4; d++) {
        double s1, b1, c1, s2, b2, c2;
        unsigned n1, k1, n2, k2;
        means(&fin, d, -1, &s1, &b1, &c1, &n1, &k1);
        means(&unb, d, -1, &s2, &b2, &c2, &n2, &k2);
        printf("| %d: %s | %u | %.0f%% / %.0f%% / %.0f%% | %.0f%% / %.0f%% / %.0f%% |\n", d, tree[d],
               n1, 100 * s1, 100 * b1, 100 * c1, 100 * s2, 100 * b2, 100 * c2);
    }
    static const char *kinds[] = { "injection", "ejection", "up", "down" };
    printf("\nLinks that carry **no** traffic to the target (victims if they stall):\n\n");
    printf("| kind | links | stall > 1%%, finite | mean stall, finite | stall > 1%%, unbounded "
           "| mean congested fraction, finite / unbounded |\n|---|---|---|---|---|---|\n");
    for (int k = 0; k < 4; k++) {
        double s1, b1, c1, s2, b2, c2;
        unsigned n1, k1, n2, k2;
        means(&fin, -1, k, &s1, &b1, &c1, &n1, &k1);
        means(&unb, -1, k, &s2, &b2, &c2, &n2, &k2);
        printf("| %s | %u | %u | %.1f%% | %u | %.0f%% / %.0f%% |\n", kinds[k], n1, k1, 100 * s1,
               k2, 100 * c1, 100 * c2);
    }
    char a[32], b[32], c[32], d[32];
    printf("\nThe background traffic (56 nodes, uniform, never to the target, offered 0.3):\n\n");
    printf("| | finite buffers | unbounded buffers |\n|---|---|---|\n");
    printf("| accepted | %.3f | %.3f |\n", fin.r.bg_accepted, unb.r.bg_accepted);
    printf("| latency p50 / p99 | %s / %s | %s / %s |\n",
           hs_time_str(fin.r.bg_lat_p50, a, sizeof a), hs_time_str(fin.r.bg_lat_p99, b, sizeof b),
           hs_time_str(unb.r.bg_lat_p50, c, sizeof c), hs_time_str(unb.r.bg_lat_p99, d, sizeof d));
    printf("| incast senders: accepted (offered %.2f) | %.3f | %.3f |\n", fin.r.offered,
           fin.r.accepted, unb.r.accepted);
    inc_free(&fin);
    inc_free(&unb);
    return 0;
}

/* ---- convergence of in-band estimates ---------------------------------------- */

static void converge_one(const char *spec, uint64_t packets, unsigned b, int exact)
{
    hs_fabric_params p;
    hs_fabric_params_default(&p);
    p.scheme.hash_bits = b;
    p.scheme.exact = exact;
    p.records = 0;
    hs_fabric *f = make(spec, &p);
    hs_traffic_cfg c;
    hs_traffic_cfg_default(&c);
    c.load = 0.5;
    c.packets = packets;
    hs_traffic_result r;
    hs_error e;
    if (hs_traffic_run(f, &c, &r, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        exit(1);
    }
    const hs_scheme *s = hs_fabric_scheme(f);
    const hs_counters *ct = hs_fabric_counters(f, 0);
    uint32_t L = hs_topo_links(hs_fabric_topo(f)), nout = 1u << s->k;
    hs_linksum *ls = calloc(nout, sizeof *ls);
    hs_totals tot;
    hs_decode_fast(ct, ls, nout, &tot);
    double e2 = 0, t2 = 0, ce2 = 0, c2 = 0, zt = 0, zc = 0;
    unsigned in3 = 0, nc = 0;
    for (uint32_t l = 1; l <= L; l++) {
        hs_estimate est;
        hs_estimate_from_sums(s, &ls[l], 0, &est);
        hs_link_truth lt;
        hs_fabric_truth(f, l, &lt);
        double dt = est.traffic - (double)lt.packets, dc = est.congested - (double)lt.congested;
        e2 += dt * dt;
        t2 += (double)lt.packets * (double)lt.packets;
        ce2 += dc * dc;
        c2 += (double)lt.congested * (double)lt.congested;
        double se = est.traffic_se > 0 ? est.traffic_se : 1;
        zt += fabs(dt) / se;
        in3 += fabs(dt) <= 3 * se;
        if (lt.congested > 0 || est.congested_se > 0) {
            double sc = est.congested_se > 0 ? est.congested_se : 1;
            zc += fabs(dc) / sc;
            nc++;
        }
    }
    printf("| %s | %llu | %.4f | %.4f | %.2f | %.2f | %.1f%% |\n",
           exact ? "exact" : (b == 1 ? "b=1" : b == 2 ? "b=2" : "b=8"),
           (unsigned long long)packets, sqrt(e2 / t2), c2 > 0 ? sqrt(ce2 / c2) : 0.0, zt / L,
           nc ? zc / nc : 0.0, 100.0 * in3 / L);
    free(ls);
    hs_fabric_destroy(f);
}

static int converge(void)
{
    const char *spec = "fattree:k=8,n=2,taper=2";
    printf("| field | packets | traffic error | congested error | mean abs z (traffic) | "
           "mean abs z (congested) | within 3 SE |\n|---|---|---|---|---|---|---|\n");
    for (uint64_t n = 1000; n <= 1000000; n *= 10)
        converge_one(spec, n, 1, 0);
    converge_one(spec, 1000000, 2, 0);
    converge_one(spec, 1000000, 8, 0);
    converge_one(spec, 1000000, 1, 1);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "zero") == 0)
        return zero();
    if (argc == 2 && strcmp(argv[1], "incast") == 0)
        return incast();
    if (argc == 2 && strcmp(argv[1], "converge") == 0)
        return converge();
    fprintf(stderr, "usage: fabric_validate zero|incast|converge\n");
    return 2;
}
