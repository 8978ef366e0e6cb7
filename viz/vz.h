/* viz/vz.h — private to viz/: the model read from analysis.json, the scene
 * a layout builds, and the text buffer every document is written into.
 *
 * Flow: model.c reads analysis.json into an hs_viz_model (devices, links,
 * estimates of the whole run and of each phase and window, roots, findings,
 * the application's times and latencies).  A layout (layout_*.c) turns the
 * topology into a scene: device glyphs and drawn items, each item standing
 * for one directed link or a bundle of them.  draw.c colours a scene with
 * one view (the whole run, a phase) into SVG; charts.c draws the charts;
 * report.c puts the documents together. */
#ifndef HOPSCOPE_VZ_H
#define HOPSCOPE_VZ_H

#include "hopscope/viz.h"

#include <stdarg.h>
#include <stdint.h>

/* ---- growable text ---------------------------------------------------------- */

typedef struct hs__vz_buf {
    char  *s;
    size_t n, cap;
    int    oom;          /* an append failed: the text is incomplete */
} hs__vz_buf;

void hs__vz_puts(hs__vz_buf *b, const char *s);
void hs__vz_putn(hs__vz_buf *b, const char *s, size_t n);
void hs__vz_printf(hs__vz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text escaped for XML character data and attribute values ("<>&'\""); control
 * characters other than tab and newline become '?' (XML 1.0 forbids them). */
void hs__vz_esc(hs__vz_buf *b, const char *s);
/* A coordinate or length with one decimal, without a trailing ".0". */
void hs__vz_num(hs__vz_buf *b, double v);
void hs__vz_buf_free(hs__vz_buf *b);

/* ---- the model (analysis.json) ---------------------------------------------- */

enum { HS__VZ_INJ = 0, HS__VZ_EJ = 1, HS__VZ_SW = 2 };
enum { HS__VZ_SUB_NONE = 0, HS__VZ_SUB_UP, HS__VZ_SUB_DOWN, HS__VZ_SUB_LOCAL,
       HS__VZ_SUB_GLOBAL, HS__VZ_SUB_TORUS, HS__VZ_SUB_PLAIN };
enum { HS__VZ_TOPO_OTHER = 0, HS__VZ_TOPO_FATTREE, HS__VZ_TOPO_DRAGONFLY,
       HS__VZ_TOPO_TORUS };
/* State of a link in a view. */
enum { HS__VZ_IDLE = 0,    /* no traffic measured */
       HS__VZ_NODATA,      /* phase or window views: not listed (idle, or too few packets) */
       HS__VZ_INSUFF,      /* traffic, but too few packets for a congested fraction */
       HS__VZ_OK };        /* congested fraction with its standard error */

/* Devices share one index: node i is device i, switch s is device N + s. */
typedef struct hs__vz_link {
    uint32_t from, to;       /* devices */
    uint32_t rev;            /* the link the other way on the same cable, 0 if none */
    uint8_t  kind;           /* HS__VZ_INJ, _EJ, _SW */
    uint8_t  sub;            /* HS__VZ_SUB_* */
    uint8_t  dim, wrap;      /* torus links */
    int8_t   dir;
    uint8_t  level;          /* fat-tree switch links: lower end's level, 0 unknown */
    double   capacity;       /* bytes/s */
} hs__vz_link;

typedef struct hs__vz_est {
    double  traffic, traffic_se, cf, cf_se, load;  /* cf, cf_se NaN when unknown */
    double  t_packets, t_cf;                       /* ground truth, NaN without */
    uint8_t state;                                 /* HS__VZ_IDLE, _INSUFF, _OK */
    uint8_t congested, root;
} hs__vz_est;

/* A phase or time window: the links with enough data (rows), the rest are
 * not listed. */
typedef struct hs__vz_view {
    char     *name;
    char     *kind;            /* phases: p2p, collective, background, ...; windows: NULL */
    int       app;             /* phase of the application itself */
    uint32_t  nrows;
    uint32_t *row_link;
    hs__vz_est *row;
    uint32_t *roots;           /* root links */
    uint32_t  nroots;
    uint64_t  packets, flagged, links_ok, links_congested;
    int       have_app;        /* messages, bytes, time_ps present */
    uint64_t  messages, bytes, time_ps;
    uint64_t  t0_ps, t1_ps;    /* windows */
    int64_t   phase_id;        /* first phase id (latency by phase), -1 none */
} hs__vz_view;

typedef struct hs__vz_root {
    uint32_t *links, nlinks;
    uint32_t *tree, ntree;
    uint32_t *victims, nvictims;
    int       endpoint, heavy;
    double    load_peak, cf, cf_se;     /* load_peak: the application's load as its packets
                                           see it (load_busy; load_peak before) */
} hs__vz_root;

typedef struct hs__vz_finding {
    char     *kind, *summary;
    uint32_t *links, nlinks, root_links;
    uint32_t  root_count;           /* roots it gathers (0 when the analysis predates it) */
    uint32_t  nnodes, nranks;
    char    **phases;
    uint32_t  nphases;
    int       has_numbers;
    double    cf, cf_se, load_peak, severity;
    int       has_mapping;
    char     *map_file;
    double    bytes_now, bytes_suggested;
} hs__vz_finding;

typedef struct hs__vz_acc_row {
    char    *links_kind;
    double   min_true, links, traffic_mean, traffic_max, cf_links, cf_mean, cf_max,
             cf_within_2se;
} hs__vz_acc_row;

typedef struct hs__vz_acc {
    char           *decoder;
    hs__vz_acc_row *rows;
    uint32_t        nrows;
    int             have_class;
    uint64_t        tp, fp, fn, tn;
} hs__vz_acc;

/* Latency of messages: summary numbers, and a histogram when the producer
 * wrote one (edges[nbins + 1], counts[nbins]). */
typedef struct hs__vz_lat {
    int      have;
    double   messages, p50, p99, mean, max;   /* ps */
    double  *edges, *counts;
    uint32_t nbins;
} hs__vz_lat;

typedef struct hs__vz_phase_lat {
    int64_t    id;
    hs__vz_lat lat;
} hs__vz_phase_lat;

typedef struct hs__vz_app {
    int       have;
    char     *trace, *command, *sim_command, *map_policy, *map_param;
    uint64_t  ranks, ranks_per_node;
    int       have_time;
    double    total_ps, compute_ps, comm_ps;
    hs__vz_lat lat;
    hs__vz_phase_lat *by_phase;
    uint32_t  nby_phase;
    int       have_impact;
    double    impact_latency_p99, impact_bandwidth, impact_runtime;
    double    iso_total_ps, cong_total_ps;
    hs__vz_lat iso_lat, cong_lat;
    char     *background;       /* spec, NULL without background */
    uint32_t  nbackground_nodes;
} hs__vz_app;

struct hs_viz_model {
    char     *path;             /* where it was read from */
    char     *command, *run, *hopscope;
    /* the replay did not complete: its status and what that means (NULL when
     * it completed or the run is no replay) */
    char     *replay_status, *replay_caveat;
    /* topology */
    int       topo;             /* HS__VZ_TOPO_* */
    char     *topo_kind, *spec, *routing;
    uint32_t  N, S, L;
    double    link_capacity;    /* bytes/s: links without their own capacity */
    /* decoder, parameters, measurement */
    char     *decoder, *decoder_note;
    char     *caveats;        /* measurement.caveats: what the estimates miss, or NULL */
    double    cf_threshold, z, min_packets, max_cf_se;
    double    duration_ps, window_ps;
    int       truth;
    uint64_t  records, packets_counted, packets_flagged;
    /* summary */
    uint64_t  links_ok, links_congested, nroots_summary;
    double    max_cf, max_cf_err;
    double    max_abs_cf;   /* largest |cf| of the links (bounds roots and findings) */
    uint32_t  max_cf_link;
    char     *top;
    /* devices */
    char    **name;             /* N + S device names */
    uint32_t *node_switch;      /* N */
    uint32_t *node_inj, *node_ej;
    uint32_t *rank_off, *rank;  /* ranks hosted by node i: rank[rank_off[i] .. rank_off[i+1]) */
    int       have_ranks;
    int32_t  *sw_level, *sw_group, *sw_router;  /* S each, -1 unknown */
    uint32_t  ncoord;           /* coordinates per switch (tori), 0 none */
    uint32_t *sw_coord;         /* S * ncoord */
    /* links 1..L and the whole run */
    hs__vz_link *lk;            /* L + 1, [0] unused */
    hs__vz_est  *est;           /* L + 1 */
    hs__vz_root *roots;
    uint32_t     nroots;
    uint32_t    *root_num;      /* L + 1: number (1..) of the root a link belongs to, 0 none */
    hs__vz_finding *findings;
    uint32_t     nfindings;
    hs__vz_view *phases, *windows;
    uint32_t     nphases, nwindows;
    hs__vz_acc  *acc;
    uint32_t     nacc;
    hs__vz_app   app;
};

/* "g2r0→g3r15 (global)": a link for people.  Returns buf. */
const char *hs__vz_link_name(const hs_viz_model *m, uint32_t l, char *buf, size_t n);
/* "x", "y", "z", "d3", ...: torus dimensions for people. */
const char *hs__vz_dim_name(unsigned d);
/* Root number (1-based, in the order of "roots") of link l in the whole run,
 * 0 if none. */
uint32_t hs__vz_root_number(const hs_viz_model *m, uint32_t l);
/* Fills dense[1..L] with view v's estimates: its rows as given; the other
 * links idle where the whole run saw no traffic, else HS__VZ_NODATA (the
 * view lists only links with enough data, so idle and too few packets
 * cannot be told apart). */
void hs__vz_view_dense(const hs_viz_model *m, const hs__vz_view *v, hs__vz_est *dense);

/* ---- colour ----------------------------------------------------------------- */

/* "#rrggbb" of cf on the common scale; buf >= 8 bytes. */
const char *hs__vz_cf_hex(double cf, char *buf);
#define HS__VZ_COL_INSUFF "#a3a3a3"   /* not enough data: grey, dashed */
#define HS__VZ_COL_IDLE   "#d4d4d4"   /* no traffic: pale, thin; dashed: no data in a phase */
#define HS__VZ_COL_ROOT   "#0a84ff"   /* root markers: a blue outside the map's hues */
#define HS__VZ_DASH_INSUFF "3 2"
#define HS__VZ_COL_FAINT  "#c4c4c4"   /* aggregated overviews: bundles without a verdict */

/* ---- scenes ----------------------------------------------------------------- */

enum { HS__VZ_G_LINE = 0,  /* p: x0 y0 x1 y1, stroked (colour = CF, width = load) */
       HS__VZ_G_QUAD,      /* p: x0 y0 cx cy x1 y1 */
       HS__VZ_G_RECT,      /* p: x y w h, filled with the colour of CF */
       HS__VZ_G_SECTOR };  /* p: cx cy r0 r1 a0 a1 (radians), filled */

/* One drawn mark: a directed link or a bundle of them (members). */
typedef struct hs__vz_item {
    uint8_t  geom;
    float    p[6];
    uint32_t first, n;       /* members: scene mem[first .. first + n) */
    uint32_t label;          /* bundles: name in scene label[], UINT32_MAX none */
} hs__vz_item;

enum { HS__VZ_GL_SWITCH = 0, HS__VZ_GL_NODE, HS__VZ_GL_GROUP };
/* A device (or an aggregate of devices) drawn as a neutral box. */
typedef struct hs__vz_glyph {
    uint8_t  kind;
    float    x, y, w, h;     /* centre and size */
    uint32_t dev;            /* first device it stands for */
    uint32_t ndev;           /* how many (aggregates) */
    float    lw;             /* room for a label (px): switches their name inside, nodes
                                their ranks below; 0 none */
    uint8_t  mark;           /* it stands for a device the report names (marks.c): drawn
                                with a dark outline, its name in a label beside it */
} hs__vz_glyph;

enum { HS__VZ_T_START = 0, HS__VZ_T_MIDDLE, HS__VZ_T_END };
typedef struct hs__vz_text {
    float   x, y;
    uint8_t anchor, size, bold;
    uint8_t mark;             /* a device's name (marks.c): white halo, class "mark" */
    char   *s;
} hs__vz_text;

typedef struct hs__vz_scene {
    double       w, h;        /* extent */
    double       wmax;        /* stroke width at load 1 (and the minimum is HS__VZ_WMIN) */
    hs__vz_item *it;
    size_t       nit, capit;
    uint32_t    *mem;
    size_t       nmem, capmem;
    hs__vz_glyph *gl;
    size_t       ngl, capgl;
    hs__vz_text *tx;
    size_t       ntx, captx;
    char       **label;
    size_t       nlabel, caplabel;
    char        *title;       /* what the panel shows, e.g. "plane z=3" */
    char        *note;        /* how it is aggregated, NULL when link by link */
    int          faint;       /* strokes without a congested fraction as hairlines */
    int          radial;      /* devices on a ring around (rcx, rcy): name labels go
                                 outwards from nodes, inwards from switches */
    float        rcx, rcy;
    int          oom;
} hs__vz_scene;

#define HS__VZ_WMIN 0.8       /* px: an idle or lightly used link stays visible */
#define HS__VZ_CHAR_W 6.0     /* px per character of a glyph's label (font-size 9, DejaVu
                                 Sans, with room to spare): a label fits when
                                 strlen * HS__VZ_CHAR_W <= the glyph's lw */

