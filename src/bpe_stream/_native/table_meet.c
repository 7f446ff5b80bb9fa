/* The table pass of a chunk that starts inside the previous chunk's table, resumed from
that table at the first position no token crosses (a sharper meeting rule than
max_token_len agreeing positions, so an overlap of a few tokens, budget 16, is not read
forward twice).

table_fill_meet(c, data, n, last, counts, done, target, old_filled, per, eq, cand, meet, synced)

Invariant.  On entry last/counts[1 .. old_filled] hold the table of a longer text that
ends like data (the previous chunk's, from an earlier start, shifted so that index p is
the same byte), and last/counts[1 .. done] already hold data's own table.  The positions
done + 1 .. target are filled by the table recurrence (prefix_table_fill), one at a time
while old values remain, each compared with the old one there.  Let [a, p] be positions
where the new and the old tables agree on the last token and the two counts differ by
one same delta, and let no token that starts before a end after p (checked with the
forward trie walked from each start r in (p - max_token_len, a): r + walk(r) <= p, the
walk being the longest token prefix, at least the longest token, or a height bound on it
within p, trie_fwd_walk_within, which answers the same).  Then the tables agree
at every q > p, counts differing by that delta.  Why, by induction on q: the recurrence
at q takes the longest token t ending at q whose pair with last[q - len(t)] is valid
(data's table also any token from its start, position 0).  Every token ending at q that
starts inside data starts at or after a (one starting before a ends at or before p < q),
so both tables weigh the same tokens against the same last tokens (those in [a, p] agree
by assumption, later ones by induction) and choose the same one, whose start lies at or
after a, where the counts differ by the delta.  The old table may also weigh tokens
from before data's start (only at q < max_token_len); they are longer, so weighed first,
and where one of them is the old last token the old table is not taken from q on.
One position (a = p) is enough where no token crosses p; agreement on max_token_len
consecutive positions is the case where no walk is needed.  Once met, every
old position is taken (*synced = 1; the answer old_filled if that is past target, or the
last position taken) with one subtraction each.

Complexity: O(positions filled before the tables meet) table steps and forward walks
(each start walked once), plus O(old_filled) subtractions; without a meeting it is the
table pass itself.  meet carries the agreement and the walks from one call to the next
(the caller fills in blocks); table_meet_start resets it for a new chunk.  The tests
compare run_cuts, which uses it, with the pure-Python chunker (tests/test_chunk_runs*.py,
tests/test_table_meet.py, which also runs it against table_fill from scratch).
*/
#include "core.h"

void
table_meet_start(TableMeet *m)
{
    m->a = -1;
    m->delta = 0;
    m->walked = 0;
    m->reach = 0;
}

Py_ssize_t
table_fill_meet(const Core *c, const unsigned char *data, Py_ssize_t n, int32_t *last, int32_t *counts,
                Py_ssize_t done, Py_ssize_t target, Py_ssize_t old_filled, Py_ssize_t *per_io, Py_ssize_t *eq_io,
                int32_t *cand, TableMeet *m, int *synced)
{
    Py_ssize_t M = c->max_token_len;
    *synced = 0;
    while (done < target && done < old_filled) {
        Py_ssize_t p = done + 1;
        int32_t old_last = last[p], old_count = counts[p];
        if (prefix_table_fill(c, data, last, counts, done, p, per_io, eq_io, cand) < p)
            return done;  /* a byte that is no token */
        done = p;
        int32_t delta = old_count - counts[p];
        if (last[p] != old_last)
            m->a = -1;  /* no agreement at p */
        else if (m->a < 0 || delta != m->delta) {
            m->a = p;  /* a new agreeing stretch from p */
            m->delta = delta;
        }
        if (m->a < 0)
            continue;
        /* the starts before a whose tokens may end past p: those after p - M */
        if (m->walked < p - M + 1)
            m->walked = p - M + 1;
        int blocked = 0;
        while (m->walked < m->a) {
            /* (a bound at or below p answers as the walk: p only grows) */
            Py_ssize_t w = trie_fwd_walk_within(c, data, m->walked, n, p);
            if (w < 0) {
                blocked = 1;  /* the walk reads past the bytes held: no meeting decided here */
                break;
            }
            if (m->walked + w > m->reach)
                m->reach = m->walked + w;
            m->walked++;
        }
        if (blocked || m->reach > p)
            continue;
        /* (an old last token may start before data's start, where data's table has no
           position: only at q < M, and then the old table is left from q on) */
        Py_ssize_t q;
        for (q = p + 1; q <= old_filled; q++) {
            if (q < M && q - tok_len(c, last[q]) < 0)
                break;
            counts[q] -= m->delta;
        }
        *per_io = 1;
        *eq_io = 0;
        *synced = 1;
        Py_ssize_t taken = q - 1;
        return target > taken ? prefix_table_fill(c, data, last, counts, taken, target, per_io, eq_io, cand) : taken;
    }
    if (done < target)
        return prefix_table_fill(c, data, last, counts, done, target, per_io, eq_io, cand);
    return done;
}

