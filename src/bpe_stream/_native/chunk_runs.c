/* The exact chunker's chunks inside a long one-piece run, many per call (the Python
reference is chunk/counts.py: ChunkView._cut_in_run for the cut, SuffixView._earliest_in_run
for the overlap start).

run_cuts(core, text, start, min_end, max_tokens, overlap, final, lookahead, mode,
         whole_max, whole=None) -> (cuts, start, min_end, need_more)

Invariant.  Every character of text[s:j] for the chunks made here is of one class
whose strings are each a single piece of the member's split (mode 1, cl100k: letters
\p{L}, or punctuation [^\s\p{L}\p{N}], also from an apostrophe: its contractions need a
letter after it, and _ONE_PIECE_RUN's (?!') only keeps its class narrow; mode 2,
o200k: [\p{Ll}\p{Lm}\p{Lo}], [\p{Lu}\p{Lt}] or punctuation [^\s\p{L}\p{N}\p{M}]).
Such a string is one piece from any of its characters (every substring is again of the
class, and matches the member's _ONE_PIECE_RUN but for that apostrophe), so, as in ChunkView's run mode, count(text[s:j]) is 1
when its bytes are a whole-piece token (at most whole_max bytes) and the raw BPE count
of its bytes otherwise.

The cut from s: one table pass (prefix_table.c's table_fill) over the run's bytes from
s, counts[p] the raw count of the first p bytes.  Stop rule: at a position p whose
count exceeds the budget, with fit the last position whose count fits, no longer
prefix fits when no token can start at or before fit and end after p, that is when
r + walk(r) <= p for every r <= fit (walk(r): the longest token prefix starting at r,
the forward trie walked over the bytes; trie_fwd_walk_within stops it at a node whose
depth plus height is within p, an upper bound that answers the test as the walk does,
and still does for every later p).  Why: the encoding of a longer prefix q > p
is a chain of last tokens back from q; the chain's first position at or before p is
a token start inside (fit, p] (a token from there crosses p), whose count exceeds the
budget, and counts only grow along the chain.  This is ChunkView._cut_in_run_bpe's
sliding-window minimum with the window cut down to the token prefixes actually
present (a few bytes past the cut instead of max_token_len), and it holds for ends
past the run too as long as p is before the run's last character (the second property
of _ONE_PIECE_RUN in chunk/counts.py: the first piece of a longer text reaches it, and
its bytes agree with the run's up to there).  The cut is the last character boundary
read whose count fits, or the last whole-piece end if that is later.  The overlap start
after a chunk [s, e) is the smallest i in (s, e) with count(text[i:e]) <= overlap:
suffix counts from one backward pass over at most the last (overlap + 1) *
max_token_len bytes (the mirror of bpe/prependable.py: the longest token starting at
the front whose pair with the first token of the rest is valid), stopped by the
mirrored rule (no token ending at or after e - fit and starting before e - p: the
reversed trie walked back from each end); whole-piece suffixes count 1.

When the run reaches the end of the input (final), every end is in it and the cut is
the last fitting one read.  The call stops, leaving the chunk from ``start`` to the
Python steps, where one of these rules stops holding: the run (or the held text) ends
before the stop rule decides, the run holds fewer than whole_max + 2 characters from s, no end past min_end
fits, the streaming look-ahead (not final and e + lookahead > len(text)), or a byte that
is no token.  Where the held text (not final, within the byte horizon max_tokens *
max_token_len) ends in the run before the stop rule decides, or from s holds less than
the previous chunk's length (then nothing is read), the call answers need_more instead:
the chunk is decided once more text is held, the same chunk (they are the whole input's).
From one chunk to the next the bytes read and the table stay: the next start, inside
them, is shifted to the front (run_restart) and the table pass resumes the previous
chunk's table where they meet (table_meet.c: at the first position where they agree
and no token crosses), so an overlap is not read forward twice.  Complexity: O(chunk + overlap bytes * trie steps) per chunk, linear over
the run; memory O(budget * max_token_len) bytes.  The tests compare it with the pure-
Python chunker (tests/test_chunk_runs.py).
*/
#include "core.h"
#include "unicode_classes.h"

#define RUN_LETTERS 1
#define RUN_UPPER 2
#define RUN_PUNCT 3

#define RUN_NEED_MORE -2  /* run_cut: the chunk is decided with more text held */

