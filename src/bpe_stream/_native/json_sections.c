/* The two bulky sections of an HF tokenizer.json, read straight from its UTF-8 bytes.

tokenizer_json_sections(raw) -> None | (vocab_start, vocab_end, merges_start, merges_end,
                                        tokens, ids, merges)

finds the top-level "model" object of the JSON text raw and, in it, the values of
"vocab" (an object of byte-level token string: integer id) and "merges" (an array of
"a b" strings or [a, b] pairs of byte-level strings); it returns where the two values
lie in raw (start, end: raw[start:end] is the value) and what they hold: tokens (the bytes
each key stands for, GPT-2's byte-level table, in file order), ids (the ints, in the same
order) and merges (one (a, b) tuple of bytes per item).  The rest of the file is read by
json.loads with the two values replaced (encoding/formats/hf_json.read_sections), which
also checks that the whole text is valid JSON and that the two values are where this scan
put them; with json.loads(raw) that gives the same objects, decoded once instead of built
as str objects and decoded again.

None (the caller then reads the file with json.loads alone, the reference) for anything
this scan does not read as the usual file does: no top-level object, no "model" object,
"model", "vocab" or "merges" twice or a key with an escape where they are looked for, a
token or side that is not byte level (a character outside the table; a JSON escape other
than \" \\ \/ \uXXXX; invalid UTF-8), a merge string without exactly one space, an id
that is not a JSON integer of at most 18 digits, or JSON that does not parse here.

Complexity: one pass over raw; one bytes object per token and merge side, one int per id
and one tuple per merge, nothing else per item.
*/
#include "core.h"

typedef struct {
    const unsigned char *p;
    Py_ssize_t n;
    Py_ssize_t i;
} Scan;

static void
skip_ws(Scan *s)
{
    while (s->i < s->n) {
        unsigned char c = s->p[s->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        s->i++;
    }
}

/* After an item of an array or a member of an object: past the white space and the closing
   `close` (1: the container ended), or past a comma and the white space after it (2: an
   item follows); 0 where neither comes. */
static int
next_item(Scan *s, unsigned char close)
{
    skip_ws(s);
    if (s->i >= s->n)
        return 0;
    if (s->p[s->i] == close) {
        s->i++;
        return 1;
    }
    if (s->p[s->i] != ',')
        return 0;
    s->i++;
    skip_ws(s);
    return 2;
}

/* Past the white space, the byte c and the white space after it: 1; 0 where c does not
   come. */
static int
past(Scan *s, unsigned char c)
{
    skip_ws(s);
    if (s->i >= s->n || s->p[s->i] != c)
        return 0;
    s->i++;
    skip_ws(s);
    return 1;
}

/* The container whose `open` is at s->i: past it and the white space (2: an item
   follows), or past the whole container where it is empty (1); 0 where none opens. */
static int
open_container(Scan *s, unsigned char open, unsigned char close)
{
    if (s->i >= s->n || s->p[s->i] != open)
        return 0;
    s->i++;
    skip_ws(s);
    if (s->i < s->n && s->p[s->i] == close) {
        s->i++;
        return 1;
    }
    return 2;
}

/* Past a string whose opening quote is at s->i (escapes skipped, not read); 0, or -1
   where it does not end. */
static int
skip_string(Scan *s)
{
    Py_ssize_t i = s->i + 1;
    while (i < s->n) {
        unsigned char c = s->p[i];
        if (c == '\\')
            i += 2;
        else if (c == '"') {
            s->i = i + 1;
            return 0;
        } else
            i++;
    }
    return -1;
}

/* Past any value at s->i: a string, an object or array (brackets counted outside
   strings), or a scalar (up to the next delimiter).  Lax: json.loads checks the text. */
static int
skip_value(Scan *s)
{
    if (s->i >= s->n)
        return -1;
    unsigned char c = s->p[s->i];
    if (c == '"')
        return skip_string(s);
    if (c == '{' || c == '[') {
        Py_ssize_t depth = 0;
        while (s->i < s->n) {
            c = s->p[s->i];
            if (c == '"') {
                if (skip_string(s) < 0)
                    return -1;
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    s->i++;
                    return 0;
                }
            }
            s->i++;
        }
        return -1;
    }
    Py_ssize_t start = s->i;
    while (s->i < s->n) {
        c = s->p[s->i];
        if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r')
            break;
        s->i++;
    }
    return s->i > start ? 0 : -1;
}

/* An object key at s->i without escapes: its bytes in *key, *len; then past the colon.
   -1 where it is no such key. */
static int
read_key(Scan *s, const unsigned char **key, Py_ssize_t *len)
{
    if (s->i >= s->n || s->p[s->i] != '"')
        return -1;
    Py_ssize_t start = s->i + 1, i = start;
    while (i < s->n && s->p[i] != '"') {
        if (s->p[i] == '\\')
            return -1;
        i++;
    }
    if (i >= s->n)
        return -1;
    *key = s->p + start;
    *len = i - start;
    s->i = i + 1;
    return past(s, ':') ? 0 : -1;
}

