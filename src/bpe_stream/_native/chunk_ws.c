/* The exact chunker's chunks inside a stretch of whitespace, many per call (the Python
reference is the chunker's own steps, chunk/chunker.py; the piece rule it relies on is
text/whitespace_pieces.py, argued in docs/design/chunker.md).

ws_cuts(core, text, start, min_end, max_tokens, overlap, final, lookahead, byte_horizon,
        whole_max, whole=None) -> (cuts, start, min_end, need_more)

Invariant.  For the cl100k and o200k members (Llama 3's spelling included) a string w of
whitespace only (\s, White_Space) splits into at most two pieces: w[0:N] through its last
'\r' or '\n' (\s*[\r\n]+, the greedy \s* backing off to the last line break) and the rest
w[N:] (\s+(?!\S) up to the end); no other alternative matches without a letter, digit or
punctuation character.  So for a chunk text[s:e] inside a stretch,
count = piece(text[s:s+N]) + piece(text[s+N:e]), piece(x) = 1 when x is a whole-piece
token, else the raw BPE count of its bytes (the chunker calls this only for vocabularies
without whole-piece tokens and where no token crosses a last line break into whitespace,
text/whitespace_pieces.py: cl100k's one piece \s++$ then counts as those two parts).
The first term is one table pass over the
stretch's bytes from s (prefix_table.c's table_fill: counts of every prefix), the second
a table pass over each line-break-free segment: two passes over the bytes, no regex.

Stop rule (as chunk_runs.c's, on the first piece).  Every longer end e', in the stretch or
past it, has a first piece text[s:s+N'] with N' at least the end p of the last line break
read (past the stretch \s*[\r\n]+ still backs off to the stretch's last line break), so
count(e') >= table[N'].  At such a p with table[p] over the budget (p > whole_max bytes,
so no longer first piece is a whole token), when no token starting at or before fit (the
last byte position whose table count fits) ends after p, every N' >= p has
table[N'] > budget (the chain of last tokens back from N' has a position in (fit, p]), so
no end >= p fits, and the cut is the last end read whose count fits.  When the stretch
reaches the end of the input (final), every end is read.  Otherwise the call stops where
the rule has not decided (the stretch ends first, no line break follows) and leaves that
chunk to the Python steps, as it does for no end past min_end, the streaming look-ahead,
or a byte that is no token.

The overlap start after [s, e) (the smallest i in (s, e) with count(text[i:e]) <= k): for
i before the chunk's last line break end N, count = piece(text[i:N]) + c2 (c2 the count of
text[N:e]); from N on, one piece text[i:e].  Suffix counts from a backward pass over at
most (k + 1) * max_token_len (or whole_max) bytes before N and e (chunk_runs.c's mirrored
pass and stop rule).  Complexity: O(bytes * trie steps) for the cuts, linear over the
stretch; O(overlap bytes * trie steps) per overlap start.  The tests compare the chunks
with the pure-Python chunker's (tests/test_chunk_ws.py).
*/
#include "core.h"
#include "unicode_classes.h"

#include <string.h>

static inline int
is_ws(Py_UCS4 cp)
{
    return (presplit_flags(cp) & PF_WS) != 0;
}

/* The stretch's bytes from character s0: buf[0:nbytes] holds characters s0 .. s0 + nchars - 1,
   boff[c] the byte offset of character s0 + c; tables (last/counts, seg_last/seg_counts)
   have room for every byte held. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n, s0, nchars, nbytes, cap, cap_b, cap_sfx;
    int ended;  /* the stretch (or the text held) ends at s0 + nchars */
    unsigned char *buf;
    Py_ssize_t *boff;
    int32_t *last, *counts, *seg_last, *seg_counts;
    int32_t *first, *cnt;  /* suffix counts (cap_sfx + 1 entries) */
    Py_ssize_t *breaks;    /* line break ends of the current chunk (characters from s0) */
    Py_ssize_t n_breaks, cap_breaks;
} Stretch;

