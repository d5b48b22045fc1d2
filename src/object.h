/* object: the value object (robj) every key's value and every command
 * argument is held in, with Redis' string encodings.
 *
 * A robj is 16 bytes: type, encoding, 24 bits of LRU/LFU clock, a refcount and
 * a pointer. Strings use one of three encodings, the same ones OBJECT ENCODING
 * reports in Redis: "int" (the long lives in ptr), "embstr" (robj and sds
 * share one allocation, for strings up to 44 bytes so the block fits a 64-byte
 * allocator bin) and "raw" (separate sds). Integers 0..9999 are shared
 * objects that are never freed.
 *
 * Ownership: refcounted. createXxx returns refcount 1; decrRefCount frees at 0.
 * The keyspace holds one reference to each value. */
#ifndef CAIRN_OBJECT_H
#define CAIRN_OBJECT_H
#include "sds.h"
#include <limits.h>
#include <stddef.h>

#define OBJ_STRING 0
#define OBJ_LIST   1
#define OBJ_SET    2
#define OBJ_ZSET   3
#define OBJ_HASH   4

/* The numbers are Redis', so OBJECT ENCODING and snapshots line up. */
#define OBJ_ENCODING_RAW       0
#define OBJ_ENCODING_INT       1
#define OBJ_ENCODING_HT        2
#define OBJ_ENCODING_INTSET    6
#define OBJ_ENCODING_SKIPLIST  7
#define OBJ_ENCODING_EMBSTR    8
#define OBJ_ENCODING_QUICKLIST 9
#define OBJ_ENCODING_LISTPACK  11

#define OBJ_TYPE_MAX 5



#define OBJ_SHARED_REFCOUNT     INT_MAX
#define OBJ_SHARED_INTEGERS     10000
#define OBJ_EMBSTR_SIZE_LIMIT   44
#define LRU_BITS                24
#define LRU_CLOCK_MAX           ((1 << LRU_BITS) - 1)
#define LRU_CLOCK_RESOLUTION    1000 /* ms per LRU clock tick */

typedef struct robj {
    unsigned type : 4;
    unsigned encoding : 4;
    unsigned lru : LRU_BITS;
    int refcount;
    void *ptr;
} robj;

/* Operations on values of the non-string types. Each type's module fills
 * its slot (from a constructor function in that module), so the generic
 * code (decrRefCount, COPY, MEMORY USAGE) needs no per-type switch. */
typedef struct objectTypeOps {
    void (*free)(robj *o);           /* free o->ptr and what it owns */
    robj *(*dup)(robj *o);    /* deep copy, refcount 1 (COPY) */
    size_t (*size)(robj *o);         /* approximate bytes (MEMORY USAGE) */
    size_t (*free_effort)(robj *o);  /* separate frees it takes (lazyfree) */
} objectTypeOps;
extern objectTypeOps objectTypes[OBJ_TYPE_MAX];

#define sdsEncodedObject(o) ((o)->encoding == OBJ_ENCODING_RAW || (o)->encoding == OBJ_ENCODING_EMBSTR)

extern robj *shared_integers[OBJ_SHARED_INTEGERS];

void objectCreateShared(void);
/* The LRU clock (main.c) and a value's idle time measured on it, in ms. */
unsigned int lruClock(void);
long long estimateObjectIdleTime(robj *o);
/* Make o look idle for `seconds` (RESTORE IDLETIME, the RDB IDLE opcode). */
void objectSetIdleSeconds(robj *o, long long seconds);
robj *createObject(int type, void *ptr);
robj *createRawStringObject(const char *ptr, size_t len);
robj *createEmbeddedStringObject(const char *ptr, size_t len);
/* embstr up to the limit, raw above. */
robj *createStringObject(const char *ptr, size_t len);
/* Integer-encoded when possible (shared for 0..9999), else a string. */
robj *createStringObjectFromLongLong(long long value);
/* Same, but never returns a shared object (for values that will be changed
 * in place). */
robj *createStringObjectFromLongLongForValue(long long value);
robj *createStringObjectFromLongDouble(long double value, int humanfriendly);
robj *dupStringObject(const robj *o);
void incrRefCount(robj *o);
void decrRefCount(robj *o);
/* decrRefCount usable as a generic void* destructor. */
void decrRefCountVoid(void *o);
/* Re-encode a string value to save memory (int, embstr, trim raw slack).
 * May return a different object; the argument's reference is consumed. */
robj *tryObjectEncoding(robj *o);
/* A raw-encoded private copy safe to modify in place (APPEND, SETRANGE).
 * Replaces *o in the entry it came from; see t_string.c for the caller. */
robj *getDecodedObject(robj *o);
/* Length of the string value in bytes (int encoding counts digits). */
size_t stringObjectLen(const robj *o);
/* Copy the string form of o into buf (at least LONG_STR_SIZE for ints) and
 * return a pointer/len pair without allocating when o is already sds. */
const char *stringObjectPtr(const robj *o, char *buf, size_t *len);
int getLongLongFromObject(const robj *o, long long *target);
int getLongDoubleFromObject(const robj *o, long double *target);
int getDoubleFromObject(const robj *o, double *target);
int compareStringObjects(const robj *a, const robj *b);
int equalStringObjects(const robj *a, const robj *b);
const char *strEncoding(int encoding);
const char *strType(int type);
/* Bytes this value occupies (approximate, for MEMORY USAGE/DEBUG OBJECT). */
size_t objectComputeSize(const robj *o);

#endif
