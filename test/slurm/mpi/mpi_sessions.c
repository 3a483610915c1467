/*
 * mpi_sessions.c: the MPI-4 sessions model that needs PMIx groups from the
 * launcher (Open MPI 5 and later build communicators from groups through
 * PMIx_Group_construct with a context id). Every process:
 *   1. MPI_Session_init, MPI_Group_from_session_pset("mpi://WORLD"),
 *      MPI_Comm_create_from_group -> an MPI_Allreduce of the ranks (checked);
 *   2. splits the world group into two halves (even / odd ranks) and makes
 *      an intercommunicator between them with MPI_Intercomm_create_from_groups,
 *      then an MPI_Allreduce over it (each side gets the other side's sum:
 *      checked);
 *   3. frees everything and MPI_Session_finalize.
 * Prints "mpi_sessions: N processes: OK" from world rank 0; exits non-zero
 * with a message on any mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "mpi_sessions: " __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                                         \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        int cls = rc;
        MPI_Error_class(rc, &cls);
        fprintf(stderr, "mpi_sessions: %s failed: error %d (class %d)\n", what, rc, cls);
        exit(1);
    }
}

int main(void)
{
    MPI_Session s;
    MPI_Group world, half;
    MPI_Comm comm, inter;
    ok(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s), "MPI_Session_init");
    ok(MPI_Group_from_session_pset(s, "mpi://WORLD", &world), "MPI_Group_from_session_pset");
    ok(MPI_Comm_create_from_group(world, "spmix.test.world", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                  &comm),
       "MPI_Comm_create_from_group");
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK(size >= 2, "needs at least 2 processes (%d)", size);
    long sum = 0, mine = rank;
    ok(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm), "MPI_Allreduce");
    CHECK(sum == (long)size * (size - 1) / 2, "rank %d: allreduce gave %ld", rank, sum);

    /* two halves: even and odd ranks; each side's leader is its first member */
    int n = 0, no = 0, *ranks = malloc(sizeof(int) * (size_t)size);
    int *others = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) {
        if (r % 2 == rank % 2)
            ranks[n++] = r;
        else
            others[no++] = r;
    }
    MPI_Group other;
    ok(MPI_Group_incl(world, n, ranks, &half), "MPI_Group_incl");
    ok(MPI_Group_incl(world, no, others, &other), "MPI_Group_incl(other)");
    ok(MPI_Intercomm_create_from_groups(half, 0, other, 0, "spmix.test.inter", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &inter),
       "MPI_Intercomm_create_from_groups");
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == size - n, "rank %d: remote group of %d, expected %d", rank, rsize, size - n);
    long theirs = 0;
    ok(MPI_Allreduce(&mine, &theirs, 1, MPI_LONG, MPI_SUM, inter), "MPI_Allreduce(inter)");
    long want = 0;
    for (int r = 1 - rank % 2; r < size; r += 2)
        want += r;
    CHECK(theirs == want, "rank %d: intercomm allreduce gave %ld, expected %ld", rank, theirs, want);

    MPI_Comm_free(&inter);
    MPI_Group_free(&half);
    MPI_Group_free(&other);
    free(others);
    MPI_Comm_free(&comm);
    MPI_Group_free(&world);
    free(ranks);
    ok(MPI_Session_finalize(&s), "MPI_Session_finalize");
    if (rank == 0)
        printf("mpi_sessions: %d processes: OK\n", size);
    return 0;
}