/* The run class of code point cp for mode (0: none). */
static inline int
run_class(int mode, Py_UCS4 cp)
{
    uint8_t f = presplit_flags(cp);
    if (cp == '\r' || cp == '\n')
        return 0;
    if (mode == 1) {
        if (f & PF_L)
            return RUN_LETTERS;
        if (!(f & (PF_WS | PF_N)))
            return RUN_PUNCT;
        return 0;
    }
    if (f & PF_L) {
        if (f & PF_LO)
            return (f & PF_M) ? 0 : RUN_LETTERS;  /* Ll, Lm, Lo */
        return (f & PF_UP) ? RUN_UPPER : 0;        /* Lu, Lt */
    }
    if (!(f & (PF_WS | PF_N | PF_M)))
        return RUN_PUNCT;
    return 0;
}

/* The bytes of one chunk's run from its start: buf[0:nbytes] holds the characters
   s .. s + nchars - 1, all of class cls, boff[c] the byte offset of character s + c. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
    int mode, cls;
    Py_ssize_t s, nchars, nbytes, cap;
    int ended;  /* the run (or the held text) ends at s + nchars */
    unsigned char *buf;
    Py_ssize_t *boff;
    int32_t *last, *counts;
    /* the table positions run_cut filled (from s), and after run_restart those of the
       previous chunk's table still in place (table_meet.c takes them over) */
    Py_ssize_t filled, old_filled;
    /* run_overlap's suffix counts (room for ov_cap + 1 positions), kept from chunk to chunk */
    int32_t *ov_first, *ov_cnt;
    Py_ssize_t ov_cap;
} RunBytes;

static void
run_free(RunBytes *r)
{
    PyMem_RawFree(r->buf);
    PyMem_RawFree(r->boff);
    PyMem_RawFree(r->last);
    PyMem_RawFree(r->counts);
    PyMem_RawFree(r->ov_first);
    PyMem_RawFree(r->ov_cnt);
}

static int
run_grow(RunBytes *r, Py_ssize_t chars)
{
    if (chars <= r->cap)
        return 0;
    Py_ssize_t cap = r->cap ? r->cap : 1024;
    while (cap < chars)
        cap *= 2;
    unsigned char *buf = PyMem_RawRealloc(r->buf, (size_t)cap * 4 + 1);
    if (buf == NULL)
        return -1;
    r->buf = buf;
    Py_ssize_t *boff = PyMem_RawRealloc(r->boff, (size_t)(cap + 1) * sizeof(Py_ssize_t));
    if (boff == NULL)
        return -1;
    r->boff = boff;
    int32_t *last = PyMem_RawRealloc(r->last, (size_t)(cap * 4 + 1) * sizeof(int32_t));
    if (last == NULL)
        return -1;
    r->last = last;
    int32_t *counts = PyMem_RawRealloc(r->counts, (size_t)(cap * 4 + 1) * sizeof(int32_t));
    if (counts == NULL)
        return -1;
    r->counts = counts;
    r->cap = cap;
    r->boff[0] = 0;
    return 0;
}

/* Extends the run's bytes to at least want characters (fewer where it ends); -1 out of memory. */
static int
run_extend(RunBytes *r, Py_ssize_t want)
{
    if (r->ended || r->nchars >= want)
        return 0;
    /* (room for the characters the text holds, not for all of want: a huge budget's
       horizon asks for more than any text has) */
    Py_ssize_t room = r->n - r->s > 1 ? r->n - r->s : 1;
    if (run_grow(r, want < room ? want : room) < 0)
        return -1;
    while (r->nchars < want) {
        Py_ssize_t i = r->s + r->nchars;
        if (i >= r->n) {
            r->ended = 1;
            break;
        }
        Py_UCS4 cp = PyUnicode_READ(r->kind, r->data, i);
        if (run_class(r->mode, cp) != r->cls) {
            r->ended = 1;
            break;
        }
        r->nbytes += utf8_put(cp, r->buf + r->nbytes);
        r->nchars++;
        r->boff[r->nchars] = r->nbytes;
    }
    return 0;
}

/* Starts the run at s: its class (0: s starts none). */
static int
run_start(RunBytes *r, Py_ssize_t s)
{
    r->s = s;
    r->nchars = r->nbytes = 0;
    r->ended = 0;
    if (s >= r->n)
        return 0;
    r->cls = run_class(r->mode, PyUnicode_READ(r->kind, r->data, s));
    return r->cls;
}

/* ---- the next chunk from s inside the bytes already read: they, and the previous
   chunk's table over them, are shifted to the front instead of read again (an overlap
   start re-reads up to overlap tokens; the table is then resumed, table_meet.c).
   O(bytes kept) moves, against the table steps they save. */
