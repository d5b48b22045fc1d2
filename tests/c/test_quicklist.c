/* test_quicklist: unit tests for src/quicklist.c. Every operation is
 * mirrored on a plain array of strings (the model); after each step the
 * list is walked in both directions and compared with the model, and
 * quicklistValidate checks the structure (counts, links, listpack sizes,
 * which nodes are compressed). Runs over a grid of fill values (entry
 * counts and size classes) and compress depths 0..3, and again with a low
 * packed threshold so PLAIN and PACKED nodes mix. The PLAIN-node tests
 * check the exact node layouts Redis 7.0.15 builds. */
#include "quicklist.h"
#include "listpack.h"
#include "util.h"
#include "zmalloc.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* ---- the model ---------------------------------------------------------- */

typedef struct {
    char **v;
    size_t *l;
    long n, cap;
} model;

static void mInsert(model *m, long at, const char *s, size_t len) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->v = realloc(m->v, sizeof(char *) * m->cap);
        m->l = realloc(m->l, sizeof(size_t) * m->cap);
    }
    memmove(m->v + at + 1, m->v + at, sizeof(char *) * (m->n - at));
    memmove(m->l + at + 1, m->l + at, sizeof(size_t) * (m->n - at));
    m->v[at] = malloc(len + 1);
    memcpy(m->v[at], s, len);
    m->v[at][len] = 0;
    m->l[at] = len;
    m->n++;
}

static void mDelete(model *m, long at, long count) {
    for (long j = at; j < at + count; j++) free(m->v[j]);
    memmove(m->v + at, m->v + at + count, sizeof(char *) * (m->n - at - count));
    memmove(m->l + at, m->l + at + count, sizeof(size_t) * (m->n - at - count));
    m->n -= count;
}

static void mFree(model *m) {
    mDelete(m, 0, m->n);
    free(m->v);
    free(m->l);
    memset(m, 0, sizeof(*m));
}

/* The entry's bytes as a string (integers rendered in decimal). */
static size_t entryStr(const quicklistEntry *e, char *buf, size_t cap) {
    if (e->value) {
        size_t n = e->sz < cap ? e->sz : cap;
        memcpy(buf, e->value, n);
        return e->sz;
    }
    return (size_t)ll2string(buf, cap, e->longval);
}

static unsigned int rng = 12345;
static unsigned int rnd(unsigned int n) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng % n;
}

/* A random element: small ints, short strings, compressible long strings. */
static size_t randomElement(char *buf) {
    switch (rnd(6)) {
    case 0: return (size_t)ll2string(buf, 32, (long long)rnd(100000) - 50000);
    case 1: return (size_t)ll2string(buf, 32, (long long)rnd(4000000000U) * 1000003LL);
    case 2: {
        size_t n = 1 + rnd(10);
        for (size_t j = 0; j < n; j++) buf[j] = (char)('a' + rnd(26));
        return n;
    }
    case 3: {
        size_t n = 60 + rnd(300);
        for (size_t j = 0; j < n; j++) buf[j] = (char)('a' + (j / 7) % 3);
        return n;
    }
    case 4: return 0;
    default: {
        size_t n = 20 + rnd(40);
        for (size_t j = 0; j < n; j++) buf[j] = (char)rnd(256);
        return n;
    }
    }
}

/* Compare the whole list with the model, both directions, and by index. */
static int sameAsModel(quicklist *ql, model *m) {
    if ((long)quicklistCount(ql) != m->n) return 0;
    if (!quicklistValidate(ql)) return 0;
    char buf[512];
    quicklistIter it;
    quicklistEntry e;
    long i = 0;
    quicklistInitIterator(&it, ql, QUICKLIST_START_HEAD);
    while (quicklistNext(&it, &e)) {
        size_t n = entryStr(&e, buf, sizeof(buf));
        if (i >= m->n || n != m->l[i] || memcmp(buf, m->v[i], n) != 0 ||
            !quicklistCompare(&e, (unsigned char *)m->v[i], m->l[i])) {
            quicklistResetIterator(&it);
            return 0;
        }
        i++;
    }
    quicklistResetIterator(&it);
    if (i != m->n) return 0;
    quicklistInitIterator(&it, ql, QUICKLIST_START_TAIL);
    while (quicklistNext(&it, &e)) {
        i--;
        size_t n = entryStr(&e, buf, sizeof(buf));
        if (i < 0 || n != m->l[i] || memcmp(buf, m->v[i], n) != 0) {
            quicklistResetIterator(&it);
            return 0;
        }
    }
    quicklistResetIterator(&it);
    if (i != 0) return 0;
    return quicklistValidate(ql);
}

