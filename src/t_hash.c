/* t_hash: the hash type and its commands (HSET ... HSCAN).
 *
 * A hash starts as a listpack of field, value, field, value ... entries (the
 * bytes Redis writes, so snapshots can store it as-is) and becomes a dict of
 * sds field -> sds value once it holds more than hash-max-listpack-entries
 * fields or a field or value longer than hash-max-listpack-value bytes. It
 * never converts back, as in Redis.
 *
 * Arguments enter as c->argv sds strings and are copied into the hash;
 * replies are written straight from the listpack entries or dict sds (no
 * temporary objects). Writes look the key up once with dbFindForWrite, reply
 * before firing the keyspace notification, and delete a key whose hash
 * became empty. HINCRBYFLOAT propagates as HSET with the final value so
 * replicas never redo float arithmetic. */
#include "args.h"
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "keys.h"
#include "log.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "listpack.h"
#include "t_hash.h"

#include <math.h>
#include <stdlib.h>

dictType hashDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor,
                         dictSdsDestructor, NULL};

/* Temporary set of borrowed field sds (HRANDFIELD de-duplication). */
static dictType hashSampleDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, NULL, NULL, NULL};

/* ---------------------------------------------------------------------------
 * The value: listpack or dict
 * ------------------------------------------------------------------------ */

/* A field or value read in place: a string (s, len), or for a listpack
 * integer entry s == NULL and the number in ll. */
typedef struct hashItem {
    const unsigned char *s;
    unsigned int len;
    long long ll;
} hashItem;

/* Where hashFind found a field, so the following update needs no search. */
typedef struct hashPos {
    unsigned char *vptr; /* listpack: the value entry */
    dictEntry *de;       /* hashtable: the entry */
} hashPos;

static inline void hashItemFromLp(unsigned char *p, hashItem *it) {
    it->s = lpGetValue(p, &it->len, &it->ll);
}

static inline void hashItemFromSds(sds s, hashItem *it) {
    it->s = (const unsigned char *)s;
    it->len = (unsigned int)sdslen(s);
}

static inline void hashReplyItem(client *c, const hashItem *it) {
    if (it->s) replyBulkBuf(c, it->s, it->len);
    else replyBulkLongLong(c, it->ll);
}

static inline void hashReplyLpEntry(client *c, unsigned char *p) {
    hashItem it;
    hashItemFromLp(p, &it);
    hashReplyItem(c, &it);
}

static inline void hashReplySds(client *c, sds s) { replyBulkBuf(c, s, sdslen(s)); }

/* A new sds holding the item's string form. */
static sds hashItemToSds(const hashItem *it, int key) {
    char buf[LONG_STR_SIZE];
    const char *s = (const char *)it->s;
    size_t len = it->len;
    if (!s) {
        len = ll2string(buf, sizeof(buf), it->ll);
        s = buf;
    }
    return key ? sdsnewkey(s, len) : sdsnewlen(s, len);
}

robj *hashCreate(void) {
    robj *o = createObject(OBJ_HASH, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

unsigned long hashLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpLength(o->ptr) / 2;
    return dictSize((const dict *)o->ptr);
}

static inline int hashValueTooLong(size_t len) {
    return (long long)len > cfg.hash_max_listpack_value;
}

void hashConvertToDict(robj *o) {
    serverAssert(o->encoding == OBJ_ENCODING_LISTPACK);
    unsigned char *lp = o->ptr;
    dict *d = dictCreate(&hashDictType);
    unsigned long n = lpLength(lp) / 2;
    if (n) dictExpand(d, n);
    for (unsigned char *fp = lpFirst(lp); fp; fp = lpNext(lp, fp)) {
        unsigned char *vp = lpNext(lp, fp);
        serverAssert(vp != NULL);
        hashItem f, v;
        hashItemFromLp(fp, &f);
        hashItemFromLp(vp, &v);
        if (dictAdd(d, hashItemToSds(&f, 1), hashItemToSds(&v, 0)) != DICT_OK)
            serverPanic("listpack hash with a duplicate field");
        fp = vp;
    }
    lpFree(lp);
    o->ptr = d;
    o->encoding = OBJ_ENCODING_HT;
}

/* The listpack entry of field, or NULL. */
static unsigned char *hashLpFindField(unsigned char *lp, sds field) {
    unsigned char *fp = lpFirst(lp);
    if (!fp) return NULL;
    return lpFind(lp, fp, (unsigned char *)field, (uint32_t)sdslen(field), 1);
}

/* Returns 1 if field exists; fills *val and *pos (each may be NULL). */
static int hashFind(robj *o, sds field, hashItem *val, hashPos *pos) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        unsigned char *fp = hashLpFindField(lp, field);
        if (!fp) return 0;
        unsigned char *vp = lpNext(lp, fp);
        if (val) hashItemFromLp(vp, val);
        if (pos) pos->vptr = vp;
        return 1;
    }
    dictEntry *de = dictFind(o->ptr, field);
    if (!de) return 0;
    if (val) hashItemFromSds(dictGetVal(de), val);
    if (pos) pos->de = de;
    return 1;
}

