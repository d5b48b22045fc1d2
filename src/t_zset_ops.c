/* t_zset_ops: the sorted set commands that pop, block or combine keys:
 * ZPOPMIN ZPOPMAX ZMPOP BZPOPMIN BZPOPMAX BZMPOP, ZUNION ZINTER ZDIFF and
 * their *STORE forms, ZINTERCARD, and ZRANDMEMBER.
 *
 * Pops reply from the encoding and then remove what they replied. The
 * blocking forms serve a non-empty key at once or hand the client to
 * blocked.c, which re-runs the command when one of the keys is created;
 * whichever way a pop happens it is propagated as the plain pop Redis 7.0
 * writes (ZPOPMIN/ZPOPMAX key, with the count for ZMPOP and BZMPOP).
 *
 * Set operations read their inputs in place and build the result as a skip
 * list; Z*STORE compacts it to a listpack when small, as Redis does. The
 * inputs are ordered by size (stable, so floating point sums add up in the
 * same order as Redis') for UNION and INTER; DIFF keeps the first key
 * first. Plain sets are accepted as inputs, every member scoring 1, and
 * are read through t_set.h's iterator. */
#include "args.h"
#include "client.h"
#include "commands.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "blocked.h"
#include "t_set.h"
#include "t_zset.h"
#include "zset.h"

#include <math.h>
#include <stdlib.h>

#define ZSET_MIN 0
#define ZSET_MAX 1

static robj *objZpopmin, *objZpopmax;

static void zsetOpsSharedInit(void) {
    if (objZpopmin) return;
    objZpopmin = createStringObject("ZPOPMIN", 7);
    objZpopmax = createStringObject("ZPOPMAX", 7);
}

static robj *zsetRef(robj *o) {
    incrRefCount(o);
    return o;
}

/* Replace argv with what replicas and the AOF should replay: ZPOPMIN key,
 * or, when count >= 0, ZPOPMIN key count. Redis 7.0 writes the number of
 * elements actually popped as the count. */
static void zpopRewriteArgv(client *c, robj *key, int where, long count) {
    zsetOpsSharedInit();
    robj *cmd = zsetRef(where == ZSET_MAX ? objZpopmax : objZpopmin);
    incrRefCount(key); /* key may be one of the argv being released */
    if (count < 0) clientRewriteArgv(c, 2, cmd, key);
    else clientRewriteArgv(c, 3, cmd, key, createStringObjectFromLongLong(count));
}

/* ---------------------------------------------------------------------------
 * Pops
 * ------------------------------------------------------------------------ */

/* The first existing key of keys[] and its value: 1 if found, 0 if none
 * exists, -1 after replying WRONGTYPE (the first existing key decides). */
static int zpopFind(client *c, robj **keys, int numkeys, robj **key, robj **zobj) {
    for (int j = 0; j < numkeys; j++) {
        robj *o = dbLookupWrite(c->db, keys[j]);
        if (!o) continue;
        if (o->type != OBJ_ZSET) {
            replyErrorWrongType(c);
            return -1;
        }
        *key = keys[j];
        *zobj = o;
        return 1;
    }
    return 0;
}

/* Pop up to count (-1: one, flat reply) elements from zobj at key. emitkey
 * adds the key to the reply (BZPOP*, *MPOP); nested replies each element
 * as a [member, score] pair. Returns the number popped. */
