/* samples.h - one sample of every value type the codec supports, for the
 * codec unit test and the fuzz seed corpus. */
#ifndef SPX_TEST_SAMPLES_H
#define SPX_TEST_SAMPLES_H

#include <stddef.h>
#include <pmix_common.h>

/* *vals: malloc'd array of *n values, one or more per type (including nested
 * data arrays of values, infos, apps, queries, pdata). Caller releases each
 * with spx_codec_value_release and frees the array. with_topology: also a live
 * hwloc topology of this machine (slow under valgrind). */
void spx_sample_values(pmix_value_t **vals, size_t *n, int with_topology);
/* *infos: malloc'd array of *n infos with the sample values ("key.<i>"). */
void spx_sample_infos(pmix_info_t **infos, size_t *n, int with_topology);

#endif
