/*
 * tree_width.h - the fan-out of the tree between a step's servers: mpi.conf's
 * SpmixTreeWidth when set, else Slurm's own TreeWidth (slurm.conf), brought
 * into the range the library takes.
 *
 * Pure (no Slurm call): conf.c passes slurm_conf.tree_width in, so the choice
 * is unit-tested without Slurm. Slurm's value is a uint16_t in 22.05, 24.11
 * and 26.05; it defaults to 50 (22.05) or 16 (23.02 on) and is never 0 in a
 * loaded configuration, but 0 and NO_VAL16 (not loaded) are handled.
 */
#ifndef SPX_PLG_TREE_WIDTH_H
#define SPX_PLG_TREE_WIDTH_H

#include <stdint.h>

#define SPX_PLG_WIDTH_MIN 2u
#define SPX_PLG_WIDTH_MAX 1024u
#define SPX_PLG_DEFAULT_WIDTH 16u   /* when neither setting is usable */

enum spx_plg_width_from {
    SPX_PLG_WIDTH_MPICONF,          /* SpmixTreeWidth, as set */
    SPX_PLG_WIDTH_SLURM,            /* TreeWidth, as set */
    SPX_PLG_WIDTH_SLURM_RAISED,     /* TreeWidth below 2: raised to 2 */
    SPX_PLG_WIDTH_SLURM_CUT,        /* TreeWidth above 1024: cut to 1024 */
    SPX_PLG_WIDTH_DEFAULT,          /* TreeWidth unknown (0 or NO_VAL16): 16 */
};

/* The width to use. mpiconf: SpmixTreeWidth (0 = not set; a set value is
 * already checked to be in 2..1024); slurm: slurm_conf.tree_width. *from
 * (may be NULL) says where it came from. */
uint32_t spx_plg_width_choose(uint32_t mpiconf, uint32_t slurm, enum spx_plg_width_from *from);

/* "SpmixTreeWidth", "TreeWidth", "TreeWidth (raised to 2)", ... */
const char *spx_plg_width_from_str(enum spx_plg_width_from from);

#endif
