/* Symbol runs: pieces of punctuation and symbols that chunk_cuts.c's exact_cuts treats as
it treats letter runs (emoji text: the pieces between its keycap digits).

Invariant.  symbol_run(kind, data, p, q, rule) is 1 only when every non-empty substring
of text[p:q] is one piece of the member's split on its own: then, as for a letter run,
a chunk start inside the piece leaves its rest one piece, every prefix of a straddling
piece after a hard boundary is one piece, and every suffix before one is (the three uses
in exact_cuts and its overlap_start), so each such count is the piece's whole-piece or
BPE count from one table pass instead of a recount of a slice.

Why.  Every character of text[p:q] is outside \s, \p{L} and \p{N} and is no \r or \n
(the class [^\s\p{L}\p{N}] of the members' punctuation alternative, `` ?[^\s\p{L}\p{N}]+``
with an optional [\r\n]* or [\r\n/]* tail).  A substring S of such characters has no
letter, digit or whitespace, so the alternatives before the punctuation one find nothing
at its start: the contractions need a letter after the apostrophe, the words need a
letter (cl100k, Llama 3: ``[^\r\n\p{L}\p{N}]?\p{L}+``), the numbers a digit; then the
punctuation alternative takes all of S.  Members whose words also take combining marks
(HB_MARK_CONT: o200k's ``[^\r\n\p{L}\p{N}]?[\p{Lu}...\p{M}]*[\p{Ll}...\p{M}]+``) make
a symbol followed by marks a word piece ("\u2764\ufe0f" then a new piece), so there the
run holds no mark (\p{M}).  Members whose words or punctuation differ in other ways
(GPT-2's space-only lead, DeepSeek-V3's punctuation and CJK splits, its lone whitespace)
are left out: symbol_run is 0 for them.  The test (tests/test_symbol_runs.py) compares
it with the member's split of every substring of short texts.

Complexity: O(q - p) class lookups.
*/
#include "core.h"
#include "unicode_classes.h"

/* The HB_* bits of pretokenize/hard_boundaries.py this rule reads (chunk_cuts.c has the
   full list, same values). */
#define SR_MARK_CONT 1
#define SR_CASED 16
#define SR_SPACE_LEAD 32
#define SR_DEEPSEEK 64
#define SR_CJK_SPLIT 512
#define SR_LONE_WS 1024
#define SR_OTHER_WORDS (SR_SPACE_LEAD | SR_DEEPSEEK | SR_CJK_SPLIT | SR_LONE_WS)

int
symbol_run(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule)
{
    if (q <= p || (rule & SR_OTHER_WORDS))
        return 0;
    uint8_t excluded = PF_L | PF_N | PF_WS | ((rule & SR_MARK_CONT) ? PF_M : 0);
    for (Py_ssize_t i = p; i < q; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        /* (Python's whitespace past ASCII is all Unicode White_Space, so PF_WS: only ASCII
           needs the call, for \x1c-\x1f; the test asks it of every such character) */
        if ((presplit_flags(c) & excluded) || c == '\r' || c == '\n' || (c < 128 && Py_UNICODE_ISSPACE(c)))
            return 0;
    }
    return 1;
}

/* Whether every non-empty prefix of text[p:q] is one piece: symbol_run's characters, marks
   allowed, but where marks continue a word neither the first character nor the second is
   a mark, and marks only where the punctuation alternative takes them (o200k's cased
   members, HB_CASED: [^\s\p{L}\p{N}]+; Qwen3.5's and DeepSeek-V3's letters-marks
   punctuation is [^\s\p{L}\p{M}\p{N}]+, so there no mark).  Why: the word alternatives
   need a letter or a mark right at p or after an optional lead at p (the lead takes at
   most one character), so none matches at p; the punctuation alternative then takes the
   whole prefix. */
int
symbol_prefixes(int kind, const void *data, Py_ssize_t p, Py_ssize_t q, int rule)
{
    if (q <= p || (rule & SR_OTHER_WORDS))
        return 0;
    for (Py_ssize_t i = p; i < q; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        uint8_t f = presplit_flags(c);
        if ((f & (PF_L | PF_N | PF_WS)) || c == '\r' || c == '\n' || (c < 128 && Py_UNICODE_ISSPACE(c)))
            return 0;
        if ((f & PF_M) && (rule & SR_MARK_CONT) && (i < p + 2 || !(rule & SR_CASED)))
            return 0;
    }
    return 1;
}

