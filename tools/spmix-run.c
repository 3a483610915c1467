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

#include <pmix_common.h>

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void spx_run_usage(FILE *f)
{
    fprintf(f, "usage: spmix-run -n N [--nodes M [--map block|cyclic] [--width W] [--stats]]\n"
               "                 [--timeout SEC] [--tag-output] [-x VAR[=VALUE]]... "
               "[--] program [args...]\n"
               "Run N ranks of program under embedded PMIx servers, on this host or on M\n"
               "simulated nodes (node k at 127.0.0.(k+1)).\n");
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
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    long v;
    char *end;

    o->nodes = 1;
    o->xvars = calloc((size_t)argc, sizeof(char *));
    if (o->xvars == NULL)
        return -1;
    while ((c = getopt_long(argc, argv, "+n:x:h", opts, NULL)) != -1) {
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
