/* msg.h - the client/tool <-> server protocol of spmix: message types and the
 * exact payload of each, encoded with the codec (codec/buf.h, codec/value.h).
 *
 * Every message is one frame (codec/frame.h): a fixed header {magic, version,
 * type, flags, seq, length} then the payload. A request carries a non-zero seq
 * chosen by the sender; its reply has the same type and seq and the
 * SPX_FRAME_F_REPLY flag. A frame the server pushes unprompted (an event) has
 * seq 0. Payload notation below: u8/u32/i32 fixed width little endian, str is
 * codec string, proc/value/info/info[]/proc[] are the codec's encodings.
 * A decoder rejects trailing bytes.
 */
#ifndef SPX_PROTO_MSG_H
#define SPX_PROTO_MSG_H

#include <stdint.h>

#define SPX_PROTO_VERSION 1

enum spx_msg_type {
    /* HELLO  req: u32 proto_version, u8 peer_kind (spx_peer_kind), str nspace,
     *            u32 rank, u32 pid, optionally str cpus (the cpus the process
     *            may run on, as a list "0-3,8", at most SPX_HELLO_MAX_CPULIST
     *            characters)
     *        rep: i32 status, then for a client: u32 nblocks, nblocks x
     *            {u32 rank, info[] }  - the registered info of the job:
     *            rank WILDCARD holds job-level and this node's node-level keys,
     *            other ranks their proc-level keys, SPX_RANK_JOBPARTS every
     *            node's and app's info (store/jobparts.h); for a tool: str
     *            nspace, u32 rank - its identity (the one it asked for, or
     *            one the server chose when its HELLO named nspace "" ), then
     *            str the server's namespace, u32 the server's rank.
     *        A tool is accepted only by a server started with
     *        PMIX_SERVER_TOOL_SUPPORT and only from the job's user or root;
     *        it may then send QUERY, IOF_PUSH, IOF_PULL and FINALIZE; other requests
     *        are answered PMIX_ERR_NOT_SUPPORTED. */
    SPX_MSG_HELLO = 1,
    /* FINALIZE req: (empty)  rep: i32 status */
    SPX_MSG_FINALIZE = 2,
    /* ABORT  req: i32 status, str message (may be NULL), proc[] targets
     *        rep: i32 status */
    SPX_MSG_ABORT = 3,
    /* COMMIT req: a kv record stream of the sender's own proc (proto/records.h),
     *            only the entries put since the last commit, deletions included.
     *        no reply. */
    SPX_MSG_COMMIT = 4,
    /* FENCE  req: proc[] participants (as given, NULL -> own nspace WILDCARD),
     *            info[] directives
     *        rep: i32 status */
    SPX_MSG_FENCE = 5,
    /* GET    req: proc target, str key, info[] directives
     *        rep: i32 status, value (present iff status == PMIX_SUCCESS),
     *            optionally u32 n, n x {str key, value}: more entries of the
     *            target's record the requester may see (at most 256), for its
     *            cache */
    SPX_MSG_GET = 6,
    /* NOTIFY req: i32 status, proc source, u8 range, info[]
     *        rep: i32 status */
    SPX_MSG_NOTIFY = 7,
    /* EVENT  push (seq 0): i32 status, proc source, u8 range, info[] */
    SPX_MSG_EVENT = 8,
    /* PUBLISH req: info[] (data and directives mixed as the caller gave them)
     *         rep: i32 status */
    SPX_MSG_PUBLISH = 9,
    /* LOOKUP req: u32 nkeys, nkeys x str, info[] directives
     *        rep: i32 status, u32 n, n x {proc, str key, value} */
    SPX_MSG_LOOKUP = 10,
    /* UNPUBLISH req: u32 nkeys, nkeys x str, info[]  rep: i32 status */
    SPX_MSG_UNPUBLISH = 11,
    /* QUERY  req: u32 nqueries, n x {u32 nkeys, nkeys x str, info[] qualifiers}
     *        rep: i32 status, info[] results */
    SPX_MSG_QUERY = 12,
    /* JOBCTL req: proc[] targets, info[] directives   rep: i32 status */
    SPX_MSG_JOBCTL = 13,
    /* FENCE_LOCAL req: u32 generation - the sender's arrival closed the gather
     *            of its namespace's shared-memory fence (proto/shm_barrier.h)
     *            and the server must finish it.  no reply. */
    SPX_MSG_FENCE_LOCAL = 14,
    /* GROUP  req: u8 op (spx_grp_op), str group id, proc[] members (CONSTRUCT:
     *            the members; INVITE: the invitees; JOIN_*: the leader or none;
     *            empty for the other ops), info[] directives
     *        rep: i32 status, then for a successful CONSTRUCT, INVITE or
     *            JOIN_ACCEPT with a leader: u32 n, n bytes of the outcome
     *            (proto/group.h: every member's group info and endpoint data,
     *            the context id) */
    SPX_MSG_GROUP = 15,
    /* IOF_PUSH req: proc[] targets (a rank, or WILDCARD for a whole
     *            namespace), info[] directives (as the caller gave them),
     *            u8 flags (SPX_IOF_F_EOF: end the targets' stdin after these
     *            bytes), u32 n, n bytes (at most SPX_IOF_MAX_CHUNK; a larger
     *            push is sent as several requests in order)
     *         rep: i32 status - once the host took the bytes (they are no
     *            longer needed), not once they were read */
    SPX_MSG_IOF_PUSH = 16,
    /* IOF_PULL req: u8 op (SPX_IOF_PULL_ADD / SPX_IOF_PULL_REMOVE), u32 id
     *            (the puller's handler id, its own choice), u16 channels
     *            (PMIX_FWD_STDOUT/STDERR/STDDIAG_CHANNEL bits; 0 for REMOVE),
     *            proc[] sources (a rank, or WILDCARD for a whole namespace;
     *            1..SPX_IOF_MAX_SOURCES for ADD, none for REMOVE)
     *         rep: i32 status - ADD: the output of those sources on those
     *            channels comes from now on as IOF_DATA frames naming id;
     *            REMOVE: none comes after this reply */
    SPX_MSG_IOF_PULL = 17,
    /* IOF_DATA push (seq 0, server -> puller): u32 id, proc source, u16
     *            channel (one bit), u8 flags (SPX_IOF_F_EOF: the source's
     *            stream ended), u32 n, n bytes (at most SPX_IOF_MAX_CHUNK) */
    SPX_MSG_IOF_DATA = 18,
    /* GROUP_LOCAL req: u32 generation - the sender's arrival closed the gather
     *            of its namespace's shared-memory construct
     *            (proto/group_shm.h) and the server must run it.  no reply. */
    SPX_MSG_GROUP_LOCAL = 19,
    SPX_MSG_TYPE_MAX
};

