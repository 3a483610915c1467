/* spank_spmix.c - the SPANK plugin that gives srun the step options of
 * mpi_spmix (listed by `srun --help`; plugstack.conf line in
 * slurm-conf-examples/plugstack.conf):
 *
 *   --spmix-stdin=tool|srun
 *       tool: each task's stdin merges srun's stdin with what PMIx tools push
 *       (spmix-push), and ends once both ended; srun: srun's stdin only,
 *       whatever mpi.conf's SpmixStdinTool says. The same as SPMIX_STDIN=...
 *       in srun's environment, which the option overrides.
 *   --spmix-output=tool|srun
 *       tool: what the tasks write on stdout and stderr also reaches PMIx
 *       tools that pull it (PMIx_IOF_pull); srun gets it unchanged either
 *       way. srun: the tasks write to Slurm directly, whatever mpi.conf's
 *       SpmixOutputTap says. The same as SPMIX_OUTPUT=...
 *
 * How a choice reaches mpi_spmix: it is set in the step's environment
 * (SPMIX_STDIN, SPMIX_OUTPUT), which the MPI plugin reads (and removes) in
 * slurmstepd before the tasks start. In srun (local context) it goes into
 * srun's own environment, which srun passes on unless --export limits it; in
 * slurmstepd (remote context, before the MPI plugin's hooks) it is set in the
 * step's environment as well, so that --export=NONE steps get it too.
 *
 * The plugin does nothing for steps that do not use --mpi=spmix: the
 * variables are read only by mpi_spmix.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

/* Slurm finds these by name: visible whatever the build's default */
#pragma GCC visibility push(default)
SPANK_PLUGIN(spmix, 1);

/* The values given ("tool" or "srun"), "" when not given. */
static char stdin_choice[8], output_choice[8];

static int take_choice(const char *opt, const char *optarg, char *out)
{
    if (optarg == NULL || (strcmp(optarg, "tool") != 0 && strcmp(optarg, "srun") != 0)) {
        slurm_error("spmix: --%s=%s: the value is tool or srun", opt, optarg ? optarg : "(none)");
        return -1;
    }
    strcpy(out, optarg);
    return 0;
}

static int stdin_option(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    return take_choice("spmix-stdin", optarg, stdin_choice);
}

static int output_option(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    return take_choice("spmix-output", optarg, output_choice);
}

struct spank_option spank_options[] = {
    {"spmix-stdin", "tool|srun",
     "[--mpi=spmix] tasks' stdin: tool = srun's stdin merged with PMIx tools' pushes "
     "(spmix-push), ended once both ended; srun = srun's stdin only",
     1, 0, stdin_option},
    {"spmix-output", "tool|srun",
     "[--mpi=spmix] tasks' stdout/stderr: tool = also to PMIx tools that pull it "
     "(srun gets it unchanged); srun = to srun only",
     1, 0, output_option},
    SPANK_OPTIONS_TABLE_END};
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
#pragma GCC visibility pop

/* Sets var to choice in the step's environment (see the top). */
static int put_choice(spank_t sp, const char *var, const char *choice)
{
    if (choice[0] == '\0')
        return 0;
    if (spank_context() == S_CTX_LOCAL) {
        if (setenv(var, choice, 1) != 0) {
            slurm_error("spmix: cannot set %s", var);
            return -1;
        }
    } else if (spank_context() == S_CTX_REMOTE) {
        spank_err_t rc = spank_setenv(sp, var, choice, 1);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("spmix: cannot set %s in the step: %s", var, spank_strerror(rc));
            return -1;
        }
    }
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (put_choice(sp, "SPMIX_STDIN", stdin_choice) != 0 ||
        put_choice(sp, "SPMIX_OUTPUT", output_choice) != 0)
        return -1;
    return 0;
}
