/* dict: chained hash table with incremental rehashing (see dict.h).
 *
 * Owns: the bucket arrays and every dictEntry; keys/values only through the
 * dictType dup/destructor callbacks. Data enters through dictAdd/dictReplace/
 * dictInsertAtPos (keys run through keyDup, values through valDup, when set)
 * and leaves through dictDelete (destructors run) or dictUnlink (the caller
 * finishes with dictFreeUnlinkedEntry). Readers get entry pointers that stay
 * valid until that entry is deleted: rehashing relinks entries, never moves
 * them.
 *
 * While rehashing, ht[0] buckets below rehashidx are empty and all inserts go
 * to ht[1], so a key lives in exactly one place and lookups check both. */
#include "dict.h"
#include "siphash.h"
#include "zmalloc.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Resizing is switched off while a fork child shares our pages: moving every
 * entry would copy-on-write the whole table. Past this fill ratio the chains
 * are long enough that growing anyway is the lesser evil. */
static int dict_can_resize = 1;
static const unsigned int dict_force_resize_ratio = 5;

static uint8_t dict_hash_seed[16];

/* ------------------------------------------------------------------------ */
/* Hashing */

void dictSetHashFunctionSeed(const uint8_t *seed) {
    memcpy(dict_hash_seed, seed, sizeof(dict_hash_seed));
}

uint8_t *dictGetHashFunctionSeed(void) {
    return dict_hash_seed;
}

uint64_t dictGenHashFunction(const void *key, size_t len) {
    return siphash(key, len, dict_hash_seed);
}

uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len) {
    return siphash_nocase(buf, len, dict_hash_seed);
}

/* ------------------------------------------------------------------------ */
/* Small helpers */

static void dictPanic(const char *msg) {
    fprintf(stderr, "dict: %s\n", msg);
    fflush(stderr);
    abort();
}

/* Sampling needs 64-bit randomness (tables can exceed 2^31 buckets) and must
 * not perturb the libc random() sequence others may depend on, so we keep a
 * private xorshift64* generator, seeded lazily from the clock and pid. */
static uint64_t dict_rng_state;

