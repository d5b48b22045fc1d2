/* t_string: the string commands.
 *
 * Arguments enter as c->argv (owned by the client; a command that stores an
 * argument as a value takes its own reference). Every write looks its key up
 * exactly once with dbFindForWrite and then stores the value, sets or clears
 * the expire and fires the notification from the keyRef it got back.
 *
 * Keyspace notifications fire in the same order relative to the reply as in
 * Redis 7.0 (a RESP3 client subscribed to its own keys sees that order).
 * When a reply comes after a notification it is built from values on the
 * stack, or from an object this command holds its own reference to: a
 * notification hook may replace or free the stored value. Relative expires are propagated as
 * absolute ones (SET ... PXAT, PEXPIREAT) so the AOF and replicas do not
 * depend on when they replay the stream. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <math.h>

#define SET_NO_FLAGS 0
#define SET_NX      (1 << 0)
#define SET_XX      (1 << 1)
#define SET_EX      (1 << 2)
#define SET_PX      (1 << 3)
#define SET_KEEPTTL (1 << 4)
#define SET_GET     (1 << 5)
#define SET_EXAT    (1 << 6)
#define SET_PXAT    (1 << 7)
#define SET_PERSIST (1 << 8)
#define SET_ANY_EXPIRE (SET_EX | SET_PX | SET_EXAT | SET_PXAT)

#define COMMAND_GET 0
#define COMMAND_SET 1

static robj *objPxat, *objSet, *objKeepttl, *objDel, *objUnlink, *objPexpireat, *objPersist;

static void stringSharedInit(void) {
    if (objSet) return;
    objPxat = createStringObject("PXAT", 4);
    objSet = createStringObject("SET", 3);
    objKeepttl = createStringObject("KEEPTTL", 7);
    objDel = createStringObject("DEL", 3);
    objUnlink = createStringObject("UNLINK", 6);
    objPexpireat = createStringObject("PEXPIREAT", 9);
    objPersist = createStringObject("PERSIST", 7);
}

static robj *shared(robj *o) {
    incrRefCount(o);
    return o;
}

static int isOpt(const char *opt, char a, char b) {
    return (opt[0] == a || opt[0] == a - 32) && (opt[1] == b || opt[1] == b - 32) && opt[2] == '\0';
}

/* Parse [NX|XX] [GET] [EX|PX|EXAT|PXAT n|KEEPTTL|PERSIST] with Redis' rules
 * about which combinations are allowed for SET and GETEX. */
static int parseStringOptionsOrReply(client *c, int start, int *flags, robj **expire, int type) {
    for (int j = start; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        robj *next = (j == c->argc - 1) ? NULL : c->argv[j + 1];
        if (isOpt(opt, 'n', 'x') && !(*flags & SET_XX) && type == COMMAND_SET) {
            *flags |= SET_NX;
        } else if (isOpt(opt, 'x', 'x') && !(*flags & SET_NX) && type == COMMAND_SET) {
            *flags |= SET_XX;
        } else if (!strcasecmp(opt, "get") && type == COMMAND_SET) {
            *flags |= SET_GET;
        } else if (!strcasecmp(opt, "keepttl") && !(*flags & (SET_PERSIST | SET_ANY_EXPIRE)) &&
                   type == COMMAND_SET) {
            *flags |= SET_KEEPTTL;
        } else if (!strcasecmp(opt, "persist") && type == COMMAND_GET &&
                   !(*flags & (SET_ANY_EXPIRE | SET_KEEPTTL))) {
            *flags |= SET_PERSIST;
        } else if (isOpt(opt, 'e', 'x') && !(*flags & (SET_KEEPTTL | SET_PERSIST | SET_EXAT | SET_PX | SET_PXAT)) && next) {
            *flags |= SET_EX;
            *expire = next;
            j++;
        } else if (isOpt(opt, 'p', 'x') && !(*flags & (SET_KEEPTTL | SET_PERSIST | SET_EX | SET_EXAT | SET_PXAT)) && next) {
            *flags |= SET_PX;
            *expire = next;
            j++;
        } else if (!strcasecmp(opt, "exat") && !(*flags & (SET_KEEPTTL | SET_PERSIST | SET_EX | SET_PX | SET_PXAT)) && next) {
            *flags |= SET_EXAT;
            *expire = next;
            j++;
        } else if (!strcasecmp(opt, "pxat") && !(*flags & (SET_KEEPTTL | SET_PERSIST | SET_EX | SET_EXAT | SET_PX)) && next) {
            *flags |= SET_PXAT;
            *expire = next;
            j++;
        } else {
            replyErrorSyntax(c);
            return C_ERR;
        }
    }
    return C_OK;
}

