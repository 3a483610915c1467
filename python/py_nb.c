/* py_nb.c - the non-blocking methods of pmix.PMIxClient (fence_nb,
 * group_join_nb, ...) and the event handler methods.
 *
 * An _nb method takes the blocking form's arguments plus a Python callable
 * and a cbdata object. It converts its inputs into a request
 * (spx_py_req_t), calls the library's _nb function with the GIL released and
 * returns the library's status. The callable runs if and only if that status
 * is PMIX_SUCCESS, exactly once, on the library's progress thread with the
 * GIL held (py_callback.c), and must not make a blocking PMIx call (it would
 * get PMIX_ERR_WOULD_BLOCK). Callback shapes:
 *   op:     cb(status, cbdata)                fence_nb, publish_nb, ...
 *   info:   cb(status, results, cbdata)       group_*_nb, query_nb
 *   value:  cb(status, value, cbdata)         get_nb
 *   lookup: cb(status, data, cbdata)          lookup_nb
 */
#include "spx_py.h"

#define SELF ((spx_py_client_t *)self)

/* Starts a request, or returns the failing status (the request is freed). */
static PyObject *submit(spx_py_req_t *r, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS) /* no callback will come */
        spx_py_req_destroy(r);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(rc);
}

/* A request for fn/cbdata, or NULL + TypeError when fn is not callable. */
static spx_py_req_t *req_of(PyObject *fn, PyObject *cbdata)
{
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the callback must be callable");
        return NULL;
    }
    return spx_py_req_create(fn, cbdata);
}

