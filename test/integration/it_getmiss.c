/*
 * it_getmiss: PMIx_Get of keys that are not there answers at once when
 * nobody can provide them, and PMIX_IMMEDIATE means "what the local server
 * holds now". For this process, a peer on its node and (on several
 * simulated nodes) a peer on another node:
 *   - reserved keys ("pmix." prefix) the job data provides keep their values;
 *   - a reserved key nobody provides (pmix.rank, pmix.nspace, pmix.locstr
 *     of an unbound process, "pmix.no.such.key") is PMIX_ERR_NOT_FOUND in
 *     well under a second, before and after the target has committed;
 *   - a missing non-reserved key still waits for a local peer's commit (until
 *     PMIX_TIMEOUT) and is NOT_FOUND at once for the caller itself;
 *   - with PMIX_IMMEDIATE, a key the local server does not hold (never put,
 *     a remote peer's not fetched yet, a local peer's just deleted and
 *     committed) is NOT_FOUND at once; a key it holds is returned.
 * Run alone (no launcher) with argument "singleton": own keys only.
 */
#include "itest.h"

#define IT_QUICK 1.0 /* seconds a Get that must not wait may take */

static pmix_info_t it_opts[2];
static size_t it_nopts;

/* Sets the directives of the next Gets: PMIX_IMMEDIATE and/or PMIX_TIMEOUT (s, 0: none). */
static void it_directives(bool immediate, int timeout)
{
    bool yes = true;
    for (size_t i = 0; i < it_nopts; i++)
        PMIX_INFO_DESTRUCT(&it_opts[i]);
    it_nopts = 0;
    if (immediate)
        PMIX_INFO_LOAD(&it_opts[it_nopts++], PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    if (timeout > 0)
        PMIX_INFO_LOAD(&it_opts[it_nopts++], PMIX_TIMEOUT, &timeout, PMIX_INT);
}

/* Get key of rank with the current directives; *secs: how long it took. */
static pmix_status_t it_get(pmix_rank_t rank, const char *key, pmix_value_t **v, double *secs)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    *v = NULL;
    double t0 = it_now();
    pmix_status_t rc = PMIx_Get(&p, key, it_nopts ? it_opts : NULL, it_nopts, v);
    *secs = it_now() - t0;
    return rc;
}

/* key of rank must be missing (PMIX_ERR_NOT_FOUND), answered within IT_QUICK. */
static void it_missing(pmix_rank_t rank, const char *key)
{
    pmix_value_t *v;
    double secs;
    pmix_status_t rc = it_get(rank, key, &v, &secs);
    IT_CHECK(rc == PMIX_ERR_NOT_FOUND, "Get %s of rank %u%s: %s, expected NOT_FOUND", key,
             (unsigned)rank, it_nopts ? " (directives)" : "", PMIx_Error_string(rc));
    IT_CHECK(secs < IT_QUICK, "Get %s of rank %u took %.2f s to say NOT_FOUND", key,
             (unsigned)rank, secs);
}

/* A reserved key the host may or may not provide: if there, it is what
 * want_str (string) or want_rank (rank) says; if not, NOT_FOUND. Quick. */
static void it_maybe(pmix_rank_t rank, const char *key, const char *want_str,
                     pmix_rank_t want_rank)
{
    pmix_value_t *v;
    double secs;
    pmix_status_t rc = it_get(rank, key, &v, &secs);
    IT_CHECK(rc == PMIX_SUCCESS || rc == PMIX_ERR_NOT_FOUND, "Get %s of rank %u: %s", key,
             (unsigned)rank, PMIx_Error_string(rc));
    IT_CHECK(secs < IT_QUICK, "Get %s of rank %u took %.2f s (%s)", key, (unsigned)rank, secs,
             PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS)
        return;
    if (want_str)
        IT_CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want_str) == 0,
                 "%s of rank %u is not \"%s\"", key, (unsigned)rank, want_str);
    else if (want_rank != PMIX_RANK_UNDEF)
        IT_CHECK(v->type == PMIX_PROC_RANK && v->data.rank == want_rank,
                 "%s of rank %u is not %u", key, (unsigned)rank, (unsigned)want_rank);
    else
        IT_CHECK(v->type == PMIX_STRING, "%s of rank %u has type %d", key, (unsigned)rank,
                 v->type);
    PMIX_VALUE_RELEASE(v);
}

/* key of rank must be there: returns it (caller releases). */
static pmix_value_t *it_present(pmix_rank_t rank, const char *key)
{
    pmix_value_t *v;
    double secs;
    pmix_status_t rc = it_get(rank, key, &v, &secs);
    IT_CHECK(rc == PMIX_SUCCESS, "Get %s of rank %u%s: %s, expected SUCCESS", key,
             (unsigned)rank, it_nopts ? " (directives)" : "", PMIx_Error_string(rc));
    return v;
}

static void it_present_u32(pmix_rank_t rank, const char *key, uint32_t want)
{
    pmix_value_t *v = it_present(rank, key);
    IT_CHECK(v->type == PMIX_UINT32 && v->data.uint32 == want, "%s of rank %u: type %d, %u",
             key, (unsigned)rank, v->type, v->data.uint32);
    PMIX_VALUE_RELEASE(v);
}

