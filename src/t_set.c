/* t_set: the set type and its commands (SADD ... SSCAN) with Redis 7.0
 * semantics.
 *
 * Encodings are Redis 7.0's, so OBJECT ENCODING and (later) snapshots agree:
 *  - "intset" while every member is a canonical integer (string2ll) and the
 *    set holds at most set-max-intset-entries members;
 *  - "hashtable" otherwise: a dict of sds member -> NULL. A set never goes
 *    back to an intset (neither does Redis 7.0), but a set built from
 *    scratch (SINTERSTORE & co., SPOP's rebuilt remainder) starts as an
 *    intset again, exactly as Redis builds it.
 *
 * Members enter as argument sds strings and are copied into the set
 * (sdsnewkey: members never grow). Lookups of integers coming from an intset
 * against a dict use a decimal sds built on the stack, so membership tests
 * allocate nothing. Replies are written straight from the encoding (one
 * length header, then a bulk per member), never through a robj per member.
 *
 * Writes look their key up once (dbFindForWrite), reply, then signal the
 * change and fire Redis' keyspace events. Random commands are propagated in a
 * form that replays identically: SPOP becomes SREM of the popped members, or
 * DEL when the whole set went. */
#include "args.h"
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "keys.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "intset.h"
#include "t_set.h"

#include <stdlib.h>

/* ---- the set type ---- */

static dictType setDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor,
                               NULL, NULL};

/* An sds on the stack holding the decimal form of an integer, to probe a
 * dict keyed by sds without allocating. The type-8 header sits at the end
 * of room for the largest header, so that sdslen's switch (which the
 * compiler sees reading any header size) stays inside the object. */
typedef struct setNumSds {
    char raw[sizeof(struct sdshdr64) + LONG_STR_SIZE];
} setNumSds;

static sds setNumToSds(setNumSds *b, long long v) {
    struct sdshdr8 *sh =
        (struct sdshdr8 *)(b->raw + sizeof(struct sdshdr64) - sizeof(struct sdshdr8));
    int len = ll2string(sh->buf, LONG_STR_SIZE, v);
    sh->len = sh->alloc = (uint8_t)len;
    sh->flags = SDS_TYPE_8;
    return sh->buf;
}

static robj *setCreateIntset(void) {
    robj *o = createObject(OBJ_SET, intsetNew());
    o->encoding = OBJ_ENCODING_INTSET;
    return o;
}

static robj *setCreateHT(void) {
    robj *o = createObject(OBJ_SET, dictCreate(&setDictType));
    o->encoding = OBJ_ENCODING_HT;
    return o;
}

static int setIsInt(sds m, long long *v) { return string2ll(m, sdslen(m), v); }

/* The empty set Redis would create to hold `first`: an intset if it is an
 * integer, a dict otherwise. */
static robj *setCreateFor(sds first) {
    long long v;
    return setIsInt(first, &v) ? setCreateIntset() : setCreateHT();
}

static unsigned long setSize(const robj *set) {
    if (set->encoding == OBJ_ENCODING_INTSET) return intsetLen(set->ptr);
    return dictSize((const dict *)set->ptr);
}

static void setConvertToHT(robj *set) {
    intset *is = set->ptr;
    dict *d = dictCreate(&setDictType);
    uint32_t n = intsetLen(is);
    dictExpand(d, n);
    char buf[LONG_STR_SIZE];
    int64_t v;
    for (uint32_t j = 0; intsetGet(is, j, &v); j++) {
        int len = ll2string(buf, sizeof(buf), v);
        dictAdd(d, sdsnewkey(buf, len), NULL);
    }
    zfree(is);
    set->ptr = d;
    set->encoding = OBJ_ENCODING_HT;
}

/* Add an sds member to a dict set: one search, allocation only if new. */
static int setDictAdd(dict *d, sds m) {
    dictInsertPos pos;
    if (dictFindOrPos(d, m, &pos)) return 0;
    dictInsertAtPos(d, sdsnewkey(m, sdslen(m)), &pos);
    return 1;
}

static void setIntsetAdded(robj *set) {
    if ((long long)intsetLen(set->ptr) > cfg.set_max_intset_entries) setConvertToHT(set);
}

/* 1 if m was added, 0 if already present. m is only read. */
static int setAdd(robj *set, sds m) {
    if (set->encoding == OBJ_ENCODING_INTSET) {
        long long v;
        if (setIsInt(m, &v)) {
            uint8_t added;
            set->ptr = intsetAdd(set->ptr, v, &added);
            if (added) setIntsetAdded(set);
            return added;
        }
        setConvertToHT(set);
    }
    return setDictAdd(set->ptr, m);
}