static uint64_t dictRandom(void) {
    if (dict_rng_state == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
                     ((uint64_t)getpid() << 32);
        /* splitmix64 finalizer spreads the low-entropy seed across all bits. */
        s += 0x9e3779b97f4a7c15ULL;
        s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
        s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
        s ^= s >> 31;
        dict_rng_state = s ? s : 0x2545f4914f6cdd1dULL;
    }
    uint64_t x = dict_rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    dict_rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static long long dictTimeMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int dictCompareKeys(dict *d, const void *k1, const void *k2) {
    if (k1 == k2) return 1;
    return d->type->keyCompare ? d->type->keyCompare(d, k1, k2) : 0;
}

static inline void dictSetKeyInternal(dict *d, dictEntry *de, void *key) {
    de->key = d->type->keyDup ? d->type->keyDup(d, key) : key;
}

static inline void dictSetValInternal(dict *d, dictEntry *de, void *val) {
    de->v.val = d->type->valDup ? d->type->valDup(d, val) : val;
}

static inline void dictFreeKey(dict *d, dictEntry *de) {
    if (d->type->keyDestructor) d->type->keyDestructor(d, de->key);
}

static inline void dictFreeVal(dict *d, dictEntry *de) {
    if (d->type->valDestructor) d->type->valDestructor(d, de->v.val);
}

static void dictResetTable(dict *d, int htidx) {
    d->ht_table[htidx] = NULL;
    d->ht_size_exp[htidx] = -1;
    d->ht_used[htidx] = 0;
}

/* ------------------------------------------------------------------------ */
/* Creation, sizing and rehashing */

dict *dictCreate(dictType *type) {
    dict *d = zmalloc(sizeof(*d));
    d->type = type;
    dictResetTable(d, 0);
    dictResetTable(d, 1);
    d->rehashidx = -1;
    d->pauserehash = 0;
    return d;
}

/* Exponent of the smallest power of two >= size (never below the initial
 * size). Saturates at 2^63 so the overflow check in dictExpandGeneric
 * rejects absurd requests instead of looping forever. */
static signed char dictNextExp(unsigned long size) {
    if (size >= (unsigned long)LONG_MAX) return (signed char)(8 * sizeof(long) - 1);
    signed char e = DICT_HT_INITIAL_EXP;
    while (((unsigned long)1 << e) < size) e++;
    return e;
}

static int dictExpandGeneric(dict *d, unsigned long size, int try) {
    /* Shrinking below the element count would be wrong, and two rehashes at
     * once are not representable. */
    if (dictIsRehashing(d) || d->ht_used[0] > size) return DICT_ERR;

    signed char exp = dictNextExp(size);
    unsigned long newsize = DICTHT_SIZE(exp);
    if (newsize < size || newsize * sizeof(dictEntry *) < newsize) return DICT_ERR;
    if (exp == d->ht_size_exp[0]) return DICT_ERR;

    /* zmalloc.h offers no non-aborting allocator, so a "try" can only refuse
     * sizes that cannot be addressed at all; anything else either succeeds or
     * ends the process like every other allocation. */
    if (try && newsize > (unsigned long)PTRDIFF_MAX / sizeof(dictEntry *)) return DICT_ERR;
    dictEntry **table = zcalloc(newsize * sizeof(dictEntry *));

    if (d->ht_table[0] == NULL) {
        /* First allocation: nothing to migrate. */
        d->ht_table[0] = table;
        d->ht_size_exp[0] = exp;
        d->ht_used[0] = 0;
        return DICT_OK;
    }
    d->ht_table[1] = table;
    d->ht_size_exp[1] = exp;
    d->ht_used[1] = 0;
    d->rehashidx = 0;
    return DICT_OK;
}

int dictExpand(dict *d, unsigned long size) {
    return dictExpandGeneric(d, size, 0);
}

int dictTryExpand(dict *d, unsigned long size) {
    return dictExpandGeneric(d, size, 1);
}

int dictResize(dict *d) {
    if (!dict_can_resize || dictIsRehashing(d)) return DICT_ERR;
    unsigned long minimal = d->ht_used[0];
    if (minimal < DICT_HT_INITIAL_SIZE) minimal = DICT_HT_INITIAL_SIZE;
    return dictExpand(d, minimal);
}

void dictSetResizeEnabled(int enable) {
    dict_can_resize = enable;
}

int dictRehash(dict *d, int n) {
    if (!dictIsRehashing(d)) return 0;
    /* Bound the work even when ht[0] is sparse after many deletions. */
    long empty_visits = (long)n * 10;
    unsigned long mask1 = DICTHT_SIZE_MASK(d->ht_size_exp[1]);

    while (n-- > 0 && d->ht_used[0] != 0) {
        if ((unsigned long)d->rehashidx >= DICTHT_SIZE(d->ht_size_exp[0]))
            dictPanic("rehash index past the end of the old table");
        while (d->ht_table[0][d->rehashidx] == NULL) {
            d->rehashidx++;
            if (--empty_visits == 0) return 1;
        }
        dictEntry *de = d->ht_table[0][d->rehashidx];
        while (de) {
            dictEntry *next = de->next;
            unsigned long idx = dictHashKey(d, de->key) & mask1;
            de->next = d->ht_table[1][idx];
            d->ht_table[1][idx] = de;
            d->ht_used[0]--;
            d->ht_used[1]++;
            de = next;
        }
        d->ht_table[0][d->rehashidx] = NULL;
        d->rehashidx++;
    }

    if (d->ht_used[0] == 0) {
        zfree(d->ht_table[0]);
        d->ht_table[0] = d->ht_table[1];
        d->ht_used[0] = d->ht_used[1];
        d->ht_size_exp[0] = d->ht_size_exp[1];
        dictResetTable(d, 1);
        d->rehashidx = -1;
        return 0;
    }
    return 1;
}

int dictRehashMilliseconds(dict *d, int ms) {
    if (d->pauserehash > 0) return 0;
    long long start = dictTimeMs();
    int moved = 0;
    while (dictRehash(d, 100)) {
        moved += 100;
        if (dictTimeMs() - start > ms) break;
    }
    return moved;
}

/* Piggy-back one bucket of migration on ordinary operations, unless an
 * iterator or scan needs the layout to stay put. */
static inline void dictRehashStep(dict *d) {
    if (d->pauserehash == 0) dictRehash(d, 1);
}

static int dictExpandAllowed(dict *d) {
    if (d->type->expandAllowed == NULL) return 1;
    unsigned long want = DICTHT_SIZE(dictNextExp(d->ht_used[0] + 1));
    return d->type->expandAllowed(want * sizeof(dictEntry *),
                                  (double)d->ht_used[0] / DICTHT_SIZE(d->ht_size_exp[0]));
}

static int dictExpandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    if (d->ht_size_exp[0] == -1) return dictExpand(d, DICT_HT_INITIAL_SIZE);
    unsigned long used = d->ht_used[0], size = DICTHT_SIZE(d->ht_size_exp[0]);
    if (used >= size && (dict_can_resize || used / size > dict_force_resize_ratio) &&
        dictExpandAllowed(d))
        return dictExpand(d, used + 1);
    return DICT_OK;
}

