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

#ifdef __cplusplus
}
#endif
#endif
