/* test_listpack.c: unit tests for src/listpack.c. The byte strings and
 * FNV-1a digests below were recorded from a real redis-server 7.0.15
 * (rdbcompression no, hash-max-listpack-entries/value raised where noted):
 * the listpack blob was cut out of the DUMP payload of the named key. Building
 * the same sequence with lpAppend must give identical bytes. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "listpack.h"
#include "test.h"
#include "util.h"
#include "zmalloc.h"

/* HSET h a 1 b hello */
static const unsigned char redis_h[] =
    "\x16\x00\x00\x00\x04\x00\x81\x61\x02\x01\x01\x81\x62\x02\x85"
    "\x68\x65\x6c\x6c\x6f\x06\xff";

/* ZADD z 1.5 a 2 b -3 c  (stored member,score in score order) */
static const unsigned char redis_z[] =
    "\x1a\x00\x00\x00\x06\x00\x81\x63\x02\xdf\xfd\x02\x81\x61\x02"
    "\x83\x31\x2e\x35\x04\x81\x62\x02\x02\x01\xff";

/* HSET hi f0 <vals[0]> f1 <vals[1]> ... : every integer width boundary plus
 * strings that look like numbers but are not canonical. */
static const char *const hi_vals[] = {"0",
                                      "127",
                                      "128",
                                      "-1",
                                      "4095",
                                      "4096",
                                      "-4096",
                                      "-4097",
                                      "32767",
                                      "32768",
                                      "-32768",
                                      "-32769",
                                      "8388607",
                                      "8388608",
                                      "-8388608",
                                      "-8388609",
                                      "2147483647",
                                      "2147483648",
                                      "-2147483648",
                                      "-2147483649",
                                      "9223372036854775807",
                                      "-9223372036854775808",
                                      "007",
                                      "-0",
                                      "+1",
                                      " 1",
                                      "",
                                      "9223372036854775808",
                                      NULL /* 63 x */,
                                      NULL /* 64 y */};
#define HI_N (sizeof(hi_vals) / sizeof(hi_vals[0]))
static const unsigned char redis_hi[] = "\xb3\x01\x00\x00\x3c\x00\x82\x66\x30\x03\x00\x01\x82\x66"
                                        "\x31\x03\x7f\x01\x82\x66\x32\x03\xc0\x80"
                                        "\x02\x82\x66\x33\x03\xdf\xff\x02\x82\x66\x34\x03\xcf\xff"
                                        "\x02\x82\x66\x35\x03\xf1\x00\x10\x03\x82"
                                        "\x66\x36\x03\xd0\x00\x02\x82\x66\x37\x03\xf1\xff\xef\x03"
                                        "\x82\x66\x38\x03\xf1\xff\x7f\x03\x82\x66"
                                        "\x39\x03\xf2\x00\x80\x00\x04\x83\x66\x31\x30\x04\xf1\x00"
                                        "\x80\x03\x83\x66\x31\x31\x04\xf2\xff\x7f"
                                        "\xff\x04\x83\x66\x31\x32\x04\xf2\xff\xff\x7f\x04\x83\x66"
                                        "\x31\x33\x04\xf3\x00\x00\x80\x00\x05\x83"
                                        "\x66\x31\x34\x04\xf2\x00\x00\x80\x04\x83\x66\x31\x35\x04"
                                        "\xf3\xff\xff\x7f\xff\x05\x83\x66\x31\x36"
                                        "\x04\xf3\xff\xff\xff\x7f\x05\x83\x66\x31\x37\x04\xf4\x00"
                                        "\x00\x00\x80\x00\x00\x00\x00\x09\x83\x66"
                                        "\x31\x38\x04\xf3\x00\x00\x00\x80\x05\x83\x66\x31\x39\x04"
                                        "\xf4\xff\xff\xff\x7f\xff\xff\xff\xff\x09"
                                        "\x83\x66\x32\x30\x04\xf4\xff\xff\xff\xff\xff\xff\xff\x7f"
                                        "\x09\x83\x66\x32\x31\x04\xf4\x00\x00\x00"
                                        "\x00\x00\x00\x00\x80\x09\x83\x66\x32\x32\x04\x83\x30\x30"
                                        "\x37\x04\x83\x66\x32\x33\x04\x82\x2d\x30"
                                        "\x03\x83\x66\x32\x34\x04\x82\x2b\x31\x03\x83\x66\x32\x35"
                                        "\x04\x82\x20\x31\x03\x83\x66\x32\x36\x04"
                                        "\x80\x01\x83\x66\x32\x37\x04\x93\x39\x32\x32\x33\x33\x37"
                                        "\x32\x30\x33\x36\x38\x35\x34\x37\x37\x35"
                                        "\x38\x30\x38\x14\x83\x66\x32\x38\x04\xbf\x78\x78\x78\x78"
                                        "\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78"
                                        "\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78"
                                        "\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78"
                                        "\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78"
                                        "\x78\x78\x78\x78\x78\x78\x78\x78\x78\x78"
                                        "\x78\x40\x83\x66\x32\x39\x04\xe0\x40\x79\x79\x79\x79\x79"
                                        "\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79"
                                        "\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79"
                                        "\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79"
                                        "\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79"
                                        "\x79\x79\x79\x79\x79\x79\x79\x79\x79\x79"
                                        "\x79\x42\xff";

/* HSET hl k<i> <'v' x hl_lens[i]> (hash-max-listpack-value 10000000): the
 * string length encodings and every backlen width boundary (entry sizes
 * 127/128, 16382/16383, 2097150/2097151). 4 MB, so only size + digest. */
static const uint32_t hl_lens[] = {63, 64, 4095, 4096, 125, 126, 16377, 16378, 2097145, 2097146};
#define HL_BYTES 4235717u
#define HL_FNV   0x71399bd8872257a7ULL

/* hash-max-listpack-entries 100000; HSET big f<i> <i> for i < 40000:
 * 80000 elements, so the header count is saturated. */
