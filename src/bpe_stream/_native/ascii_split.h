/* The bundled pre-split patterns on ASCII text, as a hand-written scanner.

Invariant: piece_end(kind, s, i, n) is the end of the piece that starts at i when
the pattern (kind SPLIT_CL100K or SPLIT_O200K) is run over s[0:n] as a whole text.
Each branch is one alternative of the pattern, tried in the pattern's order, with
the Unicode classes reduced to ASCII (pretokenize._ASCII_PATTERNS states the same
reductions; \s is Unicode White_Space, which in ASCII is space, \t, \n, \v, \f,
\r; \x1c-\x1f are not whitespace there, unlike Python's re).  The scan never looks
left of i, so a stretch cut where the whole text's pieces are cut splits the same
(PreSplitter.stretches).  tests/test_compiled.py compares it with the regex on the
corpora and on hypothesis text over every ASCII class.

Complexity: O(piece) per piece, each character read at most twice.  Included by
merge_loop.c; no Python API here.
*/
#ifndef BPE_STREAM_ASCII_SPLIT_H
#define BPE_STREAM_ASCII_SPLIT_H

#include <stddef.h>

#define SPLIT_CL100K 1
#define SPLIT_O200K 2

enum { C_OTHER = 0, C_UPPER = 1, C_LOWER = 2, C_DIGIT = 4, C_SPACE = 8, C_NEWLINE = 16 };
static unsigned char ascii_class[128];

static void
init_ascii_class(void)
{
    for (int c = 0; c < 128; c++) {
        unsigned char k = C_OTHER;
        if (c >= 'A' && c <= 'Z')
            k = C_UPPER;
        else if (c >= 'a' && c <= 'z')
            k = C_LOWER;
        else if (c >= '0' && c <= '9')
            k = C_DIGIT;
        else if (c == '\r' || c == '\n')
            k = C_SPACE | C_NEWLINE;
        else if (c == ' ' || c == '\t' || c == '\v' || c == '\f')
            k = C_SPACE;
        ascii_class[c] = k;
    }
}

#define IS_LETTER(c) (ascii_class[(c)] & (C_UPPER | C_LOWER))
#define IS_DIGIT(c) (ascii_class[(c)] & C_DIGIT)
#define IS_SPACE(c) (ascii_class[(c)] & C_SPACE)
#define IS_NEWLINE(c) (ascii_class[(c)] & C_NEWLINE)
#define IS_OTHER(c) (ascii_class[(c)] == C_OTHER) /* [^\s\p{L}\p{N}] */
#define LOWER(c) ((c) | 0x20)

/* Whitespace from i: the run's end, and the end of its last newline (or -1). */
static inline ptrdiff_t
space_run(const unsigned char *s, ptrdiff_t i, ptrdiff_t n, ptrdiff_t *after_newline)
{
    ptrdiff_t j = i, nl = -1;
    while (j < n && IS_SPACE(s[j])) {
        if (IS_NEWLINE(s[j]))
            nl = j + 1;
        j++;
    }
    *after_newline = nl;
    return j;
}

