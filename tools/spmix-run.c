/*
 * spmix-run: launch N processes of one program on this machine under
 * embedded PMIx servers, without Slurm, on one node or on M simulated nodes.
 *
 * Data flow: main() parses options and blocks the signals it handles (before
 * any PMIx library starts its threads, so only signalfd sees them). With one
 * node this process is the node (run_node: server, namespace, ranks,
 * supervision). With --nodes M it is the launcher (run_launch), which forks M
 * node daemons joined by the server's tree and supervises them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "run_launch.h"
#include "run_node.h"
#include "run_stale.h"

#include <pmix.h>

#include <dlfcn.h>
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Open MPI 4.x recognises a direct launch only by a resource manager it
 * knows (Slurm, Flux, LSF, ...); anything else it takes for a singleton and
 * tries to start its own daemon, which fails. Its "orte" personality is the
 * one that declares the singleton: leaving it out makes Open MPI use the PMIx
 * server it finds in the environment. Set before any thread exists; a value
 * the user set (environment or -x) wins. Open MPI 5 and other PMIx clients
 * do not read the variable. */
static void spx_run_hint_openmpi(void)
{
    if (setenv("OMPI_MCA_schizo", "^orte", 0) != 0)
        perror("spmix-run: setenv OMPI_MCA_schizo");
}

/* Programs linked to libpmix.so.2 (Open MPI, the pmix Python module) must
 * load the library this launcher uses, not another PMIx found first: the
 * directory holding it goes first in the ranks' LD_LIBRARY_PATH, as the Slurm
 * plugin does (SpmixSetLdLibraryPath). Called before any thread exists. */
static void spx_run_put_lib_first(void)
{
    Dl_info info;
    const char *old = getenv("LD_LIBRARY_PATH");
    char dir[4096], *slash, *v;
    size_t len;

    if (dladdr((void *)&PMIx_Init, &info) == 0 || info.dli_fname == NULL ||
        info.dli_fname[0] != '/' || strlen(info.dli_fname) >= sizeof(dir)) {
        fprintf(stderr, "spmix-run: cannot tell where libpmix.so.2 was loaded from; "
                        "LD_LIBRARY_PATH left as it is\n");
        return;
    }
    strcpy(dir, info.dli_fname);
    slash = strrchr(dir, '/');
    *(slash == dir ? slash + 1 : slash) = '\0';
    len = strlen(dir) + (old ? strlen(old) : 0) + 2;
    v = malloc(len);
    if (v == NULL)
        return;
    if (old != NULL && *old != '\0')
        snprintf(v, len, "%s:%s", dir, old);
    else
        snprintf(v, len, "%s", dir);
    if (setenv("LD_LIBRARY_PATH", v, 1) != 0)
        perror("spmix-run: setenv LD_LIBRARY_PATH");
    free(v);
}

/* The ranks' output pipes, their stdin pipes and the server's sockets take
 * several descriptors per rank, the launcher three pipes per node, and a node
 * server up to a link per other node (a push to every rank goes from one
 * server to each node): the soft RLIMIT_NOFILE goes up to the hard one, and
 * the hard one too when that is still short of what the job may need and
 * the process may raise it (CAP_SYS_RESOURCE). o->nofile keeps the old
 * limit, which the ranks get back. */
static void spx_run_raise_nofile(struct spx_run_opts *o)
{
    rlim_t need = 256 + 4 * (rlim_t)o->n + (o->nodes > 1 ? 4 * (rlim_t)o->nodes : 0);
    struct rlimit up, now;

    if (getrlimit(RLIMIT_NOFILE, &o->nofile) != 0)
        return;
    up = o->nofile;
    if (up.rlim_max != RLIM_INFINITY && up.rlim_max < need) {
        up.rlim_cur = up.rlim_max = need;   /* refused unless privileged */
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            o->nofile_raised = true;
        else
            up = o->nofile;
    }
    if (up.rlim_cur < up.rlim_max) {
        up.rlim_cur = up.rlim_max == RLIM_INFINITY || up.rlim_max > (1u << 20) ? (1u << 20)
                                                                               : up.rlim_max;
        if (up.rlim_cur > o->nofile.rlim_cur && setrlimit(RLIMIT_NOFILE, &up) == 0)
            o->nofile_raised = true;
    }
    if (getrlimit(RLIMIT_NOFILE, &now) == 0 && now.rlim_cur < need)
        fprintf(stderr, "spmix-run: %u ranks on %u nodes may need %llu file descriptors, and "
                        "the limit is %llu (ulimit -Hn); the job may fail to open pipes or "
                        "sockets\n", o->n, o->nodes, (unsigned long long)need,
                (unsigned long long)now.rlim_cur);
}

