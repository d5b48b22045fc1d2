/* test_util.c: unit tests for src/util.c. The expected values in the
 * INCRBYFLOAT, ZSCORE, CONFIG SET maxmemory and KEYS tables below were
 * recorded from a real redis-server 7.0.15, so these tests pin cairn to
 * Redis' observable behaviour rather than to our reading of it. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"

/* Observed: SET k <a>; INCRBYFLOAT k <b>  ->  <out>. */
static const struct {
    const char *a, *b, *out;
} incrbyfloat_cases[] = {
    {"10.5", "0.1", "10.6"},
    {"3.0e3", "0", "3000"},
    {"5.0e3", "1", "5001"},
    {"0", "1e300",
     "100000000000000000000899732407955919387052394427329074793826008232126564659618093575584915208"
     "375049719035037250861427483590359255618467298391309626052074864628732713564184365329408425510"
     "760601678972665293237003055138294762099454029477278188962060617926761162709741065056718738610"
     "5690089424915104006144"},
    {"1", "-1", "0"},
    {"0", "-1e-18", "0"},
    {"1e-20", "0", "0"},
    {"0", "0.1", "0.1"},
    {"0", "1.1", "1.1"},
    {"0", "3.3333333333333333333", "3.33333333333333333"},
    {"0", "1e17", "100000000000000000"},
    {"0", "1.5e-17", "0.00000000000000002"},
    {"0", "123456789012345678", "123456789012345678"},
    {"0", "0.30000000000000004", "0.30000000000000004"},
    {"0", "1e10", "10000000000"},
    {"1", "0.2", "1.2"},
    {"0", ".5", "0.5"},
    {"0", "5.", "5"},
    {"0", "0x10", "16"},
    {"0", "+5", "5"},
    {"0", "1e-4940", "0"},
    {"-0", "0", "0"},
    {"0", "-0", "0"},
    {"17179869184", "1.5", "17179869185.5"},
    {"-1.5", "0.25", "-1.25"},
    {"9223372036854775807", "1", "9223372036854775808"},
    {"-9223372036854775808", "-1", "-9223372036854775809"},
    {"0.1", "0.2", "0.3"},
    {"1.23456789012345678", "0", "1.23456789012345678"},
    {"0", "-3.0e3", "-3000"},
    {"2.5", "-5", "-2.5"},
    {"0", "1e-17", "0.00000000000000001"},
    {"0", "5e-18", "0"},
    {"0", "-5e-18", "0"},
    {"0", "-6e-18", "-0.00000000000000001"},
    {"1e20", "0.5", "100000000000000000000"},
    {"0", "1E3", "1000"},
    {"0", "0.000001", "0.000001"},
    {"100", "-0.000000000000000001", "100"},
};

/* Observed via ZADD on a skiplist-encoded zset, then ZSCORE (RESP2 "%.17g"). */
static const struct {
    double v;
    const char *out;
} zscore_cases[] = {
    {1.1, "1.1000000000000001"},
    {0.1, "0.10000000000000001"},
    {3, "3"},
    {1e17, "1e+17"},
    {1e16, "10000000000000000"},
    {123456789012345678.0, "1.2345678901234568e+17"},
    {1.5e-7, "1.4999999999999999e-07"},
    {0.30000000000000004, "0.30000000000000004"},
    {1e300, "1.0000000000000001e+300"},
    {2.5, "2.5"},
    {-3.75, "-3.75"},
    {4.9e-324, "4.9406564584124654e-324"},
    {-0.0, "-0"},
    {0.0, "0"},
};

/* Observed: the set of KEYS matches over glob_strings for each pattern
 * ('1' = matched). KEYS "*" short-circuits in Redis, so for "*" vs "" the
 * value is Redis' stringmatchlen result, which "**" shows is no match. */
