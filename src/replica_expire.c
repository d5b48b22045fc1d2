/* replica_expire: the keys a writable replica's own clients gave a TTL,
 * and their deletion by the replica (see replica_expire.h).
 *
 * db.c reports each TTL set by a local write (replicaExpireTrack); the
 * tracked set maps a key name to the bitmap of databases it was given a
 * TTL in (databases 0..63, like Redis). The expire cron walks the set a
 * slice at a time (replicaExpireCycle): an expired key is deleted, counted
 * in expired_keys and its DEL goes to this server's AOF (the replica's
 * stream is its primary's); a key with no TTL left drops out of the set.
 * The set owns its key copies. */
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "server_state.h"
#include "util.h"
#include "repl.h"
#include "replica_expire.h"

#include <stdint.h>

/* Tracked keys looked at per cron call, at most. */
#define REPLICA_EXPIRE_PER_CALL 200

static dictType trackedType = {dictSdsHash,       NULL, NULL, dictSdsKeyCompare,
                               dictSdsDestructor, NULL, NULL};
static dict *tracked;        /* sds key -> uint64 bitmap of database ids */
static unsigned long cursor; /* dictScan position between cron calls */

void replicaExpireTrack(int dbid, sds key) {
    if (dbid >= 64) return;
    if (!tracked) tracked = dictCreate(&trackedType);
    dictEntry *de = dictFind(tracked, key);
    if (!de) {
        de = dictAddRaw(tracked, sdsdup(key), NULL);
        dictSetUnsignedIntegerVal(de, 0);
    }
    dictSetUnsignedIntegerVal(de, dictGetUnsignedIntegerVal(de) | ((uint64_t)1 << dbid));
}

size_t replicaExpireTracked(void) {
    return tracked ? dictSize(tracked) : 0;
}

void replicaExpireForget(void) {
    if (!tracked) return;
    dictRelease(tracked);
    tracked = NULL;
    cursor = 0;
}

typedef struct expirePass {
    long long now;
    int seen;
    sds done[REPLICA_EXPIRE_PER_CALL]; /* keys whose bitmap went to 0 */
    int ndone;
} expirePass;

/* Check one tracked key in each database of its bitmap; deletions are
 * made here, removal from the tracked set after the scan step. */
static void replicaExpireScanCb(void *privdata, const dictEntry *de) {
    expirePass *p = privdata;
    p->seen++;
    uint64_t dbs = dictGetUnsignedIntegerVal(de), left = 0;
    sds name = dictGetKey(de);
    for (int id = 0; dbs && id < cfg.dbnum && id < 64; id++) {
        if (!(dbs & ((uint64_t)1 << id))) continue;
        serverDb *db = &server.db[id];
        dictEntry *kde = dictFind(db->dict, name);
        long long when = kde ? dbGetExpireEntry(db, kde) : -1;
        if (when < 0) continue; /* gone, or persisted: no longer ours */
        if (when >= p->now) {
            left |= (uint64_t)1 << id;
            continue;
        }
        dbDeleteExpiredEntryNow(db, kde);
    }
    if (left)
        dictSetUnsignedIntegerVal((dictEntry *)de, left);
    else if (p->ndone < REPLICA_EXPIRE_PER_CALL)
        p->done[p->ndone++] = name;
}

void replicaExpireCycle(void) {
    if (!tracked) return;
    /* Promoted: everything is expired by the normal cycle now. */
    if (!replIsReplica()) {
        replicaExpireForget();
        return;
    }
    expirePass p = {.now = mstime()};
    do {
        p.ndone = 0;
        cursor = dictScan(tracked, cursor, replicaExpireScanCb, &p);
        for (int j = 0; j < p.ndone; j++) dictDelete(tracked, p.done[j]);
    } while (cursor && p.seen < REPLICA_EXPIRE_PER_CALL);
    if (dictSize(tracked) == 0) replicaExpireForget();
}
