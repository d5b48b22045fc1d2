/* list: `cairn-backup list`, the repository's restore points.
 *
 * One line per backup (oldest first) with its moment, source position,
 * key count and sizes, then the earliest and latest restorable time. A
 * backup is a single restore point (its snapshot's moment); a directory
 * whose manifest cannot be read is reported, never counted. Reads only. */
#include "backup.h"

#include <stdio.h>

int backupList(const char *repo, int json) {
    sds err = NULL, bad = NULL;
    if (repoCheck(repo, &err) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", err);
        sdsfree(err);
        return 1;
    }
    int n;
    backupManifest **list = repoListBackups(repo, &n, &bad);
    if (json) printf("{\"backups\":[");
    for (int j = 0; j < n; j++) {
        backupManifest *m = list[j];
        sds t = backupFormatTime(m->time);
        if (json)
            printf("%s{\"id\":\"%s\",\"time\":%.6f,\"source\":\"%s\",\"replid\":\"%s\",\"offset\":%"
                   "lld,"
                   "\"keys\":%lld,\"rdb_bytes\":%lld,\"file_bytes\":%lld}",
                   j ? "," : "", m->id, m->time, m->source, m->replid, m->offset, m->keys,
                   m->rdb_bytes, m->file_bytes);
        else
            printf("backup %s  time %s  source %s  replid %s  offset %lld  keys %lld  rdb %lld  "
                   "stored %lld\n",
                   m->id, t, m->source, m->replid, m->offset, m->keys, m->rdb_bytes, m->file_bytes);
        sdsfree(t);
    }
    if (json) {
        printf("],\"earliest\":%.6f,\"latest\":%.6f}\n", n ? list[0]->time : 0.0,
               n ? list[n - 1]->time : 0.0);
    } else if (n) {
        sds a = backupFormatTime(list[0]->time), b = backupFormatTime(list[n - 1]->time);
        printf("restorable: %d point%s from %s to %s (the backups' moments; no archived stream)\n",
               n, n == 1 ? "" : "s", a, b);
        sdsfree(a);
        sdsfree(b);
    } else {
        printf("no backups in %s\n", repo);
    }
    if (bad) fprintf(stderr, "cairn-backup: unreadable: %s\n", bad);
    int status = bad ? 1 : 0;
    sdsfree(bad);
    repoFreeList(list, n);
    return status;
}
