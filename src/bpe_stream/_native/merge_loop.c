/* The merge loop of BPE, compiled: the optional fast path for short pieces
(and, with ascii_split.h, for pre-splitting ASCII text).

Invariant: MergeTable.encode(piece) returns exactly what BPE's definition gives
(repeatedly merge the adjacent pair whose concatenation is the lowest-ranked token,
the leftmost such pair on equal ranks, until no adjacent pair forms a token); the
Python fallback ``bpe.merge_loop._merge_short`` is the same loop, and the tests compare both
with a naive reference BPE and with tiktoken.  It answers None instead of guessing:
for a piece longer than MAX_PIECE bytes (the linear backtracking encoder takes those)
and for a piece holding a byte that is no token (the Python path raises the clear
error naming it).

Complexity: each of the at most n - 1 merges scans the remaining pair ranks, so
O(n^2) integer comparisons and O(n) hash look-ups for a piece of n bytes; with
n <= MAX_PIECE that is at most MAX_PIECE comparisons per byte, a bounded constant.
The look-up table is built once per vocabulary in O(total token bytes).

Why a compiled loop at all: tiktoken's pre-split makes a count one dict look-up per
piece, except for pieces the process has not seen yet.  In pure Python each of those
costs 4-6 microseconds, which made a first pass over new text 2-6x slower than
tiktoken; here it costs well under one.  The module is optional: when it is not built
(no C compiler) or BPE_STREAM_PURE_PYTHON is set, the pure-Python path answers the
same.  The object is read-only after construction and every call works on its own
stack buffers, so one table is safe to share across threads.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "ascii_split.h"

#define MAX_PIECE 256
#define NO_RANK INT32_MAX

typedef struct {
    PyObject_HEAD
    unsigned char *blob;  /* all token bytes, concatenated in rank order */
    Py_ssize_t *offset;   /* token r is blob[offset[r] : offset[r + 1]] */
    int32_t *slots;       /* open addressing over token bytes: a rank, or -1 if empty */
    uint64_t mask;        /* len(slots) - 1, a power of two minus one */
    Py_ssize_t n_tokens;
    Py_ssize_t max_token_len; /* bytes of the longest token */
    int32_t byte_rank[256];
    int32_t *pair_rank;   /* 65536 entries: rank of the 2-byte token b0 b1, or NO_RANK */
} MergeTable;

static inline uint64_t
hash_bytes(const unsigned char *p, Py_ssize_t n)
{
    /* FNV-1a with a final mix: keys are short (pieces are looked up in slices of
       a few bytes), so a byte loop is as fast as anything wider. */
    uint64_t h = 0xcbf29ce484222325ULL ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL);
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

static inline int32_t
rank_of(const MergeTable *t, const unsigned char *p, Py_ssize_t n)
{
    if (n == 2)
        return t->pair_rank[(p[0] << 8) | p[1]];
    if (n == 1)
        return t->byte_rank[p[0]];
    uint64_t i = hash_bytes(p, n) & t->mask;
    for (;;) {
        int32_t r = t->slots[i];
        if (r < 0)
            return NO_RANK;
        Py_ssize_t a = t->offset[r];
        if (t->offset[r + 1] - a == n && memcmp(t->blob + a, p, (size_t)n) == 0)
            return r;
        i = (i + 1) & t->mask;
    }
}

/* BPE of data[0:n] (1 <= n <= MAX_PIECE) into out; the number of tokens, or -1 if a
   byte is no token. */
