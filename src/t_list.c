/* t_list: the list commands, blocking ones included, over the quicklist
 * value (quicklist.h). Redis 7.0 always reports the encoding "quicklist".
 *
 * Arguments enter as c->argv (owned by the client); elements are copied
 * into the list's listpacks, so nothing keeps a reference to an argument.
 * Replies are written straight from the listpack entries (no object per
 * element). Write commands look their key up once with dbFindForWrite,
 * store a new list with dbSetValue (which also wakes clients blocked on
 * the key), delete a list that became empty, reply, and only then signal
 * the key and fire keyspace events, Redis' names and order.
 *
 * Blocking: a blocking command that finds nothing calls blockForKeys and
 * returns; blocked.c re-runs the same command when a key becomes a list
 * (CLIENT_REEXECUTING). Whenever a blocking command serves, it rewrites its
 * argv to the non-blocking form Redis 7.0 propagates (BLPOP -> LPOP key,
 * BLMPOP -> LPOP key count, BLMOVE -> LMOVE, BRPOPLPUSH -> RPOPLPUSH). */
#include "args.h"
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "blocked.h"
#include "quicklist.h"
#include "t_list.h"

#include <limits.h>

/* ---- the value ---- */

robj *listTypeCreate(void) {
    robj *o = createObject(OBJ_LIST, quicklistCreate(cfg.list_max_listpack_size, cfg.list_compress_depth));
    o->encoding = OBJ_ENCODING_QUICKLIST;
    return o;
}

unsigned long listTypeLength(const robj *o) { return quicklistCount(o->ptr); }

void listTypePush(robj *o, const char *s, size_t len, int where) { quicklistPush(o->ptr, s, len, where); }

static void listFree(robj *o) { quicklistRelease(o->ptr); }

static robj *listDup(robj *o) {
    robj *d = createObject(OBJ_LIST, quicklistDup(o->ptr));
    d->encoding = OBJ_ENCODING_QUICKLIST;
    return d;
}

static size_t listSize(robj *o) { return quicklistMemUsage(o->ptr); }

static size_t listFreeEffort(robj *o) { return ((quicklist *)o->ptr)->len; }

__attribute__((constructor)) static void listRegister(void) {
    objectTypes[OBJ_LIST] = (objectTypeOps){listFree, listDup, listSize, listFreeEffort};
}

/* ---- shared argv objects for propagation ---- */

static robj *objLpop, *objRpop, *objLmove, *objRpoplpush, *objLeft, *objRight;

static robj *shared(robj *o) {
    incrRefCount(o);
    return o;
}

static void listSharedInit(void) {
    if (objLpop) return;
    objLpop = createStringObject("LPOP", 4);
    objRpop = createStringObject("RPOP", 4);
    objLmove = createStringObject("LMOVE", 5);
    objRpoplpush = createStringObject("RPOPLPUSH", 9);
    /* Redis' shared "left"/"right" are lower case: a served BLMOVE
     * propagates them, not the client's spelling. */
    objLeft = createStringObject("left", 4);
    objRight = createStringObject("right", 5);
}

/* ---- helpers ---- */

static inline const char *argBytes(robj *o, char *buf, size_t *len) { return stringObjectPtr(o, buf, len); }

static inline void listReplyEntry(client *c, const quicklistEntry *e) {
    if (e->value) replyBulkBuf(c, e->value, e->sz);
    else replyBulkLongLong(c, e->longval);
}

/* Reply with an array of count elements starting at index start, walking
 * towards the tail, or towards the head when reverse. */
static void listReplyRange(client *c, robj *o, long start, long count, int reverse) {
    quicklistIter it;
    quicklistEntry e;
    replyArrayLen(c, count);
    quicklistInitIteratorAtIdx(&it, o->ptr, reverse ? QUICKLIST_START_TAIL : QUICKLIST_START_HEAD, start);
    while (count-- > 0 && quicklistNext(&it, &e)) listReplyEntry(c, &e);
    quicklistResetIterator(&it);
}

/* Reply with the element at the head or tail and remove it. */
static void listPopReply(client *c, robj *o, int where) {
    quicklistIter it;
    quicklistEntry e;
    quicklistInitIteratorAtIdx(&it, o->ptr, QUICKLIST_START_HEAD, where == QUICKLIST_HEAD ? 0 : -1);
    if (quicklistNext(&it, &e)) {
        listReplyEntry(c, &e);
        quicklistDelEntry(&it, &e);
    }
    quicklistResetIterator(&it);
}

