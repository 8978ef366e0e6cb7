/* libtrace/wire/wire.h — private to libhopscope-wire.so, the capture below
 * MPI (hopscope record --wire).
 *
 * The library interposes UCX's UCP entry points (wire_ucx.c) and
 * libfabric's fi_fabric with the ops tables of what it opens (wire_ofi.c),
 * and, when the
 * MPI-level interposer libhopscope.so is loaded too, writes one
 * WIRE_* event per operation into the rank's wire file (wire_core.c), with
 * the thread index and clock of the rank file.  It changes nothing the
 * application sees: every argument is forwarded as given, except that a
 * completion callback is replaced by a trampoline that calls the original
 * with the original arguments first and then notes the time (for an nbx
 * call UCP gets a user-data slot of ours, and the original callback the
 * caller's user data from it: wire_ucx.c).
 *
 * A completion seen on the posting thread while the operation's record is
 * still in the thread's buffer goes into that record (HS__WIRE_OPDONE,
 * format.h): one record per operation.
 *
 * Invariants: no allocation on the common path (per-thread buffers and
 * user-data slots, one fixed request table, sized at first use, locked
 * only under MPI_THREAD_MULTIPLE); a thread-local depth guard so
 * that UCP calls made by UCP itself (ucp_tag_send_nb -> ucp_tag_send_nbx)
 * are recorded once; any internal failure stops recording, never the
 * application. */
#ifndef HOPSCOPE_WIRE_H
#define HOPSCOPE_WIRE_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "../format.h"
#include "../wire_host.h"

#define HS__WHIDDEN __attribute__((visibility("hidden")))
#define hs__wlikely(x)   __builtin_expect(!!(x), 1)
#define hs__wunlikely(x) __builtin_expect(!!(x), 0)

typedef struct hs__wbuf hs__wbuf;

typedef struct hs__wdone {
    uint64_t t;
    uint32_t flags;
    uint64_t bytes, stag;
} hs__wdone;

/* Completions that happen inside a wrapper's real call (a callback run by
 * UCP before the call returns) are written after the wrapper's own event,
 * which starts earlier: a thread's events stay in start order. */
#define HS__WDEFER 16
typedef struct hs__wtls {
    int depth;            /* > 0 inside a wire wrapper */
    int ndefer;
    uint64_t last_t;      /* time of this thread's last operation */
    uint64_t poll_t0;     /* entry of the ucp_worker_progress call running, or 0 */
    int poll_split;       /* that call is already in a written progress record */
    hs__wbuf *buf;
    uint64_t defer_id[HS__WDEFER];
    hs__wdone defer[HS__WDEFER];
} hs__wtls;
extern HS__WHIDDEN __thread hs__wtls hs__wt __attribute__((tls_model("initial-exec")));

/* The MPI level's table; NULL when libhopscope.so is not loaded (then the
 * wrappers only forward). */
extern HS__WHIDDEN const hs__wire_host *hs__wh;
extern HS__WHIDDEN _Atomic int hs__wire_on;   /* 0 once the trace is closed or failed */
/* HOPSCOPE_WIRE_PROTOCOL=1 (record --wire-protocol): ask UCP for each
 * callback-completed send's protocol (ucp_request_query formats a string:
 * about 0.56 us per send here, bench/wire_overhead.sh), so off by default */
extern HS__WHIDDEN int hs__wire_proto;

static inline uint64_t hs__wmono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hs__wnow(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (hs__wlikely(hs__wh->use_tsc)) {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
#endif
    return hs__wmono();
}

/* An operation is stamped once, when its posting call returned (t_start =
 * t_end): on this machine's virtualised TSC a clock read is the largest
 * part of a wrapper, and the post's duration says nothing the replay or
 * the statistics use.  A wrapper passes HS__WPOST as t0; hs__wire_op takes
 * its one reading.  Completions UCP reports inside the posting call are
 * written with that same time (hs__wire_deferred), so the thread's events
 * stay in order. */
#define HS__WPOST 0

/* Enter a wrapper: 1 when this call is to be recorded. */
static inline int hs__wenter(void)
{
    if (hs__wunlikely(hs__wt.depth != 0 || hs__wh == NULL ||
                      !atomic_load_explicit(&hs__wire_on, memory_order_relaxed)))
        return 0;
    hs__wt.depth = 1;
    return 1;
}
HS__WHIDDEN void hs__wire_deferred(void);
static inline void hs__wleave(void)
{
    hs__wt.depth = 0;
    if (hs__wunlikely(hs__wt.ndefer != 0))
        hs__wire_deferred();
}

/* Records (wire_core.c).  Each returns without effect when recording is off
 * or the buffer cannot take the event (counted as dropped).  hs__wire_op
 * returns the operation's id (0: not written): id, when not 0, is one
 * hs__wire_newid gave this thread before the posting call (so that a
 * completion reported inside that call can name it). */
HS__WHIDDEN uint64_t hs__wire_op(int op, uint64_t t0, uint64_t t1, uint32_t flags,
                                 uint64_t bytes, uint64_t tag, uint64_t peer_hash, uint64_t id);
HS__WHIDDEN uint64_t hs__wire_newid(void);
HS__WHIDDEN void hs__wire_done(uint64_t id, const hs__wdone *d);
HS__WHIDDEN void hs__wire_worker(uint64_t t, uint64_t hash, uint64_t len);
HS__WHIDDEN void hs__wire_ep(uint64_t t0, uint64_t t1, uint64_t hash);
/* One ucp_worker_progress call (entry t0, return t1, its result n): added
 * to the thread's current run, which is written as one WIRE_PROGRESS record
 * before the thread's next record, at a flush interval, at thread exit and
 * (for the thread that closes the trace) at the end. */
HS__WHIDDEN void hs__wire_progress(uint64_t t0, uint64_t t1, unsigned n);

/* Pending requests (request handle -> op id), for completions seen in a
 * callback, a status check or a test.  hs__wreq_add after the posting call
 * returned a request; the completion may already have happened (early), in
 * which case the WIRE_DONE is written now.  hs__wreq_done from a completion
 * path, d->t 0 to have the time read only if the request is tracked (and
 * not at all inside a posting call, whose stamp the completion takes);
 * hs__wreq_forget when the request is released (kept when cb: a replaced
 * callback still reports it when the library frees the request inside
 * that callback, as MPICH does, before the trampoline records it).
 * Lookups that find nothing take no lock. */
HS__WHIDDEN void hs__wreq_add(void *req, uint64_t id, int cb);
HS__WHIDDEN void hs__wreq_done(void *req, hs__wdone *d);
HS__WHIDDEN void hs__wreq_forget(void *req);

/* The real function: dlsym(RTLD_NEXT, name), else from lib (already
 * loaded in a local scope); aborts with a message when neither has it. */
HS__WHIDDEN void *hs__wresolve_in(const char *name, const char *lib);
HS__WHIDDEN void *hs__wresolve(const char *name);   /* in libucp.so.0 */

#endif
