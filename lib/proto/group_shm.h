/* group_shm.h - the shared-memory construct of a whole namespace: what a
 * node's server and its local processes share to run a blocking
 * PMIx_Group_construct over every rank of their namespace without a request
 * and a reply on each process's socket.
 *
 * Two files per namespace, both created by the server in its private
 * directory and owned by the job's user:
 *   - a barrier segment (proto/shm_barrier.h) of its own, never
 *     self-completing: fences and constructs never share a generation;
 *   - a data file: one fixed-size request slot per local process (slot i =
 *     the i-th local rank, ascending, as in the fence segment), then the
 *     outcome area.
 * A member writes its request (group id, whether it listed the namespace as
 * WILDCARD or rank by rank, its directives) into its slot with pwrite(2),
 * then arrives in the barrier. The last arrival sends GROUP_LOCAL (u32
 * generation) to the server, which reads every slot, runs the construct as
 * if each member had sent GROUP, writes the outcome once and releases the
 * generation; each member reads the outcome with pread(2). A generation
 * released with SPX_GSHM_RETRY (members disagree, a member went through the
 * socket, a local process is gone) tells every member to send its construct
 * over the socket instead: nothing of it was started.
 *
 * Why a file and not the mapping: requests and outcomes vary in size; the
 * page cache makes a pwrite visible to a later pread of any process, and the
 * barrier's release orders them.
 */
#ifndef SPX_PROTO_GROUP_SHM_H
#define SPX_PROTO_GROUP_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_common.h>

#include "codec/buf.h"

/* Job-level key of the HELLO data naming the barrier segment's file
 * (string); the data file is that name with SPX_GSHM_DATA_SUFFIX. */
#define SPX_GSHM_KEY "spmix.grpshm"
#define SPX_GSHM_DATA_SUFFIX ".d"
/* Environment switch: SPMIX_SHM_GROUP=0 in the server's environment turns it off. */
#define SPX_GSHM_ENV "SPMIX_SHM_GROUP"

/* Bytes of one request slot: u32 length, then the request. A request that
 * does not fit goes over the socket. */
#define SPX_GSHM_SLOT_BYTES 1024u
/* Where the outcome area starts for nlocal slots (page aligned). */
#define SPX_GSHM_OUTCOME_OFFSET(nlocal) \
    ((((uint64_t)(nlocal) * SPX_GSHM_SLOT_BYTES) + 4095u) & ~(uint64_t)4095u)
/* Outcome area: u32 generation, i32 reserved (0), u64 n, then n bytes (the
 * outcome of proto/group.h). At most this many bytes. */
#define SPX_GSHM_OUTCOME_HDR 16u
#define SPX_GSHM_MAX_OUTCOME (256u << 20)

/* The status of a generation whose members must go through the socket
 * (outside the range of PMIx statuses; never returned to a caller). */
#define SPX_GSHM_RETRY ((pmix_status_t)-2000000001)

/* A request as read back from a slot. */
typedef struct spx_gshm_req {
    char id[PMIX_MAX_NSLEN + 1];
    bool wildcard;        /* {nspace, WILDCARD}; else every rank listed */
    pmix_info_t *info;    /* the directives (owned; spx_info_array_free) */
    size_t ninfo;
} spx_gshm_req_t;

/* Is procs[0..n) every rank of nspace (jobsize ranks), as {nspace, WILDCARD}
 * (*wildcard) or rank by rank (any order, repeats allowed)? */
bool spx_gshm_covers(const char *nspace, uint32_t jobsize, const pmix_proc_t *procs, size_t n,
                     bool *wildcard);
/* Does a construct ask only for what this path does (context id, group
 * info, termination notice)? */
bool spx_gshm_directives_ok(const pmix_info_t *info, size_t ninfo);

/* Encodes a request into slot (SPX_GSHM_SLOT_BYTES); false when it does not fit. */
bool spx_gshm_req_encode(uint8_t slot[SPX_GSHM_SLOT_BYTES], const char *id, bool wildcard,
                         const pmix_info_t *info, size_t ninfo);
/* Decodes a slot; 0, or -1 when malformed (nothing to free then). */
int spx_gshm_req_decode(const uint8_t slot[SPX_GSHM_SLOT_BYTES], spx_gshm_req_t *out);
void spx_gshm_req_fini(spx_gshm_req_t *r);

/* Server: creates the data file at path (mode 0600, owned by uid/gid), sized
 * for nlocal slots; returns its descriptor or -1 with a log line. */
int spx_gshm_data_create(const char *path, uint32_t nlocal, uid_t uid, gid_t gid);
/* Writes generation gen's outcome; 0 or -1. */
int spx_gshm_outcome_write(int fd, uint32_t nlocal, uint32_t gen, const void *bytes, size_t n);
/* Reads generation gen's outcome: *bytes malloc'd (caller frees); 0, or -1
 * when unreadable, too large or of another generation. */
int spx_gshm_outcome_read(int fd, uint32_t nlocal, uint32_t gen, uint8_t **bytes, size_t *n);

#endif
