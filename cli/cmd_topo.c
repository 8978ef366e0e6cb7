/* hopscope topo SPEC: builds a topology and prints its size, diameter and
 * bisection bandwidth; optionally its link table or a routed path. */
#include "cli.h"
#include "hopscope/fabric.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(const hs_link_info *l)
{
    switch (l->kind) {
    case HS_LINK_INJECTION: return "injection";
    case HS_LINK_EJECTION: return "ejection";
    default: break;
    }
    switch (l->sub) {
    case HS_SUB_UP: return "up";
    case HS_SUB_DOWN: return "down";
    case HS_SUB_LOCAL: return "local";
    case HS_SUB_GLOBAL: return "global";
    case HS_SUB_TORUS: return "torus";
    default: return "switch";
    }
}

static const char *dev_name(const hs_topo *t, int kind, uint32_t i, char *buf, size_t n)
{
    return kind == HS_DEV_NODE ? hs_topo_node_name(t, i, buf, n)
                               : hs_topo_switch_name(t, i, buf, n);
}

static void print_links(const hs_topo *t)
{
    printf("id\tkind\tfrom\tto\tbandwidth\tlatency\n");
    for (uint32_t id = 1; id <= hs_topo_links(t); id++) {
        const hs_link_info *l = hs_topo_link(t, id);
        char a[80], b[80], r[32], lt[32];
        printf("%u\t%s\t%s\t%s\t%s\t%s\n", id, kind_name(l),
               dev_name(t, l->from_kind, l->from, a, sizeof a),
               dev_name(t, l->to_kind, l->to, b, sizeof b),
               hs_rate_str((double)l->bw, r, sizeof r), hs_time_str(l->lat, lt, sizeof lt));
    }
}

/* Follows the forwarding tables (first entry where there are several). */
static int print_path(const hs_topo *t, uint32_t src, uint32_t dst)
{
    char a[80], b[80];
    uint32_t link = hs_topo_node_injection(t, src);
    unsigned hops = 0;
    for (;;) {
        const hs_link_info *l = hs_topo_link(t, link);
        printf("%6u  %-9s %s -> %s\n", link, kind_name(l),
               dev_name(t, l->from_kind, l->from, a, sizeof a),
               dev_name(t, l->to_kind, l->to, b, sizeof b));
        if (l->to_kind == HS_DEV_NODE)
            break;
        uint32_t out[64];
        if (hs_topo_route_set(t, l->to, dst, out, 64) == 0 || ++hops > hs_topo_switches(t)) {
            fprintf(stderr, "hopscope topo: no route at %s\n",
                    hs_topo_switch_name(t, l->to, a, sizeof a));
            return HS_EXIT_FAIL;
        }
        link = out[0];
    }
    if (!hs_topo_table_determined(t))
        printf("(%s routing leaves minimal paths under load; this is the minimal path)\n",
               hs_routing_name(hs_topo_routing(t)));
    return HS_EXIT_OK;
}

static void print_summary(const hs_topo_desc *d)
{
    const hs_topo_summary *s = &d->s;
    char r[32], lt[32], bb[32];
    printf("topology    %s\n", d->spec);
    printf("nodes       %u\n", s->nodes);
    printf("switches    %u\n", s->switches);
    printf("links       %u directed (%u injection, %u ejection, %u switch-to-switch)\n",
           s->links, s->inj_links, s->ej_links, s->sw_links);
    printf("node links  %s, %s latency\n", hs_rate_str((double)d->node_bw, r, sizeof r),
           hs_time_str(d->node_lat, lt, sizeof lt));
    if (s->diameter == UINT32_MAX)
        printf("diameter    infinite (not connected)\n");
    else if (s->diameter_exact)
        printf("diameter    %u links node to node\n", s->diameter);
    else
        printf("diameter    at least %u links node to node (%s)\n", s->diameter,
               s->diameter_how);
    printf("bisection   %s one way, %u links%s (%s)\n",
           hs_rate_str(s->bisection_bw, bb, sizeof bb), s->bisection_links,
           s->bisection_exact ? "" : ", upper bound", s->bisection_how);
    printf("per node    %.3g of injection bandwidth across the bisection\n",
           s->bisection_bw / ((double)s->nodes / 2.0 * (double)d->node_bw));
    printf("routing     %s (%s, %u VC%s)\n", hs_routing_name(d->routing),
           d->deterministic ? "deterministic" : "adaptive", d->vcs, d->vcs > 1 ? "s" : "");
}

int hs__cmd_topo(int argc, char **argv)
{
    static const struct option opts[] = {
        { "links", no_argument, NULL, 'l' },
        { "path", required_argument, NULL, 'p' },
        { NULL, 0, NULL, 0 },
    };
    int links = 0;
    const char *path = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'l': links = 1; break;
        case 'p': path = optarg; break;
        default:
            return hs__usage_error("topo", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return hs__usage_error("topo", optind == argc ? "give a topology, e.g. fattree:k=8,n=2"
                                                      : "one topology at a time");
    hs_error err;
    hs_error_clear(&err);
    if (!path && !links) {
        /* the summary needs no link table for the regular families */
        hs_topo_desc d;
        int rc = hs_topo_describe(argv[optind], &d, &err);
        if (rc) {
            fprintf(stderr, "hopscope topo: %s\n", hs_error_str(&err, rc));
            return rc == HS_ENOMEM || rc == HS_EIO ? HS_EXIT_FAIL : HS_EXIT_USAGE;
        }
        print_summary(&d);
        return HS_EXIT_OK;
    }
    hs_topo *t;
    int rc = hs_topo_create(argv[optind], &t, &err);
    if (rc) {
        fprintf(stderr, "hopscope topo: %s\n", hs_error_str(&err, rc));
        return rc == HS_ENOMEM || rc == HS_EIO ? HS_EXIT_FAIL : HS_EXIT_USAGE;
    }
    if (path) {
        uint64_t s, d;
        const char *colon = strchr(path, ':');
        char sbuf[32];
        if (!colon || (size_t)(colon - path) >= sizeof sbuf) {
            hs_topo_free(t);
            return hs__usage_error("topo", "--path SRC:DST, e.g. --path 0:17");
        }
        memcpy(sbuf, path, (size_t)(colon - path));
        sbuf[colon - path] = '\0';
        if (hs_parse_u64(sbuf, &s) || hs_parse_u64(colon + 1, &d) ||
            s >= hs_topo_nodes(t) || d >= hs_topo_nodes(t) || s == d) {
            hs_topo_free(t);
            return hs__usage_error("topo", "--path %s: two different node numbers below %u",
                                   path, hs_topo_nodes(t));
        }
        rc = print_path(t, (uint32_t)s, (uint32_t)d);
        hs_topo_free(t);
        return rc;
    }
    print_links(t);
    hs_topo_free(t);
    return HS_EXIT_OK;
}