static PyObject *nb_fence(PyObject *self, PyObject *args)
{
    PyObject *peers, *dicts, *fn, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "OOO|O:fence_nb", &peers, &dicts, &fn, &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    if ((rc = spx_py_procs_load(peers, &SELF->myproc, &r->procs, &r->nprocs)) == PMIX_SUCCESS &&
        (rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Fence_nb(r->procs, r->nprocs, r->info, r->ninfo, spx_py_op_cb, r));
    return submit(r, rc);
}

static PyObject *nb_get(PyObject *self, PyObject *args)
{
    PyObject *pyproc, *key, *dicts, *fn, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_proc_t p;
    pmix_key_t k;
    pmix_status_t rc = PMIX_SUCCESS;

    if (!PyArg_ParseTuple(args, "OOOO|O:get_nb", &pyproc, &key, &dicts, &fn, &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    if (pyproc == Py_None)
        p = SELF->myproc;
    else
        rc = spx_py_proc_load(&p, pyproc);
    if (rc == PMIX_SUCCESS && spx_py_key_load(k, sizeof(k), key) != 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS && (rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Get_nb(&p, k, r->info, r->ninfo, spx_py_value_cb, r));
    return submit(r, rc);
}

static PyObject *nb_publish(PyObject *self, PyObject *args)
{
    PyObject *dicts, *fn, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OO|O:publish_nb", &dicts, &fn, &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Publish_nb(r->info, r->ninfo, spx_py_op_cb, r));
    return submit(r, rc);
}

static PyObject *nb_unpublish(PyObject *self, PyObject *args)
{
    PyObject *keys, *dicts, *fn, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOO|O:unpublish_nb", &keys, &dicts, &fn, &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    if ((rc = spx_py_argv_load(keys, &r->argv)) == PMIX_SUCCESS &&
        (rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Unpublish_nb(r->argv, r->info, r->ninfo, spx_py_op_cb, r));
    return submit(r, rc);
}

static PyObject *nb_lookup(PyObject *self, PyObject *args)
{
    PyObject *keys, *dicts, *fn, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOO|O:lookup_nb", &keys, &dicts, &fn, &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    /* keys: a list of str, or the blocking form's [{'key': k}] */
    if ((rc = spx_py_pdata_keys(keys, &r->pdata, &r->npdata)) == PMIX_SUCCESS) {
        for (size_t i = 0; i < r->npdata; i++)
            PMIx_Argv_append_nosize(&r->argv, r->pdata[i].key);
        rc = spx_py_info_load(dicts, &r->info, &r->ninfo);
    }
    if (rc == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Lookup_nb(r->argv, r->info, r->ninfo, spx_py_lookup_cb, r));
    return submit(r, rc);
}

static PyObject *nb_query(PyObject *self, PyObject *args)
{
    PyObject *pyq, *fn, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OO|O:query_nb", &pyq, &fn, &cbdata) || !(r = req_of(fn, cbdata)))
        return NULL;
    if ((rc = spx_py_queries_load(pyq, &r->queries, &r->nqueries)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Query_info_nb(r->queries, r->nqueries, spx_py_info_cb, r));
    return submit(r, rc);
}

typedef pmix_status_t (*grp_procs_nb_fn)(const char *, const pmix_proc_t *, size_t,
                                         const pmix_info_t *, size_t, pmix_info_cbfunc_t, void *);

static PyObject *grp_procs_nb(PyObject *self, PyObject *args, const char *fmt, grp_procs_nb_fn f)
{
    PyObject *peers, *dicts, *fn, *cbdata = Py_None;
    const char *grp;
    spx_py_req_t *r;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, fmt, &grp, &peers, &dicts, &fn, &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    if ((rc = spx_py_procs_load(peers, &SELF->myproc, &r->procs, &r->nprocs)) == PMIX_SUCCESS &&
        (rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = f(grp, r->procs, r->nprocs, r->info, r->ninfo, spx_py_info_cb, r));
    return submit(r, rc);
}

static PyObject *nb_group_construct(PyObject *self, PyObject *args)
{
    return grp_procs_nb(self, args, "sOOO|O:group_construct_nb", PMIx_Group_construct_nb);
}

static PyObject *nb_group_invite(PyObject *self, PyObject *args)
{
    return grp_procs_nb(self, args, "sOOO|O:group_invite_nb", PMIx_Group_invite_nb);
}

static PyObject *nb_group_join(PyObject *self, PyObject *args)
{
    PyObject *leader, *dicts, *fn, *cbdata = Py_None;
    const char *grp;
    int opt;
    spx_py_req_t *r;
    pmix_proc_t p;
    pmix_status_t rc = PMIX_SUCCESS;

    if (!PyArg_ParseTuple(args, "sOiOO|O:group_join_nb", &grp, &leader, &opt, &dicts, &fn,
                          &cbdata) ||
        !(r = req_of(fn, cbdata)))
        return NULL;
    if (leader == Py_None)
        p = SELF->myproc;
    else
        rc = spx_py_proc_load(&p, leader);
    if (rc == PMIX_SUCCESS && (rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Group_join_nb(grp, &p, (pmix_group_opt_t)opt, r->info, r->ninfo,
                                             spx_py_info_cb, r));
    return submit(r, rc);
}

typedef pmix_status_t (*grp_nb_fn)(const char *, const pmix_info_t *, size_t, pmix_op_cbfunc_t,
                                   void *);

static PyObject *grp_nb(PyObject *args, const char *fmt, grp_nb_fn f)
{
    PyObject *dicts, *fn, *cbdata = Py_None;
    const char *grp;
    spx_py_req_t *r;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, fmt, &grp, &dicts, &fn, &cbdata) || !(r = req_of(fn, cbdata)))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = f(grp, r->info, r->ninfo, spx_py_op_cb, r));
    return submit(r, rc);
}

static PyObject *nb_group_leave(PyObject *self, PyObject *args)
{
    (void)self;
    return grp_nb(args, "sOO|O:group_leave_nb", PMIx_Group_leave_nb);
}

static PyObject *nb_group_destruct(PyObject *self, PyObject *args)
{
    (void)self;
    return grp_nb(args, "sOO|O:group_destruct_nb", PMIx_Group_destruct_nb);
}

/* notify_event(status, source, range, info[, cbfunc, cbdata]): without a
 * callback the call waits for the library to take the event. */
static PyObject *ev_notify(PyObject *self, PyObject *args, int nb)
{
    PyObject *src, *dicts = Py_None, *fn = Py_None, *cbdata = Py_None;
    int status, range;
    pmix_proc_t p;
    pmix_info_t *info;
    size_t ni;
    spx_py_req_t *r = NULL;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, nb ? "iOiOO|O:notify_event_nb" : "iOi|OOO:notify_event", &status,
                          &src, &range, &dicts, &fn, &cbdata))
        return NULL;
    if (src == Py_None)
        p = SELF->myproc;
    else if ((rc = spx_py_proc_load(&p, src)) != PMIX_SUCCESS)
        return PyErr_Occurred() ? NULL : PyLong_FromLong(rc);
    if (fn != Py_None && !(r = req_of(fn, cbdata)))
        return NULL;
    if (!r) {
        if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS)
            return PyErr_Occurred() ? NULL : PyLong_FromLong(rc);
        SPX_PY_NOGIL(rc = PMIx_Notify_event(status, &p, (pmix_data_range_t)range, info, ni,
                                            NULL, NULL));
        PMIx_Info_free(info, ni);
        return PyLong_FromLong(rc);
    }
    if ((rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS)
        SPX_PY_NOGIL(rc = PMIx_Notify_event(status, &p, (pmix_data_range_t)range, r->info,
                                            r->ninfo, spx_py_op_cb, r));
    return submit(r, rc);
}

static PyObject *ev_notify_event(PyObject *self, PyObject *args)
{
    return ev_notify(self, args, 0);
}

static PyObject *ev_notify_event_nb(PyObject *self, PyObject *args)
{
    return ev_notify(self, args, 1);
}

static PyObject *ev_register(PyObject *self, PyObject *args)
{
    PyObject *codes = Py_None, *dicts = Py_None, *hdlr;
    pmix_status_t *c = NULL, rc;
    pmix_info_t *info;
    size_t nc = 0, ni;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOO:register_event_handler", &codes, &dicts, &hdlr))
        return NULL;
    if (!PyCallable_Check(hdlr)) {
        PyErr_SetString(PyExc_TypeError, "the handler must be callable");
        return NULL;
    }
    if (codes != Py_None) {
        Py_ssize_t len = PySequence_Size(codes);
        if (len < 0)
            return NULL;
        c = PyMem_Calloc((size_t)len + 1, sizeof(*c));
        for (Py_ssize_t i = 0; c && i < len; i++) {
            PyObject *o = PySequence_GetItem(codes, i);
            c[i] = o ? (pmix_status_t)PyLong_AsLong(o) : 0;
            Py_XDECREF(o);
        }
        if (!c || PyErr_Occurred()) {
            PyMem_Free(c);
            return c ? NULL : PyErr_NoMemory();
        }
        nc = (size_t)len;
    }
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS) {
        PyMem_Free(c);
        return PyErr_Occurred() ? NULL : Py_BuildValue("(ii)", (int)rc, -1);
    }
    SPX_PY_NOGIL(rc = PMIx_Register_event_handler(c, nc, info, ni, spx_py_event_cb, NULL, NULL));
    PyMem_Free(c);
    PMIx_Info_free(info, ni);
    if (rc < 0)
        return Py_BuildValue("(ii)", (int)rc, -1);
    /* a positive status is the handler's id */
    if (spx_py_handler_keep(0, (size_t)rc, hdlr) != 0)
        return NULL;
    return Py_BuildValue("(ii)", PMIX_SUCCESS, (int)rc);
}

static PyObject *ev_deregister(PyObject *self, PyObject *args)
{
    Py_ssize_t ref;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "n:deregister_event_handler", &ref))
        return NULL;
    SPX_PY_NOGIL(rc = PMIx_Deregister_event_handler((size_t)ref, NULL, NULL));
    spx_py_handler_drop(0, (size_t)ref);
    return PyLong_FromLong(rc);
}

