/* rio: one byte-stream type for snapshots, over a stdio file, an in-memory
 * sds buffer, a raw file descriptor (a pipe, for diskless sync), or a
 * caller's read callback (a replica loading from its connection).
 *
 * Every read and write is all-or-nothing: rioRead/rioWrite return 1 when
 * the whole length moved and 0 otherwise, after which the stream's error
 * flag stays set. A rio keeps a processed-bytes counter (progress reports,
 * error offsets) and, once rioEnableChecksum is called, the running CRC64
 * of every byte read or written since (the RDB trailer).
 *
 * Ownership: a file rio borrows the FILE* (the caller fcloses it); a fd rio
 * borrows the descriptor but owns its write buffer (freed by rioFreeFd); a
 * buffer rio owns its sds (rioBufferSds hands it over, rioFreeBuffer frees
 * it). */
#ifndef CAIRN_RIO_H
#define CAIRN_RIO_H
#include "sds.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define RIO_FLAG_READ_ERROR  (1 << 0)
#define RIO_FLAG_WRITE_ERROR (1 << 1)
#define RIO_FLAG_CHECKSUM    (1 << 2)
/* The stream computes the checksum itself over whole buffers (the fd rio's
 * read-ahead) instead of once per rioRead: loaders read a byte or a length
 * at a time, and a CRC call per read cost more than the CRC itself. */
#define RIO_FLAG_CRC_DEFERRED (1 << 3)

typedef struct rio rio;
struct rio {
    /* Reading: the bytes the backend has buffered and the reader has not
     * consumed yet, [rpos, rend). rioRead copies from here without a call;
     * only when it runs dry does the backend's fill_fn (windowed readers:
     * fd, buffer, codec) or read_fn (stdio) get involved. Never NULL. */
    const unsigned char *rpos, *rend;
    /* With RIO_FLAG_CRC_DEFERRED: [crc_from, rpos) is consumed but not in
     * cksum yet; it is folded in before a refill and by rioChecksum. */
    const unsigned char *crc_from;
    /* Windowed readers: point rpos/rend at the next buffered bytes; 0 at
     * the end of the stream or on an error. NULL for the others. */
    int (*fill_fn)(rio *r);
    size_t (*read_fn)(rio *r, void *buf, size_t len);        /* 1 on success */
    size_t (*write_fn)(rio *r, const void *buf, size_t len); /* 1 on success */
    off_t (*tell_fn)(rio *r);
    int (*flush_fn)(rio *r); /* 1 on success */
    uint64_t cksum;
    int flags;
    size_t processed_bytes;
    union {
        struct {
            sds ptr;
            off_t pos; /* writing: the length; reading: the end of the window */
        } buffer;
        struct {
            FILE *fp;
            off_t buffered;  /* written since the last fsync */
            off_t autosync;  /* fsync every this many bytes (0: never) */
        } file;
        struct {
            int fd;
            int reading;     /* the buffer holds read-ahead, not pending writes */
            off_t pos;       /* bytes handed to the fd (writes) or read from it */
            sds buf;         /* pending writes, or the read-ahead (the window) */
            /* rioInitWithReader: where the bytes come from instead of read() */
            ssize_t (*read_cb)(void *ctx, void *buf, size_t len);
            void *ctx;
        } fd;
        struct {
            void *ctx;       /* the zstd or lz4 (de)compression context */
            int codec;       /* RIO_CODEC_* (rio_codec.h) */
            rio *inner;      /* writing: where the frame goes (borrowed) */
            FILE *fp;        /* reading: where the frame comes from (borrowed) */
            rio *src;        /* reading, instead of fp: a windowed rio (a socket) */
            char *buf;       /* compressed bytes in flight (owned) */
            size_t cap, len, pos;
            char *ubuf;      /* uncompressed bytes staged (owned) */
            size_t ucap, ulen;
            int eof;         /* reading: the frame ended */
        } codec;
    } io;
};

void rioInitWithFile(rio *r, FILE *fp);
/* A buffer rio reading s (which it takes over) or, with s == NULL, writing
 * into a new empty sds. */
void rioInitWithBuffer(rio *r, sds s);
void rioInitWithFd(rio *r, int fd);
/* A reading rio like the fd one whose bytes come from read_cb(ctx, ...)
 * (e.g. a TLS connection, which a bare read() would bypass): it returns
 * > 0 bytes, 0 at the end, -1 on an error. Freed by rioFreeFd. */
void rioInitWithReader(rio *r, ssize_t (*read_cb)(void *ctx, void *buf, size_t len), void *ctx);
void rioFreeFd(rio *r);
void rioFreeBuffer(rio *r);
/* The buffer's contents; the rio gives up ownership (and is empty after). */
sds rioBufferSds(rio *r);

/* fsync a file rio every `bytes` written (rdb-save-incremental-fsync). */
void rioSetAutoSync(rio *r, off_t bytes);
/* Used by rioRead/rioWrite when RIO_FLAG_CHECKSUM is set. */
void rioUpdateChecksum(rio *r, const void *buf, size_t len);
/* Start (or restart from 0) the running CRC64 over the bytes that follow. */
void rioEnableChecksum(rio *r);

static inline size_t rioWrite(rio *r, const void *buf, size_t len) {
    if (r->flags & RIO_FLAG_WRITE_ERROR) return 0;
    if (len == 0) return 1;
    if (r->flags & RIO_FLAG_CHECKSUM) rioUpdateChecksum(r, buf, len);
    if (!r->write_fn(r, buf, len)) {
        r->flags |= RIO_FLAG_WRITE_ERROR;
        return 0;
    }
    r->processed_bytes += len;
    return 1;
}

/* rioRead past the window: refills, the stdio backend, errors. */
size_t rioReadSlow(rio *r, void *buf, size_t len);

static inline size_t rioRead(rio *r, void *buf, size_t len) {
    /* The window is empty once the stream has failed, so an error always
     * takes the slow path. */
    if ((size_t)(r->rend - r->rpos) >= len) {
        memcpy(buf, r->rpos, len);
        r->rpos += len;
        r->processed_bytes += len;
        return 1;
    }
    return rioReadSlow(r, buf, len);
}

/* The next len bytes in place, consumed, when the window holds them all;
 * NULL otherwise (nothing is consumed: read them with rioRead). The
 * pointer is valid until the next read. */
static inline const unsigned char *rioReadInPlace(rio *r, size_t len) {
    if ((size_t)(r->rend - r->rpos) < len || len == 0) return NULL;
    const unsigned char *p = r->rpos;
    r->rpos += len;
    r->processed_bytes += len;
    return p;
}

/* A zeroed rio with an empty window: every backend's init starts here. */
void rioInitBase(rio *r);
/* Empty the window (its buffer is about to be freed). */
void rioDropWindow(rio *r);

/* The CRC64 of every byte read or written since rioEnableChecksum. */
uint64_t rioChecksum(rio *r);

static inline off_t rioTell(rio *r) { return r->tell_fn(r); }
/* Push buffered bytes to the file or descriptor (stdio: fflush). 1 on success. */
static inline int rioFlush(rio *r) { return r->flush_fn(r); }
static inline int rioHasError(const rio *r) {
    return (r->flags & (RIO_FLAG_READ_ERROR | RIO_FLAG_WRITE_ERROR)) != 0;
}

#endif
