/* fabric/topo.h — private: the topology graph shared by every topology
 * builder, the routing functions and the engine.
 *
 * A topology is a set of nodes (one NIC each, single-rail), switches with
 * numbered ports, and directed links with dense IDs 1..nlinks.  A cable is
 * two directed links.  Port j of a switch carries one cable: port_out[j] is
 * the link leaving through it, port_in[j] the link arriving.
 *
 * Link ID order, common to all topologies (docs/formats.md):
 *   1..N        injection links, node i -> its switch, id = 1 + i
 *   N+1..2N     ejection links, switch -> node i, id = N + 1 + i
 *   2N+1..      switch-to-switch cables in the builder's documented order,
 *               each cable giving two consecutive IDs (forward, reverse). */
#ifndef HOPSCOPE_FABRIC_TOPO_H
#define HOPSCOPE_FABRIC_TOPO_H

#include "hopscope/fabric.h"

#define HS_FT_MAXLEV 8
#define HS_TORUS_MAXDIM 8
#define HS_NO_LINK 0u

typedef struct hs__fattree {
    unsigned h;                       /* levels of switches */
    uint32_t m[HS_FT_MAXLEV + 1];     /* m[l]: children of a level-l switch */
    uint32_t w[HS_FT_MAXLEV + 1];     /* w[l]: parents of a level-(l-1) element */
    uint32_t count[HS_FT_MAXLEV + 1]; /* elements at level l (count[0] = nodes) */
    uint32_t first[HS_FT_MAXLEV + 2]; /* first switch index of level l */
    uint64_t mp[HS_FT_MAXLEV + 1];    /* prod_{i<=l} m_i */
    uint64_t wp[HS_FT_MAXLEV + 1];    /* prod_{i<=l} w_i */
    uint32_t taper;                   /* as given (k/n form), for the spec */
    uint32_t kary_k, kary_n;          /* k/n form, 0 if explicit */
} hs__fattree;

typedef struct hs__dragonfly {
    uint32_t a, p, h, g;
    uint64_t gbw;
    hs_time  glat;
    /* global port j (0..a*h-1) of group G leads to group gdst[G*a*h + j]
     * (UINT32_MAX: unconnected) */
    uint32_t *gdst;
    /* the global ports of group G towards group X:
     * gport[goff[G*g + X] .. goff[G*g + X + 1]) */
    uint32_t *goff, *gport;
} hs__dragonfly;

typedef struct hs__torus {
    unsigned n;                       /* dimensions */
    uint32_t k[HS_TORUS_MAXDIM];
    uint32_t stride[HS_TORUS_MAXDIM];
    uint32_t p;                       /* nodes per switch */
    int      wrap;                    /* torus (1) or mesh (0) */
} hs__torus;

/* The switch model (router=, docs/fabric.md "Router modes"): the default
 * continuous-time virtual cut-through switch, or a cycle-level model of
 * BookSim2's input-queued VC router (fabric/router_booksim.c), with its
 * parameters under BookSim's names (cycles; buffers in flits). */
enum hs__router_kind { HS_ROUTER_DEFAULT = 0, HS_ROUTER_BOOKSIM = 1 };
typedef struct hs__router_prm {
    unsigned kind;                    /* hs__router_kind */
    uint32_t flit;                    /* bytes per flit: one flit per cycle per link */
    uint32_t vc_buf_size;             /* flits per VC buffer */
    uint32_t routing_delay, vc_alloc_delay, sw_alloc_delay, st_final_delay;
    uint32_t credit_delay;
    uint32_t wait_for_tail_credit;
    uint32_t hold_switch_for_packet;
    uint32_t internal_speedup_milli;  /* internal_speedup x 1000 */
} hs__router_prm;

typedef struct hs__tfile {
    char    *path;
    char   **node_names, **switch_names;
    uint32_t *lft;                    /* [switch * nnodes + dst]: out link */
    unsigned maxhops;                 /* longest routed switch-to-switch path */
} hs__tfile;

struct hs_topo {
    hs_topo_kind kind;
    hs_routing   routing;
    unsigned     nvc;
    char        *spec;                /* canonical */
    uint32_t nnodes, nswitches, nlinks;
    hs_link_info *links;              /* [nlinks + 1], [0] unused */
    uint32_t *port_off;               /* [nswitches + 1] */
    uint32_t *port_out, *port_in;     /* [port_off[nswitches]] */
    uint32_t *node_sw;                /* [nnodes] */
    uint32_t *node_port;              /* [nnodes]: port at its switch */
    int      shallow;                 /* parameters and counts only, no link
                                         table (hs_topo_describe) */
    uint64_t bw;                      /* default link rate */
    hs_time  lat;                     /* default link latency */
    uint64_t nbw;                     /* node (terminal) links' rate */
    hs_time  nlat;                    /* node links' latency */
    unsigned vclasses;                /* VC classes the routing needs for
                                         deadlock freedom */
    unsigned lanes;                   /* VCs per class: nvc = vclasses * lanes */
    unsigned vcsel;                   /* hs__vcsel: a packet's lane */
    hs__router_prm router;            /* router= and its parameters */
    union {
        hs__fattree   ft;
        hs__dragonfly df;
        hs__torus     tor;
        hs__tfile     file;
    } u;
};

