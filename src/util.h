/* util: number <-> string conversions with Redis' exact rules, glob matching,
 * and small helpers that have no better home. Pure functions, no allocation
 * unless stated. */
#ifndef CAIRN_UTIL_H
#define CAIRN_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* The return convention of functions that succeed or fail. */
#define C_OK  0
#define C_ERR -1

/* Longest string ll2string can produce, with sign, plus NUL. */
#define LONG_STR_SIZE 21
/* Buffer size that fits any long double formatted by ld2string. */
#define MAX_LONG_DOUBLE_CHARS (5 * 1024)
#define MAX_D2STRING_CHARS 128

/* Number of decimal digits of v (1 for 0). */
uint32_t digits10(uint64_t v);
/* Same for a signed value, counting the '-' sign. */
uint32_t sdigits10(int64_t v);
/* Write v in decimal into dst (len bytes available, NUL written). Returns the
 * number of characters written (without NUL) or 0 if it does not fit. */
int ll2string(char *dst, size_t dstlen, long long svalue);
int ull2string(char *dst, size_t dstlen, unsigned long long value);
/* Strict parse: the whole buffer must be a canonical decimal integer in
 * range (no spaces, no leading '+', no leading zeros except "0", "-0" is
 * rejected). Returns 1 on success. These are the rules Redis uses to decide
 * whether a string can be stored as an integer. */
int string2ll(const char *s, size_t slen, long long *value);
int string2ull(const char *s, unsigned long long *value);
int string2l(const char *s, size_t slen, long *value);
/* Parse a long double the way INCRBYFLOAT does: no spaces, not NaN, finite
 * after parsing. Returns 1 on success. */
int string2ld(const char *s, size_t slen, long double *dp);
/* Parse a double (as used by e.g. scores, timeouts): no leading space, must
 * consume the whole buffer, not NaN. "inf"/"-inf" accepted. Returns 1 on success. */
int string2d(const char *s, size_t slen, double *dp);

/* Format a long double. humanfriendly=1 is the INCRBYFLOAT style: %.17Lf then
 * strip trailing zeros and a trailing '.'; returns length or 0 on error. */
#define LD_STR_AUTO  0 /* %.17Lg */
#define LD_STR_HUMAN 1 /* %.17Lf with trailing zeroes removed */
#define LD_STR_HEX   2
int ld2string(char *buf, size_t len, long double value, int mode);
/* Format a double like Redis' RESP2 double replies ("%.17g", inf/-inf/nan
 * spelled out), returns length. */
int d2string(char *buf, size_t len, double value);

/* Glob-style pattern matching with Redis' semantics (*, ?, [a-z], [^x], \x). */
int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen,
                   int nocase);
int stringmatch(const char *pattern, const char *string, int nocase);

/* Wall-clock time. */
long long ustime(void);
long long mstime(void);
/* Monotonic microseconds, for measuring durations. */
uint64_t monotonicUs(void);

/* Fill p with len cryptographically random bytes (from /dev/urandom, falling
 * back to a seeded PRNG). */
void getRandomBytes(unsigned char *p, size_t len);
/* len random hex characters into p (not NUL-terminated). */
void getRandomHexChars(char *p, size_t len);

/* Parse a memory amount like "1gb", "100mb", "5k" (Redis' units: k=1000,
 * kb=1024, m=1000^2, mb=1024^2, g, gb). Sets *err to 1 on bad input. */
long long memtoull(const char *p, int *err);

/* Case-insensitive ASCII comparison of a counted buffer with a C string:
 * the usual way commands recognise option names. */
int strcaseeqlen(const char *a, size_t alen, const char *b);

#endif
