/* The backtracking encoder, compiled (the Python reference is bpe/backtracking.py).

Invariant: out[0:k] is always BPE's encoding of data[0:pos] (every adjacent pair
passes the pair test).  At each position the longest token starting there (a walk
down the forward trie) is tried, then its shorter prefixes (next_prefix); the first
one that is a valid pair with the previous token and does not end at a dead
position is pushed.  If none fits, pos is marked dead in a bitfield (no valid
encoding of a longer prefix passes through it: it is never tried again) and the
last token is popped, its shorter prefixes tried next.

Complexity: each position is marked dead at most once, so there are at most n pops;
each push or pop tries at most max_token_len candidates (about one on real text),
and each trie walk is at most max_token_len steps: O(n * max_token_len) worst case,
linear in practice.  Memory: 4 bytes per input byte for the token stack, n bits for
the dead positions (allocated at the first dead end).  Runs without the GIL.
*/
#include "core.h"

#include <stdlib.h>

#define STACK_TOKENS 512

Py_ssize_t
bt_encode(const Core *c, const unsigned char *data, Py_ssize_t n, int32_t *out)
{
    uint64_t *dead = NULL;
    Py_ssize_t k = 0, pos = 0;
    int32_t last = -1;
    int32_t t = longest_at(c, data, 0, n);
    for (;;) {
        while (t >= 0) {
            Py_ssize_t end = pos + tok_len(c, t);
            if ((dead == NULL || !((dead[end >> 6] >> (end & 63)) & 1)) && (last < 0 || valid_pair(c, last, t)))
                break;
            t = c->next_prefix[t];
        }
        if (t >= 0) {
            out[k++] = t;
            pos += tok_len(c, t);
            if (pos == n)
                break;
            last = t;
            t = longest_at(c, data, pos, n);
            continue;
        }
        /* Dead end: nothing fits at pos. */
        if (dead == NULL) {
            dead = calloc((size_t)(n >> 6) + 1, sizeof(uint64_t));
            if (dead == NULL)
                return -1;
        }
        dead[pos >> 6] |= 1ULL << (pos & 63);
        if (k == 0) { /* cannot happen when every byte is a token */
            free(dead);
            return -3;
        }
        t = out[--k];
        pos -= tok_len(c, t);
        last = k ? out[k - 1] : -1;
        t = c->next_prefix[t];
    }
    free(dead);
    return k;
}

Py_ssize_t
bt_count(const Core *c, const unsigned char *data, Py_ssize_t n)
{
    int32_t small[STACK_TOKENS];
    int32_t *out = n <= STACK_TOKENS ? small : malloc((size_t)n * sizeof(int32_t));
    if (out == NULL)
        return -1;
    Py_ssize_t k = bt_encode(c, data, n, out);
    if (out != small)
        free(out);
    return k;
}

/* ------------------------------------------------------------- Python API */

/* Bytes of a bytes-like argument; every byte checked against the vocabulary (the
   ValueError names the first one that is no token). */
static int
raw_input(Core *self, PyObject *arg, Py_buffer *view)
{
    if (PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected bytes, got str (encode it, or use an Encoding for text)");
        return -1;
    }
    if (PyObject_GetBuffer(arg, view, PyBUF_SIMPLE) < 0)
        return -1;
    Py_ssize_t bad = first_missing_byte(self, view->buf, view->len);
    if (bad >= 0) {
        missing_byte_error(view->buf, bad);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *
bt_failed(Py_ssize_t k)
{
    if (k == -3)
        PyErr_SetString(PyExc_RuntimeError, "backtracking found no encoding (damaged tables?)");
    else
        PyErr_NoMemory();
    return NULL;
}

static PyObject *
Core_encode_bytes(Core *self, PyObject *arg)
{
    Py_buffer view;
    if (raw_input(self, arg, &view) < 0)
        return NULL;
    Py_ssize_t n = view.len, k = 0;
    int32_t *out = NULL;
    if (n > 0) {
        out = PyMem_RawMalloc((size_t)n * sizeof(int32_t));
        if (out == NULL) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        Py_BEGIN_ALLOW_THREADS
        k = bt_encode(self, view.buf, n, out);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    if (k < 0) {
        PyMem_RawFree(out);
        return bt_failed(k);
    }
    PyObject *list = int_list(out, k);
    PyMem_RawFree(out);
    return list;
}

static PyObject *
Core_count_bytes(Core *self, PyObject *arg)
{
    Py_buffer view;
    if (raw_input(self, arg, &view) < 0)
        return NULL;
    Py_ssize_t k = 0;
    if (view.len > 0) {
        if (view.len > 4096) {
            Py_BEGIN_ALLOW_THREADS
            k = bt_count(self, view.buf, view.len);
            Py_END_ALLOW_THREADS
        } else {
            k = bt_count(self, view.buf, view.len);
        }
    }
    PyBuffer_Release(&view);
    if (k < 0)
        return bt_failed(k);
    return PyLong_FromSsize_t(k);
}

PyMethodDef backtracking_methods[] = {
    {"encode_bytes", (PyCFunction)Core_encode_bytes, METH_O,
     "encode_bytes(data: bytes) -> list[int]\n\n"
     "BPE of data without pre-splitting (the backtracking encoder); ValueError names\n"
     "the first byte that is no token."},
    {"count_bytes", (PyCFunction)Core_count_bytes, METH_O,
     "count_bytes(data: bytes) -> int: len(encode_bytes(data))."},
    {NULL, NULL, 0, NULL},
};
