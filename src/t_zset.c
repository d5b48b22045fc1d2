/* t_zset: the sorted set commands that read or edit one key: ZADD ZINCRBY
 * ZREM ZCARD ZCOUNT ZLEXCOUNT ZSCORE ZMSCORE ZRANK ZREVRANK, the ZRANGE
 * family (ZRANGE with BYSCORE/BYLEX/REV/LIMIT/WITHSCORES, ZRANGESTORE,
 * ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX), ZREMRANGEBY* and ZSCAN.
 * Pops, blocking pops, the multi-key operations and ZRANDMEMBER live in
 * t_zset_ops.c; the value itself in zset_encoding.c.
 *
 * Arguments are parsed completely, with Redis' error texts and in Redis'
 * order (options, then numbers, then the key's type), before anything is
 * changed. Writes look their key up once (dbFindForWrite) and create it
 * with dbSetValue only once it has members; emptied keys are deleted.
 * Replies are written straight from the encoding through zsetIter (one
 * header, then a bulk and a double per element) and always before the
 * keyspace notifications. */
#include "args.h"
#include "client.h"
#include "db.h"
#include "dict.h"
#include "keys.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "t_zset.h"
#include "zset.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------------
 * Lookups and argument parsing
 * ------------------------------------------------------------------------ */

/* Read lookup: the sorted set at key, or NULL after replying `missing` (a
 * complete RESP reply) for a missing key, or WRONGTYPE. */
static robj *zsetLookupReadOrReply(client *c, robj *key, const char *missing, size_t len) {
    robj *o = dbLookupRead(c->db, key);
    if (!o) {
        replyRaw(c, missing, len);
        return NULL;
    }
    if (o->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return NULL;
    }
    return o;
}
#define ZSET_MISSING(s) s, sizeof(s) - 1

/* One score bound as ZRANGEBYSCORE reads it: "(" makes it exclusive, the
 * rest goes to strtod, which (unlike ZADD's parser) accepts leading spaces,
 * an empty string as 0 and out-of-range values as +-inf. Only trailing
 * garbage and NaN are errors. */
static int zsetParseScoreBound(robj *o, double *v, int *ex) {
    *ex = 0;
    if (!sdsEncodedObject(o)) {
        *v = (double)(long)o->ptr;
        return C_OK;
    }
    const char *s = o->ptr;
    char *eptr;
    if (s[0] == '(') {
        *ex = 1;
        s++;
    }
    *v = strtod(s, &eptr);
    if (eptr[0] != '\0' || isnan(*v)) return C_ERR;
    return C_OK;
}

static int zsetParseRange(robj *min, robj *max, zrangespec *spec) {
    if (zsetParseScoreBound(min, &spec->min, &spec->minex) != C_OK ||
        zsetParseScoreBound(max, &spec->max, &spec->maxex) != C_OK)
        return C_ERR;
    return C_OK;
}

static int zsetParseLexRange(robj *min, robj *max, zlexrangespec *spec) {
    spec->min = spec->max = NULL;
    if (!sdsEncodedObject(min) || !sdsEncodedObject(max)) return C_ERR;
    if (zslParseLexItem(min->ptr, sdslen(min->ptr), &spec->min, &spec->minex) != 0 ||
        zslParseLexItem(max->ptr, sdslen(max->ptr), &spec->max, &spec->maxex) != 0) {
        zslFreeLexRange(spec);
        return C_ERR;
    }
    return C_OK;
}

static void replyErrorScoreRange(client *c) { replyError(c, "ERR min or max is not a float"); }
static void replyErrorLexRange(client *c) {
    replyError(c, "ERR min or max not valid string range item");
}

/* ---------------------------------------------------------------------------
 * ZADD, ZINCRBY
 * ------------------------------------------------------------------------ */

