/* sds: length-prefixed, binary-safe, NUL-terminated dynamic strings.
 *
 * An sds is a char* pointing just past a small header, so it can be passed to
 * any C string function. The header size adapts to the length (1, 3, 5, 9 or 17
 * bytes) because keys are the most numerous allocations in the server and a
 * fixed 16-byte header would cost memory per key. Type 5 strings (len < 32)
 * keep no spare capacity and are only created for keys (sdsnewlen with
 * type-5 allowed); anything appended to gets promoted.
 *
 * Ownership: whoever holds the sds frees it with sdsfree(). Functions that may
 * reallocate return the new pointer; the old one must not be used again. */
#ifndef CAIRN_SDS_H
#define CAIRN_SDS_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef char *sds;

#define SDS_MAX_PREALLOC (1024 * 1024)

/* Header layouts. Packed so the flags byte is always s[-1]. */
struct __attribute__((__packed__)) sdshdr5 {
    unsigned char flags; /* 3 lsb type, 5 msb length */
    char buf[];
};
struct __attribute__((__packed__)) sdshdr8 {
    uint8_t len;
    uint8_t alloc; /* capacity, excluding header and NUL */
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr16 {
    uint16_t len;
    uint16_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr32 {
    uint32_t len;
    uint32_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr64 {
    uint64_t len;
    uint64_t alloc;
    unsigned char flags;
    char buf[];
};

#define SDS_TYPE_5    0
#define SDS_TYPE_8    1
#define SDS_TYPE_16   2
#define SDS_TYPE_32   3
#define SDS_TYPE_64   4
#define SDS_TYPE_MASK 7
#define SDS_TYPE_BITS 3
#define SDS_HDR(T, s) ((struct sdshdr##T *)((s) - (sizeof(struct sdshdr##T))))

static inline size_t sdslen(const sds s) {
    unsigned char flags = s[-1];
    switch (flags & SDS_TYPE_MASK) {
        case SDS_TYPE_5: return flags >> SDS_TYPE_BITS;
        case SDS_TYPE_8: return SDS_HDR(8, s)->len;
        case SDS_TYPE_16: return SDS_HDR(16, s)->len;
        case SDS_TYPE_32: return SDS_HDR(32, s)->len;
        case SDS_TYPE_64: return SDS_HDR(64, s)->len;
    }
    return 0;
}

/* Capacity left before a reallocation is needed. */
size_t sdsavail(const sds s);
/* Set the length (must be <= capacity); does not write the NUL. */
void sdssetlen(sds s, size_t newlen);
/* Adjust the length after writing into the spare capacity; writes the NUL. */
void sdsIncrLen(sds s, ssize_t incr);
/* Total capacity (excluding header and NUL). */
size_t sdsalloc(const sds s);

/* Create from a buffer (init NULL means zero-filled). Never type 5. */
sds sdsnewlen(const void *init, size_t initlen);
/* Same, but may use the 1-byte type-5 header: for keys, which never grow. */
sds sdsnewkey(const void *init, size_t initlen);
/* Create with exactly initlen capacity, uninitialised content. */
sds sdsnewlenuninit(size_t initlen);
sds sdsnew(const char *init);
sds sdsempty(void);
sds sdsdup(const sds s);
void sdsfree(sds s);
/* Grow to len bytes, zero-filling the new part. */
sds sdsgrowzero(sds s, size_t len);
sds sdscatlen(sds s, const void *t, size_t len);
sds sdscat(sds s, const char *t);
sds sdscatsds(sds s, const sds t);
sds sdscpylen(sds s, const char *t, size_t len);
sds sdscpy(sds s, const char *t);
sds sdscatvprintf(sds s, const char *fmt, va_list ap);
sds sdscatprintf(sds s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
sds sdsfromlonglong(long long value);
/* Keep s[start..end] (inclusive, negative counts from the end). */
void sdsrange(sds s, ssize_t start, ssize_t end);
sds sdstrim(sds s, const char *cset);
void sdsclear(sds s);
int sdscmp(const sds s1, const sds s2);
void sdstolower(sds s);
void sdstoupper(sds s);
/* Ensure at least addlen bytes of spare capacity; greedy doubling below 1MB. */
sds sdsMakeRoomFor(sds s, size_t addlen);
/* Same, but allocates exactly what is asked (for values that rarely grow). */
sds sdsMakeRoomForNonGreedy(sds s, size_t addlen);
/* Drop spare capacity (reallocates). */
sds sdsRemoveFreeSpace(sds s);
/* Bytes used by the allocation holding s, header included. */
size_t sdsAllocSize(const sds s);
/* Pointer to the start of the allocation (the header). */
void *sdsAllocPtr(const sds s);
/* Append a quoted, escaped representation of p (like Redis' sdscatrepr). */
sds sdscatrepr(sds s, const char *p, size_t len);
/* Split a line into arguments the way redis-cli/config files do: spaces
 * separate, "double quotes" allow \n \r \t \b \a \\ \" \xHH escapes, 'single
 * quotes' allow \' only. Returns NULL on unbalanced quotes. *argc receives the
 * count; free with sdsfreesplitres. */
sds *sdssplitargs(const char *line, int *argc);
/* Split by a separator string; free with sdsfreesplitres. */
sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count);
void sdsfreesplitres(sds *tokens, int count);
sds sdsjoin(char **argv, int argc, char *sep);

#endif
