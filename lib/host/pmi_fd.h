/* host/pmi_fd: the task side of the PMI wire connection. PMIx_server_setup_fork
 * puts PMI_FD=<n> in a rank's environment; that descriptor is open in the
 * host with close-on-exec set (every other task must not inherit it), so
 * the forked task clears the flag on its own copy before it executes the
 * program. Used by spmix-run's child and the Slurm plugin's task hook.
 */
#ifndef SPX_HOST_PMI_FD_H
#define SPX_HOST_PMI_FD_H

/* Between fork and exec (async-signal-safe: no allocation): finds PMI_FD
 * in the NULL-terminated env (borrowed) and clears its close-on-exec flag.
 * 0 (also when env has no PMI_FD), or -1 when the value is not a
 * descriptor number or fcntl fails. */
int spx_host_pmi_fd_keep(char *const *env);

#endif
