/*
 * host/jobinfo: the layout of one job (which ranks run on which node, and
 * where each node's server listens for the tree) and the info array a PMIx
 * server registers for it (PMIx_server_register_nspace).
 *
 * Both hosts of our server (the Slurm plugin and spmix-run) describe their
 * job with one struct spx_host_job. The node order of PMIX_NODE_MAP (built
 * here) and of SPMIX_TREE_ADDRS (host/server.c) both come from
 * spx_host_node_list() over that one nodes[] array, so node index i is the
 * same node in the job info and in the tree.
 *
 * The keys carry the exact types clients check (Open MPI reads them
 * strictly). Only the public PMIx API is used: the plugin calls it through
 * the dlopen'ed library (plugin/pmix_dl.c), spmix-run through libpmix.
 */
#ifndef SPX_HOST_JOBINFO_H
#define SPX_HOST_JOBINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_server.h>

/* One node of the job. Every pointer is borrowed (the caller's). */
struct spx_host_node {
    const char *hostname;       /* PMIX_NODE_MAP entry and the node's PMIX_HOSTNAME */
    const char *addr;           /* "ip:port" of its server on the tree; NULL: no tree */
    const pmix_rank_t *ranks;   /* ranks of this job on the node, ascending */
    uint32_t nranks;
};

/* The job layout. Every pointer is borrowed (the caller's). */
struct spx_host_job {
    const char *nspace;          /* namespace being registered */
    const char *jobid;           /* PMIX_JOBID; NULL: the namespace */
    uint32_t job_size;           /* number of ranks, 0..job_size-1 */
    uint32_t univ_size;          /* PMIX_UNIV_SIZE/MAX_PROCS; 0: job_size */
    const struct spx_host_node *nodes;
    uint32_t nnodes;             /* node ids are the indexes into nodes[] */
    uint32_t local_node;         /* index of the node this server runs on */
    const char *tmpdir;          /* PMIX_TMPDIR; NULL: not registered */
    const char *nsdir;           /* PMIX_NSDIR; NULL: not registered */
    const char *mapby;           /* PMIX_MAPBY; NULL: "slot" */
    bool tdir_rmclean;           /* PMIX_TDIR_RMCLEAN */
    uint32_t alloc_nnodes;       /* nodes of the allocation the job runs in (its
                                  * session's PMIX_NUM_ALLOCATED_NODES); 0: not
                                  * known, no session info registered */
    uint32_t napps;              /* applications; 0 or 1: one (app 0, all ranks) */
    const uint32_t *app_of;      /* [job_size] app of each rank (< napps), every
                                  * app used; NULL: one application */
    const char *const *app_argv; /* [napps, or 1] each app's command line, its
                                  * arguments joined by spaces (PMIX_APP_ARGV, as
                                  * PRRTE registers it); NULL: not known (an entry
                                  * NULL: not known for that app) */
};

/* Which field of the nodes spx_host_node_list joins. */
enum spx_host_list {
    SPX_HOST_LIST_NAMES,         /* hostname: the input of PMIX_NODE_MAP */
    SPX_HOST_LIST_ADDRS,         /* addr: SPMIX_TREE_ADDRS */
};
const char *spx_host_list_str(enum spx_host_list what);

/*
 * "a,b,c": the chosen field of nodes[0..n-1], in index order. The one place
 * both node orders come from. Returns a string the caller frees with free(),
 * or NULL (errno EINVAL: n is 0 or a node lacks the field; ENOMEM).
 */
char *spx_host_node_list(const struct spx_host_node *nodes, uint32_t n, enum spx_host_list what);

/* "a b c": the NULL-terminated argv joined by spaces (PMIX_APP_ARGV's form).
 * malloc'd (the caller frees), or NULL (errno ENOMEM). */
char *spx_host_argv_join(char *const *argv);

/*
 * Build the info array for the namespace described by job: one
 * PMIX_APP_INFO_ARRAY per application (PMIX_APPNUM, PMIX_APP_SIZE,
 * PMIX_APPLDR = its lowest rank, PMIX_APP_ARGV when known) and each rank's PMIX_APPNUM, PMIX_APPLDR
 * and PMIX_APP_RANK (its index among its app's ranks); with alloc_nnodes, a
 * PMIX_SESSION_INFO_ARRAY (PMIX_NUM_ALLOCATED_NODES, PMIX_UNIV_SIZE).
 * Needs the PMIx library loaded (for
 * PMIx_generate_regex/ppn); PMIx_server_init is not required.
 * On PMIX_SUCCESS *info holds *ninfo entries; the caller frees them with
 * PMIX_INFO_FREE(*info, *ninfo). On error nothing is returned.
 * Errors: PMIX_ERR_BAD_PARAM for an inconsistent layout (a rank outside the
 * job, on two nodes or on none; an app number >= napps, an app without
 * rank), PMIX_ERR_NOMEM, or a regex generation error.
 */
pmix_status_t spx_host_jobinfo_build(const struct spx_host_job *job,
                                     pmix_info_t **info, size_t *ninfo);

#endif /* SPX_HOST_JOBINFO_H */
