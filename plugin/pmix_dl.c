/*
 * pmix_dl.c - loads libpmix.so.2 (see pmix_dl.h for why) and forwards the
 * PMIx_* calls the plugin makes to it.
 *
 * Data flow: spx_plg_pmix_open() dlopens the library and fills `api` with one
 * dlsym per name; each PMIx_* defined below calls through `api`. Before the
 * open (or after the close) they return PMIX_ERR_INIT. The forwarders are
 * hidden from other objects by the plugin's export list.
 */
#include "config.h"
#include "plugin/pmix_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

static struct {
    void *handle;
    char path[4096];
    pmix_status_t (*server_init)(pmix_server_module_t *, pmix_info_t[], size_t);
    pmix_status_t (*server_finalize)(void);
    pmix_status_t (*register_nspace)(const pmix_nspace_t, int, pmix_info_t[], size_t,
                                     pmix_op_cbfunc_t, void *);
    void (*deregister_nspace)(const pmix_nspace_t, pmix_op_cbfunc_t, void *);
    pmix_status_t (*register_client)(const pmix_proc_t *, uid_t, gid_t, void *,
                                     pmix_op_cbfunc_t, void *);
    pmix_status_t (*setup_fork)(const pmix_proc_t *, char ***);
    pmix_status_t (*generate_regex)(const char *, char **);
    pmix_status_t (*generate_ppn)(const char *, char **);
    pmix_status_t (*info_load)(pmix_info_t *, const char *, const void *, pmix_data_type_t);
    void (*value_destruct)(pmix_value_t *);
    const char *(*error_string)(pmix_status_t);
    pmix_status_t (*iof_deliver)(const pmix_proc_t *, pmix_iof_channel_t,
                                 const pmix_byte_object_t *, const pmix_info_t[], size_t,
                                 pmix_op_cbfunc_t, void *);
} api;

#define SPX_PLG_SYM(field, name) { (void **)&api.field, name }

int spx_plg_pmix_open(const char *libdir, char *err, size_t errlen)
{
    const struct { void **slot; const char *name; } syms[] = {
        SPX_PLG_SYM(server_init, "PMIx_server_init"),
        SPX_PLG_SYM(server_finalize, "PMIx_server_finalize"),
        SPX_PLG_SYM(register_nspace, "PMIx_server_register_nspace"),
        SPX_PLG_SYM(deregister_nspace, "PMIx_server_deregister_nspace"),
        SPX_PLG_SYM(register_client, "PMIx_server_register_client"),
        SPX_PLG_SYM(setup_fork, "PMIx_server_setup_fork"),
        SPX_PLG_SYM(generate_regex, "PMIx_generate_regex"),
        SPX_PLG_SYM(generate_ppn, "PMIx_generate_ppn"),
        SPX_PLG_SYM(info_load, "PMIx_Info_load"),
        SPX_PLG_SYM(value_destruct, "PMIx_Value_destruct"),
        SPX_PLG_SYM(error_string, "PMIx_Error_string"),
        SPX_PLG_SYM(iof_deliver, "PMIx_server_IOF_deliver"),
    };

    if (api.handle != NULL)
        return 0;
    if (snprintf(api.path, sizeof(api.path), "%s/libpmix.so.2", libdir) >= (int)sizeof(api.path)) {
        snprintf(err, errlen, "library directory name too long");
        return -1;
    }
    api.handle = dlopen(api.path, RTLD_NOW | RTLD_LOCAL);
    if (api.handle == NULL) {
        snprintf(err, errlen, "dlopen(%s): %s", api.path, dlerror());
        return -1;
    }
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        *syms[i].slot = dlsym(api.handle, syms[i].name);
        if (*syms[i].slot == NULL) {
            snprintf(err, errlen, "%s has no %s: is it spmix's libpmix?", api.path,
                     syms[i].name);
            spx_plg_pmix_close();
            return -1;
        }
    }
    return 0;
}

void spx_plg_pmix_close(void)
{
    void *h = api.handle;

    memset(&api, 0, sizeof(api));
    if (h != NULL)
        dlclose(h);
}

const char *spx_plg_pmix_path(void)
{
    return api.handle ? api.path : NULL;
}

/* ---- forwarders ---- */

pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[], size_t ninfo)
{
    return api.server_init ? api.server_init(module, info, ninfo) : PMIX_ERR_INIT;
}

pmix_status_t PMIx_server_finalize(void)
{
    return api.server_finalize ? api.server_finalize() : PMIX_ERR_INIT;
}

pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                          pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (api.register_nspace == NULL)
        return PMIX_ERR_INIT;
    return api.register_nspace(nspace, nlocalprocs, info, ninfo, cbfunc, cbdata);
}

void PMIx_server_deregister_nspace(const pmix_nspace_t nspace, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    if (api.deregister_nspace != NULL)
        api.deregister_nspace(nspace, cbfunc, cbdata);
    else if (cbfunc != NULL)
        cbfunc(PMIX_ERR_INIT, cbdata);
}

pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc, uid_t uid, gid_t gid,
                                          void *server_object, pmix_op_cbfunc_t cbfunc,
                                          void *cbdata)
{
    if (api.register_client == NULL)
        return PMIX_ERR_INIT;
    return api.register_client(proc, uid, gid, server_object, cbfunc, cbdata);
}

pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env)
{
    return api.setup_fork ? api.setup_fork(proc, env) : PMIX_ERR_INIT;
}

pmix_status_t PMIx_generate_regex(const char *input, char **regex)
{
    return api.generate_regex ? api.generate_regex(input, regex) : PMIX_ERR_INIT;
}

pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)
{
    return api.generate_ppn ? api.generate_ppn(input, ppn) : PMIX_ERR_INIT;
}

pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
                             pmix_data_type_t type)
{
    return api.info_load ? api.info_load(info, key, data, type) : PMIX_ERR_INIT;
}

void PMIx_Value_destruct(pmix_value_t *val)
{
    if (api.value_destruct != NULL)
        api.value_destruct(val);
}

const char *PMIx_Error_string(pmix_status_t status)
{
    return api.error_string ? api.error_string(status) : "PMIx library not loaded";
}

pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source, pmix_iof_channel_t channel,
                                      const pmix_byte_object_t *bo, const pmix_info_t info[],
                                      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return api.iof_deliver ? api.iof_deliver(source, channel, bo, info, ninfo, cbfunc, cbdata)
                           : PMIX_ERR_INIT;
}
