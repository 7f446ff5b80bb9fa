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

gguf_merges(data, pos, n, count_size, base) -> (blob, ends, end, stopped): the same for
merges ("a b": two byte-level strings and one space), packed as bpe/merges.py's
PackedMerges holds them: their sides' bytes one after the other in blob, and per merge
two native uint32 ends (of a, of b), counted from base (the bytes of earlier calls); it
stops before the first that is not such a merge (stopped True, end its start), whose
error the caller words (byte_level_decode's twin in Python).

Invariant: the results are byte_level_decode's of gguf_strings' (for the merges, packed:
the tuples byte_level_decode gives with tuples=True).  Complexity: one pass over the
bytes; one bytes object per token, none per merge.
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
    Py_ssize_t more = len > 2 * *cap ? len : 2 * *cap;  /* doubled: the merges' bytes grow one by one */
    unsigned char *bigger = PyMem_Realloc(*buf, (size_t)more);
    if (bigger == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *buf = bigger;
    *cap = more;
    return 0;
}

static PyObject *
gguf_decoded(PyObject *args, int merges)
{
    Py_buffer view;
    Py_ssize_t pos, n, base = 0;
    int count_size;
    if (!PyArg_ParseTuple(args, merges ? "y*nnin" : "y*nni", &view, &pos, &n, &count_size, &base))
        return NULL;
    if ((count_size != 4 && count_size != 8) || pos < 0 || pos > view.len || n < 0 || base < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "gguf strings: bad position, count or count size");
        return NULL;
    }
    PyObject *out = merges ? NULL : PyList_New(0), *raw_at = merges ? NULL : PyList_New(0), *result = NULL;
    /* merges: the sides' bytes (decoding never makes a string longer) and the ends */
    Py_ssize_t cap = 256, blob_len = 0, n_ends = 0, ends_cap = 0;
    unsigned char *buf = PyMem_Malloc((size_t)cap);
    uint32_t *ends = NULL;
    int stopped = 0;
    if ((!merges && (out == NULL || raw_at == NULL)) || buf == NULL) {
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
        if (reserve(&buf, &cap, merges ? blob_len + len : len) < 0)
            goto done;
        if (merges) {
            Py_ssize_t got = byte_level_utf8(s, len, buf + blob_len, 1, &split);
            if (got < 0 || split < 0) {
                stopped = 1;
                break;
            }
            if ((uint64_t)base + blob_len + got > UINT32_MAX) {
                PyErr_SetString(PyExc_ValueError, "gguf merges: more than 4 GiB of merge bytes");
                goto done;
            }
            if (n_ends + 2 > ends_cap) {
                Py_ssize_t more = ends_cap ? 2 * ends_cap : 1024;
                uint32_t *bigger = PyMem_Realloc(ends, (size_t)more * sizeof(uint32_t));
                if (bigger == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                ends = bigger;
                ends_cap = more;
            }
            ends[n_ends++] = (uint32_t)(base + blob_len + split);
            ends[n_ends++] = (uint32_t)(base + blob_len + got);
            blob_len += got;
        } else {
            Py_ssize_t got = byte_level_utf8(s, len, buf, 0, &split);
            PyObject *item;
            if (got < 0) {
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
        }
        pos += count_size + len;
    }
    if (merges)
        result = Py_BuildValue("(y#y#nO)", (const char *)buf, blob_len, ends ? (const char *)ends : "",
                               n_ends * (Py_ssize_t)sizeof(uint32_t), pos, stopped ? Py_True : Py_False);
    else
        result = Py_BuildValue("(OnO)", out, pos, raw_at);
done:
    Py_XDECREF(out);
    Py_XDECREF(raw_at);
    PyMem_Free(buf);
    PyMem_Free(ends);
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
     "gguf_merges(data, pos, n, count_size, base) -> (blob, ends, end, stopped): up to n GGUF merge\n"
     "strings from data[pos] decoded from byte level and packed, stopping before one that is not."},
    {NULL, NULL, 0, NULL},
};

int
gguf_byte_level_init(PyObject *module)
{
    return PyModule_AddFunctions(module, gguf_byte_level_functions);
}
