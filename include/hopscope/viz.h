/* hopscope/viz.h — SVG pictures and a self-contained HTML report of one
 * analysis.json (docs/formats.md, "analysis.json"; how to read the pictures:
 * docs/viz.md).
 *
 * viz/ reads analysis.json only: the analyzer's output is everything it
 * knows about the run.  A file of another format or version, or one that
 * breaks the schema (a link naming a device that does not exist, a
 * non-number where a number belongs), is rejected with a message naming
 * the file, the byte offset and the reason.  Keys it does not know are
 * ignored, as docs/formats.md asks of readers.
 *
 * Rendering is deterministic: the same analysis.json and options give
 * byte-identical SVG and HTML (fixed number formatting, no clocks, no
 * locale). */
#ifndef HOPSCOPE_VIZ_H
#define HOPSCOPE_VIZ_H

#include "hopscope/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* analysis.json files larger than this are refused (HS_ERANGE): a
 * 16k-node dragonfly's is about 40 MB. */
#define HS_VIZ_MAX_INPUT ((size_t)1 << 30)

typedef struct hs_viz_model hs_viz_model;

/* Reads PATH (an analysis.json, or a run directory holding one).  *out is
 * NULL on failure: HS_ENOENT, HS_EIO, HS_ERANGE, HS_EFORMAT (syntax or
 * schema), HS_EVERSION (another format version), HS_ENOMEM.  The caller
 * frees the model with hs_viz_free. */
int hs_viz_load(const char *path, hs_viz_model **out, hs_error *err);
/* The same from memory; NAME names the text in messages. */
int hs_viz_parse(const char *text, size_t len, const char *name, hs_viz_model **out,
                 hs_error *err);
void hs_viz_free(hs_viz_model *m);

/* How much of the network is drawn link by link. */
typedef enum hs_viz_detail {
    HS_VIZ_DETAIL_AUTO = 0,   /* aggregate when the network is too large to read */
    HS_VIZ_DETAIL_FULL,       /* every link, however many */
    HS_VIZ_DETAIL_AGGREGATE,  /* groups, planes or leaves, with zoomed details */
} hs_viz_detail;

typedef struct hs_viz_options {
    const char *command;      /* the command line shown in the report (may be NULL) */
    hs_viz_detail detail;
    unsigned max_phases;      /* phases drawn as small multiples (12); the table lists all */
    unsigned zoom;            /* groups or planes shown in detail beside an aggregate (3) */
    const char *label;        /* caption of the run (default: its path) */
    const char *compare_label;/* caption of the second run (default: its path) */
    const char *latmodel_report; /* `hopscope latmodel report`'s JSON: report.html
                                 gains its heaviest pairs, congested vs idle
                                 (NULL: none) */
} hs_viz_options;

void hs_viz_options_default(hs_viz_options *o);

/* One output document: NAME is a file name ("network.svg", "report.html"). */
typedef struct hs_viz_doc {
    char   name[48];
    char  *text;
    size_t len;
} hs_viz_doc;

/* Renders every picture and the report of M (and, when CMP is not NULL,
 * the two runs side by side) into memory.  On success *docs holds *ndocs
 * documents, report.html last; free them with hs_viz_docs_free.  Fails
 * only on HS_ENOMEM. */
int hs_viz_render(const hs_viz_model *m, const hs_viz_model *cmp, const hs_viz_options *o,
                  hs_viz_doc **docs, size_t *ndocs, hs_error *err);
void hs_viz_docs_free(hs_viz_doc *docs, size_t ndocs);
/* Writes the documents into DIR (created if needed).  HS_EIO names the file. */
int hs_viz_write(const char *dir, const hs_viz_doc *docs, size_t ndocs, hs_error *err);

/* The colour of congested fraction CF (clamped to [0, 1]) on the scale of
 * every picture: magma, reversed, so that congested links are dark
 * (docs/viz.md gives the anchors).  rgb receives 8-bit sRGB. */
void hs_viz_cf_rgb(double cf, unsigned char rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