/* After count elements were popped from key (the reply is written):
 * events, deletion of an emptied list, dirty. */
static void listPopped(client *c, robj *key, robj *o, int where, long count) {
    int empty = listTypeLength(o) == 0;
    notifyKeyspaceEvent(NOTIFY_LIST, where == QUICKLIST_HEAD ? "lpop" : "rpop", key, c->db->id);
    if (empty) {
        dbDelete(c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    }
    signalModifiedKey(c, c->db, key);
    server.dirty += count;
}

/* The list at a write lookup: NULL if absent (ref->de NULL) or, after
 * replying WRONGTYPE, if it holds another type (*wrongtype set). */
static robj *listFindForWrite(client *c, robj *key, keyRef *ref, int *wrongtype) {
    dbFindForWrite(c->db, key, ref);
    *wrongtype = 0;
    if (!ref->de) return NULL;
    robj *o = dictGetVal(ref->de);
    if (o->type != OBJ_LIST) {
        replyErrorWrongType(c);
        *wrongtype = 1;
        return NULL;
    }
    return o;
}

/* LEFT / RIGHT (any case) -> head / tail. */
static int listParseSide(robj *arg, int *where) {
    if (argEq(arg, "left")) *where = QUICKLIST_HEAD;
    else if (argEq(arg, "right")) *where = QUICKLIST_TAIL;
    else return C_ERR;
    return C_OK;
}

/* ---- push ---- */

static void pushGeneric(client *c, int where, int only_existing) {
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    if (wrongtype) return;
    if (!o && only_existing) {
        replyConst(c, ":0\r\n");
        return;
    }
    int created = o == NULL;
    if (created) o = listTypeCreate();
    for (int j = 2; j < c->argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *s = argBytes(c->argv[j], buf, &len);
        quicklistPush(o->ptr, s, len, where);
    }
    unsigned long len = listTypeLength(o);
    if (created) dbSetValue(&ref, o);
    replyLongLong(c, (long long)len);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, where == QUICKLIST_HEAD ? "lpush" : "rpush", c->argv[1], c->db->id);
    server.dirty += c->argc - 2;
}

void lpushCommand(client *c) { pushGeneric(c, QUICKLIST_HEAD, 0); }
void rpushCommand(client *c) { pushGeneric(c, QUICKLIST_TAIL, 0); }
void lpushxCommand(client *c) { pushGeneric(c, QUICKLIST_HEAD, 1); }
void rpushxCommand(client *c) { pushGeneric(c, QUICKLIST_TAIL, 1); }

/* ---- pop ---- */

/* LPOP/RPOP key [count]: one element as a bulk, or with a count an array
 * (a missing key is then a null array, count 0 an empty array). */
static void popGeneric(client *c, int where) {
    long count = 0;
    int hascount = c->argc == 3;
    if (c->argc > 3) {
        replyErrorArity(c);
        return;
    }
    if (hascount && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    if (wrongtype) return;
    if (!o) {
        if (hascount) replyNullArray(c);
        else replyNull(c);
        return;
    }
    if (hascount && count == 0) {
        replyArrayLen(c, 0);
        return;
    }
    if (!hascount) {
        listPopReply(c, o, where);
        listPopped(c, c->argv[1], o, where, 1);
        return;
    }
    long llen = (long)listTypeLength(o);
    long n = count > llen ? llen : count;
    listReplyRange(c, o, where == QUICKLIST_HEAD ? 0 : -1, n, where == QUICKLIST_TAIL);
    quicklistDelRange(o->ptr, where == QUICKLIST_HEAD ? 0 : -n, (unsigned long)n);
    listPopped(c, c->argv[1], o, where, n);
}

void lpopCommand(client *c) { popGeneric(c, QUICKLIST_HEAD); }
void rpopCommand(client *c) { popGeneric(c, QUICKLIST_TAIL); }

/* ---- reads ---- */

void llenCommand(client *c) {
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    replyLongLong(c, (long long)listTypeLength(o));
}

void lindexCommand(client *c) {
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        replyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK) return;
    quicklistIter it;
    quicklistEntry e;
    if (quicklistInitIteratorAtIdx(&it, o->ptr, QUICKLIST_START_HEAD, index) && quicklistNext(&it, &e))
        listReplyEntry(c, &e);
    else
        replyNull(c);
    quicklistResetIterator(&it);
}

