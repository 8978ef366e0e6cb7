/* Topology files (docs/topology.md, "Topology files"): any graph of
 * switches and single-rail nodes, with optional forwarding tables.
 *
 *     hopscope-topology 1
 *     default bw=25GB/s lat=100ns
 *     switch s0 s1
 *     node a b
 *     link a s0
 *     link s0 s1 bw=50GB/s lat=300ns
 *     route s0 b s1
 *
 * Nodes and switches are numbered in order of declaration; a switch's ports
 * in the order its links appear.  Switch-to-switch links get IDs after the
 * node links, in file order, each giving two IDs (first->second, then
 * second->first).
 *
 * Forwarding: `route SWITCH NODE NEXT` entries where given; every other
 * entry is a shortest path (BFS over switches), the tie between equal-cost
 * next hops broken by taking candidate (dst mod count) in link-ID order, so
 * that destinations spread over parallel paths (D-mod-K in spirit).  The
 * tables are checked: every switch must reach every node without a loop.
 * VCs are hop-indexed (VC = switch-to-switch hops so far), which makes any
 * loop-free routing deadlock-free when there are as many VCs as the longest
 * path has hops; beyond HS_FABRIC_MAX_VCS the last VC is shared and the
 * engine's deadlock detection is the safety net. */
#include "topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096
#define MAX_DEVICES (1u << 20)
#define MAX_LFT_ENTRIES (1ull << 28)

typedef struct dev {
    char    *name;
    int      is_switch;
    uint32_t index;    /* among nodes or among switches */
    uint32_t nports;
} dev;

typedef struct cable {
    uint32_t a, b;     /* device numbers */
    uint64_t bw;
    hs_time  lat;
    unsigned line;
} cable;

typedef struct route_line {
    uint32_t sw, node, next;
    unsigned line;
} route_line;

typedef struct parser {
    const char *path;
    dev    *devs;
    uint32_t ndev, capdev;
    cable  *cables;
    uint32_t ncab, capcab;
    route_line *routes;
    uint32_t nrt, caprt;
    /* open-addressing name index */
    uint32_t *slot;
    uint32_t nslot;
} parser;

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int64_t find_dev(const parser *p, const char *name)
{
    if (!p->nslot)
        return -1;
    for (uint64_t i = name_hash(name) & (p->nslot - 1);; i = (i + 1) & (p->nslot - 1)) {
        uint32_t d = p->slot[i];
        if (d == UINT32_MAX)
            return -1;
        if (strcmp(p->devs[d].name, name) == 0)
            return d;
    }
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *n = realloc(*arr, (size_t)nc * elem);
    if (!n)
        return HS_ENOMEM;
    *arr = n;
    *cap = nc;
    return 0;
}

static int add_dev(parser *p, const char *name, int is_switch, uint32_t index)
{
    if (p->ndev + 1 > p->nslot / 2) {
        uint32_t ns = p->nslot ? p->nslot * 2 : 256;
        uint32_t *slot = malloc((size_t)ns * sizeof *slot);
        if (!slot)
            return HS_ENOMEM;
        memset(slot, 0xff, (size_t)ns * sizeof *slot);
        for (uint32_t d = 0; d < p->ndev; d++) {
            uint64_t i = name_hash(p->devs[d].name) & (ns - 1);
            while (slot[i] != UINT32_MAX)
                i = (i + 1) & (ns - 1);
            slot[i] = d;
        }
        free(p->slot);
        p->slot = slot;
        p->nslot = ns;
    }
    if (grow((void **)&p->devs, &p->capdev, p->ndev + 1, sizeof *p->devs))
        return HS_ENOMEM;
    char *copy = strdup(name);
    if (!copy)
        return HS_ENOMEM;
    dev *d = &p->devs[p->ndev];
    d->name = copy;
    d->is_switch = is_switch;
    d->index = index;
    d->nports = 0;
    uint64_t i = name_hash(name) & (p->nslot - 1);
    while (p->slot[i] != UINT32_MAX)
        i = (i + 1) & (p->nslot - 1);
    p->slot[i] = p->ndev++;
    return 0;
}

