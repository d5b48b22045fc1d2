/* test_sds.c: unit tests for src/sds.c (and the zmalloc accounting it relies
 * on). Expected sdscatrepr/sdssplitargs outputs follow Redis 7.0's
 * observable behaviour (redis-cli / redis.conf quoting). */
#include <limits.h>
#include <string.h>

#include "sds.h"
#include "test.h"
#include "zmalloc.h"

static int sds_type_of(const sds s) {
    return (unsigned char)s[-1] & SDS_TYPE_MASK;
}

static int sds_eq(const sds s, const char *buf, size_t len) {
    return sdslen(s) == len && memcmp(s, buf, len) == 0 && s[len] == '\0';
}

static int sds_eqs(const sds s, const char *cstr) {
    return sds_eq(s, cstr, strlen(cstr));
}

/* Capacity recorded in the header must never exceed what the block holds. */
static int sds_alloc_sane(const sds s) {
    size_t hdr = (size_t)(s - (char *)sdsAllocPtr(s));
    return sdsalloc(s) >= sdslen(s) && hdr + sdsalloc(s) + 1 <= sdsAllocSize(s);
}

int main(void) {
    size_t mem_at_start = zmalloc_used_memory();

    TEST("zmalloc accounting and lib name") {
        size_t before = zmalloc_used_memory();
        size_t usable = 0;
        void *p = zmalloc_usable(100, &usable);
        CHECK(usable >= 100);
        CHECK(zmalloc_size(p) == usable);
        CHECK(zmalloc_used_memory() == before + usable);
        p = zrealloc_usable(p, 5000, &usable);
        CHECK(usable >= 5000);
        CHECK(zmalloc_used_memory() == before + usable);
        zfree(p);
        CHECK(zmalloc_used_memory() == before);
        char *d = zstrdup("hello");
        CHECK(strcmp(d, "hello") == 0);
        zfree(d);
        unsigned char *z = zcalloc(64);
        int allzero = 1;
        for (int i = 0; i < 64; i++) allzero &= z[i] == 0;
        CHECK(allzero);
        zfree(z);
        CHECK(zrealloc(zmalloc(10), 0) == NULL);
        zfree(NULL);
        CHECK(zmalloc_used_memory() == before);
        CHECK(zmalloc_get_rss() > 0);
        const char *lib = zmalloc_lib();
        CHECK(strncmp(lib, "jemalloc-", 9) == 0 || strcmp(lib, "libc") == 0);
        printf("  (allocator: %s)\n", lib);
    }

    TEST("sdsnew / sdsempty / sdsdup basics") {
        sds s = sdsnew("foo");
        CHECK(sds_eqs(s, "foo"));
        CHECK(sds_type_of(s) == SDS_TYPE_8);
        sds e = sdsempty();
        CHECK(sdslen(e) == 0 && e[0] == '\0');
        CHECK(sds_type_of(e) == SDS_TYPE_8);
        sds d = sdsdup(s);
        CHECK(d != s && sds_eqs(d, "foo"));
        sds z = sdsnewlen(NULL, 5);
        CHECK(sds_eq(z, "\0\0\0\0\0", 5));
        sds b = sdsnewlen("a\0b", 3);
        CHECK(sds_eq(b, "a\0b", 3));
        sds n = sdsnew(NULL);
        CHECK(sdslen(n) == 0);
        sdsfree(s);
        sdsfree(e);
        sdsfree(d);
        sdsfree(z);
        sdsfree(b);
        sdsfree(n);
        sdsfree(NULL);
    }

    TEST("sdsnewlen picks the smallest non-5 type at each boundary") {
        static const struct {
            size_t len;
            int type;
        } cases[] = {{0, SDS_TYPE_8},     {31, SDS_TYPE_8},   {32, SDS_TYPE_8},
                     {255, SDS_TYPE_8},   {256, SDS_TYPE_16}, {65535, SDS_TYPE_16},
                     {65536, SDS_TYPE_32}};
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            sds s = sdsnewlen(NULL, cases[i].len);
            CHECK(sdslen(s) == cases[i].len);
            CHECK(sds_type_of(s) == cases[i].type);
            CHECK(sds_alloc_sane(s));
            CHECK(s[cases[i].len] == '\0');
            sdsfree(s);
        }
    }

    TEST("sdsnewkey uses type 5 below 32 bytes") {
        static const struct {
            size_t len;
            int type;
        } cases[] = {{0, SDS_TYPE_5},      {1, SDS_TYPE_5},     {31, SDS_TYPE_5},
                     {32, SDS_TYPE_8},     {255, SDS_TYPE_8},   {256, SDS_TYPE_16},
                     {65535, SDS_TYPE_16}, {65536, SDS_TYPE_32}};
        char buf[70000];
        for (size_t i = 0; i < sizeof(buf); i++) buf[i] = (char)('a' + i % 26);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            sds s = sdsnewkey(buf, cases[i].len);
            CHECK(sds_eq(s, buf, cases[i].len));
            CHECK(sds_type_of(s) == cases[i].type);
            CHECK(sds_alloc_sane(s));
            if (cases[i].type == SDS_TYPE_5) {
                CHECK(sdsavail(s) == 0);
                CHECK(sdsalloc(s) == sdslen(s));
                CHECK((char *)sdsAllocPtr(s) == s - 1);
            }
            sdsfree(s);
        }
    }

    TEST("type 5 key promoted on append") {
        sds s = sdsnewkey("key", 3);
        CHECK(sds_type_of(s) == SDS_TYPE_5);
        s = sdscat(s, "x");
        CHECK(sds_type_of(s) != SDS_TYPE_5);
        CHECK(sds_eqs(s, "keyx"));
        CHECK(sdsavail(s) > 0);
        sdsfree(s);
        /* Appending nothing needs no capacity, so it stays put. */
        sds k = sdsnewkey("abc", 3);
        k = sdscatlen(k, "", 0);
        CHECK(sds_type_of(k) == SDS_TYPE_5 && sds_eqs(k, "abc"));
        sdsclear(k);
        CHECK(sdslen(k) == 0 && k[0] == '\0' && sds_type_of(k) == SDS_TYPE_5);
        sdsfree(k);
    }

    TEST("sdscatlen growth and type promotion") {
        sds s = sdsempty();
        char chunk[100];
        memset(chunk, 'x', sizeof(chunk));
        int saw16 = 0, saw32 = 0, ok = 1;
        size_t reallocs = 0, lastalloc = sdsalloc(s);
        for (int i = 0; i < 2000; i++) {
            s = sdscatlen(s, chunk, sizeof(chunk));
            if (sdslen(s) != (size_t)(i + 1) * 100) ok = 0;
            if (!sds_alloc_sane(s)) ok = 0;
            if (sds_type_of(s) == SDS_TYPE_16) saw16 = 1;
            if (sds_type_of(s) == SDS_TYPE_32) saw32 = 1;
            if (sdsalloc(s) != lastalloc) reallocs++, lastalloc = sdsalloc(s);
        }
        CHECK(ok);
        CHECK(saw16 && saw32);
        /* Greedy doubling: 200KB in 2000 appends takes only a handful of
         * reallocations. */
        CHECK(reallocs < 20);
        size_t allx = 1;
        for (size_t i = 0; i < sdslen(s); i++) allx &= s[i] == 'x';
        CHECK(allx && s[sdslen(s)] == '\0');
        sdsfree(s);
    }

    TEST("sdsMakeRoomFor greedy vs non-greedy") {
        sds s = sdsnew("hello");
        s = sdsMakeRoomFor(s, 1000);
        CHECK(sdsavail(s) >= 1000);
        CHECK(sdsalloc(s) >= 2 * 1005); /* doubled below 1MB */
        CHECK(sds_type_of(s) == SDS_TYPE_16);
        CHECK(sds_eqs(s, "hello"));
        sdsfree(s);

        s = sdsnew("hello");
        s = sdsMakeRoomForNonGreedy(s, 1000);
        CHECK(sdsavail(s) >= 1000);
        CHECK(sdsalloc(s) < 2 * 1005);
        CHECK(sds_eqs(s, "hello"));
        sdsfree(s);

        /* Above 1MB the growth is +1MB, not doubling. */
        s = sdsnewlen(NULL, 2 * SDS_MAX_PREALLOC);
        size_t need = sdslen(s) + sdsavail(s) + 1; /* just past the slack */
        s = sdsMakeRoomFor(s, sdsavail(s) + 1);
        CHECK(sdsalloc(s) >= need + SDS_MAX_PREALLOC);
        CHECK(sdsalloc(s) < 4 * SDS_MAX_PREALLOC);
        sdsfree(s);

        /* Already enough room: same pointer back. */
        s = sdsMakeRoomFor(sdsempty(), 100);
        sds same = sdsMakeRoomFor(s, 10);
        CHECK(same == s);
        sdsfree(same);
    }

    TEST("type 8 alloc clamped to 255") {
        sds s = sdsnewlen(NULL, 250);
        CHECK(sds_type_of(s) == SDS_TYPE_8);
        CHECK(sdsalloc(s) <= 255);
        s = sdsMakeRoomForNonGreedy(s, 5);
        CHECK(sdsalloc(s) >= 255 && sds_alloc_sane(s));
        s = sdsMakeRoomForNonGreedy(s, 6);
        CHECK(sds_type_of(s) == SDS_TYPE_16 && sdslen(s) == 250 && sdsavail(s) >= 6);
        sdsfree(s);
    }

    TEST("sdsIncrLen / sdssetlen / sdsgrowzero") {
        sds s = sdsnew("abc");
        s = sdsMakeRoomFor(s, 10);
        memcpy(s + 3, "defg", 4);
        sdsIncrLen(s, 4);
        CHECK(sds_eqs(s, "abcdefg"));
        sdsIncrLen(s, -2);
        CHECK(sds_eqs(s, "abcde"));
        sdsIncrLen(s, -5);
        CHECK(sds_eqs(s, ""));
        sdsfree(s);

        s = sdsnew("ab");
        s = sdsgrowzero(s, 6);
        CHECK(sds_eq(s, "ab\0\0\0\0", 6));
        s = sdsgrowzero(s, 3); /* shrinking request is a no-op */
        CHECK(sdslen(s) == 6);
        sdssetlen(s, 1);
        CHECK(sdslen(s) == 1);
        sdsfree(s);
    }

    TEST("sdsnewlenuninit") {
        sds s = sdsnewlenuninit(300);
        CHECK(sdslen(s) == 300 && s[300] == '\0');
        CHECK(sds_type_of(s) == SDS_TYPE_16);
        memset(s, 'q', 300);
        CHECK(sds_alloc_sane(s));
        sdsfree(s);
    }

    TEST("sdscpy / sdscat / sdscatsds") {
        sds s = sdsnew("foo");
        s = sdscpy(s, "a");
        CHECK(sds_eqs(s, "a"));
        s = sdscpy(s, "xyzxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        CHECK(sds_eqs(s, "xyzxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
        sds t = sdsnew("bar");
        s = sdscpy(s, "foo");
        s = sdscatsds(s, t);
        s = sdscat(s, "!");
        CHECK(sds_eqs(s, "foobar!"));
        sds k = sdsnewkey("longer-key-value", 16);
        k = sdscpylen(k, "tiny", 4);
        CHECK(sds_eqs(k, "tiny"));
        k = sdscpylen(k, "much-longer-than-before-0123456789", 34);
        CHECK(sds_eqs(k, "much-longer-than-before-0123456789"));
        sdsfree(s);
        sdsfree(t);
        sdsfree(k);
    }

    TEST("sdscatprintf / sdsfromlonglong") {
        sds s = sdscatprintf(sdsempty(), "%d %s", 123, "abc");
        CHECK(sds_eqs(s, "123 abc"));
        s = sdscatprintf(s, "%c", 0);
        CHECK(sds_eq(s, "123 abc\0", 8));
        sdsfree(s);
        char big[3000];
        memset(big, 'z', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        s = sdscatprintf(sdsnew("<"), "%s>", big);
        CHECK(sdslen(s) == 3001 && s[0] == '<' && s[3000] == '>' && s[1500] == 'z');
        CHECK(s[3001] == '\0');
        sdsfree(s);
        s = sdsfromlonglong(LLONG_MIN);
        CHECK(sds_eqs(s, "-9223372036854775808"));
        sdsfree(s);
        s = sdsfromlonglong(LLONG_MAX);
        CHECK(sds_eqs(s, "9223372036854775807"));
        sdsfree(s);
        s = sdsfromlonglong(0);
        CHECK(sds_eqs(s, "0"));
        sdsfree(s);
    }

    TEST("sdsrange") {
        static const struct {
            const char *in;
            ssize_t start, end;
            const char *out;
        } cases[] = {
            {"Hello World", 1, 1, "e"},
            {"Hello World", 1, -1, "ello World"},
            {"Hello World", -2, -1, "ld"},
            {"Hello World", 2, 1, ""},
            {"Hello World", 1, 100, "ello World"},
            {"Hello World", 100, 100, ""},
            {"Hello World", 0, 0, "H"},
            {"Hello World", -100, -100, "H"}, /* Redis clamps both to 0 */
            {"Hello World", -100, 2, "Hel"},
            {"Hello World", 0, -1, "Hello World"},
            {"Hello World", -1, -1, "d"},
            {"Hello World", 11, -1, ""},
            {"Hello World", 10, 10, "d"},
            {"", 0, 0, ""},
            {"", -1, 5, ""},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            sds s = sdsnew(cases[i].in);
            sdsrange(s, cases[i].start, cases[i].end);
            if (!sds_eqs(s, cases[i].out))
                printf("  sdsrange(\"%s\", %zd, %zd) = \"%s\"\n", cases[i].in, cases[i].start,
                       cases[i].end, s);
            CHECK(sds_eqs(s, cases[i].out));
            sdsfree(s);
        }
    }

    TEST("sdstrim / sdscmp / case conversion") {
        sds s = sdsnew(" x\n ciao x\n");
        s = sdstrim(s, " x\n");
        CHECK(sds_eqs(s, "ciao"));
        s = sdscpy(s, "xxxx");
        s = sdstrim(s, "x");
        CHECK(sds_eqs(s, ""));
        sdsfree(s);

        sds a = sdsnew("foo"), b = sdsnew("foa"), c = sdsnew("foobar");
        CHECK(sdscmp(a, b) > 0 && sdscmp(b, a) < 0);
        CHECK(sdscmp(a, c) < 0 && sdscmp(c, a) > 0);
        CHECK(sdscmp(a, a) == 0);
        sds e1 = sdsempty(), e2 = sdsempty();
        CHECK(sdscmp(e1, e2) == 0 && sdscmp(e1, a) < 0);
        sds hi = sdsnewlen("\xff", 1);
        CHECK(sdscmp(hi, a) > 0); /* unsigned byte order */
        sds u = sdsnew("MiXeD 123");
        sdstolower(u);
        CHECK(sds_eqs(u, "mixed 123"));
        sdstoupper(u);
        CHECK(sds_eqs(u, "MIXED 123"));
        sdsfree(a);
        sdsfree(b);
        sdsfree(c);
        sdsfree(e1);
        sdsfree(e2);
        sdsfree(hi);
        sdsfree(u);
    }

    TEST("sdsRemoveFreeSpace / sdsAllocSize") {
        sds s = sdsnew("abc");
        s = sdsMakeRoomFor(s, 100000);
        CHECK(sds_type_of(s) == SDS_TYPE_32);
        size_t big = sdsAllocSize(s);
        s = sdsRemoveFreeSpace(s);
        CHECK(sds_eqs(s, "abc"));
        CHECK(sds_type_of(s) == SDS_TYPE_8);
        CHECK(sdsAllocSize(s) < big);
        CHECK(sdsalloc(s) < 64);
        CHECK(sds_alloc_sane(s));
        sdsfree(s);
        s = sdsnewkey("k", 1);
        CHECK(sdsRemoveFreeSpace(s) == s);
        sdsfree(s);
    }

    TEST("sdscatrepr") {
        sds s = sdscatrepr(sdsempty(), "\a\n\0foo\r", 7);
        CHECK(sds_eqs(s, "\"\\a\\n\\x00foo\\r\""));
        sdsfree(s);
        s = sdscatrepr(sdsnew("x="), "\"q\\\t\b\x7f\xff ~", 9);
        CHECK(sds_eqs(s, "x=\"\\\"q\\\\\\t\\b\\x7f\\xff ~\""));
        sdsfree(s);
        s = sdscatrepr(sdsempty(), "", 0);
        CHECK(sds_eqs(s, "\"\""));
        sdsfree(s);
        s = sdscatrepr(sdsempty(), "\x01\x1f\x80", 3);
        CHECK(sds_eqs(s, "\"\\x01\\x1f\\x80\""));
        sdsfree(s);
    }

    TEST("sdssplitargs valid input") {
        static const struct {
            const char *line;
            int argc;
            const char *argv[4];
            size_t lens[4];
        } cases[] = {
            {"", 0, {0}, {0}},
            {"   \t\n  ", 0, {0}, {0}},
            {"set key value", 3, {"set", "key", "value"}, {3, 3, 5}},
            {"  lead   and\ttrail  ", 3, {"lead", "and", "trail"}, {4, 3, 5}},
            {"\"a b\" 'c d'", 2, {"a b", "c d"}, {3, 3}},
            {"\"\\n\\r\\t\\b\\a\\\\\\\"\"", 1, {"\n\r\t\b\a\\\""}, {7}},
            {"\"\\x41\\x7a\\x00z\"", 1, {"Az\0z"}, {4}},
            {"\"\\xZZ\"", 1, {"xZZ"}, {3}}, /* not hex: \x is just x */
            {"\"\\x4\"", 1, {"x4"}, {2}},   /* needs two hex digits */
            {"\"\\q\\'\"", 1, {"q'"}, {2}}, /* unknown escape keeps char */
            {"'it\\'s'", 1, {"it's"}, {4}},
            {"'a\\nb'", 1, {"a\\nb"}, {4}}, /* no escapes in single quotes */
            {"'a\\b'", 1, {"a\\b"}, {3}},   /* lone backslash kept */
            {"\"\" ''", 2, {"", ""}, {0, 0}},
            {"foo\"bar baz\"", 1, {"foobar baz"}, {10}}, /* quote opens mid-token */
            {"a'b c'", 1, {"ab c"}, {4}},
            {"\"x\"\ty", 2, {"x", "y"}, {1, 1}},
            {"\"end\"", 1, {"end"}, {3}},
            {"a\vb", 1, {"a\vb"}, {3}}, /* \v separates only between tokens */
            {"\va", 1, {"a"}, {1}},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            int argc = -1;
            sds *argv = sdssplitargs(cases[i].line, &argc);
            CHECK(argv != NULL);
            if (!argv) continue;
            if (argc != cases[i].argc) printf("  case %zu: argc %d\n", i, argc);
            CHECK(argc == cases[i].argc);
            for (int j = 0; j < argc && j < cases[i].argc; j++) {
                if (!sds_eq(argv[j], cases[i].argv[j], cases[i].lens[j]))
                    printf("  case %zu arg %d: \"%s\"\n", i, j, argv[j]);
                CHECK(sds_eq(argv[j], cases[i].argv[j], cases[i].lens[j]));
            }
            sdsfreesplitres(argv, argc);
        }
    }

    TEST("sdssplitargs errors") {
        static const char *bad[] = {
            "\"unterminated", "'unterminated", "\"a\"b",     "'a'b",   "set \"k\"x v", "\"\\\"",
            "'\\'",           "\"abc\\",       "x \"y\"'z'", "'\\\\'", /* 2nd backslash escapes the
                                                                          quote */
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            int argc = 42;
            sds *argv = sdssplitargs(bad[i], &argc);
            if (argv) printf("  unexpectedly parsed: %s\n", bad[i]);
            CHECK(argv == NULL);
            CHECK(argc == 0);
        }
    }

    TEST("sdssplitlen / sdsjoin") {
        int count;
        sds *t = sdssplitlen("a,b,,c", 6, ",", 1, &count);
        CHECK(count == 4);
        CHECK(sds_eqs(t[0], "a") && sds_eqs(t[1], "b") && sds_eqs(t[2], "") && sds_eqs(t[3], "c"));
        sdsfreesplitres(t, count);
        t = sdssplitlen("foo--bar--", 10, "--", 2, &count);
        CHECK(count == 3);
        CHECK(sds_eqs(t[0], "foo") && sds_eqs(t[1], "bar") && sds_eqs(t[2], ""));
        sdsfreesplitres(t, count);
        t = sdssplitlen("", 0, ",", 1, &count);
        CHECK(t != NULL && count == 0);
        sdsfreesplitres(t, count);
        t = sdssplitlen("abc", 3, "", 0, &count);
        CHECK(t == NULL && count == 0);
        t = sdssplitlen("a", 1, "long-sep", 8, &count);
        CHECK(count == 1 && sds_eqs(t[0], "a"));
        sdsfreesplitres(t, count);
        /* Many tokens force the token array to grow. */
        t = sdssplitlen("1 2 3 4 5 6 7 8 9 10 11 12", 26, " ", 1, &count);
        CHECK(count == 12 && sds_eqs(t[11], "12"));
        sdsfreesplitres(t, count);

        char *parts[] = {"a", "b", "c"};
        sds j = sdsjoin(parts, 3, ", ");
        CHECK(sds_eqs(j, "a, b, c"));
        sdsfree(j);
        j = sdsjoin(parts, 0, ",");
        CHECK(sds_eqs(j, ""));
        sdsfree(j);
    }

    TEST("no leaked memory after all sds tests") {
        CHECK(zmalloc_used_memory() == mem_at_start);
    }

    return TEST_REPORT();
}
