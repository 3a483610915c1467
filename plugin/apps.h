/*
 * apps.h - which application (PMIX_APPNUM) each rank of a step belongs to,
 * carried from srun to every slurmstepd in SPMIX_STEP_APPS.
 *
 * A step has several applications in two cases: a heterogeneous step (each
 * component is one application, its ranks offset_k .. offset_k + n_k - 1)
 * and a --multi-prog step (each line of the configuration file that names
 * ranks is one application, in file order). The text form lists runs of
 * ranks with the same application, rank 0 first: "APP*COUNT,APP*COUNT,...";
 * "0*2,1*3" is ranks 0-1 in app 0 and ranks 2-4 in app 1.
 */
#ifndef SPX_PLG_APPS_H
#define SPX_PLG_APPS_H

#include <stddef.h>
#include <stdint.h>

/* Text form of app_of[0..ntasks) (borrowed). NULL on ENOMEM. Caller frees
 * the result with free(). */
char *spx_plg_apps_encode(const uint32_t *app_of, uint32_t ntasks);

/* Parses s (borrowed) for a step of ntasks ranks: the runs must cover
 * exactly ntasks ranks and use every app 0..napps-1. On 0 *app_of is a
 * malloc'd array of ntasks entries (caller frees) and *napps is set; on -1
 * *why (static text) says why. */
int spx_plg_apps_decode(const char *s, uint32_t ntasks, uint32_t **app_of, uint32_t *napps,
                        const char **why);

/* Parses the text of a --multi-prog configuration file (borrowed) as Slurm
 * does for a step of ntasks ranks: "#" comment lines and blank lines are
 * skipped, a line ending in "\" continues on the next, each other line is
 * "RANKS PROGRAM [ARGS]" where RANKS is "*" (every rank not named yet) or a
 * ","-list of "a" and "a-b". Each line that gets ranks is one app, in file
 * order. Every rank must be named once. On 0 *app_of (malloc'd, ntasks
 * entries, caller frees) and *napps; on -1 *why says why. */
int spx_plg_apps_from_multiprog(const char *text, uint32_t ntasks, uint32_t **app_of,
                                uint32_t *napps, const char **why);

/* srun's command line (argv[0..argc), borrowed): the number of components
 * of the step it launches - the ":"-separated parts, each counting the
 * groups of its --het-group list (1 without one). */
uint32_t spx_plg_apps_het_count(int argc, char *const *argv);

/* srun's command line of a --multi-prog step: the configuration file is
 * the first argument after the option that names a readable file of at
 * most 60000 bytes (srun's own limit) and parses for ntasks ranks. Returns
 * 0 with *app_of (malloc'd) and *napps, or -1 when there is none. */
int spx_plg_apps_find_multiprog(int argc, char *const *argv, uint32_t ntasks,
                                uint32_t **app_of, uint32_t *napps);

#endif
