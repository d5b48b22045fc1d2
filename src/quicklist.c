/* quicklist.c: the list value (see quicklist.h for the model and the
 * ownership rules).
 *
 * Invariants the code keeps:
 *  - no node is empty; ql->count is the sum of the nodes' counts and
 *    ql->len the number of nodes; a PLAIN node holds exactly one element
 *    and never takes a second one (nothing is inserted into or merged
 *    with it), while a PACKED node may hold an element of any size that
 *    was below the threshold when it was added;
 *  - with compress depth N > 0, the N nodes at each end are raw (so pushes
 *    and pops never decompress anything), and nodes further in are
 *    compressed except while an iterator or an edit works on them;
 *  - node->sz is always the size of the node's payload, compressed or not.
 *
 * Every edit of a node happens on a raw node: it is decompressed first
 * ("for use", remembering to compress it back) and handed to
 * qlRecompress afterwards, which either compresses it again or, for a node
 * that was raw, re-checks where the compression boundary now lies. */
#include "quicklist.h"

#include "listpack.h"
#include "util.h"
#include "zmalloc.h"

#include <assert.h>
#include <lz4.h>
#include <string.h>

/* Nodes grow until their listpack would pass the size class of a negative
 * fill; a positive fill (a count) is also capped at 8 KB, so a list of big
 * elements with a large count limit does not build huge nodes. */
static const size_t qlSizeClasses[] = {4096, 8192, 16384, 32768, 65536};
#define QL_SAFETY_SIZE 8192
#define QL_MAX_NODE_COUNT 65535   /* node->count is 16 bits */
#define QL_MIN_COMPRESS_BYTES 48  /* smaller nodes are not worth compressing */
#define QL_MIN_COMPRESS_IMPROVE 8 /* compression must save at least this */
/* Redis 7.0.15's size estimates, kept so nodes split and merge at the same
 * points: a new entry is taken to add its length plus 8 bytes, and two
 * merged listpacks to lose 11 bytes of header and terminator. */
#define QL_ENTRY_OVERHEAD 8
#define QL_MERGE_SAVING 11
/* Redis refuses thresholds this close to 4 GB (a listpack entry's limit). */
#define QL_PACKED_THRESHOLD_MAX ((1ULL << 32) - (1ULL << 20))

static size_t ql_packed_threshold = QUICKLIST_PACKED_THRESHOLD_DEFAULT;

int quicklistSetPackedThreshold(size_t sz) {
    if ((unsigned long long)sz > QL_PACKED_THRESHOLD_MAX) return 0;
    ql_packed_threshold = sz ? sz : QUICKLIST_PACKED_THRESHOLD_DEFAULT;
    return 1;
}

size_t quicklistPackedThreshold(void) { return ql_packed_threshold; }

static inline int qlIsLarge(size_t sz) { return sz >= ql_packed_threshold; }
static inline int qlIsPlain(const quicklistNode *n) {
    return n->container == QUICKLIST_NODE_CONTAINER_PLAIN;
}

/* ---- nodes ---- */

static quicklistNode *qlNodeCreate(void) {
    quicklistNode *n = zmalloc(sizeof(*n));
    n->prev = n->next = NULL;
    n->entry = NULL;
    n->sz = 0;
    n->count = 0;
    n->encoding = QUICKLIST_NODE_ENCODING_RAW;
    n->container = QUICKLIST_NODE_CONTAINER_PACKED;
    n->recompress = 0;
    n->attempted_compress = 0;
    n->in_use = 0;
    return n;
}

static inline void qlNodeUpdateSz(quicklistNode *n) { n->sz = lpBytes(n->entry); }

/* Add s at the head (at_head) or tail of a listpack. */
static inline unsigned char *qlLpAddAtEnd(unsigned char *lp, const void *s, size_t len,
                                          int at_head) {
    return at_head ? lpPrepend(lp, s, (uint32_t)len) : lpAppend(lp, s, (uint32_t)len);
}

