/*
 * it_bignodes.c: one rank of the many-node run of bignodes.sh (spmix-run
 * --nodes M with hundreds or thousands of simulated nodes, one rank each).
 *   it_bignodes DIR
 *       PMIx_Init; the node's topology must be in the job's information
 *       (PMIX_HWLOC_XML_V2, from the topology the launcher shares with every
 *       node server); Put + Commit of a value of its own; a collecting fence
 *       over the job, then the values of two other ranks (the next one, on
 *       another node, and the one half the job away) must be theirs; a
 *       PMIx_Group_construct over every rank with
 *       PMIX_GROUP_ASSIGN_CONTEXT_ID: the membership must be every rank of
 *       the job, in order, and a context id must come back. Rank 0 then
 *       writes the namespace to DIR/ready (every rank has passed the group:
 *       the tool may push). Each rank reads its stdin (spmix-run --stdin
 *       tool) to EOF and compares it with DIR/payload, byte for byte, and
 *       prints "ok rank R cid C stdin B" on stdout (the script checks that
 *       every rank printed one line and that C is the same everywhere).
 *       Rank 0 waits for DIR/end before it finalizes: its node's server is
 *       the one the tool talks to and must outlive the tool.
 * Exits 1 on a failed check (message on stderr): the job then fails.
 */
#include "itest.h"

#include <errno.h>
#include <sys/stat.h>

#define IT_BIG_MAX_PAYLOAD (1u << 20)
#define IT_BIG_WAIT 300.0   /* s: a safety net for a script that never ends */

static const char *dir;

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* The whole of a file into a malloc'd buffer (the caller's); *n its size. */
static unsigned char *slurp(const char *name, size_t *n)
{
    char p[4096];
    unsigned char *buf = malloc(IT_BIG_MAX_PAYLOAD);
    FILE *f;

    path_of(p, sizeof(p), name);
    f = fopen(p, "rb");
    IT_CHECK(f != NULL && buf != NULL, "cannot read %s", p);
    *n = fread(buf, 1, IT_BIG_MAX_PAYLOAD, f);
    IT_CHECK(!ferror(f) && fgetc(f) == EOF, "%s is unreadable or longer than %u bytes", p,
             IT_BIG_MAX_PAYLOAD);
    fclose(f);
    return buf;
}

/* The node's topology as XML in the job's information: from the launcher's
 * one discovery, which every node server uses (PMIX_TOPOLOGY2). */
static void check_topology(void)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, PMIX_HWLOC_XML_V2, NULL, 0, &v), PMIX_SUCCESS,
          "PMIx_Get(PMIX_HWLOC_XML_V2)");
    IT_CHECK(v->type == PMIX_STRING && v->data.string != NULL &&
                 strstr(v->data.string, "<topology") != NULL,
             "PMIX_HWLOC_XML_V2 is no hwloc topology");
    PMIX_VALUE_RELEASE(v);
}

static void put_commit(void)
{
    pmix_value_t v;

    PMIX_VALUE_LOAD(&v, &(uint64_t){ 0xb16000000ull + it_me.rank }, PMIX_UINT64);
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.big.val", &v), PMIX_SUCCESS, "PMIx_Put");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
}

