/* hopscope/analyzer.h — from a run directory to where, when and why the
 * application's packets met congestion.
 *
 * hs_analyze_run() reads a run directory (docs/formats.md, "Run
 * directory"; never fabric code), decodes the in-band NIC counters with
 * hash/'s blind fast decoder and, where the forwarding tables determine the
 * paths, the sampled records with the route-aware decoder; estimates per
 * link the application's traffic, its congested packets and the congested
 * fraction, each with a standard error and an "insufficient data" state;
 * repeats that per phase (MPI tag, collective kind, user-named groups) and
 * per time window; joins congested links into congestion trees through
 * "feeds into" (traffic that crossed d next crossed d'), finds their roots,
 * and diagnoses each: a communication-pattern problem (root at an
 * endpoint), a mapping/bisection problem (interior root carrying much of the
 * application's own load) or interference from outside the job (congested
 * links carrying little of it).  Method, definitions and the defaults of
 * every threshold: docs/analysis.md.  Output: analysis.json (schema in
 * docs/formats.md, "analysis.json") and a terminal summary.
 *
 * Everything is deterministic: the same run directory and parameters give
 * a byte-identical analysis.json.
 */
#ifndef HOPSCOPE_ANALYZER_H
#define HOPSCOPE_ANALYZER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "hopscope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_an_decoder {
    HS_AN_DECODER_AUTO = 0,   /* route-aware where the tables determine paths, else blind */
    HS_AN_DECODER_BLIND = 1,  /* NIC counters, Walsh-Hadamard transform */
    HS_AN_DECODER_ROUTE = 2,  /* records with candidate links from the tables */
} hs_an_decoder;

/* Thresholds; defaults and their justification in docs/analysis.md. */
typedef struct hs_analyze_params {
    double cf_threshold;  /* a link is congested when CF - t*SE >= this, clear when
                             CF + t*SE < this, else undecided (0.25); t: Student's t
                             at z for the link's packets (docs/analysis.md) */
    double z;             /* one-sided confidence multiplier (2) */
    double max_cf_se;     /* obsolete: no longer used (links are judged by their SE) */
    double min_packets;   /* the quiet-packets test needs this many of them (100) */
    double max_traffic_cv;/* a link is undecided when the traffic estimate's SE exceeds
                             this share of it (0.1): a ratio needs a well-known
                             denominator */
    double sig_share;     /* d' is a significant downstream of d when at least this
                             share of d's traffic next crossed d' (0.05) ... */
    double sig_packets;   /* ... and at least this many sampled packets did (10) */
    double load_high;     /* application's own load share (as its packets see it) at or above
                             which a root is its own doing (0.5) */
    double load_low;      /* at or below which congested links (and roots) are "dark and
                             thin": interference; -1 = auto: tau / load bin, the
                             share of the bin the wait of a congested packet fills
                             (0.25 for the defaults) */
    uint64_t load_bin_ps; /* time bins for the application's load as its packets see
                             it; 0 = auto: 8 full-packet times of the run's link
                             class (1.31 us at 25 GB/s and 4 KiB packets) */
    hs_an_decoder decoder;
    const char *phases_file;   /* --phases FILE, or NULL */
    int    windows;       /* per-window views (1) */
    unsigned max_report;  /* ranks/nodes/links listed per finding (16) */
    const char *command;  /* the command line, recorded in analysis.json */
    /* Progress (NULL: none): called at the start of each stage of the
     * analysis and every HS_AN_PROGRESS_STEP records within the long ones,
     * with what it is doing ("decoding records by phase") and how far
     * (done of total; total 0 when not counted).  It must not call back
     * into the analysis; what it prints is its business (hopscope analyze:
     * stderr, after 2 s, not with -q).  Results never depend on it. */
    void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total);
    void *progress_ctx;
} hs_analyze_params;

#define HS_AN_PROGRESS_STEP (1u << 20)

void hs_analyze_params_default(hs_analyze_params *p);
/* Reads a phases file (--phases) as hs_analyze_run would, to refuse a bad
 * one before any work: 0, or HS_ENOENT / HS_EFORMAT (line number) ... */
int hs_an_phases_check(const char *path, hs_error *err);

