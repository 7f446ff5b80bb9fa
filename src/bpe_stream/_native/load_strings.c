/* Reading the strings of vocabulary files: byte-level token strings to their bytes, and
the length-prefixed string arrays of a GGUF file's metadata.

byte_level_decode(items, pairs=False, tuples=False) -> list[bytes]: each item (a str, or bytes holding
UTF-8 text) is a byte-level string (GPT-2's table: every byte is one printable
character); the result holds the bytes each stands for.  With pairs, every item is two
such strings joined by one space ("a b", a merge of tokenizer.json or GGUF) or a list or
tuple of the two (newer tokenizer.json files), and the result holds both sides, 2 per
item, or with tuples one (a, b) tuple per item (the merges as the loaders keep them, made
here rather than by slicing and zipping the flat list).  The pure-Python twin is
encoding/formats/hf_json.decode_byte_level (with its callers' split on the space); an
item that is not byte level (a character outside the table, bytes that are not UTF-8, a
merge without exactly one space) raises ValueError("not byte level", index) and the
caller words the error from its own copy.

gguf_strings(data, pos, n, count_size) -> (list[bytes], end): the strings of a GGUF
string array that start at data[pos] (each a little-endian count of count_size bytes, 4
or 8, then that many bytes), at most n of them, as many as lie whole in data; end is
where the next one starts.  The caller reads more of the file and calls again for the
rest (its window holds a few MiB).

Complexity: one pass over the characters or bytes; one bytes object per string made,
no other Python object per item.
*/
#include "core.h"

/* core.h */
int16_t byte_level_table[324];

static void
fill_byte_table(void)
{
    int shifted = 0;
    for (int c = 0; c < 324; c++)
        byte_level_table[c] = -1;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
        if (printable)
            byte_level_table[b] = (int16_t)b;
        else
            byte_level_table[256 + shifted++] = (int16_t)b;
    }
}

/* Decode the code points of one item into out (room for len code points); the number of
   bytes written, or -1 where a character is outside the table.  pairs: one space, at
   *split, separates the two sides (-1 where there is not exactly one). */
static Py_ssize_t
decode_str(PyObject *s, unsigned char *out, int pairs, Py_ssize_t *split)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(s), k = 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    *split = -1;
    for (Py_ssize_t i = 0; i < len; i++) {
        if (byte_level_put(PyUnicode_READ(kind, data, i), out, &k, pairs ? split : NULL) < 0)
            return -1;
    }
    return k;
}

/* The same for UTF-8 bytes: a character of the table is one byte (below 0x80) or two
   (lead 0xc2-0xc5); anything else is outside the table or not UTF-8 (core.h: also read
   by gguf_byte_level.c). */
Py_ssize_t
byte_level_utf8(const unsigned char *p, Py_ssize_t len, unsigned char *out, int pairs, Py_ssize_t *split)
{
    Py_ssize_t k = 0;
    *split = -1;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned c = p[i];
        if (c >= 0x80) {
            if (c < 0xc2 || c > 0xc5 || i + 1 >= len || (p[i + 1] & 0xc0) != 0x80)
                return -1;
            c = ((c & 0x1f) << 6) | (p[++i] & 0x3f);
        }
        if (byte_level_put(c, out, &k, pairs ? split : NULL) < 0)
            return -1;
    }
    return k;
}

static PyObject *
not_byte_level(Py_ssize_t index)
{
    PyObject *err = Py_BuildValue("(sn)", "not byte level", index);
    if (err != NULL) {
        PyErr_SetObject(PyExc_ValueError, err);
        Py_DECREF(err);
    }
    return NULL;
}

