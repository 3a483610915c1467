/*
 * it_qtable: the queries tools and programs ask (qtable.sh), answered by the
 * servers across the nodes.
 *   it_qtable job DIR [die]
 *       a rank. Every rank: PMIX_SERVER_URI is the URI it connected with
 *       (PMIX_SERVER_URI41); it puts its pid and that URI; the upper half of
 *       the ranks construct group "itq.far" (with 3 nodes, on nodes 1-2 only);
 *       then it asks PMIX_QUERY_PROC_TABLE (every rank in order, each with
 *       its PMIX_HOSTNAME, the pid it put, the program, CONNECTED),
 *       PMIX_QUERY_LOCAL_PROC_TABLE (the ranks of PMIX_LOCAL_PEERS),
 *       PMIX_QUERY_JOB_STATUS (PMIX_SUCCESS, with and without PMIX_NSPACE),
 *       PMIX_QUERY_NAMESPACE_INFO (its namespace, command line, size, every
 *       rank's host), PMIX_QUERY_SPAWN_SUPPORT (""), PMIX_QUERY_GROUP_NAMES
 *       and NUM_GROUPS ("itq.far"), PMIX_SERVER_URI of every node (by
 *       PMIX_NODEID and PMIX_HOSTNAME: what that node's ranks put), and a
 *       query mixing them with an unknown key (partial, blocking and _nb).
 *       Rank 0 writes "rank pid host" per rank to DIR/facts and the namespace
 *       to DIR/ready. With die, the last rank exits without finalizing once
 *       DIR/die exists. Every rank finalizes once DIR/finalize exists,
 *       creates DIR/fin.RANK, and exits once DIR/exit exists.
 *   it_qtable tool URI NS DIR PHASE
 *       a tool attached to URI (node 0's server): PMIX_QUERY_PROC_TABLE of NS
 *       lists every rank of DIR/facts with its host and pid, the local table
 *       the ranks of node 0 (rank 0's host), PMIX_QUERY_JOB_STATUS,
 *       PMIX_QUERY_NAMESPACE_INFO, PMIX_QUERY_SPAWN_SUPPORT, PMIX_SERVER_URI
 *       (URI); a table without PMIX_NSPACE is not found. PHASE: run (every
 *       rank CONNECTED, status PMIX_SUCCESS), end (every rank finalized:
 *       TERMINATED, PMIX_EVENT_JOB_END), die (waits until the last rank is
 *       TERM_WO_SYNC, the others CONNECTED; PMIX_ERR_JOB_TERM_WO_SYNC).
 *       Prints "tool PHASE ok".
 */
#include "itest.h"

#include <pmix_tool.h>
#include <pthread.h>
#include <sys/stat.h>

#define NOKEY "spmix.it.nosuchkey"
#define MAXR 64

struct fact {
    pmix_rank_t rank;
    pid_t pid;
    char host[256];
};

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; info && i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* One query of keys[0..nk) with an optional PMIX_NSPACE and one more
 * qualifier (qkey NULL: none); status must be want. */
static pmix_info_t *ask(const char *const *keys, size_t nk, const char *ns, const char *qkey,
                        const void *qval, pmix_data_type_t qtype, pmix_status_t want,
                        size_t *nres)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    pmix_status_t arc;
    char what[256];
    PMIX_QUERY_CONSTRUCT(&q);
    for (size_t i = 0; i < nk; i++) {
        PMIX_ARGV_APPEND(arc, q.keys, keys[i]);
        IT_RC(arc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    }
    PMIX_INFO_CREATE(q.qualifiers, 2);
    if (ns)
        PMIX_INFO_LOAD(&q.qualifiers[q.nqual++], PMIX_NSPACE, ns, PMIX_STRING);
    if (qkey)
        PMIX_INFO_LOAD(&q.qualifiers[q.nqual++], qkey, qval, qtype);
    snprintf(what, sizeof(what), "PMIx_Query_info(%s%s%s%s)", keys[0], nk > 1 ? ", ..." : "",
             ns ? ", nspace" : "", qkey ? ", qualified" : "");
    *nres = 0;
    IT_RC(PMIx_Query_info(&q, 1, &res, nres), want, what);
    PMIX_QUERY_DESTRUCT(&q);
    return res;
}

