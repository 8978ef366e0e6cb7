/* manifest.txt: the job description of a trace, one "key value" per line.
 *
 *   hopscope-trace 1          first line: format name and version
 *   key value                 value = rest of the line, backslash-escaped
 *   node IDX NAME             one per node, IDX = 0..nodes-1 in order
 *   rank R NODE PID HOST      one per rank, R = 0..ranks-1 in order
 *   setting NAME=VALUE        HOPSCOPE_* settings seen by the job
 *   end                       last line; without it the file is incomplete
 *
 * The reader is strict: unknown keys, duplicates, missing keys, ranks or
 * nodes out of order are errors naming the line. */
#include "format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- writing ------------------------------------------------------------ */

static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '\\')
            fputs("\\\\", f);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

static void kv(FILE *f, const char *key, const char *val)
{
    fprintf(f, "%s ", key);
    put_escaped(f, val);
    fputc('\n', f);
}

int hs_trace_manifest_write(const char *dir, const hs_trace_manifest *m, hs_error *err)
{
    if (m->nranks == 0 || m->nnodes == 0 || !m->rank_node || !m->node_names)
        return hs_error_set(err, HS_EINVAL, "manifest: no ranks or no nodes");
    for (uint32_t r = 0; r < m->nranks; r++)
        if (m->rank_node[r] >= m->nnodes)
            return hs_error_set(err, HS_EINVAL, "manifest: rank %u on node %u of %u", r,
                                m->rank_node[r], m->nnodes);
    char path[4096], tmp[4096 + 32];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, HS__MANIFEST_NAME) >= sizeof path)
        return hs_error_set(err, HS_EINVAL, "%s: directory name too long", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return hs_error_set(err, HS_EIO, "%s: %s", tmp, strerror(errno));
    fprintf(f, "hopscope-trace %u\n", HS_TRACE_FORMAT_VERSION);
    kv(f, "writer", m->writer);
    kv(f, "mpi_abi", m->mpi_abi);
    kv(f, "mpi_library", m->mpi_library);
    kv(f, "mpi_version", m->mpi_version);
    kv(f, "command", m->command);
    kv(f, "start_time", m->start_time);
    kv(f, "clock", m->clock);
    kv(f, "node_mode", m->node_mode);
    fprintf(f, "thread_level %u\n", m->thread_level);
    fprintf(f, "sample_rate %.17g\n", m->sample_rate);
    fprintf(f, "sample_seed %llu\n", (unsigned long long)m->sample_seed);
    fprintf(f, "ranks %u\n", m->nranks);
    fprintf(f, "nodes %u\n", m->nnodes);
    for (size_t i = 0; i < m->nsettings; i++)
        kv(f, "setting", m->settings[i]);
    for (uint32_t n = 0; n < m->nnodes; n++) {
        fprintf(f, "node %u ", n);
        put_escaped(f, m->node_names[n]);
        fputc('\n', f);
    }
    for (uint32_t r = 0; r < m->nranks; r++) {
        fprintf(f, "rank %u %u %u ", r, m->rank_node[r], m->rank_pid ? m->rank_pid[r] : 0);
        put_escaped(f, m->rank_host ? m->rank_host[r] : m->node_names[m->rank_node[r]]);
        fputc('\n', f);
    }
    for (uint32_t h = 0; h < m->nhosts; h++) {
        fprintf(f, "host_cores %u ", m->host_cores[h]);
        put_escaped(f, m->host_name[h]);
        fputc('\n', f);
    }
    fputs("end\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        unlink(tmp);
        return hs_error_set(err, HS_EIO, "%s: write failed", tmp);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return hs_error_set(err, HS_EIO, "%s: %s", path, strerror(e));
    }
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

int32_t hs_trace_manifest_host_of(const hs_trace_manifest *m, uint32_t r)
{
    if (!m || !m->rank_host || r >= m->nranks || !m->rank_host[r])
        return -1;
    for (uint32_t h = 0; h < m->nhosts; h++)
        if (m->host_name[h] && strcmp(m->host_name[h], m->rank_host[r]) == 0)
            return (int32_t)h;
    return -1;
}

void hs_trace_manifest_free(hs_trace_manifest *m)
{
    if (!m)
        return;
    for (uint32_t h = 0; h < m->nhosts; h++)
        free(m->host_name[h]);
    free(m->host_name);
    free(m->host_cores);
    free(m->writer);
    free(m->mpi_abi);
    free(m->mpi_library);
    free(m->mpi_version);
    free(m->command);
    free(m->start_time);
    free(m->clock);
    free(m->node_mode);
    if (m->node_names)
        for (uint32_t i = 0; i < m->nnodes; i++)
            free(m->node_names[i]);
    free(m->node_names);
    if (m->rank_host)
        for (uint32_t i = 0; i < m->nranks; i++)
            free(m->rank_host[i]);
    free(m->rank_host);
    free(m->rank_node);
    free(m->rank_pid);
    for (size_t i = 0; i < m->nsettings; i++)
        free(m->settings[i]);
    free(m->settings);
    memset(m, 0, sizeof *m);
}

/* Undoes put_escaped in place; -1 on a malformed escape. */
static int unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        p++;
        if (*p == '\\')
            *o++ = '\\';
        else if (*p == 'n')
            *o++ = '\n';
        else if (*p == 't')
            *o++ = '\t';
        else if (*p == 'x') {
            char hex[3] = { p[1], p[2], 0 };
            char *end;
            if (!p[1] || !p[2])
                return -1;
            long v = strtol(hex, &end, 16);
            if (*end || v <= 0)
                return -1;
            *o++ = (char)v;
            p += 2;
        } else
            return -1;
    }
    *o = 0;
    return 0;
}

