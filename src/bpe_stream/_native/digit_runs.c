/* The exact chunker's chunks inside runs of ASCII digits, by rule (the Python reference
is chunk/digit_runs.py, which argues the rule; docs/design/chunker.md, "Digit runs").

digit_cuts(text, start, min_end, max_tokens, overlap, final, lookahead)
    -> (cuts, next_start, min_end, need_more)
digit_overlap_start(text, s, e, overlap) -> int (-1: not decided by the rule)

Invariant.  Valid for the cl100k and o200k members whose vocabulary holds every string of
one to three ASCII digits as one token (the caller checks: digit_runs.digits_one_token):
a string of n ASCII digits then counts ceil(n / 3), so the chunk from s inside a digit run
ends at s + 3 * max_tokens when those characters are all digits, and the overlap start
after [s, e) is e - 3 * overlap when those characters are digits and it lies after s.
digit_cuts scans the run from start once, then makes each chunk in O(1): O(run) per call,
no allocation beyond the result list.  It stops where the rule stops deciding (the run
ends inside the next chunk, or that chunk would not pass min_end) and leaves the chunk
there to the Python steps; need_more when the next chunk needs text not yet held (not
final: the run reaches the held text's end, or the streaming look-ahead).  The tests
compare both functions with the Python twin and the chunker with the pure-Python steps
(tests/test_digit_runs.py).
*/
#include "core.h"

#define IS_ASCII_DIGIT(c) ((c) >= '0' && (c) <= '9')

/* The end of the run of ASCII digits from i (i itself if text[i] is none), up to n. */
static Py_ssize_t
digit_run_end(int kind, const void *data, Py_ssize_t i, Py_ssize_t n)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = data;
        while (i < n && IS_ASCII_DIGIT(d[i]))
            i++;
        return i;
    }
    while (i < n && IS_ASCII_DIGIT(PyUnicode_READ(kind, data, i)))
        i++;
    return i;
}

static PyObject *
digit_cuts(PyObject *module, PyObject *args)
{
    PyObject *text;
    Py_ssize_t start, min_end, max_tokens, overlap, lookahead;
    int final;
    if (!PyArg_ParseTuple(args, "Unnnnpn", &text, &start, &min_end, &max_tokens, &overlap, &final, &lookahead))
        return NULL;
    if (max_tokens < 1 || overlap < 0 || overlap >= max_tokens || start < 0) {
        PyErr_SetString(PyExc_ValueError, "digit_cuts: needs max_tokens >= 1, 0 <= overlap < max_tokens, start >= 0");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t s = start;
    Py_ssize_t run_end = s < n ? digit_run_end(kind, data, s, n) : s;
    Py_ssize_t span = 3 * max_tokens, back = 3 * overlap;
    int need_more = 0;
    PyObject *cuts = PyList_New(0);
    if (cuts == NULL)
        return NULL;
    while (s < run_end) {
        Py_ssize_t e = s + span;
        if (e > run_end) {
            if (run_end < n)
                break;  /* the run ends inside the chunk: the steps decide it */
            if (!final) {
                need_more = 1;
                break;
            }
            if (n <= min_end)
                break;
            if (append_cut(cuts, s, n, (n - s + 2) / 3) < 0)
                goto fail;  /* the rest of the input fits */
            s = min_end = n;
            break;
        }
        if (e <= min_end)
            break;
        if (!final && e + lookahead > n) {
            need_more = 1;
            break;
        }
        if (append_cut(cuts, s, e, max_tokens) < 0)
            goto fail;
        if (e == n) {
            s = min_end = n;  /* (final) the input ends with this chunk */
            break;
        }
        min_end = e;
        s = e - back;
    }
    return Py_BuildValue("NnnO", cuts, s, min_end, need_more ? Py_True : Py_False);
fail:
    Py_DECREF(cuts);
    return NULL;
}

static PyObject *
digit_overlap_start(PyObject *module, PyObject *args)
{
    PyObject *text;
    Py_ssize_t s, e, overlap;
    if (!PyArg_ParseTuple(args, "Unnn", &text, &s, &e, &overlap))
        return NULL;
    Py_ssize_t p = e - 3 * overlap;
    if (overlap <= 0 || p <= s || s < 0 || e > PyUnicode_GET_LENGTH(text))
        return PyLong_FromSsize_t(-1);
    Py_ssize_t end = digit_run_end(PyUnicode_KIND(text), PyUnicode_DATA(text), p, e);
    return PyLong_FromSsize_t(end == e ? p : -1);
}

static PyMethodDef digit_runs_functions[] = {
    {"digit_cuts", (PyCFunction)digit_cuts, METH_VARARGS,
     "digit_cuts(text, start, min_end, max_tokens, overlap, final, lookahead)\n"
     "-> (cuts, next_start, min_end, need_more): the exact chunker's chunks inside a run of ASCII\n"
     "digits from start (flat [start, end, count, ...]), for vocabularies where every 1-3 digit\n"
     "string is one token; next_start: where the chunk after the last one starts."},
    {"digit_overlap_start", (PyCFunction)digit_overlap_start, METH_VARARGS,
     "digit_overlap_start(text, s, e, overlap) -> int: the overlap start after the chunk [s, e)\n"
     "when text[e - 3 * overlap : e] is ASCII digits and starts after s, else -1."},
    {NULL, NULL, 0, NULL},
};

int
digit_runs_init(PyObject *module)
{
    return PyModule_AddFunctions(module, digit_runs_functions);
}
