/* pmi_cmds.c - the commands of the PMI wire engine (engine_pmi.h): PMI-1
 * (init, get_maxes, get_appnum, get_my_kvsname, get_universe_size, put,
 * get, barrier_in, finalize, abort, publish_name, unpublish_name,
 * lookup_name) and PMI-2 (fullinit, job-getid, kvs-put, kvs-fence,
 * kvs-get, info-putnodeattr, info-getnodeattr, info-getjobattr, finalize,
 * abort, name-publish/-unpublish/-lookup).
 *
 * A put is a COMMIT of one string value (scope PMIX_GLOBAL) of the task's
 * own proc; a barrier / kvs-fence a collecting FENCE over the whole
 * namespace (the fence engine, delta exchange and the tree across nodes);
 * a get reads the server's store, where the fence brought every rank's
 * data, so PMI and PMIx processes of one namespace share one key space.
 * The answers to requests that wait for the server come back through
 * spx_pmi_answer. Unknown commands get an error reply (rc=-1).
 */
#include "config.h"
#include "server/pmi_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "codec/value.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

/* ---- answers ---- */

struct resp {
    char buf[SPX_PMI_MAX_MSG + 64];
    size_t len;
    bool v2, overflow;
    const char *refused;            /* why a value was left out (overflow) */
};

/* Can val travel in an answer of this protocol? PMI-1 values end at a
 * space and the line at '\n'; PMI-2 ones may hold anything but control
 * bytes (what the parsers take). Values put by PMIx clients, or over PMI-2
 * and read over PMI-1, may not. */
static bool value_fits(const char *val, bool v2)
{
    if (!v2)
        return spx_pmi_v1_value_ok(val);
    for (; *val; val++)
        if ((unsigned char)*val < 0x20 && *val != '\t' && *val != '\r')
            return false;
    return true;
}

static void resp_add(struct resp *r, const char *key, const char *val)
{
    size_t kl = strlen(key);
    if (r->overflow)
        return;
    if (r->len + kl + 3 > sizeof(r->buf)) {
        r->overflow = true;
        r->refused = "value_too_long";
        return;
    }
    if (!value_fits(val, r->v2)) {
        r->overflow = true;
        r->refused = "value_not_representable";
        return;
    }
    if (!r->v2 && r->len)
        r->buf[r->len++] = ' ';
    memcpy(r->buf + r->len, key, kl);
    r->len += kl;
    r->buf[r->len++] = '=';
    if (r->v2) {
        if (spx_pmi_append_v2(r->buf, sizeof(r->buf) - 1, &r->len, val) != 0) {
            r->overflow = true;
            r->refused = "value_too_long";
        }
        else
            r->buf[r->len++] = ';';
        return;
    }
    size_t vl = strlen(val);
    if (r->len + vl + 2 > sizeof(r->buf)) {
        r->overflow = true;
        r->refused = "value_too_long";
    } else {
        memcpy(r->buf + r->len, val, vl);
        r->len += vl;
    }
}

static void resp_begin(struct resp *r, const struct spx_srv_pmi_conn *c, const char *cmd)
{
    r->len = 0;
    r->overflow = false;
    r->refused = NULL;
    r->v2 = c->mode == SPX_PMI_MODE_V2;
    resp_add(r, "cmd", cmd);
}

static void resp_int(struct resp *r, const char *key, long v)
{
    char s[24];
    snprintf(s, sizeof(s), "%ld", v);
    resp_add(r, key, s);
}

/* Sends r, ending with rc=<rc> (and the error text for a failure). */
static void resp_send(struct spx_srv_pmi_conn *c, struct resp *r, int rc, const char *err)
{
    if (r->overflow) { /* only a value can be refused: answer without it */
        spx_warn("%s: PMI answer refused: %s", c->peer->name, r->refused);
        rc = -1;
        err = r->refused;
        size_t cl = strcspn(r->buf, r->v2 ? ";" : " ");
        r->len = cl < r->len ? cl : r->len;
        if (r->v2)
            r->buf[r->len++] = ';';
        r->overflow = false;
    }
    resp_int(r, "rc", rc);
    if (rc != 0 && err)
        resp_add(r, r->v2 ? "errmsg" : "msg", err);
    if (!r->v2)
        r->buf[r->len++] = '\n';
    spx_pmi_send(c, r->buf, r->len);
}

