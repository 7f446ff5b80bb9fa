/* The exact chunker's cut and overlap start by exact recounts of short slices, for
chunk_cuts.c's exact_cuts where the prefix sums alone do not decide them: cuts next to
whitespace runs (code indentation), a straddling piece that is no letter run, a chunk
start inside a whitespace or punctuation piece.

Invariant: counted_cut returns the largest end j > s with count(T[s:j]) <= max_tokens
and counted_overlap_start the smallest start p in (s, e) with count(T[p:e]) <= overlap
(e if none), both exact (count = enc.count, cl100k/o200k pattern), the answers of
chunk/counts.py's ChunkView.cut and SuffixView (the reference; the tests compare them),
or -1 where a bound below is passed (the caller leaves the chunk to the Python path).

Why it is exact (rule numbers of chunk/counts.py; T the held text, bounds/cum its
pieces' starts and prefix counts):

* Boundaries of the split of T[s:].  Let h be the first global boundary >= s that is s
  itself or hard (rule 5).  Then s and every global boundary from h on are boundaries
  of the split of T[s:] (rule 5: no piece reads past h, one ends there; from h on both
  splits agree), with prefix counts C(b) = count(T[s:h]) + cum[b] - cum[h].  When no
  hard boundary comes soon, h is where a re-split from s meets the global split (rule
  1), its pieces taken only up to their stable limit (local_sync).
* count(T[s:j]) = C(b) + count(T[b:j]) for the last such boundary b <= j - MARGIN
  with a non-whitespace character in T[b:j] (rule 2; s always qualifies).
* No end fits from hi on: hi = b_o if the first boundary over the budget b_o is hard
  (rule 5), else its witness, the smallest j >= b_o + MARGIN with a non-whitespace
  character in T[b_o:j] (rule 3).  The cut is the first j from hi - 1 down that fits.
* Overlap: count(T[p:e]) = count(T[p:g]) + count(T[g:e]) for g the first hard boundary
  in (p, e) (rule 5), count(T[g:e]) = C_e - cum[g] for global boundaries g up to the
  last one stable for e (rule 2: C_e = cum[b_e] + count(T[b_e:e])).  A hard boundary g
  with count(T[g:e]) > overlap rules out every start up to g, so the walk starts after
  the last such g before e.  After a cut of counted_cut, C_e = count(T[s:e]) + base
  (its sums) when b_e is at or after its h: b_e is then also the base of e in the split
  from s, whose boundaries from h on are the global ones.
* Bounds that skip a recount: count(T[b:j]) >= 1 for j > b; a suffix's BPE count is
  at least the fewest tokens that concatenate to it (suffix_tilings; with no
  whole-piece tokens, for a run of pieces too); count(T[b:j]) >= 2 where T[b:j] splits
  into two pieces at least (two_pieces, argued there), each at least one token.

Also here, for chunk_cuts.c's letter runs: prefix_counts (the counts of all prefixes of
a short piece in one table pass) and suffix_tilings.

"Non-whitespace" is read conservatively (neither the pattern's \s nor str.isspace), which
only moves a base earlier or a witness later: both stay valid.

Complexity: per chunk, at most MAX_STEPS candidate ends or starts, each one compiled
split and count of a slice of at most MAX_SLICE characters (cached pieces), so O(1)
per chunk with those constants; past them the Python path takes the chunk.
*/
#include "core.h"
#include "unicode_classes.h"
#include "piece_cache.h"

#define MARGIN 4         /* stable_margin of the cl100k/o200k patterns (pretokenize/stability.py) */
#define MAX_SLICE 1024   /* longest slice recounted */
#define MAX_STEPS 256    /* candidate ends (or starts) tried per chunk */
#define MAX_SYNC 16      /* boundaries searched for a hard one after a chunk start */
#define SYNC_CHARS 256   /* characters re-split after a chunk start that no hard boundary follows */

static inline int
surely_not_space(Py_UCS4 c)
{
    return !(presplit_flags(c) & PF_WS) && !Py_UNICODE_ISSPACE(c);
}

/* count(T[p:q]) by the compiled split, or -1 (too long, a whole-piece token or a byte
   that is no token: the Python path counts those). */