static long zpopFrom(client *c, robj *key, robj *zobj, int where, int emitkey, long count,
                     int nested) {
    if (count == 0) {
        replyConst(c, "*0\r\n");
        return 0;
    }
    if (count == -1) count = 1;
    long llen = (long)zsetLength(zobj);
    long rangelen = count > llen ? llen : count;

    if (!nested && !emitkey) {
        replyArrayLen(c, rangelen * 2);
    } else if (nested && !emitkey) {
        replyArrayLen(c, rangelen);
    } else if (!nested) {
        replyArrayLen(c, rangelen * 2 + 1);
        replyBulk(c, key);
    } else {
        replyArrayLen(c, 2);
        replyBulk(c, key);
        replyArrayLen(c, rangelen);
    }
    /* Redis' order: the headers, the pop event, the elements, del. The
     * elements are read after the event: hold our own reference. */
    incrRefCount(zobj);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_ZSET, where == ZSET_MAX ? "zpopmax" : "zpopmin", key, c->db->id);
    for (long j = 0; j < rangelen; j++) {
        zsetIter it;
        zsetIterInit(&it, zobj, where == ZSET_MAX);
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        if (nested) replyArrayLen(c, 2);
        replyBulkBuf(c, m, len);
        replyDouble(c, zsetIterScore(&it));
        unsigned long at = where == ZSET_MAX ? (unsigned long)(llen - 1 - j) : 0;
        zsetDeleteRangeByRank(zobj, at, at);
    }
    server.dirty += rangelen;
    int emptied = zsetLength(zobj) == 0;
    if (emptied) dbDelete(c->db, key);
    decrRefCount(zobj);
    if (emptied) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    return rangelen;
}

static void zpopMinMax(client *c, int where) {
    if (c->argc > 3) {
        replyErrorSyntax(c);
        return;
    }
    long count = -1;
    if (c->argc == 3 && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK)
        return;
    robj *key, *zobj;
    int found = zpopFind(c, &c->argv[1], 1, &key, &zobj);
    if (found == 0) replyConst(c, "*0\r\n");
    if (found <= 0) return;
    /* RESP3 nests [member, score] pairs only when a count was given. */
    zpopFrom(c, key, zobj, where, 0, count, c->resp > 2 && count != -1);
}

void zpopminCommand(client *c) { zpopMinMax(c, ZSET_MIN); }
void zpopmaxCommand(client *c) { zpopMinMax(c, ZSET_MAX); }

/* Pop with the key in the reply, then rewrite argv for propagation:
 * ZPOPMIN/ZPOPMAX key, with the popped count unless count is -1 (BZPOP*). */
static void zpopServe(client *c, robj *key, robj *zobj, int where, long count, int nested) {
    incrRefCount(key); /* it may be one of the argv the rewrite releases */
    long popped = zpopFrom(c, key, zobj, where, 1, count, nested);
    zpopRewriteArgv(c, key, where, count == -1 ? -1 : popped);
    decrRefCount(key);
}

/* Serve the first non-empty key like a plain pop, or block on all of them.
 * A waiter re-run because one of its keys was created is served from that
 * key, as Redis serves it, even if an earlier key of the command has
 * elements too by now. */
static void zpopBlocking(client *c, robj **keys, int numkeys, int where, int timeout_idx,
                         long count, int nested) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout) != C_OK) return;
    robj *key = (c->flags & CLIENT_REEXECUTING) ? blockedReadyKey() : NULL, *zobj = NULL;
    if (key) {
        zobj = dbLookupWrite(c->db, key);
        if (zobj && zobj->type != OBJ_ZSET) zobj = NULL;
    } else if (zpopFind(c, keys, numkeys, &key, &zobj) < 0) {
        return;
    }
    /* Emptied keys are deleted, so an existing sorted set has members. */
    if (zobj && zsetLength(zobj)) {
        zpopServe(c, key, zobj, where, count, nested);
        return;
    }
    blockForKeys(c, OBJ_ZSET, keys, numkeys, timeout, BLOCK_REPLY_NULL_ARRAY);
}

static void bzpopMinMax(client *c, int where) {
    zpopBlocking(c, c->argv + 1, c->argc - 2, where, c->argc - 1, -1, 0);
}

void bzpopminCommand(client *c) { bzpopMinMax(c, ZSET_MIN); }
void bzpopmaxCommand(client *c) { bzpopMinMax(c, ZSET_MAX); }

