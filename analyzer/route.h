/* analyzer/route.h — private: paths from the forwarding tables, the
 * route-aware decoding of records and the "feeds into" flows (route.c). */
#ifndef HOPSCOPE_ANALYZER_ROUTE_H
#define HOPSCOPE_ANALYZER_ROUTE_H

#include "an.h"

/* The switch-to-switch links a packet from a switch to a destination class
 * may cross (its path, with deterministic tables). */
typedef struct hs__pentry {
    uint64_t key;        /* (source switch << 32 | class) + 1; 0 = empty slot */
    uint32_t off, n;     /* the links: pool[off .. off+n) */
    uint32_t nfirst;     /* the first nfirst of them leave the source switch */
    uint32_t last_off, nlast; /* pool[last_off ..): those entering the destination switch */
    uint32_t edge_off, nedge; /* consecutive pairs (u, v) in edges[] */
    uint64_t count;      /* records through this entry whose edges await counting */
    uint64_t lens;       /* bit n: some candidate path crosses n links in all
                            (node links included), the hop count its records
                            carry; 0 when a length exceeds 63 (no filter) */
} hs__pentry;

typedef struct hs__paths {
    const hs__run *r;
    int exact;           /* every candidate list is the packet's one path */
    hs__pentry *tab;
    size_t cap, n;
    uint32_t *pool;
    uint64_t *plen;      /* per pool slot: bit n when the link lies on a
                            candidate path of n links (node links included) */
    size_t npool, cappool, capplen;
    uint32_t *edges;     /* pairs */
    size_t nedges, capedges;
    uint32_t *stamp, gen, *queue;   /* scratch */
    /* dragonfly Valiant/UGAL (nonminimal != 0): packets between groups may
     * detour through any other group, so an entry also holds every such
     * path: the local hop to the owner of each global link towards the
     * intermediate group, that link, and the minimal path on from where it
     * lands */
    int nonminimal;
    uint32_t ngroups;
    uint32_t *gl_off, *gl;   /* global links from group G to group I: gl[gl_off[G*ng+I] ..] */
    uint32_t *local;         /* local link from switch s to router j of its group, per s*a+j */
    uint32_t a;              /* routers per group */
    uint32_t *lmark, lgen;   /* per link: in the entry being built */
    uint32_t *lpos;          /* per link marked: its pool slot */
    uint32_t *walk;          /* scratch: one detour's links (S + 2) */
    uint64_t *pre, *suf;     /* per switch: path lengths from the source switch,
                                to the destination switch (bit n: n links) */
    size_t *flow_off;    /* per link into a switch: offset in flow[], else SIZE_MAX */
    uint64_t *flow;      /* records per (link, output port of its far switch) */
    size_t nflow;
} hs__paths;

/* Whether the run's routing may leave the tables' minimal paths in a way
 * the route-aware decoder can still enumerate (dragonfly Valiant, UGAL). */
int hs__an_nonminimal(const hs__run *r);
int hs__an_paths_init(hs__paths *p, const hs__run *r, hs_error *err);
void hs__an_paths_free(hs__paths *p);
/* The entry for (source switch, destination class), built on first use.
 * The pointer is valid until the next call.  HS_ENOMEM. */
int hs__an_paths_get(hs__paths *p, uint32_t src_sw, uint32_t cls, hs__pentry **out);
int hs__an_path_has(const hs__paths *p, const hs__pentry *e, uint32_t link);
/* Records that crossed u and next v (after hs__an_paths_finish_flows). */
uint64_t hs__an_flow(const hs__paths *p, uint32_t u, uint32_t v);
void hs__an_paths_finish_flows(hs__paths *p);

/* a[i] += b[i] for i < n: sums over disjoint record sets add. */
void hs__an_ls_add(hs_linksum *a, const hs_linksum *b, uint32_t n);
void hs__an_tot_add(hs_totals *a, const hs_totals *b);

/* Chunked route-aware decoding through hash/'s hs_decode_route. */
typedef struct hs__decoder {
    hs__paths *p;
    hs_sample *smp;
    uint32_t *cand_off, *cand;
    uint32_t n, nc;          /* records and candidates pending */
    hs_linksum *tmp;
} hs__decoder;

int hs__an_decoder_init(hs__decoder *d, hs__paths *p, hs_error *err);
void hs__an_decoder_free(hs__decoder *d);
/* Adds the sums of records idx[lo..hi) (records lo..hi when idx is NULL)
 * into acc[0..L] and tot; counts their flows when count_flows.  The
 * records must have been validated (hs__records_check).  HS_ENOMEM. */
int hs__an_route_decode(hs__decoder *d, const uint32_t *idx, uint64_t lo, uint64_t hi,
                     hs_linksum *acc, hs_totals *tot, int count_flows);
/* Appends record i with the links of its path for which keep(ctx, link)
 * holds (all when keep is NULL), decoding the pending chunk into acc/tot
 * first when it is full; *out (if non-NULL) is the record's path entry.
 * hs__an_route_flush decodes what is pending.  HS_ENOMEM. */
int hs__an_route_add(hs__decoder *d, uint64_t i, int (*keep)(void *ctx, uint32_t link),
                     void *ctx, hs_linksum *acc, hs_totals *tot, hs__pentry **out);
int hs__an_route_flush(hs__decoder *d, hs_linksum *acc, hs_totals *tot);

#endif
