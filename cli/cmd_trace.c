/* hopscope trace stats|dump|check DIR: look at a recorded trace;
 * hopscope trace import|export FORMAT: convert from and to other tools'.
 *
 *   stats  totals per rank and job, by tag, by call, communication matrix
 *   dump   every event, one line each (or JSON lines)
 *   check  sends match receives, communicators and collectives agree
 *   import FORMAT IN -o DIR    another tool's trace -> a hopscope trace
 *   export FORMAT DIR -o OUT   a hopscope trace -> another tool's format
 *
 * The formats are the table `formats` below: one line per format word,
 * with its import and export functions (NULL: that direction is not
 * supported).
 * All three read through the streaming reader, so they work on traces of
 * any size and on traces cut short by a killed job (they say what is
 * missing). */
#include "cli.h"
#include "hopscope/trace.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char hs__help_trace[] =
    "usage: hopscope trace stats [--json] [--matrix N] [--wire] DIR\n"
    "       hopscope trace dump  [--json] [--wire] [--rank R] [--kind NAME] [--limit N] DIR\n"
    "       hopscope trace check [--max-lines N] DIR\n"
    "       hopscope trace import smpi [options] IN -o DIR\n"
    "       hopscope trace import otf2 [--plain] ARCHIVE -o DIR\n"
    "       hopscope trace export otf2 DIR -o ARCHIVE\n"
    "\n"
    "Reads a trace directory written by 'hopscope record' (or libhopscope.so).\n"
    "\n"
    "actions:\n"
    "  stats        totals per rank and for the job, traffic by tag, by call and\n"
    "               by pair (communication matrix)\n"
    "  dump         one line per event\n"
    "  check        sends match receives, communicators and collectives agree,\n"
    "               times are valid\n"
    "  import smpi  a SimGrid SMPI time-independent trace as a hopscope trace\n"
    "  import otf2  an OTF2 archive (Score-P, or 'trace export otf2')\n"
    "  export otf2  the trace as an OTF2 archive\n"
    "'hopscope trace ACTION --help' (or 'hopscope help trace ACTION') prints an\n"
    "action's options and an example.\n"
    "\n"
    "A damaged file is reported with its name, block, byte offset and reason;\n"
    "a file cut short (killed job) is read up to its last complete block and\n"
    "the output says what is missing.\n";

static const char help_stats[] =
    "usage: hopscope trace stats [--json] [--matrix N] [--wire] DIR\n"
    "\n"
    "Totals per rank and for the job: point-to-point messages and bytes sent\n"
    "and received, monitored messages, collectives, one-sided operations, time\n"
    "in MPI; traffic by tag, by call and by pair (communication matrix).\n"
    "Messages are counted at the sender when started and at the receiver when\n"
    "matched.\n"
    "\n"
    "  --json       machine-readable output (one JSON object)\n"
    "  --matrix N   print the matrix for up to N ranks, pairs beyond (default 32)\n"
    "  --wire       compare with the wire level (record --wire): UCX operations\n"
    "               by kind; transfers by the MPI call in progress when posted;\n"
    "               per pair the MPI point-to-point payload against the bytes\n"
    "               below MPI; per collective (call, bytes, ranks) the algorithm\n"
    "               the transfers show (ring, recursive doubling, binomial tree,\n"
    "               ...), its steps, MPI bytes against wire bytes (docs/wire.md)\n"
    "\n"
    "example:\n"
    "  hopscope gen halo3d --ranks 8 -o T && hopscope trace stats --matrix 8 T\n";

static const char help_dump[] =
    "usage: hopscope trace dump [--json] [--wire] [--rank R] [--kind NAME] [--limit N] DIR\n"
    "\n"
    "One line per event in start-time order, rank by rank: time (s since the end\n"
    "of MPI_Init), duration, call and its fields.\n"
    "\n"
    "  --json       one JSON object per line instead\n"
    "  --rank R     only rank R\n"
    "  --kind NAME  only events of this call (e.g. isend, waitall)\n"
    "  --limit N    at most N events\n"
    "  --wire       the wire files instead (record --wire): one line per UCX\n"
    "               operation (wire_op: op, bytes, peer = world rank at the\n"
    "               other end, utag = UCX tag, flags in/immediate/nbi/intra),\n"
    "               completion (wire_done), worker address, endpoint\n"
    "\n"
    "example:\n"
    "  hopscope trace dump --rank 0 --kind isend --limit 20 T\n";

