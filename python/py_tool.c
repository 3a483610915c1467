/* py_tool.c - pmix.PMIxTool.
 *
 * As in the older binding, PMIxTool derives from PMIxServer (py_server.c),
 * which derives from PMIxClient, so a tool also has the client's methods
 * (get, query, fence_nb, ...). The tool adds iof_pull / iof_deregister /
 * iof_push (and iof_push_nb), attach_to_server, get_servers, set_server.
 */
#include "spx_py.h"

#include <stdlib.h>
#include <string.h>

#define SELF ((spx_py_client_t *)self)

/* ---- tool ---- */

static PyObject *tool_init(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "|O:init", &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return PyErr_Occurred() ? NULL : Py_BuildValue("(i{})", (int)rc);
    SPX_PY_NOGIL(rc = PMIx_tool_init(&SELF->myproc, info, n));
    PMIx_Info_free(info, n);
    if (rc != PMIX_SUCCESS)
        return Py_BuildValue("(i{s:s,s:k})", (int)rc, "nspace", "UNASSIGNED", "rank",
                             (unsigned long)PMIX_RANK_UNDEF);
    return Py_BuildValue("(iN)", (int)rc, spx_py_proc_unload(&SELF->myproc));
}

static PyObject *tool_finalize(PyObject *self, PyObject *unused)
{
    pmix_status_t rc;
    (void)self;
    (void)unused;
    SPX_PY_NOGIL(rc = PMIx_tool_finalize());
    return PyLong_FromLong(rc);
}

static PyObject *tool_attach(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    pmix_proc_t srv;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "|O:attach_to_server", &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    PMIx_Load_procid(&srv, "", PMIX_RANK_UNDEF);
    SPX_PY_NOGIL(rc = PMIx_tool_attach_to_server(&SELF->myproc, &srv, info, n));
    PMIx_Info_free(info, n);
    return Py_BuildValue("(iNN)", (int)rc, spx_py_proc_unload(&SELF->myproc),
                         spx_py_proc_unload(&srv));
}

static PyObject *tool_get_servers(PyObject *self, PyObject *unused)
{
    pmix_proc_t *s = NULL;
    size_t n = 0;
    pmix_status_t rc;
    PyObject *l;
    (void)self;
    (void)unused;
    SPX_PY_NOGIL(rc = PMIx_tool_get_servers(&s, &n));
    l = spx_py_procs_unload(s, rc == PMIX_SUCCESS ? n : 0);
    if (s)
        PMIx_Proc_free(s, n);
    return l ? Py_BuildValue("(iN)", (int)rc, l) : NULL;
}

static PyObject *tool_set_server(PyObject *self, PyObject *args)
{
    PyObject *server, *dicts = Py_None;
    pmix_proc_t p;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:set_server", &server, &dicts))
        return NULL;
    if ((rc = spx_py_proc_load(&p, server)) != PMIX_SUCCESS ||
        (rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = PMIx_tool_set_server(&p, info, n));
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

static PyObject *tool_iof_pull(PyObject *self, PyObject *args)
{
    PyObject *procs = Py_None, *dicts = Py_None, *hdlr;
    int channel;
    pmix_proc_t *p;
    pmix_info_t *info;
    size_t np, ni;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "OiOO:iof_pull", &procs, &channel, &dicts, &hdlr))
        return NULL;
    if (!PyCallable_Check(hdlr)) {
        PyErr_SetString(PyExc_TypeError, "the handler must be callable");
        return NULL;
    }
    if ((rc = spx_py_procs_load(procs, &SELF->myproc, &p, &np)) != PMIX_SUCCESS)
        return PyErr_Occurred() ? NULL : Py_BuildValue("(ii)", (int)rc, -1);
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS) {
        PMIx_Proc_free(p, np);
        return PyErr_Occurred() ? NULL : Py_BuildValue("(ii)", (int)rc, -1);
    }
    SPX_PY_NOGIL(rc = PMIx_IOF_pull(p, np, info, ni, (pmix_iof_channel_t)channel, spx_py_iof_cb,
                                    NULL, NULL));
    PMIx_Proc_free(p, np);
    PMIx_Info_free(info, ni);
    if (rc < 0)
        return Py_BuildValue("(ii)", (int)rc, -1);
    if (spx_py_handler_keep(1, (size_t)rc, hdlr) != 0)
        return NULL;
    return Py_BuildValue("(ii)", PMIX_SUCCESS, (int)rc);
}

