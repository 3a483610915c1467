/* client_tool.c - the tool API (PMIx_tool_init, _finalize, _attach_to_server,
 * _get_servers, _set_server, _disconnect, _is_connected): a tool finds a
 * server through the ways PMIx defines and connects to it as a tool
 * (proto/msg.h HELLO, proto/rendezvous.h); once connected it uses the
 * client's machinery (PMIx_Query_info, PMIx_Finalize's path).
 *
 * Which server (first that applies):
 *   PMIX_TOOL_DO_NOT_CONNECT    none: the tool runs alone (its own identity)
 *   PMIX_SERVER_URI             "spmix:<socket>", "spmix-tcp://HOST:PORT" (a
 *                               step's server on another host, over its tree
 *                               port, authenticated by munge: client_remote.c),
 *                               or "file:<path>" of a file whose first line is
 *                               such a URI
 *   PMIX_TOOL_ATTACHMENT_FILE   a file whose first line is the URI
 *   PMIX_SERVER_PIDINFO         the server in process pid: its rendezvous file
 *   PMIX_SERVER_NSPACE          the server whose rendezvous file names it
 *   PMIX_CONNECT_TO_SYSTEM      a system server: spmix has none (UNREACH)
 *   otherwise                   the one rendezvous file of this user in the
 *                               rendezvous directory (several: UNREACH, name one);
 *                               the files of a launcher's nodes (a "launcher"
 *                               line) are passed over, the launcher's own
 *                               leads to its job
 * A rendezvous file whose process is gone (a server that did not end in
 * order) is passed over; files naming the same socket count once.
 * The rendezvous directory: PMIX_SYSTEM_TMPDIR or PMIX_SERVER_TMPDIR (info,
 * then environment), else $TMPDIR, else /tmp. Only files owned by this user
 * or root are read; a server refuses a tool of another user anyway.
 *
 * A tool may hold several servers at once (client_conn.c keeps one record
 * per connection), one of them the primary, where requests go.
 * PMIx_tool_attach_to_server connects to one more by the same discovery
 * attributes (an empty info array: PMIX_ERR_BAD_PARAM, as the standard
 * says), keeping the tool's identity; PMIX_PRIMARY_SERVER makes it the
 * primary (the first one is anyway); naming a server it holds returns that
 * server's id without a second connection. PMIx_tool_get_servers lists the
 * servers, the primary first (none: PMIX_ERR_UNREACH); PMIx_tool_set_server
 * makes a held one the primary (others: PMIX_ERR_UNREACH);
 * PMIx_tool_disconnect ends a stdin forwarding through that server, tells
 * it (FINALIZE) and closes that connection; if it was the primary, the
 * oldest other server becomes the primary; with none left, requests answer
 * PMIX_ERR_UNREACH until the next attach. These calls block (not on the
 * progress thread) and are serialized with init and finalize by init_lock.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "client/client.h"
#include "client/client_remote.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "proto/rendezvous.h"
#include "types/types.h"
#include "util/log.h"

static const char *const tool_directives[] = {
    PMIX_TOOL_NSPACE,       PMIX_TOOL_RANK,           PMIX_TOOL_DO_NOT_CONNECT,
    PMIX_SERVER_URI,        PMIX_TOOL_ATTACHMENT_FILE, PMIX_SERVER_PIDINFO,
    PMIX_SERVER_NSPACE,     PMIX_CONNECT_TO_SYSTEM,   PMIX_CONNECT_SYSTEM_FIRST,
    PMIX_SYSTEM_TMPDIR,     PMIX_SERVER_TMPDIR,       PMIX_PROGRAMMING_MODEL,
    PMIX_MODEL_LIBRARY_NAME, PMIX_MODEL_LIBRARY_VERSION, PMIX_THREADING_MODEL,
    PMIX_TOOL_CONNECT_OPTIONAL, NULL};

/* A string directive, or NULL when absent, not a string or empty. */
static const char *info_str(const pmix_info_t *info, size_t n, const char *key)
{
    const char *s = spx_info_string(info, n, key);
    return s && *s ? s : NULL;
}

