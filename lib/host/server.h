/*
 * host/server: starting and stopping our PMIx server the way every host does
 * it, and registering a job with it.
 *
 *   spx_host_server_start     PMIx_server_init with the directories, ids,
 *                             host name and, for a multi-node job, the tree
 *                             attributes (SPMIX_TREE_*, include/spmix.h): the
 *                             node index is job->local_node and the addresses
 *                             come from job->nodes[] (spx_host_node_list), the
 *                             same array the job info is built from;
 *   spx_host_register_job     the job info (host/jobinfo.h), registered for
 *                             this node's ranks, waiting for the callback;
 *   spx_host_setup_client     one local rank: register it, then its
 *                             PMIx_server_setup_fork environment;
 *   spx_host_deregister_job   the namespace goes, bounded wait.
 * All of them run on the host's main thread (never on the library's progress
 * thread: they wait for its callbacks).
 */
#ifndef SPX_HOST_SERVER_H
#define SPX_HOST_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_server.h>

#include "host/jobinfo.h"

/* How to start the server. Every pointer is borrowed for the call. */
struct spx_host_server_cfg {
    const char *tmpdir;          /* PMIX_SERVER_TMPDIR, and PMIX_SYSTEM_TMPDIR without system_tmpdir */
    const char *system_tmpdir;   /* PMIX_SYSTEM_TMPDIR: where tools look; NULL: tmpdir */
    bool tool_support;           /* PMIX_SERVER_TOOL_SUPPORT: tools of the job's user may
                                  * connect, finding the server in system_tmpdir */
    uint32_t rendezvous_pid;     /* SPMIX_SERVER_RENDEZVOUS_PID; 0: not given */
    uint32_t launcher_pid;       /* SPMIX_SERVER_LAUNCHER_PID; 0: not given */
    bool set_ids;                /* give PMIX_USERID/PMIX_GRPID (uid, gid) */
    uint32_t uid, gid;
    const char *hostname;        /* PMIX_HOSTNAME; NULL: not given */
    const char *server_nspace;   /* PMIX_SERVER_NSPACE; NULL: not given */
    bool local_fences;           /* SPMIX_SERVER_LOCAL_FENCES true (single node) */
    void *hwloc_topology;        /* PMIX_TOPOLOGY2: an hwloc_topology_t the caller loaded
                                  * and keeps for the server's life; NULL: the server
                                  * discovers the node itself */
    /* the tree: NULL for a single node without one. Index and addresses from
     * the job's layout; every node needs an addr. */
    const struct spx_host_job *tree_job;
    const void *secret;          /* SPMIX_TREE_SECRET, secret_len bytes (not with auth_munge) */
    size_t secret_len;
    bool auth_munge;             /* SPMIX_TREE_AUTH "munge" instead of the secret */
    const char *auth_uids;       /* with auth_munge: SPMIX_TREE_AUTH_UIDS "uid,uid,..." */
    const char *auth_id;         /* with auth_munge: SPMIX_TREE_AUTH_ID, the step's name */
    uint32_t width;              /* SPMIX_TREE_WIDTH; 0: library default */
    uint32_t timeout;            /* SPMIX_TREE_TIMEOUT (s); 0: library default */
};

/* PMIx_server_init(module, the info from cfg). Returns its status, or
 * PMIX_ERR_BAD_PARAM / PMIX_ERR_NOMEM before calling it. */
pmix_status_t spx_host_server_start(pmix_server_module_t *module,
                                    const struct spx_host_server_cfg *cfg);

/* Build the job info and register the namespace with the local node's rank
 * count; waits up to limit seconds (<= 0: no bound) for the library. */
pmix_status_t spx_host_register_job(const struct spx_host_job *job, int limit);

/* Register rank of nspace as a client of (uid, gid), then fill *env with its
 * PMIx_server_setup_fork variables: a NULL-terminated array the caller frees
 * with spx_host_env_free (also on error, where it may be NULL). */
pmix_status_t spx_host_setup_client(const char *nspace, pmix_rank_t rank, uint32_t uid,
                                    uint32_t gid, int limit, char ***env);
void spx_host_env_free(char **env);

/* Deregister nspace; waits up to limit seconds. PMIX_ERR_TIMEOUT: the
 * library did not answer (the caller must not unload or finalize it then). */
pmix_status_t spx_host_deregister_job(const char *nspace, int limit);

#endif /* SPX_HOST_SERVER_H */
