/*
 * run_jobinfo: build the job-level, node-level and per-process information a
 * PMIx server registers for one namespace (PMIx_server_register_nspace).
 *
 * The caller describes the layout (which ranks run on which host); this module
 * turns it into the reserved keys, with the exact types clients check
 * (Open MPI reads them strictly). It is used by spmix-run for a single node and
 * is meant for any host that launches a multi-node step the same way.
 * It only uses the public PMIx API.
 */
#ifndef SPX_RUN_JOBINFO_H
#define SPX_RUN_JOBINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_server.h>

/* One node of the job. Borrowed by spx_jobinfo_build for the call only. */
struct spx_jobinfo_node {
    const char *hostname;
    const pmix_rank_t *ranks;   /* ranks of this job on the node, ascending */
    uint32_t nranks;
};

/* The job layout. Every pointer is borrowed for the duration of the call. */
struct spx_jobinfo {
    const char *nspace;          /* namespace being registered */
    const char *jobid;           /* PMIX_JOBID; NULL: the namespace */
    uint32_t job_size;           /* number of ranks, 0..job_size-1 */
    uint32_t univ_size;          /* PMIX_UNIV_SIZE/MAX_PROCS; 0: job_size */
    const struct spx_jobinfo_node *nodes;
    uint32_t nnodes;             /* node ids are the indexes into nodes[] */
    uint32_t local_node;         /* index of the node this server runs on */
    const char *tmpdir;          /* PMIX_TMPDIR; NULL: not registered */
    const char *nsdir;           /* PMIX_NSDIR; NULL: not registered */
    const char *mapby;           /* PMIX_MAPBY; NULL: "slot" */
    bool tdir_rmclean;           /* PMIX_TDIR_RMCLEAN */
};

/*
 * Build the info array for the namespace described by job (a single
 * application, appnum 0). Needs an initialized PMIx server library (for
 * PMIx_generate_regex/ppn).
 * On PMIX_SUCCESS *info holds *ninfo entries; the caller frees them with
 * PMIX_INFO_FREE(*info, *ninfo). On error nothing is returned.
 * Errors: PMIX_ERR_BAD_PARAM for an inconsistent layout (a rank outside the
 * job, on two nodes or on none), PMIX_ERR_NOMEM, or a regex generation error.
 */
pmix_status_t spx_jobinfo_build(const struct spx_jobinfo *job,
                                pmix_info_t **info, size_t *ninfo);

#endif /* SPX_RUN_JOBINFO_H */
