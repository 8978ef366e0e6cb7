/* hopscope trace import smpi IN -o DIR: a SimGrid SMPI time-independent
 * trace (smpirun -trace-ti) as a hopscope trace (libtrace/import_smpi.c). */
#include "cli.h"
#include "hopscope/trace.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int hs__trace_import_smpi(int argc, char **argv)
{
    static const struct option lo[] = {
        { "output", required_argument, NULL, 'o' },
        { "flops", required_argument, NULL, 'f' },
        { "ppn", required_argument, NULL, 'p' },
        { "derived-size", required_argument, NULL, 'd' },
        { "skip-unknown", no_argument, NULL, 'k' },
        { "no-monitor", no_argument, NULL, 'm' },
        { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 },
    };
    hs_smpi_import_opts o;
    hs_smpi_import_opts_default(&o);
    const char *out = NULL;
    int quiet = 0, c;
    uint64_t u;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f':
            if (hs_parse_double(optarg, &o.flops) || !(o.flops > 0) || o.flops > 1e30)
                return hs__usage_error("trace", "--flops '%s': a positive rate in flop/s", optarg);
            break;
        case 'p':
            if (hs_parse_u64(optarg, &u) || u == 0 || u > 1u << 20)
                return hs__usage_error("trace", "--ppn '%s': 1 .. 1048576", optarg);
            o.ppn = (uint32_t)u;
            break;
        case 'd':
            if (hs_parse_u64(optarg, &u) || u > 1u << 20)
                return hs__usage_error("trace", "--derived-size '%s': 0 .. 1048576 bytes", optarg);
            o.derived_size = u;
            break;
        case 'k': o.skip_unknown = 1; break;
        case 'm': o.monitor = 0; break;
        case 'q': quiet = 1; break;
        default: return hs__usage_error("trace", "unknown option for 'import smpi'");
        }
    }
    if (optind + 1 != argc)
        return hs__usage_error("trace", "'import smpi' takes one input (index file or directory)");
    if (!out)
        return hs__usage_error("trace", "'import smpi' needs -o DIR");
    hs_smpi_import_report rep;
    hs_error err;
    hs_error_clear(&err);
    int rc = hs_trace_import_smpi(argv[optind], out, &o, &rep, &err);
    if (rc) {
        fprintf(stderr, "hopscope trace import smpi: %s\n", hs_error_str(&err, rc));
        return HS_EXIT_FAIL;
    }
    if (!quiet) {
        printf("imported %s: %u ranks, %" PRIu64 " actions, %" PRIu64 " events -> %s\n",
               argv[optind], rep.ranks, rep.actions, rep.events, out);
        printf("  wildcard receives matched %" PRIu64 ", receives without a send %" PRIu64
               ", sends never received %" PRIu64 "\n", rep.wildcards, rep.unmatched,
               rep.unreceived);
        printf("  waits/tests naming no request %" PRIu64 ", requests never completed %" PRIu64
               "\n", rep.dropped_waits, rep.open_requests);
        if (rep.derived)
            printf("  %" PRIu64 " counts in derived datatypes taken as %" PRIu64
                   " byte(s) per element (--derived-size)\n", rep.derived, o.derived_size);
        if (rep.unknown)
            printf("  %" PRIu64 " unknown actions skipped\n", rep.unknown);
    }
    if (rep.unfinished)
        fprintf(stderr, "hopscope trace import smpi: warning: %u of %u rank files do not end "
                "with finalize (smpirun killed or still running?): the trace is incomplete\n",
                rep.unfinished, rep.ranks);
    return HS_EXIT_OK;
}
