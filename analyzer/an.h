/* analyzer/an.h — private to analyzer/: the run directory as read from
 * disk, and the pieces of an analysis.
 *
 * Everything the analyzer knows about the network comes from the run
 * directory's files (docs/formats.md, "Run directory"), read here by strict
 * readers that reject malformed input with the file, the offset (or line)
 * and the reason.  One exception: the routes of the regular families
 * (fat-tree, dragonfly, torus), which a version-2 run directory does not
 * store, are recomputed through fabric's public routing function from the
 * topology spec, after checking that the spec rebuilds exactly the run's
 * link table. */
#ifndef HOPSCOPE_ANALYZER_AN_H
#define HOPSCOPE_ANALYZER_AN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "hopscope/analyzer.h"
#include "hopscope/common.h"
#include "hopscope/fabric.h"
#include "hopscope/hash.h"

#define HS__NIL UINT32_MAX

/* Appends x to the malloc'ed array *v of *n items; HS_ENOMEM leaves it as
 * it was. */
static inline int hs__an_push(uint32_t **v, uint32_t *n, uint32_t x)
{
    uint32_t *t = (uint32_t *)realloc(*v, ((size_t)*n + 1) * sizeof **v);
    if (!t)
        return HS_ENOMEM;
    t[(*n)++] = x;
    *v = t;
    return 0;
}

/* ---- the run directory ------------------------------------------------------ */

enum { HS__DEV_NODE = 0, HS__DEV_SWITCH = 1 };
enum { HS__LK_INJECTION = 1, HS__LK_EJECTION = 2, HS__LK_SWITCH = 3 };
enum {
    HS__SUB_NONE = 0, HS__SUB_UP, HS__SUB_DOWN, HS__SUB_LOCAL, HS__SUB_GLOBAL,
    HS__SUB_TORUS, HS__SUB_PLAIN
};
enum { HS__TOPO_FATTREE = 1, HS__TOPO_DRAGONFLY, HS__TOPO_TORUS, HS__TOPO_FILE };

typedef struct hs__link {
    uint8_t  kind, sub, level, dim;
    int8_t   dir;
    uint8_t  wrap;
    uint8_t  from_kind, to_kind;
    uint32_t from, to, from_port, to_port;
    uint64_t bw, lat, tau;
    const char *from_name, *to_name;   /* in the run's name pool */
} hs__link;

typedef struct hs__node {
    const char *name;
    uint32_t sw, port, inj, ej;
    uint64_t rx;                        /* bytes/s; 0 = the ejection link's rate */
} hs__node;

typedef struct hs__switch {
    const char *name;
    uint32_t ports;
    int32_t  level, group, router;      /* -1 when it does not apply */
    const char *coord;                  /* torus "c0.c1..", or NULL */
} hs__switch;

typedef struct hs__phase {
    uint32_t id;                        /* the 16-bit id packets carry */
    const char *name;                   /* from phases.tsv */
} hs__phase;

/* One counter set of counters.bin, its arrays left in the mapped file. */
typedef struct hs__cset {
    uint32_t kind;                      /* 1 phase, 2 window */
    uint64_t id;
    hs_totals tot;
    const unsigned char *arrays;        /* t, c[, t2, c2], little-endian i64 */
} hs__cset;

typedef struct hs__mapped {
    const unsigned char *p;
    size_t n;
} hs__mapped;

