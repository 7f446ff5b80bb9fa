/* The common queries of the text interval index in one call (the reference is
text/intervals.py _TextIntervals.count, whose branches this follows one for one).

Invariant: TextQuery.count(i, j) is _TextIntervals.count(i, j) (the token count of
text[i:j]) whenever it answers (>= 0); it answers -1 -- "ask the Python index" -- for
every case it does not take: a branch below that the Python index reaches only through
a piece longer than SHORT characters, a long whitespace or one-character run, the
stability rule of the end side (a regex re-split), the regex start side, offsets that
are no exact ints or out of range.  So an answer is either the reference's or none.
What it takes: ends on whole-text piece boundaries, inside words (o200k's two-part words
included), punctuation runs and short whitespace pieces, and a few cases the reference
leaves to its regex, each argued where it is taken (starts: a word's letters after its
lead, inside a digit piece, a punctuation piece's newline tail or last character; ends:
inside a digit piece, a piece's first whitespace character) -- 97-99.5 % of random
queries on prose and multilingual text.  With the vocabulary's Core, a piece's count is
count_any of its UTF-8 bytes (written here from the text's characters) through the Core's
piece cache (piece_cache.h, shared with every other count); a piece the Core does not
take (a byte that is no token, a lone surrogate) goes, as without a Core, to the
encoding's piece-count cache (the dict the Python index reads too), looked up with a str
made here (merge_loop.c cached_count: the Python fallback for what C does not take).
The first way makes no Python object: the str, its hash and the dict look-up were about a
fifth of a query on multilingual text.

Characters are classed by the flags the Python index computes for the characters of
the text (fast_split's classes, the sets wc/ws/pc/zn/lm/mk, and Ll, Lm/Lo/M, N): an ASCII
table and a small hash table of the others (6 bytes a slot, two slots a character).  Complexity: O(log pieces) for the two bisections
plus O(SHORT) character reads and at most three cache look-ups per query.
*/
#include "core.h"
#include "piece_cache.h"

#include <string.h>

#define SHORT 64 /* _LONG in text/intervals.py: longer pieces keep a raw index there */

enum { F_WC = 1, F_WS = 2, F_PC = 4, F_ZN = 8, F_LM = 16, F_MK = 32, F_LL = 64, F_LMLOM = 128, F_N = 256 };
enum { DEFER = -1, FAIL = -2, NONE = -3 };

typedef struct {
    PyObject_HEAD
    PyObject *text;
    int kind;
    const void *data;
    Py_ssize_t n;
    Py_buffer starts, cum, ws_starts, ws_ends, cps, cpflags;
    Py_ssize_t nstarts, nws, ncp;
    uint16_t ascii[128];
    /* the flags of the other characters: open addressing (key 0 is free: every key is
       >= 128), at most half full, so a look-up is one or two probes */
    uint32_t *keys;
    uint16_t *vals;
    size_t mask;
    PyObject *counts; /* piece -> count (the encoding's cache, fills itself on a miss) */
    /* with the vocabulary's Core: a miss is counted in C (cached_count), the pieces the
       Core does not take by fallback; None: every look-up through counts[piece] */
    Core *core;
    PyObject *fallback;
    Py_ssize_t max_len, max_entries;
    int o200k, has_uni, views;
} TextQuery;

static PyTypeObject TextQueryType;

static inline long long
item(const Py_buffer *b, Py_ssize_t k)
{
    return b->itemsize == 4 ? ((const int32_t *)b->buf)[k] : ((const int64_t *)b->buf)[k];
}