typedef struct mparse {
    const char *path;
    unsigned line;
    hs_error *err;
} mparse;

static int perr(mparse *mp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(mparse *mp, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return hs_error_set(mp->err, HS_EFORMAT, "%s: line %u: %s", mp->path, mp->line, msg);
}

static int take_str(mparse *mp, char **slot, const char *key, const char *val)
{
    if (*slot)
        return perr(mp, "duplicate '%s'", key);
    *slot = strdup(val);
    if (!*slot)
        return hs_error_set(mp->err, HS_ENOMEM, "out of memory");
    if (unescape(*slot) != 0)
        return perr(mp, "bad escape in '%s'", key);
    return 0;
}

static int take_u32(mparse *mp, const char *key, const char *val, uint32_t *out, uint32_t max)
{
    uint64_t v;
    if (hs_parse_u64(val, &v) != 0 || v > max)
        return perr(mp, "'%s' must be an integer 0..%u, not '%s'", key, max, val);
    *out = (uint32_t)v;
    return 0;
}

/* Largest job a manifest may describe: bounds the reader's allocations. */
#define MANIFEST_MAX_RANKS (1u << 24)

int hs_trace_manifest_read(const char *dir, hs_trace_manifest *m, hs_error *err)
{
    memset(m, 0, sizeof *m);
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, HS__MANIFEST_NAME) >= sizeof path)
        return hs_error_set(err, HS_EINVAL, "%s: directory name too long", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_error_set(err, errno == ENOENT ? HS_ENOENT : HS_EIO, "%s: %s%s", path,
                            strerror(errno),
                            errno == ENOENT ? " (not a trace directory, or rank 0 never "
                                              "reached MPI_Init)" : "");
    mparse mp = { path, 0, err };
    char *line = NULL;
    size_t lcap = 0;
    ssize_t n;
    int rc = 0, have_end = 0, have_ranks = 0, have_nodes = 0, have_rate = 0;
    int have_seed = 0, have_level = 0;
    uint32_t next_node = 0, next_rank = 0;
    size_t scap = 0;
    while ((n = getline(&line, &lcap, f)) >= 0) {
        mp.line++;
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = 0;
        if ((size_t)n != strlen(line)) {
            rc = perr(&mp, "NUL byte in line");
            break;
        }
        if (have_end) {
            rc = perr(&mp, "text after 'end'");
            break;
        }
        if (mp.line == 1) {
            uint64_t ver;
            if (strncmp(line, "hopscope-trace ", 15) != 0 || hs_parse_u64(line + 15, &ver) != 0) {
                rc = hs_error_set(err, HS_EFORMAT, "%s: line 1: not a hopscope trace manifest",
                                  path);
                break;
            }
            if (ver != HS_TRACE_FORMAT_VERSION) {
                rc = hs_error_set(err, HS_EVERSION,
                                  "%s: trace format version %llu, this hopscope reads %u", path,
                                  (unsigned long long)ver, HS_TRACE_FORMAT_VERSION);
                break;
            }
            m->version = (uint32_t)ver;
            continue;
        }
        if (strcmp(line, "end") == 0) {
            have_end = 1;
            continue;
        }
        char *sp = strchr(line, ' ');
        if (!sp) {
            rc = perr(&mp, "expected 'key value'");
            break;
        }
        *sp = 0;
        const char *key = line, *val = sp + 1;
        if (strcmp(key, "writer") == 0) rc = take_str(&mp, &m->writer, key, val);
        else if (strcmp(key, "mpi_abi") == 0) rc = take_str(&mp, &m->mpi_abi, key, val);
        else if (strcmp(key, "mpi_library") == 0) rc = take_str(&mp, &m->mpi_library, key, val);
        else if (strcmp(key, "mpi_version") == 0) rc = take_str(&mp, &m->mpi_version, key, val);
        else if (strcmp(key, "command") == 0) rc = take_str(&mp, &m->command, key, val);
        else if (strcmp(key, "start_time") == 0) rc = take_str(&mp, &m->start_time, key, val);
        else if (strcmp(key, "clock") == 0) rc = take_str(&mp, &m->clock, key, val);
        else if (strcmp(key, "node_mode") == 0) rc = take_str(&mp, &m->node_mode, key, val);
        else if (strcmp(key, "thread_level") == 0) {
            rc = have_level++ ? perr(&mp, "duplicate 'thread_level'")
                              : take_u32(&mp, key, val, &m->thread_level, 3);
        } else if (strcmp(key, "sample_rate") == 0) {
            if (have_rate++ || hs_parse_double(val, &m->sample_rate) != 0 ||
                m->sample_rate < 0 || m->sample_rate > 1)
                rc = perr(&mp, "'sample_rate' must appear once and be in [0, 1]");
        } else if (strcmp(key, "sample_seed") == 0) {
            if (have_seed++ || hs_parse_u64(val, &m->sample_seed) != 0)
                rc = perr(&mp, "'sample_seed' must appear once and be an integer");
        } else if (strcmp(key, "ranks") == 0 || strcmp(key, "nodes") == 0) {
            int isr = key[0] == 'r';
            uint32_t v = 0;
            int *have = isr ? &have_ranks : &have_nodes;
            if ((*have)++) {
                rc = perr(&mp, "duplicate '%s'", key);
            } else if ((rc = take_u32(&mp, key, val, &v, MANIFEST_MAX_RANKS)) == 0) {
                if (v == 0)
                    rc = perr(&mp, "'%s' must be at least 1", key);
                else if (isr) {
                    m->nranks = v;
                    m->rank_node = calloc(v, sizeof *m->rank_node);
                    m->rank_pid = calloc(v, sizeof *m->rank_pid);
                    m->rank_host = calloc(v, sizeof *m->rank_host);
                    if (!m->rank_node || !m->rank_pid || !m->rank_host)
                        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                } else {
                    m->nnodes = v;
                    m->node_names = calloc(v, sizeof *m->node_names);
                    if (!m->node_names)
                        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                }
            }
        } else if (strcmp(key, "setting") == 0) {
            if (m->nsettings == scap) {
                size_t nc = scap ? scap * 2 : 8;
                char **ns = realloc(m->settings, nc * sizeof *ns);
                if (!ns) {
                    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                    break;
                }
                m->settings = ns;
                scap = nc;
            }
            m->settings[m->nsettings] = NULL;
            rc = take_str(&mp, &m->settings[m->nsettings], key, val);
            m->nsettings++;
        } else if (strcmp(key, "node") == 0) {
            uint32_t idx;
            char *sp2 = strchr(val, ' ');
            if (!have_nodes)
                rc = perr(&mp, "'node' before 'nodes'");
            else if (!sp2)
                rc = perr(&mp, "expected 'node INDEX NAME'");
            else {
                *sp2 = 0;
                if ((rc = take_u32(&mp, "node index", val, &idx, UINT32_MAX)) == 0) {
                    if (idx != next_node || idx >= m->nnodes)
                        rc = perr(&mp, "node %u out of order (expected %u of %u)", idx,
                                  next_node, m->nnodes);
                    else {
                        rc = take_str(&mp, &m->node_names[idx], "node name", sp2 + 1);
                        next_node++;
                    }
                }
            }
        } else if (strcmp(key, "rank") == 0) {
            char *f1 = (char *)val, *f2, *f3, *f4;
            uint32_t r, node, pid;
            if (!have_ranks || !have_nodes)
                rc = perr(&mp, "'rank' before 'ranks' and 'nodes'");
            else if (!(f2 = strchr(f1, ' ')) || !(*f2++ = 0, f3 = strchr(f2, ' ')) ||
                     !(*f3++ = 0, f4 = strchr(f3, ' ')))
                rc = perr(&mp, "expected 'rank RANK NODE PID HOST'");
            else {
                *f4++ = 0;
                if ((rc = take_u32(&mp, "rank", f1, &r, UINT32_MAX)) == 0 &&
                    (rc = take_u32(&mp, "rank node", f2, &node, UINT32_MAX)) == 0 &&
                    (rc = take_u32(&mp, "rank pid", f3, &pid, UINT32_MAX)) == 0) {
                    if (r != next_rank || r >= m->nranks)
                        rc = perr(&mp, "rank %u out of order (expected %u of %u)", r,
                                  next_rank, m->nranks);
                    else if (node >= m->nnodes)
                        rc = perr(&mp, "rank %u on node %u, but there are %u nodes", r, node,
                                  m->nnodes);
                    else {
                        m->rank_node[r] = node;
                        m->rank_pid[r] = pid;
                        rc = take_str(&mp, &m->rank_host[r], "rank host", f4);
                        next_rank++;
                    }
                }
            }
        } else if (strcmp(key, "host_cores") == 0) {
            char *sp2 = strchr(val, ' ');
            uint32_t cores;
            if (!sp2)
                rc = perr(&mp, "expected 'host_cores CORES HOST'");
            else if (*sp2 = 0, (rc = take_u32(&mp, "host_cores", val, &cores, 1u << 24)) == 0) {
                if (cores == 0)
                    rc = perr(&mp, "host_cores 0");
                else if ((m->nhosts & (m->nhosts - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
                    size_t nc = m->nhosts ? 2u * m->nhosts : 1;
                    char **nn = realloc(m->host_name, nc * sizeof *nn);
                    if (nn)
                        m->host_name = nn;
                    uint32_t *ncr = nn ? realloc(m->host_cores, nc * sizeof *ncr) : NULL;
                    if (ncr)
                        m->host_cores = ncr;
                    else
                        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
                }
                if (!rc) {
                    m->host_name[m->nhosts] = NULL;
                    m->host_cores[m->nhosts] = cores;
                    rc = take_str(&mp, &m->host_name[m->nhosts], "host name", sp2 + 1);
                    m->nhosts++;
                }
            }
        } else {
            rc = perr(&mp, "unknown key '%s'", key);
        }
        if (rc)
            break;
    }
    free(line);
    int ioerr = ferror(f);
    fclose(f);
    if (!rc && ioerr)
        rc = hs_error_set(err, HS_EIO, "%s: read error", path);
    if (!rc && mp.line == 0)
        rc = hs_error_set(err, HS_EFORMAT, "%s: empty file", path);
    if (!rc && !have_end)
        rc = hs_error_set(err, HS_ETRUNC, "%s: ends after line %u without 'end' (cut short)",
                          path, mp.line);
    if (!rc) {
        const char *missing = !m->writer ? "writer" : !m->mpi_abi ? "mpi_abi"
                            : !m->mpi_library ? "mpi_library" : !m->mpi_version ? "mpi_version"
                            : !m->command ? "command" : !m->start_time ? "start_time"
                            : !m->clock ? "clock" : !m->node_mode ? "node_mode"
                            : !have_ranks ? "ranks" : !have_nodes ? "nodes"
                            : !have_rate ? "sample_rate" : !have_seed ? "sample_seed"
                            : !have_level ? "thread_level" : NULL;
        if (missing)
            rc = hs_error_set(err, HS_EFORMAT, "%s: missing '%s'", path, missing);
        else if (next_node != m->nnodes)
            rc = hs_error_set(err, HS_EFORMAT, "%s: %u of %u 'node' lines", path, next_node,
                              m->nnodes);
        else if (next_rank != m->nranks)
            rc = hs_error_set(err, HS_EFORMAT, "%s: %u of %u 'rank' lines", path, next_rank,
                              m->nranks);
    }
    if (rc)
        hs_trace_manifest_free(m);
    return rc;
}