typedef struct hs_analysis hs_analysis;

/* Analyses the run directory RUN.  On failure *out is NULL and err says
 * which file, where, and why (HS_ENOENT, HS_EFORMAT, HS_EVERSION,
 * HS_EINVAL for bad parameters or --phases files, HS_ENOMEM). */
int hs_analyze_run(const char *run, const hs_analyze_params *p, hs_analysis **out,
                   hs_error *err);
void hs_an_free(hs_analysis *a);

/* Writes analysis.json (compact, deterministic).  HS_EIO. */
int hs_an_write_json(const hs_analysis *a, const char *path, hs_error *err);
/* The terminal summary: top findings first, each in a sentence or two with
 * numbers, then the details that support them. */
void hs_an_print(const hs_analysis *a, FILE *f);
/* The accuracy against ground truth in full (every link kind, both
 * thresholds, the congested classification), as a markdown table; nothing
 * when the run has no truth. */
void hs_an_print_accuracy(const hs_analysis *a, FILE *f);

typedef enum hs_an_kind {
    HS_AN_NONE = 0, HS_AN_PATTERN = 1, HS_AN_MAPPING = 2, HS_AN_INTERFERENCE = 3,
    HS_AN_UNDECIDED = 4       /* nothing confidently congested, but links that cannot be
                                 judged (their CF is within z SE of the threshold, even
                                 pooled): not "none" */
} hs_an_kind;
const char *hs_an_kind_name(hs_an_kind k);

/* Figures for comparisons (hopscope whatif) and tests. */
typedef struct hs_an_summary {
    const char *decoder;      /* "route-aware" or "blind" */
    uint32_t links;           /* all links */
    uint32_t links_ok;        /* with enough data */
    uint32_t links_congested;
    uint32_t roots;
    uint32_t findings;
    hs_an_kind top;           /* kind of the first finding */
    double   max_cf, max_cf_se;   /* over links with enough data */
    uint32_t max_cf_link;
    double   app_congested;   /* estimated congested application packets (sum over links) */
    int      have_time;       /* app.json gave the predicted time */
    uint64_t time_ps;         /* predicted total time */
    uint64_t end_ps;          /* simulated end of the run */
    int      have_latency;
    uint64_t lat_p50_ps, lat_p99_ps;
    /* what the estimates rest on */
    uint64_t packets_monitored;   /* carried the field to their destination */
    uint64_t packets_overflowed;  /* of those, hop counter overflowed: in no estimate */
    double   monitor_p;           /* probability a message was monitored */
    int      traffic_exact;       /* traffic figures are exact counts of all packets */
    const char *caveats;          /* what the estimates miss, "" if nothing (owned by a) */
} hs_an_summary;
void hs_an_get_summary(const hs_analysis *a, hs_an_summary *s);

/* Number of findings, and finding i's kind, first link (its worst root),
 * nodes involved (count, and up to max of them). */
size_t hs_an_nfindings(const hs_analysis *a);
hs_an_kind hs_an_finding_kind(const hs_analysis *a, size_t i);
const char *hs_an_finding_summary(const hs_analysis *a, size_t i);
size_t hs_an_finding_links(const hs_analysis *a, size_t i, uint32_t *out, size_t max);
size_t hs_an_finding_nodes(const hs_analysis *a, size_t i, uint32_t *out, size_t max);

/* Per-link figures of the chosen decoder (link 1..links); HS_EINVAL out
 * of range.  status: 1 enough data, 0 insufficient. */
typedef struct hs_an_link {
    double traffic, traffic_se, congested, congested_se, cf, cf_se;
    double load, load_busy;   /* application's own load share: run average, and as its
                                 packets see it (window loads weighted by its packets) */
    int    status, is_congested, is_root;
} hs_an_link;
int hs_an_link_get(const hs_analysis *a, uint32_t link, hs_an_link *out);

/* ---- mappings ------------------------------------------------------------ */

/* A mapping that keeps heavy communication local: recursive bisection of
 * the ranks' communication graph (app.json "comm") onto the job's nodes
 * ordered by the topology's hierarchy (docs/analysis.md).  *node_of_rank
 * (malloc'ed, caller frees) gets one node per rank.  HS_ENOTSUP when the
 * run has no app.json or no communication matrix. */
