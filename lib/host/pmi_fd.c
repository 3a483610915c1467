/* pmi_fd.c - the task keeps its PMI_FD across exec (see pmi_fd.h). */
#include "config.h"
#include "host/pmi_fd.h"

#include <fcntl.h>
#include <string.h>

int spx_host_pmi_fd_keep(char *const *env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], "PMI_FD=", 7) != 0)
            continue;
        const char *s = env[i] + 7;
        long fd = 0;
        if (*s == '\0')
            return -1;
        for (; *s; s++) {
            if (*s < '0' || *s > '9' || fd > 1000000)
                return -1;
            fd = fd * 10 + (*s - '0');
        }
        return fcntl((int)fd, F_SETFD, 0) == 0 ? 0 : -1;
    }
    return 0;
}