static int setAddInt(robj *set, int64_t v) {
    if (set->encoding == OBJ_ENCODING_INTSET) {
        uint8_t added;
        set->ptr = intsetAdd(set->ptr, v, &added);
        if (added) setIntsetAdded(set);
        return added;
    }
    setNumSds b;
    return setDictAdd(set->ptr, setNumToSds(&b, v));
}

/* Shrink a dict that deletions left mostly empty (under 10% full), as
 * Redis does after SREM, so it does not keep a huge table. */
static void setMaybeShrink(dict *d) {
    unsigned long slots = dictSlots(d);
    if (slots > DICT_HT_INITIAL_SIZE && dictSize(d) * 100 / slots < 10) dictResize(d);
}

static int setRemove(robj *set, sds m) {
    if (set->encoding == OBJ_ENCODING_INTSET) {
        long long v;
        int removed = 0;
        if (setIsInt(m, &v)) set->ptr = intsetRemove(set->ptr, v, &removed);
        return removed;
    }
    if (dictDelete(set->ptr, m) != DICT_OK) return 0;
    setMaybeShrink(set->ptr);
    return 1;
}

static int setRemoveInt(robj *set, int64_t v) {
    if (set->encoding == OBJ_ENCODING_INTSET) {
        int removed = 0;
        set->ptr = intsetRemove(set->ptr, v, &removed);
        return removed;
    }
    setNumSds b;
    return setRemove(set, setNumToSds(&b, v));
}

static int setHas(robj *set, sds m) {
    if (set->encoding == OBJ_ENCODING_INTSET) {
        long long v;
        return setIsInt(m, &v) && intsetFind(set->ptr, v);
    }
    return dictFind(set->ptr, m) != NULL;
}

static int setHasInt(robj *set, int64_t v) {
    if (set->encoding == OBJ_ENCODING_INTSET) return intsetFind(set->ptr, v);
    setNumSds b;
    return dictFind(set->ptr, setNumToSds(&b, v)) != NULL;
}

/* Iteration (setTypeIterator, t_set.h): each member comes out either as an
 * sds (dict sets, *m set) or as an integer (intsets, *m NULL). The set must
 * not change meanwhile. */
typedef setTypeIterator setIter;

static void setIterInit(setIter *it, robj *set) {
    it->set = set;
    it->pos = 0;
    if (set->encoding == OBJ_ENCODING_HT) dictInitIterator(&it->di, set->ptr);
}

static int setIterNext(setIter *it, sds *m, int64_t *v) {
    if (it->set->encoding == OBJ_ENCODING_INTSET) {
        *m = NULL;
        return intsetGet(it->set->ptr, it->pos++, v);
    }
    dictEntry *de = dictNext(&it->di);
    if (!de) return 0;
    *m = dictGetKey(de);
    *v = 0;
    return 1;
}

static void setIterDone(setIter *it) {
    if (it->set->encoding == OBJ_ENCODING_HT) dictResetIterator(&it->di);
}

/* ---- the interface for other modules (t_set.h) ---- */

unsigned long setTypeSize(const robj *set) { return setSize(set); }

void setTypeInitIterator(setTypeIterator *it, robj *set) { setIterInit(it, set); }

int setTypeNext(setTypeIterator *it, const char **str, size_t *len, long long *ll) {
    sds m;
    int64_t v;
    if (!setIterNext(it, &m, &v)) return 0;
    *str = m;
    *len = m ? sdslen(m) : 0;
    *ll = v;
    return 1;
}

void setTypeResetIterator(setTypeIterator *it) { setIterDone(it); }

int setTypeIsMemberInt(robj *set, long long ll) { return setHasInt(set, ll); }

robj *setTypeCreateIntset(void) { return setCreateIntset(); }
robj *setTypeCreateDict(unsigned long size) {
    robj *set = setCreateHT();
    if (size) dictTryExpand(set->ptr, size < (1UL << 24) ? size : (1UL << 24));
    return set;
}
int setTypeAddSds(robj *set, sds member) { return setAdd(set, member); }
int setTypeAddSdsOwned(robj *set, sds member) {
    if (set->encoding != OBJ_ENCODING_HT) {
        int added = setAdd(set, member);
        sdsfree(member);
        return added;
    }
    dictInsertPos pos;
    if (dictFindOrPos(set->ptr, member, &pos)) {
        sdsfree(member);
        return 0;
    }
    dictInsertAtPos(set->ptr, member, &pos);
    return 1;
}
void setTypeConvertToDict(robj *set) {
    if (set->encoding == OBJ_ENCODING_INTSET) setConvertToHT(set);
}