/* The answer name of a command: PMI-2 "<cmd>-response", PMI-1 by table. */
static void send_status(struct spx_srv_pmi_conn *c, const char *v1name, const char *v2cmd, int rc,
                        const char *err)
{
    struct resp r;
    char name[SPX_PMI_MAX_KEY + 16];
    snprintf(name, sizeof(name), "%s-response", v2cmd);
    resp_begin(&r, c, c->mode == SPX_PMI_MODE_V2 ? name : v1name);
    resp_send(c, &r, rc, err);
}

/* ---- what the server knows of the job ---- */

static uint32_t job_u32(struct spx_srv_pmi_conn *c, const char *key, pmix_rank_t rank,
                        uint32_t dflt)
{
    struct spx_srv_ns *ns = c->peer->client ? c->peer->client->ns : NULL;
    const pmix_value_t *v = ns ? spx_store_peek(ns->info, ns->name, rank, key, NULL) : NULL;
    uint32_t out;
    return v && spx_value_to_u32(v, &out) == PMIX_SUCCESS ? out : dflt;
}

static uint32_t job_size(struct spx_srv_pmi_conn *c)
{
    return job_u32(c, PMIX_JOB_SIZE, PMIX_RANK_WILDCARD, 1);
}

static uint32_t appnum(struct spx_srv_pmi_conn *c)
{
    return job_u32(c, PMIX_APPNUM, c->proc.rank, 0);
}

/* PMI_process_mapping: "(vector,(node,nnodes,ranks per node),...)" with
 * consecutive blocks of equal size on consecutive nodes merged. -1 when
 * it does not fit in cap. */
static int process_mapping(struct spx_srv_pmi_conn *c, char *out, size_t cap)
{
    const struct spx_srv_ns *ns = c->peer->client->ns;
    uint32_t n = job_size(c);
    size_t len = (size_t)snprintf(out, cap, "(vector");
    long bn = -1, bk = 0, br = 0; /* the triple being built */
    for (uint32_t r = 0; r <= n; r++) {
        uint32_t node = 0, run = 0;
        if (r < n) {
            node = spx_srv_ns_node_of(ns, r);
            if (node == UINT32_MAX)
                node = 0;
            while (r + run < n && (spx_srv_ns_node_of(ns, r + run) == node ||
                                   (node == 0 && spx_srv_ns_node_of(ns, r + run) == UINT32_MAX)))
                run++;
            if (bn >= 0 && run == (uint32_t)br && (long)node == bn + bk) {
                bk++;
                r += run - 1;
                continue;
            }
        }
        if (bn >= 0) {
            int w = snprintf(out + len, cap - len, ",(%ld,%ld,%ld)", bn, bk, br);
            if (w < 0 || (size_t)w >= cap - len)
                return -1;
            len += (size_t)w;
        }
        if (r < n) {
            bn = node;
            bk = 1;
            br = run;
            r += run - 1;
        }
    }
    if (len + 2 > cap)
        return -1;
    out[len++] = ')';
    out[len] = '\0';
    return 0;
}

/* The string value of key put by a rank of the task's namespace: the rank
 * a trailing number names first (MPICH's keys end with the rank), then
 * srcid when given, then every rank. Borrowed, or NULL. */
