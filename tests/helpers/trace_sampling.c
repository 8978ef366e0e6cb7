/* trace_sampling DIR: checks that the monitored flag of every point-to-point
 * send in a trace of single-threaded ranks is exactly the documented rule,
 * hs_trace_monitored(seed, rate, src, dst, seq) with seq the 0-based count
 * of earlier messages from src to dst, using the seed and rate of the
 * manifest.  Prints "checked N monitored M mismatches K" and exits 1 on any
 * mismatch. */
#include "hopscope/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trace_sampling DIR\n");
        return 2;
    }
    hs_error err;
    hs_trace *t;
    if (hs_trace_open(argv[1], &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    uint64_t *seq = calloc(m->nranks, sizeof *seq);
    uint64_t checked = 0, monitored = 0, bad = 0;
    for (uint32_t r = 0; r < m->nranks; r++) {
        hs_trace_cursor *c;
        if (hs_trace_cursor_open(t, r, &c, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        for (uint32_t i = 0; i < m->nranks; i++)
            seq[i] = 0;
        hs_trace_event ev;
        int rc;
        while ((rc = hs_trace_next(c, &ev, &err)) == 1) {
            int send = (ev.kind >= HS_TRACE_SEND && ev.kind <= HS_TRACE_IRSEND) ||
                       ev.kind == HS_TRACE_SENDRECV || ev.kind == HS_TRACE_SENDRECV_REPLACE;
            if (!send || ev.peer < 0)
                continue;
            int want = hs_trace_monitored(m->sample_seed, m->sample_rate, r, (uint32_t)ev.peer,
                                          seq[ev.peer]++);
            int got = !!(ev.flags & HS_TRACE_F_MONITORED);
            checked++;
            monitored += (uint64_t)got;
            if (want != got)
                bad++;
        }
        if (rc < 0) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        hs_trace_cursor_close(c);
    }
    printf("checked %" PRIu64 " monitored %" PRIu64 " mismatches %" PRIu64 "\n", checked,
           monitored, bad);
    free(seq);
    hs_trace_close(t);
    return bad ? 1 : 0;
}
