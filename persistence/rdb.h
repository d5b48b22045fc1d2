/* rdb: Redis' snapshot format (RDB version 10, as Redis 7.0 writes it),
 * value by value and file by file.
 *
 * Value level (rdb.c saves, rdb_load.c loads): rdbSaveObjectType and
 * rdbSaveObject write one value in the type and encoding Redis 7.0 uses;
 * rdbLoadObject reads one value of any type Redis 2.6-7.2 writes (RDB
 * versions 1-11, legacy ziplist/zipmap encodings converted) into cairn's
 * current encodings, validating every length and blob. DUMP/RESTORE, full
 * sync and a checker tool build on these.
 *
 * File level: rdbSaveRio writes a whole snapshot (header, AUX fields, every
 * database, EOF, CRC64) to any rio; rdbSaveFile does it into temp-<pid>.rdb,
 * fsyncs, renames over the target and fsyncs the directory. rdbLoadRio and
 * rdbLoadFile read one into the (empty or merged) keyspace through db.h.
 *
 * Ownership: a loaded robj has refcount 1 and belongs to the caller; error
 * messages come back as sds the caller frees. */
#ifndef CAIRN_RDB_H
#define CAIRN_RDB_H
#include "object.h"
#include "rio.h"
#include "sds.h"
#include <stdint.h>

#define RDB_VERSION 10      /* what cairn writes: Redis 7.0's */
#define RDB_VERSION_MAX 11  /* newest cairn reads: Redis 7.2's */

/* Length encodings: the two top bits of the first byte. */
#define RDB_6BITLEN 0
#define RDB_14BITLEN 1
#define RDB_32BITLEN 0x80
#define RDB_64BITLEN 0x81
#define RDB_ENCVAL 3
#define RDB_LENERR UINT64_MAX

/* Special string encodings (RDB_ENCVAL). */
#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

/* Value types. */
#define RDB_TYPE_STRING 0
#define RDB_TYPE_LIST 1
#define RDB_TYPE_SET 2
#define RDB_TYPE_ZSET 3
#define RDB_TYPE_HASH 4
#define RDB_TYPE_ZSET_2 5
#define RDB_TYPE_MODULE_PRE_GA 6
#define RDB_TYPE_MODULE_2 7
#define RDB_TYPE_HASH_ZIPMAP 9
#define RDB_TYPE_LIST_ZIPLIST 10
#define RDB_TYPE_SET_INTSET 11
#define RDB_TYPE_ZSET_ZIPLIST 12
#define RDB_TYPE_HASH_ZIPLIST 13
#define RDB_TYPE_LIST_QUICKLIST 14
#define RDB_TYPE_STREAM_LISTPACKS 15
#define RDB_TYPE_HASH_LISTPACK 16
#define RDB_TYPE_ZSET_LISTPACK 17
#define RDB_TYPE_LIST_QUICKLIST_2 18
#define RDB_TYPE_STREAM_LISTPACKS_2 19
#define RDB_TYPE_SET_LISTPACK 20
#define RDB_TYPE_STREAM_LISTPACKS_3 21

/* Opcodes (in the type position). */
#define RDB_OPCODE_FUNCTION2 245
#define RDB_OPCODE_FUNCTION_PRE_GA 246
#define RDB_OPCODE_MODULE_AUX 247
#define RDB_OPCODE_IDLE 248
#define RDB_OPCODE_FREQ 249
#define RDB_OPCODE_AUX 250
#define RDB_OPCODE_RESIZEDB 251
#define RDB_OPCODE_EXPIRETIME_MS 252
#define RDB_OPCODE_EXPIRETIME 253
#define RDB_OPCODE_SELECTDB 254
#define RDB_OPCODE_EOF 255

/* Strings longer than this are LZF-compressed when rdbcompression is on. */
#define RDB_LZF_MIN_LEN 20

