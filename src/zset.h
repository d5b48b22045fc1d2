/* zset: the sorted set value and its two encodings, shared by the sorted
 * set commands (t_zset.c, t_zset_ops.c).
 *
 *  - "listpack" (small sets): one listpack of member, score, member, score...
 *    sorted by score, then member bytes. Scores that are integers within
 *    +-2^62 are stored as listpack integers, others as the text Redis writes
 *    (%.17g, "inf", "-inf"), so the bytes match Redis 7.0's listpacks.
 *  - "skiplist": a zskiplist (order, ranks) plus a dict from member to the
 *    skip list node (score lookups in O(1)). The node owns the member sds;
 *    the dict key is the same pointer.
 * A set starts as a listpack unless zset-max-listpack-entries is 0 or its
 * first member is longer than zset-max-listpack-value, and becomes a
 * skiplist once it would exceed either limit. It never goes back, except
 * that results built by Z*STORE are compacted (zsetConvertToListpackIfNeeded)
 * as Redis does.
 *
 * Members come in as sds (command arguments) and are copied in. The
 * iterator (zsetIter) reads members and scores in place from either
 * encoding, which is how replies are written without intermediate copies.
 * Nothing here replies or touches the keyspace. */
#ifndef CAIRN_ZSET_H
#define CAIRN_ZSET_H
#include "dict.h"
#include "listpack.h"
#include "object.h"
#include "sds.h"
#include "zskiplist.h"

typedef struct zset {
    dict *dict; /* member sds (owned by the node) -> zskiplistNode * */
    zskiplist *zsl;
} zset;

/* zsetAdd input flags */
#define ZADD_IN_NONE 0
#define ZADD_IN_INCR (1 << 0) /* add the score to the current one */
#define ZADD_IN_NX   (1 << 1) /* only add new members */
#define ZADD_IN_XX   (1 << 2) /* only update existing members */
#define ZADD_IN_GT   (1 << 3) /* update only to a greater score */
#define ZADD_IN_LT   (1 << 4) /* update only to a lesser score */
/* zsetAdd output flags */
#define ZADD_OUT_NOP     (1 << 0) /* nothing done (NX/XX/GT/LT said no) */
#define ZADD_OUT_NAN     (1 << 1) /* the score was or became NaN */
#define ZADD_OUT_ADDED   (1 << 2)
#define ZADD_OUT_UPDATED (1 << 3)

robj *zsetCreateListpackObject(void);
robj *zsetCreateSkiplistObject(void);
/* The empty set Redis would create to receive a first member of this
 * length (ZADD on a missing key). */
robj *zsetCreateFor(size_t first_member_len);
/* An empty set for about `size` members (-1 = unknown): the encoding
 * Redis picks for ZRANGESTORE destinations. */
robj *zsetCreateSized(long size);
unsigned long zsetLength(const robj *zobj);
void zsetConvert(robj *zobj, int encoding);
/* Back to a listpack when the result of a set operation is small enough. */
void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen);

/* Add or update member ele. Returns 1 on success (out_flags tells what
 * happened, *newscore gets the resulting score when it was set), 0 when
 * the score is or would become NaN (ZADD_OUT_NAN). */
int zsetAdd(robj *zobj, double score, sds ele, int in_flags, int *out_flags, double *newscore);
/* 1 if ele was there and is now removed. */
int zsetDel(robj *zobj, sds ele);
/* 1 and *score if ele is a member. */
int zsetScore(robj *zobj, sds ele, double *score);
/* 0-based rank from the lowest (or, reverse, the highest) score; -1 if
 * ele is not a member. */
long zsetRank(robj *zobj, sds ele, int reverse);
/* Members in a range. */
unsigned long zsetCountInRange(robj *zobj, const zrangespec *range);
unsigned long zsetCountInLexRange(robj *zobj, const zlexrangespec *range);
/* Range removals; start/end are 0-based, inclusive, already clamped. */
unsigned long zsetDeleteRangeByScore(robj *zobj, const zrangespec *range);
unsigned long zsetDeleteRangeByLex(robj *zobj, const zlexrangespec *range);
unsigned long zsetDeleteRangeByRank(robj *zobj, unsigned long start, unsigned long end);

/* The score stored at a listpack entry (integer or text). */
double zzlGetScore(unsigned char *sptr);

/* Score text as Redis stores it in a listpack string entry (and as ZSCAN
 * shows it): %.17g, inf, -inf. Returns the length. */
int zsetFormatScore(char *buf, size_t len, double score);

/* ---- in-place iteration over either encoding ---- */
typedef struct zsetIter {
    robj *zobj;
    int reverse;                    /* walk towards lower scores */
    unsigned char *eptr, *sptr;     /* listpack: member and score entries */
    zskiplistNode *node;            /* skiplist */
    unsigned char intbuf[LP_INTBUF_SIZE]; /* integer members rendered as text */
} zsetIter;

/* Position at the lowest (or, reverse, the highest) element. */
void zsetIterInit(zsetIter *it, robj *zobj, int reverse);
/* Position at a 0-based rank counted from the lowest score; walk from
 * there in the given direction. rank must be < zsetLength. */
void zsetIterInitAtRank(zsetIter *it, robj *zobj, unsigned long rank, int reverse);
/* Position at the first element in range (reverse: the last). Not valid
 * if the range holds nothing. The caller stops at the other end. */
void zsetIterInitAtScore(zsetIter *it, robj *zobj, const zrangespec *range, int reverse);
void zsetIterInitAtLex(zsetIter *it, robj *zobj, const zlexrangespec *range, int reverse);
static inline int zsetIterValid(const zsetIter *it) { return it->eptr != NULL || it->node != NULL; }
/* The current member; valid until the iterator moves or the set changes. */
const char *zsetIterMember(zsetIter *it, size_t *len);
double zsetIterScore(zsetIter *it);
void zsetIterNext(zsetIter *it);

#endif
