/* buf.h - growable byte buffer with a write end and a read cursor.
 *
 * Writers push fixed-width little-endian integers, strings and byte blocks
 * at the end; readers pull them from the cursor. Errors are sticky: the first
 * failure (out of memory on push; truncation, over-cap length or bad data on
 * pull) sets b->err to an errno value and every later push/pull is a no-op
 * that yields zero/NULL, so a decoder pulls all fields and checks once:
 *     uint32_t n = spx_buf_pull_u32(b); char *s = spx_buf_pull_str(b);
 *     if (spx_buf_failed(b)) { free(s); ... reject ... }
 * Every length read from a buffer is checked against a cap and against the
 * bytes remaining before anything is allocated.
 *
 * A buffer made by spx_buf_init_borrowed reads memory it does not own (a
 * received frame, a network's payload) without copying it: pulls work as
 * usual, pushes fail (EPERM), fini forgets the memory without freeing it.
 */
#ifndef SPX_CODEC_BUF_H
#define SPX_CODEC_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPX_BUF_MAX_STR (1u << 20)      /* longest string accepted from the wire */
#define SPX_BUF_MAX_BLOB (64u << 20)    /* longest byte block accepted */
#define SPX_BUF_MAX_COUNT (1u << 20)    /* most elements in one array */

typedef struct spx_buf {
    uint8_t *data;  /* owned by the buffer (unless adopted data is released),
                     * borrowed (read only) when `borrowed` is set */
    size_t len;     /* bytes written */
    size_t cap;     /* bytes allocated */
    size_t pos;     /* read cursor */
    int err;        /* 0 or the first errno-style failure */
    bool borrowed;  /* data belongs to the caller of spx_buf_init_borrowed */
} spx_buf_t;

void spx_buf_init(spx_buf_t *b);
/* A buffer for reading len bytes at data, which stay the caller's: nothing is
 * copied, data must outlive every pull from b, and is never written or freed
 * through b (pushes, reserve and release fail with EPERM; fini frees nothing). */
void spx_buf_init_borrowed(spx_buf_t *b, const void *data, size_t len);
/* Frees the data (unless borrowed); leaves b empty and reusable. */
void spx_buf_fini(spx_buf_t *b);
/* Takes ownership of malloc'd data (len bytes) for reading. */
void spx_buf_adopt(spx_buf_t *b, void *data, size_t len);
/* Hands the written bytes to the caller (caller frees with free()); b becomes empty.
 * A borrowed buffer has nothing to hand over: NULL, *len = 0, b fails (EPERM). */
void *spx_buf_release(spx_buf_t *b, size_t *len);
/* Make room for n more bytes; 0 or -1 (sets err). */
int spx_buf_reserve(spx_buf_t *b, size_t n);

static inline bool spx_buf_failed(const spx_buf_t *b) { return b->err != 0; }
static inline size_t spx_buf_remaining(const spx_buf_t *b) { return b->len - b->pos; }
/* 0 if the reader consumed everything without error, else -1 (sets err = EBADMSG
 * for trailing bytes). */
int spx_buf_finish(spx_buf_t *b);
/* Marks the buffer failed with errno value err (e.g. EBADMSG for bad data). */
void spx_buf_set_error(spx_buf_t *b, int err);

void spx_buf_push_u8(spx_buf_t *b, uint8_t v);
void spx_buf_push_u16(spx_buf_t *b, uint16_t v);
void spx_buf_push_u32(spx_buf_t *b, uint32_t v);
void spx_buf_push_u64(spx_buf_t *b, uint64_t v);
void spx_buf_push_i32(spx_buf_t *b, int32_t v);
void spx_buf_push_double(spx_buf_t *b, double v);
void spx_buf_push_raw(spx_buf_t *b, const void *p, size_t n);
/* u32 length + bytes; NULL is encoded distinctly (length 0xFFFFFFFF) and pulled as NULL. */
void spx_buf_push_str(spx_buf_t *b, const char *s);
/* u32 length + bytes. */
void spx_buf_push_bytes(spx_buf_t *b, const void *p, size_t n);

uint8_t spx_buf_pull_u8(spx_buf_t *b);
uint16_t spx_buf_pull_u16(spx_buf_t *b);
uint32_t spx_buf_pull_u32(spx_buf_t *b);
uint64_t spx_buf_pull_u64(spx_buf_t *b);
int32_t spx_buf_pull_i32(spx_buf_t *b);
double spx_buf_pull_double(spx_buf_t *b);
/* Copies n bytes to p; 0 or -1. */
int spx_buf_pull_raw(spx_buf_t *b, void *p, size_t n);
/* Returns a malloc'd NUL-terminated string (caller frees) or NULL (NULL was
 * encoded, or error: check spx_buf_failed). Embedded NULs are rejected. */
char *spx_buf_pull_str(spx_buf_t *b);
/* Pulls a string into a fixed array of size cap (including NUL); longer is an error. */
void spx_buf_pull_str_into(spx_buf_t *b, char *dst, size_t cap);
/* Returns malloc'd bytes (caller frees) and their count in *n; NULL with *n = 0 for empty. */
void *spx_buf_pull_bytes(spx_buf_t *b, size_t *n);

#endif
