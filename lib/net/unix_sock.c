/* unix_sock.c - unix-domain rendezvous for clients and tools.
 *
 * The server makes a private directory (0700, owned by the job's user), binds
 * a listening socket in it and accepts on its event loop. Each accepted peer
 * is identified with SO_PEERCRED; only the allowed uid and root get through to
 * on_accept (which then owns the fd); anyone else is logged and closed.
 * Paths longer than sun_path fail with ENAMETOOLONG instead of being cut.
 */
#include "config.h"
#include "net/unix_sock.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct spx_listener {
    struct event *ev;
    int fd;
    char *path;
    uid_t allowed_uid;
    spx_accept_f on_accept;
    void *arg;
};

int spx_private_dir_create(const char *parent, const char *tag, uid_t owner_uid, gid_t owner_gid,
                           char **out_path)
{
    *out_path = NULL;
    char *tmpl = NULL;
    if (asprintf(&tmpl, "%s/spmix.%s.XXXXXX", parent, tag) < 0) {
        errno = ENOMEM;
        return -1;
    }
    if (!mkdtemp(tmpl))
        goto fail;
    if (chmod(tmpl, 0700) < 0)
        goto fail_rm;
    if (geteuid() == 0 && (owner_uid != 0 || owner_gid != 0) && chown(tmpl, owner_uid, owner_gid) < 0)
        goto fail_rm;
    *out_path = tmpl;
    return 0;
fail_rm: {
    int err = errno;
    rmdir(tmpl);
    errno = err;
}
fail: {
    int err = errno;
    free(tmpl);
    errno = err;
    return -1;
}
}

void spx_private_dir_remove(const char *path)
{
    if (!path)
        return;
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            unlinkat(dirfd(d), e->d_name, 0);
        }
        closedir(d);
    }
    rmdir(path);
}

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (!path || !*path) {
        errno = EINVAL;
        return -1;
    }
    if (strlen(path) >= sizeof(sa->sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa->sun_path, path);
    return 0;
}

int spx_peercred(int fd, uid_t *uid, gid_t *gid, pid_t *pid)
{
    struct ucred cr;
    socklen_t len = sizeof(cr);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
        return -1;
    if (uid)
        *uid = cr.uid;
    if (gid)
        *gid = cr.gid;
    if (pid)
        *pid = cr.pid;
    return 0;
}

static void listener_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
    spx_listener_t *l = arg;
    (void)what;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                spx_warn("accept on %s failed: %s", l->path, strerror(errno));
            return;
        }
        uid_t uid;
        gid_t gid;
        pid_t pid;
        if (spx_peercred(fd, &uid, &gid, &pid) < 0) {
            spx_warn("rejected connection on %s: no peer credentials (%s)", l->path,
                     strerror(errno));
            close(fd);
            continue;
        }
        if (uid != l->allowed_uid && uid != 0) {
            spx_warn("rejected connection on %s from uid %u pid %d: only uid %u may connect",
                     l->path, (unsigned)uid, (int)pid, (unsigned)l->allowed_uid);
            close(fd);
            continue;
        }
        l->on_accept(fd, uid, gid, pid, l->arg);
    }
}

spx_listener_t *spx_listener_create(struct event_base *base, const char *path, uid_t allowed_uid,
                                    spx_accept_f on_accept, void *arg)
{
    struct sockaddr_un sa;
    if (fill_addr(&sa, path) < 0)
        return NULL;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            errno = EEXIST;
            return NULL;
        }
        unlink(path); /* a stale socket from an earlier run */
    }
    spx_listener_t *l = calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    l->path = strdup(path);
    l->allowed_uid = allowed_uid;
    l->on_accept = on_accept;
    l->arg = arg;
    if (l->fd < 0 || !l->path)
        goto fail;
    if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        goto fail;
    /* The directory keeps strangers out; the socket must be writable by the
     * allowed user, who may differ from us when we run as root. */
    if (chmod(path, 0700) < 0)
        goto fail_unlink;
    if (geteuid() == 0 && allowed_uid != 0 && chown(path, allowed_uid, (gid_t)-1) < 0)
        goto fail_unlink;
    if (listen(l->fd, SOMAXCONN) < 0)
        goto fail_unlink;
    l->ev = event_new(base, l->fd, EV_READ | EV_PERSIST, listener_accept_cb, l);
    if (!l->ev || event_add(l->ev, NULL) < 0)
        goto fail_unlink;
    return l;
fail_unlink:
    unlink(path);
fail: {
    int err = errno;
    if (l->ev)
        event_free(l->ev);
    if (l->fd >= 0)
        close(l->fd);
    free(l->path);
    free(l);
    errno = err;
    return NULL;
}
}

void spx_listener_destroy(spx_listener_t *l)
{
    if (!l)
        return;
    event_free(l->ev);
    close(l->fd);
    unlink(l->path);
    free(l->path);
    free(l);
}

int spx_unix_connect(const char *path)
{
    struct sockaddr_un sa;
    if (fill_addr(&sa, path) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        if (errno == EINTR)
            continue;
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}
