/* demo_exchange.c - the demo job: every rank puts a string, commits, joins a
 * collecting fence and reads every peer's string back. With --abort, rank 1
 * calls PMIx_Abort instead. Exits non-zero on any wrong value. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    pmix_proc_t me, wild;
    pmix_value_t *v = NULL;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 1;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
        return 2;
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (argc > 1 && strcmp(argv[1], "--abort") == 0 && me.rank == 1)
    {
        PMIx_Abort(3, "rank 1 gives up on purpose", NULL, 0);
        return 3; /* the launcher ends the job; nothing more to do here */
    }
    char msg[64];
    snprintf(msg, sizeof(msg), "hello from rank %u", me.rank);
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, msg, PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, "demo.msg", &val);
    PMIX_VALUE_DESTRUCT(&val);
    PMIx_Commit();
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) { /* e.g. a peer aborted: the fence fails at once */
        printf("rank %u/%u: fence failed: %s\n", me.rank, size, PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 4;
    }
    int bad = 0;
    for (uint32_t r = 0; r < size; r++) {
        pmix_proc_t peer;
        char want[64];
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        snprintf(want, sizeof(want), "hello from rank %u", r);
        if (PMIx_Get(&peer, "demo.msg", NULL, 0, &v) != PMIX_SUCCESS || v->type != PMIX_STRING ||
            strcmp(v->data.string, want) != 0)
            bad = 1;
        if (v)
            PMIX_VALUE_RELEASE(v);
        v = NULL;
    }
    printf("rank %u/%u (%s): read %u peers' data: %s\n", me.rank, size, PMIx_Get_version(), size,
           bad ? "WRONG" : "ok");
    PMIx_Finalize(NULL, 0);
    return bad;
}
