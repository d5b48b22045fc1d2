/* rdb_load: reading snapshots. One value (rdbLoadObject) and a whole file
 * (rdbLoadRio, rdbLoadFile).
 *
 * Data enters from a rio as untrusted bytes: every length is checked
 * against what can follow, big strings are read in 1 MB steps (a corrupt
 * length runs into the end of the file instead of into a huge
 * allocation), every compact blob (listpack, intset, ziplist, zipmap) is
 * validated entry by entry before anything walks it, and duplicates in
 * sets, hashes and sorted sets are refused. A malformed file therefore
 * ends in an error message with the byte offset, never a crash.
 *
 * Values leave as robjs (refcount 1, owned by the caller) in cairn's
 * current encodings. Legacy encodings are converted the way Redis 7.0
 * converts them: ziplists and zipmaps to listpacks, 7.2's listpack sets to
 * intsets or hashtables. A compact blob with more entries, or a longer
 * entry, than the current *-max-listpack-* settings allow gets the big
 * encoding. (Redis 7.0.15 ignores the length limit for ziplist and
 * listpack hashes and sorted sets, converting those by count only; cairn
 * applies both limits everywhere, so a loaded value is always one that
 * HSET/ZADD could have built.) Keys
 * enter the keyspace through db.h; keys whose expire time has passed are
 * skipped, as a Redis primary does. */
#include "rdb.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "intset.h"
#include "lfu.h"
#include "listpack.h"
#include "log.h"
#include "quicklist.h"
#include "rio_codec.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "util.h"
#include "ziplist.h"
#include "zmalloc.h"
#include "zset.h"

#include <errno.h>
#include <liblzf/lzf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RDB_READ_CHUNK (1024 * 1024)
#define RDB_EXPAND_CAP (1UL << 20) /* largest size hint a count from the file may cause */

