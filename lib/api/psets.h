/* psets.h - process sets as this library knows them: none. A process set is
 * defined through PMIx_server_define_process_set, which spmix does not
 * support, so the answer to the process-set queries is always the same; the
 * server gives it to its clients and tools (server/query_own.c), a singleton
 * to itself (client/client_query.c).
 */
#ifndef SPX_API_PSETS_H
#define SPX_API_PSETS_H

#include <stdbool.h>

#include <pmix.h>

/* Answers PMIX_QUERY_NUM_PSETS (0, size_t) or PMIX_QUERY_PSET_NAMES ("", the
 * empty comma-delimited list: char*, the type OpenPMIx's header gives the
 * key, PRRTE answers with and Open MPI's sessions read) into *out (zeroed by
 * the caller; PMIX_INFO_DESTRUCT after). False for any other key, or when
 * out of memory. */
bool spx_psets_query_answer(const char *key, pmix_info_t *out);

#endif
