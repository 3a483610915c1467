/* spmix-info: what this spmix is and what it can reach (see spmix-info.1).
 *
 *   spmix-info [--servers]
 *
 * Prints the package and PMIx versions, the library a program loads, the
 * PMIx Standard ABI levels (PMIx_Query_info, answered by the library before
 * any init), the capabilities pmix_version.h defines; with --servers, the
 * spmix servers a PMIx tool of this user can attach to here (the rendezvous
 * files in $TMPDIR or /tmp, see PMIx_tool_init): process, namespace,
 * whether that process is alive. Exit status 0, 1 on a usage error.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_version.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: spmix-info [--servers]\n"
               "Shows this spmix's versions, library, ABI levels and capabilities.\n"
               "  --servers   also list the spmix servers a tool of this user can reach here\n"
               "  -h, --help  this text\n");
}

static void abi_levels(void)
{
    pmix_query_t q;
    char *keys[] = {PMIX_QUERY_STABLE_ABI_VERSION, PMIX_QUERY_PROVISIONAL_ABI_VERSION, NULL};
    pmix_info_t *res = NULL;
    size_t n = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = keys;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &n);
    q.keys = NULL;
    if (rc != PMIX_SUCCESS) {
        printf("PMIx Standard ABI:   (query failed: %s)\n", PMIx_Error_string(rc));
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (res[i].value.type == PMIX_STRING)
            printf("PMIx Standard ABI:   %s %s\n",
                   strcmp(res[i].key, PMIX_QUERY_STABLE_ABI_VERSION) == 0 ? "stable     "
                                                                           : "provisional",
                   res[i].value.data.string);
    PMIX_INFO_FREE(res, n);
}

/* The rendezvous files of dir this user may read: pid, namespace, alive. */
static void servers(void)
{
    const char *dir = getenv("PMIX_SYSTEM_TMPDIR");
    if (!dir || !*dir)
        dir = getenv("PMIX_SERVER_TMPDIR");
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    DIR *d = opendir(dir);
    if (!d) {
        printf("servers in %s:      (cannot read it: %s)\n", dir, strerror(errno));
        return;
    }
    printf("servers in %s (rendezvous files of tools):\n", dir);
    int count = 0;
    struct dirent *e;
    static const char prefix[] = "spmix.tool.";
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, sizeof(prefix) - 1) != 0)
            continue;
        char path[4096], uri[4096] = "", ns[512] = "";
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f || fstat(fileno(f), &st) != 0 || (st.st_uid != geteuid() && st.st_uid != 0)) {
            if (f)
                fclose(f);
            continue; /* another user's: a tool of ours could not attach anyway */
        }
        if (!fgets(uri, sizeof(uri), f) || !fgets(ns, sizeof(ns), f))
            ns[0] = '\0';
        fclose(f);
        ns[strcspn(ns, "\n")] = '\0';
        long pid = strtol(e->d_name + sizeof(prefix) - 1, NULL, 10);
        bool alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
        printf("  pid %-8ld %-40s %s\n", pid, ns[0] ? ns : "(unreadable)",
               alive ? "running" : "gone (a stale file)");
        count++;
    }
    closedir(d);
    if (!count)
        printf("  none\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"servers", no_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int list = 0, c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': list = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 1;
    }
    Dl_info dl;
    printf("spmix:               %s\n", PACKAGE_VERSION);
    printf("PMIx:                %s\n", PMIx_Get_version());
    printf("library:             %s\n",
           dladdr((void *)PMIx_Get_version, &dl) && dl.dli_fname ? dl.dli_fname : "(unknown)");
    abi_levels();
    printf("capabilities:        PMIX_CAP_GROUP_JOIN_COMPLETES (PMIx_Group_join returns "
           "when the group is built)\n"
           "                     PMIX_CAP_DATA_DELETE (PMIX_DEL_* scopes remove keys)\n");
    printf("tools:               PMIx_tool_init, Query_info, IOF_push (spmix-run --stdin tool);\n"
           "                     under Slurm: attach, IOF_push not available yet\n");
    if (list)
        servers();
    return 0;
}
