/* Progress lines on stderr for long runs of analyze and render.
 *
 * A short run prints nothing: lines start once HS__PROGRESS_AFTER seconds
 * have passed (HOPSCOPE_PROGRESS_AFTER=SECONDS overrides it, e.g. 0 to see
 * every stage, as the tests do), then come at most one per second or when
 * the stage changes, and a last line gives the total time.  -q turns them
 * off.  Only stderr: the command's output and files never depend on time. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HS__PROGRESS_AFTER 2.0   /* seconds of silence before the first line */
#define HS__PROGRESS_EVERY 1.0   /* seconds between lines within one stage */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void hs__progress_init(hs__progress *p, const char *cmd, int quiet)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->quiet = quiet;
    p->after = HS__PROGRESS_AFTER;
    const char *e = getenv("HOPSCOPE_PROGRESS_AFTER");
    if (e && *e) {
        char *end;
        double x = strtod(e, &end);
        if (*end == 0 && x >= 0 && x < 1e6)
            p->after = x;
    }
    p->t0 = now_s();
}

void hs__progress_cb(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    hs__progress *p = ctx;
    if (p->quiet)
        return;
    double t = now_s() - p->t0;
    int changed = strncmp(p->stage, stage, sizeof p->stage - 1) != 0;
    if (t < p->after || (!changed && t - p->last < HS__PROGRESS_EVERY))
        return;
    snprintf(p->stage, sizeof p->stage, "%s", stage);
    p->last = t;
    p->shown = 1;
    if (total)
        fprintf(stderr, "%s: %.1f s: %s: %llu of %llu (%.0f%%)\n", p->cmd, t, stage,
                (unsigned long long)done, (unsigned long long)total,
                100.0 * (double)done / (double)total);
    else
        fprintf(stderr, "%s: %.1f s: %s\n", p->cmd, t, stage);
    fflush(stderr);
}

void hs__progress_done(hs__progress *p)
{
    if (!p->quiet && p->shown)
        fprintf(stderr, "%s: done in %.1f s\n", p->cmd, now_s() - p->t0);
}
