/* aof_always: appendfsync always, the group commit on the writer thread
 * and the replies held until their bytes are durable (state in
 * aof_internal.h, shared with aof.c).
 *
 * How data enters: aofBeforeSleep (aof.c) calls aofAlwaysKick with the
 * turn's unread stream bytes; commandCall notes each keyspace command's
 * stream offset (aofNoteReply) and client.c asks aofClientMustWait before
 * it writes a client's output. How it leaves: the writer thread writes and
 * fdatasyncs each group (aofWriteJobRun), then either completes it itself
 * with the loop borrowed (aofWriterRelease) or sends it back through the
 * pipe (aofWriterDone); the completion moves aof.durable_off and writes
 * the replies it covers (aofReleaseHeld). The job record is allocated by
 * aofAlwaysKick and freed by aofWriteJobDone. docs/ARCHITECTURE.md says
 * why this is linearizable with respect to durability. */
#define _GNU_SOURCE
#include "aof_internal.h"
#include "aof.h"
#include "aof_prealloc.h"
#include "bio.h"
#include "blocked.h"
#include "client.h"
#include "config.h"
#include "devcpu.h"
#include "event.h"
#include "log.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- writing: always (group commit on the writer thread) ---- */

typedef struct aofWriteJob {
    int fd, pipe_wr;
    off_t start_size; /* logical file size before this job: restored on failure */
    off_t pad_end;    /* in: the file's real size (aof.pad_end); out: after the job */
    int prealloc;     /* the job may write pad ahead (aofPreallocNote) */
    int pad_failed;   /* it tried, and the disk had no room for the pad */
    size_t len;       /* bytes to write: the annotation (ts_len) + stream bytes */
    size_t ts_len;
    time_t ts_time;
    int to_end; /* the job takes the stream up to its end */
    char ts[32];
    int ok, err;
    long long submitted; /* ustime() */
    int iovcnt;
    struct iovec iov[];
} aofWriteJob;

static int aofWriterRelease(aofWriteJob *j);