static void fence_collect(void)
{
    pmix_proc_t all;
    pmix_info_t coll;
    bool yes = true;

    PMIX_LOAD_PROCID(&all, it_me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    IT_RC(PMIx_Fence(&all, 1, &coll, 1), PMIX_SUCCESS, "PMIx_Fence(collect)");
    PMIX_INFO_DESTRUCT(&coll);
}

static void check_peer(pmix_rank_t peer)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;

    PMIX_LOAD_PROCID(&p, it_me.nspace, peer);
    IT_RC(PMIx_Get(&p, "it.big.val", NULL, 0, &v), PMIX_SUCCESS, "PMIx_Get(peer)");
    IT_CHECK(v->type == PMIX_UINT64 && v->data.uint64 == 0xb16000000ull + peer,
             "rank %u's value is wrong (type %d)", (unsigned)peer, v->type);
    PMIX_VALUE_RELEASE(v);
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* The group of every rank; returns its context id. */
static size_t group_all(uint32_t size)
{
    pmix_proc_t *procs = calloc(size, sizeof(*procs));
    pmix_info_t dir_cid, *res = NULL;
    size_t nres = 0, cid;
    bool yes = true;
    const pmix_info_t *mb, *c, *id;
    const pmix_proc_t *m;

    IT_CHECK(procs != NULL, "out of memory");
    for (uint32_t r = 0; r < size; r++)
        PMIX_LOAD_PROCID(&procs[r], it_me.nspace, r);
    PMIX_INFO_LOAD(&dir_cid, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    IT_RC(PMIx_Group_construct("it-big-all", procs, size, &dir_cid, 1, &res, &nres),
          PMIX_SUCCESS, "PMIx_Group_construct");
    PMIX_INFO_DESTRUCT(&dir_cid);
    free(procs);
    id = find(res, nres, PMIX_GROUP_ID);
    IT_CHECK(id && id->value.type == PMIX_STRING && strcmp(id->value.data.string, "it-big-all") == 0,
             "no or wrong PMIX_GROUP_ID in the results");
    mb = find(res, nres, PMIX_GROUP_MEMBERSHIP);
    IT_CHECK(mb && mb->value.type == PMIX_DATA_ARRAY && mb->value.data.darray->type == PMIX_PROC &&
                 mb->value.data.darray->size == size,
             "membership missing or not of %u procs", size);
    m = mb->value.data.darray->array;
    for (uint32_t r = 0; r < size; r++)
        IT_CHECK(PMIX_CHECK_NSPACE(m[r].nspace, it_me.nspace) && m[r].rank == r,
                 "member %u is %s:%u", r, m[r].nspace, (unsigned)m[r].rank);
    c = find(res, nres, PMIX_GROUP_CONTEXT_ID);
    IT_CHECK(c && c->value.type == PMIX_SIZE && c->value.data.size != 0,
             "no context id though one was asked for");
    cid = c->value.data.size;
    PMIX_INFO_FREE(res, nres);
    return cid;
}

static void write_ready(void)
{
    char p[4096], ready[4096];
    FILE *f;

    path_of(p, sizeof(p), "ready.tmp");
    path_of(ready, sizeof(ready), "ready");
    f = fopen(p, "w");
    IT_CHECK(f != NULL, "cannot write %s", p);
    fprintf(f, "%s\n", it_me.nspace);
    IT_CHECK(fclose(f) == 0 && rename(p, ready) == 0, "cannot write %s", ready);
}

/* stdin to EOF must be the payload; returns its length. */
static size_t check_stdin(void)
{
    size_t plen, got = 0;
    unsigned char *want = slurp("payload", &plen), buf[8192];

    for (;;) {
        ssize_t n = read(0, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        IT_CHECK(n >= 0, "read stdin: %s", strerror(errno));
        if (n == 0)
            break;
        IT_CHECK(got + (size_t)n <= plen && memcmp(want + got, buf, (size_t)n) == 0,
                 "stdin differs from the payload within bytes %zu..%zu", got, got + (size_t)n);
        got += (size_t)n;
    }
    IT_CHECK(got == plen, "stdin ended after %zu bytes of %zu", got, plen);
    free(want);
    return got;
}

int main(int argc, char **argv)
{
    uint32_t size;
    size_t cid, got;
    char end[4096];
    struct stat st;
    double t0;

    if (argc != 2) {
        fprintf(stderr, "usage: it_bignodes DIR\n");
        return 2;
    }
    dir = argv[1];
    size = it_init();
    IT_CHECK(size >= 2, "the job has %u ranks; 2 at least", size);
    check_topology();
    put_commit();
    fence_collect();
    check_peer((it_me.rank + 1) % size);
    check_peer((it_me.rank + size / 2) % size);
    cid = group_all(size);
    if (it_me.rank == 0)
        write_ready();
    got = check_stdin();
    printf("ok rank %u cid %zu stdin %zu\n", (unsigned)it_me.rank, cid, got);
    fflush(stdout);
    path_of(end, sizeof(end), "end");
    t0 = it_now();
    while (it_me.rank == 0 && stat(end, &st) != 0) {
        IT_CHECK(it_now() - t0 < IT_BIG_WAIT, "no %s after %g s", end, IT_BIG_WAIT);
        it_sleep_ms(20);
    }
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}
