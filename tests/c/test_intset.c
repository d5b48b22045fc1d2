/* test_intset.c: unit tests for src/intset.c. The byte strings were recorded
 * from a real redis-server 7.0.15: the intset blob cut out of the DUMP
 * payload of a set built with the SADD shown. Adding the same values in the
 * same order must give identical bytes. */
#include <stdlib.h>
#include <string.h>

#include "intset.h"
#include "test.h"
#include "zmalloc.h"

/* SADD s 1 2 3 */
static const unsigned char redis_s16[] = "\x02\x00\x00\x00\x03\x00\x00\x00\x01\x00\x02\x00\x03\x00";
/* SADD s32 70000 -5 3 */
static const unsigned char redis_s32[] =
    "\x04\x00\x00\x00\x03\x00\x00\x00\xfb\xff\xff\xff\x03\x00\x00"
    "\x00\x70\x11\x01\x00";
/* SADD s64 5000000000 -1 2 */
static const unsigned char redis_s64[] =
    "\x08\x00\x00\x00\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff"
    "\xff\x02\x00\x00\x00\x00\x00\x00\x00\x00\xf2\x05\x2a\x01\x00"
    "\x00\x00";

static intset *build(const int64_t *v, size_t n) {
    intset *is = intsetNew();
    for (size_t i = 0; i < n; i++) is = intsetAdd(is, v[i], NULL);
    return is;
}

static int same_bytes(intset *is, const unsigned char *want, size_t n) {
    return intsetBlobLen(is) == n && memcmp(is, want, n) == 0;
}

static int validate_copy(const void *blob, size_t size, int deep) {
    unsigned char *c = malloc(size ? size : 1);
    if (size) memcpy(c, blob, size);
    int ok = intsetValidateIntegrity(c, size, deep);
    free(c);
    return ok;
}

