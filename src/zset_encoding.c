/* zset_encoding: the sorted set value in its two encodings (see zset.h):
 * creation, conversion between listpack and skiplist, add/remove/lookup,
 * range counting and removal, the in-place iterator, and the objectTypeOps
 * (free, dup, size) registered for OBJ_ZSET.
 *
 * Functions named zzl* work on a raw listpack of member/score pairs;
 * zset* dispatch on the encoding. The listpack functions mirror the skip
 * list ones so both encodings answer every question the same way, which the
 * tests check by running each command on both encodings. */
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"
#include "zset.h"

#include <math.h>
#include <stdlib.h>

/* Keys are the nodes' member sds and values the nodes: the skip list owns
 * both, so the dict frees neither. */
static dictType zsetDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, NULL, NULL, NULL};

/* ---------------------------------------------------------------------------
 * Scores in listpacks
 * ------------------------------------------------------------------------ */

/* Redis 7.0 stores a score as a listpack integer when it is integral and
 * within +-2^62 (so -0.0 is stored as 0), and as text otherwise. */
static int zsetScoreToLongLong(double d, long long *out) {
    if (!(d >= -4611686018427387904.0 && d <= 4611686018427387904.0)) return 0; /* also NaN */
    long long ll = (long long)d;
    if ((double)ll != d) return 0;
    *out = ll;
    return 1;
}

int zsetFormatScore(char *buf, size_t len, double score) { return d2string(buf, len, score); }

/* Stored score text is at most a %.17g rendering; strtod needs a NUL. */
static double zzlStrtod(const unsigned char *s, unsigned int len) {
    char buf[128];
    if (len >= sizeof(buf)) len = sizeof(buf) - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtod(buf, NULL);
}

double zzlGetScore(unsigned char *sptr) {
    unsigned int len;
    long long ll;
    unsigned char *s = lpGetValue(sptr, &len, &ll);
    return s ? zzlStrtod(s, len) : (double)ll;
}

/* The member at eptr as bytes (integers rendered into intbuf). */
static const char *zzlMember(unsigned char *eptr, unsigned char *intbuf, size_t *len) {
    int64_t count;
    unsigned char *s = lpGet(eptr, &count, intbuf);
    *len = (size_t)count;
    return (const char *)s;
}

static int zzlCompareMember(unsigned char *eptr, const char *s, size_t len) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t mlen;
    const char *m = zzlMember(eptr, buf, &mlen);
    return zslCompareMembers(m, mlen, s, len);
}

static unsigned long zzlLength(unsigned char *zl) { return lpLength(zl) / 2; }

/* Step to the next/previous pair; *eptr becomes NULL past the end. */
static void zzlNext(unsigned char *zl, unsigned char **eptr, unsigned char **sptr) {
    unsigned char *e = lpNext(zl, *sptr);
    *eptr = e;
    *sptr = e ? lpNext(zl, e) : NULL;
}

static void zzlPrev(unsigned char *zl, unsigned char **eptr, unsigned char **sptr) {
    unsigned char *s = lpPrev(zl, *eptr);
    *sptr = s;
    *eptr = s ? lpPrev(zl, s) : NULL;
}

/* Find member ele; returns its entry and sets *score, or NULL. */
static unsigned char *zzlFind(unsigned char *zl, const char *ele, size_t len, double *score) {
    unsigned char *eptr = lpFirst(zl);
    if (!eptr) return NULL;
    eptr = lpFind(zl, eptr, (const unsigned char *)ele, (uint32_t)len, 1);
    if (eptr && score) *score = zzlGetScore(lpNext(zl, eptr));
    return eptr;
}

static unsigned char *zzlDelete(unsigned char *zl, unsigned char *eptr) {
    return lpDeleteRangeWithEntry(zl, &eptr, 2);
}

