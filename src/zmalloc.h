/* zmalloc: the allocator front door. Every allocation the server makes goes
 * through here so used_memory is exact (usable size as reported by jemalloc,
 * which Debian's libjemalloc provides as the process malloc). Out of memory is
 * fatal: a half-applied write is worse than a crash a supervisor restarts. */
#ifndef CAIRN_ZMALLOC_H
#define CAIRN_ZMALLOC_H
#include <stddef.h>

void *zmalloc(size_t size);
void *zcalloc(size_t size);
void *zrealloc(void *ptr, size_t size);
void zfree(void *ptr);
char *zstrdup(const char *s);
/* Usable size of a block returned by the functions above. */
size_t zmalloc_size(void *ptr);
/* Variants that also return the usable size so callers can use the slack. */
void *zmalloc_usable(size_t size, size_t *usable);
void *zrealloc_usable(void *ptr, size_t size, size_t *usable);
size_t zmalloc_used_memory(void);
/* Resident set size of this process in bytes (from /proc). */
size_t zmalloc_get_rss(void);
const char *zmalloc_lib(void);
/* jemalloc-bg-thread: 0, or -1 when jemalloc is not the allocator. */
int zmalloc_set_background_thread(int enable);
/* jemalloc's mallctl (DEBUG MALLCTL); ENOENT without jemalloc. */
int zmalloc_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
/* 1 when the inline size-class arithmetic matches the allocator's nallocx
 * at every class edge (and so is used); 0 otherwise (then nallocx or
 * malloc_usable_size answers). Run once before main. */
int zmalloc_sizeclass_check(void);

#endif
