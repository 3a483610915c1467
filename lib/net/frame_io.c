/* frame_io.c - blocking frame send/receive for handshakes, used before the
 * progress loop owns a socket.
 *
 * Both work on blocking and non-blocking fds: they wait with poll() whenever
 * the socket is not ready. The receive side honours one overall deadline,
 * validates the header before reserving payload memory and grows the payload
 * buffer as bytes arrive.
 */
#include "config.h"
#include "net/conn.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until deadline (-1: none). 0 ready, -1 with errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        int timeout = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            timeout = left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd p = { .fd = fd, .events = events };
        int rc = poll(&p, 1, timeout);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(fd, POLLOUT, -1) == 0)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int spx_frame_send_blocking(int fd, uint8_t type, uint16_t flags, uint32_t seq,
                            const spx_buf_t *payload)
{
    size_t len = payload ? payload->len : 0;
    if (len > SPX_FRAME_MAX_PAYLOAD) {
        errno = EMSGSIZE;
        return -1;
    }
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = type, .flags = flags,
                          .seq = seq, .length = (uint32_t)len };
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_encode(&h, hdr);
    if (write_all(fd, hdr, sizeof(hdr)) < 0)
        return -1;
    return len ? write_all(fd, payload->data, len) : 0;
}

static int read_all(int fd, uint8_t *p, size_t n, int64_t deadline)
{
    while (n > 0) {
        if (wait_fd(fd, POLLIN, deadline) < 0)
            return -1;
        ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return -1;
        }
        if (r == 0) {
            errno = ECONNRESET;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int spx_frame_recv_blocking(int fd, spx_frame_hdr_t *h, spx_buf_t *payload, int timeout_ms)
{
    spx_buf_init(payload);
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    if (read_all(fd, hdr, sizeof(hdr), deadline) < 0 || spx_frame_hdr_decode(hdr, h) < 0)
        return -1;
    size_t got = 0;
    while (got < h->length) {
        size_t chunk = h->length - got;
        if (chunk > (1u << 20))
            chunk = 1u << 20;
        if (spx_buf_reserve(payload, chunk) < 0) {
            spx_buf_fini(payload);
            errno = ENOMEM;
            return -1;
        }
        if (read_all(fd, payload->data + got, chunk, deadline) < 0) {
            int err = errno;
            spx_buf_fini(payload);
            errno = err;
            return -1;
        }
        got += chunk;
        payload->len = got;
    }
    return 0;
}
