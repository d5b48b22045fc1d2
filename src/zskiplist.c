/* zskiplist: a skip list with spans, ordered by (score, member). See
 * zskiplist.h for the model and the ownership rules.
 *
 * Every search walks down from the highest level keeping, per level, the
 * last node before the target (update[]) and, where ranks matter, how many
 * nodes were passed to reach it (rank[]). Insertion and deletion fix the
 * links and spans of exactly those nodes. Levels are drawn with probability
 * 1/4 per extra level, so a search touches about 2 * log4(n) nodes. */
#include "zskiplist.h"
#include "zmalloc.h"

#include <stdlib.h>
#include <string.h>

/* The lex infinities are recognised by address; the bytes are never read. */
static char lexmin_sentinel[1], lexmax_sentinel[1];
sds zslLexMin = lexmin_sentinel;
sds zslLexMax = lexmax_sentinel;

static zskiplistNode *zslCreateNode(int level, double score, sds ele) {
    zskiplistNode *n = zmalloc(sizeof(*n) + (size_t)level * sizeof(struct zskiplistLevel));
    n->score = score;
    n->ele = ele;
    n->backward = NULL;
    return n;
}

zskiplist *zslCreate(void) {
    zskiplist *zsl = zmalloc(sizeof(*zsl));
    zsl->level = 1;
    zsl->length = 0;
    zsl->header = zslCreateNode(ZSKIPLIST_MAXLEVEL, 0, NULL);
    for (int j = 0; j < ZSKIPLIST_MAXLEVEL; j++) {
        zsl->header->level[j].forward = NULL;
        zsl->header->level[j].span = 0;
    }
    zsl->tail = NULL;
    return zsl;
}

void zslFreeNode(zskiplistNode *node) {
    sdsfree(node->ele);
    zfree(node);
}

void zslFree(zskiplist *zsl) {
    zskiplistNode *node = zsl->header->level[0].forward;
    zfree(zsl->header);
    while (node) {
        zskiplistNode *next = node->level[0].forward;
        zslFreeNode(node);
        node = next;
    }
    zfree(zsl);
}

static int zslRandomLevel(void) {
    const long threshold = (long)(ZSKIPLIST_P * (double)RAND_MAX);
    int level = 1;
    while (random() < threshold && level < ZSKIPLIST_MAXLEVEL) level++;
    return level;
}

int zslCompareMembers(const char *a, size_t alen, const char *b, size_t blen) {
    size_t min = alen < blen ? alen : blen;
    int cmp = min ? memcmp(a, b, min) : 0;
    if (cmp) return cmp;
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

/* Does node n sort strictly before (score, ele)? */
static inline int zslNodeBefore(const zskiplistNode *n, double score, const char *ele, size_t len) {
    return n->score < score ||
           (n->score == score && zslCompareMembers(n->ele, sdslen(n->ele), ele, len) < 0);
}

static inline int zslNodeIs(const zskiplistNode *n, double score, const char *ele, size_t len) {
    return n && n->score == score && sdslen(n->ele) == len && memcmp(n->ele, ele, len) == 0;
}

zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    unsigned long rank[ZSKIPLIST_MAXLEVEL];
    size_t len = sdslen(ele);
    for (int i = zsl->level - 1; i >= 0; i--) {
        rank[i] = i == zsl->level - 1 ? 0 : rank[i + 1];
        while (x->level[i].forward && zslNodeBefore(x->level[i].forward, score, ele, len)) {
            rank[i] += x->level[i].span;
            x = x->level[i].forward;
        }
        update[i] = x;
    }
    int level = zslRandomLevel();
    if (level > zsl->level) {
        /* New levels start at the header and (for now) span the whole list. */
        for (int i = zsl->level; i < level; i++) {
            rank[i] = 0;
            update[i] = zsl->header;
            update[i]->level[i].span = zsl->length;
        }
        zsl->level = level;
    }
    x = zslCreateNode(level, score, ele);
    for (int i = 0; i < level; i++) {
        x->level[i].forward = update[i]->level[i].forward;
        update[i]->level[i].forward = x;
        /* rank[0] - rank[i] nodes lie between update[i] and the new node. */
        x->level[i].span = update[i]->level[i].span - (rank[0] - rank[i]);
        update[i]->level[i].span = (rank[0] - rank[i]) + 1;
    }
    /* Links above the new node's height now jump over one more node. */
    for (int i = level; i < zsl->level; i++) update[i]->level[i].span++;
    x->backward = update[0] == zsl->header ? NULL : update[0];
    if (x->level[0].forward) x->level[0].forward->backward = x;
    else zsl->tail = x;
    zsl->length++;
    return x;
}

