/* The exact chunker's cuts that the prefix sums alone decide, many chunks per call.

exact_cuts(text, bounds, cum, start, min_end, max_tokens, overlap, byte_horizon,
           final, lookahead) -> (cuts, start, min_end)

``bounds`` / ``cum`` are a TextCounts of ``text`` (piece starts plus the end, and the
prefix counts at them; a cl100k/o200k pattern).  From the chunk start ``start`` this
walks chunk after chunk, as Chunker._run does with boundaries="exact", while each
chunk is one of the cases below, and returns the chunks found as a flat list
``[s0, e0, count0, s1, e1, count1, ...]`` with the start and min_end of the next
chunk (the caller's state); it stops, leaving the rest to the Python path, at the first
chunk that is not such a case.  Every answer is the one the Python path gives (the
tests compare them); the cases are the ones that path reaches on ordinary text, where
its per-chunk work is a few bisects and class tests, but costs 5-20 us of Python.

The cases (rule numbers are those of chunk/counts.py; M = max_tokens; ``s`` must be a
piece boundary ``bounds[gi]``):

* The cut.  ``k`` is the first boundary with ``cum[k] - cum[gi] > M``, ``b_o =
  bounds[k]`` and ``a = bounds[k - 1]``.  If ``b_o`` and ``a`` are hard (rule 5:
  every end from ``b_o`` on costs at least ``C(b_o) > M``, and ``count(T[s:j]) =
  C(a) + count(T[a:j])`` for ``j > a``), ``s < a`` and either ``C(a) == M`` or the
  piece ``T[a:b_o]`` is one character, then no end inside the piece fits and the cut is
  ``a`` with count ``C(a)``.  ``b_o`` must lie within ``byte_horizon`` characters of
  ``s`` (the Python path's cap on ends) and, unless ``final``, ``a + lookahead``
  within the text (the streaming rule).  When no boundary is over the budget and
  ``final``, the chunk is the rest of the text.
* The overlap start after a cut ``e = a``.  ``g = bounds[i]``, the first boundary with
  ``cum[ka] - cum[i] <= overlap``: if ``g`` is hard, ``s < g`` and that count is
  exactly ``overlap``, then every start ``p < g`` costs ``count(T[p:g]) +
  overlap > overlap`` (rule 5), so ``g`` is the earliest start that fits.

Complexity: O(log n) per chunk (two bisects over the lists, a few class lookups).
*/
#include "core.h"
#include "unicode_classes.h"

static inline Py_ssize_t
item_at(PyObject *list, Py_ssize_t i)
{
    return PyLong_AsSsize_t(PyList_GET_ITEM(list, i));
}

