/* The compiled BPE core: the vocabulary object every C part works on, and the
inline helpers they share (hashing token bytes, the pair test, trie steps and walks,
the chunkers' suffix counts, UTF-8 of a character, a cut appended to an answer).

Core (the Python type bpe_stream._native._core.Core) holds, for a vocabulary whose
token id == rank:

* blob/offset: the token bytes, token r is blob[offset[r] : offset[r + 1]];
* slots: open addressing over token bytes (a rank, or -1 if empty), plus byte_rank
  (one byte) and pair_rank (two bytes) as direct tables;
* split_left/split_right: the pair BPE holds just before it makes each token
  ((r, r) for a single byte; -1 for a token BPE cannot build from its parts, an
  "unreachable" token: it is left out of every table the encoders read);
* next_prefix: the longest token that is a strict prefix of each token (-1 if none);
* masks: 256 bits per token, bit c set iff some suffix of the token followed by
  byte c starts a token (the pair test's pre-filter: a clear bit means valid);
  stored once per distinct mask (2,193 in cl100k, 2,752 in o200k: 88 KB that stay
  in cache) with a 4-byte mask id per token;
* fwd / rev: byte tries over the (reachable) tokens and over the reversed tokens;
* exc: the exceptional tokens (bpe/pairs.py), those whose merge time is not their rank
  (a part ranks above them, or their history holds such a token): the unwinding gives
  up where one takes part, and BPE's merge loop on the pair's bytes decides.

Trie invariant: nodes are numbered breadth first with the children of a node
contiguous and sorted by their byte, so the children of v are the nodes
node[v].first .. node[v + 1].first - 1; node 0 is the root (root[b] is its child by byte b,
0 if none); node[v].token is the token spelled by the path to v, or -1.  Stepping is a
binary search over at most 256 sorted labels (a few on average), but from the root's
children, the nodes most walks pass and the ones with the most children (up to 256),
a direct table does it (dense: 256 entries a child of the root, at most 256 KB).  height[v] is the
length of the longest path below v, so a walk that reached v at depth len is at most
len + height[v] long (the bounded walks stop there once that settles their question).
Size: one node per distinct token prefix (o200k: 422k forward, 490k reversed), 11 bytes
each.

The object is immutable after construction, but for its piece cache (piece_cache.h,
whose entries are seqlocks): every routine reads it without the GIL and works on its
own buffers, so one Core is shared safely by all threads.
*/
#ifndef BPE_CORE_H
#define BPE_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* log2 of the number of entries of a Core's pair memo (valid_pair_memo): 128 KB */
#define PAIR_MEMO_BITS 14

#define NO_RANK INT32_MAX

typedef struct {
    uint32_t first;   /* the children of v are first .. node[v + 1].first - 1 */
    int32_t token;    /* the token spelled by the path to v, or -1 */
} TrieNode;

typedef struct {
    uint32_t n_nodes;
    TrieNode *node;   /* n_nodes + 1 entries (the last one only ends the children) */
    uint8_t *label;   /* label[v]: the byte on the edge into v */
    uint16_t *height; /* height[v]: the longest path below v (TRIE_TALL: that many or more) */
    uint32_t n_dense; /* the root's children are the nodes 1 .. n_dense - 1 */
    uint32_t *dense;  /* dense[(v - 1) * 256 + b]: the child of such a node v by byte b, or 0 */
    uint32_t root[256];
} Trie;

/* Trie.height's cap: a node this tall bounds no walk (trie_fwd_walk_within) */
#define TRIE_TALL 65535

typedef struct {
    PyObject_HEAD
    Py_ssize_t n_tokens;
    Py_ssize_t max_token_len;
    unsigned char *blob;
    uint32_t *offset;     /* n_tokens + 1 entries */
    int32_t *slots;       /* mask + 1 entries */
    uint64_t mask;
    int32_t byte_rank[256];
    int32_t *pair_rank;   /* 65536 entries */
    int32_t *split_left;
    int32_t *split_right;
    int32_t *next_prefix;
    uint32_t *mask_id;    /* the continuation mask of token r is mask_table[4 * mask_id[r]:][:4] */
    uint64_t *mask_table; /* the distinct masks (a few thousand), 4 words each */
    uint32_t n_masks;
    Trie fwd;
    Trie rev;
    int32_t *unreachable; /* ranks of tokens BPE cannot build, in rank order */
    Py_ssize_t n_unreachable;
    uint8_t *exc;         /* exc[r] != 0: token r is exceptional (NULL: none is) */
    /* ---- the piece cache (piece_cache.h): the one part that changes after construction,
       shared by the threads through its own protocol; NULL until first used */
    void *piece_cache;
    /* ---- the pair test's memo (valid_pair_memo): recent answers, one word each; zero
       (empty) when the object is allocated and whenever the tables are (re)built */
    _Atomic uint64_t pair_memo[1 << PAIR_MEMO_BITS];
} Core;

extern PyTypeObject CoreType;

static inline int
Core_Check(PyObject *o)
{
    return PyObject_TypeCheck(o, &CoreType);
}

