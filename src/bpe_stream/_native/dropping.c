/* A vocabulary's parts without some of its tokens: what the build of a vocabulary with
unreachable tokens keeps of its first pass over all the tokens (bpe/vocabulary.py
_without_unreachable; the pure-Python twin is vocabulary._drop_tokens_py).

drop_tokens(blob, offsets, split_left, split_right, drop) -> (blob, offsets, split_left,
split_right): blob and offsets as Core.parts gives them (token r is
blob[offsets[r]:offsets[r + 1]], offsets (n + 1) native uint32), split_left and
split_right n native int32, drop a strictly increasing list of ranks below n.  The
result holds the other tokens in their order, renumbered (token r becomes r minus the
dropped ranks below it); a split that names a dropped token, or is -1, becomes -1.

Complexity: one pass over the tokens and the blob; memory linear in them.
*/
#include "core.h"

static PyObject *
drop_tokens(PyObject *module, PyObject *args)
{
    Py_buffer blob, off, left, right;
    PyObject *drop;
    if (!PyArg_ParseTuple(args, "y*y*y*y*O!", &blob, &off, &left, &right, &PyList_Type, &drop))
        return NULL;
    PyObject *result = NULL;
    int32_t *new_rank = NULL;
    PyObject *o_blob = NULL, *o_off = NULL, *o_left = NULL, *o_right = NULL;
    Py_ssize_t n = off.len / 4 - 1;
    const uint32_t *o = (const uint32_t *)off.buf;
    if (off.len % 4 || n < 0 || left.len != 4 * n || right.len != 4 * n || o[0] != 0 ||
        o[n] != (uint64_t)blob.len) {
        PyErr_SetString(PyExc_ValueError, "drop_tokens: the parts do not agree");
        goto done;
    }
    for (Py_ssize_t r = 0; r < n; r++)
        if (o[r + 1] < o[r]) {
            PyErr_SetString(PyExc_ValueError, "drop_tokens: offsets are not increasing");
            goto done;
        }
    new_rank = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    if (new_rank == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < n; r++)
        new_rank[r] = 0;
    Py_ssize_t n_drop = PyList_GET_SIZE(drop), dropped_bytes = 0;
    long previous = -1;
    for (Py_ssize_t k = 0; k < n_drop; k++) {
        long d = PyLong_AsLong(PyList_GET_ITEM(drop, k));
        if (d == -1 && PyErr_Occurred())
            goto done;
        if (d <= previous || d >= n) {
            PyErr_SetString(PyExc_ValueError, "drop_tokens: drop must be increasing ranks below n");
            goto done;
        }
        new_rank[d] = -1;
        dropped_bytes += o[d + 1] - o[d];
        previous = d;
    }
    Py_ssize_t kept = n - n_drop;
    o_blob = PyBytes_FromStringAndSize(NULL, blob.len - dropped_bytes);
    o_off = PyBytes_FromStringAndSize(NULL, (kept + 1) * 4);
    o_left = PyBytes_FromStringAndSize(NULL, kept * 4);
    o_right = PyBytes_FromStringAndSize(NULL, kept * 4);
    if (!o_blob || !o_off || !o_left || !o_right)
        goto done;
    int32_t next = 0;
    for (Py_ssize_t r = 0; r < n; r++)
        if (new_rank[r] == 0)
            new_rank[r] = next++;
    unsigned char *b2 = (unsigned char *)PyBytes_AS_STRING(o_blob);
    uint32_t *o2 = (uint32_t *)PyBytes_AS_STRING(o_off);
    int32_t *l2 = (int32_t *)PyBytes_AS_STRING(o_left), *r2 = (int32_t *)PyBytes_AS_STRING(o_right);
    const int32_t *l = left.buf, *rt = right.buf;
    const unsigned char *b = blob.buf;
    uint32_t at = 0;
    Py_ssize_t k = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (new_rank[r] < 0)
            continue;
        uint32_t len = o[r + 1] - o[r];
        o2[k] = at;
        memcpy(b2 + at, b + o[r], len);
        at += len;
        int32_t a = l[r], c = rt[r];
        l2[k] = a >= 0 && a < n ? new_rank[a] : -1;
        r2[k] = c >= 0 && c < n ? new_rank[c] : -1;
        k++;
    }
    o2[kept] = at;
    result = PyTuple_Pack(4, o_blob, o_off, o_left, o_right);
done:
    Py_XDECREF(o_blob);
    Py_XDECREF(o_off);
    Py_XDECREF(o_left);
    Py_XDECREF(o_right);
    PyMem_Free(new_rank);
    PyBuffer_Release(&blob);
    PyBuffer_Release(&off);
    PyBuffer_Release(&left);
    PyBuffer_Release(&right);
    return result;
}

static PyMethodDef dropping_functions[] = {
    {"drop_tokens", (PyCFunction)drop_tokens, METH_VARARGS,
     "drop_tokens(blob, offsets, split_left, split_right, drop) -> (blob, offsets, split_left,\n"
     "split_right): the parts without the ranks in drop (increasing), renumbered; a split naming\n"
     "a dropped token becomes -1."},
    {NULL, NULL, 0, NULL},
};

int
dropping_init(PyObject *module)
{
    return PyModule_AddFunctions(module, dropping_functions);
}
