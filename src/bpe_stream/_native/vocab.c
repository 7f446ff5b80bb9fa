/* Building a Core: the vocabulary's tables, from its token list or from the stored
parts of a cache entry (see core.h for what each table holds).

Construction (Core(tokens)), the same rules as bpe/tables.py, in C:
* split tables in rank order: the pair BPE holds just before producing token r is the
  split (a, b) into two tokens ranked below r, tried longest a first, that the pair
  test accepts with only the tokens below r; a token without one is "unreachable":
  split -1, listed by unreachable(), and left out of every table the encoders read
  (the hash look-ups, the tries, the masks), so later tokens are built without it;
* the forward and reversed tries (one level at a time, the tokens put in (node, byte)
  order by two counting sorts per level, which is the breadth-first numbering
  core.h states), next_prefix (nearest token ancestor
  in the forward trie), the continuation masks (for every suffix of a token that is
  a trie node, i.e. along the node's chain of failure links, the bytes of that
  node's children).
Cost: O(sum over tokens of len * tries) for the splits (a few pair tests each),
O(total bytes) for the tries (counting sorts), O(trie nodes) amortized for the masks (failure
links, as in Aho-Corasick).  o200k builds in about 0.15 s, from parts in about 0.09 s,
without the GIL.

From parts (Core.from_parts(blob, offsets, split_left, split_right)): the stored
arrays are checked before anything reads them (offsets increasing within the blob,
every split either -1/-1 or two lower-ranked usable tokens whose bytes make the
token, single bytes split into themselves, no duplicate token), so a damaged or
crafted file gives an error, never an out-of-bounds read or an endless loop; the
other tables are rebuilt from them.

Core.build(tokens): Core(tokens) where the first pass leaves no token waiting; else
that pass's parts and waiting ranks, without the tries and masks (settling the waiting
tokens changes the splits, so the caller builds the final core from parts).
*/
#include "core.h"

#include <stdlib.h>

PyObject *
missing_byte_error(const unsigned char *data, Py_ssize_t pos)
{
    PyErr_Format(PyExc_ValueError,
                 "byte 0x%02x at offset %zd is not in the vocabulary, so it cannot be encoded",
                 (unsigned)data[pos], pos);
    return NULL;
}

static void
trie_free(Trie *t)
{
    PyMem_RawFree(t->node);
    PyMem_RawFree(t->label);
    PyMem_RawFree(t->height);
    PyMem_RawFree(t->dense);
    t->dense = NULL;
    t->n_dense = 0;
    t->node = NULL;
    t->label = NULL;
    t->height = NULL;
    t->n_nodes = 0;
}

/* Empties the pair memo (core.h valid_pair_memo): its answers are the tables'. */
static void
pair_memo_clear(Core *c)
{
    for (size_t i = 0; i < (size_t)1 << PAIR_MEMO_BITS; i++)
        atomic_store_explicit(&c->pair_memo[i], 0, memory_order_relaxed);
}

static void
core_free_tables(Core *self)
{
    PyMem_RawFree(self->blob);
    PyMem_RawFree(self->offset);
    PyMem_RawFree(self->slots);
    PyMem_RawFree(self->pair_rank);
    PyMem_RawFree(self->split_left);
    PyMem_RawFree(self->split_right);
    PyMem_RawFree(self->next_prefix);
    PyMem_RawFree(self->mask_id);
    PyMem_RawFree(self->mask_table);
    PyMem_RawFree(self->unreachable);
    PyMem_RawFree(self->exc);
    self->exc = NULL;
    self->blob = NULL;
    self->offset = NULL;
    self->slots = NULL;
    self->pair_rank = NULL;
    self->split_left = self->split_right = self->next_prefix = NULL;
    self->mask_id = NULL;
    self->mask_table = NULL;
    self->unreachable = NULL;
    trie_free(&self->fwd);
    trie_free(&self->rev);
    free(self->piece_cache); /* (its entries belong to the tables just freed) */
    self->piece_cache = NULL;
    pair_memo_clear(self);
}

