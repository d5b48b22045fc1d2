/* db: the keyspace. Sixteen (cfg.dbnum) databases, each a dict of sds key ->
 * robj value plus a dict of the same key pointers -> expire time (unix ms).
 *
 * Keys enter through dbAdd/dbSetValue (the keyspace takes ownership of the
 * key copy and of one reference to the value) and leave through deletion or
 * expiry, which also propagates a DEL so the AOF and replicas agree.
 *
 * The single-lookup rule: a write command calls dbFindForWrite once. The
 * keyRef it gets back holds either the live entry or the position where the
 * key would be inserted, and dbSetValue / dbSetExpireEntry /
 * dbRemoveExpireEntry work from it without searching the main dict again.
 * server.stat_lookups counts every search of a main dict (DEBUG LOOKUPS), so
 * tests can check that rule. */
#include "client.h"
#include "config.h"
#include "dict.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "propagate.h"
#include "sds.h"
#include "server_state.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"
#include "repl.h"
#include "blocked.h"
#include "db.h"
#include "evict.h"
#include "lazyfree.h"
#include "lfu.h"
#include "latency.h"
#include "replica_expire.h"

uint64_t dictSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((sds)key)); }

uint64_t dictSdsCaseHash(const void *key) {
    return dictGenCaseHashFunction((const unsigned char *)key, sdslen((sds)key));
}

int dictSdsKeyCompare(dict *d, const void *k1, const void *k2) {
    (void)d;
    size_t l1 = sdslen((sds)k1), l2 = sdslen((sds)k2);
    return l1 == l2 && memcmp(k1, k2, l1) == 0;
}

int dictSdsKeyCaseCompare(dict *d, const void *k1, const void *k2) {
    (void)d;
    return strcasecmp(k1, k2) == 0;
}

void dictSdsDestructor(dict *d, void *val) {
    (void)d;
    sdsfree(val);
}

static void dictObjectDestructor(dict *d, void *val) {
    (void)d;
    if (val) decrRefCount(val);
}

dictType dbDictType = {
    dictSdsHash,           NULL, NULL, dictSdsKeyCompare, dictSdsDestructor, dictObjectDestructor,
    evictDictExpandAllowed};
/* expires: keys are the same sds pointers as in the main dict, not owned. */
dictType keyptrDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, NULL, NULL, NULL};

void dbInit(void) {
    server.db = zcalloc(sizeof(serverDb) * cfg.dbnum);
    for (int j = 0; j < cfg.dbnum; j++) {
        server.db[j].dict = dictCreate(&dbDictType);
        server.db[j].expires = dictCreate(&keyptrDictType);
        server.db[j].id = j;
    }
}

/* ---- expiry primitives ---- */

long long dbGetExpireEntry(serverDb *db, dictEntry *de) {
    if (dictSize(db->expires) == 0) return -1;
    dictEntry *e = dictFind(db->expires, dictGetKey(de));
    return e ? dictGetSignedIntegerVal(e) : -1;
}

long long dbGetExpire(serverDb *db, robj *key) {
    if (dictSize(db->expires) == 0) return -1;
    dictEntry *e = dictFind(db->expires, key->ptr);
    return e ? dictGetSignedIntegerVal(e) : -1;
}

void dbSetExpireEntry(serverDb *db, dictEntry *de, long long when) {
    dictEntry *existing;
    dictEntry *e = dictAddRaw(db->expires, dictGetKey(de), &existing);
    dictSetSignedIntegerVal(e ? e : existing, when);
    /* A writable replica's own write: no DEL will come from the primary. */
    client *c = server.current_client;
    if (c && !(c->flags & CLIENT_MASTER) && !server.loading && !cfg.replica_read_only && replIsReplica())
        replicaExpireTrack(db->id, dictGetKey(de));
}

int dbRemoveExpireEntry(serverDb *db, dictEntry *de) {
    if (dictSize(db->expires) == 0) return 0;
    return dictDelete(db->expires, dictGetKey(de)) == DICT_OK;
}

void dbSetExpire(serverDb *db, robj *key, long long when) {
    dictEntry *de = dictFind(db->dict, key->ptr);
    serverAssert(de != NULL);
    dbSetExpireEntry(db, de, when);
}

