/*
 * host/hex: bytes <-> lowercase hex text, for secrets passed between a
 * host's processes through the environment (the Slurm plugin's step secret:
 * srun encodes, every slurmstepd decodes).
 */
#ifndef SPX_HOST_HEX_H
#define SPX_HOST_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 2*n hex digits of in[0..n-1] and a NUL into out (outlen bytes).
 * Returns 2*n, or 0 (out untouched) when outlen < 2*n + 1. */
size_t spx_host_hex_encode(const void *in, size_t n, char *out, size_t outlen);

/* Hex text (either case) to bytes: returns the number of bytes written to
 * out (at most max), or 0 for NULL, an odd length, a non-hex digit or more
 * than max bytes. */
size_t spx_host_hex_decode(const char *hex, uint8_t *out, size_t max);

#endif /* SPX_HOST_HEX_H */