static void rdbSetError(sds *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rdbSetError(sds *err, const char *fmt, ...) {
    if (*err) return; /* keep the first, innermost reason */
    va_list ap;
    va_start(ap, fmt);
    *err = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
}

#define SHORT_READ "Short read or unexpected end of file"

/* ---- primitives ---- */

static int rdbReadByte(rio *r, unsigned char *b, sds *err) {
    if (rioRead(r, b, 1)) return 0;
    rdbSetError(err, SHORT_READ);
    return -1;
}

/* A length, or with *isenc set, the RDB_ENCVAL special encoding number. */
static int rdbReadLen(rio *r, uint64_t *len, int *isenc, sds *err) {
    unsigned char buf[8];
    if (isenc) *isenc = 0;
    if (rdbReadByte(r, buf, err) == -1) return -1;
    int kind = (buf[0] & 0xC0) >> 6;
    if (kind == RDB_ENCVAL) {
        if (!isenc) {
            rdbSetError(err, "Unexpected string encoding where a length was expected");
            return -1;
        }
        *isenc = 1;
        *len = buf[0] & 0x3F;
    } else if (kind == RDB_6BITLEN) {
        *len = buf[0] & 0x3F;
    } else if (kind == RDB_14BITLEN) {
        unsigned char b2;
        if (rdbReadByte(r, &b2, err) == -1) return -1;
        *len = ((uint64_t)(buf[0] & 0x3F) << 8) | b2;
    } else if (buf[0] == RDB_32BITLEN || buf[0] == RDB_64BITLEN) {
        int n = buf[0] == RDB_32BITLEN ? 4 : 8;
        if (!rioRead(r, buf, (size_t)n)) {
            rdbSetError(err, SHORT_READ);
            return -1;
        }
        uint64_t v = 0;
        for (int j = 0; j < n; j++) v = (v << 8) | buf[j];
        *len = v;
    } else {
        rdbSetError(err, "Unknown length encoding %d", buf[0]);
        return -1;
    }
    return 0;
}

static int rdbReadPlainLen(rio *r, uint64_t *len, sds *err) { return rdbReadLen(r, len, NULL, err); }

/* len bytes into a new zmalloc'ed buffer of exactly len bytes, grown as
 * the bytes arrive (a corrupt length runs into the end of the file, not
 * into a huge allocation). NULL on a short read. */
static unsigned char *rdbReadBytes(rio *r, size_t len, sds *err) {
    size_t cap = len < RDB_READ_CHUNK ? len : RDB_READ_CHUNK;
    unsigned char *buf = zmalloc(cap);
    size_t got = 0;
    while (got < len) {
        size_t n = len - got < RDB_READ_CHUNK ? len - got : RDB_READ_CHUNK;
        if (got + n > cap) {
            cap = cap * 2 < len ? cap * 2 : len;
            if (cap < got + n) cap = got + n;
            buf = zrealloc(buf, cap);
        }
        if (!rioRead(r, buf + got, n)) {
            zfree(buf);
            rdbSetError(err, SHORT_READ);
            return NULL;
        }
        got += n;
    }
    return buf;
}

#define RDB_LOAD_SDS 0   /* an sds */
#define RDB_LOAD_PLAIN 1 /* a zmalloc'ed buffer of exactly *lenp bytes (blobs) */
#define RDB_LOAD_OBJ 2   /* a string robj, integer-encoded when it can be */
#define RDB_LOAD_KEY 3   /* an sds made as the keyspace makes keys (sdsnewkey) */

/* A new string of len bytes in the form mode asks for, its bytes not set
 * yet: *dst gets where they go. Free it with rdbFreeString. */
static void *rdbNewString(int mode, size_t len, unsigned char **dst) {
    if (mode == RDB_LOAD_PLAIN) return *dst = zmalloc(len);
    if (mode == RDB_LOAD_OBJ) {
        robj *o = createStringObject(NULL, len);
        *dst = o->ptr;
        return o;
    }
    sds s = mode == RDB_LOAD_KEY ? sdsnewkey(NULL, len) : sdsnewlenuninit(len);
    *dst = (unsigned char *)s;
    return s;
}

static void rdbFreeString(int mode, void *s) {
    if (mode == RDB_LOAD_PLAIN) zfree(s);
    else if (mode == RDB_LOAD_OBJ) decrRefCount(s);
    else sdsfree(s);
}

static void *rdbFinishString(int mode, unsigned char *buf, size_t len) {
    if (mode == RDB_LOAD_PLAIN) return buf;
    unsigned char *dst;
    void *out = rdbNewString(mode, len, &dst);
    memcpy(dst, buf, len);
    zfree(buf);
    return out;
}

/* An LZF-compressed string: the compressed bytes are used in place when
 * the read window holds them, and inflated straight into the result. */
static void *rdbLoadLzfString(rio *r, int mode, size_t *lenp, sds *err) {
    uint64_t clen, ulen;
    if (rdbReadPlainLen(r, &clen, err) == -1 || rdbReadPlainLen(r, &ulen, err) == -1) return NULL;
    /* LZF expands at most about 88 times (a 3-byte back reference yields
     * 264 bytes): anything more is a corrupt header. */
    if (clen == 0 || ulen == 0 || clen > UINT32_MAX || ulen > UINT32_MAX || ulen / 100 > clen) {
        rdbSetError(err, "Invalid LZF compressed string lengths (%llu -> %llu)", (unsigned long long)clen,
                    (unsigned long long)ulen);
        return NULL;
    }
    unsigned char *copy = NULL;
    const unsigned char *c = rioReadInPlace(r, clen);
    if (!c && !(c = copy = rdbReadBytes(r, clen, err))) return NULL;
    unsigned char *dst;
    void *out = rdbNewString(mode, ulen, &dst);
    unsigned int n = lzf_decompress(c, (unsigned int)clen, dst, (unsigned int)ulen);
    zfree(copy);
    if (n != ulen) {
        rdbFreeString(mode, out);
        rdbSetError(err, "Invalid LZF compressed string");
        return NULL;
    }
    if (lenp) *lenp = ulen;
    return out;
}

static void *rdbLoadString(rio *r, int mode, size_t *lenp, sds *err) {
    uint64_t len;
    int isenc;
    if (rdbReadLen(r, &len, &isenc, err) == -1) return NULL;
    if (isenc) {
        if (len == RDB_ENC_LZF) return rdbLoadLzfString(r, mode, lenp, err);
        long long v;
        unsigned char b[4];
        if (len == RDB_ENC_INT8) {
            if (!rioRead(r, b, 1)) goto short_read;
            v = (int8_t)b[0];
        } else if (len == RDB_ENC_INT16) {
            if (!rioRead(r, b, 2)) goto short_read;
            v = (int16_t)(b[0] | b[1] << 8);
        } else if (len == RDB_ENC_INT32) {
            if (!rioRead(r, b, 4)) goto short_read;
            v = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
        } else {
            rdbSetError(err, "Unknown RDB string encoding type %d", (int)len);
            return NULL;
        }
        if (mode == RDB_LOAD_OBJ) return createStringObjectFromLongLongForValue(v);
        char buf[LONG_STR_SIZE];
        int n = ll2string(buf, sizeof(buf), v);
        if (lenp) *lenp = (size_t)n;
        unsigned char *dst;
        void *out = rdbNewString(mode, (size_t)n, &dst);
        memcpy(dst, buf, (size_t)n);
        return out;
    }
    if (len > SIZE_MAX / 2) {
        rdbSetError(err, "String length %llu out of range", (unsigned long long)len);
        return NULL;
    }
    if (lenp) *lenp = len;
    if (len <= RDB_READ_CHUNK) {
        /* Read straight into the result. */
        unsigned char *dst;
        void *out = rdbNewString(mode, len, &dst);
        if (!rioRead(r, dst, len)) {
            rdbFreeString(mode, out);
            goto short_read;
        }
        return out;
    }
    unsigned char *buf = rdbReadBytes(r, len, err);
    if (!buf) return NULL;
    return rdbFinishString(mode, buf, len);
short_read:
    rdbSetError(err, SHORT_READ);
    return NULL;
}

static sds rdbLoadSds(rio *r, sds *err) { return rdbLoadString(r, RDB_LOAD_SDS, NULL, err); }
sds rdbLoadSdsString(rio *r, sds *err) { return rdbLoadSds(r, err); }
/* Database keys and set members: the same sds form SET and SADD create, so
 * a loaded dataset takes the memory the same commands would. */
static sds rdbLoadKeySds(rio *r, sds *err) { return rdbLoadString(r, RDB_LOAD_KEY, NULL, err); }

static int rdbLoadBinaryDouble(rio *r, double *d, sds *err) {
    unsigned char buf[8];
    if (!rioRead(r, buf, 8)) {
        rdbSetError(err, SHORT_READ);
        return -1;
    }
    memcpy(d, buf, 8);
    return 0;
}

/* RDB_TYPE_ZSET's scores: a length byte (253 nan, 254 inf, 255 -inf) and text. */
static int rdbLoadDoubleText(rio *r, double *d, sds *err) {
    unsigned char len;
    char buf[256];
    if (rdbReadByte(r, &len, err) == -1) return -1;
    if (len == 253) *d = NAN;
    else if (len == 254) *d = INFINITY;
    else if (len == 255) *d = -INFINITY;
    else {
        if (!rioRead(r, buf, len)) {
            rdbSetError(err, SHORT_READ);
            return -1;
        }
        buf[len] = '\0';
        char *end;
        *d = strtod(buf, &end);
        if (len == 0 || end != buf + len) {
            rdbSetError(err, "Invalid sorted set score");
            return -1;
        }
    }
    return 0;
}

/* ---- duplicate detection for compact blobs ---- */

/* The entry at p as a new sds. */
static sds rdbLpEntrySds(unsigned char *p) {
    unsigned char intbuf[LP_INTBUF_SIZE];
    int64_t len;
    unsigned char *s = lpGet(p, &len, intbuf);
    return sdsnewlen(s, (size_t)len);
}

/* Duplicate detection without an allocation per entry: each checked entry's
 * hash goes into a small open-addressing table of entry pointers, and two
 * entries are compared only when their hashes are equal. Loading is
 * dominated by small listpacks, so this runs for nearly every hash and
 * sorted set in a file; the table lives on the stack up to 256 slots. */
typedef struct rdbLpSlot {
    uint64_t hash;
    unsigned char *p; /* NULL: empty */
} rdbLpSlot;

static int rdbLpEntriesEqual(unsigned char *a, unsigned char *b) {
    unsigned char ba[LP_INTBUF_SIZE], bb[LP_INTBUF_SIZE];
    int64_t la, lb;
    unsigned char *sa = lpGet(a, &la, ba), *sb = lpGet(b, &lb, bb);
    return la == lb && memcmp(sa, sb, (size_t)la) == 0;
}

/* 1 if every `step`-th entry (from the first) of lp is distinct; *maxlen
 * gets the longest of all entries. */
static int rdbLpCheckDistinct(unsigned char *lp, int step, size_t *maxlen) {
    rdbLpSlot local[256];
    size_t want = 2 * (lpLength(lp) / (size_t)step + 1), size = 16;
    while (size < want) size <<= 1;
    rdbLpSlot *slots = size <= 256 ? local : zmalloc(sizeof(*slots) * size);
    memset(slots, 0, sizeof(*slots) * size);
    int ok = 1, j = 0;
    *maxlen = 0;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), j++) {
        unsigned char intbuf[LP_INTBUF_SIZE];
        int64_t len;
        unsigned char *s = lpGet(p, &len, intbuf);
        if ((size_t)len > *maxlen) *maxlen = (size_t)len;
        if (j % step != 0 || !ok) continue;
        uint64_t h = dictGenHashFunction(s, (size_t)len);
        size_t i = h & (size - 1);
        /* The table is at least twice the entries, so a free slot exists. */
        for (; slots[i].p; i = (i + 1) & (size - 1))
            if (slots[i].hash == h && rdbLpEntriesEqual(slots[i].p, p)) {
                ok = 0;
                break;
            }
        if (ok) {
            slots[i].hash = h;
            slots[i].p = p;
        }
    }
    if (slots != local) zfree(slots);
    return ok;
}

