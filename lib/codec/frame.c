/* frame.c - encode and check the 16-byte header in front of every message.
 *
 * Bytes: magic (4, "SPMX"), version (1), type (1), flags (2), seq (4),
 * payload length (4), all little endian. Decoding rejects a foreign magic or
 * version (EBADMSG) and a length above SPX_FRAME_MAX_PAYLOAD (EMSGSIZE), so a
 * reader never allocates for a header it has not validated.
 */
#include "config.h"
#include "codec/frame.h"

#include <errno.h>

static void put_le(uint8_t *p, uint32_t v, unsigned width)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le(const uint8_t *p, unsigned width)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

void spx_frame_hdr_encode(const spx_frame_hdr_t *h, uint8_t out[SPX_FRAME_HDR_LEN])
{
    put_le(out, SPX_FRAME_MAGIC, 4);
    out[4] = h->version ? h->version : SPX_FRAME_VERSION;
    out[5] = h->type;
    put_le(out + 6, h->flags, 2);
    put_le(out + 8, h->seq, 4);
    put_le(out + 12, h->length, 4);
}

int spx_frame_hdr_decode(const uint8_t in[SPX_FRAME_HDR_LEN], spx_frame_hdr_t *h)
{
    if (get_le(in, 4) != SPX_FRAME_MAGIC || in[4] != SPX_FRAME_VERSION) {
        errno = EBADMSG;
        return -1;
    }
    h->version = in[4];
    h->type = in[5];
    h->flags = (uint16_t)get_le(in + 6, 2);
    h->seq = get_le(in + 8, 4);
    h->length = get_le(in + 12, 4);
    if (h->length > SPX_FRAME_MAX_PAYLOAD) {
        errno = EMSGSIZE;
        return -1;
    }
    return 0;
}
