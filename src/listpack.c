/* listpack.c: the listpack encoding (see listpack.h for the byte layout),
 * byte-compatible with Redis 7.0 so snapshots and DUMP payloads carry the
 * blob unchanged.
 *
 * Data enters as strings (converted to integer entries when they are
 * canonical integers, exactly like Redis, so both servers produce the same
 * bytes for the same operations) or as long longs, and leaves through
 * lpGet/lpGetValue as a pointer into the blob or an integer. The listpack is
 * a single zmalloc'ed block owned by the caller; every call that may
 * reallocate returns the new pointer and the old one must not be used again.
 * Entry pointers returned by lpFirst/lpNext/lpSeek/... point into the block
 * and die with any modification. Nothing here keeps state between calls.
 *
 * Functions that take an entry pointer trust the blob: untrusted input must
 * pass lpValidateIntegrity(deep=1) first, which is written to never read
 * outside the buffer it is given. */
#include "listpack.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "zmalloc.h"

#define LP_HDR_SIZE           6
#define LP_HDR_NUMELE_UNKNOWN 65535
#define LP_EOF                0xFF
/* Callers keep listpacks well below this (and convert to a real data
 * structure); the limit leaves lots of room before the u32 total overflows. */
#define LP_MAX_SAFETY_SIZE (1UL << 30)

/* Encoding first bytes. */
#define LP_ENC_INT16 0xF1
#define LP_ENC_INT24 0xF2
#define LP_ENC_INT32 0xF3
#define LP_ENC_INT64 0xF4
#define LP_ENC_STR32 0xF0

/* ---- little-endian field access (explicit bytes: any host, any alignment) ---- */

