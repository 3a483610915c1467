/*
 * hetcheck: a PMIx client for test/slurm/test_hetjob.sh - heterogeneous
 * and --multi-prog steps under srun --mpi=spmix.
 *   hetcheck APPS [TAG]   APPS is the expected application of every rank of
 *                         the step, comma-separated ("0,0,1,1,1"; its
 *                         length is the expected job size). Each rank checks
 *                         PMIX_JOB_SIZE, its rank against SLURM_PROCID,
 *                         PMIX_JOB_NUM_APPS, its PMIX_APPNUM, PMIX_APPLDR
 *                         and PMIX_APP_RANK, every app's PMIX_APP_SIZE and
 *                         PMIX_APPLDR (PMIX_APP_INFO qualified Gets) and
 *                         another rank's PMIX_APPNUM; then a collecting
 *                         fence after a put of its own value, reading every
 *                         other rank's value; then a group construct over
 *                         all ranks. Prints "hetcheck TAG: rank R app A: OK".
 * Exit status 0 when every check passed; failures print "FAIL ...".
 */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;

#define FAIL(...) \
    do { fprintf(stderr, "FAIL [rank %u] ", me.rank); fprintf(stderr, __VA_ARGS__); \
         fputc('\n', stderr); fflush(NULL); exit(1); } while (0)

static uint32_t get_u32(pmix_rank_t rank, const char *key, const pmix_info_t *q, size_t nq)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    uint32_t x;

    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    rc = PMIx_Get(&p, key, q, nq, &v);
    if (rc != PMIX_SUCCESS || v == NULL)
        FAIL("PMIx_Get(%u, %s): %s", rank, key, PMIx_Error_string(rc));
    if (v->type == PMIX_UINT32)
        x = v->data.uint32;
    else if (v->type == PMIX_PROC_RANK)
        x = v->data.rank;
    else
        FAIL("%s has type %s", key, PMIx_Data_type_string(v->type));
    PMIX_VALUE_RELEASE(v);
    return x;
}

/* app of rank r from "0,0,1"; *n = number of entries */
static uint32_t *parse_apps(const char *s, uint32_t *n)
{
    uint32_t *a = calloc(strlen(s) + 1, sizeof(*a));
    char *end;

    *n = 0;
    while (a && *s) {
        a[(*n)++] = (uint32_t)strtoul(s, &end, 10);
        if (end == s)
            break;
        s = *end == ',' ? end + 1 : end;
    }
    return a;
}

int main(int argc, char **argv)
{
    uint32_t n, napps = 0, *app, *size, *ldr, apprank = 0, v;
    const char *tag = argc > 2 ? argv[2] : "";
    const char *procid = getenv("SLURM_PROCID");
    pmix_info_t q[2], coll;
    pmix_proc_t all, *members;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_value_t val;
    pmix_status_t rc;

    if (argc < 2 || !(app = parse_apps(argv[1], &n)) || n == 0) {
        fprintf(stderr, "usage: hetcheck APPS [TAG]\n");
        return 2;
    }
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        FAIL("PMIx_Init: %s", PMIx_Error_string(rc));
    for (uint32_t r = 0; r < n; r++)
        napps = app[r] + 1 > napps ? app[r] + 1 : napps;
    size = calloc(napps, sizeof(*size));
    ldr = calloc(napps, sizeof(*ldr));
    for (uint32_t r = n; r-- > 0;) {
        size[app[r]]++;
        ldr[app[r]] = r;
    }
    for (uint32_t r = 0; r < me.rank && r < n; r++)
        apprank += app[r] == app[me.rank];

    if ((v = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL, 0)) != n)
        FAIL("PMIX_JOB_SIZE %u, expected %u", v, n);
    if (me.rank >= n || procid == NULL || strtoul(procid, NULL, 10) != me.rank)
        FAIL("rank %u, SLURM_PROCID %s", me.rank, procid ? procid : "unset");
    if ((v = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_NUM_APPS, NULL, 0)) != napps)
        FAIL("PMIX_JOB_NUM_APPS %u, expected %u", v, napps);
    if ((v = get_u32(me.rank, PMIX_APPNUM, NULL, 0)) != app[me.rank])
        FAIL("PMIX_APPNUM %u, expected %u", v, app[me.rank]);
    if ((v = get_u32(me.rank, PMIX_APPLDR, NULL, 0)) != ldr[app[me.rank]])
        FAIL("PMIX_APPLDR %u, expected %u", v, ldr[app[me.rank]]);
    if ((v = get_u32(me.rank, PMIX_APP_RANK, NULL, 0)) != apprank)
        FAIL("PMIX_APP_RANK %u, expected %u", v, apprank);
    if ((v = get_u32(n - 1 - me.rank, PMIX_APPNUM, NULL, 0)) != app[n - 1 - me.rank])
        FAIL("PMIX_APPNUM of rank %u: %u, expected %u", n - 1 - me.rank, v, app[n - 1 - me.rank]);
    for (uint32_t k = 0; k < napps; k++) {
        PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
        PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &k, PMIX_UINT32);
        if ((v = get_u32(PMIX_RANK_WILDCARD, PMIX_APP_SIZE, q, 2)) != size[k])
            FAIL("PMIX_APP_SIZE of app %u: %u, expected %u", k, v, size[k]);
        if ((v = get_u32(PMIX_RANK_WILDCARD, PMIX_APPLDR, q, 2)) != ldr[k])
            FAIL("PMIX_APPLDR of app %u: %u, expected %u", k, v, ldr[k]);
    }

    /* every rank's value crosses the components */
    PMIX_VALUE_LOAD(&val, &(uint32_t){ me.rank * 7 + 1 }, PMIX_UINT32);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "hetcheck.v", &val)) != PMIX_SUCCESS ||
        (rc = PMIx_Commit()) != PMIX_SUCCESS)
        FAIL("put/commit: %s", PMIx_Error_string(rc));
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &(bool){ true }, PMIX_BOOL);
    if ((rc = PMIx_Fence(&all, 1, &coll, 1)) != PMIX_SUCCESS)
        FAIL("PMIx_Fence: %s", PMIx_Error_string(rc));
    for (uint32_t r = 0; r < n; r++)
        if ((v = get_u32(r, "hetcheck.v", NULL, 0)) != r * 7 + 1)
            FAIL("rank %u's value %u, expected %u", r, v, r * 7 + 1);

    /* a group of every rank of every component */
    members = calloc(n, sizeof(*members));
    for (uint32_t r = 0; r < n; r++)
        PMIX_LOAD_PROCID(&members[r], me.nspace, r);
    if ((rc = PMIx_Group_construct("hetgrp", members, n, NULL, 0, &res, &nres)) != PMIX_SUCCESS)
        FAIL("PMIx_Group_construct: %s", PMIx_Error_string(rc));
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    if ((rc = PMIx_Group_destruct("hetgrp", NULL, 0)) != PMIX_SUCCESS)
        FAIL("PMIx_Group_destruct: %s", PMIx_Error_string(rc));

    printf("hetcheck%s%s: rank %u app %u: OK\n", *tag ? " " : "", tag, me.rank, app[me.rank]);
    fflush(stdout);
    free(members);
    free(size);
    free(ldr);
    free(app);
    PMIx_Finalize(NULL, 0);
    return 0;
}