static void zaddGeneric(client *c, int flags) {
    robj *key = c->argv[1];
    int scoreidx = 2, ch = 0;
    /* Options come first; the first non-option is the first score. */
    for (; scoreidx < c->argc; scoreidx++) {
        robj *opt = c->argv[scoreidx];
        if (argEq(opt, "nx")) flags |= ZADD_IN_NX;
        else if (argEq(opt, "xx")) flags |= ZADD_IN_XX;
        else if (argEq(opt, "ch")) ch = 1;
        else if (argEq(opt, "incr")) flags |= ZADD_IN_INCR;
        else if (argEq(opt, "gt")) flags |= ZADD_IN_GT;
        else if (argEq(opt, "lt")) flags |= ZADD_IN_LT;
        else break;
    }
    int incr = flags & ZADD_IN_INCR, nx = flags & ZADD_IN_NX, xx = flags & ZADD_IN_XX;
    int gt = flags & ZADD_IN_GT, lt = flags & ZADD_IN_LT;
    int elements = c->argc - scoreidx;
    if (elements % 2 || elements == 0) {
        replyErrorSyntax(c);
        return;
    }
    elements /= 2;
    if (nx && xx) {
        replyError(c, "ERR XX and NX options at the same time are not compatible");
        return;
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
        replyError(c, "ERR GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if (incr && elements > 1) {
        replyError(c, "ERR INCR option supports a single increment-element pair");
        return;
    }
    /* All scores are checked before anything changes. */
    double *scores = zmalloc(sizeof(double) * elements);
    for (int j = 0; j < elements; j++) {
        if (getDoubleFromObjectOrReply(c, c->argv[scoreidx + j * 2], &scores[j], NULL) != C_OK) {
            zfree(scores);
            return;
        }
    }

    keyRef ref;
    dbFindForWrite(c->db, key, &ref);
    robj *zobj = ref.de ? dictGetVal(ref.de) : NULL;
    if (zobj && zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        zfree(scores);
        return;
    }
    long added = 0, updated = 0, processed = 0;
    double score = 0;
    int created = 0;
    if (!zobj && !xx) {
        /* The first member's length picks the encoding, as in Redis. */
        zobj = zsetCreateFor(sdslen(c->argv[scoreidx + 1]->ptr));
        created = 1;
    }
    for (int j = 0; zobj && j < elements; j++) {
        int retflags = 0;
        double newscore;
        if (!zsetAdd(zobj, scores[j], c->argv[scoreidx + j * 2 + 1]->ptr, flags, &retflags,
                     &newscore)) {
            replyError(c, "ERR resulting score is not a number (NaN)");
            goto cleanup;
        }
        if (retflags & ZADD_OUT_ADDED) added++;
        if (retflags & ZADD_OUT_UPDATED) updated++;
        if (!(retflags & ZADD_OUT_NOP)) processed++;
        score = newscore;
    }
    server.dirty += added + updated;
    if (incr) {
        if (processed) replyDouble(c, score);
        else replyNull(c);
    } else {
        replyLongLong(c, ch ? added + updated : added);
    }

cleanup:
    zfree(scores);
    if (created) {
        if (zsetLength(zobj)) dbSetValue(&ref, zobj);
        else decrRefCount(zobj);
    }
    if (added || updated) {
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_ZSET, incr ? "zincr" : "zadd", key, c->db->id);
    }
}

void zaddCommand(client *c) { zaddGeneric(c, ZADD_IN_NONE); }
void zincrbyCommand(client *c) { zaddGeneric(c, ZADD_IN_INCR); }

/* ---------------------------------------------------------------------------
 * ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZCOUNT, ZLEXCOUNT
 * ------------------------------------------------------------------------ */

void zremCommand(client *c) {
    robj *key = c->argv[1];
    keyRef ref;
    dbFindForWrite(c->db, key, &ref);
    if (!ref.de) {
        replyConst(c, ":0\r\n");
        return;
    }
    robj *zobj = dictGetVal(ref.de);
    if (zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return;
    }
    long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        if (zsetDel(zobj, c->argv[j]->ptr)) deleted++;
        if (zsetLength(zobj) == 0) {
            dbDelete(c->db, key);
            keyremoved = 1;
            break;
        }
    }
    if (deleted) {
        server.dirty += deleted;
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_ZSET, "zrem", key, c->db->id);
        if (keyremoved) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    }
    replyLongLong(c, deleted); /* after the events, as Redis */
}

void zcardCommand(client *c) {
    robj *zobj = zsetLookupReadOrReply(c, c->argv[1], ZSET_MISSING(":0\r\n"));
    if (zobj) replyLongLong(c, (long long)zsetLength(zobj));
}

void zscoreCommand(client *c) {
    robj *zobj = dbLookupRead(c->db, c->argv[1]);
    double score;
    if (zobj && zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return;
    }
    if (zobj && zsetScore(zobj, c->argv[2]->ptr, &score)) replyDouble(c, score);
    else replyNull(c);
}

void zmscoreCommand(client *c) {
    robj *zobj = dbLookupRead(c->db, c->argv[1]);
    if (zobj && zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return;
    }
    replyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double score;
        if (zobj && zsetScore(zobj, c->argv[j]->ptr, &score)) replyDouble(c, score);
        else replyNull(c);
    }
}