static void
stretch_free(Stretch *w)
{
    PyMem_RawFree(w->buf);
    PyMem_RawFree(w->boff);
    PyMem_RawFree(w->last);
    PyMem_RawFree(w->counts);
    PyMem_RawFree(w->seg_last);
    PyMem_RawFree(w->seg_counts);
    PyMem_RawFree(w->first);
    PyMem_RawFree(w->cnt);
    PyMem_RawFree(w->breaks);
}

static int
grow32(int32_t **a, Py_ssize_t n)
{
    int32_t *p = PyMem_RawRealloc(*a, (size_t)n * sizeof(int32_t));
    if (p == NULL)
        return -1;
    *a = p;
    return 0;
}

/* Extends the bytes held to at least want characters (fewer where the stretch ends). */
static int
stretch_extend(Stretch *w, Py_ssize_t want)
{
    if (w->ended || w->nchars >= want)
        return 0;
    if (want > w->cap) {
        Py_ssize_t cap = w->cap ? w->cap : 1024;
        while (cap < want)
            cap *= 2;
        Py_ssize_t *boff = PyMem_RawRealloc(w->boff, (size_t)(cap + 1) * sizeof(Py_ssize_t));
        if (boff == NULL)
            return -1;
        w->boff = boff;
        w->cap = cap;
        w->boff[0] = 0;
    }
    while (w->nchars < want) {
        Py_ssize_t i = w->s0 + w->nchars;
        if (i >= w->n) {
            w->ended = 1;
            break;
        }
        Py_UCS4 cp = PyUnicode_READ(w->kind, w->data, i);
        if (!is_ws(cp)) {
            w->ended = 1;
            break;
        }
        if (w->nbytes + 4 > w->cap_b) {
            /* bytes and the tables over them (one int32 of each per byte) */
            Py_ssize_t cb = w->cap_b ? 2 * w->cap_b : 4096;
            unsigned char *buf = PyMem_RawRealloc(w->buf, (size_t)cb + 1);
            if (buf == NULL)
                return -1;
            w->buf = buf;
            if (grow32(&w->last, cb + 1) < 0 || grow32(&w->counts, cb + 1) < 0 || grow32(&w->seg_last, cb + 1) < 0 ||
                grow32(&w->seg_counts, cb + 1) < 0)
                return -1;
            w->cap_b = cb;
        }
        w->nbytes += utf8_put(cp, w->buf + w->nbytes);
        w->nchars++;
        w->boff[w->nchars] = w->nbytes;
    }
    return 0;
}

/* piece(x): 1 for a whole-piece token, else the table count. */
static inline Py_ssize_t
piece_count(const void *whole, Py_ssize_t whole_max, const unsigned char *x, Py_ssize_t len, int32_t table_count)
{
    if (len == 0)
        return 0;
    if (whole != NULL && len <= whole_max && presplit_is_whole(whole, x, len))
        return 1;
    return table_count;
}

static int
add_break(Stretch *w, Py_ssize_t c)
{
    if (w->n_breaks == w->cap_breaks) {
        Py_ssize_t cap = w->cap_breaks ? 2 * w->cap_breaks : 64;
        Py_ssize_t *b = PyMem_RawRealloc(w->breaks, (size_t)cap * sizeof(Py_ssize_t));
        if (b == NULL)
            return -1;
        w->breaks = b;
        w->cap_breaks = cap;
    }
    w->breaks[w->n_breaks++] = c;
    return 0;
}

#define WS_LEAVE 0      /* the Python steps decide this chunk */
#define WS_NO_MEMORY -1
#define WS_NEED_MORE -2 /* the stretch reaches the end of the text held: wait for more */

/* The cut from character s (>= s0): its end (a character index) and count into *count, or
   one of the codes above.  The ends are read in order with the first piece's table only
   (the stop rule needs no more); the last fitting end is then found from the last segment
   back, a segment's table filled only when its first piece leaves room for it. */