/* [B]ZMPOP [timeout] numkeys key... MIN|MAX [COUNT n]; numkeys at idx. */
static void zmpopGeneric(client *c, int numkeys_idx, int blocking) {
    long numkeys, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    /* Compared before adding so a huge numkeys cannot overflow. */
    if (numkeys >= c->argc - numkeys_idx - 1) {
        replyErrorSyntax(c);
        return;
    }
    long where_idx = numkeys_idx + numkeys + 1;
    if (argEq(c->argv[where_idx], "min")) {
        where = ZSET_MIN;
    } else if (argEq(c->argv[where_idx], "max")) {
        where = ZSET_MAX;
    } else {
        replyErrorSyntax(c);
        return;
    }
    for (long j = where_idx + 1; j < c->argc; j++) {
        if (count == -1 && argEq(c->argv[j], "count") && j + 1 < c->argc) {
            j++;
            if (getRangeLongFromObjectOrReply(c, c->argv[j], 1, LONG_MAX, &count,
                                              "count should be greater than 0") != C_OK)
                return;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    if (count == -1) count = 1;
    robj **keys = c->argv + numkeys_idx + 1;
    if (blocking) {
        zpopBlocking(c, keys, (int)numkeys, where, 1, count, 1);
        return;
    }
    robj *key, *zobj;
    int found = zpopFind(c, keys, (int)numkeys, &key, &zobj);
    if (found == 0) replyNullArray(c);
    if (found > 0) zpopServe(c, key, zobj, where, count, 1);
}

void zmpopCommand(client *c) { zmpopGeneric(c, 1, 0); }
void bzmpopCommand(client *c) { zmpopGeneric(c, 2, 1); }

/* ---------------------------------------------------------------------------
 * ZUNION, ZINTER, ZDIFF, their *STORE forms, ZINTERCARD
 * ------------------------------------------------------------------------ */

#define SETOP_UNION 0
#define SETOP_INTER 1
#define SETOP_DIFF 2

#define AGGR_SUM 0
#define AGGR_MIN 1
#define AGGR_MAX 2

/* An input: a sorted set, a plain set (every member scores 1) or a
 * missing key (empty). */
typedef struct zsetopSrc {
    robj *obj; /* NULL: missing key */
    double weight;
    unsigned long len;
} zsetopSrc;

/* Walks one input in place, whatever it is; member bytes are valid until
 * the next step (integers of an intset are rendered into buf). */
typedef struct zsetopIter {
    zsetopSrc *src;
    int started;
    zsetIter zi;
    setTypeIterator si;
    const char *m;
    size_t len;
    double score; /* before weighting */
    char buf[LONG_STR_SIZE];
} zsetopIter;

static void zsetopIterInit(zsetopIter *it, zsetopSrc *src) {
    it->src = src;
    it->started = 0;
    if (src->obj->type == OBJ_ZSET) zsetIterInit(&it->zi, src->obj, 0);
    else setTypeInitIterator(&it->si, src->obj);
}

static int zsetopIterNext(zsetopIter *it) {
    if (it->src->obj->type == OBJ_ZSET) {
        if (it->started) zsetIterNext(&it->zi);
        it->started = 1;
        if (!zsetIterValid(&it->zi)) return 0;
        it->m = zsetIterMember(&it->zi, &it->len);
        it->score = zsetIterScore(&it->zi);
        return 1;
    }
    long long ll;
    if (!setTypeNext(&it->si, &it->m, &it->len, &ll)) return 0;
    if (!it->m) {
        it->len = (size_t)ll2string(it->buf, sizeof(it->buf), ll);
        it->m = it->buf;
    }
    it->score = 1.0;
    return 1;
}

static void zsetopIterDone(zsetopIter *it) {
    if (it->src->obj->type == OBJ_SET) setTypeResetIterator(&it->si);
}

/* Is ele in the input, and with what (unweighted) score? */
static int zsetopFind(zsetopSrc *src, sds ele, double *score) {
    if (!src->obj) return 0;
    if (src->obj->type == OBJ_ZSET) return zsetScore(src->obj, ele, score);
    if (!setTypeIsMember(src->obj, ele, sdslen(ele))) return 0;
    *score = 1.0;
    return 1;
}

static void zsetopAggregate(double *target, double val, int aggregate) {
    if (aggregate == AGGR_SUM) {
        *target += val;
        /* inf + -inf: Redis settles on 0 rather than NaN. */
        if (isnan(*target)) *target = 0.0;
    } else if (aggregate == AGGR_MIN) {
        *target = val < *target ? val : *target;
    } else {
        *target = val > *target ? val : *target;
    }
}

/* Stable sort by size, so equal-sized inputs keep their argument order (and
 * sums their addition order) as in Redis, whose libc qsort is a merge sort
 * for arrays this small. */
static void zsetopSortBySize(zsetopSrc *src, long n) {
    for (long i = 1; i < n; i++) {
        zsetopSrc t = src[i];
        long j = i - 1;
        while (j >= 0 && src[j].len > t.len) {
            src[j + 1] = src[j];
            j--;
        }
        src[j + 1] = t;
    }
}

/* Add a member known to be new to the result (a skip list). */
static void zsetopResultAdd(robj *dst, double score, sds ele, size_t *maxelelen,
                            size_t *totelelen) {
    zset *zs = dst->ptr;
    zskiplistNode *node = zslInsert(zs->zsl, score, ele);
    dictAdd(zs->dict, node->ele, node);
    *totelelen += sdslen(ele);
    if (sdslen(ele) > *maxelelen) *maxelelen = sdslen(ele);
}

/* Accumulator for UNION: member sds (ours, handed over to the result at
 * the end) -> aggregated score in the entry's double. */
static dictType zsetopAccumulatorType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, NULL, NULL, NULL};

static void zsetopUnion(zsetopSrc *src, long n, int aggregate, robj *dst, size_t *maxelelen,
                        size_t *totelelen) {
    dict *acc = dictCreate(&zsetopAccumulatorType);
    if (n && src[n - 1].len) dictExpand(acc, src[n - 1].len);
    sds tmp = sdsempty();
    for (long i = 0; i < n; i++) {
        if (!src[i].len) continue;
        zsetopIter it;
        zsetopIterInit(&it, &src[i]);
        while (zsetopIterNext(&it)) {
            double score = src[i].weight * it.score;
            if (isnan(score)) score = 0;
            tmp = sdscpylen(tmp, it.m, it.len);
            dictEntry *existing, *de = dictAddRaw(acc, tmp, &existing);
            if (de) {
                /* The entry was keyed by our scratch buffer: give it its own. */
                de->key = sdsdup(tmp);
                dictSetDoubleVal(de, score);
            } else {
                zsetopAggregate(&existing->v.d, score, aggregate);
            }
        }
        zsetopIterDone(&it);
    }
    sdsfree(tmp);
    zset *zs = dst->ptr;
    dictExpand(zs->dict, dictSize(acc));
    dictIterator di;
    dictInitIterator(&di, acc);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL)
        zsetopResultAdd(dst, dictGetDoubleVal(de), dictGetKey(de), maxelelen, totelelen);
    dictResetIterator(&di);
    dictRelease(acc);
}