/* ---- strings and lists ---- */

static robj *rdbLoadStringValue(rio *r, sds *err) {
    robj *o = rdbLoadString(r, RDB_LOAD_OBJ, NULL, err);
    return o ? tryObjectEncoding(o) : NULL;
}

/* Push every entry of lp onto the list (the listpack is only read). */
static void rdbListPushAll(robj *o, unsigned char *lp) {
    unsigned char intbuf[LP_INTBUF_SIZE];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        int64_t len;
        unsigned char *s = lpGet(p, &len, intbuf);
        listTypePush(o, (const char *)s, (size_t)len, QUICKLIST_TAIL);
    }
}

static robj *rdbLoadListPlain(rio *r, sds *err) {
    uint64_t n;
    if (rdbReadPlainLen(r, &n, err) == -1) return NULL;
    robj *o = listTypeCreate();
    for (uint64_t j = 0; j < n; j++) {
        sds s = rdbLoadSds(r, err);
        if (!s) {
            decrRefCount(o);
            return NULL;
        }
        listTypePush(o, s, sdslen(s), QUICKLIST_TAIL);
        sdsfree(s);
    }
    if (listTypeLength(o) == 0) {
        decrRefCount(o);
        return NULL;
    }
    return o;
}

static robj *rdbLoadListZiplist(rio *r, sds *err) {
    size_t size, maxlen;
    unsigned long count;
    unsigned char *zl = rdbLoadString(r, RDB_LOAD_PLAIN, &size, err);
    if (!zl) return NULL;
    unsigned char *lp = ziplistToListpack(zl, size, &count, &maxlen);
    zfree(zl);
    if (!lp) {
        rdbSetError(err, "List ziplist integrity check failed");
        return NULL;
    }
    robj *o = NULL;
    if (count) {
        o = listTypeCreate();
        rdbListPushAll(o, lp);
    }
    lpFree(lp);
    return o;
}

/* QUICKLIST (ziplist nodes, RDB 7-9) and QUICKLIST_2 (listpack or plain
 * nodes, RDB 10+). Nodes are kept as they were written, as Redis does. */
static robj *rdbLoadQuicklist(int type, rio *r, sds *err) {
    uint64_t nodes;
    if (rdbReadPlainLen(r, &nodes, err) == -1) return NULL;
    robj *o = listTypeCreate();
    quicklist *ql = o->ptr;
    for (uint64_t j = 0; j < nodes; j++) {
        uint64_t container = QUICKLIST_NODE_CONTAINER_PACKED;
        if (type == RDB_TYPE_LIST_QUICKLIST_2) {
            if (rdbReadPlainLen(r, &container, err) == -1) goto fail;
            if (container != QUICKLIST_NODE_CONTAINER_PACKED && container != QUICKLIST_NODE_CONTAINER_PLAIN) {
                rdbSetError(err, "Quicklist integrity check failed: unknown node container %llu",
                            (unsigned long long)container);
                goto fail;
            }
        }
        size_t size;
        unsigned char *blob = rdbLoadString(r, RDB_LOAD_PLAIN, &size, err);
        if (!blob) goto fail;
        /* No node of either kind is ever written empty (Redis refuses it). */
        if (size == 0) {
            zfree(blob);
            rdbSetError(err, "Quicklist integrity check failed: empty node");
            goto fail;
        }
        if (container == QUICKLIST_NODE_CONTAINER_PLAIN) {
            quicklistAppendPlainNode(ql, blob, size);
            continue;
        }
        unsigned char *lp = blob;
        if (type == RDB_TYPE_LIST_QUICKLIST) {
            unsigned long count;
            size_t maxlen;
            lp = ziplistToListpack(blob, size, &count, &maxlen);
            zfree(blob);
            if (!lp) {
                rdbSetError(err, "Quicklist ziplist node integrity check failed");
                goto fail;
            }
        } else if (!lpValidateIntegrity(lp, size, 1)) {
            zfree(lp);
            rdbSetError(err, "Quicklist listpack node integrity check failed");
            goto fail;
        }
        unsigned long n = lpLength(lp);
        if (n == 0) {
            lpFree(lp); /* empty nodes are skipped, as Redis does */
        } else if (n > 65535) {
            rdbListPushAll(o, lp); /* more than a node can count */
            lpFree(lp);
        } else {
            quicklistAppendListpack(ql, lp);
        }
    }
    if (listTypeLength(o) == 0) {
        decrRefCount(o);
        return NULL;
    }
    return o;
fail:
    decrRefCount(o);
    return NULL;
}