typedef struct hs__run {
    char *dir;
    /* manifest.json */
    char *topo_spec, *topo_kind_name, *routing;
    int   topo_kind;                    /* HS__TOPO_* */
    int   deterministic, table_determined;
    uint32_t N, S, L, vcs;
    uint32_t mtu, header, min_packet;
    uint64_t window_ps, end_ps;
    hs_scheme scheme;
    int   have_scheme;
    int   counters_present;
    uint64_t nrecords, records_dropped;
    double tau_factor;
    uint64_t tau_ps;
    /* synthetic runs: the message size, the monitored fraction */
    int   synthetic;
    uint64_t msg_size;
    double monitor_fraction;
    char *traffic_pattern;
    /* monitoring and the hop counter (optional manifest keys; runs written
     * before they existed read as: p from traffic or 1, unknown route) */
    double   monitor_p;             /* scheme.monitor_probability */
    uint32_t max_route_links;       /* scheme.max_route_links, 0 = unknown */
    int      have_run_monitored;    /* run.packets_monitored/_overflowed present */
    uint64_t run_monitored, run_overflowed;
    int      have_max_injq;             /* run.max_injection_queue present (later addition) */
    uint64_t max_injq;
    /* tables */
    hs__link   *lk;                     /* lk[1..L]; lk[0] unused */
    hs__node   *nd;
    hs__switch *sw;
    hs__phase  *ph;
    uint32_t    nph;
    char       *pools[4];               /* the TSV files' text: names point into it */
    /* routes: destinations that route alike everywhere but at their own
     * switch form a class.  Either routes.bin's tables (rcnt, roff, rent)
     * or, when topology.routes is "computed", fabric's routing function on
     * the topology rebuilt from topo_spec (topo, rep). */
    uint32_t  C;                        /* destination classes */
    uint32_t *cls;                      /* class of each node */
    int       routes_computed;
    hs_topo  *topo;                     /* computed: the rebuilt topology */
    uint32_t *rep;                      /* computed: one node of each class */
    uint32_t *csw;                      /* the switch of each class */
    uint32_t  rflags;
    const uint8_t  *rcnt;               /* table: count[s*C + c] */
    uint64_t *roff;                     /* table: S*C + 1 prefix offsets into rent */
    const unsigned char *rent;          /* table: u32 entries, little-endian */
    /* counters.bin */
    unsigned  cnt_k, cnt_arrays;
    int       cnt_exact, cnt_second;
    uint64_t  cnt_n;
    hs__cset *cs;
    uint32_t  ncs;
    /* records.bin */
    const unsigned char *rec;           /* R records of 40 bytes */
    uint64_t  R;
    /* truth.bin */
    int       have_truth;
    uint32_t  tP, tW;
    uint64_t  t_window_ps;
    const unsigned char *t_phase_ids, *t_win_idx, *t_entries;
    /* mapped files */
    hs__mapped m_routes, m_counters, m_records, m_truth;
} hs__run;

/* Reads and checks the whole run directory; app.json is read separately.
 * On failure *out is NULL and err names file, offset and reason. */
int hs__an_run_open(const char *dir, hs__run **out, hs_error *err);
void hs__an_run_close(hs__run *r);

/* Entries of routes.bin for (switch s, class c): count and a pointer to
 * little-endian u32 link IDs. */
static inline uint32_t hs__le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t hs__le64(const unsigned char *p)
{
    return (uint64_t)hs__le32(p) | (uint64_t)hs__le32(p + 4) << 32;
}
/* The most output links one (switch, class) may list. */
#define HS__ROUTE_MAX 255u

/* The output links a packet for class c may take at switch s (one with
 * deterministic routing, the allowed up ports of adaptive fat-trees, the
 * minimal choice of dragonflies) into out[HS__ROUTE_MAX]; 0 at the
 * class's own switch, where it leaves on its node's ejection link. */
unsigned hs__route_set(const hs__run *r, uint32_t s, uint32_t c, uint32_t *out);
/* The first of them, or 0 at the class's own switch. */
static inline uint32_t hs__route_first(const hs__run *r, uint32_t s, uint32_t c)
{
    uint32_t set[HS__ROUTE_MAX];
    return hs__route_set(r, s, c, set) ? set[0] : 0;
}
static inline uint32_t hs__node_class(const hs__run *r, uint32_t node)
{
    return r->cls[node];
}

/* Fills ct (hs_counters_init'ed by the caller with the run's scheme) with
 * counter set i. */
void hs__an_cset_load(const hs__run *r, uint32_t i, hs_counters *ct);

/* One record of records.bin.  0, or HS_EFORMAT with err naming the record. */
typedef struct hs__rec {
    uint32_t src, dst;
    uint64_t seq, t;
    uint64_t field;
    uint16_t phase;
} hs__rec;
static inline void hs__rec_get(const hs__run *r, uint64_t i, hs__rec *o)
{
    const unsigned char *p = r->rec + 40 * i;
    o->src = hs__le32(p);
    o->dst = hs__le32(p + 4);
    o->seq = hs__le64(p + 8);
    o->t = hs__le64(p + 16);
    o->field = hs__le64(p + 24);
    o->phase = (uint16_t)(p[32] | p[33] << 8);
}

/* Ground truth entry (five u64) of link l (1..L) in block b: 0 totals,
 * 1 + phase index, 1 + P + window position. */
