/*
 * it_foreign: prints what PMIx_Init makes of the environment it is started
 * in (foreign.sh sets one up per case): "it_foreign: init <status>", on
 * success followed by " rank R size S" (PMIX_JOB_SIZE), then finalizes.
 * Exit 0 when init succeeded, 2 when it failed, 1 on any other error.
 */
#include <pmix.h>
#include <stdio.h>

int main(void)
{
    pmix_proc_t me, job;
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);

    printf("it_foreign: init %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        printf("\n");
        return PMIx_Initialized() ? 1 : 2;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_UINT32) {
        printf(" (PMIx_Get(PMIX_JOB_SIZE): %s)\n", PMIx_Error_string(rc));
        return 1;
    }
    printf(" rank %u size %u\n", me.rank, v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}
