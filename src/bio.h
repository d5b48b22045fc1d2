/* bio: background threads for work the event loop must not wait for.
 *
 * One thread per job kind, each with its own FIFO queue, so a long job of
 * one kind (freeing a set of ten million members) never delays a job of
 * another (an fsync, once the append-only file arrives). A job is a
 * function and one argument. Ownership of the argument passes to the job
 * with bioSubmit: the submitter must not touch it again, and the job
 * function frees it. Jobs of one kind run one at a time, in submission
 * order. */
#ifndef CAIRN_BIO_H
#define CAIRN_BIO_H

#include <sched.h>

typedef void bioJobFn(void *arg);

enum {
    BIO_LAZY_FREE, /* values and whole keyspaces dropped by UNLINK, FLUSH* ASYNC */
    BIO_AOF_FSYNC, /* AOF: everysec fsyncs, closing old files, the appendfsync always writer */
    BIO_NUM_KINDS
};

/* Start one thread per kind. Called once at start-up, before any submit. */
void bioInit(void);

void bioSubmit(int kind, bioJobFn *fn, void *arg);

/* Let the kind's thread poll for its next job up to `us` microseconds
 * before it sleeps (0: never), sparing a submit the futex wake-up of a
 * sleeping thread. It polls only while the last wait for a job was shorter
 * than that, so a kind whose jobs come rarely never spins, and yields the
 * CPU between looks. */
void bioSetSpin(int kind, int us);

/* Run the kind's thread on cpus, or (NULL) where the threads started
 * (bio_cpulist, else the process's CPUs). Returns 1 when applied. */
int bioSetAffinity(int kind, const cpu_set_t *cpus);

/* The CPUs the threads started on (bioSetAffinity's NULL); 0 if unknown. */
int bioBaseCpus(cpu_set_t *out);

/* Jobs of the kind submitted and not finished yet (queued or running). */
unsigned long bioPending(int kind);

/* Block until every job of the kind submitted so far has finished. */
void bioDrain(int kind);

#endif