int hs_an_suggest_mapping(const hs_analysis *a, uint32_t **node_of_rank,
                                uint32_t *nranks, hs_error *err);
/* Writes a mapping file: "hopscope-map 1", then one "rank node" line per
 * rank (format in docs/formats.md, "Mapping file").  HS_EIO. */
int hs_an_mapping_write(const char *path, const uint32_t *node_of_rank, uint32_t nranks,
                        hs_error *err);
/* Reads one.  HS_EFORMAT with file and line; HS_ENOENT. */
int hs_an_mapping_read(const char *path, uint32_t **node_of_rank, uint32_t *nranks,
                       hs_error *err);
/* The current mapping (app.json), or NULL; *nranks set. */
const uint32_t *hs_an_mapping(const hs_analysis *a, uint32_t *nranks);
/* Bytes the application sends between different switches / the number of
 * switch-to-switch hops they travel (sum over the comm matrix of bytes x
 * hops along the routed path) under a mapping: the cost the suggested
 * mapping minimises, for comparisons.  HS_ENOTSUP without app.json. */
int hs_an_mapping_cost(const hs_analysis *a, const uint32_t *node_of_rank,
                             double *remote_bytes, double *byte_hops);

/* ---- per-run features (hopscope sweep; docs/formats.md, "sweep.csv") ----- */

/* Aggregates of n values (one per link of a class): avg = sum / n, max,
 * ao = sum of the values above avg (the study's "average outliers"),
 * nao = how many, to = sum of the ceil(5% of n) largest (at least one; the
 * "top outliers").  All 0 for n = 0.  HS_ENOMEM. */
typedef struct hs_an_agg {
    double avg, max, ao, to;
    uint32_t nao;
} hs_an_agg;
int hs_an_aggregate(const double *v, size_t n, hs_an_agg *out);

typedef struct hs_an_feature {
    char   name[64];         /* f_truth_... or f_inband_...; no commas */
    double value;
} hs_an_feature;
/* The run's features, in an order and with names fixed by its topology's
 * link classes: *out (malloc'ed, caller frees) with *n entries.
 * HS_ENOTSUP when the run has no truth.bin; HS_ENOMEM. */
int hs_an_features(const hs_analysis *a, hs_an_feature **out, size_t *n, hs_error *err);
struct hs_topo;
struct hs_link_info;

/* ---- latency model from link counters (docs/latmodel.md) -----------------
 * Port counters as switches report them, per link and time window, in one
 * CSV (docs/formats.md, "Port counters CSV") that the replay's ground truth,
 * InfiniBand `perfquery -x` snapshots or in-band estimates fill; the
 * per-link delay model of Patke et al. fitted to latency tests by maximum
 * likelihood, and its predictions for node pairs from counters alone. */

typedef struct hs_pc_row {
    uint32_t link;            /* link id 1..L */
    uint64_t t0_ps, t1_ps;    /* the window [t0, t1), t1 > t0 */
    uint64_t xmit_bytes;      /* bytes sent (UINT64_MAX: not reported) */
    uint64_t xmit_pkts;       /* packets sent (UINT64_MAX: not reported) */
    uint64_t xmit_wait_ps;    /* time the port had data and no credit (UINT64_MAX:
                                 not reported) */
    double   stall_pct;       /* percent of the window stalled, 0..100 */
} hs_pc_row;

typedef struct hs_portcounters {
    hs_pc_row *row;           /* sorted by (link, t0) after hs_pc_sort */
    size_t     n, cap;
    char       source[32];    /* "replay", "perfquery", "inband", "csv" */
} hs_portcounters;

void hs_pc_free(hs_portcounters *pc);
/* Appends a row; HS_ENOMEM. */
int  hs_pc_add(hs_portcounters *pc, const hs_pc_row *r);
/* Sorts by (link, t0) and rejects overlapping windows of one link
 * (HS_EFORMAT naming the link). */
int  hs_pc_sort(hs_portcounters *pc, hs_error *err);
/* From a run directory's truth.bin: one row per link and window present,
 * stall = the time the link's transmitter waited for credit with a packet
 * ready (PortXmitWait).  HS_ENOENT without truth.bin; errors of the run
 * reader. */