int setTypeIsMember(robj *set, const char *str, size_t len) {
    long long v;
    if (set->encoding == OBJ_ENCODING_INTSET)
        return string2ll(str, len, &v) && intsetFind(set->ptr, v);
    /* The dict is keyed by sds: short probes get a stack sds (type-8 header
     * at the end of room for the largest header, see setNumSds). */
    char raw[sizeof(struct sdshdr64) + 256];
    if (len < 256) {
        struct sdshdr8 *sh =
            (struct sdshdr8 *)(raw + sizeof(struct sdshdr64) - sizeof(struct sdshdr8));
        sh->len = sh->alloc = (uint8_t)len;
        sh->flags = SDS_TYPE_8;
        memcpy(sh->buf, str, len);
        sh->buf[len] = '\0';
        return dictFind(set->ptr, sh->buf) != NULL;
    }
    sds probe = sdsnewlen(str, len);
    int found = dictFind(set->ptr, probe) != NULL;
    sdsfree(probe);
    return found;
}

/* A random member, in the same form as setIterNext. */
static void setRandom(robj *set, sds *m, int64_t *v) {
    if (set->encoding == OBJ_ENCODING_INTSET) {
        *m = NULL;
        *v = intsetRandom(set->ptr);
    } else {
        *m = dictGetKey(dictGetFairRandomKey(set->ptr));
        *v = 0;
    }
}

static int setMemberAdd(robj *set, sds m, int64_t v) { return m ? setAdd(set, m) : setAddInt(set, v); }
static int setMemberRemove(robj *set, sds m, int64_t v) {
    return m ? setRemove(set, m) : setRemoveInt(set, v);
}
static int setMemberHas(robj *set, sds m, int64_t v) { return m ? setHas(set, m) : setHasInt(set, v); }

static void setReplyMember(client *c, sds m, int64_t v) {
    if (m) replyBulkBuf(c, m, sdslen(m));
    else replyBulkLongLong(c, v);
}

static robj *setMemberObject(sds m, int64_t v) {
    return m ? createStringObject(m, sdslen(m)) : createStringObjectFromLongLong(v);
}

/* Every member, in the set's own order, after a set (RESP3 '~') or array
 * header. */
static void setReplyAll(client *c, robj *set, int as_set) {
    unsigned long n = setSize(set);
    if (as_set) replySetLen(c, n);
    else replyArrayLen(c, n);
    setIter it;
    sds m;
    int64_t v;
    setIterInit(&it, set);
    while (setIterNext(&it, &m, &v)) setReplyMember(c, m, v);
    setIterDone(&it);
}

/* ---- object operations (free, COPY, MEMORY USAGE) ---- */

static void setObjFree(robj *o) {
    if (o->encoding == OBJ_ENCODING_INTSET) zfree(o->ptr);
    else dictRelease(o->ptr);
}

static robj *setObjDup(robj *o) {
    if (o->encoding == OBJ_ENCODING_INTSET) {
        size_t len = intsetBlobLen(o->ptr);
        intset *is = zmalloc(len);
        memcpy(is, o->ptr, len);
        robj *d = createObject(OBJ_SET, is);
        d->encoding = OBJ_ENCODING_INTSET;
        return d;
    }
    /* The copy keeps the dict encoding even if every member is an integer,
     * as Redis' COPY does. */
    robj *d = setCreateHT();
    dictExpand(d->ptr, dictSize((dict *)o->ptr));
    setIter it;
    sds m;
    int64_t v;
    setIterInit(&it, o);
    while (setIterNext(&it, &m, &v)) dictAdd(d->ptr, sdsnewkey(m, sdslen(m)), NULL);
    setIterDone(&it);
    return d;
}

#define SET_SIZE_SAMPLES 5

/* Like Redis' MEMORY USAGE: exact for intsets, the table plus a sampled
 * average member size for dicts. */
static size_t setObjSize(robj *o) {
    if (o->encoding == OBJ_ENCODING_INTSET) return zmalloc_size(o->ptr);
    dict *d = o->ptr;
    size_t size = sizeof(dict) + dictSlots(d) * sizeof(dictEntry *);
    unsigned long n = dictSize(d);
    if (n == 0) return size;
    size_t sampled = 0;
    unsigned long count = 0;
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, d);
    while (count < SET_SIZE_SAMPLES && (de = dictNext(&di)) != NULL) {
        sampled += sizeof(dictEntry) + sdsAllocSize(dictGetKey(de));
        count++;
    }
    dictResetIterator(&di);
    return size + sampled * n / count;
}