static int qlSizeWithinClass(size_t sz, int fill) {
    if (fill >= 0) return 0;
    size_t cls = (size_t)(-fill) - 1;
    return cls < sizeof(qlSizeClasses) / sizeof(qlSizeClasses[0]) && sz <= qlSizeClasses[cls];
}

/* May a node take one more element of sz bytes? Never a PLAIN node, nor
 * an element that needs a PLAIN node of its own. */
static int qlNodeAllowInsert(const quicklistNode *n, int fill, size_t sz) {
    if (!n || qlIsPlain(n) || qlIsLarge(sz) || n->count >= QL_MAX_NODE_COUNT) return 0;
    size_t newsz = n->sz + sz + QL_ENTRY_OVERHEAD;
    if (qlSizeWithinClass(newsz, fill)) return 1;
    if (newsz > QL_SAFETY_SIZE) return 0;
    return (long)n->count < fill;
}

/* May a and b become one node? */
static int qlNodeAllowMerge(const quicklistNode *a, const quicklistNode *b, int fill) {
    if (!a || !b || qlIsPlain(a) || qlIsPlain(b)) return 0;
    if ((unsigned long)a->count + b->count > QL_MAX_NODE_COUNT) return 0;
    size_t merged = a->sz + b->sz - QL_MERGE_SAVING;
    if (qlSizeWithinClass(merged, fill)) return 1;
    if (merged > QL_SAFETY_SIZE) return 0;
    return (long)(a->count + b->count) <= fill;
}

/* ---- compression ---- */

/* Compress a raw node in place; 1 if it is compressed afterwards. */
static int qlCompressNode(quicklistNode *n) {
    if (n->encoding == QUICKLIST_NODE_ENCODING_LZ4) return 1;
    if (n->in_use) return 0;
    n->recompress = 0;
    /* LZ4 takes int sizes; a PLAIN node past its limit stays raw. */
    if (n->sz < QL_MIN_COMPRESS_BYTES || n->sz > LZ4_MAX_INPUT_SIZE) {
        n->attempted_compress = 1;
        return 0;
    }
    /* Output space short of the saving we require: LZ4 gives up (returns
     * 0) as soon as the result would not be worth keeping. */
    int cap = (int)(n->sz - QL_MIN_COMPRESS_IMPROVE - 1);
    quicklistLz4 *z = zmalloc(sizeof(*z) + (size_t)cap);
    int csz = LZ4_compress_default((const char *)n->entry, z->data, (int)n->sz, cap);
    if (csz <= 0) {
        zfree(z);
        n->attempted_compress = 1;
        return 0;
    }
    z = zrealloc(z, sizeof(*z) + (size_t)csz);
    z->sz = (uint32_t)csz;
    zfree(n->entry);
    n->entry = (unsigned char *)z;
    n->encoding = QUICKLIST_NODE_ENCODING_LZ4;
    n->attempted_compress = 0;
    return 1;
}

static void qlDecompressNode(quicklistNode *n) {
    if (n->encoding != QUICKLIST_NODE_ENCODING_LZ4) return;
    quicklistLz4 *z = (quicklistLz4 *)n->entry;
    unsigned char *lp = zmalloc(n->sz);
    int got = LZ4_decompress_safe(z->data, (char *)lp, (int)z->sz, (int)n->sz);
    assert(got == (int)n->sz);
    (void)got;
    zfree(z);
    n->entry = lp;
    n->encoding = QUICKLIST_NODE_ENCODING_RAW;
}

/* Decompress a node to read or edit it, remembering to compress it back. */
static void qlDecompressForUse(quicklistNode *n) {
    if (n->encoding == QUICKLIST_NODE_ENCODING_LZ4) {
        qlDecompressNode(n);
        n->recompress = 1;
    }
}

/* Re-establish the compression boundary after `node` (may be NULL) was
 * edited, added, or a node was removed: the `compress` nodes at each end
 * are made raw, and node, if it lies further in, is compressed, as are the
 * first nodes past each boundary (a push may just have moved them in). */