static const char help_check[] =
    "usage: hopscope trace check [--max-lines N] DIR\n"
    "\n"
    "Every message sent was received with the same size (per source,\n"
    "destination, communicator and tag), members of every communicator agree on\n"
    "it and called the same collectives in the same order, every rank file is\n"
    "complete, and every event's times are valid (within +-2^56 ns of the epoch,\n"
    "end not before start, each rank's starts in order).  Exit status 0 when\n"
    "clean, 1 otherwise.\n"
    "\n"
    "  --max-lines N  print at most N problems (default 50)\n"
    "\n"
    "example:\n"
    "  hopscope trace check --max-lines 10 T\n";

static const char help_import_smpi[] =
    "usage: hopscope trace import smpi [options] IN -o DIR\n"
    "\n"
    "A SimGrid SMPI time-independent trace (smpirun -trace-ti) as a hopscope\n"
    "trace.  IN is the index file smpirun writes (--cfg=tracing/filename,\n"
    "default smpi_simgrid.txt) or the directory of its *_rank-N.txt files.  SMPI\n"
    "writes no times: computation (flops) becomes time at --flops, MPI calls take\n"
    "none.  What SMPI does not record (communicators, Sendrecv tags, wildcard\n"
    "matches, derived datatype sizes) and what is assumed: docs/formats.md,\n"
    "\"SMPI time-independent traces\".  Errors in the input name the file and the\n"
    "line.\n"
    "\n"
    "  -o DIR            trace directory to write (required)\n"
    "  --flops RATE      flop/s turning 'compute N' into time (default 20000,\n"
    "                    SMPI's default smpi/host-speed: the time measured on the\n"
    "                    recording host; give the smpi/host-speed you set, or the\n"
    "                    speed to model)\n"
    "  --ppn N           ranks per node in the manifest, in blocks (1)\n"
    "  --derived-size B  bytes per element of a derived datatype, which SMPI\n"
    "                    writes as -1 without its size (default 1)\n"
    "  --skip-unknown    skip actions this reader does not know (default: an\n"
    "                    error)\n"
    "  --no-monitor      do not mark the messages monitored (default: all)\n"
    "  --quiet           no summary\n"
    "\n"
    "example:\n"
    "  smpirun -np 4 -trace-ti --cfg=tracing/filename:ti.txt ./app\n"
    "  hopscope trace import smpi ti.txt -o T\n";

static const char help_import_otf2[] =
    "usage: hopscope trace import otf2 [--plain] ARCHIVE -o DIR\n"
    "\n"
    "An OTF2 archive (Score-P, or 'trace export otf2') as a hopscope trace:\n"
    "ARCHIVE is its .otf2 anchor file, or a directory with traces.otf2.  MPI\n"
    "calls are the regions named MPI_*; point-to-point, collective, RMA and\n"
    "communicator records give their peers (as world ranks), sizes and\n"
    "requests; other regions are computation.  What OTF2 does not say is in\n"
    "docs/formats.md (\"OTF2 archives\").  Needs hopscope built with the OTF2\n"
    "library (Debian package libotf2-trace-dev); without it it says so and\n"
    "exits 1.\n"
    "\n"
    "  -o DIR       trace directory to write (required)\n"
    "  --plain      ignore what hopscope's export adds (hopscope:: attributes,\n"
    "               archive properties): read the archive as from any other\n"
    "               OTF2 writer\n"
    "\n"
    "example:\n"
    "  hopscope trace import otf2 scorep-run/traces.otf2 -o T\n";

static const char help_export_otf2[] =
    "usage: hopscope trace export otf2 DIR -o ARCHIVE\n"
    "\n"
    "The trace DIR as an OTF2 archive ARCHIVE/traces.otf2 (ARCHIVE is created)\n"
    "for Vampir, otf2-print and other OTF2 readers; 'trace import otf2' reads it\n"
    "back to the same events.  Needs hopscope built with the OTF2 library\n"
    "(Debian package libotf2-trace-dev); without it it says so and exits 1.\n"
    "\n"
    "  -o ARCHIVE   the archive directory to create (required)\n"
    "\n"
    "example:\n"
    "  hopscope trace export otf2 T -o T.otf2 && otf2-print T.otf2/traces.otf2\n";