static void
Core_dealloc(Core *self)
{
    core_free_tables(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ------------------------------------------------------------------ hashing */

/* Inserts every token into the hash and the direct tables; -1 with ValueError on a
   duplicate token, -2 out of memory. */
static int
build_hash(Core *c, Py_ssize_t *dup_rank, Py_ssize_t *dup_of)
{
    Py_ssize_t n = c->n_tokens;
    uint64_t size = 16;
    while (size < 2 * (uint64_t)n)
        size <<= 1;
    c->slots = PyMem_RawMalloc((size_t)size * sizeof(int32_t));
    c->pair_rank = PyMem_RawMalloc(65536 * sizeof(int32_t));
    if (!c->slots || !c->pair_rank)
        return -2;
    c->mask = size - 1;
    memset(c->slots, 0xff, (size_t)size * sizeof(int32_t));
    for (int b = 0; b < 256; b++)
        c->byte_rank[b] = NO_RANK;
    for (int b = 0; b < 65536; b++)
        c->pair_rank[b] = NO_RANK;
    for (Py_ssize_t r = 0; r < n; r++) {
        Py_ssize_t len = tok_len(c, (int32_t)r);
        const unsigned char *p = tok_bytes(c, (int32_t)r);
        uint64_t i = hash_end(hash_feed(hash_start(len), p, len)) & c->mask;
        for (;;) {
            int32_t s = c->slots[i];
            if (s < 0) {
                c->slots[i] = (int32_t)r;
                break;
            }
            if (tok_len(c, s) == len && memcmp(tok_bytes(c, s), p, (size_t)len) == 0) {
                *dup_rank = r;
                *dup_of = s;
                return -1;
            }
            i = (i + 1) & c->mask;
        }
        if (len == 1)
            c->byte_rank[p[0]] = (int32_t)r;
        else if (len == 2)
            c->pair_rank[(p[0] << 8) | p[1]] = (int32_t)r;
    }
    return 0;
}

/* ------------------------------------------------------- pair by merge loop */

int
valid_pair_by_merge_loop(const Core *c, int32_t t1, int32_t t2)
{
    Py_ssize_t la = tok_len(c, t1), n = la + tok_len(c, t2);
    unsigned char small[512];
    Py_ssize_t small_bounds[513];
    unsigned char *data = small;
    Py_ssize_t *bounds = small_bounds;  /* part k is data[bounds[k] : bounds[k + 1]] */
    if (n > 512) {
        data = PyMem_RawMalloc((size_t)n);
        bounds = PyMem_RawMalloc((size_t)(n + 1) * sizeof(Py_ssize_t));
        if (data == NULL || bounds == NULL)  /* no answer can be given without them */
            Py_FatalError("bpe-stream: out of memory in the pair test");
    }
    memcpy(data, tok_bytes(c, t1), (size_t)la);
    memcpy(data + la, tok_bytes(c, t2), (size_t)(n - la));
    Py_ssize_t parts = n;
    for (Py_ssize_t i = 0; i <= n; i++)
        bounds[i] = i;
    /* BPE by its definition: merge the adjacent pair whose bytes are the lowest-ranked
       token, leftmost first, until none is a token */
    while (parts > 1) {
        int32_t best = NO_RANK;
        Py_ssize_t at = -1;
        for (Py_ssize_t k = 0; k + 1 < parts; k++) {
            int32_t r = rank_of(c, data + bounds[k], bounds[k + 2] - bounds[k]);
            if (r < best) {
                best = r;
                at = k;
            }
        }
        if (at < 0)
            break;
        memmove(bounds + at + 1, bounds + at + 2, (size_t)(parts - at - 1) * sizeof(Py_ssize_t));
        parts--;
    }
    int ok = parts == 2 && bounds[1] == la;
    if (data != small) {
        PyMem_RawFree(data);
        PyMem_RawFree(bounds);
    }
    return ok;
}

/* ---------------------------------------------------------------- splitting */

static int
build_splits(Core *c)
{
    Py_ssize_t n = c->n_tokens;
    c->split_left = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(int32_t));
    c->split_right = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(int32_t));
    if (!c->split_left || !c->split_right)
        return -2;
    for (Py_ssize_t r = 0; r < n; r++)
        c->split_left[r] = c->split_right[r] = (int32_t)r;
    for (Py_ssize_t r = 0; r < n; r++) {
        Py_ssize_t len = tok_len(c, (int32_t)r);
        if (len == 1)
            continue;
        const unsigned char *p = tok_bytes(c, (int32_t)r);
        int found = 0;
        for (Py_ssize_t cut = len - 1; cut > 0; cut--) {
            int32_t left = rank_of(c, p, cut);
            if (left >= r)
                continue;
            int32_t right = rank_of(c, p + cut, len - cut);
            if (right >= r)
                continue;
            if (valid_pair_below(c, left, right, (int32_t)r) == 1) {
                c->split_left[r] = left;
                c->split_right[r] = right;
                found = 1;
                break;
            }
        }
        if (!found) {
            c->split_left[r] = c->split_right[r] = -1;
            c->n_unreachable++;
        }
    }
    return 0;
}

static int
list_unreachable(Core *c)
{
    c->n_unreachable = 0;
    for (Py_ssize_t r = 0; r < c->n_tokens; r++)
        c->n_unreachable += c->split_left[r] < 0;
    c->unreachable = PyMem_RawMalloc((size_t)(c->n_unreachable + 1) * sizeof(int32_t));
    if (!c->unreachable)
        return -2;
    Py_ssize_t k = 0;
    for (Py_ssize_t r = 0; r < c->n_tokens; r++)
        if (c->split_left[r] < 0)
            c->unreachable[k++] = (int32_t)r;
    return 0;
}

/* -------------------------------------------------------------------- tries */

/* A trie over the strings blob[offset[r] : offset[r + 1]] of the usable tokens r.

   Built one level at a time.  The tokens still longer than the depth d are kept in
   the order of their node at depth d (breadth-first ids); two stable counting sorts
   per level (by the byte at d, then by the node) put them in (node, byte) order, in
   which the nodes of depth d + 1 are numbered: so the children of a node are
   contiguous and sorted by byte, and the order holds for the next level.  No
   comparison sort: O(total bytes + 256 * depth). */
