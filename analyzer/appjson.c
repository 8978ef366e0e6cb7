/* RUN/app.json reader: what the MPI replay knows about the application
 * (ranks and their nodes, phases, times, latencies, the communication
 * matrix, background jobs).  Contract: docs/formats.md, "app.json"
 * (version 1).  Synthetic runs have none; then the analyzer works without
 * ranks, mapping or phase times.  Unknown keys are ignored (later versions
 * may add keys); known keys of the wrong type or out of range are errors
 * naming the file, the offset and the key. */
#include "an.h"

#include <stdlib.h>
#include <string.h>

#define APP_MAX_BYTES ((size_t)1 << 31)

typedef struct actx {
    const hs_jdoc *d;
    const char *file;
    hs_error *err;
    int rc;
} actx;

static int afail(actx *a, const hs_jv *at, const char *what, const char *why)
{
    if (!a->rc)
        a->rc = hs_error_set(a->err, HS_EFORMAT, "%s: offset %zu: %s: %s", a->file,
                             hs_jv_offset(at), what, why);
    return a->rc;
}

static const hs_jv *get(actx *a, const hs_jv *o, const char *key, hs_jv_type t, int required)
{
    if (a->rc)
        return NULL;
    const hs_jv *v = hs_jv_get(a->d, o, key);
    if (!v) {
        if (required)
            afail(a, o, key, "missing");
        return NULL;
    }
    if (hs_jv_kind(v) == HS_JV_NULL && !required)
        return NULL;
    if (hs_jv_kind(v) != t) {
        static const char *names[] = { "", "null", "a boolean", "a number", "a string",
                                       "an array", "an object" };
        char why[64];
        snprintf(why, sizeof why, "expected %s", names[t]);
        afail(a, v, key, why);
        return NULL;
    }
    return v;
}

static uint64_t get_u64(actx *a, const hs_jv *o, const char *key, int required, uint64_t max)
{
    const hs_jv *v = get(a, o, key, HS_JV_NUM, required);
    uint64_t u = 0;
    if (v && (hs_jv_u64(v, &u) || u > max)) {
        char why[64];
        snprintf(why, sizeof why, "expected an integer in 0..%llu", (unsigned long long)max);
        afail(a, v, key, why);
        return 0;
    }
    return u;
}

/* Times and latencies: an integer, or a non-negative number rounded to
 * whole picoseconds (a mean need not be whole). */
static uint64_t get_ps(actx *a, const hs_jv *o, const char *key, int required)
{
    const hs_jv *v = get(a, o, key, HS_JV_NUM, required);
    uint64_t u = 0;
    double x;
    if (!v)
        return 0;
    if (hs_jv_u64(v, &u) == 0)
        return u;
    if (hs_jv_double(v, &x) || !(x >= 0 && x < 1.8e19)) {
        afail(a, v, key, "expected a non-negative time in picoseconds");
        return 0;
    }
    return (uint64_t)(x + 0.5);
}

static char *get_str(actx *a, const hs_jv *o, const char *key, int required)
{
    const hs_jv *v = get(a, o, key, HS_JV_STR, required);
    return v ? strdup(hs_jv_str(a->d, v)) : NULL;
}

void hs__an_app_free(hs__app *a)
{
    if (!a)
        return;
    free(a->trace);
    free(a->command);
    free(a->sim_command);
    free(a->map_policy);
    free(a->map_param);
    free(a->node_of_rank);
    for (uint32_t i = 0; i < a->nph; i++) {
        free(a->ph[i].name);
        free(a->ph[i].kind);
        free(a->ph[i].collective);
    }
    free(a->ph);
    free(a->per_rank_ps);
    free(a->comm);
    free(a->bg_spec);
    free(a->bg_nodes);
    free(a->replay_status);
    hs_jdoc_free(a->doc);
    free(a);
}

static void read_mapping(actx *c, hs__app *a, const hs_jv *root, uint32_t nodes)
{
    const hs_jv *m = get(c, root, "mapping", HS_JV_OBJ, 1);
    if (!m)
        return;
    a->map_policy = get_str(c, m, "policy", 1);
    const hs_jv *pv = hs_jv_get(c->d, m, "param");
    char buf[64];
    if (hs_jv_kind(pv) == HS_JV_STR) {
        a->map_param = strdup(hs_jv_str(c->d, pv));
    } else if (hs_jv_kind(pv) == HS_JV_NUM) {
        double x;
        hs_jv_double(pv, &x);
        snprintf(buf, sizeof buf, "%.17g", x);
        a->map_param = strdup(buf);
    }
    a->ranks_per_node = (uint32_t)get_u64(c, m, "ranks_per_node", 0, UINT32_MAX);
    const hs_jv *nr = get(c, m, "node_of_rank", HS_JV_ARR, 1);
    if (!nr)
        return;
    if (hs_jv_len(nr) != a->ranks) {
        afail(c, nr, "mapping.node_of_rank", "needs one entry per rank");
        return;
    }
    a->node_of_rank = malloc((a->ranks ? a->ranks : 1) * sizeof *a->node_of_rank);
    if (!a->node_of_rank) {
        c->rc = hs_error_set(c->err, HS_ENOMEM, "%s: out of memory", c->file);
        return;
    }
    for (uint32_t r = 0; r < a->ranks; r++) {
        const hs_jv *v = hs_jv_at(c->d, nr, r);
        uint64_t n;
        if (hs_jv_u64(v, &n) || n >= nodes) {
            char why[96];
            snprintf(why, sizeof why, "rank %u: expected a node index below %u", r, nodes);
            afail(c, v, "mapping.node_of_rank", why);
            return;
        }
        a->node_of_rank[r] = (uint32_t)n;
    }
}

