/* cleanup.c - files and directories a client asked the server to remove when
 * its job ends (PMIx_Job_control with PMIX_REGISTER_CLEANUP /
 * PMIX_REGISTER_CLEANUP_DIR and the PMIX_CLEANUP_* modifiers).
 *
 * Registrations are kept on the client's namespace and carried out when the
 * host deregisters that namespace. The server may run as root while the
 * client does not, so nothing is followed through symlinks and only entries
 * owned by the registering client's uid are removed.
 */
#include "config.h"
#include "server/core.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "types/types.h"
#include "util/log.h"

static const char *const cleanup_keys[] = {
    PMIX_REGISTER_CLEANUP, PMIX_REGISTER_CLEANUP_DIR, PMIX_CLEANUP_RECURSIVE,
    PMIX_CLEANUP_EMPTY,    PMIX_CLEANUP_IGNORE,       PMIX_CLEANUP_LEAVE_TOPDIR,
};

static bool is_cleanup_key(const char *key)
{
    for (size_t i = 0; i < sizeof(cleanup_keys) / sizeof(cleanup_keys[0]); i++)
        if (spx_key_eq(key, cleanup_keys[i]))
            return true;
    return false;
}

/* Splits a comma list into a NULL-terminated argv (caller frees). NULL on ENOMEM. */
static char **split_commas(const char *s)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    char **v = calloc(n + 1, sizeof(*v));
    char *copy = strdup(s);
    size_t k = 0;
    if (!v || !copy) {
        free(v);
        free(copy);
        return NULL;
    }
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (!(v[k++] = strdup(tok))) {
            spx_argv_free(v);
            free(copy);
            return NULL;
        }
    free(copy);
    return v;
}

static int add_paths(struct spx_srv_client *c, const char *list, bool is_dir,
                     const pmix_info_t *info, size_t ninfo)
{
    char **paths = split_commas(list);
    if (!paths)
        return -1;
    const char *ign = spx_info_string(info, ninfo, PMIX_CLEANUP_IGNORE);
    for (size_t i = 0; paths[i]; i++) {
        if (paths[i][0] != '/') {
            spx_warn("cleanup: relative path \"%s\" ignored", paths[i]);
            continue;
        }
        struct spx_srv_cleanup *e = calloc(1, sizeof(*e));
        if (!e || !(e->path = strdup(paths[i])) || (is_dir && ign && !(e->ignore = split_commas(ign)))) {
            if (e)
                free(e->path);
            free(e);
            spx_argv_free(paths);
            return -1;
        }
        e->is_dir = is_dir;
        e->recursive = spx_info_flag(info, ninfo, PMIX_CLEANUP_RECURSIVE);
        e->leave_top = spx_info_flag(info, ninfo, PMIX_CLEANUP_LEAVE_TOPDIR);
        e->only_empty = spx_info_flag(info, ninfo, PMIX_CLEANUP_EMPTY);
        e->owner = c->uid;
        SLIST_INSERT_HEAD(&c->ns->cleanups, e, link);
    }
    spx_argv_free(paths);
    return 0;
}

pmix_status_t spx_srv_cleanup_register(struct spx_srv_client *c, const pmix_info_t *info,
                                       size_t ninfo, bool only_if_all)
{
    const char *files = spx_info_string(info, ninfo, PMIX_REGISTER_CLEANUP);
    const char *dirs = spx_info_string(info, ninfo, PMIX_REGISTER_CLEANUP_DIR);
    if (!files && !dirs)
        return PMIX_ERR_NOT_SUPPORTED;
    for (size_t i = 0; only_if_all && i < ninfo; i++)
        if (!is_cleanup_key(info[i].key))
            return PMIX_ERR_NOT_SUPPORTED;
    if ((files && add_paths(c, files, false, info, ninfo) != 0) ||
        (dirs && add_paths(c, dirs, true, info, ninfo) != 0))
        return PMIX_ERR_NOMEM;
    return PMIX_SUCCESS;
}

/* nftw has no user argument: the entry being cleaned (progress thread only). */
static const struct spx_srv_cleanup *walk_entry;

static bool ignored(const struct spx_srv_cleanup *e, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; e->ignore && e->ignore[i]; i++)
        if (strcmp(e->ignore[i], base) == 0)
            return true;
    return false;
}

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    const struct spx_srv_cleanup *e = walk_entry;
    if (st->st_uid != e->owner || ignored(e, path))
        return 0;
    if (ftw->level == 0)
        return 0; /* the top directory is handled by the caller */
    if (!e->recursive && ftw->level > 1)
        return 0;
    if (flag == FTW_DP) {
        if (e->recursive)
            rmdir(path); /* fails harmlessly when not empty */
    } else if (flag == FTW_F || flag == FTW_SL || flag == FTW_SLN) {
        if (!e->only_empty)
            unlink(path);
    }
    return 0;
}

static void cleanup_one(const struct spx_srv_cleanup *e)
{
    struct stat st;
    if (lstat(e->path, &st) != 0)
        return;
    if (st.st_uid != e->owner) {
        spx_warn("cleanup: %s is not owned by uid %ld: left alone", e->path, (long)e->owner);
        return;
    }
    if (!e->is_dir) {
        if (!S_ISDIR(st.st_mode))
            unlink(e->path);
        return;
    }
    if (!S_ISDIR(st.st_mode))
        return;
    walk_entry = e;
    nftw(e->path, walk_one, 16, FTW_DEPTH | FTW_PHYS);
    walk_entry = NULL;
    if (!e->leave_top)
        rmdir(e->path);
}

void spx_srv_cleanup_run(struct spx_srv_ns *ns)
{
    struct spx_srv_cleanup *e;
    SLIST_FOREACH(e, &ns->cleanups, link) /* newest registration first */
        cleanup_one(e);
}

void spx_srv_cleanup_free(struct spx_srv_ns *ns)
{
    struct spx_srv_cleanup *e;
    while ((e = SLIST_FIRST(&ns->cleanups))) {
        SLIST_REMOVE_HEAD(&ns->cleanups, link);
        free(e->path);
        spx_argv_free(e->ignore);
        free(e);
    }
}