int  hs_pc_from_run(const char *run, hs_portcounters *pc, hs_error *err);
/* From the in-band estimates of `hopscope analyze`: stall_pct = 100 x CF
 * (the congested fraction of the link's monitored packets), counts not
 * reported.  per_window: one row per link and per-window view of the
 * analysis, the window's CF where it has enough data, else the run's;
 * otherwise one row per link over [t0, t1) with the run's CF.  Links
 * with insufficient data count as 0. */
int  hs_pc_from_analysis(const hs_analysis *a, uint32_t links, uint64_t t0_ps,
                         uint64_t t1_ps, int per_window, hs_portcounters *pc, hs_error *err);
int  hs_pc_write_csv(const hs_portcounters *pc, const char *path, hs_error *err);
int  hs_pc_write(const hs_portcounters *pc, FILE *f);
/* Parses text[0..len) (NAME in messages) / reads a file.  HS_EFORMAT
 * with the line and the reason; rows are sorted and checked. */
int  hs_pc_parse_csv(const char *text, size_t len, const char *name, hs_portcounters *pc,
                     hs_error *err);
int  hs_pc_read_csv(const char *path, hs_portcounters *pc, hs_error *err);
/* The row of link l holding time t, or NULL (sorted counters). */
const hs_pc_row *hs_pc_find(const hs_portcounters *pc, uint32_t l, uint64_t t);

/* InfiniBand: (LID or GUID, port) -> link id, from a map file
 * (docs/formats.md, "InfiniBand port map"). */
typedef struct hs_ibmap hs_ibmap;
int  hs_ibmap_parse(const char *text, size_t len, const char *name, hs_ibmap **out,
                    hs_error *err);
void hs_ibmap_free(hs_ibmap *m);

typedef struct hs_pq_opts {
    double   tick_ps;         /* duration of one PortXmitWait tick */
    uint64_t interval_ps;     /* snapshot spacing when they carry no timestamp */
    uint32_t links;           /* link ids must be <= this (0: any) */
} hs_pq_opts;
/* Consecutive snapshots of `perfquery -x` output (each the text of one
 * sampling of every mapped port) -> one window per pair of consecutive
 * snapshots and mapped port: the differences of PortXmitData (x 4 bytes),
 * PortXmitPkts and PortXmitWait (x tick).  Snapshot times from a
 * "timestamp SECONDS" line, else i x interval.  HS_EFORMAT naming the
 * snapshot and line (malformed text, a counter that went backwards, a port
 * missing from a snapshot it was in before), HS_EINVAL (fewer than two
 * snapshots, no tick). */
int  hs_pc_import_perfquery(const char *const *text, const size_t *len,
                            const char *const *name, size_t nsnap, const hs_ibmap *map,
                            const hs_pq_opts *o, hs_portcounters *pc, hs_error *err);

/* Latency tests: one measured message each (docs/formats.md, "Latency
 * tests CSV"). */
typedef struct hs_lt {
    uint32_t src, dst;        /* nodes */
    uint64_t bytes;
    uint64_t t_ps;            /* posted */
    uint64_t lat_ps;          /* measured latency */
} hs_lt;
typedef struct hs_lts {
    hs_lt *t;
    size_t n, cap;
} hs_lts;
void hs_lts_free(hs_lts *l);
int  hs_lts_add(hs_lts *l, const hs_lt *t);
int  hs_lts_write_csv(const hs_lts *l, const char *path, hs_error *err);
int  hs_lts_parse_csv(const char *text, size_t len, const char *name, hs_lts *l,
                      hs_error *err);
int  hs_lts_read_csv(const char *path, hs_lts *l, hs_error *err);

/* The model: per link class k, D_l ~ N(c1 + m1/B_eff, c2 + m2/B_eff) with
 * B_eff = B_max (1 - P_Ts/100) in GB/s (P_Ts capped at HS_LM_PTS_MAX),
 * latency in ns, delays independent: a path's latency is normal with the
 * sums of the means and variances over its links. */