/* Write the whole vector at off (it is consumed). 0, or -1 with *err. */
static int aofPwritevAll(int fd, struct iovec *iov, int cnt, off_t off, int *err) {
    while (cnt) {
        ssize_t w = pwritev(fd, iov, cnt, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            *err = w < 0 ? errno : ENOSPC;
            return -1;
        }
        off += w;
        while (cnt && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Writer thread: write the group, fdatasync, report back through the
 * pipe. The bytes go at the file's logical end (pwritev): into the pad
 * when there is room (aof_prealloc.c), followed by the '#' trailer, else
 * past the end, with a chunk of pad written after them when the job may
 * preallocate. A failed job leaves the file as it was (best effort
 * truncate, which drops the pad too) and the loop's cursor where it was,
 * so the bytes are retried whole. */
static void aofWriteJobRun(void *arg) {
    aofWriteJob *j = arg;
    off_t end = j->start_size + (off_t)j->len;
    int extend = j->prealloc && j->len <= AOF_PAD_CHUNK && end + 1 > j->pad_end;
    if (extend || end < j->pad_end) {
        static const char trailer = '#';
        j->iov[j->iovcnt].iov_base = (void *)&trailer;
        j->iov[j->iovcnt++].iov_len = 1;
    }
    j->ok = aofPwritevAll(j->fd, j->iov, j->iovcnt, j->start_size, &j->err) == 0;
    if (j->ok) {
        if (end > j->pad_end) j->pad_end = end;
        if (extend) {
            off_t to = aofPadEnd(end + AOF_PAD_CHUNK);
            if (aofPadWrite(j->fd, end + 1, to) == 0)
                j->pad_end = to;
            else { /* no room for pad: the data alone, as without it */
                j->pad_end = ftruncate(j->fd, end) == 0 ? end : end + 1;
                j->pad_failed = 1;
            }
        }
    }
    if (j->ok) aofDebugDelay();
    if (j->ok && aofDatasync(j->fd) == -1) {
        j->ok = 0;
        j->err = errno;
    }
    if (!j->ok) {
        if (ftruncate(j->fd, j->start_size) == 0)
            j->pad_end = j->start_size;
        else if (end > j->pad_end)
            j->pad_end = end; /* (unknown; the drop retries) */
    }
    int pipe_wr = j->pipe_wr;
    if (j->ok && server.el && elTryBorrow(server.el)) {
        /* The loop sleeps: release the replies from here and spare it a
         * wake-up on the way to the client. It is woken only for what it
         * alone does (see aofWriterRelease). */
        int more = aofWriterRelease(j);
        elGiveBack(server.el);
        if (!more) return;
        j = NULL; /* a plain wake-up */
    }
    ssize_t w;
    do {
        w = write(pipe_wr, &j, sizeof(j));
    } while (w == -1 && errno == EINTR);
}

/* Group commit, and when to start the next group. Submitting the next job
 * the moment one finishes splits the clients into two cohorts: those the
 * fsync just released answer while the next fsync (holding only what came
 * in meanwhile) already runs, so each write waits for about two fsyncs and
 * each group holds half the clients. Instead the loop waits for the
 * released clients' next commands (each one's keyspace command counts, in
 * aofNoteReply) so one fsync covers them all: until all came, or none came
 * for the gap, or the maximum passed since the release (a timerfd wakes
 * the loop: epoll's timeout has only milliseconds). With a single client
 * this costs nothing: its next command is the signal.
 *
 * Both limits scale with the group's service time (submit to release,
 * aof.service_us): a straggler that misses the group waits a whole one
 * more, so a slow disk or a loaded machine (clients that come back in
 * bursts a scheduler slice apart) is worth waiting longer for. An eighth
 * of it for the gap, half for the maximum, never below 150 us / 1 ms (a
 * fast, quiet machine) nor above 600 us / 3 ms. Measured with 50 clients
 * on a loaded 2-core machine (service ~3-5 ms): 29 writes per fsync with
 * the fixed 150 us / 1 ms, 39-46 with these, about 1.3x the throughput.
 *
 * Waiting for everyone is right only while the disk is the slow part,
 * though: it leaves the disk idle while the clients come back and the loop
 * idle while the disk works. When gathering all clients takes longer than
 * one group's service time (a fast disk, many clients: 50 clients take
 * ~0.5 ms to come back, a fast fsync ~0.25 ms) two cohorts that alternate
 * do better: one is in the fsync while the loop serves the other, so
 * neither resource waits (N/(2S) or CPU-bound, against N/(S+G) for a
 * full gather, with G > S). aofGatherPlan picks that mode at each release
 * from G as measured: the time from a release to its first client's
 * return (aof.first_us: the replies written, the first answer), plus the
 * spacing of the returns (aof.return_us, the loop's time per client) for
 * each further client in play (those just released plus those already
 * waiting for the next group). The first return is part of G because a
 * cohort's replies and first answer overlap the other cohort's fsync;
 * counting only the spacing kept a fast disk (S ~0.25 ms) gathering,
 * since the writer writes all the replies before the loop sees the first
 * answer and the answers then come bunched. Only while that first return
 * is shorter than S, though: when it is a loaded machine's scheduler
 * delay, both modes pay it in full and gathering keeps the bigger group.
 *
 * And only when G is more than twice S: the cohorts keep both CPUs busy
 * while the disk works, and an fsync needs CPU too (the completion
 * interrupt, the journal thread, the writer's wake-up). On 2 vCPUs with
 * 50 clients that stretched each fsync from ~220 to 250-340 us, so
 * pipelining at G just above S (G ~300 us, S ~250) lost: 74,500 SETs/s
 * against 81,300 with the margin (5 rounds each, redis-server 65,700). */
#define AOF_GATHER_GAP_MIN_US 150
#define AOF_GATHER_GAP_MAX_US 600
#define AOF_GATHER_MAX_MIN_US 1000
#define AOF_GATHER_MAX_MAX_US 3000

static long long aofClamp(long long v, long long lo, long long hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static long long aofGatherDeadline(void) {
    long long gap = aof.gather_last +
                    aofClamp(aof.service_us / 8, AOF_GATHER_GAP_MIN_US, AOF_GATHER_GAP_MAX_US);
    long long max = aof.gather_start +
                    aofClamp(aof.service_us / 2, AOF_GATHER_MAX_MIN_US, AOF_GATHER_MAX_MAX_US);
    return gap < max ? gap : max;
}

static int aofAlwaysMayKick(void) {
    return aof.gather_wait <= 0 || aof.gather_pipeline || ustime() >= aofGatherDeadline();
}

/* At a release (gather_wait clients just released, gather_still_held
 * already waiting for the next group): gather them all, or go on in two
 * cohorts (see above)? */
static void aofGatherPlan(void) {
    long long clients = aof.gather_wait + aof.gather_still_held;
    long long gather_us = aof.first_us + (clients - 1) * aof.return_us;
    aof.gather_pipeline = clients > 1 && aof.return_us && gather_us > 2 * aof.service_us &&
                          aof.first_us < aof.service_us;
}

static void aofGatherArm(void) {
    if (aof.gather_tfd == -1 || aof.gather_armed) return;
    long long us = aofGatherDeadline() - ustime();
    if (us < 1) us = 1;
    struct itimerspec its = {{0, 0}, {us / 1000000, (us % 1000000) * 1000}};
    if (timerfd_settime(aof.gather_tfd, 0, &its, NULL) == 0) aof.gather_armed = 1;
}

/* The timerfd fired: only wakes the loop, whose aofBeforeSleep submits. */
static void aofGatherWake(eventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)data, (void)mask;
    aof.gather_armed = 0;
    uint64_t n;
    if (read(fd, &n, sizeof(n)) == -1) { /* a wake-up that another read took: nothing to do */
    }
}

void aofAlwaysKick(void) {
    if (aof.inflight || aof.fd == -1 || !aof.attached) return;
    struct iovec iov[AOF_IOV_MAX];
    int n = streamCursorPeek(&aof.cur, iov, AOF_IOV_MAX);
    if (n == 0) return;
    if (!aofAlwaysMayKick()) {
        /* Bytes wait for the rest of the group: the timer ends the wait
         * (armed only now, so a lone client never pays for it). */
        aofGatherArm();
        return;
    }
    aof.gather_wait = 0;
    if (aof.last_write_status == C_ERR && server.unixtime == aof.last_retry) return;
    /* (room for the annotation and the pad's trailer) */
    aofWriteJob *j = zmalloc(sizeof(*j) + sizeof(struct iovec) * (size_t)(n + 2));
    j->fd = aof.fd;
    j->pipe_wr = aof.pipe_wr;
    j->start_size = (off_t)aof.incr_size;
    j->pad_end = (off_t)aof.pad_end;
    j->prealloc = aof.prealloc;
    j->pad_failed = 0;
    j->ok = j->err = 0;
    j->ts_len = aofTimestamp(j->ts, sizeof(j->ts));
    j->ts_time = server.unixtime;
    j->len = j->ts_len;
    j->iovcnt = 0;
    if (j->ts_len) {
        j->iov[0].iov_base = j->ts;
        j->iov[0].iov_len = j->ts_len;
        j->iovcnt = 1;
    }
    for (int k = 0; k < n; k++) {
        j->iov[j->iovcnt++] = iov[k];
        j->len += iov[k].iov_len;
    }
    j->to_end = streamCursorOffset(&aof.cur) + (long long)(j->len - j->ts_len) == streamAofOffset();
    aof.inflight = j;
    aof.last_retry = server.unixtime;
    j->submitted = ustime();
    bioSubmit(BIO_AOF_FSYNC, aofWriteJobRun, j);
}

/* Preallocation pays when fsyncs come often: a chunk of pad costs one
 * slower fsync (the size change and the chunk's data), then spares every
 * fsync the journal commit until it is used up. So it is on while the last
 * AOF_PREALLOC_JOBS jobs took at most a second, off otherwise: a quiet
 * server's file grows with each write, as Redis' does. */
#define AOF_PREALLOC_JOBS 64
/* A disk without room for the pad is not asked again for this long: each
 * try writes (and then cuts) whatever room is left. */
#define AOF_PREALLOC_BACKOFF_US 10000000LL
static void aofPreallocNote(long long submitted, int pad_failed) {
    if (pad_failed) {
        aof.prealloc = 0;
        aof.prealloc_off_until = submitted + AOF_PREALLOC_BACKOFF_US;
    }
    if (++aof.prealloc_jobs < AOF_PREALLOC_JOBS) return;
    aof.prealloc = cfg.aof_preallocate && submitted - aof.prealloc_mark <= 1000000 &&
                   submitted >= aof.prealloc_off_until;
    aof.prealloc_mark = submitted;
    aof.prealloc_jobs = 0;
}

/* The loop's side of a finished job. */
static void aofWriteJobDone(aofWriteJob *j) {
    serverAssert(j == aof.inflight);
    aof.inflight = NULL;
    long long took = ustime() - j->submitted;
    aof.service_us = aof.service_us ? (aof.service_us * 7 + took) / 8 : took;
    aof.pad_end = j->pad_end;
    aofPreallocNote(j->submitted, j->pad_failed);
    if (j->ok) {
        streamCursorAdvance(&aof.cur, j->len - j->ts_len);
        if (j->ts_len) aof.last_ts = j->ts_time;
        aof.boundary = j->to_end;
        aof.incr_size += (long long)j->len;
        aof.current_size += (long long)j->len;
        aof.durable_off = streamCursorOffset(&aof.cur);
        aof.last_fsync = server.unixtime;
        aofWriteOk();
    } else {
        aofWriteError(j->err);
    }
    zfree(j);
    /* How far apart the clients of the last release came back: the time
     * the loop spends per client. */
    if (aof.gather_arrived > 1) {
        long long per = (aof.gather_last - aof.gather_first) / (aof.gather_arrived - 1);
        aof.return_us = aof.return_us ? (aof.return_us * 7 + per) / 8 : per;
    }
    /* ...and how long the first one took (its reply written, with the
     * others', then answered): aofGatherPlan. */
    if (aof.gather_arrived > 0) {
        long long first = aof.gather_first - aof.gather_start;
        aof.first_us = aof.first_us ? (aof.first_us * 7 + first) / 8 : first;
    }
    aof.gather_epoch++;
    aof.gather_wait = aof.gather_arrived = 0;
    aofReleaseHeld(0);
    if (aof.gather_wait > 0) aof.gather_start = aof.gather_last = ustime();
    aofGatherPlan();
}

/* On the writer thread, with the loop borrowed (elTryBorrow): the job is
 * done, exactly as aofWriterDone would do it on the loop, the replies it
 * made durable are written, and the next group is submitted (to this same
 * thread's queue, which bioThreadMain then finds without sleeping): the
 * bytes that came in during the fsync start on their way to the disk
 * without a round trip through the loop, which matters when the clients
 * go in two cohorts (aofGatherPlan). Returns 1 when the loop thread must
 * still wake up: released clients with commands waiting (aof.resume),
 * replies the sockets did not take, clients to close, stream bytes that
 * neither a submitted job nor the armed gather timer will take, WAITAOF
 * and other blocked waiters. A lone client's turn thus costs the loop no
 * wake-up: its next command is what wakes it. */
static int aofWriterRelease(aofWriteJob *j) {
    /* (the loop's cached clock is from before it slept: the next group's
     * #TS annotation and the gather deadlines want the time now) */
    updateCachedTime();
    aofWriteJobDone(j);
    clientsHandlePendingWrites();
    if (cfg.appendfsync == APPENDFSYNC_ALWAYS) aofAlwaysKick();
    struct iovec iov[1];
    return aof.resume || server.pending_writes || server.clients_to_close || blockedNoKeysCount() ||
           (!aof.inflight && !aof.gather_armed && streamCursorPeek(&aof.cur, iov, 1) > 0);
}

/* One message of the writer pipe: a finished always job, or NULL (an
 * everysec fsync completed). */
static void aofPipeMessage(aofWriteJob *j) {
    if (j)
        aofWriteJobDone(j);
    else
        aofNoteBioFsync();
}

static void aofWriterDone(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    (void)mask;
    aofWriteJob *msg[16];
    ssize_t r;
    do {
        r = read(fd, msg, sizeof(msg));
        for (ssize_t k = 0; k < r / (ssize_t)sizeof(msg[0]); k++) aofPipeMessage(msg[k]);
    } while (r == (ssize_t)sizeof(msg));
    /* Next group right away: everything produced while that one ran. */
    if (cfg.appendfsync == APPENDFSYNC_ALWAYS) aofAlwaysKick();
}

/* Wait for the job in flight (blocking) and process it. */
void aofWaitInflight(void) {
    if (!aof.inflight) return;
    bioDrain(BIO_AOF_FSYNC);
    aofWriteJob *j;
    while (aof.inflight && read(aof.pipe_rd, &j, sizeof(j)) == (ssize_t)sizeof(j))
        aofPipeMessage(j);
}

/* ---- held replies ---- */

void aofNoteReply(client *c) {
    c->aof_reply_offset = streamAofOffset();
    /* (counted even once the group left without it: return_us) */
    if (c->aof_gather_epoch && c->aof_gather_epoch == aof.gather_epoch) {
        if (aof.gather_wait > 0) aof.gather_wait--;
        c->aof_gather_epoch = 0;
        aof.gather_last = ustime();
        if (aof.gather_arrived++ == 0) aof.gather_first = aof.gather_last;
    }
}

/* The stream's base moved by delta (streamSetOffset: a replica taking its
 * primary's offsets): every offset kept here moves with it, so held
 * replies stay tied to the same bytes. */
void aofStreamShifted(long long delta) {
    aof.durable_off += delta;
    for (client *c = server.clients; c; c = c->next) {
        c->aof_reply_offset += delta;
        if (c->aof_wait_offset) c->aof_wait_offset += delta;
        if (c->aof_next_offset) c->aof_next_offset += delta;
    }
}

/* What c's new output depends on: the stream offset its last keyspace
 * command left (aofNoteReply), or, for clients that receive pushes caused
 * by others' writes (Pub/Sub and keyspace events, MONITOR, tracking
 * invalidations), the whole stream so far.
 *
 * A held client's output is two segments: the first aof_hold_bytes bytes
 * wait for aof_wait_offset, whatever was appended after them waits for
 * aof_next_offset. Output that arrives while a client is held thus never
 * delays what was already waiting (a subscriber under constant writes is
 * still served after each fsync). */
int aofClientMustWait(client *c) {
    if (!aof_hold_active) return 0;
    long long need = (c->flags & (CLIENT_PUBSUB | CLIENT_MONITOR | CLIENT_TRACKING))
                         ? streamAofOffset()
                         : c->aof_reply_offset;
    size_t pending = replyPendingBytes(c);
    if (!(c->flags & CLIENT_AOF_WAIT)) {
        if (aof.durable_off >= need) return 0;
        c->flags |= CLIENT_AOF_WAIT;
        c->aof_wait_offset = need;
        c->aof_hold_bytes = pending;
        c->aof_next_offset = 0;
        c->aof_held_next = aof.held;
        aof.held = c;
        return 1;
    }
    if (pending > c->aof_hold_bytes) {
        if (c->aof_next_offset == 0 && need <= c->aof_wait_offset)
            c->aof_hold_bytes = pending;
        else if (need > c->aof_next_offset)
            c->aof_next_offset = need;
    }
    return 1;
}

/* The first segment of a held client is covered, the second is not:
 * write the first now and make the second the one waiting. */
static void aofReleasePrefix(client *c) {
    if (c->aof_hold_bytes && !(c->flags & CLIENT_CLOSE_ASAP)) {
        size_t before = replyPendingBytes(c);
        c->write_limit = c->aof_hold_bytes;
        int ok = clientWrite(c, 0) == C_OK;
        c->write_limit = 0;
        if (!ok) return;
        size_t written = before - replyPendingBytes(c);
        c->aof_hold_bytes -= written < c->aof_hold_bytes ? written : c->aof_hold_bytes;
    }
    if (c->aof_hold_bytes == 0) {
        /* (a socket that took only part of it is retried at the next fsync) */
        c->aof_wait_offset = c->aof_next_offset;
        c->aof_hold_bytes = replyPendingBytes(c);
        c->aof_next_offset = 0;
    }
}

static void listRemove(client **head, client *c) {
    for (client **pp = head; *pp; pp = &(*pp)->aof_held_next) {
        if (*pp == c) {
            *pp = c->aof_held_next;
            return;
        }
    }
}

void aofClientFreed(client *c) {
    if (c->flags & CLIENT_AOF_WAIT) listRemove(&aof.held, c);
    if (c->flags & CLIENT_AOF_RESUME) listRemove(&aof.resume, c);
    c->flags &= ~(CLIENT_AOF_WAIT | CLIENT_AOF_RESUME);
    c->aof_held_next = NULL;
}

void aofReleaseHeld(int all) {
    client *ready = NULL;
    client **pp = &aof.held;
    aof.gather_still_held = 0;
    while (*pp) {
        client *c = *pp;
        if (!all && c->aof_wait_offset <= aof.durable_off && c->aof_next_offset > aof.durable_off) {
            aofReleasePrefix(c);
            pp = &c->aof_held_next;
            continue;
        }
        if (all || c->aof_wait_offset <= aof.durable_off) {
            *pp = c->aof_held_next;
            c->flags &= ~CLIENT_AOF_WAIT;
            c->aof_held_next = ready;
            ready = c;
        } else {
            aof.gather_still_held++;
            pp = &c->aof_held_next;
        }
    }
    while (ready) {
        client *c = ready;
        ready = c->aof_held_next;
        c->aof_held_next = NULL;
        if (!all && !(c->flags & CLIENT_CLOSE_ASAP)) {
            c->aof_gather_epoch = aof.gather_epoch;
            aof.gather_wait++;
        }
        if (clientHasPendingReplies(c)) replyBegin(c);
        /* Its further commands waited while its replies were held: they
         * run in aofBeforeSleep, never from inside a caller of this. */
        if (c->qb_pos < sdslen(c->querybuf) && !(c->flags & CLIENT_AOF_RESUME)) {
            c->flags |= CLIENT_AOF_RESUME;
            c->aof_held_next = aof.resume;
            aof.resume = c;
        }
    }
}

/* Released output goes out before the client's waiting commands run, so
 * their replies (which may wait again) do not hold it back. */
void aofResumeClients(void) {
    client *later = NULL;
    while (aof.resume) {
        client *c = aof.resume;
        aof.resume = c->aof_held_next;
        c->aof_held_next = NULL;
        c->flags &= ~CLIENT_AOF_RESUME;
        if (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_AOF_WAIT)) continue;
        if (clientHasPendingReplies(c) &&
            (clientWrite(c, 0) != C_OK || clientHasPendingReplies(c))) {
            if (c->flags & CLIENT_CLOSE_ASAP) continue;
            /* The socket is full: the rest is written as usual first. */
            replyBegin(c);
            c->flags |= CLIENT_AOF_RESUME;
            c->aof_held_next = later;
            later = c;
            continue;
        }
        server.current_client = c;
        clientProcessInput(c);
        server.current_client = NULL;
    }
    aof.resume = later;
}

/* How long the writer polls for the next job before it sleeps. A job
 * submitted to a sleeping thread costs a futex wake-up, and on a virtual
 * machine waking a halted vCPU is worth tens of microseconds: with one
 * client the next job comes one round trip after the release (tens of us).
 * Longer waits (many clients gathering, rare writes) stop the polling by
 * themselves (bio polls only while the last wait was shorter). */
#define AOF_WRITER_SPIN_US 100

/* The loop's side of the same cost. While a group is in the writer's
 * hands, or its released clients have not all come back, the next event
 * (the release, their next commands) is a fraction of a millisecond away;
 * a loop blocked in epoll_wait meanwhile lets its vCPU halt, and the
 * client the writer answers is then woken on a halted CPU and its next
 * command wakes another. Measured with one client (SET under always,
 * 2 vCPUs, Firecracker, guest halt-polling off): blocking, 3,970-4,430
 * SETs/s; polling 200 us, 5,000-5,830; redis-server, which blocks in
 * fdatasync on the loop itself (its CPU never halts), 4,880-5,340; in
 * utils/bench, aof_always_c1 went from 0.77-0.82x to 1.02x of it
 * unpinned, 1.08x to 1.15-1.18x pinned. So the loop polls (yielding
 * the CPU between looks) for twice a group's service time from now, or
 * from the release, and blocks after that. It is not waiting for the
 * disk: any event ends the poll at once. A disk slower than the cap
 * (a millisecond per group) is not worth polling for. */
#define AOF_LOOP_SPIN_MIN_US 100
#define AOF_LOOP_SPIN_MAX_US 1000

int aofAlwaysLoopSpinUs(void) {
    long long s = aof.service_us;
    if (s <= 0 || s > AOF_LOOP_SPIN_MAX_US) return 0;
    long long budget = aofClamp(2 * s, AOF_LOOP_SPIN_MIN_US, AOF_LOOP_SPIN_MAX_US);
    if (aof.inflight) return (int)budget;
    if (aof.gather_wait > 0) {
        long long left = aof.gather_start + budget - ustime();
        return left > 0 ? (int)left : 0;
    }
    return 0;
}

/* Under always the writer waits in fdatasync for every group: it runs on
 * the CPUs that take the AOF disk's completion interrupts, when that is a
 * strict subset (devcpu.c says why and what it measured), unless
 * bio_cpulist placed the background threads already. aofAlwaysCron looks
 * again now and then: irqbalance may move the interrupt. */
static int writer_placed, writer_active;
static cpu_set_t writer_cpus;

static void aofWriterPlace(int on) {
    cpu_set_t cpus, base;
    /* (within the threads' CPUs, not the loop's: server_cpulist is not theirs) */
    if (on && !cfg.bio_cpulist && aof.fd != -1 && bioBaseCpus(&base) &&
        devcpuForFile(aof.fd, &base, &cpus)) {
        if (writer_placed && CPU_EQUAL(&cpus, &writer_cpus)) return;
        if (!bioSetAffinity(BIO_AOF_FSYNC, &cpus)) return;
        writer_placed = 1;
        writer_cpus = cpus;
        char list[256] = "";
        size_t len = 0;
        for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof(list); c++)
            if (CPU_ISSET(c, &cpus))
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", len ? "," : "", c);
        serverLog(LL_VERBOSE, "AOF writer on CPU %s, where the AOF disk's interrupts land", list);
    } else if (writer_placed) {
        bioSetAffinity(BIO_AOF_FSYNC, NULL);
        writer_placed = 0;
    }
}

void aofAlwaysCron(void) {
    static time_t last;
    if (!writer_active || server.unixtime - last < 10) return;
    last = server.unixtime;
    aofWriterPlace(1);
}

void aofAlwaysActive(int on) {
    /* Only this writer borrows the loop (aofWriterRelease). */
    if (server.el) elSetLendable(server.el, on);
    bioSetSpin(BIO_AOF_FSYNC, on ? AOF_WRITER_SPIN_US : 0);
    writer_active = on;
    aofWriterPlace(on);
}

void aofAlwaysInit(void) {
    int p[2];
    if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1) {
        serverLog(LL_WARNING, "Can't create the AOF writer pipe: %s", strerror(errno));
        exit(1);
    }
    aof.pipe_rd = p[0];
    aof.pipe_wr = p[1];
    if (server.el) elAddFile(server.el, aof.pipe_rd, EV_READABLE, aofWriterDone, NULL);
    aof.gather_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (aof.gather_tfd != -1 && server.el)
        elAddFile(server.el, aof.gather_tfd, EV_READABLE, aofGatherWake, NULL);
}