static inline Py_ssize_t
tok_len(const Core *c, int32_t t)
{
    return (Py_ssize_t)(c->offset[t + 1] - c->offset[t]);
}

static inline const unsigned char *
tok_bytes(const Core *c, int32_t t)
{
    return c->blob + c->offset[t];
}

/* FNV-1a seeded with the length, with a final mix; fed in parts so that the rank of
   a concatenation needs no copy. */
static inline uint64_t
hash_start(Py_ssize_t n)
{
    return 0xcbf29ce484222325ULL ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL);
}

static inline uint64_t
hash_feed(uint64_t h, const unsigned char *p, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static inline uint64_t
hash_end(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

/* A token is in the tables unless it is unreachable (split_left == -1). */
static inline int
usable(const Core *c, int32_t r)
{
    return c->split_left[r] >= 0;
}

/* The rank of the token with bytes p[0:n], unreachable tokens included, or NO_RANK
   (a whole pre-split piece equal to a token is that token, as in tiktoken). */
static inline int32_t
rank_of_any(const Core *c, const unsigned char *p, Py_ssize_t n)
{
    if (n == 1)
        return c->byte_rank[p[0]];
    if (n == 2)
        return c->pair_rank[(p[0] << 8) | p[1]];
    if (n > c->max_token_len)
        return NO_RANK;
    uint64_t i = hash_end(hash_feed(hash_start(n), p, n)) & c->mask;
    for (;;) {
        int32_t r = c->slots[i];
        if (r < 0)
            return NO_RANK;
        if (tok_len(c, r) == n && memcmp(tok_bytes(c, r), p, (size_t)n) == 0)
            return r;
        i = (i + 1) & c->mask;
    }
}

/* The rank of the token with bytes p[0:n] in the BPE tables (unreachable tokens left
   out), or NO_RANK. */
static inline int32_t
rank_of(const Core *c, const unsigned char *p, Py_ssize_t n)
{
    int32_t r;
    if (n == 1) {
        r = c->byte_rank[p[0]];
    } else if (n == 2) {
        r = c->pair_rank[(p[0] << 8) | p[1]];
    } else {
        if (n > c->max_token_len)
            return NO_RANK;
        uint64_t i = hash_end(hash_feed(hash_start(n), p, n)) & c->mask;
        for (;;) {
            r = c->slots[i];
            if (r < 0)
                return NO_RANK;
            if (tok_len(c, r) == n && memcmp(tok_bytes(c, r), p, (size_t)n) == 0)
                break;
            i = (i + 1) & c->mask;
        }
    }
    return (r != NO_RANK && usable(c, r)) ? r : NO_RANK;
}

/* The pair test's optional filter over the byte-hash table (pair_filter.c makes it): bits
   NULL is no filter; a clear bit for a hash means no usable token of three bytes or more
   has that hash, so a probe for it finds nothing.  Passed by value to the inline helpers
   below: with a constant NULL the compiler drops the filter's test. */
typedef struct {
    const uint64_t *bits;
    int shift; /* 64 - log2(number of bits) */
} PairFilterBits;

static inline uint64_t
pair_filter_bit(int shift, uint64_t h)
{
    return (h * 0x9E3779B97F4A7C15ULL) >> shift;
}

/* The rank of the token with the bytes of a followed by those of b, or NO_RANK; the
   filter (if any) is asked before the probe. */
static inline int32_t
concat_rank_filtered(const Core *c, PairFilterBits f, int32_t a, int32_t b)
{
    Py_ssize_t la = tok_len(c, a), lb = tok_len(c, b), n = la + lb;
    if (n > c->max_token_len)
        return NO_RANK;
    const unsigned char *pa = tok_bytes(c, a), *pb = tok_bytes(c, b);
    int32_t r;
    if (n == 2) {
        r = c->pair_rank[(pa[0] << 8) | pb[0]];
    } else {
        uint64_t h = hash_end(hash_feed(hash_feed(hash_start(n), pa, la), pb, lb));
        if (f.bits != NULL) {
            uint64_t k = pair_filter_bit(f.shift, h);
            if (!((f.bits[k >> 6] >> (k & 63)) & 1))
                return NO_RANK;
        }
        uint64_t i = h & c->mask;
        for (;;) {
            r = c->slots[i];
            if (r < 0)
                return NO_RANK;
            if (tok_len(c, r) == n && memcmp(tok_bytes(c, r), pa, (size_t)la) == 0 &&
                memcmp(tok_bytes(c, r) + la, pb, (size_t)lb) == 0)
                break;
            i = (i + 1) & c->mask;
        }
    }
    return (r != NO_RANK && usable(c, r)) ? r : NO_RANK;
}

static inline int32_t
concat_rank(const Core *c, int32_t a, int32_t b)
{
    return concat_rank_filtered(c, (PairFilterBits){NULL, 0}, a, b);
}

/* Whether BPE keeps t1 and t2 adjacent in the encoding of their bytes, with only the
   tokens ranked below limit (the Python reference is bpe/pairs.py _is_valid_pair,
   which states the argument): 1 or 0; -1 (undecided) where an exceptional token takes
   part (_is_valid_pair given the exceptional tokens).  Unwinds the two merge trees from
   the latest merge backwards: a pair across the boundary merged earlier than the merge
   that actually happened means BPE would not produce this pair.  Terminates: every step replaces a multi-byte token by
   a strictly lower-ranked part (exceptional tokens, whose parts may rank above them,
   are never stepped into).  The filter changes no answer (concat_rank_filtered). */
static inline int
valid_pair_below_filtered(const Core *c, PairFilterBits f, int32_t t1, int32_t t2, int32_t limit)
{
    const uint8_t *exc = c->exc;
    for (;;) {
        if (exc != NULL && (exc[t1] || exc[t2]))
            return -1;
        int32_t combined = concat_rank_filtered(c, f, t1, t2);
        if (combined != NO_RANK && exc != NULL && exc[combined])
            return -1;
        if (combined < limit)
            return 0;
        if (t1 > t2) {
            limit = t1;
            t1 = c->split_right[t1];
            if (t1 == limit) {
                limit = t2 + 1;
                t2 = c->split_left[t2];
                if (t2 + 1 == limit)
                    return 1;
            }
        } else {
            limit = t2 + 1;
            t2 = c->split_left[t2];
            if (t2 + 1 == limit) {
                limit = t1;
                t1 = c->split_right[t1];
                if (t1 == limit)
                    return 1;
            }
        }
    }
}

static inline int
valid_pair_below(const Core *c, int32_t t1, int32_t t2, int32_t limit)
{
    return valid_pair_below_filtered(c, (PairFilterBits){NULL, 0}, t1, t2, limit);
}

/* vocab.c: the pair test by BPE's merge loop on the bytes of t1 followed by those of
   t2 (valid iff the loop ends in exactly t1, t2); for the pairs the unwinding leaves
   undecided.  Quadratic in the pair's bytes, at most 2 * max_token_len of them. */
int valid_pair_by_merge_loop(const Core *c, int32_t t1, int32_t t2);

/* vocab.c: a new list of the Python ints a[0:n] (NULL with the error set on failure). */
PyObject *int_list(const int32_t *a, Py_ssize_t n);

/* The pair test as the encoders use it: the continuation mask first (a clear bit is
   a valid pair without unwinding anything), then the unwinding, then (for pairs near
   exceptional tokens) the merge loop.  b: the first byte of t2. */
static inline int
valid_pair_with_filter(const Core *c, PairFilterBits f, int32_t t1, int32_t t2, unsigned char b)
{
    if (!((c->mask_table[4 * (size_t)c->mask_id[t1] + (b >> 6)] >> (b & 63)) & 1))
        return 1;
    int v = valid_pair_below_filtered(c, f, t1, t2, (int32_t)c->n_tokens);
    return v >= 0 ? v : valid_pair_by_merge_loop(c, t1, t2);
}

static inline int
valid_pair(const Core *c, int32_t t1, int32_t t2)
{
    return valid_pair_with_filter(c, (PairFilterBits){NULL, 0}, t1, t2, tok_bytes(c, t2)[0]);
}

/* valid_pair(c, t1, t2) through the Core's memo of recent answers, for the table passes
   (prefix_table.c's table_fill, the chunkers' backward passes), which ask the same few
   pairs again and again (whitespace: the unwinding of two long runs of spaces hashes
   their concatenation at every step, hundreds of instructions a pair).  Exact: valid_pair
   is a function of (t1, t2) for the Core's tables, which do not change once built (the
   memo is cleared when they are), and an entry answers only for the pair it names.
   An entry is one 64-bit word, (t1 << 31 | t2) << 2 | 2 | answer (ranks are below 2^31),
   read and written whole (atomic, relaxed: nothing else is published with it), so
   threads sharing the Core without the GIL see an old entry, a new one or none, never a
   mix; a collision just replaces the entry.  The continuation mask is asked first, as
   valid_pair does: a clear bit needs neither the memo nor the unwinding.  O(1) on a hit. */
static inline int
valid_pair_memo(const Core *c, int32_t t1, int32_t t2)
{
    unsigned char b = tok_bytes(c, t2)[0];
    if (!((c->mask_table[4 * (size_t)c->mask_id[t1] + (b >> 6)] >> (b & 63)) & 1))
        return 1;
    uint64_t key = ((uint64_t)(uint32_t)t1 << 31) | (uint32_t)t2;
    uint64_t h = (key * 0x9E3779B97F4A7C15ULL) >> (64 - PAIR_MEMO_BITS);
    _Atomic uint64_t *slot = (_Atomic uint64_t *)&c->pair_memo[h];
    uint64_t e = atomic_load_explicit(slot, memory_order_relaxed);
    if ((e & 2) && (e >> 2) == key)
        return (int)(e & 1);
    int v = valid_pair(c, t1, t2);
    if (v == 0 || v == 1)
        atomic_store_explicit(slot, (key << 2) | 2 | (uint64_t)v, memory_order_relaxed);
    return v;
}

static inline uint32_t
trie_child(const Trie *t, uint32_t v, unsigned char b)
{
    if (v == 0)
        return t->root[b];
    if (v < t->n_dense)
        return t->dense[(size_t)(v - 1) * 256 + b];
    uint32_t lo = t->node[v].first, hi = t->node[v + 1].first;
    while (hi - lo > 4) {
        uint32_t mid = (lo + hi) >> 1;
        if (t->label[mid] < b)
            lo = mid + 1;
        else if (t->label[mid] > b)
            hi = mid;
        else
            return mid;
    }
    for (; lo < hi; lo++) {
        if (t->label[lo] == b)
            return lo;
        if (t->label[lo] > b)
            return 0;
    }
    return 0;
}

/* The longest token starting at data[pos] (within data[0:n]), or -1. */
static inline int32_t
longest_at(const Core *c, const unsigned char *data, Py_ssize_t pos, Py_ssize_t n)
{
    const Trie *t = &c->fwd;
    int32_t best = -1;
    uint32_t v = t->root[data[pos]];
    Py_ssize_t i = pos + 1;
    while (v) {
        if (t->node[v].token >= 0)
            best = t->node[v].token;
        if (i == n)
            break;
        v = trie_child(t, v, data[i++]);
    }
    return best;
}

/* The tokens ending at data[p] (exclusive end p, not reaching before lo), shortest
   first, into out (max_token_len entries); their number. */
static inline int
tokens_ending_at(const Core *c, const unsigned char *data, Py_ssize_t lo, Py_ssize_t p, int32_t *out)
{
    const Trie *t = &c->rev;
    int k = 0;
    uint32_t v = t->root[data[p - 1]];
    Py_ssize_t i = p - 1;
    while (v) {
        if (t->node[v].token >= 0)
            out[k++] = t->node[v].token;
        if (i == lo)
            break;
        v = trie_child(t, v, data[--i]);
    }
    return k;
}

/* The UTF-8 of cp into o (room for 4 bytes); its length. */
static inline Py_ssize_t
utf8_put(Py_UCS4 cp, unsigned char *o)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 63));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 63));
        o[2] = (unsigned char)(0x80 | (cp & 63));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 63));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 63));
    o[3] = (unsigned char)(0x80 | (cp & 63));
    return 4;
}

