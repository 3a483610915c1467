/* gen_server_seeds.c - writes the seed corpus of fuzz_server (see
 * fuzz_server.c for the input format): a well-formed request of every
 * client message type after the HELLO, and the sequences that make them
 * wait or complete: a fence of all four ranks and one short of a rank, a GET
 * answered by a later commit and one never answered, publish/lookup/
 * unpublish and a lookup that waits, queries, job control (a cleanup
 * registration included), abort, notify, finalize; each host answer mode;
 * the timeouts of a fence and a GET; groups (construct, destruct, invite,
 * join, decline, answers seen, abort, leave, a construct that times out);
 * and the refusals (request before
 * HELLO, second HELLO, reply flag, unknown type, unregistered rank, tool,
 * bad version, garbage bytes).
 * Usage: gen_server_seeds <dir>. The output is committed in
 * test/fuzz/corpus-server. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_common.h>

#include "codec/buf.h"
#include "codec/value.h"
#include "proto/msg.h"

#define NS "fuzz-ns"

enum { OP_MSG, OP_RAW, OP_BYTES, OP_OPEN, OP_CLOSE, OP_RELEASE, OP_TIMERS };
enum { MODE_NOW = 0, MODE_SUCCEEDED = 1, MODE_ERROR = 2, MODE_HOLD = 3, MODE_REFUSE = 4,
       MODE_CPUS = 8 };

static const char *outdir;
static spx_buf_t in;

static void begin(uint8_t mode)
{
    spx_buf_init(&in);
    spx_buf_push_u8(&in, mode);
}

static void emit(const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || spx_buf_failed(&in)) {
        perror(path);
        exit(1);
    }
    fwrite(in.data, 1, in.len, f);
    fclose(f);
    spx_buf_fini(&in);
}

/* OP_MSG from client with the payload built in p (consumed). */
static void msg(uint8_t client, uint8_t type, spx_buf_t *p)
{
    spx_buf_push_u8(&in, OP_MSG);
    spx_buf_push_u8(&in, client);
    spx_buf_push_u8(&in, type);
    spx_buf_push_u16(&in, (uint16_t)p->len);
    spx_buf_push_raw(&in, p->data, p->len);
    spx_buf_fini(p);
}

static void raw(uint8_t client, uint8_t type, uint16_t flags, uint32_t seq, spx_buf_t *p)
{
    spx_buf_push_u8(&in, OP_RAW);
    spx_buf_push_u8(&in, client);
    spx_buf_push_u8(&in, type);
    spx_buf_push_u16(&in, flags);
    spx_buf_push_u32(&in, seq);
    spx_buf_push_u16(&in, (uint16_t)p->len);
    spx_buf_push_raw(&in, p->data, p->len);
    spx_buf_fini(p);
}

static void op1(uint8_t op, uint8_t client)
{
    spx_buf_push_u8(&in, op);
    spx_buf_push_u8(&in, client);
}

static void info_bool(pmix_info_t *i, const char *key, bool b)
{
    memset(i, 0, sizeof(*i));
    snprintf(i->key, sizeof(i->key), "%s", key);
    i->value.type = PMIX_BOOL;
    i->value.data.flag = b;
}

static void info_int(pmix_info_t *i, const char *key, int v)
{
    memset(i, 0, sizeof(*i));
    snprintf(i->key, sizeof(i->key), "%s", key);
    i->value.type = PMIX_INT;
    i->value.data.integer = v;
}

static void info_str(pmix_info_t *i, const char *key, char *s)
{
    memset(i, 0, sizeof(*i));
    snprintf(i->key, sizeof(i->key), "%s", key);
    i->value.type = PMIX_STRING;
    i->value.data.string = s;
}

static pmix_proc_t proc(pmix_rank_t rank)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    snprintf(p.nspace, sizeof(p.nspace), "%s", NS);
    p.rank = rank;
    return p;
}

/* COMMIT of client rank: one record with key = value (a string). */
static void commit(uint8_t client, const char *key, char *value)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_str(&p, NS);
    spx_buf_push_u32(&p, client);
    spx_buf_push_u32(&p, 2);
    pmix_value_t v = { .type = PMIX_STRING };
    v.data.string = value;
    spx_buf_push_u8(&p, PMIX_GLOBAL);
    spx_buf_push_str(&p, key);
    spx_codec_push_value(&p, &v);
    spx_buf_push_u8(&p, PMIX_DEL_LOCAL); /* a deletion entry */
    spx_buf_push_str(&p, "gone");
    msg(client, SPX_MSG_COMMIT, &p);
}