const hs__subhelp hs__subhelp_trace[] = {
    { "stats", help_stats },
    { "dump", help_dump },
    { "check", help_check },
    { "import smpi", help_import_smpi },
    { "import otf2", help_import_otf2 },
    { "export otf2", help_export_otf2 },
    { NULL, NULL },
};

static const char *comm_name(uint64_t id, char *buf, size_t n)
{
    if (id == HS_TRACE_COMM_WORLD)
        return "world";
    if (id == HS_TRACE_COMM_SELF)
        return "self";
    snprintf(buf, n, "%#" PRIx64, id);
    return buf;
}

static const char *rank_str(int32_t r, char *buf, size_t n)
{
    switch (r) {
    case HS_TRACE_PROC_NULL: return "null";
    case HS_TRACE_ANY_SOURCE: return "any";
    case HS_TRACE_ROOT: return "root";
    default: snprintf(buf, n, "%d", r); return buf;
    }
}

static void print_time(FILE *f, int64_t ns)
{
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    fprintf(f, "%s%" PRIu64 ".%09" PRIu64, sign, a / 1000000000u, a % 1000000000u);
}

static void dump_text(FILE *f, uint32_t rank, const hs_trace_event *e)
{
    char b1[32], b2[32];
    fprintf(f, "%u.%u ", rank, e->thread);
    print_time(f, e->t_start);
    fprintf(f, " +%.3fus %s", (double)(e->t_end - e->t_start) / 1e3, hs_trace_kind_name(e->kind));
    if (e->comm)
        fprintf(f, " comm=%s", comm_name(e->comm, b1, sizeof b1));
    if (e->comm2)
        fprintf(f, " parent=%s", comm_name(e->comm2, b1, sizeof b1));
    if (e->win)
        fprintf(f, " win=%#" PRIx64, e->win);
    if (e->peer != HS_TRACE_RANK_NONE)
        fprintf(f, " peer=%s", rank_str(e->peer, b1, sizeof b1));
    if (e->tag != HS_TRACE_TAG_NONE)
        fprintf(f, " tag=%d", e->tag);
    if (e->peer2 != HS_TRACE_RANK_NONE)
        fprintf(f, " peer2=%s", rank_str(e->peer2, b2, sizeof b2));
    int wop = e->kind == HS_TRACE_WIRE_OP;
    if (wop && hs_trace_wop_name(e->tag2))
        fprintf(f, " op=%s", hs_trace_wop_name(e->tag2));
    else if (e->tag2 != HS_TRACE_TAG_NONE)
        fprintf(f, " tag2=%d", e->tag2);
    if (e->kind == HS_TRACE_WIRE_PROGRESS) {   /* a run of ucp_worker_progress calls */
        fprintf(f, " calls=%" PRIu64 " progressed=%" PRIu64 " inside=%.3fus\n", e->bytes,
                e->aux, (double)e->bytes2 / 1e3);
        return;
    }
    if (e->bytes)
        fprintf(f, " bytes=%" PRIu64, e->bytes);
    if (e->bytes2 && (wop || e->kind == HS_TRACE_WIRE_DONE))
        fprintf(f, " utag=%#" PRIx64, e->bytes2);   /* UCX tag, AM id or atomic opcode */
    else if (e->bytes2)
        fprintf(f, " bytes2=%" PRIu64, e->bytes2);
    if (e->req)
        fprintf(f, " req=%#" PRIx64, e->req);
    if (e->aux && hs_trace_kind_class(e->kind) == HS_TRACE_CLASS_WIRE)
        fprintf(f, " addr=%#" PRIx64, e->aux);   /* the worker's UUID */
    else if (e->aux)
        fprintf(f, " aux=%" PRIu64, e->aux);
    if (e->repeat > 1)
        fprintf(f, " repeat=%u", e->repeat);
    static const struct { uint32_t f; const char *n; } fl[] = {
        { HS_TRACE_F_MONITORED, "monitored" }, { HS_TRACE_F_ANY_SOURCE, "any_source" },
        { HS_TRACE_F_ANY_TAG, "any_tag" }, { HS_TRACE_F_FOUND, "found" },
        { HS_TRACE_F_IN_PLACE, "in_place" }, { HS_TRACE_F_ERROR, "error" },
        { HS_TRACE_F_LARGE, "large" }, { HS_TRACE_F_CANCELLED, "cancelled" },
        { HS_TRACE_F_WIRE_IN, "in" }, { HS_TRACE_F_WIRE_IMM, "immediate" },
        { HS_TRACE_F_WIRE_NBI, "nbi" }, { HS_TRACE_F_WIRE_INTRA, "intra" },
        { HS_TRACE_F_WIRE_EAGER, "eager" }, { HS_TRACE_F_WIRE_RNDV, "rndv" },
        { HS_TRACE_F_WIRE_RPUT, "rndv_put" }, { HS_TRACE_F_WIRE_RGET, "rndv_get" },
    };
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
        if (e->flags & fl[i].f)
            fprintf(f, " %s", fl[i].n);
    if (e->kind == HS_TRACE_COMM_CREATE && hs_trace_ctor_name(e->tag))
        fprintf(f, " (%s)", hs_trace_ctor_name(e->tag));
    for (uint32_t i = 0; i < e->ncompl; i++) {
        const hs_trace_compl *c = &e->compl[i];
        fprintf(f, " [req=%#" PRIx64, c->req);
        if (c->flags & HS_TRACE_C_STATUS)
            fprintf(f, " src=%s tag=%d bytes=%" PRIu64, rank_str(c->src, b1, sizeof b1), c->tag,
                    c->bytes);
        if (c->flags & HS_TRACE_C_CANCELLED)
            fprintf(f, " cancelled");
        if (c->flags & HS_TRACE_C_ERROR)
            fprintf(f, " error");
        fputc(']', f);
    }
    for (uint32_t i = 0; i < e->nstarts; i++)
        fprintf(f, " [req=%#" PRIx64 "%s]", e->starts[i].req,
                e->starts[i].flags & HS_TRACE_F_MONITORED ? " monitored" : "");
    if (e->nsendto) {
        fprintf(f, " sendto=");
        for (uint32_t i = 0; i < e->nsendto; i++)
            fprintf(f, "%s%s:%" PRIu64, i ? "," : "", rank_str(e->sendto[i].rank, b1, sizeof b1),
                    e->sendto[i].bytes);
    }
    if (e->nrecvfrom) {
        fprintf(f, " recvfrom=");
        for (uint32_t i = 0; i < e->nrecvfrom; i++)
            fprintf(f, "%s%s:%" PRIu64, i ? "," : "",
                    rank_str(e->recvfrom[i].rank, b1, sizeof b1), e->recvfrom[i].bytes);
    }
    if (e->nmembers) {
        fprintf(f, " members=");
        for (uint32_t i = 0; i < e->nmembers; i++)
            fprintf(f, "%s%s", i ? "," : "", rank_str(e->members[i], b1, sizeof b1));
    }
    if (e->nremote) {
        fprintf(f, " remote=");
        for (uint32_t i = 0; i < e->nremote; i++)
            fprintf(f, "%s%s", i ? "," : "", rank_str(e->remote[i], b1, sizeof b1));
    }
    fputc('\n', f);
}

