/* The exact chunker's cut in text without whitespace, for chunk_cuts.c's exact_cuts where
its rule 5 tests find no hard boundary near the cut (o200k emoji text: a symbol before a
variation selector or a keycap mark starts a word piece, so the boundaries around them
are not hard) and counted_cut (chunk_counted_cuts.c) would recount slice after slice.

Invariant: nospace_cut returns the largest end j > s with count(T[s:j]) <= max_tokens
(count = enc.count; the answer of chunk/counts.py's ChunkView.cut, which the tests
compare), with that count, or -1 when a condition below fails (the caller then tries
counted_cut, then the Python path).

Why it is exact.  The members' patterns (cl100k, o200k and the like: no lookbehind, no
chain, and the one lookahead \s+(?!\S), or tiktoken's cl100k spelling's end anchor
\s++$) are matched leftmost-first by backtracking.  Let S be the split of T[s:n] and
b < j a boundary of S.  Every match attempt before b in T[s:j] takes the same path as in
T[s:n]: a path that failed there fails here too (a character it read before j is the
same, one at or after j is missing here), except a lookahead (?!\S) or an end anchor at
j, which needs \s+ to end at j, so T[j-1] whitespace.  Hence when
T[j-1] is no whitespace, the pieces of S that end at or before b are pieces of T[s:j]
and count(T[s:j]) = C(b) + count(T[b:j]) (C: the prefix counts of S).
* S from s: when s is a global boundary, S is the global split from s (no lookbehind).
  Else the compiled scanner splits T[s:x], x one character past the global piece s lies
  in (else the end of the piece after it), T[x-1] no whitespace; by the same argument
  its pieces but the last are pieces of S, and from the first of their ends that is a
  global boundary g on, S is the global split (the scanner reads no position before g
  again), C(b) = C(g) + cum[b] - cum[g].
* b_o, the first boundary of S with C(b_o) > M, a the one before it.  No end past b_o
  fits: every j > b_o with T[j-1] no whitespace costs C(b) + count(T[b:j]) > M for the
  last boundary b < j (b >= b_o); ends from b_o + MARGIN on are covered by rule 3 of
  chunk/counts.py (T[b_o:b_o+MARGIN] holds no whitespace here).  The end a fits, and each
  j in (a, b_o) costs C(a) + count(T[a:j]): the cut is the largest such j that fits,
  else a.  When every prefix of T[a:b_o] is one piece (symbol_prefixes), those counts
  come from one table pass (prefix_counts_until); else each is a recount of T[a:j].
The conditions: no whitespace in T[a-1:b_o + MARGIN] (the end a too is a truncation)
nor in T[s:x] for the scan, no chain and none of the word rules symbol_prefixes leaves
out, pieces within the bounds below, and, unless the text is final, b_o + MARGIN within
it.

Also here: tiled_overlap_start, the overlap start after a chunk of at most
PREFIX_COUNTS_MAX bytes by recounts of its suffixes (argued where it is defined).

Complexity: per chunk, a bisect over the prefix sums, a scan of at most NS_SCAN_CHARS
characters, the whitespace test over T[a:b_o + MARGIN] and one table pass over the
straddling piece (or at most NS_MAX_STEPS recounts of at most NS_SCAN_CHARS characters).
*/
#include "core.h"
#include "unicode_classes.h"
#include "piece_cache.h"

#define NS_MARGIN 4        /* stable_margin of the cl100k/o200k patterns (pretokenize/stability.py) */
#define NS_SCAN_CHARS 512  /* longest slice split or recounted */
#define NS_MAX_STEPS 64    /* recounts per chunk when the straddling piece is no symbol run */
#define NS_SPEC_CHAIN(spec) (((spec) >> 13) & 3)  /* presplit.c's chain field */
/* HB_* bits (chunk_cuts.c) of members whose words or splits differ: GPT-2's space lead,
   DeepSeek-V3, the CJK and digit chains, GPT-2's lone whitespace */