void lrangeCommand(client *c) {
    long start, end;
    if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        replyArrayLen(c, 0);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    long llen = (long)listTypeLength(o);
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        replyArrayLen(c, 0);
        return;
    }
    if (end >= llen) end = llen - 1;
    listReplyRange(c, o, start, end - start + 1, 0);
}

/* LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
void lposCommand(client *c) {
    long rank = 1, count = -1, maxlen = 0; /* count -1: no COUNT option */
    for (int j = 3; j < c->argc; j++) {
        int moreargs = j < c->argc - 1;
        if (moreargs && argEq(c->argv[j], "rank")) {
            if (getLongFromObjectOrReply(c, c->argv[++j], &rank, NULL) != C_OK) return;
            if (rank == 0) {
                replyError(c, "ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                              "second ... or use negative to start from the end of the list");
                return;
            }
        } else if (moreargs && argEq(c->argv[j], "count")) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j], &count, "COUNT can't be negative") != C_OK)
                return;
        } else if (moreargs && argEq(c->argv[j], "maxlen")) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j], &maxlen, "MAXLEN can't be negative") != C_OK)
                return;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    /* A negative rank counts matches from the tail. RANK LONG_MIN cannot
     * be negated; Redis 7.0 ends up treating every match as past the rank
     * and never stopping at COUNT, which `unbounded` reproduces. */
    int forward = rank > 0;
    int unbounded = rank == LONG_MIN;
    long want = rank > 0 ? rank : (unbounded ? 1 : -rank);

    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (!o) {
        if (count != -1) replyArrayLen(c, 0);
        else replyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;

    char buf[LONG_STR_SIZE];
    size_t elen;
    const char *ele = argBytes(c->argv[2], buf, &elen);
    void *lenptr = count != -1 ? replyDeferredLen(c) : NULL;
    long llen = (long)listTypeLength(o), index = 0, matches = 0, found = -1, arraylen = 0;
    quicklistIter it;
    quicklistEntry e;
    quicklistInitIterator(&it, o->ptr, forward ? QUICKLIST_START_HEAD : QUICKLIST_START_TAIL);
    while ((maxlen == 0 || index < maxlen) && quicklistNext(&it, &e)) {
        if (quicklistCompare(&e, (const unsigned char *)ele, elen) && ++matches >= want) {
            long pos = forward ? index : llen - index - 1;
            if (!lenptr) {
                found = pos;
                break;
            }
            replyLongLong(c, pos);
            arraylen++;
            if (count && !unbounded && matches - want + 1 >= count) break;
        }
        index++;
    }
    quicklistResetIterator(&it);
    if (lenptr) replySetDeferredArrayLen(c, lenptr, arraylen);
    else if (found != -1) replyLongLong(c, found);
    else replyNull(c);
}

/* ---- in-place edits ---- */

void lsetCommand(client *c) {
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    if (wrongtype) return;
    if (!o) {
        replyError(c, "ERR no such key");
        return;
    }
    long index;
    if (getLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = argBytes(c->argv[3], buf, &len);
    if (!quicklistReplaceAtIndex(o->ptr, index, s, len)) {
        replyError(c, "ERR index out of range");
        return;
    }
    replyOk(c);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, "lset", c->argv[1], c->db->id);
    server.dirty++;
}

/* LINSERT key BEFORE|AFTER pivot element */
void linsertCommand(client *c) {
    int after;
    if (argEq(c->argv[2], "after")) after = 1;
    else if (argEq(c->argv[2], "before")) after = 0;
    else {
        replyErrorSyntax(c);
        return;
    }
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    if (wrongtype) return;
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    char pbuf[LONG_STR_SIZE], vbuf[LONG_STR_SIZE];
    size_t plen, vlen;
    const char *pivot = argBytes(c->argv[3], pbuf, &plen);
    const char *val = argBytes(c->argv[4], vbuf, &vlen);
    quicklistIter it;
    quicklistEntry e;
    int inserted = 0;
    quicklistInitIterator(&it, o->ptr, QUICKLIST_START_HEAD);
    while (quicklistNext(&it, &e)) {
        if (quicklistCompare(&e, (const unsigned char *)pivot, plen)) {
            if (after) quicklistInsertAfter(&it, &e, val, vlen);
            else quicklistInsertBefore(&it, &e, val, vlen);
            inserted = 1;
            break;
        }
    }
    quicklistResetIterator(&it);
    if (!inserted) {
        replyConst(c, ":-1\r\n");
        return;
    }
    long long len = (long long)listTypeLength(o); /* on the stack: replied after the event */
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, "linsert", c->argv[1], c->db->id);
    server.dirty++;
    replyLongLong(c, len);
}