/* Appends the cut (s, e, count) to the flat list cuts ([s, e, count, ...], as the chunking
   routines answer); -1 with an exception set.  A start equal to the previous cut's end is
   that end's int object (chunks without overlap: one object for both; chunk_objects.c's
   make_chunks then puts it in both chunks). */
static inline int
append_cut(PyObject *cuts, Py_ssize_t s, Py_ssize_t e, Py_ssize_t count)
{
    Py_ssize_t values[3] = {s, e, count};
    Py_ssize_t len = PyList_GET_SIZE(cuts);
    PyObject *prev_end = len >= 3 ? PyList_GET_ITEM(cuts, len - 2) : NULL;
    for (int k = 0; k < 3; k++) {
        PyObject *v;
        if (k == 0 && prev_end != NULL && PyLong_CheckExact(prev_end) && PyLong_AsSsize_t(prev_end) == s)
            v = Py_NewRef(prev_end);
        else
            v = PyLong_FromSsize_t(values[k]);
        if (v == NULL)
            return -1;
        int rc = PyList_Append(cuts, v);
        Py_DECREF(v);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The tokens starting at data[pos] (not reaching past n), shortest first, into out
   (max_token_len entries); their number.  The mirror of tokens_ending_at. */
static inline int
tokens_starting_at(const Core *c, const unsigned char *data, Py_ssize_t pos, Py_ssize_t n, int32_t *out)
{
    const Trie *t = &c->fwd;
    int k = 0;
    uint32_t v = t->root[data[pos]];
    Py_ssize_t i = pos + 1;
    while (v) {
        if (t->node[v].token >= 0)
            out[k++] = t->node[v].token;
        if (i == n)
            break;
        v = trie_child(t, v, data[i++]);
    }
    return k;
}

/* The length of the longest forward-trie path data[r:r + len] (a prefix of some token, so
   at least the longest token starting at r), -1 when the walk reaches the end n of the
   bytes held (longer ones may follow).  At most max_token_len steps. */
static inline Py_ssize_t
trie_fwd_walk(const Core *c, const unsigned char *data, Py_ssize_t r, Py_ssize_t n)
{
    const Trie *t = &c->fwd;
    uint32_t v = t->root[data[r]];
    Py_ssize_t len = 0;
    while (v) {
        len++;
        if (r + len == n)
            return -1;
        v = trie_child(t, v, data[r + len]);
    }
    return len;
}

/* trie_fwd_walk(c, data, r, n), or an upper bound w on it (over any bytes past n as well)
   with r + w <= limit: the walk stops at the first node v (depth len) where
   r + len + height[v] <= limit.  For rules that only ask whether r + walk(r) <= limit
   for a limit that only grows (the stop rules of the table passes): the bound answers
   them as the walk would, in fewer steps (usually one, at a start far from limit). */
static inline Py_ssize_t
trie_fwd_walk_within(const Core *c, const unsigned char *data, Py_ssize_t r, Py_ssize_t n, Py_ssize_t limit)
{
    const Trie *t = &c->fwd;
    uint32_t v = t->root[data[r]];
    Py_ssize_t len = 0;
    while (v) {
        len++;
        Py_ssize_t h = t->height[v];
        if (h < TRIE_TALL && r + len + h <= limit)
            return len + h;
        if (r + len == n)
            return -1;
        v = trie_child(t, v, data[r + len]);
    }
    return len;
}

/* trie_rev_walk(c, data, d), or an upper bound w on it with d - w >= limit (the mirror of
   trie_fwd_walk_within, for rules asking whether d - walk(d) >= a limit that only falls).
   In suffix_counts a looser bound (d - w below the limit) would only stop the pass later
   (its counts are exact either way): the limit keeps the stop where the walk puts it. */
static inline Py_ssize_t
trie_rev_walk_within(const Core *c, const unsigned char *data, Py_ssize_t d, Py_ssize_t limit)
{
    const Trie *t = &c->rev;
    if (d == 0)
        return 0;
    uint32_t v = t->root[data[d - 1]];
    Py_ssize_t len = 0;
    while (v) {
        len++;
        Py_ssize_t h = t->height[v];
        if (h < TRIE_TALL && d - len - h >= limit)
            return len + h;
        if (len == d)
            break;
        v = trie_child(t, v, data[d - 1 - len]);
    }
    return len;
}

/* The length of the longest reversed-trie path ending at data[d] (walked back from d: a
   suffix of some token, so at least the longest token ending at d), at most d. */
static inline Py_ssize_t
trie_rev_walk(const Core *c, const unsigned char *data, Py_ssize_t d)
{
    return trie_rev_walk_within(c, data, d, PY_SSIZE_T_MAX);  /* (no bound settles it) */
}

/* The suffix counts of d[0:L] (cnt[q]: the count of its last q bytes, raw BPE; first[q] the
   first token of that encoding) for q up to the returned length, past which no suffix has k
   tokens or fewer (the mirrored pass and stop of chunk_runs.c, also chunk_ws.c's); -2 a
   byte that is no token.  toks: room for max_token_len tokens.  The stop: lowest = min of
   d - trie_rev_walk(d) over the ends d > lowed (every end of a token that a fitting
   suffix's chain may cross into); ends past L - q + W are skipped, their tokens starting
   after L - q (so past every later L - q' too).  O(bytes read * trie steps). */
static inline Py_ssize_t
suffix_counts(const Core *core, const unsigned char *d, Py_ssize_t L, Py_ssize_t k, int32_t *first, int32_t *cnt,
              int32_t *toks)
{
    cnt[0] = 0;
    Py_ssize_t W = core->max_token_len;
    Py_ssize_t q, fit_any = 0, read = L;
    Py_ssize_t lowed = L, lowest = L;
    for (q = 1; q <= L; q++) {
        Py_ssize_t pos = L - q;
        int nt = tokens_starting_at(core, d, pos, L, toks);
        int32_t t = -1;
        while (nt > 0) {
            t = toks[--nt];
            Py_ssize_t rest = q - tok_len(core, t);
            if (rest == 0) {
                cnt[q] = 1;
                break;
            }
            if (valid_pair_memo(core, t, first[rest])) {
                cnt[q] = cnt[rest] + 1;
                break;
            }
            t = -1;
        }
        if (t < 0)
            return -2;
        first[q] = t;
        if (cnt[q] <= k) {
            fit_any = q;
            continue;
        }
        if (q == L)
            break;
        if (lowed > L - q + W)
            lowed = L - q + W;  /* a token ending after L - q + W starts after L - q */
        while (lowed >= L - fit_any) {
            /* (a bound at or above L - q answers as the walk: the limit only falls) */
            Py_ssize_t low = lowed - trie_rev_walk_within(core, d, lowed, L - q);
            if (low < lowest)
                lowest = low;
            lowed--;
        }
        if (lowest >= L - q)
            return q;  /* no suffix longer than fit_any fits */
    }
    return read;
}

/* The first byte of data[0:n] that is no token (and so in no token), or -1. */
static inline Py_ssize_t
first_missing_byte(const Core *c, const unsigned char *data, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (c->byte_rank[data[i]] == NO_RANK)
            return i;
    return -1;
}

/* Raises the ValueError the Python path raises for a byte that is no token. */
PyObject *missing_byte_error(const unsigned char *data, Py_ssize_t pos);

/* backtracking.c: BPE of data[0:n] (every byte a token, n >= 1) into out (n entries);
   the number of tokens, or -1 if out of memory (no exception set; no GIL needed). */
Py_ssize_t bt_encode(const Core *c, const unsigned char *data, Py_ssize_t n, int32_t *out);
/* The same, only counted; -1 if out of memory. */
Py_ssize_t bt_count(const Core *c, const unsigned char *data, Py_ssize_t n);

/* merge_loop.c: BPE of one piece, the merge loop for short pieces and the
   backtracking encoder for long ones; -1 if a byte is no token, -2 out of memory. */
Py_ssize_t encode_any(const Core *c, const unsigned char *data, Py_ssize_t n, int32_t *out);
Py_ssize_t count_any(const Core *c, const unsigned char *data, Py_ssize_t n);

/* Parts of the module, registered by module.c (one line each). */
extern PyMethodDef vocab_methods[];
extern PyMethodDef merge_loop_methods[];
extern PyMethodDef backtracking_methods[];
extern PyMethodDef prefix_table_methods[];
int merge_loop_init(PyObject *module);
int prefix_table_init(PyObject *module);
int search_init(PyObject *module);
extern PyMethodDef batch_methods[];
int batch_init(PyObject *module);
/* pool.c, for batch.c: fn(arg) on `threads` threads at once (the caller and persistent
   workers), returning when all are done; the number of threads that ran fn.  Called
   without the GIL. */
int pool_run(void (*fn)(void *), void *arg, int threads);
int pool_init(PyObject *module);
extern PyMethodDef presplit_methods[];
int presplit_init(PyObject *module);
/* text_intervals.c: the common text interval queries; it counts pieces with
   merge_loop.c's cached_count (a piece's count through a bounded dict cache) */
int text_intervals_init(PyObject *module);
Py_ssize_t cached_count(Core *self, PyObject *piece, PyObject *cache, PyObject *fallback, Py_ssize_t max_len,
                        Py_ssize_t max_entries);
/* periodic_runs.c: the periodic runs the raw interval index looks for */
int periodic_runs_init(PyObject *module);

/* ---- loading vocabulary files (load_strings.c, holding.c, merges.c) ---- */
int load_strings_init(PyObject *module);
int holding_init(PyObject *module);
int merges_init(PyObject *module);
/* merges.c, for merges_products.c: whether HF's merge loop builds data[0:n] whole, the
   listed pairs' first positions given by find (-1: not listed, -2: error set); 1, 0, or
   -1 with an exception set. */
typedef int64_t (*PairFinder)(const void *ctx, const unsigned char *pa, Py_ssize_t la, const unsigned char *pb,
                              Py_ssize_t lb);
int hf_builds_whole_by(PairFinder find, const void *ctx, const unsigned char *data, Py_ssize_t n);
/* merges_agree's verdict (merges.c): split_position(ctx, t) is the first list position of
   token t's split (-1: not listed, -2: error set); find serves HF's loop on unreachable. */
typedef int64_t (*SplitPosition)(const void *ctx, Py_ssize_t t);
PyObject *merges_verdict(Py_ssize_t n, const uint32_t *off, SplitPosition split_position, PairFinder find,
                         const void *ctx, PyObject *unreachable, const char *who);
/* merges_products.c: merges_agree from order_by_merges' products, no table of the pairs */
int merges_products_init(PyObject *module);
/* load_strings.c: GPT-2's byte-level table, code point (below 324: 256 + the 68 shifted
   bytes) -> the byte it stands for, -1 outside the table; filled when the module loads.
   Hidden: read in place, not through the shared object's table of addresses (that load
   stood in json_sections.c's loop over the characters). */
#if defined(__GNUC__)
__attribute__((visibility("hidden")))
#endif
extern int16_t byte_level_table[324];

/* One character c of a byte-level string (load_strings.c, json_sections.c): its byte into
   out[*k] (*k advanced), or with split non-NULL a space that separates two sides (*split =
   *k; a second space fails).  0, or -1 where c stands for no byte. */
static inline int
byte_level_put(uint32_t c, unsigned char *out, Py_ssize_t *k, Py_ssize_t *split)
{
    if (split != NULL && c == ' ') {
        if (*split >= 0)
            return -1;
        *split = *k;
        return 0;
    }
    if (c >= 324 || byte_level_table[c] < 0)
        return -1;
    out[(*k)++] = (unsigned char)byte_level_table[c];
    return 0;
}
/* load_strings.c, for gguf_byte_level.c: the bytes of a byte-level string given as UTF-8
   (p[0:len]) into out (room for len bytes); their number, or -1 where it is not byte
   level.  pairs: *split is where the one space was (-1: none, or -1 returned for two). */
Py_ssize_t byte_level_utf8(const unsigned char *p, Py_ssize_t len, unsigned char *out, int pairs, Py_ssize_t *split);
/* gguf_byte_level.c: a GGUF file's token and merge strings decoded from the file's bytes */
int gguf_byte_level_init(PyObject *module);

/* chunk_cuts.c: the exact chunker's cuts decided by prefix sums */
int chunk_cuts_init(PyObject *module);
/* ---- chunk_symbol_runs.c: runs of punctuation and symbols every substring of which is
   one piece (exact_cuts takes them as letter runs); 1 or 0 */
int symbol_run(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule);
/* every non-empty prefix of text[p:q] one piece (marks allowed after its first two characters) */
int symbol_prefixes(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule);
/* counts[q] = count_any(data[0:q]) for q = 0..m (n <= PREFIX_COUNTS_MAX), the pass stopped
   at m < n once no prefix longer than m can count <= limit; m, or -1 at a byte that is no token */
Py_ssize_t prefix_counts_until(const Core *c, const uint8_t *data, Py_ssize_t n, Py_ssize_t limit, int32_t *counts);
int chunk_symbol_runs_init(PyObject *module);
/* ---- end of chunk_symbol_runs.c */

/* chunk_objects.c: the exact chunker's Chunk objects in bulk */
int chunk_objects_init(PyObject *module);

/* chunk_counted_cuts.c, for chunk_cuts.c: the exact chunker's cut and overlap start by
   exact recounts of short slices (the cases the prefix sums alone leave open).  The
   held text (a str: kind, data, n), its pieces' starts and prefix counts (nb each), the
   compiled split (spec, whole) and rule 5's test. */
typedef struct {
    const Core *core;
    long spec;
    const void *whole;
    int kind;
    const void *data;
    Py_ssize_t n;
    const int64_t *bounds, *cum;
    Py_ssize_t nb;
    int (*hard)(int kind, const void *data, Py_ssize_t h, int rule);
    int rule;  /* the member's hard-boundary bits (pretokenize/hard_boundaries.py) */
    struct PieceCache *cache;  /* piece_cache.h, or NULL */
} CountedText;
/* What counted_cut knew of the split from s when it found the cut: C(bounds[i]) =
   count(T[s:bounds[i]]) = cum[i] - base for every global boundary bounds[i] >= h (h -1:
   nothing known); counted_overlap_start then needs no recount of the chunk's tail. */
typedef struct {
    Py_ssize_t h, base;
} CutSums;
Py_ssize_t counted_cut(const CountedText *t, Py_ssize_t s, Py_ssize_t max_tokens, Py_ssize_t horizon, int final,
                       Py_ssize_t *count_out, CutSums *sums);
Py_ssize_t counted_overlap_start(const CountedText *t, Py_ssize_t s, Py_ssize_t e, Py_ssize_t overlap,
                                 Py_ssize_t count, const CutSums *sums);
/* ---- chunk_nospace_cuts.c: the cut in text without whitespace near it, by the global
   boundaries whether hard or not (-1: not that case; the caller tries counted_cut) */
Py_ssize_t nospace_cut(const CountedText *t, Py_ssize_t s, Py_ssize_t max_tokens, Py_ssize_t horizon, int final,
                       Py_ssize_t *count_out);
/* the overlap start after [s, e) by a recount of each suffix its tiling bound leaves (-1: not that case) */
Py_ssize_t tiled_overlap_start(const CountedText *t, Py_ssize_t s, Py_ssize_t e, Py_ssize_t overlap);
/* ---- end of chunk_nospace_cuts.c */
/* counts[p] = count_any(data[0:p]) for p = 0..n (n <= PREFIX_COUNTS_MAX), one table pass;
   0, or -1 at a byte that is no token. */
#define PREFIX_COUNTS_MAX 1024
int prefix_counts(const Core *c, const uint8_t *data, Py_ssize_t n, int32_t *counts);
/* tilings[q] = the fewest reachable tokens that concatenate to data[q:n] (a lower bound of
   count_any(data[q:n])), q = 0..n (n <= PREFIX_COUNTS_MAX); 0, or -1. */
int suffix_tilings(const Core *c, const uint8_t *data, Py_ssize_t n, int32_t *tilings);
/* presplit.c, for chunk_counted_cuts.c: the ends of the first pieces of s[0:n] (at most
   max, byte offsets) under the compiled split spec; their number. */
Py_ssize_t presplit_piece_ends(long spec_value, const uint8_t *s, Py_ssize_t n, Py_ssize_t *ends, Py_ssize_t max);
/* json_sections.c: a tokenizer.json's model.vocab and model.merges read from its bytes */
int json_sections_init(PyObject *module);
/* dropping.c: a vocabulary's parts without its unreachable tokens */
int dropping_init(PyObject *module);
/* waiting.c: the tokens a first pass left, decided by BPE's merge loop */
int waiting_init(PyObject *module);

/* normalization_check.c: where a text may change under NFC / NFKC (a quick check) */
int normalization_check_init(PyObject *module);

/* ------------------------------------------------------------ Python fallbacks, shared
   by the scanners (merge_loop.c scan_ascii, presplit.c scan_text) and texts in batches
   (batch.c, presplit.c). */

/* A piece the compiled path does not take, handed to fallback(piece) with the GIL, and
   its result added to the C output: with toks (encoding), the tokens fallback returns
   appended at toks[*k] (a piece of len bytes has at most len tokens, so the caller's
   buffer of one entry per byte has room; more is an error); without, the count it
   returns.  *total grows by the piece's count.  Steals piece (NULL: an error is set).
   0, or -1 with an exception set. */
static inline int
fallback_into(PyObject *fallback, PyObject *piece, Py_ssize_t len, int32_t *toks, Py_ssize_t *k,
              Py_ssize_t *total)
{
    if (piece == NULL)
        return -1;
    PyObject *r = PyObject_CallOneArg(fallback, piece);
    Py_DECREF(piece);
    if (r == NULL)
        return -1;
    if (toks == NULL) {
        Py_ssize_t c = PyLong_AsSsize_t(r);
        Py_DECREF(r);
        if (c == -1 && PyErr_Occurred())
            return -1;
        *total += c;
        return 0;
    }
    PyObject *seq = PySequence_Fast(r, "fallback must return a sequence of tokens");
    Py_DECREF(r);
    if (seq == NULL)
        return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    if (m > len) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "fallback returned more tokens than bytes");
        return -1;
    }
    for (Py_ssize_t q = 0; q < m; q++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, q));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        toks[(*k)++] = (int32_t)v;
    }
    Py_DECREF(seq);
    *total += m;
    return 0;
}