#define NS_OTHER_RULES (32 | 64 | 256 | 512 | 1024)

static inline int
maybe_space(Py_UCS4 c)
{
    return (presplit_flags(c) & PF_WS) || Py_UNICODE_ISSPACE(c);
}

static int
no_space(const CountedText *t, Py_ssize_t p, Py_ssize_t q)
{
    for (; p < q; p++)
        if (maybe_space(PyUnicode_READ(t->kind, t->data, p)))
            return 0;
    return 1;
}

/* The last index i in [lo, hi) with v[i] <= x, or lo - 1. */
static Py_ssize_t
ns_last_le(const int64_t *v, Py_ssize_t x, Py_ssize_t lo, Py_ssize_t hi)
{
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) >> 1;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* UTF-8 of T[p:q] into buf with each character's byte offset in off (q - p + 1 entries);
   the byte length, or -1. */
static Py_ssize_t
ns_utf8(const CountedText *t, Py_ssize_t p, Py_ssize_t q, uint8_t *buf, Py_ssize_t *off)
{
    /* (inline, not presplit_utf8 a character at a time: the overlap start of every chunk
       converts its whole chunk; the same bytes, a lone surrogate refused the same way) */
    Py_ssize_t m = 0;
    for (Py_ssize_t i = p; i < q; i++) {
        off[i - p] = m;
        Py_UCS4 c = PyUnicode_READ(t->kind, t->data, i);
        if (c >= 0xD800 && c <= 0xDFFF)
            return -1;
        m += utf8_put(c, buf + m);
    }
    off[q - p] = m;
    return m;
}

static Py_ssize_t
ns_piece(const CountedText *t, const uint8_t *p, Py_ssize_t n)
{
    if (t->whole != NULL && presplit_is_whole(t->whole, p, n))
        return 1;
    return cached_piece(t->cache, t->core, p, n, p + n, NULL);
}

/* The split of T[s:] from s (not a global boundary) up to its first piece end that is
   one, g = bounds[*g_idx], by the scanner on T[s:x] (x - 1 no whitespace, g < x unless x
   = n and the text is final): the piece ends into at[1..], the count of none yet.  The
   number of pieces, or -1. */
static Py_ssize_t
scan_head(const CountedText *t, Py_ssize_t s, Py_ssize_t gi, Py_ssize_t x, int final, Py_ssize_t *at,
          Py_ssize_t *g_idx, uint8_t *buf, Py_ssize_t *off)
{
    Py_ssize_t n = t->n;
    if ((x >= n && !final) || x - s > NS_SCAN_CHARS || !no_space(t, s, x))
        return -1;
    Py_ssize_t m = ns_utf8(t, s, x, buf, off);
    if (m < 0)
        return -1;
    Py_ssize_t ends[NS_SCAN_CHARS];
    Py_ssize_t k = presplit_piece_ends(t->spec, buf, m, ends, NS_SCAN_CHARS);
    Py_ssize_t ci = 0, nh = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        while (ci < x - s && off[ci] < ends[i])
            ci++;
        if (off[ci] != ends[i])
            return -1;
        Py_ssize_t g = s + ci;
        if (g >= x && x < n)
            return -1;  /* the scan's last piece: not known to be one of S */
        at[++nh] = g;
        Py_ssize_t idx = ns_last_le(t->bounds, g, gi, t->nb);
        if (idx >= gi && t->bounds[idx] == g) {
            *g_idx = idx;
            return nh;
        }
    }
    return -1;
}

