/* The tokens a first pass left waiting, decided by BPE's merge loop: the compiled twin
of bpe/tables.py classify_waiting (with merge_loop_parts as its loop).

classify_waiting(blob, offsets, waiting) -> (exceptional, unreachable): blob and offsets
are a first pass's parts (the tokens' bytes, native uint32 offsets, n + 1 of them);
waiting a list of ranks.  For each waiting token of two or more bytes, BPE's merge loop
runs on its bytes with the token itself forbidden (repeatedly merge the adjacent pair
whose concatenation is the lowest-ranked token, the leftmost on equal ranks, never
forming the whole): where two parts are left, the whole token is what the loop builds
(its last merge joins those two) and exceptional gets (rank, left rank, right rank);
else the loop never builds it and unreachable gets its rank.  This is the Python twin's
answer: with the whole allowed, the loop runs the same steps up to those two parts (only
the whole equals the token), then joins them; with three or more parts left, no pair of
them is the whole.  Both lists follow the order of waiting; a rank out of range raises
ValueError.

Invariant: the ranks live in one open-addressing table keyed by the tokens' bytes (a
byte string held twice keeps its higher rank, as a dict built in rank order does); no
Python object is made but the results.  Complexity: O(total bytes) for the table, then
O(L^2) table look-ups for a waiting token of L bytes (the definition's loop: a token,
not a text).
*/
#include "core.h"

typedef struct {
    const unsigned char *blob;
    const uint32_t *off;
    int64_t *slot;  /* a rank, -1 empty */
    uint64_t mask;
} RankTable;

static inline uint64_t
rank_hash(const unsigned char *p, Py_ssize_t n)
{
    return hash_end(hash_feed(hash_start(n), p, n));
}

/* The rank of the bytes p[0:n], or -1. */
static int64_t
rank_find(const RankTable *rt, const unsigned char *p, Py_ssize_t n)
{
    for (uint64_t s = rank_hash(p, n) & rt->mask; rt->slot[s] >= 0; s = (s + 1) & rt->mask) {
        int64_t r = rt->slot[s];
        if ((Py_ssize_t)(rt->off[r + 1] - rt->off[r]) == n && memcmp(rt->blob + rt->off[r], p, n) == 0)
            return r;
    }
    return -1;
}

/* The number of parts BPE's merge loop leaves on token t with t itself forbidden; their
   starts in starts[] (room for the token's length plus one: starts[parts] is its end). */
static Py_ssize_t
loop_without_whole(const RankTable *rt, int64_t t, Py_ssize_t *starts)
{
    const unsigned char *p = rt->blob + rt->off[t];
    Py_ssize_t len = rt->off[t + 1] - rt->off[t], parts = len;
    for (Py_ssize_t i = 0; i <= len; i++)
        starts[i] = i;
    while (parts > 1) {
        Py_ssize_t best = -1;
        int64_t best_rank = -1;
        for (Py_ssize_t i = 0; i + 1 < parts; i++) {
            Py_ssize_t a = starts[i], b = starts[i + 2];
            if (a == 0 && b == len)
                continue;  /* the whole token: forbidden */
            int64_t r = rank_find(rt, p + a, b - a);
            if (r >= 0 && (best < 0 || r < best_rank)) {
                best = i;
                best_rank = r;
            }
        }
        if (best < 0)
            break;
        memmove(starts + best + 1, starts + best + 2, (parts - best - 1) * sizeof(Py_ssize_t));
        parts--;
    }
    return parts;
}

