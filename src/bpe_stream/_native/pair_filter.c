/* The pair test (core.h valid_pair) with a one-hash Bloom filter over the tokens' bytes
in front of concat_rank's probe of the byte-hash table.  The test is core.h's own
(valid_pair_with_filter, which valid_pair calls without a filter); this file makes the
filter.

Why: on text without spaces (random letters) the table pass makes about 1.3 pair tests
per input byte, ~2.7 unwinding steps each; most steps whose two tokens are three bytes
or more together ask for a concatenation that is no token, and that answer costs a read
of the slots table and of the offsets of the token found in the slot (megabytes for
o200k: cache misses, most of the test's time).  The filter (16 bits per token, within
the second-level cache) answers most of those "no token" without either read.

Invariant: a clear bit means no usable token of three bytes or more has that hash (each
was set when the filter was made from the vocabulary), so valid_pair_filtered(c, f, t1,
t2) == valid_pair(c, t1, t2) for every pair: the same unwinding steps, decided in the
same order (one routine), each concatenation's rank found by the same probe when the
filter lets it through.  With exceptional tokens (c->exc) it is valid_pair itself.

Complexity: making it, one hash per token (a few ms for o200k); a test, as valid_pair.
Memory: 2 bytes per token of the vocabulary, rounded up to a power of two (512 KiB for
o200k, 256 KiB for cl100k), held for one pass. */
#include "pair_filter.h"

/* 16 bits a token: about 1 in 16 "no token" answers still probes the slots; 8 (a
   quarter more probes) and 32 (a filter twice the size, out of the second-level cache
   more often) measured slower on random letters with o200k */
#define FILTER_BITS_PER_TOKEN 16

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
        uint64_t k = pair_filter_bit(f->shift, hash_end(hash_feed(hash_start(n), tok_bytes(c, (int32_t)r), n)));
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

int
valid_pair_filtered(const Core *c, const PairFilter *f, int32_t t1, int32_t t2, unsigned char b)
{
    PairFilterBits bits = {c->exc == NULL ? f->bits : NULL, f->shift};
    return valid_pair_with_filter(c, bits, t1, t2, b);
}
