/* BPE of one piece: the merge loop for short pieces, the backtracking encoder for
long ones; and the ASCII fast path (split with ascii_split.h, encode in C).

Invariant: encode_any(core, piece) is the piece's token when the whole piece is one
(unreachable tokens included, as tiktoken looks the piece up first), else exactly
what BPE's definition gives
(repeatedly merge the adjacent pair whose concatenation is the lowest-ranked token,
the leftmost such pair on equal ranks, until no adjacent pair forms a token).  For
at most SHORT_PIECE bytes it runs that definition (the merge loop; the Python twin
is bpe/merge_loop.py _merge_short), for longer pieces the backtracking encoder
(backtracking.c), whose answer is the same encoding.  A piece holding a byte that is
no token is answered -1 (the Python path raises the clear error naming it).  The
tests compare both with a naive reference BPE and with tiktoken.

Complexity: the merge loop is O(n^2) comparisons on n <= SHORT_PIECE bytes (a
bounded constant per byte), the backtracking encoder linear in practice; the
scanners are O(text).  Counting and encoding ASCII stretches run without the GIL
(only a piece that needs the Python fallback takes it back).
*/
#include "core.h"
#include "ascii_split.h"
#include "piece_cache.h"

#include <stdlib.h>

/* Pieces up to this many bytes go through the merge loop (no set-up), longer ones
   through the backtracking encoder. */
#define SHORT_PIECE 24
/* str pieces up to this many bytes are encoded into a stack buffer. */
#define MAX_PIECE 256

/* BPE of data[0:n] (1 <= n <= SHORT_PIECE) by its definition, into out; the number
   of tokens (every byte is a token). */
static Py_ssize_t
merge_loop(const Core *t, const unsigned char *data, Py_ssize_t n, int32_t *out)
{
    /* Parts are data[start[k] : start[k + 1]]; rank[k] is the rank of parts k and
       k + 1 merged (NO_RANK if their concatenation is no token). */
    Py_ssize_t start[SHORT_PIECE + 1];
    int32_t rank[SHORT_PIECE];
    Py_ssize_t parts = n;
    for (Py_ssize_t k = 0; k <= n; k++)
        start[k] = k;
    for (Py_ssize_t k = 0; k + 1 < n; k++)
        rank[k] = rank_of(t, data + k, 2);
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
    for (Py_ssize_t k = 0; k < parts; k++)
        out[k] = rank_of(t, data + start[k], start[k + 1] - start[k]);
    return parts;
}

Py_ssize_t
encode_any(const Core *c, const unsigned char *data, Py_ssize_t n, int32_t *out)
{
    if (n == 0)
        return 0;
    int32_t whole = rank_of_any(c, data, n);
    if (whole != NO_RANK) {
        out[0] = whole;
        return 1;
    }
    if (first_missing_byte(c, data, n) >= 0)
        return -1;
    if (n <= SHORT_PIECE)
        return merge_loop(c, data, n, out);
    Py_ssize_t k = bt_encode(c, data, n, out);
    return k < 0 ? -2 : k;
}

