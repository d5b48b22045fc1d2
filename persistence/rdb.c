/* rdb: writing snapshots. One value (rdbSaveObject), one key
 * (rdbSaveKeyValuePair), a whole dataset (rdbSaveRio) and the crash-safe
 * file (rdbSaveFile).
 *
 * Values are written in the types and encodings Redis 7.0 writes, so that
 * redis-server 7.0 loads the file into the same encodings: strings as
 * integers when they are short canonical integers, else raw or LZF
 * compressed (rdbcompression, above 20 bytes); lists as QUICKLIST_2 (each
 * node's listpack, or a PLAIN node's element, as one string); sets as the
 * intset blob or their members; sorted sets as the listpack blob or
 * ZSET_2 pairs (member, little-endian binary double) from the highest score
 * down, as Redis writes them; hashes as the listpack blob or field/value
 * pairs. Compact blobs are the live structures' bytes, which are
 * byte-compatible with Redis'.
 *
 * Data enters as the keyspace (db.h) and the values it holds, only read;
 * it leaves through the rio. A file save goes to temp-<pid>.rdb in the
 * current directory (cfg.dir), is fsynced, renamed over the target, and
 * the directory is fsynced so the rename itself survives a crash. */
#include "rdb.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "intset.h"
#include "lfu.h"
#include "listpack.h"
#include "log.h"
#include "quicklist.h"
#include "rio_codec.h"
#include "skip_fsync.h"
#include "util.h"
#include "zmalloc.h"
#include "zset.h"

#include <errno.h>
#include <fcntl.h>
#include <liblzf/lzf.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The Redis release whose format and AUX fields cairn reproduces. */
#define RDB_REDIS_VER "7.0.15"
#define RDB_AUTOSYNC_BYTES (4 * 1024 * 1024)

static int rdbWriteRaw(rio *r, const void *p, size_t len) { return rioWrite(r, p, len) ? 0 : -1; }

int rdbSaveType(rio *r, unsigned char type) { return rdbWriteRaw(r, &type, 1); }

int rdbSaveLen(rio *r, uint64_t len) {
    unsigned char buf[9];
    size_t n;
    if (len < (1 << 6)) {
        buf[0] = (unsigned char)(len | (RDB_6BITLEN << 6));
        n = 1;
    } else if (len < (1 << 14)) {
        buf[0] = (unsigned char)((len >> 8) | (RDB_14BITLEN << 6));
        buf[1] = (unsigned char)(len & 0xFF);
        n = 2;
    } else if (len <= UINT32_MAX) {
        buf[0] = RDB_32BITLEN;
        for (int j = 0; j < 4; j++) buf[1 + j] = (unsigned char)(len >> (24 - 8 * j));
        n = 5;
    } else {
        buf[0] = RDB_64BITLEN;
        for (int j = 0; j < 8; j++) buf[1 + j] = (unsigned char)(len >> (56 - 8 * j));
        n = 9;
    }
    return rdbWriteRaw(r, buf, n);
}

