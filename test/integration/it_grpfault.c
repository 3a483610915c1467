/*
 * it_grpfault.c: a process that dies during a group operation, under
 * spmix-run --keep-going (grpfault.sh, 1 and 3 simulated nodes).
 *   member  the last rank kills itself (SIGKILL) instead of joining a
 *           construct over every rank: the others' construct fails with an
 *           error within 5 s (no PMIX_TIMEOUT is given), never hangs.
 *   optional  the same with PMIX_GROUP_OPTIONAL: the others' group forms
 *           without the dead rank within 5 s.
 *   leader  rank 0 invites every other rank (non-blocking) and kills itself
 *           once the first acceptance came; the last rank never answers (so
 *           the invitation cannot complete first): every join ends with
 *           PMIX_GROUP_LEADER_FAILED within 5 s, and the last rank gets the
 *           PMIX_GROUP_LEADER_FAILED event.
 *   reselect  rank 0 invites, rank 1 accepts, rank 0 dies: rank 1's
 *           PMIX_GROUP_LEADER_FAILED handler returns PMIX_GROUP_LEADER, every
 *           survivor gets PMIX_GROUP_LEADER_SELECTED naming rank 1, which then
 *           invites the others into a new group.
 *   noleader  the same, nobody steps up: every survivor gets the selection's
 *           error (PMIX_ERR_NOT_FOUND, source: the failed leader).
 *   notify  a group constructed with PMIX_GROUP_NOTIFY_TERMINATION; then its
 *           last rank kills itself: every other member gets
 *           PMIX_GROUP_MEMBER_FAILED naming it within 5 s.
 *   deadinvitee  the last rank kills itself, then rank 0 invites every other
 *           rank with no PMIX_TIMEOUT: the invite and the joins end with
 *           PMIX_GROUP_CONSTRUCT_ABORT within 5 s (the dead invitee counts as
 *           failed at once), or the leader would wait forever.
 *   nodelost [NODE]  (2+ simulated nodes) the last rank of NODE (default:
 *           the last rank's node) kills the node's daemon (SIGKILL, its
 *           parent) while the ranks of the other nodes are in a construct
 *           over every rank, except the last of them, which calls it 3 s
 *           later; no rank of NODE joins it: every survivor's construct
 *           fails with an error, never hangs or succeeds; the others' within
 *           2.5 s (at the loss: a node's tracker still waiting for its late
 *           rank fails too), the late rank's within 10 s of its call.
 *   nodeoptional [NODE]  the same with PMIX_GROUP_OPTIONAL: the survivors'
 *           group forms without the lost node's ranks within 10 s.
 * The node modes print "it_grpfault: MODE: rank R: construct STATUS after
 * T s" first. Each survivor prints "it_grpfault: MODE: rank R: OK"; the
 * job's exit status is the dead rank's (137).
 */
#include "itest.h"

#include <pthread.h>
#include <signal.h>

static volatile int invited, accepted, leader_failed, member_failed, selected;
static pmix_proc_t selected_leader;
static pmix_status_t selected_status;
static const char *mode;
static pmix_rank_t failed_rank = PMIX_RANK_UNDEF;
static pmix_proc_t leader;

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
        leader = *source;
        __atomic_store_n(&invited, 1, __ATOMIC_RELEASE);
    } else if (status == PMIX_GROUP_INVITE_ACCEPTED) {
        __atomic_store_n(&accepted, 1, __ATOMIC_RELEASE);
    } else if (status == PMIX_GROUP_LEADER_FAILED) {
        __atomic_store_n(&leader_failed, 1, __ATOMIC_RELEASE);
        if (strcmp(mode, "reselect") == 0 && it_me.rank == 1) {
            /* rank 1 steps up as the new leader */
            static pmix_info_t lead;
            bool yes = true;
            PMIX_INFO_LOAD(&lead, PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
            if (cbfunc)
                cbfunc(PMIX_EVENT_ACTION_COMPLETE, &lead, 1, NULL, NULL, cbdata);
            return;
        }
    } else if (status == PMIX_GROUP_LEADER_SELECTED || status == PMIX_ERR_NOT_FOUND) {
        selected_leader = *source;
        selected_status = status;
        __atomic_store_n(&selected, 1, __ATOMIC_RELEASE);
    } else if (status == PMIX_GROUP_MEMBER_FAILED) {
        for (size_t i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC))
                failed_rank = info[i].value.data.proc->rank;
        __atomic_store_n(&member_failed, 1, __ATOMIC_RELEASE);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void ignore_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status;
    (void)info;
    (void)ninfo;
    (void)cbdata;
    if (release_fn)
        release_fn(release_cbdata);
}

/* Rank 0 invites every other rank (non-blocking) and dies once a first
 * invitee accepted. Does not return. */
