/* keys: the type-independent keyspace commands (DEL, EXISTS, SCAN, RENAME,
 * COPY, MOVE, FLUSH*, SELECT, SWAPDB, OBJECT, ...).
 *
 * They act on whole keys through db.c; values are moved by reference (RENAME,
 * MOVE) or duplicated (COPY). Each change bumps server.dirty so commandCall
 * propagates the command. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "keys.h"
#include "lfu.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "snapshot.h"

#include <errno.h>
#include <ctype.h>
#include <stdlib.h>

static void delGeneric(client *c, int lazy) {
    long long numdel = 0;
    for (int j = 1; j < c->argc; j++) {
        if (!dbExists(c->db, c->argv[j])) continue; /* also expires a stale key */
        int deleted = lazy ? dbDeleteAsync(c->db, c->argv[j]) : dbDeleteSync(c->db, c->argv[j]);
        if (deleted) {
            signalModifiedKey(c, c->db, c->argv[j]);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[j], c->db->id);
            server.dirty++;
            numdel++;
        }
    }
    replyLongLong(c, numdel);
}

void delCommand(client *c) { delGeneric(c, cfg.lazyfree_lazy_user_del); }
void unlinkCommand(client *c) { delGeneric(c, 1); }

void existsCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (dbLookupReadNoTouch(c->db, c->argv[j])) count++;
    replyLongLong(c, count);
}

void typeCommand(client *c) {
    robj *o = dbLookupReadNoTouch(c->db, c->argv[1]);
    replyStatusC(c, o ? strType(o->type) : "none");
}

void keysCommand(client *c) {
    sds pattern = c->argv[1]->ptr;
    int plen = sdslen(pattern), allkeys = (pattern[0] == '*' && plen == 1);
    unsigned long numkeys = 0;
    void *dl = replyDeferredLen(c);
    dictIterator di;
    dictInitSafeIterator(&di, c->db->dict);
    dictEntry *de;
    long long now = dbExpiredNow();
    while ((de = dictNext(&di)) != NULL) {
        sds key = dictGetKey(de);
        if (allkeys || stringmatchlen(pattern, plen, key, sdslen(key), 0)) {
            long long when = dbGetExpireEntry(c->db, de);
            if (when >= 0 && when < now) continue;
            replyBulkBuf(c, key, sdslen(key));
            numkeys++;
        }
    }
    dictResetIterator(&di);
    replySetDeferredArrayLen(c, dl, numkeys);
}

typedef struct scanKeys {
    sds *keys;
    unsigned long count, cap;
} scanKeys;

static void scanCallback(void *privdata, const dictEntry *de) {
    scanKeys *k = privdata;
    if (k->count == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 16;
        k->keys = zrealloc(k->keys, sizeof(sds) * k->cap);
    }
    k->keys[k->count++] = dictGetKey(de);
}

int scanParseCursorOrReply(client *c, robj *o, unsigned long *cursor) {
    const char *cs = o->ptr;
    char *eptr;
    errno = 0;
    *cursor = strtoul(cs, &eptr, 10);
    if (isspace((unsigned char)cs[0]) || eptr[0] != '\0' || errno == ERANGE) {
        replyError(c, "ERR invalid cursor");
        return C_ERR;
    }
    return C_OK;
}

int scanParseOptionsOrReply(client *c, int start, scanOptions *opt, int allow_type) {
    opt->count = 10;
    opt->pattern = NULL;
    opt->type = NULL;
    for (int i = start; i < c->argc;) {
        int left = c->argc - i;
        if (argEq(c->argv[i], "count") && left >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[i + 1], &opt->count, NULL) != C_OK)
                return C_ERR;
            if (opt->count < 1) {
                replyErrorSyntax(c);
                return C_ERR;
            }
            i += 2;
        } else if (argEq(c->argv[i], "match") && left >= 2) {
            opt->pattern = c->argv[i + 1]->ptr;
            if (sdslen(opt->pattern) == 1 && opt->pattern[0] == '*') opt->pattern = NULL;
            i += 2;
        } else if (allow_type && argEq(c->argv[i], "type") && left >= 2) {
            opt->type = c->argv[i + 1]->ptr;
            i += 2;
        } else {
            replyErrorSyntax(c);
            return C_ERR;
        }
    }
    return C_OK;
}

int scanMatches(const scanOptions *opt, const char *s, size_t len) {
    return !opt->pattern || stringmatchlen(opt->pattern, sdslen(opt->pattern), s, (int)len, 0);
}