/* Before adding argv[start..end] as fields and values: a listpack that would
 * receive a string too long for it (or grow past the safe size) becomes a
 * dict first, whether or not the fields already exist, as in Redis. */
static void hashTryConversion(robj *o, robj **argv, int start, int end) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    size_t sum = 0;
    for (int j = start; j <= end; j++) {
        if (!sdsEncodedObject(argv[j])) continue;
        size_t len = sdslen(argv[j]->ptr);
        if (hashValueTooLong(len)) {
            hashConvertToDict(o);
            return;
        }
        sum += len;
    }
    if (!lpSafeToAdd(o->ptr, sum)) hashConvertToDict(o);
}

/* Set field to v. hint (may be NULL) is where hashFind found the field, with
 * no change to the hash since. Converts to a dict when the strings are too
 * long or the listpack holds too many fields. Returns 1 if the field existed
 * (its value was replaced), 0 if it was added. */
static int hashSet(robj *o, sds field, const char *v, size_t vlen, const hashPos *hint) {
    size_t flen = sdslen(field);
    if (o->encoding == OBJ_ENCODING_LISTPACK && (hashValueTooLong(flen) || hashValueTooLong(vlen))) {
        hashConvertToDict(o);
        hint = NULL;
    }
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        unsigned char *vp = NULL;
        if (hint) {
            vp = hint->vptr;
        } else {
            unsigned char *fp = hashLpFindField(lp, field);
            if (fp) vp = lpNext(lp, fp);
        }
        if (vp) {
            o->ptr = lpReplace(lp, &vp, (const unsigned char *)v, (uint32_t)vlen);
            return 1;
        }
        lp = lpAppend(lp, (const unsigned char *)field, (uint32_t)flen);
        o->ptr = lpAppend(lp, (const unsigned char *)v, (uint32_t)vlen);
        if ((long long)hashLength(o) > cfg.hash_max_listpack_entries) hashConvertToDict(o);
        return 0;
    }
    dict *d = o->ptr;
    dictEntry *de = hint ? hint->de : NULL;
    dictInsertPos ip;
    if (!de) de = dictFindOrPos(d, field, &ip);
    if (de) {
        sdsfree(dictGetVal(de));
        dictSetVal(d, de, sdsnewlen(v, vlen));
        return 1;
    }
    de = dictInsertAtPos(d, sdsnewkey(field, flen), &ip);
    dictSetVal(d, de, sdsnewlen(v, vlen));
    return 0;
}

/* Returns 1 if field was there and is gone. */
static int hashDelete(robj *o, sds field) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *fp = hashLpFindField(o->ptr, field);
        if (!fp) return 0;
        o->ptr = lpDeleteRangeWithEntry(o->ptr, &fp, 2);
        return 1;
    }
    dict *d = o->ptr;
    if (dictDelete(d, field) != DICT_OK) return 0;
    /* Give memory back once the table is under 10% full, like Redis. */
    if (dictSlots(d) > DICT_HT_INITIAL_SIZE && dictSize(d) * 100 / dictSlots(d) < 10)
        dictResize(d);
    return 1;
}

/* ---------------------------------------------------------------------------
 * objectTypeOps
 * ------------------------------------------------------------------------ */

static void hashFree(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) lpFree(o->ptr);
    else dictRelease(o->ptr);
}

