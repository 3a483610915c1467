/* spmix.h - spmix's own extensions to the PMIx API: attributes a host passes
 * to PMIx_server_init to join the servers of a multi-node job into a tree, and
 * query keys that report the tree's counters.
 *
 * Multi-node operation: every node's host (spmix-run's node daemon, or the
 * Slurm plugin in slurmstepd) calls PMIx_server_init with
 *   SPMIX_TREE_NODE_INDEX (uint32)  this node's index, 0..n-1
 *   SPMIX_TREE_ADDRS      (string)  "ip:port,ip:port,..." one per node, in node-index
 *                                   order; node i must be the i-th host of the
 *                                   PMIX_NODE_MAP registered for the namespace
 *   SPMIX_TREE_SECRET     (byte object, >= 16 bytes) the step's shared secret
 *                                   (not with SPMIX_TREE_AUTH "munge")
 *   SPMIX_TREE_AUTH       (string, optional) how the servers prove to each other
 *                                   that they belong to the step: "secret" (the
 *                                   default: HMAC-SHA256 of SPMIX_TREE_SECRET) or
 *                                   "munge" (a munge credential bound to each
 *                                   connection; needs libmunge and munged)
 *   SPMIX_TREE_AUTH_UIDS  (string) with "munge": the uids whose credentials are
 *                                   accepted, "uid,uid,..." (1..16; e.g. the job's
 *                                   user, 0 and SlurmUser)
 *   SPMIX_TREE_AUTH_ID    (string) with "munge": the step's name, bound into every
 *                                   credential (at most 256 bytes)
 *   SPMIX_TREE_WIDTH      (uint32, optional) tree width, default 16
 *   SPMIX_TREE_TIMEOUT    (uint32, optional) seconds to wait for peers to come up
 * The library then runs fences, direct modex, event relay and failure detection
 * across nodes itself, on its progress thread; the host module's fence_nb and
 * direct_modex are not called.
 */
#ifndef SPMIX_H
#define SPMIX_H

#define SPMIX_TREE_NODE_INDEX "spmix.tree.idx"
#define SPMIX_TREE_ADDRS "spmix.tree.addrs"
#define SPMIX_TREE_SECRET "spmix.tree.secret"
#define SPMIX_TREE_AUTH "spmix.tree.auth"
#define SPMIX_TREE_AUTH_UIDS "spmix.tree.auth.uids"
#define SPMIX_TREE_AUTH_ID "spmix.tree.auth.id"
#define SPMIX_TREE_WIDTH "spmix.tree.width"
#define SPMIX_TREE_TIMEOUT "spmix.tree.timeout"

/* PMIx_server_init attribute (bool): a fence whose participants all live on
 * this node may complete without the host module's fence_nb (the host only
 * hands the data back). With it, or in multi-node mode (SPMIX_TREE_*), or
 * without a fence_nb, a whole-namespace fence of a job that lives entirely on
 * this node completes among its processes in shared memory. Set
 * SPMIX_SHM_FENCE=0 in the server's environment to turn shared-memory fences
 * off altogether. */
#define SPMIX_SERVER_LOCAL_FENCES "spmix.srv.localfence"

/* PMIx_server_init attribute (uint32): with PMIX_SERVER_TOOL_SUPPORT, one
 * more process id that names a tools' rendezvous file of this server
 * (spmix.tool.<pid> in the system tmpdir, the pid tools give as
 * PMIX_SERVER_PIDINFO), besides the one named after the server's own
 * process, which is always written. A launcher whose servers run in child
 * processes gives its own pid, the one its users know, to one of them. */
#define SPMIX_SERVER_RENDEZVOUS_PID "spmix.srv.rdvpid"

/* PMIx_server_init attribute (uint32): with PMIX_SERVER_TOOL_SUPPORT, the
 * process of the launcher that runs this server as one node of its job
 * (spmix-run --nodes). The rendezvous file named after the server's own
 * process says so (a third line, proto/rendezvous.h), and a tool that names
 * no server passes such files over: it finds the job by the launcher's own
 * file (SPMIX_SERVER_RENDEZVOUS_PID of one node), while each node's server
 * stays reachable by its own pid. */
#define SPMIX_SERVER_LAUNCHER_PID "spmix.srv.launcher"

/* PMIx_Query_info keys answered by a client's own server (uint64 values):
 * totals since start, and what this server sent for the last collective it
 * completed (messages, bytes, and the key/value payload bytes it contributed). */
#define SPMIX_QUERY_TREE_MSGS_SENT "spmix.qry.msgs"
#define SPMIX_QUERY_TREE_BYTES_SENT "spmix.qry.bytes"
#define SPMIX_QUERY_LAST_COLL_MSGS "spmix.qry.lastmsgs"
#define SPMIX_QUERY_LAST_COLL_BYTES "spmix.qry.lastbytes"
#define SPMIX_QUERY_LAST_COLL_PAYLOAD "spmix.qry.lastpayload"
#define SPMIX_QUERY_LAST_COLL_KEYS "spmix.qry.lastkeys"  /* key entries contributed */
#define SPMIX_QUERY_LAST_COLL_DELS "spmix.qry.lastdels"  /* deletion entries contributed */

#endif
