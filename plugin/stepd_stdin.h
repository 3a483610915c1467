/*
 * stepd_stdin.h - the opt-in stdin of mpi/spmix: a step's tasks read tools'
 * pushes (PMIx_IOF_push) merged with srun's own stdin. On when mpi.conf has
 * SpmixStdinTool=yes or the step's environment SPMIX_STDIN=tool; off (the
 * default) nothing here runs and the tasks' stdin is Slurm's alone.
 *
 * slurmstepd (root), prefork: a unix socket stdin.sock in the step directory
 * (mode 0700, owned by the job's uid; peers checked by SO_PEERCRED), the
 * per-rank caches of lib/host (host/stdin.h) and the stdin pump thread.
 * Task child (as the user, fd 0 = Slurm's stdin): a pipe; fd 0 and the
 * pipe's write end go to the pump (SCM_RIGHTS); once it acknowledges, the
 * pipe's read end becomes fd 0. A terminal (srun --pty) is left alone and
 * the pump told: pushes to that rank fail with PMIX_ERR_NOT_SUPPORTED.
 */
#ifndef SPX_PLG_STEPD_STDIN_H
#define SPX_PLG_STEPD_STDIN_H

#include <stdbool.h>
#include <stdint.h>

/* slurmstepd, prefork, before PMIx_server_init: dir is the step directory
 * (exists, owned by uid); label prefixes log lines. 0 or -1 (logged). */
int spx_plg_stdin_start(const char *dir, uint32_t uid, const char *nspace, uint32_t nprocs,
                        const uint32_t *local, uint32_t nlocal, const char *label);
/* The option is on in this slurmstepd (start succeeded). */
bool spx_plg_stdin_on(void);
/* Task child, before exec: hands fd 0 to the pump and takes the pipe. Never
 * fails the task: whatever goes wrong leaves fd 0 as Slurm made it. */
void spx_plg_stdin_task(uint32_t rank);
/* slurmstepd, fini, before PMIx_server_finalize: the pump stops, pushes
 * still held complete with PMIX_ERR_UNREACH, later ones are refused. */
void spx_plg_stdin_stop(void);
/* After PMIx_server_finalize: frees the rest. */
void spx_plg_stdin_fini(void);

#endif