static void peers_json(hs_json *w, const char *key, const hs_trace_peer *p, uint32_t n)
{
    hs_json_key(w, key);
    hs_json_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        hs_json_arr_begin(w);
        hs_json_int(w, p[i].rank);
        hs_json_uint(w, p[i].bytes);
        hs_json_arr_end(w);
    }
    hs_json_arr_end(w);
}

static void dump_json(FILE *f, uint32_t rank, const hs_trace_event *e)
{
    hs_json w;
    hs_json_init(&w, f, 0);
    hs_json_obj_begin(&w);
    hs_json_key(&w, "rank"); hs_json_uint(&w, rank);
    hs_json_key(&w, "thread"); hs_json_uint(&w, e->thread);
    hs_json_key(&w, "kind"); hs_json_str(&w, hs_trace_kind_name(e->kind));
    hs_json_key(&w, "t_start_ns"); hs_json_int(&w, e->t_start);
    hs_json_key(&w, "t_end_ns"); hs_json_int(&w, e->t_end);
    hs_json_key(&w, "flags"); hs_json_uint(&w, e->flags);
    if (e->repeat > 1) { hs_json_key(&w, "repeat"); hs_json_uint(&w, e->repeat); }
    if (e->comm) { hs_json_key(&w, "comm"); hs_json_uint(&w, e->comm); }
    if (e->comm2) { hs_json_key(&w, "parent"); hs_json_uint(&w, e->comm2); }
    if (e->win) { hs_json_key(&w, "win"); hs_json_uint(&w, e->win); }
    if (e->peer != HS_TRACE_RANK_NONE) { hs_json_key(&w, "peer"); hs_json_int(&w, e->peer); }
    if (e->tag != HS_TRACE_TAG_NONE) { hs_json_key(&w, "tag"); hs_json_int(&w, e->tag); }
    if (e->peer2 != HS_TRACE_RANK_NONE) { hs_json_key(&w, "peer2"); hs_json_int(&w, e->peer2); }
    if (e->tag2 != HS_TRACE_TAG_NONE) { hs_json_key(&w, "tag2"); hs_json_int(&w, e->tag2); }
    if (e->bytes) { hs_json_key(&w, "bytes"); hs_json_uint(&w, e->bytes); }
    if (e->bytes2) { hs_json_key(&w, "bytes2"); hs_json_uint(&w, e->bytes2); }
    if (e->req) { hs_json_key(&w, "req"); hs_json_uint(&w, e->req); }
    if (e->aux) { hs_json_key(&w, "aux"); hs_json_uint(&w, e->aux); }
    if (e->ncompl) {
        hs_json_key(&w, "completed");
        hs_json_arr_begin(&w);
        for (uint32_t i = 0; i < e->ncompl; i++) {
            const hs_trace_compl *c = &e->compl[i];
            hs_json_obj_begin(&w);
            hs_json_key(&w, "req"); hs_json_uint(&w, c->req);
            hs_json_key(&w, "flags"); hs_json_uint(&w, c->flags);
            if (c->flags & HS_TRACE_C_STATUS) {
                hs_json_key(&w, "src"); hs_json_int(&w, c->src);
                hs_json_key(&w, "tag"); hs_json_int(&w, c->tag);
                hs_json_key(&w, "bytes"); hs_json_uint(&w, c->bytes);
            }
            hs_json_obj_end(&w);
        }
        hs_json_arr_end(&w);
    }
    if (e->nstarts) {
        hs_json_key(&w, "started");
        hs_json_arr_begin(&w);
        for (uint32_t i = 0; i < e->nstarts; i++) {
            hs_json_obj_begin(&w);
            hs_json_key(&w, "req"); hs_json_uint(&w, e->starts[i].req);
            hs_json_key(&w, "flags"); hs_json_uint(&w, e->starts[i].flags);
            hs_json_obj_end(&w);
        }
        hs_json_arr_end(&w);
    }
    if (e->nsendto)
        peers_json(&w, "sendto", e->sendto, e->nsendto);
    if (e->nrecvfrom)
        peers_json(&w, "recvfrom", e->recvfrom, e->nrecvfrom);
    for (int k = 0; k < 2; k++) {
        const int32_t *v = k ? e->remote : e->members;
        uint32_t n = k ? e->nremote : e->nmembers;
        if (!n)
            continue;
        hs_json_key(&w, k ? "remote" : "members");
        hs_json_arr_begin(&w);
        for (uint32_t i = 0; i < n; i++)
            hs_json_int(&w, v[i]);
        hs_json_arr_end(&w);
    }
    hs_json_obj_end(&w);
    hs_json_finish(&w);
    fputc('\n', f);
}

