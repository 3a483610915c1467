/*
 * run_node: one node of an spmix-run job. It embeds the PMIx server, registers
 * the job's namespace, forks the node's ranks and supervises them until they
 * are all gone.
 *
 * With --nodes 1 the spmix-run process itself is the only node (no parent,
 * no tree). With --nodes M the launcher (run_launch) forks M node daemons; each
 * joins the others through the server's tree (SPMIX_TREE_* attributes) and
 * talks to the launcher over two pipes carrying struct spx_run_msg records:
 *   daemon -> launcher: SPAWNED (a = rank, b = pid), END (b = exit code: the
 *       job must end; the daemon already printed why), DONE (b = worst exit
 *       status; every local rank is gone);
 *   launcher -> daemon: END (b = code, a = 1: signal the ranks now, a = 0:
 *       after the usual grace period), FINISH (tear the server down, exit).
 *   EOF on the control pipe means the launcher is gone: the daemon ends its
 *   ranks and exits.
 */
#ifndef SPX_RUN_NODE_H
#define SPX_RUN_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#define SPX_RUN_MAX_PROCS 4096
/* Node k listens on 127.0.(k / 254).(k % 254 + 1) (spx_run_node_ip): nodes
 * 0..253 on 127.0.0.1..127.0.0.254 as before, then 127.0.1.1.., up to
 * 127.0.16.32 for node 4095. Every node needs a rank, so the rank limit
 * bounds the node count too. */
#define SPX_RUN_NODES_PER_OCTET 254u
#define SPX_RUN_MAX_NODES 4096
#define SPX_RUN_TIMEOUT_CODE 124
#define SPX_RUN_SECRET_LEN 32

/* The command line (everything borrowed from argv). */
struct spx_run_opts {
    uint32_t n;            /* ranks */
    uint32_t nodes;        /* simulated nodes, >= 1 */
    uint32_t width;        /* tree width, 0: library default */
    bool cyclic;           /* --map cyclic (default block) */
    bool stats;            /* --stats */
    bool tag;              /* --tag-output */
    bool no_lib_path;      /* --no-lib-path */
    bool keep_going;       /* --keep-going: a rank or node that dies does not end the job */
    bool stdin_tool;       /* --stdin tool: the ranks' stdin is fed by tools (run_stdin) */
    bool tap;              /* --output-tap: the ranks' output also goes to tools (run_out) */
    bool raw;              /* --unbuffered: output forwarded as read, not by lines (run_out) */
    bool nofile_raised;    /* spmix-run raised its RLIMIT_NOFILE from nofile (pipes, sockets) */
    struct rlimit nofile;  /* the limit it was started with, which the ranks get back */
    double timeout;        /* --timeout, 0: none */
    char **xvars;          /* -x arguments */
    size_t nx;
    char **argv;           /* the program and its arguments */
};

/* What one node runs. Pointers are borrowed for the node's lifetime. */
struct spx_run_node_cfg {
    const struct spx_run_opts *o;
    uint32_t index;                 /* this node, 0..nodes-1 */
    const char *nspace;             /* the job's namespace (same on every node) */
    uint16_t port;                  /* the tree's port (node k at spx_run_node_ip(k));
                                       0 with one node: no tree */
    const unsigned char *secret;    /* SPX_RUN_SECRET_LEN bytes; NULL with one node */
    int report_fd, ctl_fd;          /* pipes to/from the launcher; -1 with one node */
    int rank_err;                   /* fd the ranks' stderr goes to */
    void *hwloc_topology;           /* the launcher's hwloc_topology_t, loaded once for
                                       every node (borrowed); NULL: the server's own */
};

enum spx_run_msg_type {
    SPX_RUN_MSG_SPAWNED = 1,
    SPX_RUN_MSG_END = 2,
    SPX_RUN_MSG_DONE = 3,
    SPX_RUN_MSG_FINISH = 4,
};

struct spx_run_msg {
    uint32_t type;
    uint32_t a;
    int32_t b;
};

/* Accumulates records from a non-blocking pipe (reads may split them). */
struct spx_run_msgbuf {
    unsigned char buf[sizeof(struct spx_run_msg) * 16];
    size_t len;
};

const char *spx_run_msg_type_str(uint32_t type);
/* Write one record (blocking write of 12 bytes: atomic on a pipe). 0 or -1. */
int spx_run_msg_send(int fd, uint32_t type, uint32_t a, int32_t b);
/* Read what fd has; calls fn for each complete record. Returns 1 while the
 * pipe is open, 0 at EOF or on an error. */
int spx_run_msg_recv(int fd, struct spx_run_msgbuf *mb,
                     void (*fn)(const struct spx_run_msg *m, void *arg), void *arg);

/* Rank placement: the node of rank r, and the ranks of node k in ascending
 * order (out must hold n entries; returns how many). */
uint32_t spx_run_node_of(const struct spx_run_opts *o, uint32_t rank);
uint32_t spx_run_node_ranks(const struct spx_run_opts *o, uint32_t node, uint32_t *out);
/* How many ranks node k holds. */
uint32_t spx_run_node_count(const struct spx_run_opts *o, uint32_t node);
/* Where node k's server listens for the tree: its IPv4 address in host
 * order (127.0.(k / 254).(k % 254 + 1)), and "a.b.c.d:port" into out. */
uint32_t spx_run_node_ip(uint32_t node);
void spx_run_node_addr(uint32_t node, uint16_t port, char *out, size_t len);

/* Run the node until its ranks are gone (and, under a launcher, until told to
 * finish). Returns the exit code of the node: see spmix-run(1). The caller has
 * blocked SIGCHLD, SIGINT, SIGTERM and SIGHUP (oldmask: the mask before). */
int spx_run_node_main(const struct spx_run_node_cfg *cfg, const void *oldmask);

#endif /* SPX_RUN_NODE_H */