static Py_ssize_t
merge_loop(const MergeTable *t, const unsigned char *data, Py_ssize_t n, int32_t *out)
{
    /* Parts are data[start[k] : start[k + 1]]; rank[k] is the rank of parts k and
       k + 1 merged (NO_RANK if their concatenation is no token). */
    Py_ssize_t start[MAX_PIECE + 1];
    int32_t rank[MAX_PIECE];
    Py_ssize_t parts = n;
    for (Py_ssize_t k = 0; k <= n; k++)
        start[k] = k;
    for (Py_ssize_t k = 0; k + 1 < n; k++)
        rank[k] = t->pair_rank[(data[k] << 8) | data[k + 1]];
    while (parts > 1) {
        int32_t best = NO_RANK;
        Py_ssize_t at = -1;
        for (Py_ssize_t k = 0; k + 1 < parts; k++) {
            if (rank[k] < best) { /* strict: the leftmost of equal ranks wins */
                best = rank[k];
                at = k;
            }
        }
        if (at < 0)
            break;
        /* Merge parts at and at + 1: drop start[at + 1] and the pair rank it began. */
        memmove(&start[at + 1], &start[at + 2], (size_t)(parts - at - 1) * sizeof(start[0]));
        if (parts - at - 3 > 0)
            memmove(&rank[at + 1], &rank[at + 2], (size_t)(parts - at - 3) * sizeof(rank[0]));
        parts--;
        if (at + 1 < parts)
            rank[at] = rank_of(t, data + start[at], start[at + 2] - start[at]);
        if (at > 0)
            rank[at - 1] = rank_of(t, data + start[at - 1], start[at + 1] - start[at - 1]);
    }
    for (Py_ssize_t k = 0; k < parts; k++) {
        int32_t r = rank_of(t, data + start[k], start[k + 1] - start[k]);
        if (r == NO_RANK)
            return -1; /* only single bytes can be missing: every merge made a token */
        out[k] = r;
    }
    return parts;
}

static void
MergeTable_dealloc(MergeTable *self)
{
    PyMem_Free(self->blob);
    PyMem_Free(self->offset);
    PyMem_Free(self->slots);
    PyMem_Free(self->pair_rank);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
MergeTable_init(MergeTable *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tokens", NULL};
    PyObject *tokens_arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &tokens_arg))
        return -1;
    if (self->blob != NULL) {
        PyErr_SetString(PyExc_TypeError, "MergeTable is already initialised");
        return -1;
    }
    PyObject *tokens = PySequence_Fast(tokens_arg, "tokens must be a sequence of bytes");
    if (tokens == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tokens);
    PyObject **items = PySequence_Fast_ITEMS(tokens);
    if (n >= NO_RANK) {
        PyErr_SetString(PyExc_ValueError, "too many tokens");
        goto fail;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (!PyBytes_Check(items[r])) {
            PyErr_Format(PyExc_TypeError, "token %zd is %s, expected bytes", r,
                         Py_TYPE(items[r])->tp_name);
            goto fail;
        }
        total += PyBytes_GET_SIZE(items[r]);
    }
    uint64_t size = 16;
    while (size < 2 * (uint64_t)n)
        size <<= 1;
    self->blob = PyMem_Malloc(total ? (size_t)total : 1);
    self->offset = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    self->slots = PyMem_Malloc((size_t)size * sizeof(int32_t));
    self->pair_rank = PyMem_Malloc(65536 * sizeof(int32_t));
    if (!self->blob || !self->offset || !self->slots || !self->pair_rank) {
        PyErr_NoMemory();
        goto fail;
    }
    self->mask = size - 1;
    self->n_tokens = n;
    memset(self->slots, 0xff, (size_t)size * sizeof(int32_t));
    for (int b = 0; b < 256; b++)
        self->byte_rank[b] = NO_RANK;
    for (int b = 0; b < 65536; b++)
        self->pair_rank[b] = NO_RANK;
    Py_ssize_t at = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        Py_ssize_t len = PyBytes_GET_SIZE(items[r]);
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(items[r]);
        self->offset[r] = at;
        memcpy(self->blob + at, p, (size_t)len);
        at += len;
        self->offset[r + 1] = at;
        if (len > self->max_token_len)
            self->max_token_len = len;
        if (len == 0) {
            PyErr_Format(PyExc_ValueError, "token %zd is empty", r);
            goto fail;
        }
        /* The lowest rank wins if a token repeats (BytePairEncoding rejects that). */
        if (len == 1) {
            if (self->byte_rank[p[0]] == NO_RANK)
                self->byte_rank[p[0]] = (int32_t)r;
        } else if (len == 2) {
            if (self->pair_rank[(p[0] << 8) | p[1]] == NO_RANK)
                self->pair_rank[(p[0] << 8) | p[1]] = (int32_t)r;
        }
        uint64_t i = hash_bytes(p, len) & self->mask;
        for (;;) {
            int32_t s = self->slots[i];
            if (s < 0) {
                self->slots[i] = (int32_t)r;
                break;
            }
            if (self->offset[s + 1] - self->offset[s] == len &&
                memcmp(self->blob + self->offset[s], p, (size_t)len) == 0)
                break;
            i = (i + 1) & self->mask;
        }
    }
    Py_DECREF(tokens);
    return 0;