/* table_meet_fill(core, data, shift, block) -> (last, counts, synced): the table of
   data[shift:] made as run_cuts makes it after a restart at shift: the table of data
   from its start, shifted by shift bytes, then table_fill_meet in blocks of block
   positions (for the tests, against the table pass from scratch). */
static PyObject *
table_meet_fill(PyObject *module, PyObject *args)
{
    PyObject *core_obj;
    Py_buffer view;
    Py_ssize_t shift, block;
    if (!PyArg_ParseTuple(args, "O!y*nn", &CoreType, &core_obj, &view, &shift, &block))
        return NULL;
    const Core *c = (const Core *)core_obj;
    const unsigned char *d = view.buf;
    Py_ssize_t n = view.len;
    PyObject *result = NULL;
    int32_t *last = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    int32_t *counts = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    int32_t *cand = PyMem_RawMalloc((size_t)(c->max_token_len + 1) * sizeof(int32_t));
    if (last == NULL || counts == NULL || cand == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    if (shift < 0 || shift >= n || block < 1) {
        PyErr_SetString(PyExc_ValueError, "table_meet_fill: 0 <= shift < len(data), block >= 1");
        goto out;
    }
    Py_ssize_t per = 1, eq = 0;
    last[0] = counts[0] = 0;
    if (prefix_table_fill(c, d, last, counts, 0, n, &per, &eq, cand) < n) {
        PyErr_SetString(PyExc_ValueError, "table_meet_fill: a byte that is no token");
        goto out;
    }
    Py_ssize_t m_n = n - shift, old_filled = m_n;
    memmove(last + 1, last + shift + 1, (size_t)m_n * sizeof(int32_t));
    memmove(counts + 1, counts + shift + 1, (size_t)m_n * sizeof(int32_t));
    TableMeet meet;
    table_meet_start(&meet);
    per = 1;
    eq = 0;
    int synced = 0, ever = 0;
    Py_ssize_t done = 0;
    while (done < m_n) {
        Py_ssize_t target = done + block < m_n ? done + block : m_n;
        Py_ssize_t got;
        if (old_filled > done) {
            got = table_fill_meet(c, d + shift, m_n, last, counts, done, target, old_filled, &per, &eq, cand, &meet,
                                  &synced);
            if (synced) {
                old_filled = 0;
                ever = 1;
            }
        }
        else
            got = prefix_table_fill(c, d + shift, last, counts, done, target, &per, &eq, cand);
        if (got < target) {
            PyErr_SetString(PyExc_ValueError, "table_meet_fill: a byte that is no token");
            goto out;
        }
        done = got;
    }
    PyObject *ll = PyList_New(m_n), *cl = PyList_New(m_n);
    if (ll == NULL || cl == NULL) {
        Py_XDECREF(ll);
        Py_XDECREF(cl);
        goto out;
    }
    for (Py_ssize_t p = 1; p <= m_n; p++) {
        PyList_SET_ITEM(ll, p - 1, PyLong_FromLong(last[p]));
        PyList_SET_ITEM(cl, p - 1, PyLong_FromLong(counts[p]));
    }
    result = Py_BuildValue("(NNN)", ll, cl, PyBool_FromLong(ever));
out:
    PyMem_RawFree(last);
    PyMem_RawFree(counts);
    PyMem_RawFree(cand);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef table_meet_functions[] = {
    {"table_meet_fill", (PyCFunction)table_meet_fill, METH_VARARGS,
     "table_meet_fill(core, data, shift, block) -> (last, counts, synced): the table of data[shift:]\n"
     "resumed from data's table where no token crosses (as run_cuts after a restart), for the tests."},
    {NULL, NULL, 0, NULL},
};

int
table_meet_init(PyObject *module)
{
    return PyModule_AddFunctions(module, table_meet_functions);
}
