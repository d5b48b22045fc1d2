/* test_zmalloc.c: unit tests for src/zmalloc.c's accounting: the usable
 * size a new block is counted with (the inline size-class arithmetic
 * under jemalloc) is the allocator's own, for every size a server makes,
 * and used_memory returns to where it began once the blocks are freed. */
#include <malloc.h>
#include <stdlib.h>

#include "test.h"
#include "zmalloc.h"

extern size_t nallocx(size_t size, int flags) __attribute__((weak));

int main(void) {
    TEST("the size classes agree with jemalloc (when jemalloc is the allocator)") {
        CHECK(zmalloc_sizeclass_check() == (nallocx != NULL));
    }
    TEST("a new block's usable size is malloc_usable_size's, at every size to 64 KB and sampled to 64 MB") {
        size_t before = zmalloc_used_memory();
        int ok = 1;
        for (size_t s = 0; s <= 65536; s++) {
            size_t u;
            void *p = zmalloc_usable(s, &u);
            ok &= u == malloc_usable_size(p) && zmalloc_used_memory() == before + u;
            zfree(p);
        }
        for (size_t s = 65536; s <= 64u << 20; s = s * 9 / 8 + 1) {
            size_t u;
            void *p = zmalloc_usable(s, &u);
            ok &= u == malloc_usable_size(p) && u >= s;
            zfree(p);
        }
        CHECK(ok);
        CHECK(zmalloc_used_memory() == before);
    }
    return TEST_REPORT();
}