static robj *hashDup(robj *o) {
    robj *n;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        size_t bytes = lpBytes(o->ptr);
        unsigned char *lp = zmalloc(bytes);
        memcpy(lp, o->ptr, bytes);
        n = createObject(OBJ_HASH, lp);
        n->encoding = OBJ_ENCODING_LISTPACK;
        return n;
    }
    dict *src = o->ptr, *d = dictCreate(&hashDictType);
    if (dictSize(src)) dictExpand(d, dictSize(src));
    dictIterator di;
    dictInitIterator(&di, src);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL) {
        sds f = dictGetKey(de), v = dictGetVal(de);
        dictAdd(d, sdsnewkey(f, sdslen(f)), sdsnewlen(v, sdslen(v)));
    }
    dictResetIterator(&di);
    n = createObject(OBJ_HASH, d);
    n->encoding = OBJ_ENCODING_HT;
    return n;
}

/* MEMORY USAGE: the listpack's allocation, or for a dict the table plus an
 * average over a few sampled entries (Redis samples too: a hash may hold
 * millions of fields). */
#define HASH_SIZE_SAMPLES 5
static size_t hashSize(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return zmalloc_size(o->ptr);
    dict *d = o->ptr;
    size_t total = sizeof(dict) + dictSlots(d) * sizeof(dictEntry *);
    size_t sampled = 0, bytes = 0;
    dictIterator di;
    dictInitIterator(&di, d);
    dictEntry *de;
    while (sampled < HASH_SIZE_SAMPLES && (de = dictNext(&di)) != NULL) {
        bytes += sizeof(dictEntry) + sdsAllocSize(dictGetKey(de)) + sdsAllocSize(dictGetVal(de));
        sampled++;
    }
    dictResetIterator(&di);
    if (sampled) total += bytes / sampled * dictSize(d);
    return total;
}

static size_t hashFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_HT ? dictSize((dict *)o->ptr) : 1;
}

__attribute__((constructor)) static void hashRegister(void) {
    objectTypes[OBJ_HASH] = (objectTypeOps){hashFree, hashDup, hashSize, hashFreeEffort};
}

/* ---------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------ */

/* What a read command replies for a missing key. */
#define HASH_MISSING_ZERO 0        /* :0 */
#define HASH_MISSING_NULL 1        /* null bulk / RESP3 null */
#define HASH_MISSING_EMPTY_ARRAY 2 /* *0 */
#define HASH_MISSING_EMPTY_MAP 3   /* *0 / RESP3 %0 */
#define HASH_MISSING_EMPTY_SCAN 4  /* *2 "0" *0 */

/* The hash at key, or NULL after replying for a missing key or WRONGTYPE. */
static robj *hashLookupReadOrReply(client *c, robj *key, int missing) {
    robj *o = dbLookupRead(c->db, key);
    if (!o) {
        switch (missing) {
            case HASH_MISSING_ZERO: replyConst(c, ":0\r\n"); break;
            case HASH_MISSING_NULL: replyNull(c); break;
            case HASH_MISSING_EMPTY_ARRAY: replyConst(c, "*0\r\n"); break;
            case HASH_MISSING_EMPTY_MAP: replyMapLen(c, 0); break;
            default: replyConst(c, "*2\r\n$1\r\n0\r\n*0\r\n"); break;
        }
        return NULL;
    }
    if (o->type != OBJ_HASH) {
        replyErrorWrongType(c);
        return NULL;
    }
    return o;
}

/* The single keyspace lookup of a write: *o is the hash or NULL if the key
 * is absent (ref then holds the insert position). C_ERR after WRONGTYPE. */
static int hashFindForWrite(client *c, robj *key, keyRef *ref, robj **o) {
    dbFindForWrite(c->db, key, ref);
    *o = ref->de ? dictGetVal(ref->de) : NULL;
    if (*o && (*o)->type != OBJ_HASH) {
        replyErrorWrongType(c);
        return C_ERR;
    }
    return C_OK;
}

/* ---------------------------------------------------------------------------
 * Writes
 * ------------------------------------------------------------------------ */

