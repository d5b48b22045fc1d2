/* test_zskiplist: unit tests for src/zskiplist.c. Random operations are
 * mirrored on a plain sorted array (the model); after each batch the list
 * is checked against the model element by element and structurally: order,
 * backward links, tail, length, and every span on every level (a span must
 * equal the number of level-0 steps to the node it links to). Ranks, ranges
 * and range deletions are compared with answers computed on the model. */
#include "zskiplist.h"
#include "zmalloc.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model: (score, member) pairs kept sorted ---------------------- */

typedef struct pair {
    double score;
    char ele[16];
} pair;

static pair model[4096];
static int nmodel;

static int pairCmp(const void *a, const void *b) {
    const pair *x = a, *y = b;
    if (x->score < y->score) return -1;
    if (x->score > y->score) return 1;
    return zslCompareMembers(x->ele, strlen(x->ele), y->ele, strlen(y->ele));
}

static int modelFind(const char *ele) {
    for (int j = 0; j < nmodel; j++)
        if (strcmp(model[j].ele, ele) == 0) return j;
    return -1;
}

static void modelSort(void) { qsort(model, nmodel, sizeof(pair), pairCmp); }

/* ---- structural check ------------------------------------------------- */

static int zslCheck(zskiplist *zsl) {
    int ok = 1;
    /* Level 0: order, backward links, tail, length; index of every node. */
    unsigned long n = 0;
    zskiplistNode *prev = NULL;
    for (zskiplistNode *x = zsl->header->level[0].forward; x; x = x->level[0].forward) {
        if (x->backward != prev) ok = 0;
        if (prev && (prev->score > x->score ||
                     (prev->score == x->score &&
                      zslCompareMembers(prev->ele, sdslen(prev->ele), x->ele, sdslen(x->ele)) >= 0)))
            ok = 0;
        prev = x;
        n++;
    }
    if (zsl->tail != prev || zsl->length != n) ok = 0;
    /* Every link on every level: its span equals the level-0 distance. */
    for (int i = 0; i < zsl->level; i++) {
        zskiplistNode *x = zsl->header;
        while (x->level[i].forward) {
            unsigned long steps = 0;
            zskiplistNode *y = x;
            while (y != x->level[i].forward) {
                y = y->level[0].forward;
                steps++;
            }
            if (steps != x->level[i].span) ok = 0;
            x = x->level[i].forward;
        }
    }
    if (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) ok = 0;
    return ok;
}

static int zslMatchesModel(zskiplist *zsl) {
    if (zsl->length != (unsigned long)nmodel) return 0;
    int j = 0;
    for (zskiplistNode *x = zsl->header->level[0].forward; x; x = x->level[0].forward, j++) {
        if (x->score != model[j].score || strcmp(x->ele, model[j].ele) != 0) return 0;
    }
    return 1;
}

typedef struct cbSeen {
    int count;
    double sum;
    int names_ok;
} cbSeen;

static void countNode(void *privdata, zskiplistNode *node) {
    cbSeen *seen = privdata;
    char want[16];
    snprintf(want, sizeof(want), "m%d", (int)node->score);
    if (strcmp(node->ele, want) != 0) seen->names_ok = 0;
    seen->count++;
    seen->sum += node->score;
}

static sds mkele(int id) {
    char buf[16];
    snprintf(buf, sizeof(buf), "m%d", id);
    return sdsnew(buf);
}

