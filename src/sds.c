/* sds.c: owns the layout of sds strings (header + bytes + NUL in one zmalloc
 * block). Data enters as raw buffers/C strings (sdsnewlen, sdscatlen, ...) or
 * as a config/CLI line (sdssplitargs); it leaves as the sds pointer itself,
 * usable as a C string, or as a quoted repr (sdscatrepr). Every allocation
 * goes through zmalloc so used_memory accounts for string slack exactly.
 *
 * Invariants kept by every function here:
 *   - s[-1] is the flags byte; its low 3 bits give the header type.
 *   - s[len] == '\0' after any public call returns.
 *   - for types 8..64, alloc is the real usable capacity of the block
 *     (what jemalloc handed back, minus header and NUL), clamped to what
 *     the header's alloc field can store; type 5 has no spare capacity. */
#include "sds.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "zmalloc.h"

/* Misuse of the length API would silently corrupt the heap, so fail loudly
 * even in release builds instead of relying on assert(). */
#define SDS_ENSURE(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) sds_fatal(#cond, __LINE__);                                                   \
    } while (0)

static void sds_fatal(const char *what, int line) {
    fprintf(stderr, "cairn: sds invariant violated at sds.c:%d: %s\n", line, what);
    abort();
}

static inline size_t sds_hdr_size(int type) {
    switch (type) {
        case SDS_TYPE_5:
            return sizeof(struct sdshdr5);
        case SDS_TYPE_8:
            return sizeof(struct sdshdr8);
        case SDS_TYPE_16:
            return sizeof(struct sdshdr16);
        case SDS_TYPE_32:
            return sizeof(struct sdshdr32);
        case SDS_TYPE_64:
            return sizeof(struct sdshdr64);
    }
    return 0;
}

/* Largest len/alloc the header of this type can record. */
static inline size_t sds_type_max(int type) {
    switch (type) {
        case SDS_TYPE_5:
            return (1 << 5) - 1;
        case SDS_TYPE_8:
            return UINT8_MAX;
        case SDS_TYPE_16:
            return UINT16_MAX;
#if SIZE_MAX > UINT32_MAX
        case SDS_TYPE_32:
            return UINT32_MAX;
#else
        case SDS_TYPE_32:
            return SIZE_MAX;
#endif
        case SDS_TYPE_64:
            return SIZE_MAX;
    }
    return 0;
}

/* Smallest type whose alloc field can hold `size`; never type 5, because
 * anything that might grow needs an alloc field. */
static inline int sds_req_type(size_t size) {
    if (size <= UINT8_MAX) return SDS_TYPE_8;
    if (size <= UINT16_MAX) return SDS_TYPE_16;
#if SIZE_MAX > UINT32_MAX
    if (size <= UINT32_MAX) return SDS_TYPE_32;
    return SDS_TYPE_64;
#else
    return SDS_TYPE_32;
#endif
}

static inline int sds_type(const sds s) {
    return (unsigned char)s[-1] & SDS_TYPE_MASK;
}

static void sds_set_alloc(sds s, size_t alloc) {
    int type = sds_type(s);
    size_t max = sds_type_max(type);
    if (alloc > max) alloc = max;
    switch (type) {
        case SDS_TYPE_5:
            break; /* no alloc field: capacity == len */
        case SDS_TYPE_8:
            SDS_HDR(8, s)->alloc = (uint8_t)alloc;
            break;
        case SDS_TYPE_16:
            SDS_HDR(16, s)->alloc = (uint16_t)alloc;
            break;
        case SDS_TYPE_32:
            SDS_HDR(32, s)->alloc = (uint32_t)alloc;
            break;
        case SDS_TYPE_64:
            SDS_HDR(64, s)->alloc = (uint64_t)alloc;
            break;
    }
}

size_t sdsalloc(const sds s) {
    switch (sds_type(s)) {
        case SDS_TYPE_5:
            return sdslen(s);
        case SDS_TYPE_8:
            return SDS_HDR(8, s)->alloc;
        case SDS_TYPE_16:
            return SDS_HDR(16, s)->alloc;
        case SDS_TYPE_32:
            return SDS_HDR(32, s)->alloc;
        case SDS_TYPE_64:
            return SDS_HDR(64, s)->alloc;
    }
    return 0;
}