/* ---- saving (rdb.c); each returns 0 on success, -1 on a write error ---- */
int rdbSaveType(rio *r, unsigned char type);
int rdbSaveLen(rio *r, uint64_t len);
int rdbSaveRawString(rio *r, const unsigned char *s, size_t len);
int rdbSaveLongLongAsString(rio *r, long long value);
int rdbSaveBinaryDouble(rio *r, double d);
int rdbSaveObjectType(rio *r, const robj *o);
int rdbSaveObject(rio *r, robj *o);
/* [EXPIRETIME_MS] type key value. */
int rdbSaveKeyValuePair(rio *r, const char *key, size_t keylen, robj *val, long long expire);
/* A whole snapshot. *keys (if not NULL) counts the keys written. aof_base
 * is 1 for an AOF base file, so its aof-base AUX field says so, as Redis
 * writes it (a tool can tell a preamble from a standalone snapshot). */
int rdbSaveRio(rio *r, long long *keys, int aof_base);
/* The same with only some parts (RDB_PART_*; the header and AUX fields
 * always): a filtered full sync (REPLCONF rdb-filter-only). */
#define RDB_PART_DATA      (1 << 0)
#define RDB_PART_FUNCTIONS (1 << 1)
int rdbSaveRioParts(rio *r, long long *keys, int aof_base, int parts);
/* Called by rdbSaveRio every 64 keys with the keys written so far (a
 * BGSAVE child reports them to the parent). NULL: none. */
typedef void rdbSaveProgressFn(long long keys);
void rdbSaveSetProgress(rdbSaveProgressFn *fn);
/* Write `filename` (in the current directory, which is `dir`) through
 * temp-<pid>.rdb; on failure *err (if not NULL) gets the reason. */
int rdbSaveFile(const char *filename, sds *err);

/* ---- loading (rdb_load.c) ---- */
/* The value of a key of RDB type `type`. NULL with *err set on any error;
 * NULL with *err left NULL when the value is an empty collection, which
 * Redis also skips. dbid only names the database in messages. */
robj *rdbLoadObject(int type, rio *r, sds *err);
/* 1 if type is a value type rdbLoadObject knows. */
int rdbIsObjectType(int type);

/* The replication position a snapshot records (AUX fields repl-stream-db,
 * repl-id, repl-offset): the server registers a provider, so this code
 * depends on no replication module; a load reports what it found. */
typedef struct rdbReplInfo {
    int stream_db;
    char replid[41];
    long long offset;
} rdbReplInfo;
/* Fill *out and return 1, or return 0 when there is nothing to record. */
typedef int rdbReplInfoFn(rdbReplInfo *out);
void rdbSetReplInfoSource(rdbReplInfoFn *fn);

/* Redis Functions libraries, one FUNCTION2 record (the library's whole
 * code, shebang line included) each: the server registers its library
 * store, so this code depends on no scripting module. */
typedef struct rdbFunctionsStore {
    /* Call emit(ctx, code, len) for each library in turn; -1 as soon as
     * emit returns -1, else 0. */
    int (*each)(int (*emit)(void *ctx, const char *code, size_t len), void *ctx);
    /* Create a library from its code; replace: one of the same name goes.
     * NULL, or the error (the caller frees it). */
    sds (*load)(const char *code, size_t len, int replace);
    /* Drop every library (a load that replaces the whole dataset). */
    void (*clear)(void);
    /* Set every library aside, leaving none (swapdb); give them back
     * (restore) or free them. */
    void *(*take)(void);
    void (*give_back)(void *kept, int restore);
    /* Put a set taken aside in place and return the one that was there (an
     * async load serves the old libraries between keys). */
    void *(*swap)(void *kept);
} rdbFunctionsStore;
void rdbSetFunctionsStore(const rdbFunctionsStore *store);
/* One FUNCTION2 record per library (rdbSaveRio's, FUNCTION DUMP's). */
int rdbSaveFunctions(rio *r);
/* Through the registered store (rdb_load.c, dump.c, the AOF rewrite). */
int rdbFunctionsEach(int (*emit)(void *ctx, const char *code, size_t len), void *ctx);
sds rdbFunctionsLoad(const char *code, size_t len, int replace);
/* Drop the libraries before a load that replaces the dataset. */
void rdbFunctionsClear(void);
/* The libraries set aside while a load may fail (NULL: no store), then
 * put back (restore: the load failed) or freed. */
