/* aof_internal: what aof.c and aof_always.c share, private to the AOF
 * (nothing outside persistence/aof*.c includes it).
 *
 * aof.c owns the state below (the one instance `aof`), the files, the
 * no/everysec writing, the rewrite and INFO; aof_always.c owns the
 * appendfsync always group commit on the writer thread and the replies
 * held until it is durable. Everything here runs on the loop thread,
 * except where a comment says otherwise. */
#ifndef CAIRN_AOF_INTERNAL_H
#define CAIRN_AOF_INTERNAL_H
#include "aof_manifest.h"
#include "propagate.h"

#include <stddef.h>
#include <time.h>

struct client;
struct aofWriteJob;

#define AOF_OFF          0
#define AOF_ON           1
#define AOF_WAIT_REWRITE 2

#define AOF_IOV_MAX 64

typedef struct aofState {
    int state;
    aofManifest *am;
    int fd; /* last incremental file, written at incr_size (pwrite); -1: none */
    streamCursor cur;
    int attached;
    long long durable_off;  /* stream offset known to be on disk and fsynced */
    long long incr_size;    /* bytes in the open incremental file (its logical size) */
    long long pad_end;      /* its real size: > incr_size while it has a pad (aof_prealloc.c);
                             * the writer's while a job is in flight */
    int prealloc;           /* always jobs may write pad ahead (aofPreallocNote) */
    int prealloc_jobs;      /* jobs since prealloc_mark */
    long long prealloc_mark; /* ustime() of the job that started the count */
    long long prealloc_off_until; /* ustime(): no pad before (the disk had no room) */
    long long current_size; /* base + incremental files */
    long long base_size;    /* current_size after the last rewrite / load */
    time_t last_fsync;
    long long fsynced_size;    /* everysec: incr_size when the last fsync was submitted */
    long long postponed_since; /* everysec: unix ms since a write waits for a running fsync */
    long long delayed_fsync;
    int boundary;          /* the file ends where a command of the stream ends */
    time_t last_ts;        /* aof-timestamp-enabled: second of the last annotation */
    int last_write_status; /* C_OK / C_ERR */
    int last_write_errno;
    time_t last_write_error_log, last_retry;
    /* always: the writer */
    int pipe_rd, pipe_wr;
    struct aofWriteJob *inflight;
    /* Gathering the next group: the clients the last fsync released whose
     * next command has not run yet (gather_wait), within the deadlines of
     * aofGatherDeadline. See aofAlwaysMayKick. */
    long long gather_epoch;
    int gather_wait;
    long long gather_start, gather_last; /* unix us: the release, the last arrival */
    long long service_us;                /* average time from a job's submit to its release */
    int gather_tfd;                      /* timerfd waking the loop at the gather deadline */
    int gather_armed;                    /* gather_tfd is set and has not fired yet */
    int gather_arrived;                  /* clients of the last release that came back */
    int gather_still_held;               /* held clients a release did not cover */
    int gather_pipeline;                 /* two cohorts, no waiting: aofGatherPlan */
    long long gather_first;              /* unix us: the first arrival after the release */
    long long return_us;                 /* mean spacing of the released clients' returns */
    long long first_us;                  /* mean time from a release to its first return */
    struct client *held;                 /* clients waiting for durable_off */
    struct client *resume;               /* released clients whose input waits (aofBeforeSleep) */
    /* rewrite */
    int rewrite_scheduled;
    int rewrite_rdb;          /* the running child writes an RDB preamble */
    int temp_incr;            /* aof.fd is temp-<appendfilename>.incr (AOF_WAIT_REWRITE) */
    time_t rewrite_start;     /* -1: none */
    time_t rewrite_last_time; /* seconds the last rewrite took, -1 */
    time_t rewrite_last_try;
    int last_bgrewrite_status;
    long long rewrites, rewrite_failures;
    int inited;
} aofState;

extern aofState aof;

/* ---- aof.c ---- */
/* The AOF's data fsync (the test hook can pretend it), counted for INFO;
 * any thread. */
int aofDatasync(int fd);
/* The CAIRN_DEBUG_AOF_FSYNC_DELAY_MS test hook; any thread. */
void aofDebugDelay(void);
/* The #TS: annotation due before the next write, into buf; its length, 0
 * for none. */
size_t aofTimestamp(char *buf, size_t size);
void aofWriteOk(void);
void aofWriteError(int err);
/* An everysec fsync finished (a NULL message on the writer pipe). */
void aofNoteBioFsync(void);
/* Cut the pad off the open file (no job in flight): before writes on this
 * thread and before the file is closed. */
void aofPadDrop(void);

/* ---- aof_always.c ---- */
/* The writer pipe and the gather timer, registered in the event loop. */
void aofAlwaysInit(void);
/* Whether always jobs may run from now on: the writer may then borrow the
 * loop and polls briefly for its next job (bioSetSpin). */
void aofAlwaysActive(int on);
/* From aofCron: the writer's placement looked at again (aofWriterPlace). */
void aofAlwaysCron(void);
/* Submit the unread stream bytes as the next group, unless one is in
 * flight or the group is still gathering. */
void aofAlwaysKick(void);
/* How long the loop should poll before it blocks this turn (0: block). */
int aofAlwaysLoopSpinUs(void);
/* Wait (blocking) for the job in flight and complete it. */
void aofWaitInflight(void);
/* Release the held clients the durable offset now covers (all: every one,
 * when holding stops). */
void aofReleaseHeld(int all);
/* Run the input of released clients whose commands waited. */
void aofResumeClients(void);

#endif