typedef struct hs__truth {
    uint64_t packets, bytes, busy_ps, stall_ps, congested;
} hs__truth;
void hs__an_truth_get(const hs__run *r, uint64_t block, uint32_t l, hs__truth *t);

/* Phase index (phases.tsv order) of a phase id, or HS__NIL. */
uint32_t hs__an_phase_index(const hs__run *r, uint32_t id);

/* ---- app.json ---------------------------------------------------------------- */

typedef struct hs__app_phase {
    uint32_t id;
    char    *name;
    char    *kind;                      /* p2p, collective, rma, protocol, background */
    int64_t  tag;                       /* -1 when null */
    char    *collective;                /* NULL when null */
    int      app;
    uint64_t messages, bytes, time_ps;
} hs__app_phase;

typedef struct hs__app_comm {
    uint32_t src, dst;
    uint64_t bytes, messages;
} hs__app_comm;

typedef struct hs__app {
    char    *trace, *command, *sim_command, *map_policy, *map_param;
    uint32_t ranks, ranks_per_node;
    uint32_t *node_of_rank;
    hs__app_phase *ph;
    uint32_t nph;
    int      have_time;
    uint64_t total_ps, compute_ps, comm_ps;
    uint64_t *per_rank_ps;
    int      have_latency;
    uint64_t lat_messages, lat_p50, lat_p99, lat_mean;
    hs__app_comm *comm;
    size_t   ncomm;
    int      have_background;
    char    *bg_spec;
    uint32_t *bg_nodes;
    uint32_t nbg_nodes;
    /* replay.status: "ok", or why the replay did not complete ("deadlock",
     * "incomplete", ...); NULL when app.json does not say */
    char    *replay_status;
    uint64_t unmatched_sends, unmatched_recvs;
    int      have_nicq;                 /* replay.nic_queue_max present */
    uint64_t nicq;                      /* the longest injection queue of its NICs */
    /* kept to re-emit as-is */
    hs_jdoc *doc;
    const hs_jv *latency, *congestion_impact;
} hs__app;

/* Reads RUN/app.json if present: 0 with *out NULL when absent, 0 with *out
 * set, or an error naming the file, offset and reason.  nodes: the run's
 * node count (node_of_rank entries must be below it). */
int hs__an_app_read(const char *dir, uint32_t nodes, hs__app **out, hs_error *err);
void hs__an_app_free(hs__app *a);

/* ---- --phases FILE ------------------------------------------------------------- */

typedef struct hs__phase_rule {
    int      what;                      /* 1 tag range, 2 collective, 3 phase id range */
    int64_t  lo, hi;
    char    *coll;
    char    *name;
} hs__phase_rule;

typedef struct hs__phase_rules {
    hs__phase_rule *r;
    size_t n;
} hs__phase_rules;

int hs__an_phase_rules_read(const char *path, hs__phase_rules *out, hs_error *err);
int hs__an_phase_rules_parse(const char *text, size_t len, const char *name,
                          hs__phase_rules *out, hs_error *err);
void hs__an_phase_rules_free(hs__phase_rules *r);
/* The user's name for a phase (first matching rule), or NULL. */
const char *hs__an_phase_rules_match(const hs__phase_rules *r, uint32_t phase_id,
                                  int64_t tag, const char *collective);

/* ---- the analysis ------------------------------------------------------------- */

/* status: OK when the link's own estimate decides it (congested or clear,
 * judge.c), INSUFFICIENT when it cannot ("cannot judge") or has no data. */
enum { HS__ST_INSUFFICIENT = 0, HS__ST_OK = 1 };
/* verdict of one estimate (judge.c) */
enum { HS__V_NODATA = 0, HS__V_CLEAR = 1, HS__V_CONGESTED = 2, HS__V_UNDECIDED = 3 };

/* Undecided links pooled by role (judge.c). */
typedef struct hs__pool {
    char     role[96];                  /* "up-links of switch l1s0", "all thin global links" */
    int      level;                     /* 1: one switch or group; 2: the network */
    uint32_t *links;
    uint32_t nlinks;
    hs_estimate e;                      /* pooled */
    uint8_t  verdict;                   /* HS__V_* */
    double   need;                      /* undecided: factor on packets that would decide it */
} hs__pool;
enum { HS__DEC_NONE = 0, HS__DEC_BLIND = 1, HS__DEC_ROUTE = 2 };

