/* debug: the DEBUG command, gated by enable-debug-command like Redis 7.0.
 *
 * Subcommands inspect or poke internals for tests and troubleshooting; none
 * is needed in normal operation. DEBUG LOOKUPS exposes the keyspace lookup
 * counter the single-lookup tests read, DEBUG PROPAGATED the bytes encoded
 * into the propagation stream since the previous call. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "crash.h"
#include "debug.h"
#include "digest.h"
#include "dump.h"
#include "propagate.h"
#include "quicklist.h"
#include "script_lua.h"
#include "snapshot.h"
#include "aof.h"
#include "zset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int active_expire_enabled = 1;
int debugActiveExpireEnabled(void) { return active_expire_enabled; }
static int cron_paused;
int debugCronPaused(void) { return cron_paused; }
/* DEBUG SET-SKIP-CHECKSUM-VALIDATION: lets tests feed RESTORE corrupted
 * payloads that still pass the CRC, so the loader itself is exercised. */
static int skip_checksum;
int debugSkipChecksum(void) { return skip_checksum; }

static streamCursor debug_cursor;

/* DEBUG MALLCTL <key> [<int>]: reads (and writes) a numeric jemalloc
 * setting, trying 8, 4, 2 then 1 byte wide values, as Redis does; a
 * write-only key (EPERM on read) is just written. */
static void debugMallctlInt(client *c) {
    const char *name = c->argv[2]->ptr;
    int writing = c->argc > 3;
    long long newval = 0;
    if (writing && getLongLongFromObjectOrReply(c, c->argv[3], &newval, NULL) != C_OK) return;
    for (size_t width = sizeof(int64_t); width > 0; width /= 2) {
        int64_t old = 0, val = newval;
        size_t len = width;
        int ret = zmalloc_mallctl(name, &old, &len, writing ? &val : NULL, writing ? width : 0);
        if (ret == 0) {
            replyLongLong(c, old); /* little-endian: the low bytes were filled */
            return;
        }
        if (ret == EPERM && writing && zmalloc_mallctl(name, NULL, NULL, &val, width) == 0) {
            replyOk(c);
            return;
        }
        if (ret != EINVAL) {
            replyErrorFormat(c, "ERR %s", strerror(ret));
            return;
        }
    }
    replyErrorFormat(c, "ERR %s", strerror(EINVAL));
}

/* DEBUG MALLCTL-STR <key> [<string>|VOID]: the same for string settings;
 * VOID writes nothing but triggers the key (thread.tcache.flush). */
static void debugMallctlStr(client *c) {
    const char *name = c->argv[2]->ptr;
    char *old = NULL;
    size_t len = sizeof(old);
    int rret = zmalloc_mallctl(name, &old, &len, NULL, 0), wret = 0;
    if (rret && !(rret == EPERM && c->argc > 3)) {
        replyErrorFormat(c, "ERR %s", strerror(rret));
        return;
    }
    if (c->argc > 3) {
        char *val = c->argv[3]->ptr;
        if (!strcmp(val, "VOID")) wret = zmalloc_mallctl(name, NULL, NULL, NULL, 0);
        else wret = zmalloc_mallctl(name, NULL, NULL, &val, sizeof(val));
    }
    if (!rret) replyBulkCString(c, old);
    else if (wret) replyErrorFormat(c, "ERR %s", strerror(wret));
    else replyOk(c);
}

static void debugPropagated(client *c) {
    if (!debug_cursor.block) {
        streamCursorAttachFor(&debug_cursor, STREAM_READER_ALL);
        replyBulkBuf(c, "", 0);
        return;
    }
    sds s = sdsempty();
    struct iovec iov[16];
    int n;
    while ((n = streamCursorPeek(&debug_cursor, iov, 16)) > 0) {
        size_t total = 0;
        for (int j = 0; j < n; j++) {
            s = sdscatlen(s, iov[j].iov_base, iov[j].iov_len);
            total += iov[j].iov_len;
        }
        streamCursorAdvance(&debug_cursor, total);
    }
    replyBulkSds(c, s);
}