#define DOC_NB "\nReturns a status; cbfunc runs (on the progress thread) only if it is PMIX_SUCCESS."
PyMethodDef spx_py_nb_methods[] = {
    { "fence_nb", nb_fence, METH_VARARGS,
      "fence_nb(procs, info, cbfunc, cbdata=None) -> status\nPMIx_Fence_nb; "
      "cbfunc(status, cbdata)." DOC_NB },
    { "get_nb", nb_get, METH_VARARGS,
      "get_nb(proc, key, info, cbfunc, cbdata=None) -> status\nPMIx_Get_nb; "
      "cbfunc(status, {'value','val_type'} or None, cbdata)." DOC_NB },
    { "publish_nb", nb_publish, METH_VARARGS,
      "publish_nb(info, cbfunc, cbdata=None) -> status\nPMIx_Publish_nb; "
      "cbfunc(status, cbdata)." DOC_NB },
    { "unpublish_nb", nb_unpublish, METH_VARARGS,
      "unpublish_nb(keys, info, cbfunc, cbdata=None) -> status\nPMIx_Unpublish_nb; "
      "cbfunc(status, cbdata)." DOC_NB },
    { "lookup_nb", nb_lookup, METH_VARARGS,
      "lookup_nb(keys, info, cbfunc, cbdata=None) -> status\nPMIx_Lookup_nb; keys: [str] or "
      "[{'key': k}]; cbfunc(status, [{'key','proc','value','val_type'}], cbdata)." DOC_NB },
    { "query_nb", nb_query, METH_VARARGS,
      "query_nb(queries, cbfunc, cbdata=None) -> status\nPMIx_Query_info_nb; "
      "cbfunc(status, [info], cbdata)." DOC_NB },
    { "group_construct_nb", nb_group_construct, METH_VARARGS,
      "group_construct_nb(grp, procs, info, cbfunc, cbdata=None) -> status\n"
      "PMIx_Group_construct_nb; cbfunc(status, [results], cbdata)." DOC_NB },
    { "group_invite_nb", nb_group_invite, METH_VARARGS,
      "group_invite_nb(grp, procs, info, cbfunc, cbdata=None) -> status\n"
      "PMIx_Group_invite_nb; cbfunc(status, [results], cbdata)." DOC_NB },
    { "group_join_nb", nb_group_join, METH_VARARGS,
      "group_join_nb(grp, leader, opt, info, cbfunc, cbdata=None) -> status\n"
      "PMIx_Group_join_nb; cbfunc(status, [results], cbdata). Safe from an invitation's event "
      "handler." DOC_NB },
    { "group_leave_nb", nb_group_leave, METH_VARARGS,
      "group_leave_nb(grp, info, cbfunc, cbdata=None) -> status\nPMIx_Group_leave_nb; "
      "cbfunc(status, cbdata)." DOC_NB },
    { "group_destruct_nb", nb_group_destruct, METH_VARARGS,
      "group_destruct_nb(grp, info, cbfunc, cbdata=None) -> status\nPMIx_Group_destruct_nb; "
      "cbfunc(status, cbdata)." DOC_NB },
    { "notify_event", ev_notify_event, METH_VARARGS,
      "notify_event(status, source, range, info=[], cbfunc=None, cbdata=None) -> status\n"
      "PMIx_Notify_event (source None: this process); without cbfunc it waits for the library "
      "to take the event." },
    { "notify_event_nb", ev_notify_event_nb, METH_VARARGS,
      "notify_event_nb(status, source, range, info, cbfunc, cbdata=None) -> status\n"
      "PMIx_Notify_event with a callback: cbfunc(status, cbdata)." DOC_NB },
    { "register_event_handler", ev_register, METH_VARARGS,
      "register_event_handler(codes, info, handler) -> (status, id)\n"
      "PMIx_Register_event_handler. handler(id, status, source, info, results) runs on the "
      "progress thread and returns (status, [results]) or status; PMIX_EVENT_ACTION_COMPLETE "
      "ends the chain. An exception it raises is printed and the event goes on." },
    { "deregister_event_handler", ev_deregister, METH_VARARGS,
      "deregister_event_handler(id) -> status\nPMIx_Deregister_event_handler." },
    { NULL, NULL, 0, NULL }
};
