/*
 * it_grpedge.c: group and fence corner cases that other projects' PMIx
 * programs run into (grpedge.sh; 1 to 4 simulated nodes, spmix-run
 * --keep-going where a rank dies). Every rank puts "it.edge.remote"
 * (PMIX_REMOTE) and "it.edge.global" (PMIX_GLOBAL) and commits first.
 *   nullcb    rank 0 invites every rank (WILDCARD: itself too); each accepts from inside its
 *             PMIX_GROUP_INVITED handler with PMIx_Group_join_nb(..., NULL,
 *             NULL) and learns the outcome from PMIX_GROUP_CONSTRUCT_COMPLETE;
 *             then every member reads every other member's PMIX_REMOTE and
 *             PMIX_GLOBAL key with PMIX_IMMEDIATE (members on its own node
 *             included: the group exchanged them).
 *   construct the same reads after a PMIx_Group_construct over every rank.
 *   nullcons  PMIx_Group_construct_nb with a NULL callback by every rank:
 *             the group comes (its id works as a namespace); then a destruct_nb
 *             with a NULL callback and a blocking construct of the same id.
 *   dead      every rank fences; all but the last construct a group over
 *             every rank with PMIX_GROUP_ASSIGN_CONTEXT_ID; the last sleeps
 *             2 s and _exit(0)s without finalizing: every survivor's
 *             construct returns PMIX_GROUP_CONSTRUCT_ABORT within 10 s.
 *   deaddestr the same for PMIx_Group_destruct of a group of every rank:
 *             the survivors' destruct fails (not success) within 10 s.
 *   finfence  ranks 0 and 1 finalize and exit 0; the others fence over
 *             {nspace, WILDCARD} (after 1 s, and once more, collecting): the
 *             fences complete with PMIX_SUCCESS without them, and every
 *             rank's committed data (the departed ones' too) is readable.
 *   finfencehi the same with the last two ranks leaving. With a second
 *             argument "nodata" the departed ranks' data is not read (under
 *             Slurm it goes with their node's slurmstepd).
 *   invfin    rank 0 invites every other rank; the last one finalizes and
 *             exits without answering, the others accept (NULL callback):
 *             the leader's invite returns PMIX_GROUP_CONSTRUCT_ABORT within
 *             10 s, and the leader, as every acceptor, gets the
 *             PMIX_GROUP_CONSTRUCT_ABORT event.
 *   invout    rank 0 invites every other rank into a group it does not join
 *             itself (its list leaves it out), with a context id: its invite
 *             returns the membership without it and the context id, its
 *             handlers saw every PMIX_GROUP_INVITE_ACCEPTED and the
 *             PMIX_GROUP_CONSTRUCT_COMPLETE; the members read each other's
 *             endpoints and destruct the group among themselves.
 * Each survivor prints "it_grpedge: MODE: rank R: OK".
 */
#include "itest.h"

#include <pthread.h>

#define GRP "grp-edge"