static const char *rendezvous_dir(const pmix_info_t *info, size_t n)
{
    const char *d = info_str(info, n, PMIX_SYSTEM_TMPDIR);
    if (!d)
        d = info_str(info, n, PMIX_SERVER_TMPDIR);
    static const char *const vars[] = {"PMIX_SYSTEM_TMPDIR", "PMIX_SERVER_TMPDIR", "TMPDIR"};
    for (size_t k = 0; !d && k < SPX_ARRAY_LEN(vars); k++) {
        const char *v = getenv(vars[k]);
        if (v && *v)
            d = v;
    }
    return d ? d : "/tmp";
}

/* Reads the first nlines lines of file (a regular file owned by this user
 * or root, each line at most SPX_RDV_MAX_LINE bytes) into lines (owned by
 * the caller, NULL-padded). 0 or -1 (errno). */
static int read_lines(const char *file, char **lines, int nlines)
{
    for (int k = 0; k < nlines; k++)
        lines[k] = NULL;
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (st.st_uid != geteuid() && st.st_uid != 0) ||
        st.st_size > (off_t)nlines * (SPX_RDV_MAX_LINE + 1)) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    char *buf = calloc(1, (size_t)st.st_size + 1);
    ssize_t got = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    if (got < 0) {
        free(buf);
        return -1;
    }
    char *save = NULL, *line = strtok_r(buf, "\n", &save);
    for (int k = 0; line && k < nlines; k++, line = strtok_r(NULL, "\n", &save))
        if (strlen(line) > SPX_RDV_MAX_LINE || !(lines[k] = strdup(line))) {
            for (int j = 0; j <= k; j++)
                free(lines[j]), lines[j] = NULL;
            free(buf);
            errno = EINVAL;
            return -1;
        }
    free(buf);
    return 0;
}

/* The socket path of uri "spmix:<path>" (a copy), or NULL with a log line. */
static char *uri_path(const char *fn, const char *uri, const char *from)
{
    size_t pl = strlen(SPX_URI_PREFIX);
    if (spx_client_remote_uri(uri))
        return strdup(uri); /* client_remote.c connects to it */
    if (!uri || strncmp(uri, SPX_URI_PREFIX, pl) != 0 || !uri[pl]) {
        spx_error("%s: %s: '%.200s' is not the address of an spmix server", fn, from,
                  uri ? uri : "(empty)");
        return NULL;
    }
    return strdup(uri + pl);
}

static char *path_from_file(const char *fn, const char *file, const char *from)
{
    char *line[SPX_RDV_LINES]; /* a rendezvous file's lines; the first one counts */
    if (read_lines(file, line, SPX_RDV_LINES) != 0) {
        spx_error("%s: %s: cannot read %s: %s", fn, from, file, strerror(errno));
        return NULL;
    }
    char *p = uri_path(fn, line[0], from);
    for (int k = 0; k < SPX_RDV_LINES; k++)
        free(line[k]);
    return p;
}

/* Does line (a rendezvous file's third) name a launcher, i.e. is the file
 * one node's of a launcher's job? */
static bool names_launcher(const char *line)
{
    return line && strncmp(line, SPX_RDV_LAUNCHER, strlen(SPX_RDV_LAUNCHER)) == 0;
}

/* Adds uri to the distinct addresses seen (*seen, *nseen: owned by the
 * caller); returns false when it was there already or on no memory. */
static bool seen_add(char ***seen, size_t *nseen, const char *uri)
{
    for (size_t k = 0; k < *nseen; k++)
        if (strcmp((*seen)[k], uri) == 0)
            return false;
    char **grown = realloc(*seen, (*nseen + 1) * sizeof(**seen));
    if (!grown)
        return false;
    *seen = grown;
    if (!(grown[*nseen] = strdup(uri)))
        return false;
    (*nseen)++;
    return true;
}