#define BIG_BYTES 471905u
#define BIG_FNV   0x76c4895839eaf935ULL

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static unsigned hdr_count(const unsigned char *lp) {
    return (unsigned)lp[4] | (unsigned)lp[5] << 8;
}

static unsigned char *app(unsigned char *lp, const char *s) {
    return lpAppend(lp, (const unsigned char *)s, (uint32_t)strlen(s));
}

/* The entry at p rendered as a string (integers in decimal), into buf. */
static size_t entry_str(unsigned char *p, char *buf, size_t cap) {
    unsigned char ib[LP_INTBUF_SIZE];
    int64_t len;
    unsigned char *s = lpGet(p, &len, ib);
    size_t n = (size_t)len < cap ? (size_t)len : cap;
    memcpy(buf, s, n);
    return (size_t)len;
}

static int entry_is(unsigned char *p, const char *want) {
    char buf[256];
    if (!p) return 0;
    size_t n = entry_str(p, buf, sizeof(buf));
    return n == strlen(want) && memcmp(buf, want, n) == 0;
}

/* Entries joined with ',' for compact comparisons. */
static const char *joined(unsigned char *lp) {
    static char out[4096];
    size_t o = 0;
    out[0] = '\0';
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        char buf[256];
        size_t n = entry_str(p, buf, sizeof(buf));
        if (o) out[o++] = ',';
        if (n > sizeof(buf)) n = sizeof(buf);
        if (o + n + 2 >= sizeof(out)) break;
        memcpy(out + o, buf, n);
        o += n;
        out[o] = '\0';
    }
    return out;
}

static unsigned char *from_list(const char *csv) {
    unsigned char *lp = lpNew(0);
    const char *s = csv;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        lp = lpAppend(lp, (const unsigned char *)s, (uint32_t)n);
        s += n + (e ? 1 : 0);
    }
    return lp;
}

/* Validation on an exact-size heap copy so ASan catches any overread. */
static int validate_copy(const unsigned char *blob, size_t size, int deep) {
    unsigned char *c = malloc(size ? size : 1);
    if (size) memcpy(c, blob, size);
    int ok = lpValidateIntegrity(c, size, deep);
    free(c);
    return ok;
}

/* Walk a (validated) listpack both ways touching every entry; returns the
 * number of entries seen forwards, or -1 if the two walks disagree. */
static long walk_both(unsigned char *lp) {
    long fwd = 0, back = 0;
    unsigned char ib[LP_INTBUF_SIZE];
    int64_t len;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        unsigned char *s = lpGet(p, &len, ib);
        volatile unsigned char sink = len ? s[len - 1] : 0;
        (void)sink;
        fwd++;
    }
    for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) back++;
    return fwd == back ? fwd : -1;
}

static uint32_t rnd32(void) {
    return ((uint32_t)random() << 16) ^ (uint32_t)random();
}

/* A random element as a string: integers of every width, non-canonical
 * numbers, and strings of all three length classes. */
static size_t random_elem(char *buf) {
    int kind = (int)(rnd32() % 10);
    static const long long edges[] = {0,
                                      127,
                                      128,
                                      -1,
                                      4095,
                                      4096,
                                      -4096,
                                      -4097,
                                      32767,
                                      32768,
                                      -32768,
                                      -32769,
                                      8388607,
                                      8388608,
                                      -8388608,
                                      -8388609,
                                      INT32_MAX,
                                      INT32_MIN,
                                      (long long)INT32_MAX + 1,
                                      (long long)INT32_MIN - 1,
                                      LLONG_MAX,
                                      LLONG_MIN};
    if (kind < 3)
        return (size_t)ll2string(buf, 32, edges[rnd32() % (sizeof(edges) / sizeof(edges[0]))]);
    if (kind < 5) {
        long long v = (long long)(((uint64_t)rnd32() << 32) | rnd32()) >> (rnd32() % 63);
        return (size_t)ll2string(buf, 32, v);
    }
    if (kind == 5) {
        static const char *odd[] = {"007", "-0", "+1", " 1", "1 ", "", "9223372036854775808",
                                    "1.5"};
        const char *s = odd[rnd32() % 8];
        memcpy(buf, s, strlen(s));
        return strlen(s);
    }
    static const size_t lens[] = {1, 5, 63, 64, 200, 4095, 4096, 5000};
    size_t n = kind == 9 ? lens[rnd32() % 8] : rnd32() % 70;
    for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + rnd32() % 26);
    return n;
}

typedef struct {
    char *s;
    size_t n;
} melem;

static int model_matches(unsigned char *lp, melem *m, size_t mlen) {
    if (lpLength(lp) != mlen) return 0;
    size_t i = 0;
    static char buf[8192];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), i++) {
        if (i >= mlen) return 0;
        size_t n = entry_str(p, buf, sizeof(buf));
        if (n != m[i].n || memcmp(buf, m[i].s, n) != 0) return 0;
    }
    if (i != mlen) return 0;
    i = mlen;
    for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) {
        if (i == 0) return 0;
        i--;
        size_t n = entry_str(p, buf, sizeof(buf));
        if (n != m[i].n || memcmp(buf, m[i].s, n) != 0) return 0;
    }
    return i == 0 && lpValidateIntegrity(lp, lpBytes(lp), 1);
}

