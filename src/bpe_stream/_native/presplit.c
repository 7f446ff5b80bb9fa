/* The pre-split of every member of the pre-tokenizer family, over all of Unicode, as
one compiled scanner; and counting / encoding text with it.

Invariant: the pieces presplit(text, spec) returns are exactly those of the member's
reference regex (pretokenize/family.py: PreTokenizer.split, the regex module with the
reference engines' Unicode classes), for the member whose choices spec encodes
(family.native_spec: contractions, letter run, lead, digits, punctuation run and tail,
whitespace rules, chain).  The scanner reads UTF-8; each branch below is one
alternative of the pattern, tried in the pattern's order, with its backtracking worked
out by hand (the cased words of o200k/Tekken: see cased_word).  Characters are classed
by unicode_classes.h, generated from the same reference classes
(tools/gen_presplit_tables.py).  Chained members (StarCoder: each \p{N} apart;
DeepSeek-V3: \p{N}{1,3}, then CJK runs, then its main regex) split the text into
segments first, each segment then being a whole text to the main pattern; text the main
pattern does not match stays a piece (HF's isolated Split).  No alternative looks left
of its start, so a piece depends only on the text from its start to the segment's end.
tests/test_presplit_native.py compares every member with the regex on the corpora, on
hypothesis text over every class, and on every code point in short contexts.

Complexity: O(piece) per piece but for a cased word, whose backtracking looks back over
its upper-case run once (still O(text) over the whole text: the next piece starts
after it).  Counting and encoding run without the GIL; a piece the compiled BPE does
not take (a byte that is no token, a whole piece that is a token BPE cannot build and
the compiled tables leave out) goes to a Python fallback with the GIL.
*/
#include "core.h"
#include "unicode_classes.h"
#include "piece_cache.h"

#include <stddef.h>
#include <stdlib.h>

/* The choices of a member, unpacked from spec (family.native_spec packs them). */
enum { CON_NONE = 0, CON_CASE = 1, CON_NOCASE = 2, CON_SUFFIX = 3 };
enum { LET_L = 0, LET_LM = 1, LET_CASED = 2 };
enum { DIG_RUN = 0, DIG_1_3 = 1, DIG_ONE = 2 };
enum { TAIL_NONE = 0, TAIL_NL = 1, TAIL_NL_SLASH = 2 };
enum { CHAIN_NONE = 0, CHAIN_DIGIT = 1, CHAIN_DEEPSEEK = 2 };

typedef struct {
    int contractions, letters, lead_nonletter, digits, digit_lead, punct_marks, punct_tail;
    int ws_newlines, end_ws_whole, chain, deepseek_main;
} Spec;

#define SPEC_BITS 16

/* The fields of spec v (checked by unpack_spec, or earlier: no Python API here). */
static void
unpack_spec_unchecked(long v, Spec *p)
{
    p->contractions = (int)(v & 3);
    p->letters = (int)((v >> 2) & 3);
    p->lead_nonletter = (int)((v >> 4) & 1);
    p->digits = (int)((v >> 5) & 3);
    p->digit_lead = (int)((v >> 7) & 1);
    p->punct_marks = (int)((v >> 8) & 1);
    p->punct_tail = (int)((v >> 9) & 3);
    p->ws_newlines = (int)((v >> 11) & 1);
    p->end_ws_whole = (int)((v >> 12) & 1);
    p->chain = (int)((v >> 13) & 3);
    p->deepseek_main = (int)((v >> 15) & 1);
}

static int
unpack_spec(long v, Spec *p)
{
    if (v < 0 || v >= (1L << SPEC_BITS))
        goto bad;
    unpack_spec_unchecked(v, p);
    if (p->letters > LET_CASED || p->digits > DIG_ONE || p->punct_tail > TAIL_NL_SLASH || p->chain > CHAIN_DEEPSEEK)
        goto bad;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "invalid pre-split spec");
    return -1;
}

/* ------------------------------------------------------------ characters */

