/*
 * it_grpinvite.c: groups built by invitation (PMIx_Group_invite / _join),
 * run by grpinvite.sh on 1 and 3 simulated nodes. Rank 0 leads; every rank
 * puts an endpoint value (GLOBAL) and commits, with no fence.
 *   accept    even invitees accept from inside their PMIX_GROUP_INVITED
 *             handler with PMIx_Group_join_nb (a blocking join there is
 *             PMIX_ERR_WOULD_BLOCK), odd ones with a blocking join from a
 *             thread of their own once the invitation came; the leader asks
 *             for a context id. Everybody's results (leader's invite, each
 *             join) carry the group id, the whole membership and the same
 *             context id; the joins complete only when the group is built
 *             (after the leader saw every PMIX_GROUP_INVITE_ACCEPTED); each
 *             member reads every other member's endpoint with PMIX_IMMEDIATE
 *             and its PMIX_GROUP_LOCAL_CID by context id; members get
 *             PMIX_GROUP_CONSTRUCT_COMPLETE; the group id works in a fence;
 *             then a collective destruct, and a leave of a second group
 *             reaches the others as PMIX_GROUP_LEFT.
 *   decline   rank 1 declines (answered at once, empty results): the leader
 *             gets PMIX_GROUP_INVITE_DECLINED and its invite
 *             PMIX_GROUP_CONSTRUCT_ABORT, the other joins too; an accept
 *             that names no leader is answered at once.
 *   optional  the same with PMIX_GROUP_OPTIONAL: the group forms without
 *             rank 1.
 *   abort     the same with PMIX_GROUP_OPTIONAL, but the leader's
 *             PMIX_GROUP_INVITE_DECLINED handler returns
 *             PMIX_GROUP_CONSTRUCT_ABORT: the invite and every join end with
 *             PMIX_GROUP_CONSTRUCT_ABORT.
 *   leaderfin the leader invites (non-blocking) and finalizes at once; the
 *             last rank never answers (so the invitation cannot complete
 *             first): every join ends with PMIX_GROUP_LEADER_FAILED, never
 *             hangs, and the last rank gets that event.
 *   add       a construct by all but the last rank with PMIX_GROUP_ADD_MEMBERS
 *             naming it: it is invited, joins, and all end in one group
 *             with one context id.
 * Prints "it_grpinvite: MODE: N ranks: OK" from rank 0 (rank 1 in leaderfin).
 */
#include "itest.h"

#include <pthread.h>

#define GRP "grp-invite"

static uint32_t nprocs;
static const char *mode;
static bool declines; /* this rank declines (rank 1 in modes decline and optional) */
static volatile int invited, completed, accepted_seen, declined_seen, left_seen;
static volatile int leader_failed_seen;
static volatile int join_done;
static pmix_status_t join_status;
static pmix_status_t handler_block_rc = PMIX_SUCCESS;
static pmix_proc_t leader_seen;
static size_t join_cid;
static size_t join_nmembers;

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* Checks results of an invite or join: id, membership size, context id (0 if none). */
static void check_results(const pmix_info_t *res, size_t nres, size_t *nmembers, size_t *cid)
{
    const pmix_info_t *id = find(res, nres, PMIX_GROUP_ID);
    IT_CHECK(id && id->value.type == PMIX_STRING && strcmp(id->value.data.string, GRP) == 0,
             "no or wrong PMIX_GROUP_ID in %zu results", nres);
    const pmix_info_t *mb = find(res, nres, PMIX_GROUP_MEMBERSHIP);
    IT_CHECK(mb && mb->value.type == PMIX_DATA_ARRAY, "no membership");
    *nmembers = mb->value.data.darray->size;
    const pmix_info_t *c = find(res, nres, PMIX_GROUP_CONTEXT_ID);
    *cid = c && c->value.type == PMIX_SIZE ? c->value.data.size : 0;
}

static void join_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)cbdata;
    join_status = status;
    if (status == PMIX_SUCCESS && ninfo)
        check_results(info, ninfo, &join_nmembers, &join_cid);
    if (release_fn)
        release_fn(release_cbdata);
    __atomic_store_n(&join_done, 1, __ATOMIC_RELEASE);
}

