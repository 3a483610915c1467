/* handshake.c - how a tree link proves itself before it carries frames:
 * the mutual challenge/response between two engines of the step (HELLO,
 * CHALLENGE, PROOF: a proof of auth.h over a transcript that binds both
 * nonces and both node indices), a PMIx tool's munge steps on the same port
 * (TOOL_HELLO .. TOOL_ACK, tool_auth.h), and the deadline for either.
 *
 * transport.c owns the links and calls in here: it starts the connector's
 * side once TCP is up (spx_tree_handshake_connect), arms the acceptor's
 * (spx_tree_handshake_accept), and hands every frame of a link not yet
 * ready to spx_tree_handshake_frame, which answers whether the link has just
 * become authenticated (transport.c then makes it ready and flushes its
 * queue). Nothing here calls back into transport.c: a link that fails is
 * closed with spx_conn_close, whose close callback is transport.c's.
 * A bad proof, a foreign frame or a timeout closes the connection with a
 * log line and counts an auth reject (t->auth_rejects).
 * A tool's connection, once its credential is checked and the ACK sent,
 * is handed to ops.tool_accept (a dup of the socket, the tool's uid/gid);
 * the link itself closes. spx_conn reads one frame at a time, so nothing the
 * tool sends after the ACK was read here.
 */
#include "config.h"
#include "tree/auth.h"
#include "tree/internal.h"
#include "tree/tool_auth.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Names for log lines: a link's states (internal.h; all but READY and
 * CLOSED are steps of this handshake) and the AUTH steps (proto.h). */
const char *spx_tree_link_state_str(spx_tree_link_state_t s)
{
    switch (s) {
    case SPX_TREE_LINK_CONNECTING: return "CONNECTING";
    case SPX_TREE_LINK_HELLO_SENT: return "HELLO_SENT";
    case SPX_TREE_LINK_WAIT_HELLO: return "WAIT_HELLO";
    case SPX_TREE_LINK_WAIT_PROOF: return "WAIT_PROOF";
    case SPX_TREE_LINK_TOOL_WAIT_CRED: return "TOOL_WAIT_CRED";
    case SPX_TREE_LINK_READY: return "READY";
    case SPX_TREE_LINK_CLOSED: return "CLOSED";
    }
    return "UNKNOWN";
}

const char *spx_tree_auth_step_str(uint8_t step)
{
    switch (step) {
    case SPX_TREE_AUTH_HELLO: return "HELLO";
    case SPX_TREE_AUTH_CHALLENGE: return "CHALLENGE";
    case SPX_TREE_AUTH_PROOF: return "PROOF";
    case SPX_TREE_AUTH_TOOL_HELLO: return "TOOL_HELLO";
    case SPX_TREE_AUTH_TOOL_CHALLENGE: return "TOOL_CHALLENGE";
    case SPX_TREE_AUTH_TOOL_CRED: return "TOOL_CRED";
    case SPX_TREE_AUTH_TOOL_ACK: return "TOOL_ACK";
    }
    return "UNKNOWN";
}


/* The transcript a proof is made of (auth.h): role label | nonce_c |
 * nonce_a | u32 connector | u32 acceptor (little endian) | the step's id.
 * Returns its length (out holds SPX_TREE_TRANSCRIPT_MAX bytes). */
#define SPX_TREE_TRANSCRIPT_MAX (32 + 2 * SPX_TREE_NONCE_LEN + 8 + SPX_TREE_MAX_AUTH_ID)
static size_t transcript(const spx_tree_t *t, const char *label, const spx_tree_link_t *l,
                         uint32_t connector, uint32_t acceptor, uint8_t *out)
{
    size_t n = strlen(label), idlen = strlen(spx_tree_auth_id(t->auth));
    memcpy(out, label, n);
    memcpy(out + n, l->nonce_c, SPX_TREE_NONCE_LEN);
    n += SPX_TREE_NONCE_LEN;
    memcpy(out + n, l->nonce_a, SPX_TREE_NONCE_LEN);
    n += SPX_TREE_NONCE_LEN;
    for (int i = 0; i < 4; i++) {
        out[n + i] = (uint8_t)(connector >> (8 * i));
        out[n + 4 + i] = (uint8_t)(acceptor >> (8 * i));
    }
    n += 8;
    memcpy(out + n, spx_tree_auth_id(t->auth), idlen);
    return n + idlen;
}

