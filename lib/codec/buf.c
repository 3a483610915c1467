/* buf.c - the growable byte buffer behind every spmix encoding.
 *
 * Writers append little-endian integers and length-prefixed blocks at b->len;
 * readers consume from b->pos. The first failure is recorded in b->err and
 * turns every later operation into a no-op returning zero/NULL, so codecs pull
 * a whole record and test spx_buf_failed() once. Every length that comes from
 * the buffer is checked against its cap and against the bytes still unread
 * before memory is allocated for it. A borrowed buffer (spx_buf_init_borrowed)
 * reads its caller's memory in place: the write side refuses it and fini
 * leaves it alone.
 */
#include "config.h"
#include "codec/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SPX_BUF_NULL_STR 0xFFFFFFFFu /* length marking a NULL string */

void spx_buf_init(spx_buf_t *b)
{
    memset(b, 0, sizeof(*b));
}

void spx_buf_init_borrowed(spx_buf_t *b, const void *data, size_t len)
{
    memset(b, 0, sizeof(*b));
    b->data = (uint8_t *)(uintptr_t)data; /* never written through: see borrowed */
    b->len = b->cap = data ? len : 0;
    b->borrowed = true;
}

void spx_buf_fini(spx_buf_t *b)
{
    if (!b->borrowed)
        free(b->data);
    memset(b, 0, sizeof(*b));
}

/* Whatever b held before is overwritten, not freed: adopt into an empty or
 * uninitialised buffer. */
void spx_buf_adopt(spx_buf_t *b, void *data, size_t len)
{
    b->data = data;
    b->len = data ? len : 0;
    b->cap = b->len;
    b->pos = 0;
    b->err = 0;
    b->borrowed = false;
}

void *spx_buf_release(spx_buf_t *b, size_t *len)
{
    if (b->borrowed) {
        if (len)
            *len = 0;
        spx_buf_set_error(b, EPERM);
        return NULL;
    }
    void *p = b->data;
    if (len)
        *len = b->len;
    memset(b, 0, sizeof(*b));
    return p;
}

void spx_buf_set_error(spx_buf_t *b, int err)
{
    if (b->err == 0)
        b->err = err ? err : EINVAL;
}