#define HS_LM_MAXCLASS 8
#define HS_LM_PTS_MAX  99.0
enum { HS_LM_FITTED = 0, HS_LM_UNIDENTIFIED = 1, HS_LM_AT_BOUND = 2 };
typedef struct hs_lm_class {
    char     name[16];
    double   p[4], se[4];     /* c1 (ns), m1 (ns GB/s), c2 (ns^2), m2 (ns^2 GB/s) */
    double   n_min, n_max;    /* the class's links per path over the fitted tests
                                 (predictions outside are extrapolated) */
    unsigned char state[4];   /* HS_LM_FITTED; HS_LM_UNIDENTIFIED: the tests cannot
                                 tell its term from the others' (collinear; e.g. m1
                                 of links that never stalled): fixed at 0;
                                 HS_LM_AT_BOUND: a variance term at its bound 0.
                                 se is NaN unless fitted */
} hs_lm_class;

typedef enum hs_lm_classes {
    HS_LM_POOLED = 0,         /* one class for every link */
    HS_LM_BYCLASS = 1,        /* endpoint links, and per switch-link class of the family */
    HS_LM_AUTO = 2,           /* by class when identifiable and better (AIC) */
} hs_lm_classes;

typedef struct hs_latmodel {
    int      topo_kind;       /* hs_topo_kind the class names refer to */
    unsigned ncls;
    hs_lm_class cls[HS_LM_MAXCLASS];
    size_t   tests;
    double   loglik, aic;     /* aic counts the identified parameters */
    double   pooled_aic;      /* the pooled fit's, for comparison */
    int      by_class;        /* 1: classes used; 0: pooled */
    char     note[256];       /* why classes were not used, or "" */
    char     input[32];       /* congestion input the fit used */
    double   res_ns;          /* resolution of the latency measurements: every test's
                                 variance gains res^2/12 (quantisation), so that
                                 repeated identical latencies (a deterministic
                                 model, an idle path) cannot make the likelihood
                                 unbounded; HS_LM_RES_NS unless set */
} hs_latmodel;
#define HS_LM_RES_NS 10.0

/* A node pair's path as link weights: the expected number of times a
 * packet crosses each link when every allowed output at every switch is
 * equally likely (one path, weights 1, for deterministic routing; minimal
 * paths only: Valiant and UGAL detours are not modelled). */
typedef struct hs_lm_path {
#define HS_LM_PATH_MAX 512
    uint32_t link[HS_LM_PATH_MAX];
    double   w[HS_LM_PATH_MAX];
    unsigned n;
} hs_lm_path;
int  hs_lm_path_get(const struct hs_topo *t, uint32_t src, uint32_t dst, hs_lm_path *p);
/* The same where adaptive routing (several allowed outputs) is taken to
 * pick the least stalled output at time t_ps (ties share the weight): the
 * path hs_lm_join uses. */
int  hs_lm_path_at(const struct hs_topo *t, const hs_portcounters *pc, uint64_t t_ps,
                   uint32_t src, uint32_t dst, hs_lm_path *p);
/* The class index of a link under model m. */
unsigned hs_lm_link_class(const hs_latmodel *m, const struct hs_link_info *li);

/* One test joined with its path's counters (hs_lm_path_at): per class, the summed link
 * weight n and the summed weight / B_eff (1/(GB/s)). */
typedef struct hs_lm_obs {
    double y;                 /* measured latency, ns */
    double n[HS_LM_MAXCLASS], s[HS_LM_MAXCLASS];
} hs_lm_obs;
/* Fills o from the path of t's pair and the counters at t's time (links
 * without a row count as not stalled; *missing counts them). */
int  hs_lm_join(const hs_latmodel *m, const struct hs_topo *topo, const hs_portcounters *pc,
                const hs_lt *t, hs_lm_obs *o, size_t *missing, hs_error *err);
/* Sets up m's classes for a topology (kind from hs_topo_type). */
void hs_lm_init(hs_latmodel *m, const struct hs_topo *t, int by_class);
/* Maximum likelihood fit of m's parameters to obs[n] (GSL: HS_ENOTSUP
 * naming libgsl-dev without it).  HS_EINVAL when the data cannot identify
 * the parameters (m->note says why). */