static int
key_is(const unsigned char *key, Py_ssize_t len, const char *name)
{
    return (Py_ssize_t)strlen(name) == len && memcmp(key, name, (size_t)len) == 0;
}

static int
hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The byte-level string whose opening quote is at s->i (-1 where none is), decoded into out (room for as
   many bytes as the string has: each character stands for one byte and takes at least
   one); its length, or -1 where it is not byte level (see the module comment).  With
   split non-NULL, one space (raw or escaped) separates two sides: *split is where the
   second starts, -1 where there is no space; a second space gives -1. */
static Py_ssize_t
read_byte_level(Scan *s, unsigned char *out, Py_ssize_t *split)
{
    Py_ssize_t i = s->i + 1, k = 0;
    if (split)
        *split = -1;
    if (s->i >= s->n || s->p[s->i] != '"')
        return -1;
    while (i < s->n) {
        unsigned c = s->p[i];
        if (c == '"') {
            s->i = i + 1;
            return k;
        }
        if (c == '\\') {
            if (i + 1 >= s->n)
                return -1;
            unsigned e = s->p[i + 1];
            if (e == '"' || e == '\\' || e == '/') {
                c = e;
                i += 2;
            } else if (e == 'u') {
                if (i + 6 > s->n)
                    return -1;
                c = 0;
                for (int j = 2; j < 6; j++) {
                    int h = hex_digit(s->p[i + j]);
                    if (h < 0)
                        return -1;
                    c = (c << 4) | (unsigned)h;
                }
                i += 6;
            } else
                return -1;
        } else if (c >= 0x80) {
            if (c < 0xc2 || c > 0xc5 || i + 1 >= s->n || (s->p[i + 1] & 0xc0) != 0x80)
                return -1;
            c = ((c & 0x1f) << 6) | (s->p[i + 1] & 0x3f);
            i += 2;
        } else if (c < 0x20)
            return -1;  /* a raw control character: not valid JSON */
        else
            i++;
        if (byte_level_put(c, out, &k, split) < 0)
            return -1;
    }
    return -1;
}

/* A JSON integer of at most 18 digits at s->i as a Python int; NULL without an error
   set where there is none, NULL with one set on a failed allocation. */
static PyObject *
read_int(Scan *s)
{
    Py_ssize_t i = s->i;
    int negative = 0;
    if (i < s->n && s->p[i] == '-') {
        negative = 1;
        i++;
    }
    Py_ssize_t start = i;
    long long v = 0;
    while (i < s->n && s->p[i] >= '0' && s->p[i] <= '9') {
        v = v * 10 + (s->p[i] - '0');
        i++;
        if (i - start > 18)
            return NULL;
    }
    if (i == start || (s->p[start] == '0' && i - start > 1))
        return NULL;
    if (i < s->n && (s->p[i] == '.' || s->p[i] == 'e' || s->p[i] == 'E'))
        return NULL;  /* a float */
    s->i = i;
    return PyLong_FromLongLong(negative ? -v : v);
}

static int
append_new(PyObject *list, PyObject *item)
{
    if (item == NULL)
        return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

/* The vocab object at s->i into tokens and ids: 1 read, 0 not read here, -1 error set. */
static int
read_vocab(Scan *s, unsigned char *buf, PyObject *tokens, PyObject *ids)
{
    int open = open_container(s, '{', '}');
    if (open != 2)
        return open;
    for (;;) {
        Py_ssize_t k = read_byte_level(s, buf, NULL);
        if (k < 0 || !past(s, ':'))
            return 0;
        PyObject *id = read_int(s);
        if (id == NULL)
            return PyErr_Occurred() ? -1 : 0;
        if (append_new(tokens, PyBytes_FromStringAndSize((const char *)buf, k)) < 0) {
            Py_DECREF(id);
            return -1;
        }
        if (append_new(ids, id) < 0)
            return -1;
        int next = next_item(s, '}');
        if (next != 2)
            return next;
    }
}

static int
append_pair(PyObject *merges, const unsigned char *a, Py_ssize_t na, const unsigned char *b, Py_ssize_t nb)
{
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL)
        return -1;
    PyObject *side_a = PyBytes_FromStringAndSize((const char *)a, na);
    PyObject *side_b = side_a == NULL ? NULL : PyBytes_FromStringAndSize((const char *)b, nb);
    if (side_b == NULL) {
        Py_XDECREF(side_a);
        Py_DECREF(pair);
        return -1;
    }
    PyTuple_SET_ITEM(pair, 0, side_a);
    PyTuple_SET_ITEM(pair, 1, side_b);
    return append_new(merges, pair);
}