/* The INT8/16/32 special encoding of value into enc; 0 if it does not fit. */
static size_t rdbEncodeInteger(long long value, unsigned char *enc) {
    if (value >= INT8_MIN && value <= INT8_MAX) {
        enc[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT8;
        enc[1] = (unsigned char)(value & 0xFF);
        return 2;
    }
    if (value >= INT16_MIN && value <= INT16_MAX) {
        enc[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT16;
        enc[1] = (unsigned char)(value & 0xFF);
        enc[2] = (unsigned char)((value >> 8) & 0xFF);
        return 3;
    }
    if (value >= INT32_MIN && value <= INT32_MAX) {
        enc[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT32;
        for (int j = 0; j < 4; j++) enc[1 + j] = (unsigned char)((value >> (8 * j)) & 0xFF);
        return 5;
    }
    return 0;
}

/* A string that is the canonical text of a 32-bit integer is stored as the
 * integer (Redis checks this for strings of up to 11 bytes). */
static size_t rdbTryIntegerEncoding(const unsigned char *s, size_t len, unsigned char *enc) {
    long long value;
    char buf[LONG_STR_SIZE];
    if (!string2ll((const char *)s, len, &value)) return 0;
    int n = ll2string(buf, sizeof(buf), value);
    if ((size_t)n != len || memcmp(buf, s, len) != 0) return 0;
    return rdbEncodeInteger(value, enc);
}

/* 1 if written compressed, 0 if it does not compress, -1 on error. */
static int rdbSaveLzfString(rio *r, const unsigned char *s, size_t len) {
    if (len <= 4 || len > UINT32_MAX) return 0;
    size_t outlen = len - 4;
    unsigned char *out = zmalloc(outlen + 1);
    unsigned int comprlen = lzf_compress(s, (unsigned int)len, out, (unsigned int)outlen);
    if (comprlen == 0) {
        zfree(out);
        return 0;
    }
    int ret = (rdbSaveType(r, (RDB_ENCVAL << 6) | RDB_ENC_LZF) == 0 && rdbSaveLen(r, comprlen) == 0 &&
               rdbSaveLen(r, len) == 0 && rdbWriteRaw(r, out, comprlen) == 0)
                  ? 1
                  : -1;
    zfree(out);
    return ret;
}

int rdbSaveRawString(rio *r, const unsigned char *s, size_t len) {
    if (len <= 11) {
        unsigned char enc[5];
        size_t n = rdbTryIntegerEncoding(s, len, enc);
        if (n) return rdbWriteRaw(r, enc, n);
    }
    if (cfg.rdb_compression && len > RDB_LZF_MIN_LEN) {
        int n = rdbSaveLzfString(r, s, len);
        if (n != 0) return n > 0 ? 0 : -1;
    }
    if (rdbSaveLen(r, len) == -1) return -1;
    return rdbWriteRaw(r, s, len);
}

int rdbSaveLongLongAsString(rio *r, long long value) {
    unsigned char enc[5];
    size_t n = rdbEncodeInteger(value, enc);
    if (n) return rdbWriteRaw(r, enc, n);
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), value);
    if (rdbSaveLen(r, (uint64_t)len) == -1) return -1;
    return rdbWriteRaw(r, buf, (size_t)len);
}

static int rdbSaveStringObject(rio *r, const robj *o) {
    if (o->encoding == OBJ_ENCODING_INT) return rdbSaveLongLongAsString(r, (long)o->ptr);
    return rdbSaveRawString(r, (const unsigned char *)o->ptr, sdslen(o->ptr));
}

static int rdbSaveSds(rio *r, sds s) { return rdbSaveRawString(r, (const unsigned char *)s, sdslen(s)); }

int rdbSaveBinaryDouble(rio *r, double d) {
    unsigned char buf[8];
    memcpy(buf, &d, 8); /* little endian, as on every host cairn builds on */
    return rdbWriteRaw(r, buf, 8);
}

int rdbSaveObjectType(rio *r, const robj *o) {
    switch (o->type) {
    case OBJ_STRING:
        return rdbSaveType(r, RDB_TYPE_STRING);
    case OBJ_LIST:
        return rdbSaveType(r, RDB_TYPE_LIST_QUICKLIST_2);
    case OBJ_SET:
        return rdbSaveType(r, o->encoding == OBJ_ENCODING_INTSET ? RDB_TYPE_SET_INTSET : RDB_TYPE_SET);
    case OBJ_ZSET:
        return rdbSaveType(r, o->encoding == OBJ_ENCODING_LISTPACK ? RDB_TYPE_ZSET_LISTPACK
                                                                   : RDB_TYPE_ZSET_2);
    case OBJ_HASH:
        return rdbSaveType(r, o->encoding == OBJ_ENCODING_LISTPACK ? RDB_TYPE_HASH_LISTPACK
                                                                   : RDB_TYPE_HASH);
    }
    serverPanic("rdbSaveObjectType: unknown object type");
}

static int rdbSaveList(rio *r, robj *o) {
    quicklist *ql = o->ptr;
    if (rdbSaveLen(r, ql->len) == -1) return -1;
    for (quicklistNode *node = ql->head; node; node = node->next) {
        if (rdbSaveLen(r, node->container) == -1) return -1;
        int allocated;
        unsigned char *data = quicklistNodeData(node, &allocated);
        int ret = rdbSaveRawString(r, data, node->sz);
        if (allocated) zfree(data);
        if (ret == -1) return -1;
    }
    return 0;
}

static int rdbSaveSet(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_INTSET)
        return rdbSaveRawString(r, o->ptr, intsetBlobLen(o->ptr));
    dict *d = o->ptr;
    if (rdbSaveLen(r, dictSize(d)) == -1) return -1;
    dictIterator di;
    dictInitIterator(&di, d);
    dictEntry *de;
    int ret = 0;
    while (ret == 0 && (de = dictNext(&di)) != NULL) ret = rdbSaveSds(r, dictGetKey(de));
    dictResetIterator(&di);
    return ret;
}

