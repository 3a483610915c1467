/*
 * stepd_host.c - the host module mpi/spmix hands to PMIx_server_init in
 * slurmstepd. In multi-node mode the library itself runs fences, direct
 * modex, event relay and failure detection over its tree, so the host only
 * answers what Slurm must decide:
 *   abort        - PMIx_Abort of a rank: log it, report it to srun's abort
 *                  agent (so srun prints the message and exits with the
 *                  status), release the caller, then kill the whole step
 *                  (slurm_kill_job_step, public libslurm API, SIGKILL).
 *   job_control  - lib/host's default (host/module.h): the cleanup
 *                  registrations Open MPI makes at init are accepted (the
 *                  per-step directory is removed at fini).
 *   push_stdin   - a tool's PMIx_IOF_push: with the opt-in stdin
 *                  (stepd_stdin.h) queued for the stdin pump
 *                  (host/stdin.h); without it PMIX_ERR_NOT_AVAILABLE (the
 *                  tasks' stdin is Slurm's), with one log line per step
 *                  saying how to turn it on.
 * The abort upcall itself is lib/host's default too: it calls
 * spx_plg_host_abort_report before releasing the rank and
 * spx_plg_host_abort_kill after.
 * All upcalls run on the library's progress thread. The abort report is a
 * short blocking exchange (bounded by SPX_PLG_REPORT_MS): the step is being
 * torn down at that point and nothing else needs the thread.
 */
#include "config.h"
#include "plugin/abort_msg.h"
#include "plugin/conf.h"
#include "plugin/plugin.h"
#include "plugin/stepd_stdin.h"
#include "host/module.h"
#include "host/stdin.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#define SPX_PLG_REPORT_MS 3000

static struct spx_plg_host_ctx spx_plg_host;

void spx_plg_host_setup(const struct spx_plg_host_ctx *ctx)
{
    spx_plg_host = *ctx;
}

