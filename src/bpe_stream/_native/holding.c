/* The tokens that hold one of a few given tokens: the set a vocabulary's build decides
again by BPE's merge loop when its first pass left some tokens waiting (bpe/vocabulary.py
_settle; the pure-Python twin is bpe/tables.tokens_holding).

tokens_holding(blob, offsets, inner) -> list[int]: offsets is (n + 1) native uint32
(token r is blob[offsets[r]:offsets[r + 1]]), inner a list of ranks; the result holds,
in increasing order, every rank r whose bytes contain the bytes of some inner token
(the inner tokens themselves included).

Invariant: a byte trie over the inner tokens' bytes (children found through one
open-addressing table keyed by (node, byte)) is walked from every start position of
every token until it has no child or ends an inner token.  Complexity: O(total token
bytes x the longest inner token) at worst, about the total token bytes in practice;
memory linear in the inner tokens' bytes.
*/
#include "core.h"

typedef struct {
    uint64_t *keys;   /* (node << 8 | byte) + 1, 0 = empty */
    uint32_t *child;
    uint64_t mask;
} Edges;

static inline uint64_t
edge_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return key;
}

static inline uint32_t
edge_find(const Edges *e, uint32_t node, unsigned char b)
{
    uint64_t key = (((uint64_t)node << 8) | b) + 1;
    for (uint64_t i = edge_hash(key) & e->mask;; i = (i + 1) & e->mask) {
        if (e->keys[i] == key)
            return e->child[i];
        if (e->keys[i] == 0)
            return 0;
    }
}

static PyObject *
tokens_holding(PyObject *module, PyObject *args)
{
    Py_buffer blob, offs;
    PyObject *inner;
    if (!PyArg_ParseTuple(args, "y*y*O!", &blob, &offs, &PyList_Type, &inner))
        return NULL;
    PyObject *result = NULL;
    uint8_t *ends = NULL;
    Edges e = {NULL, NULL, 0};
    Py_ssize_t n = offs.len / 4 - 1;
    const uint32_t *off = offs.buf;
    const unsigned char *data = blob.buf;
    if (n < 0 || offs.len % 4) {
        PyErr_SetString(PyExc_ValueError, "tokens_holding: offsets must be n + 1 uint32");
        goto done;
    }
    for (Py_ssize_t r = 0; r < n; r++)
        if (off[r] > off[r + 1]) {
            PyErr_SetString(PyExc_ValueError, "tokens_holding: offsets decrease");
            goto done;
        }
    if ((Py_ssize_t)off[n] > blob.len || off[0] != 0) {
        PyErr_SetString(PyExc_ValueError, "tokens_holding: offsets run past the blob");
        goto done;
    }
    Py_ssize_t m = PyList_GET_SIZE(inner), total = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t r = PyLong_AsSsize_t(PyList_GET_ITEM(inner, i));
        if (r == -1 && PyErr_Occurred())
            goto done;
        if (r < 0 || r >= n) {
            PyErr_SetString(PyExc_ValueError, "tokens_holding: an inner rank out of range");
            goto done;
        }
        total += off[r + 1] - off[r];
    }
    /* nodes: the root and at most one per inner byte; the edge table at most half full */
    uint64_t size = 16;
    while (size < 2 * (uint64_t)total + 2)
        size <<= 1;
    e.mask = size - 1;
    e.keys = PyMem_Calloc(size, sizeof(uint64_t));
    e.child = PyMem_Malloc(size * sizeof(uint32_t));
    ends = PyMem_Calloc(total + 1, 1);
    if (e.keys == NULL || e.child == NULL || ends == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    uint32_t n_nodes = 1;
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t r = PyLong_AsSsize_t(PyList_GET_ITEM(inner, i));
        uint32_t v = 0;
        for (uint32_t k = off[r]; k < off[r + 1]; k++) {
            uint64_t key = (((uint64_t)v << 8) | data[k]) + 1;
            uint64_t s = edge_hash(key) & e.mask;
            while (e.keys[s] != 0 && e.keys[s] != key)
                s = (s + 1) & e.mask;
            if (e.keys[s] == 0) {
                e.keys[s] = key;
                e.child[s] = n_nodes++;
            }
            v = e.child[s];
        }
        ends[v] = 1;  /* the root never ends one: tokens are not empty (an empty one holds nothing) */
    }
    ends[0] = 0;
    result = PyList_New(0);
    if (result == NULL)
        goto done;
    for (Py_ssize_t r = 0; r < n; r++) {
        const unsigned char *t = data + off[r];
        Py_ssize_t len = off[r + 1] - off[r];
        int found = 0;
        for (Py_ssize_t p = 0; p < len && !found; p++) {
            uint32_t v = 0;
            for (Py_ssize_t q = p; q < len; q++) {
                v = edge_find(&e, v, t[q]);
                if (v == 0)
                    break;
                if (ends[v]) {
                    found = 1;
                    break;
                }
            }
        }
        if (found) {
            PyObject *x = PyLong_FromSsize_t(r);
            if (x == NULL || PyList_Append(result, x) < 0) {
                Py_XDECREF(x);
                Py_CLEAR(result);
                goto done;
            }
            Py_DECREF(x);
        }
    }
done:
    PyMem_Free(e.keys);
    PyMem_Free(e.child);
    PyMem_Free(ends);
    PyBuffer_Release(&blob);
    PyBuffer_Release(&offs);
    return result;
}

static PyMethodDef holding_functions[] = {
    {"tokens_holding", (PyCFunction)tokens_holding, METH_VARARGS,
     "tokens_holding(blob, offsets, inner) -> list[int]: the ranks (increasing) of the tokens\n"
     "whose bytes hold one of the tokens ranked in inner (those included); offsets is\n"
     "(n + 1) native uint32."},
    {NULL, NULL, 0, NULL},
};

int
holding_init(PyObject *module)
{
    return PyModule_AddFunctions(module, holding_functions);
}