static size_t setObjFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_HT ? dictSize((dict *)o->ptr) : 1;
}

__attribute__((constructor)) static void setRegisterType(void) {
    objectTypes[OBJ_SET] = (objectTypeOps){setObjFree, setObjDup, setObjSize, setObjFreeEffort};
}

/* ---- shared objects for propagation ---- */

static robj *objSrem, *objDel;

static void setSharedInit(void) {
    if (objSrem) return;
    objSrem = createStringObject("SREM", 4);
    objDel = createStringObject("DEL", 3);
}

static robj *setRef(robj *o) {
    incrRefCount(o);
    return o;
}

/* Replace the command's argv with argv[0..argc) (references taken over). */
static void setRewriteArgv(client *c, robj **argv, int argc) { clientReplaceArgv(c, argv, argc); }

/* ---- single-key commands ---- */

/* Read lookup: the set, or NULL after replying `missing` (a complete RESP
 * reply) for an absent key or WRONGTYPE for another type. */
static robj *setLookupReadOrReply(client *c, robj *key, const char *missing, size_t len) {
    robj *o = dbLookupRead(c->db, key);
    if (!o) {
        replyRaw(c, missing, len);
        return NULL;
    }
    if (o->type != OBJ_SET) {
        replyErrorWrongType(c);
        return NULL;
    }
    return o;
}

#define REPLY_ZERO ":0\r\n", 4
#define REPLY_EMPTY_ARRAY "*0\r\n", 4
#define REPLY_EMPTY_SCAN "*2\r\n$1\r\n0\r\n*0\r\n", 15

/* Write lookup: the set at ref (NULL if absent); -1 after WRONGTYPE. */
static int setLookupWrite(client *c, keyRef *ref, robj **set) {
    dbFindForWrite(c->db, c->argv[1], ref);
    *set = NULL;
    if (!ref->de) return 0;
    robj *o = dictGetVal(ref->de);
    if (o->type != OBJ_SET) {
        replyErrorWrongType(c);
        return -1;
    }
    *set = o;
    return 0;
}

void saddCommand(client *c) {
    keyRef ref;
    robj *set;
    if (setLookupWrite(c, &ref, &set) < 0) return;
    if (!set) {
        set = setCreateFor(c->argv[2]->ptr);
        dbSetValue(&ref, set);
    }
    long long added = 0;
    for (int j = 2; j < c->argc; j++) added += setAdd(set, c->argv[j]->ptr);
    if (added) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_SET, "sadd", c->argv[1], c->db->id);
    }
    server.dirty += added;
    replyLongLong(c, added); /* after the event, as Redis */
}

void sremCommand(client *c) {
    keyRef ref;
    robj *set;
    if (setLookupWrite(c, &ref, &set) < 0) return;
    if (!set) {
        replyRaw(c, REPLY_ZERO);
        return;
    }
    long long deleted = 0;
    int emptied = 0;
    for (int j = 2; j < c->argc; j++) {
        if (!setRemove(set, c->argv[j]->ptr)) continue;
        deleted++;
        if (setSize(set) == 0) {
            emptied = 1;
            break;
        }
    }
    if (emptied) dbDelete(c->db, c->argv[1]);
    if (deleted) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_SET, "srem", c->argv[1], c->db->id);
        if (emptied) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        server.dirty += deleted;
    }
    replyLongLong(c, deleted); /* after the events, as Redis */
}

void scardCommand(client *c) {
    robj *set = setLookupReadOrReply(c, c->argv[1], REPLY_ZERO);
    if (set) replyLongLong(c, (long long)setSize(set));
}

void sismemberCommand(client *c) {
    robj *set = setLookupReadOrReply(c, c->argv[1], REPLY_ZERO);
    if (!set) return;
    if (setHas(set, c->argv[2]->ptr)) replyConst(c, ":1\r\n");
    else replyConst(c, ":0\r\n");
}

void smismemberCommand(client *c) {
    robj *set = dbLookupRead(c->db, c->argv[1]);
    if (checkType(c, set, OBJ_SET)) return;
    replyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        if (set && setHas(set, c->argv[j]->ptr)) replyConst(c, ":1\r\n");
        else replyConst(c, ":0\r\n");
    }
}

void smembersCommand(client *c) {
    robj *set = dbLookupRead(c->db, c->argv[1]);
    if (checkType(c, set, OBJ_SET)) return;
    if (!set) {
        replySetLen(c, 0);
        return;
    }
    setReplyAll(c, set, 1);
}