fail:
    Py_DECREF(tokens);
    return -1;
}

static PyObject *
tokens_tuple(const int32_t *out, Py_ssize_t count)
{
    PyObject *result = PyTuple_New(count);
    if (result == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *v = PyLong_FromLong(out[k]);
        if (v == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, k, v);
    }
    return result;
}

/* The UTF-8 bytes of a str piece: into buf (MAX_PIECE bytes) unless the piece is
   ASCII, whose characters are its bytes.  0 on success (*data, *n set); 1 if the
   piece has more than MAX_PIECE bytes or holds a surrogate (the Python path takes it).
   Encoding into a stack buffer avoids both a temporary bytes object and the UTF-8 copy
   PyUnicode_AsUTF8AndSize would keep on a string that becomes a long-lived cache key. */
static int
utf8_of(PyObject *piece, unsigned char *buf, const unsigned char **data, Py_ssize_t *n)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(piece);
    if (PyUnicode_IS_ASCII(piece)) {
        *data = (const unsigned char *)PyUnicode_DATA(piece);
        *n = len;
        return 0;
    }
    int kind = PyUnicode_KIND(piece);
    const void *chars = PyUnicode_DATA(piece);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, chars, i);
        if (c < 0x80) {
            if (at + 1 > MAX_PIECE)
                return 1;
            buf[at++] = (unsigned char)c;
        } else if (c < 0x800) {
            if (at + 2 > MAX_PIECE)
                return 1;
            buf[at++] = (unsigned char)(0xC0 | (c >> 6));
            buf[at++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF)
                return 1;
            if (at + 3 > MAX_PIECE)
                return 1;
            buf[at++] = (unsigned char)(0xE0 | (c >> 12));
            buf[at++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            buf[at++] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            if (at + 4 > MAX_PIECE)
                return 1;
            buf[at++] = (unsigned char)(0xF0 | (c >> 18));
            buf[at++] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
            buf[at++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            buf[at++] = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    *data = buf;
    *n = at;
    return 0;
}

/* BPE of data[0:n] into out: the number of tokens, or -1 if this loop does not take it
   (longer than MAX_PIECE bytes, or a byte that is no token). */
static Py_ssize_t
encode_into(const MergeTable *self, const unsigned char *data, Py_ssize_t n, int32_t *out)
{
    if (n == 0)
        return 0;
    if (n > MAX_PIECE)
        return -1;
    int32_t whole = rank_of(self, data, n);
    if (whole != NO_RANK) {
        out[0] = whole;
        return 1;
    }
    return merge_loop(self, data, n, out);
}

/* The tokens of a str or bytes piece into out: their number, -1 if this loop does not
   take the piece, -2 with an exception set on a wrong type. */
static Py_ssize_t
encode_piece(MergeTable *self, PyObject *piece, int32_t *out)
{
    unsigned char buf[MAX_PIECE];
    const unsigned char *data;
    Py_ssize_t n;
    if (PyBytes_Check(piece))
        return encode_into(self, (const unsigned char *)PyBytes_AS_STRING(piece),
                           PyBytes_GET_SIZE(piece), out);
    if (!PyUnicode_Check(piece)) {
        PyErr_Format(PyExc_TypeError, "expected str or bytes, got %s", Py_TYPE(piece)->tp_name);
        return -2;
    }
    if (utf8_of(piece, buf, &data, &n) != 0)
        return -1;
    return encode_into(self, data, n, out);
}

static PyObject *
MergeTable_encode(MergeTable *self, PyObject *piece)
{
    int32_t out[MAX_PIECE];
    if (self->blob == NULL) {
        PyErr_SetString(PyExc_ValueError, "MergeTable is not initialised");
        return NULL;
    }
    Py_ssize_t count = encode_piece(self, piece, out);
    if (count == -2)
        return NULL;
    if (count < 0)
        Py_RETURN_NONE;
    return tokens_tuple(out, count);
}

/* Count of one piece through a bounded dict cache (piece -> count).  A miss is
   encoded here and stored (if the piece has at most max_len characters; the cache is
   cleared when it holds max_entries, as encoding._PieceCountCache does); a piece this
   loop does not take (too long, a byte that is no token) goes to fallback(piece),
   the Python path, which caches on its own.  -1 with an exception set on error. */
static Py_ssize_t
cached_count(MergeTable *self, PyObject *piece, PyObject *cache, PyObject *fallback,
             Py_ssize_t max_len, Py_ssize_t max_entries)
{
    PyObject *hit = PyDict_GetItemWithError(cache, piece);
    if (hit != NULL)
        return PyLong_AsSsize_t(hit);
    if (PyErr_Occurred())
        return -1;
    int32_t out[MAX_PIECE];
    Py_ssize_t c = encode_piece(self, piece, out);
    if (c == -2)
        return -1;
    if (c == -1) {
        PyObject *r = PyObject_CallOneArg(fallback, piece);
        if (r == NULL)
            return -1;
        c = PyLong_AsSsize_t(r);
        Py_DECREF(r);
        return c;
    }
    if (PyUnicode_Check(piece) && PyUnicode_GET_LENGTH(piece) <= max_len) {
        if (PyDict_GET_SIZE(cache) >= max_entries)
            PyDict_Clear(cache);
        PyObject *v = PyLong_FromSsize_t(c);
        if (v == NULL || PyDict_SetItem(cache, piece, v) < 0) {
            Py_XDECREF(v);
            return -1;
        }
        Py_DECREF(v);
    }
    return c;
}

static int
check_cache_args(PyObject *cache, PyObject *fallback)
{
    if (!PyDict_Check(cache)) {
        PyErr_SetString(PyExc_TypeError, "cache must be a dict");
        return -1;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "fallback must be callable");
        return -1;
    }
    return 0;
}

static PyObject *
MergeTable_piece_counts(MergeTable *self, PyObject *args)
{
    PyObject *pieces_arg, *cache, *fallback;
    Py_ssize_t max_len, max_entries;
    if (!PyArg_ParseTuple(args, "OOOnn", &pieces_arg, &cache, &fallback, &max_len, &max_entries) ||
        check_cache_args(cache, fallback) < 0)
        return NULL;
    PyObject *pieces = PySequence_Fast(pieces_arg, "pieces must be a sequence of str");
    if (pieces == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(pieces);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(pieces);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t c = cached_count(self, PySequence_Fast_GET_ITEM(pieces, k), cache, fallback,
                                    max_len, max_entries);
        PyObject *v = c < 0 ? NULL : PyLong_FromSsize_t(c);
        if (v == NULL) {
            Py_DECREF(out);
            Py_DECREF(pieces);
            return NULL;
        }
        PyList_SET_ITEM(out, k, v);
    }
    Py_DECREF(pieces);
    return out;
}

/* The ASCII characters text[start:end] as bytes (the pointer is at text[start]): into
   text when it is stored one byte per character, else a copy in *buffer (to
   PyMem_Free).  NULL with ValueError if a character is not ASCII. */
static const unsigned char *
ascii_view(PyObject *text, Py_ssize_t start, Py_ssize_t end, unsigned char **buffer)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    *buffer = NULL;
    if (kind == PyUnicode_1BYTE_KIND) {
        const unsigned char *s = (const unsigned char *)data;
        if (!PyUnicode_IS_ASCII(text)) {
            for (Py_ssize_t i = start; i < end; i++)
                if (s[i] >= 128)
                    goto not_ascii;
        }
        return s + start;
    }
    *buffer = PyMem_Malloc((size_t)(end - start) + 1);
    if (*buffer == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch >= 128) {
            PyMem_Free(*buffer);
            *buffer = NULL;
            goto not_ascii;
        }
        (*buffer)[i - start] = (unsigned char)ch;
    }
    return *buffer;