static int
build_trie(Trie *t, const Core *c, const unsigned char *blob, const uint32_t *offset)
{
    Py_ssize_t n = c->n_tokens;
    Py_ssize_t total = offset[n];
    int32_t *ids = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    uint32_t *at = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
    int32_t *ids2 = PyMem_RawMalloc((size_t)(n + 1) * sizeof(int32_t));
    uint32_t *at2 = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
    uint32_t *parent = PyMem_RawMalloc((size_t)(total + 1) * sizeof(uint32_t));
    uint32_t *count = PyMem_RawMalloc((size_t)(total + 2) * sizeof(uint32_t));
    t->label = PyMem_RawMalloc((size_t)(total + 1));
    t->node = PyMem_RawMalloc((size_t)(total + 2) * sizeof(TrieNode));
    int rc = -2;
    if (!ids || !at || !ids2 || !at2 || !parent || !count || !t->label || !t->node)
        goto out;
    Py_ssize_t m = 0;
    for (Py_ssize_t r = 0; r < n; r++)
        if (c->split_left[r] >= 0) {
            ids[m] = (int32_t)r;
            at[m] = 0;
            m++;
        }
    uint32_t nodes = 1, level_lo = 0, level_hi = 1;
    t->label[0] = 0;
    t->node[0].token = -1;
    parent[0] = 0;
    Py_ssize_t active = m;
    for (Py_ssize_t d = 0; active > 0; d++) {
        /* stable counting sort by the byte at d ... */
        uint32_t bc[257];
        memset(bc, 0, sizeof(bc));
        for (Py_ssize_t k = 0; k < active; k++)
            bc[blob[offset[ids[k]] + d] + 1]++;
        for (int b = 0; b < 256; b++)
            bc[b + 1] += bc[b];
        for (Py_ssize_t k = 0; k < active; k++) {
            uint32_t to = bc[blob[offset[ids[k]] + d]]++;
            ids2[to] = ids[k];
            at2[to] = at[k];
        }
        /* ... then by the node at depth d (ids level_lo .. level_hi - 1) */
        uint32_t width = level_hi - level_lo;
        memset(count, 0, (size_t)(width + 1) * sizeof(uint32_t));
        for (Py_ssize_t k = 0; k < active; k++)
            count[at2[k] - level_lo + 1]++;
        for (uint32_t q = 0; q < width; q++)
            count[q + 1] += count[q];
        for (Py_ssize_t k = 0; k < active; k++) {
            uint32_t to = count[at2[k] - level_lo]++;
            ids[to] = ids2[k];
            at[to] = at2[k];
        }
        Py_ssize_t keep = 0;
        uint32_t prev_parent = UINT32_MAX, prev_node = 0;
        int prev_label = -1;
        uint32_t first_new = nodes;
        for (Py_ssize_t k = 0; k < active; k++) {
            int32_t r = ids[k];
            unsigned char b = blob[offset[r] + d];
            uint32_t p = at[k], v;
            if (p == prev_parent && b == prev_label) {
                v = prev_node;
            } else {
                v = nodes++;
                t->label[v] = b;
                t->node[v].token = -1;
                parent[v] = p;
                prev_parent = p;
                prev_label = b;
                prev_node = v;
            }
            if ((Py_ssize_t)(offset[r + 1] - offset[r]) == d + 1) {
                t->node[v].token = r;
            } else {
                ids[keep] = r;
                at[keep] = v;
                keep++;
            }
        }
        active = keep;
        level_lo = first_new;
        level_hi = nodes;
    }
    /* the children of v start after the children of every node before v */
    for (uint32_t v = 0; v <= nodes; v++)
        t->node[v].first = 0;
    t->node[nodes].token = -1;
    for (uint32_t v = 1; v < nodes; v++)
        t->node[parent[v] + 1].first++;
    t->node[0].first = 1;
    for (uint32_t v = 1; v <= nodes; v++)
        t->node[v].first += t->node[v - 1].first;
    memset(t->root, 0, sizeof(t->root));
    for (uint32_t v = t->node[0].first; v < t->node[1].first; v++)
        t->root[t->label[v]] = v;
    t->n_nodes = nodes;
    /* the height of each node (children are numbered after their parent: one pass back) */
    PyMem_RawFree(t->height);
    t->height = PyMem_RawCalloc(nodes, sizeof(uint16_t));
    if (!t->height)
        goto out;
    for (uint32_t v = nodes - 1; v >= 1; v--) {
        uint32_t h = (uint32_t)t->height[v] + 1;
        if (h > TRIE_TALL)
            h = TRIE_TALL;
        if (h > t->height[parent[v]])
            t->height[parent[v]] = (uint16_t)h;
    }
    /* the children of the root's children, by byte (trie_child's direct table) */
    PyMem_RawFree(t->dense);
    t->n_dense = 0;
    uint32_t n_root = t->node[1].first - 1;
    t->dense = PyMem_RawCalloc((size_t)(n_root ? n_root : 1) * 256, sizeof(uint32_t));
    if (!t->dense)
        goto out;
    for (uint32_t v = 1; v <= n_root; v++)
        for (uint32_t u = t->node[v].first; u < t->node[v + 1].first; u++)
            t->dense[(size_t)(v - 1) * 256 + t->label[u]] = u;
    t->n_dense = n_root + 1;
    /* shrink to the nodes made */
    uint8_t *label = PyMem_RawRealloc(t->label, nodes);
    TrieNode *node = PyMem_RawRealloc(t->node, (size_t)(nodes + 1) * sizeof(TrieNode));
    if (label)
        t->label = label;
    if (node)
        t->node = node;
    rc = 0;
out:
    PyMem_RawFree(ids);
    PyMem_RawFree(at);
    PyMem_RawFree(ids2);
    PyMem_RawFree(at2);
    PyMem_RawFree(parent);
    PyMem_RawFree(count);
    return rc;
}

static int
build_tries(Core *c)
{
    if (build_trie(&c->fwd, c, c->blob, c->offset) < 0)
        return -2;
    Py_ssize_t total = c->offset[c->n_tokens];
    unsigned char *reversed = PyMem_RawMalloc((size_t)(total ? total : 1));
    if (!reversed)
        return -2;
    for (Py_ssize_t r = 0; r < c->n_tokens; r++) {
        uint32_t a = c->offset[r], b = c->offset[r + 1];
        for (uint32_t i = a; i < b; i++)
            reversed[i] = c->blob[a + b - 1 - i];
    }
    int rc = build_trie(&c->rev, c, reversed, c->offset);
    PyMem_RawFree(reversed);
    return rc;
}

/* The distinct masks: an open-addressing set over c->mask_table. */
typedef struct {
    uint32_t *set;
    uint32_t size, used, cap;
} MaskSet;

static uint32_t
mask_hash(const uint64_t *m)
{
    return (uint32_t)hash_end(hash_feed(hash_start(32), (const unsigned char *)m, 32));
}