static int valid_name(const char *s)
{
    if (!*s || strlen(s) > 64)
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == ':' || c == '[' || c == ']'))
            return 0;
    }
    return 1;
}

/* Splits a line into whitespace-separated words in place. */
static unsigned words(char *line, char **w, unsigned max)
{
    unsigned n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == max)
            return max + 1;
        w[n++] = tok;
    }
    return n;
}

/* bw=/lat= options at the end of a `default` or `link` line. */
static int link_opts(const parser *p, unsigned line, char **w, unsigned n,
                     uint64_t *bw, hs_time *lat, hs_error *err)
{
    for (unsigned i = 0; i < n; i++) {
        if (strncmp(w[i], "bw=", 3) == 0) {
            if (hs_parse_rate(w[i] + 3, bw) != 0)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: '%s': expected a rate such as "
                                    "25GB/s", p->path, line, w[i]);
        } else if (strncmp(w[i], "lat=", 4) == 0) {
            if (hs_parse_time(w[i] + 4, lat) != 0)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: '%s': expected a time such as "
                                    "100ns", p->path, line, w[i]);
        } else {
            return hs_error_set(err, HS_EFORMAT, "%s:%u: unknown option '%s' (bw= or lat=)",
                                p->path, line, w[i]);
        }
    }
    return 0;
}