void smoveCommand(client *c) {
    robj *src = dbLookupWrite(c->db, c->argv[1]);
    keyRef dref;
    dbFindForWrite(c->db, c->argv[2], &dref);
    robj *dst = dref.de ? dictGetVal(dref.de) : NULL;
    sds ele = c->argv[3]->ptr;
    if (!src) {
        replyRaw(c, REPLY_ZERO);
        return;
    }
    if (checkType(c, src, OBJ_SET) || checkType(c, dst, OBJ_SET)) return;
    if (src == dst) {
        if (setHas(src, ele)) replyConst(c, ":1\r\n");
        else replyConst(c, ":0\r\n");
        return;
    }
    if (!setRemove(src, ele)) {
        replyRaw(c, REPLY_ZERO);
        return;
    }
    /* Events in Redis' order: srem and del of the source come before the
     * destination is created (dbSetValue may announce a new key). */
    notifyKeyspaceEvent(NOTIFY_SET, "srem", c->argv[1], c->db->id);
    if (setSize(src) == 0) {
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        /* The deletion changed the keyspace: dref's insert position is
         * stale, so an absent destination is looked up again. */
        if (!dst) dbFindForWrite(c->db, c->argv[2], &dref);
    }
    if (!dst) {
        dst = setCreateFor(ele);
        dbSetValue(&dref, dst);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty++;
    if (setAdd(dst, ele)) {
        server.dirty++;
        signalModifiedKey(c, c->db, c->argv[2]);
        notifyKeyspaceEvent(NOTIFY_SET, "sadd", c->argv[2], c->db->id);
    }
    replyConst(c, ":1\r\n"); /* after the events, as Redis */
}

/* ---- random members ---- */

/* SPOP pops count members one by one while few are taken; when most of the
 * set goes, it is cheaper to draw the members that stay into a new set and
 * hand out the rest (Redis' factor). */
#define SPOP_MOVE_STRATEGY_MUL 5

static void spopWithCount(client *c) {
    long count;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    keyRef ref;
    robj *set;
    if (setLookupWrite(c, &ref, &set) < 0) return;
    if (!set || count == 0) {
        replySetLen(c, 0);
        return;
    }
    robj *key = c->argv[1];
    unsigned long size = setSize(set);
    setSharedInit();

    if ((unsigned long)count >= size) {
        /* The whole set goes: reply it, delete the key, replay as DEL. */
        /* Redis' order: spop event, the reply, del event. Our own
         * reference keeps the set alive for the reply. */
        incrRefCount(set);
        notifyKeyspaceEvent(NOTIFY_SET, "spop", key, c->db->id);
        setReplyAll(c, set, 1);
        incrRefCount(key);
        dbDelete(c->db, key);
        decrRefCount(set);
        server.dirty += size;
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        robj **argv = zmalloc(sizeof(robj *) * 2);
        argv[0] = setRef(objDel);
        argv[1] = key;
        setRewriteArgv(c, argv, 2);
        return;
    }

    /* Propagated as one SREM of every popped member. */
    robj **argv = zmalloc(sizeof(robj *) * (count + 2));
    argv[0] = setRef(objSrem);
    argv[1] = setRef(key);
    int argc = 2;
    unsigned long remaining = size - count;
    sds m;
    int64_t v;
    /* Redis announces spop before the reply. */
    notifyKeyspaceEvent(NOTIFY_SET, "spop", key, c->db->id);
    replySetLen(c, count);
    if (remaining * SPOP_MOVE_STRATEGY_MUL > (unsigned long)count) {
        while (count--) {
            setRandom(set, &m, &v);
            setReplyMember(c, m, v);
            /* The object is made before the removal frees the member. */
            argv[argc++] = setMemberObject(m, v);
            setMemberRemove(set, m, v);
        }
    } else {
        /* Draw the members that stay into a new set (created the way Redis
         * creates it, so its encoding matches), then pop all the others. */
        robj *keep = NULL;
        while (remaining--) {
            setRandom(set, &m, &v);
            if (!keep) {
                if (m) keep = setCreateFor(m);
                else keep = setCreateIntset();
            }
            setMemberAdd(keep, m, v);
            setMemberRemove(set, m, v);
        }
        setIter it;
        setIterInit(&it, set);
        while (setIterNext(&it, &m, &v)) {
            setReplyMember(c, m, v);
            argv[argc++] = setMemberObject(m, v);
        }
        setIterDone(&it);
        dbOverwriteValue(&ref, keep);
    }
    server.dirty += argc - 2;
    signalModifiedKey(c, c->db, key);
    setRewriteArgv(c, argv, argc);
}

void spopCommand(client *c) {
    if (c->argc == 3) {
        spopWithCount(c);
        return;
    }
    if (c->argc > 3) {
        replyErrorSyntax(c);
        return;
    }
    keyRef ref;
    robj *set;
    if (setLookupWrite(c, &ref, &set) < 0) return;
    if (!set) {
        replyNull(c);
        return;
    }
    robj *key = c->argv[1];
    sds m;
    int64_t v;
    setRandom(set, &m, &v);
    robj *ele = setMemberObject(m, v);
    setMemberRemove(set, m, v);
    int emptied = setSize(set) == 0;
    incrRefCount(key);
    if (emptied) dbDelete(c->db, key);
    server.dirty++;
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_SET, "spop", key, c->db->id);
    replyBulk(c, ele); /* our own object; between spop and del, as Redis */
    if (emptied) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    setSharedInit();
    clientRewriteArgv(c, 3, setRef(objSrem), key, ele);
}