/* The id of mask m (added if new); UINT32_MAX out of memory. */
static uint32_t
intern_mask(Core *c, MaskSet *ms, const uint64_t *m)
{
    uint32_t i = mask_hash(m) & (ms->size - 1);
    for (;;) {
        uint32_t id = ms->set[i];
        if (id == UINT32_MAX)
            break;
        if (memcmp(c->mask_table + 4 * (size_t)id, m, 32) == 0)
            return id;
        i = (i + 1) & (ms->size - 1);
    }
    if (ms->used == ms->cap) {
        uint64_t *grown = PyMem_RawRealloc(c->mask_table, (size_t)ms->cap * 8 * sizeof(uint64_t));
        if (!grown)
            return UINT32_MAX;
        c->mask_table = grown;
        ms->cap *= 2;
    }
    uint32_t id = ms->used++;
    memcpy(c->mask_table + 4 * (size_t)id, m, 32);
    ms->set[i] = id;
    if (2 * ms->used > ms->size) { /* grow the set: re-insert every mask */
        uint32_t *bigger = PyMem_RawMalloc(2 * (size_t)ms->size * sizeof(uint32_t));
        if (!bigger)
            return UINT32_MAX;
        PyMem_RawFree(ms->set);
        ms->set = bigger;
        ms->size *= 2;
        memset(ms->set, 0xff, ms->size * sizeof(uint32_t));
        for (uint32_t q = 0; q < ms->used; q++) {
            uint32_t j = mask_hash(c->mask_table + 4 * (size_t)q) & (ms->size - 1);
            while (ms->set[j] != UINT32_MAX)
                j = (j + 1) & (ms->size - 1);
            ms->set[j] = q;
        }
    }
    return id;
}

/* next_prefix and the masks in one breadth-first pass over the forward trie.

   The suffixes of a token that are trie nodes are the node of the token and its
   chain of failure links (the Aho-Corasick construction: fail[v] is the node of the
   longest proper suffix of v's string that is a trie node).  full[v] is the OR of
   the children's bytes over that chain (the root, the empty suffix, adds nothing),
   filled breadth first (fail[v] is shallower than v), so the mask of the token at v
   is full[v]. */
static int
build_prefixes_and_masks(Core *c)
{
    Py_ssize_t n = c->n_tokens;
    const Trie *t = &c->fwd;
    static const uint64_t zero[4] = {0, 0, 0, 0};
    MaskSet ms = {NULL, 256, 0, 64};
    c->next_prefix = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(int32_t));
    c->mask_id = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(uint32_t));
    c->mask_table = PyMem_RawMalloc((size_t)ms.cap * 4 * sizeof(uint64_t));
    ms.set = PyMem_RawMalloc(ms.size * sizeof(uint32_t));
    int32_t *nearest = PyMem_RawMalloc((size_t)t->n_nodes * sizeof(int32_t));
    uint32_t *fail = PyMem_RawMalloc((size_t)t->n_nodes * sizeof(uint32_t));
    uint64_t *full = PyMem_RawMalloc((size_t)t->n_nodes * 4 * sizeof(uint64_t));
    int rc = -2;
    if (!c->next_prefix || !c->mask_id || !c->mask_table || !ms.set || !nearest || !fail || !full)
        goto out;
    memset(ms.set, 0xff, ms.size * sizeof(uint32_t));
    uint32_t zero_id = intern_mask(c, &ms, zero);
    for (Py_ssize_t r = 0; r < n; r++) {
        c->next_prefix[r] = -1;
        c->mask_id[r] = zero_id; /* unreachable tokens are in no trie */
    }
    nearest[0] = -1;
    fail[0] = 0;
    for (uint32_t v = 0; v < t->n_nodes; v++) {
        /* nearest[v]: the token at v's nearest strict ancestor, -1 if none */
        int32_t up = nearest[v];
        int32_t tok = t->node[v].token;
        uint64_t *f = full + 4 * (size_t)v;
        if (v == 0) {
            f[0] = f[1] = f[2] = f[3] = 0;
        } else {
            const uint64_t *g = full + 4 * (size_t)fail[v];
            f[0] = g[0];
            f[1] = g[1];
            f[2] = g[2];
            f[3] = g[3];
        }
        for (uint32_t ch = t->node[v].first; ch < t->node[v + 1].first; ch++) {
            unsigned char b = t->label[ch];
            if (v != 0)
                f[b >> 6] |= 1ULL << (b & 63);
            nearest[ch] = tok >= 0 ? tok : up;
            uint32_t x = v, to = 0;
            while (x != 0) {
                x = fail[x];
                to = trie_child(t, x, b);
                if (to)
                    break;
            }
            fail[ch] = to;
        }
        if (tok >= 0) {
            c->next_prefix[tok] = up;
            uint32_t id = intern_mask(c, &ms, f);
            if (id == UINT32_MAX)
                goto out;
            c->mask_id[tok] = id;
        }
    }
    c->n_masks = ms.used;
    rc = 0;
out:
    PyMem_RawFree(ms.set);
    PyMem_RawFree(nearest);
    PyMem_RawFree(fail);
    PyMem_RawFree(full);
    return rc;
}

static int
max_len_of(Core *c)
{
    c->max_token_len = 0;
    for (Py_ssize_t r = 0; r < c->n_tokens; r++)
        if (tok_len(c, (int32_t)r) > c->max_token_len)
            c->max_token_len = tok_len(c, (int32_t)r);
    return 0;
}

/* The build_split_tables of finish_tables for Core.build: the splits, and the other
   tables only if no token waits (else the caller settles the waiting tokens and builds
   the final core from parts, so tries and masks made here would be thrown away). */
#define FIRST_PASS 2

/* Everything after the blob (and, from parts, the splits), without the GIL (the
   core is not shared yet): 0, 1 where FIRST_PASS stopped after the splits (a token
   waits), -1 on a duplicate token (*dup_rank, *dup_of), -2 out of memory. */
static int
finish_tables(Core *c, int build_split_tables, Py_ssize_t *dup_rank, Py_ssize_t *dup_of)
{
    pair_memo_clear(c);
    max_len_of(c);
    int rc = build_hash(c, dup_rank, dup_of);
    if (rc < 0)
        return rc;
    if (build_split_tables && build_splits(c) < 0)
        return -2;
    if (list_unreachable(c) < 0)
        return -2;
    if (build_split_tables == FIRST_PASS && c->n_unreachable > 0)
        return 1;
    if (build_tries(c) < 0 || build_prefixes_and_masks(c) < 0)
        return -2;
    return 0;
}