/* ---- building (topo.c) -------------------------------------------------- */

/* Allocates node/switch/port/link arrays for a topology whose switches have
 * the given port counts (nports[s]) and whose links number nlinks; fills
 * nothing else.  HS_ENOMEM. */
int hs__topo_alloc(hs_topo *t, uint32_t nnodes, uint32_t nswitches,
                   const uint32_t *nports, uint32_t nlinks);
/* Attaches node i to port `port` of switch sw with injection link 1+i and
 * ejection link N+1+i. */
void hs__topo_attach_node(hs_topo *t, uint32_t node, uint32_t sw, uint32_t port,
                          uint64_t bw, hs_time lat);
/* Adds a cable between (sa, pa) and (sb, pb) with IDs *next_id (a->b) and
 * *next_id+1 (b->a); returns the a->b id.  `fwd` describes a->b (kind, sub,
 * level, dim, dir, wrap, bw, lat); the reverse gets the mirror subkind. */
uint32_t hs__topo_cable(hs_topo *t, uint32_t *next_id, uint32_t sa, uint32_t pa,
                        uint32_t sb, uint32_t pb, const hs_link_info *fwd);

/* Breadth-first search over switch-to-switch links from switch src: sets
 * dist[] (hops) of every switch it reaches whose dist was UINT32_MAX, and
 * appends them to queue[] from *nq on, in visiting order.  The caller
 * initialises dist (all UINT32_MAX for a fresh search). */
void hs__topo_bfs(const hs_topo *t, uint32_t src, uint32_t *dist, uint32_t *queue,
                  uint32_t *nq);

/* ---- spec parsing helpers (topo.c) -------------------------------------- */

typedef struct hs__kv {
    char *key, *val;      /* val NULL for a bare word */
} hs__kv;
#define HS__MAXKV 32
typedef struct hs__spec {
    char    buf[1024];
    hs__kv  kv[HS__MAXKV];
    unsigned n;
    unsigned used;        /* bitmask of consumed entries */
} hs__spec;

/* Splits "a=1,b=2,bare" (modified in place in s->buf). */
int hs__spec_split(hs__spec *s, const char *text, const char *what, hs_error *err);
/* Value of key (marks it used), or NULL. */
const char *hs__spec_get(hs__spec *s, const char *key);
/* Unsigned integer key within [lo, hi]; *v unchanged if absent. */
int hs__spec_u32(hs__spec *s, const char *key, uint32_t lo, uint32_t hi,
                 uint32_t *v, const char *what, hs_error *err);
/* Common link options bw= and lat= (and routing=, returned raw). */
int hs__spec_link(hs__spec *s, const char *kbw, const char *klat, uint64_t *bw,
                  hs_time *lat, const char *what, hs_error *err);
/* VC selection within a class (vcsel=): the lane a packet keeps from its
 * NIC to its destination; its VC on every link is class * lanes + lane. */
enum hs__vcsel {
    HS_VCSEL_DEST = 0,    /* destination node mod lanes (default) */
    HS_VCSEL_RR = 1,      /* round-robin per packet at the source NIC */
    HS_VCSEL_SL = 2,      /* service level: the message's phase id mod lanes */
};
/* Node-link and VC options every regular family takes: nbw= (default bw),
 * nlat= (default 100 ns: node cables are their own, lat= does not set
 * them), vcs= (a multiple of `classes`, at most HS_FABRIC_MAX_VCS; default
 * `classes`), vcsel=dest|rr|sl.  Sets t->nbw, nlat, vclasses, lanes,
 * vcsel and nvc.  Call after bw= is parsed. */
int hs__spec_nodes_vcs(hs__spec *s, hs_topo *t, unsigned classes, const char *what,
                       hs_error *err);
/* The canonical form of those options: ",nbw=..,nlat=..,vcs=N[,vcsel=..]". */
void hs__spec_nodes_vcs_fmt(const hs_topo *t, char *buf, size_t n);
/* router=booksim and its parameters (router_booksim.c); the default
 * router leaves t->router zeroed and adds nothing to the canonical spec. */
int hs__router_spec(hs__spec *s, hs_topo *t, const char *what, hs_error *err);
void hs__router_spec_fmt(const hs_topo *t, char *buf, size_t n);
/* Fails naming the first entry no one consumed. */
int hs__spec_check_unused(hs__spec *s, const char *what, hs_error *err);

/* Defaults of a real HDR/NDR-class machine (docs/topology.md). */
#define HS_DEFAULT_BW   25000000000ull          /* 200 Gb/s */
#define HS_DEFAULT_LAT  (100 * HS_PS_PER_NS)    /* ~20 m of cable + PHY */
#define HS_DEFAULT_GLAT (200 * HS_PS_PER_NS)    /* dragonfly global cables */

