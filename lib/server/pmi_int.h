/* pmi_int.h - what the two files of the PMI wire engine share:
 * pmi_wire.c (connections, reading and writing, life) and pmi_cmds.c (the
 * PMI-1 / PMI-2 commands and the answers to them). Progress thread only.
 */
#ifndef SPX_SERVER_PMI_INT_H
#define SPX_SERVER_PMI_INT_H
#include <stdbool.h>
#include <sys/queue.h>

#include "proto/pmi_text.h"
#include "server/engine_pmi.h"

enum spx_pmi_mode { SPX_PMI_MODE_NEW, SPX_PMI_MODE_V1, SPX_PMI_MODE_V2 };
/* What a connection waits for from the server (one request at a time). */
enum spx_pmi_wait {
    SPX_PMI_WAIT_NONE, SPX_PMI_WAIT_FENCE, SPX_PMI_WAIT_FINALIZE, SPX_PMI_WAIT_PUBLISH,
    SPX_PMI_WAIT_UNPUBLISH, SPX_PMI_WAIT_LOOKUP, SPX_PMI_WAIT_ABORT, SPX_PMI_WAIT_NODEATTR
};

struct event;
struct spx_srv_pmi_conn {
    LIST_ENTRY(spx_srv_pmi_conn) link;  /* in ctx->pmi->conns or ->dead */
    struct spx_srv_ctx *ctx;        /* borrowed */
    struct spx_srv_peer *peer;      /* one reference (owned); peer->pmi points back */
    pmix_proc_t proc;
    int fd;                         /* the server's end (owned) */
    int task_fd;                    /* the task's end until the task spoke, or -1 (owned) */
    struct event *rev, *wev;        /* owned */
    char in[SPX_PMI_V2_HDR + SPX_PMI_MAX_MSG + 2];
    size_t inlen;
    char *out;                      /* bytes the socket did not take yet (owned) */
    size_t outlen, outcap;
    enum spx_pmi_mode mode;
    enum spx_pmi_wait wait;         /* a request with the server: input waits */
    bool bound;                     /* the peer is the client's connection */
    bool closed;
    bool dispatching;
    uint32_t seq;
    char waitkey[SPX_PMI_MAX_KEY + 1]; /* SPX_PMI_WAIT_NODEATTR: the key */
};

struct spx_pmi_nodeattr {
    LIST_ENTRY(spx_pmi_nodeattr) link;
    char nspace[PMIX_MAX_NSLEN + 1];
    char *key, *val;                /* owned */
};

struct spx_srv_pmi {
    LIST_HEAD(, spx_srv_pmi_conn) conns;
    LIST_HEAD(, spx_srv_pmi_conn) dead;  /* closed, freed at the next loop turn */
    LIST_HEAD(, spx_pmi_nodeattr) attrs; /* info-putnodeattr values of this node */
    size_t nattrs;
    struct event *reap;             /* frees the dead at the next loop turn (owned) */
    bool reap_armed;
};
#define SPX_PMI_MAX_NODEATTRS 4096

/* ---- pmi_wire.c ---- */
/* Queues text (n bytes; a PMI-2 message gets its length header here). */
void spx_pmi_send(struct spx_srv_pmi_conn *c, const char *text, size_t n);
/* Closes with a log line (warning when is_error); idempotent. */
void spx_pmi_conn_close(struct spx_srv_pmi_conn *c, const char *reason, bool is_error);
/* Makes the peer the client's connection (first command). 0, or -1 with
 * the reason in *why (not registered any more, a PMIx client connected). */
int spx_pmi_bind(struct spx_srv_pmi_conn *c, const char **why);
/* A request of c was answered without a reply of the server's: c goes on
 * with its input. */
void spx_pmi_resume(struct spx_srv_pmi_conn *c);

/* ---- pmi_cmds.c ---- */
/* One parsed command (mode already decided). 0, or -1: close the connection. */
int spx_pmi_dispatch(struct spx_srv_pmi_conn *c, const struct spx_pmi_cmd *cmd);
/* The server's reply to the waiting request (payload: i32 status ...). */
void spx_pmi_answer(struct spx_srv_pmi_conn *c, uint8_t type, spx_buf_t *payload);
/* An info-putnodeattr arrived: answer the connections waiting for key. */
void spx_pmi_nodeattr_wake(struct spx_srv_ctx *ctx, const char *nspace, const char *key);
#endif
