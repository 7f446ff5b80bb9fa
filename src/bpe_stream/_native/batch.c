/* Batches of texts counted or encoded on several threads, in C.

Core.text_batch(texts, kind, spec, whole, ids, num_threads, encode) takes a list of str
and returns, in input order, the count (encode false) or the list of tokens (encode
true) of each, or None for a text C does not take (a piece with a byte that is no
token, or a whole-piece token: the caller's Python path encodes it, or raises its clear
error).  An ASCII text, when kind names a bundled pattern, is pre-split by ascii_split.h;
any other text by the family member's compiled scanner (presplit.c, spec; -1: none, and
then every text must be ASCII), after its conversion to UTF-8 in the worker thread.
Core.ascii_batch(texts, kind, num_threads, encode) is the ASCII-only form.

Invariant: result[i] is what count_text / encode_text (or count_ascii / encode_ascii)
give for texts[i] alone; every text is taken by exactly one thread (see take_range); the
threads share nothing but the counters that hand the texts out (atomic), the Core's piece
cache (piece_cache.h: seqlocked entries, so threads that
meet the same pieces share what each learnt, within the call and across calls) and the
immutable rest of the Core and whole set, and each writes only its own texts' slots.

The texts are handed out in runs of neighbours: the long ones first, one at a time from a
shared counter (long_texts_first), then each thread takes its own run of the rest in
input order (about 1/threads of their characters, split_ranges) and, when that is done,
takes texts from the far end of the run with the most left.  Neighbouring texts of a
batch often share text (overlapping slices of one document, a file's sections), and a
text read right after its neighbour finds the piece-cache lines of their shared pieces
in its core's own L1/L2 cache: 100 slices of 10 KB of a 650 KB source file, 36 % of each
shared with the next, cost one thread 14-16 % more taken in a shuffled or alternating order
than in input order, which is what two threads taking every other text from one counter
amounted to.  The pointers to the texts' characters are taken with the GIL, which is then
released for the whole batch: the list copy keeps the texts alive, and a str never
changes.  The threads are the calling thread and the persistent workers of pool.c (raw
OS threads that call no Python API; pool_run returns when every one is done).  Cost:
the sum of the texts' costs (linear in each text) spread over the threads, plus one
wake-up per extra thread (a thread start the first time), one UTF-8 buffer per
thread, O(n) to split the runs and O(threads) per text taken from another thread's run.
*/
#include "core.h"
#include "ascii_split.h"
#include "piece_cache.h"

#include <stdatomic.h>
#include <stdlib.h>

/* A run of positions lo .. hi - 1 still to take, lo in bits 0-31, hi in bits 32-63: one
   word, so one compare-and-swap moves either end and no position is taken twice (the
   run's owner takes from lo, other threads from hi).  One cache line per run: the owner's
   steps do not touch the other runs' lines. */
typedef struct {
    _Atomic uint64_t w;
    char pad[64 - sizeof(uint64_t)];
} RangeLine;

/* The position at the front (back false) or at the back of run r, or -1 if it is empty. */
static Py_ssize_t
take_range(RangeLine *r, int back)
{
    uint64_t v = atomic_load_explicit(&r->w, memory_order_relaxed);
    for (;;) {
        uint64_t lo = v & 0xffffffffu, hi = v >> 32;
        if (lo >= hi)
            return -1;
        uint64_t rest = back ? lo | (hi - 1) << 32 : v + 1;
        if (atomic_compare_exchange_weak_explicit(&r->w, &v, rest, memory_order_relaxed, memory_order_relaxed))
            return (Py_ssize_t)(back ? hi - 1 : lo);
    }
}