size_t sdsavail(const sds s) {
    return sdsalloc(s) - sdslen(s);
}

void sdssetlen(sds s, size_t newlen) {
    int type = sds_type(s);
    SDS_ENSURE(newlen <= sds_type_max(type));
    switch (type) {
        case SDS_TYPE_5:
            s[-1] = (char)(SDS_TYPE_5 | (newlen << SDS_TYPE_BITS));
            break;
        case SDS_TYPE_8:
            SDS_HDR(8, s)->len = (uint8_t)newlen;
            break;
        case SDS_TYPE_16:
            SDS_HDR(16, s)->len = (uint16_t)newlen;
            break;
        case SDS_TYPE_32:
            SDS_HDR(32, s)->len = (uint32_t)newlen;
            break;
        case SDS_TYPE_64:
            SDS_HDR(64, s)->len = (uint64_t)newlen;
            break;
    }
}

void sdsIncrLen(sds s, ssize_t incr) {
    size_t len = sdslen(s);
    size_t newlen;
    if (incr >= 0) {
        /* Type 5 has no spare capacity, so only incr 0 passes for it. */
        SDS_ENSURE((size_t)incr <= sdsavail(s));
        newlen = len + (size_t)incr;
    } else {
        SDS_ENSURE((size_t)(-(incr + 1)) < len); /* -incr <= len without overflow */
        newlen = len - (size_t)(-(incr + 1)) - 1;
    }
    sdssetlen(s, newlen);
    s[newlen] = '\0';
}

static void sds_overflow(void) {
    fprintf(stderr, "cairn: sds length overflow\n");
    abort();
}

/* Allocate a string of `type` with room for at least `cap` bytes and set
 * len to `initlen` (initlen <= cap). Content is left to the caller. */
static sds sds_alloc_typed(int type, size_t initlen, size_t cap) {
    size_t hdrlen = sds_hdr_size(type);
    if (cap > SIZE_MAX - hdrlen - 1) sds_overflow();
    size_t usable;
    char *sh = zmalloc_usable(hdrlen + cap + 1, &usable);
    sds s = sh + hdrlen;
    s[-1] = (char)type;
    sdssetlen(s, initlen);
    sds_set_alloc(s, usable - hdrlen - 1);
    return s;
}

static sds sds_create(const void *init, size_t initlen, int allow5) {
    int type = (allow5 && initlen <= sds_type_max(SDS_TYPE_5)) ? SDS_TYPE_5 : sds_req_type(initlen);
    sds s = sds_alloc_typed(type, initlen, initlen);
    if (init)
        memcpy(s, init, initlen);
    else
        memset(s, 0, initlen);
    s[initlen] = '\0';
    return s;
}

sds sdsnewlen(const void *init, size_t initlen) {
    return sds_create(init, initlen, 0);
}

sds sdsnewkey(const void *init, size_t initlen) {
    return sds_create(init, initlen, 1);
}

/* len is set to initlen and the bytes are left as they come from the
 * allocator: the caller is about to overwrite them (e.g. reading a payload
 * of known size), so zero-filling would be wasted work. */
sds sdsnewlenuninit(size_t initlen) {
    sds s = sds_alloc_typed(sds_req_type(initlen), initlen, initlen);
    s[initlen] = '\0';
    return s;
}

sds sdsnew(const char *init) {
    return sdsnewlen(init, init ? strlen(init) : 0);
}

sds sdsempty(void) {
    return sdsnewlen("", 0);
}

sds sdsdup(const sds s) {
    return sdsnewlen(s, sdslen(s));
}

void sdsfree(sds s) {
    if (s == NULL) return;
    zfree(sdsAllocPtr(s));
}

void *sdsAllocPtr(const sds s) {
    return s - sds_hdr_size(sds_type(s));
}

size_t sdsAllocSize(const sds s) {
    return zmalloc_size(sdsAllocPtr(s));
}