/* Exact, re-parseable forms for canonical specs: "25GB/s", "100ns". */
void hs__fmt_rate_exact(uint64_t bytes_per_s, char *buf, size_t n);
void hs__fmt_time_exact(hs_time t, char *buf, size_t n);
/* Sets t->spec to a malloc'd copy of the formatted text; HS_ENOMEM. */
int hs__topo_set_spec(hs_topo *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- topology builders -------------------------------------------------- */

int hs__fattree_build(hs_topo *t, hs__spec *s, hs_error *err);
int hs__dragonfly_build(hs_topo *t, hs__spec *s, hs_error *err);
int hs__torus_build(hs_topo *t, hs__spec *s, int wrap, hs_error *err);
int hs__tfile_build(hs_topo *t, const char *path, hs_error *err);
void hs__dragonfly_free(hs__dragonfly *d);
void hs__tfile_free(hs__tfile *f, uint32_t nnodes, uint32_t nswitches);

/* Per-topology names and bisection (the *_name functions write into buf). */
void hs__fattree_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n);
void hs__dragonfly_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n);
void hs__torus_switch_name(const hs_topo *t, uint32_t sw, char *buf, size_t n);
void hs__fattree_bisection(const hs_topo *t, hs_topo_summary *s);
void hs__dragonfly_bisection(const hs_topo *t, hs_topo_summary *s);
void hs__torus_bisection(const hs_topo *t, hs_topo_summary *s);
void hs__tfile_bisection(const hs_topo *t, hs_topo_summary *s);
/* Node-to-node diameters from the families' parameters (no graph search);
 * tests/unit/test_fabric_topo.c checks them against BFS. */
uint32_t hs__fattree_diameter(const hs_topo *t);
uint32_t hs__dragonfly_diameter(const hs_topo *t);
uint32_t hs__torus_diameter(const hs_topo *t);
/* Node-to-node diameter by BFS from at most max_src switches that have
 * nodes (all of them when max_src is 0), chosen evenly; *exact = 1 when
 * every such switch was a source (else the result is a lower bound).
 * UINT32_MAX when a reached switch with nodes misses another; HS_ENOMEM
 * as a negative value in *rc. */
uint32_t hs__topo_diameter_bfs(const hs_topo *t, uint32_t max_src, int *exact, int *rc);
/* Sources the summary of a topology file searches from (the stated bound). */
#define HS__DIAMETER_BFS_SOURCES 256

/* Minimal/deterministic forwarding choices (the forwarding-table view). */
unsigned hs__fattree_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                               uint32_t *out, unsigned max);
unsigned hs__dragonfly_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                                 uint32_t *out, unsigned max);
unsigned hs__torus_route_set(const hs_topo *t, uint32_t sw, uint32_t dst,
                             uint32_t *out, unsigned max);

/* Fat-tree helpers shared with the router: level of a switch (1..h) and
 * whether dst lies below it; the down port towards dst; the D-mod-K up
 * port. */
unsigned hs__fattree_level(const hs__fattree *ft, uint32_t sw);
int hs__fattree_below(const hs__fattree *ft, uint32_t sw, uint32_t dst,
                      uint32_t *down_port);
uint32_t hs__fattree_dmodk_up(const hs__fattree *ft, unsigned level, uint32_t dst);

/* Dragonfly helpers: the global port of group G that router r uses to reach
 * group X: among the links from G to X, those giving the fewest hops to the
 * destination router Rd (a switch index; HS_NIL when only the group
 * matters), ties broken by key mod count; -1 if none. */
int64_t hs__dragonfly_gport(const hs__dragonfly *d, uint32_t G, uint32_t r, uint32_t X,
                            uint32_t Rd, uint32_t key);
/* Port number at router r of the local cable to router r2 (r != r2). */
static inline uint32_t hs__df_local_port(const hs__dragonfly *d, uint32_t r, uint32_t r2)
{
    return d->p + (r2 < r ? r2 : r2 - 1);
}
static inline uint32_t hs__df_global_port(const hs__dragonfly *d, uint32_t j)
{
    return d->p + d->a - 1 + j % d->h;
}
/* Router (within its group) where global port j of a group lands, in the
 * consecutive arrangement (topo_dragonfly.c): the partner port's router. */
static inline uint32_t hs__df_landing(const hs__dragonfly *d, uint32_t j)
{
    uint32_t o = j % (d->g - 1) + 1, m = j / (d->g - 1);
    return ((d->g - 1 - o) + m * (d->g - 1)) / d->h;
}

/* Torus helpers: coordinate of switch sw in dimension i. */
static inline uint32_t hs__torus_coord(const hs__torus *tr, uint32_t sw, unsigned i)
{
    return (sw / tr->stride[i]) % tr->k[i];
}
/* Port numbers: + and - neighbours in dimension i. */
static inline uint32_t hs__torus_port(const hs__torus *tr, unsigned i, int dir)
{
    return tr->p + 2 * i + (dir < 0 ? 1u : 0u);
}

#endif