static void read_phases(actx *c, hs__app *a, const hs_jv *root)
{
    const hs_jv *ps = get(c, root, "phases", HS_JV_ARR, 1);
    if (!ps)
        return;
    size_t n = hs_jv_len(ps);
    if (n > 65536) {
        afail(c, ps, "phases", "more than 65536 phases");
        return;
    }
    a->ph = calloc(n ? n : 1, sizeof *a->ph);
    if (!a->ph) {
        c->rc = hs_error_set(c->err, HS_ENOMEM, "%s: out of memory", c->file);
        return;
    }
    for (size_t i = 0; i < n && !c->rc; i++) {
        const hs_jv *p = hs_jv_at(c->d, ps, i);
        if (hs_jv_kind(p) != HS_JV_OBJ) {
            afail(c, p, "phases", "expected objects");
            return;
        }
        hs__app_phase *q = &a->ph[a->nph++];
        q->id = (uint32_t)get_u64(c, p, "id", 1, 65535);
        q->name = get_str(c, p, "name", 1);
        q->kind = get_str(c, p, "kind", 1);
        const hs_jv *tag = hs_jv_get(c->d, p, "tag");
        q->tag = -1;
        if (tag && hs_jv_kind(tag) != HS_JV_NULL) {
            int64_t t;
            if (hs_jv_i64(tag, &t))
                afail(c, tag, "tag", "expected an integer or null");
            q->tag = t < 0 ? -1 : t;
        }
        q->collective = get_str(c, p, "collective", 0);
        const hs_jv *app = get(c, p, "app", HS_JV_BOOL, 1);
        if (app)
            hs_jv_bool(app, &q->app);
        q->messages = get_u64(c, p, "messages", 0, UINT64_MAX);
        q->bytes = get_u64(c, p, "bytes", 0, UINT64_MAX);
        q->time_ps = get_ps(c, p, "time_ps", 0);
        for (uint32_t k = 0; k + 1 < a->nph && !c->rc; k++)
            if (a->ph[k].id == q->id)
                afail(c, p, "phases", "phase id listed twice");
    }
}

static void read_time(actx *c, hs__app *a, const hs_jv *root)
{
    const hs_jv *t = get(c, root, "time", HS_JV_OBJ, 0);
    if (!t)
        return;
    a->have_time = 1;
    a->total_ps = get_ps(c, t, "total_ps", 1);
    a->compute_ps = get_ps(c, t, "compute_ps", 0);
    a->comm_ps = get_ps(c, t, "comm_ps", 0);
    const hs_jv *pr = get(c, t, "per_rank_ps", HS_JV_ARR, 0);
    if (pr) {
        if (hs_jv_len(pr) != a->ranks) {
            afail(c, pr, "time.per_rank_ps", "needs one entry per rank");
            return;
        }
        a->per_rank_ps = malloc((a->ranks ? a->ranks : 1) * sizeof *a->per_rank_ps);
        if (!a->per_rank_ps) {
            c->rc = hs_error_set(c->err, HS_ENOMEM, "%s: out of memory", c->file);
            return;
        }
        for (uint32_t r = 0; r < a->ranks; r++) {
            const hs_jv *v = hs_jv_at(c->d, pr, r);
            double x;
            if (hs_jv_u64(v, &a->per_rank_ps[r]) == 0)
                continue;
            if (hs_jv_double(v, &x) || !(x >= 0 && x < 1.8e19)) {
                afail(c, v, "time.per_rank_ps", "expected times in picoseconds");
                return;
            }
            a->per_rank_ps[r] = (uint64_t)(x + 0.5);
        }
    }
}

static void read_comm(actx *c, hs__app *a, const hs_jv *root)
{
    const hs_jv *cm = get(c, root, "comm", HS_JV_ARR, 0);
    if (!cm)
        return;
    size_t n = hs_jv_len(cm);
    a->comm = malloc((n ? n : 1) * sizeof *a->comm);
    if (!a->comm) {
        c->rc = hs_error_set(c->err, HS_ENOMEM, "%s: out of memory", c->file);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const hs_jv *e = hs_jv_at(c->d, cm, i);
        uint64_t v[4];
        int bad = hs_jv_kind(e) != HS_JV_ARR || hs_jv_len(e) != 4;
        for (size_t k = 0; k < 4 && !bad; k++)
            bad = hs_jv_u64(hs_jv_at(c->d, e, k), &v[k]) != 0;
        if (bad || v[0] >= a->ranks || v[1] >= a->ranks) {
            afail(c, e, "comm", "expected [src_rank, dst_rank, bytes, messages] with ranks below "
                  "'ranks'");
            return;
        }
        a->comm[i].src = (uint32_t)v[0];
        a->comm[i].dst = (uint32_t)v[1];
        a->comm[i].bytes = v[2];
        a->comm[i].messages = v[3];
    }
    a->ncomm = n;
}