static Py_ssize_t
ws_cut(const Core *core, Stretch *w, Py_ssize_t s, Py_ssize_t max_tokens, Py_ssize_t whole_max, const void *whole,
       int final, Py_ssize_t byte_horizon, Py_ssize_t prev_chars, int32_t *cand, Py_ssize_t *count)
{
    Py_ssize_t c0 = s - w->s0;
    if (stretch_extend(w, c0 + 2 * (max_tokens + 1) + 16 + prev_chars) < 0)
        return WS_NO_MEMORY;
    if (c0 >= w->nchars)
        return WS_LEAVE;  /* s starts no whitespace */
    if (!final && w->ended && w->s0 + w->nchars == w->n && w->nchars - c0 < prev_chars &&
        w->nbytes - w->boff[c0] <= byte_horizon)
        /* The held text ends in the stretch sooner than the previous chunk's length: the cut
           is most likely past it, decided with more text (waiting changes no chunk, and
           saves reading this one twice). */
        return WS_NEED_MORE;
    Py_ssize_t W = core->max_token_len;
    Py_ssize_t b0 = w->boff[c0];
    const unsigned char *d = w->buf + b0;
    Py_ssize_t per = 1, eq = 0;
    Py_ssize_t done = 0;       /* table filled through byte done (from b0) */
    Py_ssize_t fit_tab = 0;    /* last byte position whose table count fits */
    Py_ssize_t scanned = 0;    /* table positions looked at for fit_tab */
    Py_ssize_t walked = 0, reach = 0;
    w->counts[0] = w->last[0] = 0;
    w->n_breaks = 0;
    if (add_break(w, c0) < 0)  /* (the start: an empty first piece) */
        return WS_NO_MEMORY;
    Py_ssize_t c = c0;  /* ends c + 1 in turn */
    Py_ssize_t last_end;  /* the last candidate end (characters from s0) */
    for (;;) {
        if (c + 1 > w->nchars) {
            if (w->ended) {
                if (final && w->s0 + w->nchars == w->n) {
                    last_end = c;  /* every end read */
                    break;
                }
                if (!final && w->s0 + w->nchars == w->n && w->nbytes - b0 <= byte_horizon)
                    return WS_NEED_MORE;
                return WS_LEAVE;  /* the stretch ends before the stop rule decides */
            }
            if (stretch_extend(w, 2 * w->nchars) < 0)
                return WS_NO_MEMORY;
            d = w->buf + b0;
            continue;
        }
        Py_ssize_t p = w->boff[c + 1] - b0;
        if (p > done) {
            if (prefix_table_fill(core, d, w->last, w->counts, done, p, &per, &eq, cand) < p)
                return WS_LEAVE;  /* a byte that is no token: the Python steps raise the error */
            done = p;
        }
        Py_UCS4 ch = PyUnicode_READ(w->kind, w->data, w->s0 + c);
        c++;
        if (ch != '\r' && ch != '\n')
            continue;
        if (add_break(w, c) < 0)
            return WS_NO_MEMORY;
        while (scanned < p) {
            scanned++;
            if (w->counts[scanned] <= max_tokens)
                fit_tab = scanned;
        }
        if (p <= whole_max || w->counts[p] <= max_tokens)
            continue;
        int blocked = 0;
        if (walked < p - W)
            walked = p - W;  /* a token from before p - W ends before p (and before any later p) */
        while (walked <= fit_tab) {
            Py_ssize_t wl = trie_fwd_walk(core, d, walked, w->nbytes - b0);
            if (wl < 0) {
                blocked = 1;
                break;
            }
            if (walked + wl > reach)
                reach = walked + wl;
            walked++;
        }
        if (!blocked && reach <= p) {
            last_end = c - 1;  /* no end at or after c fits */
            w->n_breaks--;
            break;
        }
    }
    /* the last fitting end <= last_end: segments [breaks[j], next break) from the last back */
    for (Py_ssize_t j = w->n_breaks - 1; j >= 0; j--) {
        Py_ssize_t nb = w->breaks[j];  /* the segment's start (a line break end or c0) */
        Py_ssize_t hi = j + 1 < w->n_breaks ? w->breaks[j + 1] : last_end + 1;  /* its ends: (nb, hi) */
        if (hi > last_end + 1)
            hi = last_end + 1;
        Py_ssize_t nbb = w->boff[nb] - b0;
        Py_ssize_t first = piece_count(whole, whole_max, d, nbb, w->counts[nbb]);
        if (j + 1 < w->n_breaks && w->breaks[j + 1] <= last_end) {
            /* the end at the next line break: one piece */
            Py_ssize_t q = w->boff[w->breaks[j + 1]] - b0;
            Py_ssize_t k = piece_count(whole, whole_max, d, q, w->counts[q]);
            if (k <= max_tokens) {
                *count = k;
                return w->s0 + w->breaks[j + 1];
            }
        }
        if (first >= max_tokens || hi - 1 <= nb)
            continue;  /* every end inside has a second piece of at least one token */
        Py_ssize_t len = w->boff[hi - 1] - b0 - nbb;
        Py_ssize_t sp = 1, se = 0;
        w->seg_counts[0] = w->seg_last[0] = 0;
        if (prefix_table_fill(core, d + nbb, w->seg_last, w->seg_counts, 0, len, &sp, &se, cand) < len)
            return WS_LEAVE;
        for (Py_ssize_t e = hi - 1; e > nb; e--) {
            Py_ssize_t l = w->boff[e] - b0 - nbb;
            Py_ssize_t k = first + piece_count(whole, whole_max, d + nbb, l, w->seg_counts[l]);
            if (k <= max_tokens) {
                *count = k;
                return w->s0 + e;
            }
        }
    }
    return WS_LEAVE;
}

