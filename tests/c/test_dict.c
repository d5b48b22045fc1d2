/* test_dict: unit tests for src/dict.c and src/siphash.c. Builds its own key
 * types (heap C strings owned by the dict, and integers stored in the key
 * pointer), drives the table through growth, shrink and incremental rehash,
 * and checks structural invariants directly against struct dict. SipHash
 * vectors come from an independent Python reference (validated against the
 * published SipHash-2-4 vectors, then run with c=1, d=2). */
#include "dict.h"
#include "siphash.h"
#include "zmalloc.h"
#include "test.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- key types ---------------------------------------------------------- */

static uint64_t strHash(const void *key) {
    return dictGenHashFunction(key, strlen(key));
}
static int strCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return strcmp(a, b) == 0;
}
static void strFree(dict *d, void *key) {
    (void)d;
    zfree(key);
}

static long val_destroyed;
static void valCount(dict *d, void *val) {
    (void)d;
    (void)val;
    val_destroyed++;
}

static dictType strType = {strHash, NULL, NULL, strCompare, strFree, NULL, NULL};
static dictType strValType = {strHash, NULL, NULL, strCompare, strFree, valCount, NULL};

/* Integer keys live in the pointer itself (offset by one so no key is NULL). */
static uint64_t intHash(const void *key) {
    uintptr_t k = (uintptr_t)key;
    return dictGenHashFunction(&k, sizeof(k));
}
static dictType intType = {intHash, NULL, NULL, NULL, NULL, NULL, NULL};
/* Every key in one bucket: a single chain as long as the dict. */
static uint64_t zeroHash(const void *key) {
    (void)key;
    return 0;
}
static dictType chainType = {zeroHash, NULL, NULL, NULL, NULL, NULL, NULL};
#define IKEY(n) ((void *)(uintptr_t)((n) + 1))
#define IVAL(p) ((long)((uintptr_t)(p)-1))

static char *mkkey(long i) {
    char buf[32];
    snprintf(buf, sizeof(buf), "key:%ld", i);
    return zstrdup(buf);
}

/* ---- structural integrity ------------------------------------------------ */

/* Every entry sits in the bucket its hash selects, per-table counts match,
 * migrated ht[0] buckets are empty, and a second table exists only while
 * rehashing. Returns 1 if all hold. */
static int dictIntegrity(dict *d) {
    int ok = 1;
    for (int t = 0; t <= 1; t++) {
        if (t == 1 && !dictIsRehashing(d)) {
            if (d->ht_table[1] || d->ht_used[1] || d->ht_size_exp[1] != -1) ok = 0;
            break;
        }
        unsigned long size = DICTHT_SIZE(d->ht_size_exp[t]);
        if ((size == 0) != (d->ht_table[t] == NULL)) ok = 0;
        unsigned long count = 0;
        for (unsigned long i = 0; i < size; i++) {
            if (t == 0 && dictIsRehashing(d) && (long)i < d->rehashidx && d->ht_table[0][i]) ok = 0;
            for (dictEntry *he = d->ht_table[t][i]; he; he = he->next) {
                if ((dictHashKey(d, he->key) & DICTHT_SIZE_MASK(d->ht_size_exp[t])) != i) ok = 0;
                count++;
            }
        }
        if (count != d->ht_used[t]) ok = 0;
    }
    return ok;
}

/* ---- scan helpers -------------------------------------------------------- */

typedef struct {
    unsigned char *seen;
    long max;
    long calls;
    dict *d; /* if set, the callback checks rehashing is paused */
    long not_paused;
} scanState;

static void scanMark(void *privdata, const dictEntry *de) {
    scanState *st = privdata;
    long k = IVAL(de->key);
    if (k >= 0 && k < st->max) st->seen[k] = 1;
    st->calls++;
    if (st->d) {
        if (st->d->pauserehash <= 0) st->not_paused++;
        /* A lookup from the callback must not migrate buckets mid-scan. */
        long idx = st->d->rehashidx;
        dictFind(st->d, de->key);
        if (st->d->rehashidx != idx) st->not_paused++;
    }
}

static int dictEmptyCalls;
static void emptyCallback(dict *d) {
    (void)d;
    dictEmptyCalls++;
}