/* HSET key field value [field value ...] / HMSET (same, replies +OK). */
void hsetCommand(client *c) {
    if ((c->argc % 2) == 1) {
        replyErrorArity(c);
        return;
    }
    keyRef ref;
    robj *o;
    if (hashFindForWrite(c, c->argv[1], &ref, &o) != C_OK) return;
    int created = o == NULL;
    if (created) o = hashCreate();
    hashTryConversion(o, c->argv, 2, c->argc - 1);
    long long added = 0;
    for (int j = 2; j < c->argc; j += 2) {
        sds v = c->argv[j + 1]->ptr;
        added += !hashSet(o, c->argv[j]->ptr, v, sdslen(v), NULL);
    }
    if (created) dbSetValue(&ref, o);
    server.dirty += (c->argc - 2) / 2;
    /* HSET counts new fields; the deprecated HMSET answers +OK. */
    const char *name = c->argv[0]->ptr;
    if (name[1] == 's' || name[1] == 'S') replyLongLong(c, added);
    else replyOk(c);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hset", c->argv[1], c->db->id);
}

void hsetnxCommand(client *c) {
    keyRef ref;
    robj *o;
    if (hashFindForWrite(c, c->argv[1], &ref, &o) != C_OK) return;
    if (o && hashFind(o, c->argv[2]->ptr, NULL, NULL)) {
        replyConst(c, ":0\r\n");
        return;
    }
    int created = o == NULL;
    if (created) o = hashCreate();
    hashTryConversion(o, c->argv, 2, 3);
    sds v = c->argv[3]->ptr;
    hashSet(o, c->argv[2]->ptr, v, sdslen(v), NULL);
    if (created) dbSetValue(&ref, o);
    server.dirty++;
    replyConst(c, ":1\r\n");
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hset", c->argv[1], c->db->id);
}

void hdelCommand(client *c) {
    robj *o = dbLookupWrite(c->db, c->argv[1]);
    if (!o) {
        replyConst(c, ":0\r\n");
        return;
    }
    if (o->type != OBJ_HASH) {
        replyErrorWrongType(c);
        return;
    }
    long long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        if (!hashDelete(o, c->argv[j]->ptr)) continue;
        deleted++;
        if (hashLength(o) == 0) {
            dbDelete(c->db, c->argv[1]);
            keyremoved = 1;
            break;
        }
    }
    if (deleted) {
        server.dirty += deleted;
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_HASH, "hdel", c->argv[1], c->db->id);
        if (keyremoved) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    replyLongLong(c, deleted); /* after the events, as Redis */
}

void hincrbyCommand(client *c) {
    long long incr, value = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    keyRef ref;
    robj *o;
    if (hashFindForWrite(c, c->argv[1], &ref, &o) != C_OK) return;
    sds field = c->argv[2]->ptr;
    hashItem old;
    hashPos pos;
    int found = o && hashFind(o, field, &old, &pos);
    if (found) {
        if (!old.s) {
            value = old.ll;
        } else if (!string2ll((const char *)old.s, old.len, &value)) {
            replyError(c, "ERR hash value is not an integer");
            return;
        }
    }
    if ((incr < 0 && value < 0 && incr < (LLONG_MIN - value)) ||
        (incr > 0 && value > 0 && incr > (LLONG_MAX - value))) {
        replyError(c, "ERR increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), value);
    int created = o == NULL;
    if (created) o = hashCreate();
    hashSet(o, field, buf, len, found ? &pos : NULL);
    if (created) dbSetValue(&ref, o);
    server.dirty++;
    replyLongLong(c, value);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hincrby", c->argv[1], c->db->id);
}

static robj *objHset;

void hincrbyfloatCommand(client *c) {
    long double incr, value = 0;
    if (getLongDoubleFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    if (isnan(incr) || isinf(incr)) {
        replyError(c, "ERR value is NaN or Infinity");
        return;
    }
    keyRef ref;
    robj *o;
    if (hashFindForWrite(c, c->argv[1], &ref, &o) != C_OK) return;
    sds field = c->argv[2]->ptr;
    hashItem old;
    hashPos pos;
    int found = o && hashFind(o, field, &old, &pos);
    if (found) {
        if (!old.s) {
            value = (long double)old.ll;
        } else if (!string2ld((const char *)old.s, old.len, &value)) {
            replyError(c, "ERR hash value is not a float");
            return;
        }
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        replyError(c, "ERR increment would produce NaN or Infinity");
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, LD_STR_HUMAN);
    int created = o == NULL;
    if (created) o = hashCreate();
    hashSet(o, field, buf, len, found ? &pos : NULL);
    if (created) dbSetValue(&ref, o);
    server.dirty++;
    replyBulkBuf(c, buf, len);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_HASH, "hincrbyfloat", c->argv[1], c->db->id);
    /* Propagate the result, not the increment: float formatting must not let
     * replicas or the AOF drift. */
    if (!objHset) objHset = createStringObject("HSET", 4);
    incrRefCount(objHset);
    incrRefCount(c->argv[1]);
    incrRefCount(c->argv[2]);
    clientRewriteArgv(c, 4, objHset, c->argv[1], c->argv[2], createRawStringObject(buf, len));
}

/* ---------------------------------------------------------------------------
 * Reads
 * ------------------------------------------------------------------------ */

void hgetCommand(client *c) {
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_NULL);
    if (!o) return;
    hashItem v;
    if (hashFind(o, c->argv[2]->ptr, &v, NULL)) hashReplyItem(c, &v);
    else replyNull(c);
}

void hmgetCommand(client *c) {
    /* A missing key answers a null per field; only a wrong type is an error. */
    robj *o = dbLookupRead(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    replyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        hashItem v;
        if (o && hashFind(o, c->argv[j]->ptr, &v, NULL)) hashReplyItem(c, &v);
        else replyNull(c);
    }
}

void hlenCommand(client *c) {
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_ZERO);
    if (o) replyLongLong(c, (long long)hashLength(o));
}

