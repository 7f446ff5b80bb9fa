/* merges_agree (bpe/merges.py) from the products order_by_merges found, without a table
of the listed pairs.

merges_check_products(offsets, left, right, ids, products, ranks, unreachable)
    -> None | (kind, index) | False
gives what merges.c's merges_check gives for the same vocabulary (a compiled core's
parts(): native uint32 offsets, int32 splits; ids its array('i') of ids, or None where
the id is the rank) and merges, with the merges given as order_by_merges(ranks, merges,
products=True) gives them: per merge, the id of its product a + b and len(a).  False
where it cannot answer (ids far above the number of merges); the caller then runs
merges_check.

Why no pair table is needed: order_by_merges gives products only where every product is
a token and the ids are distinct, so a pair (a, b) is named exactly by (id of a + b,
len(a)); its first position in the list is the first merge with that product and that
cut.  The merges are grouped by product id (a counting sort, list order kept within a
group, a cut kept once), so a look-up reads the few merges of one product.  A token's
pair is its split, whose product is the token itself (its id, no hashing); the pairs
HF's merge loop meets inside an unreachable token are found through ranks (a dict
look-up of their bytes).

Invariant: the answer is merges_check's.  Complexity: O(merges + tokens) for the groups
and the checks (a group holds at most one merge per cut, so a look-up costs at most the
product's length), plus HF's loop on each unreachable token, O(L log L) look-ups of L
bytes each.
*/
#include "core.h"

typedef struct {
    const int32_t *made;   /* per merge: product id, len(a) */
    Py_ssize_t n_ids;      /* ids are 0..n_ids-1 */
    Py_ssize_t *start;     /* merges of product id: entry[start[id] : start[id] + count[id]] */
    Py_ssize_t *count;
    int64_t *entry;        /* merge positions, increasing within a product, one per cut */
    PyObject *ranks;
    const int32_t *id_of;  /* per token its id, or NULL where the id is the rank */
    const uint32_t *off;   /* token offsets, splits: the length of a token's left part */
    const int32_t *l;
} Products;

/* The first position of the merge with this product and cut, or -1. */
static int64_t
product_find(const Products *p, int64_t id, int32_t cut)
{
    if (id < 0 || id >= p->n_ids)
        return -1;
    const int64_t *e = p->entry + p->start[id];
    for (Py_ssize_t k = 0; k < p->count[id]; k++)
        if (p->made[2 * e[k] + 1] == cut)
            return e[k];
    return -1;
}

/* The pair finder of HF's loop (merges.c): the id of a + b from ranks. */
static int64_t
product_find_bytes(const void *ctx, const unsigned char *pa, Py_ssize_t la, const unsigned char *pb,
                   Py_ssize_t lb)
{
    const Products *p = ctx;
    PyObject *key = PyBytes_FromStringAndSize(NULL, la + lb);
    if (key == NULL)
        return -2;
    memcpy(PyBytes_AS_STRING(key), pa, (size_t)la);
    memcpy(PyBytes_AS_STRING(key) + la, pb, (size_t)lb);
    PyObject *v = PyDict_GetItemWithError(p->ranks, key);
    Py_DECREF(key);
    if (v == NULL)
        return PyErr_Occurred() ? -2 : -1;
    long long id = PyLong_Check(v) ? PyLong_AsLongLong(v) : -1;
    if (id == -1 && PyErr_Occurred())
        PyErr_Clear();  /* no product has it: products hold ids of 0..len(ranks)-1 */
    if (la > INT32_MAX)
        return -1;
    return product_find(p, id, (int32_t)la);
}

/* A token's split is the merge of its product (the token's id) and cut len(left). */
static int64_t
product_split_position(const void *ctx, Py_ssize_t t)
{
    const Products *p = ctx;
    int32_t a = p->l[t];
    return product_find(p, p->id_of ? p->id_of[t] : (int64_t)t, (int32_t)(p->off[a + 1] - p->off[a]));
}