static PyObject *
byte_level_decode(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"items", "pairs", "tuples", NULL};
    PyObject *items;
    int pairs = 0, tuples = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|pp", kwlist, &PyList_Type, &items, &pairs, &tuples))
        return NULL;
    tuples = tuples && pairs;
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *result = PyList_New(pairs && !tuples ? 2 * n : n);
    if (result == NULL)
        return NULL;
    Py_ssize_t cap = 256;
    unsigned char *buf = PyMem_Malloc(cap);
    if (buf == NULL) {
        Py_DECREF(result);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        PyObject *side_a = NULL, *side_b = NULL;
        Py_ssize_t len, k, split;
        int is_str = PyUnicode_Check(item);
        if (pairs && (PyList_Check(item) || PyTuple_Check(item))) {
            /* a merge given as its two sides ([a, b], newer tokenizer.json files) */
            if (PySequence_Fast_GET_SIZE(item) != 2 || !PyUnicode_Check(PySequence_Fast_GET_ITEM(item, 0))
                || !PyUnicode_Check(PySequence_Fast_GET_ITEM(item, 1))) {
                not_byte_level(i);
                goto fail;
            }
            side_a = PySequence_Fast_GET_ITEM(item, 0);
            side_b = PySequence_Fast_GET_ITEM(item, 1);
            len = PyUnicode_GET_LENGTH(side_a) + PyUnicode_GET_LENGTH(side_b);
        } else if (is_str)
            len = PyUnicode_GET_LENGTH(item);
        else if (PyBytes_Check(item))
            len = PyBytes_GET_SIZE(item);
        else {
            PyErr_Format(PyExc_TypeError, "byte_level_decode: item %zd is %.50s, not str or bytes", i,
                         Py_TYPE(item)->tp_name);
            goto fail;
        }
        if (len > cap) {
            unsigned char *bigger = PyMem_Realloc(buf, len);
            if (bigger == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            buf = bigger;
            cap = len;
        }
        if (side_a != NULL) {
            Py_ssize_t unused, kb;
            k = decode_str(side_a, buf, 0, &unused);
            kb = k < 0 ? -1 : decode_str(side_b, buf + k, 0, &unused);
            split = k;
            k = kb < 0 ? -1 : k + kb;
        } else
            k = is_str ? decode_str(item, buf, pairs, &split)
                       : byte_level_utf8((const unsigned char *)PyBytes_AS_STRING(item), len, buf, pairs, &split);
        if (k < 0 || (pairs && split < 0)) {
            not_byte_level(i);
            goto fail;
        }
        if (tuples) {
            PyObject *pair = PyTuple_New(2);
            if (pair == NULL)
                goto fail;
            PyList_SET_ITEM(result, i, pair);
            PyObject *a = PyBytes_FromStringAndSize((const char *)buf, split);
            if (a == NULL)
                goto fail;
            PyTuple_SET_ITEM(pair, 0, a);
            PyObject *b = PyBytes_FromStringAndSize((const char *)buf + split, k - split);
            if (b == NULL)
                goto fail;
            PyTuple_SET_ITEM(pair, 1, b);
        } else if (pairs) {
            PyObject *a = PyBytes_FromStringAndSize((const char *)buf, split);
            if (a == NULL)
                goto fail;
            PyList_SET_ITEM(result, 2 * i, a);
            PyObject *b = PyBytes_FromStringAndSize((const char *)buf + split, k - split);
            if (b == NULL)
                goto fail;
            PyList_SET_ITEM(result, 2 * i + 1, b);
        } else {
            PyObject *t = PyBytes_FromStringAndSize((const char *)buf, k);
            if (t == NULL)
                goto fail;
            PyList_SET_ITEM(result, i, t);
        }
    }
    PyMem_Free(buf);
    return result;
fail:
    PyMem_Free(buf);
    Py_DECREF(result);
    return NULL;
}

static PyObject *
gguf_strings(PyObject *module, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t pos, n;
    int count_size;
    if (!PyArg_ParseTuple(args, "y*nni", &view, &pos, &n, &count_size))
        return NULL;
    if ((count_size != 4 && count_size != 8) || pos < 0 || pos > view.len || n < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "gguf_strings: bad position, count or count size");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *p = view.buf;
    Py_ssize_t size = view.len;
    for (Py_ssize_t done = 0; done < n && size - pos >= count_size; done++) {
        uint64_t k = 0;
        for (int j = count_size - 1; j >= 0; j--)
            k = (k << 8) | p[pos + j];
        if (k > (uint64_t)(size - pos - count_size))
            break;  /* runs past the window: the caller reads more */
        PyObject *s = PyBytes_FromStringAndSize((const char *)p + pos + count_size, (Py_ssize_t)k);
        if (s == NULL || PyList_Append(out, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(out);
            PyBuffer_Release(&view);
            return NULL;
        }
        Py_DECREF(s);
        pos += count_size + (Py_ssize_t)k;
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(Nn)", out, pos);
}

static PyMethodDef load_strings_functions[] = {
    {"byte_level_decode", (PyCFunction)(void (*)(void))byte_level_decode, METH_VARARGS | METH_KEYWORDS,
     "byte_level_decode(items, pairs=False, tuples=False) -> list[bytes]: the bytes of byte-level\n"
     "strings (str or UTF-8 bytes); with pairs, both sides of each 'a b' item (with tuples, as\n"
     "one tuple).  ValueError(msg, index) names the\n"
     "first item that is not byte level."},
    {"gguf_strings", (PyCFunction)gguf_strings, METH_VARARGS,
     "gguf_strings(data, pos, n, count_size) -> (list[bytes], end): up to n length-prefixed\n"
     "strings of a GGUF array from data[pos], as many as lie whole in data."},
    {NULL, NULL, 0, NULL},
};

int
load_strings_init(PyObject *module)
{
    fill_byte_table();
    return PyModule_AddFunctions(module, load_strings_functions);
}