static Py_ssize_t
slice_count(const CountedText *t, Py_ssize_t p, Py_ssize_t q)
{
    if (q <= p)
        return 0;
    if (q - p > MAX_SLICE)
        return -1;
    uint8_t buf[4 * MAX_SLICE];
    Py_ssize_t m = presplit_utf8(t->kind, (const char *)t->data + p * t->kind, q - p, buf);
    if (m < 0)
        return -1;
    Py_ssize_t c = presplit_encode(t->core, t->spec, t->whole, buf, m, NULL, NULL, 0, t->cache);
    return c < 0 ? -1 : c;
}

/* The last index i in [lo, hi) with bounds[i] <= x, or lo - 1. */
static Py_ssize_t
last_le(const int64_t *v, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    Py_ssize_t a = lo, b = hi;
    while (a < b) {
        Py_ssize_t mid = (a + b) >> 1;
        if (v[mid] <= x)
            a = mid + 1;
        else
            b = mid;
    }
    return a - 1;
}

/* The largest lim <= j - MARGIN with a surely non-whitespace character in T[lim:j]
   (rule 2's limit for a base of end j), lo - 1 if [lo, j) has none, -2 if that search
   would pass MAX_SLICE characters. */
static Py_ssize_t
base_limit(const CountedText *t, Py_ssize_t lo, Py_ssize_t j)
{
    Py_ssize_t floor = j - MAX_SLICE > lo ? j - MAX_SLICE : lo;
    for (Py_ssize_t q = j - 1; q >= floor; q--)
        if (surely_not_space(PyUnicode_READ(t->kind, t->data, q)))
            return q < j - MARGIN ? q : j - MARGIN;
    return floor > lo ? -2 : lo - 1;
}

static int
has_non_space(const CountedText *t, Py_ssize_t p, Py_ssize_t q)
{
    for (; p < q; p++)
        if (surely_not_space(PyUnicode_READ(t->kind, t->data, p)))
            return 1;
    return 0;
}

/* HB_* bits (chunk_cuts.c) of members whose pieces two_pieces does not argue for: GPT-2's
   space lead, DeepSeek-V3, the CJK and digit chains, GPT-2's lone whitespace */
#define TWO_PIECES_OTHER_RULES (32 | 64 | 256 | 512 | 1024)

/* Whether T[b:j] surely splits into two pieces at least (0: not known), by the shape of
   every alternative of the cl100k/o200k patterns: a piece holding a character that is
   no whitespace (\s) has at most one character before its first such one (a letter
   run's or punctuation's lead, ` ?` before digits; contractions none) and ends in no
   whitespace or in a tail of \r, \n, "/" (letters, marks, digits, [^\s\p{L}\p{N}]
   and those tails hold no space or tab).  So (a) if T[b:j] ends in a space or tab and
   holds a surely non-whitespace character, its last piece is whitespace only and that
   character lies in another; (b) a surely non-whitespace character c after two spaces
   or tabs lies in a piece that starts at c - 1 at the earliest, so T[c - 2] lies in
   another.  One pass over the slice, no split. */
static int
two_pieces(const CountedText *t, Py_ssize_t b, Py_ssize_t j)
{
    if ((t->rule & TWO_PIECES_OTHER_RULES) || ((t->spec >> 13) & 3) != 0)
        return 0;
    Py_ssize_t blanks = 0;  /* spaces and tabs just before q */
    int seen = 0;           /* a surely non-whitespace character before q */
    for (Py_ssize_t q = b; q < j; q++) {
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, q);
        if (c == ' ' || c == '\t') {
            blanks++;
            continue;
        }
        if (surely_not_space(c)) {
            if (blanks >= 2)
                return 1;  /* (b) */
            seen = 1;
        }
        blanks = 0;
    }
    return seen && blanks > 0;  /* (a) */
}

/* The split of T[s:] from a chunk start s inside a piece up to its first boundary g that
   is a global boundary (rule 1: from g on it is the global split), by the compiled
   scanner on T[s:x]: the pieces of that split ending at or before its stable limit
   (text/appendable.py: x - MARGIN, the trailing whitespace, o200k's trailing upper-word
   stretch, here the trailing letters and marks, a superset; x itself when x = n, the
   held text) are pieces of the split of T[s:].  *g_idx: the index of g in bounds, *head:
   count(T[s:g]), the sum of those pieces' counts.  0, or -1 when no such g lies within
   SYNC_CHARS characters (or a piece is a byte that is no token). */