/* One link in a sparse view (a phase group or a window). */
typedef struct hs__lest {
    uint32_t link;
    uint8_t  status, congested, root;
    hs_estimate e;
    double   load;                      /* application's own load share in the view */
    double   t_packets, t_congested;    /* truth of the application's phases; < 0 unknown */
} hs__lest;

/* Phases that share a name (a user's rule, or one phase each). */
typedef struct hs__group {
    char    *name;
    const char *kind;                   /* p2p, collective, rma, protocol, background,
                                           synthetic, mixed */
    int      user_named, app;
    uint32_t *pidx;                     /* phase indices (phases.tsv order) */
    uint32_t npidx;
    int64_t  tag_lo, tag_hi;            /* MPI tags covered, -1 when none */
    const char *collective;
    uint64_t messages, bytes, time_ps;  /* app.json sums; 0 unknown */
    uint64_t records;                   /* sampled records of the group */
} hs__group;

typedef struct hs__view {
    int      kind;                      /* 1 group, 2 window */
    uint32_t group;
    uint64_t window, t0_ps, t1_ps;
    double   duration_ps;
    hs_totals tot;
    hs__lest *lk;
    uint32_t n, ncongested;
    uint32_t *roots;
    uint32_t nroots;
} hs__view;

typedef struct hs__root {
    uint32_t *links;                    /* the sink component (one link unless a cycle) */
    uint32_t nlinks;
    uint32_t *tree;                     /* upstream closure, the root's links first */
    uint32_t ntree;
    uint32_t *victims;                  /* congested sinks hanging off this tree by
                                           head-of-line blocking */
    uint32_t nvictims;
    int      endpoint;                  /* 1: its traffic goes into one node (an ejection
                                           link, or a link all of whose sampled traffic
                                           next goes to one); 2: comes out of one */
    uint32_t node;                      /* that node, else HS__NIL */
    int      heavy;                     /* application's own load >= load_high */
    int      victim_of;                 /* index of the heavy root it hangs off, or -1 */
    double   load, cf, cf_se, congested;
} hs__root;

typedef struct hs__finding {
    hs_an_kind kind;
    char    *summary;
    uint32_t *roots;                    /* indices into a->roots */
    uint32_t nroots;
    uint32_t *links;                    /* evidence: root links first, then the rest */
    uint32_t nlinks, nlinks_root;
    uint32_t *nodes, *node_count;       /* nodes involved, with their sampled packets;
                                           pattern: the ntargets endpoints first */
    uint32_t nnodes, ntargets;
    uint32_t *ranks;
    uint32_t nranks;
    uint32_t *groups, *group_count;     /* phase groups involved */
    uint32_t ngroups;
    uint32_t target;                    /* pattern: the worst endpoint node; else HS__NIL */
    double   severity;                  /* congested application packets in its trees */
    double   load, cf, cf_se;           /* of the worst root link */
    int      have_mapping;              /* mapping: a suggestion was computed */
    double   cost_now, cost_suggested;  /* byte-hops of the current and suggested mapping */
    int      linear_better;             /* mapping, no suggestion: the linear mapping beats
                                           the current one (byte-hops and most loaded link) */
    double   cost_linear;               /* its byte-hops */
    uint32_t nfreed;                    /* interference: roots first taken for victims of
                                           the application's own heavy tree */
    uint32_t freed_link;                /* the worst of them, with the congested fraction
                                           of its packets that came through inputs
                                           feeding no other congested output */
    double   freed_cf, freed_se;
} hs__finding;

typedef struct hs__acc_row {
    char     name[24];                  /* "all", "injection", "up", ... */
    double   min_true;                  /* links with at least this many true packets */
    uint32_t links;
    double   traffic_mean, traffic_max; /* |est - truth| / truth */
    double   cf_mean, cf_max;           /* |est - truth| absolute */
    uint32_t cf_links;
    double   cf_within_2se;             /* share of links with |error| <= 2 SE */
} hs__acc_row;

typedef struct hs__accuracy {
    int      decoder;
    hs__acc_row rows[24];
    uint32_t nrows;
    /* the congested classification against truth (true CF >= threshold) */
    uint32_t tp, fp, fn, tn;
} hs__accuracy;