int dbRemoveExpire(serverDb *db, robj *key) {
    if (dictSize(db->expires) == 0) return 0;
    return dictDelete(db->expires, key->ptr) == DICT_OK;
}

int dbKeyIsExpired(serverDb *db, dictEntry *de) {
    long long when = dbGetExpireEntry(db, de);
    if (when < 0) return 0;
    if (server.loading) return 0;
    /* The primary's commands see the key as it is on the primary, where it
     * has not expired until its DEL arrives. */
    if (server.current_client && (server.current_client->flags & CLIENT_MASTER)) return 0;
    return server.cmd_time_snapshot > when;
}

/* Current time for expiry decisions: fixed for the duration of a command so
 * a key cannot expire half way through it. */
long long dbExpiredNow(void) { return server.cmd_time_snapshot; }

/* Delete an expired key found at de and tell the rest of the world. */
void dbDeleteExpiredEntry(serverDb *db, dictEntry *de) {
    /* A replica reads an expired key as absent but never deletes it
     * (except its own keys: replica_expire.c). */
    if (replIsReplica()) return;
    dbDeleteExpiredEntryNow(db, de);
}

void dbDeleteExpiredEntryNow(serverDb *db, dictEntry *de) {
    robj *keyobj = createStringObject(dictGetKey(de), sdslen(dictGetKey(de)));
    dbDeleteExpired(db, keyobj);
    server.stat_expiredkeys++;
    notifyKeyspaceEvent(NOTIFY_EXPIRED, "expired", keyobj, db->id);
    signalModifiedKey(NULL, db, keyobj);
    propagateDel(db, keyobj, cfg.lazyfree_lazy_expire);
    decrRefCount(keyobj);
}

int dbExpireIfNeeded(serverDb *db, robj *key, dictEntry *de) {
    (void)key;
    if (!dbKeyIsExpired(db, de)) return 0;
    dbDeleteExpiredEntry(db, de);
    return 1;
}

/* ---- lookups ---- */

static inline void dbTouch(robj *val) { objectTouch(val); }

/* An expired key a write is about to replace. On a writable replica it
 * goes too (a read leaves it for the primary's DEL): otherwise the write
 * would find the old value (INCR) or collide with the stale entry, as
 * Redis' forced delete for write lookups avoids. A read-only replica's
 * write-flagged reads (PFCOUNT) leave it, as there. */
static void dbDeleteExpiredForWrite(serverDb *db, dictEntry *de) {
    if (replIsReplica() && !cfg.replica_read_only) dbDeleteExpiredEntryNow(db, de);
    else dbDeleteExpiredEntry(db, de);
}

static dictEntry *dbFindLive(serverDb *db, robj *key, int write) {
    server.stat_lookups++;
    dictEntry *de = dictFind(db->dict, key->ptr);
    if (de && dictSize(db->expires) && dbKeyIsExpired(db, de)) {
        /* Logically gone either way; during CLIENT PAUSE it stays in place
         * so nothing is written (or propagated) until the pause ends. */
        if (clientsArePaused()) return NULL;
        if (write) dbDeleteExpiredForWrite(db, de);
        else dbDeleteExpiredEntry(db, de);
        return NULL;
    }
    return de;
}

robj *dbLookupRead(serverDb *db, robj *key) {
    dictEntry *de = dbFindLive(db, key, 0);
    if (!de) {
        server.stat_keyspace_misses++;
        notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", key, db->id);
        return NULL;
    }
    server.stat_keyspace_hits++;
    robj *val = dictGetVal(de);
    dbTouch(val);
    return val;
}

/* Like a read, without updating the access clock (EXISTS, TYPE, TTL). */
robj *dbLookupReadNoTouch(serverDb *db, robj *key) {
    dictEntry *de = dbFindLive(db, key, 0);
    if (!de) {
        server.stat_keyspace_misses++;
        notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", key, db->id);
        return NULL;
    }
    server.stat_keyspace_hits++;
    return dictGetVal(de);
}

/* Internal lookups (OBJECT, SCAN's filter, serving blocked clients): no
 * access clock, no statistics, no events. */
robj *dbLookupReadNoNotify(serverDb *db, robj *key) {
    dictEntry *de = dbFindLive(db, key, 0);
    return de ? dictGetVal(de) : NULL;
}

