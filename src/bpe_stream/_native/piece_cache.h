/* The piece cache: short pieces' tokens, kept by a Core across calls and shared by every
thread that reads the Core (batch.c's workers, count_text / encode_text and prefix_sums in
presplit.c, count_ascii / encode_ascii in merge_loop.c).

Real text repeats its pieces (Zipf): most pieces of a text, and of the texts that follow
it, have been seen before, and a piece's tokens would otherwise cost a hash of its bytes
and a compare against the token's (rank_of_any), or the merge loop again.  The cache is
two-way set associative (a piece's hash selects a bucket of two entries, 128 bytes
aligned: two cache lines; a new piece takes an empty one, else the one another bit of
its hash selects), so it is bounded (PC_ENTRIES entries of one cache line: 4 MB, allocated
on first use on huge pages where the system gives them, see pc_table) and a look-up is O(1): one hash of
at most PC_MAX_LEN bytes, kept as PC_WORDS words, and at most two compares of those
words.  (Direct mapped, the pieces of 1 MB of English that meet in one entry evict each
other on every call: a fifth of a repeated count's time went to their BPE.)

Invariant: an entry whose sequence number is even holds the piece's bytes (len, w: zero
beyond len), its count, and, if filled by an encoding (tokens != 0), its first
PC_MAX_TOKENS tokens (ranks); the tokens of a piece depend on its bytes alone
(encode_any), so a hit returns exactly what encode_any / count_any would.

Longer pieces (PC_MAX_LEN < n <= PC_LONG_MAX bytes: words of scripts with 2- and
3-byte characters, marks taken into letters) have their own table of larger entries
(PC_LONG_ENTRIES of 256 bytes: 2 MB, two-way set associative the same way), which keeps
the whole piece and its count only (an encoding of such a piece runs encode_any): a
look-up is one word-wise hash of the piece and at most two compares of its bytes, which
costs a few percent of the BPE it saves (bt_count of a 100-byte piece: microseconds).
Its invariant is the short table's: an entry whose sequence number is even holds a
piece's bytes (len) and its count.

Counts of pieces of at most PC_SHORT_MAX (7) bytes (85-95 % of the pieces of prose and
code) have a third, denser table: one 64-bit word per piece (its bytes, its length and
its count), eight to a cache line, a line chosen by the piece's hash and searched from
the slot the hash prefers to the first empty slot.  A repeated count then touches one
cache line per piece instead of two of 64 bytes each, so the lines a batch of documents
keeps using fit the core's L2 cache (a batch of 100 documents of prose or code spent
about 40 % of its time waiting on the table's lines otherwise), and the word is read in
one atomic load, with no sequence number.  Invariant: a non-zero word holds a piece's
bytes (bits 0-55, zero beyond its length), its length (bits 56-58, 1-7) and count_any of
it (bits 59-61; a piece of n bytes has at most n tokens); a writer stores a whole word
(atomic, relaxed: the word is the whole entry, nothing else is published with it), and
only a count goes through this table (pc_prepare_count); an encoding uses the tables
above.

Threads: every entry of the first two tables is a seqlock.  A writer claims the entry by moving its sequence
number from even to odd (compare-and-swap: a writer that finds it odd or loses the race
skips the store, the cache being only a cache), writes, and publishes with the next even
number (release).  A reader copies what it needs between two reads of the sequence
number and uses the copy only if both are the same even number, so it never sees half an
entry.  Readers write nothing: threads that hit the same pieces share the entries' cache
lines.  The table itself appears once (compare-and-swap of the Core's pointer, which holds the
allocation; the table starts at its first 2 MB boundary; a thread that loses frees
its own) and lives as long as the Core's tables;
Core.clear_piece_cache() empties both tables (benchmarks of first calls).
*/
#ifndef BPE_PIECE_CACHE_H
#define BPE_PIECE_CACHE_H

#include "core.h"

#include <stdatomic.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#ifndef PC_BITS
#define PC_BITS 16
#endif
#define PC_ENTRIES (1 << PC_BITS)
#define PC_BUCKET_BITS (PC_BITS - 1) /* buckets of two entries */
#define PC_WORDS 4
#define PC_MAX_LEN (8 * PC_WORDS)
#define PC_MAX_TOKENS 6

