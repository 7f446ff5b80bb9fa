/* The exact chunker's Chunk objects for the cuts exact_cuts returns, many per call.

make_chunks(cls, fields, text, base, cuts[, shift, total]) -> list

``cuts`` is exact_cuts' flat list ``[s0, e0, count0, s1, e1, count1, ...]`` (offsets in
``text``); the answer holds, for each triple, ``cls(text[s:e], base + s, base + e,
count)`` with the defaults of the other fields (headings ``()``, context ``""``,
token_count_with_context ``count``), built as chunker._plain_chunk builds it: a bare
instance whose seven slots (``fields``, the slot descriptors of cls in field order: text,
start, end, token_count, headings, context, token_count_with_context) hold those values.
The instance is the same as the dataclass __init__ makes (the tests compare them: type,
equality, repr, hash, pickling, frozen).  With ``shift`` and ``total``, the answer is the
first ``total`` chunks of the cuts repeated, the r-th repetition (from 0) shifted by
``r * shift``: the periodic replay's cycles (chunk/periodic.py) without their flat list.

Why in C, and why this way: at budget 1 a chunk is one token, and the Chunk objects cost
more than counting the text.  So the slots are written at the member descriptors'
offsets (checked once per call: plain object slots of cls) instead of a descriptor call a
field; a position shared by two chunks (one's end, the next one's start) is one int
object, taken from the cuts list itself where base is 0 (append_cut in core.h makes a
start the previous end's object); the count is the list's object, twice, and the
headings and context one shared () and "" for the call; equal short texts are one str
(TextCache below); where the seven slots are the whole instance it comes from
PyObject_GC_New (not zeroed, not tracked: every slot is written at once); and the cyclic
collector is paused while the untracked chunks are made (see the loop).  Descriptors of
another kind are written through their __set__.

Complexity: O(number of chunks + the characters of the chunks): at most one substring
each, a short text hashed and compared once.
*/
#include "core.h"
#include <structmember.h>

#define CHUNK_FIELDS 7

/* The slot descriptor descr of obj set to value (through its __set__). */
static inline int
set_field(PyObject *descr, PyObject *obj, PyObject *value)
{
    return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
}

/* Short chunk texts, each made once per call: a direct-mapped table of the substrings
   made so far, keyed by their characters (compared in full: a hit is an equal string).
   At a small budget most chunks are a few characters that come back (words, digits,
   the units of periodic text), and an str of its own per chunk cost as much as the
   chunk; a str is immutable, so chunks that share one are the same as with copies. */
#define TEXT_CACHE_CHARS 16
#define TEXT_CACHE_SLOTS 1024

typedef struct {
    PyObject *slot[TEXT_CACHE_SLOTS];
} TextCache;

static inline int
same_chars(PyObject *str, int kind, const void *data, Py_ssize_t s, Py_ssize_t len)
{
    if (PyUnicode_GET_LENGTH(str) != len)
        return 0;
    int k2 = PyUnicode_KIND(str);
    const void *d2 = PyUnicode_DATA(str);
    if (k2 == kind)
        return memcmp(d2, (const char *)data + s * kind, (size_t)(len * kind)) == 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (PyUnicode_READ(kind, data, s + i) != PyUnicode_READ(k2, d2, i))
            return 0;
    return 1;
}

static inline uint32_t
hash_chars(int kind, const void *data, Py_ssize_t s, Py_ssize_t e)
{
    uint32_t h = 2166136261u;  /* FNV-1a over the code points */
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        for (Py_ssize_t i = s; i < e; i++)
            h = (h ^ p[i]) * 16777619u;
    } else {
        for (Py_ssize_t i = s; i < e; i++)
            h = (h ^ PyUnicode_READ(kind, data, i)) * 16777619u;
    }
    return h ^ (h >> 16);
}

/* text[s:e] (a new reference), shared through the cache when it is short. */
static PyObject *
substring(TextCache *cache, PyObject *text, int kind, const void *data, Py_ssize_t s, Py_ssize_t e)
{
    Py_ssize_t len = e - s;
    if (len > TEXT_CACHE_CHARS || len < 2)  /* (CPython shares the empty and Latin-1 ones) */
        return PyUnicode_Substring(text, s, e);
    PyObject **slot = &cache->slot[hash_chars(kind, data, s, e) & (TEXT_CACHE_SLOTS - 1)];
    if (*slot != NULL && same_chars(*slot, kind, data, s, len))
        return Py_NewRef(*slot);
    PyObject *sub = PyUnicode_Substring(text, s, e);
    if (sub != NULL)
        Py_XSETREF(*slot, Py_NewRef(sub));
    return sub;
}

static void
text_cache_clear(TextCache *cache)
{
    for (int i = 0; i < TEXT_CACHE_SLOTS; i++)
        Py_CLEAR(cache->slot[i]);
}

/* The offset of the object slot the member descriptor d writes in instances of cls, or -1
   when d is not a plain writable object slot of cls (then it is written through __set__). */