/* ------------------------------------------------------------------------ */
/* Lookup and modification */

/* Scan the chain for key in every live table. */
static dictEntry *dictLookup(dict *d, const void *key, uint64_t h) {
    for (int t = 0; t <= 1; t++) {
        dictEntry *he = d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
        for (; he; he = he->next)
            if (dictCompareKeys(d, key, he->key)) return he;
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

dictEntry *dictFindOrPos(dict *d, const void *key, dictInsertPos *pos) {
    if (dictIsRehashing(d)) dictRehashStep(d);
    /* Grow before searching so the returned position stays valid for the
     * insert that follows: nothing between here and dictInsertAtPos may
     * reallocate a table. */
    dictExpandIfNeeded(d);
    uint64_t h = dictHashKey(d, key);
    dictEntry *he = dictLookup(d, key, h);
    if (he) return he;
    int t = dictIsRehashing(d) ? 1 : 0;
    pos->table = t;
    pos->bucket = &d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
    return NULL;
}

dictEntry *dictInsertAtPos(dict *d, void *key, dictInsertPos *pos) {
    /* Trust the bucket address, not pos->table: if a rehash finished since
     * dictFindOrPos, the old ht[1] array is now ht[0] and the position is
     * still right. Anything outside the insert table is a stale position
     * that would corrupt the dict silently, so refuse it loudly. */
    int t = dictIsRehashing(d) ? 1 : 0;
    uintptr_t lo = (uintptr_t)d->ht_table[t];
    uintptr_t hi = (uintptr_t)(d->ht_table[t] + DICTHT_SIZE(d->ht_size_exp[t]));
    if ((uintptr_t)pos->bucket < lo || (uintptr_t)pos->bucket >= hi)
        dictPanic("dictInsertAtPos called with a stale position");

    /* New entries go at the head: recently added keys tend to be accessed
     * again soon, and it avoids walking the chain. */
    dictEntry *de = zmalloc(sizeof(*de));
    de->next = *pos->bucket;
    de->v.u64 = 0;
    *pos->bucket = de;
    d->ht_used[t]++;
    dictSetKeyInternal(d, de, key);
    return de;
}

dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing) {
    dictInsertPos pos;
    dictEntry *he = dictFindOrPos(d, key, &pos);
    if (he) {
        if (existing) *existing = he;
        return NULL;
    }
    return dictInsertAtPos(d, key, &pos);
}

int dictAdd(dict *d, void *key, void *val) {
    dictEntry *de = dictAddRaw(d, key, NULL);
    if (!de) return DICT_ERR;
    dictSetValInternal(d, de, val);
    return DICT_OK;
}

int dictReplace(dict *d, void *key, void *val) {
    dictEntry *existing = NULL;
    dictEntry *de = dictAddRaw(d, key, &existing);
    if (de) {
        dictSetValInternal(d, de, val);
        return 1;
    }
    /* Install the new value before freeing the old one: with refcounted
     * values, val and the old value may be the same object. */
    dictEntry old = *existing;
    dictSetValInternal(d, existing, val);
    dictFreeVal(d, &old);
    return 0;
}

static dictEntry *dictGenericDelete(dict *d, const void *key, int nofree) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    uint64_t h = dictHashKey(d, key);

    for (int t = 0; t <= 1; t++) {
        dictEntry **link = &d->ht_table[t][h & DICTHT_SIZE_MASK(d->ht_size_exp[t])];
        for (dictEntry *he = *link; he; link = &he->next, he = he->next) {
            if (!dictCompareKeys(d, key, he->key)) continue;
            *link = he->next;
            d->ht_used[t]--;
            if (!nofree) {
                dictFreeKey(d, he);
                dictFreeVal(d, he);
                zfree(he);
            }
            return he;
        }
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

int dictDelete(dict *d, const void *key) {
    return dictGenericDelete(d, key, 0) ? DICT_OK : DICT_ERR;
}

dictEntry *dictUnlink(dict *d, const void *key) {
    return dictGenericDelete(d, key, 1);
}

void dictFreeUnlinkedEntry(dict *d, dictEntry *he) {
    if (he == NULL) return;
    dictFreeKey(d, he);
    dictFreeVal(d, he);
    zfree(he);
}

dictEntry *dictFind(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    return dictLookup(d, key, dictHashKey(d, key));
}

void *dictFetchValue(dict *d, const void *key) {
    dictEntry *he = dictFind(d, key);
    return he ? dictGetVal(he) : NULL;
}

static void dictClearTable(dict *d, int htidx, void(callback)(dict *)) {
    unsigned long size = DICTHT_SIZE(d->ht_size_exp[htidx]);
    for (unsigned long i = 0; i < size && d->ht_used[htidx] > 0; i++) {
        /* Freeing millions of keys takes a while; let the caller keep the
         * event loop alive. */
        if (callback && (i & 65535) == 0) callback(d);
        dictEntry *he = d->ht_table[htidx][i];
        while (he) {
            dictEntry *next = he->next;
            dictFreeKey(d, he);
            dictFreeVal(d, he);
            zfree(he);
            d->ht_used[htidx]--;
            he = next;
        }
    }
    zfree(d->ht_table[htidx]);
    dictResetTable(d, htidx);
}

void dictEmpty(dict *d, void(callback)(dict *)) {
    dictClearTable(d, 0, callback);
    dictClearTable(d, 1, callback);
    d->rehashidx = -1;
    d->pauserehash = 0;
}

void dictRelease(dict *d) {
    dictClearTable(d, 0, NULL);
    dictClearTable(d, 1, NULL);
    zfree(d);
}

/* ------------------------------------------------------------------------ */
/* Iterators */

/* Digest of the table layout. An unsafe iterator only promises correctness if
 * nothing was added, deleted or rehashed, so we compare this at the start and
 * end instead of trusting the caller. */
static unsigned long long dictFingerprint(dict *d) {
    unsigned long long parts[6] = {
        (unsigned long long)(uintptr_t)d->ht_table[0],
        (unsigned long long)d->ht_size_exp[0],
        d->ht_used[0],
        (unsigned long long)(uintptr_t)d->ht_table[1],
        (unsigned long long)d->ht_size_exp[1],
        d->ht_used[1],
    };
    unsigned long long h = 0;
    for (int i = 0; i < 6; i++) {
        /* Order-sensitive mix so swapped fields give different digests. */
        h = (h ^ parts[i]) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 32;
    }
    return h;
}

void dictInitIterator(dictIterator *iter, dict *d) {
    iter->d = d;
    iter->table = 0;
    iter->index = -1;
    iter->safe = 0;
    iter->entry = NULL;
    iter->nextEntry = NULL;
    iter->fingerprint = 0;
}

void dictInitSafeIterator(dictIterator *iter, dict *d) {
    dictInitIterator(iter, d);
    iter->safe = 1;
}

dictIterator *dictGetIterator(dict *d) {
    dictIterator *iter = zmalloc(sizeof(*iter));
    dictInitIterator(iter, d);
    return iter;
}

dictIterator *dictGetSafeIterator(dict *d) {
    dictIterator *iter = dictGetIterator(d);
    iter->safe = 1;
    return iter;
}

dictEntry *dictNext(dictIterator *iter) {
    dict *d = iter->d;
    for (;;) {
        if (iter->entry == NULL) {
            if (iter->index == -1 && iter->table == 0) {
                /* First call: freeze the layout (safe) or record it (unsafe). */
                if (iter->safe)
                    dictPauseRehashing(d);
                else
                    iter->fingerprint = dictFingerprint(d);
            }
            iter->index++;
            if ((unsigned long)iter->index >= DICTHT_SIZE(d->ht_size_exp[iter->table])) {
                if (dictIsRehashing(d) && iter->table == 0) {
                    iter->table = 1;
                    iter->index = 0;
                } else {
                    return NULL;
                }
            }
            iter->entry = d->ht_table[iter->table][iter->index];
        } else {
            iter->entry = iter->nextEntry;
        }
        if (iter->entry) {
            /* Remember the successor now: a safe iterator's caller may
             * delete the entry we return. */
            iter->nextEntry = iter->entry->next;
            return iter->entry;
        }
    }
}

void dictResetIterator(dictIterator *iter) {
    if (iter->index == -1 && iter->table == 0) return; /* never started */
    if (iter->safe)
        dictResumeRehashing(iter->d);
    else if (iter->fingerprint != dictFingerprint(iter->d))
        dictPanic("dict modified while an unsafe iterator was active");
}

void dictReleaseIterator(dictIterator *iter) {
    dictResetIterator(iter);
    zfree(iter);
}

/* ------------------------------------------------------------------------ */
/* Random sampling */

dictEntry *dictGetRandomKey(dict *d) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);

    dictEntry *he;
    if (dictIsRehashing(d)) {
        /* Buckets of ht[0] below rehashidx are known empty: skip them. */
        unsigned long s0 = DICTHT_SIZE(d->ht_size_exp[0]);
        unsigned long span = dictSlots(d) - (unsigned long)d->rehashidx;
        do {
            unsigned long h = (unsigned long)d->rehashidx + (dictRandom() % span);
            he = h >= s0 ? d->ht_table[1][h - s0] : d->ht_table[0][h];
        } while (he == NULL);
    } else {
        unsigned long mask = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        do {
            he = d->ht_table[0][dictRandom() & mask];
        } while (he == NULL);
    }

    /* Pick uniformly within the chain; keys on long chains are still less
     * likely overall, which dictGetFairRandomKey mitigates. */
    unsigned long len = 0;
    for (dictEntry *e = he; e; e = e->next) len++;
    unsigned long n = dictRandom() % len;
    while (n--) he = he->next;
    return he;
}

unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count) {
    if (dictSize(d) < count) count = (unsigned int)dictSize(d);
    if (count == 0) return 0;
    unsigned long maxsteps = (unsigned long)count * 10;

    /* Do work proportional to the request, as the caller would have done
     * with count separate lookups. */
    for (unsigned int j = 0; j < count && dictIsRehashing(d); j++) dictRehashStep(d);

    int tables = dictIsRehashing(d) ? 2 : 1;
    unsigned long maxmask = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
    if (tables > 1 && DICTHT_SIZE_MASK(d->ht_size_exp[1]) > maxmask)
        maxmask = DICTHT_SIZE_MASK(d->ht_size_exp[1]);

    unsigned long i = dictRandom() & maxmask;
    unsigned long emptylen = 0;
    unsigned int stored = 0;
    while (stored < count && maxsteps--) {
        for (int t = 0; t < tables; t++) {
            if (tables == 2 && t == 0 && i < (unsigned long)d->rehashidx) {
                /* Already migrated in ht[0]. If ht[1] is smaller (shrink),
                 * this index holds nothing anywhere: jump ahead. */
                if (i >= DICTHT_SIZE(d->ht_size_exp[1]))
                    i = (unsigned long)d->rehashidx;
                else
                    continue;
            }
            if (i >= DICTHT_SIZE(d->ht_size_exp[t])) continue;
            dictEntry *he = d->ht_table[t][i];
            if (he == NULL) {
                /* A long empty run means a sparse region: restart elsewhere
                 * rather than crawl through it. */
                if (++emptylen >= 5 && emptylen > count) {
                    i = dictRandom() & maxmask;
                    emptylen = 0;
                }
                continue;
            }
            emptylen = 0;
            /* The whole chain is sampled, past count too (reservoir
             * sampling), or the end of a long chain could never be drawn. */
            unsigned long seen = stored;
            for (; he; he = he->next, seen++) {
                if (seen < count) {
                    des[seen] = he;
                } else {
                    unsigned long r = dictRandom() % (seen + 1);
                    if (r < count) des[r] = he;
                }
            }
            stored = seen < count ? (unsigned int)seen : count;
            if (stored == count) return stored;
        }
        i = (i + 1) & maxmask;
    }
    return stored;
}