Py_ssize_t
count_any(const Core *c, const unsigned char *data, Py_ssize_t n)
{
    int32_t out[SHORT_PIECE];
    if (n == 0)
        return 0;
    if (rank_of_any(c, data, n) != NO_RANK)
        return 1;
    if (first_missing_byte(c, data, n) >= 0)
        return -1;
    if (n <= SHORT_PIECE)
        return merge_loop(c, data, n, out);
    Py_ssize_t k = bt_count(c, data, n);
    return k < 0 ? -2 : k;
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


/* The bytes of a str or bytes piece: *data and *n point into the piece, into buf, or into
   *temp (a bytes object to release).  0 on success, 1 if the piece holds a surrogate
   (the Python path takes it), -1 with an exception on a wrong type. */
static int
piece_bytes(PyObject *piece, unsigned char *buf, const unsigned char **data, Py_ssize_t *n, PyObject **temp)
{
    *temp = NULL;
    if (PyBytes_Check(piece)) {
        *data = (const unsigned char *)PyBytes_AS_STRING(piece);
        *n = PyBytes_GET_SIZE(piece);
        return 0;
    }
    if (!PyUnicode_Check(piece)) {
        PyErr_Format(PyExc_TypeError, "expected str or bytes, got %s", Py_TYPE(piece)->tp_name);
        return -1;
    }
    if (utf8_of(piece, buf, data, n) == 0)
        return 0;
    *temp = PyUnicode_AsUTF8String(piece);
    if (*temp == NULL) { /* a lone surrogate */
        PyErr_Clear();
        return 1;
    }
    *data = (const unsigned char *)PyBytes_AS_STRING(*temp);
    *n = PyBytes_GET_SIZE(*temp);
    return 0;
}

/* encode (want_tokens) or count one piece: the count, -1 if the Python path must take
   it (a byte that is no token, a surrogate), -2 with an exception set.  *tokens is
   set to a tuple when want_tokens. */
static Py_ssize_t
piece_work(Core *self, PyObject *piece, int want_tokens, PyObject **tokens)
{
    unsigned char buf[MAX_PIECE];
    int32_t small[MAX_PIECE];
    const unsigned char *data;
    Py_ssize_t n, k;
    PyObject *temp;
    int rc = piece_bytes(piece, buf, &data, &n, &temp);
    if (rc != 0)
        return rc < 0 ? -2 : -1;
    if (!want_tokens) {
        if (n > 4096) {
            Py_BEGIN_ALLOW_THREADS
            k = count_any(self, data, n);
            Py_END_ALLOW_THREADS
        } else {
            k = count_any(self, data, n);
        }
    } else {
        int32_t *out = n <= MAX_PIECE ? small : PyMem_RawMalloc((size_t)n * sizeof(int32_t));
        if (out == NULL) {
            Py_XDECREF(temp);
            PyErr_NoMemory();
            return -2;
        }
        if (n > 4096) {
            Py_BEGIN_ALLOW_THREADS
            k = encode_any(self, data, n, out);
            Py_END_ALLOW_THREADS
        } else {
            k = encode_any(self, data, n, out);
        }
        if (k >= 0 && (*tokens = tokens_tuple(out, k)) == NULL)
            k = -3;
        if (out != small)
            PyMem_RawFree(out);
    }
    Py_XDECREF(temp);
    if (k == -2) {
        PyErr_NoMemory();
        return -2;
    }
    return k == -3 ? -2 : k;
}

static PyObject *
Core_encode(Core *self, PyObject *piece)
{
    PyObject *tokens = NULL;
    Py_ssize_t k = piece_work(self, piece, 1, &tokens);
    if (k == -2)
        return NULL;
    if (k == -1)
        Py_RETURN_NONE;
    return tokens;
}

static PyObject *
Core_count(Core *self, PyObject *piece)
{
    Py_ssize_t k = piece_work(self, piece, 0, NULL);
    if (k == -2)
        return NULL;
    if (k == -1)
        Py_RETURN_NONE;
    return PyLong_FromSsize_t(k);
}

/* Count of one piece through a bounded dict cache (piece -> count).  A miss is
   counted here and stored (if the piece has at most max_len characters; the cache is
   cleared when it holds max_entries, as text.piece_encoder._PieceCountCache does); a
   piece this code does not take goes to fallback(piece), the Python path, which
   caches on its own.  -1 with an exception set on error. */
Py_ssize_t
cached_count(Core *self, PyObject *piece, PyObject *cache, PyObject *fallback, Py_ssize_t max_len,
             Py_ssize_t max_entries)
{
    PyObject *hit = PyDict_GetItemWithError(cache, piece);
    if (hit != NULL)
        return PyLong_AsSsize_t(hit);
    if (PyErr_Occurred())
        return -1;
    Py_ssize_t c = piece_work(self, piece, 0, NULL);
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
Core_piece_counts(Core *self, PyObject *args)
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
        Py_ssize_t c = cached_count(self, PySequence_Fast_GET_ITEM(pieces, k), cache, fallback, max_len, max_entries);
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

/* Arguments shared by the scanning methods: text, start, end, kind[, fallback[, limit]].
   On success *s points at the stretch's first character. */
static int
scan_args(PyObject *args, PyObject **text, Py_ssize_t *start, Py_ssize_t *end, int *kind, PyObject **fallback,
          Py_ssize_t *limit, const unsigned char **s, unsigned char **buffer)
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
Core_split_ascii(Core *self, PyObject *args)
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
    Py_ssize_t n = end - start;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < n;) {
        Py_ssize_t j = piece_end(kind, s, i, n);
        PyObject *v = PyLong_FromSsize_t(start + j);
        if (v == NULL || PyList_Append(out, v) < 0)
            Py_CLEAR(out);
        Py_XDECREF(v);
        i = j;
    }
    PyMem_Free(buffer);
    return out;
}

/* Release the GIL for stretches at least this long. */
#define NOGIL_STRETCH 512

/* count_ascii (encode 0) and encode_ascii (encode 1).  The pieces are split and
   encoded in C without the GIL, short ones through the Core's piece cache; a piece C does not take (a byte that is no token) is
   handed to fallback(piece) with the GIL (tokens for encode, else a count).  A count
   stops as soon as it exceeds limit (the total returned is then only known to be
   > limit); a piece whose minimal count (a token has at most max_token_len bytes)
   passes the limit alone is not encoded at all. */
