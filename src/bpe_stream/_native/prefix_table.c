/* The table pass (the last token of BPE's encoding of every prefix) and the interval
index built on it, compiled (the Python references are bpe/table.py PrefixTable and
bpe/intervals.py _table_pass / _BytesIntervals).

Invariant of the table pass: last[p] is the last token of BPE's encoding of
data[0:p] and counts[p] its number of tokens.  last[p] is the longest token t
ending at p (the reversed trie walked back from p gives them all, shortest first)
with p - len(t) == 0 or (last[p - len(t)], t) a valid pair.  Periodic shortcut:
last[p] is a function of data[p-M:p] and last[p-M:p] (M the longest token) once
p > M, so when eq > M consecutive positions repeat the ones per bytes earlier (and
the data do), last[p] = last[p - per] without a walk or a pair test (runs of one
byte: tens of invalid pairs per byte otherwise).  Complexity: O(n * M) worst case,
a few trie steps and pair tests per byte on real text.  Memory: 8 bytes per byte.

Interval index: the prefixes form a tree (parent of p is p - len(last[p])) numbered
in pre-order (tree_id, tree_end), so "p is an ancestor of j" is an O(1) test; a
query count(i, j) builds BPE's encoding of data[i:p] (greedy tokens while every pair
is valid, else the table recurrence from i) until a p that is an ancestor of j and
whose last token is the whole text's last token at p; the answer is then the tokens
so far plus depth[j] - depth[p].  The C query gives up (answers -1) after
QUERY_BOUND positions without meeting the tree; the Python index then takes over
(periodic runs, its memo).  Memory: 13 bytes per input byte (lens one byte, three
4-byte arrays), as the Python index.  Everything runs without the GIL.
*/
#include "core.h"

#include <stdlib.h>

#define QUERY_BOUND 2048

/* Fills last/counts for the positions done + 1 .. target (target <= n); returns the
   last position filled (< target only at a byte that is no token, data[result]). */
static Py_ssize_t
table_fill(const Core *c, const unsigned char *data, int32_t *last, int32_t *counts, Py_ssize_t done,
           Py_ssize_t target, Py_ssize_t *per_io, Py_ssize_t *eq_io, int32_t *cand)
{
    Py_ssize_t M = c->max_token_len, per = *per_io, eq = *eq_io;
    Py_ssize_t p;
    for (p = done + 1; p <= target; p++) {
        unsigned char b = data[p - 1];
        if (c->byte_rank[b] == NO_RANK)
            break;
        int32_t t;
        if (eq > M && p - per > M && b == data[p - 1 - per]) {
            t = last[p - per];
            last[p] = t;
            counts[p] = counts[p - tok_len(c, t)] + 1;
            eq++;
            continue;
        }
        int k = tokens_ending_at(c, data, 0, p, cand);
        t = -1;
        Py_ssize_t start = 0;
        while (k > 0) {
            t = cand[--k];
            start = p - tok_len(c, t);
            if (start == 0 || valid_pair(c, last[start], t))
                break;
            t = -1;
        }
        if (t < 0) /* cannot happen: the single byte at p - 1 always ends an encoding */
            break;
        last[p] = t;
        counts[p] = counts[start] + 1;
        if (p > per && b == data[p - 1 - per] && last[p - per] == t) {
            eq++;
        } else {
            eq = 0;
            per = tok_len(c, t);
        }
    }
    *per_io = per;
    *eq_io = eq;
    return p - 1;
}

static int32_t *
cand_buffer(const Core *c)
{
    return PyMem_RawMalloc((size_t)(c->max_token_len + 1) * sizeof(int32_t));
}

static PyObject *
Core_table_fill(Core *self, PyObject *args)
{
    Py_buffer data, last, counts;
    Py_ssize_t done, target, per, eq;
    if (!PyArg_ParseTuple(args, "y*w*w*nnnn", &data, &last, &counts, &done, &target, &per, &eq))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = data.len;
    if (done < 0 || target > n || (last.len < (n + 1) * 4) || (counts.len < (n + 1) * 4) || per < 1 ||
        eq < 0 || per > n + 1) {
        PyErr_SetString(PyExc_ValueError, "table_fill: arguments out of range (or arrays too short)");
        goto done;
    }
    if (target > done) {
        int32_t *cand = cand_buffer(self);
        if (cand == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Py_BEGIN_ALLOW_THREADS
        done = table_fill(self, data.buf, last.buf, counts.buf, done, target, &per, &eq, cand);
        Py_END_ALLOW_THREADS
        PyMem_RawFree(cand);
    }
    result = Py_BuildValue("(nnn)", done, per, eq);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&last);
    PyBuffer_Release(&counts);
    return result;
}