static int
run_restart(RunBytes *r, Py_ssize_t s)
{
    Py_ssize_t c = s - r->s;
    if (r->filled <= 0 || c <= 0 || c >= r->nchars)
        {
            r->filled = r->old_filled = 0;
            return run_start(r, s);
        }
    Py_ssize_t b = r->boff[c];
    memmove(r->buf, r->buf + b, (size_t)(r->nbytes - b));
    for (Py_ssize_t j = 0; j <= r->nchars - c; j++)
        r->boff[j] = r->boff[j + c] - b;
    r->old_filled = r->filled > b ? r->filled - b : 0;  /* (table_meet.c: met where no token crosses) */
    if (r->old_filled > 0) {
        memmove(r->last + 1, r->last + b + 1, (size_t)r->old_filled * sizeof(int32_t));
        memmove(r->counts + 1, r->counts + b + 1, (size_t)r->old_filled * sizeof(int32_t));
    }
    r->s = s;
    r->nchars -= c;
    r->nbytes -= b;
    r->filled = 0;
    return r->cls;
}
/* ---- */

/* The cut from r->s: the end (a character index) and its count into *count; 0 when the
   rules above leave it to the Python steps, -1 out of memory. */
static Py_ssize_t
run_cut(const Core *core, RunBytes *r, Py_ssize_t max_tokens, Py_ssize_t whole_max, const void *whole, int final,
        Py_ssize_t prev_chars, int32_t *cand, Py_ssize_t *count)
{
    Py_ssize_t W = core->max_token_len;
    Py_ssize_t step = 2 * (max_tokens + 1) + 16;  /* characters first read; doubled as needed */
    if (step < prev_chars + 1)
        step = prev_chars + 1;
    if (run_extend(r, whole_max + 2 > step ? whole_max + 2 : step) < 0)
        return -1;
    /* the run reaches the end of the input: every end is in it, read them all */
#define AT_INPUT_END (final && r->ended && r->s + r->nchars == r->n)
    /* the run reaches the end of the text held, within the streaming horizon: waiting for
       more text changes no chunk (the chunks are those of the whole input) */
#define MAY_WAIT (!final && r->ended && r->s + r->nchars == r->n && r->nbytes <= max_tokens * W)
    if (prev_chars > 0 && r->nchars < prev_chars && MAY_WAIT)
        /* the held text ends in the run sooner than the previous chunk's length: the cut is
           most likely past it, so wait without reading (as chunk_ws.c): the table pass is
           then done once, over the longer text */
        return RUN_NEED_MORE;
    if (r->nchars < whole_max + 2 && !AT_INPUT_END)
        return MAY_WAIT ? RUN_NEED_MORE : 0;
    Py_ssize_t done = 0, per = 1, eq = 0;
    Py_ssize_t fit_any = 0;    /* last byte position whose prefix count fits */
    Py_ssize_t fit_char = 0;   /* the same among character boundaries (characters) */
    Py_ssize_t chars_at = 0;   /* characters before position p */
    Py_ssize_t walked = 0;     /* positions r < walked have their forward walks in reach */
    Py_ssize_t reach = 0;      /* max of r + trie_fwd_walk(r) over them */
    r->counts[0] = r->last[0] = 0;
    TableMeet meet;  /* table_meet.c: where this chunk's table meets the previous one */
    table_meet_start(&meet);
    int stopped = 0;
    while (!stopped) {
        if (done == r->nbytes) {
            if (AT_INPUT_END)
                break;
            if (r->ended)
                /* the run ends before the stop rule decides: at the held text's end, decided
                   with more text (rather than by the Python steps over the whole window) */
                return MAY_WAIT ? RUN_NEED_MORE : 0;
            if (run_extend(r, 2 * r->nchars) < 0)
                return -1;
            continue;
        }
        /* table steps in blocks growing to W: the stop is usually a few bytes past the cut */
        Py_ssize_t blk = done < 16 ? 16 : done < W ? done : W;
        if (done >= 16) {
            /* past the first bytes, aim at the budget from the bytes per token so far (plus
               a few bytes for the stop rule): the table costs per byte filled, and at small
               budgets a doubled block overreads the cut by up to half a chunk */
            Py_ssize_t left = max_tokens + 1 - r->counts[done];
            Py_ssize_t aim = left > 0 ? left * done / (r->counts[done] > 0 ? r->counts[done] : 1) + 8 : 8;
            if (aim < blk)
                blk = aim;
        }
        Py_ssize_t target = done + blk < r->nbytes ? done + blk : r->nbytes;
        Py_ssize_t got;
        if (r->old_filled > done) {
            /* the previous chunk's table lies ahead: resume from it once they meet */
            int synced = 0;
            got = table_fill_meet(core, r->buf, r->nbytes, r->last, r->counts, done, target, r->old_filled, &per, &eq,
                                  cand, &meet, &synced);
            if (synced) {
                r->old_filled = 0;
                if (got > target)
                    target = got;
            }
        }
        else
            got = prefix_table_fill(core, r->buf, r->last, r->counts, done, target, &per, &eq, cand);
        if (got < target)
            return 0;  /* a byte that is no token: the Python steps raise the error */
        r->filled = target;
        for (Py_ssize_t p = done + 1; p <= target; p++) {
            int boundary = p == r->nbytes || (r->buf[p] & 0xC0) != 0x80;
            if (boundary)
                chars_at++;
            if (r->counts[p] <= max_tokens) {
                fit_any = p;
                if (boundary)
                    fit_char = chars_at;
                continue;
            }
            if (p >= r->boff[r->nchars - 1])
                continue;  /* past the bytes a longer text's first piece surely shares */
            int blocked = 0;
            if (walked < p - W + 1)
                walked = p - W + 1;  /* a token from r <= p - W ends by p: no walk needed */
            while (walked <= fit_any) {
                /* (a bound at or below p answers as the walk: p only grows) */
                Py_ssize_t w = trie_fwd_walk_within(core, r->buf, walked, r->nbytes, p);
                if (w < 0) {
                    blocked = 1;  /* the walk reads past the bytes held: decided later */
                    break;
                }
                if (walked + w > reach)
                    reach = walked + w;
                walked++;
            }
            if (!blocked && reach <= p) {
                /* no prefix longer than fit_any fits, in the run or past it (the first piece
                   of a longer text reaches the run's last character) */
                stopped = 1;
                break;
            }
        }
        done = target;
    }
    Py_ssize_t e = fit_char;
    Py_ssize_t c = fit_char ? r->counts[r->boff[fit_char]] : 0;
    if (whole != NULL) {
        Py_ssize_t j = r->nchars < whole_max ? r->nchars : whole_max;  /* (a character: >= 1 byte) */
        for (; j > e && j >= 1; j--) {
            Py_ssize_t len = r->boff[j];
            if (len > whole_max)
                continue;
            if (presplit_is_whole(whole, r->buf, len)) {
                e = j;
                break;
            }
        }
        if (e >= 1 && r->boff[e] <= whole_max && presplit_is_whole(whole, r->buf, r->boff[e]))
            c = 1;
    }
    if (e == 0)
        return 0;
    *count = c;
    return r->s + e;
}