static const struct {
    const char *s;
    int len;
} glob_strings[] = {
    {"", 0},
    {"a", 1},
    {"b", 1},
    {"ab", 2},
    {"abc", 3},
    {"aBc", 3},
    {"hello", 5},
    {"hallo", 5},
    {"hxllo", 5},
    {"heello", 6},
    {"hllo", 4},
    {"h\\llo", 5},
    {"h*llo", 5},
    {"h?llo", 5},
    {"[", 1},
    {"]", 1},
    {"a]", 2},
    {"-", 1},
    {"^", 1},
    {"\\", 1},
    {"x-y", 3},
    {"foo:bar:baz", 11},
    {"foo", 3},
    {"fo", 2},
    {"foobar", 6},
    {"a*b", 3},
    {"A", 1},
    {"Z", 1},
    {"m", 1},
    {"]x", 2},
    {"abcabc", 6},
    {"aaab", 4},
    {"aaaa", 4},
    {"\xe9"
     "",
     1},
    {"\xff"
     "z",
     2},
    {"a\x00"
     "b",
     3},
};
static const struct {
    const char *p;
    int len;
    const char *expect;
} glob_cases[] = {
    {"", 0, "100000000000000000000000000000000000"},
    {"*", 1, "011111111111111111111111111111111111"},
    {"**", 2, "011111111111111111111111111111111111"},
    {"?", 1, "011000000000001101110000001110000100"},
    {"??", 2, "000100000000000010000001000001000010"},
    {"a", 1, "010000000000000000000000000000000000"},
    {"a*", 2, "010111000000000010000000010000111001"},
    {"*a", 2, "010000000000000000000000000000001000"},
    {"*b*", 3, "001110000000000000000100110000110001"},
    {"a?c", 3, "000011000000000000000000000000000000"},
    {"h?llo", 5, "000000111001110000000000000000000000"},
    {"h*llo", 5, "000000111111110000000000000000000000"},
    {"h[ae]llo", 8, "000000110000000000000000000000000000"},
    {"h[^e]llo", 8, "000000011001110000000000000000000000"},
    {"h[a-b]llo", 9, "000000010000000000000000000000000000"},
    {"h[b-a]llo", 9, "000000010000000000000000000000000000"},
    {"h\\*llo", 6, "000000000000100000000000000000000000"},
    {"h\\?llo", 6, "000000000000010000000000000000000000"},
    {"h\\\\llo", 6, "000000000001000000000000000000000000"},
    {"\\", 1, "000000000000000000010000000000000000"},
    {"a\\", 2, "000000000000000000000000000000000000"},
    {"[", 1, "000000000000000000000000000000000000"},
    {"[a", 2, "010000000000000000000000000000000000"},
    {"[^", 2, "011000000000001101110000001110000100"},
    {"[]]", 3, "000000000000000000000000000000000000"},
    {"[]", 2, "000000000000000000000000000000000000"},
    {"[a-]", 4, "010000000000000100100000000000000000"},
    {"[a-]x", 5, "010000000000000100100000000000000000"},
    {"[\\]]", 4, "000000000000000100000000000000000000"},
    {"[\\]", 3, "000000000000000100000000000000000000"},
    {"[-]", 3, "000000000000000001000000000000000000"},
    {"[^a]", 4, "001000000000001101110000001110000100"},
    {"[a-c]*", 6, "011111000000000010000000010000111001"},
    {"*[z-x]", 6, "000000000000000000001100000001000010"},
    {"foo:*:baz", 9, "000000000000000000000100000000000000"},
    {"foo*bar", 7, "000000000000000000000000100000000000"},
    {"f*o*o", 5, "000000000000000000000010000000000000"},
    {"*o*", 3, "000000111111110000000111100000000000"},
    {"a*b*c", 5, "000010000000000000000000000000100000"},
    {"*a*a*b", 6, "000000000000000000000000000000010000"},
    {"?*", 2, "011111111111111111111111111111111111"},
    {"*?", 2, "011111111111111111111111111111111111"},
    {"[\\-]", 4, "000000000000000001000000000000000000"},
    {"[a\\-c]", 6, "010000000000000001000000000000000000"},
    {"x[-]y", 5, "000000000000000000001000000000000000"},
    {"[!a]", 4, "010000000000000000000000000000000000"},
    {"[\xe0"
     "-\xff"
     "]",
     5, "000000000000000000000000000000000100"},
    {"[\x00"
     "-\xff"
     "]*",
     6, "000000000000000000000000000000000010"},
    {"[a-\xff"
     "]*",
     6, "010111000000001111110000011101111011"},
    {"a[]b", 4, "000000000000000000000000000000000000"},
    {"a\x00"
     "b",
     3, "000000000000000000000000000000000001"},
    {"a?b", 3, "000000000000000000000000010000000001"},
    {"[A-Z]", 5, "000000000000000000000000001100000000"},
    {"[a-z]", 5, "011000000000000000000000000010000000"},
};