/* Opens a trace or says why not (NULL). */
static hs_trace *open_trace(const char *dir)
{
    hs_error err;
    hs_trace *t;
    int rc = hs_trace_open(dir, &t, &err);
    if (rc) {
        fprintf(stderr, "hopscope trace: %s\n", hs_error_str(&err, rc));
        return NULL;
    }
    return t;
}

static int parse_u64_opt(const char *cmd, const char *opt, const char *v, uint64_t *out)
{
    if (hs_parse_u64(v, out) != 0)
        return hs__usage_error(cmd, "%s needs a non-negative integer, not '%s'", opt, v);
    return 0;
}

static int do_wire_stats(const char *dir, int json)
{
    hs_error err;
    hs_trace *t = open_trace(dir);
    if (!t)
        return HS_EXIT_FAIL;
    hs_trace_wire_stats *s;
    int rc = hs_trace_wire_stats_compute(t, &s, &err);
    if (rc) {
        fprintf(stderr, "hopscope trace: %s\n", hs_error_str(&err, rc));
        hs_trace_close(t);
        return HS_EXIT_FAIL;
    }
    if (json) {
        hs_json w;
        hs_json_init(&w, stdout, 1);
        hs_trace_wire_stats_json(s, &w);
        hs_json_finish(&w);
        putchar('\n');
    } else {
        printf("trace %s: %u ranks\n", dir, s->nranks);
        hs_trace_wire_stats_print(s, stdout);
    }
    hs_trace_wire_stats_free(s);
    hs_trace_close(t);
    return HS_EXIT_OK;
}