/* ---- sets ---- */

static robj *rdbSetCreateFor(uint64_t size) {
    if ((long long)size > cfg.set_max_intset_entries)
        return setTypeCreateDict(size < RDB_EXPAND_CAP ? (unsigned long)size : RDB_EXPAND_CAP);
    return setTypeCreateIntset();
}

static robj *rdbLoadSetPlain(rio *r, sds *err) {
    uint64_t n;
    if (rdbReadPlainLen(r, &n, err) == -1) return NULL;
    if (n == 0) return NULL;
    robj *o = rdbSetCreateFor(n);
    for (uint64_t j = 0; j < n; j++) {
        sds m = rdbLoadKeySds(r, err);
        if (!m) goto fail;
        if (!setTypeAddSdsOwned(o, m)) {
            rdbSetError(err, "Duplicate set members detected");
            goto fail;
        }
    }
    return o;
fail:
    decrRefCount(o);
    return NULL;
}

static robj *rdbLoadSetIntset(rio *r, sds *err) {
    size_t size;
    unsigned char *blob = rdbLoadString(r, RDB_LOAD_PLAIN, &size, err);
    if (!blob) return NULL;
    if (!intsetValidateIntegrity(blob, size, 1)) {
        zfree(blob);
        rdbSetError(err, "Intset integrity check failed");
        return NULL;
    }
    robj *o = createObject(OBJ_SET, blob);
    o->encoding = OBJ_ENCODING_INTSET;
    if ((long long)intsetLen((intset *)blob) > cfg.set_max_intset_entries) setTypeConvertToDict(o);
    return o;
}

/* Redis 7.2's listpack sets: cairn (like 7.0) has intsets and hashtables. */
static robj *rdbLoadSetListpack(rio *r, sds *err) {
    size_t size;
    unsigned char *lp = rdbLoadString(r, RDB_LOAD_PLAIN, &size, err);
    if (!lp) return NULL;
    if (!lpValidateIntegrity(lp, size, 1)) {
        zfree(lp);
        rdbSetError(err, "Set listpack integrity check failed");
        return NULL;
    }
    unsigned long n = lpLength(lp);
    robj *o = n ? rdbSetCreateFor(n) : NULL;
    for (unsigned char *p = lpFirst(lp); o && p; p = lpNext(lp, p)) {
        sds m = rdbLpEntrySds(p);
        int added = setTypeAddSds(o, m);
        sdsfree(m);
        if (!added) {
            rdbSetError(err, "Duplicate set members detected");
            decrRefCount(o);
            o = NULL;
        }
    }
    lpFree(lp);
    return o;
}

/* ---- sorted sets ---- */

static robj *rdbLoadZsetPairs(int type, rio *r, sds *err) {
    uint64_t n;
    if (rdbReadPlainLen(r, &n, err) == -1) return NULL;
    if (n == 0) return NULL;
    robj *o = zsetCreateSkiplistObject();
    zset *zs = o->ptr;
    if (n > DICT_HT_INITIAL_SIZE) dictTryExpand(zs->dict, n < RDB_EXPAND_CAP ? (unsigned long)n : RDB_EXPAND_CAP);
    size_t maxelelen = 0, totelelen = 0;
    for (uint64_t j = 0; j < n; j++) {
        sds m = rdbLoadSds(r, err);
        if (!m) goto fail;
        double score;
        int ret = type == RDB_TYPE_ZSET_2 ? rdbLoadBinaryDouble(r, &score, err) : rdbLoadDoubleText(r, &score, err);
        if (ret == -1) {
            sdsfree(m);
            goto fail;
        }
        if (isnan(score)) {
            sdsfree(m);
            rdbSetError(err, "Zset with NAN score detected");
            goto fail;
        }
        if (sdslen(m) > maxelelen) maxelelen = sdslen(m);
        totelelen += sdslen(m);
        int out = 0;
        zsetAdd(o, score, m, ZADD_IN_NX, &out, NULL);
        sdsfree(m);
        if (!(out & ZADD_OUT_ADDED)) {
            rdbSetError(err, "Duplicate zset fields detected");
            goto fail;
        }
    }
    zsetConvertToListpackIfNeeded(o, maxelelen, totelelen);
    return o;
fail:
    decrRefCount(o);
    return NULL;
}

/* A listpack of member, score pairs from the file: valid scores, distinct
 * members, in the order cairn's searches rely on (score, then bytes). */
static int rdbZsetListpackCheck(unsigned char *lp, size_t *maxlen, sds *err) {
    unsigned long n = lpLength(lp);
    if (n % 2) {
        rdbSetError(err, "Zset listpack with an odd number of entries");
        return -1;
    }
    double prev = -INFINITY;
    unsigned char *prevp = NULL; /* the previous member, compared in place */
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, lpNext(lp, p))) {
        unsigned char *sp = lpNext(lp, p);
        unsigned int slen;
        long long ll;
        unsigned char *s = lpGetValue(sp, &slen, &ll);
        double score = (double)ll;
        if (s && !string2d((const char *)s, slen, &score)) {
            rdbSetError(err, "Zset listpack with an invalid score");
            return -1;
        }
        int cmp = prevp ? (score > prev) - (score < prev) : 1;
        if (prevp && cmp == 0) {
            unsigned char b1[LP_INTBUF_SIZE], b2[LP_INTBUF_SIZE];
            int64_t l1, l2;
            unsigned char *m1 = lpGet(prevp, &l1, b1), *m2 = lpGet(p, &l2, b2);
            int c = memcmp(m1, m2, (size_t)(l1 < l2 ? l1 : l2));
            cmp = c ? c < 0 ? 1 : -1 : l1 < l2 ? 1 : l1 > l2 ? -1 : 0;
        }
        prevp = p;
        prev = score;
        if (cmp <= 0) {
            rdbSetError(err, cmp == 0 ? "Duplicate zset fields detected" : "Zset listpack out of order");
            return -1;
        }
    }
    return rdbLpCheckDistinct(lp, 2, maxlen) ? 0 : (rdbSetError(err, "Duplicate zset fields detected"), -1);
}

