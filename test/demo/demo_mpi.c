/* demo_mpi.c - the demo's Open MPI program (built with Debian's
 * mpicc.openmpi, run unchanged under srun --mpi=spmix): every rank says
 * where it runs, and an MPI_Allreduce of the ranks is checked. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int want = size * (size - 1) / 2;
    printf("Open MPI rank %d of %d on %s: sum of all ranks %d (%s)\n", rank, size, host, sum,
           sum == want ? "ok" : "WRONG");
    MPI_Finalize();
    return sum == want ? 0 : 1;
}