static int do_stats(int argc, char **argv)
{
    int json = 0, wire = 0;
    uint64_t matrix = 32;
    static const struct option lo[] = { { "json", no_argument, 0, 'j' },
                                         { "wire", no_argument, 0, 'w' },
                                         { "matrix", required_argument, 0, 'm' },
                                         { 0, 0, 0, 0 } };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (c == 'j')
            json = 1;
        else if (c == 'w')
            wire = 1;
        else if (c == 'm') {
            if (parse_u64_opt("trace", "--matrix", optarg, &matrix))
                return HS_EXIT_USAGE;
        } else
            return hs__usage_error("trace", "unknown option for 'stats'");
    }
    if (optind != argc - 1)
        return hs__usage_error("trace", "'stats' takes one trace directory");
    if (wire)
        return do_wire_stats(argv[optind], json);
    hs_error err;
    hs_trace *t = open_trace(argv[optind]);
    int rc;
    if (!t)
        return HS_EXIT_FAIL;
    hs_trace_stats *s;
    rc = hs_trace_stats_compute(t, &s, &err);
    if (rc) {
        fprintf(stderr, "hopscope trace: %s\n", hs_error_str(&err, rc));
        hs_trace_close(t);
        return HS_EXIT_FAIL;
    }
    if (json) {
        hs_json w;
        hs_json_init(&w, stdout, 1);
        hs_trace_stats_json(s, &w);
        hs_json_finish(&w);
        putchar('\n');
    } else {
        const hs_trace_manifest *m = hs_trace_get_manifest(t);
        printf("trace %s: %s, %u rank%s on %u node%s, %s\ncommand: %s\n", argv[optind],
               m->mpi_library, m->nranks, m->nranks == 1 ? "" : "s", m->nnodes,
               m->nnodes == 1 ? "" : "s", m->start_time, m->command);
        hs_trace_stats_print(s, stdout, (uint32_t)(matrix > UINT32_MAX ? UINT32_MAX : matrix));
    }
    hs_trace_stats_free(s);
    hs_trace_close(t);
    return HS_EXIT_OK;
}