static robj *rdbLoadZsetBlob(int type, rio *r, sds *err) {
    size_t size, maxlen;
    unsigned char *blob = rdbLoadString(r, RDB_LOAD_PLAIN, &size, err);
    if (!blob) return NULL;
    unsigned char *lp = blob;
    if (type == RDB_TYPE_ZSET_ZIPLIST) {
        unsigned long count;
        lp = ziplistToListpack(blob, size, &count, &maxlen);
        zfree(blob);
        if (!lp) {
            rdbSetError(err, "Zset ziplist integrity check failed");
            return NULL;
        }
    } else if (!lpValidateIntegrity(lp, size, 1)) {
        zfree(lp);
        rdbSetError(err, "Zset listpack integrity check failed");
        return NULL;
    }
    if (lpLength(lp) == 0) {
        lpFree(lp);
        return NULL;
    }
    if (rdbZsetListpackCheck(lp, &maxlen, err) == -1) {
        lpFree(lp);
        return NULL;
    }
    /* A blob from the file is allocated to its exact size already. */
    robj *o = createObject(OBJ_ZSET, type == RDB_TYPE_ZSET_LISTPACK ? lp : lpShrinkToFit(lp));
    o->encoding = OBJ_ENCODING_LISTPACK;
    if ((long long)(lpLength(o->ptr) / 2) > cfg.zset_max_listpack_entries ||
        (long long)maxlen > cfg.zset_max_listpack_value)
        zsetConvert(o, OBJ_ENCODING_SKIPLIST);
    return o;
}

/* ---- hashes ---- */

static robj *rdbLoadHashPairs(rio *r, sds *err) {
    uint64_t n;
    if (rdbReadPlainLen(r, &n, err) == -1) return NULL;
    if (n == 0) return NULL;
    robj *o = hashCreate();
    if ((long long)n > cfg.hash_max_listpack_entries) {
        hashConvertToDict(o);
        dictTryExpand(o->ptr, n < RDB_EXPAND_CAP ? (unsigned long)n : RDB_EXPAND_CAP);
    }
    for (uint64_t j = 0; j < n; j++) {
        sds f = rdbLoadSds(r, err), v = f ? rdbLoadSds(r, err) : NULL;
        if (!v) {
            sdsfree(f);
            goto fail;
        }
        if (o->encoding == OBJ_ENCODING_LISTPACK &&
            ((long long)sdslen(f) > cfg.hash_max_listpack_value || (long long)sdslen(v) > cfg.hash_max_listpack_value))
            hashConvertToDict(o);
        int dup;
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            unsigned char *lp = o->ptr, *first = lpFirst(lp);
            dup = first && lpFind(lp, first, (unsigned char *)f, (uint32_t)sdslen(f), 1) != NULL;
            if (!dup) {
                lp = lpAppend(lp, (unsigned char *)f, (uint32_t)sdslen(f));
                o->ptr = lpAppend(lp, (unsigned char *)v, (uint32_t)sdslen(v));
            }
            sdsfree(f);
            sdsfree(v);
        } else {
            sds key = sdsnewkey(f, sdslen(f));
            sdsfree(f);
            dup = dictAdd(o->ptr, key, v) != DICT_OK;
            if (dup) {
                sdsfree(key);
                sdsfree(v);
            }
        }
        if (dup) {
            rdbSetError(err, "Duplicate hash fields detected");
            goto fail;
        }
    }
    return o;
fail:
    decrRefCount(o);
    return NULL;
}

static robj *rdbLoadHashBlob(int type, rio *r, sds *err) {
    size_t size, maxlen = 0;
    unsigned long count = 0;
    unsigned char *blob = rdbLoadString(r, RDB_LOAD_PLAIN, &size, err);
    if (!blob) return NULL;
    unsigned char *lp = blob;
    if (type == RDB_TYPE_HASH_ZIPMAP) {
        lp = zipmapToListpack(blob, size, &count, &maxlen);
        zfree(blob);
    } else if (type == RDB_TYPE_HASH_ZIPLIST) {
        lp = ziplistToListpack(blob, size, &count, &maxlen);
        zfree(blob);
    } else if (!lpValidateIntegrity(lp, size, 1)) {
        zfree(lp);
        lp = NULL;
    }
    if (!lp) {
        rdbSetError(err, "Hash %s integrity check failed",
                    type == RDB_TYPE_HASH_ZIPMAP ? "zipmap" : type == RDB_TYPE_HASH_ZIPLIST ? "ziplist" : "listpack");
        return NULL;
    }
    if (lpLength(lp) == 0) {
        lpFree(lp);
        return NULL;
    }
    if (lpLength(lp) % 2) {
        lpFree(lp);
        rdbSetError(err, "Hash with an odd number of entries");
        return NULL;
    }
    if (!rdbLpCheckDistinct(lp, 2, &maxlen)) {
        lpFree(lp);
        rdbSetError(err, "Duplicate hash fields detected");
        return NULL;
    }
    /* A blob from the file is allocated to its exact size already. */
    robj *o = createObject(OBJ_HASH, type == RDB_TYPE_HASH_LISTPACK ? lp : lpShrinkToFit(lp));
    o->encoding = OBJ_ENCODING_LISTPACK;
    if ((long long)(lpLength(o->ptr) / 2) > cfg.hash_max_listpack_entries ||
        (long long)maxlen > cfg.hash_max_listpack_value)
        hashConvertToDict(o);
    return o;
}

/* ---- any value ---- */

int rdbIsObjectType(int type) { return (type >= 0 && type <= 7) || (type >= 9 && type <= 21); }

