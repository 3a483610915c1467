/*
 * pmix_dl.h - our libpmix.so.2, loaded into slurmstepd at run time.
 *
 * Why dlopen and not a link: slurmctld and slurmd load every mpi_*.so at
 * start-up only to read mpi.conf; linking the plugin to libpmix.so.2 would
 * drag the library (and libevent, hwloc) into those daemons, and into the
 * same process as Slurm's own mpi/pmix, whose OpenPMIx has the same SONAME:
 * the dynamic linker would hand one of the two plugins the other's library.
 * Loading our file by its full path, RTLD_LOCAL | RTLD_NOW, in slurmstepd
 * only, keeps it out of the global scope and fails early and clearly when a
 * symbol is missing.
 *
 * The plugin then calls the usual PMIx_* names: pmix_dl.c defines them as
 * small forwarders through the table filled here. They stay private to the
 * plugin (the plugin exports only Slurm's symbols), so lib/host (linked
 * whole into the plugin, as into spmix-run) calls the library through them
 * unchanged. Every PMIx_* name lib/host uses must have a forwarder here.
 */
#ifndef SPX_PLG_PMIX_DL_H
#define SPX_PLG_PMIX_DL_H

#include <stddef.h>

/* Loads <libdir>/libpmix.so.2 and resolves what the plugin calls.
 * 0 on success; -1 with a reason in err (NUL-terminated, errlen bytes). */
int spx_plg_pmix_open(const char *libdir, char *err, size_t errlen);
/* Unloads the library (after PMIx_server_finalize). */
void spx_plg_pmix_close(void);
/* Full path of the loaded library, or NULL. Borrowed. */
const char *spx_plg_pmix_path(void);

#endif
