/* rio: the stream implementations behind rio.h (stdio file, sds buffer,
 * buffered file descriptor) and the shared checksum hook.
 *
 * Bytes enter through rioWrite (appended to the buffer, the FILE*, or the
 * fd's pending buffer, which is written out once it passes 64 KB and on
 * rioFlush) and leave through rioRead (copied out of the buffer, fread, or
 * the fd's read-ahead). Short reads are failures: a stream either delivers
 * all the bytes asked for or sets its error flag. */
#include "rio.h"
#include "crc64.h"
#include "zmalloc.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define RIO_FD_BUFFER (64 * 1024)

void rioUpdateChecksum(rio *r, const void *buf, size_t len) { r->cksum = crc64(r->cksum, buf, len); }

static size_t rioFdRead(rio *r, void *buf, size_t len);

void rioEnableChecksum(rio *r) {
    r->flags |= RIO_FLAG_CHECKSUM;
    r->cksum = 0;
    if (r->read_fn == rioFdRead) {
        r->flags |= RIO_FLAG_CRC_DEFERRED;
        r->io.fd.crc_from = r->io.fd.rpos;
    }
}

/* Fold the consumed, not yet checksummed part of the fd rio's read-ahead
 * into cksum. */
static void rioFdSettleChecksum(rio *r) {
    if (!(r->flags & RIO_FLAG_CRC_DEFERRED) || !(r->flags & RIO_FLAG_CHECKSUM)) return;
    if (r->io.fd.rpos > r->io.fd.crc_from)
        r->cksum = crc64(r->cksum, r->io.fd.buf + r->io.fd.crc_from, r->io.fd.rpos - r->io.fd.crc_from);
    r->io.fd.crc_from = r->io.fd.rpos;
}

uint64_t rioChecksum(rio *r) {
    if (r->read_fn == rioFdRead) rioFdSettleChecksum(r);
    return r->cksum;
}

static void rioInitCommon(rio *r) {
    memset(r, 0, sizeof(*r));
}

/* ---- sds buffer ---- */

static size_t rioBufferWrite(rio *r, const void *buf, size_t len) {
    r->io.buffer.ptr = sdscatlen(r->io.buffer.ptr, buf, len);
    r->io.buffer.pos += (off_t)len;
    return 1;
}

static size_t rioBufferRead(rio *r, void *buf, size_t len) {
    size_t avail = sdslen(r->io.buffer.ptr) - (size_t)r->io.buffer.pos;
    if (avail < len) return 0;
    memcpy(buf, r->io.buffer.ptr + r->io.buffer.pos, len);
    r->io.buffer.pos += (off_t)len;
    return 1;
}

static off_t rioBufferTell(rio *r) { return r->io.buffer.pos; }
static int rioBufferFlush(rio *r) {
    (void)r;
    return 1;
}

void rioInitWithBuffer(rio *r, sds s) {
    rioInitCommon(r);
    r->read_fn = rioBufferRead;
    r->write_fn = rioBufferWrite;
    r->tell_fn = rioBufferTell;
    r->flush_fn = rioBufferFlush;
    r->io.buffer.ptr = s ? s : sdsempty();
    r->io.buffer.pos = 0;
}

sds rioBufferSds(rio *r) {
    sds s = r->io.buffer.ptr;
    r->io.buffer.ptr = sdsempty();
    r->io.buffer.pos = 0;
    return s;
}

void rioFreeBuffer(rio *r) {
    sdsfree(r->io.buffer.ptr);
    r->io.buffer.ptr = NULL;
}

/* ---- stdio file ---- */

static size_t rioFileWrite(rio *r, const void *buf, size_t len) {
    if (fwrite(buf, len, 1, r->io.file.fp) != 1) return 0;
    r->io.file.buffered += (off_t)len;
    if (r->io.file.autosync && r->io.file.buffered >= r->io.file.autosync) {
        if (fflush(r->io.file.fp) != 0) return 0;
        if (fsync(fileno(r->io.file.fp)) == -1) return 0;
        r->io.file.buffered = 0;
    }
    return 1;
}

static size_t rioFileRead(rio *r, void *buf, size_t len) {
    return fread(buf, len, 1, r->io.file.fp) == 1;
}

static off_t rioFileTell(rio *r) { return ftello(r->io.file.fp); }
static int rioFileFlush(rio *r) { return fflush(r->io.file.fp) == 0; }

void rioInitWithFile(rio *r, FILE *fp) {
    rioInitCommon(r);
    r->read_fn = rioFileRead;
    r->write_fn = rioFileWrite;
    r->tell_fn = rioFileTell;
    r->flush_fn = rioFileFlush;
    r->io.file.fp = fp;
}

void rioSetAutoSync(rio *r, off_t bytes) {
    if (r->write_fn == rioFileWrite) r->io.file.autosync = bytes;
}

/* ---- file descriptor ---- */

static int rioFdWriteAll(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        if (n == 0) return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

static int rioFdFlush(rio *r) {
    sds b = r->io.fd.buf;
    if (r->io.fd.rpos || sdslen(b) == 0) return 1; /* reading, or nothing pending */
    if (!rioFdWriteAll(r->io.fd.fd, b, sdslen(b))) {
        r->flags |= RIO_FLAG_WRITE_ERROR;
        return 0;
    }
    sdsclear(b);
    return 1;
}

static size_t rioFdWrite(rio *r, const void *buf, size_t len) {
    r->io.fd.pos += (off_t)len;
    if (len >= RIO_FD_BUFFER) {
        if (!rioFdFlush(r)) return 0;
        return (size_t)rioFdWriteAll(r->io.fd.fd, buf, len);
    }
    r->io.fd.buf = sdscatlen(r->io.fd.buf, buf, len);
    if (sdslen(r->io.fd.buf) >= RIO_FD_BUFFER) return (size_t)rioFdFlush(r);
    return 1;
}

static size_t rioFdRead(rio *r, void *buf, size_t len) {
    char *out = buf;
    while (len) {
        size_t avail = sdslen(r->io.fd.buf) - r->io.fd.rpos;
        if (avail) {
            size_t n = avail < len ? avail : len;
            memcpy(out, r->io.fd.buf + r->io.fd.rpos, n);
            r->io.fd.rpos += n;
            out += n;
            len -= n;
            r->io.fd.pos += (off_t)n;
            continue;
        }
        rioFdSettleChecksum(r);
        sdsclear(r->io.fd.buf);
        r->io.fd.rpos = r->io.fd.crc_from = 0;
        r->io.fd.buf = sdsMakeRoomFor(r->io.fd.buf, RIO_FD_BUFFER);
        ssize_t n = read(r->io.fd.fd, r->io.fd.buf, RIO_FD_BUFFER);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        sdsIncrLen(r->io.fd.buf, n);
    }
    return 1;
}

static off_t rioFdTell(rio *r) { return r->io.fd.pos; }

void rioInitWithFd(rio *r, int fd) {
    rioInitCommon(r);
    r->read_fn = rioFdRead;
    r->write_fn = rioFdWrite;
    r->tell_fn = rioFdTell;
    r->flush_fn = rioFdFlush;
    r->io.fd.fd = fd;
    r->io.fd.buf = sdsempty();
}

void rioFreeFd(rio *r) {
    sdsfree(r->io.fd.buf);
    r->io.fd.buf = NULL;
}