static int parse_file(parser *p, FILE *f, hs_topo *t, hs_error *err)
{
    char line[MAX_LINE + 2];
    unsigned lineno = 0;
    int header = 0;
    uint32_t nnodes = 0, nsw = 0;
    uint64_t dbw = t->bw;
    hs_time dlat = t->lat;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len > MAX_LINE && line[len - 1] != '\n')
            return hs_error_set(err, HS_EFORMAT, "%s:%u: line longer than %d characters",
                                p->path, lineno, MAX_LINE);
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        for (char *c = line; *c; c++)
            if (*c == '\r' || *c == '\n')
                *c = ' ';
        char *w[64];
        unsigned n = words(line, w, 64);
        if (n == 0)
            continue;
        if (n > 64)
            return hs_error_set(err, HS_EFORMAT, "%s:%u: too many words on a line",
                                p->path, lineno);
        if (!header) {
            if (strcmp(w[0], "hopscope-topology") != 0 || n != 2)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: expected the header line "
                                    "'hopscope-topology 1'", p->path, lineno);
            if (strcmp(w[1], "1") != 0)
                return hs_error_set(err, HS_EVERSION, "%s:%u: topology file version %s "
                                    "(this hopscope reads version 1)", p->path, lineno, w[1]);
            header = 1;
            continue;
        }
        if (strcmp(w[0], "default") == 0) {
            int rc = link_opts(p, lineno, w + 1, n - 1, &dbw, &dlat, err);
            if (rc)
                return rc;
        } else if (strcmp(w[0], "switch") == 0 || strcmp(w[0], "node") == 0) {
            int is_sw = w[0][0] == 's';
            if (n < 2)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: '%s' needs at least one name",
                                    p->path, lineno, w[0]);
            for (unsigned i = 1; i < n; i++) {
                if (!valid_name(w[i]))
                    return hs_error_set(err, HS_EFORMAT, "%s:%u: bad name '%s' (letters, "
                                        "digits and _-.:[] only, at most 64)",
                                        p->path, lineno, w[i]);
                if (find_dev(p, w[i]) >= 0)
                    return hs_error_set(err, HS_EFORMAT, "%s:%u: '%s' declared twice",
                                        p->path, lineno, w[i]);
                if (p->ndev >= MAX_DEVICES)
                    return hs_error_set(err, HS_ERANGE, "%s:%u: more than %u devices",
                                        p->path, lineno, MAX_DEVICES);
                int rc = add_dev(p, w[i], is_sw, is_sw ? nsw++ : nnodes++);
                if (rc)
                    return rc;
            }
        } else if (strcmp(w[0], "link") == 0) {
            if (n < 3)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: 'link A B [bw=R] [lat=T]'",
                                    p->path, lineno);
            int64_t a = find_dev(p, w[1]), b = find_dev(p, w[2]);
            if (a < 0 || b < 0)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: '%s' is not declared (declare "
                                    "switches and nodes before their links)",
                                    p->path, lineno, a < 0 ? w[1] : w[2]);
            if (a == b)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: link from '%s' to itself",
                                    p->path, lineno, w[1]);
            if (!p->devs[a].is_switch && !p->devs[b].is_switch)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: link between two nodes ('%s', "
                                    "'%s'): nodes attach to switches", p->path, lineno, w[1], w[2]);
            uint64_t bw = dbw;
            hs_time lat = dlat;
            int rc = link_opts(p, lineno, w + 3, n - 3, &bw, &lat, err);
            if (rc)
                return rc;
            if (grow((void **)&p->cables, &p->capcab, p->ncab + 1, sizeof *p->cables))
                return HS_ENOMEM;
            /* a node link is stored switch-second so the node is always `a` */
            if (p->devs[b].is_switch && !p->devs[a].is_switch) {
                if (p->devs[a].nports)
                    return hs_error_set(err, HS_EFORMAT, "%s:%u: node '%s' has a second link "
                                        "(nodes are single-rail)", p->path, lineno, w[1]);
            } else if (!p->devs[b].is_switch) {
                if (p->devs[b].nports)
                    return hs_error_set(err, HS_EFORMAT, "%s:%u: node '%s' has a second link "
                                        "(nodes are single-rail)", p->path, lineno, w[2]);
                int64_t x = a;
                a = b;
                b = x;
            }
            if (p->devs[a].nports == UINT32_MAX - 1 || p->devs[b].nports == UINT32_MAX - 1)
                return HS_ERANGE;
            p->devs[a].nports++;
            p->devs[b].nports++;
            cable *c = &p->cables[p->ncab++];
            c->a = (uint32_t)a;
            c->b = (uint32_t)b;
            c->bw = bw;
            c->lat = lat;
            c->line = lineno;
        } else if (strcmp(w[0], "route") == 0) {
            if (n != 4)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: 'route SWITCH NODE NEXT'",
                                    p->path, lineno);
            int64_t s = find_dev(p, w[1]), d = find_dev(p, w[2]), x = find_dev(p, w[3]);
            if (s < 0 || d < 0 || x < 0)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: '%s' is not declared", p->path,
                                    lineno, s < 0 ? w[1] : d < 0 ? w[2] : w[3]);
            if (!p->devs[s].is_switch || p->devs[d].is_switch)
                return hs_error_set(err, HS_EFORMAT, "%s:%u: 'route SWITCH NODE NEXT': '%s' "
                                    "must be a switch and '%s' a node", p->path, lineno, w[1], w[2]);
            if (grow((void **)&p->routes, &p->caprt, p->nrt + 1, sizeof *p->routes))
                return HS_ENOMEM;
            route_line *r = &p->routes[p->nrt++];
            r->sw = (uint32_t)s;
            r->node = (uint32_t)d;
            r->next = (uint32_t)x;
            r->line = lineno;
        } else {
            return hs_error_set(err, HS_EFORMAT, "%s:%u: unknown statement '%s' (expected "
                                "default, switch, node, link or route)", p->path, lineno, w[0]);
        }
    }
    if (ferror(f))
        return hs_error_set(err, HS_EIO, "%s: read error: %s", p->path, strerror(errno));
    if (!header)
        return hs_error_set(err, HS_EFORMAT, "%s: empty file (expected 'hopscope-topology 1')",
                            p->path);
    if (nnodes < 2)
        return hs_error_set(err, HS_EFORMAT, "%s: fewer than 2 nodes", p->path);
    if (nsw < 1)
        return hs_error_set(err, HS_EFORMAT, "%s: no switch", p->path);
    for (uint32_t d = 0; d < p->ndev; d++)
        if (!p->devs[d].is_switch && p->devs[d].nports != 1)
            return hs_error_set(err, HS_EFORMAT, "%s: node '%s' has no link", p->path,
                                p->devs[d].name);
    t->bw = dbw;
    t->lat = dlat;
    return 0;
}