/* The merges array at s->i into merges: 1 read, 0 not read here, -1 error set. */
static int
read_merges(Scan *s, unsigned char *buf, PyObject *merges)
{
    int open = open_container(s, '[', ']');
    if (open != 2)
        return open;
    for (;;) {
        if (s->i >= s->n)
            return 0;
        if (s->p[s->i] == '"') {
            Py_ssize_t split;
            Py_ssize_t k = read_byte_level(s, buf, &split);
            if (k < 0 || split < 0)
                return 0;
            if (append_pair(merges, buf, split, buf + split, k - split) < 0)
                return -1;
        } else if (s->p[s->i] == '[') {
            s->i++;
            skip_ws(s);
            Py_ssize_t ka = read_byte_level(s, buf, NULL);
            if (ka < 0 || !past(s, ','))
                return 0;
            Py_ssize_t kb = read_byte_level(s, buf + ka, NULL);
            if (kb < 0 || !past(s, ']'))
                return 0;
            if (append_pair(merges, buf, ka, buf + ka, kb) < 0)
                return -1;
        } else
            return 0;
        int next = next_item(s, ']');
        if (next != 2)
            return next;
    }
}

/* Past the members of the object whose '{' is at s->i, calling member(s, key, len, ctx)
   at each value (it reads or skips the value: 1 read, 0 not read here, -1 error set). */
static int
scan_object(Scan *s, int (*member)(Scan *, const unsigned char *, Py_ssize_t, void *), void *ctx)
{
    int open = open_container(s, '{', '}');
    if (open != 2)
        return open;
    for (;;) {
        const unsigned char *key;
        Py_ssize_t len;
        if (read_key(s, &key, &len) < 0)
            return 0;
        int r = member(s, key, len, ctx);
        if (r <= 0)
            return r;
        int next = next_item(s, '}');
        if (next != 2)
            return next;
    }
}

typedef struct {
    unsigned char *buf;
    PyObject *tokens, *ids, *merges;
    Py_ssize_t vocab_start, vocab_end, merges_start, merges_end;
    int model_seen;
} Sections;

static int
model_member(Scan *s, const unsigned char *key, Py_ssize_t len, void *ctx)
{
    Sections *sec = ctx;
    if (key_is(key, len, "vocab")) {
        if (sec->vocab_start >= 0)
            return 0;
        sec->vocab_start = s->i;
        int r = read_vocab(s, sec->buf, sec->tokens, sec->ids);
        sec->vocab_end = s->i;
        return r;
    }
    if (key_is(key, len, "merges")) {
        if (sec->merges_start >= 0)
            return 0;
        sec->merges_start = s->i;
        int r = read_merges(s, sec->buf, sec->merges);
        sec->merges_end = s->i;
        return r;
    }
    return skip_value(s) < 0 ? 0 : 1;
}

static int
top_member(Scan *s, const unsigned char *key, Py_ssize_t len, void *ctx)
{
    Sections *sec = ctx;
    if (key_is(key, len, "model")) {
        if (sec->model_seen)
            return 0;
        sec->model_seen = 1;
        return scan_object(s, model_member, ctx);
    }
    return skip_value(s) < 0 ? 0 : 1;
}

static PyObject *
tokenizer_json_sections(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Sections sec = {NULL, NULL, NULL, NULL, -1, -1, -1, -1, 0};
    PyObject *result = NULL;
    Scan s = {view.buf, view.len, 0};
    int r = 0;
    /* a string's bytes never outnumber its characters, nor its characters the file's bytes */
    sec.buf = PyMem_Malloc(view.len > 0 ? (size_t)view.len : 1);
    sec.tokens = PyList_New(0);
    sec.ids = PyList_New(0);
    sec.merges = PyList_New(0);
    if (sec.buf == NULL || sec.tokens == NULL || sec.ids == NULL || sec.merges == NULL) {
        if (sec.buf == NULL)
            PyErr_NoMemory();
        goto done;
    }
    skip_ws(&s);
    r = scan_object(&s, top_member, &sec);
    if (r < 0)
        goto done;
    if (r == 0 || sec.vocab_start < 0 || sec.merges_start < 0) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    result = Py_BuildValue("(nnnnOOO)", sec.vocab_start, sec.vocab_end, sec.merges_start, sec.merges_end,
                           sec.tokens, sec.ids, sec.merges);
done:
    PyMem_Free(sec.buf);
    Py_XDECREF(sec.tokens);
    Py_XDECREF(sec.ids);
    Py_XDECREF(sec.merges);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef json_sections_functions[] = {
    {"tokenizer_json_sections", (PyCFunction)tokenizer_json_sections, METH_O,
     "tokenizer_json_sections(raw) -> None | (vocab_start, vocab_end, merges_start, merges_end,\n"
     "tokens, ids, merges): model.vocab and model.merges of a tokenizer.json's UTF-8 text, decoded\n"
     "from byte level, and where they lie; None where the file is not read here."},
    {NULL, NULL, 0, NULL},
};

int
json_sections_init(PyObject *module)
{
    return PyModule_AddFunctions(module, json_sections_functions);
}