static const char *kvs_find(struct spx_srv_pmi_conn *c, const char *key, long srcid)
{
    uint32_t n = job_size(c);
    const char *ns = c->proc.nspace;
    const spx_store_t *s = c->ctx->store;
    const pmix_value_t *v = NULL;
    size_t kl = strlen(key), d = kl;
    while (d > 0 && key[d - 1] >= '0' && key[d - 1] <= '9' && kl - d < 9)
        d--;
    if (d < kl) {
        long hint = strtol(key + d, NULL, 10);
        if (hint >= 0 && hint < (long)n)
            v = spx_store_peek(s, ns, (pmix_rank_t)hint, key, NULL);
    }
    if ((!v || v->type != PMIX_STRING) && srcid >= 0 && srcid < (long)n)
        v = spx_store_peek(s, ns, (pmix_rank_t)srcid, key, NULL);
    for (uint32_t r = 0; r < n && (!v || v->type != PMIX_STRING); r++)
        v = spx_store_peek(s, ns, r, key, NULL);
    return v && v->type == PMIX_STRING && v->data.string ? v->data.string : NULL;
}

/* ---- requests handed to the server's handlers ---- */

static int to_server(struct spx_srv_pmi_conn *c, uint8_t type, spx_buf_t *b, enum spx_pmi_wait w)
{
    struct spx_srv_peer *p = c->peer;
    int rc = -1;
    if (spx_buf_failed(b)) {
        spx_buf_fini(b);
        return -1;
    }
    c->wait = w;
    uint32_t seq = ++c->seq;
    spx_srv_peer_ref(p);
    rc = spx_srv_request(p, type, seq, b);
    spx_srv_peer_unref(p);
    spx_buf_fini(b);
    if (rc != 0)
        c->wait = SPX_PMI_WAIT_NONE;
    return rc;
}

static int do_put(struct spx_srv_pmi_conn *c, const char *key, const char *val)
{
    if (!key || !val || !key[0] || strlen(key) >= PMIX_MAX_KEYLEN ||
        (c->mode == SPX_PMI_MODE_V1 && !spx_pmi_v1_value_ok(val)))
        return -1;
    pmix_value_t v = {.type = PMIX_STRING};
    v.data.string = (char *)val;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_str(&b, c->proc.nspace);
    spx_buf_push_u32(&b, c->proc.rank);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_u8(&b, PMIX_GLOBAL);
    spx_buf_push_str(&b, key);
    spx_codec_push_value(&b, &v);
    int rc = spx_buf_failed(&b) ? -1 : spx_srv_request(c->peer, SPX_MSG_COMMIT, 0, &b);
    spx_buf_fini(&b);
    return rc;
}

static int do_fence(struct spx_srv_pmi_conn *c)
{
    pmix_proc_t all;
    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    spx_proc_load(&all, c->proc.nspace, PMIX_RANK_WILDCARD);
    snprintf(info.key, sizeof(info.key), "%s", PMIX_COLLECT_DATA);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, &all, 1);
    spx_codec_push_info_array(&b, &info, 1);
    return to_server(c, SPX_MSG_FENCE, &b, SPX_PMI_WAIT_FENCE);
}

static int do_names(struct spx_srv_pmi_conn *c, enum spx_pmi_wait w, const char *name,
                    const char *port)
{
    spx_buf_t b;
    spx_buf_init(&b);
    if (!name || !name[0] || strlen(name) >= PMIX_MAX_KEYLEN || (w == SPX_PMI_WAIT_PUBLISH && !port))
        return 1;
    if (w == SPX_PMI_WAIT_PUBLISH) {
        pmix_info_t info;
        memset(&info, 0, sizeof(info));
        snprintf(info.key, sizeof(info.key), "%s", name);
        info.value.type = PMIX_STRING;
        info.value.data.string = (char *)port;
        spx_codec_push_info_array(&b, &info, 1);
        return to_server(c, SPX_MSG_PUBLISH, &b, w);
    }
    spx_buf_push_u32(&b, 1);
    spx_buf_push_str(&b, name);
    spx_codec_push_info_array(&b, NULL, 0);
    return to_server(c, w == SPX_PMI_WAIT_LOOKUP ? SPX_MSG_LOOKUP : SPX_MSG_UNPUBLISH, &b, w);
}

