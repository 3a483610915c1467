/*
 * step_auth.h - how a step's parts prove they belong to it: the servers'
 * tree links (lib/tree/auth.h) and the abort report to srun (abort_msg.h).
 *
 * srun picks the kind once per step and passes it as SPMIX_STEP_AUTH:
 *   munge   (built with libmunge, the default) nothing secret in the launch
 *           environment: every link and report carries a munge credential
 *           bound to its connection's nonces; accepted from the job's user,
 *           root or SlurmUser (slurm_conf.slurm_user_id: the configuration
 *           srun and slurmstepd have loaded, type slurm_conf_t of the public
 *           slurm.h);
 *   secret  (built without libmunge, said at srun start; or asked for with
 *           SPMIX_TREE_AUTH=secret in srun's environment) a random per-step
 *           secret in SPMIX_STEP_SECRET, HMAC-SHA256.
 * munged's socket: SpmixMungeSocket of mpi.conf (slurmstepd only: srun never
 * reads mpi.conf), else $SPMIX_MUNGE_SOCKET, else "socket=" of Slurm's
 * AuthInfo (slurm_conf.authinfo), else libmunge's default.
 */
#ifndef SPX_PLG_STEP_AUTH_H
#define SPX_PLG_STEP_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPX_PLG_ENV_AUTH "SPMIX_STEP_AUTH"   /* "munge" or "secret" (srun -> stepd) */
#define SPX_PLG_ENV_AUTH_ASK "SPMIX_TREE_AUTH" /* srun's environment: "secret" opts out */
#define SPX_PLG_AUTH_UIDS 3

/* srun: whether this step uses munge (logs why not). */
bool spx_plg_auth_pick_munge(void);

/* munged's socket for the plugin's own credentials into out ("" for
 * libmunge's default). */
void spx_plg_auth_munge_socket(char *out, size_t len);

/* The uids whose credentials are accepted: job_uid, 0 and SlurmUser
 * (duplicates dropped); returns their count (<= SPX_PLG_AUTH_UIDS). */
size_t spx_plg_auth_uids(uint32_t job_uid, uint32_t out[SPX_PLG_AUTH_UIDS]);

#endif