robj *dbLookupWrite(serverDb *db, robj *key) {
    dictEntry *de = dbFindLive(db, key, 1);
    if (!de) return NULL;
    robj *val = dictGetVal(de);
    dbTouch(val);
    return val;
}

void dbFindForWrite(serverDb *db, robj *key, keyRef *ref) {
    ref->db = db;
    ref->key = key;
    ref->stale = NULL;
    server.stat_lookups++;
    dictEntry *de = dictFindOrPos(db->dict, key->ptr, &ref->pos);
    if (de && dictSize(db->expires) && dbKeyIsExpired(db, de)) {
        /* Rare: the key is logically gone. Deleting it changes the table, so
         * the insert position must be computed afresh. */
        dbDeleteExpiredForWrite(db, de);
        server.stat_lookups++;
        de = dictFindOrPos(db->dict, key->ptr, &ref->pos);
        /* A read-only replica keeps it for its primary's DEL, and it reads
         * as missing all the same (PFCOUNT there answers 0, as Redis'
         * write lookup does). */
        if (de) {
            ref->stale = de;
            de = NULL;
        }
    }
    /* A write lookup is an access too, as Redis' lookupKeyWrite. */
    if (de) dbTouch(dictGetVal(de));
    ref->de = de;
}

static int dbGenericDelete(serverDb *db, robj *key, int lazy);

void dbSetValue(keyRef *ref, robj *val) {
    if (ref->de) {
        dbOverwriteValue(ref, val);
        return;
    }
    if (ref->stale) {
        /* Only a write on a read-only replica gets here (none should): the
         * stale entry would collide with the new one, so it goes first. */
        dbGenericDelete(ref->db, ref->key, 0);
        ref->stale = NULL;
        server.stat_lookups++;
        dictFindOrPos(ref->db->dict, ref->key->ptr, &ref->pos);
    }
    sds k = sdsnewkey(ref->key->ptr, sdslen(ref->key->ptr));
    ref->de = dictInsertAtPos(ref->db->dict, k, &ref->pos);
    dictSetVal(ref->db->dict, ref->de, val);
    if (cfg.notify_keyspace_events & NOTIFY_NEW)
        notifyKeyspaceEvent(NOTIFY_NEW, "new", ref->key, ref->db->id);
    /* A new list or sorted set may be what blocked clients wait for. */
    if (server.blocked_clients && (val->type == OBJ_LIST || val->type == OBJ_ZSET))
        signalKeyAsReady(ref->db, ref->key, val->type);
}

void dbOverwriteValue(keyRef *ref, robj *val) {
    robj *old = dictGetVal(ref->de);
    dictSetVal(ref->db->dict, ref->de, val);
    if (old != val) {
        /* As Redis 7.0: a new value under the same key keeps its access
         * counter (SET, INCR, MSET ... on an existing key). */
        if (MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) val->lru = old->lru;
        if (cfg.lazyfree_lazy_server_del) lazyfreeObject(old);
        else decrRefCount(old);
    }
    if (server.blocked_clients && (val->type == OBJ_LIST || val->type == OBJ_ZSET))
        signalKeyAsReady(ref->db, ref->key, val->type);
}

void dbAdd(serverDb *db, robj *key, robj *val) {
    keyRef ref;
    dbFindForWrite(db, key, &ref);
    serverAssert(ref.de == NULL);
    dbSetValue(&ref, val);
}

/* lazy: the value goes through lazyfreeObject, which hands a big one to
 * the background thread. The entry and key are freed here either way. */
static int dbGenericDelete(serverDb *db, robj *key, int lazy) {
    server.stat_lookups++;
    dictEntry *de = dictUnlink(db->dict, key->ptr);
    if (!de) return 0;
    /* The expires entry shares the key sds: remove it before freeing. */
    if (dictSize(db->expires)) dictDelete(db->expires, dictGetKey(de));
    if (lazy) {
        lazyfreeObject(dictGetVal(de));
        dictSetVal(db->dict, de, NULL); /* the destructor skips NULL */
    }
    dictFreeUnlinkedEntry(db->dict, de);
    return 1;
}

