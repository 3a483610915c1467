/* client_remote.c - a tool's connection to a server on another host (a
 * login node reaching a Slurm step): PMIX_SERVER_URI "spmix-tcp://HOST:PORT",
 * HOST:PORT being the tree address of one of the step's servers. TCP, then
 * the tool steps of the tree's AUTH frame (lib/tree/proto.h): TOOL_HELLO,
 * the server's TOOL_CHALLENGE (a nonce), TOOL_CRED (a munge credential
 * bound to that nonce, tool_auth.h), and the server's TOOL_ACK. Only after
 * an ACK of success does the socket carry the client protocol (the tool's
 * HELLO, client_init.c): the server's tree listener reads nothing past the
 * credential, so nothing is lost when it hands the socket to its client
 * layer. Everything blocks on the caller's thread, before the progress loop
 * owns the socket; every wait is bounded.
 */
#include "config.h"
#include "client/client_remote.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "tree/proto.h"
#include "tree/tool_auth.h"
#include "util/log.h"

#define REMOTE_TIMEOUT_MS 10000 /* connect, and each answer of the server */

bool spx_client_remote_uri(const char *addr)
{
    return addr && strncmp(addr, SPX_TCP_URI_PREFIX, strlen(SPX_TCP_URI_PREFIX)) == 0;
}

/* "HOST:PORT" or "[V6]:PORT" -> a TCP socket connected within the timeout
 * (blocking mode), or -1 (logged). */
static int tcp_connect(const char *uri)
{
    const char *hp = uri + strlen(SPX_TCP_URI_PREFIX);
    const char *colon = strrchr(hp, ':');
    char host[256];
    size_t hl = colon ? (size_t)(colon - hp) : 0;
    if (hl >= 2 && hp[0] == '[' && hp[hl - 1] == ']')
        hp++, hl -= 2;
    if (!colon || hl == 0 || hl >= sizeof(host) || !colon[1] ||
        strspn(colon + 1, "0123456789") != strlen(colon + 1)) {
        spx_error("'%.200s' is not an address of the form %sHOST:PORT", uri, SPX_TCP_URI_PREFIX);
        errno = EINVAL;
        return -1;
    }
    memcpy(host, hp, hl);
    host[hl] = '\0';
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *a;
    int g = getaddrinfo(host, colon + 1, &hints, &res);
    if (g != 0) {
        spx_error("%s: cannot resolve %s: %s", uri, host, gai_strerror(g));
        errno = EHOSTUNREACH;
        return -1;
    }
    int fd = -1, err = ECONNREFUSED;
    for (a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
            err = errno;
            close(fd);
            fd = -1;
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int so = 0;
        socklen_t sl = sizeof(so);
        int r;
        while ((r = poll(&p, 1, REMOTE_TIMEOUT_MS)) < 0 && errno == EINTR)
            ;
        if (r == 0)
            so = ETIMEDOUT;
        else if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) < 0)
            so = errno;
        if (so) {
            err = so;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        spx_error("%s: cannot connect: %s", uri, strerror(err));
        errno = err;
        return -1;
    }
    int flags = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &flags, sizeof(flags));
    return fd;
}

/* Sends one AUTH frame built in b (finished here); 0 or -1. */
static int send_auth(int fd, spx_buf_t *b)
{
    int rc = spx_buf_failed(b) ? -1 : spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, b);
    spx_buf_fini(b);
    return rc;
}

/* Reads the server's next AUTH frame, expecting step; the rest of the
 * payload in *b (caller fini's it). 0, or -1 (logged). An early TOOL_ACK
 * (the server refused before the credential) is reported with its reason. */
