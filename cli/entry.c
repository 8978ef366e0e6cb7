/* main() of the hopscope command; hopscope-par has its own (cli/par_mpi.c)
 * around the same hs__cli_main. */
#include "cli.h"

int main(int argc, char **argv)
{
    return hs__cli_main(argc, argv);
}
