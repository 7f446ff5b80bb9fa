/* The exact chunker's cuts that the prefix sums alone decide, many chunks per call.

exact_cuts(core, text, bounds, cum, start, min_end, max_tokens, overlap, byte_horizon,
           final, lookahead, rule, whole=None, spec=-1, limit=0) -> (cuts, start, min_end, need_more)

``bounds`` / ``cum`` are a TextCounts of ``text`` (piece starts plus the end, and the
prefix counts at them, lists or array('q')) under a family member whose hard-boundary rule
is ``rule``: the HB_* bits of pretokenize/hard_boundaries.py, which derives them from the
member's choices and proves the tests below.  From the chunk start ``start`` this
walks chunk after chunk, as Chunker._run does with boundaries="exact", while each
chunk is one of the cases below, and returns the chunks found as a flat list
``[s0, e0, count0, s1, e1, count1, ...]`` with the start and min_end of the next
chunk (the caller's state); it stops, leaving the rest to the Python path, at the first
chunk that is not such a case, or with need_more true at a chunk whose cut it found but
that the held text cannot decide yet (not ``final``: the Python path would ask for more
text too).  With ``limit`` > 0 it stops after that many chunks (the semantic chunker takes
the first one's cut as its ``e_max``, the largest end that fits, and chooses its own cut at
or before it).  With ``spec`` (the compiled split, ``_native_split``'s first item) and the
sums as arrays, the chunks the cases below leave open are tried by exact recounts of
short slices (``chunk_counted_cuts.c``) before stopping.  Every answer is the one the Python path gives (the
tests compare them); the cases are the ones that path reaches on ordinary text, where
its per-chunk work is a few bisects and class tests, but costs 5-20 us of Python.

The cases (rule numbers are those of chunk/counts.py; M = max_tokens; ``s`` must be a
piece boundary ``bounds[gi]``):

* The cut.  ``k`` is the first boundary with ``cum[k] - cum[gi] > M``, ``b_o =
  bounds[k]`` and ``a = bounds[k - 1]``.  If ``b_o`` and ``a`` are hard (rule 5:
  every end from ``b_o`` on costs at least ``C(b_o) > M``, and ``count(T[s:j]) =
  C(a) + count(T[a:j])`` for ``j > a``), ``s < a`` and either ``C(a) == M`` or the
  piece ``T[a:b_o]`` is one character, then no end inside the piece fits and the cut is
  ``a`` with count ``C(a)``.  ``b_o`` must lie within ``byte_horizon`` characters of
  ``s`` (the Python path's cap on ends) and, unless ``final``, ``a + lookahead``
  within the text (the streaming rule).  When no boundary is over the budget and
  ``final``, the chunk is the rest of the text.
* The overlap start after a cut ``e = a``.  ``g = bounds[i]``, the first boundary with
  ``cum[ka] - cum[i] <= overlap``: if ``g`` is hard, ``s < g`` and that count is
  exactly ``overlap``, then every start ``p < g`` costs ``count(T[p:g]) +
  overlap > overlap`` (rule 5), so ``g`` is the earliest start that fits.

Every piece (or part of a letter run, which is one piece) counted here counts 1 when it
equals a whole-piece token of ``whole`` (``whole_set``: tiktoken's rule for tokens BPE
merges cannot build), else its BPE count (``piece_count``).

Complexity: O(log n) per chunk (two bisects over the lists, a few class lookups), plus
for an overlap start inside one piece a backward pass over that piece's bytes, stopped a
few bytes before the longest suffix that fits (suffix_counts, core.h).
*/
#include "core.h"
#include "unicode_classes.h"
#include "piece_cache.h"

/* The piece cache the running exact_cuts call uses on a long text (NULL: none): the core's
   own (piece_cache.h, shared by threads and kept across calls), since the letter runs and
   slices it counts repeat their pieces (the words of the text, the prefixes of a word tried
   for every chunk cut in it).  exact_cuts holds the GIL from start to end and calls no
   Python code, so one call at a time sets this pointer. */
