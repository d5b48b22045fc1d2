/* evict: keeping the keyspace inside maxmemory.
 *
 * Before every command (evictBeforeCommand, from commandProcess) and after
 * CONFIG SET maxmemory, evictPerform compares the memory that counts with
 * maxmemory and deletes keys until it fits. What counts is used_memory
 * minus what the propagation stream's readers hold beyond the backlog (the
 * replicas' and the AOF's unsent output, which each eviction's own DEL
 * grows: counting it would make eviction feed itself) and minus values the
 * lazy-free thread has yet to free (or one call would evict twice for them).
 * Ownership: the pool owns copies of its candidate keys; nothing else here
 * is allocated per call except the key object of each eviction.
 *
 * Choosing a key:
 *   - allkeys-random / volatile-random: a random key of the next database
 *     (round robin), from the keyspace or the expires dict;
 *   - LRU, LFU, TTL: maxmemory-samples keys of each database go into a pool
 *     of the EVPOOL_SIZE best candidates seen so far, kept across calls and
 *     sorted by score (idle ms, 255 - LFU counter, or how near the expiry
 *     is); the best one still present is evicted. The pool approximates the
 *     true LRU order far better than a single sample at the same cost.
 *
 * An evicted key is deleted (the value through the lazy-free thread under
 * lazyfree-lazy-eviction), counted in evicted_keys, fires the `evicted`
 * notification, invalidates tracking/WATCH and propagates as DEL (UNLINK
 * when lazy), like an expired key.
 *
 * One call runs for at most the slice maxmemory-eviction-tenacity allows;
 * if memory is still over then, a 0 ms timer continues between event loop
 * turns and commands are not refused meanwhile:
 *
 *   evictPerform --fits---------------------------------> EVICT_OK
 *                --over, slice spent (timer armed)------> EVICT_RUNNING
 *                --over, nothing evictable / noeviction-> EVICT_FAIL (-OOM)
 *
 * State here: the pool (its key buffers are allocated once and reused),
 * the timer, the round-robin database and the exceeded-time clock. */
#include "evict.h"
#include "bio.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "event.h"
#include "latency.h"
#include "lazyfree.h"
#include "lfu.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "propagate.h"
#include "repl.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <unistd.h>

#define EVPOOL_SIZE       16
#define EVPOOL_KEY_ROOM   255 /* key buffers start this big: most keys fit */
#define EVICT_CHECK_EVERY 16  /* keys between clock / lazy-free checks */

typedef struct poolEntry {
    unsigned long long score; /* higher = better candidate */
    sds key;                  /* a buffer owned by the pool */
    int dbid;
} poolEntry;

/* pool[0 .. pool_len-1] sorted by ascending score: the best is last.
 * Slots past pool_len still own their (unused) key buffers. */
static poolEntry pool[EVPOOL_SIZE];
static int pool_len, pool_policy = -1, pool_ready;
static int next_random_db;
static long long timer_id = -1;
/* INFO's eviction_exceeded_time: spells during which a call ended over
 * the limit (time slice spent, or nothing evictable). */
static uint64_t over_since_us;  /* 0: not in such a spell */
static long long over_total_us; /* closed spells */

/* --- accounting ------------------------------------------------------- */

size_t evictNotCountedMemory(void) {
    /* The tail block is the stream's own fixed cost and counts like any
     * other; what readers hold beyond it is their output. */
    size_t stream = streamHeldMemory();
    /* The backlog's share is the dataset's to pay for, as in Redis; with
     * no backlog the stream is all unwritten AOF / replica output. */
    size_t counted = 0;
    if (backlogActive() && cfg.repl_backlog_size > 0) {
        /* plus the headers of the stream's 16 KB blocks it spans */
        size_t blocks = (size_t)cfg.repl_backlog_size / (16 * 1024) + 1;
        counted = (size_t)cfg.repl_backlog_size + blocks * sizeof(streamBlock);
    }
    return stream > counted ? stream - counted : 0;
}

