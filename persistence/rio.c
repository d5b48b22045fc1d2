/* rio: the stream implementations behind rio.h (stdio file, sds buffer,
 * buffered file descriptor or read callback), the read window and the shared checksum hook.
 *
 * Bytes enter through rioWrite (appended to the buffer, the FILE*, or the
 * fd's pending buffer, which is written out once it passes 64 KB and on
 * rioFlush) and leave through rioRead. The buffer, fd and codec readers
 * expose what they hold as the rio's read window, which rioRead copies
 * from inline; rioReadSlow refills it through the backend's fill_fn and
 * checksums each window once, as a whole, instead of once per read (the
 * loader reads a byte or a length at a time). stdio reads go through
 * fread. Short reads are failures: a stream either delivers all the bytes
 * asked for or sets its error flag and empties its window. */
#include "rio.h"
#include "crc64.h"
#include "zmalloc.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define RIO_FD_BUFFER (64 * 1024)

static const unsigned char rio_no_window[1];

void rioUpdateChecksum(rio *r, const void *buf, size_t len) { r->cksum = crc64(r->cksum, buf, len); }

void rioEnableChecksum(rio *r) {
    r->flags |= RIO_FLAG_CHECKSUM;
    r->cksum = 0;
    if (r->fill_fn) {
        r->flags |= RIO_FLAG_CRC_DEFERRED;
        r->crc_from = r->rpos;
    }
}

/* Fold the consumed, not yet checksummed part of the window into cksum. */
static void rioSettleChecksum(rio *r) {
    if (!(r->flags & RIO_FLAG_CRC_DEFERRED)) return;
    if (r->rpos > r->crc_from) r->cksum = crc64(r->cksum, r->crc_from, (size_t)(r->rpos - r->crc_from));
    r->crc_from = r->rpos;
}

uint64_t rioChecksum(rio *r) {
    rioSettleChecksum(r);
    return r->cksum;
}

void rioDropWindow(rio *r) { r->rpos = r->rend = r->crc_from = rio_no_window; }

void rioInitBase(rio *r) {
    memset(r, 0, sizeof(*r));
    rioDropWindow(r);
}

static size_t rioReadFail(rio *r) {
    r->flags |= RIO_FLAG_READ_ERROR;
    rioSettleChecksum(r);
    rioDropWindow(r);
    return 0;
}

size_t rioReadSlow(rio *r, void *buf, size_t len) {
    if (r->flags & RIO_FLAG_READ_ERROR) return 0;
    if (len == 0) return 1;
    if (!r->fill_fn) {
        if (!r->read_fn(r, buf, len)) return rioReadFail(r);
        if (r->flags & RIO_FLAG_CHECKSUM) rioUpdateChecksum(r, buf, len);
        r->processed_bytes += len;
        return 1;
    }
    unsigned char *out = buf;
    size_t left = len;
    while (left) {
        size_t avail = (size_t)(r->rend - r->rpos);
        if (!avail) {
            rioSettleChecksum(r);
            int filled = r->fill_fn(r);
            r->crc_from = r->rpos; /* a failed fill may have moved the window too */
            if (!filled) return rioReadFail(r);
            continue;
        }
        size_t n = avail < left ? avail : left;
        memcpy(out, r->rpos, n);
        r->rpos += n;
        out += n;
        left -= n;
    }
    r->processed_bytes += len;
    return 1;
}

/* ---- sds buffer ---- */

static size_t rioBufferWrite(rio *r, const void *buf, size_t len) {
    r->io.buffer.ptr = sdscatlen(r->io.buffer.ptr, buf, len);
    r->io.buffer.pos += (off_t)len;
    return 1;
}

/* The whole rest of the sds is one window. */
static int rioBufferFill(rio *r) {
    size_t len = sdslen(r->io.buffer.ptr);
    if ((size_t)r->io.buffer.pos >= len) return 0;
    r->rpos = (const unsigned char *)r->io.buffer.ptr + r->io.buffer.pos;
    r->rend = (const unsigned char *)r->io.buffer.ptr + len;
    r->io.buffer.pos = (off_t)len;
    return 1;
}

static off_t rioBufferTell(rio *r) { return r->io.buffer.pos - (off_t)(r->rend - r->rpos); }
static int rioBufferFlush(rio *r) {
    (void)r;
    return 1;
}

void rioInitWithBuffer(rio *r, sds s) {
    rioInitBase(r);
    r->fill_fn = rioBufferFill;
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
    rioDropWindow(r);
    return s;
}

void rioFreeBuffer(rio *r) {
    sdsfree(r->io.buffer.ptr);
    r->io.buffer.ptr = NULL;
    rioDropWindow(r);
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
    rioInitBase(r);
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
    if (r->io.fd.reading || sdslen(b) == 0) return 1; /* nothing pending */
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

static int rioFdFill(rio *r) {
    if (!r->io.fd.reading) {
        r->io.fd.reading = 1;
        r->io.fd.buf = sdsMakeRoomFor(r->io.fd.buf, RIO_FD_BUFFER);
    }
    ssize_t n;
    if (r->io.fd.read_cb) n = r->io.fd.read_cb(r->io.fd.ctx, r->io.fd.buf, RIO_FD_BUFFER);
    else {
        do n = read(r->io.fd.fd, r->io.fd.buf, RIO_FD_BUFFER);
        while (n < 0 && errno == EINTR);
    }
    if (n <= 0) return 0;
    r->io.fd.pos += n;
    r->rpos = (const unsigned char *)r->io.fd.buf;
    r->rend = r->rpos + n;
    return 1;
}

static off_t rioFdTell(rio *r) { return r->io.fd.pos - (off_t)(r->rend - r->rpos); }

void rioInitWithFd(rio *r, int fd) {
    rioInitBase(r);
    r->fill_fn = rioFdFill;
    r->write_fn = rioFdWrite;
    r->tell_fn = rioFdTell;
    r->flush_fn = rioFdFlush;
    r->io.fd.fd = fd;
    r->io.fd.buf = sdsempty();
}

/* Never written to: the write side fails at once. */
static size_t rioReaderWrite(rio *r, const void *buf, size_t len) {
    (void)r;
    (void)buf;
    (void)len;
    return 0;
}

void rioInitWithReader(rio *r, ssize_t (*read_cb)(void *ctx, void *buf, size_t len), void *ctx) {
    rioInitWithFd(r, -1);
    r->write_fn = rioReaderWrite;
    r->io.fd.read_cb = read_cb;
    r->io.fd.ctx = ctx;
}

void rioFreeFd(rio *r) {
    sdsfree(r->io.fd.buf);
    r->io.fd.buf = NULL;
    rioDropWindow(r);
}