static inline uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void wr32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}
static inline uint64_t rd64(const unsigned char *p) {
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static inline uint32_t lpGetTotalBytes(const unsigned char *lp) {
    return rd32(lp);
}
static inline void lpSetTotalBytes(unsigned char *lp, uint32_t v) {
    wr32(lp, v);
}
static inline uint32_t lpGetNumElements(const unsigned char *lp) {
    return (uint32_t)lp[4] | (uint32_t)lp[5] << 8;
}
static inline void lpSetNumElements(unsigned char *lp, uint32_t n) {
    lp[4] = (unsigned char)n;
    lp[5] = (unsigned char)(n >> 8);
}

/* ---- entry encoding ---- */

/* Bytes the backlen of an entry whose encoding+data is l bytes long takes.
 * The odd "<" boundaries (16383, not 16384) are Redis' and decide bytes on
 * disk, so they must stay exactly like this. */
static inline unsigned lpBacklenSize(uint64_t l) {
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

/* Write the backlen of l into buf, most significant group first; every byte
 * but the first has the high bit set so a right-to-left reader knows where
 * to stop. Returns the number of bytes. */
static unsigned lpEncodeBacklen(unsigned char *buf, uint64_t l) {
    unsigned n = lpBacklenSize(l);
    for (unsigned i = 0; i < n; i++) {
        unsigned shift = 7 * (n - 1 - i);
        buf[i] = (unsigned char)((l >> shift) & 127);
        if (i) buf[i] |= 128;
    }
    return n;
}

/* Decode the backlen whose last byte is at p (reading leftwards). */
static inline uint64_t lpDecodeBacklen(const unsigned char *p) {
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        v |= (uint64_t)(p[0] & 127) << shift;
        if (!(p[0] & 128)) break;
        shift += 7;
        p--;
        if (shift > 28) return UINT64_MAX; /* only reachable on a corrupt blob */
    }
    return v;
}

/* Encode an integer in the smallest form; returns its size (1..9). */
static unsigned lpEncodeInt(unsigned char *buf, int64_t v) {
    if (v >= 0 && v <= 127) {
        buf[0] = (unsigned char)v;
        return 1;
    }
    /* Negative values are stored in two's complement of the field width;
     * working on the unsigned value keeps the shifts well defined. */
    uint64_t u = (uint64_t)v;
    if (v >= -4096 && v <= 4095) {
        u &= 0x1FFF;
        buf[0] = (unsigned char)(0xC0 | (u >> 8));
        buf[1] = (unsigned char)u;
        return 2;
    }
    int n;
    if (v >= -32768 && v <= 32767) {
        buf[0] = LP_ENC_INT16;
        n = 2;
    } else if (v >= -8388608 && v <= 8388607) {
        buf[0] = LP_ENC_INT24;
        n = 3;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        buf[0] = LP_ENC_INT32;
        n = 4;
    } else {
        buf[0] = LP_ENC_INT64;
        n = 8;
    }
    for (int i = 0; i < n; i++) buf[1 + i] = (unsigned char)(u >> (8 * i));
    return (unsigned)n + 1;
}

/* Write the header of a string of length len; returns its size (1, 2, 5). */
static unsigned lpEncodeStrHeader(unsigned char *buf, uint32_t len) {
    if (len < 64) {
        buf[0] = (unsigned char)(0x80 | len);
        return 1;
    }
    if (len < 4096) {
        buf[0] = (unsigned char)(0xE0 | (len >> 8));
        buf[1] = (unsigned char)len;
        return 2;
    }
    buf[0] = LP_ENC_STR32;
    wr32(buf + 1, len);
    return 5;
}

/* Size of the encoding+data part of the (trusted) entry at p. */
static inline uint64_t lpEncodedSize(const unsigned char *p) {
    unsigned char c = p[0];
    if (c < 0x80) return 1;
    if (c < 0xC0) return 1 + (uint64_t)(c & 0x3F);
    if (c < 0xE0) return 2;
    if (c < 0xF0) return 2 + (uint64_t)(((c & 0x0F) << 8) | p[1]);
    switch (c) {
        case LP_ENC_STR32:
            return 5 + (uint64_t)rd32(p + 1);
        case LP_ENC_INT16:
            return 3;
        case LP_ENC_INT24:
            return 4;
        case LP_ENC_INT32:
            return 5;
        case LP_ENC_INT64:
            return 9;
        default:
            return 0; /* EOF or invalid: callers never pass these */
    }
}

/* Pointer to the entry after p (may be the EOF byte). */
static inline unsigned char *lpSkip(unsigned char *p) {
    uint64_t l = lpEncodedSize(p);
    return p + l + lpBacklenSize(l);
}

/* Decode the integer entry at p (first byte c, known not to be a string). */
static inline int64_t lpDecodeInt(const unsigned char *p, unsigned char c, uint64_t *enclen) {
    if (c < 0x80) {
        *enclen = 1;
        return c;
    }
    if (c < 0xE0) { /* 110xxxxx: 13-bit two's complement */
        uint32_t u = ((uint32_t)(c & 0x1F) << 8) | p[1];
        *enclen = 2;
        return u >= 4096 ? (int64_t)u - 8192 : (int64_t)u;
    }
    switch (c) {
        case LP_ENC_INT16:
            *enclen = 3;
            return (int16_t)(uint16_t)(p[1] | p[2] << 8);
        case LP_ENC_INT24: {
            uint32_t u = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16;
            *enclen = 4;
            return u >= (1u << 23) ? (int64_t)u - (1 << 24) : (int64_t)u;
        }
        case LP_ENC_INT32:
            *enclen = 5;
            return (int32_t)rd32(p + 1);
        default:
            *enclen = 9;
            return (int64_t)rd64(p + 1);
    }
}

/* Decode the entry at p: a string (returned, *slen set) or an integer
 * (NULL returned, *ival set). *enclen gets the encoding+data size. */
static inline unsigned char *lpDecode(unsigned char *p, uint32_t *slen, int64_t *ival,
                                      uint64_t *enclen) {
    unsigned char c = p[0];
    if (c >= 0x80 && c < 0xC0) {
        *slen = c & 0x3F;
        *enclen = 1 + (uint64_t)*slen;
        return p + 1;
    }
    if (c >= 0xE0 && c < 0xF0) {
        *slen = ((uint32_t)(c & 0x0F) << 8) | p[1];
        *enclen = 2 + (uint64_t)*slen;
        return p + 2;
    }
    if (c == LP_ENC_STR32) {
        *slen = rd32(p + 1);
        *enclen = 5 + (uint64_t)*slen;
        return p + 5;
    }
    *ival = lpDecodeInt(p, c, enclen);
    return NULL;
}

/* ---- creation ---- */

unsigned char *lpNew(size_t capacity) {
    size_t sz = capacity > LP_HDR_SIZE + 1 ? capacity : LP_HDR_SIZE + 1;
    unsigned char *lp = zmalloc(sz);
    lpSetTotalBytes(lp, LP_HDR_SIZE + 1);
    lpSetNumElements(lp, 0);
    lp[LP_HDR_SIZE] = LP_EOF;
    return lp;
}

void lpFree(unsigned char *lp) {
    zfree(lp);
}

unsigned char *lpShrinkToFit(unsigned char *lp) {
    size_t bytes = lpGetTotalBytes(lp);
    if (zmalloc_size(lp) > bytes) lp = zrealloc(lp, bytes);
    return lp;
}

size_t lpBytes(unsigned char *lp) {
    return lpGetTotalBytes(lp);
}

/* ---- the one insert/replace/delete primitive ---- */

enum lpOp { LP_OP_STRING, LP_OP_INT, LP_OP_DELETE };

/* Insert (where = LP_BEFORE/LP_AFTER), replace (LP_REPLACE) or, with
 * op = LP_OP_DELETE, delete the entry at p. Strings that parse as canonical
 * integers are stored as integers. *newp gets the new entry, or for a
 * delete the entry that followed (NULL at the end). Returns NULL (lp left
 * untouched) only if the result would not fit the u32 size field. */
static unsigned char *lpInsertEntry(unsigned char *lp, enum lpOp op, const unsigned char *s,
                                    uint32_t slen, long long ival, unsigned char *p, int where,
                                    unsigned char **newp) {
    unsigned char hdr[9], bl[5];
    unsigned hdrlen = 0, bllen = 0;
    const unsigned char *data = NULL;
    uint32_t datalen = 0;
    long long parsed;

    if (op == LP_OP_STRING && string2ll((const char *)s, slen, &parsed)) {
        op = LP_OP_INT;
        ival = parsed;
    }
    if (op == LP_OP_INT) {
        hdrlen = lpEncodeInt(hdr, ival);
    } else if (op == LP_OP_STRING) {
        hdrlen = lpEncodeStrHeader(hdr, slen);
        data = s;
        datalen = slen;
    }

    if (where == LP_AFTER) {
        if (p[0] != LP_EOF) p = lpSkip(p);
        where = LP_BEFORE;
    }
    if (op == LP_OP_DELETE) where = LP_REPLACE;
    assert(where == LP_BEFORE || p[0] != LP_EOF); /* nothing to replace/delete at EOF */

    uint64_t enclen = hdrlen + (uint64_t)datalen;
    uint64_t newentry = 0;
    if (op != LP_OP_DELETE) {
        bllen = lpEncodeBacklen(bl, enclen);
        newentry = enclen + bllen;
    }
    uint64_t oldentry = where == LP_REPLACE ? (uint64_t)(lpSkip(p) - p) : 0;
    uint64_t oldbytes = lpGetTotalBytes(lp);
    uint64_t newbytes = oldbytes + newentry - oldentry;
    if (newbytes > UINT32_MAX) return NULL;

    /* The caller may hand us bytes that live inside this very listpack (e.g.
     * moving an element); they would move or vanish under the memmove. */
    unsigned char *copy = NULL;
    if (datalen && data >= lp && data < lp + oldbytes) {
        copy = zmalloc(datalen);
        memcpy(copy, data, datalen);
        data = copy;
    }

    size_t poff = (size_t)(p - lp);
    size_t tailoff = poff + (size_t)oldentry;
    size_t taillen = (size_t)oldbytes - tailoff; /* includes the EOF byte */
    if (newbytes > oldbytes) {
        /* Grow in place when the allocator's slack allows it. */
        if (newbytes > zmalloc_size(lp)) lp = zrealloc(lp, (size_t)newbytes);
        memmove(lp + poff + newentry, lp + tailoff, taillen);
    } else if (newbytes < oldbytes) {
        memmove(lp + poff + newentry, lp + tailoff, taillen);
        lp = zrealloc(lp, (size_t)newbytes);
    }

    unsigned char *dst = lp + poff;
    if (op != LP_OP_DELETE) {
        memcpy(dst, hdr, hdrlen);
        if (datalen) memcpy(dst + hdrlen, data, datalen);
        memcpy(dst + enclen, bl, bllen);
    }
    zfree(copy);

    lpSetTotalBytes(lp, (uint32_t)newbytes);
    uint32_t numele = lpGetNumElements(lp);
    /* Once saturated the header stays "unknown" until lpLength recounts. */
    if (numele != LP_HDR_NUMELE_UNKNOWN) {
        if (op == LP_OP_DELETE)
            numele--;
        else if (where == LP_BEFORE)
            numele++;
        lpSetNumElements(lp, numele);
    }
    if (newp) *newp = (op == LP_OP_DELETE && dst[0] == LP_EOF) ? NULL : dst;
    return lp;
}

unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, uint32_t slen,
                              unsigned char *p, int where, unsigned char **newp) {
    return lpInsertEntry(lp, LP_OP_STRING, s, slen, 0, p, where, newp);
}

