/* Helpers shared by the unit tests that write traces (include after
 * cmocka.h and hopscope/trace.h): temporary directories and the manifest of
 * a synthetic job. */
#ifndef HOPSCOPE_TEST_TRACE_UTIL_H
#define HOPSCOPE_TEST_TRACE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new directory /tmp/hs-WHAT-test.XXXXXX (the caller frees the name). */
static inline char *test_tmpdir(const char *what)
{
    char tmpl[128];
    snprintf(tmpl, sizeof tmpl, "/tmp/hs-%s-test.XXXXXX", what);
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static inline void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The manifest of a synthetic job: nranks ranks (at most 64), rank r on
 * node PREFIX(r % nnodes) (its host too) with pid pid0 + r, and the fixed
 * fields of a test trace.  Change any field of m, then test_manifest_write. */
typedef struct test_manifest {
    hs_trace_manifest m;
    char *names[64], *hosts[64];
    uint32_t node[64], pid[64];
} test_manifest;

static inline void test_manifest_init(test_manifest *t, uint32_t nranks, uint32_t nnodes,
                                      const char *prefix, uint32_t pid0)
{
    memset(t, 0, sizeof *t);
    assert_true(nranks <= 64 && nnodes >= 1 && nnodes <= 64);
    for (uint32_t n = 0; n < nnodes; n++) {
        t->names[n] = malloc(16);
        snprintf(t->names[n], 16, "%s%u", prefix, n);
    }
    for (uint32_t r = 0; r < nranks; r++) {
        t->node[r] = r % nnodes;
        t->pid[r] = pid0 + r;
        t->hosts[r] = t->names[r % nnodes];
    }
    hs_trace_manifest *m = &t->m;
    m->nranks = nranks;
    m->nnodes = nnodes;
    m->writer = "test";
    m->mpi_abi = "none";
    m->mpi_library = "synthetic";
    m->mpi_version = "3.1";
    m->command = "./app";
    m->start_time = "2024-01-01T00:00:00Z";
    m->clock = "ns";
    m->node_mode = "synthetic";
    m->sample_rate = 1;
    m->node_names = t->names;
    m->rank_node = t->node;
    m->rank_host = t->hosts;
    m->rank_pid = t->pid;
}

/* Writes DIR/manifest.txt and frees the names. */
static inline void test_manifest_write(test_manifest *t, const char *dir)
{
    hs_error e;
    assert_int_equal(hs_trace_manifest_write(dir, &t->m, &e), 0);
    for (uint32_t n = 0; n < t->m.nnodes; n++)
        free(t->names[n]);
}

#endif
