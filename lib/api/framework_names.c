/* framework_names.c - pmix_framework_names, the one data symbol libpmix.so.2
 * exports besides the PMIx_* functions.
 *
 * OpenPMIx 5 exports this NULL-terminated list of its component frameworks,
 * and Open MPI 5's libopen-pal binds it when it is loaded (it reads it to
 * tell PMIx MCA parameters from its own), so the library must define it for
 * those programs to start at all.  spmix has no frameworks of its own; the
 * list names those of OpenPMIx 5.0, so parameter names such as
 * "pmix_ptl_..." are classified as they would be there.  Read-only in
 * practice: nothing in spmix reads or writes it.
 */
#include <stddef.h>

#include "util/compiler.h"

SPX_EXPORT char *pmix_framework_names[] = {
    "bfrops", "gds", "pcompress", "pdl", "pif", "pinstalldirs", "plog", "pmdl",
    "pnet", "preg", "psec", "psensor", "psquash", "pstat", "ptl", NULL,
};