robj *rdbLoadObject(int type, rio *r, sds *err) {
    *err = NULL;
    switch (type) {
    case RDB_TYPE_STRING:
        return rdbLoadStringValue(r, err);
    case RDB_TYPE_LIST:
        return rdbLoadListPlain(r, err);
    case RDB_TYPE_LIST_ZIPLIST:
        return rdbLoadListZiplist(r, err);
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        return rdbLoadQuicklist(type, r, err);
    case RDB_TYPE_SET:
        return rdbLoadSetPlain(r, err);
    case RDB_TYPE_SET_INTSET:
        return rdbLoadSetIntset(r, err);
    case RDB_TYPE_SET_LISTPACK:
        return rdbLoadSetListpack(r, err);
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
        return rdbLoadZsetPairs(type, r, err);
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK:
        return rdbLoadZsetBlob(type, r, err);
    case RDB_TYPE_HASH:
        return rdbLoadHashPairs(r, err);
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return rdbLoadHashBlob(type, r, err);
    case RDB_TYPE_MODULE_PRE_GA:
    case RDB_TYPE_MODULE_2:
        rdbSetError(err, "The RDB file contains module data (type %d): cairn has no modules", type);
        return NULL;
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
    case RDB_TYPE_STREAM_LISTPACKS_3:
        rdbSetError(err, "The RDB file contains a stream (type %d): cairn does not support streams yet", type);
        return NULL;
    }
    rdbSetError(err, "Unknown RDB value type %d", type);
    return NULL;
}

/* ---- skimming: a value's structure without its contents ---- */

/* Consume n bytes without keeping them. */
static int rdbSkipBytes(rio *r, uint64_t n, sds *err) {
    unsigned char scratch[16384];
    while (n) {
        size_t take = n < sizeof(scratch) ? (size_t)n : sizeof(scratch);
        if (!rioReadInPlace(r, take) && !rioRead(r, scratch, take)) {
            rdbSetError(err, SHORT_READ);
            return -1;
        }
        n -= take;
    }
    return 0;
}

/* One string of any encoding: its header read and checked as
 * rdbLoadString checks it, its bytes (compressed ones too) skipped. */
static int rdbSkipString(rio *r, sds *err) {
    uint64_t len;
    int isenc;
    if (rdbReadLen(r, &len, &isenc, err) == -1) return -1;
    if (!isenc) return rdbSkipBytes(r, len, err);
    if (len == RDB_ENC_INT8) return rdbSkipBytes(r, 1, err);
    if (len == RDB_ENC_INT16) return rdbSkipBytes(r, 2, err);
    if (len == RDB_ENC_INT32) return rdbSkipBytes(r, 4, err);
    if (len != RDB_ENC_LZF) {
        rdbSetError(err, "Unknown RDB string encoding type %d", (int)len);
        return -1;
    }
    uint64_t clen, ulen;
    if (rdbReadPlainLen(r, &clen, err) == -1 || rdbReadPlainLen(r, &ulen, err) == -1) return -1;
    if (clen == 0 || ulen == 0 || clen > UINT32_MAX || ulen > UINT32_MAX || ulen / 100 > clen) {
        rdbSetError(err, "Invalid LZF compressed string lengths (%llu -> %llu)", (unsigned long long)clen,
                    (unsigned long long)ulen);
        return -1;
    }
    return rdbSkipBytes(r, clen, err);
}

/* A count, then that many elements of `strings` strings each, with a
 * score after them for a sorted set (ZSET: text, ZSET_2: 8 bytes). */
static int rdbSkipElements(int type, rio *r, int strings, sds *err) {
    uint64_t n;
    if (rdbReadPlainLen(r, &n, err) == -1) return -1;
    for (uint64_t j = 0; j < n; j++) {
        for (int k = 0; k < strings; k++)
            if (rdbSkipString(r, err) == -1) return -1;
        if (type == RDB_TYPE_ZSET_2 && rdbSkipBytes(r, 8, err) == -1) return -1;
        if (type == RDB_TYPE_ZSET) {
            unsigned char len;
            if (rdbReadByte(r, &len, err) == -1) return -1;
            if (len < 253 && rdbSkipBytes(r, len, err) == -1) return -1;
        }
    }
    return 0;
}

int rdbSkipObject(int type, rio *r, sds *err) {
    *err = NULL;
    switch (type) {
    case RDB_TYPE_STRING:
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_SET_INTSET:
    case RDB_TYPE_SET_LISTPACK:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK:
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return rdbSkipString(r, err);
    case RDB_TYPE_LIST:
    case RDB_TYPE_SET:
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
        return rdbSkipElements(type, r, 1, err);
    case RDB_TYPE_HASH:
        return rdbSkipElements(type, r, 2, err);
    case RDB_TYPE_LIST_QUICKLIST_2: {
        uint64_t nodes, container;
        if (rdbReadPlainLen(r, &nodes, err) == -1) return -1;
        for (uint64_t j = 0; j < nodes; j++) {
            if (rdbReadPlainLen(r, &container, err) == -1) return -1;
            if (container != QUICKLIST_NODE_CONTAINER_PACKED && container != QUICKLIST_NODE_CONTAINER_PLAIN) {
                rdbSetError(err, "Quicklist integrity check failed: unknown node container %llu",
                            (unsigned long long)container);
                return -1;
            }
            if (rdbSkipString(r, err) == -1) return -1;
        }
        return 0;
    }
    }
    /* Modules, streams, unknown types: what the loader says about them. */
    robj *o = rdbLoadObject(type, r, err);
    if (o) decrRefCount(o);
    return *err ? -1 : 0;
}

int rdbObjectTypeOf(int type) {
    switch (type) {
    case RDB_TYPE_STRING:
        return OBJ_STRING;
    case RDB_TYPE_LIST:
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        return OBJ_LIST;
    case RDB_TYPE_SET:
    case RDB_TYPE_SET_INTSET:
    case RDB_TYPE_SET_LISTPACK:
        return OBJ_SET;
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK:
        return OBJ_ZSET;
    case RDB_TYPE_HASH:
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return OBJ_HASH;
    }
    return -1;
}

/* ---- whole files ---- */

static void rdbLogAux(sds field, sds value) {
    if (!strcmp(field, "redis-ver")) {
        serverLog(LL_NOTICE, "Loading RDB produced by version %s", value);
    } else if (!strcmp(field, "ctime")) {
        long long ctime = strtoll(value, NULL, 10);
        long long age = (long long)time(NULL) - ctime;
        serverLog(LL_NOTICE, "RDB age %lld seconds", age < 0 ? 0 : age);
    } else if (!strcmp(field, "used-mem")) {
        serverLog(LL_NOTICE, "RDB memory usage when created %.2f Mb", strtod(value, NULL) / (1024 * 1024));
    }
}

