/* Listed merges (tokenizer.json, GGUF) against rank order: the compiled twins of
bpe/merges.py's order_by_merges and merges_agree, which give the same answers.

order_by_merges(ranks, merges, products=False) -> (tokens, ids, unlisted[, products]):
ranks a dict bytes -> id, merges a list of (a, b) bytes pairs or (blob, ends), the
merges packed as bpe/merges.py's PackedMerges holds them; tokens are the single
bytes (by id), then each token a + b at its first merge; ids their ids; unlisted the
tokens no merge makes.  With products, also each merge's product as native int32 pairs
(id of a + b, len(a)), which name the pair exactly when ids are distinct: None where a
product is no token or the ids are not distinct and in 0..len(ranks)-1
(merges_products.c reads them).

merges_check(blob, offsets, left, right, merges, unreachable) -> None | (kind, index):
for a vocabulary built in that order (a compiled core's parts(): native uint32 offsets
and int32 splits), None when rank order gives HF's encodings: every token of two or more
bytes is built from a listed pair, the pairs' first positions in the list never
decrease with rank, and no token of unreachable (a list of bytes) is built whole by HF's
merge loop.  Else ("unlisted", rank), ("order", rank) or ("unreachable", index into
unreachable): the first failure, which the caller words.

Invariant: the merges live in one open-addressing table keyed by the bytes of both
sides (first position kept), the vocabulary in another keyed by its bytes; no Python
object is made per merge or per token but the results.  Complexity: O(total bytes of
the merges and tokens); HF's loop on an unreachable token of L bytes is O(L log L) (a
binary heap of pairs, stale entries skipped, as MergesBPE.parts).
*/
#include "core.h"

static inline uint64_t
bytes_hash(const unsigned char *p, Py_ssize_t n)
{
    return hash_end(hash_feed(hash_start(n), p, n));
}

static inline uint64_t
pair_hash(const unsigned char *a, Py_ssize_t la, const unsigned char *b, Py_ssize_t lb)
{
    return hash_end(bytes_hash(a, la) * 0x9e3779b97f4a7c15ULL ^ bytes_hash(b, lb));
}

/* The merges as (a, b) bytes; -1 with an error set when one is not. */
static int
merge_sides(PyObject *merges, Py_ssize_t j, PyObject **a, PyObject **b)
{
    PyObject *m = PyList_GET_ITEM(merges, j);
    if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 2 || !PyBytes_Check(PyTuple_GET_ITEM(m, 0))
        || !PyBytes_Check(PyTuple_GET_ITEM(m, 1))) {
        PyErr_Format(PyExc_TypeError, "merge %zd is not a pair of bytes", j);
        return -1;
    }
    *a = PyTuple_GET_ITEM(m, 0);
    *b = PyTuple_GET_ITEM(m, 1);
    return 0;
}

/* The merges order_by_merges reads: a list of (a, b) bytes tuples, or packed (the
   PackedMerges of bpe/merges.py: merge j is blob[ends[2j-1]:ends[2j]] and
   blob[ends[2j]:ends[2j+1]], ends[-1] read as 0). */
typedef struct {
    PyObject *list;
    const unsigned char *blob;
    const uint32_t *ends;
    Py_ssize_t n;
} MergeSource;

/* Merge j's sides; -1 with an error set when a listed one is not a pair of bytes. */
static int
merge_get(const MergeSource *ms, Py_ssize_t j, const unsigned char **pa, Py_ssize_t *la, const unsigned char **pb,
          Py_ssize_t *lb)
{
    if (ms->list == NULL) {
        uint32_t start = j > 0 ? ms->ends[2 * j - 1] : 0;
        *pa = ms->blob + start;
        *la = ms->ends[2 * j] - start;
        *pb = ms->blob + ms->ends[2 * j];
        *lb = ms->ends[2 * j + 1] - ms->ends[2 * j];
        return 0;
    }
    PyObject *a, *b;
    if (merge_sides(ms->list, j, &a, &b) < 0)
        return -1;
    *pa = (const unsigned char *)PyBytes_AS_STRING(a);
    *la = PyBytes_GET_SIZE(a);
    *pb = (const unsigned char *)PyBytes_AS_STRING(b);
    *lb = PyBytes_GET_SIZE(b);
    return 0;
}