not_ascii:
    PyErr_SetString(PyExc_ValueError, "the stretch holds a non-ASCII character");
    return NULL;
}

/* Arguments shared by the scanning methods: text, start, end, kind[, fallback[, limit]].
   On success *s points at the stretch's first character. */
static int
scan_args(PyObject *args, PyObject **text, Py_ssize_t *start, Py_ssize_t *end, int *kind,
          PyObject **fallback, Py_ssize_t *limit, const unsigned char **s, unsigned char **buffer)
{
    *fallback = NULL;
    *limit = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "Unni|On", text, start, end, kind, fallback, limit))
        return -1;
    Py_ssize_t len = PyUnicode_GET_LENGTH(*text);
    if (*start < 0 || *end > len || *start > *end) {
        PyErr_SetString(PyExc_IndexError, "stretch out of range");
        return -1;
    }
    if (*kind != SPLIT_CL100K && *kind != SPLIT_O200K) {
        PyErr_SetString(PyExc_ValueError, "unknown pattern kind");
        return -1;
    }
    *s = ascii_view(*text, *start, *end, buffer);
    return *s == NULL ? -1 : 0;
}

static PyObject *
MergeTable_split_ascii(MergeTable *self, PyObject *args)
{
    PyObject *text, *unused;
    Py_ssize_t start, end, no_limit;
    int kind;
    const unsigned char *s;
    unsigned char *buffer;
    if (scan_args(args, &text, &start, &end, &kind, &unused, &no_limit, &s, &buffer) < 0)
        return NULL;
    (void)self;
    /* The pattern sees the stretch as the whole text. */
    const unsigned char *t = s;
    Py_ssize_t n = end - start;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < n;) {
        Py_ssize_t j = piece_end(kind, t, i, n);
        PyObject *v = PyLong_FromSsize_t(start + j);
        if (v == NULL || PyList_Append(out, v) < 0)
            Py_CLEAR(out);
        Py_XDECREF(v);
        i = j;
    }
    PyMem_Free(buffer);
    return out;
}