/* The smallest character ci in [lo, hi) (characters from s0) with piece(text[ci:end]) <= k,
   end = character index hi_end (the piece's end); -1 none, -2 a byte that is no token, -3
   out of memory. */
static Py_ssize_t
earliest_piece_suffix(const Core *core, Stretch *w, Py_ssize_t lo, Py_ssize_t end, Py_ssize_t k, Py_ssize_t whole_max,
                      const void *whole, int32_t *toks)
{
    if (k < 1 || lo >= end)
        return -1;
    Py_ssize_t W = core->max_token_len;
    Py_ssize_t span = (k + 1) * W > whole_max ? (k + 1) * W : whole_max;
    Py_ssize_t e_b = w->boff[end];
    Py_ssize_t x = lo;
    if (e_b - w->boff[x] > span) {
        /* the first character whose suffix has at most span bytes (fewer than k + 1 tokens
           otherwise: no token is longer than W, no whole-piece token than whole_max) */
        Py_ssize_t a = lo, b = end;
        while (a < b) {
            Py_ssize_t m = (a + b) / 2;
            if (e_b - w->boff[m] > span)
                a = m + 1;
            else
                b = m;
        }
        x = a;
    }
    const unsigned char *d = w->buf + w->boff[x];
    Py_ssize_t L = e_b - w->boff[x];
    if (L > w->cap_sfx) {
        if (grow32(&w->first, L + 1) < 0 || grow32(&w->cnt, L + 1) < 0)
            return -3;
        w->cap_sfx = L;
    }
    Py_ssize_t read = suffix_counts(core, d, L, k, w->first, w->cnt, toks);
    if (read == -2)
        return -2;
    /* the first character whose suffix may fit: at most read bytes, or a whole-piece token */
    Py_ssize_t reach_len = read > whole_max ? read : whole_max;
    if (e_b - w->boff[x] > reach_len) {
        Py_ssize_t a = x, b = end;
        while (a < b) {
            Py_ssize_t m = (a + b) / 2;
            if (e_b - w->boff[m] > reach_len)
                a = m + 1;
            else
                b = m;
        }
        x = a;
    }
    for (Py_ssize_t i = x; i < end; i++) {
        Py_ssize_t len = e_b - w->boff[i];
        if (whole != NULL && len <= whole_max && presplit_is_whole(whole, w->buf + w->boff[i], len))
            return i;
        if (len <= read && w->cnt[len] <= k)
            return i;
    }
    return -1;
}

/* The overlap start after the chunk [s, e) (characters, inside the held stretch) with its
   count total: a character index, e when no start fits; -1 out of memory, -2 a byte that
   is no token (left to the caller). */