Py_ssize_t
nospace_cut(const CountedText *t, Py_ssize_t s, Py_ssize_t max_tokens, Py_ssize_t horizon, int final,
            Py_ssize_t *count_out)
{
    const int64_t *bounds = t->bounds, *cum = t->cum;
    Py_ssize_t nb = t->nb, n = t->n;
    if ((t->rule & NS_OTHER_RULES) || NS_SPEC_CHAIN(t->spec) != 0)
        return -1;
    Py_ssize_t gi = ns_last_le(bounds, s - 1, 0, nb) + 1;
    if (gi >= nb)
        return -1;
    /* S's boundaries before the sync point g = bounds[g_idx], with their prefix counts */
    Py_ssize_t head_at[NS_SCAN_CHARS + 1], head_c[NS_SCAN_CHARS + 1];
    Py_ssize_t nh = 0, g_idx = gi;
    uint8_t buf[4 * NS_SCAN_CHARS];
    Py_ssize_t off[NS_SCAN_CHARS + 1];
    int32_t table[PREFIX_COUNTS_MAX + 1];
    Py_ssize_t read = -1;  /* >= 0: table holds the prefix counts of T[a:b_o] up to this byte */
    head_at[0] = s;
    head_c[0] = 0;
    if (bounds[gi] != s) {
        /* first the end of the piece s lies in (one character past it), then the piece after */
        nh = bounds[gi] < n ? scan_head(t, s, gi, bounds[gi] + 1, final, head_at, &g_idx, buf, off) : -1;
        if (nh < 0)
            nh = scan_head(t, s, gi, gi + 1 < nb ? bounds[gi + 1] : n, final, head_at, &g_idx, buf, off);
        if (nh < 0)
            return -1;
    }
    Py_ssize_t a = s, b_o = -1, c_a = 0, i;
    for (i = 1; i <= nh; i++) {
        /* the count of the head piece T[head_at[i-1]:head_at[i]]: a table pass stopped a few
           bytes past the budget when its prefixes are one piece each (then the cut inside
           it needs no other count), else its BPE count */
        Py_ssize_t p = head_at[i - 1], q = head_at[i];
        if (q - p > NS_SCAN_CHARS)
            return -1;
        Py_ssize_t m = ns_utf8(t, p, q, buf, off), c;
        if (m < 0)
            return -1;
        if (t->whole == NULL && q - p > 1 && m <= PREFIX_COUNTS_MAX && symbol_prefixes(t->kind, t->data, p, q, t->rule)) {
            Py_ssize_t r = prefix_counts_until(t->core, buf, m, max_tokens - head_c[i - 1], table);
            if (r < 0)
                return -1;
            if (r < m) {
                read = r;  /* no prefix past r fits, the whole piece neither */
                break;
            }
            c = table[m];
            if (head_c[i - 1] + c > max_tokens) {
                read = m;
                break;
            }
        } else {
            c = ns_piece(t, buf, m);
            if (c < 0)
                return -1;
        }
        head_c[i] = head_c[i - 1] + c;
        if (head_c[i] > max_tokens)
            break;
    }
    if (i <= nh) {
        a = head_at[i - 1];
        c_a = head_c[i - 1];
        b_o = head_at[i];
    } else {
        Py_ssize_t base = cum[g_idx] - head_c[nh];  /* C(bounds[i]) = cum[i] - base for i >= g_idx */
        Py_ssize_t k = ns_last_le(cum, base + max_tokens, g_idx, nb) + 1;
        if (k >= nb) {
            if (!final)
                return -1;
            *count_out = cum[nb - 1] - base;  /* the rest fits */
            return n;
        }
        a = bounds[k - 1];
        c_a = cum[k - 1] - base;
        b_o = bounds[k];
    }
    Py_ssize_t stable = b_o + NS_MARGIN;
    if (stable > n) {
        if (!final)
            return -1;
        stable = n;
    }
    if (stable + 1 - s > horizon || !no_space(t, a > s ? a - 1 : a, stable))
        return -1;
    if (b_o - a > NS_SCAN_CHARS)
        return -1;
    Py_ssize_t m = ns_utf8(t, a, b_o, buf, off);
    if (m < 0)
        return -1;
    Py_ssize_t j;
    if (read < 0 && b_o - a > 1 && m <= PREFIX_COUNTS_MAX && symbol_prefixes(t->kind, t->data, a, b_o, t->rule)) {
        read = m;
        if (t->whole != NULL ? prefix_counts(t->core, buf, m, table) < 0
                             : (read = prefix_counts_until(t->core, buf, m, max_tokens - c_a, table)) < 0)
            return -1;
    }
    if (read >= 0) {
        for (j = b_o - 1; j > a; j--) {
            Py_ssize_t q = off[j - a];
            if (q > read)
                continue;
            Py_ssize_t c = t->whole != NULL && presplit_is_whole(t->whole, buf, q) ? 1 : table[q];
            if (c_a + c <= max_tokens) {
                *count_out = c_a + c;
                return j;
            }
        }
    } else {
        Py_ssize_t steps = 0;
        for (j = b_o - 1; j > a; j--) {
            if (++steps > NS_MAX_STEPS)
                return -1;
            if (c_a + 1 > max_tokens)
                break;  /* count(T[a:j]) >= 1 */
            Py_ssize_t c = presplit_encode(t->core, t->spec, t->whole, buf, off[j - a], NULL, NULL, 0, t->cache);
            if (c < 0)
                return -1;
            if (c_a + c <= max_tokens) {
                *count_out = c_a + c;
                return j;
            }
        }
    }
    if (a <= s)
        return -1;  /* nothing fits: the Python path raises its error */
    *count_out = c_a;
    return a;
}

