/*
 * host/hex: see host/hex.h. Decoding reads two digits at a time and refuses
 * the whole string at the first bad digit.
 */
#include "config.h"
#include "host/hex.h"

size_t spx_host_hex_encode(const void *in, size_t n, char *out, size_t outlen)
{
    static const char digits[] = "0123456789abcdef";
    const uint8_t *b = in;

    if (out == NULL || outlen < 2 * n + 1)
        return 0;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
    return 2 * n;
}

static int spx_host_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t spx_host_hex_decode(const char *hex, uint8_t *out, size_t max)
{
    size_t n = 0;

    if (hex == NULL)
        return 0;
    for (; hex[0] && hex[1]; hex += 2) {
        int hi = spx_host_hexval(hex[0]), lo = spx_host_hexval(hex[1]);
        if (hi < 0 || lo < 0 || n >= max)
            return 0;
        out[n++] = (uint8_t)(hi << 4 | lo);
    }
    return hex[0] ? 0 : n;
}