static void spx_run_usage(FILE *f)
{
    fprintf(f, "usage: spmix-run -n N [--nodes M [--map block|cyclic] [--width W] [--stats]]\n"
               "                 [--timeout SEC] [--tag-output | -u] [--no-lib-path] [--keep-going]\n"
               "                 [--stdin tool] [--output-tap]\n"
               "                 [-x VAR[=VALUE]]... [--] program [args...]\n"
               "Run N ranks of program under embedded PMIx servers, on this host or on M\n"
               "simulated nodes (node k at 127.0.(k/254).(k%%254+1)).\n"
               "The ranks' stdout and stderr are forwarded by whole lines, as srun does: a\n"
               "partial line waits for its newline (or the stream's end, or 64 KiB), so lines\n"
               "of different ranks never mix. --tag-output prefixes each with \"[rank] \".\n"
               "-u (--unbuffered): bytes as the ranks write them (a prompt without a newline\n"
               "shows at once; lines of different ranks may mix); not with --tag-output.\n"
               "--keep-going (or --enable-recovery): a rank that dies before PMIx_Finalize, or\n"
               "a node's daemon that dies, does not end the job: the others get the events\n"
               "and failed collectives and go on; the exit status is then non-zero.\n"
               "--stdin tool: each rank's stdin is a pipe fed by tools (PMIx_IOF_push) instead\n"
               "of spmix-run's stdin; it stays open until a tool pushes EOF to that rank (a\n"
               "zero-byte push, or one with PMIX_IOF_COMPLETE) or the job ends. Bytes from\n"
               "one tool arrive in the order pushed.\n"
               "--output-tap (or SPMIX_OUTPUT_TAP=1): the ranks' stdout and stderr also go to\n"
               "tools (PMIx_IOF_pull); what spmix-run writes stays byte for byte the same.\n");
}

/* A whole number in lo..hi, or -1 with a message naming the option. */
static long spx_run_number(const char *arg, const char *opt, long lo, long hi)
{
    char *end;
    long v = strtol(arg, &end, 10);

    if (*arg == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "spmix-run: %s wants a number in %ld..%ld\n", opt, lo, hi);
        return -1;
    }
    return v;
}