/* INTER (or, cardonly, its cardinality up to limit) and DIFF, both driven
 * by the elements of src[0]. Returns the cardinality. */
static unsigned long zsetopInterDiff(zsetopSrc *src, long n, int op, int aggregate, robj *dst,
                                     int cardonly, long limit, size_t *maxelelen,
                                     size_t *totelelen) {
    unsigned long card = 0;
    if (!src[0].len) return 0;
    sds tmp = sdsempty();
    zsetopIter it;
    zsetopIterInit(&it, &src[0]);
    while (zsetopIterNext(&it)) {
        double s0 = it.score, score = src[0].weight * s0, value;
        if (isnan(score)) score = 0;
        tmp = sdscpylen(tmp, it.m, it.len);
        long j;
        for (j = 1; j < n; j++) {
            /* The input being walked may be named again; a lookup in it
             * could rehash a set's dict under its iterator, and the answer
             * is known anyway. */
            int found = 1;
            if (src[j].obj == src[0].obj) value = s0;
            else found = zsetopFind(&src[j], tmp, &value);
            if (op == SETOP_DIFF) {
                if (found) break;
            } else {
                if (!found) break;
                zsetopAggregate(&score, value * src[j].weight, aggregate);
            }
        }
        if (j < n) continue;
        card++;
        if (cardonly) {
            if (limit && card >= (unsigned long)limit) break;
            continue;
        }
        zsetopResultAdd(dst, op == SETOP_DIFF ? s0 : score, sdsdup(tmp), maxelelen, totelelen);
    }
    zsetopIterDone(&it);
    sdsfree(tmp);
    return card;
}