typedef struct {
    const Core *core;
    int kind;           /* ascii_split.h's pattern for ASCII texts, 0: none */
    long spec;          /* presplit.c's member for the others, -1: none */
    const void *whole;
    const int32_t *id_of;
    Py_ssize_t n_ids;
    int encode;
    Py_ssize_t n;
    const void **data;  /* per text: its characters (PyUnicode_DATA) */
    Py_ssize_t *len;    /* its length in characters */
    int *ukind;         /* its PyUnicode kind, 0 if ASCII */
    Py_ssize_t *count;  /* per text: the count, or -1 (C does not take it), -2 (no memory) */
    int32_t **tokens;   /* per text (encode): its tokens, malloc'ed */
    Py_ssize_t *order;  /* the texts in the order the threads take them (NULL: input order) */
    Py_ssize_t n_long;  /* order[0:n_long]: the long texts, taken through next */
    atomic_size_t next;
    atomic_int joined;  /* the threads that entered work (a thread's own run: its number) */
    int n_ranges;       /* the runs of positions n_long .. n - 1 (0: none, all through next) */
    RangeLine *range;   /* per run: the positions still to take, see take_range */
} Batch;

#ifndef BATCH_AHEAD
#define BATCH_AHEAD 4
#endif

/* The count (and tokens into out, if not NULL: room for n entries) of one ASCII
   text; -1 if a piece holds a byte that is no token, -2 out of memory.  The scanner
   runs BATCH_AHEAD pieces ahead of the encoder, whose cache entries (pc_prepare) load
   meanwhile: a hit costs less than a load from the 4 MB table, so one piece ahead
   left most of the load's latency in the loop. */
static Py_ssize_t
one_text(const Core *c, int kind, const unsigned char *s, Py_ssize_t n, int32_t *out, PieceCache *cache)
{
    Py_ssize_t total = 0;
    Py_ssize_t start[BATCH_AHEAD], stop[BATCH_AHEAD];
    PieceKey key[BATCH_AHEAD];
    Py_ssize_t scanned = 0;  /* the end of the last piece scanned */
    size_t queued = 0, done = 0; /* pieces scanned, pieces encoded (ring slot: % BATCH_AHEAD) */
    for (;;) {
        while (queued - done < BATCH_AHEAD && scanned < n) {
            size_t q = queued++ % BATCH_AHEAD;
            start[q] = scanned;
            stop[q] = scanned = piece_end(kind, s, scanned, n);
            pc_prepare_for(cache, s + start[q], stop[q] - start[q], s + n, out != NULL, &key[q]);
        }
        if (done == queued)
            return total;
        size_t q = done++ % BATCH_AHEAD;
        Py_ssize_t k = cached_piece_at(&key[q], c, s + start[q], stop[q] - start[q], out ? out + total : NULL);
        if (k < 0)
            return k;
        total += k;
    }
}

/* Text i into its slots.  utf8 / cap: this thread's UTF-8 buffer, grown as needed;
   cache: the Core's piece cache (NULL: none). */
static void
one_of_batch(Batch *b, Py_ssize_t i, uint8_t **utf8, size_t *cap, PieceCache *cache)
{
    const uint8_t *s = b->data[i];
    Py_ssize_t n = b->len[i];
    int ascii_scan = b->ukind[i] == 0 && b->kind != 0;
    if (!ascii_scan && b->ukind[i] != 0) {
        size_t need = (size_t)n * 4 + 1;
        if (need > *cap) {
            free(*utf8);
            *utf8 = malloc(need);
            *cap = *utf8 ? need : 0;
            if (*utf8 == NULL) {
                b->count[i] = -2;
                return;
            }
        }
        n = presplit_utf8(b->ukind[i], b->data[i], n, *utf8);
        if (n < 0) {
            b->count[i] = -1; /* a lone surrogate: the Python path replaces it */
            return;
        }
        s = *utf8;
    }
    int32_t *out = NULL;
    if (b->encode && (out = malloc((size_t)(n + 1) * sizeof(int32_t))) == NULL) {
        b->count[i] = -2;
        return;
    }
    Py_ssize_t c;
    if (ascii_scan) {
        c = one_text(b->core, b->kind, s, n, out, cache);
        if (c > 0 && out != NULL && b->id_of != NULL)
            for (Py_ssize_t q = 0; q < c; q++)
                out[q] = out[q] < b->n_ids ? b->id_of[out[q]] : -1;
    } else {
        c = presplit_encode(b->core, b->spec, b->whole, s, n, out, b->id_of, b->n_ids, cache);
    }
    b->count[i] = c;
    if (out != NULL && c < 0) {
        free(out);
        out = NULL;
    }
    if (b->encode)
        b->tokens[i] = out;
}

