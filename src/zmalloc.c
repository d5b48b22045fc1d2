/* zmalloc.c: owns the process-wide used_memory counter and the out-of-memory
 * policy. Every server allocation enters through zmalloc/zcalloc/zrealloc and
 * leaves through zfree; the counter moves by the allocator's *usable* size of
 * each block (malloc_usable_size), not the requested size, so INFO's
 * used_memory and maxmemory eviction see what jemalloc really handed out.
 *
 * The binary links -ljemalloc, which replaces the process malloc; without it
 * (e.g. an ASan build, where ASan owns malloc) the same code runs on whatever
 * malloc is in place, since <malloc.h>'s malloc_usable_size exists in both. */
#include "zmalloc.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Weak so the file links with or without jemalloc: when jemalloc is not in
 * the process the symbol resolves to NULL and we report "libc". */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
    __attribute__((weak));
/* jemalloc's size-class arithmetic: the usable size malloc(size) returns,
 * computed without the radix-tree lookup malloc_usable_size makes. */
extern size_t nallocx(size_t size, int flags) __attribute__((weak));

/* jemalloc's size classes on x86-64 (16-byte quantum after the 8-byte
 * class, then four classes per doubling past 128 bytes), computed inline:
 * nallocx is a library call of ~35 instructions, paid by every allocation
 * (a snapshot load makes ~10 million). Trusted only once it has agreed
 * with nallocx at every class edge (sizeclass_checked), and only up to
 * SIZECLASS_MAX. */
#define SIZECLASS_MAX ((size_t)1 << 30)
static inline size_t sizeclass_of(size_t size) {
    if (size <= 8) return 8;
    if (size <= 128) return (size + 15) & ~(size_t)15;
    unsigned lg = 63 - (unsigned)__builtin_clzll((unsigned long long)(size - 1));
    size_t delta = (size_t)1 << (lg - 2);
    return (size + delta - 1) & ~(delta - 1);
}

static int sizeclass_ok; /* set before main, read-only after */

/* Every size to 4 KB, then the edges of each class up to SIZECLASS_MAX. */
int zmalloc_sizeclass_check(void) {
    if (!nallocx) return 0;
    for (size_t s = 1; s <= 4096; s++)
        if (nallocx(s, 0) != sizeclass_of(s)) return 0;
    for (size_t p = 4096; p < SIZECLASS_MAX; p <<= 1)
        for (size_t k = 0; k < 4; k++) {
            size_t edge = p + k * (p / 4);
            for (size_t s = edge - 1; s <= edge + 1; s++)
                if (nallocx(s, 0) != sizeclass_of(s)) return 0;
        }
    return 1;
}

__attribute__((constructor)) static void sizeclass_init(void) { sizeclass_ok = zmalloc_sizeclass_check(); }

static inline size_t usable_of_new(void *ptr, size_t size) {
    if (sizeclass_ok && size <= SIZECLASS_MAX) return sizeclass_of(size);
    return nallocx ? nallocx(size, 0) : malloc_usable_size(ptr);
}

/* The main thread does nearly all the work, but lazy-free runs in a
 * background thread, so updates must not tear; relaxed ordering is enough
 * because nobody synchronises other data through this number. */
static size_t used_memory = 0;

/* One atomic op per call, so a concurrent reader never sees a realloc's
 * add and subtract half-applied. */
static inline void update_used(size_t add, size_t sub) {
    if (add > sub)
        __atomic_add_fetch(&used_memory, add - sub, __ATOMIC_RELAXED);
    else if (sub > add)
        __atomic_sub_fetch(&used_memory, sub - add, __ATOMIC_RELAXED);
}

static void zmalloc_oom(size_t size) {
    fprintf(stderr, "cairn: out of memory allocating %zu bytes\n", size);
    fflush(stderr);
    abort();
}

void *zmalloc_usable(size_t size, size_t *usable) {
    /* malloc(0) may legally return NULL, which we would take for OOM. */
    if (!size) size = 1;
    void *ptr = malloc(size);
    if (!ptr) zmalloc_oom(size);
    size_t u = usable_of_new(ptr, size);
    update_used(u, 0);
    if (usable) *usable = u;
    return ptr;
}

void *zmalloc(size_t size) {
    return zmalloc_usable(size, NULL);
}

void *zcalloc(size_t size) {
    void *ptr = calloc(1, size ? size : 1);
    if (!ptr) zmalloc_oom(size);
    update_used(malloc_usable_size(ptr), 0);
    return ptr;
}

void *zrealloc_usable(void *ptr, size_t size, size_t *usable) {
    if (ptr == NULL) return zmalloc_usable(size, usable);
    if (size == 0) {
        /* Same contract as Redis: realloc to zero frees. */
        zfree(ptr);
        if (usable) *usable = 0;
        return NULL;
    }
    size_t oldsize = malloc_usable_size(ptr);
    void *newptr = realloc(ptr, size);
    if (!newptr) zmalloc_oom(size);
    size_t u = malloc_usable_size(newptr);
    update_used(u, oldsize);
    if (usable) *usable = u;
    return newptr;
}

void *zrealloc(void *ptr, size_t size) {
    return zrealloc_usable(ptr, size, NULL);
}

void zfree(void *ptr) {
    if (ptr == NULL) return;
    update_used(0, malloc_usable_size(ptr));
    free(ptr);
}

char *zstrdup(const char *s) {
    size_t l = strlen(s) + 1;
    char *p = zmalloc(l);
    memcpy(p, s, l);
    return p;
}

size_t zmalloc_size(void *ptr) {
    return ptr ? malloc_usable_size(ptr) : 0;
}

size_t zmalloc_used_memory(void) {
    return __atomic_load_n(&used_memory, __ATOMIC_RELAXED);
}

size_t zmalloc_get_rss(void) {
    /* statm's second field is resident pages; cheaper to parse than status. */
    FILE *fp = fopen("/proc/self/statm", "r");
    if (!fp) return 0;
    unsigned long size = 0, resident = 0;
    int n = fscanf(fp, "%lu %lu", &size, &resident);
    fclose(fp);
    if (n != 2) return 0;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    return (size_t)resident * (size_t)page;
}

/* jemalloc's own purging thread (jemalloc-bg-thread): without it, pages
 * freed by a big DEL or FLUSHALL stay resident until later allocations
 * happen to trigger a purge. 0 on success, -1 without jemalloc. */
int zmalloc_set_background_thread(int enable) {
    if (!mallctl) return -1;
    _Bool val = enable ? 1 : 0;
    return mallctl("background_thread", NULL, NULL, &val, sizeof(val)) == 0 ? 0 : -1;
}

int zmalloc_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
    if (!mallctl) return ENOENT;
    return mallctl(name, oldp, oldlenp, newp, newlen);
}

const char *zmalloc_lib(void) {
    static char name[64];
    if (name[0]) return name;
    const char *ver = NULL;
    size_t sz = sizeof(ver);
    if (mallctl && mallctl("version", &ver, &sz, NULL, 0) == 0 && ver) {
        /* jemalloc's version is "5.3.0-0-g<sha>"; INFO shows "jemalloc-5.3.0". */
        size_t n = strcspn(ver, "-");
        if (n > sizeof(name) - 10) n = sizeof(name) - 10;
        snprintf(name, sizeof(name), "jemalloc-%.*s", (int)n, ver);
    } else {
        snprintf(name, sizeof(name), "libc");
    }
    return name;
}
