/* Persistent worker threads for the batches (batch.c): pool_run(fn, arg, threads).

pool_run runs fn(arg) on `threads` threads at once, the calling thread and threads - 1
workers, and returns when every one has returned.  A batch of 100 short documents takes
a few milliseconds, and an OS thread started per call costs tens of microseconds before
it works (a 2-thread batch of two short texts: 14 us at best, 5 us with the pool); a
worker of the pool sleeps on its own lock between calls and a wake-up costs a few
microseconds.

Invariant: the pool's slots and its job (fn, arg, running, done) are written only by the
thread that holds pool.busy (compare-and-swap 0 -> 1: one batch at a time; a batch that
finds the pool busy, e.g. from another Python thread, or wants more than POOL_MAX
workers, starts its own threads for the call as before), and a worker reads the job only
after it acquired its go lock, which the dispatcher releases after writing the job (the
lock orders the two).  A slot's go lock is held except between the dispatcher's release
and its worker's acquire, so a release always wakes exactly that worker for exactly one
job.  `running` counts the threads still in fn (the dispatcher included); the one that
brings it to zero releases `done` if it is a worker, so the dispatcher returns only after
every worker left fn.  Nothing here relies on the GIL (workers call no Python API), so
it holds on free-threaded builds.

Lifetime: a worker that sleeps POOL_IDLE_US without a job leaves (it takes busy to mark
its slot empty, so no dispatcher wakes a thread that is gone; if a batch holds busy, it
sleeps again); so does a worker that ran a job on the dispatcher's CPU (see serve); the
next batch starts a thread for an empty slot.  At interpreter exit
sleeping workers hold no Python state and end with the process.  After fork() the
child has none of the parent's workers: a pthread_atfork handler empties every slot
and drops the locks (their state was copied mid-use, if at all), so the child's first
batch starts fresh workers.  Cost per call: one lock release per worker woken (a thread
start for an empty slot) and one wait on done.
*/
#include "core.h"

#include <stdatomic.h>

#include "pythread.h"

#ifndef _WIN32
#include <pthread.h>
#endif
#ifdef __linux__
#include <sched.h>
#endif

#define POOL_MAX 64
#define POOL_IDLE_US 2000000 /* 2 s idle: the worker leaves */

typedef struct {
    PyThread_type_lock go; /* held; released by the dispatcher: a job is waiting */
    int alive;             /* a thread serves this slot (read and written under busy) */
    atomic_int leaving;    /* its thread ends after this job (it ran on the caller's CPU) */
} Slot;

static struct {
    atomic_int busy;
    Slot slot[POOL_MAX];
    void (*fn)(void *);
    void *arg;
    int caller_cpu;          /* the dispatcher's CPU, -1: unknown */
    atomic_int running;
    PyThread_type_lock done; /* held; released by the worker that ends a job */
} pool;

/* The CPU the calling thread runs on, -1 if the system does not say. */
static int
this_cpu(void)
{
#ifdef __linux__
    return sched_getcpu();
#else
    return -1;
#endif
}

static int
try_take_pool(void)
{
    int free_ = 0;
    return atomic_compare_exchange_strong(&pool.busy, &free_, 1);
}

static void
serve(void *arg)
{
    Slot *s = arg;
    for (;;) {
        if (PyThread_acquire_lock_timed(s->go, POOL_IDLE_US, 0) != PY_LOCK_ACQUIRED) {
            if (!try_take_pool())
                continue; /* a batch is being dispatched: it may be for this slot */
            s->alive = 0;
            atomic_store(&pool.busy, 0);
            return;
        }
        /* Linux wakes a sleeping thread on its waker's CPU when no CPU is idle, and
           then again and again (the thread's last CPU is the waker's): the worker
           would only take turns with the caller.  A worker that finds itself there
           leaves after the job; a thread started anew is placed on the least loaded
           CPU, as the threads started per call were. */
        int stacked = pool.caller_cpu >= 0 && this_cpu() == pool.caller_cpu;
        pool.fn(pool.arg);
        if (stacked)
            atomic_store(&s->leaving, 1);
        if (atomic_fetch_sub(&pool.running, 1) == 1)
            PyThread_release_lock(pool.done);
        if (stacked)
            return; /* the dispatcher empties the slot */
    }
}