static Py_ssize_t
slot_offset(PyTypeObject *cls, PyObject *d)
{
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type))
        return -1;
    PyMemberDescrObject *m = (PyMemberDescrObject *)d;
    PyMemberDef *def = m->d_member;
    if (def->type != T_OBJECT_EX || (def->flags & READONLY) || !PyType_IsSubtype(cls, m->d_common.d_type) ||
        def->offset < (Py_ssize_t)sizeof(PyObject) ||
        def->offset + (Py_ssize_t)sizeof(PyObject *) > cls->tp_basicsize)
        return -1;
    return def->offset;
}

/* The int base + v (a new reference): *prev when it has that value, else item (the cuts
   list's int for v, where from_list says that is base + v) or a new int, which becomes
   *prev.  *prev_value is the v of *prev. */
static inline PyObject *
position(PyObject *item, Py_ssize_t v, Py_ssize_t base, int from_list, PyObject **prev, Py_ssize_t *prev_value)
{
    if (*prev != NULL && *prev_value == v) {
        Py_INCREF(*prev);
        return *prev;
    }
    PyObject *o;
    if (from_list && PyLong_CheckExact(item)) {
        Py_INCREF(item);
        o = item;
    } else {
        o = PyLong_FromSsize_t(base + v);
        if (o == NULL)
            return NULL;
    }
    Py_XSETREF(*prev, o);
    Py_INCREF(o);
    *prev_value = v;
    return o;
}