typedef struct {
    uint64_t w[PC_WORDS]; /* the piece's bytes, zero beyond len */
    atomic_uint seq;      /* even: the entry is whole; odd: a writer is at it */
    uint8_t len;          /* 0: empty (a piece has at least one byte) */
    uint8_t count;
    uint8_t tokens;       /* 1: tok holds the tokens (count <= PC_MAX_TOKENS) */
    int32_t tok[PC_MAX_TOKENS];
} PieceCacheEntry;        /* 64 bytes: one cache line */

#ifndef PC_LONG_BITS
#define PC_LONG_BITS 13
#endif
#define PC_LONG_ENTRIES (1 << PC_LONG_BITS)
#define PC_LONG_BUCKET_BITS (PC_LONG_BITS - 1)
#define PC_LONG_MAX 248

#ifndef PC_SHORT_BITS
#define PC_SHORT_BITS 16
#endif
#define PC_SHORT_ENTRIES (1 << PC_SHORT_BITS)
#define PC_SHORT_LINE_BITS (PC_SHORT_BITS - 3) /* lines of eight words */
#define PC_SHORT_MAX 7
#define PC_SHORT_KEY ((1ULL << 59) - 1) /* the bytes and the length */

typedef struct {
    atomic_uint seq;              /* as in PieceCacheEntry */
    uint16_t len;                 /* 0: empty */
    uint16_t count;
    uint8_t bytes[PC_LONG_MAX];   /* the piece */
} PieceCacheLong;                 /* 256 bytes: four cache lines */

typedef struct PieceCache {
    PieceCacheEntry e[PC_ENTRIES];
    PieceCacheLong l[PC_LONG_ENTRIES];
    _Atomic uint64_t s[PC_SHORT_ENTRIES]; /* counts of pieces of at most PC_SHORT_MAX bytes */
} PieceCache;

static inline _Atomic(void *) *
pc_slot(const Core *c)
{
    return (_Atomic(void *) *)&((Core *)c)->piece_cache;
}

/* The table starts on a 2 MB boundary of its allocation, and where the system has
   transparent huge pages on request (Linux, madvise), it asks for them: two 2 MB pages
   instead of 1024 of 4 KB, so the look-ups, spread over the whole table, do not also
   miss the TLB (a page walk per miss, dearer still in a virtual machine). */
#define PC_TABLE_ALIGN ((uintptr_t)1 << 21)

/* The table in the allocation raw (calloc of sizeof(PieceCache) + PC_TABLE_ALIGN bytes). */
static inline PieceCache *
pc_table(void *raw)
{
    return raw == NULL ? NULL : (PieceCache *)(((uintptr_t)raw + PC_TABLE_ALIGN - 1) & ~(PC_TABLE_ALIGN - 1));
}

/* The Core's piece cache, made on first use; NULL if out of memory (then no cache). */
static inline PieceCache *
core_piece_cache(const Core *c)
{
    void *raw = atomic_load_explicit(pc_slot(c), memory_order_acquire);
    if (raw != NULL)
        return pc_table(raw);
    void *fresh = calloc(1, sizeof(PieceCache) + PC_TABLE_ALIGN);
    if (fresh == NULL)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(pc_table(fresh), sizeof(PieceCache), MADV_HUGEPAGE); /* a hint: no huge pages, no harm */
#endif
    if (atomic_compare_exchange_strong_explicit(pc_slot(c), &raw, fresh, memory_order_acq_rel, memory_order_acquire))
        return pc_table(fresh);
    free(fresh); /* another thread made it first: raw is now its allocation */
    return pc_table(raw);
}

/* The bytes p[0:n] (n <= PC_MAX_LEN) as PC_WORDS words, zero beyond n, and their hash;
   end is the end of the buffer p lies in (a whole-word load must not pass it). */