/* The code point at s[i] (valid UTF-8) and its length in bytes. */
static inline uint32_t
u8_at(const uint8_t *s, ptrdiff_t i, int *len)
{
    uint8_t b = s[i];
    if (b < 0x80) {
        *len = 1;
        return b;
    }
    if (b < 0xE0) {
        *len = 2;
        return ((uint32_t)(b & 0x1F) << 6) | (s[i + 1] & 0x3F);
    }
    if (b < 0xF0) {
        *len = 3;
        return ((uint32_t)(b & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
    }
    *len = 4;
    return ((uint32_t)(b & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) | ((uint32_t)(s[i + 2] & 0x3F) << 6) |
           (s[i + 3] & 0x3F);
}

/* The class flags of the character at s[i] and its length. */
static inline uint8_t
fl_at(const uint8_t *s, ptrdiff_t i, int *len)
{
    uint8_t b = s[i];
    if (b < 0x80) {
        *len = 1;
        return presplit_stage2[b]; /* block 0 holds code points 0-255 */
    }
    return presplit_flags(u8_at(s, i, len));
}

static inline ptrdiff_t
prev_start(const uint8_t *s, ptrdiff_t q)
{
    do
        q--;
    while ((s[q] & 0xC0) == 0x80);
    return q;
}

#define IS_NL(b) ((b) == '\r' || (b) == '\n')
#define LM (PF_L | PF_M)

/* The end of the run of characters with a flag in mask from i (i itself included). */
static inline ptrdiff_t
run_of(const uint8_t *s, ptrdiff_t i, ptrdiff_t n, uint8_t mask)
{
    int len;
    while (i < n && (fl_at(s, i, &len) & mask))
        i += len;
    return i;
}

/* One character of a contraction compared without case: the reference engines' simple
   case folding (U+017F LONG S folds to s; no other letter of the contractions has a
   non-ASCII fold). */
static inline uint32_t
fold(uint32_t c)
{
    if (c >= 'A' && c <= 'Z')
        return c + 32;
    return c == 0x17F ? 's' : c;
}

/* s t m d | re ve ll after an apostrophe, from a: the end, or -1. */
static ptrdiff_t
contraction_end(const uint8_t *s, ptrdiff_t a, ptrdiff_t n, int nocase)
{
    int l1, l2;
    if (a >= n)
        return -1;
    uint32_t c1 = u8_at(s, a, &l1);
    if (nocase)
        c1 = fold(c1);
    if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd')
        return a + l1;
    if (a + l1 >= n || !(c1 == 'r' || c1 == 'v' || c1 == 'l'))
        return -1;
    uint32_t c2 = u8_at(s, a + l1, &l2);
    if (nocase)
        c2 = fold(c2);
    if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l'))
        return a + l1 + l2;
    return -1;
}

/* o200k's  U* W+  from p (U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]):
   U* takes its whole run, then gives back one character at a time until W+ can start;
   W+ then runs to the end of W.  If the character after the U run is in W, that is
   where W+ starts; else at the last character of the U run in W, whose W run ends right
   after it (the characters after it in the run are not in W).  -1 if none is. */
static ptrdiff_t
upper_lower(const uint8_t *s, ptrdiff_t p, ptrdiff_t n)
{
    int len;
    if (p >= n)
        return -1;
    ptrdiff_t u = run_of(s, p, n, PF_UP);
    if (u < n && (fl_at(s, u, &len) & PF_LO))
        return run_of(s, u, n, PF_LO);
    for (ptrdiff_t q = u; q > p;) {
        q = prev_start(s, q);
        if (fl_at(s, q, &len) & PF_LO)
            return q + len;
    }
    return -1;
}

/* o200k's  U+ W*  from p, or -1. */
static ptrdiff_t
upper_then_lower(const uint8_t *s, ptrdiff_t p, ptrdiff_t n)
{
    int len;
    if (p >= n || !(fl_at(s, p, &len) & PF_UP))
        return -1;
    return run_of(s, run_of(s, p, n, PF_UP), n, PF_LO);
}

/* The letter alternative(s) at i: the end, or -1.  lead: whether s[i] may be the
   optional lead character (then it is tried first: the quantifier is greedy). */
static ptrdiff_t
letters_end(const Spec *p, const uint8_t *s, ptrdiff_t i, ptrdiff_t n, uint8_t f0, ptrdiff_t i1, int lead)
{
    ptrdiff_t e = -1;
    int len;
    if (p->letters == LET_CASED) {
        /* lead? U* W+ suffix? | lead? U+ W* suffix?  (each alternative with the lead
           first, then without) */
        if (lead)
            e = upper_lower(s, i1, n);
        if (e < 0)
            e = upper_lower(s, i, n);
        if (e < 0 && lead)
            e = upper_then_lower(s, i1, n);
        if (e < 0)
            e = upper_then_lower(s, i, n);
    } else {
        uint8_t run = p->letters == LET_L ? PF_L : LM;
        if (lead && i1 < n && (fl_at(s, i1, &len) & run))
            e = run_of(s, i1, n, run);
        else if (f0 & run)
            e = run_of(s, i, n, run);
    }
    if (e >= 0 && p->contractions == CON_SUFFIX && e < n && s[e] == '\'') {
        ptrdiff_t c = contraction_end(s, e + 1, n, 1);
        if (c > 0)
            e = c;
    }
    return e;
}

/* Whitespace from i (s[i] is \s): the rules \s++$ (end_whole), \s*[\r\n]+ (newlines),
   \s+(?!\S), \s+. */
static ptrdiff_t
space_end(const uint8_t *s, ptrdiff_t i, ptrdiff_t n, int newlines, int end_whole)
{
    ptrdiff_t r = i, last = i, after_nl = -1;
    int len;
    while (r < n && (fl_at(s, r, &len) & PF_WS)) {
        if (IS_NL(s[r]))
            after_nl = r + 1;
        last = r;
        r += len;
    }
    if (end_whole && r == n)
        return n;
    if (newlines && after_nl >= 0)
        return after_nl;
    if (r == n)
        return n;
    return last > i ? last : r;
}

/* The family's main pattern at i (regex_from_choices): the end of the piece. */
static ptrdiff_t
family_end(const Spec *p, const uint8_t *s, ptrdiff_t i, ptrdiff_t n)
{
    int l0, len;
    uint8_t b0 = s[i];
    uint8_t f0 = fl_at(s, i, &l0);
    ptrdiff_t i1 = i + l0, e;
    if ((p->contractions == CON_CASE || p->contractions == CON_NOCASE) && b0 == '\'') {
        e = contraction_end(s, i1, n, p->contractions == CON_NOCASE);
        if (e > 0)
            return e;
    }
    int lead = p->lead_nonletter ? !(f0 & (PF_L | PF_N)) && !IS_NL(b0) : b0 == ' ';
    e = letters_end(p, s, i, n, f0, i1, lead);
    if (e >= 0)
        return e;
    ptrdiff_t d = -1;
    if (f0 & PF_N)
        d = i;
    else if (p->digit_lead && b0 == ' ' && i1 < n && (fl_at(s, i1, &len) & PF_N))
        d = i1;
    if (d >= 0) {
        int dl;
        fl_at(s, d, &dl);
        if (p->digits == DIG_ONE)
            return d + dl;
        if (p->digits == DIG_RUN)
            return run_of(s, d, n, PF_N);
        e = d + dl;
        for (int k = 1; k < 3 && e < n && (fl_at(s, e, &len) & PF_N); k++)
            e += len;
        return e;
    }
    /*  ?[^\s\p{L}\p{N}]+ (marks too unless punct_marks is off), then the tail */
    uint8_t not_punct = PF_WS | PF_L | PF_N | (p->punct_marks ? 0 : PF_M);
    ptrdiff_t start = -1;
    if (b0 == ' ' && i1 < n && !(fl_at(s, i1, &len) & not_punct))
        start = i1;
    else if (!(f0 & not_punct))
        start = i;
    if (start >= 0) {
        e = start;
        while (e < n && !(fl_at(s, e, &len) & not_punct))
            e += len;
        if (p->punct_tail != TAIL_NONE)
            while (e < n && (IS_NL(s[e]) || (p->punct_tail == TAIL_NL_SLASH && s[e] == '/')))
                e++;
        return e;
    }
    if (f0 & PF_WS)
        return space_end(s, i, n, p->ws_newlines, p->end_ws_whole);
    return i1; /* no character reaches here: each is a letter, digit, space or punctuation */
}

#define ASCII_PUNCT(b) (((b) >= 0x21 && (b) <= 0x2F) || ((b) >= 0x3A && (b) <= 0x40) || \
                        ((b) >= 0x5B && (b) <= 0x60) || ((b) >= 0x7B && (b) <= 0x7E))
#define ASCII_LETTER(b) ((((b) | 0x20) >= 'a') && (((b) | 0x20) <= 'z'))

/* DeepSeek-V3's main pattern at i: the end of the match, or -1 (no match starts here):
   [ASCII punctuation][A-Za-z]+ | [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+ | ?[\p{P}\p{S}]+[\r\n]*
   | \s*[\r\n]+ | \s+(?!\S) | \s+ */
static ptrdiff_t
deepseek_end(const uint8_t *s, ptrdiff_t i, ptrdiff_t n)
{
    int l0, len;
    uint8_t b0 = s[i];
    uint8_t f0 = fl_at(s, i, &l0);
    ptrdiff_t i1 = i + l0, e;
    if (ASCII_PUNCT(b0) && i1 < n && ASCII_LETTER(s[i1])) {
        e = i1 + 1;
        while (e < n && ASCII_LETTER(s[e]))
            e++;
        return e;
    }
    int lead = !(f0 & (PF_L | PF_PS)) && !IS_NL(b0);
    if (lead && i1 < n && (fl_at(s, i1, &len) & LM))
        return run_of(s, i1, n, LM);
    if (f0 & LM)
        return run_of(s, i, n, LM);
    ptrdiff_t start = -1;
    if (b0 == ' ' && i1 < n && (fl_at(s, i1, &len) & PF_PS))
        start = i1;
    else if (f0 & PF_PS)
        start = i;
    if (start >= 0) {
        e = run_of(s, start, n, PF_PS);
        while (e < n && IS_NL(s[e]))
            e++;
        return e;
    }
    if (f0 & PF_WS)
        return space_end(s, i, n, 1, 0);
    return -1;
}

/* ------------------------------------------------------------ the piece iterator */

/* How many pieces scan_pieces reads ahead of the one it encodes: each prepared piece's
   cache entry (4 MB of table: mostly outside the L2 cache) loads meanwhile, and one piece
   of work is too short to hide that load. */
#define SCAN_AHEAD 8

typedef struct {
    Spec spec;
    const uint8_t *s;
    ptrdiff_t n;
    ptrdiff_t i;        /* the next piece starts here */
    ptrdiff_t seg_end;  /* the end of the current segment (a whole text to the main pattern) */
    ptrdiff_t ahead_at; /* a match of the main pattern found ahead: at ahead_at, */
    ptrdiff_t ahead_end;/* ending at ahead_end (ahead_at -1: none) */
    /* pieces read and given back (scan_pieces reads ahead): s[back_a[k]:back_b[k]] for
       k = back_at .. back_n - 1 come next, in that order */
    ptrdiff_t back_a[SCAN_AHEAD], back_b[SCAN_AHEAD];
    int back_at, back_n;
} Scan;

static void
scan_init(Scan *sc, const Spec *spec, const uint8_t *s, ptrdiff_t n)
{
    sc->spec = *spec;
    sc->s = s;
    sc->n = n;
    sc->i = 0;
    sc->seg_end = spec->chain == CHAIN_NONE ? n : 0;
    sc->ahead_at = -1;
    sc->ahead_end = -1;
    sc->back_at = sc->back_n = 0;
}

/* The segment of a chained member starting at i: its end. */
static ptrdiff_t
segment_end(const Spec *p, const uint8_t *s, ptrdiff_t i, ptrdiff_t n)
{
    int len;
    uint8_t f = fl_at(s, i, &len);
    ptrdiff_t e = i + len;
    if (f & PF_N) {
        if (p->chain == CHAIN_DIGIT)
            return e;
        for (int k = 1; k < 3 && e < n && (fl_at(s, e, &len) & PF_N); k++)
            e += len;
        return e;
    }
    uint8_t stop = PF_N;
    if (p->chain == CHAIN_DEEPSEEK) {
        if (f & PF_CJK)
            return run_of(s, e, n, PF_CJK);
        stop |= PF_CJK;
    }
    while (e < n && !(fl_at(s, e, &len) & stop))
        e += len;
    return e;
}

static inline ptrdiff_t
main_end(const Scan *sc, ptrdiff_t i, ptrdiff_t n)
{
    return sc->spec.deepseek_main ? deepseek_end(sc->s, i, n) : family_end(&sc->spec, sc->s, i, n);
}

/* The next piece: 1 with *a, *b set, 0 at the end of the text. */
static inline int
next_piece(Scan *sc, ptrdiff_t *a, ptrdiff_t *b)
{
    ptrdiff_t i = sc->i, n = sc->seg_end, e;
    if (sc->back_at < sc->back_n) {
        *a = sc->back_a[sc->back_at];
        *b = sc->back_b[sc->back_at];
        if (++sc->back_at == sc->back_n)
            sc->back_at = sc->back_n = 0;
        return 1;
    }
    if (i >= sc->n)
        return 0;
    if (i >= n)
        n = sc->seg_end = segment_end(&sc->spec, sc->s, i, sc->n);
    if (sc->ahead_at == i) {
        e = sc->ahead_end;
        sc->ahead_at = -1;
    } else {
        e = main_end(sc, i, n);
    }
    if (e < 0) {
        /* text no match starts in stays one piece, up to the next match */
        int len;
        fl_at(sc->s, i, &len);
        e = i + len;
        while (e < n) {
            ptrdiff_t m = main_end(sc, e, n);
            if (m >= 0) {
                sc->ahead_at = e;
                sc->ahead_end = m;
                break;
            }
            fl_at(sc->s, e, &len);
            e += len;
        }
    }
    *a = i;
    *b = e;
    sc->i = e;
    return 1;
}

/* ------------------------------------------------------------ text as UTF-8 */

/* The UTF-8 of a str's characters (kind, data, len) into out (room for 4 bytes a
character): its length, or -1 for a lone surrogate.  Reads no Python object but the
str's data, so it runs without the GIL (a str never changes). */
Py_ssize_t
presplit_utf8(int kind, const void *data, Py_ssize_t len, uint8_t *out)
{
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (c < 0x80) {
            out[at++] = (uint8_t)c;
        } else if (c < 0x800) {
            out[at++] = (uint8_t)(0xC0 | (c >> 6));
            out[at++] = (uint8_t)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF)
                return -1;
            out[at++] = (uint8_t)(0xE0 | (c >> 12));
            out[at++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            out[at++] = (uint8_t)(0x80 | (c & 0x3F));
        } else {
            out[at++] = (uint8_t)(0xF0 | (c >> 18));
            out[at++] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            out[at++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            out[at++] = (uint8_t)(0x80 | (c & 0x3F));
        }
    }
    return at;
}

/* The UTF-8 bytes of text (no surrogates: the API replaces lone ones first): the str's
   own data when it is ASCII, else a copy in *buffer (PyMem_RawFree).  NULL with an
   exception on a surrogate or no memory. */
static const uint8_t *
utf8_text(PyObject *text, Py_ssize_t *n, uint8_t **buffer)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    *buffer = NULL;
    if (PyUnicode_IS_ASCII(text)) {
        *n = len;
        return (const uint8_t *)PyUnicode_DATA(text);
    }
    int kind = PyUnicode_KIND(text);
    size_t cap = (size_t)len * (kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4) + 1;
    uint8_t *out = PyMem_RawMalloc(cap);
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t at = presplit_utf8(kind, PyUnicode_DATA(text), len, out);
    if (at < 0) {
        PyMem_RawFree(out);
        PyErr_SetString(PyExc_ValueError, "the text holds a lone surrogate");
        return NULL;
    }
    *buffer = out;
    *n = at;
    return out;
}

/* The arguments (text, spec) of presplit and presplit_count, opened: the text, its scan
   and the UTF-8 copy the scan reads (if the text is not ASCII; PyMem_RawFree). */
typedef struct {
    PyObject *text;
    Scan sc;
    uint8_t *buffer;
} OpenScan;

/* 0, or -1 with an exception. */
static int
open_scan(PyObject *args, OpenScan *o)
{
    long spec_value;
    Spec spec;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "Ul", &o->text, &spec_value) || unpack_spec(spec_value, &spec) < 0)
        return -1;
    const uint8_t *s = utf8_text(o->text, &n, &o->buffer);
    if (s == NULL)
        return -1;
    scan_init(&o->sc, &spec, s, n);
    return 0;
}

