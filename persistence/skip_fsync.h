/* skip_fsync: the test hook CAIRN_DEBUG_SKIP_FSYNC, a comma-separated list
 * of the fsyncs to pretend instead of doing:
 *   aof  the fdatasync of the AOF incremental file (every policy)
 *   dir  every directory fsync (the AOF directory, the manifest swap, the
 *        rename of dump.rdb)
 *   rdb  the fsync of a snapshot before it is renamed over dump.rdb
 * It exists so tests/integration/powerloss.tcl can show its check catches a
 * missing fsync; a process kill alone never notices one. Read from the
 * environment on each call (an fsync costs far more than a getenv). */
#ifndef CAIRN_SKIP_FSYNC_H
#define CAIRN_SKIP_FSYNC_H
#include <stdlib.h>
#include <string.h>

static inline int skipFsync(const char *what) {
    const char *list = getenv("CAIRN_DEBUG_SKIP_FSYNC");
    if (!list) return 0;
    size_t n = strlen(what);
    for (const char *p = list; (p = strstr(p, what)) != NULL; p += n) {
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) return 1;
    }
    return 0;
}

#endif