static const pmix_value_t *answer(const pmix_info_t *res, size_t n, const char *key,
                                  pmix_data_type_t type)
{
    const pmix_info_t *a = find(res, n, key);
    IT_CHECK(a != NULL, "no answer for %s", key);
    IT_CHECK(a->value.type == type, "%s has type %d, not %d", key, a->value.type, type);
    return &a->value;
}

/* A proc table: exactly f[0..nf) in order, each in state st (except rank
 * odd: odd_st). */
static void check_table(const pmix_value_t *v, const char *ns, const struct fact *f, size_t nf,
                        pmix_proc_state_t st, pmix_rank_t odd, pmix_proc_state_t odd_st,
                        const char *what)
{
    const pmix_data_array_t *d = v->data.darray;
    IT_CHECK(d && d->type == PMIX_PROC_INFO, "%s: not an array of PMIX_PROC_INFO", what);
    IT_CHECK(d->size == nf, "%s: %zu processes, expected %zu", what, d->size, nf);
    const pmix_proc_info_t *pi = d->array;
    for (size_t i = 0; i < nf; i++) {
        pmix_proc_state_t want = f[i].rank == odd ? odd_st : st;
        IT_CHECK(PMIX_CHECK_NSPACE(pi[i].proc.nspace, ns) && pi[i].proc.rank == f[i].rank,
                 "%s: entry %zu is %s:%u, expected rank %u", what, i, pi[i].proc.nspace,
                 pi[i].proc.rank, f[i].rank);
        IT_CHECK(pi[i].hostname && strcmp(pi[i].hostname, f[i].host) == 0,
                 "%s: rank %u on %s, expected %s", what, f[i].rank,
                 pi[i].hostname ? pi[i].hostname : "NULL", f[i].host);
        IT_CHECK(pi[i].pid == f[i].pid, "%s: rank %u pid %ld, expected %ld", what, f[i].rank,
                 (long)pi[i].pid, (long)f[i].pid);
        IT_CHECK(pi[i].executable_name && strstr(pi[i].executable_name, "it_qtable"),
                 "%s: rank %u runs %s", what, f[i].rank,
                 pi[i].executable_name ? pi[i].executable_name : "NULL");
        IT_CHECK(pi[i].state == want, "%s: rank %u in state %s, expected %s", what, f[i].rank,
                 PMIx_Proc_state_string(pi[i].state), PMIx_Proc_state_string(want));
    }
}

/* PMIX_QUERY_NAMESPACE_INFO holds ns: its command line, size, ranks' hosts. */
static void check_nsinfo(const pmix_value_t *v, const char *ns, const struct fact *f, size_t nf,
                         const char *what)
{
    const pmix_data_array_t *d = v->data.darray;
    IT_CHECK(d && d->type == PMIX_INFO, "%s: not an array of infos", what);
    const pmix_info_t *jobs = d->array, *mine = NULL;
    for (size_t i = 0; i < d->size && !mine; i++) {
        IT_CHECK(PMIX_CHECK_KEY(&jobs[i], PMIX_JOB_INFO_ARRAY) &&
                     jobs[i].value.type == PMIX_DATA_ARRAY,
                 "%s: entry %zu is %s", what, i, jobs[i].key);
        const pmix_data_array_t *jd = jobs[i].value.data.darray;
        const pmix_info_t *n = find(jd->array, jd->size, PMIX_NSPACE);
        if (n && n->value.type == PMIX_STRING && strcmp(n->value.data.string, ns) == 0)
            mine = &jobs[i];
    }
    IT_CHECK(mine != NULL, "%s: no entry for %s", what, ns);
    const pmix_data_array_t *jd = mine->value.data.darray;
    const pmix_info_t *ji = jd->array;
    const pmix_value_t *cmd = answer(ji, jd->size, PMIX_CMD_LINE, PMIX_STRING);
    IT_CHECK(strstr(cmd->data.string, "it_qtable job"), "%s: command line \"%s\"", what,
             cmd->data.string);
    IT_CHECK(answer(ji, jd->size, PMIX_JOB_SIZE, PMIX_UINT32)->data.uint32 == nf,
             "%s: wrong job size", what);
    size_t k = 0;
    for (size_t i = 0; i < jd->size; i++) {
        if (!PMIX_CHECK_KEY(&ji[i], PMIX_PROC_INFO_ARRAY))
            continue;
        const pmix_data_array_t *pd = ji[i].value.data.darray;
        IT_CHECK(k < nf, "%s: more processes than the job has", what);
        IT_CHECK(answer(pd->array, pd->size, PMIX_RANK, PMIX_PROC_RANK)->data.rank == f[k].rank,
                 "%s: process %zu is not rank %u", what, k, f[k].rank);
        IT_CHECK(strcmp(answer(pd->array, pd->size, PMIX_HOSTNAME, PMIX_STRING)->data.string,
                        f[k].host) == 0,
                 "%s: rank %u not on %s", what, f[k].rank, f[k].host);
        answer(pd->array, pd->size, PMIX_LOCAL_RANK, PMIX_UINT16);
        k++;
    }
    IT_CHECK(k == nf, "%s: %zu processes, expected %zu", what, k, nf);
}