static int elementAt(quicklist *ql, long idx, char *buf, size_t *len) {
    quicklistIter it;
    quicklistEntry e;
    int ok = quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_HEAD, idx) && quicklistNext(&it, &e);
    if (ok) *len = entryStr(&e, buf, 512);
    quicklistResetIterator(&it);
    return ok;
}

/* The node layout: "P" for a PLAIN node, the entry count for a PACKED
 * one, space separated; a trailing "*" marks an LZ4-compressed node. */
static const char *layout(const quicklist *ql) {
    static char out[1024];
    size_t o = 0;
    out[0] = 0;
    for (const quicklistNode *n = ql->head; n && o < sizeof(out) - 16; n = n->next) {
        if (o) out[o++] = ' ';
        if (n->container == QUICKLIST_NODE_CONTAINER_PLAIN) out[o++] = 'P';
        else o += (size_t)ll2string(out + o, 8, n->count);
        if (n->encoding == QUICKLIST_NODE_ENCODING_LZ4) out[o++] = '*';
        out[o] = 0;
    }
    return out;
}

static int layoutIs(const quicklist *ql, const char *want) {
    if (strcmp(layout(ql), want) == 0) return 1;
    printf("  layout \"%s\", want \"%s\"\n", layout(ql), want);
    return 0;
}

/* A list of the given NUL-terminated elements pushed at the tail. */
static quicklist *listOf(int fill, int depth, const char **elems, model *m) {
    quicklist *ql = quicklistCreate(fill, depth);
    for (int j = 0; elems[j]; j++) {
        quicklistPush(ql, elems[j], strlen(elems[j]), QUICKLIST_TAIL);
        if (m) mInsert(m, m->n, elems[j], strlen(elems[j]));
    }
    return ql;
}

static void replaceBoth(quicklist *ql, model *m, long idx, const char *s) {
    long at = idx < 0 ? m->n + idx : idx;
    CHECK(quicklistReplaceAtIndex(ql, idx, s, strlen(s)));
    mDelete(m, at, 1);
    mInsert(m, at, s, strlen(s));
}

static void insertBoth(quicklist *ql, model *m, long idx, int after, const char *s) {
    quicklistIter it;
    quicklistEntry e;
    CHECK(quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_HEAD, idx) && quicklistNext(&it, &e));
    if (after) quicklistInsertAfter(&it, &e, s, strlen(s));
    else quicklistInsertBefore(&it, &e, s, strlen(s));
    CHECK(!quicklistNext(&it, &e));
    quicklistResetIterator(&it);
    mInsert(m, idx + after, s, strlen(s));
}

/* ---- one randomized run ------------------------------------------------- */