static inline uint64_t
pc_key(const uint8_t *p, Py_ssize_t n, const uint8_t *end, uint64_t *w)
{
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ULL;
    for (int j = 0; j < PC_WORDS; j++) {
        Py_ssize_t at = 8 * j, left = n - at;
        uint64_t v = 0;
        if (left > 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            if (end - (p + at) >= 8) {
                memcpy(&v, p + at, 8);
                if (left < 8)
                    v &= (1ULL << (8 * left)) - 1;
            } else
#endif
            {
                uint8_t buf[8] = {0};
                for (Py_ssize_t i = 0; i < left && i < 8; i++)
                    buf[i] = p[at + i];
                memcpy(&v, buf, 8);
            }
            h = (h ^ v) * 0xbf58476d1ce4e5b9ULL;
            h ^= h >> 31;
        }
        w[j] = v;
    }
    return h;
}

/* A piece's place in the cache: its words, its bucket (e: the first of its two entries;
   NULL: the piece is not cached) and the entry a new piece replaces when both are full.
   Made by pc_prepare, which also starts loading the entry, so that a caller who prepares
   the next piece before it encodes this one hides the memory latency of the table (4 MB:
   most look-ups would otherwise wait on the L2 or L3 cache). */
typedef struct {
    uint64_t w[PC_WORDS];
    PieceCacheEntry *e;
    PieceCacheLong *l;    /* a long piece's bucket (e NULL), or NULL */
    _Atomic uint64_t *s;  /* a short piece's line of the count table (e, l NULL), or NULL */
    int victim;           /* (s: the slot the hash prefers) */
} PieceKey;