/* number of items <= x (bisect.bisect_right) */
static Py_ssize_t
bisect(const Py_buffer *b, Py_ssize_t len, long long x)
{
    Py_ssize_t lo = 0, hi = len;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        if (x < item(b, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static inline Py_UCS4
ch(const TextQuery *q, Py_ssize_t k)
{
    return PyUnicode_READ(q->kind, q->data, k);
}

static inline unsigned
flags(const TextQuery *q, Py_ssize_t k)
{
    Py_UCS4 c = ch(q, k);
    if (c < 128)
        return q->ascii[c];
    for (size_t h = (c * 2654435761u) & q->mask;; h = (h + 1) & q->mask) {
        if (q->keys[h] == c)
            return q->vals[h];
        if (q->keys[h] == 0)
            return 0;
    }
}

#define HAS(q, k, f) ((flags(q, k) & (f)) != 0)
#define S(k) ((Py_ssize_t)item(&q->starts, (k)))
#define CUM(k) item(&q->cum, (k))

/* _piece_count for a short stretch: the cache's count of text[a:b] as one piece */
static long long
piece_count(const TextQuery *q, Py_ssize_t a, Py_ssize_t b)
{
    if (b - a > SHORT)
        return DEFER;
    if (q->core != NULL) {
        uint8_t utf8[4 * SHORT];
        Py_ssize_t n = presplit_utf8(q->kind, (const char *)q->data + a * q->kind, b - a, utf8);
        if (n >= 0) {
            Py_ssize_t c = cached_piece(core_piece_cache(q->core), q->core, utf8, n, utf8 + n, NULL);
            if (c >= 0)
                return c;
        }
    }
    PyObject *piece = PyUnicode_Substring(q->text, a, b);
    if (piece == NULL)
        return FAIL;
    if (q->core != NULL) {
        Py_ssize_t c = cached_count(q->core, piece, q->counts, q->fallback, q->max_len, q->max_entries);
        Py_DECREF(piece);
        return c < 0 ? FAIL : c;
    }
    PyObject *r = PyObject_GetItem(q->counts, piece);
    Py_DECREF(piece);
    if (r == NULL)
        return FAIL;
    long long c = PyLong_AsLongLong(r);
    Py_DECREF(r);
    return c == -1 && PyErr_Occurred() ? FAIL : c;
}

static long long
sum2(long long x, long long y)
{
    return x < 0 ? x : y < 0 ? y : x + y;
}

static int
is_word(const TextQuery *q, Py_ssize_t s, Py_ssize_t t)
{
    if (ch(q, s) == '\'')
        return 0;
    if (q->o200k)
        for (Py_ssize_t k = t - 3 > s ? t - 3 : s; k < t; k++)
            if (ch(q, k) == '\'')
                return 0;
    return 1;
}

static int
punct_piece(const TextQuery *q, Py_ssize_t s, Py_ssize_t t)
{
    if (ch(q, s) == ' ')
        return t - s >= 2 && HAS(q, s + 1, F_ZN);
    return HAS(q, s, F_ZN) && (t - s == 1 || !HAS(q, s + 1, F_LM));
}

static int
punct_from(const TextQuery *q, Py_ssize_t i, Py_ssize_t j)
{
    return HAS(q, i, F_ZN) && (j - i < 2 || !HAS(q, i + 1, F_LM));
}

static int
punct_suffix_ends(const TextQuery *q, Py_ssize_t i, Py_ssize_t t)
{
    if (ch(q, i) != '/' || t == q->n)
        return 1;
    return !HAS(q, t, F_ZN | F_MK);
}

static int
all_ws(const TextQuery *q, Py_ssize_t s, Py_ssize_t t)
{
    return HAS(q, s, F_WS) && HAS(q, t - 1, F_WS) && (t - s == 1 || HAS(q, s + 1, F_WS));
}

static int
o200k_word(const TextQuery *q, Py_ssize_t s, Py_ssize_t t)
{
    return is_word(q, s, t) && !punct_piece(q, s, t);
}

static int
has_lower(const TextQuery *q, Py_ssize_t a, Py_ssize_t b)
{
    for (Py_ssize_t k = a; k < b; k++)
        if (HAS(q, k, F_LL))
            return 1;
    return 0;
}

/* _o200k_word_suffix; DEFER for a long piece (the Python index keeps its Ll positions) */
static int
o200k_word_suffix(const TextQuery *q, Py_ssize_t k, Py_ssize_t i)
{
    Py_ssize_t s = S(k), t = S(k + 1);
    if (!(HAS(q, i, F_LM) && HAS(q, i - 1, F_LM) && o200k_word(q, s, t)))
        return 0;
    if (t - s > SHORT)
        return DEFER;
    return has_lower(q, i, t) || !has_lower(q, s, i);
}

static long long
o200k_word_count(const TextQuery *q, Py_ssize_t a, Py_ssize_t b)
{
    if (b - a > SHORT)
        return DEFER;
    if (has_lower(q, a, b))
        return piece_count(q, a, b);
    Py_ssize_t w = b - 1;
    while (w >= a && !HAS(q, w, F_LMLOM))
        w--;
    if (w < a || w + 1 == b)
        return piece_count(q, a, b);
    return sum2(piece_count(q, a, w + 1), piece_count(q, w + 1, b));
}

static long long
ws_count(const TextQuery *q, Py_ssize_t k, Py_ssize_t i, Py_ssize_t j)
{
    if (!q->o200k)
        return piece_count(q, i, j);
    if (S(k + 1) - S(k) > SHORT)
        return DEFER;
    Py_ssize_t nl = -1;
    for (Py_ssize_t x = j - 1; x >= i; x--) {
        Py_UCS4 c = ch(q, x);
        if (c == '\n' || c == '\r') {
            nl = x;
            break;
        }
    }
    Py_ssize_t m = nl + 1;
    if (m <= i || m == j)
        return piece_count(q, i, j);
    return sum2(piece_count(q, i, m), piece_count(q, m, j));
}

/* _within: a count, NONE (the reference goes on), DEFER or FAIL */
static long long
within(const TextQuery *q, Py_ssize_t k, Py_ssize_t i, Py_ssize_t j)
{
    Py_ssize_t s = S(k), t = S(k + 1);
    if (i == s && j == t)
        return CUM(k + 1) - CUM(k);
    if (j - i == 1)
        return piece_count(q, i, j);
    if (is_word(q, s, t) && HAS(q, t - 1, F_WC) && (i == s || (HAS(q, i, F_WC) && HAS(q, i - 1, F_WC))) &&
        (j == t || HAS(q, j - 1, F_WC)))
        return piece_count(q, i, j);
    if (all_ws(q, s, t))
        return ws_count(q, k, i, j);
    if (q->o200k && HAS(q, j - 1, F_LM) && (i == s || HAS(q, i, F_LM)) && o200k_word(q, s, t))
        return o200k_word_count(q, i, j);
    if (i > s ? punct_from(q, i, j) : punct_piece(q, s, t))
        return piece_count(q, i, j);
    return q->has_uni ? DEFER : NONE; /* _uniform_count */
}

static long long
query(const TextQuery *q, Py_ssize_t i, Py_ssize_t j)
{
    if (i == j)
        return 0;
    Py_ssize_t ki = bisect(&q->starts, q->nstarts, i) - 1;
    Py_ssize_t kj = bisect(&q->starts, q->nstarts, j - 1) - 1;
    Py_ssize_t s_i = S(ki);
    if (ki == kj) {
        long long c = within(q, ki, i, j);
        if (c != NONE)
            return c;
    }
    if (q->nws && HAS(q, j - 1, F_WS)) { /* _in_ws_run: only its "not in a long run" answer */
        Py_ssize_t x = bisect(&q->ws_starts, q->nws, j - 1) - 1;
        if (x >= 0) {
            Py_ssize_t rs = (Py_ssize_t)item(&q->ws_starts, x), re = (Py_ssize_t)item(&q->ws_ends, x);
            if (!(j > re || j - rs <= SHORT))
                return DEFER;
        }
    }
    /* end side */
    Py_ssize_t s_j = S(kj), t_j = S(kj + 1), ke;
    long long tail;
    if (j == t_j && !HAS(q, j - 1, F_WS)) {
        ke = kj + 1;
        tail = 0;
    } else if (HAS(q, j - 1, F_WC) && is_word(q, s_j, t_j)) {
        ke = kj;
        tail = piece_count(q, s_j, j);
    } else if (q->o200k && HAS(q, j - 1, F_LM) && o200k_word(q, s_j, t_j)) {
        ke = kj;
        tail = o200k_word_count(q, s_j, j);
    } else if (HAS(q, j - 1, F_PC) && ch(q, s_j) != '\'') {
        ke = kj;
        tail = piece_count(q, s_j, j);
    } else if ((ch(q, s_j) != ' ' || j - s_j >= 2) && punct_piece(q, s_j, t_j)) {
        ke = kj;
        tail = piece_count(q, s_j, j);
    } else if (all_ws(q, s_j, t_j) && (kj == 0 || !all_ws(q, S(kj - 1), s_j))) {
        ke = kj;
        tail = ws_count(q, kj, s_j, j);
    } else if (HAS(q, s_j, F_N)) {
        /* j inside a piece of one to three digits: no piece before it reads past its first
           digit (a digit ends every run of the patterns, \p{N}{1,3} stops at three), and
           text[s_j:j] is one piece */
        ke = kj;
        tail = piece_count(q, s_j, j);
    } else if (j - 1 == s_j && HAS(q, s_j, F_WS) && (s_j == 0 || !HAS(q, s_j - 1, F_WS))) {
        /* text[:j] ends with the first character of a piece, a whitespace one after a
           non-whitespace one: the pieces before it stop there as in the whole text (rule 1
           of the reference at s_j), and one whitespace character is one piece */
        ke = kj;
        tail = piece_count(q, s_j, j);
    } else {
        return DEFER; /* the stability rule: a regex re-split */
    }
    if (tail < 0)
        return tail;
    /* start side */
    if (s_i == i)
        return ki <= ke ? CUM(ke) - CUM(ki) + tail : DEFER;
    Py_ssize_t e = S(ke), t_i = S(ki + 1);
    if (t_i > e)
        return DEFER;
    int one = HAS(q, i, F_WC) && HAS(q, i - 1, F_WC) && is_word(q, s_i, t_i);
    if (!one && q->o200k) {
        int r = o200k_word_suffix(q, ki, i);
        if (r == DEFER)
            return DEFER;
        one = r;
    }
    if (!one)
        /* i just after the one-character lead of a word piece (no letter or mark: a mark
           would be a lead of its own from i): from i the same alternative matches the
           letters after the lead, to the piece's end */
        one = i == s_i + 1 && HAS(q, i, F_LM) && !HAS(q, i, F_MK) && !HAS(q, s_i, F_LM) && is_word(q, s_i, t_i);
    if (!one && HAS(q, s_i, F_N))
        /* inside a piece of digits that ends the digit run: from i the same digits */
        one = t_i == q->n || !HAS(q, t_i, F_N);
    if (!one && (t_i == q->n || !HAS(q, t_i, F_WS))) {
        /* i in the newline tail of a punctuation piece, before a non-whitespace
           character: \s*[\r\n]+ matches the newlines from i to the piece's end */
        Py_ssize_t x = i;
        while (x < t_i && (ch(q, x) == '\n' || ch(q, x) == '\r'))
            x++;
        one = x == t_i;
    }
    if (!one && t_i - i == 1 && HAS(q, i, F_ZN))
        /* the last character of a punctuation piece, followed by no letter, mark or
           punctuation (which would make it a word's lead or extend its run) nor a newline
           (its tail): from i the punctuation alternative matches it alone */
        one = t_i == q->n || (!HAS(q, t_i, F_ZN | F_MK | F_LM) && ch(q, t_i) != '\n' && ch(q, t_i) != '\r');
    if (!one)
        one = (t_i - i >= 2 && punct_from(q, i, t_i) && punct_suffix_ends(q, i, t_i)) || all_ws(q, s_i, t_i);
    if (!one)
        return DEFER;
    long long head = piece_count(q, i, t_i);
    if (head < 0)
        return head;
    return head + CUM(ke) - CUM(ki + 1) + tail;
}

static PyObject *
TextQuery_count(TextQuery *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyLong_CheckExact(args[0]) || !PyLong_CheckExact(args[1]))
        return PyLong_FromLong(DEFER);
    Py_ssize_t i = PyLong_AsSsize_t(args[0]), j = PyLong_AsSsize_t(args[1]);
    if ((i == -1 || j == -1) && PyErr_Occurred()) {
        PyErr_Clear();
        return PyLong_FromLong(DEFER);
    }
    if (i < 0 || i > j || j > self->n)
        return PyLong_FromLong(DEFER);
    long long c = query(self, i, j);
    if (c == FAIL)
        return NULL;
    return PyLong_FromLongLong(c < 0 ? DEFER : c);
}

static void
TextQuery_dealloc(TextQuery *self)
{
    Py_buffer *views[] = {&self->starts, &self->cum, &self->ws_starts, &self->ws_ends, &self->cps, &self->cpflags};
    for (int k = 0; k < self->views; k++)
        PyBuffer_Release(views[k]);
    PyMem_Free(self->keys);
    PyMem_Free(self->vals);
    Py_XDECREF(self->text);
    Py_XDECREF(self->counts);
    Py_XDECREF(self->core);
    Py_XDECREF(self->fallback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef TextQuery_methods[] = {
    {"count", (PyCFunction)(void (*)(void))TextQuery_count, METH_FASTCALL,
     "count(i, j) -> int: the count of text[i:j], or -1 (ask the Python index)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TextQueryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_stream._native._core.TextQuery",
    .tp_doc = "The common queries of a text interval index (text_query(...)).",
    .tp_basicsize = sizeof(TextQuery),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)TextQuery_dealloc,
    .tp_methods = TextQuery_methods,
};

static int
int_buffer(PyObject *o, Py_buffer *b, Py_ssize_t itemsize_min)
{
    if (PyObject_GetBuffer(o, b, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    const char *f = b->format ? b->format : "B";
    int ok = itemsize_min == 2 ? (b->itemsize == 2 && f[0] == 'H')
             : itemsize_min == 0 ? (b->itemsize == 4 && (f[0] == 'I' || f[0] == 'L'))
                                 : ((b->itemsize == 4 && (f[0] == 'i' || f[0] == 'l')) ||
                                    (b->itemsize == 8 && (f[0] == 'q' || f[0] == 'l')));
    if (!ok) {
        PyBuffer_Release(b);
        PyErr_SetString(PyExc_TypeError, "text_query: unexpected array type");
        return -1;
    }
    return 0;
}

/* text_query(text, starts, cum, ws_starts, ws_ends, ascii_flags, cps, cpflags, counts,
   o200k, has_uni, core, fallback, max_len, max_entries) */
static PyObject *
text_query(PyObject *module, PyObject *args)
{
    PyObject *text, *starts, *cum, *ws_starts, *ws_ends, *cps, *cpflags, *counts, *core, *fallback;
    Py_buffer ascii;
    int o200k, has_uni;
    Py_ssize_t max_len, max_entries;
    if (!PyArg_ParseTuple(args, "UOOOOy*OOOppOOnn", &text, &starts, &cum, &ws_starts, &ws_ends, &ascii, &cps,
                          &cpflags, &counts, &o200k, &has_uni, &core, &fallback, &max_len, &max_entries))
        return NULL;
    if (core != Py_None && (!Core_Check(core) || !PyDict_Check(counts) || !PyCallable_Check(fallback))) {
        PyBuffer_Release(&ascii);
        PyErr_SetString(PyExc_TypeError, "text_query: core must be a Core (or None), counts a dict");
        return NULL;
    }
    if (ascii.len != 256) {
        PyBuffer_Release(&ascii);
        PyErr_SetString(PyExc_ValueError, "text_query: ascii_flags must hold 128 uint16");
        return NULL;
    }
    TextQuery *q = PyObject_New(TextQuery, &TextQueryType);
    if (q == NULL) {
        PyBuffer_Release(&ascii);
        return NULL;
    }
    memcpy(q->ascii, ascii.buf, 256);
    PyBuffer_Release(&ascii);
    Py_INCREF(text);
    q->text = text;
    Py_INCREF(counts);
    q->counts = counts;
    q->core = core == Py_None ? NULL : (Core *)core;
    Py_XINCREF(q->core);
    Py_INCREF(fallback);
    q->fallback = fallback;
    q->max_len = max_len;
    q->max_entries = max_entries;
    q->views = 0;
    q->keys = NULL;
    q->vals = NULL;
    q->kind = PyUnicode_KIND(text);
    q->data = PyUnicode_DATA(text);
    q->n = PyUnicode_GET_LENGTH(text);
    q->o200k = o200k;
    q->has_uni = has_uni;
    PyObject *objs[] = {starts, cum, ws_starts, ws_ends, cps, cpflags};
    Py_buffer *views[] = {&q->starts, &q->cum, &q->ws_starts, &q->ws_ends, &q->cps, &q->cpflags};
    Py_ssize_t kinds[] = {4, 4, 4, 4, 0, 2};
    for (int k = 0; k < 6; k++) {
        if (int_buffer(objs[k], views[k], kinds[k]) < 0) {
            Py_DECREF(q);
            return NULL;
        }
        q->views++;
    }
    q->nstarts = q->starts.len / q->starts.itemsize;
    q->nws = q->ws_starts.len / q->ws_starts.itemsize;
    q->ncp = q->cps.len / 4;
    if (q->cum.len / q->cum.itemsize != q->nstarts || q->ws_ends.len / q->ws_ends.itemsize != q->nws ||
        q->cpflags.len != 2 * q->ncp || q->nstarts < 1 || item(&q->starts, q->nstarts - 1) != q->n) {
        Py_DECREF(q);
        PyErr_SetString(PyExc_ValueError, "text_query: inconsistent arrays");
        return NULL;
    }
    size_t size = 4;
    while (size < 2 * (size_t)q->ncp)
        size <<= 1;
    q->mask = size - 1;
    q->keys = PyMem_Calloc(size, sizeof(uint32_t));
    q->vals = PyMem_Calloc(size, sizeof(uint16_t));
    if (q->keys == NULL || q->vals == NULL) {
        Py_DECREF(q);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < q->ncp; k++) {
        uint32_t c = ((const uint32_t *)q->cps.buf)[k];
        if (c < 128) {
            Py_DECREF(q);
            PyErr_SetString(PyExc_ValueError, "text_query: cps must be >= 128");
            return NULL;
        }
        size_t h = (c * 2654435761u) & q->mask;
        while (q->keys[h] != 0 && q->keys[h] != c)
            h = (h + 1) & q->mask;
        q->keys[h] = c;
        q->vals[h] = ((const uint16_t *)q->cpflags.buf)[k];
    }
    return (PyObject *)q;
}


/* distinct_chars(text) -> str: the distinct characters of text in code point order (what
   "".join(sorted(set(text))) gives), by one pass with a bit per code point (136 KB):
   set(text) makes a str object per character of the text (0.27 s a million CJK
   characters), which was most of the text index's build after its table pass. */
static PyObject *
distinct_chars(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "distinct_chars expects a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_UCS4 top = 0;
    uint64_t *seen = PyMem_Calloc((0x110000 + 63) / 64, sizeof(uint64_t));
    if (seen == NULL)
        return PyErr_NoMemory();
    Py_ssize_t count = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        uint64_t bit = UINT64_C(1) << (c & 63);
        if (!(seen[c >> 6] & bit)) {
            seen[c >> 6] |= bit;
            count++;
            if (c > top)
                top = c;
        }
    }
    PyObject *out = PyUnicode_New(count, top);
    if (out != NULL) {
        int okind = PyUnicode_KIND(out);
        void *odata = PyUnicode_DATA(out);
        Py_ssize_t k = 0;
        for (Py_ssize_t w = 0; w <= (Py_ssize_t)(top >> 6); w++)
            for (uint64_t bits = seen[w]; bits; bits &= bits - 1)
                PyUnicode_WRITE(okind, odata, k++, (Py_UCS4)(w * 64 + __builtin_ctzll(bits)));
    }
    PyMem_Free(seen);
    return out;
}

static PyMethodDef text_intervals_functions[] = {
    {"text_query", text_query, METH_VARARGS,
     "text_query(text, starts, cum, ws_starts, ws_ends, ascii_flags, cps, cpflags, counts, o200k, has_uni,"
     " core, fallback, max_len, max_entries) -> TextQuery"},
    {"distinct_chars", distinct_chars, METH_O,
     "distinct_chars(text) -> str: the distinct characters of text in code point order."},
    {NULL, NULL, 0, NULL},
};

int
text_intervals_init(PyObject *module)
{
    if (PyType_Ready(&TextQueryType) < 0)
        return -1;
    Py_INCREF(&TextQueryType);
    if (PyModule_AddObject(module, "TextQuery", (PyObject *)&TextQueryType) < 0) {
        Py_DECREF(&TextQueryType);
        return -1;
    }
    return PyModule_AddFunctions(module, text_intervals_functions);
}
