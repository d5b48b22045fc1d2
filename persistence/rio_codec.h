/* rio_codec: a rio that compresses what is written to it into one standard
 * zstd or lz4 frame, or decompresses such a frame as it is read
 * (`snapshot-compression`). The RDB inside is byte for byte the one an
 * uncompressed save writes, checksum included, so `zstd -d` or `lz4 -d`
 * turn a compressed snapshot back into a file Redis reads.
 *
 * Ownership: the codec rio borrows the inner rio (writing) or the FILE*
 * (reading) and owns its context and buffer, released by rioCodecFinish
 * (writing) or rioCodecFree (either). */
#ifndef CAIRN_RIO_CODEC_H
#define CAIRN_RIO_CODEC_H
#include "rio.h"
#include <stdio.h>

#define RIO_CODEC_NONE 0
#define RIO_CODEC_LZ4 1
#define RIO_CODEC_ZSTD 2

const char *rioCodecName(int codec);

/* Writing: bytes written to r leave compressed through inner. 1 on
 * success, 0 if the codec could not be set up. */
int rioInitCodecWriter(rio *r, rio *inner, int codec);
/* A zstd writer's level other than RIO_ZSTD_LEVEL and its number of
 * compressing threads (0: inline in rioWrite), set before the first write
 * (cairn-backup's own trade of size for CPU); lz4: nothing. */
void rioCodecTune(rio *r, int level, int workers);
/* Ends the frame (its trailer goes to inner) and frees the state. 1 on
 * success. */
int rioCodecFinish(rio *r);

/* The codec whose frame magic starts fp (RIO_CODEC_NONE for anything else,
 * a plain RDB included); fp is left at its start. */
int rioCodecDetect(FILE *fp);
/* Reading: decompresses the frame in fp. 1 on success. */
int rioInitCodecReader(rio *r, FILE *fp, int codec);
/* Reading: 1 if the frame ended, its own checksum verified. A loader calls
 * it after the RDB's EOF, so a frame cut after the last RDB byte (its
 * checksum missing) is still refused as truncated. */
int rioCodecAtEnd(rio *r);
/* Reading from a windowed rio (an fd rio over a socket) instead of a FILE*:
 * compressed bytes are taken only as the source has them, so the reader
 * never waits for bytes past the frame's end. */
int rioInitCodecReaderRio(rio *r, rio *src, int codec);
/* After the frame: read len bytes that follow it (what the reader took
 * past the frame's end first, then from the source). 1 on success. */
int rioCodecReadAfter(rio *r, void *buf, size_t len);
void rioCodecFree(rio *r);

#endif
