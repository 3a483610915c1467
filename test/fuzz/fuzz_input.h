/* fuzz_input.h - the fuzz targets' reader of their input bytes: little-endian
 * integers and byte runs pulled from the front; past the end every read
 * yields zeros (or a shorter run), so any input is a valid program.
 * Shared by fuzz_tree.c and fuzz_server.c. The input is borrowed. */
#ifndef SPX_FUZZ_INPUT_H
#define SPX_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct fz_in {
    const uint8_t *p;
    size_t left;
} fz_in_t;

static inline uint8_t in_u8(fz_in_t *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint16_t in_u16(fz_in_t *in)
{
    uint16_t lo = in_u8(in);
    return (uint16_t)(lo | (uint16_t)in_u8(in) << 8);
}

static inline uint32_t in_u32(fz_in_t *in)
{
    uint32_t lo = in_u16(in);
    return lo | (uint32_t)in_u16(in) << 16;
}

/* Up to *len bytes (cut to what is left, *len updated), pointing into the input. */
static inline const uint8_t *in_bytes(fz_in_t *in, size_t *len)
{
    if (*len > in->left)
        *len = in->left;
    const uint8_t *p = in->p;
    in->p += *len;
    in->left -= *len;
    return p;
}

#endif