/* The keys every asker checks the same way (clients and tools). */
static void check_common(const char *ns, const struct fact *all, size_t n, const struct fact *loc,
                         size_t nloc, pmix_proc_state_t st, pmix_rank_t odd,
                         pmix_proc_state_t odd_st, pmix_status_t jst, const char *who)
{
    static const char *const k_table[] = {PMIX_QUERY_PROC_TABLE};
    static const char *const k_local[] = {PMIX_QUERY_LOCAL_PROC_TABLE};
    static const char *const k_status[] = {PMIX_QUERY_JOB_STATUS};
    static const char *const k_nsinfo[] = {PMIX_QUERY_NAMESPACE_INFO};
    static const char *const k_spawn[] = {PMIX_QUERY_SPAWN_SUPPORT};
    static const char *const k_mixed[] = {PMIX_QUERY_PROC_TABLE, PMIX_QUERY_JOB_STATUS, NOKEY,
                                          PMIX_QUERY_SPAWN_SUPPORT};
    char what[128];
    size_t nr;
    pmix_info_t *r;

    snprintf(what, sizeof(what), "%s: proc table", who);
    r = ask(k_table, 1, ns, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    check_table(answer(r, nr, PMIX_QUERY_PROC_TABLE, PMIX_DATA_ARRAY), ns, all, n, st, odd,
                odd_st, what);
    PMIX_INFO_FREE(r, nr);
    snprintf(what, sizeof(what), "%s: local proc table", who);
    r = ask(k_local, 1, ns, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    check_table(answer(r, nr, PMIX_QUERY_LOCAL_PROC_TABLE, PMIX_DATA_ARRAY), ns, loc, nloc, st,
                odd, odd_st, what);
    PMIX_INFO_FREE(r, nr);
    r = ask(k_status, 1, ns, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    IT_CHECK(answer(r, nr, PMIX_QUERY_JOB_STATUS, PMIX_STATUS)->data.status == jst,
             "%s: job status %s, expected %s", who,
             PMIx_Error_string(r[0].value.data.status), PMIx_Error_string(jst));
    PMIX_INFO_FREE(r, nr);
    snprintf(what, sizeof(what), "%s: namespace info", who);
    r = ask(k_nsinfo, 1, NULL, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    check_nsinfo(answer(r, nr, PMIX_QUERY_NAMESPACE_INFO, PMIX_DATA_ARRAY), ns, all, n, what);
    PMIX_INFO_FREE(r, nr);
    r = ask(k_nsinfo, 1, ns, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    IT_CHECK(answer(r, nr, PMIX_QUERY_NAMESPACE_INFO, PMIX_DATA_ARRAY)->data.darray->size == 1,
             "%s: namespace info of one namespace", who);
    PMIX_INFO_FREE(r, nr);
    r = ask(k_spawn, 1, NULL, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    IT_CHECK(strcmp(answer(r, nr, PMIX_QUERY_SPAWN_SUPPORT, PMIX_STRING)->data.string, "") == 0,
             "%s: spawn support \"%s\"", who, r[0].value.data.string);
    PMIX_INFO_FREE(r, nr);
    /* mixed with a key nobody knows: the others are answered */
    r = ask(k_mixed, 4, ns, NULL, NULL, 0, PMIX_ERR_PARTIAL_SUCCESS, &nr);
    IT_CHECK(nr == 3 && find(r, nr, PMIX_QUERY_PROC_TABLE) && find(r, nr, PMIX_QUERY_JOB_STATUS),
             "%s: mixed query: %zu answers", who, nr);
    PMIX_INFO_FREE(r, nr);
}

/* ---- a rank ---- */

static uint32_t get_u32(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    uint32_t x;
    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    IT_RC(PMIx_Get(&p, key, NULL, 0, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == PMIX_UINT32, "%s has type %d", key, v->type);
    x = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return x;
}

static char *get_str(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    IT_RC(PMIx_Get(&p, key, NULL, 0, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == PMIX_STRING, "%s has type %d", key, v->type);
    char *s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

static void put(const char *key, const void *val, pmix_data_type_t type)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, type);
    IT_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS, "PMIx_Put");
    PMIX_VALUE_DESTRUCT(&v);
}

struct nb {
    pthread_mutex_t lock;
    int done;
    pmix_status_t status;
    size_t n;
    int has_table;
};

static void nb_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                  pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct nb *r = cbdata;
    pthread_mutex_lock(&r->lock);
    r->status = status;
    r->n = ninfo;
    r->has_table = find(info, ninfo, PMIX_QUERY_PROC_TABLE) != NULL;
    r->done = 1;
    pthread_mutex_unlock(&r->lock);
    if (release_fn)
        release_fn(release_cbdata);
}

/* The groups, the nodes' URIs and the _nb form, from a client. */
static void client_more(uint32_t size, uint32_t nnodes, const char *myuri)
{
    static const char *const k_groups[] = {PMIX_QUERY_GROUP_NAMES, PMIX_QUERY_NUM_GROUPS};
    static const char *const k_uri[] = {PMIX_SERVER_URI};
    char *k_nb[] = {PMIX_QUERY_PROC_TABLE, NOKEY, NULL};
    size_t nr;
    pmix_info_t *r = ask(k_groups, 2, NULL, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    const pmix_data_array_t *d = answer(r, nr, PMIX_QUERY_GROUP_NAMES, PMIX_DATA_ARRAY)->data.darray;
    IT_CHECK(d->type == PMIX_STRING, "group names: not strings");
    bool far = false;
    for (size_t i = 0; i < d->size; i++)
        far |= strcmp(((char **)d->array)[i], "itq.far") == 0;
    IT_CHECK(far, "group names: %zu, none is itq.far", d->size);
    IT_CHECK(answer(r, nr, PMIX_QUERY_NUM_GROUPS, PMIX_SIZE)->data.size == d->size,
             "PMIX_QUERY_NUM_GROUPS is not the number of names");
    PMIX_INFO_FREE(r, nr);
    r = ask(k_uri, 1, NULL, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    IT_CHECK(strcmp(answer(r, nr, PMIX_SERVER_URI, PMIX_STRING)->data.string, myuri) == 0,
             "PMIX_SERVER_URI \"%s\", connected to \"%s\"", r[0].value.data.string, myuri);
    PMIX_INFO_FREE(r, nr);
    for (uint32_t k = 0; k < nnodes; k++) { /* node k's URI: what its first rank put */
        pmix_rank_t first = 0;
        while (first < size && get_u32(first, PMIX_NODEID) != k)
            first++;
        IT_CHECK(first < size, "node %u holds no rank", k);
        char *want = get_str(first, "itq.uri"), *host = get_str(first, PMIX_HOSTNAME);
        for (int by = 0; by < 2; by++) {
            r = by ? ask(k_uri, 1, NULL, PMIX_HOSTNAME, host, PMIX_STRING, PMIX_SUCCESS, &nr)
                   : ask(k_uri, 1, NULL, PMIX_NODEID, &k, PMIX_UINT32, PMIX_SUCCESS, &nr);
            IT_CHECK(strcmp(answer(r, nr, PMIX_SERVER_URI, PMIX_STRING)->data.string, want) == 0,
                     "URI of node %u by %s: \"%s\", its rank %u has \"%s\"", k,
                     by ? "host" : "id", r[0].value.data.string, first, want);
            PMIX_INFO_FREE(r, nr);
        }
        free(want);
        free(host);
    }
    uint32_t bad = nnodes;
    r = ask(k_uri, 1, NULL, PMIX_NODEID, &bad, PMIX_UINT32, PMIX_ERR_NOT_FOUND, &nr);
    IT_CHECK(r == NULL && nr == 0, "URI of node %u (none such): %zu answers", bad, nr);
    pmix_query_t q;
    struct nb st = {.lock = PTHREAD_MUTEX_INITIALIZER};
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = k_nb; /* borrowed: taken back before the destruct */
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, it_me.nspace, PMIX_STRING);
    IT_RC(PMIx_Query_info_nb(&q, 1, nb_cb, &st), PMIX_SUCCESS, "PMIx_Query_info_nb");
    IT_WAIT_FOR(st.done, 20, "PMIx_Query_info_nb's callback");
    pthread_mutex_lock(&st.lock);
    IT_CHECK(st.status == PMIX_ERR_PARTIAL_SUCCESS && st.n == 1 && st.has_table,
             "PMIx_Query_info_nb(table, unknown): %s, %zu answers", PMIx_Error_string(st.status),
             st.n);
    pthread_mutex_unlock(&st.lock);
    q.keys = NULL;
    PMIX_QUERY_DESTRUCT(&q);
}

static void wait_file(const char *dir, const char *name)
{
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (double t0 = it_now(); stat(path, &sb) != 0; it_sleep_ms(20))
        IT_CHECK(it_now() - t0 < 50, "no %s after 50 s", path);
}

static void touch(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    IT_CHECK(f != NULL, "cannot create %s", path);
    fclose(f);
}

static int job(const char *dir, bool die)
{
    uint32_t size = it_init(), nnodes = it_num_nodes();
    const char *myuri = getenv("PMIX_SERVER_URI41");
    uint32_t pid = (uint32_t)getpid();
    IT_CHECK(size <= MAXR && myuri != NULL, "size %u, URI %s", size, myuri ? myuri : "none");
    put("itq.pid", &pid, PMIX_UINT32);
    put("itq.uri", myuri, PMIX_STRING);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    it_fence();
    pmix_proc_t far[MAXR];
    size_t nfar = 0;
    for (pmix_rank_t r = size / 2; r < size; r++, nfar++) /* the macro names its 1st twice */
        PMIX_LOAD_PROCID(&far[nfar], it_me.nspace, r);
    pmix_info_t *gres = NULL;
    size_t ngres = 0;
    if (it_me.rank >= size / 2)
        IT_RC(PMIx_Group_construct("itq.far", far, nfar, NULL, 0, &gres, &ngres), PMIX_SUCCESS,
              "PMIx_Group_construct(itq.far)");
    if (gres)
        PMIX_INFO_FREE(gres, ngres);
    it_fence();
    struct fact all[MAXR], loc[MAXR];
    size_t nloc = 0;
    uint32_t mynode = get_u32(it_me.rank, PMIX_NODEID);
    for (pmix_rank_t r = 0; r < size; r++) {
        char *h = get_str(r, PMIX_HOSTNAME);
        all[r] = (struct fact){.rank = r, .pid = (pid_t)get_u32(r, "itq.pid")};
        snprintf(all[r].host, sizeof(all[r].host), "%s", h);
        free(h);
        if (get_u32(r, PMIX_NODEID) == mynode)
            loc[nloc++] = all[r];
    }
    check_common(it_me.nspace, all, size, loc, nloc, PMIX_PROC_STATE_CONNECTED, PMIX_RANK_UNDEF,
                 0, PMIX_SUCCESS, "client");
    static const char *const k_status[] = {PMIX_QUERY_JOB_STATUS};
    size_t nr;
    pmix_info_t *r = ask(k_status, 1, NULL, NULL, NULL, 0, PMIX_SUCCESS, &nr); /* its own job */
    IT_CHECK(answer(r, nr, PMIX_QUERY_JOB_STATUS, PMIX_STATUS)->data.status == PMIX_SUCCESS,
             "job status without PMIX_NSPACE");
    PMIX_INFO_FREE(r, nr);
    client_more(size, nnodes, myuri);
    it_fence();
    if (it_me.rank >= size / 2)
        IT_RC(PMIx_Group_destruct("itq.far", NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
    it_fence();
    if (it_me.rank == 0) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/facts", dir);
        FILE *f = fopen(path, "w");
        IT_CHECK(f != NULL, "cannot write %s", path);
        for (size_t i = 0; i < size; i++)
            fprintf(f, "%u %ld %s\n", all[i].rank, (long)all[i].pid, all[i].host);
        fclose(f);
        snprintf(path, sizeof(path), "%s/ready.tmp", dir);
        f = fopen(path, "w");
        IT_CHECK(f != NULL, "cannot write %s", path);
        fprintf(f, "%s\n", it_me.nspace);
        fclose(f);
        char ready[4096];
        snprintf(ready, sizeof(ready), "%s/ready", dir);
        IT_CHECK(rename(path, ready) == 0, "rename");
    }
    if (die && it_me.rank == size - 1) {
        wait_file(dir, "die");
        _exit(3); /* gone without PMIx_Finalize */
    }
    wait_file(dir, "finalize");
    it_finalize();
    char fin[32];
    snprintf(fin, sizeof(fin), "fin.%u", it_me.rank);
    touch(dir, fin);
    wait_file(dir, "exit");
    return 0;
}

/* ---- a tool ---- */

static int tool(const char *uri, const char *ns, const char *dir, const char *phase)
{
    pmix_info_t info;
    struct fact all[MAXR], loc[MAXR];
    size_t n = 0, nloc = 0;
    char path[4096];
    snprintf(path, sizeof(path), "%s/facts", dir);
    FILE *f = fopen(path, "r");
    IT_CHECK(f != NULL, "cannot read %s", path);
    long pid;
    while (n < MAXR && fscanf(f, "%u %ld %255s", &all[n].rank, &pid, all[n].host) == 3)
        all[n++].pid = (pid_t)pid;
    fclose(f);
    for (size_t i = 0; i < n; i++) /* node 0's: rank 0's host */
        if (strcmp(all[i].host, all[0].host) == 0)
            loc[nloc++] = all[i];
    PMIX_INFO_LOAD(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
    IT_RC(PMIx_tool_init(&it_me, &info, 1), PMIX_SUCCESS, "PMIx_tool_init");
    PMIX_INFO_DESTRUCT(&info);
    pmix_rank_t last = (pmix_rank_t)n - 1;
    if (strcmp(phase, "run") == 0) {
        check_common(ns, all, n, loc, nloc, PMIX_PROC_STATE_CONNECTED, PMIX_RANK_UNDEF, 0,
                     PMIX_SUCCESS, "tool");
    } else if (strcmp(phase, "end") == 0) {
        check_common(ns, all, n, loc, nloc, PMIX_PROC_STATE_TERMINATED, PMIX_RANK_UNDEF, 0,
                     PMIX_EVENT_JOB_END, "tool");
    } else {
        /* the last rank died: wait until its server saw it */
        static const char *const k_table[] = {PMIX_QUERY_PROC_TABLE};
        for (double t0 = it_now();; it_sleep_ms(20)) {
            size_t nr;
            pmix_info_t *r = ask(k_table, 1, ns, NULL, NULL, 0, PMIX_SUCCESS, &nr);
            const pmix_data_array_t *d =
                answer(r, nr, PMIX_QUERY_PROC_TABLE, PMIX_DATA_ARRAY)->data.darray;
            bool seen = d->size == n &&
                        ((pmix_proc_info_t *)d->array)[last].state == PMIX_PROC_STATE_TERM_WO_SYNC;
            PMIX_INFO_FREE(r, nr);
            if (seen)
                break;
            IT_CHECK(it_now() - t0 < 30, "rank %u never TERM_WO_SYNC in the table", last);
        }
        check_common(ns, all, n, loc, nloc, PMIX_PROC_STATE_CONNECTED, last,
                     PMIX_PROC_STATE_TERM_WO_SYNC, PMIX_ERR_JOB_TERM_WO_SYNC, "tool");
    }
    static const char *const k_uri[] = {PMIX_SERVER_URI};
    static const char *const k_table[] = {PMIX_QUERY_PROC_TABLE};
    size_t nr;
    pmix_info_t *r = ask(k_uri, 1, NULL, NULL, NULL, 0, PMIX_SUCCESS, &nr);
    IT_CHECK(strcmp(answer(r, nr, PMIX_SERVER_URI, PMIX_STRING)->data.string, uri) == 0,
             "the tool's PMIX_SERVER_URI \"%s\", attached to \"%s\"", r[0].value.data.string, uri);
    PMIX_INFO_FREE(r, nr);
    /* a tool has no namespace of its own: the table needs PMIX_NSPACE */
    r = ask(k_table, 1, NULL, NULL, NULL, 0, PMIX_ERR_NOT_FOUND, &nr);
    IT_CHECK(r == NULL && nr == 0, "a table without PMIX_NSPACE: %zu answers", nr);
    IT_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    printf("tool %s ok\n", phase);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "job") == 0)
        return job(argv[2], argc > 3 && strcmp(argv[3], "die") == 0);
    if (argc == 6 && strcmp(argv[1], "tool") == 0)
        return tool(argv[2], argv[3], argv[4], argv[5]);
    fprintf(stderr, "usage: it_qtable job DIR [die] | tool URI NS DIR run|end|die\n");
    return 2;
}
