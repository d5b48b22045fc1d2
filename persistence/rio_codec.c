/* rio_codec: zstd and lz4 frames as a rio layer (see rio_codec.h).
 *
 * Both directions stage the uncompressed side in codec.ubuf: the RDB code
 * writes and reads a few bytes at a time, and a compressor call per field
 * costs far more than the bytes it handles. Writing: rioWrite appends to
 * ubuf; a full ubuf is compressed into codec.buf, which goes to the inner
 * rio whenever it fills; rioCodecFinish writes what is left and the frame's
 * end. Reading: compressed bytes are read from the FILE* in RIO_CODEC_CHUNK
 * pieces into codec.buf and decompressed a ubuf at a time; reads are
 * served from ubuf. A frame that ends
 * early (a truncated file) or is corrupt makes the read fail, which the
 * RDB loader reports as a short read at that (uncompressed) offset.
 *
 * processed_bytes counts uncompressed bytes, so progress and error offsets
 * refer to the RDB inside the frame. */
#include "rio_codec.h"
#include "zmalloc.h"

#include <lz4frame.h>
#include <string.h>
#include <zstd.h>

#define RIO_CODEC_CHUNK (128 * 1024)
#define RIO_ZSTD_LEVEL 1 /* fast: snapshots are written while clients wait on COW */

static const unsigned char zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
static const unsigned char lz4_magic[4] = {0x04, 0x22, 0x4d, 0x18};

const char *rioCodecName(int codec) {
    return codec == RIO_CODEC_ZSTD ? "zstd" : codec == RIO_CODEC_LZ4 ? "lz4" : "none";
}

/* ---- writing ---- */

static int rioCodecDrain(rio *r) {
    if (!r->io.codec.len) return 1;
    int ok = rioWrite(r->io.codec.inner, r->io.codec.buf, r->io.codec.len) != 0;
    r->io.codec.len = 0;
    return ok;
}

static size_t rioZstdCompress(rio *r, const void *buf, size_t len) {
    ZSTD_inBuffer in = {buf, len, 0};
    while (in.pos < in.size) {
        ZSTD_outBuffer out = {r->io.codec.buf, r->io.codec.cap, r->io.codec.len};
        size_t ret = ZSTD_compressStream2(r->io.codec.ctx, &out, &in, ZSTD_e_continue);
        if (ZSTD_isError(ret)) return 0;
        r->io.codec.len = out.pos;
        if (r->io.codec.len == r->io.codec.cap && !rioCodecDrain(r)) return 0;
    }
    return 1;
}

static size_t rioLz4Compress(rio *r, const void *buf, size_t len) {
    const char *p = buf;
    while (len) {
        /* Feed pieces whose worst case fits the free buffer space. */
        size_t n = len > RIO_CODEC_CHUNK / 2 ? RIO_CODEC_CHUNK / 2 : len;
        if (r->io.codec.cap - r->io.codec.len < LZ4F_compressBound(n, NULL) && !rioCodecDrain(r))
            return 0;
        size_t ret = LZ4F_compressUpdate(r->io.codec.ctx, r->io.codec.buf + r->io.codec.len,
                                         r->io.codec.cap - r->io.codec.len, p, n, NULL);
        if (LZ4F_isError(ret)) return 0;
        r->io.codec.len += ret;
        p += n;
        len -= n;
    }
    return 1;
}

/* Hand the staged bytes to the compressor. */
static int rioCodecFlushStage(rio *r) {
    size_t n = r->io.codec.ulen;
    r->io.codec.ulen = 0;
    if (!n) return 1;
    return (int)(r->io.codec.codec == RIO_CODEC_ZSTD ? rioZstdCompress(r, r->io.codec.ubuf, n)
                                                     : rioLz4Compress(r, r->io.codec.ubuf, n));
}

static size_t rioCodecStageWrite(rio *r, const void *buf, size_t len) {
    if (r->io.codec.ulen + len > r->io.codec.ucap && !rioCodecFlushStage(r)) return 0;
    if (len >= r->io.codec.ucap) /* big: straight to the compressor */
        return r->io.codec.codec == RIO_CODEC_ZSTD ? rioZstdCompress(r, buf, len) : rioLz4Compress(r, buf, len);
    memcpy(r->io.codec.ubuf + r->io.codec.ulen, buf, len);
    r->io.codec.ulen += len;
    return 1;
}

static size_t rioCodecNoRead(rio *r, void *buf, size_t len) {
    (void)r, (void)buf, (void)len;
    return 0;
}

static off_t rioCodecTell(rio *r) { return (off_t)r->processed_bytes; }
static int rioCodecFlushNoop(rio *r) {
    (void)r;
    return 1;
}

/* What both directions share: no flush of their own, tell is the
 * uncompressed position, and a buffer of compressed bytes. */
