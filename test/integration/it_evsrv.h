/* it_evsrv.h: what it_evsrv (the ranks) and it_srvhook.so (preloaded into
 * spmix-run's servers) agree on: the event codes and the tag key. */
#ifndef SPX_IT_EVSRV_H
#define SPX_IT_EVSRV_H

#define IT_EVSRV_EARLY (PMIX_EXTERNAL_ERR_BASE - 51)   /* the server's own, before it registers */
#define IT_EVSRV_RANK (PMIX_EXTERNAL_ERR_BASE - 52)    /* rank 0's, NAMESPACE */
#define IT_EVSRV_TRIGGER (PMIX_EXTERNAL_ERR_BASE - 53) /* rank 0's: node 0's server raises the next two */
#define IT_EVSRV_LOCAL (PMIX_EXTERNAL_ERR_BASE - 54)   /* node 0's server, PROC_LOCAL */
#define IT_EVSRV_GLOBAL (PMIX_EXTERNAL_ERR_BASE - 55)  /* node 0's server, GLOBAL */
#define IT_EVSRV_TAG "it.evsrv.tag"

#endif