/* 1 when over maxmemory, with *tofree the excess. */
static int evictOverLimit(size_t *tofree) {
    size_t used = zmalloc_used_memory();
    if (used <= cfg.maxmemory) return 0; /* the common case: nothing else to read */
    /* Values on their way out through the lazy-free thread are as good as
     * freed: counting them would evict again for the same bytes. So are
     * clients closing before the loop sleeps (those maxmemory-clients just
     * evicted: Redis frees them at once, and evicts no key for them). */
    size_t skip = evictNotCountedMemory() + lazyfreePendingBytes() + clientsClosingMemory();
    used = used > skip ? used - skip : 0;
    if (used <= cfg.maxmemory) return 0;
    if (tofree) *tofree = used - cfg.maxmemory;
    return 1;
}

/* Load factor past which the keyspace table grows whatever memory says
 * (Redis' HASHTABLE_MAX_LOAD_FACTOR): lookups would get too slow. */
#define EVICT_DICT_MAX_LOAD 1.618

int evictDictExpandAllowed(size_t more_mem, double used_ratio) {
    if (used_ratio > EVICT_DICT_MAX_LOAD || !cfg.maxmemory) return 1;
    size_t used = zmalloc_used_memory();
    if (used + more_mem <= cfg.maxmemory) return 1;
    size_t skip = evictNotCountedMemory();
    used = used > skip ? used - skip : 0;
    return used + more_mem <= cfg.maxmemory;
}

static void evictNoteOver(int over) {
    if (over && !over_since_us) {
        over_since_us = monotonicUs();
    } else if (!over && over_since_us) {
        over_total_us += (long long)(monotonicUs() - over_since_us);
        over_since_us = 0;
    }
}

long long evictCurrentExceededMs(void) {
    return over_since_us ? (long long)(monotonicUs() - over_since_us) / 1000 : 0;
}

/* As Redis: both clocks read 0 until the next call finds memory over. */
void evictResetStats(void) {
    over_total_us = 0;
    over_since_us = 0;
}

long long evictTotalExceededMs(void) {
    return (over_total_us / 1000) + evictCurrentExceededMs();
}

/* The slice one call may spend: 50 us per step up to 10, then growing 15%
 * per step, unbounded at 100 (Redis' curve). */
static uint64_t evictTimeLimitUs(void) {
    int t = cfg.maxmemory_eviction_tenacity;
    if (t <= 10) return 50ULL * (uint64_t)t;
    if (t >= 100) return UINT64_MAX;
    double us = 500.0;
    for (int j = 10; j < t; j++) us *= 1.15;
    return (uint64_t)us;
}

/* allkeys-*: any key; volatile-*: only keys with a TTL. */
static int evictAllKeys(int policy) {
    return policy == MAXMEMORY_ALLKEYS_LRU || policy == MAXMEMORY_ALLKEYS_LFU ||
           policy == MAXMEMORY_ALLKEYS_RANDOM;
}

/* --- the pool --------------------------------------------------------- */

static void poolInit(void) {
    for (int j = 0; j < EVPOOL_SIZE; j++) pool[j].key = sdsMakeRoomFor(sdsempty(), EVPOOL_KEY_ROOM);
    pool_ready = 1;
}

static void poolInsert(unsigned long long score, const sds key, int dbid) {
    if (pool_len == EVPOOL_SIZE && score <= pool[0].score) return;
    int pos = 0; /* first entry that scores higher */
    while (pos < pool_len && pool[pos].score < score) pos++;
    sds buf;
    if (pool_len < EVPOOL_SIZE) {
        buf = pool[pool_len].key;
        memmove(pool + pos + 1, pool + pos, sizeof(poolEntry) * (size_t)(pool_len - pos));
        pool_len++;
    } else {
        /* full: the worst candidate leaves, the ones below pos move down */
        buf = pool[0].key;
        pos--;
        memmove(pool, pool + 1, sizeof(poolEntry) * (size_t)pos);
    }
    pool[pos].key = sdscpylen(buf, key, sdslen(key));
    pool[pos].score = score;
    pool[pos].dbid = dbid;
}