static void zrankGeneric(client *c, int reverse) {
    robj *zobj = dbLookupRead(c->db, c->argv[1]);
    if (zobj && zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        return;
    }
    long rank = zobj ? zsetRank(zobj, c->argv[2]->ptr, reverse) : -1;
    if (rank >= 0) replyLongLong(c, rank);
    else replyNull(c);
}

void zrankCommand(client *c) { zrankGeneric(c, 0); }
void zrevrankCommand(client *c) { zrankGeneric(c, 1); }

void zcountCommand(client *c) {
    zrangespec range;
    if (zsetParseRange(c->argv[2], c->argv[3], &range) != C_OK) {
        replyErrorScoreRange(c);
        return;
    }
    robj *zobj = zsetLookupReadOrReply(c, c->argv[1], ZSET_MISSING(":0\r\n"));
    if (zobj) replyLongLong(c, (long long)zsetCountInRange(zobj, &range));
}

void zlexcountCommand(client *c) {
    zlexrangespec range;
    if (zsetParseLexRange(c->argv[2], c->argv[3], &range) != C_OK) {
        replyErrorLexRange(c);
        return;
    }
    robj *zobj = zsetLookupReadOrReply(c, c->argv[1], ZSET_MISSING(":0\r\n"));
    if (zobj) replyLongLong(c, (long long)zsetCountInLexRange(zobj, &range));
    zslFreeLexRange(&range);
}

/* ---------------------------------------------------------------------------
 * The ZRANGE family
 * ------------------------------------------------------------------------ */

/* Where range results go: to the client (array of members, with scores
 * flat in RESP2 or as [member, score] pairs in RESP3), or for ZRANGESTORE
 * into a new sorted set. */
typedef struct zrangeResult {
    client *c;
    int withscores;
    long count;
    void *deferred;   /* length slot when the count is not known up front */
    robj *dstkey;     /* ZRANGESTORE: destination, else NULL */
    robj *dstobj;
} zrangeResult;

/* length < 0: unknown yet. */
static void zrangeResultBegin(zrangeResult *r, long length) {
    r->count = 0;
    r->deferred = NULL;
    if (r->dstkey) {
        r->dstobj = zsetCreateSized(length);
        return;
    }
    if (length < 0) r->deferred = replyDeferredLen(r->c);
    else replyArrayLen(r->c, (r->withscores && r->c->resp == 2) ? length * 2 : length);
}

static void zrangeResultEmit(zrangeResult *r, const char *m, size_t len, double score) {
    r->count++;
    if (r->dstkey) {
        sds ele = sdsnewlen(m, len);
        int flags;
        zsetAdd(r->dstobj, score, ele, ZADD_IN_NONE, &flags, NULL);
        sdsfree(ele);
        return;
    }
    client *c = r->c;
    if (r->withscores && c->resp > 2) replyArrayLen(c, 2);
    replyBulkBuf(c, m, len);
    if (r->withscores) replyDouble(c, score);
}

static void zrangeResultEnd(zrangeResult *r) {
    client *c = r->c;
    if (!r->dstkey) {
        if (r->deferred)
            replySetDeferredArrayLen(c, r->deferred,
                                     (r->withscores && c->resp == 2) ? r->count * 2 : r->count);
        return;
    }
    robj *dstkey = r->dstkey;
    if (r->count) {
        keyRef ref;
        dbFindForWrite(c->db, dstkey, &ref);
        int existed = ref.de != NULL;
        dbSetValue(&ref, r->dstobj);
        if (existed) dbRemoveExpireEntry(c->db, ref.de);
        replyLongLong(c, r->count);
        server.dirty++;
        signalModifiedKey(c, c->db, dstkey);
        notifyKeyspaceEvent(NOTIFY_ZSET, "zrangestore", dstkey, c->db->id);
    } else {
        decrRefCount(r->dstobj);
        replyConst(c, ":0\r\n");
        if (dbDelete(c->db, dstkey)) {
            server.dirty++;
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
        }
    }
    r->dstobj = NULL;
}