static pmix_info_t join_info[1];

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    if (status == PMIX_GROUP_INVITED) {
        const pmix_info_t *g = find(info, ninfo, PMIX_GROUP_ID);
        IT_CHECK(g && strcmp(g->value.data.string, GRP) == 0, "invitation without the group id");
        leader_seen = *source;
        if (strcmp(mode, "leaderfin") != 0 && !(it_me.rank % 2) && !declines) {
            pmix_info_t *r = NULL;
            size_t nr = 0;
            handler_block_rc = PMIx_Group_join(GRP, source, PMIX_GROUP_ACCEPT, NULL, 0, &r, &nr);
            IT_RC(PMIx_Group_join_nb(GRP, source, PMIX_GROUP_ACCEPT, join_info, 1, join_cb, NULL),
                  PMIX_SUCCESS, "PMIx_Group_join_nb in the handler");
        }
        __atomic_store_n(&invited, 1, __ATOMIC_RELEASE);
    } else if (status == PMIX_GROUP_CONSTRUCT_COMPLETE) {
        __atomic_add_fetch(&completed, 1, __ATOMIC_ACQ_REL);
    } else if (status == PMIX_GROUP_INVITE_ACCEPTED) {
        __atomic_add_fetch(&accepted_seen, 1, __ATOMIC_ACQ_REL);
    } else if (status == PMIX_GROUP_INVITE_DECLINED) {
        __atomic_add_fetch(&declined_seen, 1, __ATOMIC_ACQ_REL);
    } else if (status == PMIX_GROUP_LEFT) {
        __atomic_add_fetch(&left_seen, 1, __ATOMIC_ACQ_REL);
    } else if (status == PMIX_GROUP_LEADER_FAILED) {
        __atomic_add_fetch(&leader_failed_seen, 1, __ATOMIC_ACQ_REL);
    }
    if (cbfunc)
        cbfunc(status == PMIX_GROUP_INVITE_DECLINED && strcmp(mode, "abort") == 0
                   ? PMIX_GROUP_CONSTRUCT_ABORT /* the leader's handler aborts */
                   : PMIX_EVENT_ACTION_COMPLETE,
               NULL, 0, NULL, NULL, cbdata);
}

static void *join_thread(void *arg)
{
    (void)arg;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_group_opt_t opt = declines ? PMIX_GROUP_DECLINE : PMIX_GROUP_ACCEPT;
    join_status = PMIx_Group_join(GRP, &leader_seen, opt, join_info, 1, &res, &nres);
    if (join_status == PMIX_SUCCESS && nres)
        check_results(res, nres, &join_nmembers, &join_cid);
    if (opt == PMIX_GROUP_DECLINE)
        IT_CHECK(join_status == PMIX_SUCCESS && nres == 0, "a decline: status %d, %zu results",
                 join_status, nres);
    PMIX_INFO_FREE(res, nres);
    __atomic_store_n(&join_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void check_member_data(uint32_t r, size_t cid)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t q[1];
    bool yes = true;
    char want[32];
    PMIX_LOAD_PROCID(&p, it_me.nspace, r);
    PMIX_INFO_LOAD(&q[0], PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    snprintf(want, sizeof(want), "ep-%u", r);
    IT_RC(PMIx_Get(&p, "it.inv.ep", q, 1, &v), PMIX_SUCCESS, "PMIx_Get(member endpoint)");
    IT_CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want) == 0, "endpoint of %u", r);
    PMIX_VALUE_RELEASE(v);
    PMIX_INFO_LOAD(&q[0], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q[0]);
    IT_RC(PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, q, 1, &v), PMIX_SUCCESS, "PMIx_Get(local cid)");
    IT_CHECK(v->type == PMIX_SIZE && v->data.size == 500 + r, "local cid of %u", r);
    PMIX_VALUE_RELEASE(v);
}