/* The reserved keys of rank: provided ones have values, the others are missing. */
static void it_reserved(pmix_rank_t rank, bool local)
{
    pmix_value_t *v = it_present(rank, PMIX_LOCAL_RANK);
    IT_CHECK(v->type == PMIX_UINT16, "local rank of %u has type %d", (unsigned)rank, v->type);
    PMIX_VALUE_RELEASE(v);
    v = it_present(rank, PMIX_HOSTNAME);
    IT_CHECK(v->type == PMIX_STRING, "hostname of %u has type %d", (unsigned)rank, v->type);
    PMIX_VALUE_RELEASE(v);
    if (local) { /* the server learns a local process's cpus from its HELLO */
        v = it_present(rank, PMIX_CPUSET);
        PMIX_VALUE_RELEASE(v);
    }
    it_maybe(rank, PMIX_RANK, NULL, rank);
    it_maybe(rank, PMIX_NSPACE, it_me.nspace, PMIX_RANK_UNDEF);
    it_maybe(rank, PMIX_LOCALITY_STRING, NULL, PMIX_RANK_UNDEF);
    it_missing(rank, "pmix.no.such.key");
    it_missing(rank, "pmix.getmiss");
}

static void it_put_u32(const char *key, uint32_t val)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &val, PMIX_UINT32);
    IT_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS, key);
}

static void it_singleton(void)
{
    it_missing(it_me.rank, "pmix.no.such.key");
    it_missing(it_me.rank, PMIX_LOCALITY_STRING);
    it_directives(true, 0);
    it_missing(it_me.rank, "pmix.no.such.key");
    it_missing(it_me.rank, "getmiss.none");
    printf("it_getmiss: singleton: OK\n");
}

int main(int argc, char **argv)
{
    uint32_t size = it_init();
    pmix_rank_t me = it_me.rank;
    if (argc > 1 && strcmp(argv[1], "singleton") == 0) {
        it_singleton();
        it_finalize();
        return 0;
    }
    IT_CHECK(size >= 2, "needs 2 ranks");
    uint32_t mynode = it_nodeid(me);
    pmix_rank_t local = PMIX_RANK_UNDEF, remote = PMIX_RANK_UNDEF;
    for (uint32_t i = 1; i < size; i++) { /* the next ones after me, round the job */
        pmix_rank_t r = (me + i) % size;
        uint32_t node = it_nodeid(r);
        if (node == mynode && local == PMIX_RANK_UNDEF)
            local = r;
        if (node != mynode && remote == PMIX_RANK_UNDEF)
            remote = r;
    }
    IT_CHECK(local != PMIX_RANK_UNDEF, "no other rank on my node");
    pmix_rank_t targets[3] = {me, local, remote};
    size_t ntargets = remote == PMIX_RANK_UNDEF ? 2 : 3;

    /* every process has said hello, none has committed */
    it_fence();
    for (int pass = 0; pass < 2; pass++) {
        it_directives(pass == 1, 0);
        for (size_t t = 0; t < ntargets; t++)
            it_reserved(targets[t], t < 2);
    }
    it_directives(false, 0);

    /* missing non-reserved keys: as before (own: at once; a local peer's:
     * waited for until its commit or PMIX_TIMEOUT) */
    it_missing(me, "getmiss.none");
    it_directives(false, 1);
    pmix_value_t *v;
    double secs;
    pmix_status_t rc = it_get(local, "getmiss.none", &v, &secs);
    IT_RC(rc, PMIX_ERR_TIMEOUT, "Get getmiss.none of a local peer, 1 s timeout");
    IT_CHECK(secs > 0.8 && secs < 5, "a 1 s timeout took %.2f s", secs);

    it_fence();
    it_put_u32("getmiss.a", me);
    it_put_u32("getmiss.b", me);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    it_fence();

    /* committed everywhere: reserved keys still missing, still at once */
    it_directives(false, 0);
    for (size_t t = 0; t < ntargets; t++)
        it_missing(targets[t], "pmix.no.such.key");

    /* PMIX_IMMEDIATE: what the local server holds now */
    it_directives(true, 3);
    it_present_u32(local, "getmiss.a", local);
    it_missing(local, "getmiss.none");
    it_missing(me, "getmiss.none");
    if (remote != PMIX_RANK_UNDEF)
        it_missing(remote, "getmiss.a"); /* not fetched: no request to its node */
    it_fence();
    if (remote != PMIX_RANK_UNDEF) {
        it_directives(false, 0);
        it_present_u32(remote, "getmiss.a", remote);
        it_directives(true, 3);
        it_present_u32(remote, "getmiss.a", remote);
        it_present_u32(remote, "getmiss.b", remote);
    }

    /* a local peer's key read, then deleted and committed */
    it_directives(false, 0);
    it_present_u32(local, "getmiss.b", local);
    it_fence();
    IT_RC(PMIx_Put(PMIX_DEL_GLOBAL, "getmiss.b", NULL), PMIX_SUCCESS, "Put(PMIX_DEL_GLOBAL)");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit (deletion)");
    it_fence();
    it_directives(true, 3);
    it_missing(local, "getmiss.b");
    it_present_u32(local, "getmiss.a", local);
    it_directives(false, 0);

    it_fence();
    if (me == 0)
        printf("it_getmiss: %u ranks on %u nodes: OK\n", size, it_num_nodes());
    it_finalize();
    return 0;
}