static int fill_nonce(uint8_t *p)
{
    size_t got = 0;
    while (got < SPX_TREE_NONCE_LEN) {
        ssize_t r = getrandom(p + got, SPX_TREE_NONCE_LEN - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

/* Sends a built AUTH payload (b's bytes borrowed for the call; b is
 * emptied); 0 or -1. */
static int send_auth(spx_tree_link_t *l, spx_buf_t *b)
{
    int rc = -1;
    if (!spx_buf_failed(b))
        rc = spx_tree_link_send(l->t, l->conn, SPX_TREE_FRAME_AUTH, b->data, b->len) < 0 ? -1 : 0;
    spx_buf_fini(b);
    return rc;
}

/* ---- the handshake ---- */

static void reject(spx_tree_link_t *l, const char *why)
{
    l->t->auth_rejects++;
    spx_warn("tree: node %u: %s: %s; closing", l->t->self, spx_conn_label(l->conn), why);
    spx_conn_close(l->conn, why, 1);
}

/* ---- tools (munge) ---- */

/* Sends a tool its TOOL_ACK and waits (a second at most) until the socket
 * took it: the link closes right after. 0 or -1. */
static int tool_ack(spx_tree_link_t *l, int32_t status, const char *why)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_ACK);
    spx_buf_push_i32(&b, status);
    spx_buf_push_str(&b, why ? why : "");
    if (send_auth(l, &b) < 0)
        return -1;
    return spx_conn_flush_wait(l->conn, 1000);
}

/* Refuses a tool that spoke the protocol: it learns why, then the close. */
static void tool_refuse(spx_tree_link_t *l, int32_t status, const char *why)
{
    char msg[SPX_TREE_TOOL_MAX_REASON];
    snprintf(msg, sizeof(msg), "tool refused: %s", why);
    tool_ack(l, status, msg);
    reject(l, msg);
}

static void tool_hello(spx_tree_link_t *l, spx_buf_t *p)
{
    spx_tree_t *t = l->t;
    uint32_t version = spx_buf_pull_u32(p);
    if (spx_buf_finish(p) < 0)
        return reject(l, "malformed tool hello");
    if (version != SPX_TREE_TOOL_VERSION)
        return tool_refuse(l, PMIX_ERR_NOT_SUPPORTED, "tool protocol version mismatch");
    if (!t->ops.tool_accept)
        return tool_refuse(l, PMIX_ERR_NOT_SUPPORTED, "this server takes no tools on its tree port");
    if (!spx_tool_auth_supported())
        return tool_refuse(l, PMIX_ERR_NOT_SUPPORTED,
                           "this server was built without libmunge (libmunge-dev)");
    if (fill_nonce(l->nonce_a) < 0)
        return reject(l, "getrandom failed");
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CHALLENGE);
    spx_buf_push_raw(&b, l->nonce_a, SPX_TREE_NONCE_LEN);
    l->state = SPX_TREE_LINK_TOOL_WAIT_CRED;
    if (send_auth(l, &b) < 0)
        spx_conn_close(l->conn, "tree: cannot send a tool challenge", 1);
}