/* The overlap start after a chunk [s, e) whose text fits one table: the smallest p in
   (s, e) with count(T[p:e]) <= overlap, e if none (the answer of chunk/counts.py's
   SuffixView, which the tests compare), or -1 when T[s+1:e] has more than
   PREFIX_COUNTS_MAX bytes, holds whitespace or the member has whole-piece tokens (the
   caller then tries counted_overlap_start).  Why: count(T[p:e]) is the compiled split and count of that
   slice (presplit_encode, what enc.count does), and it is at least the fewest tokens
   that concatenate to T[p:e] (suffix_tilings: BPE's tokens of every piece concatenate to
   it), so the starts whose bound passes the overlap are skipped without a recount; no
   piece boundary needs to be hard, which emoji text's (a symbol before a variation
   selector or keycap starts an o200k word piece) are not.  Complexity: one backward trie
   pass over the chunk's bytes, then a recount of T[p:e] for each start the bound leaves,
   from the first (at most NS_MAX_STEPS of them, else -1). */
Py_ssize_t
tiled_overlap_start(const CountedText *t, Py_ssize_t s, Py_ssize_t e, Py_ssize_t overlap)
{
    if (e - s <= 1)
        return e;
    Py_ssize_t lo = s + 1;
    /* (text with whitespace, prose and code, keeps counted_overlap_start, which jumps to
       the last hard boundary over the overlap by the prefix sums first) */
    if (t->whole != NULL || e - lo > NS_SCAN_CHARS || !no_space(t, s, e))
        return -1;
    uint8_t buf[4 * NS_SCAN_CHARS];
    Py_ssize_t off[NS_SCAN_CHARS + 1];
    Py_ssize_t m = ns_utf8(t, lo, e, buf, off);
    if (m < 0 || m > PREFIX_COUNTS_MAX)
        return -1;
    int32_t tilings[PREFIX_COUNTS_MAX + 1];
    if (suffix_tilings(t->core, buf, m, tilings) < 0)
        return -1;
    Py_ssize_t steps = 0;
    for (Py_ssize_t p = lo; p < e; p++) {
        Py_ssize_t q = off[p - lo];
        if (tilings[q] > overlap)
            continue;
        if (++steps > NS_MAX_STEPS)
            return -1;
        Py_ssize_t c = presplit_encode(t->core, t->spec, NULL, buf + q, m - q, NULL, NULL, 0, t->cache);
        if (c < 0)
            return -1;
        if (c <= overlap)
            return p;
    }
    return e;
}