#define SPX_HELLO_MAX_CPULIST 65536

/* IOF_PUSH flags and the largest chunk of one request. */
#define SPX_IOF_F_EOF 0x1u
#define SPX_IOF_MAX_CHUNK (1u << 20)
/* IOF_PULL operations and the most sources one ADD may name. */
#define SPX_IOF_PULL_ADD 1u
#define SPX_IOF_PULL_REMOVE 2u
#define SPX_IOF_MAX_SOURCES 4096u

/* Operations of a GROUP request. */
enum spx_grp_op {
    SPX_GRP_OP_CONSTRUCT = 1, /* a collective over the members */
    SPX_GRP_OP_DESTRUCT = 2,  /* a collective over the members of a constructed group */
    SPX_GRP_OP_INVITE = 3,    /* the sender leads: members are the invitees */
    SPX_GRP_OP_JOIN_ACCEPT = 4, /* members: the leader (or none) */
    SPX_GRP_OP_JOIN_DECLINE = 5, /* members: the leader (or none); answered at once */
    SPX_GRP_OP_LEAVE = 6,     /* answered at once; the other members get PMIX_GROUP_LEFT */
    SPX_GRP_OP_ANSWER_SEEN = 7, /* the leader's handlers saw an INVITE_ACCEPTED/_DECLINED */
    SPX_GRP_OP_ABORT = 8,     /* the sender's handlers abort: its invitation of that id, or
                               * (members: the participants) after its leader failed */
    SPX_GRP_OP_LEAD = 9,      /* after PMIX_GROUP_LEADER_FAILED the sender steps up as leader
                               * (members: the failed leader, then the participants) */
    SPX_GRP_OP_NO_LEAD = 10,  /* ... or does not (same members) */
};

enum spx_peer_kind {
    SPX_PEER_CLIENT = 1,
    SPX_PEER_TOOL = 2,
};

const char *spx_msg_type_str(int type);
const char *spx_peer_kind_str(int kind);

/* Environment variables a server gives each client (PMIx_server_setup_fork). */
#define SPX_ENV_SERVER_URI "PMIX_SERVER_URI41"   /* "spmix:<path of unix socket>" */
#define SPX_ENV_NSPACE "PMIX_NAMESPACE"
#define SPX_ENV_RANK "PMIX_RANK"
#define SPX_ENV_SECURITY "PMIX_SECURITY_MODE"
#define SPX_URI_PREFIX "spmix:"

#endif