int main(void) {
    TEST("digits10 / sdigits10") {
        CHECK(digits10(0) == 1);
        CHECK(digits10(9) == 1);
        CHECK(digits10(10) == 2);
        CHECK(digits10(99) == 2);
        CHECK(digits10(100) == 3);
        CHECK(digits10(9999) == 4);
        CHECK(digits10(10000) == 5);
        CHECK(digits10(999999999999ULL) == 12);
        CHECK(digits10(1000000000000ULL) == 13);
        CHECK(digits10(UINT64_MAX) == 20);
        uint64_t p = 1;
        int ok = 1;
        for (uint32_t d = 1; d <= 19; d++, p *= 10) {
            if (digits10(p) != d || digits10(p * 10 - 1) != d) ok = 0;
        }
        CHECK(ok);
        CHECK(sdigits10(0) == 1);
        CHECK(sdigits10(-1) == 2);
        CHECK(sdigits10(-10) == 3);
        CHECK(sdigits10(INT64_MAX) == 19);
        CHECK(sdigits10(INT64_MIN) == 20);
    }

    TEST("ll2string / ull2string") {
        char buf[LONG_STR_SIZE];
        CHECK(ll2string(buf, sizeof(buf), 0) == 1 && strcmp(buf, "0") == 0);
        CHECK(ll2string(buf, sizeof(buf), -1) == 2 && strcmp(buf, "-1") == 0);
        CHECK(ll2string(buf, sizeof(buf), 1234567890) == 10 && strcmp(buf, "1234567890") == 0);
        CHECK(ll2string(buf, sizeof(buf), LLONG_MAX) == 19 &&
              strcmp(buf, "9223372036854775807") == 0);
        CHECK(ll2string(buf, sizeof(buf), LLONG_MIN) == 20 &&
              strcmp(buf, "-9223372036854775808") == 0);
        CHECK(ull2string(buf, sizeof(buf), ULLONG_MAX) == 20 &&
              strcmp(buf, "18446744073709551615") == 0);
        /* Too small: 0 and an empty string, never a truncated number. */
        char small[3];
        CHECK(ll2string(small, sizeof(small), 123) == 0 && small[0] == '\0');
        CHECK(ll2string(small, sizeof(small), -12) == 0 && small[0] == '\0');
        CHECK(ll2string(small, sizeof(small), -1) == 2 && strcmp(small, "-1") == 0);
        CHECK(ll2string(small, sizeof(small), 99) == 2 && strcmp(small, "99") == 0);
        CHECK(ll2string(small, 0, 1) == 0);

        /* Round trips through string2ll. */
        static const long long vals[] = {0,
                                         1,
                                         -1,
                                         9,
                                         10,
                                         -10,
                                         123456789,
                                         -987654321,
                                         LLONG_MAX,
                                         LLONG_MIN,
                                         LLONG_MAX - 1,
                                         LLONG_MIN + 1,
                                         1000000000000000000LL};
        int ok = 1;
        for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
            long long back;
            int n = ll2string(buf, sizeof(buf), vals[i]);
            if (n != (int)sdigits10(vals[i]) || n != (int)strlen(buf)) ok = 0;
            if (!string2ll(buf, (size_t)n, &back) || back != vals[i]) ok = 0;
        }
        CHECK(ok);
    }

    TEST("string2ll accept/reject table (matches INCRBY / OBJECT ENCODING)") {
        static const struct {
            const char *s;
            int ok;
            long long v;
        } cases[] = {
            {"0", 1, 0},
            {"1", 1, 1},
            {"-1", 1, -1},
            {"123", 1, 123},
            {"-123", 1, -123},
            {"9223372036854775807", 1, LLONG_MAX},
            {"-9223372036854775808", 1, LLONG_MIN},
            {"9223372036854775808", 0, 0},
            {"-9223372036854775809", 0, 0},
            {"18446744073709551615", 0, 0},
            {"18446744073709551616", 0, 0},
            {"99999999999999999999", 0, 0},
            {"-99999999999999999999", 0, 0}, /* 21 chars: length check */
            {"+1", 0, 0},
            {" 1", 0, 0},
            {"1 ", 0, 0},
            {"01", 0, 0},
            {"00", 0, 0},
            {"-0", 0, 0},
            {"-01", 0, 0},
            {"", 0, 0},
            {"-", 0, 0},
            {"1a", 0, 0},
            {"1.0", 0, 0},
            {"0x10", 0, 0},
            {"--1", 0, 0},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            long long v = 42;
            int ok = string2ll(cases[i].s, strlen(cases[i].s), &v);
            if (ok != cases[i].ok) printf("  string2ll(\"%s\") -> %d\n", cases[i].s, ok);
            CHECK(ok == cases[i].ok);
            if (ok) CHECK(v == cases[i].v);
        }
        /* Counted buffers: the length, not a NUL, ends the number. */
        long long v;
        CHECK(string2ll("123abc", 3, &v) && v == 123);
        CHECK(!string2ll("1\0"
                         "2",
                         3, &v));
        CHECK(string2ll("7", 1, NULL));

        long l;
        CHECK(string2l("-42", 3, &l) && l == -42);
        CHECK(!string2l("01", 2, &l));
        unsigned long long u;
        CHECK(string2ull("18446744073709551615", &u) && u == ULLONG_MAX);
        CHECK(string2ull("42", &u) && u == 42);
        CHECK(!string2ull("18446744073709551616", &u));
        CHECK(!string2ull("-1", &u));
        CHECK(!string2ull("", &u));
        CHECK(!string2ull("12x", &u));
        CHECK(string2ull("007", &u) && u == 7); /* strtoull fallback, as Redis */
    }

    TEST("string2ld + ld2string(HUMAN) reproduce INCRBYFLOAT") {
        char buf[MAX_LONG_DOUBLE_CHARS];
        for (size_t i = 0; i < sizeof(incrbyfloat_cases) / sizeof(incrbyfloat_cases[0]); i++) {
            long double a, b;
            int ok = string2ld(incrbyfloat_cases[i].a, strlen(incrbyfloat_cases[i].a), &a) &&
                     string2ld(incrbyfloat_cases[i].b, strlen(incrbyfloat_cases[i].b), &b);
            CHECK(ok);
            if (!ok) continue;
            int n = ld2string(buf, sizeof(buf), a + b, LD_STR_HUMAN);
            if (strcmp(buf, incrbyfloat_cases[i].out) != 0)
                printf("  %s + %s = %s (want %s)\n", incrbyfloat_cases[i].a, incrbyfloat_cases[i].b,
                       buf, incrbyfloat_cases[i].out);
            CHECK(strcmp(buf, incrbyfloat_cases[i].out) == 0);
            CHECK(n == (int)strlen(incrbyfloat_cases[i].out));
        }
    }

    TEST("string2ld rejects what INCRBYFLOAT calls 'not a valid float'") {
        static const char *bad[] = {"1e5000",  "nan", "-nan", " 1", "1 ",  "",
                                    "1e-5000", "abc", "1.5x", "0x", "\t1", "1\n"};
        long double v;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            int ok = string2ld(bad[i], strlen(bad[i]), &v);
            if (ok) printf("  string2ld accepted \"%s\"\n", bad[i]);
            CHECK(!ok);
        }
        CHECK(!string2ld("1\0"
                         "2",
                         3, &v));
        /* Redis accepts infinities here; INCRBYFLOAT then fails with
         * "increment would produce NaN or Infinity" on the result. */
        CHECK(string2ld("inf", 3, &v) && isinf(v) && v > 0);
        CHECK(string2ld("-inf", 4, &v) && isinf(v) && v < 0);
        CHECK(string2ld("+inf", 4, &v) && isinf(v));
        CHECK(string2ld("infinity", 8, &v) && isinf(v));
        /* Not NUL-terminated input is fine. */
        CHECK(string2ld("2.5xyz", 3, &v) && v == 2.5L);
    }

    TEST("ld2string other modes and specials") {
        char buf[MAX_LONG_DOUBLE_CHARS];
        CHECK(ld2string(buf, sizeof(buf), 1.0L / 0.0L, LD_STR_HUMAN) == 3 &&
              strcmp(buf, "inf") == 0);
        CHECK(ld2string(buf, sizeof(buf), -1.0L / 0.0L, LD_STR_AUTO) == 4 &&
              strcmp(buf, "-inf") == 0);
        CHECK(ld2string(buf, sizeof(buf), nanl(""), LD_STR_HUMAN) == 3 && strcmp(buf, "nan") == 0);
        CHECK(ld2string(buf, sizeof(buf), 3.5L, LD_STR_AUTO) == 3 && strcmp(buf, "3.5") == 0);
        CHECK(ld2string(buf, sizeof(buf), 0.1L, LD_STR_AUTO) == 3 && strcmp(buf, "0.1") == 0);
        CHECK(ld2string(buf, sizeof(buf), 1.0L / 3, LD_STR_AUTO) == 19 &&
              strcmp(buf, "0.33333333333333333") == 0);
        CHECK(ld2string(buf, sizeof(buf), 1.0L, LD_STR_HEX) > 0 && strcmp(buf, "0x8p-3") == 0);
        CHECK(ld2string(buf, sizeof(buf), 100.0L, LD_STR_HUMAN) == 3 && strcmp(buf, "100") == 0);
        CHECK(ld2string(buf, sizeof(buf), -0.0L, LD_STR_HUMAN) == 1 && strcmp(buf, "0") == 0);
        CHECK(ld2string(buf, sizeof(buf), 1.0L, 99) == 0 && buf[0] == '\0');
        /* The largest long double still fits the documented buffer size. */
        CHECK(ld2string(buf, sizeof(buf), LDBL_MAX, LD_STR_HUMAN) > 4900);
        CHECK(ld2string(buf, sizeof(buf), -LDBL_MAX, LD_STR_HUMAN) > 4900 && buf[0] == '-');
        char small[4];
        CHECK(ld2string(small, sizeof(small), 12345.0L, LD_STR_HUMAN) == 0 && small[0] == '\0');
        CHECK(ld2string(small, sizeof(small), -1.0L / 0.0L, LD_STR_HUMAN) == 0);
    }

    TEST("string2d follows ZADD score parsing") {
        static const struct {
            const char *s;
            int ok;
            double v;
        } cases[] = {
            {"0x10", 1, 16},
            {"1e400", 0, 0},
            {"1e-400", 0, 0},
            {"4.9e-324", 1, 4.9e-324},
            {"inf", 1, INFINITY},
            {"+inf", 1, INFINITY},
            {"-inf", 1, -INFINITY},
            {"infinity", 1, INFINITY},
            {"nan", 0, 0},
            {" 1", 0, 0},
            {"1 ", 0, 0},
            {"", 0, 0},
            {"1e", 0, 0},
            {".e1", 0, 0},
            {"-.5", 1, -0.5},
            {"1e+2", 1, 100},
            {"3", 1, 3},
            {"-2.5", 1, -2.5},
            {"abc", 0, 0},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            double v = 42;
            int ok = string2d(cases[i].s, strlen(cases[i].s), &v);
            if (ok != cases[i].ok) printf("  string2d(\"%s\") -> %d\n", cases[i].s, ok);
            CHECK(ok == cases[i].ok);
            if (ok) CHECK(v == cases[i].v);
        }
        double v;
        CHECK(string2d("1.5junk", 3, &v) && v == 1.5);
        CHECK(!string2d("1\0"
                        "5",
                        3, &v));
        /* Long input goes through the heap path. */
        char longnum[600];
        longnum[0] = '0';
        longnum[1] = '.';
        memset(longnum + 2, '5', sizeof(longnum) - 2);
        CHECK(string2d(longnum, sizeof(longnum), &v) && v > 0.55 && v < 0.56);
    }

    TEST("string2d's short-decimal path gives strtod's exact double and sign") {
        /* Random decimals of up to 17 digits (past the 15-digit fast path),
         * with and without a sign and a point: bit-equal to strtod. */
        unsigned long long seed = 12345;
        int ok = 1;
        for (int i = 0; i < 200000; i++) {
            char buf[40];
            size_t n = 0;
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            if (seed >> 63) buf[n++] = '-';
            int digits = 1 + (int)((seed >> 40) % 17), point = (int)((seed >> 20) % (unsigned)(digits + 1));
            for (int d = 0; d < digits; d++) {
                if (d == point && d > 0) buf[n++] = '.';
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                buf[n++] = (char)('0' + (seed >> 33) % 10);
            }
            buf[n] = '\0';
            double got, want = strtod(buf, NULL);
            ok &= string2d(buf, n, &got) == 1 && memcmp(&got, &want, sizeof(got)) == 0;
        }
        CHECK(ok);
        double v;
        CHECK(string2d("-0", 2, &v) && v == 0 && signbit(v));
        CHECK(string2d("-0.000", 6, &v) && v == 0 && signbit(v));
        CHECK(string2d("5.", 2, &v) && v == 5); /* strtod's form, not the fast path's */
        CHECK(!string2d("-", 1, &v) && !string2d(".", 1, &v) && !string2d("1.2.3", 5, &v));
        CHECK(string2d("0.1", 3, &v) && v == 0.1 && string2d("123456789012345", 15, &v) && v == 123456789012345.0);
    }

    TEST("d2string matches ZSCORE (RESP2)") {
        char buf[MAX_D2STRING_CHARS];
        for (size_t i = 0; i < sizeof(zscore_cases) / sizeof(zscore_cases[0]); i++) {
            int n = d2string(buf, sizeof(buf), zscore_cases[i].v);
            if (strcmp(buf, zscore_cases[i].out) != 0)
                printf("  d2string -> %s (want %s)\n", buf, zscore_cases[i].out);
            CHECK(strcmp(buf, zscore_cases[i].out) == 0);
            CHECK(n == (int)strlen(zscore_cases[i].out));
        }
        CHECK(d2string(buf, sizeof(buf), INFINITY) == 3 && strcmp(buf, "inf") == 0);
        CHECK(d2string(buf, sizeof(buf), -INFINITY) == 4 && strcmp(buf, "-inf") == 0);
        CHECK(d2string(buf, sizeof(buf), -NAN) == 3 && strcmp(buf, "nan") == 0);
        CHECK(d2string(buf, sizeof(buf), 12345678.0) == 8 && strcmp(buf, "12345678") == 0);
    }

    TEST("stringmatchlen matches Redis KEYS over a pattern x string grid") {
        size_t nstr = sizeof(glob_strings) / sizeof(glob_strings[0]);
        for (size_t i = 0; i < sizeof(glob_cases) / sizeof(glob_cases[0]); i++) {
            for (size_t j = 0; j < nstr; j++) {
                int want = glob_cases[i].expect[j] == '1';
                int got = stringmatchlen(glob_cases[i].p, glob_cases[i].len, glob_strings[j].s,
                                         glob_strings[j].len, 0);
                if (got != want)
                    printf("  pattern #%zu vs string #%zu: got %d want %d\n", i, j, got, want);
                CHECK(got == want);
            }
        }
    }

    TEST("stringmatchlen nocase (observed with CONFIG GET)") {
        CHECK(stringmatch("MAX*ORY", "maxmemory", 1));
        CHECK(!stringmatch("MAX*ORY", "maxmemory", 0));
        CHECK(stringmatch("[L-N]AXMEMORY", "maxmemory", 1));
        CHECK(stringmatch("[l-n]AXMEMORY", "maxmemory", 1));
        CHECK(stringmatch("[N-L]axmemory", "maxmemory", 1));
        CHECK(stringmatch("maxmemor[X-Z]", "maxmemory", 1));
        CHECK(!stringmatch("[^M]axmemory", "maxmemory", 1));
        CHECK(stringmatch("maxmemory-POLIC?", "maxmemory-policy", 1));
        /* An escaped char inside a class stays case-sensitive. */
        CHECK(!stringmatch("[\\M]axmemory", "maxmemory", 1));
        CHECK(stringmatch("[\\m]axmemory", "maxmemory", 1));
        /* Outside a class an escaped char follows nocase. */
        CHECK(stringmatch("\\Hello", "hello", 1));
        CHECK(!stringmatch("\\Hello", "hello", 0));
        CHECK(stringmatch("HELLO", "hello", 1));
        CHECK(!stringmatch("HELLO", "hello", 0));
    }

    TEST("stringmatchlen edge cases") {
        CHECK(stringmatchlen("", 0, "", 0, 0));
        CHECK(!stringmatchlen("*", 1, "", 0, 0));
        CHECK(stringmatchlen("a*", 2, "a", 1, 0));
        CHECK(stringmatchlen("a**", 3, "a", 1, 0));
        /* Counted lengths: bytes past patternLen/stringLen are ignored. */
        CHECK(stringmatchlen("abXX", 2, "abYY", 2, 0));
        CHECK(stringmatchlen("a*", 2, "abc", 1, 0));
        CHECK(!stringmatchlen("a*", 1, "ab", 2, 0));
        CHECK(stringmatchlen("[abc", 2, "a", 1, 0)); /* class cut off by length */
        CHECK(stringmatchlen("*\\", 2, "x\\", 2, 0));
    }

    TEST("stringmatchlen pathological patterns finish quickly") {
        char str[300];
        memset(str, 'a', sizeof(str));
        uint64_t t0 = monotonicUs();
        CHECK(!stringmatchlen("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", 42, str,
                              (int)sizeof(str), 0));
        CHECK(!stringmatchlen("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", 57, str,
                              (int)sizeof(str), 1));
        char longstr[100000];
        memset(longstr, 'a', sizeof(longstr));
        CHECK(!stringmatchlen("*a*a*a*a*a*a*a*a*a*a*a*a*b", 26, longstr, (int)sizeof(longstr), 0));
        CHECK(stringmatchlen("*a*a*a*a*a*a*a*a*a*a*a*a*", 25, longstr, (int)sizeof(longstr), 0));
        /* Thousands of stars must not exhaust the stack. */
        static char stars[20001];
        for (int i = 0; i < 20000; i += 2) stars[i] = '*', stars[i + 1] = 'a';
        CHECK(!stringmatchlen(stars, 20000, longstr, (int)sizeof(longstr), 0));
        uint64_t elapsed = monotonicUs() - t0;
        if (elapsed > 1000000) printf("  took %llu us\n", (unsigned long long)elapsed);
        CHECK(elapsed < 1000000);
    }

    TEST("memtoull units (observed with CONFIG SET maxmemory)") {
        static const struct {
            const char *s;
            int err;
            long long v;
        } cases[] = {
            {"", 0, 0},
            {"0", 0, 0},
            {"10", 0, 10},
            {"1b", 0, 1},
            {"1B", 0, 1},
            {"1k", 0, 1000},
            {"1kb", 0, 1024},
            {"1KB", 0, 1024},
            {"1Kb", 0, 1024},
            {"1m", 0, 1000000},
            {"1mb", 0, 1048576},
            {"1g", 0, 1000000000},
            {"1gb", 0, 1073741824},
            {"1G", 0, 1000000000},
            {"3GB", 0, 3221225472LL},
            {"gb", 0, 0},
            {"01mb", 0, 1048576},
            {"-1", 1, 0},
            {"1 ", 1, 0},
            {" 1", 1, 0},
            {"1t", 1, 0},
            {"abc", 1, 0},
            {"+1", 1, 0},
            {"1.5mb", 1, 0},
            {"-1gb", 1, 0},
            {"9223372036854775807", 0, LLONG_MAX},
            {"9223372036854775808", 1, 0}, /* beyond the signed result type */
            {"20000000000gb", 1, 0},       /* Redis 7.0 wraps; we refuse */
            {"99999999999999999999999", 1, 0},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            int err = -1;
            long long v = memtoull(cases[i].s, &err);
            if (err != cases[i].err || v != cases[i].v)
                printf("  memtoull(\"%s\") = %lld err %d\n", cases[i].s, v, err);
            CHECK(err == cases[i].err);
            CHECK(v == cases[i].v);
        }
        CHECK(memtoull("5mb", NULL) == 5 * 1024 * 1024);
    }

    TEST("strcaseeqlen") {
        CHECK(strcaseeqlen("NX", 2, "nx"));
        CHECK(strcaseeqlen("nX", 2, "Nx"));
        CHECK(!strcaseeqlen("NXX", 3, "nx"));
        CHECK(!strcaseeqlen("N", 1, "nx"));
        CHECK(strcaseeqlen("NXjunk", 2, "nx"));
        CHECK(strcaseeqlen("", 0, ""));
        CHECK(!strcaseeqlen("a\0", 2, "a"));
    }

    TEST("clocks") {
        long long us = ustime(), ms = mstime();
        CHECK(us > 1600000000LL * 1000000LL);
        CHECK(ms >= us / 1000 - 1000 && ms <= us / 1000 + 1000);
        uint64_t m1 = monotonicUs();
        uint64_t m2 = monotonicUs();
        CHECK(m2 >= m1);
    }

    TEST("random bytes and hex") {
        unsigned char a[64], b[64];
        getRandomBytes(a, sizeof(a));
        getRandomBytes(b, sizeof(b));
        CHECK(memcmp(a, b, sizeof(a)) != 0);
        getRandomBytes(a, 0);
        char hex[41];
        getRandomHexChars(hex, 40);
        int ok = 1;
        for (int i = 0; i < 40; i++)
            if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f'))) ok = 0;
        CHECK(ok);
        /* 4000 draws should cover all 16 digits. */
        char many[4000];
        int seen[16] = {0}, distinct = 0;
        getRandomHexChars(many, sizeof(many));
        for (size_t i = 0; i < sizeof(many); i++) {
            int d = many[i] <= '9' ? many[i] - '0' : many[i] - 'a' + 10;
            if (!seen[d]++) distinct++;
        }
        CHECK(distinct == 16);
    }

    return TEST_REPORT();
}