/* The table pass of prefix_counts (chunk_counted_cuts.c) over data[0:n] (n <=
   PREFIX_COUNTS_MAX), stopped once no longer prefix can fit ``limit``: counts[q] =
   count_any(data[0:q]) for q = 0..m, and m returned: n, or the first byte position p
   with counts[p] > limit at which no token starting at or before fit (the last position
   up to p whose count fits) reaches past p.  Then every prefix longer than p counts more
   than limit: its encoding is a chain of last tokens back from its end (the table pass
   builds each prefix's count from the one where its last token starts), the chain's
   first position x <= p starts a token that ends after p, so x > fit, counts[x] > limit,
   and counts only grow along the chain.  chunk_runs.c stops its run passes the same
   way.  -1 at a byte that is no token.  O(m * longest token) per call: a chunk's cut
   inside a long run reads a few bytes past the cut, not the rest of the run. */
Py_ssize_t
prefix_counts_until(const Core *c, const uint8_t *data, Py_ssize_t n, Py_ssize_t limit, int32_t *counts)
{
    int32_t last[PREFIX_COUNTS_MAX + 1], cand[PREFIX_COUNTS_MAX + 1];
    if (n > PREFIX_COUNTS_MAX)
        return -1;
    const Trie *t = &c->fwd;
    Py_ssize_t fit = 0, reach = 0, walked = 0;  /* reach: max r + walk(r) over r < walked */
    counts[0] = 0;
    for (Py_ssize_t p = 1; p <= n; p++) {
        if (c->byte_rank[data[p - 1]] == NO_RANK)
            return -1;
        int k = tokens_ending_at(c, data, 0, p, cand);
        int32_t tok = -1;
        Py_ssize_t start = 0;
        while (k > 0) {
            tok = cand[--k];
            start = p - tok_len(c, tok);
            if (start == 0 || valid_pair_memo(c, last[start], tok))
                break;
            tok = -1;
        }
        if (tok < 0)
            return -1;
        last[p] = tok;
        counts[p] = counts[start] + 1;
        if (counts[p] <= limit) {
            fit = p;
            continue;
        }
        for (; walked <= fit; walked++) {
            /* the longest token prefix of data[walked:n] (the forward trie) */
            uint32_t v = t->root[data[walked]];
            Py_ssize_t i = walked + 1, end = walked;
            while (v) {
                if (t->node[v].token >= 0)
                    end = i;
                Py_ssize_t h = t->height[v];
                if (h < TRIE_TALL && i + h <= p) {
                    /* every token through v ends by i + h <= p: the bound settles the rule
                       as the walk would (p only grows) */
                    end = i + h;
                    break;
                }
                if (i == n)
                    break;
                v = trie_child(t, v, data[i++]);
            }
            if (end > reach)
                reach = end;
        }
        if (reach <= p)
            return p;
    }
    return n;
}

/* symbol_run_test(text, rule) -> bool: symbol_run on the whole text (for the tests). */
static PyObject *
symbol_run_test(PyObject *module, PyObject *args)
{
    PyObject *text;
    int rule;
    if (!PyArg_ParseTuple(args, "Ui", &text, &rule))
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    return PyBool_FromLong(symbol_run(kind, data, 0, PyUnicode_GET_LENGTH(text), rule));
}

/* symbol_prefixes_test(text, rule) -> bool: symbol_prefixes on the whole text (for the tests). */
static PyObject *
symbol_prefixes_test(PyObject *module, PyObject *args)
{
    PyObject *text;
    int rule;
    if (!PyArg_ParseTuple(args, "Ui", &text, &rule))
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    return PyBool_FromLong(symbol_prefixes(kind, data, 0, PyUnicode_GET_LENGTH(text), rule));
}

static PyMethodDef chunk_symbol_runs_functions[] = {
    {"symbol_run", (PyCFunction)symbol_run_test, METH_VARARGS,
     "symbol_run(text, rule) -> bool: whether exact_cuts takes text as a symbol run under the\n"
     "member's hard-boundary bits (every substring one piece; for the tests)."},
    {"symbol_prefixes", (PyCFunction)symbol_prefixes_test, METH_VARARGS,
     "symbol_prefixes(text, rule) -> bool: whether exact_cuts takes every prefix of text as one\n"
     "piece (a straddling piece or the rest of one after a chunk start; for the tests)."},
    {NULL, NULL, 0, NULL},
};

int
chunk_symbol_runs_init(PyObject *module)
{
    return PyModule_AddFunctions(module, chunk_symbol_runs_functions);
}
