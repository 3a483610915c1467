/* run_stale.c - removes what killed spmix-run jobs of this user left in the
 * temporary directory (see run_stale.h).
 *
 * A node server makes TMPDIR/spmix-run.<pid>.XXXXXX and removes it at its
 * end; a server killed with SIGKILL cannot. An entry is stale when it is
 * this user's, a real directory (never a symbolic link), and the process
 * <pid> no longer exists, or exists but started after the entry was made
 * (the pid was reused). Its tree is removed without following links
 * (nftw FTW_PHYS, depth first), only entries of this user.
 */
#include "config.h"
#include "run_stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STALE_PREFIX "spmix-run."

static uid_t stale_uid;

/* Seconds since the epoch at which process pid started, or -1; *dead set
 * when it is a zombie (ended, its parent has not reaped it: a SIGKILLed
 * launcher's node servers wait so for whoever adopts them). */
static double proc_start(long pid, bool *dead)
{
    *dead = false;
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command, which may hold spaces */
    unsigned long long start = 0;
    if (p && (p[2] == 'Z' || p[2] == 'X'))
        *dead = true;
    /* field 22 (starttime, clock ticks since boot); p + 2 is field 3 */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                            "%*d %*d %llu", &start) != 1)
        return -1;
    struct timespec now, up;
    clock_gettime(CLOCK_REALTIME, &now);
    clock_gettime(CLOCK_BOOTTIME, &up);
    double boot = (double)now.tv_sec + now.tv_nsec / 1e9 - ((double)up.tv_sec + up.tv_nsec / 1e9);
    return boot + (double)start / (double)sysconf(_SC_CLK_TCK);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (st->st_uid != stale_uid)
        return 0; /* not ours: left, and so is its directory */
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int spx_run_remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    stale_uid = geteuid();
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, STALE_PREFIX, strlen(STALE_PREFIX)) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + strlen(STALE_PREFIX), &end, 10);
        struct stat st;
        if (pid <= 0 || *end != '.' ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != stale_uid)
            continue;
        bool alive = kill((pid_t)pid, 0) == 0 || errno == EPERM, dead = false;
        if (alive) {
            double started = proc_start(pid, &dead);
            /* made before the process that has the pid now began: reused */
            if (!dead && (started < 0 || (double)st.st_mtime + 1.0 >= started))
                continue;
        }
        char path[4096];
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
            continue;
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        if (access(path, F_OK) != 0) {
            removed++;
            fprintf(stderr, "spmix-run: removed %s, left by a job whose process %ld is gone\n",
                    path, pid);
        }
    }
    closedir(d);
    return removed;
}
