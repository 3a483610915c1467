/*
 * stepd_handover.c - descriptors from a task child to a pump thread of
 * slurmstepd over a unix socket (see stepd_handover.h).
 */
#include "config.h"
#include "plugin/stepd_handover.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int spx_plg_handover_listen(const char *path, uint32_t uid)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd, saved;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chown(path, uid, (gid_t)-1) < 0 ||
        chmod(path, 0600) < 0 || listen(fd, 64) < 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int spx_plg_handover_thread(pthread_t *tid, void *(*fn)(void *))
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(tid, NULL, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

const char *spx_plg_handover_recv(int c, uint32_t uid, void *msg, size_t len,
                                  int fds[SPX_PLG_HANDOVER_MAX_FDS], int *nfds)
{
    struct ucred cred;
    socklen_t cl = sizeof(cred);
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(SPX_PLG_HANDOVER_MAX_FDS * sizeof(int))];
    } ctl;
    struct iovec iov = { .iov_base = msg, .iov_len = len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof(ctl.buf) };
    struct pollfd pf = { .fd = c, .events = POLLIN };
    ssize_t n = -1;

    *nfds = 0;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cl != sizeof(cred))
        return "no peer credentials";
    if (cred.uid != uid && cred.uid != 0)
        return "a process of another user";
    if (poll(&pf, 1, SPX_PLG_HANDOVER_MS) == 1)
        n = recvmsg(c, &m, MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *cm = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
            if (*nfds < SPX_PLG_HANDOVER_MAX_FDS)
                fds[(*nfds)++] = fd;
            else
                close(fd);
        }
    }
    if (n != (ssize_t)len || (m.msg_flags & MSG_CTRUNC))
        return "malformed request";
    return NULL;
}

void spx_plg_handover_reply(int c, char answer)
{
    ssize_t rc;

    do {
        rc = send(c, &answer, 1, MSG_NOSIGNAL);
    } while (rc < 0 && errno == EINTR);
}

const char *spx_plg_handover_send(const char *path, const void *msg, size_t len,
                                  const int *fds, int nfds)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(SPX_PLG_HANDOVER_MAX_FDS * sizeof(int))];
    } ctl;
    struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    const char *why = NULL;
    struct pollfd pf;
    char ack = 0;
    int s;

    if (nfds < 0 || nfds > SPX_PLG_HANDOVER_MAX_FDS || strlen(path) >= sizeof(sa.sun_path))
        return "bad request";
    memcpy(sa.sun_path, path, strlen(path) + 1);
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        why = "cannot connect to the pump";
        goto out;
    }
    if (nfds > 0) {
        struct cmsghdr *cm;

        memset(&ctl, 0, sizeof(ctl));
        m.msg_control = ctl.buf;
        m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    pf = (struct pollfd){ .fd = s, .events = POLLIN };
    if (sendmsg(s, &m, MSG_NOSIGNAL) != (ssize_t)len)
        why = "cannot send to the pump";
    else if (poll(&pf, 1, SPX_PLG_HANDOVER_MS) != 1 || read(s, &ack, 1) != 1)
        why = "no answer from the pump";
    else if (ack != 'K')
        why = "the pump refused";
out:
    if (s >= 0)
        close(s);
    return why;
}
