/* dump: the DUMP/RESTORE payload (see dump.h for the layout).
 *
 * Bytes enter as a client's RESTORE argument, untrusted: the footer is
 * checked first (length, version, CRC64), then the value is decoded by the
 * same rdbLoadObject that reads snapshots, which validates every length
 * and compact blob, so a corrupt payload is an error reply, never a crash
 * or a half-built value. A payload must end exactly where its value does.
 * Bytes leave as a new sds (DUMP) or a new robj (RESTORE). */
#include "dump.h"
#include "crc64.h"
#include "rdb.h"
#include "rio.h"

#include <string.h>

#define DUMP_FOOTER_LEN 10 /* 2 bytes of RDB version, 8 of CRC64 */

sds dumpPayloadCreate(robj *o) {
    rio r;
    rioInitWithBuffer(&r, NULL);
    rdbSaveObjectType(&r, o);
    rdbSaveObject(&r, o);
    sds p = rioBufferSds(&r);
    rioFreeBuffer(&r);
    unsigned char footer[DUMP_FOOTER_LEN];
    footer[0] = RDB_VERSION & 0xff;
    footer[1] = (RDB_VERSION >> 8) & 0xff;
    p = sdscatlen(p, footer, 2);
    uint64_t crc = crc64(0, p, sdslen(p));
    for (int j = 0; j < 8; j++) footer[2 + j] = (unsigned char)(crc >> (8 * j));
    return sdscatlen(p, footer + 2, 8);
}

robj *dumpPayloadLoad(const char *p, size_t len, int skip_crc, sds *err) {
    *err = NULL;
    if (len < DUMP_FOOTER_LEN + 1) goto badfooter;
    const unsigned char *footer = (const unsigned char *)p + len - DUMP_FOOTER_LEN;
    int version = footer[0] | (footer[1] << 8);
    /* Newer versions may hold types or encodings this loader cannot know. */
    if (version > RDB_VERSION_MAX) goto badfooter;
    if (!skip_crc) {
        uint64_t want = 0;
        for (int j = 0; j < 8; j++) want |= (uint64_t)footer[2 + j] << (8 * j);
        if (crc64(0, p, len - 8) != want) goto badfooter;
    }

    int type = (unsigned char)p[0];
    if (!rdbIsObjectType(type)) goto baddata;
    rio r;
    rioInitWithBuffer(&r, sdsnewlen(p + 1, len - 1 - DUMP_FOOTER_LEN));
    sds lerr = NULL;
    robj *o = rdbLoadObject(type, &r, &lerr);
    int trailing = o && r.io.buffer.pos != (off_t)sdslen(r.io.buffer.ptr);
    rioFreeBuffer(&r);
    sdsfree(lerr);
    if (!o || trailing) {
        if (o) decrRefCount(o);
        goto baddata;
    }
    return o;

badfooter:
    *err = sdsnew("ERR DUMP payload version or checksum are wrong");
    return NULL;
baddata:
    *err = sdsnew("ERR Bad data format");
    return NULL;
}
