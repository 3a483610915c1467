/*
 * it_tool.c: a tool attaches to a running spmix-run job (tool.sh).
 *   it_tool job DIR      a rank: rank 0 writes its namespace to DIR/ready,
 *                        then every rank waits for DIR/done and finalizes
 *   it_tool tool HOW [ARG] [EXPECT_NSPACE]
 *                        a tool: PMIx_tool_init finding the server by HOW
 *                        (default | pid ARG | nspace ARG | uri ARG | file ARG |
 *                        none), then PMIx_Query_info(PMIX_QUERY_NAMESPACES)
 *                        must list EXPECT_NSPACE; prints "tool NS:RANK" and
 *                        "namespaces LIST"; exits 2 when PMIx_tool_init fails
 *                        (its status printed), 1 on a failed check
 */
#include "itest.h"

#include <pmix_tool.h>
#include <sys/stat.h>

static int job(const char *dir)
{
    char path[4096];
    IT_RC(PMIx_Init(&it_me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    if (it_me.rank == 0) {
        snprintf(path, sizeof(path), "%s/ready.tmp", dir);
        FILE *f = fopen(path, "w");
        IT_CHECK(f != NULL, "cannot write %s", path);
        fprintf(f, "%s\n", it_me.nspace);
        fclose(f);
        char done[4096];
        snprintf(done, sizeof(done), "%s/ready", dir);
        IT_CHECK(rename(path, done) == 0, "rename");
    }
    snprintf(path, sizeof(path), "%s/done", dir);
    struct stat st;
    double t0 = it_now();
    while (stat(path, &st) != 0) {
        IT_CHECK(it_now() - t0 < 40, "no %s after 40 s", path);
        it_sleep_ms(20);
    }
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}

static int tool(int argc, char **argv)
{
    const char *how = argv[2];
    const char *arg = argc > 3 ? argv[3] : NULL;
    const char *expect = argc > 4 ? argv[4] : NULL;
    pmix_info_t info[2];
    size_t n = 0;
    pid_t pid;
    bool yes = true;
    if (strcmp(how, "pid") == 0) {
        pid = (pid_t)atol(arg);
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        n++;
    } else if (strcmp(how, "nspace") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_NSPACE, arg, PMIX_STRING);
        n++;
    } else if (strcmp(how, "uri") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_URI, arg, PMIX_STRING);
        n++;
    } else if (strcmp(how, "file") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_ATTACHMENT_FILE, arg, PMIX_STRING);
        n++;
    } else if (strcmp(how, "none") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
        n++;
    }
    pmix_status_t rc = PMIx_tool_init(&it_me, n ? info : NULL, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        printf("tool_init %s\n", PMIx_Error_string(rc));
        return 2;
    }
    printf("tool %s:%u\n", it_me.nspace, (unsigned)it_me.rank);
    IT_CHECK(it_me.nspace[0] != '\0', "the tool got no namespace");
    if (strcmp(how, "none") != 0) {
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
        q.keys = keys;
        pmix_info_t *res = NULL;
        size_t nres = 0;
        IT_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, "PMIx_Query_info(namespaces)");
        IT_CHECK(nres == 1 && res[0].value.type == PMIX_STRING, "namespaces: %zu results", nres);
        printf("namespaces %s\n", res[0].value.data.string);
        if (expect)
            IT_CHECK(strstr(res[0].value.data.string, expect) != NULL,
                     "namespaces '%s' lack the job's '%s'", res[0].value.data.string, expect);
        PMIX_INFO_FREE(res, nres);
        q.keys = NULL;
        /* a request tools may not make is refused, the connection stays */
        pmix_value_t *val = NULL;
        pmix_proc_t any;
        PMIX_LOAD_PROCID(&any, expect ? expect : it_me.nspace, 0);
        rc = PMIx_Get(&any, PMIX_JOB_SIZE, NULL, 0, &val);
        IT_CHECK(rc != PMIX_SUCCESS, "PMIx_Get from a tool succeeded (not built yet)");
        if (val)
            PMIX_VALUE_RELEASE(val);
        IT_RC(PMIx_Query_info(&q, 0, &res, &nres), PMIX_ERR_BAD_PARAM, "PMIx_Query_info(none)");
    }
    IT_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "job") == 0)
        return job(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "tool") == 0)
        return tool(argc, argv);
    fprintf(stderr, "usage: it_tool job DIR | it_tool tool HOW [ARG] [NSPACE]\n");
    return 1;
}
