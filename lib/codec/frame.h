/* frame.h - the fixed header that starts every spmix message, on every socket
 * (client <-> server and server <-> server).
 *
 * Layout (16 bytes, little endian): u32 magic "SPMX", u8 version, u8 type,
 * u16 flags, u32 seq, u32 payload length. Decoding checks magic, version and
 * the length cap before anyone allocates for the payload.
 */
#ifndef SPX_CODEC_FRAME_H
#define SPX_CODEC_FRAME_H

#include <stdint.h>

#define SPX_FRAME_MAGIC 0x584d5053u /* "SPMX" as bytes on the wire */
#define SPX_FRAME_VERSION 1
#define SPX_FRAME_HDR_LEN 16
#define SPX_FRAME_MAX_PAYLOAD (64u << 20)

#define SPX_FRAME_F_REPLY 0x0001u /* this frame answers the request with the same seq */

typedef struct spx_frame_hdr {
    uint8_t version;
    uint8_t type;
    uint16_t flags;
    uint32_t seq;
    uint32_t length;
} spx_frame_hdr_t;

void spx_frame_hdr_encode(const spx_frame_hdr_t *h, uint8_t out[SPX_FRAME_HDR_LEN]);
/* 0, or -1 with errno EBADMSG (bad magic/version) or EMSGSIZE (length over cap). */
int spx_frame_hdr_decode(const uint8_t in[SPX_FRAME_HDR_LEN], spx_frame_hdr_t *h);

#endif
