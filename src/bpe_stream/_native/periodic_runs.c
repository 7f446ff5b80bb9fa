/* The periodic runs of a byte string, as the raw interval index finds them (the
reference is bpe/intervals.py: _PERIODIC.finditer, the pattern (.{1,4}?)\1{15,} with
re.S, kept where a match is at least min_run bytes long).

Invariant: periodic_runs(data, min_run) is the list of (start, end, unit length) of the
regex's matches, leftmost first and non-overlapping, of length >= min_run.  At a start
s the lazy unit tries the lengths 1..4 in order and takes the first one that repeats at
least 16 times in all (the unit and fifteen more); the greedy repetition then takes
every further whole repeat, and the search goes on at the match's end, as finditer does
(a match is never empty).  Complexity: O(n) byte comparisons with a small constant (at
most 64 per start that fails, usually one or two); the regex took about 2 MB/s, the
largest part of building a raw index over a long piece.
*/
#include "core.h"

#define REPEATS 16 /* the unit and \1{15,} */

static PyObject *
periodic_runs(PyObject *module, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t min_run;
    if (!PyArg_ParseTuple(args, "y*n", &view, &min_run))
        return NULL;
    const unsigned char *d = view.buf;
    Py_ssize_t n = view.len;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        goto done;
    Py_ssize_t s = 0;
    while (s + REPEATS <= n) {
        Py_ssize_t unit = 0;
        for (Py_ssize_t u = 1; u <= 4 && s + REPEATS * u <= n; u++) {
            Py_ssize_t k = u;
            while (k < REPEATS * u && d[s + k] == d[s + k - u])
                k++;
            if (k == REPEATS * u) {
                unit = u;
                break;
            }
        }
        if (unit == 0) {
            s++;
            continue;
        }
        /* whole repeats only: the run of d[k] == d[k - unit] from s + unit, cut to a
           multiple of the unit */
        Py_ssize_t k = s + REPEATS * unit;
        while (k < n && d[k] == d[k - unit])
            k++;
        Py_ssize_t end = s + ((k - s) / unit) * unit;
        if (end - s >= min_run) {
            PyObject *t = Py_BuildValue("(nnn)", s, end, unit);
            if (t == NULL || PyList_Append(out, t) < 0) {
                Py_XDECREF(t);
                Py_CLEAR(out);
                goto done;
            }
            Py_DECREF(t);
        }
        s = end;
    }
done:
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef periodic_runs_functions[] = {
    {"periodic_runs", periodic_runs, METH_VARARGS,
     "periodic_runs(data, min_run) -> list of (start, end, unit): the matches of\n"
     "(.{1,4}?)\\1{15,} (re.S) at least min_run bytes long."},
    {NULL, NULL, 0, NULL},
};

int
periodic_runs_init(PyObject *module)
{
    return PyModule_AddFunctions(module, periodic_runs_functions);
}