static int do_simple(struct spx_srv_pmi_conn *c, uint8_t type, enum spx_pmi_wait w, int status,
                     const char *msg)
{
    spx_buf_t b;
    spx_buf_init(&b);
    if (type == SPX_MSG_ABORT) {
        spx_buf_push_i32(&b, status);
        spx_buf_push_str(&b, msg ? msg : "");
        spx_codec_push_proc_array(&b, NULL, 0);
    }
    return to_server(c, type, &b, w);
}

/* ---- answers of the server ---- */

void spx_pmi_answer(struct spx_srv_pmi_conn *c, uint8_t type, spx_buf_t *payload)
{
    enum spx_pmi_wait w = c->wait;
    int32_t st = payload ? spx_buf_pull_i32(payload) : PMIX_ERR_UNREACH;
    if (payload && spx_buf_failed(payload))
        st = PMIX_ERR_UNPACK_FAILURE;
    int rc = st == PMIX_SUCCESS ? 0 : -1;
    struct resp r;
    c->wait = SPX_PMI_WAIT_NONE;
    switch (w) {
    case SPX_PMI_WAIT_FENCE:
        if (type != SPX_MSG_FENCE)
            break;
        if (rc)
            spx_warn("%s: PMI barrier failed: %s", c->peer->name, PMIx_Error_string(st));
        send_status(c, "barrier_out", "kvs-fence", rc, "barrier_failed");
        return;
    case SPX_PMI_WAIT_FINALIZE:
        send_status(c, "finalize_ack", "finalize", rc, "finalize_failed");
        return;
    case SPX_PMI_WAIT_PUBLISH:
    case SPX_PMI_WAIT_UNPUBLISH: {
        bool pub = w == SPX_PMI_WAIT_PUBLISH;
        resp_begin(&r, c, c->mode == SPX_PMI_MODE_V2
                              ? (pub ? "name-publish-response" : "name-unpublish-response")
                              : (pub ? "publish_result" : "unpublish_result"));
        if (c->mode == SPX_PMI_MODE_V1)
            resp_add(&r, "info", rc ? "failed" : "ok");
        resp_send(c, &r, rc, "failed");
        return;
    }
    case SPX_PMI_WAIT_LOOKUP: {
        char *port = NULL;
        if (!rc) { /* u32 n, n x {proc, str key, value}: the first one's string */
            uint32_t n = spx_buf_pull_u32(payload);
            pmix_proc_t src;
            pmix_value_t v;
            char *key;
            if (n >= 1 && spx_codec_pull_proc(payload, &src) == 0 &&
                (key = spx_buf_pull_str(payload)) != NULL) {
                free(key);
                if (spx_codec_pull_value(payload, &v) == 0) {
                    if (v.type == PMIX_STRING && v.data.string)
                        port = strdup(v.data.string);
                    spx_codec_value_release(&v);
                }
            }
            rc = port ? 0 : -1;
        }
        resp_begin(&r, c, c->mode == SPX_PMI_MODE_V2 ? "name-lookup-response" : "lookup_result");
        if (c->mode == SPX_PMI_MODE_V1)
            resp_add(&r, "info", rc ? "notfound" : "ok");
        if (port)
            resp_add(&r, c->mode == SPX_PMI_MODE_V2 ? "value" : "port", port);
        if (c->mode == SPX_PMI_MODE_V2)
            resp_add(&r, "found", port ? "TRUE" : "FALSE");
        free(port);
        resp_send(c, &r, c->mode == SPX_PMI_MODE_V2 ? 0 : rc, "not_found");
        return;
    }
    case SPX_PMI_WAIT_ABORT: /* the task exits: nothing to answer */
        return;
    default:
        break;
    }
    spx_debug("%s: a reply nobody waits for (type %u)", c->peer->name, (unsigned)type);
    c->wait = w;
}

/* info-getnodeattr: the value of key this node's tasks of c's namespace put. */
static const char *nodeattr_get(struct spx_srv_pmi_conn *c, const char *key)
{
    struct spx_pmi_nodeattr *a;
    LIST_FOREACH(a, &c->ctx->pmi->attrs, link)
        if (strcmp(a->key, key) == 0 && strncmp(a->nspace, c->proc.nspace, PMIX_MAX_NSLEN) == 0)
            return a->val;
    return NULL;
}

