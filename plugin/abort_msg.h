/*
 * abort_msg.h - the one message mpi/spmix sends outside PMIx: a slurmstepd
 * tells srun that a rank called PMIx_Abort, so srun can print the message
 * and exit with the rank's status (srun takes mpi_p_client_fini's return
 * value as its exit code).
 *
 * Wire (all integers big endian):
 *   "SPXA" | u32 body length | body | HMAC-SHA256(step secret, "SPXA" .. body)
 *   body = u32 job id | u32 step id | u32 rank | i32 status |
 *          u16 host length | host | u16 message length | message
 * srun answers one byte 'K' once it has recorded the abort. A report whose
 * length, fields or MAC are wrong is dropped and the connection closed.
 */
#ifndef SPX_PLG_ABORT_MSG_H
#define SPX_PLG_ABORT_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "host/hex.h"

#define SPX_PLG_ABORT_MAX_HOST 255
#define SPX_PLG_ABORT_MAX_TEXT 2048
#define SPX_PLG_ABORT_HDR 8
#define SPX_PLG_ABORT_MAC 32
#define SPX_PLG_ABORT_MAX_BODY (20 + SPX_PLG_ABORT_MAX_HOST + SPX_PLG_ABORT_MAX_TEXT)
#define SPX_PLG_ABORT_MAX_WIRE (SPX_PLG_ABORT_HDR + SPX_PLG_ABORT_MAX_BODY + SPX_PLG_ABORT_MAC)

struct spx_plg_abort {
    uint32_t jobid, stepid, rank;
    int32_t status;
    char host[SPX_PLG_ABORT_MAX_HOST + 1];
    char text[SPX_PLG_ABORT_MAX_TEXT + 1];
};

/* Writes the report into buf (SPX_PLG_ABORT_MAX_WIRE bytes); longer host or
 * text are cut. Returns the length. key/buf borrowed. */
size_t spx_plg_abort_pack(const struct spx_plg_abort *a, const void *key, size_t keylen,
                          uint8_t *buf);

/* Body length from the first SPX_PLG_ABORT_HDR bytes; -1 if the magic is
 * wrong or the length is out of bounds. */
long spx_plg_abort_body_len(const uint8_t *hdr);

/* Checks and parses a whole report (header + body + MAC, len bytes).
 * 0 ok; -1 malformed; -2 wrong MAC. */
int spx_plg_abort_unpack(const uint8_t *buf, size_t len, const void *key, size_t keylen,
                         struct spx_plg_abort *out);

/* Hex secret (as passed in the environment) to bytes: returns the length, or
 * 0 for a malformed string. out holds at least max bytes. lib/host's
 * decoder (host/hex.h), shared with srun's encoder. */
static inline size_t spx_plg_hex_decode(const char *hex, uint8_t *out, size_t max)
{
    return spx_host_hex_decode(hex, out, max);
}

#endif