int dbDelete(serverDb *db, robj *key) { return dbGenericDelete(db, key, cfg.lazyfree_lazy_server_del); }
int dbDeleteSync(serverDb *db, robj *key) { return dbGenericDelete(db, key, 0); }
int dbDeleteAsync(serverDb *db, robj *key) { return dbGenericDelete(db, key, 1); }
int dbDeleteExpired(serverDb *db, robj *key) { return dbGenericDelete(db, key, cfg.lazyfree_lazy_expire); }

int dbExists(serverDb *db, robj *key) { return dbFindLive(db, key, 0) != NULL; }

long long dbEmpty(int dbnum, int async) {
    long long removed = 0;
    int start = dbnum == -1 ? 0 : dbnum;
    int end = dbnum == -1 ? cfg.dbnum - 1 : dbnum;
    /* Inside EXEC, values that earlier SETs of the transaction stored are
     * still referenced by its queued arguments, which the main thread
     * releases after EXEC: the background thread must not share those
     * refcounts, so a flush there frees inline. */
    if (server.in_exec) async = 0;
    if (dbnum == -1) replicaExpireForget();
    for (int j = start; j <= end; j++) {
        serverDb *db = &server.db[j];
        removed += dictSize(db->dict);
        if (async && dictSize(db->dict)) {
            lazyfreeKeyspace(db->dict, db->expires);
            db->dict = dictCreate(&dbDictType);
            db->expires = dictCreate(&keyptrDictType);
        } else {
            dictEmpty(db->expires, NULL);
            dictEmpty(db->dict, NULL);
        }
        db->avg_ttl = 0;
        db->expires_cursor = 0;
    }
    return removed;
}

/* repl-diskless-load swapdb: the whole keyspace is set aside (every
 * database's dicts) while a replica loads its primary's snapshot from the
 * socket, and put back if that load fails. */
struct dbBackup {
    dict **dicts, **expires;
};

dbBackup *dbBackupTake(void) {
    dbBackup *b = zmalloc(sizeof(*b));
    b->dicts = zmalloc(sizeof(dict *) * cfg.dbnum);
    b->expires = zmalloc(sizeof(dict *) * cfg.dbnum);
    for (int j = 0; j < cfg.dbnum; j++) {
        b->dicts[j] = server.db[j].dict;
        b->expires[j] = server.db[j].expires;
        server.db[j].dict = dictCreate(&dbDictType);
        server.db[j].expires = dictCreate(&keyptrDictType);
    }
    return b;
}

void dbBackupSwap(dbBackup *b) {
    for (int j = 0; j < cfg.dbnum; j++) {
        dict *d = server.db[j].dict, *e = server.db[j].expires;
        server.db[j].dict = b->dicts[j];
        server.db[j].expires = b->expires[j];
        b->dicts[j] = d;
        b->expires[j] = e;
    }
}

/* restore: back in place of whatever the keyspace holds now; else the
 * backup is freed (in the background). Either way b is freed. */
void dbBackupEnd(dbBackup *b, int restore) {
    for (int j = 0; j < cfg.dbnum; j++) {
        if (restore) {
            dbEmpty(j, 0);
            dictRelease(server.db[j].dict);
            dictRelease(server.db[j].expires);
            server.db[j].dict = b->dicts[j];
            server.db[j].expires = b->expires[j];
        } else {
            lazyfreeKeyspace(b->dicts[j], b->expires[j]);
        }
    }
    zfree(b->dicts);
    zfree(b->expires);
    zfree(b);
}

long long dbTotalKeys(void) {
    long long n = 0;
    for (int j = 0; j < cfg.dbnum; j++) n += dictSize(server.db[j].dict);
    return n;
}

int dbSelect(client *c, int id) {
    if (id < 0 || id >= cfg.dbnum) return C_ERR;
    c->db = &server.db[id];
    return C_OK;
}

robj *dbRandomKey(serverDb *db) {
    /* If every key is volatile and expired, give up after some tries rather
     * than loop forever (the expired ones get deleted as we go). */
    int maxtries = 100;
    int allvolatile = dictSize(db->dict) == dictSize(db->expires);
    while (dictSize(db->dict)) {
        dictEntry *de = dictGetFairRandomKey(db->dict);
        sds key = dictGetKey(de);
        robj *keyobj = createStringObject(key, sdslen(key));
        if (dictSize(db->expires) && dbKeyIsExpired(db, de)) {
            if (allvolatile && --maxtries == 0) return keyobj;
            dbDeleteExpiredEntry(db, de);
            decrRefCount(keyobj);
            continue;
        }
        return keyobj;
    }
    return NULL;
}

