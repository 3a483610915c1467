/* log.h - the one logging facility of spmix.
 *
 * Lines go to stderr as "spmix[<role> <pid>]: <level>: <message>".
 * Verbosity comes from the environment variable SPMIX_DEBUG (0..3, default 1:
 * errors and warnings) read once on first use, or from spx_log_set_level().
 * The role ("client", "server", "tool", "run") is set once by the entry point.
 * Thread-safe: one write(2) per line. */
#ifndef SPX_UTIL_LOG_H
#define SPX_UTIL_LOG_H

#include "util/compiler.h"

enum spx_log_level {
    SPX_LOG_ERROR = 0,
    SPX_LOG_WARN = 1,
    SPX_LOG_INFO = 2,
    SPX_LOG_DEBUG = 3,
};

const char *spx_log_level_str(enum spx_log_level level);
void spx_log_set_level(int level);
int spx_log_get_level(void);
/* role: borrowed, must be a string literal or live forever. */
void spx_log_set_role(const char *role);
void spx_log(enum spx_log_level level, const char *fmt, ...) SPX_PRINTF(2, 3);

#define spx_error(...) spx_log(SPX_LOG_ERROR, __VA_ARGS__)
#define spx_warn(...) spx_log(SPX_LOG_WARN, __VA_ARGS__)
#define spx_info(...) \
    do { if (spx_log_get_level() >= SPX_LOG_INFO) spx_log(SPX_LOG_INFO, __VA_ARGS__); } while (0)
#define spx_debug(...) \
    do { if (spx_log_get_level() >= SPX_LOG_DEBUG) spx_log(SPX_LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