static void qlCompressAround(quicklist *ql, quicklistNode *node) {
    if (node) node->recompress = 0;
    if (ql->compress == 0 || ql->len < (unsigned long)ql->compress * 2) return;
    quicklistNode *f = ql->head, *r = ql->tail;
    int outer = 0;
    for (unsigned int d = 0; d < ql->compress; d++) {
        qlDecompressNode(f);
        qlDecompressNode(r);
        if (f == node || r == node) outer = 1;
        /* The two outer zones meet: nothing lies further in. */
        if (f == r || f->next == r) return;
        f = f->next;
        r = r->prev;
    }
    if (node && !outer) qlCompressNode(node);
    qlCompressNode(f);
    qlCompressNode(r);
}

/* After an edit of n: compress it back if it was decompressed for use,
 * else re-check the boundary around it. */
static void qlRecompress(quicklist *ql, quicklistNode *n) {
    if (n->recompress) qlCompressNode(n);
    else qlCompressAround(ql, n);
}

/* ---- linking ---- */

/* Link nn next to old (after it if after, else before), or as the only
 * node when old is NULL. */
static void qlLinkNode(quicklist *ql, quicklistNode *old, quicklistNode *nn, int after) {
    if (!old) {
        ql->head = ql->tail = nn;
    } else if (after) {
        nn->prev = old;
        nn->next = old->next;
        if (old->next) old->next->prev = nn;
        old->next = nn;
        if (ql->tail == old) ql->tail = nn;
    } else {
        nn->next = old;
        nn->prev = old->prev;
        if (old->prev) old->prev->next = nn;
        old->prev = nn;
        if (ql->head == old) ql->head = nn;
    }
    ql->len++;
}

static void qlUnlinkNode(quicklist *ql, quicklistNode *n) {
    if (n->prev) n->prev->next = n->next;
    if (n->next) n->next->prev = n->prev;
    if (ql->head == n) ql->head = n->next;
    if (ql->tail == n) ql->tail = n->prev;
    ql->len--;
}

static void qlNodeFree(quicklistNode *n) {
    zfree(n->entry);
    zfree(n);
}

/* Remove a node and its entries, then fix the boundary: nodes that moved
 * into the outer zones must be raw. */
static void qlDelNode(quicklist *ql, quicklistNode *n) {
    qlUnlinkNode(ql, n);
    ql->count -= n->count;
    qlNodeFree(n);
    qlCompressAround(ql, NULL);
}

/* A new node holding the single element s: PLAIN if s is large, else a
 * PACKED node that may take more. */
static quicklistNode *qlNodeWith(const void *s, size_t len) {
    quicklistNode *n = qlNodeCreate();
    n->count = 1;
    if (qlIsLarge(len)) {
        n->container = QUICKLIST_NODE_CONTAINER_PLAIN;
        n->entry = zmalloc(len);
        memcpy(n->entry, s, len);
        n->sz = len;
    } else {
        n->entry = lpAppend(lpNew(0), s, (uint32_t)len);
        qlNodeUpdateSz(n);
    }
    return n;
}

/* Make a PACKED node the PLAIN node of s (Redis reaches the same layout by
 * inserting a PLAIN node next to a one-element node and deleting it). */
static void qlNodeMakePlain(quicklistNode *n, const void *s, size_t len) {
    unsigned char *data = zmalloc(len);
    memcpy(data, s, len);
    zfree(n->entry);
    n->entry = data;
    n->sz = len;
    n->count = 1;
    n->container = QUICKLIST_NODE_CONTAINER_PLAIN;
}

/* ---- creation and destruction ---- */

