/* zskiplist: the ordered half of a large sorted set. A skip list of
 * (score, member) nodes ordered by score, then by member bytes (memcmp,
 * shorter first on a common prefix), where every forward link also records
 * how many nodes it jumps ("span"), so the rank of a node and the node at a
 * rank are found in O(log n) like a search.
 *
 * The skip list knows nothing about robj or the keyspace: it deals in sds
 * members and doubles, so it links into the C unit tests with sds and
 * zmalloc alone. The sorted set (zset_encoding.c) pairs it with a dict from
 * member to node for O(1) score lookups.
 *
 * Ownership: zslInsert takes ownership of the member sds; the node owns it
 * from then on and frees it with the node (zslFreeNode, zslFree, the range
 * deletions). Node pointers stay valid until the node is deleted or its
 * score changes: zslUpdateScore keeps the node when the new score leaves it
 * where it is, and otherwise moves the member to a new node, which it
 * returns so the owner can repoint its references.
 *
 * Ranges: zrangespec holds a score interval with open/closed ends;
 * zlexrangespec a member interval whose ends may be the "-" and "+"
 * infinities of ZRANGEBYLEX (zslLexMin / zslLexMax, compared by address). */
#ifndef CAIRN_ZSKIPLIST_H
#define CAIRN_ZSKIPLIST_H
#include "sds.h"
#include <stddef.h>

#define ZSKIPLIST_MAXLEVEL 32 /* enough for 2^64 elements at P = 1/4 */
#define ZSKIPLIST_P 0.25

typedef struct zskiplistNode {
    sds ele;
    double score;
    struct zskiplistNode *backward;
    struct zskiplistLevel {
        struct zskiplistNode *forward;
        unsigned long span; /* nodes skipped by this link, counting its target */
    } level[];
} zskiplistNode;

typedef struct zskiplist {
    zskiplistNode *header, *tail;
    unsigned long length;
    int level;
} zskiplist;

/* Score interval; minex/maxex set means the end is excluded. */
typedef struct zrangespec {
    double min, max;
    int minex, maxex;
} zrangespec;

/* Member interval. min/max are sds copies owned by the spec, or the
 * zslLexMin / zslLexMax sentinels, which must never be freed or measured. */
typedef struct zlexrangespec {
    sds min, max;
    int minex, maxex;
} zlexrangespec;

extern sds zslLexMin, zslLexMax;

zskiplist *zslCreate(void);
void zslFree(zskiplist *zsl);
void zslFreeNode(zskiplistNode *node);
/* Insert a member known to be absent; takes ownership of ele. */
zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele);
/* Unlink the node with this score and member. Returns 1 if found; the node
 * is freed unless node is not NULL, in which case *node receives it and
 * the caller frees it with zslFreeNode. */
int zslDelete(zskiplist *zsl, double score, const char *ele, size_t len, zskiplistNode **node);
/* Change the score of the existing (curscore, ele) node; returns the node
 * now holding the member (the old one is freed if it differs). */
zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, const char *ele, size_t len,
                              double newscore);
/* 1-based rank of (score, ele), 0 if absent. */
unsigned long zslGetRank(zskiplist *zsl, double score, const char *ele, size_t len);
/* Node at a 1-based rank, NULL if out of range. */
zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank);

/* Member order: memcmp over the common length, then the shorter first. */
int zslCompareMembers(const char *a, size_t alen, const char *b, size_t blen);

/* Score ranges. */
int zslValueGteMin(double value, const zrangespec *spec);
int zslValueLteMax(double value, const zrangespec *spec);
/* 1 if the range can contain anything at all (min <= max, not an empty
 * open interval). */
int zslRangeNotEmpty(const zrangespec *range);
int zslIsInRange(zskiplist *zsl, const zrangespec *range);
zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range);
zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range);

/* Member ranges. */
int zslLexValueGteMin(const char *v, size_t len, const zlexrangespec *spec);
int zslLexValueLteMax(const char *v, size_t len, const zlexrangespec *spec);
int zslLexRangeNotEmpty(const zlexrangespec *range);
int zslIsInLexRange(zskiplist *zsl, const zlexrangespec *range);
zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range);
zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range);
/* Parse one ZRANGEBYLEX bound ("(x", "[x", "-", "+") of len bytes. Returns
 * 0 on success, -1 on a malformed bound. */
int zslParseLexItem(const char *s, size_t len, sds *dest, int *ex);
void zslFreeLexRange(zlexrangespec *spec);

/* Range deletion. Each removed node is passed to cb (if not NULL) while
 * still intact, so the owner can drop its own references (the dict entry
 * keyed by the same sds), and then freed. Returns the number removed. */
typedef void zslDeleteCallback(void *privdata, zskiplistNode *node);
unsigned long zslDeleteRangeByScore(zskiplist *zsl, const zrangespec *range,
                                    zslDeleteCallback *cb, void *privdata);
unsigned long zslDeleteRangeByLex(zskiplist *zsl, const zlexrangespec *range,
                                  zslDeleteCallback *cb, void *privdata);
/* start and end are 1-based and inclusive. */
unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end,
                                   zslDeleteCallback *cb, void *privdata);

#endif
