/* py_convert.c - the dict forms of procs, values, infos and data arrays of
 * the `pmix` Python module, both ways.
 *
 * Python -> library: loaders fill library objects (strings strdup'd, arrays
 * from PMIx_*_create) that the caller frees with the library's PMIx_*_free or
 * PMIx_Value_destruct. A value of the wrong Python type or out of range gives
 * PMIX_ERR_TYPE_MISMATCH / PMIX_ERR_BAD_PARAM as the older Cython binding
 * did; a missing dict key raises KeyError (as there). Library -> Python:
 * unloaders build new objects, keys and nspaces as str.
 */
#include "spx_py.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>

PyObject *spx_py_str(const char *s)
{
    PyObject *o = PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)strlen(s ? s : ""), "replace");
    return o;
}

/* A str or bytes as a C string into buf (cap bytes with the NUL). */
static int text_load(char *buf, size_t cap, PyObject *o)
{
    const char *s;
    Py_ssize_t len;

    if (PyUnicode_Check(o)) {
        s = PyUnicode_AsUTF8AndSize(o, &len);
        if (!s)
            return -1;
    } else if (PyBytes_Check(o)) {
        s = PyBytes_AS_STRING(o);
        len = PyBytes_GET_SIZE(o);
    } else {
        PyErr_Format(PyExc_TypeError, "expected str or bytes, not %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    if ((size_t)len >= cap)
        len = (Py_ssize_t)cap - 1; /* truncated to the field, as the older binding did */
    memset(buf, 0, cap);
    memcpy(buf, s, (size_t)len);
    return 0;
}

int spx_py_key_load(char *key, size_t cap, PyObject *o)
{
    return text_load(key, cap, o);
}

/* A new C string of a str or bytes (malloc'd); NULL + exception. */
static char *text_dup(PyObject *o)
{
    const char *s;
    Py_ssize_t len;
    char *r;

    if (PyUnicode_Check(o)) {
        s = PyUnicode_AsUTF8AndSize(o, &len);
        if (!s)
            return NULL;
    } else if (PyBytes_Check(o)) {
        s = PyBytes_AS_STRING(o);
        len = PyBytes_GET_SIZE(o);
    } else {
        PyErr_Format(PyExc_TypeError, "expected str or bytes, not %s", Py_TYPE(o)->tp_name);
        return NULL;
    }
    r = malloc((size_t)len + 1);
    if (!r) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(r, s, (size_t)len);
    r[len] = '\0';
    return r;
}

/* d[key] as a borrowed reference; NULL + KeyError when missing. */
static PyObject *item(PyObject *d, const char *key)
{
    PyObject *o;
    if (!PyDict_Check(d)) {
        PyErr_Format(PyExc_TypeError, "expected a dict with '%s', not %s", key, Py_TYPE(d)->tp_name);
        return NULL;
    }
    o = PyDict_GetItemString(d, key);
    if (!o)
        PyErr_SetString(PyExc_KeyError, key);
    return o;
}

pmix_status_t spx_py_proc_load(pmix_proc_t *p, PyObject *d)
{
    PyObject *ns = item(d, "nspace"), *rk;
    unsigned long r;

    if (!ns || !(rk = item(d, "rank")))
        return PMIX_ERR_BAD_PARAM;
    if (text_load(p->nspace, sizeof(p->nspace), ns) != 0)
        return PMIX_ERR_BAD_PARAM;
    if (!PyLong_Check(rk))
        return PMIX_ERR_TYPE_MISMATCH;
    r = PyLong_AsUnsignedLong(rk);
    if (PyErr_Occurred() || r > UINT32_MAX) {
        PyErr_Clear();
        return PMIX_ERR_BAD_PARAM;
    }
    p->rank = (pmix_rank_t)r;
    return PMIX_SUCCESS;
}

PyObject *spx_py_proc_unload(const pmix_proc_t *p)
{
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, p->nspace, PMIX_MAX_NSLEN);
    ns[PMIX_MAX_NSLEN] = '\0';
    return Py_BuildValue("{s:N,s:k}", "nspace", spx_py_str(ns), "rank", (unsigned long)p->rank);
}

pmix_status_t spx_py_procs_load(PyObject *list, const pmix_proc_t *dflt, pmix_proc_t **out,
                                size_t *n)
{
    Py_ssize_t len, i;
    pmix_status_t rc;

    *out = NULL;
    *n = 0;
    len = (list == NULL || list == Py_None) ? 0 : PySequence_Size(list);
    if (len < 0)
        return PMIX_ERR_BAD_PARAM;
    if (len == 0) {
        if (!dflt)
            return PMIX_SUCCESS;
        *out = PMIx_Proc_create(1);
        PMIx_Load_procid(*out, dflt->nspace, PMIX_RANK_WILDCARD);
        *n = 1;
        return PMIX_SUCCESS;
    }
    *out = PMIx_Proc_create((size_t)len);
    for (i = 0; i < len; i++) {
        PyObject *d = PySequence_GetItem(list, i);
        rc = d ? spx_py_proc_load(&(*out)[i], d) : PMIX_ERR_BAD_PARAM;
        Py_XDECREF(d);
        if (rc != PMIX_SUCCESS) {
            PMIx_Proc_free(*out, (size_t)len);
            *out = NULL;
            return rc;
        }
    }
    *n = (size_t)len;
    return PMIX_SUCCESS;
}

PyObject *spx_py_procs_unload(const pmix_proc_t *p, size_t n)
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *d = spx_py_proc_unload(&p[i]);
        if (!d) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, d);
    }
    return l;
}