void scanCommand(client *c) {
    unsigned long cursor;
    scanOptions opt;
    if (scanParseCursorOrReply(c, c->argv[1], &cursor) != C_OK) return;
    if (scanParseOptionsOrReply(c, 2, &opt, 1) != C_OK) return;
    scanKeys k = {NULL, 0, 0};
    long maxiterations = opt.count * 10;
    /* The keys are collected first and filtered after: filtering may delete
     * expired keys, which must not happen while the table is being scanned. */
    do {
        cursor = dictScan(c->db->dict, cursor, scanCallback, &k);
    } while (cursor && maxiterations-- && k.count < (unsigned long)opt.count);
    robj **out = zmalloc(sizeof(robj *) * (k.count ? k.count : 1));
    unsigned long n = 0;
    for (unsigned long j = 0; j < k.count; j++) {
        sds key = k.keys[j];
        if (!scanMatches(&opt, key, sdslen(key))) continue;
        robj *kobj = createStringObject(key, sdslen(key));
        /* May delete the key if it expired: k.keys[j] is not used after. */
        robj *val = dbLookupReadNoNotify(c->db, kobj);
        if (!val || (opt.type && strcasecmp(opt.type, strType(val->type)) != 0)) {
            decrRefCount(kobj);
            continue;
        }
        out[n++] = kobj;
    }
    zfree(k.keys);
    replyArrayLen(c, 2);
    replyBulkLongLong(c, (long long)cursor);
    replyArrayLen(c, n);
    for (unsigned long j = 0; j < n; j++) {
        replyBulk(c, out[j]);
        decrRefCount(out[j]);
    }
    zfree(out);
}

void randomkeyCommand(client *c) {
    robj *key = dbRandomKey(c->db);
    if (!key) {
        replyNull(c);
        return;
    }
    replyBulk(c, key);
    decrRefCount(key);
}

static void renameGeneric(client *c, int nx) {
    robj *o = dbLookupWrite(c->db, c->argv[1]);
    if (!o) {
        replyError(c, "ERR no such key");
        return;
    }
    if (sdscmp(c->argv[1]->ptr, c->argv[2]->ptr) == 0) {
        if (nx) replyConst(c, ":0\r\n");
        else replyOk(c);
        return;
    }
    incrRefCount(o);
    long long expire = dbGetExpire(c->db, c->argv[1]);
    if (dbLookupWrite(c->db, c->argv[2]) != NULL) {
        if (nx) {
            decrRefCount(o);
            replyConst(c, ":0\r\n");
            return;
        }
        dbDelete(c->db, c->argv[2]);
    }
    dbAdd(c->db, c->argv[2], o);
    if (expire != -1) dbSetExpire(c->db, c->argv[2], expire);
    dbDelete(c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[2]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "rename_from", c->argv[1], c->db->id);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "rename_to", c->argv[2], c->db->id);
    server.dirty++;
    if (nx) replyConst(c, ":1\r\n");
    else replyOk(c);
}

void renameCommand(client *c) { renameGeneric(c, 0); }
void renamenxCommand(client *c) { renameGeneric(c, 1); }

static robj *dupValue(robj *o) {
    if (o->type == OBJ_STRING) return dupStringObject(o);
    if (o->type < OBJ_TYPE_MAX && objectTypes[o->type].dup) return objectTypes[o->type].dup(o);
    serverPanic("COPY of an unknown type");
}

void copyCommand(client *c) {
    serverDb *src = c->db, *dst = c->db;
    int replace = 0;
    for (int j = 3; j < c->argc; j++) {
        int additional = c->argc - j - 1;
        if (argEq(c->argv[j], "replace")) {
            replace = 1;
        } else if (argEq(c->argv[j], "db") && additional >= 1) {
            long long dbid;
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &dbid, NULL) != C_OK) return;
            if (dbid < 0 || dbid >= cfg.dbnum) {
                replyError(c, "ERR DB index is out of range");
                return;
            }
            dst = &server.db[dbid];
            j++;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    robj *key = c->argv[1], *newkey = c->argv[2];
    if (src == dst && sdscmp(key->ptr, newkey->ptr) == 0) {
        replyError(c, "ERR source and destination objects are the same");
        return;
    }
    robj *o = dbLookupRead(src, key);
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    long long expire = dbGetExpire(src, key);
    int del = 0;
    if (dbLookupWrite(dst, newkey) != NULL) {
        if (!replace) {
            replyConst(c, ":0\r\n");
            return;
        }
        del = 1;
    }
    robj *newobj = dupValue(o);
    if (del) dbDelete(dst, newkey);
    dbAdd(dst, newkey, newobj);
    if (expire != -1) dbSetExpire(dst, newkey, expire);
    signalModifiedKey(c, dst, newkey);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "copy_to", newkey, dst->id);
    server.dirty++;
    replyConst(c, ":1\r\n");
}

