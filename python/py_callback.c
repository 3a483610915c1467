/* py_callback.c - the library's callbacks into Python.
 *
 * Every callback here runs on the library's progress thread. It takes the
 * GIL (PyGILState_Ensure), converts the library's arguments into the dict
 * forms, calls the Python callable, and reports an exception the callable
 * raised with PyErr_WriteUnraisable (the traceback goes to stderr; the
 * library carries on). A blocking PMIx call made from such a callable
 * returns PMIX_ERR_WOULD_BLOCK: the library's guard sees its own thread.
 *
 * Requests (_nb methods): a spx_py_req_t holds the Python callable, its
 * cbdata and the converted inputs until the one callback; the callback frees
 * it. Handlers (events, forwarded output): callables kept in two dicts by the
 * library's registration id, so a handler the script drops stays alive.
 * After the interpreter starts to finalize (atexit), callbacks no longer
 * enter Python: an event is passed on down the chain, results are released.
 */
#include "spx_py.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int spx_py_dying;
static PyObject *ev_handlers, *iof_handlers; /* {id: callable}, module-owned */

spx_py_req_t *spx_py_req_create(PyObject *fn, PyObject *cbdata)
{
    spx_py_req_t *r = calloc(1, sizeof(*r));
    if (!r) {
        PyErr_NoMemory();
        return NULL;
    }
    r->fn = Py_NewRef(fn);
    r->cbdata = Py_NewRef(cbdata ? cbdata : Py_None);
    return r;
}

void spx_py_req_destroy(spx_py_req_t *r)
{
    if (!r)
        return;
    if (r->info)
        PMIx_Info_free(r->info, r->ninfo);
    if (r->procs)
        PMIx_Proc_free(r->procs, r->nprocs);
    if (r->pdata)
        PMIx_Pdata_free(r->pdata, r->npdata);
    if (r->queries)
        PMIx_Query_free(r->queries, r->nqueries);
    PMIx_Argv_free(r->argv);
    free(r->bo.bytes);
    Py_XDECREF(r->fn);
    Py_XDECREF(r->cbdata);
    free(r);
}

/* Calls fn(*args) (args: a new tuple, stolen) and reports an exception. */
static PyObject *call(PyObject *fn, PyObject *args)
{
    PyObject *ret;
    spx_py_mark_progress(); /* callbacks run on the library's progress thread */
    ret = args ? PyObject_CallObject(fn, args) : NULL;
    Py_XDECREF(args);
    if (!ret)
        PyErr_WriteUnraisable(fn);
    return ret;
}

/* Frees r without Python once the interpreter is going away (leaks its references). */
static int gone(spx_py_req_t *r)
{
    if (!spx_py_dying)
        return 0;
    (void)r; /* its Python objects cannot be released without the interpreter */
    return 1;
}

void spx_py_op_cb(pmix_status_t status, void *cbdata)
{
    spx_py_req_t *r = cbdata;
    PyGILState_STATE g;

    if (gone(r))
        return;
    g = PyGILState_Ensure();
    Py_XDECREF(call(r->fn, Py_BuildValue("(iO)", (int)status, r->cbdata)));
    spx_py_req_destroy(r);
    PyGILState_Release(g);
}

void spx_py_info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    spx_py_req_t *r = cbdata;
    PyGILState_STATE g;

    if (!gone(r)) {
        g = PyGILState_Ensure();
        PyObject *res = spx_py_info_unload(info, ninfo);
        if (!res)
            PyErr_WriteUnraisable(r->fn);
        else
            Py_XDECREF(call(r->fn, Py_BuildValue("(iNO)", (int)status, res, r->cbdata)));
        spx_py_req_destroy(r);
        PyGILState_Release(g);
    }
    if (release_fn)
        release_fn(release_cbdata);
}

