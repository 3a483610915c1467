/*
 * it_tool.c: a tool attaches to a running spmix-run job (tool.sh).
 *   it_tool job DIR [abort]
 *                        a rank: writes its parent's pid (its node's server)
 *                        to DIR/ppid.RANK; rank 0 writes what it reads of its job
 *                        (job size, its node's local peers, rank 1's
 *                        hostname, its node's local procs) to DIR/facts and its namespace to
 *                        DIR/ready, then every rank waits for DIR/done and
 *                        finalizes; with abort, rank 1 exits without
 *                        finalizing as soon as DIR/abort exists
 *   it_tool tool HOW [ARG] [EXPECT_NSPACE]
 *                        a tool: PMIx_tool_init finding the server by HOW
 *                        (default | pid ARG | nspace ARG | uri ARG | file ARG |
 *                        none), PMIx_Get of its PMIX_RANK (by rank INVALID,
 *                        itself, NULL proc), PMIx_Query_info of the process
 *                        sets (none), then PMIx_Query_info(PMIX_QUERY_NAMESPACES)
 *                        must list EXPECT_NSPACE; prints "tool NS:RANK",
 *                        "namespaces LIST" and, with EXPECT_NSPACE, that job's
 *                        "size N" and "peers LIST" (PMIx_Get: the local peers
 *                        of the server's node); exits 2 when PMIx_tool_init fails
 *                        (its status printed), 1 on a failed check
 *   it_tool hold URI DIR
 *                        a tool attached to URI: touches DIR/attached, waits
 *                        for DIR/go, sends PMIx_Query_info_nb, waits until
 *                        one of its sockets has bytes its peer has not read
 *                        (SIOCOUTQ: the request, in the socket of a server
 *                        toolend.sh stopped), touches DIR/sent, waits for
 *                        the answer and prints "query STATUS", then
 *                        PMIx_tool_finalize: "finalize STATUS" (toolend.sh
 *                        kills the stopped server in between)
 *   it_tool api URI_A NS_A FACTS_A URI_B NS_B ABORT_B
 *                        the calls past PMIx_tool_init, for a tool started
 *                        alone: attach to server A (and again: the same;
 *                        B as well, not the primary, then disconnected from
 *                        B), get_servers,
 *                        set_server, PMIx_Get of job A's data (equal to
 *                        what its rank 0 read: FACTS_A; PMIX_LOCAL_PROCS,
 *                        which the server computes, the ranks of
 *                        PMIX_LOCAL_PEERS), disconnect (later
 *                        requests unreachable), attach to B, register for
 *                        PMIX_ERR_PROC_ABORTED, create ABORT_B and wait for
 *                        the event of job B's rank 1; prints "api ok"
 */
#include "itest.h"

#include <dirent.h>
#include <linux/sockios.h>
#include <pmix_tool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

/* key of proc as a string ("%u" for integers, "r1,r2" for procs of proc's
 * namespace), malloc'd. */
static char *get_str(const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *val = NULL;
    char *out = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    IT_CHECK(rc == PMIX_SUCCESS, "PMIx_Get(%s:%u, %s): %s", proc->nspace, (unsigned)proc->rank,
             key, PMIx_Error_string(rc));
    if (val->type == PMIX_STRING)
        out = strdup(val->data.string);
    else if (val->type == PMIX_UINT32) {
        char num[16];
        snprintf(num, sizeof(num), "%u", val->data.uint32);
        out = strdup(num);
    } else if (val->type == PMIX_DATA_ARRAY && val->data.darray &&
               val->data.darray->type == PMIX_PROC) {
        const pmix_proc_t *pp = val->data.darray->array;
        char list[4096] = "";
        size_t off = 0;
        for (size_t i = 0; i < val->data.darray->size && off < sizeof(list); i++) {
            IT_CHECK(PMIX_CHECK_NSPACE(pp[i].nspace, proc->nspace), "%s lists %s", key,
                     pp[i].nspace);
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u", i ? "," : "",
                                    pp[i].rank);
        }
        out = strdup(list);
    }
    IT_CHECK(out != NULL, "%s has type %d", key, val->type);
    PMIX_VALUE_RELEASE(val);
    return out;
}

static const char *const fact_keys[] = {PMIX_JOB_SIZE, PMIX_LOCAL_PEERS, PMIX_HOSTNAME,
                                        PMIX_LOCAL_PROCS};

