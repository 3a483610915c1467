/* proto.h - the wire protocol between the tree engines of one step.
 *
 * Every message is one frame (codec/frame.h header: magic, version, type,
 * flags = 0, seq = 0, length) on a TCP connection between two nodes. The
 * frame types below are used only on tree connections (never on client
 * sockets). Payloads are built with codec/buf.h (little endian; "str" = u32
 * length + bytes, "bytes" = u32 length + bytes). The sender's node index is
 * never taken from a payload: it is the authenticated peer of the connection.
 *
 * AUTH (before anything else, both directions; any other type before the
 * handshake is done closes the connection):
 *   u8 step, then
 *   step 1 HELLO     connector -> acceptor: u32 connector, u32 acceptor, raw[32] nonce_c
 *   step 2 CHALLENGE acceptor -> connector: raw[32] nonce_a, proof(acceptor)
 *   step 3 PROOF     connector -> acceptor: proof(connector)
 *   proof(role) is over the transcript  label(role) | nonce_c | nonce_a |
 *                    u32 connector | u32 acceptor | step id   (auth.h):
 *     secret mode: raw[32] HMAC-SHA256(secret, transcript), step id empty
 *     munge mode:  str munge credential whose payload is the transcript (at
 *                  most SPX_TREE_MAX_PROOF bytes), of an allowed uid
 *   label: "spmix-tree-acceptor" / "spmix-tree-connector".
 *   Nonces come from getrandom(). The connector sends nothing else before it
 *   has checked step 2; the acceptor accepts nothing else before step 3.
 *
 *   A tool (not a server of the step: a PMIx tool on a host without one)
 *   authenticates with munge instead, and then leaves the tree protocol:
 *   step 4 TOOL_HELLO     tool -> server: u32 SPX_TREE_TOOL_VERSION
 *   step 5 TOOL_CHALLENGE server -> tool: raw[32] nonce_a
 *   step 6 TOOL_CRED      tool -> server: str munge credential (at most
 *                         SPX_TREE_TOOL_MAX_CRED bytes) whose payload is
 *                         SPX_TREE_TOOL_LABEL | nonce_a (tool_auth.h)
 *   step 7 TOOL_ACK       server -> tool: i32 status, str reason ("" when 0)
 *   After an ACK with status 0 the connection belongs to the server's client
 *   layer with the credential's uid and gid: the tool's next frame is the
 *   client protocol's HELLO (proto/msg.h), sent only once the ACK arrived.
 *   An ACK with an error is followed by the close; anything malformed or
 *   out of order closes at once (logged, counted as an auth reject).
 * UP:        str set_id, u32 seq, i32 status, u32 flags, u8 up_flags, bytes data
 * DOWN:      str set_id, u32 seq, i32 status, bytes data
 * MSG:       u8 channel, bytes data                     (point to point)
 * BCAST:     u32 origin, u8 channel, bytes data         (flooded along the full tree)
 * NODE_LOST: u32 node, str reason                       (flooded along the full tree)
 * NODE_LEFT: u32 node                                   (flooded along the full tree)
 *   Sent by a node that ends in order (its processes finished, no collective
 *   of its own unfinished) on every ready link just before it closes them,
 *   so that the closing links are not taken for a failure.
 */
#ifndef SPX_TREE_PROTO_H
#define SPX_TREE_PROTO_H

enum spx_tree_frame_type {
    SPX_TREE_FRAME_AUTH = 0xA0,
    SPX_TREE_FRAME_UP = 0xA1,
    SPX_TREE_FRAME_DOWN = 0xA2,
    SPX_TREE_FRAME_MSG = 0xA3,
    SPX_TREE_FRAME_BCAST = 0xA4,
    SPX_TREE_FRAME_NODE_LOST = 0xA5,
    SPX_TREE_FRAME_NODE_LEFT = 0xA6,
};

enum spx_tree_auth_step {
    SPX_TREE_AUTH_HELLO = 1,
    SPX_TREE_AUTH_CHALLENGE = 2,
    SPX_TREE_AUTH_PROOF = 3,
    SPX_TREE_AUTH_TOOL_HELLO = 4,
    SPX_TREE_AUTH_TOOL_CHALLENGE = 5,
    SPX_TREE_AUTH_TOOL_CRED = 6,
    SPX_TREE_AUTH_TOOL_ACK = 7,
};

#include <stdint.h>

/* Names for log lines ("UNKNOWN" for other values); frames.c, tree.c and handshake.c. */
const char *spx_tree_frame_type_str(uint8_t type);
const char *spx_tree_auth_step_str(uint8_t step);

#define SPX_TREE_NONCE_LEN 32
#define SPX_TREE_MAX_REASON 1024u /* longest NODE_LOST reason accepted */
#define SPX_TREE_AUTH_LABEL_ACCEPTOR "spmix-tree-acceptor"
#define SPX_TREE_AUTH_LABEL_CONNECTOR "spmix-tree-connector"
#define SPX_TREE_TOOL_VERSION 1u
#define SPX_TREE_TOOL_LABEL "spmix-tree-tool"
#define SPX_TREE_TOOL_MAX_CRED 4096u   /* longest munge credential accepted */
/* longest frame payload a link reads before it is authenticated: the
 * handshake's frames (a tool's credential is the largest) */
#define SPX_TREE_MAX_AUTH_FRAME (SPX_TREE_TOOL_MAX_CRED + 1024u)
#define SPX_TREE_TOOL_MAX_REASON 512u  /* longest ACK reason a tool reads */

#endif
