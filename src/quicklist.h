/* quicklist: the list value, a doubly linked list of nodes.
 *
 * A node is PACKED (a listpack, listpack.h) or PLAIN (one element's bytes
 * alone), Redis 7.0's two containers with the numbers its QUICKLIST_2
 * snapshot format writes. An element of at least the packed threshold
 * (1 GB; DEBUG QUICKLIST-PACKED-THRESHOLD changes it) always gets a PLAIN
 * node of its own; smaller ones go into PACKED nodes. A PACKED node holds
 * up to `fill` entries (list-max-listpack-size > 0) or at most
 * 4/8/16/32/64 KB (fill -1..-5), with Redis 7.0.15's limits and size
 * estimates (a node never grows past 8 KB because of a positive fill), so
 * nodes split and merge where Redis' do. With list-compress-depth N > 0
 * the N nodes at each end stay raw and the nodes in between, of either
 * container, are kept LZ4 compressed (nodes under 48 bytes, or that would
 * not shrink by at least 8 bytes, stay raw). A node's payload once
 * decompressed is a complete listpack or the element, so a snapshot can
 * write each node as (container, bytes) (quicklistNodeData) and load it
 * back with quicklistAppendListpack / quicklistAppendPlainNode.
 *
 * Data enters as byte strings (canonical integers are stored as listpack
 * integers in PACKED nodes, as bytes in PLAIN ones) and leaves through
 * quicklistEntry views that point into a node: a view is valid until the
 * list is modified. Iterators decompress the node they stand on and
 * compress it again when they move off it or are reset, so every iterator
 * must end with quicklistResetIterator.
 *
 * Ownership: the quicklist owns its nodes and their payloads;
 * quicklistAppendListpack and quicklistAppendPlainNode take ownership of
 * the buffer they are given. */
#ifndef CAIRN_QUICKLIST_H
#define CAIRN_QUICKLIST_H
#include <stddef.h>
#include <stdint.h>

#define QUICKLIST_HEAD 0
#define QUICKLIST_TAIL -1

/* Iteration directions (head to tail, tail to head). */
#define QUICKLIST_START_HEAD 0
#define QUICKLIST_START_TAIL 1

#define QUICKLIST_NODE_ENCODING_RAW 1
#define QUICKLIST_NODE_ENCODING_LZ4 2

/* Node containers; the values are the ones Redis' RDB_TYPE_LIST_QUICKLIST_2
 * stores before each node. */
#define QUICKLIST_NODE_CONTAINER_PLAIN  1
#define QUICKLIST_NODE_CONTAINER_PACKED 2

#define QUICKLIST_PACKED_THRESHOLD_DEFAULT (1UL << 30)

#define QUICKLIST_FILL_MAX (1 << 15)  /* larger positive fills are clamped */
#define QUICKLIST_FILL_MIN (-5)       /* smaller negative fills are clamped */
#define QUICKLIST_COMPRESS_MAX 65535  /* deeper compress depths are clamped */

typedef struct quicklistNode {
    struct quicklistNode *prev, *next;
    unsigned char *entry;           /* payload (RAW) or quicklistLz4 blob of it (LZ4) */
    size_t sz;                      /* bytes of the payload, also while compressed */
    unsigned int count : 16;        /* entries in the listpack; 1 for PLAIN */
    unsigned int encoding : 2;      /* QUICKLIST_NODE_ENCODING_* */
    unsigned int container : 2;     /* QUICKLIST_NODE_CONTAINER_*: listpack or one element */
    unsigned int recompress : 1;    /* decompressed to be read: compress again after */
    unsigned int attempted_compress : 1; /* last compression attempt did not pay off */
    unsigned int in_use : 1;        /* an iterator stands on it: keep it raw */
} quicklistNode;

/* A compressed node's payload; the uncompressed size is node->sz. */
typedef struct quicklistLz4 {
    uint32_t sz; /* bytes of data */
    char data[];
} quicklistLz4;

typedef struct quicklist {
    quicklistNode *head, *tail;
    unsigned long count;   /* entries in all nodes */
    unsigned long len;     /* nodes */
    int fill;              /* list-max-listpack-size when the list was created */
    unsigned int compress; /* list-compress-depth when the list was created */
} quicklist;

/* One element, seen in place. value is NULL for integer entries (then
 * longval holds the number), else value/sz are the string's bytes (always
 * so in a PLAIN node, where lpe is the node's payload). */