void hstrlenCommand(client *c) {
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_ZERO);
    if (!o) return;
    hashItem v;
    long long len = 0;
    if (hashFind(o, c->argv[2]->ptr, &v, NULL)) len = v.s ? (long long)v.len : sdigits10(v.ll);
    replyLongLong(c, len);
}

void hexistsCommand(client *c) {
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_ZERO);
    if (!o) return;
    if (hashFind(o, c->argv[2]->ptr, NULL, NULL)) replyConst(c, ":1\r\n");
    else replyConst(c, ":0\r\n");
}

#define HASH_KEYS 1
#define HASH_VALS 2

/* HKEYS, HVALS, HGETALL: one header, then every element from where it is
 * stored. */
static void hashGetAllGeneric(client *c, int what) {
    int both = what == (HASH_KEYS | HASH_VALS);
    robj *o = hashLookupReadOrReply(c, c->argv[1], both ? HASH_MISSING_EMPTY_MAP : HASH_MISSING_EMPTY_ARRAY);
    if (!o) return;
    unsigned long len = hashLength(o);
    if (both) replyMapLen(c, (long)len);
    else replyArrayLen(c, (long)len);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        for (unsigned char *fp = lpFirst(lp); fp; fp = lpNext(lp, fp)) {
            unsigned char *vp = lpNext(lp, fp);
            if (what & HASH_KEYS) hashReplyLpEntry(c, fp);
            if (what & HASH_VALS) hashReplyLpEntry(c, vp);
            fp = vp;
        }
        return;
    }
    dictIterator di;
    dictInitIterator(&di, o->ptr);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL) {
        if (what & HASH_KEYS) hashReplySds(c, dictGetKey(de));
        if (what & HASH_VALS) hashReplySds(c, dictGetVal(de));
    }
    dictResetIterator(&di);
}

void hkeysCommand(client *c) { hashGetAllGeneric(c, HASH_KEYS); }
void hvalsCommand(client *c) { hashGetAllGeneric(c, HASH_VALS); }
void hgetallCommand(client *c) { hashGetAllGeneric(c, HASH_KEYS | HASH_VALS); }

/* ---------------------------------------------------------------------------
 * HRANDFIELD
 * ------------------------------------------------------------------------ */

static inline unsigned long hashRandom(unsigned long n) {
    /* random() gives 31 bits; two calls cover any realistic hash size. */
    unsigned long r = ((unsigned long)random() << 31) ^ (unsigned long)random();
    return r % n;
}

/* The field entries of a listpack hash, in order (n = number of fields). */
static unsigned char **hashLpFields(unsigned char *lp, unsigned long n) {
    unsigned char **f = zmalloc(sizeof(*f) * n);
    unsigned char *p = lpFirst(lp);
    for (unsigned long i = 0; i < n; i++) {
        f[i] = p;
        p = lpNext(lp, lpNext(lp, p));
    }
    return f;
}

/* One element of a counted HRANDFIELD reply: the field, or the field and its value
 * (a nested pair in RESP3). */
