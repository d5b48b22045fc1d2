/* dump: the DUMP/RESTORE payload (see dump.h for the layout).
 *
 * Bytes enter as a client's RESTORE argument, untrusted: the footer is
 * checked first (length, version, CRC64), then the value is decoded by the
 * same rdbLoadObject that reads snapshots, which validates every length
 * and compact blob, so a corrupt payload is an error reply, never a crash
 * or a half-built value. A payload must end exactly where its value does.
 * Bytes leave as a new sds (DUMP) or a new robj (RESTORE).
 *
 * FUNCTION DUMP/RESTORE use the same footer around FUNCTION2 records (one
 * per library, as in a snapshot): the library store is reached through
 * rdb.h's hook, never directly. */
#include "dump.h"
#include "crc64.h"
#include "rdb.h"
#include "rio.h"
#include "zmalloc.h"

#include <string.h>

#define DUMP_FOOTER_LEN 10 /* 2 bytes of RDB version, 8 of CRC64 */

/* The footer after the body in r; the payload as a new sds. */
static sds dumpFinish(rio *r) {
    sds p = rioBufferSds(r);
    rioFreeBuffer(r);
    unsigned char footer[DUMP_FOOTER_LEN];
    footer[0] = RDB_VERSION & 0xff;
    footer[1] = (RDB_VERSION >> 8) & 0xff;
    p = sdscatlen(p, footer, 2);
    uint64_t crc = crc64(0, p, sdslen(p));
    for (int j = 0; j < 8; j++) footer[2 + j] = (unsigned char)(crc >> (8 * j));
    return sdscatlen(p, footer + 2, 8);
}

sds dumpPayloadCreate(robj *o) {
    rio r;
    rioInitWithBuffer(&r, NULL);
    rdbSaveObjectType(&r, o);
    rdbSaveObject(&r, o);
    return dumpFinish(&r);
}

sds dumpFunctionsCreate(void) {
    rio r;
    rioInitWithBuffer(&r, NULL);
    rdbSaveFunctions(&r);
    return dumpFinish(&r);
}

/* Version and (unless skip_crc) CRC64 of a payload of at least min bytes. */
static int dumpFooterValid(const char *p, size_t len, size_t min, int skip_crc) {
    if (len < min) return 0;
    const unsigned char *footer = (const unsigned char *)p + len - DUMP_FOOTER_LEN;
    int version = footer[0] | (footer[1] << 8);
    /* Newer versions may hold types or encodings this loader cannot know. */
    if (version > RDB_VERSION_MAX) return 0;
    if (skip_crc) return 1;
    uint64_t want = 0;
    for (int j = 0; j < 8; j++) want |= (uint64_t)footer[2 + j] << (8 * j);
    return crc64(0, p, len - 8) == want;
}

int dumpFunctionsParse(const char *p, size_t len, int skip_crc, sds **codes, sds *err) {
    *err = NULL;
    *codes = NULL;
    if (!dumpFooterValid(p, len, DUMP_FOOTER_LEN, skip_crc)) {
        *err = sdsnew("ERR DUMP payload version or checksum are wrong");
        return -1;
    }
    rio r;
    rioInitWithBuffer(&r, sdsnewlen(p, len - DUMP_FOOTER_LEN));
    int n = 0;
    while (r.io.buffer.pos < (off_t)sdslen(r.io.buffer.ptr)) {
        unsigned char type;
        if (!rioRead(&r, &type, 1)) {
            *err = sdsnew("ERR can not read data type");
            break;
        }
        if (type != RDB_OPCODE_FUNCTION2) {
            *err = sdsnew(type == RDB_OPCODE_FUNCTION_PRE_GA
                              ? "ERR the payload holds functions in the Redis 7.0 "
                                "release-candidate format: not supported"
                              : "ERR given type is not a function");
            break;
        }
        sds lerr = NULL, code = rdbLoadSdsString(&r, &lerr);
        if (!code) {
            sdsfree(lerr);
            *err = sdsnew("ERR failed loading the given functions payload");
            break;
        }
        *codes = zrealloc(*codes, sizeof(sds) * (n + 1));
        (*codes)[n++] = code;
    }
    rioFreeBuffer(&r);
    if (*err) {
        for (int j = 0; j < n; j++) sdsfree((*codes)[j]);
        zfree(*codes);
        *codes = NULL;
        return -1;
    }
    return n;
}

robj *dumpPayloadLoad(const char *p, size_t len, int skip_crc, sds *err) {
    *err = NULL;
    if (!dumpFooterValid(p, len, DUMP_FOOTER_LEN + 1, skip_crc)) goto badfooter;

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
