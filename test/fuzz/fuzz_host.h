/* fuzz_host.h - what the fuzz targets that run a real PMIx server
 * (fuzz_server.c, fuzz_pmi.c) share: the one server of the process, started
 * at the first input in a private temporary directory and finalized at exit,
 * and the info loaders and registration callback of their namespaces.
 * Header-only: each target is a program of its own. */
#ifndef SPX_FUZZ_HOST_H
#define SPX_FUZZ_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "util/log.h"

static char fz_dir[64]; /* the server's temporary directory */

static inline void fz_server_stop(void)
{
    PMIx_server_finalize();
    rmdir(fz_dir);
}

/* Starts the server with module (borrowed for the process's life) in a new
 * directory named after the target (tmpfs when there is one: each namespace
 * makes a shared-memory fence file); with_tools adds
 * PMIX_SERVER_TOOL_SUPPORT. Aborts on failure. Quiet unless SPMIX_DEBUG. */
static inline void fz_server_start(const char *target, pmix_server_module_t *module,
                                   bool with_tools)
{
    pmix_info_t info[2];

    if (!getenv("SPMIX_DEBUG"))
        spx_log_set_level(SPX_LOG_ERROR);
    snprintf(fz_dir, sizeof(fz_dir), "/dev/shm/spmix-%s.XXXXXX", target);
    if (!mkdtemp(fz_dir)) {
        snprintf(fz_dir, sizeof(fz_dir), "/tmp/spmix-%s.XXXXXX", target);
        if (!mkdtemp(fz_dir))
            abort();
    }
    memset(info, 0, sizeof(info));
    snprintf(info[0].key, sizeof(info[0].key), "%s", PMIX_SERVER_TMPDIR);
    info[0].value.type = PMIX_STRING;
    info[0].value.data.string = fz_dir;
    snprintf(info[1].key, sizeof(info[1].key), "%s", PMIX_SERVER_TOOL_SUPPORT);
    info[1].value.type = PMIX_BOOL;
    info[1].value.data.flag = true;
    if (PMIx_server_init(module, info, with_tools ? 2 : 1) != PMIX_SUCCESS)
        abort();
    atexit(fz_server_stop);
}

/* i (zeroed by the caller) gets key and the string s (borrowed). */
static inline void fz_info_str(pmix_info_t *i, const char *key, char *s)
{
    snprintf(i->key, sizeof(i->key), "%s", key);
    i->value.type = PMIX_STRING;
    i->value.data.string = s;
}

static inline void fz_info_u32(pmix_info_t *i, const char *key, uint32_t u)
{
    snprintf(i->key, sizeof(i->key), "%s", key);
    i->value.type = PMIX_UINT32;
    i->value.data.uint32 = u;
}

/* The registration callbacks: a failure is the harness's bug. */
static inline void fz_registered(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    if (status != PMIX_SUCCESS)
        abort();
}

#endif