static void send_value(struct spx_srv_pmi_conn *c, const char *v2name, const char *val)
{
    struct resp r;
    resp_begin(&r, c, v2name);
    resp_add(&r, "found", val ? "TRUE" : "FALSE");
    if (val)
        resp_add(&r, "value", val);
    resp_send(c, &r, 0, NULL);
}

void spx_pmi_nodeattr_wake(struct spx_srv_ctx *ctx, const char *nspace, const char *key)
{
    struct spx_srv_pmi_conn *c, *next;
    for (c = LIST_FIRST(&ctx->pmi->conns); c; c = next) {
        next = LIST_NEXT(c, link);
        if (c->wait != SPX_PMI_WAIT_NODEATTR || strcmp(c->waitkey, key) != 0 ||
            strncmp(c->proc.nspace, nspace, PMIX_MAX_NSLEN) != 0)
            continue;
        c->wait = SPX_PMI_WAIT_NONE;
        send_value(c, "info-getnodeattr-response", nodeattr_get(c, key));
        spx_pmi_resume(c); /* goes on with its input */
    }
}

static int nodeattr_put(struct spx_srv_pmi_conn *c, const char *key, const char *val)
{
    struct spx_srv_pmi *st = c->ctx->pmi;
    struct spx_pmi_nodeattr *a;
    char *v;
    if (!key || !val || !key[0] || !(v = strdup(val)))
        return -1;
    LIST_FOREACH(a, &st->attrs, link)
        if (strcmp(a->key, key) == 0 && strncmp(a->nspace, c->proc.nspace, PMIX_MAX_NSLEN) == 0) {
            free(a->val);
            a->val = v;
            return 0;
        }
    if (st->nattrs >= SPX_PMI_MAX_NODEATTRS || !(a = calloc(1, sizeof(*a))) ||
        !(a->key = strdup(key))) {
        free(a);
        free(v);
        return -1;
    }
    snprintf(a->nspace, sizeof(a->nspace), "%s", c->proc.nspace);
    a->val = v;
    LIST_INSERT_HEAD(&st->attrs, a, link);
    st->nattrs++;
    return 0;
}

/* ---- dispatch ---- */

static long opt_long(const struct spx_pmi_cmd *cmd, const char *key, long dflt)
{
    const char *s = spx_pmi_cmd_get(cmd, key);
    char *end;
    if (!s || !s[0])
        return dflt;
    long v = strtol(s, &end, 10);
    return *end ? dflt : v;
}

static int cmd_init(struct spx_srv_pmi_conn *c, const struct spx_pmi_cmd *cmd)
{
    long ver = opt_long(cmd, "pmi_version", -1);
    const char *why = NULL;
    struct resp r;
    if (c->mode != SPX_PMI_MODE_V1 || (ver != 1 && ver != 2) || spx_pmi_bind(c, &why) != 0) {
        resp_begin(&r, c, "response_to_init");
        resp_add(&r, "pmi_version", "1");
        resp_add(&r, "pmi_subversion", "1");
        resp_send(c, &r, -1, "refused");
        spx_warn("%s: PMI init refused: %s", c->peer->name, why ? why : "unsupported version");
        return -1;
    }
    resp_begin(&r, c, "response_to_init");
    resp_int(&r, "pmi_version", ver);
    resp_int(&r, "pmi_subversion", ver == 1 ? 1 : 0);
    resp_send(c, &r, 0, NULL);
    if (ver == 2)
        c->mode = SPX_PMI_MODE_V2; /* the rest comes length-prefixed */
    return 0;
}