/* ids: the vocabulary's id of each rank, an array('i'), or None (id == rank).  With an
   array, *view holds it (the caller releases it: ids_arg is not None) and *id_of / *n_ids
   point at its n_ids entries; with None both stay NULL / 0.  0, or -1 with a TypeError
   (or the buffer error) set and nothing held. */
static inline int
ids_of_arg(PyObject *ids_arg, Py_buffer *view, const int32_t **id_of, Py_ssize_t *n_ids)
{
    *id_of = NULL;
    *n_ids = 0;
    if (ids_arg == Py_None)
        return 0;
    if (PyObject_GetBuffer(ids_arg, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != 4 || view->format == NULL || (view->format[0] != 'i' && view->format[0] != 'l')) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "ids must be an array('i')");
        return -1;
    }
    *id_of = view->buf;
    *n_ids = view->len / 4;
    return 0;
}

/* presplit.c, for batch.c: a whole text split by a family member's compiled scanner and
   BPE'd, without the GIL.  spec_value was checked by presplit_spec_ok (with the GIL:
   1, or 0 with an exception); whole comes from presplit_whole_of(capsule or None, &whole)
   (0, or -1 with an exception; NULL: no whole-piece tokens).  presplit_utf8
   writes the UTF-8 of a str's data (kind, len characters) into out (4 bytes per
   character of room) and returns its length, or -1 for a lone surrogate.
   presplit_encode returns the text's count (tokens into out, at most n of them, mapped
   through id_of when it is not NULL), -1 where a piece needs the Python fallback (the
   caller encodes that text in Python), -2 out of memory.  cache: the calling thread's
   piece cache (piece_cache.h), or NULL. */
