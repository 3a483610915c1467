/*
 * abort_msg.h - the one message mpi/spmix sends outside PMIx: a slurmstepd
 * tells srun that a rank called PMIx_Abort, so srun can print the message
 * and exit with the rank's status (srun takes mpi_p_client_fini's return
 * value as its exit code).
 *
 * Wire (all integers big endian):
 *   srun -> stepd, at accept:  nonce[32] (getrandom: this connection's)
 *   stepd -> srun:             "SPXA" | u32 body length | body |
 *                              u32 proof length | proof
 *   body = u32 job id | u32 step id | u32 rank | i32 status |
 *          u16 host length | host | u16 message length | message
 *   proof, by the step's authentication (SPMIX_STEP_AUTH):
 *     secret: HMAC-SHA256(step secret, "SPXA" .. body | nonce) (32 bytes)
 *     munge:  a munge credential (text) whose payload is
 *             "spmix-abort" | nonce | "SPXA" .. body; srun accepts it only
 *             from the job's user, root or SlurmUser, and munged refuses a
 *             replayed one.
 * srun answers one byte 'K' once it has recorded the abort. A report whose
 * length, fields or proof are wrong is dropped and the connection closed.
 */
#ifndef SPX_PLG_ABORT_MSG_H
#define SPX_PLG_ABORT_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/hex.h"

#define SPX_PLG_ABORT_MAX_HOST 255
#define SPX_PLG_ABORT_MAX_TEXT 2048
#define SPX_PLG_ABORT_HDR 8
#define SPX_PLG_ABORT_NONCE 32
#define SPX_PLG_ABORT_MAC 32
#define SPX_PLG_ABORT_MAX_PROOF 8192
#define SPX_PLG_ABORT_LABEL "spmix-abort"
#define SPX_PLG_ABORT_MAX_BODY (20 + SPX_PLG_ABORT_MAX_HOST + SPX_PLG_ABORT_MAX_TEXT)
#define SPX_PLG_ABORT_MAX_WIRE \
    (SPX_PLG_ABORT_HDR + SPX_PLG_ABORT_MAX_BODY + 4 + SPX_PLG_ABORT_MAX_PROOF)

struct spx_plg_abort {
    uint32_t jobid, stepid, rank;
    int32_t status;
    char host[SPX_PLG_ABORT_MAX_HOST + 1];
    char text[SPX_PLG_ABORT_MAX_TEXT + 1];
};

/* How reports are proven (all borrowed). */
struct spx_plg_abort_auth {
    bool munge;
    const void *key;           /* secret mode */
    size_t keylen;
    const char *socket;        /* munge: munged's socket; NULL: $SPMIX_MUNGE_SOCKET or default */
    const uint32_t *uids;      /* munge, checking: uids whose reports are taken */
    size_t nuids;
};

/* Writes the report for this connection's nonce into buf
 * (SPX_PLG_ABORT_MAX_WIRE bytes); longer host or text are cut. Returns the
 * length, or 0 with the reason in err (munged unreachable). */
size_t spx_plg_abort_pack(const struct spx_plg_abort *a, const struct spx_plg_abort_auth *au,
                          const uint8_t nonce[SPX_PLG_ABORT_NONCE], uint8_t *buf, char *err,
                          size_t errlen);

/* Body length from the first SPX_PLG_ABORT_HDR bytes; -1 if the magic is
 * wrong or the length is out of bounds. */
long spx_plg_abort_body_len(const uint8_t *hdr);
/* Proof length from its 4 length bytes; -1 when over SPX_PLG_ABORT_MAX_PROOF. */
long spx_plg_abort_proof_len(const uint8_t *p);

/* Checks and parses a whole report (len bytes) made for nonce. 0 ok; -1
 * malformed; -2 proof refused (the reason in err). */
int spx_plg_abort_unpack(const uint8_t *buf, size_t len, const struct spx_plg_abort_auth *au,
                         const uint8_t nonce[SPX_PLG_ABORT_NONCE], struct spx_plg_abort *out,
                         char *err, size_t errlen);

/* Hex secret (as passed in the environment) to bytes: returns the length, or
 * 0 for a malformed string. out holds at least max bytes. lib/host's
 * decoder (host/hex.h), shared with srun's encoder. */
static inline size_t spx_plg_hex_decode(const char *hex, uint8_t *out, size_t max)
{
    return spx_host_hex_decode(hex, out, max);
}

#endif