static uint64_t rnd64(void) {
    return ((uint64_t)random() << 42) ^ ((uint64_t)random() << 21) ^ (uint64_t)random();
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(void) {
    size_t mem_at_start = zmalloc_used_memory();
    srandom(4242);

    TEST("Redis bytes: 16/32/64-bit sets") {
        intset *is = build((const int64_t[]){1, 2, 3}, 3);
        CHECK(same_bytes(is, redis_s16, sizeof(redis_s16) - 1));
        zfree(is);
        is = build((const int64_t[]){70000, -5, 3}, 3);
        CHECK(same_bytes(is, redis_s32, sizeof(redis_s32) - 1));
        zfree(is);
        is = build((const int64_t[]){5000000000LL, -1, 2}, 3);
        CHECK(same_bytes(is, redis_s64, sizeof(redis_s64) - 1));
        zfree(is);
        /* Order of insertion does not matter for the bytes. */
        is = build((const int64_t[]){2, 5000000000LL, -1}, 3);
        CHECK(same_bytes(is, redis_s64, sizeof(redis_s64) - 1));
        zfree(is);
        CHECK(validate_copy(redis_s16, sizeof(redis_s16) - 1, 1));
        CHECK(validate_copy(redis_s32, sizeof(redis_s32) - 1, 1));
        CHECK(validate_copy(redis_s64, sizeof(redis_s64) - 1, 1));
    }

    TEST("empty set") {
        intset *is = intsetNew();
        int64_t v = 99;
        CHECK(intsetLen(is) == 0 && intsetBlobLen(is) == 8);
        CHECK(is->encoding == 2 && is->length == 0);
        CHECK(!intsetFind(is, 0) && !intsetGet(is, 0, &v) && v == 99);
        CHECK(intsetMin(is) == 0 && intsetMax(is) == 0 && intsetRandom(is) == 0);
        int ok = 7;
        is = intsetRemove(is, 5, &ok);
        CHECK(ok == 0 && intsetLen(is) == 0);
        /* Redis 7.0 refuses empty intsets in payloads. */
        CHECK(!intsetValidateIntegrity((unsigned char *)is, 8, 0));
        zfree(is);
    }

    TEST("add, duplicates, find, get, min/max") {
        intset *is = intsetNew();
        uint8_t ok;
        is = intsetAdd(is, 5, &ok);
        CHECK(ok == 1);
        is = intsetAdd(is, 6, &ok);
        is = intsetAdd(is, 4, &ok);
        is = intsetAdd(is, 4, &ok);
        CHECK(ok == 0 && intsetLen(is) == 3);
        int64_t v;
        CHECK(intsetGet(is, 0, &v) && v == 4);
        CHECK(intsetGet(is, 2, &v) && v == 6);
        CHECK(!intsetGet(is, 3, &v));
        CHECK(intsetFind(is, 5) && !intsetFind(is, 7) && !intsetFind(is, 3));
        CHECK(!intsetFind(is, 5 + 65536) && !intsetFind(is, 5 + (1LL << 32)));
        CHECK(intsetMin(is) == 4 && intsetMax(is) == 6);
        CHECK(intsetBlobLen(is) == 8 + 3 * 2);
        zfree(is);
    }

    TEST("encoding boundaries and upgrades") {
        static const struct {
            int64_t v;
            uint32_t enc;
        } cases[] = {
            {32767, 2},
            {-32768, 2},
            {32768, 4},
            {-32769, 4},
            {INT32_MAX, 4},
            {INT32_MIN, 4},
            {(int64_t)INT32_MAX + 1, 8},
            {(int64_t)INT32_MIN - 1, 8},
            {INT64_MAX, 8},
            {INT64_MIN, 8},
        };
        int ok = 1;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            intset *is = build((const int64_t[]){1, -1, 0}, 3);
            is = intsetAdd(is, cases[i].v, NULL);
            int64_t v;
            int good = is->encoding == cases[i].enc && intsetLen(is) == 4 &&
                       intsetFind(is, cases[i].v) && intsetFind(is, -1) && intsetFind(is, 0) &&
                       intsetFind(is, 1) && intsetBlobLen(is) == 8 + 4 * cases[i].enc;
            /* Prepended when negative, appended when positive. */
            good &= cases[i].v < 0 ? intsetMin(is) == cases[i].v : intsetMax(is) == cases[i].v;
            good &= intsetGet(is, 1, &v) && v == (cases[i].v < 0 ? -1 : 0);
            good &= intsetValidateIntegrity((unsigned char *)is, intsetBlobLen(is), 1);
            if (!good) printf("  case %lld\n", (long long)cases[i].v);
            ok &= good;
            zfree(is);
        }
        CHECK(ok);
        /* 16 -> 32 -> 64 in steps, never downgraded by removal. */
        intset *is = build((const int64_t[]){10, 20}, 2);
        is = intsetAdd(is, 100000, NULL);
        CHECK(is->encoding == 4);
        is = intsetAdd(is, -10000000000LL, NULL);
        CHECK(is->encoding == 8 && intsetLen(is) == 4 && intsetMin(is) == -10000000000LL);
        int removed;
        is = intsetRemove(is, -10000000000LL, &removed);
        CHECK(removed == 1 && is->encoding == 8 && intsetBlobLen(is) == 8 + 3 * 8);
        is = intsetRemove(is, 1LL << 40, &removed);
        CHECK(removed == 0);
        zfree(is);
        /* Removing a value wider than the encoding is a no-op. */
        is = build((const int64_t[]){1}, 1);
        is = intsetRemove(is, 70000, &removed);
        CHECK(removed == 0 && intsetLen(is) == 1);
        zfree(is);
    }

    TEST("remove first, middle, last") {
        intset *is = build((const int64_t[]){1, 2, 3, 4, 5}, 5);
        int r;
        is = intsetRemove(is, 1, &r);
        is = intsetRemove(is, 3, &r);
        is = intsetRemove(is, 5, &r);
        CHECK(r == 1 && intsetLen(is) == 2 && intsetMin(is) == 2 && intsetMax(is) == 4);
        CHECK(memcmp(is, "\x02\x00\x00\x00\x02\x00\x00\x00\x02\x00\x04\x00", 12) == 0);
        is = intsetRemove(is, 3, &r);
        CHECK(r == 0);
        is = intsetRemove(is, 2, NULL);
        is = intsetRemove(is, 4, NULL);
        CHECK(intsetLen(is) == 0 && intsetBlobLen(is) == 8);
        zfree(is);
    }

    TEST("random returns members") {
        intset *is = build((const int64_t[]){-7, 3, 1000000}, 3);
        int seen[3] = {0}, ok = 1;
        for (int i = 0; i < 300; i++) {
            int64_t v = intsetRandom(is);
            if (v == -7)
                seen[0]++;
            else if (v == 3)
                seen[1]++;
            else if (v == 1000000)
                seen[2]++;
            else
                ok = 0;
        }
        CHECK(ok && seen[0] && seen[1] && seen[2]);
        zfree(is);
    }

    TEST("validation") {
        unsigned char b[64];
        const size_t n16 = sizeof(redis_s16) - 1, n64 = sizeof(redis_s64) - 1;
        CHECK(!validate_copy(redis_s16, 0, 0) && !validate_copy(redis_s16, 7, 0));
        CHECK(!validate_copy(redis_s16, n16 - 1, 0)); /* truncated */
        CHECK(!validate_copy(redis_s16, n16 - 2, 0)); /* truncated by one value */
        memcpy(b, redis_s16, n16);
        b[14] = 0;
        CHECK(!validate_copy(b, n16 + 1, 0)); /* trailing garbage */
        for (unsigned enc = 0; enc < 10; enc++) {
            memcpy(b, redis_s16, n16);
            b[0] = (unsigned char)enc;
            if (enc != 2) CHECK(!validate_copy(b, n16, 0));
        }
        memcpy(b, redis_s16, n16);
        b[4] = 4; /* length says 4 values */
        CHECK(!validate_copy(b, n16, 0));
        memcpy(b, redis_s16, n16);
        b[4] = 0xff;
        b[7] = 0xff; /* huge length: no overflow into a match */
        CHECK(!validate_copy(b, n16, 0));
        memcpy(b, redis_s16, n16);
        b[10] = 1; /* duplicate 1,1,3 */
        CHECK(validate_copy(b, n16, 0) && !validate_copy(b, n16, 1));
        memcpy(b, redis_s16, n16);
        b[12] = 0; /* 1,2,0: unsorted */
        CHECK(!validate_copy(b, n16, 1));
        memcpy(b, redis_s64, n64);
        b[31] = 0x80; /* last value becomes negative: unsorted */
        CHECK(!validate_copy(b, n64, 1));
        /* A blob at an odd address. */
        memcpy(b + 1, redis_s64, n64);
        CHECK(intsetValidateIntegrity(b + 1, n64, 1));
        CHECK(!intsetValidateIntegrity(NULL, 0, 0));
    }

    TEST("randomized model test against a sorted array") {
        int64_t *model = malloc(sizeof(int64_t) * 4000);
        size_t mlen = 0;
        intset *is = intsetNew();
        int ok = 1;
        for (int op = 0; op < 20000 && ok; op++) {
            int64_t v;
            int width = (int)(random() % 4);
            uint64_t r = rnd64();
            if (width == 0)
                v = (int64_t)(r % 200) - 100;
            else if (width == 1)
                v = (int16_t)r;
            else if (width == 2)
                v = (int32_t)r;
            else
                v = (int64_t)r;
            if (mlen && random() % 3 == 0) v = model[random() % mlen];
            int present = bsearch(&v, model, mlen, sizeof(int64_t), cmp64) != NULL;
            if (random() % 3 == 0) {
                int rem;
                is = intsetRemove(is, v, &rem);
                ok &= rem == present;
                if (present) {
                    int64_t *at = bsearch(&v, model, mlen, sizeof(int64_t), cmp64);
                    memmove(at, at + 1, (size_t)(model + mlen - at - 1) * sizeof(int64_t));
                    mlen--;
                }
            } else if (mlen < 4000) {
                uint8_t added;
                is = intsetAdd(is, v, &added);
                ok &= added == !present;
                if (!present) {
                    model[mlen++] = v;
                    qsort(model, mlen, sizeof(int64_t), cmp64);
                }
            }
            ok &= intsetFind(is, v) == (bsearch(&v, model, mlen, sizeof(int64_t), cmp64) != NULL);
            if (op % 1000 == 0 || op == 19999) {
                ok &= intsetLen(is) == mlen;
                for (size_t i = 0; i < mlen; i++) {
                    int64_t got;
                    ok &= intsetGet(is, (uint32_t)i, &got) && got == model[i];
                }
                if (mlen) {
                    ok &= intsetMin(is) == model[0] && intsetMax(is) == model[mlen - 1];
                    ok &= intsetValidateIntegrity((unsigned char *)is, intsetBlobLen(is), 1);
                }
                /* The encoding never narrows, and is at least wide enough. */
                uint32_t need = 2;
                for (size_t i = 0; i < mlen; i++) {
                    if (model[i] < INT32_MIN || model[i] > INT32_MAX)
                        need = 8;
                    else if ((model[i] < INT16_MIN || model[i] > INT16_MAX) && need < 4)
                        need = 4;
                }
                ok &= is->encoding >= need;
            }
        }
        CHECK(ok);
        free(model);
        zfree(is);
    }

    TEST("no memory leaked") {
        CHECK(zmalloc_used_memory() == mem_at_start);
    }

    return TEST_REPORT();
}