static void tool_cred(spx_tree_link_t *l, spx_buf_t *p)
{
    spx_tree_t *t = l->t;
    char cred[SPX_TREE_TOOL_MAX_CRED + 1], why[SPX_TREE_TOOL_MAX_REASON - 32];
    if (spx_buf_remaining(p) > 4 + SPX_TREE_TOOL_MAX_CRED)
        return reject(l, "tool credential too long");
    spx_buf_pull_str_into(p, cred, sizeof(cred));
    if (spx_buf_finish(p) < 0)
        return reject(l, "malformed tool credential");
    uid_t uid;
    gid_t gid;
    if (spx_tool_auth_decode(cred, l->nonce_a, &uid, &gid, why, sizeof(why)) != 0)
        return tool_refuse(l, PMIX_ERR_NO_PERMISSIONS, why);
    char label[160];
    snprintf(label, sizeof(label), "remote tool uid %ld (%s)", (long)uid,
             spx_conn_label(l->conn));
    int fd = dup(l->sock); /* the socket outlives this link's close */
    if (fd < 0)
        return tool_refuse(l, PMIX_ERR_NOMEM, "out of file descriptors");
    if (tool_ack(l, PMIX_SUCCESS, NULL) != 0) {
        close(fd);
        return spx_conn_close(l->conn, "tree: cannot answer a tool", 1);
    }
    spx_info("tree: node %u: %s: munge credential of uid %ld gid %ld accepted; handed to the "
             "server", t->self, spx_conn_label(l->conn), (long)uid, (long)gid);
    spx_conn_close(l->conn, "tree: handed to the server as a tool", 0);
    t->ops.tool_accept(fd, uid, gid, label, t->ops_arg);
}

/* One AUTH frame p (borrowed) on link l in its current state: answers the
 * step, or rejects it. *authenticated is set when this step completed the
 * handshake (the caller makes the link ready). */
static void auth_step(spx_tree_link_t *l, spx_buf_t *p, bool *authenticated)
{
    spx_tree_t *t = l->t;
    uint8_t step = spx_buf_pull_u8(p);
    uint8_t msg[SPX_TREE_TRANSCRIPT_MAX];
    char why[400], what[480];
    if (l->state == SPX_TREE_LINK_WAIT_HELLO && step == SPX_TREE_AUTH_TOOL_HELLO)
        return tool_hello(l, p);
    if (l->state == SPX_TREE_LINK_TOOL_WAIT_CRED && step == SPX_TREE_AUTH_TOOL_CRED)
        return tool_cred(l, p);
    if (l->state == SPX_TREE_LINK_WAIT_HELLO && step == SPX_TREE_AUTH_HELLO) {
        uint32_t from = spx_buf_pull_u32(p), to = spx_buf_pull_u32(p);
        spx_buf_pull_raw(p, l->nonce_c, SPX_TREE_NONCE_LEN);
        if (spx_buf_finish(p) < 0)
            return reject(l, "malformed authentication hello");
        if (to != t->self || from >= t->n || from == t->self)
            return reject(l, "authentication hello for a wrong node");
        if (fill_nonce(l->nonce_a) < 0)
            return reject(l, "getrandom failed");
        l->peer = from;
        size_t n = transcript(t, SPX_TREE_AUTH_LABEL_ACCEPTOR, l, from, t->self, msg);
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_u8(&b, SPX_TREE_AUTH_CHALLENGE);
        spx_buf_push_raw(&b, l->nonce_a, SPX_TREE_NONCE_LEN);
        if (spx_tree_auth_push_proof(t->auth, &b, msg, n, why, sizeof(why)) != 0) {
            spx_buf_fini(&b);
            snprintf(what, sizeof(what), "cannot prove this node to node %u: %s", from, why);
            return reject(l, what);
        }
        l->state = SPX_TREE_LINK_WAIT_PROOF;
        if (send_auth(l, &b) < 0)
            spx_conn_close(l->conn, "tree: cannot send challenge", 1);
        return;
    }
    if (l->state == SPX_TREE_LINK_HELLO_SENT && step == SPX_TREE_AUTH_CHALLENGE) {
        spx_buf_pull_raw(p, l->nonce_a, SPX_TREE_NONCE_LEN);
        size_t n = transcript(t, SPX_TREE_AUTH_LABEL_ACCEPTOR, l, t->self, l->peer, msg);
        if (spx_buf_failed(p))
            return reject(l, "malformed authentication challenge");
        if (spx_tree_auth_pull_check(t->auth, p, msg, n, why, sizeof(why)) != 0) {
            snprintf(what, sizeof(what), "node %u failed authentication: %s", l->peer, why);
            return reject(l, what);
        }
        if (spx_buf_finish(p) < 0)
            return reject(l, "malformed authentication challenge");
        n = transcript(t, SPX_TREE_AUTH_LABEL_CONNECTOR, l, t->self, l->peer, msg);
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_u8(&b, SPX_TREE_AUTH_PROOF);
        if (spx_tree_auth_push_proof(t->auth, &b, msg, n, why, sizeof(why)) != 0) {
            spx_buf_fini(&b);
            snprintf(what, sizeof(what), "cannot prove this node to node %u: %s", l->peer, why);
            return reject(l, what);
        }
        if (send_auth(l, &b) < 0)
            return spx_conn_close(l->conn, "tree: cannot send proof", 1);
        *authenticated = true;
        return;
    }
    if (l->state == SPX_TREE_LINK_WAIT_PROOF && step == SPX_TREE_AUTH_PROOF) {
        size_t n = transcript(t, SPX_TREE_AUTH_LABEL_CONNECTOR, l, l->peer, t->self, msg);
        if (spx_tree_auth_pull_check(t->auth, p, msg, n, why, sizeof(why)) != 0) {
            snprintf(what, sizeof(what), "node %u failed authentication: %s", l->peer, why);
            return reject(l, what);
        }
        if (spx_buf_finish(p) < 0)
            return reject(l, "malformed authentication proof");
        *authenticated = true;
        return;
    }
    spx_debug("tree: node %u: authentication step %s (%u) in link state %s", t->self,
              spx_tree_auth_step_str(step), step, spx_tree_link_state_str(l->state));
    reject(l, "unexpected authentication step");
}

