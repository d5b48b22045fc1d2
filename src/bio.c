/* bio: the background job threads (see bio.h for the contract).
 *
 * Jobs enter through bioSubmit on the main thread, wait in their kind's
 * queue under its mutex, and leave when the kind's thread has run them;
 * the thread frees the job record, the job function frees its argument.
 * `pending` counts queued plus running jobs, so bioDrain can wait for the
 * running one too. The threads block every signal: SIGTERM and friends
 * must reach the main thread, whose handler schedules the shutdown. */
#define _GNU_SOURCE /* pthread_setname_np, pthread_setaffinity_np */
#include "bio.h"
#include "devcpu.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "util.h"
#include "zmalloc.h"

typedef struct bioJob {
    struct bioJob *next;
    bioJobFn *fn;
    void *arg;
} bioJob;

typedef struct bioQueue {
    pthread_mutex_t lock;
    pthread_cond_t work;    /* signalled when a job is queued */
    pthread_cond_t drained; /* signalled when pending reaches 0 */
    bioJob *head, *tail;
    unsigned long pending;
    int sleeping; /* the thread waits on `work`: a submit must signal */
    int spin_us;  /* bioSetSpin: poll this long for the next job before sleeping */
    long long submitted_us; /* monotonic time of the last submit */
    long long last_gap_us;  /* how long the thread last waited for a job */
    pthread_t thread;
} bioQueue;

static bioQueue queues[BIO_NUM_KINDS];
static int bio_started = 0;
static cpu_set_t bio_base_cpus; /* where the threads run unless told (bioSetAffinity) */
static int bio_base_known;

static void *bioThreadMain(void *arg) {
    bioQueue *q = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (!q->head) {
            long long idle = (long long)monotonicUs();
            int spin = __atomic_load_n(&q->spin_us, __ATOMIC_RELAXED);
            /* (the lock is not held while polling: a submit takes it; each
             * look yields, so on a busy CPU the threads waiting run first) */
            if (spin > 0 && q->last_gap_us < spin) {
                pthread_mutex_unlock(&q->lock);
                while (!__atomic_load_n(&q->head, __ATOMIC_ACQUIRE) &&
                       (long long)monotonicUs() - idle < spin)
                    sched_yield();
                pthread_mutex_lock(&q->lock);
            }
            while (!q->head) {
                q->sleeping = 1;
                pthread_cond_wait(&q->work, &q->lock);
                q->sleeping = 0;
            }
            q->last_gap_us = q->submitted_us - idle; /* (a sleeper's wake-up not included) */
        }
        bioJob *job = q->head;
        q->head = job->next;
        if (!q->head) q->tail = NULL;
        pthread_mutex_unlock(&q->lock);

        job->fn(job->arg);
        zfree(job);

        pthread_mutex_lock(&q->lock);
        __atomic_store_n(&q->pending, q->pending - 1, __ATOMIC_RELEASE);
        if (q->pending == 0) pthread_cond_broadcast(&q->drained);
    }
    return NULL;
}

void bioInit(void) {
    if (bio_started) return;
    for (int k = 0; k < BIO_NUM_KINDS; k++) {
        bioQueue *q = &queues[k];
        memset(q, 0, sizeof(*q));
        pthread_mutex_init(&q->lock, NULL);
        pthread_cond_init(&q->work, NULL);
        pthread_cond_init(&q->drained, NULL);
        if (pthread_create(&q->thread, NULL, bioThreadMain, q) != 0) {
            serverLog(LL_WARNING, "Fatal: can't start the background job thread %d", k);
            exit(1);
        }
        /* Named as Redis 7.0 names its threads, for top -H, perf and gdb. */
        pthread_setname_np(q->thread, k == BIO_LAZY_FREE ? "bio_lazy_free" : "bio_aof_fsync");
        devcpuApply(q->thread, cfg.bio_cpulist, "bio_cpulist");
    }
    bio_base_known =
        pthread_getaffinity_np(queues[0].thread, sizeof(bio_base_cpus), &bio_base_cpus) == 0;
    bio_started = 1;
}

void bioSubmit(int kind, bioJobFn *fn, void *arg) {
    serverAssert(bio_started && kind >= 0 && kind < BIO_NUM_KINDS);
    bioQueue *q = &queues[kind];
    bioJob *job = zmalloc(sizeof(*job));
    job->next = NULL;
    job->fn = fn;
    job->arg = arg;
    pthread_mutex_lock(&q->lock);
    if (q->tail) q->tail->next = job;
    else __atomic_store_n(&q->head, job, __ATOMIC_RELEASE);
    q->tail = job;
    if (__atomic_load_n(&q->spin_us, __ATOMIC_RELAXED)) q->submitted_us = (long long)monotonicUs();
    __atomic_store_n(&q->pending, q->pending + 1, __ATOMIC_RELAXED);
    int wake = q->sleeping;
    pthread_mutex_unlock(&q->lock);
    /* Signalled after the unlock, so the woken thread does not block at
     * once on the mutex still held here (two more futex calls on the
     * appendfsync always path); a thread busy with a job finds the queue
     * without any. */
    if (wake) pthread_cond_signal(&q->work);
}

int bioBaseCpus(cpu_set_t *out) {
    if (!bio_base_known) return 0;
    *out = bio_base_cpus;
    return 1;
}

int bioSetAffinity(int kind, const cpu_set_t *cpus) {
    if (!bio_started || (!cpus && !bio_base_known)) return 0;
    return pthread_setaffinity_np(queues[kind].thread, sizeof(cpu_set_t),
                                  cpus ? cpus : &bio_base_cpus) == 0;
}

void bioSetSpin(int kind, int us) {
    __atomic_store_n(&queues[kind].spin_us, us, __ATOMIC_RELAXED);
}

unsigned long bioPending(int kind) {
    if (!bio_started) return 0;
    /* (read without the lock: called on every loop turn under everysec) */
    return __atomic_load_n(&queues[kind].pending, __ATOMIC_ACQUIRE);
}

void bioDrain(int kind) {
    if (!bio_started) return;
    bioQueue *q = &queues[kind];
    pthread_mutex_lock(&q->lock);
    while (q->pending) pthread_cond_wait(&q->drained, &q->lock);
    pthread_mutex_unlock(&q->lock);
}