/* Connects to host:port within ms; returns a blocking fd or -1. */
static int spx_plg_connect(const char *host, uint16_t port, int ms)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
    char ps[8];
    int fd = -1;

    snprintf(ps, sizeof(ps), "%u", port);
    if (getaddrinfo(host, ps, &hints, &res) != 0 || res == NULL)
        return -1;
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int err = 0;
        socklen_t el = sizeof(err);
        if (errno != EINPROGRESS || poll(&p, 1, ms) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* Reads srun's nonce, sends the report made for it and waits for srun's
 * 'K'. 0 when acknowledged. */
static int spx_plg_report(uint32_t rank, int status, const char *msg)
{
    struct spx_plg_abort a = { .jobid = spx_plg_host.jobid, .stepid = spx_plg_host.stepid,
                               .rank = rank, .status = status };
    struct spx_plg_abort_auth au = {
        .munge = spx_plg_host.munge, .key = spx_plg_host.secret,
        .keylen = spx_plg_host.secret_len,
        .socket = spx_plg_host.munge_sock[0] ? spx_plg_host.munge_sock : NULL,
    };
    uint8_t buf[SPX_PLG_ABORT_MAX_WIRE], nonce[SPX_PLG_ABORT_NONCE];
    struct pollfd p;
    size_t len, got = 0;
    char ack = 0, why[256];
    int fd, rc = -1;

    if (spx_plg_host.srun_host[0] == '\0' || spx_plg_host.srun_port == 0)
        return -1;
    snprintf(a.host, sizeof(a.host), "%s", spx_plg_host.hostname);
    snprintf(a.text, sizeof(a.text), "%s", msg ? msg : "");
    fd = spx_plg_connect(spx_plg_host.srun_host, spx_plg_host.srun_port, SPX_PLG_REPORT_MS);
    if (fd < 0)
        return -1;
    p = (struct pollfd){ .fd = fd, .events = POLLIN };
    while (got < sizeof(nonce) && poll(&p, 1, SPX_PLG_REPORT_MS) == 1) {
        ssize_t n = read(fd, nonce + got, sizeof(nonce) - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got != sizeof(nonce)) {
        close(fd);
        return -1;
    }
    len = spx_plg_abort_pack(&a, &au, nonce, buf, why, sizeof(why));
    if (len == 0) {
        spx_plg_err("cannot prove the abort report to srun: %s", why);
        close(fd);
        return -1;
    }
    if (send(fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len && poll(&p, 1, SPX_PLG_REPORT_MS) == 1 &&
        read(fd, &ack, 1) == 1 && ack == 'K')
        rc = 0;
    close(fd);
    return rc;
}

/* Before the rank is released: log the abort and report it to srun. */
static void spx_plg_host_abort_report(const pmix_proc_t *proc, int status, const char *msg,
                                      void *arg)
{
    uint32_t rank = proc ? proc->rank : PMIX_RANK_UNDEF;

    (void)arg;
    spx_plg_err("step %u.%u: rank %u called PMIx_Abort with status %d: %s", spx_plg_host.jobid,
                spx_plg_host.stepid, rank, status, msg);
    if (spx_plg_report(rank, status, msg) != 0)
        spx_plg_err("could not report the abort to srun at %s:%u; srun will not show its "
                    "status", spx_plg_host.srun_host, spx_plg_host.srun_port);
}

/* After the rank is released: Slurm ends whole steps, so the abort always
 * takes every rank. */
static void spx_plg_host_abort_kill(const pmix_proc_t *proc, int status, const char *msg,
                                    void *arg)
{
    (void)proc;
    (void)status;
    (void)msg;
    (void)arg;
    if (spx_slurm_kill_step(spx_plg_host.jobid, spx_plg_host.stepid, SIGKILL) != 0)
        spx_plg_err("slurm_kill_job_step(%u.%u): %s", spx_plg_host.jobid, spx_plg_host.stepid,
                    slurm_strerror(errno));
}

/* A tool's PMIx_IOF_push reaching this node (library thread). With the
 * opt-in stdin the stdin pump takes it (never blocks here). Without it the
 * tasks' stdin is Slurm's own and nothing here can feed it, so every push is
 * refused at once (no callback), logged once per step. */
static pmix_status_t spx_plg_host_push_stdin(const pmix_proc_t *source,
                                             const pmix_proc_t targets[], size_t ntargets,
                                             const pmix_info_t directives[], size_t ndirs,
                                             const pmix_byte_object_t *bo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    static bool logged;   /* only the library's thread calls this */

    if (spx_plg_stdin_on())
        return spx_host_stdin_push(source, targets, ntargets, directives, ndirs, bo, cbfunc,
                                   cbdata);
    (void)targets;
    (void)ntargets;
    (void)directives;
    (void)ndirs;
    (void)bo;
    (void)cbfunc;
    (void)cbdata;
    if (!logged) {
        logged = true;
        spx_plg_err("step %u.%u: a tool (%s:%u) pushed stdin to the tasks on %s: refused "
                    "(PMIX_ERR_NOT_AVAILABLE): the tasks read srun's stdin only; to feed "
                    "them from tools start the step with SPMIX_STDIN=tool in its environment "
                    "or set SpmixStdinTool=yes in mpi.conf",
                    spx_plg_host.jobid, spx_plg_host.stepid, source ? source->nspace : "?",
                    source ? source->rank : PMIX_RANK_UNDEF, spx_plg_host.hostname);
    }
    return PMIX_ERR_NOT_AVAILABLE;
}

static pmix_server_module_t spx_plg_module = {
    .push_stdin = spx_plg_host_push_stdin,
};

void *spx_plg_host_module(void)
{
    const struct spx_host_abort_ops ops = { .record = spx_plg_host_abort_report,
                                            .act = spx_plg_host_abort_kill };

    spx_host_module_init(&spx_plg_module, &ops);   /* abort, job_control */
    return &spx_plg_module;
}
