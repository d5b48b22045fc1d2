/* util.c: owns the number <-> text rules the protocol depends on (which
 * strings count as integers or floats, how floats are printed back), Redis'
 * glob matcher, clocks, random bytes and memory-unit parsing.
 *
 * Data enters as counted byte buffers straight from client arguments (not
 * necessarily NUL-terminated, may contain NULs) or config values; it leaves as
 * parsed numbers through out-parameters or as text written into caller
 * buffers. Nothing here allocates except string2d on very long input, and
 * nothing keeps state except the /dev/urandom descriptor.
 *
 * The exact accept/reject behaviour matters: it decides whether a value is
 * stored int-encoded and which error a command returns, so each function
 * mirrors Redis 7.0's observable behaviour, quirks included (noted inline). */
/* clock_gettime, O_CLOEXEC and friends even under a strict -std=c11. */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Integers
 * ---------------------------------------------------------------------- */

uint32_t digits10(uint64_t v) {
    uint32_t n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    if (v >= 1000) return n + 3;
    if (v >= 100) return n + 2;
    if (v >= 10) return n + 1;
    return n;
}

uint32_t sdigits10(int64_t v) {
    if (v < 0) {
        /* Negate in unsigned space so INT64_MIN does not overflow. */
        uint64_t uv = (uint64_t)0 - (uint64_t)v;
        return digits10(uv) + 1;
    }
    return digits10((uint64_t)v);
}

int ull2string(char *dst, size_t dstlen, unsigned long long value) {
    /* Two digits per step from a pair table, written from the end: replies
     * and the propagation stream format lengths for every argument, so this
     * is on the hot path. */
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";
    uint32_t n = digits10(value);
    if (n + 1 > dstlen) {
        if (dstlen) dst[0] = '\0';
        return 0;
    }
    dst[n] = '\0';
    uint32_t pos = n - 1;
    while (value >= 100) {
        unsigned idx = (unsigned)(value % 100) * 2;
        value /= 100;
        dst[pos] = pairs[idx + 1];
        dst[pos - 1] = pairs[idx];
        pos -= 2;
    }
    if (value < 10) {
        dst[pos] = (char)('0' + value);
    } else {
        unsigned idx = (unsigned)value * 2;
        dst[pos] = pairs[idx + 1];
        dst[pos - 1] = pairs[idx];
    }
    return (int)n;
}

int ll2string(char *dst, size_t dstlen, long long svalue) {
    if (svalue >= 0) return ull2string(dst, dstlen, (unsigned long long)svalue);
    unsigned long long mag = 0ULL - (unsigned long long)svalue;
    if (dstlen < 2) {
        if (dstlen) dst[0] = '\0';
        return 0;
    }
    int n = ull2string(dst + 1, dstlen - 1, mag);
    if (n == 0) {
        dst[0] = '\0';
        return 0;
    }
    dst[0] = '-';
    return n + 1;
}