struct PieceCache;
int presplit_spec_ok(long spec_value);
int presplit_whole_of(PyObject *capsule, const void **whole);
Py_ssize_t presplit_utf8(int kind, const void *data, Py_ssize_t len, uint8_t *out);
Py_ssize_t presplit_encode(const Core *c, long spec_value, const void *whole, const uint8_t *s, Py_ssize_t n,
                           int32_t *out, const int32_t *id_of, Py_ssize_t n_ids, struct PieceCache *cache);

/* presplit.c, for chunk_cuts.c: whether a[0:n] is one of the whole-piece tokens of whole
   (from presplit_whole_of; NULL: none). */
int presplit_is_whole(const void *whole, const uint8_t *a, Py_ssize_t n);

/* ---- chunk_runs.c: the exact chunker's chunks inside a long one-piece run */
int chunk_runs_init(PyObject *module);
/* prefix_table.c, for chunk_runs.c: the table pass (last/counts of data's prefixes for the
   positions done + 1 .. target; the last position filled, < target at a byte that is no
   token; per/eq carry the periodic shortcut's state, 1 and 0 at the start; cand holds
   max_token_len + 1 entries). */
Py_ssize_t prefix_table_fill(const Core *c, const unsigned char *data, int32_t *last, int32_t *counts,
                             Py_ssize_t done, Py_ssize_t target, Py_ssize_t *per_io, Py_ssize_t *eq_io,
                             int32_t *cand);