/* The target of fact k: the job (size, this node's peers and procs) or its rank 1. */
static void fact_proc(pmix_proc_t *p, const char *nspace, size_t k)
{
    PMIX_LOAD_PROCID(p, nspace, k == 2 ? 1 : PMIX_RANK_WILDCARD);
}

static int job(const char *dir, bool abort_mode)
{
    char path[4096];
    IT_RC(PMIx_Init(&it_me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    snprintf(path, sizeof(path), "%s/ppid.%u", dir, (unsigned)it_me.rank);
    FILE *fp = fopen(path, "w");
    IT_CHECK(fp != NULL, "cannot write %s", path);
    fprintf(fp, "%ld\n", (long)getppid());
    IT_CHECK(fclose(fp) == 0, "cannot write %s", path);
    if (it_me.rank == 0) {
        snprintf(path, sizeof(path), "%s/facts", dir);
        FILE *ff = fopen(path, "w");
        IT_CHECK(ff != NULL, "cannot write %s", path);
        for (size_t k = 0; k < sizeof(fact_keys) / sizeof(fact_keys[0]); k++) {
            pmix_proc_t p;
            fact_proc(&p, it_me.nspace, k);
            char *v = get_str(&p, fact_keys[k]);
            fprintf(ff, "%s\n", v);
            free(v);
        }
        fclose(ff);
        snprintf(path, sizeof(path), "%s/ready.tmp", dir);
        FILE *f = fopen(path, "w");
        IT_CHECK(f != NULL, "cannot write %s", path);
        fprintf(f, "%s\n", it_me.nspace);
        fclose(f);
        char done[4096];
        snprintf(done, sizeof(done), "%s/ready", dir);
        IT_CHECK(rename(path, done) == 0, "rename");
    }
    snprintf(path, sizeof(path), "%s/done", dir);
    char abort_path[4096];
    snprintf(abort_path, sizeof(abort_path), "%s/abort", dir);
    struct stat st;
    double t0 = it_now();
    while (stat(path, &st) != 0) {
        IT_CHECK(it_now() - t0 < 40, "no %s after 40 s", path);
        if (abort_mode && it_me.rank == 1 && stat(abort_path, &st) == 0)
            _exit(5); /* dies: the job's server tells who listens */
        it_sleep_ms(20);
    }
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}

static int tool(int argc, char **argv)
{
    const char *how = argv[2];
    const char *arg = argc > 3 ? argv[3] : NULL;
    const char *expect = argc > 4 ? argv[4] : NULL;
    pmix_info_t info[2];
    size_t n = 0;
    pid_t pid;
    bool yes = true;
    if (strcmp(how, "pid") == 0) {
        pid = (pid_t)atol(arg);
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        n++;
    } else if (strcmp(how, "nspace") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_NSPACE, arg, PMIX_STRING);
        n++;
    } else if (strcmp(how, "uri") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_URI, arg, PMIX_STRING);
        n++;
    } else if (strcmp(how, "file") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_ATTACHMENT_FILE, arg, PMIX_STRING);
        n++;
    } else if (strcmp(how, "none") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
        n++;
    }
    pmix_status_t rc = PMIx_tool_init(&it_me, n ? info : NULL, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        printf("tool_init %s\n", PMIx_Error_string(rc));
        return 2;
    }
    printf("tool %s:%u\n", it_me.nspace, (unsigned)it_me.rank);
    IT_CHECK(it_me.nspace[0] != '\0', "the tool got no namespace");
    /* its own rank, asked as OpenPMIx lets a process ask it */
    pmix_proc_t self[2];
    PMIX_LOAD_PROCID(&self[0], it_me.nspace, PMIX_RANK_INVALID);
    self[1] = it_me;
    for (int k = 0; k < 3; k++) {
        pmix_value_t *rv = NULL;
        IT_RC(PMIx_Get(k < 2 ? &self[k] : NULL, PMIX_RANK, NULL, 0, &rv), PMIX_SUCCESS,
              "the tool's PMIX_RANK");
        IT_CHECK(rv->type == PMIX_PROC_RANK && rv->data.rank == it_me.rank,
                 "the tool's PMIX_RANK: type %d, %u", rv->type, rv->data.rank);
        PMIX_VALUE_RELEASE(rv);
    }
    it_no_psets("the tool's PMIx_Query_info(psets)");
    if (strcmp(how, "none") != 0) {
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
        q.keys = keys;
        pmix_info_t *res = NULL;
        size_t nres = 0;
        IT_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "PMIx_Query_info(namespaces)");
        IT_CHECK(nres == 1 && res[0].value.type == PMIX_STRING, "namespaces: %zu results", nres);
        printf("namespaces %s\n", res[0].value.data.string);
        if (expect)
            IT_CHECK(strstr(res[0].value.data.string, expect) != NULL,
                     "namespaces '%s' lack the job's '%s'", res[0].value.data.string, expect);
        PMIX_INFO_FREE(res, nres);
        q.keys = NULL;
        if (expect) { /* the job's data, as this server holds it */
            pmix_proc_t wild;
            PMIX_LOAD_PROCID(&wild, expect, PMIX_RANK_WILDCARD);
            char *size = get_str(&wild, PMIX_JOB_SIZE), *peers = get_str(&wild, PMIX_LOCAL_PEERS);
            printf("size %s\npeers %s\n", size, peers);
            free(size);
            free(peers);
        }
        /* a request tools may not make is refused, the connection stays */
        IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_NOT_SUPPORTED, "PMIx_Fence from a tool");
        IT_RC(PMIx_Query_info(&q, 0, &res, &nres), PMIX_ERR_BAD_PARAM, "PMIx_Query_info(none)");
    }
    IT_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    return 0;
}

