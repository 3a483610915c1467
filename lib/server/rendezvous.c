/* rendezvous.c - the files that let tools find this server
 * (proto/rendezvous.h): written when the host registers the first namespace
 * (a tool finds a server with a job), when it asked for tool support, and
 * removed at finalize. One is named after the server's own process (a node
 * of a launcher's job names the launcher in it, SPMIX_SERVER_LAUNCHER_PID);
 * a second one after the process the host gave as
 * SPMIX_SERVER_RENDEZVOUS_PID, when that is another.
 *
 * A file is written under a temporary name created with O_EXCL|O_NOFOLLOW
 * (the directory may be world-writable: no following someone's symlink),
 * owned by the job's user, then renamed into place, so a tool never reads
 * half a file. A stale file of an earlier process with the same pid is
 * replaced, and so are the files of the same user whose server process is
 * gone. Written on the progress thread, removed on the host's thread after
 * the progress thread let go of the server.
 */
#include "config.h"
#include "server/core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/msg.h"
#include "proto/rendezvous.h"
#include "util/log.h"

/* Whether process pid has ended: no such process, or a zombie (ended, not
 * yet reaped by whoever adopted it after its parent was killed). */
static bool process_ended(long pid)
{
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && (p[2] == 'Z' || p[2] == 'X');
}

/* Removes the rendezvous files of dir that ctx's user owns and whose
 * process is gone: servers that were killed leave them, and a tool's default
 * search would count them. */
static void remove_stale(struct spx_srv_ctx *ctx, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t pl = strlen(SPX_RDV_PREFIX);
    while (d && (e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, SPX_RDV_PREFIX, pl) != 0)
            continue;
        long pid = strtol(e->d_name + pl, &end, 10);
        struct stat st;
        if (pid <= 0 || *end || !process_ended(pid) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_uid != ctx->uid)
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            spx_debug("server: removed %s/%s (its server is gone)", dir, e->d_name);
    }
    if (d)
        closedir(d);
}

/* Writes dir/spmix.tool.<pid> naming this server; with launcher > 0 a third
 * line "launcher <launcher>". The file's path (owned by the caller), or NULL
 * with errno. */
static char *write_one(struct spx_srv_ctx *ctx, const char *dir, long pid, long launcher)
{
    char *path = NULL, *tmp = NULL;
    if (asprintf(&path, "%s/%s%ld", dir, SPX_RDV_PREFIX, pid) < 0)
        return NULL;
    if (asprintf(&tmp, "%s.new", path) < 0) {
        free(path);
        return NULL;
    }
    unlink(tmp); /* a leftover of a process that had this pid */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0;
    if (ok && ((geteuid() == 0 && fchown(fd, ctx->uid, ctx->gid) != 0) ||
               dprintf(fd, "%s%s\n%s\n", SPX_URI_PREFIX, ctx->sock_path, ctx->me.nspace) < 0 ||
               (launcher > 0 && dprintf(fd, "%s%ld\n", SPX_RDV_LAUNCHER, launcher) < 0)))
        ok = 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (ok && rename(tmp, path) != 0)
        ok = 0;
    int e = errno;
    if (!ok) {
        if (fd >= 0)
            unlink(tmp);
        free(path);
        path = NULL;
    }
    free(tmp);
    errno = e;
    return path;
}

int spx_srv_rendezvous_write(struct spx_srv_ctx *ctx, const char *dir)
{
    remove_stale(ctx, dir);
    /* the server's own process: a node of a launcher's job says whose */
    ctx->tool_file = write_one(ctx, dir, ctx->tool_pid, ctx->launcher_pid);
    if (!ctx->tool_file) {
        spx_error("server: cannot write the tools' rendezvous file in %s: %s", dir,
                  strerror(errno));
        return -1;
    }
    spx_debug("server: tools find it through %s", ctx->tool_file);
    if (ctx->alias_pid > 0 && ctx->alias_pid != ctx->tool_pid) {
        /* the pid the host's users know (SPMIX_SERVER_RENDEZVOUS_PID) */
        ctx->alias_file = write_one(ctx, dir, ctx->alias_pid, 0);
        if (!ctx->alias_file) {
            spx_error("server: cannot write the tools' rendezvous file of process %ld in %s: %s",
                      ctx->alias_pid, dir, strerror(errno));
            return -1;
        }
        spx_debug("server: and through %s", ctx->alias_file);
    }
    return 0;
}

void spx_srv_rendezvous_remove(struct spx_srv_ctx *ctx)
{
    char **files[] = {&ctx->tool_file, &ctx->alias_file};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (!*files[i])
            continue;
        unlink(*files[i]);
        free(*files[i]);
        *files[i] = NULL;
    }
}
