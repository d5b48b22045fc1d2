/* dict: a chained hash table with incremental rehashing.
 *
 * Two tables exist only while rehashing: every operation moves one bucket from
 * ht[0] to ht[1], and the cron moves more in bounded time slices, so resizing a
 * table of millions of keys never stalls the event loop. Hashing is keyed
 * (SipHash-1-2 with a random per-process seed) so clients cannot craft keys
 * that collide.
 *
 * Ownership: the dict owns its entries. Keys and values are owned by the dict
 * only if the dictType has destructors; otherwise the caller keeps them.
 *
 * Layout note for later point-in-time iteration: buckets are plain singly
 * linked chains; nothing here assumes a fork-only snapshot. */
#ifndef CAIRN_DICT_H
#define CAIRN_DICT_H
#include <stddef.h>
#include <stdint.h>

#define DICT_OK  0
#define DICT_ERR 1

typedef struct dictEntry {
    void *key;
    union {
        void *val;
        uint64_t u64;
        int64_t s64;
        double d;
    } v;
    struct dictEntry *next;
} dictEntry;

typedef struct dict dict;

typedef struct dictType {
    uint64_t (*hashFunction)(const void *key);
    void *(*keyDup)(dict *d, const void *key);
    void *(*valDup)(dict *d, const void *obj);
    int (*keyCompare)(dict *d, const void *key1, const void *key2);
    void (*keyDestructor)(dict *d, void *key);
    void (*valDestructor)(dict *d, void *obj);
    /* Optional veto on growing (e.g. near maxmemory); NULL means allowed. */
    int (*expandAllowed)(size_t moreMem, double usedRatio);
} dictType;

struct dict {
    dictType *type;
    dictEntry **ht_table[2];
    unsigned long ht_used[2];
    signed char ht_size_exp[2]; /* -1 when the table is empty */
    long rehashidx;             /* -1 when not rehashing */
    int16_t pauserehash;        /* >0: rehashing is paused (safe iterators, scans) */
};

#define DICTHT_SIZE(exp)      ((exp) == -1 ? 0 : (unsigned long)1 << (exp))
#define DICTHT_SIZE_MASK(exp) ((exp) == -1 ? 0 : (DICTHT_SIZE(exp)) - 1)
#define DICT_HT_INITIAL_EXP   2
#define DICT_HT_INITIAL_SIZE  (1 << (DICT_HT_INITIAL_EXP))

#define dictSize(d)        ((d)->ht_used[0] + (d)->ht_used[1])
#define dictSlots(d)       (DICTHT_SIZE((d)->ht_size_exp[0]) + DICTHT_SIZE((d)->ht_size_exp[1]))
#define dictIsRehashing(d) ((d)->rehashidx != -1)
#define dictGetKey(he)     ((he)->key)
#define dictGetVal(he)     ((he)->v.val)
#define dictGetSignedIntegerVal(he) ((he)->v.s64)
#define dictGetUnsignedIntegerVal(he) ((he)->v.u64)
#define dictGetDoubleVal(he) ((he)->v.d)
#define dictSetVal(d, he, _val_) ((he)->v.val = (_val_))
#define dictSetSignedIntegerVal(he, _val_) ((he)->v.s64 = (_val_))
#define dictSetUnsignedIntegerVal(he, _val_) ((he)->v.u64 = (_val_))
#define dictSetDoubleVal(he, _val_) ((he)->v.d = (_val_))
#define dictHashKey(d, key) ((d)->type->hashFunction(key))
#define dictPauseRehashing(d)  ((d)->pauserehash++)
#define dictResumeRehashing(d) ((d)->pauserehash--)

typedef struct dictIterator {
    dict *d;
    long index;
    int table, safe;
    dictEntry *entry, *nextEntry;
    unsigned long long fingerprint; /* misuse check for unsafe iterators */
} dictIterator;

/* Where a missing key would be inserted; filled by dictFindOrPos and consumed
 * by dictInsertAtPos. Valid only until the dict is next modified. */
typedef struct dictInsertPos {
    dictEntry **bucket;
    int table;
} dictInsertPos;

typedef void(dictScanFunction)(void *privdata, const dictEntry *de);

dict *dictCreate(dictType *type);
int dictExpand(dict *d, unsigned long size);
int dictTryExpand(dict *d, unsigned long size); /* no abort on OOM */
/* Add; DICT_ERR if the key exists. */
int dictAdd(dict *d, void *key, void *val);
/* Add and return the new entry with no value set, or NULL if the key exists,
 * in which case *existing (if not NULL) receives the existing entry. */
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing);
/* Single-lookup primitive for write commands: returns the entry for key if
 * present; otherwise NULL with *pos describing where to insert it. */
dictEntry *dictFindOrPos(dict *d, const void *key, dictInsertPos *pos);
/* Insert key (ownership passes to the dict) at a position from dictFindOrPos,
 * with no further lookup. Returns the new entry, value unset. */
dictEntry *dictInsertAtPos(dict *d, void *key, dictInsertPos *pos);
/* Add or overwrite. Returns 1 if added, 0 if overwritten. */
int dictReplace(dict *d, void *key, void *val);
int dictDelete(dict *d, const void *key);
/* Remove from the table without freeing; the caller then calls
 * dictFreeUnlinkedEntry (which runs the destructors). */
dictEntry *dictUnlink(dict *d, const void *key);
void dictFreeUnlinkedEntry(dict *d, dictEntry *he);
dictEntry *dictFind(dict *d, const void *key);
void *dictFetchValue(dict *d, const void *key);
/* Shrink to fit (only when resizing is allowed). */
int dictResize(dict *d);
void dictRelease(dict *d);
/* Remove everything; callback (if any) is called every 65536 buckets so
 * long flushes can do housekeeping. */
void dictEmpty(dict *d, void(callback)(dict *));

dictIterator *dictGetIterator(dict *d);
dictIterator *dictGetSafeIterator(dict *d);
void dictInitIterator(dictIterator *iter, dict *d);
void dictInitSafeIterator(dictIterator *iter, dict *d);
void dictResetIterator(dictIterator *iter);
dictEntry *dictNext(dictIterator *iter);
void dictReleaseIterator(dictIterator *iter);

dictEntry *dictGetRandomKey(dict *d);
/* Like dictGetRandomKey but less biased towards short chains. */
dictEntry *dictGetFairRandomKey(dict *d);
/* Sample up to count entries (may return fewer, possibly duplicates-free
 * contiguous runs); used by active expiry and eviction. */
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count);

/* Reverse-binary cursor scan: every element present for the whole scan is
 * returned at least once, even across resizes. Returns the next cursor, 0
 * when done. */
unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata);

/* Rehash n buckets; returns 1 if more work remains. */
int dictRehash(dict *d, int n);
/* Rehash for about ms milliseconds; returns buckets moved. */
int dictRehashMilliseconds(dict *d, int ms);
/* Globally allow/forbid resizing (forbidden while a child process shares
 * memory copy-on-write; a dict still grows if it is 5x over-full). */
void dictSetResizeEnabled(int enable);

void dictSetHashFunctionSeed(const uint8_t *seed); /* 16 bytes */
uint8_t *dictGetHashFunctionSeed(void);
uint64_t dictGenHashFunction(const void *key, size_t len);
uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len);

/* Printable statistics (chain lengths etc.) appended into buf. */
size_t dictGetStats(char *buf, size_t bufsize, dict *d);

#endif