/* GROUP request of client: op, id, members, directives. */
static void group(uint8_t client, uint8_t op, const char *id, const pmix_proc_t *procs, size_t n,
                  const pmix_info_t *info, size_t ninfo)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_u8(&p, op);
    spx_buf_push_str(&p, id);
    spx_codec_push_proc_array(&p, procs, n);
    spx_codec_push_info_array(&p, info, ninfo);
    msg(client, SPX_MSG_GROUP, &p);
}

static void get(uint8_t client, pmix_rank_t target, const char *key, int timeout)
{
    spx_buf_t p;
    spx_buf_init(&p);
    pmix_proc_t t = proc(target);
    spx_codec_push_proc(&p, &t);
    spx_buf_push_str(&p, key);
    pmix_info_t i[1];
    info_int(&i[0], PMIX_TIMEOUT, timeout);
    spx_codec_push_info_array(&p, i, timeout ? 1 : 0);
    msg(client, SPX_MSG_GET, &p);
}

/* FENCE of the whole namespace (ranks == 0) or of ranks 0..ranks-1. */
static void fence(uint8_t client, int ranks, bool collect, int timeout)
{
    spx_buf_t p;
    spx_buf_init(&p);
    pmix_proc_t set[4];
    size_t n = ranks ? (size_t)ranks : 1;
    for (size_t k = 0; k < n; k++)
        set[k] = proc(ranks ? (pmix_rank_t)k : PMIX_RANK_WILDCARD);
    spx_codec_push_proc_array(&p, set, n);
    pmix_info_t i[2];
    info_bool(&i[0], PMIX_COLLECT_DATA, collect);
    info_int(&i[1], PMIX_TIMEOUT, timeout);
    spx_codec_push_info_array(&p, i, timeout ? 2 : 1);
    msg(client, SPX_MSG_FENCE, &p);
}

static void empty(uint8_t client, uint8_t type)
{
    spx_buf_t p;
    spx_buf_init(&p);
    msg(client, type, &p);
}

static void keys_msg(uint8_t client, uint8_t type, const char *key, pmix_info_t *info,
                     size_t ninfo)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_u32(&p, key ? 1 : 0);
    if (key)
        spx_buf_push_str(&p, key);
    spx_codec_push_info_array(&p, info, ninfo);
    msg(client, type, &p);
}

static void publish(uint8_t client, const char *key, char *value)
{
    spx_buf_t p;
    spx_buf_init(&p);
    pmix_info_t i[1];
    info_str(&i[0], key, value);
    spx_codec_push_info_array(&p, i, 1);
    msg(client, SPX_MSG_PUBLISH, &p);
}

static void notify(uint8_t client, int status, uint8_t range)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_i32(&p, status);
    pmix_proc_t src = proc(client);
    spx_codec_push_proc(&p, &src);
    spx_buf_push_u8(&p, range);
    pmix_info_t i[1];
    info_bool(&i[0], PMIX_EVENT_NON_DEFAULT, true);
    spx_codec_push_info_array(&p, i, 1);
    msg(client, SPX_MSG_NOTIFY, &p);
}

static void query(uint8_t client, const char *key)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_u32(&p, 1);
    spx_buf_push_u32(&p, 1);
    spx_buf_push_str(&p, key);
    spx_codec_push_info_array(&p, NULL, 0);
    msg(client, SPX_MSG_QUERY, &p);
}

static void jobctl(uint8_t client, pmix_info_t *info, size_t n)
{
    spx_buf_t p;
    spx_buf_init(&p);
    pmix_proc_t t = proc(1);
    spx_codec_push_proc_array(&p, &t, 1);
    spx_codec_push_info_array(&p, info, n);
    msg(client, SPX_MSG_JOBCTL, &p);
}

static void abort_msg(uint8_t client)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_i32(&p, 3);
    spx_buf_push_str(&p, "fuzz abort");
    pmix_proc_t t = proc(PMIX_RANK_WILDCARD);
    spx_codec_push_proc_array(&p, &t, 1);
    msg(client, SPX_MSG_ABORT, &p);
}

static void hello(uint8_t client, uint32_t version, uint8_t kind, pmix_rank_t rank)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_u32(&p, version);
    spx_buf_push_u8(&p, kind);
    spx_buf_push_str(&p, NS);
    spx_buf_push_u32(&p, rank);
    spx_buf_push_u32(&p, 1234);
    raw(client, SPX_MSG_HELLO, 0, 1, &p);
}