/* SRANDMEMBER with a count below the set size: when the count is close to
 * the size, copy the set and drop random members; otherwise draw random
 * members until enough distinct ones were found (Redis' factor). */
#define SRANDMEMBER_SUB_STRATEGY_MUL 3

static void srandmemberWithCount(client *c) {
    long l;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
    int uniq = l >= 0;
    unsigned long count = uniq ? (unsigned long)l : (unsigned long)-l;
    robj *set = setLookupReadOrReply(c, c->argv[1], REPLY_EMPTY_ARRAY);
    if (!set) return;
    if (count == 0) {
        replyConst(c, "*0\r\n");
        return;
    }
    sds m;
    int64_t v;
    unsigned long size = setSize(set);
    if (!uniq || count == 1) {
        /* Repeats allowed: independent draws. */
        replyArrayLen(c, count);
        while (count--) {
            setRandom(set, &m, &v);
            setReplyMember(c, m, v);
            if (c->flags & CLIENT_CLOSE_ASAP) break;
        }
        return;
    }
    if (count >= size) {
        setReplyAll(c, set, 0);
        return;
    }
    dict *d = dictCreate(&setDictType);
    setNumSds b;
    if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
        dictExpand(d, size);
        setIter it;
        setIterInit(&it, set);
        while (setIterNext(&it, &m, &v)) {
            sds s = m ? m : setNumToSds(&b, v);
            dictAdd(d, sdsnewkey(s, sdslen(s)), NULL);
        }
        setIterDone(&it);
        while (size-- > count) {
            dictEntry *de = dictGetFairRandomKey(d);
            dictDelete(d, dictGetKey(de));
        }
    } else {
        dictExpand(d, count);
        while (dictSize(d) < count) {
            setRandom(set, &m, &v);
            setDictAdd(d, m ? m : setNumToSds(&b, v));
        }
    }
    replyArrayLen(c, count);
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, d);
    while ((de = dictNext(&di)) != NULL) replyBulkBuf(c, dictGetKey(de), sdslen(dictGetKey(de)));
    dictResetIterator(&di);
    dictRelease(d);
}

void srandmemberCommand(client *c) {
    if (c->argc == 3) {
        srandmemberWithCount(c);
        return;
    }
    if (c->argc > 3) {
        replyErrorSyntax(c);
        return;
    }
    robj *set = dbLookupRead(c->db, c->argv[1]);
    if (!set) {
        replyNull(c);
        return;
    }
    if (checkType(c, set, OBJ_SET)) return;
    sds m;
    int64_t v;
    setRandom(set, &m, &v);
    setReplyMember(c, m, v);
}

/* ---- multi-key operations ---- */

/* Look up every source set for reading. Missing keys are NULL (empty sets);
 * returns -1 after WRONGTYPE, else the number of missing keys. */
static long setLookupSources(client *c, robj **keys, long n, robj **sets) {
    long missing = 0;
    for (long j = 0; j < n; j++) {
        robj *o = dbLookupRead(c->db, keys[j]);
        if (o && o->type != OBJ_SET) {
            replyErrorWrongType(c);
            return -1;
        }
        sets[j] = o;
        if (!o) missing++;
    }
    return missing;
}

/* Store a computed set at dstkey (replacing any value and its TTL) and reply
 * its size, or delete dstkey and reply 0 when the result is empty. Takes the
 * reference to result. */
