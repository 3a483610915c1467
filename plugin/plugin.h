/*
 * plugin.h - what the parts of mpi/spmix share: the environment variables
 * srun passes to the slurmstepds, and the entry points of the srun side
 * (srun.c) and of the slurmstepd side (stepd.c, stepd_host.c) that the
 * plugin symbols in mpi_spmix.c call.
 */
#ifndef SPX_PLG_PLUGIN_H
#define SPX_PLG_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "plugin/slurm_glue.h"

/* Set by srun in the step environment; the slurmstepds take them out of the
 * tasks' environment again (prefork). */
#define SPX_PLG_ENV_SECRET "SPMIX_STEP_SECRET"   /* hex, per-step random; without munge */
#define SPX_PLG_ENV_MAP "SPMIX_STEP_MAP"         /* ranks per node, layout.h */
#define SPX_PLG_ENV_SRUN_PORT "SPMIX_SRUN_PORT"  /* srun's abort listener */
#define SPX_PLG_ENV_APPS "SPMIX_STEP_APPS"       /* app of every rank, apps.h */
#define SPX_PLG_ENV_HET "SPMIX_STEP_HET"         /* "1": a heterogeneous step */

#define SPX_PLG_SECRET_LEN 32
#define SPX_PLG_SECRET_MAX 64

/* srun side */
mpi_plugin_client_state_t *spx_plg_srun_prelaunch(const mpi_step_info_t *job,
                                                  char ***env);
int spx_plg_srun_fini(void);

/* slurmstepd side */
int spx_plg_stepd_prefork(char ***env);
int spx_plg_stepd_task(const mpi_task_info_t *job, char ***env);
void spx_plg_stepd_fini(void);

/* stepd_host.c: the host module handed to PMIx_server_init. ctx is what the
 * abort upcall needs; copied. */
struct spx_plg_host_ctx {
    uint32_t jobid, stepid;
    char hostname[256];
    char srun_host[256];        /* SLURM_SRUN_COMM_HOST; "" when unknown */
    uint16_t srun_port;         /* 0 when unknown */
    bool munge;                 /* reports carry a munge credential (SPMIX_STEP_AUTH) */
    char munge_sock[256];       /* munged's socket; "" : libmunge's default */
    uint8_t secret[SPX_PLG_SECRET_MAX]; /* without munge */
    size_t secret_len;
};
void spx_plg_host_setup(const struct spx_plg_host_ctx *ctx);
void *spx_plg_host_module(void);   /* pmix_server_module_t * */

#endif