/* An integer in [lo, hi] (as long long / unsigned long long). */
static pmix_status_t int_in(PyObject *o, long long lo, long long hi, long long *out)
{
    int over = 0;
    long long v;
    if (PyBool_Check(o) || !PyLong_Check(o)) {
        if (PyBool_Check(o)) {
            *out = (o == Py_True);
            return PMIX_SUCCESS;
        }
        return PMIX_ERR_TYPE_MISMATCH;
    }
    v = PyLong_AsLongLongAndOverflow(o, &over);
    if (over || (v == -1 && PyErr_Occurred()) || v < lo || v > hi) {
        PyErr_Clear();
        return PMIX_ERR_BAD_PARAM;
    }
    *out = v;
    return PMIX_SUCCESS;
}

static pmix_status_t uint64_of(PyObject *o, uint64_t *out)
{
    unsigned long long v;
    if (!PyLong_Check(o))
        return PMIX_ERR_TYPE_MISMATCH;
    v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return PMIX_ERR_BAD_PARAM;
    }
    *out = v;
    return PMIX_SUCCESS;
}

/* True/False, 0/1, or a string starting with t/T or f/F (the older binding's rule). */
static pmix_status_t bool_of(PyObject *o, bool *out)
{
    if (PyUnicode_Check(o) || PyBytes_Check(o)) {
        char c[2];
        if (text_load(c, sizeof(c), o) != 0) {
            PyErr_Clear();
            return PMIX_ERR_BAD_PARAM;
        }
        if (c[0] == 't' || c[0] == 'T')
            *out = true;
        else if (c[0] == 'f' || c[0] == 'F')
            *out = false;
        else
            return PMIX_ERR_BAD_PARAM;
        return PMIX_SUCCESS;
    }
    if (PyLong_Check(o)) {
        long v = PyLong_AsLong(o);
        if (v != 0 && v != 1) {
            PyErr_Clear();
            return PMIX_ERR_BAD_PARAM;
        }
        *out = (v == 1);
        return PMIX_SUCCESS;
    }
    return PMIX_ERR_TYPE_MISMATCH;
}

