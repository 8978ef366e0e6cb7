/* Rank-to-node mappings: which node of the machine each rank of a job runs
 * on (include/hopscope/replay.h lists the policies).  Pure functions of the
 * configuration, so the same spec and seed place ranks identically in every
 * run, and `hopscope whatif` can re-simulate with another mapping. */
#include "hopscope/replay.h"
#include "../common/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hs_map_policy_name(hs_map_policy p)
{
    switch (p) {
    case HS_MAP_LINEAR: return "linear";
    case HS_MAP_ROUNDROBIN: return "roundrobin";
    case HS_MAP_RANDOM: return "random";
    case HS_MAP_SHIFT: return "shift";
    case HS_MAP_FILE: return "file";
    }
    return "unknown";
}

int hs_mapping_parse(const char *spec, hs_mapping_cfg *m, hs_error *err)
{
    uint32_t ppn = m->ppn;
    memset(m, 0, sizeof *m);
    m->ppn = ppn ? ppn : 1;
    if (!spec || !*spec)
        return hs_error_set(err, HS_EINVAL, "empty mapping");
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *arg = colon ? colon + 1 : NULL;
#define IS(name) (nlen == strlen(name) && strncmp(spec, name, nlen) == 0)
    if (IS("linear") || IS("block")) {
        m->policy = HS_MAP_LINEAR;
    } else if (IS("roundrobin") || IS("cyclic")) {
        m->policy = HS_MAP_ROUNDROBIN;
    } else if (IS("random")) {
        m->policy = HS_MAP_RANDOM;
        if (arg) {
            if (hs_parse_u64(arg, &m->seed))
                return hs_error_set(err, HS_EINVAL, "mapping '%s': the seed '%s' is not an "
                                    "unsigned integer", spec, arg);
            m->seed_given = 1;
            arg = NULL;
        }
    } else if (IS("shift")) {
        m->policy = HS_MAP_SHIFT;
        if (!arg || hs_parse_i64(arg, &m->shift))
            return hs_error_set(err, HS_EINVAL, "mapping '%s': shift needs a number of nodes, "
                                "e.g. shift:4", spec);
        arg = NULL;
    } else if (IS("file")) {
        m->policy = HS_MAP_FILE;
        if (!arg || !*arg)
            return hs_error_set(err, HS_EINVAL, "mapping '%s': file needs a path, file:PATH",
                                spec);
        if (strlen(arg) >= sizeof m->file)
            return hs_error_set(err, HS_EINVAL, "mapping file path too long");
        strcpy(m->file, arg);
        arg = NULL;
    } else {
        return hs_error_set(err, HS_EINVAL, "unknown mapping '%.*s' (linear, roundrobin, "
                            "random[:SEED], shift:S, file:PATH)", (int)nlen, spec);
    }
#undef IS
    if (arg)
        return hs_error_set(err, HS_EINVAL, "mapping '%s': %s takes no parameter", spec,
                            hs_map_policy_name(m->policy));
    return 0;
}

const char *hs_mapping_param(const hs_mapping_cfg *m, char *buf, size_t n)
{
    switch (m->policy) {
    case HS_MAP_RANDOM: snprintf(buf, n, "%llu", (unsigned long long)m->seed); break;
    case HS_MAP_SHIFT: snprintf(buf, n, "%lld", (long long)m->shift); break;
    case HS_MAP_FILE: snprintf(buf, n, "%s", m->file); break;
    default: snprintf(buf, n, "%s", ""); break;
    }
    return buf;
}