unsigned char *lpInsertInteger(unsigned char *lp, long long lval, unsigned char *p, int where,
                               unsigned char **newp) {
    return lpInsertEntry(lp, LP_OP_INT, NULL, 0, lval, p, where, newp);
}

unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, uint32_t slen) {
    if (!lp) lp = lpNew(0);
    return lpInsertString(lp, s, slen, lp + lpGetTotalBytes(lp) - 1, LP_BEFORE, NULL);
}

unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, uint32_t slen) {
    if (!lp) lp = lpNew(0);
    return lpInsertString(lp, s, slen, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

unsigned char *lpAppendInteger(unsigned char *lp, long long lval) {
    if (!lp) lp = lpNew(0);
    return lpInsertInteger(lp, lval, lp + lpGetTotalBytes(lp) - 1, LP_BEFORE, NULL);
}

unsigned char *lpPrependInteger(unsigned char *lp, long long lval) {
    if (!lp) lp = lpNew(0);
    return lpInsertInteger(lp, lval, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s,
                         uint32_t slen) {
    return lpInsertEntry(lp, LP_OP_STRING, s, slen, 0, *p, LP_REPLACE, p);
}

unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long lval) {
    return lpInsertEntry(lp, LP_OP_INT, NULL, 0, lval, *p, LP_REPLACE, p);
}

unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp) {
    return lpInsertEntry(lp, LP_OP_DELETE, NULL, 0, 0, p, LP_REPLACE, newp);
}

/* ---- range deletion and merging ---- */

unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long num) {
    unsigned char *first = *p, *tail = first;
    unsigned long deleted = 0;
    if (num == 0) return lp;
    while (deleted < num && tail[0] != LP_EOF) {
        tail = lpSkip(tail);
        deleted++;
    }
    size_t poff = (size_t)(first - lp);
    uint32_t bytes = lpGetTotalBytes(lp);
    memmove(first, tail, (size_t)(lp + bytes - tail));
    lpSetTotalBytes(lp, bytes - (uint32_t)(tail - first));
    uint32_t numele = lpGetNumElements(lp);
    if (numele != LP_HDR_NUMELE_UNKNOWN) lpSetNumElements(lp, numele - (uint32_t)deleted);
    lp = lpShrinkToFit(lp);
    *p = lp[poff] == LP_EOF ? NULL : lp + poff;
    return lp;
}

unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long num) {
    if (num == 0) return lp;
    unsigned char *p = lpSeek(lp, index);
    if (!p) return lp;
    uint32_t numele = lpGetNumElements(lp);
    if (numele != LP_HDR_NUMELE_UNKNOWN) {
        /* Known length: deleting through the end is just moving the EOF,
         * no need to walk the doomed entries. */
        unsigned long start =
            index < 0 ? (unsigned long)((long)numele + index) : (unsigned long)index;
        if (numele - start <= num) {
            p[0] = LP_EOF;
            lpSetTotalBytes(lp, (uint32_t)(p - lp + 1));
            lpSetNumElements(lp, (uint32_t)start);
            return lpShrinkToFit(lp);
        }
    }
    return lpDeleteRangeWithEntry(lp, &p, num);
}

unsigned char *lpMerge(unsigned char *first, unsigned char *second) {
    if (!second) return first;
    if (!first) return second;
    uint64_t b1 = lpGetTotalBytes(first), b2 = lpGetTotalBytes(second);
    uint64_t nb = b1 + b2 - LP_HDR_SIZE - 1;
    /* Too big for the u32 header: nothing is changed or freed. */
    if (nb > UINT32_MAX) return NULL;
    unsigned long n = lpLength(first) + lpLength(second);
    if (nb > zmalloc_size(first)) first = zrealloc(first, (size_t)nb);
    /* Overwrite first's EOF with second's entries and EOF. */
    memcpy(first + b1 - 1, second + LP_HDR_SIZE, (size_t)(b2 - LP_HDR_SIZE));
    lpSetTotalBytes(first, (uint32_t)nb);
    lpSetNumElements(first, n < LP_HDR_NUMELE_UNKNOWN ? (uint32_t)n : LP_HDR_NUMELE_UNKNOWN);
    zfree(second);
    return first;
}

