/* query_int.h - what the two files of the query engine share
 * (engine_query.h): query_own.c (a QUERY's own keys: runs, their slots,
 * answered at once or gathered, and their end) and query_gather.c (the
 * parts asked of the other nodes, merged into a slot as they come; the
 * engine's ops). Not for other files: they use engine_query.h.
 * Everything runs on the progress thread.
 */
#ifndef SPX_SERVER_QUERY_INT_H
#define SPX_SERVER_QUERY_INT_H

#include <sys/queue.h>

#include "server/core.h"
#include "server/engine_query.h"

#define SPX_QRY_MAX_URI 4096u /* bytes of a URI from the wire */

/* One key of a run (one key and namespace). */
struct qslot {
    const char *key;                /* borrowed from the query */
    uint8_t part;                   /* gathered: enum spx_qry_part; 0: answered at once */
    char nspace[PMIX_MAX_NSLEN + 1];
    bool answered;                  /* out holds the answer */
    pmix_info_t out;
    pmix_proc_info_t *procs;        /* PROCS parts so far (owned) */
    size_t nprocs, cprocs;
    char **names;                   /* GROUPS parts so far (owned) */
    size_t nnames, cnames;
    int worst;                      /* JOB_STATUS: rank of the worst part so far (query_gather.c) */
    pmix_status_t status;           /* JOB_STATUS: that part */
    bool any;                       /* JOB_STATUS: some part came */
};

struct qrun {
    LIST_ENTRY(qrun) link;          /* in the engine's runs */
    struct qslot *slots;            /* owned */
    size_t nslots;
    size_t pending;                 /* asks not answered yet */
    bool unanswered;                /* a key asked that the server cannot answer */
    spx_srv_query_own_f done;
    void *arg;
};

struct qask {                       /* one QUERY_REQ waiting for its node */
    LIST_ENTRY(qask) link;          /* in the engine's asks */
    uint64_t id;
    uint32_t node;
    struct qrun *run;               /* borrowed: the run outlives its asks */
    size_t slot;
};

struct spx_srv_qry {
    struct spx_srv_ctx *ctx;        /* borrowed */
    LIST_HEAD(, qrun) runs;         /* owned */
    LIST_HEAD(, qask) asks;         /* owned */
    uint64_t next_id;
};

/* ---- query_gather.c ---- */
/* Gathers part for run's slot si over nodes[0..n) (all nodes 0..n-1 when
 * nodes is NULL): this node's part merged now, the others asked (run->pending
 * counts them); a node that is gone is merged as gone. */
void spx_qry_gather(struct spx_srv_ctx *ctx, struct qrun *run, size_t si, uint8_t part,
                    const uint32_t *nodes, size_t n);

/* ---- query_own.c ---- */
/* Ends run (its pending count is 0): leaves the engine's runs, its slots
 * are finished (merged parts made answers), its done gets the answers; the
 * run is freed. */
void spx_qry_run_end(struct spx_srv_ctx *ctx, struct qrun *run);

#endif