/* The tokens of the ASCII piece t[i:j] (text positions start + i ...): appended to
   out if it is a list; their number is returned.  The whole piece if it is a token,
   else the merge loop, else fallback(piece) (tokens for a list, else a count). */
static Py_ssize_t
ascii_piece(MergeTable *self, PyObject *text, Py_ssize_t start, const unsigned char *t,
            Py_ssize_t i, Py_ssize_t j, PyObject *fallback, PyObject *out)
{
    int32_t tokens[MAX_PIECE];
    Py_ssize_t count = encode_into(self, t + i, j - i, tokens);
    if (count >= 0) {
        for (Py_ssize_t k = 0; out != NULL && k < count; k++) {
            PyObject *v = PyLong_FromLong(tokens[k]);
            if (v == NULL || PyList_Append(out, v) < 0) {
                Py_XDECREF(v);
                return -1;
            }
            Py_DECREF(v);
        }
        return count;
    }
    PyObject *piece = PyUnicode_Substring(text, start + i, start + j);
    if (piece == NULL)
        return -1;
    PyObject *r = PyObject_CallOneArg(fallback, piece);
    Py_DECREF(piece);
    if (r == NULL)
        return -1;
    if (out == NULL) {
        count = PyLong_AsSsize_t(r);
    } else {
        /* extend out by the fallback's tokens (public API: _PyList_Extend is not in
           the headers of Python 3.13, where this file would then not build) */
        Py_ssize_t before = PyList_GET_SIZE(out);
        count = PyList_SetSlice(out, before, before, r) < 0 ? -1 : PyList_GET_SIZE(out) - before;
    }
    Py_DECREF(r);
    return count;
}

/* count_ascii (out NULL) and encode_ascii (out a list); a count stops as soon as it
   exceeds limit (then the total returned is only known to be > limit). */
static PyObject *
scan_ascii(MergeTable *self, PyObject *args, int encode)
{
    PyObject *text, *fallback;
    Py_ssize_t start, end, limit;
    int kind;
    const unsigned char *s;
    unsigned char *buffer;
    if (scan_args(args, &text, &start, &end, &kind, &fallback, &limit, &s, &buffer) < 0)
        return NULL;
    if (encode)
        limit = PY_SSIZE_T_MAX;
    if (fallback == NULL || !PyCallable_Check(fallback)) {
        PyMem_Free(buffer);
        PyErr_SetString(PyExc_TypeError, "needs a callable fallback");
        return NULL;
    }
    PyObject *out = NULL;
    if (encode && (out = PyList_New(0)) == NULL) {
        PyMem_Free(buffer);
        return NULL;
    }
    const unsigned char *t = s;
    Py_ssize_t n = end - start, total = 0;
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t j = piece_end(kind, t, i, n);
        Py_ssize_t longest = self->max_token_len > 0 ? self->max_token_len : 1;
        if (limit != PY_SSIZE_T_MAX && j - i > MAX_PIECE && (j - i + longest - 1) / longest > limit - total) {
            /* a token has at most max_token_len bytes: this piece alone passes the limit
               (and is not copied out for the fallback) */
            total = limit + 1;
            break;
        }
        Py_ssize_t c = ascii_piece(self, text, start, t, i, j, fallback, out);
        if (c < 0) {
            Py_XDECREF(out);
            PyMem_Free(buffer);
            return NULL;
        }
        total += c;
        if (total > limit)
            break;
        i = j;
    }
    PyMem_Free(buffer);
    return encode ? out : PyLong_FromSsize_t(total);
}