/* ---- navigation ---- */

unsigned long lpLength(unsigned char *lp) {
    uint32_t numele = lpGetNumElements(lp);
    if (numele != LP_HDR_NUMELE_UNKNOWN) return numele;
    unsigned long count = 0;
    for (unsigned char *p = lp + LP_HDR_SIZE; p[0] != LP_EOF; p = lpSkip(p)) count++;
    /* Write the count back once deletions brought it into range again, so
     * the next call is O(1) (Redis does the same, so the bytes agree). */
    if (count < LP_HDR_NUMELE_UNKNOWN) lpSetNumElements(lp, (uint32_t)count);
    return count;
}

unsigned char *lpFirst(unsigned char *lp) {
    unsigned char *p = lp + LP_HDR_SIZE;
    return p[0] == LP_EOF ? NULL : p;
}

unsigned char *lpNext(unsigned char *lp, unsigned char *p) {
    (void)lp;
    assert(p && p[0] != LP_EOF);
    p = lpSkip(p);
    return p[0] == LP_EOF ? NULL : p;
}

/* p may also point at the EOF byte (then the last entry is returned). */
unsigned char *lpPrev(unsigned char *lp, unsigned char *p) {
    assert(p);
    if (p - lp == LP_HDR_SIZE) return NULL;
    uint64_t enclen = lpDecodeBacklen(p - 1);
    return p - enclen - lpBacklenSize(enclen);
}

unsigned char *lpLast(unsigned char *lp) {
    return lpPrev(lp, lp + lpGetTotalBytes(lp) - 1);
}

unsigned char *lpSeek(unsigned char *lp, long index) {
    uint32_t numele = lpGetNumElements(lp);
    int forward;
    if (numele != LP_HDR_NUMELE_UNKNOWN) {
        if (index < 0) index += (long)numele;
        if (index < 0 || index >= (long)numele) return NULL;
        /* Walk from whichever end is nearer. */
        forward = index <= (long)numele / 2;
        if (!forward) index -= (long)numele;
    } else {
        forward = index >= 0;
    }
    unsigned char *p;
    if (forward) {
        p = lpFirst(lp);
        while (p && index-- > 0) p = lpNext(lp, p);
    } else {
        p = lpLast(lp);
        while (p && index++ < -1) p = lpPrev(lp, p);
    }
    return p;
}

/* ---- reading entries ---- */

unsigned char *lpGet(unsigned char *p, int64_t *count, unsigned char *intbuf) {
    uint32_t slen;
    int64_t v;
    uint64_t enclen;
    unsigned char *s = lpDecode(p, &slen, &v, &enclen);
    if (s) {
        *count = slen;
        return s;
    }
    if (intbuf) {
        *count = ll2string((char *)intbuf, LP_INTBUF_SIZE, v);
        return intbuf;
    }
    *count = v;
    return NULL;
}

unsigned char *lpGetValue(unsigned char *p, unsigned int *slen, long long *lval) {
    uint32_t len = 0;
    int64_t v = 0;
    uint64_t enclen;
    unsigned char *s = lpDecode(p, &len, &v, &enclen);
    if (s)
        *slen = len;
    else
        *lval = v;
    return s;
}

int lpCompare(unsigned char *p, const unsigned char *s, uint32_t slen) {
    if (p[0] == LP_EOF) return 0;
    uint32_t len;
    int64_t v;
    uint64_t enclen;
    unsigned char *str = lpDecode(p, &len, &v, &enclen);
    if (str) return len == slen && (len == 0 || memcmp(str, s, len) == 0);
    long long sv;
    return string2ll((const char *)s, slen, &sv) && sv == v;
}

/* The hot path of every small hash/set/zset lookup: one pass, strings
 * rejected on length before touching their bytes, the needle parsed as an
 * integer at most once and only if an integer entry shows up. */
unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s, uint32_t slen,
                      unsigned int skip) {
    const unsigned char *end = lp + lpGetTotalBytes(lp) - 1;
    int sint = -1; /* -1: not parsed yet, 0: not an integer, 1: sval valid */
    long long sval = 0;
    unsigned int skipcnt = 0;
    assert(p);
    while (p < end) {
        unsigned char c = p[0];
        uint64_t enclen;
        if (skipcnt == 0) {
            const unsigned char *str;
            uint32_t len;
            if (c >= 0x80 && c < 0xC0) { /* 6-bit string: the common case */
                len = c & 0x3F;
                str = p + 1;
                enclen = 1 + (uint64_t)len;
            } else if (c >= 0xE0 && c < 0xF0) {
                len = ((uint32_t)(c & 0x0F) << 8) | p[1];
                str = p + 2;
                enclen = 2 + (uint64_t)len;
            } else if (c == LP_ENC_STR32) {
                len = rd32(p + 1);
                str = p + 5;
                enclen = 5 + (uint64_t)len;
            } else {
                int64_t v = lpDecodeInt(p, c, &enclen);
                if (sint < 0) sint = string2ll((const char *)s, slen, &sval);
                if (sint && v == sval) return p;
                str = NULL;
                len = 0;
            }
            if (str && len == slen && (len == 0 || (str[0] == s[0] && memcmp(str, s, len) == 0)))
                return p;
            skipcnt = skip;
        } else {
            enclen = lpEncodedSize(p);
            skipcnt--;
        }
        p += enclen + lpBacklenSize(enclen);
    }
    return NULL;
}

/* ---- misc ---- */

int lpSafeToAdd(unsigned char *lp, size_t add) {
    size_t len = lp ? lpGetTotalBytes(lp) : 0;
    return len + add <= LP_MAX_SAFETY_SIZE;
}

unsigned char *lpRandomEntry(unsigned char *lp, unsigned long *index) {
    unsigned long n = lpLength(lp);
    if (n == 0) return NULL;
    /* random() gives 31 bits; two calls cover any length a listpack can have. */
    unsigned long r = ((unsigned long)random() << 31) ^ (unsigned long)random();
    unsigned long i = r % n;
    if (index) *index = i;
    return lpSeek(lp, (long)i);
}

/* ---- validation of untrusted blobs ---- */

/* Every read is bounds-checked against `avail`, the bytes left before the
 * final EOF byte, before it happens. The backlen must be exactly the
 * canonical encoding of the entry's size: that is what lets lpPrev walk a
 * validated blob safely, and Redis always writes it that way. */
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep) {
    if (!lp || size < LP_HDR_SIZE + 1) return 0;
    if (lpGetTotalBytes(lp) != size) return 0;
    if (lp[size - 1] != LP_EOF) return 0;
    if (!deep) return 1;

    const unsigned char *p = lp + LP_HDR_SIZE;
    const unsigned char *end = lp + size - 1;
    unsigned long count = 0;
    while (p < end) {
        size_t avail = (size_t)(end - p);
        unsigned char c = p[0];
        uint64_t enclen;
        if (c < 0x80)
            enclen = 1;
        else if (c < 0xC0)
            enclen = 1 + (uint64_t)(c & 0x3F);
        else if (c < 0xE0)
            enclen = 2;
        else if (c < 0xF0) {
            if (avail < 2) return 0;
            enclen = 2 + (uint64_t)(((c & 0x0F) << 8) | p[1]);
        } else {
            switch (c) {
                case LP_ENC_STR32:
                    if (avail < 5) return 0;
                    enclen = 5 + (uint64_t)rd32(p + 1);
                    break;
                case LP_ENC_INT16:
                    enclen = 3;
                    break;
                case LP_ENC_INT24:
                    enclen = 4;
                    break;
                case LP_ENC_INT32:
                    enclen = 5;
                    break;
                case LP_ENC_INT64:
                    enclen = 9;
                    break;
                default:
                    return 0; /* 0xF5..0xFE, or an EOF before the end */
            }
        }
        unsigned bllen = lpBacklenSize(enclen);
        if (enclen + bllen > avail) return 0;
        unsigned char bl[5];
        lpEncodeBacklen(bl, enclen);
        if (memcmp(p + enclen, bl, bllen) != 0) return 0;
        p += enclen + bllen;
        count++;
    }
    /* A saturated header is legal with any count: deletions do not recount. */
    uint32_t numele = lpGetNumElements(lp);
    if (numele != LP_HDR_NUMELE_UNKNOWN && numele != count) return 0;
    return 1;
}