static sds sds_make_room(sds s, size_t addlen, int greedy) {
    if (sdsavail(s) >= addlen) return s;
    size_t len = sdslen(s);
    if (addlen > SIZE_MAX - len) sds_overflow();
    size_t newcap = len + addlen;
    if (greedy) {
        /* Doubling keeps repeated appends amortised O(1); past 1MB the
         * doubling would waste too much memory on big values. */
        if (newcap < SDS_MAX_PREALLOC)
            newcap *= 2;
        else if (newcap <= SIZE_MAX - SDS_MAX_PREALLOC)
            newcap += SDS_MAX_PREALLOC;
    }
    int oldtype = sds_type(s);
    int type = sds_req_type(newcap);
    size_t hdrlen = sds_hdr_size(type);
    if (newcap > SIZE_MAX - hdrlen - 1) sds_overflow();
    size_t usable;
    if (type == oldtype) {
        /* Same header: realloc can often extend in place. */
        char *sh = zrealloc_usable(sdsAllocPtr(s), hdrlen + newcap + 1, &usable);
        s = sh + hdrlen;
    } else {
        /* The header grows, so the bytes must move anyway. */
        char *sh = zmalloc_usable(hdrlen + newcap + 1, &usable);
        memcpy(sh + hdrlen, s, len + 1);
        sdsfree(s);
        s = sh + hdrlen;
        s[-1] = (char)type;
        sdssetlen(s, len);
    }
    sds_set_alloc(s, usable - hdrlen - 1);
    return s;
}

sds sdsMakeRoomFor(sds s, size_t addlen) {
    return sds_make_room(s, addlen, 1);
}

sds sdsMakeRoomForNonGreedy(sds s, size_t addlen) {
    return sds_make_room(s, addlen, 0);
}

sds sdsRemoveFreeSpace(sds s) {
    int oldtype = sds_type(s);
    if (oldtype == SDS_TYPE_5 || sdsavail(s) == 0) return s;
    size_t len = sdslen(s);
    int type = sds_req_type(len);
    size_t hdrlen = sds_hdr_size(type);
    size_t usable;
    if (type == oldtype) {
        char *sh = zrealloc_usable(sdsAllocPtr(s), hdrlen + len + 1, &usable);
        s = sh + hdrlen;
    } else {
        /* A smaller header saves bytes for the rest of the string's life. */
        char *sh = zmalloc_usable(hdrlen + len + 1, &usable);
        memcpy(sh + hdrlen, s, len + 1);
        sdsfree(s);
        s = sh + hdrlen;
        s[-1] = (char)type;
        sdssetlen(s, len);
    }
    sds_set_alloc(s, usable - hdrlen - 1);
    return s;
}

sds sdsgrowzero(sds s, size_t len) {
    size_t curlen = sdslen(s);
    if (len <= curlen) return s;
    s = sdsMakeRoomFor(s, len - curlen);
    memset(s + curlen, 0, len - curlen + 1);
    sdssetlen(s, len);
    return s;
}

sds sdscatlen(sds s, const void *t, size_t len) {
    size_t curlen = sdslen(s);
    s = sdsMakeRoomFor(s, len);
    if (len) memcpy(s + curlen, t, len);
    sdssetlen(s, curlen + len);
    s[curlen + len] = '\0';
    return s;
}

sds sdscat(sds s, const char *t) {
    return sdscatlen(s, t, strlen(t));
}

sds sdscatsds(sds s, const sds t) {
    return sdscatlen(s, t, sdslen(t));
}

sds sdscpylen(sds s, const char *t, size_t len) {
    if (sdsalloc(s) < len) s = sdsMakeRoomFor(s, len - sdslen(s));
    if (len) memmove(s, t, len);
    s[len] = '\0';
    sdssetlen(s, len);
    return s;
}

sds sdscpy(sds s, const char *t) {
    return sdscpylen(s, t, strlen(t));
}

sds sdscatvprintf(sds s, const char *fmt, va_list ap) {
    /* Most formatted pieces are short: try a stack buffer first and only
     * format a second time, straight into the string, when it was too small. */
    char buf[1024];
    va_list cpy;
    va_copy(cpy, ap);
    int n = vsnprintf(buf, sizeof(buf), fmt, cpy);
    va_end(cpy);
    if (n < 0) return s;
    if ((size_t)n < sizeof(buf)) return sdscatlen(s, buf, (size_t)n);
    size_t curlen = sdslen(s);
    s = sdsMakeRoomFor(s, (size_t)n);
    va_copy(cpy, ap);
    vsnprintf(s + curlen, (size_t)n + 1, fmt, cpy);
    va_end(cpy);
    sdssetlen(s, curlen + (size_t)n);
    s[curlen + (size_t)n] = '\0';
    return s;
}