static void zrangeByRank(zrangeResult *r, robj *zobj, long start, long end, int reverse) {
    long llen = (long)zsetLength(zobj);
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    /* start >= 0 here, so this also catches end < 0. */
    if (start > end || start >= llen) {
        zrangeResultBegin(r, 0);
        zrangeResultEnd(r);
        return;
    }
    if (end >= llen) end = llen - 1;
    long rangelen = end - start + 1;
    zrangeResultBegin(r, rangelen);
    zsetIter it;
    zsetIterInitAtRank(&it, zobj, (unsigned long)(reverse ? llen - 1 - start : start), reverse);
    for (; rangelen > 0 && zsetIterValid(&it); rangelen--, zsetIterNext(&it)) {
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        zrangeResultEmit(r, m, len, zsetIterScore(&it));
    }
    zrangeResultEnd(r);
}

/* LIMIT's offset: skip that many elements. Redis counts a negative offset
 * down without ever reaching 0, so it skips everything. */
static void zrangeSkip(zsetIter *it, long offset) {
    if (offset < 0) {
        it->eptr = it->sptr = NULL;
        it->node = NULL;
        return;
    }
    for (; offset > 0 && zsetIterValid(it); offset--) zsetIterNext(it);
}

/* Skip `offset` elements, then emit at most `limit` (negative: no limit)
 * while in range. A negative limit is never counted down: LIMIT 0
 * -9223372036854775807 would overflow after two elements. */
static void zrangeByScore(zrangeResult *r, robj *zobj, const zrangespec *range, long offset,
                          long limit, int reverse) {
    if (offset > 0 && offset >= (long)zsetLength(zobj)) {
        zrangeResultBegin(r, 0);
        zrangeResultEnd(r);
        return;
    }
    zrangeResultBegin(r, -1);
    zsetIter it;
    zsetIterInitAtScore(&it, zobj, range, reverse);
    zrangeSkip(&it, offset);
    for (; limit != 0 && zsetIterValid(&it); limit -= limit > 0, zsetIterNext(&it)) {
        double score = zsetIterScore(&it);
        if (reverse ? !zslValueGteMin(score, range) : !zslValueLteMax(score, range)) break;
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        zrangeResultEmit(r, m, len, score);
    }
    zrangeResultEnd(r);
}

static void zrangeByLex(zrangeResult *r, robj *zobj, const zlexrangespec *range, long offset,
                        long limit, int reverse) {
    zrangeResultBegin(r, -1);
    zsetIter it;
    zsetIterInitAtLex(&it, zobj, range, reverse);
    zrangeSkip(&it, offset);
    for (; limit != 0 && zsetIterValid(&it); limit -= limit > 0, zsetIterNext(&it)) {
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        if (reverse ? !zslLexValueGteMin(m, len, range) : !zslLexValueLteMax(m, len, range))
            break;
        zrangeResultEmit(r, m, len, zsetIterScore(&it));
    }
    zrangeResultEnd(r);
}

typedef enum { ZRANGE_AUTO, ZRANGE_RANK, ZRANGE_SCORE, ZRANGE_LEX } zrangeType;
typedef enum { ZRANGE_DIR_AUTO, ZRANGE_DIR_FORWARD, ZRANGE_DIR_REVERSE } zrangeDirection;

/* The one parser and dispatcher behind every ZRANGE variant. argv[first]
 * is the source key, followed by the two bounds; the fixed variants
 * (ZREVRANGE, ZRANGEBYSCORE, ...) pass their type and direction, which
 * then may not be given again as options. */