static PyObject *
scan_ascii(Core *self, PyObject *args, int encode)
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
    Py_ssize_t n = end - start, total = 0, i = 0, k = 0;
    int32_t *toks = NULL;
    if (encode && (toks = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t))) == NULL) {
        PyMem_Free(buffer);
        return PyErr_NoMemory();
    }
    Py_ssize_t longest = self->max_token_len > 0 ? self->max_token_len : 1;
    PieceCache *cache = core_piece_cache(self);
    PyObject *result = NULL;
    while (i < n) {
        Py_ssize_t j = i, c = 0;
        int over = 0;
        PyThreadState *ts = n >= NOGIL_STRETCH ? PyEval_SaveThread() : NULL;
        /* one piece ahead: its cache entry loads while this one is encoded */
        Py_ssize_t next_end = piece_end(kind, s, i, n);
        PieceKey key, next_key;
        pc_prepare_for(cache, s + i, next_end - i, s + n, encode, &next_key);
        for (; i < n; i = j) {
            j = next_end;
            key = next_key;
            if (j < n) {
                next_end = piece_end(kind, s, j, n);
                pc_prepare_for(cache, s + j, next_end - j, s + n, encode, &next_key);
            }
            if (limit != PY_SSIZE_T_MAX && j - i > MAX_PIECE && (j - i + longest - 1) / longest > limit - total) {
                over = 1;
                break;
            }
            c = cached_piece_at(&key, self, s + i, j - i, encode ? toks + k : NULL);
            if (c < 0)
                break;
            k += encode ? c : 0;
            total += c;
            if (total > limit) {
                over = 1;
                break;
            }
        }
        if (ts != NULL)
            PyEval_RestoreThread(ts);
        if (over) {
            total = limit + 1;
            break;
        }
        if (i >= n)
            break;
        if (c == -2) {
            PyErr_NoMemory();
            goto done;
        }
        /* the Python path takes the piece s[i:j] */
        if (fallback_into(fallback, PyUnicode_Substring(text, start + i, start + j), j - i,
                          encode ? toks : NULL, &k, &total) < 0)
            goto done;
        if (total > limit)
            break;
        i = j;
    }
    result = encode ? int_list(toks, k) : PyLong_FromSsize_t(total);
done:
    PyMem_RawFree(toks);
    PyMem_Free(buffer);
    return result;
}

static PyObject *
Core_count_ascii(Core *self, PyObject *args)
{
    return scan_ascii(self, args, 0);
}

static PyObject *
Core_encode_ascii(Core *self, PyObject *args)
{
    return scan_ascii(self, args, 1);
}

PyMethodDef merge_loop_methods[] = {
    {"encode", (PyCFunction)Core_encode, METH_O,
     "encode(piece: str | bytes) -> tuple[int, ...] | None\n\n"
     "BPE of one piece (the merge loop, or the backtracking encoder for long pieces);\n"
     "None if the piece holds a byte that is no token or a lone surrogate."},
    {"count", (PyCFunction)Core_count, METH_O,
     "count(piece: str | bytes) -> int | None: len(encode(piece)), or None as encode."},
    {"piece_counts", (PyCFunction)Core_piece_counts, METH_VARARGS,
     "piece_counts(pieces, cache, fallback, max_len, max_entries) -> list[int]\n\n"
     "The token count of each piece, read from and stored into cache (a dict\n"
     "piece -> count; pieces of at most max_len characters, cleared at max_entries);\n"
     "pieces encode() does not take are counted by fallback(piece)."},
    {"split_ascii", (PyCFunction)Core_split_ascii, METH_VARARGS,
     "split_ascii(text, start, end, kind) -> list[int]\n\n"
     "End positions of the pre-split pieces of the ASCII stretch text[start:end],\n"
     "split as a whole text with the bundled pattern kind (1 cl100k, 2 o200k)."},
    {"count_ascii", (PyCFunction)Core_count_ascii, METH_VARARGS,
     "count_ascii(text, start, end, kind, fallback, limit=None) -> int\n\n"
     "Token count of the ASCII stretch text[start:end] pre-split as split_ascii does;\n"
     "a piece with a byte that is no token is counted by fallback(piece).  With a\n"
     "limit the scan stops once the count exceeds it (the result is then > limit)."},
    {"encode_ascii", (PyCFunction)Core_encode_ascii, METH_VARARGS,
     "encode_ascii(text, start, end, kind, fallback) -> list[int]\n\n"
     "Tokens of the ASCII stretch text[start:end] pre-split as split_ascii does;\n"
     "a piece with a byte that is no token is encoded by fallback(piece)."},
    {NULL, NULL, 0, NULL},
};

int
merge_loop_init(PyObject *module)
{
    init_ascii_class();
    if (PyModule_AddIntConstant(module, "max_piece", MAX_PIECE) < 0 ||
        PyModule_AddIntConstant(module, "short_piece", SHORT_PIECE) < 0 ||
        PyModule_AddIntConstant(module, "SPLIT_CL100K", SPLIT_CL100K) < 0 ||
        PyModule_AddIntConstant(module, "SPLIT_O200K", SPLIT_O200K) < 0)
        return -1;
    return 0;
}
