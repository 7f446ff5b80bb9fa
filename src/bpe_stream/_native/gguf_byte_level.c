/* A GGUF file's token and merge strings decoded from byte level straight from the file's
bytes: the one pass of gguf_strings and byte_level_decode (load_strings.c) together, so
that no bytes object is made per string only to be decoded and dropped.

gguf_tokens(data, pos, n, count_size) -> (list[bytes], end, raw_at): the strings of a
GGUF string array that start at data[pos] (each a little-endian count of count_size
bytes, 4 or 8, then that many bytes of UTF-8), at most n of them, as many as lie whole in
data; each is the bytes its byte-level string stands for, or, where it is not byte level
(a special token may not be), its own bytes, its index (from this call's first) in
raw_at.  end is where the next string starts: the caller reads more of the file and
calls again for the rest.

gguf_merges(data, pos, n, count_size) -> (list[tuple[bytes, bytes]], end, stopped): the
same for merges ("a b": two byte-level strings and one space), each as its two sides'
bytes; it stops before the first that is not such a merge (stopped True, end its start),
whose error the caller words (byte_level_decode's twin in Python).

Invariant: the results are byte_level_decode's of gguf_strings' (tuples=True for the
merges).  Complexity: one pass over the bytes; one bytes object per string or side.
*/
#include "core.h"

/* The count at p (count_size bytes, little-endian). */
static uint64_t
read_count(const unsigned char *p, int count_size)
{
    uint64_t k = 0;
    for (int j = count_size - 1; j >= 0; j--)
        k = (k << 8) | p[j];
    return k;
}

/* Room for len bytes in *buf (of *cap); -1 out of memory (set). */
static int
reserve(unsigned char **buf, Py_ssize_t *cap, Py_ssize_t len)
{
    if (len <= *cap)
        return 0;
    unsigned char *bigger = PyMem_Realloc(*buf, (size_t)len);
    if (bigger == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buf = bigger;
    *cap = len;
    return 0;
}

static PyObject *
gguf_decoded(PyObject *args, int merges)
{
    Py_buffer view;
    Py_ssize_t pos, n;
    int count_size;
    if (!PyArg_ParseTuple(args, "y*nni", &view, &pos, &n, &count_size))
        return NULL;
    if ((count_size != 4 && count_size != 8) || pos < 0 || pos > view.len || n < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "gguf strings: bad position, count or count size");
        return NULL;
    }
    PyObject *out = PyList_New(0), *raw_at = merges ? NULL : PyList_New(0), *result = NULL;
    Py_ssize_t cap = 256;
    unsigned char *buf = PyMem_Malloc((size_t)cap);
    int stopped = 0;
    if (out == NULL || (!merges && raw_at == NULL) || buf == NULL) {
        if (buf == NULL)
            PyErr_NoMemory();
        goto done;
    }
    const unsigned char *p = view.buf;
    Py_ssize_t size = view.len;
    for (Py_ssize_t done = 0; done < n && size - pos >= count_size; done++) {
        uint64_t k = read_count(p + pos, count_size);
        if (k > (uint64_t)(size - pos - count_size))
            break;  /* runs past the window: the caller reads more */
        const unsigned char *s = p + pos + count_size;
        Py_ssize_t len = (Py_ssize_t)k, split;
        if (reserve(&buf, &cap, len) < 0)
            goto done;
        Py_ssize_t got = byte_level_utf8(s, len, buf, merges, &split);
        PyObject *item;
        if (merges) {
            if (got < 0 || split < 0) {
                stopped = 1;
                break;
            }
            item = PyTuple_New(2);
            if (item != NULL) {
                PyObject *a = PyBytes_FromStringAndSize((const char *)buf, split);
                PyObject *b = a == NULL ? NULL : PyBytes_FromStringAndSize((const char *)buf + split, got - split);
                if (b == NULL) {
                    Py_XDECREF(a);
                    Py_CLEAR(item);
                } else {
                    PyTuple_SET_ITEM(item, 0, a);
                    PyTuple_SET_ITEM(item, 1, b);
                }
            }
        } else if (got < 0) {
            PyObject *index = PyLong_FromSsize_t(done);
            if (index == NULL || PyList_Append(raw_at, index) < 0) {
                Py_XDECREF(index);
                goto done;
            }
            Py_DECREF(index);
            item = PyBytes_FromStringAndSize((const char *)s, len);
        } else {
            item = PyBytes_FromStringAndSize((const char *)buf, got);
        }
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            goto done;
        }
        Py_DECREF(item);
        pos += count_size + len;
    }
    result = merges ? Py_BuildValue("(OnO)", out, pos, stopped ? Py_True : Py_False)
                    : Py_BuildValue("(OnO)", out, pos, raw_at);
done:
    Py_XDECREF(out);
    Py_XDECREF(raw_at);
    PyMem_Free(buf);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *
gguf_tokens(PyObject *module, PyObject *args)
{
    return gguf_decoded(args, 0);
}

static PyObject *
gguf_merges(PyObject *module, PyObject *args)
{
    return gguf_decoded(args, 1);
}

static PyMethodDef gguf_byte_level_functions[] = {
    {"gguf_tokens", (PyCFunction)gguf_tokens, METH_VARARGS,
     "gguf_tokens(data, pos, n, count_size) -> (list[bytes], end, raw_at): up to n GGUF strings from\n"
     "data[pos] decoded from byte level (raw where not, their indexes in raw_at)."},
    {"gguf_merges", (PyCFunction)gguf_merges, METH_VARARGS,
     "gguf_merges(data, pos, n, count_size) -> (list[tuple[bytes, bytes]], end, stopped): up to n\n"
     "GGUF merge strings from data[pos] decoded from byte level, stopping before one that is not."},
    {NULL, NULL, 0, NULL},
};

int
gguf_byte_level_init(PyObject *module)
{
    return PyModule_AddFunctions(module, gguf_byte_level_functions);
}