/* The hash of a long piece p[0:n] (n > 8), a word at a time (every load inside the piece). */
static inline uint64_t
pc_long_hash(const uint8_t *p, Py_ssize_t n)
{
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ULL, v;
    Py_ssize_t at = 0;
    for (; at + 8 <= n; at += 8) {
        memcpy(&v, p + at, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    if (at < n) {
        /* the last 8 bytes (n > 8: they lie in the piece), overlapping the words before */
        memcpy(&v, p + n - 8, 8);
        h = (h ^ v) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    return h * 0x94d049bb133111ebULL;
}

static inline void
pc_prepare(PieceCache *pc, const uint8_t *p, Py_ssize_t n, const uint8_t *end, PieceKey *key)
{
    key->l = NULL;
    key->s = NULL;
    if (pc == NULL || n > PC_MAX_LEN || n == 0) {
        key->e = NULL;
        if (pc != NULL && n > PC_MAX_LEN && n <= PC_LONG_MAX) {
            uint64_t h = pc_long_hash(p, n);
            key->l = &pc->l[2 * (h >> (64 - PC_LONG_BUCKET_BITS))];
            key->victim = (int)(h >> 20) & 1;
#if defined(__GNUC__)
            __builtin_prefetch(key->l);
            __builtin_prefetch(key->l + 1);
#endif
        }
        return;
    }
    uint64_t h = pc_key(p, n, end, key->w) * 0x94d049bb133111ebULL;
    key->e = &pc->e[2 * (h >> (64 - PC_BUCKET_BITS))];
    key->victim = (int)(h >> 20) & 1;
#if defined(__GNUC__)
    __builtin_prefetch(key->e);
    __builtin_prefetch(key->e + 1);
#endif
}

/* pc_prepare for a key that only counts (cached_piece_at with out NULL; with out, the
   piece is encoded by encode_any, uncached): a piece of at most PC_SHORT_MAX bytes goes
   to the count table, its word (bytes and length) in key->w[0]. */
static inline void
pc_prepare_count(PieceCache *pc, const uint8_t *p, Py_ssize_t n, const uint8_t *end, PieceKey *key)
{
    if (pc == NULL || n == 0 || n > PC_SHORT_MAX) {
        pc_prepare(pc, p, n, end, key);
        return;
    }
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 8) {
        memcpy(&v, p, 8);
        v &= (1ULL << (8 * n)) - 1;
    } else
#endif
        for (Py_ssize_t i = 0; i < n; i++)
            v |= (uint64_t)p[i] << (8 * i);
    v |= (uint64_t)n << 56;
    uint64_t h = (v ^ (v >> 29)) * 0x9e3779b97f4a7c15ULL;
    key->w[0] = v;
    key->e = NULL;
    key->l = NULL;
    key->s = &pc->s[(h >> (64 - PC_SHORT_LINE_BITS)) << 3];
    key->victim = (int)(h >> (61 - PC_SHORT_LINE_BITS)) & 7;
#if defined(__GNUC__)
    __builtin_prefetch(key->s);
#endif
}

/* pc_prepare (encoding true) or pc_prepare_count. */
static inline void
pc_prepare_for(PieceCache *pc, const uint8_t *p, Py_ssize_t n, const uint8_t *end, int encoding, PieceKey *key)
{
    if (encoding)
        pc_prepare(pc, p, n, end, key);
    else
        pc_prepare_count(pc, p, n, end, key);
}

/* The seqlock steps shared by the two tables of entries (PieceCacheEntry, PieceCacheLong).

   pc_way_candidate: a reader's first look at way `way` of a bucket, for a piece of n
   bytes: 1 (the entry is whole and of that length: compare it, *seq its sequence number),
   else 0, noting in *empty the first empty way. */
static inline int
pc_way_candidate(atomic_uint *seq_of, unsigned len, Py_ssize_t n, int way, int *empty, unsigned *seq)
{
    *seq = atomic_load_explicit(seq_of, memory_order_acquire);
    if (*seq & 1)
        return 0;
    if ((Py_ssize_t)len != n) {
        if (len == 0 && *empty < 0)
            *empty = way;
        return 0;
    }
    return 1;
}

/* A writer's claim of an entry (its sequence number from even to odd): 1 with *seq the
   number before, ready to write; 0 where another writer holds it or wins the race (the
   cache being only a cache, the store is skipped). */
static inline int
pc_claim(atomic_uint *seq_of, unsigned *seq)
{
    *seq = atomic_load_explicit(seq_of, memory_order_relaxed);
    if ((*seq & 1) || !atomic_compare_exchange_strong_explicit(seq_of, seq, *seq + 1, memory_order_acquire,
                                                               memory_order_relaxed))
        return 0;
    atomic_thread_fence(memory_order_release);
    return 1;
}

/* The entry claimed with pc_claim(seq_of, &seq) is whole again. */
static inline void
pc_publish(atomic_uint *seq_of, unsigned seq)
{
    atomic_store_explicit(seq_of, seq + 2, memory_order_release);
}

/* count_any of the short piece p[0:n] through its line of the count table (key->s). */
static Py_ssize_t
cached_short_count(const PieceKey *key, const Core *c, const uint8_t *p, Py_ssize_t n)
{
    _Atomic uint64_t *line = key->s;
    uint64_t want = key->w[0];
    int at = key->victim;
    for (int k = 0; k < 8; k++, at = (at + 1) & 7) {
        uint64_t v = atomic_load_explicit(&line[at], memory_order_relaxed);
        if ((v & PC_SHORT_KEY) == want)
            return (Py_ssize_t)(v >> 59);
        if (v == 0)
            break; /* words are stored from the preferred slot on: the piece is not here */
    }
    Py_ssize_t m = count_any(c, p, n);
    if (m <= 0 || m > PC_SHORT_MAX)
        return m;
    /* the first empty slot, else the preferred one (k == 8: at is back there) */
    atomic_store_explicit(&line[at], want | ((uint64_t)m << 59), memory_order_relaxed);
    return m;
}

/* count_any of the long piece p[0:n] through its bucket (pc_prepare's key->l). */
static Py_ssize_t
cached_long_count(const PieceKey *key, const Core *c, const uint8_t *p, Py_ssize_t n)
{
    PieceCacheLong *bucket = key->l;
    int empty = -1;
    for (int way = 0; way < 2; way++) {
        PieceCacheLong *e = bucket + way;
        unsigned seq;
        if (!pc_way_candidate(&e->seq, e->len, n, way, &empty, &seq))
            continue;
        int same = memcmp(e->bytes, p, (size_t)n) == 0;
        Py_ssize_t m = e->count;
        atomic_thread_fence(memory_order_acquire);
        if (same && atomic_load_explicit(&e->seq, memory_order_relaxed) == seq)
            return m;
    }
    Py_ssize_t m = count_any(c, p, n);
    if (m < 0)
        return m;
    PieceCacheLong *e = bucket + (empty >= 0 ? empty : key->victim);
    unsigned seq;
    if (!pc_claim(&e->seq, &seq))
        return m;
    e->len = (uint16_t)n;
    memcpy(e->bytes, p, (size_t)n);
    e->count = (uint16_t)m;
    pc_publish(&e->seq, seq);
    return m;
}

/* encode_any (out not NULL: room for n tokens) or count_any of the piece p[0:n], through
   its key (pc_prepare of the same piece). */
static inline Py_ssize_t
cached_piece_at(const PieceKey *key, const Core *c, const uint8_t *p, Py_ssize_t n, int32_t *out)
{
    PieceCacheEntry *bucket = key->e;
    if (bucket == NULL) {
        if (key->s != NULL && out == NULL)
            return cached_short_count(key, c, p, n);
        if (key->l != NULL && out == NULL)
            return cached_long_count(key, c, p, n);
        return out ? encode_any(c, p, n, out) : count_any(c, p, n);
    }
    int empty = -1;
    for (int way = 0; way < 2; way++) {
        PieceCacheEntry *e = bucket + way;
        unsigned seq;
        if (!pc_way_candidate(&e->seq, e->len, n, way, &empty, &seq))
            continue;
        /* (the words compared in registers: a memcmp call was 3 % of a warm count) */
        uint64_t differ = 0;
        for (int j = 0; j < PC_WORDS; j++)
            differ |= e->w[j] ^ key->w[j];
        if (differ != 0 || (out != NULL && !e->tokens))
            continue;
        int32_t tok[PC_MAX_TOKENS];
        int m = e->count;
        if (out != NULL)
            memcpy(tok, e->tok, sizeof(tok));
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&e->seq, memory_order_relaxed) == seq) {
            if (out != NULL)
                for (int k = 0; k < m; k++)
                    out[k] = tok[k];
            return m;
        }
    }
    Py_ssize_t m = out ? encode_any(c, p, n, out) : count_any(c, p, n);
    if (m < 0)
        return m;
    /* an empty entry if there was one, else the hash's choice (a piece whose entry holds
       only its count, met by an encoding, may then stand twice: both are right) */
    PieceCacheEntry *e = bucket + (empty >= 0 ? empty : key->victim);
    unsigned seq;
    if (!pc_claim(&e->seq, &seq))
        return m; /* another thread is writing this entry: leave it to that one */
    e->len = (uint8_t)n;
    memcpy(e->w, key->w, sizeof(key->w));
    e->count = (uint8_t)m;
    e->tokens = out != NULL && m <= PC_MAX_TOKENS;
    if (e->tokens)
        for (Py_ssize_t k = 0; k < m; k++)
            e->tok[k] = out[k];
    pc_publish(&e->seq, seq);
    return m;
}