static PyObject *
merges_check_products(PyObject *module, PyObject *args)
{
    Py_buffer offs, left, right, made, ids_view;
    PyObject *ids_arg, *ranks, *unreachable;
    if (!PyArg_ParseTuple(args, "y*y*y*Oy*O!O!", &offs, &left, &right, &ids_arg, &made, &PyDict_Type, &ranks,
                          &PyList_Type, &unreachable))
        return NULL;
    const int32_t *id_of = NULL;
    Py_ssize_t n_id_of = 0;
    int have_ids = 0;
    PyObject *result = NULL;
    Products p = {made.buf, 0, NULL, NULL, NULL, ranks, NULL, offs.buf, left.buf};
    Py_ssize_t n = offs.len / 4 - 1, m = made.len / 8;
    const uint32_t *off = offs.buf;
    const int32_t *l = left.buf, *r = right.buf;
    if (ids_of_arg(ids_arg, &ids_view, &id_of, &n_id_of) < 0)
        goto done;
    have_ids = ids_arg != Py_None;
    if (n < 0 || offs.len % 4 || made.len % 8 || left.len != 4 * n || right.len != 4 * n || off[0] != 0
        || (have_ids && n_id_of != n)) {
        PyErr_SetString(PyExc_ValueError, "merges_check_products: tables of different sizes");
        goto done;
    }
    for (Py_ssize_t t = 0; t < n; t++)
        if (off[t] > off[t + 1] || l[t] < 0 || l[t] >= n || r[t] < 0 || r[t] >= n) {
            PyErr_SetString(PyExc_ValueError, "merges_check_products: offsets or splits out of range");
            goto done;
        }
    /* the groups: ids are those of a dict of tokens (order_by_merges), so a few more
       than the merges or tokens means products that are not such ids */
    int32_t max_id = -1;
    for (Py_ssize_t j = 0; j < m; j++) {
        if (p.made[2 * j] < 0 || p.made[2 * j + 1] < 0) {
            PyErr_SetString(PyExc_ValueError, "merges_check_products: a negative product id or cut");
            goto done;
        }
        if (p.made[2 * j] > max_id)
            max_id = p.made[2 * j];
    }
    if ((int64_t)max_id >= 2 * ((int64_t)m + n) + 1024) {
        Py_INCREF(Py_False);
        result = Py_False;
        goto done;
    }
    p.n_ids = (Py_ssize_t)max_id + 1;
    p.start = PyMem_Calloc(p.n_ids + 1, sizeof(Py_ssize_t));
    p.count = PyMem_Calloc(p.n_ids + 1, sizeof(Py_ssize_t));
    p.entry = PyMem_Malloc((m + 1) * sizeof(int64_t));
    if (!p.start || !p.count || !p.entry) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < m; j++)
        p.start[p.made[2 * j]]++;
    Py_ssize_t at = 0;
    for (Py_ssize_t id = 0; id < p.n_ids; id++) {
        Py_ssize_t c = p.start[id];
        p.start[id] = at;
        at += c;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        int32_t id = p.made[2 * j];
        if (product_find(&p, id, p.made[2 * j + 1]) < 0)  /* a repeated pair keeps its first place */
            p.entry[p.start[id] + p.count[id]++] = j;
    }
    p.id_of = have_ids ? id_of : NULL;
    result = merges_verdict(n, off, product_split_position, product_find_bytes, &p, unreachable,
                            "merges_check_products");
done:
    PyMem_Free(p.start);
    PyMem_Free(p.count);
    PyMem_Free(p.entry);
    if (have_ids && id_of != NULL)
        PyBuffer_Release(&ids_view);
    PyBuffer_Release(&offs);
    PyBuffer_Release(&left);
    PyBuffer_Release(&right);
    PyBuffer_Release(&made);
    return result;
}

static PyMethodDef merges_products_functions[] = {
    {"merges_check_products", (PyCFunction)merges_check_products, METH_VARARGS,
     "merges_check_products(offsets, left, right, ids, products, ranks, unreachable) -> None | (kind, index) |\n"
     "False: merges_check's answer from order_by_merges' products (False: not decided here)."},
    {NULL, NULL, 0, NULL},
};

int
merges_products_init(PyObject *module)
{
    return PyModule_AddFunctions(module, merges_products_functions);
}