pmix_status_t spx_py_bytes_load(PyObject *data, pmix_byte_object_t *b)
{
    PyObject *by = data, *sz = NULL;
    const char *s;
    Py_ssize_t len;

    b->bytes = NULL;
    b->size = 0;
    if (PyDict_Check(data)) {
        if (!(by = item(data, "bytes")))
            return PMIX_ERR_BAD_PARAM;
        sz = PyDict_GetItemString(data, "size");
    }
    if (PyUnicode_Check(by)) {
        if (!(s = PyUnicode_AsUTF8AndSize(by, &len)))
            return PMIX_ERR_BAD_PARAM;
    } else if (PyBytes_Check(by)) {
        s = PyBytes_AS_STRING(by);
        len = PyBytes_GET_SIZE(by);
    } else if (PyByteArray_Check(by)) {
        s = PyByteArray_AS_STRING(by);
        len = PyByteArray_GET_SIZE(by);
    } else {
        return PMIX_ERR_TYPE_MISMATCH;
    }
    if (sz && sz != Py_None) {
        long long want;
        if (int_in(sz, 0, len, &want) != PMIX_SUCCESS)
            return PMIX_ERR_BAD_PARAM;
        len = (Py_ssize_t)want;
    }
    if (len > 0) {
        b->bytes = malloc((size_t)len);
        if (!b->bytes)
            return PMIX_ERR_NOMEM;
        memcpy(b->bytes, s, (size_t)len);
    }
    b->size = (size_t)len;
    return PMIX_SUCCESS;
}