static const char *mode;
static volatile int invited, completed, aborted, accepted_seen;
static bool stays_silent; /* this rank never answers its invitation (mode invfin) */
static pmix_proc_t leader_seen;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (status == PMIX_GROUP_INVITED) {
        leader_seen = *source;
        /* no callback: the outcome comes as PMIX_GROUP_CONSTRUCT_COMPLETE */
        if (!stays_silent)
            IT_RC(PMIx_Group_join_nb(GRP, source, PMIX_GROUP_ACCEPT, NULL, 0, NULL, NULL),
                  PMIX_SUCCESS, "PMIx_Group_join_nb(NULL callback) in the handler");
        __atomic_store_n(&invited, 1, __ATOMIC_RELEASE);
    } else if (status == PMIX_GROUP_INVITE_ACCEPTED) {
        __atomic_add_fetch(&accepted_seen, 1, __ATOMIC_ACQ_REL);
    } else if (status == PMIX_GROUP_CONSTRUCT_COMPLETE) {
        __atomic_add_fetch(&completed, 1, __ATOMIC_ACQ_REL);
    } else if (status == PMIX_GROUP_CONSTRUCT_ABORT) {
        __atomic_add_fetch(&aborted, 1, __ATOMIC_ACQ_REL);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void put_endpoints(void)
{
    char s[48];
    pmix_value_t v;
    snprintf(s, sizeof(s), "remote-%u", (unsigned)it_me.rank);
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    IT_RC(PMIx_Put(PMIX_REMOTE, "it.edge.remote", &v), PMIX_SUCCESS, "PMIx_Put(REMOTE)");
    PMIX_VALUE_DESTRUCT(&v);
    snprintf(s, sizeof(s), "global-%u", (unsigned)it_me.rank);
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.edge.global", &v), PMIX_SUCCESS, "PMIx_Put(GLOBAL)");
    PMIX_VALUE_DESTRUCT(&v);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
}

/* r's key (remote or global) read with PMIX_IMMEDIATE: answered locally. */
static void check_endpoint(uint32_t r, const char *which, bool immediate)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t q;
    bool yes = true;
    char key[32], want[48];
    PMIX_LOAD_PROCID(&p, it_me.nspace, r);
    PMIX_INFO_LOAD(&q, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    snprintf(key, sizeof(key), "it.edge.%s", which);
    snprintf(want, sizeof(want), "%s-%u", which, (unsigned)r);
    pmix_status_t rc = PMIx_Get(&p, key, immediate ? &q : NULL, immediate ? 1 : 0, &v);
    IT_CHECK(rc == PMIX_SUCCESS, "PMIx_Get(rank %u, %s%s): %s", (unsigned)r, key,
             immediate ? ", PMIX_IMMEDIATE" : "", PMIx_Error_string(rc));
    IT_CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want) == 0, "%s of rank %u", key,
             (unsigned)r);
    PMIX_VALUE_RELEASE(v);
}

static void check_all_endpoints(uint32_t n)
{
    for (uint32_t r = 0; r < n; r++) {
        if (r == it_me.rank)
            continue;
        check_endpoint(r, "remote", true);
        check_endpoint(r, "global", true);
    }
}

static void mode_nullcb(uint32_t n)
{
    if (it_me.rank == 0) {
        pmix_proc_t wild; /* every rank, the leader too: it is a member */
        PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        IT_RC(PMIx_Group_invite(GRP, &wild, 1, NULL, 0, &res, &nres), PMIX_SUCCESS,
              "PMIx_Group_invite");
        PMIX_INFO_FREE(res, nres);
    } else {
        IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
        IT_WAIT_FOR(completed, 20, "PMIX_GROUP_CONSTRUCT_COMPLETE after a join with no callback");
        IT_CHECK(leader_seen.rank == 0, "invited by rank %u", (unsigned)leader_seen.rank);
    }
    check_all_endpoints(n);
    IT_RC(PMIx_Group_destruct(GRP, NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
}

static void mode_invfin(uint32_t n)
{
    if (it_me.rank == 0) {
        pmix_proc_t *inv = calloc(n - 1, sizeof(*inv));
        for (uint32_t r = 1; r < n; r++)
            PMIX_LOAD_PROCID(&inv[r - 1], it_me.nspace, r);
        double t0 = it_now();
        pmix_status_t rc = PMIx_Group_invite(GRP, inv, n - 1, NULL, 0, NULL, NULL);
        printf("it_grpedge: invfin: rank 0: invite %s after %.2f s\n", PMIx_Error_string(rc),
               it_now() - t0);
        IT_RC(rc, PMIX_GROUP_CONSTRUCT_ABORT, "invite of a rank that finalized without answering");
        IT_CHECK(it_now() - t0 < 10, "the invite took %.1f s", it_now() - t0);
        IT_WAIT_FOR(aborted, 10, "the leader's PMIX_GROUP_CONSTRUCT_ABORT event");
        free(inv);
    } else if (it_me.rank == n - 1) {
        IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
        it_finalize();
        exit(0); /* without answering */
    } else {
        IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
        IT_WAIT_FOR(aborted, 20, "PMIX_GROUP_CONSTRUCT_ABORT of an acceptor");
    }
}

static void mode_invout(uint32_t n)
{
    if (it_me.rank == 0) {
        pmix_proc_t *inv = calloc(n - 1, sizeof(*inv));
        for (uint32_t r = 1; r < n; r++)
            PMIX_LOAD_PROCID(&inv[r - 1], it_me.nspace, r);
        pmix_info_t d;
        bool yes = true;
        PMIX_INFO_LOAD(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        IT_RC(PMIx_Group_invite(GRP, inv, n - 1, &d, 1, &res, &nres), PMIX_SUCCESS,
              "invite into a group the leader does not join");
        size_t nm = 0;
        bool cid = false, self_in = false;
        for (size_t i = 0; i < nres; i++) {
            if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP)) {
                const pmix_proc_t *m = res[i].value.data.darray->array;
                nm = res[i].value.data.darray->size;
                for (size_t k = 0; k < nm; k++)
                    self_in |= m[k].rank == it_me.rank;
            }
            cid |= PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID);
        }
        IT_CHECK(nm == n - 1 && !self_in, "membership of %zu (leader in: %d), expected %u without it",
                 nm, self_in, n - 1);
        IT_CHECK(cid, "no context id");
        IT_CHECK(accepted_seen == (int)(n - 1), "the leader saw %d acceptances", accepted_seen);
        IT_WAIT_FOR(completed, 10, "the leader's PMIX_GROUP_CONSTRUCT_COMPLETE");
        PMIX_INFO_FREE(res, nres);
        free(inv);
        return;
    }
    IT_WAIT_FOR(completed, 20, "PMIX_GROUP_CONSTRUCT_COMPLETE");
    for (uint32_t r = 1; r < n; r++)
        if (r != it_me.rank) {
            check_endpoint(r, "remote", true);
            check_endpoint(r, "global", true);
        }
    IT_RC(PMIx_Group_destruct(GRP, NULL, 0), PMIX_SUCCESS, "destruct by the members");
}

