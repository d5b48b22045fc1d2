/* stream: `cairn-backup stream`, continuous archiving of a source's
 * replication stream after a backup.
 *
 *        +------------------- link lost / error (1 s pause) <--------------+
 *        v                                                                 |
 *   pick the newest backup B and the end E of its archived stream          |
 *        |                                                                 |
 *   PSYNC <replid> <E+1> --- +CONTINUE ------------------> ARCHIVING ------+
 *        |                                                   ^   (segments rotated
 *        +-- +FULLRESYNC (logged why): the payload is a new  |    by size and age)
 *            backup B' (full.c), E = its offset -------------+
 *
 * Every read from the link is appended to the active segment with its
 * arrival time (segment.c); the segment is fdatasynced every second.
 * SIGTERM/SIGINT seal the active segment and end the run (exit 0).
 *
 * Not a replica to count: on a cairn source REPLCONF archive-only 1 is
 * accepted, and the primary then leaves the link out of WAIT,
 * min-replicas-to-write, INFO's slave lines and ROLE (nothing for sentinel
 * to find); the tool ACKs its real offset every second to stay alive.
 * A Redis source refuses the option: the tool then ACKs with offset 0
 * (a diskless payload's stream only starts after an ACK) each second
 * until the first stream byte arrives, and never again, so WAIT never
 * counts it; Redis counts it for min-replicas-to-write only
 * for min-replicas-max-lag seconds after each sync, drops it after
 * repl-timeout without ACKs, and the tool continues with a partial resync.
 * No listening port is announced: sentinel sees "port=0", cannot connect,
 * and never promotes it. */
#include "backup.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stream_stop;

static void streamSignal(int sig) {
    (void)sig;
    stream_stop = 1;
}

/* The timeline to continue: newest backup, the end of its contiguous
 * archived stream and the replid of its last bytes. 0 if there is none. */
static int streamResumePoint(const char *repo, sds *timeline, char replid[41], long long *end) {
    int n;
    backupManifest **list = repoListBackups(repo, &n, NULL);
    if (!n) {
        repoFreeList(list, n);
        return 0;
    }
    backupManifest *b = list[n - 1];
    *timeline = sdsdup(b->id);
    memcpy(replid, b->replid, 41);
    *end = b->offset;
    int ns;
    segMeta **segs = segList(repo, b->id, &ns, NULL);
    for (int j = 0; j < ns && segs[j]->start == *end; j++) {
        *end = segs[j]->end;
        memcpy(replid, segs[j]->replid, 41);
    }
    segFreeList(segs, ns);
    repoFreeList(list, n);
    return 1;
}

/* --sentinel: the primary's current address into *host and *port (logged
 * when it is not *source any more). 0, or -1 (logged) if no sentinel knows. */
static int streamAskSentinel(const backupStreamOptions *o, sds *host, int *port, sds *source) {
    sds err = NULL, h = NULL;
    int p;
    if (backupSentinelPrimary(o->sentinels, o->master, o->timeout_s > 5 ? 5 : o->timeout_s, &h, &p,
                              &err) == -1) {
        backupLog("asking sentinel for %s: %s; retrying in 1 s", o->master, err);
        sdsfree(err);
        return -1;
    }
    sds now = sdscatprintf(sdsempty(), "%s:%d", h, p);
    if (!*source || strcmp(now, *source))
        backupLog("sentinel: the primary of %s is %s", o->master, now);
    sdsfree(now);
    sdsfree(*host);
    *host = h;
    *port = p;
    return 0;
}

