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

Interval index: the prefixes form a tree (parent of p is p - len(last[p])); a query
count(i, j) builds BPE's encoding of data[i:p] (greedy tokens while every pair is
valid, else the table recurrence from i) until a p that is an ancestor of j and whose
last token is the whole text's last token at p; the answer is then the tokens so far
plus the steps from j up to p.  Kept per input byte: the token length lens[p] (one
byte) and one bit "p is a boundary of the whole text's encoding" with a 4-byte rank
every 64 bits, 1.19 bytes (the Python index keeps 13: lens, depth and pre-order ids
and ends).  The ancestor test walks back from j to where its path meets the whole
text's (see the layout note below); the build is the table pass writing lens (the last
tokens in a ring of max_token_len entries, no per-byte counts), then one walk back from
n for the bits and one pass for the ranks: O(n * M) worst case like the table pass,
peak = what is kept plus O(M), plus, from PAIR_FILTER_MIN_INPUT bytes, the pair test's
filter (pair_filter.c: 2 bytes per token of the vocabulary, made for the build and
freed after it; the same answers, 1.4-1.6x faster on random letters, where the pair
test is most of the build).  The C query gives up (answers -1) after QUERY_BOUND
positions without meeting the tree, or when j's path needs more than SEGMENT steps to
meet the whole text's; the Python index then takes over (periodic runs, its memo, the
full arrays made from lens by arrays()).  Everything runs without the GIL.
*/
#include "core.h"
#include "pair_filter.h"

#include <stdlib.h>
#include <string.h>

#define QUERY_BOUND 2048
/* inputs from which the build makes its pair filter (pair_filter.c: one hash per token
   to make, about 2 ms for o200k, paid back within a few hundred KB of text without
   spaces) */
#define PAIR_FILTER_MIN_INPUT ((Py_ssize_t)1 << 18)

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
            if (start == 0 || valid_pair_memo(c, last[start], t))
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

/* Layout (per input byte): lens[p], the length of the last token of BPE's encoding of
   data[:p] (one byte; two when tokens are longer than 255 bytes), and one bit of
   on_path (p is a boundary of the whole text's encoding, the tree path from n) with a
   4-byte rank every 64 bits: 1.19 bytes per byte (the data are the caller's).  No
   depths or pre-order numbers: the prefix tree's path from any j meets the whole text's
   path within a few tokens on real input (at most 5 steps on random letters, 2 on CJK
   and random bytes, cl100k and o200k), so a query walks back from j to that meeting
   point m (at most SEGMENT steps, recording the positions passed), and then "p is an
   ancestor of j" is "p is one of them, or p <= m and on_path(p)", and depth[j] -
   depth[p] is the steps from j to m plus the on-path positions in (p, m] (two ranks). */
#define SEGMENT 64

typedef struct {
    PyObject_HEAD
    Core *core;
    PyObject *data; /* bytes */
    Py_ssize_t n;
    uint8_t *lens;  /* lens[p]: bytes of last[p] (max_token_len < 256) */
    uint16_t *lens16; /* the same when tokens are longer */
    uint64_t *on_path; /* bit p of word p / 64: p is a boundary of the whole text's encoding */
    uint32_t *rank;    /* rank[w]: set bits of on_path in words 0 .. w - 1 */
    /* for UTF-8 data indexed by character (byte_offset): the byte offset of every
       CHAR_SAMPLE-th character, made on first use (4 bytes per CHAR_SAMPLE characters) */
    uint32_t *char_samples;
    Py_ssize_t n_chars;
} IntervalIndex;

#define CHAR_SAMPLE 64

static PyTypeObject IntervalIndexType;