/* The common body: argv[numkeys_idx] is numkeys; dstkey is NULL for the
 * replying forms. */
static void zsetopGeneric(client *c, robj *dstkey, int numkeys_idx, int op, int cardonly) {
    long setnum;
    if (getLongFromObjectOrReply(c, c->argv[numkeys_idx], &setnum, NULL) != C_OK) return;
    if (setnum < 1) {
        replyErrorFormat(c, "ERR at least 1 input key is needed for '%s' command",
                         c->cmd->fullname);
        return;
    }
    if (setnum > c->argc - (numkeys_idx + 1)) {
        replyErrorSyntax(c);
        return;
    }
    /* Inputs are looked up (and type checked) before the options. */
    zsetopSrc *src = zcalloc(sizeof(zsetopSrc) * setnum);
    int j = numkeys_idx + 1;
    for (long i = 0; i < setnum; i++, j++) {
        robj *o = dbLookupRead(c->db, c->argv[j]);
        if (o && o->type != OBJ_ZSET && o->type != OBJ_SET) {
            zfree(src);
            replyErrorWrongType(c);
            return;
        }
        src[i].obj = o;
        src[i].len = !o ? 0 : o->type == OBJ_ZSET ? zsetLength(o) : setTypeSize(o);
        src[i].weight = 1.0;
    }
    int aggregate = AGGR_SUM, withscores = 0;
    long limit = 0;
    for (int remaining = c->argc - j; remaining > 0; remaining = c->argc - j) {
        if (op != SETOP_DIFF && !cardonly && remaining >= setnum + 1 &&
            argEq(c->argv[j], "weights")) {
            j++;
            for (long i = 0; i < setnum; i++, j++) {
                if (getDoubleFromObjectOrReply(c, c->argv[j], &src[i].weight,
                                               "weight value is not a float") != C_OK) {
                    zfree(src);
                    return;
                }
            }
        } else if (op != SETOP_DIFF && !cardonly && remaining >= 2 &&
                   argEq(c->argv[j], "aggregate")) {
            robj *a = c->argv[j + 1];
            if (argEq(a, "sum")) aggregate = AGGR_SUM;
            else if (argEq(a, "min")) aggregate = AGGR_MIN;
            else if (argEq(a, "max")) aggregate = AGGR_MAX;
            else {
                zfree(src);
                replyErrorSyntax(c);
                return;
            }
            j += 2;
        } else if (!dstkey && !cardonly && argEq(c->argv[j], "withscores")) {
            withscores = 1;
            j++;
        } else if (cardonly && remaining >= 2 && argEq(c->argv[j], "limit")) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[j + 1], &limit,
                                                 "LIMIT can't be negative") != C_OK) {
                zfree(src);
                return;
            }
            j += 2;
        } else {
            zfree(src);
            replyErrorSyntax(c);
            return;
        }
    }
    if (op != SETOP_DIFF) zsetopSortBySize(src, setnum);

    robj *dst = zsetCreateSkiplistObject();
    size_t maxelelen = 0, totelelen = 0;
    unsigned long card;
    if (op == SETOP_UNION) {
        zsetopUnion(src, setnum, aggregate, dst, &maxelelen, &totelelen);
        card = zsetLength(dst);
    } else {
        card = zsetopInterDiff(src, setnum, op, aggregate, dst, cardonly, limit, &maxelelen,
                               &totelelen);
    }
    zfree(src);

    if (cardonly) {
        replyLongLong(c, (long long)card);
    } else if (dstkey) {
        if (zsetLength(dst)) {
            zsetConvertToListpackIfNeeded(dst, maxelelen, totelelen);
            keyRef ref;
            dbFindForWrite(c->db, dstkey, &ref);
            int existed = ref.de != NULL;
            incrRefCount(dst);
            dbSetValue(&ref, dst);
            if (existed) dbRemoveExpireEntry(c->db, ref.de);
            replyLongLong(c, (long long)zsetLength(dst));
            server.dirty++;
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_ZSET,
                                op == SETOP_UNION   ? "zunionstore"
                                : op == SETOP_INTER ? "zinterstore"
                                                    : "zdiffstore",
                                dstkey, c->db->id);
        } else {
            replyConst(c, ":0\r\n");
            if (dbDelete(c->db, dstkey)) {
                server.dirty++;
                signalModifiedKey(c, c->db, dstkey);
                notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
            }
        }
    } else {
        unsigned long length = zsetLength(dst);
        replyArrayLen(c, (long)((withscores && c->resp == 2) ? length * 2 : length));
        zset *zs = dst->ptr;
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward) {
            if (withscores && c->resp > 2) replyArrayLen(c, 2);
            replyBulkBuf(c, x->ele, sdslen(x->ele));
            if (withscores) replyDouble(c, x->score);
        }
    }
    decrRefCount(dst);
}