sds sdscatprintf(sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    s = sdscatvprintf(s, fmt, ap);
    va_end(ap);
    return s;
}

sds sdsfromlonglong(long long value) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), value);
    return sdsnewlen(buf, (size_t)len);
}

/* Semantics follow Redis 7.0 exactly, including that an index far below
 * -len clamps to 0 (so sdsrange(s,-100,-100) keeps the first byte). */
void sdsrange(sds s, ssize_t start, ssize_t end) {
    size_t len = sdslen(s);
    if (len == 0) return;
    if (start < 0) {
        start += (ssize_t)len;
        if (start < 0) start = 0;
    }
    if (end < 0) {
        end += (ssize_t)len;
        if (end < 0) end = 0;
    }
    size_t newlen = (start > end) ? 0 : (size_t)(end - start) + 1;
    if ((size_t)start >= len) {
        newlen = 0;
    } else if (newlen > len - (size_t)start) {
        newlen = len - (size_t)start;
    }
    if (newlen && start) memmove(s, s + start, newlen);
    s[newlen] = '\0';
    sdssetlen(s, newlen);
}

sds sdstrim(sds s, const char *cset) {
    size_t len = sdslen(s), clen = strlen(cset);
    size_t start = 0, end = len;
    while (start < end && memchr(cset, s[start], clen)) start++;
    while (end > start && memchr(cset, s[end - 1], clen)) end--;
    size_t newlen = end - start;
    if (start && newlen) memmove(s, s + start, newlen);
    s[newlen] = '\0';
    sdssetlen(s, newlen);
    return s;
}

void sdsclear(sds s) {
    sdssetlen(s, 0);
    s[0] = '\0';
}

int sdscmp(const sds s1, const sds s2) {
    size_t l1 = sdslen(s1), l2 = sdslen(s2);
    size_t minlen = l1 < l2 ? l1 : l2;
    int cmp = minlen ? memcmp(s1, s2, minlen) : 0;
    if (cmp) return cmp;
    return (l1 > l2) - (l1 < l2);
}

void sdstolower(sds s) {
    size_t len = sdslen(s);
    for (size_t j = 0; j < len; j++) s[j] = (char)tolower((unsigned char)s[j]);
}

void sdstoupper(sds s) {
    size_t len = sdslen(s);
    for (size_t j = 0; j < len; j++) s[j] = (char)toupper((unsigned char)s[j]);
}

/* Output must be byte-identical to Redis' (MONITOR, CLIENT LIST, redis-cli
 * --no-raw and error messages show it), so printable is the C-locale range
 * rather than whatever isprint() says under the process locale. */
sds sdscatrepr(sds s, const char *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    s = sdsMakeRoomFor(s, len + 2);
    s = sdscatlen(s, "\"", 1);
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)p[j];
        char esc[4];
        switch (c) {
            case '\\':
                s = sdscatlen(s, "\\\\", 2);
                break;
            case '"':
                s = sdscatlen(s, "\\\"", 2);
                break;
            case '\n':
                s = sdscatlen(s, "\\n", 2);
                break;
            case '\r':
                s = sdscatlen(s, "\\r", 2);
                break;
            case '\t':
                s = sdscatlen(s, "\\t", 2);
                break;
            case '\a':
                s = sdscatlen(s, "\\a", 2);
                break;
            case '\b':
                s = sdscatlen(s, "\\b", 2);
                break;
            default:
                if (c >= 0x20 && c <= 0x7e) {
                    s = sdscatlen(s, (const char *)&c, 1);
                } else {
                    esc[0] = '\\';
                    esc[1] = 'x';
                    esc[2] = hex[c >> 4];
                    esc[3] = hex[c & 15];
                    s = sdscatlen(s, esc, 4);
                }
        }
    }
    return sdscatlen(s, "\"", 1);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Separator test used after a closing quote: same set as isspace() in the C
 * locale (the quote must end the token). */
static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Tokeniser for redis-cli input and config files. The quirks are deliberate
 * and match Redis: leading separators are any isspace() byte but inside an
 * unquoted token only ' ', \t, \n, \r end it; a quote may open mid-token
 * (foo"bar baz" is one token `foobar baz`); a closing quote glued to more
 * text is an error. */