static void
IntervalIndex_dealloc(IntervalIndex *self)
{
    Py_XDECREF(self->core);
    Py_XDECREF(self->data);
    PyMem_RawFree(self->lens);
    PyMem_RawFree(self->lens16);
    PyMem_RawFree(self->on_path);
    PyMem_RawFree(self->rank);
    PyMem_RawFree(self->char_samples);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline Py_ssize_t
lens_at(const IntervalIndex *x, Py_ssize_t p)
{
    return x->lens ? x->lens[p] : x->lens16[p];
}

static inline int
on_path(const IntervalIndex *x, Py_ssize_t p)
{
    return (int)((x->on_path[p >> 6] >> (p & 63)) & 1);
}

/* on-path positions in [0, p] */
static inline Py_ssize_t
path_rank(const IntervalIndex *x, Py_ssize_t p)
{
    uint64_t w = x->on_path[p >> 6];
    int b = (int)(p & 63);
    uint64_t below = b == 63 ? w : w & ((UINT64_C(2) << b) - 1);
    return (Py_ssize_t)x->rank[p >> 6] + __builtin_popcountll(below);
}

static inline Py_ssize_t
words_for(Py_ssize_t n)
{
    return (n + 1 + 63) / 64;
}

/* The table recurrence of table_fill writing only the token lengths: the pair test
   reads the last token at most max_token_len positions back, and the periodic shortcut
   per <= max_token_len back, so the last tokens live in a ring of a power of two >
   max_token_len entries (no 4-byte array per byte; with counts that was 8 bytes a byte
   at the build's peak).  0, or -1 at a byte that is no token. */
static int
lens_fill(const Core *c, const unsigned char *data, Py_ssize_t n, uint8_t *lens8, uint16_t *lens16,
          int32_t *ring, size_t ring_mask, int32_t *cand, const PairFilter *filter)
{
    Py_ssize_t M = c->max_token_len, per = 1, eq = 0;
#define LAST(q) ring[(size_t)(q) & ring_mask]
#define SETLEN(q, l) (lens8 ? (void)(lens8[q] = (uint8_t)(l)) : (void)(lens16[q] = (uint16_t)(l)))
    SETLEN(0, 0);
    LAST(0) = 0;
    for (Py_ssize_t p = 1; p <= n; p++) {
        unsigned char b = data[p - 1];
        if (c->byte_rank[b] == NO_RANK)
            return -1;
        int32_t t;
        if (eq > M && p - per > M && b == data[p - 1 - per]) {
            t = LAST(p - per);
            LAST(p) = t;
            SETLEN(p, tok_len(c, t));
            eq++;
            continue;
        }
        int k = tokens_ending_at(c, data, 0, p, cand);
        t = -1;
        while (k > 0) {
            t = cand[--k];
            Py_ssize_t start = p - tok_len(c, t);
            if (start == 0)
                break;
            if (valid_pair_filtered(c, filter, LAST(start), t, data[start]))
                break;
            t = -1;
        }
        if (t < 0) /* cannot happen: the single byte at p - 1 always ends an encoding */
            return -1;
        LAST(p) = t;
        SETLEN(p, tok_len(c, t));
        if (p > per && b == data[p - 1 - per] && LAST(p - per) == t) {
            eq++;
        } else {
            eq = 0;
            per = tok_len(c, t);
        }
    }
#undef LAST
#undef SETLEN
    return 0;
}

/* Builds the index over data (every byte a token); 0, or -1 out of memory. */
static int
index_build(IntervalIndex *x, const Core *c, const unsigned char *data, Py_ssize_t n)
{
    size_t ring_size = 1;
    while (ring_size <= (size_t)c->max_token_len)
        ring_size <<= 1;
    int32_t *ring = PyMem_RawMalloc(ring_size * sizeof(int32_t));
    int32_t *cand = cand_buffer(c);
    Py_ssize_t words = words_for(n);
    int rc = -1;
    if (c->max_token_len < 256)
        x->lens = PyMem_RawMalloc((size_t)(n + 1));
    else
        x->lens16 = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint16_t));
    x->on_path = PyMem_RawCalloc((size_t)words, sizeof(uint64_t));
    x->rank = PyMem_RawMalloc((size_t)words * sizeof(uint32_t));
    if (!ring || !cand || (!x->lens && !x->lens16) || !x->on_path || !x->rank)
        goto out;
    PairFilter filter = {NULL, 0};
    if (n >= PAIR_FILTER_MIN_INPUT && pair_filter_init(&filter, c) < 0)
        goto out;
    rc = lens_fill(c, data, n, x->lens, x->lens16, ring, ring_size - 1, cand, &filter);
    pair_filter_free(&filter);
    if (rc < 0)
        goto out;
    rc = -1;
    for (Py_ssize_t p = n; p > 0; p -= lens_at(x, p))
        x->on_path[p >> 6] |= UINT64_C(1) << (p & 63);
    x->on_path[0] |= 1;
    uint32_t total = 0;
    for (Py_ssize_t w = 0; w < words; w++) {
        x->rank[w] = total;
        total += (uint32_t)__builtin_popcountll(x->on_path[w]);
    }
    rc = 0;
