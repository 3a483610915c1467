/* run_stale.h - what killed spmix-run jobs of this user left behind in the
 * temporary directory, removed at the next start. */
#ifndef SPX_RUN_STALE_H
#define SPX_RUN_STALE_H

#include <stdbool.h>

/* Removes dir's entries spmix-run.<pid>.* of this user whose process is gone
 * (or whose pid a later process took over), with a line on stderr for each.
 * Returns how many were removed. */
int spx_run_remove_stale(const char *dir);

#endif