/* A device's name once the topology owns the names (p->devs[].name is NULL
 * by then). */
static const char *dev_name(const hs_topo *t, const dev *d)
{
    const hs__tfile *tf = &t->u.file;
    return d->is_switch ? tf->switch_names[d->index] : tf->node_names[d->index];
}

/* Shortest-path tables, then the file's route entries, then the check. */
static int build_tables(parser *p, hs_topo *t, hs_error *err)
{
    hs__tfile *tf = &t->u.file;
    uint32_t S = t->nswitches, N = t->nnodes;
    if ((uint64_t)S * N > MAX_LFT_ENTRIES)
        return hs_error_set(err, HS_ERANGE, "%s: %u switches x %u nodes is too large for "
                            "forwarding tables", p->path, S, N);
    tf->lft = calloc((size_t)S * N, sizeof *tf->lft);
    uint32_t *dist = malloc((size_t)S * sizeof *dist);
    uint32_t *queue = malloc((size_t)S * sizeof *queue);
    uint32_t *cand = malloc(((size_t)t->port_off[S] + 1) * sizeof *cand);
    int rc = 0;
    if (!tf->lft || !dist || !queue || !cand) {
        rc = HS_ENOMEM;
        goto out;
    }
    for (uint32_t D = 0; D < S && !rc; D++) {
        int any = 0;
        for (uint32_t n = 0; n < N; n++)
            any |= t->node_sw[n] == D;
        if (!any)
            continue;
        /* BFS from D over reverse links: every cable is bidirectional, so
         * the distance to D equals the distance from D. */
        for (uint32_t i = 0; i < S; i++)
            dist[i] = UINT32_MAX;
        uint32_t nq = 0;
        hs__topo_bfs(t, D, dist, queue, &nq);
        for (uint32_t s = 0; s < S; s++) {
            if (s == D)
                continue;
            if (dist[s] == UINT32_MAX) {
                char a[80], b[80];
                rc = hs_error_set(err, HS_EFORMAT, "%s: switch '%s' cannot reach switch '%s' "
                                  "(the network is not connected)", p->path,
                                  hs_topo_switch_name(t, s, a, sizeof a),
                                  hs_topo_switch_name(t, D, b, sizeof b));
                break;
            }
            unsigned nc = 0;
            for (uint32_t q = t->port_off[s]; q < t->port_off[s + 1]; q++) {
                const hs_link_info *l = &t->links[t->port_out[q]];
                if (l->to_kind == HS_DEV_SWITCH && dist[l->to] + 1 == dist[s])
                    cand[nc++] = l->id;
            }
            /* link-ID order: ports are in file order, and so are IDs */
            for (unsigned i = 1; i < nc; i++)
                for (unsigned j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
                    uint32_t x = cand[j];
                    cand[j] = cand[j - 1];
                    cand[j - 1] = x;
                }
            for (uint32_t n = 0; n < N; n++)
                if (t->node_sw[n] == D)
                    tf->lft[(size_t)s * N + n] = cand[n % nc];
        }
    }
    for (uint32_t n = 0; n < N; n++)
        tf->lft[(size_t)t->node_sw[n] * N + n] = hs_topo_node_ejection(t, n);
    for (uint32_t i = 0; i < p->nrt && !rc; i++) {
        const route_line *r = &p->routes[i];
        uint32_t s = p->devs[r->sw].index, n = p->devs[r->node].index;
        const dev *x = &p->devs[r->next];
        uint32_t found = 0;
        for (uint32_t q = t->port_off[s]; q < t->port_off[s + 1] && !found; q++) {
            const hs_link_info *l = &t->links[t->port_out[q]];
            if ((l->to_kind == HS_DEV_SWITCH) == (x->is_switch != 0) && l->to == x->index)
                found = l->id;
        }
        if (!found)
            rc = hs_error_set(err, HS_EFORMAT, "%s:%u: '%s' is not a neighbour of '%s'",
                              p->path, r->line, dev_name(t, x), dev_name(t, &p->devs[r->sw]));
        else if (t->node_sw[n] == s && found != hs_topo_node_ejection(t, n))
            rc = hs_error_set(err, HS_EFORMAT, "%s:%u: '%s' is attached to '%s': its route "
                              "there can only be the node itself", p->path, r->line,
                              dev_name(t, &p->devs[r->node]), dev_name(t, &p->devs[r->sw]));
        else if (!x->is_switch && x->index != n)
            rc = hs_error_set(err, HS_EFORMAT, "%s:%u: route for '%s' leads to another node "
                              "'%s'", p->path, r->line, dev_name(t, &p->devs[r->node]),
                              dev_name(t, x));
        else
            tf->lft[(size_t)s * N + n] = found;
    }
    /* walk every table path: no loops, and the longest decides the VCs */
    tf->maxhops = 0;
    for (uint32_t s0 = 0; s0 < S && !rc; s0++)
        for (uint32_t n = 0; n < N && !rc; n++) {
            uint32_t s = s0, hops = 0;
            while (s != t->node_sw[n]) {
                const hs_link_info *l = &t->links[tf->lft[(size_t)s * N + n]];
                s = l->to;
                if (++hops > S) {
                    char a[80];
                    rc = hs_error_set(err, HS_EFORMAT, "%s: the routes from switch '%s' to node "
                                      "'%s' loop", p->path, hs_topo_switch_name(t, s0, a, sizeof a),
                                      tf->node_names[n]);
                    break;
                }
            }
            if (hops > tf->maxhops)
                tf->maxhops = hops;
        }
out:
    free(dist);
    free(queue);
    free(cand);
    return rc;
}