/* Insert the pair before eptr (NULL: at the end). */
static unsigned char *zzlInsertAt(unsigned char *zl, unsigned char *eptr, const char *ele,
                                  size_t len, double score) {
    char buf[MAX_D2STRING_CHARS];
    int blen = 0;
    long long ll;
    int isint = zsetScoreToLongLong(score, &ll);
    if (!isint) blen = zsetFormatScore(buf, sizeof(buf), score);
    if (eptr == NULL) {
        zl = lpAppend(zl, (const unsigned char *)ele, (uint32_t)len);
        zl = isint ? lpAppendInteger(zl, ll) : lpAppend(zl, (unsigned char *)buf, (uint32_t)blen);
    } else {
        unsigned char *sptr;
        zl = lpInsertString(zl, (const unsigned char *)ele, (uint32_t)len, eptr, LP_BEFORE, &sptr);
        zl = isint ? lpInsertInteger(zl, ll, sptr, LP_AFTER, NULL)
                   : lpInsertString(zl, (unsigned char *)buf, (uint32_t)blen, sptr, LP_AFTER, NULL);
    }
    return zl;
}

/* Insert keeping the (score, member) order. */
static unsigned char *zzlInsert(unsigned char *zl, const char *ele, size_t len, double score) {
    unsigned char *eptr = lpFirst(zl);
    while (eptr) {
        unsigned char *sptr = lpNext(zl, eptr);
        double s = zzlGetScore(sptr);
        if (s > score || (s == score && zzlCompareMember(eptr, ele, len) > 0)) break;
        eptr = lpNext(zl, sptr);
    }
    return zzlInsertAt(zl, eptr, ele, len, score);
}

static int zzlIsInRange(unsigned char *zl, const zrangespec *range) {
    if (!zslRangeNotEmpty(range)) return 0;
    unsigned char *p = lpLast(zl);
    if (!p || !zslValueGteMin(zzlGetScore(p), range)) return 0;
    p = lpSeek(zl, 1);
    return p && zslValueLteMax(zzlGetScore(p), range);
}

static unsigned char *zzlFirstInRange(unsigned char *zl, const zrangespec *range) {
    if (!zzlIsInRange(zl, range)) return NULL;
    for (unsigned char *eptr = lpFirst(zl); eptr;) {
        unsigned char *sptr = lpNext(zl, eptr);
        double score = zzlGetScore(sptr);
        if (zslValueGteMin(score, range)) return zslValueLteMax(score, range) ? eptr : NULL;
        eptr = lpNext(zl, sptr);
    }
    return NULL;
}

static unsigned char *zzlLastInRange(unsigned char *zl, const zrangespec *range) {
    if (!zzlIsInRange(zl, range)) return NULL;
    for (unsigned char *sptr = lpLast(zl); sptr;) {
        unsigned char *eptr = lpPrev(zl, sptr);
        double score = zzlGetScore(sptr);
        if (zslValueLteMax(score, range)) return zslValueGteMin(score, range) ? eptr : NULL;
        sptr = lpPrev(zl, eptr);
    }
    return NULL;
}

static int zzlLexGteMin(unsigned char *eptr, const zlexrangespec *range) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const char *m = zzlMember(eptr, buf, &len);
    return zslLexValueGteMin(m, len, range);
}

static int zzlLexLteMax(unsigned char *eptr, const zlexrangespec *range) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const char *m = zzlMember(eptr, buf, &len);
    return zslLexValueLteMax(m, len, range);
}

static int zzlIsInLexRange(unsigned char *zl, const zlexrangespec *range) {
    if (!zslLexRangeNotEmpty(range)) return 0;
    unsigned char *p = lpSeek(zl, -2);
    if (!p || !zzlLexGteMin(p, range)) return 0;
    p = lpFirst(zl);
    return p && zzlLexLteMax(p, range);
}

