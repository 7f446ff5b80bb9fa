/* Searches over arrays and text: bisect_right over a buffer of machine integers (the
text interval index keeps its piece starts in an array('i') or array('q')), and the
first character of a text in a set of code points given as a bitmap (the pre-split's
check for characters the installed regex classes differently).

Invariant: bisect_right(a, x) is bisect.bisect_right(a, x) for a sorted array of 4- or
8-byte signed integers: the number of items <= x.  Complexity: O(log n) integer
comparisons; no Python object is made per probe (bisect on an array makes one per
probe, about 25 ns each: a fifth of an interval query).
*/
#include "core.h"

static PyObject *
bisect_right_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "bisect_right(array, x) takes two arguments");
        return NULL;
    }
    long long x = PyLong_AsLongLong(args[1]);
    if (x == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_ssize_t lo = 0, hi;
    const char *f = view.format ? view.format : "B";
    if (view.itemsize == 4 && (f[0] == 'i' || f[0] == 'l')) {
        const int32_t *a = view.buf;
        hi = view.len / 4;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) >> 1;
            if (x < a[mid])
                hi = mid;
            else
                lo = mid + 1;
        }
    } else if (view.itemsize == 8 && (f[0] == 'q' || f[0] == 'l')) {
        const int64_t *a = view.buf;
        hi = view.len / 8;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) >> 1;
            if (x < a[mid])
                hi = mid;
            else
                lo = mid + 1;
        }
    } else {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "bisect_right needs an array of 4- or 8-byte signed integers");
        return NULL;
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(lo);
}

/* first_in_bitmap(text, start, end, bitmap) -> int: the first index i in [start, end)
   whose code point has its bit set in bitmap (0x110000 bits), or -1.  O(end - start),
   one bit test per character. */
static PyObject *
first_in_bitmap(PyObject *module, PyObject *args)
{
    PyObject *text;
    Py_ssize_t start, end;
    Py_buffer bits;
    if (!PyArg_ParseTuple(args, "Unny*", &text, &start, &end, &bits))
        return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text), found = -1;
    if (start < 0 || end > len || start > end || bits.len < 0x110000 / 8) {
        PyBuffer_Release(&bits);
        PyErr_SetString(PyExc_ValueError, "first_in_bitmap: range out of bounds or bitmap too short");
        return NULL;
    }
    const unsigned char *b = bits.buf;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if ((b[c >> 3] >> (c & 7)) & 1) {
            found = i;
            break;
        }
    }
    PyBuffer_Release(&bits);
    return PyLong_FromSsize_t(found);
}

static PyMethodDef search_functions[] = {
    {"first_in_bitmap", (PyCFunction)first_in_bitmap, METH_VARARGS,
     "first_in_bitmap(text, start, end, bitmap) -> int: the first index in [start, end)\n"
     "whose code point's bit is set in bitmap (0x110000 bits), or -1."},
    {"bisect_right", (PyCFunction)(void (*)(void))bisect_right_array, METH_FASTCALL,
     "bisect_right(array, x) -> int: bisect.bisect_right over an array('i') or array('q')."},
    {NULL, NULL, 0, NULL},
};

int
search_init(PyObject *module)
{
    return PyModule_AddFunctions(module, search_functions);
}
