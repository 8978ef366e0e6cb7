/* fabric/pdes.h — private: the partition of a network over the processes of
 * a conservative parallel run (docs/fabric.md, "Parallel runs").
 *
 * A part holds whole switches with the NICs attached to them, so injection
 * and ejection links never cross a cut: only switch-to-switch links do.
 * The partition is a function of the topology and the number of parts
 * only (no load measurement, no randomness), so every process computes the
 * same one. */
#ifndef HOPSCOPE_FABRIC_PDES_H
#define HOPSCOPE_FABRIC_PDES_H

#include "topo.h"

#define HS_PDES_MAX_PARTS 4096u

typedef struct hs__part {
    unsigned  np;          /* parts */
    uint32_t *sw_part;     /* [S] the part of each switch */
    uint32_t *nodes;       /* [np] nodes per part */
    uint32_t *switches;    /* [np] switches per part */
    uint32_t  cut;         /* directed switch-to-switch links between parts */
    /* Lookahead: the least delay between an event at one part and the
     * event it causes at another.  A packet crossing cut link l arrives
     * lat(l) + routing delay after its transmission starts; the credit for
     * its buffer space goes back lat(l) after it leaves that buffer.  So
     * the bound the engine can use is min lat(l) over the cut links
     * (HS_TIME_NEVER when nothing is cut: one part, or a disconnected
     * split). */
    hs_time   lookahead;
    hs_time   lookahead_pkt; /* min lat(l) + routing delay: packets alone */
} hs__part;

/* Splits the switches of t over np parts (1..HS_PDES_MAX_PARTS, at most
 * one part per switch), per family:
 *   dragonfly  whole groups (group G to part G * np / g) when g >= np,
 *              else contiguous routers;
 *   fat-tree   each level's switches in np contiguous blocks (a level's
 *              switches are numbered subtree by subtree, so a block is a
 *              set of pods / leaves with the spines above them);
 *   torus/mesh contiguous switch indices: slabs across the slowest
 *              dimension (exact slabs when np divides its size);
 *   file       breadth-first order from switch 0, cut into blocks of equal
 *              weight (weight = ports, a proxy for the traffic a switch
 *              carries).
 * route_delay: the switches' routing delay (for lookahead_pkt).
 * HS_EINVAL (np out of range), HS_ENOMEM. */
int  hs__partition(const hs_topo *t, unsigned np, hs_time route_delay, hs__part *out);
/* The same with a weight per switch (the load expected there; NULL: as
 * above): the same structure (whole dragonfly groups when g >= np, a
 * fat-tree's levels cut separately, contiguous blocks), its blocks cut by
 * cumulative weight instead of count, every part non-empty. */
int  hs__partition_w(const hs_topo *t, unsigned np, hs_time route_delay, const double *w,
                     hs__part *out);
void hs__partition_free(hs__part *p);

static inline uint32_t hs__part_of_node(const hs_topo *t, const hs__part *p, uint32_t n)
{
    return p->sw_part[t->node_sw[n]];
}

#endif
