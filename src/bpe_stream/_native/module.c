/* The module bpe_stream._native._core: the one C extension of the package.

It creates the module and the Core type, whose methods come from the parts listed
in PARTS below, one line per part (a .c file): the part's Core methods (a
NULL-terminated PyMethodDef array, or NULL) and its init function (module-level
objects and constants, or NULL).  A new part adds its file to setup.py and one line
here.  The module declares that it does not need the GIL on free-threaded builds:
Core is immutable after construction and every routine works on its own buffers.
*/
#include "core.h"


typedef struct {
    PyMethodDef *core_methods;
    int (*init)(PyObject *module);
} Part;

static const Part PARTS[] = {
    {vocab_methods, NULL},                      /* vocab.c: building the tables */
    {backtracking_methods, NULL},               /* backtracking.c: raw BPE of bytes */
    {merge_loop_methods, merge_loop_init},      /* merge_loop.c: pieces, ASCII scanning */
    {prefix_table_methods, prefix_table_init},  /* prefix_table.c: table pass, intervals */
    {NULL, search_init},                        /* search.c: bisect over int arrays */
    {batch_methods, batch_init},                /* batch.c: ASCII batches on threads */
    {NULL, pool_init},                          /* pool.c: the batches' worker threads */
    {presplit_methods, presplit_init},          /* presplit.c: every member's pre-split */
    {NULL, text_intervals_init},                /* text_intervals.c: text interval queries */
    {NULL, periodic_runs_init},                 /* periodic_runs.c: runs for the raw index */
    /* loading vocabulary files */
    {NULL, load_strings_init},                  /* load_strings.c: byte-level and GGUF strings */
    {NULL, holding_init},                       /* holding.c: tokens holding waiting ones */
    {NULL, merges_init},                        /* merges.c: listed merges against rank order */
    {NULL, chunk_cuts_init},                    /* chunk_cuts.c: exact chunk cuts in bulk */
    {NULL, chunk_objects_init},                 /* chunk_objects.c: Chunk objects in bulk */
    {NULL, json_sections_init},                 /* json_sections.c: tokenizer.json vocab, merges */
    {NULL, dropping_init},                      /* dropping.c: parts without unreachable tokens */
    {NULL, waiting_init},                       /* waiting.c: waiting tokens by the merge loop */
    {NULL, merges_products_init},               /* merges_products.c: merges_agree from products */
    {NULL, gguf_byte_level_init},               /* gguf_byte_level.c: GGUF strings decoded in one pass */
    {NULL, chunk_runs_init},                    /* chunk_runs.c: exact chunks inside one-piece runs */
    {NULL, normalization_check_init},           /* normalization_check.c: NFC/NFKC quick check */
    {NULL, digit_runs_init},                    /* digit_runs.c: exact chunks inside ASCII digit runs */
    {NULL, chunk_symbol_runs_init},             /* chunk_symbol_runs.c: symbol runs for exact_cuts */
    {NULL, chunk_ws_init},                      /* chunk_ws.c: exact chunks inside whitespace stretches */
    {NULL, table_meet_init},                    /* table_meet.c: table passes resumed where no token crosses */
};

#define N_PARTS (sizeof(PARTS) / sizeof(PARTS[0]))

static PyMethodDef *all_methods;

static int
collect_methods(void)
{
    size_t total = 0;
    for (size_t k = 0; k < N_PARTS; k++)
        for (PyMethodDef *m = PARTS[k].core_methods; m && m->ml_name; m++)
            total++;
    all_methods = PyMem_Calloc(total + 1, sizeof(PyMethodDef));
    if (all_methods == NULL)
        return -1;
    size_t at = 0;
    for (size_t k = 0; k < N_PARTS; k++)
        for (PyMethodDef *m = PARTS[k].core_methods; m && m->ml_name; m++)
            all_methods[at++] = *m;
    return 0;
}

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bpe_stream._native._core",
    .m_doc = "The compiled BPE core (optional; every routine has a pure-Python twin).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (all_methods == NULL && collect_methods() < 0)
        return PyErr_NoMemory();
    CoreType.tp_methods = all_methods;
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
#ifdef Py_GIL_DISABLED
    PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED);
#endif
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    for (size_t k = 0; k < N_PARTS; k++) {
        if (PARTS[k].init && PARTS[k].init(m) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