/* LREM key count element: count > 0 from the head, < 0 from the tail, 0 all. */
void lremCommand(client *c) {
    long toremove;
    if (getLongFromObjectOrReply(c, c->argv[2], &toremove, NULL) != C_OK) return;
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    if (wrongtype) return;
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    int forward = toremove >= 0;
    /* -LONG_MIN does not exist; Redis 7.0's count never matches it, so
     * everything equal goes, from the tail. */
    unsigned long limit = toremove == LONG_MIN ? 0 : (unsigned long)(forward ? toremove : -toremove);
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *ele = argBytes(c->argv[3], buf, &len);
    unsigned long removed = 0;
    quicklistIter it;
    quicklistEntry e;
    quicklistInitIterator(&it, o->ptr, forward ? QUICKLIST_START_HEAD : QUICKLIST_START_TAIL);
    while (quicklistNext(&it, &e)) {
        if (quicklistCompare(&e, (const unsigned char *)ele, len)) {
            quicklistDelEntry(&it, &e);
            if (++removed == limit) break;
        }
    }
    quicklistResetIterator(&it);
    int empty = listTypeLength(o) == 0;
    if (removed) notifyKeyspaceEvent(NOTIFY_LIST, "lrem", c->argv[1], c->db->id);
    if (empty) {
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    if (removed) signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty += (long long)removed;
    replyLongLong(c, (long long)removed); /* after the events, as Redis */
}

void ltrimCommand(client *c) {
    long start, end;
    if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    if (wrongtype) return;
    if (!o) {
        replyOk(c);
        return;
    }
    long llen = (long)listTypeLength(o), ltrim, rtrim;
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        ltrim = llen; /* nothing survives */
        rtrim = 0;
    } else {
        if (end >= llen) end = llen - 1;
        ltrim = start;
        rtrim = llen - end - 1;
    }
    quicklistDelRange(o->ptr, 0, (unsigned long)ltrim);
    quicklistDelRange(o->ptr, -rtrim, (unsigned long)rtrim);
    int empty = listTypeLength(o) == 0;
    notifyKeyspaceEvent(NOTIFY_LIST, "ltrim", c->argv[1], c->db->id);
    if (empty) {
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty += ltrim + rtrim;
    replyOk(c); /* after the events, as Redis */
}

/* ---- LMOVE family ---- */

#define LMOVE_PLAIN 0      /* LMOVE, RPOPLPUSH: propagated as they are */
#define LMOVE_BLMOVE 1     /* BLMOVE: propagated as LMOVE */
#define LMOVE_BRPOPLPUSH 2 /* BRPOPLPUSH: propagated as RPOPLPUSH */

/* Move one element from the non-empty list src (found at argv[1]) to the
 * list at argv[2]. Replies WRONGTYPE (and moves nothing) when the
 * destination holds another type. */
static void lmoveGeneric(client *c, robj *src, int wherefrom, int whereto, int kind) {
    robj *srckey = c->argv[1], *dstkey = c->argv[2];
    keyRef dref = {0};
    robj *dst;
    int same = equalStringObjects(srckey, dstkey);
    if (same) {
        dst = src; /* a rotation: no second lookup */
    } else {
        int wrongtype;
        dst = listFindForWrite(c, dstkey, &dref, &wrongtype);
        if (wrongtype) return;
    }

    /* Take the element out first: with src == dst the push must see the
     * list without it. A copy is needed because the push may reallocate
     * the listpack the entry lives in. */
    char small[128];
    char *val = small;
    size_t vlen;
    quicklistIter it;
    quicklistEntry e;
    quicklistInitIteratorAtIdx(&it, src->ptr, QUICKLIST_START_HEAD, wherefrom == QUICKLIST_HEAD ? 0 : -1);
    quicklistNext(&it, &e);
    if (!e.value) {
        vlen = (size_t)ll2string(small, sizeof(small), e.longval);
    } else {
        vlen = e.sz;
        if (vlen > sizeof(small)) val = zmalloc(vlen);
        memcpy(val, e.value, vlen);
    }
    quicklistDelEntry(&it, &e);
    quicklistResetIterator(&it);

    int created = dst == NULL;
    if (created) dst = listTypeCreate();
    quicklistPush(dst->ptr, val, vlen, whereto);
    if (created) dbSetValue(&dref, dst);
    int src_empty = listTypeLength(src) == 0;
    signalModifiedKey(c, c->db, dstkey);
    notifyKeyspaceEvent(NOTIFY_LIST, whereto == QUICKLIST_HEAD ? "lpush" : "rpush", dstkey, c->db->id);
    /* Redis' order: push event, the reply (our own copy), pop event. */
    replyBulkBuf(c, val, vlen);
    if (val != small) zfree(val);
    notifyKeyspaceEvent(NOTIFY_LIST, wherefrom == QUICKLIST_HEAD ? "lpop" : "rpop", srckey, c->db->id);
    if (src_empty) {
        dbDelete(c->db, srckey);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", srckey, c->db->id);
    }
    signalModifiedKey(c, c->db, srckey);
    server.dirty++;

    if (kind == LMOVE_PLAIN) return;
    listSharedInit();
    if (kind == LMOVE_BRPOPLPUSH) {
        clientRewriteArgv(c, 3, shared(objRpoplpush), shared(srckey), shared(dstkey));
    } else if (c->flags & CLIENT_REEXECUTING) {
        /* Served after blocking: Redis names the sides itself. */
        clientRewriteArgv(c, 5, shared(objLmove), shared(srckey), shared(dstkey),
                          shared(wherefrom == QUICKLIST_HEAD ? objLeft : objRight),
                          shared(whereto == QUICKLIST_HEAD ? objLeft : objRight));
    } else {
        clientRewriteArgv(c, 5, shared(objLmove), shared(srckey), shared(dstkey), shared(c->argv[3]),
                          shared(c->argv[4]));
    }
}

/* The source lookup shared by the LMOVE family; NULL after replying when
 * there is nothing to do (missing key: nil, other type: WRONGTYPE). */
static robj *lmoveSource(client *c, int *missing) {
    keyRef ref;
    int wrongtype;
    robj *o = listFindForWrite(c, c->argv[1], &ref, &wrongtype);
    *missing = !o && !wrongtype;
    return o;
}

void lmoveCommand(client *c) {
    int wherefrom, whereto, missing;
    if (listParseSide(c->argv[3], &wherefrom) != C_OK || listParseSide(c->argv[4], &whereto) != C_OK) {
        replyErrorSyntax(c);
        return;
    }
    robj *src = lmoveSource(c, &missing);
    if (missing) replyNull(c);
    if (src) lmoveGeneric(c, src, wherefrom, whereto, LMOVE_PLAIN);
}

void rpoplpushCommand(client *c) {
    int missing;
    robj *src = lmoveSource(c, &missing);
    if (missing) replyNull(c);
    if (src) lmoveGeneric(c, src, QUICKLIST_TAIL, QUICKLIST_HEAD, LMOVE_PLAIN);
}

static void blmoveGeneric(client *c, int wherefrom, int whereto, robj *timeout_arg, int kind) {
    long long timeout;
    int missing;
    if (getTimeoutFromObjectOrReply(c, timeout_arg, &timeout) != C_OK) return;
    robj *src = lmoveSource(c, &missing);
    if (src) {
        lmoveGeneric(c, src, wherefrom, whereto, kind);
    } else if (missing) {
        /* In a transaction BLMOVE cannot wait: it answers a null bulk
         * (unlike its timeout, a null array). */
        if (c->flags & CLIENT_DENY_BLOCKING) replyNull(c);
        else blockForKeys(c, OBJ_LIST, c->argv + 1, 1, timeout, BLOCK_REPLY_NULL_ARRAY);
    }
}

void blmoveCommand(client *c) {
    int wherefrom, whereto;
    if (listParseSide(c->argv[3], &wherefrom) != C_OK || listParseSide(c->argv[4], &whereto) != C_OK) {
        replyErrorSyntax(c);
        return;
    }
    blmoveGeneric(c, wherefrom, whereto, c->argv[5], LMOVE_BLMOVE);
}

void brpoplpushCommand(client *c) {
    blmoveGeneric(c, QUICKLIST_TAIL, QUICKLIST_HEAD, c->argv[3], LMOVE_BRPOPLPUSH);
}

/* ---- blocking pops and LMPOP ---- */

/* Pop up to count elements of the list at key from one side, replying
 * [key, [elements]], and propagate it as [LR]POP key n. */
static void listPopRangeWithKey(client *c, robj *key, robj *o, int where, long count) {
    long llen = (long)listTypeLength(o);
    long n = count > llen ? llen : count;
    replyArrayLen(c, 2);
    replyBulk(c, key);
    listReplyRange(c, o, where == QUICKLIST_HEAD ? 0 : -1, n, where == QUICKLIST_TAIL);
    quicklistDelRange(o->ptr, where == QUICKLIST_HEAD ? 0 : -n, (unsigned long)n);
    incrRefCount(key); /* survives the argv rewrite below */
    listPopped(c, key, o, where, n);
    listSharedInit();
    clientRewriteArgv(c, 3, shared(where == QUICKLIST_HEAD ? objLpop : objRpop), key,
                      createStringObjectFromLongLong(n));
}

/* Serve from the first non-empty list among keys: count -1 is BLPOP's
 * [key, element] reply, otherwise LMPOP's [key, [elements]]. Returns 1 if
 * it replied (served or WRONGTYPE), 0 if every key was missing. */
static int listServeFirst(client *c, robj **keys, int numkeys, int where, long count) {
    robj *ready = (c->flags & CLIENT_REEXECUTING) ? blockedReadyKey() : NULL;
    if (ready) {
        /* Woken by one key: Redis 7.0 serves from that key, even when an
         * earlier key of the command became a list in the same
         * transaction. */
        for (int j = 0; j < numkeys; j++) {
            if (equalStringObjects(keys[j], ready)) {
                keys += j;
                numkeys = 1;
                break;
            }
        }
    }
    for (int j = 0; j < numkeys; j++) {
        keyRef ref;
        int wrongtype;
        robj *o = listFindForWrite(c, keys[j], &ref, &wrongtype);
        if (wrongtype) return 1;
        if (!o) continue;
        if (count != -1) {
            listPopRangeWithKey(c, keys[j], o, where, count);
            return 1;
        }
        robj *key = keys[j];
        incrRefCount(key);
        replyArrayLen(c, 2);
        replyBulk(c, key);
        listPopReply(c, o, where);
        listPopped(c, key, o, where, 1);
        listSharedInit();
        clientRewriteArgv(c, 2, shared(where == QUICKLIST_HEAD ? objLpop : objRpop), key);
        return 1;
    }
    return 0;
}

static void blockingPopGeneric(client *c, int where) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[c->argc - 1], &timeout) != C_OK) return;
    if (listServeFirst(c, c->argv + 1, c->argc - 2, where, -1)) return;
    /* blockForKeys answers a null array itself when blocking is denied. */
    blockForKeys(c, OBJ_LIST, c->argv + 1, c->argc - 2, timeout, BLOCK_REPLY_NULL_ARRAY);
}