/* Convert an EX/PX/EXAT/PXAT argument to an absolute unix time in ms. */
static int getExpireMsOrReply(client *c, robj *expire, int flags, long long *out) {
    long long v;
    if (getLongLongFromObjectOrReply(c, expire, &v, NULL) != C_OK) return C_ERR;
    int seconds = flags & (SET_EX | SET_EXAT);
    if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) {
        replyErrorExpireTime(c);
        return C_ERR;
    }
    if (seconds) v *= 1000;
    if (flags & (SET_EX | SET_PX)) {
        long long now = dbExpiredNow();
        if (v > LLONG_MAX - now) {
            replyErrorExpireTime(c);
            return C_ERR;
        }
        v += now;
    }
    *out = v;
    return C_OK;
}

static int checkStringLength(client *c, long long size, long long append) {
    /* Compared without computing size + append, which could overflow. */
    if (size > cfg.proto_max_bulk_len || append > cfg.proto_max_bulk_len - size) {
        replyError(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return C_ERR;
    }
    return C_OK;
}

/* The shared core of SET, SETNX, SETEX, PSETEX. One lookup; the keyRef
 * carries the entry to the store, the expire and the notification. */
static void setGeneric(client *c, int flags, robj *key, robj *val, robj *expire,
                       const char *ok_reply, const char *abort_reply) {
    long long when = 0;
    if (expire && getExpireMsOrReply(c, expire, flags, &when) != C_OK) return;
    keyRef ref;
    dbFindForWrite(c->db, key, &ref);
    if (flags & SET_GET) {
        if (ref.de == NULL) {
            server.stat_keyspace_misses++;
            notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", key, c->db->id);
            replyNull(c);
        } else {
            server.stat_keyspace_hits++;
            robj *old = dictGetVal(ref.de);
            if (old->type != OBJ_STRING) {
                replyErrorWrongType(c);
                return;
            }
            replyBulk(c, old);
        }
    }
    int found = ref.de != NULL;
    if (((flags & SET_NX) && found) || ((flags & SET_XX) && !found)) {
        if (!(flags & SET_GET)) {
            if (abort_reply) replyRaw(c, abort_reply, strlen(abort_reply));
            else replyNull(c);
        }
        return;
    }
    incrRefCount(val);
    dbSetValue(&ref, val);
    if (found && !(flags & SET_KEEPTTL)) dbRemoveExpireEntry(c->db, ref.de);
    if (expire) dbSetExpireEntry(c->db, ref.de, when);
    server.dirty++;
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_STRING, "set", key, c->db->id);
    if (expire) notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
    if (!(flags & SET_GET)) replyRaw(c, ok_reply, strlen(ok_reply)); /* a constant */

    /* Any expire propagates as SET key value PXAT ms, as in Redis (NX, XX
     * and GET dropped, the option name in capitals); otherwise drop GET. */
    if (expire) {
        stringSharedInit();
        clientRewriteArgv(c, 5, shared(objSet), shared(key), shared(val), shared(objPxat),
                          createStringObjectFromLongLong(when));
    } else if ((flags & SET_GET) && !expire) {
        stringSharedInit();
        int argc = 0;
        robj *argv[8];
        for (int j = 0; j < c->argc && argc < 8; j++) {
            if (j >= 3 && argEq(c->argv[j], "get")) continue;
            argv[argc++] = shared(c->argv[j]);
        }
        robj **nargv = zmalloc(sizeof(robj *) * argc);
        memcpy(nargv, argv, sizeof(robj *) * argc);
        clientReplaceArgv(c, nargv, argc);
    }
}

void setCommand(client *c) {
    int flags = SET_NO_FLAGS;
    robj *expire = NULL;
    if (parseStringOptionsOrReply(c, 3, &flags, &expire, COMMAND_SET) != C_OK) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGeneric(c, flags, c->argv[1], c->argv[2], expire, "+OK\r\n", NULL);
}