/* repl-id (40 characters) and repl-offset count only together. */
static void rdbNoteReplAux(rdbLoadStats *st, sds field, sds value, int *seen) {
    if (!strcmp(field, "repl-stream-db")) {
        st->repl.stream_db = atoi(value);
    } else if (!strcmp(field, "repl-id") && sdslen(value) == 40) {
        memcpy(st->repl.replid, value, 41);
        *seen |= 1;
    } else if (!strcmp(field, "repl-offset")) {
        st->repl.offset = strtoll(value, NULL, 10);
        *seen |= 2;
    }
    st->has_repl = *seen == 3;
}

static void rdbKeyLoadDelay(void) {
    if (cfg.key_load_delay > 0) usleep((useconds_t)cfg.key_load_delay);
}

static const rdbLoadObserver *observer;
void rdbLoadSetObserver(const rdbLoadObserver *obs) { observer = obs; }

static rdbLoadProgressFn *progress_fn;
void rdbLoadSetProgress(rdbLoadProgressFn *fn) { progress_fn = fn; }
static rdbLoadExpiredFn *expired_fn;
void rdbLoadSetExpiredSink(rdbLoadExpiredFn *fn) { expired_fn = fn; }

#define RDB_LOAD_PROGRESS_KEYS 1024

int rdbLoadRio(rio *r, int flags, rdbLoadStats *stats, sds *err) {
    rdbLoadStats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof(*stats));
    *err = NULL;
    sds why = NULL;
    char buf[16];
    int dbid = 0;
    long long expire = -1, now = mstime();
    long long lru_idle = -1; /* from an IDLE opcode, for the next key */
    int lfu_freq = -1;       /* from a FREQ opcode, for the next key */
    /* Counted in keys as well as bytes: with small keys (and key-load-delay)
     * 2 MB can take seconds, and clients wait that long for any answer. */
    size_t progress_step = cfg.loading_process_events_interval_bytes > 0
                               ? (size_t)cfg.loading_process_events_interval_bytes
                               : 2 * 1024 * 1024;
    size_t progress_at = progress_step;
    int progress_keys = 0;
    int repl_seen = 0;
    stats->repl.stream_db = -1;
    if (cfg.rdb_checksum) rioEnableChecksum(r);
    if (!rioRead(r, buf, 9)) {
        rdbSetError(&why, SHORT_READ);
        goto fail;
    }
    buf[9] = '\0';
    if (memcmp(buf, "REDIS", 5) != 0) {
        rdbSetError(&why, "Wrong signature trying to load DB from file");
        goto fail;
    }
    for (int j = 5; j < 9; j++)
        if (buf[j] < '0' || buf[j] > '9') {
            rdbSetError(&why, "Wrong signature trying to load DB from file");
            goto fail;
        }
    int version = atoi(buf + 5);
    stats->version = version;
    if (version < 1 || version > RDB_VERSION_MAX) {
        if (version >= 12)
            rdbSetError(&why, "RDB version %d (Redis 7.4+) is not supported: cairn reads versions 1 to %d (Redis up to 7.2)",
                        version, RDB_VERSION_MAX);
        else
            rdbSetError(&why, "Can't handle RDB format version %d", version);
        goto fail;
    }
    while (1) {
        unsigned char type;
        if (rdbReadByte(r, &type, &why) == -1) goto fail;
        if (type == RDB_OPCODE_EXPIRETIME_MS || type == RDB_OPCODE_EXPIRETIME) {
            unsigned char b[8];
            int n = type == RDB_OPCODE_EXPIRETIME_MS ? 8 : 4;
            if (!rioRead(r, b, (size_t)n)) {
                rdbSetError(&why, SHORT_READ);
                goto fail;
            }
            uint64_t v = 0;
            for (int j = n - 1; j >= 0; j--) v = (v << 8) | b[j];
            expire = type == RDB_OPCODE_EXPIRETIME_MS ? (long long)v : (long long)(int32_t)v * 1000;
            continue;
        } else if (type == RDB_OPCODE_IDLE) {
            uint64_t idle;
            if (rdbReadPlainLen(r, &idle, &why) == -1) goto fail;
            lru_idle = idle > LLONG_MAX / 1000 ? LLONG_MAX / 1000 : (long long)idle;
            continue;
        } else if (type == RDB_OPCODE_FREQ) {
            unsigned char freq;
            if (rdbReadByte(r, &freq, &why) == -1) goto fail;
            lfu_freq = freq;
            continue;
        } else if (type == RDB_OPCODE_EOF) {
            break;
        } else if (type == RDB_OPCODE_SELECTDB) {
            uint64_t id;
            if (rdbReadPlainLen(r, &id, &why) == -1) goto fail;
            if (id >= (uint64_t)dbCount()) {
                rdbSetError(&why, "The RDB file selects database %llu but this server has %d databases",
                            (unsigned long long)id, dbCount());
                goto fail;
            }
            dbid = (int)id;
            continue;
        } else if (type == RDB_OPCODE_RESIZEDB) {
            uint64_t keys, expires;
            if (rdbReadPlainLen(r, &keys, &why) == -1 || rdbReadPlainLen(r, &expires, &why) == -1) goto fail;
            /* A check keeps nothing: no table to size (and cairn-backup
             * checks on a thread of its own, away from the keyspace). */
            if (!(observer && observer->check_only)) dbExpandForLoad(dbid, keys, expires);
            continue;
        } else if (type == RDB_OPCODE_AUX) {
            sds field = rdbLoadSds(r, &why), value = field ? rdbLoadSds(r, &why) : NULL;
            if (!value) {
                sdsfree(field);
                goto fail;
            }
            if (!strcmp(field, "used-mem")) stats->rdb_used_mem = strtoll(value, NULL, 10);
            rdbNoteReplAux(stats, field, value, &repl_seen);
            if (observer) observer->aux(observer->ctx, r->processed_bytes, field, value);
            else rdbLogAux(field, value);
            sdsfree(field);
            sdsfree(value);
            continue;
        } else if (type == RDB_OPCODE_MODULE_AUX) {
            rdbSetError(&why, "The RDB file contains module auxiliary data: cairn has no modules");
            goto fail;
        } else if (type == RDB_OPCODE_FUNCTION2) {
            sds code = rdbLoadSds(r, &why);
            if (!code) goto fail;
            stats->functions++;
            if (observer && observer->function) observer->function(observer->ctx, r->processed_bytes, code);
            sds ferr = NULL;
            if (!(observer && observer->check_only)) {
                ferr = rdbFunctionsLoad(code, sdslen(code), (flags & RDB_LOAD_REPLACE) != 0);
            }
            sdsfree(code);
            if (ferr) {
                /* Quoted: a corrupt record's code can reach the message. */
                sds q = sdscatrepr(sdsempty(), ferr, sdslen(ferr));
                rdbSetError(&why, "Failed loading a function library: %s", q);
                sdsfree(q);
                sdsfree(ferr);
                goto fail;
            }
            continue;
        } else if (type == RDB_OPCODE_FUNCTION_PRE_GA) {
            rdbSetError(&why, "The RDB file holds functions in the Redis 7.0 release-candidate format: not supported");
            goto fail;
        } else if (!rdbIsObjectType(type)) {
            rdbSetError(&why, "Unknown RDB opcode or value type %d", type);
            goto fail;
        }
        if (observer && observer->skim) {
            /* Structure only: nothing is decoded; the CRC64 at the end
             * still covers every byte. */
            sds verr = NULL;
            if (rdbSkipString(r, &why) == -1) goto fail;
            if (rdbSkipObject(type, r, &verr) == -1) {
                why = sdscatprintf(sdsempty(), "%s (a value of type %d)", verr, type);
                sdsfree(verr);
                goto fail;
            }
            observer->skimmed(observer->ctx, r->processed_bytes, dbid, type, expire);
            stats->keys_loaded++;
            expire = -1;
            lru_idle = lfu_freq = -1;
            continue;
        }
        sds key = rdbLoadKeySds(r, &why);
        if (!key) goto fail;
        sds verr = NULL;
        robj *val = rdbLoadObject(type, r, &verr);
        if (!val && verr) {
            why = sdscatprintf(sdsempty(), "%s (key '%.64s', type %d)", verr, key, type);
            sdsfree(verr);
            sdsfree(key);
            goto fail;
        }
        /* Each kept only by the policy that uses it, as Redis does. */
        if (val && lru_idle != -1 && MAXMEMORY_FLAG_LRU(cfg.maxmemory_policy))
            objectSetIdleSeconds(val, lru_idle);
        if (val && lfu_freq != -1 && MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy)) lfuSetFreq(val, (unsigned)lfu_freq);
        lru_idle = lfu_freq = -1;
        if (val && observer) observer->key(observer->ctx, r->processed_bytes, dbid, type, key, val, expire);
        if (val && observer && observer->check_only) {
            stats->keys_loaded++;
            decrRefCount(val);
            sdsfree(key);
        } else if (!val) {
            if (stats->empty_keys_skipped++ < 10)
                serverLog(LL_WARNING, "rdbLoadObject skipping empty key: %s", key);
            sdsfree(key);
        } else if (expire != -1 && expire < now && !(flags & RDB_LOAD_KEEP_EXPIRED)) {
            stats->keys_expired++;
            decrRefCount(val);
            if (expired_fn)
                expired_fn(dbid, key);
            else
                sdsfree(key);
        } else if (!dbAddLoaded(dbid, key, val, expire, flags & RDB_LOAD_REPLACE)) {
            why = sdscatprintf(sdsempty(), "Duplicate key '%.64s' in database %d", key, dbid);
            decrRefCount(val);
            sdsfree(key);
            goto fail;
        } else {
            stats->keys_loaded++;
        }
        expire = -1;
        rdbKeyLoadDelay();
        if (progress_fn && (++progress_keys >= RDB_LOAD_PROGRESS_KEYS || r->processed_bytes >= progress_at)) {
            progress_keys = 0;
            progress_at = r->processed_bytes + progress_step;
            progress_fn(r->processed_bytes, stats);
        }
    }
    if (version >= 5) {
        uint64_t computed = rioChecksum(r), expected = 0;
        unsigned char b[8];
        if (!rioRead(r, b, 8)) {
            rdbSetError(&why, SHORT_READ);
            goto fail;
        }
        for (int j = 7; j >= 0; j--) expected = (expected << 8) | b[j];
        if (!cfg.rdb_checksum) {
            /* not verified */
        } else if (expected == 0) {
            serverLog(LL_WARNING, "RDB file was saved with checksum disabled: no check performed.");
        } else if (expected != computed) {
            rdbSetError(&why, "Wrong RDB checksum expected: (%016llx) got (%016llx)",
                        (unsigned long long)expected, (unsigned long long)computed);
            goto fail;
        }
    }
    return 0;
