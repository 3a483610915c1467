/*
 * it_lines.c: a rank that writes each of its lines in two writes, with the
 * other ranks' first halves in between (lines.sh): ITER times, it writes
 * "A<rank>." to stdout and "a<rank>." to stderr, fences with every rank (so
 * every rank's first half was written before any second half), then writes
 * "B<rank>.<i>\n" and "b<rank>.<i>\n". Forwarded by whole lines, every line
 * of spmix-run's output is then one rank's "A<r>.B<r>.<i>"; forwarded as
 * written, the first halves of several ranks share a line.
 *   it_lines ITER
 */
#include "itest.h"

/* One write of s to fd. */
static void put(int fd, const char *s)
{
    size_t n = strlen(s);

    IT_CHECK(write(fd, s, n) == (ssize_t)n, "write to fd %d", fd);
}

int main(int argc, char **argv)
{
    int iter = argc > 1 ? atoi(argv[1]) : 0;

    IT_CHECK(iter > 0, "usage: it_lines ITER");
    it_init();
    for (int i = 0; i < iter; i++) {
        char s[4][48];
        snprintf(s[0], sizeof(s[0]), "A%u.", it_me.rank);
        snprintf(s[1], sizeof(s[1]), "a%u.", it_me.rank);
        snprintf(s[2], sizeof(s[2]), "B%u.%d\n", it_me.rank, i);
        snprintf(s[3], sizeof(s[3]), "b%u.%d\n", it_me.rank, i);
        put(1, s[0]);
        put(2, s[1]);
        IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "PMIx_Fence");
        put(1, s[2]);
        put(2, s[3]);
    }
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}