int spx_buf_reserve(spx_buf_t *b, size_t n)
{
    if (b->err)
        return -1;
    if (b->borrowed) {
        spx_buf_set_error(b, EPERM);
        return -1;
    }
    if (n <= b->cap - b->len)
        return 0;
    if (n > SIZE_MAX / 2 - b->len) {
        spx_buf_set_error(b, ENOMEM);
        return -1;
    }
    size_t want = b->len + n;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        spx_buf_set_error(b, ENOMEM);
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

int spx_buf_finish(spx_buf_t *b)
{
    if (b->err)
        return -1;
    if (b->pos != b->len) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    return 0;
}

/* ---- push ---- */

void spx_buf_push_raw(spx_buf_t *b, const void *p, size_t n)
{
    if (n == 0 || spx_buf_reserve(b, n) < 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void push_le(spx_buf_t *b, uint64_t v, unsigned width)
{
    uint8_t tmp[8];
    for (unsigned i = 0; i < width; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    spx_buf_push_raw(b, tmp, width);
}

void spx_buf_push_u8(spx_buf_t *b, uint8_t v) { push_le(b, v, 1); }
void spx_buf_push_u16(spx_buf_t *b, uint16_t v) { push_le(b, v, 2); }
void spx_buf_push_u32(spx_buf_t *b, uint32_t v) { push_le(b, v, 4); }
void spx_buf_push_u64(spx_buf_t *b, uint64_t v) { push_le(b, v, 8); }
void spx_buf_push_i32(spx_buf_t *b, int32_t v) { push_le(b, (uint32_t)v, 4); }

void spx_buf_push_double(spx_buf_t *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    push_le(b, bits, 8);
}

void spx_buf_push_str(spx_buf_t *b, const char *s)
{
    if (!s) {
        spx_buf_push_u32(b, SPX_BUF_NULL_STR);
        return;
    }
    size_t n = strlen(s);
    if (n > SPX_BUF_MAX_STR) {
        spx_buf_set_error(b, EMSGSIZE);
        return;
    }
    spx_buf_push_u32(b, (uint32_t)n);
    spx_buf_push_raw(b, s, n);
}

void spx_buf_push_bytes(spx_buf_t *b, const void *p, size_t n)
{
    if (n > SPX_BUF_MAX_BLOB || (n > 0 && !p)) {
        spx_buf_set_error(b, n > SPX_BUF_MAX_BLOB ? EMSGSIZE : EINVAL);
        return;
    }
    spx_buf_push_u32(b, (uint32_t)n);
    spx_buf_push_raw(b, p, n);
}

/* ---- pull ---- */

int spx_buf_pull_raw(spx_buf_t *b, void *p, size_t n)
{
    if (b->err)
        return -1;
    if (n > spx_buf_remaining(b)) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    if (n)
        memcpy(p, b->data + b->pos, n);
    b->pos += n;
    return 0;
}

static uint64_t pull_le(spx_buf_t *b, unsigned width)
{
    uint8_t tmp[8];
    if (spx_buf_pull_raw(b, tmp, width) < 0)
        return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v |= (uint64_t)tmp[i] << (8 * i);
    return v;
}

uint8_t spx_buf_pull_u8(spx_buf_t *b) { return (uint8_t)pull_le(b, 1); }
uint16_t spx_buf_pull_u16(spx_buf_t *b) { return (uint16_t)pull_le(b, 2); }
uint32_t spx_buf_pull_u32(spx_buf_t *b) { return (uint32_t)pull_le(b, 4); }
uint64_t spx_buf_pull_u64(spx_buf_t *b) { return pull_le(b, 8); }
int32_t spx_buf_pull_i32(spx_buf_t *b) { return (int32_t)(uint32_t)pull_le(b, 4); }

double spx_buf_pull_double(spx_buf_t *b)
{
    uint64_t bits = pull_le(b, 8);
    double v;
    memcpy(&v, &bits, sizeof(v));
    return v;
}

/* Reads a u32 length and checks it against cap and the unread bytes.
 * Returns the length, or -1 with b failed (or -2 for the NULL marker when
 * allow_null). */
static int64_t pull_len(spx_buf_t *b, size_t cap, int allow_null)
{
    uint32_t n = spx_buf_pull_u32(b);
    if (b->err)
        return -1;
    if (allow_null && n == SPX_BUF_NULL_STR)
        return -2;
    if (n > cap) {
        spx_buf_set_error(b, EMSGSIZE);
        return -1;
    }
    if (n > spx_buf_remaining(b)) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    return n;
}

char *spx_buf_pull_str(spx_buf_t *b)
{
    int64_t n = pull_len(b, SPX_BUF_MAX_STR, 1);
    if (n < 0)
        return NULL;
    const uint8_t *src = b->data + b->pos;
    if (memchr(src, '\0', (size_t)n)) {
        spx_buf_set_error(b, EBADMSG);
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        spx_buf_set_error(b, ENOMEM);
        return NULL;
    }
    memcpy(s, src, (size_t)n);
    s[n] = '\0';
    b->pos += (size_t)n;
    return s;
}

void spx_buf_pull_str_into(spx_buf_t *b, char *dst, size_t cap)
{
    if (cap)
        dst[0] = '\0';
    int64_t n = pull_len(b, SPX_BUF_MAX_STR, 1);
    if (n == -2) { /* NULL arrives as the empty string */
        return;
    }
    if (n < 0)
        return;
    const uint8_t *src = b->data + b->pos;
    if ((size_t)n >= cap || memchr(src, '\0', (size_t)n)) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    memcpy(dst, src, (size_t)n);
    dst[n] = '\0';
    b->pos += (size_t)n;
}

void *spx_buf_pull_bytes(spx_buf_t *b, size_t *n)
{
    *n = 0;
    int64_t len = pull_len(b, SPX_BUF_MAX_BLOB, 0);
    if (len <= 0)
        return NULL;
    void *p = malloc((size_t)len);
    if (!p) {
        spx_buf_set_error(b, ENOMEM);
        return NULL;
    }
    memcpy(p, b->data + b->pos, (size_t)len);
    b->pos += (size_t)len;
    *n = (size_t)len;
    return p;
}
