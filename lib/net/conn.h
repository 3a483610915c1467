/* conn.h - one framed stream connection driven by a libevent event_base.
 *
 * The connection reads frames (codec/frame.h) and hands each complete one to
 * on_frame; it writes queued frames as the socket allows. All functions must
 * be called on the thread that runs the event_base (the progress thread),
 * except spx_conn_create which may be called before the loop runs.
 *
 * Failure handling: a bad header, an over-cap length, a read error or EOF
 * closes the connection: the reason is logged once (with the peer label; EOF
 * and a peer's reset between frames at debug level, as normal ends), the
 * fd is closed and on_close runs exactly once. After on_close returns the
 * connection is freed by the net layer at a later loop turn (mark and reap),
 * so it is safe to call spx_conn_close from inside on_frame.
 */
#ifndef SPX_NET_CONN_H
#define SPX_NET_CONN_H

#include <stdint.h>
#include <sys/types.h>
#include <event2/event.h>

#include "codec/buf.h"
#include "codec/frame.h"

typedef struct spx_conn spx_conn_t;

/* payload: the frame's bytes (malloc'd by the connection), positioned at
 * their start. Lent for the duration of the call, unless the handler takes
 * them with spx_buf_release(payload) (it then owns the block and frees it
 * with free(); pointers it took into payload->data stay valid, the block is
 * never moved). What it does not take is freed when it returns. */
typedef void (*spx_conn_frame_f)(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *payload,
                                 void *arg);
/* reason: borrowed string. Called once. The conn pointer is still valid during
 * the call and must not be used after it returns. */
typedef void (*spx_conn_close_f)(spx_conn_t *c, const char *reason, void *arg);

/* fd: ownership passes to the connection (set non-blocking here).
 * label: copied; used in log lines ("client ns.3", "peer 10.0.0.2:4000").
 * Returns NULL (fd closed) on failure. */
spx_conn_t *spx_conn_create(struct event_base *base, int fd, const char *label,
                            spx_conn_frame_f on_frame, spx_conn_close_f on_close, void *arg);

/* Queues one frame. payload: its bytes are taken (the buffer is left empty);
 * NULL means an empty payload. Returns 0, or -1 if the connection is closed. */
int spx_conn_send(spx_conn_t *c, uint8_t type, uint16_t flags, uint32_t seq, spx_buf_t *payload);

/* Queues one frame whose payload is the concatenation of iov[0..niov)
 * (borrowed: read during the call only). The bytes the socket takes at once
 * are written straight from iov (sendmsg); only what it does not take (or
 * everything, when earlier frames still wait) is copied into the queue.
 * Returns 0, or -1 (closed: ENOTCONN; over SPX_FRAME_MAX_PAYLOAD: EMSGSIZE;
 * ENOMEM). Write errors are reported as for spx_conn_send. */
struct iovec;
int spx_conn_sendv(spx_conn_t *c, uint8_t type, uint16_t flags, uint32_t seq,
                   const struct iovec *iov, size_t niov);

/* Closes with a logged reason (at warning level if is_error, else debug);
 * idempotent. on_close runs before this returns (if not run already). What
 * the peer sent and was not read stays in the socket (another descriptor of
 * it may go on: a tool handed over by the tree). */
void spx_conn_close(spx_conn_t *c, const char *reason, int is_error);
/* An orderly close of ours (logged at debug level) after which nobody uses
 * the socket: the bytes the peer sent that were not read are dropped first
 * (up to 256 KiB, without waiting), so that it sees the end of the stream
 * rather than a reset (ECONNRESET). */
void spx_conn_close_final(spx_conn_t *c, const char *reason);

/* Reads and dispatches, now, whatever the socket already holds (as a readable
 * event would); for a caller that must see a peer's last frames before it
 * acts on another connection's end. No-op on a closed connection. */
void spx_conn_drain(spx_conn_t *c);

/* Writes out what is still queued, waiting at most timeout_ms for the socket
 * to take it; for a caller about to close the connection on purpose whose
 * last frames must not be dropped. 0 when nothing is left queued, -1
 * otherwise (timeout, write error, or closed). Blocks the calling thread. */
int spx_conn_flush_wait(spx_conn_t *c, int timeout_ms);

void spx_conn_set_arg(spx_conn_t *c, void *arg);
/* A frame's block that on_frame did not take is kept (if at most max bytes
 * are allocated) and read into by the next frame, instead of freed and
 * allocated again: for a connection that carries large frames again and
 * again (a tree link). Default 0: nothing kept. */
void spx_conn_keep_spare(spx_conn_t *c, size_t max);
/* Frames with a longer payload close the connection (with a log line)
 * before their payload is read: a peer not yet authenticated may announce
 * no more than max bytes. Default and ceiling: SPX_FRAME_MAX_PAYLOAD. */
void spx_conn_set_max_payload(spx_conn_t *c, size_t max);
void *spx_conn_get_arg(const spx_conn_t *c);
const char *spx_conn_label(const spx_conn_t *c);
/* Bytes and frames sent/received, for statistics. */
void spx_conn_counters(const spx_conn_t *c, uint64_t *bytes_out, uint64_t *frames_out,
                       uint64_t *bytes_in, uint64_t *frames_in);

/* ---- blocking helpers for handshakes done before the progress loop owns the fd ---- */

/* Writes one whole frame; 0 or -1 with errno. */
int spx_frame_send_blocking(int fd, uint8_t type, uint16_t flags, uint32_t seq,
                            const spx_buf_t *payload);
/* Reads one whole frame within timeout_ms (-1: no limit) into payload (initialised
 * here, caller fini's it). 0 or -1 with errno (ETIMEDOUT, EBADMSG, EMSGSIZE, ECONNRESET). */
int spx_frame_recv_blocking(int fd, spx_frame_hdr_t *h, spx_buf_t *payload, int timeout_ms);

#endif
