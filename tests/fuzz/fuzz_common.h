/* fuzz_common.h -- what the fuzz targets share: the invariant check, and
 * (for targets linking the server) the minimal start-up they need.
 * Header-only, so each target stays one .c file. */
#ifndef CAIRN_FUZZ_COMMON_H
#define CAIRN_FUZZ_COMMON_H
#include <stdio.h>

/* A broken invariant: a line on stderr naming it, then a trap (SIGILL),
 * which libFuzzer and the standalone driver report as a crash. */
#define FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s: invariant broken: %s\n", __FILE__, what);                        \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (0)

#ifdef FUZZ_WITH_SERVER
#include "commands.h"
#include "config.h"
#include "db.h"
#include "object.h"

/* Defaults, silent logging, shared objects, the command table and the
 * databases: enough to decode values and run command procs directly. */
static inline void fuzzServerInit(void) {
    configInitDefaults();
    cfg.verbosity = LL_WARNING + 1;
    objectCreateShared();
    commandsInit();
    dbInit();
}
#endif

#endif