static int cmd_fullinit(struct spx_srv_pmi_conn *c, const struct spx_pmi_cmd *cmd)
{
    const char *why = "pmirank is not this task's rank";
    long rank = opt_long(cmd, "pmirank", (long)c->proc.rank);
    struct resp r;
    resp_begin(&r, c, "fullinit-response");
    if (rank != (long)c->proc.rank || spx_pmi_bind(c, &why) != 0) {
        spx_warn("%s: PMI-2 fullinit refused: %s", c->peer->name, why);
        resp_send(c, &r, -1, why);
        return -1;
    }
    resp_add(&r, "pmi-version", "2");
    resp_add(&r, "pmi-subversion", "0");
    resp_int(&r, "rank", (long)c->proc.rank);
    resp_int(&r, "size", job_size(c));
    resp_int(&r, "appnum", appnum(c));
    resp_add(&r, "debugged", "FALSE");
    resp_add(&r, "pmiverbose", "FALSE");
    resp_send(c, &r, 0, NULL);
    return 0;
}

/* PMI-1 get and PMI-2 kvs-get / info-getjobattr: the store, or a job attribute. */
static void cmd_get(struct spx_srv_pmi_conn *c, const struct spx_pmi_cmd *cmd, bool jobattr)
{
    const char *key = spx_pmi_cmd_get(cmd, "key");
    char map[SPX_PMI_MAX_VAL + 1];
    const char *val = NULL;
    if (key && strcmp(key, "PMI_process_mapping") == 0)
        val = process_mapping(c, map, sizeof(map)) == 0 ? map : NULL;
    else if (key && strcmp(key, "universeSize") == 0 && jobattr)
        val = snprintf(map, sizeof(map), "%u", job_size(c)) > 0 ? map : NULL;
    else if (key && !jobattr)
        val = kvs_find(c, key, opt_long(cmd, "srcid", -1));
    if (c->mode == SPX_PMI_MODE_V2) {
        send_value(c, jobattr ? "info-getjobattr-response" : "kvs-get-response", val);
        return;
    }
    struct resp r;
    resp_begin(&r, c, "get_result");
    if (val)
        resp_add(&r, "value", val);
    resp_send(c, &r, val ? 0 : -1, "key_not_found");
}

/* Commands of both versions after init. 1: not one of them. */
static int cmd_common(struct spx_srv_pmi_conn *c, const char *name, const struct spx_pmi_cmd *cmd)
{
    bool v2 = c->mode == SPX_PMI_MODE_V2;
    if (strcmp(name, v2 ? "kvs-put" : "put") == 0) {
        int rc = do_put(c, spx_pmi_cmd_get(cmd, "key"), spx_pmi_cmd_get(cmd, "value"));
        send_status(c, "put_result", "kvs-put", rc ? -1 : 0, "bad_key_or_value");
        return 0;
    }
    if (strcmp(name, v2 ? "kvs-get" : "get") == 0) {
        cmd_get(c, cmd, false);
        return 0;
    }
    if (strcmp(name, v2 ? "kvs-fence" : "barrier_in") == 0)
        return do_fence(c) ? -1 : 0;
    if (strcmp(name, "finalize") == 0)
        return do_simple(c, SPX_MSG_FINALIZE, SPX_PMI_WAIT_FINALIZE, 0, NULL) ? -1 : 0;
    if (strcmp(name, "abort") == 0) {
        long code = opt_long(cmd, "exitcode", 1);
        const char *msg = spx_pmi_cmd_get(cmd, v2 ? "message" : "message");
        spx_warn("%s: PMI abort (exit code %ld)", c->peer->name, code);
        return do_simple(c, SPX_MSG_ABORT, SPX_PMI_WAIT_ABORT, (int)code, msg) ? -1 : 0;
    }
    const char *svc = spx_pmi_cmd_get(cmd, v2 ? "name" : "service");
    enum spx_pmi_wait w = SPX_PMI_WAIT_NONE;
    if (strcmp(name, v2 ? "name-publish" : "publish_name") == 0)
        w = SPX_PMI_WAIT_PUBLISH;
    else if (strcmp(name, v2 ? "name-unpublish" : "unpublish_name") == 0)
        w = SPX_PMI_WAIT_UNPUBLISH;
    else if (strcmp(name, v2 ? "name-lookup" : "lookup_name") == 0)
        w = SPX_PMI_WAIT_LOOKUP;
    else
        return 1;
    int rc = do_names(c, w, svc, spx_pmi_cmd_get(cmd, "port"));
    if (rc > 0) {
        c->wait = w;
        spx_buf_t fail;
        spx_buf_init(&fail);
        spx_buf_push_i32(&fail, PMIX_ERR_BAD_PARAM);
        spx_pmi_answer(c, 0, &fail);
        spx_buf_fini(&fail);
        return 0;
    }
    return rc;
}