static unsigned char *zzlFirstInLexRange(unsigned char *zl, const zlexrangespec *range) {
    if (!zzlIsInLexRange(zl, range)) return NULL;
    for (unsigned char *eptr = lpFirst(zl); eptr; eptr = lpNext(zl, lpNext(zl, eptr)))
        if (zzlLexGteMin(eptr, range)) return zzlLexLteMax(eptr, range) ? eptr : NULL;
    return NULL;
}

static unsigned char *zzlLastInLexRange(unsigned char *zl, const zlexrangespec *range) {
    if (!zzlIsInLexRange(zl, range)) return NULL;
    for (unsigned char *eptr = lpSeek(zl, -2); eptr;) {
        if (zzlLexLteMax(eptr, range)) return zzlLexGteMin(eptr, range) ? eptr : NULL;
        unsigned char *sptr = lpPrev(zl, eptr);
        eptr = sptr ? lpPrev(zl, sptr) : NULL;
    }
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Objects, conversion
 * ------------------------------------------------------------------------ */

robj *zsetCreateListpackObject(void) {
    robj *o = createObject(OBJ_ZSET, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

robj *zsetCreateSkiplistObject(void) {
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    robj *o = createObject(OBJ_ZSET, zs);
    o->encoding = OBJ_ENCODING_SKIPLIST;
    return o;
}

robj *zsetCreateFor(size_t first_member_len) {
    if (cfg.zset_max_listpack_entries == 0 ||
        (long long)first_member_len > cfg.zset_max_listpack_value)
        return zsetCreateSkiplistObject();
    return zsetCreateListpackObject();
}

robj *zsetCreateSized(long size) {
    if (size > cfg.zset_max_listpack_entries) return zsetCreateSkiplistObject();
    return zsetCreateListpackObject();
}

unsigned long zsetLength(const robj *zobj) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return zzlLength(zobj->ptr);
    return ((const zset *)zobj->ptr)->zsl->length;
}

/* Shrink the member dict after mass removals, as the keyspace does. */
static void zsetMaybeShrink(zset *zs) {
    if (dictSlots(zs->dict) > DICT_HT_INITIAL_SIZE &&
        dictSize(zs->dict) * 100 / dictSlots(zs->dict) < 10)
        dictResize(zs->dict);
}

void zsetConvert(robj *zobj, int encoding) {
    if (zobj->encoding == encoding) return;
    if (encoding == OBJ_ENCODING_SKIPLIST) {
        unsigned char *zl = zobj->ptr;
        zset *zs = zmalloc(sizeof(*zs));
        zs->dict = dictCreate(&zsetDictType);
        zs->zsl = zslCreate();
        if (zzlLength(zl)) dictExpand(zs->dict, zzlLength(zl));
        unsigned char *eptr = lpFirst(zl), *sptr = eptr ? lpNext(zl, eptr) : NULL;
        unsigned char buf[LP_INTBUF_SIZE];
        while (eptr) {
            size_t len;
            const char *m = zzlMember(eptr, buf, &len);
            zskiplistNode *node = zslInsert(zs->zsl, zzlGetScore(sptr), sdsnewlen(m, len));
            dictAdd(zs->dict, node->ele, node);
            zzlNext(zl, &eptr, &sptr);
        }
        lpFree(zl);
        zobj->ptr = zs;
        zobj->encoding = OBJ_ENCODING_SKIPLIST;
    } else {
        zset *zs = zobj->ptr;
        unsigned char *zl = lpNew(0);
        for (zskiplistNode *n = zs->zsl->header->level[0].forward; n; n = n->level[0].forward)
            zl = zzlInsertAt(zl, NULL, n->ele, sdslen(n->ele), n->score);
        dictRelease(zs->dict);
        zslFree(zs->zsl);
        zfree(zs);
        zobj->ptr = zl;
        zobj->encoding = OBJ_ENCODING_LISTPACK;
    }
}

void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return;
    zset *zs = zobj->ptr;
    if ((long long)zs->zsl->length <= cfg.zset_max_listpack_entries &&
        (long long)maxelelen <= cfg.zset_max_listpack_value && lpSafeToAdd(NULL, totelelen))
        zsetConvert(zobj, OBJ_ENCODING_LISTPACK);
}

/* ---------------------------------------------------------------------------
 * Add, remove, look up
 * ------------------------------------------------------------------------ */

/* Apply NX/XX/GT/LT/INCR to an existing member's score. Returns 0 for NaN,
 * otherwise 1 with *score set to the new score or ZADD_OUT_NOP set. */
static int zsetUpdateDecision(double curscore, double *score, int in_flags, int *out_flags) {
    if (in_flags & ZADD_IN_NX) {
        *out_flags |= ZADD_OUT_NOP;
        return 1;
    }
    if (in_flags & ZADD_IN_INCR) {
        *score += curscore;
        if (isnan(*score)) {
            *out_flags |= ZADD_OUT_NAN;
            return 0;
        }
    }
    if (((in_flags & ZADD_IN_LT) && *score >= curscore) ||
        ((in_flags & ZADD_IN_GT) && *score <= curscore)) {
        *out_flags |= ZADD_OUT_NOP;
        return 1;
    }
    return 1;
}

int zsetAdd(robj *zobj, double score, sds ele, int in_flags, int *out_flags, double *newscore) {
    double curscore;
    size_t len = sdslen(ele);
    *out_flags = 0;
    if (isnan(score)) {
        *out_flags = ZADD_OUT_NAN;
        return 0;
    }
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFind(zobj->ptr, ele, len, &curscore);
        if (eptr) {
            if (!zsetUpdateDecision(curscore, &score, in_flags, out_flags)) return 0;
            if (*out_flags & ZADD_OUT_NOP) return 1;
            if (newscore) *newscore = score;
            /* -0 and 0 compare equal: like Redis, that is no change. */
            if (score != curscore) {
                zobj->ptr = zzlDelete(zobj->ptr, eptr);
                zobj->ptr = zzlInsert(zobj->ptr, ele, len, score);
                *out_flags |= ZADD_OUT_UPDATED;
            }
            return 1;
        }
        if (in_flags & ZADD_IN_XX) {
            *out_flags |= ZADD_OUT_NOP;
            return 1;
        }
        /* Check the limits before inserting: the new member goes straight
         * into the skip list if the listpack would outgrow them. */
        if ((long long)zzlLength(zobj->ptr) + 1 > cfg.zset_max_listpack_entries ||
            (long long)len > cfg.zset_max_listpack_value || !lpSafeToAdd(zobj->ptr, len)) {
            zsetConvert(zobj, OBJ_ENCODING_SKIPLIST);
        } else {
            zobj->ptr = zzlInsert(zobj->ptr, ele, len, score);
            if (newscore) *newscore = score;
            *out_flags |= ZADD_OUT_ADDED;
            return 1;
        }
    }
    zset *zs = zobj->ptr;
    /* One hash of the member: the position found here is where a new member
     * goes (nothing touches the dict before the insert below). */
    dictInsertPos pos;
    dictEntry *de = dictFindOrPos(zs->dict, ele, &pos);
    if (de) {
        zskiplistNode *node = dictGetVal(de);
        curscore = node->score;
        if (!zsetUpdateDecision(curscore, &score, in_flags, out_flags)) return 0;
        if (*out_flags & ZADD_OUT_NOP) return 1;
        if (newscore) *newscore = score;
        if (score != curscore) {
            node = zslUpdateScore(zs->zsl, curscore, ele, len, score);
            /* The node may have been replaced (its member sds, the dict
             * key, moves with it): repoint the value. */
            dictSetVal(zs->dict, de, node);
            *out_flags |= ZADD_OUT_UPDATED;
        }
        return 1;
    }
    if (in_flags & ZADD_IN_XX) {
        *out_flags |= ZADD_OUT_NOP;
        return 1;
    }
    zskiplistNode *node = zslInsert(zs->zsl, score, sdsdup(ele));
    dictSetVal(zs->dict, dictInsertAtPos(zs->dict, node->ele, &pos), node);
    *out_flags |= ZADD_OUT_ADDED;
    if (newscore) *newscore = score;
    return 1;
}