static PyObject *
make_chunks(PyObject *module, PyObject *args)
{
    PyTypeObject *cls;
    PyObject *fields, *text, *cuts;
    Py_ssize_t base, shift = 0, total = -1;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!UnO!|nn", &PyType_Type, &cls, &PyTuple_Type, &fields, &text, &base, &PyList_Type,
                          &cuts, &shift, &total))
        return NULL;
    if (PyTuple_GET_SIZE(fields) != CHUNK_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "make_chunks: fields must be the 7 slot descriptors of Chunk");
        return NULL;
    }
    if (cls->tp_alloc == NULL || (cls->tp_flags & Py_TPFLAGS_IS_ABSTRACT)) {
        PyErr_SetString(PyExc_TypeError, "make_chunks: cls cannot be instantiated");
        return NULL;
    }
    Py_ssize_t offsets[CHUNK_FIELDS];
    int direct = 1;
    for (Py_ssize_t f = 0; f < CHUNK_FIELDS; f++) {
        PyObject *d = PyTuple_GET_ITEM(fields, f);
        if (Py_TYPE(d)->tp_descr_set == NULL) {
            PyErr_SetString(PyExc_TypeError, "make_chunks: fields must be data descriptors");
            return NULL;
        }
        offsets[f] = slot_offset(cls, d);
        if (offsets[f] < 0)
            direct = 0;
    }
    /* bare: the seven slots are the whole instance (no __dict__, no __weakref__, nothing
       else), so an instance from PyObject_GC_New (neither zeroed nor tracked) is complete
       once they are written: what tp_alloc makes, without the memset and the tracking
       undone at once.  Only for the default allocator. */
    int bare = direct && cls->tp_alloc == PyType_GenericAlloc && PyType_IS_GC(cls) && cls->tp_itemsize == 0 &&
               cls->tp_dictoffset == 0 && cls->tp_weaklistoffset == 0 &&
               cls->tp_basicsize == (Py_ssize_t)(sizeof(PyObject) + CHUNK_FIELDS * sizeof(PyObject *));
    for (int f = 0; bare && f < CHUNK_FIELDS; f++) {
        if ((offsets[f] - (Py_ssize_t)sizeof(PyObject)) % (Py_ssize_t)sizeof(PyObject *) != 0)
            bare = 0;
        for (int g = f + 1; g < CHUNK_FIELDS; g++)
            if (offsets[f] == offsets[g])
                bare = 0;
    }
    Py_ssize_t m = PyList_GET_SIZE(cuts) / 3;
    if (total < 0)
        total = m;
    if (total > 0 && m == 0) {
        PyErr_SetString(PyExc_ValueError, "make_chunks: no cuts to repeat");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    /* positions straight from the list's int objects: no shift and base 0 */
    int from_list = base == 0 && (shift == 0 || total <= m);
    PyObject *no_headings = PyTuple_New(0), *no_context = PyUnicode_New(0, 0);
    PyObject *prev = NULL;  /* the last position's int */
    Py_ssize_t prev_value = -1;
    int gc_was_enabled = 0;
    TextCache texts;
    memset(&texts, 0, sizeof texts);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *out = PyList_New(total);
    if (no_headings == NULL || no_context == NULL || out == NULL)
        goto error;
#ifndef Py_GIL_DISABLED
    /* The chunks are untracked as soon as they are made, but each allocation still counts
       towards a collection of the youngest generation, which walks the answer list built so
       far (and every 10th one the older lists of chunks): with a chunk per token that walk
       cost more than the chunks.  Nothing here runs Python code or makes a cycle and the
       GIL is held throughout, so the collector is paused for the loop; the allocations
       still count, so one collection follows at the next allocation instead of one every
       few hundred chunks. */
    gc_was_enabled = PyGC_Disable();
#endif
    for (Py_ssize_t i = 0, j = 0, add = 0; i < total; i++, j++) {
        if (j == m) {
            j = 0;
            add += shift;
        }
        PyObject *s_item = PyList_GET_ITEM(cuts, 3 * j), *e_item = PyList_GET_ITEM(cuts, 3 * j + 1);
        PyObject *count = PyList_GET_ITEM(cuts, 3 * j + 2);
        Py_ssize_t s = PyLong_AsSsize_t(s_item), e = PyLong_AsSsize_t(e_item);
        if ((s == -1 || e == -1) && PyErr_Occurred())
            goto error;
        s += add;
        e += add;
        if (s < 0 || e < s || e > n) {
            PyErr_SetString(PyExc_ValueError, "make_chunks: a cut outside the text");
            goto error;
        }
        PyObject *sub = substring(&texts, text, kind, data, s, e);
        if (sub == NULL)
            goto error;
        PyObject *start = position(s_item, s, base, from_list, &prev, &prev_value);
        if (start == NULL) {
            Py_DECREF(sub);
            goto error;
        }
        PyObject *end = position(e_item, e, base, from_list, &prev, &prev_value);
        PyObject *chunk = NULL;
        if (end != NULL)
            chunk = bare ? (PyObject *)PyObject_GC_New(PyObject, cls) : cls->tp_alloc(cls, 0);
        if (chunk == NULL) {
            Py_DECREF(sub);
            Py_DECREF(start);
            Py_XDECREF(end);
            goto error;
        }
        /* Only str, int and () go into a chunk, so it can hold no cycle: untracked, as
           CPython untracks tuples of such objects, the cyclic collector does not walk the
           many chunks a small budget makes (with them tracked it cost 3x the building).
           (PyObject_GC_New makes it untracked.) */
        if (!bare && PyObject_IS_GC(chunk))
            PyObject_GC_UnTrack(chunk);
        PyList_SET_ITEM(out, i, chunk);
        if (direct) {
            /* a fresh instance: every slot is NULL (bare: not yet written, all seven are
               below), each takes a new reference */
            char *p = (char *)chunk;
            *(PyObject **)(p + offsets[0]) = sub;
            *(PyObject **)(p + offsets[1]) = start;
            *(PyObject **)(p + offsets[2]) = end;
            *(PyObject **)(p + offsets[3]) = Py_NewRef(count);
            *(PyObject **)(p + offsets[4]) = Py_NewRef(no_headings);
            *(PyObject **)(p + offsets[5]) = Py_NewRef(no_context);
            *(PyObject **)(p + offsets[6]) = Py_NewRef(count);
        } else {
            int r = set_field(PyTuple_GET_ITEM(fields, 0), chunk, sub) < 0 ||
                    set_field(PyTuple_GET_ITEM(fields, 1), chunk, start) < 0 ||
                    set_field(PyTuple_GET_ITEM(fields, 2), chunk, end) < 0 ||
                    set_field(PyTuple_GET_ITEM(fields, 3), chunk, count) < 0 ||
                    set_field(PyTuple_GET_ITEM(fields, 4), chunk, no_headings) < 0 ||
                    set_field(PyTuple_GET_ITEM(fields, 5), chunk, no_context) < 0 ||
                    set_field(PyTuple_GET_ITEM(fields, 6), chunk, count) < 0;
            Py_DECREF(sub);
            Py_DECREF(start);
            Py_DECREF(end);
            if (r)
                goto error;
        }
    }
    if (gc_was_enabled)
        PyGC_Enable();
    text_cache_clear(&texts);
    Py_XDECREF(prev);
    Py_DECREF(no_headings);
    Py_DECREF(no_context);
    return out;
error:
    if (gc_was_enabled)
        PyGC_Enable();
    text_cache_clear(&texts);
    Py_XDECREF(prev);
    Py_XDECREF(no_headings);
    Py_XDECREF(no_context);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef chunk_objects_functions[] = {
    {"make_chunks", (PyCFunction)make_chunks, METH_VARARGS,
     "make_chunks(cls, fields, text, base, cuts[, shift, total]) -> list: cls(text[s:e], base + s, base + e,\n"
     "count) for each triple (s, e, count) of cuts, its slots those of fields (Chunk's seven slot\n"
     "descriptors in field order), as chunker._plain_chunk makes it; with shift and total, the first\n"
     "total chunks of the cuts repeated, the r-th repetition shifted by r * shift."},
    {NULL, NULL, 0, NULL},
};

int
chunk_objects_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_objects_functions);
}