static PyObject *tool_iof_deregister(PyObject *self, PyObject *args)
{
    Py_ssize_t id;
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t ni;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "n|O:iof_deregister", &id, &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = PMIx_IOF_deregister((size_t)id, info, ni, NULL, NULL));
    PMIx_Info_free(info, ni);
    spx_py_handler_drop(1, (size_t)id);
    return spx_py_status(rc);
}

/* iof_push(targets, data, directives[, cbfunc, cbdata]); data: {'bytes': str|bytes
 * [, 'size': n]} or None (directives alone, e.g. PMIX_IOF_COMPLETE). */
static PyObject *iof_push(PyObject *self, PyObject *args, int nb)
{
    PyObject *targets = Py_None, *data = Py_None, *dicts = Py_None, *fn = Py_None, *cbdata = Py_None;
    spx_py_req_t *r;
    pmix_status_t rc;

    if (nb ? !PyArg_ParseTuple(args, "OOOO|O:iof_push_nb", &targets, &data, &dicts, &fn, &cbdata)
           : !PyArg_ParseTuple(args, "OO|O:iof_push", &targets, &data, &dicts))
        return NULL;
    if (nb && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the callback must be callable");
        return NULL;
    }
    if (!(r = spx_py_req_create(nb ? fn : Py_None, cbdata)))
        return NULL;
    rc = (data == Py_None) ? PMIX_SUCCESS : spx_py_bytes_load(data, &r->bo);
    if (rc == PMIX_SUCCESS &&
        (rc = spx_py_procs_load(targets, &SELF->myproc, &r->procs, &r->nprocs)) == PMIX_SUCCESS &&
        (rc = spx_py_info_load(dicts, &r->info, &r->ninfo)) == PMIX_SUCCESS) {
        pmix_byte_object_t *bo = (data == Py_None) ? NULL : &r->bo;
        SPX_PY_NOGIL(rc = PMIx_IOF_push(r->procs, r->nprocs, bo, r->info, r->ninfo,
                                        nb ? spx_py_op_cb : NULL, nb ? r : NULL));
    }
    if (!nb || rc != PMIX_SUCCESS)
        spx_py_req_destroy(r);
    return spx_py_status(rc);
}

static PyObject *tool_iof_push(PyObject *self, PyObject *args)
{
    return iof_push(self, args, 0);
}

static PyObject *tool_iof_push_nb(PyObject *self, PyObject *args)
{
    return iof_push(self, args, 1);
}

static PyMethodDef tool_methods[] = {
    { "init", tool_init, METH_VARARGS,
      "init(info=[]) -> (status, {'nspace','rank'})\nPMIx_tool_init." },
    { "finalize", tool_finalize, METH_NOARGS, "finalize() -> status\nPMIx_tool_finalize." },
    { "attach_to_server", tool_attach, METH_VARARGS,
      "attach_to_server(info=[]) -> (status, myname, server)\nPMIx_tool_attach_to_server." },
    { "get_servers", tool_get_servers, METH_NOARGS,
      "get_servers() -> (status, [procs])\nPMIx_tool_get_servers." },
    { "set_server", tool_set_server, METH_VARARGS,
      "set_server(server, info=[]) -> status\nPMIx_tool_set_server." },
    { "iof_pull", tool_iof_pull, METH_VARARGS,
      "iof_pull(procs, channel, directives, handler) -> (status, id)\nPMIx_IOF_pull. "
      "handler(id, channel, source, {'bytes','size'}, info) runs on the progress thread." },
    { "iof_deregister", tool_iof_deregister, METH_VARARGS,
      "iof_deregister(id, directives=[]) -> status\nPMIx_IOF_deregister." },
    { "iof_push", tool_iof_push, METH_VARARGS,
      "iof_push(targets, {'bytes': data}, directives=[]) -> status\nPMIx_IOF_push, blocking: "
      "returns once the library no longer needs the data." },
    { "iof_push_nb", tool_iof_push_nb, METH_VARARGS,
      "iof_push_nb(targets, data, directives, cbfunc, cbdata=None) -> status\nPMIx_IOF_push with "
      "a callback: cbfunc(status, cbdata), only if the status is PMIX_SUCCESS." },
    { NULL, NULL, 0, NULL }
};

PyTypeObject spx_py_tool_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pmix.PMIxTool",
    .tp_basicsize = sizeof(spx_py_client_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A PMIx tool: PMIx_tool_init, IOF pull/push, plus the client's methods.",
    .tp_methods = tool_methods,
};