void blpopCommand(client *c) { blockingPopGeneric(c, QUICKLIST_HEAD); }
void brpopCommand(client *c) { blockingPopGeneric(c, QUICKLIST_TAIL); }

/* [B]LMPOP [timeout] numkeys key [key ...] LEFT|RIGHT [COUNT count] */
static void lmpopGeneric(client *c, int numkeys_idx, int blocking) {
    long numkeys, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    long first = numkeys_idx + 1;
    if (numkeys >= c->argc - first) { /* no room left for LEFT|RIGHT */
        replyErrorSyntax(c);
        return;
    }
    long where_idx = first + numkeys;
    if (listParseSide(c->argv[where_idx], &where) != C_OK) {
        replyErrorSyntax(c);
        return;
    }
    for (long j = where_idx + 1; j < c->argc; j++) {
        if (count == -1 && j < c->argc - 1 && argEq(c->argv[j], "count")) {
            if (getRangeLongFromObjectOrReply(c, c->argv[++j], 1, LONG_MAX, &count,
                                              "count should be greater than 0") != C_OK)
                return;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    if (count == -1) count = 1;
    long long timeout = 0;
    if (blocking && getTimeoutFromObjectOrReply(c, c->argv[1], &timeout) != C_OK) return;
    if (listServeFirst(c, c->argv + first, (int)numkeys, where, count)) return;
    if (!blocking) replyNullArray(c);
    else blockForKeys(c, OBJ_LIST, c->argv + first, (int)numkeys, timeout, BLOCK_REPLY_NULL_ARRAY);
}

void lmpopCommand(client *c) { lmpopGeneric(c, 1, 0); }
void blmpopCommand(client *c) { lmpopGeneric(c, 2, 1); }