int main(void) {
    srandom(12345);

    TEST("empty list: create, rank, range, free") {
        zskiplist *zsl = zslCreate();
        CHECK(zsl->length == 0 && zsl->tail == NULL);
        CHECK(zslGetRank(zsl, 1, "a", 1) == 0);
        CHECK(zslGetElementByRank(zsl, 1) == NULL);
        zrangespec r = {-INFINITY, INFINITY, 0, 0};
        CHECK(zslFirstInRange(zsl, &r) == NULL);
        CHECK(zslLastInRange(zsl, &r) == NULL);
        CHECK(zslCheck(zsl));
        zslFree(zsl);
    }

    TEST("insert orders by score, then by member bytes") {
        zskiplist *zsl = zslCreate();
        zslInsert(zsl, 2, sdsnew("b"));
        zslInsert(zsl, 1, sdsnew("z"));
        zslInsert(zsl, 2, sdsnew("a"));
        zslInsert(zsl, 2, sdsnew("ab"));
        zslInsert(zsl, 2, sdsnewlen("a\0", 2));
        zslInsert(zsl, -INFINITY, sdsnew("x"));
        zslInsert(zsl, INFINITY, sdsnew("y"));
        const char *want[] = {"x", "z", "a", "a\0", "ab", "b", "y"};
        size_t wlen[] = {1, 1, 1, 2, 2, 1, 1};
        int j = 0, ok = 1;
        for (zskiplistNode *x = zsl->header->level[0].forward; x; x = x->level[0].forward, j++)
            if (sdslen(x->ele) != wlen[j] || memcmp(x->ele, want[j], wlen[j]) != 0) ok = 0;
        CHECK(ok && j == 7);
        CHECK(zslCheck(zsl));
        CHECK(zslGetRank(zsl, 2, "a\0", 2) == 4);
        CHECK(zslGetRank(zsl, 2, "a", 1) == 3);
        CHECK(zslGetRank(zsl, 3, "a", 1) == 0);
        CHECK(strcmp(zslGetElementByRank(zsl, 7)->ele, "y") == 0);
        zslFree(zsl);
    }

    TEST("random inserts, deletes and score updates match a sorted model") {
        zskiplist *zsl = zslCreate();
        nmodel = 0;
        int ok = 1, structure = 1;
        for (int round = 0; round < 20000; round++) {
            int op = random() % 10;
            int id = random() % 1500;
            char name[16];
            snprintf(name, sizeof(name), "m%d", id);
            double score = (double)(random() % 200) / 4.0 - 10;
            int at = modelFind(name);
            if (op < 5) {
                if (at >= 0) continue;
                zslInsert(zsl, score, mkele(id));
                model[nmodel].score = score;
                strcpy(model[nmodel].ele, name);
                nmodel++;
                modelSort();
            } else if (op < 8) {
                if (at < 0) {
                    if (zslDelete(zsl, score, name, strlen(name), NULL)) ok = 0;
                    continue;
                }
                if (!zslDelete(zsl, model[at].score, name, strlen(name), NULL)) ok = 0;
                model[at] = model[--nmodel];
                modelSort();
            } else {
                if (at < 0) continue;
                zskiplistNode *n = zslUpdateScore(zsl, model[at].score, name, strlen(name), score);
                if (!n || n->score != score || strcmp(n->ele, name) != 0) ok = 0;
                model[at].score = score;
                modelSort();
            }
            if (round % 997 == 0 && !zslCheck(zsl)) structure = 0;
        }
        CHECK(ok);
        CHECK(structure && zslCheck(zsl));
        CHECK(zslMatchesModel(zsl));
        int ranks = 1;
        for (int j = 0; j < nmodel; j++) {
            if (zslGetRank(zsl, model[j].score, model[j].ele, strlen(model[j].ele)) !=
                (unsigned long)j + 1)
                ranks = 0;
            zskiplistNode *n = zslGetElementByRank(zsl, (unsigned long)j + 1);
            if (!n || strcmp(n->ele, model[j].ele) != 0) ranks = 0;
        }
        CHECK(ranks);
        CHECK(zslGetElementByRank(zsl, (unsigned long)nmodel + 1) == NULL);
        zslFree(zsl);
    }

    TEST("score ranges: first/last in range with open and closed ends") {
        zskiplist *zsl = zslCreate();
        for (int j = 0; j < 10; j++) zslInsert(zsl, j, mkele(j));
        zrangespec r = {2, 5, 0, 0};
        CHECK(zslFirstInRange(zsl, &r)->score == 2 && zslLastInRange(zsl, &r)->score == 5);
        r.minex = r.maxex = 1;
        CHECK(zslFirstInRange(zsl, &r)->score == 3 && zslLastInRange(zsl, &r)->score == 4);
        zrangespec empty = {5, 5, 1, 0};
        CHECK(!zslRangeNotEmpty(&empty) && zslFirstInRange(zsl, &empty) == NULL);
        zrangespec point = {5, 5, 0, 0};
        CHECK(zslFirstInRange(zsl, &point) == zslLastInRange(zsl, &point));
        zrangespec hole = {4.2, 4.8, 0, 0};
        CHECK(zslFirstInRange(zsl, &hole) == NULL && zslLastInRange(zsl, &hole) == NULL);
        zrangespec above = {20, INFINITY, 0, 0};
        CHECK(zslFirstInRange(zsl, &above) == NULL);
        zrangespec rev = {6, 3, 0, 0};
        CHECK(!zslIsInRange(zsl, &rev));
        zslFree(zsl);
    }

    TEST("lex ranges: parse, infinities, first/last, emptiness") {
        zskiplist *zsl = zslCreate();
        const char *m[] = {"a", "b", "c", "d", "e"};
        for (int j = 0; j < 5; j++) zslInsert(zsl, 0, sdsnew(m[j]));
        zlexrangespec r;
        CHECK(zslParseLexItem("[b", 2, &r.min, &r.minex) == 0);
        CHECK(zslParseLexItem("(d", 2, &r.max, &r.maxex) == 0);
        CHECK(strcmp(zslFirstInLexRange(zsl, &r)->ele, "b") == 0);
        CHECK(strcmp(zslLastInLexRange(zsl, &r)->ele, "c") == 0);
        zslFreeLexRange(&r);
        CHECK(zslParseLexItem("-", 1, &r.min, &r.minex) == 0 && r.min == zslLexMin);
        CHECK(zslParseLexItem("+", 1, &r.max, &r.maxex) == 0 && r.max == zslLexMax);
        CHECK(strcmp(zslFirstInLexRange(zsl, &r)->ele, "a") == 0);
        CHECK(strcmp(zslLastInLexRange(zsl, &r)->ele, "e") == 0);
        zslFreeLexRange(&r);
        sds junk;
        int ex;
        CHECK(zslParseLexItem("b", 1, &junk, &ex) == -1);
        CHECK(zslParseLexItem("", 0, &junk, &ex) == -1);
        CHECK(zslParseLexItem("+x", 2, &junk, &ex) == -1);
        CHECK(zslParseLexItem("+\0x", 3, &junk, &ex) == 0 && junk == zslLexMax);
        zlexrangespec same = {zslLexMin, zslLexMin, 1, 1};
        CHECK(!zslLexRangeNotEmpty(&same));
        zlexrangespec backwards = {zslLexMax, zslLexMin, 1, 1};
        CHECK(!zslLexRangeNotEmpty(&backwards));
        zlexrangespec point = {sdsnew("c"), sdsnew("c"), 0, 0};
        CHECK(zslLexRangeNotEmpty(&point) && zslFirstInLexRange(zsl, &point) == zslLastInLexRange(zsl, &point));
        point.maxex = 1;
        CHECK(!zslLexRangeNotEmpty(&point));
        zslFreeLexRange(&point);
        zslFree(zsl);
    }

    TEST("range deletions by score, lex and rank keep the structure") {
        int ok = 1;
        for (int kind = 0; kind < 3; kind++) {
            for (int trial = 0; trial < 50; trial++) {
                zskiplist *zsl = zslCreate();
                nmodel = 0;
                int n = 1 + random() % 300;
                for (int j = 0; j < n; j++) {
                    double score = kind == 1 ? 0 : (double)(random() % 50);
                    model[nmodel].score = score;
                    snprintf(model[nmodel].ele, 16, "m%04d", j);
                    zslInsert(zsl, score, sdsnew(model[nmodel].ele));
                    nmodel++;
                }
                modelSort();
                unsigned long removed = 0;
                int lo = random() % 60, hi = random() % 60;
                if (kind == 0) {
                    zrangespec r = {lo, hi, random() % 2, random() % 2};
                    removed = zslDeleteRangeByScore(zsl, &r, NULL, NULL);
                    int k = 0;
                    for (int j = 0; j < nmodel; j++)
                        if (!(zslValueGteMin(model[j].score, &r) && zslValueLteMax(model[j].score, &r)))
                            model[k++] = model[j];
                    if (removed != (unsigned long)(nmodel - k)) ok = 0;
                    nmodel = k;
                } else if (kind == 1) {
                    char a[16], b[16];
                    snprintf(a, 16, "[m%04d", lo * 5);
                    snprintf(b, 16, "(m%04d", hi * 5);
                    zlexrangespec r;
                    zslParseLexItem(a, strlen(a), &r.min, &r.minex);
                    zslParseLexItem(b, strlen(b), &r.max, &r.maxex);
                    removed = zslDeleteRangeByLex(zsl, &r, NULL, NULL);
                    int k = 0;
                    for (int j = 0; j < nmodel; j++) {
                        size_t l = strlen(model[j].ele);
                        if (!(zslLexValueGteMin(model[j].ele, l, &r) && zslLexValueLteMax(model[j].ele, l, &r)))
                            model[k++] = model[j];
                    }
                    if (removed != (unsigned long)(nmodel - k)) ok = 0;
                    nmodel = k;
                    zslFreeLexRange(&r);
                } else {
                    unsigned long start = 1 + random() % n, end = start + random() % 40;
                    removed = zslDeleteRangeByRank(zsl, start, end, NULL, NULL);
                    unsigned long last = end > (unsigned long)n ? (unsigned long)n : end;
                    if (removed != last - start + 1) ok = 0;
                    memmove(model + start - 1, model + last, sizeof(pair) * (n - last));
                    nmodel -= (int)removed;
                }
                if (!zslCheck(zsl) || !zslMatchesModel(zsl)) ok = 0;
                zslFree(zsl);
            }
        }
        CHECK(ok);
    }

    TEST("range deletion callback sees every removed node intact") {
        zskiplist *zsl = zslCreate();
        for (int j = 0; j < 20; j++) zslInsert(zsl, j, mkele(j));
        cbSeen seen = {0, 0, 1};
        zrangespec r = {5, 9, 0, 0};
        CHECK(zslDeleteRangeByScore(zsl, &r, countNode, &seen) == 5);
        CHECK(seen.count == 5 && seen.sum == 5 + 6 + 7 + 8 + 9 && seen.names_ok);
        CHECK(zslDeleteRangeByRank(zsl, 1, 2, countNode, &seen) == 2);
        CHECK(seen.count == 7 && seen.sum == 35 + 0 + 1);
        CHECK(zslCheck(zsl) && zsl->length == 13);
        zslFree(zsl);
    }

    TEST("score update in place and across neighbours, equal scores") {
        zskiplist *zsl = zslCreate();
        for (int j = 0; j < 5; j++) zslInsert(zsl, j * 10, mkele(j));
        zskiplistNode *n = zslGetElementByRank(zsl, 3); /* m2, score 20 */
        zskiplistNode *u = zslUpdateScore(zsl, 20, "m2", 2, 25);
        CHECK(u == n && u->score == 25); /* still between 10 and 30: kept in place */
        u = zslUpdateScore(zsl, 25, "m2", 2, 100);
        CHECK(u && u->score == 100 && zsl->tail == u);
        u = zslUpdateScore(zsl, 100, "m2", 2, -5);
        CHECK(u && zsl->header->level[0].forward == u && u->backward == NULL);
        CHECK(zslUpdateScore(zsl, 7, "m2", 2, 8) == NULL); /* wrong current score */
        CHECK(zslCheck(zsl));
        zslFree(zsl);
    }

    return TEST_REPORT();
}