static void setStoreResult(client *c, robj *dstkey, robj *result, const char *event) {
    unsigned long size = result ? setSize(result) : 0;
    if (size == 0) {
        if (result) decrRefCount(result);
        replyRaw(c, REPLY_ZERO);
        if (dbDelete(c->db, dstkey)) {
            server.dirty++;
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
        }
        return;
    }
    keyRef ref;
    dbFindForWrite(c->db, dstkey, &ref);
    int existed = ref.de != NULL;
    dbSetValue(&ref, result);
    if (existed) dbRemoveExpireEntry(c->db, ref.de);
    replyLongLong(c, (long long)size);
    server.dirty++;
    signalModifiedKey(c, c->db, dstkey);
    notifyKeyspaceEvent(NOTIFY_SET, event, dstkey, c->db->id);
}

typedef struct setBySize {
    robj *set;
    unsigned long size;
    long idx;
} setBySize;

/* Smallest first; equal sizes keep their argument order (a stable sort, as
 * glibc's qsort is for Redis), which decides whose member order SINTER shows. */
static int setCompareBySize(const void *a, const void *b) {
    const setBySize *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

#define SINTER_REPLY 0
#define SINTER_STORE 1
#define SINTER_CARD  2

/* Intersection: walk the smallest set and keep the members every other set
 * has. Replies the members, stores them at dstkey, or counts them (stopping
 * at limit when it is not 0). */
static void sinterGeneric(client *c, robj **keys, long n, robj *dstkey, int mode,
                          unsigned long limit) {
    setBySize *sets = zmalloc(sizeof(setBySize) * n);
    robj **objs = zmalloc(sizeof(robj *) * n);
    long missing = setLookupSources(c, keys, n, objs);
    if (missing < 0) goto done;
    if (missing > 0) {
        if (mode == SINTER_STORE) setStoreResult(c, dstkey, NULL, "sinterstore");
        else if (mode == SINTER_CARD) replyRaw(c, REPLY_ZERO);
        else replySetLen(c, 0);
        goto done;
    }
    for (long j = 0; j < n; j++) {
        sets[j].set = objs[j];
        sets[j].size = setSize(objs[j]);
        sets[j].idx = j;
    }
    qsort(sets, n, sizeof(setBySize), setCompareBySize);

    robj *result = mode == SINTER_STORE ? setCreateIntset() : NULL;
    void *lenslot = mode == SINTER_REPLY ? replyDeferredLen(c) : NULL;
    unsigned long found = 0;
    robj *first = sets[0].set;
    setIter it;
    sds m;
    int64_t v;
    setIterInit(&it, first);
    while (setIterNext(&it, &m, &v)) {
        long j;
        for (j = 1; j < n; j++) {
            if (sets[j].set == first) continue;
            if (!setMemberHas(sets[j].set, m, v)) break;
        }
        if (j < n) continue;
        found++;
        if (mode == SINTER_REPLY) {
            setReplyMember(c, m, v);
        } else if (mode == SINTER_STORE) {
            setMemberAdd(result, m, v);
        } else if (limit && found >= limit) {
            break;
        }
    }
    setIterDone(&it);
    if (mode == SINTER_REPLY) replySetDeferredSetLen(c, lenslot, found);
    else if (mode == SINTER_CARD) replyLongLong(c, (long long)found);
    else setStoreResult(c, dstkey, result, "sinterstore");
done:
    zfree(objs);
    zfree(sets);
}

void sinterCommand(client *c) { sinterGeneric(c, c->argv + 1, c->argc - 1, NULL, SINTER_REPLY, 0); }

void sinterstoreCommand(client *c) {
    sinterGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SINTER_STORE, 0);
}

void sintercardCommand(client *c) {
    long numkeys, limit = 0;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys > c->argc - 2) {
        replyError(c, "ERR Number of keys can't be greater than number of args");
        return;
    }
    for (long j = 2 + numkeys; j < c->argc; j++) {
        if (argEq(c->argv[j], "limit") && j + 1 < c->argc) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &limit, "LIMIT can't be negative") !=
                C_OK)
                return;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    sinterGeneric(c, c->argv + 2, numkeys, NULL, SINTER_CARD, (unsigned long)limit);
}

#define SET_OP_UNION 0
#define SET_OP_DIFF  1

/* Union and difference build the result as a new set (it starts as an
 * intset, like Redis', so an all-integer result is ordered and encoded as
 * Redis' is), then reply it or store it. */