static int
local_sync(const CountedText *t, Py_ssize_t s, Py_ssize_t *g_idx, Py_ssize_t *head)
{
    Py_ssize_t n = t->n;
    Py_ssize_t x = n - s > SYNC_CHARS ? s + SYNC_CHARS : n;
    Py_ssize_t limit = x;
    if (x < n) {
        limit = x - MARGIN;
        Py_ssize_t q = x;
        while (q > s && !surely_not_space(PyUnicode_READ(t->kind, t->data, q - 1)))
            q--;
        if (q < limit)
            limit = q;
        q = x;
        while (q > s && (presplit_flags(PyUnicode_READ(t->kind, t->data, q - 1)) & (PF_L | PF_M)))
            q--;
        if (q < limit)
            limit = q;
    }
    if (limit <= s)
        return -1;
    uint8_t buf[4 * SYNC_CHARS];
    Py_ssize_t char_off[SYNC_CHARS + 1], ends[SYNC_CHARS];
    Py_ssize_t m = 0;
    for (Py_ssize_t q = s; q < x; q++) {
        char_off[q - s] = m;
        Py_ssize_t w = presplit_utf8(t->kind, (const char *)t->data + q * t->kind, 1, buf + m);
        if (w < 0)
            return -1;
        m += w;
    }
    char_off[x - s] = m;
    Py_ssize_t k = presplit_piece_ends(t->spec, buf, m, ends, SYNC_CHARS);
    Py_ssize_t ci = 0, prev = 0, total = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        while (ci < x - s && char_off[ci] < ends[i])
            ci++;
        Py_ssize_t g = s + ci;
        if (g > limit || char_off[ci] != ends[i])
            return -1;
        Py_ssize_t c = t->whole != NULL && presplit_is_whole(t->whole, buf + prev, ends[i] - prev) ? 1
                       : cached_piece(t->cache, t->core, buf + prev, ends[i] - prev, buf + ends[i], NULL);
        if (c < 0)
            return -1;
        total += c;
        prev = ends[i];
        Py_ssize_t idx = last_le(t->bounds, g, 0, t->nb);
        if (idx >= 0 && t->bounds[idx] == g) {
            *g_idx = idx;
            *head = total;
            return 0;
        }
    }
    return -1;
}

Py_ssize_t
counted_cut(const CountedText *t, Py_ssize_t s, Py_ssize_t max_tokens, Py_ssize_t horizon, int final,
            Py_ssize_t *count_out, CutSums *sums)
{
    sums->h = -1;
    const int64_t *bounds = t->bounds, *cum = t->cum;
    Py_ssize_t nb = t->nb, n = t->n;
    /* h: the first global boundary >= s that is s or hard */
    Py_ssize_t hi_idx = last_le(bounds, s - 1, 0, nb) + 1;
    Py_ssize_t steps = 0, head = -1;
    int h_hard = 1;  /* h is s or hard; else h is where the split from s meets the global one */
    while (hi_idx < nb && bounds[hi_idx] != s && (bounds[hi_idx] >= n || !t->hard(t->kind, t->data, bounds[hi_idx], t->rule))) {
        if (++steps > MAX_SYNC) {
            if (local_sync(t, s, &hi_idx, &head) < 0)
                return -1;
            h_hard = 0;
            break;
        }
        hi_idx++;
    }
    if (hi_idx >= nb)
        return -1;
    Py_ssize_t h = bounds[hi_idx];
    if (h_hard)
        head = slice_count(t, s, h);
    if (head < 0)
        return -1;
    Py_ssize_t base = cum[hi_idx] - head;  /* C(bounds[i]) = cum[i] - base for i >= hi_idx */
    Py_ssize_t hi;
    if (head > max_tokens) {
        if (!h_hard)
            return -1;
        hi = h;  /* rule 5 at h (h > s here) */
    } else {
        Py_ssize_t k = last_le(cum, base + max_tokens, hi_idx, nb) + 1;
        if (k >= nb) {
            if (!final)
                return -1;  /* the Python path asks for more text */
            *count_out = cum[nb - 1] - base;  /* the rest fits */
            return n;
        }
        Py_ssize_t b_o = bounds[k];
        if (b_o < n && t->hard(t->kind, t->data, b_o, t->rule)) {
            hi = b_o;
        } else {
            /* the witness of b_o; none in the held text: every end is a candidate if the
               text is final (ChunkView.cut), else the Python path asks for more */
            hi = b_o + MARGIN;
            if (hi <= n && !has_non_space(t, b_o, hi)) {
                Py_ssize_t q = hi;
                while (q < n && !surely_not_space(PyUnicode_READ(t->kind, t->data, q)))
                    q++;
                hi = q + 1;
            }
            if (hi > n) {
                if (!final)
                    return -1;
                hi = n + 1;
            }
        }
    }
    if (hi - s > horizon)
        return -1;
    steps = 0;
    for (Py_ssize_t j = hi - 1; j > s; j--) {
        if (++steps > MAX_STEPS)
            return -1;
        /* base(j): the last boundary <= j - MARGIN, <= j - 1, with a non-space in T[b:j] */
        Py_ssize_t lim = base_limit(t, s, j);
        if (lim == -2)
            return -1;
        Py_ssize_t b = s, cb = 0;
        if (lim > s && lim >= h) {
            Py_ssize_t i = last_le(bounds, lim, hi_idx, nb);
            if (i >= hi_idx) {
                b = bounds[i];
                cb = cum[i] - base;
            }
        }
        if (cb + (j > b) > max_tokens)
            continue;  /* count(T[b:j]) >= 1: no need to count it */
        if (cb + 2 > max_tokens && two_pieces(t, b, j))
            continue;  /* count(T[b:j]) >= 2 */
        Py_ssize_t c = slice_count(t, b, j);
        if (c < 0)
            return -1;
        if (cb + c <= max_tokens) {
            *count_out = cb + c;
            sums->h = h;
            sums->base = base;
            return j;
        }
    }
    return -1;  /* nothing fits: the Python path raises its error or drops the overlap */
}