bool spx_tree_handshake_frame(spx_tree_link_t *l, uint8_t type, spx_buf_t *p)
{
    bool authenticated = false;
    if (type != SPX_TREE_FRAME_AUTH)
        reject(l, "frame before authentication");
    else
        auth_step(l, p, &authenticated);
    return authenticated;
}

void spx_tree_handshake_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    spx_tree_link_t *l = arg;
    (void)fd, (void)what;
    if (l->state == SPX_TREE_LINK_READY || l->state == SPX_TREE_LINK_CLOSED || !l->conn)
        return;
    l->t->auth_rejects++;
    spx_conn_close(l->conn, "tree: authentication not completed in time", 1);
}

/* Until authenticated a link reads no frame longer than a handshake's, and
 * has SPX_TREE_AUTH_TIMEOUT seconds to finish. */
static void arm_unauthenticated(spx_tree_link_t *l)
{
    spx_conn_set_max_payload(l->conn, SPX_TREE_MAX_AUTH_FRAME);
    struct timeval tv = spx_tree_timeval(SPX_TREE_AUTH_TIMEOUT);
    event_add(l->auth_ev, &tv);
}

void spx_tree_handshake_accept(spx_tree_link_t *l)
{
    arm_unauthenticated(l);
}

void spx_tree_handshake_connect(spx_tree_link_t *l)
{
    spx_tree_t *t = l->t;
    l->state = SPX_TREE_LINK_HELLO_SENT;
    arm_unauthenticated(l);
    if (fill_nonce(l->nonce_c) < 0) {
        spx_conn_close(l->conn, "tree: getrandom failed", 1);
        return;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, t->self);
    spx_buf_push_u32(&b, l->peer);
    spx_buf_push_raw(&b, l->nonce_c, SPX_TREE_NONCE_LEN);
    if (send_auth(l, &b) < 0)
        spx_conn_close(l->conn, "tree: cannot send hello", 1);
}