static int rdbSaveZset(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return rdbSaveRawString(r, o->ptr, lpBytes(o->ptr));
    if (rdbSaveLen(r, zsetLength(o)) == -1) return -1;
    /* Highest score first: loading then inserts each element at the head
     * of the skip list, which is the cheap end. */
    zsetIter it;
    for (zsetIterInit(&it, o, 1); zsetIterValid(&it); zsetIterNext(&it)) {
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        if (rdbSaveRawString(r, (const unsigned char *)m, len) == -1) return -1;
        if (rdbSaveBinaryDouble(r, zsetIterScore(&it)) == -1) return -1;
    }
    return 0;
}

static int rdbSaveHash(rio *r, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return rdbSaveRawString(r, o->ptr, lpBytes(o->ptr));
    dict *d = o->ptr;
    if (rdbSaveLen(r, dictSize(d)) == -1) return -1;
    dictIterator di;
    dictInitIterator(&di, d);
    dictEntry *de;
    int ret = 0;
    while (ret == 0 && (de = dictNext(&di)) != NULL)
        if (rdbSaveSds(r, dictGetKey(de)) == -1 || rdbSaveSds(r, dictGetVal(de)) == -1) ret = -1;
    dictResetIterator(&di);
    return ret;
}

int rdbSaveObject(rio *r, robj *o) {
    switch (o->type) {
    case OBJ_STRING:
        return rdbSaveStringObject(r, o);
    case OBJ_LIST:
        return rdbSaveList(r, o);
    case OBJ_SET:
        return rdbSaveSet(r, o);
    case OBJ_ZSET:
        return rdbSaveZset(r, o);
    case OBJ_HASH:
        return rdbSaveHash(r, o);
    }
    serverPanic("rdbSaveObject: unknown object type");
}

int rdbSaveKeyValuePair(rio *r, const char *key, size_t keylen, robj *val, long long expire) {
    if (expire != -1) {
        unsigned char buf[8];
        for (int j = 0; j < 8; j++) buf[j] = (unsigned char)(((uint64_t)expire >> (8 * j)) & 0xFF);
        if (rdbSaveType(r, RDB_OPCODE_EXPIRETIME_MS) == -1 || rdbWriteRaw(r, buf, 8) == -1) return -1;
    }
    /* As Redis: under an LRU policy the idle time travels with the key, and
     * under an LFU policy the (decayed) access counter, so eviction after a
     * restart picks the same victims. */
    if (MAXMEMORY_FLAG_LRU(cfg.maxmemory_policy) &&
        (rdbSaveType(r, RDB_OPCODE_IDLE) == -1 ||
         rdbSaveLen(r, (uint64_t)(estimateObjectIdleTime(val) / 1000)) == -1))
        return -1;
    if (MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) {
        unsigned char freq = (unsigned char)lfuFreq(val);
        if (rdbSaveType(r, RDB_OPCODE_FREQ) == -1 || rdbWriteRaw(r, &freq, 1) == -1) return -1;
    }
    if (rdbSaveObjectType(r, val) == -1) return -1;
    if (rdbSaveRawString(r, (const unsigned char *)key, keylen) == -1) return -1;
    return rdbSaveObject(r, val);
}

static int rdbSaveAuxString(rio *r, const char *field, const char *value) {
    if (rdbSaveType(r, RDB_OPCODE_AUX) == -1) return -1;
    if (rdbSaveRawString(r, (const unsigned char *)field, strlen(field)) == -1) return -1;
    return rdbSaveRawString(r, (const unsigned char *)value, strlen(value));
}

static int rdbSaveAuxInt(rio *r, const char *field, long long value) {
    char buf[LONG_STR_SIZE];
    ll2string(buf, sizeof(buf), value);
    return rdbSaveAuxString(r, field, buf);
}