/* The text at position k of the order the threads take them in. */
static inline Py_ssize_t
text_at(const Batch *b, Py_ssize_t k)
{
    return b->order ? b->order[k] : k;
}

static void
work(void *arg)
{
    Batch *b = arg;
    uint8_t *utf8 = NULL;
    size_t cap = 0;
    /* the Core's piece cache, shared by the threads (none if out of memory) */
    PieceCache *cache = core_piece_cache(b->core);
    Py_ssize_t limit = b->n_ranges > 0 ? b->n_long : b->n;
    for (;;) {
        size_t k = atomic_fetch_add(&b->next, 1);
        if (k >= (size_t)limit)
            break;
        one_of_batch(b, text_at(b, (Py_ssize_t)k), &utf8, &cap, cache);
    }
    int me = atomic_fetch_add(&b->joined, 1);
    for (Py_ssize_t k; me < b->n_ranges && (k = take_range(&b->range[me], 0)) >= 0;)
        one_of_batch(b, text_at(b, k), &utf8, &cap, cache);
    /* then from the back of the run with the most left (its far end from its owner) */
    for (;;) {
        int most = -1;
        uint64_t left = 0;
        for (int r = 0; r < b->n_ranges; r++) {
            uint64_t v = atomic_load_explicit(&b->range[r].w, memory_order_relaxed);
            uint64_t lo = v & 0xffffffffu, hi = v >> 32;
            if (hi > lo && hi - lo > left) {
                left = hi - lo;
                most = r;
            }
        }
        if (most < 0)
            break;
        Py_ssize_t k = take_range(&b->range[most], 1);
        if (k >= 0)
            one_of_batch(b, text_at(b, k), &utf8, &cap, cache);
    }
    free(utf8);
}

/* The order the threads take the texts in, into b->order (left NULL if out of memory:
   input order): the long ones first (more than twice the mean length), then the rest,
   each in input order.  The threads take texts one at a time, so the batch ends at most
   one text after the threads' work evens out; a long text taken last would leave the
   other threads idle while it runs.  O(n). */
static void
long_texts_first(Batch *b)
{
    Py_ssize_t total = 0, n = b->n, at = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += b->len[i];
    Py_ssize_t mean = n > 0 ? total / n : 0;
    int any = 0;
    for (Py_ssize_t i = 0; i < n && !any; i++)
        any = b->len[i] > 2 * mean;
    if (!any || (b->order = PyMem_RawMalloc((size_t)n * sizeof(*b->order))) == NULL)
        return;
    for (Py_ssize_t i = 0; i < n; i++)
        if (b->len[i] > 2 * mean)
            b->order[at++] = i;
    b->n_long = at;
    for (Py_ssize_t i = 0; i < n; i++)
        if (b->len[i] <= 2 * mean)
            b->order[at++] = i;
}

/* The positions n_long .. n - 1 of the order as threads runs of neighbours, about equal
   in characters, into b->range (0 runs if out of memory or too many texts for a run's
   32-bit ends: then every text goes through the shared counter, as the long ones).  The
   runs' shares need not be exact: a thread whose run is done takes from the others'.
   raw: the allocation (freed by the caller), b->range its first 64-byte boundary.  O(n). */