int string2ll(const char *s, size_t slen, long long *value) {
    /* Longer than "-9223372036854775808" cannot be canonical. */
    if (slen == 0 || slen >= LONG_STR_SIZE) return 0;
    if (slen == 1 && s[0] == '0') {
        if (value) *value = 0;
        return 1;
    }
    size_t i = 0;
    int negative = 0;
    if (s[0] == '-') {
        negative = 1;
        i = 1;
        if (slen == 1) return 0;
    }
    /* First digit 1-9: this is what rejects "01", "-0", "+1", " 1". */
    if (s[i] < '1' || s[i] > '9') return 0;
    unsigned long long v = (unsigned long long)(s[i] - '0');
    for (i++; i < slen; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned long long d = (unsigned long long)(s[i] - '0');
        if (v > (ULLONG_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (negative) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        if (value) *value = (long long)(0ULL - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        if (value) *value = (long long)v;
    }
    return 1;
}

/* Redis quirk kept on purpose (stream IDs are parsed with this): values that
 * are not canonical long longs fall back to strtoull, which tolerates leading
 * spaces, '+', leading zeros, and wraps a '-' input it did not see first. */
int string2ull(const char *s, unsigned long long *value) {
    long long ll;
    if (string2ll(s, strlen(s), &ll)) {
        if (ll < 0) return 0;
        *value = (unsigned long long)ll;
        return 1;
    }
    errno = 0;
    char *endptr = NULL;
    *value = strtoull(s, &endptr, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *endptr == '\0')) return 0;
    return 1;
}

int string2l(const char *s, size_t slen, long *lval) {
    long long ll;
    if (!string2ll(s, slen, &ll)) return 0;
    if (ll < LONG_MIN || ll > LONG_MAX) return 0;
    if (lval) *lval = (long)ll;
    return 1;
}

/* ------------------------------------------------------------------------
 * Floating point
 * ---------------------------------------------------------------------- */

/* Redis 7.0 behaviour: "inf"/"-inf" are accepted (INCRBYFLOAT then fails
 * with "increment would produce NaN or Infinity", not "not a valid float"),
 * while a finite literal that overflows (1e5000) or underflows to zero
 * (1e-5000) is rejected, as are NaN and anything with spaces or junk. */
int string2ld(const char *s, size_t slen, long double *dp) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    errno = 0;
    char *eptr;
    long double value = strtold(buf, &eptr);
    if (isspace((unsigned char)buf[0]) || (size_t)(eptr - buf) != slen ||
        (errno == ERANGE &&
         (value == HUGE_VALL || value == -HUGE_VALL || fpclassify(value) == FP_ZERO)) ||
        errno == EINVAL || isnan(value))
        return 0;
    if (dp) *dp = value;
    return 1;
}

/* The common short decimals ("3", "-12.5", "1000.25"): at most 15 digits,
 * so the digits make an integer below 2^53 and the power of ten is exact,
 * and one IEEE division rounds the quotient exactly as strtod rounds the
 * decimal. 0 when s is not of that form (strtod decides then). */
static int string2d_short(const char *s, size_t slen, double *dp) {
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = s, *end = s + slen;
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    uint64_t m = 0;
    int digits = 0, frac = -1; /* frac: digits after the point, -1 without one */
    for (; p < end; p++) {
        if (*p >= '0' && *p <= '9') {
            if (++digits > 15) return 0;
            m = m * 10 + (uint64_t)(*p - '0');
            if (frac >= 0) frac++;
        } else if (*p == '.' && frac < 0 && digits > 0) {
            frac = 0;
        } else {
            return 0;
        }
    }
    if (digits == 0 || frac == 0) return 0; /* "", "-", "5." */
    double v = frac > 0 ? (double)m / pow10[frac] : (double)m;
    *dp = neg ? -v : v;
    return 1;
}

int string2d(const char *s, size_t slen, double *dp) {
    double fast;
    if (slen <= 17 && string2d_short(s, slen, &fast)) {
        if (dp) *dp = fast;
        return 1;
    }
    /* strtod needs a terminator and client buffers may lack one. */
    char stackbuf[256];
    char *buf = stackbuf;
    if (slen == 0) return 0;
    if (slen >= sizeof(stackbuf)) {
        buf = malloc(slen + 1);
        if (!buf) return 0;
    }
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    errno = 0;
    char *eptr;
    double value = strtod(buf, &eptr);
    int ok = !(isspace((unsigned char)buf[0]) || (size_t)(eptr - buf) != slen ||
               (errno == ERANGE &&
                (value == HUGE_VAL || value == -HUGE_VAL || fpclassify(value) == FP_ZERO)) ||
               isnan(value));
    if (buf != stackbuf) free(buf);
    if (ok && dp) *dp = value;
    return ok;
}

int ld2string(char *buf, size_t len, long double value, int mode) {
    size_t l;
    /* Spell the specials ourselves: libc spellings vary ("-nan", "inf()"). */
    if (isinf(value)) {
        if (len < 5) goto err;
        l = value > 0 ? 3 : 4;
        memcpy(buf, value > 0 ? "inf" : "-inf", l);
    } else if (isnan(value)) {
        if (len < 4) goto err;
        l = 3;
        memcpy(buf, "nan", 3);
    } else {
        int n;
        switch (mode) {
            case LD_STR_AUTO:
                n = snprintf(buf, len, "%.17Lg", value);
                break;
            case LD_STR_HEX:
                n = snprintf(buf, len, "%La", value);
                break;
            case LD_STR_HUMAN:
                /* 17 fractional digits then trimmed: with 80-bit long
                 * doubles this prints typical decimal input back the way
                 * the user typed it (10.5+0.1 -> "10.6"). */
                n = snprintf(buf, len, "%.17Lf", value);
                break;
            default:
                goto err;
        }
        if (n < 0 || (size_t)n + 1 > len) goto err;
        l = (size_t)n;
        if (mode == LD_STR_HUMAN) {
            if (memchr(buf, '.', l)) {
                while (l > 0 && buf[l - 1] == '0') l--;
                if (l > 0 && buf[l - 1] == '.') l--;
            }
            /* A tiny negative result rounds to "-0"; Redis prints "0". */
            if (l == 2 && buf[0] == '-' && buf[1] == '0') {
                buf[0] = '0';
                l = 1;
            }
        }
    }
    buf[l] = '\0';
    return (int)l;
err:
    if (len) buf[0] = '\0';
    return 0;
}

int d2string(char *buf, size_t len, double value) {
    int n;
    if (isnan(value))
        n = snprintf(buf, len, "nan");
    else if (isinf(value))
        n = snprintf(buf, len, value > 0 ? "inf" : "-inf");
    else
        n = snprintf(buf, len, "%.17g", value);
    if (n < 0 || (size_t)n + 1 > len) {
        if (len) buf[0] = '\0';
        return 0;
    }
    return n;
}

/* ------------------------------------------------------------------------
 * Glob matching
 * ---------------------------------------------------------------------- */

/* ASCII only: the server never changes LC_CTYPE, so this equals tolower(). */
static inline int glob_lower(int c) {
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* Redis compares range bounds as plain (signed on x86) chars; we do the same
 * so [a-\xff]-style patterns behave identically. */
static inline int glob_char(const char *p) {
    return (int)(signed char)*p;
}

#define GLOB_MAX_NESTING 1000

/* Semantics follow Redis 7.0's stringmatchlen, including its quirks:
 *   - an empty string matches only an empty pattern ("*" does not match "");
 *   - '\' as the last pattern byte is a literal backslash;
 *   - an unterminated '[' class runs to the end of the pattern;
 *   - "[a-]" is the range a..']' (and the class continues to the next ']');
 *   - '\x' inside a class compares case-sensitively even with nocase.
 * Two guards Redis also has keep hostile patterns cheap: once the text after
 * a '*' fails to match at every position, no earlier '*' can help either
 * (it could only push that text further right), so all levels give up at
 * once -- that turns "*a*a*a*a*b" from exponential into polynomial; and the
 * recursion depth is capped so a pattern with thousands of '*' cannot blow
 * the stack (it simply does not match). */
static int glob_impl(const char *pattern, int patternLen, const char *string, int stringLen,
                     int nocase, int *skipLonger, int nesting) {
    if (nesting > GLOB_MAX_NESTING) return 0;
    while (patternLen > 0 && stringLen > 0) {
        switch (pattern[0]) {
            case '*':
                while (patternLen > 1 && pattern[1] == '*') {
                    pattern++;
                    patternLen--;
                }
                if (patternLen == 1) return 1;
                while (stringLen > 0) {
                    if (glob_impl(pattern + 1, patternLen - 1, string, stringLen, nocase,
                                  skipLonger, nesting + 1))
                        return 1;
                    if (*skipLonger) return 0;
                    string++;
                    stringLen--;
                }
                *skipLonger = 1;
                return 0;
            case '?':
                string++;
                stringLen--;
                break;
            case '[': {
                int negate, match = 0;
                pattern++;
                patternLen--;
                negate = patternLen > 0 && pattern[0] == '^';
                if (negate) {
                    pattern++;
                    patternLen--;
                }
                for (;;) {
                    if (patternLen == 0) {
                        /* Unterminated: step back so the common advance
                         * below lands exactly at the end. */
                        pattern--;
                        patternLen++;
                        break;
                    } else if (pattern[0] == '\\' && patternLen >= 2) {
                        pattern++;
                        patternLen--;
                        if (pattern[0] == string[0]) match = 1;
                    } else if (pattern[0] == ']') {
                        break;
                    } else if (patternLen >= 3 && pattern[1] == '-') {
                        int start = glob_char(pattern), end = glob_char(pattern + 2);
                        int c = glob_char(string);
                        if (start > end) {
                            int t = start;
                            start = end;
                            end = t;
                        }
                        if (nocase) {
                            start = glob_lower(start);
                            end = glob_lower(end);
                            c = glob_lower(c);
                        }
                        pattern += 2;
                        patternLen -= 2;
                        if (c >= start && c <= end) match = 1;
                    } else if (nocase
                                   ? glob_lower(glob_char(pattern)) == glob_lower(glob_char(string))
                                   : pattern[0] == string[0]) {
                        match = 1;
                    }
                    pattern++;
                    patternLen--;
                }
                if (negate) match = !match;
                if (!match) return 0;
                string++;
                stringLen--;
                break;
            }
            case '\\':
                if (patternLen >= 2) {
                    pattern++;
                    patternLen--;
                }
                /* fall through */
            default:
                if (nocase ? glob_lower(glob_char(pattern)) != glob_lower(glob_char(string))
                           : pattern[0] != string[0])
                    return 0;
                string++;
                stringLen--;
                break;
        }
        pattern++;
        patternLen--;
        if (stringLen == 0) {
            while (patternLen > 0 && pattern[0] == '*') {
                pattern++;
                patternLen--;
            }
            break;
        }
    }
    return patternLen == 0 && stringLen == 0;
}

int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen,
                   int nocase) {
    int skipLonger = 0;
    return glob_impl(pattern, patternLen, string, stringLen, nocase, &skipLonger, 0);
}

int stringmatch(const char *pattern, const char *string, int nocase) {
    return stringmatchlen(pattern, (int)strlen(pattern), string, (int)strlen(string), nocase);
}

/* ------------------------------------------------------------------------
 * Time
 * ---------------------------------------------------------------------- */

long long ustime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

long long mstime(void) {
    return ustime() / 1000;
}

uint64_t monotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* ------------------------------------------------------------------------
 * Randomness
 * ---------------------------------------------------------------------- */

/* Fallback only for the odd sandbox without /dev/urandom: not
 * cryptographic, but run ids and seeds still differ between processes. */
static uint64_t fallback_state;

static uint64_t splitmix64(void) {
    uint64_t z = (fallback_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void getRandomBytes(unsigned char *p, size_t len) {
    /* Opened once and kept: run ids, hash seeds and the like are drawn
     * repeatedly and a reopen per call would be wasted syscalls. */
    static int fd = -2;
    if (fd == -2) fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    while (fd >= 0 && got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n > 0) {
            got += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            break;
        }
    }
    if (got == len) return;
    if (fallback_state == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fallback_state = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
                         ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&ts;
    }
    while (got < len) {
        uint64_t r = splitmix64();
        for (int j = 0; j < 8 && got < len; j++, r >>= 8) p[got++] = (unsigned char)r;
    }
}

void getRandomHexChars(char *p, size_t len) {
    static const char charset[] = "0123456789abcdef";
    getRandomBytes((unsigned char *)p, len);
    for (size_t j = 0; j < len; j++) p[j] = charset[(unsigned char)p[j] & 0x0F];
}

/* ------------------------------------------------------------------------
 * Misc
 * ---------------------------------------------------------------------- */

/* Matches Redis 7.0's CONFIG SET behaviour: digits then an optional unit.
 * Like Redis, no digits at all means 0 ("" and "gb" are accepted). Unlike
 * Redis 7.0 (which wraps), values beyond LLONG_MAX are an error because the
 * result type is signed. */
long long memtoull(const char *p, int *err) {
    if (err) *err = 0;
    const char *u = p;
    if (*u == '-') goto bad;
    while (*u >= '0' && *u <= '9') u++;
    unsigned long long mul;
    if (*u == '\0' || !strcasecmp(u, "b"))
        mul = 1;
    else if (!strcasecmp(u, "k"))
        mul = 1000;
    else if (!strcasecmp(u, "kb"))
        mul = 1024;
    else if (!strcasecmp(u, "m"))
        mul = 1000ULL * 1000;
    else if (!strcasecmp(u, "mb"))
        mul = 1024ULL * 1024;
    else if (!strcasecmp(u, "g"))
        mul = 1000ULL * 1000 * 1000;
    else if (!strcasecmp(u, "gb"))
        mul = 1024ULL * 1024 * 1024;
    else
        goto bad;

    unsigned long long val = 0;
    for (const char *d = p; d < u; d++) {
        unsigned long long digit = (unsigned long long)(*d - '0');
        if (val > (ULLONG_MAX - digit) / 10) goto bad;
        val = val * 10 + digit;
    }
    if (val > (unsigned long long)LLONG_MAX / mul) goto bad;
    return (long long)(val * mul);
bad:
    if (err) *err = 1;
    return 0;
}

int strcaseeqlen(const char *a, size_t alen, const char *b) {
    size_t blen = strlen(b);
    return alen == blen && strncasecmp(a, b, alen) == 0;
}