void dbSwap(int id1, int id2) {
    serverDb *a = &server.db[id1], *b = &server.db[id2];
    if (multiWatchingClients()) {
        touchAllWatchedKeysInDb(a, b);
        touchAllWatchedKeysInDb(b, a);
    }
    dict *d = a->dict, *e = a->expires;
    long long ttl = a->avg_ttl;
    a->dict = b->dict;
    a->expires = b->expires;
    a->avg_ttl = b->avg_ttl;
    b->dict = d;
    b->expires = e;
    b->avg_ttl = ttl;
    a->expires_cursor = b->expires_cursor = 0;
    if (server.blocked_clients) {
        /* Every key of either database may now be what someone waits for. */
        serverDb *dbs[2] = {a, b};
        for (int j = 0; j < 2; j++) {
            dictIterator di;
            dictInitIterator(&di, dbs[j]->dict);
            dictEntry *de;
            while ((de = dictNext(&di)) != NULL) {
                robj *v = dictGetVal(de);
                if (v->type != OBJ_LIST && v->type != OBJ_ZSET) continue;
                robj *k = createStringObject(dictGetKey(de), sdslen(dictGetKey(de)));
                signalKeyAsReady(dbs[j], k, v->type);
                decrRefCount(k);
            }
            dictResetIterator(&di);
        }
    }
}

/* Every change to a key reaches WATCH (multi.c) and client-side caching
 * (tracking.c) through these two; keyspace events go through pubsub.c. */
void signalModifiedKey(client *c, serverDb *db, robj *key) {
    if (multiWatchingClients()) touchWatchedKey(db, key);
    if (trackingClientsCount()) trackingInvalidateKey(c, key);
}

void signalFlushedDb(int dbid) {
    trackingInvalidateAll();
    if (!multiWatchingClients()) return;
    int start = dbid == -1 ? 0 : dbid, end = dbid == -1 ? cfg.dbnum - 1 : dbid;
    for (int j = start; j <= end; j++) touchAllWatchedKeysInDb(&server.db[j], NULL);
}


/* ---- active expiry ---- */

#define ACTIVE_EXPIRE_KEYS_PER_LOOP 20   /* keys sampled per database per loop */
#define ACTIVE_EXPIRE_SLOW_TIME_PERC 25  /* max CPU percent of a cron tick */
#define ACTIVE_EXPIRE_ACCEPTABLE_STALE 10 /* percent of stale keys tolerated */

typedef struct expireScanState {
    serverDb *db;
    long long now;
    unsigned long sampled, expired;
} expireScanState;

static void activeExpireScanCb(void *privdata, const dictEntry *const_de) {
    expireScanState *st = privdata;
    dictEntry *de = (dictEntry *)const_de;
    st->sampled++;
    if (dictGetSignedIntegerVal(de) < st->now) {
        /* The scan callback runs with rehashing paused, so deleting the
         * entry under the cursor is safe: the dict does not move. */
        robj *keyobj = createStringObject(dictGetKey(de), sdslen(dictGetKey(de)));
        dbDeleteExpired(st->db, keyobj);
        server.stat_expiredkeys++;
        notifyKeyspaceEvent(NOTIFY_EXPIRED, "expired", keyobj, st->db->id);
        signalModifiedKey(NULL, st->db, keyobj);
        propagateDel(st->db, keyobj, cfg.lazyfree_lazy_expire);
        decrRefCount(keyobj);
        st->expired++;
    }
}

/* Sample keys with a TTL and delete the expired ones, database by database,
 * repeating on a database while more than ~10% of the sample was stale, and
 * stopping when the time budget for this tick is spent. */