/* ------------------------------------------------------------ presplit (module function) */

static PyObject *
presplit(PyObject *module, PyObject *args)
{
    OpenScan o;
    (void)module;
    if (open_scan(args, &o) < 0)
        return NULL;
    const uint8_t *s = o.sc.s;
    PyObject *out = PyList_New(0);
    ptrdiff_t a, b;
    Py_ssize_t chars = 0; /* the character index of a */
    while (out != NULL && next_piece(&o.sc, &a, &b)) {
        Py_ssize_t k = 0;
        if (o.buffer == NULL) {
            k = b - a;
        } else {
            for (ptrdiff_t q = a; q < b; q++)
                k += (s[q] & 0xC0) != 0x80;
        }
        PyObject *piece = PyUnicode_Substring(o.text, chars, chars + k);
        chars += k;
        if (piece == NULL || PyList_Append(out, piece) < 0)
            Py_CLEAR(out);
        Py_XDECREF(piece);
    }
    PyMem_RawFree(o.buffer);
    return out;
}

static PyObject *
presplit_count(PyObject *module, PyObject *args)
{
    OpenScan o;
    (void)module;
    if (open_scan(args, &o) < 0)
        return NULL;
    Py_ssize_t pieces = 0;
    ptrdiff_t a, b;
    Py_BEGIN_ALLOW_THREADS
    while (next_piece(&o.sc, &a, &b))
        pieces++;
    Py_END_ALLOW_THREADS
    PyMem_RawFree(o.buffer);
    return PyLong_FromSsize_t(pieces);
}