static void rioCodecInitCommon(rio *r, int codec, size_t cap) {
    rioInitBase(r);
    r->tell_fn = rioCodecTell;
    r->flush_fn = rioCodecFlushNoop;
    r->io.codec.codec = codec;
    r->io.codec.cap = cap;
    r->io.codec.buf = zmalloc(cap);
    r->io.codec.ucap = RIO_CODEC_CHUNK / 2;
    r->io.codec.ubuf = zmalloc(r->io.codec.ucap);
}

void rioCodecTune(rio *r, int level, int workers) {
    if (r->io.codec.codec != RIO_CODEC_ZSTD) return;
    ZSTD_CCtx_setParameter(r->io.codec.ctx, ZSTD_c_compressionLevel, level);
    /* A libzstd without threads refuses it and compresses inline. */
    ZSTD_CCtx_setParameter(r->io.codec.ctx, ZSTD_c_nbWorkers, workers);
}

int rioInitCodecWriter(rio *r, rio *inner, int codec) {
    /* Room for the worst case of the biggest piece lz4 is fed at once. */
    size_t cap = LZ4F_compressBound(RIO_CODEC_CHUNK / 2, NULL) + 64;
    rioCodecInitCommon(r, codec, cap < RIO_CODEC_CHUNK ? RIO_CODEC_CHUNK : cap);
    r->read_fn = rioCodecNoRead;
    r->io.codec.inner = inner;
    if (codec == RIO_CODEC_ZSTD) {
        ZSTD_CCtx *cctx = ZSTD_createCCtx();
        if (!cctx) goto fail;
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, RIO_ZSTD_LEVEL);
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
        r->io.codec.ctx = cctx;
        r->write_fn = rioCodecStageWrite;
        return 1;
    }
    if (codec == RIO_CODEC_LZ4) {
        LZ4F_cctx *cctx;
        if (LZ4F_isError(LZ4F_createCompressionContext(&cctx, LZ4F_VERSION))) goto fail;
        r->io.codec.ctx = cctx;
        LZ4F_preferences_t prefs;
        memset(&prefs, 0, sizeof(prefs));
        prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
        size_t ret = LZ4F_compressBegin(cctx, r->io.codec.buf, r->io.codec.cap, &prefs);
        if (LZ4F_isError(ret)) goto fail;
        r->io.codec.len = ret;
        r->write_fn = rioCodecStageWrite;
        return 1;
    }
fail:
    rioCodecFree(r);
    return 0;
}

int rioCodecFinish(rio *r) {
    int ok = !rioHasError(r) && rioCodecFlushStage(r);
    if (ok && r->io.codec.codec == RIO_CODEC_ZSTD) {
        ZSTD_inBuffer in = {NULL, 0, 0};
        size_t left;
        do {
            ZSTD_outBuffer out = {r->io.codec.buf, r->io.codec.cap, r->io.codec.len};
            left = ZSTD_compressStream2(r->io.codec.ctx, &out, &in, ZSTD_e_end);
            if (ZSTD_isError(left)) {
                ok = 0;
                break;
            }
            r->io.codec.len = out.pos;
            if (!rioCodecDrain(r)) ok = 0;
        } while (ok && left);
    } else if (ok && r->io.codec.codec == RIO_CODEC_LZ4) {
        if (!rioCodecDrain(r)) ok = 0;
        size_t ret = ok ? LZ4F_compressEnd(r->io.codec.ctx, r->io.codec.buf, r->io.codec.cap, NULL) : 0;
        if (LZ4F_isError(ret)) ok = 0;
        else r->io.codec.len = ret;
        if (ok && !rioCodecDrain(r)) ok = 0;
    }
    rioCodecFree(r);
    return ok;
}

/* ---- reading ---- */

/* Refill codec.buf from the file (or the source rio's window, one read
 * of it at most) when it is used up; 0 at end of file. */
static int rioCodecFill(rio *r) {
    if (r->io.codec.pos < r->io.codec.len) return 1;
    rio *src = r->io.codec.src;
    if (src) {
        if (src->rpos == src->rend && (!src->fill_fn || !src->fill_fn(src))) return 0;
        size_t n = (size_t)(src->rend - src->rpos);
        if (n > r->io.codec.cap) n = r->io.codec.cap;
        memcpy(r->io.codec.buf, src->rpos, n);
        src->rpos += n;
        src->processed_bytes += n;
        r->io.codec.len = n;
    } else {
        r->io.codec.len = fread(r->io.codec.buf, 1, r->io.codec.cap, r->io.codec.fp);
    }
    r->io.codec.pos = 0;
    return r->io.codec.len > 0;
}

/* Decompress up to cap bytes into dst; fewer only at the frame's end or
 * when the file ends or is corrupt (eof or error then tells which). */
