/* pair_filter.c: the pair test (core.h valid_pair) with a filter in front of its
   byte-hash probes, for passes that make many tests over one input. */
#ifndef BPE_PAIR_FILTER_H
#define BPE_PAIR_FILTER_H

#include "core.h"

typedef struct {
    uint64_t *bits; /* NULL: no filter (every probe is made) */
    int shift;      /* 64 - log2(number of bits) */
} PairFilter;

/* 0, or -1 out of memory */
int pair_filter_init(PairFilter *f, const Core *c);
void pair_filter_free(PairFilter *f);
/* valid_pair(c, t1, t2); b: the first byte of t2 (the caller has it in its input) */
int valid_pair_filtered(const Core *c, const PairFilter *f, int32_t t1, int32_t t2, unsigned char b);

#endif