out:
    PyMem_RawFree(ring);
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
    x->on_path = NULL;
    x->rank = NULL;
    x->char_samples = NULL;
    x->n_chars = 0;
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

/* The ancestors of j down to i: seg[0..*steps-1] the positions of j's tree path above
   its meeting point *m with the whole text's path (seg[k] is k steps from j), or *m =
   -1 when the path goes below i (or to i) first; 0, or -1 when more than SEGMENT steps
   are needed (the caller then gives up). */
static int
segment_of(const IntervalIndex *x, Py_ssize_t i, Py_ssize_t j, Py_ssize_t *seg, int *steps, Py_ssize_t *m)
{
    Py_ssize_t q = j;
    int k = 0;
    while (!on_path(x, q)) {
        if (q <= i) {
            *m = -1;
            *steps = k;
            return 0;
        }
        if (k == SEGMENT)
            return -1;
        seg[k++] = q;
        q -= lens_at(x, q);
    }
    *m = q;
    *steps = k;
    return 0;
}

/* steps from j up to its ancestor p (p > i, i < p < j), or -1 if p is no ancestor of j */
static inline Py_ssize_t
ancestor_steps(const IntervalIndex *x, Py_ssize_t p, const Py_ssize_t *seg, int steps, Py_ssize_t m)
{
    if (p <= m)
        return on_path(x, p) ? steps + path_rank(x, m) - path_rank(x, p) : -1;
    for (int k = steps - 1; k >= 0; k--) { /* seg decreases: the smallest last */
        if (seg[k] == p)
            return k;
        if (seg[k] > p)
            return -1;
    }
    return -1;
}

/* count(i, j) by the greedy tokens, then the table recurrence from i; -1 if neither
   meets the whole text's tree within QUERY_BOUND positions, or j's path needs more
   than SEGMENT steps to meet the whole text's. */