/* ---- a tool whose server goes away with its request unread ---- */

static volatile int hold_done;
static pmix_status_t hold_status;

static void hold_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                        pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbdata;
    hold_status = status;
    if (release_fn)
        release_fn(release_cbdata);
    __atomic_store_n(&hold_done, 1, __ATOMIC_RELEASE);
}

/* Has one of this process's sockets sent bytes its peer has not read yet? */
static bool unread_by_peer(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    bool found = false;
    IT_CHECK(d != NULL, "cannot list /proc/self/fd");
    while (!found && (e = readdir(d))) {
        int fd = atoi(e->d_name), queued = 0;
        struct stat st;
        if (e->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &st) == 0 &&
            S_ISSOCK(st.st_mode) && ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0)
            found = true;
    }
    closedir(d);
    return found;
}

/* Creates dir/name (empty). */
static void touch(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    IT_CHECK(f != NULL && fclose(f) == 0, "cannot create %s", path);
}

static int hold(const char *uri, const char *dir)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
    IT_RC(PMIx_tool_init(&it_me, &info, 1), PMIX_SUCCESS, "PMIx_tool_init");
    PMIX_INFO_DESTRUCT(&info);
    touch(dir, "attached");
    char go[4096];
    snprintf(go, sizeof(go), "%s/go", dir);
    struct stat st;
    double t0 = it_now();
    while (stat(go, &st) != 0) {
        IT_CHECK(it_now() - t0 < 40, "no %s after 40 s", go);
        it_sleep_ms(20);
    }
    static pmix_query_t q; /* the library's until the answer */
    static char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = keys;
    IT_RC(PMIx_Query_info_nb(&q, 1, hold_answer, NULL), PMIX_SUCCESS, "PMIx_Query_info_nb");
    t0 = it_now();
    while (!unread_by_peer()) {
        IT_CHECK(it_now() - t0 < 40, "the query was not in the server's socket after 40 s");
        it_sleep_ms(10);
    }
    touch(dir, "sent");
    IT_WAIT_FOR(hold_done, 40, "the query's answer");
    printf("query %s\n", PMIx_Error_string(hold_status));
    pmix_status_t rc = PMIx_tool_finalize();
    printf("finalize %s\n", PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS ? 0 : 1;
}

/* ---- the calls past PMIx_tool_init ---- */

static volatile int aborted_seen;
static pmix_proc_t aborted_src;