/* Unlink x given the per-level predecessors found by a search. */
static void zslDeleteNode(zskiplist *zsl, zskiplistNode *x, zskiplistNode **update) {
    for (int i = 0; i < zsl->level; i++) {
        if (update[i]->level[i].forward == x) {
            update[i]->level[i].span += x->level[i].span - 1;
            update[i]->level[i].forward = x->level[i].forward;
        } else {
            update[i]->level[i].span -= 1;
        }
    }
    if (x->level[0].forward) x->level[0].forward->backward = x->backward;
    else zsl->tail = x->backward;
    while (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) zsl->level--;
    zsl->length--;
}

/* Fill update[] with the last node before (score, ele) on every level and
 * return the first node at or after it. */
static zskiplistNode *zslSearch(zskiplist *zsl, double score, const char *ele, size_t len,
                                zskiplistNode **update) {
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && zslNodeBefore(x->level[i].forward, score, ele, len))
            x = x->level[i].forward;
        update[i] = x;
    }
    return x->level[0].forward;
}

int zslDelete(zskiplist *zsl, double score, const char *ele, size_t len, zskiplistNode **node) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zslSearch(zsl, score, ele, len, update);
    if (!zslNodeIs(x, score, ele, len)) return 0;
    zslDeleteNode(zsl, x, update);
    if (node) *node = x;
    else zslFreeNode(x);
    return 1;
}

zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, const char *ele, size_t len,
                              double newscore) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zslSearch(zsl, curscore, ele, len, update);
    if (!zslNodeIs(x, curscore, ele, len)) return NULL;
    /* Still strictly between its neighbours: no relinking needed. */
    if ((x->backward == NULL || x->backward->score < newscore) &&
        (x->level[0].forward == NULL || x->level[0].forward->score > newscore)) {
        x->score = newscore;
        return x;
    }
    zslDeleteNode(zsl, x, update);
    zskiplistNode *n = zslInsert(zsl, newscore, x->ele);
    x->ele = NULL; /* now owned by n */
    zfree(x);
    return n;
}

unsigned long zslGetRank(zskiplist *zsl, double score, const char *ele, size_t len) {
    zskiplistNode *x = zsl->header;
    unsigned long rank = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward &&
               (x->level[i].forward->score < score ||
                (x->level[i].forward->score == score &&
                 zslCompareMembers(x->level[i].forward->ele, sdslen(x->level[i].forward->ele),
                                   ele, len) <= 0))) {
            rank += x->level[i].span;
            x = x->level[i].forward;
        }
        if (x != zsl->header && zslNodeIs(x, score, ele, len)) return rank;
    }
    return 0;
}

zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank) {
    zskiplistNode *x = zsl->header;
    unsigned long traversed = 0;
    if (rank == 0 || rank > zsl->length) return NULL;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && traversed + x->level[i].span <= rank) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
        }
        if (traversed == rank) return x;
    }
    return NULL;
}

/* ---- score ranges ---- */

int zslValueGteMin(double value, const zrangespec *spec) {
    return spec->minex ? value > spec->min : value >= spec->min;
}

int zslValueLteMax(double value, const zrangespec *spec) {
    return spec->maxex ? value < spec->max : value <= spec->max;
}

int zslRangeNotEmpty(const zrangespec *range) {
    return !(range->min > range->max ||
             (range->min == range->max && (range->minex || range->maxex)));
}

int zslIsInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslRangeNotEmpty(range)) return 0;
    zskiplistNode *x = zsl->tail;
    if (x == NULL || !zslValueGteMin(x->score, range)) return 0;
    x = zsl->header->level[0].forward;
    if (x == NULL || !zslValueLteMax(x->score, range)) return 0;
    return 1;
}

zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslIsInRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range))
            x = x->level[i].forward;
    /* The range overlaps the list, so a next node exists. */
    x = x->level[0].forward;
    return zslValueLteMax(x->score, range) ? x : NULL;
}

zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslIsInRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && zslValueLteMax(x->level[i].forward->score, range))
            x = x->level[i].forward;
    return zslValueGteMin(x->score, range) ? x : NULL;
}

/* ---- member (lex) ranges ---- */

/* Order a value against a bound that may be an infinity. */
static int zslLexCmpBound(const char *v, size_t len, sds bound) {
    if (bound == zslLexMin) return 1;
    if (bound == zslLexMax) return -1;
    return zslCompareMembers(v, len, bound, sdslen(bound));
}

int zslLexValueGteMin(const char *v, size_t len, const zlexrangespec *spec) {
    int cmp = zslLexCmpBound(v, len, spec->min);
    return spec->minex ? cmp > 0 : cmp >= 0;
}

int zslLexValueLteMax(const char *v, size_t len, const zlexrangespec *spec) {
    int cmp = zslLexCmpBound(v, len, spec->max);
    return spec->maxex ? cmp < 0 : cmp <= 0;
}