static PyObject *
MergeTable_count_ascii(MergeTable *self, PyObject *args)
{
    return scan_ascii(self, args, 0);
}

static PyObject *
MergeTable_encode_ascii(MergeTable *self, PyObject *args)
{
    return scan_ascii(self, args, 1);
}

static PyMethodDef MergeTable_methods[] = {
    {"encode", (PyCFunction)MergeTable_encode, METH_O,
     "encode(piece: str | bytes) -> tuple[int, ...] | None\n\n"
     "BPE of one piece by the merge loop; None if the piece is longer than\n"
     "max_piece bytes or holds a byte that is no token."},
    {"piece_counts", (PyCFunction)MergeTable_piece_counts, METH_VARARGS,
     "piece_counts(pieces, cache, fallback, max_len, max_entries) -> list[int]\n\n"
     "The token count of each piece, read from and stored into cache (a dict\n"
     "piece -> count; pieces of at most max_len characters, cleared at max_entries);\n"
     "pieces encode() does not take are counted by fallback(piece)."},
    {"split_ascii", (PyCFunction)MergeTable_split_ascii, METH_VARARGS,
     "split_ascii(text, start, end, kind) -> list[int]\n\n"
     "End positions of the pre-split pieces of the ASCII stretch text[start:end],\n"
     "split as a whole text with the bundled pattern kind (1 cl100k, 2 o200k)."},
    {"count_ascii", (PyCFunction)MergeTable_count_ascii, METH_VARARGS,
     "count_ascii(text, start, end, kind, fallback, limit=None) -> int\n\n"
     "Token count of the ASCII stretch text[start:end] pre-split as split_ascii does;\n"
     "a piece longer than max_piece bytes is counted by fallback(piece).  With a\n"
     "limit the scan stops once the count exceeds it (the result is then > limit)."},
    {"encode_ascii", (PyCFunction)MergeTable_encode_ascii, METH_VARARGS,
     "encode_ascii(text, start, end, kind, fallback) -> list[int]\n\n"
     "Tokens of the ASCII stretch text[start:end] pre-split as split_ascii does;\n"
     "a piece longer than max_piece bytes is encoded by fallback(piece)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MergeTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_stream._native._merge_loop.MergeTable",
    .tp_doc = "MergeTable(tokens: Sequence[bytes]): BPE's merge loop over a vocabulary\n"
              "(token id == position), for pieces of at most max_piece bytes.",
    .tp_basicsize = sizeof(MergeTable),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)MergeTable_init,
    .tp_dealloc = (destructor)MergeTable_dealloc,
    .tp_methods = MergeTable_methods,
};

static struct PyModuleDef merge_loop_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bpe_stream._native._merge_loop",
    .m_doc = "BPE's merge loop for short pieces, compiled (optional; see bpe/merge_loop.py).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__merge_loop(void)
{
    init_ascii_class();
    if (PyType_Ready(&MergeTableType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&merge_loop_module);
    if (m == NULL)
        return NULL;
#ifdef Py_GIL_DISABLED
    /* free-threaded CPython: the table is read-only after construction and every call
       works on its own buffers (see the opening comment), so no GIL is needed */
    PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED);
#endif
    Py_INCREF(&MergeTableType);
    if (PyModule_AddObject(m, "MergeTable", (PyObject *)&MergeTableType) < 0 ||
        PyModule_AddIntConstant(m, "max_piece", MAX_PIECE) < 0 ||
        PyModule_AddIntConstant(m, "SPLIT_CL100K", SPLIT_CL100K) < 0 ||
        PyModule_AddIntConstant(m, "SPLIT_O200K", SPLIT_O200K) < 0) {
        Py_DECREF(&MergeTableType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
