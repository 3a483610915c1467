/*
 * mpi_hello: MPI_Init and MPI_Finalize wall times of an MPI program that does
 * nothing else, for test/slurm/bench_compare.sh (built with mpicc.openmpi,
 * run under srun --mpi=spmix and srun --mpi=pmix).
 * Rank 0 prints "mpi_init RANK0_MS MAX_MS" (MPI_Init of rank 0 and the
 * maximum over all ranks, gathered with one MPI_Reduce) and then
 * "mpi_finalize MS" (its own MPI_Finalize, measured after the call).
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double t0 = now(), init_s, max_s = 0, fin_s;
    int rank = -1, size = 0;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    init_s = now() - t0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Reduce(&init_s, &max_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d\nmpi_init %.2f %.2f ms\n", size, init_s * 1e3, max_s * 1e3);
    fflush(stdout);
    t0 = now();
    MPI_Finalize();
    fin_s = now() - t0;
    if (rank == 0)
        printf("mpi_finalize %.2f ms\n", fin_s * 1e3);
    return 0;
}
