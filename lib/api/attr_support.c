/* attr_support.c - which attributes each function of this library honours,
 * and PMIx_Query_info's PMIX_QUERY_ATTRIBUTE_SUPPORT answer built from that
 * table (called by client/client_query.c; see attr_support.h).
 *
 * Flow: the query's qualifiers (PMIX_CLIENT_ATTRIBUTES="PMIx_Fence,..." or
 * "all", PMIX_CLIENT_FUNCTIONS, the same for SERVER/TOOL/HOST) select
 * entries of the static table below; each selected function becomes one
 * pmix_info_t whose value is an array of pmix_regattr_t (name, key string,
 * type, description), each selected function list one comma-separated
 * string. The per-function lists mirror the directive lists the code checks
 * (PMIX_INFO_REQD, types/directives.c) and, for the rest, the keys the code
 * reads; test/integration/attrs.sh compares them with the sources.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "api/attr_support.h"
#include "types/types.h"
#include "util/compiler.h"

/* One attribute record: the macro's name, its key string, type, description. */
#define ATTR(var, key, type, descr) \
    static const struct spx_attr var = {#key, key, type, descr}

ATTR(a_collect_data, PMIX_COLLECT_DATA, PMIX_BOOL, "exchange the data put by the participants");
ATTR(a_timeout, PMIX_TIMEOUT, PMIX_INT, "seconds before the operation fails with PMIX_ERR_TIMEOUT");
ATTR(a_optional, PMIX_OPTIONAL, PMIX_BOOL, "look only in data already here, do not ask the server");
ATTR(a_immediate, PMIX_IMMEDIATE, PMIX_BOOL, "answer at once (PMIX_ERR_NOT_FOUND) rather than wait for the key");
ATTR(a_node_info, PMIX_NODE_INFO, PMIX_BOOL, "the key is node-level information (with PMIX_HOSTNAME or PMIX_NODEID)");
ATTR(a_hostname, PMIX_HOSTNAME, PMIX_STRING, "the node the node-level key is asked for");
ATTR(a_nodeid, PMIX_NODEID, PMIX_UINT32, "the node (by id) the node-level key is asked for");
ATTR(a_app_info, PMIX_APP_INFO, PMIX_BOOL, "the key is application-level information (with PMIX_APPNUM)");
ATTR(a_appnum, PMIX_APPNUM, PMIX_UINT32, "the application the app-level key is asked for");
ATTR(a_session_info, PMIX_SESSION_INFO, PMIX_BOOL, "the key is session-level information (with PMIX_SESSION_ID)");
ATTR(a_session_id, PMIX_SESSION_ID, PMIX_UINT32, "the session the session-level key is asked for");
ATTR(a_group_context_id, PMIX_GROUP_CONTEXT_ID, PMIX_SIZE, "the key is asked of the group with this context id");
ATTR(a_range, PMIX_RANGE, PMIX_DATA_RANGE, "which processes may see (or are searched for) the data");
ATTR(a_persistence, PMIX_PERSISTENCE, PMIX_PERSIST, "how long published data is kept");
ATTR(a_wait, PMIX_WAIT, PMIX_INT, "wait until the keys are published (0: all of them, N: N of them)");
ATTR(a_event_custom_range, PMIX_EVENT_CUSTOM_RANGE, PMIX_DATA_ARRAY, "deliver the event to these processes only");
ATTR(a_event_affected_proc, PMIX_EVENT_AFFECTED_PROC, PMIX_PROC, "the process the event is about");
ATTR(a_event_non_default, PMIX_EVENT_NON_DEFAULT, PMIX_BOOL, "default handlers (registered for no code) do not get the event");
ATTR(a_event_do_not_cache, PMIX_EVENT_DO_NOT_CACHE, PMIX_BOOL, "a PROC_LOCAL event is not kept for handlers registered later");
ATTR(a_event_hdlr_first, PMIX_EVENT_HDLR_FIRST, PMIX_BOOL, "run this handler before all others");
ATTR(a_event_hdlr_last, PMIX_EVENT_HDLR_LAST, PMIX_BOOL, "run this handler after all others");
ATTR(a_event_hdlr_prepend, PMIX_EVENT_HDLR_PREPEND, PMIX_BOOL, "put this handler ahead of the others of its class");
ATTR(a_event_return_object, PMIX_EVENT_RETURN_OBJECT, PMIX_POINTER, "an object handed back to the handler on each call");
ATTR(a_group_assign_context_id, PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_BOOL, "give the new group a context id unique in the session");
ATTR(a_group_info, PMIX_GROUP_INFO, PMIX_DATA_ARRAY, "data every member can PMIx_Get with the group's context id");
ATTR(a_group_notify_termination, PMIX_GROUP_NOTIFY_TERMINATION, PMIX_BOOL, "tell the members when one of them ends");
ATTR(a_group_local_only, PMIX_GROUP_LOCAL_ONLY, PMIX_BOOL, "all members are on this node: no inter-node step");
ATTR(a_group_optional, PMIX_GROUP_OPTIONAL, PMIX_BOOL, "build the group even if some invited processes do not join");
ATTR(a_group_ft_collective, PMIX_GROUP_FT_COLLECTIVE, PMIX_BOOL, "carry on without members that fail during the construction");
ATTR(a_group_add_members, PMIX_GROUP_ADD_MEMBERS, PMIX_DATA_ARRAY, "processes added to the group besides those given");
ATTR(a_log_once, PMIX_LOG_ONCE, PMIX_BOOL, "stop at the first channel that took the message");
ATTR(a_log_tag_output, PMIX_LOG_TAG_OUTPUT, PMIX_BOOL, "prefix each message with [nspace,rank]");
ATTR(a_log_generate_timestamp, PMIX_LOG_GENERATE_TIMESTAMP, PMIX_BOOL, "prefix each message with the current time");
ATTR(a_log_timestamp, PMIX_LOG_TIMESTAMP, PMIX_TIME, "prefix each message with this time");
ATTR(a_log_syslog_pri, PMIX_LOG_SYSLOG_PRI, PMIX_INT, "syslog priority of the message (default LOG_ERR)");
ATTR(a_device_type, PMIX_DEVICE_TYPE, PMIX_DEVTYPE, "only devices of these types");
ATTR(a_device_id, PMIX_DEVICE_ID, PMIX_STRING, "only the device with this id");
ATTR(a_nspace, PMIX_NSPACE, PMIX_STRING, "the namespace the query is about (process tables, job status, namespace info)");
ATTR(a_query_host, PMIX_HOSTNAME, PMIX_STRING, "the node whose server's PMIX_SERVER_URI is asked");
ATTR(a_query_nodeid, PMIX_NODEID, PMIX_UINT32, "the node (by id) whose server's PMIX_SERVER_URI is asked");
ATTR(a_client_attributes, PMIX_CLIENT_ATTRIBUTES, PMIX_STRING, "client functions (comma list or \"all\") whose attributes are asked");
ATTR(a_server_attributes, PMIX_SERVER_ATTRIBUTES, PMIX_STRING, "server functions (comma list or \"all\") whose attributes are asked");
ATTR(a_tool_attributes, PMIX_TOOL_ATTRIBUTES, PMIX_STRING, "tool functions (comma list or \"all\") whose attributes are asked");
ATTR(a_host_attributes, PMIX_HOST_ATTRIBUTES, PMIX_STRING, "host functions whose attributes are asked (none known to the library)");
ATTR(a_client_functions, PMIX_CLIENT_FUNCTIONS, PMIX_STRING, "ask for the client functions of this table (answer: a comma list)");
ATTR(a_server_functions, PMIX_SERVER_FUNCTIONS, PMIX_STRING, "ask for the server functions of this table (answer: a comma list)");
ATTR(a_tool_functions, PMIX_TOOL_FUNCTIONS, PMIX_STRING, "ask for the tool functions of this table (answer: a comma list)");
ATTR(a_host_functions, PMIX_HOST_FUNCTIONS, PMIX_STRING, "ask for the host's functions (none known to the library)");
ATTR(a_register_cleanup, PMIX_REGISTER_CLEANUP, PMIX_STRING, "files the server removes when the job ends");
ATTR(a_register_cleanup_dir, PMIX_REGISTER_CLEANUP_DIR, PMIX_STRING, "directories the server removes when the job ends");
ATTR(a_cleanup_recursive, PMIX_CLEANUP_RECURSIVE, PMIX_BOOL, "remove the directories with everything in them");
ATTR(a_cleanup_empty, PMIX_CLEANUP_EMPTY, PMIX_BOOL, "remove the directories only if they are empty");
ATTR(a_cleanup_ignore, PMIX_CLEANUP_IGNORE, PMIX_STRING, "entries of the directories to leave in place");
ATTR(a_cleanup_leave_topdir, PMIX_CLEANUP_LEAVE_TOPDIR, PMIX_BOOL, "empty the directories but keep them");
ATTR(a_programming_model, PMIX_PROGRAMMING_MODEL, PMIX_STRING, "the caller's programming model (accepted, informational)");
ATTR(a_model_library_name, PMIX_MODEL_LIBRARY_NAME, PMIX_STRING, "the caller's model library (accepted, informational)");
ATTR(a_model_library_version, PMIX_MODEL_LIBRARY_VERSION, PMIX_STRING, "its version (accepted, informational)");
ATTR(a_threading_model, PMIX_THREADING_MODEL, PMIX_STRING, "the caller's threading model (accepted, informational)");
ATTR(a_tool_nspace, PMIX_TOOL_NSPACE, PMIX_STRING, "the namespace this tool takes");
ATTR(a_tool_rank, PMIX_TOOL_RANK, PMIX_UINT32, "the rank this tool takes");
ATTR(a_tool_do_not_connect, PMIX_TOOL_DO_NOT_CONNECT, PMIX_BOOL, "start without connecting to any server");
ATTR(a_server_uri, PMIX_SERVER_URI, PMIX_STRING, "connect to the server at this URI (or \"file:PATH\" holding it)");
ATTR(a_tool_attachment_file, PMIX_TOOL_ATTACHMENT_FILE, PMIX_STRING, "connect to the server named in this file");
ATTR(a_server_pidinfo, PMIX_SERVER_PIDINFO, PMIX_PID, "connect to the server of this process id");
ATTR(a_server_nspace, PMIX_SERVER_NSPACE, PMIX_STRING, "connect to the server of this namespace / the server's namespace");
ATTR(a_connect_to_system, PMIX_CONNECT_TO_SYSTEM, PMIX_BOOL, "connect to this node's system server only");
ATTR(a_connect_system_first, PMIX_CONNECT_SYSTEM_FIRST, PMIX_BOOL, "try this node's system server before the others");
ATTR(a_system_tmpdir, PMIX_SYSTEM_TMPDIR, PMIX_STRING, "directory of the system server's rendezvous file");
ATTR(a_server_tmpdir, PMIX_SERVER_TMPDIR, PMIX_STRING, "directory of the servers' rendezvous files");
ATTR(a_primary_server, PMIX_PRIMARY_SERVER, PMIX_BOOL, "make this server the primary one (the one requests go to)");
ATTR(a_tool_connect_optional, PMIX_TOOL_CONNECT_OPTIONAL, PMIX_BOOL, "start even when no server can be reached");
ATTR(a_iof_cache_size, PMIX_IOF_CACHE_SIZE, PMIX_UINT32, "bytes held for a target that reads slower than data comes");
ATTR(a_iof_drop_oldest, PMIX_IOF_DROP_OLDEST, PMIX_BOOL, "when the cache is full, drop its oldest bytes");
ATTR(a_iof_drop_newest, PMIX_IOF_DROP_NEWEST, PMIX_BOOL, "when the cache is full, drop the new bytes");
ATTR(a_iof_buffering_size, PMIX_IOF_BUFFERING_SIZE, PMIX_UINT32, "gather this many bytes before sending them on");
ATTR(a_iof_buffering_time, PMIX_IOF_BUFFERING_TIME, PMIX_UINT32, "send gathered bytes on after at most this many seconds");
ATTR(a_iof_push_stdin, PMIX_IOF_PUSH_STDIN, PMIX_BOOL, "read this process's stdin and forward it until EOF");
ATTR(a_iof_complete, PMIX_IOF_COMPLETE, PMIX_BOOL, "end the targets' stdin (EOF) after these bytes");
ATTR(a_iof_tag_output, PMIX_IOF_TAG_OUTPUT, PMIX_BOOL, "each line pulled starts [nspace,rank]<channel>: ");
ATTR(a_iof_timestamp_output, PMIX_IOF_TIMESTAMP_OUTPUT, PMIX_BOOL, "each line pulled starts with the time it came");
ATTR(a_iof_xml_output, PMIX_IOF_XML_OUTPUT, PMIX_BOOL, "output pulled as XML elements, one per piece of a line");
ATTR(a_userid, PMIX_USERID, PMIX_UINT32, "the user the server's clients must run as");
ATTR(a_grpid, PMIX_GRPID, PMIX_UINT32, "the group the server's clients must run as");
ATTR(a_server_rank, PMIX_SERVER_RANK, PMIX_PROC_RANK, "the server's rank");
ATTR(a_server_tool_support, PMIX_SERVER_TOOL_SUPPORT, PMIX_BOOL, "accept tool connections (writes the rendezvous file)");
ATTR(a_topology2, PMIX_TOPOLOGY2, PMIX_TOPO, "the host's hwloc topology of this node, used instead of discovering it (borrowed)");

#define ATTRS(...) ((const struct spx_attr *const[]){__VA_ARGS__, NULL})
#define NO_ATTRS   ((const struct spx_attr *const[]){NULL})

#define FENCE    ATTRS(&a_collect_data, &a_timeout)
#define GET                                                                                      \
    ATTRS(&a_optional, &a_immediate, &a_timeout, &a_node_info, &a_hostname, &a_nodeid,          \
          &a_app_info, &a_appnum, &a_session_info, &a_session_id, &a_group_context_id)
#define PUBLISH  ATTRS(&a_range, &a_persistence)
#define UNPUB    ATTRS(&a_range)
#define LOOKUP   ATTRS(&a_range, &a_wait)
#define GRP_CONSTRUCT                                                                            \
    ATTRS(&a_group_assign_context_id, &a_group_info, &a_timeout, &a_group_notify_termination,   \
          &a_group_local_only, &a_group_optional, &a_group_ft_collective, &a_group_add_members)
#define GRP_INVITE                                                                               \
    ATTRS(&a_group_assign_context_id, &a_group_info, &a_timeout, &a_group_notify_termination,   \
          &a_group_optional)
#define GRP_DESTRUCT ATTRS(&a_timeout)
#define LOG                                                                                      \
    ATTRS(&a_log_once, &a_log_tag_output, &a_log_generate_timestamp, &a_log_timestamp,          \
          &a_log_syslog_pri)
#define DISTANCES ATTRS(&a_device_type, &a_device_id)
#define QUERY                                                                                    \
    ATTRS(&a_nspace, &a_query_host, &a_query_nodeid, &a_client_attributes,                     \
          &a_server_attributes, &a_tool_attributes, &a_host_attributes, &a_client_functions,    \
          &a_server_functions, &a_tool_functions, &a_host_functions)
#define JOBCTL                                                                                   \
    ATTRS(&a_register_cleanup, &a_register_cleanup_dir, &a_cleanup_recursive, &a_cleanup_empty, \
          &a_cleanup_ignore, &a_cleanup_leave_topdir)

static const struct spx_attr_fn client_fns[] = {
    {"PMIx_Init", ATTRS(&a_programming_model, &a_model_library_name, &a_model_library_version,
                        &a_threading_model)},
    {"PMIx_Finalize", NO_ATTRS},
    {"PMIx_Fence", FENCE},
    {"PMIx_Fence_nb", FENCE},
    {"PMIx_Get", GET},
    {"PMIx_Get_nb", GET},
    {"PMIx_Publish", PUBLISH},
    {"PMIx_Publish_nb", PUBLISH},
    {"PMIx_Unpublish", UNPUB},
    {"PMIx_Unpublish_nb", UNPUB},
    {"PMIx_Lookup", LOOKUP},
    {"PMIx_Lookup_nb", LOOKUP},
    {"PMIx_Notify_event", ATTRS(&a_event_custom_range, &a_event_affected_proc,
                                &a_event_non_default, &a_event_do_not_cache)},
    {"PMIx_Register_event_handler", ATTRS(&a_event_hdlr_first, &a_event_hdlr_last,
                                          &a_event_hdlr_prepend, &a_event_return_object)},
    {"PMIx_Group_construct", GRP_CONSTRUCT},
    {"PMIx_Group_construct_nb", GRP_CONSTRUCT},
    {"PMIx_Group_invite", GRP_INVITE},
    {"PMIx_Group_invite_nb", GRP_INVITE},
    {"PMIx_Group_join", GRP_CONSTRUCT},
    {"PMIx_Group_join_nb", GRP_CONSTRUCT},
    {"PMIx_Group_destruct", GRP_DESTRUCT},
    {"PMIx_Group_destruct_nb", GRP_DESTRUCT},
    {"PMIx_Group_leave", NO_ATTRS},
    {"PMIx_Group_leave_nb", NO_ATTRS},
    {"PMIx_Connect", GRP_CONSTRUCT}, /* a group construction named after its members */
    {"PMIx_Connect_nb", GRP_CONSTRUCT},
    {"PMIx_Disconnect", GRP_DESTRUCT},
    {"PMIx_Disconnect_nb", GRP_DESTRUCT},
    {"PMIx_Log", LOG},
    {"PMIx_Log_nb", LOG},
    {"PMIx_Compute_distances", DISTANCES},
    {"PMIx_Compute_distances_nb", DISTANCES},
    {"PMIx_Query_info", QUERY},
    {"PMIx_Query_info_nb", QUERY},
    {"PMIx_Job_control", JOBCTL}, /* the others go to the host */
    {"PMIx_Job_control_nb", JOBCTL},
};

static const struct spx_attr_fn server_fns[] = {
    {"PMIx_server_init",
     ATTRS(&a_server_tmpdir, &a_userid, &a_grpid, &a_server_nspace, &a_server_rank, &a_hostname,
           &a_nodeid, &a_server_tool_support, &a_system_tmpdir, &a_topology2)},
};

static const struct spx_attr_fn tool_fns[] = {
    {"PMIx_tool_init",
     ATTRS(&a_tool_nspace, &a_tool_rank, &a_tool_do_not_connect, &a_server_uri,
           &a_tool_attachment_file, &a_server_pidinfo, &a_server_nspace, &a_connect_to_system,
           &a_connect_system_first, &a_system_tmpdir, &a_server_tmpdir, &a_programming_model,
           &a_model_library_name, &a_model_library_version, &a_threading_model,
           &a_tool_connect_optional)},
    {"PMIx_tool_finalize", NO_ATTRS},
    {"PMIx_tool_attach_to_server",
     ATTRS(&a_server_uri, &a_tool_attachment_file, &a_server_pidinfo, &a_server_nspace,
           &a_connect_to_system, &a_connect_system_first, &a_system_tmpdir, &a_server_tmpdir,
           &a_primary_server)},
    {"PMIx_tool_set_server", NO_ATTRS},
    {"PMIx_IOF_push", ATTRS(&a_iof_cache_size, &a_iof_drop_oldest, &a_iof_drop_newest,
                            &a_iof_buffering_size, &a_iof_buffering_time, &a_iof_push_stdin,
                            &a_iof_complete)},
    {"PMIx_IOF_pull", ATTRS(&a_iof_tag_output, &a_iof_timestamp_output, &a_iof_xml_output)},
    {"PMIx_IOF_deregister", NO_ATTRS},
};

const struct spx_attr_level spx_attr_levels[] = {
    {PMIX_CLIENT_ATTRIBUTES, PMIX_CLIENT_FUNCTIONS, client_fns, SPX_ARRAY_LEN(client_fns)},
    {PMIX_SERVER_ATTRIBUTES, PMIX_SERVER_FUNCTIONS, server_fns, SPX_ARRAY_LEN(server_fns)},
    {PMIX_TOOL_ATTRIBUTES, PMIX_TOOL_FUNCTIONS, tool_fns, SPX_ARRAY_LEN(tool_fns)},
    {PMIX_HOST_ATTRIBUTES, PMIX_HOST_FUNCTIONS, NULL, 0},
};
const size_t spx_attr_nlevels = SPX_ARRAY_LEN(spx_attr_levels);

/* ---- selection ---- */

/* What a query asks: per level, every function, a list of names (in the
 * qualifier's string), and/or the level's function list. */
struct selection {
    bool all[4];
    const char *names[4]; /* borrowed from the qualifiers: comma list */
    bool fns[4];
};

static const struct spx_attr_fn *find_fn(const struct spx_attr_level *l, const char *name,
                                         size_t len)
{
    for (size_t i = 0; i < l->nfns; i++)
        if (strlen(l->fns[i].function) == len && strncmp(l->fns[i].function, name, len) == 0)
            return &l->fns[i];
    return NULL;
}

/* True if the comma list s names f (or "all"). */
static bool names_fn(const char *s, const char *f)
{
    size_t flen = strlen(f);
    while (s && *s) {
        size_t len = strcspn(s, ",");
        if ((len == flen && strncmp(s, f, len) == 0) || (len == 3 && strncmp(s, "all", 3) == 0))
            return true;
        s += len + (s[len] == ',');
    }
    return false;
}

static pmix_status_t select_parse(const pmix_info_t *qual, size_t nqual, struct selection *sel)
{
    memset(sel, 0, sizeof(*sel));
    bool any = false;
    for (size_t q = 0; q < nqual; q++)
        for (size_t l = 0; l < spx_attr_nlevels; l++) {
            const struct spx_attr_level *lv = &spx_attr_levels[l];
            const pmix_value_t *v = &qual[q].value;
            if (PMIX_CHECK_KEY(&qual[q], lv->fns_key)) {
                any = true;
                sel->fns[l] = v->type != PMIX_BOOL || v->data.flag;
            } else if (PMIX_CHECK_KEY(&qual[q], lv->attrs_key)) {
                any = true;
                if (v->type == PMIX_BOOL)
                    sel->all[l] = v->data.flag;
                else if (v->type == PMIX_STRING && v->data.string && v->data.string[0])
                    sel->names[l] = v->data.string;
                else
                    return PMIX_ERR_BAD_PARAM;
            }
        }
    if (!any) /* no qualifier of ours: everything */
        for (size_t l = 0; l < spx_attr_nlevels; l++)
            sel->all[l] = sel->fns[l] = true;
    /* every function named must be known at its level */
    for (size_t l = 0; l < spx_attr_nlevels; l++)
        for (const char *s = sel->names[l]; s && *s;) {
            size_t len = strcspn(s, ",");
            if (!(len == 3 && strncmp(s, "all", 3) == 0) && len > 0 &&
                !find_fn(&spx_attr_levels[l], s, len))
                return PMIX_ERR_NOT_FOUND;
            s += len + (s[len] == ',');
        }
    return PMIX_SUCCESS;
}

static bool fn_selected(const struct selection *sel, size_t l, const char *f)
{
    return sel->all[l] || (sel->names[l] && names_fn(sel->names[l], f));
}

/* Number of entries the answer holds. */
static size_t select_count(const struct selection *sel)
{
    size_t n = 0;
    for (size_t l = 0; l < spx_attr_nlevels; l++) {
        const struct spx_attr_level *lv = &spx_attr_levels[l];
        for (size_t i = 0; i < lv->nfns; i++)
            n += fn_selected(sel, l, lv->fns[i].function);
        n += sel->fns[l] && lv->nfns > 0;
    }
    return n;
}

pmix_status_t spx_attr_support_check(const pmix_info_t *qual, size_t nqual)
{
    struct selection sel;
    pmix_status_t rc = select_parse(qual, nqual, &sel);
    if (rc != PMIX_SUCCESS)
        return rc;
    return select_count(&sel) > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

/* ---- answer ---- */

static pmix_data_array_t *darray_new(pmix_data_type_t type, size_t n, size_t elem)
{
    pmix_data_array_t *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->array = calloc(n ? n : 1, elem);
    if (!d->array) {
        free(d);
        return NULL;
    }
    d->type = type;
    d->size = n;
    return d;
}

/* out: function -> array of regattr. */
static pmix_status_t load_fn(pmix_info_t *out, const struct spx_attr_fn *fn)
{
    size_t n = 0;
    while (fn->attrs[n])
        n++;
    pmix_data_array_t *d = darray_new(PMIX_REGATTR, n ? n : 1, sizeof(pmix_regattr_t));
    if (!d)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_KEY(out->key, fn->function);
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = d; /* owned by out from here on */
    pmix_regattr_t *ra = d->array;
    if (n == 0) { /* as OpenPMIx: one entry named "NONE" */
        ra[0].name = strdup("NONE");
        ra[0].type = PMIX_UNDEF;
        return ra[0].name ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const struct spx_attr *a = fn->attrs[i];
        ra[i].name = strdup(a->name);
        PMIX_LOAD_KEY(ra[i].string, a->string);
        ra[i].type = a->type;
        ra[i].description = calloc(2, sizeof(char *));
        if (ra[i].description)
            ra[i].description[0] = strdup(a->descr);
        if (!ra[i].name || !ra[i].description || !ra[i].description[0])
            return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

/* out: fns_key -> "f1,f2,...". */
static pmix_status_t load_fn_list(pmix_info_t *out, const struct spx_attr_level *lv)
{
    size_t len = 1;
    for (size_t i = 0; i < lv->nfns; i++)
        len += strlen(lv->fns[i].function) + 1;
    char *s = calloc(1, len);
    if (!s)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < lv->nfns; i++) {
        if (i)
            strcat(s, ",");
        strcat(s, lv->fns[i].function);
    }
    PMIX_LOAD_KEY(out->key, lv->fns_key);
    out->value.type = PMIX_STRING;
    out->value.data.string = s;
    return PMIX_SUCCESS;
}

pmix_status_t spx_attr_support_answer(const pmix_info_t *qual, size_t nqual, pmix_info_t *out)
{
    struct selection sel;
    pmix_status_t rc = select_parse(qual, nqual, &sel);
    if (rc != PMIX_SUCCESS)
        return rc;
    size_t n = select_count(&sel);
    if (n == 0)
        return PMIX_ERR_NOT_FOUND;
    pmix_data_array_t *d = darray_new(PMIX_INFO, n, sizeof(pmix_info_t));
    if (!d)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_KEY(out->key, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = d; /* owned by out: the caller's destruct frees all */
    pmix_info_t *e = d->array;
    size_t k = 0;
    for (size_t l = 0; l < spx_attr_nlevels && rc == PMIX_SUCCESS; l++) {
        const struct spx_attr_level *lv = &spx_attr_levels[l];
        for (size_t i = 0; i < lv->nfns && rc == PMIX_SUCCESS; i++)
            if (fn_selected(&sel, l, lv->fns[i].function))
                rc = load_fn(&e[k++], &lv->fns[i]);
        if (rc == PMIX_SUCCESS && sel.fns[l] && lv->nfns > 0)
            rc = load_fn_list(&e[k++], lv);
    }
    return rc;
}