sds *sdssplitargs(const char *line, int *argc) {
    const char *p = line;
    sds current = NULL;
    sds *vector = NULL;
    *argc = 0;
    for (;;) {
        while (*p && is_space(*p)) p++;
        if (!*p) {
            /* Callers free the result unconditionally, so never NULL here. */
            if (vector == NULL) vector = zmalloc(sizeof(sds));
            return vector;
        }
        int inq = 0, insq = 0, done = 0;
        current = sdsempty();
        while (!done) {
            if (inq) {
                if (p[0] == '\\' && p[1] == 'x' && hex_value(p[2]) >= 0 && hex_value(p[3]) >= 0) {
                    char byte = (char)(hex_value(p[2]) * 16 + hex_value(p[3]));
                    current = sdscatlen(current, &byte, 1);
                    p += 3;
                } else if (p[0] == '\\' && p[1]) {
                    char c;
                    p++;
                    switch (*p) {
                        case 'n':
                            c = '\n';
                            break;
                        case 'r':
                            c = '\r';
                            break;
                        case 't':
                            c = '\t';
                            break;
                        case 'b':
                            c = '\b';
                            break;
                        case 'a':
                            c = '\a';
                            break;
                        default:
                            c = *p;
                            break;
                    }
                    current = sdscatlen(current, &c, 1);
                } else if (*p == '"') {
                    if (p[1] && !is_space(p[1])) goto err;
                    done = 1;
                } else if (!*p) {
                    goto err; /* unterminated double quote */
                } else {
                    current = sdscatlen(current, p, 1);
                }
            } else if (insq) {
                if (p[0] == '\\' && p[1] == '\'') {
                    p++;
                    current = sdscatlen(current, "'", 1);
                } else if (*p == '\'') {
                    if (p[1] && !is_space(p[1])) goto err;
                    done = 1;
                } else if (!*p) {
                    goto err; /* unterminated single quote */
                } else {
                    current = sdscatlen(current, p, 1);
                }
            } else {
                switch (*p) {
                    case ' ':
                    case '\n':
                    case '\r':
                    case '\t':
                    case '\0':
                        done = 1;
                        break;
                    case '"':
                        inq = 1;
                        break;
                    case '\'':
                        insq = 1;
                        break;
                    default:
                        current = sdscatlen(current, p, 1);
                        break;
                }
            }
            if (*p) p++;
        }
        vector = zrealloc(vector, ((size_t)*argc + 1) * sizeof(sds));
        vector[*argc] = current;
        (*argc)++;
        current = NULL;
    }

err:
    for (int j = 0; j < *argc; j++) sdsfree(vector[j]);
    zfree(vector);
    sdsfree(current);
    *argc = 0;
    return NULL;
}

sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count) {
    *count = 0;
    if (seplen < 1 || len < 0) return NULL;
    size_t slots = 5, elements = 0;
    sds *tokens = zmalloc(sizeof(sds) * slots);
    if (len == 0) return tokens;
    ssize_t start = 0;
    for (ssize_t j = 0; j + seplen <= len; j++) {
        /* Keep room for this token and the final one after the loop. */
        if (elements + 2 > slots) {
            slots *= 2;
            tokens = zrealloc(tokens, sizeof(sds) * slots);
        }
        if ((seplen == 1 && s[j] == sep[0]) || memcmp(s + j, sep, (size_t)seplen) == 0) {
            tokens[elements++] = sdsnewlen(s + start, (size_t)(j - start));
            start = j + seplen;
            j += seplen - 1;
        }
    }
    tokens[elements++] = sdsnewlen(s + start, (size_t)(len - start));
    *count = (int)elements;
    return tokens;
}

void sdsfreesplitres(sds *tokens, int count) {
    if (!tokens) return;
    for (int j = 0; j < count; j++) sdsfree(tokens[j]);
    zfree(tokens);
}

sds sdsjoin(char **argv, int argc, char *sep) {
    sds join = sdsempty();
    size_t seplen = strlen(sep);
    for (int j = 0; j < argc; j++) {
        join = sdscat(join, argv[j]);
        if (j != argc - 1) join = sdscatlen(join, sep, seplen);
    }
    return join;
}