void setnxCommand(client *c) {
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGeneric(c, SET_NX, c->argv[1], c->argv[2], NULL, ":1\r\n", ":0\r\n");
}

void setexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGeneric(c, SET_EX, c->argv[1], c->argv[3], c->argv[2], "+OK\r\n", NULL);
}

void psetexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGeneric(c, SET_PX, c->argv[1], c->argv[3], c->argv[2], "+OK\r\n", NULL);
}

/* Read lookup for the string commands: returns the value, or NULL after
 * replying `missing` (a complete RESP reply; NULL means the null bulk) for a
 * missing key or WRONGTYPE for another type. */
static robj *stringLookupOrReply(client *c, robj *key, const char *missing) {
    robj *o = dbLookupRead(c->db, key);
    if (!o) {
        if (missing) replyRaw(c, missing, strlen(missing));
        else replyNull(c);
        return NULL;
    }
    if (o->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return NULL;
    }
    return o;
}

void getCommand(client *c) {
    robj *o = stringLookupOrReply(c, c->argv[1], NULL);
    if (o) replyBulk(c, o);
}

void getsetCommand(client *c) {
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (ref.de) {
        robj *old = dictGetVal(ref.de);
        if (old->type != OBJ_STRING) {
            replyErrorWrongType(c);
            return;
        }
        replyBulk(c, old);
        server.stat_keyspace_hits++;
    } else {
        server.stat_keyspace_misses++;
        notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", c->argv[1], c->db->id);
        replyNull(c);
    }
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    incrRefCount(c->argv[2]);
    int found = ref.de != NULL;
    dbSetValue(&ref, c->argv[2]);
    if (found) dbRemoveExpireEntry(c->db, ref.de);
    server.dirty++;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[1], c->db->id);
    stringSharedInit();
    clientRewriteArg(c, 0, shared(objSet));
}

void getdelCommand(client *c) {
    robj *o = stringLookupOrReply(c, c->argv[1], NULL);
    if (!o) return;
    replyBulk(c, o);
    dbDelete(c->db, c->argv[1]);
    server.dirty++;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    stringSharedInit();
    clientRewriteArgv(c, 2, shared(objDel), shared(c->argv[1]));
}

void getexCommand(client *c) {
    int flags = SET_NO_FLAGS;
    robj *expire = NULL;
    long long when = 0;
    if (parseStringOptionsOrReply(c, 2, &flags, &expire, COMMAND_GET) != C_OK) return;
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (!ref.de) {
        server.stat_keyspace_misses++;
        notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", c->argv[1], c->db->id);
        replyNull(c);
        return;
    }
    server.stat_keyspace_hits++;
    robj *o = dictGetVal(ref.de);
    if (o->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return;
    }
    if (expire && getExpireMsOrReply(c, expire, flags, &when) != C_OK) return;
    replyBulk(c, o);
    stringSharedInit();
    robj *key = c->argv[1];
    if ((flags & (SET_EXAT | SET_PXAT)) && when <= dbExpiredNow()) {
        /* An absolute time already in the past deletes the key. */
        incrRefCount(key);
        dbDeleteExpired(c->db, key);
        clientRewriteArgv(c, 2, shared(cfg.lazyfree_lazy_expire ? objUnlink : objDel), key);
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        server.dirty++;
    } else if (expire) {
        dbSetExpireEntry(c->db, ref.de, when);
        incrRefCount(key);
        clientRewriteArgv(c, 3, shared(objPexpireat), key, createStringObjectFromLongLong(when));
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
        server.dirty++;
    } else if (flags & SET_PERSIST) {
        if (dbRemoveExpireEntry(c->db, ref.de)) {
            incrRefCount(key);
            clientRewriteArgv(c, 2, shared(objPersist), key);
            signalModifiedKey(c, c->db, key);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "persist", key, c->db->id);
            server.dirty++;
        }
    }
}

void mgetCommand(client *c) {
    replyArrayLen(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        robj *o = dbLookupRead(c->db, c->argv[j]);
        if (o && o->type == OBJ_STRING) replyBulk(c, o);
        else replyNull(c);
    }
}

