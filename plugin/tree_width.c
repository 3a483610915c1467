/*
 * tree_width.c - picks the tree's fan-out (see tree_width.h): mpi.conf's
 * SpmixTreeWidth over Slurm's TreeWidth, clamped into 2..1024.
 */
#include "config.h"
#include "plugin/tree_width.h"

#include <stddef.h>

#define SPX_PLG_SLURM_NO_VAL16 0xfffeu

uint32_t spx_plg_width_choose(uint32_t mpiconf, uint32_t slurm, enum spx_plg_width_from *from)
{
    enum spx_plg_width_from f;
    uint32_t w;

    if (mpiconf != 0) {
        f = SPX_PLG_WIDTH_MPICONF;
        w = mpiconf;
    } else if (slurm == 0 || slurm >= SPX_PLG_SLURM_NO_VAL16) {
        f = SPX_PLG_WIDTH_DEFAULT;
        w = SPX_PLG_DEFAULT_WIDTH;
    } else if (slurm < SPX_PLG_WIDTH_MIN) {
        f = SPX_PLG_WIDTH_SLURM_RAISED;
        w = SPX_PLG_WIDTH_MIN;
    } else if (slurm > SPX_PLG_WIDTH_MAX) {
        f = SPX_PLG_WIDTH_SLURM_CUT;
        w = SPX_PLG_WIDTH_MAX;
    } else {
        f = SPX_PLG_WIDTH_SLURM;
        w = slurm;
    }
    if (from != NULL)
        *from = f;
    return w;
}

const char *spx_plg_width_from_str(enum spx_plg_width_from from)
{
    switch (from) {
    case SPX_PLG_WIDTH_MPICONF: return "SpmixTreeWidth";
    case SPX_PLG_WIDTH_SLURM: return "TreeWidth";
    case SPX_PLG_WIDTH_SLURM_RAISED: return "TreeWidth (raised to 2)";
    case SPX_PLG_WIDTH_SLURM_CUT: return "TreeWidth (cut to 1024)";
    case SPX_PLG_WIDTH_DEFAULT: return "default (TreeWidth unknown)";
    }
    return "?";
}
