/*
 * host/jobinfo: turn a job layout (hosts and the ranks on each) into the info
 * array for PMIx_server_register_nspace (see jobinfo.h).
 *
 * Data flow: spx_host_jobinfo_build() validates the layout, maps every rank to its
 * node and local index, then appends, in this order:
 *   - job-level keys (jobid, sizes, node/proc maps from PMIx_generate_regex
 *     and PMIx_generate_ppn, directories, mapping policy), plus the local
 *     node's size/peers/leader/name/id at job level, where Open MPI reads them;
 *   - one PMIX_APP_INFO_ARRAY per application (one unless the job says
 *     which app each rank is in: heterogeneous and --multi-prog steps),
 *     with its command line (PMIX_APP_ARGV) when the host knows it;
 *   - a PMIX_SESSION_INFO_ARRAY when the host knows its allocation's size;
 *   - a PMIX_NODE_INFO_ARRAY for this node, and for another node only when
 *     the maps would not give the same (see spx_jobinfo_by_maps);
 *   - a PMIX_PROC_DATA array for each of this node's ranks, and for another
 *     node's rank on the same condition.
 * So the array, and the server's work on it, grow with this node's ranks,
 * not the job's, wherever the maps say it all (doc/scale.md).
 * Types follow what clients check: sizes and node ids uint32, local and node
 * ranks uint16, ranks pmix_rank_t, names and lists strings.
 */
#include "config.h"
#include "host/jobinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPX_JOBINFO_JOB_KEYS 24   /* upper bound of job-level entries */

/* Append-only writer over an info array allocated with PMIX_INFO_CREATE. */
struct spx_jobinfo_out {
    pmix_info_t *info;
    size_t n, cap;
};

static void spx_jobinfo_put(struct spx_jobinfo_out *o, const char *key,
                            const void *val, pmix_data_type_t type)
{
    if (o->n < o->cap)
        PMIx_Info_load(&o->info[o->n++], key, val, type);
}

/* Hand a data array of infos to the next entry; the entry owns it after. */
static void spx_jobinfo_put_array(struct spx_jobinfo_out *o, const char *key,
                                  pmix_info_t *arr, size_t n)
{
    pmix_data_array_t *da;

    if (o->n >= o->cap)
        return;
    da = calloc(1, sizeof(*da));
    if (da == NULL)
        return;
    da->type = PMIX_INFO;
    da->size = n;
    da->array = arr;
    PMIX_LOAD_KEY(o->info[o->n].key, key);
    o->info[o->n].value.type = PMIX_DATA_ARRAY;
    o->info[o->n].value.data.darray = da;
    o->n++;
}

/* Join ranks as "a,b,c". Caller frees the result with free(). */
static char *spx_jobinfo_rank_list(const pmix_rank_t *ranks, uint32_t n)
{
    size_t len = (size_t)n * 11 + 1, off = 0;
    char *s = malloc(len);

    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        off += (size_t)snprintf(s + off, len - off, "%s%u", i ? "," : "", ranks[i]);
    return s;
}