/* The same for a piece not prepared beforehand; end is the end of the buffer p lies in,
   pc the cache (NULL: none). */
static inline Py_ssize_t
cached_piece(PieceCache *pc, const Core *c, const uint8_t *p, Py_ssize_t n, const uint8_t *end, int32_t *out)
{
    PieceKey key;
    if (out == NULL)
        pc_prepare_count(pc, p, n, end, &key);
    else
        pc_prepare(pc, p, n, end, &key);
    return cached_piece_at(&key, c, p, n, out);
}

/* Empties the Core's piece cache, entry by entry as a writer would (safe while other
   threads read or fill it); its memory stays. */
static inline void
core_piece_cache_clear(const Core *c)
{
    PieceCache *pc = pc_table(atomic_load_explicit(pc_slot(c), memory_order_acquire));
    if (pc == NULL)
        return;
    for (size_t i = 0; i < PC_ENTRIES; i++) {
        PieceCacheEntry *e = &pc->e[i];
        unsigned seq;
        if (!pc_claim(&e->seq, &seq))
            continue; /* a writer holds it: it leaves a whole entry, which may stay */
        e->len = 0;
        pc_publish(&e->seq, seq);
    }
    for (size_t i = 0; i < PC_SHORT_ENTRIES; i++)
        atomic_store_explicit(&pc->s[i], 0, memory_order_relaxed);
    for (size_t i = 0; i < PC_LONG_ENTRIES; i++) {
        PieceCacheLong *e = &pc->l[i];
        unsigned seq;
        if (!pc_claim(&e->seq, &seq))
            continue;
        e->len = 0;
        pc_publish(&e->seq, seq);
    }
}

#endif