/* Sample one database into the pool; returns the keys it has to offer. */
static unsigned long poolSample(serverDb *db, int policy) {
    int volatile_only = !evictAllKeys(policy);
    dict *from = volatile_only ? db->expires : db->dict;
    unsigned long size = dictSize(from);
    if (!size) return 0;
    int want = cfg.maxmemory_samples > 64 ? 64 : cfg.maxmemory_samples;
    dictEntry *samples[64];
    unsigned int n = dictGetSomeKeys(from, samples, (unsigned)want);
    if (n == 0) {
        /* A sparse table can defeat the bounded scan; never come back
         * empty-handed from a database that has keys. */
        samples[0] = dictGetRandomKey(from);
        n = 1;
    }
    for (unsigned int j = 0; j < n; j++) {
        sds key = dictGetKey(samples[j]);
        unsigned long long score;
        if (policy == MAXMEMORY_VOLATILE_TTL) {
            score = ULLONG_MAX - (unsigned long long)dictGetSignedIntegerVal(samples[j]);
        } else {
            robj *o;
            if (volatile_only) {
                dictEntry *de = dictFind(db->dict, key);
                if (!de) continue;
                o = dictGetVal(de);
            } else {
                o = dictGetVal(samples[j]);
            }
            score = MAXMEMORY_FLAG_LFU(policy) ? 255 - lfuFreq(o)
                                               : (unsigned long long)estimateObjectIdleTime(o);
        }
        poolInsert(score, key, db->id);
    }
    return size;
}

/* The best candidate that still exists; sets *dbp, returns its key (a pool
 * buffer, valid until the next poolInsert) or NULL when no db has keys. */
static sds poolPick(int policy, serverDb **dbp) {
    int volatile_only = !evictAllKeys(policy);
    for (;;) {
        unsigned long offered = 0;
        for (int j = 0; j < cfg.dbnum; j++) offered += poolSample(&server.db[j], policy);
        if (!offered) return NULL;
        while (pool_len) {
            poolEntry *e = &pool[--pool_len];
            serverDb *db = &server.db[e->dbid];
            /* Candidates go stale: deleted, or lost their TTL, since sampled. */
            if (dictFind(volatile_only ? db->expires : db->dict, e->key)) {
                *dbp = db;
                return e->key;
            }
        }
    }
}

static sds randomPick(int policy, serverDb **dbp) {
    for (int j = 0; j < cfg.dbnum; j++) {
        serverDb *db = &server.db[next_random_db];
        next_random_db = (next_random_db + 1) % cfg.dbnum;
        dict *d = evictAllKeys(policy) ? db->dict : db->expires;
        if (!dictSize(d)) continue;
        *dbp = db;
        return dictGetKey(dictGetRandomKey(d));
    }
    return NULL;
}

/* --- evicting --------------------------------------------------------- */

/* used_memory less what the lazy-free thread is about to give back. */
static long long evictCountedUsed(void) {
    return (long long)zmalloc_used_memory() - (long long)lazyfreePendingBytes();
}

/* Delete one key as eviction does; returns the bytes it frees (a value
 * handed to the lazy-free thread counts at once). */
static long long evictKey(serverDb *db, sds key) {
    int lazy = cfg.lazyfree_lazy_eviction;
    robj *keyobj = createStringObject(key, sdslen(key));
    long long before = evictCountedUsed();
    /* (the clock is read only when the latency monitor is on) */
    long long start = cfg.latency_monitor_threshold ? ustime() : 0;
    if (lazy)
        dbDeleteAsync(db, keyobj);
    else
        dbDeleteSync(db, keyobj);
    if (start) latencyAddSampleIfNeeded("eviction-del", (ustime() - start) / 1000);
    long long freed = before - evictCountedUsed();
    server.stat_evictedkeys++;
    signalModifiedKey(NULL, db, keyobj);
    notifyKeyspaceEvent(NOTIFY_EVICTED, "evicted", keyobj, db->id);
    propagateDel(db, keyobj, lazy);
    decrRefCount(keyobj);
    return freed;
}

static long long evictTimerProc(eventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    if (evictPerform() == EVICT_RUNNING) return 0; /* again next turn */
    timer_id = -1;
    return EV_NOMORE;
}

/* Nothing evictable is left, but the lazy-free thread may still be giving
 * memory back: wait for it a little (at most the slice, 1 ms at a time). */