static void
split_ranges(Batch *b, int threads, void **raw)
{
    Py_ssize_t n = b->n, total = 0;
    if (n >= ((Py_ssize_t)1 << 31) || (*raw = PyMem_RawMalloc((size_t)(threads + 1) * sizeof(RangeLine))) == NULL)
        return;
    b->range = (RangeLine *)(((uintptr_t)*raw + sizeof(RangeLine) - 1) & ~(uintptr_t)(sizeof(RangeLine) - 1));
    for (Py_ssize_t k = b->n_long; k < n; k++)
        total += b->len[text_at(b, k)];
    Py_ssize_t at = b->n_long, seen = 0;
    for (int r = 0; r < threads; r++) {
        Py_ssize_t from = at;
        /* run r takes the texts whose middle lies in the r-th of threads equal shares of
           the characters (the last run: all that are left) */
        double share = (double)total * (r + 1) / threads;
        for (; at < n && (r == threads - 1 || seen + b->len[text_at(b, at)] / 2.0 < share); at++)
            seen += b->len[text_at(b, at)];
        atomic_init(&b->range[r].w, (uint64_t)from | (uint64_t)at << 32);
    }
    b->n_ranges = threads;
}

/* The result list of a batch run, built with the GIL. */
static PyObject *
batch_results(Batch *b)
{
    PyObject *result = PyList_New(b->n);
    for (Py_ssize_t i = 0; result != NULL && i < b->n; i++) {
        PyObject *v;
        Py_ssize_t c = b->count[i];
        if (c == -2) {
            Py_CLEAR(result);
            PyErr_NoMemory();
            break;
        }
        if (c < 0) {
            v = Py_None;
            Py_INCREF(v);
        } else if (!b->encode) {
            v = PyLong_FromSsize_t(c);
        } else {
            v = int_list(b->tokens[i], c);
        }
        if (v == NULL)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, i, v);
    }
    return result;
}

/* The texts of list on threads threads, b holding the rest of the call (core, kind,
   spec, whole, ids, encode); the result list, or NULL with an exception. */
static PyObject *
run_batch(Batch *b, PyObject *list, int threads)
{
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "num_threads must be >= 1");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    void *ranges = NULL; /* split_ranges' allocation */
    b->n = n;
    PyObject *keep = PyList_GetSlice(list, 0, n); /* the texts stay alive whatever the caller does */
    b->data = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b->data));
    b->len = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b->len));
    b->ukind = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b->ukind));
    b->count = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b->count));
    b->tokens = b->encode ? PyMem_RawCalloc((size_t)(n + 1), sizeof(*b->tokens)) : NULL;
    PyObject *result = NULL;
    if (!keep || !b->data || !b->len || !b->ukind || !b->count || (b->encode && !b->tokens)) {
        if (keep)
            PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(keep, i);
        if (!PyUnicode_Check(t)) {
            PyErr_Format(PyExc_TypeError, "text %zd is not a str", i);
            goto out;
        }
        int ascii = PyUnicode_IS_ASCII(t);
        if (!ascii && b->spec < 0) {
            PyErr_Format(PyExc_ValueError, "text %zd is not an ASCII str", i);
            goto out;
        }
        b->data[i] = PyUnicode_DATA(t);
        b->len[i] = PyUnicode_GET_LENGTH(t);
        b->ukind[i] = ascii ? 0 : PyUnicode_KIND(t);
    }
    if (threads > n)
        threads = n > 0 ? (int)n : 1;
    if (threads > 1) {
        long_texts_first(b);
        split_ranges(b, threads, &ranges);
    }
    atomic_init(&b->next, 0);
    atomic_init(&b->joined, 0);
    Py_BEGIN_ALLOW_THREADS
    pool_run(work, b, threads);
    Py_END_ALLOW_THREADS
    result = batch_results(b);
out:
    if (b->tokens) {
        for (Py_ssize_t i = 0; i < n; i++)
            free(b->tokens[i]);
        PyMem_RawFree(b->tokens);
    }
    PyMem_RawFree(b->data);
    PyMem_RawFree(b->len);
    PyMem_RawFree(b->ukind);
    PyMem_RawFree(b->count);
    PyMem_RawFree(b->order);
    PyMem_RawFree(ranges);
    Py_XDECREF(keep);
    return result;
}