int  hs_lm_fit(hs_latmodel *m, const hs_lm_obs *obs, size_t n, hs_error *err);
/* 1 when an observation's links per class lie outside what the fit saw
 * (its constants may then not apply: a class whose count never varied
 * has its constant merged into another's). */
int  hs_lm_extrapolated(const hs_latmodel *m, const hs_lm_obs *o);
/* Mean and variance (ns, ns^2) of an observation's latency under m. */
void hs_lm_predict_obs(const hs_latmodel *m, const hs_lm_obs *o, double *mean, double *var);
int  hs_lm_write_json(const hs_latmodel *m, FILE *f);
int  hs_lm_read_json(const char *path, hs_latmodel *m, hs_error *err);
void hs_lm_print(const hs_latmodel *m, FILE *f);

/* One row per link: its duration-weighted average stall over the rows of
 * pc (the window [0, UINT64_MAX), counts not reported).  HS_ENOMEM. */
int  hs_pc_average(const hs_portcounters *in, hs_portcounters *out);

/* The application's heaviest node pairs with the model's latency. */
typedef struct hs_lm_pair {
    uint32_t src, dst;            /* nodes */
    uint64_t bytes, messages;     /* app.json comm, summed over the ranks on them */
    double   mean_ns, sd_ns;      /* under the run's congestion (average stall) */
    double   idle_mean_ns, idle_sd_ns;  /* with no stall anywhere */
    int      extrapolated;        /* hs_lm_extrapolated */
} hs_lm_pair;
/* The top node pairs by bytes of RUN's application (app.json "comm",
 * pairs on different nodes) with their expected latency under pc's
 * average stall and on an idle machine; *out malloc'ed (caller frees).
 * HS_ENOTSUP without app.json or its matrix; the run reader's errors. */
int  hs_lm_heavy_pairs(const hs_latmodel *m, const char *run, const hs_portcounters *pc,
                       size_t top, hs_lm_pair **out, size_t *n, hs_error *err);
/* ---- culprits: which feature explains the run time ------------------------
 * (docs/culprits.md; Bhatele et al., "Identifying the culprits behind
 * network congestion", IPDPS 2015.)  A table of runs (sweep.csv, or any CSV
 * of the same shape: docs/formats.md, "sweep.csv") is read strictly; a
 * gradient-boosted regression tree model (XGBoost) predicts the run time
 * from the features, and its held-out accuracy and feature importances say
 * which component the time depends on. */

/* A CSV table: one header line of unique names, then rows with as many
 * comma-separated fields.  Every cell is kept as a number when it is a
 * plain decimal number (digits, sign, '.', exponent; no inf, nan, hex or
 * spaces), else the column is marked non-numeric at its first such line. */
typedef struct hs_table {
    char     *name;         /* the file, for messages */
    uint32_t  ncols;
    char    **col;          /* ncols names */
    size_t    nrows;
    double   *v;            /* nrows * ncols, row-major; NaN where not a number */
    size_t   *line;         /* file line of each row (the header is line 1) */
    size_t   *bad_line;     /* ncols: first line whose cell is not a number, 0 none */
    char    **bad_text;     /* ncols: that cell (cut to 40 characters), or NULL */
} hs_table;

/* Tables larger than this are refused (HS_ERANGE). */
#define HS_TABLE_MAX_BYTES ((size_t)1 << 30)
#define HS_TABLE_MAX_COLS  65536u

/* Parses text[0..len) (NAME in messages).  HS_EFORMAT with "NAME:LINE:
 * reason" (no header, a row with another number of fields, an empty line
 * inside, a quote, a NUL or control character, an empty or repeated column
 * name, a first column 'run' whose cell is not an integer of at most 15
 * digits or repeats a run),
 * HS_ENOMEM.  *out is NULL on failure; free with hs_table_free. */
int hs_table_parse(const char *text, size_t len, const char *name, hs_table **out,
                   hs_error *err);
/* Reads PATH: HS_ENOENT, HS_EIO, HS_ERANGE (too large), and as above. */
int hs_table_read(const char *path, hs_table **out, hs_error *err);
void hs_table_free(hs_table *t);

