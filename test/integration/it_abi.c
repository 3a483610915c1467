/*
 * it_abi: the same source is built twice, against spmix's headers and against
 * OpenPMIx's, both running on spmix's libpmix. Rank 0 prints struct layouts,
 * constants and the values it exchanged with its peers; the test script
 * requires both outputs to be identical (and the run to succeed).
 */
#include <pmix.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define P(fmt, ...) do { if (me.rank == 0) printf(fmt "\n", __VA_ARGS__); } while (0)
#define LAYOUT(t, f) P("offsetof(%s, %s) = %zu", #t, #f, offsetof(t, f))

static int fail(const char *what, pmix_status_t rc)
{
    printf("it_abi: %s failed: %d\n", what, rc);
    return 1;
}

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t v, *got = NULL;
    pmix_info_t info;
    pmix_status_t rc;
    bool yes = true;
    uint32_t size;
    char buf[64];

    memset(&me, 0, sizeof(me));
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        return fail("PMIx_Init", rc);
    P("sizeof(pmix_proc_t) = %zu", sizeof(pmix_proc_t));
    P("sizeof(pmix_value_t) = %zu", sizeof(pmix_value_t));
    P("sizeof(pmix_info_t) = %zu", sizeof(pmix_info_t));
    P("sizeof(pmix_pdata_t) = %zu", sizeof(pmix_pdata_t));
    P("sizeof(pmix_data_array_t) = %zu", sizeof(pmix_data_array_t));
    P("sizeof(pmix_byte_object_t) = %zu", sizeof(pmix_byte_object_t));
    P("sizeof(pmix_app_t) = %zu", sizeof(pmix_app_t));
    P("sizeof(pmix_query_t) = %zu", sizeof(pmix_query_t));
    LAYOUT(pmix_proc_t, rank);
    LAYOUT(pmix_info_t, flags);
    LAYOUT(pmix_info_t, value);
    LAYOUT(pmix_value_t, data);
    LAYOUT(pmix_pdata_t, key);
    LAYOUT(pmix_pdata_t, value);
    LAYOUT(pmix_app_t, maxprocs);
    LAYOUT(pmix_app_t, info);
    P("PMIX_RANK_WILDCARD = %u, PMIX_RANK_UNDEF = %u", PMIX_RANK_WILDCARD, PMIX_RANK_UNDEF);
    P("PMIX_UINT16 = %d, PMIX_UINT32 = %d, PMIX_STRING = %d, PMIX_BYTE_OBJECT = %d, "
      "PMIX_PROC_RANK = %d, PMIX_DATA_ARRAY = %d", PMIX_UINT16, PMIX_UINT32, PMIX_STRING,
      PMIX_BYTE_OBJECT, PMIX_PROC_RANK, PMIX_DATA_ARRAY);
    P("PMIX_ERR_NOT_FOUND = %d, PMIX_ERR_BAD_PARAM = %d, PMIX_ERR_TIMEOUT = %d",
      PMIX_ERR_NOT_FOUND, PMIX_ERR_BAD_PARAM, PMIX_ERR_TIMEOUT);
    P("PMIX_LOCAL = %d, PMIX_REMOTE = %d, PMIX_GLOBAL = %d", PMIX_LOCAL, PMIX_REMOTE, PMIX_GLOBAL);

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) != PMIX_SUCCESS)
        return fail("Get(job size)", rc);
    size = got->data.uint32;
    P("job size: type %d value %u", got->type, got->data.uint32);
    PMIX_VALUE_RELEASE(got);
    if ((rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &got)) != PMIX_SUCCESS)
        return fail("Get(local rank)", rc);
    P("local rank: type %d value %u", got->type, got->data.uint16);
    PMIX_VALUE_RELEASE(got);

    snprintf(buf, sizeof(buf), "abi-string-%u", me.rank);
    PMIX_VALUE_LOAD(&v, buf, PMIX_STRING);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "abi.str", &v)) != PMIX_SUCCESS)
        return fail("Put", rc);
    PMIX_VALUE_DESTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = buf;
    v.data.bo.size = 7;
    if ((rc = PMIx_Put(PMIX_LOCAL, "abi.bo", &v)) != PMIX_SUCCESS)
        return fail("Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        return fail("Commit", rc);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
        return fail("Fence", rc);
    for (uint32_t r = 0; r < size; r++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        if ((rc = PMIx_Get(&peer, "abi.str", NULL, 0, &got)) != PMIX_SUCCESS)
            return fail("Get(abi.str)", rc);
        P("rank %u abi.str: type %d '%s'", r, got->type, got->data.string);
        PMIX_VALUE_RELEASE(got);
        if ((rc = PMIx_Get(&peer, "abi.bo", NULL, 0, &got)) != PMIX_SUCCESS)
            return fail("Get(abi.bo)", rc);
        P("rank %u abi.bo: type %d size %zu '%.*s'", r, got->type, got->data.bo.size,
          (int)got->data.bo.size, got->data.bo.bytes);
        PMIX_VALUE_RELEASE(got);
    }
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        return fail("Fence", rc);
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
        return fail("Finalize", rc);
    return 0;
}