void hs__tfile_free(hs__tfile *f, uint32_t nnodes, uint32_t nswitches)
{
    if (f->node_names)
        for (uint32_t i = 0; i < nnodes; i++)
            free(f->node_names[i]);
    if (f->switch_names)
        for (uint32_t i = 0; i < nswitches; i++)
            free(f->switch_names[i]);
    free(f->node_names);
    free(f->switch_names);
    free(f->lft);
    free(f->path);
    memset(f, 0, sizeof *f);
}

int hs__tfile_build(hs_topo *t, const char *path, hs_error *err)
{
    t->kind = HS_TOPO_FILE;
    t->routing = HS_ROUTE_TABLE;
    hs__tfile *tf = &t->u.file;
    memset(tf, 0, sizeof *tf);
    parser p;
    memset(&p, 0, sizeof p);
    p.path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_error_set(err, HS_EIO, "cannot open topology file '%s': %s", path,
                            strerror(errno));
    int rc = parse_file(&p, f, t, err);
    fclose(f);
    uint32_t N = 0, S = 0;
    uint32_t *nports = NULL;
    if (rc)
        goto out;
    for (uint32_t d = 0; d < p.ndev; d++) {
        if (p.devs[d].is_switch)
            S++;
        else
            N++;
    }
    nports = calloc(S, sizeof *nports);
    if (!nports) {
        rc = HS_ENOMEM;
        goto out;
    }
    for (uint32_t d = 0; d < p.ndev; d++)
        if (p.devs[d].is_switch)
            nports[p.devs[d].index] = p.devs[d].nports;
    uint64_t nlinks = 2ull * p.ncab;
    if (nlinks > (1ull << 31)) {
        rc = hs_error_set(err, HS_ERANGE, "%s: too many links", path);
        goto out;
    }
    rc = hs__topo_alloc(t, N, S, nports, (uint32_t)nlinks);
    tf->node_names = calloc(N, sizeof *tf->node_names);
    tf->switch_names = calloc(S, sizeof *tf->switch_names);
    tf->path = strdup(path);
    if (rc || !tf->node_names || !tf->switch_names || !tf->path) {
        rc = rc ? rc : HS_ENOMEM;
        goto out;
    }
    for (uint32_t d = 0; d < p.ndev; d++) {
        char **slot = p.devs[d].is_switch ? &tf->switch_names[p.devs[d].index]
                                          : &tf->node_names[p.devs[d].index];
        *slot = p.devs[d].name;
        p.devs[d].name = NULL;  /* ownership moves to the topology */
    }
    /* ports in order of appearance of each switch's cables */
    uint32_t *port_next = calloc(S, sizeof *port_next);
    if (!port_next) {
        rc = HS_ENOMEM;
        goto out;
    }
    uint32_t next = 2 * N + 1;
    hs_link_info fwd;
    memset(&fwd, 0, sizeof fwd);
    fwd.sub = HS_SUB_PLAIN;
    for (uint32_t i = 0; i < p.ncab; i++) {
        const cable *c = &p.cables[i];
        const dev *a = &p.devs[c->a], *b = &p.devs[c->b];
        if (!a->is_switch) {
            hs__topo_attach_node(t, a->index, b->index, port_next[b->index]++, c->bw, c->lat);
        } else {
            fwd.bw = c->bw;
            fwd.lat = c->lat;
            uint32_t pa = port_next[a->index]++, pb = port_next[b->index]++;
            hs__topo_cable(t, &next, a->index, pa, b->index, pb, &fwd);
        }
    }
    free(port_next);
    rc = build_tables(&p, t, err);
    if (!rc) {
        /* VC = switch-to-switch hops before this link: 0..maxhops-1 */
        unsigned v = tf->maxhops ? tf->maxhops : 1;
        t->nvc = v > HS_FABRIC_MAX_VCS ? HS_FABRIC_MAX_VCS : v;
        t->vclasses = t->nvc;   /* one lane per class: no vcs= on files */
        rc = hs__topo_set_spec(t, "file:%s", path);
    }
out:
    free(nports);
    for (uint32_t d = 0; d < p.ndev; d++)
        free(p.devs[d].name);
    free(p.devs);
    free(p.cables);
    free(p.routes);
    free(p.slot);
    return rc;
}

