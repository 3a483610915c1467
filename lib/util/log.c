/* log.c - formats one line per call and writes it to stderr in one write(2). */
#include "config.h"
#include "util/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_level = -1;
static const char *log_role = "lib";

const char *spx_log_level_str(enum spx_log_level level)
{
    switch (level) {
    case SPX_LOG_ERROR: return "error";
    case SPX_LOG_WARN: return "warning";
    case SPX_LOG_INFO: return "info";
    case SPX_LOG_DEBUG: return "debug";
    }
    return "unknown";
}

void spx_log_set_level(int level) { log_level = level; }

int spx_log_get_level(void)
{
    if (log_level < 0) {
        const char *env = getenv("SPMIX_DEBUG");
        int level = env ? atoi(env) : SPX_LOG_WARN;
        __atomic_store_n(&log_level, level < 0 ? 0 : level, __ATOMIC_RELAXED);
    }
    return log_level;
}

void spx_log_set_role(const char *role) { log_role = role; }

void spx_log(enum spx_log_level level, const char *fmt, ...)
{
    if ((int)level > spx_log_get_level())
        return;
    int saved_errno = errno;
    char line[1024];
    int n = snprintf(line, sizeof(line), "spmix[%s %d]: %s: ", log_role, (int)getpid(),
                     spx_log_level_str(level));
    if (n < 0)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
    errno = saved_errno;
}