/* ------------------------------------------------------------ counting and encoding */

/* Tokens the compiled tables leave out (BPE cannot build them) but a whole piece equal
   to one becomes (tiktoken's and HF's ignore_merges rule): such a piece goes to the
   fallback.  The set is built once per encoding (whole_set, a capsule): the tokens'
   bytes, a filter on (length, first byte) that most pieces fail, and open addressing
   over the tokens' hashes. */
#define WHOLE_CAPSULE "bpe_stream.whole_set"

typedef struct {
    Py_ssize_t k;
    uint8_t *blob;
    Py_ssize_t *off;      /* token j is blob[off[j] : off[j + 1]] */
    int32_t *slot;        /* token index or -1; mask + 1 entries */
    size_t mask;
    uint64_t filter[64 * 4]; /* bit (min(len, 63), first byte) */
} WholeSet;

static void
whole_set_free(PyObject *capsule)
{
    WholeSet *w = PyCapsule_GetPointer(capsule, WHOLE_CAPSULE);
    if (w == NULL)
        return;
    PyMem_Free(w->blob);
    PyMem_Free(w->off);
    PyMem_Free(w->slot);
    PyMem_Free(w);
}

static inline uint64_t
whole_hash(const uint8_t *p, Py_ssize_t n)
{
    return hash_end(hash_feed(hash_start(n), p, n));
}