void zunionCommand(client *c) { zsetopGeneric(c, NULL, 1, SETOP_UNION, 0); }
void zinterCommand(client *c) { zsetopGeneric(c, NULL, 1, SETOP_INTER, 0); }
void zdiffCommand(client *c) { zsetopGeneric(c, NULL, 1, SETOP_DIFF, 0); }
void zunionstoreCommand(client *c) { zsetopGeneric(c, c->argv[1], 2, SETOP_UNION, 0); }
void zinterstoreCommand(client *c) { zsetopGeneric(c, c->argv[1], 2, SETOP_INTER, 0); }
void zdiffstoreCommand(client *c) { zsetopGeneric(c, c->argv[1], 2, SETOP_DIFF, 0); }
void zintercardCommand(client *c) { zsetopGeneric(c, NULL, 1, SETOP_INTER, 1); }

/* ---------------------------------------------------------------------------
 * ZRANDMEMBER
 * ------------------------------------------------------------------------ */

static unsigned long zrandUpTo(unsigned long n) {
    unsigned long r = ((unsigned long)random() << 31) ^ (unsigned long)random();
    return r % n;
}

/* Reply one element in ZRANDMEMBER's shape. */
static void zrandReplyElement(client *c, const char *m, size_t len, double score, int withscores) {
    if (withscores && c->resp > 2) replyArrayLen(c, 2);
    replyBulkBuf(c, m, len);
    if (withscores) replyDouble(c, score);
}

static void zrandReplyLp(client *c, unsigned char *zl, unsigned char *eptr, int withscores) {
    unsigned char buf[LP_INTBUF_SIZE];
    int64_t len;
    unsigned char *m = lpGet(eptr, &len, buf);
    double score = withscores ? zzlGetScore(lpNext(zl, eptr)) : 0;
    zrandReplyElement(c, (const char *)m, (size_t)len, score, withscores);
}

/* Pointers to every member entry of a listpack set, for O(1) picks. */
static unsigned char **zrandLpEntries(unsigned char *zl, unsigned long size) {
    unsigned char **v = zmalloc(sizeof(unsigned char *) * size);
    unsigned long i = 0;
    for (unsigned char *p = lpFirst(zl); p && i < size; p = lpNext(zl, lpNext(zl, p))) v[i++] = p;
    return v;
}

static uint64_t zrandPtrHash(const void *key) { return dictGenHashFunction(&key, sizeof(key)); }
static int zrandPtrCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return a == b;
}
static dictType zrandPtrSetType = {zrandPtrHash, NULL, NULL, zrandPtrCompare, NULL, NULL, NULL};