static int do_dump(int argc, char **argv)
{
    int json = 0, kind = -1, wire = 0;
    uint64_t only = UINT64_MAX, limit = UINT64_MAX;
    static const struct option lo[] = { { "json", no_argument, 0, 'j' },
                                         { "wire", no_argument, 0, 'w' },
                                         { "rank", required_argument, 0, 'r' },
                                         { "kind", required_argument, 0, 'k' },
                                         { "limit", required_argument, 0, 'l' },
                                         { 0, 0, 0, 0 } };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'w': wire = 1; break;
        case 'r': if (parse_u64_opt("trace", "--rank", optarg, &only)) return HS_EXIT_USAGE; break;
        case 'l': if (parse_u64_opt("trace", "--limit", optarg, &limit)) return HS_EXIT_USAGE; break;
        case 'k':
            kind = hs_trace_kind_from_name(optarg);
            if (kind < 0)
                return hs__usage_error("trace", "no call named '%s' (e.g. isend, waitall, "
                                       "allreduce, win_fence)", optarg);
            break;
        default: return hs__usage_error("trace", "unknown option for 'dump'");
        }
    }
    if (optind != argc - 1)
        return hs__usage_error("trace", "'dump' takes one trace directory");
    hs_error err;
    hs_trace *t = open_trace(argv[optind]);
    int rc;
    if (!t)
        return HS_EXIT_FAIL;
    const hs_trace_manifest *m = hs_trace_get_manifest(t);
    if (only != UINT64_MAX && only >= m->nranks) {
        hs_trace_close(t);
        return hs__usage_error("trace", "--rank %" PRIu64 ": the job has %u ranks", only,
                               m->nranks);
    }
    int status = HS_EXIT_OK;
    uint64_t shown = 0;
    for (uint32_t r = 0; r < m->nranks && shown < limit; r++) {
        if (only != UINT64_MAX && r != only)
            continue;
        hs_trace_cursor *cur;
        rc = wire ? hs_trace_wire_open(t, r, &cur, &err) : hs_trace_cursor_open(t, r, &cur, &err);
        if (rc) {
            fprintf(stderr, "hopscope trace: %s\n", hs_error_str(&err, rc));
            status = HS_EXIT_FAIL;
            continue;
        }
        hs_trace_event ev;
        while (shown < limit && (rc = hs_trace_next(cur, &ev, &err)) == 1) {
            if (kind >= 0 && ev.kind != kind)
                continue;
            if (json)
                dump_json(stdout, r, &ev);
            else
                dump_text(stdout, r, &ev);
            shown++;
        }
        if (rc < 0) {
            fprintf(stderr, "hopscope trace: %s\n", hs_error_str(&err, rc));
            status = HS_EXIT_FAIL;
        }
        hs_trace_rank_info info;
        hs_trace_cursor_info(cur, &info);
        if (info.note[0] && !json)
            printf("# rank %u: %s\n", r, info.note);
        hs_trace_cursor_close(cur);
    }
    hs_trace_close(t);
    return status;
}

static int do_check(int argc, char **argv)
{
    uint64_t max = 50;
    static const struct option lo[] = { { "max-lines", required_argument, 0, 'm' },
                                         { 0, 0, 0, 0 } };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (c == 'm') {
            if (parse_u64_opt("trace", "--max-lines", optarg, &max))
                return HS_EXIT_USAGE;
        } else
            return hs__usage_error("trace", "unknown option for 'check'");
    }
    if (optind != argc - 1)
        return hs__usage_error("trace", "'check' takes one trace directory");
    hs_error err;
    hs_trace *t = open_trace(argv[optind]);
    int rc;
    if (!t)
        return HS_EXIT_FAIL;
    uint64_t problems = 0;
    rc = hs_trace_check(t, stdout, (size_t)max, &problems, &err);
    uint32_t n = hs_trace_get_manifest(t)->nranks;
    hs_trace_close(t);
    if (rc) {
        fprintf(stderr, "hopscope trace: %s\n", hs_error_str(&err, rc));
        return HS_EXIT_FAIL;
    }
    if (problems) {
        printf("check: %" PRIu64 " problem%s in %s (%u ranks)\n", problems,
               problems == 1 ? "" : "s", argv[optind], n);
        return HS_EXIT_FAIL;
    }
    printf("check: %s is consistent (%u ranks, every message matched, every file complete)\n",
           argv[optind], n);
    return HS_EXIT_OK;
}

/* Parses "IN -o OUT" (in either order) of import/export; *plain (may be
 * NULL: not an option there) for --plain. */
static int conv_args(int argc, char **argv, const char *what, const char **in,
                     const char **out, int *plain)
{
    static const struct option lo[] = { { "output", required_argument, 0, 'o' },
                                         { "plain", no_argument, 0, 'p' },
                                         { 0, 0, 0, 0 } };
    int c;
    *out = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
        if (c == 'o')
            *out = optarg;
        else if (c == 'p' && plain)
            *plain = 1;
        else
            return hs__usage_error("trace", "unknown option for '%s'", what);
    }
    if (optind != argc - 1 || !*out)
        return hs__usage_error("trace", "'%s' takes one input and -o OUTPUT", what);
    *in = argv[optind];
    return 0;
}