static void msetGeneric(client *c, int nx) {
    if ((c->argc % 2) == 0) {
        replyErrorArity(c);
        return;
    }
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (dbLookupWrite(c->db, c->argv[j])) {
                replyConst(c, ":0\r\n");
                return;
            }
        }
    }
    for (int j = 1; j < c->argc; j += 2) {
        c->argv[j + 1] = tryObjectEncoding(c->argv[j + 1]);
        keyRef ref;
        dbFindForWrite(c->db, c->argv[j], &ref);
        int found = ref.de != NULL;
        incrRefCount(c->argv[j + 1]);
        dbSetValue(&ref, c->argv[j + 1]);
        if (found) dbRemoveExpireEntry(c->db, ref.de);
        signalModifiedKey(c, c->db, c->argv[j]);
        notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[j], c->db->id);
    }
    server.dirty += (c->argc - 1) / 2;
    if (nx) replyConst(c, ":1\r\n");
    else replyOk(c);
}

void msetCommand(client *c) { msetGeneric(c, 0); }
void msetnxCommand(client *c) { msetGeneric(c, 1); }

static void incrDecr(client *c, long long incr) {
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    robj *o = ref.de ? dictGetVal(ref.de) : NULL;
    if (o && o->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return;
    }
    long long value;
    if (getLongLongFromObjectOrReply(c, o, &value, NULL) != C_OK) return;
    if ((incr < 0 && value < 0 && incr < (LLONG_MIN - value)) ||
        (incr > 0 && value > 0 && incr > (LLONG_MAX - value))) {
        replyError(c, "ERR increment or decrement would overflow");
        return;
    }
    value += incr;
    if (o && o->refcount == 1 && o->encoding == OBJ_ENCODING_INT &&
        (value < 0 || value >= OBJ_SHARED_INTEGERS) && value >= LONG_MIN && value <= LONG_MAX) {
        /* Private integer object: update it in place, no allocation. */
        o->ptr = (void *)((long)value);
    } else {
        dbSetValue(&ref, createStringObjectFromLongLongForValue(value));
    }
    server.dirty++;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "incrby", c->argv[1], c->db->id);
    replyLongLong(c, value); /* from the stack, never from the stored object */
}

void incrCommand(client *c) { incrDecr(c, 1); }
void decrCommand(client *c) { incrDecr(c, -1); }

void incrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    incrDecr(c, incr);
}

void decrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    if (incr == LLONG_MIN) {
        replyError(c, "ERR decrement would overflow");
        return;
    }
    incrDecr(c, -incr);
}

void incrbyfloatCommand(client *c) {
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    robj *o = ref.de ? dictGetVal(ref.de) : NULL;
    if (o && o->type != OBJ_STRING) {
        replyErrorWrongType(c);
        return;
    }
    long double value, incr;
    if (getLongDoubleFromObjectOrReply(c, o, &value, NULL) != C_OK ||
        getLongDoubleFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK)
        return;
    value += incr;
    if (isnan(value) || isinf(value)) {
        replyError(c, "ERR increment would produce NaN or Infinity");
        return;
    }
    robj *n = createStringObjectFromLongDouble(value, 1);
    incrRefCount(n); /* one for the keyspace, one for the rewritten argv */
    dbSetValue(&ref, n);
    server.dirty++;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "incrbyfloat", c->argv[1], c->db->id);
    replyBulk(c, n); /* safe: we hold our own reference to n */
    /* Replicate the result, not the increment: float formatting must not
     * let replicas drift. */
    stringSharedInit();
    clientRewriteArgv(c, 4, shared(objSet), shared(c->argv[1]), n, shared(objKeepttl));
}

/* Make the value at ref a private raw string that can be modified in place,
 * replacing it in the same entry (no second lookup). Shared with the bitmap
 * and HyperLogLog commands, which also modify string values in place. */
robj *dbUnshareStringValue(keyRef *ref) {
    robj *o = dictGetVal(ref->de);
    if (o->refcount == 1 && o->encoding == OBJ_ENCODING_RAW) return o;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectPtr(o, buf, &len);
    robj *n = createRawStringObject(p, len);
    dbOverwriteValue(ref, n);
    return n;
}

