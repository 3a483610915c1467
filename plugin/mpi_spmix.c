/*
 * mpi_spmix.c - the symbols Slurm (22.05 to 26.05) looks up in an MPI plugin.
 *
 * Who calls what: slurmctld and slurmd load the plugin at start-up for its
 * mpi.conf options (conf_options, conf_set, conf_get, conf_get_printable);
 * srun calls client_prelaunch before the launch and client_fini after the
 * step (srun.c); slurmstepd calls slurmstepd_prefork as root before forking
 * the tasks, slurmstepd_task in each task child just before exec, and fini
 * when the step is over (stepd.c). Built as mpi_spmix.so (type mpi/spmix),
 * or with --enable-pmix-typename as mpi_pmix.so (type mpi/pmix, a drop-in
 * for `srun --mpi=pmix`).
 */
#include "config.h"
#include "plugin/conf.h"
#include "plugin/plugin.h"

#ifndef SPX_PLG_TYPENAME
#define SPX_PLG_TYPENAME "spmix"
#endif
#ifndef SPX_PLG_ID
#define SPX_PLG_ID 190
#endif

#define SPX_PLG_PUBLIC __attribute__((visibility("default")))

SPX_PLG_PUBLIC const char plugin_name[] = "spmix PMIx plugin";
SPX_PLG_PUBLIC const char plugin_type[] = "mpi/" SPX_PLG_TYPENAME;
SPX_PLG_PUBLIC const uint32_t plugin_id = SPX_PLG_ID;
SPX_PLG_PUBLIC const uint32_t plugin_version = SLURM_VERSION_NUMBER;

SPX_PLG_PUBLIC int init(void);
SPX_PLG_PUBLIC int fini(void);
SPX_PLG_PUBLIC void mpi_p_conf_options(s_p_options_t **full_options, int *full_options_cnt);
SPX_PLG_PUBLIC void mpi_p_conf_set(s_p_hashtbl_t *tbl);
SPX_PLG_PUBLIC s_p_hashtbl_t *mpi_p_conf_get(void);
SPX_PLG_PUBLIC spx_slurm_list_t mpi_p_conf_get_printable(void);
SPX_PLG_PUBLIC mpi_plugin_client_state_t *mpi_p_client_prelaunch(
    const mpi_step_info_t *job, char ***env);
SPX_PLG_PUBLIC int mpi_p_client_fini(mpi_plugin_client_state_t *state);
SPX_PLG_PUBLIC int mpi_p_slurmstepd_prefork(const stepd_step_rec_t *job, char ***env);
SPX_PLG_PUBLIC int mpi_p_slurmstepd_task(const mpi_task_info_t *job, char ***env);

int init(void)
{
    spx_plg_conf_defaults();
    slurm_debug("%s loaded", plugin_type);
    return SLURM_SUCCESS;
}

int fini(void)
{
    spx_plg_stepd_fini();
    spx_plg_srun_fini();
    spx_plg_conf_free();
    return SLURM_SUCCESS;
}

void mpi_p_conf_options(s_p_options_t **full_options, int *full_options_cnt)
{
    spx_plg_conf_options(full_options, full_options_cnt);
}

void mpi_p_conf_set(s_p_hashtbl_t *tbl)
{
    spx_plg_conf_set(tbl);
}

s_p_hashtbl_t *mpi_p_conf_get(void)
{
    return spx_plg_conf_get();
}

spx_slurm_list_t mpi_p_conf_get_printable(void)
{
    return spx_plg_conf_get_printable();
}

mpi_plugin_client_state_t *mpi_p_client_prelaunch(const mpi_step_info_t *job,
                                                  char ***env)
{
    return spx_plg_srun_prelaunch(job, env);
}

/* The value returned here becomes srun's exit code when it is not 0. */
int mpi_p_client_fini(mpi_plugin_client_state_t *state)
{
    (void)state;
    return spx_plg_srun_fini();
}

int mpi_p_slurmstepd_prefork(const stepd_step_rec_t *job, char ***env)
{
    (void)job;   /* opaque: everything comes from the step environment */
    return spx_plg_stepd_prefork(env);
}

int mpi_p_slurmstepd_task(const mpi_task_info_t *job, char ***env)
{
    return spx_plg_stepd_task(job, env);
}