/* The overlap start after the chunk [r->s, r->s + ce) (ce characters): the smallest i in
   (s, e) with count(text[i:e]) <= k, else e; -1 out of memory, -2 a byte that is no token. */
static Py_ssize_t
run_overlap(const Core *core, RunBytes *r, Py_ssize_t ce, Py_ssize_t k, Py_ssize_t whole_max, const void *whole,
            int32_t *toks)
{
    Py_ssize_t W = core->max_token_len;
    Py_ssize_t x = ce - (k + 1) * W;
    if (whole != NULL && ce - whole_max < x)
        x = ce - whole_max;
    if (x < 1)
        x = 1;
    const unsigned char *d = r->buf + r->boff[x];
    Py_ssize_t L = r->boff[ce] - r->boff[x];
    if (r->ov_first == NULL || L > r->ov_cap) {
        /* (the same L, about (k + 1) * max_token_len bytes, comes back chunk after chunk) */
        int32_t *f = PyMem_RawRealloc(r->ov_first, (size_t)(L + 1) * sizeof(int32_t));
        if (f == NULL)
            return -1;
        r->ov_first = f;
        int32_t *cn = PyMem_RawRealloc(r->ov_cnt, (size_t)(L + 1) * sizeof(int32_t));
        if (cn == NULL)
            return -1;
        r->ov_cnt = cn;
        r->ov_cap = L;
    }
    int32_t *cnt = r->ov_cnt;
    Py_ssize_t read = suffix_counts(core, d, L, k, r->ov_first, cnt, toks);
    if (read < 0)
        return read;
    Py_ssize_t e_bytes = r->boff[ce];
    Py_ssize_t answer = ce;
    for (Py_ssize_t i = x; i < ce; i++) {
        Py_ssize_t len = e_bytes - r->boff[i];
        if (whole != NULL && len <= whole_max && presplit_is_whole(whole, r->buf + r->boff[i], len)) {
            answer = i;
            break;
        }
        if (len <= read && cnt[len] <= k) {
            answer = i;
            break;
        }
    }
    return r->s + answer;
}