static ptrdiff_t
piece_end_cl100k(const unsigned char *s, ptrdiff_t i, ptrdiff_t n)
{
    unsigned char c = s[i];
    ptrdiff_t j;
    /* '(?i:[sdmt]|ll|ve|re) */
    if (c == '\'' && i + 1 < n) {
        unsigned char d = LOWER(s[i + 1]);
        if (d == 's' || d == 'd' || d == 'm' || d == 't')
            return i + 2;
        if (i + 2 < n) {
            unsigned char e = LOWER(s[i + 2]);
            if ((d == 'l' && e == 'l') || (d == 'v' && e == 'e') || (d == 'r' && e == 'e'))
                return i + 3;
        }
    }
    /* [^\r\n\p{L}\p{N}]?+\p{L}++ */
    j = i;
    if (!IS_LETTER(c) && !IS_DIGIT(c) && !IS_NEWLINE(c))
        j = i + 1;
    if (j < n && IS_LETTER(s[j])) {
        j++;
        while (j < n && IS_LETTER(s[j]))
            j++;
        return j;
    }
    /* \p{N}{1,3}+ */
    if (IS_DIGIT(c)) {
        j = i + 1;
        while (j < n && j < i + 3 && IS_DIGIT(s[j]))
            j++;
        return j;
    }
    /*  ?[^\s\p{L}\p{N}]++[\r\n]*+  (the space is given back if no such character follows,
       and the space itself is no such character, so the alternative then fails) */
    j = (c == ' ' && i + 1 < n) ? i + 1 : i;
    if (IS_OTHER(s[j])) {
        j++;
        while (j < n && IS_OTHER(s[j]))
            j++;
        while (j < n && IS_NEWLINE(s[j]))
            j++;
        return j;
    }
    /* c is whitespace from here on */
    ptrdiff_t nl, r = space_run(s, i, n, &nl);
    if (r == n) /* \s++$ */
        return n;
    if (nl >= 0) /* \s*[\r\n] */
        return nl;
    if (r - i >= 2) /* \s+(?!\S) */
        return r - 1;
    return i + 1; /* \s */
}

static ptrdiff_t
piece_end_o200k(const unsigned char *s, ptrdiff_t i, ptrdiff_t n)
{
    unsigned char c = s[i];
    ptrdiff_t j;
    /* The two word alternatives, on ASCII:
       [^\r\nA-Za-z0-9]?+(?=[A-Za-z])[A-Z]*+[a-z]*+(?i:'s|'t|'re|'ve|'m|'ll|'d)? */
    j = i;
    if (!IS_LETTER(c) && !IS_DIGIT(c) && !IS_NEWLINE(c))
        j = i + 1;
    if (j < n && IS_LETTER(s[j])) {
        while (j < n && ascii_class[s[j]] == C_UPPER)
            j++;
        while (j < n && ascii_class[s[j]] == C_LOWER)
            j++;
        if (j + 1 < n && s[j] == '\'') {
            unsigned char d = LOWER(s[j + 1]);
            if (d == 's' || d == 't' || d == 'm' || d == 'd')
                return j + 2;
            if (j + 2 < n) {
                unsigned char e = LOWER(s[j + 2]);
                if ((d == 'r' && e == 'e') || (d == 'v' && e == 'e') || (d == 'l' && e == 'l'))
                    return j + 3;
            }
        }
        return j;
    }
    /*  ?[^\s\p{L}\p{N}]+[\r\n/]*  (a space not followed by such a character is itself
       whitespace, so giving it back cannot help) */
    j = (c == ' ' && i + 1 < n) ? i + 1 : i;
    if (IS_OTHER(s[j])) {
        j++;
        while (j < n && IS_OTHER(s[j]))
            j++;
        while (j < n && (IS_NEWLINE(s[j]) || s[j] == '/'))
            j++;
        return j;
    }
    if (IS_DIGIT(c)) { /* \p{N}{1,3}: digits start no other alternative */
        j = i + 1;
        while (j < n && j < i + 3 && IS_DIGIT(s[j]))
            j++;
        return j;
    }
    /* c is whitespace from here on */
    ptrdiff_t nl, r = space_run(s, i, n, &nl);
    if (nl >= 0) /* \s*[\r\n]+ */
        return nl;
    if (r == n) /* \s+(?!\S) at the end */
        return n;
    if (r - i >= 2) /* \s+(?!\S) */
        return r - 1;
    return i + 1; /* \s+, one character */
}

static inline ptrdiff_t
piece_end(int kind, const unsigned char *s, ptrdiff_t i, ptrdiff_t n)
{
    return kind == SPLIT_O200K ? piece_end_o200k(s, i, n) : piece_end_cl100k(s, i, n);
}

#endif