/* ---------------------------------------------------------- interval index */

typedef struct {
    PyObject_HEAD
    Core *core;
    PyObject *data; /* bytes */
    Py_ssize_t n;
    uint8_t *lens;  /* lens[p]: bytes of last[p] (max_token_len < 256) */
    uint16_t *lens16; /* the same when tokens are longer */
    uint32_t *depth;
    uint32_t *tree_id;
    uint32_t *tree_end;
} IntervalIndex;

static PyTypeObject IntervalIndexType;

static void
IntervalIndex_dealloc(IntervalIndex *self)
{
    Py_XDECREF(self->core);
    Py_XDECREF(self->data);
    PyMem_RawFree(self->lens);
    PyMem_RawFree(self->lens16);
    PyMem_RawFree(self->depth);
    PyMem_RawFree(self->tree_id);
    PyMem_RawFree(self->tree_end);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline Py_ssize_t
lens_at(const IntervalIndex *x, Py_ssize_t p)
{
    return x->lens ? x->lens[p] : x->lens16[p];
}

/* Builds the index over data (every byte a token); 0, or -1 out of memory. */
static int
index_build(IntervalIndex *x, const Core *c, const unsigned char *data, Py_ssize_t n)
{
    int32_t *last = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    int32_t *counts = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    int32_t *cand = cand_buffer(c);
    uint32_t *size = NULL;
    int rc = -1;
    if (!last || !counts || !cand)
        goto out;
    last[0] = counts[0] = 0;
    Py_ssize_t per = 1, eq = 0;
    if (table_fill(c, data, last, counts, 0, n, &per, &eq, cand) != n)
        goto out;
    if (c->max_token_len < 256)
        x->lens = PyMem_RawMalloc((size_t)(n + 1));
    else
        x->lens16 = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint16_t));
    x->depth = (uint32_t *)counts; /* int32 counts, reused as depth */
    counts = NULL;
    x->tree_id = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
    x->tree_end = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
    size = (uint32_t *)last; /* last is not needed once the lengths are read */
    if ((!x->lens && !x->lens16) || !x->tree_id || !x->tree_end)
        goto out;
    for (Py_ssize_t p = 0; p <= n; p++) {
        Py_ssize_t l = p ? tok_len(c, last[p]) : 0;
        if (x->lens)
            x->lens[p] = (uint8_t)l;
        else
            x->lens16[p] = (uint16_t)l;
    }
    last = NULL;
    for (Py_ssize_t p = 0; p <= n; p++)
        size[p] = 1;
    for (Py_ssize_t p = n; p > 0; p--)
        size[p - lens_at(x, p)] += size[p];
    /* tree_end is used as "next free id among the children of p" first */
    uint32_t *nxt = x->tree_end;
    x->tree_id[0] = 0;
    nxt[0] = 1;
    for (Py_ssize_t p = 1; p <= n; p++) {
        Py_ssize_t parent = p - lens_at(x, p);
        uint32_t tid = nxt[parent];
        x->tree_id[p] = tid;
        nxt[parent] = tid + size[p];
        nxt[p] = tid + 1;
    }
    for (Py_ssize_t p = 0; p <= n; p++)
        x->tree_end[p] = x->tree_id[p] + size[p];
    rc = 0;
out:
    PyMem_RawFree(last ? last : NULL);
    if (last == NULL)
        PyMem_RawFree(size);
    PyMem_RawFree(counts);
    PyMem_RawFree(cand);
    return rc;
}