quicklist *quicklistCreate(int fill, int compress) {
    quicklist *ql = zmalloc(sizeof(*ql));
    ql->head = ql->tail = NULL;
    ql->count = ql->len = 0;
    if (fill > QUICKLIST_FILL_MAX) fill = QUICKLIST_FILL_MAX;
    else if (fill < QUICKLIST_FILL_MIN) fill = QUICKLIST_FILL_MIN;
    ql->fill = fill;
    if (compress < 0) compress = 0;
    else if (compress > QUICKLIST_COMPRESS_MAX) compress = QUICKLIST_COMPRESS_MAX;
    ql->compress = (unsigned int)compress;
    return ql;
}

void quicklistRelease(quicklist *ql) {
    quicklistNode *n = ql->head;
    while (n) {
        quicklistNode *next = n->next;
        qlNodeFree(n);
        n = next;
    }
    zfree(ql);
}

quicklist *quicklistDup(const quicklist *ql) {
    quicklist *copy = quicklistCreate(ql->fill, (int)ql->compress);
    for (quicklistNode *n = ql->head; n; n = n->next) {
        quicklistNode *c = qlNodeCreate();
        size_t bytes = n->encoding == QUICKLIST_NODE_ENCODING_LZ4
                           ? sizeof(quicklistLz4) + ((quicklistLz4 *)n->entry)->sz
                           : n->sz;
        c->entry = zmalloc(bytes);
        memcpy(c->entry, n->entry, bytes);
        c->sz = n->sz;
        c->count = n->count;
        c->encoding = n->encoding;
        c->container = n->container;
        c->attempted_compress = n->attempted_compress;
        /* Nodes are copied as they are (compressed or not), so the copy
         * already satisfies the compression invariant. */
        qlLinkNode(copy, copy->tail, c, 1);
        copy->count += c->count;
    }
    return copy;
}

/* ---- push ---- */

void quicklistPush(quicklist *ql, const void *s, size_t len, int where) {
    int head = where == QUICKLIST_HEAD;
    quicklistNode *n = head ? ql->head : ql->tail;
    if (n) qlDecompressNode(n); /* raw by the invariant; be safe */
    if (qlNodeAllowInsert(n, ql->fill, len)) {
        n->entry = qlLpAddAtEnd(n->entry, s, len, head);
        n->count++;
        qlNodeUpdateSz(n);
    } else {
        quicklistNode *nn = qlNodeWith(s, len);
        qlLinkNode(ql, n, nn, !head);
        /* The old end node may now lie past the boundary. */
        qlCompressAround(ql, n ? n : nn);
    }
    ql->count++;
}

static void qlAppendNode(quicklist *ql, quicklistNode *n) {
    quicklistNode *old = ql->tail;
    qlLinkNode(ql, old, n, 1);
    ql->count += n->count;
    qlCompressAround(ql, old ? old : n);
}

void quicklistAppendListpack(quicklist *ql, unsigned char *lp) {
    quicklistNode *n = qlNodeCreate();
    n->entry = lp;
    n->count = (unsigned int)lpLength(lp);
    qlNodeUpdateSz(n);
    qlAppendNode(ql, n);
}

void quicklistAppendPlainNode(quicklist *ql, unsigned char *data, size_t sz) {
    quicklistNode *n = qlNodeCreate();
    n->container = QUICKLIST_NODE_CONTAINER_PLAIN;
    n->entry = data;
    n->sz = sz;
    n->count = 1;
    qlAppendNode(ql, n);
}

/* ---- locating elements ---- */

/* The node holding element index (negative: from the tail) and the
 * element's position in it counted from the node's head; NULL if out of
 * range. Walks nodes from whichever end is nearer, without decompressing. */
static quicklistNode *qlLocate(const quicklist *ql, long index, unsigned long *pos) {
    unsigned long want;
    if (index >= 0) {
        want = (unsigned long)index;
        if (want >= ql->count) return NULL;
    } else {
        unsigned long back = (unsigned long)(-(index + 1)); /* 0 = last; no overflow at LONG_MIN */
        if (back >= ql->count) return NULL;
        want = ql->count - 1 - back;
    }
    unsigned long accum = 0;
    if (want <= (ql->count - 1) / 2) {
        quicklistNode *n = ql->head;
        while (accum + n->count <= want) {
            accum += n->count;
            n = n->next;
        }
        *pos = want - accum;
        return n;
    }
    unsigned long back = ql->count - 1 - want;
    quicklistNode *n = ql->tail;
    while (accum + n->count <= back) {
        accum += n->count;
        n = n->prev;
    }
    *pos = n->count - 1 - (back - accum);
    return n;
}

