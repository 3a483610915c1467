/* auth.h - how two tree engines of one step prove to each other that they
 * belong to it: the "proof" each side of the handshake sends (proto.h, AUTH
 * steps CHALLENGE and PROOF). Two kinds behind one interface:
 *
 *   SECRET  HMAC-SHA256 of the transcript under the step's shared secret
 *           (spmix-run's node daemons; the Slurm plugin built without
 *           libmunge). Wire: raw[32].
 *   MUNGE   a munge credential whose payload is the transcript (the Slurm
 *           plugin): the checker decodes it with its node's munged, which
 *           refuses forged, expired and replayed credentials, compares the
 *           payload with the transcript it expects, and accepts the
 *           credential's uid only when it is in the step's list (the job's
 *           user, root, SlurmUser). Wire: str credential (at most
 *           SPX_TREE_MAX_PROOF bytes).
 *
 * The transcript (built by handshake.c, the same for both kinds) binds a
 * proof to one connection and one direction: role label | nonce_c | nonce_a
 * | u32 connector | u32 acceptor | the step's id (empty for SECRET).
 *
 * Threading: the engine's (progress) thread; MUNGE blocks on munged's local
 * socket for the encode/decode (util/munge_cred.h).
 */
#ifndef SPX_TREE_AUTH_H
#define SPX_TREE_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "codec/buf.h"

#define SPX_TREE_MAX_PROOF 4096u /* longest proof a link reads */
#define SPX_TREE_MAX_AUTH_UIDS 16u
#define SPX_TREE_MAX_AUTH_ID 256u

typedef enum spx_tree_auth_kind {
    SPX_TREE_AUTH_KIND_SECRET = 0,
    SPX_TREE_AUTH_KIND_MUNGE = 1,
} spx_tree_auth_kind_t;

const char *spx_tree_auth_kind_str(spx_tree_auth_kind_t k);

/* Everything borrowed for the create call (copied). */
typedef struct spx_tree_auth_cfg {
    spx_tree_auth_kind_t kind;
    const void *secret;     /* SECRET: 16..4096 bytes */
    size_t secret_len;
    const uint32_t *uids;   /* MUNGE: the uids whose credentials are accepted (1..16) */
    size_t nuids;
    const char *id;         /* MUNGE: the step's name, bound into every credential */
} spx_tree_auth_cfg_t;

typedef struct spx_tree_auth spx_tree_auth_t;

/* NULL with the reason in err (bad parameters; MUNGE without libmunge). */
spx_tree_auth_t *spx_tree_auth_create(const spx_tree_auth_cfg_t *cfg, char *err, size_t errlen);
/* Wipes the secret and frees. NULL is fine. */
void spx_tree_auth_destroy(spx_tree_auth_t *a);
spx_tree_auth_kind_t spx_tree_auth_kind(const spx_tree_auth_t *a);
/* The step's id the transcript ends with ("" for SECRET); borrowed. */
const char *spx_tree_auth_id(const spx_tree_auth_t *a);

/* Appends the proof of transcript msg (len bytes, borrowed) to b: 0, or -1
 * with the reason in err (munged unreachable). */
int spx_tree_auth_push_proof(spx_tree_auth_t *a, spx_buf_t *b, const uint8_t *msg, size_t len,
                             char *err, size_t errlen);
/* Takes a proof off p and checks it against msg: 0, or -1 with the reason
 * in err (malformed, wrong MAC, forged/replayed/foreign credential, uid not
 * allowed). The caller still checks that p is then empty. */
int spx_tree_auth_pull_check(spx_tree_auth_t *a, spx_buf_t *p, const uint8_t *msg, size_t len,
                             char *err, size_t errlen);

#endif
