/* aof_prealloc: the pad, the preallocated tail of the open incremental
 * file under appendfsync always.
 *
 * Why: an fdatasync after an append changes the file's size, so ext4 (and
 * xfs) must commit the journal before it returns; after an overwrite of
 * blocks the file already has, it only writes the data and flushes the
 * disk's cache. Measured on this project's VM (write 1.5 KB + fdatasync,
 * 3,000 times): 209-217 us a call appending, 122-123 us overwriting. The
 * group commit's cycle is mostly that call, so under always the writer
 * thread writes a chunk of pad ahead of the data and then overwrites it
 * (aofWriteJobRun, aof_always.c), as PostgreSQL does with its WAL
 * segments.
 *
 * The pad is a pattern fixed by the absolute file offset: byte o is '\n'
 * when o % 64 == 63, else '#'. Each line is thus a Redis annotation, which
 * Redis 7.0's loader and redis-check-aof skip, and so does aof_load.c: a
 * file with a pad tail (after a crash) loads in either server. A write
 * into the pad ends with one '#' beyond its data (the trailer, not counted
 * in the file's logical size, overwritten by the next write), so the rest
 * of the pad always starts a '#' line, never a bare "\n".
 *
 * How data leaves: aof.c drops the pad (ftruncate to the logical size)
 * before any write on the loop thread, before it closes the file and at
 * shutdown; aof_load.c cuts a pad tail off the last file when it loads it.
 * A power loss during a write into the pad can keep a later block of it
 * but not an earlier one, unlike an append (ext4 orders the size change
 * after the data): the file then shows damage, or pad followed by a
 * command. Such a write was never acknowledged, since nothing is before
 * its fsync. aof_load.c cuts it off like a cut tail when the rest of the
 * file, from AOF_PAD_TORN bytes past the damage, is untouched pad
 * (aofPadTorn); damage further from the pad still stops start-up. */
#define _GNU_SOURCE
#include "aof_prealloc.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define AOF_PAD_LINE 64

static char pad_pattern[65536 + AOF_PAD_LINE];

static void aofPadInit(void) {
    if (pad_pattern[0]) return; /* (racy but idempotent: same bytes) */
    for (size_t k = 0; k < sizeof(pad_pattern); k++)
        pad_pattern[k] = (k % AOF_PAD_LINE == AOF_PAD_LINE - 1) ? '\n' : '#';
}

off_t aofPadEnd(off_t need) {
    return (need + AOF_PAD_LINE - 1) / AOF_PAD_LINE * AOF_PAD_LINE;
}

int aofPadWrite(int fd, off_t from, off_t to) {
    aofPadInit();
    while (from < to) {
        size_t phase = (size_t)(from % AOF_PAD_LINE);
        size_t n = sizeof(pad_pattern) - AOF_PAD_LINE;
        if ((off_t)n > to - from) n = (size_t)(to - from);
        ssize_t w = pwrite(fd, pad_pattern + phase, n, from);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = ENOSPC;
            return -1;
        }
        from += w;
    }
    return 0;
}

int aofPadLine(const char *line, size_t len) {
    if (len < 2 || line[len - 1] != '\n') return 0;
    for (size_t k = 0; k + 1 < len; k++)
        if (line[k] != '#') return 0;
    return 1;
}

int aofPadTail(int fd, off_t size) {
    char buf[AOF_PAD_LINE];
    if (size < AOF_PAD_LINE) return 0;
    if (pread(fd, buf, sizeof(buf), size - AOF_PAD_LINE) != (ssize_t)sizeof(buf)) return 0;
    return aofPadLine(buf, sizeof(buf));
}

int aofPadTorn(int fd, off_t size, off_t e) {
    aofPadInit();
    char buf[sizeof(pad_pattern) - AOF_PAD_LINE];
    off_t from = e + AOF_PAD_TORN;
    if (from > size - AOF_PAD_LINE) from = size - AOF_PAD_LINE;
    if (from < 0) return 0;
    while (from < size) {
        size_t n = sizeof(buf);
        if ((off_t)n > size - from) n = (size_t)(size - from);
        if (pread(fd, buf, n, from) != (ssize_t)n) return 0;
        if (memcmp(buf, pad_pattern + from % AOF_PAD_LINE, n) != 0) return 0;
        from += (off_t)n;
    }
    return 1;
}