static PyObject *
whole_set(PyObject *module, PyObject *tokens)
{
    (void)module;
    PyObject *seq = PySequence_Fast(tokens, "whole_set takes a sequence of bytes");
    if (seq == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq), total = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, j);
        if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) == 0) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "whole_set takes a sequence of non-empty bytes");
            return NULL;
        }
        total += PyBytes_GET_SIZE(o);
    }
    WholeSet *w = PyMem_Calloc(1, sizeof(WholeSet));
    size_t size = 16;
    while (size < (size_t)k * 2)
        size *= 2;
    if (w != NULL) {
        w->k = k;
        w->blob = PyMem_Malloc((size_t)total + 1);
        w->off = PyMem_Malloc((size_t)(k + 1) * sizeof(Py_ssize_t));
        w->slot = PyMem_Malloc(size * sizeof(int32_t));
        w->mask = size - 1;
    }
    if (w == NULL || w->blob == NULL || w->off == NULL || w->slot == NULL) {
        if (w != NULL) {
            PyMem_Free(w->blob);
            PyMem_Free(w->off);
            PyMem_Free(w->slot);
            PyMem_Free(w);
        }
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    memset(w->slot, 0xFF, size * sizeof(int32_t));
    Py_ssize_t at = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, j);
        Py_ssize_t n = PyBytes_GET_SIZE(o);
        const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(o);
        memcpy(w->blob + at, p, (size_t)n);
        w->off[j] = at;
        at += n;
        size_t f = (size_t)(n < 63 ? n : 63) * 256 + p[0];
        w->filter[f >> 6] |= 1ULL << (f & 63);
        size_t i = (size_t)whole_hash(p, n) & w->mask;
        while (w->slot[i] >= 0)
            i = (i + 1) & w->mask;
        w->slot[i] = (int32_t)j;
    }
    w->off[k] = at;
    Py_DECREF(seq);
    PyObject *capsule = PyCapsule_New(w, WHOLE_CAPSULE, whole_set_free);
    if (capsule == NULL) {
        PyMem_Free(w->blob);
        PyMem_Free(w->off);
        PyMem_Free(w->slot);
        PyMem_Free(w);
    }
    return capsule;
}