static Py_ssize_t
ws_overlap(const Core *core, Stretch *w, Py_ssize_t s, Py_ssize_t e, Py_ssize_t k, Py_ssize_t whole_max,
           const void *whole, int32_t *cand)
{
    Py_ssize_t cs = s - w->s0, ce = e - w->s0;
    Py_ssize_t nl = cs;  /* characters from s0: the end of the chunk's last line break */
    for (Py_ssize_t c = ce; c > cs; c--) {
        Py_UCS4 ch = PyUnicode_READ(w->kind, w->data, w->s0 + c - 1);
        if (ch == '\r' || ch == '\n') {
            nl = c;
            break;
        }
    }
    /* c2: the count of the segment text[nl:e] */
    Py_ssize_t c2 = 0;
    Py_ssize_t seg_b = w->boff[nl], seg_len = w->boff[ce] - seg_b;
    if (seg_len > 0) {
        Py_ssize_t per = 1, eq = 0;
        w->seg_counts[0] = w->seg_last[0] = 0;
        if (prefix_table_fill(core, w->buf + seg_b, w->seg_last, w->seg_counts, 0, seg_len, &per, &eq, cand) < seg_len)
            return -2;
        c2 = piece_count(whole, whole_max, w->buf + seg_b, seg_len, w->seg_counts[seg_len]);
    }
    Py_ssize_t lo = cs + 1;
    if (nl > lo && k - c2 >= 1) {
        Py_ssize_t i = earliest_piece_suffix(core, w, lo, nl, k - c2, whole_max, whole, cand);
        if (i == -2 || i == -3)
            return i == -2 ? -2 : -1;
        if (i >= 0)
            return w->s0 + i;
    }
    if (nl > lo)
        lo = nl;
    Py_ssize_t i = earliest_piece_suffix(core, w, lo, ce, k, whole_max, whole, cand);
    if (i == -2 || i == -3)
        return i == -2 ? -2 : -1;
    return i >= 0 ? w->s0 + i : e;
}

static PyObject *
ws_cuts(PyObject *module, PyObject *args)
{
    PyObject *core_obj, *text, *whole_arg = Py_None;
    Py_ssize_t s, min_end, max_tokens, overlap, lookahead, byte_horizon, whole_max;
    int final;
    if (!PyArg_ParseTuple(args, "O!Unnnnpnnn|O", &CoreType, &core_obj, &text, &s, &min_end, &max_tokens, &overlap,
                          &final, &lookahead, &byte_horizon, &whole_max, &whole_arg))
        return NULL;
    const void *whole = NULL;
    if (presplit_whole_of(whole_arg, &whole) < 0)
        return NULL;
    if (whole == NULL)
        whole_max = 0;
    if (max_tokens < 1 || overlap < 0 || s < 0) {
        PyErr_SetString(PyExc_ValueError, "ws_cuts: max_tokens >= 1, overlap >= 0, start >= 0");
        return NULL;
    }
    const Core *core = (const Core *)core_obj;
    Stretch w = {0};
    w.kind = PyUnicode_KIND(text);
    w.data = PyUnicode_DATA(text);
    w.n = PyUnicode_GET_LENGTH(text);
    w.s0 = s;
    PyObject *out = PyList_New(0);
    /* room for the tokens starting at one byte (at most max_token_len) and the table's candidates */
    int32_t *cand = PyMem_RawMalloc((size_t)(core->max_token_len + 1) * sizeof(int32_t));
    if (out == NULL || cand == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto error;
    }
    int need_more = 0;
    Py_ssize_t prev_chars = 0;  /* the length of the last chunk made */
    while (s < w.n) {
        Py_ssize_t count = 0;
        Py_ssize_t e = ws_cut(core, &w, s, max_tokens, whole_max, whole, final, byte_horizon, prev_chars, cand, &count);
        if (e == WS_NO_MEMORY) {
            PyErr_NoMemory();
            goto error;
        }
        if (e == WS_NEED_MORE) {
            need_more = 1;  /* the chunk from s is decided with more text */
            break;
        }
        if (e > 0 && !final && e + lookahead > w.n) {
            need_more = 1;  /* the streaming rule (Chunker._plan): the cut is e, decided later */
            break;
        }
        if (e == 0 || e <= min_end)
            break;
        if (append_cut(out, s, e, count) < 0)
            goto error;
        min_end = e;
        prev_chars = e - s;
        if (e >= w.n || overlap == 0) {
            s = e;
            continue;
        }
        Py_ssize_t next = ws_overlap(core, &w, s, e, overlap, whole_max, whole, cand);
        if (next == -1) {
            PyErr_NoMemory();
            goto error;
        }
        if (next == -2) {
            s = -1;  /* the caller finds this overlap start (and raises for the byte) */
            break;
        }
        s = next;
    }
    PyMem_RawFree(cand);
    stretch_free(&w);
    return Py_BuildValue("(NnnN)", out, s, min_end, PyBool_FromLong(need_more));
error:
    PyMem_RawFree(cand);
    stretch_free(&w);
    Py_XDECREF(out);
    return NULL;
}