/* finish_tables with the GIL released: 0 (or 1, see finish_tables), or -1 with an exception. */
static int
finish(Core *c, int build_split_tables)
{
    Py_ssize_t dup_rank = -1, dup_of = -1;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = finish_tables(c, build_split_tables, &dup_rank, &dup_of);
    Py_END_ALLOW_THREADS
    if (rc == -1) {
        PyObject *tok = PyBytes_FromStringAndSize((const char *)tok_bytes(c, (int32_t)dup_rank),
                                                  tok_len(c, (int32_t)dup_rank));
        if (tok) {
            PyErr_Format(PyExc_ValueError, "token %zd %R duplicates token %zd", dup_rank, tok, dup_of);
            Py_DECREF(tok);
        }
        return -1;
    }
    if (rc < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return rc;
}

static int core_fill(Core *self, PyObject *tokens_arg, int build_split_tables);

static int
Core_init(Core *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tokens", NULL};
    PyObject *tokens_arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &tokens_arg))
        return -1;
    return core_fill(self, tokens_arg, 1);
}

/* Core.build(tokens): the Core of tokens where no token waits after the first pass;
   else (blob, offsets, split_left, split_right, waiting) of that pass (the parts as
   Core.parts gives them, waiting the ranks split -1), without building the tries and
   masks that settling the waiting tokens would make stale. */
static PyObject *
Core_build(PyTypeObject *type, PyObject *tokens_arg)
{
    Core *c = (Core *)type->tp_alloc(type, 0);
    if (c == NULL)
        return NULL;
    int rc = core_fill(c, tokens_arg, FIRST_PASS);
    if (rc < 0) {
        Py_DECREF(c);
        return NULL;
    }
    if (rc == 0)
        return (PyObject *)c;
    Py_ssize_t n = c->n_tokens;
    PyObject *waiting = int_list(c->unreachable, c->n_unreachable);
    PyObject *out = waiting == NULL ? NULL : Py_BuildValue(
        "(y#y#y#y#N)", (const char *)c->blob, (Py_ssize_t)c->offset[n],
        (const char *)c->offset, (n + 1) * (Py_ssize_t)sizeof(uint32_t),
        (const char *)c->split_left, n * (Py_ssize_t)sizeof(int32_t),
        (const char *)c->split_right, n * (Py_ssize_t)sizeof(int32_t), waiting);
    Py_DECREF(c);
    return out;
}

/* The tables of self from a sequence of bytes tokens: finish's result (-1 with an
   exception). */
static int
core_fill(Core *self, PyObject *tokens_arg, int build_split_tables)
{
    if (self->blob != NULL) {
        PyErr_SetString(PyExc_TypeError, "Core is already initialised");
        return -1;
    }
    PyObject *tokens = PySequence_Fast(tokens_arg, "tokens must be a sequence of bytes");
    if (tokens == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tokens);
    PyObject **items = PySequence_Fast_ITEMS(tokens);
    Py_ssize_t total = 0;
    if (n >= NO_RANK - 1) {
        PyErr_SetString(PyExc_ValueError, "too many tokens");
        goto fail;
    }
    for (Py_ssize_t r = 0; r < n; r++) {
        if (!PyBytes_Check(items[r])) {
            PyErr_Format(PyExc_TypeError, "token %zd is %s, expected bytes", r, Py_TYPE(items[r])->tp_name);
            goto fail;
        }
        if (PyBytes_GET_SIZE(items[r]) == 0) {
            PyErr_Format(PyExc_ValueError, "token %zd is empty", r);
            goto fail;
        }
        total += PyBytes_GET_SIZE(items[r]);
        if (total >= UINT32_MAX / 2) {
            PyErr_SetString(PyExc_ValueError, "the tokens hold too many bytes");
            goto fail;
        }
    }
    self->n_tokens = n;
    self->blob = PyMem_RawMalloc((size_t)(total ? total : 1));
    self->offset = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
    if (!self->blob || !self->offset) {
        PyErr_NoMemory();
        goto fail;
    }
    uint32_t at = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        Py_ssize_t len = PyBytes_GET_SIZE(items[r]);
        self->offset[r] = at;
        memcpy(self->blob + at, PyBytes_AS_STRING(items[r]), (size_t)len);
        at += (uint32_t)len;
    }
    self->offset[n] = at;
    Py_DECREF(tokens);
    int rc = finish(self, build_split_tables);
    if (rc < 0) {
        core_free_tables(self);
        return -1;
    }
    return rc;
fail:
    Py_DECREF(tokens);
    core_free_tables(self);
    return -1;
}

/* ------------------------------------------------------------- from parts */

static int
get_buffer(PyObject *o, Py_buffer *view, const char *what)
{
    if (PyObject_GetBuffer(o, view, PyBUF_SIMPLE) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a bytes-like object", what);
        return -1;
    }
    return 0;
}