static int randomRun(int fill, int depth, int steps, long target) {
    quicklist *ql = quicklistCreate(fill, depth);
    unsigned long plain_seen = 0;
    model m = {0};
    char buf[512];
    int ok = 1;
    long maxlen = 0, compressed_seen = 0, maxnodes = 0;
    for (int s = 0; s < steps && ok; s++) {
        int op = (int)rnd(100);
        /* Grow towards the target length: most deletions become pushes. */
        if (m.n < target && op >= 58 && op < 76 && rnd(20)) op = 0;
        if (op < 40) {
            size_t len = randomElement(buf);
            int head = rnd(2);
            quicklistPush(ql, buf, len, head ? QUICKLIST_HEAD : QUICKLIST_TAIL);
            mInsert(&m, head ? 0 : m.n, buf, len);
        } else if (op < 50 && m.n) {
            /* insert before/after a random element */
            long at = (long)rnd((unsigned)m.n);
            int after = rnd(2);
            size_t len = randomElement(buf);
            quicklistIter it;
            quicklistEntry e;
            int dir = rnd(2) ? QUICKLIST_START_HEAD : QUICKLIST_START_TAIL;
            long idx = rnd(2) ? at : at - m.n;
            if (!quicklistInitIteratorAtIdx(&it, ql, dir, idx) || !quicklistNext(&it, &e)) ok = 0;
            else {
                if (after) quicklistInsertAfter(&it, &e, buf, len);
                else quicklistInsertBefore(&it, &e, buf, len);
                if (quicklistNext(&it, &e)) ok = 0;
                mInsert(&m, after ? at + 1 : at, buf, len);
            }
            quicklistResetIterator(&it);
        } else if (op < 58 && m.n) {
            long at = (long)rnd((unsigned)m.n);
            size_t len = randomElement(buf);
            if (!quicklistReplaceAtIndex(ql, rnd(2) ? at : at - m.n, buf, len)) ok = 0;
            mDelete(&m, at, 1);
            mInsert(&m, at, buf, len);
        } else if (op < 68 && m.n) {
            /* delete a range, positive or negative start */
            long at = (long)rnd((unsigned)m.n);
            unsigned long cnt = rnd(10) ? 1 + rnd(5) : rnd((unsigned)m.n + 3);
            long start = rnd(2) ? at : at - m.n;
            unsigned long want = cnt > (unsigned long)(m.n - at) ? (unsigned long)(m.n - at) : cnt;
            if (quicklistDelRange(ql, start, cnt) != want) ok = 0;
            mDelete(&m, at, (long)want);
        } else if (op < 76 && m.n) {
            /* LREM-like: delete every element equal to a chosen one, either way */
            long at = (long)rnd((unsigned)m.n);
            size_t len = m.l[at];
            char pivot[512];
            memcpy(pivot, m.v[at], len);
            int fwd = rnd(2);
            quicklistIter it;
            quicklistEntry e;
            quicklistInitIterator(&it, ql, fwd ? QUICKLIST_START_HEAD : QUICKLIST_START_TAIL);
            while (quicklistNext(&it, &e))
                if (quicklistCompare(&e, (unsigned char *)pivot, len)) quicklistDelEntry(&it, &e);
            quicklistResetIterator(&it);
            for (long j = m.n - 1; j >= 0; j--)
                if (m.l[j] == len && memcmp(m.v[j], pivot, len) == 0) mDelete(&m, j, 1);
        } else if (op < 84 && m.n) {
            long at = (long)rnd((unsigned)m.n);
            size_t len;
            if (!elementAt(ql, rnd(2) ? at : at - m.n, buf, &len) || len != m.l[at] ||
                memcmp(buf, m.v[at], len) != 0)
                ok = 0;
            if (elementAt(ql, m.n, buf, &len) || elementAt(ql, -m.n - 1, buf, &len)) ok = 0;
        } else if (op < 86) {
            quicklist *copy = quicklistDup(ql);
            if (!sameAsModel(copy, &m)) ok = 0;
            quicklistRelease(ql);
            ql = copy;
        } else if (op < 88 && m.n) {
            /* iterate from a random index in a random direction */
            long at = (long)rnd((unsigned)m.n);
            int fwd = rnd(2);
            quicklistIter it;
            quicklistEntry e;
            quicklistInitIteratorAtIdx(&it, ql, fwd ? QUICKLIST_START_HEAD : QUICKLIST_START_TAIL, at);
            long j = at;
            while (quicklistNext(&it, &e)) {
                size_t len = entryStr(&e, buf, sizeof(buf));
                if (j < 0 || j >= m.n || len != m.l[j] || memcmp(buf, m.v[j], len) != 0) ok = 0;
                j += fwd ? 1 : -1;
            }
            quicklistResetIterator(&it);
            if (j != (fwd ? m.n : -1)) ok = 0;
        }
        if (m.n > maxlen) maxlen = m.n;
        if ((long)ql->len > maxnodes) maxnodes = (long)ql->len;
        compressed_seen += quicklistCompressedNodes(ql) > 0;
        for (quicklistNode *n = ql->head; n; n = n->next)
            plain_seen += n->container == QUICKLIST_NODE_CONTAINER_PLAIN;
        if (ok && (s % 25 == 0 || s == steps - 1 || getenv("QLCHECK"))) ok = sameAsModel(ql, &m);
        if (!ok) printf("  fill %d depth %d: mismatch at step %d (op %d)\n", fill, depth, s, op);
    }
    /* The run must have exercised what it is meant to: many nodes, and
     * compressed ones when compression is on. */
    if (getenv("QLSTAT")) printf("  fill %d depth %d: max len %ld nodes %ld compressed %ld final %ld\n", fill, depth, maxlen, maxnodes, compressed_seen, m.n);
    if (maxnodes < 3 || (depth > 0 && maxnodes > 2 * depth && compressed_seen == 0) ||
        (quicklistPackedThreshold() < 1000 && plain_seen == 0)) {
        printf("  fill %d depth %d: weak run (max len %ld, max nodes %ld, compressed seen %ld)\n",
               fill, depth, maxlen, maxnodes, compressed_seen);
        ok = 0;
    }
    quicklistRelease(ql);
    mFree(&m);
    return ok;
}

