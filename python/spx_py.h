/* spx_py.h - shared declarations of the `pmix` Python module (the python directory).
 *
 * The module is a C extension on libpmix.so.2. Python objects cross into the
 * library as the dict forms of the older Cython binding: a proc is
 * {'nspace': str, 'rank': int}, a value {'value': v, 'val_type': T}, an info
 * {'key': k, 'value': v, 'val_type': T[, 'flags': f]}, a data array
 * {'type': T, 'array': [...]}. Conversions (py_convert.c) build library
 * objects that the caller frees with the library's own PMIx_*_free /
 * PMIx_Value_destruct. Callbacks from the library (py_callback.c) run on the
 * library's progress thread and take the GIL there; every blocking call gives
 * the GIL up while it waits (SPX_PY_NOGIL).
 */
#ifndef SPX_PY_H
#define SPX_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

/* Runs STMT (a library call) with the GIL released. */
/* A method's status result: the status as an int, or NULL when a Python
 * exception is set (raised by an argument conversion). New reference. */
static inline PyObject *spx_py_status(pmix_status_t rc)
{
    return PyErr_Occurred() ? NULL : PyLong_FromLong(rc);
}

#define SPX_PY_NOGIL(STMT) \
    do {                   \
        Py_BEGIN_ALLOW_THREADS STMT; Py_END_ALLOW_THREADS \
    } while (0)

/* The Python object of a client, server or tool: the process's own name. */
typedef struct {
    PyObject_HEAD
    pmix_proc_t myproc;
} spx_py_client_t;

/* ---- py_convert.c ----
 * Loaders return PMIX_SUCCESS or a PMIx error (a value of the wrong type or
 * out of range, as the older binding did); a missing dict key or a non-dict
 * raises a Python exception too, which the method passes on (check
 * PyErr_Occurred()). On error nothing is left allocated. */
pmix_status_t spx_py_value_load(pmix_value_t *v, PyObject *value, PyObject *type);
PyObject *spx_py_value_unload(const pmix_value_t *v); /* new {'value','val_type'} */
/* A list of info dicts (None or [] give NULL, 0); *out: caller frees with PMIx_Info_free. */
pmix_status_t spx_py_info_load(PyObject *list, pmix_info_t **out, size_t *n);
PyObject *spx_py_info_unload(const pmix_info_t *info, size_t n); /* new list */
pmix_status_t spx_py_proc_load(pmix_proc_t *p, PyObject *dict);
PyObject *spx_py_proc_unload(const pmix_proc_t *p); /* new dict */
/* A list of proc dicts; None or [] give one proc, dflt's namespace at
 * PMIX_RANK_WILDCARD (or NULL, 0 when dflt is NULL). *out: PMIx_Proc_free. */
pmix_status_t spx_py_procs_load(PyObject *list, const pmix_proc_t *dflt, pmix_proc_t **out,
                                size_t *n);
PyObject *spx_py_procs_unload(const pmix_proc_t *p, size_t n);
/* A str or bytes into a key (the older binding took b'...' constants and str). */
int spx_py_key_load(char *key, size_t cap, PyObject *o);
/* A list of str into a NULL-terminated argv; caller frees with PMIx_Argv_free. */
pmix_status_t spx_py_argv_load(PyObject *list, char ***out);
/* Byte data {'bytes': str|bytes[, 'size': n]} or plain bytes/str into b. */
pmix_status_t spx_py_bytes_load(PyObject *data, pmix_byte_object_t *b);
PyObject *spx_py_str(const char *s); /* new str ('' for NULL) */
/* Looked-up data as [{'key','proc','value','val_type'}] (new list). */
PyObject *spx_py_pdata_unload(const pmix_pdata_t *p, size_t n);

