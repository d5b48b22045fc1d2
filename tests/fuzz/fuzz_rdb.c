/* fuzz_rdb.c -- libFuzzer target for the snapshot loader and the RESTORE
 * payload decoder (persistence/rdb_load.c, persistence/dump.c).
 *
 * Input: one mode byte, then the bytes.
 *   mode even: a whole RDB file, loaded by rdbLoadRio in check-only mode
 *              (every value is decoded, validated and freed, nothing enters
 *              the keyspace, so inputs do not interfere with each other);
 *              with bit 1 set too, skimming (rdbSkipObject: every value's
 *              structure walked without decoding, as cairn-backup full
 *              checks a payload);
 *   mode odd:  a DUMP payload, decoded by dumpPayloadLoad with the CRC
 *              check skipped (so mutations reach the decoder). A payload
 *              that loads must serialize again into one that loads: a
 *              value the decoder accepted is a sound value.
 * Any crash, sanitizer report or broken invariant (trap) is a bug. */
#include "config.h"
#include "dump.h"
#include "object.h"
#include "rdb.h"
#include "rio.h"
#include "db.h"
#include "sds.h"

#include <stdint.h>
#include <stdlib.h>

static void ignoreAux(void *ctx, size_t offset, sds field, sds value) {
    (void)ctx, (void)offset, (void)field, (void)value;
}
static void ignoreKey(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val, long long expire) {
    (void)ctx, (void)offset, (void)dbid, (void)rdbtype, (void)key, (void)val, (void)expire;
}

static void ignoreSkimmed(void *ctx, size_t offset, int dbid, int rdbtype, long long expire) {
    (void)ctx, (void)offset, (void)dbid, (void)expire;
    if (rdbObjectTypeOf(rdbtype) < 0) __builtin_trap(); /* only value types are skimmed */
}

static const rdbLoadObserver decodeObs = {.aux = ignoreAux, .key = ignoreKey, .check_only = 1};
static const rdbLoadObserver skimObs = {
    .aux = ignoreAux, .key = ignoreKey, .check_only = 1, .skim = 1, .skimmed = ignoreSkimmed};

static void fuzzInit(void) {
    static int done;
    if (done) return;
    done = 1;
    configInitDefaults();
    cfg.verbosity = LL_WARNING + 1; /* silent: the loader's log lines are noise here */
    objectCreateShared();
    dbInit();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInit();
    if (size < 1) return 0;
    const char *p = (const char *)data + 1;
    size_t len = size - 1;
    sds err = NULL;
    if (data[0] & 1) {
        robj *o = dumpPayloadLoad(p, len, 1, &err);
        sdsfree(err);
        if (o) {
            sds again = dumpPayloadCreate(o);
            robj *o2 = dumpPayloadLoad(again, sdslen(again), 0, &err);
            if (!o2) __builtin_trap();
            decrRefCount(o2);
            sdsfree(again);
            decrRefCount(o);
        }
    } else {
        rdbLoadSetObserver(data[0] & 2 ? &skimObs : &decodeObs);
        rio r;
        rioInitWithBuffer(&r, sdsnewlen(p, len));
        rdbLoadStats stats;
        rdbLoadRio(&r, 0, &stats, &err);
        sdsfree(err);
        rioFreeBuffer(&r);
    }
    return 0;
}