int zsetDel(robj *zobj, sds ele) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFind(zobj->ptr, ele, sdslen(ele), NULL);
        if (!eptr) return 0;
        zobj->ptr = zzlDelete(zobj->ptr, eptr);
        return 1;
    }
    zset *zs = zobj->ptr;
    dictEntry *de = dictUnlink(zs->dict, ele);
    if (!de) return 0;
    zskiplistNode *node = dictGetVal(de);
    /* The entry's key is the node's sds: free the entry before the node. */
    dictFreeUnlinkedEntry(zs->dict, de);
    zslDelete(zs->zsl, node->score, node->ele, sdslen(node->ele), NULL);
    zsetMaybeShrink(zs);
    return 1;
}

int zsetScore(robj *zobj, sds ele, double *score) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK)
        return zzlFind(zobj->ptr, ele, sdslen(ele), score) != NULL;
    dictEntry *de = dictFind(((zset *)zobj->ptr)->dict, ele);
    if (!de) return 0;
    *score = ((zskiplistNode *)dictGetVal(de))->score;
    return 1;
}

long zsetRank(robj *zobj, sds ele, int reverse) {
    unsigned long len = zsetLength(zobj), rank;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        unsigned char *eptr = lpFirst(zl);
        rank = 0;
        while (eptr && !lpCompare(eptr, (unsigned char *)ele, (uint32_t)sdslen(ele))) {
            eptr = lpNext(zl, lpNext(zl, eptr));
            rank++;
        }
        if (!eptr) return -1;
        return (long)(reverse ? len - rank - 1 : rank);
    }
    zset *zs = zobj->ptr;
    dictEntry *de = dictFind(zs->dict, ele);
    if (!de) return -1;
    zskiplistNode *node = dictGetVal(de);
    rank = zslGetRank(zs->zsl, node->score, node->ele, sdslen(node->ele));
    return (long)(reverse ? len - rank : rank - 1);
}

