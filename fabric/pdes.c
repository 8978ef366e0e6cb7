/* The partition of a network for a parallel run (pdes.h; docs/fabric.md,
 * "Parallel runs"). */
#include "pdes.h"

#include <stdlib.h>
#include <string.h>

void hs__partition_free(hs__part *p)
{
    free(p->sw_part);
    free(p->nodes);
    free(p->switches);
    memset(p, 0, sizeof *p);
}

/* Cuts the switches, in the order ord[0..n), into np blocks of about equal
 * weight: a switch goes to the part its weight's midpoint falls in. */
static void chunk(const hs_topo *t, const uint32_t *ord, uint32_t n, unsigned np,
                  uint32_t *part)
{
    uint64_t total = 0, acc = 0;
    for (uint32_t i = 0; i < n; i++)
        total += t->port_off[ord[i] + 1] - t->port_off[ord[i]];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w = t->port_off[ord[i] + 1] - t->port_off[ord[i]];
        uint64_t mid = 2 * acc + w;   /* twice the midpoint */
        uint64_t k = total ? mid * np / (2 * total) : (uint64_t)i * np / n;
        part[ord[i]] = (uint32_t)(k < np ? k : np - 1);
        acc += w;
    }
}

int hs__partition(const hs_topo *t, unsigned np, hs_time route_delay, hs__part *out)
{
    memset(out, 0, sizeof *out);
    uint32_t S = t->nswitches;
    if (np < 1 || np > HS_PDES_MAX_PARTS || np > S)
        return HS_EINVAL;
    out->np = np;
    out->sw_part = calloc(S, sizeof *out->sw_part);
    out->nodes = calloc(np, sizeof *out->nodes);
    out->switches = calloc(np, sizeof *out->switches);
    uint32_t *ord = malloc((size_t)S * sizeof *ord);
    if (!out->sw_part || !out->nodes || !out->switches || !ord) {
        free(ord);
        hs__partition_free(out);
        return HS_ENOMEM;
    }
    uint32_t *part = out->sw_part;
    switch (t->kind) {
    case HS_TOPO_DRAGONFLY: {
        const hs__dragonfly *d = &t->u.df;
        for (uint32_t s = 0; s < S; s++)
            part[s] = d->g >= np ? (uint32_t)((uint64_t)(s / d->a) * np / d->g)
                                 : (uint32_t)((uint64_t)s * np / S);
        break;
    }
    case HS_TOPO_FATTREE: {
        const hs__fattree *f = &t->u.ft;
        for (unsigned l = 1; l <= f->h; l++) {
            uint32_t c = f->count[l];
            for (uint32_t i = 0; i < c; i++)
                part[f->first[l] + i] = (uint32_t)((uint64_t)i * np / c);
        }
        break;
    }
    case HS_TOPO_TORUS:
        for (uint32_t s = 0; s < S; s++)
            part[s] = (uint32_t)((uint64_t)s * np / S);
        break;
    default: {
        /* breadth-first from switch 0, then from the first switch not yet
         * reached (a file may hold several components) */
        uint32_t *dist = malloc((size_t)S * sizeof *dist);
        if (!dist) {
            free(ord);
            hs__partition_free(out);
            return HS_ENOMEM;
        }
        memset(dist, 0xff, (size_t)S * sizeof *dist);
        uint32_t nq = 0;
        for (uint32_t s = 0; s < S; s++)
            if (dist[s] == UINT32_MAX)
                hs__topo_bfs(t, s, dist, ord, &nq);
        free(dist);
        chunk(t, ord, S, np, part);
        break;
    }
    }
    free(ord);

    for (uint32_t s = 0; s < S; s++)
        out->switches[part[s]]++;
    for (uint32_t n = 0; n < t->nnodes; n++)
        out->nodes[part[t->node_sw[n]]]++;
    out->lookahead = out->lookahead_pkt = HS_TIME_NEVER;
    for (uint32_t l = 1; l <= t->nlinks; l++) {
        const hs_link_info *li = &t->links[l];
        if (li->from_kind != HS_DEV_SWITCH || li->to_kind != HS_DEV_SWITCH ||
            part[li->from] == part[li->to])
            continue;
        out->cut++;
        if (li->lat < out->lookahead)
            out->lookahead = li->lat;
        if (li->lat + route_delay < out->lookahead_pkt)
            out->lookahead_pkt = li->lat + route_delay;
    }
    return 0;
}