/* ---- iteration ---- */

void quicklistInitIterator(quicklistIter *it, quicklist *ql, int direction) {
    it->ql = ql;
    it->direction = direction;
    it->lpe = NULL;
    if (direction == QUICKLIST_START_HEAD) {
        it->current = ql->head;
        it->offset = 0;
    } else {
        it->current = ql->tail;
        it->offset = -1;
    }
}

int quicklistInitIteratorAtIdx(quicklistIter *it, quicklist *ql, int direction, long idx) {
    unsigned long pos;
    quicklistNode *n = qlLocate(ql, idx, &pos);
    it->ql = ql;
    it->direction = direction;
    it->lpe = NULL;
    it->current = n;
    if (!n) return 0;
    /* Offsets count from the node's head going forward and from its tail
     * going backward, so deleting the current element never shifts the
     * offset of the next one. */
    it->offset = direction == QUICKLIST_START_HEAD ? (long)pos : (long)pos - (long)n->count;
    return 1;
}

/* Leave the current node: compress it back if we decompressed it. */
static void qlIterLeaveNode(quicklistIter *it) {
    quicklistNode *n = it->current;
    if (!n) return;
    n->in_use = 0;
    qlRecompress(it->ql, n);
}

static void qlFillEntry(quicklistIter *it, quicklistEntry *e) {
    e->ql = it->ql;
    e->node = it->current;
    e->lpe = it->lpe;
    e->offset = it->offset;
    if (qlIsPlain(it->current)) {
        e->value = it->lpe;
        e->sz = it->current->sz;
        e->longval = 0;
        return;
    }
    unsigned int slen = 0;
    e->value = lpGetValue(it->lpe, &slen, &e->longval);
    e->sz = e->value ? slen : 0;
}

int quicklistNext(quicklistIter *it, quicklistEntry *e) {
    int forward = it->direction == QUICKLIST_START_HEAD;
    while (it->current) {
        quicklistNode *n = it->current;
        if (!it->lpe) {
            qlDecompressForUse(n);
            n->in_use = 1;
            it->lpe = qlIsPlain(n) ? n->entry : lpSeek(n->entry, it->offset);
        } else if (qlIsPlain(n)) {
            it->lpe = NULL; /* its only element was returned */
        } else if (forward) {
            it->lpe = lpNext(n->entry, it->lpe);
            it->offset++;
        } else {
            it->lpe = lpPrev(n->entry, it->lpe);
            it->offset--;
        }
        if (it->lpe) {
            qlFillEntry(it, e);
            return 1;
        }
        qlIterLeaveNode(it);
        it->current = forward ? n->next : n->prev;
        it->offset = forward ? 0 : -1;
    }
    return 0;
}

void quicklistResetIterator(quicklistIter *it) {
    qlIterLeaveNode(it);
    it->current = NULL;
    it->lpe = NULL;
}

/* ---- editing through an iterator ---- */

void quicklistDelEntry(quicklistIter *it, quicklistEntry *e) {
    quicklist *ql = it->ql;
    quicklistNode *n = e->node;
    if (qlIsPlain(n)) n->count = 0;
    else {
        n->entry = lpDelete(n->entry, e->lpe, NULL);
        n->count--;
    }
    ql->count--;
    it->lpe = NULL; /* the next element now sits at the same offset */
    if (n->count == 0) {
        quicklistNode *next = it->direction == QUICKLIST_START_HEAD ? n->next : n->prev;
        n->in_use = 0;
        qlDelNode(ql, n);
        it->current = next;
        it->offset = it->direction == QUICKLIST_START_HEAD ? 0 : -1;
    } else {
        qlNodeUpdateSz(n);
    }
}