static PyObject *
Core_ascii_batch(Core *self, PyObject *args)
{
    PyObject *list;
    int kind, threads, encode;
    if (!PyArg_ParseTuple(args, "O!iip", &PyList_Type, &list, &kind, &threads, &encode))
        return NULL;
    if (kind != SPLIT_CL100K && kind != SPLIT_O200K) {
        PyErr_SetString(PyExc_ValueError, "unknown pattern kind");
        return NULL;
    }
    Batch b;
    memset(&b, 0, sizeof(b));
    b.core = self;
    b.kind = kind;
    b.spec = -1;
    b.encode = encode;
    return run_batch(&b, list, threads);
}

static PyObject *
Core_text_batch(Core *self, PyObject *args)
{
    PyObject *list, *whole, *ids_arg;
    int kind, threads, encode;
    long spec;
    if (!PyArg_ParseTuple(args, "O!ilOOip", &PyList_Type, &list, &kind, &spec, &whole, &ids_arg, &threads, &encode))
        return NULL;
    if (kind != 0 && kind != SPLIT_CL100K && kind != SPLIT_O200K) {
        PyErr_SetString(PyExc_ValueError, "unknown pattern kind");
        return NULL;
    }
    Batch b;
    memset(&b, 0, sizeof(b));
    b.core = self;
    b.kind = kind;
    b.spec = spec;
    b.encode = encode;
    if (spec >= 0 && !presplit_spec_ok(spec))
        return NULL;
    if (presplit_whole_of(whole, &b.whole) < 0)
        return NULL;
    Py_buffer ids = {0};
    if (ids_of_arg(ids_arg, &ids, &b.id_of, &b.n_ids) < 0)
        return NULL;
    PyObject *result = run_batch(&b, list, threads);
    if (ids_arg != Py_None)
        PyBuffer_Release(&ids);
    return result;
}

static PyObject *
Core_clear_piece_cache(Core *self, PyObject *Py_UNUSED(ignored))
{
    core_piece_cache_clear(self);
    Py_RETURN_NONE;
}

PyMethodDef batch_methods[] = {
    {"clear_piece_cache", (PyCFunction)Core_clear_piece_cache, METH_NOARGS,
     "clear_piece_cache() -> None\n\n"
     "Forget the pieces the Core's piece cache holds (what a first call on a text costs;\n"
     "safe while other threads count)."},
    {"ascii_batch", (PyCFunction)Core_ascii_batch, METH_VARARGS,
     "ascii_batch(texts: list[str], kind, num_threads, encode) -> list\n\n"
     "For ASCII texts pre-split with the bundled pattern kind: the count (or, with\n"
     "encode, the token list) of each, in order, on num_threads threads without the\n"
     "GIL; None for a text holding a byte that is no token."},
    {"text_batch", (PyCFunction)Core_text_batch, METH_VARARGS,
     "text_batch(texts: list[str], kind, spec, whole, ids, num_threads, encode) -> list\n\n"
     "The count (or, with encode, the token list: ids[rank] with ids an array('i'), or\n"
     "ranks for None) of each text, in order, on num_threads threads without the GIL:\n"
     "ASCII texts pre-split with the bundled pattern kind (0: none), the others with the\n"
     "compiled scanner of the member spec (-1: none; every text must then be ASCII);\n"
     "whole is whole_set(...) or None.  None for a text C does not take (a byte that is\n"
     "no token, a whole-piece token, a lone surrogate): the Python path encodes it."},
    {NULL, NULL, 0, NULL},
};

int
batch_init(PyObject *module)
{
    init_ascii_class(); /* this file's copy of ascii_split.h's class table */
    (void)module;
    return 0;
}