static PyObject *
Core_from_parts(PyTypeObject *type, PyObject *args)
{
    PyObject *o_blob, *o_off, *o_left, *o_right, *o_exc = Py_None;
    if (!PyArg_ParseTuple(args, "OOOO|O", &o_blob, &o_off, &o_left, &o_right, &o_exc))
        return NULL;
    Py_buffer exc_view = {0};
    if (o_exc != Py_None && get_buffer(o_exc, &exc_view, "exceptional") < 0)
        return NULL;
    const uint8_t *exc_flags = o_exc != Py_None ? (const uint8_t *)exc_view.buf : NULL;
    Py_buffer blob, off, left, right;
    int got = 0;
    Core *c = NULL;
    if (get_buffer(o_blob, &blob, "blob") < 0)
        return NULL;
    got = 1;
    if (get_buffer(o_off, &off, "offsets") < 0)
        goto done;
    got = 2;
    if (get_buffer(o_left, &left, "split_left") < 0)
        goto done;
    got = 3;
    if (get_buffer(o_right, &right, "split_right") < 0)
        goto done;
    got = 4;
    if (off.len % 4 || off.len < 4 || left.len % 4 || right.len != left.len ||
        left.len / 4 != off.len / 4 - 1) {
        PyErr_SetString(PyExc_ValueError, "stored tables: array sizes do not agree");
        goto done;
    }
    Py_ssize_t n = left.len / 4;
    if (exc_flags != NULL && exc_view.len != n) {
        PyErr_SetString(PyExc_ValueError, "stored tables: one exceptional flag per token is needed");
        goto done;
    }
    const uint32_t *o = (const uint32_t *)off.buf;
    if (o[0] != 0 || o[n] != (uint64_t)blob.len || blob.len >= UINT32_MAX / 2 || n >= NO_RANK - 1) {
        PyErr_SetString(PyExc_ValueError, "stored tables: offsets do not span the blob");
        goto done;
    }
    for (Py_ssize_t r = 0; r < n; r++)
        if (o[r + 1] <= o[r]) {
            PyErr_SetString(PyExc_ValueError, "stored tables: offsets are not increasing");
            goto done;
        }
    c = (Core *)type->tp_alloc(type, 0);
    if (c == NULL)
        goto done;
    c->n_tokens = n;
    c->blob = PyMem_RawMalloc((size_t)(blob.len ? blob.len : 1));
    c->offset = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
    c->split_left = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(int32_t));
    c->split_right = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(int32_t));
    if (!c->blob || !c->offset || !c->split_left || !c->split_right) {
        PyErr_NoMemory();
        Py_CLEAR(c);
        goto done;
    }
    memcpy(c->blob, blob.buf, (size_t)blob.len);
    memcpy(c->offset, off.buf, (size_t)(n + 1) * sizeof(uint32_t));
    memcpy(c->split_left, left.buf, (size_t)n * sizeof(int32_t));
    memcpy(c->split_right, right.buf, (size_t)n * sizeof(int32_t));
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t a = c->split_left[r], b = c->split_right[r];
        Py_ssize_t len = tok_len(c, (int32_t)r);
        int ok;
        /* an exceptional token's parts may rank above it (they are never unwound) */
        int32_t below = (exc_flags != NULL && exc_flags[r]) ? (int32_t)n : (int32_t)r;
        if (len == 1)
            ok = a == r && b == r && (exc_flags == NULL || !exc_flags[r]);
        else if (a == -1 || b == -1)
            ok = a == -1 && b == -1;
        else
            ok = a >= 0 && b >= 0 && a < below && b < below && a != r && b != r &&
                 tok_len(c, a) + tok_len(c, b) == len &&
                 memcmp(tok_bytes(c, a), tok_bytes(c, (int32_t)r), (size_t)tok_len(c, a)) == 0 &&
                 memcmp(tok_bytes(c, b), tok_bytes(c, (int32_t)r) + tok_len(c, a), (size_t)tok_len(c, b)) == 0;
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "stored tables: the split of token %zd is not a split of it", r);
            Py_CLEAR(c);
            goto done;
        }
    }
    /* the parts of every usable token are usable (a part of an unreachable token is
       never read) */
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t a = c->split_left[r], b = c->split_right[r];
        if (a >= 0 && (c->split_left[a] < 0 || c->split_left[b] < 0)) {
            PyErr_Format(PyExc_ValueError, "stored tables: the split of token %zd is not a split of it", r);
            Py_CLEAR(c);
            goto done;
        }
    }
    if (exc_flags != NULL) {
        int any = 0;
        for (Py_ssize_t r = 0; r < n; r++)
            any |= exc_flags[r] != 0;
        if (any) {
            c->exc = PyMem_RawMalloc((size_t)(n ? n : 1));
            if (c->exc == NULL) {
                PyErr_NoMemory();
                Py_CLEAR(c);
                goto done;
            }
            for (Py_ssize_t r = 0; r < n; r++)
                c->exc[r] = exc_flags[r] != 0;
        }
    }
    if (finish(c, 0) < 0)
        Py_CLEAR(c);
done:
    if (exc_flags != NULL)
        PyBuffer_Release(&exc_view);
    if (got >= 4)
        PyBuffer_Release(&right);
    if (got >= 3)
        PyBuffer_Release(&left);
    if (got >= 2)
        PyBuffer_Release(&off);
    if (got >= 1)
        PyBuffer_Release(&blob);
    return (PyObject *)c;
}

/* ------------------------------------------------------- from a .tiktoken file */

static int8_t b64_value[256];

static void
init_b64(void)
{
    memset(b64_value, -1, sizeof(b64_value));
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; i++)
        b64_value[(unsigned char)alphabet[i]] = (int8_t)i;
}

/* Decodes strict base64 (padding required, as base64.b64decode(validate=True))
   from s[0:n] into out; the number of bytes, or -1. */
static Py_ssize_t
b64_decode(const unsigned char *s, Py_ssize_t n, unsigned char *out)
{
    if (n == 0 || n % 4)
        return -1;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i += 4) {
        int pad = 0;
        uint32_t v = 0;
        for (int q = 0; q < 4; q++) {
            unsigned char ch = s[i + q];
            int d;
            if (ch == '=' && i + 4 == n && q >= 2) {
                pad++;
                d = 0;
            } else {
                if (pad)
                    return -1;
                d = b64_value[ch];
                if (d < 0)
                    return -1;
            }
            v = (v << 6) | (uint32_t)d;
        }
        out[k++] = (unsigned char)(v >> 16);
        if (pad < 2)
            out[k++] = (unsigned char)(v >> 8);
        if (pad < 1)
            out[k++] = (unsigned char)v;
    }
    return k;
}

/* Core.from_tiktoken(contents): the Core of a .tiktoken file's contents ("base64 rank"
   per line), or None for anything but a plain well-formed file with ranks 0..n-1
   each once (the Python reader then gives its error, or its answer). */