/* The model's data: n runs, nf features, the response. */
typedef struct hs_cul_data {
    size_t    n;
    uint32_t  nf;
    double   *x;            /* n * nf, row-major */
    double   *y;            /* n */
    int64_t  *run;          /* n: the 'run' column, or the row number from 1 */
    char    **fname;        /* nf feature names */
    char     *target;       /* the response column's name */
    double   *per;          /* NULL, or n: the models fit y / per and predict y as their
                               prediction times per (hs_cul_set_per) */
    char     *per_name;     /* the column per came from */
} hs_cul_data;

/* Picks the response TARGET (NULL: "time_s") and the features from table
 * t.  FEATURES: NULL or a prefix ("f_" by default: every column whose name
 * starts with it), or a comma-separated list of column names (a single
 * name that is a column is that column).  Every chosen cell must be a
 * number: HS_EFORMAT "NAME:LINE: column C: 'text' is not a number".
 * HS_EINVAL: no such target, no feature matched, the target among the
 * features, fewer than HS_CUL_MIN_RUNS rows, a constant response.  On
 * failure d is empty; free with hs_cul_data_free. */
#define HS_CUL_MIN_RUNS 6
int hs_cul_select(const hs_table *t, const char *target, const char *features,
                  hs_cul_data *d, hs_error *err);
/* The same features (by name) and response from another table, for testing
 * a model on runs of another scale.  HS_EINVAL names a missing column. */
int hs_cul_select_like(const hs_table *t, const hs_cul_data *like, hs_cul_data *d,
                       hs_error *err);
/* Makes the models fit the response per unit of column COL of t (same
 * rows as d): y / COL, predictions multiplied back, so every figure stays in
 * the response's units.  A ratio that does not grow with the scale (the run
 * time per byte on the busiest link) is what lets a model trained at one
 * scale predict another (docs/culprits.md).  HS_EINVAL: no such column, or
 * a value that is not a finite number above 0 (named by line). */
int hs_cul_set_per(const hs_table *t, const char *col, hs_cul_data *d, hs_error *err);
void hs_cul_data_free(hs_cul_data *d);

/* The study's rank correlation coefficient (docs/culprits.md): the fraction
 * of the n(n-1)/2 pairs i > j that the prediction orders as the
 * measurement does, concord_ij = 1 when (obs_i >= obs_j and pred_i >=
 * pred_j) or (obs_i < obs_j and pred_i < pred_j).  NaN when n < 2. */
double hs_cul_rcc(const double *obs, const double *pred, size_t n);
/* Coefficient of determination 1 - SS_res / SS_tot (obs about its mean);
 * NaN when n < 1 or obs is constant. */
double hs_cul_r2(const double *obs, const double *pred, size_t n);

typedef struct hs_cul_params {
    uint64_t seed;           /* split, folds, permutations, XGBoost (1) */
    unsigned rounds;         /* boosting rounds (200) */
    unsigned depth;          /* tree depth (4) */
    double   eta;            /* learning rate (0.1) */
    double   test_fraction;  /* held-out share of the runs (1/3) */
    unsigned folds;          /* k of the cross validation (5) */
    unsigned perm_repeats;   /* permutations per feature (5) */
    int      greedy;         /* greedy forward feature-subset search (1) */
    unsigned greedy_steps;   /* stop it after this many features (10; 0: all of them) */
    unsigned search_folds;   /* folds of the training part that score a subset (3) */
    unsigned exhaustive_max; /* exhaustive search when nf <= this (10; 0 never) */
    unsigned jobs;           /* processes of the exhaustive search (0: online CPUs) */
    unsigned nquantiles;     /* quantile models (2) */
    double   quantiles[4];   /* their levels (0.1: the fast runs, 0.9: the slow) */
    unsigned q_rounds;       /* their boosting rounds (50) */
    unsigned q_depth;        /* their tree depth (2): a quantile model fitted as long
                                and as deep as the mean model reaches its level on the
                                training runs by memorising them (docs/culprits.md) */
    int      q_calibrate;    /* shift them by out-of-fold residuals (1; docs/culprits.md) */
    unsigned q_min_leaf;     /* least training runs in a leaf of their trees (0: by the
                                level, ceil(2 / min(tau, 1 - tau)): 20 for 0.1 and 0.9) */
    int      own_scaling;    /* generalisation: scale the test runs by their own
                                min and max (0: by the training runs') */
} hs_cul_params;
void hs_cul_params_default(hs_cul_params *p);

