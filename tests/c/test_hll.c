/* test_hll.c: unit tests for src/hll.c, the HyperLogLog value format. The
 * expected values were recorded from a real redis-server 7.0.15: the bytes
 * GET returns after the PFADDs shown (whole values for small ones, their
 * FNV-1a hash for 12 KB dense ones), PFDEBUG ENCODING and PFCOUNT. Adding
 * the same elements in the same order must give identical bytes, because
 * replicas, snapshots and GET/SET copy these values between servers. */
#include <stdio.h>
#include <string.h>

#include "hll.h"
#include "test.h"
#include "zmalloc.h"

#define SPARSE_MAX 3000 /* hll-sparse-max-bytes default */

/* PFADD h a b c */
static const unsigned char redis_abc[] = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"
                                         "\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a";

static uint64_t fnv1a(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* What PFADD name el:0 .. el:n-1 does, in one value. */
static sds add_range(sds s, long from, long to) {
    int updated = 0;
    for (long i = from; i < to; i++) {
        char ele[32];
        int len = snprintf(ele, sizeof(ele), "el:%ld", i);
        int r = hllAdd(&s, (const unsigned char *)ele, (size_t)len, SPARSE_MAX);
        if (r < 0) return NULL;
        updated |= r;
    }
    if (updated) hllInvalidateCache((uint8_t *)s);
    return s;
}

/* PFCOUNT on a stale cache: estimate, then store it back. */
static uint64_t count_and_cache(sds s) {
    uint8_t *h = (uint8_t *)s;
    int invalid = 0;
    uint64_t card = hllCount(h, sdslen(s), hllEncodingOf(h), &invalid);
    if (invalid) return (uint64_t)-1;
    hllCacheSet(h, card);
    return card;
}

int main(void) {
    size_t mem_start = zmalloc_used_memory();

    TEST("a new value is sparse, valid and counts 0") {
        sds s = hllNew();
        CHECK(sdslen(s) == HLL_HDR_SIZE + 2);
        CHECK(hllHeaderValid((uint8_t *)s, sdslen(s)));
        CHECK(hllEncodingOf((uint8_t *)s) == HLL_SPARSE);
        CHECK(hllCount((uint8_t *)s, sdslen(s), HLL_SPARSE, NULL) == 0);
        sdsfree(s);
    }

    TEST("PFADD a b c gives Redis' bytes") {
        sds s = hllNew();
        const char *el[] = {"a", "b", "c"};
        for (int i = 0; i < 3; i++) CHECK(hllAdd(&s, (const unsigned char *)el[i], 1, SPARSE_MAX) == 1);
        hllInvalidateCache((uint8_t *)s);
        CHECK(sdslen(s) == sizeof(redis_abc) - 1);
        CHECK(memcmp(s, redis_abc, sizeof(redis_abc) - 1) == 0);
        /* adding an element again changes nothing */
        CHECK(hllAdd(&s, (const unsigned char *)"b", 1, SPARSE_MAX) == 0);
        CHECK(count_and_cache(s) == 3);
        CHECK(hllCacheValid((uint8_t *)s) && hllCacheGet((uint8_t *)s) == 3);
        sdsfree(s);
    }

    TEST("300 elements stay sparse, byte-identical, count 303") {
        sds s = add_range(hllNew(), 0, 300);
        CHECK(s != NULL);
        CHECK(hllEncodingOf((uint8_t *)s) == HLL_SPARSE);
        CHECK(sdslen(s) == 692);
        CHECK(fnv1a(s, sdslen(s)) == 0x351fea90a1d309bfULL);
        CHECK(count_and_cache(s) == 303);
        CHECK(fnv1a(s, sdslen(s)) == 0x1181a21425a1039bULL);
        sdsfree(s);
    }

    TEST("2000 elements outgrow hll-sparse-max-bytes and turn dense like Redis") {
        sds s = add_range(hllNew(), 0, 2000);
        CHECK(s != NULL);
        CHECK(hllEncodingOf((uint8_t *)s) == HLL_DENSE);
        CHECK(sdslen(s) == HLL_DENSE_SIZE);
        CHECK(fnv1a(s, sdslen(s)) == 0x69190976a9c70b7eULL);
        CHECK(count_and_cache(s) == 1987);
        CHECK(fnv1a(s, sdslen(s)) == 0x9355a8cb3876c858ULL);
        sdsfree(s);
    }

    TEST("20000 elements: dense registers and estimate match Redis") {
        sds s = add_range(hllNew(), 0, 20000);
        CHECK(s != NULL);
        CHECK(fnv1a(s, sdslen(s)) == 0xd9163e3810fea1e1ULL);
        CHECK(count_and_cache(s) == 20030);
        CHECK(fnv1a(s, sdslen(s)) == 0x8bc7ef4c318280bdULL);
        sdsfree(s);
    }

    TEST("union through the raw register array (PFCOUNT of several keys)") {
        sds a = add_range(hllNew(), 0, 2000), b = add_range(hllNew(), 0, 20000);
        sds c = add_range(hllNew(), 0, 300);
        uint8_t *raw = zcalloc(HLL_HDR_SIZE + HLL_REGISTERS);
        raw[HLL_ENC_OFFSET] = HLL_RAW;
        CHECK(hllMergeMax(raw + HLL_HDR_SIZE, (uint8_t *)a, sdslen(a)) == 0);
        CHECK(hllMergeMax(raw + HLL_HDR_SIZE, (uint8_t *)b, sdslen(b)) == 0);
        CHECK(hllMergeMax(raw + HLL_HDR_SIZE, (uint8_t *)c, sdslen(c)) == 0);
        CHECK(hllCount(raw, HLL_HDR_SIZE + HLL_REGISTERS, HLL_RAW, NULL) == 20030);
        zfree(raw);
        sdsfree(a);
        sdsfree(b);
        sdsfree(c);
    }

    TEST("sparse and dense forms of the same elements agree register by register") {
        sds sp = add_range(hllNew(), 0, 300);
        sds de = hllNew();
        CHECK(hllToDense(&de) == 0);
        de = add_range(de, 0, 300);
        CHECK(hllToDense(&sp) == 0); /* conversion keeps every register */
        CHECK(memcmp(sp + HLL_HDR_SIZE, de + HLL_HDR_SIZE, HLL_DENSE_SIZE - HLL_HDR_SIZE) == 0);
        sdsfree(sp);
        sdsfree(de);
    }

    TEST("dense registers: every 6-bit value at every alignment, neighbours kept") {
        uint8_t regs[HLL_DENSE_SIZE - HLL_HDR_SIZE + 1] = {0};
        for (long i = 0; i < 64; i++) hllDensePut(regs, i, (unsigned)(63 - i));
        for (unsigned v = 0; v < 64; v++) {
            hllDensePut(regs, 21, v);
            CHECK(hllDenseGet(regs, 21) == v);
            CHECK(hllDenseGet(regs, 20) == 63 - 20 && hllDenseGet(regs, 22) == 63 - 22);
        }
        hllDensePut(regs, HLL_REGISTERS - 1, 45);
        CHECK(hllDenseGet(regs, HLL_REGISTERS - 1) == 45);
    }

    TEST("corrupt values are reported, not trusted") {
        sds s = hllNew();
        CHECK(!hllHeaderValid((const uint8_t *)"HYLX\x01", 5));
        CHECK(!hllHeaderValid((uint8_t *)s, 10)); /* shorter than the header */
        s[HLL_ENC_OFFSET] = 7;
        CHECK(!hllHeaderValid((uint8_t *)s, sdslen(s)));
        s[HLL_ENC_OFFSET] = HLL_DENSE; /* dense needs exactly 12304 bytes */
        CHECK(!hllHeaderValid((uint8_t *)s, sdslen(s)));
        s[HLL_ENC_OFFSET] = HLL_SPARSE;
        /* One XZERO of 16383 registers: a register is missing. */
        s[HLL_HDR_SIZE] = 0x40 | 0x3f;
        s[HLL_HDR_SIZE + 1] = (char)0xfe;
        int invalid = 0;
        hllCount((uint8_t *)s, sdslen(s), HLL_SPARSE, &invalid);
        CHECK(invalid);
        uint8_t max[HLL_REGISTERS] = {0};
        CHECK(hllMergeMax(max, (uint8_t *)s, sdslen(s)) == -1);
        CHECK(hllToDense(&s) == -1);
        CHECK(hllSetRegister(&s, HLL_REGISTERS - 1, 3, SPARSE_MAX) == -1);
        sdsfree(s);
    }

    TEST("no memory leaked") { CHECK(zmalloc_used_memory() == mem_start); }
    return TEST_REPORT();
}