static inline int
is_whole(const WholeSet *w, const uint8_t *a, Py_ssize_t n)
{
    if (w == NULL)
        return 0;
    size_t f = (size_t)(n < 63 ? n : 63) * 256 + a[0];
    if (!((w->filter[f >> 6] >> (f & 63)) & 1))
        return 0;
    for (size_t i = (size_t)whole_hash(a, n) & w->mask; w->slot[i] >= 0; i = (i + 1) & w->mask) {
        int32_t j = w->slot[i];
        if (w->off[j + 1] - w->off[j] == n && memcmp(w->blob + w->off[j], a, (size_t)n) == 0)
            return 1;
    }
    return 0;
}

/* The pieces of sc from where it stands, BPE'd without the Python API (so without the
   GIL if the caller released it): the counts added to *total and, with toks, the tokens
   appended at toks[*k] (mapped through id_of when it is not NULL).  Stops before a
   piece the compiled path does not take (a whole-piece token, or encode_any's -1: a
   byte that is no token), which is then s[*a:*b], or out of memory.  Returns 0 at the
   end of the text, 1 at such a piece, -2 out of memory.  Short pieces go through cache
   (the Core's piece cache, or NULL). */
static int
scan_pieces(const Core *c, Scan *sc, const WholeSet *whole, int32_t *toks, const int32_t *id_of,
            Py_ssize_t n_ids, Py_ssize_t *k, Py_ssize_t *total, ptrdiff_t *a, ptrdiff_t *b, PieceCache *cache)
{
    const uint8_t *s = sc->s, *end = sc->s + sc->n;
    /* up to SCAN_AHEAD pieces read ahead, a ring (slots head .. head + queued - 1): their
       cache entries load while the first is encoded.  The first fill takes every piece
       given back before (at most SCAN_AHEAD - 1), so none is left there while the loop
       runs, and the loop gives back the ones it holds where it stops early. */
    ptrdiff_t ra[SCAN_AHEAD], rb[SCAN_AHEAD];
    PieceKey keys[SCAN_AHEAD];
    int head = 0, queued = 0;
    while (queued < SCAN_AHEAD && next_piece(sc, &ra[queued], &rb[queued])) {
        pc_prepare_for(cache, s + ra[queued], rb[queued] - ra[queued], end, toks != NULL, &keys[queued]);
        queued++;
    }
    while (queued > 0) {
        *a = ra[head];
        *b = rb[head];
        Py_ssize_t m = is_whole(whole, s + *a, *b - *a) ? -1
                       : cached_piece_at(&keys[head], c, s + *a, *b - *a, toks ? toks + *k : NULL);
        if (m < 0) {
            sc->back_at = 0;
            sc->back_n = queued - 1;
            for (int q = 1; q < queued; q++) {
                sc->back_a[q - 1] = ra[(head + q) % SCAN_AHEAD];
                sc->back_b[q - 1] = rb[(head + q) % SCAN_AHEAD];
            }
            return m == -2 ? -2 : 1;
        }
        if (toks != NULL) {
            if (id_of != NULL) {
                for (Py_ssize_t q = *k; q < *k + m; q++)
                    toks[q] = toks[q] < n_ids ? id_of[toks[q]] : -1;
            }
            *k += m;
        }
        *total += m;
        head = (head + 1) % SCAN_AHEAD;
        queued--;
        int slot = (head + queued) % SCAN_AHEAD; /* the slot just freed */
        if (next_piece(sc, &ra[slot], &rb[slot])) {
            pc_prepare_for(cache, s + ra[slot], rb[slot] - ra[slot], end, toks != NULL, &keys[slot]);
            queued++;
        }
    }
    return 0;
}

int
presplit_spec_ok(long spec_value)
{
    Spec spec;
    return unpack_spec(spec_value, &spec) < 0 ? 0 : 1;
}

int
presplit_whole_of(PyObject *capsule, const void **whole)
{
    *whole = capsule == Py_None ? NULL : PyCapsule_GetPointer(capsule, WHOLE_CAPSULE);
    return capsule != Py_None && *whole == NULL ? -1 : 0;
}

int
presplit_is_whole(const void *whole, const uint8_t *a, Py_ssize_t n)
{
    return n > 0 && is_whole((const WholeSet *)whole, a, n);
}

Py_ssize_t
presplit_encode(const Core *c, long spec_value, const void *whole, const uint8_t *s, Py_ssize_t n,
                int32_t *out, const int32_t *id_of, Py_ssize_t n_ids, PieceCache *cache)
{
    Spec spec;
    Scan sc;
    Py_ssize_t k = 0, total = 0;
    ptrdiff_t a, b;
    unpack_spec_unchecked(spec_value, &spec);
    scan_init(&sc, &spec, s, n);
    int stop = scan_pieces(c, &sc, (const WholeSet *)whole, out, id_of, n_ids, &k, &total, &a, &b, cache);
    return stop == 0 ? total : stop == 1 ? -1 : -2;
}