static uint64_t
table_size(Py_ssize_t n)
{
    uint64_t size = 16;
    while (size < 2 * (uint64_t)n + 2)
        size <<= 1;
    return size;
}

typedef struct {
    Py_ssize_t index;
    long long id;
} ByteToken;

static int
by_id(const void *x, const void *y)
{
    const ByteToken *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static PyObject *
order_by_merges_c(PyObject *module, PyObject *args)
{
    PyObject *ranks, *merges;
    int want_products = 0;
    if (!PyArg_ParseTuple(args, "O!O|p", &PyDict_Type, &ranks, &merges, &want_products))
        return NULL;
    /* merges: a list, or packed as (blob, ends) (checked: ends never decrease, within blob) */
    MergeSource ms = {NULL, NULL, NULL, 0};
    Py_buffer packed_blob = {0}, packed_ends = {0};
    int packed = 0;
    if (PyList_Check(merges)) {
        ms.list = merges;
        ms.n = PyList_GET_SIZE(merges);
    } else {
        if (!PyTuple_Check(merges) || PyTuple_GET_SIZE(merges) != 2) {
            PyErr_SetString(PyExc_TypeError, "order_by_merges: merges must be a list or (blob, ends)");
            return NULL;
        }
        PyObject *o_blob = PyTuple_GET_ITEM(merges, 0), *o_ends = PyTuple_GET_ITEM(merges, 1);
        if (PyObject_GetBuffer(o_blob, &packed_blob, PyBUF_SIMPLE) < 0)
            return NULL;
        if (PyObject_GetBuffer(o_ends, &packed_ends, PyBUF_SIMPLE) < 0) {
            PyBuffer_Release(&packed_blob);
            return NULL;
        }
        packed = 1;
        ms.blob = packed_blob.buf;
        ms.ends = packed_ends.buf;
        ms.n = packed_ends.len / 8;
        int bad = packed_ends.len % 8 != 0;
        for (Py_ssize_t k = 0; !bad && k < 2 * ms.n; k++)
            bad = (k > 0 && ms.ends[k] < ms.ends[k - 1]) || ms.ends[k] > (uint64_t)packed_blob.len;
        if (bad) {
            PyBuffer_Release(&packed_blob);
            PyBuffer_Release(&packed_ends);
            PyErr_SetString(PyExc_ValueError, "order_by_merges: packed merges whose ends do not fit");
            return NULL;
        }
    }
    Py_ssize_t n = PyDict_GET_SIZE(ranks), n_merges = ms.n;
    /* with products: each key's id (-1: not usable) and, per merge, (product id, len(a)) */
    int64_t *key_id = NULL;
    int32_t *made = NULL;
    uint8_t *id_seen = NULL;
    int products_ok = want_products;
    PyObject **keys = PyMem_Calloc(n + 1, sizeof(PyObject *));
    PyObject **vals = PyMem_Calloc(n + 1, sizeof(PyObject *));
    uint8_t *seen = PyMem_Calloc(n + 1, 1);
    ByteToken *singles = PyMem_Calloc(n + 1, sizeof(ByteToken));
    uint64_t size = table_size(n), mask = size - 1;
    int64_t *slot = PyMem_Malloc(size * sizeof(int64_t));
    PyObject *tokens = NULL, *ids = NULL, *unlisted = NULL, *result = NULL;
    if (want_products) {
        key_id = PyMem_Malloc((n + 1) * sizeof(int64_t));
        made = PyMem_Malloc((2 * n_merges + 1) * sizeof(int32_t));
        id_seen = PyMem_Calloc(n + 1, 1);
    }
    if (!keys || !vals || !seen || !singles || !slot
        || (want_products && (!key_id || !made || !id_seen))) {
        PyErr_NoMemory();
        goto done;
    }
    for (uint64_t s = 0; s < size; s++)
        slot[s] = -1;
    Py_ssize_t pos = 0, i = 0, n_singles = 0;
    PyObject *k, *v;
    while (PyDict_Next(ranks, &pos, &k, &v)) {
        if (!PyBytes_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "order_by_merges: a token is not bytes");
            goto done;
        }
        keys[i] = k;
        vals[i] = v;
        if (products_ok) {
            /* ids distinct and in 0..n-1 here (a dict of n keys): else no products */
            long long id = PyLong_Check(v) ? PyLong_AsLongLong(v) : -1;
            if (id == -1 && PyErr_Occurred())
                PyErr_Clear();
            if (id < 0 || id >= n || id_seen[id])
                products_ok = 0;
            else
                id_seen[id] = 1;
            key_id[i] = id;
        }
        Py_ssize_t len = PyBytes_GET_SIZE(k);
        if (len == 1) {
            long long id = PyLong_AsLongLong(v);
            if (id == -1 && PyErr_Occurred())
                goto done;
            singles[n_singles].index = i;
            singles[n_singles++].id = id;
            seen[i] = 1;
        }
        uint64_t s = bytes_hash((const unsigned char *)PyBytes_AS_STRING(k), len) & mask;
        while (slot[s] >= 0)
            s = (s + 1) & mask;  /* dict keys are distinct */
        slot[s] = i++;
    }
    qsort(singles, n_singles, sizeof(ByteToken), by_id);
    tokens = PyList_New(0);
    ids = PyList_New(0);
    unlisted = PyDict_New();
    if (!tokens || !ids || !unlisted)
        goto done;
    for (Py_ssize_t j = 0; j < n_singles; j++)
        if (PyList_Append(tokens, keys[singles[j].index]) < 0 || PyList_Append(ids, vals[singles[j].index]) < 0)
            goto done;
    for (Py_ssize_t j = 0; j < n_merges; j++) {
        const unsigned char *pa, *pb;
        Py_ssize_t la, lb;
        if (merge_get(&ms, j, &pa, &la, &pb, &lb) < 0)
            goto done;
        uint64_t s = hash_end(hash_feed(hash_feed(hash_start(la + lb), pa, la), pb, lb)) & mask;
        int64_t product = -1;
        for (; slot[s] >= 0; s = (s + 1) & mask) {
            PyObject *t = keys[slot[s]];
            const unsigned char *pt = (const unsigned char *)PyBytes_AS_STRING(t);
            if (PyBytes_GET_SIZE(t) == la + lb && memcmp(pt, pa, la) == 0 && memcmp(pt + la, pb, lb) == 0) {
                product = slot[s];
                if (!seen[slot[s]]) {
                    seen[slot[s]] = 1;
                    if (PyList_Append(tokens, t) < 0 || PyList_Append(ids, vals[slot[s]]) < 0)
                        goto done;
                }
                break;
            }
        }
        if (products_ok) {
            if (product < 0 || la > INT32_MAX) {
                products_ok = 0;
            } else {
                made[2 * j] = (int32_t)key_id[product];
                made[2 * j + 1] = (int32_t)la;
            }
        }
    }
    for (Py_ssize_t j = 0; j < n; j++)
        if (!seen[j] && PyDict_SetItem(unlisted, keys[j], vals[j]) < 0)
            goto done;
    if (!want_products) {
        result = PyTuple_Pack(3, tokens, ids, unlisted);
    } else if (!products_ok) {
        result = PyTuple_Pack(4, tokens, ids, unlisted, Py_None);
    } else {
        PyObject *products = PyBytes_FromStringAndSize((const char *)made, 2 * n_merges * (Py_ssize_t)sizeof(int32_t));
        if (products != NULL) {
            result = PyTuple_Pack(4, tokens, ids, unlisted, products);
            Py_DECREF(products);
        }
    }
done:
    Py_XDECREF(tokens);
    Py_XDECREF(ids);
    Py_XDECREF(unlisted);
    PyMem_Free(keys);
    PyMem_Free(vals);
    PyMem_Free(seen);
    PyMem_Free(singles);
    PyMem_Free(slot);
    PyMem_Free(key_id);
    PyMem_Free(made);
    PyMem_Free(id_seen);
    if (packed) {
        PyBuffer_Release(&packed_blob);
        PyBuffer_Release(&packed_ends);
    }
    return result;
}