/* Archive from an attached link until it fails or a stop is asked. */
static void streamArchive(backupLink *l, const char *repo, const char *timeline, long long end,
                          const backupStreamOptions *o) {
    static char buf[64 * 1024];
    segWriter *w = NULL;
    sds err = NULL;
    double last_tick = backupNow(), last_data = backupNow();
    int w_started = 0; /* a stream byte has arrived on this link */
    /* Start the stream (a diskless sync waits for it); Redis gets offset 0. */
    if (backupLinkAck(l, l->archiver ? end : 0) == -1) {
        backupLog("could not send REPLCONF ACK");
        return;
    }
    while (!stream_stop) {
        struct pollfd pfd = {.fd = l->fd, .events = POLLIN};
        int r = backupTransportPending(l) ? 1 : poll(&pfd, 1, 200);
        double now = backupNow();
        if (r > 0) {
            ssize_t n = backupTransportRead(l, buf, sizeof(buf));
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) {
                backupLog("link lost at offset %lld: %s", end,
                          n == 0 ? "connection closed" : strerror(errno));
                break;
            }
            w_started = 1;
            if (!w && !(w = segOpen(repo, timeline, l->replid, end, &err))) break;
            if (segAppend(w, buf, (size_t)n, now, &err) == -1) break;
            end += n;
            last_data = now;
        }
        if (now - last_data > o->timeout_s) {
            backupLog("no data from the source for %d s at offset %lld: reconnecting", o->timeout_s,
                      end);
            break;
        }
        if (now - last_tick >= 1) {
            last_tick = now;
            if (w && segSync(w, &err) == -1) break;
            /* Redis starts a diskless payload's stream at the first ACK
             * after it has seen the transfer end; one sent earlier is
             * ignored, so ACK 0 repeats until the stream has begun. */
            long long ack = l->archiver ? end : 0;
            if ((l->archiver || !w_started) && backupLinkAck(l, ack) == -1) {
                backupLog("link lost at offset %lld: could not send REPLCONF ACK", end);
                break;
            }
        }
        if (w && (segWriterBytes(w) >= o->segment_bytes || segWriterAge(w) >= o->segment_seconds)) {
            long long s = segWriterEnd(w) - segWriterBytes(w), e = segWriterEnd(w);
            int sealed = segClose(w, &err);
            w = NULL;
            if (sealed == -1) break;
            backupLog("sealed segment %s (%lld, %lld]", timeline, s, e);
        }
    }
    if (w) {
        long long s = segWriterEnd(w) - segWriterBytes(w), e = segWriterEnd(w);
        if (segClose(w, err ? NULL : &err) == 0)
            backupLog("sealed segment %s (%lld, %lld]", timeline, s, e);
    }
    if (err) backupLog("archiving stopped: %s", err);
    sdsfree(err);
}

int backupStream(const backupStreamOptions *o) {
    sds err = NULL;
    if (repoInit(o->repo, &err) == -1 || segRecover(o->repo, &err) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", err);
        sdsfree(err);
        return 1;
    }
    repoRemoveStaleTmp(o->repo);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = streamSignal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    sds source = NULL, host = NULL;
    while (!stream_stop) {
        sds timeline = NULL, refusal = NULL;
        char replid[41];
        long long end = 0;
        backupLinkOptions lo = o->link;
        if (o->sentinels && streamAskSentinel(o, &host, &lo.port, &source) == -1) {
            for (int j = 0; j < 10 && !stream_stop; j++) usleep(100000);
            continue;
        }
        if (o->sentinels) lo.host = host;
        sdsfree(source);
        source = sdscatprintf(sdsempty(), "%s:%d", lo.host, lo.port);
        int resume = streamResumePoint(o->repo, &timeline, replid, &end);
        lo.archive_only = 1;
        lo.rdb_only = 0;
        lo.psync_replid = resume ? replid : NULL;
        lo.psync_offset = end + 1;
        lo.psync_refusal = &refusal;
        backupLink *l = backupLinkOpen(&lo, &err);
        if (!l) {
            backupLog("%s: %s; retrying in 1 s", source, err);
        } else if (l->continued) {
            backupLog(
                "partial resync with %s from offset %lld (replid %s), archiving after backup %s",
                source, end + 1, l->replid, timeline);
            streamArchive(l, o->repo, timeline, end, o);
        } else {
            backupLog("partial resync impossible (%s): taking a new full backup",
                      refusal ? refusal : "the repository has no backup yet");
            sds prev = timeline;
            timeline = NULL;
            if (backupStoreSnapshot(l, o->repo, source, prev, end, &timeline, &err) == -1)
                backupLog("full backup failed: %s", err);
            else
                streamArchive(l, o->repo, timeline, l->offset, o);
            sdsfree(prev);
        }
        backupLinkClose(l);
        sdsfree(err);
        err = NULL;
        sdsfree(timeline);
        sdsfree(refusal);
        for (int j = 0; j < 10 && !stream_stop; j++) usleep(100000);
    }
    backupLog("stopped");
    sdsfree(source);
    sdsfree(host);
    return 0;
}