int main(void) {
    TEST("push, index and iterate in both directions") {
        quicklist *ql = quicklistCreate(-2, 0);
        char buf[32];
        for (int j = 0; j < 1000; j++) {
            int n = ll2string(buf, sizeof(buf), j);
            quicklistPush(ql, buf, (size_t)n, QUICKLIST_TAIL);
        }
        CHECK(quicklistCount(ql) == 1000);
        size_t len;
        char out[512];
        CHECK(elementAt(ql, 0, out, &len) && len == 1 && out[0] == '0');
        CHECK(elementAt(ql, -1, out, &len) && len == 3 && memcmp(out, "999", 3) == 0);
        CHECK(elementAt(ql, 500, out, &len) && len == 3 && memcmp(out, "500", 3) == 0);
        CHECK(!elementAt(ql, 1000, out, &len));
        CHECK(!elementAt(ql, -1001, out, &len));
        CHECK(!elementAt(ql, -9223372036854775807L - 1, out, &len));
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
    }

    TEST("positive fill limits entries per node") {
        quicklist *ql = quicklistCreate(4, 0);
        for (int j = 0; j < 10; j++) quicklistPush(ql, "x", 1, QUICKLIST_TAIL);
        CHECK(ql->len == 3 && ql->head->count == 4 && ql->tail->count == 2);
        for (int j = 0; j < 3; j++) quicklistPush(ql, "y", 1, QUICKLIST_HEAD);
        CHECK(ql->len == 4 && ql->head->count == 3);
        quicklistRelease(ql);
    }

    TEST("negative fill limits node bytes; positive fill is capped at 8 KB") {
        char big[1000];
        memset(big, 'b', sizeof(big));
        quicklist *ql = quicklistCreate(-1, 0);
        for (int j = 0; j < 20; j++) quicklistPush(ql, big, sizeof(big), QUICKLIST_TAIL);
        for (quicklistNode *n = ql->head; n; n = n->next) CHECK(n->sz <= 4096);
        CHECK(ql->head->count == 4);
        quicklistRelease(ql);
        ql = quicklistCreate(1000, 0);
        for (int j = 0; j < 20; j++) quicklistPush(ql, big, sizeof(big), QUICKLIST_TAIL);
        for (quicklistNode *n = ql->head; n; n = n->next) CHECK(n->sz <= 8192);
        CHECK(ql->len == 3);
        quicklistRelease(ql);
        /* Out-of-range fills are clamped like Redis does. */
        ql = quicklistCreate(-100, 0);
        CHECK(ql->fill == -5);
        quicklistRelease(ql);
        ql = quicklistCreate(1 << 20, 0);
        CHECK(ql->fill == QUICKLIST_FILL_MAX);
        quicklistRelease(ql);
    }

    TEST("nodes split and merge at Redis 7.0.15's size estimates") {
        /* An entry counts as its length + 8 bytes: 1361 one-byte strings
         * (3 bytes each) fill a 4 KB node, not 1363. */
        quicklist *ql = quicklistCreate(-1, 0);
        for (int j = 0; j < 1400; j++) quicklistPush(ql, "a", 1, QUICKLIST_TAIL);
        CHECK(layoutIs(ql, "1361 39") && ql->head->sz == 4090);
        quicklistRelease(ql);
        /* Two listpacks merge if their sizes less 11 fit: a 4096-byte node
         * takes the 10-byte left part of a split neighbour. */
        ql = quicklistCreate(-1, 0);
        unsigned char *a = lpNew(0), *b = lpNew(0);
        for (int j = 0; j < 1363; j++) a = lpAppend(a, (const unsigned char *)"a", 1);
        for (int j = 0; j < 1361; j++) b = lpAppend(b, (const unsigned char *)"b", 1);
        CHECK(lpBytes(a) == 4096);
        quicklistAppendListpack(ql, a);
        quicklistAppendListpack(ql, b);
        quicklistIter it;
        quicklistEntry e;
        CHECK(quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_HEAD, 1363) && quicklistNext(&it, &e));
        quicklistInsertAfter(&it, &e, "z", 1);
        quicklistResetIterator(&it);
        CHECK(layoutIs(ql, "1364 1361"));
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
    }

    TEST("a single element larger than any size class gets its own node") {
        size_t n = 100000;
        char *huge = malloc(n);
        memset(huge, 'h', n);
        quicklist *ql = quicklistCreate(-2, 0);
        quicklistPush(ql, "a", 1, QUICKLIST_TAIL);
        quicklistPush(ql, huge, n, QUICKLIST_TAIL);
        quicklistPush(ql, "b", 1, QUICKLIST_TAIL);
        CHECK(ql->len == 3 && ql->head->next->count == 1);
        quicklistEntry e;
        quicklistIter it;
        CHECK(quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_HEAD, 1) && quicklistNext(&it, &e));
        CHECK(e.value && e.sz == n && memcmp(e.value, huge, n) == 0);
        quicklistResetIterator(&it);
        quicklistRelease(ql);
        free(huge);
    }

    TEST("compression: inner nodes are LZ4, ends raw, contents intact") {
        char val[200];
        for (int depth = 1; depth <= 2; depth++) {
            quicklist *ql = quicklistCreate(8, depth);
            for (int j = 0; j < 200; j++) {
                memset(val, 'a' + j % 26, sizeof(val));
                quicklistPush(ql, val, sizeof(val), QUICKLIST_TAIL);
            }
            CHECK(ql->len == 25);
            CHECK(quicklistCompressedNodes(ql) == 25 - 2 * (unsigned long)depth);
            quicklistNode *n = ql->head;
            for (int d = 0; d < depth; d++, n = n->next) CHECK(n->encoding == QUICKLIST_NODE_ENCODING_RAW);
            CHECK(n->encoding == QUICKLIST_NODE_ENCODING_LZ4);
            CHECK(quicklistMemUsage(ql) < 200 * 200 / 4);
            CHECK(quicklistValidate(ql));
            /* A compressed node still yields its listpack. */
            int allocated;
            unsigned char *lp = quicklistNodeData(n, &allocated);
            CHECK(allocated && lp && lpLength(lp) == n->count && lpBytes(lp) == n->sz);
            if (allocated) zfree(lp);
            /* Read and replace in the middle. */
            size_t len;
            char out[512];
            CHECK(elementAt(ql, 100, out, &len) && len == 200 && out[0] == 'a' + 100 % 26);
            CHECK(quicklistReplaceAtIndex(ql, 100, "new", 3));
            CHECK(elementAt(ql, 100, out, &len) && len == 3 && memcmp(out, "new", 3) == 0);
            CHECK(quicklistCompressedNodes(ql) == 25 - 2 * (unsigned long)depth);
            /* Trimming the ends decompresses what moves into the outer zone. */
            CHECK(quicklistDelRange(ql, 0, 50) == 50);
            CHECK(quicklistDelRange(ql, -50, 50) == 50);
            CHECK(quicklistCount(ql) == 100 && quicklistValidate(ql));
            CHECK(elementAt(ql, 0, out, &len) && out[0] == 'a' + 50 % 26);
            quicklistRelease(ql);
        }
    }

    TEST("small or incompressible nodes stay raw") {
        quicklist *ql = quicklistCreate(2, 1);
        for (int j = 0; j < 10; j++) quicklistPush(ql, "ab", 2, QUICKLIST_TAIL);
        CHECK(quicklistCompressedNodes(ql) == 0);
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
        ql = quicklistCreate(2, 1);
        char rnd64[64];
        for (int j = 0; j < 10; j++) {
            for (int k = 0; k < 64; k++) rnd64[k] = (char)rnd(256);
            quicklistPush(ql, rnd64, sizeof(rnd64), QUICKLIST_TAIL);
        }
        CHECK(quicklistCompressedNodes(ql) == 0);
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
    }

    TEST("append listpack nodes (snapshot loading)") {
        quicklist *ql = quicklistCreate(-2, 1);
        for (int j = 0; j < 5; j++) {
            unsigned char *lp = lpNew(0);
            for (int k = 0; k < 30; k++) lp = lpAppend(lp, (unsigned char *)"abcdefghijklmnop", 16);
            quicklistAppendListpack(ql, lp);
        }
        CHECK(quicklistCount(ql) == 150 && ql->len == 5);
        CHECK(quicklistCompressedNodes(ql) == 3);
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
    }

    TEST("iterator delete in both directions across node boundaries") {
        for (int dir = 0; dir < 2; dir++) {
            quicklist *ql = quicklistCreate(3, 1);
            char buf[32];
            for (int j = 0; j < 30; j++) {
                int n = ll2string(buf, sizeof(buf), j % 3);
                quicklistPush(ql, buf, (size_t)n, QUICKLIST_TAIL);
            }
            quicklistIter it;
            quicklistEntry e;
            quicklistInitIterator(&it, ql, dir ? QUICKLIST_START_TAIL : QUICKLIST_START_HEAD);
            int seen = 0;
            while (quicklistNext(&it, &e)) {
                seen++;
                if (!e.value && e.longval != 1) quicklistDelEntry(&it, &e);
            }
            quicklistResetIterator(&it);
            CHECK(seen == 30);
            CHECK(quicklistCount(ql) == 10 && quicklistValidate(ql));
            quicklistRelease(ql);
        }
    }

    TEST("insert into full nodes: neighbours, new nodes, splits") {
        quicklist *ql = quicklistCreate(4, 0);
        model m = {0};
        char buf[32];
        for (int j = 0; j < 12; j++) {
            int n = ll2string(buf, sizeof(buf), j);
            quicklistPush(ql, buf, (size_t)n, QUICKLIST_TAIL);
            mInsert(&m, j, buf, (size_t)n);
        }
        long positions[] = {3, 4, 0, 11, 5, 6, 2};
        for (size_t p = 0; p < sizeof(positions) / sizeof(positions[0]); p++) {
            for (int after = 0; after < 2; after++) {
                quicklistIter it;
                quicklistEntry e;
                CHECK(quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_HEAD, positions[p]));
                CHECK(quicklistNext(&it, &e));
                if (after) quicklistInsertAfter(&it, &e, "ins", 3);
                else quicklistInsertBefore(&it, &e, "ins", 3);
                quicklistResetIterator(&it);
                mInsert(&m, after ? positions[p] + 1 : positions[p], "ins", 3);
                CHECK(sameAsModel(ql, &m));
            }
        }
        for (quicklistNode *n = ql->head; n; n = n->next) CHECK(n->count <= 4);
        quicklistRelease(ql);
        mFree(&m);
    }

    TEST("packed threshold: 0 restores 1 GB, 4 GB - 1 MB is the most") {
        CHECK(quicklistPackedThreshold() == (1UL << 30));
        CHECK(quicklistSetPackedThreshold(5) && quicklistPackedThreshold() == 5);
        CHECK(quicklistSetPackedThreshold(0) && quicklistPackedThreshold() == (1UL << 30));
        CHECK(quicklistSetPackedThreshold((1ULL << 32) - (1ULL << 20)));
        CHECK(!quicklistSetPackedThreshold((1ULL << 32) - (1ULL << 20) + 1));
        CHECK(quicklistPackedThreshold() == (1ULL << 32) - (1ULL << 20));
        CHECK(quicklistSetPackedThreshold(0));
    }

    TEST("large elements get PLAIN nodes of their own at either end") {
        quicklistSetPackedThreshold(10);
        model m = {0};
        const char *el[] = {"aa", "bb", NULL};
        quicklist *ql = listOf(-2, 0, el, &m);
        quicklistPush(ql, "0123456789", 10, QUICKLIST_HEAD);
        mInsert(&m, 0, "0123456789", 10);
        quicklistPush(ql, "abcdefghijk", 11, QUICKLIST_TAIL);
        mInsert(&m, m.n, "abcdefghijk", 11);
        quicklistPush(ql, "cc", 2, QUICKLIST_TAIL); /* never joins a PLAIN node */
        mInsert(&m, m.n, "cc", 2);
        quicklistPush(ql, "123456789", 9, QUICKLIST_HEAD); /* under the threshold */
        mInsert(&m, 0, "123456789", 9);
        CHECK(layoutIs(ql, "1 P 2 P 1"));
        CHECK(sameAsModel(ql, &m));
        /* The payload of a PLAIN node is the element itself, digits too. */
        quicklistNode *p = ql->head->next;
        int allocated;
        unsigned char *data = quicklistNodeData(p, &allocated);
        CHECK(!allocated && p->sz == 10 && memcmp(data, "0123456789", 10) == 0);
        quicklistIter it;
        quicklistEntry e;
        CHECK(quicklistInitIteratorAtIdx(&it, ql, QUICKLIST_START_TAIL, 1));
        CHECK(quicklistNext(&it, &e) && e.value && e.sz == 10 && e.node == p);
        CHECK(quicklistCompare(&e, (unsigned char *)"0123456789", 10));
        CHECK(!quicklistCompare(&e, (unsigned char *)"012345678", 9));
        quicklistResetIterator(&it);
        /* Deleting through an iterator removes the node. */
        quicklistInitIterator(&it, ql, QUICKLIST_START_HEAD);
        while (quicklistNext(&it, &e))
            if (e.node->container == QUICKLIST_NODE_CONTAINER_PLAIN) quicklistDelEntry(&it, &e);
        quicklistResetIterator(&it);
        mDelete(&m, 4, 1);
        mDelete(&m, 1, 1);
        CHECK(layoutIs(ql, "1 2 1"));
        CHECK(sameAsModel(ql, &m));
        quicklistRelease(ql);
        mFree(&m);
        quicklistSetPackedThreshold(0);
    }

    TEST("inserting a large element splits a PACKED node around it") {
        quicklistSetPackedThreshold(5);
        model m = {0};
        const char *el[] = {"a", "b", "c", "d", "e", NULL};
        quicklist *ql = listOf(-2, 0, el, &m);
        insertBoth(ql, &m, 2, 1, "LARGE1");  /* after c: a b c | P | d e */
        CHECK(layoutIs(ql, "3 P 2"));
        insertBoth(ql, &m, 0, 0, "LARGE2");  /* before the head: a new node */
        CHECK(layoutIs(ql, "P 3 P 2"));
        insertBoth(ql, &m, 3, 1, "LARGE3");  /* after the last of a node */
        CHECK(layoutIs(ql, "P 3 P P 2"));
        insertBoth(ql, &m, 7, 0, "LARGE4");  /* before e, inside d e */
        CHECK(layoutIs(ql, "P 3 P P 1 P 1"));
        CHECK(sameAsModel(ql, &m));
        /* A small element next to a PLAIN node joins the neighbour on
         * that side if it has room, else gets a node of its own. */
        insertBoth(ql, &m, 0, 1, "x");       /* after P: prepended to "a b c" */
        CHECK(layoutIs(ql, "P 4 P P 1 P 1"));
        insertBoth(ql, &m, 0, 0, "y");       /* before the head P: new node */
        CHECK(layoutIs(ql, "1 P 4 P P 1 P 1"));
        insertBoth(ql, &m, 7, 0, "z");       /* before P, after P: new node */
        CHECK(layoutIs(ql, "1 P 4 P 1 P 1 P 1"));
        CHECK(sameAsModel(ql, &m));
        quicklistRelease(ql);
        mFree(&m);
        quicklistSetPackedThreshold(0);
    }

    TEST("replace: packed/plain combinations take Redis' layouts") {
        quicklistSetPackedThreshold(5);
        model m = {0};
        const char *el[] = {"aa", "bb", "cc", "dd", "ee", NULL};
        quicklist *ql = listOf(-2, 0, el, &m);
        replaceBoth(ql, &m, 2, "eeeeeeeeee"); /* middle: split around it */
        CHECK(layoutIs(ql, "2 P 2"));
        replaceBoth(ql, &m, 0, "ffffff");     /* first of a node */
        CHECK(layoutIs(ql, "P 1 P 2"));
        replaceBoth(ql, &m, -1, "gggggg");    /* last of a node */
        CHECK(layoutIs(ql, "P 1 P 1 P"));
        replaceBoth(ql, &m, 1, "hhhhhhh");    /* the only one in its node */
        CHECK(layoutIs(ql, "P P P 1 P"));
        replaceBoth(ql, &m, 2, "iiiiiiiiiiiiiiii"); /* plain -> plain, in place */
        CHECK(layoutIs(ql, "P P P 1 P"));
        CHECK(sameAsModel(ql, &m));
        /* plain -> packed: into the next node if it has room ... */
        replaceBoth(ql, &m, 2, "x");
        CHECK(layoutIs(ql, "P P 2 P"));
        /* ... else into a new node after it, even when the previous node
         * had room (Redis only looks forward). */
        replaceBoth(ql, &m, -1, "y");
        CHECK(layoutIs(ql, "P P 2 1"));
        replaceBoth(ql, &m, 0, "z");          /* next is PLAIN: a new node */
        CHECK(layoutIs(ql, "1 P 2 1"));
        replaceBoth(ql, &m, 0, "w");          /* packed -> packed */
        CHECK(layoutIs(ql, "1 P 2 1"));
        CHECK(sameAsModel(ql, &m));
        quicklistRelease(ql);
        mFree(&m);
        quicklistSetPackedThreshold(0);
    }

    TEST("replace at -2 in a two-element node, then pop (Redis' split crash)") {
        quicklistSetPackedThreshold(10);
        quicklist *ql = quicklistCreate(-2, 0);
        quicklistPush(ql, "aa", 2, QUICKLIST_HEAD);
        quicklistPush(ql, "bb", 2, QUICKLIST_HEAD);
        CHECK(quicklistReplaceAtIndex(ql, -2, "xxxxxxxxxx", 10));
        CHECK(layoutIs(ql, "P 1"));
        CHECK(quicklistDelRange(ql, -1, 1) == 1);
        size_t len;
        char out[512];
        CHECK(quicklistCount(ql) == 1 && elementAt(ql, 0, out, &len) && len == 10);
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
        quicklistSetPackedThreshold(0);
    }

    TEST("replace the last element with a large one under compression") {
        quicklistSetPackedThreshold(100);
        char large[100], small[32];
        memset(large, 'x', sizeof(large));
        memset(small, 'x', sizeof(small));
        quicklist *ql = quicklistCreate(-2, 1);
        quicklistPush(ql, large, sizeof(large), QUICKLIST_TAIL);
        quicklistPush(ql, small, sizeof(small), QUICKLIST_TAIL);
        quicklistPush(ql, small, sizeof(small), QUICKLIST_TAIL);
        CHECK(quicklistReplaceAtIndex(ql, -1, large, sizeof(large)));
        CHECK(layoutIs(ql, "P 1 P")); /* 1: a 41-byte listpack, too small to compress */
        char out[512];
        size_t len;
        CHECK(elementAt(ql, 0, out, &len) && len == 100);
        CHECK(elementAt(ql, 1, out, &len) && len == 32);
        CHECK(elementAt(ql, 2, out, &len) && len == 100);
        CHECK(quicklistValidate(ql));
        quicklistRelease(ql);
        quicklistSetPackedThreshold(0);
    }

    TEST("PLAIN nodes are compressed like PACKED ones; dup and append keep them") {
        quicklistSetPackedThreshold(1);
        char buf[256];
        quicklist *ql = quicklistCreate(-2, 1);
        for (int j = 0; j < 50; j++) {
            memset(buf, 'a' + j % 26, sizeof(buf));
            quicklistPush(ql, buf, sizeof(buf), QUICKLIST_HEAD);
        }
        CHECK(ql->len == 50 && quicklistCompressedNodes(ql) == 48);
        CHECK(ql->head->next->container == QUICKLIST_NODE_CONTAINER_PLAIN);
        int allocated;
        unsigned char *data = quicklistNodeData(ql->head->next, &allocated);
        CHECK(allocated && data[0] == 'a' + 48 % 26 && data[255] == data[0]);
        if (allocated) zfree(data);
        size_t len;
        char out[512];
        CHECK(elementAt(ql, 25, out, &len) && len == 256 && out[0] == 'a' + 24 % 26);
        CHECK(quicklistValidate(ql));
        quicklist *copy = quicklistDup(ql);
        CHECK(quicklistCompressedNodes(copy) == 48);
        CHECK(copy->tail->container == QUICKLIST_NODE_CONTAINER_PLAIN);
        CHECK(elementAt(copy, 25, out, &len) && len == 256 && out[0] == 'a' + 24 % 26);
        CHECK(quicklistValidate(copy));
        quicklistRelease(ql);
        quicklistRelease(copy);
        /* Snapshot loading: PLAIN nodes come back whatever the threshold. */
        quicklistSetPackedThreshold(0);
        ql = quicklistCreate(-2, 1);
        for (int j = 0; j < 4; j++) {
            unsigned char *d = zmalloc(3);
            memcpy(d, "123", 3);
            quicklistAppendPlainNode(ql, d, 3);
        }
        quicklistPush(ql, "4", 1, QUICKLIST_TAIL);
        CHECK(layoutIs(ql, "P P P P 1"));
        CHECK(quicklistCount(ql) == 5 && quicklistValidate(ql));
        CHECK(elementAt(ql, 2, out, &len) && len == 3 && memcmp(out, "123", 3) == 0);
        quicklistRelease(ql);
    }

    TEST("a split node merges with its neighbours in Redis' order") {
        /* Nodes [a] [b] [c0 c1 c2 c3] [d] [e] with fill 4, built as given. */
        const char *groups[][5] = {{"a"}, {"b"}, {"c0", "c1", "c2", "c3"}, {"d"}, {"e"}};
        for (int after = 0; after < 2; after++) {
            quicklist *ql = quicklistCreate(4, 0);
            model m = {0};
            for (int g = 0; g < 5; g++) {
                unsigned char *lp = lpNew(0);
                for (int k = 0; k < 4 && groups[g][k]; k++) {
                    const char *el = groups[g][k];
                    lp = lpAppend(lp, (const unsigned char *)el, (uint32_t)strlen(el));
                    mInsert(&m, m.n, groups[g][k], strlen(groups[g][k]));
                }
                quicklistAppendListpack(ql, lp);
            }
            CHECK(layoutIs(ql, "1 1 4 1 1"));
            /* after c1: [a b] pairs up, then [c0 c1] joins it; [x c2 c3]
             * takes [d]. before c2: [b] takes [c0 c1 x], [d e] pair up,
             * then [c2 c3] joins them. */
            insertBoth(ql, &m, after ? 3 : 4, after, "x");
            CHECK(layoutIs(ql, after ? "4 4 1" : "1 4 4"));
            CHECK(sameAsModel(ql, &m));
            quicklistRelease(ql);
            mFree(&m);
        }
    }

    TEST("randomized operations with PLAIN and PACKED nodes mixed") {
        int fills[] = {1, 3, 16, -1, -2};
        long targets[] = {60, 80, 300, 400, 1500};
        int ok = 1;
        quicklistSetPackedThreshold(50);
        for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); f++)
            for (int depth = 0; depth <= 2; depth++)
                ok &= randomRun(fills[f], depth, (int)(targets[f] * 2 + 1000), targets[f]);
        quicklistSetPackedThreshold(0);
        CHECK(ok);
    }

    TEST("randomized operations against a model") {
        int fills[] = {1, 2, 3, 5, 16, 128, -1, -2, -5};
        long targets[] = {60, 60, 80, 100, 300, 1500, 400, 1500, 6000};
        int ok = 1;
        for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); f++)
            for (int depth = 0; depth <= 3; depth++)
                ok &= randomRun(fills[f], depth, (int)(targets[f] * 2 + 1000), targets[f]);
        CHECK(ok);
    }

    return TEST_REPORT();
}