typedef struct hs_cul_imp {
    double gain;             /* share of the model's total split gain */
    double perm, perm_sd;    /* held-out R^2 lost when the feature is permuted */
} hs_cul_imp;
typedef struct hs_cul_step {
    uint32_t added;          /* feature added at this step */
    double   cv_r2;          /* mean R^2 over the training part's folds */
    double   test_rcc, test_r2;  /* the subset's model on the held-out runs */
} hs_cul_step;
typedef struct hs_cul_subset {
    uint64_t mask;           /* bit f: feature f */
    double   cv_r2;
} hs_cul_subset;
typedef struct hs_cul_quant {
    double  tau;
    double  pinball;         /* mean pinball loss on the held-out runs (response units) */
    double  coverage;        /* held-out runs measured at or below the prediction */
    double  rcc;
    double *gain;            /* nf: share of the split gain */
    double  shift;           /* calibration added to the model (response units; 0 when
                                not calibrated) */
    double *pred;            /* ntest: the model's prediction of each held-out run, the
                                shift included (the order of hs_cul_result.test_row) */
} hs_cul_quant;

typedef struct hs_cul_result {
    size_t   ntrain, ntest;
    size_t  *test_row;       /* ntest rows of the data held out */
    double  *test_pred;      /* their predictions */
    double   rcc, r2;
    unsigned folds;
    double  *fold_rcc, *fold_r2;
    double   cv_rcc, cv_rcc_sd, cv_r2, cv_r2_sd;
    hs_cul_imp *imp;         /* nf */
    uint32_t *rank;          /* nf features by decreasing gain (ties: permutation, index) */
    hs_cul_step *steps;      /* greedy search: nsteps = min(nf, greedy_steps) */
    uint32_t  nsteps;
    hs_cul_subset *best;     /* exhaustive search: the best subsets, best first */
    uint32_t  nbest;
    uint64_t  nsubsets;      /* subsets scored (0: not run) */
    unsigned  jobs_used;
    hs_cul_quant *q;
    unsigned  nq;
    /* generalisation (hs_cul_generalise) */
    int       have_gen;
    size_t    ngen;
    double   *gen_pred;
    double    gen_rcc, gen_r2;
} hs_cul_result;

/* Fits and evaluates the model on d (docs/culprits.md says each step).
 * The exhaustive search forks p->jobs child processes (each runs only the
 * search and _exits) and waits for them: the caller must not have SIGCHLD
 * ignored, or the search fails with HS_ECHILD.
 * Deterministic: the same data and params give the same result on every
 * machine with the same XGBoost.  HS_ENOTSUP when hopscope was built
 * without XGBoost (err names the Debian package), HS_ECHILD when a process
 * of the exhaustive search failed, HS_EINVAL (err says which parameter),
 * HS_ENOMEM.  progress, when not NULL, is called between the steps. */
int hs_cul_fit(const hs_cul_data *d, const hs_cul_params *p,
               void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total),
               void *ctx, hs_cul_result *r, hs_error *err);
/* Fits on every run of train and predicts the runs of test (same features,
 * hs_cul_select_like): r->gen_*.  Errors as hs_cul_fit. */
int hs_cul_generalise(const hs_cul_data *train, const hs_cul_data *test,
                      const hs_cul_params *p, hs_cul_result *r, hs_error *err);
void hs_cul_result_free(hs_cul_result *r);

/* Writes culprits.json (docs/formats.md, "culprits.json").  test may be
 * NULL; names are the input files as given; command the command line (may
 * be NULL).  HS_EIO. */
int hs_cul_write_json(FILE *f, const hs_cul_data *d, const hs_cul_data *test,
                      const hs_cul_params *p, const hs_cul_result *r, const char *input,
                      const char *test_input, const char *command);
/* The summary people read. */
void hs_cul_print(FILE *f, const hs_cul_data *d, const hs_cul_params *p,
                  const hs_cul_result *r);
/* "xgboost 1.7.4", or NULL without XGBoost. */
const char *hs_cul_library(void);

#ifdef __cplusplus
}
#endif
#endif
