/* intset.c: sorted sets of unique integers in one block (see intset.h),
 * byte-compatible with Redis' intset so RDB_TYPE_SET_INTSET payloads are the
 * blob itself.
 *
 * Values enter through intsetAdd (upgrading the whole array to a wider
 * encoding when needed; never downgraded, like Redis) and leave by value
 * through intsetGet/intsetFind/... The block is zmalloc'ed and owned by the
 * caller; intsetAdd/intsetRemove may reallocate and return the new pointer.
 * Header and values are little-endian on disk and in memory; all access goes
 * through memcpy + byte-order helpers so unaligned blobs are fine too. */
#include "intset.h"

#include <stdlib.h>
#include <string.h>

#include "zmalloc.h"

#define INTSET_ENC_INT16 ((uint32_t)sizeof(int16_t))
#define INTSET_ENC_INT32 ((uint32_t)sizeof(int32_t))
#define INTSET_ENC_INT64 ((uint32_t)sizeof(int64_t))

/* Byte order: the format is little-endian; swap only on big-endian hosts. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define le16(v) __builtin_bswap16(v)
#define le32(v) __builtin_bswap32(v)
#define le64(v) __builtin_bswap64(v)
#else
#define le16(v) (v)
#define le32(v) (v)
#define le64(v) (v)
#endif

static inline uint32_t hdrEncoding(const intset *is) {
    return le32(is->encoding);
}
static inline uint32_t hdrLength(const intset *is) {
    return le32(is->length);
}

static inline uint32_t valueEncoding(int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) return INTSET_ENC_INT64;
    if (v < INT16_MIN || v > INT16_MAX) return INTSET_ENC_INT32;
    return INTSET_ENC_INT16;
}

/* Value at pos when the array is stored with encoding enc. */
static inline int64_t getRaw(const unsigned char *contents, uint32_t pos, uint32_t enc) {
    const unsigned char *at = contents + (size_t)pos * enc;
    if (enc == INTSET_ENC_INT64) {
        uint64_t v;
        memcpy(&v, at, 8);
        return (int64_t)le64(v);
    }
    if (enc == INTSET_ENC_INT32) {
        uint32_t v;
        memcpy(&v, at, 4);
        return (int32_t)le32(v);
    }
    uint16_t v;
    memcpy(&v, at, 2);
    return (int16_t)le16(v);
}

static inline int64_t getEncoded(const intset *is, uint32_t pos, uint32_t enc) {
    return getRaw((const unsigned char *)is->contents, pos, enc);
}

static inline int64_t getAt(const intset *is, uint32_t pos) {
    return getEncoded(is, pos, hdrEncoding(is));
}

static inline void setAt(intset *is, uint32_t pos, int64_t value) {
    uint32_t enc = hdrEncoding(is);
    int8_t *at = is->contents + (size_t)pos * enc;
    if (enc == INTSET_ENC_INT64) {
        uint64_t v = le64((uint64_t)value);
        memcpy(at, &v, 8);
    } else if (enc == INTSET_ENC_INT32) {
        uint32_t v = le32((uint32_t)(int32_t)value);
        memcpy(at, &v, 4);
    } else {
        uint16_t v = le16((uint16_t)(int16_t)value);
        memcpy(at, &v, 2);
    }
}

/* Exact-size allocation, as Redis does (the set converts to a hash table
 * long before repeated reallocs would matter). */
static intset *resize(intset *is, uint32_t len) {
    return zrealloc(is, sizeof(intset) + (size_t)len * hdrEncoding(is));
}

/* Binary search: 1 and *pos = index if found, else 0 and *pos = where the
 * value would be inserted. */
