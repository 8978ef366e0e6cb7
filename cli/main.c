/* The hopscope command: subcommand dispatch, help and version.  Subcommands
 * are independent files; this one only routes and prints usage. */
#include "cli.h"
#include "hopscope/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("hopscope %s\n", HS_VERSION);
    return HS_EXIT_OK;
}

static const hs__cmd commands[] = {
    { "demo", hs__cmd_demo,
      "show the whole idea working on built-in data (no arguments)",
      "usage: hopscope demo [--seed N] [--packets N]\n"
      "\n"
      "Runs the in-band scheme end to end on a built-in path set: packets are\n"
      "marked hop by hop with the 6-bit field, NIC counters are decoded with the\n"
      "blind fast and route-aware decoders, and the estimates are compared with\n"
      "the true per-link counts.\n"
      "\n"
      "  --seed N      seed for the simulated packets (default 1)\n"
      "  --packets N   number of monitored packets (default 200000)\n" },
    { "record", hs__cmd_record,
      "run an MPI launcher with libhopscope.so preloaded into every rank",
      hs__help_record },
    { "trace", hs__cmd_trace, "summarise, list or check a recorded trace (stats|dump|check)",
      hs__help_trace },
    { "version", cmd_version, "print the version (same as --version)",
      "usage: hopscope version\n"
      "       hopscope --version\n" },
};
static const size_t ncommands = sizeof commands / sizeof commands[0];

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hopscope <command> [options] [arguments]\n"
            "       hopscope help [command]\n"
            "       hopscope --version\n"
            "\n"
            "hopscope shows where, when and why an MPI application's messages meet\n"
            "congestion in the interconnect, using in-band probabilistic path tracing\n"
            "on a packet-level model of the machine.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < ncommands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'hopscope help <command>' or 'hopscope <command> --help' for details.\n"
               "Documentation: README.md and docs/ in the source tree.\n");
}

const hs__cmd *hs__cmd_find(const char *name)
{
    for (size_t i = 0; i < ncommands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

void hs__cmd_help(const hs__cmd *c)
{
    fputs(c->help, stdout);
}

int hs__wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

int hs__usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hopscope %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'hopscope help %s')\n", cmd);
    return HS_EXIT_USAGE;
}

/* Suggest a command whose name starts like the mistyped one. */
static const char *closest(const char *name)
{
    for (size_t n = strlen(name); n >= 2; n--)
        for (size_t i = 0; i < ncommands; i++)
            if (strncmp(commands[i].name, name, n) == 0)
                return commands[i].name;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return HS_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0)
        return cmd_version(0, NULL);
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            const hs__cmd *c = hs__cmd_find(argv[2]);
            if (!c) {
                fprintf(stderr, "hopscope: no command '%s'; 'hopscope help' lists them\n", argv[2]);
                return HS_EXIT_USAGE;
            }
            hs__cmd_help(c);
            return HS_EXIT_OK;
        }
        usage(stdout);
        return HS_EXIT_OK;
    }
    const hs__cmd *c = hs__cmd_find(name);
    if (!c) {
        const char *near = closest(name);
        fprintf(stderr, "hopscope: unknown command '%s'", name);
        if (near)
            fprintf(stderr, "; did you mean '%s'?", near);
        fprintf(stderr, "\n'hopscope help' lists the commands.\n");
        return HS_EXIT_USAGE;
    }
    if (hs__wants_help(argc - 1, argv + 1)) {
        hs__cmd_help(c);
        return HS_EXIT_OK;
    }
    return c->run(argc - 1, argv + 1);
}