void moveCommand(client *c) {
    int dbid;
    if (getIntFromObjectOrReply(c, c->argv[2], &dbid, NULL) != C_OK) return;
    if (dbid < 0 || dbid >= cfg.dbnum) {
        replyError(c, "ERR DB index is out of range");
        return;
    }
    serverDb *src = c->db, *dst = &server.db[dbid];
    if (src == dst) {
        replyError(c, "ERR source and destination objects are the same");
        return;
    }
    robj *o = dbLookupWrite(src, c->argv[1]);
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    long long expire = dbGetExpire(src, c->argv[1]);
    if (dbLookupWrite(dst, c->argv[1]) != NULL) {
        replyConst(c, ":0\r\n");
        return;
    }
    incrRefCount(o);
    dbAdd(dst, c->argv[1], o);
    if (expire != -1) dbSetExpire(dst, c->argv[1], expire);
    dbDelete(src, c->argv[1]);
    signalModifiedKey(c, src, c->argv[1]);
    signalModifiedKey(c, dst, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "move_from", c->argv[1], src->id);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "move_to", c->argv[1], dst->id);
    server.dirty++;
    replyConst(c, ":1\r\n");
}

void touchCommand(client *c) {
    long long touched = 0;
    for (int j = 1; j < c->argc; j++)
        if (dbLookupRead(c->db, c->argv[j]) != NULL) touched++;
    replyLongLong(c, touched);
}

void dbsizeCommand(client *c) { replyLongLong(c, (long long)dictSize(c->db->dict)); }

/* [ASYNC|SYNC] -> 1 async, 0 sync, -1 error (replied). */
static int getFlushAsyncOrReply(client *c) {
    if (c->argc > 2) {
        replyErrorSyntax(c);
        return -1;
    }
    if (c->argc == 1) return cfg.lazyfree_lazy_user_flush;
    if (argEq(c->argv[1], "sync")) return 0;
    if (argEq(c->argv[1], "async")) return 1;
    replyErrorSyntax(c);
    return -1;
}

void flushdbCommand(client *c) {
    int async = getFlushAsyncOrReply(c);
    if (async < 0) return;
    signalFlushedDb(c->db->id);
    /* Always propagated, even when the database was already empty. */
    server.dirty += dbEmpty(c->db->id, async) + 1;
    replyOk(c);
}

void flushallCommand(client *c) {
    int async = getFlushAsyncOrReply(c);
    if (async < 0) return;
    signalFlushedDb(-1);
    server.dirty += dbEmpty(-1, async) + 1;
    rdbFlushallSave();
    replyOk(c);
}

void selectCommand(client *c) {
    int id;
    if (getIntFromObjectOrReply(c, c->argv[1], &id, NULL) != C_OK) return;
    if (dbSelect(c, id) == C_ERR) {
        replyError(c, "ERR DB index is out of range");
        return;
    }
    replyOk(c);
}

void swapdbCommand(client *c) {
    int id1, id2;
    if (getIntFromObjectOrReply(c, c->argv[1], &id1, "invalid first DB index") != C_OK) return;
    if (getIntFromObjectOrReply(c, c->argv[2], &id2, "invalid second DB index") != C_OK) return;
    if (id1 < 0 || id1 >= cfg.dbnum || id2 < 0 || id2 >= cfg.dbnum) {
        replyError(c, "ERR DB index is out of range");
        return;
    }
    if (id1 != id2) dbSwap(id1, id2);
    server.dirty++;
    replyOk(c);
}

void objectCommand(client *c) {
    static const char *help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (c->argc == 2 && !strcasecmp(sub, "help")) {
        replyHelp(c, help);
        return;
    }
    robj *o = dbLookupReadNoNotify(c->db, c->argv[2]);
    if (!strcasecmp(sub, "encoding")) {
        if (!o) replyNull(c);
        else replyBulkCString(c, strEncoding(o->encoding));
    } else if (!strcasecmp(sub, "refcount")) {
        if (!o) replyNull(c);
        else replyLongLong(c, o->refcount);
    } else if (!strcasecmp(sub, "idletime")) {
        if (!o) {
            replyNull(c);
        } else if (MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) {
            replyError(c, "ERR An LFU maxmemory policy is selected, idle time not tracked. Please "
                          "note that when switching between policies at runtime LRU and LFU data "
                          "will take some time to adjust.");
        } else {
            replyLongLong(c, estimateObjectIdleTime(o) / 1000);
        }
    } else if (!strcasecmp(sub, "freq")) {
        if (!o) {
            replyNull(c);
        } else if (!MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) {
            replyError(c, "ERR An LFU maxmemory policy is not selected, access frequency not "
                          "tracked. Please note that when switching between policies at runtime "
                          "LRU and LFU data will take some time to adjust.");
        } else {
            replyLongLong(c, lfuFreq(o));
        }
    } else {
        replyErrorSubcommand(c);
    }
}