#define GETFAIR_NUM_ENTRIES 15
dictEntry *dictGetFairRandomKey(dict *d) {
    dictEntry *entries[GETFAIR_NUM_ENTRIES];
    unsigned int count = dictGetSomeKeys(d, entries, GETFAIR_NUM_ENTRIES);
    /* dictGetSomeKeys can come back empty on a very sparse table even though
     * the dict is not empty; fall back to the always-successful sampler. */
    if (count == 0) return dictGetRandomKey(d);
    return entries[dictRandom() % count];
}

/* ------------------------------------------------------------------------ */
/* SCAN */

static unsigned long reverseBits(unsigned long v) {
    unsigned long r = 0;
    for (unsigned int i = 0; i < 8 * sizeof(v); i++) {
        r = (r << 1) | (v & 1);
        v >>= 1;
    }
    return r;
}

/* Advance the cursor by incrementing its bit-reversed form over the bits
 * outside mask. Because the high bits are the ones that change fastest,
 * buckets that split (grow) or merge (shrink) between calls share a prefix
 * with the cursor and are never skipped. */
static inline unsigned long nextCursor(unsigned long v, unsigned long mask) {
    v |= ~mask;
    v = reverseBits(v);
    v++;
    return reverseBits(v);
}

static void scanBucket(dictEntry *de, dictScanFunction *fn, void *privdata) {
    while (de) {
        dictEntry *next = de->next; /* fn may delete de */
        fn(privdata, de);
        de = next;
    }
}

unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata) {
    if (dictSize(d) == 0) return 0;
    /* The callback may look keys up; those lookups must not move buckets
     * under the cursor. */
    dictPauseRehashing(d);

    if (!dictIsRehashing(d)) {
        unsigned long m0 = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        scanBucket(d->ht_table[0][v & m0], fn, privdata);
        v = nextCursor(v, m0);
    } else {
        int small = 0, large = 1;
        if (DICTHT_SIZE(d->ht_size_exp[0]) > DICTHT_SIZE(d->ht_size_exp[1])) {
            small = 1;
            large = 0;
        }
        unsigned long m0 = DICTHT_SIZE_MASK(d->ht_size_exp[small]);
        unsigned long m1 = DICTHT_SIZE_MASK(d->ht_size_exp[large]);

        scanBucket(d->ht_table[small][v & m0], fn, privdata);
        /* Then every bucket of the larger table that this small bucket
         * expands into: those sharing the low bits v & m0. */
        do {
            scanBucket(d->ht_table[large][v & m1], fn, privdata);
            v = nextCursor(v, m1);
        } while (v & (m0 ^ m1));
    }

    dictResumeRehashing(d);
    return v;
}

/* ------------------------------------------------------------------------ */
/* Statistics */

#define DICT_STATS_VECTLEN 50

static void statsAppend(char *buf, size_t bufsize, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void statsAppend(char *buf, size_t bufsize, size_t *len, const char *fmt, ...) {
    if (*len + 1 >= bufsize) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, bufsize - *len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    *len += (size_t)n;
    if (*len >= bufsize) *len = bufsize - 1; /* truncated */
}

static void dictStatsTable(char *buf, size_t bufsize, size_t *len, dict *d, int htidx) {
    unsigned long size = DICTHT_SIZE(d->ht_size_exp[htidx]);
    const char *which = htidx == 0 ? "main hash table" : "rehashing target";
    if (d->ht_used[htidx] == 0) {
        /* The header even so: a table being rehashed into may be empty. */
        statsAppend(buf, bufsize, len, "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n",
                    htidx, which);
        return;
    }

    unsigned long clvector[DICT_STATS_VECTLEN] = {0};
    unsigned long slots = 0, maxchainlen = 0, totchainlen = 0;
    for (unsigned long i = 0; i < size; i++) {
        unsigned long chainlen = 0;
        for (dictEntry *he = d->ht_table[htidx][i]; he; he = he->next) chainlen++;
        clvector[chainlen < DICT_STATS_VECTLEN ? chainlen : DICT_STATS_VECTLEN - 1]++;
        if (chainlen == 0) continue;
        slots++;
        if (chainlen > maxchainlen) maxchainlen = chainlen;
        totchainlen += chainlen;
    }

    statsAppend(buf, bufsize, len,
                "Hash table %d stats (%s):\n"
                " table size: %lu\n"
                " number of elements: %lu\n"
                " different slots: %lu\n"
                " max chain length: %lu\n"
                " avg chain length (counted): %.02f\n"
                " avg chain length (computed): %.02f\n"
                " Chain length distribution:\n",
                htidx, which, size, d->ht_used[htidx],
                slots, maxchainlen, (double)totchainlen / slots, (double)d->ht_used[htidx] / slots);
    for (unsigned long i = 0; i < DICT_STATS_VECTLEN; i++) {
        if (clvector[i] == 0) continue;
        statsAppend(buf, bufsize, len, "   %s%lu: %lu (%.02f%%)\n",
                    i == DICT_STATS_VECTLEN - 1 ? ">= " : "", i, clvector[i],
                    ((double)clvector[i] / size) * 100);
    }
}

/* Writes from the start of buf (always NUL-terminated when bufsize > 0) and
 * returns the length written, so callers can continue at buf + result. */
size_t dictGetStats(char *buf, size_t bufsize, dict *d) {
    size_t len = 0;
    if (bufsize == 0) return 0;
    buf[0] = '\0';
    dictStatsTable(buf, bufsize, &len, d, 0);
    if (dictIsRehashing(d)) dictStatsTable(buf, bufsize, &len, d, 1);
    return len;
}
