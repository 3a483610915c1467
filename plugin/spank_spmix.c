/* spank_spmix.c - the SPANK plugin that gives srun the step options of
 * mpi_spmix (listed by `srun --help`; plugstack.conf line in
 * slurm-conf-examples/plugstack.conf):
 *
 *   --spmix-stdin=tool|srun
 *       tool: each task's stdin merges srun's stdin with what PMIx tools push
 *       (spmix-push), and ends once both ended; srun: srun's stdin only,
 *       whatever mpi.conf's SpmixStdinTool says. The same as SPMIX_STDIN=...
 *       in srun's environment, which the option overrides.
 *
 * How the choice reaches mpi_spmix: the option is set in the step's
 * environment as SPMIX_STDIN, which the MPI plugin reads (and removes) in
 * slurmstepd before the tasks start. In srun (local context) it goes into
 * srun's own environment, which srun passes on unless --export limits it; in
 * slurmstepd (remote context, before the MPI plugin's hooks) it is set in the
 * step's environment as well, so that --export=NONE steps get it too.
 *
 * The plugin does nothing for steps that do not use --mpi=spmix: the
 * variable is read only by mpi_spmix.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

/* Slurm finds these by name: visible whatever the build's default */
#pragma GCC visibility push(default)
SPANK_PLUGIN(spmix, 1);

/* The value given to --spmix-stdin ("tool" or "srun"), "" when not given. */
static char stdin_choice[8];

static int stdin_option(int val, const char *optarg, int remote)
{
    (void)val;
    if (optarg == NULL || (strcmp(optarg, "tool") != 0 && strcmp(optarg, "srun") != 0)) {
        slurm_error("spmix: --spmix-stdin=%s: the value is tool or srun",
                    optarg ? optarg : "(none)");
        return -1;
    }
    strcpy(stdin_choice, optarg);
    (void)remote;
    return 0;
}

struct spank_option spank_options[] = {
    {"spmix-stdin", "tool|srun",
     "[--mpi=spmix] tasks' stdin: tool = srun's stdin merged with PMIx tools' pushes "
     "(spmix-push), ended once both ended; srun = srun's stdin only",
     1, 0, stdin_option},
    SPANK_OPTIONS_TABLE_END};
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
#pragma GCC visibility pop

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (stdin_choice[0] == '\0')
        return 0;
    if (spank_context() == S_CTX_LOCAL) {
        if (setenv("SPMIX_STDIN", stdin_choice, 1) != 0) {
            slurm_error("spmix: cannot set SPMIX_STDIN for --spmix-stdin");
            return -1;
        }
    } else if (spank_context() == S_CTX_REMOTE) {
        spank_err_t rc = spank_setenv(sp, "SPMIX_STDIN", stdin_choice, 1);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("spmix: --spmix-stdin: cannot set SPMIX_STDIN in the step: %s",
                        spank_strerror(rc));
            return -1;
        }
    }
    return 0;
}