/* The per-key delay of the hidden rdb-key-save-delay directive (tests use
 * it to keep a background save running): microseconds. */
static void rdbKeySaveDelay(void) {
    if (cfg.rdb_key_save_delay > 0) usleep((useconds_t)cfg.rdb_key_save_delay);
}

static rdbReplInfoFn *repl_info_source;
void rdbSetReplInfoSource(rdbReplInfoFn *fn) { repl_info_source = fn; }

static const rdbFunctionsStore *functions_store;
void rdbSetFunctionsStore(const rdbFunctionsStore *store) { functions_store = store; }
sds rdbFunctionsLoad(const char *code, size_t len, int replace) {
    return functions_store ? functions_store->load(code, len, replace) : sdsnew("this program keeps no functions");
}
void rdbFunctionsClear(void) {
    if (functions_store) functions_store->clear();
}
void *rdbFunctionsTake(void) {
    return functions_store ? functions_store->take() : NULL;
}
void rdbFunctionsGiveBack(void *kept, int restore) {
    if (functions_store && kept) functions_store->give_back(kept, restore);
}

void *rdbFunctionsSwap(void *kept) {
    return functions_store && kept ? functions_store->swap(kept) : kept;
}

static int rdbEmitFunction(void *ctx, const char *code, size_t len) {
    rio *r = ctx;
    if (rdbSaveType(r, RDB_OPCODE_FUNCTION2) == -1) return -1;
    return rdbSaveRawString(r, (const unsigned char *)code, len);
}

int rdbFunctionsEach(int (*emit)(void *ctx, const char *code, size_t len), void *ctx) {
    return functions_store ? functions_store->each(emit, ctx) : 0;
}

int rdbSaveFunctions(rio *r) {
    return rdbFunctionsEach(rdbEmitFunction, r);
}

static rdbSaveProgressFn *save_progress;
void rdbSaveSetProgress(rdbSaveProgressFn *fn) { save_progress = fn; }
#define RDB_SAVE_PROGRESS_KEYS 64

int rdbSaveRio(rio *r, long long *keys, int aof_base) {
    return rdbSaveRioParts(r, keys, aof_base, RDB_PART_DATA | RDB_PART_FUNCTIONS);
}

int rdbSaveRioParts(rio *r, long long *keys, int aof_base, int parts) {
    char magic[10];
    long long written = 0;
    if (cfg.rdb_checksum) rioEnableChecksum(r);
    snprintf(magic, sizeof(magic), "REDIS%04d", RDB_VERSION);
    if (rdbWriteRaw(r, magic, 9) == -1) return -1;
    if (rdbSaveAuxString(r, "redis-ver", RDB_REDIS_VER) == -1 ||
        rdbSaveAuxInt(r, "redis-bits", (long long)sizeof(void *) * 8) == -1 ||
        rdbSaveAuxInt(r, "ctime", (long long)time(NULL)) == -1 ||
        rdbSaveAuxInt(r, "used-mem", (long long)zmalloc_used_memory()) == -1)
        return -1;
    /* Redis' order: the replication fields, then aof-base. */
    rdbReplInfo ri;
    if (repl_info_source && repl_info_source(&ri) &&
        (rdbSaveAuxInt(r, "repl-stream-db", ri.stream_db) == -1 ||
         rdbSaveAuxString(r, "repl-id", ri.replid) == -1 ||
         rdbSaveAuxInt(r, "repl-offset", ri.offset) == -1))
        return -1;
    if (rdbSaveAuxInt(r, "aof-base", aof_base ? 1 : 0) == -1) return -1;
    if ((parts & RDB_PART_FUNCTIONS) && rdbSaveFunctions(r) == -1) return -1;
    for (int j = 0; (parts & RDB_PART_DATA) && j < dbCount(); j++) {
        dict *d = dbKeysDict(j), *expires = dbExpiresDict(j);
        if (dictSize(d) == 0) continue;
        if (rdbSaveType(r, RDB_OPCODE_SELECTDB) == -1 || rdbSaveLen(r, (uint64_t)j) == -1) return -1;
        if (rdbSaveType(r, RDB_OPCODE_RESIZEDB) == -1 || rdbSaveLen(r, dictSize(d)) == -1 ||
            rdbSaveLen(r, dictSize(expires)) == -1)
            return -1;
        dictIterator di;
        dictInitIterator(&di, d);
        dictEntry *de;
        int ret = 0;
        while (ret == 0 && (de = dictNext(&di)) != NULL) {
            sds key = dictGetKey(de);
            long long expire = -1;
            if (dictSize(expires)) {
                dictEntry *e = dictFind(expires, key);
                if (e) expire = dictGetSignedIntegerVal(e);
            }
            ret = rdbSaveKeyValuePair(r, key, sdslen(key), dictGetVal(de), expire);
            written++;
            rdbKeySaveDelay();
            if (save_progress && written % RDB_SAVE_PROGRESS_KEYS == 0) save_progress(written);
        }
        dictResetIterator(&di);
        if (ret == -1) return -1;
    }
    if (rdbSaveType(r, RDB_OPCODE_EOF) == -1) return -1;
    /* The checksum covers everything up to and including EOF; 0 means
     * "not computed" to a loader. */
    uint64_t cksum = cfg.rdb_checksum ? rioChecksum(r) : 0;
    unsigned char buf[8];
    for (int j = 0; j < 8; j++) buf[j] = (unsigned char)((cksum >> (8 * j)) & 0xFF);
    if (rdbWriteRaw(r, buf, 8) == -1) return -1;
    if (keys) *keys = written;
    return 0;
}