static void debugProtocol(client *c) {
    const char *name = c->argv[2]->ptr;
    if (!strcasecmp(name, "string")) replyBulkCString(c, "Hello World");
    else if (!strcasecmp(name, "integer")) replyLongLong(c, 12345);
    else if (!strcasecmp(name, "double")) replyDouble(c, 3.141);
    else if (!strcasecmp(name, "bignum")) replyBigNum(c, "1234567999999999999999999999999999999", 37);
    else if (!strcasecmp(name, "null")) replyNull(c);
    else if (!strcasecmp(name, "array")) {
        replyArrayLen(c, 3);
        for (int j = 0; j < 3; j++) replyLongLong(c, j);
    } else if (!strcasecmp(name, "set")) {
        replySetLen(c, 3);
        for (int j = 0; j < 3; j++) replyLongLong(c, j);
    } else if (!strcasecmp(name, "map")) {
        replyMapLen(c, 3);
        for (int j = 0; j < 3; j++) {
            replyLongLong(c, j);
            replyBool(c, j == 1);
        }
    } else if (!strcasecmp(name, "attrib")) {
        if (c->resp >= 3) {
            replyAttributeLen(c, 1);
            replyBulkCString(c, "key-popularity");
            replyArrayLen(c, 2);
            replyBulkCString(c, "key:123");
            replyLongLong(c, 90);
        }
        replyBulkCString(c, "Some real reply following the attribute");
    } else if (!strcasecmp(name, "push")) {
        if (c->resp < 3) {
            replyError(c, "ERR RESP2 is not supported by this command");
            return;
        }
        replyPushLen(c, 2);
        replyBulkCString(c, "server-cpu-usage");
        replyLongLong(c, 42);
        replyBulkCString(c, "Some real reply following the push reply");
    } else if (!strcasecmp(name, "true")) replyBool(c, 1);
    else if (!strcasecmp(name, "false")) replyBool(c, 0);
    else if (!strcasecmp(name, "verbatim")) replyVerbatim(c, "This is a verbatim\nstring", 25, "txt");
    else
        replyError(c, "ERR Wrong protocol type name. Please use one of the following: string|integer|"
                      "double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
}

static void debugPopulate(client *c) {
    long long count, size = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    if (count < 0) {
        replyError(c, "ERR value is out of range, must be positive");
        return;
    }
    const char *prefix = c->argc >= 4 ? c->argv[3]->ptr : "key";
    if (c->argc == 5 && getLongLongFromObjectOrReply(c, c->argv[4], &size, NULL) != C_OK) return;
    if (size < 0) {
        replyError(c, "ERR value is out of range, must be positive");
        return;
    }
    for (long long j = 0; j < count; j++) {
        char buf[128];
        /* As Redis: a long prefix is cut so the name fits the buffer. */
        int kl = snprintf(buf, sizeof(buf), "%s:%lld", prefix, j);
        if (kl >= (int)sizeof(buf)) kl = (int)sizeof(buf) - 1;
        robj *key = createStringObject(buf, kl);
        keyRef ref;
        dbFindForWrite(c->db, key, &ref);
        if (!ref.de) {
            int vl = snprintf(buf, sizeof(buf), "value:%lld", j);
            robj *val;
            if (size) {
                val = createStringObject(NULL, size);
                memcpy(val->ptr, buf, (size_t)vl < (size_t)size ? (size_t)vl : (size_t)size);
            } else {
                val = createStringObject(buf, vl);
            }
            dbSetValue(&ref, val);
        }
        decrRefCount(key);
    }
    replyOk(c);
}

void debugCommand(client *c) {
    static const char *help[] = {
        "LOG <message>", "    Write <message> to the server log.",
        "LOOKUPS [RESET]", "    Return (or reset) the number of keyspace dictionary lookups.",
        "CONFIG-REWRITE-FORCE-ALL",
        "    Like CONFIG REWRITE but writes all configuration options, including",
        "    keywords not listed in original configuration file or default values.",
        "DIGEST", "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]", "    Output a hex signature of the values of all the specified keys.",
        "OBJECT <key>", "    Show low level info about the key and associated value.",
        "POPULATE <count> [<prefix>] [<size>]", "    Create <count> string keys named key:<num>.",
        "PROPAGATED", "    Return the bytes encoded into the propagation stream since the last call.",
        "PROTOCOL <type>", "    Reply with a test value of the specified type.",
        "AOF-FLUSH-SLEEP <microsec>", "    Sleep before each write of new data to the AOF.",
        "LOADAOF", "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "MALLCTL <key> [<val>]", "    Get or set a malloc tuning integer.",
        "MALLCTL-STR <key> [<val>]", "    Get or set a malloc tuning string.",
        "RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
        "    Save the RDB on disk and reload it back to memory. MERGE loads over the",
        "    data in memory, NOFLUSH keeps it, NOSAVE loads the file already on disk.",
        "SET-ACTIVE-EXPIRE <0|1>", "    Setting it to 0 disables expiring keys in background.",
        "SET-DISABLE-DENY-SCRIPTS <0|1>",
        "    Enable or disable the denial of noscript commands in scripts (for tests).",
        "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
        "    Enables or disables the checksum check of RESTORE payloads.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Sets the threshold for elements to be inserted as plain vs packed nodes",
        "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
        "SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.",
        "PAUSE-CRON <0|1>", "    Stop periodic cron job processing.",
        "READ-CHUNK <bytes>", "    Read at most <bytes> of client input per call (0: no limit).",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
        "    In case NEVER is provided the last observed peak will never be reset",
        "    In case RESET is provided the peak reset time will be restored to the default value",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the replay buffer resize cron job",
        "REPLICATE <command> [<arg> ...]",
        "    Put a command in the replication stream without running it (the AOF reads it too).",
        "HTSTATS <dbid>", "    Return hash table statistics of the specified database.",
        "HTSTATS-KEY <key>", "    Like HTSTATS but for the hash table stored at <key>'s value.",
        "STRINGMATCH-LEN", "    Run a fuzz tester against the stringmatchlen() function.",
        "ERROR <string>", "    Return a Redis protocol error with <string> as message.",
        "PANIC", "    Crash the server simulating a panic.",
        "SEGFAULT", "    Crash the server with sigsegv.",
        "ASSERT", "    Crash the server with a failed assertion.",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        replyHelp(c, help);
    } else if (!strcasecmp(sub, "replicate") && c->argc >= 3) {
        /* Tests make replicas diverge on purpose (propagation-error-behavior). */
        propagateNoDb(c->argv + 2, c->argc - 2);
        replyOk(c);
    } else if (!strcasecmp(sub, "sleep") && c->argc == 3) {
        double secs = strtod(c->argv[2]->ptr, NULL);
        /* The whole time, even if a signal (the watchdog's) cuts a
         * nanosleep short: it reports the rest. */
        if (secs > 0) {
            struct timespec ts = {.tv_sec = (time_t)secs,
                                  .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9)};
            while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
            }
        }
        replyOk(c);
    } else if (!strcasecmp(sub, "set-active-expire") && c->argc == 3) {
        active_expire_enabled = atoi(c->argv[2]->ptr) != 0;
        replyOk(c);
    } else if (!strcasecmp(sub, "set-disable-deny-scripts") && c->argc == 3) {
        scriptLuaAllowNoscript(atoi(c->argv[2]->ptr) != 0);
        replyOk(c);
    } else if (!strcasecmp(sub, "set-skip-checksum-validation") && c->argc == 3) {
        skip_checksum = atoi(c->argv[2]->ptr) != 0;
        replyOk(c);
    } else if (!strcasecmp(sub, "replybuffer") && c->argc == 4) {
        const char *what = c->argv[2]->ptr, *val = c->argv[3]->ptr;
        if (!strcasecmp(what, "peak-reset-time")) {
            long ms;
            if (!strcasecmp(val, "never")) {
                ms = -1;
            } else if (!strcasecmp(val, "reset")) {
                ms = 5000;
            } else if (getLongFromObjectOrReply(c, c->argv[3], &ms, NULL) != C_OK) {
                return;
            }
            clientSetReplyBufferPeakReset(ms);
        } else if (!strcasecmp(what, "resizing")) {
            clientSetReplyBufferResizing(atoi(val) != 0);
        } else {
            replyErrorSubcommand(c);
            return;
        }
        replyOk(c);
    } else if (!strcasecmp(sub, "read-chunk") && c->argc == 3) {
        long long n;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &n, NULL) != C_OK) return;
        clientSetReadChunk(n > 0 ? (size_t)n : 0);
        replyOk(c);
    } else if (!strcasecmp(sub, "pause-cron") && c->argc == 3) {
        cron_paused = atoi(c->argv[2]->ptr) != 0;
        replyOk(c);
    } else if (!strcasecmp(sub, "object") && c->argc == 3) {
        /* The key as stored, expired or not (Redis' tests check a key that
         * expired but was not deleted yet). */
        dictEntry *de = dictFind(c->db->dict, c->argv[2]->ptr);
        robj *o = de ? dictGetVal(de) : NULL;
        if (!o) {
            replyError(c, "ERR no such key");
            return;
        }
        /* serializedlength is the value's RDB encoding, as in Redis: a DUMP
         * payload less its type byte and 10-byte footer. */
        sds payload = dumpPayloadCreate(o);
        size_t serialized = sdslen(payload) - 11;
        sdsfree(payload);
        sds s = sdscatprintf(sdsempty(),
                             "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%u "
                             "lru_seconds_idle:%lld",
                             (void *)o, o->refcount, strEncoding(o->encoding), serialized,
                             (unsigned)o->lru, estimateObjectIdleTime(o) / 1000);
        if (o->encoding == OBJ_ENCODING_QUICKLIST) {
            quicklist *ql = o->ptr;
            size_t raw = 0;
            for (quicklistNode *n = ql->head; n; n = n->next) raw += n->sz;
            s = sdscatprintf(s, " ql_nodes:%lu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d "
                                "ql_uncompressed_size:%zu",
                             ql->len, ql->len ? (double)ql->count / ql->len : 0.0, ql->fill,
                             ql->compress != 0, raw);
        }
        replyStatus(c, s, sdslen(s));
        sdsfree(s);
    } else if (!strcasecmp(sub, "quicklist-packed-threshold") && c->argc == 3) {
        int merr;
        long long sz = memtoull(c->argv[2]->ptr, &merr);
        if (merr || !quicklistSetPackedThreshold((size_t)sz))
            replyError(c, "ERR argument must be a memory value bigger than 1 and smaller than 4gb");
        else
            replyOk(c);
    } else if (!strcasecmp(sub, "config-rewrite-force-all") && c->argc == 2) {
        const char *path = configFilePath();
        if (!path) errno = ENOENT;
        if (!path || configRewriteForceAll(path) == -1)
            replyErrorFormat(c, "ERR CONFIG-REWRITE-FORCE-ALL failed: %s", strerror(errno));
        else
            replyOk(c);
    } else if ((!strcasecmp(sub, "digest") && c->argc == 2) || !strcasecmp(sub, "digest-value")) {
        digestCommand(c);
    } else if (!strcasecmp(sub, "lookups")) {
        if (c->argc == 3 && argEq(c->argv[2], "reset")) server.stat_lookups = 0;
        replyLongLong(c, server.stat_lookups);
    } else if (!strcasecmp(sub, "reload")) {
        rdbDebugReload(c);
    } else if (!strcasecmp(sub, "mallctl") && c->argc >= 3 && c->argc <= 4) {
        debugMallctlInt(c);
    } else if (!strcasecmp(sub, "mallctl-str") && c->argc >= 3 && c->argc <= 4) {
        debugMallctlStr(c);
    } else if (!strcasecmp(sub, "loadaof") && c->argc == 2) {
        sds err = aofDebugLoad();
        /* The events served while it loaded flushed this client's (empty)
         * output and dropped it from the pending writes: queue it again. */
        replyBegin(c);
        if (err)
            replyError(c, err);
        else
            replyOk(c);
        sdsfree(err);
    } else if (!strcasecmp(sub, "aof-flush-sleep") && c->argc == 3) {
        long long us;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &us, NULL) != C_OK) return;
        aofDebugSetFlushSleep(us);
        replyOk(c);
    } else if (!strcasecmp(sub, "propagated") && c->argc == 2) {
        debugPropagated(c);
    } else if (!strcasecmp(sub, "protocol") && c->argc == 3) {
        debugProtocol(c);
    } else if (!strcasecmp(sub, "populate") && c->argc >= 3 && c->argc <= 5) {
        debugPopulate(c);
    } else if (!strcasecmp(sub, "log") && c->argc == 3) {
        serverLog(LL_WARNING, "DEBUG LOG: %s", (char *)c->argv[2]->ptr);
        replyOk(c);
    } else if (!strcasecmp(sub, "error") && c->argc == 3) {
        replyError(c, c->argv[2]->ptr);
    } else if (!strcasecmp(sub, "htstats") && c->argc >= 3) {
        long long id;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &id, NULL) != C_OK) return;
        if (id < 0 || id >= cfg.dbnum) {
            replyError(c, "ERR Out of range database");
            return;
        }
        char buf[4096];
        sds s = sdscatprintf(sdsempty(), "[Dictionary HT]\n");
        dictGetStats(buf, sizeof(buf), server.db[id].dict);
        s = sdscat(s, buf);
        s = sdscat(s, "[Expires HT]\n");
        dictGetStats(buf, sizeof(buf), server.db[id].expires);
        s = sdscat(s, buf);
        replyVerbatim(c, s, sdslen(s), "txt");
        sdsfree(s);
    } else if (!strcasecmp(sub, "htstats-key") && c->argc == 3) {
        robj *o = dbLookupReadNoNotify(c->db, c->argv[2]);
        if (!o) {
            replyError(c, "ERR no such key");
            return;
        }
        dict *d = NULL;
        if (o->encoding == OBJ_ENCODING_HT) d = o->ptr;
        else if (o->encoding == OBJ_ENCODING_SKIPLIST) d = ((zset *)o->ptr)->dict;
        if (!d) {
            replyError(c, "ERR The value stored at the specified key is not represented using an hash table");
            return;
        }
        char buf[4096];
        size_t len = dictGetStats(buf, sizeof(buf), d);
        replyVerbatim(c, buf, len, "txt");
    } else if (!strcasecmp(sub, "stringmatch-len")) {
        replyOk(c);
    } else if (!strcasecmp(sub, "panic")) {
        serverPanic("DEBUG PANIC called at Unix time");
    } else if (!strcasecmp(sub, "segfault")) {
        crashDebugSegfault();
    } else if (!strcasecmp(sub, "assert")) {
        /* volatile: the compiler must not see that the check always fails. */
        volatile int one = 1;
        serverAssert(one == 2);
    } else {
        replyErrorSubcommand(c);
    }
}
