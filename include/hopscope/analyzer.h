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
