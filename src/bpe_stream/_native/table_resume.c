/* The table pass of a chunk that starts inside the previous chunk's table (an overlap
start, or a cut the previous pass read past), resumed from that table once they agree.

table_fill_resume(c, data, last, counts, done, target, old_filled, per, eq, cand, synced)

Invariant.  On entry last/counts[1 .. old_filled] hold the table of a longer text that
ends like data (the previous chunk's, from an earlier start, shifted so that index p is
the same byte), and last/counts[1 .. done] already hold data's own table.  The positions
done + 1 .. target are filled by the table recurrence (prefix_table_fill), one at a time
while old values remain, each compared with the old last token there.  Why the old
table can be taken over: the recurrence at p reads only data and last[p - len(t)] for
the tokens t ending at p, all within max_token_len positions before p (and the start
itself, position 0, which no position past max_token_len reads).  So once the two tables
agree on max_token_len consecutive positions, they agree at every later one: from there
on last is the old one, and counts is the old one minus the difference at the meeting
point (both count the same tokens after it).  Then every old position is taken
(*synced = 1, the answer old_filled if that is past target) with one subtraction each.

Complexity: O(positions filled before the tables meet) table steps plus O(old_filled)
subtractions; without a meeting it is the table pass itself (per/eq carry its periodic
shortcut state; they are reset after a meeting, which only forgoes the shortcut).
The tests compare run_cuts, which uses it, with the pure-Python chunker
(tests/test_chunk_runs.py, tests/test_chunk_runs_wait.py). */
#include "core.h"

Py_ssize_t
table_fill_resume(const Core *c, const unsigned char *data, int32_t *last, int32_t *counts, Py_ssize_t done,
                  Py_ssize_t target, Py_ssize_t old_filled, Py_ssize_t *per_io, Py_ssize_t *eq_io, int32_t *cand,
                  int *synced)
{
    Py_ssize_t M = c->max_token_len;
    Py_ssize_t agree = 0;  /* consecutive positions up to done whose last tokens agree */
    *synced = 0;
    while (done < target && done < old_filled) {
        Py_ssize_t p = done + 1;
        int32_t old_last = last[p], old_count = counts[p];
        if (prefix_table_fill(c, data, last, counts, done, p, per_io, eq_io, cand) < p)
            return done;  /* a byte that is no token */
        done = p;
        agree = last[p] == old_last ? agree + 1 : 0;
        if (agree >= M && p > M) {
            int32_t delta = old_count - counts[p];
            for (Py_ssize_t q = p + 1; q <= old_filled; q++)
                counts[q] -= delta;
            *per_io = 1;
            *eq_io = 0;
            *synced = 1;
            return target > old_filled ? prefix_table_fill(c, data, last, counts, old_filled, target, per_io, eq_io,
                                                            cand)
                                       : old_filled;
        }
    }
    if (done < target)
        return prefix_table_fill(c, data, last, counts, done, target, per_io, eq_io, cand);
    return done;
}