void hs__vz_scene_free(hs__vz_scene *s);
/* Adds an item of one link (n = 1) or opens a bundle (n = 0) to which
 * hs__vz_member adds links.  Returns the item index. */
size_t hs__vz_item_add(hs__vz_scene *s, int geom, const float *p, int np);
void hs__vz_member(hs__vz_scene *s, uint32_t link);
/* Names the last item (bundles: "group 3 to group 4, global"). */
void hs__vz_item_label(hs__vz_scene *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hs__vz_glyph_add(hs__vz_scene *s, int kind, double x, double y, double w, double h,
                      uint32_t dev, uint32_t ndev, double lw);
void hs__vz_text_add(hs__vz_scene *s, double x, double y, int anchor, int size, int bold,
                     const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* A directed link drawn as the half of its cable next to the sender:
 * from (x0, y0) (the sender) to the middle of the cable to (x1, y1),
 * shortened by a small gap so the two halves read as two links. */
void hs__vz_half_line(hs__vz_scene *s, double x0, double y0, double x1, double y1, uint32_t link);
/* The same along a quadratic curve with control point (cx, cy). */
void hs__vz_half_quad(hs__vz_scene *s, double x0, double y0, double cx, double cy, double x1,
                      double y1, uint32_t link);

/* Layouts.  Each builds one or more scenes for model m: the main picture
 * first, then zoomed details (aggregated layouts), *nscenes of them.
 * Return 0 or HS_ENOMEM. */
typedef struct hs__vz_layout_opts {
    int      detail;          /* hs_viz_detail */
    unsigned zoom;            /* details beside an aggregate */
    const hs__vz_est *rank_by;/* estimates used to pick the zoomed parts (whole run) */
    int      compact;         /* small multiples: one scene, the overview only */
    double   max_w;           /* px the main scene should not exceed (0: 1400) */
    int      unnamed;         /* no names of the devices the report names (marks.c);
                                 small multiples never have them */
} hs__vz_layout_opts;

int hs__vz_layout(const hs_viz_model *m, const hs__vz_layout_opts *o, hs__vz_scene **scenes,
                  size_t *nscenes);
int hs__vz_layout_fattree(const hs_viz_model *m, const hs__vz_layout_opts *o,
                          hs__vz_scene **scenes, size_t *nscenes);
int hs__vz_layout_dragonfly(const hs_viz_model *m, const hs__vz_layout_opts *o,
                            hs__vz_scene **scenes, size_t *nscenes);
int hs__vz_layout_torus(const hs_viz_model *m, const hs__vz_layout_opts *o,
                        hs__vz_scene **scenes, size_t *nscenes);
int hs__vz_layout_layered(const hs_viz_model *m, const hs__vz_layout_opts *o,
                          hs__vz_scene **scenes, size_t *nscenes);
/* Devices the report names, so that the pictures name them too (marks.c):
 * mark[N + S] gets HS__VZ_MARK_FINDING for every node or switch whose name
 * appears in a finding's text, HS__VZ_MARK_ROOT for the two ends of each
 * link of the roots the pictures number (R1 .. R12).  Returns 0 or
 * HS_ENOMEM (mark is then all zero). */
enum { HS__VZ_MARK_FINDING = 1, HS__VZ_MARK_ROOT = 2 };
#define HS__VZ_ROOT_LABELS 12 /* roots named R1.. in the pictures; the report lists them all */
#define HS__VZ_ROOT_R 5.5     /* px: radius of the ring around a root; "R<n>" to its upper right */
int hs__vz_marks(const hs_viz_model *m, uint8_t *mark);
/* Labels the glyphs of scene s that stand for marked devices: flags them
 * and adds one text per device name (a node aggregate lists its marked
 * nodes), placed below the glyph (or along the ring of a radial scene) clear
 * of the other labels and texts, and grows the scene's extent to hold
 * them. */
void hs__vz_mark_scene(const hs_viz_model *m, const uint8_t *mark, hs__vz_scene *s);
/* Appends a new empty scene to the array; NULL on out of memory. */
hs__vz_scene *hs__vz_scene_new(hs__vz_scene **scenes, size_t *nscenes);
/* Worst congested fraction of the links touching device set (for picking
 * what to zoom on): max over OK links in est[] of the given list. */
double hs__vz_worst(const hs__vz_est *est, const uint32_t *links, size_t n);

/* ---- drawing ------------------------------------------------------------------ */

/* Draws scene s coloured by est (dense over links 1..L) as an SVG group at
 * (x, y) scaled by k.  labels: draw text labels; tips: <title> tooltips.
 * Root links get a ring and "R<number>". */
typedef struct hs__vz_draw {
    const hs_viz_model *m;
    const hs__vz_est   *est;
    const uint32_t     *root_num;     /* dense L + 1: root number of a link in this view */
    double              x, y, k;
    int                 labels, tips;
    const char         *idp;          /* id prefix, unique in a document */
} hs__vz_draw;
void hs__vz_draw_scene(hs__vz_buf *b, const hs__vz_scene *s, const hs__vz_draw *d);
/* The legend (colour scale, widths at the scene's scale, states, root
 * marker, how cables are split) at (x, y); returns its height.  views:
 * the pictures show phases or windows (adds "no data in this phase"). */
double hs__vz_legend(hs__vz_buf *b, double x, double y, double wmax, int views,
                     const char *idp);
#define HS__VZ_LEGEND_W 1000.0
/* <svg ...> opening and closing with the document-wide style. */
void hs__vz_svg_open(hs__vz_buf *b, double w, double h, const char *title);
void hs__vz_svg_close(hs__vz_buf *b);

/* Where a root's ring goes on item it: the middle of the drawn half (or
 * area). */
void hs__vz_item_anchor(const hs__vz_item *it, double *x, double *y);
/* "0-3,8,10-11": the ranks of node `node`, cut to max characters ("" without
 * ranks).  A node's label below its box when it fits the glyph's lw. */
void hs__vz_ranks_text(const hs_viz_model *m, uint32_t node, char *out, size_t max);
/* The label glyph g carries when drawn with labels (a switch's name inside
 * its box; below a node its ranks, or its name without ranks): buf or the
 * device's name, NULL when it has none or it does not fit g->lw. */
const char *hs__vz_glyph_label(const hs_viz_model *m, const hs__vz_glyph *g, char *buf, size_t n);

/* ---- charts ------------------------------------------------------------------- */

/* Per-phase times (NULL when there is nothing to draw). */
int hs__vz_chart_phase_times(const hs_viz_model *m, hs__vz_buf *b);
/* Latency distributions: the whole application, per phase, isolated vs
 * with background.  Returns 0 when nothing was drawn. */
int hs__vz_chart_latency(const hs_viz_model *m, hs__vz_buf *b);
/* Congestion over time (windows). */
int hs__vz_chart_windows(const hs_viz_model *m, hs__vz_buf *b);

/* ---- formatting --------------------------------------------------------------- */

/* "12.3 us", "4.56 ms": a time in ps for people. */
const char *hs__vz_time(double ps, char *buf, size_t n);
/* "1.2 MB" */
const char *hs__vz_bytes(double bytes, char *buf, size_t n);

#endif
