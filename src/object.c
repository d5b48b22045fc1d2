/* object: creation, encoding and destruction of robj values (see object.h).
 *
 * Strings enter as bytes or numbers and leave as refcounted objects whose
 * encoding is chosen to minimise memory: int, embstr or raw. */
#include "client.h"
#include "config.h"
#include "lfu.h"
#include "log.h"
#include "object.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

#include <math.h>
#include <stdio.h>

robj *shared_integers[OBJ_SHARED_INTEGERS];

robj *createObject(int type, void *ptr) {
    robj *o = zmalloc(sizeof(*o));
    o->type = type;
    o->encoding = OBJ_ENCODING_RAW;
    o->ptr = ptr;
    o->refcount = 1;
    o->lru = objectNewClock();
    return o;
}

void objectCreateShared(void) {
    for (long j = 0; j < OBJ_SHARED_INTEGERS; j++) {
        robj *o = createObject(OBJ_STRING, (void *)j);
        o->encoding = OBJ_ENCODING_INT;
        o->refcount = OBJ_SHARED_REFCOUNT;
        shared_integers[j] = o;
    }
}

robj *createRawStringObject(const char *ptr, size_t len) {
    return createObject(OBJ_STRING, sdsnewlen(ptr, len));
}

/* One allocation holding the robj, an 8-bit sds header and the bytes. */
robj *createEmbeddedStringObject(const char *ptr, size_t len) {
    robj *o = zmalloc(sizeof(robj) + sizeof(struct sdshdr8) + len + 1);
    struct sdshdr8 *sh = (void *)(o + 1);
    o->type = OBJ_STRING;
    o->encoding = OBJ_ENCODING_EMBSTR;
    o->ptr = sh + 1;
    o->refcount = 1;
    o->lru = objectNewClock();
    sh->len = len;
    sh->alloc = len;
    sh->flags = SDS_TYPE_8;
    if (ptr) memcpy(sh->buf, ptr, len);
    else memset(sh->buf, 0, len);
    sh->buf[len] = '\0';
    return o;
}

robj *createStringObject(const char *ptr, size_t len) {
    if (len <= OBJ_EMBSTR_SIZE_LIMIT) return createEmbeddedStringObject(ptr, len);
    return createRawStringObject(ptr, len);
}

static robj *createLongLongObject(long long value, int allow_shared) {
    if (allow_shared && value >= 0 && value < OBJ_SHARED_INTEGERS) return shared_integers[value];
    robj *o;
    if (value >= LONG_MIN && value <= LONG_MAX) {
        o = createObject(OBJ_STRING, NULL);
        o->encoding = OBJ_ENCODING_INT;
        o->ptr = (void *)((long)value);
    } else {
        o = createObject(OBJ_STRING, sdsfromlonglong(value));
    }
    return o;
}

robj *createStringObjectFromLongLong(long long value) { return createLongLongObject(value, 1); }

/* Values may be shared unless an LRU/LFU maxmemory policy needs a private
 * access clock per value (the same rule Redis applies). */
static int valueSharingAllowed(void) {
    return cfg.maxmemory == 0 ||
           !(MAXMEMORY_FLAG_LFU(cfg.maxmemory_policy) || MAXMEMORY_FLAG_LRU(cfg.maxmemory_policy));
}

robj *createStringObjectFromLongLongForValue(long long value) {
    return createLongLongObject(value, valueSharingAllowed());
}

robj *createStringObjectFromLongDouble(long double value, int humanfriendly) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, humanfriendly ? LD_STR_HUMAN : LD_STR_AUTO);
    return createStringObject(buf, len);
}

robj *dupStringObject(const robj *o) {
    switch (o->encoding) {
        case OBJ_ENCODING_RAW: return createRawStringObject(o->ptr, sdslen(o->ptr));
        case OBJ_ENCODING_EMBSTR: return createEmbeddedStringObject(o->ptr, sdslen(o->ptr));
        default: {
            robj *d = createObject(OBJ_STRING, NULL);
            d->encoding = OBJ_ENCODING_INT;
            d->ptr = o->ptr;
            return d;
        }
    }
}

void incrRefCount(robj *o) {
    if (o->refcount < OBJ_SHARED_REFCOUNT) o->refcount++;
}

objectTypeOps objectTypes[OBJ_TYPE_MAX];

static void freeObjectValue(robj *o) {
    if (o->type == OBJ_STRING) {
        if (o->encoding == OBJ_ENCODING_RAW) sdsfree(o->ptr);
    } else if (o->type < OBJ_TYPE_MAX && objectTypes[o->type].free) {
        objectTypes[o->type].free(o);
    } else {
        serverPanic("Unknown object type");
    }
}

void decrRefCount(robj *o) {
    if (o->refcount == 1) {
        freeObjectValue(o);
        zfree(o);
    } else {
        if (o->refcount <= 0) serverPanic("decrRefCount against refcount <= 0");
        if (o->refcount != OBJ_SHARED_REFCOUNT) o->refcount--;
    }
}

void decrRefCountVoid(void *o) { decrRefCount(o); }

