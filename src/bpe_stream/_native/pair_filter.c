/* The pair test (core.h valid_pair) with a one-hash Bloom filter over the tokens' bytes
in front of concat_rank's probe of the byte-hash table.

Why: on text without spaces (random letters) the table pass makes about 1.3 pair tests
per input byte, ~2.7 unwinding steps each; most steps whose two tokens are three bytes
or more together ask for a concatenation that is no token, and that answer costs a read
of the slots table and of the offsets of the token found in the slot (megabytes for
o200k: cache misses, most of the test's time).  The filter (16 bits per token, within
the second-level cache) answers most of those "no token" without either read.

Invariant: a clear bit means no usable token of three bytes or more has that hash (each
was set when the filter was made from the vocabulary), so valid_pair_filtered(c, f, t1,
t2) == valid_pair(c, t1, t2) for every pair: the same unwinding steps, decided in the
same order, each concatenation's rank found by the same probe when the filter lets it
through.  With exceptional tokens (c->exc) it is valid_pair itself.

Complexity: making it, one hash per token (a few ms for o200k); a test, as valid_pair.
Memory: 2 bytes per token of the vocabulary, rounded up to a power of two (512 KiB for
o200k, 256 KiB for cl100k), held for one pass. */
#include "pair_filter.h"

/* 16 bits a token: about 1 in 16 "no token" answers still probes the slots; 8 (a
   quarter more probes) and 32 (a filter twice the size, out of the second-level cache
   more often) measured slower on random letters with o200k */
#define FILTER_BITS_PER_TOKEN 16

static inline uint64_t
filter_bit(const PairFilter *f, uint64_t h)
{
    return (h * 0x9E3779B97F4A7C15ULL) >> f->shift;
}

int
pair_filter_init(PairFilter *f, const Core *c)
{
    int bits = 12;
    while (bits < 30 && ((uint64_t)1 << bits) < (uint64_t)c->n_tokens * FILTER_BITS_PER_TOKEN)
        bits++;
    f->shift = 64 - bits;
    f->bits = PyMem_RawCalloc((size_t)1 << (bits - 6), sizeof(uint64_t));
    if (f->bits == NULL)
        return -1;
    for (Py_ssize_t r = 0; r < c->n_tokens; r++) {
        Py_ssize_t n = tok_len(c, (int32_t)r);
        if (n < 3 || !usable(c, (int32_t)r))
            continue;
        uint64_t k = filter_bit(f, hash_end(hash_feed(hash_start(n), tok_bytes(c, (int32_t)r), n)));
        f->bits[k >> 6] |= UINT64_C(1) << (k & 63);
    }
    return 0;
}

void
pair_filter_free(PairFilter *f)
{
    PyMem_RawFree(f->bits);
    f->bits = NULL;
}

/* core.h concat_rank, the filter asked before the probe */
static inline int32_t
concat_rank_filtered(const Core *c, const PairFilter *f, int32_t a, int32_t b)
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
        uint64_t k = filter_bit(f, h);
        if (!((f->bits[k >> 6] >> (k & 63)) & 1))
            return NO_RANK;
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

int
valid_pair_filtered(const Core *c, const PairFilter *f, int32_t t1, int32_t t2, unsigned char b)
{
    if (f->bits == NULL || c->exc != NULL)
        return valid_pair(c, t1, t2);
    if (!((c->mask_table[4 * (size_t)c->mask_id[t1] + (b >> 6)] >> (b & 63)) & 1))
        return 1;
    /* core.h valid_pair_below with limit n_tokens and no exceptional token */
    int32_t limit = (int32_t)c->n_tokens;
    for (;;) {
        if (concat_rank_filtered(c, f, t1, t2) < limit)
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