/* fsync the current directory, so a rename in it is durable. */
static int rdbFsyncDir(void) {
    if (skipFsync("dir")) return 0;
    int fd = open(".", O_RDONLY);
    if (fd == -1) return -1;
    int ret = fsync(fd);
    close(fd);
    return ret;
}

int rdbSaveFile(const char *filename, sds *err) {
    char tmpfile[64];
    snprintf(tmpfile, sizeof(tmpfile), "temp-%d.rdb", (int)getpid());
    FILE *fp = fopen(tmpfile, "w");
    if (!fp) {
        char cwd[1024];
        if (!getcwd(cwd, sizeof(cwd))) snprintf(cwd, sizeof(cwd), "unknown");
        if (err)
            *err = sdscatprintf(sdsempty(),
                                "Failed opening the temp RDB file %s (in server root dir %s) for "
                                "saving: %s",
                                tmpfile, cwd, strerror(errno));
        return -1;
    }
    rio file, codec, *r = &file;
    rioInitWithFile(&file, fp);
    if (cfg.rdb_save_incremental_fsync) rioSetAutoSync(&file, RDB_AUTOSYNC_BYTES);
    const char *step = "writing";
    /* snapshot-compression: the same RDB bytes, inside one zstd/lz4 frame. */
    if (cfg.snapshot_compression != SNAPSHOT_COMPRESSION_NONE) {
        step = "setting up compression for";
        if (!rioInitCodecWriter(&codec, &file, cfg.snapshot_compression)) goto werr;
        r = &codec;
        step = "writing";
    }
    if (rdbSaveRio(r, NULL, 0) == -1) {
        if (r == &codec) rioCodecFree(&codec);
        goto werr;
    }
    if (r == &codec && !rioCodecFinish(&codec)) goto werr;
    step = "flushing";
    if (fflush(fp) != 0) goto werr;
    step = "fsyncing";
    if (!skipFsync("rdb") && fsync(fileno(fp)) == -1) goto werr;
    step = "closing";
    if (fclose(fp) != 0) {
        fp = NULL;
        goto werr;
    }
    fp = NULL;
    if (rename(tmpfile, filename) == -1) {
        if (err)
            *err = sdscatprintf(sdsempty(),
                                "Error moving temp DB file %s on the final destination %s: %s",
                                tmpfile, filename, strerror(errno));
        unlink(tmpfile);
        return -1;
    }
    if (rdbFsyncDir() == -1) {
        if (err) *err = sdscatprintf(sdsempty(), "Failed to fsync the directory: %s", strerror(errno));
        return -1;
    }
    return 0;
werr:
    if (err) *err = sdscatprintf(sdsempty(), "Write error %s the DB on disk: %s", step, strerror(errno));
    if (fp) fclose(fp);
    unlink(tmpfile);
    return -1;
}
