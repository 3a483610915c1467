/* rendezvous.h - how a tool finds an spmix server: the rendezvous file a
 * server that accepts tools (PMIX_SERVER_TOOL_SUPPORT) writes, read by
 * PMIx_tool_init (client/client_tool.c).
 *
 * Files: <system tmpdir>/spmix.tool.<pid of the server's process>, and
 * another one named after the pid its host gave as
 * SPMIX_SERVER_RENDEZVOUS_PID (the launcher's, when the servers run in its
 * children), mode 0600, owned by the job's user; removed by
 * PMIx_server_finalize. The system tmpdir
 * is PMIX_SYSTEM_TMPDIR given to the server (else PMIX_SERVER_TMPDIR, else
 * $TMPDIR, else /tmp); a tool looks in its PMIX_SYSTEM_TMPDIR/
 * PMIX_SERVER_TMPDIR attribute, else the same environment variables, else
 * $TMPDIR, else /tmp. Content, two or three lines:
 *     spmix:<path of the server's socket>
 *     <the server's namespace>
 *     launcher <pid>        (only when the server is one node of the job of
 *                           launcher process <pid>, SPMIX_SERVER_LAUNCHER_PID)
 * A tool that names no server passes over the files with a launcher line
 * (the launcher's own file leads to the job) and counts files naming the
 * same socket once.
 * Every line is at most SPX_RDV_MAX_LINE bytes; a tool rejects a file that is
 * longer, not a regular file, or not owned by its own user or root.
 */
#ifndef SPX_PROTO_RENDEZVOUS_H
#define SPX_PROTO_RENDEZVOUS_H

#define SPX_RDV_PREFIX "spmix.tool."
#define SPX_RDV_MAX_LINE 4096
#define SPX_RDV_LINES 3
#define SPX_RDV_LAUNCHER "launcher "

#endif
