/* compiler.h - attributes used across spmix.
 * SPX_EXPORT marks the only names that leave libpmix.so (the PMIx_* API);
 * everything else is hidden by -fvisibility=hidden. */
#ifndef SPX_UTIL_COMPILER_H
#define SPX_UTIL_COMPILER_H

#define SPX_EXPORT __attribute__((visibility("default")))
#define SPX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SPX_UNUSED __attribute__((unused))
#define SPX_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