static void on_aborted(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (status == PMIX_ERR_PROC_ABORTED && source) {
        aborted_src = *source;
        __atomic_store_n(&aborted_seen, 1, __ATOMIC_RELEASE);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static pmix_status_t attach(const char *uri, pmix_proc_t *me, pmix_proc_t *srv)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
    pmix_status_t rc = PMIx_tool_attach_to_server(me, srv, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static pmix_status_t query_namespaces(char **out)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
    q.keys = keys;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    q.keys = NULL;
    *out = NULL;
    if (rc == PMIX_SUCCESS && nres == 1 && res[0].value.type == PMIX_STRING)
        *out = strdup(res[0].value.data.string);
    if (res)
        PMIX_INFO_FREE(res, nres);
    return rc;
}

static int api(char **argv)
{
    const char *uri_a = argv[2], *ns_a = argv[3], *facts_a = argv[4];
    const char *uri_b = argv[5], *ns_b = argv[6], *abort_b = argv[7];
    bool yes = true;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    pmix_proc_t me0, me, srv_a, srv, *servers = NULL;
    size_t nservers = 9;
    IT_RC(PMIx_tool_init(&me0, &info, 1), PMIX_SUCCESS, "PMIx_tool_init(alone)");
    PMIX_INFO_DESTRUCT(&info);
    it_me = me0;
    /* alone: no server */
    IT_CHECK(!PMIx_tool_is_connected(), "connected after PMIX_TOOL_DO_NOT_CONNECT");
    IT_RC(PMIx_tool_get_servers(&servers, &nservers), PMIX_ERR_UNREACH, "get_servers(alone)");
    IT_CHECK(servers == NULL && nservers == 0, "servers listed while alone");
    IT_RC(PMIx_tool_disconnect(&me0), PMIX_ERR_NOT_FOUND, "disconnect(alone)");
    IT_RC(PMIx_tool_attach_to_server(&me, &srv, NULL, 0), PMIX_ERR_BAD_PARAM,
          "attach without a server");
    /* attach to A: the tool keeps its identity */
    IT_RC(attach(uri_a, &me, &srv_a), PMIX_SUCCESS, "attach(A)");
    IT_CHECK(PMIX_CHECK_PROCID(&me, &me0), "identity changed: %s:%u, was %s:%u", me.nspace,
             (unsigned)me.rank, me0.nspace, (unsigned)me0.rank);
    IT_CHECK(srv_a.nspace[0] != '\0', "attach(A) gave no server id");
    IT_CHECK(PMIx_tool_is_connected(), "not connected after attach(A)");
    printf("server A %s:%u\n", srv_a.nspace, (unsigned)srv_a.rank);
    /* the same server again: its id; another: refused, A kept */
    memset(&srv, 0, sizeof(srv));
    IT_RC(attach(uri_a, NULL, &srv), PMIX_SUCCESS, "attach(A) again");
    IT_CHECK(PMIX_CHECK_PROCID(&srv, &srv_a), "attach(A) again gave %s:%u", srv.nspace,
             (unsigned)srv.rank);
    /* B as well: a second server, A stays the primary; then B goes again */
    IT_RC(attach(uri_b, &me, &srv), PMIX_SUCCESS, "attach(B) while A is held");
    IT_CHECK(!PMIX_CHECK_PROCID(&srv, &srv_a), "B has A's server id");
    IT_RC(PMIx_tool_get_servers(&servers, &nservers), PMIX_SUCCESS, "get_servers(A, B)");
    IT_CHECK(nservers == 2 && PMIX_CHECK_PROCID(&servers[0], &srv_a) &&
                 PMIX_CHECK_PROCID(&servers[1], &srv),
             "get_servers with A and B: %zu", nservers);
    PMIX_PROC_FREE(servers, nservers);
    char *nss = NULL;
    IT_RC(query_namespaces(&nss), PMIX_SUCCESS, "query after attach(B)");
    IT_CHECK(nss && strstr(nss, ns_a) && !strstr(nss, ns_b), "namespaces '%s'", nss ? nss : "");
    free(nss);
    IT_RC(PMIx_tool_disconnect(&srv), PMIX_SUCCESS, "disconnect(B)");
    /* the one server */
    IT_RC(PMIx_tool_get_servers(&servers, &nservers), PMIX_SUCCESS, "get_servers");
    IT_CHECK(nservers == 1 && PMIX_CHECK_PROCID(&servers[0], &srv_a), "get_servers: %zu, %s",
             nservers, nservers ? servers[0].nspace : "-");
    PMIX_PROC_FREE(servers, nservers);
    IT_RC(PMIx_tool_set_server(&srv_a, NULL, 0), PMIX_SUCCESS, "set_server(A)");
    PMIX_LOAD_PROCID(&srv, "no-such-server", 0);
    IT_RC(PMIx_tool_set_server(&srv, NULL, 0), PMIX_ERR_UNREACH, "set_server(another)");
    IT_RC(PMIx_tool_disconnect(&srv), PMIX_ERR_NOT_FOUND, "disconnect(another)");
    /* job A's data, as its rank 0 reads it */
    FILE *f = fopen(facts_a, "r");
    IT_CHECK(f != NULL, "cannot read %s", facts_a);
    for (size_t k = 0; k < sizeof(fact_keys) / sizeof(fact_keys[0]); k++) {
        char want[4096];
        IT_CHECK(fgets(want, sizeof(want), f) != NULL, "%s: no line %zu", facts_a, k + 1);
        want[strcspn(want, "\n")] = '\0';
        pmix_proc_t p;
        fact_proc(&p, ns_a, k);
        char *got = get_str(&p, fact_keys[k]);
        IT_CHECK(strcmp(got, want) == 0, "tool's %s of %s:%u is '%s', the job's '%s'",
                 fact_keys[k], p.nspace, (unsigned)p.rank, got, want);
        printf("get %s %s\n", fact_keys[k], got);
        free(got);
    }
    fclose(f);
    /* the procs the server computes are the peers it was given */
    pmix_proc_t wj;
    PMIX_LOAD_PROCID(&wj, ns_a, PMIX_RANK_WILDCARD);
    char *peers = get_str(&wj, PMIX_LOCAL_PEERS), *procs = get_str(&wj, PMIX_LOCAL_PROCS);
    IT_CHECK(strcmp(peers, procs) == 0, "tool: PMIX_LOCAL_PROCS %s, PMIX_LOCAL_PEERS %s", procs,
             peers);
    free(peers);
    free(procs);
    /* disconnect: requests go nowhere; again: no such server */
    IT_RC(PMIx_tool_disconnect(&srv_a), PMIX_SUCCESS, "disconnect(A)");
    IT_CHECK(!PMIx_tool_is_connected(), "connected after disconnect");
    IT_RC(query_namespaces(&nss), PMIX_ERR_UNREACH, "query after disconnect");
    free(nss);
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, ns_a, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_ERR_UNREACH,
          "PMIx_Get after disconnect");
    IT_RC(PMIx_tool_disconnect(&srv_a), PMIX_ERR_NOT_FOUND, "disconnect(A) twice");
    /* then B: the one server now, and its job's events reach the tool */
    pmix_proc_t srv_b;
    IT_RC(attach(uri_b, &me, &srv_b), PMIX_SUCCESS, "attach(B) after disconnect");
    IT_CHECK(PMIX_CHECK_PROCID(&me, &me0), "identity changed at attach(B)");
    IT_RC(PMIx_tool_get_servers(&servers, &nservers), PMIX_SUCCESS, "get_servers(B)");
    IT_CHECK(nservers == 1 && PMIX_CHECK_PROCID(&servers[0], &srv_b), "get_servers(B)");
    PMIX_PROC_FREE(servers, nservers);
    IT_RC(query_namespaces(&nss), PMIX_SUCCESS, "query at B");
    IT_CHECK(nss && strstr(nss, ns_b), "namespaces at B '%s'", nss ? nss : "");
    free(nss);
    pmix_status_t code = PMIX_ERR_PROC_ABORTED;
    int id = (int)PMIx_Register_event_handler(&code, 1, NULL, 0, on_aborted, NULL, NULL);
    IT_CHECK(id >= 0, "PMIx_Register_event_handler: %d", id);
    f = fopen(abort_b, "w");
    IT_CHECK(f != NULL, "cannot create %s", abort_b);
    fclose(f);
    IT_WAIT_FOR(aborted_seen, 20,
                "PMIX_ERR_PROC_ABORTED of job B");
    IT_CHECK(PMIX_CHECK_NSPACE(aborted_src.nspace, ns_b) && aborted_src.rank == 1,
             "the event's source is %s:%u", aborted_src.nspace, (unsigned)aborted_src.rank);
    printf("event PMIX_ERR_PROC_ABORTED %s:%u\n", aborted_src.nspace,
           (unsigned)aborted_src.rank);
    IT_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    printf("api ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "job") == 0)
        return job(argv[2], argc > 3 && strcmp(argv[3], "abort") == 0);
    if (argc >= 8 && strcmp(argv[1], "api") == 0)
        return api(argv);
    if (argc >= 3 && strcmp(argv[1], "tool") == 0)
        return tool(argc, argv);
    if (argc >= 4 && strcmp(argv[1], "hold") == 0)
        return hold(argv[2], argv[3]);
    fprintf(stderr, "usage: it_tool job DIR [abort] | it_tool tool HOW [ARG] [NSPACE] | "
                    "it_tool hold URI DIR | it_tool api URI_A NS_A FACTS_A URI_B NS_B ABORT_B\n");
    return 1;
}