/* ---------------------------------------------------------------------------
 * Ranges
 * ------------------------------------------------------------------------ */

unsigned long zsetCountInRange(robj *zobj, const zrangespec *range) {
    unsigned long count = 0;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        unsigned char *eptr = zzlFirstInRange(zl, range);
        unsigned char *sptr = eptr ? lpNext(zl, eptr) : NULL;
        while (eptr && zslValueLteMax(zzlGetScore(sptr), range)) {
            count++;
            zzlNext(zl, &eptr, &sptr);
        }
        return count;
    }
    /* Ranks of both ends give the count without walking. */
    zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
    zskiplistNode *first = zslFirstInRange(zsl, range);
    if (!first) return 0;
    zskiplistNode *last = zslLastInRange(zsl, range);
    return zslGetRank(zsl, last->score, last->ele, sdslen(last->ele)) -
           zslGetRank(zsl, first->score, first->ele, sdslen(first->ele)) + 1;
}

unsigned long zsetCountInLexRange(robj *zobj, const zlexrangespec *range) {
    unsigned long count = 0;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        unsigned char *eptr = zzlFirstInLexRange(zl, range);
        while (eptr && zzlLexLteMax(eptr, range)) {
            count++;
            eptr = lpNext(zl, lpNext(zl, eptr));
        }
        return count;
    }
    zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
    zskiplistNode *first = zslFirstInLexRange(zsl, range);
    if (!first) return 0;
    zskiplistNode *last = zslLastInLexRange(zsl, range);
    return zslGetRank(zsl, last->score, last->ele, sdslen(last->ele)) -
           zslGetRank(zsl, first->score, first->ele, sdslen(first->ele)) + 1;
}