static void read_background(actx *c, hs__app *a, const hs_jv *root, uint32_t nodes)
{
    const hs_jv *b = get(c, root, "background", HS_JV_OBJ, 0);
    if (!b)
        return;
    a->have_background = 1;
    a->bg_spec = get_str(c, b, "spec", 0);
    const hs_jv *ns = get(c, b, "nodes", HS_JV_ARR, 0);
    if (!ns)
        return;
    size_t n = hs_jv_len(ns);
    a->bg_nodes = malloc((n ? n : 1) * sizeof *a->bg_nodes);
    if (!a->bg_nodes) {
        c->rc = hs_error_set(c->err, HS_ENOMEM, "%s: out of memory", c->file);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        if (hs_jv_u64(hs_jv_at(c->d, ns, i), &v) || v >= nodes) {
            afail(c, hs_jv_at(c->d, ns, i), "background.nodes", "expected node indices");
            return;
        }
        a->bg_nodes[i] = (uint32_t)v;
    }
    a->nbg_nodes = (uint32_t)n;
}

/* replay: whether the replay completed; other keys are the model's
 * parameters, re-read by nobody here. */
static void read_replay(actx *c, hs__app *a, const hs_jv *root)
{
    const hs_jv *r = get(c, root, "replay", HS_JV_OBJ, 0);
    if (!r)
        return;
    a->replay_status = get_str(c, r, "status", 0);
    a->unmatched_sends = get_u64(c, r, "unmatched_sends", 0, UINT64_MAX);
    a->unmatched_recvs = get_u64(c, r, "unmatched_recvs", 0, UINT64_MAX);
    if (hs_jv_get(c->d, r, "nic_queue_max")) {   /* a later addition: optional */
        a->have_nicq = 1;
        a->nicq = get_u64(c, r, "nic_queue_max", 0, UINT32_MAX);
    }
}

int hs__an_app_read(const char *dir, uint32_t nodes, hs__app **out, hs_error *err)
{
    *out = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/app.json", dir);
    hs_jdoc *d;
    int rc = hs_jdoc_load(path, APP_MAX_BYTES, &d, err);
    if (rc == HS_ENOENT) {
        hs_error_clear(err);
        return 0;
    }
    if (rc)
        return rc;
    hs__app *a = calloc(1, sizeof *a);
    if (!a) {
        hs_jdoc_free(d);
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    }
    a->doc = d;
    actx c = { d, path, err, 0 };
    const hs_jv *root = hs_jdoc_root(d);
    if (hs_jv_kind(root) != HS_JV_OBJ)
        afail(&c, root, "app.json", "expected an object");
    const hs_jv *fmt = get(&c, root, "format", HS_JV_STR, 1);
    if (fmt && strcmp(hs_jv_str(d, fmt), "hopscope-app") != 0)
        afail(&c, fmt, "format", "expected \"hopscope-app\"");
    uint64_t ver = get_u64(&c, root, "version", 1, UINT32_MAX);
    if (!c.rc && ver != 1)
        c.rc = hs_error_set(err, HS_EVERSION, "%s: offset %zu: version %llu, this reader knows "
                            "version 1", path, hs_jv_offset(hs_jv_get(d, root, "version")),
                            (unsigned long long)ver);
    a->trace = get_str(&c, root, "trace", 0);
    a->command = get_str(&c, root, "command", 0);
    a->sim_command = get_str(&c, root, "simulate_command", 0);
    a->ranks = (uint32_t)get_u64(&c, root, "ranks", 1, 1u << 30);
    if (!c.rc && a->ranks == 0)
        afail(&c, root, "ranks", "must be positive");
    read_mapping(&c, a, root, nodes);
    read_phases(&c, a, root);
    read_time(&c, a, root);
    const hs_jv *lat = get(&c, root, "latency", HS_JV_OBJ, 0);
    if (lat) {
        a->have_latency = 1;
        a->latency = lat;
        a->lat_messages = get_u64(&c, lat, "messages", 0, UINT64_MAX);
        a->lat_p50 = get_ps(&c, lat, "p50_ps", 0);
        a->lat_p99 = get_ps(&c, lat, "p99_ps", 0);
        a->lat_mean = get_ps(&c, lat, "mean_ps", 0);
    }
    read_comm(&c, a, root);
    read_background(&c, a, root, nodes);
    read_replay(&c, a, root);
    const hs_jv *ci = hs_jv_get(d, root, "congestion_impact");
    if (ci && hs_jv_kind(ci) != HS_JV_NULL)
        a->congestion_impact = ci;
    if (c.rc) {
        hs__an_app_free(a);
        return c.rc;
    }
    *out = a;
    return 0;
}
