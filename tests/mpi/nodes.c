/* Node-awareness: prints, on rank 0, each rank's MPI_Get_processor_name and
 * the size of its MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) communicator,
 * then does one MPI_Allreduce on that node communicator.
 *   usage: nodes */
#include "common.h"
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len;
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
    int ns, one = 1, sum = 0;
    MPI_Comm_size(node, &ns);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, node);
    char *all = malloc((size_t)p * (MPI_MAX_PROCESSOR_NAME + 1));
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME + 1,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    int *sizes = malloc((size_t)p * sizeof *sizes);
    MPI_Gather(&ns, 1, MPI_INT, sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (r == 0)
        for (int i = 0; i < p; i++)
            printf("rank %d node %s node-size %d\n", i, all + (size_t)i * (MPI_MAX_PROCESSOR_NAME + 1),
                   sizes[i]);
    free(all);
    free(sizes);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return sum == ns ? 0 : 1;
}