typedef struct quicklistEntry {
    quicklist *ql;
    quicklistNode *node;
    unsigned char *lpe;    /* the entry inside node->entry */
    unsigned char *value;
    size_t sz;
    long long longval;
    long offset;           /* index in the node: >= 0 from its head, < 0 from its tail */
} quicklistEntry;

typedef struct quicklistIter {
    quicklist *ql;
    quicklistNode *current;
    unsigned char *lpe;    /* entry last returned; NULL: next returns the one at offset */
    long offset;
    int direction;         /* QUICKLIST_START_HEAD or _TAIL */
} quicklistIter;

quicklist *quicklistCreate(int fill, int compress);
void quicklistRelease(quicklist *ql);
quicklist *quicklistDup(const quicklist *ql);
static inline unsigned long quicklistCount(const quicklist *ql) { return ql->count; }

/* Add s at the head (QUICKLIST_HEAD) or tail (QUICKLIST_TAIL). */
void quicklistPush(quicklist *ql, const void *s, size_t len, int where);
/* Add a node holding lp (a valid, non-empty listpack) at the tail; takes
 * ownership. For loading snapshots: the node is kept as it is. */
void quicklistAppendListpack(quicklist *ql, unsigned char *lp);
/* Add a PLAIN node holding the sz bytes at data (zmalloc'ed; ownership
 * passes to the list) at the tail, whatever the threshold. */
void quicklistAppendPlainNode(quicklist *ql, unsigned char *data, size_t sz);

/* Elements of at least sz bytes get PLAIN nodes from now on (lists keep
 * the nodes they have). 0 restores the 1 GB default; returns 0, changing
 * nothing, above 4 GB - 1 MB (Redis' limit). */
int quicklistSetPackedThreshold(size_t sz);
size_t quicklistPackedThreshold(void);

/* Iterators. InitAtIdx positions the iterator so that the first Next
 * returns element idx (negative: from the tail); it returns 0, leaving an
 * exhausted iterator, when idx is out of range. */
void quicklistInitIterator(quicklistIter *it, quicklist *ql, int direction);
int quicklistInitIteratorAtIdx(quicklistIter *it, quicklist *ql, int direction, long idx);
int quicklistNext(quicklistIter *it, quicklistEntry *e);
void quicklistResetIterator(quicklistIter *it);

/* Delete e (just returned by Next); the iterator then continues with the
 * element that followed e in its direction. */
void quicklistDelEntry(quicklistIter *it, quicklistEntry *e);
/* Replace e's value with s. The node may change container, be split
 * around e or go (Redis' rules for LSET); the iterator is finished
 * afterwards (Next returns 0), and still needs quicklistResetIterator. */
void quicklistReplaceEntry(quicklistIter *it, quicklistEntry *e, const void *s, size_t len);
/* Insert s next to e; the iterator is finished afterwards (Next returns
 * 0), and still needs quicklistResetIterator. */
void quicklistInsertBefore(quicklistIter *it, quicklistEntry *e, const void *s, size_t len);
void quicklistInsertAfter(quicklistIter *it, quicklistEntry *e, const void *s, size_t len);

/* Replace the element at index; 0 if index is out of range. */
int quicklistReplaceAtIndex(quicklist *ql, long index, const void *s, size_t len);
/* Delete count elements starting at start (negative: from the tail),
 * clipped to the list; returns the number deleted. */
unsigned long quicklistDelRange(quicklist *ql, long start, unsigned long count);
/* 1 if e holds exactly the bytes s (integer entries compare with the
 * canonical decimal form, as listpacks do). */
int quicklistCompare(const quicklistEntry *e, const unsigned char *s, size_t len);

/* Memory and structure, for MEMORY USAGE, DEBUG and tests. */
size_t quicklistMemUsage(const quicklist *ql);
unsigned long quicklistCompressedNodes(const quicklist *ql);
/* The node's payload, node->sz bytes: a listpack (PACKED) or the element
 * (PLAIN); the node's own buffer (RAW, *allocated = 0) or a decompressed
 * copy the caller frees with zfree (*allocated = 1). */
unsigned char *quicklistNodeData(quicklistNode *node, int *allocated);
/* Walk every node and check counts, sizes, links and compression
 * placement; 1 if consistent. For tests. */
int quicklistValidate(const quicklist *ql);

#endif
