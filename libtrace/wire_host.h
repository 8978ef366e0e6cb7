/* libtrace/wire_host.h — private: the interface between libhopscope.so (the
 * MPI-level interposer) and libhopscope-wire.so (the capture below MPI that
 * `hopscope record --wire` preloads beside it).
 *
 * The wire library writes its own file per rank (wire-NNNNNN.hst) in the
 * trace directory, with the same block format, clock and thread indices as
 * the rank file, so that a wire operation and the MPI call that was in
 * progress on its thread share one time line.  Everything it needs from the
 * MPI level comes through this table, which libhopscope.so fills on request
 * (hopscope_wire_host_v1, its only export that is not an MPI symbol).  The
 * MPI level pays nothing for it: no wrapper looks at it; the one call the
 * MPI level makes is the end hook, when the trace is closed. */
#ifndef HOPSCOPE_LIBTRACE_WIRE_HOST_H
#define HOPSCOPE_LIBTRACE_WIRE_HOST_H

#include <stdatomic.h>
#include <stdint.h>
#include "format.h"

/* Called by libhopscope.so when it closes the trace (MPI_Finalize, exit,
 * MPI_Abort, a handled signal), before its own end record: reason
 * HS_TRACE_END_*, clk1 the finalize clock record or NULL; in_signal: only
 * async-signal-tolerable work (no allocation, no blocking lock). */
typedef void (*hs__wire_end_fn)(int reason, int code, const hs__clock_rec *clk1, int in_signal);

typedef struct hs__wire_host {
    uint32_t size_of;              /* sizeof(hs__wire_host): a mismatch means two builds */
    int use_tsc;                   /* the clock: rdtsc or CLOCK_MONOTONIC (fixed at load) */
    const _Atomic int *active;     /* the MPI level records (0 before MPI_Init's end) */
    const int *started, *finished; /* MPI_Init done / trace closed */
    const int *rank, *size;        /* valid once *started */
    const uint8_t *shift;
    const uint64_t *tick_hz, *flush_ticks;
    const int *zlevel, *tzlevel;
    const char *dir;               /* the trace directory */
    const hs__clock_rec *clk0;     /* the MPI_Init clock record */
    int (*thread)(void);           /* this thread's writer index in the rank file, or -1
                                      when the thread has recorded no MPI event yet */
    hs__wire_end_fn *end_hook;     /* where to register the end hook */
    /* 1 once MPI_Init returned a thread level below MPI_THREAD_MULTIPLE
     * (0 before, and under MULTIPLE): the application calls MPI from one
     * thread at a time, so the library's UCP calls, their callbacks and
     * status checks are serialised, and the wire library's request table
     * takes no lock (as the MPI level's own tables, interpose/tables.c) */
    const int *serial;
} hs__wire_host;

/* Exported by libhopscope.so; the wire library finds it with dlsym. */
typedef const hs__wire_host *(*hs__wire_host_fn)(void);
#define HS__WIRE_HOST_SYM "hopscope_wire_host_v1"

#endif
