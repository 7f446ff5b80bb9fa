/* The quick check that finds where a text may change under Unicode normalization
(pretokenize/normalize.py's normalize, which proves the sets right): the characters that
are unstable on their own (the form changes them, or they may compose with what precedes
them whatever that is), those that combine backward right after one whose decomposition
ends with a character that combines backward (the pair may reorder), and the second
characters of compositions right after a first one (the pair may compose); and around
each, the run the caller normalizes on its own.

Invariant: normalization_runs(text, table) returns [s0, e0, s1, e1, ...]: for the first
index i >= at (at = 0, then the previous run's end) with ALONE, or i > at and either
JOINS after TAIL or SECOND after FIRST (the flags of text[i], then of text[i - 1]), the
run s = the last index in [at, i] whose character is not JOINS (at if none), e = the
first index after i whose character is not JOINS (len(text) if none).  table holds each
code point's flags in two stages: table[c >> 8] is a block number b (0x1100 bytes), the
flags are table[0x1100 + 256 * b + (c & 255)].  The pure-Python twin is bpe/native.py's
_normalization_runs_py.  Complexity: O(len(text)), one table look-up per character (the
blocks of real text stay in the L1 cache); one Python int per run end (runs are rare:
about 340 in 1 MB of the multilingual corpus).
*/
#include "core.h"

enum { NC_ALONE = 1, NC_JOINS = 2, NC_TAIL = 4, NC_SECOND = 8, NC_FIRST = 16 };
#define NC_BLOCKS 0x1100
_Static_assert(NC_TAIL == NC_JOINS << 1 && NC_FIRST == NC_SECOND << 1, "NC_HIT's shift");

static int
append_index(PyObject *list, Py_ssize_t i)
{
    PyObject *v = PyLong_FromSsize_t(i);
    int r = v == NULL ? -1 : PyList_Append(list, v);
    Py_XDECREF(v);
    return r;
}

/* Whether the character with flags f, after one with flags prev, starts a run: TAIL and
   FIRST are JOINS and SECOND one bit up, so one shift turns prev's into what they need. */
#define NC_HIT(f, prev) ((f) & (NC_ALONE | (((prev) >> 1) & (NC_JOINS | NC_SECOND))))

/* The first index in [i, n) of a text of code unit type T whose character starts a run
   (prev: the flags of the character before i, 0 at a run's end), or n. */
#define NC_SCAN(T)                                                                 \
    static Py_ssize_t nc_scan_##T(const T *s, Py_ssize_t i, Py_ssize_t n, const uint8_t *table, \
                                  uint8_t prev)                                    \
    {                                                                              \
        for (; i < n; i++) {                                                       \
            Py_UCS4 c = s[i];                                                      \
            uint8_t f = table[NC_BLOCKS + 256 * (size_t)table[c >> 8] + (c & 255)]; \
            if (NC_HIT(f, prev))                                                   \
                return i;                                                          \
            prev = f;                                                              \
        }                                                                          \
        return n;                                                                  \
    }
NC_SCAN(Py_UCS1)
NC_SCAN(Py_UCS2)
NC_SCAN(Py_UCS4)

static inline uint8_t
nc_flags(const uint8_t *table, Py_UCS4 c)
{
    return table[NC_BLOCKS + 256 * (size_t)table[c >> 8] + (c & 255)];
}

static PyObject *
normalization_runs(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *text;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "Uy*", &text, &buf))
        return NULL;
    const uint8_t *table = buf.buf;
    /* every block number must name a block inside the table */
    int bad = buf.len < NC_BLOCKS;
    for (Py_ssize_t b = 0; !bad && b < NC_BLOCKS; b++)
        bad = NC_BLOCKS + 256 * ((Py_ssize_t)table[b] + 1) > buf.len;
    if (bad) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "normalization_runs: a malformed table");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), at = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    while (out != NULL && at < n) {
        Py_ssize_t i = kind == PyUnicode_1BYTE_KIND   ? nc_scan_Py_UCS1(data, at, n, table, 0)
                       : kind == PyUnicode_2BYTE_KIND ? nc_scan_Py_UCS2(data, at, n, table, 0)
                                                      : nc_scan_Py_UCS4(data, at, n, table, 0);
        if (i >= n)
            break;
        Py_ssize_t s = i, e = i + 1;
        while (s > at && (nc_flags(table, PyUnicode_READ(kind, data, s)) & NC_JOINS))
            s--;
        while (e < n && (nc_flags(table, PyUnicode_READ(kind, data, e)) & NC_JOINS))
            e++;
        if (append_index(out, s) < 0 || append_index(out, e) < 0)
            Py_CLEAR(out);
        at = e; /* a boundary: the pair tests start afresh */
    }
    PyBuffer_Release(&buf);
    return out;
}

static PyMethodDef normalization_check_functions[] = {
    {"normalization_runs", (PyCFunction)normalization_runs, METH_VARARGS,
     "normalization_runs(text, table) -> list: [start, end, ...] of the runs of text that may\n"
     "change under normalization (table: the quick check's flags; see the file's comment)."},
    {NULL, NULL, 0, NULL},
};

int
normalization_check_init(PyObject *module)
{
    return PyModule_AddFunctions(module, normalization_check_functions);
}