void appendCommand(client *c) {
    keyRef ref;
    size_t totlen;
    dbFindForWrite(c->db, c->argv[1], &ref);
    if (!ref.de) {
        c->argv[2] = tryObjectEncoding(c->argv[2]);
        incrRefCount(c->argv[2]);
        dbSetValue(&ref, c->argv[2]);
        totlen = stringObjectLen(c->argv[2]);
    } else {
        robj *o = dictGetVal(ref.de);
        if (o->type != OBJ_STRING) {
            replyErrorWrongType(c);
            return;
        }
        sds append = c->argv[2]->ptr;
        size_t alen = sdslen(append);
        if (checkStringLength(c, stringObjectLen(o), alen) != C_OK) return;
        o = dbUnshareStringValue(&ref);
        o->ptr = sdscatlen(o->ptr, append, alen);
        totlen = sdslen(o->ptr);
    }
    server.dirty++;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "append", c->argv[1], c->db->id);
    replyLongLong(c, (long long)totlen);
}

void setrangeCommand(client *c) {
    long offset;
    sds value = c->argv[3]->ptr;
    size_t vlen = sdslen(value);
    if (getLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) return;
    if (offset < 0) {
        replyError(c, "ERR offset is out of range");
        return;
    }
    keyRef ref;
    dbFindForWrite(c->db, c->argv[1], &ref);
    robj *o;
    if (!ref.de) {
        if (vlen == 0) {
            replyConst(c, ":0\r\n");
            return;
        }
        if (checkStringLength(c, offset, vlen) != C_OK) return;
        o = createObject(OBJ_STRING, sdsnewlen(NULL, offset + vlen));
        dbSetValue(&ref, o);
    } else {
        o = dictGetVal(ref.de);
        if (o->type != OBJ_STRING) {
            replyErrorWrongType(c);
            return;
        }
        size_t olen = stringObjectLen(o);
        if (vlen == 0) {
            replyLongLong(c, (long long)olen);
            return;
        }
        if (checkStringLength(c, offset, vlen) != C_OK) return;
        o = dbUnshareStringValue(&ref);
    }
    o->ptr = sdsgrowzero(o->ptr, offset + vlen);
    memcpy((char *)o->ptr + offset, value, vlen);
    size_t newlen = sdslen(o->ptr);
    server.dirty++;
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "setrange", c->argv[1], c->db->id);
    replyLongLong(c, (long long)newlen);
}

void getrangeCommand(client *c) {
    long long start, end;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
    robj *o = stringLookupOrReply(c, c->argv[1], "$0\r\n\r\n");
    if (!o) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *str = stringObjectPtr(o, buf, &len);
    long long slen = (long long)len;
    if (start < 0 && end < 0 && start > end) {
        replyConst(c, "$0\r\n\r\n");
        return;
    }
    if (start < 0) start = slen + start;
    if (end < 0) end = slen + end;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= slen) end = slen - 1;
    if (start > end || slen == 0) replyConst(c, "$0\r\n\r\n");
    else replyBulkBuf(c, str + start, end - start + 1);
}

void strlenCommand(client *c) {
    robj *o = stringLookupOrReply(c, c->argv[1], ":0\r\n");
    if (o) replyLongLong(c, (long long)stringObjectLen(o));
}

/* LCS: the classic dynamic programming table, then a walk back from the end
 * collecting the string and, for IDX, the matching ranges. */
