/* db: the keyspace (db.c): the databases, the per-key API the commands use
 * (lookups that return the entry for reuse, expiry, deletion, keyspace
 * signals), and the keyspace seen as whole databases, for modules that
 * walk or fill them without the client and command machinery (snapshots,
 * the AOF rewrite).
 *
 * Database i holds dbKeysDict(i) (sds key -> robj value, owned by the
 * database) and dbExpiresDict(i) (the same key pointers -> unix ms in the
 * entry's signed integer). Callers must not add or remove entries through
 * these pointers; iterate them, or fill the keyspace with dbAddLoaded. */
#ifndef CAIRN_DB_H
#define CAIRN_DB_H
#include "dict.h"
#include "object.h"
#include "sds.h"

typedef struct client client;

#define CRON_DBS_PER_CALL 16

typedef struct serverDb {
    dict *dict;    /* sds key -> robj value */
    dict *expires; /* sds key (shared with dict) -> int64 unix ms */
    int id;
    long long avg_ttl;
    unsigned long expires_cursor; /* active expiry resume point */
} serverDb;

int dbCount(void);
dict *dbKeysDict(int dbid);
dict *dbExpiresDict(int dbid);
/* Make room for a database about to receive `keys` keys, `expires` of them
 * with a TTL (a hint: capped, failures ignored). */
void dbExpandForLoad(int dbid, unsigned long keys, unsigned long expires);
/* Add a key read from a snapshot: the database takes the key sds and the
 * caller's reference to val; expire is unix ms or -1. With replace an
 * existing key is overwritten, otherwise 0 is returned and nothing is taken. */
int dbAddLoaded(int dbid, sds key, robj *val, long long expire, int replace);

/* --- db.c --- */
/* Result of a single keyspace lookup: the entry if the key exists (and is not
 * expired), otherwise the insert position. Write commands pass it on to
 * dbSetValue/dbSetExpire/... so the key is found exactly once. */
typedef struct keyRef {
    serverDb *db;
    robj *key;
    dictEntry *de;    /* NULL if absent */
    dictEntry *stale; /* an expired entry kept in place (replica): de is NULL */
    dictInsertPos pos;
} keyRef;
void dbInit(void);
robj *dbLookupRead(serverDb *db, robj *key);     /* updates hits/misses and LRU */
robj *dbLookupReadNoTouch(serverDb *db, robj *key);
robj *dbLookupReadNoNotify(serverDb *db, robj *key);
robj *dbLookupWrite(serverDb *db, robj *key);
/* Lookup for a write command: deletes the key if logically expired and
 * returns it in ref (ref->de NULL if absent, with an insert position). */
void dbFindForWrite(serverDb *db, robj *key, keyRef *ref);
/* Store val (takes the caller's reference) at ref: overwrite or insert. */
void dbSetValue(keyRef *ref, robj *val);
/* Replace the value at an existing entry, keeping the expire. */
void dbOverwriteValue(keyRef *ref, robj *val);
/* Make the string value at an existing ref a private raw sds that can be
 * modified in place (t_string.c; APPEND, SETRANGE, SETBIT, PFADD ...). */
robj *dbUnshareStringValue(keyRef *ref);
void dbAdd(serverDb *db, robj *key, robj *val);
/* dbDelete frees the value as lazyfree-lazy-server-del says; DEL, UNLINK
 * and expiry choose with dbDeleteSync / dbDeleteAsync / dbDeleteExpired
 * (lazyfree-lazy-expire). */
int dbDelete(serverDb *db, robj *key);
int dbDeleteSync(serverDb *db, robj *key);
int dbDeleteAsync(serverDb *db, robj *key);
int dbDeleteExpired(serverDb *db, robj *key);
int dbExists(serverDb *db, robj *key);
long long dbGetExpire(serverDb *db, robj *key);
long long dbGetExpireEntry(serverDb *db, dictEntry *de);
void dbSetExpireEntry(serverDb *db, dictEntry *de, long long when);
int dbRemoveExpireEntry(serverDb *db, dictEntry *de);
void dbSetExpire(serverDb *db, robj *key, long long when);
int dbRemoveExpire(serverDb *db, robj *key);
int dbKeyIsExpired(serverDb *db, dictEntry *de);
int dbExpireIfNeeded(serverDb *db, robj *key, dictEntry *de);
void dbDeleteExpiredEntry(serverDb *db, dictEntry *de);
/* The same on a replica too (a writable replica's own keys). */
void dbDeleteExpiredEntryNow(serverDb *db, dictEntry *de);
long long dbEmpty(int dbnum, int async);
long long dbTotalKeys(void);
/* repl-diskless-load swapdb: set the whole keyspace aside, then put it back
 * (restore) or free it. */
typedef struct dbBackup dbBackup;
dbBackup *dbBackupTake(void);
void dbBackupEnd(dbBackup *b, int restore);
/* Exchange the keyspace with the one kept aside: an async load serves
 * clients the old dataset between keys, then swaps back to go on. */
void dbBackupSwap(dbBackup *b);
int dbSelect(client *c, int id);
robj *dbRandomKey(serverDb *db);
void dbSwap(int id1, int id2);
void dbsCron(void);
void activeExpireCycle(int fast);
long long dbExpiredNow(void);
void signalModifiedKey(client *c, serverDb *db, robj *key);
void signalFlushedDb(int dbid);
void notifyKeyspaceEvent(int type, const char *event, robj *key, int dbid);
/* Keyspace notification classes (delivery arrives with Pub/Sub). */
#define NOTIFY_KEYSPACE (1 << 0)
#define NOTIFY_KEYEVENT (1 << 1)
#define NOTIFY_GENERIC  (1 << 2)
#define NOTIFY_STRING   (1 << 3)
#define NOTIFY_LIST     (1 << 4)
#define NOTIFY_SET      (1 << 5)
#define NOTIFY_HASH     (1 << 6)
#define NOTIFY_ZSET     (1 << 7)
#define NOTIFY_EXPIRED  (1 << 8)
#define NOTIFY_EVICTED  (1 << 9)
#define NOTIFY_STREAM   (1 << 10)
#define NOTIFY_KEY_MISS (1 << 11)
#define NOTIFY_LOADED   (1 << 12)
#define NOTIFY_MODULE   (1 << 13)
#define NOTIFY_NEW      (1 << 14)
#define NOTIFY_ALL (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE)

/* dictTypes shared across modules */
extern dictType dbDictType, keyptrDictType;
uint64_t dictSdsHash(const void *key);
uint64_t dictSdsCaseHash(const void *key);
int dictSdsKeyCompare(dict *d, const void *k1, const void *k2);
int dictSdsKeyCaseCompare(dict *d, const void *k1, const void *k2);
void dictSdsDestructor(dict *d, void *val);

#endif