static int allowGrow = 1;
static int expandVeto(size_t moreMem, double usedRatio) {
    (void)moreMem;
    (void)usedRatio;
    return allowGrow;
}

int main(void) {
    uint8_t seed[16];
    for (int i = 0; i < 16; i++) seed[i] = (uint8_t)i;
    dictSetHashFunctionSeed(seed);
    size_t mem_start = zmalloc_used_memory();

    TEST("siphash-1-2 matches reference vectors") {
        /* key = 00..0f, message = 00..n-1 */
        static const struct {
            size_t len;
            uint64_t want;
        } vec[] = {
            {0, 0xcea28b51565c12e2ULL},  {1, 0x94aaf38c34ce7ba6ULL},  {7, 0xf03c4cbcf492b05aULL},
            {8, 0x606845b4d093af74ULL},  {9, 0xe304e78271c74a56ULL},  {15, 0xec8f61bc1c8966a6ULL},
            {16, 0x1311f4dfe747a751ULL}, {17, 0x899c7b292c85339cULL}, {63, 0xff6d07afacbad6d9ULL},
            {64, 0x7c52539377fda0d0ULL},
        };
        uint8_t msg[64];
        for (int i = 0; i < 64; i++) msg[i] = (uint8_t)i;
        for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++)
            CHECK(siphash(msg, vec[i].len, seed) == vec[i].want);
        CHECK(siphash((const uint8_t *)"hello", 5, seed) == 0xf5496b7e483cca31ULL);
        CHECK(dictGenHashFunction("hello", 5) == 0xf5496b7e483cca31ULL);
        /* Bytes 0..63 hold no A-Z, so the byte-wise case-folding path must
         * agree with the word-load path at every tail length and alignment. */
        for (size_t off = 0; off < 8; off++)
            for (size_t len = 0; off + len <= 64; len++)
                CHECK(siphash(msg + off, len, seed) == siphash_nocase(msg + off, len, seed));
    }

    TEST("case-insensitive hash folds ASCII only") {
        CHECK(siphash_nocase((const uint8_t *)"ABC", 3, seed) ==
              siphash_nocase((const uint8_t *)"abc", 3, seed));
        CHECK(siphash_nocase((const uint8_t *)"abc", 3, seed) ==
              siphash((const uint8_t *)"abc", 3, seed));
        CHECK(dictGenCaseHashFunction((const unsigned char *)"ABC", 3) ==
              dictGenCaseHashFunction((const unsigned char *)"abc", 3));
        CHECK(dictGenHashFunction("ABC", 3) != dictGenHashFunction("abc", 3));
        const char *a = "Hello World, MiXeD CaSe over 8 bytes";
        const char *b = "hello world, mixed case over 8 bytes";
        CHECK(dictGenCaseHashFunction((const unsigned char *)a, strlen(a)) ==
              dictGenHashFunction(b, strlen(b)));
        /* '@' and '[' border A-Z and must not be folded. */
        CHECK(dictGenCaseHashFunction((const unsigned char *)"@[", 2) ==
              dictGenHashFunction("@[", 2));
        CHECK(dictGenCaseHashFunction((const unsigned char *)"@[", 2) !=
              dictGenHashFunction("`{", 2));
    }

    TEST("hash seed changes the hash and is readable") {
        uint64_t before = dictGenHashFunction("key", 3);
        uint8_t other[16];
        memset(other, 0xa5, sizeof(other));
        dictSetHashFunctionSeed(other);
        CHECK(memcmp(dictGetHashFunctionSeed(), other, 16) == 0);
        CHECK(dictGenHashFunction("key", 3) != before);
        dictSetHashFunctionSeed(seed);
        CHECK(dictGenHashFunction("key", 3) == before);
    }

    TEST("add, find and delete 100k keys") {
        const long N = 100000;
        dict *d = dictCreate(&strType);
        CHECK(d->ht_size_exp[0] == -1 && dictSlots(d) == 0 && !dictIsRehashing(d));
        CHECK(dictFind(d, "key:1") == NULL);
        int adds_ok = 1;
        for (long i = 0; i < N; i++)
            if (dictAdd(d, mkkey(i), (void *)(uintptr_t)i) != DICT_OK) adds_ok = 0;
        CHECK(adds_ok);
        CHECK(dictSize(d) == (unsigned long)N);
        CHECK(dictIntegrity(d));

        char *dup = mkkey(42);
        CHECK(dictAdd(d, dup, NULL) == DICT_ERR);
        zfree(dup);
        dictEntry *existing = NULL;
        CHECK(dictAddRaw(d, "key:7", &existing) == NULL);
        CHECK(existing && (uintptr_t)dictGetVal(existing) == 7);

        int finds_ok = 1;
        char buf[32];
        for (long i = 0; i < N; i++) {
            snprintf(buf, sizeof(buf), "key:%ld", i);
            dictEntry *he = dictFind(d, buf);
            if (!he || (uintptr_t)dictGetVal(he) != (uintptr_t)i || strcmp(he->key, buf))
                finds_ok = 0;
        }
        CHECK(finds_ok);
        CHECK(dictFind(d, "key:-1") == NULL);
        CHECK(dictFetchValue(d, "key:99999") == (void *)(uintptr_t)99999);

        int dels_ok = 1;
        for (long i = 0; i < N; i += 2) {
            snprintf(buf, sizeof(buf), "key:%ld", i);
            if (dictDelete(d, buf) != DICT_OK) dels_ok = 0;
        }
        CHECK(dels_ok);
        CHECK(dictDelete(d, "key:0") == DICT_ERR);
        CHECK(dictSize(d) == (unsigned long)N / 2);
        CHECK(dictIntegrity(d));
        int half_ok = 1;
        for (long i = 0; i < N; i++) {
            snprintf(buf, sizeof(buf), "key:%ld", i);
            if ((dictFind(d, buf) != NULL) != (i % 2 == 1)) half_ok = 0;
        }
        CHECK(half_ok);
        for (long i = 1; i < N; i += 2) {
            snprintf(buf, sizeof(buf), "key:%ld", i);
            dictDelete(d, buf);
        }
        CHECK(dictSize(d) == 0);
        CHECK(dictIntegrity(d));
        dictRelease(d);
    }

    TEST("replace adds or overwrites and frees the old value") {
        dict *d = dictCreate(&strValType);
        val_destroyed = 0;
        CHECK(dictReplace(d, mkkey(1), (void *)1) == 1);
        char *k = mkkey(1);
        CHECK(dictReplace(d, k, (void *)2) == 0);
        zfree(k); /* not consumed on overwrite */
        CHECK(val_destroyed == 1);
        CHECK(dictFetchValue(d, "key:1") == (void *)2);
        CHECK(dictSize(d) == 1);
        dictRelease(d);
        CHECK(val_destroyed == 2);
    }

    TEST("unlink defers freeing to dictFreeUnlinkedEntry") {
        dict *d = dictCreate(&strValType);
        val_destroyed = 0;
        dictAdd(d, mkkey(5), (void *)5);
        dictEntry *he = dictUnlink(d, "key:5");
        CHECK(he != NULL && strcmp(he->key, "key:5") == 0);
        CHECK(dictSize(d) == 0 && val_destroyed == 0);
        CHECK(dictFind(d, "key:5") == NULL);
        dictFreeUnlinkedEntry(d, he);
        CHECK(val_destroyed == 1);
        CHECK(dictUnlink(d, "key:5") == NULL);
        dictFreeUnlinkedEntry(d, NULL);
        dictRelease(d);
    }

    TEST("dictFindOrPos + dictInsertAtPos while rehashing") {
        dict *d = dictCreate(&strType);
        for (long i = 0; i < 64; i++) dictAdd(d, mkkey(i), (void *)(uintptr_t)i);
        CHECK(dictExpand(d, 4096) == DICT_OK);
        CHECK(dictIsRehashing(d));
        long i = 64, inserted_during_rehash = 0;
        int ok = 1;
        char buf[32];
        while (dictIsRehashing(d)) {
            dictInsertPos pos;
            /* An existing key is found, not positioned. */
            snprintf(buf, sizeof(buf), "key:%ld", i / 2);
            dictEntry *he = dictFindOrPos(d, buf, &pos);
            if (!he || (uintptr_t)dictGetVal(he) != (uintptr_t)(i / 2)) ok = 0;

            snprintf(buf, sizeof(buf), "key:%ld", i);
            he = dictFindOrPos(d, buf, &pos);
            if (he) ok = 0;
            if (dictIsRehashing(d)) {
                if (pos.table != 1) ok = 0;
                inserted_during_rehash++;
            }
            he = dictInsertAtPos(d, mkkey(i), &pos);
            dictSetVal(d, he, (void *)(uintptr_t)i);
            if (dictFind(d, buf) != he) ok = 0;
            i++;
        }
        CHECK(ok);
        CHECK(inserted_during_rehash > 0);
        CHECK(dictSize(d) == (unsigned long)i);
        CHECK(dictIntegrity(d));
        for (long j = 0; j < i; j++) {
            snprintf(buf, sizeof(buf), "key:%ld", j);
            if (dictFetchValue(d, buf) != (void *)(uintptr_t)j) ok = 0;
        }
        CHECK(ok);

        /* Not rehashing: the position is in ht[0]. */
        dictInsertPos pos;
        CHECK(dictFindOrPos(d, "fresh", &pos) == NULL && pos.table == 0);
        dictInsertAtPos(d, zstrdup("fresh"), &pos);
        CHECK(dictFind(d, "fresh") != NULL);
        dictRelease(d);
    }

    TEST("dictInsertAtPos after the rehash finished in between") {
        dict *d = dictCreate(&strType);
        for (long i = 0; i < 8; i++) dictAdd(d, mkkey(i), NULL);
        dictExpand(d, 64);
        dictInsertPos pos;
        CHECK(dictFindOrPos(d, "late", &pos) == NULL);
        CHECK(pos.table == 1);
        while (dictRehash(d, 100)) {
        }
        CHECK(!dictIsRehashing(d));
        dictInsertAtPos(d, zstrdup("late"), &pos);
        CHECK(dictFind(d, "late") != NULL);
        CHECK(dictIntegrity(d));
        dictRelease(d);
    }

    TEST("incremental rehash advances and completes") {
        dict *d = dictCreate(&intType);
        for (long i = 0; i < 10000; i++) dictAdd(d, IKEY(i), NULL);
        CHECK(!dictIsRehashing(d) || dictRehash(d, 1000000) == 0);
        CHECK(DICTHT_SIZE(d->ht_size_exp[0]) == 16384);

        CHECK(dictExpand(d, 100000) == DICT_OK);
        CHECK(dictIsRehashing(d) && d->rehashidx == 0);
        CHECK(dictExpand(d, 200000) == DICT_ERR); /* one rehash at a time */
        long before = d->rehashidx;
        dictFind(d, IKEY(1));
        CHECK(d->rehashidx > before);

        /* Paused: operations must not move buckets. */
        dictPauseRehashing(d);
        before = d->rehashidx;
        for (long i = 0; i < 100; i++) dictFind(d, IKEY(i));
        CHECK(d->rehashidx == before);
        CHECK(dictRehashMilliseconds(d, 10) == 0);
        dictResumeRehashing(d);

        int steps = 0;
        while (dictRehash(d, 1)) steps++;
        CHECK(steps > 100);
        CHECK(!dictIsRehashing(d));
        CHECK(DICTHT_SIZE(d->ht_size_exp[0]) == 131072);
        CHECK(dictSize(d) == 10000 && dictIntegrity(d));
        CHECK(dictRehash(d, 1) == 0);

        CHECK(dictExpand(d, 1 << 20) == DICT_OK);
        int moved = dictRehashMilliseconds(d, 1000);
        CHECK(moved > 0);
        CHECK(!dictIsRehashing(d));
        CHECK(dictIntegrity(d));
        dictRelease(d);
    }

    TEST("grow happens at load factor 1 and next power of two of used+1") {
        dict *d = dictCreate(&intType);
        for (long i = 0; i < 4; i++) dictAdd(d, IKEY(i), NULL);
        CHECK(dictSlots(d) == 4 && !dictIsRehashing(d));
        dictAdd(d, IKEY(4), NULL); /* used 4 >= size 4 before insert */
        CHECK(dictIsRehashing(d));
        CHECK(DICTHT_SIZE(d->ht_size_exp[1]) == 8);
        dictRelease(d);
    }

    TEST("resize disabled: grows only past ratio 5; dictResize refuses") {
        dictSetResizeEnabled(0);
        dict *d = dictCreate(&intType);
        for (long i = 0; i < 24; i++) dictAdd(d, IKEY(i), NULL);
        CHECK(dictSlots(d) == 4 && !dictIsRehashing(d));
        dictAdd(d, IKEY(24), NULL); /* 24/4 = 6 > 5 */
        CHECK(dictIsRehashing(d));
        while (dictRehash(d, 100)) {
        }
        CHECK(dictSlots(d) == 32);
        for (long i = 0; i < 20; i++) dictDelete(d, IKEY(i));
        CHECK(dictResize(d) == DICT_ERR);
        dictSetResizeEnabled(1);
        CHECK(dictResize(d) == DICT_OK);
        while (dictRehash(d, 100)) {
        }
        CHECK(dictSlots(d) == 8 && dictSize(d) == 5 && dictIntegrity(d));
        dictRelease(d);
    }

    TEST("expandAllowed veto keeps the table from growing") {
        dictType vetoType = intType;
        vetoType.expandAllowed = expandVeto;
        allowGrow = 0;
        dict *d = dictCreate(&vetoType);
        for (long i = 0; i < 100; i++) dictAdd(d, IKEY(i), NULL);
        CHECK(dictSlots(d) == 4 && dictSize(d) == 100);
        CHECK(dictIntegrity(d));
        allowGrow = 1;
        dictAdd(d, IKEY(100), NULL);
        CHECK(dictIsRehashing(d) && DICTHT_SIZE(d->ht_size_exp[1]) == 128);
        dictRelease(d);
    }

    TEST("dictResize shrinks to the minimal power of two") {
        dict *d = dictCreate(&intType);
        for (long i = 0; i < 100000; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 1000)) {
        }
        CHECK(dictSlots(d) == 131072);
        for (long i = 100; i < 100000; i++) dictDelete(d, IKEY(i));
        CHECK(dictSize(d) == 100);
        CHECK(dictResize(d) == DICT_OK);
        CHECK(dictIsRehashing(d) && DICTHT_SIZE(d->ht_size_exp[1]) == 128);
        CHECK(dictResize(d) == DICT_ERR); /* already rehashing */
        while (dictRehash(d, 1)) {
        }
        CHECK(dictSlots(d) == 128 && dictIntegrity(d));
        CHECK(dictResize(d) == DICT_ERR);     /* already minimal */
        CHECK(dictExpand(d, 50) == DICT_ERR); /* smaller than used */
        CHECK(dictTryExpand(d, (unsigned long)-1) == DICT_ERR);
        int ok = 1;
        for (long i = 0; i < 100; i++)
            if (!dictFind(d, IKEY(i))) ok = 0;
        CHECK(ok);
        for (long i = 0; i < 100; i++) dictDelete(d, IKEY(i));
        CHECK(dictResize(d) == DICT_OK);
        while (dictRehash(d, 1)) {
        }
        CHECK(dictSlots(d) == DICT_HT_INITIAL_SIZE);
        dictRelease(d);
    }

    TEST("safe iterator allows deleting while rehashing") {
        dict *d = dictCreate(&intType);
        for (long i = 0; i < 10000; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 1000)) {
        }
        dictExpand(d, 40000);
        dictRehash(d, 10);
        CHECK(dictIsRehashing(d));
        unsigned char *seen = calloc(10000, 1);
        long visited = 0, dups = 0;
        dictIterator *it = dictGetSafeIterator(d);
        dictEntry *de;
        long idx_at_start = d->rehashidx;
        while ((de = dictNext(it)) != NULL) {
            long k = IVAL(de->key);
            if (seen[k]) dups++;
            seen[k] = 1;
            visited++;
            dictDelete(d, de->key);
            /* Lookups of other keys must not migrate buckets under us. */
            dictFind(d, IKEY((k * 7919) % 10000));
        }
        CHECK(d->pauserehash == 1 && d->rehashidx == idx_at_start);
        dictReleaseIterator(it);
        CHECK(d->pauserehash == 0);
        CHECK(visited == 10000 && dups == 0);
        CHECK(dictSize(d) == 0);
        free(seen);

        /* Stack iterator, unsafe, on an unmodified dict: counts match. */
        for (long i = 0; i < 1000; i++) dictAdd(d, IKEY(i), NULL);
        dictIterator si;
        dictInitIterator(&si, d);
        long n = 0;
        while (dictNext(&si)) n++;
        dictResetIterator(&si);
        CHECK(n == 1000);
        /* An iterator that never started does nothing on release. */
        dictInitSafeIterator(&si, d);
        dictResetIterator(&si);
        CHECK(d->pauserehash == 0);
        dictRelease(d);
    }

    TEST("unsafe iterator aborts if the dict is modified") {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            freopen("/dev/null", "w", stderr);
            dict *d = dictCreate(&intType);
            for (long i = 0; i < 100; i++) dictAdd(d, IKEY(i), NULL);
            dictIterator *it = dictGetIterator(d);
            dictNext(it);
            dictAdd(d, IKEY(1000), NULL);
            dictReleaseIterator(it);
            _exit(0); /* not reached if the check works */
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    }

    TEST("scan returns every stable key across growth mid-scan") {
        const long N = 5000, EXTRA = 60000;
        dict *d = dictCreate(&intType);
        for (long i = 0; i < N; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 1000)) {
        }
        scanState st = {calloc(N, 1), N, 0, NULL, 0};
        unsigned long cursor = 0;
        long steps = 0, added = 0;
        int saw_rehashing = 0;
        do {
            cursor = dictScan(d, cursor, scanMark, &st);
            steps++;
            /* Grow in bursts between cursor steps; rehash partially, so
             * some steps land while two tables exist. */
            if (steps % 50 == 0 && added < EXTRA) {
                for (long j = 0; j < 5000 && added < EXTRA; j++, added++)
                    dictAdd(d, IKEY(N + added), NULL);
                if (dictIsRehashing(d)) saw_rehashing = 1;
            }
        } while (cursor != 0 && steps < 10000000);
        long missing = 0;
        for (long i = 0; i < N; i++)
            if (!st.seen[i]) missing++;
        CHECK(cursor == 0);
        CHECK(missing == 0);
        CHECK(added > 0 && saw_rehashing);
        CHECK(d->pauserehash == 0);
        free(st.seen);
        dictRelease(d);
    }

    TEST("scan returns every stable key across shrink mid-scan") {
        const long N = 1000, EXTRA = 100000;
        dict *d = dictCreate(&intType);
        for (long i = 0; i < N + EXTRA; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 1000)) {
        }
        scanState st = {calloc(N, 1), N, 0, d, 0};
        unsigned long cursor = 0;
        long steps = 0;
        int shrunk = 0, saw_rehashing = 0;
        do {
            cursor = dictScan(d, cursor, scanMark, &st);
            steps++;
            if (steps == 2000 && !shrunk) {
                for (long i = N; i < N + EXTRA; i++) dictDelete(d, IKEY(i));
                shrunk = dictResize(d) == DICT_OK;
            }
            if (dictIsRehashing(d)) {
                saw_rehashing = 1;
                dictRehash(d, 3); /* slow, so several scan calls see both tables */
            }
        } while (cursor != 0 && steps < 10000000);
        long missing = 0;
        for (long i = 0; i < N; i++)
            if (!st.seen[i]) missing++;
        CHECK(cursor == 0 && shrunk && saw_rehashing);
        CHECK(missing == 0);
        CHECK(st.not_paused == 0);
        while (dictRehash(d, 1000)) {
        }
        CHECK(dictSlots(d) == 1024 && dictSize(d) == (unsigned long)N);
        free(st.seen);
        dictRelease(d);
    }

    TEST("scan survives grow then shrink, with steps while rehashing both ways") {
        const long N = 3000;
        dict *d = dictCreate(&intType);
        for (long i = 0; i < N; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 1000)) {
        }
        scanState st = {calloc(N, 1), N, 0, NULL, 0};
        unsigned long cursor = 0;
        long steps = 0;
        do {
            cursor = dictScan(d, cursor, scanMark, &st);
            steps++;
            if (steps == 100) dictExpand(d, 65536); /* grow 4096 -> 65536 */
            if (steps == 3000) {                    /* finish, then shrink */
                while (dictRehash(d, 1000)) {
                }
                dictResize(d);
            }
            if (dictIsRehashing(d)) dictRehash(d, 1);
        } while (cursor != 0 && steps < 10000000);
        long missing = 0;
        for (long i = 0; i < N; i++)
            if (!st.seen[i]) missing++;
        CHECK(cursor == 0);
        CHECK(missing == 0);
        free(st.seen);
        /* Empty dict: scan ends immediately. */
        dict *e = dictCreate(&intType);
        CHECK(dictScan(e, 0, scanMark, &st) == 0);
        dictRelease(e);
        dictRelease(d);
    }

    TEST("random operations agree with a model") {
        enum { K = 4096 };
        static long model[K]; /* -1 absent, else value */
        for (int i = 0; i < K; i++) model[i] = -1;
        dict *d = dictCreate(&intType);
        srandom(12345);
        int ok = 1;
        for (long op = 0; op < 300000 && ok; op++) {
            long k = random() % K, r = random() % 100;
            if (r < 35) {
                dictInsertPos pos;
                dictEntry *he = dictFindOrPos(d, IKEY(k), &pos);
                if ((he != NULL) != (model[k] != -1)) ok = 0;
                if (!he) he = dictInsertAtPos(d, IKEY(k), &pos);
                dictSetSignedIntegerVal(he, op);
                model[k] = op;
            } else if (r < 65) {
                int res = dictDelete(d, IKEY(k));
                if ((res == DICT_OK) != (model[k] != -1)) ok = 0;
                model[k] = -1;
            } else if (r < 95) {
                dictEntry *he = dictFind(d, IKEY(k));
                if (model[k] == -1 ? he != NULL : (!he || dictGetSignedIntegerVal(he) != model[k]))
                    ok = 0;
            } else if (r < 97) {
                dictResize(d);
            } else if (r < 98) {
                dictExpand(d, dictSize(d) * 4 + 1);
            } else {
                dictEntry *he = dictGetRandomKey(d);
                if (he && model[IVAL(he->key)] == -1) ok = 0;
            }
            if (op % 10000 == 0 && !dictIntegrity(d)) ok = 0;
        }
        unsigned long live = 0;
        for (int i = 0; i < K; i++) live += model[i] != -1;
        CHECK(ok);
        CHECK(dictSize(d) == live && dictIntegrity(d));
        dictRelease(d);
    }

    TEST("random sampling returns existing keys") {
        dict *d = dictCreate(&intType);
        CHECK(dictGetRandomKey(d) == NULL && dictGetFairRandomKey(d) == NULL);
        dictEntry *des[32];
        CHECK(dictGetSomeKeys(d, des, 32) == 0);
        for (long i = 0; i < 100; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 100)) {
        }
        unsigned char seen[100] = {0};
        int ok = 1;
        for (int s = 0; s < 20000; s++) {
            dictEntry *he = dictGetRandomKey(d);
            if (!he || dictFind(d, he->key) != he)
                ok = 0;
            else
                seen[IVAL(he->key)] = 1;
        }
        long covered = 0;
        for (int i = 0; i < 100; i++) covered += seen[i];
        CHECK(ok);
        CHECK(covered == 100);

        for (long i = 100; i < 50000; i++) dictAdd(d, IKEY(i), NULL);
        dictPauseRehashing(d); /* sample while two tables exist */
        if (!dictIsRehashing(d)) dictExpand(d, 1 << 17);
        CHECK(dictIsRehashing(d));
        for (int s = 0; s < 2000; s++) {
            dictEntry *he = dictGetRandomKey(d);
            if (!he || dictFind(d, he->key) != he) ok = 0;
            he = dictGetFairRandomKey(d);
            if (!he || dictFind(d, he->key) != he) ok = 0;
            unsigned int n = dictGetSomeKeys(d, des, 20);
            if (n > 20) ok = 0;
            for (unsigned int j = 0; j < n; j++)
                if (dictFind(d, des[j]->key) != des[j]) ok = 0;
        }
        dictResumeRehashing(d);
        CHECK(ok);
        unsigned int got = 0;
        for (int s = 0; s < 100; s++) got += dictGetSomeKeys(d, des, 20);
        CHECK(got > 100 * 10); /* dense table: nearly always full batches */
        dict *small = dictCreate(&intType);
        dictAdd(small, IKEY(1), NULL);
        dictAdd(small, IKEY(2), NULL);
        unsigned int n = dictGetSomeKeys(small, des, 32);
        CHECK(n >= 1 && n <= 2);
        dictRelease(small);
        dictRelease(d);
    }

    TEST("dictGetFairRandomKey reaches every element of a chain longer than its sample") {
        dict *d = dictCreate(&chainType);
        for (long i = 0; i < 30; i++) dictAdd(d, IKEY(i), NULL);
        int hits[30] = {0};
        for (int s = 0; s < 30000; s++) hits[IVAL(dictGetKey(dictGetFairRandomKey(d)))]++;
        /* 1000 expected each; the first 15 of the chain only, before. */
        int lo = hits[0], hi = hits[0];
        for (int i = 1; i < 30; i++) {
            if (hits[i] < lo) lo = hits[i];
            if (hits[i] > hi) hi = hits[i];
        }
        CHECK(lo > 700 && hi < 1300);
        dictEntry *des[15];
        CHECK(dictGetSomeKeys(d, des, 15) == 15);
        dictRelease(d);
    }

    TEST("dictEmpty frees everything and calls back every 65536 buckets") {
        dict *d = dictCreate(&strValType);
        val_destroyed = 0;
        for (long i = 0; i < 200000; i++) dictAdd(d, mkkey(i), (void *)1);
        while (dictRehash(d, 1000)) {
        }
        CHECK(dictSlots(d) == 262144);
        dictEmptyCalls = 0;
        dictEmpty(d, emptyCallback);
        CHECK(dictEmptyCalls >= 3 && dictEmptyCalls <= 4);
        CHECK(val_destroyed == 200000);
        CHECK(dictSize(d) == 0 && dictSlots(d) == 0 && !dictIsRehashing(d));
        CHECK(dictAdd(d, mkkey(1), NULL) == DICT_OK && dictFind(d, "key:1"));
        /* Also while rehashing, without a callback. */
        for (long i = 2; i < 1000; i++) dictAdd(d, mkkey(i), NULL);
        dictExpand(d, 1 << 14);
        CHECK(dictIsRehashing(d));
        dictEmpty(d, NULL);
        CHECK(dictSize(d) == 0 && dictSlots(d) == 0 && !dictIsRehashing(d));
        dictRelease(d);
    }

    TEST("dictGetStats reports table shape") {
        char buf[4096];
        dict *d = dictCreate(&intType);
        size_t len = dictGetStats(buf, sizeof(buf), d);
        CHECK(len == strlen(buf) && strstr(buf, "No stats available") != NULL);
        for (long i = 0; i < 1000; i++) dictAdd(d, IKEY(i), NULL);
        while (dictRehash(d, 100)) {
        }
        len = dictGetStats(buf, sizeof(buf), d);
        CHECK(len == strlen(buf));
        CHECK(strstr(buf, "Hash table 0 stats (main hash table):") != NULL);
        CHECK(strstr(buf, " table size: 1024\n") != NULL);
        CHECK(strstr(buf, " number of elements: 1000\n") != NULL);
        CHECK(strstr(buf, " max chain length: ") != NULL);
        CHECK(strstr(buf, " Chain length distribution:\n") != NULL);
        CHECK(strstr(buf, "   0: ") != NULL);
        dictExpand(d, 4096);
        dictRehash(d, 100);
        len = dictGetStats(buf, sizeof(buf), d);
        CHECK(strstr(buf, "Hash table 1 stats (rehashing target):") != NULL);
        char tiny[16];
        len = dictGetStats(tiny, sizeof(tiny), d);
        CHECK(len == sizeof(tiny) - 1 && strlen(tiny) == len);
        dictRelease(d);
    }

    TEST("no memory leaked") {
        CHECK(zmalloc_used_memory() == mem_start);
    }

    return TEST_REPORT();
}