static Py_ssize_t
index_count(const IntervalIndex *x, Py_ssize_t i, Py_ssize_t j, int32_t *cand, int32_t *last, int32_t *cnt)
{
    const Core *c = x->core;
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(x->data);
    if (i == j)
        return 0;
    Py_ssize_t seg[SEGMENT], m;
    int steps;
    if (segment_of(x, i, j, seg, &steps, &m) < 0)
        return -1;
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
        if (lens_at(x, p) == tok_len(c, t)) {
            Py_ssize_t up = ancestor_steps(x, p, seg, steps, m);
            if (up >= 0)
                return count + up;
        }
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
        if (lens_at(x, p) == tok_len(c, t)) {
            Py_ssize_t up = ancestor_steps(x, p, seg, steps, m);
            if (up >= 0)
                return cc + up;
        }
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

/* The full tree arrays the Python query reads (bpe/intervals.py _build_python makes the
   same): lens, depth, pre-order ids and ends, made from lens when a query comes back to
   Python (13 bytes per byte then, as bytes objects the caller turns into arrays). */
static PyObject *
IntervalIndex_arrays(IntervalIndex *self, PyObject *unused)
{
    Py_ssize_t n = self->n, n1 = n + 1;
    PyObject *lens = self->lens ? PyBytes_FromStringAndSize((const char *)self->lens, n1)
                                : PyBytes_FromStringAndSize((const char *)self->lens16, n1 * 2);
    PyObject *depth = PyBytes_FromStringAndSize(NULL, n1 * 4);
    PyObject *tree_id = PyBytes_FromStringAndSize(NULL, n1 * 4);
    PyObject *tree_end = PyBytes_FromStringAndSize(NULL, n1 * 4);
    if (!lens || !depth || !tree_id || !tree_end)
        goto fail;
    uint32_t *dep = (uint32_t *)PyBytes_AS_STRING(depth), *tid = (uint32_t *)PyBytes_AS_STRING(tree_id),
             *end = (uint32_t *)PyBytes_AS_STRING(tree_end);
    uint32_t *size = PyMem_RawMalloc((size_t)n1 * 4);
    if (size == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    dep[0] = 0;
    for (Py_ssize_t p = 1; p <= n; p++)
        dep[p] = dep[p - lens_at(self, p)] + 1;
    for (Py_ssize_t p = 0; p <= n; p++)
        size[p] = 1;
    for (Py_ssize_t p = n; p > 0; p--)
        size[p - lens_at(self, p)] += size[p];
    uint32_t *nxt = end; /* "next free id among the children of p" first */
    tid[0] = 0;
    nxt[0] = 1;
    for (Py_ssize_t p = 1; p <= n; p++) {
        Py_ssize_t parent = p - lens_at(self, p);
        uint32_t id = nxt[parent];
        tid[p] = id;
        nxt[parent] = id + size[p];
        nxt[p] = id + 1;
    }
    for (Py_ssize_t p = 0; p <= n; p++)
        end[p] = tid[p] + size[p];
    PyMem_RawFree(size);
    return Py_BuildValue("(NNNN)", lens, depth, tree_id, tree_end);
fail:
    Py_XDECREF(lens);
    Py_XDECREF(depth);
    Py_XDECREF(tree_id);
    Py_XDECREF(tree_end);
    return NULL;
}

static Py_ssize_t
char_sample_count(Py_ssize_t n_chars)
{
    return n_chars / CHAR_SAMPLE + 1;
}

/* byte_offset(k): the offset in data (UTF-8) of its k-th character (0 <= k <= number of
   characters): the sample before it, then at most CHAR_SAMPLE - 1 characters stepped
   over (a character is a byte that is no continuation byte 10xxxxxx and the
   continuation bytes after it). */
static PyObject *
IntervalIndex_byte_offset(IntervalIndex *self, PyObject *arg)
{
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(self->data);
    Py_ssize_t n = self->n;
    if (self->char_samples == NULL) {
        Py_ssize_t chars = 0;
        for (Py_ssize_t b = 0; b < n; b++)
            chars += (data[b] & 0xC0) != 0x80;
        uint32_t *samples = PyMem_RawMalloc((size_t)char_sample_count(chars) * sizeof(uint32_t));
        if (samples == NULL)
            return PyErr_NoMemory();
        Py_ssize_t k = 0;
        for (Py_ssize_t b = 0; b < n; b++)
            if ((data[b] & 0xC0) != 0x80) {
                if (k % CHAR_SAMPLE == 0)
                    samples[k / CHAR_SAMPLE] = (uint32_t)b;
                k++;
            }
        if (k % CHAR_SAMPLE == 0)
            samples[k / CHAR_SAMPLE] = (uint32_t)n;
        self->char_samples = samples;
        self->n_chars = chars;
    }
    Py_ssize_t k = PyLong_AsSsize_t(arg);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 0 || k > self->n_chars) {
        PyErr_SetString(PyExc_IndexError, "character offset out of range");
        return NULL;
    }
    Py_ssize_t b = self->char_samples[k / CHAR_SAMPLE];
    for (Py_ssize_t r = k % CHAR_SAMPLE; r > 0; r--)
        do
            b++;
        while (b < n && (data[b] & 0xC0) == 0x80);
    return PyLong_FromSsize_t(b);
}

static PyObject *
IntervalIndex_memory_bytes(IntervalIndex *self, PyObject *unused)
{
    Py_ssize_t n1 = self->n + 1, words = words_for(self->n);
    Py_ssize_t samples = self->char_samples ? char_sample_count(self->n_chars) * 4 : 0;
    return PyLong_FromSsize_t(n1 * (self->lens ? 1 : 2) + words * (8 + 4) + samples);
}

static PyMethodDef IntervalIndex_methods[] = {
    {"count", (PyCFunction)(void (*)(void))IntervalIndex_count, METH_FASTCALL,
     "count(i, j) -> int: BPE count of data[i:j], or -1 if the C query gave up."},
    {"arrays", (PyCFunction)IntervalIndex_arrays, METH_NOARGS,
     "arrays() -> (lens, depth, tree_id, tree_end) as bytes (native order), made now."},
    {"memory_bytes", (PyCFunction)IntervalIndex_memory_bytes, METH_NOARGS, "bytes held by the index"},
    {"byte_offset", (PyCFunction)IntervalIndex_byte_offset, METH_O,
     "byte_offset(k) -> int: offset in the (UTF-8) data of its k-th character."},
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