/* ---- table_meet.c, for chunk_runs.c: the table pass resumed from an earlier start's
   table at the first position no token crosses (positions done + 1 .. target; old_filled
   positions of the earlier table in place; *synced: they met and every old position was
   taken; the last position filled, which is old_filled when that is past target and they
   met; meet carries the agreement and the walks between calls, reset by table_meet_start
   for each chunk; n the bytes held, which the walks do not pass) */
typedef struct {
    Py_ssize_t a;       /* start of the agreeing stretch ending at the last position, -1: none */
    int32_t delta;      /* old count - new count on it */
    Py_ssize_t walked;  /* starts below this walked */
    Py_ssize_t reach;   /* max of r + walk(r) over them */
} TableMeet;
void table_meet_start(TableMeet *m);
Py_ssize_t table_fill_meet(const Core *c, const unsigned char *data, Py_ssize_t n, int32_t *last, int32_t *counts,
                           Py_ssize_t done, Py_ssize_t target, Py_ssize_t old_filled, Py_ssize_t *per_io,
                           Py_ssize_t *eq_io, int32_t *cand, TableMeet *m, int *synced);
int table_meet_init(PyObject *module);
/* ---- end of table_meet.c */

/* ---- digit_runs.c: the exact chunker's chunks inside runs of ASCII digits, by rule */
int digit_runs_init(PyObject *module);
/* ---- chunk_ws.c: the exact chunker's chunks inside a stretch of whitespace */
int chunk_ws_init(PyObject *module);

#endif