/* ------------------------------------------------------------ merges_check */

typedef struct {
    PyObject *merges;
    int64_t *slot;  /* a merge's position, -1 empty */
    uint64_t *hash; /* its pair hash: a probe compares the merge's bytes only on equal hashes,
                       so a miss costs no visit to the (scattered) merge objects */
    uint64_t mask;
} PairTable;

static int
pair_table_build(PairTable *pt, PyObject *merges)
{
    Py_ssize_t n = PyList_GET_SIZE(merges);
    uint64_t size = table_size(n);
    pt->merges = merges;
    pt->mask = size - 1;
    pt->slot = PyMem_Malloc(size * sizeof(int64_t));
    pt->hash = PyMem_Malloc(size * sizeof(uint64_t));
    if (pt->slot == NULL || pt->hash == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (uint64_t s = 0; s < size; s++)
        pt->slot[s] = -1;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *a, *b;
        if (merge_sides(merges, j, &a, &b) < 0)
            return -1;
        const unsigned char *pa = (const unsigned char *)PyBytes_AS_STRING(a);
        const unsigned char *pb = (const unsigned char *)PyBytes_AS_STRING(b);
        Py_ssize_t la = PyBytes_GET_SIZE(a), lb = PyBytes_GET_SIZE(b);
        uint64_t h = pair_hash(pa, la, pb, lb), s = h & pt->mask;
        int dup = 0;
        for (; pt->slot[s] >= 0; s = (s + 1) & pt->mask) {
            if (pt->hash[s] != h)
                continue;
            PyObject *m = PyList_GET_ITEM(merges, pt->slot[s]);
            PyObject *ma = PyTuple_GET_ITEM(m, 0), *mb = PyTuple_GET_ITEM(m, 1);
            if (PyBytes_GET_SIZE(ma) == la && PyBytes_GET_SIZE(mb) == lb
                && memcmp(PyBytes_AS_STRING(ma), pa, la) == 0 && memcmp(PyBytes_AS_STRING(mb), pb, lb) == 0) {
                dup = 1;  /* the first position is kept */
                break;
            }
        }
        if (!dup) {
            pt->slot[s] = j;
            pt->hash[s] = h;
        }
    }
    return 0;
}