static void zrandmemberWithCount(client *c, long l, int withscores) {
    robj *zobj = dbLookupRead(c->db, c->argv[1]);
    if (!zobj) {
        replyConst(c, "*0\r\n");
        return;
    }
    if (zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return;
    }
    unsigned long size = zsetLength(zobj), count;
    int uniq = 1;
    if (l >= 0) {
        count = (unsigned long)l;
    } else {
        count = (unsigned long)-l;
        uniq = 0;
    }
    if (count == 0) {
        replyConst(c, "*0\r\n");
        return;
    }
    /* More than the set holds, without repetition: the whole set. */
    if (uniq && count >= size) count = size;
    replyArrayLen(c, (long)((withscores && c->resp == 2) ? count * 2 : count));

    if (uniq && count == size) {
        /* Highest score first: Redis walks sets from the tail here. */
        zsetIter it;
        for (zsetIterInit(&it, zobj, 1); zsetIterValid(&it); zsetIterNext(&it)) {
            size_t len;
            const char *m = zsetIterMember(&it, &len);
            zrandReplyElement(c, m, len, zsetIterScore(&it), withscores);
        }
        return;
    }

    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        unsigned char **v = zrandLpEntries(zl, size);
        if (!uniq || count == 1) {
            for (unsigned long j = 0; j < count; j++)
                zrandReplyLp(c, zl, v[zrandUpTo(size)], withscores);
        } else {
            /* Selection sampling: a uniform subset, in listpack order (as
             * Redis returns listpack samples). */
            unsigned long need = count;
            for (unsigned long j = 0; j < size && need; j++) {
                if (zrandUpTo(size - j) < need) {
                    zrandReplyLp(c, zl, v[j], withscores);
                    need--;
                }
            }
        }
        zfree(v);
        return;
    }

    zset *zs = zobj->ptr;
    if (!uniq || count == 1) {
        for (unsigned long j = 0; j < count; j++) {
            zskiplistNode *x = dictGetVal(dictGetFairRandomKey(zs->dict));
            zrandReplyElement(c, x->ele, sdslen(x->ele), x->score, withscores);
        }
    } else if (count * 3 > size) {
        /* A large share of the set: shuffle the front of an array of it. */
        zskiplistNode **v = zmalloc(sizeof(*v) * size);
        unsigned long i = 0;
        for (zskiplistNode *x = zs->zsl->header->level[0].forward; x; x = x->level[0].forward)
            v[i++] = x;
        for (unsigned long j = 0; j < count; j++) {
            unsigned long k = j + zrandUpTo(size - j);
            zskiplistNode *t = v[j];
            v[j] = v[k];
            v[k] = t;
            zrandReplyElement(c, v[j]->ele, sdslen(v[j]->ele), v[j]->score, withscores);
        }
        zfree(v);
    } else {
        /* A small share: random picks, skipping repeats. */
        dict *seen = dictCreate(&zrandPtrSetType);
        unsigned long added = 0;
        while (added < count) {
            zskiplistNode *x = dictGetVal(dictGetFairRandomKey(zs->dict));
            if (dictAdd(seen, x, NULL) != DICT_OK) continue;
            zrandReplyElement(c, x->ele, sdslen(x->ele), x->score, withscores);
            added++;
        }
        dictRelease(seen);
    }
}

void zrandmemberCommand(client *c) {
    if (c->argc >= 3) {
        long l;
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK)
            return;
        int withscores = 0;
        if (c->argc > 4 || (c->argc == 4 && !argEq(c->argv[3], "withscores"))) {
            replyErrorSyntax(c);
            return;
        } else if (c->argc == 4) {
            withscores = 1;
            if (l < -LONG_MAX / 2 || l > LONG_MAX / 2) {
                replyError(c, "ERR value is out of range");
                return;
            }
        }
        zrandmemberWithCount(c, l, withscores);
        return;
    }
    robj *zobj = dbLookupRead(c->db, c->argv[1]);
    if (!zobj) {
        replyNull(c);
        return;
    }
    if (zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return;
    }
    unsigned long size = zsetLength(zobj);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char buf[LP_INTBUF_SIZE];
        int64_t len;
        unsigned char *m = lpGet(lpSeek(zobj->ptr, (long)(2 * zrandUpTo(size))), &len, buf);
        replyBulkBuf(c, m, (size_t)len);
    } else {
        zskiplistNode *x = dictGetVal(dictGetFairRandomKey(((zset *)zobj->ptr)->dict));
        replyBulkBuf(c, x->ele, sdslen(x->ele));
    }
}
