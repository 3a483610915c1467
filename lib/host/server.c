/*
 * host/server: see server.h. The server's info array is filled entry by
 * entry from the config (tree attributes last); the tree addresses are
 * joined from the job layout by spx_host_node_list, so they follow the node
 * order of PMIX_NODE_MAP. Waits go through host/sync.
 */
#include "config.h"
#include "host/server.h"
#include "host/sync.h"

#include <stdlib.h>
#include <string.h>

#include <spmix.h>

#define SPX_HOST_SERVER_INFO 18

/* Waits use a heap object: after a timeout the callback may still come, so
 * the object is left to it (leaked) rather than freed. */
static struct spx_host_sync *spx_host_sync_new(void)
{
    struct spx_host_sync *s = malloc(sizeof(*s));

    if (s != NULL)
        *s = (struct spx_host_sync)SPX_HOST_SYNC_INIT;
    return s;
}

static pmix_status_t spx_host_sync_end(struct spx_host_sync *s, pmix_status_t rc, int limit)
{
    rc = spx_host_sync_wait(s, rc, limit);
    if (rc != PMIX_ERR_TIMEOUT)
        free(s);
    return rc;
}

pmix_status_t spx_host_server_start(pmix_server_module_t *module,
                                    const struct spx_host_server_cfg *cfg)
{
    const struct spx_host_job *tj = cfg->tree_job;
    pmix_byte_object_t bo = { .bytes = (char *)cfg->secret, .size = cfg->secret_len };
    bool local_fences = true;
    char *addrs = NULL;
    pmix_info_t *info;
    pmix_status_t rc;
    size_t n = 0;

    if (cfg->tmpdir == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (tj != NULL) {
        if (tj->local_node >= tj->nnodes ||
            (cfg->auth_munge ? cfg->auth_uids == NULL || cfg->auth_id == NULL
                             : cfg->secret == NULL))
            return PMIX_ERR_BAD_PARAM;
        addrs = spx_host_node_list(tj->nodes, tj->nnodes, SPX_HOST_LIST_ADDRS);
        if (addrs == NULL)
            return PMIX_ERR_BAD_PARAM;
    }
    PMIX_INFO_CREATE(info, SPX_HOST_SERVER_INFO);
    if (info == NULL) {
        free(addrs);
        return PMIX_ERR_NOMEM;
    }
    PMIx_Info_load(&info[n++], PMIX_SERVER_TMPDIR, cfg->tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_SYSTEM_TMPDIR,
                   cfg->system_tmpdir ? cfg->system_tmpdir : cfg->tmpdir, PMIX_STRING);
    if (cfg->tool_support)
        PMIx_Info_load(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &cfg->tool_support, PMIX_BOOL);
    if (cfg->tool_support && cfg->rendezvous_pid)
        PMIx_Info_load(&info[n++], SPMIX_SERVER_RENDEZVOUS_PID, &cfg->rendezvous_pid,
                       PMIX_UINT32);
    if (cfg->tool_support && cfg->launcher_pid)
        PMIx_Info_load(&info[n++], SPMIX_SERVER_LAUNCHER_PID, &cfg->launcher_pid, PMIX_UINT32);
    if (cfg->set_ids) {
        PMIx_Info_load(&info[n++], PMIX_USERID, &cfg->uid, PMIX_UINT32);
        PMIx_Info_load(&info[n++], PMIX_GRPID, &cfg->gid, PMIX_UINT32);
    }
    if (cfg->hostname != NULL)
        PMIx_Info_load(&info[n++], PMIX_HOSTNAME, cfg->hostname, PMIX_STRING);
    if (cfg->server_nspace != NULL)
        PMIx_Info_load(&info[n++], PMIX_SERVER_NSPACE, cfg->server_nspace, PMIX_STRING);
    if (cfg->local_fences)
        PMIx_Info_load(&info[n++], SPMIX_SERVER_LOCAL_FENCES, &local_fences, PMIX_BOOL);
    if (cfg->hwloc_topology != NULL) {
        char source[] = "hwloc";
        pmix_topology_t topo = { .source = source, .topology = cfg->hwloc_topology };
        PMIx_Info_load(&info[n++], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);   /* borrowed */
    }
    if (tj != NULL) {
        PMIx_Info_load(&info[n++], SPMIX_TREE_NODE_INDEX, &tj->local_node, PMIX_UINT32);
        PMIx_Info_load(&info[n++], SPMIX_TREE_ADDRS, addrs, PMIX_STRING);
        if (cfg->auth_munge) {
            PMIx_Info_load(&info[n++], SPMIX_TREE_AUTH, "munge", PMIX_STRING);
            PMIx_Info_load(&info[n++], SPMIX_TREE_AUTH_UIDS, cfg->auth_uids, PMIX_STRING);
            PMIx_Info_load(&info[n++], SPMIX_TREE_AUTH_ID, cfg->auth_id, PMIX_STRING);
        } else {
            PMIx_Info_load(&info[n++], SPMIX_TREE_SECRET, &bo, PMIX_BYTE_OBJECT);
        }
        if (cfg->width > 0)
            PMIx_Info_load(&info[n++], SPMIX_TREE_WIDTH, &cfg->width, PMIX_UINT32);
        if (cfg->timeout > 0)
            PMIx_Info_load(&info[n++], SPMIX_TREE_TIMEOUT, &cfg->timeout, PMIX_UINT32);
    }
    rc = PMIx_server_init(module, info, n);
    /* the secret's copy in the info array goes before the array is freed */
    for (size_t i = 0; i < n; i++)
        if (info[i].value.type == PMIX_BYTE_OBJECT && info[i].value.data.bo.bytes != NULL)
            memset(info[i].value.data.bo.bytes, 0, info[i].value.data.bo.size);
    PMIX_INFO_FREE(info, SPX_HOST_SERVER_INFO);
    free(addrs);
    return rc;
}

pmix_status_t spx_host_register_job(const struct spx_host_job *job, int limit)
{
    struct spx_host_sync *sync;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    pmix_status_t rc;

    rc = spx_host_jobinfo_build(job, &info, &ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((sync = spx_host_sync_new()) == NULL) {
        PMIX_INFO_FREE(info, ninfo);
        return PMIX_ERR_NOMEM;
    }
    rc = PMIx_server_register_nspace(job->nspace, (int)job->nodes[job->local_node].nranks,
                                     info, ninfo, spx_host_sync_cb, sync);
    rc = spx_host_sync_end(sync, rc, limit);
    if (rc == PMIX_ERR_TIMEOUT)
        return rc;   /* the library may still read info: leave it */
    PMIX_INFO_FREE(info, ninfo);
    return rc;
}

pmix_status_t spx_host_setup_client(const char *nspace, pmix_rank_t rank, uint32_t uid,
                                    uint32_t gid, int limit, char ***env)
{
    struct spx_host_sync *sync = spx_host_sync_new();
    pmix_proc_t proc;
    pmix_status_t rc;

    *env = NULL;
    if (sync == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_PROCID(&proc, nspace, rank);
    rc = PMIx_server_register_client(&proc, uid, gid, NULL, spx_host_sync_cb, sync);
    rc = spx_host_sync_end(sync, rc, limit);
    if (rc == PMIX_ERR_TIMEOUT)
        return rc;
    if (rc == PMIX_SUCCESS && (*env = calloc(1, sizeof(char *))) == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS)
        rc = PMIx_server_setup_fork(&proc, env);
    return rc;
}

void spx_host_env_free(char **env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

pmix_status_t spx_host_deregister_job(const char *nspace, int limit)
{
    struct spx_host_sync *sync = spx_host_sync_new();

    if (sync == NULL)
        return PMIX_ERR_NOMEM;
    PMIx_server_deregister_nspace(nspace, spx_host_sync_cb, sync);
    return spx_host_sync_end(sync, PMIX_SUCCESS, limit);
}