/* For chunk_counted_cuts.c: the ends of the first pieces of s[0:n] (byte offsets), at
   most max of them, into ends; their number. */
Py_ssize_t
presplit_piece_ends(long spec_value, const uint8_t *s, Py_ssize_t n, Py_ssize_t *ends, Py_ssize_t max)
{
    Spec spec;
    Scan sc;
    ptrdiff_t a, b;
    Py_ssize_t k = 0;
    unpack_spec_unchecked(spec_value, &spec);
    scan_init(&sc, &spec, s, n);
    while (k < max && next_piece(&sc, &a, &b))
        ends[k++] = b;
    return k;
}

/* Release the GIL for texts of at least this many bytes. */
#define NOGIL_TEXT 512

/* count_text (encode 0) and encode_text (encode 1). */
static PyObject *
scan_text(Core *self, PyObject *args, int encode)
{
    PyObject *text, *fallback, *whole_arg = Py_None, *ids_arg = Py_None;
    long spec_value;
    Spec spec;
    if (!PyArg_ParseTuple(args, "UlO|OO", &text, &spec_value, &fallback, &whole_arg, &ids_arg) ||
        unpack_spec(spec_value, &spec) < 0)
        return NULL;
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "needs a callable fallback");
        return NULL;
    }
    Py_buffer ids = {0};
    const int32_t *id_of;
    Py_ssize_t n_ids;
    if (ids_of_arg(ids_arg, &ids, &id_of, &n_ids) < 0)
        return NULL;
    const WholeSet *whole = NULL;
    if (whole_arg != Py_None && (whole = PyCapsule_GetPointer(whole_arg, WHOLE_CAPSULE)) == NULL) {
        if (ids_arg != Py_None)
            PyBuffer_Release(&ids);
        return NULL;
    }
    Py_ssize_t n, total = 0, k = 0;
    uint8_t *buffer;
    const uint8_t *s = utf8_text(text, &n, &buffer);
    int32_t *toks = NULL;
    PyObject *result = NULL;
    if (s == NULL)
        goto done;
    if (encode && (toks = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Scan sc;
    scan_init(&sc, &spec, s, n);
    PieceCache *cache = core_piece_cache(self);
    ptrdiff_t a = 0, b = 0;
    for (;;) {
        PyThreadState *ts = n >= NOGIL_TEXT ? PyEval_SaveThread() : NULL;
        int stop = scan_pieces(self, &sc, whole, toks, id_of, n_ids, &k, &total, &a, &b, cache);
        if (ts != NULL)
            PyEval_RestoreThread(ts);
        if (stop == 0)
            break;
        if (stop == -2) {
            PyErr_NoMemory();
            goto done;
        }
        /* the Python path takes the piece s[a:b] */
        if (fallback_into(fallback, PyUnicode_DecodeUTF8((const char *)s + a, b - a, "strict"), b - a, toks, &k,
                          &total) < 0)
            goto done;
    }
    result = encode ? int_list(toks, k) : PyLong_FromSsize_t(total);
done:
    PyMem_RawFree(toks);
    PyMem_RawFree(buffer);
    if (ids_arg != Py_None)
        PyBuffer_Release(&ids);
    return result;
}

static PyObject *
Core_count_text(Core *self, PyObject *args)
{
    return scan_text(self, args, 0);
}

static PyObject *
Core_encode_text(Core *self, PyObject *args)
{
    return scan_text(self, args, 1);
}

/* ------------------------------------------------------------ prefix sums (chunk/counts.py TextCounts) */

/* prefix_sums(text, spec, fallback, whole=None) -> (bounds, cum): the piece starts of
   text (character offsets, as presplit splits it) plus len(text), and the token counts
   of the pieces before each of them (cum[0] == 0, cum[-1] == count_text(text)), as two
   array('q'): one scan, the pieces counted as count_text counts them (fallback(piece)
   -> count for the ones the compiled path does not take).  O(len(text)), without the
   GIL but for those fallback calls; arrays, not lists, because an int object per piece
   would cost as much as the scan.  The character offset of a byte position is kept
   by counting the bytes that start a character, as the scan goes. */
static PyObject *
Core_prefix_sums(Core *self, PyObject *args)
{
    PyObject *text, *fallback, *whole_arg = Py_None;
    long spec_value;
    Spec spec;
    if (!PyArg_ParseTuple(args, "UlO|O", &text, &spec_value, &fallback, &whole_arg) ||
        unpack_spec(spec_value, &spec) < 0)
        return NULL;
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "needs a callable fallback");
        return NULL;
    }
    const WholeSet *whole = NULL;
    if (whole_arg != Py_None && (whole = PyCapsule_GetPointer(whole_arg, WHOLE_CAPSULE)) == NULL)
        return NULL;
    Py_ssize_t n;
    uint8_t *buffer;
    const uint8_t *s = utf8_text(text, &n, &buffer);
    if (s == NULL)
        return NULL;
    PyObject *result = NULL, *bounds = NULL, *cum = NULL;
    /* at most one piece per byte, and one entry more: starts[k] and sums[k + 1] (the
       prefix count after piece k), sums[0] == 0 */
    int64_t *starts = PyMem_RawMalloc((size_t)(n + 2) * sizeof(int64_t));
    int64_t *sums = PyMem_RawMalloc((size_t)(n + 2) * sizeof(int64_t));
    if (starts == NULL || sums == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int ascii = buffer == NULL;
    sums[0] = 0;
    const uint8_t *end = s + n;
    PieceCache *cache = core_piece_cache(self);
    Scan sc;
    scan_init(&sc, &spec, s, n);
    Py_ssize_t pieces = 0, total = 0, chars = 0, at = 0; /* chars: the character offset of byte at */
    ptrdiff_t a = 0, b = 0;
    for (;;) {
        int stop = 0; /* 1: s[a:b] goes to the fallback, -2: no memory */
        PyThreadState *ts = n >= NOGIL_TEXT ? PyEval_SaveThread() : NULL;
        while (next_piece(&sc, &a, &b)) {
            if (ascii) {
                chars = a;
            } else {
                for (; at < a; at++)
                    chars += (s[at] & 0xC0) != 0x80;
            }
            starts[pieces] = chars;
            if (is_whole(whole, s + a, b - a)) {
                stop = 1;
                break;
            }
            Py_ssize_t m = cached_piece(cache, self, s + a, b - a, end, NULL);
            if (m < 0) {
                stop = m == -2 ? -2 : 1;
                break;
            }
            total += m;
            sums[++pieces] = total;
        }
        if (ts != NULL)
            PyEval_RestoreThread(ts);
        if (stop == 0)
            break;
        if (stop == -2) {
            PyErr_NoMemory();
            goto done;
        }
        if (fallback_into(fallback, PyUnicode_DecodeUTF8((const char *)s + a, b - a, "strict"), b - a, NULL, NULL,
                          &total) < 0)
            goto done;
        sums[++pieces] = total;
    }
    starts[pieces] = PyUnicode_GET_LENGTH(text);
    PyObject *array_module = PyImport_ImportModule("array");
    PyObject *array_type = array_module == NULL ? NULL : PyObject_GetAttrString(array_module, "array");
    Py_XDECREF(array_module);
    if (array_type == NULL)
        goto done;
    bounds = PyObject_CallFunction(array_type, "sy#", "q", (const char *)starts, (Py_ssize_t)((pieces + 1) * 8));
    cum = bounds == NULL ? NULL : PyObject_CallFunction(array_type, "sy#", "q", (const char *)sums,
                                                        (Py_ssize_t)((pieces + 1) * 8));
    Py_DECREF(array_type);
    if (cum != NULL)
        result = PyTuple_Pack(2, bounds, cum);
done:
    Py_XDECREF(bounds);
    Py_XDECREF(cum);
    PyMem_RawFree(starts);
    PyMem_RawFree(sums);
    PyMem_RawFree(buffer);
    return result;
}