int zslLexRangeNotEmpty(const zlexrangespec *range) {
    sds a = range->min, b = range->max;
    int cmp;
    if (a == b) cmp = 0; /* the same infinity twice */
    else if (a == zslLexMin || b == zslLexMax) cmp = -1;
    else if (a == zslLexMax || b == zslLexMin) cmp = 1;
    else cmp = zslCompareMembers(a, sdslen(a), b, sdslen(b));
    return !(cmp > 0 || (cmp == 0 && (range->minex || range->maxex)));
}

int zslIsInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslLexRangeNotEmpty(range)) return 0;
    zskiplistNode *x = zsl->tail;
    if (x == NULL || !zslLexValueGteMin(x->ele, sdslen(x->ele), range)) return 0;
    x = zsl->header->level[0].forward;
    if (x == NULL || !zslLexValueLteMax(x->ele, sdslen(x->ele), range)) return 0;
    return 1;
}

zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward &&
               !zslLexValueGteMin(x->level[i].forward->ele, sdslen(x->level[i].forward->ele),
                                  range))
            x = x->level[i].forward;
    x = x->level[0].forward;
    return zslLexValueLteMax(x->ele, sdslen(x->ele), range) ? x : NULL;
}

zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward &&
               zslLexValueLteMax(x->level[i].forward->ele, sdslen(x->level[i].forward->ele),
                                 range))
            x = x->level[i].forward;
    return zslLexValueGteMin(x->ele, sdslen(x->ele), range) ? x : NULL;
}

int zslParseLexItem(const char *s, size_t len, sds *dest, int *ex) {
    if (len == 0) return -1;
    switch (s[0]) {
    case '+':
    case '-':
        /* Redis tests the byte after the sign as a C string would, so
         * "+\0anything" still reads as the infinity. */
        if (len > 1 && s[1] != '\0') return -1;
        *ex = 1;
        *dest = s[0] == '+' ? zslLexMax : zslLexMin;
        return 0;
    case '(':
    case '[':
        *ex = s[0] == '(';
        *dest = sdsnewlen(s + 1, len - 1);
        return 0;
    default:
        return -1;
    }
}

void zslFreeLexRange(zlexrangespec *spec) {
    if (spec->min && spec->min != zslLexMin && spec->min != zslLexMax) sdsfree(spec->min);
    if (spec->max && spec->max != zslLexMin && spec->max != zslLexMax) sdsfree(spec->max);
    spec->min = spec->max = NULL;
}

/* ---- range deletion ---- */

/* Remove nodes from x onwards while inrange() holds for them. */
static unsigned long zslDeleteRun(zskiplist *zsl, zskiplistNode *x, zskiplistNode **update,
                                  int (*inrange)(const zskiplistNode *, const void *),
                                  const void *arg, zslDeleteCallback *cb, void *privdata) {
    unsigned long removed = 0;
    while (x && inrange(x, arg)) {
        zskiplistNode *next = x->level[0].forward;
        zslDeleteNode(zsl, x, update);
        if (cb) cb(privdata, x);
        zslFreeNode(x);
        removed++;
        x = next;
    }
    return removed;
}

static int zslInScoreMax(const zskiplistNode *x, const void *arg) {
    return zslValueLteMax(x->score, arg);
}

static int zslInLexMax(const zskiplistNode *x, const void *arg) {
    return zslLexValueLteMax(x->ele, sdslen(x->ele), arg);
}

unsigned long zslDeleteRangeByScore(zskiplist *zsl, const zrangespec *range,
                                    zslDeleteCallback *cb, void *privdata) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range))
            x = x->level[i].forward;
        update[i] = x;
    }
    return zslDeleteRun(zsl, x->level[0].forward, update, zslInScoreMax, range, cb, privdata);
}

unsigned long zslDeleteRangeByLex(zskiplist *zsl, const zlexrangespec *range,
                                  zslDeleteCallback *cb, void *privdata) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward &&
               !zslLexValueGteMin(x->level[i].forward->ele, sdslen(x->level[i].forward->ele),
                                  range))
            x = x->level[i].forward;
        update[i] = x;
    }
    return zslDeleteRun(zsl, x->level[0].forward, update, zslInLexMax, range, cb, privdata);
}

unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end,
                                   zslDeleteCallback *cb, void *privdata) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    unsigned long traversed = 0, removed = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && traversed + x->level[i].span < start) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
        }
        update[i] = x;
    }
    traversed++;
    x = x->level[0].forward;
    while (x && traversed <= end) {
        zskiplistNode *next = x->level[0].forward;
        zslDeleteNode(zsl, x, update);
        if (cb) cb(privdata, x);
        zslFreeNode(x);
        removed++;
        traversed++;
        x = next;
    }
    return removed;
}