static PyObject *
classify_waiting_c(PyObject *module, PyObject *args)
{
    Py_buffer blob, offs;
    PyObject *waiting;
    if (!PyArg_ParseTuple(args, "y*y*O!", &blob, &offs, &PyList_Type, &waiting))
        return NULL;
    PyObject *exceptional = NULL, *unreachable = NULL, *result = NULL;
    RankTable rt = {blob.buf, offs.buf, NULL, 0};
    Py_ssize_t *starts = NULL;
    Py_ssize_t n = offs.len / 4 - 1, longest = 0;
    if (n < 0 || offs.len % 4 || rt.off[0] != 0 || (Py_ssize_t)rt.off[n] > blob.len) {
        PyErr_SetString(PyExc_ValueError, "classify_waiting: offsets out of range");
        goto done;
    }
    for (Py_ssize_t t = 0; t < n; t++) {
        if (rt.off[t] > rt.off[t + 1]) {
            PyErr_SetString(PyExc_ValueError, "classify_waiting: offsets out of range");
            goto done;
        }
        if ((Py_ssize_t)(rt.off[t + 1] - rt.off[t]) > longest)
            longest = rt.off[t + 1] - rt.off[t];
    }
    uint64_t size = 16;
    while (size < 2 * (uint64_t)n + 2)
        size <<= 1;
    rt.mask = size - 1;
    rt.slot = PyMem_Malloc(size * sizeof(int64_t));
    starts = PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t));
    if (rt.slot == NULL || starts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (uint64_t s = 0; s < size; s++)
        rt.slot[s] = -1;
    for (Py_ssize_t t = 0; t < n; t++) {
        const unsigned char *p = rt.blob + rt.off[t];
        Py_ssize_t len = rt.off[t + 1] - rt.off[t];
        uint64_t s = rank_hash(p, len) & rt.mask;
        for (; rt.slot[s] >= 0; s = (s + 1) & rt.mask) {
            int64_t r = rt.slot[s];
            if ((Py_ssize_t)(rt.off[r + 1] - rt.off[r]) == len && memcmp(rt.blob + rt.off[r], p, len) == 0)
                break;  /* the same bytes again: the later rank replaces it */
        }
        rt.slot[s] = t;
    }
    exceptional = PyList_New(0);
    unreachable = PyList_New(0);
    if (exceptional == NULL || unreachable == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(waiting); k++) {
        Py_ssize_t t = PyLong_AsSsize_t(PyList_GET_ITEM(waiting, k));
        if (t == -1 && PyErr_Occurred())
            goto done;
        if (t < 0 || t >= n) {
            PyErr_SetString(PyExc_ValueError, "classify_waiting: a waiting rank out of range");
            goto done;
        }
        if (rt.off[t + 1] - rt.off[t] < 2)
            continue;
        Py_ssize_t parts = loop_without_whole(&rt, t, starts);
        PyObject *item;
        if (parts == 2) {
            const unsigned char *p = rt.blob + rt.off[t];
            Py_ssize_t len = rt.off[t + 1] - rt.off[t];
            item = Py_BuildValue("(nLL)", t, (long long)rank_find(&rt, p, starts[1]),
                                 (long long)rank_find(&rt, p + starts[1], len - starts[1]));
            if (item == NULL || PyList_Append(exceptional, item) < 0) {
                Py_XDECREF(item);
                goto done;
            }
        } else {
            item = PyLong_FromSsize_t(t);
            if (item == NULL || PyList_Append(unreachable, item) < 0) {
                Py_XDECREF(item);
                goto done;
            }
        }
        Py_DECREF(item);
    }
    result = PyTuple_Pack(2, exceptional, unreachable);
done:
    Py_XDECREF(exceptional);
    Py_XDECREF(unreachable);
    PyMem_Free(rt.slot);
    PyMem_Free(starts);
    PyBuffer_Release(&blob);
    PyBuffer_Release(&offs);
    return result;
}

static PyMethodDef waiting_functions[] = {
    {"classify_waiting", (PyCFunction)classify_waiting_c, METH_VARARGS,
     "classify_waiting(blob, offsets, waiting) -> (exceptional, unreachable): the waiting tokens\n"
     "decided by BPE's merge loop (bpe/tables.py's classify_waiting): exceptional as\n"
     "(rank, left, right), unreachable as ranks."},
    {NULL, NULL, 0, NULL},
};

int
waiting_init(PyObject *module)
{
    return PyModule_AddFunctions(module, waiting_functions);
}
