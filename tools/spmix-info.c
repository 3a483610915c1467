/* spmix-info: what this spmix is and what it can reach (see spmix-info.1).
 *
 *   spmix-info [--servers]
 *   spmix-info --attrs [FUNCTION...]
 *
 * Prints the package and PMIx versions, the library a program loads, the
 * PMIx Standard ABI levels (PMIx_Query_info, answered by the library before
 * any init), the capabilities pmix_version.h defines; with --servers, the
 * spmix servers a PMIx tool of this user can attach to here (the rendezvous
 * files in $TMPDIR or /tmp, see PMIx_tool_init): process, namespace,
 * whether that process is alive, and the launcher of a node's server. With
 * --attrs, only the attributes each function honours (all functions, or
 * those named), as the library answers
 * PMIx_Query_info(PMIX_QUERY_ATTRIBUTE_SUPPORT): function, then per
 * attribute its name, key string, type and description. Exit status 0, 1 on
 * a usage error, 2 when a function named is not in the library's table.
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
               "       spmix-info --attrs [FUNCTION...]\n"
               "Shows this spmix's versions, library, ABI levels and capabilities.\n"
               "  --servers   also list the spmix servers a tool of this user can reach here\n"
               "  --attrs     the attributes each function honours (all, or the FUNCTIONs)\n"
               "  -h, --help  this text\n");
}

/* The levels of PMIX_QUERY_ATTRIBUTE_SUPPORT, in the order printed. */
static const struct {
    const char *qualifier, *label;
} levels[] = {{PMIX_CLIENT_ATTRIBUTES, "client"},
              {PMIX_TOOL_ATTRIBUTES, "tool"},
              {PMIX_SERVER_ATTRIBUTES, "server"},
              {PMIX_HOST_ATTRIBUTES, "host"}};

/* Asks the library which attributes the functions of fns (a comma list or
 * "all") honour at the level of qualifier; the status, the answer in *res. */
static pmix_status_t ask_attrs(const char *qualifier, const char *fns, pmix_info_t **res,
                               size_t *nres)
{
    pmix_query_t q;
    char *keys[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
    pmix_info_t qual;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_INFO_LOAD(&qual, qualifier, fns, PMIX_STRING);
    q.keys = keys;
    q.qualifiers = &qual;
    q.nqual = 1;
    *res = NULL;
    *nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

/* Prints the functions of one answer: the function and its level, then one
 * line per attribute. */
static void print_attrs(const pmix_info_t *res, size_t nres, const char *label)
{
    for (size_t r = 0; r < nres; r++) {
        if (strcmp(res[r].key, PMIX_QUERY_ATTRIBUTE_SUPPORT) != 0 ||
            res[r].value.type != PMIX_DATA_ARRAY || !res[r].value.data.darray ||
            res[r].value.data.darray->type != PMIX_INFO)
            continue;
        const pmix_info_t *fn = res[r].value.data.darray->array;
        for (size_t i = 0; i < res[r].value.data.darray->size; i++) {
            const pmix_data_array_t *d = fn[i].value.data.darray;
            if (fn[i].value.type != PMIX_DATA_ARRAY || !d || d->type != PMIX_REGATTR)
                continue; /* a function list */
            printf("%s (%s)\n", fn[i].key, label);
            const pmix_regattr_t *ra = d->array;
            for (size_t k = 0; k < d->size; k++) {
                if (ra[k].name && strcmp(ra[k].name, "NONE") == 0 && !ra[k].string[0]) {
                    printf("    (no attributes)\n");
                    continue;
                }
                printf("    %-30s %-22s %-16s %s\n", ra[k].name ? ra[k].name : "?", ra[k].string,
                       PMIx_Data_type_string(ra[k].type),
                       ra[k].description && ra[k].description[0] ? ra[k].description[0] : "");
            }
        }
    }
}

/* --attrs: every function of every level (fns NULL), or the functions named,
 * each at the first level that has it. 0, or 2 if one is unknown. */
static int attrs(char **fns, int nfns)
{
    int status = 0;
    pmix_info_t *res;
    size_t nres;
    if (nfns == 0) {
        for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++)
            if (ask_attrs(levels[l].qualifier, "all", &res, &nres) == PMIX_SUCCESS) {
                print_attrs(res, nres, levels[l].label);
                PMIX_INFO_FREE(res, nres);
            }
        return 0;
    }
    for (int f = 0; f < nfns; f++) {
        pmix_status_t rc = PMIX_ERR_NOT_FOUND;
        for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]) && rc != PMIX_SUCCESS; l++) {
            rc = ask_attrs(levels[l].qualifier, fns[f], &res, &nres);
            if (rc == PMIX_SUCCESS) {
                print_attrs(res, nres, levels[l].label);
                PMIX_INFO_FREE(res, nres);
            } else if (rc != PMIX_ERR_NOT_FOUND) {
                break;
            }
        }
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "spmix-info: %s: %s\n", fns[f],
                    rc == PMIX_ERR_NOT_FOUND ? "not a function of this library's table "
                                               "(PMIX_ERR_NOT_FOUND)"
                                             : PMIx_Error_string(rc));
            status = 2;
        }
    }
    return status;
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

/* The rendezvous files of dir this user may read: pid, namespace, alive,
 * and the launcher whose job a node's server serves. */
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
        char path[4096], uri[4096] = "", ns[512] = "", node[64] = "";
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
        else if (!fgets(node, sizeof(node), f)) /* "launcher <pid>": a node of its job */
            node[0] = '\0';
        fclose(f);
        ns[strcspn(ns, "\n")] = '\0';
        node[strcspn(node, "\n")] = '\0';
        long pid = strtol(e->d_name + sizeof(prefix) - 1, NULL, 10);
        bool alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
        printf("  pid %-8ld %-40s %s%s%s%s\n", pid, ns[0] ? ns : "(unreadable)",
               alive ? "running" : "gone (a stale file)", node[0] ? " (a node of " : "", node,
               node[0] ? ")" : "");
        count++;
    }
    closedir(d);
    if (!count)
        printf("  none\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"servers", no_argument, NULL, 's'},
                                         {"attrs", no_argument, NULL, 'a'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int list = 0, want_attrs = 0, c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': list = 1; break;
        case 'a': want_attrs = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
    }
    if (want_attrs && !list)
        return attrs(argv + optind, argc - optind);
    if (optind < argc || want_attrs) {
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
    printf("tools:               PMIx_tool_init, attach_to_server (several servers at once, "
           "one primary), Query_info, Get, IOF_push, IOF_pull\n"
           "                     (spmix-run --stdin tool / --output-tap; under Slurm "
           "srun --spmix-stdin=tool / --spmix-output=tool)\n");
    if (list)
        servers();
    return 0;
}