void lcsCommand(client *c) {
    long long minmatchlen = 0;
    int getlen = 0, getidx = 0, withmatchlen = 0;
    robj *obja = dbLookupRead(c->db, c->argv[1]);
    robj *objb = dbLookupRead(c->db, c->argv[2]);
    if ((obja && obja->type != OBJ_STRING) || (objb && objb->type != OBJ_STRING)) {
        replyError(c, "ERR The specified keys must contain string values");
        return;
    }
    obja = obja ? getDecodedObject(obja) : createStringObject("", 0);
    objb = objb ? getDecodedObject(objb) : createStringObject("", 0);
    const char *a = obja->ptr, *b = objb->ptr;
    uint32_t *lcs = NULL;
    sds result = NULL;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        int moreargs = (c->argc - 1) - j;
        if (!strcasecmp(opt, "IDX")) getidx = 1;
        else if (!strcasecmp(opt, "LEN")) getlen = 1;
        else if (!strcasecmp(opt, "WITHMATCHLEN")) withmatchlen = 1;
        else if (!strcasecmp(opt, "MINMATCHLEN") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &minmatchlen, NULL) != C_OK)
                goto cleanup;
            if (minmatchlen < 0) minmatchlen = 0;
            j++;
        } else {
            replyErrorSyntax(c);
            goto cleanup;
        }
    }
    if (getidx && getlen) {
        replyError(c, "ERR If you want both the length and indexes, please just use IDX.");
        goto cleanup;
    }
    uint32_t alen = sdslen(obja->ptr), blen = sdslen(objb->ptr);
    if (sdslen(obja->ptr) >= UINT32_MAX - 1 || sdslen(objb->ptr) >= UINT32_MAX - 1) {
        replyError(c, "ERR String too long for LCS");
        goto cleanup;
    }
    if ((unsigned long long)(alen + 1) * (blen + 1) >
        (unsigned long long)cfg.proto_max_bulk_len / sizeof(uint32_t)) {
        replyError(c, "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        goto cleanup;
    }
    lcs = zmalloc((size_t)(alen + 1) * (blen + 1) * sizeof(uint32_t));
#define LCS(A, B) lcs[(B) + ((size_t)(A) * (blen + 1))]
    for (uint32_t i = 0; i <= alen; i++) {
        for (uint32_t j = 0; j <= blen; j++) {
            if (i == 0 || j == 0) LCS(i, j) = 0;
            else if (a[i - 1] == b[j - 1]) LCS(i, j) = LCS(i - 1, j - 1) + 1;
            else {
                uint32_t l1 = LCS(i - 1, j), l2 = LCS(i, j - 1);
                LCS(i, j) = l1 > l2 ? l1 : l2;
            }
        }
    }
    uint32_t idx = LCS(alen, blen);
    void *arraylenptr = NULL;
    uint32_t arange_start = alen, arange_end = 0, brange_start = 0, brange_end = 0;
    int computelcs = getidx || !getlen;
    if (computelcs) result = sdsnewlen(NULL, idx);
    uint32_t arraylen = 0;
    if (getidx) {
        replyMapLen(c, 2);
        replyBulkCString(c, "matches");
        arraylenptr = replyDeferredLen(c);
    }
    uint32_t i = alen, j = blen;
    while (computelcs && i > 0 && j > 0) {
        int emit_range = 0;
        if (a[i - 1] == b[j - 1]) {
            result[idx - 1] = a[i - 1];
            if (arange_start == alen) {
                arange_start = i - 1;
                arange_end = i - 1;
                brange_start = j - 1;
                brange_end = j - 1;
            } else {
                if (arange_start == i && brange_start == j) {
                    arange_start--;
                    brange_start--;
                } else {
                    emit_range = 1;
                }
            }
            if (arange_start == 0 || brange_start == 0) emit_range = 1;
            idx--;
            i--;
            j--;
        } else {
            uint32_t l1 = LCS(i - 1, j), l2 = LCS(i, j - 1);
            if (l1 > l2) i--;
            else j--;
            if (arange_start != alen) emit_range = 1;
        }
        uint32_t match_len = arange_end - arange_start + 1;
        if (emit_range) {
            if (minmatchlen == 0 || match_len >= minmatchlen) {
                if (arraylenptr) {
                    replyArrayLen(c, 2 + withmatchlen);
                    replyArrayLen(c, 2);
                    replyLongLong(c, arange_start);
                    replyLongLong(c, arange_end);
                    replyArrayLen(c, 2);
                    replyLongLong(c, brange_start);
                    replyLongLong(c, brange_end);
                    if (withmatchlen) replyLongLong(c, match_len);
                    arraylen++;
                }
            }
            arange_start = alen;
        }
    }
    if (arraylenptr) {
        replyBulkCString(c, "len");
        replyLongLong(c, LCS(alen, blen));
        replySetDeferredArrayLen(c, arraylenptr, arraylen);
    } else if (getlen) {
        replyLongLong(c, LCS(alen, blen));
    } else {
        replyBulkSds(c, result);
        result = NULL;
    }
#undef LCS
cleanup:
    decrRefCount(obja);
    decrRefCount(objb);
    sdsfree(result);
    zfree(lcs);
}
