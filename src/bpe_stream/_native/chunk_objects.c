/* The exact chunker's Chunk objects for the cuts exact_cuts returns, many per call.

make_chunks(cls, fields, text, base, cuts) -> list

``cuts`` is exact_cuts' flat list ``[s0, e0, count0, s1, e1, count1, ...]`` (offsets in
``text``); the answer holds, for each triple, ``cls(text[s:e], base + s, base + e,
count)`` with the defaults of the other fields (headings ``()``, context ``""``,
token_count_with_context ``count``), built as chunker._plain_chunk builds it: a bare
instance (``object.__new__(cls)``) whose slots are written through ``fields``, the
seven slot descriptors of cls in field order (text, start, end, token_count,
headings, context, token_count_with_context).  The slot descriptors write past the
frozen dataclass's __setattr__, as object.__setattr__ would; the instance is the same
as the dataclass __init__ makes (the tests compare them).  Why in C: at small budgets
a chunk is a few pieces long, and a Python-built instance (0.6 us) costs more than
the pre-split of its text.

Complexity: O(len(cuts) + the characters of the chunks), one substring each.
*/
#include "core.h"

#define CHUNK_FIELDS 7

/* The slot descriptor descr of obj set to value; set_new takes the reference to value
   (NULL: an error is set). */
static inline int
set_field(PyObject *descr, PyObject *obj, PyObject *value)
{
    return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
}

static inline int
set_new(PyObject *descr, PyObject *obj, PyObject *value)
{
    if (value == NULL)
        return -1;
    int r = set_field(descr, obj, value);
    Py_DECREF(value);
    return r;
}

static PyObject *
make_chunks(PyObject *module, PyObject *args)
{
    PyTypeObject *cls;
    PyObject *fields, *text, *cuts;
    Py_ssize_t base;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!UnO!", &PyType_Type, &cls, &PyTuple_Type, &fields, &text, &base, &PyList_Type,
                          &cuts))
        return NULL;
    if (PyTuple_GET_SIZE(fields) != CHUNK_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "make_chunks: fields must be the 7 slot descriptors of Chunk");
        return NULL;
    }
    for (Py_ssize_t f = 0; f < CHUNK_FIELDS; f++) {
        PyObject *d = PyTuple_GET_ITEM(fields, f);
        if (Py_TYPE(d)->tp_descr_set == NULL) {
            PyErr_SetString(PyExc_TypeError, "make_chunks: fields must be data descriptors");
            return NULL;
        }
    }
    Py_ssize_t m = PyList_GET_SIZE(cuts) / 3;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *no_args = PyTuple_New(0), *no_headings = PyTuple_New(0), *no_context = PyUnicode_New(0, 0);
    PyObject *out = PyList_New(m);
    if (no_args == NULL || no_headings == NULL || no_context == NULL || out == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t s = PyLong_AsSsize_t(PyList_GET_ITEM(cuts, 3 * i));
        Py_ssize_t e = PyLong_AsSsize_t(PyList_GET_ITEM(cuts, 3 * i + 1));
        PyObject *count = PyList_GET_ITEM(cuts, 3 * i + 2);
        if (PyErr_Occurred())
            goto error;
        if (s < 0 || e < s || e > n) {
            PyErr_SetString(PyExc_ValueError, "make_chunks: a cut outside the text");
            goto error;
        }
        PyObject *chunk = PyBaseObject_Type.tp_new(cls, no_args, NULL);
        if (chunk == NULL)
            goto error;
        /* Only str, int and () go into a chunk, so it can hold no cycle: untracked, as
           CPython untracks tuples of such objects, the cyclic collector does not walk the
           many chunks a small budget makes (with them tracked it cost 3x the building). */
        if (PyObject_IS_GC(chunk))
            PyObject_GC_UnTrack(chunk);
        PyList_SET_ITEM(out, i, chunk);
        if (set_new(PyTuple_GET_ITEM(fields, 0), chunk, PyUnicode_Substring(text, s, e)) < 0 ||
            set_new(PyTuple_GET_ITEM(fields, 1), chunk, PyLong_FromSsize_t(base + s)) < 0 ||
            set_new(PyTuple_GET_ITEM(fields, 2), chunk, PyLong_FromSsize_t(base + e)) < 0 ||
            set_field(PyTuple_GET_ITEM(fields, 3), chunk, count) < 0 ||
            set_field(PyTuple_GET_ITEM(fields, 4), chunk, no_headings) < 0 ||
            set_field(PyTuple_GET_ITEM(fields, 5), chunk, no_context) < 0 ||
            set_field(PyTuple_GET_ITEM(fields, 6), chunk, count) < 0)
            goto error;
    }
    Py_DECREF(no_args);
    Py_DECREF(no_headings);
    Py_DECREF(no_context);
    return out;
error:
    Py_XDECREF(no_args);
    Py_XDECREF(no_headings);
    Py_XDECREF(no_context);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef chunk_objects_functions[] = {
    {"make_chunks", (PyCFunction)make_chunks, METH_VARARGS,
     "make_chunks(cls, fields, text, base, cuts) -> list: cls(text[s:e], base + s, base + e, count)\n"
     "for each triple (s, e, count) of cuts, its slots written through fields (Chunk's seven slot\n"
     "descriptors in field order), as chunker._plain_chunk does."},
    {NULL, NULL, 0, NULL},
};

int
chunk_objects_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_objects_functions);
}