/* Keys of lookup's data ([{'key': k}] or [k]) into pdata (PMIx_Pdata_free). */
pmix_status_t spx_py_pdata_keys(PyObject *data, pmix_pdata_t **out, size_t *n);
/* [{'keys': [...], 'qualifiers': [info]}] into queries (PMIx_Query_free). */
pmix_status_t spx_py_queries_load(PyObject *pyq, pmix_query_t **out, size_t *n);

/* ---- py_callback.c ---- */
/* Set when the interpreter is finalizing: callbacks then do not enter Python. */
extern volatile int spx_py_dying;
/* Which kind of library callback a context serves. */
enum spx_py_cb_kind { SPX_PY_CB_OP, SPX_PY_CB_INFO, SPX_PY_CB_VALUE, SPX_PY_CB_LOOKUP };
/* One non-blocking request: the Python callable and cbdata (owned
 * references) and the converted inputs, kept until the callback has run. */
typedef struct spx_py_req {
    PyObject *fn, *cbdata;
    pmix_info_t *info;
    size_t ninfo;
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_pdata_t *pdata;
    size_t npdata;
    char **argv;
    pmix_byte_object_t bo;
    pmix_query_t *queries;
    size_t nqueries;
} spx_py_req_t;
/* A new request holding fn and cbdata (new references); NULL + MemoryError. */
spx_py_req_t *spx_py_req_create(PyObject *fn, PyObject *cbdata);
/* Frees the inputs and drops the references; the GIL must be held. */
void spx_py_req_destroy(spx_py_req_t *r);
/* The library callbacks for each kind; cbdata is an spx_py_req_t, freed by them. */
void spx_py_op_cb(pmix_status_t status, void *cbdata);
void spx_py_info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata);
void spx_py_value_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata);
void spx_py_lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata);
/* Python callables for events and forwarded output, kept by registration id. */
int spx_py_handler_keep(int iof, size_t id, PyObject *fn);
void spx_py_handler_drop(int iof, size_t id);
void spx_py_event_cb(size_t evhdlr_registration_id, pmix_status_t status,
                     const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                     pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata);
void spx_py_iof_cb(size_t iofhdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                   pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo);
int spx_py_callback_init(PyObject *module);

/* ---- py_server.c: argument checks of PMIxServer's methods ----
 * Each returns 0, or -1 with a TypeError (wrong type) or ValueError (out of
 * range, keys missing) naming the method m and the argument what. */
int spx_py_arg_text(const char *m, const char *what, PyObject *o, char *out, size_t cap);
int spx_py_arg_proc(const char *m, const char *what, PyObject *o, pmix_proc_t *p);
/* A list of info dicts (None: none); *info: caller frees with PMIx_Info_free. */
int spx_py_arg_info(const char *m, const char *what, PyObject *o, pmix_info_t **info, size_t *n);
int spx_py_arg_list(const char *m, const char *what, PyObject *o); /* list, tuple or None */

/* ---- py_upcalls.c: PMIxServer's server module ---- */
/* Fills mod from init's map {name: callable} (None: no functions) and makes
 * map the functions the upcalls run. Returns the functions they ran before
 * (new reference: give it to _restore if PMIx_server_init fails, else drop
 * it), or NULL with TypeError / ValueError (a RuntimeWarning for functions
 * the library never calls). */
PyObject *spx_py_server_module_load(PyObject *map, pmix_server_module_t *mod);
void spx_py_server_module_restore(PyObject *old);
int spx_py_upcalls_init(PyObject *module);
/* Whether this thread is the library's progress thread (it ran a callback). */
int spx_py_on_progress(void);
void spx_py_mark_progress(void);

/* ---- py_client.c, py_nb.c, py_server.c, py_tool.c: the classes ---- */
extern PyTypeObject spx_py_client_type, spx_py_server_type, spx_py_tool_type;
extern PyMethodDef spx_py_client_methods[], spx_py_nb_methods[], spx_py_server_misc_methods[];
/* The module's constants (pmix_constants.inc, generated from the headers). */
int spx_py_constants_add(PyObject *module);

#endif /* SPX_PY_H */
