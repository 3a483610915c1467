/*
 * run_stdin: spmix-run --stdin tool (see run_stdin.h). The ranks' pipes, the
 * per-rank cache and the push rules are lib/host's (host/stdin.h), shared
 * with the Slurm plugin; this file makes the pipes at init (spmix-run forks
 * the ranks itself) and refuses pushes to a job started without --stdin tool.
 */
#include "config.h"
#include "run_stdin.h"
#include "host/stdin.h"

#include <stdio.h>

static bool spx_run_stdin_on;
static char spx_run_stdin_prefix[64];

int spx_run_stdin_init(bool enabled, const char *nspace, uint32_t nprocs, const uint32_t *local,
                       uint32_t nlocal, int wake_fd, const char *prefix)
{
    struct spx_host_stdin_cfg cfg = { .nspace = nspace, .nprocs = nprocs, .local = local,
                                      .nlocal = nlocal, .wake_fd = wake_fd, .prefix = prefix,
                                      .make_pipes = true };

    spx_run_stdin_on = enabled;
    snprintf(spx_run_stdin_prefix, sizeof(spx_run_stdin_prefix), "%s", prefix);
    return enabled ? spx_host_stdin_init(&cfg) : 0;
}

int spx_run_stdin_child_fd(uint32_t slot)
{
    return spx_run_stdin_on ? spx_host_stdin_child_fd(slot) : -1;
}

void spx_run_stdin_spawned(uint32_t slot, bool ok)
{
    spx_host_stdin_spawned(slot, ok);
}

pmix_status_t spx_run_stdin_push(const pmix_proc_t *source, const pmix_proc_t targets[],
                                 size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                 const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                 void *cbdata)
{
    if (!spx_run_stdin_on) {
        fprintf(stderr, "%sa tool (%s:%u) pushed stdin, but this job was not started with "
                        "--stdin tool: refused\n", spx_run_stdin_prefix, source ? source->nspace : "?",
                source ? source->rank : PMIX_RANK_UNDEF);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return spx_host_stdin_push(source, targets, ntargets, directives, ndirs, bo, cbfunc, cbdata);
}

size_t spx_run_stdin_npoll(void)
{
    return spx_host_stdin_npoll();
}

void spx_run_stdin_poll_fill(struct pollfd *pfd)
{
    spx_host_stdin_poll_fill(pfd);
}

int spx_run_stdin_poll_ms(void)
{
    return spx_host_stdin_poll_ms();
}

void spx_run_stdin_service(const struct pollfd *pfd)
{
    spx_host_stdin_service(pfd);
}

void spx_run_stdin_rank_gone(uint32_t slot)
{
    spx_host_stdin_rank_gone(slot);
}

void spx_run_stdin_close(void)
{
    spx_host_stdin_close();
}

void spx_run_stdin_fini(void)
{
    spx_host_stdin_fini();
    spx_run_stdin_on = false;
}
