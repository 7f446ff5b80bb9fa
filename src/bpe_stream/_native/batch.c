/* Batches of ASCII texts counted or encoded on several threads, in C.

Core.ascii_batch(texts, kind, num_threads, encode) takes a list of ASCII str (each
pre-split with the bundled pattern kind by ascii_split.h and encoded piece by piece
as merge_loop.c does) and returns, in input order, the count (encode false) or the
list of tokens (encode true) of each, or None for a text C does not take (a piece
with a byte that is no token: the caller's Python path raises the clear error).

Invariant: result[i] is what count_ascii / encode_ascii give for texts[i] alone; the
threads share nothing but a counter of the next text to take (atomic) and the
immutable Core, and each writes only its own texts' slots.  The pointers to the
texts' characters are taken with the GIL, which is then released for the whole
batch: the list keeps the texts alive, and a str never changes.  Worker threads are
raw OS threads (PyThread_start_new_thread) that call no Python API; the calling
thread works too, then waits on a lock released by the last worker.  Cost: the sum
of the texts' costs spread over the threads, plus one thread start per extra thread.
*/
#include "core.h"
#include "ascii_split.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "pythread.h"

typedef struct {
    const Core *core;
    int kind;
    int encode;
    Py_ssize_t n;
    const unsigned char **data;
    Py_ssize_t *len;
    Py_ssize_t *count;  /* per text: the count, or -1 (C does not take it), -2 (no memory) */
    int32_t **tokens;   /* per text (encode): its tokens, malloc'ed */
    atomic_size_t next;
    atomic_int running; /* workers still running, the calling thread included */
    PyThread_type_lock done;
} Batch;

/* The count (and tokens into out, if not NULL: room for n entries) of one ASCII
   text; -1 if a piece holds a byte that is no token, -2 out of memory. */
static Py_ssize_t
one_text(const Core *c, int kind, const unsigned char *s, Py_ssize_t n, int32_t *out)
{
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0, j; i < n; i = j) {
        j = piece_end(kind, s, i, n);
        Py_ssize_t k = out ? encode_any(c, s + i, j - i, out + total) : count_any(c, s + i, j - i);
        if (k < 0)
            return k;
        total += k;
    }
    return total;
}

static void
work(Batch *b)
{
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= (size_t)b->n)
            break;
        int32_t *out = NULL;
        if (b->encode) {
            out = malloc((size_t)(b->len[i] + 1) * sizeof(int32_t));
            if (out == NULL) {
                b->count[i] = -2;
                continue;
            }
        }
        b->count[i] = one_text(b->core, b->kind, b->data[i], b->len[i], out);
        if (b->encode) {
            if (b->count[i] < 0) {
                free(out);
                out = NULL;
            }
            b->tokens[i] = out;
        }
    }
    if (atomic_fetch_sub(&b->running, 1) == 1)
        PyThread_release_lock(b->done);
}

static void
worker(void *arg)
{
    work((Batch *)arg);
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
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "num_threads must be >= 1");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    Batch b;
    memset(&b, 0, sizeof(b));
    b.core = self;
    b.kind = kind;
    b.encode = encode;
    b.n = n;
    PyObject *keep = PyList_GetSlice(list, 0, n); /* the texts stay alive whatever the caller does */
    b.data = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b.data));
    b.len = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b.len));
    b.count = PyMem_RawMalloc((size_t)(n + 1) * sizeof(*b.count));
    b.tokens = encode ? PyMem_RawCalloc((size_t)(n + 1), sizeof(*b.tokens)) : NULL;
    PyObject *result = NULL;
    if (!keep || !b.data || !b.len || !b.count || (encode && !b.tokens)) {
        if (keep)
            PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(keep, i);
        if (!PyUnicode_Check(t) || !PyUnicode_IS_ASCII(t)) {
            PyErr_Format(PyExc_ValueError, "text %zd is not an ASCII str", i);
            goto out;
        }
        b.data[i] = (const unsigned char *)PyUnicode_DATA(t);
        b.len[i] = PyUnicode_GET_LENGTH(t);
    }
    if (threads > n)
        threads = n > 0 ? (int)n : 1;
    atomic_init(&b.next, 0);
    atomic_init(&b.running, threads);
    b.done = PyThread_allocate_lock();
    if (b.done == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    PyThread_acquire_lock(b.done, WAIT_LOCK);
    int started = 1;
    for (int k = 1; k < threads; k++) {
        if (PyThread_start_new_thread(worker, &b) == PYTHREAD_INVALID_THREAD_ID)
            break;
        started++;
    }
    /* threads that did not start will not run: count them as done */
    atomic_fetch_sub(&b.running, threads - started);
    Py_BEGIN_ALLOW_THREADS
    work(&b);
    PyThread_acquire_lock(b.done, WAIT_LOCK);
    Py_END_ALLOW_THREADS
    PyThread_free_lock(b.done);
    result = PyList_New(n);
    for (Py_ssize_t i = 0; result != NULL && i < n; i++) {
        PyObject *v;
        if (b.count[i] == -2) {
            Py_CLEAR(result);
            PyErr_NoMemory();
            break;
        }
        if (b.count[i] < 0) {
            v = Py_None;
            Py_INCREF(v);
        } else if (!encode) {
            v = PyLong_FromSsize_t(b.count[i]);
        } else {
            v = PyList_New(b.count[i]);
            for (Py_ssize_t q = 0; v != NULL && q < b.count[i]; q++) {
                PyObject *x = PyLong_FromLong(b.tokens[i][q]);
                if (x == NULL)
                    Py_CLEAR(v);
                else
                    PyList_SET_ITEM(v, q, x);
            }
        }
        if (v == NULL)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, i, v);
    }
out:
    if (b.tokens) {
        for (Py_ssize_t i = 0; i < n; i++)
            free(b.tokens[i]);
        PyMem_RawFree(b.tokens);
    }
    PyMem_RawFree(b.data);
    PyMem_RawFree(b.len);
    PyMem_RawFree(b.count);
    Py_XDECREF(keep);
    return result;
}

PyMethodDef batch_methods[] = {
    {"ascii_batch", (PyCFunction)Core_ascii_batch, METH_VARARGS,
     "ascii_batch(texts: list[str], kind, num_threads, encode) -> list\n\n"
     "For ASCII texts pre-split with the bundled pattern kind: the count (or, with\n"
     "encode, the token list) of each, in order, on num_threads threads without the\n"
     "GIL; None for a text holding a byte that is no token."},
    {NULL, NULL, 0, NULL},
};

int
batch_init(PyObject *module)
{
    init_ascii_class(); /* this file's copy of ascii_split.h's class table */
    (void)module;
    return 0;
}
