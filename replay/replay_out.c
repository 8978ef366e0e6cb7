/* What the replay reports: phases (ids, names, per-phase totals), message
 * latency distributions, the deadlock / leftover report, and RUN/app.json
 * (docs/formats.md, "app.json").
 *
 * Phase ids are dense in order of first appearance in simulated time: the
 * first message (or call) of each point-to-point tag, collective kind or
 * RMA kind creates its phase; each background job has one.  Past
 * max_tag_phases distinct tags, further tags share "other tags", so a code
 * that uses its rank as a tag cannot blow up the per-phase ground truth. */
#include "../common/sbuf.h"
#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rma_names[RMA_NKINDS] = {
    "rma put", "rma get", "rma accumulate", "rma get_accumulate", "rma sync",
};

static void phase_name(unsigned cls, int32_t value, const rp *R, char *buf, size_t n)
{
    switch (cls) {
    case PH_TAG: snprintf(buf, n, "tag %d", value); break;
    case PH_OTHER_TAGS: snprintf(buf, n, "other tags"); break;
    case PH_COLL: snprintf(buf, n, "%s", hs__coll_kind_name((hs__coll_kind)value)); break;
    case PH_RMA: snprintf(buf, n, "%s", value >= 0 && value < RMA_NKINDS ? rma_names[value] : "rma"); break;
    case PH_BG: snprintf(buf, n, "background %s", R->jobs[value].name); break;
    default: snprintf(buf, n, "phase"); break;
    }
}

uint16_t hs__rp_phase(rp *R, unsigned cls, int32_t value)
{
    uint64_t key = (uint64_t)cls << 40 | (uint32_t)value;
    uint64_t *v = hs__rp_map_get(&R->ph_map, key);
    if (!v) {
        R->error = HS_ENOMEM;
        return 0;
    }
    if (*v)
        return (uint16_t)(*v - 1);
    if ((cls == PH_TAG && R->ntagph >= R->prm->max_tag_phases) || R->nph >= 0xfff0) {
        uint16_t o = cls == PH_OTHER_TAGS ? 0 : hs__rp_phase(R, PH_OTHER_TAGS, 0);
        v = hs__rp_map_get(&R->ph_map, key);
        if (v)
            *v = (uint64_t)o + 1;
        return o;
    }
    if (hs__rp_grow((void **)&R->ph, &R->capph, (size_t)R->nph + 1, sizeof *R->ph)) {
        R->error = HS_ENOMEM;
        return 0;
    }
    uint16_t id = (uint16_t)R->nph++;
    rp_phase *p = &R->ph[id];
    memset(p, 0, sizeof *p);
    p->cls = (uint8_t)cls;
    p->value = value;
    if (cls == PH_TAG)
        R->ntagph++;
    char name[200];
    phase_name(cls, value, R, name, sizeof name);
    if (hs_fabric_phase_name(R->F, id, name))
        R->error = HS_ENOMEM;
    v = hs__rp_map_get(&R->ph_map, key);
    if (v)
        *v = (uint64_t)id + 1;
    return id;
}

/* ---- latency -------------------------------------------------------------------------- */