/* No polynomial minimum bisection for general graphs: split the switches in
 * BFS order from switch 0 where half the nodes are reached, and report the
 * capacity of that cut, an upper bound on the minimum bisection. */
void hs__tfile_bisection(const hs_topo *t, hs_topo_summary *s)
{
    uint32_t S = t->nswitches;
    uint32_t *order = malloc((size_t)S * sizeof *order);
    uint8_t *side = calloc(S ? S : 1, 1);
    uint32_t *seen = malloc((S ? S : 1) * sizeof *seen);
    uint32_t *nodes = calloc(S ? S : 1, sizeof *nodes);
    s->bisection_exact = 0;
    if (!order || !side || !seen || !nodes) {
        snprintf(s->bisection_how, sizeof s->bisection_how, "not computed (out of memory)");
        goto out;
    }
    for (uint32_t n = 0; n < t->nnodes; n++)
        nodes[t->node_sw[n]]++;
    for (uint32_t i = 0; i < S; i++)
        seen[i] = UINT32_MAX;
    uint32_t nq = 0;
    for (uint32_t s0 = 0; s0 < S; s0++)
        if (seen[s0] == UINT32_MAX)
            hs__topo_bfs(t, s0, seen, order, &nq);
    uint32_t acc = 0;
    for (uint32_t i = 0; i < S; i++) {
        side[order[i]] = acc >= t->nnodes / 2;
        acc += nodes[order[i]];
    }
    uint64_t links = 0;
    double bw = 0;
    for (uint32_t id = 1; id <= t->nlinks; id++) {
        const hs_link_info *l = &t->links[id];
        if (l->kind != HS_LINK_SWITCH)
            continue;
        if (side[l->from] == 0 && side[l->to] == 1) {
            links++;
            bw += (double)l->bw;
        }
    }
    s->bisection_links = (uint32_t)links;
    s->bisection_bw = bw;
    snprintf(s->bisection_how, sizeof s->bisection_how,
             "breadth-first split of the switches (an upper bound)");
out:
    free(order);
    free(side);
    free(seen);
    free(nodes);
}