static int recv_auth(int fd, const char *uri, uint8_t step, spx_buf_t *b)
{
    spx_frame_hdr_t h;
    if (spx_frame_recv_blocking(fd, &h, b, REMOTE_TIMEOUT_MS) != 0) {
        int e = errno;
        spx_error("%s: no answer from the server: %s", uri,
                  e == ECONNRESET ? "connection closed" : strerror(e));
        errno = e == ETIMEDOUT ? ETIMEDOUT : ECONNREFUSED;
        return -1;
    }
    uint8_t got = h.type == SPX_TREE_FRAME_AUTH ? spx_buf_pull_u8(b) : 0;
    if (got == step)
        return 0;
    if (got == SPX_TREE_AUTH_TOOL_ACK) {
        int32_t st = spx_buf_pull_i32(b);
        char why[SPX_TREE_TOOL_MAX_REASON];
        spx_buf_pull_str_into(b, why, sizeof(why));
        spx_error("%s: the server refused: %s (%s)", uri,
                  spx_buf_failed(b) ? "no reason given" : why, PMIx_Error_string(st));
        errno = st == PMIX_ERR_NOT_SUPPORTED ? ENOTSUP : EACCES;
    } else {
        spx_error("%s: not an spmix step's server (frame type 0x%x)", uri, h.type);
        errno = EPROTO;
    }
    spx_buf_fini(b);
    return -1;
}

static int remote_connect(const char *uri)
{
    char err[256];
    if (!spx_tool_auth_supported()) {
        spx_error("%s: this spmix was built without libmunge (libmunge-dev): a tool cannot "
                  "authenticate to a server on another host", uri);
        errno = ENOTSUP;
        return -1;
    }
    int fd = tcp_connect(uri);
    if (fd < 0)
        return -1;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_HELLO);
    spx_buf_push_u32(&b, SPX_TREE_TOOL_VERSION);
    uint8_t nonce[SPX_TREE_NONCE_LEN];
    char *cred = NULL;
    int e = 0;
    if (send_auth(fd, &b) != 0) {
        e = errno;
        spx_error("%s: cannot send: %s", uri, strerror(e));
        goto fail;
    }
    if (recv_auth(fd, uri, SPX_TREE_AUTH_TOOL_CHALLENGE, &b) != 0) {
        e = errno;
        goto fail;
    }
    spx_buf_pull_raw(&b, nonce, sizeof(nonce));
    int bad = spx_buf_finish(&b);
    spx_buf_fini(&b);
    if (bad) {
        spx_error("%s: malformed challenge from the server", uri);
        e = EPROTO;
        goto fail;
    }
    if (!(cred = spx_tool_auth_encode(nonce, err, sizeof(err)))) {
        spx_error("%s: %s", uri, err);
        e = EACCES;
        goto fail;
    }
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CRED);
    spx_buf_push_str(&b, cred);
    free(cred);
    if (send_auth(fd, &b) != 0) {
        e = errno;
        spx_error("%s: cannot send: %s", uri, strerror(e));
        goto fail;
    }
    if (recv_auth(fd, uri, SPX_TREE_AUTH_TOOL_ACK, &b) != 0) {
        e = errno;
        goto fail;
    }
    int32_t st = spx_buf_pull_i32(&b);
    char why[SPX_TREE_TOOL_MAX_REASON];
    spx_buf_pull_str_into(&b, why, sizeof(why));
    bad = spx_buf_finish(&b);
    spx_buf_fini(&b);
    if (bad) {
        spx_error("%s: malformed answer from the server", uri);
        e = EPROTO;
        goto fail;
    }
    if (st != PMIX_SUCCESS) {
        spx_error("%s: the server refused: %s (%s)", uri, why, PMIx_Error_string(st));
        e = EACCES;
        goto fail;
    }
    spx_debug("%s: authenticated by munge", uri);
    return fd;
fail:
    close(fd);
    errno = e ? e : ECONNREFUSED;
    return -1;
}

int spx_client_connect(const char *addr)
{
    return spx_client_remote_uri(addr) ? remote_connect(addr) : spx_unix_connect(addr);
}

pmix_status_t spx_client_connect_status(int err)
{
    return err == ENOTSUP ? PMIX_ERR_NOT_SUPPORTED
           : err == EACCES ? PMIX_ERR_NO_PERMISSIONS
                           : PMIX_ERR_UNREACH;
}