static int spx_run_parse(int argc, char **argv, struct spx_run_opts *o)
{
    static const struct option opts[] = {
        { "np", required_argument, NULL, 'n' },
        { "nodes", required_argument, NULL, 'N' },
        { "map", required_argument, NULL, 'm' },
        { "width", required_argument, NULL, 'w' },
        { "stats", no_argument, NULL, 's' },
        { "timeout", required_argument, NULL, 't' },
        { "tag-output", no_argument, NULL, 'T' },
        { "export", required_argument, NULL, 'x' },
        { "no-lib-path", no_argument, NULL, 'L' },
        { "keep-going", no_argument, NULL, 'k' },
        { "enable-recovery", no_argument, NULL, 'k' },
        { "stdin", required_argument, NULL, 'S' },
        { "output-tap", no_argument, NULL, 'O' },
        { "unbuffered", no_argument, NULL, 'u' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    long v;
    char *end;

    o->nodes = 1;
    {
        const char *tap = getenv("SPMIX_OUTPUT_TAP");
        o->tap = tap != NULL && strcmp(tap, "1") == 0;
    }
    o->xvars = calloc((size_t)argc, sizeof(char *));
    if (o->xvars == NULL)
        return -1;
    while ((c = getopt_long(argc, argv, "+n:x:hu", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if ((v = spx_run_number(optarg, "-n", 1, SPX_RUN_MAX_PROCS)) < 0)
                return -1;
            o->n = (uint32_t)v;
            break;
        case 'N':
            if ((v = spx_run_number(optarg, "--nodes", 1, SPX_RUN_MAX_NODES)) < 0)
                return -1;
            o->nodes = (uint32_t)v;
            break;
        case 'm':
            if (strcmp(optarg, "block") != 0 && strcmp(optarg, "cyclic") != 0) {
                fprintf(stderr, "spmix-run: --map wants block or cyclic\n");
                return -1;
            }
            o->cyclic = strcmp(optarg, "cyclic") == 0;
            break;
        case 'w':
            if ((v = spx_run_number(optarg, "--width", 2, 1024)) < 0)
                return -1;
            o->width = (uint32_t)v;
            break;
        case 's':
            o->stats = true;
            break;
        case 't':
            o->timeout = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(o->timeout > 0)) {
                fprintf(stderr, "spmix-run: --timeout wants a positive number of seconds\n");
                return -1;
            }
            break;
        case 'T':
            o->tag = true;
            break;
        case 'x':
            o->xvars[o->nx++] = optarg;
            break;
        case 'L':
            o->no_lib_path = true;
            break;
        case 'k':
            o->keep_going = true;
            break;
        case 'S':
            if (strcmp(optarg, "tool") != 0 && strcmp(optarg, "inherit") != 0) {
                fprintf(stderr, "spmix-run: --stdin wants tool or inherit\n");
                return -1;
            }
            o->stdin_tool = strcmp(optarg, "tool") == 0;
            break;
        case 'O':
            o->tap = true;
            break;
        case 'u':
            o->raw = true;
            break;
        case 'h':
            spx_run_usage(stdout);
            exit(0);
        default:
            spx_run_usage(stderr);
            return -1;
        }
    }
    if (o->n == 0 || optind >= argc) {
        spx_run_usage(stderr);
        return -1;
    }
    if (o->n < o->nodes) {
        fprintf(stderr, "spmix-run: %u ranks cannot fill %u nodes (every node needs a rank)\n",
                o->n, o->nodes);
        return -1;
    }
    if (o->raw && o->tag) {
        fprintf(stderr, "spmix-run: --unbuffered and --tag-output do not go together "
                        "(a tag needs whole lines)\n");
        return -1;
    }
    if (o->stats && o->nodes == 1)
        fprintf(stderr, "spmix-run: --stats: one node has no tree; nothing to report\n");
    o->argv = &argv[optind];
    return 0;
}

int main(int argc, char **argv)
{
    struct spx_run_opts o = { 0 };
    char nspace[PMIX_MAX_NSLEN + 1];
    sigset_t set, oldmask;
    int code;

    if (spx_run_parse(argc, argv, &o) < 0) {
        free(o.xvars);
        return 2;
    }
    snprintf(nspace, sizeof(nspace), "spmix-run.%d", (int)getpid());
    if (getenv("SPMIX_RUN_NSPACE") && getenv("SPMIX_RUN_NSPACE")[0]) /* a fixed name (tests) */
        snprintf(nspace, sizeof(nspace), "%s", getenv("SPMIX_RUN_NSPACE"));
    spx_run_hint_openmpi();
    /* what killed jobs of this user left in the temporary directory */
    const char *td = getenv("TMPDIR");
    spx_run_remove_stale(td && *td ? td : "/tmp");
    spx_run_raise_nofile(&o);
    if (!o.no_lib_path)
        spx_run_put_lib_first();
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, &oldmask) != 0) {
        perror("spmix-run: sigprocmask");
        return 1;
    }
    if (o.nodes > 1) {
        code = spx_run_launch(&o, nspace, &oldmask);
    } else {
        struct spx_run_node_cfg cfg = { .o = &o, .index = 0, .nspace = nspace,
                                        .report_fd = -1, .ctl_fd = -1, .rank_err = 2 };
        code = spx_run_node_main(&cfg, &oldmask);
    }
    free(o.xvars);
    return code;
}