int main(int argc, char **argv)
{
    IT_CHECK(argc == 2, "usage: it_grpinvite accept|decline|optional|abort|leaderfin|add");
    mode = argv[1];
    nprocs = it_init();
    IT_CHECK(nprocs >= 3, "needs at least 3 ranks");
    declines = it_me.rank == 1 && (strcmp(mode, "decline") == 0 || strcmp(mode, "optional") == 0 ||
                                   strcmp(mode, "abort") == 0);
    size_t lcid = 500 + it_me.rank;
    pmix_info_t lc;
    PMIX_INFO_LOAD(&lc, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    pmix_data_array_t lda = {.type = PMIX_INFO, .size = 1, .array = &lc};
    PMIX_INFO_LOAD(&join_info[0], PMIX_GROUP_INFO, &lda, PMIX_DATA_ARRAY);
    char ep[32];
    snprintf(ep, sizeof(ep), "ep-%u", (unsigned)it_me.rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, ep, PMIX_STRING);
    IT_RC(PMIx_Put(PMIX_GLOBAL, "it.inv.ep", &v), PMIX_SUCCESS, "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&v);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    pmix_status_t codes[] = {PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE,
                             PMIX_GROUP_INVITE_ACCEPTED, PMIX_GROUP_INVITE_DECLINED,
                             PMIX_GROUP_LEFT, PMIX_GROUP_LEADER_FAILED};
    PMIx_Register_event_handler(codes, 6, NULL, 0, handler, NULL, NULL);
    it_fence(); /* every handler is in place before anyone invites */

    if (strcmp(mode, "add") == 0) {
        /* a construct by all but the last rank, which PMIX_GROUP_ADD_MEMBERS adds:
         * it is invited and joins, and everybody ends in one group of all */
        pmix_info_t *res = NULL;
        size_t nres = 0, nm = 0, cid = 0;
        if (it_me.rank != nprocs - 1) {
            pmix_proc_t *callers = calloc(nprocs - 1, sizeof(*callers));
            for (uint32_t r = 0; r + 1 < nprocs; r++)
                PMIX_LOAD_PROCID(&callers[r], it_me.nspace, r);
            pmix_proc_t last;
            PMIX_LOAD_PROCID(&last, it_me.nspace, nprocs - 1);
            pmix_info_t d[2];
            bool yes = true;
            PMIX_INFO_LOAD(&d[0], PMIX_GROUP_ADD_MEMBERS, &last, PMIX_PROC);
            PMIX_INFO_LOAD(&d[1], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
            IT_RC(PMIx_Group_construct(GRP, callers, nprocs - 1, d, 2, &res, &nres), PMIX_SUCCESS,
                  "construct with PMIX_GROUP_ADD_MEMBERS");
            PMIX_INFO_DESTRUCT(&d[0]);
            PMIX_INFO_DESTRUCT(&d[1]);
            free(callers);
            check_results(res, nres, &nm, &cid);
        } else {
            IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED of an added member");
            IT_RC(PMIx_Group_join(GRP, &leader_seen, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres),
                  PMIX_SUCCESS, "join of an added member");
            check_results(res, nres, &nm, &cid);
        }
        IT_CHECK(nm == nprocs, "add: %zu members, expected %u", nm, nprocs);
        IT_CHECK(cid != 0, "add: no context id");
        PMIX_INFO_FREE(res, nres);
        IT_RC(PMIx_Group_destruct(GRP, NULL, 0), PMIX_SUCCESS, "destruct (add)");
        it_fence();
        if (it_me.rank == 0)
            printf("it_grpinvite: %s: %u ranks: OK\n", mode, nprocs);
        PMIX_INFO_DESTRUCT(&join_info[0]);
        it_finalize();
        return 0;
    }
    bool optional = strcmp(mode, "optional") == 0 || strcmp(mode, "abort") == 0;
    bool abort_expected = strcmp(mode, "decline") == 0 || strcmp(mode, "abort") == 0;
    if (it_me.rank == 0) {
        /* the leader lists itself: it is a member (without, it only invites) */
        pmix_proc_t *inv = calloc(nprocs, sizeof(*inv));
        for (uint32_t r = 0; r < nprocs; r++)
            PMIX_LOAD_PROCID(&inv[r], it_me.nspace, r);
        pmix_info_t dirs[3];
        size_t nd = 0;
        bool yes = true;
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_INFO, &lda, PMIX_DATA_ARRAY);
        if (optional)
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
        if (strcmp(mode, "leaderfin") == 0) {
            IT_RC(PMIx_Group_invite_nb(GRP, inv, nprocs, dirs, nd, join_cb, NULL),
                  PMIX_SUCCESS, "PMIx_Group_invite_nb");
            it_finalize();
            for (size_t i = 0; i < nd; i++)
                PMIX_INFO_DESTRUCT(&dirs[i]);
            PMIX_INFO_DESTRUCT(&join_info[0]);
            free(inv);
            return 0;
        }
        pmix_info_t *res = NULL;
        size_t nres = 0, nm = 0, cid = 0;
        pmix_status_t rc = PMIx_Group_invite(GRP, inv, nprocs, dirs, nd, &res, &nres);
        for (size_t i = 0; i < nd; i++)
            PMIX_INFO_DESTRUCT(&dirs[i]);
        if (abort_expected) {
            IT_RC(rc, PMIX_GROUP_CONSTRUCT_ABORT, "PMIx_Group_invite with a decline");
            IT_WAIT_FOR(declined_seen, 10, "PMIX_GROUP_INVITE_DECLINED");
        } else {
            IT_RC(rc, PMIX_SUCCESS, "PMIx_Group_invite");
            check_results(res, nres, &nm, &cid);
            IT_CHECK(nm == (optional ? nprocs - 1 : nprocs), "invite: %zu members", nm);
            IT_CHECK(cid != 0, "invite: no context id");
            IT_CHECK(accepted_seen == (int)(optional ? nprocs - 2 : nprocs - 1),
                     "leader saw %d acceptances before its invite completed", accepted_seen);
            join_cid = cid;
            join_nmembers = nm;
        }
        PMIX_INFO_FREE(res, nres);
        free(inv);
    } else {
        IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
        IT_CHECK(leader_seen.rank == 0, "invitation from rank %u", (unsigned)leader_seen.rank);
        if (strcmp(mode, "leaderfin") == 0 && it_me.rank == nprocs - 1) {
            /* never answers, so the invitation cannot complete before the
             * leader finalizes; hears of it as an event */
            IT_WAIT_FOR(leader_failed_seen, 10, "PMIX_GROUP_LEADER_FAILED");
            it_finalize();
            return 0;
        }
        pthread_t t;
        bool threaded = strcmp(mode, "leaderfin") == 0 || it_me.rank % 2 || declines;
        if (threaded)
            pthread_create(&t, NULL, join_thread, NULL);
        IT_WAIT_FOR(join_done, 20, "the join to complete");
        if (threaded)
            pthread_join(t, NULL);
        if (!(it_me.rank % 2) && strcmp(mode, "leaderfin") != 0)
            IT_RC(handler_block_rc, PMIX_ERR_WOULD_BLOCK, "blocking join in the handler");
        if (strcmp(mode, "leaderfin") == 0) {
            IT_RC(join_status, PMIX_GROUP_LEADER_FAILED, "join whose leader finalized");
        } else if (declines) {
            IT_RC(join_status, PMIX_SUCCESS, "decline");
        } else if (abort_expected) {
            IT_RC(join_status, PMIX_GROUP_CONSTRUCT_ABORT, "join of an aborted group");
        } else {
            IT_RC(join_status, PMIX_SUCCESS, "join");
            IT_CHECK(join_nmembers == (optional ? nprocs - 1 : nprocs), "join: %zu members",
                     join_nmembers);
            IT_CHECK(join_cid != 0, "join: no context id");
        }
    }
    bool member = !abort_expected && strcmp(mode, "leaderfin") != 0 &&
                  !(optional && it_me.rank == 1);
    if (member) {
        for (uint32_t r = 0; r < nprocs; r++)
            if (!(optional && r == 1) && r != it_me.rank)
                check_member_data(r, join_cid);
        if (it_me.rank != 0)
            IT_WAIT_FOR(completed, 10, "PMIX_GROUP_CONSTRUCT_COMPLETE");
        pmix_proc_t gp;
        PMIX_LOAD_PROCID(&gp, GRP, PMIX_RANK_WILDCARD);
        IT_RC(PMIx_Fence(&gp, 1, NULL, 0), PMIX_SUCCESS, "PMIx_Fence(group id)");
        IT_RC(PMIx_Group_destruct(GRP, NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
    }
    /* an accept that names no leader is answered at once, with nothing */
    pmix_info_t *res = NULL;
    size_t nres = 7;
    IT_RC(PMIx_Group_join("grp-noleader", NULL, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres),
          PMIX_SUCCESS, "join without a leader");
    IT_CHECK(res == NULL && nres == 0, "join without a leader returned results");
    if (strcmp(mode, "accept") == 0) {
        /* leave: every rank builds "grp-leave", rank 1 leaves, the others hear it */
        pmix_proc_t wild;
        PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
        IT_RC(PMIx_Group_construct("grp-leave", &wild, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
              "construct grp-leave");
        if (it_me.rank == 1)
            IT_RC(PMIx_Group_leave("grp-leave", NULL, 0), PMIX_SUCCESS, "PMIx_Group_leave");
        else
            IT_WAIT_FOR(left_seen, 10, "PMIX_GROUP_LEFT");
        IT_RC(PMIx_Group_leave("grp-none", NULL, 0), PMIX_ERR_NOT_FOUND, "leave of no group");
    }
    if (strcmp(mode, "leaderfin") != 0)
        it_fence();
    if (it_me.rank == (strcmp(mode, "leaderfin") == 0 ? 1u : 0u))
        printf("it_grpinvite: %s: %u ranks: OK\n", mode, nprocs);
    PMIX_INFO_DESTRUCT(&join_info[0]);
    it_finalize();
    return 0;
}