static void hashReplyLpPair(client *c, unsigned char *lp, unsigned char *fp, int withvalues) {
    if (withvalues && c->resp > 2) replyArrayLen(c, 2);
    hashReplyLpEntry(c, fp);
    if (withvalues) hashReplyLpEntry(c, lpNext(lp, fp));
}

static void hashReplyDictPair(client *c, dictEntry *de, int withvalues) {
    if (withvalues && c->resp > 2) replyArrayLen(c, 2);
    hashReplySds(c, dictGetKey(de));
    if (withvalues) hashReplySds(c, dictGetVal(de));
}

/* The reply header for n elements. */
static void hashRandHeader(client *c, unsigned long n, int withvalues) {
    replyArrayLen(c, (long)((withvalues && c->resp == 2) ? n * 2 : n));
}

/* Sampling with a dict lookup per pick pays off only when the count is well
 * below the size; otherwise the whole table is shuffled. */
#define HRANDFIELD_SUB_STRATEGY_MUL 3

static void hrandfieldWithCount(client *c, long l, int withvalues) {
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_EMPTY_ARRAY);
    if (!o) return;
    unsigned long size = hashLength(o);
    int uniq = l >= 0;
    unsigned long count = uniq ? (unsigned long)l : (unsigned long)(-l);
    if (count == 0) {
        replyConst(c, "*0\r\n");
        return;
    }

    /* A negative count: count independent picks, duplicates allowed. A count
     * of one is the same thing. */
    if (!uniq || count == 1) {
        hashRandHeader(c, count, withvalues);
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            unsigned char *lp = o->ptr;
            unsigned char **fields = hashLpFields(lp, size);
            while (count--) {
                hashReplyLpPair(c, lp, fields[hashRandom(size)], withvalues);
                if (c->flags & CLIENT_CLOSE_ASAP) break;
            }
            zfree(fields);
        } else {
            while (count--) {
                hashReplyDictPair(c, dictGetFairRandomKey(o->ptr), withvalues);
                if (c->flags & CLIENT_CLOSE_ASAP) break;
            }
        }
        return;
    }

    /* Asking for at least everything returns everything, in stored order. */
    if (count >= size) {
        hashRandHeader(c, size, withvalues);
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            unsigned char *lp = o->ptr;
            for (unsigned char *fp = lpFirst(lp); fp; fp = lpNext(lp, lpNext(lp, fp)))
                hashReplyLpPair(c, lp, fp, withvalues);
        } else {
            dictIterator di;
            dictInitIterator(&di, o->ptr);
            dictEntry *de;
            while ((de = dictNext(&di)) != NULL) hashReplyDictPair(c, de, withvalues);
            dictResetIterator(&di);
        }
        return;
    }

    hashRandHeader(c, count, withvalues);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        /* Selection sampling: each field is taken with probability
         * needed/remaining, so the picks come out in listpack order. */
        unsigned char *lp = o->ptr;
        unsigned long needed = count, remaining = size;
        for (unsigned char *fp = lpFirst(lp); fp && needed; fp = lpNext(lp, lpNext(lp, fp))) {
            if (hashRandom(remaining--) < needed) {
                hashReplyLpPair(c, lp, fp, withvalues);
                needed--;
            }
        }
        return;
    }
    dict *d = o->ptr;
    if (count * HRANDFIELD_SUB_STRATEGY_MUL > size) {
        /* A large share of the hash: partial Fisher-Yates over all entries. */
        dictEntry **all = zmalloc(sizeof(*all) * size);
        unsigned long n = 0;
        dictIterator di;
        dictInitIterator(&di, d);
        dictEntry *de;
        while ((de = dictNext(&di)) != NULL) all[n++] = de;
        dictResetIterator(&di);
        for (unsigned long i = 0; i < count; i++) {
            unsigned long j = i + hashRandom(n - i);
            dictEntry *t = all[i];
            all[i] = all[j];
            all[j] = t;
            hashReplyDictPair(c, all[i], withvalues);
        }
        zfree(all);
        return;
    }
    /* A small share: random picks, skipping fields already returned. */
    dict *seen = dictCreate(&hashSampleDictType);
    dictExpand(seen, count);
    unsigned long added = 0;
    while (added < count) {
        dictEntry *de = dictGetFairRandomKey(d);
        if (dictAdd(seen, dictGetKey(de), NULL) != DICT_OK) continue;
        hashReplyDictPair(c, de, withvalues);
        added++;
    }
    dictRelease(seen);
}

