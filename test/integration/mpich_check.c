/* mpich_check.c - an unchanged MPI program for MPICH (built by pmiwire.sh
 * with mpicc.mpich): hello, a ring, MPI_Allreduce and MPI_Alltoall with
 * checked results; "abort" makes rank 1 call MPI_Abort(comm, 7).
 * Prints "mpich ok <rank>/<size>"; exits 1 on a wrong result.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 7);
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 1 is gone */
        MPI_Finalize();
        return 0;
    }
    /* ring: a token passes every rank once, each adds its rank */
    int token = 0;
    if (size > 1) {
        if (rank == 0) {
            token = 1000;
            MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (token != 1000 + size * (size - 1) / 2)
                bad |= 1;
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long)size * (size + 1) / 2)
        bad |= 2;
    int *out = malloc(sizeof(int) * (size_t)size), *in = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        out[i] = rank * 1000 + i;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        if (in[i] != i * 1000 + rank)
            bad |= 4;
    free(out);
    free(in);
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (allbad == 0)
        printf("mpich ok %d/%d\n", rank, size);
    else
        fprintf(stderr, "mpich rank %d: wrong results (mask %d)\n", rank, bad);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