/* Range deletion callback: drop the dict entry keyed by the node's sds. */
static void zsetDropDictEntry(void *privdata, zskiplistNode *node) {
    dict *d = privdata;
    dictEntry *de = dictUnlink(d, node->ele);
    if (de) dictFreeUnlinkedEntry(d, de);
}

unsigned long zsetDeleteRangeByScore(robj *zobj, const zrangespec *range) {
    unsigned long removed = 0;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        unsigned char *eptr = zzlFirstInRange(zl, range);
        while (eptr) {
            unsigned char *sptr = lpNext(zl, eptr);
            if (!zslValueLteMax(zzlGetScore(sptr), range)) break;
            zl = lpDeleteRangeWithEntry(zl, &eptr, 2);
            removed++;
        }
        zobj->ptr = zl;
        return removed;
    }
    zset *zs = zobj->ptr;
    removed = zslDeleteRangeByScore(zs->zsl, range, zsetDropDictEntry, zs->dict);
    zsetMaybeShrink(zs);
    return removed;
}

unsigned long zsetDeleteRangeByLex(robj *zobj, const zlexrangespec *range) {
    unsigned long removed = 0;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *zl = zobj->ptr;
        unsigned char *eptr = zzlFirstInLexRange(zl, range);
        while (eptr && zzlLexLteMax(eptr, range)) {
            zl = lpDeleteRangeWithEntry(zl, &eptr, 2);
            removed++;
        }
        zobj->ptr = zl;
        return removed;
    }
    zset *zs = zobj->ptr;
    removed = zslDeleteRangeByLex(zs->zsl, range, zsetDropDictEntry, zs->dict);
    zsetMaybeShrink(zs);
    return removed;
}

unsigned long zsetDeleteRangeByRank(robj *zobj, unsigned long start, unsigned long end) {
    unsigned long num = end - start + 1;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zobj->ptr = lpDeleteRange(zobj->ptr, (long)(2 * start), 2 * num);
        return num;
    }
    zset *zs = zobj->ptr;
    unsigned long removed = zslDeleteRangeByRank(zs->zsl, start + 1, end + 1, zsetDropDictEntry,
                                                 zs->dict);
    zsetMaybeShrink(zs);
    return removed;
}

/* ---------------------------------------------------------------------------
 * Iteration
 * ------------------------------------------------------------------------ */

static void zsetIterReset(zsetIter *it, robj *zobj, int reverse) {
    it->zobj = zobj;
    it->reverse = reverse;
    it->eptr = it->sptr = NULL;
    it->node = NULL;
}

/* Listpack: set sptr from eptr (or clear both). */
static void zsetIterSetLp(zsetIter *it, unsigned char *eptr) {
    it->eptr = eptr;
    it->sptr = eptr ? lpNext(it->zobj->ptr, eptr) : NULL;
}

void zsetIterInit(zsetIter *it, robj *zobj, int reverse) {
    zsetIterReset(it, zobj, reverse);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zsetIterSetLp(it, reverse ? lpSeek(zobj->ptr, -2) : lpFirst(zobj->ptr));
    } else {
        zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
        it->node = reverse ? zsl->tail : zsl->header->level[0].forward;
    }
}

void zsetIterInitAtRank(zsetIter *it, robj *zobj, unsigned long rank, int reverse) {
    zsetIterReset(it, zobj, reverse);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK)
        zsetIterSetLp(it, lpSeek(zobj->ptr, (long)(2 * rank)));
    else
        it->node = zslGetElementByRank(((zset *)zobj->ptr)->zsl, rank + 1);
}

void zsetIterInitAtScore(zsetIter *it, robj *zobj, const zrangespec *range, int reverse) {
    zsetIterReset(it, zobj, reverse);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zsetIterSetLp(it, reverse ? zzlLastInRange(zobj->ptr, range)
                                  : zzlFirstInRange(zobj->ptr, range));
    } else {
        zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
        it->node = reverse ? zslLastInRange(zsl, range) : zslFirstInRange(zsl, range);
    }
}