static size_t rioZstdFill(rio *r, char *dst, size_t cap) {
    ZSTD_outBuffer out = {dst, cap, 0};
    while (out.pos < out.size && !r->io.codec.eof && rioCodecFill(r)) {
        ZSTD_inBuffer in = {r->io.codec.buf, r->io.codec.len, r->io.codec.pos};
        size_t ret = ZSTD_decompressStream(r->io.codec.ctx, &out, &in);
        if (ZSTD_isError(ret)) break;
        r->io.codec.pos = in.pos;
        if (ret == 0) r->io.codec.eof = 1; /* frame complete */
    }
    return out.pos;
}

static size_t rioLz4Fill(rio *r, char *dst, size_t cap) {
    size_t done = 0;
    while (done < cap && !r->io.codec.eof && rioCodecFill(r)) {
        size_t d = cap - done, src = r->io.codec.len - r->io.codec.pos;
        size_t ret = LZ4F_decompress(r->io.codec.ctx, dst + done, &d, r->io.codec.buf + r->io.codec.pos, &src, NULL);
        if (LZ4F_isError(ret)) break;
        r->io.codec.pos += src;
        done += d;
        if (ret == 0) r->io.codec.eof = 1;
    }
    return done;
}

static size_t rioCodecFillStage(rio *r) {
    r->io.codec.ulen = r->io.codec.codec == RIO_CODEC_ZSTD
                           ? rioZstdFill(r, r->io.codec.ubuf, r->io.codec.ucap)
                           : rioLz4Fill(r, r->io.codec.ubuf, r->io.codec.ucap);
    r->rpos = (const unsigned char *)r->io.codec.ubuf;
    r->rend = r->rpos + r->io.codec.ulen;
    return r->io.codec.ulen;
}

/* The window is the staged ubuf: reads are served from it by rio.h. */
static int rioCodecWindowFill(rio *r) { return rioCodecFillStage(r) != 0; }

static size_t rioCodecNoWrite(rio *r, const void *buf, size_t len) {
    (void)r, (void)buf, (void)len;
    return 0;
}

int rioCodecDetect(FILE *fp) {
    unsigned char m[4];
    size_t n = fread(m, 1, 4, fp);
    rewind(fp);
    if (n < 4) return RIO_CODEC_NONE;
    if (!memcmp(m, zstd_magic, 4)) return RIO_CODEC_ZSTD;
    if (!memcmp(m, lz4_magic, 4)) return RIO_CODEC_LZ4;
    return RIO_CODEC_NONE;
}

int rioInitCodecReader(rio *r, FILE *fp, int codec) {
    rioCodecInitCommon(r, codec, RIO_CODEC_CHUNK);
    r->write_fn = rioCodecNoWrite;
    r->fill_fn = rioCodecWindowFill;
    r->io.codec.fp = fp;
    if (codec == RIO_CODEC_ZSTD) {
        r->io.codec.ctx = ZSTD_createDCtx();
    } else if (codec == RIO_CODEC_LZ4) {
        LZ4F_dctx *dctx;
        if (!LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) r->io.codec.ctx = dctx;
    }
    if (!r->io.codec.ctx) {
        rioCodecFree(r);
        return 0;
    }
    return 1;
}

int rioInitCodecReaderRio(rio *r, rio *src, int codec) {
    if (!rioInitCodecReader(r, NULL, codec)) return 0;
    r->io.codec.src = src;
    return 1;
}

int rioCodecReadAfter(rio *r, void *buf, size_t len) {
    size_t spare = r->io.codec.len - r->io.codec.pos;
    if (spare > len) spare = len;
    memcpy(buf, r->io.codec.buf + r->io.codec.pos, spare);
    r->io.codec.pos += spare;
    if (spare == len) return 1;
    return r->io.codec.src && rioRead(r->io.codec.src, (char *)buf + spare, len - spare);
}

int rioCodecAtEnd(rio *r) {
    /* Let the decoder consume the frame's epilogue (it yields no byte);
     * eof then says whether the frame ended. Bytes still staged mean the
     * frame holds more than the RDB: not a clean end either. */
    if (r->rpos < r->rend) return 0;
    if (!r->io.codec.eof && rioCodecFillStage(r)) return 0;
    return r->io.codec.eof;
}

void rioCodecFree(rio *r) {
    if (r->io.codec.ctx) {
        int writing = r->io.codec.inner != NULL;
        if (r->io.codec.codec == RIO_CODEC_ZSTD) {
            if (writing) ZSTD_freeCCtx(r->io.codec.ctx);
            else ZSTD_freeDCtx(r->io.codec.ctx);
        } else if (r->io.codec.codec == RIO_CODEC_LZ4) {
            if (writing) LZ4F_freeCompressionContext(r->io.codec.ctx);
            else LZ4F_freeDecompressionContext(r->io.codec.ctx);
        }
        r->io.codec.ctx = NULL;
    }
    rioDropWindow(r);
    zfree(r->io.codec.buf);
    zfree(r->io.codec.ubuf);
    r->io.codec.buf = r->io.codec.ubuf = NULL;
}