static void lead_then_die(uint32_t n)
{
    pmix_proc_t *inv = calloc(n - 1, sizeof(*inv));
    IT_CHECK(inv != NULL, "calloc");
    for (uint32_t r = 1; r < n; r++)
        PMIX_LOAD_PROCID(&inv[r - 1], it_me.nspace, r);
    IT_RC(PMIx_Group_invite_nb("grp-fault", inv, n - 1, NULL, 0, ignore_cb, NULL), PMIX_SUCCESS,
          "PMIx_Group_invite_nb");
    IT_WAIT_FOR(accepted, 20, "a first acceptance");
    raise(SIGKILL);
    abort(); /* not reached */
}

int main(int argc, char **argv)
{
    IT_CHECK(argc == 2 || argc == 3,
             "usage: it_grpfault member|optional|leader|reselect|noleader|notify|deadinvitee|"
             "nodelost [NODE]|nodeoptional [NODE]");
    mode = argv[1];
    uint32_t n = it_init();
    IT_CHECK(n >= 3, "needs at least 3 ranks");
    pmix_status_t codes[] = {PMIX_GROUP_INVITED, PMIX_GROUP_INVITE_ACCEPTED,
                             PMIX_GROUP_LEADER_FAILED, PMIX_GROUP_MEMBER_FAILED,
                             PMIX_GROUP_LEADER_SELECTED, PMIX_ERR_NOT_FOUND};
    PMIx_Register_event_handler(codes, 6, NULL, 0, handler, NULL, NULL);
    it_fence();
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    double t0 = it_now();
    if (strcmp(mode, "deadinvitee") == 0) {
        if (it_me.rank == n - 1) {
            it_sleep_ms(300); /* the fence above has ended everywhere */
            raise(SIGKILL);
        }
        it_sleep_ms(500); /* the server has seen it go */
        if (it_me.rank == 0) {
            pmix_proc_t *inv = calloc(n - 1, sizeof(*inv));
            for (uint32_t r = 1; r < n; r++)
                PMIX_LOAD_PROCID(&inv[r - 1], it_me.nspace, r);
            IT_RC(PMIx_Group_invite("grp-dead", inv, n - 1, NULL, 0, NULL, NULL),
                  PMIX_GROUP_CONSTRUCT_ABORT, "invite of a dead process");
            free(inv);
        } else {
            IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
            IT_RC(PMIx_Group_join("grp-dead", &leader, PMIX_GROUP_ACCEPT, NULL, 0, NULL, NULL),
                  PMIX_GROUP_CONSTRUCT_ABORT, "join of an invitation to a dead process");
        }
        IT_CHECK(it_now() - t0 < 5, "took %.1f s", it_now() - t0);
    } else if (strcmp(mode, "notify") == 0) {
        pmix_info_t nt;
        bool yes = true;
        PMIX_INFO_LOAD(&nt, PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
        IT_RC(PMIx_Group_construct("grp-notify", &wild, 1, &nt, 1, NULL, NULL), PMIX_SUCCESS,
              "construct with PMIX_GROUP_NOTIFY_TERMINATION");
        it_fence();
        if (it_me.rank == n - 1) {
            it_sleep_ms(300); /* the fence has ended everywhere */
            raise(SIGKILL);
        }
        IT_WAIT_FOR(member_failed, 5, "PMIX_GROUP_MEMBER_FAILED");
        IT_CHECK(failed_rank == n - 1, "MEMBER_FAILED names rank %u", (unsigned)failed_rank);
    } else if (strcmp(mode, "optional") == 0) {
        if (it_me.rank == n - 1) {
            it_sleep_ms(200);
            raise(SIGKILL);
        }
        pmix_info_t opt;
        bool yes = true;
        PMIX_INFO_LOAD(&opt, PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        IT_RC(PMIx_Group_construct("grp-ft", &wild, 1, &opt, 1, &res, &nres), PMIX_SUCCESS,
              "optional construct with a dead member");
        size_t members = 0;
        for (size_t i = 0; i < nres; i++)
            if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP))
                members = res[i].value.data.darray->size;
        IT_CHECK(members == n - 1, "optional construct: %zu members, expected %u", members,
                 n - 1);
        PMIX_INFO_FREE(res, nres);
        IT_CHECK(it_now() - t0 < 5, "the construct took %.1f s", it_now() - t0);
    } else if (strcmp(mode, "nodelost") == 0 || strcmp(mode, "nodeoptional") == 0) {
        bool optional = strcmp(mode, "nodeoptional") == 0;
        uint32_t vnode = argc == 3 ? (uint32_t)atoi(argv[2]) : it_nodeid(n - 1), lost = 0;
        uint32_t killer = n, late = 0;
        for (uint32_t r = 0; r < n; r++)
            if (it_nodeid(r) == vnode) {
                lost++;
                killer = r; /* the last rank on the node kills its daemon */
            } else {
                late = r; /* the last survivor comes after the loss */
            }
        IT_CHECK(killer < n && it_nodeid(0) != vnode, "node %u: no rank or rank 0's", vnode);
        if (it_nodeid(it_me.rank) == vnode) { /* never joins the construct */
            if (it_me.rank == killer) {
                it_sleep_ms(300); /* the others are inside the construct */
                fflush(NULL);
                kill(getppid(), SIGKILL); /* the node's daemon: the node is lost */
            }
            it_sleep_ms(30000); /* the launcher kills the ranks of a lost node */
            _exit(0);
        }
        pmix_info_t opt;
        bool yes = true;
        PMIX_INFO_LOAD(&opt, PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        if (it_me.rank == late) {
            it_sleep_ms(3000); /* its node's other ranks wait for it meanwhile */
            t0 = it_now();
        }
        pmix_status_t rc = PMIx_Group_construct("grp-node", &wild, 1, optional ? &opt : NULL,
                                                optional ? 1 : 0, &res, &nres);
        double took = it_now() - t0;
        printf("it_grpfault: %s: rank %u: construct %s after %.2f s\n", mode,
               (unsigned)it_me.rank, PMIx_Error_string(rc), took);
        if (optional) {
            IT_RC(rc, PMIX_SUCCESS, "optional construct with a lost node");
            size_t members = 0;
            for (size_t i = 0; i < nres; i++)
                if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP))
                    members = res[i].value.data.darray->size;
            IT_CHECK(members == n - lost, "optional construct: %zu members, expected %u",
                     members, n - lost);
        } else {
            IT_CHECK(rc != PMIX_SUCCESS, "construct with a lost node succeeded");
            /* the others fail at the loss, before the late rank comes */
            IT_CHECK(it_me.rank == late || took < 2.5, "the construct took %.2f s to fail", took);
        }
        PMIX_INFO_FREE(res, nres);
        IT_CHECK(took < 10, "the construct took %.1f s to end", took);
    } else if (strcmp(mode, "member") == 0) {
        if (it_me.rank == n - 1) {
            it_sleep_ms(200); /* let the others be inside the construct */
            raise(SIGKILL);
        }
        pmix_status_t rc = PMIx_Group_construct("grp-fault", &wild, 1, NULL, 0, NULL, NULL);
        IT_CHECK(rc != PMIX_SUCCESS, "construct with a dead member succeeded");
        IT_CHECK(it_now() - t0 < 5, "the construct took %.1f s to fail", it_now() - t0);
    } else if (strcmp(mode, "reselect") == 0 || strcmp(mode, "noleader") == 0) {
        if (it_me.rank == 0)
            lead_then_die(n);
        IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
        if (it_me.rank == 1) { /* accepts, so that the leader dies */
            pmix_status_t jrc = PMIx_Group_join("grp-fault", &leader, PMIX_GROUP_ACCEPT, NULL, 0,
                                                NULL, NULL);
            IT_RC(jrc, PMIX_GROUP_LEADER_FAILED, "join whose leader died");
        }
        IT_WAIT_FOR(selected, 10, "PMIX_GROUP_LEADER_SELECTED");
        if (strcmp(mode, "noleader") == 0) { /* nobody stepped up: an error */
            IT_RC(selected_status, PMIX_ERR_NOT_FOUND, "leader selection without a candidate");
            IT_CHECK(selected_leader.rank == 0, "selection names %u", (unsigned)selected_leader.rank);
            goto done;
        }
        /* every participant hears who leads now: rank 1 */
        IT_RC(selected_status, PMIX_GROUP_LEADER_SELECTED, "leader selection");
        IT_CHECK(selected_leader.rank == 1, "new leader %u", (unsigned)selected_leader.rank);
        /* the new leader builds the group again with the others */
        if (it_me.rank == 1) {
            pmix_proc_t *inv = calloc(n - 2, sizeof(*inv));
            for (uint32_t r = 2; r < n; r++)
                PMIX_LOAD_PROCID(&inv[r - 2], it_me.nspace, r);
            IT_RC(PMIx_Group_invite("grp-fault2", inv, n - 2, NULL, 0, NULL, NULL), PMIX_SUCCESS,
                  "invite by the new leader");
            free(inv);
        } else {
            IT_RC(PMIx_Group_join("grp-fault2", &selected_leader, PMIX_GROUP_ACCEPT, NULL, 0,
                                  NULL, NULL),
                  PMIX_SUCCESS, "join of the new leader's group");
        }
    } else {
        if (it_me.rank == 0)
            lead_then_die(n);
        IT_WAIT_FOR(invited, 20, "PMIX_GROUP_INVITED");
        t0 = it_now();
        if (it_me.rank == n - 1) {
            /* never answers, so the invitation cannot complete before the
             * leader dies; hears of the leader's death as an event */
            IT_WAIT_FOR(leader_failed, 5, "PMIX_GROUP_LEADER_FAILED");
            printf("it_grpfault: %s: rank %u: OK\n", mode, (unsigned)it_me.rank);
            fflush(stdout);
            it_finalize();
            return 0;
        }
        pmix_info_t *res = NULL;
        size_t nres = 0;
        IT_RC(PMIx_Group_join("grp-fault", &leader, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres),
              PMIX_GROUP_LEADER_FAILED, "join whose leader died");
        IT_CHECK(it_now() - t0 < 5, "the join took %.1f s to fail", it_now() - t0);
    }
done:
    printf("it_grpfault: %s: rank %u: OK\n", mode, (unsigned)it_me.rank);
    fflush(stdout);
    it_finalize();
    return 0;
}