/* Reports progress through the caller's hook (hs_analyze_params.progress). */
#define HS__AN_PROGRESS(a, stage, done, total)                                          \
    do {                                                                                \
        if ((a)->p.progress)                                                            \
            (a)->p.progress((a)->p.progress_ctx, (stage), (uint64_t)(done),             \
                            (uint64_t)(total));                                         \
    } while (0)

/* hs_estimate_sampled with the run's monitoring probability: estimates of
 * all the application's packets, not only the monitored ones. */
void hs__an_est(const hs_analysis *a, const hs_linksum *ls, int exact, hs_estimate *e);

struct hs_analysis {
    hs_analyze_params p;
    char    *command;
    char    *phases_file;               /* --phases FILE as given, or NULL */
    hs__run *r;
    hs__app *app;
    hs__phase_rules rules;
    int      decoder;                   /* chosen: HS__DEC_ROUTE or HS__DEC_BLIND */
    int      have_route, have_blind;
    int      paths_exact;
    char     route_note[256];           /* why route-aware decoding is or is not used */
    double   bytes_per_packet, duration_ps;
    double   monitor;                   /* share of the monitored packets the decoded sums
                                           hold (< 1 only when records were capped) */
    double   judge_hbar;                /* mean hops (root mean square) of the
                                           decoded records, for hs__an_judge_se */
    double  *hop_sum, *hop_n;           /* per link: the hop counts of the records
                                           known to cross it, summed, and their
                                           number (0: not known, judge_hbar) */
    double   sample_p;                  /* probability a message was monitored: every
                                           estimate is divided by it (hs__an_est) */
    double   msg_packets;               /* packet-weighted mean packets per message */
    double   packets_total;             /* the application's packets, monitored or not
                                           (app.json, else monitored / sample_p) */
    double   packets_truth;             /* ground truth of packets_total (truth.bin) */
    uint64_t app_packets;               /* monitored packets counted (all phases) */
    uint64_t packets_overflowed;        /* monitored, hop counter overflowed: in no estimate */
    int      traffic_exact;             /* traffic estimates are exact counts of all packets */
    char     caveats[1024];             /* what the estimates miss ("" if nothing) */
    double  *lost;                      /* [L+1] overflowed monitored packets whose path
                                           crosses the link (exact paths only), or NULL */
    uint32_t lost_worst;                /* the link missing the largest share, 0 if none */
    hs_totals tot_route, tot_blind;
    /* the whole run, dense over links 1..L */
    hs_estimate *est_route, *est_blind, *est;   /* est: the chosen one */
    uint8_t  *status, *congested, *is_root;
    uint8_t  *verdict;                  /* HS__V_* of the link's own estimate */
    uint32_t *pool_of;                  /* pool that decided (or last held) it, else HS__NIL */
    hs__pool *pools;
    uint32_t npools;
    uint32_t nundecided;                /* links neither they nor a pool can judge */
    uint32_t pooled_congested;          /* links congested by their role pool's evidence */
    double   need_half, need_all;       /* factor on monitored packets that would decide
                                           half / all of the undecided links */
    int      alone;                     /* app.json says no other traffic shared the run */
    uint8_t  *explained;                /* explained by a heavy root (trees.c victims()) */
    double   *load, *load_busy;         /* application's load: run average; as its packets
                                           see it (window loads weighted by its packets) */
    double   *lw_packets, *lw_load;     /* accumulators for load_busy */
    hs_linksum *quiet;                  /* route-aware sums over the application's
                                           "quiet" packets: those with fewer than
                                           tau's worth of its others in their bin
                                           on the link (NULL without records) */
    double   *t_packets, *t_congested, *t_all, *t_busy, *t_stall;  /* NULL without truth */
    /* views */
    hs__group *groups;
    uint32_t ngroups;
    uint32_t *group_of_phase;           /* per phase index */
    hs__view *gviews, *wviews;
    uint32_t nwviews;
    /* trees */
    void    *paths;                     /* hs__paths when route-aware; flows */
    hs__root *roots;
    uint32_t nroots;
    hs__finding *findings;
    uint32_t nfindings;
    hs__accuracy acc[2];
    uint32_t nacc;
    /* suggested mapping (mapping findings) */
    uint32_t *suggested;
    uint32_t nsuggested;
};