static PyObject *
Core_interval_index(Core *self, PyObject *arg)
{
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "interval_index expects bytes");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(arg);
    Py_ssize_t n = PyBytes_GET_SIZE(arg);
    Py_ssize_t bad = first_missing_byte(self, data, n);
    if (bad >= 0)
        return missing_byte_error(data, bad);
    if (n >= (Py_ssize_t)UINT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "interval_index: input too long");
        return NULL;
    }
    IntervalIndex *x = PyObject_New(IntervalIndex, &IntervalIndexType);
    if (x == NULL)
        return NULL;
    x->core = self;
    Py_INCREF(self);
    x->data = arg;
    Py_INCREF(arg);
    x->n = n;
    x->lens = NULL;
    x->lens16 = NULL;
    x->depth = x->tree_id = x->tree_end = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = index_build(x, self, data, n);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        Py_DECREF(x);
        return PyErr_NoMemory();
    }
    return (PyObject *)x;
}

/* count(i, j) by the greedy tokens, then the table recurrence from i; -1 if neither
   meets the whole text's tree within QUERY_BOUND positions. */
static Py_ssize_t
index_count(const IntervalIndex *x, Py_ssize_t i, Py_ssize_t j, int32_t *cand, int32_t *last, int32_t *cnt)
{
    const Core *c = x->core;
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(x->data);
    if (i == j)
        return 0;
    uint32_t leaf = x->tree_id[j];
    Py_ssize_t hi = j - i <= 256 ? j : i + 256;
    Py_ssize_t pos = i, count = 0;
    int32_t prev = -1;
    while (pos < hi) {
        int32_t t = longest_at(c, data, pos, hi);
        if (prev >= 0 && !valid_pair(c, prev, t))
            break;
        count++;
        Py_ssize_t p = pos + tok_len(c, t);
        if (p == j)
            return count;
        if (lens_at(x, p) == tok_len(c, t) && x->tree_id[p] <= leaf && leaf < x->tree_end[p])
            return count + x->depth[j] - x->depth[p];
        prev = t;
        pos = p;
    }
    Py_ssize_t stop = j - i <= QUERY_BOUND ? j : i + QUERY_BOUND;
    last[0] = -1;
    cnt[0] = 0;
    for (Py_ssize_t p = i + 1; p <= stop; p++) {
        int k = tokens_ending_at(c, data, i, p, cand);
        int32_t t = -1;
        Py_ssize_t start = i;
        while (k > 0) {
            t = cand[--k];
            start = p - tok_len(c, t);
            if (start == i || valid_pair(c, last[start - i], t))
                break;
            t = -1;
        }
        if (t < 0)
            return -1; /* cannot happen */
        last[p - i] = t;
        Py_ssize_t cc = cnt[start - i] + 1;
        cnt[p - i] = (int32_t)cc;
        if (p == j)
            return cc;
        if (lens_at(x, p) == tok_len(c, t) && x->tree_id[p] <= leaf && leaf < x->tree_end[p])
            return cc + x->depth[j] - x->depth[p];
    }
    return -1;
}

static PyObject *
IntervalIndex_count(IntervalIndex *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "count(i, j) takes two arguments");
        return NULL;
    }
    Py_ssize_t i = PyLong_AsSsize_t(args[0]), j = PyLong_AsSsize_t(args[1]);
    if ((i == -1 || j == -1) && PyErr_Occurred())
        return NULL;
    if (i < 0 || j > self->n || i > j) {
        PyErr_Format(PyExc_IndexError, "range %zd..%zd out of 0..%zd", i, j, self->n);
        return NULL;
    }
    int32_t cand[256];
    int32_t small_last[257], small_cnt[257];
    int32_t *candp = cand, *last = small_last, *cnt = small_cnt;
    Py_ssize_t span = (j - i < QUERY_BOUND ? j - i : QUERY_BOUND) + 1;
    if (self->core->max_token_len > 255)
        candp = PyMem_RawMalloc((size_t)(self->core->max_token_len + 1) * sizeof(int32_t));
    if (span > 257) {
        last = PyMem_RawMalloc((size_t)span * sizeof(int32_t));
        cnt = PyMem_RawMalloc((size_t)span * sizeof(int32_t));
    }
    Py_ssize_t r = -2;
    if (candp && last && cnt) {
        if (span > 257) {
            Py_BEGIN_ALLOW_THREADS
            r = index_count(self, i, j, candp, last, cnt);
            Py_END_ALLOW_THREADS
        } else {
            r = index_count(self, i, j, candp, last, cnt);
        }
    }
    if (candp != cand)
        PyMem_RawFree(candp);
    if (last != small_last) {
        PyMem_RawFree(last);
        PyMem_RawFree(cnt);
    }
    if (r == -2)
        return PyErr_NoMemory();
    return PyLong_FromSsize_t(r);
}

