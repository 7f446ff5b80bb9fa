/* A small cache of short pieces' tokens for one thread of a batch (batch.c, and the
family scanner presplit.c runs for it).

Real text repeats its pieces (Zipf): within a batch of documents most pieces have been
seen before, and a repeated piece that is no single token would otherwise go through
the merge loop again.  The cache is direct mapped (a new piece overwrites the entry its
hash selects), so it is bounded (PC_ENTRIES entries of one cache line, 512 KB) and a
look-up is O(1): one hash of at most PC_MAX_LEN bytes, kept as PC_WORDS words, and one
compare of those words.

Invariant: an entry holds the piece's bytes (len, w: zero beyond len), its count,
and, if filled by an encoding (tokens != 0), its first PC_MAX_TOKENS tokens (ranks);
the tokens of a piece depend on its bytes alone (encode_any), so a hit returns exactly
what encode_any / count_any would.  A cache belongs to one thread and one call (count
or encode): nothing is shared, nothing outlives the call.
*/
#ifndef BPE_PIECE_CACHE_H
#define BPE_PIECE_CACHE_H

#include "core.h"

#include <stdlib.h>

#ifndef PC_BITS
#define PC_BITS 13
#endif
#define PC_ENTRIES (1 << PC_BITS)
#define PC_WORDS 4
#define PC_MAX_LEN (8 * PC_WORDS)
#define PC_MAX_TOKENS 6

typedef struct {
    uint64_t w[PC_WORDS]; /* the piece's bytes, zero beyond len */
    uint8_t len;          /* 0: empty (a piece has at least one byte) */
    uint8_t count;
    uint8_t tokens;       /* 1: tok holds the tokens (count <= PC_MAX_TOKENS) */
    int32_t tok[PC_MAX_TOKENS];
} PieceCacheEntry;        /* 64 bytes: one cache line */

typedef struct PieceCache {
    PieceCacheEntry e[PC_ENTRIES];
} PieceCache;

static inline PieceCache *
piece_cache_new(void)
{
    return calloc(1, sizeof(PieceCache));
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

/* encode_any (out not NULL: room for n tokens) or count_any of the piece p[0:n],
   through the cache pc (NULL: none). */
static inline Py_ssize_t
cached_piece(PieceCache *pc, const Core *c, const uint8_t *p, Py_ssize_t n, const uint8_t *end, int32_t *out)
{
    if (pc == NULL || n > PC_MAX_LEN || n == 0)
        return out ? encode_any(c, p, n, out) : count_any(c, p, n);
    uint64_t w[PC_WORDS];
    uint64_t h = pc_key(p, n, end, w);
    PieceCacheEntry *e = &pc->e[(h * 0x94d049bb133111ebULL) >> (64 - PC_BITS)];
    if (e->len == n && memcmp(e->w, w, sizeof(w)) == 0 && (out == NULL || e->tokens)) {
        if (out != NULL)
            for (int k = 0; k < e->count; k++)
                out[k] = e->tok[k];
        return e->count;
    }
    Py_ssize_t m = out ? encode_any(c, p, n, out) : count_any(c, p, n);
    if (m < 0)
        return m;
    e->len = (uint8_t)n;
    memcpy(e->w, w, sizeof(w));
    e->count = (uint8_t)m;
    e->tokens = out != NULL && m <= PC_MAX_TOKENS;
    if (e->tokens)
        for (Py_ssize_t k = 0; k < m; k++)
            e->tok[k] = out[k];
    return m;
}

#endif