/* HRANDFIELD key [count [WITHVALUES]] */
void hrandfieldCommand(client *c) {
    if (c->argc >= 3) {
        long l;
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK)
            return;
        int withvalues = 0;
        if (c->argc > 4 || (c->argc == 4 && !argEq(c->argv[3], "withvalues"))) {
            replyErrorSyntax(c);
            return;
        }
        if (c->argc == 4) {
            withvalues = 1;
            /* RESP2 doubles the element count. */
            if (l < -LONG_MAX / 2 || l > LONG_MAX / 2) {
                replyError(c, "ERR value is out of range");
                return;
            }
        }
        hrandfieldWithCount(c, l, withvalues);
        return;
    }
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_NULL);
    if (!o) return;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        hashReplyLpEntry(c, lpSeek(lp, (long)(2 * hashRandom(hashLength(o)))));
    } else {
        hashReplySds(c, dictGetKey(dictGetFairRandomKey(o->ptr)));
    }
}

/* ---------------------------------------------------------------------------
 * HSCAN
 * ------------------------------------------------------------------------ */

typedef struct hashScanState {
    sds *items; /* field, value, field, value ... (borrowed) */
    unsigned long count, cap;
} hashScanState;

static void hashScanCallback(void *privdata, const dictEntry *de) {
    hashScanState *st = privdata;
    if (st->count + 2 > st->cap) {
        st->cap = st->cap ? st->cap * 2 : 32;
        st->items = zrealloc(st->items, sizeof(sds) * st->cap);
    }
    st->items[st->count++] = dictGetKey(de);
    st->items[st->count++] = dictGetVal(de);
}

/* HSCAN key cursor [MATCH pattern] [COUNT count]. A listpack is returned
 * whole with cursor 0; a dict is walked with dictScan for about COUNT
 * entries (fields and values both count, as in Redis). */
void hscanCommand(client *c) {
    unsigned long cursor;
    if (scanParseCursorOrReply(c, c->argv[2], &cursor) != C_OK) return;
    robj *o = hashLookupReadOrReply(c, c->argv[1], HASH_MISSING_EMPTY_SCAN);
    if (!o) return;
    scanOptions opt;
    if (scanParseOptionsOrReply(c, 3, &opt, 0) != C_OK) return;

    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        replyConst(c, "*2\r\n$1\r\n0\r\n");
        if (!opt.pattern) {
            replyArrayLen(c, (long)lpLength(lp));
            for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) hashReplyLpEntry(c, p);
            return;
        }
        void *dl = replyDeferredLen(c);
        long n = 0;
        for (unsigned char *fp = lpFirst(lp); fp; fp = lpNext(lp, fp)) {
            unsigned char *vp = lpNext(lp, fp);
            char buf[LP_INTBUF_SIZE];
            hashItem f;
            hashItemFromLp(fp, &f);
            const char *s = (const char *)f.s;
            size_t len = f.len;
            if (!s) {
                len = ll2string(buf, sizeof(buf), f.ll);
                s = buf;
            }
            if (scanMatches(&opt, s, len)) {
                replyBulkBuf(c, s, len);
                hashReplyLpEntry(c, vp);
                n += 2;
            }
            fp = vp;
        }
        replySetDeferredArrayLen(c, dl, n);
        return;
    }

    hashScanState st = {NULL, 0, 0};
    long maxiterations = opt.count * 10;
    do {
        cursor = dictScan(o->ptr, cursor, hashScanCallback, &st);
    } while (cursor && maxiterations-- && st.count < (unsigned long)opt.count);
    unsigned long n = 0;
    for (unsigned long j = 0; j < st.count; j += 2) {
        if (!scanMatches(&opt, st.items[j], sdslen(st.items[j]))) continue;
        st.items[n++] = st.items[j];
        st.items[n++] = st.items[j + 1];
    }
    replyArrayLen(c, 2);
    replyBulkLongLong(c, (long long)cursor);
    replyArrayLen(c, (long)n);
    for (unsigned long j = 0; j < n; j++) hashReplySds(c, st.items[j]);
    zfree(st.items);
}