static PyObject *
run_cuts(PyObject *module, PyObject *args)
{
    PyObject *core_obj, *text, *whole_arg = Py_None;
    Py_ssize_t s, min_end, max_tokens, overlap, lookahead, whole_max;
    int final, mode;
    if (!PyArg_ParseTuple(args, "O!Unnnnpnin|O", &CoreType, &core_obj, &text, &s, &min_end, &max_tokens, &overlap,
                          &final, &lookahead, &mode, &whole_max, &whole_arg))
        return NULL;
    const void *whole = NULL;
    if (presplit_whole_of(whole_arg, &whole) < 0)
        return NULL;
    if (whole == NULL)
        whole_max = 0;
    const Core *core = (const Core *)core_obj;
    RunBytes r = {0};
    r.kind = PyUnicode_KIND(text);
    r.data = PyUnicode_DATA(text);
    r.n = PyUnicode_GET_LENGTH(text);
    r.mode = mode;
    PyObject *out = PyList_New(0);
    int32_t *cand = PyMem_RawMalloc((size_t)(core->max_token_len + 1) * sizeof(int32_t));
    if (out == NULL || cand == NULL || (mode != 1 && mode != 2) || max_tokens < 1 || overlap < 0) {
        if (out != NULL && cand != NULL)
            PyErr_SetString(PyExc_ValueError, "run_cuts: mode must be 1 or 2, max_tokens >= 1, overlap >= 0");
        else if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto error;
    }
    int need_more = 0;
    Py_ssize_t prev_chars = 0;  /* the length of the last chunk made */
    while (run_restart(&r, s)) {
        Py_ssize_t count = 0;
        Py_ssize_t e = run_cut(core, &r, max_tokens, whole_max, whole, final, prev_chars, cand, &count);
        if (e == RUN_NEED_MORE) {
            need_more = 1;  /* the chunk from s is decided with more text */
            break;
        }
        if (e < 0) {
            PyErr_NoMemory();
            goto error;
        }
        if (e > 0 && !final && e + lookahead > r.n) {
            need_more = 1;  /* the streaming rule (Chunker._plan): the cut is e, decided later */
            break;
        }
        if (e == 0 || e <= min_end)
            break;
        if (append_cut(out, s, e, count) < 0)
            goto error;
        min_end = e;
        prev_chars = e - s;
        if (e >= r.n || overlap == 0) {
            s = e;
            if (e >= r.n)
                break;
            continue;
        }
        Py_ssize_t next = run_overlap(core, &r, e - s, overlap, whole_max, whole, cand);
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
    run_free(&r);
    return Py_BuildValue("(NnnN)", out, s, min_end, PyBool_FromLong(need_more));
error:
    PyMem_RawFree(cand);
    run_free(&r);
    Py_XDECREF(out);
    return NULL;
}

/* run_overlap_start(core, text, s, e, overlap, mode, whole_max, whole=None) -> int: the overlap
   start after the chunk [s, e) (as run_cuts finds it) when the characters that can start
   a fitting suffix, text[max(s + 1, e - (overlap + 1) * max_token_len - whole_max) : e],
   are of one class; -1 otherwise (or at a byte that is no token). */
static PyObject *
run_overlap_start(PyObject *module, PyObject *args)
{
    PyObject *core_obj, *text, *whole_arg = Py_None;
    Py_ssize_t s, e, overlap, whole_max;
    int mode;
    if (!PyArg_ParseTuple(args, "O!Unnnin|O", &CoreType, &core_obj, &text, &s, &e, &overlap, &mode, &whole_max,
                          &whole_arg))
        return NULL;
    const void *whole = NULL;
    if (presplit_whole_of(whole_arg, &whole) < 0)
        return NULL;
    if (whole == NULL)
        whole_max = 0;
    const Core *core = (const Core *)core_obj;
    RunBytes r = {0};
    r.kind = PyUnicode_KIND(text);
    r.data = PyUnicode_DATA(text);
    r.n = PyUnicode_GET_LENGTH(text);
    r.mode = mode;
    if ((mode != 1 && mode != 2) || overlap < 1 || s < 0 || e > r.n || e - s < 2)
        return PyLong_FromLong(-1);
    /* text[base] only anchors the offsets (run_overlap reads from base + 1 on) */
    Py_ssize_t base = e - (overlap + 1) * core->max_token_len - whole_max - 1;
    if (base < s)
        base = s;
    Py_ssize_t result = -1;
    int32_t *cand = PyMem_RawMalloc((size_t)(core->max_token_len + 1) * sizeof(int32_t));
    if (cand == NULL || run_grow(&r, e - base) < 0) {
        PyErr_NoMemory();
        goto out;
    }
    r.s = base;
    r.cls = run_class(mode, PyUnicode_READ(r.kind, r.data, e - 1));
    if (r.cls == 0)
        goto out;
    /* the anchor's bytes, then the one-class characters after it */
    r.nbytes = utf8_put(PyUnicode_READ(r.kind, r.data, base), r.buf);
    r.nchars = 1;
    r.boff[1] = r.nbytes;
    if (run_extend(&r, e - base) < 0) {
        PyErr_NoMemory();
        goto out;
    }
    if (base + r.nchars < e)
        goto out;  /* another class before e */
    result = run_overlap(core, &r, e - base, overlap, whole_max, whole, cand);
    if (result == -1) {
        PyErr_NoMemory();
        goto out;
    }
    if (result == -2)
        result = -1;
out:
    PyMem_RawFree(cand);
    run_free(&r);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromSsize_t(result);
}

/* longest_token_in(core, data) -> int: the byte length of the longest token occurring in
   data (bytes), every token of the vocabulary counted, unreachable ones included (a whole
   pre-split piece may be one), as an Aho-Corasick pass with all overlapping matches finds
   it (text/cuts.py _RegionTokenBound).  The forward trie walked from every position, the
   unreachable tokens (a few) searched for directly; stops at max_token_len.  O(len(data)
   * walk). */
static PyObject *
longest_token_in(PyObject *module, PyObject *args)
{
    PyObject *core_obj;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "O!y*", &CoreType, &core_obj, &view))
        return NULL;
    const Core *c = (const Core *)core_obj;
    const unsigned char *d = view.buf;
    Py_ssize_t n = view.len, longest = 0, M = c->max_token_len;
    const Trie *t = &c->fwd;
    for (Py_ssize_t i = 0; i < n && longest < M; i++) {
        uint32_t v = t->root[d[i]];
        Py_ssize_t len = 0;
        while (v) {
            len++;
            if (t->node[v].token >= 0 && len > longest)
                longest = len;
            if (i + len == n)
                break;
            v = trie_child(t, v, d[i + len]);
        }
    }
    for (Py_ssize_t u = 0; u < c->n_unreachable && longest < M; u++) {
        int32_t r = c->unreachable[u];
        Py_ssize_t len = tok_len(c, r);
        if (len <= longest || len > n)
            continue;
        const unsigned char *tb = tok_bytes(c, r);
        for (Py_ssize_t i = 0; i + len <= n; i++) {
            if (d[i] == tb[0] && memcmp(d + i, tb, (size_t)len) == 0) {
                longest = len;
                break;
            }
        }
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(longest);
}