/* Whether bytes t[0:n] may begin whitespace that is no line break: a whole UTF-8 character
   of White_Space other than \r and \n, or the beginning of one. */
static int
starts_blank(const unsigned char *t, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    Py_UCS4 cp = t[0];
    int more = 0;
    if (cp < 0x80)
        return cp != '\r' && cp != '\n' && is_ws(cp);
    if ((cp & 0xE0) == 0xC0) {
        cp &= 0x1F;
        more = 1;
    }
    else if ((cp & 0xF0) == 0xE0) {
        cp &= 0x0F;
        more = 2;
    }
    else if ((cp & 0xF8) == 0xF0) {
        cp &= 0x07;
        more = 3;
    }
    else
        return 0;
    Py_ssize_t have = n - 1 < more ? n - 1 : more;
    for (i = 1; i <= have; i++) {
        if ((t[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (t[i] & 0x3F);
    }
    if (have == more)
        return is_ws(cp);
    /* a part of a character: any White_Space code point with these leading bits */
    int shift = 6 * (more - have);
    Py_UCS4 lo = cp << shift, hi = lo | (((Py_UCS4)1 << shift) - 1);
    for (Py_UCS4 c = lo; c <= hi && c <= 0x10FFFF; c++)
        if (is_ws(c))
            return 1;
    return 0;
}

/* line_break_split_holds(core) -> bool: no token holds a line break followed (after its
   last line break) by whitespace that is no line break, or a part of such (the compiled
   twin of text/whitespace_pieces.py _holds_for).  O(total token bytes). */
static PyObject *
line_break_split_holds(PyObject *module, PyObject *args)
{
    PyObject *core_obj;
    if (!PyArg_ParseTuple(args, "O!", &CoreType, &core_obj))
        return NULL;
    const Core *c = (const Core *)core_obj;
    for (int32_t r = 0; r < (int32_t)c->n_tokens; r++) {
        const unsigned char *t = tok_bytes(c, r);
        Py_ssize_t n = tok_len(c, r), i;
        for (i = n - 1; i >= 0 && t[i] != '\r' && t[i] != '\n'; i--)
            ;
        if (i < 0 || i == n - 1)
            continue;
        if (starts_blank(t + i + 1, n - i - 1))
            Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

static PyMethodDef chunk_ws_functions[] = {
    {"line_break_split_holds", (PyCFunction)line_break_split_holds, METH_VARARGS,
     "line_break_split_holds(core) -> bool: whether no token crosses the end of a whitespace string's\n"
     "last line break into whitespace (text/whitespace_pieces.py)."},
    {"ws_cuts", (PyCFunction)ws_cuts, METH_VARARGS,
     "ws_cuts(core, text, start, min_end, max_tokens, overlap, final, lookahead, byte_horizon, whole_max, whole=None)\n"
     "-> (cuts, start, min_end, need_more): the exact chunker's chunks inside a stretch of whitespace\n"
     "from start (cl100k and o200k members), as a flat list [start, end, count, ...], and the state\n"
     "after them (start -1: the overlap start after the last chunk is left to the caller; need_more:\n"
     "the next chunk's cut is known but it waits for the look-ahead)."},
    {NULL, NULL, 0, NULL},
};

int
chunk_ws_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_ws_functions);
}