/* Looks through dir's rendezvous files: the one of pid (pid > 0), the one
 * naming nspace, or the only one (files of a launcher's nodes passed over:
 * the launcher's own leads to its job). Files naming the same socket count
 * once. Socket path (a copy) or NULL (logged). */
static char *path_from_dir(const char *fn, const char *dir, long pid, const char *nspace)
{
    char file[PATH_MAX];
    if (pid > 0) {
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            spx_error("%s: PMIX_SERVER_PIDINFO: no process %ld", fn, pid);
            return NULL;
        }
        snprintf(file, sizeof(file), "%s/%s%ld", dir, SPX_RDV_PREFIX, pid);
        return path_from_file(fn, file, "PMIX_SERVER_PIDINFO");
    }
    DIR *d = opendir(dir);
    if (!d) {
        spx_error("%s: cannot read the rendezvous directory %s: %s", fn, dir,
                  strerror(errno));
        return NULL;
    }
    char *found = NULL, **seen = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t pl = strlen(SPX_RDV_PREFIX), nl = strlen(e->d_name);
        if (strncmp(e->d_name, SPX_RDV_PREFIX, pl) != 0 || nl == pl ||
            strspn(e->d_name + pl, "0123456789") != nl - pl)
            continue;
        char *line[SPX_RDV_LINES];
        long fpid = strtol(e->d_name + pl, NULL, 10);
        if (fpid <= 0 || (kill((pid_t)fpid, 0) != 0 && errno == ESRCH))
            continue; /* left by a server that did not end in order */
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        if (read_lines(file, line, SPX_RDV_LINES) != 0)
            continue; /* another user's, or unreadable */
        bool match = nspace ? line[1] && strcmp(line[1], nspace) == 0
                            : !names_launcher(line[2]);
        if (match && line[0] && seen_add(&seen, &count, line[0]) && !found)
            found = uri_path(fn, line[0], file);
        for (int k = 0; k < SPX_RDV_LINES; k++)
            free(line[k]);
    }
    closedir(d);
    for (size_t k = 0; k < count; k++)
        free(seen[k]);
    free(seen);
    if (count == 1)
        return found;
    free(found);
    if (count == 0)
        spx_error("%s: no spmix server %s%s%sin %s", fn,
                  nspace ? "of namespace " : "", nspace ? nspace : "", nspace ? " " : "", dir);
    else
        spx_error("%s: %zu spmix servers in %s: name one (PMIX_SERVER_PIDINFO, "
                  "PMIX_SERVER_NSPACE or PMIX_SERVER_URI)",
                  fn, count, dir);
    return NULL;
}

/* The socket to connect to (*path, owned), or none (*path NULL) for
 * PMIX_TOOL_DO_NOT_CONNECT. */
static pmix_status_t find_server(const char *fn, const pmix_info_t *info, size_t n,
                                 char **path)
{
    *path = NULL;
    if (spx_info_flag(info, n, PMIX_TOOL_DO_NOT_CONNECT))
        return PMIX_SUCCESS;
    const char *uri = info_str(info, n, PMIX_SERVER_URI);
    const char *att = info_str(info, n, PMIX_TOOL_ATTACHMENT_FILE);
    const char *ns = info_str(info, n, PMIX_SERVER_NSPACE);
    const pmix_info_t *pid = spx_info_find(info, n, PMIX_SERVER_PIDINFO);
    if (uri)
        *path = strncmp(uri, "file:", 5) == 0 ? path_from_file(fn, uri + 5, "PMIX_SERVER_URI")
                                              : uri_path(fn, uri, "PMIX_SERVER_URI");
    else if (att)
        *path = path_from_file(fn, att, "PMIX_TOOL_ATTACHMENT_FILE");
    else if (pid) {
        long v = pid->value.type == PMIX_PID    ? (long)pid->value.data.pid
                 : pid->value.type == PMIX_INT  ? (long)pid->value.data.integer
                 : pid->value.type == PMIX_UINT32 ? (long)pid->value.data.uint32
                                                  : -1;
        if (v <= 0)
            return PMIX_ERR_BAD_PARAM;
        *path = path_from_dir(fn, rendezvous_dir(info, n), v, NULL);
    } else if (spx_info_flag(info, n, PMIX_CONNECT_TO_SYSTEM)) {
        spx_error("%s: PMIX_CONNECT_TO_SYSTEM: spmix runs no system server; "
                  "name the job's server (PMIX_SERVER_PIDINFO, PMIX_SERVER_NSPACE)", fn);
        return PMIX_ERR_UNREACH;
    } else
        *path = path_from_dir(fn, rendezvous_dir(info, n), 0, ns);
    return *path ? PMIX_SUCCESS : PMIX_ERR_UNREACH;
}