fail:
    *err = sdscatprintf(sdsempty(), "%s (at offset %zu)", why ? why : "Error", r->processed_bytes);
    sdsfree(why);
    return -1;
}

int rdbLoadFile(const char *filename, int flags, rdbLoadStats *stats, sds *err) {
    FILE *fp = fopen(filename, "r");
    if (!fp) {
        if (errno == ENOENT) return 1;
        *err = sdscatprintf(sdsempty(), "Can't open the RDB file %s for reading: %s", filename, strerror(errno));
        return -1;
    }
    /* Any snapshot-compression setting reads all three forms: the frame
     * magic says which one this file is. */
    int codec = rioCodecDetect(fp);
    rio r;
    if (codec == RIO_CODEC_NONE) {
        /* The fd rio's read-ahead is a plain memcpy per read: the loader
         * reads a byte or a length at a time, and stdio's fread costs
         * several times that per call. */
        rioInitWithFd(&r, fileno(fp));
    } else if (!rioInitCodecReader(&r, fp, codec)) {
        *err = sdscatprintf(sdsempty(), "Can't set up %s decompression for %s", rioCodecName(codec), filename);
        fclose(fp);
        return -1;
    }
    int ret = rdbLoadRio(&r, flags, stats, err);
    if (codec == RIO_CODEC_NONE) {
        rioFreeFd(&r);
    } else {
        if (ret == 0 && !rioCodecAtEnd(&r)) {
            *err = sdscatprintf(sdsempty(), "The %s frame around the RDB is truncated or corrupt (its end is missing)",
                                rioCodecName(codec));
            ret = -1;
        }
        rioCodecFree(&r);
    }
    fclose(fp);
    return ret;
}
