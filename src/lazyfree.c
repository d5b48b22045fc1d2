/* lazyfree: background freeing of values and keyspaces (see lazyfree.h).
 *
 * Values enter from db.c once they are unlinked from the keyspace, so no
 * command can reach them again; they leave through the BIO_LAZY_FREE
 * thread. Only an object with a single reference is handed over: another
 * reference (a transaction's queued argument that SET stored, RENAME's
 * temporary one) belongs to code on the main thread, and two threads must
 * never touch one refcount. The counters are atomics because the
 * background thread updates them while INFO reads them. */
#include "lazyfree.h"

#include "bio.h"
#include "dict.h"
#include "object.h"
#include "zmalloc.h"

static unsigned long pending_objects = 0;    /* handed over, not freed yet */
static unsigned long long freed_objects = 0; /* freed in the background */
static size_t pending_bytes = 0;             /* estimated size of those pending */

/* How many separate frees o costs, as Redis counts them: list nodes,
 * hash-table entries, skiplist nodes; a compact encoding is one. */
static size_t lazyfreeEffort(robj *o) {
    if (o->type < OBJ_TYPE_MAX && objectTypes[o->type].free_effort)
        return objectTypes[o->type].free_effort(o);
    return 1;
}

/* A value in flight, with the size it had (its memory still shows in
 * used_memory until the thread is done, so eviction discounts it). */
typedef struct objectJob {
    robj *o;
    size_t bytes;
} objectJob;

static void lazyfreeObjectJob(void *arg) {
    objectJob *job = arg;
    decrRefCount(job->o);
    __atomic_sub_fetch(&pending_bytes, job->bytes, __ATOMIC_RELAXED);
    zfree(job);
    __atomic_sub_fetch(&pending_objects, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&freed_objects, 1, __ATOMIC_RELAXED);
}

void lazyfreeObject(robj *o) {
    if (o->refcount == 1 && lazyfreeEffort(o) > LAZYFREE_THRESHOLD) {
        objectJob *job = zmalloc(sizeof(*job));
        job->o = o;
        job->bytes = objectComputeSize(o);
        __atomic_add_fetch(&pending_bytes, job->bytes, __ATOMIC_RELAXED);
        __atomic_add_fetch(&pending_objects, 1, __ATOMIC_RELAXED);
        bioSubmit(BIO_LAZY_FREE, lazyfreeObjectJob, job);
    } else {
        decrRefCount(o);
    }
}

size_t lazyfreePendingBytes(void) {
    return __atomic_load_n(&pending_bytes, __ATOMIC_RELAXED);
}

typedef struct keyspaceJob {
    dict *keys, *expires;
} keyspaceJob;

static void lazyfreeKeyspaceJob(void *arg) {
    keyspaceJob *job = arg;
    unsigned long n = dictSize(job->keys);
    /* expires first: its keys are the main dict's, freed with it */
    dictRelease(job->expires);
    dictRelease(job->keys);
    zfree(job);
    __atomic_sub_fetch(&pending_objects, n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&freed_objects, n, __ATOMIC_RELAXED);
}

void lazyfreeKeyspace(dict *keys, dict *expires) {
    keyspaceJob *job = zmalloc(sizeof(*job));
    job->keys = keys;
    job->expires = expires;
    __atomic_add_fetch(&pending_objects, dictSize(keys), __ATOMIC_RELAXED);
    bioSubmit(BIO_LAZY_FREE, lazyfreeKeyspaceJob, job);
}

typedef struct genericJob {
    lazyfreeFn *fn;
    void *arg;
    unsigned long objects;
} genericJob;

static void lazyfreeGenericJob(void *arg) {
    genericJob *job = arg;
    job->fn(job->arg);
    __atomic_sub_fetch(&pending_objects, job->objects, __ATOMIC_RELAXED);
    __atomic_add_fetch(&freed_objects, job->objects, __ATOMIC_RELAXED);
    zfree(job);
}

void lazyfreeSubmit(lazyfreeFn *fn, void *arg, unsigned long objects) {
    genericJob *job = zmalloc(sizeof(*job));
    job->fn = fn;
    job->arg = arg;
    job->objects = objects;
    __atomic_add_fetch(&pending_objects, objects, __ATOMIC_RELAXED);
    bioSubmit(BIO_LAZY_FREE, lazyfreeGenericJob, job);
}

unsigned long lazyfreePendingObjects(void) {
    return __atomic_load_n(&pending_objects, __ATOMIC_RELAXED);
}

unsigned long long lazyfreeFreedObjects(void) {
    return __atomic_load_n(&freed_objects, __ATOMIC_RELAXED);
}

void lazyfreeResetStats(void) {
    __atomic_store_n(&freed_objects, 0, __ATOMIC_RELAXED);
}
