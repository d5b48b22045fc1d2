/* test.h: the tiny C unit-test framework. Each test-*.c file is one binary;
 * TEST() blocks run in order, CHECK() records a failure without stopping, and
 * TEST_REPORT() prints "N passed, N failed" (the line the Tcl runner sums)
 * and returns the exit status. A test counts as failed if any CHECK in it
 * failed. */
#ifndef CAIRN_TEST_H
#define CAIRN_TEST_H
#include <stdio.h>

static int test_passed, test_failed, test_cur_failed;
static const char *test_cur_name;

#define TEST(name)                                                                                 \
    for (int _t_once = (test_begin(name), 1); _t_once; _t_once = 0, test_end())

static inline void test_begin(const char *name) {
    test_cur_name = name;
    test_cur_failed = 0;
}
static inline void test_end(void) {
    if (test_cur_failed) {
        test_failed++;
        printf("[err] %s\n", test_cur_name);
    } else {
        test_passed++;
        printf("[ok] %s\n", test_cur_name);
    }
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_cur_failed = 1;                                                                   \
            printf("  check failed %s:%d: %s\n", __FILE__, __LINE__, #cond);                       \
        }                                                                                          \
    } while (0)

#define TEST_REPORT()                                                                              \
    (printf("%d passed, %d failed\n", test_passed, test_failed), test_failed ? 1 : 0)

#endif
