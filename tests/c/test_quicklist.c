/* test_quicklist: unit tests for src/quicklist.c. Every operation is
 * mirrored on a plain array of strings (the model); after each step the
 * list is walked in both directions and compared with the model, and
 * quicklistValidate checks the structure (counts, links, listpack sizes,
 * which nodes are compressed). Runs over a grid of fill values (entry
 * counts and size classes) and compress depths 0..3. */
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

/* ---- one randomized run ------------------------------------------------- */

static int randomRun(int fill, int depth, int steps, long target) {
    quicklist *ql = quicklistCreate(fill, depth);
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
        if (ok && (s % 25 == 0 || s == steps - 1)) ok = sameAsModel(ql, &m);
        if (!ok) printf("  fill %d depth %d: mismatch at step %d (op %d)\n", fill, depth, s, op);
    }
    /* The run must have exercised what it is meant to: many nodes, and
     * compressed ones when compression is on. */
    if (getenv("QLSTAT")) printf("  fill %d depth %d: max len %ld nodes %ld compressed %ld final %ld\n", fill, depth, maxlen, maxnodes, compressed_seen, m.n);
    if (maxnodes < 3 || (depth > 0 && maxnodes > 2 * depth && compressed_seen == 0)) {
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
            unsigned char *lp = quicklistNodeListpack(n, &allocated);
            CHECK(allocated && lp && lpLength(lp) == n->count && lpBytes(lp) == n->sz);
            if (allocated) lpFree(lp);
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