PyMethodDef presplit_methods[] = {
    {"prefix_sums", (PyCFunction)Core_prefix_sums, METH_VARARGS,
     "prefix_sums(text, spec, fallback, whole=None) -> (bounds, cum)\n\n"
     "The piece starts of text as presplit(text, spec) splits it (character offsets) plus\n"
     "len(text), and the prefix token counts at them, the pieces counted as count_text does."},
    {"count_text", (PyCFunction)Core_count_text, METH_VARARGS,
     "count_text(text, spec, fallback, whole=None) -> int\n\n"
     "Token count of text pre-split as presplit(text, spec) does; a piece with a byte that\n"
     "is no token, or equal to a token of whole (whole_set(tokens)), is counted by fallback(piece)."},
    {"encode_text", (PyCFunction)Core_encode_text, METH_VARARGS,
     "encode_text(text, spec, fallback, whole=None, ids=None) -> list[int]\n\n"
     "Tokens of text pre-split as presplit(text, spec) does (ranks, or ids[rank] with ids an\n"
     "array('i')); the pieces count_text hands to fallback are encoded by fallback(piece),\n"
     "which returns ids."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef presplit_functions[] = {
    {"whole_set", (PyCFunction)whole_set, METH_O,
     "whole_set(tokens) -> capsule: the set of whole-piece tokens (bytes) for count_text and\n"
     "encode_text."},
    {"presplit_count", (PyCFunction)presplit_count, METH_VARARGS,
     "presplit_count(text, spec) -> int: len(presplit(text, spec)), without making the pieces\n"
     "(the scan alone, for the benchmarks and tests)."},
    {"presplit", (PyCFunction)presplit, METH_VARARGS,
     "presplit(text, spec) -> list[str]: the pre-split pieces of text for the family member\n"
     "whose choices spec encodes (bpe_stream.pretokenize.family.native_spec)."},
    {NULL, NULL, 0, NULL},
};

int
presplit_init(PyObject *module)
{
    return PyModule_AddFunctions(module, presplit_functions);
}