static int evictWaitLazyfree(uint64_t limit_us) {
    uint64_t start = monotonicUs();
    while (bioPending(BIO_LAZY_FREE) && monotonicUs() - start < limit_us) {
        if (!evictOverLimit(NULL)) return EVICT_OK;
        usleep(limit_us < 1000 ? (useconds_t)limit_us : 1000);
    }
    return evictOverLimit(NULL) ? EVICT_FAIL : EVICT_OK;
}

int evictPerform(void) {
    if (server.loading) return EVICT_OK;
    /* No limit (any more), or a replica that follows its primary's DELs
     * instead (replica-ignore-maxmemory): a spell over the limit ends. */
    if (!cfg.maxmemory || (replIsReplica() && cfg.replica_ignore_maxmemory)) {
        evictNoteOver(0);
        return EVICT_OK;
    }
    /* A paused server must not write. */
    if (server.pause_type != PAUSE_NONE) return EVICT_OK;
    size_t tofree;
    if (!evictOverLimit(&tofree)) {
        evictNoteOver(0);
        return EVICT_OK;
    }
    int policy = cfg.maxmemory_policy;
    uint64_t limit_us = evictTimeLimitUs();
    if (policy == MAXMEMORY_NO_EVICTION) {
        int r = evictWaitLazyfree(limit_us);
        evictNoteOver(r != EVICT_OK);
        return r;
    }
    if (!pool_ready) poolInit();
    if (pool_policy != policy) {
        pool_len = 0; /* scores of another policy do not compare */
        pool_policy = policy;
    }
    uint64_t start = monotonicUs();
    long long freed = 0, keys = 0;
    int result = EVICT_OK;
    while (freed < (long long)tofree) {
        serverDb *db = NULL;
        sds key = policy == MAXMEMORY_ALLKEYS_RANDOM || policy == MAXMEMORY_VOLATILE_RANDOM
                      ? randomPick(policy, &db)
                      : poolPick(policy, &db);
        if (!key) {
            result = EVICT_FAIL;
            break;
        }
        freed += evictKey(db, key);
        keys++;
        if (keys % EVICT_CHECK_EVERY == 0) {
            /* Lazily freed values come back later than `freed` says. */
            if (cfg.lazyfree_lazy_eviction && !evictOverLimit(NULL)) break;
            if (monotonicUs() - start > limit_us) {
                if (timer_id == -1) timer_id = elAddTimer(server.el, 0, evictTimerProc, NULL);
                result = EVICT_RUNNING;
                break;
            }
        }
    }
    latencyAddSampleIfNeeded("eviction-cycle", (long long)(monotonicUs() - start) / 1000);
    if (result == EVICT_FAIL) result = evictWaitLazyfree(limit_us);
    evictNoteOver(result != EVICT_OK);
    return result;
}

/* Redis' rule: a command flagged denyoom (EXEC counts its queue) is
 * refused while over; inside MULTI any queued command is, since the queue
 * itself grows without bound. The primary's stream is never refused. */
int evictBeforeCommand(client *c, cairnCommand *cmd) {
    if (!cfg.maxmemory) return 0;
    if (evictPerform() != EVICT_FAIL) return 0;
    if (c->flags & CLIENT_MASTER) return 0;
    if (cmd->flags & CMD_DENYOOM) return 1;
    if (cmd->proc == execCommand) return multiQueueHasFlags(c, CMD_DENYOOM);
    return (c->flags & CLIENT_MULTI) && cmd->proc != discardCommand && cmd->proc != quitCommand &&
           cmd->proc != resetCommand;
}

int evictApplyMaxmemory(const char **err) {
    (void)err;
    size_t used = zmalloc_used_memory();
    if (cfg.maxmemory && cfg.maxmemory < used)
        serverLog(LL_WARNING,
                  "WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller "
                  "than the current memory usage (%zu). This will result in key eviction "
                  "and/or the inability to accept new write commands depending on the "
                  "maxmemory-policy.",
                  cfg.maxmemory, used);
    /* Evict from a timer, as Redis does, not inside the CONFIG SET: an EXEC
     * that lowers the limit runs its remaining commands before any key goes. */
    if (cfg.maxmemory && timer_id == -1 && server.el)
        timer_id = elAddTimer(server.el, 0, evictTimerProc, NULL);
    return 1;
}
