/*
 * conf.h - the plugin's mpi.conf options.
 *
 * slurmd reads mpi.conf at start-up and on reconfigure (conf_options ->
 * conf_set), packs what conf_get returns and hands it to every slurmstepd,
 * which gets it through conf_set again. srun never sees mpi.conf: nothing the
 * srun side does depends on these settings.
 *
 *   SpmixDebug=N              0..3: plugin messages and the library's log level
 *   SpmixLibDir=DIR           where libpmix.so.2 (ours) is
 *   SpmixSetLdLibraryPath=B   put SpmixLibDir first in the tasks' LD_LIBRARY_PATH
 *   SpmixPortRange=LO-HI      TCP ports for the servers' tree (when Slurm reserved none)
 *   SpmixTimeout=SEC          how long a server waits for its tree peers to come up
 *   SpmixTreeWidth=N          fan-out of the tree between the nodes' servers
 *                             (default: Slurm's TreeWidth, see tree_width.h)
 *   SpmixTmpDir=DIR           base of the per-step directories (default: job's TMPDIR or /tmp)
 *   SpmixStdinTool=B          the tasks' stdin is fed by tools' pushes merged with
 *                             srun's stdin (default no; a step asks with SPMIX_STDIN=tool)
 *   SpmixOutputTap=B          the tasks' stdout/stderr also reach PMIx tools that pull
 *                             them (default no; a step asks with SPMIX_OUTPUT=tool)
 *   SpmixMungeSocket=PATH     munged's socket for the servers' munge credentials
 *                             (default: $SPMIX_MUNGE_SOCKET of slurmd, else the
 *                             socket= of Slurm's AuthInfo, else munge's default)
 */
#ifndef SPX_PLG_CONF_H
#define SPX_PLG_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "plugin/slurm_glue.h"
#include "plugin/tree_width.h"

#ifndef SPX_PLG_LIBDIR
#define SPX_PLG_LIBDIR "/usr/local/lib/spmix"
#endif

#define SPX_PLG_DEFAULT_PORT_LO 26000
#define SPX_PLG_DEFAULT_PORT_HI 27999
#define SPX_PLG_DEFAULT_TIMEOUT 30

struct spx_plg_conf {
    uint32_t debug;
    char *libdir;              /* malloc'd */
    bool set_ld_library_path;
    uint16_t port_lo, port_hi;
    uint32_t timeout;
    uint32_t tree_width;       /* SpmixTreeWidth; 0: not set (Slurm's TreeWidth) */
    char *tmpdir;              /* malloc'd; NULL: job's TMPDIR or /tmp */
    bool stdin_tool;           /* SpmixStdinTool */
    bool output_tap;           /* SpmixOutputTap */
    char *munge_socket;        /* SpmixMungeSocket, malloc'd; NULL: not set */
};

/* The current settings (defaults until conf_set ran). Read-only for callers. */
extern struct spx_plg_conf spx_plg_conf;

void spx_plg_conf_defaults(void);
void spx_plg_conf_free(void);
/* Parses "LO-HI" (1 <= LO <= HI <= 65535). 0 or -1. */
int spx_plg_conf_parse_ports(const char *s, uint16_t *lo, uint16_t *hi);

/* The tree's fan-out: SpmixTreeWidth when set, else slurm_conf.tree_width
 * clamped into 2..1024 (tree_width.h); *from (may be NULL) says which. */
uint32_t spx_plg_conf_tree_width(enum spx_plg_width_from *from);

/* The mpi_p_conf_* hooks. */
void spx_plg_conf_options(s_p_options_t **full_options, int *full_options_cnt);
void spx_plg_conf_set(s_p_hashtbl_t *tbl);
s_p_hashtbl_t *spx_plg_conf_get(void);
spx_slurm_list_t spx_plg_conf_get_printable(void);

/* Plugin log lines go through Slurm's log (slurmd log / srun stderr). */
#define spx_plg_err(...) slurm_error("mpi/spmix: " __VA_ARGS__)
#define spx_plg_info(...) slurm_info("mpi/spmix: " __VA_ARGS__)
#define spx_plg_dbg(...) \
    do { if (spx_plg_conf.debug > 0) slurm_info("mpi/spmix: " __VA_ARGS__); } while (0)

#endif
