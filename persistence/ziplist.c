/* ziplist: validation and conversion of Redis' legacy ziplist and zipmap
 * blobs into listpacks (see ziplist.h for the contract).
 *
 * Ziplist layout: <zlbytes u32><zltail u32><zllen u16><entry>...<0xFF>, all
 * little endian. An entry is <prevlen><encoding>[<data>]: prevlen is one
 * byte (< 254) or 0xFE and a u32; the encoding is a string header with a
 * 6-bit, 14-bit (big endian) or 32-bit (big endian) length, or an integer
 * tag (int16/32/64/24/8, or 0xF1..0xFD for the values 0..12 stored in the
 * tag itself). The checks mirror what a well-formed blob must satisfy:
 * zlbytes equals the blob size, every entry fits before the terminator,
 * every prevlen equals the previous entry's size, zltail points at the last
 * entry and zllen (unless saturated at 65535) counts the entries.
 *
 * Zipmap layout: <zmlen u8> then <len>field<len><free>value<free bytes>
 * pairs and 0xFF, where <len> is one byte (< 254) or 0xFE and a u32. */
#include "ziplist.h"
#include "listpack.h"
#include "util.h"
#include "zmalloc.h"

#include <stdint.h>
#include <string.h>

#define ZL_HEADER 10
#define ZL_END 0xFF

static uint32_t rdLe32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Decode the entry at p (with `avail` bytes before the terminator). Fills
 * either *s and *slen (string) or *ll (integer, *s = NULL) and returns the
 * entry's total size and its prevlen, or 0 if it is malformed. */
static size_t zlDecodeEntry(const unsigned char *p, size_t avail, size_t *prevlen,
                            const unsigned char **s, size_t *slen, long long *ll) {
    size_t h;
    if (avail < 1) return 0;
    if (p[0] < 0xFE) {
        *prevlen = p[0];
        h = 1;
    } else if (p[0] == 0xFE) {
        if (avail < 5) return 0;
        *prevlen = rdLe32(p + 1);
        h = 5;
    } else {
        return 0;
    }
    if (avail < h + 1) return 0;
    const unsigned char *e = p + h;
    unsigned char b = e[0];
    size_t enc, data;
    *s = NULL;
    switch (b >> 6) {
    case 0:
        enc = 1;
        data = b & 0x3F;
        break;
    case 1:
        if (avail < h + 2) return 0;
        enc = 2;
        data = (size_t)((b & 0x3F) << 8 | e[1]);
        break;
    case 2:
        if (avail < h + 5) return 0;
        enc = 5;
        data = (size_t)e[1] << 24 | (size_t)e[2] << 16 | (size_t)e[3] << 8 | e[4];
        break;
    default:
        enc = 1;
        if (b == 0xC0) data = 2;
        else if (b == 0xD0) data = 4;
        else if (b == 0xE0) data = 8;
        else if (b == 0xF0) data = 3;
        else if (b == 0xFE) data = 1;
        else if (b >= 0xF1 && b <= 0xFD) data = 0;
        else return 0;
        break;
    }
    if (data > avail - h - enc) return 0;
    const unsigned char *d = e + enc;
    if ((b >> 6) != 3) {
        *s = d;
        *slen = data;
    } else if (b == 0xC0) {
        *ll = (int16_t)(d[0] | d[1] << 8);
    } else if (b == 0xD0) {
        *ll = (int32_t)rdLe32(d);
    } else if (b == 0xE0) {
        *ll = (int64_t)((uint64_t)rdLe32(d) | (uint64_t)rdLe32(d + 4) << 32);
    } else if (b == 0xF0) {
        int32_t v = (int32_t)((uint32_t)d[0] << 8 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 24);
        *ll = v >> 8;
    } else if (b == 0xFE) {
        *ll = (int8_t)d[0];
    } else {
        *ll = (b & 0x0F) - 1;
    }
    return h + enc + data;
}

unsigned char *ziplistToListpack(const unsigned char *zl, size_t size, unsigned long *count,
                                 size_t *maxlen) {
    if (size < ZL_HEADER + 1 || size > UINT32_MAX) return NULL;
    if (rdLe32(zl) != size || zl[size - 1] != ZL_END) return NULL;
    uint32_t tail = rdLe32(zl + 4);
    unsigned zllen = (unsigned)(zl[8] | zl[9] << 8);
    const unsigned char *p = zl + ZL_HEADER, *end = zl + size - 1, *last = p;
    size_t prev = 0;
    unsigned long n = 0;
    *maxlen = 0;
    unsigned char *lp = lpNew(size);
    while (p < end) {
        size_t prevlen, slen = 0;
        const unsigned char *s;
        long long ll = 0;
        size_t len = zlDecodeEntry(p, (size_t)(end - p), &prevlen, &s, &slen, &ll);
        if (len == 0 || prevlen != prev || !lpSafeToAdd(lp, slen + 32)) {
            lpFree(lp);
            return NULL;
        }
        if (s) {
            lp = lpAppend(lp, s, (uint32_t)slen);
            if (slen > *maxlen) *maxlen = slen;
        } else {
            lp = lpAppendInteger(lp, ll);
            size_t digits = sdigits10(ll);
            if (digits > *maxlen) *maxlen = digits;
        }
        last = p;
        prev = len;
        p += len;
        n++;
    }
    if ((size_t)(last - zl) != tail || (zllen != 0xFFFF && zllen != n)) {
        lpFree(lp);
        return NULL;
    }
    *count = n;
    return lp;
}

/* A zipmap length at p (avail bytes left); 0 if it does not fit. */
static size_t zmDecodeLen(const unsigned char *p, size_t avail, size_t *len) {
    if (avail < 1 || p[0] == 0xFF) return 0;
    if (p[0] < 0xFE) {
        *len = p[0];
        return 1;
    }
    if (avail < 5) return 0;
    *len = rdLe32(p + 1);
    return 5;
}

unsigned char *zipmapToListpack(const unsigned char *zm, size_t size, unsigned long *pairs,
                                size_t *maxlen) {
    if (size < 2 || zm[size - 1] != 0xFF) return NULL;
    const unsigned char *p = zm + 1, *end = zm + size - 1;
    unsigned long n = 0;
    *maxlen = 0;
    unsigned char *lp = lpNew(size);
    while (p < end) {
        size_t klen, vlen, h;
        if ((h = zmDecodeLen(p, (size_t)(end - p), &klen)) == 0 || klen > (size_t)(end - p) - h)
            goto bad;
        const unsigned char *key = p + h;
        p = key + klen;
        if ((h = zmDecodeLen(p, (size_t)(end - p), &vlen)) == 0 || (size_t)(end - p) < h + 1)
            goto bad;
        size_t freelen = p[h];
        const unsigned char *val = p + h + 1;
        if (vlen > (size_t)(end - val) || freelen > (size_t)(end - val) - vlen) goto bad;
        p = val + vlen + freelen;
        if (!lpSafeToAdd(lp, klen + vlen + 64)) goto bad;
        lp = lpAppend(lp, key, (uint32_t)klen);
        lp = lpAppend(lp, val, (uint32_t)vlen);
        if (klen > *maxlen) *maxlen = klen;
        if (vlen > *maxlen) *maxlen = vlen;
        n++;
    }
    if (p != end || n == 0) goto bad;
    *pairs = n;
    return lp;
bad:
    lpFree(lp);
    return NULL;
}