void spx_py_value_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    spx_py_req_t *r = cbdata;
    PyGILState_STATE g;
    PyObject *val;

    if (gone(r))
        return;
    g = PyGILState_Ensure();
    val = (status == PMIX_SUCCESS && kv) ? spx_py_value_unload(kv) : Py_NewRef(Py_None);
    if (!val)
        PyErr_WriteUnraisable(r->fn);
    else
        Py_XDECREF(call(r->fn, Py_BuildValue("(iNO)", (int)status, val, r->cbdata)));
    spx_py_req_destroy(r);
    PyGILState_Release(g);
}

/* The looked-up data as the older binding's lookup returned it. */
static PyObject *pdata_unload(const pmix_pdata_t *p, size_t n)
{
    PyObject *l = PyList_New(0);
    char key[PMIX_MAX_KEYLEN + 1];
    for (size_t i = 0; l && i < n; i++) {
        PyObject *v = spx_py_value_unload(&p[i].value), *d;
        memcpy(key, p[i].key, PMIX_MAX_KEYLEN);
        key[PMIX_MAX_KEYLEN] = '\0';
        d = v ? Py_BuildValue("{s:N,s:N,s:O,s:O}", "key", spx_py_str(key), "proc",
                              spx_py_proc_unload(&p[i].proc), "value",
                              PyDict_GetItemString(v, "value"), "val_type",
                              PyDict_GetItemString(v, "val_type"))
              : NULL;
        Py_XDECREF(v);
        if (!d || PyList_Append(l, d) != 0) {
            Py_XDECREF(d);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(d);
    }
    return l;
}

PyObject *spx_py_pdata_unload(const pmix_pdata_t *p, size_t n)
{
    return pdata_unload(p, n);
}

void spx_py_lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    spx_py_req_t *r = cbdata;
    PyGILState_STATE g;
    PyObject *l;

    if (gone(r))
        return;
    g = PyGILState_Ensure();
    l = pdata_unload(data, status == PMIX_SUCCESS ? ndata : 0);
    if (!l)
        PyErr_WriteUnraisable(r->fn);
    else
        Py_XDECREF(call(r->fn, Py_BuildValue("(iNO)", (int)status, l, r->cbdata)));
    spx_py_req_destroy(r);
    PyGILState_Release(g);
}

int spx_py_handler_keep(int iof, size_t id, PyObject *fn)
{
    PyObject *k = PyLong_FromSize_t(id);
    int rc = k ? PyDict_SetItem(iof ? iof_handlers : ev_handlers, k, fn) : -1;
    Py_XDECREF(k);
    return rc;
}

void spx_py_handler_drop(int iof, size_t id)
{
    PyObject *k = PyLong_FromSize_t(id);
    if (k && PyDict_DelItem(iof ? iof_handlers : ev_handlers, k) != 0)
        PyErr_Clear();
    Py_XDECREF(k);
}

/* The handler registered as id (new reference) or NULL. The registration
 * call returns the id after the library knows the handler, so an event can
 * come first: the caller waits a little for the id to appear. */
static PyObject *handler_find(PyObject *dict, size_t id)
{
    PyObject *k = PyLong_FromSize_t(id), *fn = NULL;
    for (int tries = 0; k && tries < 2000; tries++) {
        fn = PyDict_GetItem(dict, k);
        if (fn || spx_py_dying)
            break;
        Py_BEGIN_ALLOW_THREADS usleep(1000); Py_END_ALLOW_THREADS
    }
    Py_XDECREF(k);
    return fn ? Py_NewRef(fn) : NULL;
}

struct ev_results {
    pmix_info_t *info;
    size_t n;
};

static void ev_results_free(pmix_status_t status, void *cbdata)
{
    struct ev_results *r = cbdata;
    (void)status;
    if (r->info)
        PMIx_Info_free(r->info, r->n);
    free(r);
}