static void activeExpireCycleRun(int fast) {
    static int current_db = 0;
    int effort = cfg.active_expire_effort - 1;
    unsigned long per_loop =
        ACTIVE_EXPIRE_KEYS_PER_LOOP + ACTIVE_EXPIRE_KEYS_PER_LOOP / 4 * effort;
    long long budget_us = fast ? 1000 + 250 * effort
                               : (long long)(ACTIVE_EXPIRE_SLOW_TIME_PERC + 2 * effort) * 1000000 /
                                     server.hz / 100;
    uint64_t start = monotonicUs();
    long long saved_snapshot = server.cmd_time_snapshot;
    int dbs = cfg.dbnum < CRON_DBS_PER_CALL ? cfg.dbnum : CRON_DBS_PER_CALL;
    for (int j = 0; j < dbs; j++) {
        serverDb *db = &server.db[current_db % cfg.dbnum];
        current_db++;
        for (;;) {
            if (dictSize(db->expires) == 0) break;
            expireScanState st = {db, mstime(), 0, 0};
            server.cmd_time_snapshot = st.now;
            unsigned long max_buckets = per_loop * 20;
            unsigned long buckets = 0;
            do {
                db->expires_cursor = dictScan(db->expires, db->expires_cursor,
                                              activeExpireScanCb, &st);
                buckets++;
            } while (db->expires_cursor && st.sampled < per_loop && buckets < max_buckets);
            if ((long long)(monotonicUs() - start) > budget_us) {
                server.stat_expired_time_cap_reached_count++;
                server.cmd_time_snapshot = saved_snapshot;
                return;
            }
            if (st.sampled == 0 ||
                st.expired * 100 / st.sampled <= ACTIVE_EXPIRE_ACCEPTABLE_STALE - (unsigned)effort)
                break;
        }
    }
    server.cmd_time_snapshot = saved_snapshot;
}

void activeExpireCycle(int fast) {
    /* A replica waits for its primary's DELs, but expires its own keys. */
    if (clientsArePaused()) return;
    if (replIsReplica()) {
        replicaExpireCycle();
        return;
    }
    uint64_t start = monotonicUs();
    activeExpireCycleRun(fast);
    /* the latency monitor's "expire-cycle" event, as in Redis */
    latencyAddSampleIfNeeded("expire-cycle", (long long)(monotonicUs() - start) / 1000);
}

/* Incremental rehashing of the keyspace: a millisecond per cron tick on the
 * first database that needs it. */
void dbsCron(void) {
    activeExpireCycle(0);
    if (!cfg.activerehashing) return;
    for (int j = 0; j < cfg.dbnum; j++) {
        serverDb *db = &server.db[j];
        if (dictIsRehashing(db->dict)) {
            dictRehashMilliseconds(db->dict, 1);
            return;
        }
        if (dictIsRehashing(db->expires)) {
            dictRehashMilliseconds(db->expires, 1);
            return;
        }
    }
    /* Shrink tables that emptied out (below 10% full), as Redis does. */
    for (int j = 0; j < cfg.dbnum; j++) {
        serverDb *db = &server.db[j];
        if (dictSlots(db->dict) > DICT_HT_INITIAL_SIZE &&
            dictSize(db->dict) * 100 / dictSlots(db->dict) < 10)
            dictResize(db->dict);
        if (dictSlots(db->expires) > DICT_HT_INITIAL_SIZE &&
            dictSize(db->expires) * 100 / dictSlots(db->expires) < 10)
            dictResize(db->expires);
    }
}

/* ---- whole databases (db.h), for snapshots ---- */

int dbCount(void) { return cfg.dbnum; }
dict *dbKeysDict(int dbid) { return server.db[dbid].dict; }
dict *dbExpiresDict(int dbid) { return server.db[dbid].expires; }

void dbExpandForLoad(int dbid, unsigned long keys, unsigned long expires) {
    const unsigned long cap = 1UL << 24; /* a corrupt count must not allocate gigabytes */
    if (keys) dictTryExpand(server.db[dbid].dict, keys < cap ? keys : cap);
    if (expires) dictTryExpand(server.db[dbid].expires, expires < cap ? expires : cap);
}

int dbAddLoaded(int dbid, sds key, robj *val, long long expire, int replace) {
    serverDb *db = &server.db[dbid];
    dictEntry *existing;
    dictEntry *de = dictAddRaw(db->dict, key, &existing);
    if (!de) {
        if (!replace) return 0;
        robj *old = dictGetVal(existing);
        dictSetVal(db->dict, existing, val);
        decrRefCount(old);
        sdsfree(key);
        de = existing;
        if (expire == -1) dbRemoveExpireEntry(db, de);
    } else {
        dictSetVal(db->dict, de, val);
    }
    if (expire != -1) dbSetExpireEntry(db, de, expire);
    return 1;
}