static void sunionDiffGeneric(client *c, robj **keys, long n, robj *dstkey, int op) {
    robj **sets = zmalloc(sizeof(robj *) * n);
    if (setLookupSources(c, keys, n, sets) < 0) {
        zfree(sets);
        return;
    }
    robj *result = setCreateIntset();
    setIter it;
    sds m;
    int64_t v;
    if (op == SET_OP_UNION) {
        for (long j = 0; j < n; j++) {
            if (!sets[j]) continue;
            setIterInit(&it, sets[j]);
            while (setIterNext(&it, &m, &v)) setMemberAdd(result, m, v);
            setIterDone(&it);
        }
    } else if (sets[0]) {
        int sameset = 0;
        for (long j = 1; j < n; j++)
            if (sets[j] == sets[0]) sameset = 1;
        /* Walking the first set and probing the others costs about
         * |first| * n; copying the first set and removing every other set's
         * members costs the sum of the sizes. Like Redis, pick the cheaper
         * (the first method gets a 2x bonus). The choice shows: the second
         * builds the result from all of the first set, so its encoding can
         * differ. */
        long long work1 = 0, work2 = 0;
        for (long j = 0; j < n && !sameset; j++) {
            if (!sets[j]) continue;
            work1 += setSize(sets[0]);
            work2 += setSize(sets[j]);
        }
        work1 /= 2;
        if (sameset) {
            /* A set minus itself: empty. */
        } else if (work1 <= work2) {
            setIterInit(&it, sets[0]);
            while (setIterNext(&it, &m, &v)) {
                long j;
                for (j = 1; j < n; j++)
                    if (sets[j] && setMemberHas(sets[j], m, v)) break;
                if (j == n) setMemberAdd(result, m, v);
            }
            setIterDone(&it);
        } else {
            for (long j = 0; j < n; j++) {
                if (!sets[j]) continue;
                setIterInit(&it, sets[j]);
                while (setIterNext(&it, &m, &v)) {
                    if (j == 0) setMemberAdd(result, m, v);
                    else setMemberRemove(result, m, v);
                }
                setIterDone(&it);
                if (setSize(result) == 0) break;
            }
        }
    }
    zfree(sets);
    if (dstkey) {
        setStoreResult(c, dstkey, result, op == SET_OP_UNION ? "sunionstore" : "sdiffstore");
    } else {
        setReplyAll(c, result, 1);
        decrRefCount(result);
    }
}

void sunionCommand(client *c) { sunionDiffGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_UNION); }

void sunionstoreCommand(client *c) {
    sunionDiffGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_UNION);
}

void sdiffCommand(client *c) { sunionDiffGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_DIFF); }

void sdiffstoreCommand(client *c) {
    sunionDiffGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_DIFF);
}

/* ---- SSCAN ---- */

typedef struct setScanState {
    sds *members;
    unsigned long count, cap;
} setScanState;

static void setScanCallback(void *privdata, const dictEntry *de) {
    setScanState *st = privdata;
    if (st->count == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 16;
        st->members = zrealloc(st->members, sizeof(sds) * st->cap);
    }
    st->members[st->count++] = dictGetKey(de);
}

/* Intsets are returned whole with cursor 0 (whatever cursor was given), as
 * Redis does for its compact encodings; dicts are scanned a few buckets at
 * a time. MATCH filters after collecting, so COUNT counts candidates. */
void sscanCommand(client *c) {
    unsigned long cursor;
    if (scanParseCursorOrReply(c, c->argv[2], &cursor) != C_OK) return;
    robj *set = setLookupReadOrReply(c, c->argv[1], REPLY_EMPTY_SCAN);
    if (!set) return;
    scanOptions opt;
    if (scanParseOptionsOrReply(c, 3, &opt, 0) != C_OK) return;
    replyArrayLen(c, 2);
    if (set->encoding == OBJ_ENCODING_INTSET) {
        replyBulkCString(c, "0");
        void *lenslot = replyDeferredLen(c);
        long n = 0;
        char buf[LONG_STR_SIZE];
        int64_t v;
        for (uint32_t j = 0; intsetGet(set->ptr, j, &v); j++) {
            int len = ll2string(buf, sizeof(buf), v);
            if (!scanMatches(&opt, buf, len)) continue;
            replyBulkBuf(c, buf, len);
            n++;
        }
        replySetDeferredArrayLen(c, lenslot, n);
        return;
    }
    setScanState st = {NULL, 0, 0};
    long maxiterations = opt.count * 10;
    do {
        cursor = dictScan(set->ptr, cursor, setScanCallback, &st);
    } while (cursor && maxiterations-- && st.count < (unsigned long)opt.count);
    replyBulkLongLong(c, (long long)cursor);
    unsigned long n = 0;
    for (unsigned long j = 0; j < st.count; j++)
        if (scanMatches(&opt, st.members[j], sdslen(st.members[j]))) st.members[n++] = st.members[j];
    replyArrayLen(c, n);
    for (unsigned long j = 0; j < n; j++) replyBulkBuf(c, st.members[j], sdslen(st.members[j]));
    zfree(st.members);
}