void hs__rp_lat_add(rp *R, hs_time lat, uint16_t phase)
{
    rp_lat *L = &R->lat;
    L->seen++;
    L->sum += lat;
    if (phase < R->nph) {
        R->ph[phase].lat_n++;
        R->ph[phase].lat_sum += lat;
    }
    if (L->n < L->limit) {
        if (L->n == L->cap) {
            size_t nc = L->cap ? 2 * L->cap : 65536;
            if (nc > L->limit)
                nc = L->limit;
            uint64_t *v = realloc(L->v, nc * sizeof *v);
            if (v)
                L->v = v;
            uint16_t *p = realloc(L->ph, nc * sizeof *p);
            if (p)
                L->ph = p;
            if (!v || !p) {
                R->error = HS_ENOMEM;
                return;
            }
            L->cap = nc;
        }
        L->v[L->n] = lat;
        L->ph[L->n] = phase;
        L->n++;
        return;
    }
    /* a uniform sample of all latencies seen (Vitter's algorithm R) */
    uint64_t j = hs__rand_below(L->rng, L->seen);
    if (j < L->limit) {
        L->v[j] = lat;
        L->ph[j] = phase;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t pct(const uint64_t *v, size_t n, double p)
{
    if (!n)
        return 0;
    double r = p / 100.0 * (double)n;
    size_t k = (size_t)r;
    if ((double)k < r)
        k++;
    if (k == 0)
        k = 1;
    return v[k - 1];
}

#define LAT_BASE_PS (64 * HS_PS_PER_NS)

hs_time hs_lat_edge(unsigned i)
{
    /* 64 ns * 2^(i / per_octave), rounded to whole picoseconds */
    return (hs_time)llround((double)LAT_BASE_PS * exp2((double)i / HS_LAT_PER_OCTAVE));
}

static unsigned lat_bucket(hs_time t)
{
    unsigned lo = 0, hi = HS_LAT_BUCKETS - 1; /* last bucket with edge <= t */
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (hs_lat_edge(mid) <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Statistics of phase `phase`, or of all application messages (-1). */
void hs__rp_lat_stats(rp *R, int phase, hs_replay_lat *out)
{
    memset(out, 0, sizeof *out);
    rp_lat *L = &R->lat;
    size_t n = 0;
    uint64_t *v = malloc((L->n ? L->n : 1) * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < L->n; i++)
        if (phase < 0 || L->ph[i] == phase)
            v[n++] = L->v[i];
    qsort(v, n, sizeof *v, cmp_u64);
    if (phase < 0) {
        out->messages = L->seen;
        out->mean = L->seen ? (hs_time)((L->sum + L->seen / 2) / L->seen) : 0;
    } else {
        const rp_phase *p = &R->ph[phase];
        out->messages = p->lat_n;
        out->mean = p->lat_n ? (hs_time)((p->lat_sum + p->lat_n / 2) / p->lat_n) : 0;
    }
    for (size_t i = 0; i < n; i++)
        out->hist[lat_bucket(v[i])]++;
    out->p50 = pct(v, n, 50);
    out->p99 = pct(v, n, 99);
    out->max = n ? v[n - 1] : 0;
    free(v);
}

static const char *phase_kind(const rp_phase *p)
{
    switch (p->cls) {
    case PH_TAG: case PH_OTHER_TAGS: return "p2p";
    case PH_COLL: return "collective";
    case PH_RMA: return p->value == RMA_SYNC ? "protocol" : "rma";
    default: return "background";
    }
}

void hs__rp_phases_result(rp *R, hs_replay_result *res)
{
    res->phases = calloc(R->nph ? R->nph : 1, sizeof *res->phases);
    if (!res->phases)
        return;
    res->nphases = R->nph;
    for (uint32_t i = 0; i < R->nph; i++) {
        const rp_phase *p = &R->ph[i];
        hs_replay_phase *o = &res->phases[i];
        o->id = (uint16_t)i;
        phase_name(p->cls, p->value, R, o->name, sizeof o->name);
        snprintf(o->kind, sizeof o->kind, "%s", phase_kind(p));
        o->app = p->cls != PH_BG;
        o->messages = p->messages;
        o->bytes = p->bytes;
        o->time = p->time_ps;
        if (p->lat_n)
            hs__rp_lat_stats(R, (int)i, &o->lat);
    }
}

/* ---- report ------------------------------------------------------------------------------ */

#define REPORT_ITEMS 8

static const char *op_name(const rp_op *o)
{
    const char *k = hs_trace_kind_name(o->kind);
    return k ? k : "call";
}

static void describe_op(rp *R, hs__sbuf *b, const rp_actor *A, const rp_op *o)
{
    const rp_rank *K = &R->ranks[A->rank];
    hs__sb_printf(b, "  rank %u", K->jrank);
    if (R->ranks[A->rank].nactors > 1)
        hs__sb_printf(b, " (thread %u)", A->thread);
    hs__sb_printf(b, ": MPI_%s (event %u of the rank)", op_name(o), o->ev);
    switch (o->code) {
    case OP_SEND: case OP_RECV: case OP_PROBE:
        hs__sb_printf(b, " %s rank %d, tag %d, %llu bytes", o->code == OP_SEND ? "to" : "from",
                  o->peer, o->tag, (unsigned long long)o->bytes);
        break;
    case OP_SENDRECV:
        hs__sb_printf(b, " to rank %d tag %d, from rank %d tag %d", o->peer, o->tag, o->peer2, o->tag2);
        break;
    case OP_WAIT: {
        uint32_t pend = 0;
        for (uint32_t i = 0; i < o->naux; i++)
            pend += R->req[K->req0 + (uint32_t)R->aux[o->aux + i]].pending != 0;
        if (R->par && !hs_fabric_node_local(R->F, K->node))   /* another process's requests */
            hs__sb_printf(b, " on %u request%s", o->naux, o->naux == 1 ? "" : "s");
        else
            hs__sb_printf(b, " on %u request%s, %u not complete", o->naux,
                          o->naux == 1 ? "" : "s", pend);
        break;
    }
    case OP_COLL:
        hs__sb_printf(b, " on a communicator of %u ranks", R->comms[o->comm].n);
        break;
    default:
        if (o->peer >= 0 && o->code >= OP_RMA)
            hs__sb_printf(b, " target rank %d", o->peer);
        break;
    }
    hs__sb_printf(b, "\n");
}

/* What a rank blocked in a stall waits for (the first few): its receives
 * whose message has not arrived (sent or not yet), its matched messages not
 * received, and its sends not complete, with where each stands, as each
 * side's record knows it.  Messages that arrived before their receive was
 * posted are not waited for and not listed. */
static void waits_for(rp *R, hs__sbuf *b, uint32_t rank, const uint8_t *isfree)
{
    char t[32];
    unsigned shown = 0, more = 0;
    for (size_t i = 0; i < R->capmt; i++) {
        const rp_ment *e = &R->mt[i];
        if (e->dst != rank)
            continue;
        for (uint32_t r = e->rhead; r != RP_NIL; r = R->rcv[r].next) {
            if (shown >= 3) {
                more++;
                continue;
            }
            shown++;
            hs__sb_printf(b, "      receive from rank %u, tag %lld (posted at %s): %s\n",
                      R->ranks[e->src].jrank, (long long)e->tag,
                      hs_time_str(R->rcv[r].t_post, t, sizeof t),
                      R->rcv[r].seq < e->sseq ? "its message is on its way"
                                              : "no message sent yet");
        }
    }
    for (size_t m = 0; m < R->capmsg; m++) {
        if (isfree[m])
            continue;
        const rp_msg *M = &R->msg[m];
        if (!(M->flags & M_APP))
            continue;
        int rside = (M->flags & M_RSIDE) != 0;
        int recv = rside && M->dst == rank && (M->flags & M_MATCHED) && !(M->flags & M_DONE);
        int send = !rside && M->src == rank && M->type != TGT_NONE;
        if (!recv && !send)
            continue;
        if (shown >= 3) {
            more++;
            continue;
        }
        shown++;
        const char *where =
            recv ? ((M->flags & M_RNDV) ? "matched; CTS or data in the network"
                                        : "arrived; being copied")
            : (M->flags & M_RNDV) ? (M->peer == RP_NIL ? "RTS sent, CTS not back yet"
                                                       : "its data are in the network")
            : (M->flags & M_SYNC) && (M->flags & M_SENT) ? "sent; acknowledgement not back yet"
                                                           : "its data are in the network";
        hs__sb_printf(b, "      %s rank %u, tag %lld, %llu bytes: %s (leg posted at %s)\n",
                  recv ? "message from" : "message to", R->ranks[recv ? M->src : M->dst].jrank,
                  (long long)M->tag, (unsigned long long)M->bytes, where,
                  hs_time_str(M->t_leg, t, sizeof t));
    }
    if (more)
        hs__sb_printf(b, "      ... and %u more\n", more);
}

static int is_app_rank(const rp *R, uint32_t g)
{
    return R->jobs[R->ranks[g].job].app;
}

static void unmatched_send(rp *R, hs__sbuf *bs, unsigned *ls, const rp_ment *e, uint64_t bytes,
                           int in)
{
    char sz[48];
    if (in)
        snprintf(sz, sizeof sz, "%llu bytes", (unsigned long long)bytes);
    else
        snprintf(sz, sizeof sz, "a message (on its way when the run stopped)");
    if ((*ls)++ < REPORT_ITEMS && e->tag >= 0)
        hs__sb_printf(bs, "  rank %u sent %s to rank %u with tag %lld: never received\n",
                  R->ranks[e->src].jrank, sz, R->ranks[e->dst].jrank, (long long)e->tag);
    else if (*ls <= REPORT_ITEMS)
        hs__sb_printf(bs, "  rank %u sent %s to rank %u inside a collective or an RMA epoch: "
                  "never received\n", R->ranks[e->src].jrank, sz, R->ranks[e->dst].jrank);
}

void hs__rp_report(rp *R, hs_replay_result *res)
{
    hs__sbuf b = { NULL, 0, 0 };
    char t[32];
    /* leftovers in the matching table */
    uint64_t us = 0, ur = 0;
    unsigned ls = 0, lr = 0;
    hs__sbuf bs = { NULL, 0, 0 }, br = { NULL, 0, 0 };
    /* a parallel run's leftovers are counted at the receivers and
     * gathered (replay_par.c); a run with any is refused there */
    for (size_t i = 0; i < R->capmt && !R->par; i++) {
        const rp_ment *e = &R->mt[i];
        if (e->dst == RP_NIL || !is_app_rank(R, e->dst))
            continue;
        /* messages issued without a receive: arrived, then on their way
         * (the run stopped early; only their sender knew their size) */
        uint32_t na = 0;
        for (uint32_t m = e->ahead; m != RP_NIL; m = R->msg[m].next, na++) {
            us++;
            unmatched_send(R, &bs, &ls, e, R->msg[m].bytes, 1);
        }
        for (uint32_t k = na; e->sseq > e->rseq && k < e->sseq - e->rseq; k++) {
            us++;
            unmatched_send(R, &bs, &ls, e, 0, 0);
        }
        for (uint32_t r = e->rhead; r != RP_NIL; r = R->rcv[r].next) {
            if (R->rcv[r].seq < e->sseq)   /* matched: its message is on its way */
                continue;
            ur++;
            if (lr++ < REPORT_ITEMS)
                hs__sb_printf(&br, "  rank %u posted a receive from rank %u, tag %lld at %s: "
                          "no such message\n", R->ranks[e->dst].jrank, R->ranks[e->src].jrank,
                          (long long)e->tag, hs_time_str(R->rcv[r].t_post, t, sizeof t));
        }
    }
    res->unmatched_sends = us;
    res->unmatched_recvs = ur;
    res->unresolved = R->unresolved;
    if (R->deadlock) {
        uint32_t blocked = 0, shown = 0;
        for (uint32_t a = 0; a < R->nactors; a++)
            blocked += R->actors[a].app && R->actors[a].state != A_DONE;
        hs__sb_printf(&b, "deadlock at %s: %u of %u application ranks/threads cannot go on\n",
                  hs_time_str(R->t_end, t, sizeof t), blocked, R->app_actors);
        for (uint32_t a = 0; a < R->nactors && shown < REPORT_ITEMS; a++) {
            const rp_actor *A = &R->actors[a];
            if (!A->app || A->state == A_DONE)
                continue;
            describe_op(R, &b, A, &R->ops[A->pc]);
            shown++;
        }
        if (blocked > shown)
            hs__sb_printf(&b, "  ... and %u more\n", blocked - shown);
    }
    if (R->stalled) {
        uint32_t blocked = 0, shown = 0;
        for (uint32_t a = 0; a < R->nactors; a++)
            blocked += R->actors[a].app && R->actors[a].state != A_DONE;
        char t2[32], t3[32], t4[32];
        hs__sb_printf(&b, "stalled at %s: the application made no progress for %s (since %s; "
                  "watchdog %s, --watchdog) while only the background ran; %u of %u "
                  "application ranks/threads wait:\n", hs_time_str(R->t_end, t, sizeof t),
                  hs_time_str(R->t_end - R->t_stall, t2, sizeof t2),
                  hs_time_str(R->t_stall, t3, sizeof t3), hs_time_str(R->watchdog, t4, sizeof t4),
                  blocked, R->app_actors);
        uint8_t *isfree = calloc(R->capmsg ? R->capmsg : 1, 1);
        if (isfree)
            for (uint32_t m = R->msg_free; m != RP_NIL; m = R->msg[m].next)
                isfree[m] = 1;
        for (uint32_t a = 0; a < R->nactors && shown < REPORT_ITEMS; a++) {
            const rp_actor *A = &R->actors[a];
            if (!A->app || A->state == A_DONE)
                continue;
            describe_op(R, &b, A, &R->ops[A->pc]);
            if (isfree)
                waits_for(R, &b, A->rank, isfree);
            shown++;
        }
        free(isfree);
        if (blocked > shown)
            hs__sb_printf(&b, "  ... and %u more\n", blocked - shown);
    }
    if (R->incomplete) {
        hs__sb_printf(&b, "%u rank%s of the trace did not end with MPI_Finalize:\n", R->incomplete,
                  R->incomplete == 1 ? "" : "s");
        for (uint32_t i = 0; i < R->incomplete && i < 4; i++)
            hs__sb_printf(&b, "  rank %u: %.150s%s\n", R->inc_rank[i], R->inc_note[i],
                      strlen(R->inc_note[i]) > 150 ? "..." : "");
        if (R->incomplete > 4)
            hs__sb_printf(&b, "  ... and %u more\n", R->incomplete - 4);
    }
    if (ur) {
        hs__sb_printf(&b, "%llu receive%s never matched:\n", (unsigned long long)ur, ur == 1 ? "" : "s");
        hs__sb_printf(&b, "%s", br.s ? br.s : "");
        if (ur > REPORT_ITEMS)
            hs__sb_printf(&b, "  ... and %llu more\n", (unsigned long long)(ur - REPORT_ITEMS));
    }
    if (us) {
        hs__sb_printf(&b, "%llu message%s never received:\n", (unsigned long long)us, us == 1 ? "" : "s");
        hs__sb_printf(&b, "%s", bs.s ? bs.s : "");
        if (us > REPORT_ITEMS)
            hs__sb_printf(&b, "  ... and %llu more\n", (unsigned long long)(us - REPORT_ITEMS));
    }
    if (R->unresolved)
        hs__sb_printf(&b, "%llu wildcard receive%s never completed in the trace (not replayed)\n",
                  (unsigned long long)R->unresolved, R->unresolved == 1 ? "" : "s");
    if (R->warnings) {
        hs__sb_printf(&b, "%llu call%s replayed approximately or not at all:",
                  (unsigned long long)R->warnings, R->warnings == 1 ? "" : "s");
        for (int k = 0; k <= HS_TRACE_KIND_MAX; k++)
            if (R->warn_kind[k])
                hs__sb_printf(&b, " %s x%llu", hs_trace_kind_name(k) ? hs_trace_kind_name(k) : "?",
                          (unsigned long long)R->warn_kind[k]);
        hs__sb_printf(&b, " (see docs/replay.md)\n");
    }
    free(bs.s);
    free(br.s);
    if (R->scale_note[0])
        hs__sb_printf(&b, "%s", R->scale_note);
    res->warnings = R->warnings;
    res->compute_scale_min = R->have_man && R->scale_min <= R->scale_max ? R->scale_min : 1.0;
    res->compute_scale_max = R->have_man && R->scale_min <= R->scale_max ? R->scale_max : 1.0;
    res->report = b.s;
    if (R->deadlock || R->stalled) {
        res->status = HS_EDEADLOCK;
        res->stop = R->stalled ? HS_REPLAY_STALLED : HS_REPLAY_DEADLOCK;
    } else if (us || ur || R->unresolved)
        res->status = HS_ESTATE;
}

/* ---- app.json ------------------------------------------------------------------------------ */

/* "histogram": the non-empty range of buckets, edges_ps having one more
 * entry than counts (the last edge closes the last bucket). */
static void lat_hist(hs_json *j, const hs_replay_lat *l)
{
    int lo = -1, hi = -1;
    for (int i = 0; i < HS_LAT_BUCKETS; i++)
        if (l->hist[i]) {
            if (lo < 0)
                lo = i;
            hi = i;
        }
    hs_json_key(j, "histogram");
    hs_json_obj_begin(j);
    hs_json_key(j, "edges_ps");
    hs_json_arr_begin(j);
    for (int i = lo; lo >= 0 && i <= hi + 1; i++)
        hs_json_uint(j, hs_lat_edge((unsigned)i));
    hs_json_arr_end(j);
    hs_json_key(j, "counts");
    hs_json_arr_begin(j);
    for (int i = lo; lo >= 0 && i <= hi; i++)
        hs_json_uint(j, l->hist[i]);
    hs_json_arr_end(j);
    hs_json_obj_end(j);
}

static void lat_obj(hs_json *j, const hs_replay_lat *l)
{
    hs_json_key(j, "messages");
    hs_json_uint(j, l->messages);
    hs_json_key(j, "p50_ps");
    hs_json_uint(j, l->p50);
    hs_json_key(j, "p99_ps");
    hs_json_uint(j, l->p99);
    hs_json_key(j, "mean_ps");
    hs_json_uint(j, l->mean);
    hs_json_key(j, "max_ps");
    hs_json_uint(j, l->max);
}

static int cmp_pair(const void *a, const void *b)
{
    return cmp_u64(a, b);
}

static void write_pairs(hs_json *j, const rp_pairs *P)
{
    uint64_t *idx = malloc((P->n ? P->n : 1) * 2 * sizeof *idx);
    hs_json_arr_begin(j);
    if (idx) {
        for (size_t i = 0; i < P->n; i++) {
            idx[2 * i] = P->key[i];
            idx[2 * i + 1] = i;
        }
        qsort(idx, P->n, 2 * sizeof *idx, cmp_pair);
        for (size_t i = 0; i < P->n; i++) {
            size_t k = idx[2 * i + 1];
            hs_json_arr_begin(j);
            hs_json_uint(j, P->key[k] >> 32);
            hs_json_uint(j, P->key[k] & 0xffffffffu);
            hs_json_uint(j, P->bytes[k]);
            hs_json_uint(j, P->msgs[k]);
            hs_json_arr_end(j);
        }
    } else {
        j->status = HS_ENOMEM;
    }
    hs_json_arr_end(j);
    free(idx);
}

/* The keys app.json starts with, up to the mapping (both replays). */
void hs__rp_app_head(hs_json *j, const hs_replay_params *p, const char *command, uint32_t ranks,
                     const hs_mapping_cfg *map, const uint32_t *node_of_rank)
{
    hs_json_key(j, "format");
    hs_json_str(j, "hopscope-app");
    hs_json_key(j, "version");
    hs_json_int(j, 1);
    hs_json_key(j, "trace");
    hs_json_str(j, p->trace);
    hs_json_key(j, "command");
    hs_json_str(j, command ? command : "");
    hs_json_key(j, "simulate_command");
    if (p->command)
        hs_json_str(j, p->command);
    else
        hs_json_null(j);
    hs_json_key(j, "ranks");
    hs_json_uint(j, ranks);
    char buf[1100];
    hs_json_key(j, "mapping");
    hs_json_obj_begin(j);
    hs_json_key(j, "policy");
    hs_json_str(j, hs_map_policy_name(map->policy));
    hs_json_key(j, "param");
    hs_json_str(j, hs_mapping_param(map, buf, sizeof buf));
    hs_json_key(j, "ranks_per_node");
    hs_json_uint(j, map->ppn);
    hs_json_key(j, "node_of_rank");
    hs_json_arr_begin(j);
    for (uint32_t r = 0; r < ranks; r++)
        hs_json_uint(j, node_of_rank[r]);
    hs_json_arr_end(j);
    hs_json_obj_end(j);
}

/* The manifest's "app" entry: it names app.json and sums the replay up. */
void hs__rp_manifest_app(hs_json *j, const hs_replay_result *res)
{
    hs_json_key(j, "app");
    hs_json_obj_begin(j);
    hs_json_key(j, "file");
    hs_json_str(j, "app.json");
    hs_json_key(j, "version");
    hs_json_int(j, 1);
    hs_json_key(j, "ranks");
    hs_json_uint(j, res->ranks);
    hs_json_key(j, "total_ps");
    hs_json_uint(j, res->total);
    hs_json_key(j, "status");
    hs_json_str(j, hs_replay_status_name(res));
    hs_json_obj_end(j);
}

int hs__rp_write_app_json(rp *R, const char *dir, const hs_replay_result *res,
                          const hs_mapping_cfg *map, hs_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/app.json", dir) >= sizeof path)
        return hs_error_set(err, HS_EINVAL, "%s: directory name too long", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot create '%s': %s", path, strerror(errno));
    const hs_replay_params *p = R->prm;
    const rp_job *J = &R->jobs[0];
    hs_json j;
    hs_json_init(&j, f, 1);
    hs_json_obj_begin(&j);
    uint32_t *nodes = malloc((J->nranks ? J->nranks : 1) * sizeof *nodes);
    if (!nodes) {
        fclose(f);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < J->nranks; r++)
        nodes[r] = R->ranks[J->rank0 + r].node;
    hs__rp_app_head(&j, p, R->have_man ? R->man.command : NULL, J->nranks, map, nodes);
    free(nodes);
    char buf[1100];

    hs_json_key(&j, "phases");
    hs_json_arr_begin(&j);
    for (uint32_t i = 0; i < R->nph; i++) {
        const rp_phase *ph = &R->ph[i];
        hs_json_obj_begin(&j);
        hs_json_key(&j, "id");
        hs_json_uint(&j, i);
        phase_name(ph->cls, ph->value, R, buf, sizeof buf);
        hs_json_key(&j, "name");
        hs_json_str(&j, buf);
        hs_json_key(&j, "kind");
        hs_json_str(&j, phase_kind(ph));
        hs_json_key(&j, "tag");
        if (ph->cls == PH_TAG)
            hs_json_int(&j, ph->value);
        else
            hs_json_null(&j);
        hs_json_key(&j, "collective");
        if (ph->cls == PH_COLL)
            hs_json_str(&j, hs__coll_kind_name((hs__coll_kind)ph->value));
        else
            hs_json_null(&j);
        hs_json_key(&j, "app");
        hs_json_bool(&j, ph->cls != PH_BG);
        hs_json_key(&j, "messages");
        hs_json_uint(&j, ph->messages);
        hs_json_key(&j, "bytes");
        hs_json_uint(&j, ph->bytes);
        hs_json_key(&j, "time_ps");
        hs_json_uint(&j, ph->time_ps);
        hs_json_obj_end(&j);
    }
    hs_json_arr_end(&j);

    hs_json_key(&j, "time");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "total_ps");
    hs_json_uint(&j, res->total);
    hs_json_key(&j, "per_rank_ps");
    hs_json_arr_begin(&j);
    for (uint32_t r = 0; r < res->ranks; r++)
        hs_json_uint(&j, res->rank_time[r]);
    hs_json_arr_end(&j);
    hs_json_key(&j, "compute_ps");
    hs_json_uint(&j, res->compute_mean);
    hs_json_key(&j, "comm_ps");
    hs_json_uint(&j, res->comm_mean);
    hs_json_obj_end(&j);

    hs_json_key(&j, "latency");
    hs_json_obj_begin(&j);
    lat_obj(&j, &res->lat);
    lat_hist(&j, &res->lat);
    hs_json_key(&j, "by_phase");
    hs_json_obj_begin(&j);
    for (uint32_t i = 0; i < R->nph; i++) {
        if (!R->ph[i].lat_n)
            continue;
        hs_replay_lat l;
        hs__rp_lat_stats(R, (int)i, &l);
        snprintf(buf, sizeof buf, "%u", i);
        hs_json_key(&j, buf);
        hs_json_obj_begin(&j);
        lat_obj(&j, &l);
        lat_hist(&j, &l);
        hs_json_obj_end(&j);
    }
    hs_json_obj_end(&j);
    hs_json_key(&j, "sampled");
    hs_json_bool(&j, R->lat.seen > R->lat.n);
    hs_json_obj_end(&j);

    hs_json_key(&j, "comm");
    write_pairs(&j, &R->pairs);
    hs_json_key(&j, "rma_comm");
    write_pairs(&j, &R->rpairs);

    hs_json_key(&j, "background");
    if (R->njobs > 1) {
        hs_json_obj_begin(&j);
        hs_json_key(&j, "spec");
        hs_json_str(&j, p->background ? p->background : "");
        hs_json_key(&j, "nodes");
        hs_json_arr_begin(&j);
        for (uint32_t i = 0; i < R->nbg_nodes; i++)
            hs_json_uint(&j, R->bg_nodes[i]);
        hs_json_arr_end(&j);
        hs_json_key(&j, "phase_ids");
        hs_json_arr_begin(&j);
        for (uint32_t i = 1; i < R->njobs; i++)
            hs_json_uint(&j, R->jobs[i].bg_phase);
        hs_json_arr_end(&j);
        hs_json_key(&j, "messages");
        hs_json_uint(&j, R->bg_msgs);
        hs_json_key(&j, "bytes");
        hs_json_uint(&j, R->bg_bytes);
        hs_json_key(&j, "eager_credits");
        hs_json_uint(&j, p->bg_eager_credits);
        hs_json_key(&j, "unexpected_peak");
        hs_json_uint(&j, R->bg_unexp_peak);
        hs_json_key(&j, "jobs");
        hs_json_arr_begin(&j);
        for (uint32_t i = 1; i < R->njobs; i++) {
            hs_json_obj_begin(&j);
            hs_json_key(&j, "name");
            hs_json_str(&j, R->jobs[i].name);
            hs_json_key(&j, "ranks");
            hs_json_uint(&j, R->jobs[i].nranks);
            hs_json_key(&j, "phase_id");
            hs_json_uint(&j, R->jobs[i].bg_phase);
            hs_json_key(&j, "messages");
            hs_json_uint(&j, R->jobs[i].messages);
            hs_json_key(&j, "bytes");
            hs_json_uint(&j, R->jobs[i].bytes);
            hs_json_obj_end(&j);
        }
        hs_json_arr_end(&j);
        hs_json_obj_end(&j);
    } else {
        hs_json_null(&j);
    }

    hs_json_key(&j, "congestion_impact");
    if (res->ci) {
        hs_json_obj_begin(&j);
        hs_json_key(&j, "latency_p99");
        hs_json_num(&j, res->ci_latency);
        hs_json_key(&j, "bandwidth");
        hs_json_num(&j, res->ci_bandwidth);
        hs_json_key(&j, "runtime");
        hs_json_num(&j, res->ci_runtime);
        hs_json_key(&j, "isolated");
        hs_json_obj_begin(&j);
        hs_json_key(&j, "total_ps");
        hs_json_uint(&j, res->iso_total);
        hs_json_key(&j, "latency");
        hs_json_obj_begin(&j);
        lat_obj(&j, &res->iso_lat);
        lat_hist(&j, &res->iso_lat);
        hs_json_obj_end(&j);
        hs_json_obj_end(&j);
        hs_json_key(&j, "congested");
        hs_json_obj_begin(&j);
        hs_json_key(&j, "total_ps");
        hs_json_uint(&j, res->total);
        hs_json_key(&j, "latency");
        hs_json_obj_begin(&j);
        lat_obj(&j, &res->lat);
        lat_hist(&j, &res->lat);
        hs_json_obj_end(&j);
        hs_json_obj_end(&j);
        hs_json_obj_end(&j);
    } else {
        hs_json_null(&j);
    }

    hs_json_key(&j, "replay");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "status");
    hs_json_str(&j, hs_replay_status_name(res));
    {
        /* the longest injection queue of the application's own NICs (the
         * background's are in the manifest's run.max_injection_queue) */
        uint32_t qmax = 0;
        for (uint32_t r = 0; r < J->nranks; r++) {
            uint32_t q = hs_fabric_nic_queue_max(R->F, R->ranks[J->rank0 + r].node);
            qmax = q > qmax ? q : qmax;
        }
        if (R->par_qmax > qmax)   /* other parts' NICs (a parallel run) */
            qmax = R->par_qmax;
        hs_json_key(&j, "nic_queue_max");
        hs_json_uint(&j, qmax);
    }
    hs_json_key(&j, "watchdog_ps");
    hs_json_uint(&j, res->watchdog);
    hs_json_key(&j, "actors");
    hs_json_uint(&j, R->app_actors);
    hs_json_key(&j, "messages");
    hs_json_uint(&j, res->messages);
    hs_json_key(&j, "bytes");
    hs_json_uint(&j, res->bytes);
    hs_json_key(&j, "rma_ops");
    hs_json_uint(&j, res->rma_ops);
    hs_json_key(&j, "rma_bytes");
    hs_json_uint(&j, res->rma_bytes);
    hs_json_key(&j, "unmatched_sends");
    hs_json_uint(&j, res->unmatched_sends);
    hs_json_key(&j, "unmatched_recvs");
    hs_json_uint(&j, res->unmatched_recvs);
    hs_json_key(&j, "unresolved_wildcards");
    hs_json_uint(&j, res->unresolved);
    hs_json_key(&j, "approximated_calls");
    hs_json_uint(&j, res->warnings);
    hs_json_key(&j, "eager_limit");
    hs_json_uint(&j, p->eager_limit);
    hs_json_key(&j, "ctrl_bytes");
    hs_json_uint(&j, p->ctrl_bytes);
    hs_json_key(&j, "compute_scale");
    if (p->compute_scale >= 0)
        hs_json_num(&j, p->compute_scale);
    else
        hs_json_null(&j);
    hs_json_key(&j, "compute_scale_applied");
    hs_json_obj_begin(&j);
    hs_json_key(&j, "min");
    hs_json_num(&j, R->have_man && R->scale_min <= R->scale_max ? R->scale_min : 1.0);
    hs_json_key(&j, "max");
    hs_json_num(&j, R->have_man && R->scale_min <= R->scale_max ? R->scale_max : 1.0);
    hs_json_obj_end(&j);
    hs_json_key(&j, "mem_bw_Bps");
    hs_json_uint(&j, p->mem_bw);
    hs_json_key(&j, "shm_latency_ps");
    hs_json_uint(&j, p->shm_latency);
    hs_json_key(&j, "call_overhead_ps");
    hs_json_uint(&j, p->call_overhead);
    hs_json_key(&j, "reduce_bw_Bps");
    hs_json_uint(&j, p->reduce_bw);
    hs_json_key(&j, "max_packets");
    hs_json_uint(&j, p->max_packets);
    hs_json_key(&j, "collectives");
    hs_json_obj_begin(&j);
    for (int k = 0; k < HS__COLL_NKINDS; k++) {
        if (k == HS__COLL_NEIGHBOR)
            continue;
        hs_json_key(&j, hs__coll_kind_name((hs__coll_kind)k));
        hs_json_str(&j, hs__coll_alg_name((hs__coll_alg)R->alg[k]));
    }
    hs_json_obj_end(&j);
    hs_json_obj_end(&j);

    hs_json_obj_end(&j);
    int rc = hs_json_finish(&j);
    fputc('\n', f);
    if (ferror(f) | (fclose(f) != 0) || rc)
        return hs_error_set(err, HS_EIO, "cannot write '%s'", path);
    return 0;
}
