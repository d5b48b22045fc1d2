/* spill: the stream a full sync's replicas (or lagging online replicas,
 * repl_primary's lag spill) still need, kept on disk instead of pinned in
 * memory.
 *
 * Why: a replica in full sync needs every stream byte from the snapshot's
 * fork offset on, but receives none until the snapshot is made, sent and
 * loaded. Held in memory (as Redis does in the replica's output buffer),
 * that share grows with the write load and the snapshot's size until
 * client-output-buffer-limit drops the replica, which then starts over,
 * forever. Here a snapshot gets one spill: a cursor over the shared stream
 * that spillPumpAll (before each event-loop sleep) advances after writing
 * the bytes it passed to an unlinked temp file. The stream is thus pinned
 * in memory for at most one loop turn, whatever the snapshot takes.
 *
 * Bytes enter from the stream's blocks (the spill's own streamCursor) and
 * leave through spillRead (pread at a stream offset) to the replicas of
 * that snapshot, which hand over to a memory cursor at spillEnd once they
 * have read the whole file (spillHandOver): the spill's cursor sits there,
 * so that offset is still in memory.
 *
 * If the file cannot be made or written the spill stops pumping and its
 * cursor simply holds the rest in memory (the file keeps what it has):
 * the replicas still converge unless the output buffer limit trips, as
 * without a spill.
 *
 * repl-spill-max-size caps the file: a sync whose replicas fall that far
 * behind is given up as an output buffer overflow is in Redis. The spill
 * overflows (spillOverflowed): the file is closed, the cursor detached so
 * nothing stays pinned, and repl_primary drops the replicas still reading
 * it; they start over with a new snapshot.
 *
 * Ownership: refcounted; the snapshot holds one reference while replicas
 * can still attach, each replica one until it hands over or is freed. The
 * last spillRelease closes the file and detaches the cursor. */
#include "log.h"
#include "server_state.h"
#include "zmalloc.h"
#include "repl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define SPILL_IOV_MAX 64

struct replSpill {
    int refcount;
    int fd;           /* -1: no file */
    int pumping;      /* 0 once a write failed: the cursor holds the rest */
    int overflowed;   /* past repl-spill-max-size: no file, no cursor */
    long long start;  /* stream offset of the file's first byte */
    long long end;    /* overflowed: where the cursor was */
    streamCursor cur; /* at start + the file's length (detached once overflowed) */
    const char *what; /* for the log: whose stream it is */
    replSpill *next;
};

static replSpill *spills; /* every live spill, for spillPumpAll */
static unsigned spill_seq;

replSpill *spillCreateAt(const char *what, long long offset) {
    replSpill *s = zcalloc(sizeof(*s));
    if (streamCursorAttachAt(&s->cur, offset) == -1) {
        zfree(s);
        return NULL;
    }
    s->refcount = 1;
    s->what = what;
    s->start = offset;
    char name[64];
    snprintf(name, sizeof(name), "temp-spill-%d-%u.stream", (int)getpid(), spill_seq++);
    s->fd = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (s->fd == -1) {
        serverLog(LL_WARNING, "Can't create %s for the stream of %s (it stays in memory): %s", name,
                  what, strerror(errno));
    } else {
        /* Nobody else needs a name for it, and a crash leaves nothing behind. */
        unlink(name);
        s->pumping = 1;
    }
    s->next = spills;
    spills = s;
    return s;
}

replSpill *spillCreate(const char *what) {
    return spillCreateAt(what, streamOffset());
}

void spillRetain(replSpill *s) {
    s->refcount++;
}

void spillRelease(replSpill *s) {
    if (--s->refcount > 0) return;
    for (replSpill **pp = &spills; *pp; pp = &(*pp)->next) {
        if (*pp != s) continue;
        *pp = s->next;
        break;
    }
    long long bytes = spillEnd(s) - s->start;
    if (s->fd != -1) {
        close(s->fd);
        if (bytes)
            serverLog(LL_NOTICE, "%s: %lld stream bytes were kept on disk for replicas", s->what,
                      bytes);
    }
    if (!s->overflowed) streamCursorDetach(&s->cur);
    zfree(s);
}

/* The file would pass repl-spill-max-size: give this sync up. */
static void spillOverflow(replSpill *s) {
    s->end = streamCursorOffset(&s->cur);
    serverLog(
        LL_WARNING,
        "%s: the stream kept on disk for its replicas reached repl-spill-max-size "
        "(%lld bytes): they are dropped, as for an output buffer overflow, and will sync again",
        s->what, cfg.repl_spill_max_size);
    close(s->fd);
    s->fd = -1;
    s->pumping = 0;
    s->overflowed = 1;
    streamCursorDetach(&s->cur);
}

static void spillPump(replSpill *s) {
    if (!s->pumping) return;
    while (1) {
        struct iovec iov[SPILL_IOV_MAX];
        int cnt = streamCursorPeek(&s->cur, iov, SPILL_IOV_MAX);
        if (cnt == 0) return;
        if (cfg.repl_spill_max_size) {
            long long len = streamCursorOffset(&s->cur) - s->start;
            for (int j = 0; j < cnt; j++) len += (long long)iov[j].iov_len;
            if (len > cfg.repl_spill_max_size) {
                spillOverflow(s);
                return;
            }
        }
        ssize_t n = writev(s->fd, iov, cnt);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            serverLog(LL_WARNING, "%s: writing the stream to disk failed (it stays in memory): %s",
                      s->what, n < 0 ? strerror(errno) : "no progress");
            s->pumping = 0;
            return;
        }
        /* The file is append-only and read with pread: its length is
         * always the cursor's distance from start. */
        streamCursorAdvance(&s->cur, (size_t)n);
    }
}

void spillPumpAll(void) {
    for (replSpill *s = spills; s; s = s->next) spillPump(s);
}

long long spillStart(const replSpill *s) {
    return s->start;
}

int spillUsable(const replSpill *s) {
    return s->pumping && !s->overflowed;
}

int spillShared(const replSpill *s) {
    return s->refcount > 1;
}

long long spillEnd(const replSpill *s) {
    return s->overflowed ? s->end : streamCursorOffset(&s->cur);
}

int spillOverflowed(const replSpill *s) {
    return s->overflowed;
}

ssize_t spillRead(replSpill *s, long long offset, void *buf, size_t len) {
    if (s->overflowed) {
        errno = EFBIG;
        return -1;
    }
    long long end = spillEnd(s);
    if (offset < s->start || offset >= end) return 0;
    if ((long long)len > end - offset) len = (size_t)(end - offset);
    ssize_t n;
    do n = pread(s->fd, buf, len, (off_t)(offset - s->start));
    while (n < 0 && errno == EINTR);
    return n;
}

int spillHandOver(replSpill *s, long long offset, streamCursor *cur) {
    if (s->overflowed || offset != spillEnd(s)) return -1;
    return streamCursorAttachAt(cur, offset);
}