/* An edit that may restructure the list ends the iterator standing on n;
 * the caller then owns n's compression. */
static void qlIterFinish(quicklistIter *it, quicklistNode *n) {
    n->in_use = 0;
    it->current = NULL;
    it->lpe = NULL;
}

/* e's position in its node, counted from the node's head. */
static unsigned long qlEntryPos(const quicklistEntry *e) {
    return e->offset >= 0 ? (unsigned long)e->offset
                          : (unsigned long)((long)e->node->count + e->offset);
}

/* Try to merge b into a (a before b; either may be NULL); returns the
 * surviving node, or NULL if they stay apart. */
static quicklistNode *qlTryMerge(quicklist *ql, quicklistNode *a, quicklistNode *b) {
    if (!qlNodeAllowMerge(a, b, ql->fill)) return NULL;
    qlDecompressNode(a);
    qlDecompressNode(b);
    unsigned char *merged = lpMerge(a->entry, b->entry);
    if (!merged) return NULL;
    a->entry = merged;
    b->entry = NULL;
    a->count += b->count;
    qlNodeUpdateSz(a);
    qlUnlinkNode(ql, b);
    zfree(b);
    qlCompressAround(ql, a);
    return a;
}

/* After a node was split next to center: merge the two nodes before
 * center's left neighbour, the two after its right neighbour, then center
 * with its left neighbour and the result with its right one, whichever
 * fit; Redis' order, so the same nodes end up together. */
static void qlMergeAround(quicklist *ql, quicklistNode *center) {
    if (center->prev) qlTryMerge(ql, center->prev->prev, center->prev);
    if (center->next) qlTryMerge(ql, center->next, center->next->next);
    quicklistNode *target = qlTryMerge(ql, center->prev, center);
    if (!target) target = center;
    qlTryMerge(ql, target, target->next);
}

/* Split the raw PACKED node n so that its first `at` elements stay and
 * the rest move to a new node linked after it. Both stay raw; the caller
 * fixes compression. */
static quicklistNode *qlSplitNode(quicklist *ql, quicklistNode *n, unsigned long at) {
    quicklistNode *right = qlNodeCreate();
    right->entry = zmalloc(n->sz);
    memcpy(right->entry, n->entry, n->sz);
    right->entry = lpDeleteRange(right->entry, 0, at);
    right->count = (unsigned int)(n->count - at);
    qlNodeUpdateSz(right);
    n->entry = lpDeleteRange(n->entry, (long)at, n->count - at);
    n->count = (unsigned int)at;
    qlNodeUpdateSz(n);
    qlLinkNode(ql, n, right, 1);
    return right;
}

/* Put s beside n (after it if after): at the near end of the neighbour on
 * that side if it has room, else in a new node of its own (always so for
 * a large element). The caller counts the element. */
static void qlAddBeside(quicklist *ql, quicklistNode *n, const void *s, size_t len, int after) {
    quicklistNode *nb = after ? n->next : n->prev;
    if (qlNodeAllowInsert(nb, ql->fill, len)) {
        qlDecompressForUse(nb);
        nb->entry = qlLpAddAtEnd(nb->entry, s, len, after);
        nb->count++;
        qlNodeUpdateSz(nb);
        qlRecompress(ql, nb);
        return;
    }
    quicklistNode *nn = qlNodeWith(s, len);
    qlLinkNode(ql, n, nn, after);
    qlCompressAround(ql, nn);
}