static void zrangeGeneric(zrangeResult *r, int first, zrangeType type, zrangeDirection dir) {
    client *c = r->c;
    robj *key = c->argv[first];
    int minidx = first + 1, maxidx = first + 2;
    int withscores = 0;
    long start = 0, end = 0, offset = 0, limit = -1;

    for (int j = first + 3; j < c->argc; j++) {
        int left = c->argc - j - 1;
        if (!r->dstkey && argEq(c->argv[j], "withscores")) {
            withscores = 1;
        } else if (argEq(c->argv[j], "limit") && left >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &offset, NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &limit, NULL) != C_OK)
                return;
            j += 2;
        } else if (dir == ZRANGE_DIR_AUTO && argEq(c->argv[j], "rev")) {
            dir = ZRANGE_DIR_REVERSE;
        } else if (type == ZRANGE_AUTO && argEq(c->argv[j], "bylex")) {
            type = ZRANGE_LEX;
        } else if (type == ZRANGE_AUTO && argEq(c->argv[j], "byscore")) {
            type = ZRANGE_SCORE;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    if (dir == ZRANGE_DIR_AUTO) dir = ZRANGE_DIR_FORWARD;
    if (type == ZRANGE_AUTO) type = ZRANGE_RANK;
    if (limit != -1 && type == ZRANGE_RANK) {
        replyError(c, "ERR syntax error, LIMIT is only supported in combination with either "
                      "BYSCORE or BYLEX");
        return;
    }
    if (withscores && type == ZRANGE_LEX) {
        replyError(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    int reverse = dir == ZRANGE_DIR_REVERSE;
    /* Reversed score and lex ranges are written max first. */
    if (reverse && type != ZRANGE_RANK) {
        int t = minidx;
        minidx = maxidx;
        maxidx = t;
    }

    zrangespec range;
    zlexrangespec lexrange = {NULL, NULL, 0, 0};
    switch (type) {
    case ZRANGE_SCORE:
        if (zsetParseRange(c->argv[minidx], c->argv[maxidx], &range) != C_OK) {
            replyErrorScoreRange(c);
            return;
        }
        break;
    case ZRANGE_LEX:
        if (zsetParseLexRange(c->argv[minidx], c->argv[maxidx], &lexrange) != C_OK) {
            replyErrorLexRange(c);
            return;
        }
        break;
    default:
        if (getLongFromObjectOrReply(c, c->argv[minidx], &start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[maxidx], &end, NULL) != C_OK)
            return;
        break;
    }
    r->withscores = withscores || r->dstkey;

    robj *zobj = dbLookupRead(c->db, key);
    if (!zobj) {
        zrangeResultBegin(r, r->dstkey ? -1 : 0);
        zrangeResultEnd(r);
    } else if (zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
    } else if (type == ZRANGE_SCORE) {
        zrangeByScore(r, zobj, &range, offset, limit, reverse);
    } else if (type == ZRANGE_LEX) {
        zrangeByLex(r, zobj, &lexrange, offset, limit, reverse);
    } else {
        zrangeByRank(r, zobj, start, end, reverse);
    }
    zslFreeLexRange(&lexrange);
}

static void zrangeClient(client *c, zrangeType type, zrangeDirection dir) {
    zrangeResult r = {c, 0, 0, NULL, NULL, NULL};
    zrangeGeneric(&r, 1, type, dir);
}

void zrangeCommand(client *c) { zrangeClient(c, ZRANGE_AUTO, ZRANGE_DIR_AUTO); }
void zrevrangeCommand(client *c) { zrangeClient(c, ZRANGE_RANK, ZRANGE_DIR_REVERSE); }
void zrangebyscoreCommand(client *c) { zrangeClient(c, ZRANGE_SCORE, ZRANGE_DIR_FORWARD); }
void zrevrangebyscoreCommand(client *c) { zrangeClient(c, ZRANGE_SCORE, ZRANGE_DIR_REVERSE); }
void zrangebylexCommand(client *c) { zrangeClient(c, ZRANGE_LEX, ZRANGE_DIR_FORWARD); }
void zrevrangebylexCommand(client *c) { zrangeClient(c, ZRANGE_LEX, ZRANGE_DIR_REVERSE); }

void zrangestoreCommand(client *c) {
    zrangeResult r = {c, 1, 0, NULL, c->argv[1], NULL};
    zrangeGeneric(&r, 2, ZRANGE_AUTO, ZRANGE_DIR_AUTO);
}

/* ---------------------------------------------------------------------------
 * ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX
 * ------------------------------------------------------------------------ */

static void zremrangeGeneric(client *c, zrangeType type) {
    robj *key = c->argv[1];
    long start = 0, end = 0;
    zrangespec range;
    zlexrangespec lexrange = {NULL, NULL, 0, 0};
    if (type == ZRANGE_RANK) {
        if (getLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
    } else if (type == ZRANGE_SCORE) {
        if (zsetParseRange(c->argv[2], c->argv[3], &range) != C_OK) {
            replyErrorScoreRange(c);
            return;
        }
    } else if (zsetParseLexRange(c->argv[2], c->argv[3], &lexrange) != C_OK) {
        replyErrorLexRange(c);
        return;
    }

    keyRef ref;
    dbFindForWrite(c->db, key, &ref);
    robj *zobj = ref.de ? dictGetVal(ref.de) : NULL;
    unsigned long deleted = 0;
    const char *event;
    if (!zobj) {
        replyConst(c, ":0\r\n");
        goto cleanup;
    }
    if (zobj->type != OBJ_ZSET) {
        replyErrorWrongType(c);
        goto cleanup;
    }
    if (type == ZRANGE_RANK) {
        long llen = (long)zsetLength(zobj);
        if (start < 0) start = llen + start;
        if (end < 0) end = llen + end;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            replyConst(c, ":0\r\n");
            goto cleanup;
        }
        if (end >= llen) end = llen - 1;
        deleted = zsetDeleteRangeByRank(zobj, (unsigned long)start, (unsigned long)end);
        event = "zremrangebyrank";
    } else if (type == ZRANGE_SCORE) {
        deleted = zsetDeleteRangeByScore(zobj, &range);
        event = "zremrangebyscore";
    } else {
        deleted = zsetDeleteRangeByLex(zobj, &lexrange);
        event = "zremrangebylex";
    }
    int keyremoved = zsetLength(zobj) == 0;
    if (keyremoved) dbDelete(c->db, key);
    server.dirty += deleted;
    if (deleted) {
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_ZSET, event, key, c->db->id);
        if (keyremoved) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    }
    replyLongLong(c, (long long)deleted); /* after the events, as Redis */
cleanup:
    zslFreeLexRange(&lexrange);
}

void zremrangebyrankCommand(client *c) { zremrangeGeneric(c, ZRANGE_RANK); }
void zremrangebyscoreCommand(client *c) { zremrangeGeneric(c, ZRANGE_SCORE); }
void zremrangebylexCommand(client *c) { zremrangeGeneric(c, ZRANGE_LEX); }

/* ---------------------------------------------------------------------------
 * ZSCAN
 * ------------------------------------------------------------------------ */

typedef struct zscanNodes {
    zskiplistNode **v;
    unsigned long len, cap;
} zscanNodes;

static void zscanCallback(void *privdata, const dictEntry *de) {
    zscanNodes *n = privdata;
    if (n->len == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 16;
        n->v = zrealloc(n->v, sizeof(zskiplistNode *) * n->cap);
    }
    n->v[n->len++] = dictGetVal(de);
}

/* A listpack set comes back whole in one call with cursor 0, its scores
 * exactly as stored; a skip list is walked with the dict's reverse-binary
 * cursor, scores formatted %.17Lg as Redis does for hash tables. */
void zscanCommand(client *c) {
    unsigned long cursor;
    if (scanParseCursorOrReply(c, c->argv[2], &cursor) != C_OK) return;
    robj *zobj = zsetLookupReadOrReply(c, c->argv[1], ZSET_MISSING("*2\r\n$1\r\n0\r\n*0\r\n"));
    if (!zobj) return;
    scanOptions opt;
    if (scanParseOptionsOrReply(c, 3, &opt, 0) != C_OK) return;

    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        replyArrayLen(c, 2);
        replyBulkCString(c, "0");
        void *dl = replyDeferredLen(c);
        long n = 0;
        unsigned char mbuf[LP_INTBUF_SIZE], sbuf[LP_INTBUF_SIZE];
        for (unsigned char *eptr = lpFirst(zl); eptr; eptr = lpNext(zl, lpNext(zl, eptr))) {
            int64_t mlen, slen;
            unsigned char *m = lpGet(eptr, &mlen, mbuf);
            if (!scanMatches(&opt, (const char *)m, (size_t)mlen)) continue;
            unsigned char *s = lpGet(lpNext(zl, eptr), &slen, sbuf);
            replyBulkBuf(c, m, (size_t)mlen);
            replyBulkBuf(c, s, (size_t)slen);
            n += 2;
        }
        replySetDeferredArrayLen(c, dl, n);
        return;
    }

    zset *zs = zobj->ptr;
    zscanNodes nodes = {NULL, 0, 0};
    long maxiterations = opt.count * 10;
    /* Like Redis, COUNT is compared with members + scores collected. */
    do {
        cursor = dictScan(zs->dict, cursor, zscanCallback, &nodes);
    } while (cursor && maxiterations-- && nodes.len * 2 < (unsigned long)opt.count);
    replyArrayLen(c, 2);
    replyBulkLongLong(c, (long long)cursor);
    void *dl = replyDeferredLen(c);
    long n = 0;
    for (unsigned long j = 0; j < nodes.len; j++) {
        zskiplistNode *node = nodes.v[j];
        if (!scanMatches(&opt, node->ele, sdslen(node->ele))) continue;
        char buf[MAX_LONG_DOUBLE_CHARS];
        int l = ld2string(buf, sizeof(buf), (long double)node->score, LD_STR_AUTO);
        replyBulkBuf(c, node->ele, sdslen(node->ele));
        replyBulkBuf(c, buf, (size_t)l);
        n += 2;
    }
    replySetDeferredArrayLen(c, dl, n);
    zfree(nodes.v);
}