static PyObject *
Core_from_tiktoken(PyTypeObject *type, PyObject *arg)
{
    Py_buffer view;
    init_b64();
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *s = view.buf;
    Py_ssize_t len = view.len, lines = 0;
    for (Py_ssize_t i = 0; i < len; i++)
        lines += s[i] == '\n';
    lines++;
    /* every line decoded: at most 3/4 of its bytes */
    unsigned char *bytes = PyMem_RawMalloc((size_t)len + 1);
    uint32_t *start = PyMem_RawMalloc((size_t)(lines + 1) * sizeof(uint32_t));
    uint32_t *length = PyMem_RawMalloc((size_t)(lines + 1) * sizeof(uint32_t));
    int32_t *at_rank = PyMem_RawMalloc((size_t)(lines + 1) * sizeof(int32_t));
    Core *c = NULL;
    int ok = bytes && start && length && at_rank && len < UINT32_MAX / 2;
    Py_ssize_t n = 0, used = 0;
    if (ok) {
        for (Py_ssize_t r = 0; r <= lines; r++)
            at_rank[r] = -1;
    }
    for (Py_ssize_t i = 0; ok && i < len;) {
        Py_ssize_t e = i;
        while (e < len && s[e] != '\n')
            e++;
        Py_ssize_t a = i, b = e;
        i = e + 1;
        while (a < b && (s[b - 1] == '\r' || s[b - 1] == ' ' || s[b - 1] == '\t'))
            b--;
        while (a < b && (s[a] == ' ' || s[a] == '\t'))
            a++;
        if (a == b)
            continue;
        Py_ssize_t sp = a;
        while (sp < b && s[sp] != ' ')
            sp++;
        Py_ssize_t d = sp;
        while (d < b && s[d] == ' ')
            d++;
        if (sp == b || d == b) {
            ok = 0;
            break;
        }
        Py_ssize_t rank = 0;
        for (Py_ssize_t q = d; q < b; q++) {
            if (s[q] < '0' || s[q] > '9' || rank > (Py_ssize_t)lines) {
                ok = 0;
                break;
            }
            rank = rank * 10 + (s[q] - '0');
        }
        if (!ok || rank >= lines || at_rank[rank] >= 0) {
            ok = 0;
            break;
        }
        Py_ssize_t k = b64_decode(s + a, sp - a, bytes + used);
        if (k <= 0) {
            ok = 0;
            break;
        }
        at_rank[rank] = (int32_t)n;
        start[n] = (uint32_t)used;
        length[n] = (uint32_t)k;
        used += k;
        n++;
    }
    for (Py_ssize_t r = 0; ok && r < n; r++)
        if (at_rank[r] < 0)
            ok = 0;
    PyBuffer_Release(&view);
    if (ok) {
        c = (Core *)type->tp_alloc(type, 0);
        if (c != NULL) {
            c->n_tokens = n;
            c->blob = PyMem_RawMalloc((size_t)(used ? used : 1));
            c->offset = PyMem_RawMalloc((size_t)(n + 1) * sizeof(uint32_t));
            if (!c->blob || !c->offset) {
                PyErr_NoMemory();
                Py_CLEAR(c);
            } else {
                uint32_t off = 0;
                for (Py_ssize_t r = 0; r < n; r++) {
                    int32_t line = at_rank[r];
                    c->offset[r] = off;
                    memcpy(c->blob + off, bytes + start[line], length[line]);
                    off += length[line];
                }
                c->offset[n] = off;
                if (finish(c, 1) < 0) {
                    /* a duplicate token: the Python reader says what is wrong */
                    PyErr_Clear();
                    Py_CLEAR(c);
                }
            }
        }
    }
    PyMem_RawFree(bytes);
    PyMem_RawFree(start);
    PyMem_RawFree(length);
    PyMem_RawFree(at_rank);
    if (c == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return (PyObject *)c;
}

/* --------------------------------------------------------------- accessors */

static int
ready(Core *self)
{
    if (self->offset == NULL) {
        PyErr_SetString(PyExc_ValueError, "Core is not initialised");
        return 0;
    }
    return 1;
}

PyObject *
int_list(const int32_t *a, Py_ssize_t n)
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(a[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *
Core_parts(Core *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    Py_ssize_t n = self->n_tokens;
    return Py_BuildValue("(y#y#y#y#)", (const char *)self->blob, (Py_ssize_t)self->offset[n],
                         (const char *)self->offset, (n + 1) * (Py_ssize_t)sizeof(uint32_t),
                         (const char *)self->split_left, n * (Py_ssize_t)sizeof(int32_t),
                         (const char *)self->split_right, n * (Py_ssize_t)sizeof(int32_t));
}

static PyObject *
Core_tokens(Core *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    PyObject *out = PyList_New(self->n_tokens);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t r = 0; r < self->n_tokens; r++) {
        PyObject *v = PyBytes_FromStringAndSize((const char *)tok_bytes(self, (int32_t)r), tok_len(self, (int32_t)r));
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, r, v);
    }
    return out;
}

static PyObject *
Core_token_lens(Core *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    PyObject *out = PyList_New(self->n_tokens);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t r = 0; r < self->n_tokens; r++)
        PyList_SET_ITEM(out, r, PyLong_FromSsize_t(tok_len(self, (int32_t)r)));
    return out;
}

static PyObject *
Core_split_left(Core *self, PyObject *unused)
{
    return ready(self) ? int_list(self->split_left, self->n_tokens) : NULL;
}

static PyObject *
Core_split_right(Core *self, PyObject *unused)
{
    return ready(self) ? int_list(self->split_right, self->n_tokens) : NULL;
}

static PyObject *
Core_next_prefix(Core *self, PyObject *unused)
{
    return ready(self) ? int_list(self->next_prefix, self->n_tokens) : NULL;
}

static PyObject *
Core_unreachable(Core *self, PyObject *unused)
{
    return ready(self) ? int_list(self->unreachable, self->n_unreachable) : NULL;
}

static PyObject *
Core_masks_bytes(Core *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, self->n_tokens * 32);
    if (out == NULL)
        return NULL;
    char *p = PyBytes_AS_STRING(out);
    for (Py_ssize_t r = 0; r < self->n_tokens; r++)
        memcpy(p + 32 * r, self->mask_table + 4 * (size_t)self->mask_id[r], 32);
    return out;
}