/* The first position of the listed pair (a, b), or -1. */
static int64_t
pair_find(const PairTable *pt, const unsigned char *pa, Py_ssize_t la, const unsigned char *pb, Py_ssize_t lb)
{
    uint64_t h = pair_hash(pa, la, pb, lb);
    for (uint64_t s = h & pt->mask; pt->slot[s] >= 0; s = (s + 1) & pt->mask) {
        if (pt->hash[s] != h)
            continue;
        PyObject *m = PyList_GET_ITEM(pt->merges, pt->slot[s]);
        PyObject *ma = PyTuple_GET_ITEM(m, 0), *mb = PyTuple_GET_ITEM(m, 1);
        if (PyBytes_GET_SIZE(ma) == la && PyBytes_GET_SIZE(mb) == lb
            && memcmp(PyBytes_AS_STRING(ma), pa, la) == 0 && memcmp(PyBytes_AS_STRING(mb), pb, lb) == 0)
            return pt->slot[s];
    }
    return -1;
}

typedef struct {
    int64_t merge;   /* the pair's first position in the list */
    Py_ssize_t at;   /* the left part's start */
    Py_ssize_t end_left, end_right;  /* both parts' ends when pushed: a changed part is stale */
} HeapItem;

static inline int
heap_less(const HeapItem *x, const HeapItem *y)
{
    return x->merge != y->merge ? x->merge < y->merge : x->at < y->at;
}