/* trees.c: congested links joined by "feeds into"; roots, trees, victims.
 * On the whole run (view NULL) fills a->roots and a->is_root; on a view
 * fills v->roots (root links only). */
int hs__an_trees(hs_analysis *a, hs__view *v);
/* Records that crossed u and next v, or for blind runs 1 when v may follow u
 * at all (table-allowed turn) and 0 otherwise. */
double hs__an_feeds(const hs_analysis *a, uint32_t u, uint32_t v);
/* judge.c: verdict of one estimate (HS__V_*) and, when undecided, the
 * factor on its packets that would decide it at its present CF. */
/* The SE a verdict uses: the estimate's, or the score test's at the
 * threshold when larger (hbar: mean hops of the monitored packets, p: the
 * monitored probability; hbar 0 turns it off). */
double hs__an_judge_se(const hs_estimate *e, double threshold, double hbar, double p);
/* The mean hop count of link l's packets (judge_hbar when unknown). */
double hs__an_hbar(const hs_analysis *a, uint32_t l);
int hs__an_judge_one(const hs_estimate *e, double threshold, double z, double max_cv,
                     double hbar, double p, double *need);
/* The critical value for an SE estimated from n packets: Student's t with
 * n - 1 degrees of freedom at the normal quantile z; infinite below 2. */
double hs__an_z_small(double z, double n);
/* Pooled estimate of n links' estimates (sums; conservative SE). */
void hs__an_pool_estimate(const hs_estimate *const *v, uint32_t n, hs_estimate *out);
/* Pools the undecided links (a->verdict) by role; fills pools, pool_of,
 * nundecided, need_*; marks links of role pools judged congested in
 * a->congested.  HS_ENOMEM. */
int hs__an_judge(hs_analysis *a);
/* diagnose.c: a congested fraction for people, "40% +- 5%", or clipped to
 * [0, 1] with its interval, "100% (64%-100%)"; returns buf. */
const char *hs__an_cf_text(char *buf, size_t n, double cf, double se);
/* diagnose.c: per node (malloc'ed, caller frees), 1 when the records show
 * an incast into it (several senders in one --load-bin for at least
 * cf_threshold of its sampled packets, or a sender faster than its
 * ejection capacity) or cannot tell (no records, no packets); 0 when its
 * packets come from one partner at a time.  HS_ENOMEM. */
int hs__an_incast_present(const hs_analysis *a, uint8_t **ok);
/* Dark and thin links a heavy root explains whose packets, through a clean
 * input and onto a link not possibly congested, are congested all the
 * same: a bottleneck of someone else's traffic (diagnose.c). */
int hs__an_local_congestion(hs_analysis *a, uint8_t **local);
/* Its filter at position k of a packet's path seq[0..n): the link is a
 * candidate (want), the link before it feeds no other possibly congested
 * output of the switch (ncong/one, per input: 0, or 1 and which), and the
 * link after it, if any, is not possibly congested (maybe). */
int hs__an_local_keep_at(const uint32_t *seq, uint32_t n, uint32_t k, const uint8_t *want,
                         const uint8_t *ncong, const uint32_t *one, const uint8_t *maybe);
/* diagnose.c: findings from the roots. */
int hs__an_diagnose(hs_analysis *a, hs_error *err);
/* mapping.c */
int hs__an_suggest_mapping(const hs_analysis *a, uint32_t **out, hs_error *err);
/* The most loaded link's bytes / capacity (seconds) when the communication
 * matrix is routed along the tables under a mapping; -1 on no memory. */
double hs__an_mapping_max_load(const hs_analysis *a, const uint32_t *node_of_rank);
double hs__an_mapping_byte_hops(const hs_analysis *a, const uint32_t *node_of_rank,
                             double *remote_bytes);
/* Switch-to-switch hops from one node to another along the routed path
 * (the first candidate at each switch). */
uint32_t hs__an_switch_hops(const hs__run *r, uint32_t src, uint32_t dst);
/* output.c helpers */
const char *hs__an_link_kind_name(const hs__link *l);
const char *hs__an_link_sub_name(const hs__link *l);
/* "n12 -> l1s3 (injection)": a link for people */
const char *hs__an_link_desc(const hs__run *r, uint32_t l, char *buf, size_t n);
/* Capacity of link l for load shares: its rate, or a slower node's receive rate. */
double hs__an_link_capacity(const hs__run *r, uint32_t l);

#endif