Py_ssize_t
counted_overlap_start(const CountedText *t, Py_ssize_t s, Py_ssize_t e, Py_ssize_t overlap, Py_ssize_t count,
                      const CutSums *sums)
{
    const int64_t *bounds = t->bounds, *cum = t->cum;
    Py_ssize_t nb = t->nb;
    if (e - s <= 1)
        return e;
    /* b_e: the last global boundary <= e - MARGIN, <= e - 1, with a non-space in T[b_e:e] */
    Py_ssize_t lim = base_limit(t, 0, e);
    Py_ssize_t kb = lim >= 0 ? last_le(bounds, lim, 0, nb) : -1;
    if (kb < 0)
        return -1;
    /* c_e: count(T[g:e]) = c_e - cum[g] for boundaries g <= b_e.  When b_e is at or after
       the h of the cut's sums, b_e is the same base of e in the split from s (its
       boundaries from h on are the global ones), so count = C(b_e) + count(T[b_e:e]) =
       cum[kb] - base + count(T[b_e:e]) and c_e = count + base without a recount.  (With
       b_e before h, count + base is no c_e, but no hard boundary lies in (s, b_e]: h is
       at or before the first one after s; c_e is read only at such boundaries, so the
       answer needs no c_e there, only the -1 of the step limit below may move.) */
    Py_ssize_t c_e;
    if (sums != NULL && sums->h >= 0 && bounds[kb] >= sums->h) {
        c_e = count + sums->base;
    } else {
        Py_ssize_t tail = slice_count(t, bounds[kb], e);
        if (tail < 0)
            return -1;
        c_e = cum[kb] + tail;
    }
    /* the last hard boundary in (s, b_e] whose suffix is over the overlap */
    Py_ssize_t idx = last_le(cum, c_e - overlap - 1, 0, kb + 1);
    Py_ssize_t start = s + 1, steps = 0;
    while (idx >= 0 && bounds[idx] > s) {
        if (t->hard(t->kind, t->data, bounds[idx], t->rule)) {
            start = bounds[idx] + 1;
            break;
        }
        if (++steps > MAX_SYNC * 4)
            return -1;
        idx--;
    }
    Py_ssize_t g = -1, rest = 0;  /* the first hard boundary after p (or e), count(T[g:e]) */
    /* Lower bounds of count(T[p:g]) for the segment's starts (without whole-piece tokens,
       every piece counts at least the fewest tokens that concatenate to it, and those of
       the pieces concatenate to T[p:g]): starts they rule out are not encoded.
       tiled_from: the segment's first start with bounds (-1: none); char_off: the byte
       offset of each of its characters. */
    uint8_t seg[PREFIX_COUNTS_MAX];
    int32_t tilings[PREFIX_COUNTS_MAX + 1];
    Py_ssize_t char_off[PREFIX_COUNTS_MAX + 1];
    Py_ssize_t tiled_from = -1;
    steps = 0;
    for (Py_ssize_t p = start; p < e; p++) {
        if (++steps > MAX_STEPS)
            return -1;
        if (g <= p) {
            tiled_from = -1;
            g = p + 1;
            while (g < e && !t->hard(t->kind, t->data, g, t->rule))
                g++;
            if (g >= e) {
                g = e;
                rest = 0;
            } else {
                Py_ssize_t i = last_le(bounds, g, 0, kb + 1);
                if (i >= 0 && bounds[i] == g) {
                    rest = c_e - cum[i];
                } else {
                    rest = slice_count(t, g, e);
                    if (rest < 0)
                        return -1;
                }
            }
        }
        if (rest >= overlap) {
            p = g - 1;  /* no start before g fits (rule 5, count(T[p:g]) >= 1) */
            continue;
        }
        if (tiled_from < 0 && t->whole == NULL && 4 * (g - p) <= PREFIX_COUNTS_MAX) {
            Py_ssize_t m = 0, w = 0;
            for (Py_ssize_t q = p; q < g && w >= 0; q++) {
                char_off[q - p] = m;
                w = presplit_utf8(t->kind, (const char *)t->data + q * t->kind, 1, seg + m);
                m += w;
            }
            char_off[g - p] = m;
            if (w >= 0 && suffix_tilings(t->core, seg, m, tilings) == 0)
                tiled_from = p;
        }
        if (tiled_from >= 0 && tilings[char_off[p - tiled_from]] > overlap - rest)
            continue;
        Py_ssize_t c = slice_count(t, p, g);
        if (c < 0)
            return -1;
        if (c + rest <= overlap)
            return p;
    }
    return e;
}