int main(void) {
    size_t mem_at_start = zmalloc_used_memory();
    srandom(12345);

    TEST("empty listpack") {
        unsigned char *lp = lpNew(0);
        CHECK(lpBytes(lp) == 7);
        CHECK(memcmp(lp, "\x07\x00\x00\x00\x00\x00\xff", 7) == 0);
        CHECK(lpLength(lp) == 0);
        CHECK(lpFirst(lp) == NULL);
        CHECK(lpLast(lp) == NULL);
        CHECK(lpSeek(lp, 0) == NULL);
        CHECK(lpSeek(lp, -1) == NULL);
        CHECK(lpRandomEntry(lp, NULL) == NULL);
        CHECK(lpValidateIntegrity(lp, 7, 1));
        lp = lpDeleteRange(lp, 0, 5);
        CHECK(lpBytes(lp) == 7);
        lpFree(lp);
        lp = lpNew(1000);
        CHECK(lpBytes(lp) == 7 && zmalloc_size(lp) >= 1000);
        lp = lpShrinkToFit(lp);
        CHECK(zmalloc_size(lp) < 1000 && lpBytes(lp) == 7);
        lp = app(lp, "x");
        CHECK(strcmp(joined(lp), "x") == 0);
        lpFree(lp);
        unsigned char *n = lpAppend(NULL, (const unsigned char *)"7", 1);
        CHECK(lpLength(n) == 1 && entry_is(lpFirst(n), "7"));
        lpFree(n);
    }

    TEST("Redis bytes: HSET h a 1 b hello") {
        unsigned char *lp = lpNew(0);
        lp = app(lp, "a");
        lp = app(lp, "1");
        lp = app(lp, "b");
        lp = app(lp, "hello");
        CHECK(lpBytes(lp) == sizeof(redis_h) - 1);
        CHECK(memcmp(lp, redis_h, sizeof(redis_h) - 1) == 0);
        CHECK(validate_copy(redis_h, sizeof(redis_h) - 1, 1));
        lpFree(lp);
        /* Same bytes built with prepends and integer calls. */
        lp = lpNew(0);
        lp = lpPrepend(lp, (const unsigned char *)"hello", 5);
        lp = lpPrepend(lp, (const unsigned char *)"b", 1);
        lp = lpPrependInteger(lp, 1);
        lp = lpPrepend(lp, (const unsigned char *)"a", 1);
        CHECK(lpBytes(lp) == sizeof(redis_h) - 1 && memcmp(lp, redis_h, sizeof(redis_h) - 1) == 0);
        lpFree(lp);
    }

    TEST("Redis bytes: ZADD z 1.5 a 2 b -3 c") {
        unsigned char *lp = from_list("c,-3,a,1.5,b");
        lp = lpAppendInteger(lp, 2);
        CHECK(lpBytes(lp) == sizeof(redis_z) - 1);
        CHECK(memcmp(lp, redis_z, sizeof(redis_z) - 1) == 0);
        lpFree(lp);
    }

    TEST("Redis bytes: every integer width and near-integer strings") {
        char x63[64], y64[65], field[16];
        memset(x63, 'x', 63);
        x63[63] = 0;
        memset(y64, 'y', 64);
        y64[64] = 0;
        unsigned char *lp = lpNew(0);
        for (size_t i = 0; i < HI_N; i++) {
            const char *v = hi_vals[i] ? hi_vals[i] : (i == HI_N - 2 ? x63 : y64);
            snprintf(field, sizeof(field), "f%zu", i);
            lp = app(lp, field);
            lp = app(lp, v);
        }
        CHECK(lpBytes(lp) == sizeof(redis_hi) - 1);
        CHECK(memcmp(lp, redis_hi, sizeof(redis_hi) - 1) == 0);
        CHECK(validate_copy(redis_hi, sizeof(redis_hi) - 1, 1));
        /* Every value reads back as the exact string that went in. */
        int ok = 1;
        unsigned char *p = lpFirst(lp);
        for (size_t i = 0; i < HI_N && p; i++) {
            const char *v = hi_vals[i] ? hi_vals[i] : (i == HI_N - 2 ? x63 : y64);
            p = lpNext(lp, p);
            ok &= entry_is(p, v);
            ok &= lpCompare(p, (const unsigned char *)v, (uint32_t)strlen(v));
            p = lpNext(lp, p);
        }
        CHECK(ok);
        lpFree(lp);
    }

    TEST("Redis bytes: string length classes and backlen widths (4 MB)") {
        unsigned char *lp = lpNew(0);
        size_t maxlen = hl_lens[9];
        unsigned char *v = zmalloc(maxlen);
        memset(v, 'v', maxlen);
        char field[16];
        for (int i = 0; i < 10; i++) {
            snprintf(field, sizeof(field), "k%d", i);
            lp = app(lp, field);
            lp = lpAppend(lp, v, hl_lens[i]);
        }
        CHECK(lpBytes(lp) == HL_BYTES);
        CHECK(fnv1a(lp, lpBytes(lp)) == HL_FNV);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        CHECK(walk_both(lp) == 20);
        /* Spot checks of the recorded layout: 12-bit header of 4095, 32-bit
         * header of 4096 and the 2-byte backlen of a 4097-byte entry. */
        unsigned char *p = lpSeek(lp, 5);
        CHECK(p[0] == 0xef && p[1] == 0xff && p[4097] == 0x20 && p[4098] == 0x81);
        p = lpSeek(lp, 7);
        CHECK(memcmp(p, "\xf0\x00\x10\x00\x00", 5) == 0);
        p = lpSeek(lp, -3); /* entry of 2097150 bytes: 3-byte backlen */
        CHECK(memcmp(p + 2097150, "\x7f\xff\xfe", 3) == 0);
        p = lpSeek(lp, -1); /* 2097151 bytes: 4-byte backlen */
        CHECK(memcmp(p + 2097151, "\x00\xff\xff\xff", 4) == 0);
        int64_t len;
        CHECK(lpGet(p, &len, NULL) == p + 5 && len == 2097146);
        zfree(v);
        lpFree(lp);
    }

    TEST("Redis bytes: 80000 elements, saturated header") {
        unsigned char *lp = lpNew(0);
        char field[16];
        for (int i = 0; i < 40000; i++) {
            snprintf(field, sizeof(field), "f%d", i);
            lp = app(lp, field);
            lp = lpAppendInteger(lp, i);
        }
        CHECK(lpBytes(lp) == BIG_BYTES);
        CHECK(fnv1a(lp, lpBytes(lp)) == BIG_FNV);
        CHECK(hdr_count(lp) == 65535);
        CHECK(lpLength(lp) == 80000);
        CHECK(hdr_count(lp) == 65535);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        CHECK(entry_is(lpSeek(lp, 79999), "39999"));
        CHECK(entry_is(lpSeek(lp, -80000), "f0"));
        CHECK(lpSeek(lp, 80000) == NULL && lpSeek(lp, -80001) == NULL);
        CHECK(entry_is(lpSeek(lp, 70000), "f35000"));
        CHECK(entry_is(lpSeek(lp, -10000), "f35000"));
        lpFree(lp);
    }

    TEST("integer encodings: sizes, first bytes, round trip") {
        static const struct {
            long long v;
            size_t size; /* encoding+data+backlen */
            unsigned char first;
        } cases[] = {
            {0, 2, 0x00},
            {127, 2, 0x7f},
            {128, 3, 0xc0},
            {-1, 3, 0xdf},
            {4095, 3, 0xcf},
            {-4096, 3, 0xd0},
            {4096, 4, 0xf1},
            {-4097, 4, 0xf1},
            {32767, 4, 0xf1},
            {-32768, 4, 0xf1},
            {32768, 5, 0xf2},
            {-32769, 5, 0xf2},
            {8388607, 5, 0xf2},
            {-8388608, 5, 0xf2},
            {8388608, 6, 0xf3},
            {-8388609, 6, 0xf3},
            {INT32_MAX, 6, 0xf3},
            {INT32_MIN, 6, 0xf3},
            {(long long)INT32_MAX + 1, 10, 0xf4},
            {(long long)INT32_MIN - 1, 10, 0xf4},
            {LLONG_MAX, 10, 0xf4},
            {LLONG_MIN, 10, 0xf4},
        };
        int ok = 1;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            unsigned char *lp = lpAppendInteger(lpNew(0), cases[i].v);
            unsigned char *p = lpFirst(lp);
            int good = lpBytes(lp) == 7 + cases[i].size && p[0] == cases[i].first;
            long long lv = 0;
            unsigned int sl;
            good &= lpGetValue(p, &sl, &lv) == NULL && lv == cases[i].v;
            int64_t cnt;
            good &= lpGet(p, &cnt, NULL) == NULL && cnt == cases[i].v;
            char want[32];
            ll2string(want, sizeof(want), cases[i].v);
            good &= entry_is(p, want);
            /* The decimal string takes the same path. */
            unsigned char *lp2 = app(lpNew(0), want);
            good &= lpBytes(lp2) == lpBytes(lp) && memcmp(lp, lp2, lpBytes(lp)) == 0;
            good &= lpValidateIntegrity(lp, lpBytes(lp), 1) && lpLast(lp) == p;
            if (!good) printf("  integer case %lld\n", cases[i].v);
            ok &= good;
            lpFree(lp);
            lpFree(lp2);
        }
        CHECK(ok);
    }

    TEST("string encodings: 0/63/64/4095/4096 lengths") {
        static const struct {
            uint32_t len;
            size_t size;
            unsigned char first;
        } cases[] = {
            {0, 2, 0x80},         {1, 3, 0x81},         {63, 65, 0xbf},     {64, 67, 0xe0},
            {125, 128, 0xe0},     {126, 130, 0xe0},     {4095, 4099, 0xef}, {4096, 4103, 0xf0},
            {16377, 16384, 0xf0}, {16378, 16386, 0xf0},
        };
        unsigned char *buf = zmalloc(16378);
        memset(buf, 's', 16378);
        int ok = 1;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            unsigned char *lp = lpAppend(lpNew(0), buf, cases[i].len);
            unsigned char *p = lpFirst(lp);
            int64_t cnt;
            unsigned char *s = lpGet(p, &cnt, NULL);
            unsigned int sl = 0;
            long long lv;
            int good = lpBytes(lp) == 7 + cases[i].size && p[0] == cases[i].first && s &&
                       cnt == cases[i].len && (cnt == 0 || memcmp(s, buf, cnt) == 0) &&
                       lpGetValue(p, &sl, &lv) == s && sl == cases[i].len &&
                       lpValidateIntegrity(lp, lpBytes(lp), 1) && lpLast(lp) == p &&
                       lpFind(lp, p, buf, cases[i].len, 0) == p;
            if (!good) printf("  string case %u\n", cases[i].len);
            ok &= good;
            lpFree(lp);
        }
        CHECK(ok);
        zfree(buf);
    }

    TEST("insert before/after, newp, at both ends") {
        unsigned char *lp = from_list("b,d");
        unsigned char *p = lpFirst(lp), *np = NULL;
        lp = lpInsertString(lp, (const unsigned char *)"a", 1, p, LP_BEFORE, &np);
        CHECK(entry_is(np, "a") && np == lpFirst(lp));
        p = lpSeek(lp, 1);
        lp = lpInsertString(lp, (const unsigned char *)"c", 1, p, LP_AFTER, &np);
        CHECK(entry_is(np, "c"));
        p = lpLast(lp);
        lp = lpInsertInteger(lp, 5000, p, LP_AFTER, &np);
        CHECK(entry_is(np, "5000") && np == lpLast(lp));
        /* Before the EOF byte is an append; after it too. */
        lp = lpInsertString(lp, (const unsigned char *)"12", 2, lp + lpBytes(lp) - 1, LP_BEFORE,
                            &np);
        CHECK(entry_is(np, "12") && np == lpLast(lp));
        lp =
            lpInsertString(lp, (const unsigned char *)"e", 1, lp + lpBytes(lp) - 1, LP_AFTER, NULL);
        CHECK(strcmp(joined(lp), "a,b,c,d,5000,12,e") == 0);
        CHECK(lpLength(lp) == 7 && hdr_count(lp) == 7);
        /* lpInsertString stores canonical integers as integers too. */
        CHECK(lpSeek(lp, 5)[0] == 12);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        lpFree(lp);
    }

    TEST("replace grows, shrinks, keeps position") {
        unsigned char *lp = from_list("a,b,c");
        unsigned char *p = lpSeek(lp, 1);
        unsigned char big[300];
        memset(big, 'z', sizeof(big));
        lp = lpReplace(lp, &p, big, sizeof(big));
        CHECK(p == lpSeek(lp, 1) && lpGet(p, &(int64_t){0}, NULL) == p + 2);
        CHECK(lpLength(lp) == 3);
        lp = lpReplaceInteger(lp, &p, -77);
        CHECK(entry_is(p, "-77") && p == lpSeek(lp, 1));
        lp = lpReplace(lp, &p, (const unsigned char *)"99", 2);
        CHECK(p[0] == 99);
        lp = lpReplace(lp, &p, (const unsigned char *)"099", 3);
        CHECK(entry_is(p, "099") && p[0] == 0x83);
        p = lpLast(lp);
        lp = lpReplace(lp, &p, (const unsigned char *)"", 0);
        CHECK(strcmp(joined(lp), "a,099,") == 0 && lpLength(lp) == 3);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        lpFree(lp);
    }

    TEST("source bytes inside the same listpack") {
        unsigned char *lp = lpNew(0);
        unsigned char s[100];
        memset(s, 'q', sizeof(s));
        lp = lpAppend(lp, s, sizeof(s));
        int64_t len;
        for (int i = 0; i < 6; i++) {
            unsigned char *src = lpGet(lpFirst(lp), &len, NULL);
            lp = lpPrepend(lp, src, (uint32_t)len);
        }
        unsigned char *p = lpLast(lp);
        unsigned char *src = lpGet(lpFirst(lp), &len, NULL);
        lp = lpReplace(lp, &p, src, (uint32_t)len);
        int ok = lpLength(lp) == 7;
        for (p = lpFirst(lp); p; p = lpNext(lp, p))
            ok &= lpGet(p, &len, NULL) != NULL && len == 100 && memcmp(p + 2, s, 100) == 0;
        CHECK(ok);
        lpFree(lp);
    }

    TEST("delete and newp") {
        unsigned char *lp = from_list("1,2,3,4");
        unsigned char *np;
        lp = lpDelete(lp, lpSeek(lp, 1), &np);
        CHECK(entry_is(np, "3") && strcmp(joined(lp), "1,3,4") == 0);
        lp = lpDelete(lp, lpLast(lp), &np);
        CHECK(np == NULL && strcmp(joined(lp), "1,3") == 0);
        lp = lpDelete(lp, lpFirst(lp), &np);
        CHECK(entry_is(np, "3") && lpLength(lp) == 1);
        lp = lpDelete(lp, lpFirst(lp), NULL);
        CHECK(lpLength(lp) == 0 && lpBytes(lp) == 7 && lpFirst(lp) == NULL);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        lpFree(lp);
    }

    TEST("deleteRange and deleteRangeWithEntry") {
        unsigned char *lp = from_list("0,1,2,3,4,5,6,7,8,9");
        lp = lpDeleteRange(lp, 2, 3);
        CHECK(strcmp(joined(lp), "0,1,5,6,7,8,9") == 0 && hdr_count(lp) == 7);
        lp = lpDeleteRange(lp, -2, 1);
        CHECK(strcmp(joined(lp), "0,1,5,6,7,9") == 0);
        lp = lpDeleteRange(lp, 4, 100);
        CHECK(strcmp(joined(lp), "0,1,5,6") == 0 && hdr_count(lp) == 4);
        lp = lpDeleteRange(lp, 10, 1);
        lp = lpDeleteRange(lp, -10, 1);
        lp = lpDeleteRange(lp, 0, 0);
        CHECK(strcmp(joined(lp), "0,1,5,6") == 0);
        lp = lpDeleteRange(lp, -3, 2);
        CHECK(strcmp(joined(lp), "0,6") == 0);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        lpFree(lp);

        lp = from_list("a,b,c,d,e");
        unsigned char *p = lpSeek(lp, 1);
        lp = lpDeleteRangeWithEntry(lp, &p, 2);
        CHECK(entry_is(p, "d") && strcmp(joined(lp), "a,d,e") == 0 && hdr_count(lp) == 3);
        lp = lpDeleteRangeWithEntry(lp, &p, 50);
        CHECK(p == NULL && strcmp(joined(lp), "a") == 0 && hdr_count(lp) == 1);
        p = lpFirst(lp);
        lp = lpDeleteRangeWithEntry(lp, &p, 0);
        CHECK(p == lpFirst(lp));
        lp = lpDeleteRangeWithEntry(lp, &p, 1);
        CHECK(p == NULL && lpBytes(lp) == 7);
        lpFree(lp);
    }

    TEST("merge") {
        unsigned char *a = from_list("a,1,b"), *b = from_list("300,c");
        unsigned char *ref = from_list("a,1,b,300,c");
        a = lpMerge(a, b);
        CHECK(lpBytes(a) == lpBytes(ref) && memcmp(a, ref, lpBytes(a)) == 0);
        a = lpMerge(a, lpNew(0));
        CHECK(lpBytes(a) == lpBytes(ref) && memcmp(a, ref, lpBytes(a)) == 0);
        unsigned char *e = lpMerge(lpNew(0), a);
        CHECK(lpBytes(e) == lpBytes(ref) && memcmp(e, ref, lpBytes(e)) == 0);
        CHECK(lpMerge(e, NULL) == e);
        CHECK(lpMerge(NULL, e) == e);
        lpFree(e);
        lpFree(ref);
        /* Counts saturate. */
        unsigned char *x = lpNew(0), *y = lpNew(0);
        for (int i = 0; i < 40000; i++) {
            x = lpAppendInteger(x, i);
            y = lpAppendInteger(y, -i);
        }
        x = lpMerge(x, y);
        CHECK(hdr_count(x) == 65535 && lpLength(x) == 80000);
        CHECK(lpValidateIntegrity(x, lpBytes(x), 1));
        CHECK(entry_is(lpSeek(x, 40001), "-1"));
        lpFree(x);
    }

    TEST("iteration both directions and lpSeek") {
        unsigned char *lp = from_list("a,b,c,d,e,f,g");
        const char *names[] = {"a", "b", "c", "d", "e", "f", "g"};
        int ok = 1, i = 0;
        for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) ok &= entry_is(p, names[i++]);
        ok &= i == 7;
        for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) ok &= entry_is(p, names[--i]);
        ok &= i == 0;
        for (long k = -7; k < 7; k++) ok &= entry_is(lpSeek(lp, k), names[k < 0 ? k + 7 : k]);
        ok &= lpSeek(lp, 7) == NULL && lpSeek(lp, -8) == NULL && lpSeek(lp, LONG_MIN) == NULL &&
              lpSeek(lp, LONG_MAX) == NULL;
        ok &= lpPrev(lp, lp + lpBytes(lp) - 1) == lpLast(lp);
        CHECK(ok);
        lpFree(lp);
    }

    TEST("lpFind with skip, integers by value, lpCompare") {
        unsigned char *lp = from_list("f1,1,f2,hello,3,f1,007,x,,empty");
        unsigned char *first = lpFirst(lp);
        CHECK(lpFind(lp, first, (const unsigned char *)"f1", 2, 1) == lpSeek(lp, 0));
        /* "3" appears at a value position (4 is a key position: skip=1 only
         * looks at even indexes). */
        CHECK(lpFind(lp, first, (const unsigned char *)"3", 1, 1) == lpSeek(lp, 4));
        CHECK(lpFind(lp, first, (const unsigned char *)"f1", 2, 0) == lpSeek(lp, 0));
        CHECK(lpFind(lp, lpSeek(lp, 1), (const unsigned char *)"f1", 2, 1) == lpSeek(lp, 5));
        CHECK(lpFind(lp, lpSeek(lp, 1), (const unsigned char *)"1", 1, 0) == lpSeek(lp, 1));
        CHECK(lpFind(lp, first, (const unsigned char *)"1", 1, 1) == NULL);
        CHECK(lpFind(lp, first, (const unsigned char *)"01", 2, 0) == NULL);
        CHECK(lpFind(lp, first, (const unsigned char *)"007", 3, 0) == lpSeek(lp, 6));
        CHECK(lpFind(lp, first, (const unsigned char *)"7", 1, 0) == NULL);
        CHECK(lpFind(lp, first, (const unsigned char *)"", 0, 0) == lpSeek(lp, 8));
        CHECK(lpFind(lp, first, (const unsigned char *)"", 0, 1) == lpSeek(lp, 8));
        CHECK(lpFind(lp, first, (const unsigned char *)"empty", 5, 1) == NULL);
        CHECK(lpFind(lp, first, (const unsigned char *)"empty", 5, 0) == lpSeek(lp, 9));
        CHECK(lpFind(lp, first, (const unsigned char *)"hell", 4, 0) == NULL);
        CHECK(lpFind(lp, first, (const unsigned char *)"x", 1, 2) == NULL);
        CHECK(lpFind(lp, first, (const unsigned char *)"x", 1, 6) == lpSeek(lp, 7));
        CHECK(lpCompare(lpSeek(lp, 1), (const unsigned char *)"1", 1));
        CHECK(!lpCompare(lpSeek(lp, 1), (const unsigned char *)"01", 2));
        CHECK(!lpCompare(lpSeek(lp, 1), (const unsigned char *)"2", 1));
        CHECK(lpCompare(lpSeek(lp, 3), (const unsigned char *)"hello", 5));
        CHECK(!lpCompare(lpSeek(lp, 3), (const unsigned char *)"hellO", 5));
        CHECK(!lpCompare(lp + lpBytes(lp) - 1, (const unsigned char *)"", 0));
        lpFree(lp);
        /* Large integers and long strings in a field/value layout. */
        lp = lpNew(0);
        unsigned char longs[5000];
        memset(longs, 'L', sizeof(longs));
        for (int i = 0; i < 100; i++) {
            lp = lpAppendInteger(lp, (long long)i * 1000000007LL - 50000000000LL);
            lp = lpAppend(lp, longs, (uint32_t)(i * 50));
        }
        int ok = 1;
        for (int i = 0; i < 100; i++) {
            char k[32];
            int n = ll2string(k, sizeof(k), (long long)i * 1000000007LL - 50000000000LL);
            ok &= lpFind(lp, lpFirst(lp), (unsigned char *)k, (uint32_t)n, 1) == lpSeek(lp, 2 * i);
            ok &= lpFind(lp, lpSeek(lp, 1), longs, (uint32_t)(i * 50), 1) ==
                  (i == 0 ? lpSeek(lp, 1) : lpSeek(lp, 2 * i + 1));
        }
        CHECK(ok);
        lpFree(lp);
    }

    TEST("element count saturates at 65535 and recovers") {
        unsigned char *lp = lpNew(0);
        for (int i = 0; i < 65534; i++) lp = lpAppendInteger(lp, i & 127);
        CHECK(hdr_count(lp) == 65534 && lpLength(lp) == 65534);
        lp = lpAppendInteger(lp, 1);
        CHECK(hdr_count(lp) == 65535 && lpLength(lp) == 65535);
        for (int i = 0; i < 10; i++) lp = lpPrependInteger(lp, 2);
        CHECK(hdr_count(lp) == 65535 && lpLength(lp) == 65545);
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        lp = lpDeleteRange(lp, 0, 11);
        CHECK(hdr_count(lp) == 65535); /* deletes do not recount */
        CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1));
        CHECK(lpLength(lp) == 65534 && hdr_count(lp) == 65534);
        lp = lpDelete(lp, lpFirst(lp), NULL);
        CHECK(hdr_count(lp) == 65533);
        /* Seeking with an unknown count from both ends. */
        for (int i = 0; i < 5; i++) lp = lpAppendInteger(lp, 100000 + i);
        CHECK(hdr_count(lp) == 65535);
        CHECK(entry_is(lpSeek(lp, -1), "100004") && entry_is(lpSeek(lp, -5), "100000"));
        CHECK(entry_is(lpSeek(lp, 65533), "100000"));
        CHECK(lpSeek(lp, 65538) == NULL && lpSeek(lp, -65539) == NULL);
        lp = lpDeleteRange(lp, -2, 5);
        CHECK(entry_is(lpLast(lp), "100002") && lpLength(lp) == 65536);
        lpFree(lp);
    }

    TEST("validation rejects corrupted blobs") {
        const unsigned char *h = redis_h;
        size_t hn = sizeof(redis_h) - 1;
        unsigned char b[64];
        CHECK(validate_copy(h, hn, 1) && validate_copy(h, hn, 0));
        CHECK(!validate_copy(h, 0, 0) && !validate_copy(h, 6, 0));
        CHECK(!validate_copy(h, hn - 1, 0)); /* truncated: size != header */
        for (size_t n = 0; n < hn; n++) {    /* truncated with a patched total */
            memcpy(b, h, n);
            if (n >= 4) b[0] = (unsigned char)n;
            if (n >= 1) b[n - 1] = 0xff;
            CHECK(!validate_copy(b, n, 1));
        }
        memcpy(b, h, hn);
        b[hn - 1] = 0xfe; /* no terminator */
        CHECK(!validate_copy(b, hn, 0));
        memcpy(b, h, hn);
        b[4] = 5; /* wrong element count: only a deep check sees it */
        CHECK(validate_copy(b, hn, 0) && !validate_copy(b, hn, 1));
        b[4] = 0xff;
        b[5] = 0xff; /* unknown count is accepted */
        CHECK(validate_copy(b, hn, 1));
        memcpy(b, h, hn);
        b[8] = 0x03; /* bad backlen of "a" */
        CHECK(validate_copy(b, hn, 0) && !validate_copy(b, hn, 1));
        memcpy(b, h, hn);
        b[9] = 0xf5; /* invalid encoding byte */
        CHECK(!validate_copy(b, hn, 1));
        memcpy(b, h, hn);
        b[9] = 0xff; /* EOF in the middle */
        CHECK(!validate_copy(b, hn, 1));
        memcpy(b, h, hn);
        b[14] = 0xbf; /* "hello" claims 63 bytes: runs past the end */
        CHECK(!validate_copy(b, hn, 1));
        /* 32-bit string length near 4G. */
        unsigned char s32[] = {16,   0,    0,    0,    1,    0,    0xf0, 0xff,
                               0xff, 0xff, 0xff, 0x05, 0x06, 0x07, 0x08, 0xff};
        CHECK(!validate_copy(s32, sizeof(s32), 1));
        unsigned char st[] = {10, 0, 0, 0, 1, 0, 0xf0, 0x01, 0xff, 0xff};
        CHECK(!validate_copy(st, sizeof(st), 1));
        unsigned char i64[] = {12, 0, 0, 0, 1, 0, 0xf4, 1, 2, 3, 4, 0xff}; /* int cut short */
        CHECK(!validate_copy(i64, sizeof(i64), 1));
        unsigned char e12[] = {8, 0, 0, 0, 1, 0, 0xe1, 0xff}; /* 12-bit header cut */
        CHECK(!validate_copy(e12, sizeof(e12), 1));
        /* A non-canonical (2-byte) backlen for a 1-byte entry. */
        unsigned char nb[] = {10, 0, 0, 0, 1, 0, 0x05, 0x00, 0x81, 0xff};
        CHECK(!validate_copy(nb, sizeof(nb), 1));
        unsigned char ok1[] = {9, 0, 0, 0, 1, 0, 0x05, 0x01, 0xff};
        CHECK(validate_copy(ok1, sizeof(ok1), 1));
        CHECK(!lpValidateIntegrity(NULL, 0, 0));
    }

    TEST("validation fuzz: mutated and truncated blobs never overread") {
        /* Build a blob with every encoding, then corrupt it many ways; a
         * blob that still validates must also be walkable both ways. */
        unsigned char *lp = lpNew(0);
        unsigned char s[300];
        memset(s, 'm', sizeof(s));
        long long ints[] = {5, -5, 3000, -30000, 5000000, -2000000000, 1LL << 40};
        for (int i = 0; i < 7; i++) {
            lp = lpAppendInteger(lp, ints[i]);
            lp = lpAppend(lp, s, (uint32_t)(i * 45));
        }
        size_t n = lpBytes(lp);
        unsigned char *buf = malloc(n);
        int walked = 1, rejected = 0;
        for (int iter = 0; iter < 20000; iter++) {
            memcpy(buf, lp, n);
            size_t len = n;
            int kind = iter % 4;
            int flips = 1 + (int)(rnd32() % 4);
            for (int f = 0; f < flips; f++) {
                size_t at = rnd32() % n;
                if (kind == 0)
                    buf[at] = (unsigned char)rnd32();
                else if (kind == 1)
                    buf[at] ^= (unsigned char)(1u << (rnd32() % 8));
                else if (kind == 2 && at >= 6)
                    buf[at] = (unsigned char)(0xf0 + rnd32() % 16);
            }
            if (kind == 3) { /* truncate, keeping the header and EOF consistent */
                len = 7 + rnd32() % (n - 7);
                buf[0] = (unsigned char)len;
                buf[1] = (unsigned char)(len >> 8);
                buf[len - 1] = 0xff;
            }
            unsigned char *c = malloc(len);
            memcpy(c, buf, len);
            if (lpValidateIntegrity(c, len, 1)) {
                unsigned char *z = zmalloc(len);
                memcpy(z, c, len);
                walked &= walk_both(z) >= 0;
                lpFree(z);
            } else {
                rejected++;
            }
            free(c);
        }
        CHECK(walked);
        CHECK(rejected > 1000);
        free(buf);
        lpFree(lp);
    }

    TEST("random entries and lpSafeToAdd") {
        unsigned char *lp = from_list("a,b,c,d");
        int seen[4] = {0}, ok = 1;
        for (int i = 0; i < 400; i++) {
            unsigned long idx = 99;
            unsigned char *p = lpRandomEntry(lp, &idx);
            ok &= idx < 4 && p == lpSeek(lp, (long)idx);
            if (idx < 4) seen[idx]++;
        }
        CHECK(ok && seen[0] && seen[1] && seen[2] && seen[3]);
        CHECK(lpSafeToAdd(lp, 1000));
        CHECK(lpSafeToAdd(NULL, 1UL << 30));
        CHECK(!lpSafeToAdd(NULL, (1UL << 30) + 1));
        CHECK(!lpSafeToAdd(lp, (1UL << 30) - 10));
        lpFree(lp);
    }

    TEST("randomized model test against an array") {
        melem *m = NULL;
        size_t mlen = 0, mcap = 0;
        unsigned char *lp = lpNew(0);
        char *buf = malloc(8192);
        int ok = 1;
        for (int op = 0; op < 30000 && ok; op++) {
            int r = (int)(rnd32() % 100);
            if (mlen + 1 > mcap) {
                mcap = mcap ? mcap * 2 : 16;
                m = realloc(m, mcap * sizeof(*m));
            }
            if (r < 25 || mlen == 0) { /* append / prepend */
                size_t n = random_elem(buf);
                int front = r % 2;
                lp = front ? lpPrepend(lp, (unsigned char *)buf, (uint32_t)n)
                           : lpAppend(lp, (unsigned char *)buf, (uint32_t)n);
                size_t at = front ? 0 : mlen;
                memmove(m + at + 1, m + at, (mlen - at) * sizeof(*m));
                m[at].s = malloc(n + 1);
                memcpy(m[at].s, buf, n);
                m[at].n = n;
                mlen++;
            } else if (r < 45) { /* insert before/after index */
                size_t n = random_elem(buf);
                size_t idx = rnd32() % mlen;
                int after = r % 2;
                unsigned char *np = NULL;
                lp = lpInsertString(lp, (unsigned char *)buf, (uint32_t)n, lpSeek(lp, (long)idx),
                                    after ? LP_AFTER : LP_BEFORE, &np);
                size_t at = idx + (size_t)after;
                memmove(m + at + 1, m + at, (mlen - at) * sizeof(*m));
                m[at].s = malloc(n + 1);
                memcpy(m[at].s, buf, n);
                m[at].n = n;
                mlen++;
                ok &= np == lpSeek(lp, (long)at);
            } else if (r < 60) { /* replace */
                size_t n = random_elem(buf);
                size_t idx = rnd32() % mlen;
                unsigned char *p = lpSeek(lp, -(long)(mlen - idx));
                lp = lpReplace(lp, &p, (unsigned char *)buf, (uint32_t)n);
                ok &= p == lpSeek(lp, (long)idx);
                free(m[idx].s);
                m[idx].s = malloc(n + 1);
                memcpy(m[idx].s, buf, n);
                m[idx].n = n;
            } else if (r < 75) { /* delete one */
                size_t idx = rnd32() % mlen;
                unsigned char *np;
                lp = lpDelete(lp, lpSeek(lp, (long)idx), &np);
                free(m[idx].s);
                memmove(m + idx, m + idx + 1, (mlen - idx - 1) * sizeof(*m));
                mlen--;
                ok &= np == (idx < mlen ? lpSeek(lp, (long)idx) : NULL);
            } else if (r < 80) { /* delete a range */
                size_t idx = rnd32() % mlen;
                size_t num = rnd32() % 6;
                long index = (r % 2) ? (long)idx : (long)idx - (long)mlen;
                lp = lpDeleteRange(lp, index, num);
                size_t del = num < mlen - idx ? num : mlen - idx;
                for (size_t k = idx; k < idx + del; k++) free(m[k].s);
                memmove(m + idx, m + idx + del, (mlen - idx - del) * sizeof(*m));
                mlen -= del;
            } else { /* find an existing element, check seek */
                size_t idx = rnd32() % mlen;
                unsigned char *p =
                    lpFind(lp, lpFirst(lp), (unsigned char *)m[idx].s, (uint32_t)m[idx].n, 0);
                size_t first = 0;
                while (m[first].n != m[idx].n || memcmp(m[first].s, m[idx].s, m[idx].n) != 0)
                    first++;
                ok &= p == lpSeek(lp, (long)first);
                ok &=
                    lpCompare(lpSeek(lp, (long)idx), (unsigned char *)m[idx].s, (uint32_t)m[idx].n);
            }
            if (op % 500 == 0) ok &= model_matches(lp, m, mlen);
            if (mlen > 300) { /* keep it small enough to stay fast */
                for (size_t k = 0; k < mlen; k++) free(m[k].s);
                mlen = 0;
                lp = lpDeleteRange(lp, 0, lpLength(lp));
                ok &= lpBytes(lp) == 7;
            }
        }
        ok &= model_matches(lp, m, mlen);
        /* Rebuilding from the model with appends gives the same bytes: the
         * encoding depends only on the values. */
        unsigned char *again = lpNew(0);
        for (size_t k = 0; k < mlen; k++)
            again = lpAppend(again, (unsigned char *)m[k].s, (uint32_t)m[k].n);
        ok &= lpBytes(again) == lpBytes(lp) && memcmp(again, lp, lpBytes(lp)) == 0;
        lpFree(again);
        CHECK(ok);
        for (size_t k = 0; k < mlen; k++) free(m[k].s);
        free(m);
        free(buf);
        lpFree(lp);
    }

    TEST("no memory leaked") {
        CHECK(zmalloc_used_memory() == mem_at_start);
    }

    return TEST_REPORT();
}