static PyObject *
IntervalIndex_arrays(IntervalIndex *self, PyObject *unused)
{
    Py_ssize_t n1 = self->n + 1;
    if (self->lens)
        return Py_BuildValue("(y#y#y#y#)", (const char *)self->lens, n1, (const char *)self->depth, n1 * 4,
                             (const char *)self->tree_id, n1 * 4, (const char *)self->tree_end, n1 * 4);
    return Py_BuildValue("(y#y#y#y#)", (const char *)self->lens16, n1 * 2, (const char *)self->depth, n1 * 4,
                         (const char *)self->tree_id, n1 * 4, (const char *)self->tree_end, n1 * 4);
}

static PyObject *
IntervalIndex_memory_bytes(IntervalIndex *self, PyObject *unused)
{
    Py_ssize_t n1 = self->n + 1;
    return PyLong_FromSsize_t(n1 * (self->lens ? 1 : 2) + 3 * n1 * 4);
}

static PyObject *
IntervalIndex_depth(IntervalIndex *self, PyObject *arg)
{
    Py_ssize_t p = PyLong_AsSsize_t(arg);
    if (p == -1 && PyErr_Occurred())
        return NULL;
    if (p < 0 || p > self->n) {
        PyErr_SetString(PyExc_IndexError, "position out of range");
        return NULL;
    }
    return PyLong_FromUnsignedLong(self->depth[p]);
}

static PyMethodDef IntervalIndex_methods[] = {
    {"count", (PyCFunction)(void (*)(void))IntervalIndex_count, METH_FASTCALL,
     "count(i, j) -> int: BPE count of data[i:j], or -1 if the C query gave up."},
    {"depth", (PyCFunction)IntervalIndex_depth, METH_O, "depth(p) -> int: count of data[:p]."},
    {"arrays", (PyCFunction)IntervalIndex_arrays, METH_NOARGS,
     "arrays() -> (lens, depth, tree_id, tree_end) as bytes (native order)."},
    {"memory_bytes", (PyCFunction)IntervalIndex_memory_bytes, METH_NOARGS, "bytes held by the index"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject IntervalIndexType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_stream._native._core.IntervalIndex",
    .tp_doc = "The interval index of one byte string (Core.interval_index(data)).",
    .tp_basicsize = sizeof(IntervalIndex),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)IntervalIndex_dealloc,
    .tp_methods = IntervalIndex_methods,
};

int
prefix_table_init(PyObject *module)
{
    if (PyType_Ready(&IntervalIndexType) < 0)
        return -1;
    Py_INCREF(&IntervalIndexType);
    if (PyModule_AddObject(module, "IntervalIndex", (PyObject *)&IntervalIndexType) < 0) {
        Py_DECREF(&IntervalIndexType);
        return -1;
    }
    return 0;
}

PyMethodDef prefix_table_methods[] = {
    {"table_fill", (PyCFunction)Core_table_fill, METH_VARARGS,
     "table_fill(data, last, counts, done, target, per, eq) -> (done, per, eq)\n\n"
     "Fills the writable int32 buffers last/counts (n + 1 entries) for the prefixes\n"
     "done + 1 .. target; per/eq carry the periodic shortcut between calls.  The done\n"
     "returned is < target only at a byte that is no token (data[done])."},
    {"interval_index", (PyCFunction)Core_interval_index, METH_O,
     "interval_index(data: bytes) -> IntervalIndex"},
    {NULL, NULL, 0, NULL},
};

/* ---- for chunk_runs.c: the table pass on a caller's buffers (see table_fill) */
Py_ssize_t
prefix_table_fill(const Core *c, const unsigned char *data, int32_t *last, int32_t *counts, Py_ssize_t done,
                  Py_ssize_t target, Py_ssize_t *per_io, Py_ssize_t *eq_io, int32_t *cand)
{
    return table_fill(c, data, last, counts, done, target, per_io, eq_io, cand);
}