static PyMethodDef chunk_runs_functions[] = {
    {"longest_token_in", (PyCFunction)longest_token_in, METH_VARARGS,
     "longest_token_in(core, data) -> int: the byte length of the longest token (any, unreachable ones\n"
     "included) occurring in data."},
    {"run_overlap_start", (PyCFunction)run_overlap_start, METH_VARARGS,
     "run_overlap_start(core, text, s, e, overlap, mode, whole_max, whole=None) -> int: the overlap start\n"
     "after the chunk [s, e) when its candidate starts lie in a one-piece run, else -1."},
    {"run_cuts", (PyCFunction)run_cuts, METH_VARARGS,
     "run_cuts(core, text, start, min_end, max_tokens, overlap, final, lookahead, mode, whole_max,\n"
     "whole=None) -> (cuts, start, min_end, need_more): the exact chunker's chunks inside a one-piece\n"
     "run from start, as a flat list [start, end, count, ...], and the state after them (start -1: the\n"
     "overlap start after the last chunk is left to the caller; need_more: the chunk from start\n"
     "waits for more text: its cut is known but the look-ahead is not held, or the text held ends\n"
     "in the run before it is decided).  mode: 1 cl100k's classes,\n"
     "2 o200k's; whole: the whole-piece tokens (whole_set) or None, none longer than whole_max bytes."},
    {NULL, NULL, 0, NULL},
};

int
chunk_runs_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_runs_functions);
}