pmix_status_t spx_py_argv_load(PyObject *list, char ***out)
{
    Py_ssize_t len = (list == NULL || list == Py_None) ? 0 : PySequence_Size(list);
    *out = NULL;
    if (len < 0)
        return PMIX_ERR_BAD_PARAM;
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *o = PySequence_GetItem(list, i);
        char *s = o ? text_dup(o) : NULL;
        Py_XDECREF(o);
        if (!s) {
            PMIx_Argv_free(*out);
            *out = NULL;
            return PMIX_ERR_BAD_PARAM;
        }
        PMIx_Argv_append_nosize(out, s);
        free(s);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t darray_load(pmix_data_array_t **out, PyObject *d);
static PyObject *darray_unload(const pmix_data_array_t *a);

/* Scalar members of pmix_value_t data, by type: where they live and their range. */
#define SPX_INT_CASE(T, FIELD, LO, HI)                                  \
    case T: {                                                           \
        long long x;                                                    \
        if ((rc = int_in(value, (LO), (HI), &x)) != PMIX_SUCCESS)       \
            return rc;                                                  \
        v->data.FIELD = x;                                              \
        break;                                                          \
    }

pmix_status_t spx_py_value_load(pmix_value_t *v, PyObject *value, PyObject *type)
{
    long long t;
    pmix_status_t rc;

    PMIx_Value_construct(v);
    if (int_in(type, 0, UINT16_MAX, &t) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    v->type = (pmix_data_type_t)t;
    switch (v->type) {
    case PMIX_BOOL: {
        bool b;
        if ((rc = bool_of(value, &b)) != PMIX_SUCCESS)
            return rc;
        v->data.flag = b;
        break;
    }
    SPX_INT_CASE(PMIX_BYTE, byte, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_PID, pid, 0, INT_MAX)
    SPX_INT_CASE(PMIX_INT, integer, INT_MIN, INT_MAX)
    SPX_INT_CASE(PMIX_INT8, int8, INT8_MIN, INT8_MAX)
    SPX_INT_CASE(PMIX_INT16, int16, INT16_MIN, INT16_MAX)
    SPX_INT_CASE(PMIX_INT32, int32, INT32_MIN, INT32_MAX)
    SPX_INT_CASE(PMIX_INT64, int64, INT64_MIN, INT64_MAX)
    SPX_INT_CASE(PMIX_UINT, uint, 0, UINT_MAX)
    SPX_INT_CASE(PMIX_UINT8, uint8, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_UINT16, uint16, 0, UINT16_MAX)
    SPX_INT_CASE(PMIX_UINT32, uint32, 0, UINT32_MAX)
    SPX_INT_CASE(PMIX_STATUS, status, INT_MIN, INT_MAX)
    SPX_INT_CASE(PMIX_PROC_RANK, rank, 0, UINT32_MAX)
    SPX_INT_CASE(PMIX_PERSIST, persist, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_SCOPE, scope, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_DATA_RANGE, range, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_PROC_STATE, state, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_ALLOC_DIRECTIVE, adir, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_JOB_STATE, jstate, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_LINK_STATE, linkstate, 0, UINT8_MAX)
    SPX_INT_CASE(PMIX_POINTER, uint64, INT64_MIN, INT64_MAX) /* never dereferenced here */
    case PMIX_SIZE:
    case PMIX_UINT64: {
        uint64_t x;
        if ((rc = uint64_of(value, &x)) != PMIX_SUCCESS)
            return rc;
        if (v->type == PMIX_SIZE)
            v->data.size = (size_t)x;
        else
            v->data.uint64 = x;
        break;
    }
    case PMIX_TIME: {
        long long x;
        if ((rc = int_in(value, 0, INT64_MAX, &x)) != PMIX_SUCCESS)
            return rc;
        v->data.time = (time_t)x;
        break;
    }
    case PMIX_FLOAT:
    case PMIX_DOUBLE: {
        double x = PyFloat_AsDouble(value);
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return PMIX_ERR_TYPE_MISMATCH;
        }
        if (v->type == PMIX_FLOAT)
            v->data.fval = (float)x;
        else
            v->data.dval = x;
        break;
    }
    case PMIX_TIMEVAL: {
        PyObject *s = item(value, "sec"), *u;
        long long a, b;
        if (!s || !(u = item(value, "usec")))
            return PMIX_ERR_BAD_PARAM;
        if (int_in(s, 0, INT64_MAX, &a) || int_in(u, 0, 999999, &b))
            return PMIX_ERR_BAD_PARAM;
        v->data.tv.tv_sec = (time_t)a;
        v->data.tv.tv_usec = (suseconds_t)b;
        break;
    }
    case PMIX_STRING:
        if (!(v->data.string = text_dup(value))) {
            PyErr_Clear();
            return PMIX_ERR_TYPE_MISMATCH;
        }
        break;
    case PMIX_PROC:
        v->data.proc = PMIx_Proc_create(1);
        if ((rc = spx_py_proc_load(v->data.proc, value)) != PMIX_SUCCESS) {
            PMIx_Proc_free(v->data.proc, 1);
            v->data.proc = NULL;
            return rc;
        }
        break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_REGEX:
        if ((rc = spx_py_bytes_load(value, &v->data.bo)) != PMIX_SUCCESS)
            return rc;
        break;
    case PMIX_ENVAR: {
        PyObject *e = item(value, "envar"), *val, *sep;
        char s[2];
        if (!e || !(val = item(value, "value")) || !(sep = item(value, "separator")))
            return PMIX_ERR_BAD_PARAM;
        if (PyLong_Check(sep)) {
            s[0] = (char)PyLong_AsLong(sep);
        } else if (text_load(s, sizeof(s), sep) != 0) {
            return PMIX_ERR_BAD_PARAM;
        }
        v->data.envar.envar = text_dup(e);
        v->data.envar.value = v->data.envar.envar ? text_dup(val) : NULL;
        v->data.envar.separator = s[0];
        if (!v->data.envar.value) {
            PMIx_Value_destruct(v);
            return PMIX_ERR_BAD_PARAM;
        }
        break;
    }
    case PMIX_DATA_ARRAY:
        if ((rc = darray_load(&v->data.darray, value)) != PMIX_SUCCESS)
            return rc;
        break;
    default:
        v->type = PMIX_UNDEF;
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}

/* The size of one element of a data array of a scalar type (0: not a scalar). */
static size_t scalar_size(pmix_data_type_t t)
{
    switch (t) {
    case PMIX_BOOL: return sizeof(bool);
    case PMIX_BYTE: case PMIX_INT8: case PMIX_UINT8: case PMIX_PERSIST: case PMIX_SCOPE:
    case PMIX_DATA_RANGE: case PMIX_PROC_STATE: case PMIX_ALLOC_DIRECTIVE: case PMIX_JOB_STATE:
    case PMIX_LINK_STATE:
        return 1;
    case PMIX_INT16: case PMIX_UINT16: return 2;
    case PMIX_INT: case PMIX_UINT: case PMIX_INT32: case PMIX_UINT32: case PMIX_STATUS:
    case PMIX_PROC_RANK:
        return 4;
    case PMIX_INT64: case PMIX_UINT64: return 8;
    case PMIX_SIZE: return sizeof(size_t);
    case PMIX_TIME: return sizeof(time_t);
    case PMIX_PID: return sizeof(pid_t);
    case PMIX_FLOAT: return sizeof(float);
    case PMIX_DOUBLE: return sizeof(double);
    case PMIX_TIMEVAL: return sizeof(struct timeval);
    default: return 0;
    }
}

/* One element of a data array of scalar type t at slot i of base. */
static pmix_status_t element_load(pmix_data_array_t *a, size_t i, PyObject *o)
{
    pmix_value_t v;
    pmix_status_t rc;
    PyObject *ty;

    switch (a->type) {
    case PMIX_INFO: {
        pmix_info_t *info = (pmix_info_t *)a->array + i;
        PyObject *k = item(o, "key"), *val, *t, *fl;
        if (!k || !(val = item(o, "value")) || !(t = item(o, "val_type")))
            return PMIX_ERR_BAD_PARAM;
        if (spx_py_key_load(info->key, sizeof(info->key), k) != 0)
            return PMIX_ERR_BAD_PARAM;
        if ((fl = PyDict_GetItemString(o, "flags")) != NULL && PyLong_Check(fl))
            info->flags = (pmix_info_directives_t)PyLong_AsUnsignedLong(fl);
        return spx_py_value_load(&info->value, val, t);
    }
    case PMIX_PROC:
        return spx_py_proc_load((pmix_proc_t *)a->array + i, o);
    default:
        break;
    }
    ty = PyLong_FromLong(a->type);
    rc = ty ? spx_py_value_load(&v, o, ty) : PMIX_ERR_NOMEM;
    Py_XDECREF(ty);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* the scalar (or string / byte object) moves into the array's slot */
    switch (a->type) {
    case PMIX_STRING:
        ((char **)a->array)[i] = v.data.string;
        return PMIX_SUCCESS;
    case PMIX_BYTE_OBJECT:
        ((pmix_byte_object_t *)a->array)[i] = v.data.bo;
        return PMIX_SUCCESS;
    default: {
        size_t sz = scalar_size(a->type);
        if (sz == 0) {
            PMIx_Value_destruct(&v);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        /* scalars sit at the start of the union */
        memcpy((char *)a->array + i * sz, &v.data, sz);
        return PMIX_SUCCESS;
    }
    }
}

static pmix_status_t darray_load(pmix_data_array_t **out, PyObject *d)
{
    PyObject *t = item(d, "type"), *arr;
    long long type;
    Py_ssize_t n;
    pmix_status_t rc = PMIX_SUCCESS;

    *out = NULL;
    if (!t || !(arr = item(d, "array")))
        return PMIX_ERR_BAD_PARAM;
    if (int_in(t, 1, UINT16_MAX, &type) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    if ((n = PySequence_Size(arr)) < 0) {
        PyErr_Clear();
        return PMIX_ERR_TYPE_MISMATCH;
    }
    *out = PMIx_Data_array_create((size_t)n, (pmix_data_type_t)type);
    if (!*out)
        return PMIX_ERR_NOT_SUPPORTED;
    for (Py_ssize_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        PyObject *o = PySequence_GetItem(arr, i);
        rc = o ? element_load(*out, (size_t)i, o) : PMIX_ERR_BAD_PARAM;
        Py_XDECREF(o);
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Data_array_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The Python object of a value's data (not the {'value','val_type'} dict). */
static PyObject *data_unload(const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_BOOL: return PyBool_FromLong(v->data.flag);
    case PMIX_BYTE: return PyLong_FromLong(v->data.byte);
    case PMIX_STRING: return spx_py_str(v->data.string);
    case PMIX_SIZE: return PyLong_FromSize_t(v->data.size);
    case PMIX_PID: return PyLong_FromLong(v->data.pid);
    case PMIX_INT: return PyLong_FromLong(v->data.integer);
    case PMIX_INT8: return PyLong_FromLong(v->data.int8);
    case PMIX_INT16: return PyLong_FromLong(v->data.int16);
    case PMIX_INT32: return PyLong_FromLong(v->data.int32);
    case PMIX_INT64: return PyLong_FromLongLong(v->data.int64);
    case PMIX_UINT: return PyLong_FromUnsignedLong(v->data.uint);
    case PMIX_UINT8: return PyLong_FromLong(v->data.uint8);
    case PMIX_UINT16: return PyLong_FromLong(v->data.uint16);
    case PMIX_UINT32: return PyLong_FromUnsignedLong(v->data.uint32);
    case PMIX_UINT64: return PyLong_FromUnsignedLongLong(v->data.uint64);
    case PMIX_FLOAT: return PyFloat_FromDouble(v->data.fval);
    case PMIX_DOUBLE: return PyFloat_FromDouble(v->data.dval);
    case PMIX_TIMEVAL:
        return Py_BuildValue("{s:L,s:L}", "sec", (long long)v->data.tv.tv_sec, "usec",
                             (long long)v->data.tv.tv_usec);
    case PMIX_TIME: return PyLong_FromLongLong((long long)v->data.time);
    case PMIX_STATUS: return PyLong_FromLong(v->data.status);
    case PMIX_PROC_RANK: return PyLong_FromUnsignedLong(v->data.rank);
    case PMIX_PROC: return v->data.proc ? spx_py_proc_unload(v->data.proc) : Py_NewRef(Py_None);
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
        return Py_BuildValue("{s:y#,s:n}", "bytes", v->data.bo.bytes ? v->data.bo.bytes : "",
                             (Py_ssize_t)v->data.bo.size, "size", (Py_ssize_t)v->data.bo.size);
    case PMIX_REGEX:
        return PyBytes_FromStringAndSize(v->data.bo.bytes ? v->data.bo.bytes : "",
                                         (Py_ssize_t)v->data.bo.size);
    case PMIX_PERSIST: return PyLong_FromLong(v->data.persist);
    case PMIX_SCOPE: return PyLong_FromLong(v->data.scope);
    case PMIX_DATA_RANGE: return PyLong_FromLong(v->data.range);
    case PMIX_PROC_STATE: return PyLong_FromLong(v->data.state);
    case PMIX_JOB_STATE: return PyLong_FromLong(v->data.jstate);
    case PMIX_LINK_STATE: return PyLong_FromLong(v->data.linkstate);
    case PMIX_ALLOC_DIRECTIVE: return PyLong_FromLong(v->data.adir);
    case PMIX_POINTER: return PyLong_FromVoidPtr(v->data.ptr);
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *p = v->data.pinfo;
        if (!p)
            return Py_NewRef(Py_None);
        return Py_BuildValue("{s:N,s:N,s:N,s:l,s:i,s:i}", "proc", spx_py_proc_unload(&p->proc),
                             "hostname", spx_py_str(p->hostname), "executable",
                             spx_py_str(p->executable_name), "pid", (long)p->pid, "exitcode",
                             p->exit_code, "state", (int)p->state);
    }
    case PMIX_ENVAR:
        return Py_BuildValue("{s:N,s:N,s:i}", "envar", spx_py_str(v->data.envar.envar), "value",
                             spx_py_str(v->data.envar.value), "separator",
                             (int)v->data.envar.separator);
    case PMIX_DATA_ARRAY:
        return v->data.darray ? darray_unload(v->data.darray) : Py_NewRef(Py_None);
    default:
        return Py_NewRef(Py_None);
    }
}

PyObject *spx_py_value_unload(const pmix_value_t *v)
{
    PyObject *data = data_unload(v);
    if (!data)
        return NULL;
    return Py_BuildValue("{s:N,s:i}", "value", data, "val_type", (int)v->type);
}

static PyObject *darray_unload(const pmix_data_array_t *a)
{
    PyObject *l = PyList_New(0), *o;
    pmix_value_t v;
    size_t sz;

    if (!l)
        return NULL;
    for (size_t i = 0; i < a->size; i++) {
        if (a->type == PMIX_INFO) {
            o = spx_py_info_unload((const pmix_info_t *)a->array + i, 1);
            if (o) { /* one dict, not a list of one */
                PyObject *d = Py_NewRef(PyList_GET_ITEM(o, 0));
                Py_DECREF(o);
                o = d;
            }
        } else if (a->type == PMIX_PROC) {
            o = spx_py_proc_unload((const pmix_proc_t *)a->array + i);
        } else if (a->type == PMIX_VALUE) {
            o = spx_py_value_unload((const pmix_value_t *)a->array + i);
        } else {
            PMIx_Value_construct(&v);
            v.type = a->type;
            if (a->type == PMIX_STRING) {
                v.data.string = ((char **)a->array)[i];
            } else if (a->type == PMIX_BYTE_OBJECT) {
                v.data.bo = ((pmix_byte_object_t *)a->array)[i];
            } else {
                if ((sz = scalar_size(a->type)) == 0)
                    break; /* a type this module does not convert: left out */
                memcpy(&v.data, (const char *)a->array + i * sz, sz);
            }
            o = data_unload(&v); /* borrows v's pointers: no destruct */
        }
        if (!o || PyList_Append(l, o) != 0) {
            Py_XDECREF(o);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(o);
    }
    return Py_BuildValue("{s:i,s:N}", "type", (int)a->type, "array", l);
}

pmix_status_t spx_py_info_load(PyObject *list, pmix_info_t **out, size_t *n)
{
    Py_ssize_t len;
    pmix_data_array_t a;
    pmix_status_t rc = PMIX_SUCCESS;

    *out = NULL;
    *n = 0;
    len = (list == NULL || list == Py_None) ? 0 : PySequence_Size(list);
    if (len < 0) {
        PyErr_Clear();
        return PMIX_ERR_BAD_PARAM;
    }
    if (len == 0)
        return PMIX_SUCCESS;
    *out = PMIx_Info_create((size_t)len);
    a.type = PMIX_INFO;
    a.size = (size_t)len;
    a.array = *out;
    for (Py_ssize_t i = 0; i < len && rc == PMIX_SUCCESS; i++) {
        PyObject *o = PySequence_GetItem(list, i);
        rc = o ? element_load(&a, (size_t)i, o) : PMIX_ERR_BAD_PARAM;
        Py_XDECREF(o);
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_free(*out, (size_t)len);
        *out = NULL;
        return rc;
    }
    *n = (size_t)len;
    return PMIX_SUCCESS;
}

PyObject *spx_py_info_unload(const pmix_info_t *info, size_t n)
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    char key[PMIX_MAX_KEYLEN + 1];

    for (size_t i = 0; l && i < n; i++) {
        PyObject *data = data_unload(&info[i].value), *d;
        memcpy(key, info[i].key, PMIX_MAX_KEYLEN);
        key[PMIX_MAX_KEYLEN] = '\0';
        d = data ? Py_BuildValue("{s:N,s:I,s:N,s:i}", "key", spx_py_str(key), "flags",
                                 (unsigned)info[i].flags, "value", data, "val_type",
                                 (int)info[i].value.type)
                 : NULL;
        if (!d) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, d);
    }
    return l;
}