SPX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    if (ninfo && !info)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = spx_directives_check("PMIx_tool_init", info, ninfo, tool_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    struct spx_tool_start t;
    memset(&t, 0, sizeof(t));
    t.ask.rank = PMIX_RANK_UNDEF;
    const char *ns = info_str(info, ninfo, PMIX_TOOL_NSPACE);
    const pmix_info_t *rank = spx_info_find(info, ninfo, PMIX_TOOL_RANK);
    uint32_t r = 0;
    if (ns && (strlen(ns) > PMIX_MAX_NSLEN ||
               (rank && spx_value_to_u32(&rank->value, &r) != PMIX_SUCCESS)))
        return PMIX_ERR_BAD_PARAM;
    if (ns)
        PMIX_LOAD_PROCID(&t.ask, ns, rank ? r : 0);
    char *path = NULL;
    if (spx_client_initialized())
        return spx_client_init(NULL, proc); /* counted, as PMIx_Init */
    if ((rc = find_server("PMIx_tool_init", info, ninfo, &path)) != PMIX_SUCCESS)
        return rc;
    t.path = path;
    rc = spx_client_init(&t, proc); /* the server's record copies path */
    free(path);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_tool_finalize(void)
{
    return PMIx_Finalize(NULL, 0);
}

/* ---- several servers: attach, list, choose the primary, disconnect ---- */

/* Takes init_lock and checks that this process is an initialized tool
 * (PMIX_SUCCESS, lock held) or says why not (lock released). */
static pmix_status_t tool_lock(const char *fn)
{
    pmix_status_t rc = spx_progress_guard(fn);
    if (rc != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&spx_client.init_lock);
    if (spx_client.init_count == 0)
        rc = PMIX_ERR_INIT;
    else if (!spx_client.tool) {
        spx_error("%s: this process is a client (PMIx_Init), not a tool", fn);
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc != PMIX_SUCCESS)
        pthread_mutex_unlock(&spx_client.init_lock);
    return rc;
}

static const char *const attach_directives[] = {
    PMIX_SERVER_URI,    PMIX_TOOL_ATTACHMENT_FILE, PMIX_SERVER_PIDINFO, PMIX_SERVER_NSPACE,
    PMIX_CONNECT_TO_SYSTEM, PMIX_CONNECT_SYSTEM_FIRST, PMIX_SYSTEM_TMPDIR, PMIX_SERVER_TMPDIR,
    PMIX_PRIMARY_SERVER, NULL};

SPX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                    pmix_info_t info[], size_t ninfo)
{
    if (!info || !ninfo) { /* the standard: the server must be named */
        spx_error("PMIx_tool_attach_to_server: no server named (PMIX_SERVER_URI, "
                  "PMIX_SERVER_PIDINFO, PMIX_SERVER_NSPACE, PMIX_TOOL_ATTACHMENT_FILE)");
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = spx_directives_check("PMIx_tool_attach_to_server", info, ninfo,
                                            attach_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((rc = tool_lock("PMIx_tool_attach_to_server")) != PMIX_SUCCESS)
        return rc;
    bool primary = spx_info_flag(info, ninfo, PMIX_PRIMARY_SERVER);
    char *path = NULL;
    pmix_proc_t srv;
    memset(&srv, 0, sizeof(srv));
    uint32_t id = 0;
    rc = find_server("PMIx_tool_attach_to_server", info, ninfo, &path);
    if (rc == PMIX_SUCCESS && !path)
        rc = PMIX_ERR_BAD_PARAM; /* PMIX_TOOL_DO_NOT_CONNECT is no server */
    if (rc == PMIX_SUCCESS && (id = spx_client_server_by_path(path, &srv)) != 0) {
        if (primary) /* held already: its id (and made the primary if asked) */
            rc = spx_client_server_set_primary(id);
    } else if (rc == PMIX_SUCCESS) {
        rc = spx_client_tool_connect(path, primary, &id, &srv);
        uint32_t old = rc == PMIX_SUCCESS ? spx_client_server_by_proc(&srv) : 0;
        if (old != 0 && old != id) { /* the same server by another address: one connection */
            (void)spx_client_server_close(id);
            rc = primary ? spx_client_server_set_primary(old) : PMIX_SUCCESS;
        }
    }
    if (myproc) /* the tool's identity, whatever the outcome */
        *myproc = spx_client.myproc;
    if (rc == PMIX_SUCCESS && server)
        *server = srv;
    pthread_mutex_unlock(&spx_client.init_lock);
    free(path);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc, pmix_info_t info[],
                                                     size_t ninfo)
{
    return PMIx_tool_attach_to_server(proc, NULL, info, ninfo);
}

SPX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers)
{
    if (!servers || !nservers)
        return PMIX_ERR_BAD_PARAM;
    *servers = NULL;
    *nservers = 0;
    pmix_status_t rc = tool_lock("PMIx_tool_get_servers");
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = spx_client_servers_list(servers, nservers);
    if (rc == PMIX_SUCCESS && *nservers == 0)
        rc = PMIX_ERR_UNREACH; /* connected to none */
    pthread_mutex_unlock(&spx_client.init_lock);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server, pmix_info_t info[],
                                              size_t ninfo)
{
    if (!server || (ninfo && !info))
        return PMIX_ERR_BAD_PARAM;
    /* none honoured: PMIX_WAIT_FOR_CONNECTION cannot bring a server not attached */
    pmix_status_t rc = spx_directives_check("PMIx_tool_set_server", info, ninfo, NULL);
    if (rc != PMIX_SUCCESS || (rc = tool_lock("PMIx_tool_set_server")) != PMIX_SUCCESS)
        return rc;
    uint32_t id = spx_client_server_by_proc(server);
    rc = id ? spx_client_server_set_primary(id) : PMIX_ERR_UNREACH;
    if (rc != PMIX_SUCCESS)
        spx_error("PMIx_tool_set_server: not connected to %s:%u (PMIx_tool_attach_to_server "
                  "first)", server->nspace, server->rank);
    pthread_mutex_unlock(&spx_client.init_lock);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server)
{
    pmix_status_t rc = tool_lock("PMIx_tool_disconnect");
    if (rc != PMIX_SUCCESS)
        return rc;
    uint32_t id = server ? spx_client_server_by_proc(server) : spx_client_primary_id();
    if (id == 0)
        rc = PMIX_ERR_NOT_FOUND; /* not a server of this tool */
    else {
        spx_client_iof_stop(true, id); /* a stdin forwarding to that server ends */
        (void)spx_client_server_close(id);
        spx_client_cache_reset(); /* that server's answers */
    }
    pthread_mutex_unlock(&spx_client.init_lock);
    return rc;
}

SPX_EXPORT bool PMIx_tool_is_connected(void)
{
    return spx_client_initialized() && spx_client.tool && spx_client_primary_id() != 0;
}