static void
heap_push(HeapItem *h, Py_ssize_t *n, HeapItem item)
{
    Py_ssize_t i = (*n)++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (!heap_less(&item, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = item;
}

static HeapItem
heap_pop(HeapItem *h, Py_ssize_t *n)
{
    HeapItem top = h[0], last = h[--(*n)];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && heap_less(&h[c + 1], &h[c]))
            c++;
        if (!heap_less(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = last;
    return top;
}

/* Push the pair of the parts starting at i and nxt[i] if it is listed; -1 where find
   fails (an exception set). */
static int
push_pair(PairFinder find, const void *ctx, const unsigned char *data, Py_ssize_t n, const Py_ssize_t *nxt,
          Py_ssize_t i, HeapItem *heap, Py_ssize_t *size)
{
    Py_ssize_t j = nxt[i];
    if (j >= n)
        return 0;
    int64_t r = find(ctx, data + i, j - i, data + j, nxt[j] - j);
    if (r < -1)
        return -1;
    if (r >= 0)
        heap_push(heap, size, (HeapItem){r, i, j, nxt[j]});
    return 0;
}

/* Whether HF's merge loop on data[0:n] ends with one part (MergesBPE.parts == [data]),
   the listed pairs' first positions given by find (-1: not listed, -2: an error); -1 on
   an error (set). */
int
hf_builds_whole_by(PairFinder find, const void *ctx, const unsigned char *data, Py_ssize_t n)
{
    if (n < 2)
        return 1;
    Py_ssize_t *nxt = PyMem_Malloc(n * sizeof(Py_ssize_t));
    Py_ssize_t *prv = PyMem_Malloc(n * sizeof(Py_ssize_t));
    uint8_t *alive = PyMem_Malloc(n);
    /* each merge pushes at most two pairs: 3n entries at most */
    HeapItem *heap = PyMem_Malloc(3 * n * sizeof(HeapItem));
    int whole = -1;
    if (!nxt || !prv || !alive || !heap) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t size = 0, parts = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        nxt[i] = i + 1;
        prv[i] = i - 1;
        alive[i] = 1;
    }
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if (push_pair(find, ctx, data, n, nxt, i, heap, &size) < 0)
            goto done;
    while (size > 0) {
        HeapItem top = heap_pop(heap, &size);
        Py_ssize_t i = top.at, j = top.end_left;
        if (!alive[i] || nxt[i] != j || j >= n || !alive[j] || nxt[j] != top.end_right)
            continue;  /* stale: a part changed since it was pushed */
        alive[j] = 0;
        nxt[i] = nxt[j];
        if (nxt[j] < n)
            prv[nxt[j]] = i;
        parts--;
        if (push_pair(find, ctx, data, n, nxt, i, heap, &size) < 0)
            goto done;
        if (prv[i] >= 0 && push_pair(find, ctx, data, n, nxt, prv[i], heap, &size) < 0)
            goto done;
    }
    whole = parts == 1;
done:
    PyMem_Free(nxt);
    PyMem_Free(prv);
    PyMem_Free(alive);
    PyMem_Free(heap);
    return whole;
}

/* merges_agree's verdict for n tokens of offsets off: the tokens longer than one byte
   have their splits listed, at positions that do not decrease with rank, and HF's loop
   builds no unreachable token whole.  Shared by merges_check (positions from a table of
   the listed pairs) and merges_check_products (from the merges' product ids). */
PyObject *
merges_verdict(Py_ssize_t n, const uint32_t *off, SplitPosition split_position, PairFinder find, const void *ctx,
               PyObject *unreachable, const char *who)
{
    int64_t last = -1;
    for (Py_ssize_t t = 0; t < n; t++) {
        if (off[t + 1] - off[t] == 1)
            continue;
        int64_t j = split_position(ctx, t);
        if (j == -2)
            return NULL;
        if (j < 0)
            return Py_BuildValue("(sn)", "unlisted", t);
        if (j < last)
            return Py_BuildValue("(sn)", "order", t);
        last = j;
    }
    for (Py_ssize_t u = 0; u < PyList_GET_SIZE(unreachable); u++) {
        PyObject *tok = PyList_GET_ITEM(unreachable, u);
        if (!PyBytes_Check(tok)) {
            PyErr_Format(PyExc_TypeError, "%s: an unreachable token is not bytes", who);
            return NULL;
        }
        if (PyBytes_GET_SIZE(tok) < 2)
            continue;
        Py_INCREF(tok);  /* held while a finder may run Python code (dict look-ups) */
        int whole = hf_builds_whole_by(find, ctx, (const unsigned char *)PyBytes_AS_STRING(tok),
                                       PyBytes_GET_SIZE(tok));
        Py_DECREF(tok);
        if (whole < 0)
            return NULL;
        if (whole)
            return Py_BuildValue("(sn)", "unreachable", u);
    }
    Py_RETURN_NONE;
}

/* merges_check's finders: a token's split and any pair, looked up in the pair table. */
typedef struct {
    PairTable pt;
    const unsigned char *data;
    const uint32_t *off;
    const int32_t *l, *r;
} ListedPairs;

static int64_t
listed_pair_find(const void *ctx, const unsigned char *pa, Py_ssize_t la, const unsigned char *pb, Py_ssize_t lb)
{
    return pair_find(&((const ListedPairs *)ctx)->pt, pa, la, pb, lb);
}

static int64_t
listed_split_position(const void *ctx, Py_ssize_t t)
{
    const ListedPairs *lp = ctx;
    const uint32_t *off = lp->off;
    int32_t a = lp->l[t], b = lp->r[t];
    return pair_find(&lp->pt, lp->data + off[a], off[a + 1] - off[a], lp->data + off[b], off[b + 1] - off[b]);
}

static PyObject *
merges_check(PyObject *module, PyObject *args)
{
    Py_buffer blob, offs, left, right;
    PyObject *merges, *unreachable;
    if (!PyArg_ParseTuple(args, "y*y*y*y*O!O!", &blob, &offs, &left, &right, &PyList_Type, &merges,
                          &PyList_Type, &unreachable))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = offs.len / 4 - 1;
    ListedPairs lp = {{NULL, NULL, NULL, 0}, blob.buf, offs.buf, left.buf, right.buf};
    const uint32_t *off = lp.off;
    const int32_t *l = lp.l, *r = lp.r;
    if (n < 0 || offs.len % 4 || left.len != 4 * n || right.len != 4 * n || off[0] != 0
        || (Py_ssize_t)off[n] > blob.len) {
        PyErr_SetString(PyExc_ValueError, "merges_check: tables of different sizes");
        goto done;
    }
    for (Py_ssize_t t = 0; t < n; t++)
        if (off[t] > off[t + 1] || l[t] < 0 || l[t] >= n || r[t] < 0 || r[t] >= n) {
            PyErr_SetString(PyExc_ValueError, "merges_check: offsets or splits out of range");
            goto done;
        }
    if (pair_table_build(&lp.pt, merges) < 0)
        goto done;
    result = merges_verdict(n, off, listed_split_position, listed_pair_find, &lp, unreachable, "merges_check");
done:
    PyMem_Free(lp.pt.slot);
    PyMem_Free(lp.pt.hash);
    PyBuffer_Release(&blob);
    PyBuffer_Release(&offs);
    PyBuffer_Release(&left);
    PyBuffer_Release(&right);
    return result;
}

static PyMethodDef merges_functions[] = {
    {"order_by_merges", (PyCFunction)order_by_merges_c, METH_VARARGS,
     "order_by_merges(ranks, merges) -> (tokens, ids, unlisted): bpe/merges.py's order_by_merges."},
    {"merges_check", (PyCFunction)merges_check, METH_VARARGS,
     "merges_check(blob, offsets, left, right, merges, unreachable) -> None | (kind, index):\n"
     "whether rank order follows the listed merges (bpe/merges.py's merges_agree)."},
    {NULL, NULL, 0, NULL},
};

int
merges_init(PyObject *module)
{
    return PyModule_AddFunctions(module, merges_functions);
}