/* "RANK NODE" per line; '#' starts a comment.  Every rank exactly once. */
static int read_file(const hs_mapping_cfg *m, uint32_t nranks, uint32_t nnodes, uint32_t *out,
                     hs_error *err)
{
    FILE *f = fopen(m->file, "r");
    if (!f)
        return hs_error_set(err, HS_EINVAL, "mapping file '%s': %s", m->file, strerror(errno));
    for (uint32_t r = 0; r < nranks; r++)
        out[r] = UINT32_MAX;
    char line[256];
    unsigned long lineno = 0;
    uint32_t seen = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = hs_error_set(err, HS_EINVAL, "%s: line %lu: too long", m->file, lineno);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *save = NULL, *a = strtok_r(line, " \t\r\n", &save);
        if (!a)
            continue;
        char *b = strtok_r(NULL, " \t\r\n", &save), *c = strtok_r(NULL, " \t\r\n", &save);
        uint64_t rank, node;
        if (!b || c || hs_parse_u64(a, &rank) || hs_parse_u64(b, &node)) {
            rc = hs_error_set(err, HS_EINVAL, "%s: line %lu: expected 'RANK NODE'", m->file,
                              lineno);
            break;
        }
        if (rank >= nranks) {
            rc = hs_error_set(err, HS_EINVAL, "%s: line %lu: rank %llu, but the job has %u "
                              "ranks", m->file, lineno, (unsigned long long)rank, nranks);
            break;
        }
        if (node >= nnodes) {
            rc = hs_error_set(err, HS_EINVAL, "%s: line %lu: node %llu, but the machine has "
                              "%u nodes", m->file, lineno, (unsigned long long)node, nnodes);
            break;
        }
        if (out[rank] != UINT32_MAX) {
            rc = hs_error_set(err, HS_EINVAL, "%s: line %lu: rank %llu placed twice", m->file,
                              lineno, (unsigned long long)rank);
            break;
        }
        out[rank] = (uint32_t)node;
        seen++;
    }
    if (!rc && ferror(f))
        rc = hs_error_set(err, HS_EIO, "%s: read error", m->file);
    fclose(f);
    if (!rc && seen != nranks) {
        uint32_t r = 0;
        while (out[r] != UINT32_MAX)
            r++;
        rc = hs_error_set(err, HS_EINVAL, "%s: places %u of the %u ranks (rank %u is missing)",
                          m->file, seen, nranks, r);
    }
    return rc;
}

int hs_mapping_build(const hs_mapping_cfg *m, uint32_t nranks, uint32_t nnodes,
                     uint32_t *out, hs_error *err)
{
    if (nranks == 0 || nnodes == 0)
        return hs_error_set(err, HS_EINVAL, "mapping: no ranks or no nodes");
    if (m->policy == HS_MAP_FILE)
        return read_file(m, nranks, nnodes, out, err);
    uint32_t ppn = m->ppn ? m->ppn : 1;
    uint64_t used = ((uint64_t)nranks + ppn - 1) / ppn;
    if (used > nnodes)
        return hs_error_set(err, HS_EINVAL, "mapping: %u ranks at %u per node need %llu nodes; "
                            "the machine has %u", nranks, ppn, (unsigned long long)used, nnodes);
    uint32_t M = (uint32_t)used;
    switch (m->policy) {
    case HS_MAP_LINEAR:
        for (uint32_t r = 0; r < nranks; r++)
            out[r] = r / ppn;
        return 0;
    case HS_MAP_ROUNDROBIN:
        for (uint32_t r = 0; r < nranks; r++)
            out[r] = r % M;
        return 0;
    case HS_MAP_SHIFT: {
        int64_t s = m->shift % (int64_t)nnodes;
        if (s < 0)
            s += nnodes;
        for (uint32_t r = 0; r < nranks; r++)
            out[r] = (uint32_t)(((uint64_t)(r / ppn) + (uint64_t)s) % nnodes);
        return 0;
    }
    case HS_MAP_RANDOM: {
        uint32_t *nodes = malloc((size_t)nnodes * sizeof *nodes);
        uint32_t *perm = malloc((size_t)nranks * sizeof *perm);
        if (!nodes || !perm) {
            free(nodes);
            free(perm);
            return hs_error_set(err, HS_ENOMEM, "out of memory building the mapping");
        }
        uint64_t rng[4];
        hs__seed(rng, m->seed ^ 0x6d61707069ull);   /* "mappi": own stream */
        for (uint32_t i = 0; i < nnodes; i++)
            nodes[i] = i;
        for (uint32_t i = 0; i < M; i++) {            /* M nodes, partial Fisher-Yates */
            uint32_t j = i + (uint32_t)hs__rand_below(rng, nnodes - i);
            uint32_t t = nodes[i];
            nodes[i] = nodes[j];
            nodes[j] = t;
        }
        for (uint32_t i = 0; i < nranks; i++)
            perm[i] = i;
        for (uint32_t i = nranks - 1; i > 0; i--) {
            uint32_t j = (uint32_t)hs__rand_below(rng, (uint64_t)i + 1);
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (uint32_t i = 0; i < nranks; i++)
            out[perm[i]] = nodes[i / ppn];
        free(nodes);
        free(perm);
        return 0;
    }
    default:
        return hs_error_set(err, HS_EINVAL, "mapping: unknown policy %d", (int)m->policy);
    }
}