/* The first index in [lo, hi) whose item is > x (bisect_right); -1 on an error. */
static Py_ssize_t
bisect_right_list(PyObject *list, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        Py_ssize_t v = item_at(list, mid);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (x < v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The first index in [lo, hi) whose item is >= x (bisect_left); -1 on an error. */
static Py_ssize_t
bisect_left_list(PyObject *list, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        Py_ssize_t v = item_at(list, mid);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Rule 5 of chunk/counts.py at h (0 < h < n), the class test of its _HARD_AT:
   a letter then no letter, mark or apostrophe; or a non-whitespace character then
   whitespace other than \r, \n; or \r / \n then neither whitespace nor "/". */
static inline int
hard_at(int kind, const void *data, Py_ssize_t h)
{
    Py_UCS4 c0 = PyUnicode_READ(kind, data, h - 1);
    Py_UCS4 c1 = PyUnicode_READ(kind, data, h);
    uint8_t f0 = presplit_flags(c0), f1 = presplit_flags(c1);
    if ((f0 & PF_L) && !(f1 & (PF_L | PF_M)) && c1 != '\'')
        return 1;
    if (!(f0 & PF_WS) && (f1 & PF_WS) && c1 != '\r' && c1 != '\n')
        return 1;
    if ((c0 == '\r' || c0 == '\n') && !(f1 & PF_WS) && c1 != '/')
        return 1;
    return 0;
}

static PyObject *
exact_cuts(PyObject *module, PyObject *args)
{
    PyObject *text, *bounds, *cum;
    Py_ssize_t s, min_end, max_tokens, overlap, horizon, lookahead;
    int final;
    if (!PyArg_ParseTuple(args, "UO!O!nnnnnpn", &text, &PyList_Type, &bounds, &PyList_Type, &cum,
                          &s, &min_end, &max_tokens, &overlap, &horizon, &final, &lookahead))
        return NULL;
    Py_ssize_t nb = PyList_GET_SIZE(bounds);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (nb < 1 || PyList_GET_SIZE(cum) != nb) {
        PyErr_SetString(PyExc_ValueError, "exact_cuts: bounds and cum must have the same (non-zero) length");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t gi = 0;
    while (s < n) {
        gi = bisect_left_list(bounds, s, gi, nb);
        if (gi < 0)
            goto error;
        if (gi >= nb || item_at(bounds, gi) != s)
            break;  /* the chunk starts inside a piece */
        Py_ssize_t base = item_at(cum, gi);
        Py_ssize_t k = bisect_right_list(cum, base + max_tokens, gi, nb);
        if (k < 0)
            goto error;
        Py_ssize_t e, count;
        Py_ssize_t ka = -1;
        if (k == nb) {
            /* the rest of the text fits */
            if (!final)
                break;
            e = n;
            count = item_at(cum, nb - 1) - base;
        } else {
            Py_ssize_t b_o = item_at(bounds, k);
            if (b_o >= n || b_o - s > horizon || !hard_at(kind, data, b_o))
                break;
            ka = k - 1;
            Py_ssize_t a = item_at(bounds, ka);
            if (a <= s || !hard_at(kind, data, a))
                break;
            count = item_at(cum, ka) - base;
            if (count != max_tokens && b_o - a != 1)
                break;  /* an end inside the piece may fit: the Python path counts them */
            e = a;
            if (!final && e + lookahead > n)
                break;
        }
        if (e <= min_end)
            break;
        PyObject *t;
        Py_ssize_t triple[3] = {s, e, count};
        for (int q = 0; q < 3; q++) {
            t = PyLong_FromSsize_t(triple[q]);
            if (t == NULL || PyList_Append(out, t) < 0) {
                Py_XDECREF(t);
                goto error;
            }
            Py_DECREF(t);
        }
        min_end = e;
        if (e >= n) {
            s = e;
            break;
        }
        if (overlap == 0) {
            s = e;
            continue;
        }
        /* the overlap start: the first boundary whose suffix up to e fits */
        Py_ssize_t c_e = item_at(cum, ka);
        Py_ssize_t i = bisect_left_list(cum, c_e - overlap, gi, ka + 1);
        if (i < 0)
            goto error;
        Py_ssize_t g = item_at(bounds, i);
        if (g > s && c_e - item_at(cum, i) == overlap && hard_at(kind, data, g)) {
            s = g;
            gi = i;
            continue;
        }
        /* the caller finds this overlap start: report the chunk's start, it moves on */
        s = -1;
        break;
    }
    if (PyErr_Occurred())
        goto error;
    return Py_BuildValue("(Nnn)", out, s, min_end);
error:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef chunk_cuts_functions[] = {
    {"exact_cuts", (PyCFunction)exact_cuts, METH_VARARGS,
     "exact_cuts(text, bounds, cum, start, min_end, max_tokens, overlap, byte_horizon, final,\n"
     "lookahead) -> (cuts, start, min_end): the exact chunker's chunks that the prefix sums\n"
     "decide, as a flat list [start, end, count, ...], and the state after them (start -1:\n"
     "the overlap start after the last chunk is left to the caller)."},
    {NULL, NULL, 0, NULL},
};

int
chunk_cuts_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_cuts_functions);
}