static int import_otf2(int argc, char **argv)
{
    const char *in, *out;
    int plain = 0;
    int rc = conv_args(argc, argv, "import otf2", &in, &out, &plain);
    if (rc)
        return rc;
    hs_otf2_report rep;
    hs_error err;
    if ((rc = hs_trace_import_otf2(in, out, plain ? HS_OTF2_PLAIN : 0, &rep, &err))) {
        fprintf(stderr, "hopscope trace import: %s\n", hs_error_str(&err, rc));
        return HS_EXIT_FAIL;
    }
    printf("imported %s%s: %u ranks, %u threads, %" PRIu64 " OTF2 records -> %" PRIu64
           " events in %s\n", in, rep.hopscope_archive ? " (written by hopscope)" : "",
           rep.nranks, rep.nthreads, rep.records, rep.events, out);
    if (rep.other_regions)
        printf("  %" PRIu64 " visits of regions that are not MPI calls: computation\n",
               rep.other_regions);
    if (rep.scorep_archive)
        printf("  written by Score-P: collective sizes converted to hopscope's counting for %"
               PRIu64 " calls, %" PRIu64 " of them taken as not in place; %" PRIu64
               " left as they are\n", rep.coll_converted + rep.coll_assumed, rep.coll_assumed,
               rep.coll_kept);
    if (rep.made_events)
        printf("  %" PRIu64 " comm_create/win_create made up: communicators or windows used "
               "before the archive says they were created\n", rep.made_events);
    if (rep.stray_records)
        printf("  warning: %" PRIu64 " MPI records outside any MPI call, ignored\n",
               rep.stray_records);
    if (rep.dropped_events)
        printf("  warning: %" PRIu64 " communicator or window constructors without a "
               "record of what they created, left out\n", rep.dropped_events);
    if (rep.unfinished)
        printf("  warning: %" PRIu64 " calls entered and never left (the archive is cut "
               "short), left out\n", rep.unfinished);
    return HS_EXIT_OK;
}

static int export_otf2(int argc, char **argv)
{
    const char *in, *out;
    int rc = conv_args(argc, argv, "export otf2", &in, &out, NULL);
    if (rc)
        return rc;
    hs_otf2_report rep;
    hs_error err;
    if ((rc = hs_trace_export_otf2(in, out, &rep, &err))) {
        fprintf(stderr, "hopscope trace export: %s\n", hs_error_str(&err, rc));
        return HS_EXIT_FAIL;
    }
    printf("exported %s: %u ranks, %u threads, %" PRIu64 " events -> %" PRIu64
           " OTF2 records in %s/traces.otf2\n", in, rep.nranks, rep.nthreads, rep.events,
           rep.records, out);
    return HS_EXIT_OK;
}

/* Trace formats of other tools: the format word, and the functions that
 * convert from it and to it (argv[0] is the format word). */
static const struct {
    const char *name;
    int (*import)(int argc, char **argv);
    int (*export)(int argc, char **argv);
} formats[] = {
    { "otf2", import_otf2, export_otf2 },
    { "smpi", hs__trace_import_smpi, NULL },
};

static int do_convert(int argc, char **argv, int to)
{
    const char *act = to ? "export" : "import";
    if (argc < 2)
        return hs__usage_error("trace", "'%s' needs a format (otf2%s)", act,
                               to ? "" : " or smpi");
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(argv[1], formats[i].name) != 0)
            continue;
        int (*fn)(int, char **) = to ? formats[i].export : formats[i].import;
        if (!fn)
            return hs__usage_error("trace", "no %s to %s", act, formats[i].name);
        return fn(argc - 1, argv + 1);
    }
    return hs__usage_error("trace", "unknown %s format '%s' (see hopscope trace --help)", act,
                           argv[1]);
}

int hs__cmd_trace(int argc, char **argv)
{
    if (argc < 2)
        return hs__usage_error("trace", "missing action: stats, dump, check, import or export");
    const char *act = argv[1];
    if (strcmp(act, "stats") == 0)
        return do_stats(argc - 1, argv + 1);
    if (strcmp(act, "dump") == 0)
        return do_dump(argc - 1, argv + 1);
    if (strcmp(act, "check") == 0)
        return do_check(argc - 1, argv + 1);
    if (strcmp(act, "import") == 0)
        return do_convert(argc - 1, argv + 1, 0);
    if (strcmp(act, "export") == 0)
        return do_convert(argc - 1, argv + 1, 1);
    return hs__usage_error("trace", "unknown action '%s' (stats, dump, check, import or "
                           "export)", act);
}