void quicklistReplaceEntry(quicklistIter *it, quicklistEntry *e, const void *s, size_t len) {
    quicklist *ql = it->ql;
    quicklistNode *n = e->node;
    int large = qlIsLarge(len);
    qlIterFinish(it, n);
    if (!qlIsPlain(n) && !large) {
        unsigned char *p = e->lpe;
        n->entry = lpReplace(n->entry, &p, s, (uint32_t)len);
        qlNodeUpdateSz(n);
        qlRecompress(ql, n);
        return;
    }
    if (large && (qlIsPlain(n) || n->count == 1)) {
        qlNodeMakePlain(n, s, len);
        qlRecompress(ql, n);
        return;
    }
    if (qlIsPlain(n)) {
        /* A small element replacing a PLAIN one goes where inserting it
         * after the node would put it; then the node goes. */
        n->in_use = 1; /* not worth compressing on its way out */
        qlAddBeside(ql, n, s, len, 1);
        ql->count++;
        qlDelNode(ql, n);
        return;
    }
    /* A large element replacing one of several in a PACKED node: the node
     * is split around the old element, and a PLAIN node takes its place. */
    unsigned long pos = qlEntryPos(e);
    n->entry = lpDelete(n->entry, e->lpe, NULL);
    n->count--;
    qlNodeUpdateSz(n);
    quicklistNode *p = qlNodeWith(s, len);
    if (pos == 0) {
        qlLinkNode(ql, n, p, 0);
    } else {
        if (pos < n->count) qlCompressAround(ql, qlSplitNode(ql, n, pos));
        qlLinkNode(ql, n, p, 1);
    }
    qlCompressAround(ql, p);
    qlCompressAround(ql, n);
}

static void qlInsert(quicklistIter *it, quicklistEntry *e, const void *s, size_t len, int after) {
    quicklist *ql = it->ql;
    quicklistNode *n = e->node;
    unsigned long pos = qlEntryPos(e);
    int at_edge = after ? pos + 1 == n->count : pos == 0; /* always so in a PLAIN node */
    qlIterFinish(it, n);
    ql->count++;

    if (qlNodeAllowInsert(n, ql->fill, len)) {
        n->entry = lpInsertString(n->entry, s, (uint32_t)len, e->lpe, after ? LP_AFTER : LP_BEFORE,
                                  NULL);
        n->count++;
        qlNodeUpdateSz(n);
        qlRecompress(ql, n);
        return;
    }
    /* n cannot take it. At n's edge it goes to the neighbour or a new
     * node between them. */
    if (at_edge) {
        qlRecompress(ql, n);
        qlAddBeside(ql, n, s, len, after);
        return;
    }
    /* Inside a PACKED node: split it at the insertion point. A large
     * element goes between the parts in a PLAIN node; a small one at the
     * end of the left part or the start of the right one, and the parts
     * may then merge with their neighbours. */
    quicklistNode *right = qlSplitNode(ql, n, after ? pos + 1 : pos);
    if (qlIsLarge(len)) {
        /* Each new node moves the compression boundary by one: settle it
         * after each link. */
        qlCompressAround(ql, right);
        quicklistNode *p = qlNodeWith(s, len);
        qlLinkNode(ql, n, p, 1);
        qlCompressAround(ql, p);
        qlCompressAround(ql, n);
        return;
    }
    quicklistNode *target = after ? right : n;
    target->entry = qlLpAddAtEnd(target->entry, s, len, after);
    target->count++;
    qlNodeUpdateSz(target);
    qlCompressAround(ql, n);
    qlCompressAround(ql, right);
    qlMergeAround(ql, after ? n : right);
}

void quicklistInsertBefore(quicklistIter *it, quicklistEntry *e, const void *s, size_t len) {
    qlInsert(it, e, s, len, 0);
}

void quicklistInsertAfter(quicklistIter *it, quicklistEntry *e, const void *s, size_t len) {
    qlInsert(it, e, s, len, 1);
}

/* ---- index and range operations ---- */

int quicklistReplaceAtIndex(quicklist *ql, long index, const void *s, size_t len) {
    quicklistIter it;
    quicklistEntry e;
    if (!quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_HEAD, index)) return 0;
    if (!quicklistNext(&it, &e)) return 0;
    quicklistReplaceEntry(&it, &e, s, len);
    quicklistResetIterator(&it);
    return 1;
}