/* Choose the cheapest encoding for a string value about to be stored. */
robj *tryObjectEncoding(robj *o) {
    if (o->type != OBJ_STRING || !sdsEncodedObject(o)) return o;
    /* Shared argument objects (refcount > 1) may be referenced elsewhere,
     * so they are never re-encoded in place. */
    if (o->refcount > 1) return o;
    sds s = o->ptr;
    size_t len = sdslen(s);
    long long value;
    if (len <= 20 && string2ll(s, len, &value)) {
        if (value >= 0 && value < OBJ_SHARED_INTEGERS && valueSharingAllowed()) {
            decrRefCount(o);
            return shared_integers[value];
        }
        if (value >= LONG_MIN && value <= LONG_MAX) {
            if (o->encoding == OBJ_ENCODING_RAW) {
                sdsfree(o->ptr);
                o->encoding = OBJ_ENCODING_INT;
                o->ptr = (void *)(long)value;
                return o;
            }
            /* embstr: the sds lives inside the object, build a new one */
            robj *n = createLongLongObject(value, 0);
            n->lru = o->lru;
            decrRefCount(o);
            return n;
        }
    }
    if (len <= OBJ_EMBSTR_SIZE_LIMIT) {
        if (o->encoding == OBJ_ENCODING_EMBSTR) return o;
        robj *emb = createEmbeddedStringObject(s, len);
        emb->lru = o->lru;
        decrRefCount(o);
        return emb;
    }
    /* Large raw strings: drop slack above 10% so values built by APPEND and
     * friends do not carry their growth room forever. */
    if (o->encoding == OBJ_ENCODING_RAW && sdsavail(s) > len / 10)
        o->ptr = sdsRemoveFreeSpace(o->ptr);
    return o;
}

robj *getDecodedObject(robj *o) {
    if (sdsEncodedObject(o)) {
        incrRefCount(o);
        return o;
    }
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), (long)o->ptr);
    return createStringObject(buf, len);
}

size_t stringObjectLen(const robj *o) {
    if (sdsEncodedObject(o)) return sdslen(o->ptr);
    return sdigits10((long)o->ptr);
}

const char *stringObjectPtr(const robj *o, char *buf, size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(o->ptr);
        return o->ptr;
    }
    *len = ll2string(buf, LONG_STR_SIZE, (long)o->ptr);
    return buf;
}

int getLongLongFromObject(const robj *o, long long *target) {
    long long value;
    if (o == NULL) value = 0;
    else if (sdsEncodedObject(o)) {
        if (!string2ll(o->ptr, sdslen(o->ptr), &value)) return C_ERR;
    } else value = (long)o->ptr;
    if (target) *target = value;
    return C_OK;
}

int getLongDoubleFromObject(const robj *o, long double *target) {
    long double value;
    if (o == NULL) value = 0;
    else if (sdsEncodedObject(o)) {
        if (!string2ld(o->ptr, sdslen(o->ptr), &value)) return C_ERR;
    } else value = (long)o->ptr;
    *target = value;
    return C_OK;
}

int getDoubleFromObject(const robj *o, double *target) {
    double value;
    if (o == NULL) value = 0;
    else if (sdsEncodedObject(o)) {
        if (!string2d(o->ptr, sdslen(o->ptr), &value)) return C_ERR;
    } else value = (long)o->ptr;
    *target = value;
    return C_OK;
}

int compareStringObjects(const robj *a, const robj *b) {
    char bufa[LONG_STR_SIZE], bufb[LONG_STR_SIZE];
    size_t la, lb;
    if (a == b) return 0;
    const char *pa = stringObjectPtr(a, bufa, &la);
    const char *pb = stringObjectPtr(b, bufb, &lb);
    int cmp = memcmp(pa, pb, la < lb ? la : lb);
    if (cmp == 0) return la < lb ? -1 : (la > lb ? 1 : 0);
    return cmp;
}

int equalStringObjects(const robj *a, const robj *b) {
    if (a->encoding == OBJ_ENCODING_INT && b->encoding == OBJ_ENCODING_INT)
        return a->ptr == b->ptr;
    return compareStringObjects(a, b) == 0;
}

const char *strEncoding(int encoding) {
    switch (encoding) {
        case OBJ_ENCODING_RAW: return "raw";
        case OBJ_ENCODING_INT: return "int";
        case OBJ_ENCODING_HT: return "hashtable";
        case OBJ_ENCODING_EMBSTR: return "embstr";
        case OBJ_ENCODING_INTSET: return "intset";
        case OBJ_ENCODING_SKIPLIST: return "skiplist";
        case OBJ_ENCODING_QUICKLIST: return "quicklist";
        case OBJ_ENCODING_LISTPACK: return "listpack";
        default: return "unknown";
    }
}

const char *strType(int type) {
    switch (type) {
        case OBJ_STRING: return "string";
        case OBJ_LIST: return "list";
        case OBJ_SET: return "set";
        case OBJ_ZSET: return "zset";
        case OBJ_HASH: return "hash";
        default: return "unknown";
    }
}

size_t objectComputeSize(const robj *o) {
    if (o->type == OBJ_STRING) {
        if (o->encoding == OBJ_ENCODING_INT) return sizeof(robj);
        if (o->encoding == OBJ_ENCODING_EMBSTR) return zmalloc_size((void *)o);
        return sizeof(robj) + sdsAllocSize(o->ptr);
    }
    if (o->type < OBJ_TYPE_MAX && objectTypes[o->type].size)
        return sizeof(robj) + objectTypes[o->type].size((robj *)o);
    return sizeof(robj);
}

void objectSetIdleSeconds(robj *o, long long seconds) {
    /* The clock counts LRU_CLOCK_RESOLUTION ms ticks, modulo its width. */
    unsigned long long ticks = (unsigned long long)seconds * 1000 / LRU_CLOCK_RESOLUTION;
    o->lru = (lruClock() - (unsigned)(ticks & LRU_CLOCK_MAX)) & LRU_CLOCK_MAX;
}