/* The held lock *lock, made if it is NULL; 0 if out of memory. */
static int
held_lock(PyThread_type_lock *lock)
{
    if (*lock != NULL)
        return 1;
    *lock = PyThread_allocate_lock();
    if (*lock == NULL)
        return 0;
    PyThread_acquire_lock(*lock, WAIT_LOCK);
    return 1;
}

typedef struct {
    void (*fn)(void *);
    void *arg;
    atomic_int running;
    PyThread_type_lock done;
} Fresh;

static void
fresh_worker(void *p)
{
    Fresh *f = p;
    f->fn(f->arg);
    if (atomic_fetch_sub(&f->running, 1) == 1)
        PyThread_release_lock(f->done);
}

/* pool_run without the pool: threads - 1 threads started for this call. */
static int
run_fresh(void (*fn)(void *), void *arg, int threads)
{
    Fresh f = {fn, arg, 0, NULL};
    int started = 1;
    if (held_lock(&f.done)) {
        atomic_init(&f.running, threads);
        for (; started < threads; started++)
            if (PyThread_start_new_thread(fresh_worker, &f) == PYTHREAD_INVALID_THREAD_ID)
                break;
        /* threads that did not start will not run: count them as done */
        atomic_fetch_sub(&f.running, threads - started);
    }
    fn(arg);
    if (f.done != NULL) {
        if (atomic_fetch_sub(&f.running, 1) != 1)
            PyThread_acquire_lock(f.done, WAIT_LOCK);
        PyThread_free_lock(f.done);
    }
    return started;
}

int
pool_run(void (*fn)(void *), void *arg, int threads)
{
    int extra = threads - 1;
    if (extra <= 0) {
        fn(arg);
        return 1;
    }
    if (extra > POOL_MAX || !try_take_pool())
        return run_fresh(fn, arg, threads);
    if (!held_lock(&pool.done)) {
        atomic_store(&pool.busy, 0);
        return run_fresh(fn, arg, threads);
    }
    pool.fn = fn;
    pool.arg = arg;
    pool.caller_cpu = this_cpu();
    atomic_store(&pool.running, threads);
    int woken = 0;
    for (; woken < extra; woken++) {
        Slot *s = &pool.slot[woken];
        if (!s->alive) {
            if (!held_lock(&s->go) || PyThread_start_new_thread(serve, s) == PYTHREAD_INVALID_THREAD_ID)
                break;
            s->alive = 1;
        }
        PyThread_release_lock(s->go);
    }
    /* slots that got no thread will not run: count them as done */
    atomic_fetch_sub(&pool.running, extra - woken);
    fn(arg);
    if (atomic_fetch_sub(&pool.running, 1) != 1)
        PyThread_acquire_lock(pool.done, WAIT_LOCK);
    for (int k = 0; k < woken; k++)
        if (atomic_exchange(&pool.slot[k].leaving, 0))
            pool.slot[k].alive = 0;
    atomic_store(&pool.busy, 0);
    return woken + 1;
}

#ifndef _WIN32
/* In the child of fork(): no worker exists there, and the locks' state is what the
   parent's threads left mid-use; the child starts over (the old locks leak, once). */
static void
pool_after_fork(void)
{
    for (int k = 0; k < POOL_MAX; k++) {
        pool.slot[k].alive = 0;
        pool.slot[k].go = NULL;
        atomic_store(&pool.slot[k].leaving, 0);
    }
    pool.done = NULL;
    atomic_store(&pool.busy, 0);
}
#endif

int
pool_init(PyObject *module)
{
    (void)module;
#ifndef _WIN32
    static int registered;
    if (!registered) {
        if (pthread_atfork(NULL, NULL, pool_after_fork) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "pthread_atfork failed");
            return -1;
        }
        registered = 1;
    }
#endif
    return 0;
}