static void mode_construct(uint32_t n)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Group_construct(GRP, &wild, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Group_construct");
    check_all_endpoints(n);
    IT_RC(PMIx_Group_destruct(GRP, NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
}

static void mode_nullcons(uint32_t n)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Group_construct_nb(GRP, &wild, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Group_construct_nb(NULL callback)");
    /* no callback: the group exists here once its id works as a namespace
     * ((group id, r) is its r-th member) */
    pmix_proc_t last;
    PMIX_LOAD_PROCID(&last, GRP, n - 1);
    pmix_info_t q;
    bool yes = true;
    PMIX_INFO_LOAD(&q, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    double t0 = it_now();
    for (;;) {
        pmix_value_t *v = NULL;
        if (PMIx_Get(&last, "it.edge.global", &q, 1, &v) == PMIX_SUCCESS) {
            PMIX_VALUE_RELEASE(v);
            break;
        }
        IT_CHECK(it_now() - t0 < 20, "the group of a construct_nb with no callback never came");
        it_sleep_ms(10);
    }
    check_all_endpoints(n);
    IT_RC(PMIx_Group_destruct_nb(GRP, NULL, 0, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Group_destruct_nb(NULL callback)");
    /* with no callback, the group is gone here once its id no longer works
     * as a namespace; a fence alone does not wait for that (the destruct is
     * a collective of its own, which may end after the fence's) */
    t0 = it_now();
    for (;;) {
        pmix_value_t *v = NULL;
        if (PMIx_Get(&last, "it.edge.global", &q, 1, &v) != PMIX_SUCCESS)
            break;
        PMIX_VALUE_RELEASE(v);
        IT_CHECK(it_now() - t0 < 20, "the group of a destruct_nb with no callback never went");
        it_sleep_ms(10);
    }
    it_fence();
    IT_RC(PMIx_Group_construct(GRP, &wild, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Group_construct again");
    IT_RC(PMIx_Group_destruct(GRP, NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
}

static void mode_dead(uint32_t n, bool destruct)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    if (destruct)
        IT_RC(PMIx_Group_construct(GRP, &wild, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
              "PMIx_Group_construct");
    it_fence();
    if (it_me.rank == n - 1) {
        it_sleep_ms(2000);
        _exit(0); /* without PMIx_Finalize */
    }
    double t0 = it_now();
    pmix_status_t rc;
    if (destruct) {
        rc = PMIx_Group_destruct(GRP, NULL, 0);
        IT_CHECK(rc != PMIX_SUCCESS, "destruct with a dead member succeeded");
    } else {
        pmix_info_t d;
        bool yes = true;
        PMIX_INFO_LOAD(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        rc = PMIx_Group_construct(GRP, &wild, 1, &d, 1, &res, &nres);
        PMIX_INFO_FREE(res, nres);
        IT_RC(rc, PMIX_GROUP_CONSTRUCT_ABORT, "construct that lost a member");
    }
    double took = it_now() - t0;
    printf("it_grpedge: %s: rank %u: %s after %.2f s\n", mode, (unsigned)it_me.rank,
           PMIx_Error_string(rc), took);
    IT_CHECK(took < 10, "took %.1f s", took);
}

/* The departed ranks' data is not checked (argument "nodata"): under Slurm
 * their node's slurmstepd ends with them, and their data with it. */
static bool nodata;

static void mode_finfence(uint32_t n, bool high)
{
    bool leaves = high ? it_me.rank >= n - 2 : it_me.rank < 2;
    if (leaves) {
        it_finalize();
        exit(0);
    }
    it_sleep_ms(1000); /* ranks 0 and 1 are gone by then */
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    for (int round = 0; round < 2; round++) {
        double t0 = it_now();
        pmix_info_t d;
        bool yes = true;
        PMIX_INFO_LOAD(&d, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        pmix_status_t rc = PMIx_Fence(&wild, 1, round ? &d : NULL, round ? 1 : 0);
        printf("it_grpedge: %s: rank %u: round %d: %s after %.2f s\n", mode,
               (unsigned)it_me.rank, round, PMIx_Error_string(rc), it_now() - t0);
        IT_RC(rc, PMIX_SUCCESS, "fence without the finalized ranks");
    }
    for (uint32_t r = 0; r < n && !nodata; r++)
        if (r != it_me.rank)
            check_endpoint(r, "global", false);
}

int main(int argc, char **argv)
{
    nodata = argc == 3 && strcmp(argv[2], "nodata") == 0;
    IT_CHECK(argc == 2 || nodata, "usage: it_grpedge nullcb|construct|nullcons|dead|deaddestr|"
                                  "finfence|finfencehi|invfin|invout [nodata]");
    mode = argv[1];
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint32_t n = it_init();
    IT_CHECK(n >= (strcmp(mode, "invfin") == 0 ? 2u : 3u), "too few ranks");
    put_endpoints();
    stays_silent = strcmp(mode, "invfin") == 0 && it_me.rank == n - 1;
    pmix_status_t codes[] = {PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE,
                             PMIX_GROUP_CONSTRUCT_ABORT, PMIX_GROUP_INVITE_ACCEPTED};
    IT_RC(PMIx_Register_event_handler(codes, 4, NULL, 0, handler, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Register_event_handler");
    if (strncmp(mode, "finfence", 8) != 0)
        it_fence(); /* every handler is in place before anyone invites */
    if (strcmp(mode, "nullcb") == 0)
        mode_nullcb(n);
    else if (strcmp(mode, "construct") == 0)
        mode_construct(n);
    else if (strcmp(mode, "nullcons") == 0)
        mode_nullcons(n);
    else if (strcmp(mode, "dead") == 0 || strcmp(mode, "deaddestr") == 0)
        mode_dead(n, strcmp(mode, "deaddestr") == 0);
    else if (strcmp(mode, "invfin") == 0)
        mode_invfin(n);
    else if (strcmp(mode, "invout") == 0)
        mode_invout(n);
    else if (strcmp(mode, "finfence") == 0 || strcmp(mode, "finfencehi") == 0)
        mode_finfence(n, strcmp(mode, "finfencehi") == 0);
    else
        IT_CHECK(0, "unknown mode %s", mode);
    printf("it_grpedge: %s: rank %u: OK\n", mode, (unsigned)it_me.rank);
    if (strcmp(mode, "dead") != 0 && strcmp(mode, "deaddestr") != 0 &&
        strncmp(mode, "finfence", 8) != 0 && strcmp(mode, "invfin") != 0)
        it_fence();
    it_finalize();
    return 0;
}
