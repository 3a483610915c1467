/*
 * stepd_output.h - the opt-in output tap of mpi/spmix: what a step's tasks
 * write on stdout and stderr reaches srun unchanged and, through
 * PMIx_server_IOF_deliver, the PMIx tools that pull it (PMIx_IOF_pull). On
 * when mpi.conf has SpmixOutputTap=yes or the step's environment
 * SPMIX_OUTPUT=tool (srun --spmix-output=tool); off (the default) nothing
 * here runs and the tasks write to Slurm's descriptors directly.
 *
 * slurmstepd (root), prefork: a unix socket output.sock in the step
 * directory (mode 0600, owned by the job's uid; peers checked by
 * SO_PEERCRED) and the output pump thread.
 * Task child (as the user): for fd 1 and fd 2 (each unless it is a
 * terminal, srun --pty) a pipe; Slurm's descriptor and the pipe's read end
 * go to the pump (SCM_RIGHTS); once it acknowledges, the pipe's write end
 * becomes the task's fd. The pump writes every byte it reads to Slurm's
 * descriptor, in order, and hands the same bytes to the server; the pipe's
 * end of file closes Slurm's descriptor.
 */
#ifndef SPX_PLG_STEPD_OUTPUT_H
#define SPX_PLG_STEPD_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

/* slurmstepd, prefork: dir is the step directory (exists, owned by uid);
 * nspace the step's namespace (the source of what is delivered); label
 * prefixes log lines. 0 or -1 (logged). */
int spx_plg_output_start(const char *dir, uint32_t uid, const char *nspace, const char *label);
/* The tap is on in this slurmstepd (start succeeded). */
bool spx_plg_output_on(void);
/* Task child, before exec: hands fd 1 and 2 to the pump and takes the pipes.
 * Never fails the task: whatever goes wrong leaves the fd as Slurm made it. */
void spx_plg_output_task(uint32_t rank);
/* slurmstepd, fini, before PMIx_server_finalize: what the tasks wrote is
 * written on to Slurm (up to a few seconds for a slow reader), the pump
 * stops and every descriptor is closed. */
void spx_plg_output_stop(void);

#endif