void *rdbFunctionsTake(void);
void rdbFunctionsGiveBack(void *kept, int restore);
void *rdbFunctionsSwap(void *kept);
/* One string as rdbSaveRawString wrote it (LZF and integer forms too);
 * NULL with *err set on a short or corrupt read. */
sds rdbLoadSdsString(rio *r, sds *err);

typedef struct rdbLoadStats {
    long long keys_loaded;
    long long keys_expired;
    long long empty_keys_skipped;
    int version;
    long long rdb_used_mem; /* the file's used-mem AUX field, 0 until seen */
    int has_repl;           /* repl-id and repl-offset were both present */
    long long functions;    /* FUNCTION2 records read */
    rdbReplInfo repl;
} rdbLoadStats;

#define RDB_LOAD_REPLACE (1 << 0) /* overwrite keys that already exist (DEBUG RELOAD MERGE) */
#define RDB_LOAD_KEEP_EXPIRED (1 << 1) /* a replica: expired keys too, its primary deletes them */

/* Read a whole snapshot into the keyspace. 0 on success; -1 with *err (a
 * message naming the byte offset) otherwise. Keys added before an error
 * stay in the keyspace. */
int rdbLoadRio(rio *r, int flags, rdbLoadStats *stats, sds *err);
/* 0 on success, 1 if the file does not exist, -1 on error (*err set). */
int rdbLoadFile(const char *filename, int flags, rdbLoadStats *stats, sds *err);

/* Called between keys while a load runs, after every
 * cfg.loading_process_events_interval_bytes read or every 1024 keys,
 * whichever comes first, with the bytes read so far and the stats filled
 * up to here (snapshot.c serves clients from it). NULL: none. */
typedef void rdbLoadProgressFn(size_t loaded_bytes, const rdbLoadStats *stats);
void rdbLoadSetProgress(rdbLoadProgressFn *fn);
/* Given each key a load drops because it had expired (the sink owns key):
 * a primary restarted from its snapshot tells its replicas to delete them,
 * as Redis does. NULL: the keys are freed. */
typedef void rdbLoadExpiredFn(int dbid, sds key);
void rdbLoadSetExpiredSink(rdbLoadExpiredFn *fn);

/* A watcher of loads (cairn-check-rdb): shown every AUX field and every
 * key with the byte offset after it. With check_only, keys (expired ones
 * too) are shown and freed instead of entering the keyspace. The callbacks
 * borrow what they are given. */
typedef struct rdbLoadObserver {
    void (*aux)(void *ctx, size_t offset, sds field, sds value);
    void (*key)(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val, long long expire);
    /* A FUNCTION2 record: a library's code (NULL: not watched). */
    void (*function)(void *ctx, size_t offset, sds code);
    void *ctx;
    int check_only;
    /* skim (with check_only): every value's structure is walked (lengths,
     * string headers, element counts) and its bytes skipped, not decoded,
     * and skimmed() is called instead of key(). Far cheaper; what it does
     * not prove (the inside of compact blobs and LZF streams, duplicate
     * members) the full check does. The RDB's CRC64 is checked either way. */
    int skim;
    void (*skimmed)(void *ctx, size_t offset, int dbid, int rdbtype, long long expire);
} rdbLoadObserver;
void rdbLoadSetObserver(const rdbLoadObserver *obs); /* NULL: none */
/* The value of RDB type `type` at r consumed without decoding it (see
 * skim above). 0, or -1 with *err. */
int rdbSkipObject(int type, rio *r, sds *err);
/* The OBJ_* type an RDB value type loads as, -1 for none. */
int rdbObjectTypeOf(int type);

#endif