static int search(const intset *is, int64_t value, uint32_t *pos) {
    uint32_t len = hdrLength(is);
    if (len == 0) {
        *pos = 0;
        return 0;
    }
    /* Appends and prepends of new extremes are common (sequential ids). */
    if (value > getAt(is, len - 1)) {
        *pos = len;
        return 0;
    }
    if (value < getAt(is, 0)) {
        *pos = 0;
        return 0;
    }
    uint32_t lo = 0, hi = len; /* half-open [lo, hi) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int64_t cur = getAt(is, mid);
        if (cur == value) {
            *pos = mid;
            return 1;
        }
        if (cur < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return 0;
}

intset *intsetNew(void) {
    intset *is = zmalloc(sizeof(intset));
    is->encoding = le32(INTSET_ENC_INT16);
    is->length = 0;
    return is;
}

/* value needs a wider encoding than the set has, so it is either smaller or
 * larger than every member: it goes at one end. Values are rewritten from
 * the back so the wider copies never overwrite unread narrow ones. */
static intset *upgradeAndAdd(intset *is, int64_t value) {
    uint32_t oldenc = hdrEncoding(is);
    uint32_t len = hdrLength(is);
    int prepend = value < 0;
    is->encoding = le32(valueEncoding(value));
    is = resize(is, len + 1);
    for (uint32_t i = len; i-- > 0;) setAt(is, i + (uint32_t)prepend, getEncoded(is, i, oldenc));
    setAt(is, prepend ? 0 : len, value);
    is->length = le32(len + 1);
    return is;
}

intset *intsetAdd(intset *is, int64_t value, uint8_t *success) {
    uint32_t pos;
    if (success) *success = 1;
    if (valueEncoding(value) > hdrEncoding(is)) return upgradeAndAdd(is, value);
    if (search(is, value, &pos)) {
        if (success) *success = 0;
        return is;
    }
    uint32_t len = hdrLength(is);
    uint32_t enc = hdrEncoding(is);
    is = resize(is, len + 1);
    if (pos < len)
        memmove(is->contents + (size_t)(pos + 1) * enc, is->contents + (size_t)pos * enc,
                (size_t)(len - pos) * enc);
    setAt(is, pos, value);
    is->length = le32(len + 1);
    return is;
}

intset *intsetRemove(intset *is, int64_t value, int *success) {
    uint32_t pos;
    if (success) *success = 0;
    if (valueEncoding(value) > hdrEncoding(is) || !search(is, value, &pos)) return is;
    uint32_t len = hdrLength(is);
    uint32_t enc = hdrEncoding(is);
    if (pos < len - 1)
        memmove(is->contents + (size_t)pos * enc, is->contents + (size_t)(pos + 1) * enc,
                (size_t)(len - pos - 1) * enc);
    is = resize(is, len - 1);
    is->length = le32(len - 1);
    if (success) *success = 1;
    return is;
}

uint8_t intsetFind(intset *is, int64_t value) {
    uint32_t pos;
    return valueEncoding(value) <= hdrEncoding(is) && search(is, value, &pos);
}

/* Callers check the set is not empty (an empty intset is never kept). */
int64_t intsetRandom(intset *is) {
    uint32_t len = hdrLength(is);
    if (len == 0) return 0;
    return getAt(is, (uint32_t)((unsigned long)random() % len));
}

uint8_t intsetGet(intset *is, uint32_t pos, int64_t *value) {
    if (pos >= hdrLength(is)) return 0;
    *value = getAt(is, pos);
    return 1;
}

uint32_t intsetLen(const intset *is) {
    return hdrLength(is);
}

size_t intsetBlobLen(intset *is) {
    return sizeof(intset) + (size_t)hdrLength(is) * hdrEncoding(is);
}

/* 0 for an empty set (Redis leaves that undefined). */
int64_t intsetMax(intset *is) {
    uint32_t len = hdrLength(is);
    return len ? getAt(is, len - 1) : 0;
}

int64_t intsetMin(intset *is) {
    return hdrLength(is) ? getAt(is, 0) : 0;
}

/* Checks an untrusted blob: known encoding, size matching the header
 * exactly, not empty (Redis 7.0 rejects empty intsets too), and with deep
 * set strictly ascending values (sorted and unique). Reads only header
 * fields via memcpy, so any alignment works. */
int intsetValidateIntegrity(const unsigned char *p, size_t size, int deep) {
    if (!p || size < sizeof(intset)) return 0;
    uint32_t enc, len;
    memcpy(&enc, p, 4);
    memcpy(&len, p + 4, 4);
    enc = le32(enc);
    len = le32(len);
    if (enc != INTSET_ENC_INT16 && enc != INTSET_ENC_INT32 && enc != INTSET_ENC_INT64) return 0;
    if (sizeof(intset) + (uint64_t)len * enc != size) return 0;
    if (len == 0) return 0;
    if (!deep) return 1;
    const unsigned char *contents = p + sizeof(intset);
    int64_t prev = getRaw(contents, 0, enc);
    for (uint32_t i = 1; i < len; i++) {
        int64_t cur = getRaw(contents, i, enc);
        if (cur <= prev) return 0;
        prev = cur;
    }
    return 1;
}