/* The table pass of prefix_table.c (bpe/table.py PrefixTable, the reference) over a
   short piece: counts[p] = count_any(data[0:p]) for every p <= n, in one pass (the last
   token of each prefix is the longest token ending there that pairs validly with the
   last token before it).  0, or -1 at a byte that is no token. */
int
prefix_counts(const Core *c, const uint8_t *data, Py_ssize_t n, int32_t *counts)
{
    int32_t last[PREFIX_COUNTS_MAX + 1], cand[PREFIX_COUNTS_MAX + 1];
    if (n > PREFIX_COUNTS_MAX)
        return -1;
    counts[0] = 0;
    for (Py_ssize_t p = 1; p <= n; p++) {
        if (c->byte_rank[data[p - 1]] == NO_RANK)
            return -1;
        int k = tokens_ending_at(c, data, 0, p, cand);
        int32_t t = -1;
        Py_ssize_t start = 0;
        while (k > 0) {
            t = cand[--k];
            start = p - tok_len(c, t);
            if (start == 0 || valid_pair_memo(c, last[start], t))
                break;
            t = -1;
        }
        if (t < 0)
            return -1;
        last[p] = t;
        counts[p] = counts[start] + 1;
    }
    return 0;
}

/* tilings[q] = the fewest tokens of the forward trie (the tokens BPE builds) whose
   concatenation is data[q:n], for q = 0..n (INT32_MAX where none).  BPE's encoding of
   data[q:n] is such a concatenation, so its count is at least tilings[q]: a lower bound
   that rules out long suffixes without encoding them.  One pass from the end, a trie
   walk per byte.  0, or -1 when n > PREFIX_COUNTS_MAX. */
int
suffix_tilings(const Core *c, const uint8_t *data, Py_ssize_t n, int32_t *tilings)
{
    if (n > PREFIX_COUNTS_MAX)
        return -1;
    const Trie *t = &c->fwd;
    tilings[n] = 0;
    for (Py_ssize_t q = n - 1; q >= 0; q--) {
        int32_t best = INT32_MAX;
        uint32_t v = t->root[data[q]];
        Py_ssize_t i = q + 1;
        while (v) {
            if (t->node[v].token >= 0 && tilings[i] != INT32_MAX && tilings[i] + 1 < best)
                best = tilings[i] + 1;
            if (i == n)
                break;
            v = trie_child(t, v, data[i++]);
        }
        tilings[q] = best;
    }
    return 0;
}