int spx_pmi_dispatch(struct spx_srv_pmi_conn *c, const struct spx_pmi_cmd *cmd)
{
    const char *name = cmd->p[0].val;
    struct resp r;
    if (!c->bound) { /* the first command: init (PMI-1 line), or fullinit for PMI-2 */
        if (strcmp(name, "init") == 0)
            return cmd_init(c, cmd);
        if (c->mode == SPX_PMI_MODE_V2 && strcmp(name, "fullinit") == 0)
            return cmd_fullinit(c, cmd);
        spx_warn("%s: PMI command %.64s before init", c->peer->name, name);
        return -1;
    }
    if (c->mode == SPX_PMI_MODE_V2 && strcmp(name, "fullinit") == 0)
        return cmd_fullinit(c, cmd);
    int rc = cmd_common(c, name, cmd);
    if (rc <= 0)
        return rc;
    if (c->mode == SPX_PMI_MODE_V2) {
        if (strcmp(name, "job-getid") == 0) {
            resp_begin(&r, c, "job-getid-response");
            resp_add(&r, "jobid", c->proc.nspace);
            resp_send(c, &r, 0, NULL);
        } else if (strcmp(name, "info-getjobattr") == 0) {
            cmd_get(c, cmd, true);
        } else if (strcmp(name, "info-putnodeattr") == 0) {
            const char *key = spx_pmi_cmd_get(cmd, "key");
            int prc = nodeattr_put(c, key, spx_pmi_cmd_get(cmd, "value"));
            send_status(c, "", "info-putnodeattr", prc, "bad_key_or_value");
            if (prc == 0)
                spx_pmi_nodeattr_wake(c->ctx, c->proc.nspace, key);
        } else if (strcmp(name, "info-getnodeattr") == 0) {
            const char *key = spx_pmi_cmd_get(cmd, "key");
            const char *wait = spx_pmi_cmd_get(cmd, "wait");
            const char *val = key ? nodeattr_get(c, key) : NULL;
            if (!val && key && wait && strcmp(wait, "TRUE") == 0 && strlen(key) < sizeof(c->waitkey)) {
                snprintf(c->waitkey, sizeof(c->waitkey), "%s", key);
                c->wait = SPX_PMI_WAIT_NODEATTR;
            } else {
                send_value(c, "info-getnodeattr-response", val);
            }
        } else {
            char n2[SPX_PMI_MAX_KEY + 16];
            snprintf(n2, sizeof(n2), "%.200s-response", name);
            resp_begin(&r, c, n2);
            resp_send(c, &r, -1, "unknown command");
        }
        return 0;
    }
    if (strcmp(name, "get_maxes") == 0) {
        resp_begin(&r, c, "maxes");
        resp_int(&r, "kvsname_max", PMIX_MAX_NSLEN + 1);
        resp_int(&r, "keylen_max", 64);
        resp_int(&r, "vallen_max", 1024);
    } else if (strcmp(name, "get_appnum") == 0) {
        resp_begin(&r, c, "appnum");
        resp_int(&r, "appnum", appnum(c));
    } else if (strcmp(name, "get_my_kvsname") == 0) {
        resp_begin(&r, c, "my_kvsname");
        resp_add(&r, "kvsname", c->proc.nspace);
    } else if (strcmp(name, "get_universe_size") == 0) {
        resp_begin(&r, c, "universe_size");
        resp_int(&r, "size", job_size(c));
    } else {
        resp_begin(&r, c, "error");
        resp_add(&r, "cmd_was", name);
        resp_send(c, &r, -1, "unknown_command");
        return 0;
    }
    resp_send(c, &r, 0, NULL);
    return 0;
}
