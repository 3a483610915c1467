/* strhash.h - a 64-bit FNV-1a hash of a string, for lists that compare
 * the hash before the string (set keys of collectives) and for short names
 * derived from long ones. Not for anything an attacker could exploit:
 * lookups still compare the whole string. */
#ifndef SPX_UTIL_STRHASH_H
#define SPX_UTIL_STRHASH_H

#include <stddef.h>
#include <stdint.h>

#define SPX_STRHASH_INIT 14695981039346656037ull

/* Folds len bytes of p into h (start with SPX_STRHASH_INIT). */
static inline uint64_t spx_strhash_add(uint64_t h, const void *p, size_t len)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < len; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

static inline uint64_t spx_strhash(const char *s)
{
    uint64_t h = SPX_STRHASH_INIT;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

#endif