unsigned long quicklistDelRange(quicklist *ql, long start, unsigned long count) {
    unsigned long pos;
    quicklistNode *n = qlLocate(ql, start, &pos);
    if (!n || count == 0) return 0;
    /* Clip to the elements from start to the tail. */
    unsigned long first = start >= 0 ? (unsigned long)start
                                     : ql->count - (unsigned long)(-(start + 1)) - 1;
    if (count > ql->count - first) count = ql->count - first;
    unsigned long left = count;
    while (left) {
        quicklistNode *next = n->next;
        unsigned long avail = n->count - pos;
        unsigned long del = left < avail ? left : avail;
        if (del == n->count) {
            qlDelNode(ql, n);
        } else {
            qlDecompressForUse(n);
            n->entry = lpDeleteRange(n->entry, (long)pos, del);
            n->count -= (unsigned int)del;
            ql->count -= del;
            qlNodeUpdateSz(n);
            qlRecompress(ql, n);
        }
        left -= del;
        n = next;
        pos = 0;
    }
    return count;
}

int quicklistCompare(const quicklistEntry *e, const unsigned char *s, size_t len) {
    if (e->value) return e->sz == len && (len == 0 || memcmp(e->value, s, len) == 0);
    long long v;
    return string2ll((const char *)s, len, &v) && v == e->longval;
}

/* ---- introspection ---- */

size_t quicklistMemUsage(const quicklist *ql) {
    size_t total = sizeof(*ql);
    for (const quicklistNode *n = ql->head; n; n = n->next) {
        total += sizeof(*n);
        if (n->encoding == QUICKLIST_NODE_ENCODING_LZ4)
            total += sizeof(quicklistLz4) + ((const quicklistLz4 *)n->entry)->sz;
        else
            total += n->sz;
    }
    return total;
}

unsigned long quicklistCompressedNodes(const quicklist *ql) {
    unsigned long c = 0;
    for (const quicklistNode *n = ql->head; n; n = n->next)
        if (n->encoding == QUICKLIST_NODE_ENCODING_LZ4) c++;
    return c;
}

unsigned char *quicklistNodeData(quicklistNode *node, int *allocated) {
    if (node->encoding == QUICKLIST_NODE_ENCODING_RAW) {
        *allocated = 0;
        return node->entry;
    }
    const quicklistLz4 *z = (const quicklistLz4 *)node->entry;
    unsigned char *data = zmalloc(node->sz);
    if (LZ4_decompress_safe(z->data, (char *)data, (int)z->sz, (int)node->sz) != (int)node->sz) {
        zfree(data);
        *allocated = 0;
        return NULL;
    }
    *allocated = 1;
    return data;
}

int quicklistValidate(const quicklist *ql) {
    unsigned long count = 0, len = 0;
    const quicklistNode *prev = NULL;
    for (const quicklistNode *n = ql->head; n; prev = n, n = n->next) {
        if (n->prev != prev || n->count == 0) return 0;
        int plain = qlIsPlain(n);
        if (!plain && n->container != QUICKLIST_NODE_CONTAINER_PACKED) return 0;
        if (plain && n->count != 1) return 0;
        int allocated;
        unsigned char *data = quicklistNodeData((quicklistNode *)n, &allocated);
        int bad = !data || (!plain && (lpBytes(data) != n->sz || lpLength(data) != n->count));
        if (allocated) zfree(data);
        if (bad) return 0;
        /* Outer nodes must be raw; inner ones compressed unless too small. */
        if (ql->compress && n->encoding == QUICKLIST_NODE_ENCODING_LZ4 &&
            (len < ql->compress || ql->len - len <= ql->compress))
            return 0;
        if (ql->compress && ql->len >= (unsigned long)ql->compress * 2 &&
            n->encoding == QUICKLIST_NODE_ENCODING_RAW && len >= ql->compress &&
            ql->len - len > ql->compress && !n->attempted_compress && !n->in_use)
            return 0;
        count += n->count;
        len++;
    }
    return prev == ql->tail && count == ql->count && len == ql->len;
}