void zsetIterInitAtLex(zsetIter *it, robj *zobj, const zlexrangespec *range, int reverse) {
    zsetIterReset(it, zobj, reverse);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zsetIterSetLp(it, reverse ? zzlLastInLexRange(zobj->ptr, range)
                                  : zzlFirstInLexRange(zobj->ptr, range));
    } else {
        zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
        it->node = reverse ? zslLastInLexRange(zsl, range) : zslFirstInLexRange(zsl, range);
    }
}

const char *zsetIterMember(zsetIter *it, size_t *len) {
    if (it->eptr) return zzlMember(it->eptr, it->intbuf, len);
    *len = sdslen(it->node->ele);
    return it->node->ele;
}

double zsetIterScore(zsetIter *it) {
    return it->eptr ? zzlGetScore(it->sptr) : it->node->score;
}

void zsetIterNext(zsetIter *it) {
    if (it->eptr) {
        if (it->reverse) zzlPrev(it->zobj->ptr, &it->eptr, &it->sptr);
        else zzlNext(it->zobj->ptr, &it->eptr, &it->sptr);
        if (!it->eptr) it->sptr = NULL;
    } else if (it->node) {
        it->node = it->reverse ? it->node->backward : it->node->level[0].forward;
    }
}

/* ---------------------------------------------------------------------------
 * objectTypeOps
 * ------------------------------------------------------------------------ */

static void zsetObjFree(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        lpFree(o->ptr);
        return;
    }
    zset *zs = o->ptr;
    dictRelease(zs->dict);
    zslFree(zs->zsl);
    zfree(zs);
}

static robj *zsetObjDup(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        size_t bytes = lpBytes(o->ptr);
        unsigned char *lp = zmalloc(bytes);
        memcpy(lp, o->ptr, bytes);
        robj *n = createObject(OBJ_ZSET, lp);
        n->encoding = OBJ_ENCODING_LISTPACK;
        return n;
    }
    robj *n = zsetCreateSkiplistObject();
    zset *src = o->ptr, *dst = n->ptr;
    if (src->zsl->length) dictExpand(dst->dict, src->zsl->length);
    /* Walking backwards and inserting keeps every insert at the head. */
    for (zskiplistNode *x = src->zsl->tail; x; x = x->backward) {
        zskiplistNode *node = zslInsert(dst->zsl, x->score, sdsdup(x->ele));
        dictAdd(dst->dict, node->ele, node);
    }
    return n;
}

/* MEMORY USAGE: the listpack's allocation, or for a skip list the dict
 * table plus an average over a few sampled nodes (Redis samples too). */
#define ZSET_SIZE_SAMPLES 5
static size_t zsetObjSize(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return zmalloc_size(o->ptr);
    zset *zs = o->ptr;
    size_t total = sizeof(zset) + sizeof(dict) + dictSlots(zs->dict) * sizeof(dictEntry *) +
                   zmalloc_size(zs->zsl->header) + sizeof(zskiplist);
    size_t sampled = 0, bytes = 0;
    for (zskiplistNode *x = zs->zsl->header->level[0].forward; x && sampled < ZSET_SIZE_SAMPLES;
         x = x->level[0].forward, sampled++)
        bytes += zmalloc_size(x) + sdsAllocSize(x->ele) + sizeof(dictEntry);
    if (sampled) total += bytes / sampled * zs->zsl->length;
    return total;
}

static size_t zsetObjFreeEffort(robj *o) {
    return o->encoding == OBJ_ENCODING_SKIPLIST ? ((zset *)o->ptr)->zsl->length : 1;
}

__attribute__((constructor)) static void zsetRegisterType(void) {
    objectTypes[OBJ_ZSET] = (objectTypeOps){zsetObjFree, zsetObjDup, zsetObjSize, zsetObjFreeEffort};
}