static PieceCache *call_cache = NULL;
#define CACHE_FROM_CHARS 4096  /* texts shorter than this count without one */

/* bounds or cum: a list of ints, or the 64-bit integers of a buffer (an array('q'), as
   presplit.c prefix_sums makes them: no int object per piece). */
typedef struct {
    PyObject *list;
    const int64_t *v;
    Py_buffer view;
} IntSeq;

static inline Py_ssize_t
item_at(const IntSeq *list, Py_ssize_t i)
{
    return list->v != NULL ? (Py_ssize_t)list->v[i] : PyLong_AsSsize_t(PyList_GET_ITEM(list->list, i));
}

/* seq over obj (a list, or a C-contiguous buffer of 8-byte signed integers): its length,
   or -1 with an exception.  int_seq_release undoes it. */
static Py_ssize_t
int_seq_open(IntSeq *seq, PyObject *obj)
{
    seq->list = NULL;
    seq->v = NULL;
    seq->view.obj = NULL;
    if (PyList_Check(obj)) {
        seq->list = obj;
        return PyList_GET_SIZE(obj);
    }
    if (PyObject_GetBuffer(obj, &seq->view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    const char *f = seq->view.format;
    if (seq->view.itemsize != 8 || f == NULL || (f[0] != 'q' && f[0] != 'l') || f[1] != '\0') {
        PyBuffer_Release(&seq->view);
        PyErr_SetString(PyExc_TypeError, "exact_cuts: bounds and cum must be lists or array('q')");
        return -1;
    }
    seq->v = seq->view.buf;
    return seq->view.len / 8;
}

static void
int_seq_release(IntSeq *seq)
{
    if (seq->view.obj != NULL)
        PyBuffer_Release(&seq->view);
}

/* The first index in [lo, hi) whose item is > x (bisect_right); -1 on an error. */
static Py_ssize_t
bisect_right_list(const IntSeq *list, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        Py_ssize_t v = item_at(list, mid);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (x < v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The first index in [lo, hi) whose item is >= x (bisect_left); -1 on an error. */
static Py_ssize_t
bisect_left_list(const IntSeq *list, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        Py_ssize_t v = item_at(list, mid);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* bisect_left_list(list, x, lo, hi), galloping from lo: exact_cuts asks for the piece at
   the next chunk's start, a few pieces on at small budgets, so O(log distance) probes
   instead of O(log(hi - lo)) over the rest of the window; -1 on an error. */
static Py_ssize_t
gallop_left_list(const IntSeq *list, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    Py_ssize_t step = 1;
    while (lo < hi) {
        Py_ssize_t probe = lo + step - 1 < hi ? lo + step - 1 : hi - 1;
        Py_ssize_t v = item_at(list, probe);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v >= x)
            return bisect_left_list(list, x, lo, probe);  /* every item before lo is < x */
        lo = probe + 1;
        step <<= 1;
    }
    return lo;
}

/* The member's choices that change the rule (pretokenize/hard_boundaries.py, same values). */
#define HB_MARK_CONT 1     /* a combining mark continues a word */
#define HB_APOS_CONT 2     /* an apostrophe may continue a word (o200k's contraction suffix) */
#define HB_NEWLINE 4       /* \s*[\r\n]+ ends a whitespace run at its last newline */
#define HB_SLASH 8         /* punctuation runs take a "/" tail */
#define HB_CASED 16        /* words are o200k's upper/lower split */
#define HB_SPACE_LEAD 32   /* only a space leads a word (GPT-2) */
#define HB_DEEPSEEK 64     /* DeepSeek-V3's words: no punctuation or symbol lead, CJK runs apart */
#define HB_DIGIT_ONE 128   /* every digit is a piece of its own */
#define HB_DIGIT_SPLIT 256 /* the chain's first regex isolates digits */
#define HB_CJK_SPLIT 512   /* the chain isolates DeepSeek-V3's CJK ranges */
#define HB_LONE_WS 1024    /* GPT-2's whitespace: a lone whitespace character but a space is a piece */
#define HB_NO_TAIL 2048    /* punctuation takes no newline tail */

/* Rule 5 of chunk/counts.py at h (0 < h < n): the test of HardRule.hard_at
   (pretokenize/hard_boundaries.py, where each case is argued):
   a letter then no letter (nor a mark, an apostrophe where they continue a word);
   a non-whitespace character then whitespace other than \r, \n (any, without a newline tail);
   \r / \n then no whitespace (nor "/" where punctuation takes it), for \s*[\r\n]+ members;
   a digit then no digit (then anything, for one-digit pieces);
   no whitespace and no digit, then a digit;
   GPT-2's words: punctuation but an apostrophe, then a letter;
   chains: no digit then a digit, a change in or out of the CJK ranges;
   GPT-2's whitespace: a whitespace character but a space, after no whitespace (or at the
   start of the text), then no whitespace. */
static inline int
hard_at(int kind, const void *data, Py_ssize_t h, int rule)
{
    Py_UCS4 c0 = PyUnicode_READ(kind, data, h - 1);
    Py_UCS4 c1 = PyUnicode_READ(kind, data, h);
    uint8_t f0 = presplit_flags(c0), f1 = presplit_flags(c1);
    if (f0 & PF_L) {
        uint8_t cont = PF_L | ((rule & HB_MARK_CONT) ? PF_M : 0);
        if (!(f1 & cont) && !(c1 == '\'' && (rule & HB_APOS_CONT)))
            return 1;
    }
    if (!(f0 & PF_WS) && (f1 & PF_WS) && ((rule & HB_NO_TAIL) || (c1 != '\r' && c1 != '\n')))
        return 1;
    if ((rule & HB_NEWLINE) && (c0 == '\r' || c0 == '\n') && !(f1 & PF_WS) && !(c1 == '/' && (rule & HB_SLASH)))
        return 1;
    if ((f0 & PF_N) && (!(f1 & PF_N) || (rule & HB_DIGIT_ONE)))
        return 1;
    if ((f1 & PF_N) && (!(f0 & (PF_N | PF_WS)) || ((rule & HB_DIGIT_SPLIT) && !(f0 & PF_N))))
        return 1;
    if ((rule & HB_SPACE_LEAD) && !(f0 & (PF_WS | PF_L | PF_N)) && c0 != '\'' && (f1 & PF_L))
        return 1;
    if ((rule & HB_CJK_SPLIT) && ((f0 ^ f1) & PF_CJK))
        return 1;
    if ((rule & HB_LONE_WS) && (f0 & PF_WS) && c0 != ' ' && !(f1 & PF_WS) &&
        (h < 2 || !(presplit_flags(PyUnicode_READ(kind, data, h - 2)) & PF_WS)))
        return 1;
    return 0;
}

/* Whether text[p:q] (q - p >= 1) matches HardRule.letter_run (chunk/counts.py's point 4):
   a piece whose every non-empty prefix, and every substring of its letters, is one piece.
   An optional lead that is no \r, \n, letter, number or apostrophe (cased: nor a mark;
   GPT-2: a space only; DeepSeek-V3: nor punctuation, a symbol or a CJK character), then
   letters: cased, [Lu Lt]* Ll+ | [Lu Lt]+ | [Lm Lo]+; DeepSeek-V3, letters outside the
   CJK ranges after any lead, or CJK letters alone; else any letters. */
static int
letter_run(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule)
{
    Py_UCS4 c = PyUnicode_READ(kind, data, p);
    uint8_t f = presplit_flags(c);
    int cjk = 0;
    if (!(f & PF_L)) {
        if (c == '\r' || c == '\n' || c == '\'' || (f & PF_N) || ((rule & HB_CASED) && (f & PF_M)) ||
            ((rule & HB_SPACE_LEAD) && c != ' ') || ((rule & HB_DEEPSEEK) && (f & (PF_PS | PF_CJK))))
            return 0;
        p++;
        if (p >= q)
            return 0;
    } else if (rule & HB_DEEPSEEK) {
        cjk = (f & PF_CJK) != 0;
    }
    if (!(rule & HB_CASED)) {
        for (Py_ssize_t i = p; i < q; i++) {
            uint8_t g = presplit_flags(PyUnicode_READ(kind, data, i));
            if (!(g & PF_L) || ((rule & HB_DEEPSEEK) && ((g & PF_CJK) != 0) != cjk))
                return 0;
        }
        return 1;
    }
    /* classes: U = Lu Lt (UP and not LO), l = Ll (LO and not UP), o = Lm Lo (both) */
    int state = 0;  /* 0: U*, 1: Ll+ after U*, 2: o+ */
    int seen_upper = 0;
    for (Py_ssize_t i = p; i < q; i++) {
        uint8_t g = presplit_flags(PyUnicode_READ(kind, data, i));
        if (!(g & PF_L))
            return 0;
        int up = (g & PF_UP) != 0, lo = (g & PF_LO) != 0;
        if (up && !lo) {
            if (state != 0)
                return 0;
            seen_upper = 1;
        } else if (lo && !up) {
            if (state == 2)
                return 0;
            state = 1;
        } else if (up && lo) {
            if (seen_upper || state == 1)
                return 0;
            state = 2;
        } else {
            return 0;
        }
    }
    return 1;
}

#define MAX_RUN_CHARS 256  /* straddling runs up to this long are counted here (letter runs: LETTER_RUN_CHARS) */

/* The UTF-8 bytes of text[p:q] (q - p <= MAX_RUN_CHARS) into buf, with the byte offset
   of each character boundary in off (q - p + 1 entries). */
static void
utf8_of_slice(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, unsigned char *buf, Py_ssize_t *off)
{
    Py_ssize_t m = 0;
    for (Py_ssize_t i = p; i < q; i++) {
        off[i - p] = m;
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80) {
            buf[m++] = (unsigned char)c;
        } else if (c < 0x800) {
            buf[m++] = (unsigned char)(0xC0 | (c >> 6));
            buf[m++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            buf[m++] = (unsigned char)(0xE0 | (c >> 12));
            buf[m++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            buf[m++] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            buf[m++] = (unsigned char)(0xF0 | (c >> 18));
            buf[m++] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
            buf[m++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            buf[m++] = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    off[q - p] = m;
}

/* The count of the piece data[0:n]: 1 for a whole-piece token (NULL whole: none), else
   count_any's (its BPE count, or -1 for a byte that is no token). */
static inline Py_ssize_t
piece_count(const Core *core, const void *whole, const unsigned char *data, Py_ssize_t n)
{
    if (whole != NULL && presplit_is_whole(whole, data, n))
        return 1;
    return cached_piece(call_cache, core, data, n, data + n, NULL);
}

/* ---- symbol runs (chunk_symbol_runs.c): pieces of punctuation and symbols every
   substring of which is one piece, taken wherever a letter run is */
#define LETTER_RUN_CHARS 64  /* letter runs longer than this go to the recounts */
static inline int
one_piece_run(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule)
{
    return (q - p <= LETTER_RUN_CHARS && letter_run(kind, data, p, q, rule)) || symbol_run(kind, data, p, q, rule);
}
/* every prefix of text[p:q] one piece: where exact_cuts counts the prefixes of a
   straddling piece, or the rest of the piece a chunk starts in (overlap_start checks
   the suffixes it counts with one_piece_run) */
static inline int
one_piece_prefixes(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule)
{
    return one_piece_run(kind, data, p, q, rule) || symbol_prefixes(kind, data, p, q, rule);
}
/* ---- end of symbol runs */

/* The start of the chunk after [s, e): the smallest p > s
   with count(T[p:e]) <= overlap (e if none), or -1 when it is not one of the cases
   below (the caller then finds it), -2 on an error.  The chunk came from the cut code
   of exact_cuts: its straddling piece starts at a = bounds[k - 1] (hard, a > s) and e
   is a or inside that piece (a letter run), so count(T[x:e]) = cum[k - 1] - cum[x] +
   tail for boundaries gi <= x <= a, tail = count(T[a:e]) (rule 5 at a).

   * tail > overlap: no start up to a fits; p in (a, e) costs the count of the letters
     T[p:e] (one piece).
   * else g = bounds[i], the first boundary whose suffix fits (rest = its count), hard:
     every start before g costs count(T[p:g]) + rest.  If rest == overlap none fits
     and the answer is g; else the starts inside the piece before g (a letter run after
     a hard boundary, or the head piece the chunk started in) are tried first.

   tail: count(T[a:e]) when the cut code knows it (the table or count that chose e:
   count(T[s:e]) = C(a) + count(T[a:e]) by rule 5 at a), else -1.  The starts inside
   the one piece T[lo_p:g] take their counts from one backward pass over its bytes
   (suffix_counts, the mirror of the prefix table: raw BPE counts of every suffix, with
   a stop past which no suffix has overlap - rest tokens or fewer), not a count each. */
static Py_ssize_t
overlap_start(const Core *core, const void *whole, int kind, const void *data, const IntSeq *bounds, const IntSeq *cum, Py_ssize_t s,
              Py_ssize_t gi, int s_is_boundary, Py_ssize_t k, Py_ssize_t a, Py_ssize_t e, Py_ssize_t tail, Py_ssize_t overlap, unsigned char *buf, Py_ssize_t *off, int rule)
{
    Py_ssize_t lo_p, g, rest;
    if (a <= s || k - 1 < gi) {
        /* ---- symbol runs: a chunk inside the run it starts in (a == s): every start in
           (s, e) costs the count of the piece T[p:e] */
        if (a != s || e - s < 2 || e - s > MAX_RUN_CHARS || !one_piece_run(kind, data, s + 1, e, rule))
            return -1;
        lo_p = s + 1;
        g = e;
        rest = 0;
        goto suffixes;
    }
    Py_ssize_t c_a_global = item_at(cum, k - 1);
    if (e == a) {
        tail = 0;
    } else if (tail < 0) {
        utf8_of_slice(kind, data, a, e, buf, off);
        tail = piece_count(core, whole, buf, off[e - a]);
        if (tail < 0)
            return -1;
    }
    if (tail > overlap) {
        if (e - a > 1 && !one_piece_run(kind, data, a + 1, e, rule))
            return -1;  /* (a symbol run whose prefixes only are one piece each) */
        lo_p = a + 1;
        g = e;
        rest = 0;
    } else {
        Py_ssize_t c_e = c_a_global + tail;
        Py_ssize_t i = bisect_left_list(cum, c_e - overlap, gi, k);
        if (i < 0)
            return PyErr_Occurred() ? -2 : -1;
        g = item_at(bounds, i);
        rest = c_e - item_at(cum, i);
        if (g <= s || !hard_at(kind, data, g, rule))
            return -1;
        if (rest == overlap)
            return g;
        if (i > gi) {
            Py_ssize_t g_prev = item_at(bounds, i - 1);
            if (g - g_prev > MAX_RUN_CHARS || (g_prev != s && !hard_at(kind, data, g_prev, rule)) ||
                !one_piece_run(kind, data, g_prev, g, rule))
                return -1;
            lo_p = g_prev + 1;
        } else {
            if (s_is_boundary || (g - s > 1 && !one_piece_run(kind, data, s + 1, g, rule)))
                return -1;
            lo_p = s + 1;  /* s inside a letter run that ends at g (exact_cuts checked it) */
        }
    }
    if (lo_p < s + 1)
        lo_p = s + 1;
suffixes:
    if (g - lo_p >= MAX_RUN_CHARS)
        return -1;
    if (lo_p < g) {
        utf8_of_slice(kind, data, lo_p, g, buf, off);
        Py_ssize_t total = off[g - lo_p];
        /* cnt[len]: the raw BPE count of the piece's last len bytes, for len up to read;
           no longer suffix has overlap - rest tokens or fewer (a whole-piece token still
           counts 1: asked of every start) */
        int32_t first[4 * MAX_RUN_CHARS + 1], cnt[4 * MAX_RUN_CHARS + 1], toks[4 * MAX_RUN_CHARS + 1];
        Py_ssize_t read = suffix_counts(core, buf, total, overlap - rest, first, cnt, toks);
        if (read < 0)
            return -1;  /* a byte that is no token: the Python path raises its error */
        for (Py_ssize_t p = lo_p; p < g; p++) {
            Py_ssize_t len = total - off[p - lo_p];
            Py_ssize_t c = whole != NULL && presplit_is_whole(whole, buf + off[p - lo_p], len) ? 1
                           : len <= read ? cnt[len] : overlap + 1;
            if (c + rest <= overlap)
                return p;
        }
    }
    return g;
}

static PyObject *
exact_cuts(PyObject *module, PyObject *args)
{
    PyObject *core_obj, *text, *bounds_obj, *cum_obj, *whole_arg = Py_None;
    Py_ssize_t s, min_end, max_tokens, overlap, horizon, lookahead;
    int final, rule;
    long spec = -1;
    Py_ssize_t limit = 0;  /* stop after this many chunks (0: no limit) */
    const void *whole;
    if (!PyArg_ParseTuple(args, "O!UOOnnnnnpni|Oln", &CoreType, &core_obj, &text, &bounds_obj, &cum_obj, &s,
                          &min_end, &max_tokens, &overlap, &horizon, &final, &lookahead, &rule, &whole_arg,
                          &spec, &limit) ||
        presplit_whole_of(whole_arg, &whole) < 0)
        return NULL;
    const Core *core = (const Core *)core_obj;
    IntSeq bounds_seq, cum_seq;
    const IntSeq *bounds = &bounds_seq, *cum = &cum_seq;
    Py_ssize_t nb = int_seq_open(&bounds_seq, bounds_obj);
    if (nb < 0)
        return NULL;
    Py_ssize_t ncum = int_seq_open(&cum_seq, cum_obj);
    if (ncum < 0) {
        int_seq_release(&bounds_seq);
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = NULL;
    if (nb < 1 || ncum != nb) {
        PyErr_SetString(PyExc_ValueError, "exact_cuts: bounds and cum must have the same (non-zero) length");
        goto error;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    unsigned char buf[4 * MAX_RUN_CHARS];
    Py_ssize_t off[MAX_RUN_CHARS + 1];
    out = PyList_New(0);
    if (out == NULL)
        goto error;
    /* the chunks the cases below leave open, by exact recounts (chunk_counted_cuts.c):
       with the compiled split's spec and the sums as arrays */
    int use_counted = spec != -1 && bounds_seq.v != NULL && cum_seq.v != NULL && presplit_spec_ok(spec);
    call_cache = n >= CACHE_FROM_CHARS ? core_piece_cache(core) : NULL;  /* NULL too when out of memory */
    CountedText counted_text = {core, spec, whole, kind, data, n, bounds_seq.v, cum_seq.v, nb, hard_at, rule, call_cache};
    Py_ssize_t gi = 0;
    int need_more = 0;
    while (s < n) {
        int by_count = 0;
        Py_ssize_t e, count, a = s, k = 0, first = s;
        Py_ssize_t cut_tail = -1;  /* count(T[a:e]) where the cut code found it */
        CutSums cut_sums = {-1, 0};  /* what counted_cut knew of the split from s */
        gi = gallop_left_list(bounds, s, gi, nb);
        if (gi < 0)
            goto error;
        if (gi >= nb)
            break;
        /* count(T[s:bounds[i]]) = cum[i] - base for every i >= gi (rule 5 at bounds[gi]) */
        Py_ssize_t base = item_at(cum, gi);
        first = item_at(bounds, gi);
        if (first != s) {
            /* s inside the piece T[p:first]: a letter or symbol run (or a symbol run's rest
               from s whose prefixes are one piece each), so T[s:first] is one piece */
            Py_ssize_t p = item_at(bounds, gi - 1);
            if (first - p > MAX_RUN_CHARS || first >= n || !hard_at(kind, data, first, rule) ||
                (!one_piece_run(kind, data, p, first, rule) && !symbol_prefixes(kind, data, s, first, rule)))
                goto recount;
            utf8_of_slice(kind, data, s, first, buf, off);
            if (whole == NULL && first - s > 8 && off[first - s] <= PREFIX_COUNTS_MAX && first - s <= horizon) {
                /* ---- a cut inside the rest of the piece: from a table pass stopped a few
                   bytes past it (prefix_counts_until), not the count of the whole rest; ends
                   from first on cost more still (rule 5) */
                int32_t head_table[4 * MAX_RUN_CHARS + 1];
                Py_ssize_t read = prefix_counts_until(core, buf, off[first - s], max_tokens, head_table);
                if (read >= 0 && read < off[first - s]) {
                    Py_ssize_t j = first - s - 1;
                    while (j > 0 && (off[j] > read || head_table[off[j]] > max_tokens))
                        j--;
                    if (j == 0)
                        break;  /* nothing fits: the Python path raises its error */
                    e = s + j;
                    count = head_table[off[j]];
                    k = gi;
                    if (!final && e + lookahead > n) {
                        need_more = 1;  /* the streaming rule (Chunker._plan) */
                        break;
                    }
                    goto cut_found;
                }
            }
            Py_ssize_t head = piece_count(core, whole, buf, off[first - s]);
            if (head < 0)
                break;
            base -= head;
        }
        k = bisect_right_list(cum, base + max_tokens, gi, nb);
        if (k < 0)
            goto error;
        if (k == nb) {
            /* the rest of the text fits */
            if (!final) {
                need_more = 1;  /* as ChunkView.cut: no boundary over the budget yet */
                break;
            }
            e = n;
            count = item_at(cum, nb - 1) - base;
        } else {
            Py_ssize_t b_o = item_at(bounds, k);
            if (b_o >= n || b_o - s > horizon || !hard_at(kind, data, b_o, rule))
                goto recount;
            Py_ssize_t c_a = 0;
            if (k > gi) {
                a = item_at(bounds, k - 1);
                c_a = item_at(cum, k - 1) - base;
            }
            if (a != s && !hard_at(kind, data, a, rule))
                goto recount;
            e = a;
            count = c_a;
            if (c_a < max_tokens && b_o - a > 1) {
                /* ends inside the straddling piece: each prefix of a letter or symbol run is one piece */
                if (b_o - a > MAX_RUN_CHARS || !one_piece_prefixes(kind, data, a, b_o, rule))
                    goto recount;
                utf8_of_slice(kind, data, a, b_o, buf, off);
                /* a longer run: the counts of all its prefixes in one table pass */
                int32_t table[4 * MAX_RUN_CHARS + 1];
                /* (without whole-piece tokens, stopped once no longer prefix fits: the
                   prefixes past read count more than max_tokens - c_a) */
                Py_ssize_t read = off[b_o - a];
                int by_table = b_o - a > 8 && off[b_o - a] <= PREFIX_COUNTS_MAX &&
                               (whole != NULL ? prefix_counts(core, buf, off[b_o - a], table) == 0
                                : (read = prefix_counts_until(core, buf, off[b_o - a], max_tokens - c_a, table)) >= 0);
                Py_ssize_t j;
                for (j = b_o - 1; j > a; j--) {
                    if (by_table && off[j - a] > read)
                        continue;
                    Py_ssize_t c = !by_table ? piece_count(core, whole, buf, off[j - a])
                                   : whole != NULL && presplit_is_whole(whole, buf, off[j - a]) ? 1
                                   : table[off[j - a]];
                    if (c < 0)
                        break;
                    if (c_a + c <= max_tokens) {
                        e = j;
                        count = c_a + c;
                        break;
                    }
                }
                if (j > a && e != j)
                    break;  /* a byte that is no token: the Python path raises its error */
            }
            cut_tail = count - c_a;
            if (e <= s)
                break;
            if (!final && e + lookahead > n) {
                need_more = 1;  /* the streaming rule (Chunker._plan) */
                break;
            }
        }
        goto cut_found;
    recount:
        if (!use_counted)
            break;
        /* ---- chunk_nospace_cuts.c first: text without whitespace around the cut */
        e = nospace_cut(&counted_text, s, max_tokens, horizon, final, &count);
        if (e < 0)
            e = counted_cut(&counted_text, s, max_tokens, horizon, final, &count, &cut_sums);
        /* ---- end of chunk_nospace_cuts.c */
        if (e < 0)
            break;
        if (!final && e + lookahead > n) {
            need_more = 1;
            break;
        }
        by_count = 1;
    cut_found:
        if (e <= min_end)
            break;
        if (append_cut(out, s, e, count) < 0)
            goto error;
        min_end = e;
        if (e >= n) {
            s = e;
            break;
        }
        if (limit > 0 && PyList_GET_SIZE(out) >= 3 * limit) {
            s = overlap == 0 ? e : -1;  /* the caller finds the next start */
            break;
        }
        if (overlap == 0) {
            s = e;
            continue;
        }
        Py_ssize_t next = by_count ? -1 : overlap_start(core, whole, kind, data, bounds, cum, s, gi, first == s, k, a,
                                                        e, cut_tail, overlap, buf, off, rule);
        if (next == -2)
            goto error;
        /* ---- chunk_nospace_cuts.c: a chunk that fits one table first */
        if (next == -1 && use_counted)
            next = tiled_overlap_start(&counted_text, s, e, overlap);
        /* ---- end of chunk_nospace_cuts.c */
        if (next == -1 && use_counted)
            next = counted_overlap_start(&counted_text, s, e, overlap, count, &cut_sums);
        s = next;
        if (next < 0)
            break;  /* the caller finds this overlap start */
    }
    if (PyErr_Occurred())
        goto error;
    call_cache = NULL;
    int_seq_release(&bounds_seq);
    int_seq_release(&cum_seq);
    return Py_BuildValue("(NnnN)", out, s, min_end, PyBool_FromLong(need_more));
error:
    call_cache = NULL;
    int_seq_release(&bounds_seq);
    int_seq_release(&cum_seq);
    Py_XDECREF(out);
    return NULL;
}

/* hard_boundaries(text, rule) -> (positions, letter_run): every h in (0, n) where hard_at
   holds, and whether letter_run accepts the whole text; for the tests, which compare both
   with HardRule's regexes. */
static PyObject *
hard_boundaries(PyObject *module, PyObject *args)
{
    PyObject *text;
    int rule;
    if (!PyArg_ParseTuple(args, "Ui", &text, &rule))
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t h = 1; h < n; h++) {
        if (!hard_at(kind, data, h, rule))
            continue;
        PyObject *v = PyLong_FromSsize_t(h);
        if (v == NULL || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    int run = n > 0 && letter_run(kind, data, 0, n, rule);
    return Py_BuildValue("(NO)", out, run ? Py_True : Py_False);
}

static PyMethodDef chunk_cuts_functions[] = {
    {"hard_boundaries", (PyCFunction)hard_boundaries, METH_VARARGS,
     "hard_boundaries(text, rule) -> (positions, letter_run): exact_cuts' hard-boundary test at every\n"
     "position and its letter-run test on the whole text (for the tests)."},
    {"exact_cuts", (PyCFunction)exact_cuts, METH_VARARGS,
     "exact_cuts(core, text, bounds, cum, start, min_end, max_tokens, overlap, byte_horizon,\n"
     "final, lookahead, rule, whole=None, spec=-1, limit=0) -> (cuts, start, min_end, need_more): the exact\n"
     "chunker's chunks that the prefix sums decide, as a flat list [start, end, count, ...], and the\n"
     "state after them (start -1: the overlap start after the last chunk is left to the caller;\n"
     "need_more: the next chunk needs more text).  whole: the whole-piece tokens (whole_set) or\n"
     "None; rule: the member's hard-boundary bits; spec: the compiled split, for exact recounts of the chunks the prefix sums leave open;\n"
     "limit: at most this many chunks (0: no limit)."},
    {NULL, NULL, 0, NULL},
};

int
chunk_cuts_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_cuts_functions);
}