static PyObject *
Core_rank(Core *self, PyObject *arg)
{
    Py_buffer view;
    if (!ready(self) || PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int32_t r = view.len > 0 ? rank_of(self, view.buf, view.len) : NO_RANK;
    PyBuffer_Release(&view);
    if (r == NO_RANK)
        Py_RETURN_NONE;
    return PyLong_FromLong(r);
}

static PyObject *
Core_is_valid_pair(Core *self, PyObject *args)
{
    int t1, t2;
    if (!ready(self) || !PyArg_ParseTuple(args, "ii", &t1, &t2))
        return NULL;
    if (t1 < 0 || t2 < 0 || t1 >= self->n_tokens || t2 >= self->n_tokens || !usable(self, t1) ||
        !usable(self, t2)) {
        PyErr_SetString(PyExc_ValueError, "token id out of range (or unreachable)");
        return NULL;
    }
    return PyBool_FromLong(valid_pair(self, t1, t2));
}

static PyObject *
Core_exceptional(Core *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL || self->exc == NULL)
        return out;
    for (Py_ssize_t r = 0; r < self->n_tokens; r++) {
        if (!self->exc[r])
            continue;
        PyObject *v = PyLong_FromSsize_t(r);
        if (v == NULL || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    return out;
}

static PyObject *
Core_memory_bytes(Core *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    Py_ssize_t n = self->n_tokens;
    size_t total = self->offset[n] + (n + 1) * 4 + (self->mask + 1) * 4 + 65536 * 4 + 3 * n * 4 + n * 4 +
                   (size_t)self->n_masks * 32 + self->n_unreachable * 4;
    const Trie *ts[2] = {&self->fwd, &self->rev};
    for (int k = 0; k < 2; k++)
        total += (size_t)ts[k]->n_nodes * 11 + 4 + (size_t)(ts[k]->n_dense ? ts[k]->n_dense - 1 : 0) * 1024;
    return PyLong_FromSize_t(total);
}

static PyObject *
Core_get_n_tokens(Core *self, void *closure)
{
    return PyLong_FromSsize_t(self->n_tokens);
}

static PyObject *
Core_get_max_token_len(Core *self, void *closure)
{
    return PyLong_FromSsize_t(self->max_token_len);
}

static Py_ssize_t
Core_len(Core *self)
{
    return self->n_tokens;
}

PyMethodDef vocab_methods[] = {
    {"build", (PyCFunction)Core_build, METH_O | METH_CLASS,
     "build(tokens) -> Core | (blob, offsets, split_left, split_right, waiting): Core(tokens)\n"
     "where no token waits after the first pass, else that pass's parts and waiting ranks."},
    {"from_parts", (PyCFunction)Core_from_parts, METH_VARARGS | METH_CLASS,
     "from_parts(blob, offsets, split_left, split_right, exceptional=None) -> Core\n\n"
     "A Core from stored arrays (offsets uint32, splits int32, native byte order; an\n"
     "exceptional flag byte per token, whose split may rank above it), checked before\n"
     "use; the other tables are rebuilt."},
    {"from_tiktoken", (PyCFunction)Core_from_tiktoken, METH_O | METH_CLASS,
     "from_tiktoken(contents: bytes) -> Core | None\n\n"
     "The Core of a .tiktoken file's contents, or None if it is not a plain\n"
     "well-formed file with ranks 0..n-1 each once (the Python reader then decides)."},
    {"parts", (PyCFunction)Core_parts, METH_NOARGS,
     "parts() -> (blob, offsets, split_left, split_right) as bytes (what from_parts takes)."},
    {"tokens", (PyCFunction)Core_tokens, METH_NOARGS, "tokens() -> list[bytes] in rank order."},
    {"token_lens", (PyCFunction)Core_token_lens, METH_NOARGS, "token_lens() -> list[int]."},
    {"split_left", (PyCFunction)Core_split_left, METH_NOARGS, "split_left() -> list[int] (-1: unreachable)."},
    {"split_right", (PyCFunction)Core_split_right, METH_NOARGS, "split_right() -> list[int] (-1: unreachable)."},
    {"next_prefix", (PyCFunction)Core_next_prefix, METH_NOARGS, "next_prefix() -> list[int]."},
    {"masks_bytes", (PyCFunction)Core_masks_bytes, METH_NOARGS,
     "masks_bytes() -> bytes: the 256-bit continuation mask of each token, 32 bytes\n"
     "each as four native-order 64-bit words (bit c of word c >> 6 for byte c)."},
    {"unreachable", (PyCFunction)Core_unreachable, METH_NOARGS,
     "unreachable() -> list[int]: tokens BPE cannot build from two lower-ranked tokens."},
    {"rank", (PyCFunction)Core_rank, METH_O, "rank(token: bytes) -> int | None."},
    {"exceptional", (PyCFunction)Core_exceptional, METH_NOARGS,
     "exceptional() -> list[int]: tokens whose pair tests the merge loop decides."},
    {"is_valid_pair", (PyCFunction)Core_is_valid_pair, METH_VARARGS,
     "is_valid_pair(t1, t2) -> bool: whether BPE keeps t1 and t2 adjacent."},
    {"memory_bytes", (PyCFunction)Core_memory_bytes, METH_NOARGS, "Bytes held by the tables."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Core_getset[] = {
    {"n_tokens", (getter)Core_get_n_tokens, NULL, "number of tokens", NULL},
    {"max_token_len", (getter)Core_get_max_token_len, NULL, "bytes of the longest token", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Core_as_sequence = {
    .sq_length = (lenfunc)Core_len,
};

PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_stream._native._core.Core",
    .tp_doc = "Core(tokens: Sequence[bytes]): a BPE vocabulary (token id == position) with\n"
              "its tables built in C; read-only, shared by threads.",
    .tp_basicsize = sizeof(Core),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_getset = Core_getset,
    .tp_as_sequence = &Core_as_sequence,
};