void spx_py_event_cb(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    pmix_status_t rc = PMIX_EVENT_NO_ACTION_TAKEN;
    struct ev_results *out = NULL;
    PyGILState_STATE g;
    PyObject *fn, *ret;

    if (spx_py_dying) {
        if (cbfunc)
            cbfunc(rc, NULL, 0, NULL, NULL, cbdata);
        return;
    }
    g = PyGILState_Ensure();
    fn = handler_find(ev_handlers, id);
    if (fn) {
        /* handler(evhdlr_id, status, source, info, results) -> (rc, results) */
        ret = call(fn, Py_BuildValue("(niNNN)", (Py_ssize_t)id, (int)status,
                                     source ? spx_py_proc_unload(source) : Py_NewRef(Py_None),
                                     spx_py_info_unload(info, ninfo),
                                     spx_py_info_unload(results, nresults)));
        if (ret) {
            PyObject *code = ret, *res = NULL;
            if (PyTuple_Check(ret) && PyTuple_GET_SIZE(ret) >= 1) {
                code = PyTuple_GET_ITEM(ret, 0);
                res = PyTuple_GET_SIZE(ret) >= 2 ? PyTuple_GET_ITEM(ret, 1) : NULL;
            }
            if (PyLong_Check(code))
                rc = (pmix_status_t)PyLong_AsLong(code);
            else if (code != Py_None)
                PyErr_WarnEx(PyExc_RuntimeWarning,
                             "pmix: an event handler returned no status; the event goes on", 1);
            if (res && res != Py_None) {
                out = calloc(1, sizeof(*out));
                if (out && spx_py_info_load(res, &out->info, &out->n) != PMIX_SUCCESS) {
                    if (PyErr_Occurred())
                        PyErr_WriteUnraisable(fn);
                    out->info = NULL;
                    out->n = 0;
                }
            }
            Py_DECREF(ret);
        }
        Py_DECREF(fn);
    }
    PyGILState_Release(g);
    if (cbfunc) {
        if (out)
            cbfunc(rc, out->info, out->n, ev_results_free, out, cbdata);
        else
            cbfunc(rc, NULL, 0, NULL, NULL, cbdata);
    } else if (out) {
        ev_results_free(PMIX_SUCCESS, out);
    }
}

void spx_py_iof_cb(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                   pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    PyGILState_STATE g;
    PyObject *fn, *pay;

    if (spx_py_dying)
        return;
    g = PyGILState_Ensure();
    fn = handler_find(iof_handlers, id);
    if (fn) {
        /* handler(iofhdlr_id, channel, source, {'bytes','size'}, info) */
        if (payload)
            pay = Py_BuildValue("{s:y#,s:n}", "bytes", payload->bytes ? payload->bytes : "",
                                (Py_ssize_t)payload->size, "size", (Py_ssize_t)payload->size);
        else
            pay = PyDict_New();
        Py_XDECREF(call(fn, Py_BuildValue("(niNNN)", (Py_ssize_t)id, (int)channel,
                                          source ? spx_py_proc_unload(source) : Py_NewRef(Py_None),
                                          pay, spx_py_info_unload(info, ninfo))));
        Py_DECREF(fn);
    }
    PyGILState_Release(g);
}

/* atexit: from here on no callback enters Python. */
static PyObject *dying(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    spx_py_dying = 1;
    Py_RETURN_NONE;
}

static PyMethodDef dying_def = { "_spx_atexit", dying, METH_NOARGS, NULL };

int spx_py_callback_init(PyObject *module)
{
    PyObject *atexit, *fn, *r;

    ev_handlers = PyDict_New();
    iof_handlers = PyDict_New();
    if (!ev_handlers || !iof_handlers)
        return -1;
    /* the module keeps the dicts alive */
    if (PyModule_AddObjectRef(module, "_event_handlers", ev_handlers) != 0 ||
        PyModule_AddObjectRef(module, "_iof_handlers", iof_handlers) != 0)
        return -1;
    atexit = PyImport_ImportModule("atexit");
    fn = atexit ? PyCFunction_New(&dying_def, NULL) : NULL;
    r = fn ? PyObject_CallMethod(atexit, "register", "O", fn) : NULL;
    Py_XDECREF(atexit);
    Py_XDECREF(fn);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}