static void iof_push(uint8_t client, const pmix_proc_t *targets, size_t n, uint8_t flags,
                     const char *bytes)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_codec_push_proc_array(&p, targets, n);
    pmix_info_t c[1];
    info_int(&c[0], PMIX_IOF_CACHE_SIZE, 64);
    spx_codec_push_info_array(&p, c, 1);
    spx_buf_push_u8(&p, flags);
    spx_buf_push_bytes(&p, bytes, strlen(bytes));
    msg(client, SPX_MSG_IOF_PUSH, &p);
}

static void iof_pull(uint8_t client, uint8_t op, uint32_t id, uint16_t channels,
                     const pmix_proc_t *sources, size_t n)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_u8(&p, op);
    spx_buf_push_u32(&p, id);
    spx_buf_push_u16(&p, channels);
    spx_codec_push_proc_array(&p, sources, n);
    msg(client, SPX_MSG_IOF_PULL, &p);
}

static void tool_hello(uint8_t client)
{
    spx_buf_t p;
    spx_buf_init(&p);
    spx_buf_push_u32(&p, SPX_PROTO_VERSION);
    spx_buf_push_u8(&p, SPX_PEER_TOOL);
    spx_buf_push_str(&p, "");
    spx_buf_push_u32(&p, PMIX_RANK_UNDEF);
    spx_buf_push_u32(&p, 4321);
    raw(client, SPX_MSG_HELLO, 0, 1, &p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    static const uint8_t modes[] = { MODE_NOW, MODE_SUCCEEDED, MODE_ERROR, MODE_HOLD };
    static const char *const mode_names[] = { "now", "succeeded", "error", "hold" };

    for (size_t m = 0; m < 4; m++) {
        char name[64];
        /* a fence of all four ranks, with data, and GETs of what they put */
        begin(modes[m] | MODE_CPUS);
        for (uint8_t c = 0; c < 4; c++)
            commit(c, "key", "value");
        for (uint8_t c = 0; c < 4; c++)
            fence(c, 0, true, 0);
        spx_buf_push_u8(&in, OP_RELEASE);
        for (uint8_t c = 0; c < 4; c++)
            get(c, (c + 1) % 4, "key", 0);
        for (uint8_t c = 0; c < 4; c++)
            empty(c, SPX_MSG_FINALIZE);
        snprintf(name, sizeof(name), "fence_all_%s", mode_names[m]);
        emit(name);

        /* every upcall of the host once */
        begin(modes[m]);
        notify(0, -1, PMIX_RANGE_LOCAL);
        query(0, PMIX_QUERY_NAMESPACES);
        query(0, PMIX_QUERY_PROC_TABLE);
        query(0, PMIX_QUERY_NAMESPACE_INFO);
        pmix_info_t kill[1];
        info_bool(&kill[0], PMIX_JOB_CTRL_KILL, true);
        jobctl(0, kill, 1);
        abort_msg(0);
        spx_buf_push_u8(&in, OP_RELEASE);
        empty(0, SPX_MSG_FINALIZE);
        snprintf(name, sizeof(name), "upcalls_%s", mode_names[m]);
        emit(name);
    }

    /* a fence short of two ranks, with a timeout: failed when its clients go */
    begin(MODE_NOW);
    fence(0, 2, false, 5);
    fence(2, 0, true, 0);
    emit("fence_partial");

    /* the same fence when its timeout expires */
    begin(MODE_NOW);
    fence(0, 2, false, 5);
    spx_buf_push_u8(&in, OP_TIMERS);
    fence(1, 2, false, 5);
    emit("fence_timeout");

    /* shared-memory fence arrival (no shared-memory fence here) */
    begin(MODE_NOW);
    {
        spx_buf_t p;
        spx_buf_init(&p);
        spx_buf_push_u32(&p, 1);
        msg(1, SPX_MSG_FENCE_LOCAL, &p);
    }
    emit("fence_local");

    /* shared-memory construct arrival: a generation that is not closed, and a
     * truncated frame */
    begin(MODE_NOW);
    {
        spx_buf_t p;
        spx_buf_init(&p);
        spx_buf_push_u32(&p, 0);
        msg(1, SPX_MSG_GROUP_LOCAL, &p);
        spx_buf_init(&p);
        spx_buf_push_u8(&p, 1);
        msg(2, SPX_MSG_GROUP_LOCAL, &p);
    }
    emit("group_local");

    /* a GET answered by a later commit; one that waits for ever; one with a timeout */
    begin(MODE_NOW);
    get(1, 0, "late", 0);
    commit(0, "late", "here");
    get(2, 3, "never", 0);
    get(3, 0, "never", 2);
    emit("get_wait");

    /* groups: a construct of all four with a context id and group info, its
     * destruct; an invitation accepted, declined, its answers seen, an abort,
     * a leave; a construct short of a member that times out */
    begin(MODE_NOW);
    {
        pmix_proc_t all[4] = {proc(3), proc(2), proc(1), proc(0)};
        pmix_info_t d[3], gi;
        size_t lcid = 7;
        memset(&gi, 0, sizeof(gi));
        snprintf(gi.key, sizeof(gi.key), "%s", PMIX_GROUP_LOCAL_CID);
        gi.value.type = PMIX_SIZE;
        gi.value.data.size = lcid;
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &gi};
        info_bool(&d[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, true);
        memset(&d[1], 0, sizeof(d[1]));
        snprintf(d[1].key, sizeof(d[1].key), "%s", PMIX_GROUP_INFO);
        d[1].value.type = PMIX_DATA_ARRAY;
        d[1].value.data.darray = &da;
        info_bool(&d[2], PMIX_GROUP_NOTIFY_TERMINATION, true);
        commit(0, "ep", "zero");
        for (uint8_t c = 0; c < 4; c++)
            group(c, SPX_GRP_OP_CONSTRUCT, "g", all, 4, d, 3);
        for (uint8_t c = 0; c < 4; c++)
            group(c, SPX_GRP_OP_DESTRUCT, "g", NULL, 0, NULL, 0);
        pmix_proc_t inv[2] = {proc(1), proc(2)}, leader = proc(0);
        group(0, SPX_GRP_OP_INVITE, "gi", inv, 2, d, 1);
        group(1, SPX_GRP_OP_JOIN_ACCEPT, "gi", &leader, 1, NULL, 0);
        group(2, SPX_GRP_OP_JOIN_DECLINE, "gi", &leader, 1, NULL, 0);
        group(0, SPX_GRP_OP_ANSWER_SEEN, "gi", NULL, 0, NULL, 0);
        group(0, SPX_GRP_OP_ABORT, "gi", NULL, 0, NULL, 0);
        group(3, SPX_GRP_OP_JOIN_ACCEPT, "gx", &leader, 1, NULL, 0);
        group(1, SPX_GRP_OP_LEAVE, "g", NULL, 0, NULL, 0);
    }
    emit("groups");

    begin(MODE_NOW);
    {
        pmix_proc_t two[2] = {proc(0), proc(1)};
        pmix_info_t t;
        info_int(&t, PMIX_TIMEOUT, 2);
        group(0, SPX_GRP_OP_CONSTRUCT, "gt", two, 2, &t, 1);
        spx_buf_push_u8(&in, OP_TIMERS);
        group(1, SPX_GRP_OP_CONSTRUCT, "gt", two, 2, &t, 1);
    }
    emit("group_timeout");

    /* pushes to the ranks' stdin, answered in each host mode: a rank, every
     * rank, an EOF, refusals (a rank out of the job, no targets) */
    for (size_t m = 0; m < 4; m++) {
        char name[64];
        pmix_proc_t one = proc(2), all = proc(PMIX_RANK_WILDCARD), out = proc(9);
        begin(modes[m]);
        iof_push(0, &one, 1, 0, "line for rank 2\n");
        iof_push(1, &all, 1, 0, "for everybody\n");
        iof_push(1, &all, 1, SPX_IOF_F_EOF, "");
        iof_push(2, &out, 1, 0, "nobody");
        iof_push(3, NULL, 0, 0, "no targets");
        spx_buf_push_u8(&in, OP_RELEASE);
        snprintf(name, sizeof(name), "iof_%s", mode_names[m]);
        emit(name);
    }

    /* a tool: HELLO as a tool on a connection opened without one, a QUERY,
     * a push, a request tools may not make (GET), FINALIZE */
    begin(MODE_NOW);
    op1(OP_OPEN, 4);
    tool_hello(4);
    query(4, PMIX_QUERY_NAMESPACES);
    query(4, PMIX_QUERY_LOCAL_PROC_TABLE);
    {
        pmix_proc_t all = proc(PMIX_RANK_WILDCARD);
        iof_push(4, &all, 1, 0, "from a tool\n");
    }
    get(4, 0, "key", 0);
    empty(4, SPX_MSG_FINALIZE);
    emit("tool_iof");

    /* output pulled (IOF_PULL): a client pulls one rank, a tool WILDCARD of
     * stdout and stderr, the same id twice, a removal, the removal of an id
     * that is not there, a malformed op, an IOF_DATA sent to the server */
    begin(MODE_NOW);
    op1(OP_OPEN, 4);
    tool_hello(4);
    {
        pmix_proc_t one = proc(1), all = proc(PMIX_RANK_WILDCARD);
        iof_pull(0, SPX_IOF_PULL_ADD, 0, PMIX_FWD_STDOUT_CHANNEL, &one, 1);
        iof_pull(4, SPX_IOF_PULL_ADD, 7, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                 &all, 1);
        iof_pull(4, SPX_IOF_PULL_ADD, 7, PMIX_FWD_STDOUT_CHANNEL, &all, 1);
        iof_pull(4, SPX_IOF_PULL_REMOVE, 7, 0, NULL, 0);
        iof_pull(4, SPX_IOF_PULL_REMOVE, 8, 0, NULL, 0);
        iof_pull(0, SPX_IOF_PULL_REMOVE, 0, 0, NULL, 0);
        iof_pull(1, 9, 1, PMIX_FWD_STDOUT_CHANNEL, &all, 1);
        spx_buf_t p;
        spx_buf_init(&p);
        spx_buf_push_u32(&p, 1);
        msg(2, SPX_MSG_IOF_DATA, &p);
    }
    empty(4, SPX_MSG_FINALIZE);
    emit("iof_pull");

    /* a GET whose timeout expires */
    begin(MODE_NOW);
    get(3, 0, "never", 2);
    spx_buf_push_u8(&in, OP_TIMERS);
    get(3, 0, "never", 2);
    emit("get_timeout");

    /* the server's own directory */
    begin(MODE_NOW);
    publish(0, "service", "port-1");
    keys_msg(1, SPX_MSG_LOOKUP, "service", NULL, 0);
    keys_msg(0, SPX_MSG_UNPUBLISH, "service", NULL, 0);
    {
        pmix_info_t w[1];
        info_int(&w[0], PMIX_WAIT, 1);
        keys_msg(2, SPX_MSG_LOOKUP, "later", w, 1); /* waits */
    }
    publish(3, "later", "port-2");
    keys_msg(3, SPX_MSG_UNPUBLISH, NULL, NULL, 0);
    empty(3, SPX_MSG_FINALIZE);
    emit("pubsub");

    /* job control: a cleanup registration (the client's uid owns nothing) */
    begin(MODE_NOW);
    {
        pmix_info_t c[1];
        info_str(&c[0], PMIX_REGISTER_CLEANUP, "/tmp/spmix-fuzz-no-such-file");
        jobctl(0, c, 1);
    }
    emit("jobctl_cleanup");

    /* refusals */
    begin(MODE_NOW);
    op1(OP_OPEN, 0);
    fence(0, 0, false, 0); /* request before HELLO */
    emit("before_hello");
    begin(MODE_NOW);
    hello(1, SPX_PROTO_VERSION, SPX_PEER_CLIENT, 1); /* second HELLO (the first is automatic) */
    emit("second_hello");
    begin(MODE_NOW);
    {
        spx_buf_t p;
        spx_buf_init(&p);
        spx_buf_push_i32(&p, 0);
        raw(2, SPX_MSG_GET, 1 /* reply */, 7, &p);
    }
    emit("reply_flag");
    begin(MODE_NOW);
    empty(3, SPX_MSG_EVENT);
    empty(3, SPX_MSG_TYPE_MAX);
    emit("unknown_type");
    begin(MODE_NOW);
    empty(4, SPX_MSG_FINALIZE); /* rank 4 is not registered */
    emit("unregistered");
    begin(MODE_NOW);
    op1(OP_OPEN, 0);
    hello(0, SPX_PROTO_VERSION, SPX_PEER_TOOL, 0);
    op1(OP_CLOSE, 0);
    op1(OP_OPEN, 1);
    hello(1, SPX_PROTO_VERSION + 1, SPX_PEER_CLIENT, 1);
    emit("tool_and_version");
    begin(MODE_REFUSE);
    empty(0, SPX_MSG_FINALIZE);
    emit("host_refuses");
    begin(MODE_NOW);
    spx_buf_push_u8(&in, OP_BYTES);
    spx_buf_push_u8(&in, 1);
    spx_buf_push_u16(&in, 20);
    spx_buf_push_raw(&in, "SPMX\x01\x05garbage-garbage", 20);
    emit("garbage");
    /* a client that reconnects after closing */
    begin(MODE_NOW);
    commit(0, "a", "1");
    op1(OP_CLOSE, 0);
    get(0, 0, "a", 0);
    emit("reconnect");
    return 0;
}
