/* placeholder replaced below */
#include "cli.h"
const char hs__help_record[] = "usage: hopscope record [-o DIR] -- LAUNCHER ...\n";
int hs__cmd_record(int argc, char **argv) { (void)argc; (void)argv; return HS_EXIT_FAIL; }