/* The node description, as a PMIX_NODE_INFO_ARRAY payload. */
static pmix_status_t spx_jobinfo_node(struct spx_jobinfo_out *o,
                                      const struct spx_host_node *nd, uint32_t id)
{
    pmix_info_t *arr;
    char *peers = spx_jobinfo_rank_list(nd->ranks, nd->nranks);
    pmix_rank_t ldr = nd->nranks ? nd->ranks[0] : PMIX_RANK_UNDEF;
    uint32_t size = nd->nranks;

    if (peers == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_INFO_CREATE(arr, 6);
    if (arr == NULL) {
        free(peers);
        return PMIX_ERR_NOMEM;
    }
    PMIx_Info_load(&arr[0], PMIX_HOSTNAME, nd->hostname, PMIX_STRING);
    PMIx_Info_load(&arr[1], PMIX_NODEID, &id, PMIX_UINT32);
    PMIx_Info_load(&arr[2], PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&arr[3], PMIX_NODE_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&arr[4], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIx_Info_load(&arr[5], PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
    free(peers);
    spx_jobinfo_put_array(o, PMIX_NODE_INFO_ARRAY, arr, 6);
    return PMIX_SUCCESS;
}

/* The session the job runs in: its allocation's node count and slots. */
static pmix_status_t spx_jobinfo_session(struct spx_jobinfo_out *o, const struct spx_host_job *job)
{
    pmix_info_t *arr;
    uint32_t univ = job->univ_size ? job->univ_size : job->job_size;

    PMIX_INFO_CREATE(arr, 2);
    if (arr == NULL)
        return PMIX_ERR_NOMEM;
    PMIx_Info_load(&arr[0], PMIX_NUM_ALLOCATED_NODES, &job->alloc_nnodes, PMIX_UINT32);
    PMIx_Info_load(&arr[1], PMIX_UNIV_SIZE, &univ, PMIX_UINT32);
    spx_jobinfo_put_array(o, PMIX_SESSION_INFO_ARRAY, arr, 2);
    return PMIX_SUCCESS;
}

/* Per-process data for one rank. */
static pmix_status_t spx_jobinfo_proc(struct spx_jobinfo_out *o, pmix_rank_t rank,
                                      const char *host, uint32_t nodeid, uint16_t lrank,
                                      uint32_t appnum, pmix_rank_t appldr, pmix_rank_t apprank)
{
    pmix_info_t *arr;

    PMIX_INFO_CREATE(arr, 9);
    if (arr == NULL)
        return PMIX_ERR_NOMEM;
    PMIx_Info_load(&arr[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_load(&arr[1], PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
    PMIx_Info_load(&arr[2], PMIX_NODE_RANK, &lrank, PMIX_UINT16);
    PMIx_Info_load(&arr[3], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIx_Info_load(&arr[4], PMIX_APP_RANK, &apprank, PMIX_PROC_RANK);
    PMIx_Info_load(&arr[5], PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_load(&arr[6], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIx_Info_load(&arr[7], PMIX_NODEID, &nodeid, PMIX_UINT32);
    PMIx_Info_load(&arr[8], PMIX_APPLDR, &appldr, PMIX_PROC_RANK);
    spx_jobinfo_put_array(o, PMIX_PROC_DATA, arr, 9);
    return PMIX_SUCCESS;
}

const char *spx_host_list_str(enum spx_host_list what)
{
    switch (what) {
    case SPX_HOST_LIST_NAMES: return "names";
    case SPX_HOST_LIST_ADDRS: return "addrs";
    }
    return "unknown";
}

char *spx_host_node_list(const struct spx_host_node *nodes, uint32_t n, enum spx_host_list what)
{
    size_t len = 1, off = 0;
    char *s;

    if (nodes == NULL || n == 0) {
        errno = EINVAL;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *f = what == SPX_HOST_LIST_ADDRS ? nodes[i].addr : nodes[i].hostname;
        if (f == NULL) {
            errno = EINVAL;
            return NULL;
        }
        len += strlen(f) + 1;
    }
    if ((s = malloc(len)) == NULL)
        return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        off += (size_t)snprintf(s + off, len - off, "%s%s", i ? "," : "",
                                what == SPX_HOST_LIST_ADDRS ? nodes[i].addr : nodes[i].hostname);
    return s;
}

char *spx_host_argv_join(char *const *argv)
{
    size_t len = 1, off = 0;
    char *s;

    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
        len += strlen(argv[i]) + 1;
    if ((s = malloc(len)) == NULL)
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
        off += (size_t)snprintf(s + off, len - off, "%s%s", i ? " " : "", argv[i]);
    return s;
}

/* The maps: "host1,host2" (spx_host_node_list) and "0,1;2,3" through the
 * library's generators. On success the caller frees *nodemap and *procmap
 * with free(). */
static pmix_status_t spx_jobinfo_maps(const struct spx_host_job *job,
                                      char **nodemap, char **procmap)
{
    size_t plen = 1, po = 0;
    char *hosts = spx_host_node_list(job->nodes, job->nnodes, SPX_HOST_LIST_NAMES), *ppn;
    pmix_status_t rc;

    for (uint32_t i = 0; i < job->nnodes; i++)
        plen += (size_t)job->nodes[i].nranks * 11 + 1;
    ppn = malloc(plen);
    if (hosts == NULL || ppn == NULL) {
        free(hosts);
        free(ppn);
        return PMIX_ERR_NOMEM;
    }
    ppn[0] = '\0';
    for (uint32_t i = 0; i < job->nnodes; i++) {
        char *l = spx_jobinfo_rank_list(job->nodes[i].ranks, job->nodes[i].nranks);
        if (l == NULL) {
            free(hosts);
            free(ppn);
            return PMIX_ERR_NOMEM;
        }
        po += (size_t)snprintf(ppn + po, plen - po, "%s%s", i ? ";" : "", l);
        free(l);
    }
    *nodemap = *procmap = NULL;
    rc = PMIx_generate_regex(hosts, nodemap);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(ppn, procmap);
    free(hosts);
    free(ppn);
    if (rc != PMIX_SUCCESS) {
        free(*nodemap);
        *nodemap = NULL;
    }
    return rc;
}

/* Check the layout and compute, per rank, its node and local index.
 * node_of/lrank_of have job_size entries (caller's). */
static pmix_status_t spx_jobinfo_check(const struct spx_host_job *job,
                                       uint32_t *node_of, uint16_t *lrank_of)
{
    if (job->nspace == NULL || job->nnodes == 0 || job->local_node >= job->nnodes ||
        job->job_size == 0)
        return PMIX_ERR_BAD_PARAM;
    for (uint32_t r = 0; r < job->job_size; r++)
        node_of[r] = UINT32_MAX;
    for (uint32_t i = 0; i < job->nnodes; i++) {
        const struct spx_host_node *nd = &job->nodes[i];
        if (nd->hostname == NULL || (nd->nranks && nd->ranks == NULL) || nd->nranks > UINT16_MAX)
            return PMIX_ERR_BAD_PARAM;
        for (uint32_t k = 0; k < nd->nranks; k++) {
            pmix_rank_t r = nd->ranks[k];
            if (r >= job->job_size || node_of[r] != UINT32_MAX)
                return PMIX_ERR_BAD_PARAM;
            node_of[r] = i;
            lrank_of[r] = (uint16_t)k;
        }
    }
    for (uint32_t r = 0; r < job->job_size; r++)
        if (node_of[r] == UINT32_MAX)
            return PMIX_ERR_BAD_PARAM;
    return PMIX_SUCCESS;
}

static void spx_jobinfo_job_level(struct spx_jobinfo_out *o, const struct spx_host_job *job,
                                  const char *nodemap, const char *procmap)
{
    const struct spx_host_node *local = &job->nodes[job->local_node];
    uint32_t univ = job->univ_size ? job->univ_size : job->job_size;
    uint32_t napps = job->app_of && job->napps > 1 ? job->napps : 1, lsize = local->nranks;
    pmix_rank_t ldr = local->nranks ? local->ranks[0] : PMIX_RANK_UNDEF;
    char *peers = spx_jobinfo_rank_list(local->ranks, local->nranks);

    spx_jobinfo_put(o, PMIX_JOBID, job->jobid ? job->jobid : job->nspace, PMIX_STRING);
    spx_jobinfo_put(o, PMIX_JOB_SIZE, &job->job_size, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_MAX_PROCS, &univ, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_UNIV_SIZE, &univ, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_NUM_NODES, &job->nnodes, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_NODE_MAP, nodemap, PMIX_STRING);
    spx_jobinfo_put(o, PMIX_PROC_MAP, procmap, PMIX_STRING);
    spx_jobinfo_put(o, PMIX_MAPBY, job->mapby ? job->mapby : "slot", PMIX_STRING);
    spx_jobinfo_put(o, PMIX_TDIR_RMCLEAN, &job->tdir_rmclean, PMIX_BOOL);
    if (job->tmpdir != NULL)
        spx_jobinfo_put(o, PMIX_TMPDIR, job->tmpdir, PMIX_STRING);
    if (job->nsdir != NULL)
        spx_jobinfo_put(o, PMIX_NSDIR, job->nsdir, PMIX_STRING);
    spx_jobinfo_put(o, PMIX_LOCAL_SIZE, &lsize, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_NODE_SIZE, &lsize, PMIX_UINT32);
    if (peers != NULL)
        spx_jobinfo_put(o, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    spx_jobinfo_put(o, PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
    /* this node's name and id, also when the server cannot tell which node
     * array is its own (simulated nodes share the machine's host name) */
    spx_jobinfo_put(o, PMIX_HOSTNAME, local->hostname, PMIX_STRING);
    spx_jobinfo_put(o, PMIX_NODEID, &job->local_node, PMIX_UINT32);
    spx_jobinfo_put(o, PMIX_SPAWNED, &(bool){false}, PMIX_BOOL);
    free(peers);
}

/* The apps: app of each rank (app_of, job_size), each app's size, leader
 * (lowest rank) and each rank's index in its app. */
struct spx_jobinfo_apps {
    uint32_t n;
    uint32_t *app, *size, *apprank;
    pmix_rank_t *ldr;
};

static void spx_jobinfo_apps_free(struct spx_jobinfo_apps *a)
{
    free(a->app);
    free(a->size);
    free(a->apprank);
    free(a->ldr);
}

static pmix_status_t spx_jobinfo_apps(const struct spx_host_job *job, struct spx_jobinfo_apps *a)
{
    a->n = job->app_of && job->napps > 1 ? job->napps : 1;
    if (a->n > job->job_size)
        return PMIX_ERR_BAD_PARAM;
    a->app = calloc(job->job_size, sizeof(*a->app));
    a->apprank = calloc(job->job_size, sizeof(*a->apprank));
    a->size = calloc(a->n, sizeof(*a->size));
    a->ldr = calloc(a->n, sizeof(*a->ldr));
    if (!a->app || !a->apprank || !a->size || !a->ldr)
        return PMIX_ERR_NOMEM;
    for (uint32_t r = 0; r < job->job_size; r++) {
        uint32_t k = a->n > 1 ? job->app_of[r] : 0;
        if (k >= a->n)
            return PMIX_ERR_BAD_PARAM;
        if (a->size[k] == 0)
            a->ldr[k] = r;
        a->app[r] = k;
        a->apprank[r] = a->size[k]++;
    }
    for (uint32_t k = 0; k < a->n; k++)
        if (a->size[k] == 0)
            return PMIX_ERR_BAD_PARAM;
    return PMIX_SUCCESS;
}

/* Whether what the server and clients compute from the maps
 * (store/jobmap.h) is what this node's array and its ranks' blocks would
 * say: a job of one app whose node lists its ranks in ascending order (a
 * rank's local rank is then its place in the map's list) and holds some. */
static bool spx_jobinfo_by_maps(const struct spx_host_job *job, const struct spx_host_node *nd)
{
    if (job->app_of && job->napps > 1)
        return false;
    if (nd->nranks == 0)
        return false;
    for (uint32_t k = 1; k < nd->nranks; k++)
        if (nd->ranks[k] <= nd->ranks[k - 1])
            return false;
    return true;
}

pmix_status_t spx_host_jobinfo_build(const struct spx_host_job *job,
                                     pmix_info_t **info, size_t *ninfo)
{
    struct spx_jobinfo_out o = { 0 };
    struct spx_jobinfo_apps apps = { 0 };
    uint32_t *node_of = NULL;
    uint16_t *lrank_of = NULL;
    char *nodemap = NULL, *procmap = NULL;
    pmix_status_t rc;

    if (job == NULL || info == NULL || ninfo == NULL || job->job_size > (1u << 24))
        return PMIX_ERR_BAD_PARAM;
    node_of = calloc(job->job_size, sizeof(*node_of));
    lrank_of = calloc(job->job_size, sizeof(*lrank_of));
    if (node_of == NULL || lrank_of == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    rc = spx_jobinfo_check(job, node_of, lrank_of);
    if (rc == PMIX_SUCCESS)
        rc = spx_jobinfo_apps(job, &apps);
    if (rc != PMIX_SUCCESS)
        goto out;
    rc = spx_jobinfo_maps(job, &nodemap, &procmap);
    if (rc != PMIX_SUCCESS)
        goto out;

    uint32_t nnode_arrays = 0, nblocks = 0;
    for (uint32_t i = 0; i < job->nnodes; i++)
        if (i == job->local_node || !spx_jobinfo_by_maps(job, &job->nodes[i])) {
            nnode_arrays++;
            nblocks += job->nodes[i].nranks;
        }
    o.cap = SPX_JOBINFO_JOB_KEYS + apps.n + 1 + nnode_arrays + nblocks;
    PMIX_INFO_CREATE(o.info, o.cap);
    if (o.info == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    spx_jobinfo_job_level(&o, job, nodemap, procmap);

    for (uint32_t k = 0; k < apps.n && rc == PMIX_SUCCESS; k++) {
        pmix_info_t *app;
        const char *argv = job->app_argv ? job->app_argv[k] : NULL;
        PMIX_INFO_CREATE(app, 4);
        if (app == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        PMIx_Info_load(&app[0], PMIX_APPNUM, &k, PMIX_UINT32);
        PMIx_Info_load(&app[1], PMIX_APP_SIZE, &apps.size[k], PMIX_UINT32);
        PMIx_Info_load(&app[2], PMIX_APPLDR, &apps.ldr[k], PMIX_PROC_RANK);
        if (argv != NULL)
            PMIx_Info_load(&app[3], PMIX_APP_ARGV, argv, PMIX_STRING);
        spx_jobinfo_put_array(&o, PMIX_APP_INFO_ARRAY, app, argv != NULL ? 4 : 3);
    }

    if (job->alloc_nnodes && rc == PMIX_SUCCESS)
        rc = spx_jobinfo_session(&o, job);
    for (uint32_t i = 0; i < job->nnodes && rc == PMIX_SUCCESS; i++) {
        const struct spx_host_node *nd = &job->nodes[i];
        if (i != job->local_node && spx_jobinfo_by_maps(job, nd))
            continue;
        rc = spx_jobinfo_node(&o, nd, i);
        for (uint32_t k = 0; k < nd->nranks && rc == PMIX_SUCCESS; k++) {
            pmix_rank_t r = nd->ranks[k];
            rc = spx_jobinfo_proc(&o, r, nd->hostname, i, lrank_of[r], apps.app[r],
                                  apps.ldr[apps.app[r]], apps.apprank[r]);
        }
    }
out:
    if (rc != PMIX_SUCCESS && o.info != NULL) {
        PMIX_INFO_FREE(o.info, o.cap);
    } else if (rc == PMIX_SUCCESS) {
        *info = o.info;
        *ninfo = o.n;
    }
    spx_jobinfo_apps_free(&apps);
    free(nodemap);
    free(procmap);
    free(node_of);
    free(lrank_of);
    return rc;
}
